/* print_json.c — the printer's JSON format: docs/DESIGN.md's trace object and
 * sweep object, key for key, every number reading back to the same double. */
#include <stdlib.h>
#include <string.h>

#include "io/json_write.h"
#include "io/print_model.h"

static void number(struct printer *pr, double value)
{
	json_write_number(pr->out, value, JSON_17G);
}

/* A matrix as a JSON array of rows (masked entries null when show_masked). Each
 * row is made in memory and written at once: a trace is tens of thousands of
 * numbers, and a stdio call per number and separator costs more than the digits. */
static void json_matrix(struct printer *pr, const char *key, const struct qkv_matrix *m,
			bool show_masked)
{
	/* Per number: at most 24 characters and ", "; then "\n    [" and "]". */
	size_t size = (size_t)m->cols * 26 + 16;
	char *row = malloc(size);

	if (row == NULL) {
		pr->out_of_memory = true;
		return;
	}
	fprintf(pr->out, "  \"%s\": [", key);
	for (int r = 0; r < m->rows && !print_stopped(pr); r++) {
		size_t used = 0;

		memcpy(row, r > 0 ? ",\n    [" : "\n    [", r > 0 ? 7 : 6);
		used = r > 0 ? 7 : 6;
		for (int c = 0; c < m->cols; c++) {
			if (c > 0) {
				row[used++] = ',';
				row[used++] = ' ';
			}
			if (show_masked && qkv_trace_is_masked(pr->t, r, c)) {
				memcpy(row + used, "null", 4);
				used += 4;
			} else {
				used += (size_t)json_number_text(row + used, size - used, qkv_matrix_get(m, r, c),
								 JSON_17G);
			}
		}
		row[used++] = ']';
		fwrite(row, 1, used, pr->out);
	}
	free(row);
	fputs("\n  ],\n", pr->out);
}

/* The mask as a problem file writes it: a name, or the custom boolean matrix. */
static void json_mask(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	int n = pr->t->n;

	if (p->mask != QKV_MASK_CUSTOM || p->mask_bits == NULL) {
		fprintf(pr->out, ",\n  \"mask\": \"%s\",\n", qkv_mask_name(p->mask));
		return;
	}
	fputs(",\n  \"mask\": [", pr->out);
	for (int i = 0; i < n; i++) {
		fputs(i > 0 ? ", [" : "[", pr->out);
		for (int j = 0; j < n; j++)
			fprintf(pr->out, "%s%s", j > 0 ? ", " : "",
				p->mask_bits[(size_t)i * (size_t)n + (size_t)j] ? "true" : "false");
		fputc(']', pr->out);
	}
	fputs("],\n", pr->out);
}

/* The trace object, plus "scale" and "temperature" (and "padding" and "wrong"
 * when there are any). */
static int json_trace(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	const struct qkv_trace *t = pr->t;

	fputs("{\n  \"title\": ", pr->out);
	json_write_string(pr->out, p->title);
	fputs(",\n  \"tokens\": [", pr->out);
	for (int i = 0; i < t->n; i++) {
		if (i > 0)
			fputs(", ", pr->out);
		json_write_string(pr->out, p->tokens[i]);
	}
	fprintf(pr->out, "],\n  \"n\": %d,\n  \"d_k\": %d,\n  \"d_v\": %d,\n  \"divisor\": ",
		t->n, t->d_k, t->d_v);
	number(pr, t->divisor);
	fputs(",\n  \"scale\": ", pr->out);
	if (p->scale == QKV_SCALE_CUSTOM)
		number(pr, p->scale_value);
	else
		json_write_string(pr->out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	fputs(",\n  \"temperature\": ", pr->out);
	number(pr, p->temperature);
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
	json_matrix(pr, "Q", &t->q, false);
	json_matrix(pr, "K", &t->k, false);
	json_matrix(pr, "V", &t->v, false);
	json_matrix(pr, "scores", &t->scores, true);
	json_matrix(pr, "scaled", &t->scaled, true);
	json_matrix(pr, "weights", &t->weights, false);
	json_matrix(pr, "output", &t->output, false);
	fputs("  \"stats\": {\n    \"score_variance\": ", pr->out);
	number(pr, t->score_variance);
	fputs(",\n    \"rows\": [", pr->out);
	for (int r = 0; r < t->n && !print_stopped(pr); r++) {
		const struct qkv_row_stats *s = &t->rows[r];

		fputs(r > 0 ? ",\n      {" : "\n      {", pr->out);
		fputs("\"max_weight\": ", pr->out);
		number(pr, s->max_weight);
		fputs(", \"entropy\": ", pr->out);
		number(pr, s->entropy);
		fputs(", \"effective_tokens\": ", pr->out);
		number(pr, s->effective_tokens);
		fputs(", \"jacobian_norm\": ", pr->out);
		number(pr, s->jacobian_norm);
		fputc('}', pr->out);
	}
	fputs("\n    ]\n  }\n}\n", pr->out);
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

const struct print_backend print_json_backend = {
	.name = "json",
	.trace = json_trace,
	.sweep = json_sweep,
};
