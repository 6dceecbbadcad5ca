#!/usr/bin/env bash
# test_export.sh — E in the real interface: it asks for a figure's name the way w
# asks for a file's, writes the stage on screen as SVG (read back: one rect per cell
# of the stage's grid, the selected cell framed), says so, and leaves the problem
# unsaved; a name without .svg, .pdf or .png is refused on the status line.
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
finish
