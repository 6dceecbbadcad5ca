/* print_cost.c — `qkv --cost`: measuring the cost table, and what its formats
 * share (the cells for people, the sentences); each format's layout is its
 * backend's `cost` (print_<format>.c). Every number is read from the measured
 * table or its formulas (qkv/cost.h); the sentences are built from those
 * numbers. The monotonic clock the core needs lives here, at the edge. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "io/report/print_cost.h"
#include "io/report/print_model.h"
#include "qkv/error.h"
#include "qkv/format.h"

#define WORDS_SIZE 512
const int print_cost_extrapolated_n[COST_EXTRAPOLATED] = { 10000, 100000 };

static double monotonic_ms(void *context)
{
	struct timespec now;

	(void)context;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

int print_cost_measure(struct qkv_cost *c, int d_k, int heads, double budget_ms)
{
	int rc = qkv_cost_init(c, d_k, heads, QKV_COST_MAX_N, budget_ms);

	if (rc == 0)
		rc = qkv_cost_run(c, monotonic_ms, NULL);
	return rc == QKV_ENOMEM && c->count > 0 ? 0 : rc;
}

void print_cost_cells(const struct qkv_cost_row *row, struct cost_cells *cells)
{
	qkv_format_grouped(cells->entries, sizeof cells->entries, (long long)row->entries);
	qkv_cost_bytes_words(cells->f64, sizeof cells->f64, (double)row->bytes_f64);
	qkv_cost_bytes_words(cells->f16, sizeof cells->f16, (double)row->bytes_f16);
	qkv_format_grouped(cells->flops, sizeof cells->flops, (long long)row->flops);
	/* A time in milliseconds to four significant digits. */
	snprintf(cells->ms, sizeof cells->ms, "%.4g ms", row->ms);
}

void print_cost_intro(FILE *out, const struct qkv_cost *c, const char *lead)
{
	fprintf(out, "%s%d head%s of d_k = d_v = %d, the trace measured on this machine.\n"
		     "Bytes: S, S' and A, the n × n matrices; flops: 2n²d_k + 2n²d_v + %dn² per head.\n\n",
		lead, c->heads, c->heads == 1 ? "" : "s", c->d_k, QKV_COST_SOFTMAX_FLOPS);
}

/* The sentence on the slope: what the fit says, from its own number. */
static void slope_words(char *buf, size_t size, double slope)
{
	if (!isfinite(slope))
		snprintf(buf, size, "Too few sizes were measured to fit a slope.");
	else
		snprintf(buf, size,
			 "Slope of log time against log n (least squares, n >= %d): %.2f, so the time "
			 "grows about as n^%.2f; the scores and the bytes grow as n² exactly.",
			 QKV_COST_FIT_FROM_N, slope, slope);
}

/* With h heads: the layer against one head of the full width d_model = h·d_k. */
static void heads_words(char *buf, size_t size, const struct qkv_cost *c)
{
	int d_model = c->heads * c->d_k;

	snprintf(buf, size,
		 "%d heads of d_k = %d against one head of d_k = %d (d_model = %d), per layer: the "
		 "same 4n²·%d flops in Q Kᵀ and A V, but %d times the scores (%dn² against n²), "
		 "their bytes and the softmax's %dn² flops (against 5n²).",
		 c->heads, c->d_k, d_model, d_model, d_model, c->heads, c->heads,
		 QKV_COST_SOFTMAX_FLOPS * c->heads);
}

void print_cost_closing(FILE *out, const struct qkv_cost *c, const char *before)
{
	char words[WORDS_SIZE];

	slope_words(words, sizeof words, qkv_cost_slope(c, NULL));
	fprintf(out, "\n%s\n", words);
	for (int e = 0; e < COST_EXTRAPOLATED; e++) {
		qkv_cost_words(words, sizeof words, c, print_cost_extrapolated_n[e]);
		fprintf(out, "%s%s\n", before, words);
	}
	if (c->heads > 1) {
		heads_words(words, sizeof words, c);
		fprintf(out, "\n%s\n", words);
	}
}

int print_cost(FILE *out, const struct qkv_cost *c, enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	if (be == NULL || be->cost == NULL)
		return -1;
	be->cost(out, c);
	return ferror(out) ? -1 : 0;
}
