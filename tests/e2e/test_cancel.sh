#!/usr/bin/env bash
# test_cancel.sh — long work beside the interface is cancelled with Esc: a lesson
# step whose replay draws 1024 tokens at d_k 2048 shows its progress on the lesson
# bar, Esc cancels it within half a second (measured from sending Esc to the screen
# saying so) and the step shown stays; left alone, the step arrives. The check
# before the lesson starts says what it does, and Ctrl-C ends it.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

RUN=$E2E_DIR/run
mkdir -m 700 "$RUN"
BIG=$E2E_DIR/big.lesson
cat >"$BIG" <<'LESSON'
lesson Large steps
step Small
note the worked example
open example
step Large
note a large random problem
random tokens 1024 dk 2048 seed 1
step After
note the weights of the large one
stage 3
LESSON

# Before the interface starts, every step is replayed once: a line says so while
# it takes long, and Ctrl-C (the terminal still as the shell left it) ends qkv.
start early 300 30 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson "$BIG"
expect early 'qkv: checking .*big\.lesson: each of its 3 steps is replayed once before the lesson starts \(Ctrl-C stops\)' \
	"the check before the lesson says what it does"
keys early C-c
ended=0
for ((i = 0; i < $(e2e_polls 2); i++)); do
	if [ "$(e2e_tmux display-message -p -t early '#{pane_dead}' 2>/dev/null)" = 1 ]; then
		ended=1
		break
	fi
	e2e_sleep 0.05
done
check "Ctrl-C during the check ends qkv within 2 s" "$ended" -eq 1
expect_not early 'Step 1 of 3' "the lesson never started"
stop early

start main 100 30 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson "$BIG"
if ! wait_for main 'Step 1 of 3: Small' "$(slow 60)"; then
	fail "the lesson starts (every step is replayed once first)"
	e2e_dump main
fi
keys main NPage
expect main 'building step 2: action 2 of 2… [0-9.]+ s · Esc cancels' "PageDown to the large step: its progress on the lesson bar"
keys main x
expect main 'still building step 2: action 2 of 2, keys wait' "another key waits, and the bar says so"
cancel_within main 'cancelled: step 2 was not built; this is still step 1' 0.5 "the large step's replay"
expect main 'Step 1 of 3: Small' "after Esc the step shown is still step 1"
expect main 'n 3 · d_k 2' "with its problem"
keys main End
expect main 'building step 3: action 2 of 3' "End: the last step is built beside the interface"
cancel_within main 'cancelled: step 3 was not built; this is still step 1' 0.5 "End's replay"
keys main +
expect main '1 → 1\.1' "the keys work at once after the cancel"
keys main NPage
if wait_for main 'Step 2 of 3: Large' "$(slow 60)"; then
	pass "left alone, the large step arrives"
else
	fail "left alone, the large step arrives"
	e2e_dump main
fi
expect main 'n 1024 · d_k 2048' "with its problem"
keys main q
expect_exit main 0 "q ends the lesson"
finish
