#!/usr/bin/env bash
# test_export.sh — E in the real interface: it asks for a figure's name the way w
# asks for a file's, writes the stage on screen as SVG (read back: one rect per cell
# of the stage's grid, the selected cell framed), says so, and leaves the problem
# unsaved; a name without .svg, .pdf or .png is refused on the status line. The
# figure is drawn beside the interface: a large one shows its progress, Esc
# cancels it within half a second (measured from sending Esc to the screen saying
# so), the drawing stops and nothing is written; left alone, it is written whole. A figure above the
# cap is refused when E is pressed.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

work=$E2E_DIR/work
mkdir -p "$work"
cd "$work" || exit 1

start ex 100 30 "$QKV"
expect ex 'Three tokens, by hand' "the worked example is shown"
keys ex +
keys ex NPage
expect ex 'stage 1 of 5: scores' "PageDown walks to stage 1"
keys ex E
expect ex 'Export figure as \(\.svg \.pdf \.png\): _' "E asks for the figure's name"
expect ex 'Enter export · Esc cancel' "the key line says Enter exports"
keys ex -l scores.svg
keys ex Enter
expect ex 'stage 1 \(scores\) exported to scores\.svg' "Enter says what was exported, and where"
check "scores.svg exists" "$(test -s scores.svg && echo 1 || echo 0)" -eq 1
cellcount=$(grep -c 'id="cell-' scores.svg)
check "the SVG has one rectangle per cell of the 3×3 scores" "$cellcount" -eq 9
check "the SVG frames the selected cell" "$(grep -c 'stroke="#ff5f00"' scores.svg)" -eq 1
check "the first score, nudged by + to 1.1·1, reads 1.10" "$(grep -c '>1.10</text>' scores.svg)" -ge 1
expect ex ' modified · n ' "the problem still reads modified (exporting is not saving)"

keys ex E
keys ex -l figure.txt
keys ex Enter
expect ex 'figure\.txt: name the figure \.svg, \.pdf or \.png' "a name without a figure's ending is refused"
check "no figure.txt was written" "$(test -e figure.txt && echo 1 || echo 0)" -eq 0

keys ex E
keys ex -l scores.svg
keys ex Enter
expect ex 'scores\.svg exists\. Overwrite it\? y / n' "an existing name is asked about"
keys ex n
expect ex 'not exported' "n leaves it"
keys ex q
expect ex 'Quit anyway\?' "q still asks about the unsaved edit"
keys ex y
expect_exit ex 0 "y quits with status 0"

# The weights of 500 tokens: 250,000 cells, some seconds to draw as a PDF.
start big 100 30 "$QKV" --random --tokens 500 --dk 1
expect big 'n 500 · d_k 1' "a problem of 500 tokens is shown"
keys big E
keys big -l big.pdf
keys big Enter
expect big 'computing the figure of stage 3 \(weights\) for big\.pdf… [0-9.]+ s · Esc cancels' \
	"the figure is drawn beside the interface, its progress on the status line"
keys big x
expect big 'keys wait' "another key waits, and the status line says so"
cancel_within big 'cancelled: big\.pdf was not written' 0.5 "the figure's drawing"
# The drawing itself stops too: qkv is back to its one thread within 2 s (a PDF
# of 250,000 cells takes some ten seconds to draw).
qkv_pid=$(pgrep -P "$(e2e_tmux display-message -p -t big '#{pane_pid}')" | head -n 1)
threads=0
for ((i = 0; i < $(e2e_polls 2); i++)); do
	threads=$(ls "/proc/$qkv_pid/task" 2>/dev/null | wc -l)
	[ "$threads" -eq 1 ] && break
	e2e_sleep 0.05
done
check "the cancelled drawing stops: one thread left within 2 s" "$threads" -eq 1
keys big E
expect big 'Export figure as' "the keys work at once after the cancel"
keys big -l big.svg
keys big Enter
if wait_for big 'stage 3 \(weights\) exported to big\.svg' "$(slow 60)"; then
	pass "left alone, the figure is written and the status line says so"
else
	fail "left alone, the figure is written and the status line says so"
	e2e_dump big
fi
check "big.svg has one rectangle per weight of 500 tokens" "$(grep -o 'id="cell-' big.svg | wc -l)" -eq 250000
check "the cancelled big.pdf was never written" "$(test -e big.pdf && echo 1 || echo 0)" -eq 0
rm -f big.svg
keys big q
expect_exit big 0 "q quits with status 0 (exporting is not a change)"

# 501 tokens: above the cap, refused when E is pressed, no name asked.
start over 100 30 "$QKV" --random --tokens 501 --dk 1
expect over 'n 501 · d_k 1' "a problem of 501 tokens is shown"
keys over E
expect over 'the figure of stage 3 \(weights\) would draw 251,001 cells; a figure draws at most 250,000' \
	"E refuses a figure above the cap at once, with its size"
expect_not over 'Export figure as' "and asks no name"
keys over q
expect_exit over 0 "q quits with status 0"
finish
