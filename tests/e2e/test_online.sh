#!/usr/bin/env bash
# test_online.sh — the online softmax walk (F) as the class sees it: the worked
# example's query t1 read one key at a time at 83×22 (a 28 pt projector), every
# number against the closed form (s' = (1, 0, 1)/√2, so m = 1/√2 from the first
# tile on, ℓ = 1, 1 + e^(−1/√2), 2 + e^(−1/√2), and o / ℓ the weights' average of
# V), and the whole walk at 60×18 and without colour, nothing cut.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The closed form, computed here.
closed() {
	awk -v what="$1" 'BEGIN {
		a = 1 / sqrt(2); e = exp(-a)
		if (what == "m") printf "%.4f", a
		if (what == "l2") printf "%.4f", 1 + e
		if (what == "l3") printf "%.4f", 2 + e
		if (what == "o2") printf "(%.4f, %.4f)", 10, 10 * e
		if (what == "out") printf "(%.4f, %.4f)", 15 / (2 + e), (5 + 10 * e) / (2 + e)
	}'
}
# says NAME TEXT MESSAGE: passes as soon as TEXT stands in the screen read as one
# paragraph (its lines joined by a space: the walk breaks its sentences at spaces).
says() {
	local name=$1 text=$2 message=$3 polls i
	polls=$(e2e_polls "$E2E_TIMEOUT")
	for ((i = 0; i < polls; i++)); do
		if screen "$name" | sed 's/^ *//; s/ *$//' | tr '\n' ' ' | grep -qF -- "$text"; then
			pass "$message"
			return
		fi
		e2e_sleep 0.05
	done
	fail "$message"
	diag "$(screen "$name")"
}

m=$(closed m)
l2=$(closed l2)
l3=$(closed l3)
o2=$(closed o2)
out=$(closed out)

start walk 83 22 "$QKV"
expect walk 'weights  softmax rows' "the worked example is drawn"
keys walk F
expect walk 'online softmax · query "t1" · tiles of 1 key · step 0 of 4' "F opens the walk before its first tile"
expect walk 'Nothing is read yet: m = −∞, ℓ = 0 and o = 0' "step 0 says nothing is read"
keys walk Right
says walk "m: −∞ → $m, the first score seen, so there is nothing to rescale" "tile 1: m becomes 1/√2 = $m, nothing to rescale"
keys walk Right
says walk "m stays $m (no score above it), so nothing is rescaled." "tile 2: s' = 0 leaves m"
says walk "ℓ: 1.0000 → $l2." "tile 2: ℓ = 1 + e^(−1/√2) = $l2"
says walk "o: (10.0000, 0.0000) → $o2." "tile 2: o = (10, 0) + e^(−1/√2)·(0, 10) = $o2"
expect walk "^ 2 +t2 +0\\.0000 +$m +1\\.0000 +$l2 *$" "the table's row of tile 2: key, score, m, rescale, ℓ"
keys walk End
expect walk "step 4 of 4" "End goes to the comparison"
says walk "≈ $out. The standard row, softmax(S')·V, reads $out. They agree at the 4 decimals shown" \
	"o / ℓ is the weights' average of V, $out, and the standard row agrees at the digits shown"
expect walk "^ 3 +t3 +$m +$m +1\\.0000 +$l3 *$" "the table's row of tile 3: ℓ = 2 + e^(−1/√2) = $l3"
keys walk F
expect_not walk 'online softmax' "F closes the walk"
keys walk q
expect_exit walk 0 "q quits at once: nothing was changed"

# 60×18 without colour, 64 random tokens one key a tile: the latest tiles under a
# marker for those above, and every sentence whole.
start small 60 18 NO_COLOR=1 "$QKV" --random --tokens 64 --dk 8 --seed 3
expect small 'n 64' "the random problem is drawn at 60×18"
keys small F - - -
expect small 'tile 1 · step 0/65' "the short title at 60 columns, tiles of one key"
for i in $(seq 1 12); do keys small Right; done
expect small 'step 12/65' "twelve steps"
expect small '↑ [0-9]+ earlier tiles above' "a marker for the tiles scrolled out of sight"
expect small '^ 12 +t12 ' "the present tile is the table's last row"
expect small 'more\)\.$' "the sentence of the step ends whole (o's last values named, not cut)"
keys small End
expect small 'Every key is read' "End: the comparison at 60×18"
expect small 'order\.$|bit for bit\.$' "the comparison's last sentence ends whole"
keys small q
expect_exit small 0 "q quits at once: nothing was changed"
finish
