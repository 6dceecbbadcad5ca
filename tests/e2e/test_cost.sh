#!/usr/bin/env bash
# test_cost.sh — the cost view (C) in the real interface: the table fills in row by
# row while the standard and the online algorithm are measured for n = 16 … 4096
# (the interface stays live, a progress line says which and where), every row's
# scores are n² and its bytes held those of each algorithm; then the fitted slopes
# and the extrapolation in words, a range of times; Esc cancels a measurement under
# way. Checked as properties of the numbers on screen. At 60×18 every line of the
# view is whole.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The table's rows as "n scores" pairs, commas dropped.
table_rows() {
	screen "$1" | awk '/ scores +flops +std bytes/ { on = 1; next }
		on && /^ +[0-9]+ +[0-9,]+ / { gsub(",", "", $2); print $1, $2; next }
		on { exit }'
}

start ui 80 24 NO_COLOR=1 "$QKV" --random --tokens 8 --dk 16 --seed 1
expect ui 'd_k 16' "the random problem has d_k 16"
keys ui C
expect ui "the price of n² · one head, d_k = d_v = 16" "C opens the cost view for the problem's d_k"
expect ui 'measuring the (online|standard) algorithm at n = [0-9]+|taking .* for the (online|standard) algorithm at n = ' \
	"a progress line says which algorithm is being measured, and where"
expect ui 'Esc cancels' "and that Esc cancels"
# A slice per tick: seconds in a release build, more under the sanitizers.
wait_for ui 'measured n = 16 … 4096' 90 || diag "the measurement did not end within 90 s"
expect ui 'measured n = 16 … 4096' "the measurement ends at n = 4096"
settle ui
rows=$(table_rows ui | wc -l)
check "nine rows, n = 16 … 4096 ($rows)" "$rows" -eq 9
bad=$(table_rows ui | awk '$2 != $1 * $1' | wc -l)
check "every row's scores are n²" "$bad" -eq 0
doubling=$(table_rows ui | awk 'NR > 1 && $1 != 2 * last { bad++ } { last = $1 } END { print bad + 0 }')
check "n doubles from row to row" "$doubling" -eq 0
# n = 4096, d = 16: 69 · 4096² flops; the standard holds 8 · (5 · 4096 · 16 + 3 · 4096²) =
# 405,274,624 bytes, the online 8 · 4 · 4096 · 16 + 8 · (4 · 64 · 16 + 64² + 2 · 64) = 2,163,712.
expect ui '^ +4096 +16,777,216 +1,157,627,904 +405 MB +2.16 MB ' "n = 4096: 405 MB held by the standard, 2.16 MB by the online"
slope=$(screen ui | sed -n 's/.*n >= 256): time n^\([0-9.]*\) standard.*/\1/p' | head -n 1)
check "a fitted slope is shown, between 1.5 and 3 (${slope:-none})" \
	"$(awk -v s="${slope:-0}" 'BEGIN { print (s >= 1.5 && s <= 3) }')" = 1
joined=$(screen ui | sed 's/^ *//' | tr '\n' ' ')
case $joined in
*"10,000 tokens: 100 million scores, per head per layer; the standard algorithm would hold 2.41 GB"*)
	pass "the extrapolation to 10,000 tokens in words" ;;
*) fail "the extrapolation to 10,000 tokens in words" ;;
esac
check "with a range of this machine's time for each algorithm" \
	"$(printf '%s' "$joined" | grep -Eo 'take ([0-9.]+ to [0-9.]+|about [0-9.]+) (ms|s|min|h) here' | wc -l)" -eq 2
keys ui Escape
expect_not ui 'the price of n²' "Esc closes the view"

keys ui C
expect ui 'Esc cancels' "C measures again"
keys ui Escape
expect ui 'cost measurement cancelled at n = [0-9]+' "Esc during the measurement cancels it"
expect_not ui 'the price of n²' "and the view is gone"
keys ui q
expect_exit ui 0 "q quits (nothing was changed)"
stop ui

# At 60×18 nothing runs past the right edge: a line that did would go on at the
# start of the next one, so every line from the heading down starts in the view's
# margin (column 0 blank); the heading, the formulas, the table's header, its rows
# and the slope's sentence are each whole, while measuring and after.
off_margin() {
	screen "$1" | awk '/the price of n²/ { on = 1 } on && /^[^ ]/' | wc -l
}
start narrow 60 18 NO_COLOR=1 "$QKV"
keys narrow C
expect narrow 'Esc cancels' "60×18: C measures"
check "60×18 while measuring: no line starts past the margin ($(off_margin narrow))" "$(off_margin narrow)" -eq 0
wait_for narrow 'measured n = 16 … 4096' 90 || diag "the measurement did not end within 90 s"
settle narrow
expect narrow '^  the price of n² · one head, d_k = d_v = 2( · measured on this machine)? *$' \
	"60×18: the heading is whole"
expect narrow "^ bytes: the standard holds S, S', A; the online, tiles *$" "the bytes' words are whole"
expect narrow 'flops: 2n²d_k \+ 2n²d_v \+ 5n² *$' "and the flops'"
expect narrow '^ +n +std bytes +online bytes +std time +online time *$' "the table's header is whole (the scores and flops columns dropped)"
# n = 4096, d = 2: the standard holds 8 · (5 · 4096 · 2 + 3 · 4096²) = 402,980,864 bytes, the
# online 8 · 4 · 4096 · 2 + 8 · (4 · 64 · 2 + 64² + 2 · 64) = 300,032.
expect narrow '^ +4096 +403 MB +300 kB +[0-9.]+ ms +[0-9.]+ ms *$' "the row n = 4096 is whole"
expect narrow '^ slopes on log–log axes' "the slopes' sentence begins"
expect narrow ' online *$' "and ends on screen"
check "60×18 after: no line starts past the margin ($(off_margin narrow))" "$(off_margin narrow)" -eq 0
keys narrow Escape q
expect_exit narrow 0 "Esc, q quits"
stop narrow

# A multi-head problem is priced as its heads: 3 heads of d_k = 2, each row's
# scores 3·n².
start heads 100 30 NO_COLOR=1 "$QKV" "$QKV_SOURCE_ROOT/samples/heads-three-ways.json"
keys heads C
expect heads "the price of n² · 3 heads, each timed with d_k = d_v = 2" "C on a 3-head problem prices its 3 heads"
wait_for heads '^ +32 +3,072 ' 60 || diag "the row n = 32 did not come within 60 s"
expect heads '^ +32 +3,072 ' "n = 32: 3 · 32² = 3,072 scores"
keys heads Escape q
stop heads

# On a large screen the log–log charts of time and memory stand beside the table.
start big 160 40 "$QKV" --random --tokens 8 --dk 8 --seed 2
keys big C
expect big 'time \(ms\), log–log: ● standard × online ○ extrapolated|ms: ● standard × online' "the time chart is drawn beside the table"
wait_for big 'measured n = 16 … 4096' 90 || diag "the measurement did not end within 90 s"
expect big "bytes held, log–log: ● standard × online|bytes: ● standard × online" "and the memory chart"
expect big '10 +100 +1000 +10000 +1e\+05' "n runs on a log axis from 10 to 100,000 (the extrapolation)"
expect big '○' "the extrapolated points are marked"
keys big Escape q
expect_exit big 0 "Esc, q quits"
stop big
finish
