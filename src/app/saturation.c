/* saturation.c — the saturation view (S): the d_k sweep on random problems,
 * scaled against unscaled, recomputed when it opens and when its keys change the
 * tokens or the trials (a large sweep as a job beside the interface). */
#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"

/* Recomputes the sweep for the present parameters; a large one runs as a job, and
 * Esc then goes back to tokens and trials (whose sweep is still shown). */
static void run_sweep(struct app *app, int tokens, int trials)
{
	struct app_saturation *s = &app->saturation;
	struct job *job;
	int count;

	if (compute_sweep_cost(s->tokens, s->trials, s->dk_max) > JOB_COST && (job = job_new(JOB_SWEEP)) != NULL) {
		job->tokens = s->tokens;
		job->trials = s->trials;
		job->seed = s->seed;
		job->d_k_max = s->dk_max;
		app->job_tokens = tokens;
		app->job_trials = trials;
		snprintf(app->job_what, sizeof app->job_what, "the sweep of %d tokens × %d trials up to d_k %d",
			 job->tokens, job->trials, job->d_k_max);
		compute_run(app, job);
		return;
	}

	count = qkv_sweep(s->tokens, s->trials, s->seed, s->dk_max, s->sweep);

	s->count = count > 0 ? count : 0;
	if (count < 0)
		app_say(app, true, "the sweep failed: %s", qkv_error_string(count));
}

/* The sweep's defaults, before the view is first opened. */
void saturation_init(struct app_saturation *s)
{
	s->tokens = QKV_SWEEP_TOKENS;
	s->trials = QKV_SWEEP_TRIALS;
	s->dk_max = QKV_SWEEP_DK_MAX;
	s->seed = QKV_SWEEP_SEED;
}

/* Opening: the sweep from the problem's own number of tokens, at least the
 * default 16: a sweep of 3 tokens has too few scores for a curve that shows the trend. */
int saturation_open(struct app *app)
{
	int tokens = app->saturation.tokens;

	app->saturation.tokens = app_clamp(app->problem.n > QKV_SWEEP_TOKENS ? app->problem.n : QKV_SWEEP_TOKENS,
					   2, 256);
	run_sweep(app, tokens, app->saturation.trials);
	return 0;
}

/* ↑ k and ↓ j: tokens × 2 / ÷ 2, and the sweep again. */
int saturation_tokens(struct app *app, int key)
{
	int tokens = app->saturation.tokens, twice = key == APP_KEY_UP || key == 'k';

	app->saturation.tokens = app_clamp(twice ? tokens * 2 : tokens / 2, 2, 256);
	run_sweep(app, tokens, app->saturation.trials);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* → l and ← h: trials × 2 / ÷ 2, and the sweep again. */
int saturation_trials(struct app *app, int key)
{
	int trials = app->saturation.trials, twice = key == APP_KEY_RIGHT || key == 'l';

	app->saturation.trials = app_clamp(twice ? trials * 2 : trials / 2, 1, 256);
	run_sweep(app, app->saturation.tokens, trials);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}
