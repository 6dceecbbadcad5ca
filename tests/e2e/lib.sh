# shellcheck shell=bash
# tests/e2e/lib.sh — helpers for end-to-end tests that drive the real qkv in tmux and
# read what a person would see (sourced by tests/e2e/test_*.sh, bash).
# Every test gets its own tmux server (-L qkv-e2e-PID, no config of the user's), killed
# on exit, and its own XDG_RUNTIME_DIR and XDG_STATE_HOME, so tests never touch a
# person's tmux or presenter and can run side by side. It prints TAP.
# It must never attach to, list or kill any tmux server but its own.
#
#   #!/usr/bin/env bash
#   . "$(dirname "$0")/lib.sh"          # $1 (from meson) is the qkv binary: $QKV
#   start main 80 24 NO_COLOR=1 "$QKV" samples/three.json
#   expect main 'weights' "the weights are shown"
#   keys main Down Enter; keys main -l '1.5'; keys main Enter
#   expect_not main 'error' "no error after an edit"
#   keys main q
#   expect_exit main 0 "q quits with status 0"
#   finish
#
# Helpers: start, keys, mouse, column_of, screen, screen_color, row, wait_for, slow,
# settle, expect, expect_not, expect_exit, wait_exit, pass, fail, check, cells, diag,
# resize, block_box, stop, finish (which stops what is still running), e2e_end_server.
# Messages should not contain '#' (TAP reads what follows as a directive).

E2E_SOCKET="qkv-e2e-$$"
E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/qkv-e2e.XXXXXX")
# Private folders for the presenter's notes socket and the recovery copies, so that
# tests running side by side (meson runs several at once) never meet there, nor a
# person's presenter on the same machine. A test may still set its own.
mkdir -m 700 "$E2E_DIR/xdg-runtime" "$E2E_DIR/xdg-state"
export XDG_RUNTIME_DIR="$E2E_DIR/xdg-runtime" XDG_STATE_HOME="$E2E_DIR/xdg-state"
E2E_COUNT=0
E2E_FAILED=0
E2E_TIMEOUT=${QKV_E2E_TIMEOUT:-5}
QKV_SOURCE_ROOT=${QKV_SOURCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
QKV=${QKV:-${1:-$QKV_SOURCE_ROOT/build/qkv}}
case $QKV in
/*) ;;
*) QKV="$PWD/$QKV" ;;
esac
# How many times slower than an optimised build the qkv under test computes: the
# sanitizer build (its path names it: build-asan; at -O1, every access checked)
# about ten times, measured on the learning view's experiment. wait_for's polls
# already stretch by QKV_E2E_SLOWDOWN (3 in scripts/test's sanitizer run), so `slow`
# adds the rest: 4 here, about twelve in all there (QKV_E2E_SLOW sets it).
E2E_SLOW=${QKV_E2E_SLOW:-1}
[ -n "${QKV_E2E_SLOW:-}" ] || case $QKV in *asan*) E2E_SLOW=4 ;; esac
export TERM=xterm-256color LC_ALL=C.UTF-8
unset TMUX TMUX_PANE

cat >"$E2E_DIR/tmux.conf" <<'CONF'
set -g default-terminal xterm-256color
set -g default-shell /bin/sh
set -g status off
set -g remain-on-exit on
set -g history-limit 2000
set -g escape-time 0
CONF

# tmux on this test's own server.
e2e_tmux() {
	tmux -L "$E2E_SOCKET" -f "$E2E_DIR/tmux.conf" "$@"
}

# Ends this test's tmux server and removes its files; runs on every exit.
e2e_cleanup() {
	e2e_end_server "$E2E_SOCKET" | tail -n +2 | sed 's/^/qkv-e2e: killed, still running after its terminal closed: /' >&2
	rm -rf "$E2E_DIR"
}
trap e2e_cleanup EXIT
trap 'exit 130' INT TERM

# Writes a TAP diagnostic line (or several) to stdout.
diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# Records one check: status 0 is "ok", anything else "not ok".
e2e_record() {
	local status=$1 message=${2//#/%23}
	E2E_COUNT=$((E2E_COUNT + 1))
	if [ "$status" -eq 0 ]; then
		printf 'ok %d - %s\n' "$E2E_COUNT" "$message"
	else
		printf 'not ok %d - %s\n' "$E2E_COUNT" "$message"
		E2E_FAILED=$((E2E_FAILED + 1))
	fi
}

# pass MESSAGE / fail MESSAGE: record a check decided by the test itself.
pass() {
	e2e_record 0 "$1"
}
fail() {
	e2e_record 1 "$1"
}

# check MESSAGE ARGS...: a check decided by `test ARGS...`.
check() {
	local message=$1
	shift
	if test "$@"; then
		pass "$message"
	else
		fail "$message"
	fi
}

# cells LABEL "n1 n2 ...": a regex for a grid row: the label, then those numbers,
# each maybe followed by the shading glyph a weight carries without colour.
cells() {
	local regex="(^| )$1" n
	for n in $2; do
		regex+=" +${n//./\\.}[·░▒▓█]?"
	done
	printf '%s( |$)' "$regex"
}

# start NAME COLS ROWS [VAR=value...] CMD [ARGS...]: runs CMD in a new detached
# session of COLS×ROWS with TERM=xterm-256color, LC_ALL=C.UTF-8 and the given
# variables. The pane stays after CMD ends, so its last screen can still be read.
start() {
	local name=$1 cols=$2 rows=$3 env=(TERM=xterm-256color LC_ALL=C.UTF-8) command
	shift 3
	while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
		env+=("$1")
		shift
	done
	if [ $# -eq 0 ]; then
		fail "start $name: no command given"
		return 1
	fi
	rm -f "$E2E_DIR/$name.status"
	command="cd $(printf '%q' "$PWD") && env $(printf '%q ' "${env[@]}" "$@");"
	command+=" echo \$? >$(printf '%q' "$E2E_DIR/$name.status")"
	# A server that stop just killed may still be on its way out and refuse the
	# session ("server exited unexpectedly"): a second try once it has gone.
	if ! e2e_tmux new-session -d -s "$name" -x "$cols" -y "$rows" "$command" 2>/dev/null; then
		sleep 0.3
		if ! e2e_tmux new-session -d -s "$name" -x "$cols" -y "$rows" "$command"; then
			fail "start $name: tmux new-session failed"
			return 1
		fi
	fi
}

# keys NAME KEYS...: tmux send-keys (key names such as Enter, Down, C-r, PPage;
# `keys NAME -l TEXT` types TEXT literally).
keys() {
	local name=$1
	shift
	e2e_tmux send-keys -t "$name" "$@"
}

# mouse NAME BUTTON COLUMN ROW: one SGR mouse report, press then release, as a
# terminal sends it (ESC [ < button ; column ; row M/m; 1-based position).
mouse() {
	local report hex
	report=$(printf '\033[<%d;%d;%dM\033[<%d;%d;%dm' "$2" "$3" "$4" "$2" "$3" "$4")
	hex=$(printf '%s' "$report" | od -An -tx1 | tr -s ' \n' ' ')
	# shellcheck disable=SC2086
	e2e_tmux send-keys -t "$1" -H $hex
}

# column_of NAME ROW TEXT N: the 1-based column of the Nth occurrence of TEXT on
# screen line ROW (1-based), 0 when there is none.
column_of() {
	screen "$1" | sed -n "${2}p" | awk -v text="$3" -v nth="$4" '{
		at = 0; line = $0
		for (k = 1; k <= nth; k++) {
			i = index(line, text); if (i == 0) { print 0; exit }
			at += i; line = substr(line, i + 1)
		}
		print at
	}'
}

# screen NAME: the visible screen as plain text.
screen() {
	e2e_tmux capture-pane -p -t "$1"
}

# screen_color NAME: the visible screen with its colours and attributes as escapes.
screen_color() {
	e2e_tmux capture-pane -p -e -t "$1"
}

# row NAME N: line N (0 = top) of the visible screen.
row() {
	e2e_tmux capture-pane -p -t "$1" -S "$2" -E "$2"
}

# e2e_ms VAR SECONDS: VAR = SECONDS (a decimal, fractions allowed) in whole
# milliseconds, in bash alone (a poll loop runs these often: no awk to start).
e2e_ms() {
	local seconds=$2 whole fraction=000
	whole=${seconds%%.*}
	if [[ $seconds == *.* ]]; then
		fraction=${seconds#*.}000
		fraction=${fraction:0:3}
	fi
	printf -v "$1" '%d' $((10#${whole:-0} * 1000 + 10#$fraction))
}

# The number of 50 ms polls in SECONDS (fractions allowed), times QKV_E2E_SLOWDOWN
# (default 1; scripts/test sets 3 for the sanitizer build).
e2e_polls() {
	local ms polls
	e2e_ms ms "$1"
	polls=$((ms * ${QKV_E2E_SLOWDOWN:-1} / 50))
	echo $((polls < 1 ? 1 : polls))
}

# e2e_sleep SECONDS: sleeps without starting a process, on a read that times out
# from a pipe nobody writes to (the poll loops sleep thousands of times a run).
mkfifo "$E2E_DIR/sleep.fifo"
exec {E2E_SLEEP_FD}<>"$E2E_DIR/sleep.fifo"
e2e_sleep() {
	read -r -t "$1" -u "$E2E_SLEEP_FD" _ || true
}

# slow SECONDS: SECONDS for a computation of the optimised build, in the build
# under test (times E2E_SLOW, on top of QKV_E2E_SLOWDOWN); for wait_for's SECONDS when the screen waits on qkv's
# arithmetic rather than on tmux.
slow() {
	awk -v s="$1" -v f="$E2E_SLOW" 'BEGIN { print s * f }'
}

# e2e_pause: sleeps after poll slot E2E_SLOT (of 50 ms each) and moves E2E_SLOT to
# the next one: every 50 ms for the first second, every 100 ms up to the third, then
# every 200 ms, so that a long wait (a computation of seconds) costs a few captures,
# not dozens.
e2e_pause() {
	if ((E2E_SLOT < 20)); then
		e2e_sleep 0.05
		E2E_SLOT=$((E2E_SLOT + 1))
	elif ((E2E_SLOT < 60)); then
		e2e_sleep 0.1
		E2E_SLOT=$((E2E_SLOT + 2))
	else
		e2e_sleep 0.2
		E2E_SLOT=$((E2E_SLOT + 4))
	fi
}

# wait_for NAME REGEX [SECONDS]: true as soon as the screen matches the extended
# regular expression (line by line), false after SECONDS (default $QKV_E2E_TIMEOUT or 5).
wait_for() {
	local name=$1 regex=$2 polls
	polls=$(e2e_polls "${3:-$E2E_TIMEOUT}")
	E2E_SLOT=0
	while ((E2E_SLOT < polls)); do
		if screen "$name" 2>/dev/null | grep -qE -- "$regex"; then
			return 0
		fi
		e2e_pause
	done
	return 1
}

# settle NAME [SECONDS]: waits until the screen has stayed the same for 150 ms
# (at most SECONDS, default 2), so a check reads a finished frame.
settle() {
	local name=$1 polls i last="" now same=0
	polls=$(e2e_polls "${2:-2}")
	for ((i = 0; i < polls; i++)); do
		now=$(screen_color "$name" 2>/dev/null)
		if [ "$now" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -ge 3 ] && return 0
		else
			same=0
			last=$now
		fi
		e2e_sleep 0.05
	done
	return 1
}

# Prints the screen of NAME as TAP diagnostics, framed so blank lines show.
e2e_dump() {
	local name=$1
	printf '# screen of %s:\n' "$name"
	screen "$name" 2>&1 | sed 's/^/# |/'
}

# now_s: seconds since the epoch, to the millisecond.
now_s() {
	date +%s.%N
}

# cancel_within NAME REGEX LIMIT WHAT: sends Esc, then waits for REGEX on the
# screen; passes when it shows within LIMIT seconds of the Esc.
cancel_within() {
	local name=$1 regex=$2 limit=$3 what=$4 sent shown took
	sent=$(now_s)
	keys "$name" Escape
	if wait_for "$name" "$regex" 5; then
		shown=$(now_s)
		took=$(awk -v a="$sent" -v b="$shown" 'BEGIN { printf "%.3f", b - a }')
		if awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t < l) }'; then
			pass "$what: cancelled in $took s"
		else
			fail "$what: cancelled in $took s, not within $limit s"
		fi
	else
		fail "$what: Esc cancels"
		e2e_dump "$name"
	fi
}

# expect NAME REGEX MESSAGE: passes when the screen matches within the timeout.
expect() {
	local name=$1 regex=$2 message=$3
	if wait_for "$name" "$regex"; then
		e2e_record 0 "$message"
	else
		e2e_record 1 "$message"
		diag "expected /$regex/ on the screen"
		e2e_dump "$name"
	fi
}

# expect_not NAME REGEX MESSAGE: passes when, once the screen has settled, the
# regex is absent (or disappears within the timeout).
expect_not() {
	local name=$1 regex=$2 message=$3 polls
	settle "$name"
	polls=$(e2e_polls "$E2E_TIMEOUT")
	E2E_SLOT=0
	while ((E2E_SLOT < polls)); do
		if ! screen "$name" 2>/dev/null | grep -qE -- "$regex"; then
			e2e_record 0 "$message"
			return
		fi
		e2e_pause
	done
	e2e_record 1 "$message"
	diag "did not expect /$regex/ on the screen"
	e2e_dump "$name"
}

# wait_exit NAME [SECONDS]: waits for the command of NAME to end and prints its exit
# status; false when it is still running after SECONDS.
wait_exit() {
	local name=$1 polls i
	polls=$(e2e_polls "${2:-$E2E_TIMEOUT}")
	for ((i = 0; i < polls; i++)); do
		if [ -s "$E2E_DIR/$name.status" ]; then
			cat "$E2E_DIR/$name.status"
			return 0
		fi
		e2e_sleep 0.05
	done
	return 1
}

# expect_exit NAME STATUS MESSAGE: passes when the command ends with STATUS in time.
expect_exit() {
	local name=$1 want=$2 message=$3 got
	if got=$(wait_exit "$name") && [ "$got" = "$want" ]; then
		e2e_record 0 "$message"
	else
		e2e_record 1 "$message"
		diag "expected exit status $want, got ${got:-none (still running)}"
		e2e_dump "$name"
	fi
}

# block_box NAME: "TOP BOTTOM LEFT RIGHT" (0-based, inclusive) of the grids: the
# text between the stage bar (line 1) and the formula line ("softmax(" or
# "stage N of 5"), as a person sees where the picture is on the screen.
block_box() {
	# One byte a character, so awk (mawk counts bytes) measures columns.
	screen "$1" | sed 's/[^ -~]/x/g' | awk '
		NR <= 2 { next }
		/^ *(softmax\(|stage [0-9] of 5)/ { exit }
		/[^ ]/ {
			line = NR - 1
			if (top == "") top = line
			bottom = line
			match($0, /[^ ]/)
			if (left == "" || RSTART - 1 < left) left = RSTART - 1
			sub(/ +$/, "")
			if (right == "" || length($0) - 1 > right) right = length($0) - 1
		}
		END { if (top != "") print top, bottom, left, right }'
}

# resize NAME COLS ROWS: resizes the window (the program gets SIGWINCH).
resize() {
	e2e_tmux resize-window -t "$1" -x "$2" -y "$3"
}

# e2e_end_server SOCKET: ends that tmux server, which closes every terminal on it,
# and waits until every process that ran in them has ended (up to 20 s: the
# sanitizer build ends slowly). Prints the number of processes there were, then
# those still there after the wait, which are killed, as "PID COMMAND" lines.
e2e_end_server() {
	local socket=$1 panes pids left pid count end
	# One ps for all the panes' sessions, and one a round below: with dozens of
	# processes, a ps for each was seconds of work on a loaded machine.
	panes=$(tmux -L "$socket" list-panes -a -F '#{pane_pid}' 2>/dev/null | paste -sd, -)
	pids=""
	[ -n "$panes" ] && pids=$(ps -o pid= -s "$panes" 2>/dev/null | awk '{ printf "%s ", $1 }')
	pids=${pids% }
	count=$(wc -w <<<"$pids")
	tmux -L "$socket" kill-server >/dev/null 2>&1
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket"
	echo "$count"
	end=$((SECONDS + 20))
	left=$pids
	while [ -n "$left" ]; do
		# Those still there, zombies aside (a zombie has ended).
		left=$(ps -o pid=,stat= -p "${left// /,}" 2>/dev/null | awk '$2 !~ /^Z/ { printf "%s ", $1 }')
		left=${left% }
		[ -z "$left" ] || [ "$SECONDS" -ge "$end" ] && break
		sleep 0.2
	done
	for pid in $left; do
		ps -o pid=,args= -p "$pid" 2>/dev/null
		kill -s KILL "$pid" 2>/dev/null
	done
	return 0
}

# e2e_end_all WHAT: e2e_end_server on this test's server, recorded as a check when
# there were processes: every one of them ends once its terminal is closed.
e2e_end_all() {
	local out count left
	out=$(e2e_end_server "$E2E_SOCKET")
	count=$(printf '%s\n' "$out" | head -n 1)
	left=$(printf '%s\n' "$out" | tail -n +2)
	[ "${count:-0}" -eq 0 ] && return 0
	if [ -z "$left" ]; then
		pass "$1: the $count processes in its terminals end when the terminals close"
	else
		fail "$1: the $count processes in its terminals end when the terminals close"
		diag "still running after 20 s (killed):" "$left"
	fi
}

# stop NAME: kills the session and this test's tmux server (every session on it),
# and checks that what ran in them has ended.
stop() {
	e2e_tmux kill-session -t "$1" >/dev/null 2>&1
	e2e_end_all "stop $1"
	return 0
}

# finish: ends every session still open (a check that what ran in them ended),
# prints the TAP plan and exits nonzero when any check failed.
finish() {
	e2e_end_all "the sessions left at the end"
	printf '1..%d\n' "$E2E_COUNT"
	[ "$E2E_FAILED" -eq 0 ] && exit 0
	exit 1
}
