#!/usr/bin/env bash
# test_smoke.sh — proves the tmux harness itself (tests/e2e/lib.sh): a command
# starts in a private server, its output is read, keys reach it, a resize is seen,
# and its exit status comes back. It must never depend on qkv's interface.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2016 # expanded by the sh inside tmux
start smoke 40 10 GREETING=hello sh -c 'echo "$GREETING"; read -r line; echo "got $line"; stty size; exit 3'
expect smoke '^hello$' "the command's output appears"
expect_not smoke 'got' "nothing is echoed before a key is sent"
resize smoke 50 12
keys smoke -l 'abc'
keys smoke Enter
expect smoke '^got abc$' "typed keys reach the command"
expect smoke '^12 50$' "the command sees the resized terminal"
expect_exit smoke 3 "the exit status is reported"
stop smoke
finish
