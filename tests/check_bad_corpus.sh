#!/bin/sh
# check_bad_corpus.sh SOURCE_ROOT BINARY — the real program against every file in
# tests/data/bad: `BINARY --print FILE` must exit 2, print nothing on stdout, and
# print exactly one line on stderr that starts with the file's path and equals the
# file's .expected line. Prints one line per failure and a summary; exits 1 on any.
root=${1:?usage: check_bad_corpus.sh SOURCE_ROOT BINARY}
bin=${2:?usage: check_bad_corpus.sh SOURCE_ROOT BINARY}
case $bin in
/*) ;;
*) bin=$(pwd)/$bin ;;
esac
cd "$root" || exit 1
out=$(mktemp) || exit 1
err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT
total=0
failed=0

fail() {
	echo "FAIL $1: $2"
	failed=$((failed + 1))
}

for file in tests/data/bad/*.json; do
	[ -e "$file" ] || continue
	total=$((total + 1))
	timeout 20 "$bin" --print "$file" >"$out" 2>"$err" </dev/null
	status=$?
	lines=$(wc -l <"$err")
	first=$(head -n 1 "$err")
	expected_file=${file%.json}.expected
	if [ "$status" -ne 2 ]; then
		fail "$file" "exit status $status, expected 2"
	elif [ -s "$out" ]; then
		fail "$file" "wrote to stdout"
	elif [ "$lines" -ne 1 ] || [ -n "$(tail -c 1 "$err")" ]; then
		fail "$file" "$lines lines on stderr, expected exactly one"
	elif [ "${first#"$file"}" = "$first" ]; then
		fail "$file" "stderr does not start with the path: $first"
	elif [ ! -f "$expected_file" ]; then
		fail "$file" "no $expected_file"
	elif [ "$first" != "$(cat "$expected_file")" ]; then
		fail "$file" "got '$first', expected '$(cat "$expected_file")'"
	fi
done
if [ "$total" -eq 0 ]; then
	echo "FAIL: no files in $root/tests/data/bad"
	exit 1
fi
echo "bad corpus: $((total - failed)) of $total files refused with the expected line"
[ "$failed" -eq 0 ]
