/* cost.c — the cost view (C): the trace measured for n = 16 … APP_COST_LAST_N on
 * the app's clock, a slice per tick by the caller (EVENT_MEASURED answers), the
 * measurement stopped when the view closes. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"

/* Opens the table for the problem's d_k and starts measuring it; without a
 * clock, or without memory, the view stays closed and the status line says why. */
int cost_open(struct app *app)
{
	struct app_cost_view *c = &app->cost;
	int d_k = app->trace.d_k >= 1 ? app->trace.d_k : 64, rc;
	/* A multi-head problem is priced as its h heads, each of its d_k. */
	int heads = app->problem.h > 0 ? app->problem.h : 1;

	if (c->clock == NULL) {
		app_say(app, true, "the cost view needs a clock to measure with");
		return -1;
	}
	c->measure = job_new(JOB_COST);
	rc = c->measure == NULL ? QKV_ENOMEM : qkv_cost_init(&c->measure->cost, d_k, heads, c->last_n, 3000.0,
									QKV_COST_BOTH);
	if (rc != 0) {
		job_abandon(c->measure);
		c->measure = NULL;
		app_say(app, true, "cannot measure: %s", qkv_error_string(rc));
		return rc;
	}
	c->measure->has_cost = true;
	c->measure->clock = c->clock;
	c->measure->clock_context = c->clock_context;
	c->table = &c->measure->cost;
	c->running = true;
	app_say(app, false, "measuring the trace for n = 16 … %d on this machine: Esc cancels", c->last_n);
	return 0;
}

/* The status line once a measurement has ended: true only while the view is open. */
static void done_words(const struct app_cost_view *c, char *buf, size_t size)
{
	snprintf(buf, size, "measured n = 16 \u2026 %d: C or Esc closes", c->table->rows[c->table->count - 1].n);
}

/* Closes the view: a measurement under way is cancelled, its storage freed; the
 * line saying how to close the view goes with it. */
void cost_close(struct app *app)
{
	struct app_cost_view *c = &app->cost;
	char done[APP_MESSAGE_MAX];

	if (c->measure == NULL)
		return;
	if (c->running) {
		app_say(app, false, "cost measurement cancelled at n = %d", c->table->n);
	} else if (c->table->count > 0) {
		done_words(c, done, sizeof done);
		if (strcmp(app->message, done) == 0)
			app->message[0] = '\0';
	}
	job_abandon(c->measure);
	c->measure = NULL;
	c->table = NULL;
	c->running = false;
	c->asked = false;
}

/* A slice measured (rc: job_slice's code); the view redraws with each. */
static int measured(struct app *app, int rc)
{
	struct app_cost_view *c = &app->cost;
	char done[APP_MESSAGE_MAX];

	c->asked = false;
	if (c->measure == NULL || !c->running)
		return REDRAW_NONE;
	if (rc <= 0) {
		c->running = false;
		if (rc < 0)
			app_say(app, true, "the measurement stopped at n = %d: %s", c->table->n, qkv_error_string(rc));
		else {
			done_words(c, done, sizeof done);
			app_say(app, false, "%s", done);
		}
		return REDRAW_OVERLAY | REDRAW_STATUS;
	}
	return REDRAW_OVERLAY;
}

/* A tick while it measures asks the caller for one slice, which it runs on the
 * clock (job_slice) and answers with EVENT_MEASURED; the tick goes on to the app
 * (autoplay steps under the view). */
int cost_event(struct app *app, const struct event *event)
{
	if (event->type == EVENT_MEASURED)
		return measured(app, event->error);
	if (event->type == EVENT_TICK && app->cost.running)
		app->cost.asked = true;
	return -1;
}
