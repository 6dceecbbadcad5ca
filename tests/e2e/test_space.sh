#!/usr/bin/env bash
# test_space.sh — the picture uses the screen: on a big terminal the worked
# example's grids grow (wider cells, and rows several lines tall whose colour
# fills the block) until they cover most of it; projector mode keeps two decimals
# and fits 83×22 (a 28 pt font on a 1920×1080 projector).
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# share NAME COLS ROWS: "W H", the per cent of the width and of the height that the
# grids' box (block_box) covers.
share() {
	block_box "$1" | awk -v w="$2" -v h="$3" '{ printf "%d %d\n", 100 * ($4 - $3 + 1) / w, 100 * ($2 - $1 + 1) / h }'
}

# covers NAME COLS ROWS MIN_W MIN_H [WHAT]: checks the share against the minimums.
covers() {
	local got width height what=${6:-$2×$3}
	got=$(share "$1" "$2" "$3")
	width=${got% *}
	height=${got#* }
	check "$what: the grids cover ${width:-0}% of the width (at least $4%)" "${width:-0}" -ge "$4"
	check "$what: the grids cover ${height:-0}% of the height (at least $5%)" "${height:-0}" -ge "$5"
}

# --- 200×60: most of the screen -----------------------------------------------------
start big 200 60 "$QKV"
expect big "$(cells t1 '0.40 0.20 0.40')" "200×60: weights row t1 reads 0.40 0.20 0.40"
settle big
covers big 200 60 80 60
# A row several lines tall: the line above row t1's numbers in the weights grid
# is part of the cells (their background colour), not blank.
above=$(screen big | awk '/weights  softmax rows/ { at = 1 } at && /^ *t1 +[0-9]/ { print NR - 2; exit }')
line=$(screen_color big | sed -n "$((above + 1))p")
if [[ $line == *'48;5;'* || $line == *'48;2;'* || $line == *'[7m'* || $line == *';7m'* ]]; then
	pass "200×60: the weights' colour fills the line above the numbers (tall cells)"
else
	fail "200×60: the weights' colour fills the line above the numbers (tall cells)"
	diag "line $above: $line"
fi
# The numbers of a column still line up on their decimal points.
cols=$(screen big | awk '/weights  softmax rows/ { at = 1 } at && /^ *t[123] +[0-9]/ { print index($0, "0.") } ' | sort -u)
check "200×60: the weights of column t1 line up (at columns: $(echo $cols))" "$(echo "$cols" | wc -w)" -eq 1
stop big

# --- 120×40 -------------------------------------------------------------------------
start mid 120 40 "$QKV"
expect mid "$(cells t3 '0.25 0.25 0.50')" "120×40: weights row t3 reads 0.25 0.25 0.50"
settle mid
covers mid 120 40 75 55
stop mid

# --- 80×24 stays compact: one line a row --------------------------------------------
start small 80 24 "$QKV"
expect small "$(cells t1 '0.40 0.20 0.40')" "80×24: weights row t1 reads 0.40 0.20 0.40"
settle small
rows=$(screen small | grep -cE '^ *t[123] +[0-9]')
check "80×24: every grid row on one line (6 rows of numbers, got $rows)" "$rows" -eq 6
stop small

# --- projector mode at 83×22: two decimals, nothing hidden --------------------------
start proj 83 22 "$QKV" --projector
expect proj "$(cells t1 '0.40 0.20 0.40')" "projector 83×22: weights row t1 reads 0.40 0.20 0.40"
expect proj "$(cells t3 '0.25 0.25 0.50')" "projector 83×22: weights row t3 reads 0.25 0.25 0.50 (sum 1.00)"
expect proj "$(cells t3 '5.00 5.00')" "projector 83×22: the output shows too"
expect_not proj 'needs a terminal|…  [0-9]+×[0-9]+' "projector 83×22: not too small, no grid cut"
stop proj

# --- projector mode full screen: still two decimals --------------------------------
start projbig 200 60 "$QKV" --projector
expect projbig "$(cells t2 '0.20 0.40 0.40')" "projector 200×60: weights row t2 reads 0.20 0.40 0.40"
settle projbig
covers projbig 200 60 80 60 "projector 200×60"
stop projbig

finish
