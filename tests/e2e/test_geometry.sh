#!/usr/bin/env bash
# test_geometry.sh — the geometry view (G) as a person sees it: the worked example's
# queries and keys as braille arrows, q_t3 between k_t1 and k_t2 with the sentence
# q_t3 · k_t1 = 1.00 = |q| |k| cos 45°, an edit of Q moving q_t3's mark and its
# words, at 83×22 and 120×40; the marks without colour and in ASCII; 60×18; and a
# random d_k = 64 problem in its principal plane. Expected numbers are worked out
# here (awk), not copied from the screen.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# mark_at NAME MARK: "row col" of MARK in the plot (1-based; 0 0 when absent): its
# first appearance under the legend not followed by a space (the table's and the
# legend's are), columns counted in characters.
mark_at() {
	screen "$1" | awk -v mark="$2" 'NR > 4 {
		line = $0; at = 0
		while ((i = index(line, mark)) > 0) {
			at += length(substr(line, 1, i - 1)) + 1
			line = substr(line, i + length(mark))
			if (substr(line, 1, 1) != " ") { print NR, at; found = 1; exit }
		}
	} END { if (!found) print 0, 0 }'
}

for size in "83 22" "120 40"; do
	set -- $size
	name="g$1"
	start "$name" "$1" "$2" "$QKV"
	expect "$name" 'Three tokens' "$1×$2: the worked example is open"
	keys "$name" G
	expect "$name" 'geometry · q · k = \|q\| \|k\| cos θ' "$1×$2, G: the geometry view opens"
	expect "$name" '● query +◉ selected +key by weight: ◆ ≥ 0\.3 ◇ ≥ 0\.1 · less' "$1×$2: the legend names the marks"
	keys "$name" Down Down
	expect "$name" 'q_t3 · k_t1 = 1\.00 = \|q\| \|k\| cos 45°; weight 0\.25' \
		"$1×$2: q_t3 · k_t1 = 1.00 = |q| |k| cos 45°, weight 0.25, in words"
	expect "$name" 'the plane is exact: the points are Q.s and K.s rows' "$1×$2: d_k 2, the plane is exact"
	expect "$name" '◉ q_t3 +\|q\| = 1\.41' "$1×$2: the table names the selected query and its length"
	expect "$name" '◆ k_t3 +2\.00 +1\.41 +0\.50' "$1×$2: k_t3, q · k 2, scaled 1.41, weight 0.50, the heavy mark"
	settle "$name"
	braille=$(screen "$name" | grep -cP '[\x{2801}-\x{28FF}]')
	check "$1×$2: the arrows are braille dots ($braille lines)" "$braille" -ge 5
	cut=$(screen "$name" | grep -c '…$')
	check "$1×$2: no line is cut with …" "$cut" -eq 0
	read -r row_before col_before <<<"$(mark_at "$name" '◉')"
	check "$1×$2: the selected query's mark ◉ is in the plot (row $row_before)" "$row_before" -ge 4
	# Q[t3, d1] = 2: q_t3 = (2, 1) against k_t1 = (1, 0): 2 = √5 · 1 · cos 26.6°; its
	# weight is softmax((2, 1, 3) / √2)'s first.
	weight=$(awk 'BEGIN { r = sqrt(2); a = exp(2 / r); b = exp(1 / r); c = exp(3 / r); printf "%.2f", a / (a + b + c) }')
	keys "$name" 2 Enter
	expect "$name" "q_t3 · k_t1 = 2\\.00 = \\|q\\| \\|k\\| cos 26\\.6°; weight ${weight//./\\.}" \
		"$1×$2: Q[t3,d1] = 2 rewrites the sentence: 2.00 = |q| |k| cos 26.6°, weight $weight"
	settle "$name"
	read -r row_after col_after <<<"$(mark_at "$name" '◉')"
	check "$1×$2: the edit moves q_t3's mark right (column $col_before → $col_after)" "$col_after" -gt "$col_before"
	keys "$name" s
	expect "$name" 'k_t3 +3\.00 +3\.00 ' "$1×$2: s drops the scale: k_t3's scaled score is its dot product"
	keys "$name" Escape
	expect_not "$name" 'geometry · q · k' "$1×$2: Esc closes the view"
	stop "$name"
done

# Without colour the marks tell queries from keys; in ASCII too.
start mono 83 22 NO_COLOR=1 TERM=xterm "$QKV"
expect mono 'Three tokens' "NO_COLOR, xterm: drawn"
keys mono G Down Down
expect mono '◉ q_t3' "NO_COLOR: the selected query has its mark"
expect mono '◇ k_t1' "NO_COLOR: a key of weight 0.25 has the middle mark"
stop mono
start ascii 83 22 QKV_ASCII=1 "$QKV"
expect ascii 'Three tokens' "ASCII: drawn"
keys ascii G Down Down
expect ascii '\* query +@ selected +key by weight: # >= 0\.3 \+ >= 0\.1 \. less' "ASCII: the legend's marks are ASCII"
expect ascii 'q_t3 \. k_t1 = 1\.00 = \|q\| \|k\| cos 45 deg; weight 0\.25' "ASCII: the sentence is spelled in ASCII"
nonascii=$(screen ascii | grep -cP '[^\x00-\x7f]')
check "ASCII: nothing on screen is outside ASCII ($nonascii lines)" "$nonascii" -eq 0
stop ascii

# The smallest screen qkv takes: the view and its words whole.
start small 60 18 "$QKV"
expect small 'Three tokens' "60×18: drawn"
keys small G Down Down
expect small 'q_t3 · k_t1 = 1\.00 = \|q\| \|k\| cos 45°; weight 0\.25' "60×18: the sentence is whole"
expect small 'k_t3 +2\.00' "60×18: the table is beside the plot"
settle small
cut=$(screen small | grep -c '…$')
check "60×18: no line is cut with …" "$cut" -eq 0
stop small

# A random d_k = 64 problem: its principal plane and the share of the spread it holds.
start pca 120 40 "$QKV" --random --tokens 16 --dk 64 --seed 3
expect pca 'seed 3' "d_k 64: drawn"
keys pca G
expect pca 'this plane holds [0-9]+% of the spread; dot products are exact only in d_k = 64 dimensions' \
	"d_k 64: the plane is principal, its share stated"
expect pca '↑ PC2' "d_k 64: the axes are the principal components"
expect pca 'q_t1 · k_t1 = -?[0-9]+\.[0-9]+ [=≈] \|q\| \|k\| cos [0-9.]+°' "d_k 64: the exact dot product in words"
stop pca
# The geometry lesson's last step says this plane holds 24% of the spread.
start pca8 83 22 "$QKV" --random --tokens 8 --dk 64 --seed 3
expect pca8 'seed 3' "8 tokens, d_k 64: drawn"
keys pca8 G
expect pca8 'this plane holds 24% of the spread' "8 tokens, d_k 64, seed 3: the plane holds 24%, as the lesson says"
# More keys than the table has rows: the heaviest are listed, and the last line's
# bound holds for every key left out (its weights read from the printed CSV).
start many 83 22 "$QKV" --random --tokens 16 --dk 64 --seed 3
expect many 'seed 3' "16 tokens at 83×22: drawn"
keys many G
expect many '[0-9]+ more, each weight ≤ [0-9.]+' "16 keys at 83×22: the table ends with the keys left out"
settle many
listed=$(screen many | grep -oE '[◆◇·] k_t[0-9]+ ' | grep -oE 't[0-9]+' | sort -u | tr '\n' ' ') # (the sentence's key is listed too)
read -r more bound <<<"$(screen many | sed -n 's/.* \([0-9]*\) more, each weight ≤ \([0-9.]*\).*/\1 \2/p')"
count=$(echo "$listed" | wc -w)
check "16 keys: $count listed and $more more make 16" "$((count + more))" -eq 16
worst=$("$QKV" --random --tokens 16 --dk 64 --seed 3 --format csv --stage 3 | awk -F, -v listed=" $listed" '
	$1 == "weights" && $2 == "t1" && index(listed, " " $3 " ") == 0 && $6 > m { m = $6 } END { print m + 0 }')
check "16 keys: every key left out weighs at most $bound (the largest: $worst)" \
	"$(awk -v w="$worst" -v b="$bound" 'BEGIN { print (w <= b) }')" = 1
stop many
finish
