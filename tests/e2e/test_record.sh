#!/usr/bin/env bash
# test_record.sh — `qkv --lesson FILE --record FILE.cast`: the recording is an
# asciicast v2 file (a JSON header with version 2 and the terminal's size, then
# [seconds, "o", text] events in time order), and its frames, played back in a
# fresh terminal of the same size, show the screen qkv showed last: the same text,
# and the same colours in the same order. Needs jq to read the JSON.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$QKV_SOURCE_ROOT" || exit 1
if ! command -v jq >/dev/null; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
RUN="$E2E_DIR/run"
mkdir -m 700 "$RUN"
CAST="$E2E_DIR/lesson.cast"

start main 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson lessons/worked-example.lesson --record "$CAST"
expect main 'Step 1 of 6' "the lesson starts while recording"
keys main NPage NPage NPage
expect main 'Step 4 of 6: Softmax' "PageDown three times: step 4"
keys main Left
settle main
screen main >"$E2E_DIR/final.txt"
screen_color main | sed -E 's/\x1b\[(0|39|49)?m//g; s/ +$//' >"$E2E_DIR/final-colour.txt"
keys main q
expect_exit main 0 "q ends the lesson and the recording"

header=$(head -n 1 "$CAST")
echo "$header" | jq -e '.version == 2 and .width == 80 and .height == 24 and (.timestamp | type == "number")' >/dev/null
check "the header is asciicast v2 with the terminal's size: $header" $? -eq 0
tail -n +2 "$CAST" | jq -s -e 'length > 3 and all(.[]; type == "array" and length == 3 and (.[0] | type == "number")
	and (.[1] == "o" or .[1] == "r") and (.[2] | type == "string"))
	and ([.[] | .[0]] as $t | $t == ($t | sort))' >/dev/null
check "every event is [seconds, \"o\" or \"r\", text], in time order" $? -eq 0

tail -n +2 "$CAST" | jq -j 'select(.[1] == "o") | .[2]' >"$E2E_DIR/frames"
start replay 80 24 sh -c "cat '$E2E_DIR/frames'; sleep 60"
settle replay
screen replay >"$E2E_DIR/replayed.txt"
screen_color replay | sed -E 's/\x1b\[(0|39|49)?m//g; s/ +$//' >"$E2E_DIR/replayed-colour.txt"
if cmp -s "$E2E_DIR/final.txt" "$E2E_DIR/replayed.txt"; then
	pass "the frames played back show the final screen's text"
else
	fail "the frames played back show the final screen's text"
	diff "$E2E_DIR/final.txt" "$E2E_DIR/replayed.txt" | sed 's/^/# /'
fi
if cmp -s "$E2E_DIR/final-colour.txt" "$E2E_DIR/replayed-colour.txt"; then
	pass "and its colours and attributes"
else
	fail "and its colours and attributes"
	diff "$E2E_DIR/final-colour.txt" "$E2E_DIR/replayed-colour.txt" | head -8 | sed 's/^/# /'
fi
grep -q 'A\[t1,t2\] = ' "$E2E_DIR/replayed.txt"
check "the replayed screen is step 4 with the cursor moved to A[t1,t2]" $? -eq 0

"$QKV" --lesson lessons/masks.lesson --record /nonexistent/dir/x.cast >/dev/null 2>"$E2E_DIR/err" </dev/null
status=$?
check "a recording that cannot be written is refused with status 2" "$status" -eq 2
finish
