#!/bin/sh
# check_manpage.sh SOURCE_ROOT — the manual page formats without a single groff
# warning: as groff reads it (-ww, all warnings), as a UTF-8 terminal shows it
# (preconv, -Tutf8), and through man in a UTF-8 and in the C locale. Prints TAP;
# without groff it skips itself (status 77): groff-base, with man-db for man.
root=${1:?usage: check_manpage.sh SOURCE_ROOT}
page=$root/man/qkv.1
n=0
failed=0
if ! command -v groff >/dev/null 2>&1; then
	echo "1..0 # SKIP groff is not installed (apt-get install groff-base)"
	exit 77
fi
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

# check MESSAGE COMMAND...: ok when COMMAND exits 0 and writes nothing to stderr.
check() {
	message=$1
	shift
	n=$((n + 1))
	if "$@" >/dev/null 2>"$err" && [ ! -s "$err" ]; then
		echo "ok $n - $message"
	else
		echo "not ok $n - $message"
		failed=$((failed + 1))
		sed 's/^/# /' "$err"
	fi
}

check "groff -man -ww -z: no warning" groff -man -ww -z "$page"
check "groff -k -man -ww -z -Tutf8 (a UTF-8 terminal): no warning" groff -k -man -ww -z -Tutf8 "$page"
if command -v man >/dev/null 2>&1; then
	check "man --warnings in C.UTF-8: no warning" env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page"
	check "man --warnings in the C locale: no warning" env LC_ALL=C MANWIDTH=80 man --warnings -l "$page"
	# Where the terminal has no ᵀ, the page still says K^T.
	n=$((n + 1))
	if LC_ALL=C MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q 'softmax(Q K^T / '; then
		echo "ok $n - in the C locale the formula reads Q K^T"
	else
		echo "not ok $n - in the C locale the formula reads Q K^T"
		failed=$((failed + 1))
	fi
fi
echo "1..$n"
[ "$failed" -eq 0 ]
