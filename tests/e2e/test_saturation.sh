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
e2e_tmux kill-session -t ui >/dev/null 2>&1

# --- the charts: braille, as tall as the screen, scaled flat against unscaled -----------
# chart_rows NAME TITLE MARK: the plot rows (between TITLE and its x axis, in the
# columns from TITLE's) on which MARK appears, one row number a line. ● → O, × → X,
# └ → L and every other non-ASCII character → '.', so awk counts columns.
chart_rows() {
	screen "$1" | sed 's/●/O/g; s/×/X/g; s/└/L/g; s/[^ -~]/./g' | awk -v title="$2" -v mark="$3" '
		!col && index($0, title) { col = index($0, title); next }
		col && index(substr($0, col), "L") { exit }
		col { row++; if (index(substr($0, col), mark)) print row }'
}
for size in "80 24" "120 40"; do
	set -- $size
	start "sat$1" "$1" "$2" "$QKV" --random --tokens 8 --dk 4 --seed 3
	expect "sat$1" 'seed 3' "$1×$2: drawn"
	keys "sat$1" S
	expect "sat$1" 'mean max weight' "$1×$2, S: the charts are open"
	settle "sat$1"
	braille=$(screen "sat$1" | grep -cP '[\x{2801}-\x{28FF}]')
	check "$1×$2, S: the curves are braille dots ($braille lines with braille)" "$braille" -ge 8
	# Plot rows of the first chart: the lines from its title to its x axis (└).
	rows=$(screen "sat$1" | awk '/mean max weight/ { on = 1; next } on && /└/ { print n; exit } on { n++ }')
	want=$(( ($2 - 6) / 2 - 3 ))
	check "$1×$2, S: each chart has all the rows the screen allows ($rows plot rows, $want expected)" "${rows:-0}" -eq "$want"
	ticks=$(screen "sat$1" | grep -oE '^ +(1|0\.[0-9]+|0)┤' | tr -d ' ┤' | sort -u | tr '\n' ' ')
	check "$1×$2, S: the y axes have labelled ticks (0, 1 and between: $ticks)" "$(echo "$ticks" | wc -w)" -ge 3
	scaled=$(chart_rows "sat$1" 'variance softmax sees' O | sort -u | wc -l)
	unscaled=$(chart_rows "sat$1" 'variance softmax sees' X | sort -u | wc -l)
	check "$1×$2, S: scaled, the variance softmax sees is flat (its marks on $scaled rows, at most 2)" "$scaled" -le 2
	check "$1×$2, S: unscaled, it climbs (its marks on $unscaled rows, at least 3)" "$unscaled" -ge 3
done
stop ui
finish
