#!/usr/bin/env bash
# test_projections.sh — a problem given as X and W_Q, W_K, W_V in the real interface:
# Q, K and V are derived grids that follow an edit of X; stage 0 writes out
# q = x W_Q; I ties the W's to the identity (V = X) and back. Expected numbers are
# worked out here with awk from the closed form. Writes only in its own temp folder.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d "${TMPDIR:-/tmp}/qkv-proj.XXXXXX")
trap 'rm -rf "$dir"; e2e_cleanup' EXIT
# X = the worked example's Q, W_Q = W_K = I, W_V = 10·I: so Q = K = X, V = 10·X.
cat >"$dir/p.json" <<'JSON'
{ "title": "projected", "tokens": ["t1", "t2", "t3"],
  "X": [[1, 0], [0, 1], [1, 1]],
  "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[10, 0], [0, 10]] }
JSON

# weights "q1 q2" "k rows; …": one softmax row of q·k_j / √2, two decimals.
weights() {
	awk -v q="$1" -v km="$2" 'BEGIN {
		split(q, x, " "); n = split(km, rows, ";")
		for (j = 1; j <= n; j++) {
			split(rows[j], k, " "); s[j] = (x[1] * k[1] + x[2] * k[2]) / sqrt(2)
			if (j == 1 || s[j] > m) m = s[j]
		}
		for (j = 1; j <= n; j++) { e[j] = exp(s[j] - m); z += e[j] }
		for (j = 1; j <= n; j++) out = out (j > 1 ? " " : "") sprintf("%.2f", e[j] / z)
		print out
	}'
}

start ui 100 30 NO_COLOR=1 "$QKV" "$dir/p.json"
expect ui 'X  inputs' "the X grid is shown"
expect ui 'W_Q' "W_Q is shown"
expect ui 'Q = X W_Q' "Q is shown as derived from X"
expect ui 'V = X W_V' "V is shown as derived from X"
expect ui "$(cells t1 "10.00 0.00")" "V row t1 = x_t1 · 10·I = (10, 0)"
expect ui "$(cells t2 "$(weights "0 1" "1 0;0 1;1 1")")" "weights row t2 from Q = K = X"
# X's columns and the W's rows are d_model's dimensions, m1 m2; Q's columns d_k's, d1 d2.
expect ui '^ +m1 +m2 +d1 +d2 +d1 +d2 +d1 +d2 *$' "X's columns read m1 m2, the W's columns d1 d2"
expect ui '^ +t2 +0\.00 +1\.00 +m2 +0\.00 +1\.00 ' "the W's rows read m1 m2 (W_Q's row m2 beside X's row t2)"
expect ui '^ +d1 +d2 +d1 +d2 +d1 +d2 *$' "Q's, K's and V's columns read d1 d2"

# Edit X[t1, m2] to 1: x_t1 = (1, 1), so q_t1 = k_t1 = (1, 1).
keys ui l
keys ui -l 1
keys ui Enter
expect ui "$(cells t1 "1.00 1.00") .*Q = X|$(cells t1 "1.00 1.00")" "X row t1 reads 1 1"
expect ui "$(cells t1 "1.00 1.00").*$(cells t1 "1.00 1.00")" "derived Q and K rows t1 follow: 1 1"
w2=$(weights "0 1" "1 1;0 1;1 1")
expect ui "$(cells t2 "$w2")" "weights row t2 follow the new key k_t1: $w2"
expect ui 'X\[t1, m2\]: 0 → 1 moves Q\[t1,d2\], K\[t1,d2\], V\[t1,d2\], score row t1 and column t1' \
	"the status line says what the edit of X reaches: Q, K, V of t1 and score row and column t1"
# Row t1's scores go from (1, 0, 1) to (2, 1, 2): shifted by 1, so softmax leaves its
# weights as they were; the other rows move.
expect ui 'all of weights rows t2 and t3, and output rows t2 and t3 and column d2' \
	"the weights of t1 did not move (its scores shifted by 1), rows t2 and t3 did"

# Stage 0: the projection of the selected cell, written out.
keys ui Home NPage
expect ui 'stage 0 of 5 · projections' "PageDown from live goes to stage 0"
expect ui 'q\[t1,d1\] = x_t1 · W_Q column 1 = 1×1 \+ 1×0 = 1' "stage 0 derives q = x W_Q"
expect_not ui '(not computed yet|1 scores  S = Q|weights  softmax|3 weights  A)' "later stages are absent in stage 0"
keys ui Home

# I: the W's become the identity, so V = X (no longer 10·X); I again restores them.
keys ui I
expect ui 'Q = K = V = X' "I says the projections are tied"
expect ui "$(cells t1 "1.00 1.00").*$(cells t1 "1.00 1.00").*$(cells t1 "1.00 1.00")" \
	"with W = I, Q, K and V rows t1 all equal x_t1"
keys ui I
expect ui 'learned again' "I again brings the W's back"
expect ui "$(cells t1 "10.00 10.00")" "V row t1 is 10·x_t1 again"

keys ui q y
expect_exit ui 0 "q y quits"
stop ui
finish
