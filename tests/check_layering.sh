#!/bin/sh
# check_layering.sh — the layering rules of docs/DESIGN.md ("Layers and their
# rules"), checked on the sources and on the core's compiled objects:
#   1. curses is included only in src/tui (only the interface knows the terminal);
#   2. the core (src/core, include/qkv) neither prints nor exits: no printf family
#      but the string one, no puts, putc, fwrite or perror, no stdout or stderr,
#      no exit, _exit, _Exit, quick_exit or abort;
#   3. the core keeps no mutable globals: no object of its library lives in a
#      writable section (.data, .bss, thread-local or common), static locals
#      included; read-only tables (.rodata, .data.rel.ro) are fine;
#   4. includes point down only: core ← io ← app ← present ← tui (the core
#      includes no io, app, present or tui header; io no app, present or tui
#      header; app no present or tui header; the presenter no tui header), however
#      the include is spelled ("…", <…>, a ../ path); and inside io the folders
#      point down too: problem ← figure ← report ← cli (the problem file format
#      includes no figure, report or command-line header; figures no report or
#      command line; reports no command line), so io has no include cycle;
#   5. the app touches no file: app_update and what it calls make no file-system
#      call (fopen, open, stat, rename, unlink, mkdir, …) and include no header of
#      one (fcntl.h, sys/stat.h, dirent.h). Only the file beside it may: files.c,
#      which performs the app's requests and answers with events (the presenter,
#      src/present, reads lessons and serves the notes socket above the app);
#   6. the interface's geometry (src/tui/layout.c) reads no palette state: how the
#      palette draws comes in through struct layout_look.
#   7. the interface changes the app only through app_update (and the app_* calls
#      that start it): src/tui and src/main.c assign no field of an app;
#   8. terminal control only in src/tui: no terminal ioctl (TIOC…), no termios
#      call and no escape sequence (\033[ or \x1b[) written anywhere else.
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

# code FILE…: the files' lines as "file:line:text" with comments and the insides
# of string and character literals blanked, so only code is matched.
code() {
	awk '
		FNR == 1 { comment = 0 }
		{
			line = $0; out = ""
			while (line != "") {
				if (comment) {
					at = index(line, "*/")
					if (at == 0) { line = ""; break }
					line = substr(line, at + 2); comment = 0; continue
				}
				c = substr(line, 1, 1); two = substr(line, 1, 2)
				if (two == "/*") { comment = 1; line = substr(line, 3); out = out " "; continue }
				if (two == "//") { line = ""; break }
				if (c == "\"" || c == "'\''") {
					out = out c; line = substr(line, 2)
					while (line != "" && substr(line, 1, 1) != c) {
						if (substr(line, 1, 1) == "\\") line = substr(line, 2)
						line = substr(line, 2)
					}
					out = out c; line = substr(line, 2); continue
				}
				out = out c; line = substr(line, 2)
			}
			print FILENAME ":" FNR ":" out
		}' "$@"
}

bad=$(grep -rlE '#include *[<"](n?curses(w)?/)?(n?curses|term|panel|menu|form)\.h[>"]' src include |
	grep -v '^src/tui/')
if [ -n "$bad" ]; then
	broken "curses included outside src/tui" "$bad"
else
	echo "ok: curses only in src/tui"
fi

bad=$(code $(find src/core include/qkv -name '*.[ch]' | sort) | grep -E \
	'\b(printf|vprintf|fprintf|vfprintf|dprintf|vdprintf|puts|fputs|putchar|putc|fputc|fwrite|perror|exit|_exit|_Exit|quick_exit|abort)\s*\(|\b(stdout|stderr)\b')
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

up='#include *[<"](\.\./)*(src/)?'
bad=$( (grep -rnE "$up(io|app|present|tui)/" src/core include/qkv
	grep -rnE "$up(app|present|tui)/" src/io
	grep -rnE "$up(present|tui)/" src/app
	grep -rnE "$up"'tui/' src/present
	grep -rnE "$up"'io/(figure|report|cli)/' src/io/problem
	grep -rnE "$up"'io/(report|cli)/' src/io/figure
	grep -rnE "$up"'io/cli/' src/io/report) 2>/dev/null)
if [ -n "$bad" ]; then
	broken "an include points up a layer" "$bad"
else
	echo "ok: includes point down only (core ← io ← app ← present ← tui; in io problem ← figure ← report ← cli)"
fi

beside='src/app/files\.c'
app=$(find src/app -name '*.[ch]' | grep -vE "^$beside\$" | sort)
bad=$( (code $app | grep -E '\b(fopen|freopen|fdopen|open|openat|creat|stat|lstat|fstat|fstatat|rename|renameat|unlink|unlinkat|remove|mkdir|mkdirat|rmdir|opendir|fdopendir|readdir|access|faccessat|mkstemp|mkstemps|tmpfile|fsync|chmod|fchmod|truncate|ftruncate|symlink|link|readlink|realpath|chdir)\s*\('
	grep -nE '#include *<(fcntl|dirent|sys/stat)\.h>' $app /dev/null) 2>/dev/null)
if [ -n "$bad" ]; then
	broken "the app touches files outside files.c" "$bad"
else
	echo "ok: app_update touches no file (files.c performs its requests)"
fi

bad=$( (code src/tui/layout.c src/tui/layout.h | grep -E '\bpalette_[a-z_]+\s*\('
	grep -nE '#include *"tui/palette\.h"' src/tui/layout.c src/tui/layout.h /dev/null) 2>/dev/null)
if [ -n "$bad" ]; then
	broken "the layout reads the palette (pass it in struct layout_look)" "$bad"
else
	echo "ok: the layout reads no palette state"
fi
bad=$(code $(find src/tui -name '*.[ch]' | sort) src/main.c |
	grep -E '\bapp(->|\.)[a-z_][]a-z_0-9.>[-]*\s*([-+*/|&^]?=[^=]|\+\+|--)')
if [ -n "$bad" ]; then
	broken "the interface writes into the app (send an event to app_update)" "$bad"
else
	echo "ok: the interface changes the app only through app_update"
fi

outside=$(find src include -name '*.[ch]' | grep -v '^src/tui/' | sort)
bad=$( (code $outside | grep -E '\b(ioctl|tcgetattr|tcsetattr|cfmakeraw|tcflush|tcdrain)\s*\(|\bTIOC[A-Z]+\b'
	grep -nE '\\(033|x1[bB]|e)\[' $outside /dev/null) 2>/dev/null)
if [ -n "$bad" ]; then
	broken "terminal control outside src/tui" "$bad"
else
	echo "ok: terminal control only in src/tui"
fi
exit $failed
