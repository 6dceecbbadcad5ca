#!/usr/bin/env bash
# test_docs.sh — the README and docs/*.md tried as a new user would: every example
# block that starts with "$ qkv …" is run and must print exactly the rest of the
# block (stdout and stderr, byte for byte); the manual page's options are those of
# --help; the problem file docs/formats.md shows loads; the error forms it promises
# are the ones printed; the course's table docs/teaching.md quotes is the closed
# form's; the seed limits docs/formats.md states hold; and the manual page the
# README tells you to install is installed by meson.
# Usage: test_docs.sh PATH/TO/qkv (QKV_BUILD_ROOT: the meson build directory).
# Prints TAP; exits 1 when a check fails.
qkv=$1
case $qkv in
/*) ;;
*) qkv="$PWD/$qkv" ;;
esac
root=${QKV_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
readme="$root/README.md"
teaching="$root/docs/teaching.md"
formats="$root/docs/formats.md"
. "$root/tests/cli_harness.sh"
export LC_ALL=C.UTF-8

# check DESCRIPTION TEST-ARGS...
check() {
	local desc=$1
	shift
	if test "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

cd "$root" || exit 1

# --- the "$ qkv …" blocks, run ---------------------------------------------------
# Each fenced block whose first line is "$ qkv ARGS", in the README or docs/*.md,
# becomes example-N.cmd (ARGS) and example-N.out (the lines after it).
awk -v dir="$tmp" '
	/^```/ {
		if (inside) { inside = 0; if (n_cmd) close(out); n_cmd = 0; next }
		inside = 1; first = 1; next
	}
	inside && first {
		first = 0
		if (substr($0, 1, 6) == "$ qkv ") {
			examples++
			n_cmd = 1
			out = dir "/example-" examples ".out"
			print substr($0, 7) > (dir "/example-" examples ".cmd")
			close(dir "/example-" examples ".cmd")
			printf "" > out
		}
		next
	}
	inside && n_cmd { print >> out }
' "$readme" "$root"/docs/*.md
examples=0
for cmd in "$tmp"/example-*.cmd; do
	[ -e "$cmd" ] || continue
	examples=$((examples + 1))
	args=$(cat "$cmd")
	eval "set -- $args"
	"$qkv" "$@" </dev/null >"$tmp/got" 2>&1
	if cmp -s "$tmp/got" "${cmd%.cmd}.out"; then
		ok "example 'qkv $args' prints exactly what the document shows"
	else
		not_ok "example 'qkv $args' prints exactly what the document shows"
		diff "${cmd%.cmd}.out" "$tmp/got" | head -n 20 | sed 's/^/# /'
	fi
done
check "the docs have the --print --stage 3 example and the error example as runnable blocks" \
	"$(cat "$teaching" "$formats" | grep -c '^\$ qkv --print')" -ge 2
if grep -q '^\$ qkv --print --stage 3$' "$teaching" && grep -q '^\$ qkv --print tests/data/bad/' "$formats"; then
	ok "the two examples are the stage 3 handout (teaching.md) and a file of the repository refused (formats.md)"
else
	not_ok "the two examples are the stage 3 handout (teaching.md) and a file of the repository refused (formats.md)"
fi
bad=$(sed -n 's/^\$ qkv --print \(tests\/data\/bad\/[^ ]*\)$/\1/p' "$formats" | head -n 1)
check "the error example's file exists in the repository ($bad)" -n "$bad" -a -f "$bad"
"$qkv" --print "$bad" </dev/null >/dev/null 2>&1
check "the error example exits with status 2" "$?" -eq 2

# --- the options list against --help -------------------------------------------------
# The options live in the manual page: its SYNOPSIS and OPTIONS name exactly --help's.
sed -n '/^\.SH SYNOPSIS/,/^\.SH KEYS/p' "$root/man/qkv.1" | sed 's/\\-/-/g' \
	| grep -o -- '--[a-z][a-z-]*' | sort -u >"$tmp/man-options"
"$qkv" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$tmp/help-options"
if [ -s "$tmp/man-options" ] && cmp -s "$tmp/man-options" "$tmp/help-options"; then
	ok "the man page's options are exactly those of --help ($(wc -l <"$tmp/man-options") options)"
else
	not_ok "the man page's options are exactly those of --help"
	diff "$tmp/man-options" "$tmp/help-options" | sed 's/^/# /'
fi

# --- the file format example loads ------------------------------------------------
awk '/^```json$/ { inside = 1; next } /^```/ { inside = 0 } inside' "$formats" >"$tmp/example.json"
"$qkv" --print "$tmp/example.json" </dev/null >/dev/null 2>"$tmp/err"
check "formats.md's problem file loads (status 0, nothing on stderr)" "$?" -eq 0 -a ! -s "$tmp/err"

# --- every error is "qkv: …", "FILE:LINE:COL: …" or "FILE: cannot open/read: …" ----
error_form() {
	local file=$1 line
	line=$(head -n 1 "$tmp/err")
	case $line in
	"qkv: "*) return 0 ;;
	"$file: cannot open: "* | "$file: cannot read: "*) return 0 ;;
	"$file:"[0-9]*:[0-9]*": "*) return 0 ;;
	esac
	return 1
}
"$qkv" --print "$tmp/missing.json" </dev/null >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 2 ] && grep -q "^$tmp/missing.json: cannot open: " "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	ok "a missing file: one line 'FILE: cannot open: …', status 2, as formats.md says"
else
	not_ok "a missing file: one line 'FILE: cannot open: …', status 2 (got $status: $(cat "$tmp/err"))"
fi
printf '{"seed": 7}\n' >"$tmp/seed-only.json"
for args in "--print --stage 9" "--bogus" "--print $tmp" "--print $tmp/seed-only.json" \
	"--print tests/data/bad/blank.json" "--random --tokens 2 --dk 2 --seed 9007199254740992 --print"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$qkv" $args </dev/null >/dev/null 2>"$tmp/err"
	status=$?
	file=${args##* }
	if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && error_form "$file"; then
		ok "qkv $args: one line in a form formats.md names, status 2"
	else
		not_ok "qkv $args: one line in a form formats.md names, status 2 (got $status: $(cat "$tmp/err"))"
	fi
done

# --- seeds: a file with only a seed is refused, as formats.md says; the limit ----
"$qkv" --print "$tmp/seed-only.json" </dev/null >/dev/null 2>"$tmp/err"
check "a file with only a seed is refused (formats.md says the matrices are still required)" "$?" -eq 2
grep -q 'Seeds go from 0 to 2^53 − 1' "$formats"
check "formats.md states the seed limit 2^53 − 1" "$?" -eq 0
printf '{"Q": [[1]], "K": [[1]], "V": [[1]], "seed": 9007199254740991}\n' >"$tmp/seed-max.json"
printf '{"Q": [[1]], "K": [[1]], "V": [[1]], "seed": 9007199254740992}\n' >"$tmp/seed-over.json"
"$qkv" --print "$tmp/seed-max.json" </dev/null >/dev/null 2>&1
check "a file's seed of 2^53 − 1 is accepted" "$?" -eq 0
"$qkv" --print "$tmp/seed-over.json" </dev/null >/dev/null 2>&1
check "a file's seed of 2^53 is refused" "$?" -eq 2
"$qkv" --random --tokens 2 --dk 2 --seed 9007199254740991 --print </dev/null >/dev/null 2>&1
check "--seed 2^53 − 1 is accepted" "$?" -eq 0

# --- the course's table: teaching.md's exact values are the closed form's --------
# Row 1 scores (1, 0, 1) / √2, row 2 (0, 1, 1) / √2, row 3 (1, 1, 2) / √2.
closed=$(awk 'BEGIN {
	a = exp(1 / sqrt(2)); b = exp(2 / sqrt(2))
	printf "%.4f %.4f %.4f / %.4f %.4f %.4f / %.4f %.4f %.4f",
		a / (2 * a + 1), 1 / (2 * a + 1), a / (2 * a + 1),
		1 / (2 * a + 1), a / (2 * a + 1), a / (2 * a + 1),
		a / (2 * a + b), a / (2 * a + b), b / (2 * a + b)
}')
if tr '\n' ' ' <"$teaching" | tr -s ' ' | grep -qF "exact values are $closed"; then
	ok "teaching.md's exact values of the course's table are the closed form's: $closed"
else
	not_ok "teaching.md's exact values of the course's table are the closed form's: $closed"
fi

# --- the scripts' install advice: the root form and the sudo form -------------------
advice=$(bash -c '. scripts/lib.sh && qkv_install_lines valgrind clang' 2>&1)
if printf '%s\n' "$advice" | grep -q '^  apt-get install valgrind clang    (as root)$' &&
	printf '%s\n' "$advice" | grep -q '^  sudo apt-get install valgrind clang    (with sudo)$'; then
	ok "the scripts give the install line as root and with sudo, as the README says"
else
	not_ok "the scripts give the install line as root and with sudo, as the README says"
	printf '%s\n' "$advice" | sed 's/^/# /'
fi

# --- the manual page: meson installs it, and it reads -----------------------------
build=${QKV_BUILD_ROOT:-}
if [ -n "$build" ] && [ -d "$build/meson-info" ]; then
	if meson introspect --installed "$build" 2>/dev/null | grep -q '/man1/qkv\.1"'; then
		ok "meson install puts the manual page in man1/qkv.1"
	else
		not_ok "meson install puts the manual page in man1/qkv.1"
	fi
else
	not_ok "QKV_BUILD_ROOT names no meson build directory ('$build')"
fi
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l man/qkv.1 >"$tmp/man" 2>"$tmp/err"
	check "man -l man/qkv.1 reads the page, as the README says" "$?" -eq 0 -a -s "$tmp/man"
fi

finish
