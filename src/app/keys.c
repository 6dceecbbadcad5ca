/* keys.c — the one key table: where each key works, how the help, the status line
 * and the manual page name it, and which handler it calls; the key handlers that
 * are only dispatch live here too. */

#include "app/app.h"
#include "app/help.h"
#include "app/internal.h"
#include "app/view.h"
#include "qkv/format.h"

/* Enter: edits an input's cell; on a weight of a custom mask, toggles its bit. */
static int key_enter(struct app *app, int key)
{
	struct qkv_problem *p = &app->problem;

	(void)key;
	if (app_focus_is_input(app, app->focus)) {
		edit_start(app, 0);
		return REDRAW_INPUTS | REDRAW_STATUS;
	}
	if (app->focus == QKV_GRID_WEIGHTS && p->mask == QKV_MASK_CUSTOM) {
		const struct app_cursor *c = &app->cursor[QKV_GRID_WEIGHTS];

		return edit_change_problem(app, change_mask_bit, c->row * p->n + c->col,
				      "mask bit toggled");
	}
	app_say(app, false, "the %s grid is computed from %s: edit those", app_focus_name(app->focus),
	    p->form == QKV_FORM_DIRECT ? "Q, K and V" : "X and the W's");
	return REDRAW_STATUS;
}

/* The arrows and h j k l: move the cursor in the focused grid. */
static int key_move(struct app *app, int key)
{
	switch (key) {
	case APP_KEY_UP: case 'k': return walk_move_cursor(app, -1, 0);
	case APP_KEY_DOWN: case 'j': return walk_move_cursor(app, 1, 0);
	case APP_KEY_LEFT: case 'h': return walk_move_cursor(app, 0, -1);
	default: return walk_move_cursor(app, 0, 1);
	}
}

/* Tab and Shift-Tab: the next or previous grid. */
static int key_focus(struct app *app, int key)
{
	return walk_cycle_focus(app, key == APP_KEY_TAB ? 1 : -1);
}

/* PgDn, Space, n and PgUp, p: the next or previous stage. */
static int key_stage(struct app *app, int key)
{
	return walk_step_stage(app, key == APP_KEY_PAGE_UP || key == 'p' ? -1 : 1);
}

/* Home: every stage live; End: the last stage. */
static int key_home_end(struct app *app, int key)
{
	if (key == APP_KEY_HOME) {
		app->stage = APP_STAGE_LIVE;
		app_say(app, false, "all stages live");
	} else {
		app->stage = app_last_stage(app);
		walk_focus_stage(app);
		walk_say_stage(app);
	}
	return REDRAW_ALL;
}

/* A digit, a point or a decimal comma: starts an edit of an input's cell with it. */
static int key_digit(struct app *app, int key)
{
	if (app_focus_is_input(app, app->focus)) {
		edit_start(app, key == ',' ? '.' : key);
		if (key == ',')
			app_say(app, false, "a decimal comma is read as a decimal point");
		return REDRAW_INPUTS | REDRAW_STATUS;
	}
	app_say(app, true, "the %s grid is computed: edit %s", app_focus_name(app->focus),
	    app->problem.form == QKV_FORM_DIRECT ? "Q, K or V" : "X or a W");
	return REDRAW_STATUS;
}

/* H and b: the next head of a multi-head problem. */
static int key_head(struct app *app, int key)
{
	(void)key;
	return walk_step_head(app, 1);
}

/* + (or =) and −: nudge the selected cell by the step. */
static int key_nudge(struct app *app, int key)
{
	const struct app_cursor *c = &app->cursor[app->focus];

	return edit_nudge(app, app->focus, c->row, c->col, key == '-' ? -app->step : app->step);
}

/* u and Ctrl-R: undo and redo. */
static int key_undo(struct app *app, int key)
{
	return edit_undo_redo(app, key == APP_KEY_CTRL_R);
}

/* A: steps the stages on its own, a step every pace_s seconds. */
static int key_autoplay(struct app *app, int key)
{
	(void)key;
	app->autoplay = true;
	app->next_step_ms = app->now_ms + (int64_t)(app->pace_s * 1000.0);
	app_say(app, false, "autoplay: a step every %g s; any key stops it", app->pace_s);
	return REDRAW_STATUS;
}

/* P: projector mode on or off; c: the next of the interface's palettes. */
static int key_look(struct app *app, int key)
{
	if (key == 'P') {
		app->projector = !app->projector;
		app_say(app, false, "projector mode %s", app->projector ? "on" : "off");
		return REDRAW_ALL | REDRAW_LAYOUT;
	}
	app->palette = (app->palette + 1) % app->palette_count;
	if (qkv_colour_palette_name(app->palette) != NULL)
		app_say(app, false, "palette: %s", qkv_colour_palette_name(app->palette));
	return REDRAW_ALL | REDRAW_STATUS;
}

/* R: the weights' colour scale over 0–1 or over each row's own range. */
static int key_range(struct app *app, int key)
{
	(void)key;
	app->auto_range = !app->auto_range;
	app_say(app, false, "weights colour scale: %s", app->auto_range ? "each row's own range (auto)" : "fixed 0 to 1");
	return REDRAW_ATTENTION | REDRAW_STATUS;
}

/* w: saves to the file (asking first when it changed on disk), or asks for a name. */
static int key_save(struct app *app, int key)
{
	(void)key;
	app->exporting = false;
	if (app->path != NULL) {
		prompt_ask(app, APP_REQUEST_LOOK, app->path, LOOK_BEFORE_SAVE);
		return REDRAW_STATUS;
	}
	app->prompt = PROMPT_SAVE_AS;
	app->answer[0] = '\0';
	return REDRAW_STATUS;
}

/* E: asks for the figure's name (its ending the format), as w asks for a file's;
 * a figure above the cells a figure draws is refused before the name is asked. */
static int key_export(struct app *app, int key)
{
	struct figure_options o;
	char err[256];

	(void)key;
	app_figure_options(app, &o);
	if (figure_either_check_size(&app->problem, &app->trace, &app->heads, &o, err, sizeof err) != 0) {
		app_say(app, true, "%s", err);
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
	app_say(app, false, "Ctrl-S does nothing here: w saves");
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

/* Esc: closes the view open, or clears the message. */
static int key_escape(struct app *app, int key)
{
	(void)key;
	if (app->view != VIEW_NONE)
		return view_toggle(app, app->view);
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

/* Every key: where it works, how the help, the status line and the manual page
 * name it, and what it does. The help overlay, the status line's hints and the
 * dispatch below read this table; tests/test_keys.c checks the manual page's KEYS
 * section against it. A view's own row, the key that opens and closes it, is in
 * the table of views (app/view.c) and stands where a row names the view (.view).
 * Order: the status line's, and the help's inside a group (the help's headings
 * come in the order they first appear: src/app/help.c). A note fits a help column
 * (APP_KEY_NAME_MAX, APP_KEY_NOTE_MAX). */
const struct app_binding app_bindings[] = {
	{ { APP_KEY_PAGE_DOWN, ' ', 'n' }, K_MAIN, "PgDn Space n", "next stage",
	  "PgDn next stage", K_MAIN, key_stage, NULL, "the stage walk", 0 },
	{ { APP_KEY_PAGE_UP, 'p' }, K_MAIN, "PgUp p", "previous stage", "PgUp back", APP_KEYS_STAGES, key_stage,
	  NULL, "the stage walk", 0 },
	{ { APP_KEY_HOME, APP_KEY_END }, K_MAIN, "Home End", "all live / last stage", "Home all live",
	  APP_KEYS_STAGES, key_home_end, NULL, "the stage walk", 0 },
	{ { 'A' }, K_MAIN, "A", "autoplay (a key stops)", "A autoplay", APP_KEYS_STAGES, key_autoplay,
	  "autoplay through the stages, a step every --pace seconds (any key stops it)", "the stage walk", 0 },
	{ { APP_KEY_UP, 'k', APP_KEY_DOWN, 'j', APP_KEY_LEFT, 'h', APP_KEY_RIGHT, 'l' }, K_MAIN, "arrows hjkl",
	  "move the cursor", "arrows move the cell", APP_KEYS_STAGES, key_move,
	  "move the cursor in the focused matrix", "cells", 0 },
	{ { APP_KEY_TAB, APP_KEY_BACKTAB }, K_MAIN, "Tab Shift-Tab", "next / previous matrix", "Tab matrix",
	  APP_KEYS_LIVE | APP_KEYS_GEOMETRY, key_focus, NULL, "cells", 0 },
	{ { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', ',' }, K_MAIN, "0-9 .", "type a cell's value",
	  "0-9 edit", APP_KEYS_LIVE | APP_KEYS_GEOMETRY, key_digit,
	  "edit the selected cell, starting with the key typed (a decimal comma is the point); Enter keeps, "
	  "Esc cancels", "cells", 0 },
	{ { APP_KEY_ENTER }, K_MAIN, "Enter", "edit / mask bit", NULL, 0, key_enter,
	  "edit the selected cell; Enter keeps, Esc cancels. On a weight in a custom mask: toggle its mask bit",
	  "cells", 0 },
	{ { '+', '=', '-' }, K_MAIN, "+ -", "nudge by the step", "+/- nudge", APP_KEYS_LIVE | APP_KEYS_GEOMETRY, key_nudge,
	  "nudge the selected cell up / down by the step (= is + too)", "cells", 0 },
	{ { 'u', APP_KEY_CTRL_R }, K_MAIN, "u Ctrl-R", "undo, redo", "u undo", APP_KEYS_LIVE, key_undo, NULL, "cells", 0 },
	{ { 'H', 'b' }, K_MAIN, "H b", "next head (multi-head)", "H next head", K_MAIN, key_head,
	  "multi-head problems: select the next head (b is a key presentation clickers send); the single-head "
	  "panels and stages 0–5 then show that head, and stages 6 (the concatenation) and 7 (the output "
	  "Concat W_O, with each head's share of the selected cell) follow stage 5", "cells", 0 },
	{ .view = VIEW_HELP }, /* ?: the row is the view's own (app/view.c) */
	{ { 'o', 'x' }, K_MAIN, "o x", "add / remove a token", NULL, 0, options_tokens,
	  "add a token after the cursor's and put the cursor on it / remove the cursor's token "
	  "(so x right after o takes the new token away again); in cross-attention a query on Q, X_q, "
	  "the weights and the output, a token (a key) on K, V and X", "the shape", 0 },
	{ { ']', '[', '}', '{' }, K_MAIN, "] [ } {", "d_k + / −, d_v + / −", NULL, 0, options_columns,
	  "] and [ add / remove a column of Q and K (d_k); on X, a column of X and a row of every W "
	  "(d_model); } and { add / remove a column of V (d_v)", "the shape", 0 },
	{ { APP_KEY_UP, 'k', APP_KEY_DOWN, 'j' }, APP_KEYS_SATURATION, "S: ↑ ↓ k j", "tokens × 2 / ÷ 2",
	  "↑↓ tokens", APP_KEYS_SATURATION, saturation_tokens, "in the saturation view: tokens × 2 / ÷ 2",
	  "the saturation view (S)", 0 },
	{ { APP_KEY_RIGHT, 'l', APP_KEY_LEFT, 'h' }, APP_KEYS_SATURATION, "S: → ← l h", "trials × 2 / ÷ 2",
	  "←→ trials", APP_KEYS_SATURATION, saturation_trials, "in the saturation view: trials × 2 / ÷ 2",
	  "the saturation view (S)", 0 },
	{ { APP_KEY_RIGHT, APP_KEY_LEFT, APP_KEY_HOME, APP_KEY_END }, APP_KEYS_ONLINE,
	  "F: → ←", "next / previous tile", "→ next tile", APP_KEYS_ONLINE, online_walk_step,
	  "in the online softmax walk: the next tile (→), the one before (←), the start (Home), the output "
	  "beside the standard row (End); PgDn, Space and n still walk the stages, and a lesson's PgDn its "
	  "steps", "the online softmax walk (F)", 0 },
	{ { '+', '=', '-' }, APP_KEYS_ONLINE, "F: + -", "tile × 2 / ÷ 2", "+- tile", APP_KEYS_ONLINE,
	  online_walk_tile, "in the online softmax walk: twice / half the keys a tile, and the walk starts again",
	  "the online softmax walk (F)", 0 },
	{ { APP_KEY_UP, 'k', APP_KEY_DOWN, 'j' }, APP_KEYS_ONLINE, "F: ↑ ↓ k j", "query before / after",
	  "↑↓ query", APP_KEYS_ONLINE, online_walk_query,
	  "in the online softmax walk: the query before / after, and the walk starts again",
	  "the online softmax walk (F)", 0 },
	{ { '>', '<' }, K_MAIN, "> <", "d_k × 2 / ÷ 2", "> < d_k", APP_KEYS_SATURATION | APP_KEYS_GEOMETRY, options_double_d_k,
	  "double / halve d_k; the new columns of Q and K are drawn from N(0,1) with the seed the status line "
	  "shows (a random problem's own seed), so the saturation lesson works from any problem", "the shape", 0 },
	{ { 's', 't', 'T' }, K_MAIN, "s t T", "scale on/off, τ −/+", "s scale", APP_KEYS_LIVE | APP_KEYS_SATURATION | APP_KEYS_GEOMETRY,
	  options_scale, "s: scale by √d_k or not at all; t and T: temperature τ down / up (softmax of S / (τ·√d_k))",
	  "the computation", 0 },
	{ { 'm', 'z' }, K_MAIN, "m z", "mask, padding token", NULL, 0, options_mask,
	  "m: mask none → causal → custom (in custom, Enter on a weight toggles its mask bit); z: mark the "
	  "cursor's token as padding, no query sees it as a key (again to unmark)", "the computation", 0 },
	{ { 'I' }, K_MAIN, "I", "tie W's to identity", NULL, 0, options_identity,
	  "tie W_Q, W_K and W_V to the identity (Q = K = V = X) and back; problems with X only", "the computation", 0 },
	{ { 'W' }, K_MAIN, "W", "wrong-way demos", NULL, 0, options_wrong,
	  "“wrong way” demonstrations: mask after softmax, softmax down columns", "the computation", 0 },
	{ { 'r' }, K_MAIN, "r", "random N(0,1) Q, K, V", NULL, 0, options_random,
	  "fill Q, K and V with seeded random N(0,1) values (the seed is shown)", "the computation", 0 },
	{ .view = VIEW_SATURATION },
	{ .view = VIEW_GEOMETRY },
	{ { APP_KEY_UP, 'k', APP_KEY_DOWN, 'j', APP_KEY_LEFT, 'h', APP_KEY_RIGHT, 'l' }, APP_KEYS_GEOMETRY, "G: arrows",
	  "selected query / key", NULL, 0, geometry_move,
	  "in the geometry view: move the cursor in the focused matrix, as in the editor (h j k l too): a row of "
	  "Q or X, or of the weights, is the selected query, whose arrow is highlighted and onto which the keys "
	  "are projected; a row of K, or a column of the weights, is the selected key, whose dot product with "
	  "it is written out; 0-9 and + - edit the cell under the cursor and the arrows move with it",
	  "views", 0 },
	{ .view = VIEW_LEARNING },
	/* Inside the learning view, its keys (app/learning.c); other keys do nothing
	 * there but L, Esc, q, P and c. */
	{ { ' ', '.', 'n', '+', '-' }, APP_KEYS_LEARNING, "L: space . +-", "run, step once, speed",
	  "space run · . step · +- speed",
	  APP_KEYS_LEARNING, learning_run,
	  "in the learning view: space runs both trainings on ticks or pauses them, . (or n) takes one update of "
	  "each and pauses, + and - give more or fewer updates per tick (1, 2, 5, 10, 20 or 50)", "views", 0 },
	{ { 'r', '>', '<' }, APP_KEYS_LEARNING, "L: r > <", "again, d_k × 2 / ÷ 2", "r reset · > < d_k", APP_KEYS_LEARNING,
	  learning_restart,
	  "in the learning view: both runs again from step 0, with the same d_k (r), twice it (>, refused when "
	  "it would train too slowly to watch) or half (<)", "views", 0 },
	{ { APP_KEY_TAB, APP_KEY_UP, 'k', APP_KEY_DOWN, 'j', APP_KEY_LEFT, 'h', APP_KEY_RIGHT, 'l', 'x' },
	  APP_KEYS_LEARNING, "L: Tab arrows", "gradient cell, x: run", "Tab ∇W", APP_KEYS_LEARNING,
	  learning_cell,
	  "in the learning view: the gradient whose derivation is shown: Tab the next matrix (of W_Q, W_K, W_V), "
	  "the arrows or h j k l its cell, x the same cell in the other run (scaled / unscaled)", "views", 0 },
	{ { 'E' }, APP_KEYS_LEARNING, "L: E", "the experiment", "E sweep", APP_KEYS_LEARNING, learning_experiment,
	  "in the learning view: the experiment (steps to 90% over d_k = 4 … 256 for five seeds, scaled against "
	  "unscaled, run between keys), or the runs again", "views", 0 },
	{ .view = VIEW_COST },
	{ .view = VIEW_DESCRIBE },
	{ { 'R' }, K_MAIN, "R", "colour range 0–1 / row", NULL, 0, key_range,
	  "weights colour scale: fixed 0–1 or each row's own range (the legend then shows the selected row's "
	  "range)", "views", 0 },
	{ { 'P', 'c' }, K_MAIN | APP_KEYS_LEARNING, "P c", "projector, palette", NULL, 0, key_look,
	  "P: projector mode on / off; c: the next palette (viridis, projector, 8, mono)", "views", 0 },
	{ { 'w' }, K_MAIN, "w", "save", NULL, 0, key_save,
	  "save (asks first when the file changed on disk since qkv read it; without a file, asks for a name)",
	  "file and screen", 0 },
	{ { 'E' }, K_MAIN, "E", "export a figure", NULL, 0, key_export,
	  "export the stage on screen as a figure (the weights in the live view): asks for a name like w; its "
	  "ending, .svg, .pdf or .png, picks the format; drawn beside the interface (Esc cancels), written "
	  "atomically, in the palette on screen, the selected cell framed; at most 250,000 cells (in the "
	  "learning view, E is its experiment)", "file and screen", 0 },
	{ { APP_KEY_CTRL_S }, K_MAIN, "Ctrl-S", "nothing (w saves)", NULL, 0, key_ctrl_s,
	  "nothing: the terminal's flow control is off while qkv runs, and w saves", "file and screen", 0 },
	{ { 'q', APP_KEY_CTRL_C, APP_KEY_CTRL_BACKSLASH }, K_MAIN | APP_KEYS_LEARNING, "q", "quit (Ctrl-C, Ctrl-\\)", "q quit",
	  APP_KEYS_LIVE, key_quit, "quit, as Ctrl-\\ does (asks first when there are unsaved changes)",
	  "file and screen", 0 },
	{ { APP_KEY_ESCAPE }, K_MAIN | APP_KEYS_LEARNING, "Esc", "close, cancel", NULL, 0, key_escape,
	  "close an overlay; cancel an edit or a question", "file and screen", 0 },
	{ { APP_KEY_CTRL_L }, K_MAIN, "Ctrl-L", "draw the screen again", NULL, 0, key_redraw, NULL, "file and screen", 0 },
	{ { 0 }, K_MAIN, "click, wheel", "select, nudge a cell", NULL, 0, NULL,
	  "the mouse: a click selects a cell (in a multi-head problem, a click on another head's weights "
	  "selects that head too, as H does); the wheel nudges it", "file and screen", 0 },
	/* While a lesson is presented (--lesson) these keys are the lesson's own
	 * (lesson_update, present/lesson_run.c, reads these rows): they move through its
	 * steps; the rest reach the app. */
	{ { APP_KEY_PAGE_DOWN, APP_KEY_PAGE_UP }, APP_KEYS_LESSON, "PgDn PgUp", "lesson: next / back",
	  "PgDn next · PgUp back", APP_KEYS_LESSON, NULL,
	  "in a lesson (--lesson): the next step / the one before, or first the next / the previous page of "
	  "the step's notes when the screen shows them a page at a time; a step is always rebuilt from the "
	  "lesson's start, so what was changed by hand is set aside", "a lesson (--lesson)", 0 },
	{ { APP_KEY_HOME, APP_KEY_END }, APP_KEYS_LESSON, "Home End", "lesson: first / last", "Home first",
	  APP_KEYS_LESSON, NULL, "in a lesson: its first step / its last step", "a lesson (--lesson)", 0 },
	{ { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }, APP_KEYS_LESSON, "number Enter",
	  "lesson: go to step", "number Enter jumps", APP_KEYS_LESSON, NULL,
	  "in a lesson: a step's number, then Enter, goes to that step (Backspace erases, Esc cancels)",
	  "a lesson (--lesson)", 0 },
	/* While the help is open: its pages; any other key closes it (app_update). */
	{ { APP_KEY_PAGE_DOWN, ' ', 'n' }, APP_KEYS_HELP, "PgDn Space n", NULL, "PgDn more", APP_KEYS_HELP,
	  help_page_key,
	  "in the help, when it has more pages than the screen shows at once: its next page (on the last page "
	  "the key closes the help and does what it does outside it)", NULL, 0 },
	{ { APP_KEY_PAGE_UP, 'p' }, APP_KEYS_HELP, "PgUp p", NULL, "PgUp back", APP_KEYS_HELP, help_page_key,
	  "in the help: its page before (on the first page the key closes the help and does what it does "
	  "outside it)", NULL, 0 },
	{ { APP_KEY_ESCAPE }, APP_KEYS_HELP, "Esc", NULL, "Esc close", APP_KEYS_HELP, key_escape, "in the help: close it",
	  NULL, 0 },
	/* Inside an edit, the keys that are not the number typed; inside a question
	 * every key is an answer or a name (prompt_key): these rows are its hints. */
	{ { APP_KEY_ENTER }, APP_KEYS_EDIT, "Enter", NULL, "Enter keep", APP_KEYS_EDIT, edit_keep,
	  "in an edit: keep the typed value (a finite number, |v| ≤ 1e12)", NULL, 0 },
	{ { APP_KEY_ESCAPE, APP_KEY_CTRL_C }, APP_KEYS_EDIT, "Esc Ctrl-C", NULL, "Esc cancel", APP_KEYS_EDIT,
	  edit_cancel, "in an edit: cancel it, the cell keeps its value", NULL, 0 },
	{ { APP_KEY_BACKSPACE, APP_KEY_DELETE, APP_KEY_CTRL_U }, APP_KEYS_EDIT, "Backspace Ctrl-U", NULL,
	  "Backspace erase", APP_KEYS_EDIT, edit_erase, "in an edit: erase the last character / all of them", NULL, 0 },
	{ { 0 }, APP_KEYS_EDIT, "digits . - + e", NULL, "digits . - e", APP_KEYS_EDIT, NULL,
	  "in an edit: the number typed (other keys are ignored; PgDn, PgUp, Home and End keep a number "
	  "and step the stages)", NULL, 0 },
	{ { APP_KEY_ENTER }, APP_KEYS_SAVE_AS, "Enter", NULL, "Enter save", APP_KEYS_SAVE_AS, prompt_save_as_enter,
	  "typing a name to save as: save there (a folder is refused, a file asks before it is overwritten)", NULL, 0 },
	{ { APP_KEY_ESCAPE, APP_KEY_CTRL_C }, APP_KEYS_SAVE_AS, "Esc Ctrl-C", NULL, "Esc cancel", APP_KEYS_SAVE_AS,
	  prompt_save_as_cancel, "typing a name to save as: do not save", NULL, 0 },
	{ { APP_KEY_BACKSPACE, APP_KEY_DELETE, APP_KEY_CTRL_U }, APP_KEYS_SAVE_AS, "Backspace Ctrl-U", NULL, NULL, 0,
	  prompt_save_as_erase, "typing a name to save as: erase its last character / all of it", NULL, 0 },
	{ { 'y', 'Y' }, APP_KEYS_RECOVER, "y", NULL, "y open them", APP_KEYS_RECOVER, prompt_recover_open,
	  "asked about a recovery copy: open its changes, unsaved (u goes back to the file)", NULL, 0 },
	{ { 'n', 'N' }, APP_KEYS_RECOVER, "n", NULL, "n delete the copy", APP_KEYS_RECOVER, prompt_recover_delete,
	  "asked about a recovery copy: delete it", NULL, 0 },
	{ { APP_KEY_ESCAPE, APP_KEY_CTRL_C }, APP_KEYS_RECOVER, "Esc Ctrl-C", NULL, "Esc keep it for later",
	  APP_KEYS_RECOVER, prompt_recover_later, "asked about a recovery copy: keep it for the next time", NULL, 0 },
	{ { 'y', 'Y' }, APP_KEYS_ANSWER, "y", NULL, "y yes", APP_KEYS_ANSWER, prompt_answer_yes,
	  "asked to quit with unsaved changes, or to save over a file: yes", NULL, 0 },
	{ { 'n', 'N', APP_KEY_ESCAPE, APP_KEY_CTRL_C, APP_KEY_CTRL_BACKSLASH }, APP_KEYS_ANSWER, "n Esc Ctrl-C", NULL,
	  "n no", APP_KEYS_ANSWER, prompt_answer_no, "asked to quit (Ctrl-\\ too) or to save over a file: no", NULL, 0 },
};
const int app_binding_count = (int)(sizeof app_bindings / sizeof app_bindings[0]);

/* The rows of app_bindings, each view's own where its .view row stands, then
 * those of the views no row places. */
void app_keys_gather(struct app_keys *keys, const struct app_view *views, int view_count)
{
	bool placed[APP_KEY_ROWS_MAX] = { false };

	keys->count = 0;
	for (int i = 0; i < app_binding_count && keys->count < APP_KEY_ROWS_MAX; i++) {
		int v = app_bindings[i].view;

		if (v == 0) {
			keys->rows[keys->count++] = &app_bindings[i];
		} else if (v < view_count && v < APP_KEY_ROWS_MAX && !placed[v]) {
			keys->rows[keys->count++] = &views[v].toggle;
			placed[v] = true;
		}
	}
	for (int v = 1; v < view_count && v < APP_KEY_ROWS_MAX && keys->count < APP_KEY_ROWS_MAX; v++)
		if (!placed[v] && views[v].toggle.keys[0] != 0)
			keys->rows[keys->count++] = &views[v].toggle;
}

void app_keys_default(struct app_keys *keys)
{
	app_keys_gather(keys, app_views, VIEW_COUNT);
}

/* The context whose keys are in reach now (one APP_KEYS_* bit): a question's, an
 * edit's, the open view's own, or the editor's. */
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
	if (app_views[app->view].keys != 0)
		return app_views[app->view].keys;
	return app->stage != APP_STAGE_LIVE ? APP_KEYS_STAGES : APP_KEYS_LIVE;
}

/* The binding of key in context, or NULL. */
const struct app_binding *app_binding_find(unsigned context, int key)
{
	struct app_keys keys;

	app_keys_default(&keys);
	for (int i = 0; i < keys.count; i++) {
		const struct app_binding *b = keys.rows[i];

		if ((b->context & context) == 0 || b->handler == NULL)
			continue;
		for (int k = 0; k < APP_BINDING_KEYS && b->keys[k] != 0; k++)
			if (b->keys[k] == key)
				return b;
	}
	return NULL;
}

/* True when key is one of a binding's in context, whoever handles it (a lesson's
 * rows have no handler here). */
bool app_key_bound(unsigned context, int key)
{
	struct app_keys keys;

	app_keys_default(&keys);
	for (int i = 0; i < keys.count; i++)
		for (int k = 0; (keys.rows[i]->context & context) != 0 && k < APP_BINDING_KEYS &&
				keys.rows[i]->keys[k] != 0; k++)
			if (keys.rows[i]->keys[k] == key)
				return true;
	return false;
}

/* The hints of every row of keys hinted in context, in the table's order. */
void app_keys_hints(const struct app_keys *keys, const struct app *app, unsigned context, char *buf,
		    size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < keys->count && used < size; i++) {
		const struct app_binding *b = keys->rows[i];
		char step[24] = "";

		if ((b->hint_context & context) == 0)
			continue;
		if (b->handler == key_head && app->problem.h == 0)
			continue; /* one head: H says so, the line need not */
		if (b->handler == help_page_key && help_page_after(app, b->keys[0]) < 0)
			continue; /* no page that way: the key closes the help */
		if (b->handler == key_nudge) {
			step[0] = ' ';
			qkv_format_exact(step + 1, sizeof step - 1, app->step);
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%s%s", used == 0 ? " " : " · ",
					 b->handler == prompt_save_as_enter && app->exporting ? "Enter export" : b->hint, step);
	}
}

/* The hints of every binding hinted in context, in the table's order. */
void app_context_hints(const struct app *app, unsigned context, char *buf, size_t size)
{
	struct app_keys keys;

	app_keys_default(&keys);
	app_keys_hints(&keys, app, context, buf, size);
}

/* The status line's hints: every binding hinted in the context in reach. */
void app_key_hints(const struct app *app, char *buf, size_t size)
{
	app_context_hints(app, app_key_context(app), buf, size);
}
