/* test_learning.c — Check suite for the learning view's state (app/learning.h):
 * event sequences fed to app_update() open it, step, run and pause the two runs,
 * change d_k, and leave it; the runs match a direct run of the core with the same
 * configuration, and the sentence under them quotes their numbers. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "io/problem/builtin.h"
#include "qkv/error.h"
#include "qkv/train.h"

#include "tap_main.h"

static int64_t clock_ms = 1000;

static int send(struct app *a, struct event *e)
{
	clock_ms += 10;
	e->now_ms = clock_ms;
	return app_update(a, e);
}

static int key(struct app *a, int k)
{
	struct event e = { .type = EVENT_KEY, .key = k };

	return send(a, &e);
}

static int event(struct app *a, enum event_type type)
{
	struct event e = { .type = type };

	return send(a, &e);
}

static void open_app(struct app *a)
{
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_int_eq(app_init(a, &p, NULL, NULL), 0);
}

/* L opens the view on the default lookup task, both runs at step 0. */
START_TEST(test_l_opens_and_closes)
{
	struct app a;
	struct qkv_problem before;

	open_app(&a);
	qkv_problem_init(&before);
	ck_assert_int_eq(qkv_problem_copy(&before, &a.problem), 0);
	ck_assert_ptr_null(a.learning);
	ck_assert_int_ne(key(&a, 'L'), REDRAW_NONE);
	ck_assert_int_eq(a.view, VIEW_LEARNING);
	ck_assert_ptr_nonnull(a.learning);
	ck_assert_int_eq(a.learning->config.task, QKV_TASK_LOOKUP);
	ck_assert_int_eq(a.learning->runs[LEARNING_SCALED].count, 1);
	ck_assert_int_eq(a.learning->runs[LEARNING_UNSCALED].count, 1);
	ck_assert(a.learning->runs[LEARNING_SCALED].now.trace.divisor == sqrt(16.0));
	ck_assert(a.learning->runs[LEARNING_UNSCALED].now.trace.divisor == 1.0);
	/* Keys that edit elsewhere do nothing here; the problem is untouched. */
	{
		const int edits[] = { '5', APP_KEY_ENTER, 'o', 'm', 's' };

		for (size_t k = 0; k < sizeof edits / sizeof *edits; k++)
			key(&a, edits[k]);
	}
	ck_assert(qkv_problem_equal(&before, &a.problem));
	ck_assert_int_eq(a.view, VIEW_LEARNING);
	key(&a, 'L');
	ck_assert_int_eq(a.view, VIEW_NONE);
	/* Open again: the runs are where they were. */
	key(&a, 'L');
	ck_assert_int_eq(a.learning->runs[LEARNING_SCALED].count, 1);
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	qkv_problem_fini(&before);
	app_fini(&a);
}
END_TEST

/* Step, run and pause: '.' and EVENT_TRAIN_STEP make one update of each run;
 * ticks advance only while running, by steps_per_tick; space toggles. */
START_TEST(test_step_run_pause)
{
	struct app a;
	struct app_learning *l;
	int per_tick;

	open_app(&a);
	key(&a, 'L');
	l = a.learning;
	per_tick = l->steps_per_tick;
	ck_assert_int_ge(per_tick, 1);
	event(&a, EVENT_TICK);
	ck_assert_int_eq(l->runs[0].count, 1); /* paused: a tick trains nothing */
	key(&a, '.');
	ck_assert_int_eq(l->runs[0].count, 2);
	ck_assert_int_eq(l->runs[1].count, 2);
	event(&a, EVENT_TRAIN_STEP);
	ck_assert_int_eq(l->runs[0].count, 3);
	event(&a, EVENT_TRAIN_RUN);
	ck_assert(l->running);
	event(&a, EVENT_TICK);
	ck_assert_int_eq(l->runs[0].count, 3 + per_tick);
	ck_assert_int_eq(l->runs[1].count, 3 + per_tick);
	event(&a, EVENT_TRAIN_PAUSE);
	ck_assert(!l->running);
	event(&a, EVENT_TICK);
	ck_assert_int_eq(l->runs[0].count, 3 + per_tick);
	key(&a, ' ');
	ck_assert(l->running);
	key(&a, '+');
	ck_assert_int_gt(l->steps_per_tick, per_tick);
	key(&a, ' ');
	ck_assert(!l->running);
	/* The training events mean nothing outside the view. */
	key(&a, 'L');
	ck_assert_int_eq(event(&a, EVENT_TRAIN_STEP), REDRAW_NONE);
	ck_assert_int_eq(l->runs[0].count, 3 + per_tick);
	app_fini(&a);
}
END_TEST

/* The view's runs are the core's runs: same records as qkv_train for the same
 * configuration, scaled and unscaled. */
START_TEST(test_runs_are_the_cores)
{
	struct app a;
	struct qkv_train_config c;

	open_app(&a);
	key(&a, 'L');
	for (int k = 0; k < 25; k++)
		key(&a, '.');
	for (int side = 0; side < 2; side++) {
		struct qkv_train direct;
		const struct qkv_train *run = &a.learning->runs[side];

		qkv_train_config_default(&c, QKV_TASK_LOOKUP);
		c.scaled = side == LEARNING_SCALED;
		ck_assert_int_eq(qkv_train_init(&direct, &c), 0);
		for (int k = 0; k < 25; k++)
			ck_assert_int_eq(qkv_train_step(&direct), 0);
		ck_assert_int_eq(direct.count, run->count);
		for (int k = 0; k < run->count; k++)
			ck_assert(direct.history[k].loss == run->history[k].loss);
		qkv_train_fini(&direct);
	}
	app_fini(&a);
}
END_TEST

/* > and < double and halve d_k and start both runs again; the budget stops them. */
START_TEST(test_dk_and_budget)
{
	struct app a;
	struct qkv_train_config c;

	qkv_train_config_default(&c, QKV_TASK_SELF);
	c.steps = 4;
	open_app(&a);
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	ck_assert_int_eq(a.view, VIEW_LEARNING);
	key(&a, '>');
	ck_assert_int_eq(a.learning->config.d_k, 32);
	ck_assert_int_eq(a.learning->runs[0].now.trace.d_k, 32);
	key(&a, '<');
	key(&a, '<');
	ck_assert_int_eq(a.learning->config.d_k, 8);
	key(&a, ' ');
	for (int k = 0; k < 10; k++)
		event(&a, EVENT_TICK);
	ck_assert(!a.learning->running);
	ck_assert_int_eq(a.learning->runs[0].count, 5); /* steps 0 … 4 */
	ck_assert_ptr_nonnull(strstr(a.message, "4 steps done"));
	key(&a, 'r');
	ck_assert_int_eq(a.learning->runs[0].count, 1);
	app_fini(&a);
}
END_TEST

/* A d_k whose steps would take too long to watch is refused, and the runs stay. */
START_TEST(test_too_large_to_watch)
{
	struct app a;
	struct qkv_train_config c;

	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	c.tokens = 64;
	c.d_model = qkv_train_default_d_model(c.task, c.tokens);
	c.d_k = 256;
	ck_assert_double_le(qkv_train_step_work(&c), QKV_TRAIN_LIVE_WORK);
	c.d_k = 512;
	ck_assert_double_gt(qkv_train_step_work(&c), QKV_TRAIN_LIVE_WORK);
	c.d_k = 256;
	open_app(&a);
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	key(&a, '>');
	ck_assert_int_eq(a.learning->config.d_k, 256);
	ck_assert(a.message_is_error);
	app_fini(&a);
}
END_TEST

/* E runs the experiment a piece per tick; it ends with the same medians as the
 * sweep in one go, and E again returns to the runs. With xent + Adam, the MSE +
 * SGD sweep runs too, to compare. */
START_TEST(test_experiment)
{
	struct app a;
	struct qkv_train_config c;
	struct qkv_train_sweep_point whole[QKV_TRAIN_SWEEP_POINTS];
	int ticks = 0;

	qkv_train_config_default(&c, QKV_TASK_SELF);
	c.tokens = 4;
	c.d_model = qkv_train_default_d_model(c.task, c.tokens);
	c.steps = 30;
	c.loss = _i == 0 ? QKV_LOSS_MSE : QKV_LOSS_XENT;
	c.optimizer = _i == 0 ? QKV_OPTIMIZER_SGD : QKV_OPTIMIZER_ADAM;
	c.lr = qkv_train_default_lr(c.loss, c.optimizer);
	open_app(&a);
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	key(&a, 'E');
	ck_assert(a.learning->sweep_shown);
	ck_assert(!app_learning_sweep_done(a.learning));
	ck_assert(a.learning->has_baseline == (_i == 1));
	while (!app_learning_sweep_done(a.learning) && ticks < 10000) {
		event(&a, EVENT_TICK);
		ticks++;
	}
	ck_assert(app_learning_sweep_done(a.learning));
	ck_assert_int_eq(qkv_train_sweep(&c, LEARNING_SWEEP_SEEDS, whole), 0);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		ck_assert(a.learning->sweep.points[k].scaled_median == whole[k].scaled_median);
		ck_assert(a.learning->sweep.points[k].unscaled_median == whole[k].unscaled_median);
	}
	ck_assert_ptr_nonnull(strstr(a.message, "experiment is done"));
	/* The training runs did not move while the experiment ran. */
	ck_assert_int_eq(a.learning->runs[0].count, 1);
	key(&a, 'E');
	ck_assert(!a.learning->sweep_shown);
	app_fini(&a);
}
END_TEST

/* Tab, arrows and x choose the gradient cell whose derivation is shown, wrapping
 * inside the matrix. */
START_TEST(test_derivation_cell)
{
	struct app a;
	struct app_learning *l;

	open_app(&a);
	key(&a, 'L');
	l = a.learning;
	ck_assert_int_eq(l->weight, QKV_WEIGHT_Q);
	key(&a, APP_KEY_UP);
	ck_assert_int_eq(l->row, l->config.d_model - 1);
	key(&a, APP_KEY_LEFT);
	ck_assert_int_eq(l->col, l->config.d_k - 1);
	key(&a, APP_KEY_TAB);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(l->weight, QKV_WEIGHT_V);
	ck_assert_int_lt(l->col, l->config.tokens); /* W_V has d_v = n columns */
	key(&a, 'x');
	ck_assert_int_eq(l->side, LEARNING_UNSCALED);
	app_fini(&a);
}
END_TEST

/* The sentence quotes each run's state and the ratio of their Jacobian norms. */
START_TEST(test_summary_from_numbers)
{
	struct app a;
	struct qkv_train_config c;
	char text[512], expected[128];
	const struct qkv_train *s, *u;

	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	c.d_k = 256;
	open_app(&a);
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	for (int k = 0; k < 100 && a.learning->runs[0].steps_to_90 < 0; k++)
		key(&a, '.');
	s = &a.learning->runs[LEARNING_SCALED];
	u = &a.learning->runs[LEARNING_UNSCALED];
	ck_assert_int_ge(s->steps_to_90, 0);
	ck_assert_int_lt(u->steps_to_90, 0); /* the unscaled head stalls */
	app_learning_summary(a.learning, text, sizeof text);
	snprintf(expected, sizeof expected, "÷√256: 90%% at step %d", s->steps_to_90);
	ck_assert_msg(strstr(text, expected) != NULL, "%s", text);
	snprintf(expected, sizeof expected, "÷1: %.0f%% after %d steps",
		 100.0 * u->history[u->count - 1].accuracy, u->count - 1);
	ck_assert_msg(strstr(text, expected) != NULL, "%s", text);
	ck_assert_double_gt(s->history[s->count - 1].jacobian_norm,
			    10.0 * u->history[u->count - 1].jacobian_norm);
	ck_assert_msg(strstr(text, "the unscaled softmax passes") != NULL, "%s", text);
	/* The ratio is the one of the two numbers as shown, to its two significant
	 * digits: "mean ‖J‖ X against Y: … passes R× less gradient". */
	{
		const char *at = strstr(text, "mean ‖J‖ at step ");
		double x, y, r, ratio, unit;
		int step;

		ck_assert_ptr_nonnull(at);
		ck_assert_int_eq(sscanf(at + strlen("mean ‖J‖ at step "), "%d: %lf against %lf", &step, &x, &y), 3);
		ck_assert_int_eq(step, s->count - 1);
		at = strstr(text, "passes ");
		ck_assert_ptr_nonnull(at);
		ck_assert_int_eq(sscanf(at + strlen("passes "), "%lf", &r), 1);
		ratio = x / y;
		unit = pow(10.0, floor(log10(ratio)) - 1.0);
		ck_assert_msg(fabs(round(ratio / unit) * unit - r) < 0.5, "%s: %g / %g = %g", text, x, y, ratio);
		/* Three significant digits each: 0.115, not 0.12; 1.77e-05, not 1.8e-05. */
		ck_assert_msg(fabs(x - s->history[s->count - 1].jacobian_norm) <= 0.0051 * x, "%s", text);
		ck_assert_msg(fabs(y - u->history[u->count - 1].jacobian_norm) <= 0.0051 * y, "%s", text);
	}
	app_fini(&a);
}
END_TEST

/* The start is said beside the step shown: at step 0 of d_k = 256 the unscaled
 * softmax's mean ‖J‖ is a few times below the scaled one's, not thousands; and the
 * first step where the two were 10× apart is the first one in the histories. */
START_TEST(test_summary_names_the_start)
{
	struct app a;
	struct qkv_train_config c;
	char text[512], expected[160];
	const struct qkv_train *s, *u;
	double j0s, j0u, shown_s, shown_u, ratio;
	int apart = -1;
	const char *at;

	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	c.d_k = 256;
	open_app(&a);
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	s = &a.learning->runs[LEARNING_SCALED];
	u = &a.learning->runs[LEARNING_UNSCALED];
	/* Before any step there is no "then": the one comparison is at step 0. */
	app_learning_summary(a.learning, text, sizeof text);
	ck_assert_msg(strstr(text, "mean ‖J‖ at step 0: ") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "; at step 0") == NULL, "%s", text);
	for (int k = 0; k < 40; k++)
		key(&a, '.');
	app_learning_summary(a.learning, text, sizeof text);
	j0s = s->history[0].jacobian_norm;
	j0u = u->history[0].jacobian_norm;
	ck_assert_double_lt(j0u, j0s);
	ck_assert_double_gt(j0u, j0s / 10.0); /* at the start: less than ten times apart */
	at = strstr(text, "; at step 0: ");
	ck_assert_msg(at != NULL, "%s", text);
	ck_assert_int_eq(sscanf(at + strlen("; at step 0: "), "%lf against %lf", &shown_s, &shown_u), 2);
	ck_assert_double_eq_tol(shown_s, j0s, 0.0051 * j0s);
	ck_assert_double_eq_tol(shown_u, j0u, 0.0051 * j0u);
	/* "(÷1 R× less)" with R the ratio of the numbers shown, to one decimal. */
	at = strstr(at, "(÷1 ");
	ck_assert_msg(at != NULL, "%s", text);
	ck_assert_int_eq(sscanf(at + strlen("(÷1 "), "%lf", &ratio), 1);
	ck_assert_double_eq_tol(ratio, shown_s / shown_u, 0.051);
	for (int k = 0; k < s->count && apart < 0; k++)
		if (s->history[k].jacobian_norm >= 10.0 * u->history[k].jacobian_norm
		    || u->history[k].jacobian_norm >= 10.0 * s->history[k].jacobian_norm)
			apart = k;
	ck_assert_int_gt(apart, 0);
	ck_assert_int_lt(apart, 10); /* the unscaled head saturates within a few steps */
	snprintf(expected, sizeof expected, "first 10× apart at step %d", apart);
	ck_assert_msg(strstr(text, expected) != NULL, "%s", text);
	app_fini(&a);
}
END_TEST

/* xent cannot reach 0 when W_V is the read-out: the sentence gives the floor,
 * log(1 + 7/e) = log(e + 7) − 1 for 8 tokens, and why; MSE has none. */
START_TEST(test_summary_says_the_xent_floor)
{
	struct app a;
	struct qkv_train_config c;
	char text[512], expected[160];

	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	open_app(&a);
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	app_learning_summary(a.learning, text, sizeof text);
	ck_assert_msg(strstr(text, "xent") == NULL, "%s", text);
	c.loss = QKV_LOSS_XENT;
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	key(&a, '.');
	app_learning_summary(a.learning, text, sizeof text);
	snprintf(expected, sizeof expected, ". xent stays above log(1 + 7/e) = %.4g: outputs average one-hot "
		 "values, in [0, 1]", log(exp(1.0) + 7.0) - 1.0);
	ck_assert_msg(strstr(text, expected) != NULL, "%s", text);
	ck_assert_msg(strstr(text, "= 1.274:") != NULL, "%s", text);
	c.learn |= QKV_LEARN_W_V;
	ck_assert_int_eq(app_learning_open(&a, &c), 0);
	app_learning_summary(a.learning, text, sizeof text);
	ck_assert_msg(strstr(text, "xent") == NULL, "%s", text);
	app_fini(&a);
}
END_TEST

static Suite *learning_suite(void)
{
	Suite *s = suite_create("learning");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, test_l_opens_and_closes);
	tcase_add_test(tc, test_step_run_pause);
	tcase_add_test(tc, test_runs_are_the_cores);
	tcase_add_test(tc, test_dk_and_budget);
	tcase_add_test(tc, test_derivation_cell);
	tcase_add_test(tc, test_too_large_to_watch);
	tcase_add_loop_test(tc, test_experiment, 0, 2);
	tcase_add_test(tc, test_summary_from_numbers);
	tcase_add_test(tc, test_summary_names_the_start);
	tcase_add_test(tc, test_summary_says_the_xent_floor);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(learning_suite());
}
