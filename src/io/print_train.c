/* print_train.c — a training run or the steps-to-90% sweep, printed. Every number
 * is read from the run's records and matrices; JSON numbers are exact (%.17g),
 * text rounds for people. Computes only by calling the core's training. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "io/json_write.h"
#include "io/print_train.h"
#include "qkv/error.h"
#include "qkv/format.h"

/* Through the one JSON writer: %.17g, null when not finite. */
static void json_number(FILE *out, double value)
{
	json_write_number(out, value, JSON_17G);
}

static void json_matrix(FILE *out, const struct qkv_matrix *m)
{
	fputc('[', out);
	for (int r = 0; r < m->rows; r++) {
		fputs(r > 0 ? ", [" : "[", out);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", out);
			json_number(out, qkv_matrix_get(m, r, c));
		}
		fputc(']', out);
	}
	fputc(']', out);
}

static void json_weights(FILE *out, const struct qkv_matrix *const w[QKV_WEIGHT_COUNT],
			 const char *indent)
{
	for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
		fprintf(out, "%s\"%s\": ", indent, qkv_weight_name((enum qkv_weight)k));
		json_matrix(out, w[k]);
		fputs(k + 1 < QKV_WEIGHT_COUNT ? ",\n" : "", out);
	}
}

static void run_json(FILE *out, const struct qkv_train *t)
{
	const struct qkv_train_config *c = &t->config;
	const struct qkv_trace *now = &t->now.trace;
	const struct qkv_matrix *initial[QKV_WEIGHT_COUNT], *final[QKV_WEIGHT_COUNT];

	for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
		initial[k] = &t->initial[k];
		final[k] = qkv_train_weight(t, (enum qkv_weight)k);
	}
	fprintf(out, "{\n  \"task\": \"%s\",\n  \"n\": %d,\n  \"d_model\": %d,\n  \"d_k\": %d,\n"
		     "  \"d_v\": %d,\n  \"divisor\": ",
		qkv_task_name(c->task), c->tokens, c->d_model, c->d_k, t->target.cols);
	json_number(out, now->divisor);
	fprintf(out, ",\n  \"loss\": \"%s\",\n  \"optimizer\": \"%s\",\n  \"lr\": ",
		qkv_loss_name(c->loss), qkv_optimizer_name(c->optimizer));
	json_number(out, c->lr);
	fprintf(out, ",\n  \"seed\": %llu,\n  \"X\": ", (unsigned long long)c->seed);
	json_matrix(out, &t->problem.x);
	fputs(",\n  \"target\": ", out);
	json_matrix(out, &t->target);
	fputs(",\n", out);
	json_weights(out, initial, "  ");
	fputs(",\n  \"grad0\": {\n", out);
	/* The gradient at the initial point is not kept by the run; recompute it. */
	{
		struct qkv_problem start;
		struct qkv_backprop b;
		const struct qkv_matrix *grad[QKV_WEIGHT_COUNT];

		qkv_problem_init(&start);
		qkv_backprop_init(&b);
		if (qkv_problem_copy(&start, &t->problem) == 0
		    && qkv_matrix_copy(&start.w_q, &t->initial[QKV_WEIGHT_Q]) == 0
		    && qkv_matrix_copy(&start.w_k, &t->initial[QKV_WEIGHT_K]) == 0
		    && qkv_matrix_copy(&start.w_v, &t->initial[QKV_WEIGHT_V]) == 0
		    && qkv_backprop_run(&b, &start, &t->target, c->loss) == 0) {
			for (int k = 0; k < QKV_WEIGHT_COUNT; k++)
				grad[k] = &b.grad[k];
			json_weights(out, grad, "    ");
		} else {
			errno = ENOMEM;
			fputs("  \"error\": \"out of memory\"", out);
		}
		qkv_backprop_fini(&b);
		qkv_problem_fini(&start);
	}
	fputs("\n  },\n  \"steps\": [\n", out);
	for (int s = 0; s < t->count; s++) {
		const struct qkv_train_record *r = &t->history[s];

		fprintf(out, "    {\"step\": %d, \"loss\": ", r->step);
		json_number(out, r->loss);
		fputs(", \"accuracy\": ", out);
		json_number(out, r->accuracy);
		fputs(", \"grad_norm\": {", out);
		for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
			fprintf(out, "%s\"%s\": ", k > 0 ? ", " : "", qkv_weight_name((enum qkv_weight)k));
			json_number(out, r->grad_norm[k]);
		}
		fputs("}, \"jacobian_norm\": ", out);
		json_number(out, r->jacobian_norm);
		fputs(s + 1 < t->count ? "},\n" : "}\n", out);
	}
	fputs("  ],\n  \"steps_to_90\": ", out);
	if (t->steps_to_90 >= 0)
		fprintf(out, "%d", t->steps_to_90);
	else
		fputs("null", out);
	fputs(",\n  \"final\": {\n", out);
	json_weights(out, final, "    ");
	fputs(",\n    \"weights\": ", out);
	json_matrix(out, &now->weights);
	fputs("\n  }\n}\n", out);
}

static void run_csv(FILE *out, const struct qkv_train *t)
{
	fputs("step,loss,accuracy,grad_norm_W_Q,grad_norm_W_K,grad_norm_W_V,jacobian_norm\n", out);
	for (int s = 0; s < t->count; s++) {
		const struct qkv_train_record *r = &t->history[s];

		fprintf(out, "%d,", r->step);
		json_number(out, r->loss);
		fputc(',', out);
		json_number(out, r->accuracy);
		for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
			fputc(',', out);
			json_number(out, r->grad_norm[k]);
		}
		fputc(',', out);
		json_number(out, r->jacobian_norm);
		fputc('\n', out);
	}
}

/* The steps a text table shows: every one up to 10, then every 10 to 100, every
 * 50 to 1000, every 500 after; and always the first at 90% and the last. */
static bool shown_step(int step, int last, int steps_to_90)
{
	if (step <= 10 || step == last || step == steps_to_90)
		return true;
	if (step <= 100)
		return step % 10 == 0;
	if (step <= 1000)
		return step % 50 == 0;
	return step % 500 == 0;
}

/* What the learning weights are: "W_Q, W_K". */
static void learned_names(char *buf, size_t size, unsigned learn)
{
	buf[0] = '\0';
	for (int k = 0; k < QKV_WEIGHT_COUNT; k++)
		if (learn & (1u << k)) {
			size_t used = strlen(buf);

			snprintf(buf + used, size - used, "%s%s", used > 0 ? ", " : "",
				 qkv_weight_name((enum qkv_weight)k));
		}
}

static void run_text(FILE *out, const struct qkv_train *t)
{
	const struct qkv_train_config *c = &t->config;
	const struct qkv_trace *now = &t->now.trace;
	char learned[32], divisor[32];
	int last = t->count - 1;

	learned_names(learned, sizeof learned, c->learn);
	if (c->scaled)
		snprintf(divisor, sizeof divisor, "√%d = %.4f", c->d_k, now->divisor);
	else
		snprintf(divisor, sizeof divisor, "1 (no scaling)");
	fprintf(out, "Training one attention head on the task \"%s\"\n", qkv_task_name(c->task));
	fprintf(out, "n = %d tokens, d_model = %d, d_k = %d, d_v = %d; scores ÷ %s\n", c->tokens,
		c->d_model, c->d_k, t->target.cols, divisor);
	fprintf(out, "loss %s, optimizer %s, lr %g, seed %llu; learning: %s\n\n",
		qkv_loss_name(c->loss), qkv_optimizer_name(c->optimizer), c->lr,
		(unsigned long long)c->seed, learned);
	fputs("   step          loss  accuracy    ‖∇W_Q‖    ‖∇W_K‖    ‖∇W_V‖  mean ‖J‖\n", out);
	for (int s = 0; s <= last; s++) {
		const struct qkv_train_record *r = &t->history[s];

		if (!shown_step(s, last, t->steps_to_90))
			continue;
		fprintf(out, "%7d  %12.6g   %6.1f%%  %8.2e  %8.2e  %8.2e  %8.2e\n", r->step, r->loss,
			100.0 * r->accuracy, r->grad_norm[0], r->grad_norm[1], r->grad_norm[2],
			r->jacobian_norm);
	}
	if (t->steps_to_90 >= 0)
		fprintf(out, "\nsteps to 90%% accuracy: %d\n", t->steps_to_90);
	else
		fprintf(out, "\nsteps to 90%% accuracy: not reached in %d steps\n", last);
	fputs("\nweights after the last step (rows: queries, columns: keys)\n     ", out);
	for (int j = 0; j < now->n; j++)
		fprintf(out, " %6s", t->problem.tokens[j]);
	fputc('\n', out);
	for (int i = 0; i < now->n; i++) {
		fprintf(out, "%5s", t->problem.tokens[i]);
		for (int j = 0; j < now->n; j++)
			fprintf(out, " %6.3f", qkv_matrix_get(&now->weights, i, j));
		fputc('\n', out);
	}
}

int print_train_run(FILE *out, const struct qkv_train *t, enum train_format format)
{
	errno = 0;
	if (format == TRAIN_FORMAT_JSON)
		run_json(out, t);
	else if (format == TRAIN_FORMAT_CSV)
		run_csv(out, t);
	else
		run_text(out, t);
	if (fflush(out) != 0 || ferror(out) || errno == ENOMEM)
		return -1;
	return 0;
}

/* "17" or ">500" for a median; "≥ 56×" style gaps come from the core. */
static void put_median(FILE *out, double median, int budget, int width)
{
	char text[32];

	if (median > budget)
		snprintf(text, sizeof text, ">%d", budget);
	else
		snprintf(text, sizeof text, "%g", median);
	fprintf(out, "%*s", width, text);
}

static void sweep_rows_json(FILE *out, const struct qkv_train_sweep_point *points, int seeds,
			    int budget)
{
	fputs("[\n", out);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		const struct qkv_train_sweep_point *p = &points[k];
		bool at_least;
		double gap = qkv_train_sweep_gap(p, budget, &at_least);

		fprintf(out, "    {\"d_k\": %d", p->d_k);
		for (int side = 0; side < 2; side++) {
			const int *steps = side == 0 ? p->scaled : p->unscaled;

			fprintf(out, ", \"%s\": {\"median\": ", side == 0 ? "scaled" : "unscaled");
			json_number(out, side == 0 ? p->scaled_median : p->unscaled_median);
			fprintf(out, ", \"reached\": %d, \"steps_to_90\": [",
				side == 0 ? p->scaled_reached : p->unscaled_reached);
			for (int s = 0; s < seeds; s++) {
				if (s > 0)
					fputs(", ", out);
				if (steps[s] >= 0)
					fprintf(out, "%d", steps[s]);
				else
					fputs("null", out);
			}
			fputs("]}", out);
		}
		fputs(", \"gap\": ", out);
		if (gap >= 0.0)
			json_number(out, gap);
		else
			fputs("null", out);
		fprintf(out, ", \"gap_is_lower_bound\": %s}%s\n", at_least ? "true" : "false",
			k + 1 < QKV_TRAIN_SWEEP_POINTS ? "," : "");
	}
	fputs("  ]", out);
}

/* A bar of steps on a log scale from 1 to budget + 1, `width` columns. */
static void put_bar(FILE *out, double median, int budget, int width, const char *glyph)
{
	double share = log(fmax(median, 1.0)) / log((double)budget + 1.0);
	int cells = (int)lround(share * width);

	if (cells < 1)
		cells = 1;
	for (int i = 0; i < cells; i++)
		fputs(glyph, out);
}

static void sweep_text(FILE *out, const struct qkv_train_config *c, int seeds,
		       const struct qkv_train_sweep_point *points, const char *verdict)
{
	fprintf(out, "Steps to 90%% accuracy, task \"%s\", %s + %s, lr %g: %d tokens, d_model %d,\n"
		     "median over seeds %llu … %llu; at most %d steps (\">%d\": half the seeds or more never got there)\n\n",
		qkv_task_name(c->task), qkv_loss_name(c->loss), qkv_optimizer_name(c->optimizer), c->lr,
		c->tokens, c->d_model, (unsigned long long)c->seed,
		(unsigned long long)c->seed + (unsigned long long)seeds - 1, c->steps, c->steps);
	fputs("   d_k   scaled  unscaled  unscaled/scaled  reached 90% (scaled, unscaled)\n", out);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		const struct qkv_train_sweep_point *p = &points[k];
		bool at_least;
		double gap = qkv_train_sweep_gap(p, c->steps, &at_least);
		char ratio[32];

		if (gap < 0.0)
			snprintf(ratio, sizeof ratio, "—");
		else
			snprintf(ratio, sizeof ratio, "%s%.*f×", at_least ? "≥ " : "", gap < 10.0 ? 1 : 0,
				 gap);
		fprintf(out, "%6d", p->d_k);
		put_median(out, p->scaled_median, c->steps, 9);
		put_median(out, p->unscaled_median, c->steps, 10);
		fprintf(out, "  %*s%s  %d/%d, %d/%d\n", 15 - qkv_text_columns(ratio), "", ratio,
			p->scaled_reached, seeds, p->unscaled_reached, seeds);
	}
	fprintf(out, "\nmedian steps, log scale from 1 to %d (█ scaled, ░ unscaled)\n", c->steps + 1);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		fprintf(out, "%6d █", points[k].d_k);
		put_bar(out, points[k].scaled_median, c->steps, 50, "█");
		fputc('\n', out);
		fputs("       ░", out);
		put_bar(out, points[k].unscaled_median, c->steps, 50, "░");
		fputc('\n', out);
	}
	fprintf(out, "\n%s\n", verdict);
}

static void sweep_csv(FILE *out, const struct qkv_train_sweep_point *points, int seeds,
		      int budget)
{
	fputs("d_k,scaled_median,unscaled_median,scaled_reached,unscaled_reached,seeds,budget\n", out);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		const struct qkv_train_sweep_point *p = &points[k];

		fprintf(out, "%d,", p->d_k);
		json_number(out, p->scaled_median);
		fputc(',', out);
		json_number(out, p->unscaled_median);
		fprintf(out, ",%d,%d,%d,%d\n", p->scaled_reached, p->unscaled_reached, seeds, budget);
	}
}

int print_train_sweep(FILE *out, const struct qkv_train_config *c, int seeds,
		      const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
		      const struct qkv_train_sweep_point *baseline, enum train_format format)
{
	char verdict[1024], name[32];

	snprintf(name, sizeof name, "%s + %s", qkv_loss_name(c->loss),
		 qkv_optimizer_name(c->optimizer));
	qkv_train_sweep_verdict(verdict, sizeof verdict, points, seeds, c->steps, name,
				baseline);
	errno = 0;
	if (format == TRAIN_FORMAT_JSON) {
		fprintf(out, "{\n  \"task\": \"%s\",\n  \"loss\": \"%s\",\n  \"optimizer\": \"%s\",\n"
			     "  \"lr\": ", qkv_task_name(c->task), qkv_loss_name(c->loss),
			qkv_optimizer_name(c->optimizer));
		json_number(out, c->lr);
		fprintf(out, ",\n  \"n\": %d,\n  \"d_model\": %d,\n  \"budget\": %d,\n  \"seed\": %llu,\n"
			     "  \"seeds\": %d,\n  \"rows\": ", c->tokens, c->d_model, c->steps,
			(unsigned long long)c->seed, seeds);
		sweep_rows_json(out, points, seeds, c->steps);
		if (baseline != NULL) {
			fputs(",\n  \"baseline\": {\"loss\": \"mse\", \"optimizer\": \"sgd\", \"lr\": ", out);
			json_number(out, qkv_train_default_lr(QKV_LOSS_MSE, QKV_OPTIMIZER_SGD));
			fputs(", \"rows\": ", out);
			sweep_rows_json(out, baseline, seeds, c->steps);
			fputs("}", out);
		}
		fputs(",\n  \"verdict\": \"", out);
		for (const char *v = verdict; *v != '\0'; v++)
			if (*v == '"' || *v == '\\')
				fprintf(out, "\\%c", *v);
			else
				fputc(*v, out);
		fputs("\"\n}\n", out);
	} else if (format == TRAIN_FORMAT_CSV) {
		sweep_csv(out, points, seeds, c->steps);
	} else {
		sweep_text(out, c, seeds, points, verdict);
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

static int failed(const char *what, int rc)
{
	fprintf(stderr, "qkv: %s: %s\n", what, qkv_error_string(rc));
	return 1;
}

int print_train_cli(FILE *out, const struct train_cli *c)
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
	if (rc != 0) {
		fprintf(stderr, "qkv: cannot write the report: %s\n",
			errno != 0 ? strerror(errno) : "write error");
		return 1;
	}
	return 0;
}
