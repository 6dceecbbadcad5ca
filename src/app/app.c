/* app.c — the interactive state and app_update(), the only way it changes.
 * Events in, state and redraw flags out: no curses, no printing, no clock (time
 * arrives in the events). Every change to the problem recomputes the whole trace
 * and records what moved, so the screen can show the blast radius of an edit. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/app.h"
#include "io/save.h"
#include "qkv/error.h"
#include "qkv/format.h"

#define HISTORY_BUDGET ((size_t)256 << 20) /* bytes of undo snapshots */
#define DEFAULT_STEP 0.1

static const double temperatures[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
#define TEMPERATURE_COUNT ((int)(sizeof temperatures / sizeof temperatures[0]))

static void say(struct app *app, bool error, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(app->message, sizeof app->message, fmt, args);
	va_end(args);
	app->message_is_error = error;
}

/* The input foci are the problem's inputs, in qkv_input's order. */
_Static_assert((int)FOCUS_Q == (int)QKV_INPUT_Q && (int)FOCUS_K == (int)QKV_INPUT_K
	       && (int)FOCUS_V == (int)QKV_INPUT_V && (int)FOCUS_X == (int)QKV_INPUT_X
	       && (int)FOCUS_W_Q == (int)QKV_INPUT_W_Q && (int)FOCUS_W_K == (int)QKV_INPUT_W_K
	       && (int)FOCUS_W_V == (int)QKV_INPUT_W_V
	       && (int)FOCUS_ATTENTION == (int)QKV_INPUT_COUNT,
	       "enum app_focus starts with enum qkv_input's values, in its order");

const char *app_focus_name(enum app_focus focus)
{
	if ((int)focus >= 0 && (int)focus < QKV_INPUT_COUNT)
		return qkv_input_name((enum qkv_input)focus);
	return focus == FOCUS_ATTENTION ? "attention" : focus == FOCUS_OUTPUT ? "output" : "?";
}

/* The problem input behind an input focus (the enums share their order). */
static enum qkv_input focus_input(enum app_focus focus)
{
	return (enum qkv_input)focus;
}

bool app_focus_is_input(const struct app *app, enum app_focus focus)
{
	if (app->problem.form == QKV_FORM_DIRECT)
		return focus <= FOCUS_V;
	return focus >= FOCUS_X && focus <= FOCUS_W_V;
}

const struct qkv_matrix *app_focus_matrix(const struct app *app, enum app_focus focus)
{
	if (!app_focus_is_input(app, focus))
		return NULL;
	return qkv_problem_input_const(&app->problem, focus_input(focus));
}

void app_focus_shape(const struct app *app, enum app_focus focus, int *rows, int *cols)
{
	const struct qkv_matrix *m = app_focus_matrix(app, focus);

	if (m != NULL) {
		*rows = m->rows;
		*cols = m->cols;
	} else if (focus == FOCUS_ATTENTION) {
		*rows = app->trace.n;
		*cols = app->trace.n;
	} else if (focus == FOCUS_OUTPUT) {
		*rows = app->trace.n;
		*cols = app->trace.d_v;
	} else {
		*rows = 0;
		*cols = 0;
	}
}

static int clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

/* Keeps every cursor inside its grid after a change of shape. */
static void clamp_cursors(struct app *app)
{
	for (int f = 0; f < FOCUS_COUNT; f++) {
		int rows, cols;

		app_focus_shape(app, (enum app_focus)f, &rows, &cols);
		app->cursor[f].row = clamp(app->cursor[f].row, 0, rows > 0 ? rows - 1 : 0);
		app->cursor[f].col = clamp(app->cursor[f].col, 0, cols > 0 ? cols - 1 : 0);
	}
}

static enum app_focus first_input(const struct app *app)
{
	return app->problem.form == QKV_FORM_DIRECT ? FOCUS_Q : FOCUS_X;
}

int app_query(const struct app *app)
{
	if (app->focus == FOCUS_OUTPUT)
		return app->cursor[FOCUS_OUTPUT].row;
	if (app->focus == FOCUS_ATTENTION || app->focus == FOCUS_K || app->focus == FOCUS_V ||
	    app->focus == FOCUS_W_Q || app->focus == FOCUS_W_K || app->focus == FOCUS_W_V)
		return app->cursor[FOCUS_ATTENTION].row;
	return app->cursor[app->focus].row;
}

int app_key(const struct app *app)
{
	if (app->focus == FOCUS_K || app->focus == FOCUS_V)
		return app->cursor[app->focus].row;
	return app->cursor[FOCUS_ATTENTION].col;
}

int app_value_col(const struct app *app)
{
	if (app->focus == FOCUS_V)
		return app->cursor[FOCUS_V].col;
	return app->cursor[FOCUS_OUTPUT].col;
}

static int first_stage(const struct app *app)
{
	return app->problem.form == QKV_FORM_PROJECTED ? QKV_STAGE_PROJECTIONS : QKV_STAGE_SCORES;
}

bool app_stage_visible(const struct app *app, enum qkv_stage stage)
{
	if (stage == QKV_STAGE_PROJECTIONS && app->problem.form != QKV_FORM_PROJECTED)
		return false;
	return app->stage == APP_STAGE_LIVE || (int)stage <= app->stage;
}

enum qkv_stage app_derived_stage(const struct app *app)
{
	if (app->stage != APP_STAGE_LIVE)
		return (enum qkv_stage)app->stage;
	if (app->focus == FOCUS_OUTPUT || app->focus == FOCUS_V || app->focus == FOCUS_W_V)
		return QKV_STAGE_OUTPUT;
	return QKV_STAGE_WEIGHTS;
}

/* Sizes the blast-radius marks for the present trace and clears them. */
static int marks_reserve(struct app *app)
{
	int n = app->trace.n, need = n * (n > app->trace.d_v ? n : app->trace.d_v);

	for (int f = 0; f < FOCUS_COUNT; f++) {
		const struct qkv_matrix *m = app_focus_matrix(app, (enum app_focus)f);
		if (m != NULL && m->rows * m->cols > need)
			need = m->rows * m->cols;
	}
	if (need > app->moved_capacity) {
		unsigned char *inputs = realloc(app->moved_inputs, (size_t)need);
		unsigned char *scores, *output;

		if (inputs == NULL)
			return QKV_ENOMEM;
		app->moved_inputs = inputs;
		scores = realloc(app->moved_scores, (size_t)need);
		if (scores == NULL)
			return QKV_ENOMEM;
		app->moved_scores = scores;
		output = realloc(app->moved_output, (size_t)need);
		if (output == NULL)
			return QKV_ENOMEM;
		app->moved_output = output;
		app->moved_capacity = need;
	}
	memset(app->moved_inputs, 0, (size_t)app->moved_capacity);
	memset(app->moved_scores, 0, (size_t)app->moved_capacity);
	memset(app->moved_output, 0, (size_t)app->moved_capacity);
	return 0;
}

/* Recomputes the trace; marks the scores and outputs that moved (when the shape
 * is unchanged) so the class sees how far an edit reaches. */
static int recompute(struct app *app, bool mark)
{
	int rc = qkv_matrix_copy(&app->previous_scores, &app->trace.scores);

	if (rc == 0)
		rc = qkv_matrix_copy(&app->previous_output, &app->trace.output);
	if (rc == 0)
		rc = qkv_attention(&app->problem, &app->trace);
	if (rc == 0)
		rc = marks_reserve(app);
	if (rc != 0) {
		say(app, true, "cannot compute: %s", qkv_error_string(rc));
		return rc;
	}
	clamp_cursors(app);
	if (!mark)
		return 0;
	if (app->previous_scores.rows == app->trace.scores.rows &&
	    app->previous_scores.cols == app->trace.scores.cols) {
		size_t count = (size_t)app->trace.n * (size_t)app->trace.n;
		for (size_t i = 0; i < count; i++)
			app->moved_scores[i] = app->previous_scores.values[i] != app->trace.scores.values[i];
	}
	if (app->previous_output.rows == app->trace.output.rows &&
	    app->previous_output.cols == app->trace.output.cols) {
		size_t count = (size_t)app->trace.n * (size_t)app->trace.d_v;
		for (size_t i = 0; i < count; i++)
			app->moved_output[i] = app->previous_output.values[i] != app->trace.output.values[i];
	}
	app->mark_until_ms = app->now_ms + APP_MARK_MS;
	return 0;
}

static bool marks_live(const struct app *app)
{
	return app->now_ms < app->mark_until_ms;
}

bool app_moved_score(const struct app *app, int query, int key)
{
	return marks_live(app) && query < app->trace.n && key < app->trace.n &&
	       app->moved_scores[(size_t)query * (size_t)app->trace.n + (size_t)key];
}

bool app_moved_output(const struct app *app, int query, int col)
{
	return marks_live(app) && query < app->trace.n && col < app->trace.d_v &&
	       app->moved_output[(size_t)query * (size_t)app->trace.d_v + (size_t)col];
}

bool app_moved_input(const struct app *app, enum qkv_input input, int row, int col)
{
	const struct qkv_matrix *m = qkv_problem_input_const(&app->problem, input);

	return marks_live(app) && m != NULL && input == app->moved_input && row < m->rows && col < m->cols &&
	       app->moved_inputs[(size_t)row * (size_t)m->cols + (size_t)col];
}

static struct history_place here(const struct app *app)
{
	struct history_place place = { (int)app->focus, app->cursor[app->focus].row,
				       app->cursor[app->focus].col };
	return place;
}

int app_init(struct app *app, struct qkv_problem *p, const char *path, int palette_count)
{
	memset(app, 0, sizeof *app);
	app->problem = *p;
	qkv_problem_init(p);
	qkv_trace_init(&app->trace);
	qkv_matrix_init(&app->previous_scores);
	qkv_matrix_init(&app->previous_output);
	history_init(&app->history, HISTORY_BUDGET);
	for (int i = 0; i < 3; i++)
		qkv_matrix_init(&app->untied[i]);
	app->stage = APP_STAGE_LIVE;
	app->step = DEFAULT_STEP;
	app->pace_s = 2.0;
	app->palette_count = palette_count > 0 ? palette_count : 1;
	app->show_stats = true;
	app->sweep_tokens = 16;
	app->sweep_trials = 8;
	app->sweep_dk_max = 1024;
	app->sweep_seed = 1;
	app->focus = first_input(app);
	if (path != NULL) {
		app->path = strdup(path);
		if (app->path == NULL)
			return QKV_ENOMEM;
	}
	if (app->problem.notes != NULL)
		say(app, false, "%s", app->problem.notes);
	return recompute(app, false);
}

void app_fini(struct app *app)
{
	qkv_problem_fini(&app->problem);
	qkv_trace_fini(&app->trace);
	qkv_matrix_fini(&app->previous_scores);
	qkv_matrix_fini(&app->previous_output);
	history_fini(&app->history);
	for (int i = 0; i < 3; i++)
		qkv_matrix_fini(&app->untied[i]);
	free(app->moved_inputs);
	free(app->moved_scores);
	free(app->moved_output);
	free(app->path);
	memset(app, 0, sizeof *app);
}

/* --- changes to the problem ---------------------------------------------------- */

/* Says what an edit changed and how far it reached (the blast radius). */
static void describe_change(struct app *app, enum app_focus focus, int row, int col, double before,
			    double after)
{
	char from[32], to[32], place[96], reach[128];
	/* Rows of Q, K, V and X are tokens; rows of a W are d_model dimensions. */
	const char *token = focus <= FOCUS_X ? app->problem.tokens[row] : "";

	qkv_format_exact(from, sizeof from, before);
	qkv_format_exact(to, sizeof to, after);
	if (focus <= FOCUS_X)
		snprintf(place, sizeof place, "%s[%s, d%d]", app_focus_name(focus), token, col + 1);
	else
		snprintf(place, sizeof place, "%s[%d, %d]", app_focus_name(focus), row + 1, col + 1);
	switch (focus) {
	case FOCUS_Q:
		snprintf(reach, sizeof reach, "moves score row %s and output row %s", token, token);
		break;
	case FOCUS_K:
		snprintf(reach, sizeof reach, "moves column %s of every score row, so every output", token);
		break;
	case FOCUS_V:
		snprintf(reach, sizeof reach, "moves the outputs only: the weights do not change");
		break;
	case FOCUS_X:
		snprintf(reach, sizeof reach, "moves q, k and v of %s, so everything that reads them", token);
		break;
	default:
		snprintf(reach, sizeof reach, "changes column %d of every projected %s", col + 1,
			 focus == FOCUS_W_Q ? "query" : focus == FOCUS_W_K ? "key" : "value");
		break;
	}
	say(app, false, "%s: %s → %s %s", place, from, to, reach);
}

/* Sets one input cell, with undo, and recomputes. */
static int set_cell(struct app *app, enum app_focus focus, int row, int col, double value)
{
	struct qkv_matrix *m = qkv_problem_input(&app->problem, focus_input(focus));
	double before;
	struct history_place place = { (int)focus, row, col };

	if (m == NULL || row >= m->rows || col >= m->cols)
		return REDRAW_NONE;
	if (!isfinite(value) || fabs(value) > QKV_MAX_VALUE) {
		say(app, true, "%s is beyond ±1e12, the largest value qkv accepts", "that value");
		return REDRAW_STATUS;
	}
	before = qkv_matrix_get(m, row, col);
	if (history_push_cell(&app->history, focus_input(focus), row, col, before, place) != 0) {
		say(app, true, "out of memory: the change was not made");
		return REDRAW_STATUS;
	}
	qkv_matrix_set(m, row, col, value);
	app->dirty = true;
	recompute(app, true);
	app->moved_input = focus_input(focus);
	app->moved_inputs[(size_t)row * (size_t)m->cols + (size_t)col] = 1;
	describe_change(app, focus, row, col, before, value);
	return REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT | REDRAW_INFO | REDRAW_STATUS;
}

/* Runs a change of the whole problem (shape or options) with undo: snapshot first,
 * change, then recompute; a failed change is rolled back. */
typedef int (*problem_change)(struct app *app, int argument);

static int change_problem(struct app *app, problem_change change, int argument,
			  const char *done)
{
	int rc;
	struct history_place place = here(app);

	if (history_push_problem(&app->history, &app->problem, place) != 0) {
		say(app, true, "out of memory: the change was not made");
		return REDRAW_STATUS;
	}
	rc = change(app, argument);
	if (rc == 0)
		rc = qkv_problem_check(&app->problem);
	if (rc != 0) {
		struct history_place ignored;

		/* Put the problem back and forget the failed branch, so redo cannot replay it. */
		history_undo(&app->history, &app->problem, &ignored);
		history_drop_redo(&app->history);
		say(app, true, "%s", rc == QKV_ELIMIT ? "that is above qkv's limits (1024 tokens, 4096 columns)"
						      : qkv_error_string(rc));
		return REDRAW_STATUS;
	}
	app->dirty = true;
	recompute(app, true);
	if (done != NULL)
		say(app, false, "%s", done);
	return REDRAW_ALL;
}

/* The problem changes behind the structural and option keys. */
static int change_insert_token(struct app *app, int after)
{
	struct qkv_problem *p = &app->problem;
	return qkv_problem_insert_token(p, after + 1, NULL);
}

static int change_remove_token(struct app *app, int at)
{
	struct qkv_problem *p = &app->problem;
	return qkv_problem_remove_token(p, at);
}

static int change_d_k(struct app *app, int d_k)
{
	struct qkv_problem *p = &app->problem;
	return qkv_problem_set_d_k(p, d_k);
}

static int change_d_v(struct app *app, int d_v)
{
	struct qkv_problem *p = &app->problem;
	return qkv_problem_set_d_v(p, d_v);
}

static int change_scale(struct app *app, int scale)
{
	struct qkv_problem *p = &app->problem;
	p->scale = (enum qkv_scale)scale;
	return 0;
}

static int change_temperature(struct app *app, int index)
{
	struct qkv_problem *p = &app->problem;
	p->temperature = temperatures[index];
	return 0;
}

static int change_mask(struct app *app, int mask)
{
	struct qkv_problem *p = &app->problem;
	return qkv_problem_set_mask(p, (enum qkv_mask)mask);
}

static int change_wrong(struct app *app, int wrong)
{
	struct qkv_problem *p = &app->problem;
	p->wrong = (enum qkv_wrong)wrong;
	return 0;
}

/* Toggles the custom mask bit of cell argument = query·n + key. */
static int change_mask_bit(struct app *app, int cell)
{
	struct qkv_problem *p = &app->problem;
	p->mask_bits[cell] = !p->mask_bits[cell];
	return 0;
}

/* New N(0,1) values for Q, K and V from the seed, keeping the shape. */
static int change_random(struct app *app, int unused)
{
	struct qkv_problem *p = &app->problem;
	struct qkv_problem fresh;
	uint64_t seed = p->seeded ? p->seed + 1 : 1;
	int rc;

	(void)unused;
	if (p->form != QKV_FORM_DIRECT)
		return QKV_EINVAL;
	qkv_problem_init(&fresh);
	rc = qkv_problem_random(&fresh, p->n, p->q.cols, p->v.cols, seed);
	if (rc == 0) {
		/* The fresh draw's matrices are exchanged with the problem's, not
		 * copied: nothing to allocate, so nothing can fail half-way. */
		struct qkv_matrix *mine[] = { &p->q, &p->k, &p->v };
		struct qkv_matrix *theirs[] = { &fresh.q, &fresh.k, &fresh.v };

		for (int i = 0; i < 3; i++) {
			struct qkv_matrix swap = *mine[i];

			*mine[i] = *theirs[i];
			*theirs[i] = swap;
		}
		p->seeded = true;
		p->seed = seed;
	}
	qkv_problem_fini(&fresh);
	return rc;
}

static bool is_identity(const struct qkv_matrix *m)
{
	if (m->rows != m->cols)
		return false;
	for (int r = 0; r < m->rows; r++)
		for (int c = 0; c < m->cols; c++)
			if (qkv_matrix_get(m, r, c) != (r == c ? 1.0 : 0.0))
				return false;
	return true;
}

bool app_projections_tied(const struct app *app)
{
	const struct qkv_problem *p = &app->problem;

	return p->form == QKV_FORM_PROJECTED && is_identity(&p->w_q) && is_identity(&p->w_k) &&
	       is_identity(&p->w_v);
}

/* Ties W_Q, W_K, W_V to the identity (keeping the learned ones to come back to),
 * or brings the kept ones back. */
static int change_identity(struct app *app, int tie)
{
	struct qkv_problem *p = &app->problem;
	struct qkv_matrix *w[3] = { &p->w_q, &p->w_k, &p->w_v };
	int d_model = p->x.cols, rc = 0;

	for (int i = 0; i < 3 && rc == 0; i++) {
		if (tie) {
			rc = qkv_matrix_copy(&app->untied[i], w[i]);
			if (rc == 0)
				rc = qkv_matrix_zero(w[i], d_model, d_model);
			for (int d = 0; rc == 0 && d < d_model; d++)
				qkv_matrix_set(w[i], d, d, 1.0);
		} else {
			rc = qkv_matrix_copy(w[i], &app->untied[i]);
		}
	}
	return rc;
}

/* Marks the token as padding (hidden as a key from every query) or not. */
static int change_padding(struct app *app, int token)
{
	struct qkv_problem *p = &app->problem;

	if (p->padding == NULL) {
		p->padding = calloc((size_t)p->n, 1);
		if (p->padding == NULL)
			return QKV_ENOMEM;
	}
	p->padding[token] = !p->padding[token];
	return 0;
}

static int change_d_model(struct app *app, int d_model)
{
	return qkv_problem_set_d_model(&app->problem, d_model);
}

/* --- keys ------------------------------------------------------------------------ */

static int move_cursor(struct app *app, int d_row, int d_col)
{
	struct app_cursor *c = &app->cursor[app->focus];
	int rows, cols;

	app_focus_shape(app, app->focus, &rows, &cols);
	c->row = clamp(c->row + d_row, 0, rows - 1);
	c->col = clamp(c->col + d_col, 0, cols - 1);
	/* The attention cursor follows the query or key being edited. */
	if (app->focus == FOCUS_Q || app->focus == FOCUS_X)
		app->cursor[FOCUS_ATTENTION].row = c->row;
	if (app->focus == FOCUS_K || app->focus == FOCUS_V)
		app->cursor[FOCUS_ATTENTION].col = c->row;
	if (app->focus == FOCUS_V)
		app->cursor[FOCUS_OUTPUT].col = c->col;
	if (app->focus == FOCUS_ATTENTION)
		app->cursor[FOCUS_OUTPUT].row = c->row;
	if (app->focus == FOCUS_OUTPUT)
		app->cursor[FOCUS_ATTENTION].row = c->row;
	return REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT | REDRAW_INFO | REDRAW_STATUS;
}

static int cycle_focus(struct app *app, int direction)
{
	static const enum app_focus direct[] = { FOCUS_Q, FOCUS_K, FOCUS_V, FOCUS_ATTENTION, FOCUS_OUTPUT };
	static const enum app_focus projected[] = { FOCUS_X, FOCUS_W_Q, FOCUS_W_K, FOCUS_W_V,
						    FOCUS_ATTENTION, FOCUS_OUTPUT };
	const enum app_focus *order = app->problem.form == QKV_FORM_DIRECT ? direct : projected;
	int count = app->problem.form == QKV_FORM_DIRECT ? 5 : 6, at = 0;

	for (int i = 0; i < count; i++)
		if (order[i] == app->focus)
			at = i;
	app->focus = order[(at + direction + count) % count];
	return move_cursor(app, 0, 0);
}

static int step_stage(struct app *app, int direction)
{
	int first = first_stage(app), previous = app->stage;

	if (direction > 0)
		app->stage = app->stage == APP_STAGE_LIVE ? first
			     : app->stage < QKV_STAGE_OUTPUT ? app->stage + 1 : QKV_STAGE_OUTPUT;
	else
		app->stage = app->stage == APP_STAGE_LIVE || app->stage <= first ? APP_STAGE_LIVE
										 : app->stage - 1;
	/* Entering the walk, the cursor moves to the stage's grid so arrows pick the cell
	 * whose arithmetic is shown; a person who tabbed to an input keeps it. */
	if (previous == APP_STAGE_LIVE || !app_focus_is_input(app, app->focus)) {
		if (app->stage >= QKV_STAGE_SCORES && app->stage <= QKV_STAGE_WEIGHTS)
			app->focus = FOCUS_ATTENTION;
		else if (app->stage >= QKV_STAGE_MIX)
			app->focus = FOCUS_OUTPUT;
	}
	if (app->stage == APP_STAGE_LIVE)
		say(app, false, "all stages live");
	else
		say(app, false, "stage %d of 5: %s — %s", app->stage, qkv_stage_name((enum qkv_stage)app->stage),
		    qkv_stage_formula((enum qkv_stage)app->stage));
	return REDRAW_ALL;
}

static bool is_number_char(int key)
{
	return (key >= '0' && key <= '9') || key == '.' || key == '-' || key == '+' || key == 'e' ||
	       key == 'E';
}

static void start_edit(struct app *app, int first_key)
{
	const struct qkv_matrix *m = app_focus_matrix(app, app->focus);
	const struct app_cursor *c = &app->cursor[app->focus];

	app->editing = true;
	if (first_key != 0) {
		app->edit[0] = (char)first_key;
		app->edit[1] = '\0';
	} else {
		qkv_format_exact(app->edit, sizeof app->edit, qkv_matrix_get(m, c->row, c->col));
	}
	say(app, false, "editing %s[%s, d%d]: Enter keeps it, Esc cancels", app_focus_name(app->focus),
	    app->problem.tokens != NULL && app->focus <= FOCUS_X ? app->problem.tokens[c->row] : "",
	    c->col + 1);
}

/* Parses the typed text: a finite number within the bound, the whole text used. */
static bool parse_value(const char *text, double *value)
{
	char *end;

	errno = 0;
	*value = strtod(text, &end);
	if (end == text || *end != '\0' || errno == ERANGE || !isfinite(*value))
		return false;
	return fabs(*value) <= QKV_MAX_VALUE;
}

static int edit_key(struct app *app, int key)
{
	size_t length = strlen(app->edit);
	double value;

	switch (key) {
	case APP_KEY_ESCAPE:
		app->editing = false;
		say(app, false, "edit cancelled");
		return REDRAW_INPUTS | REDRAW_STATUS;
	case APP_KEY_BACKSPACE:
	case APP_KEY_DELETE:
		if (length > 0)
			app->edit[length - 1] = '\0';
		return REDRAW_INPUTS | REDRAW_STATUS;
	case APP_KEY_CTRL_U:
		app->edit[0] = '\0';
		return REDRAW_INPUTS | REDRAW_STATUS;
	case APP_KEY_ENTER: {
		const struct app_cursor *c = &app->cursor[app->focus];

		if (!parse_value(app->edit, &value)) {
			say(app, true, "“%s” is not a number (finite, |v| ≤ 1e12): the value stays", app->edit);
			return REDRAW_STATUS;
		}
		app->editing = false;
		app->message[0] = '\0';
		return set_cell(app, app->focus, c->row, c->col, value);
	}
	default:
		if (is_number_char(key) && length + 1 < sizeof app->edit) {
			app->edit[length] = (char)key;
			app->edit[length + 1] = '\0';
		}
		return REDRAW_INPUTS | REDRAW_STATUS;
	}
}

static int nudge(struct app *app, enum app_focus focus, int row, int col, double delta)
{
	const struct qkv_matrix *m = app_focus_matrix(app, focus);

	if (m == NULL) {
		say(app, true, "the %s grid is computed: nudge a cell of %s", app_focus_name(focus),
		    app->problem.form == QKV_FORM_DIRECT ? "Q, K or V" : "X or a W");
		return REDRAW_STATUS;
	}
	/* Drop the binary noise of repeated steps (0.1 + 0.2 reads 0.3, not 0.30000000000000004). */
	double value = qkv_matrix_get(m, row, col) + delta;
	if (fabs(value) < 1e6)
		value = round(value * 1e9) / 1e9;
	return set_cell(app, focus, row, col, value);
}

static int temperature_index(double temperature, int direction)
{
	if (direction < 0) {
		for (int i = TEMPERATURE_COUNT - 1; i >= 0; i--)
			if (temperatures[i] < temperature)
				return i;
		return 0;
	}
	for (int i = 0; i < TEMPERATURE_COUNT; i++)
		if (temperatures[i] > temperature)
			return i;
	return TEMPERATURE_COUNT - 1;
}

static int save_to(struct app *app, const char *path)
{
	char err[512];

	if (save_file(path, &app->problem, err, sizeof err) != 0) {
		say(app, true, "%s", err);
		return REDRAW_STATUS;
	}
	if (app->path != path) {
		char *copy = strdup(path);

		if (copy != NULL) {
			free(app->path);
			app->path = copy;
		}
	}
	app->dirty = false;
	say(app, false, "saved to %s", path);
	return REDRAW_STATUS;
}

static int prompt_key(struct app *app, int key)
{
	size_t length = strlen(app->answer);
	struct stat st;

	switch (app->prompt) {
	case PROMPT_QUIT:
		if (key == 'y' || key == 'Y') {
			app->quit = true;
		} else if (key == 'n' || key == 'N' || key == APP_KEY_ESCAPE) {
			say(app, false, "not quitting");
		} else {
			return REDRAW_NONE;
		}
		app->prompt = PROMPT_NONE;
		return REDRAW_STATUS;
	case PROMPT_OVERWRITE:
		if (key == 'y' || key == 'Y') {
			app->prompt = PROMPT_NONE;
			return save_to(app, app->answer);
		}
		if (key == 'n' || key == 'N' || key == APP_KEY_ESCAPE) {
			app->prompt = PROMPT_NONE;
			say(app, false, "not saved");
			return REDRAW_STATUS;
		}
		return REDRAW_NONE;
	case PROMPT_SAVE_AS:
	default:
		if (key == APP_KEY_ESCAPE) {
			app->prompt = PROMPT_NONE;
			say(app, false, "not saved");
		} else if (key == APP_KEY_BACKSPACE || key == APP_KEY_DELETE) {
			if (length > 0)
				app->answer[length - 1] = '\0';
		} else if (key == APP_KEY_CTRL_U) {
			app->answer[0] = '\0';
		} else if (key == APP_KEY_ENTER) {
			if (length == 0)
				return REDRAW_NONE;
			if (stat(app->answer, &st) == 0) {
				app->prompt = PROMPT_OVERWRITE;
			} else {
				app->prompt = PROMPT_NONE;
				return save_to(app, app->answer);
			}
		} else if (key >= 0x20 && key < 0x7f && length + 1 < sizeof app->answer) {
			app->answer[length] = (char)key;
			app->answer[length + 1] = '\0';
		}
		return REDRAW_STATUS;
	}
}

static int undo_redo(struct app *app, bool redo)
{
	struct history_place place;
	bool done = redo ? history_redo(&app->history, &app->problem, &place)
			 : history_undo(&app->history, &app->problem, &place);

	if (!done) {
		say(app, false, redo ? "nothing to redo" : "nothing to undo");
		return REDRAW_STATUS;
	}
	app->dirty = true;
	recompute(app, true);
	if (place.focus >= 0 && place.focus < FOCUS_COUNT &&
	    (app_focus_is_input(app, (enum app_focus)place.focus) || place.focus >= FOCUS_ATTENTION)) {
		app->focus = (enum app_focus)place.focus;
		app->cursor[app->focus].row = place.row;
		app->cursor[app->focus].col = place.col;
		clamp_cursors(app);
	}
	say(app, false, redo ? "redone" : "undone");
	return REDRAW_ALL;
}

static void run_sweep(struct app *app)
{
	int count = qkv_sweep(app->sweep_tokens, app->sweep_trials, app->sweep_seed,
			      app->sweep_dk_max, app->sweep);

	app->sweep_count = count > 0 ? count : 0;
	if (count < 0)
		say(app, true, "the sweep failed: %s", qkv_error_string(count));
}

/* Keys inside the saturation view: tokens and trials of the sweep. */
static int saturation_key(struct app *app, int key)
{
	switch (key) {
	case APP_KEY_UP:
	case 'k':
		app->sweep_tokens = clamp(app->sweep_tokens * 2, 2, 256);
		break;
	case APP_KEY_DOWN:
	case 'j':
		app->sweep_tokens = clamp(app->sweep_tokens / 2, 2, 256);
		break;
	case APP_KEY_RIGHT:
	case 'l':
		app->sweep_trials = clamp(app->sweep_trials * 2, 1, 256);
		break;
	case APP_KEY_LEFT:
	case 'h':
		app->sweep_trials = clamp(app->sweep_trials / 2, 1, 256);
		break;
	default:
		return -1;
	}
	run_sweep(app);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

static int toggle_overlay(struct app *app, enum app_overlay overlay)
{
	app->overlay = app->overlay == overlay ? OVERLAY_NONE : overlay;
	if (app->overlay == OVERLAY_SATURATION) {
		/* Start from the problem's own number of tokens. */
		app->sweep_tokens = clamp(app->problem.n, 2, 256);
		run_sweep(app);
	}
	return REDRAW_ALL;
}

static int current_token(const struct app *app)
{
	if (app->focus == FOCUS_ATTENTION || app->focus == FOCUS_OUTPUT)
		return app->cursor[app->focus].row;
	if (app_focus_is_input(app, app->focus) && app->focus != FOCUS_W_Q &&
	    app->focus != FOCUS_W_K && app->focus != FOCUS_W_V)
		return app->cursor[app->focus].row;
	return app_query(app);
}

static int structure_key(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	int d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p);
	char done[96];

	switch (key) {
	case 'o':
		snprintf(done, sizeof done, "token added after %s", p->tokens[current_token(app)]);
		return change_problem(app, change_insert_token, current_token(app), done);
	case 'x':
		if (p->n <= 1) {
			say(app, true, "the last token cannot be removed");
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "token %s removed", p->tokens[current_token(app)]);
		return change_problem(app, change_remove_token, current_token(app), done);
	case ']':
	case '[':
		if (app->focus == FOCUS_X) {
			int d_model = qkv_problem_d_model(p), target = key == ']' ? d_model + 1 : d_model - 1;

			if (target < 1 || target > QKV_MAX_DIM) {
				say(app, true, "d_model stays %d: it goes from 1 to %d", d_model, QKV_MAX_DIM);
				return REDRAW_STATUS;
			}
			snprintf(done, sizeof done, "d_model = %d (X and the rows of every W)", target);
			return change_problem(app, change_d_model, target, done);
		}
		/* fall through */
	case '>':
	case '<': {
		int target = key == ']' ? d_k + 1 : key == '[' ? d_k - 1 : key == '>' ? d_k * 2 : d_k / 2;

		if (target < 1 || target > QKV_MAX_DIM) {
			say(app, true, "d_k stays %d: it goes from 1 to %d", d_k, QKV_MAX_DIM);
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "d_k = %d%s", target,
			 p->seeded && target > d_k ? " (new columns drawn from the seed)" : "");
		return change_problem(app, change_d_k, target, done);
	}
	case '}':
	case '{': {
		int target = key == '}' ? d_v + 1 : d_v - 1;

		if (target < 1 || target > QKV_MAX_DIM) {
			say(app, true, "d_v stays %d: it goes from 1 to %d", d_v, QKV_MAX_DIM);
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "d_v = %d", target);
		return change_problem(app, change_d_v, target, done);
	}
	default:
		return -1;
	}
}

static int option_key(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	static const char *const mask_names[] = { "none", "causal (query i sees keys j ≤ i)",
						  "custom (Enter on a weight toggles it)" };
	static const char *const wrong_names[] = {
		"the right way again",
		"WRONG WAY: mask applied after softmax — rows no longer sum to 1",
		"WRONG WAY: softmax down the columns — columns sum to 1, rows do not",
	};
	char done[128];

	switch (key) {
	case 's': {
		enum qkv_scale next = p->scale == QKV_SCALE_NONE ? QKV_SCALE_SQRT_DK : QKV_SCALE_NONE;

		snprintf(done, sizeof done, "scaling %s", next == QKV_SCALE_NONE
			 ? "off, the wrong way at large d_k: watch var(S') and ‖J‖ in the readout, S for the sweep"
			 : "on: divided by √d_k");
		return change_problem(app, change_scale, next, done);
	}
	case 't':
	case 'T': {
		int index = temperature_index(p->temperature, key == 't' ? -1 : 1);

		snprintf(done, sizeof done, "temperature τ = %g", temperatures[index]);
		if (temperatures[index] == p->temperature) {
			say(app, false, "τ stays %g", p->temperature);
			return REDRAW_STATUS;
		}
		return change_problem(app, change_temperature, index, done);
	}
	case 'm': {
		int next = (p->mask + 1) % 3;

		snprintf(done, sizeof done, "mask: %s", mask_names[next]);
		return change_problem(app, change_mask, next, done);
	}
	case 'W': {
		int next = (p->wrong + 1) % 3;
		bool dirty = app->dirty;
		int redraw = change_problem(app, change_wrong, next, wrong_names[next]);

		app->dirty = dirty; /* a demonstration, never saved: nothing to lose */
		app->message_is_error = next != QKV_WRONG_NONE;
		return redraw;
	}
	case 'I':
		if (p->form != QKV_FORM_PROJECTED) {
			say(app, true, "this problem gives Q, K and V directly: there are no projections to tie");
			return REDRAW_STATUS;
		}
		if (app_projections_tied(app) && app->untied[0].rows == p->x.cols)
			return change_problem(app, change_identity, 0, "projections learned again: W_Q, W_K, W_V as they were");
		return change_problem(app, change_identity, 1,
				      "W_Q = W_K = W_V = identity, so Q = K = V = X: each token attends most to itself");
	case 'z': {
		int token = current_token(app);
		bool padding = p->padding != NULL && p->padding[token];

		snprintf(done, sizeof done, "%s %s padding%s", p->tokens[token], padding ? "is no longer" : "is now",
			 padding ? "" : ": no query sees it as a key");
		return change_problem(app, change_padding, token, done);
	}
	case 'r':
		if (p->form != QKV_FORM_DIRECT) {
			say(app, true, "random values fill Q, K and V directly; this problem has projections");
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "Q, K and V drawn from N(0,1), seed %llu",
			 (unsigned long long)(p->seeded ? p->seed + 1 : 1));
		return change_problem(app, change_random, 0, done);
	default:
		return -1;
	}
}

static int enter_key(struct app *app)
{
	struct qkv_problem *p = &app->problem;

	if (app_focus_is_input(app, app->focus)) {
		start_edit(app, 0);
		return REDRAW_INPUTS | REDRAW_STATUS;
	}
	if (app->focus == FOCUS_ATTENTION && p->mask == QKV_MASK_CUSTOM) {
		const struct app_cursor *c = &app->cursor[FOCUS_ATTENTION];

		return change_problem(app, change_mask_bit, c->row * p->n + c->col,
				      "mask bit toggled");
	}
	say(app, false, "the %s grid is computed from Q, K and V: edit those", app_focus_name(app->focus));
	return REDRAW_STATUS;
}

static int command_key(struct app *app, int key)
{
	int redraw;
	const struct app_cursor *c = &app->cursor[app->focus];

	if ((redraw = structure_key(app, key)) >= 0 || (redraw = option_key(app, key)) >= 0)
		return redraw;
	switch (key) {
	case APP_KEY_UP: case 'k': return move_cursor(app, -1, 0);
	case APP_KEY_DOWN: case 'j': return move_cursor(app, 1, 0);
	case APP_KEY_LEFT: case 'h': return move_cursor(app, 0, -1);
	case APP_KEY_RIGHT: case 'l': return move_cursor(app, 0, 1);
	case APP_KEY_TAB: return cycle_focus(app, 1);
	case APP_KEY_BACKTAB: return cycle_focus(app, -1);
	case APP_KEY_PAGE_DOWN: case ' ': case 'n': return step_stage(app, 1);
	case APP_KEY_PAGE_UP: case 'p': return step_stage(app, -1);
	case APP_KEY_HOME:
		app->stage = APP_STAGE_LIVE;
		say(app, false, "all stages live");
		return REDRAW_ALL;
	case APP_KEY_END:
		app->stage = QKV_STAGE_OUTPUT;
		say(app, false, "stage 5 of 5: output — O = A V");
		return REDRAW_ALL;
	case APP_KEY_ENTER: return enter_key(app);
	case '+': case '=': return nudge(app, app->focus, c->row, c->col, app->step);
	case '-': return nudge(app, app->focus, c->row, c->col, -app->step);
	case 'u': return undo_redo(app, false);
	case APP_KEY_CTRL_R: return undo_redo(app, true);
	case 'A':
		app->autoplay = true;
		app->next_step_ms = app->now_ms + (int64_t)(app->pace_s * 1000.0);
		say(app, false, "autoplay: a step every %g s; any key stops it", app->pace_s);
		return REDRAW_STATUS;
	case 'S': return toggle_overlay(app, OVERLAY_SATURATION);
	case 'D': return toggle_overlay(app, OVERLAY_DESCRIBE);
	case '?': return toggle_overlay(app, OVERLAY_HELP);
	case 'P':
		app->projector = !app->projector;
		say(app, false, "projector mode %s", app->projector ? "on" : "off");
		return REDRAW_ALL | REDRAW_LAYOUT;
	case 'c':
		app->palette = (app->palette + 1) % app->palette_count;
		return REDRAW_ALL;
	case 'R':
		app->auto_range = !app->auto_range;
		say(app, false, "weights colour scale: %s", app->auto_range ? "each row's own range (auto)" : "fixed 0 to 1");
		return REDRAW_ATTENTION | REDRAW_STATUS;
	case 'w':
		if (app->path != NULL)
			return save_to(app, app->path);
		app->prompt = PROMPT_SAVE_AS;
		app->answer[0] = '\0';
		return REDRAW_STATUS;
	case 'q':
		if (app->dirty) {
			app->prompt = PROMPT_QUIT;
			return REDRAW_STATUS;
		}
		app->quit = true;
		return REDRAW_NONE;
	case APP_KEY_ESCAPE:
		if (app->overlay != OVERLAY_NONE)
			return toggle_overlay(app, app->overlay);
		app->message[0] = '\0';
		return REDRAW_STATUS;
	case APP_KEY_CTRL_L:
		return REDRAW_ALL | REDRAW_LAYOUT;
	default:
		if (((key >= '0' && key <= '9') || key == '.') && app_focus_is_input(app, app->focus)) {
			start_edit(app, key);
			return REDRAW_INPUTS | REDRAW_STATUS;
		}
		if ((key >= '0' && key <= '9') || key == '.') {
			say(app, true, "the %s grid is computed: edit Q, K or V", app_focus_name(app->focus));
			return REDRAW_STATUS;
		}
		return REDRAW_NONE;
	}
}

/* One autoplay step: the next cell of the selected row, then the next stage. */
static int autoplay_step(struct app *app)
{
	int rows, cols;
	enum app_focus grid = app->stage >= QKV_STAGE_MIX ? FOCUS_OUTPUT : FOCUS_ATTENTION;

	if (app->stage == APP_STAGE_LIVE)
		return step_stage(app, 1);
	app_focus_shape(app, grid, &rows, &cols);
	if (app->focus == grid && app->cursor[grid].col + 1 < cols) {
		app->cursor[grid].col++;
		return REDRAW_ALL;
	}
	if (app->stage == QKV_STAGE_OUTPUT) {
		app->autoplay = false;
		say(app, false, "autoplay finished");
		return REDRAW_STATUS;
	}
	step_stage(app, 1);
	grid = app->stage >= QKV_STAGE_MIX ? FOCUS_OUTPUT : FOCUS_ATTENTION;
	app->cursor[grid].row = app_query(app);
	app->focus = app->stage == QKV_STAGE_PROJECTIONS ? first_input(app) : grid;
	app->cursor[grid].col = 0;
	return REDRAW_ALL;
}

static int tick(struct app *app)
{
	int redraw = REDRAW_NONE;

	if (app->mark_until_ms != 0 && app->now_ms >= app->mark_until_ms) {
		app->mark_until_ms = 0;
		redraw |= REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT;
	}
	if (app->autoplay && app->now_ms >= app->next_step_ms) {
		app->next_step_ms = app->now_ms + (int64_t)(app->pace_s * 1000.0);
		redraw |= autoplay_step(app);
	}
	return redraw;
}

static int pointer(struct app *app, const struct event *event)
{
	int rows, cols;
	enum app_focus focus = (enum app_focus)event->focus;

	if (event->focus < 0 || event->focus >= FOCUS_COUNT)
		return REDRAW_NONE;
	if (!app_focus_is_input(app, focus) && focus != FOCUS_ATTENTION && focus != FOCUS_OUTPUT)
		return REDRAW_NONE;
	app_focus_shape(app, focus, &rows, &cols);
	if (event->row < 0 || event->row >= rows || event->col < 0 || event->col >= cols)
		return REDRAW_NONE;
	app->editing = false;
	app->focus = focus;
	app->cursor[focus].row = event->row;
	app->cursor[focus].col = event->col;
	move_cursor(app, 0, 0);
	if (event->type == EVENT_WHEEL)
		return nudge(app, focus, event->row, event->col, event->delta * app->step) | REDRAW_ALL;
	return REDRAW_ALL;
}

int app_update(struct app *app, const struct event *event)
{
	if (event->now_ms > app->now_ms)
		app->now_ms = event->now_ms;
	switch (event->type) {
	case EVENT_TICK:
		return tick(app);
	case EVENT_RESIZE:
		app->width = event->width;
		app->height = event->height;
		return REDRAW_ALL | REDRAW_LAYOUT;
	case EVENT_CLICK:
	case EVENT_WHEEL:
		if (app->prompt != PROMPT_NONE)
			return REDRAW_NONE;
		return pointer(app, event);
	case EVENT_KEY:
	default:
		break;
	}
	if (app->autoplay) {
		app->autoplay = false;
		say(app, false, "autoplay stopped");
		return REDRAW_STATUS;
	}
	if (app->prompt != PROMPT_NONE)
		return prompt_key(app, event->key);
	if (app->editing)
		return edit_key(app, event->key);
	if (app->overlay == OVERLAY_SATURATION) {
		int redraw = saturation_key(app, event->key);
		if (redraw >= 0)
			return redraw;
	}
	if (app->overlay == OVERLAY_HELP && event->key != '?') {
		app->overlay = OVERLAY_NONE;
		return REDRAW_ALL;
	}
	return command_key(app, event->key);
}
