#!/usr/bin/env bash
# test_modes.sh — the interface's modes and overlays at 80×24 on the built-in
# example: projector mode, scaling off, temperature, the causal mask, the help
# overlay, the rows described in words, the saturation view, the wrong-way
# demonstrations and random values. Expected numbers come from the closed form
# (awk) or from properties (rows of weights sum to 1, unscaled softmax saturates). Mouse input is not tested:
# tmux cannot click into a pane reliably. It must never write a file.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

G='[·░▒▓█]?'



# skip MESSAGE REASON: a TAP check that was not run, and why.
skip() {
	E2E_COUNT=$((E2E_COUNT + 1))
	printf 'ok %d - %s # SKIP %s\n' "$E2E_COUNT" "$1" "$2"
}

# weights "q1 q2" DIVISOR DECIMALS LIVE [COLUMNS]: softmax of q·k_j / DIVISOR over the
# worked example's first LIVE keys (the rest masked: "0"); COLUMNS=1 softmaxes key
# j's column instead (query i against every key j, normalised over the queries).
weights() {
	awk -v q="$1" -v div="$2" -v dec="$3" -v live="$4" -v columns="${5:-0}" 'BEGIN {
		split("1 0;0 1;1 1", rows, ";")
		split(q, x, " ")
		for (j = 1; j <= 3; j++) {
			split(rows[j], k, " ")
			s[j] = (x[1] * k[1] + x[2] * k[2]) / div
		}
		fmt = "%." dec "f"
		for (j = 1; j <= 3; j++) {
			if (columns) {
				# Column j: exp(s_ij) over every query i (Q = K here, so q_i = k_i).
				split(rows[j], k, " "); z = 0
				for (i = 1; i <= 3; i++) {
					split(rows[i], qi, " ")
					z += exp((qi[1] * k[1] + qi[2] * k[2]) / div)
				}
				out = out (j > 1 ? " " : "") sprintf(fmt, exp(s[j]) / z)
				continue
			}
			if (j > live) {
				out = out " 0"
				continue
			}
			z = 0
			for (i = 1; i <= live; i++)
				z += exp(s[i])
			out = out (j > 1 ? " " : "") sprintf(fmt, exp(s[j]) / z)
		}
		print out
	}'
}

# number EXPR [FORMAT]: an awk expression, printed with FORMAT (default %.17g).
number() {
	awk "BEGIN { printf \"${2:-%.17g}\", $1 }"
}

# weight_rows NAME: the numbers of the weights grid's rows, one row per line.
weight_rows() {
	screen "$1" | awk '/weights  softmax rows/ { at = NR + 2 }
		at && NR >= at && NR < at + 3 {
			line = $1; for (f = 2; f <= 4; f++) { v = $f; gsub(/[^0-9.]/, "", v); line = line " " v }
			print line
		}'
}

R2=$(number 'sqrt(2)')
start ui 80 24 "$QKV"
expect ui "$(cells t1 "$(weights "1 0" "$R2" 2 3)")" "the worked example: weights row t1 reads 0.40 0.20 0.40"

# --- P: projector mode, weights still with two decimals -----------------------------
# (with one, row t3 would read 0.2 0.2 0.5, which does not add up to 1)
keys ui P
expect ui 'projector mode on' "P says projector mode on"
w=$(weights "1 0" "$R2" 2 3)
expect ui "$(cells t1 "$w")" "projector mode: weights row t1 reads $w (2 decimals)"
expect ui "$(cells t3 "$(weights "1 1" "$R2" 2 3)")" "projector mode: weights row t3 reads two decimals too"
expect_not ui "$(cells t3 "$(weights "1 1" "$R2" 1 3)")" "projector mode: no 1-decimal weights row"
keys ui P
expect ui 'projector mode off' "P again turns it off"
expect ui "$(cells t1 "$(weights "1 0" "$R2" 2 3)")" "2 decimals are back"

# --- s: scaling off ----------------------------------------------------------------
keys ui s
expect ui 'scaling off' "s says scaling off"
expect ui '÷ 1(\.0+)? \(scaling off\)' "the title bar divides by 1 (scaling off)"
expect ui 'softmax\(Q Kᵀ / 1\) V' "the formula line divides by 1"
w=$(weights "1 0" 1 2 3)
expect ui "$(cells t1 "$w")" "scaling off: weights row t1 is $w (softmax of the raw scores)"
keys ui s
expect ui "÷ √2 = $(number "$R2" %.3f)" "s again: the title bar divides by √2 again"

# --- t / T: temperature ------------------------------------------------------------
keys ui t
expect ui ' τ 0\.5( |$)' "t lowers τ to 0.5 in the title bar"
expect ui "÷ τ√2 = $(number "0.5 * $R2" %.3f)" "the divisor becomes τ√2 = 0.5 × √2"
w=$(weights "1 0" "$(number "0.5 * $R2")" 2 3)
expect ui "$(cells t1 "$w")" "τ = 0.5: weights row t1 sharpens to $w"
keys ui T
expect ui ' τ 1 ' "T raises τ back to 1"
keys ui T
expect ui ' τ 2( |$)' "T again raises τ to 2"
w=$(weights "1 0" "$(number "2 * $R2")" 2 3)
expect ui "$(cells t1 "$w")" "τ = 2: weights row t1 flattens to $w"
keys ui t
expect ui ' τ 1 ' "t brings τ back to 1"

# --- m: the causal mask ------------------------------------------------------------
# A masked weight is shown, but not as a number: 0, 0.00 or a dash.
M='(0|0\.00|—)'
keys ui m
expect ui 'mask causal' "m: the title bar says mask causal"
expect ui "(^| )t1 +1\.00$G +$M +$M( |\$)" "causal: weights row t1 reads 1.00 and two masked cells"
w=$(weights "0 1" "$R2" 2 2)
expect ui "$(cells t2 "${w% 0}") *$M( |\$)" "causal: weights row t2 is ${w% 0} and a masked cell"
expect ui "$(cells t3 "$(weights "1 1" "$R2" 2 3)")" "causal: weights row t3 sees every key"
keys ui m
expect ui 'mask custom' "m again: mask custom"
keys ui m
expect ui 'mask none' "m a third time: mask none"
expect ui "$(cells t1 "$(weights "1 0" "$R2" 2 3)")" "no mask: weights row t1 is back"

# --- ?: help -----------------------------------------------------------------------
keys ui '?'
expect ui 'keys · page 1 of 2 · PgDn more · any other key closes' "? opens the help overlay, in two pages at 80×24"
expect ui 'Tab Shift-Tab' "help lists Tab"
expect ui '^ PgDn more · Esc close *$' "the status line offers the help's keys while it is open"
expect ui 'u +Ctrl-R +undo, redo' "help lists undo and redo"
expect ui '│ the stage walk +views +│' "the help's headings: the stage walk, views"
expect ui 'PgDn Space n +next stage' "help lists the stage keys"
expect ui 'P c +projector, palette' "help lists projector mode and the palettes"
expect ui 'H b +next head \(multi-head\)' "help lists H and b, the heads"
E2E_TIMEOUT=1 expect ui 'next / previous matrix' "at 80×24 the help's first line is whole"
E2E_TIMEOUT=1 expect ui 'R +colour range 0–1 / row +│' "at 80×24 the help shows R, the colour range, whole"
E2E_TIMEOUT=1 expect ui 'qkv --help and man qkv list the command line' "at 80×24 the help's footer shows"
keys ui Space
expect ui 'keys · page 2 of 2 · PgUp back · any other key closes' "Space turns to the help's second page"
expect ui '^ PgUp back · Esc close *$' "on the last page the status line offers PgUp back and Esc"
expect ui 'q +quit' "help lists quit"
E2E_TIMEOUT=1 expect ui '(│|  ) a lesson \(--lesson\) ' "the second page's last heading"
E2E_TIMEOUT=1 expect ui 'number Enter +lesson: go to step +│ *$' "at 80×24 the help's last entry is whole, inside the box"
E2E_TIMEOUT=1 expect ui 'qkv --help and man qkv list the command line' "the second page's footer shows"
keys ui PPage
expect ui 'keys · page 1 of 2 · PgDn more' "PgUp turns back to the first page"
expect ui ' n 3 ' "turning the help's pages changes nothing else (still 3 tokens)"
keys ui x
expect_not ui 'key closes' "any other key (x) closes the help"
expect ui ' n 3 ' "the key that closed the help did nothing else (still 3 tokens)"
resize ui 200 60
keys ui '?'
expect ui 'keys · any key closes' "at 200×60 the help is one page"
expect ui 'PgDn Space n +next stage' "at 200×60 the help's first entry shows"
E2E_TIMEOUT=1 expect ui 'number Enter +lesson: go to step +│ *$' "at 200×60 its last entry shows too, whole"
keys ui x
expect_not ui 'key closes' "x closes the one-page help"
resize ui 60 16
keys ui '?'
expect ui '┌─ keys · page 1 of [0-9]+ · any other key closes ─+┐' \
	"at 60×16 the help's frame keeps whole words (its page keys are on the status line)"
expect ui '^ PgDn more · Esc close *$' "at 60×16 the status line offers PgDn and Esc"
keys ui x
resize ui 80 24
expect ui ' n 3 ' "back at 80×24"

# --- D: the rows in words ------------------------------------------------------------
keys ui D
expect ui 'looks most at' "D describes the rows in words"
w=$(weights "1 1" "$R2" 2 3)
expect ui "t3 looks most at t3 \\(${w##* }\\)" "D: t3 looks most at t3 (${w##* })"
E2E_TIMEOUT=1 expect ui "t3 looks most at t3 \\(${w##* }\\), then t1 and t2 \\(${w%% *} each\\)" \
	"D: t3 names the tie behind it: then t1 and t2 (${w%% *} each)"
check "D: each of the three sentences is whole at 80×24 (ends in of 3 tokens.)" \
	"$(screen ui | grep -c 'of 3 tokens\.')" = 3
keys ui D
expect_not ui 'looks most at' "D again closes it"

# --- S: the saturation view ---------------------------------------------------------
keys ui S
expect ui 'saturation' "S opens the saturation view"
expect ui 'd_k 1…1024' "S: the sweep runs over d_k 1 … 1024"
expect ui '^ +1 +4 +16 +64 +256 +1024 +1 +4 +16 +64 +256 +1024' "S: the d_k axes are labelled 1 4 16 64 256 1024"
expect ui 'scaled.*unscaled' "S: scaled and unscaled are told apart"
expect ui 'mean max weight' "S: a chart of the mean max weight"
# Unscaled, the scores' variance is d_k, so softmax is nearly one-hot at d_k 1024:
# the last point of the unscaled series (×) sits on the max weight chart's top row.
settle ui
top=$(screen ui | grep -E '^ *1┤' | head -n 1 | awk -F'1┤' '{ sub(/ +$/, "", $2); print $2 }')
case $top in
*×) pass "S: unscaled, the max weight reaches 1 at d_k 1024" ;;
*) fail "S: unscaled, the max weight reaches 1 at d_k 1024 (top row: '$top')" ;;
esac
keys ui S
expect_not ui 'saturation' "S again closes it"

# --- W: the wrong-way demonstrations ---------------------------------------------
keys ui W
expect ui 'WRONG WAY' "W shows a WRONG WAY banner"
expect ui 'mask after softmax' "the first wrong way: mask after softmax"
keys ui W
expect ui 'softmax down the columns' "W again: softmax down the columns"
expect ui 'column t1: t1 and t3 tie at 0\.40; the column sums( |$)' \
	"the verdict describes the selected key's column, which is what softmax normalised"
expect_not ui 't1: t1 and t3 tie at 0\.40, spread over' "and no longer the row"
w=$(weights "1 0" "$R2" 2 3 1)
expect ui "$(cells t1 "$w")" "down the columns: weights row t1 is $w"
w=$(weights "1 1" "$R2" 2 3 1)
expect ui "$(cells t3 "$w")" "down the columns: weights row t3 is $w"
keys ui W
expect ui 'the right way again' "W a third time: the right way again"
expect_not ui 'WRONG WAY' "the banner is gone"

# --- r: random values ----------------------------------------------------------------
keys ui r
expect ui 'seed [0-9]+' "r says which seed drew the values"
expect_not ui "$(cells t1 "1.00 0.00")" "Q[t1] is no longer (1, 0)"
settle ui
sums=$(weight_rows ui | awk '{ s = $2 + $3 + $4; printf "%s=%.2f ", $1, s; if (s < 0.98 || s > 1.02) bad = 1 }
	END { print (NR == 3 && !bad) ? "ok" : "bad" }')
check "r: each row of weights still sums to 1 (${sums% *})" "${sums##* }" = ok
first=$(screen ui | grep -oE 'seed [0-9]+' | head -n 1)
keys ui r
expect ui "seed $((${first#seed } + 1))" "r again draws with the next seed"

skip "a click selects a cell, the wheel nudges it" "tmux send-keys cannot click into the pane reliably"

keys ui q y
expect_exit ui 0 "q, y quits with status 0"
stop ui
finish
