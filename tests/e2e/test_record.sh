#!/usr/bin/env bash
# test_record.sh — `qkv --lesson FILE --record FILE.cast`: the recording is an
# asciicast v2 file (a JSON header with version 2 and the terminal's size, then
# [seconds, "o", text] events in time order), and its frames, played back in a
# fresh terminal of the same size, show the screen qkv showed last: the same text,
# and the same colours in the same order. An existing file is refused without
# --force, the problem or lesson being opened always; an incomplete recording
# ends with status 1. Needs jq to read the JSON.
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

# refused NAME WANT_START ARGS...: qkv with ARGS in a terminal ends at once with
# status 2 and one line on stderr that starts with WANT_START.
refused() {
	local name=$1 want=$2
	shift 2
	start "$name" 80 24 sh -c "$(printf '%q ' "$QKV" "$@") 2>$(printf '%q' "$E2E_DIR/$name.err")"
	expect_exit "$name" 2 "$name: refused with status 2"
	if [ "$(wc -l <"$E2E_DIR/$name.err")" -eq 1 ] && [[ $(cat "$E2E_DIR/$name.err") == "$want"* ]]; then
		pass "$name: one line: $want"
	else
		fail "$name: one line: $want"
		sed 's/^/# /' "$E2E_DIR/$name.err"
	fi
}

refused unwritable "qkv: --record /nonexistent/dir/x.cast: cannot write it: " \
	--lesson lessons/masks.lesson --record /nonexistent/dir/x.cast

# An existing file is never replaced unasked; --force replaces it whole at the end.
printf 'an earlier recording\n' >"$E2E_DIR/old.cast"
refused existing "qkv: --record $E2E_DIR/old.cast: the file exists; give --force to replace it" \
	--record "$E2E_DIR/old.cast"
check "the existing file is as it was" "$(cat "$E2E_DIR/old.cast")" = "an earlier recording"
start forced 80 24 "$QKV" --record "$E2E_DIR/old.cast" --force
expect forced 'Three tokens, by hand' "with --force the interface starts"
check "the old file stays until the recording ends" "$(cat "$E2E_DIR/old.cast")" = "an earlier recording"
keys forced q
expect_exit forced 0 "q ends it with status 0"
head -n 1 "$E2E_DIR/old.cast" | jq -e '.version == 2 and .width == 80' >/dev/null
check "--force replaced it with the recording" $? -eq 0
check "and left no temporary file beside it" "$(find "$E2E_DIR" -maxdepth 1 -name '.old.cast.qkv-*' | wc -l)" -eq 0

# The problem file or the lesson being opened: refused even with --force, under
# any name (a hard link is the same file).
cp samples/copy.json "$E2E_DIR/problem.json"
ln "$E2E_DIR/problem.json" "$E2E_DIR/other-name.cast"
refused same-problem "qkv: --record $E2E_DIR/other-name.cast is the problem file being opened" \
	"$E2E_DIR/problem.json" --record "$E2E_DIR/other-name.cast" --force
cmp -s samples/copy.json "$E2E_DIR/problem.json"
check "the problem file is untouched" $? -eq 0
cp lessons/masks.lesson "$E2E_DIR/masks.lesson"
ln -s masks.lesson "$E2E_DIR/lesson-link.cast"
refused same-lesson "qkv: --record $E2E_DIR/lesson-link.cast is the lesson being opened" \
	--lesson "$E2E_DIR/masks.lesson" --record "$E2E_DIR/lesson-link.cast" --force
cmp -s lessons/masks.lesson "$E2E_DIR/masks.lesson"
check "the lesson is untouched" $? -eq 0

# A recording that cannot be written whole: said when qkv ends, status 1.
start full 80 24 sh -c "$(printf '%q ' "$QKV") --record /dev/full 2>$(printf '%q' "$E2E_DIR/full.err")"
expect full 'Three tokens, by hand' "--record /dev/full: the interface runs"
keys full q
expect_exit full 1 "--record /dev/full ends with status 1"
grep -q '^qkv: --record /dev/full is incomplete: ' "$E2E_DIR/full.err"
check "and says the recording is incomplete" $? -eq 0
finish
