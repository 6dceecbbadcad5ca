/* figure_train.c — training as figures (see figure_train.h). Every word is typeset
 * (dₖ, √dₖ, ‖J‖), every number read from the runs or the sweep it is given. */
#include "io/figure/figure_train.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/figure/figure_chart.h"
#include "qkv/format.h"

#define SCALED_NAME "scaled (\u00f7\u221ad\u2096)"
#define UNSCALED_NAME "unscaled (\u00f71)"
/* The seeds' pale points sit this far left (scaled) and right (unscaled) of
 * their dₖ, in log₂ units, so the two sides do not hide each other. */
#define SEED_SHIFT 0.12

static const char *loss_words(enum qkv_loss loss)
{
	return loss == QKV_LOSS_XENT ? "cross-entropy loss" : "mean squared error";
}

static const char *optimizer_words(enum qkv_optimizer optimizer)
{
	return optimizer == QKV_OPTIMIZER_ADAM ? "Adam" : "SGD";
}

/* "lookup · 8 tokens, X 8 × 40 · " : what both figures' subtitles start with. */
static size_t task_words(char *buf, size_t size, const struct qkv_train_config *c)
{
	int used = snprintf(buf, size, "%s task \u00b7 %d tokens, X %d \u00d7 %d", qkv_task_name(c->task), c->tokens,
			    c->tokens, c->d_model);

	return used < 0 ? 0 : (size_t)used < size ? (size_t)used : size - 1;
}

/* "learning rate 0.5": the rate as given, read back to the same double. */
static void rate_words(char *buf, size_t size, double lr)
{
	char number[40];

	qkv_format_exact(number, sizeof number, lr);
	snprintf(buf, size, "learning rate %s", number);
}

/* "query and key weights" for the weights that learn. */
static void learnt_words(char *buf, size_t size, unsigned learn)
{
	static const char *const names[QKV_WEIGHT_COUNT] = { "query", "key", "value" };
	int count = 0, seen = 0;
	size_t used = 0;

	for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
		count += (learn >> w) & 1u;
	buf[0] = '\0';
	for (int w = 0; w < QKV_WEIGHT_COUNT && used < size; w++)
		if (learn & (1u << w)) {
			seen++;
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 seen == 1 ? "" : seen == count ? " and " : ", ", names[w]);
		}
	if (used < size)
		snprintf(buf + used, size - used, " weights learn");
}

/* "at step 37" or "not within 500 steps". */
static void reached_words(char *buf, size_t size, const struct qkv_train *t)
{
	if (t->steps_to_90 >= 0)
		snprintf(buf, size, "at step %d", t->steps_to_90);
	else
		snprintf(buf, size, "not within %d steps", t->count - 1);
}

/* The top of a linear axis from 0 over both runs' curves: the least of 1, 1.2,
 * 1.6, 2, 2.4, 3, 4, 5, 6, 8 times a power of ten at or above their highest
 * value, so the quarter ticks are short numbers (1 when there is none). */
static double ceiling_of(const double *a, const double *b, int n)
{
	static const double nice[] = { 1.0, 1.2, 1.6, 2.0, 2.4, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0 };
	double highest = 0.0, decade;

	for (int i = 0; i < n; i++)
		highest = fmax(highest, fmax(isfinite(a[i]) ? a[i] : 0.0, isfinite(b[i]) ? b[i] : 0.0));
	if (!(highest > 0.0))
		return 1.0;
	decade = pow(10.0, floor(log10(highest)));
	for (size_t k = 0; k < sizeof nice / sizeof *nice; k++)
		if (nice[k] * decade >= highest * (1.0 - 1e-12))
			return nice[k] * decade;
	return 10.0 * decade;
}

int figure_train_run_write(FILE *out, enum figure_format format, const struct qkv_train *scaled,
			   const struct qkv_train *unscaled, const struct figure_options *o, char *err,
			   size_t err_size)
{
	static const char *const titles[4] = {
		"loss (log axis)", "accuracy", "gradient norm \u2016\u2207L\u2016 of the learnt weights",
		"softmax Jacobian norm \u2016J\u2016, mean over rows",
	};
	const struct qkv_train *runs[2] = { scaled, unscaled };
	const struct qkv_train_config *c = &scaled->config;
	struct chart_page page;
	char facts[400], result[200], rate[64], learnt[64], when[2][48];
	double *values;
	size_t used;
	int n = scaled->count < unscaled->count ? scaled->count : unscaled->count, rc;

	if (n < 1) {
		canvas_error(err, err_size, "cannot draw the run: no steps");
		return -1;
	}
	/* values: the steps, then for each run its loss, accuracy, ‖∇L‖ and ‖J‖ */
	values = malloc(sizeof *values * (size_t)n * 9);
	if (values == NULL) {
		canvas_error(err, err_size, "cannot draw the run: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		values[i] = scaled->history[i].step;
		for (int s = 0; s < 2; s++) {
			const struct qkv_train_record *r = &runs[s]->history[i];
			double *at = values + (size_t)n * (1 + 4 * s);
			double grad = 0.0;

			for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
				if (runs[s]->config.learn & (1u << w))
					grad += r->grad_norm[w] * r->grad_norm[w];
			at[i] = r->loss;
			at[n + i] = r->accuracy;
			at[2 * n + i] = sqrt(grad);
			at[3 * n + i] = r->jacobian_norm;
		}
	}
	rate_words(rate, sizeof rate, c->lr);
	learnt_words(learnt, sizeof learnt, c->learn);
	used = task_words(facts, sizeof facts, c);
	snprintf(facts + used, sizeof facts - used, " \u00b7 d\u2096 %d \u00b7 %s \u00b7 %s, %s \u00b7 %s \u00b7 seed %llu",
		 c->d_k, loss_words(c->loss), optimizer_words(c->optimizer), rate, learnt,
		 (unsigned long long)c->seed);
	for (int s = 0; s < 2; s++)
		reached_words(when[s], sizeof when[s], runs[s]);
	snprintf(result, sizeof result, "%d steps \u00b7 90%% accuracy: scaled %s, unscaled %s", n - 1, when[0], when[1]);
	memset(&page, 0, sizeof page);
	page.title = "Training one attention head, scaled against unscaled";
	page.facts = facts;
	page.result = result;
	page.legend[0] = SCALED_NAME;
	page.legend[1] = UNSCALED_NAME;
	page.count = 4;
	for (int k = 0; k < 4; k++) {
		struct chart_spec *ch = &page.charts[k];
		const double *y[2] = { values + (size_t)n * (1 + k), values + (size_t)n * (5 + k) };

		ch->title = titles[k];
		ch->x = (struct chart_axis){ .log = false, .low = 0.0, .high = n > 1 ? n - 1 : 1, .label = "step" };
		ch->y = (struct chart_axis){ .log = k == 0, .low = 0.0, .high = k < 2 ? 1.0 : ceiling_of(y[0], y[1], n) };
		ch->count = 2;
		for (int s = 0; s < 2; s++)
			ch->series[s] = (struct chart_series){ s == 0 ? "scaled" : "unscaled", values, y[s], n, s, false,
							       NULL };
	}
	rc = chart_page_write(out, format, &page, o, err, err_size);
	free(values);
	return rc;
}

int figure_train_sweep_write(FILE *out, enum figure_format format, const struct qkv_train_config *c, int seeds,
			     const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
			     const struct figure_options *o, char *err, size_t err_size)
{
	enum { P = QKV_TRAIN_SWEEP_POINTS, S = QKV_TRAIN_SWEEP_MAX_SEEDS };
	double x[P], median[2][P], seed_x[2][P * S], seed_y[2][P * S];
	bool bound[2][P];
	struct chart_page page;
	struct chart_spec *ch;
	char facts[400], rate[64], chart_title[128], cap[128], bound_words[128];
	size_t used;
	int budget = c->steps;

	if (seeds < 1 || seeds > S) {
		canvas_error(err, err_size, "cannot draw the sweep: %d seeds", seeds);
		return -1;
	}
	for (int i = 0; i < P; i++) {
		const int *steps[2] = { points[i].scaled, points[i].unscaled };
		const int reached[2] = { points[i].scaled_reached, points[i].unscaled_reached };

		x[i] = points[i].d_k;
		median[0][i] = points[i].scaled_median;
		median[1][i] = points[i].unscaled_median;
		for (int s = 0; s < 2; s++) {
			bound[s][i] = qkv_train_median_censored(reached[s], seeds);
			for (int k = 0; k < seeds; k++) {
				seed_x[s][i * seeds + k] = x[i] * exp2(s == 0 ? -SEED_SHIFT : SEED_SHIFT);
				seed_y[s][i * seeds + k] = steps[s][k] >= 0 ? steps[s][k] : budget + 1.0;
			}
		}
	}
	rate_words(rate, sizeof rate, c->lr);
	used = task_words(facts, sizeof facts, c);
	snprintf(facts + used, sizeof facts - used, " \u00b7 %s \u00b7 %s, %s \u00b7 %d seed%s from %llu \u00b7 at most %d "
		 "steps a run", loss_words(c->loss), optimizer_words(c->optimizer), rate, seeds, seeds == 1 ? "" : "s",
		 (unsigned long long)c->seed, budget);
	snprintf(chart_title, sizeof chart_title, "median steps to 90%% accuracy over %d seed%s (log axes)", seeds,
		 seeds == 1 ? "" : "s");
	snprintf(cap, sizeof cap, "the budget: a run not at 90%% by step %d counts as %d", budget, budget + 1);
	snprintf(bound_words, sizeof bound_words, "a lower bound: a middle seed never reached 90%% in %d steps",
		 budget);
	memset(&page, 0, sizeof page);
	page.title = "Steps to 90% accuracy against d\u2096, scaled and unscaled";
	page.facts = facts;
	page.legend[0] = "median, " SCALED_NAME;
	page.legend[1] = "median, " UNSCALED_NAME;
	page.legend_faint = "each seed";
	page.legend_bound = bound_words;
	page.legend_cap = cap;
	page.count = 1;
	ch = &page.charts[0];
	ch->title = chart_title;
	ch->x = (struct chart_axis){ .log = true, .label = "d\u2096 (log\u2082 axis)" };
	ch->y = (struct chart_axis){ .log = true };
	ch->cap = budget + 1.0;
	ch->count = 4;
	for (int s = 0; s < 2; s++) {
		const char *name = s == 0 ? "scaled" : "unscaled";

		ch->series[s] = (struct chart_series){ name, x, median[s], P, s, false, bound[s] };
		ch->series[2 + s] = (struct chart_series){ name, seed_x[s], seed_y[s], P * seeds, s, true, NULL };
	}
	return chart_page_write(out, format, &page, o, err, err_size);
}
