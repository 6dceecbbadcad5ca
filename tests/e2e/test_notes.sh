#!/usr/bin/env bash
# test_notes.sh — the presenter never waits for a notes screen: with one follower
# that never reads and one `qkv --notes` whose terminal got Ctrl-S, the presenter
# steps through 1,000 steps and the notes screen keeps up (no XON/XOFF there).
# The notes folder TMP/qkv-UID taken (a mode others may enter; another user's,
# when the test runs as root): the presenter makes a private folder of its own,
# says where, and `qkv --notes` finds it.
# It must never signal any process but those it started.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

skip() {
	E2E_COUNT=$((E2E_COUNT + 1))
	printf 'ok %d - %s # SKIP %s\n' "$E2E_COUNT" "$1" "$2"
}

RUN=$E2E_DIR/run
mkdir -m 700 "$RUN"
MANY=$E2E_DIR/many.lesson
{
	echo "lesson Many steps"
	for i in $(seq 1 1001); do
		printf 'step S%d\nnote notes of step %d\n' "$i" "$i"
	done
} >"$MANY"

# --- a follower that stops reading ------------------------------------------------
start main 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson "$MANY"
expect main 'Step 1 of 1001: S1' "the presenter shows step 1"
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
time.sleep(600)
' "$RUN/qkv-lesson.sock" &
idle=$!
start notes 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --notes "$MANY"
expect notes '^Step 1 of 1001: S1' "a notes screen follows"
keys notes C-s
# shellcheck disable=SC2046 # one word a key
keys main $(printf 'NPage %.0s' $(seq 1 1000))
# A thousand steps, each written to the notes' socket: time on a loaded machine.
E2E_TIMEOUT=60 expect main 'Step 1001 of 1001: S1001' "after 1,000 PageDowns beside a follower that never reads, the presenter is at step 1001"
keys main NPage
expect main 'the last step: Home starts again' "and still takes keys"
E2E_TIMEOUT=60 expect notes '^Step 1001 of 1001: S1001' "the notes screen after Ctrl-S kept up (flow control off)"
kill "$idle" 2>/dev/null
wait "$idle" 2>/dev/null
keys main q
expect_exit main 0 "q ends the lesson"
expect notes '^The lesson has ended\.' "the notes screen says the lesson ended"
expect_exit notes 0 "and ends with status 0"
e2e_tmux kill-session -t main >/dev/null 2>&1
e2e_tmux kill-session -t notes >/dev/null 2>&1

# --- the notes folder taken ---------------------------------------------------------
LESSON=$QKV_SOURCE_ROOT/lessons/worked-example.lesson
folder_taken() {
	local what=$1 tmp=$E2E_DIR/tmp-$2 usual
	mkdir -m 755 "$tmp"
	usual=$tmp/qkv-$(id -u)
	mkdir "$usual"
	if [ "$2" = other ]; then
		chown 65534 "$usual" && chmod 700 "$usual"
	else
		chmod 755 "$usual"
	fi
	start "p$2" 200 30 TMPDIR="$tmp" XDG_RUNTIME_DIR= "$QKV" --lesson "$LESSON"
	expect "p$2" "notes socket: $tmp/qkv-$(id -u)\\.[^/]+/lesson\\.sock, as $usual is not a private folder of yours" "$what: the presenter starts and says where the socket went"
	start "n$2" 80 24 TMPDIR="$tmp" XDG_RUNTIME_DIR= "$QKV" --notes "$LESSON"
	expect "n$2" '^Step 1 of 6: The three tokens' "$what: qkv --notes finds the presenter"
	check "$what: the fallback folder is 0700" "$(stat -c %a "$tmp"/qkv-"$(id -u)".* 2>/dev/null)" = 700
	keys "p$2" q
	expect_exit "p$2" 0 "$what: q ends the lesson"
	expect_exit "n$2" 0 "$what: the notes screen ends with it"
	check "$what: the fallback folder is gone with the lesson" "$(find "$tmp" -maxdepth 1 -name "qkv-$(id -u).*" | wc -l)" = 0
	e2e_tmux kill-session -t "p$2" >/dev/null 2>&1
	e2e_tmux kill-session -t "n$2" >/dev/null 2>&1
}
folder_taken "a notes folder others may enter" mode
if [ "$(id -u)" = 0 ]; then
	folder_taken "a notes folder of another user's" other
else
	for what in "the presenter starts" "qkv --notes finds it" "the folder is 0700" "q ends" "the notes end" "the folder is gone"; do
		skip "a notes folder of another user's: $what" "needs root to make a folder another user owns"
	done
fi
finish
