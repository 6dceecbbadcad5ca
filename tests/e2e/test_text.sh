#!/usr/bin/env bash
# test_text.sh — no text is cut in the middle of a word. For every sample at
# 80×24: the teaching note shows whole (wrapped if need be), the title shows whole
# or as its first words and "…", every line that ends in "…" ends a word first,
# and the keys line keeps "? help" and "q quit". Then the wrong-way banner and
# the weights' sums, and the stage titles at 80 and 200 columns.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

SAMPLES=$QKV_SOURCE_ROOT/samples

# json_string FILE KEY: the string value of KEY (one line, \" unescaped).
json_string() {
	sed -n "s/^ *\"$2\": \"\\(.*\\)\",\$/\\1/p" "$1" | head -n 1 | sed 's/\\"/"/g'
}

# Every sample starts at once (their start-ups overlap); then each settled screen is
# read once, and the checks read that frame in the shell itself.
for file in "$SAMPLES"/*.json; do
	start "$(basename "$file" .json)" 80 24 "$QKV" "$file"
done
for file in "$SAMPLES"/*.json; do
	name=$(basename "$file" .json)
	note=$(json_string "$file" notes)
	title=$(json_string "$file" title)
	expect "$name" 'Tab matrix' "$name: the screen is drawn"
	settle "$name"
	frame=$(screen "$name")
	mapfile -t lines <<<"$frame"
	# The note, however it wraps (on both sides the words joined by single spaces).
	if [ -n "$note" ]; then
		read -ra words <<<"${frame//$'\n'/ }"
		flat="${words[*]}"
		read -ra words <<<"$note"
		if [[ $flat == *"${words[*]}"* ]]; then
			pass "$name: the note shows whole at 80×24"
		else
			fail "$name: the note shows whole at 80×24"
			diag "note: $note"
			e2e_dump "$name"
		fi
	fi
	# The title, whole.
	bar=${lines[0]#"${lines[0]%%[! ]*}"}
	bar=${bar#qkv · }
	# The numbers start at n (at m, the queries, in cross-attention).
	shown=${bar%% m [0-9]*}
	shown=${shown%%  n *}
	shown=${shown% n *}
	shown=${shown%"${shown##*[! ]}"}
	check "$name: the title shows whole at 80 columns ($shown)" "$shown" = "$title"
	# Every "…" follows a whole word.
	cut=""
	for line in "${lines[@]}"; do
		if [[ $line =~ [^\ ]… ]]; then
			cut=$line
			break
		fi
	done
	check "$name: no line ends in a cut word${cut:+ ($cut)}" -z "$cut"
	kept=0
	[[ ${lines[23]} =~ \?\ help\ ·\ q\ quit\ *$ ]] && kept=1
	check "$name: the keys line keeps ? help and q quit" "$kept" -eq 1
done
# (the sessions end with the server, at the end: killing the last one would end
# the server while the next one starts)

# --- a title longer than any bar: its first words and "…" -------------------------------
long="A title far too long for any title bar of eighty columns, however tight"
sed "s/\"title\": \"[^\"]*\"/\"title\": \"$long\"/" "$SAMPLES/worked-example.json" >"$E2E_DIR/long.json"
start long 80 24 "$QKV" "$E2E_DIR/long.json"
expect long 'Tab matrix' "a long title: drawn"
bar=$(row long 0)
shown=$(printf '%s' "${bar%% …*}" | sed 's/^ *//')
if [[ $bar == *' … '* && $long == "$shown "* ]]; then
	pass "a long title keeps its first whole words and … ($shown …)"
else
	fail "a long title keeps its first whole words and … ($bar)"
fi

# --- wrong ways at 80×24: the banner whole, the sums labelled --------------------------
start wrong 80 24 "$QKV"
expect wrong 'Tab matrix' "worked example drawn"
keys wrong W
expect wrong 'WRONG WAY: mask after softmax' "W: the banner reads WRONG WAY: mask after softmax, whole"
expect wrong 'Σcol' "W: the column sums are labelled Σcol, whole"
keys wrong W
expect wrong 'WRONG WAY: softmax down columns' "W again: the banner reads WRONG WAY: softmax down columns, whole"
keys wrong NPage NPage NPage
expect wrong "3 weights  softmax\\(S'\\) by columns" "80×24 stage 3 of the column way: the weights' title reads softmax(S') by columns"

# --- a question about a long file name keeps its y / n --------------------------------------
dir="$E2E_DIR/a-folder-with-a-rather-long-name-for-a-classroom-share"
mkdir -p "$dir"
cp "$SAMPLES/worked-example.json" "$dir/attention-lesson-two.json"
start ask 80 24 "$QKV"
expect ask 'Tab matrix' "worked example drawn (no file)"
keys ask w
expect ask 'Save as:' "w asks for a file name"
keys ask -l "$dir/attention-lesson-two.json"
keys ask Enter
expect ask 'Overwrite it\? y / n' "the overwrite question about a long path ends in y / n, whole"
keys ask n

# --- the stage walk at 80×24: panel titles whole, later stages absent -----------
start walk 80 24 "$QKV" "$SAMPLES/sentence.json"
expect walk 'Tab matrix' "sentence drawn"
keys walk NPage NPage NPage NPage
expect walk 'stage 4 of 5' "four PageDowns: stage 4"
expect walk '4 mix  a_the,j · v_j( by key j)?( +6×2)?( |$)' "stage 4: the mix title reads whole"
expect walk '^ +V  values .*4 mix  a_the,j · v_j' "stage 4: V beside the mix, on one line"
expect walk ' key +d1 +d2 *$' "stage 4: the mix's rows are headed key"
# The sentence has two tokens labelled the: the verdict names the first by position
# and quotes labels, so "the" never reads as a word of the sentence.
expect walk 't1 "the": most on "cat" \(0\.70\)' "the verdict quotes the labels and tells the two the's apart"
expect walk '^ +the +0\.00 +0\.00 +the .* the +0\.00 +0\.00 *$' "the mix's rows are the keys, the first the"

expect_not walk '(5 output  O = A V|not computed yet)' "stage 4: the output, a later stage, is absent"

# --- the colour legend: there at every n, and with R it names the row's range -----------
start legend 80 24 "$QKV" "$SAMPLES/sentence.json"
expect legend 'Tab matrix' "sentence drawn"
expect legend '^ *0 .* 1 fixed' "80×24, n = 6: the weights' legend still shows (0 … 1 fixed)"
start range 80 24 "$QKV"
expect range 'Tab matrix' "worked example drawn"
keys range R
# Row t1 of the worked example: 0.1978 to 0.4011 (its weights e^0.7071 : 1 : e^0.7071).
expect range '^ +0\.20 .*0\.40 row t1' "R: the legend spans row t1's range, 0.20 to 0.40"
expect_not range '1 fixed|1 auto' "R: the legend no longer says 0 to 1"
keys range Down
expect range '^ +0\.20 .*0\.40 row t2' "R, on row t2: the legend names row t2"

# --- half-block heatmaps (64 tokens): every row labelled, real column labels --------------
for size in "80 24" "200 60"; do
	set -- $size
	start "half$1" "$1" "$2" "$QKV" --random --tokens 64 --dk 8
	expect "half$1" 'Tab matrix' "$1×$2, 64 tokens: drawn"
	expect "half$1" '^ *t1/t2 +▄' "$1×$2, 64 tokens: the first line of half blocks is labelled t1/t2 (both rows)"
	expect "half$1" '^ *t3/t4 +▄' "$1×$2, 64 tokens: the next is t3/t4"
	# Lower half blocks on the upper row's colour: where a font's block stops short
	# of the cell's top, the upper colour shows there, not a line of the lower one.
	expect_not "half$1" '▀' "$1×$2, 64 tokens: no upper half blocks (their tops leave a thin line)"
	expect "half$1" '^ +t1 +t3 +t5 +t7 ' "$1×$2, 64 tokens: the columns are labelled t1 t3 t5 t7 … (whole labels)"
	expect_not "half$1" 't t t t' "$1×$2, 64 tokens: no t t t column headers"
done

# --- the half-block heatmap's cursor keeps the cell's colours -----------------------------
# reversed NAME: each screen line as "LINE: the reversed runs, between |", read from
# the colour capture (SGR 7 on, 27 or 0 off; 38/48;5;N and 38/48;2;R;G;B skipped).
reversed() {
	screen_color "$1" | python3 -c '
import re, sys
for number, line in enumerate(sys.stdin.read().split("\n"), 1):
    runs, run, on, at = [], "", False, 0
    for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b])", line):
        if m.group(2) is not None:
            if on:
                run += m.group(2)
            elif run:
                runs.append(run); run = ""
            continue
        p = [int(x) if x else 0 for x in m.group(1).split(";")]
        i = 0
        while i < len(p):
            if p[i] in (38, 48):
                i += 3 if i + 1 < len(p) and p[i + 1] == 5 else 5
                continue
            if p[i] == 7: on = True
            elif p[i] in (0, 27): on = False
            i += 1
    if run: runs.append(run)
    print("%d: |%s|" % (number, "|".join(runs)))
'
}
start cursor 80 24 "$QKV" --random --tokens 40 --dk 4
expect cursor '^ *t3/t4 +▄' "40 tokens at 80×24: half blocks"
keys cursor Tab Tab Tab Down Down Down Right Right
expect cursor '^row t4, largest: ' "the cursor is on row t4"
expect cursor '^col t3, largest: ' "and column t3"
settle cursor
marks=$(reversed cursor)
check "no half block is drawn reversed (the selected cell keeps both rows' colours)" \
	"$(printf '%s\n' "$marks" | grep -c '▄')" -eq 0
label=$(screen cursor | grep -n '^ *t3/t4 ' | cut -d: -f1)
check "the selected row's token is marked in its label t3/t4: t4" \
	"$(printf '%s\n' "$marks" | sed -n "${label}p")" = "$label: |t4|"
header=$((label - 2))
check "the selected column is marked in the label line above the grid: t3" \
	"$(printf '%s\n' "$marks" | sed -n "${header}p")" = "$header: |t3|"
keys cursor Up
expect cursor '^row t3, largest: ' "Up: row t3"
settle cursor
check "on row t3, the upper token of the line t3/t4 is marked" \
	"$(reversed cursor | sed -n "${label}p")" = "$label: |t3|"
keys cursor q
expect_exit cursor 0 "q quits"

# --- stage 3's title at 200 columns -------------------------------------------------------
start wide 200 60 "$QKV"
expect wide 'Tab matrix' "200×60 drawn"
keys wide NPage NPage NPage
expect wide "3 weights  A = softmax\\(S'\\)" "200×60 stage 3: the weights' title reads A = softmax(S')"
stop wide

finish
