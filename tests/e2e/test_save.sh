#!/usr/bin/env bash
# test_save.sh — saving from the real interface: w writes the file (and the edit is
# there when it is opened again), q asks before dropping unsaved edits, a problem
# without a file asks for a name (and before overwriting one), and a folder that
# cannot be written gives an error and keeps the edits. Files are read back with
# `qkv --print --format json`. It must never write outside its own temporary folder.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"




# skip MESSAGE REASON: a TAP check that was not run, and why.
skip() {
	E2E_COUNT=$((E2E_COUNT + 1))
	printf 'ok %d - %s # SKIP %s\n' "$E2E_COUNT" "$1" "$2"
}

# q_of FILE: the file's Q as qkv reads it, rows joined by ";" ("1 0;0 1;1 1").
q_of() {
	local json
	json=$("$QKV" --print --format json "$1" 2>/dev/null) || return 1
	if command -v jq >/dev/null 2>&1; then
		printf '%s' "$json" | jq -r '.Q | map(map(tostring) | join(" ")) | join(";")'
	else
		printf '%s' "$json" | python3 -c 'import json, sys
print(";".join(" ".join("%.15g" % x for x in row) for row in json.load(sys.stdin)["Q"]))'
	fi
}

# same_q FILE WANT MESSAGE: the file's Q is WANT.
same_q() {
	local got
	got=$(q_of "$1")
	if [ "$got" = "$2" ]; then
		pass "$3"
	else
		fail "$3"
		diag "expected Q = $2, got ${got:-nothing}"
	fi
}

# Weights of query q against the worked example's keys, 2 decimals.
weights() {
	awk -v q="$1" 'BEGIN {
		split(q, x, " "); split("1 0;0 1;1 1", kr, ";"); r = sqrt(2)
		for (j = 1; j <= 3; j++) { split(kr[j], k, " "); e[j] = exp((x[1] * k[1] + x[2] * k[2]) / r); z += e[j] }
		printf "%.2f %.2f %.2f\n", e[1] / z, e[2] / z, e[3] / z
	}'
}

work=$E2E_DIR/work
mkdir -p "$work"
cp "$QKV_SOURCE_ROOT/samples/worked-example.json" "$work/w.json"
cd "$work" || exit 1
same_q w.json "1 0;0 1;1 1" "the copy of the worked example reads back as the course's Q"

# --- edit, w, q, open again (wide enough for the whole title) ----------------------
start ui1 120 30 "$QKV" w.json
expect ui1 'Three tokens, by hand' "the file's title is shown"
keys ui1 -l 3
keys ui1 Enter
expect ui1 "$(cells t1 "3.00 0.00")" "Q[t1, d1] is edited to 3"
expect ui1 ' modified · n ' "the title bar says modified"
keys ui1 w
expect ui1 'saved to w\.json' "w says it saved to w.json"
expect_not ui1 ' modified · n ' "after saving the title bar no longer says modified"
same_q w.json "3 0;0 1;1 1" "the file holds the edit"
keys ui1 q
expect_exit ui1 0 "q quits at once after saving, with status 0"

start ui2 80 24 "$QKV" w.json
expect ui2 "$(cells t1 "3.00 0.00")" "opened again, Q[t1, d1] shows 3.00"
w=$(weights "3 0")
expect ui2 "$(cells t1 "$w")" "opened again, weights row t1 is $w for q1 = (3, 0)"

# --- unsaved edits: q asks --------------------------------------------------------
keys ui2 +
expect ui2 "$(cells t1 "3.10 0.00")" "+ edits Q[t1, d1] to 3.10"
E2E_TIMEOUT=1 expect ui2 ' modified · n ' "at 80×24 the title bar still says modified"
keys ui2 q
expect ui2 'Quit anyway\?' "q with unsaved changes asks: Quit anyway?"
keys ui2 n
expect ui2 'not quitting' "n answers no"
expect_not ui2 'Quit anyway' "the question is gone"
if wait_exit ui2 0.3 >/dev/null; then
	fail "after n qkv is still running"
else
	pass "after n qkv is still running"
fi
expect ui2 "$(cells t1 "3.10 0.00")" "the edit is still there"
keys ui2 q
expect ui2 'Quit anyway\?' "q asks again"
keys ui2 y
expect_exit ui2 0 "y quits with status 0"
same_q w.json "3 0;0 1;1 1" "the unsaved edit was not written"

# --- no file: w asks for a name -----------------------------------------------------
start ui3 80 24 "$QKV"
expect ui3 "$(cells t1 "1.00 0.00")" "the built-in example is open"
keys ui3 -l 7
keys ui3 Enter
expect ui3 "$(cells t1 "7.00 0.00")" "Q[t1, d1] is edited to 7"
keys ui3 w
expect ui3 'Save as:' "w without a file asks: Save as:"
keys ui3 -l new.json
expect ui3 'Save as: new\.json' "the name typed shows in the question"
keys ui3 Enter
expect ui3 'saved to new\.json' "Enter saves to new.json"
check "new.json exists" -f new.json
same_q new.json "7 0;0 1;1 1" "qkv --print --format json new.json gives Q with the edit"
keys ui3 q
expect_exit ui3 0 "q quits at once after saving"

# --- no file, an existing name: overwrite? ------------------------------------------
start ui4 80 24 "$QKV"
expect ui4 "$(cells t1 "1.00 0.00")" "the built-in example is open again"
keys ui4 +
expect ui4 "$(cells t1 "1.10 0.00")" "Q[t1, d1] is nudged to 1.10"
keys ui4 w
expect ui4 'Save as:' "w asks for a name"
keys ui4 -l new.json
keys ui4 Enter
expect ui4 'new\.json exists\. Overwrite it\?' "an existing name asks before overwriting"
keys ui4 n
expect ui4 'not saved' "n: not saved"
same_q new.json "7 0;0 1;1 1" "the existing file is untouched"
keys ui4 w
expect ui4 'Save as:' "w asks for a name again"
keys ui4 -l new.json
keys ui4 Enter
expect ui4 'Overwrite it\?' "and asks before overwriting again"
keys ui4 y
expect ui4 'saved to new\.json' "y overwrites"
same_q new.json "1.1 0;0 1;1 1" "the file now holds the new edit"
keys ui4 q
expect_exit ui4 0 "q quits at once after saving"

# --- a folder that cannot be written ------------------------------------------------
runner=()
reason=""
if [ "$(id -u)" -ne 0 ]; then
	runner=()
elif runuser -u nobody -- "$QKV" --version >/dev/null 2>&1; then
	runner=(runuser -u nobody --)
elif setpriv --reuid=65534 --regid=65534 --clear-groups "$QKV" --version >/dev/null 2>&1; then
	runner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
	reason="running as root, which ignores permissions, and neither runuser nor setpriv can run qkv as nobody"
fi
if [ -z "$reason" ]; then
	mkdir -p "$E2E_DIR/ro"
	cp "$QKV_SOURCE_ROOT/samples/worked-example.json" "$E2E_DIR/ro/w.json"
	chmod 644 "$E2E_DIR/ro/w.json"
	chmod 555 "$E2E_DIR/ro"
	chmod 711 "$E2E_DIR"
	cd "$E2E_DIR/ro" || exit 1
	start ro 80 24 "${runner[@]}" "$QKV" w.json
	expect ro "$(cells t1 "1.00 0.00")" "read-only folder: the file opens"
	keys ro +
	expect ro "$(cells t1 "1.10 0.00")" "read-only folder: Q[t1, d1] is nudged to 1.10"
	keys ro w
	expect ro 'w\.json: cannot save' "read-only folder: w says the file cannot be saved"
	expect_not ro 'saved to' "read-only folder: it does not claim to have saved"
	same_q w.json "1 0;0 1;1 1" "read-only folder: the file is unchanged"
	check "read-only folder: no stray file was left" "$(find . -mindepth 1 | wc -l)" -eq 1
	keys ro q
	expect ro 'Quit anyway\?' "read-only folder: the edit still counts as unsaved"
	keys ro y
	expect_exit ro 0 "read-only folder: y quits with status 0"
	cd "$work" || exit 1
	chmod 700 "$E2E_DIR/ro"
else
	skip "read-only folder: w gives an error and keeps the edits" "$reason"
fi
stop ui1
finish
