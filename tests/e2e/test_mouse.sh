#!/usr/bin/env bash
# test_mouse.sh — the mouse in the real interface: a click selects a cell (and its
# matrix), the wheel nudges it. The events are the SGR mouse reports a terminal
# sends (ESC [ < button ; column ; row M/m), typed into the pane as bytes; where to
# click is read off the screen, and the expected weights are worked out with awk.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

start ui 80 24 "$QKV"
expect ui 'Q  queries' "the Q grid is shown"
# The inputs' row t2 is the first screen line that starts with " t2 ".
row=$(screen ui | grep -n '^ t2 ' | head -n 1 | cut -d: -f1)
# On it, Q reads 0.00 1.00 and K reads 0.00 1.00: K's d2 is the second "1.00".
col=$(column_of ui "$row" "1.00" 2)
check "K[t2, d2] found on screen (line $row, column $col)" "$col" -gt 20
mouse ui 0 "$((col + 1))" "$row"
expect ui '▶ K  keys' "a click on K[t2, d2] moves the focus to K"
# Wheel up (button 64) over the same cell: K[t2, d2] 1 → 1.1.
mouse ui 64 "$((col + 1))" "$row"
expect ui 'K\[t2, d2\]: 1 → 1.1' "the wheel nudges the clicked cell up by the step"
# k_t2 = (0, 1.1): query t2 = (0, 1) scores (0, 1.1, 1) against the keys, ÷ √2, softmax.
w2=$(awk 'BEGIN { r = sqrt(2); a = exp(-1.1 / r); c = exp((1 - 1.1) / r); z = a + 1 + c
	printf "%.2f %.2f %.2f", a / z, 1 / z, c / z }')
expect ui "$(cells t2 "$w2")" "weights row t2 follow the new key: $w2"
keys ui q y
expect_exit ui 0 "q y quits"
stop ui
finish
