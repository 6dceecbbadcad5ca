/* print_json.c — the printer's JSON format: docs/DESIGN.md's trace object and
 * sweep object, key for key, every number reading back to the same double. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/problem/json_write.h"
#include "io/report/print_model.h"

/* A number as every object here writes it: %.17g, null when not finite. */
static void number17(FILE *out, double value)
{
	json_write_number(out, value, JSON_17G);
}

/* `key`: a matrix as a JSON array of rows, one row a line, at indent (masked
 * (query, key) entries of the trace `masked` null, when given); a comma after
 * it unless it is the last member. Stops at a write error. Each row is made in
 * memory and written at once: a trace is tens of thousands of numbers, and a
 * stdio call per number and separator costs more than the digits (without the
 * memory for a row, number by number). */
static void json_matrix_at(FILE *out, const char *indent, const char *key,
			   const struct qkv_matrix *m, const struct qkv_trace *masked, bool last)
{
	size_t indent_length = strlen(indent);
	/* Per number: at most 24 characters and ", "; before it ",\n", the indent
	 * and "  ["; after it "]". */
	size_t size = (size_t)m->cols * 26 + indent_length + 16;
	char *row = malloc(size);

	fprintf(out, "%s\"%s\": [", indent, key);
	for (int r = 0; r < m->rows && !ferror(out); r++) {
		size_t used = 0;

		if (row == NULL) {
			fprintf(out, "%s\n%s  [", r > 0 ? "," : "", indent);
			for (int c = 0; c < m->cols; c++) {
				if (c > 0)
					fputs(", ", out);
				if (masked != NULL && qkv_trace_is_masked(masked, r, c))
					fputs("null", out);
				else
					number17(out, qkv_matrix_get(m, r, c));
			}
			fputc(']', out);
			continue;
		}
		if (r > 0)
			row[used++] = ',';
		row[used++] = '\n';
		memcpy(row + used, indent, indent_length);
		used += indent_length;
		memcpy(row + used, "  [", 3);
		used += 3;
		for (int c = 0; c < m->cols; c++) {
			if (c > 0) {
				row[used++] = ',';
				row[used++] = ' ';
			}
			if (masked != NULL && qkv_trace_is_masked(masked, r, c)) {
				memcpy(row + used, "null", 4);
				used += 4;
			} else {
				used += (size_t)json_number_text(row + used, size - used, qkv_matrix_get(m, r, c),
								 JSON_17G);
			}
		}
		row[used++] = ']';
		fwrite(row, 1, used, out);
	}
	free(row);
	fprintf(out, "\n%s]%s\n", indent, last ? "" : ",");
}

/* A matrix of the report, a member of the top-level object. */
static void json_matrix(struct printer *pr, const char *key, const struct qkv_matrix *m,
			bool show_masked)
{
	if (!print_stopped(pr))
		json_matrix_at(pr->out, "  ", key, m, show_masked ? pr->t : NULL, false);
}

/* The trace's "stats" object at indent: the score variance and each query's row
 * statistics. */
static void json_stats(FILE *out, const char *indent, const struct qkv_trace *t)
{
	fprintf(out, "%s\"stats\": {\n%s  \"score_variance\": ", indent, indent);
	number17(out, t->score_variance);
	fprintf(out, ",\n%s  \"rows\": [", indent);
	for (int r = 0; r < t->m && !ferror(out); r++) {
		const struct qkv_row_stats *s = &t->rows[r];

		fprintf(out, "%s\n%s    {", r > 0 ? "," : "", indent);
		fputs("\"max_weight\": ", out);
		number17(out, s->max_weight);
		fputs(", \"entropy\": ", out);
		number17(out, s->entropy);
		fputs(", \"effective_tokens\": ", out);
		number17(out, s->effective_tokens);
		fputs(", \"jacobian_norm\": ", out);
		number17(out, s->jacobian_norm);
		fputc('}', out);
	}
	fprintf(out, "\n%s  ]\n%s}\n", indent, indent);
}

/* The mask as a problem file writes it: a name, or the custom boolean matrix. */
static void json_mask(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	int m = p->m, n = p->n;

	if (p->mask != QKV_MASK_CUSTOM || p->mask_bits == NULL) {
		fprintf(pr->out, ",\n  \"mask\": \"%s\",\n", qkv_mask_name(p->mask));
		return;
	}
	fputs(",\n  \"mask\": [", pr->out);
	for (int i = 0; i < m; i++) {
		fputs(i > 0 ? ", [" : "[", pr->out);
		for (int j = 0; j < n; j++)
			fprintf(pr->out, "%s%s", j > 0 ? ", " : "",
				p->mask_bits[(size_t)i * (size_t)n + (size_t)j] ? "true" : "false");
		fputc(']', pr->out);
	}
	fputs("],\n", pr->out);
}

/* ,"tokens": […], and in cross-attention "query_tokens": […] and "m": m, each
 * line ending in a comma. */
static void json_labels(FILE *out, const struct qkv_problem *p)
{
	fputs(",\n  \"tokens\": [", out);
	for (int i = 0; i < p->n; i++) {
		if (i > 0)
			fputs(", ", out);
		json_write_string(out, p->tokens[i]);
	}
	fputs("],", out);
	if (!qkv_problem_is_cross(p))
		return;
	fputs("\n  \"query_tokens\": [", out);
	for (int i = 0; i < p->m; i++) {
		if (i > 0)
			fputs(", ", out);
		json_write_string(out, p->query_tokens[i]);
	}
	fprintf(out, "],\n  \"m\": %d,", p->m);
}

/* The object's opening and its facts: title, tokens, sizes, divisor, "scale",
 * "temperature", the mask (and "padding" and "wrong" when there are any). */
static void json_facts(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	const struct qkv_trace *t = pr->t;

	fputs("{\n  \"title\": ", pr->out);
	json_write_string(pr->out, p->title);
	json_labels(pr->out, p);
	fprintf(pr->out, "\n  \"n\": %d,\n  \"d_k\": %d,\n  \"d_v\": %d,\n  \"divisor\": ",
		t->n, t->d_k, t->d_v);
	number17(pr->out, t->divisor);
	fputs(",\n  \"scale\": ", pr->out);
	if (p->scale == QKV_SCALE_CUSTOM)
		number17(pr->out, p->scale_value);
	else
		json_write_string(pr->out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	fputs(",\n  \"temperature\": ", pr->out);
	number17(pr->out, p->temperature);
	json_mask(pr);
	if (print_has_padding(p)) {
		bool first = true;

		fputs("  \"padding\": [", pr->out);
		for (int i = 0; i < t->n; i++)
			if (p->padding[i]) {
				fprintf(pr->out, "%s%d", first ? "" : ", ", i);
				first = false;
			}
		fputs("],\n", pr->out);
	}
	if (p->wrong != QKV_WRONG_NONE)
		fprintf(pr->out, "  \"wrong\": \"%s\",\n", qkv_wrong_name(p->wrong));
}

/* The projected form keeps what it was computed from: X (and X_q) and the W's. */
static void json_projected_inputs(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;

	if (p->form != QKV_FORM_PROJECTED)
		return;
	json_matrix(pr, "X", &p->x, false);
	if (qkv_problem_is_cross(p))
		json_matrix(pr, "X_q", &p->x_q, false);
	json_matrix(pr, "W_Q", &p->w_q, false);
	json_matrix(pr, "W_K", &p->w_k, false);
	json_matrix(pr, "W_V", &p->w_v, false);
}

/* The trace object. */
static int json_trace(struct printer *pr)
{
	const struct qkv_trace *t = pr->t;

	json_facts(pr);
	json_projected_inputs(pr);
	json_matrix(pr, "Q", &t->q, false);
	json_matrix(pr, "K", &t->k, false);
	json_matrix(pr, "V", &t->v, false);
	json_matrix(pr, "scores", &t->scores, true);
	json_matrix(pr, "scaled", &t->scaled, true);
	json_matrix(pr, "weights", &t->weights, false);
	json_matrix(pr, "output", &t->output, false);
	if (!print_stopped(pr))
		json_stats(pr->out, "  ", t);
	fputs("}\n", pr->out);
	return 0;
}

/* The online softmax's object: the trace object's facts and inputs, then
 * "algorithm", "tile", "bytes", the output and each query's "max" (m, null when
 * the query sees no key) and "sum" (ℓ); no scores, scaled or weights. */
static int json_online(struct printer *pr, const struct qkv_online *o)
{
	json_facts(pr);
	fprintf(pr->out, "  \"algorithm\": \"online\",\n  \"tile\": %d,\n  \"bytes\": %zu,\n",
		o->tile, o->bytes);
	json_projected_inputs(pr);
	json_matrix(pr, "Q", &o->q, false);
	json_matrix(pr, "K", &o->k, false);
	json_matrix(pr, "V", &o->v, false);
	json_matrix(pr, "output", &o->output, false);
	for (int key = 0; key < 2 && !print_stopped(pr); key++) {
		const double *values = key == 0 ? o->max : o->sum;

		fprintf(pr->out, "  \"%s\": [", key == 0 ? "max" : "sum");
		for (int i = 0; i < o->queries; i++) {
			if (i > 0)
				fputs(", ", pr->out);
			number17(pr->out, values[i]);
		}
		fputs(key == 0 ? "],\n" : "]\n", pr->out);
	}
	fputs("}\n", pr->out);
	return 0;
}

/* The sweep object. */
static int json_sweep(FILE *out, const struct sweep_report *s)
{
	double values[4];

	fprintf(out, "{\n  \"tokens\": %d,\n  \"trials\": %d,\n  \"seed\": %llu,\n  \"rows\": [",
		s->tokens, s->trials, s->seed);
	for (int r = 0; r < s->count; r++) {
		fprintf(out, "%s\n    { \"d_k\": %d", r > 0 ? "," : "", s->points[r].d_k);
		for (int side = 0; side < 2; side++) {
			print_sweep_values(side == 0 ? &s->points[r].scaled : &s->points[r].unscaled,
					   values);
			fprintf(out, ",\n      \"%s\": { ", side == 0 ? "scaled" : "unscaled");
			for (int c = 0; c < 4; c++) {
				fprintf(out, "%s\"%s\": ", c > 0 ? ", " : "", print_sweep_keys[c]);
				json_write_number(out, values[c], JSON_17G);
			}
			fputs(" }", out);
		}
		fputs(" }", out);
	}
	fputs("\n  ]\n}\n", out);
	return 0;
}

/* One row of --cost's object per algorithm measured (extrapolated: no runs). */
static void json_cost_rows(FILE *out, const struct qkv_cost *c, const struct qkv_cost_row *row, bool *first)
{
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
		const struct qkv_cost_time *t = &row->time[a];

		if (!qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
			continue;
		fprintf(out, "%s\n  {\"n\": %d, \"algorithm\": \"%s\", \"entries\": %lld, ", *first ? "" : ",",
			row->n, qkv_cost_algorithm_name((enum qkv_cost_algorithm)a), (long long)row->entries);
		/* S, S' and A in double and in 16-bit: what the standard algorithm keeps. */
		if (a == QKV_COST_STANDARD)
			fprintf(out, "\"bytes_f64\": %lld, \"bytes_f16\": %lld, ", (long long)row->bytes_f64,
				(long long)row->bytes_f16);
		fprintf(out, "\"flops\": %lld, \"bytes\": %lld, \"ms\": ", (long long)row->flops,
			(long long)t->bytes);
		json_write_number(out, t->ms, JSON_SHORTEST);
		fputs(", \"ms_min\": ", out);
		json_write_number(out, t->ms_min, JSON_SHORTEST);
		fputs(", \"ms_max\": ", out);
		json_write_number(out, t->ms_max, JSON_SHORTEST);
		if (t->runs > 0)
			fprintf(out, ", \"runs\": %d", t->runs);
		fputc('}', out);
		*first = false;
	}
}

/* --cost's object: d_k, h, the algorithms' measured rows, their slopes, the peak
 * resident memory, the extrapolations. */
static void json_cost(FILE *out, const struct qkv_cost *c)
{
	bool first = true;

	fprintf(out, "{\"d_k\": %d, \"h\": %d, \"tile\": %d, \"rows\": [", c->d_k, c->heads, QKV_COST_TILE);
	for (int i = 0; i < c->count; i++)
		json_cost_rows(out, c, &c->rows[i], &first);
	fputs("],\n \"slopes\": {", out);
	first = true;
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
		enum qkv_cost_algorithm algorithm = (enum qkv_cost_algorithm)a;

		if (!qkv_cost_measures(c, algorithm))
			continue;
		fprintf(out, "%s\"%s\": {\"ms\": ", first ? "" : ", ", qkv_cost_algorithm_name(algorithm));
		json_write_number(out, qkv_cost_slope(c, algorithm, NULL), JSON_SHORTEST);
		fputs(", \"bytes\": ", out);
		json_write_number(out, qkv_cost_bytes_slope(c, algorithm), JSON_SHORTEST);
		fputc('}', out);
		first = false;
	}
	fputs("},\n \"peak_resident_bytes\": ", out);
	if (c->peak_resident_bytes > 0)
		fprintf(out, "%lld", (long long)c->peak_resident_bytes);
	else
		fputs("null", out);
	fputs(",\n \"extrapolated\": [", out);
	first = true;
	for (int e = 0; e < COST_EXTRAPOLATED; e++) {
		struct qkv_cost_row row;

		qkv_cost_extrapolate(c, print_cost_extrapolated_n[e], &row);
		json_cost_rows(out, c, &row, &first);
	}
	fputs("]}\n", out);
}

/* --- training --------------------------------------------------------------- */


/* A matrix on one line, as rows of numbers. */
static void json_row_matrix(FILE *out, const struct qkv_matrix *m)
{
	fputc('[', out);
	for (int r = 0; r < m->rows; r++) {
		fputs(r > 0 ? ", [" : "[", out);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", out);
			number17(out, qkv_matrix_get(m, r, c));
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
		json_row_matrix(out, w[k]);
		fputs(k + 1 < QKV_WEIGHT_COUNT ? ",\n" : "", out);
	}
}

/* A training run's object (print_train.h lists its keys). */
static void json_train_run(FILE *out, const struct qkv_train *t)
{
	const struct qkv_train_config *c = &t->config;
	const struct qkv_trace *now = &t->now.trace;
	const struct qkv_matrix *initial[QKV_WEIGHT_COUNT], *final[QKV_WEIGHT_COUNT];

	for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
		initial[k] = &t->initial[k];
		final[k] = qkv_train_weight(t, (enum qkv_weight)k);
	}
	/* "format" names this object's layout; with "learn", "scaled" and "budget" the
	 * file holds every option of the run, so it can be replayed from itself. */
	fprintf(out, "{\n  \"format\": \"qkv-train-run 1\",\n  \"task\": \"%s\",\n  \"n\": %d,\n"
		     "  \"d_model\": %d,\n  \"d_k\": %d,\n  \"d_v\": %d,\n  \"scaled\": %s,\n  \"learn\": [",
		qkv_task_name(c->task), c->tokens, c->d_model, c->d_k, t->target.cols,
		c->scaled ? "true" : "false");
	for (int k = 0, first = 1; k < QKV_WEIGHT_COUNT; k++)
		if (c->learn & (1u << k)) {
			fprintf(out, "%s\"%s\"", first ? "" : ", ", qkv_weight_name((enum qkv_weight)k));
			first = 0;
		}
	fprintf(out, "],\n  \"budget\": %d,\n  \"divisor\": ", c->steps);
	number17(out, now->divisor);
	fprintf(out, ",\n  \"loss\": \"%s\",\n  \"optimizer\": \"%s\",\n  \"lr\": ",
		qkv_loss_name(c->loss), qkv_optimizer_name(c->optimizer));
	number17(out, c->lr);
	fprintf(out, ",\n  \"seed\": %llu,\n  \"X\": ", (unsigned long long)c->seed);
	json_row_matrix(out, &t->problem.x);
	fputs(",\n  \"target\": ", out);
	json_row_matrix(out, &t->target);
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
		number17(out, r->loss);
		fputs(", \"accuracy\": ", out);
		number17(out, r->accuracy);
		fputs(", \"grad_norm\": {", out);
		for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
			fprintf(out, "%s\"%s\": ", k > 0 ? ", " : "", qkv_weight_name((enum qkv_weight)k));
			number17(out, r->grad_norm[k]);
		}
		fputs("}, \"jacobian_norm\": ", out);
		number17(out, r->jacobian_norm);
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
	json_row_matrix(out, &now->weights);
	fputs("\n  }\n}\n", out);
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
			number17(out, side == 0 ? p->scaled_median : p->unscaled_median);
			fprintf(out, ", \"censored\": %s, \"reached\": %d, \"steps_to_90\": [",
				qkv_train_median_censored(side == 0 ? p->scaled_reached : p->unscaled_reached,
							  seeds) ? "true" : "false",
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
			number17(out, gap);
		else
			fputs("null", out);
		fprintf(out, ", \"gap_is_lower_bound\": %s}%s\n", at_least ? "true" : "false",
			k + 1 < QKV_TRAIN_SWEEP_POINTS ? "," : "");
	}
	fputs("  ]", out);
}

/* A training sweep's object: the settings, the rows, the baseline's rows when
 * there is one, the verdict. */
static void json_train_sweep(FILE *out, const struct train_sweep_report *s)
{
	const struct qkv_train_config *c = s->c;

	fprintf(out, "{\n  \"task\": \"%s\",\n  \"loss\": \"%s\",\n  \"optimizer\": \"%s\",\n"
		     "  \"lr\": ", qkv_task_name(c->task), qkv_loss_name(c->loss),
		qkv_optimizer_name(c->optimizer));
	number17(out, c->lr);
	fprintf(out, ",\n  \"n\": %d,\n  \"d_model\": %d,\n  \"budget\": %d,\n  \"seed\": %llu,\n"
		     "  \"seeds\": %d,\n  \"rows\": ", c->tokens, c->d_model, c->steps,
		(unsigned long long)c->seed, s->seeds);
	sweep_rows_json(out, s->points, s->seeds, c->steps);
	if (s->baseline != NULL) {
		fputs(",\n  \"baseline\": {\"loss\": \"mse\", \"optimizer\": \"sgd\", \"lr\": ", out);
		number17(out, qkv_train_default_lr(QKV_LOSS_MSE, QKV_OPTIMIZER_SGD));
		fputs(", \"rows\": ", out);
		sweep_rows_json(out, s->baseline, s->seeds, c->steps);
		fputs("}", out);
	}
	fputs(",\n  \"verdict\": ", out);
	json_write_string(out, s->verdict);
	fputs("\n}\n", out);
}

/* --- multi-head reports ------------------------------------------------------- */

/* One head in "heads": its projections, its trace, its statistics. */
static void json_head(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t, int i,
		      bool last)
{
	const char *in = "      ";

	fputs("    {\n", out);
	json_matrix_at(out, in, "W_Q", &p->heads[i].w_q, NULL, false);
	json_matrix_at(out, in, "W_K", &p->heads[i].w_k, NULL, false);
	json_matrix_at(out, in, "W_V", &p->heads[i].w_v, NULL, false);
	json_matrix_at(out, in, "Q", &t->q, NULL, false);
	json_matrix_at(out, in, "K", &t->k, NULL, false);
	json_matrix_at(out, in, "V", &t->v, NULL, false);
	json_matrix_at(out, in, "scores", &t->scores, t, false);
	json_matrix_at(out, in, "scaled", &t->scaled, t, false);
	json_matrix_at(out, in, "weights", &t->weights, NULL, false);
	json_matrix_at(out, in, "output", &t->output, NULL, false);
	json_stats(out, in, t);
	fprintf(out, "    }%s\n", last ? "" : ",");
}

/* The multi-head object: {"title", "tokens", "n", "h", "d_model", "d_k", "d_v",
 * "divisor", "scale", "temperature", "mask", "X", "heads": [...], "concat",
 * "W_O", "output"}. */
static void json_heads(const struct heads_report *h)
{
	const struct qkv_problem *p = h->p;
	const struct qkv_heads_trace *t = h->t;
	const struct qkv_trace *first = &t->head[0];
	FILE *out = h->out;

	fputs("{\n  \"title\": ", out);
	json_write_string(out, p->title);
	json_labels(out, p);
	fprintf(out, "\n  \"n\": %d,\n  \"h\": %d,\n  \"d_model\": %d,\n  \"d_k\": %d,\n"
		     "  \"d_v\": %d,\n  \"divisor\": ", t->n, t->h, t->d_model, first->d_k, t->d_v);
	number17(out, first->divisor);
	fputs(",\n  \"scale\": ", out);
	if (p->scale == QKV_SCALE_CUSTOM)
		number17(out, p->scale_value);
	else
		json_write_string(out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	fputs(",\n  \"temperature\": ", out);
	number17(out, p->temperature);
	fprintf(out, ",\n  \"mask\": \"%s\",\n", qkv_mask_name(p->mask));
	json_matrix_at(out, "  ", "X", &p->x, NULL, false);
	if (qkv_problem_is_cross(p))
		json_matrix_at(out, "  ", "X_q", &p->x_q, NULL, false);
	fputs("  \"heads\": [\n", out);
	for (int i = 0; i < t->h && !ferror(out); i++)
		json_head(out, p, &t->head[i], i, i == t->h - 1);
	fputs("  ],\n", out);
	json_matrix_at(out, "  ", "concat", &t->concat, NULL, false);
	json_matrix_at(out, "  ", "W_O", &p->w_o, NULL, false);
	json_matrix_at(out, "  ", "output", &t->output, NULL, true);
	fputs("}\n", out);
}

const struct print_backend print_json_backend = {
	.name = "json",
	.trace = json_trace,
	.sweep = json_sweep,
	.cost = json_cost,
	.train_run = json_train_run,
	.train_sweep = json_train_sweep,
	.heads = json_heads,
	.online = json_online,
	.geometry = print_geometry_json,
};
