#!/usr/bin/env bash
# test_terminal.sh — qkv and the terminal it runs in: a too-small window gets one
# sentence (and the size it names is enough), NO_COLOR means no colour escapes and
# shading glyphs instead, TERM=dumb and a non-terminal stdout are refused with a
# sentence and status 2, signals end it with the terminal restored (alternate
# screen off, the shell's text visible), Ctrl-Z suspends and fg redraws, and an
# unknown --palette is refused. It must never signal any process but the qkv it started.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"


# Colour parameters of SGR sequences in text: 30–37, 40–47, 90–97, 100–107 and
# 38;… / 48;… (256 and direct colour); 39 and 49 (the default colours) are not colour.
colour_sgr() {
	grep -o $'\e\\[[0-9;]*m' | tr -d '\033[m' | tr ';' '\n' |
		grep -cE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$'
}

# alternate NAME: 1 while the pane shows the alternate screen, else 0.
alternate() {
	e2e_tmux display -p -t "$1" '#{alternate_on}'
}

# nonblank NAME: the lines of the screen with something on them.
nonblank() {
	screen "$1" | grep -v '^[[:space:]]*$'
}

# written NAME: what a command that has ended wrote, history included (tmux scrolls
# the screen by a line to say the pane is dead), without tmux's own line.
written() {
	e2e_tmux capture-pane -p -S - -t "$1" | grep -v '^[[:space:]]*$' | grep -v '^Pane is dead'
}

# --- too small, and back -----------------------------------------------------------
start small 80 24 "$QKV"
expect small 'weights  softmax rows' "80×24 shows the full screen"
resize small 40 10
expect small 'qkv needs a terminal of at least' "40×10 shows the too-small sentence"
settle small
lines=$(nonblank small | wc -l)
check "40×10: the sentence is all there is ($lines lines)" "$lines" -eq 1
E2E_TIMEOUT=1 expect small 'qkv needs a terminal of at least [0-9]+×[0-9]+.*\.$' \
	"40×10: the sentence is whole (ends with a full stop)"
need=$(screen small | sed -n 's/.*at least \([0-9]*\)×\([0-9]*\).*/\1 \2/p' | head -n 1)
need_w=${need% *} need_h=${need#* }
if [ -n "$need" ] && { [ "$need_w" -gt 40 ] || [ "$need_h" -gt 10 ]; }; then
	pass "the size it asks for ($need_w×$need_h) is larger than 40×10"
else
	fail "the size it asks for (${need:-none}) is larger than 40×10"
fi
if [ -n "$need" ]; then
	resize small "$need_w" "$need_h"
	expect small 'weights' "at the size it asked for ($need_w×$need_h) the grids are drawn"
	expect_not small 'needs a terminal' "at $need_w×$need_h the sentence is gone"
	resize small $((need_w - 1)) "$need_h"
	expect small 'needs a terminal' "one column fewer brings the sentence back"
	resize small "$need_w" $((need_h - 1))
	expect small 'needs a terminal' "one line fewer brings the sentence back"
fi
resize small 80 24
expect small 'Q  queries' "back at 80×24 the Q grid returns"
expect small 'weights  softmax rows' "back at 80×24 the weights return"
expect small 'output  O = A V' "back at 80×24 the output returns"
expect_not small 'needs a terminal' "back at 80×24 the sentence is gone"
keys small q
expect_exit small 0 "q quits with status 0 after the resizes"

# --- colour and NO_COLOR -----------------------------------------------------------
# The three start together (so their start-ups overlap) and are read in turn.
start colour 80 24 "$QKV"
start xterm8 80 24 TERM=xterm "$QKV"
start mono 80 24 NO_COLOR=1 "$QKV"
expect colour 'weights  softmax rows' "with colour: the screen is drawn"
settle colour
n=$(screen_color colour | colour_sgr)
check "with colour: colour escapes are present ($n), so the NO_COLOR check can fail" "$n" -gt 0
keys colour q
expect_exit colour 0 "with colour: q quits"

# TERM=xterm has 8 colours: colour, but never a 256-colour sequence.
expect xterm8 'weights  softmax rows' "TERM=xterm: the screen is drawn"
settle xterm8
n=$(screen_color xterm8 | colour_sgr)
check "TERM=xterm: colours are used ($n)" "$n" -gt 0
n=$(screen_color xterm8 | grep -c '38;5\|48;5')
check "TERM=xterm: no 256-colour sequences ($n lines)" "$n" -eq 0
keys xterm8 q
expect_exit xterm8 0 "TERM=xterm: q quits"

expect mono 'weights  softmax rows' "NO_COLOR: the screen is drawn"
settle mono
n=$(screen_color mono | colour_sgr)
check "NO_COLOR: no colour escapes at all ($n found)" "$n" -eq 0
n=$(screen_color mono | grep -c '38;5\|48;5')
check "NO_COLOR: no 38;5 or 48;5 sequences ($n lines)" "$n" -eq 0
expect mono '(^| )t1 +0\.40[·░▒▓█] +0\.20[·░▒▓█] +0\.40[·░▒▓█]' "NO_COLOR: the weights carry shading glyphs"
keys mono q
expect_exit mono 0 "NO_COLOR: q quits"

# --- refusals ----------------------------------------------------------------------
# 200 columns, so that the sentence is not wrapped by the terminal.
start dumb 200 24 TERM=dumb "$QKV"
expect_exit dumb 2 "TERM=dumb: exit status 2"
said=$(written dumb | grep -c '^qkv: .*TERM.*--print')
check "TERM=dumb: a sentence about TERM that points to --print" "$said" -eq 1
lines=$(written dumb | wc -l)
check "TERM=dumb: one line and no drawing ($lines lines)" "$lines" -eq 1

start unknown 200 24 TERM=no-such-terminal "$QKV"
expect_exit unknown 2 "TERM unknown to terminfo: exit status 2"
said=$(written unknown | grep -c "^qkv: .*no-such-terminal.*--print")
check "TERM unknown: one sentence naming it and pointing to --print" "$said" -eq 1
lines=$(written unknown | wc -l)
check "TERM unknown: one line and no drawing ($lines lines)" "$lines" -eq 1

# A TERM holding an escape sequence (it would set the window title) is quoted
# escaped, \x1b and \x07 as text, never sent to the terminal.
start evil 200 24 sh -c "TERM=\$(printf 'x\\033]0;owned\\007') $(printf '%q' "$QKV") 2>$(printf '%q' "$E2E_DIR/evil.err")"
expect_exit evil 2 "TERM with an escape sequence: exit status 2"
grep -q -F "qkv: the terminal type 'x\\x1b]0;owned\\x07' is unknown to terminfo" "$E2E_DIR/evil.err"
found=$?
check "TERM with an escape sequence: quoted as \\x1b ... \\x07" "$found" -eq 0
check "and no control byte reaches stderr" "$(tr -d '\n -~' <"$E2E_DIR/evil.err" | wc -c)" -eq 0

# A terminal larger than curses draws: said so, not "unknown to terminfo". On a
# pty of script(1), whose size nobody sets back (tmux would restore its pane's).
# Without meson's MALLOC_PERTURB_: curses allocates its screens before it gives up,
# and glibc would fill those gigabytes with the perturbation byte (some 25 s, where a
# person's qkv touches none of them and ends at once).
if command -v script >/dev/null; then
	env -u MALLOC_PERTURB_ timeout 20 script -qec "stty rows 40000 cols 40000; $(printf '%q' "$QKV") 2>$(printf '%q' "$E2E_DIR/huge.err")" \
		/dev/null </dev/null >/dev/null
	check "a 40000 × 40000 terminal: exit status 2" $? -eq 2
	grep -q '^qkv: the terminal is 40000 columns by 40000 rows, larger than curses draws' "$E2E_DIR/huge.err"
	found=$?
	check "a huge terminal is said to be too large: $(cat "$E2E_DIR/huge.err")" "$found" -eq 0
else
	printf 'ok %d - a huge terminal # SKIP script(1) is not installed\n' "$((E2E_COUNT += 1))"
fi

start unset 200 24 env -u TERM "$QKV"
expect_exit unset 2 "TERM unset: exit status 2"
said=$(written unset | grep -c '^qkv: TERM is not set.*--print')
check "TERM unset: one sentence that says so and points to --print" "$said" -eq 1

"$QKV" </dev/null 2>"$E2E_DIR/err" | cat >"$E2E_DIR/out"
status=${PIPESTATUS[0]}
check "stdout not a terminal: exit status 2 (got $status)" "$status" -eq 2
check "stdout not a terminal: one line on stderr" "$(wc -l <"$E2E_DIR/err")" -eq 1
said=$(grep -c -- '--print' "$E2E_DIR/err")
check "stdout not a terminal: the sentence points to --print" "$said" -eq 1
check "stdout not a terminal: nothing written to stdout" ! -s "$E2E_DIR/out"

start palette 200 24 "$QKV" --palette bogus
expect_exit palette 2 "--palette bogus: exit status 2"
said=$(written palette | grep -c '^qkv: .*bogus')
check "--palette bogus: a sentence names the bad palette" "$said" -eq 1

# --- signals -----------------------------------------------------------------------
# The inner sh writes its pid and becomes qkv; the outer sh then prints a line and
# waits for Enter, so the terminal can be read as the person sees it after qkv.
for sig in TERM INT HUP; do
	name=sig$sig
	pidfile=$E2E_DIR/$name.pid
	# shellcheck disable=SC2016 # expanded by the sh inside tmux
	start "$name" 80 24 sh -c 'sh -c "echo \$\$ >\"\$1\"; exec \"\$0\"" "$0" "$1"; s=$?; echo "back in the shell after qkv, status $s"; read -r _; exit $s' "$QKV" "$pidfile"
	expect "$name" 'weights  softmax rows' "SIG$sig: qkv is running"
	check "SIG$sig: the alternate screen is on while it runs" "$(alternate "$name")" = 1
	number=$(kill -l "$sig")
	pid=$(cat "$pidfile" 2>/dev/null)
	if [ -n "$pid" ] && kill -s "$sig" "$pid"; then
		expect "$name" "^back in the shell after qkv, status $((128 + number))\$" \
			"SIG$sig: qkv ends with status 128 + $number and the shell's text is visible"
		check "SIG$sig: the alternate screen is off afterwards" "$(alternate "$name")" = 0
		expect_not "$name" 'weights|softmax' "SIG$sig: nothing of the interface is left on the screen"
		keys "$name" Enter
		expect_exit "$name" $((128 + number)) "SIG$sig: the shell passes the status on"
	else
		fail "SIG$sig: the qkv process could be found"
	fi
	e2e_tmux kill-session -t "$name" >/dev/null 2>&1
done

# --- Hundreds of resizes in a row -------------------------------------------------
# A window dragged about sends a storm of SIGWINCH; qkv must keep up, stay whole and
# exit cleanly (under the sanitizer build a leak or overflow would fail the exit).
# The 300 sizes are set on the pane's terminal itself, 2 ms apart, and each reaches
# qkv as a SIGWINCH: tmux passes a pane's new size on at most every quarter second,
# so of 300 resize-window commands (some ten seconds of them) fewer than one in
# eight reached the program. Then tmux sets the pane's own size again.
start storm 80 24 "$QKV"
expect storm 'weights  softmax rows' "before the storm: the full screen"
storm_tty=$(e2e_tmux display -p -t storm '#{pane_tty}')
python3 - "$storm_tty" <<'STORM'
import fcntl, os, struct, sys, termios, time
terminal = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
for i in range(300):
    rows, cols = 8 + (i * 13) % 55, 30 + (i * 37) % 190
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    time.sleep(0.002)
os.close(terminal)
STORM
check "the storm: 300 sizes set on qkv's terminal" $? -eq 0
resize storm 100 30
expect storm 'weights  softmax rows' "after 300 resizes the full screen is back at 100×30"
expect storm 'Q  queries' "after 300 resizes the Q grid is drawn"
keys storm q
expect_exit storm 0 "after 300 resizes q quits with status 0"

# --- Ctrl-Z and fg from an interactive shell ----------------------------------------
start job 80 24 'PS1=prompt$ ' ENV= sh -i
expect job '^prompt\$' "an interactive sh shows its prompt"
keys job -l "$QKV"
keys job Enter
expect job 'weights  softmax rows' "qkv started from the shell"
keys job C-z
expect job 'Stopped' "Ctrl-Z suspends qkv (the shell says Stopped)"
expect job '^prompt\$ *$' "the shell prompt is back"
check "suspended: the alternate screen is off" "$(alternate job)" = 0
keys job -l fg
keys job Enter
expect job 'weights  softmax rows' "fg redraws the weights"
expect job 'Q  queries' "fg redraws the Q grid"
check "resumed: the alternate screen is on again" "$(alternate job)" = 1
keys job +
expect job '1\.10' "after fg keys still reach qkv (+ nudges Q[t1, d1] to 1.10)"
keys job q y
expect job '^prompt\$ *$' "q y quits back to the prompt"
check "after quitting: the alternate screen is off" "$(alternate job)" = 0
keys job -l exit
keys job Enter
expect_exit job 0 "the shell exits"
stop job
finish
