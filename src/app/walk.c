/* walk.c — moving around: the cursor and the grid in focus, the stage walk (and
 * autoplay), the selected head and the selected token. */

#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"

/* Moves the focused cursor, within its grid; the linked cursors follow. */
int walk_move_cursor(struct app *app, int d_row, int d_col)
{
	struct app_cursor *c = &app->cursor[app->focus];
	int rows, cols;

	app_focus_shape(app, app->focus, &rows, &cols);
	c->row = app_clamp(c->row + d_row, 0, rows - 1);
	c->col = app_clamp(c->col + d_col, 0, cols - 1);
	/* The attention cursor follows the query or key being edited (X's rows are
	 * keys in cross-attention, whose queries are X_q's). */
	bool cross = qkv_problem_is_cross(&app->problem);

	if (app->focus == QKV_GRID_Q || app->focus == QKV_GRID_X_Q || (app->focus == QKV_GRID_X && !cross))
		app->cursor[QKV_GRID_WEIGHTS].row = c->row;
	if (app->focus == QKV_GRID_K || app->focus == QKV_GRID_V || (app->focus == QKV_GRID_X && cross))
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
int walk_cycle_focus(struct app *app, int direction)
{
	static const enum qkv_grid direct[] = { QKV_GRID_Q, QKV_GRID_K, QKV_GRID_V, QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };
	/* X_q (cross-attention's) is passed over where the problem has none. */
	static const enum qkv_grid projected[] = { QKV_GRID_X, QKV_GRID_X_Q, QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V,
						    QKV_GRID_WEIGHTS, QKV_GRID_OUTPUT };
	static const enum qkv_grid heads[] = { QKV_GRID_X, QKV_GRID_X_Q, QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V,
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
	at = (at + direction + count) % count;
	if (order[at] == QKV_GRID_X_Q && !qkv_problem_is_cross(&app->problem))
		at = (at + direction + count) % count;
	app->focus = order[at];
	return walk_move_cursor(app, 0, 0);
}

/* Multi-head: the focus follows the grids the stage shows (6 and 7 show the heads,
 * concat, W_O and the output; 0–5 the selected head's). */
void walk_focus_stage(struct app *app)
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
	app_clamp_cursors(app);
}

/* "stage 6 of 7: concat — …" for the status line. */
void walk_say_stage(struct app *app)
{
	int last = app_last_stage(app);

	if (app->stage == APP_STAGE_CONCAT)
		app_say(app, false, "stage 6 of 7: concat — Concat = [head 1 … head %d], the heads' outputs "
				"side by side", app->problem.h);
	else if (app->stage == APP_STAGE_LAYER)
		app_say(app, false, "stage 7 of 7: output — Concat · W_O = Σ head_i · W_O(i), each head's "
				"share added up");
	else if (app->problem.h > 0)
		app_say(app, false, "stage %d of %d: %s — %s (head %d)", app->stage, last,
		    qkv_stage_name((enum qkv_stage)app->stage),
		    qkv_stage_formula_of(&app->problem, (enum qkv_stage)app->stage, true), app->head + 1);
	else
		app_say(app, false, "stage %d of %d: %s — %s", app->stage, last,
		    qkv_stage_name((enum qkv_stage)app->stage),
		    qkv_stage_formula_of(&app->problem, (enum qkv_stage)app->stage, true));
}

/* The next (direction 1) or previous (−1) stage of the walk, and its name said. */
int walk_step_stage(struct app *app, int direction)
{
	int first = app_first_stage(app), last = app_last_stage(app);

	if (direction > 0)
		app->stage = app->stage == APP_STAGE_LIVE ? first
			     : app->stage < last ? app->stage + 1 : last;
	else
		app->stage = app->stage == APP_STAGE_LIVE || app->stage <= first ? APP_STAGE_LIVE
										 : app->stage - 1;
	/* Stepping never moves the focus between grids: the clicker walks the stages and
	 * the cursor stays where the person put it (Tab moves it). */
	walk_focus_stage(app);
	if (app->stage == APP_STAGE_LIVE)
		app_say(app, false, "all stages live");
	else
		walk_say_stage(app);
	return REDRAW_ALL;
}

/* Multi-head: selects head (0-based); every single-head panel then shows that head,
 * and the status line says what it looks at, in numbers. */
int walk_select_head(struct app *app, int head)
{
	const struct qkv_pattern *s;
	int h = app->problem.h, was = app->head, rc;

	app->head = head;
	if ((rc = marks_recompute(app, false)) != 0) {
		/* The head it was on, with its trace, and why not the other. */
		app->head = was;
		if (marks_recompute(app, false) == 0)
			app_say(app, true, "cannot compute: %s: still head %d", qkv_error_string(rc), was + 1);
		return REDRAW_ALL | REDRAW_LAYOUT;
	}
	s = &app->heads.pattern[app->head];
	app_say(app, false, "head %d of %d: mean weight on the previous token %.2f, on itself %.2f, "
			"on the first token %.2f; mean entropy %.2f nats",
	    app->head + 1, h, s->previous, s->diagonal, s->first, s->entropy);
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* Multi-head: selects the next head (or the previous). */
int walk_step_head(struct app *app, int direction)
{
	int h = app->problem.h;

	if (h < 1) {
		app_say(app, false, "H (or b) moves between heads: this problem has one head");
		return REDRAW_STATUS;
	}
	return walk_select_head(app, (app->head + direction + h) % h);
}

/* Whether the cursor is on cross-attention's queries rather than its tokens. */
bool walk_on_queries(const struct app *app)
{
	return qkv_problem_is_cross(&app->problem) && app->focus != QKV_GRID_K && app->focus != QKV_GRID_V &&
	       app->focus != QKV_GRID_X;
}

/* The token the cursor is on (the selected query off the token grids). */
int walk_token(const struct app *app)
{
	/* Cross-attention: the query the cursor is on, or the token (key) it is on. */
	if (qkv_problem_is_cross(&app->problem))
		return walk_on_queries(app) ? app_query(app) : app_key(app);
	if (app->focus == QKV_GRID_WEIGHTS || app->focus == QKV_GRID_OUTPUT ||
	    app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_LAYER)
		return app->cursor[app->focus].row;
	if (app_focus_is_input(app, app->focus) && app->focus != QKV_GRID_W_Q &&
	    app->focus != QKV_GRID_W_K && app->focus != QKV_GRID_W_V && app->focus != QKV_GRID_W_O)
		return app->cursor[app->focus].row;
	return app_query(app);
}

/* Puts the cursors that follow a token (the focused token grid's, the query's) on it. */
void walk_to_token(struct app *app, int token)
{
	if (qkv_problem_is_cross(&app->problem) && !walk_on_queries(app)) {
		/* A key: K's, V's or X's row is the one under the cursor. */
		app->cursor[app->focus].row = token;
		app->cursor[QKV_GRID_WEIGHTS].col = token;
	} else if (app->focus == QKV_GRID_Q || app->focus == QKV_GRID_X_Q || app->focus == QKV_GRID_K ||
		   app->focus == QKV_GRID_V || app->focus == QKV_GRID_X || app->focus == QKV_GRID_WEIGHTS || app->focus == QKV_GRID_OUTPUT ||
	    app->focus == QKV_GRID_CONCAT || app->focus == QKV_GRID_LAYER)
		app->cursor[app->focus].row = token;
	else
		app->cursor[QKV_GRID_WEIGHTS].row = token;
	app_clamp_cursors(app);
	walk_move_cursor(app, 0, 0);
}

/* One autoplay step: the next cell of the selected row, then the next stage. */
int walk_autoplay(struct app *app)
{
	int rows, cols;
	enum qkv_grid grid = app->stage >= QKV_STAGE_MIX ? QKV_GRID_OUTPUT : QKV_GRID_WEIGHTS;

	if (app->stage == APP_STAGE_LIVE)
		return walk_step_stage(app, 1);
	app_focus_shape(app, grid, &rows, &cols);
	if (app->focus == grid && app->cursor[grid].col + 1 < cols) {
		app->cursor[grid].col++;
		return REDRAW_ALL;
	}
	if (app->stage == QKV_STAGE_OUTPUT) {
		app->autoplay = false;
		app_say(app, false, "autoplay finished");
		return REDRAW_STATUS;
	}
	walk_step_stage(app, 1);
	grid = app->stage >= QKV_STAGE_MIX ? QKV_GRID_OUTPUT : QKV_GRID_WEIGHTS;
	app->cursor[grid].row = app_query(app);
	app->focus = app->stage == QKV_STAGE_PROJECTIONS ? app_first_input(app) : grid;
	app->cursor[grid].col = 0;
	return REDRAW_ALL;
}
