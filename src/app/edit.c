/* edit.c — editing the problem: a cell typed or nudged, a change of the whole problem
 * with undo, undo and redo themselves, and the "modified" flag. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"
#include "qkv/format.h"

/* Where the cursor is, for undo to put it back. */
struct history_place edit_here(const struct app *app)
{
	struct history_place place = { (int)app->focus, app->cursor[app->focus].row,
				       app->cursor[app->focus].col, app->head };
	return place;
}

/* Modified means different from the problem as loaded or saved; the wrong-way
 * demonstrations are never saved, so they do not count. */
void edit_update_dirty(struct app *app)
{
	enum qkv_wrong kept = app->saved.wrong;

	app->saved.wrong = app->problem.wrong;
	app->dirty = !qkv_problem_equal(&app->problem, &app->saved);
	app->saved.wrong = kept;
}

/* The trace of a change could not be computed (rc): the problem goes back to what
 * it was (undone, the redo forgotten) with its trace, and the status line says why. */
int edit_change_failed(struct app *app, int rc)
{
	struct history_place ignored;

	history_undo(&app->history, &app->problem, &ignored);
	history_drop_redo(&app->history);
	edit_update_dirty(app);
	if (marks_recompute(app, false) == 0)
		app_say(app, true, "cannot compute: %s: the change was not made", qkv_error_string(rc));
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* Sets one input cell, with undo, and recomputes. */
int edit_set_cell(struct app *app, enum qkv_grid focus, int row, int col, double value)
{
	struct qkv_matrix *m = (struct qkv_matrix *)app_input(app, focus);
	double before;
	struct history_place place = { (int)focus, row, col, app->head };
	int rc;

	if (m == NULL || row >= m->rows || col >= m->cols)
		return REDRAW_NONE;
	if (!isfinite(value) || fabs(value) > QKV_MAX_VALUE) {
		app_say(app, true, "%s is beyond ±1e12, the largest value qkv accepts", "that value");
		return REDRAW_STATUS;
	}
	before = qkv_matrix_get(m, row, col);
	if (history_push_cell(&app->history, focus, row, col, before, place) != 0) {
		app_say(app, true, "out of memory: the change was not made");
		return REDRAW_STATUS;
	}
	qkv_matrix_set(m, row, col, value);
	/* What the cell reaches, not the whole trace: a query's edit is a row. */
	if (app->jobs_always || (app->problem.h == 0 ? qkv_attention_update_cost(&app->problem, focus)
						     : compute_trace_cost(&app->problem)) > JOB_COST) {
		/* Too long for one key: the trace is computed beside the interface. */
		char said[APP_MESSAGE_MAX];

		marks_describe_change(app, focus, row, col, before, value);
		snprintf(said, sizeof said, "%s", app->message);
		if (compute_start_trace_job(app, REPLAY_REDO, true, said, NULL)) {
			app->job_has_cell = true;
			app->job_cell = place;
			return REDRAW_ALL;
		}
	}
	edit_update_dirty(app);
	if ((rc = marks_recompute_after(app, true, focus, row, col)) != 0)
		return edit_change_failed(app, rc);
	app->moved_input = focus;
	app->moved_inputs[(size_t)row * (size_t)m->cols + (size_t)col] = 1;
	marks_describe_change(app, focus, row, col, before, value);
	return REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT | REDRAW_INFO | REDRAW_STATUS;
}

/* Runs a change of the whole problem (shape or options) with undo; done is what the
 * status line then says. A large problem is changed by a job (compute_start_change_job);
 * otherwise: snapshot first, change, then recompute; a failed change is rolled back. */
int edit_change_problem(struct app *app, job_change change, int argument,
			const char *done)
{
	int rc;
	struct history_place place = edit_here(app);
	struct job_change_context context = { app->column_seed, app->untied };

	/* A large problem is copied, changed and traced by a job (take_job ends the change). */
	if ((app->jobs_always || compute_problem_is_long(&app->problem)) && compute_start_change_job(app, change, argument, done, place))
		return REDRAW_ALL;
	if (history_push_problem(&app->history, &app->problem, place) != 0) {
		app_say(app, true, "out of memory: the change was not made");
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
			app_say(app, true, "that is above qkv's limits (%d tokens, %d columns)", QKV_MAX_TOKENS, QKV_MAX_DIM);
		else
			app_say(app, true, "%s", qkv_error_string(rc));
		return REDRAW_STATUS;
	}
	if (compute_trace_cost(&app->problem) > JOB_COST && compute_start_trace_job(app, REPLAY_REDO, true, done, NULL)) {
		app->job_change = change; /* what take_job says, as below */
		app->job_argument = argument;
		return REDRAW_ALL;
	}
	edit_update_dirty(app);
	if ((rc = marks_recompute(app, true)) != 0)
		return edit_change_failed(app, rc);
	if (done != NULL)
		app_say(app, false, "%s", done);
	options_after_change(app, change, argument);
	return REDRAW_ALL;
}

/* True for the characters a typed number may hold. */
static bool is_number_char(int key)
{
	return (key >= '0' && key <= '9') || key == '.' || key == '-' || key == '+' || key == 'e' ||
	       key == 'E';
}

/* Starts typing into the selected cell, with first_key or the cell's value. */
void edit_start(struct app *app, int first_key)
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
	app_cell_name(app, app->focus, c->row, c->col, place, sizeof place);
	app_say(app, false, "editing %s: Enter keeps it, Esc cancels", place);
}

/* Parses the typed text: a finite number within the bound, the whole text used. */
bool edit_parse_value(const char *text, double *value)
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
int edit_keep(struct app *app, int key)
{
	const struct app_cursor *c = &app->cursor[app->focus];
	double value;

	(void)key;
	if (!edit_parse_value(app->edit, &value)) {
		app_say(app, true, "“%s” is not a number (finite, |v| ≤ 1e12): the value stays", app->edit);
		return REDRAW_STATUS;
	}
	app->editing = false;
	app->message[0] = '\0';
	return edit_set_cell(app, app->focus, c->row, c->col, value);
}

/* Esc or Ctrl-C in an edit: the cell keeps its value. */
int edit_cancel(struct app *app, int key)
{
	(void)key;
	app->editing = false;
	app_say(app, false, "edit cancelled");
	return REDRAW_INPUTS | REDRAW_STATUS;
}

/* Backspace or Delete in an edit: the last character typed goes; Ctrl-U: all of them. */
int edit_erase(struct app *app, int key)
{
	size_t length = strlen(app->edit);

	if (key == APP_KEY_CTRL_U)
		app->edit[0] = '\0';
	else if (length > 0)
		app->edit[length - 1] = '\0';
	return REDRAW_INPUTS | REDRAW_STATUS;
}

/* Any other key in an edit: typed when it can be part of a number, else ignored. */
int edit_type(struct app *app, int key)
{
	size_t length = strlen(app->edit);

	/* Many classrooms write a decimal comma: it is the decimal point, never dropped. */
	if (key == ',' && length + 1 < sizeof app->edit) {
		app->edit[length] = '.';
		app->edit[length + 1] = '\0';
		app_say(app, false, "a decimal comma is read as a decimal point");
	} else if (is_number_char(key) && length + 1 < sizeof app->edit) {
		app->edit[length] = (char)key;
		app->edit[length + 1] = '\0';
	}
	return REDRAW_INPUTS | REDRAW_STATUS;
}

/* Adds delta to an input cell (a computed grid refuses). */
int edit_nudge(struct app *app, enum qkv_grid focus, int row, int col, double delta)
{
	const struct qkv_matrix *m = app_focus_matrix(app, focus);

	if (m == NULL) {
		app_say(app, true, "the %s grid is computed: nudge a cell of %s", app_focus_name(focus),
		    app->problem.form == QKV_FORM_DIRECT ? "Q, K or V" : "X or a W");
		return REDRAW_STATUS;
	}
	/* Drop the binary noise of repeated steps (0.1 + 0.2 reads 0.3, not 0.30000000000000004). */
	double value = qkv_matrix_get(m, row, col) + delta;
	if (fabs(value) < 1e6)
		value = round(value * 1e9) / 1e9;
	return edit_set_cell(app, focus, row, col, value);
}

/* "undone" or "redone", and what moved back. */
void edit_say_undone(struct app *app, bool redo)
{
	char reach[APP_MESSAGE_MAX];
	bool same_shape = app->previous_valid && app->previous_n == app->trace.n && app->previous_m == app->trace.m &&
			  app->previous[QKV_GRID_OUTPUT].cols == app->trace.output.cols;

	reach[0] = '\0';
	if (same_shape)
		app_reach_words(app, reach, sizeof reach);
	app_say(app, false, "%s%s%s%s", redo ? "redone" : "undone", reach[0] != '\0' ? ": " : "", reach,
	    app->dirty ? "" : " · the problem is as it was loaded or last saved");
}

/* Undoes (or redoes) the last change, the cursor back where it was made. */
int edit_undo_redo(struct app *app, bool redo)
{
	struct history_place place;
	int rc, was_head;
	bool done = redo ? history_redo(&app->history, &app->problem, &place)
			 : history_undo(&app->history, &app->problem, &place);

	if (!done) {
		app_say(app, false, redo ? "nothing to redo" : "nothing to undo");
		return REDRAW_STATUS;
	}
	if ((app->jobs_always || compute_trace_cost(&app->problem) > JOB_COST) &&
	    compute_start_trace_job(app, redo ? REPLAY_REDO : REPLAY_UNDO, false, redo ? "redone" : "undone", &place))
		return REDRAW_ALL;
	edit_update_dirty(app);
	was_head = app->head;
	if (app->problem.h > 0 && place.head >= 0 && place.head < app->problem.h)
		app->head = place.head; /* the class sees the head the change was in */
	if ((rc = marks_recompute(app, true)) != 0) {
		/* Back to where it was: the step is taken back the other way. */
		if (redo)
			history_undo(&app->history, &app->problem, &place);
		else
			history_redo(&app->history, &app->problem, &place);
		edit_update_dirty(app);
		app->head = was_head;
		if (marks_recompute(app, false) == 0)
			app_say(app, true, "cannot compute: %s: nothing was %s", qkv_error_string(rc), redo ? "redone" : "undone");
		return REDRAW_ALL | REDRAW_LAYOUT;
	}
	if (place.focus >= 0 && place.focus < QKV_GRID_COUNT &&
	    (app_focus_is_input(app, (enum qkv_grid)place.focus) || place.focus >= QKV_GRID_WEIGHTS)) {
		app->focus = (enum qkv_grid)place.focus;
		app->cursor[app->focus].row = place.row;
		app->cursor[app->focus].col = place.col;
		app_clamp_cursors(app);
	}
	edit_say_undone(app, redo);
	return REDRAW_ALL;
}
