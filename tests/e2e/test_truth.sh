#!/usr/bin/env bash
# test_truth.sh — what the screen says is true of the numbers on it: ties named
# together on the first screen and in D, the reach of an edit marked cell by cell
# (A[t1,t2] after Q[t1,d1] = 3, which softmax moves though its score does not) and
# said in the status line, the clicker during an edit, W without a mask, and the
# saturation lesson from the worked example. Expected numbers from the closed form (awk).
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The worked example by hand: row t1 before (a11 = a13) and after Q[t1,d1] = 3.
eval "$(awk 'BEGIN {
	r = sqrt(2); e = exp(1 / r); z = 2 * e + 1
	printf "TIE=\"%.2f\"\nLOW=\"%.2f\"\n", e / z, 1 / z
	e3 = exp(3 / r); z3 = 2 * e3 + 1
	printf "A12=\"%.2f\"\n", 1 / z3
}')"

# attributes NAME TEXT: the SGR state (colours and attributes, as the codes set since
# the last reset) of the first character of TEXT where it first appears on screen.
attributes() {
	local name=$1 text=$2 plain colour line column
	plain=$(screen "$name")
	colour=$(screen_color "$name")
	line=$(printf '%s\n' "$plain" | LC_ALL=C awk -v t="$text" 'index($0, t) { print NR; exit }')
	[ -n "$line" ] || return 1
	column=$(printf '%s\n' "$plain" | LC_ALL=C awk -v t="$text" -v n="$line" 'NR == n { print index($0, t) }')
	printf '%s\n' "$colour" | LC_ALL=C awk -v n="$line" -v c="$column" '
	NR == n {
		state = ""; at = 0; s = $0
		while (length(s) > 0) {
			if (substr(s, 1, 2) == "\033[") {
				m = match(s, /^\033\[[0-9;]*m/)
				if (m) {
					codes = substr(s, 3, RLENGTH - 3)
					if (codes == "" || codes == "0") state = ""
					else if (codes ~ /^0;/) state = substr(codes, 3)
					else state = state ";" codes
					s = substr(s, RLENGTH + 1)
					continue
				}
			}
			at++
			if (at == c) { print state; exit }
			s = substr(s, 2)
		}
	}'
}

# --- ties on the first screen, and in D ------------------------------------------
start ui 80 24 "$QKV"
expect ui "t1: t1 and t3 tie at $TIE" "the first screen names the tie: t1: t1 and t3 tie at $TIE"
expect_not ui "most on t1" "the first screen never says most on t1"
keys ui D
expect ui "t1 looks most at t1 and t3 \\($TIE each\\), then t2 \\($LOW\\)" \
	"D: t1 looks most at t1 and t3 ($TIE each), then t2 ($LOW)"
expect ui "t2 looks most at t2 and t3 \\($TIE each\\)" "D: t2 looks most at t2 and t3 ($TIE each)"
keys ui Escape

# --- the reach of Q[t1,d1] = 3 -----------------------------------------------------
keys ui 3 Enter
expect ui "Q\\[t1, d1\\]: 1 → 3 moves score row t1 in columns t1 and t3 and, through" \
	"the status line names score row t1 in columns t1 and t3"
expect ui "softmax's normalisation, all of weights row t1, and output row t1" \
	"the status line: through softmax's normalisation, all of weights row t1, and output row t1"
marked=$(attributes ui " $A12 ")
marked_t2=$(attributes ui "t2  0.20  0.40  0.40")
# The mark lasts APP_MARK_MS (1.5 s): wait for it to go, however long a loaded
# machine takes to repaint, rather than sleep past it.
faded=$marked
polls=$(e2e_polls 10)
for ((i = 0; i < polls; i++)); do
	faded=$(attributes ui " $A12 ")
	[ "$faded" != "$marked" ] && break
	e2e_sleep 0.05
done
settle ui
faded=$(attributes ui " $A12 ")
faded_t2=$(attributes ui "t2  0.20  0.40  0.40")
if [ -n "$marked" ] && [ "$marked" != "$faded" ]; then
	pass "A[t1,t2] = $A12 is marked after the edit (its score did not move; softmax moved it)"
else
	fail "A[t1,t2] = $A12 is marked after the edit (its score did not move; softmax moved it)"
	diag "attributes while marked: '$marked', after the mark faded: '$faded'"
fi
if [ "$marked_t2" = "$faded_t2" ]; then
	pass "weights row t2 did not move and is not marked"
else
	fail "weights row t2 did not move and is not marked"
	diag "'$marked_t2' against '$faded_t2'"
fi

# --- the clicker during an edit ------------------------------------------------------
keys ui -l '.'
expect ui 'Enter keep' "a stray . starts an edit"
keys ui NPage
expect ui 'edit of Q\[t1, d1\] cancelled \(“\.” is not a number\) · stage 1 of 5' \
	"PageDown during the edit cancels it and steps to stage 1, and says both"
expect ui '▶ Q  queries' "stepping leaves the focus on Q"
keys ui -l '2'
keys ui NPage
expect ui 'Q\[t1, d1\] = 2 kept · stage 2 of 5' "PageDown keeps a typed number and steps to stage 2"
keys ui PPage PPage PPage
expect ui 'all stages live' "PageUp back to live"
expect ui '▶ Q  queries' "PageDown then PageUp leaves the focus on Q"

stop ui

# --- W with no mask ---------------------------------------------------------------------
start ui 120 30 "$QKV"
expect ui 'tie at' "120×30: the worked example is up"
keys ui W
expect ui 'no key is masked, so nothing changes \(try m\)' "W without a mask says it changes nothing here"
expect_not ui 'rows no longer sum' "W without a mask never says the rows no longer sum to 1"
keys ui m
expect ui 'rows t1 and t2 \(Σ [0-9.]+, [0-9.]+\) no longer sum to 1' "m then masks causally and the rows that lost weight are named"
keys ui W W m m
stop ui

# --- the saturation lesson from the worked example ----------------------------------------
start sat 80 24 "$QKV"
expect sat 'tie at' "the worked example is up"
keys sat s
for _ in 1 2 3 4 5 6 7 8 9; do
	keys sat -l '>'
done
expect sat 'd_k = 1024 \(from 2\): 1022 new columns of Q and K drawn from N\(0,1\), seed 1' \
	"> nine times draws 1022 new d_k columns from N(0,1), counted together, and shows the seed"
expect sat 'is nearly one-hot' "scaling off at d_k = 1024: the selected row is nearly one-hot"
stop sat
finish
