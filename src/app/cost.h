/* cost.h — the cost view's state (C): the price of n², measured by the app's
 * caller a slice per tick on the clock (set by the interface, or by a test; the
 * view refuses without one). Changed only through app_update (app/cost.c); no curses. */
#ifndef QKV_APP_COST_H
#define QKV_APP_COST_H

#include <stdbool.h>

#include "app/job.h"
#include "qkv/cost.h"

struct app_cost_view {
	struct job *measure;         /* JOB_COST, run by the caller; NULL while the view is closed */
	const struct qkv_cost *table; /* its table, as the view draws it (NULL when closed) */
	bool running;                /* measuring; Esc cancels */
	bool asked;                  /* a tick asked the caller for one slice (EVENT_MEASURED) */
	int last_n;                  /* the table's largest n (APP_COST_LAST_N) */
	qkv_cost_clock clock;
	void *clock_context;
};

#endif
