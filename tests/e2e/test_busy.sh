#!/usr/bin/env bash
# test_busy.sh — qkv during a long computation: the keys and signals that come
# meanwhile are handled, Esc cancels it, another change waits for it, and SIGTERM
# or q ends qkv within 2 s (10 s in the sanitizer build), the terminal restored.
# It times how fast qkv ends, so meson runs it alone (tests/meson.build). It must
# never signal any process but the qkv it started.
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

# --- long computations: keys and signals are handled meanwhile, Esc cancels ---------
# A trace of about 4 billion multiply-adds (seconds); the sanitizer build
# (every access checked) gets a smaller one of about the same time.
# A signal must end it within 2 s; the sanitizer build, several times slower at
# writing the recovery copy of a problem this size, gets 10 s.
if [[ $QKV == *asan* ]]; then big_n=512 big_dk=1024 quick=10; else big_n=1024 big_dk=2048 quick=2; fi
# On a machine busy with other work (a load average over its cores) qkv gets a
# share of the cores: the limit grows with the load per core (the test's name
# says the limit it applied). Writing the recovery copy of this problem (3 million
# numbers) takes most of the 2 s on an idle machine.
read -r load _ </proc/loadavg
cores=$(nproc)
load=${load%.*}
if [ "$load" -gt "$cores" ]; then quick=$(((quick * load + cores - 1) / cores)); fi
half_dk=$((big_dk / 2))
# The limit is qkv's own work (the computation stopped, the recovery copy of the
# changed problem formatted and written): the copy goes to a folder in memory
# (/dev/shm) where there is one, so that a disk busy with other writes (a build
# beside the tests: ext4 then makes an fsync wait for them) does not count as qkv's.
state=$E2E_DIR/xdg-state
if [ -d /dev/shm ] && [ -w /dev/shm ] && memory=$(mktemp -d /dev/shm/qkv-busy.XXXXXX); then
	state=$memory
fi
# shellcheck disable=SC2016 # expanded by the sh inside tmux
start busy 120 30 XDG_STATE_HOME="$state" sh -c 'sh -c "echo \$\$ >\"\$1\"; exec \"\$0\" --random --tokens \$2 --dk \$3" "$0" "$1" "$2" "$3"; s=$?; echo "back in the shell, status $s"; read -r _; exit $s' "$QKV" "$E2E_DIR/busy.pid" "$big_n" "$big_dk"
E2E_TIMEOUT=30 expect busy "n $big_n · d_k $big_dk" "a $big_n-token problem with d_k $big_dk is shown"
keys busy '<'
expect busy "computing the trace of $big_n tokens, d_k $half_dk" "halving d_k shows what is being computed"
keys busy x
expect busy 'still computing' "other keys wait (and say so)"
keys busy Escape
expect busy 'cancelled' "Esc cancels the computation"
expect busy "n $big_n · d_k $big_dk" "after Esc d_k is still $big_dk"
expect_not busy 'modified' "after Esc nothing is modified"
keys busy '<'
E2E_TIMEOUT=60 expect busy "d_k = $half_dk(:| |\$)" "without Esc the change is taken in"
expect busy "n $big_n · d_k $half_dk" "the title bar says d_k $half_dk"
keys busy '<'
expect busy 'computing the trace' "another change computes"
pid=$(cat "$E2E_DIR/busy.pid" 2>/dev/null)
[ -n "$pid" ] && kill -s TERM "$pid"
E2E_TIMEOUT=$quick expect busy 'status 143$' "SIGTERM during the computation ends qkv within $quick s"
modes_off busy "after SIGTERM during a computation"
e2e_tmux kill-session -t busy >/dev/null 2>&1

# --- the first trace of a large problem: a line says so, signals and q still work ----
# shellcheck disable=SC2016 # expanded by the sh inside tmux
start first 120 30 XDG_STATE_HOME="$state" sh -c 'sh -c "echo \$\$ >\"\$1\"; exec \"\$0\" --random --tokens \$2 --dk \$3" "$0" "$1" "$2" "$3"; s=$?; echo "back in the shell, status $s"; read -r _; exit $s' "$QKV" "$E2E_DIR/first.pid" "$big_n" "$((big_dk * 2))"
expect first "computing the trace of $big_n tokens, d_k $((big_dk * 2))… [0-9.]+ s · q quits" "a large first trace: a line says what is computed"
pid=$(cat "$E2E_DIR/first.pid" 2>/dev/null)
[ -n "$pid" ] && kill -s TERM "$pid"
E2E_TIMEOUT=$quick expect first 'status 143$' "SIGTERM while the first trace is computed ends qkv within $quick s"
modes_off first "after SIGTERM during the first trace"
e2e_tmux kill-session -t first >/dev/null 2>&1
start firstq 120 30 "$QKV" --random --tokens "$big_n" --dk "$((big_dk * 2))"
expect firstq "computing the trace of $big_n tokens" "again: the line"
keys firstq q
E2E_TIMEOUT=$quick expect_exit firstq 0 "q while the first trace is computed quits within $quick s (status 0)"

[ -n "${memory:-}" ] && rm -rf "$memory"
finish
