#!/usr/bin/env bash
# test_saturation.sh — the saturation lesson in the real interface: from 8 random tokens
# with d_k = 4, switch the scaling off and double d_k to 1024; softmax collapses to
# one-hot rows, the variance it sees grows to the hundreds, the gradient norm
# vanishes; s brings softness back. Checked as properties read off the screen (row
# maxima, the variance against its prediction), not as copied numbers.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The weights rows (8 of them, 8 numbers each) as printed in the heatmap.
weight_rows() {
	screen "$1" | awk '/weights  softmax rows/ { on = 1; next }
		on && /^ *t[1-8] / { n = 0; for (i = 2; i <= 9; i++) printf "%s ", $i; print ""; rows++ }
		rows == 8 { exit }'
}

# The largest weight of every row, one per line.
row_maxima() {
	weight_rows "$1" | awk '{ m = 0; for (i = 1; i <= NF; i++) if ($i + 0 > m) m = $i + 0; print m }'
}

start ui 100 30 NO_COLOR=1 "$QKV" --random --tokens 8 --dk 4 --seed 3
expect ui 'd_k 4 · d_v 4' "the random problem has d_k 4"
expect ui 'seed 3' "the seed is on screen"
keys ui s
expect ui '÷ 1\.000 \(scaling off\)' "s switches the scaling off; the divisor in force is shown"
for _ in 1 2 3 4 5 6 7 8; do
	keys ui '>'
done
expect ui 'd_k 1024' "> eight times doubles d_k from 4 to 1024"
settle ui
rows=$(row_maxima ui | wc -l)
check "all 8 weights rows are on screen" "$rows" -eq 8
# Unscaled scores have a standard deviation of √1024 = 32, so a row's top two
# scores are usually far apart: most rows put nearly all weight on one key.
hot=$(row_maxima ui | awk '$1 >= 0.9' | wc -l)
check "unscaled at d_k 1024: most rows are nearly one-hot (max ≥ 0.9): $hot of 8" "$hot" -ge 6
mean=$(row_maxima ui | awk '{ s += $1 } END { printf "%.2f", s / NR }')
check "unscaled at d_k 1024: the mean row maximum is above 0.85 ($mean)" \
	"$(awk -v m="$mean" 'BEGIN { print (m > 0.85) }')" = 1
variance=$(screen ui | sed -n "s/.*var(S') \([0-9.]*\) · if N(0,1): \([0-9.]*\).*/\1 \2/p" | head -n 1)
check "the readout's variance is in the hundreds ($variance), predicted 1024" \
	"$(awk -v v="${variance% *}" 'BEGIN { print (v > 300) }')" = 1
check "the predicted variance is d_k = 1024" "${variance#* }" = 1024
expect ui 'nearly one-hot' "the verdict says the row is nearly one-hot"
# ‖J‖ of row t1: from the readout beside the heatmap, or from the formula line when
# the readout did not fit (the cursor is on t1).
gradient=$(screen ui | awk '/max  H\/lnN/ { on = 1; next } on && /^ *t1 / { print $NF; exit }')
[ -n "$gradient" ] || gradient=$(screen ui | sed -n 's/.*‖J‖ of t1 \([0-9.]*\) .*/\1/p' | head -n 1)
check "the gradient norm of row t1 vanishes (${gradient:-none} < 0.05)" \
	"$(awk -v g="${gradient:-1}" 'BEGIN { print (g < 0.05) }')" = 1

keys ui s
expect ui '÷ √1024 = 32\.000' "s brings the scaling back: ÷ √1024"
settle ui
soft=$(row_maxima ui | awk '$1 < 0.9' | wc -l)
check "scaled again: most rows are soft (max < 0.9), $soft of 8" "$soft" -ge 6
variance=$(screen ui | sed -n "s/.*var(S') \([0-9.]*\) · if N(0,1).*/\1/p" | head -n 1)
check "scaled: the variance softmax sees is near 1 ($variance)" \
	"$(awk -v v="$variance" 'BEGIN { print (v > 0.3 && v < 3) }')" = 1
keys ui '<' '<' '<' '<' '<' '<' '<' '<'
expect ui 'd_k 4 · d_v 4' "< eight times halves d_k back to 4"

keys ui S
expect ui 'mean max weight' "S opens the saturation charts"
expect ui 'unscaled' "the charts name the unscaled curve"
expect ui '● scaled' "the scaled curve has its own mark"
keys ui S
expect_not ui 'mean max weight' "S closes them"
keys ui q y
expect_exit ui 0 "q y quits"
stop ui
finish
