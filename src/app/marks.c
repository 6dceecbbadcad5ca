/* marks.c — what moved in the last change: the trace kept from before it, the cells
 * marked where it differs (the blast radius), and the sentence that says how far
 * the change reached. Recomputing the trace lives here too, since every recompute
 * is compared with the trace before it. No curses, no clock: now_ms is the app's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/buffer.h"
#include "qkv/error.h"
#include "qkv/format.h"

static bool marks_live(const struct app *app);

/* The trace's matrix behind a grid of the trace (qkv_grid_in_trace). */
static const struct qkv_matrix *grid_matrix(const struct qkv_trace *t, enum qkv_grid grid)
{
	return qkv_grid_matrix(NULL, t, NULL, 0, grid);
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
		if (!qkv_grid_in_trace((enum qkv_grid)g))
			continue;
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
int marks_keep_heads(struct app *app)
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
int marks_heads(struct app *app, bool mark)
{
	const struct qkv_heads_trace *t = &app->heads;
	size_t nn = (size_t)t->m * (size_t)t->n;

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
	size_t m = (size_t)app->heads.m, n = (size_t)app->heads.n;

	if (!marks_live(app) || head < 0 || head >= app->heads.h || app->moved_head_weights == NULL)
		return false;
	return app->moved_head_weights[m * n * (size_t)head + (size_t)query * n + (size_t)key] != 0;
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
	memcpy(app->previous_rows, t->rows, (size_t)t->m * sizeof *t->rows);
	return 0;
}

/* Keeps t's mask and per-row statistics beside the kept grids, and says the kept
 * trace is valid (for m queries and n tokens). */
static int keep_masks_and_rows(struct app *app, const struct qkv_trace *t)
{
	size_t cells = (size_t)t->m * (size_t)t->n;

	if (reserve_bytes(&app->previous_masked, &app->previous_masked_capacity, cells > 0 ? cells : 1) != 0)
		return QKV_ENOMEM;
	if (cells > 0)
		memcpy(app->previous_masked, t->masked, cells);
	if (t->m > app->previous_rows_capacity) {
		struct qkv_row_stats *rows = realloc(app->previous_rows, (size_t)t->m * sizeof *rows);

		if (rows == NULL)
			return QKV_ENOMEM;
		app->previous_rows = rows;
		app->previous_rows_capacity = t->m;
	}
	if (t->m > 0)
		memcpy(app->previous_rows, t->rows, (size_t)t->m * sizeof *t->rows);
	app->previous_m = t->m;
	app->previous_n = t->n;
	app->previous_valid = t->n > 0;
	return 0;
}

/* Keeps the trace as it is now, to compare the next one with. Q and K as used are
 * kept only in the projected form (in the direct form they are the inputs); V
 * always, for the terms of the mix. */
static int keep_previous(struct app *app, int only_row, int only_col)
{
	const struct qkv_trace *t = &app->trace;
	int differs_row = app->previous_differs_row, differs_col = app->previous_differs_col;

	/* Whatever comes next may differ anywhere until the caller says otherwise. */
	app->previous_differs_row = -1;
	app->previous_differs_col = -1;

	/* A query's or a value's edit after another: the kept trace differs from this
	 * one in one row of S, S', A and O or one column of O at most, so that (and V
	 * and the statistics) is all there is to copy; 1,024 tokens would otherwise
	 * copy 24 MB per key press. */
	if ((only_row >= 0 || only_col >= 0) && app->previous_valid && app->previous_n == t->n &&
	    app->previous_m == t->m &&
	    (differs_row >= 0 || differs_col >= 0) && keep_reach(app, differs_row, differs_col) == 0)
		return 0;
	app->previous_valid = false;
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		if (!qkv_grid_in_trace((enum qkv_grid)g))
			continue;
		int rc;

		if (g <= QKV_GRID_K && app->problem.form != QKV_FORM_PROJECTED) {
			app->previous[g].rows = 0;
			continue;
		}
		rc = qkv_matrix_copy(&app->previous[g], grid_matrix(t, (enum qkv_grid)g));
		if (rc != 0)
			return rc;
	}
	return keep_masks_and_rows(app, t);
}

/* keep_previous for a trace about to be replaced whole (a job's): the grids are
 * exchanged with the kept ones rather than copied, so the old trace leaves with
 * the kept trace's storage. */
int marks_keep_taking(struct app *app, struct qkv_trace *old)
{
	app->previous_differs_row = -1;
	app->previous_differs_col = -1;
	app->previous_valid = false;
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		if (!qkv_grid_in_trace((enum qkv_grid)g))
			continue;
		struct qkv_matrix *from = (struct qkv_matrix *)grid_matrix(old, (enum qkv_grid)g), kept;

		if (g <= QKV_GRID_K && app->problem.form != QKV_FORM_PROJECTED) {
			app->previous[g].rows = 0;
			continue;
		}
		kept = app->previous[g];
		app->previous[g] = *from;
		*from = kept;
	}
	return keep_masks_and_rows(app, old);
}

/* Marks every cell of the trace that differs from the kept one (same shapes only). */
void marks_mark(struct app *app, int only_row, int only_col)
{
	const struct qkv_trace *t = &app->trace;
	bool same_n = app->previous_valid && app->previous_n == t->n && app->previous_m == t->m;

	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		if (!qkv_grid_in_trace((enum qkv_grid)g))
			continue;
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

			if (qkv_grid_is_attention((enum qkv_grid)g))
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
int marks_recompute_after(struct app *app, bool mark, enum qkv_grid input, int row, int col)
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
			rc = marks_keep_heads(app);
		if (rc == 0)
			rc = qkv_heads_attention(&app->problem, &app->heads);
		if (app->head >= app->problem.h)
			app->head = app->problem.h - 1;
		if (rc == 0) {
			qkv_problem_head_view(&app->problem, app->head, &view);
			rc = qkv_attention(&view, &app->trace);
		}
		if (rc == 0)
			rc = marks_heads(app, mark);
		return marks_settle_trace(app, rc, mark);
	}
	if (rc == 0)
		rc = row >= 0 ? qkv_attention_update(&app->problem, &app->trace, input, row, col)
			      : qkv_attention(&app->problem, &app->trace);
	return marks_settle_trace(app, rc, mark);
}

/* After a new trace (rc its code): sizes the marks, keeps the cursors inside, and
 * marks what moved against the kept trace (keep_previous), where it may differ. */
int marks_settle_trace(struct app *app, int rc, bool mark)
{
	if (rc == 0)
		rc = marks_reserve(app);
	if (rc != 0) {
		app_say(app, true, "cannot compute: %s", qkv_error_string(rc));
		return rc;
	}
	app_clamp_cursors(app);
	if (!mark)
		return 0;
	marks_mark(app, app->previous_differs_row, app->previous_differs_col);
	app->mark_until_ms = app->now_ms + APP_MARK_MS;
	return 0;
}

/* The whole trace again (marking what moved when mark). */
int marks_recompute(struct app *app, bool mark)
{
	return marks_recompute_after(app, mark, QKV_GRID_Q, -1, -1);
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

	if (!marks_live(app) || (int)grid < 0 || grid >= QKV_GRID_COUNT || !qkv_grid_in_trace(grid))
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

	if (!marks_live(app) || !app->previous_valid || app->previous_n != t->n || app->previous_m != t->m ||
	    w->rows != t->m || w->cols != t->n || v->rows != t->v.rows || v->cols != t->v.cols || query < 0 ||
	    query >= t->m || key < 0 || key >= t->n || col < 0 || col >= t->d_v)
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

	if (!marks_live(app) || !app->previous_valid || app->previous_n != app->trace.n ||
	    app->previous_m != app->trace.m || row < 0 || row >= app->trace.m)
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
	[QKV_GRID_Q] = "Q", [QKV_GRID_K] = "K", [QKV_GRID_V] = "V", [QKV_GRID_SCORES] = "score",
	[QKV_GRID_SCALED] = "scaled score", [QKV_GRID_WEIGHTS] = "weights", [QKV_GRID_OUTPUT] = "output",
};

/* True when the cell of grid holds a value (an attention cell that is not masked). */
static bool grid_live(const struct app *app, enum qkv_grid grid, int row, int col)
{
	return !qkv_grid_is_attention(grid) || !qkv_trace_is_masked(&app->trace, row, col);
}

/* True when the cell of grid moved in the last change. */
static bool cell_moved_now(const struct app *app, enum qkv_grid grid, int row, int col)
{
	const struct qkv_matrix *m = grid_matrix(&app->trace, grid);

	return app->moved[grid][(size_t)row * (size_t)m->cols + (size_t)col] != 0;
}

/* The name of row i (a query, or a token for K and V) or column i (a key for the
 * attention grids, d1… else). */
static void index_name(const struct app *app, enum qkv_grid grid, bool column, int i, char *buf, size_t size)
{
	if (!column && qkv_grid_info[grid].rows == QKV_DIM_QUERIES)
		snprintf(buf, size, "%s", qkv_problem_query_label(&app->problem, i));
	else if (!column || qkv_grid_is_attention(grid))
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

			if (!qkv_grid_is_attention(grid)) {
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

			if (!qkv_grid_is_attention(grid)) {
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
		qkv_buffer_put(w, "%s[%s,%s]", qkv_grid_name(grid), row_name, col_name);
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
		qkv_buffer_put(w, "; A[%s,%s] moved by only %.1g, below the shown digits",
		    qkv_problem_query_label(&app->problem, at_row), app->problem.tokens[at_col], smallest);
	else
		qkv_buffer_put(w, "; O[%s,d%d] moved by only %.1g, below the shown digits",
		    qkv_problem_query_label(&app->problem, at_row), at_col + 1, smallest);
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

		for (int r = 0; r < t->m; r++)
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

			for (int r = 0; r < t->m; r++)
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

		for (int r = 0; r < t->m && !moved; r++)
			for (int c = 0; c < t->concat.cols / t->h && !moved; c++)
				moved = app_moved_concat(app, r, i * (t->concat.cols / t->h) + c);
		still += !moved;
	}
	if (still > 0 && still < t->h) {
		int k = 0;

		qkv_buffer_put(&w, "; head%s", still > 1 ? "s" : "");
		for (int i = 0; i < t->h; i++) {
			bool moved = false;

			for (int r = 0; r < t->m && !moved; r++)
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
		if (!qkv_grid_in_trace((enum qkv_grid)g))
			continue;
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

/* Says what an edit changed and how far it reached (the blast radius). */
void marks_describe_change(struct app *app, enum qkv_grid focus, int row, int col, double before,
			   double after)
{
	char from[32], to[32], place[96], reach[APP_MESSAGE_MAX];

	qkv_format_exact(from, sizeof from, before);
	qkv_format_exact(to, sizeof to, after);
	app_cell_name(app, focus, row, col, place, sizeof place);
	if (app->problem.h > 0)
		heads_reach_words(app, reach, sizeof reach);
	else
		app_reach_words(app, reach, sizeof reach);
	app_say(app, false, "%s: %s → %s %s", place, from, to, reach);
}
