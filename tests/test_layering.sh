#!/bin/sh
# test_layering.sh — check_layering.sh catches what it says it checks: on a copy of
# the tree it passes as the tree is, then fails with the rule's own line for each
# violation put in by hand (curses in the app, a printf and a stderr in the core, a
# mutable global in the core's library, an include pointing up from each layer,
# the app opening, renaming or stat-ing a file, the layout calling the palette, the
# interface assigning an app's field, terminal control outside the interface),
# and still passes when the words only appear in a comment or a string.
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

# fresh: a clean copy of the sources in $tmp/tree.
fresh() {
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree"
	cp -R "$root/src" "$root/include" "$tmp/tree/"
}

# expect_broken WHAT FILE LINE: LINE appended to FILE (in the copy) breaks the rule
# whose "broken:" line starts with WHAT.
expect_broken() {
	fresh
	printf '%s\n' "$3" >>"$tmp/tree/$2"
	sh "$check" "$tmp/tree" "$core_lib" >"$tmp/out" 2>&1
	status=$?
	if [ $status -eq 1 ] && grep -q "^broken: $1" "$tmp/out"; then
		ok "$2 with “$3”: broken: $1"
	else
		not_ok_said "$2 with “$3”: expected “broken: $1” and status 1, got status $status"
	fi
}

fresh
sh "$check" "$tmp/tree" "$core_lib" >"$tmp/out" 2>&1
if [ $? -eq 0 ] && [ "$(grep -c '^ok: ' "$tmp/out")" -eq 8 ]; then
	ok "the tree as it is keeps all eight rules"
else
	not_ok_said "the tree as it is keeps all eight rules"
fi

expect_broken "curses included outside src/tui" src/app/app.c '#include <curses.h>'
expect_broken "curses included outside src/tui" src/io/print.c '#include <ncursesw/term.h>'
expect_broken "the core prints or exits" src/core/matrix.c 'static void shout(void) { printf("x"); }'
expect_broken "the core prints or exits" src/core/rng.c 'static void *where(void) { return stderr; }'
expect_broken "the core prints or exits" include/qkv/matrix.h 'static inline void stop(void) { _exit(1); }'
expect_broken "an include points up a layer" src/core/matrix.c '#include "io/load.h"'
expect_broken "an include points up a layer" include/qkv/problem.h '#include <app/app.h>'
expect_broken "an include points up a layer" src/io/load.c '#include "app/app.h"'
expect_broken "an include points up a layer" src/app/history.c '#include "../tui/draw.h"'
expect_broken "an include points up a layer" src/app/history.c '#include "present/lesson.h"'
expect_broken "an include points up a layer" src/present/lesson.c '#include "tui/draw.h"'
expect_broken "terminal control outside src/tui" src/present/notes.c 'static void wide(int fd) { struct winsize w; ioctl(fd, TIOCGWINSZ, &w); }'
expect_broken "terminal control outside src/tui" src/io/print.c 'static const char *const home = "\033[H";'
expect_broken "the app touches files" src/app/app.c 'static void *peek(void) { return fopen("x", "r"); }'
expect_broken "the app touches files" src/app/history.c 'static int gone(void) { return rename("a", "b"); }'
expect_broken "the app touches files" src/app/job.c '#include <sys/stat.h>'
expect_broken "the layout reads the palette" src/tui/layout.c 'static bool mono(void) { return palette_monochrome(); }'
expect_broken "the interface writes into the app" src/tui/tui.c 'static void dark(struct app *app) { app->projector = true; }'
expect_broken "the interface writes into the app" src/main.c 'static void on(struct app app) { app.cursor[0].row++; }'

# Words in comments and strings are not calls.
fresh
printf '%s\n' '/* fopen(path) and printf( are words here */' \
	'static const char *const said = "rename(a, b); exit(1)";' >>"$tmp/tree/src/app/app.c"
printf '%s\n' '/* printf("x"); exit(1); stderr */' >>"$tmp/tree/src/core/matrix.c"
sh "$check" "$tmp/tree" "$core_lib" >"$tmp/out" 2>&1
if [ $? -eq 0 ]; then
	ok "calls named in comments and strings break no rule"
else
	not_ok_said "calls named in comments and strings break no rule"
fi

# A core library with a writable object: the globals rule sees it.
if command -v cc >/dev/null 2>&1 && command -v ar >/dev/null 2>&1; then
	fresh
	printf 'int qkv_counter = 1;\nint qkv_count(void) { return qkv_counter++; }\n' >"$tmp/global.c"
	cc -c -o "$tmp/global.o" "$tmp/global.c" && ar rcs "$tmp/libglobal.a" "$tmp/global.o"
	sh "$check" "$tmp/tree" "$tmp/libglobal.a" >"$tmp/out" 2>&1
	if [ $? -eq 1 ] && grep -q '^broken: the core keeps mutable globals' "$tmp/out" &&
		grep -q 'qkv_counter' "$tmp/out"; then
		ok "a library with int qkv_counter = 1: broken: the core keeps mutable globals"
	else
		not_ok_said "a library with int qkv_counter = 1: broken: the core keeps mutable globals"
	fi
else
	count=$((count + 1))
	echo "ok $count - # SKIP no cc or ar to build a library with a global"
fi
finish
