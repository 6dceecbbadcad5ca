#!/usr/bin/env bash
# test_locale.sh — qkv without a UTF-8 locale. With LANG and LC_* unset (or naming a
# locale that is not installed) it asks the terminal whether it shows UTF-8; tmux
# does, so qkv falls back to C.UTF-8 and draws as usual (a Latin-1 terminal is
# played in test_terminal_probe.py); when
# no UTF-8 locale can be had (QKV_ASCII, the same choice the program makes when
# no fallback exists) everything it draws is ASCII: sqrt(2), tau, sum, ||J||,
# + - | boxes, ASCII shades. Empty LC_ALL, LC_CTYPE and LANG count as unset.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

NO_LOCALE=(LC_ALL= LC_CTYPE= LANG=)

# ascii_only NAME MESSAGE: every character on the screen is printable ASCII.
ascii_only() {
	local bad
	settle "$1"
	bad=$(screen "$1" | LC_ALL=C grep -n '[^ -~]')
	if [ -z "$bad" ]; then
		pass "$2"
	else
		fail "$2"
		diag "lines with other bytes:" "$bad"
		e2e_dump "$1"
	fi
}

# --- no locale at all: the C.UTF-8 fallback --------------------------------------
start utf 80 24 "${NO_LOCALE[@]}" "$QKV"
expect utf '÷ √2 = 1\.414 +(· )?τ 1' "no locale: the title bar reads ÷ √2 and τ in UTF-8 (C.UTF-8 fallback)"
expect utf 'eff  ‖J‖' "no locale: the readout heading reads ‖J‖"
expect_not utf '~[A-Z@]|M-' "no locale: no bytes drawn as ~X or M- escapes"
keys utf '?'
expect utf '┌─ keys' "no locale: the help box is drawn with box lines"
keys utf Escape q
expect_exit utf 0 "no locale: q quits"
stop utf

start missing 80 24 LC_ALL= LC_CTYPE= LANG=xx_NO.UTF-8 "$QKV"
expect missing '÷ √2 = 1\.414' "LANG naming a locale that is not installed: UTF-8 through C.UTF-8"
keys missing q
expect_exit missing 0 "q quits"
stop missing

# --- no UTF-8 locale: ASCII -----------------------------------------------------------
start ascii 80 24 "${NO_LOCALE[@]}" QKV_ASCII=1 "$QKV"
expect ascii '/ sqrt\(2\) = 1\.414' "ASCII: the title bar reads / sqrt(2) = 1.414"
expect ascii '^ ?> Q  queries' "ASCII: the focus mark is >"
expect ascii 'eff  \|\|J\|\|' "ASCII: the readout heading reads ||J||"
expect ascii 'softmax\(Q K\^T / sqrt\(d_k\)\) V' "ASCII: the formula reads softmax(Q K^T / sqrt(d_k)) V"
expect ascii "$(cells t1 '0.40 0.20 0.40')" "ASCII: weights row t1 is 0.40 0.20 0.40"
ascii_only ascii "ASCII: the first screen"
keys ascii 3 Enter
expect ascii 'Q\[t1, d1\]: 1 -> 3' "ASCII: the status line says Q[t1, d1]: 1 -> 3"
ascii_only ascii "ASCII: after an edit, with the moved values marked"
keys ascii u
expect ascii "$(cells t1 '0.40 0.20 0.40')" "ASCII: u undoes the edit"
keys ascii '?'
expect ascii '^ *\+- keys \. page 1 of 2 \. PgDn more \. any other key closes -+\+$' \
	"ASCII: the help box's top is + and -, and says its page"
expect ascii '^ *\| PgDn Space n' "ASCII: the help box's sides are |"
ascii_only ascii "ASCII: the help"
keys ascii NPage
expect ascii '^ *\+- keys \. page 2 of 2 \. PgUp back \. any other key closes -+\+$' "ASCII: PgDn turns the help's page"
expect ascii ' S: -> <- l h  trials x 2 / / 2 ' "ASCII: a name drawn wider in ASCII keeps its note in the note's column"
expect ascii 's t T +scale on/off, tau -/\+ .*\|$' "ASCII: the help's temperature line fits inside its box"
ascii_only ascii "ASCII: the help's second page"
keys ascii Escape NPage
expect ascii 'stage 1 of 5' "ASCII: PageDown walks to stage 1"
keys ascii NPage NPage
expect ascii 'stage 3 of 5' "ASCII: two more PageDowns reach stage 3"
expect ascii 'A\[t1,t1\] = e\^\(S. - max\) / sum e\^\(S. - max\)' "ASCII: the derivation reads sum and -"
ascii_only ascii "ASCII: stage 3 with its derivation"
keys ascii Home S
expect ascii '\* scaled \(/sqrt\(d_k\)\)    x unscaled    : the problem' \
	"ASCII: the saturation keys are *, x and :, each whole"
expect ascii '\*\.\.\*' "ASCII: the scaled curve's points are * as the legend says"
ascii_only ascii "ASCII: the saturation charts"
keys ascii S D
expect ascii 'the weights in words' "ASCII: D opens the words"
ascii_only ascii "ASCII: the weights in words"
keys ascii Escape W
expect ascii ' sum(row)? ' "ASCII: the wrong-way sums are headed sumrow (sum where the cells are narrow)"
ascii_only ascii "ASCII: a wrong-way demo"
keys ascii W W q
expect_exit ascii 0 "ASCII: q quits"
stop ascii

# A title too long for the bar keeps its first whole words and ends in "...".
cat >"$E2E_DIR/long-title.json" <<'JSON'
{"title": "A title far too long for the title bar of an eighty-column terminal, by design",
 "Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]}
JSON
start longtitle 80 24 "${NO_LOCALE[@]}" QKV_ASCII=1 "$QKV" "$E2E_DIR/long-title.json"
expect longtitle '^ ?A title far too long[a-z ,-]* \.\.\. +n 2 ' "ASCII: a title cut at 80 columns ends in ... after a whole word"
ascii_only longtitle "ASCII: the cut title"
stop longtitle

# Without colour: the shades beside the weights are ASCII too, never - + . or a digit.
start mono 80 24 "${NO_LOCALE[@]}" QKV_ASCII=1 NO_COLOR=1 "$QKV"
expect mono '(^| )t1 +0\.40[=] +0\.20[:] +0\.40[=]( |$)' "ASCII, no colour: row t1 reads 0.40= 0.20: 0.40="
expect mono '(^| )t3 +0\.25[:] +0\.25[:] +0\.50[#]( |$)' "ASCII, no colour: row t3 reads 0.25: 0.25: 0.50 and a hash"
ascii_only mono "ASCII, no colour: the first screen"
keys mono q
expect_exit mono 0 "q quits"
stop mono

# The cost view: n^2, the chart's marks and its legend in the same ASCII.
start cost 120 40 "${NO_LOCALE[@]}" QKV_ASCII=1 "$QKV"
expect cost 'tau 1' "ASCII at 120x40"
keys cost C
expect cost "flops: 2n\\^2d_k" "ASCII: the cost view writes n^2"
expect cost 'bytes( held, log-log)?: \* standard x online' "ASCII: the memory chart's legend names its marks * and x"
ascii_only cost "ASCII: the cost view with its charts"
keys cost C q
expect_exit cost 0 "q quits"
stop cost

# A multi-head problem: the head tags, the small multiples, the heads compared, the
# cost and wrong-way lines, and stages 6 and 7 with their derivations, all in ASCII.
start heads 100 30 "${NO_LOCALE[@]}" QKV_ASCII=1 "$QKV" "$QKV_SOURCE_ROOT/samples/heads-three-ways.json"
expect heads '^ *> X  inputs .* h1 W_Q' "ASCII heads: the inputs carry the tag h1"
expect heads 'h1 weights .* h2 weights .* h3 weights' "ASCII heads: the small multiples are tagged h1 h2 h3"
ascii_only heads "ASCII heads: live at 80x24"
keys heads H
expect heads 'head 2 of 3: mean weight on the previous token' "ASCII heads: H selects head 2"
ascii_only heads "ASCII heads: head 2 selected"
keys heads NPage NPage NPage NPage NPage NPage NPage
expect heads 'stage 6 of 7 \. concat: +Concat = \[head 1 \.\.\. head 3\]' "ASCII heads: stage 6's formula reads [head 1 ... head 3]"
ascii_only heads "ASCII heads: stage 6 at 80x24"
keys heads NPage
expect heads 'Concat \. W_O = sum_i head_i \. W_O\(i\)' "ASCII heads: stage 7's formula reads sum_i head_i"
expect heads 'out\[the, d1\] = sum_k concat' "ASCII heads: stage 7's derivation reads sum_k"
ascii_only heads "ASCII heads: stage 7 at 80x24"
resize heads 200 60
expect heads 'Concat \. W_O = sum_i head_i' "ASCII heads: stage 7 at 200x60"
ascii_only heads "ASCII heads: stage 7 at 200x60"
keys heads Home BTab
expect heads 'heads compared' "ASCII heads: live at 200x60 compares the heads"
expect heads 'cost: n\^2\.h = 48 scores a layer' "ASCII heads: the cost line reads n^2.h"
ascii_only heads "ASCII heads: live at 200x60"
keys heads q
expect_exit heads 0 "q quits"
stop heads

start heads_mono 80 24 "${NO_LOCALE[@]}" QKV_ASCII=1 NO_COLOR=1 "$QKV" "$QKV_SOURCE_ROOT/samples/heads-content.json"
expect heads_mono 'h1 weights .* h2 weights .* h3 weights' "ASCII heads, no colour: the small multiples"
ascii_only heads_mono "ASCII heads, no colour: live"
keys heads_mono NPage NPage NPage NPage NPage NPage NPage NPage
expect heads_mono 'stage 7 of 7' "ASCII heads, no colour: stage 7"
ascii_only heads_mono "ASCII heads, no colour: stage 7"
keys heads_mono q
expect_exit heads_mono 0 "q quits"
stop heads_mono

# A heatmap too large for numbers: colour cells, one row a line (no half blocks).
start big 80 24 "${NO_LOCALE[@]}" QKV_ASCII=1 "$QKV" --random --tokens 40 --dk 4
expect big 'weights  softmax rows  40x40' "ASCII: a 40-token heatmap is shown, its size written 40x40"
ascii_only big "ASCII: the compact heatmap"
keys big q
expect_exit big 0 "q quits"
stop big

finish
