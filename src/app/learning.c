/* learning.c — the learning view's state: two training runs side by side (scaled
 * and unscaled), their stepping on ticks and keys, the selected gradient cell,
 * and the sentence that compares them. Reached only through app_update: its keys
 * are rows of the key table (keys.c), its opening and hook in the table of views. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "app/learning.h"
#include "qkv/error.h"

static const int speeds[] = { 1, 2, 5, 10, 20, 50 };
#define SPEED_COUNT ((int)(sizeof speeds / sizeof *speeds))
#define DEFAULT_SPEED 1 /* 2 updates per tick: 90% in about a second, slow enough to watch */

static void note(struct app *app, bool error, const char *text)
{
	snprintf(app->message, sizeof app->message, "%s", text);
	app->message_is_error = error;
}

/* Ends the experiment's runs in progress. */
static void end_sweep(struct app_learning *l)
{
	if (!l->sweep_started)
		return;
	qkv_train_sweep_end(&l->sweep);
	if (l->has_baseline)
		qkv_train_sweep_end(&l->baseline);
	l->sweep_started = false;
}

/* Starts the experiment on the view's configuration. */
static int begin_sweep(struct app_learning *l)
{
	struct qkv_train_config base = l->config;
	int rc = qkv_train_sweep_begin(&l->sweep, &l->config, LEARNING_SWEEP_SEEDS);

	l->has_baseline = l->config.loss != QKV_LOSS_MSE || l->config.optimizer != QKV_OPTIMIZER_SGD;
	if (rc == 0 && l->has_baseline) {
		base.loss = QKV_LOSS_MSE;
		base.optimizer = QKV_OPTIMIZER_SGD;
		base.lr = qkv_train_default_lr(base.loss, base.optimizer);
		rc = qkv_train_sweep_begin(&l->baseline, &base, LEARNING_SWEEP_SEEDS);
	}
	l->sweep_started = rc == 0;
	return rc;
}

bool app_learning_sweep_done(const struct app_learning *l)
{
	return l->sweep_started && l->sweep.done && (!l->has_baseline || l->baseline.done);
}

/* A tick's share of the experiment: at most two live steps' worth of work. */
static int advance_sweep(struct app *app)
{
	struct app_learning *l = app->learning;
	int rc = qkv_train_sweep_advance(&l->sweep, 2.0 * QKV_TRAIN_LIVE_WORK);

	if (rc == 0 && l->sweep.done && l->has_baseline)
		rc = qkv_train_sweep_advance(&l->baseline, 2.0 * QKV_TRAIN_LIVE_WORK);
	if (rc != 0) {
		end_sweep(l);
		l->sweep_shown = false;
		note(app, true, "the experiment stopped: out of memory");
		return REDRAW_ALL;
	}
	if (app_learning_sweep_done(l))
		note(app, false, "the experiment is done: E returns to the runs");
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

static void free_runs(struct app_learning *l)
{
	qkv_train_fini(&l->runs[LEARNING_SCALED]);
	qkv_train_fini(&l->runs[LEARNING_UNSCALED]);
}

/* (Re)starts both runs from l->config; 0 or a QKV_E* code (runs left empty). */
static int start_runs(struct app_learning *l)
{
	struct qkv_train_config c = l->config;
	int rc;

	c.scaled = true;
	rc = qkv_train_init(&l->runs[LEARNING_SCALED], &c);
	if (rc != 0)
		return rc;
	c.scaled = false;
	rc = qkv_train_init(&l->runs[LEARNING_UNSCALED], &c);
	if (rc != 0)
		qkv_train_fini(&l->runs[LEARNING_SCALED]);
	l->running = false;
	if (l->row >= c.d_model)
		l->row = 0;
	if (l->col >= (l->weight == QKV_WEIGHT_V ? c.tokens : c.d_k))
		l->col = 0;
	return rc;
}

int app_learning_open(struct app *app, const struct qkv_train_config *c)
{
	struct app_learning *l = app->learning;
	int rc;

	if (l != NULL && c == NULL) {
		app->view = VIEW_LEARNING;
		return 0;
	}
	if (l == NULL) {
		l = calloc(1, sizeof *l);
		if (l == NULL)
			return QKV_ENOMEM;
		l->steps_per_tick = speeds[DEFAULT_SPEED];
		l->weight = QKV_WEIGHT_Q;
	} else {
		free_runs(l);
	}
	if (c != NULL)
		l->config = *c;
	else
		qkv_train_config_default(&l->config, QKV_TASK_LOOKUP);
	rc = start_runs(l);
	if (rc != 0) {
		free(l);
		app->learning = NULL;
		return rc;
	}
	app->learning = l;
	app->view = VIEW_LEARNING;
	return 0;
}

/* Opening from the key: the runs there are, or the default task. */
int learning_open(struct app *app)
{
	if (app_learning_open(app, NULL) == 0)
		return 0;
	app_say(app, true, "out of memory: no learning view");
	return -1;
}

/* Closing: the runs pause (they are kept for the next opening). */
void learning_close(struct app *app)
{
	if (app->learning != NULL)
		app->learning->running = false;
}

void app_learning_free(struct app *app)
{
	if (app->learning == NULL)
		return;
	end_sweep(app->learning);
	free_runs(app->learning);
	free(app->learning);
	app->learning = NULL;
}

/* One update of each run that has not used its budget; false when neither could. */
static bool step_both(struct app *app, int *rc)
{
	struct app_learning *l = app->learning;
	bool stepped = false;

	*rc = 0;
	for (int side = 0; side < 2 && *rc == 0; side++) {
		struct qkv_train *t = &l->runs[side];

		if (t->count > l->config.steps)
			continue;
		*rc = qkv_train_step(t);
		stepped = true;
	}
	return stepped;
}

/* Steps `count` times; stops the run (with a message) at the budget or a failure. */
static int advance(struct app *app, int count)
{
	struct app_learning *l = app->learning;
	int rc = 0;

	for (int k = 0; k < count; k++) {
		if (!step_both(app, &rc)) {
			char text[96];

			l->running = false;
			snprintf(text, sizeof text, "%d steps done: r starts again, > < change d_k",
				 l->config.steps);
			note(app, false, text);
			break;
		}
		if (rc != 0) {
			l->running = false;
			note(app, true, "training stopped: the weights left the range qkv computes in");
			break;
		}
	}
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

static int set_running(struct app *app, bool running)
{
	struct app_learning *l = app->learning;

	if (running && l->runs[LEARNING_SCALED].count > l->config.steps
	    && l->runs[LEARNING_UNSCALED].count > l->config.steps)
		return advance(app, 1); /* says the budget is spent */
	l->running = running;
	note(app, false, running ? "training: space pauses" : "paused: space runs, . steps once");
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* A new d_k (or the same, for r): both runs start again from step 0. */
static int restart(struct app *app, int d_k)
{
	struct app_learning *l = app->learning;
	char text[96];
	int keep = l->config.d_k;

	l->config.d_k = d_k;
	free_runs(l);
	if (start_runs(l) != 0) {
		l->config.d_k = keep;
		if (start_runs(l) != 0) {
			app_learning_free(app);
			app->view = VIEW_NONE;
			note(app, true, "out of memory: the learning view closed");
			return REDRAW_ALL;
		}
		note(app, true, "out of memory: d_k unchanged");
		return REDRAW_OVERLAY | REDRAW_STATUS;
	}
	snprintf(text, sizeof text, "step 0 again, d_k = %d: space runs", d_k);
	note(app, false, text);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* Moves the derivation's cell within the selected gradient matrix. */
static int move_cell(struct app_learning *l, int rows, int cols)
{
	int height = l->config.d_model;
	int width = l->weight == QKV_WEIGHT_V ? l->config.tokens : l->config.d_k;

	l->row = (l->row + rows + height) % height;
	l->col = (l->col + cols + width) % width;
	return REDRAW_OVERLAY;
}

/* The next of the speeds up (+) or down (-) from the present one. */
static int change_speed(struct app *app, int key)
{
	struct app_learning *l = app->learning;
	char text[64];
	int speed = 0;

	while (speed < SPEED_COUNT - 1 && speeds[speed] < l->steps_per_tick)
		speed++;
	speed += key == '+' ? 1 : -1;
	speed = speed < 0 ? 0 : speed >= SPEED_COUNT ? SPEED_COUNT - 1 : speed;
	l->steps_per_tick = speeds[speed];
	snprintf(text, sizeof text, "%d steps per tick", l->steps_per_tick);
	note(app, false, text);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* The running: space runs or pauses, . and n take one step, + and - the speed. */
int learning_run(struct app *app, int key)
{
	struct app_learning *l = app->learning;

	if (key == '+' || key == '-')
		return change_speed(app, key);
	if (key == ' ')
		return set_running(app, !l->running);
	l->running = false;
	return advance(app, 1);
}

/* Both runs from step 0: r with the same d_k, > with twice it (unless it would
 * train too slowly to watch), < with half (down to 1). */
int learning_restart(struct app *app, int key)
{
	struct qkv_train_config larger = app->learning->config;

	if (key == 'r')
		return restart(app, larger.d_k);
	if (key == '<')
		return larger.d_k > 1 ? restart(app, larger.d_k / 2) : REDRAW_NONE;
	larger.d_k *= 2;
	if (larger.d_k > QKV_MAX_DIM || qkv_train_step_work(&larger) > QKV_TRAIN_LIVE_WORK) {
		note(app, true, "a larger d_k would train too slowly to watch here");
		return REDRAW_STATUS;
	}
	return restart(app, larger.d_k);
}

/* The derivation's cell: Tab the next gradient matrix, the arrows and h j k l
 * its cell, x the same cell in the other run. */
int learning_cell(struct app *app, int key)
{
	struct app_learning *l = app->learning;
	bool vertical = key == APP_KEY_UP || key == 'k' || key == APP_KEY_DOWN || key == 'j';
	int step = key == APP_KEY_UP || key == 'k' || key == APP_KEY_LEFT || key == 'h' ? -1 : 1;

	if (key == 'x') {
		l->side = 1 - l->side;
		return REDRAW_OVERLAY;
	}
	if (key == APP_KEY_TAB) {
		l->weight = (enum qkv_weight)((l->weight + 1) % QKV_WEIGHT_COUNT);
		return move_cell(l, 0, 0);
	}
	return move_cell(l, vertical ? step : 0, vertical ? 0 : step);
}

int learning_experiment(struct app *app, int key)
{
	struct app_learning *l = app->learning;

	(void)key;
	l->sweep_shown = !l->sweep_shown;
	if (l->sweep_shown && !l->sweep_started && begin_sweep(l) != 0) {
		l->sweep_shown = false;
		note(app, true, "out of memory: no experiment");
		return REDRAW_STATUS;
	}
	if (l->sweep_shown && !app_learning_sweep_done(l))
		note(app, false, "the experiment runs between keys: E returns to the runs");
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* The steps a tick may take: the speed asked for, within the work of about two
 * live steps' budget, so a tick never keeps the interface waiting long. */
static int steps_this_tick(const struct app_learning *l)
{
	double work = 2.0 * qkv_train_step_work(&l->config);
	int most = (int)(2.0 * QKV_TRAIN_LIVE_WORK / (work > 1.0 ? work : 1.0));

	most = most < 1 ? 1 : most;
	return l->steps_per_tick < most ? l->steps_per_tick : most;
}

int app_learning_event(struct app *app, const struct event *event)
{
	struct app_learning *l = app->learning;

	if (l == NULL || app->view != VIEW_LEARNING || app->prompt != PROMPT_NONE)
		return -1;
	switch (event->type) {
	case EVENT_TICK:
		if (l->sweep_shown && l->sweep_started && !app_learning_sweep_done(l))
			return advance_sweep(app);
		return l->running ? advance(app, steps_this_tick(l)) : -1;
	case EVENT_TRAIN_STEP:
		l->running = false;
		return advance(app, 1);
	case EVENT_TRAIN_RUN:
		return set_running(app, true);
	case EVENT_TRAIN_PAUSE:
		return set_running(app, false);
	case EVENT_CLICK:
	case EVENT_WHEEL:
		return REDRAW_NONE; /* the grids under the view are not there to click */
	default:
		return -1;
	}
}

/* "1.77e-05" or "0.263": a norm in few characters. */
static void short_number(char *buf, size_t size, double value)
{
	/* Three significant digits, zeros kept: 0.170, 1.77e-05. */
	if (value != 0.0 && fabs(value) < 0.01)
		snprintf(buf, size, "%.2e", value);
	else
		snprintf(buf, size, "%#.3g", value);
}

/* A ratio of 10 or more to two significant digits, so that the two numbers it is
 * the ratio of, at three, give it again: "37", "6500", or "1.9e+08" from 10^5 on. */
static const char *ratio_text(char *buf, size_t size, double ratio)
{
	if (ratio < 1e5) {
		double unit = pow(10.0, floor(log10(ratio)) - 1.0);

		snprintf(buf, size, "%.0f", round(ratio / unit) * unit);
	} else
		snprintf(buf, size, "%.1e", ratio);
	return buf;
}

/* Which run's softmax passes less gradient and how many times less, from two mean
 * ‖J‖ as shown (three significant digits): "÷1 2.4× less", "÷√256 1.5× less",
 * or "about equal" within 5%. */
static void compare_text(char *buf, size_t size, int d_k, double scaled, double unscaled)
{
	char ratio[16], side[16];
	double big = fmax(scaled, unscaled), small = fmin(scaled, unscaled);

	if (small <= 0.0 || big < 1.05 * small) {
		snprintf(buf, size, "about equal");
		return;
	}
	if (unscaled < scaled)
		snprintf(side, sizeof side, "÷1");
	else
		snprintf(side, sizeof side, "÷√%d", d_k);
	if (big / small < 10.0)
		snprintf(ratio, sizeof ratio, "%.1f", big / small);
	else
		ratio_text(ratio, sizeof ratio, big / small);
	snprintf(buf, size, "%s %s× less", side, ratio);
}

/* Appends why xent does not reach 0, when it cannot: the floor and its reason.
 * Returns the new length. */
static int with_floor(const struct app_learning *l, char *buf, size_t size, int length)
{
	double floor = qkv_train_loss_floor(&l->config);
	int more;

	if (floor <= 0.0)
		return length;
	more = snprintf(buf + length, size - (size_t)length,
			". xent stays above log(1 + %d/e) = %.4g: outputs average one-hot values, "
			"in [0, 1]", l->config.tokens - 1, floor);
	return more < 0 ? more : length + more;
}

/* The runs' standing and their gradient flow now and at step 0. */
static int summary_runs(const struct app_learning *l, char *buf, size_t size)
{
	const struct qkv_train *s = &l->runs[LEARNING_SCALED], *u = &l->runs[LEARNING_UNSCALED];
	const struct qkv_train_record *rs = &s->history[s->count - 1];
	const struct qkv_train_record *ru = &u->history[u->count - 1];
	int shared = s->count < u->count ? s->count : u->count, apart = -1;
	char js[16], ju[16], where[2][64], compare[48];
	int length;

	for (int side = 0; side < 2; side++) {
		const struct qkv_train *t = &l->runs[side];
		const struct qkv_train_record *r = &t->history[t->count - 1];

		if (t->steps_to_90 >= 0)
			snprintf(where[side], sizeof where[side], "90%% at step %d", t->steps_to_90);
		else
			snprintf(where[side], sizeof where[side], "%.0f%% after %d steps",
				 100.0 * r->accuracy, r->step);
	}
	short_number(js, sizeof js, rs->jacobian_norm);
	short_number(ju, sizeof ju, ru->jacobian_norm);
	length = snprintf(buf, size, "÷√%d: %s · ÷1: %s · mean ‖J‖ at step %d: %s against %s", l->config.d_k,
			  where[0], where[1], rs->step, js, ju);
	if (length < 0 || (size_t)length >= size)
		return length;
	if (ru->jacobian_norm > 0.0 && rs->jacobian_norm >= 10.0 * ru->jacobian_norm)
		length += snprintf(buf + length, size - (size_t)length,
				   ", the unscaled softmax passes %s× less gradient",
				   ratio_text(js, sizeof js, rs->jacobian_norm / ru->jacobian_norm));
	else if (rs->jacobian_norm > 0.0 && ru->jacobian_norm >= 10.0 * rs->jacobian_norm)
		length += snprintf(buf + length, size - (size_t)length,
				   ", the scaled softmax passes %s× less gradient",
				   ratio_text(js, sizeof js, ru->jacobian_norm / rs->jacobian_norm));
	if (length < 0 || (size_t)length >= size || rs->step == 0 || ru->step != rs->step)
		return length;
	/* The same comparison at the start, and the first step where one run's flow
	 * fell ten times below the other's: what is shown now is not how it began. */
	short_number(js, sizeof js, s->history[0].jacobian_norm);
	short_number(ju, sizeof ju, u->history[0].jacobian_norm);
	compare_text(compare, sizeof compare, l->config.d_k, strtod(js, NULL), strtod(ju, NULL));
	for (int k = 0; k < shared && apart < 0; k++) {
		double a = s->history[k].jacobian_norm, b = u->history[k].jacobian_norm;

		if ((b > 0.0 && a >= 10.0 * b) || (a > 0.0 && b >= 10.0 * a))
			apart = k;
	}
	length += snprintf(buf + length, size - (size_t)length, "; at step 0: %s against %s (%s)", js, ju,
			   compare);
	if (apart > 0 && length >= 0 && (size_t)length < size)
		length += snprintf(buf + length, size - (size_t)length, ", first 10× apart at step %d", apart);
	return length;
}

int app_learning_summary(const struct app_learning *l, char *buf, size_t size)
{
	int length = summary_runs(l, buf, size);

	if (length < 0 || (size_t)length >= size)
		return length;
	return with_floor(l, buf, size, length);
}
