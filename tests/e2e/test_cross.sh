#!/usr/bin/env bash
# test_cross.sh — cross-attention as a person sees it: the lesson "A decoder reads
# an encoder" paged through on a projector's 83×22 and on 120×40 (the heatmap 3 × 4
# with the decoder's words down and the encoder's across, the output's 3 rows, the
# padded key, every step's title; no line cut short with "…"), every step on the
# smallest screen, 60×18, with no word cut, then the sample
# edited by hand: o and x on Q add and remove a query, on K a token, m passing the
# causal mask over while the lengths differ.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$QKV_SOURCE_ROOT" || exit 1
LESSON=lessons/cross-attention.lesson

for size in "83 22" "120 40"; do
	name=s${size% *}
	# shellcheck disable=SC2086 # the size is two words on purpose
	start "$name" $size "$QKV" --lesson "$LESSON"
	expect "$name" 'Step 1 of 6: Two sentences, not one' "$size: step 1's title"
	expect "$name" ' m 3 .*n 4 ' "$size: the title bar counts 3 queries and 4 tokens"
	expect "$name" "$(cells cat '0.00 1.00 4.00 0.00')" "$size: S's row cat holds its 4 scores, one per key"
	expect "$name" 'le +petit +chat +dort' "$size: the keys across, the encoder's words"
	expect "$name" 'S\[cat,chat\] = q_cat · k_chat = .* = 4' "$size: the derivation names the query and the key"
	keys "$name" NPage
	expect "$name" 'Step 2 of 6: Scaled as always' "$size: step 2"
	expect "$name" "$(cells cat '0.00 0.50 2.00 0.00')" "$size: S' is S / 2"
	keys "$name" NPage
	expect "$name" 'Step 3 of 6: Softmax along each decoder word.s row' "$size: step 3"
	expect "$name" "$(cells the '0.71 0.10 0.10 0.10')" "$size: the's weights, a row over 4 keys"
	expect "$name" "$(cells cat '0.09 0.15 0.67 0.09')" "$size: cat's weights"
	expect "$name" "$(cells sleeps '0.10 0.10 0.10 0.71')" "$size: sleeps' weights, the third and last row"
	expect "$name" '"cat": most on "chat"' "$size: the verdict names a query and a key"
	expect_not "$name" '…$' "$size: no line cut short at step 3"
	keys "$name" NPage
	expect "$name" 'Step 4 of 6: The output has the decoder.s length' "$size: step 4"
	expect "$name" "$(cells cat '0.91 1.49 6.69 0.91')" "$size: the output's row cat"
	expect "$name" "$(cells sleeps '0.96 0.96 0.96 7.11')" "$size: the output has the decoder's 3 rows"
	keys "$name" NPage
	expect "$name" 'Step 5 of 6: No causal mask across the two sentences' "$size: step 5"
	expect "$name" "$(cells sleeps '0.33 0.33 0.33 —')" "$size: dort padded: sleeps spreads 1/3 on the rest"
	expect "$name" '"sleeps": uniform, 0.33 on' "$size: and the verdict says so"
	expect_not "$name" '…$' "$size: no line cut short at step 5"
	keys "$name" NPage
	expect "$name" 'Step 6 of 6: What stays the same' "$size: step 6"
	keys "$name" q
	expect_exit "$name" 0 "$size: q ends the lesson"
done

# The smallest screen qkv draws on: every step there, no word cut.
start small 60 18 "$QKV" --lesson "$LESSON"
for step in 1 2 3 4 5 6; do
	expect small "Step $step of 6" "60×18: step $step shows"
	settle small
	cut=$(screen small | grep -E '[^ ]…' | head -n 1)
	check "60×18: no word cut at step $step${cut:+ ($cut)}" -z "$cut"
	# Notes longer than the screen turn a page first.
	if screen small | grep -q 'notes 1 of 2'; then
		keys small NPage
		expect small "Step $step of 6.*notes 2 of 2" "60×18: step $step's notes turn a page"
	fi
	# Live, the readout's figures move to the formula line: they name the query.
	if [ "$step" = 6 ]; then
		expect small '‖J‖ of "sleeps"' "60×18: the gradient's figure names the query, not a token"
	fi
	keys small NPage
done
keys small q
expect_exit small 0 "60×18: q ends the lesson"

# By hand: the two sequences edited apart.
start edit 120 40 "$QKV" samples/cross-attention.json
expect edit '▶ Q  queries' "Q has the cursor first"
keys edit Down o
expect edit 'query q4 added after cat; the cursor is on it' "o on Q adds a query after the cursor's"
expect edit ' m 4 .*n 4 ' "m is 4, n still 4"
expect edit "$(cells q4 '0.00 0.00 0.00 0.00')" "its row of Q is zeros, labelled q4"
keys edit x
expect edit 'query q4 removed' "x on Q removes it"
keys edit Tab
expect edit '▶ K  keys' "Tab: K"
keys edit o
expect edit 'token t5 added after le' "o on K adds a token"
expect edit ' m 3 .*n 5 ' "n is 5, m still 3"
expect edit 'le +t5 +petit +chat +dort' "a new column of the heatmap"
keys edit m
expect edit 'causal is passed over: 3 queries and 5 keys' "m passes the causal mask over while m ≠ n"
keys edit q
expect edit 'Quit anyway\?' "q asks before dropping the edits"
keys edit y
expect_exit edit 0 "y quits with status 0"
finish
