/* print_cost.c — `qkv --cost`: the cost table in text, Markdown, CSV and JSON.
 * Every number is read from the measured table or its formulas (qkv/cost.h); the
 * sentences are built from those numbers. The monotonic clock the core needs
 * lives here, at the edge. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "io/json_write.h"
#include "io/print_cost.h"
#include "qkv/error.h"
#include "qkv/format.h"

#define WORDS_SIZE 512
static const int extrapolated_n[] = { 10000, 100000 };
#define EXTRAPOLATED_COUNT 2

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

/* A time in milliseconds to four significant digits. */
static void milliseconds(char *buf, size_t size, double ms)
{
	snprintf(buf, size, "%.4g ms", ms);
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

static void cost_text(FILE *out, const struct qkv_cost *c, bool markdown)
{
	char entries[32], f64[32], f16[32], flops[32], ms[32], words[WORDS_SIZE];
	double slope = qkv_cost_slope(c, NULL);

	if (markdown)
		fprintf(out, "## The price of n²\n\n");
	fprintf(out, "%s%d head%s of d_k = d_v = %d, the trace measured on this machine.\n"
		     "Bytes: S, S' and A, the n × n matrices; flops: 2n²d_k + 2n²d_v + %dn² per head.\n\n",
		markdown ? "" : "The price of n²: ", c->heads, c->heads == 1 ? "" : "s", c->d_k,
		QKV_COST_SOFTMAX_FLOPS);
	if (markdown)
		fprintf(out, "| n | scores | S, S', A in double | in 16-bit | flops | time |\n"
			     "|---:|---:|---:|---:|---:|---:|\n");
	else
		fprintf(out, "%6s %14s %12s %12s %18s %12s\n", "n", "scores", "double", "16-bit",
			"flops", "time");
	for (int i = 0; i < c->count; i++) {
		const struct qkv_cost_row *row = &c->rows[i];

		qkv_format_grouped(entries, sizeof entries, (long long)row->entries);
		qkv_cost_bytes_words(f64, sizeof f64, (double)row->bytes_f64);
		qkv_cost_bytes_words(f16, sizeof f16, (double)row->bytes_f16);
		qkv_format_grouped(flops, sizeof flops, (long long)row->flops);
		milliseconds(ms, sizeof ms, row->ms);
		if (markdown)
			fprintf(out, "| %d | %s | %s | %s | %s | %s |\n", row->n, entries, f64, f16, flops, ms);
		else
			fprintf(out, "%6d %14s %12s %12s %18s %12s\n", row->n, entries, f64, f16, flops, ms);
	}
	slope_words(words, sizeof words, slope);
	fprintf(out, "\n%s\n", words);
	for (int e = 0; e < EXTRAPOLATED_COUNT; e++) {
		qkv_cost_words(words, sizeof words, c, extrapolated_n[e]);
		fprintf(out, "%s%s\n", markdown ? "\n" : "", words);
	}
	if (c->heads > 1) {
		heads_words(words, sizeof words, c);
		fprintf(out, "\n%s\n", words);
	}
}

/* A double for CSV: reads back exactly; NaN and ∞ as an empty field. */
static void exact(FILE *out, double value)
{
	char number[40];

	if (!isfinite(value))
		return;
	qkv_format_exact(number, sizeof number, value);
	fputs(number, out);
}

static void cost_csv(FILE *out, const struct qkv_cost *c)
{
	fputs("kind,n,entries,bytes_f64,bytes_f16,flops,ms\n", out);
	for (int i = 0; i < c->count + EXTRAPOLATED_COUNT; i++) {
		struct qkv_cost_row row;

		if (i < c->count)
			row = c->rows[i];
		else
			qkv_cost_extrapolate(c, extrapolated_n[i - c->count], &row);
		fprintf(out, "%s,%d,%lld,%lld,%lld,%lld,", i < c->count ? "measured" : "extrapolated",
			row.n, (long long)row.entries, (long long)row.bytes_f64,
			(long long)row.bytes_f16, (long long)row.flops);
		exact(out, row.ms);
		fputc('\n', out);
	}
}

static void cost_json(FILE *out, const struct qkv_cost *c)
{
	fprintf(out, "{\"d_k\": %d, \"h\": %d, \"rows\": [", c->d_k, c->heads);
	for (int i = 0; i < c->count; i++) {
		const struct qkv_cost_row *row = &c->rows[i];

		fprintf(out, "%s\n  {\"n\": %d, \"entries\": %lld, \"bytes_f64\": %lld, \"bytes_f16\": %lld, "
			     "\"flops\": %lld, \"ms\": ",
			i == 0 ? "" : ",", row->n, (long long)row->entries, (long long)row->bytes_f64,
			(long long)row->bytes_f16, (long long)row->flops);
		json_write_number(out, row->ms, JSON_SHORTEST);
		fputc('}', out);
	}
	fputs("],\n \"slope\": ", out);
	json_write_number(out, qkv_cost_slope(c, NULL), JSON_SHORTEST);
	fputs(",\n \"extrapolated\": [", out);
	for (int e = 0; e < EXTRAPOLATED_COUNT; e++) {
		struct qkv_cost_row row;

		qkv_cost_extrapolate(c, extrapolated_n[e], &row);
		fprintf(out, "%s\n  {\"n\": %d, \"entries\": %lld, \"bytes_f64\": %lld, \"ms\": ",
			e == 0 ? "" : ",", row.n, (long long)row.entries, (long long)row.bytes_f64);
		json_write_number(out, row.ms, JSON_SHORTEST);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

int print_cost(FILE *out, const struct qkv_cost *c, enum print_format format)
{
	switch (format) {
	case PRINT_TEXT:
		cost_text(out, c, false);
		break;
	case PRINT_MARKDOWN:
		cost_text(out, c, true);
		break;
	case PRINT_CSV:
		cost_csv(out, c);
		break;
	case PRINT_JSON:
		cost_json(out, c);
		break;
	case PRINT_LATEX:
	default:
		return -1;
	}
	return ferror(out) ? -1 : 0;
}
