#!/usr/bin/env bash
# test_heads.sh — a three-head sample in the real interface, at 120×40 and 80×24:
# every head's weights side by side, H to the next head, a click on another head's
# weights, the stage walk on to
# stage 7 with each head's share of the selected output cell, and an edit of W_O
# that moves the output and no head's weights. Expected weights are worked out
# here with awk from the sample's closed form. Works on a copy in its own folder.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d "${TMPDIR:-/tmp}/qkv-heads.XXXXXX")
trap 'rm -rf "$dir"; e2e_cleanup' EXIT
# A copy, so the edits (and any recovery copy) stay in the test's own folder.
cp "$QKV_SOURCE_ROOT/samples/heads-three-ways.json" "$dir/heads.json"
sample="$dir/heads.json"

# Positions a quarter turn apart: the (1,0), cat (0,1), sat (−1,0), down (0,−1).
# Head 1's query for sat is 5·(position of cat) = (0, 5); keys are the positions;
# the causal mask hides down. weights "q1 q2" COUNT: softmax of q·k_j / √2 over the
# first COUNT keys, two decimals.
weights() {
	awk -v q="$1" -v count="$2" 'BEGIN {
		split(q, x, " "); px[1] = 1; py[1] = 0; px[2] = 0; py[2] = 1; px[3] = -1; py[3] = 0
		px[4] = 0; py[4] = -1
		for (j = 1; j <= count; j++) {
			s[j] = (x[1] * px[j] + x[2] * py[j]) / sqrt(2)
			if (j == 1 || s[j] > m) m = s[j]
		}
		for (j = 1; j <= count; j++) { e[j] = exp(s[j] - m); z += e[j] }
		for (j = 1; j <= count; j++) out = out (j > 1 ? " " : "") sprintf("%.2f", e[j] / z)
		print out
	}'
}

start ui 120 40 "$QKV" "$sample"
expect ui 'h1 weights' "head 1's weights are shown"
expect ui 'h2 weights' "head 2's weights are shown beside them"
expect ui 'h3 weights' "and head 3's"
expect ui "$(cells sat "$(weights "0 5" 3)")" "head 1's row sat puts its weight on cat, the previous word"
expect ui 'concat' "the concatenation is shown"
expect ui 'output = Concat W_O' "the layer output is shown"
expect ui 'heads compared' "the heads' comparison readout is shown"
expect ui 'cost: n²·h = 48 scores a layer' "the cost line: 4²·3 = 48 scores"
expect ui 'the wrong way: averaged into one pattern' "the averaging wrong way is said in words"
expect ui '· h 3( |$)' "the title bar says there are 3 heads"

keys ui H
expect ui 'head 2 of 3: mean weight on the previous token' "H selects head 2 and says what it looks at"
expect ui 'h2 W_Q' "the inputs shown are head 2's"
keys ui H H
expect ui 'head 1 of 3' "H goes round to head 1"

# The class's path: stage 7, the output cell of sat, then an edit of W_O.
keys ui End
expect ui 'stage 7 of 7' "End goes to stage 7, the output projection"
keys ui Down Down
expect ui 'out\[sat, d1\] = Σ_k concat\[sat, k\] · W_O\[k, d1\] = head 1 0\.94[0-9]* \+ head 2 0\.0+ \+ head 3 0\.0+ = 0\.94' \
	"stage 7 writes out each head's share of out[sat, d1], adding up"
keys ui Tab Tab Tab
keys ui Down
keys ui -l 1
keys ui Enter
expect ui 'W_O\[h2d1, d1\]: 0 → 1 moves no head.s weights, 0 of 12 cells of concat and [0-9]+ of 16 of the layer output' \
	"editing W_O moves the output and no head's weights"
keys ui Down
keys ui Tab
expect ui 'head 1 0\.94[0-9]* \+ head 2 0\.02[0-9]* \+ head 3 0\.0+ = 0\.97' \
	"out[sat, d1] now adds head 2's share"

keys ui Home
expect ui 'all stages live' "Home goes back to live"
# A click on another head's small multiple selects that head, as H does, with the
# cursor on the clicked cell. Row sat reads 0.94 (head 1, on cat), then 0.97 twice
# (head 2 on itself, head 3 on the first word).
title=$(screen ui | grep -n 'h3 weights' | head -n 1 | cut -d: -f1)
sat=$((title + 4))
col=$(column_of ui "$sat" "0.97" 2)
check "head 3's A[sat, the] found on screen (line $sat, column $col)" "$col" -gt 60
mouse ui 0 "$((col + 1))" "$sat"
expect ui 'head 3 of 3: mean weight on the previous token' "a click on head 3's weights selects head 3"
expect ui 'h3 W_Q' "the inputs shown are head 3's"
expect ui 'h3 weights  softmax rows' "head 3's weights are now the selected grid"
col=$(column_of ui "$sat" "0.94" 1)
mouse ui 0 "$((col + 1))" "$sat"
expect ui 'head 1 of 3' "a click on head 1's weights, now a small multiple, selects head 1"
expect ui 'h1 weights  softmax rows' "head 1's weights are the selected grid again"

resize ui 80 24
expect ui 'h1 (3 )?weights' "at 80×24 the heads' weights still show"
expect ui 'output = Concat W_O' "and the output"
expect_not ui 'needs a terminal' "80×24 is large enough"
keys ui Home
expect ui 'all stages live' "Home goes back to live"
keys ui q y
expect_exit ui 0 "q, then y to leave the edits unsaved, ends the program"
stop ui
finish
