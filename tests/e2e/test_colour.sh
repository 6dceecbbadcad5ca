#!/usr/bin/env bash
# test_colour.sh — the colours a person sees, read from tmux's capture with
# escapes: 24-bit colour under COLORTERM=truecolor (the exact viridis colours,
# every number on a coloured cell at 4.5:1, 7:1 in projector mode, measured here
# with the WCAG formula), xterm-256 colours without it, --color, the eight-colour
# mode (0.40 and 0.50 apart, the sentence on how to get more), NO_COLOR, the
# selected cell (brackets, its heat colour kept, no reverse video) and `c`.
# It must never write a file.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# min_contrast: reads a capture with escapes and prints the least WCAG contrast
# of a digit drawn in a 24-bit foreground on a 24-bit background (99 when none).
min_contrast() {
	awk '
	function lin(c) { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ^ 2.4 }
	function lum(r, g, b) { return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b) }
	BEGIN { least = 99 }
	{
		fg = ""; bg = ""
		n = split($0, parts, "\033\\[")
		for (i = 1; i <= n; i++) {
			p = parts[i]
			if (i > 1) {
				k = index(p, "m"); sgr = substr(p, 1, k - 1); p = substr(p, k + 1)
				m = split(sgr, f, ";")
				for (j = 1; j <= m; j++) {
					if (f[j] == "0" || sgr == "") { fg = ""; bg = "" }
					else if (f[j] == "39") fg = ""
					else if (f[j] == "49") bg = ""
					else if ((f[j] == "38" || f[j] == "48") && f[j + 1] == "2") {
						v = f[j + 2] ";" f[j + 3] ";" f[j + 4]
						if (f[j] == "38") fg = v; else bg = v
						j += 4
					} else if ((f[j] == "38" || f[j] == "48") && f[j + 1] == "5") {
						if (f[j] == "38") fg = ""; else bg = ""
						j += 2
					}
				}
			}
			if (fg != "" && bg != "" && p ~ /[0-9]/) {
				split(fg, a, ";"); split(bg, b, ";")
				la = lum(a[1], a[2], a[3]); lb = lum(b[1], b[2], b[3])
				ratio = la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05)
				if (ratio < least) least = ratio
			}
		}
	}
	END { printf "%.2f\n", least }'
}

# weights_line NAME TOKEN: the weights grid's line for a token, with escapes (the
# second line that starts with the token: the first is Q's).
weights_line() {
	screen_color "$1" | awk -v token="$2" '{
		plain = $0
		gsub(/\033\[[0-9;]*m/, "", plain)
		if (plain ~ "^ *" token " +\\[?[0-9]" && ++seen == 2) print
	}'
}

# --- 24-bit colour ----------------------------------------------------------------
start tc 100 30 COLORTERM=truecolor "$QKV"
expect tc 'weights  softmax rows' "COLORTERM=truecolor: the screen is drawn"
settle tc
line=$(weights_line tc t1)
# viridis at 0.4 (step 2 of 6: 0.40 lies in [2/6, 3/6)) is #2a788e: 42, 120, 142.
case $line in
*'48;2;42;120;142m'*) pass "truecolor: the 0.40 cell has viridis' exact #2a788e background" ;;
*) fail "truecolor: the 0.40 cell has viridis' exact #2a788e background"; diag "$line" ;;
esac
n=$(screen_color tc | grep -c '48;2;')
check "truecolor: 24-bit backgrounds on screen ($n lines)" "$n" -gt 3
least=$(screen_color tc | min_contrast)
check "truecolor: every number on a coloured cell at 4.5:1 or more (least $least)" \
	"$(awk -v x="$least" 'BEGIN { print (x >= 4.5 && x < 99) }')" -eq 1
# The selected cell: a frame in orange-red (xterm 202, #ff5f00)
# in the cell's blank first and last column, the number bold on its own heat
# colour, no reverse video; the text stays "0.40" for whoever reads it.
E=$'\e'
if printf '%s\n' "$line" | grep -qE "48;5;202m $E\\[1m$E\\[38;2;255;255;255m$E\\[48;2;42;120;142m *0\\.40 *$E\\[0m$E\\[38;5;202m$E\\[48;5;202m "; then
	pass "cursor: 0.40 framed in orange-red, bold on its own heat colour"
else
	fail "cursor: 0.40 framed in orange-red, bold on its own heat colour"; diag "$line"
fi
n=$(printf '%s\n' "$line" | grep -cE "$E\\[([0-9;]*;)?7(;[0-9;]*)?m *0\\.40")
check "cursor: the selected weight is not in reverse video" "$n" -eq 0
expect tc '(^| )t1 +0\.40 +0\.20 +0\.40 ' "cursor: the selected row reads 0.40 0.20 0.40 as text"
# Equal numbers, equal colours: t2 reads 0.40 0.40 on one background.
line=$(weights_line tc t2)
n=$(printf '%s\n' "$line" | grep -cE '48;2;42;120;142m *0\.40 +0\.40 ')
check "truecolor: the two 0.40 of row t2 share one colour" "$n" -eq 1
# A moved value keeps its heat colour, bold, framed in magenta (xterm 163).
keys tc 3 Enter
expect tc '(^| )t1 +0\.47 +0\.06 +0\.47 ' "Q[t1,d1] = 3 gives weights 0.47 0.06 0.47"
settle tc
line=$(weights_line tc t1)
if printf '%s\n' "$line" | grep -qE "48;5;163m +$E\\[1m$E\\[38;2;255;255;255m$E\\[48;2;42;120;142m *0\\.47"; then
	pass "moved: 0.47 bold on its heat colour in a magenta frame"
else
	fail "moved: 0.47 bold on its heat colour in a magenta frame"; diag "$line"
fi
keys tc u
expect tc '(^| )t1 +0\.40 +0\.20 +0\.40 ' "u: back to 0.40 0.20 0.40"
# Projector mode: two decimals, and 7:1 for every number on a colour.
keys tc P
expect tc 'projector mode on' "P: projector mode on"
settle tc
expect tc '(^| )t3 +0\.25 +0\.25 +0\.50 ' "projector: weights keep two decimals (0.25 0.25 0.50 add up)"
least=$(screen_color tc | min_contrast)
check "projector: every number on a coloured cell at 7:1 or more (least $least)" \
	"$(awk -v x="$least" 'BEGIN { print (x >= 7 && x < 99) }')" -eq 1
keys tc c
expect tc 'palette: projector' "c names the palette it switched to"
keys tc c
expect tc 'palette: 8' "c again: palette 8"
keys tc q
wait_for tc 'Quit anyway' 1 && keys tc y
expect_exit tc 0 "truecolor: q quits"

# bg_cells: reads a capture with escapes and prints one line per cell, "row col
# background" (the background as the SGR parameters that set it, "-" for the
# terminal's own). UTF-8 continuation bytes do not start a cell.
bg_cells() {
	LC_ALL=C awk '{
		bg = "-"; col = 0; line = $0
		while (length(line) > 0) {
			if (substr(line, 1, 2) == "\033[") {
				k = index(line, "m"); sgr = substr(line, 3, k - 3); line = substr(line, k + 1)
				m = split(sgr, f, ";")
				if (m == 0) bg = "-"
				for (j = 1; j <= m; j++) {
					if (f[j] == "0" || f[j] == "") bg = "-"
					else if (f[j] == "49") bg = "-"
					else if (f[j] == "38" && f[j + 1] == "2") j += 4
					else if (f[j] == "38" && f[j + 1] == "5") j += 2
					else if (f[j] == "48" && f[j + 1] == "2") { bg = "rgb" f[j + 2] "," f[j + 3] "," f[j + 4]; j += 4 }
					else if (f[j] == "48" && f[j + 1] == "5") { bg = "idx" f[j + 2]; j += 2 }
					else if (f[j] + 0 >= 40 && f[j] + 0 <= 47) bg = "idx" (f[j] - 40)
				}
				continue
			}
			c = substr(line, 1, 1); line = substr(line, 2)
			if (c < "\200" || c > "\277") print NR, col++, bg
		}
	}'
}

# 24-bit colour stays right through ncurses' incremental updates: the same run
# of edits, nudges, stage steps and palette changes goes to a 24-bit and to a
# 256-colour session; cell by cell, every 24-bit background must stand for one
# xterm colour of the other (a stale 24-bit cell would break that), and every
# other cell must be the same in both.
start rnd 100 30 COLORTERM=truecolor "$QKV" --random --tokens 6 --dk 3 --seed 5
start r256 100 30 "$QKV" --color 256 --random --tokens 6 --dk 3 --seed 5
expect rnd 'weights  softmax rows' "random problem in 24-bit colour: the screen is drawn"
expect r256 'weights  softmax rows' "random problem in 256 colours: the screen is drawn"
for k in Right Down + + Tab Down - PPage NPage NPage Home 1 Enter R Right Down s t T m c P End u Left + c c c; do
	keys rnd "$k"
	keys r256 "$k"
done
settle rnd
settle r256
screen rnd >"$E2E_DIR/rnd.txt"
screen r256 >"$E2E_DIR/r256.txt"
check "same keys, same text in 24-bit and 256 colours" "$(cmp -s "$E2E_DIR/rnd.txt" "$E2E_DIR/r256.txt"; echo $?)" -eq 0
# The two sessions got each key at slightly different times, so a change mark may
# fade on one a moment before the other: the screens are compared until they agree
# (a stale 24-bit cell never would), for up to 10 s.
consistency() {
	screen_color rnd | bg_cells >"$E2E_DIR/rnd.cells"
	screen_color r256 | bg_cells >"$E2E_DIR/r256.cells"
	paste -d' ' "$E2E_DIR/rnd.cells" "$E2E_DIR/r256.cells" | awk '
	$3 ~ /^rgb/ { n24++; if (($3 in to) && to[$3] != $6) bad++; to[$3] = $6; if (($6 in from) && from[$6] != $3) bad++; from[$6] = $3; next }
	$3 != $6 { bad++ }
	END { print bad + 0, n24 + 0 }'
}
polls=$(e2e_polls 10)
for ((i = 0; i < polls; i++)); do
	bad=$(consistency)
	[ "${bad%% *}" -eq 0 ] && break
	e2e_sleep 0.05
done
check "24-bit colour after a run of changes: every cell consistent with the 256-colour screen (bad, 24-bit cells: $bad)" \
	"${bad%% *}" -eq 0
check "24-bit colour after a run of changes: 24-bit cells on screen (${bad##* })" "${bad##* }" -gt 20
for s in rnd r256; do
	keys $s q
	wait_for $s 'Quit anyway' 1 && keys $s y
	expect_exit $s 0 "$s: q quits"
done

# --color 256 wins over COLORTERM; no COLORTERM gives 256 colours.
start c256 100 30 COLORTERM=truecolor "$QKV" --color 256
expect c256 'weights  softmax rows' "--color 256: the screen is drawn"
settle c256
n=$(screen_color c256 | grep -c ';2;')
check "--color 256: no 24-bit colours ($n lines)" "$n" -eq 0
n=$(screen_color c256 | grep -c '48;5;')
check "--color 256: xterm-256 backgrounds ($n lines)" "$n" -gt 3
keys c256 q
expect_exit c256 0 "--color 256: q quits"

start plain 100 30 env -u COLORTERM "$QKV"
expect plain 'weights  softmax rows' "no COLORTERM: the screen is drawn"
settle plain
n=$(screen_color plain | grep -c '48;2;')
check "no COLORTERM: no 24-bit colours ($n lines)" "$n" -eq 0
keys plain q
expect_exit plain 0 "no COLORTERM: q quits"

# NO_COLOR wins over COLORTERM and --color.
start nc 100 30 COLORTERM=truecolor NO_COLOR=1 "$QKV" --color truecolor
expect nc 'weights  softmax rows' "NO_COLOR with --color truecolor: the screen is drawn"
settle nc
n=$(screen_color nc | grep -c '38;\|48;\|\[3[0-7]m\|\[4[0-7]m')
check "NO_COLOR wins: no colour at all ($n lines)" "$n" -eq 0
line=$(weights_line nc t1)
case $line in
*$'\e[7m \e[0;1;4m'*'0.40'*) pass "NO_COLOR: the selected weight framed in reverse video, itself bold and underlined" ;;
*) fail "NO_COLOR: the selected weight framed in reverse video, itself bold and underlined"; diag "$line" ;;
esac
# A moved value: Q[t1,d1] = 3 moves A[t1,t3] to 0.47, drawn bold in reverse video.
keys nc 3 Enter
expect nc '(^| )t1 +0\.47. +0\.06. +0\.47' "NO_COLOR: Q[t1,d1] = 3 gives weights 0.47 0.06 0.47"
settle nc
line=$(weights_line nc t1)
n=$(printf '%s\n' "$line" | grep -cE "7m($E\\[[0-9;]*m)* +$E\\[1m *0\\.47")
check "NO_COLOR: the moved weight 0.47 is bold in reverse video" "$n" -eq 1
keys nc q
wait_for nc 'Quit anyway' 1 && keys nc y
expect_exit nc 0 "NO_COLOR: q quits"

# A direct-colour terminfo entry (RGB, colors 2^24): ncurses itself writes the
# 24-bit colours, with no COLORTERM. The entry is compiled here with tic.
if command -v tic >/dev/null 2>&1; then
	cat >"$E2E_DIR/direct.src" <<'ENTRY'
qkv-direct|xterm-256color with direct colour (a test entry),
	colors#0x1000000, pairs#0x10000, RGB,
	setab=\E[%?%p1%{8}%<%t4%p1%d%e48\:2\:\:%p1%{65536}%/%d\:%p1%{256}%/%{255}%&%d\:%p1%{255}%&%d%;m,
	setaf=\E[%?%p1%{8}%<%t3%p1%d%e38\:2\:\:%p1%{65536}%/%d\:%p1%{256}%/%{255}%&%d\:%p1%{255}%&%d%;m,
	use=xterm-256color,
ENTRY
	if tic -x -o "$E2E_DIR/terminfo" "$E2E_DIR/direct.src" 2>/dev/null; then
		start direct 100 30 TERMINFO="$E2E_DIR/terminfo" TERM=qkv-direct env -u COLORTERM "$QKV"
		expect direct 'weights  softmax rows' "direct-colour terminfo: the screen is drawn"
		settle direct
		line=$(weights_line direct t1)
		if printf '%s\n' "$line" | grep -qE '48:2::42:120:142m *0\.40|48;2;42;120;142m *0\.40'; then
			pass "direct colour: the 0.40 cell on viridis' exact #2a788e"
		else
			fail "direct colour: the 0.40 cell on viridis' exact #2a788e"; diag "$line"
		fi
		keys direct q
		expect_exit direct 0 "direct colour: q quits"
	else
		printf 'ok %d - direct colour # SKIP tic failed\n' "$((E2E_COUNT += 1))"
	fi
else
	printf 'ok %d - direct colour # SKIP no tic\n' "$((E2E_COUNT += 1))"
fi

# --- eight colours -------------------------------------------------------------------
start e8 100 30 TERM=xterm "$QKV"
expect e8 'reports 8 colours.*TERM=xterm-256color' "TERM=xterm: one sentence on 8 colours and how to get more"
settle e8
line=$(weights_line e8 t3)
# 0.40 and 0.50 never look the same: t2's 0.40 and t3's 0.50 differ in glyph and colour.
expect e8 '(^| )t3 +0\.25[·░▒▓█] +0\.25[·░▒▓█] +0\.50▒' "8 colours: 0.50 carries ▒"
expect e8 '(^| )t2 +0\.20[·░▒▓█] +0\.40░ ' "8 colours: 0.40 carries ░"
bg40=$(weights_line e8 t2 | grep -oE $'\e\\[4[0-7]m *0\\.40' | head -1 | grep -o '4[0-7]m')
bg50=$(printf '%s\n' "$line" | grep -oE $'\e\\[4[0-7]m *0\\.50' | head -1 | grep -o '4[0-7]m')
check "8 colours: 0.40 ($bg40) and 0.50 ($bg50) on different colours" "$bg40" != "$bg50"
n=$(screen_color e8 | grep -c '38;5\|48;5\|;2;')
check "8 colours: no 256- or 24-bit sequences ($n lines)" "$n" -eq 0
n=$(screen_color e8 | grep -c $'\e\\[1m\e\\[30m\\|\e\\[1;30m\\|\e\\[30;1m')
check "8 colours: no bold black text, which terminals draw grey ($n lines)" "$n" -eq 0
# Projector mode makes text bold, but still never black text (the focused title
# stays black on cyan, not grey).
keys e8 P
expect e8 'projector mode on' "8 colours: P turns projector mode on"
settle e8
n=$(screen_color e8 | grep -cE "$E\\[([0-9;]*;)?1(;[0-9;]*)?m($E\\[[0-9;]*m)*$E\\[30m|$E\\[30m($E\\[[0-9;]*m)*$E\\[1m")
check "8 colours, projector: no bold black text ($n lines)" "$n" -eq 0
n=$(screen_color e8 | grep -c $'\e\\[30m\e\\[46m▶')
check "8 colours, projector: the focused title black on cyan" "$n" -eq 1
keys e8 q
expect_exit e8 0 "8 colours: q quits"

start bad 200 24 "$QKV" --color bogus
expect_exit bad 2 "--color bogus: exit status 2"

finish
