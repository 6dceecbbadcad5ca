#!/usr/bin/env bash
# test_signals.sh — every way out of qkv restores the terminal and loses no work:
# signals whose default would kill it (QUIT, USR1, ALRM, PIPE, TERM, HUP), Ctrl-\ and
# Ctrl-C as keys (Ctrl-C asks like q when there are unsaved changes), Ctrl-S never
# freezes the screen, pasted text never runs commands (bracketed paste), SIGTERM,
# SIGHUP and a terminal that disappears without SIGHUP (qkv under setsid) write a
# recovery copy of unsaved changes, say so, and the next open offers it.
# (Signals during a long computation, which are timed, are test_busy.sh's: it runs
# alone.) It must never signal any process but the qkv it started.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

alternate() {
	e2e_tmux display -p -t "$1" '#{alternate_on}'
}

# The modes qkv turns on must be off once it has ended: cursor visible, no mouse
# reports, no bracketed paste, the primary screen.
modes_off() {
	local name=$1 what=$2
	check "$what: the alternate screen is off" "$(alternate "$name")" = 0
	check "$what: the cursor is visible" "$(e2e_tmux display -p -t "$name" '#{cursor_flag}')" = 1
	check "$what: no mouse reports" "$(e2e_tmux display -p -t "$name" '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}')" = 000
}

# Echo (stty) must be back: what is typed after qkv shows in the shell.
echo_back() {
	local name=$1 what=$2
	keys "$name" -l 'typed-after'
	expect "$name" 'typed-after' "$what: the terminal echoes again"
}

work=$E2E_DIR/work
mkdir -p "$work"
file=$work/three.json
cp "$QKV_SOURCE_ROOT/samples/worked-example.json" "$file"
export XDG_STATE_HOME=$work/state

# run NAME FILE: qkv FILE in a shell that records its pid, its stderr and its status
# and then waits for a line, so the screen after qkv can be read.
run() {
	local name=$1
	shift
	rm -f "$E2E_DIR/$name.pid" "$E2E_DIR/$name.err"
	# shellcheck disable=SC2016 # expanded by the sh inside tmux
	start "$name" 100 30 XDG_STATE_HOME="$XDG_STATE_HOME" sh -c 'sh -c "echo \$\$ >\"\$1\"; exec \"\$0\" \"\$2\"" "$0" "$1" "$2" 2>"$3"; s=$?; echo "back in the shell, status $s"; read -r _; exit $s' "$QKV" "$E2E_DIR/$name.pid" "$@" "$E2E_DIR/$name.err"
	expect "$name" 'weights  softmax rows' "$name: qkv is running"
}

# --- signals with a default that kills: the terminal always comes back ----------
for sig in QUIT USR1 ALRM PIPE; do
	name=sig$sig
	run "$name" "$file"
	pid=$(cat "$E2E_DIR/$name.pid" 2>/dev/null)
	if [ -z "$pid" ] || ! kill -s "$sig" "$pid"; then
		fail "SIG$sig: the qkv process could be found"
		continue
	fi
	if [ "$sig" = QUIT ]; then
		expect "$name" "^back in the shell, status $((128 + $(kill -l QUIT)))\$" \
			"SIGQUIT ends qkv with status 131"
		modes_off "$name" "after SIGQUIT"
		echo_back "$name" "after SIGQUIT"
	else
		settle "$name"
		check "SIG$sig is ignored: qkv still runs" "$(alternate "$name")" = 1
		keys "$name" +
		expect "$name" '1 → 1\.1' "SIG$sig is ignored: keys still work"
		keys "$name" q y
		expect "$name" '^back in the shell, status 0$' "after SIG$sig q y quits with status 0"
		modes_off "$name" "after SIG$sig and q"
	fi
	e2e_tmux kill-session -t "$name" >/dev/null 2>&1
done

# --- Ctrl-\ and Ctrl-C are keys: q's question when there are unsaved changes -----
run keysq "$file"
keys keysq 'C-\'
expect keysq '^back in the shell, status 0$' "Ctrl-\\ with nothing unsaved quits like q (status 0)"
modes_off keysq "after Ctrl-\\"
echo_back keysq "after Ctrl-\\"
e2e_tmux kill-session -t keysq >/dev/null 2>&1

run ctrlc "$file"
keys ctrlc +
expect ctrlc '1 → 1\.1' "Ctrl-C: an unsaved edit first"
keys ctrlc C-c
expect ctrlc 'Unsaved changes\. Quit anyway\? y / n' "Ctrl-C with unsaved changes asks, like q"
check "Ctrl-C with unsaved changes: qkv still runs" "$(alternate ctrlc)" = 1
keys ctrlc n
expect ctrlc 'not quitting' "n: qkv stays, the edit kept"
expect ctrlc '1\.10' "the edited value is still there"
keys ctrlc C-c
expect ctrlc 'Quit anyway' "Ctrl-C asks again"
keys ctrlc y
expect ctrlc '^back in the shell, status 0$' "y quits with status 0"
cmp -s "$file" "$QKV_SOURCE_ROOT/samples/worked-example.json"
check "quitting without saving leaves the file as it was" $? -eq 0
e2e_tmux kill-session -t ctrlc >/dev/null 2>&1

run ctrlc0 "$file"
keys ctrlc0 C-c
expect ctrlc0 '^back in the shell, status 0$' "Ctrl-C with nothing unsaved quits at once, status 0"
modes_off ctrlc0 "after Ctrl-C"
e2e_tmux kill-session -t ctrlc0 >/dev/null 2>&1

# --- Ctrl-S does not freeze the screen -------------------------------------------
run ctrls "$file"
keys ctrls C-s
expect ctrls 'Ctrl-S does nothing here: w saves' "Ctrl-S reaches qkv as a key and says w saves"
keys ctrls +
expect ctrls '1 → 1\.1' "after Ctrl-S the screen still follows the keys (no XOFF)"
keys ctrls q y
expect ctrls 'status 0$' "q y quits after Ctrl-S"
e2e_tmux kill-session -t ctrls >/dev/null 2>&1

# --- SIGSTOP from outside, then SIGCONT: the program's modes back, a repaint -------
run sigcont "$file"
pid=$(cat "$E2E_DIR/sigcont.pid" 2>/dev/null)
tty=$(e2e_tmux display -p -t sigcont '#{pane_tty}')
if [ -n "$pid" ] && kill -s STOP "$pid"; then
	for _ in $(seq 1 100); do
		case $(ps -o stat= -p "$pid") in T*) break ;; esac
		e2e_sleep 0.02
	done
	# What a shell does to the terminal while qkv is stopped: its own modes back
	# (cooked, echoing), and its own text over the screen.
	stty -F "$tty" sane
	printf '\033[2J\033[Hwritten-while-stopped\n' >"$tty"
	expect sigcont 'written-while-stopped' "SIGSTOP: the screen is written over while qkv is stopped"
	kill -s CONT "$pid"
	expect_not sigcont 'written-while-stopped' "SIGCONT: qkv repaints the screen"
	expect sigcont 'weights  softmax rows' "SIGCONT: the grids are back"
	# Once the repaint is seen, the modes were set before it.
	modes=$(stty -F "$tty" -a | tr ' ;' '\n\n')
	check "SIGCONT: the terminal is in qkv's modes again (-icanon, -echo)" \
		"$(printf '%s\n' "$modes" | grep -cxE -- '-icanon|-echo')" = 2
	keys sigcont +
	expect sigcont '1 → 1\.1' "SIGCONT: a key works at once (not held for a line)"
	keys sigcont q y
	expect sigcont '^back in the shell, status 0$' "q y quits after SIGCONT"
else
	fail "SIGCONT: the qkv process could be found and stopped"
fi
e2e_tmux kill-session -t sigcont >/dev/null 2>&1

# --- bracketed paste: pasted text is never a command -------------------------------
run paste "$file"
e2e_tmux set-buffer -b qkvpaste 'hello world, the answer is 42 rw oxq'
e2e_tmux paste-buffer -p -b qkvpaste -t paste
expect paste 'pasted text is not a command' "a paste outside a cell edit is refused with a sentence"
expect paste '^ +t1 +1\.00 +0\.00 ' "the paste changed no value (Q[t1] is 1, 0)"
expect_not paste 'saved to|token added|random' "the paste ran no command (no save, no token, no draw)"
cmp -s "$file" "$QKV_SOURCE_ROOT/samples/worked-example.json"
check "the file was not saved by the paste's w" $? -eq 0
keys paste Enter C-u
e2e_tmux set-buffer -b qkvpaste '2.5'
e2e_tmux paste-buffer -p -b qkvpaste -t paste
expect paste 'editing Q' "Enter starts a cell edit"
keys paste Enter
expect paste '1 → 2\.5' "a paste into a cell edit is its text: Q[t1, d1] = 2.5"
e2e_tmux set-buffer -b qkvpaste 'wy'
e2e_tmux paste-buffer -p -b qkvpaste -t paste
keys paste q
expect paste 'Quit anyway' "q asks (unsaved changes)"
e2e_tmux set-buffer -b qkvpaste 'y'
e2e_tmux paste-buffer -p -b qkvpaste -t paste
settle paste
check "a pasted y does not answer the question" "$(alternate paste)" = 1
keys paste n w
expect paste 'saved to' "a typed w saves"
keys paste q
expect paste 'status 0$' "then q quits"
cp "$QKV_SOURCE_ROOT/samples/worked-example.json" "$file"
e2e_tmux kill-session -t paste >/dev/null 2>&1

# --- SIGTERM and SIGHUP: unsaved changes kept, offered on the next open -------------
# The copy goes only into the private state folder, never beside the file: a link
# planted there by someone else (the name the copy once had) is not followed.
copies() {
	find "$XDG_STATE_HOME/qkv" -name 'three.json-*.recovery' 2>/dev/null | wc -l
}
victim=$work/victim
ln -s "$victim" "$file.recovery"
for sig in TERM HUP; do
	name=keep$sig
	rm -rf "$XDG_STATE_HOME/qkv"
	run "$name" "$file"
	keys "$name" +
	expect "$name" '1 → 1\.1' "SIG$sig: an unsaved edit first"
	pid=$(cat "$E2E_DIR/$name.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -s "$sig" "$pid"
	expect "$name" "^back in the shell, status $((128 + $(kill -l "$sig")))\$" "SIG$sig ends qkv with status 128 + $(kill -l "$sig")"
	modes_off "$name" "after SIG$sig"
	check "SIG$sig: one recovery copy in the private state folder" "$(copies)" -eq 1
	check "SIG$sig: the link planted beside the file is not followed" ! -e "$victim"
	mode=$(find "$XDG_STATE_HOME/qkv" -name 'three.json-*.recovery' -perm 600 | wc -l)
	check "SIG$sig: the copy is readable by its owner only (0600)" "$mode" -eq 1
	said=$(grep -c "^qkv: the unsaved changes to .*three\.json are kept in $XDG_STATE_HOME/qkv/three\.json-.*\.recovery" "$E2E_DIR/$name.err")
	check "SIG$sig: stderr says where the changes are" "$said" -eq 1
	cmp -s "$file" "$QKV_SOURCE_ROOT/samples/worked-example.json"
	check "SIG$sig: the file itself is untouched" $? -eq 0
	e2e_tmux kill-session -t "$name" >/dev/null 2>&1
done
rm -f "$file.recovery"

# Without --recover nothing asks: the status line says where the copy is, and
# the keys work as always.
start kept 100 30 XDG_STATE_HOME="$XDG_STATE_HOME" "$QKV" "$file"
expect kept 'Unsaved changes from an earlier session are kept in' "the next open says where the recovery copy is"
settle kept
check "and how to open it: qkv --recover FILE" \
	"$(screen kept | tr '\n' ' ' | grep -c "qkv *--recover *[^ ]*/three\.json offers them")" -eq 1
expect_not kept 'y / n' "without --recover, no question stands in front of the class"
keys kept +
expect kept '1 → 1\.1' "the keys work at once: + edits"
keys kept u
keys kept q
expect_exit kept 0 "q quits"
check "the copy is kept when it was not asked for" "$(copies)" -eq 1

start offer 100 30 XDG_STATE_HOME="$XDG_STATE_HOME" "$QKV" --recover "$file"
expect offer 'Unsaved changes from an earlier session are in' "--recover offers the recovery copy"
expect offer "^ *$XDG_STATE_HOME/qkv/three\\.json-[^ ]*\\.recovery\\.( |$)" "the offer names the copy in full, wrapped, not cut"
keys offer y
expect offer 'recovered changes are open' "y opens the recovered changes"
expect offer '^ +t1 +1\.10 +0\.00 ' "the recovered value is there (Q[t1, d1] = 1.1)"
keys offer w
expect offer 'saved to' "w saves them"
settle offer
check "after the save the recovery copy is gone" "$(copies)" -eq 0
keys offer q
expect_exit offer 0 "q quits"
grep -q '1\.1' "$file"
check "the saved file holds the recovered value" $? -eq 0
cp "$QKV_SOURCE_ROOT/samples/worked-example.json" "$file"

# Two abrupt ends keep two copies (the second never overwrites the first); the
# next open offers the newest, and n deletes only that one.
for round in 1 2; do
	run "twice$round" "$file"
	if [ "$round" -eq 2 ]; then
		expect twice2 'Unsaved changes from an earlier session are kept' "abrupt end 2: the first copy is named"
	fi
	keys "twice$round" + +
	expect "twice$round" '1\.1 → 1\.2' "abrupt end $round: two unsaved edits"
	pid=$(cat "$E2E_DIR/twice$round.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -s TERM "$pid"
	expect "twice$round" 'status 143$' "abrupt end $round: SIGTERM ends qkv"
	e2e_tmux kill-session -t "twice$round" >/dev/null 2>&1
done
check "two abrupt ends: two copies, neither overwritten" "$(copies)" -eq 2
start elseoffer 100 30 XDG_STATE_HOME="$XDG_STATE_HOME" "$QKV" --recover "$file"
expect elseoffer 'Unsaved changes from an earlier session are in' "--recover offers the newest copy"
keys elseoffer n
expect elseoffer '^ *deleted *$' "n deletes the copy (the status line says so)"
check "n deleted one copy, the earlier one is kept" "$(copies)" -eq 1
keys elseoffer q
expect_exit elseoffer 0 "q quits"
rm -rf "$XDG_STATE_HOME/qkv"

# --- the terminal disappears without SIGHUP (qkv in its own session) ------------------
# shellcheck disable=SC2016 # expanded by the sh inside tmux
start gone 100 30 XDG_STATE_HOME="$XDG_STATE_HOME" sh -c 'setsid sh -c "echo \$\$ >\"\$1\"; exec \"\$0\" \"\$2\"" "$0" "$1" "$2" 2>"$3"; sleep 30' "$QKV" "$E2E_DIR/gone.pid" "$file" "$E2E_DIR/gone.err"
expect gone 'weights  softmax rows' "under setsid: qkv is running"
keys gone +
expect gone '1 → 1\.1' "under setsid: an unsaved edit"
pid=$(cat "$E2E_DIR/gone.pid" 2>/dev/null)
e2e_tmux kill-session -t gone >/dev/null 2>&1
ended=1
for ((i = 0; i < 60; i++)); do
	if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ]; then
		ended=0
		break
	fi
	e2e_sleep 0.1
done
check "the terminal gone: qkv ends within 6 s instead of spinning" "$ended" -eq 0
if [ "$ended" -ne 0 ] && [ -n "$pid" ]; then
	diag "qkv still running: $(ps -o pid,stat,pcpu,cmd -p "$pid" | tail -n 1)"
	kill -KILL "$pid" 2>/dev/null
fi
check "the terminal gone: the recovery copy is written" "$(copies)" -eq 1
said=$(grep -c 'kept in .*/qkv/three\.json-.*\.recovery' "$E2E_DIR/gone.err")
check "the terminal gone: stderr says where the changes are" "$said" -eq 1

# --- COLUMNS larger than any terminal: named, not blamed on terminfo ----------------
start columns 200 24 COLUMNS=32768 sh -c '"$0" 2>&1; echo "status $?"; read -r _' "$QKV"
expect columns '^qkv: COLUMNS=32768 is larger than a terminal can be' "COLUMNS=32768: the sentence names COLUMNS"
expect columns '^status 2$' "COLUMNS=32768: status 2"
expect_not columns 'terminfo' "COLUMNS=32768: terminfo is not blamed"
e2e_tmux kill-session -t columns >/dev/null 2>&1

# --- the Linux console (ncurses opens its mouse through libgpm) ------------------------
start console 100 30 TERM=linux "$QKV"
expect console 'weights' "TERM=linux: the screen is drawn"
keys console q
expect_exit console 0 "TERM=linux: q quits with status 0 (no leak report in the sanitizer build)"

# --- terminals closed under running qkvs: every one ends ------------------------------
# A closed terminal ends qkv at once (the read fails); a moment later its shell, the
# session leader, dies of the hang-up and the kernel sends SIGHUP and SIGCONT to the
# terminal's process group. In the sanitizer build qkv was by then in the leak check
# at exit, which stops the process and waits for that stop: the SIGCONT cancelled the
# stop, and qkv spun at full speed for ever, SIGTERM caught. qkv leaves the terminal's
# session as it ends. The race is narrow (without that, about one qkv in ten was
# caught), so 25 terminals close at once, on a tmux server of their own.
hangup_socket="$E2E_SOCKET-hangup"
hangups=25
for i in $(seq "$hangups"); do
	tmux -L "$hangup_socket" -f "$E2E_DIR/tmux.conf" new-session -d -s "h$i" -x 80 -y 24 \
		"env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf '%q' "$QKV") --random --tokens 64 --dk 8; true"
done
drawn=0
for _ in $(seq 100); do
	drawn=0
	for i in $(seq "$hangups"); do
		tmux -L "$hangup_socket" capture-pane -p -t "h$i" 2>/dev/null | grep -q 'Tab matrix' && drawn=$((drawn + 1))
	done
	[ "$drawn" -eq "$hangups" ] && break
	e2e_sleep 0.1
done
check "$hangups terminals: every qkv is drawn" "$drawn" = "$hangups"
out=$(e2e_end_server "$hangup_socket")
left=$(printf '%s\n' "$out" | tail -n +2)
if [ -z "$left" ]; then
	pass "$hangups terminals closed at once: every qkv ends"
else
	fail "$hangups terminals closed at once: every qkv ends"
	diag "still running after 20 s (killed):" "$left"
fi

stop offer
finish
