/* test_app.c — Check suites for the interactive state (src/app/app.h): event
 * sequences fed to app_update() and the state they must leave behind.
 * Expected numbers come from closed forms computed here with libm, from a second
 * computation of the trace, or from properties (rows sum to 1, undo restores the
 * problem); never from output of the code under test pasted in.
 * Must never include curses, touch the user's files or depend on test order. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/files.h"
#include "io/problem/load.h"
#include "io/problem/save.h"
#include "qkv/attention.h"
#include "qkv/describe.h"
#include "qkv/error.h"
#include "qkv/geometry.h"
#include "qkv/heads.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

#include "lcg.h"
#include "oracle.h"
#include "rounds.h"
#include "tap_main.h"

/* The interface's three palettes, the rest as the defaults. */
static const struct app_options three_palettes = { .palette_count = 3 };

#define TOL 1e-12

/* The worked example's inputs, written out here (Q = K). */
static const double worked_qk[3][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 } };
static const double worked_v[3][2] = { { 10, 0 }, { 0, 10 }, { 5, 5 } };
/* V of the projected problem below: X · 10·I. */
static const double projected_v[3][2] = { { 10, 0 }, { 0, 10 }, { 10, 10 } };

/* The test's clock in milliseconds: every event is stamped a little later. */
static int64_t clock_ms = 1000;

/* Stamps e with the next time and applies it, then does what it asked of the
 * files as the interface does (app_perform: real files, in the tests that save). */
static int send(struct app *a, struct event *e)
{
	clock_ms += 10;
	e->now_ms = clock_ms;
	return app_update(a, e) | app_perform(a, clock_ms);
}

/* One key press (a code point or an enum app_key). */
static int key(struct app *a, int k)
{
	struct event e = { .type = EVENT_KEY, .key = k };

	return send(a, &e);
}

/* A key that came from a paste. */
static int pasted(struct app *a, int k)
{
	struct event e = { .type = EVENT_KEY, .key = k, .pasted = true };

	return send(a, &e);
}

/* Presses the keys of a string, one character each. */
static void keys(struct app *a, const char *text)
{
	for (const char *c = text; *c != '\0'; c++)
		key(a, (unsigned char)*c);
}

/* A click on a cell of a grid. */
static int click(struct app *a, int focus, int row, int col)
{
	struct event e = { .type = EVENT_CLICK, .focus = focus, .row = row, .col = col };

	return send(a, &e);
}

/* The wheel turned over a cell of a grid. */
static int wheel(struct app *a, int focus, int row, int col, int delta)
{
	struct event e = { .type = EVENT_WHEEL, .focus = focus, .row = row, .col = col,
			   .delta = delta };

	return send(a, &e);
}

/* The terminal changed size. */
static int resize(struct app *a, int width, int height)
{
	struct event e = { .type = EVENT_RESIZE, .width = width, .height = height };

	return send(a, &e);
}

/* Time passes by advance_ms, then a tick, and what it asked is done (app_perform:
 * a job that ended taken in, a slice of the cost view measured). */
static int tick(struct app *a, int64_t advance_ms)
{
	struct event e = { .type = EVENT_TICK };

	clock_ms += advance_ms;
	e.now_ms = clock_ms;
	return app_update(a, &e) | app_perform(a, clock_ms);
}

/* Takes over p and starts an app on it, checking that init succeeds. */
static void start_with(struct app *a, struct qkv_problem *p, const char *path)
{
	ck_assert_int_eq(app_init(a, p, path, &three_palettes), 0);
	app_perform(a, clock_ms);
}

/* An app on the course's worked example, with no file. */
static void start(struct app *a)
{
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	start_with(a, &p, NULL);
}

/* A projected problem: X = the example's Q, W_Q = W_K = I and W_V = 10·I, so Q and
 * K after projection are the example's and V is projected_v. */
static void start_projected(struct app *a)
{
	static const char text[] =
		"{\"tokens\": [\"a\", \"b\", \"c\"],"
		" \"X\": [[1, 0], [0, 1], [1, 1]],"
		" \"W_Q\": [[1, 0], [0, 1]], \"W_K\": [[1, 0], [0, 1]],"
		" \"W_V\": [[10, 0], [0, 10]]}";
	struct qkv_problem p;
	char err[256];

	qkv_problem_init(&p);
	ck_assert_msg(load_string(text, strlen(text), "projected", &p, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(p.form, QKV_FORM_PROJECTED);
	start_with(a, &p, NULL);
}

/* An input cell of the app's problem. */
static double cell(const struct app *a, enum qkv_grid which, int row, int col)
{
	return qkv_matrix_get(qkv_problem_input_const(&a->problem, which), row, col);
}

/* Softmax of scores / divisor over the entries not hidden (hidden may be NULL),
 * written out here with libm. */
static void expected_softmax(const double *scores, const unsigned char *hidden, int count,
			     double divisor, double *out)
{
	double max = -INFINITY, sum = 0.0;

	for (int j = 0; j < count; j++)
		if ((hidden == NULL || !hidden[j]) && scores[j] / divisor > max)
			max = scores[j] / divisor;
	for (int j = 0; j < count; j++) {
		out[j] = hidden != NULL && hidden[j] ? 0.0 : exp(scores[j] / divisor - max);
		sum += out[j];
	}
	for (int j = 0; j < count; j++)
		out[j] /= sum;
}

/* Asserts that row `row` of m equals expected (count entries) within TOL. */
static void assert_row(const struct qkv_matrix *m, int row, const double *expected, int count)
{
	ck_assert_int_eq(m->cols, count);
	for (int j = 0; j < count; j++)
		ck_assert_double_eq_tol(qkv_matrix_get(m, row, j), expected[j], TOL);
}

/* Checks one query row of the app's trace against the closed form: the scores of
 * q against the three keys k (rows of 2), divided by divisor, softmax, times v. */
static void assert_query_row(const struct app *a, int row, const double q[2],
			     const double k[3][2], const double v[3][2], double divisor)
{
	double scores[3], scaled[3], weights[3], output[2] = { 0, 0 };

	for (int j = 0; j < 3; j++) {
		scores[j] = q[0] * k[j][0] + q[1] * k[j][1];
		scaled[j] = scores[j] / divisor;
	}
	expected_softmax(scores, NULL, 3, divisor, weights);
	for (int j = 0; j < 3; j++)
		for (int c = 0; c < 2; c++)
			output[c] += weights[j] * v[j][c];
	assert_row(&a->trace.scores, row, scores, 3);
	assert_row(&a->trace.scaled, row, scaled, 3);
	assert_row(&a->trace.weights, row, weights, 3);
	assert_row(&a->trace.output, row, output, 2);
}

/* Checks a whole trace whose Q = K are the worked example's, with V given. */
static void assert_trace_of(const struct app *a, const double v[3][2], double divisor)
{
	ck_assert_int_eq(a->trace.n, 3);
	ck_assert_double_eq_tol(a->trace.divisor, divisor, TOL);
	for (int i = 0; i < 3; i++)
		assert_query_row(a, i, worked_qk[i], worked_qk, v, divisor);
}

/* Checks the whole trace of the unedited worked example with the given divisor. */
static void assert_worked_trace(const struct app *a, double divisor)
{
	assert_trace_of(a, worked_v, divisor);
}

/* Asserts that the app's trace is exactly what qkv_attention makes of its problem. */
static void assert_trace_current(const struct app *a)
{
	struct qkv_trace fresh;

	qkv_trace_init(&fresh);
	if (a->problem.h > 0) {
		/* Multi-head: the app's trace is the selected head's, computed afresh from a
		 * single-head problem with copies of that head's projections. */
		struct qkv_problem single;
		struct qkv_heads_trace all;

		qkv_problem_init(&single);
		ck_assert_int_eq(qkv_problem_copy(&single, &a->problem), 0);
		ck_assert_int_eq(qkv_matrix_copy(&single.w_q, &a->problem.heads[a->head].w_q), 0);
		ck_assert_int_eq(qkv_matrix_copy(&single.w_k, &a->problem.heads[a->head].w_k), 0);
		ck_assert_int_eq(qkv_matrix_copy(&single.w_v, &a->problem.heads[a->head].w_v), 0);
		single.h = 0; /* the heads stay owned by the copy's array, freed below */
		ck_assert_int_eq(qkv_attention(&single, &fresh), 0);
		single.h = a->problem.h;
		qkv_problem_fini(&single);
		qkv_heads_trace_init(&all);
		ck_assert_int_eq(qkv_heads_attention(&a->problem, &all), 0);
		ck_assert(qkv_matrix_equal(&a->heads.output, &all.output));
		ck_assert(qkv_matrix_equal(&a->heads.concat, &all.concat));
		qkv_heads_trace_fini(&all);
	} else {
		ck_assert_int_eq(qkv_attention(&a->problem, &fresh), 0);
	}
	ck_assert_int_eq(a->trace.n, fresh.n);
	ck_assert_int_eq(a->trace.m, fresh.m);
	ck_assert_int_eq(a->trace.d_k, fresh.d_k);
	ck_assert_int_eq(a->trace.d_v, fresh.d_v);
	ck_assert(a->trace.divisor == fresh.divisor);
	ck_assert(qkv_matrix_equal(&a->trace.scores, &fresh.scores));
	ck_assert(qkv_matrix_equal(&a->trace.weights, &fresh.weights));
	ck_assert(qkv_matrix_equal(&a->trace.output, &fresh.output));
	ck_assert(qkv_matrix_equal(&a->trace.scaled, &fresh.scaled));
	ck_assert(qkv_matrix_equal(&a->trace.q, &fresh.q));
	ck_assert(qkv_matrix_equal(&a->trace.k, &fresh.k));
	ck_assert(qkv_matrix_equal(&a->trace.v, &fresh.v));
	for (int i = 0; i < fresh.m; i++) {
		ck_assert(memcmp(&a->trace.rows[i].entropy, &fresh.rows[i].entropy, sizeof(double)) == 0);
		ck_assert(memcmp(&a->trace.rows[i].jacobian_norm, &fresh.rows[i].jacobian_norm,
				 sizeof(double)) == 0);
		ck_assert_int_eq(a->trace.rows[i].argmax, fresh.rows[i].argmax);
	}
	ck_assert(memcmp(&a->trace.score_variance, &fresh.score_variance, sizeof(double)) == 0);
	qkv_trace_fini(&fresh);
}

/* Random key presses that edit every input (typed values, nudges, wheel), move
 * between the grids, switch masks, padding and the wrong-way modes, undo and
 * redo: after each, the trace the app keeps up cell by cell is bit-for-bit the
 * trace qkv_attention computes afresh. Even loops: direct form; odd: projected. */
START_TEST(test_edits_keep_trace_exact)
{
	static const int moves[] = { APP_KEY_TAB, APP_KEY_UP, APP_KEY_DOWN, APP_KEY_LEFT, APP_KEY_RIGHT };
	struct lcg g = { 7100u + (uint64_t)_i };
	struct app a;

	if (_i % 2 == 0) {
		struct qkv_problem p;

		qkv_problem_init(&p);
		ck_assert_int_eq(qkv_problem_random(&p, lcg_int(&g, 2, 9), lcg_int(&g, 1, 6), lcg_int(&g, 1, 4),
						    (uint64_t)_i + 1), 0);
		start_with(&a, &p, NULL);
	} else {
		start_projected(&a);
	}
	for (int step = 0; step < 400; step++) {
		int choice = lcg_int(&g, 0, 19);

		if (choice < 5) {
			key(&a, moves[lcg_int(&g, 0, 4)]);
		} else if (choice < 9) {
			key(&a, choice % 2 == 0 ? '+' : '-');
		} else if (choice < 12) {
			key(&a, '0' + lcg_int(&g, 0, 9));
			key(&a, choice == 11 ? '-' : '.');
			key(&a, '0' + lcg_int(&g, 0, 9));
			key(&a, APP_KEY_ENTER);
		} else if (choice == 12) {
			int focus = lcg_int(&g, 0, QKV_GRID_COUNT - 1), rows, cols;

			if (app_focus_is_input(&a, (enum qkv_grid)focus)) {
				app_focus_shape(&a, (enum qkv_grid)focus, &rows, &cols);
				wheel(&a, focus, lcg_int(&g, 0, rows - 1), lcg_int(&g, 0, cols - 1),
				      lcg_int(&g, 0, 1) * 2 - 1);
			}
		} else if (choice == 13) {
			key(&a, 'm');
		} else if (choice == 14) {
			key(&a, 'W');
		} else if (choice == 15) {
			key(&a, 'z');
		} else if (choice == 16) {
			key(&a, 'u');
		} else if (choice == 17) {
			key(&a, APP_KEY_CTRL_R);
		} else {
			key(&a, choice == 18 ? '+' : '-');
		}
		if (a.editing)
			key(&a, APP_KEY_ESCAPE);
		assert_trace_current(&a);
	}
	app_fini(&a);
}
END_TEST

/* A deep copy of the app's problem, for later comparison. */
static void copy_problem(struct qkv_problem *dst, const struct app *a)
{
	qkv_problem_init(dst);
	ck_assert_int_eq(qkv_problem_copy(dst, &a->problem), 0);
}

/* True for the foci the problem's form has. */
static bool focus_in_form(const struct app *a, int focus)
{
	if (focus == QKV_GRID_WEIGHTS || focus == QKV_GRID_OUTPUT)
		return true;
	if (focus == QKV_GRID_W_O || focus == QKV_GRID_CONCAT || focus == QKV_GRID_LAYER)
		return a->problem.h > 0;
	if (a->problem.form == QKV_FORM_DIRECT)
		return focus == QKV_GRID_Q || focus == QKV_GRID_K || focus == QKV_GRID_V;
	return focus >= QKV_GRID_X && focus <= QKV_GRID_W_V;
}

/* Asserts that the cursor of focus lies inside its grid. */
static void assert_cursor_inside(const struct app *a, int focus)
{
	int rows, cols;

	app_focus_shape(a, (enum qkv_grid)focus, &rows, &cols);
	ck_assert_int_ge(a->cursor[focus].row, 0);
	ck_assert_int_ge(a->cursor[focus].col, 0);
	ck_assert_int_lt(a->cursor[focus].row, rows);
	ck_assert_int_lt(a->cursor[focus].col, cols);
}

/* Asserts every cursor of the form's foci lies inside its grid. */
static void assert_all_cursors_inside(const struct app *a)
{
	for (int f = 0; f < QKV_GRID_COUNT; f++)
		if (focus_in_form(a, f))
			assert_cursor_inside(a, f);
}

/* Asserts the focused cursor sits at (row, col). */
static void assert_cursor(const struct app *a, int row, int col)
{
	ck_assert_int_eq(a->cursor[a->focus].row, row);
	ck_assert_int_eq(a->cursor[a->focus].col, col);
}

/* Types text as a new value of the selected cell: Enter, clear, text, Enter. */
static int type_value(struct app *a, const char *text)
{
	key(a, APP_KEY_ENTER);
	ck_assert(a->editing);
	key(a, APP_KEY_CTRL_U);
	keys(a, text);
	return key(a, APP_KEY_ENTER);
}

/* --- init ------------------------------------------------------------------- */

START_TEST(test_init_state)
{
	struct app a;

	start(&a);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	for (int f = 0; f < QKV_GRID_COUNT; f++) {
		ck_assert_int_eq(a.cursor[f].row, 0);
		ck_assert_int_eq(a.cursor[f].col, 0);
	}
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	ck_assert_double_eq_tol(a.step, 0.1, 1e-15);
	ck_assert(!a.dirty);
	ck_assert(!a.editing);
	ck_assert(!a.quit);
	ck_assert(!a.autoplay);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_int_eq(a.palette, 0);
	ck_assert_int_eq(a.palette_count, 3);
	ck_assert_ptr_null(a.path);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_init_projected)
{
	struct app a;

	start_projected(&a);
	ck_assert_int_eq(a.focus, QKV_GRID_X);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	ck_assert(!a.dirty);
	ck_assert(!a.editing);
	assert_trace_of(&a, projected_v, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_init_keeps_path)
{
	struct app a;
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	start_with(&a, &p, "somewhere/problem.json");
	ck_assert_ptr_nonnull(a.path);
	ck_assert_str_eq(a.path, "somewhere/problem.json");
	app_fini(&a);
}
END_TEST

/* The interface's options enter through app_init; left out, each has its default. */
static double one_ms_clock(void *context)
{
	(void)context;
	return 1.0;
}

START_TEST(test_init_takes_options)
{
	struct app a;
	struct qkv_problem p;
	struct app_options o = { .palette_count = 4, .palette = 2, .projector = true, .pace_s = 0.25,
				 .clock = one_ms_clock, .message = "the terminal has 8 colours" };

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(&a, &p, NULL, &o), 0);
	ck_assert_int_eq(a.palette_count, 4);
	ck_assert_int_eq(a.palette, 2);
	ck_assert(a.projector);
	ck_assert(a.pace_s == 0.25);
	ck_assert(a.cost.clock == one_ms_clock);
	ck_assert_str_eq(a.message, "the terminal has 8 colours");
	app_fini(&a);

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(&a, &p, NULL, NULL), 0);
	ck_assert_int_eq(a.palette_count, 1);
	ck_assert_int_eq(a.palette, 0);
	ck_assert(!a.projector);
	ck_assert(a.pace_s == 1.5); /* the manual's and --help's default */
	ck_assert(a.cost.clock == NULL);
	app_fini(&a);
}
END_TEST

/* --- movement and focus ----------------------------------------------------- */

START_TEST(test_arrows_move_and_clamp)
{
	struct app a;

	start(&a);
	key(&a, APP_KEY_UP);
	assert_cursor(&a, 0, 0);
	key(&a, APP_KEY_LEFT);
	assert_cursor(&a, 0, 0);
	ck_assert_int_ne(key(&a, APP_KEY_RIGHT), 0);
	assert_cursor(&a, 0, 1);
	key(&a, APP_KEY_RIGHT);
	assert_cursor(&a, 0, 1);
	ck_assert_int_ne(key(&a, APP_KEY_DOWN), 0);
	assert_cursor(&a, 1, 1);
	key(&a, APP_KEY_DOWN);
	key(&a, APP_KEY_DOWN);
	assert_cursor(&a, 2, 1);
	key(&a, APP_KEY_LEFT);
	assert_cursor(&a, 2, 0);
	key(&a, APP_KEY_UP);
	assert_cursor(&a, 1, 0);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	ck_assert(!a.dirty);
	app_fini(&a);
}
END_TEST

START_TEST(test_hjkl_move_and_clamp)
{
	struct app a;

	start(&a);
	key(&a, 'k');
	key(&a, 'h');
	assert_cursor(&a, 0, 0);
	ck_assert_int_ne(key(&a, 'l'), 0);
	assert_cursor(&a, 0, 1);
	key(&a, 'l');
	assert_cursor(&a, 0, 1);
	keys(&a, "jjjj");
	assert_cursor(&a, 2, 1);
	key(&a, 'h');
	assert_cursor(&a, 2, 0);
	key(&a, 'k');
	assert_cursor(&a, 1, 0);
	app_fini(&a);
}
END_TEST

START_TEST(test_grids_clamp_to_their_shapes)
{
	struct app a;
	int rows, cols;

	start(&a);
	app_focus_shape(&a, QKV_GRID_Q, &rows, &cols);
	ck_assert_int_eq(rows, 3);
	ck_assert_int_eq(cols, 2);
	app_focus_shape(&a, QKV_GRID_V, &rows, &cols);
	ck_assert_int_eq(rows, 3);
	ck_assert_int_eq(cols, 2);
	app_focus_shape(&a, QKV_GRID_WEIGHTS, &rows, &cols);
	ck_assert_int_eq(rows, 3);
	ck_assert_int_eq(cols, 3);
	app_focus_shape(&a, QKV_GRID_OUTPUT, &rows, &cols);
	ck_assert_int_eq(rows, 3);
	ck_assert_int_eq(cols, 2);
	for (int i = 0; i < 3; i++)
		key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_WEIGHTS);
	keys(&a, "llllljjjjj");
	assert_cursor(&a, 2, 2);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_OUTPUT);
	keys(&a, "llllljjjjj");
	assert_cursor(&a, 2, 1);
	app_fini(&a);
}
END_TEST

START_TEST(test_tab_order_direct)
{
	static const int order[] = { QKV_GRID_K, QKV_GRID_V, QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT, QKV_GRID_Q };
	struct app a;

	start(&a);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_ne(key(&a, APP_KEY_TAB), 0);
		ck_assert_int_eq(a.focus, order[i]);
	}
	for (int i = 3; i >= 0; i--) {
		key(&a, APP_KEY_BACKTAB);
		ck_assert_int_eq(a.focus, order[i]);
	}
	key(&a, APP_KEY_BACKTAB);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	key(&a, APP_KEY_BACKTAB);
	ck_assert_int_eq(a.focus, QKV_GRID_OUTPUT);
	app_fini(&a);
}
END_TEST

START_TEST(test_tab_order_projected)
{
	static const int order[] = { QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V, QKV_GRID_WEIGHTS,
				     QKV_GRID_OUTPUT, QKV_GRID_X };
	struct app a;
	int rows, cols;

	start_projected(&a);
	for (int i = 0; i < 6; i++) {
		key(&a, APP_KEY_TAB);
		ck_assert_int_eq(a.focus, order[i]);
		ck_assert(focus_in_form(&a, a.focus));
	}
	for (int i = 4; i >= 0; i--) {
		key(&a, APP_KEY_BACKTAB);
		ck_assert_int_eq(a.focus, order[i]);
	}
	key(&a, APP_KEY_BACKTAB);
	ck_assert_int_eq(a.focus, QKV_GRID_X);
	ck_assert(app_focus_is_input(&a, QKV_GRID_X));
	ck_assert(app_focus_is_input(&a, QKV_GRID_W_V));
	ck_assert(!app_focus_is_input(&a, QKV_GRID_Q));
	ck_assert(!app_focus_is_input(&a, QKV_GRID_WEIGHTS));
	app_focus_shape(&a, QKV_GRID_W_V, &rows, &cols);
	ck_assert_int_eq(rows, 2);
	ck_assert_int_eq(cols, 2);
	app_fini(&a);
}
END_TEST

START_TEST(test_each_focus_keeps_its_cursor)
{
	struct app a;

	start(&a);
	keys(&a, "jl");
	assert_cursor(&a, 1, 1);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_K);
	assert_cursor(&a, 0, 0);
	key(&a, 'j');
	key(&a, APP_KEY_BACKTAB);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	assert_cursor(&a, 1, 1);
	ck_assert_int_eq(a.cursor[QKV_GRID_K].row, 1);
	ck_assert_int_eq(a.cursor[QKV_GRID_K].col, 0);
	app_fini(&a);
}
END_TEST

/* --- editing ---------------------------------------------------------------- */

START_TEST(test_digit_starts_editing)
{
	struct app a;
	int flags;

	start(&a);
	key(&a, '7');
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, "7");
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 1.0);
	keys(&a, ".5");
	ck_assert_str_eq(a.edit, "7.5");
	flags = key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(a.dirty);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 7.5);
	ck_assert_int_eq(flags & (REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT),
			 REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

START_TEST(test_dot_starts_editing)
{
	struct app a;

	start(&a);
	key(&a, APP_KEY_TAB);
	key(&a, '.');
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, ".");
	keys(&a, "25");
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_K, 0, 0) == 0.25);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 1.0);
	app_fini(&a);
}
END_TEST

/* "1,5" is one and a half, as a classroom writing a decimal comma means it; the
 * comma shows as the point it is read as, and the status line says so. */
START_TEST(test_decimal_comma)
{
	struct app a;

	start(&a);
	keys(&a, "1,5");
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, "1.5");
	ck_assert_ptr_nonnull(strstr(a.message, "decimal comma"));
	ck_assert(!a.message_is_error);
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 1.5);
	/* Two commas make no number: refused with a message, the value stays. */
	keys(&a, "l2,5,1");
	ck_assert_str_eq(a.edit, "2.5.1");
	key(&a, APP_KEY_ENTER);
	ck_assert(a.editing);
	ck_assert(a.message_is_error);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 1) == 0.0);
	key(&a, APP_KEY_ESCAPE);
	/* A comma first starts the edit as a point: ",5" is 0.5, not 5. */
	keys(&a, ",5");
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, ".5");
	ck_assert_ptr_nonnull(strstr(a.message, "decimal comma"));
	key(&a, APP_KEY_ENTER);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 1) == 0.5);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

START_TEST(test_enter_starts_with_current_value)
{
	struct app a;
	char *end;

	start(&a);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_V);
	key(&a, APP_KEY_ENTER);
	ck_assert(a.editing);
	ck_assert(strtod(a.edit, &end) == 10.0);
	ck_assert_int_eq(*end, '\0');
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_V, 0, 0) == 10.0);
	ck_assert(!a.dirty);
	app_fini(&a);
}
END_TEST

START_TEST(test_edit_keys)
{
	struct app a;

	start(&a);
	keys(&a, "12e-3");
	ck_assert_str_eq(a.edit, "12e-3");
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 12e-3);
	keys(&a, "l98");
	ck_assert_int_eq(a.cursor[QKV_GRID_Q].col, 1);
	ck_assert_str_eq(a.edit, "98");
	key(&a, APP_KEY_BACKSPACE);
	ck_assert_str_eq(a.edit, "9");
	key(&a, APP_KEY_CTRL_U);
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, "");
	keys(&a, "+4E1");
	ck_assert_str_eq(a.edit, "+4E1");
	key(&a, APP_KEY_ENTER);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 1) == 40.0);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 12e-3);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

START_TEST(test_escape_cancels_edit)
{
	struct app a;
	struct qkv_problem before;

	start(&a);
	copy_problem(&before, &a);
	keys(&a, "95");
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!a.editing);
	ck_assert(!a.dirty);
	ck_assert(qkv_problem_equal(&a.problem, &before));
	assert_worked_trace(&a, sqrt(2.0));
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

START_TEST(test_bad_text_is_refused)
{
	static const char *const bad[] = { "1e", "-", "1.2.3", "1e13", "-1e13", ".", "1e999",
					   "+-1", "1e+" };
	struct app a;
	struct qkv_problem before;

	start(&a);
	copy_problem(&before, &a);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		type_value(&a, bad[i]);
		ck_assert_msg(a.editing, "\"%s\" ended the edit", bad[i]);
		ck_assert_msg(a.message[0] != '\0', "\"%s\" gave no message", bad[i]);
		ck_assert_msg(a.message_is_error, "\"%s\" is not an error", bad[i]);
		ck_assert_msg(qkv_problem_equal(&a.problem, &before), "\"%s\" changed Q", bad[i]);
		ck_assert(!a.dirty);
		key(&a, APP_KEY_ESCAPE);
		ck_assert(!a.editing);
	}
	assert_worked_trace(&a, sqrt(2.0));
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

START_TEST(test_bound_is_inclusive)
{
	struct app a;

	start(&a);
	type_value(&a, "1e12");
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == QKV_MAX_VALUE);
	key(&a, 'l');
	type_value(&a, "-1e12");
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 1) == -QKV_MAX_VALUE);
	assert_trace_current(&a);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			ck_assert(isfinite(qkv_matrix_get(&a.trace.output, i, j)));
	app_fini(&a);
}
END_TEST

/* Q[0][1] (t1, d2) becomes 2: q1 = (1, 2), scores (1, 2, 3), divided by √2. */
START_TEST(test_edit_worked_example)
{
	static const double q1[2] = { 1, 2 };
	struct app a;
	int flags;

	start(&a);
	key(&a, 'l');
	key(&a, '2');
	flags = key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(flags & (REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT),
			 REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT);
	ck_assert(a.dirty);
	ck_assert(!a.editing);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 1) == 2.0);
	assert_query_row(&a, 0, q1, worked_qk, worked_v, sqrt(2.0));
	assert_query_row(&a, 1, worked_qk[1], worked_qk, worked_v, sqrt(2.0));
	assert_query_row(&a, 2, worked_qk[2], worked_qk, worked_v, sqrt(2.0));
	ck_assert_double_eq_tol(qkv_matrix_get(&a.trace.scores, 0, 2), 3.0, TOL);
	app_fini(&a);
}
END_TEST

/* --- nudges ------------------------------------------------------------------ */

START_TEST(test_nudge_and_undo_each)
{
	struct app a;
	double v0, v1, v2, v3;

	start(&a);
	v0 = cell(&a, QKV_GRID_Q, 0, 0);
	key(&a, '+');
	v1 = cell(&a, QKV_GRID_Q, 0, 0);
	ck_assert_double_eq_tol(v1, v0 + 0.1, TOL);
	ck_assert(a.dirty);
	assert_trace_current(&a);
	key(&a, '=');
	v2 = cell(&a, QKV_GRID_Q, 0, 0);
	ck_assert_double_eq_tol(v2, v1 + 0.1, TOL);
	key(&a, '-');
	v3 = cell(&a, QKV_GRID_Q, 0, 0);
	ck_assert_double_eq_tol(v3, v2 - 0.1, TOL);
	ck_assert(!a.editing);
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == v2);
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == v1);
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == v0);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_nudge_other_matrices)
{
	struct app a;

	start(&a);
	key(&a, APP_KEY_TAB);
	keys(&a, "jl-");
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_K, 1, 1), 1.0 - 0.1, TOL);
	ck_assert(cell(&a, QKV_GRID_Q, 1, 1) == 1.0);
	key(&a, APP_KEY_TAB);
	key(&a, '+');
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_V, 0, 0), 10.1, TOL);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

START_TEST(test_grids_refuse_values)
{
	static const char *const refused = "5.+-=";
	struct app a;
	struct qkv_problem before;

	start(&a);
	copy_problem(&before, &a);
	for (int f = 0; f < 2; f++) {
		while (a.focus != (f == 0 ? QKV_GRID_WEIGHTS : QKV_GRID_OUTPUT))
			key(&a, APP_KEY_TAB);
		for (const char *c = refused; *c != '\0'; c++) {
			a.message[0] = '\0';
			key(&a, (unsigned char)*c);
			ck_assert(!a.editing);
			ck_assert_msg(a.message[0] != '\0', "'%c' on %s set no message", *c,
				      app_focus_name(a.focus));
			ck_assert(qkv_problem_equal(&a.problem, &before));
		}
	}
	ck_assert(!a.dirty);
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

/* --- undo and redo ---------------------------------------------------------- */

START_TEST(test_undo_with_nothing)
{
	struct app a;
	struct qkv_problem before;

	start(&a);
	copy_problem(&before, &a);
	key(&a, 'u');
	ck_assert(a.message[0] != '\0');
	ck_assert(qkv_problem_equal(&a.problem, &before));
	a.message[0] = '\0';
	key(&a, APP_KEY_CTRL_R);
	ck_assert(a.message[0] != '\0');
	ck_assert(qkv_problem_equal(&a.problem, &before));
	ck_assert(!a.dirty);
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

START_TEST(test_undo_redo_mixed)
{
	/* Each entry is one change; "7\r" stands for typing 7 and Enter. */
	static const char *const changes[] = { "7\r", "+", "o", "]", "}", ">", "s", "t", "T",
					       "m", "r", "x", "[", "{", "<", "-", "W" };
	const int count = (int)(sizeof changes / sizeof changes[0]);
	struct app a;
	struct qkv_problem original, changed;

	start(&a);
	copy_problem(&original, &a);
	for (int i = 0; i < count; i++) {
		for (const char *c = changes[i]; *c != '\0'; c++)
			key(&a, *c == '\r' ? APP_KEY_ENTER : (unsigned char)*c);
		if (i == 10)
			key(&a, 'j');
		ck_assert(!a.editing);
		assert_trace_current(&a);
	}
	ck_assert(a.problem.seeded);
	ck_assert_int_eq(a.problem.wrong, QKV_WRONG_MASK_AFTER_SOFTMAX);
	ck_assert(!qkv_problem_equal(&a.problem, &original));
	copy_problem(&changed, &a);
	for (int i = 0; i < count; i++) {
		ck_assert_msg(!qkv_problem_equal(&a.problem, &original),
			      "back at the start after %d undos of %d", i, count);
		key(&a, 'u');
		assert_trace_current(&a);
		assert_all_cursors_inside(&a);
	}
	ck_assert(qkv_problem_equal(&a.problem, &original));
	a.message[0] = '\0';
	key(&a, 'u');
	ck_assert(a.message[0] != '\0');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	for (int i = 0; i < count; i++) {
		key(&a, APP_KEY_CTRL_R);
		assert_trace_current(&a);
		assert_all_cursors_inside(&a);
	}
	ck_assert(qkv_problem_equal(&a.problem, &changed));
	a.message[0] = '\0';
	key(&a, APP_KEY_CTRL_R);
	ck_assert(a.message[0] != '\0');
	ck_assert(qkv_problem_equal(&a.problem, &changed));
	qkv_problem_fini(&original);
	qkv_problem_fini(&changed);
	app_fini(&a);
}
END_TEST

START_TEST(test_new_change_drops_redo)
{
	struct app a;

	start(&a);
	key(&a, '+');
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 1.0);
	key(&a, '-');
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_Q, 0, 0), 0.9, TOL);
	a.message[0] = '\0';
	key(&a, APP_KEY_CTRL_R);
	ck_assert(a.message[0] != '\0');
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_Q, 0, 0), 0.9, TOL);
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 1.0);
	app_fini(&a);
}
END_TEST

/* --- stages ------------------------------------------------------------------ */

START_TEST(test_stage_forward_keys)
{
	static const int forward[] = { APP_KEY_PAGE_DOWN, ' ', 'n' };
	static const int expected[] = { 1, 2, 3, 4, 5, 5 };
	struct app a;

	start(&a);
	for (int k = 0; k < 3; k++) {
		key(&a, APP_KEY_HOME);
		ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
		for (int i = 0; i < 6; i++) {
			key(&a, forward[k]);
			ck_assert_int_eq(a.stage, expected[i]);
		}
	}
	ck_assert(!a.dirty);
	app_fini(&a);
}
END_TEST

START_TEST(test_stage_backward_keys)
{
	static const int backward[] = { APP_KEY_PAGE_UP, 'p' };
	static const int expected[] = { 4, 3, 2, 1, APP_STAGE_LIVE, APP_STAGE_LIVE };
	struct app a;

	start(&a);
	for (int k = 0; k < 2; k++) {
		key(&a, APP_KEY_END);
		ck_assert_int_eq(a.stage, QKV_STAGE_OUTPUT);
		for (int i = 0; i < 6; i++) {
			key(&a, backward[k]);
			ck_assert_int_eq(a.stage, expected[i]);
		}
	}
	keys(&a, "nnn");
	ck_assert_int_eq(a.stage, QKV_STAGE_WEIGHTS);
	key(&a, APP_KEY_HOME);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	app_fini(&a);
}
END_TEST

START_TEST(test_stage_projected)
{
	static const int forward[] = { 0, 1, 2, 3, 4, 5, 5 };
	static const int backward[] = { 4, 3, 2, 1, 0, APP_STAGE_LIVE, APP_STAGE_LIVE };
	struct app a;

	start_projected(&a);
	for (int i = 0; i < 7; i++) {
		key(&a, APP_KEY_PAGE_DOWN);
		ck_assert_int_eq(a.stage, forward[i]);
	}
	for (int i = 0; i < 7; i++) {
		key(&a, 'p');
		ck_assert_int_eq(a.stage, backward[i]);
	}
	key(&a, APP_KEY_END);
	ck_assert_int_eq(a.stage, QKV_STAGE_OUTPUT);
	ck_assert(app_stage_visible(&a, QKV_STAGE_PROJECTIONS));
	key(&a, APP_KEY_HOME);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	ck_assert(app_stage_visible(&a, QKV_STAGE_PROJECTIONS));
	key(&a, 'n');
	ck_assert_int_eq(a.stage, QKV_STAGE_PROJECTIONS);
	ck_assert(app_stage_visible(&a, QKV_STAGE_PROJECTIONS));
	ck_assert(!app_stage_visible(&a, QKV_STAGE_SCORES));
	app_fini(&a);
}
END_TEST

START_TEST(test_stage_visible)
{
	struct app a;

	start(&a);
	for (int s = QKV_STAGE_SCORES; s <= QKV_STAGE_OUTPUT; s++)
		ck_assert(app_stage_visible(&a, (enum qkv_stage)s));
	for (int current = 1; current <= 5; current++) {
		key(&a, 'n');
		ck_assert_int_eq(a.stage, current);
		for (int s = QKV_STAGE_SCORES; s <= QKV_STAGE_OUTPUT; s++)
			ck_assert_msg(app_stage_visible(&a, (enum qkv_stage)s) == (s <= current),
				      "stage %d visible at %d", s, current);
	}
	app_fini(&a);
}
END_TEST

START_TEST(test_edit_in_stage)
{
	static const double q1[2] = { 1, 2 };
	struct app a;

	start(&a);
	keys(&a, "nn");
	ck_assert_int_eq(a.stage, QKV_STAGE_SCALED);
	while (a.focus != QKV_GRID_Q)
		key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.stage, QKV_STAGE_SCALED);
	keys(&a, "l2");
	key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.stage, QKV_STAGE_SCALED);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 1) == 2.0);
	assert_query_row(&a, 0, q1, worked_qk, worked_v, sqrt(2.0));
	key(&a, '+');
	ck_assert_int_eq(a.stage, QKV_STAGE_SCALED);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

/* --- structure --------------------------------------------------------------- */

START_TEST(test_insert_token)
{
	struct app a;

	start(&a);
	key(&a, 'j');
	key(&a, 'o');
	ck_assert_int_eq(a.problem.n, 4);
	ck_assert_int_eq(a.trace.n, 4);
	ck_assert(a.dirty);
	for (int c = 0; c < 2; c++) {
		ck_assert(cell(&a, QKV_GRID_Q, 2, c) == 0.0);
		ck_assert(cell(&a, QKV_GRID_K, 2, c) == 0.0);
		ck_assert(cell(&a, QKV_GRID_V, 2, c) == 0.0);
	}
	for (int r = 0; r < 3; r++) {
		int at = r < 2 ? r : 3;

		for (int c = 0; c < 2; c++) {
			ck_assert(cell(&a, QKV_GRID_Q, at, c) == worked_qk[r][c]);
			ck_assert(cell(&a, QKV_GRID_K, at, c) == worked_qk[r][c]);
			ck_assert(cell(&a, QKV_GRID_V, at, c) == worked_v[r][c]);
		}
	}
	ck_assert_str_eq(a.problem.tokens[0], "t1");
	ck_assert_str_eq(a.problem.tokens[1], "t2");
	ck_assert_str_eq(a.problem.tokens[3], "t3");
	ck_assert_ptr_nonnull(a.problem.tokens[2]);
	assert_all_cursors_inside(&a);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

START_TEST(test_remove_token)
{
	struct app a;
	int flags;

	start(&a);
	key(&a, 'j');
	key(&a, 'x');
	ck_assert_int_eq(a.problem.n, 2);
	ck_assert_int_eq(a.trace.n, 2);
	ck_assert_str_eq(a.problem.tokens[0], "t1");
	ck_assert_str_eq(a.problem.tokens[1], "t3");
	for (int c = 0; c < 2; c++) {
		ck_assert(cell(&a, QKV_GRID_Q, 1, c) == worked_qk[2][c]);
		ck_assert(cell(&a, QKV_GRID_V, 1, c) == worked_v[2][c]);
		ck_assert(cell(&a, QKV_GRID_V, 0, c) == worked_v[0][c]);
	}
	assert_all_cursors_inside(&a);
	key(&a, 'j');
	key(&a, 'x');
	ck_assert_int_eq(a.problem.n, 1);
	ck_assert_str_eq(a.problem.tokens[0], "t1");
	assert_all_cursors_inside(&a);
	a.message[0] = '\0';
	flags = key(&a, 'x');
	ck_assert_int_eq(a.problem.n, 1);
	ck_assert(a.message[0] != '\0');
	ck_assert_int_ne(flags, 0);
	assert_all_cursors_inside(&a);
	assert_trace_current(&a);
	ck_assert(qkv_matrix_get(&a.trace.weights, 0, 0) == 1.0);
	app_fini(&a);
}
END_TEST

static void start_text(struct app *a, const char *text);

/* Cross-attention: 2 queries "a" "b" (Q 2 × 2) and 3 tokens x y z (K, V 3 × 2). */
static const char cross_text[] =
	"{\"query_tokens\": [\"a\", \"b\"], \"tokens\": [\"x\", \"y\", \"z\"],"
	" \"Q\": [[1, 0], [0, 1]], \"K\": [[1, 0], [0, 1], [1, 1]], \"V\": [[10, 0], [0, 10], [5, 5]]}";

/* o and x edit the two sequences apart: on Q a query (a row of Q and of A and O),
 * on K or V a token (a row of K and V, a column of A), each leaving the other's
 * length; the trace stays current and the cursors inside their m × n grids. */
START_TEST(test_cross_queries_and_tokens_apart)
{
	struct app a;
	int rows, cols;

	start_text(&a, cross_text);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	app_focus_shape(&a, QKV_GRID_WEIGHTS, &rows, &cols);
	ck_assert_int_eq(rows, 2);
	ck_assert_int_eq(cols, 3);
	key(&a, 'o');
	ck_assert_int_eq(a.problem.m, 3);
	ck_assert_int_eq(a.problem.n, 3);
	ck_assert_int_eq(a.trace.weights.rows, 3);
	ck_assert_int_eq(a.trace.output.rows, 3);
	ck_assert_str_eq(a.problem.query_tokens[1], "q3");
	ck_assert_str_eq(a.problem.query_tokens[2], "b");
	ck_assert_int_eq(a.cursor[QKV_GRID_Q].row, 1);
	ck_assert_ptr_nonnull(strstr(a.message, "query q3 added after a"));
	assert_trace_current(&a);
	assert_all_cursors_inside(&a);
	key(&a, 'x');
	ck_assert_int_eq(a.problem.m, 2);
	ck_assert_str_eq(a.problem.query_tokens[1], "b");
	key(&a, APP_KEY_TAB); /* K */
	ck_assert_int_eq(a.focus, QKV_GRID_K);
	key(&a, 'j');
	key(&a, 'o');
	ck_assert_int_eq(a.problem.m, 2);
	ck_assert_int_eq(a.problem.n, 4);
	ck_assert_int_eq(a.trace.weights.cols, 4);
	ck_assert_str_eq(a.problem.tokens[2], "t4");
	ck_assert_int_eq(a.cursor[QKV_GRID_K].row, 2);
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].col, 2);
	assert_trace_current(&a);
	assert_all_cursors_inside(&a);
	key(&a, 'x');
	key(&a, 'x');
	ck_assert_int_eq(a.problem.n, 2);
	ck_assert_int_eq(a.problem.m, 2);
	ck_assert_str_eq(a.problem.tokens[1], "y");
	/* z pads the key under the cursor: its column of A becomes 0 for every query. */
	key(&a, 'z');
	ck_assert(a.problem.padding != NULL && a.problem.padding[1]);
	for (int i = 0; i < 2; i++)
		ck_assert(qkv_matrix_get(&a.trace.weights, i, 1) == 0.0);
	assert_trace_current(&a);
	/* Undo brings each back. */
	key(&a, 'u');
	key(&a, 'u');
	key(&a, 'u');
	ck_assert_int_eq(a.problem.n, 4);
	app_fini(&a);
}
END_TEST

/* A causal mask ties the two lengths: m refuses it while m ≠ n (the problem
 * unchanged), and with it o and x say why they do nothing. */
START_TEST(test_cross_causal_ties_lengths)
{
	struct app a;

	start_text(&a, cross_text);
	key(&a, 'm'); /* causal passed over: 2 queries, 3 keys */
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CUSTOM);
	ck_assert_ptr_nonnull(strstr(a.message, "causal is passed over: 2 queries and 3 keys"));
	assert_trace_current(&a);
	key(&a, 'm'); /* none */
	ck_assert_int_eq(a.problem.mask, QKV_MASK_NONE);
	key(&a, APP_KEY_TAB);
	key(&a, 'x'); /* 2 queries, 2 keys */
	ck_assert_int_eq(a.problem.n, 2);
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CAUSAL);
	ck_assert(qkv_trace_is_masked(&a.trace, 0, 1));
	key(&a, 'o');
	ck_assert_int_eq(a.problem.n, 2);
	ck_assert(a.message_is_error);
	ck_assert_ptr_nonnull(strstr(a.message, "causal mask needs as many queries as keys"));
	app_fini(&a);
}
END_TEST

START_TEST(test_remove_last_row_moves_cursor)
{
	struct app a;

	start(&a);
	for (int f = 0; f < 5; f++) {
		keys(&a, "jjll");
		key(&a, APP_KEY_TAB);
	}
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	key(&a, 'x');
	ck_assert_int_eq(a.problem.n, 2);
	ck_assert_int_eq(a.problem.tokens[1][1], '2');
	assert_all_cursors_inside(&a);
	key(&a, '[');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 1);
	assert_all_cursors_inside(&a);
	key(&a, '{');
	ck_assert_int_eq(qkv_problem_d_v(&a.problem), 1);
	assert_all_cursors_inside(&a);
	app_fini(&a);
}
END_TEST

START_TEST(test_d_k_columns)
{
	struct app a;
	struct qkv_problem original;

	start(&a);
	copy_problem(&original, &a);
	key(&a, ']');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 3);
	ck_assert_int_eq(a.trace.d_k, 3);
	ck_assert_double_eq_tol(a.trace.divisor, sqrt(3.0), TOL);
	for (int r = 0; r < 3; r++) {
		ck_assert(cell(&a, QKV_GRID_Q, r, 2) == 0.0);
		ck_assert(cell(&a, QKV_GRID_K, r, 2) == 0.0);
		for (int c = 0; c < 2; c++)
			ck_assert(cell(&a, QKV_GRID_Q, r, c) == worked_qk[r][c]);
	}
	ck_assert_int_eq(qkv_problem_d_v(&a.problem), 2);
	key(&a, '[');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	assert_worked_trace(&a, sqrt(2.0));
	key(&a, '[');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 1);
	a.message[0] = '\0';
	key(&a, '[');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 1);
	ck_assert(a.message[0] != '\0');
	assert_all_cursors_inside(&a);
	assert_trace_current(&a);
	qkv_problem_fini(&original);
	app_fini(&a);
}
END_TEST

START_TEST(test_d_v_columns)
{
	struct app a;
	struct qkv_problem original;
	int rows, cols;

	start(&a);
	copy_problem(&original, &a);
	key(&a, '}');
	ck_assert_int_eq(qkv_problem_d_v(&a.problem), 3);
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 2);
	ck_assert_int_eq(a.trace.d_v, 3);
	app_focus_shape(&a, QKV_GRID_OUTPUT, &rows, &cols);
	ck_assert_int_eq(cols, 3);
	for (int r = 0; r < 3; r++) {
		ck_assert(cell(&a, QKV_GRID_V, r, 2) == 0.0);
		ck_assert(qkv_matrix_get(&a.trace.output, r, 2) == 0.0);
	}
	key(&a, '{');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	key(&a, '{');
	ck_assert_int_eq(qkv_problem_d_v(&a.problem), 1);
	a.message[0] = '\0';
	key(&a, '{');
	ck_assert_int_eq(qkv_problem_d_v(&a.problem), 1);
	ck_assert(a.message[0] != '\0');
	assert_all_cursors_inside(&a);
	assert_trace_current(&a);
	qkv_problem_fini(&original);
	app_fini(&a);
}
END_TEST

START_TEST(test_double_and_halve_d_k)
{
	struct app a;
	struct qkv_problem original;

	start(&a);
	copy_problem(&original, &a);
	key(&a, '>');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 4);
	/* A hand-made problem grows by N(0,1) columns drawn with the seed on screen: the
	 * same entries a random problem of that seed has there; the old columns stay. */
	{
		struct qkv_problem drawn;

		qkv_problem_init(&drawn);
		ck_assert_int_eq(qkv_problem_random(&drawn, 3, 4, 2, a.column_seed), 0);
		ck_assert_msg(strstr(a.message, "2 new columns of Q and K drawn from N(0,1), seed 1") != NULL,
			      "message: %s", a.message);
		for (int r = 0; r < 3; r++) {
			for (int c = 0; c < 4; c++) {
				ck_assert(cell(&a, QKV_GRID_Q, r, c) ==
					  (c < 2 ? worked_qk[r][c] : qkv_matrix_get(&drawn.q, r, c)));
				ck_assert(cell(&a, QKV_GRID_K, r, c) ==
					  (c < 2 ? worked_qk[r][c] : qkv_matrix_get(&drawn.k, r, c)));
			}
		}
		qkv_problem_fini(&drawn);
	}
	ck_assert(!a.problem.seeded);
	key(&a, '<');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	key(&a, ']');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 3);
	/* ] stays the plain edit: a zero column. */
	for (int r = 0; r < 3; r++)
		ck_assert(cell(&a, QKV_GRID_K, r, 2) == 0.0 && cell(&a, QKV_GRID_Q, r, 2) == 0.0);
	ck_assert_msg(strstr(a.message, "a zero column added to Q and K") != NULL, "message: %s", a.message);
	key(&a, '<');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 1);
	key(&a, '<');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 1);
	assert_all_cursors_inside(&a);
	assert_trace_current(&a);
	qkv_problem_fini(&original);
	app_fini(&a);
}
END_TEST

/* A random problem grows by the columns a larger draw from the same seed has. */
START_TEST(test_double_and_halve_random)
{
	struct app a;
	struct qkv_problem p, original, wider;

	qkv_problem_init(&p);
	qkv_problem_init(&wider);
	ck_assert_int_eq(qkv_problem_random(&p, 4, 3, 2, 20240611u), 0);
	ck_assert_int_eq(qkv_problem_random(&wider, 4, 6, 2, 20240611u), 0);
	start_with(&a, &p, NULL);
	copy_problem(&original, &a);
	keys(&a, "jjjll");
	key(&a, '>');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 6);
	ck_assert(qkv_matrix_equal(&a.problem.q, &wider.q));
	ck_assert(qkv_matrix_equal(&a.problem.k, &wider.k));
	assert_all_cursors_inside(&a);
	key(&a, '<');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 3);
	ck_assert(qkv_problem_equal(&a.problem, &original));
	assert_all_cursors_inside(&a);
	assert_trace_current(&a);
	qkv_problem_fini(&original);
	qkv_problem_fini(&wider);
	app_fini(&a);
}
END_TEST

/* --- options ----------------------------------------------------------------- */

START_TEST(test_scale_toggle)
{
	struct app a;

	start(&a);
	ck_assert_double_eq_tol(a.trace.divisor, sqrt(2.0), TOL);
	key(&a, 's');
	ck_assert_int_eq(a.problem.scale, QKV_SCALE_NONE);
	assert_worked_trace(&a, 1.0);
	ck_assert(a.dirty);
	key(&a, 's');
	ck_assert_int_eq(a.problem.scale, QKV_SCALE_SQRT_DK);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_temperature_ladder)
{
	static const double down[] = { 0.5, 0.2, 0.1, 0.05, 0.05 };
	static const double up[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 10 };
	struct app a;

	start(&a);
	key(&a, 't');
	ck_assert_double_eq_tol(a.problem.temperature, 0.5, TOL);
	assert_worked_trace(&a, 0.5 * sqrt(2.0));
	key(&a, 'T');
	ck_assert_double_eq_tol(a.problem.temperature, 1.0, TOL);
	key(&a, 'T');
	ck_assert_double_eq_tol(a.problem.temperature, 2.0, TOL);
	assert_worked_trace(&a, 2.0 * sqrt(2.0));
	key(&a, 't');
	ck_assert_double_eq_tol(a.problem.temperature, 1.0, TOL);
	for (int i = 0; i < 5; i++) {
		key(&a, 't');
		ck_assert_double_eq_tol(a.problem.temperature, down[i], TOL);
	}
	for (int i = 0; i < 8; i++) {
		key(&a, 'T');
		ck_assert_double_eq_tol(a.problem.temperature, up[i], TOL);
		ck_assert_double_eq_tol(a.trace.divisor, up[i] * sqrt(2.0), TOL);
	}
	assert_worked_trace(&a, 10.0 * sqrt(2.0));
	app_fini(&a);
}
END_TEST

/* A temperature from a file outside the steps: t goes down and T up, never the
 * other way, and at the end of the steps τ stays with a sentence. */
START_TEST(test_temperature_outside_the_steps)
{
	struct app a;
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	p.temperature = 20;
	start_with(&a, &p, NULL);
	key(&a, 'T');
	ck_assert(a.problem.temperature == 20);
	ck_assert_ptr_nonnull(strstr(a.message, "τ stays 20"));
	key(&a, 't');
	ck_assert(a.problem.temperature == 10);
	app_fini(&a);

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	p.temperature = 0.01;
	start_with(&a, &p, NULL);
	key(&a, 't');
	ck_assert(a.problem.temperature == 0.01);
	ck_assert_ptr_nonnull(strstr(a.message, "τ stays 0.01"));
	key(&a, 'T');
	ck_assert(a.problem.temperature == 0.05);
	app_fini(&a);
}
END_TEST

/* The cell editor takes what the loader takes: the smallest subnormal 5e-324 (and
 * a number that rounds to 0), but no overflow. */
START_TEST(test_editor_takes_subnormals)
{
	struct app a;

	start(&a);
	keys(&a, "5e-324");
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(qkv_matrix_get(&a.problem.q, 0, 0) == 4.9406564584124654e-324);
	keys(&a, "1e-400");
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(qkv_matrix_get(&a.problem.q, 0, 0) == 0);
	keys(&a, "1e400");
	key(&a, APP_KEY_ENTER);
	ck_assert(a.editing);
	ck_assert(a.message_is_error);
	app_fini(&a);
}
END_TEST

START_TEST(test_mask_cycle)
{
	static const unsigned char hidden_row1[3] = { 0, 0, 1 };
	static const double scores_row1[3] = { 0, 1, 1 };
	struct app a;
	double weights[3];

	start(&a);
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CAUSAL);
	ck_assert(qkv_matrix_get(&a.trace.weights, 0, 0) == 1.0);
	ck_assert(qkv_matrix_get(&a.trace.weights, 0, 1) == 0.0);
	ck_assert(qkv_matrix_get(&a.trace.weights, 0, 2) == 0.0);
	ck_assert(qkv_matrix_get(&a.trace.weights, 1, 2) == 0.0);
	expected_softmax(scores_row1, hidden_row1, 3, sqrt(2.0), weights);
	assert_row(&a.trace.weights, 1, weights, 3);
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CUSTOM);
	assert_trace_current(&a);
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_NONE);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_wrong_cycle)
{
	struct app a;

	start(&a);
	key(&a, 'W');
	ck_assert_int_eq(a.problem.wrong, QKV_WRONG_MASK_AFTER_SOFTMAX);
	assert_trace_current(&a);
	key(&a, 'W');
	ck_assert_int_eq(a.problem.wrong, QKV_WRONG_COLUMN_SOFTMAX);
	assert_trace_current(&a);
	for (int j = 0; j < 3; j++) {
		double sum = 0.0;

		for (int i = 0; i < 3; i++)
			sum += qkv_matrix_get(&a.trace.weights, i, j);
		ck_assert_double_eq_tol(sum, 1.0, TOL);
	}
	/* Stage 3 of the column way is named as what it computes (each column sums to 1,
	 * as just checked), never "by rows". */
	for (int i = 0; i < 8 && a.stage != QKV_STAGE_WEIGHTS; i++)
		key(&a, 'n');
	ck_assert_int_eq(a.stage, QKV_STAGE_WEIGHTS);
	ck_assert_msg(strstr(a.message, "A = softmax(S') down the columns") != NULL, "%s", a.message);
	ck_assert(strstr(a.message, "by rows") == NULL);
	key(&a, APP_KEY_HOME);
	key(&a, 'W');
	ck_assert_int_eq(a.problem.wrong, QKV_WRONG_NONE);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_random_refill)
{
	struct app a;
	struct qkv_problem original;
	bool changed = false;

	start(&a);
	copy_problem(&original, &a);
	key(&a, 'r');
	ck_assert(a.problem.seeded);
	ck_assert_int_eq(a.problem.n, 3);
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 2);
	ck_assert_int_eq(qkv_problem_d_v(&a.problem), 2);
	ck_assert(qkv_matrix_all_finite(&a.problem.q));
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 2; c++)
			changed |= cell(&a, QKV_GRID_Q, r, c) != worked_qk[r][c];
	ck_assert(changed);
	ck_assert(a.dirty);
	assert_trace_current(&a);
	key(&a, 'u');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	assert_worked_trace(&a, sqrt(2.0));
	/* After the largest seed a file holds (2^53 − 1), r starts again from 0. */
	a.problem.seeded = true;
	a.problem.seed = (1ULL << 53) - 1;
	key(&a, 'r');
	ck_assert(a.problem.seeded);
	ck_assert(a.problem.seed == 0);
	ck_assert_ptr_nonnull(strstr(a.message, "seed 0"));
	qkv_problem_fini(&original);
	app_fini(&a);
}
END_TEST

/* Toggling one bit of a custom mask, both ways, and undoing the toggle. */
START_TEST(test_custom_mask_toggle)
{
	struct app a;
	bool was_masked;
	double sum;

	start(&a);
	keys(&a, "mm");
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CUSTOM);
	while (a.focus != QKV_GRID_WEIGHTS)
		key(&a, APP_KEY_TAB);
	keys(&a, "ll");
	assert_cursor(&a, 0, 2);
	was_masked = qkv_problem_is_masked(&a.problem, 0, 2);
	for (int round = 0; round < 2; round++) {
		bool masked;

		key(&a, APP_KEY_ENTER);
		masked = qkv_problem_is_masked(&a.problem, 0, 2);
		ck_assert_msg(masked == (round == 0 ? !was_masked : was_masked),
			      "Enter %d did not toggle the bit", round + 1);
		ck_assert_int_eq(qkv_trace_is_masked(&a.trace, 0, 2), masked);
		if (masked)
			ck_assert(qkv_matrix_get(&a.trace.weights, 0, 2) == 0.0);
		else
			ck_assert(qkv_matrix_get(&a.trace.weights, 0, 2) > 0.0);
		sum = 0.0;
		for (int j = 0; j < 3; j++)
			sum += qkv_matrix_get(&a.trace.weights, 0, j);
		ck_assert_double_eq_tol(sum, 1.0, TOL);
		ck_assert(!qkv_problem_is_masked(&a.problem, 0, 1) ==
			  !qkv_trace_is_masked(&a.trace, 0, 1));
		assert_trace_current(&a);
	}
	key(&a, APP_KEY_ENTER);
	ck_assert(qkv_problem_is_masked(&a.problem, 0, 2) == !was_masked);
	key(&a, 'u');
	ck_assert_msg(qkv_problem_is_masked(&a.problem, 0, 2) == was_masked,
		      "undo did not restore the mask bit");
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

/* --- overlays and display options -------------------------------------------- */

START_TEST(test_overlays)
{
	struct app a;

	start(&a);
	key(&a, '?');
	ck_assert_int_eq(a.view, VIEW_HELP);
	key(&a, '?');
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, '?');
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, 'D');
	ck_assert_int_eq(a.view, VIEW_DESCRIBE);
	key(&a, 'D');
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, 'D');
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_int_ne(key(&a, 'S') & REDRAW_OVERLAY, 0);
	ck_assert_int_eq(a.view, VIEW_SATURATION);
	ck_assert_int_gt(a.saturation.count, 0);
	ck_assert_int_le(a.saturation.count, QKV_SWEEP_MAX_POINTS);
	ck_assert_int_eq(a.saturation.sweep[0].d_k, 1);
	key(&a, 'S');
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, 'S');
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert(!a.dirty);
	app_fini(&a);
}
END_TEST

START_TEST(test_projector_and_palette)
{
	struct app a;
	bool projector;

	start(&a);
	projector = a.projector;
	key(&a, 'P');
	ck_assert(a.projector == !projector);
	key(&a, 'P');
	ck_assert(a.projector == projector);
	key(&a, 'c');
	ck_assert_int_eq(a.palette, 1);
	/* `c` names the palette it switched to. */
	ck_assert_str_eq(a.message, "palette: projector");
	key(&a, 'c');
	ck_assert_int_eq(a.palette, 2);
	ck_assert_str_eq(a.message, "palette: 8");
	key(&a, 'c');
	ck_assert_int_eq(a.palette, 0);
	ck_assert(!a.dirty);
	app_fini(&a);
}
END_TEST

/* --- autoplay ---------------------------------------------------------------- */

START_TEST(test_autoplay)
{
	struct app a;
	int64_t pace_ms;
	int first;
	bool reached_output = false;

	start(&a);
	ck_assert(a.pace_s > 0.0);
	pace_ms = (int64_t)ceil(a.pace_s * 1000.0);
	key(&a, 'A');
	ck_assert(a.autoplay);
	first = a.stage;
	ck_assert_int_lt(first, QKV_STAGE_OUTPUT);
	tick(&a, 1);
	ck_assert_int_eq(a.stage, first);
	tick(&a, pace_ms + 1);
	ck_assert_int_gt(a.stage, first);
	for (int i = 0; i < 12 && !reached_output; i++) {
		reached_output = a.stage == QKV_STAGE_OUTPUT;
		tick(&a, pace_ms + 1);
	}
	ck_assert(reached_output);
	key(&a, APP_KEY_HOME);
	ck_assert(!a.autoplay);
	first = a.stage;
	tick(&a, 10 * pace_ms);
	tick(&a, 10 * pace_ms);
	ck_assert_int_eq(a.stage, first);
	key(&a, 'A');
	ck_assert(a.autoplay);
	key(&a, 'j');
	ck_assert(!a.autoplay);
	app_fini(&a);
}
END_TEST

/* --- quitting ---------------------------------------------------------------- */

START_TEST(test_quit_clean)
{
	struct app a;

	start(&a);
	key(&a, 'q');
	ck_assert(a.quit);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	app_fini(&a);
}
END_TEST

START_TEST(test_quit_dirty_asks)
{
	struct app a;

	start(&a);
	key(&a, '+');
	ck_assert(a.dirty);
	key(&a, 'q');
	ck_assert(!a.quit);
	ck_assert_int_eq(a.prompt, PROMPT_QUIT);
	key(&a, 'n');
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(!a.quit);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	key(&a, 'q');
	ck_assert_int_eq(a.prompt, PROMPT_QUIT);
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(!a.quit);
	ck_assert(a.dirty);
	key(&a, 'q');
	key(&a, 'y');
	ck_assert(a.quit);
	app_fini(&a);
}
END_TEST

/* --- long computations beside the interface ------------------------------------ */

/* Ticks every 5 ms until the app's job is taken in (at most 60 s). */
static void wait_job(struct app *a)
{
	for (int i = 0; i < 12000 && app_busy(a); i++) {
		struct timespec pause = { 0, 5000000 };

		nanosleep(&pause, NULL);
		tick(a, 5);
	}
	ck_assert_msg(!app_busy(a), "the job did not end");
}

/* Score (i, j) = q_i · k_j / √d_k, summed here in the same order as a dot product. */
static double score_here(const struct qkv_problem *p, int i, int j)
{
	double sum = 0;

	for (int c = 0; c < p->q.cols; c++)
		sum += qkv_matrix_get(&p->q, i, c) * qkv_matrix_get(&p->k, j, c);
	return sum;
}

/* A large problem (512 tokens, d_k 256: 84 million multiply-adds a trace) computes
 * a structural change beside the interface: until it is taken in the screen keeps
 * the problem and trace from before, other keys wait, Esc cancels it leaving
 * everything (redo included) as it was; once taken in, the trace is the new one
 * and undo runs the same way. */
/* A multi-head problem too large for one key runs its changes as jobs too: the
 * progress line, keys waiting, Esc leaving everything as it was, and the result
 * taken in equal to a fresh computation of the changed problem. */
START_TEST(test_large_heads_change_runs_as_a_job)
{
	struct app a;
	struct qkv_problem p, before;
	double x00;

	qkv_problem_init(&p);
	qkv_problem_init(&before);
	ck_assert_int_eq(qkv_problem_random_heads(&p, 128, 8, 512, 3), 0);
	ck_assert(qkv_heads_cost(&p) > 1e8); /* far above a job's 5·10⁷ multiply-adds */
	ck_assert_int_eq(qkv_problem_copy(&before, &p), 0);
	start_with(&a, &p, NULL);
	ck_assert_int_eq(a.focus, QKV_GRID_X);
	x00 = qkv_matrix_get(&a.problem.x, 0, 0);

	key(&a, '+');
	ck_assert(app_busy(&a));
	ck_assert_msg(strstr(a.message, "computing the 8 heads of 128 tokens, d_model 512") != NULL, "%s", a.message);
	ck_assert_ptr_nonnull(strstr(a.message, "Esc cancels"));
	ck_assert(qkv_matrix_get(&a.problem.x, 0, 0) == x00); /* the screen's problem is the old one */
	key(&a, '<');
	ck_assert_ptr_nonnull(strstr(a.message, "still computing"));
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!app_busy(&a));
	ck_assert_ptr_nonnull(strstr(a.message, "cancelled"));
	ck_assert(qkv_problem_equal(&a.problem, &before));
	ck_assert(!a.dirty);
	key(&a, 'u');
	ck_assert_str_eq(a.message, "nothing to undo");

	/* The edit again, to the end: X's cell moved by 0.1, every head and the layer current. */
	key(&a, '+');
	ck_assert(app_busy(&a));
	wait_job(&a);
	ck_assert(qkv_matrix_get(&a.problem.x, 0, 0) == round((x00 + 0.1) * 1e9) / 1e9);
	ck_assert(a.dirty);
	assert_trace_current(&a);
	ck_assert(app_moved_input(&a, QKV_GRID_X, 0, 0));

	/* Halving d_k, a change of the whole problem: each head's d_k goes from 64 to 32. */
	key(&a, '<');
	ck_assert(app_busy(&a));
	ck_assert_msg(strstr(a.message, "computing the 8 heads of 128 tokens, d_model 512") != NULL, "%s", a.message);
	wait_job(&a);
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 32);
	ck_assert_int_eq(a.trace.d_k, 32);
	assert_trace_current(&a);

	/* Two undos, each a job: back to the problem as it was. */
	key(&a, 'u');
	wait_job(&a);
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 64);
	key(&a, 'u');
	wait_job(&a);
	ck_assert_msg(strncmp(a.message, "undone", 6) == 0, "%s", a.message);
	ck_assert(qkv_problem_equal(&a.problem, &before));
	ck_assert(!a.dirty);
	assert_trace_current(&a);
	app_fini(&a);
	qkv_problem_fini(&before);
}
END_TEST

START_TEST(test_large_change_runs_as_a_job)
{
	struct app a;
	struct qkv_problem p, before;

	qkv_problem_init(&p);
	qkv_problem_init(&before);
	ck_assert_int_eq(qkv_problem_random(&p, 512, 256, 64, 5), 0);
	ck_assert_int_eq(qkv_problem_copy(&before, &p), 0);
	start_with(&a, &p, NULL);
	ck_assert(!app_busy(&a));

	key(&a, '<');
	ck_assert(app_busy(&a));
	ck_assert_ptr_nonnull(strstr(a.message, "computing the trace of 512 tokens, d_k 128"));
	ck_assert_ptr_nonnull(strstr(a.message, "Esc cancels"));
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 256);
	ck_assert_int_eq(a.trace.d_k, 256);
	ck_assert(!a.dirty);
	key(&a, 'x');
	key(&a, 'o');
	ck_assert_int_eq(a.problem.n, 512);
	ck_assert_ptr_nonnull(strstr(a.message, "still computing"));
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!app_busy(&a));
	ck_assert_ptr_nonnull(strstr(a.message, "cancelled"));
	ck_assert(qkv_problem_equal(&a.problem, &before));
	ck_assert(!a.dirty);
	key(&a, APP_KEY_CTRL_R);
	ck_assert_str_eq(a.message, "nothing to redo");
	key(&a, 'u');
	ck_assert_str_eq(a.message, "nothing to undo");

	key(&a, '<');
	ck_assert(app_busy(&a));
	wait_job(&a);
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 128);
	ck_assert_int_eq(a.trace.d_k, 128);
	ck_assert(a.dirty);
	ck_assert_msg(strncmp(a.message, "d_k = 128", 9) == 0, "%s", a.message);
	for (int i = 0; i < 512; i += 97)
		for (int j = 0; j < 512; j += 89)
			ck_assert(fabs(qkv_matrix_get(&a.trace.scores, i, j) - score_here(&a.problem, i, j)) <=
				  1e-9 * (1 + fabs(score_here(&a.problem, i, j))));

	key(&a, 'u');
	ck_assert(app_busy(&a));
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 128);
	wait_job(&a);
	ck_assert_msg(strncmp(a.message, "undone", 6) == 0, "%s", a.message);
	ck_assert(qkv_problem_equal(&a.problem, &before));
	ck_assert_int_eq(a.trace.d_k, 256);

	/* An edit of one query's cell reaches one row of the trace (qkv_attention_update_cost
	 * is far below a job's): it is made at once, and marks that cell. */
	key(&a, '+');
	ck_assert(!app_busy(&a));
	ck_assert(qkv_matrix_get(&a.problem.q, 0, 0) == round((qkv_matrix_get(&before.q, 0, 0) + 0.1) * 1e9) / 1e9);
	ck_assert(app_moved_input(&a, QKV_GRID_Q, 0, 0));
	ck_assert(fabs(qkv_matrix_get(&a.trace.scores, 0, 3) - score_here(&a.problem, 0, 3)) <=
		  1e-9 * (1 + fabs(score_here(&a.problem, 0, 3))));
	ck_assert_ptr_nonnull(strstr(a.message, "Q[t1, d1]"));

	/* Quitting (app_fini) while a job runs leaves it to end on its own. */
	key(&a, '>');
	ck_assert(app_busy(&a));
	app_fini(&a);
	qkv_problem_fini(&before);
}
END_TEST

/* Presses k in a, whose changes are made between two keys, and in b, whose every
 * change runs as a job, and lets b's job end. */
static void press_both(struct app *a, struct app *b, int k)
{
	key(a, k);
	ck_assert_msg(!app_busy(a), "key %d ran as a job in the app without jobs_always", k);
	key(b, k);
	wait_job(b);
}

/* The two apps stand where a person would see a difference: focus, cursors, stage,
 * head, the status line and its kind, modified, the problem and the undo steps. */
static void assert_same_app(const struct app *a, const struct app *b, const char *what)
{
	ck_assert_msg(a->focus == b->focus, "%s: focus %d, by a job %d", what, a->focus, b->focus);
	for (int f = 0; f < QKV_GRID_COUNT; f++)
		ck_assert_msg(a->cursor[f].row == b->cursor[f].row && a->cursor[f].col == b->cursor[f].col,
			      "%s: cursor of grid %d at (%d, %d), by a job (%d, %d)", what, f, a->cursor[f].row,
			      a->cursor[f].col, b->cursor[f].row, b->cursor[f].col);
	ck_assert_msg(a->stage == b->stage, "%s: stage %d, by a job %d", what, a->stage, b->stage);
	ck_assert_msg(a->head == b->head, "%s: head %d, by a job %d", what, a->head, b->head);
	ck_assert_msg(strcmp(a->message, b->message) == 0, "%s: \"%s\", by a job \"%s\"", what, a->message,
		      b->message);
	ck_assert_msg(a->message_is_error == b->message_is_error, "%s: \"%s\" error %d, by a job %d", what,
		      a->message, a->message_is_error, b->message_is_error);
	ck_assert_msg(a->dirty == b->dirty, "%s: modified %d, by a job %d", what, a->dirty, b->dirty);
	ck_assert_msg(qkv_problem_equal(&a->problem, &b->problem), "%s: the problems differ", what);
	ck_assert_msg(a->history.position == b->history.position && a->history.count == b->history.count,
		      "%s: undo steps %d of %d, by a job %d of %d", what, a->history.position, a->history.count,
		      b->history.position, b->history.count);
	ck_assert_int_eq(a->trace.n, b->trace.n);
	ck_assert_int_eq(a->trace.d_k, b->trace.d_k);
}

/* Every change key leaves the same app whether its change is made between two keys
 * or by a job (as on a large problem): each key after its setup keys, then undo and
 * redo, on the worked example (Q, K, V given) and on a projected problem. */
START_TEST(test_change_by_job_leaves_the_same_app)
{
	enum { HEADS = 2 };
	static const struct {
		int form; /* 0 Q, K, V given; 1 projected; HEADS four tokens in two heads */
		int setup[8]; /* keys pressed first, to a 0 */
		int key;
	} cases[] = {
		{ 0, { 'j', 0 }, 'o' },   { 0, { 'j', 'j', 0 }, 'o' },  { 0, { 'j', 0 }, 'x' },   { 0, { 0 }, '>' },
		{ 0, { 0 }, '<' },    { 0, { 0 }, ']' },    { 0, { 0 }, '[' },    { 0, { 0 }, '}' },
		{ 0, { 0 }, '{' },    { 0, { 0 }, 'm' },    { 0, { 'W', 0 }, 'm' },   { 0, { 0 }, 'W' },
		{ 0, { 'W', 'W', 0 }, 'W' },  { 0, { 'j', 0 }, 'z' },   { 0, { 0 }, 's' },    { 0, { 0 }, 't' },
		{ 0, { 0 }, 'T' },    { 0, { 0 }, 'r' },    { 0, { 'j', 0 }, '+' },   { 0, { 'm', 'm', APP_KEY_TAB, APP_KEY_TAB, APP_KEY_TAB, 'l', 0 }, APP_KEY_ENTER },
		{ 1, { 0 }, 'I' },     { 1, { 'I', 0 }, 'I' },    { 1, { 0 }, ']' },     { 1, { 0 }, '[' },
		{ 1, { 'j', 0 }, 'o' },    { 1, { 0 }, '>' },     { 1, { 0 }, '<' },     { 1, { 'j', 'j', 0 }, 'x' },
		{ HEADS, { 'j', 0 }, 'o' },   { HEADS, { 'j', 0 }, 'x' },   { HEADS, { 0 }, '<' },   { HEADS, { 0 }, '}' },
		{ HEADS, { 0 }, ']' },        { HEADS, { 0 }, 'm' },        { HEADS, { 0 }, '+' },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct app a, b;
		char what[96];

		if (cases[i].form == HEADS) {
			struct qkv_problem p, q;

			qkv_problem_init(&p);
			qkv_problem_init(&q);
			ck_assert_int_eq(qkv_problem_random_heads(&p, 4, 2, 8, 3), 0);
			ck_assert_int_eq(qkv_problem_random_heads(&q, 4, 2, 8, 3), 0);
			start_with(&a, &p, NULL);
			start_with(&b, &q, NULL);
		} else if (cases[i].form) {
			start_projected(&a);
			start_projected(&b);
		} else {
			start(&a);
			start(&b);
		}
		b.jobs_always = true;
		for (const int *k = cases[i].setup; *k != 0; k++)
			press_both(&a, &b, *k);
		snprintf(what, sizeof what, "case %zu (form %d, then key %d)", i, cases[i].form, cases[i].key);
		assert_same_app(&a, &b, what);
		press_both(&a, &b, cases[i].key);
		assert_same_app(&a, &b, what);
		ck_assert_msg(a.history.position > 0, "%s: no change was made (%s)", what, a.message);
		press_both(&a, &b, 'u');
		assert_same_app(&a, &b, what);
		press_both(&a, &b, APP_KEY_CTRL_R);
		assert_same_app(&a, &b, what);
		app_fini(&a);
		app_fini(&b);
	}
}
END_TEST

/* A large sweep (256 tokens) runs beside the interface too; Esc goes back to the
 * parameters whose figures are shown. */
/* S on the worked example (3 tokens) sweeps at least 16 tokens: with 16·16 scores
 * a trial and 8 trials, the scaled variance, 1 in expectation at every d_k (the
 * dot product of d_k unit-variance products divided by √d_k), stays within 25% of
 * 1 across the sweep, a flat curve as the lesson says; 3 tokens zig-zag. */
START_TEST(test_saturation_sweep_has_enough_tokens)
{
	struct app a;
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	start_with(&a, &p, NULL);
	key(&a, 'S');
	ck_assert_int_eq(a.view, VIEW_SATURATION);
	if (app_busy(&a))
		wait_job(&a);
	ck_assert_int_eq(a.saturation.tokens, 16);
	ck_assert_int_gt(a.saturation.count, 5);
	for (int k = 0; k < a.saturation.count; k++)
		ck_assert_msg(fabs(a.saturation.sweep[k].scaled.score_variance - 1.0) < 0.25, "d_k %d: %g", a.saturation.sweep[k].d_k,
			      a.saturation.sweep[k].scaled.score_variance);
	app_fini(&a);
}
END_TEST

/* S with 64 tokens runs its sweep as a job (8 trials × 64² × 2 × 1024 multiply-adds
 * is above JOB_COST), with the result qkv_sweep gives; l starts another, Esc
 * cancels it and keeps the trials and the sweep there were. */
START_TEST(test_large_sweep_runs_as_a_job)
{
	struct app a;
	struct qkv_problem p;
	struct qkv_sweep_point expected[QKV_SWEEP_MAX_POINTS];
	int count;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 64, 4, 4, 5), 0);
	start_with(&a, &p, NULL);
	key(&a, 'S');
	ck_assert_int_eq(a.view, VIEW_SATURATION);
	ck_assert(app_busy(&a));
	ck_assert_int_eq(a.saturation.count, 0);
	wait_job(&a);
	ck_assert_int_eq(a.saturation.tokens, 64);
	count = qkv_sweep(64, a.saturation.trials, a.saturation.seed, a.saturation.dk_max, expected);
	ck_assert_int_eq(a.saturation.count, count);
	ck_assert(memcmp(a.saturation.sweep, expected, (size_t)count * sizeof expected[0]) == 0);
	key(&a, 'l');
	ck_assert(app_busy(&a));
	ck_assert_int_eq(a.saturation.trials, 16);
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!app_busy(&a));
	ck_assert_int_eq(a.saturation.trials, 8);
	ck_assert_int_eq(a.view, VIEW_SATURATION);
	ck_assert(memcmp(a.saturation.sweep, expected, (size_t)count * sizeof expected[0]) == 0);
	app_fini(&a);
}
END_TEST

/* --- the geometry view -------------------------------------------------------- */

/* G opens the geometry view; its arrows are the cursor's, so ↓ ↓ selects q_t3;
 * an edit of Q moves q_t3's point and its weights (softmax of the new scores,
 * written out here), + nudges it on, > makes the plane a principal one, s drops
 * the scale, Tab and ↓ select a key, and Esc and G close it. */
START_TEST(test_geometry_view_follows_edits)
{
	struct app a;
	struct qkv_geometry g;
	double scores[3], weights[3];

	start(&a);
	qkv_geometry_init(&g);
	key(&a, 'G');
	ck_assert_int_eq(a.view, VIEW_GEOMETRY);
	ck_assert_int_eq(app_key_context(&a), APP_KEYS_GEOMETRY);
	key(&a, APP_KEY_DOWN);
	key(&a, 'j');
	ck_assert_int_eq(app_query(&a), 2);
	ck_assert_int_eq(qkv_geometry_compute(&g, &a.trace.q, &a.trace.k), 0);
	ck_assert_double_eq(g.x[2], 1.0);
	ck_assert_double_eq(g.y[2], 1.0);
	/* Q[t3, d1] = 2: q_t3 = (2, 1), scores (2, 1, 3). */
	key(&a, '2');
	ck_assert(a.editing);
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert_int_eq(a.view, VIEW_GEOMETRY);
	ck_assert_int_eq(qkv_geometry_compute(&g, &a.trace.q, &a.trace.k), 0);
	ck_assert_double_eq(g.x[2], 2.0);
	ck_assert_double_eq(g.y[2], 1.0);
	scores[0] = 2, scores[1] = 1, scores[2] = 3;
	expected_softmax(scores, NULL, 3, sqrt(2.0), weights);
	for (int j = 0; j < 3; j++)
		ck_assert_double_eq_tol(qkv_matrix_get(&a.trace.weights, 2, j), weights[j], 1e-12);
	key(&a, '+');
	ck_assert_int_eq(qkv_geometry_compute(&g, &a.trace.q, &a.trace.k), 0);
	ck_assert_double_eq_tol(g.x[2], 2.1, 1e-12);
	/* s: no scale; the weights are softmax of the scores themselves. */
	key(&a, 's');
	ck_assert_double_eq(a.trace.divisor, 1.0);
	scores[0] = 2.1, scores[2] = 3.1;
	expected_softmax(scores, NULL, 3, 1.0, weights);
	for (int j = 0; j < 3; j++)
		ck_assert_double_eq_tol(qkv_matrix_get(&a.trace.weights, 2, j), weights[j], 1e-12);
	/* Tab to K, ↓: the selected key is k_t2, the query stays t3. */
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_K);
	key(&a, APP_KEY_DOWN);
	ck_assert_int_eq(app_key(&a), 1);
	ck_assert_int_eq(app_query(&a), 2);
	/* > doubles d_k: four columns, a principal plane holding part of the spread. */
	key(&a, '>');
	ck_assert_int_eq(a.trace.d_k, 4);
	ck_assert_int_eq(a.view, VIEW_GEOMETRY);
	ck_assert_int_eq(qkv_geometry_compute(&g, &a.trace.q, &a.trace.k), 0);
	ck_assert_int_eq(g.plane, QKV_PLANE_PCA);
	ck_assert(g.explained > 0.0 && g.explained <= 1.0);
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, 'G');
	ck_assert_int_eq(a.view, VIEW_GEOMETRY);
	key(&a, 'G');
	ck_assert_int_eq(a.view, VIEW_NONE);
	qkv_geometry_fini(&g);
	app_fini(&a);
}
END_TEST

/* --- saving ------------------------------------------------------------------ */

/* A fresh folder under the temporary directory; path receives its name. */
static void make_temp_dir(char *path, size_t size)
{
	const char *base = getenv("TMPDIR");

	snprintf(path, size, "%s/qkv-apptest-XXXXXX", base != NULL && *base ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(path));
}

/* Asserts that the file at path loads to a problem equal to the app's. */
static void assert_file_holds(const char *path, const struct app *a)
{
	struct qkv_problem loaded;
	char err[512];

	qkv_problem_init(&loaded);
	ck_assert_msg(load_file(path, &loaded, err, sizeof err) == 0, "%s", err);
	ck_assert(qkv_problem_equal(&loaded, &a->problem));
	qkv_problem_fini(&loaded);
}

/* --- requests: the app asks, the test answers (no file is touched) ------------ */

/* An answer to the app's request, straight into app_update (no app_perform). */
static int answer(struct app *a, enum event_type type, const struct app_file *file, int error, const char *text)
{
	struct event e = { .type = type, .error = error, .text = text };

	if (file != NULL)
		e.file = *file;
	clock_ms += 10;
	e.now_ms = clock_ms;
	return app_update(a, &e);
}

/* A key straight into app_update: what it asks stays asked. */
static void key_only(struct app *a, int k)
{
	struct event e = { .type = EVENT_KEY, .key = k };

	clock_ms += 10;
	e.now_ms = clock_ms;
	app_update(a, &e);
}

/* An app on the worked example editing path, as read at mtime 100, 50 bytes. */
static void start_on_file(struct app *a, const char *path)
{
	struct qkv_problem p;
	const struct app_file read = { .exists = true, .mtime_ns = 100, .size = 50 };

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(a, &p, path, &three_palettes), 0);
	ck_assert_int_eq(a->request.type, APP_REQUEST_LOOK);
	ck_assert_str_eq(a->request.path, path);
	answer(a, EVENT_LOOKED, &read, 0, NULL);
	ck_assert_int_eq(a->request.type, APP_REQUEST_NONE);
}

/* w looks at the file first; unchanged, it asks for the save; the answer makes
 * the problem the saved one. Changed on disk, it asks y / n first. */
START_TEST(test_save_is_asked_for)
{
	struct app a;
	const struct app_file same = { .exists = true, .mtime_ns = 100, .size = 50 };
	const struct app_file after = { .exists = true, .mtime_ns = 200, .size = 60 };
	const struct app_file other = { .exists = true, .mtime_ns = 300, .size = 60 };

	start_on_file(&a, "lesson.json");
	key_only(&a, '+');
	ck_assert(a.dirty);
	key_only(&a, 'w');
	ck_assert_int_eq(a.request.type, APP_REQUEST_LOOK);
	answer(&a, EVENT_LOOKED, &same, 0, NULL);
	ck_assert_int_eq(a.request.type, APP_REQUEST_SAVE);
	ck_assert_str_eq(a.request.path, "lesson.json");
	ck_assert(a.dirty); /* not saved until the answer says so */
	answer(&a, EVENT_SAVED, &after, 0, NULL);
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	ck_assert(!a.dirty);
	ck_assert_str_eq(a.message, "saved to lesson.json");

	/* Someone else wrote the file since: qkv asks; n leaves it. */
	key_only(&a, '+');
	key_only(&a, 'w');
	answer(&a, EVENT_LOOKED, &other, 0, NULL);
	ck_assert_int_eq(a.prompt, PROMPT_CHANGED);
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	key_only(&a, 'n');
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(a.dirty);
	/* y saves over it; a failure is said, and the problem stays unsaved. */
	key_only(&a, 'w');
	answer(&a, EVENT_LOOKED, &other, 0, NULL);
	key_only(&a, 'y');
	ck_assert_int_eq(a.request.type, APP_REQUEST_SAVE);
	answer(&a, EVENT_SAVE_FAILED, NULL, 13, "lesson.json: cannot save: Permission denied");
	ck_assert(a.message_is_error);
	ck_assert_str_eq(a.message, "lesson.json: cannot save: Permission denied");
	ck_assert(a.dirty);
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	/* An answer nobody asked for changes nothing. */
	ck_assert_int_eq(answer(&a, EVENT_SAVED, &after, 0, NULL), REDRAW_NONE);
	ck_assert(a.dirty);
	app_fini(&a);
}
END_TEST

/* Save-as: the typed name is looked at; a folder is refused, a file asks before
 * it is overwritten, a free name is saved to and becomes the file. */
START_TEST(test_save_as_is_asked_for)
{
	struct app a;
	const struct app_file folder = { .exists = true, .is_dir = true };
	const struct app_file file = { .exists = true, .mtime_ns = 5, .size = 9 };
	const struct app_file none = { .exists = false };

	start(&a);
	key_only(&a, 'w');
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	key_only(&a, 'd');
	key_only(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.request.type, APP_REQUEST_LOOK);
	ck_assert_str_eq(a.request.path, "d");
	answer(&a, EVENT_LOOKED, &folder, 0, NULL);
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	ck_assert_str_eq(a.message, "d is a folder: type the name of a file in it");
	key_only(&a, 'x');
	key_only(&a, APP_KEY_ENTER);
	answer(&a, EVENT_LOOKED, &file, 0, NULL);
	ck_assert_int_eq(a.prompt, PROMPT_OVERWRITE);
	key_only(&a, 'n');
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	ck_assert_ptr_null(a.path);
	key_only(&a, 'w');
	key_only(&a, 'e');
	key_only(&a, APP_KEY_ENTER);
	answer(&a, EVENT_LOOKED, &none, 0, NULL);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_int_eq(a.request.type, APP_REQUEST_SAVE);
	ck_assert_str_eq(a.request.path, "e");
	answer(&a, EVENT_SAVED, &file, 0, NULL);
	ck_assert_str_eq(a.path, "e");
	ck_assert_str_eq(a.message, "saved to e");
	app_fini(&a);
}
END_TEST

/* A recovery copy that does not read is said on the status line, as an error,
 * with the loader's sentence; the app goes on with its own problem, asking nothing. */
START_TEST(test_recovery_unreadable_is_said)
{
	struct app a;

	start_on_file(&a, "lesson.json");
	app_recovery_unreadable(&a, "lesson.json.recovery: line 3: expected a number");
	ck_assert(a.message_is_error);
	ck_assert_str_eq(a.message, "a recovery copy does not read: lesson.json.recovery: line 3: expected a number");
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	app_fini(&a);
}
END_TEST

/* A recovery copy not asked for is named on the status line, not asked about:
 * no prompt, the keys as always. */
START_TEST(test_recovery_kept_is_said_not_asked)
{
	struct app a;

	start_on_file(&a, "lesson.json");
	app_recovery_kept(&a, "/state/qkv/lesson.json-1.recovery");
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(!a.message_is_error);
	ck_assert_str_eq(a.message, "Unsaved changes from an earlier session are kept in "
				    "/state/qkv/lesson.json-1.recovery: qkv --recover lesson.json offers them");
	ck_assert_int_eq(app_key_context(&a), APP_KEYS_LIVE);
	app_fini(&a);
}
END_TEST

/* n to a recovery copy asks for its removal and says what the answer says; a save
 * asks for it too, silently. */
START_TEST(test_recovery_removal_is_asked_for)
{
	struct app a;
	struct qkv_problem recovered;
	const struct app_file after = { .exists = true, .mtime_ns = 200, .size = 60 };

	start_on_file(&a, "lesson.json");
	qkv_problem_init(&recovered);
	ck_assert_int_eq(qkv_problem_worked_example(&recovered), 0);
	ck_assert_int_eq(app_offer_recovery(&a, &recovered, "lesson.json.recovery"), 0);
	key_only(&a, 'n');
	ck_assert_int_eq(a.request.type, APP_REQUEST_REMOVE);
	ck_assert_str_eq(a.request.path, "lesson.json.recovery");
	answer(&a, EVENT_REMOVED, NULL, 2, NULL);
	ck_assert(a.message_is_error);
	ck_assert_msg(strstr(a.message, "lesson.json.recovery: cannot delete the recovery copy (") == a.message,
		      "%s", a.message);

	qkv_problem_init(&recovered);
	ck_assert_int_eq(qkv_problem_worked_example(&recovered), 0);
	ck_assert_int_eq(app_offer_recovery(&a, &recovered, "lesson.json.recovery"), 0);
	key_only(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE); /* kept for later: nothing to delete */
	qkv_problem_init(&recovered);
	ck_assert_int_eq(qkv_problem_worked_example(&recovered), 0);
	ck_assert_int_eq(app_offer_recovery(&a, &recovered, "lesson.json.recovery"), 0);
	key_only(&a, 'y');
	key_only(&a, 'w');
	ck_assert_int_eq(a.request.type, APP_REQUEST_LOOK);
	answer(&a, EVENT_LOOKED, &(struct app_file){ .exists = true, .mtime_ns = 100, .size = 50 }, 0, NULL);
	answer(&a, EVENT_SAVED, &after, 0, NULL);
	ck_assert_int_eq(a.request.type, APP_REQUEST_REMOVE);
	ck_assert_str_eq(a.request.path, "lesson.json.recovery");
	ck_assert_str_eq(a.message, "saved to lesson.json");
	answer(&a, EVENT_REMOVED, NULL, 0, NULL);
	ck_assert_str_eq(a.message, "saved to lesson.json");
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	ck_assert_ptr_null(a.recovery);
	app_fini(&a);
}
END_TEST

START_TEST(test_save_as_and_overwrite)
{
	struct app a, b;
	char dir[512], file[600];
	struct stat st;

	make_temp_dir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s/saved.json", dir);
	start(&a);
	key(&a, '+');
	key(&a, 'w');
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	keys(&a, file);
	ck_assert_str_eq(a.answer, file);
	ck_assert(a.dirty);
	key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_msg(!a.dirty, "not saved: %s", a.message);
	ck_assert_int_eq(stat(file, &st), 0);
	assert_file_holds(file, &a);
	ck_assert(!a.quit);
	app_fini(&a);

	start(&b);
	keys(&b, "l4");
	key(&b, APP_KEY_ENTER);
	key(&b, 'w');
	ck_assert_int_eq(b.prompt, PROMPT_SAVE_AS);
	keys(&b, file);
	key(&b, APP_KEY_ENTER);
	ck_assert_int_eq(b.prompt, PROMPT_OVERWRITE);
	ck_assert(b.dirty);
	key(&b, 'y');
	ck_assert_int_eq(b.prompt, PROMPT_NONE);
	ck_assert_msg(!b.dirty, "not saved: %s", b.message);
	assert_file_holds(file, &b);
	app_fini(&b);

	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The whole of a small file, or NULL. */
static char *read_whole(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = f != NULL ? calloc(1, 1 << 20) : NULL;

	if (text != NULL && fread(text, 1, (1 << 20) - 1, f) == 0 && ferror(f)) {
		free(text);
		text = NULL;
	}
	if (f != NULL)
		fclose(f);
	return text;
}

static int occurrences(const char *text, const char *what)
{
	int n = 0;

	for (const char *at = strstr(text, what); at != NULL; at = strstr(at + 1, what))
		n++;
	return n;
}

/* Waits for E's figure to be drawn, then writes it as the interface does. */
static void wait_export(struct app *a)
{
	wait_job(a);
	app_perform(a, clock_ms);
}

/* Esc while E's figure is drawn cancels it: nothing is written, ever, and the
 * keys work again at once. */
START_TEST(test_export_cancelled)
{
	struct app a;
	char dir[512], svg[600];
	struct stat st;

	make_temp_dir(dir, sizeof dir);
	snprintf(svg, sizeof svg, "%s/weights.svg", dir);
	start(&a);
	key(&a, 'E');
	keys(&a, svg);
	key(&a, APP_KEY_ENTER);
	ck_assert(app_busy(&a));
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!app_busy(&a));
	ck_assert(!a.message_is_error);
	ck_assert_ptr_nonnull(strstr(a.message, "cancelled: "));
	ck_assert_ptr_nonnull(strstr(a.message, "weights.svg was not written"));
	for (int i = 0; i < 20; i++)
		tick(&a, 5);
	app_perform(&a, clock_ms);
	ck_assert_int_ne(stat(svg, &st), 0);
	ck_assert_int_eq(a.request.type, APP_REQUEST_NONE);
	app_fini(&a);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* E on a figure above the cap says so at once and asks no name; the weights of
 * 500 tokens, exactly the cap, are asked for. */
START_TEST(test_export_too_large)
{
	struct app a;
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 501, 1, 1, 7u), 0);
	start_with(&a, &p, NULL);
	key(&a, 'E');
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(!a.exporting);
	ck_assert(a.message_is_error);
	ck_assert_str_eq(a.message, "the figure of stage 3 (weights) would draw 251,001 cells; "
				    "a figure draws at most 250,000");
	app_fini(&a);

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 500, 1, 1, 7u), 0);
	start_with(&a, &p, NULL);
	key(&a, 'E');
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	ck_assert(a.exporting);
	app_fini(&a);
}
END_TEST

/* E, the name `svg`, Enter: the figure written, read back (caller frees); `what`
 * names the case in a failure. */
static char *export_svg(struct app *a, const char *svg, const char *what)
{
	char *text;

	key(a, 'E');
	keys(a, svg);
	key(a, APP_KEY_ENTER);
	wait_export(a);
	ck_assert_msg(!a->message_is_error, "%s: %s", what, a->message);
	text = read_whole(svg);
	ck_assert_ptr_nonnull(text);
	return text;
}

/* E on a problem of three heads exports what the screen shows: live, every head's
 * weights, one heatmap of n × n cells per head, each headed "Head i"; in stage 1
 * the selected head's scores alone, headed with its number. */
START_TEST(test_export_heads)
{
	struct app a;
	struct qkv_problem p;
	char dir[512], svg[600];
	char *text;

	make_temp_dir(dir, sizeof dir);
	snprintf(svg, sizeof svg, "%s/heads.svg", dir);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random_heads(&p, 4, 3, 12, 3), 0);
	start_with(&a, &p, NULL);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	text = export_svg(&a, svg, "");
	ck_assert_int_eq(occurrences(text, "id=\"cell-"), 3 * 4 * 4);
	ck_assert_int_eq(occurrences(text, ">Head 1</text>"), 1);
	ck_assert_int_eq(occurrences(text, ">Head 2</text>"), 1);
	ck_assert_int_eq(occurrences(text, ">Head 3</text>"), 1);
	free(text);
	ck_assert_int_eq(unlink(svg), 0);

	key(&a, 'H'); /* the second head */
	while (a.stage != QKV_STAGE_SCORES)
		key(&a, APP_KEY_PAGE_DOWN);
	text = export_svg(&a, svg, "");
	ck_assert_int_eq(occurrences(text, "id=\"cell-"), 4 * 4);
	ck_assert_int_eq(occurrences(text, ">Head 1</text>") + occurrences(text, ">Head 3</text>"), 0);
	ck_assert_int_eq(occurrences(text, ">Head 2</text>"), 1);
	free(text);
	ck_assert_int_eq(unlink(svg), 0);

	/* Stages 4, 5 and 0 draw the selected head's own figure: its title says which. */
	for (int k = 0; k < 3; k++) {
		int stage = k == 0 ? QKV_STAGE_MIX : k == 1 ? QKV_STAGE_OUTPUT : QKV_STAGE_PROJECTIONS;

		while ((int)a.stage != stage)
			key(&a, stage == QKV_STAGE_PROJECTIONS ? APP_KEY_PAGE_UP : APP_KEY_PAGE_DOWN);
		text = export_svg(&a, svg, qkv_stage_name((enum qkv_stage)stage));
		ck_assert_msg(occurrences(text, "\u2014 Head 2 of 3</text>") == 1, "stage %d: no \"Head 2 of 3\" title",
			      stage);
		ck_assert_int_eq(occurrences(text, "Head 1") + occurrences(text, "Head 3"), 0);
		free(text);
		ck_assert_int_eq(unlink(svg), 0);
	}
	app_fini(&a);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* E exports the stage on screen as a figure named like w's prompt, its format
 * from the name; the problem is not saved by it; a name without .svg, .pdf or
 * .png is refused, an existing file is asked about. */
START_TEST(test_export_figure)
{
	struct app a;
	char dir[512], svg[600], pdf[600], bad[600];
	char *text;
	struct stat st;

	make_temp_dir(dir, sizeof dir);
	snprintf(svg, sizeof svg, "%s/scores.svg", dir);
	snprintf(pdf, sizeof pdf, "%s/weights.pdf", dir);
	snprintf(bad, sizeof bad, "%s/figure.txt", dir);
	start(&a);
	key(&a, '+');
	while (a.stage != QKV_STAGE_SCORES)
		key(&a, APP_KEY_PAGE_DOWN);
	key(&a, 'E');
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	ck_assert(a.exporting);
	keys(&a, svg);
	key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	/* The figure is drawn beside the interface, then written. */
	ck_assert(app_busy(&a));
	ck_assert_ptr_nonnull(strstr(a.message, "computing the figure of stage 1 (scores) for"));
	wait_export(&a);
	ck_assert_msg(!a.message_is_error, "%s", a.message);
	ck_assert_ptr_nonnull(strstr(a.message, "stage 1 (scores) exported to"));
	ck_assert(a.dirty);   /* exporting is not saving */
	text = read_whole(svg);
	ck_assert_ptr_nonnull(text);
	ck_assert(strncmp(text, "<?xml", 5) == 0);
	/* The worked example's scores Q Kᵀ after '+' nudged Q's first entry by the step
	 * 0.1: row 1 is 1.1, 0, 1.1; one rectangle per cell of the 3×3 grid. */
	ck_assert_int_eq(occurrences(text, "id=\"cell-"), 9);
	ck_assert_int_eq(occurrences(text, ">1.10</text>"), 2);
	ck_assert_int_eq(occurrences(text, ">2.00</text>"), 1);
	ck_assert_int_eq(occurrences(text, "stroke=\"#ff5f00\""), 1);   /* the selected cell */
	free(text);

	key(&a, 'E');
	keys(&a, svg);
	key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.prompt, PROMPT_OVERWRITE);
	key(&a, 'n');
	ck_assert_str_eq(a.message, "not exported");

	key(&a, APP_KEY_PAGE_DOWN);
	key(&a, APP_KEY_PAGE_DOWN);
	key(&a, 'E');
	keys(&a, pdf);
	key(&a, APP_KEY_ENTER);
	wait_export(&a);
	ck_assert_msg(!a.message_is_error, "%s", a.message);
	ck_assert_ptr_nonnull(strstr(a.message, "stage 3 (weights)"));
	text = read_whole(pdf);
	ck_assert_ptr_nonnull(text);
	ck_assert(strncmp(text, "%PDF-", 5) == 0);
	free(text);

	key(&a, 'E');
	keys(&a, bad);
	key(&a, APP_KEY_ENTER);
	ck_assert(a.message_is_error);
	ck_assert_ptr_nonnull(strstr(a.message, ".svg, .pdf or .png"));
	ck_assert_int_ne(stat(bad, &st), 0);

	/* w afterwards is a save again. */
	key(&a, 'w');
	ck_assert(!a.exporting);
	key(&a, APP_KEY_ESCAPE);
	ck_assert_str_eq(a.message, "not saved");
	app_fini(&a);
	ck_assert_int_eq(unlink(svg), 0);
	ck_assert_int_eq(unlink(pdf), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_save_to_given_path)
{
	struct app a;
	struct qkv_problem p;
	char dir[512], file[600];

	make_temp_dir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s/given.json", dir);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	start_with(&a, &p, file);
	key(&a, '-');
	key(&a, 'w');
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_msg(!a.dirty, "not saved: %s", a.message);
	assert_file_holds(file, &a);
	key(&a, 'o');
	ck_assert(a.dirty);
	key(&a, 'w');
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_msg(!a.dirty, "not saved: %s", a.message);
	assert_file_holds(file, &a);
	key(&a, 'q');
	ck_assert(a.quit);
	app_fini(&a);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Save-as onto a folder says so instead of asking to overwrite it. */
START_TEST(test_save_as_onto_a_folder)
{
	struct app a;
	char dir[512];

	make_temp_dir(dir, sizeof dir);
	start(&a);
	key(&a, '+');
	key(&a, 'w');
	keys(&a, dir);
	key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	ck_assert(a.message_is_error);
	ck_assert_ptr_nonnull(strstr(a.message, "is a folder"));
	ck_assert(a.dirty);
	key(&a, APP_KEY_ESCAPE);
	app_fini(&a);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The file changed on disk by someone else since qkv read it: w asks before saving
 * over it; n leaves it, y saves. */
START_TEST(test_changed_on_disk_asks)
{
	struct app a;
	struct qkv_problem p;
	char dir[512], file[600], err[512], line[64] = "";
	FILE *f;

	make_temp_dir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s/shared.json", dir);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(save_file(file, &p, err, sizeof err), 0);
	start_with(&a, &p, file);
	key(&a, '+');
	key(&a, 'w');
	ck_assert_msg(!a.dirty, "an unchanged file saves at once: %s", a.message);
	key(&a, '+');
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("someone else's text, longer than before? no, different\n", f);
	fclose(f);
	key(&a, 'w');
	ck_assert_int_eq(a.prompt, PROMPT_CHANGED);
	ck_assert(a.dirty);
	pasted(&a, 'y');
	ck_assert_int_eq(a.prompt, PROMPT_CHANGED);
	key(&a, 'n');
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(a.dirty);
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	fclose(f);
	ck_assert_ptr_nonnull(strstr(line, "someone else"));
	key(&a, 'w');
	ck_assert_int_eq(a.prompt, PROMPT_CHANGED);
	key(&a, 'y');
	ck_assert_msg(!a.dirty, "%s", a.message);
	assert_file_holds(file, &a);
	key(&a, '+');
	key(&a, 'w');
	ck_assert_msg(!a.dirty, "after its own save qkv knows the file again: %s", a.message);
	app_fini(&a);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* --- Ctrl-C, pastes and recovery copies ------------------------------------------ */

START_TEST(test_ctrl_c_is_q)
{
	struct app a;

	start(&a);
	key(&a, APP_KEY_CTRL_C);
	ck_assert(a.quit);
	app_fini(&a);

	start(&a);
	key(&a, '+');
	key(&a, APP_KEY_CTRL_C);
	ck_assert(!a.quit);
	ck_assert_int_eq(a.prompt, PROMPT_QUIT);
	key(&a, APP_KEY_CTRL_C); /* a second Ctrl-C is "no", as Esc */
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert(!a.quit);
	ck_assert(a.dirty);
	key(&a, APP_KEY_CTRL_BACKSLASH);
	ck_assert_int_eq(a.prompt, PROMPT_QUIT);
	key(&a, 'y');
	ck_assert(a.quit);
	app_fini(&a);

	start(&a);
	key(&a, APP_KEY_CTRL_S);
	ck_assert(!a.quit);
	ck_assert(!a.dirty);
	ck_assert_ptr_nonnull(strstr(a.message, "w saves"));
	app_fini(&a);
}
END_TEST

/* Pasted keys: text in a cell edit, nothing anywhere else. */
START_TEST(test_pasted_keys_are_not_commands)
{
	struct app a;
	struct qkv_problem before;
	const char *text = "hello world, the answer is 42 rowWxqIS?";

	start(&a);
	qkv_problem_init(&before);
	ck_assert_int_eq(qkv_problem_copy(&before, &a.problem), 0);
	for (const char *c = text; *c != '\0'; c++)
		pasted(&a, (unsigned char)*c);
	pasted(&a, APP_KEY_ENTER);
	pasted(&a, APP_KEY_CTRL_C);
	ck_assert(!a.quit);
	ck_assert(!a.dirty);
	ck_assert(!a.editing);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert(qkv_problem_equal(&before, &a.problem));
	ck_assert_ptr_nonnull(strstr(a.message, "pasted text is not a command"));
	ck_assert(a.message_is_error);

	/* In a cell edit a paste is its text; Enter still has to be pressed. */
	key(&a, APP_KEY_ENTER);
	ck_assert(a.editing);
	key(&a, APP_KEY_CTRL_U);
	pasted(&a, '2');
	pasted(&a, '.');
	pasted(&a, '5');
	pasted(&a, APP_KEY_ENTER);
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, "2.5");
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.editing);
	ck_assert(qkv_matrix_get(&a.problem.q, 0, 0) == 2.5);

	/* No answer to a question comes from a paste. */
	key(&a, 'q');
	ck_assert_int_eq(a.prompt, PROMPT_QUIT);
	pasted(&a, 'y');
	ck_assert(!a.quit);
	ck_assert_int_eq(a.prompt, PROMPT_QUIT);
	key(&a, 'n');
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

/* Save-as over an existing file: a pasted y never overwrites it; a pasted name is
 * text, but a pasted Enter does not save. */
START_TEST(test_pasted_keys_never_save)
{
	struct app a;
	char dir[512], file[600];
	FILE *f;
	char buf[16] = "";

	make_temp_dir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s/kept.json", dir);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep me", f);
	fclose(f);
	start(&a);
	key(&a, '+');
	key(&a, 'w');
	for (const char *c = file; *c != '\0'; c++)
		pasted(&a, (unsigned char)*c);
	ck_assert_str_eq(a.answer, file);
	pasted(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.prompt, PROMPT_SAVE_AS);
	key(&a, APP_KEY_ENTER);
	ck_assert_int_eq(a.prompt, PROMPT_OVERWRITE);
	pasted(&a, 'y');
	ck_assert_int_eq(a.prompt, PROMPT_OVERWRITE);
	ck_assert(a.dirty);
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	fclose(f);
	ck_assert_str_eq(buf, "keep me");
	key(&a, 'n');
	app_fini(&a);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Save-as keeps every character of a name typed in UTF-8 (not only ASCII), and
 * Backspace takes back a whole character. */
START_TEST(test_save_as_name_keeps_non_ascii)
{
	struct app a;

	start(&a);
	key(&a, 'w');
	key(&a, 0xe9);    /* é */
	key(&a, 0x27e8);  /* ⟨ */
	key(&a, 0x1f600); /* 😀 */
	key(&a, 'x');
	ck_assert_str_eq(a.answer, "\xc3\xa9\xe2\x9f\xa8\xf0\x9f\x98\x80x");
	key(&a, APP_KEY_BACKSPACE);
	key(&a, APP_KEY_BACKSPACE);
	ck_assert_str_eq(a.answer, "\xc3\xa9\xe2\x9f\xa8");
	key(&a, 0x202e); /* a bidi override is not part of a name */
	key(&a, 0x85);   /* nor a C1 control */
	ck_assert_str_eq(a.answer, "\xc3\xa9\xe2\x9f\xa8");
	key(&a, APP_KEY_ESCAPE);
	app_fini(&a);
}
END_TEST

/* A recovery copy offered at the start: y opens it unsaved (undo goes back to the
 * file's problem) and the copy goes once the file is saved; n deletes it; Esc keeps it. */
START_TEST(test_recovery_offer)
{
	struct app a;
	struct qkv_problem p, recovered, original;
	char dir[512], file[600], copy[620];
	char err[512];
	FILE *f;

	make_temp_dir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s/file.json", dir);
	snprintf(copy, sizeof copy, "%s.recovery", file);
	for (int answer = 0; answer < 3; answer++) {
		f = fopen(copy, "w");
		ck_assert_ptr_nonnull(f);
		fputs("{}", f);
		fclose(f);
		qkv_problem_init(&p);
		qkv_problem_init(&recovered);
		qkv_problem_init(&original);
		ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
		ck_assert_int_eq(qkv_problem_copy(&original, &p), 0);
		ck_assert_int_eq(qkv_problem_copy(&recovered, &p), 0);
		qkv_matrix_set(&recovered.q, 0, 0, 7.25);
		ck_assert_int_eq(save_file(file, &p, err, sizeof err), 0);
		start_with(&a, &p, file);
		ck_assert_int_eq(app_offer_recovery(&a, &recovered, copy), 0);
		ck_assert_int_eq(a.prompt, PROMPT_RECOVER);
		pasted(&a, 'y');
		ck_assert_int_eq(a.prompt, PROMPT_RECOVER);
		if (answer == 0) {
			key(&a, 'y');
			ck_assert_int_eq(a.prompt, PROMPT_NONE);
			ck_assert(a.dirty);
			ck_assert(qkv_matrix_get(&a.problem.q, 0, 0) == 7.25);
			ck_assert(qkv_matrix_get(&a.trace.scores, 0, 0) == 7.25); /* q1·k1 = 7.25·1 + 0·0 */
			ck_assert_int_eq(access(copy, F_OK), 0);
			key(&a, 'u');
			ck_assert(qkv_problem_equal(&a.problem, &original));
			key(&a, APP_KEY_CTRL_R);
			key(&a, 'w');
			ck_assert_msg(!a.dirty, "not saved: %s", a.message);
			ck_assert_int_ne(access(copy, F_OK), 0);
			assert_file_holds(file, &a);
		} else if (answer == 1) {
			key(&a, 'n');
			ck_assert_int_eq(a.prompt, PROMPT_NONE);
			ck_assert(!a.dirty);
			ck_assert(qkv_problem_equal(&a.problem, &original));
			ck_assert_int_ne(access(copy, F_OK), 0);
		} else {
			key(&a, APP_KEY_ESCAPE);
			ck_assert_int_eq(a.prompt, PROMPT_NONE);
			ck_assert(!a.dirty);
			ck_assert(qkv_problem_equal(&a.problem, &original));
			ck_assert_int_eq(access(copy, F_OK), 0);
			ck_assert_int_eq(unlink(copy), 0);
		}
		app_fini(&a);
		qkv_problem_fini(&recovered);
		qkv_problem_fini(&original);
	}
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* --- mouse, resize, flags ---------------------------------------------------- */

START_TEST(test_click_selects)
{
	struct app a;
	int flags;

	start(&a);
	flags = click(&a, QKV_GRID_K, 2, 1);
	ck_assert_int_ne(flags, 0);
	ck_assert_int_eq(a.focus, QKV_GRID_K);
	assert_cursor(&a, 2, 1);
	click(&a, QKV_GRID_V, 3, 0);
	click(&a, QKV_GRID_V, 0, 2);
	click(&a, QKV_GRID_Q, -1, 0);
	click(&a, QKV_GRID_WEIGHTS, 0, 3);
	click(&a, QKV_GRID_OUTPUT, 0, -1);
	ck_assert_int_eq(a.focus, QKV_GRID_K);
	assert_cursor(&a, 2, 1);
	ck_assert_int_eq(a.cursor[QKV_GRID_V].row, 0);
	ck_assert_int_eq(a.cursor[QKV_GRID_V].col, 0);
	click(&a, QKV_GRID_WEIGHTS, 1, 2);
	ck_assert_int_eq(a.focus, QKV_GRID_WEIGHTS);
	assert_cursor(&a, 1, 2);
	ck_assert(!a.dirty);
	app_fini(&a);
}
END_TEST

START_TEST(test_wheel_nudges)
{
	struct app a;

	start(&a);
	wheel(&a, QKV_GRID_Q, 1, 1, 1);
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_Q, 1, 1), 1.1, TOL);
	ck_assert(a.dirty);
	assert_trace_current(&a);
	wheel(&a, QKV_GRID_V, 2, 0, -1);
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_V, 2, 0), 4.9, TOL);
	wheel(&a, QKV_GRID_V, 3, 0, 1);
	ck_assert_double_eq_tol(cell(&a, QKV_GRID_V, 2, 0), 4.9, TOL);
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_V, 2, 0) == 5.0);
	key(&a, 'u');
	ck_assert(cell(&a, QKV_GRID_Q, 1, 1) == 1.0);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

START_TEST(test_resize)
{
	struct app a;
	int flags;

	start(&a);
	flags = resize(&a, 132, 43);
	ck_assert_int_ne(flags & REDRAW_LAYOUT, 0);
	ck_assert_int_eq(a.width, 132);
	ck_assert_int_eq(a.height, 43);
	flags = resize(&a, 80, 24);
	ck_assert_int_ne(flags & REDRAW_LAYOUT, 0);
	ck_assert_int_eq(a.width, 80);
	ck_assert_int_eq(a.height, 24);
	app_fini(&a);
}
END_TEST

/* --- blast radius ------------------------------------------------------------ */

/* After a change, exactly the trace cells whose values differ from `before` are
 * marked, among the scores and the outputs. */
static void assert_marks_match(const struct app *a, const struct qkv_trace *before)
{
	for (int i = 0; i < a->trace.n; i++) {
		for (int j = 0; j < a->trace.n; j++) {
			bool moved = qkv_matrix_get(&a->trace.scores, i, j) !=
				     qkv_matrix_get(&before->scores, i, j);
			ck_assert_msg(app_moved_score(a, i, j) == moved,
				      "score (%d, %d): marked %d, moved %d", i, j,
				      app_moved_score(a, i, j), moved);
		}
		for (int c = 0; c < a->trace.d_v; c++) {
			bool moved = qkv_matrix_get(&a->trace.output, i, c) !=
				     qkv_matrix_get(&before->output, i, c);
			ck_assert_msg(app_moved_output(a, i, c) == moved,
				      "output (%d, %d): marked %d, moved %d", i, c,
				      app_moved_output(a, i, c), moved);
		}
	}
}

/* Asserts nothing is marked. */
static void assert_nothing_marked(const struct app *a)
{
	for (int i = 0; i < a->trace.n; i++) {
		for (int j = 0; j < a->trace.n; j++)
			ck_assert(!app_moved_score(a, i, j));
		for (int c = 0; c < a->trace.d_v; c++)
			ck_assert(!app_moved_output(a, i, c));
	}
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 2; c++)
			ck_assert(!app_moved_input(a, QKV_GRID_Q, r, c) &&
				  !app_moved_input(a, QKV_GRID_V, r, c));
}

/* A trace of the app's problem as it is now, computed apart from the app. */
static void keep_trace(struct qkv_trace *t, const struct app *a)
{
	qkv_trace_init(t);
	ck_assert_int_eq(qkv_attention(&a->problem, t), 0);
}

START_TEST(test_blast_radius_query)
{
	struct app a;
	struct qkv_trace before;

	start(&a);
	assert_nothing_marked(&a);
	keep_trace(&before, &a);
	key(&a, 'l');
	key(&a, '2');
	key(&a, APP_KEY_ENTER);
	/* Scores of row 0 go from (1, 0, 1) to (1, 2, 3): keys 1 and 2 move. */
	ck_assert(!app_moved_score(&a, 0, 0));
	ck_assert(app_moved_score(&a, 0, 1));
	ck_assert(app_moved_score(&a, 0, 2));
	for (int i = 1; i < 3; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(!app_moved_score(&a, i, j));
	ck_assert(app_moved_output(&a, 0, 0));
	ck_assert(app_moved_output(&a, 0, 1));
	for (int i = 1; i < 3; i++)
		for (int c = 0; c < 2; c++)
			ck_assert(!app_moved_output(&a, i, c));
	assert_marks_match(&a, &before);
	ck_assert(app_moved_input(&a, QKV_GRID_Q, 0, 1));
	ck_assert(!app_moved_input(&a, QKV_GRID_Q, 0, 0));
	ck_assert(!app_moved_input(&a, QKV_GRID_K, 0, 1));
	ck_assert(a.mark_until_ms > clock_ms);
	tick(&a, a.mark_until_ms - clock_ms + 1);
	assert_nothing_marked(&a);
	qkv_trace_fini(&before);
	app_fini(&a);
}
END_TEST

START_TEST(test_blast_radius_value)
{
	struct app a;
	struct qkv_trace before;

	start(&a);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	key(&a, 'j');
	ck_assert_int_eq(a.focus, QKV_GRID_V);
	keep_trace(&before, &a);
	key(&a, '4');
	key(&a, APP_KEY_ENTER);
	ck_assert(cell(&a, QKV_GRID_V, 1, 0) == 4.0);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			ck_assert(!app_moved_score(&a, i, j));
		/* Every query gives key t2 some weight: output column 0 moves, 1 does not. */
		ck_assert(app_moved_output(&a, i, 0));
		ck_assert(!app_moved_output(&a, i, 1));
	}
	assert_marks_match(&a, &before);
	ck_assert(app_moved_input(&a, QKV_GRID_V, 1, 0));
	ck_assert(!app_moved_input(&a, QKV_GRID_V, 1, 1));
	tick(&a, APP_MARK_MS / 2);
	ck_assert(app_moved_output(&a, 0, 0));
	tick(&a, a.mark_until_ms - clock_ms + 1);
	assert_nothing_marked(&a);
	qkv_trace_fini(&before);
	app_fini(&a);
}
END_TEST

START_TEST(test_blast_radius_key)
{
	struct app a;
	struct qkv_trace before;

	start(&a);
	key(&a, APP_KEY_TAB);
	keys(&a, "jj");
	keep_trace(&before, &a);
	key(&a, '+');
	/* K row 2 goes from (1, 1) to (1.1, 1): score column 2 moves where the query
	 * has a first coordinate, so for t1 and t3 but not for t2 = (0, 1). */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(app_moved_score(&a, i, j) == (j == 2 && i != 1));
	assert_marks_match(&a, &before);
	qkv_trace_fini(&before);
	app_fini(&a);
}
END_TEST

/* --- what the status line says is true -------------------------------------------- */

/* Loads a problem from JSON text and starts an app on it. */
static void start_text(struct app *a, const char *text)
{
	struct qkv_problem p;
	char err[256];

	qkv_problem_init(&p);
	ck_assert_msg(load_string(text, strlen(text), "test", &p, err, sizeof err) == 0, "%s", err);
	start_with(a, &p, NULL);
}

/* The status line is exactly `expected`. */
static void assert_message(const struct app *a, const char *expected)
{
	ck_assert_msg(strcmp(a->message, expected) == 0, "status line:\n  %s\nexpected:\n  %s", a->message,
		      expected);
}

/* The weights of the worked example's row with scores s1, s2, s3 over √2, by hand. */
static void worked_weights(double s1, double s2, double s3, double *a)
{
	double r = sqrt(2.0), e1 = exp(s1 / r), e2 = exp(s2 / r), e3 = exp(s3 / r), z = e1 + e2 + e3;

	a[0] = e1 / z;
	a[1] = e2 / z;
	a[2] = e3 / z;
}

/* Every mark of every grid equals "the value moved": differs from `before`, or became
 * masked or unmasked (cells masked before and after do not count). */
static void assert_all_marks_match(const struct app *a, const struct qkv_trace *before)
{
	const struct qkv_matrix *now[QKV_GRID_COUNT] = {
		[QKV_GRID_Q] = &a->trace.q, [QKV_GRID_K] = &a->trace.k, [QKV_GRID_V] = &a->trace.v,
		[QKV_GRID_SCORES] = &a->trace.scores, [QKV_GRID_SCALED] = &a->trace.scaled,
		[QKV_GRID_WEIGHTS] = &a->trace.weights, [QKV_GRID_OUTPUT] = &a->trace.output,
	};
	const struct qkv_matrix *then[QKV_GRID_COUNT] = {
		[QKV_GRID_Q] = &before->q, [QKV_GRID_K] = &before->k, [QKV_GRID_V] = &before->v,
		[QKV_GRID_SCORES] = &before->scores, [QKV_GRID_SCALED] = &before->scaled,
		[QKV_GRID_WEIGHTS] = &before->weights, [QKV_GRID_OUTPUT] = &before->output,
	};

	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		if (now[g] == NULL || (g <= QKV_GRID_V && a->problem.form != QKV_FORM_PROJECTED))
			continue;
		for (int i = 0; i < now[g]->rows; i++) {
			for (int j = 0; j < now[g]->cols; j++) {
				bool moved = qkv_matrix_get(now[g], i, j) != qkv_matrix_get(then[g], i, j);

				if (g >= QKV_GRID_SCORES && g <= QKV_GRID_WEIGHTS) {
					bool masked = qkv_trace_is_masked(&a->trace, i, j);
					bool was = qkv_trace_is_masked(before, i, j);

					moved = masked != was || (!masked && moved);
				}
				ck_assert_msg(app_moved(a, (enum qkv_grid)g, i, j) == moved,
					      "grid %d (%d, %d): marked %d, moved %d", g, i, j,
					      app_moved(a, (enum qkv_grid)g, i, j), moved);
			}
		}
	}
	/* The mix terms a_ij · v_jc, for every query. */
	for (int i = 0; i < a->trace.n; i++) {
		for (int j = 0; j < a->trace.n; j++) {
			for (int c = 0; c < a->trace.d_v; c++) {
				bool masked = qkv_trace_is_masked(&a->trace, i, j), was = qkv_trace_is_masked(before, i, j);
				double now_term = qkv_matrix_get(&a->trace.weights, i, j) * qkv_matrix_get(&a->trace.v, j, c);
				double then_term = qkv_matrix_get(&before->weights, i, j) * qkv_matrix_get(&before->v, j, c);
				bool moved = masked != was || (!masked && now_term != then_term);

				ck_assert_msg(app_moved_mix(a, i, j, c) == moved, "mix (%d, %d, %d): marked %d, moved %d", i,
					      j, c, app_moved_mix(a, i, j, c), moved);
			}
		}
	}
}

/* Q[t1,d1] = 3: S[t1,t2] = q1·k2 stays 0, but softmax renormalises the row, so
 * A[t1,t2] falls from 0.20 to 0.06 and is marked, as is all of weights row t1. */
START_TEST(test_reach_query_couples_the_row)
{
	struct app a;
	struct qkv_trace before;
	double was[3], now[3];

	start(&a);
	keep_trace(&before, &a);
	key(&a, '3');
	key(&a, APP_KEY_ENTER);
	worked_weights(1, 0, 1, was);
	worked_weights(3, 0, 3, now);
	ck_assert_double_eq_tol(qkv_matrix_get(&a.trace.weights, 0, 1), now[1], TOL);
	ck_assert(fabs(was[1] - now[1]) > 0.1);
	for (int j = 0; j < 3; j++)
		ck_assert(app_moved(&a, QKV_GRID_WEIGHTS, 0, j));
	ck_assert(app_moved(&a, QKV_GRID_SCORES, 0, 0) && !app_moved(&a, QKV_GRID_SCORES, 0, 1) &&
		  app_moved(&a, QKV_GRID_SCORES, 0, 2));
	for (int i = 1; i < 3; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(!app_moved(&a, QKV_GRID_WEIGHTS, i, j) && !app_moved(&a, QKV_GRID_SCALED, i, j));
	assert_all_marks_match(&a, &before);
	/* The readout's figures of row t1 moved with its weights; rows t2 and t3 did not. */
	ck_assert(app_moved_readout(&a, 0) && !app_moved_readout(&a, 1) && !app_moved_readout(&a, 2));
	assert_message(&a, "Q[t1, d1]: 1 → 3 moves score row t1 in columns t1 and t3 and, through softmax's "
			   "normalisation, all of weights row t1, and output row t1");
	qkv_trace_fini(&before);
	app_fini(&a);
}
END_TEST

/* K[t2,d1] = 1: k2 = (1, 1), so S[t2,t2] = q2·k2 = 1 as before; rows t1 and t3 move
 * whole through softmax, and output row t2 does not move: never "every output". */
START_TEST(test_reach_key_names_the_rows)
{
	struct app a;
	struct qkv_trace before;

	start(&a);
	key(&a, APP_KEY_TAB);
	key(&a, 'j');
	keep_trace(&before, &a);
	key(&a, '1');
	key(&a, APP_KEY_ENTER);
	for (int j = 0; j < 3; j++) {
		ck_assert(app_moved(&a, QKV_GRID_WEIGHTS, 0, j) && app_moved(&a, QKV_GRID_WEIGHTS, 2, j));
		ck_assert(!app_moved(&a, QKV_GRID_WEIGHTS, 1, j));
	}
	for (int c = 0; c < 2; c++)
		ck_assert(!app_moved(&a, QKV_GRID_OUTPUT, 1, c));
	assert_all_marks_match(&a, &before);
	assert_message(&a, "K[t2, d1]: 0 → 1 moves score column t2 in rows t1 and t3 and, through softmax's "
			   "normalisation, all of weights rows t1 and t3, and output rows t1 and t3");
	ck_assert(strstr(a.message, "every") == NULL);
	qkv_trace_fini(&before);
	app_fini(&a);
}
END_TEST

/* V[t2,d1] = 4: every query gives t2 some weight, so output column d1 moves; the
 * weights do not. */
START_TEST(test_reach_value_outputs_only)
{
	struct app a;

	start(&a);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	keys(&a, "j4");
	key(&a, APP_KEY_ENTER);
	assert_message(&a, "V[t2, d1]: 0 → 4 moves output column d1; the weights do not move");
	/* In the mix, only the terms of key t2 in column d1 moved, for every query. */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			for (int c = 0; c < 2; c++)
				ck_assert(app_moved_mix(&a, i, j, c) == (j == 1 && c == 0));
	app_fini(&a);
}
END_TEST

/* Under the causal mask t1 sees only t1: Q[t1,d2] = 5 changes only scores hidden
 * from t1, which show "—" before and after, so nothing on screen moves. */
START_TEST(test_reach_masked_cells_do_not_move)
{
	struct app a;
	struct qkv_trace before;

	start(&a);
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CAUSAL);
	key(&a, 'l');
	keep_trace(&before, &a);
	key(&a, '5');
	key(&a, APP_KEY_ENTER);
	ck_assert(qkv_matrix_get(&a.trace.scores, 0, 1) != qkv_matrix_get(&before.scores, 0, 1));
	ck_assert(!app_moved(&a, QKV_GRID_SCORES, 0, 1));
	assert_all_marks_match(&a, &before);
	assert_message(&a, "Q[t1, d2]: 0 → 5 moves no computed value on screen");
	qkv_trace_fini(&before);
	/* The mask itself: each cell that became visible or hidden is marked. */
	keep_trace(&before, &a);
	key(&a, 'm');
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_NONE);
	app_fini(&a);
	qkv_trace_fini(&before);
}
END_TEST

/* A W's rows are d_model's dimensions, more of them than tokens here (one token,
 * d_model 3): the last row's cell is named by its dimension, and nothing reads a
 * token's label past the tokens (the sanitizers' run would stop on it). */
START_TEST(test_w_rows_past_the_tokens)
{
	static const char text[] =
		"{\"tokens\": [\"a\"], \"X\": [[1, 2, 3]],"
		" \"W_Q\": [[1], [0], [0]], \"W_K\": [[1], [0], [0]], \"W_V\": [[1], [0], [0]]}";
	struct qkv_problem p;
	struct app a;
	char err[256];

	qkv_problem_init(&p);
	ck_assert_msg(load_string(text, strlen(text), "wide", &p, err, sizeof err) == 0, "%s", err);
	start_with(&a, &p, NULL);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_W_Q);
	a.cursor[QKV_GRID_W_Q].row = 2;
	key(&a, '+');
	ck_assert_msg(strncmp(a.message, "W_Q[m3, d1]: 0 → ", strlen("W_Q[m3, d1]: 0 → ")) == 0, "%s", a.message);
	app_fini(&a);
}
END_TEST

/* Projected form: an edit of X moves Q, K and V of that token as well. */
START_TEST(test_reach_projected)
{
	struct app a;
	struct qkv_trace before;

	start_projected(&a);
	keep_trace(&before, &a);
	key(&a, '2');
	key(&a, APP_KEY_ENTER);
	ck_assert(app_moved(&a, QKV_GRID_Q, 0, 0) && app_moved(&a, QKV_GRID_K, 0, 0) && app_moved(&a, QKV_GRID_V, 0, 0));
	ck_assert(!app_moved(&a, QKV_GRID_Q, 0, 1) && !app_moved(&a, QKV_GRID_Q, 1, 0));
	assert_all_marks_match(&a, &before);
	/* X's columns and the W's rows are d_model's dimensions, named m1 … as on screen. */
	ck_assert_msg(strncmp(a.message, "X[a, m1]: 1 → 2 moves Q[a,d1], K[a,d1], V[a,d1], ", 49) == 0, "%s", a.message);
	qkv_trace_fini(&before);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_W_Q);
	a.cursor[QKV_GRID_W_Q].row = 1;
	a.cursor[QKV_GRID_W_Q].col = 0;
	key(&a, '5');
	assert_message(&a, "editing W_Q[m2, d1]: Enter keeps it, Esc cancels");
	key(&a, APP_KEY_ENTER);
	ck_assert_msg(strncmp(a.message, "W_Q[m2, d1]: 0 → 5 ", strlen("W_Q[m2, d1]: 0 → 5 ")) == 0, "%s", a.message);
	key(&a, 'u');
	key(&a, APP_KEY_BACKTAB);
	/* A computed grid points at the inputs this problem has. */
	while (a.focus != QKV_GRID_WEIGHTS)
		key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_ENTER);
	assert_message(&a, "the attention grid is computed from X and the W's: edit those");
	key(&a, '5');
	assert_message(&a, "the attention grid is computed: edit X or a W");
	app_fini(&a);
}
END_TEST

/* Random problems, masks and edits: the marks are always exactly what moved. */
START_TEST(test_reach_marks_random_edits)
{
	struct lcg g = { 20261201u };

	for (int trial = 0; trial < 60; trial++) {
		struct app a;
		struct qkv_problem p;
		struct qkv_trace before;
		int n = lcg_int(&g, 2, 6);

		qkv_problem_init(&p);
		ck_assert_int_eq(qkv_problem_random(&p, n, lcg_int(&g, 1, 4), lcg_int(&g, 1, 3), (uint64_t)trial + 1), 0);
		start_with(&a, &p, NULL);
		for (int m = lcg_int(&g, 0, 2); m > 0; m--)
			key(&a, 'm');
		if (lcg_int(&g, 0, 2) == 0)
			key(&a, 'W');
		if (lcg_int(&g, 0, 2) == 0) {
			keys(&a, "jz");
			ck_assert(a.problem.padding != NULL && a.problem.padding[a.cursor[a.focus].row]);
		}
		for (int e = 0; e < 5; e++) {
			static const int focus_keys[] = { 0, APP_KEY_TAB, APP_KEY_TAB };
			int k = focus_keys[lcg_int(&g, 0, 2)];

			if (k != 0 && (a.focus == QKV_GRID_Q || a.focus == QKV_GRID_K))
				key(&a, k);
			keys(&a, lcg_int(&g, 0, 1) ? "j" : "l");
			keep_trace(&before, &a);
			key(&a, lcg_int(&g, 0, 1) ? '+' : '-');
			assert_all_marks_match(&a, &before);
			ck_assert(strstr(a.message, " moves ") != NULL);
			qkv_trace_fini(&before);
		}
		app_fini(&a);
	}
	/* The projected form: edits of X and of each W move Q, K or V first. */
	for (int trial = 0; trial < 20; trial++) {
		struct app a;
		struct qkv_trace before;

		start_projected(&a);
		for (int e = 0; e < 8; e++) {
			for (int t = lcg_int(&g, 0, 3); t > 0; t--)
				key(&a, APP_KEY_TAB);
			if (!app_focus_is_input(&a, a.focus))
				continue;
			keys(&a, lcg_int(&g, 0, 1) ? "j" : "l");
			keep_trace(&before, &a);
			key(&a, lcg_int(&g, 0, 1) ? '+' : '-');
			assert_all_marks_match(&a, &before);
			qkv_trace_fini(&before);
		}
		app_fini(&a);
	}
}
END_TEST

/* V[t2,d1] = 0.001: each output of column d1 moves by A[i,t2] × 0.001, less than the
 * two decimals shown; they are marked all the same, and the line names the smallest
 * move, A[t1,t2] × 0.001 ≈ 0.0002 (closed form). */
START_TEST(test_reach_below_the_shown_digits)
{
	struct app a;
	double row[3];
	char expected[256];

	start(&a);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	key(&a, 'j');
	keys(&a, "0.001");
	key(&a, APP_KEY_ENTER);
	worked_weights(1, 0, 1, row);
	for (int i = 0; i < 3; i++)
		ck_assert(app_moved(&a, QKV_GRID_OUTPUT, i, 0));
	snprintf(expected, sizeof expected, "V[t2, d1]: 0 → 0.001 moves output column d1; the weights do not move; "
		 "O[t1,d1] moved by only %.1g, below the shown digits", row[1] * 0.001);
	assert_message(&a, expected);
	app_fini(&a);
}
END_TEST

/* X = [[1,0],[3,0],[0,1]] with identity projections: t1's scores are 1, 3, 0 over
 * √2, so t1 attends most to t2 (0.73); t2 and t3 attend most to themselves. */
START_TEST(test_identity_claim_from_the_numbers)
{
	struct app a;
	double r = sqrt(2.0), e[3] = { exp(1 / r), exp(3 / r), exp(0) }, z = e[0] + e[1] + e[2];
	char expected[256];

	start_text(&a, "{\"tokens\": [\"t1\", \"t2\", \"t3\"], \"X\": [[1, 0], [3, 0], [0, 1]],"
		       " \"W_Q\": [[2, 0], [0, 1]], \"W_K\": [[1, 0], [0, 1]], \"W_V\": [[1, 0], [0, 1]]}");
	key(&a, 'I');
	ck_assert(app_projections_tied(&a));
	snprintf(expected, sizeof expected, "W_Q = W_K = W_V = identity, so Q = K = V = X: 2 of 3 tokens attend "
		 "most to themselves; t1 attends most to t2 (%.2f; itself %.2f)", e[1] / z, e[0] / z);
	assert_message(&a, expected);
	ck_assert(strstr(expected, "(0.73;") != NULL);
	app_fini(&a);
	/* The worked example's X: only c attends most to itself; a and b tie it with c
	 * (labels that are not a position's name, quoted in the sentence). */
	start_projected(&a);
	key(&a, 'I');
	worked_weights(1, 0, 1, e);
	snprintf(expected, sizeof expected, "W_Q = W_K = W_V = identity, so Q = K = V = X: 1 of 3 tokens attends "
		 "most to itself; \"a\" ties itself with \"c\" at %.2f; \"b\" ties itself with \"c\" at %.2f", e[0], e[0]);
	assert_message(&a, expected);
	app_fini(&a);
	/* X = 2·I: each token's score with itself is the largest. */
	start_text(&a, "{\"tokens\": [\"a\", \"b\"], \"X\": [[2, 0], [0, 2]], \"W_Q\": [[1, 0], [0, 1]],"
		       " \"W_K\": [[3, 0], [0, 1]], \"W_V\": [[1, 0], [0, 1]]}");
	key(&a, 'I');
	assert_message(&a, "W_Q = W_K = W_V = identity, so Q = K = V = X: every token attends most to itself");
	app_fini(&a);
}
END_TEST

/* W with no mask: masking after softmax changes nothing, and the sentence says so
 * (Σrow reads 1.00); m then turns the causal mask on and the rows that lost weight
 * are named with their sums. */
START_TEST(test_wrong_mask_after_softmax_words)
{
	struct app a;
	double row1[3], row2[3];
	char expected[256];

	start(&a);
	key(&a, 'W');
	ck_assert_int_eq(a.problem.wrong, QKV_WRONG_MASK_AFTER_SOFTMAX);
	assert_message(&a, "WRONG WAY: mask after softmax — no key is masked, so nothing changes (try m)");
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq_tol(a.trace.rows[i].weight_sum, 1.0, TOL);
	key(&a, 'm');
	ck_assert_int_eq(a.problem.mask, QKV_MASK_CAUSAL);
	/* Softmax over every key first: t1 keeps only A[t1,t1], t2 keeps A[t2,t1] + A[t2,t2]. */
	worked_weights(1, 0, 1, row1);
	worked_weights(0, 1, 1, row2);
	snprintf(expected, sizeof expected, "mask causal · WRONG WAY: mask after softmax — rows t1 and t2 (Σ %.2f, %.2f) no longer sum to 1", row1[0], row2[0] + row2[1]);
	assert_message(&a, expected);
	ck_assert(!a.dirty || a.problem.mask != QKV_MASK_NONE);
	app_fini(&a);
}
END_TEST

/* Undoing back to the problem as loaded clears "modified", and q then just quits. */
START_TEST(test_undo_to_saved_is_not_modified)
{
	struct app a;

	start(&a);
	key(&a, '+');
	key(&a, 'l');
	key(&a, '7');
	key(&a, APP_KEY_ENTER);
	ck_assert(a.dirty);
	key(&a, 'u');
	ck_assert(a.dirty);
	key(&a, 'u');
	ck_assert(!a.dirty);
	/* Q[t1,d1] from 1.1 back to 1: S[t1,t2] = q1·k2 = 0 either way. */
	assert_message(&a, "undone: moves score row t1 in columns t1 and t3 and, through softmax's normalisation, "
			   "all of weights row t1, and output row t1 · the problem is as it was loaded or last saved");
	key(&a, APP_KEY_CTRL_R);
	ck_assert(a.dirty);
	key(&a, 'u');
	ck_assert(!a.dirty);
	/* Setting a value to what it already was is no change either (undo put the
	 * cursor on Q[t1,d1], which holds 1 again). */
	ck_assert(a.cursor[QKV_GRID_Q].row == 0 && a.cursor[QKV_GRID_Q].col == 0);
	key(&a, '1');
	key(&a, APP_KEY_ENTER);
	ck_assert(!a.dirty);
	key(&a, 'q');
	ck_assert(a.quit);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	app_fini(&a);
}
END_TEST

/* o adds a token after the cursor's and puts the cursor on it, so x removes it again. */
START_TEST(test_insert_then_remove_is_no_change)
{
	struct app a;
	struct qkv_problem original;

	start(&a);
	copy_problem(&original, &a);
	key(&a, 'j');
	key(&a, 'o');
	ck_assert_int_eq(a.problem.n, 4);
	ck_assert_int_eq(a.cursor[QKV_GRID_Q].row, 2);
	ck_assert(cell(&a, QKV_GRID_Q, 2, 0) == 0.0 && cell(&a, QKV_GRID_Q, 2, 1) == 0.0);
	ck_assert(cell(&a, QKV_GRID_Q, 1, 1) == 1.0 && cell(&a, QKV_GRID_Q, 3, 0) == 1.0);
	ck_assert_int_eq(app_query(&a), 2);
	ck_assert_msg(strstr(a.message, "added after t2; the cursor is on it (x removes it)") != NULL, "%s", a.message);
	key(&a, 'x');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	ck_assert(!a.dirty);
	/* From the attention grid as well. */
	while (a.focus != QKV_GRID_WEIGHTS)
		key(&a, APP_KEY_TAB);
	{
		int query = app_query(&a);

		key(&a, 'o');
		ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, query + 1);
	}
	key(&a, 'x');
	ck_assert(qkv_problem_equal(&a.problem, &original));
	qkv_problem_fini(&original);
	app_fini(&a);
}
END_TEST

/* The clicker is never dead: a stray '.' starts an edit, PageDown cancels it (not a
 * number) and steps; a typed number is kept; the focus never leaves Q. */
START_TEST(test_clicker_during_edit)
{
	struct app a;

	start(&a);
	key(&a, '.');
	ck_assert(a.editing);
	key(&a, APP_KEY_PAGE_DOWN);
	ck_assert(!a.editing);
	ck_assert_int_eq(a.stage, QKV_STAGE_SCORES);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 1.0);
	assert_message(&a, "edit of Q[t1, d1] cancelled (“.” is not a number) · stage 1 of 5: scores — S = Q Kᵀ");
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	keys(&a, "2.5");
	key(&a, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(a.stage, QKV_STAGE_SCALED);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 2.5);
	ck_assert(strncmp(a.message, "Q[t1, d1] = 2.5 kept · stage 2 of 5", 35) == 0);
	key(&a, '7');
	key(&a, APP_KEY_END);
	ck_assert_int_eq(a.stage, QKV_STAGE_OUTPUT);
	ck_assert(cell(&a, QKV_GRID_Q, 0, 0) == 7.0);
	key(&a, '9');
	key(&a, APP_KEY_HOME);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	key(&a, '-');
	key(&a, APP_KEY_PAGE_UP);
	ck_assert(!a.editing);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	/* Autoplay does not swallow a step either, nor the help on its last page (at
	 * 200×60 its only one; on a smaller screen PageDown turns its pages first). */
	key(&a, 'A');
	key(&a, APP_KEY_PAGE_DOWN);
	ck_assert(!a.autoplay);
	ck_assert_int_eq(a.stage, QKV_STAGE_SCORES);
	app_update(&a, &(struct event){ .type = EVENT_RESIZE, .width = 200, .height = 60 });
	key(&a, '?');
	key(&a, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_int_eq(a.stage, QKV_STAGE_SCALED);
	app_fini(&a);
}
END_TEST

/* PageDown then PageUp leaves the focus where it was, on any grid. */
START_TEST(test_stepping_keeps_the_focus)
{
	static const int steps[] = { APP_KEY_PAGE_DOWN, APP_KEY_PAGE_DOWN, APP_KEY_PAGE_UP, APP_KEY_END,
				     APP_KEY_PAGE_UP, APP_KEY_HOME, APP_KEY_PAGE_DOWN, APP_KEY_PAGE_UP };
	struct app a;

	start(&a);
	for (int f = 0; f < 5; f++) {
		enum qkv_grid focus = a.focus;

		for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			key(&a, steps[i]);
			ck_assert_int_eq(a.focus, focus);
		}
		key(&a, APP_KEY_TAB);
	}
	app_fini(&a);
}
END_TEST

/* The saturation lesson from the hand-made example: scaling off and d_k doubled to
 * 1024 with N(0,1) columns; the unscaled scores then spread by about √1024 = 32,
 * so every row of weights becomes nearly one-hot. */
START_TEST(test_saturation_from_worked_example)
{
	struct app a;
	char words[256];

	start(&a);
	key(&a, 's');
	ck_assert_int_eq(a.problem.scale, QKV_SCALE_NONE);
	while (qkv_problem_d_k(&a.problem) < 1024)
		key(&a, '>');
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 1024);
	/* The presses in a row are one run: the message counts all it drew. */
	ck_assert_msg(strstr(a.message, "d_k = 1024 (from 2): 1022 new columns of Q and K drawn from N(0,1), seed 1") != NULL,
		      "%s", a.message);
	/* A change the other way starts a run of its own, and another key ends one. */
	key(&a, '<');
	ck_assert_str_eq(a.message, "d_k = 512: the last 512 columns of Q and K dropped");
	key(&a, '<');
	ck_assert_str_eq(a.message, "d_k = 256 (from 1024): the last 768 columns of Q and K dropped");
	key(&a, APP_KEY_TAB);
	key(&a, '<');
	ck_assert_str_eq(a.message, "d_k = 128: the last 128 columns of Q and K dropped");
	key(&a, APP_KEY_BACKTAB);
	while (qkv_problem_d_k(&a.problem) < 1024)
		key(&a, '>');
	for (int i = 0; i < 3; i++) {
		double max = 0.0;

		for (int j = 0; j < 3; j++)
			if (qkv_matrix_get(&a.trace.weights, i, j) > max)
				max = qkv_matrix_get(&a.trace.weights, i, j);
		ck_assert_msg(max > 0.99, "row %d: largest weight %g", i, max);
		qkv_describe_row(words, sizeof words, &a.problem, &a.trace, i, 2, false);
		ck_assert_msg(strstr(words, "nearly one-hot") != NULL, "%s", words);
	}
	app_fini(&a);
}
END_TEST

/* --- random events ------------------------------------------------------------ */

/* One of count keys. */
static int pick_key(struct lcg *g, const int *choices, int count)
{
	return choices[lcg_int(g, 0, count - 1)];
}

#define PICK(g, array) pick_key((g), (array), (int)(sizeof(array) / sizeof((array)[0])))

/* A key for the editing category: start an edit, type into one, or end it. */
static int edit_key(const struct app *a, struct lcg *g)
{
	static const int typing[] = { '0', '1', '2', '3', '5', '7', '9', '.', '-', 'e',
				      APP_KEY_BACKSPACE, APP_KEY_ENTER, APP_KEY_ENTER,
				      APP_KEY_ENTER, APP_KEY_CTRL_U, APP_KEY_ESCAPE };
	static const int starting[] = { '0', '1', '2', '4', '6', '8', '.', APP_KEY_ENTER };

	static const int ending[] = { APP_KEY_ENTER, APP_KEY_CTRL_U, APP_KEY_ESCAPE };

	if (a->editing && strlen(a->edit) > 6)
		return PICK(g, ending);
	return a->editing ? PICK(g, typing) : PICK(g, starting);
}

/* Sends one event drawn from a weighted set of every kind; sizes are kept small
 * so the undo history stays inside its budget. */
static void random_event(struct app *a, struct lcg *g)
{
	static const int moves[] = { APP_KEY_UP, APP_KEY_DOWN, APP_KEY_LEFT, APP_KEY_RIGHT,
				     'h', 'j', 'k', 'l' };
	static const int tabs[] = { APP_KEY_TAB, APP_KEY_BACKTAB };
	static const int nudges[] = { '+', '-', '=' };
	static const int shapes[] = { 'o', 'x', '[', ']', '{', '}', '<', '>' };
	static const int options[] = { 's', 't', 'T', 'm', 'r', 'H', 'b', 'I' };
	static const int stages[] = { APP_KEY_PAGE_DOWN, APP_KEY_PAGE_UP, ' ', 'n', 'p',
				      APP_KEY_HOME, APP_KEY_END, 'A' };
	static const int display[] = { '?', 'D', 'P', 'c', APP_KEY_CTRL_L, APP_KEY_DELETE };
	int n = a->problem.n, d_k = qkv_problem_d_k(&a->problem);
	int d_v = qkv_problem_d_v(&a->problem);
	int pick = lcg_int(g, 0, 999);
	int k;

	if (lcg_int(g, 0, 4999) == 0) {
		key(a, 'S');
		return;
	}
	/* The wrong ways are entered rarely and left soon, so most events are
	 * checked against the rows-sum-to-1 invariant. */
	if (lcg_int(g, 0, 999) < (a->problem.wrong == QKV_WRONG_NONE ? 5 : 50)) {
		key(a, 'W');
		return;
	}
	if (a->editing && lcg_int(g, 0, 3) == 0) {
		key(a, lcg_int(g, 0, 1) ? APP_KEY_ENTER : APP_KEY_ESCAPE);
		return;
	}
	if (pick < 220) {
		key(a, PICK(g, moves));
	} else if (pick < 270) {
		key(a, PICK(g, tabs));
	} else if (pick < 420) {
		key(a, edit_key(a, g));
	} else if (pick < 480) {
		key(a, PICK(g, nudges));
	} else if (pick < 540) {
		key(a, 'u');
	} else if (pick < 570) {
		key(a, APP_KEY_CTRL_R);
	} else if (pick < 620) {
		k = PICK(g, shapes);
		if ((k == 'o' && n >= 12) || (k == '>' && d_k >= 64) ||
		    (k == ']' && d_k >= 64) || (k == '}' && d_v >= 64))
			k = '<';
		key(a, k);
	} else if (pick < 660) {
		key(a, PICK(g, options));
	} else if (pick < 730) {
		key(a, PICK(g, stages));
	} else if (pick < 750) {
		key(a, APP_KEY_ESCAPE);
	} else if (pick < 800) {
		click(a, lcg_int(g, 0, QKV_GRID_COUNT - 1), lcg_int(g, -1, n), lcg_int(g, -1, 8));
	} else if (pick < 840) {
		wheel(a, lcg_int(g, 0, QKV_GRID_COUNT - 1), lcg_int(g, -1, n), lcg_int(g, -1, 8),
		      lcg_int(g, 0, 1) ? 1 : -1);
	} else if (pick < 860) {
		resize(a, lcg_int(g, 10, 300), lcg_int(g, 4, 120));
	} else if (pick < 960) {
		tick(a, lcg_int(g, 0, 2500));
	} else {
		key(a, PICK(g, display));
	}
}

/* The invariants that hold after any event: NULL when they hold, else what is
 * broken (written into why). Plain tests, so a passing run costs no Check calls. */
static const char *broken_invariant(const struct app *a, char *why, size_t size)
{
	const struct qkv_trace *t = &a->trace;
	int n = a->problem.n, rows, cols;
	const struct app_cursor *cursor = &a->cursor[a->focus];

	if (qkv_problem_check(&a->problem) != 0)
		return "the problem does not check";
	if (t->n != n || t->d_k != qkv_problem_d_k(&a->problem) ||
	    t->d_v != qkv_problem_d_v(&a->problem))
		return "the trace's sizes are not the problem's";
	if (!qkv_matrix_all_finite(&t->scores) || !qkv_matrix_all_finite(&t->scaled) ||
	    !qkv_matrix_all_finite(&t->weights) || !qkv_matrix_all_finite(&t->output))
		return "NaN or Inf in the trace";
	for (int i = 0; i < n && a->problem.wrong == QKV_WRONG_NONE; i++) {
		double sum = 0.0;
		int live = 0;

		for (int j = 0; j < n; j++) {
			if (qkv_trace_is_masked(t, i, j) != qkv_problem_is_masked(&a->problem, i, j))
				return "the trace's mask is not the problem's";
			if (!qkv_trace_is_masked(t, i, j)) {
				sum += qkv_matrix_get(&t->weights, i, j);
				live++;
			} else if (qkv_matrix_get(&t->weights, i, j) != 0.0) {
				return "a masked weight is not 0";
			}
		}
		if (live > 0 && fabs(sum - 1.0) > 1e-12) {
			snprintf(why, size, "weights row %d sums to %.17g", i, sum);
			return why;
		}
	}
	if (!focus_in_form(a, a->focus)) {
		snprintf(why, size, "focus %d is not in the problem's form", a->focus);
		return why;
	}
	app_focus_shape(a, a->focus, &rows, &cols);
	if (cursor->row < 0 || cursor->col < 0 || cursor->row >= rows || cursor->col >= cols) {
		snprintf(why, size, "cursor (%d, %d) outside %s (%d x %d)", cursor->row,
			 cursor->col, app_focus_name(a->focus), rows, cols);
		return why;
	}
	if (a->stage != APP_STAGE_LIVE &&
	    (a->stage < (a->problem.form == QKV_FORM_PROJECTED ? 0 : 1) ||
	     a->stage > app_last_stage(a)))
		return "stage out of range";
	if (a->editing && !app_focus_is_input(a, a->focus))
		return "editing a grid that is not an input";
	if (a->prompt != PROMPT_NONE || a->quit)
		return "a prompt opened or quit was set";
	if (a->history.bytes > a->history.budget / 2)
		return "the undo history nears its budget: keep the problems smaller";
	return NULL;
}

/* Aborts the test when an invariant is broken after event number `event`. */
static void check_invariants(const struct app *a, long event)
{
	char why[160];
	const char *broken = broken_invariant(a, why, sizeof why);

	if (broken != NULL)
		ck_abort_msg("event %ld: %s", event, broken);
}

/* Runs `events` random events from seed, checking after each, then undoes
 * everything and expects the problem it started from. (The tests ask for a tenth
 * of their events under the sanitizers: rounds.h.) */
static void run_random_events(struct app *a, uint64_t seed, long events)
{
	struct qkv_problem original;
	struct lcg g = { seed };
	int undos = 0;

	copy_problem(&original, a);
	for (long e = 0; e < events; e++) {
		random_event(a, &g);
		check_invariants(a, e);
		if (e % 256 == 0)
			assert_trace_current(a);
	}
	key(a, APP_KEY_ESCAPE);
	key(a, APP_KEY_ESCAPE);
	ck_assert(!a->editing && !a->autoplay && a->view == VIEW_NONE);
	while (a->history.position > 0) {
		ck_assert_int_lt(undos, a->history.count);
		key(a, 'u');
		undos++;
		check_invariants(a, events + undos);
	}
	a->message[0] = '\0';
	key(a, 'u');
	ck_assert(a->message[0] != '\0');
	ck_assert_msg(qkv_problem_equal(&a->problem, &original),
		      "%d undos after %ld events did not restore the problem", undos, events);
	assert_trace_current(a);
	qkv_problem_fini(&original);
}

START_TEST(test_random_events_direct)
{
	struct app a;

	start(&a);
	run_random_events(&a, 0x5eed0007u, test_rounds(100000));
	app_fini(&a);
}
END_TEST

/* A multi-head sample: X with three heads (previous word, itself, first word). */
static void start_heads(struct app *a)
{
	struct qkv_problem p;
	char path[1024], err[512];

	snprintf(path, sizeof path, "%s/samples/heads-three-ways.json", getenv("QKV_SOURCE_ROOT"));
	qkv_problem_init(&p);
	ck_assert_msg(load_file(path, &p, err, sizeof err) == 0, "%s", err);
	start_with(a, &p, NULL);
}

START_TEST(test_random_events_heads)
{
	struct app a;

	start_heads(&a);
	run_random_events(&a, 0x5eed0113u, test_rounds(5000));
	app_fini(&a);
}
END_TEST

/* H and b step through the heads; the app's trace is then that head's, and the
 * multi-head trace's head i is the single-head trace of head i's projections. */
START_TEST(test_heads_select)
{
	struct app a;

	start_heads(&a);
	ck_assert_int_eq(a.problem.h, 3);
	ck_assert_int_eq(a.head, 0);
	assert_trace_current(&a);
	key(&a, 'H');
	ck_assert_int_eq(a.head, 1);
	assert_trace_current(&a);
	ck_assert_ptr_nonnull(strstr(a.message, "head 2 of 3"));
	key(&a, 'b');
	ck_assert_int_eq(a.head, 2);
	key(&a, 'H');
	ck_assert_int_eq(a.head, 0);
	/* The selected head's W_Q is what the W_Q focus shows and edits. */
	ck_assert_ptr_eq(app_input(&a, QKV_GRID_W_Q), &a.problem.heads[0].w_q);
	key(&a, 'H');
	ck_assert_ptr_eq(app_input(&a, QKV_GRID_W_Q), &a.problem.heads[1].w_q);
	ck_assert_ptr_eq(app_input(&a, QKV_GRID_W_O), &a.problem.w_o);
	app_fini(&a);
}
END_TEST

/* A click on another head's small multiple selects that head, as H does, and puts
 * the weights' cursor on the clicked cell; the wheel there, a head out of range or
 * a single-head problem change nothing. */
START_TEST(test_heads_click_small_multiple)
{
	struct app a, one;
	struct event e = { .type = EVENT_CLICK, .focus = QKV_GRID_WEIGHTS, .row = 2, .col = 0, .head = 3 };
	int redraw;

	start_heads(&a);
	ck_assert_int_eq(a.head, 0);
	redraw = send(&a, &e);
	ck_assert_int_eq(a.head, 2);
	ck_assert(redraw & REDRAW_LAYOUT);
	ck_assert_int_eq(a.focus, QKV_GRID_WEIGHTS);
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, 2);
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].col, 0);
	assert_trace_current(&a);
	ck_assert_ptr_eq(app_input(&a, QKV_GRID_W_Q), &a.problem.heads[2].w_q);
	ck_assert_ptr_nonnull(strstr(a.message, "head 3 of 3"));
	/* Head 3 looks at the first word: its query for sat is 5 · (X's third column,
	 * 1) = (5, 0), the keys are the positions the (1,0), cat (0,1), sat (−1,0), so
	 * the scores are 5, 0, −5 over the three keys the causal mask leaves:
	 * A[sat, the] = 1 / (1 + e^(−5/√2) + e^(−10/√2)). */
	ck_assert_double_eq_tol(qkv_matrix_get(&a.trace.weights, 2, 0),
				1.0 / (1.0 + exp(-5.0 / sqrt(2.0)) + exp(-10.0 / sqrt(2.0))), 1e-12);
	/* The selected head's own grid (head 0 in the event) keeps the head. */
	click(&a, QKV_GRID_WEIGHTS, 1, 0);
	ck_assert_int_eq(a.head, 2);
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, 1);
	/* The wheel over a small multiple, and a head that is not there: nothing. */
	e.type = EVENT_WHEEL;
	e.delta = 1;
	e.head = 1;
	ck_assert_int_eq(send(&a, &e), REDRAW_NONE);
	ck_assert_int_eq(a.head, 2);
	e.type = EVENT_CLICK;
	e.head = 4;
	ck_assert_int_eq(send(&a, &e), REDRAW_NONE);
	e.head = -1;
	ck_assert_int_eq(send(&a, &e), REDRAW_NONE);
	ck_assert_int_eq(a.head, 2);
	/* Back to head 1 by its small multiple; the concatenation takes clicks too. */
	e.head = 1;
	e.row = 3;
	e.col = 2;
	send(&a, &e);
	ck_assert_int_eq(a.head, 0);
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, 3);
	click(&a, QKV_GRID_CONCAT, 2, 1);
	ck_assert_int_eq(a.focus, QKV_GRID_CONCAT);
	ck_assert_int_eq(a.cursor[QKV_GRID_CONCAT].row, 2);
	ck_assert_int_eq(a.cursor[QKV_GRID_CONCAT].col, 1);
	app_fini(&a);

	start(&one);
	e.head = 1;
	e.row = 0;
	e.col = 0;
	ck_assert_int_eq(send(&one, &e), REDRAW_NONE);
	click(&one, QKV_GRID_CONCAT, 0, 0);
	ck_assert_int_ne(one.focus, QKV_GRID_CONCAT);
	app_fini(&one);
}
END_TEST

/* The heads' pattern scores say what the sample's teaching note claims: head 1
 * looks at the previous word, head 2 at itself, head 3 at the first word. */
START_TEST(test_heads_samples_specialise)
{
	static const char *const files[] = { "heads-three-ways", "heads-content", "heads-two" };
	char path[1024], err[512];

	for (int f = 0; f < 3; f++) {
		struct qkv_problem p;
		struct qkv_heads_trace t;

		snprintf(path, sizeof path, "%s/samples/%s.json", getenv("QKV_SOURCE_ROOT"), files[f]);
		qkv_problem_init(&p);
		ck_assert_msg(load_file(path, &p, err, sizeof err) == 0, "%s", err);
		qkv_heads_trace_init(&t);
		ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
		/* Head 1: the previous token, in every sample. */
		ck_assert_msg(t.pattern[0].previous > 0.85, "%s head 1 previous %g", files[f],
			      t.pattern[0].previous);
		ck_assert(t.pattern[0].previous > t.pattern[0].diagonal);
		if (f == 0 || f == 2) {
			/* Head 2: itself. */
			ck_assert_msg(t.pattern[1].diagonal > 0.85, "%s head 2 diagonal %g", files[f],
				      t.pattern[1].diagonal);
			ck_assert(t.pattern[1].diagonal > t.pattern[1].previous);
		} else {
			/* Head 2: the same word; each dog puts about half on each dog. */
			for (int dog = 0; dog <= 2; dog += 2) {
				double a0 = qkv_matrix_get(&t.head[1].weights, dog, 0);
				double a2 = qkv_matrix_get(&t.head[1].weights, dog, 2);

				ck_assert_double_eq_tol(a0, a2, 1e-12);
				ck_assert(a0 + a2 > 0.95);
			}
		}
		if (p.h == 3) {
			/* Head 3: the first token. */
			ck_assert_msg(t.pattern[2].first > 0.85, "%s head 3 first %g", files[f],
				      t.pattern[2].first);
			ck_assert(t.pattern[2].first > t.pattern[2].diagonal);
		}
		qkv_heads_trace_fini(&t);
		qkv_problem_fini(&p);
	}
}
END_TEST

/* A head's W_Q edit moves that head's weights and the output, nothing in the other
 * heads; a W_O edit moves only the output; undo goes back to the edited head. */
START_TEST(test_heads_blast_radius)
{
	struct app a;
	int n;

	start_heads(&a);
	n = a.problem.n;
	key(&a, 'H'); /* head 2 */
	a.focus = QKV_GRID_W_Q;
	a.cursor[QKV_GRID_W_Q].row = 0;
	a.cursor[QKV_GRID_W_Q].col = 1;
	keys(&a, "3");
	key(&a, APP_KEY_ENTER);
	ck_assert(qkv_matrix_get(&a.problem.heads[1].w_q, 0, 1) == 3.0);
	ck_assert(qkv_matrix_get(&a.problem.heads[0].w_q, 0, 1) == -5.0);
	{
		bool moved[3] = { 0, false, false }, layer = false;

		for (int h = 0; h < 3; h++)
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++)
					moved[h] |= app_moved_head_weight(&a, h, i, j);
		for (int i = 0; i < n; i++)
			for (int c = 0; c < a.heads.output.cols; c++)
				layer |= app_moved_layer(&a, i, c);
		ck_assert(!moved[0] && moved[1] && !moved[2]);
		ck_assert(layer);
		ck_assert_ptr_nonnull(strstr(a.message, "head 2 W_Q[m1, d2]"));
		ck_assert_ptr_nonnull(strstr(a.message, "the weights of head 2"));
		ck_assert_ptr_nonnull(strstr(a.message, "heads 1 and 3 unmoved"));
	}
	assert_trace_current(&a);
	/* W_O: the output moves, no head's weights. */
	key(&a, APP_KEY_END); /* stage 7 */
	ck_assert_int_eq(a.stage, APP_STAGE_LAYER);
	ck_assert_int_eq(a.focus, QKV_GRID_LAYER);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_W_O);
	a.cursor[QKV_GRID_W_O].row = 1;
	a.cursor[QKV_GRID_W_O].col = 3;
	keys(&a, "2");
	key(&a, APP_KEY_ENTER);
	ck_assert(qkv_matrix_get(&a.problem.w_o, 1, 3) == 2.0);
	for (int h = 0; h < 3; h++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				ck_assert(!app_moved_head_weight(&a, h, i, j));
	/* Column d4 of the output is 2 × head 2's output: every row where that is not 0 moved. */
	for (int i = 0; i < n; i++) {
		double expect = 2.0 * qkv_matrix_get(&a.heads.concat, i, 1);

		ck_assert_double_eq_tol(qkv_matrix_get(&a.heads.output, i, 3), expect, 1e-15);
		ck_assert(app_moved_layer(&a, i, 3) == (expect != 0.0));
		ck_assert(!app_moved_layer(&a, i, 0));
	}
	ck_assert_ptr_nonnull(strstr(a.message, "no head's weights"));
	/* W_O's rows are named as on screen: head 2's first output column. */
	ck_assert_msg(strstr(a.message, "W_O[h2d1, d4]") != NULL, "%s", a.message);
	/* Undo twice: W_O, then head 2's W_Q, with head 2 selected again. */
	key(&a, 'H');
	key(&a, 'u');
	ck_assert(qkv_matrix_get(&a.problem.w_o, 1, 3) == 0.0);
	key(&a, 'u');
	ck_assert(qkv_matrix_get(&a.problem.heads[1].w_q, 0, 1) == 0.0);
	ck_assert_int_eq(a.head, 1);
	assert_trace_current(&a);
	app_fini(&a);
}
END_TEST

/* The stage walk of a multi-head problem goes on to 6 (concat) and 7 (W_O). */
START_TEST(test_heads_stage_walk)
{
	struct app a;

	start_heads(&a);
	for (int i = 0; i < 12; i++)
		key(&a, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(a.stage, APP_STAGE_LAYER);
	ck_assert_int_eq(app_last_stage(&a), 7);
	ck_assert_ptr_nonnull(strstr(a.message, "stage 7 of 7"));
	key(&a, APP_KEY_PAGE_UP);
	ck_assert_int_eq(a.stage, APP_STAGE_CONCAT);
	ck_assert_ptr_nonnull(strstr(a.message, "stage 6 of 7: concat"));
	ck_assert_int_eq(a.focus, QKV_GRID_CONCAT);
	key(&a, APP_KEY_PAGE_UP);
	ck_assert_int_eq(a.stage, QKV_STAGE_OUTPUT);
	ck_assert_int_eq(a.focus, QKV_GRID_OUTPUT);
	ck_assert_ptr_nonnull(strstr(a.message, "(head 1)"));
	app_fini(&a);
}
END_TEST

START_TEST(test_random_events_projected)
{
	struct app a;

	start_projected(&a);
	run_random_events(&a, 0x5eed0107u, test_rounds(20000));
	app_fini(&a);
}
END_TEST

/* The suite: one case per area of the behaviour. */
/* I ties the projections to the identity: Q = K = V = X, so each token's own key
 * scores highest (q·k_i = |x_i|² beats x_i·x_j when the rows are distinct unit-ish
 * vectors); I again brings the learned W's back exactly. */
START_TEST(test_identity_toggle)
{
	struct app a;
	struct qkv_problem before;

	start_projected(&a);
	qkv_problem_init(&before);
	ck_assert_int_eq(qkv_problem_copy(&before, &a.problem), 0);
	ck_assert(!app_projections_tied(&a));
	key(&a, 'I');
	ck_assert(app_projections_tied(&a));
	ck_assert(qkv_matrix_equal(&a.trace.q, &a.problem.x));
	ck_assert(qkv_matrix_equal(&a.trace.k, &a.problem.x));
	ck_assert(qkv_matrix_equal(&a.trace.v, &a.problem.x));
	/* X = (1,0), (0,1), (1,1): scores row a = (1, 0, 1) / √2, closed form. */
	{
		double scores[3] = { 1, 0, 1 }, weights[3];

		expected_softmax(scores, NULL, 3, sqrt(2.0), weights);
		assert_row(&a.trace.weights, 0, weights, 3);
	}
	key(&a, 'I');
	ck_assert(!app_projections_tied(&a));
	ck_assert(qkv_problem_equal(&a.problem, &before));
	/* And undo walks back through both toggles. */
	key(&a, 'u');
	ck_assert(app_projections_tied(&a));
	key(&a, 'u');
	ck_assert(qkv_problem_equal(&a.problem, &before));
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

START_TEST(test_identity_refused_in_direct_form)
{
	struct app a;

	start(&a);
	key(&a, 'I');
	ck_assert(a.message_is_error);
	ck_assert_int_eq(a.problem.form, QKV_FORM_DIRECT);
	app_fini(&a);
}
END_TEST

/* z hides the cursor's token as a key from every query: its weight column is 0 and
 * the other two keys share each row as softmax over two entries. */
START_TEST(test_padding_toggle)
{
	struct app a;

	start(&a);
	key(&a, 'j'); /* t2 */
	key(&a, 'z');
	ck_assert(a.problem.padding != NULL && a.problem.padding[1]);
	for (int i = 0; i < 3; i++) {
		double scores[3], weights[3];
		unsigned char hidden[3] = { 0, 1, 0 };

		for (int j = 0; j < 3; j++)
			scores[j] = worked_qk[i][0] * worked_qk[j][0] + worked_qk[i][1] * worked_qk[j][1];
		expected_softmax(scores, hidden, 3, sqrt(2.0), weights);
		ck_assert(qkv_matrix_get(&a.trace.weights, i, 1) == 0.0);
		assert_row(&a.trace.weights, i, weights, 3);
	}
	key(&a, 'z');
	ck_assert(!a.problem.padding[1]);
	assert_worked_trace(&a, sqrt(2.0));
	app_fini(&a);
}
END_TEST

/* ] and [ on X change d_model: a column of X and a row of every W. */
START_TEST(test_d_model_on_x)
{
	struct app a;

	start_projected(&a);
	ck_assert_int_eq(a.focus, QKV_GRID_X);
	key(&a, ']');
	ck_assert_int_eq(qkv_problem_d_model(&a.problem), 3);
	ck_assert_int_eq(a.problem.w_q.rows, 3);
	ck_assert_int_eq(a.problem.w_v.rows, 3);
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 2);
	/* The new dimension is zero, so nothing computed moves. */
	assert_trace_of(&a, projected_v, sqrt(2.0));
	key(&a, '[');
	key(&a, '[');
	ck_assert_int_eq(qkv_problem_d_model(&a.problem), 1);
	key(&a, '[');
	ck_assert_int_eq(qkv_problem_d_model(&a.problem), 1);
	ck_assert(a.message_is_error);
	app_fini(&a);
}
END_TEST

/* The wrong-way demonstrations are never saved, so they do not make the file dirty. */
START_TEST(test_wrong_way_is_not_a_change_to_save)
{
	struct app a;

	start(&a);
	key(&a, 'W');
	ck_assert_int_eq(a.problem.wrong, QKV_WRONG_MASK_AFTER_SOFTMAX);
	ck_assert(!a.dirty);
	key(&a, 'q');
	ck_assert(a.quit);
	app_fini(&a);
}
END_TEST

/* A clock for the cost view that moves 1 ms each time it is read. */
static double fake_clock(void *context)
{
	double *now = context;

	*now += 1.0;
	return *now;
}

/* C opens the cost view and measures a slice per tick, never all at once; the
 * table fills in n = 16 … 128 with h·n² scores; C closes it and frees it. */
START_TEST(test_cost_view_measures_in_steps)
{
	struct app a;
	double now = 0.0;
	int ticks = 0;

	start(&a);
	a.cost.clock = fake_clock;
	a.cost.clock_context = &now;
	a.cost.last_n = 128;
	ck_assert_int_ne(key(&a, 'C') & REDRAW_OVERLAY, 0);
	ck_assert_int_eq(a.view, VIEW_COST);
	ck_assert(a.cost.running);
	ck_assert_ptr_nonnull(a.cost.table);
	ck_assert_int_eq(a.cost.table->count, 0); /* nothing measured by the key press itself */
	while (a.cost.running && ticks < 100000) {
		double before = now;

		ck_assert_int_ne(tick(&a, 100) & REDRAW_OVERLAY, 0);
		/* One slice: about APP_COST_SLICE_MS of the clock, plus one batch. */
		ck_assert(now - before <= APP_COST_SLICE_MS + 8.0);
		ticks++;
	}
	ck_assert(!a.cost.running);
	ck_assert_int_gt(ticks, 2);
	ck_assert_int_eq(a.cost.table->count, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(a.cost.table->rows[i].n, 16 << i);
		ck_assert(a.cost.table->rows[i].entries == (int64_t)(16 << i) * (16 << i));
		ck_assert(a.cost.table->rows[i].time[QKV_COST_STANDARD].ms > 0.0 && a.cost.table->rows[i].time[QKV_COST_ONLINE].ms > 0.0);
	}
	ck_assert_int_eq(a.cost.table->d_k, 2); /* the problem's d_k */
	ck_assert_ptr_nonnull(strstr(a.message, "measured n = 16"));
	key(&a, 'C');
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_ptr_null(a.cost.table);
	/* "C or Esc closes" was true of the open view only. */
	ck_assert_msg(strstr(a.message, "C or Esc closes") == NULL, "%s", a.message);
	app_fini(&a);
}
END_TEST

/* app_update starts no thread and reads no clock: a change made as a job waits,
 * not started, until the caller (app_perform) starts it, and is taken in only on
 * the event that says it ended; the cost view's clock is read by app_perform's
 * slice alone, never by a tick given to app_update. */
START_TEST(test_update_starts_no_thread_reads_no_clock)
{
	struct app a;
	double now = 0.0;
	struct event e = { .type = EVENT_KEY, .key = '>' };

	start(&a);
	a.jobs_always = true;
	clock_ms += 10;
	e.now_ms = clock_ms;
	app_update(&a, &e);
	ck_assert(app_busy(&a));
	ck_assert(!a.job->started);
	/* Ticks to app_update alone never take it in, however long they wait. */
	for (int i = 0; i < 5; i++) {
		struct event t = { .type = EVENT_TICK, .now_ms = clock_ms += 1000 };

		app_update(&a, &t);
		ck_assert(app_busy(&a));
		ck_assert(!a.job->started);
	}
	app_perform(&a, clock_ms);
	ck_assert(a.job == NULL || a.job->started);
	for (int i = 0; i < 12000 && app_busy(&a); i++) {
		struct timespec pause = { 0, 5000000 };

		nanosleep(&pause, NULL);
		tick(&a, 5);
	}
	ck_assert(!app_busy(&a));
	ck_assert_int_eq(qkv_problem_d_k(&a.problem), 4);

	a.cost.clock = fake_clock;
	a.cost.clock_context = &now;
	a.cost.last_n = 128;
	key(&a, 'C');
	ck_assert(a.cost.running);
	for (int i = 0; i < 5; i++) {
		struct event t = { .type = EVENT_TICK, .now_ms = clock_ms += 100 };

		app_update(&a, &t);
		ck_assert(now == 0.0);
		ck_assert_int_eq(a.cost.table->count, 0);
	}
	app_perform(&a, clock_ms);
	ck_assert(now > 0.0);
	app_fini(&a);
}
END_TEST

/* Esc during the measurement cancels it: the view closes, its storage goes, the
 * status line says where it stopped. Without a clock the view refuses. */
START_TEST(test_cost_view_escape_cancels)
{
	struct app a;
	double now = 0.0;

	start(&a);
	key(&a, 'C');
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert(a.message_is_error);
	ck_assert_ptr_nonnull(strstr(a.message, "clock"));
	a.cost.clock = fake_clock;
	a.cost.clock_context = &now;
	key(&a, 'C');
	tick(&a, 100);
	ck_assert(a.cost.running);
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_ptr_null(a.cost.table);
	ck_assert(!a.cost.running);
	ck_assert_ptr_nonnull(strstr(a.message, "cancelled at n = "));
	/* Another view closes it the same way. */
	key(&a, 'C');
	key(&a, 'S');
	ck_assert_int_eq(a.view, VIEW_SATURATION);
	ck_assert_ptr_null(a.cost.table);
	app_fini(&a);
}
END_TEST

/* The marks against the traces themselves: random nudges of Q, K and V cells on 40
 * random tokens (most of them a query's edit, which keeps and compares only that
 * query's row), with masks and the wrong ways switched now and then; after each
 * change, a cell is marked exactly when it differs from the trace before the change
 * (or, in S, S' and A, when it became masked or unmasked). */
START_TEST(test_marks_match_the_traces)
{
	static const enum qkv_grid grids[4] = { QKV_GRID_SCORES, QKV_GRID_SCALED, QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };
	struct lcg g = { 7300u + (uint64_t)_i };
	struct qkv_problem p;
	struct qkv_matrix before[4];
	unsigned char *masked_before;
	struct app a;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 40, 3, 2, (uint64_t)_i + 5), 0);
	start_with(&a, &p, NULL);
	masked_before = malloc(40 * 40);
	ck_assert_ptr_nonnull(masked_before);
	for (int m = 0; m < 4; m++)
		qkv_matrix_init(&before[m]);
	for (int step = 0; step < 300; step++) {
		int choice = lcg_int(&g, 0, 19), n = a.trace.n;
		const struct qkv_matrix *now[4] = { &a.trace.scores, &a.trace.scaled, &a.trace.weights, &a.trace.output };

		for (int m = 0; m < 4; m++)
			ck_assert_int_eq(qkv_matrix_copy(&before[m], now[m]), 0);
		memcpy(masked_before, a.trace.masked, (size_t)n * (size_t)n);
		if (choice < 4) {
			key(&a, (int[]){ APP_KEY_UP, APP_KEY_DOWN, APP_KEY_LEFT, APP_KEY_RIGHT }[choice]);
			continue;
		}
		if (choice == 4) {
			key(&a, APP_KEY_TAB); /* not a change: the last change's marks stay */
			continue;
		}
		if (choice == 5)
			key(&a, 'm');
		else if (choice == 6)
			key(&a, 'W');
		if (choice > 6 && !app_focus_is_input(&a, a.focus))
			continue;
		if (choice > 6)
			key(&a, choice % 2 == 0 ? '+' : '-');
		for (int m = 0; m < 4; m++) {
			const struct qkv_matrix *after = now[m];
			int wrong = 0, at_r = -1, at_c = -1;

			ck_assert_int_eq(after->rows, before[m].rows);
			/* Counted, then asserted once: Check records every assertion. */
			for (int r = 0; r < after->rows; r++)
				for (int c = 0; c < after->cols; c++) {
					size_t i = (size_t)r * (size_t)after->cols + (size_t)c;
					bool differs = qkv_matrix_get(after, r, c) != qkv_matrix_get(&before[m], r, c);
					bool expected = differs;

					if (m < 3) {
						bool masked = a.trace.masked[i] != 0, was = masked_before[i] != 0;
						expected = masked != was || (!masked && differs);
					}
					if (app_moved(&a, grids[m], r, c) != expected && wrong++ == 0) {
						at_r = r;
						at_c = c;
					}
				}
			ck_assert_msg(wrong == 0, "step %d grid %d: %d cells marked wrongly, first (%d,%d)", step, m,
				      wrong, at_r, at_c);
		}
	}
	for (int m = 0; m < 4; m++)
		qkv_matrix_fini(&before[m]);
	free(masked_before);
	app_fini(&a);
}
END_TEST

static Suite *app_suite(void)
{
	Suite *s = suite_create("app");
	TCase *init = tcase_create("init");
	TCase *moving = tcase_create("moving");
	TCase *editing = tcase_create("editing");
	TCase *history = tcase_create("history");
	TCase *stages = tcase_create("stages");
	TCase *structure = tcase_create("structure");
	TCase *options = tcase_create("options");
	TCase *interface = tcase_create("interface");
	TCase *files = tcase_create("files");
	TCase *marks = tcase_create("marks");
	TCase *random = tcase_create("random");
	TCase *truth = tcase_create("truth");

	tcase_add_test(init, test_init_state);
	tcase_add_test(init, test_init_projected);
	tcase_add_test(init, test_init_keeps_path);
	tcase_add_test(init, test_init_takes_options);
	suite_add_tcase(s, init);

	tcase_add_test(moving, test_arrows_move_and_clamp);
	tcase_add_test(moving, test_hjkl_move_and_clamp);
	tcase_add_test(moving, test_grids_clamp_to_their_shapes);
	tcase_add_test(moving, test_tab_order_direct);
	tcase_add_test(moving, test_tab_order_projected);
	tcase_add_test(moving, test_each_focus_keeps_its_cursor);
	tcase_add_test(moving, test_click_selects);
	suite_add_tcase(s, moving);

	tcase_add_test(editing, test_digit_starts_editing);
	tcase_add_loop_test(editing, test_edits_keep_trace_exact, 0, 8);

	tcase_add_test(editing, test_dot_starts_editing);
	tcase_add_test(editing, test_decimal_comma);
	tcase_add_test(editing, test_enter_starts_with_current_value);
	tcase_add_test(editing, test_edit_keys);
	tcase_add_test(editing, test_escape_cancels_edit);
	tcase_add_test(editing, test_bad_text_is_refused);
	tcase_add_test(editing, test_bound_is_inclusive);
	tcase_add_test(editing, test_edit_worked_example);
	tcase_add_test(editing, test_nudge_and_undo_each);
	tcase_add_test(editing, test_nudge_other_matrices);
	tcase_add_test(editing, test_grids_refuse_values);
	tcase_add_test(editing, test_wheel_nudges);
	suite_add_tcase(s, editing);

	tcase_add_test(history, test_undo_with_nothing);
	tcase_add_test(history, test_undo_redo_mixed);
	tcase_add_test(history, test_new_change_drops_redo);
	suite_add_tcase(s, history);

	tcase_add_test(stages, test_stage_forward_keys);
	tcase_add_test(stages, test_stage_backward_keys);
	tcase_add_test(stages, test_stage_projected);
	tcase_add_test(stages, test_stage_visible);
	tcase_add_test(stages, test_edit_in_stage);
	tcase_add_test(stages, test_autoplay);
	suite_add_tcase(s, stages);

	tcase_add_test(structure, test_insert_token);
	tcase_add_test(structure, test_remove_token);
	tcase_add_test(structure, test_cross_queries_and_tokens_apart);
	tcase_add_test(structure, test_cross_causal_ties_lengths);
	tcase_add_test(structure, test_remove_last_row_moves_cursor);
	tcase_add_test(structure, test_d_k_columns);
	tcase_add_test(structure, test_d_v_columns);
	tcase_add_test(structure, test_double_and_halve_d_k);
	tcase_add_test(structure, test_double_and_halve_random);
	suite_add_tcase(s, structure);

	tcase_add_test(options, test_scale_toggle);
	tcase_add_test(options, test_temperature_ladder);
	tcase_add_test(options, test_temperature_outside_the_steps);
	tcase_add_test(options, test_editor_takes_subnormals);
	tcase_add_test(options, test_mask_cycle);
	tcase_add_test(options, test_wrong_cycle);
	tcase_add_test(options, test_random_refill);
	tcase_add_test(options, test_custom_mask_toggle);
	tcase_add_test(options, test_identity_toggle);
	tcase_add_test(options, test_identity_refused_in_direct_form);
	tcase_add_test(options, test_padding_toggle);
	tcase_add_test(options, test_d_model_on_x);
	tcase_add_test(options, test_wrong_way_is_not_a_change_to_save);
	suite_add_tcase(s, options);

	tcase_add_test(interface, test_overlays);
	tcase_add_test(interface, test_large_change_runs_as_a_job);
	tcase_add_test(interface, test_change_by_job_leaves_the_same_app);
	tcase_add_test(interface, test_large_heads_change_runs_as_a_job);
	tcase_add_test(interface, test_large_sweep_runs_as_a_job);
	tcase_add_test(interface, test_saturation_sweep_has_enough_tokens);
	tcase_add_test(interface, test_projector_and_palette);
	tcase_add_test(interface, test_quit_clean);
	tcase_add_test(interface, test_quit_dirty_asks);
	tcase_add_test(interface, test_resize);
	tcase_add_test(interface, test_cost_view_measures_in_steps);
	tcase_add_test(interface, test_cost_view_escape_cancels);
	tcase_add_test(interface, test_update_starts_no_thread_reads_no_clock);
	tcase_add_loop_test(interface, test_marks_match_the_traces, 0, 4);
	suite_add_tcase(s, interface);

	tcase_add_test(files, test_save_is_asked_for);
	tcase_add_test(files, test_save_as_is_asked_for);
	tcase_add_test(files, test_recovery_removal_is_asked_for);
	tcase_add_test(files, test_recovery_kept_is_said_not_asked);
	tcase_add_test(files, test_recovery_unreadable_is_said);
	tcase_add_test(files, test_save_as_and_overwrite);
	tcase_add_test(files, test_export_figure);
	tcase_add_test(files, test_export_heads);
	tcase_add_test(files, test_export_too_large);
	tcase_add_test(files, test_export_cancelled);
	tcase_add_test(files, test_save_to_given_path);
	tcase_add_test(files, test_pasted_keys_never_save);
	tcase_add_test(files, test_save_as_name_keeps_non_ascii);
	tcase_add_test(files, test_recovery_offer);
	tcase_add_test(files, test_save_as_onto_a_folder);
	tcase_add_test(files, test_changed_on_disk_asks);
	tcase_add_test(interface, test_ctrl_c_is_q);
	tcase_add_test(interface, test_geometry_view_follows_edits);
	tcase_add_test(interface, test_pasted_keys_are_not_commands);
	suite_add_tcase(s, files);

	tcase_add_test(marks, test_blast_radius_query);
	tcase_add_test(marks, test_blast_radius_value);
	tcase_add_test(marks, test_blast_radius_key);
	suite_add_tcase(s, marks);

	tcase_add_test(truth, test_reach_query_couples_the_row);
	tcase_add_test(truth, test_reach_key_names_the_rows);
	tcase_add_test(truth, test_reach_value_outputs_only);
	tcase_add_test(truth, test_reach_masked_cells_do_not_move);
	tcase_add_test(truth, test_reach_projected);
	tcase_add_test(truth, test_w_rows_past_the_tokens);
	tcase_add_test(truth, test_reach_marks_random_edits);
	tcase_add_test(truth, test_reach_below_the_shown_digits);
	tcase_add_test(truth, test_identity_claim_from_the_numbers);
	tcase_add_test(truth, test_wrong_mask_after_softmax_words);
	tcase_add_test(truth, test_undo_to_saved_is_not_modified);
	tcase_add_test(truth, test_insert_then_remove_is_no_change);
	tcase_add_test(truth, test_clicker_during_edit);
	tcase_add_test(truth, test_stepping_keeps_the_focus);
	tcase_add_test(truth, test_saturation_from_worked_example);
	suite_add_tcase(s, truth);

	tcase_set_timeout(random, 600);
	tcase_add_test(random, test_random_events_direct);
	tcase_add_test(random, test_random_events_projected);
	tcase_add_test(random, test_random_events_heads);
	tcase_add_test(truth, test_heads_select);
	tcase_add_test(truth, test_heads_click_small_multiple);
	tcase_add_test(truth, test_heads_samples_specialise);
	tcase_add_test(truth, test_heads_blast_radius);
	tcase_add_test(truth, test_heads_stage_walk);
	suite_add_tcase(s, random);
	return s;
}

int main(void)
{
	return run_tap(app_suite());
}
