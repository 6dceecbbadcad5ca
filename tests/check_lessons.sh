#!/bin/sh
# check_lessons.sh SOURCE_ROOT BINARY — every lesson shipped in lessons/ replays
# and every expect in it holds (`qkv --check-lesson`, no terminal); a broken lesson
# is refused with one line FILE:LINE and status 2; a failed expect is one line
# FILE:LINE and status 1. Prints TAP.
root=${1:?usage: check_lessons.sh SOURCE_ROOT BINARY}
bin=${2:?usage: check_lessons.sh SOURCE_ROOT BINARY}
case $bin in
/*) ;;
*) bin=$(pwd)/$bin ;;
esac
. "$(dirname "$0")/cli_harness.sh"
cd "$root" || exit 1
dir=$tmp

# held STATUS DESCRIPTION: ok when STATUS is 0, else not ok with what qkv wrote.
held() {
	if [ "$1" -eq 0 ]; then
		ok "$2"
	else
		not_ok "$2"
		sed 's/^/# /' "$dir/out" "$dir/err"
	fi
}

for lesson in lessons/*.lesson; do
	timeout 60 "$bin" --check-lesson "$lesson" >"$dir/out" 2>"$dir/err" </dev/null
	status=$?
	grep -q "^$lesson: [0-9]* steps, expects holding: \([0-9]*\) of \1$" "$dir/out" && [ "$status" -eq 0 ] &&
		[ ! -s "$dir/err" ]
	held $? "$lesson replays and every expect holds"
done

# A failed expect: one line with the file and line, the summary, status 1.
printf 'step Weights\nstage weights\nexpect A[t1,t3] = 0.42\n' >"$dir/slip.lesson"
"$bin" --check-lesson "$dir/slip.lesson" >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$dir/out")" -eq 2 ] &&
	grep -q "^$dir/slip.lesson:3: step 1 (Weights): expected A\[t1,t3\] = 0.42 ± 0.005, qkv shows 0.40111" "$dir/out" &&
	grep -q "1 step, expects holding: 0 of 1$" "$dir/out"
held $? "a failed expect is one line FILE:LINE and status 1"

# A lesson that does not read: one line on stderr, status 2, nothing on stdout.
printf 'step One\nset Q[t1,d1] = three\n' >"$dir/bad.lesson"
"$bin" --check-lesson "$dir/bad.lesson" >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && [ ! -s "$dir/out" ] && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
	grep -q "^$dir/bad.lesson:2: expected a number" "$dir/err"
held $? "a bad lesson is refused with FILE:LINE and status 2"

# A lesson that does not replay (a token that is not there) is refused the same way.
printf 'step One\nselect A[t1,t7]\n' >"$dir/token.lesson"
"$bin" --lesson "$dir/token.lesson" >"$dir/out" 2>"$dir/err" </dev/null
status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q "^$dir/token.lesson:2: no token \"t7\"" "$dir/err"
held $? "--lesson refuses a lesson that does not replay, before any terminal"

# The heads' words: a bad head number is refused as it is read; a stage 6 or a head
# on a one-head problem when the lesson is replayed. Each is one line and status 2.
printf 'step One\nopen example\nhead two\n' >"$dir/head.lesson"
"$bin" --check-lesson "$dir/head.lesson" >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && [ ! -s "$dir/out" ] && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
	grep -q "^$dir/head.lesson:3: head needs a whole number from 1 to 64" "$dir/err"
ok $? "a bad head number is refused with FILE:LINE and status 2"
printf 'step One\nstage weights\n\nstage concat\n' >"$dir/concat.lesson"
"$bin" --check-lesson "$dir/concat.lesson" >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
	grep -q "^$dir/concat.lesson:4: stage 6 (concat) needs a multi-head problem" "$dir/err"
ok $? "stage concat on a one-head problem is refused with FILE:LINE and status 2"
printf 'step One\nopen %s/samples/heads-two.json\nhead 3\n' "$root" >"$dir/three.lesson"
"$bin" --check-lesson "$dir/three.lesson" >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
	grep -q "^$dir/three.lesson:3: no head 3: this problem has 2 heads" "$dir/err"
ok $? "a head the problem does not have is refused with FILE:LINE and status 2"

"$bin" --check-lesson lessons/masks.lesson samples/causal.json >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && grep -q "reads no FILE" "$dir/err"
held $? "a lesson takes no FILE"

"$bin" --check-lesson lessons/masks.lesson --mask causal >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && grep -q "^qkv: --mask does not apply to --check-lesson" "$dir/err"
held $? "problem options do not go with a lesson"

"$bin" --check-lesson /nonexistent/x.lesson >"$dir/out" 2>"$dir/err"
status=$?
[ "$status" -eq 2 ] && grep -q "^/nonexistent/x.lesson: cannot read the lesson" "$dir/err"
held $? "a missing lesson is one line and status 2"

finish
