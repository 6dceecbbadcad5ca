/* train_run.c — `qkv --train TASK` run from the command line without the interface:
 * the run or the steps-to-90% sweep trained, then printed as text, CSV or JSON
 * (print_train.h) or drawn as a figure (`--format svg|pdf|png`): a run's loss (log
 * axis), accuracy, gradient norm of the learnt weights and mean softmax Jacobian
 * norm over the steps; the sweep's median steps to 90% against d_k (log₂ and log₁₀
 * axes), scaled (●) against unscaled (×). Written to standard output or, with
 * --output, atomically: a failed run leaves no file. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cli/train_run.h"
#include "io/figure/figure_chart.h"
#include "io/problem/save.h"
#include "io/report/print_train.h"
#include "qkv/error.h"

static void options_of(const struct train_cli *c, struct figure_options *o)
{
	figure_options_default(o);
	o->palette = c->palette != NULL ? qkv_colour_palette_find(c->palette) : QKV_PALETTE_VIRIDIS;
	o->dark = c->dark;
	o->width = c->size_w;
	o->height = c->size_h;
}

static int run_page(FILE *out, const struct train_cli *c, const struct figure_options *o, char *err,
		    size_t err_size)
{
	struct qkv_train t;
	struct chart_page page;
	double *values;
	char facts[320], legend[64];
	int rc, n;

	rc = qkv_train_init(&t, &c->config);
	if (rc == 0)
		rc = qkv_train_run(&t, false);
	if (rc != 0) {
		qkv_train_fini(&t);
		canvas_error(err, err_size, "training failed: %s", qkv_error_string(rc));
		return -1;
	}
	n = t.count;
	values = malloc(sizeof *values * (size_t)n * 5);
	if (values == NULL) {
		qkv_train_fini(&t);
		canvas_error(err, err_size, "cannot draw the run: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct qkv_train_record *r = &t.history[i];
		double grad = 0.0;

		for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
			if (c->config.learn & (1u << w))
				grad += r->grad_norm[w] * r->grad_norm[w];
		values[i] = r->step;
		values[n + i] = r->loss;
		values[2 * n + i] = r->accuracy;
		values[3 * n + i] = sqrt(grad);
		values[4 * n + i] = r->jacobian_norm;
	}
	snprintf(facts, sizeof facts, "%s \u00b7 %d tokens \u00b7 d_model %d \u00b7 d_k %d \u00b7 %s \u00b7 %s, lr %g "
		 "\u00b7 seed %llu \u00b7 %d steps \u00b7 90%% accuracy %s", qkv_task_name(c->config.task),
		 c->config.tokens, c->config.d_model, c->config.d_k, qkv_loss_name(c->config.loss),
		 qkv_optimizer_name(c->config.optimizer), c->config.lr, (unsigned long long)c->config.seed, n - 1,
		 t.steps_to_90 >= 0 ? "reached" : "not reached");
	snprintf(legend, sizeof legend, "%s", c->config.scaled ? "scaled (\u00f7\u221ad_k)" : "unscaled (\u00f71)");
	memset(&page, 0, sizeof page);
	page.title = "Training one attention head";
	page.facts = facts;
	page.legend[c->config.scaled ? 0 : 1] = legend;
	page.count = 4;
	{
		static const char *const titles[4] = {
			"loss (log)", "accuracy", "\u2016\u2207\u2016 of the learnt weights", "mean \u2016J\u2016 (softmax Jacobian)",
		};
		double highest[4] = { 1.0, 1.0, 0.0, 0.0 };

		for (int k = 2; k < 4; k++)
			for (int i = 0; i < n; i++)
				highest[k] = fmax(highest[k], values[(k + 1) * n + i]);
		for (int k = 0; k < 4; k++) {
			struct chart_spec *ch = &page.charts[k];

			ch->title = titles[k];
			ch->x = (struct chart_axis){ .log = false, .low = 0.0, .high = n > 1 ? n - 1 : 1, .label = "step" };
			ch->y = (struct chart_axis){ .log = k == 0, .low = 0.0,
						     .high = highest[k] > 0.0 ? ceil(highest[k] * 10.0) / 10.0 : 1.0 };
			ch->count = 1;
			ch->series[0] = (struct chart_series){ legend, values, values + (k + 1) * n, n,
							       c->config.scaled ? 0 : 1 };
		}
	}
	rc = chart_page_write(out, (enum figure_format)c->figure_format, &page, o, err, err_size);
	free(values);
	qkv_train_fini(&t);
	return rc;
}

static int sweep_page(FILE *out, const struct train_cli *c, const struct figure_options *o, char *err,
		      size_t err_size)
{
	struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS];
	double x[QKV_TRAIN_SWEEP_POINTS], y[2][QKV_TRAIN_SWEEP_POINTS];
	struct chart_page page;
	char facts[320], chart_title[128];
	int rc = qkv_train_sweep(&c->config, c->seeds, points);

	if (rc != 0) {
		canvas_error(err, err_size, "the training sweep failed: %s", qkv_error_string(rc));
		return -1;
	}
	for (int i = 0; i < QKV_TRAIN_SWEEP_POINTS; i++) {
		x[i] = points[i].d_k;
		y[0][i] = points[i].scaled_median;
		y[1][i] = points[i].unscaled_median;
	}
	snprintf(facts, sizeof facts, "%s \u00b7 %d tokens \u00b7 d_model %d \u00b7 %s \u00b7 %s \u00b7 %d seeds "
		 "from %llu \u00b7 budget %d steps (a run that never reaches 90%% counts as %d)",
		 qkv_task_name(c->config.task), c->config.tokens, c->config.d_model, qkv_loss_name(c->config.loss),
		 qkv_optimizer_name(c->config.optimizer), c->seeds, (unsigned long long)c->config.seed,
		 c->config.steps, c->config.steps + 1);
	memset(&page, 0, sizeof page);
	page.title = "Steps to 90% accuracy, with and without \u221ad_k";
	page.facts = facts;
	page.legend[0] = "scaled (\u00f7\u221ad_k)";
	page.legend[1] = "unscaled";
	page.count = 1;
	snprintf(chart_title, sizeof chart_title, "median steps to 90%% (log); a point at %d is censored: "
		 "above the budget, a lower bound", c->config.steps + 1);
	page.charts[0].title = chart_title;
	page.charts[0].x = (struct chart_axis){ .log = true, .label = "d_k (log\u2082 axis)" };
	page.charts[0].y = (struct chart_axis){ .log = true };
	page.charts[0].count = 2;
	for (int s = 0; s < 2; s++)
		page.charts[0].series[s] = (struct chart_series){ page.legend[s], x, y[s], QKV_TRAIN_SWEEP_POINTS, s };
	return chart_page_write(out, (enum figure_format)c->figure_format, &page, o, err, err_size);
}

int train_run_figure(const struct train_cli *c)
{
	struct figure_options o;
	char err[512] = "write error", *bytes = NULL;
	size_t length = 0;
	FILE *out = stdout;
	int rc;

	options_of(c, &o);
	if (c->output != NULL && (out = open_memstream(&bytes, &length)) == NULL) {
		fprintf(stderr, "qkv: cannot draw the figure: out of memory\n");
		return 1;
	}
	errno = 0;
	rc = c->sweep ? sweep_page(out, c, &o, err, sizeof err) : run_page(out, c, &o, err, sizeof err);
	if (c->output != NULL) {
		if (fclose(out) != 0 && rc == 0) {
			snprintf(err, sizeof err, "cannot draw the figure: out of memory");
			rc = -1;
		}
		if (rc == 0 && save_bytes(c->output, bytes, length, err, sizeof err) != 0)
			rc = 2;
		free(bytes);
	}
	if (rc != 0) {
		fprintf(stderr, "qkv: %s\n", err);
		return rc == 2 ? 2 : 1;
	}
	return 0;
}

static int failed(const char *what, int rc)
{
	fprintf(stderr, "qkv: %s: %s\n", what, qkv_error_string(rc));
	return 1;
}
/* Runs and prints what c asks for to out (a stream); 0, 1 after one line on a
 * failed run, or -1 on a write error (errno says why). */
static int run_and_print(FILE *out, const struct train_cli *c)
{
	int rc;

	if (c->sweep) {
		struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS];
		struct qkv_train_sweep_point baseline[QKV_TRAIN_SWEEP_POINTS];
		bool compare = c->config.loss != QKV_LOSS_MSE || c->config.optimizer != QKV_OPTIMIZER_SGD;

		rc = qkv_train_sweep(&c->config, c->seeds, points);
		if (rc == 0 && compare) {
			struct qkv_train_config base = c->config;

			base.loss = QKV_LOSS_MSE;
			base.optimizer = QKV_OPTIMIZER_SGD;
			base.lr = qkv_train_default_lr(base.loss, base.optimizer);
			rc = qkv_train_sweep(&base, c->seeds, baseline);
		}
		if (rc != 0)
			return failed("the training sweep failed", rc);
		rc = print_train_sweep(out, &c->config, c->seeds, points, compare ? baseline : NULL,
				       c->format);
	} else {
		struct qkv_train t;

		rc = qkv_train_init(&t, &c->config);
		if (rc != 0)
			return failed("cannot start training", rc);
		rc = qkv_train_run(&t, false);
		if (rc != 0) {
			qkv_train_fini(&t);
			return failed("training stopped", rc);
		}
		rc = print_train_run(out, &t, c->format);
		qkv_train_fini(&t);
	}
	return rc != 0 ? -1 : 0;
}

int train_run_print(FILE *out, const struct train_cli *c)
{
	char err[1024] = "", *bytes = NULL;
	size_t length = 0;
	int rc;

	if (c->output != NULL && (out = open_memstream(&bytes, &length)) == NULL) {
		fprintf(stderr, "qkv: cannot write the report: out of memory\n");
		return 1;
	}
	errno = 0;
	rc = run_and_print(out, c);
	if (rc < 0)
		snprintf(err, sizeof err, "cannot write the report: %s",
			 errno != 0 ? strerror(errno) : "write error");
	if (c->output != NULL) {
		if (fclose(out) != 0 && rc == 0) {
			snprintf(err, sizeof err, "cannot write the report: out of memory");
			rc = -1;
		}
		/* Made whole in memory, then written atomically: a failed run leaves no file. */
		if (rc == 0 && save_bytes(c->output, bytes, length, err, sizeof err) != 0)
			rc = 2;
		free(bytes);
	}
	if (rc < 0 || rc == 2)
		fprintf(stderr, "qkv: %s\n", err);
	return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}
