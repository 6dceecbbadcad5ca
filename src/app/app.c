/* app.c — the interactive state as a whole: starting and ending it, the grid in
 * focus and the cursors, and app_update(), the only way the state changes, which
 * hands each event to the file that deals with it (app/internal.h lists them).
 * Events in, state and redraw flags out: no curses, no printing, no clock (time
 * arrives in the events). Every change to the problem recomputes the trace (an
 * edited cell only what it reaches, to the same bits) and records what moved,
 * so the screen can show the blast radius of an edit (marks.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "app/view.h"
#include "qkv/error.h"
#include "qkv/format.h"

#define HISTORY_BUDGET ((size_t)256 << 20) /* bytes of undo snapshots */
#define DEFAULT_STEP 0.1

/* Puts a sentence on the status line; error colours it as one. */
void app_say(struct app *app, bool error, const char *fmt, ...)
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
	if (qkv_grid_is_input(focus))
		return qkv_grid_name(focus);
	return focus == QKV_GRID_WEIGHTS ? "attention" : focus == QKV_GRID_OUTPUT ? "output"
	       : focus == QKV_GRID_CONCAT ? "concat" : focus == QKV_GRID_LAYER ? "layer output" : "?";
}

/* An input cell as the screen labels it: "Q[t1, d2]", "X[cat, m3]", "W_Q[m2, d1]"
 * (a head's W with its head), "W_O[h2d1, d1]". */
void app_cell_name(const struct app *app, enum qkv_grid focus, int row, int col, char *buf, size_t size)
{
	const char *name = app_focus_name(focus), *label = "";

	/* Rows of tokens: Q's and X_q's the queries', K's, V's and X's the keys'
	 * (the W's rows are d_model's dimensions, W_O's the heads' columns). */
	if (qkv_grid_info[focus].rows == QKV_DIM_QUERIES)
		label = qkv_problem_query_label(&app->problem, row);
	else if (qkv_grid_info[focus].rows == QKV_DIM_KEYS)
		label = app->problem.tokens[row];
	if (focus <= QKV_GRID_V)
		snprintf(buf, size, "%s[%s, d%d]", name, label, col + 1);
	else if (focus == QKV_GRID_X || focus == QKV_GRID_X_Q)
		snprintf(buf, size, "%s[%s, m%d]", name, label, col + 1);
	else if (focus == QKV_GRID_W_O && app->heads.d_v > 0)
		snprintf(buf, size, "%s[h%dd%d, d%d]", name, row / app->heads.d_v + 1, row % app->heads.d_v + 1,
			 col + 1);
	else if (app->problem.h > 0 && focus >= QKV_GRID_W_Q && focus <= QKV_GRID_W_V)
		snprintf(buf, size, "head %d %s[m%d, d%d]", app->head + 1, name, row + 1, col + 1);
	else
		snprintf(buf, size, "%s[m%d, d%d]", name, row + 1, col + 1);
}

/* True for the inputs the problem's form has (Q K V, or X and the W's). */
bool app_focus_is_input(const struct app *app, enum qkv_grid focus)
{
	/* The form's inputs from the table of matrices; W_O only where there are heads. */
	if ((int)focus < 0 || !qkv_grid_is_input(focus) || qkv_grid_info[focus].form != app->problem.form)
		return false;
	if (focus == QKV_GRID_X_Q)
		return qkv_problem_is_cross(&app->problem);
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
	return app_input(app, focus);
}

/* Rows and columns of the grid behind a focus. */
void app_focus_shape(const struct app *app, enum qkv_grid focus, int *rows, int *cols)
{
	const struct qkv_matrix *m = app_focus_matrix(app, focus);

	if (m != NULL) {
		*rows = m->rows;
		*cols = m->cols;
	} else if (focus == QKV_GRID_WEIGHTS) {
		*rows = app->trace.m;
		*cols = app->trace.n;
	} else if (focus == QKV_GRID_OUTPUT) {
		*rows = app->trace.m;
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
int app_clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

/* Keeps every cursor inside its grid after a change of shape. */
void app_clamp_cursors(struct app *app)
{
	for (int f = 0; f < QKV_GRID_COUNT; f++) {
		int rows, cols;

		app_focus_shape(app, (enum qkv_grid)f, &rows, &cols);
		app->cursor[f].row = app_clamp(app->cursor[f].row, 0, rows > 0 ? rows - 1 : 0);
		app->cursor[f].col = app_clamp(app->cursor[f].col, 0, cols > 0 ? cols - 1 : 0);
	}
}

/* The first input of the problem's form: Q, or X. */
enum qkv_grid app_first_input(const struct app *app)
{
	return app->problem.form == QKV_FORM_DIRECT ? QKV_GRID_Q : QKV_GRID_X;
}

/* The selected query: the attention cursor's row (or a query's row of Q or X_q;
 * in self-attention X's rows are the queries too). */
int app_query(const struct app *app)
{
	if (app->focus == QKV_GRID_OUTPUT || app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_LAYER)
		return app->cursor[app->focus].row;
	if (app->focus == QKV_GRID_W_O)
		return app->cursor[QKV_GRID_LAYER].row;
	if (app->focus == QKV_GRID_WEIGHTS || app->focus == QKV_GRID_K || app->focus == QKV_GRID_V ||
	    app->focus == QKV_GRID_W_Q || app->focus == QKV_GRID_W_K || app->focus == QKV_GRID_W_V ||
	    (app->focus == QKV_GRID_X && qkv_problem_is_cross(&app->problem)))
		return app->cursor[QKV_GRID_WEIGHTS].row;
	return app->cursor[app->focus].row;
}

/* The selected key: the attention cursor's column (or a key's row of K, V, or of
 * X in cross-attention). */
int app_key(const struct app *app)
{
	if (app->focus == QKV_GRID_K || app->focus == QKV_GRID_V ||
	    (app->focus == QKV_GRID_X && qkv_problem_is_cross(&app->problem)))
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
int app_first_stage(const struct app *app)
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

/* Starts the app on p with its trace computed here. */
int app_init(struct app *app, struct qkv_problem *p, const char *path, const struct app_options *options)
{
	return app_init_traced(app, p, NULL, path, options);
}

/* True when p's trace is long enough to be a job beside the interface. */
bool app_trace_is_long(const struct qkv_problem *p)
{
	return p->h == 0 && compute_trace_cost(p) > JOB_COST; /* a multi-head start is bounded by main.c */
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
	app->cost.clock = o->clock;
	app->cost.clock_context = o->clock_context;
	app->show_stats = true;
	saturation_init(&app->saturation);
	app->cost.last_n = APP_COST_LAST_N;
	app->previous_differs_row = -1;
	app->previous_differs_col = -1;
	app->focus = app_first_input(app);
	if (path != NULL) {
		app->path = strdup(path);
		if (app->path == NULL)
			return QKV_ENOMEM;
	}
	if (app->problem.notes != NULL)
		app_say(app, false, "%s", app->problem.notes);
	if (o->message != NULL)
		app_say(app, false, "%s", o->message);
	if (qkv_problem_copy(&app->saved, &app->problem) != 0)
		return QKV_ENOMEM;
	if (path != NULL)
		prompt_ask(app, APP_REQUEST_LOOK, path, LOOK_DISK);
	if (trace != NULL) {
		struct qkv_trace swap = app->trace;

		app->trace = *trace;
		*trace = swap;
		rc = marks_settle_trace(app, 0, false);
	} else {
		rc = marks_recompute(app, false);
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
	app_say(app, false, "Unsaved changes from an earlier session are kept in %s: qkv --recover %s "
	    "offers them", where, app->path != NULL ? app->path : "FILE");
}

/* The recovery copy found does not read: says so (why: the loader's sentence). */
void app_recovery_unreadable(struct app *app, const char *why)
{
	app_say(app, true, "a recovery copy does not read: %.200s", why);
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
	job_abandon(app->cost.measure);
	free(app->moved_inputs);
	free(app->path);
	memset(app, 0, sizeof *app);
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

/* Time passed: autoplay steps (the marks fade in app_update; a view's own work
 * on ticks is its event hook's). */
static int tick(struct app *app)
{
	if (app->autoplay && app->now_ms >= app->next_step_ms) {
		app->next_step_ms = app->now_ms + (int64_t)(app->pace_s * 1000.0);
		return walk_autoplay(app);
	}
	return REDRAW_NONE;
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
		app_say(app, false, "edit cancelled: the pointer chose another cell");
	app->editing = false;
	if (event->head != 0 && event->head - 1 != app->head)
		redraw |= walk_select_head(app, event->head - 1);
	app->focus = focus;
	app->cursor[focus].row = event->row;
	app->cursor[focus].col = event->col;
	walk_move_cursor(app, 0, 0);
	if (event->type == EVENT_WHEEL)
		return edit_nudge(app, focus, event->row, event->col, event->delta * app->step) | REDRAW_ALL;
	return redraw;
}

/* A pasted key is text in a cell edit and in the file name of save-as, and
 * nothing else: never Enter, Esc or a command, never an answer to a question. */
static bool pasted_is_text(const struct app *app, int key)
{
	bool text = key >= 0x20 && key < APP_KEY_UP;

	if (app->prompt == PROMPT_SAVE_AS)
		return text;
	return app->prompt == PROMPT_NONE && app->editing && text;
}

/* A stage key during an edit: the typed value is kept when it is a number, else the
 * edit is cancelled; then the stage steps, and the status line says both. */
static int stage_key_while_editing(struct app *app, int key)
{
	char first[APP_MESSAGE_MAX], place[96], then[APP_MESSAGE_MAX];
	const struct app_cursor *c = &app->cursor[app->focus];
	double value;
	int redraw = REDRAW_INPUTS | REDRAW_STATUS;

	app_cell_name(app, app->focus, c->row, c->col, place, sizeof place);
	app->editing = false;
	if (edit_parse_value(app->edit, &value)) {
		char shown[32];

		redraw |= edit_set_cell(app, app->focus, c->row, c->col, value);
		qkv_format_exact(shown, sizeof shown, value);
		snprintf(first, sizeof first, "%s = %s kept", place, shown);
	} else {
		snprintf(first, sizeof first, "edit of %s cancelled (“%.40s” is not a number)", place, app->edit);
	}
	redraw |= view_key(app, key);
	snprintf(then, sizeof then, "%s", app->message);
	app_say(app, false, "%s · %s", first, then);
	return redraw;
}

static int update(struct app *app, const struct event *event);

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
		int redraw = compute_job_event(app, event);

		if (redraw >= 0)
			return redraw;
	}
	if (app_views[app->view].event != NULL) {
		int redraw = app_views[app->view].event(app, event);

		if (redraw >= 0)
			return redraw;
	}
	if (event->type == EVENT_KEY || event->type == EVENT_CLICK || event->type == EVENT_WHEEL)
		app->actions++;
	switch (event->type) {
	case EVENT_TICK:
		return tick(app);
	case EVENT_MEASURED:
		return REDRAW_NONE; /* no view measures (the cost view's hook takes its answers) */
	case EVENT_JOB_DONE:
		return REDRAW_NONE; /* no job (compute_job_event takes a job's end) */
	case EVENT_RESIZE:
		app->width = event->width;
		app->height = event->height;
		return REDRAW_ALL | REDRAW_LAYOUT;
	case EVENT_LOOKED:
	case EVENT_SAVED:
	case EVENT_SAVE_FAILED:
	case EVENT_REMOVED:
		return prompt_answer_file(app, event);
	case EVENT_CLICK:
	case EVENT_WHEEL:
		if (app->prompt != PROMPT_NONE)
			return REDRAW_NONE;
		return pointer(app, event);
	case EVENT_TRAIN_STEP:
	case EVENT_TRAIN_RUN:
	case EVENT_TRAIN_PAUSE:
		return REDRAW_NONE; /* only the learning view trains (its hook) */
	case EVENT_KEY:
	default:
		break;
	}
	if (app->autoplay) {
		app->autoplay = false;
		app_say(app, false, "autoplay stopped");
		if (!view_is_stage_key(event->key))
			return REDRAW_STATUS;
	}
	if (event->pasted && !pasted_is_text(app, event->key)) {
		app_say(app, true, "pasted text is not a command: paste into a cell being edited (Enter edits it)");
		return REDRAW_STATUS;
	}
	if (app->prompt != PROMPT_NONE)
		return prompt_key(app, event->key);
	if (app->editing && view_is_stage_key(event->key))
		return stage_key_while_editing(app, event->key);
	if (app->editing) {
		const struct app_binding *b = app_binding_find(APP_KEYS_EDIT, event->key);

		return b != NULL ? b->handler(app, event->key) : edit_type(app, event->key);
	}
	return view_key(app, event->key);
}
