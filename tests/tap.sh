# tap.sh — what the shell tests share (sourced, POSIX sh): a temporary folder $tmp,
# removed on exit, and TAP lines: ok and not_ok number each check, tap_finish
# prints the plan and exits 1 when a check failed.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
count=0
failed=0

ok() {
	count=$((count + 1))
	echo "ok $count - $1"
}

not_ok() {
	count=$((count + 1))
	failed=1
	echo "not ok $count - $1"
}

tap_finish() {
	echo "1..$count"
	exit $failed
}
