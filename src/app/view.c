/* view.c — the table of views over the editor and how a view opens, closes and
 * takes the keys while it is open; each view's own state and work are in its
 * file (help.c, saturation.c, cost.c, learning.c, geometry.c). Nothing here names a view
 * but the table. */
#include "app/view.h"
#include "app/internal.h"

const struct app_view app_views[VIEW_COUNT] = {
	[VIEW_NONE] = { .name = "none" },
	[VIEW_HELP] = {
		.name = "help", .keys = APP_KEYS_HELP, .others = VIEW_OTHERS_CLOSE,
		.toggle = { { '?' }, K_MAIN, "?", "this help", "? help", K_MAIN, view_toggle_key, NULL, "views", 0 },
		.start = help_open, .event = help_event,
	},
	[VIEW_DESCRIBE] = {
		.name = "describe",
		.toggle = { { 'D' }, K_MAIN, "D", "the weights in words", NULL, 0, view_toggle_key,
			    "describe: each row's strongest key and entropy, in words", "views", 0 },
	},
	[VIEW_SATURATION] = {
		.name = "saturation", .keys = APP_KEYS_SATURATION,
		.toggle = { { 'S' }, K_MAIN, "S", "saturation view", "S close", APP_KEYS_SATURATION, view_toggle_key,
			    "saturation view: the d_k sweep, scaled against unscaled, in braille charts as tall as "
			    "the screen allows", "views", 0 },
		.start = saturation_open,
	},
	[VIEW_COST] = {
		.name = "cost",
		.toggle = { { 'C' }, K_MAIN, "C", "cost of n²", NULL, 0, view_toggle_key,
			    "cost view: the standard algorithm and the online softmax measured on this machine for "
			    "n = 16 ... 4096 tokens with the problem's d_k (scores, flops, each one's bytes held and "
			    "median time), the fitted slopes of log time and log bytes against log n, and the "
			    "extrapolation to 10,000 and 100,000 tokens in words, with log-log charts of time and "
			    "bytes held when the screen has room; it measures a slice at a time, the interface stays "
			    "live, and Esc cancels (see --cost)", "views", 0 },
		.start = cost_open, .stop = cost_close, .event = cost_event,
	},
	[VIEW_LEARNING] = {
		.name = "learning", .keys = APP_KEYS_LEARNING, .others = VIEW_OTHERS_IGNORED,
		.toggle = { { 'L' }, K_MAIN | APP_KEYS_LEARNING, "L", "learning view", "L close", APP_KEYS_LEARNING,
			    view_toggle_key,
			    "learning view: the same task, seed and d_k trained with √d_k scaling and without, side by "
			    "side (weights, loss, accuracy, gradient and Jacobian norms, W_Q and W_K); there space runs "
			    "or pauses, . steps once, r starts again, > / < double or halve d_k, + / - change the speed, "
			    "Tab and the arrows choose the gradient cell whose derivation is shown, x switches that "
			    "derivation between the runs, and E shows the experiment: the steps to 90% over d_k = 4 … "
			    "256 for five seeds, scaled against unscaled, run between keys, as a table, a chart and a "
			    "sentence computed from them", "views", 0 },
		.start = learning_open, .stop = learning_close, .event = app_learning_event,
	},
	[VIEW_ONLINE] = {
		.name = "online", .keys = APP_KEYS_ONLINE,
		.toggle = { { 'F' }, K_MAIN | APP_KEYS_ONLINE, "F", "online softmax walk", "F close", APP_KEYS_ONLINE,
			    view_toggle_key,
			    "online softmax walk: the selected query reads its keys a tile at a time, as "
			    "memory-efficient kernels (FlashAttention) do, never forming S, S' or A: each step shows "
			    "the tile's scores, the running maximum m, the factor e^(m_old − m_new) that rescales ℓ "
			    "and o when m grows, and ℓ and o before and after; the last step sets o / ℓ beside the "
			    "standard row with their largest difference. There → and ← step, Home and "
			    "End go to the start and the end, + and − double and halve the tile, ↑ ↓ choose the "
			    "query; the editor's keys still edit, and the walk follows", "views", 0 },
		.start = online_walk_open,
	},
	[VIEW_GEOMETRY] = {
		.name = "geometry", .keys = APP_KEYS_GEOMETRY,
		.toggle = { { 'G' }, K_MAIN, "G", "geometry view", "G close", APP_KEYS_GEOMETRY,
			    view_toggle_key,
			    "geometry view: every query and key as an arrow from the origin in a braille plot (points "
			    "past a dozen tokens), queries and keys told apart by colour and mark, the selected query's "
			    "arrow highlighted with each key's projection onto it, the keys' marks sized by their "
			    "weights, and its dot product with the selected key in words (q · k = |q| |k| cos θ). With "
			    "d_k = 2 the plane is exact; past that it is the plane of the first two principal "
			    "components of Q's and K's rows together (uncentred), with the share of the spread it "
			    "holds; the dot products are always the exact ones. The editor's keys work in it: Tab, "
			    "0-9, + -, > < and s edit and the arrows move; Esc or G closes it", "views", 0 },
	},
};

/* Closes the view open, stopping what it runs. */
void view_close(struct app *app)
{
	const struct app_view *v = &app_views[app->view];

	if (v->stop != NULL)
		v->stop(app);
	app->view = VIEW_NONE;
}

/* Opens view, or closes it when open (starting and stopping what it runs). */
int view_toggle(struct app *app, enum app_view_id view)
{
	enum app_view_id before = app->view;

	view_close(app);
	if (before != view) {
		app->view = view;
		if (app_views[view].start != NULL && app_views[view].start(app) != 0)
			app->view = VIEW_NONE;
	}
	return REDRAW_ALL;
}

/* The toggle rows' handler: the view whose row holds key. */
int view_toggle_key(struct app *app, int key)
{
	for (int v = 1; v < VIEW_COUNT; v++)
		for (int k = 0; k < APP_BINDING_KEYS && app_views[v].toggle.keys[k] != 0; k++)
			if (app_views[v].toggle.keys[k] == key)
				return view_toggle(app, (enum app_view_id)v);
	return REDRAW_NONE;
}

/* The keys that step the stages; a presentation clicker sends them. */
bool view_is_stage_key(int key)
{
	return key == APP_KEY_PAGE_DOWN || key == APP_KEY_PAGE_UP || key == APP_KEY_HOME || key == APP_KEY_END;
}

/* A key the open view does not bind: the editor's, nothing, or it closes the view. */
int view_others(struct app *app, int key)
{
	const struct app_binding *b;

	switch (app_views[app->view].others) {
	case VIEW_OTHERS_IGNORED:
		return REDRAW_NONE;
	case VIEW_OTHERS_CLOSE:
		view_close(app);
		return view_is_stage_key(key) ? REDRAW_ALL | view_key(app, key) : REDRAW_ALL;
	case VIEW_OTHERS_EDITOR:
	default:
		b = app_binding_find(K_MAIN, key);
		return b != NULL ? b->handler(app, key) : REDRAW_NONE;
	}
}

/* A key outside edits and questions: the open view's binding, or what the view
 * does with the others. */
int view_key(struct app *app, int key)
{
	unsigned keys = app_views[app->view].keys;
	const struct app_binding *b = keys != 0 ? app_binding_find(keys, key) : NULL;

	return b != NULL ? b->handler(app, key) : view_others(app, key);
}
