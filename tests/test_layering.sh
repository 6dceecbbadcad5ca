#!/bin/sh
# test_layering.sh — check_layering.sh catches what it says it checks. On one copy of
# the sources: it passes as the tree is; it still passes when the words only appear in
# a comment or a string; then, with every violation below put in by hand at once (curses
# in the app, a printf and a stderr in the core, an include pointing up from each
# layer, the app opening, renaming or stat-ing a file, the layout calling the palette,
# the interface assigning an app's field, terminal control outside the interface) and a
# core library holding a mutable global,
# each rule's own "broken:" list names each of its violations, by file and line.
# Four runs of the check in all, so it stays fast on a loaded machine.
# Usage: test_layering.sh SOURCE_ROOT CORE_LIBRARY. Prints TAP.
root=$1
core_lib=$2
case $core_lib in
/*) ;;
*) core_lib=$(pwd)/$core_lib ;;
esac
check="$root/tests/check_layering.sh"
. "$(dirname "$0")/cli_harness.sh"

# not_ok_said DESCRIPTION: not ok, with what check_layering.sh said.
not_ok_said() {
	not_ok "$1"
	sed 's/^/# /' "$tmp/out"
}

mkdir -p "$tmp/tree"
cp -R "$root/src" "$root/include" "$tmp/tree/"

sh "$check" "$tmp/tree" "$core_lib" >"$tmp/out" 2>&1
if [ $? -eq 0 ] && [ "$(grep -c '^ok: ' "$tmp/out")" -eq 8 ]; then
	ok "the tree as it is keeps all eight rules"
else
	not_ok_said "the tree as it is keeps all eight rules"
fi

# Words in comments and strings are not calls.
printf '%s\n' '/* fopen(path) and printf( are words here */' \
	'static const char *const said = "rename(a, b); exit(1)";' >>"$tmp/tree/src/app/app.c"
printf '%s\n' '/* printf("x"); exit(1); stderr */' >>"$tmp/tree/src/core/matrix.c"
sh "$check" "$tmp/tree" "$core_lib" >"$tmp/out" 2>&1
if [ $? -eq 0 ]; then
	ok "calls named in comments and strings break no rule"
else
	not_ok_said "calls named in comments and strings break no rule"
fi

# put WHAT FILE LINE: appends LINE to FILE in the copy; the rule whose "broken:" line
# starts with WHAT must then name FILE at that line (the curses rule names files only).
# Each FILE takes at most one violation per rule, so every expectation is its own.
expected="$tmp/expected"
: >"$expected"
put() {
	at=$(($(wc -l <"$tmp/tree/$2") + 1))
	printf '%s\n' "$3" >>"$tmp/tree/$2"
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$at" "$3" >>"$expected"
}
put "curses included outside src/tui" src/app/app.c '#include <curses.h>'
put "curses included outside src/tui" src/io/report/print.c '#include <ncursesw/term.h>'
put "the core prints or exits" src/core/matrix.c 'static void shout(void) { printf("x"); }'
put "the core prints or exits" src/core/rng.c 'static void *where(void) { return stderr; }'
put "the core prints or exits" include/qkv/matrix.h 'static inline void stop(void) { _exit(1); }'
put "an include points up a layer" src/core/attention.c '#include "io/problem/load.h"'
put "an include points up a layer" include/qkv/problem.h '#include <app/app.h>'
put "an include points up a layer" src/io/problem/load.c '#include "app/app.h"'
put "an include points up a layer" src/app/history.c '#include "../tui/draw.h"'
put "an include points up a layer" src/app/walk.c '#include "present/lesson.h"'
put "an include points up a layer" src/io/problem/save.c '#include "io/report/print.h"'
put "an include points up a layer" src/io/figure/figure.c '#include "io/report/print.h"'
put "an include points up a layer" src/io/report/print_csv.c '#include "io/cli/cli.h"'
put "an include points up a layer" src/present/lesson.c '#include "tui/draw.h"'
put "terminal control outside src/tui" src/present/notes.c 'static void wide(int fd) { struct winsize w; ioctl(fd, TIOCGWINSZ, &w); }'
put "terminal control outside src/tui" src/io/report/print.c 'static const char *const home = "\033[H";'
put "the app touches files" src/app/app.c 'static void *peek(void) { return fopen("x", "r"); }'
put "the app touches files" src/app/history.c 'static int gone(void) { return rename("a", "b"); }'
put "the app touches files" src/app/job.c '#include <sys/stat.h>'
put "the layout reads the palette" src/tui/layout.c 'static bool mono(void) { return palette_monochrome(); }'
put "the interface writes into the app" src/tui/tui.c 'static void dark(struct app *app) { app->projector = true; }'
put "the interface writes into the app" src/main.c 'static void on(struct app app) { app.cursor[0].row++; }'

# A core library with a writable object, for the globals rule in the same run.
library=$core_lib
global_lib=no
if command -v cc >/dev/null 2>&1 && command -v ar >/dev/null 2>&1; then
	printf 'int qkv_counter = 1;\nint qkv_count(void) { return qkv_counter++; }\n' >"$tmp/global.c"
	if cc -c -o "$tmp/global.o" "$tmp/global.c" && ar rcs "$tmp/libglobal.a" "$tmp/global.o"; then
		library=$tmp/libglobal.a
		global_lib=yes
	fi
fi

sh "$check" "$tmp/tree" "$library" >"$tmp/out" 2>&1
status=$?
if [ $status -eq 1 ] && [ "$(grep -c '^ok: ' "$tmp/out")" -eq 0 ]; then
	ok "with a violation of each rule put in: status 1 and every rule broken"
else
	not_ok_said "with a violation of each rule put in: status 1 and every rule broken (status $status)"
fi

# listed WHAT: the lines of the "broken: WHAT…" list, without their indent.
listed() {
	awk -v what="broken: $1" '
		/^broken: / { inside = index($0, what) == 1; next }
		/^[^ ]/ { inside = 0 }
		inside { sub(/^  /, ""); print }' "$tmp/out"
}

tab=$(printf '\t')
while IFS=$tab read -r what file at line; do
	case $what in
	curses*) found=$(listed "$what" | grep -cxF "$file") ;;
	*) found=$(listed "$what" | grep -cF "$file:$at:") ;;
	esac
	if [ "$found" -eq 1 ]; then
		ok "$file with “$line”: broken: $what, at line $at"
	else
		not_ok_said "$file with “$line”: expected under “broken: $what” at line $at"
	fi
done <"$expected"

if [ "$global_lib" = yes ]; then
	if listed "the core keeps mutable globals" | grep -q 'qkv_counter'; then
		ok "a library with int qkv_counter = 1: broken: the core keeps mutable globals"
	else
		not_ok_said "a library with int qkv_counter = 1: broken: the core keeps mutable globals"
	fi
else
	count=$((count + 1))
	echo "ok $count - # SKIP no cc or ar to build a library with a global"
fi
finish
