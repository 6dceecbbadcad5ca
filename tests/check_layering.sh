#!/bin/sh
# check_layering.sh — the layering rules of docs/DESIGN.md ("Layers and their
# rules"), checked on the sources and on the core's compiled objects:
#   1. curses is included only in src/tui (only the interface knows the terminal);
#   2. the core (src/core, include/qkv) neither prints nor exits;
#   3. the core keeps no mutable globals: no object of its library lives in a
#      writable section (.data, .bss, thread-local or common), static locals
#      included; read-only tables (.rodata, .data.rel.ro) are fine;
#   4. includes point down only: core ← io ← app ← tui (the core includes no io,
#      app or tui header; io no app or tui header; app no tui header).
# Usage: check_layering.sh SOURCE_ROOT CORE_LIBRARY. Prints one line per rule;
# exits 1 when any is broken.
root=${1:-.}
core_lib=$2
case $core_lib in
/* | '') ;;
*) core_lib=$(pwd)/$core_lib ;;
esac
cd "$root" || exit 1
failed=0

broken() {
	echo "broken: $1"
	echo "$2" | sed 's/^/  /'
	failed=1
}

bad=$(grep -rlE '#include *[<"](n?curses(w)?/)?n?curses\.h[>"]' src include | grep -v '^src/tui/')
if [ -n "$bad" ]; then
	broken "curses included outside src/tui" "$bad"
else
	echo "ok: curses only in src/tui"
fi

bad=$(grep -rnE '\b(printf|fprintf|puts|fputs|putchar|exit|_Exit|abort|perror)\s*\(' \
	src/core include/qkv)
if [ -n "$bad" ]; then
	broken "the core prints or exits" "$bad"
else
	echo "ok: the core neither prints nor exits"
fi

if [ -z "$core_lib" ] || [ ! -f "$core_lib" ]; then
	broken "no core library to inspect for globals (\"$core_lib\")" ""
else
	# objdump -t: "VALUE FLAGS SECTION SIZE NAME"; objects (O) and common symbols.
	# A sanitizer's own bookkeeping (__asan…, __odr_asan…, __ubsan…, __sancov…,
	# __gcov…) is the build's, not the core's.
	bad=$(objdump -t "$core_lib" | awk '
		$0 ~ / O / || $0 ~ /\*COM\*/ {
			if ($NF ~ /^_+(odr_)?(asan|ubsan|sancov|gcov|llvm)/ || $NF ~ /^\.L/)
				next
			for (i = 1; i <= NF; i++)
				if ($i ~ /^(\.data|\.bss|\.tdata|\.tbss|\*COM\*)/ && $i !~ /^\.data\.rel\.ro/)
					print $i, $NF
		}')
	if [ -n "$bad" ]; then
		broken "the core keeps mutable globals (section, symbol)" "$bad"
	else
		echo "ok: the core keeps no mutable globals"
	fi
fi

bad=$( (grep -nE '#include *"(io|app|tui)/' -r src/core include/qkv
	grep -nE '#include *"(app|tui)/' -r src/io
	grep -nE '#include *"tui/' -r src/app) 2>/dev/null)
if [ -n "$bad" ]; then
	broken "an include points up a layer" "$bad"
else
	echo "ok: includes point down only (core ← io ← app ← tui)"
fi
exit $failed
