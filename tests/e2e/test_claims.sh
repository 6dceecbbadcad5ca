#!/usr/bin/env bash
# test_claims.sh — what the screen says at the edges, read as a person sees it: a
# query that sees no key has no entropy ratio to show (its readout says —, not 0.00,
# which would claim a one-hot row); three equal heads' shares of an output cell at
# stage 7 are shown equal, the total marked ≈ with what the shown shares add up to,
# and the arrows in the concatenation move the cell written out; without colour the
# learning view's W_Q and W_K are shade glyphs, one row of W a line, not half blocks
# that all look the same (nor, in ASCII, '#'); a message that wraps, with the
# saturation view open over it, shows its beginning, not its last line alone; a
# variance too wide for the readout's line is shown whole, without a comparison cut
# short; the mix's Σ is "Σ ≈" when its terms, each rounded as shown, do not add up
# to it (on screen, in a figure and in the printout), and so is a wrong-way row or
# column sum (whose
# label, in ASCII, is not cut short); a grid's decimals tell its values apart, or
# mark the ones that still read alike.
# Expected numbers from the closed form (awk).
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d "${TMPDIR:-/tmp}/qkv-claims.XXXXXX")
trap 'rm -rf "$dir"; e2e_cleanup' EXIT

# Query a sees no key; b sees a and c; c sees all three.
cat >"$dir/masked.json" <<'JSON'
{"tokens": ["a", "b", "c"],
 "Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[1, 2], [3, 4], [5, 6]],
 "mask": [[true, true, true], [false, true, false], [false, false, false]]}
JSON
# Row b: scores 0 and 1/√2 over its two keys; H / ln 2, two decimals.
ratio=$(awk 'BEGIN { e = exp(1 / sqrt(2)); p = 1 / (1 + e); q = e / (1 + e)
	printf "%.2f", -(p * log(p) + q * log(q)) / log(2) }')
start masked 80 24 NO_COLOR=1 "$QKV" "$dir/masked.json"
expect masked 'max +H/lnN +eff' "the softmax readout is shown"
expect masked '^a .* a +0\.00 +— +0\.0 +0\.000 *$' "a query that sees no key: H/lnN is —, not a number"
expect masked "^b .* b +0\.67 +${ratio//./\\.} " "a query that sees two keys: H / ln 2 = $ratio"
expect_not masked ' a +0\.00 +0\.00 +0\.0 +0\.000 *$' "no entropy ratio of 0.00 for the row with no keys"
keys masked q
expect_exit masked 0 "q quits"
stop masked

# A grid shows the decimals that tell its values apart: K's 0.0147 and 0.0153 at two
# places would read 0.01 and 0.02; V's 1e-5 and 1e-9 cannot be told from 0 even at
# four, so they are marked ~ (and so is V's 0, whose text they share).
cat >"$dir/close.json" <<'JSON'
{"tokens": ["t1", "t2", "t3"],
 "Q": [[1, 0], [0, 1], [1, 1]], "K": [[0.0147, 0], [0.0153, 1], [1, 1]],
 "V": [[1, 0], [0, 1], [0.00001, 1e-9]]}
JSON
start close 83 22 NO_COLOR=1 "$QKV" "$dir/close.json"
expect close 'K  keys' "the close keys are shown"
expect close ' t1 +0\.0147 +0\.0000 ' "K[t1, d1] reads 0.0147, not 0.01"
expect close ' t2 +0\.0153 +1\.0000 ' "K[t2, d1] reads 0.0153, not 0.02"
expect close ' t1 +1\.00 +0\.00 .* t1 +1\.0000 +0\.0000~ *$' "Q keeps two places; V's 0 reads like its 1e-9, so it is marked too"
expect close ' t3 +0\.0000~ +0\.0000~ *$' "V's 1e-5 and 1e-9 read 0.0000 and are marked ~"
stop close

# Three identical heads of d_k = d_v = 1 and W_O a column of ones: each head adds the
# same share, its output for token a: A row a · V, with V = X W_V = (1, 0, 1).
cat >"$dir/heads.json" <<'JSON'
{"title": "three equal heads", "tokens": ["a", "b", "c"],
 "X": [[1, 0], [0, 1], [1, 1]],
 "heads": [{"W_Q": [[1], [0]], "W_K": [[1], [0]], "W_V": [[1], [0]]},
           {"W_Q": [[1], [0]], "W_K": [[1], [0]], "W_V": [[1], [0]]},
           {"W_Q": [[1], [0]], "W_K": [[1], [0]], "W_V": [[1], [0]]}],
 "W_O": [[1, 0], [1, 0], [1, 0]]}
JSON
eval "$(awk 'BEGIN { e = exp(1); share = 2 * e / (2 * e + 1)
	printf "SHARE=%.4f\nTOTAL=%.4f\nSHOWN=%.4f\n", share, 3 * share, 3 * sprintf("%.4f", share) }')"
start heads 80 24 NO_COLOR=1 "$QKV" "$dir/heads.json"
expect heads 'h3 weights' "the three heads are shown"
for _ in 1 2 3 4 5 6 7 8; do
	keys heads NPage
done
keys heads Tab Tab
expect heads '▶ 7 output = Concat W_O' "stage 7, the output grid selected"
expect heads "head 1 ${SHARE//./\\.} \+ head 2 ${SHARE//./\\.} \+" "heads 1 and 2 show the same share, $SHARE"
expect heads "head 3 ${SHARE//./\\.} ≈ ${TOTAL//./\\.} " "head 3 too, and the total $TOTAL is marked ≈"
expect heads "add up to ${SHOWN//./\\.};" "the line says the shown shares add up to $SHOWN"
keys heads BTab BTab
expect heads '▶ 6 concat' "Shift-Tab twice: the concatenation selected, still at stage 7"
keys heads Down Down
expect heads 'out\[c, d1\] = ' "Down twice in the concatenation: stage 7 writes out row c"
keys heads q
expect_exit heads 0 "q quits"
stop heads

# NO_COLOR: a half block cannot show two values without colour; each entry of Wᵀ
# gets the shade of its magnitude, so the lines under "W_Qᵀ:" differ.
start learn 200 60 NO_COLOR=1 "$QKV" --train lookup
expect learn 'W_Qᵀ: d_k [0-9]+ of 16 × d_model 40 of 40' "the learning view shows W_Qᵀ"
settle learn
map=$(screen learn | awk '/W_Qᵀ: d_k/ { on = 1; next } on && n < 4 { print substr($0, 1, 41); n++ }')
check "no half blocks without colour" "$(printf '%s' "$map" | grep -c '▀')" -eq 0
shades=$(printf '%s' "$map" | grep -o '[·░▒▓█]' | sort -u | wc -l)
check "W_Qᵀ's entries take several shades ($shades)" "$shades" -ge 3
distinct=$(printf '%s\n' "$map" | sort -u | wc -l)
check "its first four lines differ ($distinct distinct)" "$distinct" -eq 4
keys learn L q
expect_exit learn 0 "L closes the learning view, q quits"
stop learn

# In ASCII, with colour, no half block either: one row of W a line of coloured
# cells, not '#' standing in for ▀ with two colours no one can tell apart.
start ascii 200 60 QKV_ASCII=1 "$QKV" --train lookup
expect ascii 'W_Q\^T: d_k [0-9]+ of 16 x d_model 40 of 40' "in ASCII the learning view shows W_Q^T"
settle ascii
map=$(screen ascii | awk '/W_Q\^T: d_k/ { on = 1; next } on && n < 4 { print substr($0, 1, 41); n++ }')
check "no hash signs standing in for half blocks" "$(printf '%s' "$map" | grep -c '#')" -eq 0
keys ascii L q
expect_exit ascii 0 "L closes the learning view, q quits"
stop ascii

# Scaling off at d_k = 64 says two lines' worth at 80 columns; S then opens the
# saturation view, which fills the screen down to the status line.
start sat 80 24 NO_COLOR=1 "$QKV"
expect sat 'Three tokens' "the worked example is open"
keys sat '>' '>' '>' '>' '>'
expect sat 'd_k 64' "> five times: d_k 64"
keys sat s
expect sat 'scaling off' "s: the scaling is off"
keys sat S
expect sat 'mean max weight' "S opens the saturation view"
settle sat
check "the line above the keys starts the message: scaling off" \
	"$( (row sat 21; row sat 22) | grep -c '^ scaling off, ')" -eq 1
keys sat S q
expect sat 'Unsaved changes|Quit' "S closes the view; q asks (d_k was changed)"
keys sat y
expect_exit sat 0 "y quits"
stop sat

# Q[t1,d1] = 1e12: S' row t1 is (a, 0, a) with a = 10^12/√2, the rest as in the worked
# example; the variance over the nine entries, in the readout's format.
variance=$(awk 'BEGIN { a = 1e12 / sqrt(2); r = 1 / sqrt(2)
	split(a " 0 " a " 0 " r " " r " " r " " r " " 2 * r, x, " ")
	for (i = 1; i <= 9; i++) { s += x[i]; q += x[i] * x[i] }
	m = s / 9; printf "%.2e", q / 9 - m * m }')
start wide 80 24 NO_COLOR=1 "$QKV"
expect wide 'if N\(0,1\): 1\.00' "the readout compares var(S') with N(0,1)'s"
keys wide -l 1e12
keys wide Enter
pattern=${variance//./\\.}
expect wide "var\(S'\) ${pattern//+/\\+} *\$" "Q[t1,d1] = 1e12: var(S') = $variance, whole"
expect_not wide 'if N\(0,1\): 1\. *$' "and no comparison cut short to 1."
keys wide u q
expect_exit wide 0 "u undoes, q quits"
stop wide

# The causal sample's query tea at stage 4: terms a_j · v_j with a ∝ e^(0, −1, 1, 2)/√2
# and V's first column (1, 0, 1, 2). Rounded to two decimals, each on its own, they
# add up to one more hundredth than their sum does; green's (0.50, 0, 0.25) do.
eval "$(awk 'BEGIN { r = sqrt(2); z = exp(0) + exp(-1 / r) + exp(1 / r) + exp(2 / r)
	a1 = 1 / z; a3 = exp(1 / r) / z; a4 = exp(2 / r) / z
	printf "TERMS=%.2f\nEXACT=%.2f\n", sprintf("%.2f", a1) + sprintf("%.2f", a3) + sprintf("%.2f", 2 * a4), a1 + a3 + 2 * a4 }')"
start mix 100 40 NO_COLOR=1 "$QKV" "$QKV_SOURCE_ROOT/samples/causal.json"
expect mix 'Causal mask' "the causal sample is open"
keys mix Down Down Down
for _ in 1 2 3 4; do
	keys mix NPage
done
expect mix '4 mix  (query "tea": )?a_tea,j · v_j( by key j)?( |$)' "stage 4 for the query tea, its terms a_tea,j · v_j"
expect mix ' key +d1 +d2 *$' "the mix's rows are headed key: one row per key j, not queries"
check "its d1 terms as shown add up to $TERMS, the sum is $EXACT" "$TERMS" != "$EXACT"
expect mix " Σ ≈ +${EXACT//./\\.} " "so the sum row says Σ ≈ $EXACT"
keys mix Up
expect mix '4 mix  (query "green": )?a_green,j · v_j( by key j)?( |$)' "Up: the query green"
expect mix ' Σ = +0\.75 +0\.50' "whose terms add up: Σ = 0.75 0.50"
keys mix q
expect_exit mix 0 "q quits"
stop mix
# The printout's stage 4 for the worked example's t1: d2's terms 10b and 5a (b the
# weight on t2, a on t3) at four decimals against their sum.
eval "$(awk 'BEGIN { e = exp(1 / sqrt(2)); a = e / (2 * e + 1); b = 1 / (2 * e + 1)
	printf "PTERMS=%.4f\nPSUM=%.4f\n", sprintf("%.4f", 10 * b) + sprintf("%.4f", 5 * a), 10 * b + 5 * a }')"
out=$("$QKV" --print --stage 4)
check "the printout's d2 terms add up to $PTERMS, the sum is $PSUM" "$PTERMS" != "$PSUM"
check "so its Σ row reads Σ ≈" "$(printf '%s\n' "$out" | grep -c '^  Σ ≈  6\.0167  3\.9833$')" -eq 1
# Green's weights at two decimals, 0.50, 0.25, 0.25: the terms add up (0.75, 0.50).
out=$("$QKV" --print --stage 4 --cell 3,1 --decimals 2 "$QKV_SOURCE_ROOT/samples/causal.json")
check "the causal sample's green at two decimals adds up: its Σ row reads Σ" \
	"$(printf '%s\n' "$out" | grep -c '^  Σ  *0\.75  0\.50$')" -eq 1
svg=$("$QKV" --stage 4 --cell 4,1 --format svg "$QKV_SOURCE_ROOT/samples/causal.json")
check "the figure of the same stage 4 says Σ ≈ O" "$(printf '%s' "$svg" | grep -c '>Σ ≈ O<')" -ge 1

# Masking after softmax with no mask: the worked example's weights, whose column t3
# is a / (2a + 1) twice and a / (a + 2), a = e^(1/√2); shown 0.40, 0.40 and 0.50,
# they add up to 1.30, the column to 1.31.
eval "$(awk 'BEGIN { a = exp(1 / sqrt(2)); x = a / (2 * a + 1); y = a / (a + 2)
	printf "SHOWN3=%.2f\nSUM3=%.2f\n", 2 * sprintf("%.2f", x) + sprintf("%.2f", y), 2 * x + y }')"
start wrong 80 24 NO_COLOR=1 "$QKV"
keys wrong W
expect wrong 'Σcol' "W: the wrong way shows each column's sum"
check "column t3 as shown adds up to $SHOWN3, its sum is $SUM3" "$SHOWN3" != "$SUM3"
expect wrong "Σcol +0\.85 +0\.85 +≈${SUM3//./\\.}( |\$)" "so its sum reads ≈$SUM3"
keys wrong W
expect wrong "t3 .* ≈${SUM3//./\\.} " "W again (softmax down the columns): row t3's sum reads ≈$SUM3"
keys wrong q
expect_exit wrong 0 "q quits"
stop wrong
# Column sums are shown, never judged (those of correct attention are not 1 either):
# in colour no column sum wears the error red (background 124), while under
# softmax down the columns the row sums that are not 1 do.
start wrongc 100 30 "$QKV"
keys wrongc W
expect wrongc 'Σcol' "in colour, W shows the column sums"
settle wrongc
check "mask after softmax: the column sums are not painted as errors" \
	"$(screen_color wrongc | grep 'Σcol' | grep -c '48;5;124m')" -eq 0
keys wrongc W
expect wrongc 'WRONG WAY: softmax down the columns' "W again: softmax down the columns"
settle wrongc
check "down the columns: the row sums that are not 1 are painted as errors" \
	"$(screen_color wrongc | grep -c '48;5;124m *≈\?[0-9]')" -ge 1
check "down the columns: the column sums (each 1) are not" \
	"$(screen_color wrongc | grep 'Σcol' | grep -c '48;5;124m')" -eq 0
keys wrongc q
expect_exit wrongc 0 "q quits"
stop wrongc
# In ASCII the label spells Σ out: "sumcol" would be cut to "sumco"; "sum" fits.
start ascii2 80 24 QKV_ASCII=1 NO_COLOR=1 "$QKV"
keys ascii2 W
expect ascii2 "^ +sum +0\.85 +0\.85 +~${SUM3//./\\.}( |\$)" "in ASCII the column sums read sum ... ~$SUM3"
expect_not ascii2 'sumco( |$)' "and no label is cut short"
keys ascii2 q
expect_exit ascii2 0 "q quits"
stop ascii2
svg=$("$QKV" --wrong mask-after-softmax --format svg)
check "the figure's column sum reads ≈$SUM3 too" "$(printf '%s' "$svg" | grep -c ">≈$SUM3<")" -eq 1
finish
