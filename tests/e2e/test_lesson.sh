#!/usr/bin/env bash
# test_lesson.sh — a lesson presented with the clicker's keys alone, in the real
# interface at 80×24, with `qkv --notes` following it in a second terminal: the
# step's number and title always on screen, its notes on the message line until a
# presenter screen follows, PageDown through every step of the saturation lesson
# (d_k 512, the scaling off, the sweep chart), PageUp, Home, a number and Enter,
# free exploration then PageDown, one lesson at a time, and the notes ending with it.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$QKV_SOURCE_ROOT" || exit 1
RUN="$E2E_DIR/run"
mkdir -m 700 "$RUN"
LESSON=lessons/saturation.lesson

start main 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson "$LESSON"
expect main 'Step 1 of 5: Eight random tokens, d_k = 2' "the first step's number and title show"
expect main '^ Eight tokens whose queries and keys are random' "its notes are on the message line"
expect main 'd_k 2 ' "the lesson's random problem is open at d_k 2"
check "the notes socket is private (0600)" "$(stat -c %a "$RUN/qkv-lesson.sock" 2>/dev/null)" = 600

start notes 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --notes "$LESSON"
expect notes '^Step 1 of 5: Eight random tokens' "the notes screen follows step 1"
expect notes '^Next, step 2: Make d_k large: 512' "and shows the next step's title"
expect notes '^many tokens it really looks at\.' "with the full notes, broken at spaces"
expect_not main '^ Eight tokens whose queries' "with a presenter screen the notes leave the message line"

keys main NPage
expect main 'Step 2 of 5: Make d_k large: 512' "PageDown: step 2"
expect main 'd_k 512 ' "d_k is 512"
expect main 'd_k = 512 \(from 2\): 510 new columns of Q and K drawn from N\(0,1\)' \
	"qkv says what the whole step did: 510 columns drawn, not the last press's 256"
expect notes '^Step 2 of 5: Make d_k large' "the notes follow to step 2"

keys main NPage
expect main 'Step 3 of 5: Switch the scaling off' "PageDown: step 3"
expect main 'scaling off' "the scaling is off"
expect main "$(cells t1 '0.00 1.00 0.00 0.00 0.00 0.00 0.00 0.00')" "unscaled at d_k 512, t1's weights are one-hot"
expect notes '^Step 3 of 5: Switch the scaling off' "the notes follow to step 3"

keys main NPage
expect main 'Step 4 of 5: The sweep' "PageDown: step 4"
expect main 'mean max weight' "the sweep chart is open"
expect notes '^Step 4 of 5: The sweep' "the notes follow to step 4"

keys main NPage
expect main 'Step 5 of 5: Scaling back on' "PageDown: step 5"
expect main 'scaling on: divided by' "the scaling is back on"
expect notes '^This is the last step\.' "the notes say it is the last step"
keys main NPage
expect main 'the last step: Home starts again' "PageDown at the end says so"

keys main PPage
expect main 'Step 4 of 5: The sweep' "PageUp: back to step 4"
keys main Home
expect main 'Step 1 of 5: Eight random' "Home: step 1"
expect main 'd_k 2 ' "Home restores d_k 2"
keys main 3
expect main 'go to step 3_' "a typed number shows"
keys main Enter
expect main 'Step 3 of 5: Switch the scaling off' "3 then Enter: step 3"

# Free exploration: the scaling back on by hand, then PageDown goes on from the lesson.
keys main s
expect main 'scaling on: divided by' "s switches the scaling by hand during a step"
keys main NPage
expect main 'Step 4 of 5.*own state' "PageDown continues from the lesson's own state and says so"
expect main 'scaling off' "the lesson's own state has the scaling off"

# The cost view measures inside a lesson too (the clock goes with every step).
keys main C
expect main 'measuring the trace for n = 16' "C opens the cost view during a step, and it measures"
keys main C
expect_not main 'measuring the trace for n = 16' "C closes it"

# One lesson at a time.
start other 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson lessons/masks.lesson
expect_exit other 2 "a second lesson is refused while one is presented"
expect other 'one at a time' "and says why"

keys main q
expect main 'Quit anyway\? y / n' "q asks first: the lesson changed the problem it opened"
keys main y
expect_exit main 0 "y ends the lesson"
# (That it says "The lesson has ended." is checked in the lesson unit suite, which
# reads its whole output; a capture of the pane after it ended once missed it.)
expect_exit notes 0 "the notes screen ends with the lesson"
check "the socket is removed" ! -e "$RUN/qkv-lesson.sock"

XDG_RUNTIME_DIR="$RUN" "$QKV" --notes "$LESSON" >"$E2E_DIR/nothing.out" 2>"$E2E_DIR/nothing.err" </dev/null
check "--notes with no lesson running ends with status 1" $? -eq 1
check "and says so in one line" "$(cat "$E2E_DIR/nothing.err")" = \
	"qkv: no lesson is being presented (qkv --lesson FILE starts one)"
# On a large screen the notes take the free lines above the message line.
start big 160 45 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson lessons/projections.lesson
expect big 'Step 1 of 5' "a lesson at 160×45"
keys big 4
keys big Enter
expect big '^ Now tie all three projections to the identity, as toy examples often do' "step 4's notes start a line"
expect big '^ 0\.7311, "cat" 0\.6285, "sat" 0\.4087\. The previous-word pattern is gone\.' \
	"and go on on the next line, broken at a space"
keys big Escape
expect_not big 'previous-word pattern' "a key by hand takes the notes away, every line of them"
keys big q
keys big y
expect_exit big 0 "it ends"

# A step that shows an early stage: the later stages are absent (never boxed as
# "not computed yet"), the lesson's line names the key that walks the stages, n
# (PageDown is the lesson's), and n does walk them.
start walk 80 24 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson lessons/worked-example.lesson
keys walk 2
keys walk Enter
expect walk 'Step 2 of 6: Scores' "step 2 of the worked example shows stage 1"
expect walk '1 scores  S = Q Kᵀ' "stage 1's grid is shown"
expect_not walk '(not computed yet|3 weights  A|5 output  O)' "the later stages are absent"
expect walk 'n next stage' "the lesson's line says n shows the next stage"
expect_not walk 'PageDown' "and never PageDown, which steps the lesson"
keys walk n
expect walk 'stage 2 of 5: scaled' "n walks to stage 2 inside the lesson"
expect walk 'Step 2 of 6: Scores' "and the lesson stays at step 2"
keys walk q
keys walk y
expect_exit walk 0 "it ends"

# The multi-head lesson at 120×40: stage 6 leaves out the output (n shows it), stage 7
# writes each head's share of out[sat, d1], adding up to the shown total.
start heads 120 40 XDG_RUNTIME_DIR="$RUN" "$QKV" --lesson lessons/heads.lesson
expect heads 'Step 1 of 11: One sentence, three heads' "the heads lesson starts"
expect heads 'h1 weights .*h2 weights .*h3 weights' "every head's weights side by side"
keys heads 6
keys heads Enter
expect heads 'Step 6 of 11: The heads side by side: concat' "step 6: the concatenation"
expect heads 'stage 6 of 7 · concat' "stage 6 is shown"
expect_not heads 'output = Concat W_O' "the output, a later stage, is absent"
expect heads 'n next stage' "the lesson's line names n for the next stage"
keys heads 9
keys heads Enter
expect heads 'Step 9 of 11: Each head.s share of one output cell' "step 9: each head's share"
expect heads 'head 1 0\.9449 \+ head 2 0\.0283 \+ head 3 0\.0283 = 1\.0015' \
	"out[sat, d1] as three heads' shares, adding up"
keys heads q
keys heads y
expect_exit heads 0 "it ends"

# Without a lesson the keys line names PageDown for the next stage.
start plain 80 24 "$QKV"
keys plain NPage
expect plain 'PgDn next stage' "without a lesson the keys line names PageDown for the next stage"
keys plain q
expect_exit plain 0 "q quits"
finish
