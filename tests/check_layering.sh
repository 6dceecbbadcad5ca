#!/bin/sh
# Fails when curses is included anywhere but src/tui/ (STYLE.md: only the interface
# knows the terminal), or when the core prints, exits or keeps globals.
root=${1:-.}
cd "$root" || exit 1
bad=$(grep -rlE '#include *[<"](n?curses(w)?/)?n?curses\.h[>"]' src include | grep -v '^src/tui/')
if [ -n "$bad" ]; then
	echo "curses included outside src/tui: $bad"
	exit 1
fi
bad=$(grep -nE '\b(printf|fprintf|puts|fputs|exit|abort|perror)\s*\(' src/core include/qkv)
if [ -n "$bad" ]; then
	echo "the core prints or exits: $bad"
	exit 1
fi
echo "ok: curses only in src/tui, the core neither prints nor exits"
