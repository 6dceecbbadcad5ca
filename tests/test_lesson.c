/* test_lesson.c — Check suites for lessons (src/present/lesson.h, src/present/notes.h):
 * the parser (every action, every refusal), the replay (each step the same however
 * it is reached, the clicker's keys, free exploration), the shipped lessons, and
 * the presenter notes' socket (a second process follows the steps).
 * Expected numbers come from the course's matrices worked by hand (closed forms
 * of softmax over three tokens), never from the code under test. */
#ifndef _XOPEN_SOURCE /* ncursesw's flags may have set it */
#define _XOPEN_SOURCE 700
#endif
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "present/lesson.h"
#include "present/notes.h"
#include "tui/notes_screen.h"

#include "slurp.h"
#include "tap_main.h"

static struct lesson_look look80 = { .width = 80, .height = 24, .palette_count = 1 };

static void parse_ok(const char *text, struct lesson *l)
{
	char err[600] = "";

	ck_assert_msg(lesson_parse(text, strlen(text), "t.lesson", l, err, sizeof err) == 0, "refused: %s", err);
}

/* Softmax of the worked example's scaled row (a, b, c) at position i: closed form. */
static double softmax3(double a, double b, double c, int i)
{
	double e[3] = { exp(a), exp(b), exp(c) };

	return e[i] / (e[0] + e[1] + e[2]);
}

START_TEST(test_parse_every_action)
{
	static const char text[] =
		"# a comment\n"
		"lesson All of it\n"
		"\n"
		"step First\r\n"
		"note line one\n"
		"note line two\n"
		"open example\n"
		"open ../samples/causal.json\n"
		"random tokens 5 dk 3 seed 42\n"
		"random tokens 4 dk 2 dv 3 seed 0\n"
		"set Q[t1,d1] = 3\n"
		"set W_Q[m2,d1] = -0.5\n"
		"set d_k = 64\n"
		"set scale = off\n"
		"set temperature = 0.5\n"
		"set mask = causal\n"
		"set wrong = column-softmax\n"
		"set projections = identity\n"
		"set d_v = 5\n"
		"set padding[t3] = on\n"
		"step Second\n"
		"stage 3\n"
		"stage live\n"
		"stage weights\n"
		"select A[t1,t3]\n"
		"view saturation\n"
		"expect A[t1,t3] = 0.4011 ± 0.0001\n"
		"expect S'[t1,t1] = 0.7071 +- 0.01\n"
		"expect O[t1,d1] = 6.0167\n"
		"expect stage = 3\n"
		"expect d_k = 2\n"
		"expect view = none\n"
		"expect message contains \"d_k = 2\"\n"
		"problem\n"
		"{ \"Q\": [[1]], \"K\": [[1]], \"V\": [[1]] }\n"
		"end\n";
	static const enum lesson_act acts[] = {
		ACT_OPEN_EXAMPLE, ACT_OPEN_FILE, ACT_RANDOM, ACT_RANDOM, ACT_SET_CELL, ACT_SET_CELL, ACT_SET_DK,
		ACT_SET_SCALE, ACT_SET_TEMPERATURE, ACT_SET_MASK, ACT_SET_WRONG, ACT_SET_PROJECTIONS,
		ACT_SET_DV, ACT_SET_PADDING, ACT_STAGE, ACT_STAGE, ACT_STAGE, ACT_SELECT, ACT_VIEW, ACT_EXPECT_CELL, ACT_EXPECT_CELL,
		ACT_EXPECT_CELL, ACT_EXPECT_STAGE, ACT_EXPECT_DK, ACT_EXPECT_VIEW, ACT_EXPECT_MESSAGE, ACT_PROBLEM,
	};
	struct lesson l;
	const struct lesson_action *a;

	parse_ok(text, &l);
	ck_assert_str_eq(l.title, "All of it");
	ck_assert_int_eq(l.step_count, 2);
	ck_assert_str_eq(l.steps[0].title, "First");
	ck_assert_str_eq(l.steps[0].notes, "line one\nline two");
	ck_assert_str_eq(l.steps[1].notes, "");
	ck_assert_int_eq(l.steps[0].count, 14);
	ck_assert_int_eq(l.steps[1].first, 14);
	ck_assert_int_eq(l.action_count, (int)(sizeof acts / sizeof *acts));
	for (int i = 0; i < l.action_count; i++)
		ck_assert_int_eq(l.actions[i].act, acts[i]);
	a = l.actions;
	ck_assert_int_eq(a[0].line, 7);
	ck_assert_str_eq(a[1].text, "../samples/causal.json");
	ck_assert_int_eq(a[2].tokens, 5);
	ck_assert_int_eq(a[2].d_k, 3);
	ck_assert_int_eq(a[2].d_v, 3); /* d_v is d_k unless given */
	ck_assert(a[2].seed == 42);
	ck_assert_int_eq(a[3].d_v, 3);
	ck_assert_int_eq(a[4].grid, QKV_GRID_Q);
	ck_assert_str_eq(a[4].row, "t1");
	ck_assert_str_eq(a[4].col, "d1");
	ck_assert(a[4].value == 3);
	ck_assert_int_eq(a[5].grid, QKV_GRID_W_Q);
	ck_assert(a[5].value == -0.5);
	ck_assert_int_eq(a[6].number, 64);
	ck_assert_int_eq(a[7].number, 0);
	ck_assert(a[8].value == 0.5);
	ck_assert_int_eq(a[9].number, 1);
	ck_assert_int_eq(a[10].number, 2);
	ck_assert_int_eq(a[11].number, 1);
	ck_assert_int_eq(a[12].number, 5);
	ck_assert_str_eq(a[13].row, "t3");
	ck_assert_int_eq(a[13].number, 1);
	a += 2;
	ck_assert_int_eq(a[12].number, 3);
	ck_assert_int_eq(a[13].number, APP_STAGE_LIVE);
	ck_assert_int_eq(a[14].number, 3);
	ck_assert_int_eq(a[15].grid, QKV_GRID_WEIGHTS);
	ck_assert_int_eq(a[16].number, VIEW_SATURATION);
	ck_assert(a[17].value == 0.4011 && a[17].tolerance == 0.0001);
	ck_assert_int_eq(a[18].grid, QKV_GRID_SCALED);
	ck_assert(a[18].tolerance == 0.01);
	/* No ±: the value stands rounded, half a unit of its last decimal either way. */
	ck_assert(fabs(a[19].tolerance - 0.00005) < 1e-15);
	ck_assert_int_eq(a[22].number, VIEW_NONE);
	ck_assert_str_eq(a[23].text, "d_k = 2");
	ck_assert_int_eq(a[24].line, 34);
	ck_assert(strstr(a[24].text, "\"Q\"") != NULL);
	lesson_free(&l);
}
END_TEST

/* Every refusal: the file, the line, and what was expected. */
static const struct {
	const char *text;
	int line;
	const char *words;
} refusals[] = {
	{ "", 1, "no steps" },
	{ "# only a comment\n\n", 2, "no steps" },
	{ "open example\n", 1, "before the first" },
	{ "note hello\n", 1, "before the first" },
	{ "step\n", 1, "title after step" },
	{ "lesson a\nlesson b\n", 2, "once" },
	{ "step a\nlesson b\n", 2, "once" },
	{ "step a\njump 3\n", 2, "expected step, note" },
	{ "step a\nopen\n", 2, "open needs" },
	{ "step a\nrandom tokens 3 dk 2\n", 2, "seed S" },
	{ "step a\nrandom tokens 0 dk 2 seed 1\n", 2, "tokens needs" },
	{ "step a\nrandom tokens 3 dk 2 seed -1\n", 2, "seed needs" },
	{ "step a\nrandom tokens 3 dk 2 seed 1 colour 2\n", 2, "takes tokens" },
	{ "step a\nrandom tokens 3 dk\n", 2, "pairs" },
	{ "step a\nset Q[t1,d1] 3\n", 2, "\"= \"" },
	{ "step a\nset Q[t1,d1] =\n", 2, "after \"=\"" },
	{ "step a\nset Q[t1,d1] = x\n", 2, "a number" },
	{ "step a\nset Q[t1,d1] = nan\n", 2, "a number" },
	{ "step a\nset Q[t1,d1] = 1e300\n", 2, "a number" },
	{ "step a\nset A[t1,t1] = 3\n", 2, "Q, K, V, X" },
	{ "step a\nset Q[t1] = 3\n", 2, "in brackets" },
	{ "step a\nset d_k = 0\n", 2, "d_k needs" },
	{ "step a\nset scale = maybe\n", 2, "off or on" },
	{ "step a\nset temperature = -1\n", 2, "positive" },
	{ "step a\nset mask = diagonal\n", 2, "none, causal or custom" },
	{ "step a\nset wrong = yes\n", 2, "mask-after-softmax" },
	{ "step a\nset projections = random\n", 2, "learned or identity" },
	{ "step a\nset colour = 3\n", 2, "set needs" },
	{ "step a\nset d_v = 0\n", 2, "d_v needs" },
	{ "step a\nset padding[] = on\n", 2, "a token in brackets" },
	{ "step a\nset padding[t3 = on\n", 2, "a token in brackets" },
	{ "step a\nset padding[t3] = yes\n", 2, "off or on" },
	{ "step a\nstage 9\n", 2, "0 to 7" },
	{ "step a\nstage output2\n", 2, "concat, W_O" },
	{ "step a\nhead 0\n", 2, "head needs a whole number from 1" },
	{ "step a\nhead two\n", 2, "head needs a whole number from 1" },
	{ "step a\nhead\n", 2, "head needs a whole number" },
	{ "step a\nset W_O[1,d1] = x\n", 2, "a number" },
	{ "step a\nselect concat[t1]\n", 2, "in brackets" },
	{ "step a\nselect A[t1,t3] now\n", 2, "end of the line" },
	{ "step a\nselect Z[t1,t3]\n", 2, "a cell like" },
	{ "step a\nview chart\n", 2, "saturation" },
	{ "step a\nexpect A[t1,t3] = 0.4 ~ 1\n", 2, "TOLERANCE" },
	{ "step a\nexpect A[t1,t3] = 0.4 ± -1\n", 2, "tolerance of 0" },
	{ "step a\nexpect A[t1,t3] = zero\n", 2, "a number" },
	{ "step a\nexpect message contains words\n", 2, "contains \"words\"" },
	{ "step a\nexpect message contains \"open\n", 2, "double quotes" },
	{ "step a\nexpect stage = 8\n", 2, "0 to 7" },
	{ "step a\nexpect head = 0\n", 2, "expect head needs" },
	{ "step a\nexpect info contains words\n", 2, "info contains \"words\"" },
	{ "step a\nexpect info \"words\"\n", 2, "info contains \"words\"" },
	{ "step a\nexpect d_k = many\n", 2, "whole number" },
	{ "step a\nexpect view = chart\n", 2, "saturation" },
	{ "step a\nexpect nothing\n", 2, "expect needs" },
	{ "step a\n\nproblem\n{\n", 3, "`end`" },
};

START_TEST(test_parse_refusals)
{
	struct lesson l;
	char err[600], place[32];
	const char *text = refusals[_i].text;

	snprintf(place, sizeof place, "t.lesson:%d: ", refusals[_i].line);
	ck_assert_int_eq(lesson_parse(text, strlen(text), "t.lesson", &l, err, sizeof err), -1);
	ck_assert_msg(strncmp(err, place, strlen(place)) == 0, "case %d: \"%s\" does not start with %s", _i, err, place);
	ck_assert_msg(strstr(err, refusals[_i].words) != NULL, "case %d: \"%s\" lacks \"%s\"", _i, err,
		      refusals[_i].words);
	ck_assert_msg(strchr(err, '\n') == NULL, "one line");
	ck_assert_int_eq(l.step_count, 0);
	ck_assert_ptr_null(l.actions);
}
END_TEST

/* Text that is not UTF-8, or holds a control character, is refused at its line
 * and column (columns in characters, counted by hand), as a problem file is. */
static const struct {
	const char *text, *message;
} encodings[] = {
	{ "step a\x1b[2J\n", "t.lesson:1:7: expected text, found the control character U+001B" },
	{ "step a\nnote \xc2\x9b""31m\n", "t.lesson:2:6: expected text, found the control character U+009B" },
	/* Raw C1 bytes: CSI and OSC to a terminal that reads 8-bit codes. */
	{ "step a\nnote \x9b""31m\n", "t.lesson:2:6: byte 0x9b is not valid UTF-8: a lesson is UTF-8 text "
	  "(alone, this byte is a control character to some terminals)" },
	{ "lesson T\x9d""0;x\x07\nstep a\n", "t.lesson:1:9: byte 0x9d is not valid UTF-8: a lesson is UTF-8 "
	  "text (alone, this byte is a control character to some terminals)" },
	/* "step é" is six characters (é two bytes): the stray byte is the seventh. */
	{ "step \xc3\xa9\x80\n", "t.lesson:1:7: byte 0x80 is not valid UTF-8: a lesson is UTF-8 text (alone, "
	  "this byte is a control character to some terminals)" },
	{ "step a\n\nnote \xc0\xaf\n", "t.lesson:3:6: byte 0xc0 is not valid UTF-8: a lesson is UTF-8 text" },
	{ "step a\nnote x \xe2\x82\n", "t.lesson:2:8: byte 0xe2 is not valid UTF-8: a lesson is UTF-8 text" },
	{ "step \xed\xa0\x80\n", "t.lesson:1:6: byte 0xed is not valid UTF-8: a lesson is UTF-8 text" },
	{ "step a\n\xff\n", "t.lesson:2:1: byte 0xff is not valid UTF-8: a lesson is UTF-8 text" },
	/* Inside an inline problem too: {"title": " is eleven characters. */
	{ "step a\nproblem\n{\"title\": \"\x9b\"}\nend\n", "t.lesson:3:12: byte 0x9b is not valid UTF-8: a lesson "
	  "is UTF-8 text (alone, this byte is a control character to some terminals)" },
};

START_TEST(test_parse_encoding)
{
	struct lesson l;
	char err[600];
	const char *text = encodings[_i].text;

	ck_assert_int_eq(lesson_parse(text, strlen(text), "t.lesson", &l, err, sizeof err), -1);
	ck_assert_str_eq(err, encodings[_i].message);
	ck_assert_int_eq(l.step_count, 0);
}
END_TEST

/* A byte order mark at the start is skipped, as in a problem file; the lesson
 * reads as without it. */
START_TEST(test_parse_byte_order_mark)
{
	struct lesson l;
	static const char text[] = "\xef\xbb\xbflesson Marked\nstep a\nnote b\n";

	parse_ok(text, &l);
	ck_assert_str_eq(l.title, "Marked");
	ck_assert_int_eq(l.step_count, 1);
	ck_assert_str_eq(l.steps[0].notes, "b");
	lesson_free(&l);
}
END_TEST

/* Writes a lesson of exactly size bytes (one step, then comment lines) to path. */
static void write_lesson_of_size(const char *path, size_t size)
{
	FILE *f = fopen(path, "wb");
	size_t written = 0;
	char comment[4001];

	ck_assert_ptr_nonnull(f);
	fputs("step a\n", f);
	written = 7;
	memset(comment, 'x', sizeof comment);
	comment[0] = '#';
	while (written < size) {
		size_t line = size - written < sizeof comment ? size - written : sizeof comment;

		fwrite(comment, 1, line - 1, f);
		fputc('\n', f);
		written += line;
	}
	fclose(f);
}

/* The limit is 4 MiB exactly: a lesson of 4,194,304 bytes is read, one of
 * 4,194,305 refused with one line that says the limit. */
START_TEST(test_size_limit_exact)
{
	struct lesson l;
	char path[64], err[600], expected[128];
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "/tmp/qkv-test-lesson-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_lesson_of_size(path, 4194304);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 4194304);
	ck_assert_msg(lesson_load(path, &l, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(l.step_count, 1);
	lesson_free(&l);
	write_lesson_of_size(path, 4194305);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 4194305);
	ck_assert_int_eq(lesson_load(path, &l, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: expected a lesson of at most 4194304 bytes (4 MiB)", path);
	ck_assert_str_eq(err, expected);
	unlink(path);
}
END_TEST

/* Many note lines and blank lines in a problem block keep every byte, in order
 * (the parse appends them in linear time; scripts/bench times it). */
START_TEST(test_long_notes_and_blocks_kept_whole)
{
	struct lesson l;
	size_t size = 0;
	char *text = NULL, *notes = NULL;
	FILE *f = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(f);
	fputs("step a\n", f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "note line %d\n", i);
	fputs("problem\n{\"Q\": [[1]], \"K\": [[1]], \"V\": [[1]]}\n", f);
	for (int i = 0; i < 20000; i++)
		fputc('\n', f);
	fputs("end\n", f);
	fclose(f);
	parse_ok(text, &l);
	ck_assert_int_eq(l.action_count, 1);
	ck_assert_uint_eq(strlen(l.actions[0].text), strlen("{\"Q\": [[1]], \"K\": [[1]], \"V\": [[1]]}\n") + 20000);
	{
		size_t length = 0;
		FILE *g = open_memstream(&notes, &length);

		for (int i = 0; i < 20000; i++)
			fprintf(g, i > 0 ? "\nline %d" : "line %d", i);
		fclose(g);
		ck_assert_str_eq(l.steps[0].notes, notes);
	}
	free(notes);
	free(text);
	lesson_free(&l);
}
END_TEST

START_TEST(test_parse_nul_and_missing_file)
{
	struct lesson l;
	char err[600];
	static const char text[] = "step a\nnote b\0c\n";

	ck_assert_int_eq(lesson_parse(text, sizeof text - 1, "t.lesson", &l, err, sizeof err), -1);
	ck_assert(strncmp(err, "t.lesson:2: ", 12) == 0);
	ck_assert(strstr(err, "NUL") != NULL);
	ck_assert_int_eq(lesson_load("/nonexistent/x.lesson", &l, err, sizeof err), -1);
	ck_assert(strncmp(err, "/nonexistent/x.lesson: cannot read", 34) == 0);
	/* A name with an escape sequence and a lone 0x9d (OSC) is quoted escaped. */
	ck_assert_int_eq(lesson_load("/nonexistent/\x1b]0;x\x07\x9d.lesson", &l, err, sizeof err), -1);
	ck_assert_str_eq(err, "/nonexistent/\\x1b]0;x\\x07\\x9d.lesson: cannot read the lesson: No such file or "
			 "directory");
	ck_assert_int_eq(lesson_parse("step\n", 5, "t\x1b.lesson", &l, err, sizeof err), -1);
	ck_assert(strncmp(err, "t\\x1b.lesson:1: ", 16) == 0);
}
END_TEST

/* What the replay refuses: one line with the lesson's file and the action's line. */
static const struct {
	const char *text;
	const char *start, *words;
} replay_refusals[] = {
	{ "step a\nselect A[t9,t1]\n", "t.lesson:2: ", "no token \"t9\"" },
	{ "step a\nset Q[t1,d7] = 1\n", "t.lesson:2: ", "no column \"d7\"" },
	{ "step a\nset X[t1,d1] = 1\n", "t.lesson:2: ", "computed here" },
	{ "step a\n\nstage 0\n", "t.lesson:3: ", "stage 0" },
	{ "step a\nset temperature = 0.3\n", "t.lesson:2: ", "not one of the steps" },
	{ "step a\nopen /nonexistent/p.json\n", "t.lesson:2: ", "open /nonexistent/p.json" },
	{ "step a\nset projections = identity\n", "t.lesson:2: ", "projections" },
	{ "step a\nexpect A[t1,t4] = 1\n", "t.lesson:2: ", "no token \"t4\"" },
	{ "step a\nset padding[t5] = on\n", "t.lesson:2: ", "no token \"t5\"" },
	{ "step a\nview learning\nstage 3\n", "t.lesson:3: ", "`view none` closes it" },
	/* The heads' actions and grids on the one-head worked example. */
	{ "step a\nhead 2\n", "t.lesson:2: ", "this problem has one head" },
	{ "step a\nstage 6\n", "t.lesson:2: ", "stage 6 (concat) needs a multi-head problem" },
	{ "step a\nstage W_O\n", "t.lesson:2: ", "stage 7 (W_O) needs a multi-head problem" },
	{ "step a\nselect concat[t1,1]\n", "t.lesson:2: ", "concat is a multi-head problem's" },
	{ "step a\nset W_O[1,d1] = 2\n", "t.lesson:2: ", "W_O is a multi-head problem's" },
	{ "step a\nexpect out[t1,d1] = 2\n", "t.lesson:2: ", "out is a multi-head problem's" },
	/* The loader's own place, counted in the lesson's lines. */
	{ "step a\nproblem\n{ \"Q\": [[1]],\n  \"K\": [[1]] }\nend\n", "t.lesson:3:", "missing \"V\"" },
};

START_TEST(test_replay_refusals)
{
	struct lesson l;
	char err[600] = "";
	int checked;

	parse_ok(replay_refusals[_i].text, &l);
	ck_assert_int_eq(lesson_check(&l, NULL, NULL, &checked, err, sizeof err), -1);
	ck_assert_msg(strncmp(err, replay_refusals[_i].start, strlen(replay_refusals[_i].start)) == 0, "case %d: %s",
		      _i, err);
	ck_assert_msg(strstr(err, replay_refusals[_i].words) != NULL, "case %d: %s", _i, err);
	lesson_free(&l);
}
END_TEST

static void count_line(const char *line, void *data)
{
	char *last = data;

	snprintf(last, 600, "%s", line);
}

START_TEST(test_check_reports_each_failure)
{
	struct lesson l;
	char err[600], last[600] = "";
	int checked;

	parse_ok("step a\nstage weights\nexpect A[t1,t1] = 0.38\nexpect A[t1,t1] = 0.4011\nexpect stage = 2\n", &l);
	ck_assert_int_eq(lesson_check(&l, count_line, last, &checked, err, sizeof err), 2);
	ck_assert_int_eq(checked, 3);
	ck_assert_msg(strncmp(last, "t.lesson:5: step 1 (a): expected stage = 2, qkv shows 3", 55) == 0, "%s", last);
	lesson_free(&l);
}
END_TEST

/* The heads' actions on the three-head sample: head N selects it as H does, the
 * stages go on to 6 and 7, W_O takes a typed value at hIdJ, concat and out cells
 * are selected and checked, and expect info reads the lines under the grids. */
START_TEST(test_heads_actions)
{
	struct lesson l;
	struct app app;
	char text[2048], err[600], last[600] = "";
	int checked;
	/* Head 3's query for sat is (5, 0), the keys the positions (1,0), (0,1),
	 * (−1,0): scores 5, 0, −5 over √2 on the three keys the causal mask leaves. */
	double e = exp(-5 / sqrt(2.0)), head3_sat_the = 1 / (1 + e + e * e);

	snprintf(text, sizeof text,
		 "step a\nopen %s/samples/heads-three-ways.json\nhead 3\nexpect head = 3\n"
		 "expect A[sat,the] = %.17g ± 1e-12\nstage weights\n"
		 "step b\nstage W_O\nset W_O[h3d1,d2] = 2\nselect out[sat,d2]\nexpect stage = 7\n"
		 "expect W_O[3,2] = 2 ± 0\n"
		 "step c\nstage concat\nselect concat[sat,h2d1]\nexpect info contains \"head 2's output[sat, d1]\"\n"
		 "step d\nexpect info contains \"no such words\"\nexpect head = 1\n",
		 getenv("QKV_SOURCE_ROOT"), head3_sat_the);
	parse_ok(text, &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.problem.h, 3);
	ck_assert_int_eq(app.head, 2);
	ck_assert_int_eq(app.stage, QKV_STAGE_WEIGHTS);
	ck_assert_double_eq_tol(qkv_matrix_get(&app.trace.weights, 2, 0), head3_sat_the, 1e-12);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 1, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.stage, APP_STAGE_LAYER);
	ck_assert(qkv_matrix_get(&app.problem.w_o, 2, 1) == 2.0);
	ck_assert_int_eq(app.focus, QKV_GRID_LAYER);
	ck_assert_int_eq(app.cursor[QKV_GRID_LAYER].row, 2);
	ck_assert_int_eq(app.cursor[QKV_GRID_LAYER].col, 1);
	/* out[sat, d2] = head 2's output + 2 · head 3's, each sat's weight on cat (V
	 * marks cat): scores −5, 0, 5 and 5, 0, −5 over √2 both give cat e/(1 + e + e²). */
	ck_assert_double_eq_tol(qkv_matrix_get(&app.heads.output, 2, 1), 3 * e / (1 + e + e * e), 1e-12);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 2, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.stage, APP_STAGE_CONCAT);
	ck_assert_int_eq(app.focus, QKV_GRID_CONCAT);
	ck_assert_int_eq(app.cursor[QKV_GRID_CONCAT].col, 1);
	app_fini(&app);
	/* Every expect but the last two holds: the words are not there, head 3 is selected. */
	ck_assert_int_eq(lesson_check(&l, count_line, last, &checked, err, sizeof err), 2);
	ck_assert_int_eq(checked, 7);
	ck_assert_msg(strstr(last, "expected head = 1, qkv shows 3") != NULL, "%s", last);
	lesson_free(&l);
}
END_TEST

/* Each action reaches the state its words name. */
START_TEST(test_actions_reach_their_state)
{
	struct lesson l;
	struct app app;
	char err[600];
	double r = 1 / sqrt(2.0);

	parse_ok("step a\nopen example\nset Q[t1,d2] = -1.5\nset temperature = 2\nset mask = causal\n"
		 "set scale = off\nset d_k = 3\nstage scaled\nselect O[t2,d2]\nview describe\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert(qkv_matrix_get(&app.problem.q, 0, 1) == -1.5);
	ck_assert(app.problem.temperature == 2);
	ck_assert_int_eq(app.problem.mask, QKV_MASK_CAUSAL);
	ck_assert_int_eq(app.problem.scale, QKV_SCALE_NONE);
	ck_assert_int_eq(qkv_problem_d_k(&app.problem), 3);
	ck_assert_int_eq(app.stage, QKV_STAGE_SCALED);
	ck_assert_int_eq(app.focus, QKV_GRID_OUTPUT);
	ck_assert_int_eq(app.cursor[QKV_GRID_OUTPUT].row, 1);
	ck_assert_int_eq(app.cursor[QKV_GRID_OUTPUT].col, 1);
	ck_assert_int_eq(app.view, VIEW_DESCRIBE);
	ck_assert_int_eq(app.width, 80);
	app_fini(&app);
	lesson_free(&l);

	/* The cost view opens (it measures with the monotonic clock) and closes; one
	 * view's key over another opens that one. */
	parse_ok("step a\nview cost\nexpect view = cost\nstep b\nview saturation\nstep c\nview none\n"
		 "step d\nview learning\nexpect view = learning\nstep e\nview describe\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.view, VIEW_COST);
	ck_assert(app.cost.running);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 1, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.view, VIEW_SATURATION);
	ck_assert(!app.cost.running);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 2, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.view, VIEW_NONE);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 3, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.view, VIEW_LEARNING);
	ck_assert_ptr_nonnull(app.learning);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 4, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.view, VIEW_DESCRIBE);
	app_fini(&app);
	lesson_free(&l);

	/* d_v up and down; a padding token hides its key from every query: t1 then
	 * sees t1 and t2 only, softmax(1/√2, 0). */
	parse_ok("step a\nset d_v = 4\nset padding[t3] = on\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(qkv_problem_d_v(&app.problem), 4);
	ck_assert(app.problem.padding != NULL && app.problem.padding[2] && !app.problem.padding[0]);
	ck_assert(fabs(qkv_matrix_get(&app.trace.weights, 0, 0) - exp(r) / (exp(r) + 1)) < 1e-12);
	ck_assert(qkv_matrix_get(&app.trace.weights, 0, 2) == 0);
	app_fini(&app);
	lesson_free(&l);
	parse_ok("step a\nset d_v = 4\nset padding[t3] = on\nset padding[t3] = off\nset d_v = 1\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(qkv_problem_d_v(&app.problem), 1);
	ck_assert(app.problem.padding == NULL || !app.problem.padding[2]);
	ck_assert(fabs(qkv_matrix_get(&app.trace.weights, 0, 2) - softmax3(r, 0, r, 2)) < 1e-12);
	app_fini(&app);
	lesson_free(&l);

	/* Temperature down, d_k down by halves and by one, the scaling back on: the
	 * weights of t1 are those of the course's example at τ = 0.5. */
	parse_ok("step a\nset d_k = 8\nset temperature = 0.5\nset d_k = 2\nset scale = on\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(qkv_problem_d_k(&app.problem), 2);
	ck_assert(fabs(qkv_matrix_get(&app.trace.weights, 0, 0) - softmax3(2 * r, 0, 2 * r, 0)) < 1e-12);
	app_fini(&app);
	lesson_free(&l);
}
END_TEST

/* Columns j ≥ from of Q that are all zero, counted in the problem itself. */
static int zero_columns(const struct qkv_problem *p, int from)
{
	int zeros = 0;

	for (int c = from; c < p->q.cols; c++) {
		bool zero = true;

		for (int r = 0; r < p->n; r++)
			zero &= qkv_matrix_get(&p->q, r, c) == 0.0;
		zeros += zero;
	}
	return zeros;
}

/* A step that changes d_k by several presses says what the whole step did: the
 * columns it drew, added or dropped, counted from d_k before the step. */
START_TEST(test_d_k_step_counts_the_whole_step)
{
	struct lesson l;
	struct app app;
	char err[600];

	/* 2 → 512 by doubling: 510 columns drawn, none of them zero. */
	parse_ok("step a\nrandom tokens 4 dk 2 seed 7\nstep b\nset d_k = 512\n"
		 "step c\nset d_k = 2\n", &l);
	ck_assert_int_eq(lesson_build(&l, 1, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(qkv_problem_d_k(&app.problem), 512);
	ck_assert_int_eq(zero_columns(&app.problem, 2), 0);
	ck_assert_msg(strstr(app.message, "d_k = 512 (from 2): 510 new columns of Q and K drawn from N(0,1), seed 7") ==
			      app.message, "%s", app.message);
	app_fini(&app);
	/* And back: 510 columns dropped. */
	ck_assert_int_eq(lesson_build(&l, 2, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(qkv_problem_d_k(&app.problem), 2);
	ck_assert_msg(strcmp(app.message, "d_k = 2 (from 512): the last 510 columns of Q and K dropped") == 0, "%s",
		      app.message);
	app_fini(&app);
	lesson_free(&l);

	/* The hand-made example, 2 → 6: > draws 2 columns, ] adds a zero one twice. */
	parse_ok("step a\nopen example\nset d_k = 6\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(qkv_problem_d_k(&app.problem), 6);
	ck_assert_int_eq(zero_columns(&app.problem, 2), 2);
	ck_assert_msg(strcmp(app.message, "d_k = 6 (from 2): 2 new columns of Q and K drawn from N(0,1), seed 1, "
					  "and 2 zero columns added") == 0, "%s", app.message);
	app_fini(&app);
	lesson_free(&l);

	/* One press is one change: its own sentence. */
	parse_ok("step a\nopen example\nset d_k = 3\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_msg(strcmp(app.message, "d_k = 3: a zero column added to Q and K") == 0, "%s", app.message);
	app_fini(&app);
	lesson_free(&l);
}
END_TEST

START_TEST(test_inline_problem_and_random)
{
	struct lesson l;
	struct app app;
	char err[600];

	parse_ok("step a\nproblem\n{ \"tokens\": [\"a\", \"b\"], \"Q\": [[1], [0]], \"K\": [[1], [0]],\n"
		 "  \"V\": [[1], [3]] }\nend\nexpect A[a,a] = 0.7311\n"
		 "step b\nrandom tokens 6 dk 4 seed 9\nexpect d_k = 4\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.problem.n, 2);
	/* softmax(1, 0) = e / (e + 1). */
	ck_assert(fabs(qkv_matrix_get(&app.trace.weights, 0, 0) - exp(1) / (exp(1) + 1)) < 1e-12);
	app_fini(&app);
	ck_assert_int_eq(lesson_build(&l, 1, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.problem.n, 6);
	ck_assert(app.problem.seeded && app.problem.seed == 9);
	app_fini(&app);
	lesson_free(&l);
}
END_TEST

/* Cross-attention in a lesson: cells name queries by their own labels (rows of Q,
 * X_q, A, O) and tokens by theirs (rows of K, V, X, columns of A); set writes X_q;
 * padding names a key. The weights: query b = (0, 1)·W, keys x, y, z as in the
 * file: q_b = X_q[b] W_Q. */
START_TEST(test_cross_cells)
{
	struct lesson l;
	struct app app;
	char err[600];

	parse_ok("step a\nproblem\n"
		 "{ \"query_tokens\": [\"a\", \"b\"], \"tokens\": [\"x\", \"y\", \"z\"],\n"
		 "  \"X\": [[1, 0], [0, 1], [1, 1]], \"X_q\": [[1, 0], [0, 2]],\n"
		 "  \"W_Q\": [[1, 0], [0, 1]], \"W_K\": [[1, 0], [0, 1]], \"W_V\": [[1], [0]] }\nend\n"
		 "select X_q[b,m2]\nexpect X_q[b,m2] = 2 ± 0\nexpect X[z,m1] = 1 ± 0\n"
		 "set X_q[b,m2] = 0\nstage weights\nexpect A[b,x] = 0.3333\n"
		 "set padding[z] = on\nexpect A[a,z] = 0 ± 0\n", &l);
	ck_assert_int_eq(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_int_eq(app.problem.m, 2);
	ck_assert_int_eq(app.problem.n, 3);
	ck_assert(qkv_matrix_get(&app.problem.x_q, 1, 1) == 0.0);
	ck_assert(app.problem.padding != NULL && app.problem.padding[2]);
	/* q_a = (1, 0): scores (1, 0, 1)/√2 over x, y (z padded): e^(1/√2) / (e^(1/√2) + 1). */
	ck_assert(fabs(qkv_matrix_get(&app.trace.weights, 0, 0) - exp(M_SQRT1_2) / (exp(M_SQRT1_2) + 1)) < 1e-12);
	app_fini(&app);
	lesson_free(&l);
	/* A query's label is not a token's, nor the other way round. */
	parse_ok("step a\nproblem\n{ \"query_tokens\": [\"a\"], \"Q\": [[1]], \"K\": [[1], [2]], \"V\": [[1], [0]] }\n"
		 "end\nselect A[t1,a]\n", &l);
	ck_assert_int_ne(lesson_build(&l, 0, &look80, &app, err, sizeof err), 0);
	ck_assert_msg(strstr(err, "no query \"t1\" in this problem: its queries are a … a (or 1 to 1)") != NULL, "%s", err);
	lesson_free(&l);
}
END_TEST

/* Two apps show the same thing: problem, trace, and where everything is. */
static void assert_same(const struct app *a, const struct app *b, int step)
{
	const struct qkv_matrix *ma[] = { &a->trace.q, &a->trace.k, &a->trace.v, &a->trace.scores, &a->trace.weights,
					  &a->trace.output };
	const struct qkv_matrix *mb[] = { &b->trace.q, &b->trace.k, &b->trace.v, &b->trace.scores, &b->trace.weights,
					  &b->trace.output };

	ck_assert_msg(a->problem.n == b->problem.n, "step %d: n", step);
	for (int m = 0; m < 6; m++) {
		ck_assert_int_eq(ma[m]->rows, mb[m]->rows);
		ck_assert_int_eq(ma[m]->cols, mb[m]->cols);
		ck_assert_msg(memcmp(ma[m]->values, mb[m]->values, sizeof(double) * (size_t)(ma[m]->rows * ma[m]->cols)) == 0,
			      "step %d: matrix %d differs", step, m);
	}
	ck_assert_int_eq(a->problem.mask, b->problem.mask);
	ck_assert_int_eq(a->problem.wrong, b->problem.wrong);
	ck_assert_int_eq(a->problem.scale, b->problem.scale);
	ck_assert_int_eq(a->stage, b->stage);
	ck_assert_int_eq(a->view, b->view);
	ck_assert_int_eq(a->focus, b->focus);
	ck_assert(memcmp(a->cursor, b->cursor, sizeof a->cursor) == 0);
	ck_assert_str_eq(a->message, b->message);
}

static int key(struct lesson_run *run, struct app *app, int k)
{
	struct event e = { .type = EVENT_KEY, .key = k };

	return lesson_update(run, app, &e);
}

static const char *const shipped[] = { "worked-example", "projections", "masks", "saturation", "learning", "heads",
					"cross-attention" };

static void load_shipped(const char *name, struct lesson *l)
{
	const char *root = getenv("QKV_SOURCE_ROOT");
	char path[1024], err[600];

	snprintf(path, sizeof path, "%s/lessons/%s.lesson", root != NULL ? root : "..", name);
	ck_assert_msg(lesson_load(path, l, err, sizeof err) == 0, "%s", err);
}

/* Step k reached by PageDown from the start is step k reached by PageUp from the end. */
START_TEST(test_replay_forward_equals_backward)
{
	struct lesson l;
	struct lesson_run forward_run, back_run;
	struct app forward, back;
	char err[600];
	int count;

	load_shipped(shipped[_i], &l);
	count = l.step_count;
	struct app *states = calloc((size_t)count, sizeof *states);

	ck_assert_int_eq(lesson_run_start(&forward_run, &l, &look80, &forward, err, sizeof err), 0);
	for (int k = 0; k < count; k++) {
		if (k > 0)
			ck_assert(key(&forward_run, &forward, APP_KEY_PAGE_DOWN) & REDRAW_LAYOUT);
		ck_assert_int_eq(forward_run.step, k);
		ck_assert_int_eq(lesson_build(&l, k, &look80, &states[k], err, sizeof err), 0);
		assert_same(&forward, &states[k], k);
	}
	ck_assert_int_eq(lesson_run_start(&back_run, &l, &look80, &back, err, sizeof err), 0);
	key(&back_run, &back, APP_KEY_END);
	for (int k = count - 1; k >= 0; k--) {
		ck_assert_int_eq(back_run.step, k);
		assert_same(&back, &states[k], k);
		key(&back_run, &back, APP_KEY_PAGE_UP);
	}
	/* Home restarts; a number and Enter jump. */
	key(&back_run, &back, APP_KEY_END);
	key(&back_run, &back, APP_KEY_HOME);
	assert_same(&back, &states[0], 0);
	{
		char digits[8];

		snprintf(digits, sizeof digits, "%d", count); /* the last step, in one or two digits */
		for (const char *d = digits; *d != '\0'; d++)
			key(&back_run, &back, *d);
	}
	ck_assert_int_eq(back_run.step, 0); /* typed, not yet gone */
	key(&back_run, &back, APP_KEY_ENTER);
	ck_assert_int_eq(back_run.step, count - 1);
	assert_same(&back, &states[count - 1], count - 1);
	for (int k = 0; k < count; k++)
		app_fini(&states[k]);
	free(states);
	app_fini(&forward);
	app_fini(&back);
	lesson_free(&l);
}
END_TEST

/* Notes in pages: PageDown turns them before it steps, PageUp turns them back
 * before it goes back, and a new step starts on its first page. */
START_TEST(test_notes_pages_turn_before_steps)
{
	struct lesson l;
	struct lesson_run run;
	struct app app;
	char err[600];

	load_shipped("worked-example", &l);
	ck_assert_int_eq(lesson_run_start(&run, &l, &look80, &app, err, sizeof err), 0);
	lesson_notes_pages(&run, 3);
	ck_assert_int_eq(run.page, 0);
	ck_assert_int_eq(key(&run, &app, APP_KEY_PAGE_DOWN), REDRAW_STATUS);
	ck_assert_int_eq(run.step, 0);
	ck_assert_int_eq(run.page, 1);
	key(&run, &app, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(run.step, 0);
	ck_assert_int_eq(run.page, 2);
	key(&run, &app, APP_KEY_PAGE_UP);
	ck_assert_int_eq(run.step, 0);
	ck_assert_int_eq(run.page, 1);
	key(&run, &app, APP_KEY_PAGE_DOWN);
	key(&run, &app, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(run.step, 1);
	ck_assert_int_eq(run.page, 0);
	/* A screen that grows shows fewer pages: the page shown stays within them. */
	lesson_notes_pages(&run, 2);
	key(&run, &app, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(run.page, 1);
	lesson_notes_pages(&run, 1);
	ck_assert_int_eq(run.page, 0);
	/* On its first page PageUp goes back a step. */
	key(&run, &app, APP_KEY_PAGE_UP);
	ck_assert_int_eq(run.step, 0);
	ck_assert_int_eq(run.page, 0);
	app_fini(&app);
	lesson_free(&l);
}
END_TEST

/* A change by hand during a step; PageDown goes on from the lesson's own state and says so. */
START_TEST(test_exploration_then_next_step)
{
	struct lesson l;
	struct lesson_run run;
	struct app app, expected;
	char err[600];

	load_shipped("worked-example", &l);
	ck_assert_int_eq(lesson_run_start(&run, &l, &look80, &app, err, sizeof err), 0);
	/* Enter edits Q[t1,d1]; digits then go to the cell, not to a step number. */
	key(&run, &app, APP_KEY_ENTER);
	ck_assert(app.editing);
	key(&run, &app, APP_KEY_CTRL_U);
	key(&run, &app, '7');
	key(&run, &app, APP_KEY_ENTER);
	ck_assert(qkv_matrix_get(&app.problem.q, 0, 0) == 7);
	ck_assert(run.explored);
	key(&run, &app, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(run.step, 1);
	ck_assert(strstr(run.said, "lesson's own state") != NULL);
	ck_assert(!run.explored);
	ck_assert(qkv_matrix_get(&app.problem.q, 0, 0) == 1);
	ck_assert_int_eq(lesson_build(&l, 1, &look80, &expected, err, sizeof err), 0);
	assert_same(&app, &expected, 1);
	/* The next step after one untouched says nothing more. */
	key(&run, &app, APP_KEY_PAGE_DOWN);
	ck_assert_str_eq(run.said, "");
	/* A step that does not exist is named, and nothing moves. */
	key(&run, &app, '9');
	key(&run, &app, '9');
	ck_assert(strstr(run.said, "go to step 99") != NULL);
	key(&run, &app, APP_KEY_ENTER);
	ck_assert_int_eq(run.step, 2);
	ck_assert(strstr(run.said, "no step 99: the steps go from 1 to 6") != NULL);
	/* At the last step PageDown says so. */
	key(&run, &app, APP_KEY_END);
	key(&run, &app, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(run.step, 5);
	ck_assert(strstr(run.said, "last step") != NULL);
	app_fini(&expected);
	app_fini(&app);
	lesson_free(&l);
}
END_TEST

/* Every shipped lesson replays and every expect holds. */
START_TEST(test_shipped_lessons_hold)
{
	struct lesson l;
	char err[600], last[600] = "";
	int checked;

	load_shipped(shipped[_i], &l);
	ck_assert_msg(lesson_check(&l, count_line, last, &checked, err, sizeof err) == 0, "%s %s", err, last);
	ck_assert_int_gt(checked, 3);
	lesson_free(&l);
}
END_TEST

/* The course's exact weights are what the worked-example lesson expects. */
START_TEST(test_worked_example_exact)
{
	struct lesson l;
	double r = 1 / sqrt(2.0);
	bool found[2] = { false, false };

	load_shipped("worked-example", &l);
	for (int i = 0; i < l.action_count; i++) {
		const struct lesson_action *a = &l.actions[i];

		if (a->act != ACT_EXPECT_CELL || a->grid != QKV_GRID_WEIGHTS)
			continue;
		if (strcmp(a->row, "t1") == 0 && strcmp(a->col, "t3") == 0) {
			ck_assert(fabs(a->value - softmax3(r, 0, r, 2)) <= a->tolerance);
			found[0] = true;
		}
		if (strcmp(a->row, "t3") == 0 && strcmp(a->col, "t3") == 0) {
			ck_assert(fabs(a->value - softmax3(r, r, 2 * r, 2)) <= a->tolerance);
			found[1] = true;
		}
	}
	ck_assert(found[0] && found[1]);
	lesson_free(&l);
}
END_TEST

/* --- the notes socket -------------------------------------------------------- */

static char runtime[64];

static void private_runtime(void)
{
	snprintf(runtime, sizeof runtime, "/tmp/qkv-test-notes.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(runtime));
	setenv("XDG_RUNTIME_DIR", runtime, 1);
}

static void remove_runtime(void)
{
	char path[128];

	snprintf(path, sizeof path, "%s/qkv-lesson.sock", runtime);
	unlink(path);
	rmdir(runtime);
}

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* Forks a notes screen following l, its stream into (stdout or stderr) written to
 * the file output; returns the child, which exits with the notes screen's status
 * (9 when output cannot be opened). */
static pid_t follow_in_child(const struct lesson *l, const char *output, FILE *into)
{
	pid_t child = fork();

	ck_assert(child >= 0);
	if (child == 0) {
		int status;

		if (freopen(output, "w", into) == NULL)
			_exit(9);
		status = notes_screen_follow(l);
		fflush(stdout);
		fflush(stderr);
		_exit(status);
	}
	return child;
}

START_TEST(test_notes_follow_three_steps)
{
	struct lesson l;
	struct notes_server server, second;
	char err[600], output[128], *text;
	struct stat st;
	pid_t child;
	int status;
	FILE *f;
	long size;

	private_runtime();
	load_shipped("worked-example", &l);
	ck_assert_msg(notes_server_open(&server, l.path, l.step_count, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(lstat(server.path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_uid, geteuid());
	ck_assert(strncmp(server.path, runtime, strlen(runtime)) == 0);
	/* One lesson at a time. */
	ck_assert_int_eq(notes_server_open(&second, l.path, l.step_count, err, sizeof err), -1);
	ck_assert(strstr(err, "another lesson is being presented") != NULL);

	snprintf(output, sizeof output, "%s/notes.txt", runtime);
	child = follow_in_child(&l, output, stdout);
	/* Each step goes down the socket as a line, read in order by the notes screen
	 * (the server tells a follower the step as it takes it in): no pause between
	 * steps, only the wait (up to 5 s) for the notes screen to connect. */
	for (int step = 0; step < 3; step++) {
		for (int i = 0; i < 500 && !notes_server_followed(&server); i++) {
			notes_server_poll(&server, step);
			pause_ms(10);
		}
		notes_server_poll(&server, step);
	}
	ck_assert(notes_server_followed(&server));
	notes_server_close(&server);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_ne(lstat(server.path, &st), 0); /* the socket is gone */

	f = fopen(output, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = calloc((size_t)size + 1, 1);
	ck_assert_int_eq(fread(text, 1, (size_t)size, f), size);
	fclose(f);
	unlink(output);
	{
		const char *one = strstr(text, "Step 1 of 6: The three tokens");
		const char *two = strstr(text, "Step 2 of 6: Scores");
		const char *three = strstr(text, "Step 3 of 6: Scaled");

		ck_assert_msg(one != NULL && two != NULL && three != NULL && one < two && two < three, "%s", text);
		ck_assert(strncmp(text, "The worked example, by hand and exactly\n\nStep 1 of 6", 51) == 0);
		/* The full notes of the current step, and the next step's. */
		ck_assert(strstr(one, "Ask the class: which token should t1 listen to?") != NULL);
		ck_assert(strstr(one, "Next, step 2: Scores") != NULL);
		ck_assert(strstr(text, "The lesson has ended.") != NULL);
	}
	free(text);
	lesson_free(&l);
	remove_runtime();
}
END_TEST

/* A notes screen started with another lesson says which one is presented. */
START_TEST(test_notes_other_lesson)
{
	struct lesson shown, mine;
	struct notes_server server;
	char err[600], output[128], text[2048] = "";
	pid_t child;
	int status;
	FILE *f;
	size_t got;

	private_runtime();
	load_shipped("masks", &shown);
	load_shipped("saturation", &mine);
	ck_assert_msg(notes_server_open(&server, shown.path, shown.step_count, err, sizeof err) == 0, "%s", err);
	snprintf(output, sizeof output, "%s/other.txt", runtime);
	child = follow_in_child(&mine, output, stdout);
	for (int i = 0; i < 100 && !notes_server_followed(&server); i++) {
		notes_server_poll(&server, 0);
		pause_ms(10);
	}
	notes_server_close(&server);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	f = fopen(output, "r");
	ck_assert_ptr_nonnull(f);
	got = fread(text, 1, sizeof text - 1, f);
	text[got] = '\0';
	fclose(f);
	unlink(output);
	ck_assert_msg(strstr(text, "The lesson being presented is ") != NULL && strstr(text, "masks.lesson, not ") != NULL,
		      "%s", text);
	ck_assert(strstr(text, "Step 1 of") == NULL); /* not the notes of the wrong lesson */
	lesson_free(&shown);
	lesson_free(&mine);
	remove_runtime();
}
END_TEST

/* A lesson whose full path is over 1023 bytes (five folders of 230 bytes): the
 * presenter sends that whole path and its notes screen recognises it as its own,
 * in every build (realpath into a fixed buffer overflowed there). */
START_TEST(test_notes_long_lesson_path)
{
	struct lesson l;
	struct notes_server server;
	char err[600], output[128], text[4096] = "", folder[1400], part[232];
	pid_t child;
	int status;
	FILE *f;
	size_t got;

	private_runtime();
	memset(part, 'f', sizeof part - 1);
	part[sizeof part - 1] = '\0';
	snprintf(folder, sizeof folder, "%s", runtime);
	for (int depth = 0; depth < 5; depth++) {
		size_t used = strlen(folder);

		snprintf(folder + used, sizeof folder - used, "/%s", part);
		ck_assert_int_eq(mkdir(folder, 0700), 0);
	}
	strcat(folder, "/long.lesson");
	ck_assert_int_gt(strlen(folder), 1023);
	f = fopen(folder, "w");
	ck_assert_ptr_nonnull(f);
	fputs("lesson Far away\nstep One\nnote the first note\nstep Two\nnote the second note\n", f);
	fclose(f);
	ck_assert_msg(lesson_load(folder, &l, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(notes_server_open(&server, l.path, l.step_count, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(server.lesson, folder); /* the folders are real: the path is its own full path */
	snprintf(output, sizeof output, "%s/long.txt", runtime);
	child = follow_in_child(&l, output, stdout);
	for (int i = 0; i < 100 && !notes_server_followed(&server); i++) {
		notes_server_poll(&server, 1);
		pause_ms(10);
	}
	notes_server_close(&server);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	f = fopen(output, "r");
	ck_assert_ptr_nonnull(f);
	got = fread(text, 1, sizeof text - 1, f);
	text[got] = '\0';
	fclose(f);
	unlink(output);
	ck_assert_msg(strstr(text, "Step 2 of 2: Two") != NULL && strstr(text, "the second note") != NULL, "%s", text);
	ck_assert(strstr(text, "The lesson being presented is") == NULL);
	lesson_free(&l);
	unlink(folder);
	for (int depth = 0; depth < 5; depth++) {
		*strrchr(folder, '/') = '\0';
		ck_assert_int_eq(rmdir(folder), 0);
	}
	remove_runtime();
}
END_TEST

START_TEST(test_notes_stale_socket_replaced)
{
	struct lesson l;
	struct notes_server server;
	struct sockaddr_un address;
	char err[600], path[100];
	int fd;

	private_runtime();
	parse_ok("step a\nnote b\n", &l);
	/* A socket left behind by a lesson that ended without cleaning up. */
	snprintf(path, sizeof path, "%s/qkv-lesson.sock", runtime);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&address, 0, sizeof address);
	address.sun_family = AF_UNIX;
	snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&address, sizeof address), 0);
	close(fd);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_msg(notes_server_open(&server, l.path, 1, err, sizeof err) == 0, "%s", err);
	notes_server_close(&server);
	/* Not a socket: left alone, and said. */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	ck_assert_int_eq(notes_server_open(&server, l.path, 1, err, sizeof err), -1);
	ck_assert(strstr(err, "not a socket of yours") != NULL);
	unlink(path);
	lesson_free(&l);
	remove_runtime();
}
END_TEST

static double seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A notes screen that stops reading (a socket never read, a notes screen stopped
 * as by Ctrl-Z) while the presenter changes step 1,000 times: no step waits for
 * it, both are dropped, and the stopped screen, once it runs again, says why. */
START_TEST(test_notes_follower_falls_behind)
{
	struct lesson l;
	struct notes_server server;
	struct sockaddr_un address;
	char err[600], output[128], *text;
	double slowest = 0;
	pid_t child;
	int status, idle;

	private_runtime();
	parse_ok("step one\nnote first\nstep two\nnote second\n", &l);
	ck_assert_msg(notes_server_open(&server, "t.lesson", l.step_count, err, sizeof err) == 0, "%s", err);
	idle = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&address, 0, sizeof address);
	address.sun_family = AF_UNIX;
	snprintf(address.sun_path, sizeof address.sun_path, "%s", server.path);
	ck_assert_int_eq(connect(idle, (struct sockaddr *)&address, sizeof address), 0);
	snprintf(output, sizeof output, "%s/behind.txt", runtime);
	child = follow_in_child(&l, output, stdout);
	/* Both followers in, then the notes screen stopped. */
	for (int i = 0; i < 500; i++) {
		int count = 0;

		notes_server_poll(&server, 0);
		for (int f = 0; f < NOTES_MAX_FOLLOWERS; f++)
			count += server.followers[f] >= 0;
		if (count == 2)
			break;
		pause_ms(10);
	}
	ck_assert_int_eq(kill(child, SIGSTOP), 0);
	for (int step = 1; step <= 1000; step++) {
		double before = seconds_now(), took;

		notes_server_poll(&server, step % 2);
		took = seconds_now() - before;
		if (took > slowest)
			slowest = took;
	}
	ck_assert_msg(slowest < 0.1, "one step took %.3f s", slowest);
	ck_assert(!notes_server_followed(&server)); /* both fell behind and were let go */
	ck_assert_int_eq(kill(child, SIGCONT), 0);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	text = slurp(output);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "The presenter dropped this screen: it fell behind.") != NULL, "%s", text);
	ck_assert(strstr(text, "The lesson has ended.") == NULL);
	free(text);
	unlink(output);
	close(idle);
	notes_server_close(&server);
	lesson_free(&l);
	remove_runtime();
}
END_TEST

/* The lesson's end reaches a notes screen that keeps up: it says so, status 0. */
START_TEST(test_notes_end_is_said)
{
	struct lesson l;
	struct notes_server server;
	char err[600], output[128], *text;
	pid_t child;
	int status;

	private_runtime();
	parse_ok("step one\nnote first\n", &l);
	ck_assert_msg(notes_server_open(&server, "t.lesson", l.step_count, err, sizeof err) == 0, "%s", err);
	snprintf(output, sizeof output, "%s/end.txt", runtime);
	child = follow_in_child(&l, output, stdout);
	for (int i = 0; i < 500 && !notes_server_followed(&server); i++) {
		notes_server_poll(&server, 0);
		pause_ms(10);
	}
	ck_assert(notes_server_followed(&server));
	notes_server_close(&server);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	text = slurp(output);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "The lesson has ended.") != NULL, "%s", text);
	ck_assert(strstr(text, "dropped") == NULL);
	free(text);
	unlink(output);
	lesson_free(&l);
	remove_runtime();
}
END_TEST

/* The usual folder TMPDIR/qkv-UID not private (a mode others may enter, a file in
 * its place): the presenter makes a fresh private folder, says where, a notes
 * screen finds it there, a second presenter is still refused, and the folder goes
 * with the lesson; what was in the way is left as it was. */
START_TEST(test_notes_folder_taken)
{
	char base[64], usual[128], err[600], found[128];
	struct notes_server server, second;
	struct stat st;

	snprintf(base, sizeof base, "/tmp/qkv-test-base.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	unsetenv("XDG_RUNTIME_DIR");
	setenv("TMPDIR", base, 1);
	snprintf(usual, sizeof usual, "%s/qkv-%lu", base, (unsigned long)geteuid());
	if (_i == 0) {
		ck_assert_int_eq(mkdir(usual, 0700), 0);
		ck_assert_int_eq(chmod(usual, 0755), 0);
	} else {
		int fd = open(usual, O_WRONLY | O_CREAT | O_EXCL, 0600);

		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	ck_assert_msg(notes_server_open(&server, "t.lesson", 1, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(strncmp(server.folder, usual, strlen(usual)) == 0 && server.folder[strlen(usual)] == '.',
		      "%s", server.folder);
	ck_assert_int_eq(lstat(server.folder, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(st.st_uid, geteuid());
	ck_assert(strncmp(server.path, server.folder, strlen(server.folder)) == 0);
	ck_assert_msg(strstr(server.said, server.path) != NULL && strstr(server.said, usual) != NULL, "%s", server.said);
	ck_assert_msg(notes_socket_path(found, sizeof found, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(found, server.path);
	ck_assert_int_eq(notes_server_open(&second, "t.lesson", 1, err, sizeof err), -1);
	ck_assert(strstr(err, "another lesson is being presented") != NULL);
	notes_server_close(&server);
	ck_assert_int_ne(lstat(server.folder[0] != '\0' ? server.folder : server.path, &st), 0);
	ck_assert_int_eq(lstat(usual, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, _i == 0 ? 0755 : 0600);
	/* With no lesson, a notes screen finds no socket. */
	ck_assert_int_eq(notes_socket_path(found, sizeof found, err, sizeof err), -1);
	if (_i == 0)
		rmdir(usual);
	else
		unlink(usual);
	rmdir(base);
	unsetenv("TMPDIR");
}
END_TEST

START_TEST(test_notes_nothing_running)
{
	struct lesson l;
	char output[128], line[400] = "";
	pid_t child;
	int status;
	FILE *f;

	private_runtime();
	parse_ok("step a\nnote b\n", &l);
	snprintf(output, sizeof output, "%s/err.txt", runtime);
	child = follow_in_child(&l, output, stderr);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	f = fopen(output, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	fclose(f);
	unlink(output);
	ck_assert_msg(strncmp(line, "qkv: no lesson is being presented", 33) == 0, "%s", line);
	lesson_free(&l);
	remove_runtime();
}
END_TEST

/* The notes are broken at spaces to the width, never inside a word. */
START_TEST(test_notes_wrapped)
{
	struct lesson l;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int longest = 0, words = 0;
	static const char *const note_words[] = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
						  "iota", "kappa" };

	parse_ok("step One\nnote alpha beta gamma delta epsilon zeta eta theta iota kappa\nstep Two\nnote x\n", &l);
	ck_assert_ptr_nonnull(f);
	notes_write(f, &l, 0, 20);
	fclose(f);
	for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		int length = (int)strlen(line);

		longest = length > longest ? length : longest;
		ck_assert(line[0] != ' ' && line[length - 1] != ' ');
		for (char *word = line; *word != '\0';) {
			size_t n = strcspn(word, " ");

			for (int w = 0; w < 10; w++)
				words += strlen(note_words[w]) == n && strncmp(word, note_words[w], n) == 0;
			word += n + (word[n] == ' ');
		}
	}
	ck_assert_int_le(longest, 20);
	ck_assert_int_eq(words, 10); /* every word whole */
	free(text);
	lesson_free(&l);
}
END_TEST

static Suite *lesson_suite(void)
{
	Suite *s = suite_create("lesson");
	TCase *parse = tcase_create("parse"), *replay = tcase_create("replay"), *notes = tcase_create("notes");

	tcase_add_test(parse, test_parse_every_action);
	tcase_add_loop_test(parse, test_parse_refusals, 0, (int)(sizeof refusals / sizeof *refusals));
	tcase_add_test(parse, test_parse_nul_and_missing_file);
	tcase_add_loop_test(parse, test_parse_encoding, 0, (int)(sizeof encodings / sizeof *encodings));
	tcase_add_test(parse, test_parse_byte_order_mark);
	tcase_add_test(parse, test_size_limit_exact);
	tcase_add_test(parse, test_long_notes_and_blocks_kept_whole);
	suite_add_tcase(s, parse);
	tcase_set_timeout(replay, 60);
	tcase_add_loop_test(replay, test_replay_refusals, 0, (int)(sizeof replay_refusals / sizeof *replay_refusals));
	tcase_add_test(replay, test_check_reports_each_failure);
	tcase_add_test(replay, test_actions_reach_their_state);
	tcase_add_test(replay, test_heads_actions);
	tcase_add_test(replay, test_inline_problem_and_random);
	tcase_add_test(replay, test_cross_cells);
	tcase_add_test(replay, test_d_k_step_counts_the_whole_step);
	tcase_add_loop_test(replay, test_replay_forward_equals_backward, 0, (int)(sizeof shipped / sizeof *shipped));
	tcase_add_test(replay, test_exploration_then_next_step);
	tcase_add_test(replay, test_notes_pages_turn_before_steps);
	tcase_add_loop_test(replay, test_shipped_lessons_hold, 0, (int)(sizeof shipped / sizeof *shipped));
	tcase_add_test(replay, test_worked_example_exact);
	suite_add_tcase(s, replay);
	tcase_add_test(notes, test_notes_follow_three_steps);
	tcase_add_test(notes, test_notes_stale_socket_replaced);
	tcase_add_test(notes, test_notes_nothing_running);
	tcase_add_test(notes, test_notes_wrapped);
	tcase_add_test(notes, test_notes_other_lesson);
	tcase_add_test(notes, test_notes_long_lesson_path);
	tcase_add_test(notes, test_notes_follower_falls_behind);
	tcase_add_test(notes, test_notes_end_is_said);
	tcase_add_loop_test(notes, test_notes_folder_taken, 0, 2);
	suite_add_tcase(s, notes);
	return s;
}

int main(void)
{
	return run_tap(lesson_suite());
}
