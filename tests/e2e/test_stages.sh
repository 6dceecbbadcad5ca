#!/usr/bin/env bash
# test_stages.sh — the stage walk a teacher does with a clicker, in the real
# interface at 80×24 and 200×60: PageDown from live through the five stages, the
# stage line and name at each, later stages absent (no grid, no empty box; their
# numbers absent), the mix line of stage 4, PageUp back, Home and End, and the
# derivation following the cursor. Expected numbers come from the closed form (awk).
# It must never edit or save the problem.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

NAMES=(live scores scaled weights mix output)

# The worked example in closed form: every figure the walk shows, as shell variables.
eval "$(awk 'BEGIN {
	split("1 0;0 1;1 1", qr, ";"); split("1 0;0 1;1 1", kr, ";"); split("10 0;0 10;5 5", vr, ";")
	r = sqrt(2)
	for (i = 1; i <= 3; i++) {
		split(qr[i], q, " "); z = 0
		for (j = 1; j <= 3; j++) {
			split(kr[j], k, " ")
			s[i, j] = q[1] * k[1] + q[2] * k[2]
			e[j] = exp(s[i, j] / r); z += e[j]
		}
		for (j = 1; j <= 3; j++)
			a[i, j] = e[j] / z
		for (c = 1; c <= 2; c++) {
			o[i, c] = 0
			for (j = 1; j <= 3; j++) {
				split(vr[j], v, " ")
				o[i, c] += a[i, j] * v[c]
			}
		}
		printf "S%d=\"%.2f %.2f %.2f\"\n", i, s[i, 1], s[i, 2], s[i, 3]
		printf "P%d=\"%.2f %.2f %.2f\"\n", i, s[i, 1] / r, s[i, 2] / r, s[i, 3] / r
		printf "A%d=\"%.2f %.2f %.2f\"\n", i, a[i, 1], a[i, 2], a[i, 3]
		printf "O%d=\"%.2f %.2f\"\n", i, o[i, 1], o[i, 2]
	}
	# Stage 4 for query t1: the terms a_1j v_j and the line that sums them.
	for (j = 1; j <= 3; j++) {
		split(vr[j], v, " ")
		printf "M%d=\"%.2f %.2f\"\n", j, a[1, j] * v[1], a[1, j] * v[2]
		line = line (j > 1 ? " + " : "") sprintf("%.4f×(%s, %s)", a[1, j], v[1], v[2])
	}
	printf "MIXLINE=\"o_t1 = %s\"\n", line
	# The Σ row says = when the terms, each rounded to two decimals, add up to the
	# rounded output in both columns, else ≈ (d2: 1.98 + 2.01 = 3.99, output 3.98).
	sign = "="
	for (c = 1; c <= 2; c++) {
		shown = 0
		for (j = 1; j <= 3; j++) {
			split(vr[j], v, " ")
			shown += sprintf("%.2f", a[1, j] * v[c])
		}
		if (sprintf("%.2f", shown) != sprintf("%.2f", o[1, c]))
			sign = "≈"
	}
	printf "MIXSIGN=\"%s\"\n", sign
	printf "A12=\"%.4f\"\nSCALED11=\"%.2f\"\nWEIGHT11=\"%.2f\"\n", a[1, 2], 1 / r, a[1, 1]
}')"


# literal TEXT: TEXT as an extended regex matching itself.
literal() {
	# shellcheck disable=SC2016 # the $ is a character to escape, not an expansion
	printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g'
}

# Panel titles of the stages' grids, 1 to 5 (the mix's, "4 mix  a_t1,j · v_j", has longer forms).
TITLES=("" '1 scores  S = Q Kᵀ' '2 scaled  S / ' '3 weights  A = softmax' ',j · v_j' '5 output  O = A V')

# later NAME K MESSAGE: once settled, no grid of a stage after K is on screen (the
# walk never shows a stage before it is reached, not even as an empty box).
later() {
	local shown found=""
	settle "$1"
	shown=$(screen "$1")
	for ((j = $2 + 1; j <= 5; j++)); do
		grep -qF "${TITLES[$j]}" <<<"$shown" && found+=" ${TITLES[$j]%% *}"
	done
	grep -q 'not computed yet' <<<"$shown" && found+=" (a not-computed box)"
	if [ -z "$found" ]; then
		pass "$3"
	else
		fail "$3"
		diag "later stages on screen:$found"
	fi
}

# at_stage NAME K: waits for the stage line of stage K (0 = live).
at_stage() {
	if [ "$2" -eq 0 ]; then
		expect "$1" 'all stages live' "back to live: all stages live"
		expect "$1" 'weights  softmax rows' "live: the weights are shown"
	else
		expect "$1" "stage $2 of 5 · ${NAMES[$2]}" "stage line: stage $2 of 5 · ${NAMES[$2]}"
		later "$1" "$2" "stage $2: no later stage's grid is on screen"
	fi
}

# The column of the first panel: spaces before the Q grid's title.
# centred NAME WIDTH: true when the grids' left and right margins differ by at
# most a twentieth of the width (the last cell's number sits in its middle, so
# its blank right half adds to the right margin); prints both margins.
centred() {
	local box left right
	box=$(block_box "$1")
	left=$(echo "$box" | awk '{ print $3 }')
	right=$(echo "$box" | awk -v w="$2" '{ print w - 1 - $4 }')
	echo "left $left, right $right"
	[ -n "$left" ] && [ $((left - right)) -le $(($2 / 20)) ] && [ $((right - left)) -le $(($2 / 20)) ]
}

# xterm's own Home and End (keypad transmit mode), which its terminfo lists.
HOME_KEY=$'\eOH'
END_KEY=$'\eOF'

# --- 80×24 -------------------------------------------------------------------------
start ui1 80 24 "$QKV"
expect ui1 "$(cells t1 "$A1")" "live: weights row t1 reads $A1"

keys ui1 NPage
at_stage ui1 1
expect ui1 "$(cells t1 "$S1")" "stage 1: scores row t1 reads $S1"
expect_not ui1 "(^| )$(literal "$SCALED11")" "stage 1: the scaled value $SCALED11 is not on screen"
E2E_TIMEOUT=1 expect_not ui1 "$(literal "$WEIGHT11")" "stage 1: no weight ($WEIGHT11) is given away before stage 3"

keys ui1 NPage
at_stage ui1 2
expect ui1 "$(cells t1 "$P1")" "stage 2: scaled row t1 reads $P1"
expect_not ui1 "$(cells t2 "$A2")" "stage 2: weights row t2 is not on screen"

keys ui1 NPage
at_stage ui1 3
expect ui1 "$(cells t1 "$A1")" "stage 3: weights row t1 reads $A1"
expect ui1 "$(cells t3 "$A3")" "stage 3: weights row t3 reads $A3"
expect_not ui1 "$(cells t1 "$M1")" "stage 3: the mix terms are not on screen"

keys ui1 NPage
at_stage ui1 4
expect ui1 "$(literal "$MIXLINE")" "stage 4: the mix line reads $MIXLINE"
expect ui1 "$(cells t1 "$M1")" "stage 4: mix row t1 is a_11·v_1 = $M1"
expect ui1 "$(cells t3 "$M3")" "stage 4: mix row t3 is a_13·v_3 = $M3"
expect ui1 "Σ $MIXSIGN +${O1// / +}( |$)" "stage 4: the Σ row is output t1, Σ $MIXSIGN $O1"
expect_not ui1 "$(cells t2 "$O2")" "stage 4: output row t2 is not on screen"

keys ui1 NPage
at_stage ui1 5
expect ui1 "$(cells t1 "$O1")" "stage 5: output row t1 reads $O1"
expect ui1 "$(cells t2 "$O2")" "stage 5: output row t2 reads $O2"
expect ui1 "$(cells t3 "$O3")" "stage 5: output row t3 reads $O3"

keys ui1 NPage
settle ui1
expect ui1 'stage 5 of 5 · output' "PageDown at stage 5 stays at stage 5"
expect_not ui1 'stage [0-46-9] of 5' "no other stage is named"

for k in 4 3 2 1 0; do
	keys ui1 PPage
	at_stage ui1 $k
done
expect ui1 "$(cells t1 "$A1")" "live again: weights row t1 reads $A1"

keys ui1 -l "$END_KEY"
at_stage ui1 5
keys ui1 -l "$HOME_KEY"
at_stage ui1 0

keys ui1 -l "$END_KEY"
expect ui1 'stage 5 of 5' "End goes to stage 5"
keys ui1 PPage PPage
expect ui1 'stage 3 of 5 · weights' "PageUp twice from 5 is stage 3"
expect ui1 'A\[t1,t1\]' "stage 3 derives A[t1,t1]"
expect ui1 '▶ Q  queries' "stepping left the focus on Q"
# Tab to the weights grid (Q, K, V, then the grid); its arrows pick the cell derived.
keys ui1 Tab Tab Tab
expect ui1 '▶ 3 weights' "Tab reaches the weights grid"
keys ui1 Right
expect ui1 'A\[t1,t2\]' "Right moves the derivation to A[t1,t2]"
expect ui1 "= $(literal "$A12")\$" "the derivation ends in A[t1,t2] = $A12"

# Home as tmux sends it (ESC [ 1 ~) to a program told TERM=xterm-256color.
keys ui1 Home
E2E_TIMEOUT=2 expect ui1 'all stages live' "Home as tmux sends it returns to live"
E2E_TIMEOUT=1 expect ui1 ' d_k 2 ' "Home as tmux sends it leaves d_k at 2"
e2e_tmux kill-session -t ui1 >/dev/null 2>&1

# --- 200×60 ------------------------------------------------------------------------
start ui2 200 60 NO_COLOR=1 "$QKV"
expect ui2 "$(cells t1 "$A1")" "200×60 live: weights row t1 reads $A1"
if margins=$(centred ui2 200); then
	pass "200×60 live: the layout is centred ($margins)"
else
	fail "200×60 live: the layout is centred ($margins)"
fi
for k in 1 2 3 4; do
	keys ui2 NPage
	at_stage ui2 $k
done
expect ui2 "$(literal "$MIXLINE")" "200×60 stage 4: the mix line reads $MIXLINE"
keys ui2 NPage
at_stage ui2 5
expect ui2 "$(cells t2 "$O2")" "200×60 stage 5: output row t2 reads $O2"
if margins=$(centred ui2 200); then
	pass "200×60 stage 5: the layout is centred ($margins)"
else
	fail "200×60 stage 5: the layout is centred ($margins)"
fi
for k in 4 3 2 1 0; do
	keys ui2 PPage
	at_stage ui2 $k
done
keys ui2 -l "$END_KEY"
at_stage ui2 5
keys ui2 -l "$HOME_KEY"
at_stage ui2 0
# End as tmux sends it (ESC [ 4 ~) to a program told TERM=xterm-256color.
keys ui2 End
E2E_TIMEOUT=2 expect ui2 'stage 5 of 5' "End as tmux sends it goes to stage 5"
E2E_TIMEOUT=1 expect ui2 ' d_k 2 ' "End as tmux sends it leaves d_k at 2"
keys ui2 q y
expect_exit ui2 0 "200×60: q quits with status 0 (y if it asks)"
stop ui2
finish
