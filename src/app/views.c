/* views.c — the views over the editor: the saturation sweep (S), the cost view (C)
 * and how a view opens and closes. */
#include <stdlib.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"

/* Recomputes the sweep for the present parameters; a large one runs as a job, and
 * Esc then goes back to tokens and trials (whose sweep is still shown). */
static void run_sweep(struct app *app, int tokens, int trials)
{
	struct job *job;
	int count;

	if (compute_sweep_cost(app->sweep_tokens, app->sweep_trials, app->sweep_dk_max) > JOB_COST &&
	    (job = job_new(JOB_SWEEP)) != NULL) {
		job->tokens = app->sweep_tokens;
		job->trials = app->sweep_trials;
		job->seed = app->sweep_seed;
		job->d_k_max = app->sweep_dk_max;
		app->job_tokens = tokens;
		app->job_trials = trials;
		snprintf(app->job_what, sizeof app->job_what, "the sweep of %d tokens × %d trials up to d_k %d",
			 job->tokens, job->trials, job->d_k_max);
		compute_run(app, job);
		return;
	}

	count = qkv_sweep(app->sweep_tokens, app->sweep_trials, app->sweep_seed, app->sweep_dk_max,
			  app->sweep);

	app->sweep_count = count > 0 ? count : 0;
	if (count < 0)
		app_say(app, true, "the sweep failed: %s", qkv_error_string(count));
}

/* Keys inside the saturation view: tokens and trials of the sweep. */
int view_saturation_key(struct app *app, int key)
{
	int tokens = app->sweep_tokens, trials = app->sweep_trials;

	switch (key) {
	case APP_KEY_UP:
	case 'k':
		app->sweep_tokens = app_clamp(app->sweep_tokens * 2, 2, 256);
		break;
	case APP_KEY_DOWN:
	case 'j':
		app->sweep_tokens = app_clamp(app->sweep_tokens / 2, 2, 256);
		break;
	case APP_KEY_RIGHT:
	case 'l':
		app->sweep_trials = app_clamp(app->sweep_trials * 2, 1, 256);
		break;
	case APP_KEY_LEFT:
	case 'h':
		app->sweep_trials = app_clamp(app->sweep_trials / 2, 1, 256);
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
		app_say(app, true, "the cost view needs a clock to measure with");
		app->overlay = OVERLAY_NONE;
		return;
	}
	app->measure = job_new(JOB_COST);
	rc = app->measure == NULL ? QKV_ENOMEM
				  : qkv_cost_init(&app->measure->cost, d_k, heads, app->cost_last_n, 3000.0);
	if (rc != 0) {
		job_abandon(app->measure);
		app->measure = NULL;
		app->overlay = OVERLAY_NONE;
		app_say(app, true, "cannot measure: %s", qkv_error_string(rc));
		return;
	}
	app->measure->has_cost = true;
	app->measure->clock = app->clock;
	app->measure->clock_context = app->clock_context;
	app->cost = &app->measure->cost;
	app->cost_running = true;
	app_say(app, false, "measuring the trace for n = 16 … %d on this machine: Esc cancels", app->cost_last_n);
}

/* Closes the cost view: a measurement under way is cancelled, its storage freed. */
static void cost_stop(struct app *app)
{
	if (app->measure == NULL)
		return;
	if (app->cost_running)
		app_say(app, false, "cost measurement cancelled at n = %d", app->cost->n);
	job_abandon(app->measure);
	app->measure = NULL;
	app->cost = NULL;
	app->cost_running = false;
	app->measure_asked = false;
}

/* A tick while the cost view measures: one slice is asked of the caller, who
 * runs it on the clock (job_slice) and answers with EVENT_MEASURED. */
int view_cost_tick(struct app *app)
{
	if (app->overlay == OVERLAY_COST && app->cost_running)
		app->measure_asked = true;
	return REDRAW_NONE;
}

/* A slice measured (rc: job_slice's code); the view redraws with each. */
int view_measured(struct app *app, int rc)
{
	app->measure_asked = false;
	if (app->measure == NULL || !app->cost_running)
		return REDRAW_NONE;
	if (rc <= 0) {
		app->cost_running = false;
		if (rc < 0)
			app_say(app, true, "the measurement stopped at n = %d: %s", app->cost->n, qkv_error_string(rc));
		else
			app_say(app, false, "measured n = 16 … %d: C or Esc closes",
				app->cost->rows[app->cost->count - 1].n);
		return REDRAW_OVERLAY | REDRAW_STATUS;
	}
	return REDRAW_OVERLAY;
}

/* Opens overlay, or closes it when open (starting and stopping what it runs). */
int view_toggle(struct app *app, enum app_overlay overlay)
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

		app->sweep_tokens = app_clamp(app->problem.n > QKV_SWEEP_TOKENS ? app->problem.n : QKV_SWEEP_TOKENS,
					  2, 256);
		run_sweep(app, tokens, app->sweep_trials);
	}
	return REDRAW_ALL;
}
