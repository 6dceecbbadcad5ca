/* print_train.c — a training run or the steps-to-90% sweep, printed: what the
 * formats share (which steps a table shows, the learning weights' names, the
 * sweep's medians and bars, its verdict) and the command line's run; each
 * format's layout is its backend's train_run and train_sweep (print_<format>.c).
 * Every number is read from the run's records and matrices. Computes only by
 * calling the core's training. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/report/print_model.h"
#include "io/report/print_train.h"
#include "io/problem/save.h"
#include "qkv/error.h"

bool print_train_shown_step(int step, int last, int steps_to_90)
{
	/* Every one up to 10, then every 10 to 100, every 50 to 1000, every 500
	 * after; and always the first at 90% and the last. */
	if (step <= 10 || step == last || step == steps_to_90)
		return true;
	if (step <= 100)
		return step % 10 == 0;
	if (step <= 1000)
		return step % 50 == 0;
	return step % 500 == 0;
}

void print_train_learned(char *buf, size_t size, unsigned learn)
{
	buf[0] = '\0';
	for (int k = 0; k < QKV_WEIGHT_COUNT; k++)
		if (learn & (1u << k)) {
			size_t used = strlen(buf);

			snprintf(buf + used, size - used, "%s%s", used > 0 ? ", " : "",
				 qkv_weight_name((enum qkv_weight)k));
		}
}

void print_train_median(FILE *out, double median, int budget, int width)
{
	char text[32];

	if (median > budget)
		snprintf(text, sizeof text, ">%d", budget);
	else
		snprintf(text, sizeof text, "%g", median);
	fprintf(out, "%*s", width, text);
}

void print_train_bar(FILE *out, double median, int budget, int width, const char *glyph)
{
	double share = log(fmax(median, 1.0)) / log((double)budget + 1.0);
	int cells = (int)lround(share * width);

	if (cells < 1)
		cells = 1;
	for (int i = 0; i < cells; i++)
		fputs(glyph, out);
}

int print_train_run(FILE *out, const struct qkv_train *t, enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	if (be == NULL || be->train_run == NULL)
		return -1;
	errno = 0;
	be->train_run(out, t);
	if (fflush(out) != 0 || ferror(out) || errno == ENOMEM)
		return -1;
	return 0;
}

int print_train_sweep(FILE *out, const struct qkv_train_config *c, int seeds,
		      const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
		      const struct qkv_train_sweep_point *baseline, enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);
	char verdict[1024], name[32];
	struct train_sweep_report s = {
		.c = c, .seeds = seeds, .points = points, .baseline = baseline, .verdict = verdict,
	};

	if (be == NULL || be->train_sweep == NULL)
		return -1;
	snprintf(name, sizeof name, "%s + %s", qkv_loss_name(c->loss),
		 qkv_optimizer_name(c->optimizer));
	qkv_train_sweep_verdict(verdict, sizeof verdict, points, seeds, c->steps, name,
				baseline);
	errno = 0;
	be->train_sweep(out, &s);
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
