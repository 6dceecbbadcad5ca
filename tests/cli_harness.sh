# cli_harness.sh — what the command-line tests share (sourced, after setting
# qkv=PATH/TO/qkv): a temporary directory $tmp removed at exit, TAP counting
# (ok, not_ok, finish), and running qkv without a terminal with its status and
# output checked (run, expect_success, expect_refusal).
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

# The plan line and the exit status: 1 when a check failed.
finish() {
	echo "1..$count"
	exit "$failed"
}

# Runs qkv with the arguments; status in $status, output in $tmp/out and $tmp/err.
run() {
	"$qkv" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	status=$?
}

lines() {
	wc -l <"$1" | tr -d ' '
}

# expect_success DESCRIPTION ARGS...: status 0, something on stdout, nothing on stderr.
expect_success() {
	desc=$1
	shift
	run "$@"
	if [ "$status" -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
		ok "$desc"
	else
		not_ok "$desc (status $status; stderr: $(head -c 300 "$tmp/err"))"
	fi
}

# expect_refusal DESCRIPTION STATUS PREFIX ARGS...: that status, nothing on stdout,
# exactly one line on stderr starting with PREFIX.
expect_refusal() {
	desc=$1
	want=$2
	prefix=$3
	shift 3
	run "$@"
	first=$(head -n 1 "$tmp/err")
	case $first in
	"$prefix"*) starts=yes ;;
	*) starts=no ;;
	esac
	if [ "$status" -eq "$want" ] && [ ! -s "$tmp/out" ] && [ "$(lines "$tmp/err")" -eq 1 ] \
		&& [ "$starts" = yes ]; then
		ok "$desc"
	else
		not_ok "$desc (status $status, want $want; stderr: $(head -c 300 "$tmp/err"))"
	fi
}
