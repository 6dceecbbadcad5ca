/* train_run.c — `qkv --train TASK` run from the command line without the interface:
 * the run or the steps-to-90% sweep trained, then printed as text, CSV or JSON
 * (print_train.h) or drawn as a figure (`--format svg|pdf|png`, figure_train.h):
 * a run trained twice, scaled and unscaled, or the steps-to-90% sweep. Written to
 * standard output or, with --output, atomically: a failed run leaves no file. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cli/train_run.h"
#include "io/figure/figure_canvas.h"
#include "io/figure/figure_train.h"
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

/* The run c asks for, trained twice: with the scores divided by √dₖ and by 1. */
static int run_page(FILE *out, const struct train_cli *c, const struct figure_options *o, char *err,
		    size_t err_size)
{
	struct qkv_train runs[2];
	int rc = 0;

	for (int s = 0; s < 2; s++) {
		struct qkv_train_config config = c->config;

		config.scaled = s == 0;
		if (rc == 0) {
			rc = qkv_train_init(&runs[s], &config);
			if (rc == 0)
				rc = qkv_train_run(&runs[s], false);
		} else {
			memset(&runs[s], 0, sizeof runs[s]);
		}
	}
	if (rc != 0)
		canvas_error(err, err_size, "training failed: %s", qkv_error_string(rc));
	else
		rc = figure_train_run_write(out, (enum figure_format)c->figure_format, &runs[0], &runs[1], o, err,
					    err_size);
	for (int s = 0; s < 2; s++)
		qkv_train_fini(&runs[s]);
	return rc != 0 ? -1 : 0;
}

static int sweep_page(FILE *out, const struct train_cli *c, const struct figure_options *o, char *err,
		      size_t err_size)
{
	struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS];
	int rc = qkv_train_sweep(&c->config, c->seeds, points);

	if (rc != 0) {
		canvas_error(err, err_size, "the training sweep failed: %s", qkv_error_string(rc));
		return -1;
	}
	return figure_train_sweep_write(out, (enum figure_format)c->figure_format, &c->config, c->seeds, points, o,
					err, err_size);
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
