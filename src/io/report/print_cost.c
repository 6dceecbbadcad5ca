/* print_cost.c — `qkv --cost`: measuring the cost table, and what its formats
 * share (the cells for people, the sentences); each format's layout is its
 * backend's `cost` (print_<format>.c). Every number is read from the measured
 * table or its formulas (qkv/cost.h); the sentences are built from those
 * numbers. The monotonic clock the core needs lives here, at the edge. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "io/report/print_cost.h"
#include "io/report/print_model.h"
#include "qkv/error.h"
#include "qkv/format.h"

#define WORDS_SIZE 768
const int print_cost_extrapolated_n[COST_EXTRAPOLATED] = { 10000, 100000 };
const char *const print_cost_bytes_heading[QKV_COST_ALGORITHMS] = { "standard bytes", "online bytes" };
const char *const print_cost_time_heading[QKV_COST_ALGORITHMS] = { "standard ms (min–max)",
								   "online ms (min–max)" };

static double monotonic_ms(void *context)
{
	struct timespec now;

	(void)context;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* The process's peak resident memory in bytes (Linux counts ru_maxrss in KiB);
 * 0 when it cannot be read. */
static int64_t peak_resident_bytes(void)
{
	struct rusage usage;

	if (getrusage(RUSAGE_SELF, &usage) != 0)
		return 0;
	return (int64_t)usage.ru_maxrss * 1024;
}

int print_cost_measure(struct qkv_cost *c, int d_k, int heads, double budget_ms, unsigned algorithms)
{
	int rc = qkv_cost_init(c, d_k, heads, QKV_COST_MAX_N, budget_ms, algorithms);

	if (rc == 0)
		rc = qkv_cost_run(c, monotonic_ms, NULL);
	c->peak_resident_bytes = peak_resident_bytes();
	return rc == QKV_ENOMEM && c->count > 0 ? 0 : rc;
}

/* The decimals that show `value` (> 0) to `wanted` significant digits: none from
 * 10^wanted up (never an exponent). */
static int decimals_for(double value, int wanted)
{
	int before = (int)floor(log10(value)) + 1;

	return before >= wanted ? 0 : wanted - before;
}

/* value at `decimals` places, rounded down (way < 0), up (way > 0) or to the
 * nearest, its trailing zeros (and a point left alone) dropped. */
static void time_text(char *buf, size_t size, double value, int decimals, int way)
{
	double scale = pow(10.0, decimals);
	size_t length;

	if (way < 0)
		value = floor(value * scale) / scale;
	else if (way > 0)
		value = ceil(value * scale) / scale;
	qkv_format_number(buf, size, value, decimals);
	length = strlen(buf);
	if (strchr(buf, '.') == NULL)
		return;
	while (length > 0 && buf[length - 1] == '0')
		buf[--length] = '\0';
	if (length > 0 && buf[length - 1] == '.')
		buf[--length] = '\0';
}

void print_cost_cells(const struct qkv_cost_row *row, struct cost_cells *cells)
{
	qkv_format_grouped(cells->entries, sizeof cells->entries, (long long)row->entries);
	qkv_cost_bytes_words(cells->f64, sizeof cells->f64, (double)row->bytes_f64);
	qkv_cost_bytes_words(cells->f16, sizeof cells->f16, (double)row->bytes_f16);
	qkv_format_grouped(cells->flops, sizeof cells->flops, (long long)row->flops);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
		const struct qkv_cost_time *t = &row->time[a];
		char ms[32], low[32], high[32];

		if (!(t->ms > 0.0)) {
			snprintf(cells->bytes[a], sizeof cells->bytes[a], "—");
			snprintf(cells->ms[a], sizeof cells->ms[a], "—");
			continue;
		}
		qkv_cost_bytes_words(cells->bytes[a], sizeof cells->bytes[a], (double)t->bytes);
		/* The median to four significant digits; the fastest run rounded
		 * down and the slowest up to three, so that the range holds every run
		 * and the median as shown (a fastest run never reads above the
		 * median); trailing zeros dropped, never an exponent. */
		time_text(ms, sizeof ms, t->ms, decimals_for(t->ms, 4), 0);
		time_text(low, sizeof low, t->ms_min, decimals_for(t->ms_min, 3), -1);
		time_text(high, sizeof high, t->ms_max, decimals_for(t->ms_max, 3), 1);
		snprintf(cells->ms[a], sizeof cells->ms[a], "%s (%s–%s)", ms, low, high);
	}
}

void print_cost_intro(FILE *out, const struct qkv_cost *c, const char *lead)
{
	bool both = qkv_cost_measures(c, QKV_COST_STANDARD) && qkv_cost_measures(c, QKV_COST_ONLINE);

	fprintf(out, "%s%d head%s of d_k = d_v = %d, measured on this machine: %s.\n", lead, c->heads,
		c->heads == 1 ? "" : "s", c->d_k,
		both ? "the standard algorithm, which holds S, S' and A, and the online softmax (tiles of "
		       QKV_COST_TILE_TEXT " keys), which never forms them"
		: qkv_cost_measures(c, QKV_COST_ONLINE) ? "the online softmax (tiles of " QKV_COST_TILE_TEXT
							   " keys), which never forms S, S' or A"
							 : "the standard algorithm, which holds S, S' and A");
	fprintf(out, "Bytes held, counted from the storage: the standard's Q, K, V, Kᵀ, O, S, S' and A; the "
		     "online's Q, K, V, O and its blocks. Flops: 2n²d_k + 2n²d_v + %dn² per head. Times: the "
		     "median run, and the fastest and the slowest.\n\n", QKV_COST_SOFTMAX_FLOPS);
}

/* The sentence on the slopes: what the fits say, from their own numbers. */
static void slope_words(char *buf, size_t size, const struct qkv_cost *c)
{
	size_t used;
	bool any = false;

	used = (size_t)snprintf(buf, size, "Slopes on log–log axes (least squares, n >= %d):", QKV_COST_FIT_FROM_N);
	for (int a = 0; a < QKV_COST_ALGORITHMS && used < size; a++) {
		enum qkv_cost_algorithm algorithm = (enum qkv_cost_algorithm)a;
		double time = qkv_cost_slope(c, algorithm, NULL), bytes = qkv_cost_bytes_slope(c, algorithm);

		if (!qkv_cost_measures(c, algorithm) || !isfinite(time))
			continue;
		used += (size_t)snprintf(buf + used, size - used,
					 "%s the %s algorithm's time grows as n^%.2f and its bytes held as n^%.2f",
					 any ? ";" : "", qkv_cost_algorithm_name(algorithm), time, bytes);
		any = true;
	}
	if (!any)
		snprintf(buf, size, "Too few sizes were measured to fit a slope.");
	else if (used < size)
		snprintf(buf + used, size - used, "; the scores grow as n² exactly.");
}

/* The peak resident memory against the bytes the largest computation held. */
static void memory_words(char *buf, size_t size, const struct qkv_cost *c)
{
	char peak[32], held[32], at[32];
	int64_t largest = 0;
	int n = 0, algorithm = 0;

	for (int i = 0; i < c->count; i++)
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
			if (c->rows[i].time[a].ms > 0.0 && c->rows[i].time[a].bytes > largest) {
				largest = c->rows[i].time[a].bytes;
				n = c->rows[i].n;
				algorithm = a;
			}
	buf[0] = '\0';
	if (c->peak_resident_bytes <= 0 || largest == 0)
		return;
	qkv_cost_bytes_words(peak, sizeof peak, (double)c->peak_resident_bytes);
	qkv_cost_bytes_words(held, sizeof held, (double)largest);
	qkv_format_grouped(at, sizeof at, n);
	snprintf(buf, size, "This process's peak resident memory: %s; the most any computation held: %s (%s, "
			    "n = %s).", peak, held, qkv_cost_algorithm_name((enum qkv_cost_algorithm)algorithm), at);
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

	slope_words(words, sizeof words, c);
	fprintf(out, "\n%s\n", words);
	memory_words(words, sizeof words, c);
	if (words[0] != '\0')
		fprintf(out, "%s%s\n", before, words);
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
