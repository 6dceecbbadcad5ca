#!/usr/bin/env bash
# test_edit.sh — editing the built-in example in the real interface at 80×24, read
# off the screen as a person sees it: the first screen, typing a value into Q, the
# weights and outputs that follow, the blast radius in words, undo and redo, what
# typing refuses, nudges, adding and removing a token, adding a column of Q and K.
# Every expected number is computed here from the closed form (awk), never copied
# from a capture. It must never touch a file: the built-in example is not saved.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The worked example's keys and values (problem data: one row per token).
KM="1 0;0 1;1 1"
VM="10 0;0 10;5 5"
R2=$(awk 'BEGIN { printf "%.17g", sqrt(2) }')
R3=$(awk 'BEGIN { printf "%.17g", sqrt(3) }')

# attend WHAT "q1 q2 ..." DIVISOR: one query against the rows of $KM and $VM:
# WHAT is weights (softmax of q·k_j / DIVISOR) or output (Σ_j a_j v_j), 2 decimals.
attend() {
	awk -v what="$1" -v q="$2" -v div="$3" -v km="$KM" -v vm="$VM" '
	BEGIN {
		d = split(q, x, " ")
		n = split(km, krow, ";")
		split(vm, vrow, ";")
		for (j = 1; j <= n; j++) {
			split(krow[j], k, " ")
			s[j] = 0
			for (c = 1; c <= d; c++)
				s[j] += x[c] * k[c]
			s[j] /= div
			if (j == 1 || s[j] > m)
				m = s[j]
		}
		z = 0
		for (j = 1; j <= n; j++) {
			e[j] = exp(s[j] - m)
			z += e[j]
		}
		if (what == "weights") {
			for (j = 1; j <= n; j++)
				out = out (j > 1 ? " " : "") sprintf("%.2f", e[j] / z)
		} else {
			dv = split(vrow[1], v, " ")
			for (c = 1; c <= dv; c++) {
				o = 0
				for (j = 1; j <= n; j++) {
					split(vrow[j], v, " ")
					o += e[j] / z * v[c]
				}
				out = out (c > 1 ? " " : "") sprintf("%.2f", o)
			}
		}
		print out
	}'
}



start ui 80 24 NO_COLOR=1 "$QKV"
expect ui 'Q  queries' "the Q grid is shown"
expect ui 'K  keys' "the K grid is shown"
expect ui 'V  values' "the V grid is shown"
expect ui 'weights  softmax rows' "the weights heatmap is shown"
expect ui 'output  O = A V' "the output grid is shown"
expect ui 'softmax\(Q Kᵀ / √d_k\) V' "the formula line is shown"
expect ui '^ The course.s worked example' "the status line shows the example's note"
E2E_TIMEOUT=1 expect ui 'watch the weights move\.' "at 80 columns the note is whole"

w1=$(attend weights "1 0" "$R2")
w2=$(attend weights "0 1" "$R2")
w3=$(attend weights "1 1" "$R2")
check "closed form: row t1 of the worked example is 0.40 0.20 0.40 (got $w1)" "$w1" = "0.40 0.20 0.40"
expect ui "$(cells t1 "$w1")" "weights row t1 reads $w1"
expect ui "$(cells t2 "$w2")" "weights row t2 reads $w2"
expect ui "$(cells t3 "$w3")" "weights row t3 reads $w3"
expect ui "$(cells t1 "$(attend output "1 0" "$R2")")" "output row t1 is the weighted mix of V"

# Q[t2, d2] := 2.5.
keys ui j l
keys ui -l 2.5
expect ui "$(cells t2 "0.00")"' *2\.5_' "typing 2.5 shows the text being typed in Q[t2, d2]"
keys ui Enter
w2e=$(attend weights "0 2.5" "$R2")
o2e=$(attend output "0 2.5" "$R2")
expect ui "$(cells t2 "0.00 2.50")" "Enter puts 2.50 into Q[t2, d2]"
expect ui "$(cells t2 "$w2e")" "weights row t2 becomes $w2e for q2 = (0, 2.5)"
expect ui "$(cells t2 "$o2e")" "output row t2 becomes $o2e"
expect ui "$(cells t1 "$w1")" "weights row t1 did not move"
# S[t2,t1] = q2·k1 stays 0; softmax moves the whole row all the same.
expect ui 'Q\[t2, d2\]: 1 → 2\.5 moves score row t2 in columns t2 and t3 and, through' "the status line names the scores that moved"
expect ui "softmax's normalisation, all of weights row t2, and output row t2" "the status line names the weights and the output row that moved"

keys ui u
expect ui 'undone' "u says undone"
expect ui "$(cells t2 "$w2")" "u restores weights row t2 to $w2"
expect ui "$(cells t2 "0.00 1.00")" "u restores Q[t2, d2] to 1.00"
keys ui C-r
expect ui 'redone' "Ctrl-R says redone"
expect ui "$(cells t2 "$w2e")" "Ctrl-R brings back weights row t2 = $w2e"
keys ui u
expect ui "$(cells t2 "$w2")" "undo again: back to the worked example"

# Only number characters are taken while editing; a bad number is refused.
keys ui Enter
expect ui "$(cells t2 "0.00")"' *1_' "Enter starts editing with the cell's value"
keys ui -l abc
keys ui -l 5
expect ui "$(cells t2 "0.00")"' *15_' "letters other than e are ignored while typing a number"
expect_not ui '[abc]5?_' "no typed letter shows in the cell"
keys ui C-u
keys ui -l 1e
expect ui "$(cells t2 "0.00")"' *1e_' "1e can be typed (e starts an exponent)"
keys ui Enter
expect ui 'not a number' "Enter on 1e shows an error message"
E2E_TIMEOUT=1 expect ui 'the value stays' "at 80 columns the error message is whole (the value stays)"
expect ui "$(cells t2 "0.00")"' *1e_' "the edit stays open after the error"
keys ui Escape
expect ui 'edit cancelled' "Esc cancels the edit"
expect ui "$(cells t2 "0.00 1.00")" "Q[t2, d2] keeps its value 1.00"
expect ui "$(cells t2 "$w2")" "the weights did not move"

# + and - nudge by the step 0.1.
keys ui +
expect ui "$(cells t2 "0.00 1.10")" "+ nudges Q[t2, d2] to 1.10"
expect ui "$(cells t2 "$(attend weights "0 1.1" "$R2")")" "weights row t2 follows the nudge"
keys ui -
expect ui "$(cells t2 "0.00 1.00")" "- nudges it back to 1.00"
expect ui "$(cells t2 "$w2")" "weights row t2 is back to $w2"

# o adds a token after t2 (zeros in Q, K and V) and puts the cursor on it; x removes
# the cursor's token, so o then x is no change.
keys ui o
expect ui 'token t4 added after t2; the cursor is on it \(x removes it\)' "o says a token was added and the cursor is on it"
expect ui ' n 4 ' "the title bar counts 4 tokens"
expect ui '(^| )t4 +[0-9]' "the new token's label t4 appears beside its row"
KM="1 0;0 1;0 0;1 1" VM="10 0;0 10;0 0;5 5"
w1o=$(attend weights "1 0" "$R2")
expect ui "$(cells t1 "$w1o")" "weights row t1 over t1 t2 t4 t3 becomes $w1o"
KM="1 0;0 1;1 1" VM="10 0;0 10;5 5"
keys ui x
expect ui 'token t4 removed' "x right after o removes the new token t4"
expect ui ' n 3 ' "the title bar counts 3 tokens again"
expect_not ui '(^| )t4 +[0-9]' "no row labelled t4 is left"
expect ui "$(cells t1 "$w1")" "weights row t1 is back to $w1"

# ] adds a column d3 (zeros) to Q and K; the divisor becomes √3.
keys ui ']'
expect ui 'd_k = 3' "] says d_k = 3"
expect ui "÷ √3 = $(awk -v r="$R3" 'BEGIN { printf "%.3f", r }')" "the title bar divides by √3"
expect ui 'd1 +d2 +d3 +d1 +d2 +d3 +d1 +d2( |$)' "Q and K have columns d1 d2 d3, V keeps d1 d2"
expect ui "$(cells t1 "$(attend weights "1 0 0" "$R3")")" "weights row t1 follows the new divisor"

keys ui q
expect ui 'Quit anyway\?' "q asks before dropping the edits"
keys ui y
expect_exit ui 0 "y quits with status 0"
stop ui
finish
