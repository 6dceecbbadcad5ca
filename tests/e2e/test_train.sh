#!/usr/bin/env bash
# test_train.sh — the learning view in the real interface: `qkv --train lookup`
# opens on it, space runs it, and within a few seconds the scaled head reaches 90%
# accuracy (its loss falls); at d_k = 256 the unscaled run beside it stays low and
# the sentence above says how much less gradient its softmax passes. Read off the
# screen as a person sees it.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The number after "loss " in the scaled (left) column.
left_loss() {
	screen "$1" | sed -n 's/^ loss \([0-9.e+-]*\) · accuracy.*/\1/p' | head -n 1
}

start ui 100 30 "$QKV" --train lookup
expect ui '❚❚ paused · training lookup' "qkv --train lookup opens on the learning view, paused"
expect ui '÷ √16 = 4 · step 0 ' "the scaled run is at step 0"
expect ui '÷ 1, no scaling · step 0' "the unscaled run beside it too"
start_loss=$(left_loss ui)
keys ui Space
expect ui '▶ running' "space runs the training"
if wait_for ui '÷√16: 90% at step [0-9]+' "$(slow 4)"; then
	pass "the scaled head reaches 90% accuracy within $(slow 4) seconds"
else
	fail "the scaled head reaches 90% accuracy within $(slow 4) seconds"
	e2e_dump ui
fi
keys ui Space
expect ui '❚❚ paused' "space pauses"
settle ui
end_loss=$(left_loss ui)
check "the loss fell while it learned ($start_loss → $end_loss)" \
	"$(awk -v a="$start_loss" -v b="$end_loss" 'BEGIN { print (b < a / 2) }')" = 1
step=$(screen ui | sed -n 's/^ ÷ √16 = 4 · step \([0-9]*\).*/\1/p')
keys ui .
expect ui "÷ √16 = 4 · step $((step + 1)) " ". makes one step"
expect ui 'scaled run: ∂L/∂W_Q\[m1,d1\] = Σ_i X\[i,m1\] ∂L/∂Q\[i,d1\]' "the gradient's derivation is shown"
keys ui Tab
expect ui '∂L/∂W_K\[m1,d1\]' "Tab turns to W_K's gradient"
keys ui L
expect ui 'weights  softmax rows' "L returns to the stages"
keys ui q
expect_exit ui 0 "q quits with status 0"

# d_k = 256: one learns, the other crawls.
start big 100 30 "$QKV" --train lookup --dk 256
expect big '÷ √256 = 16 · step 0 ' "d_k 256: both runs at step 0"
expect big '^ qkv · the lookup task .*d_k 256 ' "the title bar says d_k 256"
keys big '>'
expect big '÷ √512 = 22.6 · step 0 ' "> doubles d_k"
expect big '^ qkv · the lookup task .*d_k 512 · d_v 8 · ÷ √512 and ÷ 1 ' "the title bar follows > to d_k 512"
keys big '<'
expect big '^ qkv · the lookup task .*d_k 256 · d_v 8 · ÷ √256 and ÷ 1 ' "the title bar follows < back to d_k 256"
keys big Space
if wait_for big '÷√256: 90% at step [0-9]+' "$(slow 5)"; then
	pass "d_k 256: the scaled head reaches 90%"
else
	fail "d_k 256: the scaled head reaches 90%"
fi
keys big Space
settle big
expect big '÷1: 12% after [0-9]+ steps' "d_k 256: the unscaled head is stuck at 1 of 8 rows"
expect big 'mean ‖J‖ at step [0-9]+: ' "the comparison names the step it is at"
expect big 'passes [0-9.e+]+× less gradient' "the sentence says how much less gradient flows"
# At step 0 the unscaled softmax is not yet saturated: a few times less, not thousands.
read -r start_s start_u start_r < <(screen big | tr '\n' ' ' | sed -n \
	's/.*at step 0: \([0-9.e+-]*\) *against *\([0-9.e+-]*\) *(÷1 *\([0-9.]*\)× less).*/\1 \2 \3/p')
check "at step 0 the unscaled ‖J‖ is within 10× of the scaled one (${start_s:-none} against ${start_u:-none}, ${start_r:-none}×)" \
	"$(awk -v s="${start_s:-0}" -v u="${start_u:-0}" -v r="${start_r:-0}" \
		'BEGIN { print (u > 0 && s > u && s < 10 * u && (r - s / u) ^ 2 < 0.06 ^ 2) }')" = 1
expect big '10× apart at step [1-9]([^0-9]|$)' "the sentence says when the runs came 10× apart"
# Both runs' mean ‖J‖ from their columns: the unscaled one is 100 times smaller.
read -r scaled_j unscaled_j < <(screen big | sed -n \
	's/^ mean softmax Jacobian ‖J‖ \([0-9.e+-]*\) *mean softmax Jacobian ‖J‖ \([0-9.e+-]*\)$/\1 \2/p')
check "the unscaled softmax Jacobian is 100× smaller (${scaled_j:-none} against ${unscaled_j:-none})" \
	"$(awk -v s="${scaled_j:-0}" -v u="${unscaled_j:-1}" 'BEGIN { print (u * 100 < s) }')" = 1
keys big E
expect big 'steps to 90%, mse \+ sgd' "E shows the experiment"
if wait_for big 'seeds 1…5, at most 500 steps: done' "$(slow 20)"; then
	pass "the experiment finishes between keys"
else
	fail "the experiment finishes between keys"
	e2e_dump big
fi
expect big '^ +256 +[0-9]+ +>500 +≥ [0-9]+× +5/5, 0/5' "at d_k 256 no unscaled run reaches 90% in 500 steps"
expect big 'mse \+ sgd at d_k = 256: the unscaled head needs ≥ [0-9]+×' "the verdict comes from the table"
keys big E
expect big '÷ √256 = 16 · step' "E returns to the runs"
keys big q
expect_exit big 0 "q quits"

# 80×24 without colour: the view fits and says how to leave.
start small 80 24 NO_COLOR=1 "$QKV" --train self
expect small 'L close' "80×24: the keys line is whole"
expect small '÷√16: 0% after 0 steps|÷√16: [0-9]+% after 0 steps|÷√16: 90% at step 0' "80×24: the sentence is there"
keys small q
expect_exit small 0 "q quits"

# xent with the read-out W_V: the loss has a floor, log(1 + 7/e) = 1.2740 for 8
# tokens (computed here by awk, not read from qkv), and the view says why.
floor=$(awk 'BEGIN { printf "%.4g", log(1 + 7 / exp(1)) }')
start xent 80 24 "$QKV" --train lookup --loss xent --optimizer adam
expect xent "loss [0-9.]+ ≥ $floor · accuracy" "xent: each run's loss line shows the floor $floor"
settle xent
check "xent: the sentence says why the loss cannot reach 0" "$(screen xent | tr '\n' ' ' | tr -s ' ' \
	| grep -cF "xent stays above log(1 + 7/e) = $floor: outputs average one-hot values, in [0, 1]")" = 1
keys xent q
expect_exit xent 0 "q quits"

# L over the worked example: the title names the task the view trains, not the
# problem under it, beside the runs' numbers.
start over 100 30 "$QKV"
expect over '^ qkv · Three tokens, by hand' "the editor's title names its problem"
keys over L
expect over '^ qkv · the lookup task .*n 8 · d_model 40' "the learning view's title names its task, with its numbers"
expect_not over 'Three tokens, by hand' "and not the problem under it"
keys over q
expect_exit over 0 "q quits"
finish
