/* view.h — the table of views over the editor (help, describe, saturation, cost,
 * learning, geometry), indexed by enum app_view_id: for each, its name, where its keys
 * live, the row of the key table that opens and closes it, and what it does on
 * opening, closing and on the events that are its own. Opening, closing, Esc,
 * the key context and app_update's dispatch read this table and name no view.
 * The interface draws each view from its own table, indexed the same way. */
#ifndef QKV_APP_VIEW_H
#define QKV_APP_VIEW_H

#include "app/app.h"

/* What a key not bound in the view's own context does while it is open. */
enum app_view_others {
	VIEW_OTHERS_EDITOR, /* reaches the editor's keys (saturation, describe, cost, geometry) */
	VIEW_OTHERS_CLOSE,  /* closes the view; a stage key then steps the stages (help) */
	VIEW_OTHERS_IGNORED, /* does nothing: the view's keys are all there is (learning) */
};

struct app_view {
	const char *name;   /* as lessons name it: "saturation" (`view`, `expect view`) */
	unsigned keys;      /* the enum app_key_context bit its own keys live in; 0: the editor's */
	enum app_view_others others;
	/* The key table's row that opens and closes it (handler view_toggle_key);
	 * listed in the help, the hints and the manual where its .view row stands
	 * in app_bindings, or after the table's rows when none places it. */
	struct app_binding toggle;
	/* On opening, starts what it runs: 0, or nonzero when it cannot open (it
	 * said why on the status line, and stays closed). NULL: nothing to start. */
	int (*start)(struct app *app);
	/* On closing, stops what it runs. NULL: nothing to stop. */
	void (*stop)(struct app *app);
	/* An event while it is open, before the app's own handling (a job's events
	 * come first): the redraw flags when the view took it, or −1 when the app
	 * handles it as usual (the view may have acted on it first, as the cost view
	 * asks for a slice on a tick). NULL: none. */
	int (*event)(struct app *app, const struct event *event);
};

extern const struct app_view app_views[VIEW_COUNT];

/* The toggle rows' handler: opens the view whose toggle key it is, or closes it
 * when it is open. */
int view_toggle_key(struct app *app, int key);

#endif
