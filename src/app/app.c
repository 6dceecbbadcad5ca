/* app.c — the interactive state and app_update(), the only way it changes.
 * Events in, state and redraw flags out: no curses, no printing, no clock (time
 * arrives in the events). Every change to the problem recomputes the trace (an
 * edited cell only what it reaches, to the same bits) and records what moved,
 * so the screen can show the blast radius of an edit. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/help.h"
#include "io/figure.h"
#include "qkv/colour.h"
#include "qkv/buffer.h"
#include "qkv/describe.h"
#include "qkv/error.h"
#include "qkv/format.h"
#include "qkv/text.h"

#define HISTORY_BUDGET ((size_t)256 << 20) /* bytes of undo snapshots */
#define DEFAULT_STEP 0.1

static const double temperatures[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
#define TEMPERATURE_COUNT ((int)(sizeof temperatures / sizeof temperatures[0]))

/* Puts a sentence on the status line; error colours it as one. */
static void say(struct app *app, bool error, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(app->message, sizeof app->message, fmt, args);
	va_end(args);
	app->message_is_error = error;
}

/* The name of the grid behind a focus, as the screen writes it. */
const char *app_focus_name(enum qkv_grid focus)
{
	if ((int)focus >= 0 && focus < QKV_GRID_WEIGHTS)
		return qkv_grid_name((enum qkv_grid)focus);
	return focus == QKV_GRID_WEIGHTS ? "attention" : focus == QKV_GRID_OUTPUT ? "output"
	       : focus == QKV_GRID_CONCAT ? "concat" : focus == QKV_GRID_LAYER ? "layer output" : "?";
}

/* The problem input behind an input focus (the enums agree: app.h asserts it). */
static enum qkv_grid focus_input(enum qkv_grid focus)
{
	return (enum qkv_grid)focus;
}

/* True for the inputs the problem's form has (Q K V, or X and the W's). */
bool app_focus_is_input(const struct app *app, enum qkv_grid focus)
{
	/* The form's inputs from the table of matrices; W_O only where there are heads. */
	if ((int)focus < 0 || focus >= QKV_GRID_WEIGHTS || qkv_grid_info[focus].form != app->problem.form)
		return false;
	return focus != QKV_GRID_W_O || app->problem.h > 0;
}

/* The input as the screen edits it: the selected head's W_Q, W_K, W_V in a
 * multi-head problem, the problem's own otherwise. */
const struct qkv_matrix *app_input(const struct app *app, enum qkv_grid input)
{
	if (app->problem.h > 0)
		return qkv_problem_head_input((struct qkv_problem *)&app->problem, app->head, input);
	return qkv_problem_input_const(&app->problem, input);
}

/* The last stage of the walk: the output, or the layer output with heads. */
int app_last_stage(const struct app *app)
{
	return app->problem.h > 0 ? APP_STAGE_LAYER : QKV_STAGE_OUTPUT;
}

/* The input matrix behind an input focus; NULL for a computed grid. */
const struct qkv_matrix *app_focus_matrix(const struct app *app, enum qkv_grid focus)
{
	if (!app_focus_is_input(app, focus))
		return NULL;
	return app_input(app, focus_input(focus));
}

/* Rows and columns of the grid behind a focus. */
void app_focus_shape(const struct app *app, enum qkv_grid focus, int *rows, int *cols)
{
	const struct qkv_matrix *m = app_focus_matrix(app, focus);

	if (m != NULL) {
		*rows = m->rows;
		*cols = m->cols;
	} else if (focus == QKV_GRID_WEIGHTS) {
		*rows = app->trace.n;
		*cols = app->trace.n;
	} else if (focus == QKV_GRID_OUTPUT) {
		*rows = app->trace.n;
		*cols = app->trace.d_v;
	} else if (focus == QKV_GRID_CONCAT && app->heads.h > 0) {
		*rows = app->heads.concat.rows;
		*cols = app->heads.concat.cols;
	} else if (focus == QKV_GRID_LAYER && app->heads.h > 0) {
		*rows = app->heads.output.rows;
		*cols = app->heads.output.cols;
	} else {
		*rows = 0;
		*cols = 0;
	}
}

/* value, kept within low … high. */
static int clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

/* Keeps every cursor inside its grid after a change of shape. */
static void clamp_cursors(struct app *app)
{
	for (int f = 0; f < QKV_GRID_COUNT; f++) {
		int rows, cols;

		app_focus_shape(app, (enum qkv_grid)f, &rows, &cols);
		app->cursor[f].row = clamp(app->cursor[f].row, 0, rows > 0 ? rows - 1 : 0);
		app->cursor[f].col = clamp(app->cursor[f].col, 0, cols > 0 ? cols - 1 : 0);
	}
}

/* The first input of the problem's form: Q, or X. */
static enum qkv_grid first_input(const struct app *app)
{
	return app->problem.form == QKV_FORM_DIRECT ? QKV_GRID_Q : QKV_GRID_X;
}

/* The selected query: the attention cursor's row. */
int app_query(const struct app *app)
{
	if (app->focus == QKV_GRID_OUTPUT || app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_LAYER)
		return app->cursor[app->focus].row;
	if (app->focus == QKV_GRID_W_O)
		return app->cursor[QKV_GRID_LAYER].row;
	if (app->focus == QKV_GRID_WEIGHTS || app->focus == QKV_GRID_K || app->focus == QKV_GRID_V ||
	    app->focus == QKV_GRID_W_Q || app->focus == QKV_GRID_W_K || app->focus == QKV_GRID_W_V)
		return app->cursor[QKV_GRID_WEIGHTS].row;
	return app->cursor[app->focus].row;
}

/* The selected key: the attention cursor's column. */
int app_key(const struct app *app)
{
	if (app->focus == QKV_GRID_K || app->focus == QKV_GRID_V)
		return app->cursor[app->focus].row;
	return app->cursor[QKV_GRID_WEIGHTS].col;
}

/* The selected output column. */
int app_value_col(const struct app *app)
{
	if (app->focus == QKV_GRID_V)
		return app->cursor[QKV_GRID_V].col;
	return app->cursor[QKV_GRID_OUTPUT].col;
}

/* The first stage of the walk: the projections when there are any. */
static int first_stage(const struct app *app)
{
	return app->problem.form == QKV_FORM_PROJECTED ? QKV_STAGE_PROJECTIONS : QKV_STAGE_SCORES;
}

/* True when the stage is shown: every stage live, or up to the current one. */
bool app_stage_visible(const struct app *app, enum qkv_stage stage)
{
	if (stage == QKV_STAGE_PROJECTIONS && app->problem.form != QKV_FORM_PROJECTED)
		return false;
	return app->stage == APP_STAGE_LIVE || (int)stage <= app->stage;
}

/* The stage whose derivation the info line shows. */
enum qkv_stage app_derived_stage(const struct app *app)
{
	if (app->stage != APP_STAGE_LIVE)
		return (enum qkv_stage)app->stage;
	if (app->focus == QKV_GRID_CONCAT)
		return (enum qkv_stage)APP_STAGE_CONCAT;
	if (app->focus == QKV_GRID_LAYER || app->focus == QKV_GRID_W_O)
		return (enum qkv_stage)APP_STAGE_LAYER;
	if (app->focus == QKV_GRID_OUTPUT || app->focus == QKV_GRID_V || app->focus == QKV_GRID_W_V)
		return QKV_STAGE_OUTPUT;
	return QKV_STAGE_WEIGHTS;
}

/* The trace's matrix behind a grid. */
static const struct qkv_matrix *grid_matrix(const struct qkv_trace *t, enum qkv_grid grid)
{
	switch (grid) {
	case QKV_GRID_Q: return &t->q;
	case QKV_GRID_K: return &t->k;
	case QKV_GRID_V: return &t->v;
	case QKV_GRID_SCORES: return &t->scores;
	case QKV_GRID_SCALED: return &t->scaled;
	case QKV_GRID_WEIGHTS: return &t->weights;
	case QKV_GRID_OUTPUT:
	default: return &t->output;
	}
}

/* True for the n × n grids (scores, scaled, weights). */
static bool grid_is_attention(enum qkv_grid grid)
{
	return grid >= QKV_GRID_SCORES && grid <= QKV_GRID_WEIGHTS;
}

/* Grows buffer *p to at least need bytes (capacity in *capacity). */
static int reserve_bytes(unsigned char **p, size_t *capacity, size_t need)
{
	if (need > *capacity) {
		unsigned char *grown = realloc(*p, need);

		if (grown == NULL)
			return QKV_ENOMEM;
		*p = grown;
		*capacity = need;
	}
	return 0;
}

static int settle_trace(struct app *app, int rc, bool mark);
static bool marks_live(const struct app *app);
static void heads_reach_words(const struct app *app, char *buf, size_t size);
static void update_dirty(struct app *app);
static void say_undone(struct app *app, bool redo);

/* Sizes the blast-radius marks for the present trace and clears them. */
static int marks_reserve(struct app *app)
{
	size_t need = 1;

	for (int f = 0; f < QKV_GRID_COUNT; f++) {
		const struct qkv_matrix *m = app_focus_matrix(app, (enum qkv_grid)f);
		if (m != NULL && (size_t)m->rows * (size_t)m->cols > need)
			need = (size_t)m->rows * (size_t)m->cols;
	}
	if (reserve_bytes(&app->moved_inputs, &app->moved_inputs_capacity, need) != 0)
		return QKV_ENOMEM;
	memset(app->moved_inputs, 0, app->moved_inputs_capacity);
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		const struct qkv_matrix *m = grid_matrix(&app->trace, (enum qkv_grid)g);
		size_t cells = (size_t)m->rows * (size_t)m->cols;

		if (reserve_bytes(&app->moved[g], &app->moved_capacity[g], cells > 0 ? cells : 1) != 0)
			return QKV_ENOMEM;
		memset(app->moved[g], 0, app->moved_capacity[g]);
	}
	return 0;
}

/* Multi-head: room for the kept weights of every head. */
static int heads_reserve(struct app *app, int h)
{
	struct qkv_matrix *kept;

	if (h <= app->heads_capacity)
		return 0;
	kept = realloc(app->previous_head_weights, (size_t)h * sizeof *kept);
	if (kept == NULL)
		return QKV_ENOMEM;
	for (int i = app->heads_capacity; i < h; i++)
		qkv_matrix_init(&kept[i]);
	app->previous_head_weights = kept;
	app->heads_capacity = h;
	return 0;
}

/* Multi-head: keeps each head's weights, the concatenation and the layer output. */
static int keep_previous_heads(struct app *app)
{
	const struct qkv_heads_trace *t = &app->heads;
	int rc = heads_reserve(app, t->h);

	app->previous_heads_valid = false;
	for (int i = 0; rc == 0 && i < t->h; i++)
		rc = qkv_matrix_copy(&app->previous_head_weights[i], &t->head[i].weights);
	if (rc == 0)
		rc = qkv_matrix_copy(&app->previous_concat, &t->concat);
	if (rc == 0)
		rc = qkv_matrix_copy(&app->previous_layer, &t->output);
	app->previous_heads_valid = rc == 0 && t->h > 0;
	return rc;
}

/* Marks where b differs from a into flags (same shapes only; else nothing). */
static void mark_matrix(unsigned char *flags, const struct qkv_matrix *now,
			const struct qkv_matrix *before)
{
	size_t cells = (size_t)now->rows * (size_t)now->cols;

	if (before->rows != now->rows || before->cols != now->cols)
		return;
	for (size_t i = 0; i < cells; i++)
		flags[i] = now->values[i] != before->values[i];
}

/* Multi-head: sizes and clears the marks; with mark, marks what moved since kept. */
static int heads_marks(struct app *app, bool mark)
{
	const struct qkv_heads_trace *t = &app->heads;
	size_t nn = (size_t)t->n * (size_t)t->n;

	if (reserve_bytes(&app->moved_head_weights, &app->moved_head_capacity,
			  nn * (size_t)t->h + 1) != 0 ||
	    reserve_bytes(&app->moved_concat, &app->moved_concat_capacity,
			  (size_t)t->concat.rows * (size_t)t->concat.cols + 1) != 0 ||
	    reserve_bytes(&app->moved_layer, &app->moved_layer_capacity,
			  (size_t)t->output.rows * (size_t)t->output.cols + 1) != 0)
		return QKV_ENOMEM;
	memset(app->moved_head_weights, 0, app->moved_head_capacity);
	memset(app->moved_concat, 0, app->moved_concat_capacity);
	memset(app->moved_layer, 0, app->moved_layer_capacity);
	if (!mark || !app->previous_heads_valid)
		return 0;
	for (int i = 0; i < t->h && i < app->heads_capacity; i++)
		mark_matrix(app->moved_head_weights + nn * (size_t)i, &t->head[i].weights,
			    &app->previous_head_weights[i]);
	mark_matrix(app->moved_concat, &t->concat, &app->previous_concat);
	mark_matrix(app->moved_layer, &t->output, &app->previous_layer);
	return 0;
}

/* True when head's weight (query, key) moved in the last change and is still marked. */
bool app_moved_head_weight(const struct app *app, int head, int query, int key)
{
	size_t n = (size_t)app->heads.n;

	if (!marks_live(app) || head < 0 || head >= app->heads.h || app->moved_head_weights == NULL)
		return false;
	return app->moved_head_weights[n * n * (size_t)head + (size_t)query * n + (size_t)key] != 0;
}

/* True when the concatenation's cell moved in the last change and is still marked. */
bool app_moved_concat(const struct app *app, int row, int col)
{
	if (!marks_live(app) || app->moved_concat == NULL)
		return false;
	return app->moved_concat[(size_t)row * (size_t)app->heads.concat.cols + (size_t)col] != 0;
}

/* True when the layer output's cell moved in the last change and is still marked. */
bool app_moved_layer(const struct app *app, int row, int col)
{
	if (!marks_live(app) || app->moved_layer == NULL)
		return false;
	return app->moved_layer[(size_t)row * (size_t)app->heads.output.cols + (size_t)col] != 0;
}

/* Brings the kept trace up to this one where they differ, row `row` of S, S', A and
 * O or column `col` of O, with V and the statistics; QKV_ESHAPE when the shapes do
 * not match. */
static int keep_reach(struct app *app, int row, int col)
{
	const struct qkv_trace *t = &app->trace;
	static const enum qkv_grid rows_of[4] = { QKV_GRID_SCORES, QKV_GRID_SCALED, QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };

	for (int g = 0; g < 4; g++) {
		const struct qkv_matrix *now = grid_matrix(t, rows_of[g]);
		struct qkv_matrix *kept = &app->previous[rows_of[g]];

		if (kept->rows != now->rows || kept->cols != now->cols || row >= now->rows ||
		    (rows_of[g] == QKV_GRID_OUTPUT && col >= now->cols))
			return QKV_ESHAPE;
	}
	for (int g = 0; row >= 0 && g < 4; g++) {
		const struct qkv_matrix *now = grid_matrix(t, rows_of[g]);

		memcpy(qkv_matrix_row(&app->previous[rows_of[g]], row), qkv_matrix_row_const(now, row),
		       (size_t)now->cols * sizeof(double));
	}
	for (int i = 0; col >= 0 && i < t->output.rows; i++)
		qkv_matrix_set(&app->previous[QKV_GRID_OUTPUT], i, col, qkv_matrix_get(&t->output, i, col));
	if (qkv_matrix_copy(&app->previous[QKV_GRID_V], &t->v) != 0)
		return QKV_ENOMEM;
	memcpy(app->previous_rows, t->rows, (size_t)t->n * sizeof *t->rows);
	return 0;
}

/* Keeps the trace as it is now, to compare the next one with. Q and K as used are
 * kept only in the projected form (in the direct form they are the inputs); V
 * always, for the terms of the mix. */
static int keep_previous(struct app *app, int only_row, int only_col)
{
	const struct qkv_trace *t = &app->trace;
	size_t cells = (size_t)t->n * (size_t)t->n;
	int differs_row = app->previous_differs_row, differs_col = app->previous_differs_col;

	/* Whatever comes next may differ anywhere until the caller says otherwise. */
	app->previous_differs_row = -1;
	app->previous_differs_col = -1;

	/* A query's or a value's edit after another: the kept trace differs from this
	 * one in one row of S, S', A and O or one column of O at most, so that (and V
	 * and the statistics) is all there is to copy; 1,024 tokens would otherwise
	 * copy 24 MB per key press. */
	if ((only_row >= 0 || only_col >= 0) && app->previous_valid && app->previous_n == t->n &&
	    (differs_row >= 0 || differs_col >= 0) && keep_reach(app, differs_row, differs_col) == 0)
		return 0;
	app->previous_valid = false;
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		int rc;

		if (g <= QKV_GRID_K && app->problem.form != QKV_FORM_PROJECTED) {
			app->previous[g].rows = 0;
			continue;
		}
		rc = qkv_matrix_copy(&app->previous[g], grid_matrix(t, (enum qkv_grid)g));
		if (rc != 0)
			return rc;
	}
	if (reserve_bytes(&app->previous_masked, &app->previous_masked_capacity, cells > 0 ? cells : 1) != 0)
		return QKV_ENOMEM;
	if (cells > 0)
		memcpy(app->previous_masked, t->masked, cells);
	if (t->n > app->previous_rows_capacity) {
		struct qkv_row_stats *rows = realloc(app->previous_rows, (size_t)t->n * sizeof *rows);

		if (rows == NULL)
			return QKV_ENOMEM;
		app->previous_rows = rows;
		app->previous_rows_capacity = t->n;
	}
	if (t->n > 0)
		memcpy(app->previous_rows, t->rows, (size_t)t->n * sizeof *t->rows);
	app->previous_n = t->n;
	app->previous_valid = t->n > 0;
	return 0;
}

/* keep_previous for a trace about to be replaced whole (a job's): the grids are
 * exchanged with the kept ones rather than copied, so the old trace leaves with
 * the kept trace's storage. */
static int keep_previous_taking(struct app *app, struct qkv_trace *old)
{
	size_t cells = (size_t)old->n * (size_t)old->n;

	app->previous_differs_row = -1;
	app->previous_differs_col = -1;
	app->previous_valid = false;
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		struct qkv_matrix *from = (struct qkv_matrix *)grid_matrix(old, (enum qkv_grid)g), kept;

		if (g <= QKV_GRID_K && app->problem.form != QKV_FORM_PROJECTED) {
			app->previous[g].rows = 0;
			continue;
		}
		kept = app->previous[g];
		app->previous[g] = *from;
		*from = kept;
	}
	if (reserve_bytes(&app->previous_masked, &app->previous_masked_capacity, cells > 0 ? cells : 1) != 0)
		return QKV_ENOMEM;
	if (cells > 0)
		memcpy(app->previous_masked, old->masked, cells);
	if (old->n > app->previous_rows_capacity) {
		struct qkv_row_stats *rows = realloc(app->previous_rows, (size_t)old->n * sizeof *rows);

		if (rows == NULL)
			return QKV_ENOMEM;
		app->previous_rows = rows;
		app->previous_rows_capacity = old->n;
	}
	if (old->n > 0)
		memcpy(app->previous_rows, old->rows, (size_t)old->n * sizeof *old->rows);
	app->previous_n = old->n;
	app->previous_valid = old->n > 0;
	return 0;
}

/* Marks every cell of the trace that differs from the kept one (same shapes only). */
static void mark_moved(struct app *app, int only_row, int only_col)
{
	const struct qkv_trace *t = &app->trace;
	bool same_n = app->previous_valid && app->previous_n == t->n;

	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		const struct qkv_matrix *now = grid_matrix(t, (enum qkv_grid)g), *before = &app->previous[g];
		size_t cells = (size_t)now->rows * (size_t)now->cols, first = 0;

		if (!same_n || before->rows != now->rows || before->cols != now->cols)
			continue;
		/* A query's edit rewrote only its row of S, S', A and O, a value's edit only
		 * a column of O; the rest is the same trace, bit for bit, and stays
		 * unmarked (marks_reserve cleared it). */
		if (only_row >= 0 && g >= QKV_GRID_SCORES) {
			first = (size_t)only_row * (size_t)now->cols;
			cells = first + (size_t)now->cols;
		}
		if (only_col >= 0 && g >= QKV_GRID_SCORES) {
			for (int i = 0; g == QKV_GRID_OUTPUT && i < now->rows; i++)
				app->moved[g][(size_t)i * (size_t)now->cols + (size_t)only_col] =
					qkv_matrix_get(now, i, only_col) != qkv_matrix_get(before, i, only_col);
			continue;
		}
		/* Local pointers: the byte stores could alias the app's fields otherwise,
		 * and a 1,024-token trace is millions of cells. */
		{
			const double *restrict after_v = now->values, *restrict before_v = before->values;
			const unsigned char *restrict masked = t->masked, *restrict was = app->previous_masked;
			unsigned char *restrict out = app->moved[g];

			if (grid_is_attention((enum qkv_grid)g))
				for (size_t i = first; i < cells; i++)
					out[i] = (unsigned char)(((masked[i] != 0) != (was[i] != 0)) |
								 (masked[i] == 0 && after_v[i] != before_v[i]));
			else
				for (size_t i = first; i < cells; i++)
					out[i] = after_v[i] != before_v[i];
		}
	}
}

/* Recomputes the trace; marks the cells that moved (when the shape is unchanged)
 * so the class sees how far a change reaches. When only the cell (input, row,
 * col) changed (row >= 0), only what it reaches is recomputed, to the same bits
 * as the whole trace. */
static int recompute_after(struct app *app, bool mark, enum qkv_grid input, int row, int col)
{
	/* A cell of Q (given directly, softmax by rows) moves its query's row alone; a
	 * cell of V (given directly) one column of O. */
	bool direct = app->problem.form == QKV_FORM_DIRECT;
	int only_row = row >= 0 && input == QKV_GRID_Q && direct &&
				       app->problem.wrong != QKV_WRONG_COLUMN_SOFTMAX ? row : -1;
	int only_col = row >= 0 && input == QKV_GRID_V && direct ? col : -1;
	int rc = mark ? keep_previous(app, only_row, only_col) : 0;

	/* Unless kept just now, the kept trace may differ from the new one anywhere. */
	app->previous_differs_row = mark && rc == 0 ? only_row : -1;
	app->previous_differs_col = mark && rc == 0 ? only_col : -1;
	if (rc == 0 && app->problem.h > 0) {
		/* Every head, then the selected head's trace again as the app's own, so the
		 * single-head panels, derivations and marks show that head. */
		struct qkv_problem view;

		if (mark && app->heads.h > 0)
			rc = keep_previous_heads(app);
		if (rc == 0)
			rc = qkv_heads_attention(&app->problem, &app->heads);
		if (app->head >= app->problem.h)
			app->head = app->problem.h - 1;
		if (rc == 0) {
			qkv_problem_head_view(&app->problem, app->head, &view);
			rc = qkv_attention(&view, &app->trace);
		}
		if (rc == 0)
			rc = heads_marks(app, mark);
		return settle_trace(app, rc, mark);
	}
	if (rc == 0)
		rc = row >= 0 ? qkv_attention_update(&app->problem, &app->trace, input, row, col)
			      : qkv_attention(&app->problem, &app->trace);
	return settle_trace(app, rc, mark);
}

/* After a new trace (rc its code): sizes the marks, keeps the cursors inside, and
 * marks what moved against the kept trace (keep_previous), where it may differ. */
static int settle_trace(struct app *app, int rc, bool mark)
{
	if (rc == 0)
		rc = marks_reserve(app);
	if (rc != 0) {
		say(app, true, "cannot compute: %s", qkv_error_string(rc));
		return rc;
	}
	clamp_cursors(app);
	if (!mark)
		return 0;
	mark_moved(app, app->previous_differs_row, app->previous_differs_col);
	app->mark_until_ms = app->now_ms + APP_MARK_MS;
	return 0;
}

/* The whole trace again (marking what moved when mark). */
static int recompute(struct app *app, bool mark)
{
	return recompute_after(app, mark, QKV_GRID_Q, -1, -1);
}

/* True while the last change's marks are shown. */
static bool marks_live(const struct app *app)
{
	return app->now_ms < app->mark_until_ms;
}

/* True when the cell of grid moved in the last change and is still marked. */
bool app_moved(const struct app *app, enum qkv_grid grid, int row, int col)
{
	const struct qkv_matrix *m;

	if (!marks_live(app) || (int)grid < 0 || grid >= QKV_GRID_COUNT)
		return false;
	m = grid_matrix(&app->trace, grid);
	return row >= 0 && col >= 0 && row < m->rows && col < m->cols &&
	       app->moved[grid][(size_t)row * (size_t)m->cols + (size_t)col];
}

/* True when the mix term a_qk · v_kc moved and is still marked. */
bool app_moved_mix(const struct app *app, int query, int key, int col)
{
	const struct qkv_trace *t = &app->trace;
	const struct qkv_matrix *w = &app->previous[QKV_GRID_WEIGHTS], *v = &app->previous[QKV_GRID_V];
	size_t cell;
	bool masked, was;

	if (!marks_live(app) || !app->previous_valid || app->previous_n != t->n || w->rows != t->n ||
	    w->cols != t->n || v->rows != t->v.rows || v->cols != t->v.cols || query < 0 || query >= t->n ||
	    key < 0 || key >= t->n || col < 0 || col >= t->d_v)
		return false;
	cell = (size_t)query * (size_t)t->n + (size_t)key;
	masked = t->masked[cell] != 0;
	was = app->previous_masked[cell] != 0;
	return masked != was || (!masked && qkv_trace_mix(t, query, key, col) !=
						 qkv_matrix_get(w, query, key) * qkv_matrix_get(v, key, col));
}

/* True when a figure of the readout's row moved and is still marked. */
bool app_moved_readout(const struct app *app, int row)
{
	const struct qkv_row_stats *now, *was;

	if (!marks_live(app) || !app->previous_valid || app->previous_n != app->trace.n || row < 0 ||
	    row >= app->trace.n)
		return false;
	now = &app->trace.rows[row];
	was = &app->previous_rows[row];
	return now->max_weight != was->max_weight || now->entropy != was->entropy ||
	       now->live_keys != was->live_keys || now->effective_tokens != was->effective_tokens ||
	       now->jacobian_norm != was->jacobian_norm;
}

/* True when the score of (query, key) moved and is still marked. */
bool app_moved_score(const struct app *app, int query, int key)
{
	return app_moved(app, QKV_GRID_SCORES, query, key);
}

/* True when the output cell moved and is still marked. */
bool app_moved_output(const struct app *app, int query, int col)
{
	return app_moved(app, QKV_GRID_OUTPUT, query, col);
}

/* True when the input cell was the one edited and is still marked. */
bool app_moved_input(const struct app *app, enum qkv_grid input, int row, int col)
{
	const struct qkv_matrix *m = app_input(app, input);

	return marks_live(app) && m != NULL && input == app->moved_input && row < m->rows && col < m->cols &&
	       app->moved_inputs[(size_t)row * (size_t)m->cols + (size_t)col];
}

/* Where the cursor is, for undo to put it back. */
static struct history_place here(const struct app *app)
{
	struct history_place place = { (int)app->focus, app->cursor[app->focus].row,
				       app->cursor[app->focus].col, app->head };
	return place;
}

/* --- long computations ------------------------------------------------------------ */

/* Multiply-adds above which a computation runs as a job beside the interface
 * rather than between two keys: some 20–50 ms of arithmetic. */
#define JOB_COST 5e7
enum { REPLAY_REDO, REPLAY_UNDO };

/* Multiply-adds of a whole trace: the projections, Q Kᵀ and A V. */
static double trace_cost(const struct qkv_problem *p)
{
	if (p->h > 0)
		return qkv_heads_cost(p);
	double n = p->n, d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p);
	double cost = n * n * (d_k + d_v);

	if (p->form == QKV_FORM_PROJECTED)
		cost += n * qkv_problem_d_model(p) * (2 * d_k + d_v);
	return cost;
}

/* Multiply-adds of a sweep: each trial of each d_k = 1, 2, 4, … (2 d_k_max in all). */
static double sweep_cost(int tokens, int trials, int d_k_max)
{
	return (double)trials * tokens * tokens * 2.0 * d_k_max;
}

/* True while a computation runs beside the interface. */
bool app_busy(const struct app *app)
{
	return app->job != NULL;
}

/* The progress line; once a key has been refused, it says the keys wait. */
static void say_progress(struct app *app)
{
	say(app, app->job_refused, "%s %s%s… %.1f s · Esc cancels", app->job_refused ? "still computing" : "computing",
	    app->job_what, app->job_refused ? ", keys wait" : "", (double)(app->now_ms - app->job_started_ms) / 1000.0);
}

/* Bytes of a problem's matrices: what a copy of it moves. */
static double matrix_bytes(const struct qkv_problem *p)
{
	double bytes = 0;

	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const struct qkv_matrix *m = qkv_problem_input_const(p, (enum qkv_grid)i);

		if (m != NULL)
			bytes += (double)m->rows * m->cols * sizeof(double);
	}
	for (int i = 0; i < p->h; i++)
		bytes += ((double)p->heads[i].w_q.rows * p->heads[i].w_q.cols * 2 +
			  (double)p->heads[i].w_v.rows * p->heads[i].w_v.cols) * sizeof(double);
	return bytes;
}

/* Bytes above which a problem is not copied between two keys (some 10 ms). */
#define JOB_BYTES (16.0 * 1024 * 1024)

/* A problem whose changes run as jobs: its copy or its trace takes long. */
static bool problem_is_long(const struct qkv_problem *p)
{
	return trace_cost(p) > JOB_COST / 2 || matrix_bytes(p) > JOB_BYTES;
}

/* What a trace job computes, for the progress line: the trace of a problem of n
 * tokens, d_k, d_v and d_model like p's. */
static void job_words_of(struct app *app, const struct qkv_problem *p, int n, int d_k, int d_v, int d_model)
{
	if (p->h > 0)
		snprintf(app->job_what, sizeof app->job_what, "the %d heads of %d tokens, d_model %d", p->h, n, d_model);
	else
		snprintf(app->job_what, sizeof app->job_what, "the trace of %d tokens, d_k %d, d_v %d%s", n, d_k, d_v,
			 p->form == QKV_FORM_PROJECTED ? " through the projections" : "");
}

static void job_words(struct app *app, const struct qkv_problem *p)
{
	job_words_of(app, p, p->n, qkv_problem_d_k(p), qkv_problem_d_v(p), qkv_problem_d_model(p));
}

static int change_identity(struct qkv_problem *p, int tie, const struct job_change_context *c);
static int change_insert_token(struct qkv_problem *p, int after, const struct job_change_context *c);
static int change_remove_token(struct qkv_problem *p, int at, const struct job_change_context *c);
static int change_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c);
static int change_draw_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c);
static int change_d_v(struct qkv_problem *p, int d_v, const struct job_change_context *c);
static int change_d_model(struct qkv_problem *p, int d_model, const struct job_change_context *c);
static int change_mask(struct qkv_problem *p, int mask, const struct job_change_context *c);
static int change_wrong(struct qkv_problem *p, int wrong, const struct job_change_context *c);
static void after_change(struct app *app, job_change change, int argument);
static void describe_change(struct app *app, enum qkv_grid focus, int row, int col, double before,
			    double after);
static int keep_previous_heads(struct app *app);
static int take_figure(struct app *app, struct job *job);
static int heads_marks(struct app *app, bool mark);

/* A trace job with the storage of an earlier job's copy to copy into, or NULL. */
static struct job *new_trace_job(struct app *app)
{
	struct job *job = job_new(JOB_TRACE);

	if (job != NULL) {
		job->problem = app->spare; /* storage of an earlier job, reused */
		qkv_problem_init(&app->spare);
		job->head = app->head;
	}
	return job;
}

static void run_job(struct app *app, struct job *job)
{
	/* "Modified" and the marks of what moved are found beside the interface too. */
	job_compare_with(job, &app->saved);
	job_mark_against(job, &app->trace, app->problem.form != QKV_FORM_PROJECTED);
	app->job = job;
	app->job_started_ms = app->now_ms;
	app->job_refused = false;
	job_start(job);
	say_progress(app);
}

/* Computes the trace of app->problem (just changed by a history step or a new
 * cell edit) as a job, and meanwhile steps the history back so the problem matches
 * the trace on the screen; replay is the step that makes the job's problem current
 * again. The job copies that problem on its thread from what the step back left:
 * the entry's snapshot, or the app's problem and the entry's cell. Returns false
 * when the job cannot be made (then nothing has moved). */
static bool start_trace_job(struct app *app, int replay, bool new_change, const char *done,
			    const struct history_place *place)
{
	struct job *job = new_trace_job(app);
	struct history_place ignored;
	const struct history_entry *e;

	if (job == NULL)
		return false;
	if (replay == REPLAY_REDO)
		history_undo(&app->history, &app->problem, &ignored);
	else
		history_redo(&app->history, &app->problem, &ignored);
	e = &app->history.entries[replay == REPLAY_REDO ? app->history.position : app->history.position - 1];
	if (e->is_cell) {
		job_borrow(job, &app->problem);
		job->cell_input = (int)e->input;
		job->cell_head = e->place.head;
		job->cell_row = e->row;
		job->cell_col = e->col;
		job->cell_value = e->value;
	} else {
		job_borrow(job, &e->snapshot);
	}
	if (place != NULL && place->head >= 0)
		job->head = place->head; /* the class sees the head the change was in */
	app->job_is_change = false;
	app->job_change = NULL; /* change_problem names a change whose trace this is */
	app->job_replay = replay;
	app->job_new_change = new_change;
	app->job_has_place = place != NULL;
	app->job_has_cell = false;
	if (place != NULL)
		app->job_place = *place;
	snprintf(app->job_message, sizeof app->job_message, "%s", done != NULL ? done : "");
	job_words(app, e->is_cell ? &app->problem : &e->snapshot);
	run_job(app, job);
	return true;
}

/* A change of the whole problem made by a job: the job copies the app's problem
 * (lent unchanged until the job is done or dropped), changes and checks the copy
 * and computes its trace; take_job then keeps the app's problem as the undo step
 * and takes the copy. Returns false when the job cannot be made. */
static bool start_change_job(struct app *app, job_change change, int argument, const char *done,
			     struct history_place place)
{
	struct job *job = new_trace_job(app);

	if (job == NULL)
		return false;
	job_borrow(job, &app->problem);
	job->change = change;
	job->argument = argument;
	job->column_seed = app->column_seed;
	for (int i = 0; i < 3; i++)
		if (qkv_matrix_copy(&job->untied[i], &app->untied[i]) != 0) {
			job_abandon(job);
			return false;
		}
	app->job_is_change = true;
	app->job_change = change;
	app->job_argument = argument;
	app->job_change_place = place;
	app->job_new_change = true;
	app->job_has_place = false;
	app->job_has_cell = false;
	snprintf(app->job_message, sizeof app->job_message, "%s", done != NULL ? done : "");
	{
		/* The progress line names the problem the change makes. */
		const struct qkv_problem *p = &app->problem;
		int n = p->n, d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p), d_model = qkv_problem_d_model(p);

		if (change == change_insert_token)
			n++;
		else if (change == change_remove_token)
			n--;
		else if (change == change_d_k || change == change_draw_d_k)
			d_k = argument;
		else if (change == change_d_v)
			d_v = argument;
		else if (change == change_d_model)
			d_model = argument;
		else if (change == change_identity && argument == 1)
			d_k = d_v = d_model;
		else if (change == change_identity)
			d_k = app->untied[0].cols, d_v = app->untied[2].cols;
		job_words_of(app, p, n, d_k, d_v, d_model);
	}
	run_job(app, job);
	return true;
}


/* A job that has ended: its trace (or sweep) becomes the app's. */
static int take_job(struct app *app)
{
	struct job *job = app->job;
	struct history_place place;
	struct qkv_trace swap;
	int rc = job->result;

	app->job = NULL;
	if (job->kind == JOB_FIGURE)
		return take_figure(app, job);
	if (job->kind == JOB_SWEEP) {
		if (rc < 0) {
			app->sweep_tokens = app->job_tokens;
			app->sweep_trials = app->job_trials;
			say(app, true, "the sweep failed: %s", qkv_error_string(rc));
		} else {
			memcpy(app->sweep, job->sweep, sizeof app->sweep);
			app->sweep_count = rc;
			app->message[0] = '\0';
		}
		job_abandon(job);
		return REDRAW_OVERLAY | REDRAW_STATUS;
	}
	if (rc != 0 && app->job_is_change && job->change_failed) {
		say(app, true, "%s", rc == QKV_ELIMIT ? "that is above qkv's limits (1024 tokens, 4096 columns)"
						      : qkv_error_string(rc));
		job_abandon(job);
		return REDRAW_ALL;
	}
	if (rc != 0) {
		if (app->job_new_change && !app->job_is_change)
			history_drop_redo(&app->history);
		say(app, true, "cannot compute: %s; nothing changed", qkv_error_string(rc));
		job_abandon(job);
		return REDRAW_ALL;
	}
	if (app->job_is_change) {
		/* The app's problem becomes the undo step, the job's copy the problem. */
		if (history_push_moved(&app->history, &app->problem, app->job_change_place) != 0) {
			say(app, true, "out of memory: the change was not made");
			job_abandon(job);
			return REDRAW_ALL;
		}
		app->problem = job->problem;
		if (app->job_change == change_identity && app->job_argument == 1)
			for (int i = 0; i < 3; i++) {
				struct qkv_matrix kept = app->untied[i];

				app->untied[i] = job->untied[i];
				job->untied[i] = kept;
			}
	} else {
		if (app->job_replay == REPLAY_REDO)
			history_redo(&app->history, &app->problem, &place);
		else
			history_undo(&app->history, &app->problem, &place);
		/* The job's copy is kept, for the next copy to reuse its storage; the
		 * one kept before leaves with the job, freed beside the interface. */
		struct qkv_problem old = app->spare;

		app->spare = job->problem;
		job->problem = old;
	}
	if (app->job_is_change)
		qkv_problem_init(&job->problem);
	/* The old trace is kept as the one before (its storage exchanged, not copied). */
	rc = keep_previous_taking(app, &app->trace);
	if (rc == 0 && app->problem.h > 0) {
		struct qkv_heads_trace heads = app->heads;

		if (app->heads.h > 0)
			rc = keep_previous_heads(app);
		app->heads = job->heads;
		job->heads = heads;
		app->head = job->head;
	}
	swap = app->trace;
	app->trace = job->trace;
	job->trace = swap;
	app->dirty = !job->equal_saved;
	if (rc == 0 && app->problem.h > 0)
		rc = heads_marks(app, true);
	/* What moved was found by the job (the same comparison as mark_moved's). */
	if (settle_trace(app, rc, false) == 0 && rc == 0) {
		for (int g = 0; g < QKV_GRID_COUNT && job->marked; g++) {
			unsigned char *moved = app->moved[g];

			app->moved[g] = job->moved[g];
			app->moved_capacity[g] = job->moved_cells[g];
			job->moved[g] = moved;
		}
		if (!job->marked)
			mark_moved(app, -1, -1);
		app->mark_until_ms = app->now_ms + APP_MARK_MS;
	}
	job_abandon(job);
	if (app->job_has_place && app->job_place.focus >= 0 && app->job_place.focus < QKV_GRID_COUNT &&
	    (app_focus_is_input(app, (enum qkv_grid)app->job_place.focus) ||
	     app->job_place.focus >= QKV_GRID_WEIGHTS)) {
		app->focus = (enum qkv_grid)app->job_place.focus;
		app->cursor[app->focus].row = app->job_place.row;
		app->cursor[app->focus].col = app->job_place.col;
		clamp_cursors(app);
	}
	if (rc == 0 && app->job_has_cell) {
		const struct qkv_matrix *m = app_focus_matrix(app, (enum qkv_grid)app->job_cell.focus);

		app->moved_input = focus_input((enum qkv_grid)app->job_cell.focus);
		if (m != NULL && app->job_cell.row < m->rows && app->job_cell.col < m->cols)
			app->moved_inputs[(size_t)app->job_cell.row * (size_t)m->cols + (size_t)app->job_cell.col] = 1;
	}
	if (rc == 0 && app->job_has_place) {
		say_undone(app, app->job_replay == REPLAY_REDO);
	} else if (rc == 0 && app->job_has_cell && app->history.position > 0 &&
		   app->history.entries[app->history.position - 1].is_cell) {
		/* The edit's words again, now that what it reached is known: the undo
		 * step holds the value before. */
		const struct qkv_matrix *m = app_focus_matrix(app, (enum qkv_grid)app->job_cell.focus);

		if (m != NULL && app->job_cell.row < m->rows && app->job_cell.col < m->cols)
			describe_change(app, (enum qkv_grid)app->job_cell.focus, app->job_cell.row, app->job_cell.col,
					app->history.entries[app->history.position - 1].value,
					qkv_matrix_get(m, app->job_cell.row, app->job_cell.col));
	} else if (rc == 0) {
		say(app, false, "%s", app->job_message);
		if (app->job_change != NULL)
			after_change(app, app->job_change, app->job_argument);
	}
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* Esc: the job is dropped and everything stays as it was before it. */
static int cancel_job(struct app *app)
{
	if (app->job->kind == JOB_FIGURE) {
		say(app, false, "cancelled: %s was not written", app->job->path);
		job_abandon(app->job);
		app->job = NULL;
		return REDRAW_STATUS;
	}
	if (app->job->kind == JOB_SWEEP) {
		app->sweep_tokens = app->job_tokens;
		app->sweep_trials = app->job_trials;
	} else if (app->job_new_change && !app->job_is_change) {
		history_drop_redo(&app->history); /* the cell edit's entry (a change job has none yet) */
	}
	job_abandon(app->job);
	app->job = NULL;
	say(app, false, "cancelled: %s was not computed, everything stays as it was", app->job_what);
	return REDRAW_ALL;
}

/* Events while a job runs: ticks watch it, Esc and Ctrl-C cancel it, other keys
 * and the mouse wait. Returns -1 for events handled as ever (resizes). */
static int job_event(struct app *app, const struct event *event)
{
	switch (event->type) {
	case EVENT_TICK:
		if (job_done(app->job))
			return take_job(app);
		say_progress(app);
		return REDRAW_STATUS;
	case EVENT_CLICK:
	case EVENT_WHEEL:
		return REDRAW_NONE;
	case EVENT_KEY:
		if (!event->pasted && (event->key == APP_KEY_ESCAPE || event->key == APP_KEY_CTRL_C))
			return cancel_job(app);
		app->job_refused = true;
		say_progress(app);
		return REDRAW_STATUS;
	case EVENT_RESIZE:
	default:
		return -1; /* a resize and the answers about files are taken as always */
	}
}

static void ask(struct app *app, enum app_request_type type, const char *path, int why);
static int export_to(struct app *app, const char *path);

/* Why the app asked: what an answer is for. */
enum {
	LOOK_DISK,        /* the file as read: its time and size */
	LOOK_BEFORE_SAVE, /* w: has it changed on disk since? */
	LOOK_SAVE_AS,     /* a typed name: a folder, a file to overwrite, or free? */
	REMOVE_DECLINED,  /* n to the recovery copy: say whether it went */
	REMOVE_SAVED,     /* the recovery copy after a save: silently */
};

/* Starts the app on p with its trace computed here. */
int app_init(struct app *app, struct qkv_problem *p, const char *path, const struct app_options *options)
{
	return app_init_traced(app, p, NULL, path, options);
}

/* True when p's trace is long enough to be a job beside the interface. */
bool app_trace_is_long(const struct qkv_problem *p)
{
	return p->h == 0 && trace_cost(p) > JOB_COST; /* a multi-head start is bounded by main.c */
}

/* Starts the app on p (taken over), its trace computed already or here. */
int app_init_traced(struct app *app, struct qkv_problem *p, struct qkv_trace *trace, const char *path,
		    const struct app_options *options)
{
	static const struct app_options defaults;
	const struct app_options *o = options != NULL ? options : &defaults;
	int rc;

	memset(app, 0, sizeof *app);
	app->problem = *p;
	qkv_problem_init(p);
	qkv_problem_init(&app->saved);
	app->column_seed = 1;
	qkv_trace_init(&app->trace);
	qkv_heads_trace_init(&app->heads);
	qkv_matrix_init(&app->previous_concat);
	qkv_matrix_init(&app->previous_layer);
	for (int g = 0; g < QKV_GRID_COUNT; g++)
		qkv_matrix_init(&app->previous[g]);
	qkv_problem_init(&app->recovered);
	qkv_problem_init(&app->spare);
	history_init(&app->history, HISTORY_BUDGET);
	for (int i = 0; i < APP_PROJECTIONS; i++)
		qkv_matrix_init(&app->untied[i]);
	app->stage = APP_STAGE_LIVE;
	app->step = DEFAULT_STEP;
	app->pace_s = o->pace_s > 0 ? o->pace_s : APP_PACE_S;
	app->palette_count = o->palette_count > 0 ? o->palette_count : 1;
	app->palette = o->palette >= 0 && o->palette < app->palette_count ? o->palette : 0;
	app->projector = o->projector;
	app->clock = o->clock;
	app->clock_context = o->clock_context;
	app->show_stats = true;
	app->sweep_tokens = QKV_SWEEP_TOKENS;
	app->sweep_trials = QKV_SWEEP_TRIALS;
	app->sweep_dk_max = QKV_SWEEP_DK_MAX;
	app->sweep_seed = QKV_SWEEP_SEED;
	app->cost_last_n = APP_COST_LAST_N;
	app->previous_differs_row = -1;
	app->previous_differs_col = -1;
	app->focus = first_input(app);
	if (path != NULL) {
		app->path = strdup(path);
		if (app->path == NULL)
			return QKV_ENOMEM;
	}
	if (app->problem.notes != NULL)
		say(app, false, "%s", app->problem.notes);
	if (o->message != NULL)
		say(app, false, "%s", o->message);
	if (qkv_problem_copy(&app->saved, &app->problem) != 0)
		return QKV_ENOMEM;
	if (path != NULL)
		ask(app, APP_REQUEST_LOOK, path, LOOK_DISK);
	if (trace != NULL) {
		struct qkv_trace swap = app->trace;

		app->trace = *trace;
		*trace = swap;
		rc = settle_trace(app, 0, false);
	} else {
		rc = recompute(app, false);
	}
	if (rc == 0 && o->train != NULL)
		rc = app_learning_open(app, o->train); /* qkv --train TASK */
	return rc;
}

/* Asks whether to open the recovery copy named where (holding recovered). */
int app_offer_recovery(struct app *app, struct qkv_problem *recovered, const char *where)
{
	char *name = strdup(where);

	qkv_problem_fini(&app->recovered);
	app->recovered = *recovered;
	qkv_problem_init(recovered);
	if (name == NULL)
		return QKV_ENOMEM;
	free(app->recovery);
	app->recovery = name;
	app->prompt = PROMPT_RECOVER;
	return 0;
}

/* A recovery copy found and not asked for: where it is and how to open it. */
void app_recovery_kept(struct app *app, const char *where)
{
	say(app, false, "Unsaved changes from an earlier session are kept in %s: qkv --recover %s "
	    "offers them", where, app->path != NULL ? app->path : "FILE");
}

/* The recovery copy found does not read: says so (why: the loader's sentence). */
void app_recovery_unreadable(struct app *app, const char *why)
{
	say(app, true, "a recovery copy does not read: %.200s", why);
}

/* Frees everything the app owns, the request's path included. */
void app_fini(struct app *app)
{
	job_abandon(app->job); /* first: the job may still be reading the problem or the history */
	app->job = NULL;
	free(app->request.path);
	free(app->request.bytes);
	qkv_problem_fini(&app->problem);
	qkv_problem_fini(&app->saved);
	qkv_trace_fini(&app->trace);
	qkv_heads_trace_fini(&app->heads);
	for (int i = 0; i < app->heads_capacity; i++)
		qkv_matrix_fini(&app->previous_head_weights[i]);
	free(app->previous_head_weights);
	qkv_matrix_fini(&app->previous_concat);
	qkv_matrix_fini(&app->previous_layer);
	free(app->moved_head_weights);
	free(app->moved_concat);
	free(app->moved_layer);
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		qkv_matrix_fini(&app->previous[g]);
		free(app->moved[g]);
	}
	free(app->previous_masked);
	free(app->previous_rows);
	qkv_problem_fini(&app->recovered);
	qkv_problem_fini(&app->spare);
	free(app->recovery);
	history_fini(&app->history);
	app_learning_free(app);
	for (int i = 0; i < APP_PROJECTIONS; i++)
		qkv_matrix_fini(&app->untied[i]);
	if (app->cost != NULL) {
		qkv_cost_fini(app->cost);
		free(app->cost);
	}
	free(app->moved_inputs);
	free(app->path);
	memset(app, 0, sizeof *app);
}

/* --- changes to the problem ---------------------------------------------------- */

/* --- the blast radius in words --------------------------------------------------- */

#define NAMES_MAX 4 /* longer lists of rows or columns are counted */

/* True when any of count bytes is not 0 (an OR over the range, which vectorises). */
static bool any_set(const unsigned char *bytes, size_t count)
{
	unsigned char any = 0;

	for (size_t i = 0; i < count; i++)
		any |= bytes[i];
	return any != 0;
}


/* What a grid is called in the sentence, and how its rows and columns are named. */
static const char *const grid_nouns[QKV_GRID_COUNT] = {
	"Q", "K", "V", "score", "scaled score", "weights", "output",
};

static const char *const grid_symbols[QKV_GRID_COUNT] = { "Q", "K", "V", "S", "S'", "A", "O" };

/* True when the cell of grid holds a value (an attention cell that is not masked). */
static bool grid_live(const struct app *app, enum qkv_grid grid, int row, int col)
{
	return !grid_is_attention(grid) || !qkv_trace_is_masked(&app->trace, row, col);
}

/* True when the cell of grid moved in the last change. */
static bool cell_moved_now(const struct app *app, enum qkv_grid grid, int row, int col)
{
	const struct qkv_matrix *m = grid_matrix(&app->trace, grid);

	return app->moved[grid][(size_t)row * (size_t)m->cols + (size_t)col] != 0;
}

/* The name of row i (a token) or column i (a token for the attention grids, d1… else). */
static void index_name(const struct app *app, enum qkv_grid grid, bool column, int i, char *buf, size_t size)
{
	if (!column || grid_is_attention(grid))
		snprintf(buf, size, "%s", app->problem.tokens[i]);
	else
		snprintf(buf, size, "d%d", i + 1);
}

/* "t1", "t1 and t3", "t1, t2 and t4", or "5 rows" for the indices set in chosen. */
static void add_names(struct qkv_buffer *w, const struct app *app, enum qkv_grid grid, bool column,
		      const unsigned char *chosen, int count, const char *plural)
{
	int total = 0, shown = 0;
	char name[QKV_MAX_LABEL + 16];

	for (int i = 0; i < count; i++)
		total += chosen[i] != 0;
	if (total > NAMES_MAX) {
		qkv_buffer_put(w, "%d %s", total, plural);
		return;
	}
	for (int i = 0; i < count; i++) {
		if (!chosen[i])
			continue;
		index_name(app, grid, column, i, name, sizeof name);
		qkv_buffer_put(w, "%s%s", shown == 0 ? "" : shown + 1 == total ? " and " : ", ", name);
		shown++;
	}
}

/* Describes the moved cells of one grid: "score row t1", "all of weights rows t1
 * and t3", "score column t2 in rows t1 and t3", "every output", "4 of 9 scores".
 * Returns false when nothing in the grid moved. `all_of` asks for "all of" before
 * whole rows (the weights, where softmax moves a whole row at once). */
static bool describe_grid(struct qkv_buffer *w, const struct app *app, enum qkv_grid grid, bool all_of)
{
	const struct qkv_matrix *m = grid_matrix(&app->trace, grid);
	int rows = m->rows, cols = m->cols, moved = 0, live = 0, moved_rows = 0, moved_cols = 0;
	unsigned char row_any[QKV_MAX_TOKENS], row_full[QKV_MAX_TOKENS], col_any[QKV_MAX_DIM > QKV_MAX_TOKENS ? QKV_MAX_DIM : QKV_MAX_TOKENS],
		col_full[QKV_MAX_DIM > QKV_MAX_TOKENS ? QKV_MAX_DIM : QKV_MAX_TOKENS];
	bool rows_whole = true, cols_whole = true, cross = true;
	const char *noun = grid_nouns[grid];
	bool plural_noun = grid != QKV_GRID_WEIGHTS;

	if (rows > QKV_MAX_TOKENS || cols > (int)sizeof col_any)
		return false;
	memset(row_any, 0, (size_t)rows);
	memset(col_any, 0, (size_t)cols);
	memset(row_full, 1, (size_t)rows);
	memset(col_full, 1, (size_t)cols);
	for (int r = 0; r < rows; r++) {
		const unsigned char *moved_row = app->moved[grid] + (size_t)r * (size_t)cols;

		/* A row where nothing moved (most rows, at 1,024 tokens): its live cells
		 * count, and no column holding one of them is whole. */
		if (!any_set(moved_row, (size_t)cols)) {
			const unsigned char *masked_row = app->trace.masked + (size_t)r * (size_t)cols;

			if (!grid_is_attention(grid)) {
				live += cols;
				memset(col_full, 0, (size_t)cols);
			} else {
				for (int c = 0; c < cols; c++) {
					live += !masked_row[c];
					col_full[c] &= masked_row[c] != 0;
				}
			}
			row_full[r] = 0;
			continue;
		}
		/* A row where every cell moved (every row, after a change of the whole
		 * problem): all its cells count as moved, and no row or column is cut. */
		if (memchr(moved_row, 0, (size_t)cols) == NULL) {
			const unsigned char *masked_row = app->trace.masked + (size_t)r * (size_t)cols;

			if (!grid_is_attention(grid)) {
				live += cols;
			} else {
				for (int c = 0; c < cols; c++)
					live += !masked_row[c];
			}
			moved += cols;
			row_any[r] = 1;
			memset(col_any, 1, (size_t)cols);
			continue;
		}
		for (int c = 0; c < cols; c++) {
			bool is_live = grid_live(app, grid, r, c), is_moved = cell_moved_now(app, grid, r, c);

			live += is_live;
			moved += is_moved;
			if (is_moved) {
				row_any[r] = 1;
				col_any[c] = 1;
			} else if (is_live) {
				row_full[r] = 0;
				col_full[c] = 0;
			}
		}
	}
	if (moved == 0)
		return false;
	for (int r = 0; r < rows; r++) {
		moved_rows += row_any[r];
		if (row_any[r] && !row_full[r])
			rows_whole = false;
	}
	for (int c = 0; c < cols; c++) {
		moved_cols += col_any[c];
		if (col_any[c] && !col_full[c])
			cols_whole = false;
	}
	/* Whole rows and whole columns together (an edit of X moves a row and a column). */
	for (int r = 0; r < rows && cross; r++)
		for (int c = 0; row_any[r] && c < cols && cross; c++)
			if (cell_moved_now(app, grid, r, c) && !(row_any[r] && row_full[r]) && !(col_any[c] && col_full[c]))
				cross = false;
	for (int r = 0; r < rows; r++)
		row_full[r] = row_any[r] && row_full[r];
	for (int c = 0; c < cols; c++)
		col_full[c] = col_any[c] && col_full[c];
	if (moved == 1 && live > 1) {
		char row_name[QKV_MAX_LABEL + 16], col_name[QKV_MAX_LABEL + 16];

		for (int r = 0; r < rows; r++)
			for (int c = 0; row_any[r] && c < cols; c++)
				if (cell_moved_now(app, grid, r, c)) {
					index_name(app, grid, false, r, row_name, sizeof row_name);
					index_name(app, grid, true, c, col_name, sizeof col_name);
				}
		qkv_buffer_put(w, "%s[%s,%s]", grid_symbols[grid], row_name, col_name);
		return true;
	}
	if (moved >= live && moved_rows == rows) {
		qkv_buffer_put(w, grid == QKV_GRID_WEIGHTS ? "every weight" : "every %s", noun);
		return true;
	}
	if (rows_whole) {
		qkv_buffer_put(w, "%s%s %s ", all_of ? "all of " : "", noun, moved_rows > 1 ? "rows" : "row");
		add_names(w, app, grid, false, row_any, rows, "rows");
		return true;
	}
	if (cols_whole) {
		qkv_buffer_put(w, "%s %s ", noun, moved_cols > 1 ? "columns" : "column");
		add_names(w, app, grid, true, col_any, cols, "columns");
		return true;
	}
	if (cross) {
		int full_rows = 0, full_cols = 0;

		for (int r = 0; r < rows; r++)
			full_rows += row_full[r];
		for (int c = 0; c < cols; c++)
			full_cols += col_full[c];
		qkv_buffer_put(w, "%s%s %s ", all_of ? "all of " : "", noun, full_rows > 1 ? "rows" : "row");
		add_names(w, app, grid, false, row_full, rows, "rows");
		qkv_buffer_put(w, " and %s ", full_cols > 1 ? "columns" : "column");
		add_names(w, app, grid, true, col_full, cols, "columns");
		return true;
	}
	if (moved_cols == 1) {
		qkv_buffer_put(w, "%s column ", noun);
		add_names(w, app, grid, true, col_any, cols, "columns");
		qkv_buffer_put(w, " in %s ", moved_rows > 1 ? "rows" : "row");
		add_names(w, app, grid, false, row_any, rows, "rows");
		return true;
	}
	if (moved_rows == 1) {
		qkv_buffer_put(w, "%s row ", noun);
		add_names(w, app, grid, false, row_any, rows, "rows");
		qkv_buffer_put(w, " in %s ", moved_cols > 1 ? "columns" : "column");
		add_names(w, app, grid, true, col_any, cols, "columns");
		return true;
	}
	qkv_buffer_put(w, "%d of %d %s%s", moved, live, noun, plural_noun ? "s" : "");
	return true;
}

/* True when the moved cells of a are also moved in b. */
static bool moved_within(const struct app *app, enum qkv_grid a, enum qkv_grid b)
{
	const struct qkv_matrix *m = grid_matrix(&app->trace, a);
	size_t cells = (size_t)m->rows * (size_t)m->cols;

	const unsigned char *in_a = app->moved[a], *in_b = app->moved[b];

	/* Block by block, each an OR that vectorises, with the same answer. */
	for (size_t from = 0; from < cells; from += 4096) {
		size_t to = from + 4096 < cells ? from + 4096 : cells;
		unsigned char outside = 0;

		for (size_t i = from; i < to; i++)
			outside |= (unsigned char)(in_a[i] & !in_b[i]);
		if (outside)
			return false;
	}
	return true;
}

/* True when grids a and b moved in the same cells (each within the other). */
static bool moved_same(const struct app *app, enum qkv_grid a, enum qkv_grid b)
{
	return moved_within(app, a, b) && moved_within(app, b, a);
}

/* True when any cell of grid moved. */
static bool grid_moved_any(const struct app *app, enum qkv_grid grid)
{
	const struct qkv_matrix *m = grid_matrix(&app->trace, grid);
	size_t cells = (size_t)m->rows * (size_t)m->cols;

	return any_set(app->moved[grid], cells);
}

/* The smallest change among the moved weights and outputs that stay visible, so the
 * sentence can say when a marked value moved by less than its shown digits. */
static void add_smallest_move(struct qkv_buffer *w, const struct app *app)
{
	static const enum qkv_grid grids[2] = { QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };
	/* Half the last shown digit: weights always show two decimals; outputs one in
	 * projector mode, two otherwise. */
	const double half_digit[2] = { 0.005, app->projector ? 0.05 : 0.005 };
	double smallest = INFINITY, ratio = INFINITY;
	int at_grid = -1, at_row = 0, at_col = 0;

	for (int g = 0; g < 2; g++) {
		const struct qkv_matrix *now = grid_matrix(&app->trace, grids[g]), *before = &app->previous[grids[g]];

		if (before->rows != now->rows || before->cols != now->cols)
			continue;
		for (int r = 0; r < now->rows; r++) {
			if (!any_set(app->moved[grids[g]] + (size_t)r * (size_t)now->cols, (size_t)now->cols))
				continue;
			for (int c = 0; c < now->cols; c++) {
				size_t i = (size_t)r * (size_t)now->cols + (size_t)c;
				double change = fabs(now->values[i] - before->values[i]);

				if (!app->moved[grids[g]][i] || !grid_live(app, grids[g], r, c))
					continue;
				if (change / half_digit[g] < ratio) {
					ratio = change / half_digit[g];
					smallest = change;
					at_grid = grids[g];
					at_row = r;
					at_col = c;
				}
			}
		}
	}
	if (at_grid < 0 || ratio >= 1.0)
		return;
	if (at_grid == QKV_GRID_WEIGHTS)
		qkv_buffer_put(w, "; A[%s,%s] moved by only %.1g, below the shown digits", app->problem.tokens[at_row],
		    app->problem.tokens[at_col], smallest);
	else
		qkv_buffer_put(w, "; O[%s,d%d] moved by only %.1g, below the shown digits", app->problem.tokens[at_row],
		    at_col + 1, smallest);
}

/* "moves score row t1 and, through softmax's normalisation, all of weights row t1,
 * and output row t1": every computed grid whose cells moved in the last change,
 * read from the marks (so the sentence says what the marks show). */
/* Multi-head: which heads' weights moved, and how much of the concatenation and
 * the layer output, read from the marks: "moves the weights of head 2 (4 cells),
 * its block of concat and 6 of 6 cells of the layer output; heads 1 and 3 unmoved". */
static void heads_reach_words(const struct app *app, char *buf, size_t size)
{
	const struct qkv_heads_trace *t = &app->heads;
	struct qkv_buffer w = { buf, size, 0 };
	int moved_heads = 0, still = 0;
	long weights = 0, concat = 0, layer = 0;

	buf[0] = '\0';
	for (int i = 0; i < t->h; i++) {
		long cells = 0;

		for (int r = 0; r < t->n; r++)
			for (int c = 0; c < t->n; c++)
				cells += app_moved_head_weight(app, i, r, c);
		weights += cells;
		moved_heads += cells > 0;
	}
	for (int r = 0; r < t->concat.rows; r++)
		for (int c = 0; c < t->concat.cols; c++)
			concat += app_moved_concat(app, r, c);
	for (int r = 0; r < t->output.rows; r++)
		for (int c = 0; c < t->output.cols; c++)
			layer += app_moved_layer(app, r, c);
	if (weights == 0 && concat == 0 && layer == 0) {
		qkv_buffer_put(&w, "moves nothing computed");
		return;
	}
	qkv_buffer_put(&w, "moves ");
	if (moved_heads == 0) {
		qkv_buffer_put(&w, "no head's weights");
	} else {
		qkv_buffer_put(&w, "the weights of head%s", moved_heads > 1 ? "s" : "");
		for (int i = 0, k = 0; i < t->h; i++) {
			long cells = 0;

			for (int r = 0; r < t->n; r++)
				for (int c = 0; c < t->n; c++)
					cells += app_moved_head_weight(app, i, r, c);
			if (cells > 0)
				qkv_buffer_put(&w, "%s%d", k++ == 0 ? " " : k == moved_heads ? " and " : ", ", i + 1);
		}
		qkv_buffer_put(&w, " (%ld cell%s)", weights, weights == 1 ? "" : "s");
	}
	qkv_buffer_put(&w, ", %ld of %d cells of concat and %ld of %d of the layer output", concat,
	    t->concat.rows * t->concat.cols, layer, t->output.rows * t->output.cols);
	for (int i = 0; i < t->h; i++) {
		bool moved = false;

		for (int r = 0; r < t->n && !moved; r++)
			for (int c = 0; c < t->concat.cols / t->h && !moved; c++)
				moved = app_moved_concat(app, r, i * (t->concat.cols / t->h) + c);
		still += !moved;
	}
	if (still > 0 && still < t->h) {
		int k = 0;

		qkv_buffer_put(&w, "; head%s", still > 1 ? "s" : "");
		for (int i = 0; i < t->h; i++) {
			bool moved = false;

			for (int r = 0; r < t->n && !moved; r++)
				for (int c = 0; c < t->concat.cols / t->h && !moved; c++)
					moved = app_moved_concat(app, r, i * (t->concat.cols / t->h) + c);
			if (!moved)
				qkv_buffer_put(&w, "%s%d", k++ == 0 ? " " : k == still ? " and " : ", ", i + 1);
		}
		qkv_buffer_put(&w, " unmoved");
	}
}

/* The last change's reach in words, read from the marks (app.h). */
void app_reach_words(const struct app *app, char *buf, size_t size)
{
	struct qkv_buffer w = { buf, size, 0 };
	char item[8][APP_MESSAGE_MAX];
	bool coupled[8] = { false };
	int count = 0;
	bool projected = app->problem.form == QKV_FORM_PROJECTED;

	if (size > 0)
		buf[0] = '\0';
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		struct qkv_buffer one = { item[count], sizeof item[count], 0 };

		item[count][0] = '\0';
		coupled[count] = false;
		if (g <= QKV_GRID_V && !projected)
			continue;
		if (g == QKV_GRID_SCALED && moved_same(app, QKV_GRID_SCALED, QKV_GRID_SCORES))
			continue;
		if (g == QKV_GRID_WEIGHTS && !moved_within(app, QKV_GRID_WEIGHTS, QKV_GRID_SCALED))
			coupled[count] = true;
		if (describe_grid(&one, app, (enum qkv_grid)g, g == QKV_GRID_WEIGHTS && coupled[count]))
			count++;
	}
	if (count == 0) {
		qkv_buffer_put(&w, "moves no computed value on screen");
		return;
	}
	qkv_buffer_put(&w, "moves ");
	for (int i = 0; i < count; i++) {
		if (i > 0 && coupled[i])
			qkv_buffer_put(&w, " and, through softmax's normalisation, ");
		else if (i > 0 && i + 1 == count)
			qkv_buffer_put(&w, count > 2 ? ", and " : " and ");
		else if (i > 0)
			qkv_buffer_put(&w, ", ");
		else if (coupled[i])
			qkv_buffer_put(&w, "through softmax's normalisation ");
		qkv_buffer_put(&w, "%s", item[i]);
	}
	if (!grid_moved_any(app, QKV_GRID_WEIGHTS) && grid_moved_any(app, QKV_GRID_OUTPUT))
		qkv_buffer_put(&w, "; the weights do not move");
	add_smallest_move(&w, app);
}

/* An input cell as the screen labels it: "Q[t1, d2]", "X[cat, m3]", "W_Q[m2, d1]"
 * (a head's W with its head), "W_O[h2d1, d1]". */
static void input_cell_name(const struct app *app, enum qkv_grid focus, int row, int col, char *buf,
			    size_t size)
{
	const char *name = app_focus_name(focus);

	if (focus <= QKV_GRID_V)
		snprintf(buf, size, "%s[%s, d%d]", name, app->problem.tokens[row], col + 1);
	else if (focus == QKV_GRID_X)
		snprintf(buf, size, "%s[%s, m%d]", name, app->problem.tokens[row], col + 1);
	else if (focus == QKV_GRID_W_O && app->heads.d_v > 0)
		snprintf(buf, size, "%s[h%dd%d, d%d]", name, row / app->heads.d_v + 1, row % app->heads.d_v + 1,
			 col + 1);
	else if (app->problem.h > 0 && focus >= QKV_GRID_W_Q && focus <= QKV_GRID_W_V)
		snprintf(buf, size, "head %d %s[m%d, d%d]", app->head + 1, name, row + 1, col + 1);
	else
		snprintf(buf, size, "%s[m%d, d%d]", name, row + 1, col + 1);
}

/* Says what an edit changed and how far it reached (the blast radius). */
static void describe_change(struct app *app, enum qkv_grid focus, int row, int col, double before,
			    double after)
{
	char from[32], to[32], place[96], reach[APP_MESSAGE_MAX];

	qkv_format_exact(from, sizeof from, before);
	qkv_format_exact(to, sizeof to, after);
	input_cell_name(app, focus, row, col, place, sizeof place);
	if (app->problem.h > 0)
		heads_reach_words(app, reach, sizeof reach);
	else
		app_reach_words(app, reach, sizeof reach);
	say(app, false, "%s: %s → %s %s", place, from, to, reach);
}

/* Modified means different from the problem as loaded or saved; the wrong-way
 * demonstrations are never saved, so they do not count. */
static void update_dirty(struct app *app)
{
	enum qkv_wrong kept = app->saved.wrong;

	app->saved.wrong = app->problem.wrong;
	app->dirty = !qkv_problem_equal(&app->problem, &app->saved);
	app->saved.wrong = kept;
}

/* The trace of a change could not be computed (rc): the problem goes back to what
 * it was (undone, the redo forgotten) with its trace, and the status line says why. */
static int change_failed(struct app *app, int rc)
{
	struct history_place ignored;

	history_undo(&app->history, &app->problem, &ignored);
	history_drop_redo(&app->history);
	update_dirty(app);
	if (recompute(app, false) == 0)
		say(app, true, "cannot compute: %s: the change was not made", qkv_error_string(rc));
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* Sets one input cell, with undo, and recomputes. */
static int set_cell(struct app *app, enum qkv_grid focus, int row, int col, double value)
{
	struct qkv_matrix *m = (struct qkv_matrix *)app_input(app, focus_input(focus));
	double before;
	struct history_place place = { (int)focus, row, col, app->head };
	int rc;

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
	/* What the cell reaches, not the whole trace: a query's edit is a row. */
	if (app->jobs_always || (app->problem.h == 0 ? qkv_attention_update_cost(&app->problem, focus_input(focus))
						     : trace_cost(&app->problem)) > JOB_COST) {
		/* Too long for one key: the trace is computed beside the interface. */
		char said[APP_MESSAGE_MAX];

		describe_change(app, focus, row, col, before, value);
		snprintf(said, sizeof said, "%s", app->message);
		if (start_trace_job(app, REPLAY_REDO, true, said, NULL)) {
			app->job_has_cell = true;
			app->job_cell = place;
			return REDRAW_ALL;
		}
	}
	update_dirty(app);
	if ((rc = recompute_after(app, true, focus_input(focus), row, col)) != 0)
		return change_failed(app, rc);
	app->moved_input = focus_input(focus);
	app->moved_inputs[(size_t)row * (size_t)m->cols + (size_t)col] = 1;
	describe_change(app, focus, row, col, before, value);
	return REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT | REDRAW_INFO | REDRAW_STATUS;
}

/* Runs a change of the whole problem (shape or options) with undo; done is what the
 * status line then says. A large problem is changed by a job (start_change_job);
 * otherwise: snapshot first, change, then recompute; a failed change is rolled back. */
static int change_problem(struct app *app, job_change change, int argument,
			  const char *done)
{
	int rc;
	struct history_place place = here(app);
	struct job_change_context context = { app->column_seed, app->untied };

	/* A large problem is copied, changed and traced by a job (take_job ends the change). */
	if ((app->jobs_always || problem_is_long(&app->problem)) && start_change_job(app, change, argument, done, place))
		return REDRAW_ALL;
	if (history_push_problem(&app->history, &app->problem, place) != 0) {
		say(app, true, "out of memory: the change was not made");
		return REDRAW_STATUS;
	}
	rc = change(&app->problem, argument, &context);
	if (rc == 0)
		rc = qkv_problem_check(&app->problem);
	if (rc != 0) {
		struct history_place ignored;

		/* Put the problem back and forget the failed branch, so redo cannot replay it. */
		history_undo(&app->history, &app->problem, &ignored);
		history_drop_redo(&app->history);
		if (rc == QKV_ELIMIT)
			say(app, true, "that is above qkv's limits (%d tokens, %d columns)", QKV_MAX_TOKENS, QKV_MAX_DIM);
		else
			say(app, true, "%s", qkv_error_string(rc));
		return REDRAW_STATUS;
	}
	if (trace_cost(&app->problem) > JOB_COST && start_trace_job(app, REPLAY_REDO, true, done, NULL)) {
		app->job_change = change; /* what take_job says, as below */
		app->job_argument = argument;
		return REDRAW_ALL;
	}
	update_dirty(app);
	if ((rc = recompute(app, true)) != 0)
		return change_failed(app, rc);
	if (done != NULL)
		say(app, false, "%s", done);
	after_change(app, change, argument);
	return REDRAW_ALL;
}

/* The problem changes behind the structural and option keys. */
static int change_insert_token(struct qkv_problem *p, int after, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_insert_token(p, after + 1, NULL);
}

/* Removes token at. */
static int change_remove_token(struct qkv_problem *p, int at, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_remove_token(p, at);
}

/* d_k becomes d_k: columns of Q and K (or W_Q and W_K) dropped or added as zeros. */
static int change_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_d_k(p, d_k);
}

/* d_v becomes d_v. */
static int change_d_v(struct qkv_problem *p, int d_v, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_d_v(p, d_v);
}

/* The divisor: √d_k or none. */
static int change_scale(struct qkv_problem *p, int scale, const struct job_change_context *c)
{
	(void)c;
	p->scale = (enum qkv_scale)scale;
	return 0;
}

/* τ becomes temperatures[index]. */
static int change_temperature(struct qkv_problem *p, int index, const struct job_change_context *c)
{
	(void)c;
	p->temperature = temperatures[index];
	return 0;
}

/* The mask becomes mask (none, causal, custom). */
static int change_mask(struct qkv_problem *p, int mask, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_mask(p, (enum qkv_mask)mask);
}

/* The wrong-way demonstration becomes wrong. */
static int change_wrong(struct qkv_problem *p, int wrong, const struct job_change_context *c)
{
	(void)c;
	p->wrong = (enum qkv_wrong)wrong;
	return 0;
}

/* New d_k columns drawn from N(0,1) with the app's column seed, for any problem. */
static int change_draw_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c)
{
	return qkv_problem_draw_d_k(p, d_k, c->column_seed);
}

/* Toggles the custom mask bit of cell argument = query·n + key. */
static int change_mask_bit(struct qkv_problem *p, int cell, const struct job_change_context *c)
{
	(void)c;
	p->mask_bits[cell] = !p->mask_bits[cell];
	return 0;
}

/* The seed `r` draws from next: 1 at first, back to 0 after the largest a file holds. */
static uint64_t next_seed(const struct qkv_problem *p)
{
	return !p->seeded ? 1 : p->seed < QKV_MAX_SEED ? p->seed + 1 : 0;
}

/* New N(0,1) values for Q, K and V from the seed, keeping the shape. */
static int change_random(struct qkv_problem *p, int unused, const struct job_change_context *c)
{
	struct qkv_problem fresh;
	uint64_t seed = next_seed(p);
	int rc;

	(void)unused;
	(void)c;
	if (p->form != QKV_FORM_DIRECT)
		return QKV_EINVAL;
	qkv_problem_init(&fresh);
	rc = qkv_problem_random(&fresh, p->n, p->q.cols, p->v.cols, seed);
	if (rc == 0) {
		/* The fresh draw's matrices are exchanged with the problem's, not
		 * copied: nothing to allocate, so nothing can fail half-way. */
		struct qkv_matrix *mine[] = { &p->q, &p->k, &p->v };
		struct qkv_matrix *theirs[] = { &fresh.q, &fresh.k, &fresh.v };

		for (int i = 0; i < (int)(sizeof mine / sizeof mine[0]); i++) {
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

/* True when m is square with ones on the diagonal and zeros elsewhere. */
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

/* True when W_Q, W_K and W_V are all the identity. */
bool app_projections_tied(const struct app *app)
{
	const struct qkv_problem *p = &app->problem;

	return p->form == QKV_FORM_PROJECTED && is_identity(&p->w_q) && is_identity(&p->w_k) &&
	       is_identity(&p->w_v);
}

/* Ties W_Q, W_K, W_V to the identity (keeping the learned ones to come back to),
 * or brings the kept ones back. */
static int change_identity(struct qkv_problem *p, int tie, const struct job_change_context *c)
{
	struct qkv_matrix *w[3] = { &p->w_q, &p->w_k, &p->w_v };
	int d_model = p->x.cols, rc = 0;

	for (int i = 0; i < APP_PROJECTIONS && rc == 0; i++) {
		if (tie) {
			rc = qkv_matrix_copy(&c->untied[i], w[i]);
			if (rc == 0)
				rc = qkv_matrix_zero(w[i], d_model, d_model);
			for (int d = 0; rc == 0 && d < d_model; d++)
				qkv_matrix_set(w[i], d, d, 1.0);
		} else {
			rc = qkv_matrix_copy(w[i], &c->untied[i]);
		}
	}
	return rc;
}

/* Marks the token as padding (hidden as a key from every query) or not. */
static int change_padding(struct qkv_problem *p, int token, const struct job_change_context *c)
{
	(void)c;
	if (p->padding == NULL) {
		p->padding = calloc((size_t)p->n, 1);
		if (p->padding == NULL)
			return QKV_ENOMEM;
	}
	p->padding[token] = !p->padding[token];
	return 0;
}

/* d_model becomes d_model: columns of X and rows of every W. */
static int change_d_model(struct qkv_problem *p, int d_model, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_d_model(p, d_model);
}

/* --- keys ------------------------------------------------------------------------ */

/* Moves the focused cursor, within its grid; the linked cursors follow. */
static int move_cursor(struct app *app, int d_row, int d_col)
{
	struct app_cursor *c = &app->cursor[app->focus];
	int rows, cols;

	app_focus_shape(app, app->focus, &rows, &cols);
	c->row = clamp(c->row + d_row, 0, rows - 1);
	c->col = clamp(c->col + d_col, 0, cols - 1);
	/* The attention cursor follows the query or key being edited. */
	if (app->focus == QKV_GRID_Q || app->focus == QKV_GRID_X)
		app->cursor[QKV_GRID_WEIGHTS].row = c->row;
	if (app->focus == QKV_GRID_K || app->focus == QKV_GRID_V)
		app->cursor[QKV_GRID_WEIGHTS].col = c->row;
	if (app->focus == QKV_GRID_V)
		app->cursor[QKV_GRID_OUTPUT].col = c->col;
	if (app->focus == QKV_GRID_WEIGHTS)
		app->cursor[QKV_GRID_OUTPUT].row = c->row;
	if (app->focus == QKV_GRID_OUTPUT)
		app->cursor[QKV_GRID_WEIGHTS].row = c->row;
	return REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT | REDRAW_INFO | REDRAW_STATUS;
}

/* The next (direction 1) or previous (−1) grid in Tab's order. */
static int cycle_focus(struct app *app, int direction)
{
	static const enum qkv_grid direct[] = { QKV_GRID_Q, QKV_GRID_K, QKV_GRID_V, QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };
	static const enum qkv_grid projected[] = { QKV_GRID_X, QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V,
						    QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };
	static const enum qkv_grid heads[] = { QKV_GRID_X, QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V,
						QKV_GRID_WEIGHTS, QKV_GRID_CONCAT, QKV_GRID_W_O, QKV_GRID_LAYER };
	static const enum qkv_grid layer[] = { QKV_GRID_WEIGHTS, QKV_GRID_CONCAT, QKV_GRID_W_O, QKV_GRID_LAYER };
	bool multi = app->problem.h > 0, late = multi && app->stage >= APP_STAGE_CONCAT;
	bool walk = app->stage != APP_STAGE_LIVE;
	/* What is on screen: a multi-head problem shows the selected head's grids in
	 * stages 0–5, the heads, concat, W_O and the output in 6 and 7, all of it live. */
	const enum qkv_grid *order = projected;
	int count = (int)(sizeof projected / sizeof projected[0]), at = 0;

	if (late) {
		order = layer;
		count = (int)(sizeof layer / sizeof layer[0]);
	} else if (multi && !walk) {
		order = heads;
		count = (int)(sizeof heads / sizeof heads[0]);
	} else if (app->problem.form == QKV_FORM_DIRECT) {
		order = direct;
		count = (int)(sizeof direct / sizeof direct[0]);
	}

	for (int i = 0; i < count; i++)
		if (order[i] == app->focus)
			at = i;
	app->focus = order[(at + direction + count) % count];
	return move_cursor(app, 0, 0);
}

/* Multi-head: the focus follows the grids the stage shows (6 and 7 show the heads,
 * concat, W_O and the output; 0–5 the selected head's). */
static void focus_for_stage(struct app *app)
{
	bool late_focus = app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_W_O || app->focus == QKV_GRID_LAYER;

	if (app->problem.h < 1 || app->stage == APP_STAGE_LIVE)
		return;
	if (app->stage >= APP_STAGE_CONCAT && !late_focus && app->focus != QKV_GRID_WEIGHTS)
		app->focus = app->stage == APP_STAGE_CONCAT ? QKV_GRID_CONCAT : QKV_GRID_LAYER;
	else if (app->stage == APP_STAGE_CONCAT && app->focus == QKV_GRID_LAYER)
		app->focus = QKV_GRID_CONCAT; /* the output is not computed yet in stage 6 */
	else if (app->stage < APP_STAGE_CONCAT && late_focus)
		app->focus = QKV_GRID_OUTPUT;
	clamp_cursors(app);
}

/* "stage 6 of 7: concat — …" for the status line. */
static void say_stage(struct app *app)
{
	int last = app_last_stage(app);

	if (app->stage == APP_STAGE_CONCAT)
		say(app, false, "stage 6 of 7: concat — Concat = [head 1 … head %d], the heads' outputs "
				"side by side", app->problem.h);
	else if (app->stage == APP_STAGE_LAYER)
		say(app, false, "stage 7 of 7: output — Concat · W_O = Σ head_i · W_O(i), each head's "
				"share added up");
	else if (app->problem.h > 0)
		say(app, false, "stage %d of %d: %s — %s (head %d)", app->stage, last,
		    qkv_stage_name((enum qkv_stage)app->stage),
		    qkv_stage_formula_computed((enum qkv_stage)app->stage, app->problem.wrong), app->head + 1);
	else
		say(app, false, "stage %d of %d: %s — %s", app->stage, last,
		    qkv_stage_name((enum qkv_stage)app->stage),
		    qkv_stage_formula_computed((enum qkv_stage)app->stage, app->problem.wrong));
}

/* The next (direction 1) or previous (−1) stage of the walk, and its name said. */
static int step_stage(struct app *app, int direction)
{
	int first = first_stage(app), last = app_last_stage(app);

	if (direction > 0)
		app->stage = app->stage == APP_STAGE_LIVE ? first
			     : app->stage < last ? app->stage + 1 : last;
	else
		app->stage = app->stage == APP_STAGE_LIVE || app->stage <= first ? APP_STAGE_LIVE
										 : app->stage - 1;
	/* Stepping never moves the focus between grids: the clicker walks the stages and
	 * the cursor stays where the person put it (Tab moves it). */
	focus_for_stage(app);
	if (app->stage == APP_STAGE_LIVE)
		say(app, false, "all stages live");
	else
		say_stage(app);
	return REDRAW_ALL;
}

/* Multi-head: selects head (0-based); every single-head panel then shows that head,
 * and the status line says what it looks at, in numbers. */
static int select_head(struct app *app, int head)
{
	const struct qkv_pattern *s;
	int h = app->problem.h, was = app->head, rc;

	app->head = head;
	if ((rc = recompute(app, false)) != 0) {
		/* The head it was on, with its trace, and why not the other. */
		app->head = was;
		if (recompute(app, false) == 0)
			say(app, true, "cannot compute: %s: still head %d", qkv_error_string(rc), was + 1);
		return REDRAW_ALL | REDRAW_LAYOUT;
	}
	s = &app->heads.pattern[app->head];
	say(app, false, "head %d of %d: mean weight on the previous token %.2f, on itself %.2f, "
			"on the first token %.2f; mean entropy %.2f nats",
	    app->head + 1, h, s->previous, s->diagonal, s->first, s->entropy);
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* Multi-head: selects the next head (or the previous). */
static int step_head(struct app *app, int direction)
{
	int h = app->problem.h;

	if (h < 1) {
		say(app, false, "H (or b) moves between heads: this problem has one head");
		return REDRAW_STATUS;
	}
	return select_head(app, (app->head + direction + h) % h);
}

/* True for the characters a typed number may hold. */
static bool is_number_char(int key)
{
	return (key >= '0' && key <= '9') || key == '.' || key == '-' || key == '+' || key == 'e' ||
	       key == 'E';
}

/* Starts typing into the selected cell, with first_key or the cell's value. */
static void start_edit(struct app *app, int first_key)
{
	const struct qkv_matrix *m = app_focus_matrix(app, app->focus);
	const struct app_cursor *c = &app->cursor[app->focus];
	char place[96];

	app->editing = true;
	if (first_key != 0) {
		app->edit[0] = (char)first_key;
		app->edit[1] = '\0';
	} else {
		qkv_format_exact(app->edit, sizeof app->edit, qkv_matrix_get(m, c->row, c->col));
	}
	input_cell_name(app, app->focus, c->row, c->col, place, sizeof place);
	say(app, false, "editing %s: Enter keeps it, Esc cancels", place);
}

/* Parses the typed text: a finite number within the bound, the whole text used. */
static bool parse_value(const char *text, double *value)
{
	char *end;

	errno = 0;
	*value = strtod(text, &end);
	/* ERANGE for a number too small to be normal (5e-324) is no error: the loader
	 * takes it too. Only an overflow is. */
	if (end == text || *end != '\0' || !isfinite(*value))
		return false;
	return fabs(*value) <= QKV_MAX_VALUE;
}

/* Enter in an edit: the typed value goes into the cell, if it is a number. */
static int edit_keep(struct app *app, int key)
{
	const struct app_cursor *c = &app->cursor[app->focus];
	double value;

	(void)key;
	if (!parse_value(app->edit, &value)) {
		say(app, true, "“%s” is not a number (finite, |v| ≤ 1e12): the value stays", app->edit);
		return REDRAW_STATUS;
	}
	app->editing = false;
	app->message[0] = '\0';
	return set_cell(app, app->focus, c->row, c->col, value);
}

/* Esc or Ctrl-C in an edit: the cell keeps its value. */
static int edit_cancel(struct app *app, int key)
{
	(void)key;
	app->editing = false;
	say(app, false, "edit cancelled");
	return REDRAW_INPUTS | REDRAW_STATUS;
}

/* Backspace or Delete in an edit: the last character typed goes; Ctrl-U: all of them. */
static int edit_erase(struct app *app, int key)
{
	size_t length = strlen(app->edit);

	if (key == APP_KEY_CTRL_U)
		app->edit[0] = '\0';
	else if (length > 0)
		app->edit[length - 1] = '\0';
	return REDRAW_INPUTS | REDRAW_STATUS;
}

/* Any other key in an edit: typed when it can be part of a number, else ignored. */
static int edit_type(struct app *app, int key)
{
	size_t length = strlen(app->edit);

	/* Many classrooms write a decimal comma: it is the decimal point, never dropped. */
	if (key == ',' && length + 1 < sizeof app->edit) {
		app->edit[length] = '.';
		app->edit[length + 1] = '\0';
		say(app, false, "a decimal comma is read as a decimal point");
	} else if (is_number_char(key) && length + 1 < sizeof app->edit) {
		app->edit[length] = (char)key;
		app->edit[length + 1] = '\0';
	}
	return REDRAW_INPUTS | REDRAW_STATUS;
}

/* Adds delta to an input cell (a computed grid refuses). */
static int nudge(struct app *app, enum qkv_grid focus, int row, int col, double delta)
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

/* The next temperature of the list below (direction < 0) or above the present one,
 * or -1 when there is none that way (τ from a file may lie outside the list). */
static int temperature_index(double temperature, int direction)
{
	if (direction < 0) {
		for (int i = TEMPERATURE_COUNT - 1; i >= 0; i--)
			if (temperatures[i] < temperature)
				return i;
		return -1;
	}
	for (int i = 0; i < TEMPERATURE_COUNT; i++)
		if (temperatures[i] > temperature)
			return i;
	return -1;
}

/* Remembers the modification time and size of the file at path as qkv last read
 * or wrote it, to notice someone else changing it meanwhile. */
/* Asks the caller for a look at, a save to or the removal of path (any earlier
 * request not yet answered is dropped). Out of memory, nothing is asked. */
static void ask(struct app *app, enum app_request_type type, const char *path, int why)
{
	char *copy = strdup(path);

	free(app->request.path);
	free(app->request.bytes);
	app->request.bytes = NULL;
	app->request.length = 0;
	app->request.path = copy;
	app->request.type = copy != NULL ? type : APP_REQUEST_NONE;
	app->request.why = why;
	if (copy == NULL)
		say(app, true, "out of memory: %s was not %s", path, type == APP_REQUEST_SAVE ? "saved" : "read");
}

/* The request answered: none is left unless the answer makes the next one. */
static void answered(struct app *app)
{
	free(app->request.path);
	app->request.path = NULL;
	free(app->request.bytes);
	app->request.bytes = NULL;
	app->request.length = 0;
	app->request.type = APP_REQUEST_NONE;
}

/* The file as qkv last read or wrote it. */
static void note_disk(struct app *app, const struct app_file *f)
{
	app->disk_known = f->exists;
	app->disk_mtime_ns = f->mtime_ns;
	app->disk_size = f->size;
}

/* True when f is not the file as qkv last read or wrote it. */
static bool changed_on_disk(const struct app *app, const struct app_file *f)
{
	return app->disk_known && f->exists && (f->mtime_ns != app->disk_mtime_ns || f->size != app->disk_size);
}

/* The saved problem at path: it is the file now, and the recovery copy's changes are in it. */
static int saved(struct app *app, const char *path, const struct app_file *f)
{
	note_disk(app, f);
	if (app->path == NULL || strcmp(app->path, path) != 0) {
		char *copy = strdup(path);

		if (copy != NULL) {
			free(app->path);
			app->path = copy;
		}
	}
	/* Without a copy (out of memory) saved is left empty: the problem reads modified. */
	qkv_problem_copy(&app->saved, &app->problem);
	update_dirty(app);
	say(app, false, "saved to %s", path);
	if (app->recovery != NULL && app->prompt != PROMPT_RECOVER) {
		/* The changes it kept are in the file now (or were declined). */
		ask(app, APP_REQUEST_REMOVE, app->recovery, REMOVE_SAVED);
		free(app->recovery);
		app->recovery = NULL;
	}
	return REDRAW_STATUS;
}

/* The save to path failed: the saver's sentence, or the errno's. */
static int save_failed(struct app *app, const char *path, const struct event *event)
{
	const char *err = event->text, *why = err != NULL ? strstr(err, ": cannot save: ") : NULL;

	if (err == NULL)
		say(app, true, "cannot save %s: %s", path, strerror(event->error));
	/* The reason must fit: a long name gives way, not the why. */
	else if (why != NULL && strlen(err) >= sizeof app->message)
		say(app, true, "cannot save %.60s…: %s", path, why + strlen(": cannot save: "));
	else
		say(app, true, "%s", err);
	return REDRAW_STATUS;
}

/* An answer from the caller to the request (a look, a save, a removal). */
static int file_answer(struct app *app, const struct event *event)
{
	enum app_request_type type = app->request.type;
	int why = app->request.why, redraw = REDRAW_STATUS;
	char *path = app->request.path;

	if (type == APP_REQUEST_NONE || path == NULL)
		return REDRAW_NONE; /* nothing was asked: a stray answer */
	app->request.path = NULL;
	answered(app);
	if (event->type == EVENT_LOOKED && type == APP_REQUEST_LOOK) {
		if (why == LOOK_DISK) {
			note_disk(app, &event->file);
			redraw = REDRAW_NONE;
		} else if (why == LOOK_BEFORE_SAVE && changed_on_disk(app, &event->file)) {
			app->prompt = PROMPT_CHANGED;
		} else if (why == LOOK_BEFORE_SAVE) {
			ask(app, APP_REQUEST_SAVE, path, 0);
		} else if (event->file.is_dir) {
			say(app, true, "%s is a folder: type the name of a file in it", path);
		} else if (event->file.exists) {
			app->prompt = PROMPT_OVERWRITE;
		} else {
			app->prompt = PROMPT_NONE;
			if (app->exporting)
				export_to(app, path);
			else
				ask(app, APP_REQUEST_SAVE, path, 0);
		}
	} else if (event->type == EVENT_SAVED && type == APP_REQUEST_EXPORT) {
		int stage = app_figure_stage(app);

		say(app, false, "stage %d (%s) exported to %s", stage, qkv_stage_name((enum qkv_stage)stage), path);
	} else if (event->type == EVENT_SAVE_FAILED && type == APP_REQUEST_EXPORT) {
		say(app, true, "%s", event->text != NULL ? event->text : strerror(event->error));
	} else if (event->type == EVENT_SAVED && type == APP_REQUEST_SAVE) {
		redraw = saved(app, path, &event->file);
	} else if (event->type == EVENT_SAVE_FAILED && type == APP_REQUEST_SAVE) {
		redraw = save_failed(app, path, event);
	} else if (event->type == EVENT_REMOVED && type == APP_REQUEST_REMOVE) {
		if (why == REMOVE_SAVED)
			redraw = REDRAW_NONE;
		else if (event->error != 0)
			say(app, true, "%s: cannot delete the recovery copy (%s)", path, strerror(event->error));
		else
			say(app, false, "recovery copy %s deleted", path);
	} else {
		redraw = REDRAW_NONE; /* an answer to another question */
	}
	free(path);
	return redraw;
}

/* The stage E draws: the one on screen, or the weights in the live view (and
 * where the stage has no figure). */
int app_figure_stage(const struct app *app)
{
	return app->stage == APP_STAGE_LIVE || !figure_stage_drawable(&app->problem, app->stage)
	       ? QKV_STAGE_WEIGHTS : app->stage;
}

void app_figure_options(const struct app *app, struct figure_options *o)
{
	figure_options_default(o);
	o->stage = app_figure_stage(app);
	o->palette = app->projector && app->palette == QKV_PALETTE_VIRIDIS ? QKV_PALETTE_PROJECTOR : app->palette;
	o->cell_row = app_query(app);
	o->cell_col = o->stage == QKV_STAGE_OUTPUT ? app_value_col(app) : app_key(app);
}

/* E's name typed: the format from its ending, then the figure is drawn by a job
 * beside the interface (Esc cancels it, and nothing is written); once drawn, the
 * caller is asked to write its bytes (app_perform). */
static int export_to(struct app *app, const char *path)
{
	const char *dot = strrchr(path, '.');
	enum figure_format format;
	struct job *job;
	int stage;

	if (dot == NULL || figure_format_parse(dot + 1, &format) != 0) {
		say(app, true, "%s: name the figure .svg, .pdf or .png", path);
		return REDRAW_STATUS;
	}
	job = job_new(JOB_FIGURE);
	if (job == NULL || (job->path = strdup(path)) == NULL) {
		job_abandon(job);
		say(app, true, "out of memory: %s was not exported", path);
		return REDRAW_STATUS;
	}
	job->figure_format = format;
	app_figure_options(app, &job->figure);
	job->head = app->head;
	job_borrow(job, &app->problem);
	stage = job->figure.stage;
	snprintf(app->job_what, sizeof app->job_what, "the figure of stage %d (%s) for %s", stage,
		 qkv_stage_name((enum qkv_stage)stage), path);
	app->job = job;
	app->job_started_ms = app->now_ms;
	app->job_refused = false;
	job_start(job);
	say_progress(app);
	return REDRAW_STATUS;
}

/* A figure drawn: its bytes go to the caller to write, or its reason is said. */
static int take_figure(struct app *app, struct job *job)
{
	if (job->bytes == NULL) {
		say(app, true, "%s", job->err[0] != '\0' ? job->err : "cannot draw the figure");
	} else {
		ask(app, APP_REQUEST_EXPORT, job->path, 0);
		if (app->request.type == APP_REQUEST_EXPORT) {
			app->request.bytes = job->bytes;
			app->request.length = job->length;
			job->bytes = NULL;
		}
	}
	job_abandon(job);
	return REDRAW_STATUS;
}

/* y to the recovery copy: the recovered problem replaces the file's (undo goes back
 * to the file's). */
static int recover_open(struct app *app, int key)
{
	struct history_place place = here(app);
	int rc;

	(void)key;
	if (history_push_problem(&app->history, &app->problem, place) != 0) {
		say(app, true, "out of memory: the recovery copy was not opened");
		return REDRAW_STATUS;
	}
	qkv_problem_fini(&app->problem);
	app->problem = app->recovered;
	qkv_problem_init(&app->recovered);
	app->prompt = PROMPT_NONE;
	update_dirty(app);
	app->focus = first_input(app);
	if ((rc = recompute(app, false)) != 0)
		return change_failed(app, rc);
	say(app, false, "the recovered changes are open, not saved yet: w saves them, u goes back to the file");
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* n to the recovery copy: it is deleted (the caller is asked to). */
static int recover_delete(struct app *app, int key)
{
	(void)key;
	app->prompt = PROMPT_NONE;
	qkv_problem_fini(&app->recovered);
	ask(app, APP_REQUEST_REMOVE, app->recovery, REMOVE_DECLINED);
	free(app->recovery);
	app->recovery = NULL;
	return REDRAW_STATUS;
}

/* Esc or Ctrl-C to the recovery copy: it stays for the next time. */
static int recover_later(struct app *app, int key)
{
	(void)key;
	app->prompt = PROMPT_NONE;
	qkv_problem_fini(&app->recovered);
	say(app, false, "recovery copy kept in %s for the next time", app->recovery);
	free(app->recovery);
	app->recovery = NULL;
	return REDRAW_STATUS;
}

/* key as UTF-8 into out (4 bytes); the byte count, 0 for a surrogate. */
static size_t utf8_encode(unsigned int key, char *out)
{
	if (key < 0x80) {
		out[0] = (char)key;
		return 1;
	}
	if (key < 0x800) {
		out[0] = (char)(0xc0 | key >> 6);
		out[1] = (char)(0x80 | (key & 0x3f));
		return 2;
	}
	if (key >= 0xd800 && key <= 0xdfff)
		return 0;
	if (key < 0x10000) {
		out[0] = (char)(0xe0 | key >> 12);
		out[1] = (char)(0x80 | (key >> 6 & 0x3f));
		out[2] = (char)(0x80 | (key & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | key >> 18);
	out[1] = (char)(0x80 | (key >> 12 & 0x3f));
	out[2] = (char)(0x80 | (key >> 6 & 0x3f));
	out[3] = (char)(0x80 | (key & 0x3f));
	return 4;
}

/* y to a question: quit, save over the changed file, or overwrite the named one. */
static int answer_yes(struct app *app, int key)
{
	enum app_prompt prompt = app->prompt;

	(void)key;
	app->prompt = PROMPT_NONE;
	if (prompt == PROMPT_QUIT)
		app->quit = true;
	else if (prompt == PROMPT_OVERWRITE && app->exporting)
		return export_to(app, app->answer);
	else
		ask(app, APP_REQUEST_SAVE, prompt == PROMPT_CHANGED ? app->path : app->answer, 0);
	return REDRAW_STATUS;
}

/* n, Esc or Ctrl-C to a question (Ctrl-\ too to quitting's): nothing is done. */
static int answer_no(struct app *app, int key)
{
	enum app_prompt prompt = app->prompt;

	if (key == APP_KEY_CTRL_BACKSLASH && prompt != PROMPT_QUIT)
		return REDRAW_NONE;
	app->prompt = PROMPT_NONE;
	if (prompt == PROMPT_QUIT)
		say(app, false, "not quitting");
	else if (prompt == PROMPT_CHANGED)
		say(app, false, "not saved: %s stays as it is on disk", app->path);
	else
		say(app, false, app->exporting ? "not exported" : "not saved");
	return REDRAW_STATUS;
}

/* Esc or Ctrl-C while a name is typed: not saved. */
static int save_as_cancel(struct app *app, int key)
{
	(void)key;
	app->prompt = PROMPT_NONE;
	say(app, false, app->exporting ? "not exported" : "not saved");
	return REDRAW_STATUS;
}

/* Backspace or Delete: the name's last character (UTF-8, whole); Ctrl-U: all of it. */
static int save_as_erase(struct app *app, int key)
{
	size_t length = strlen(app->answer);

	if (key == APP_KEY_CTRL_U) {
		app->answer[0] = '\0';
		return REDRAW_STATUS;
	}
	/* One character: back over UTF-8 continuation bytes. */
	while (length > 0 && ((unsigned char)app->answer[length - 1] & 0xc0) == 0x80)
		app->answer[--length] = '\0';
	if (length > 0)
		app->answer[length - 1] = '\0';
	return REDRAW_STATUS;
}

/* Enter on a typed name: what is there is looked at first (a folder, a file). */
static int save_as_enter(struct app *app, int key)
{
	(void)key;
	if (app->answer[0] == '\0')
		return REDRAW_NONE;
	ask(app, APP_REQUEST_LOOK, app->answer, LOOK_SAVE_AS);
	return REDRAW_STATUS;
}

/* Any other key while a name is typed: a printable character is added to it. */
static int save_as_type(struct app *app, int key)
{
	size_t length = strlen(app->answer);

	if (key >= 0x20 && key < APP_KEY_UP && !qkv_is_control(key)) {
		char bytes[4];
		size_t count = utf8_encode((unsigned int)key, bytes);

		if (count > 0 && length + count < sizeof app->answer) {
			memcpy(app->answer + length, bytes, count);
			app->answer[length + count] = '\0';
		}
	}
	return REDRAW_STATUS;
}

/* A key while a question is asked: its binding in the key table; a name's text. */
static int prompt_key(struct app *app, int key)
{
	const struct app_binding *b = app_binding_find(app_key_context(app), key);

	if (b != NULL)
		return b->handler(app, key);
	return app->prompt == PROMPT_SAVE_AS ? save_as_type(app, key) : REDRAW_NONE;
}

/* "undone" or "redone", and what moved back. */
static void say_undone(struct app *app, bool redo)
{
	char reach[APP_MESSAGE_MAX];
	bool same_shape = app->previous_valid && app->previous_n == app->trace.n &&
			  app->previous[QKV_GRID_OUTPUT].cols == app->trace.output.cols;

	reach[0] = '\0';
	if (same_shape)
		app_reach_words(app, reach, sizeof reach);
	say(app, false, "%s%s%s%s", redo ? "redone" : "undone", reach[0] != '\0' ? ": " : "", reach,
	    app->dirty ? "" : " · the problem is as it was loaded or last saved");
}

/* Undoes (or redoes) the last change, the cursor back where it was made. */
static int undo_redo(struct app *app, bool redo)
{
	struct history_place place;
	int rc, was_head;
	bool done = redo ? history_redo(&app->history, &app->problem, &place)
			 : history_undo(&app->history, &app->problem, &place);

	if (!done) {
		say(app, false, redo ? "nothing to redo" : "nothing to undo");
		return REDRAW_STATUS;
	}
	if ((app->jobs_always || trace_cost(&app->problem) > JOB_COST) &&
	    start_trace_job(app, redo ? REPLAY_REDO : REPLAY_UNDO, false, redo ? "redone" : "undone", &place))
		return REDRAW_ALL;
	update_dirty(app);
	was_head = app->head;
	if (app->problem.h > 0 && place.head >= 0 && place.head < app->problem.h)
		app->head = place.head; /* the class sees the head the change was in */
	if ((rc = recompute(app, true)) != 0) {
		/* Back to where it was: the step is taken back the other way. */
		if (redo)
			history_undo(&app->history, &app->problem, &place);
		else
			history_redo(&app->history, &app->problem, &place);
		update_dirty(app);
		app->head = was_head;
		if (recompute(app, false) == 0)
			say(app, true, "cannot compute: %s: nothing was %s", qkv_error_string(rc), redo ? "redone" : "undone");
		return REDRAW_ALL | REDRAW_LAYOUT;
	}
	if (place.focus >= 0 && place.focus < QKV_GRID_COUNT &&
	    (app_focus_is_input(app, (enum qkv_grid)place.focus) || place.focus >= QKV_GRID_WEIGHTS)) {
		app->focus = (enum qkv_grid)place.focus;
		app->cursor[app->focus].row = place.row;
		app->cursor[app->focus].col = place.col;
		clamp_cursors(app);
	}
	say_undone(app, redo);
	return REDRAW_ALL;
}

/* Recomputes the sweep for the present parameters; a large one runs as a job, and
 * Esc then goes back to tokens and trials (whose sweep is still shown). */
static void run_sweep(struct app *app, int tokens, int trials)
{
	struct job *job;
	int count;

	if (sweep_cost(app->sweep_tokens, app->sweep_trials, app->sweep_dk_max) > JOB_COST &&
	    (job = job_new(JOB_SWEEP)) != NULL) {
		job->tokens = app->sweep_tokens;
		job->trials = app->sweep_trials;
		job->seed = app->sweep_seed;
		job->d_k_max = app->sweep_dk_max;
		app->job = job;
		app->job_tokens = tokens;
		app->job_trials = trials;
		snprintf(app->job_what, sizeof app->job_what, "the sweep of %d tokens × %d trials up to d_k %d",
			 job->tokens, job->trials, job->d_k_max);
		app->job_started_ms = app->now_ms;
		app->job_refused = false;
		job_start(job);
		say_progress(app);
		return;
	}

	count = qkv_sweep(app->sweep_tokens, app->sweep_trials, app->sweep_seed, app->sweep_dk_max,
			  app->sweep);

	app->sweep_count = count > 0 ? count : 0;
	if (count < 0)
		say(app, true, "the sweep failed: %s", qkv_error_string(count));
}

/* Keys inside the saturation view: tokens and trials of the sweep. */
static int saturation_key(struct app *app, int key)
{
	int tokens = app->sweep_tokens, trials = app->sweep_trials;

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
	run_sweep(app, tokens, trials);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* Opens the cost view's table for the problem's d_k and starts measuring it. */
static void cost_start(struct app *app)
{
	int d_k = app->trace.d_k >= 1 ? app->trace.d_k : 64, rc;
	/* A multi-head problem is priced as its h heads, each of its d_k. */
	int heads = app->problem.h > 0 ? app->problem.h : 1;

	if (app->clock == NULL) {
		say(app, true, "the cost view needs a clock to measure with");
		app->overlay = OVERLAY_NONE;
		return;
	}
	app->cost = malloc(sizeof *app->cost);
	rc = app->cost == NULL ? QKV_ENOMEM : qkv_cost_init(app->cost, d_k, heads, app->cost_last_n, 3000.0);
	if (rc != 0) {
		free(app->cost);
		app->cost = NULL;
		app->overlay = OVERLAY_NONE;
		say(app, true, "cannot measure: %s", qkv_error_string(rc));
		return;
	}
	app->cost_running = true;
	say(app, false, "measuring the trace for n = 16 … %d on this machine: Esc cancels", app->cost_last_n);
}

/* Closes the cost view: a measurement under way is cancelled, its storage freed. */
static void cost_stop(struct app *app)
{
	if (app->cost == NULL)
		return;
	if (app->cost_running)
		say(app, false, "cost measurement cancelled at n = %d", app->cost->n);
	qkv_cost_fini(app->cost);
	free(app->cost);
	app->cost = NULL;
	app->cost_running = false;
}

/* One slice of the cost measurement; the view redraws with each. */
static int cost_tick(struct app *app)
{
	int rc;

	if (app->overlay != OVERLAY_COST || !app->cost_running)
		return REDRAW_NONE;
	rc = qkv_cost_step(app->cost, APP_COST_SLICE_MS, app->clock, app->clock_context);
	if (rc <= 0) {
		app->cost_running = false;
		if (rc < 0)
			say(app, true, "the measurement stopped at n = %d: %s", app->cost->n, qkv_error_string(rc));
		else
			say(app, false, "measured n = 16 … %d: C or Esc closes",
			    app->cost->rows[app->cost->count - 1].n);
		return REDRAW_OVERLAY | REDRAW_STATUS;
	}
	return REDRAW_OVERLAY;
}

/* Opens overlay, or closes it when open (starting and stopping what it runs). */
static int toggle_overlay(struct app *app, enum app_overlay overlay)
{
	enum app_overlay before = app->overlay;

	app->overlay = app->overlay == overlay ? OVERLAY_NONE : overlay;
	app->help_page = 0;
	if (before == OVERLAY_COST && app->overlay != OVERLAY_COST)
		cost_stop(app);
	if (app->overlay == OVERLAY_COST && before != OVERLAY_COST)
		cost_start(app);
	if (app->overlay == OVERLAY_SATURATION) {
		/* Start from the problem's own number of tokens, at least the default 16:
		 * a sweep of 3 tokens has too few scores for a curve that shows the trend. */
		int tokens = app->sweep_tokens;

		app->sweep_tokens = clamp(app->problem.n > QKV_SWEEP_TOKENS ? app->problem.n : QKV_SWEEP_TOKENS,
					  2, 256);
		run_sweep(app, tokens, app->sweep_trials);
	}
	return REDRAW_ALL;
}

/* The token the cursor is on (the selected query off the token grids). */
static int current_token(const struct app *app)
{
	if (app->focus == QKV_GRID_WEIGHTS || app->focus == QKV_GRID_OUTPUT ||
	    app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_LAYER)
		return app->cursor[app->focus].row;
	if (app_focus_is_input(app, app->focus) && app->focus != QKV_GRID_W_Q &&
	    app->focus != QKV_GRID_W_K && app->focus != QKV_GRID_W_V && app->focus != QKV_GRID_W_O)
		return app->cursor[app->focus].row;
	return app_query(app);
}

/* Puts the cursors that follow a token (the focused token grid's, the query's) on it. */
static void select_token(struct app *app, int token)
{
	if (app->focus == QKV_GRID_Q || app->focus == QKV_GRID_K || app->focus == QKV_GRID_V || app->focus == QKV_GRID_X ||
	    app->focus == QKV_GRID_WEIGHTS || app->focus == QKV_GRID_OUTPUT ||
	    app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_LAYER)
		app->cursor[app->focus].row = token;
	else
		app->cursor[QKV_GRID_WEIGHTS].row = token;
	clamp_cursors(app);
	move_cursor(app, 0, 0);
}

/* Records a change of d_k from d_k to target (drawn columns from N(0,1) with seed,
 * zero columns, or dropped ones when it shrinks) in the run of d_k changes; when
 * it continues the run (the action just before made the run's last change, d_k is
 * where that left it, and d_k moves the same way), done becomes the whole run's
 * sentence: "d_k = 512 (from 2): 510 new columns of Q and K drawn …". */
static void d_k_run_words(struct app *app, int d_k, int target, int drawn, int zeros, const char *pair,
			  uint64_t seed, char *done, size_t size)
{
	struct app_d_k_run *run = &app->d_k_run;
	bool up = target > d_k;
	struct qkv_buffer w;

	if (run->action + 1 != app->actions || run->to != d_k || (run->to > run->from) != up ||
	    run->from == run->to) {
		run->from = d_k;
		run->drawn = run->zeros = run->dropped = 0;
	}
	run->action = app->actions;
	run->to = target;
	run->drawn += drawn;
	run->zeros += zeros;
	run->dropped += up ? 0 : d_k - target;
	if (run->from == d_k)
		return; /* one change: its own sentence */
	w = (struct qkv_buffer){ done, size, 0 };
	qkv_buffer_put(&w, "d_k = %d (from %d): ", target, run->from);
	if (!up)
		qkv_buffer_put(&w, "the last %d columns of %s dropped", run->dropped, pair);
	if (run->drawn > 0)
		qkv_buffer_put(&w, "%d new column%s of %s drawn from N(0,1), seed %llu", run->drawn,
			       run->drawn > 1 ? "s" : "", pair, (unsigned long long)seed);
	if (run->zeros > 0 && run->drawn > 0)
		qkv_buffer_put(&w, ", and %d zero column%s added", run->zeros, run->zeros > 1 ? "s" : "");
	else if (run->zeros > 0)
		qkv_buffer_put(&w, "%d zero column%s added to %s", run->zeros, run->zeros > 1 ? "s" : "", pair);
}

/* o x ] [ > < } {: tokens, d_k, d_model and d_v. */
static int structure_key(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	int d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p);
	char done[192];

	switch (key) {
	case 'o':
		/* A new token after the cursor's, and the cursor on it (after_change): x then
		 * removes it again. */
		return change_problem(app, change_insert_token, current_token(app), NULL);
	case 'x':
		if (p->n <= 1) {
			say(app, true, "the last token cannot be removed");
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "token %s removed", p->tokens[current_token(app)]);
		return change_problem(app, change_remove_token, current_token(app), done);
	case ']':
	case '[':
		if (app->focus == QKV_GRID_X) {
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
		const char *pair = p->form == QKV_FORM_DIRECT ? "Q and K"
				   : p->h > 0 ? "every head's W_Q and W_K" : "W_Q and W_K";

		if (target < 1 || target > QKV_MAX_DIM) {
			say(app, true, "d_k stays %d: it goes from 1 to %d", d_k, QKV_MAX_DIM);
			return REDRAW_STATUS;
		}
		if (target < d_k) {
			snprintf(done, sizeof done, "d_k = %d: the last %d column%s of %s dropped", target, d_k - target,
				 d_k - target > 1 ? "s" : "", pair);
			d_k_run_words(app, d_k, target, 0, 0, pair, 0, done, sizeof done);
		} else if (p->seeded && p->form == QKV_FORM_DIRECT) {
			snprintf(done, sizeof done, "d_k = %d: %d new column%s of %s drawn from N(0,1), seed %llu", target,
				 target - d_k, target - d_k > 1 ? "s" : "", pair, (unsigned long long)p->seed);
			d_k_run_words(app, d_k, target, target - d_k, 0, pair, p->seed, done, sizeof done);
		} else if (key == '>' && p->h == 0) {
			/* The saturation lesson needs N(0,1) columns, whatever the problem. */
			snprintf(done, sizeof done, "d_k = %d: %d new column%s of %s drawn from N(0,1), seed %llu "
				 "(] adds a zero column)", target, target - d_k, target - d_k > 1 ? "s" : "", pair,
				 (unsigned long long)app->column_seed);
			d_k_run_words(app, d_k, target, target - d_k, 0, pair, app->column_seed, done, sizeof done);
			return change_problem(app, change_draw_d_k, target, done);
		} else {
			snprintf(done, sizeof done, "d_k = %d: a zero column added to %s", target, pair);
			d_k_run_words(app, d_k, target, 0, target - d_k, pair, app->column_seed, done, sizeof done);
		}
		return change_problem(app, change_d_k, target, done);
	}
	case '}':
	case '{': {
		int target = key == '}' ? d_v + 1 : d_v - 1;

		if (target < 1 || target > QKV_MAX_DIM) {
			say(app, true, "d_v stays %d: it goes from 1 to %d", d_v, QKV_MAX_DIM);
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, p->h > 0 ? "d_v = %d in every head (W_O has h·d_v rows)"
						      : "d_v = %d", target);
		return change_problem(app, change_d_v, target, done);
	}
	default:
		return -1;
	}
}

/* The query rows whose weights do not sum to 1 at two decimals, with their sums:
 * "rows t1 and t2 (0.33, 0.67)". Returns how many there are. */
static int rows_off_one(const struct app *app, struct qkv_buffer *w)
{
	const struct qkv_trace *t = &app->trace;
	int count = 0, named = 0;
	char sum[32];

	for (int i = 0; i < t->n; i++) {
		qkv_format_number(sum, sizeof sum, t->rows[i].weight_sum, 2);
		count += strcmp(sum, "1.00") != 0;
	}
	if (count == 0)
		return 0;
	qkv_buffer_put(w, count == 1 ? "row " : count <= NAMES_MAX ? "rows " : "%d rows, ", count);
	for (int i = 0; i < t->n && named < NAMES_MAX; i++) {
		qkv_format_number(sum, sizeof sum, t->rows[i].weight_sum, 2);
		if (strcmp(sum, "1.00") == 0)
			continue;
		qkv_buffer_put(w, "%s%s", named == 0 ? "" : named + 1 == count ? " and " : ", ", app->problem.tokens[i]);
		named++;
	}
	if (count > NAMES_MAX)
		qkv_buffer_put(w, ", …");
	qkv_buffer_put(w, " (Σ ");
	named = 0;
	for (int i = 0; i < t->n && named < NAMES_MAX; i++) {
		qkv_format_number(sum, sizeof sum, t->rows[i].weight_sum, 2);
		if (strcmp(sum, "1.00") == 0)
			continue;
		qkv_buffer_put(w, "%s%s", named == 0 ? "" : ", ", sum);
		named++;
	}
	qkv_buffer_put(w, count > NAMES_MAX ? ", …)" : ")");
	return count;
}

/* True when every column of weights sums to 1 at two decimals. */
static bool columns_sum_to_one(const struct app *app)
{
	const struct qkv_trace *t = &app->trace;
	char text[32];

	for (int j = 0; j < t->n; j++) {
		double sum = 0.0;

		for (int i = 0; i < t->n; i++)
			sum += qkv_matrix_get(&t->weights, i, j);
		qkv_format_number(text, sizeof text, sum, 2);
		if (strcmp(text, "1.00") != 0)
			return false;
	}
	return true;
}

/* True when some query does not see some key. */
static bool any_key_masked(const struct app *app)
{
	size_t cells = (size_t)app->trace.n * (size_t)app->trace.n;

	for (size_t i = 0; i < cells; i++)
		if (app->trace.masked[i])
			return true;
	return false;
}

/* What the wrong-way demonstration in force does to these numbers. Masking after
 * softmax only shows where a key is masked, so with no mask it says so and offers
 * the causal mask (m). */
static void wrong_words(struct app *app, const char *prefix)
{
	char text[APP_MESSAGE_MAX];
	struct qkv_buffer w = { text, sizeof text, 0 };

	qkv_buffer_put(&w, "%s", prefix);
	switch (app->problem.wrong) {
	case QKV_WRONG_MASK_AFTER_SOFTMAX:
		qkv_buffer_put(&w, "WRONG WAY: mask after softmax — ");
		if (!any_key_masked(app))
			qkv_buffer_put(&w, "no key is masked, so nothing changes (try m)");
		else if (rows_off_one(app, &w) > 0)
			qkv_buffer_put(&w, " no longer sum to 1");
		else
			qkv_buffer_put(&w, "every row still sums to 1");
		break;
	case QKV_WRONG_COLUMN_SOFTMAX:
		qkv_buffer_put(&w, "WRONG WAY: softmax down the columns — %s", columns_sum_to_one(app) ? "columns sum to 1; " : "");
		if (rows_off_one(app, &w) > 0)
			qkv_buffer_put(&w, " do not");
		else
			qkv_buffer_put(&w, "every row happens to sum to 1 as well");
		break;
	case QKV_WRONG_NONE:
	default:
		qkv_buffer_put(&w, "the right way again: every row of weights sums to 1");
		break;
	}
	say(app, app->problem.wrong != QKV_WRONG_NONE, "%s", text);
}

/* What a change says once made, and where the cursor then goes: the words that need
 * the new problem and its trace. The same whether the change was made between two
 * keys (change_problem) or by a job (take_job). */
static void after_change(struct app *app, job_change change, int argument)
{
	const struct qkv_problem *p = &app->problem;

	if (change == change_insert_token && argument + 1 < p->n) {
		select_token(app, argument + 1);
		say(app, false, "token %s added after %s; the cursor is on it (x removes it)", p->tokens[argument + 1],
		    p->tokens[argument]);
	} else if (change == change_mask && p->wrong != QKV_WRONG_NONE) {
		char prefix[64];

		/* Short, so that what the demonstration now shows fits the line. */
		snprintf(prefix, sizeof prefix, "mask %s · ", qkv_mask_name(p->mask));
		wrong_words(app, prefix);
	} else if (change == change_wrong) {
		wrong_words(app, "");
	} else if (change == change_identity && argument == 1) {
		char words[APP_MESSAGE_MAX - 64];

		qkv_describe_self(words, sizeof words, &app->problem, &app->trace, 2);
		say(app, false, "W_Q = W_K = W_V = identity, so Q = K = V = X: %s", words);
	}
}

/* s t T m W I z r: the scaling, temperature, mask, wrong ways, identity, padding and random values. */
static int option_key(struct app *app, int key)
{
	const struct qkv_problem *p = &app->problem;
	static const char *const mask_names[] = { "none", "causal (query i sees keys j ≤ i)",
						  "custom (Enter on a weight toggles it)" };
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

		if (index < 0) {
			say(app, false, "τ stays %g: the steps go from %g to %g", p->temperature, temperatures[0],
			    temperatures[TEMPERATURE_COUNT - 1]);
			return REDRAW_STATUS;
		}
		snprintf(done, sizeof done, "temperature τ = %g", temperatures[index]);
		return change_problem(app, change_temperature, index, done);
	}
	case 'm': {
		int next = (p->mask + 1) % (QKV_MASK_CUSTOM + 1);

		snprintf(done, sizeof done, "mask: %s", mask_names[next]);
		return change_problem(app, change_mask, next, done); /* after a wrong way: after_change */
	}
	case 'W':
		/* What the demonstration shows: after_change. */
		return change_problem(app, change_wrong, (p->wrong + 1) % (QKV_WRONG_COLUMN_SOFTMAX + 1), NULL);
	case 'I':
		if (p->h > 0) {
			say(app, true, "I ties W_Q, W_K and W_V to the identity in a one-head problem; "
				       "here each of the %d heads has its own", p->h);
			return REDRAW_STATUS;
		}
		if (p->form != QKV_FORM_PROJECTED) {
			say(app, true, "this problem gives Q, K and V directly: there are no projections to tie");
			return REDRAW_STATUS;
		}
		if (app_projections_tied(app) && app->untied[0].rows == p->x.cols)
			return change_problem(app, change_identity, 0, "projections learned again: W_Q, W_K, W_V as they were");
		return change_problem(app, change_identity, 1, NULL); /* the words: after_change */
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
			 (unsigned long long)next_seed(p));
		return change_problem(app, change_random, 0, done);
	default:
		return -1;
	}
}

/* Enter: edits an input's cell; on a weight of a custom mask, toggles its bit. */
static int key_enter(struct app *app, int key)
{
	struct qkv_problem *p = &app->problem;

	(void)key;
	if (app_focus_is_input(app, app->focus)) {
		start_edit(app, 0);
		return REDRAW_INPUTS | REDRAW_STATUS;
	}
	if (app->focus == QKV_GRID_WEIGHTS && p->mask == QKV_MASK_CUSTOM) {
		const struct app_cursor *c = &app->cursor[QKV_GRID_WEIGHTS];

		return change_problem(app, change_mask_bit, c->row * p->n + c->col,
				      "mask bit toggled");
	}
	say(app, false, "the %s grid is computed from %s: edit those", app_focus_name(app->focus),
	    p->form == QKV_FORM_DIRECT ? "Q, K and V" : "X and the W's");
	return REDRAW_STATUS;
}

/* The arrows and h j k l: move the cursor in the focused grid. */
static int key_move(struct app *app, int key)
{
	switch (key) {
	case APP_KEY_UP: case 'k': return move_cursor(app, -1, 0);
	case APP_KEY_DOWN: case 'j': return move_cursor(app, 1, 0);
	case APP_KEY_LEFT: case 'h': return move_cursor(app, 0, -1);
	default: return move_cursor(app, 0, 1);
	}
}

/* Tab and Shift-Tab: the next or previous grid. */
static int key_focus(struct app *app, int key)
{
	return cycle_focus(app, key == APP_KEY_TAB ? 1 : -1);
}

/* PgDn, Space, n and PgUp, p: the next or previous stage. */
static int key_stage(struct app *app, int key)
{
	return step_stage(app, key == APP_KEY_PAGE_UP || key == 'p' ? -1 : 1);
}

/* Home: every stage live; End: the last stage. */
static int key_home_end(struct app *app, int key)
{
	if (key == APP_KEY_HOME) {
		app->stage = APP_STAGE_LIVE;
		say(app, false, "all stages live");
	} else {
		app->stage = app_last_stage(app);
		focus_for_stage(app);
		say_stage(app);
	}
	return REDRAW_ALL;
}

/* A digit, a point or a decimal comma: starts an edit of an input's cell with it. */
static int key_digit(struct app *app, int key)
{
	if (app_focus_is_input(app, app->focus)) {
		start_edit(app, key == ',' ? '.' : key);
		if (key == ',')
			say(app, false, "a decimal comma is read as a decimal point");
		return REDRAW_INPUTS | REDRAW_STATUS;
	}
	say(app, true, "the %s grid is computed: edit %s", app_focus_name(app->focus),
	    app->problem.form == QKV_FORM_DIRECT ? "Q, K or V" : "X or a W");
	return REDRAW_STATUS;
}

/* H and b: the next head of a multi-head problem. */
static int key_head(struct app *app, int key)
{
	(void)key;
	return step_head(app, 1);
}

/* + (or =) and −: nudge the selected cell by the step. */
static int key_nudge(struct app *app, int key)
{
	const struct app_cursor *c = &app->cursor[app->focus];

	return nudge(app, app->focus, c->row, c->col, key == '-' ? -app->step : app->step);
}

/* u and Ctrl-R: undo and redo. */
static int key_undo(struct app *app, int key)
{
	return undo_redo(app, key == APP_KEY_CTRL_R);
}

/* A: steps the stages on its own, a step every pace_s seconds. */
static int key_autoplay(struct app *app, int key)
{
	(void)key;
	app->autoplay = true;
	app->next_step_ms = app->now_ms + (int64_t)(app->pace_s * 1000.0);
	say(app, false, "autoplay: a step every %g s; any key stops it", app->pace_s);
	return REDRAW_STATUS;
}

/* S, C, D and ?: open or close their overlay. */
static int key_overlay(struct app *app, int key)
{
	return toggle_overlay(app, key == 'S' ? OVERLAY_SATURATION : key == 'C' ? OVERLAY_COST
				   : key == 'D' ? OVERLAY_DESCRIBE : OVERLAY_HELP);
}

/* P: projector mode on or off; c: the next of the interface's palettes. */
static int key_look(struct app *app, int key)
{
	if (key == 'P') {
		app->projector = !app->projector;
		say(app, false, "projector mode %s", app->projector ? "on" : "off");
		return REDRAW_ALL | REDRAW_LAYOUT;
	}
	app->palette = (app->palette + 1) % app->palette_count;
	if (qkv_colour_palette_name(app->palette) != NULL)
		say(app, false, "palette: %s", qkv_colour_palette_name(app->palette));
	return REDRAW_ALL | REDRAW_STATUS;
}

/* R: the weights' colour scale over 0–1 or over each row's own range. */
static int key_range(struct app *app, int key)
{
	(void)key;
	app->auto_range = !app->auto_range;
	say(app, false, "weights colour scale: %s", app->auto_range ? "each row's own range (auto)" : "fixed 0 to 1");
	return REDRAW_ATTENTION | REDRAW_STATUS;
}

/* w: saves to the file (asking first when it changed on disk), or asks for a name. */
static int key_save(struct app *app, int key)
{
	(void)key;
	app->exporting = false;
	if (app->path != NULL) {
		ask(app, APP_REQUEST_LOOK, app->path, LOOK_BEFORE_SAVE);
		return REDRAW_STATUS;
	}
	app->prompt = PROMPT_SAVE_AS;
	app->answer[0] = '\0';
	return REDRAW_STATUS;
}

/* L: opens the learning view (its own keys inside it: app/learning.c). */
static int key_learning(struct app *app, int key)
{
	(void)key;
	if (app_learning_open(app, NULL) != 0)
		say(app, true, "out of memory: no learning view");
	return REDRAW_ALL;
}

/* E: asks for the figure's name (its ending the format), as w asks for a file's;
 * a figure above the cells a figure draws is refused before the name is asked. */
static int key_export(struct app *app, int key)
{
	struct figure_options o;
	char err[256];

	(void)key;
	app_figure_options(app, &o);
	if (figure_check_size(&app->problem, &app->trace, &o, err, sizeof err) != 0) {
		say(app, true, "%s", err);
		return REDRAW_STATUS;
	}
	app->exporting = true;
	app->prompt = PROMPT_SAVE_AS;
	app->answer[0] = '\0';
	return REDRAW_STATUS;
}

/* Ctrl-S: no flow control here; the status line says which key saves. */
static int key_ctrl_s(struct app *app, int key)
{
	(void)key;
	say(app, false, "Ctrl-S does nothing here: w saves");
	return REDRAW_STATUS;
}

/* q, Ctrl-C, Ctrl-\: ends qkv, asking first when there are unsaved changes. */
static int key_quit(struct app *app, int key)
{
	(void)key;
	if (app->dirty) {
		app->prompt = PROMPT_QUIT;
		return REDRAW_STATUS;
	}
	app->quit = true;
	return REDRAW_NONE;
}

/* Esc: closes the overlay, or clears the message. */
static int key_escape(struct app *app, int key)
{
	(void)key;
	if (app->overlay != OVERLAY_NONE)
		return toggle_overlay(app, app->overlay);
	app->message[0] = '\0';
	return REDRAW_STATUS;
}

/* Ctrl-L: everything drawn again. */
static int key_redraw(struct app *app, int key)
{
	(void)app;
	(void)key;
	return REDRAW_ALL | REDRAW_LAYOUT;
}

#define K_MAIN (APP_KEYS_LIVE | APP_KEYS_STAGES)

/* In the help, PgDn Space n and PgUp p: its next page and the one before, when
 * there is one (app_help_layout at the app's screen size; help_page_after gives
 * it, or -1); otherwise nothing, and the key closes the help as any other does. */
static int help_page_after(const struct app *app, int key)
{
	struct app_help help;
	int page = app->help_page + (key == APP_KEY_PAGE_UP || key == 'p' ? -1 : 1);

	app_help_layout(&help, app->width, app->height);
	return page >= 0 && page < help.pages ? page : -1;
}

static int key_help_page(struct app *app, int key)
{
	int page = help_page_after(app, key);

	if (page < 0)
		return REDRAW_NONE;
	app->help_page = page;
	return REDRAW_ALL;
}

/* Every key: where it works, how the help, the status line and the manual page
 * name it, and what it does. The help overlay, the status line's hints and the
 * dispatch below read this table; tests/test_keys.c checks the manual page's KEYS
 * section against it. Order: the status line's, and the help's inside a group (the
 * help's headings come in the order they first appear: src/app/help.c). A note
 * fits a help column (APP_KEY_NAME_MAX, APP_KEY_NOTE_MAX). */
const struct app_binding app_bindings[] = {
	{ { APP_KEY_PAGE_DOWN, ' ', 'n' }, K_MAIN, "PgDn Space n", "next stage",
	  "PgDn next stage", K_MAIN, key_stage, NULL, "the stage walk" },
	{ { APP_KEY_PAGE_UP, 'p' }, K_MAIN, "PgUp p", "previous stage", "PgUp back", APP_KEYS_STAGES, key_stage,
	  NULL, "the stage walk" },
	{ { APP_KEY_HOME, APP_KEY_END }, K_MAIN, "Home End", "all live / last stage", "Home all live",
	  APP_KEYS_STAGES, key_home_end, NULL, "the stage walk" },
	{ { 'A' }, K_MAIN, "A", "autoplay (a key stops)", "A autoplay", APP_KEYS_STAGES, key_autoplay,
	  "autoplay through the stages, a step every --pace seconds (any key stops it)", "the stage walk" },
	{ { APP_KEY_UP, 'k', APP_KEY_DOWN, 'j', APP_KEY_LEFT, 'h', APP_KEY_RIGHT, 'l' }, K_MAIN, "arrows hjkl",
	  "move the cursor", "arrows move the cell", APP_KEYS_STAGES, key_move,
	  "move the cursor in the focused matrix", "cells" },
	{ { APP_KEY_TAB, APP_KEY_BACKTAB }, K_MAIN, "Tab Shift-Tab", "next / previous matrix", "Tab matrix",
	  APP_KEYS_LIVE, key_focus, NULL, "cells" },
	{ { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', ',' }, K_MAIN, "0-9 .", "type a cell's value",
	  "0-9 edit", APP_KEYS_LIVE, key_digit,
	  "edit the selected cell, starting with the key typed (a decimal comma is the point); Enter keeps, "
	  "Esc cancels", "cells" },
	{ { APP_KEY_ENTER }, K_MAIN, "Enter", "edit / mask bit", NULL, 0, key_enter,
	  "edit the selected cell; Enter keeps, Esc cancels. On a weight in a custom mask: toggle its mask bit",
	  "cells" },
	{ { '+', '=', '-' }, K_MAIN, "+ -", "nudge by the step", "+/- nudge", APP_KEYS_LIVE, key_nudge,
	  "nudge the selected cell up / down by the step (= is + too)", "cells" },
	{ { 'u', APP_KEY_CTRL_R }, K_MAIN, "u Ctrl-R", "undo, redo", "u undo", APP_KEYS_LIVE, key_undo, NULL, "cells" },
	{ { 'H', 'b' }, K_MAIN, "H b", "next head (multi-head)", "H next head", K_MAIN, key_head,
	  "multi-head problems: select the next head (b is a key presentation clickers send); the single-head "
	  "panels and stages 0–5 then show that head, and stages 6 (the concatenation) and 7 (the output "
	  "Concat W_O, with each head's share of the selected cell) follow stage 5", "cells" },
	{ { '?' }, K_MAIN, "?", "this help", "? help", K_MAIN, key_overlay, NULL, "views" },
	{ { 'o', 'x' }, K_MAIN, "o x", "add / remove a token", NULL, 0, structure_key,
	  "add a token after the cursor's and put the cursor on it / remove the cursor's token "
	  "(so x right after o takes the new token away again)", "the shape" },
	{ { ']', '[', '}', '{' }, K_MAIN, "] [ } {", "d_k + / −, d_v + / −", NULL, 0, structure_key,
	  "] and [ add / remove a column of Q and K (d_k); on X, a column of X and a row of every W "
	  "(d_model); } and { add / remove a column of V (d_v)", "the shape" },
	{ { APP_KEY_UP, 'k', APP_KEY_DOWN, 'j' }, APP_KEYS_SATURATION, "S: ↑ ↓ k j", "tokens × 2 / ÷ 2",
	  "↑↓ tokens", APP_KEYS_SATURATION, saturation_key, "in the saturation view: tokens × 2 / ÷ 2",
	  "the saturation view (S)" },
	{ { APP_KEY_RIGHT, 'l', APP_KEY_LEFT, 'h' }, APP_KEYS_SATURATION, "S: → ← l h", "trials × 2 / ÷ 2",
	  "←→ trials", APP_KEYS_SATURATION, saturation_key, "in the saturation view: trials × 2 / ÷ 2",
	  "the saturation view (S)" },
	{ { '>', '<' }, K_MAIN, "> <", "d_k × 2 / ÷ 2", "> < d_k", APP_KEYS_SATURATION, structure_key,
	  "double / halve d_k; the new columns of Q and K are drawn from N(0,1) with the seed the status line "
	  "shows (a random problem's own seed), so the saturation lesson works from any problem", "the shape" },
	{ { 's', 't', 'T' }, K_MAIN, "s t T", "scale on/off, τ −/+", "s scale", APP_KEYS_LIVE | APP_KEYS_SATURATION,
	  option_key, "s: scale by √d_k or not at all; t and T: temperature τ down / up (softmax of S / (τ·√d_k))",
	  "the computation" },
	{ { 'm', 'z' }, K_MAIN, "m z", "mask, padding token", NULL, 0, option_key,
	  "m: mask none → causal → custom (in custom, Enter on a weight toggles its mask bit); z: mark the "
	  "cursor's token as padding, no query sees it as a key (again to unmark)", "the computation" },
	{ { 'I' }, K_MAIN, "I", "tie W's to identity", NULL, 0, option_key,
	  "tie W_Q, W_K and W_V to the identity (Q = K = V = X) and back; problems with X only", "the computation" },
	{ { 'W' }, K_MAIN, "W", "wrong-way demos", NULL, 0, option_key,
	  "“wrong way” demonstrations: mask after softmax, softmax down columns", "the computation" },
	{ { 'r' }, K_MAIN, "r", "random N(0,1) Q, K, V", NULL, 0, option_key,
	  "fill Q, K and V with seeded random N(0,1) values (the seed is shown)", "the computation" },
	{ { 'S' }, K_MAIN, "S", "saturation view", "S close", APP_KEYS_SATURATION, key_overlay,
	  "saturation view: the d_k sweep, scaled against unscaled, in braille charts as tall as the screen "
	  "allows", "views" },
	{ { 'L' }, K_MAIN, "L", "learning view", "L close", APP_KEYS_LEARNING, key_learning,
	  "learning view: the same task, seed and d_k trained with √d_k scaling and without, side by side "
	  "(weights, loss, accuracy, gradient and Jacobian norms, W_Q and W_K); there space runs or pauses, "
	  ". steps once, r starts again, > / < double or halve d_k, + / - change the speed, Tab and the "
	  "arrows choose the gradient cell whose derivation is shown, x switches that derivation between the "
	  "runs, and E shows the experiment: the steps to 90% over d_k = 4 … 256 for five seeds, scaled "
	  "against unscaled, run between keys, as a table, a chart and a sentence computed from them", "views" },
	{ { 'C' }, K_MAIN, "C", "cost of n²", NULL, 0, key_overlay,
	  "cost view: the trace measured on this machine for n = 16 ... 4096 tokens with the problem's d_k "
	  "(scores, bytes of S, S' and A in double and in 16-bit floats, flops, time), the fitted slope of "
	  "log time against log n, and the extrapolation to 10,000 and 100,000 tokens in words; it measures "
	  "a slice at a time, the interface stays live, and Esc cancels (see --cost)", "views" },
	{ { 'D' }, K_MAIN, "D", "the weights in words", NULL, 0, key_overlay,
	  "describe: each row's strongest key and entropy, in words", "views" },
	{ { 'R' }, K_MAIN, "R", "colour range 0–1 / row", NULL, 0, key_range,
	  "weights colour scale: fixed 0–1 or each row's own range (the legend then shows the selected row's "
	  "range)", "views" },
	{ { 'P', 'c' }, K_MAIN, "P c", "projector, palette", NULL, 0, key_look,
	  "P: projector mode on / off; c: the next palette (viridis, projector, 8, mono)", "views" },
	{ { 'w' }, K_MAIN, "w", "save", NULL, 0, key_save,
	  "save (asks first when the file changed on disk since qkv read it; without a file, asks for a name)",
	  "file and screen" },
	{ { 'E' }, K_MAIN, "E", "export a figure", NULL, 0, key_export,
	  "export the stage on screen as a figure (the weights in the live view): asks for a name like w; its "
	  "ending, .svg, .pdf or .png, picks the format; drawn beside the interface (Esc cancels), written "
	  "atomically, in the palette on screen, the selected cell framed; at most 250,000 cells (in the "
	  "learning view, E is its experiment)", "file and screen" },
	{ { APP_KEY_CTRL_S }, K_MAIN, "Ctrl-S", "nothing (w saves)", NULL, 0, key_ctrl_s,
	  "nothing: the terminal's flow control is off while qkv runs, and w saves", "file and screen" },
	{ { 'q', APP_KEY_CTRL_C, APP_KEY_CTRL_BACKSLASH }, K_MAIN, "q", "quit (Ctrl-C, Ctrl-\\)", "q quit",
	  APP_KEYS_LIVE, key_quit, "quit, as Ctrl-\\ does (asks first when there are unsaved changes)",
	  "file and screen" },
	{ { APP_KEY_ESCAPE }, K_MAIN, "Esc", "close, cancel", NULL, 0, key_escape,
	  "close an overlay; cancel an edit or a question", "file and screen" },
	{ { APP_KEY_CTRL_L }, K_MAIN, "Ctrl-L", "draw the screen again", NULL, 0, key_redraw, NULL, "file and screen" },
	{ { 0 }, K_MAIN, "click, wheel", "select, nudge a cell", NULL, 0, NULL,
	  "the mouse: a click selects a cell (in a multi-head problem, a click on another head's weights "
	  "selects that head too, as H does); the wheel nudges it", "file and screen" },
	/* Inside the learning view its keys are its own (app_learning_event); these
	 * rows are its hints, and L's manual words above say what they do. */
	{ { ' ' }, APP_KEYS_LEARNING, "space", NULL, "space run", APP_KEYS_LEARNING, NULL, NULL, NULL },
	{ { '.' }, APP_KEYS_LEARNING, ".", NULL, ". step", APP_KEYS_LEARNING, NULL, NULL, NULL },
	{ { 'r' }, APP_KEYS_LEARNING, "r", NULL, "r reset", APP_KEYS_LEARNING, NULL, NULL, NULL },
	{ { '>', '<' }, APP_KEYS_LEARNING, "> <", NULL, "> < d_k", APP_KEYS_LEARNING, NULL, NULL, NULL },
	{ { '+', '-' }, APP_KEYS_LEARNING, "+ -", NULL, "+- speed", APP_KEYS_LEARNING, NULL, NULL, NULL },
	{ { APP_KEY_TAB }, APP_KEYS_LEARNING, "Tab", NULL, "Tab ∇W", APP_KEYS_LEARNING, NULL, NULL, NULL },
	{ { 'E' }, APP_KEYS_LEARNING, "E", NULL, "E sweep", APP_KEYS_LEARNING, NULL, NULL, NULL },
	/* While a lesson is presented (--lesson) these keys are the lesson's own
	 * (lesson_update, app/lesson_run.c, reads these rows): they move through its
	 * steps; the rest reach the app. */
	{ { APP_KEY_PAGE_DOWN, APP_KEY_PAGE_UP }, APP_KEYS_LESSON, "PgDn PgUp", "lesson: next / back",
	  "PgDn next · PgUp back", APP_KEYS_LESSON, NULL,
	  "in a lesson (--lesson): the next step / the one before, or first the next / the previous page of "
	  "the step's notes when the screen shows them a page at a time; a step is always rebuilt from the "
	  "lesson's start, so what was changed by hand is set aside", "a lesson (--lesson)" },
	{ { APP_KEY_HOME, APP_KEY_END }, APP_KEYS_LESSON, "Home End", "lesson: first / last", "Home first",
	  APP_KEYS_LESSON, NULL, "in a lesson: its first step / its last step", "a lesson (--lesson)" },
	{ { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }, APP_KEYS_LESSON, "number Enter",
	  "lesson: go to step", "number Enter jumps", APP_KEYS_LESSON, NULL,
	  "in a lesson: a step's number, then Enter, goes to that step (Backspace erases, Esc cancels)",
	  "a lesson (--lesson)" },
	/* While the help is open: its pages; any other key closes it (app_update). */
	{ { APP_KEY_PAGE_DOWN, ' ', 'n' }, APP_KEYS_HELP, "PgDn Space n", NULL, "PgDn more", APP_KEYS_HELP,
	  key_help_page,
	  "in the help, when it has more pages than the screen shows at once: its next page (on the last page "
	  "the key closes the help and does what it does outside it)", NULL },
	{ { APP_KEY_PAGE_UP, 'p' }, APP_KEYS_HELP, "PgUp p", NULL, "PgUp back", APP_KEYS_HELP, key_help_page,
	  "in the help: its page before (on the first page the key closes the help and does what it does "
	  "outside it)", NULL },
	{ { APP_KEY_ESCAPE }, APP_KEYS_HELP, "Esc", NULL, "Esc close", APP_KEYS_HELP, NULL, NULL, NULL },
	/* Inside an edit, the keys that are not the number typed; inside a question
	 * every key is an answer or a name (prompt_key): these rows are its hints. */
	{ { APP_KEY_ENTER }, APP_KEYS_EDIT, "Enter", NULL, "Enter keep", APP_KEYS_EDIT, edit_keep,
	  "in an edit: keep the typed value (a finite number, |v| ≤ 1e12)", NULL },
	{ { APP_KEY_ESCAPE, APP_KEY_CTRL_C }, APP_KEYS_EDIT, "Esc Ctrl-C", NULL, "Esc cancel", APP_KEYS_EDIT,
	  edit_cancel, "in an edit: cancel it, the cell keeps its value", NULL },
	{ { APP_KEY_BACKSPACE, APP_KEY_DELETE, APP_KEY_CTRL_U }, APP_KEYS_EDIT, "Backspace Ctrl-U", NULL,
	  "Backspace erase", APP_KEYS_EDIT, edit_erase, "in an edit: erase the last character / all of them", NULL },
	{ { 0 }, APP_KEYS_EDIT, "digits . - + e", NULL, "digits . - e", APP_KEYS_EDIT, NULL,
	  "in an edit: the number typed (other keys are ignored; PgDn, PgUp, Home and End keep a number "
	  "and step the stages)", NULL },
	{ { APP_KEY_ENTER }, APP_KEYS_SAVE_AS, "Enter", NULL, "Enter save", APP_KEYS_SAVE_AS, save_as_enter,
	  "typing a name to save as: save there (a folder is refused, a file asks before it is overwritten)", NULL },
	{ { APP_KEY_ESCAPE, APP_KEY_CTRL_C }, APP_KEYS_SAVE_AS, "Esc Ctrl-C", NULL, "Esc cancel", APP_KEYS_SAVE_AS,
	  save_as_cancel, "typing a name to save as: do not save", NULL },
	{ { APP_KEY_BACKSPACE, APP_KEY_DELETE, APP_KEY_CTRL_U }, APP_KEYS_SAVE_AS, "Backspace Ctrl-U", NULL, NULL, 0,
	  save_as_erase, "typing a name to save as: erase its last character / all of it", NULL },
	{ { 'y', 'Y' }, APP_KEYS_RECOVER, "y", NULL, "y open them", APP_KEYS_RECOVER, recover_open,
	  "asked about a recovery copy: open its changes, unsaved (u goes back to the file)", NULL },
	{ { 'n', 'N' }, APP_KEYS_RECOVER, "n", NULL, "n delete the copy", APP_KEYS_RECOVER, recover_delete,
	  "asked about a recovery copy: delete it", NULL },
	{ { APP_KEY_ESCAPE, APP_KEY_CTRL_C }, APP_KEYS_RECOVER, "Esc Ctrl-C", NULL, "Esc keep it for later",
	  APP_KEYS_RECOVER, recover_later, "asked about a recovery copy: keep it for the next time", NULL },
	{ { 'y', 'Y' }, APP_KEYS_ANSWER, "y", NULL, "y yes", APP_KEYS_ANSWER, answer_yes,
	  "asked to quit with unsaved changes, or to save over a file: yes", NULL },
	{ { 'n', 'N', APP_KEY_ESCAPE, APP_KEY_CTRL_C, APP_KEY_CTRL_BACKSLASH }, APP_KEYS_ANSWER, "n Esc Ctrl-C", NULL,
	  "n no", APP_KEYS_ANSWER, answer_no, "asked to quit (Ctrl-\\ too) or to save over a file: no", NULL },
};
const int app_binding_count = (int)(sizeof app_bindings / sizeof app_bindings[0]);

/* The context whose keys are in reach now (one APP_KEYS_* bit). */
unsigned app_key_context(const struct app *app)
{
	if (app->prompt == PROMPT_SAVE_AS)
		return APP_KEYS_SAVE_AS;
	if (app->prompt == PROMPT_RECOVER)
		return APP_KEYS_RECOVER;
	if (app->prompt != PROMPT_NONE)
		return APP_KEYS_ANSWER;
	if (app->editing)
		return APP_KEYS_EDIT;
	if (app->overlay == OVERLAY_HELP)
		return APP_KEYS_HELP;
	if (app->overlay == OVERLAY_SATURATION)
		return APP_KEYS_SATURATION;
	if (app->overlay == OVERLAY_LEARNING)
		return APP_KEYS_LEARNING;
	return app->stage != APP_STAGE_LIVE ? APP_KEYS_STAGES : APP_KEYS_LIVE;
}

/* The binding of key in context, or NULL. */
const struct app_binding *app_binding_find(unsigned context, int key)
{
	for (int i = 0; i < app_binding_count; i++) {
		const struct app_binding *b = &app_bindings[i];

		if ((b->context & context) == 0 || b->handler == NULL)
			continue;
		for (int k = 0; k < APP_BINDING_KEYS && b->keys[k] != 0; k++)
			if (b->keys[k] == key)
				return b;
	}
	return NULL;
}

/* True when key is one of a binding's in context, whoever handles it (a view's
 * or a lesson's rows have no handler here). */
bool app_key_bound(unsigned context, int key)
{
	for (int i = 0; i < app_binding_count; i++)
		for (int k = 0; (app_bindings[i].context & context) != 0 && k < APP_BINDING_KEYS &&
				app_bindings[i].keys[k] != 0; k++)
			if (app_bindings[i].keys[k] == key)
				return true;
	return false;
}

/* The hints of every binding hinted in context, in the table's order. */
void app_context_hints(const struct app *app, unsigned context, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < app_binding_count && used < size; i++) {
		const struct app_binding *b = &app_bindings[i];
		char step[24] = "";

		if ((b->hint_context & context) == 0)
			continue;
		if (b->handler == key_head && app->problem.h == 0)
			continue; /* one head: H says so, the line need not */
		if (b->handler == key_help_page && help_page_after(app, b->keys[0]) < 0)
			continue; /* no page that way: the key closes the help */
		if (b->handler == key_nudge) {
			step[0] = ' ';
			qkv_format_exact(step + 1, sizeof step - 1, app->step);
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%s%s", used == 0 ? " " : " · ",
					 b->handler == save_as_enter && app->exporting ? "Enter export" : b->hint, step);
	}
}

/* The status line's hints: every binding hinted in the context in reach. */
void app_key_hints(const struct app *app, char *buf, size_t size)
{
	app_context_hints(app, app_key_context(app), buf, size);
}

/* A key outside edits and questions: its binding's handler, in the saturation
 * view that view's keys first. Unbound keys do nothing. */
static int command_key(struct app *app, int key)
{
	const struct app_binding *b = NULL;

	if (app->overlay == OVERLAY_SATURATION)
		b = app_binding_find(APP_KEYS_SATURATION, key);
	if (b == NULL)
		b = app_binding_find(K_MAIN, key);
	return b != NULL ? b->handler(app, key) : REDRAW_NONE;
}

/* One autoplay step: the next cell of the selected row, then the next stage. */
static int autoplay_step(struct app *app)
{
	int rows, cols;
	enum qkv_grid grid = app->stage >= QKV_STAGE_MIX ? QKV_GRID_OUTPUT : QKV_GRID_WEIGHTS;

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
	grid = app->stage >= QKV_STAGE_MIX ? QKV_GRID_OUTPUT : QKV_GRID_WEIGHTS;
	app->cursor[grid].row = app_query(app);
	app->focus = app->stage == QKV_STAGE_PROJECTIONS ? first_input(app) : grid;
	app->cursor[grid].col = 0;
	return REDRAW_ALL;
}

/* The changed-cell marks fade when their time is up, whatever event comes next:
 * the grids that wore them are redrawn. */
static int marks_fade(struct app *app)
{
	if (app->mark_until_ms != 0 && app->now_ms >= app->mark_until_ms) {
		app->mark_until_ms = 0;
		return REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT;
	}
	return REDRAW_NONE;
}

/* Time passed: autoplay steps, the cost view measures (the marks fade in app_update). */
static int tick(struct app *app)
{
	int redraw = REDRAW_NONE;

	if (app->autoplay && app->now_ms >= app->next_step_ms) {
		app->next_step_ms = app->now_ms + (int64_t)(app->pace_s * 1000.0);
		redraw |= autoplay_step(app);
	}
	return redraw | cost_tick(app);
}

/* A click or a wheel turn on a cell: selects it (and nudges it). */
static int pointer(struct app *app, const struct event *event)
{
	int rows, cols, redraw = REDRAW_ALL;
	enum qkv_grid focus = (enum qkv_grid)event->focus;
	bool heads_grid = focus == QKV_GRID_CONCAT || focus == QKV_GRID_LAYER;

	if (event->focus < 0 || event->focus >= QKV_GRID_COUNT)
		return REDRAW_NONE;
	if (!app_focus_is_input(app, focus) && focus != QKV_GRID_WEIGHTS && focus != QKV_GRID_OUTPUT && !heads_grid)
		return REDRAW_NONE;
	/* Another head's small multiple: its weights' grid, and that head selected. */
	if (event->head != 0 && (event->type != EVENT_CLICK || focus != QKV_GRID_WEIGHTS || event->head < 0 ||
				 event->head > app->problem.h))
		return REDRAW_NONE;
	app_focus_shape(app, focus, &rows, &cols);
	if (event->row < 0 || event->row >= rows || event->col < 0 || event->col >= cols)
		return REDRAW_NONE;
	if (app->editing)
		say(app, false, "edit cancelled: the pointer chose another cell");
	app->editing = false;
	if (event->head != 0 && event->head - 1 != app->head)
		redraw |= select_head(app, event->head - 1);
	app->focus = focus;
	app->cursor[focus].row = event->row;
	app->cursor[focus].col = event->col;
	move_cursor(app, 0, 0);
	if (event->type == EVENT_WHEEL)
		return nudge(app, focus, event->row, event->col, event->delta * app->step) | REDRAW_ALL;
	return redraw;
}

static int update(struct app *app, const struct event *event);

/* A pasted key is text in a cell edit and in the file name of save-as, and
 * nothing else: never Enter, Esc or a command, never an answer to a question. */
static bool pasted_is_text(const struct app *app, int key)
{
	bool text = key >= 0x20 && key < APP_KEY_UP;

	if (app->prompt == PROMPT_SAVE_AS)
		return text;
	return app->prompt == PROMPT_NONE && app->editing && text;
}

/* The keys a presentation clicker sends: they always step the stages. */
static bool is_stage_key(int key)
{
	return key == APP_KEY_PAGE_DOWN || key == APP_KEY_PAGE_UP || key == APP_KEY_HOME || key == APP_KEY_END;
}

/* A stage key during an edit: the typed value is kept when it is a number, else the
 * edit is cancelled; then the stage steps, and the status line says both. */
static int stage_key_while_editing(struct app *app, int key)
{
	char first[APP_MESSAGE_MAX], place[96], then[APP_MESSAGE_MAX];
	const struct app_cursor *c = &app->cursor[app->focus];
	double value;
	int redraw = REDRAW_INPUTS | REDRAW_STATUS;

	input_cell_name(app, app->focus, c->row, c->col, place, sizeof place);
	app->editing = false;
	if (parse_value(app->edit, &value)) {
		char shown[32];

		redraw |= set_cell(app, app->focus, c->row, c->col, value);
		qkv_format_exact(shown, sizeof shown, value);
		snprintf(first, sizeof first, "%s = %s kept", place, shown);
	} else {
		snprintf(first, sizeof first, "edit of %s cancelled (“%.40s” is not a number)", place, app->edit);
	}
	redraw |= command_key(app, key);
	snprintf(then, sizeof then, "%s", app->message);
	say(app, false, "%s · %s", first, then);
	return redraw;
}

/* The one way the state changes: one event applied; the redraw flags. */
int app_update(struct app *app, const struct event *event)
{
	int faded;

	if (event->now_ms > app->now_ms)
		app->now_ms = event->now_ms;
	faded = marks_fade(app);
	return faded | update(app, event);
}

/* One event, after the marks' fading: everything app_update does. */
static int update(struct app *app, const struct event *event)
{
	if (app->job != NULL) {
		int redraw = job_event(app, event);

		if (redraw >= 0)
			return redraw;
	}
	if (app->overlay == OVERLAY_LEARNING && app->prompt == PROMPT_NONE) {
		int redraw = app_learning_event(app, event);

		if (redraw >= 0)
			return redraw;
	}
	if (event->type == EVENT_KEY || event->type == EVENT_CLICK || event->type == EVENT_WHEEL)
		app->actions++;
	switch (event->type) {
	case EVENT_TICK:
		return tick(app);
	case EVENT_RESIZE:
		app->width = event->width;
		app->height = event->height;
		if (app->help_page > 0) {
			struct app_help help;

			app_help_layout(&help, app->width, app->height);
			if (app->help_page >= help.pages)
				app->help_page = help.pages - 1;
		}
		return REDRAW_ALL | REDRAW_LAYOUT;
	case EVENT_LOOKED:
	case EVENT_SAVED:
	case EVENT_SAVE_FAILED:
	case EVENT_REMOVED:
		return file_answer(app, event);
	case EVENT_CLICK:
	case EVENT_WHEEL:
		if (app->prompt != PROMPT_NONE)
			return REDRAW_NONE;
		return pointer(app, event);
	case EVENT_TRAIN_STEP:
	case EVENT_TRAIN_RUN:
	case EVENT_TRAIN_PAUSE:
		return REDRAW_NONE; /* only the learning view trains */
	case EVENT_KEY:
	default:
		break;
	}
	if (app->autoplay) {
		app->autoplay = false;
		say(app, false, "autoplay stopped");
		if (!is_stage_key(event->key))
			return REDRAW_STATUS;
	}
	if (event->pasted && !pasted_is_text(app, event->key)) {
		say(app, true, "pasted text is not a command: paste into a cell being edited (Enter edits it)");
		return REDRAW_STATUS;
	}
	if (app->prompt != PROMPT_NONE)
		return prompt_key(app, event->key);
	if (app->editing && is_stage_key(event->key))
		return stage_key_while_editing(app, event->key);
	if (app->editing) {
		const struct app_binding *b = app_binding_find(APP_KEYS_EDIT, event->key);

		return b != NULL ? b->handler(app, event->key) : edit_type(app, event->key);
	}
	if (app->overlay == OVERLAY_HELP && event->key != '?') {
		const struct app_binding *b = app_binding_find(APP_KEYS_HELP, event->key);
		int redraw = b != NULL ? b->handler(app, event->key) : REDRAW_NONE;

		if (redraw != REDRAW_NONE)
			return redraw;
		app->overlay = OVERLAY_NONE;
		if (!is_stage_key(event->key))
			return REDRAW_ALL;
		return REDRAW_ALL | command_key(app, event->key);
	}
	return command_key(app, event->key);
}
