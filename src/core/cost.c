/* cost.c — the price of n²: counts from their formulas, times measured on a
 * one-head computation done directly, a band of queries at a time, in slices of
 * a caller's clock — the standard trace and the online softmax's block form at
 * each n — and log–log least-squares slopes with their extrapolation.
 * Never prints and never reads a clock of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/cost.h"
#include "qkv/error.h"
#include "qkv/format.h"
#include "qkv/rng.h"

#define COST_SEED 1
#define COST_MIN_RUNS 3        /* each n and algorithm: at least this many runs (a median
				  and a spread), and more until this much has been measured */
#define COST_MIN_RUN_MS 20.0
#define COST_BATCH_FLOPS 2e6   /* work between two readings of the clock */
#define COST_MIN_BATCH 64      /* but at least this many queries (a cache band) */

static bool power_of_two(int n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

/* The algorithm measured first at each n, and the one after a given one (-1: none). */
static int next_algorithm(const struct qkv_cost *c, int after)
{
	static const enum qkv_cost_algorithm order[QKV_COST_ALGORITHMS] = { QKV_COST_ONLINE, QKV_COST_STANDARD };
	int start = 0;

	for (int k = 0; k < QKV_COST_ALGORITHMS && after >= 0; k++)
		if ((int)order[k] == after)
			start = k + 1;
	for (int k = start; k < QKV_COST_ALGORITHMS; k++)
		if (qkv_cost_measures(c, order[k]))
			return (int)order[k];
	return -1;
}

bool qkv_cost_measures(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm)
{
	return (c->algorithms & QKV_COST_MEASURE(algorithm)) != 0;
}

const char *qkv_cost_algorithm_name(enum qkv_cost_algorithm algorithm)
{
	return algorithm == QKV_COST_ONLINE ? "online" : "standard";
}

int qkv_cost_init(struct qkv_cost *c, int d_k, int heads, int last_n, double budget_ms, unsigned algorithms)
{
	memset(c, 0, sizeof *c);
	qkv_matrix_init(&c->q);
	qkv_matrix_init(&c->k);
	qkv_matrix_init(&c->k_t);
	qkv_matrix_init(&c->v);
	qkv_matrix_init(&c->scores);
	qkv_matrix_init(&c->scaled);
	qkv_matrix_init(&c->weights);
	qkv_matrix_init(&c->output);
	memset(&c->blocks, 0, sizeof c->blocks);
	qkv_matrix_init(&c->blocks.q_block);
	qkv_matrix_init(&c->blocks.k_tile);
	qkv_matrix_init(&c->blocks.v_tile);
	qkv_matrix_init(&c->blocks.scores);
	qkv_matrix_init(&c->blocks.part);
	if (d_k < 1 || d_k > QKV_MAX_DIM || heads < 1 || heads > QKV_COST_MAX_HEADS ||
	    !power_of_two(last_n) || last_n < QKV_COST_FIRST_N || last_n > QKV_COST_MAX_N ||
	    !(budget_ms > 0.0) || algorithms == 0 || (algorithms & ~QKV_COST_BOTH) != 0)
		return QKV_EINVAL;
	c->algorithms = algorithms;
	c->algorithm = (enum qkv_cost_algorithm)next_algorithm(c, -1);
	c->d_k = d_k;
	c->heads = heads;
	c->last_n = last_n;
	c->budget_ms = budget_ms;
	c->n = QKV_COST_FIRST_N;
	return 0;
}

static void release(struct qkv_cost *c)
{
	qkv_matrix_fini(&c->q);
	qkv_matrix_fini(&c->k);
	qkv_matrix_fini(&c->k_t);
	qkv_matrix_fini(&c->v);
	qkv_matrix_fini(&c->scores);
	qkv_matrix_fini(&c->scaled);
	qkv_matrix_fini(&c->weights);
	qkv_matrix_fini(&c->output);
	qkv_online_blocks_fini(&c->blocks);
	c->prepared = false;
}

void qkv_cost_fini(struct qkv_cost *c)
{
	release(c);
}

void qkv_cost_row_of(int n, int d_k, int heads, struct qkv_cost_row *row)
{
	int64_t square = (int64_t)n * (int64_t)n, h = heads;

	row->n = n;
	row->entries = h * square;
	row->bytes_f64 = h * QKV_COST_SQUARES * square * 8;
	row->bytes_f16 = h * QKV_COST_SQUARES * square * 2;
	/* d_v = d_k: 2n²d_k for Q Kᵀ, 2n²d_v for A V, 5n² for scaling and softmax. */
	row->flops = h * (2 * square * d_k + 2 * square * d_k + QKV_COST_SOFTMAX_FLOPS * square);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
		row->time[a] = (struct qkv_cost_time){ NAN, NAN, NAN, 0, 0 };
	/* Standard: Q, K, V, Kᵀ and O (n × d_k each, d_v = d_k), S, S' and A. */
	row->time[QKV_COST_STANDARD].bytes = h * 8 * (5 * (int64_t)n * d_k + QKV_COST_SQUARES * square);
	/* Online: Q, K, V and O, and the blocks' storage for tiles of at most n keys. */
	row->time[QKV_COST_ONLINE].bytes =
		h * (8 * 4 * (int64_t)n * d_k +
		     (int64_t)qkv_online_blocks_bytes(d_k, d_k, n < QKV_COST_TILE ? n : QKV_COST_TILE));
}

/* The bytes of a matrix's entries. */
static int64_t matrix_bytes(const struct qkv_matrix *m)
{
	return (int64_t)m->rows * m->cols * (int64_t)sizeof(double);
}

/* Sizes the computation for n tokens (storage taken, not yet touched) and draws
 * Q, K, V from N(0, 1); not timed. The bytes it holds are counted from the
 * storage itself into c->held. */
static int prepare(struct qkv_cost *c)
{
	struct qkv_matrix *inputs[3] = { &c->q, &c->k, &c->v };
	struct qkv_rng rng;
	int n = c->n, rc = 0;
	bool standard = c->algorithm == QKV_COST_STANDARD;

	release(c);
	qkv_rng_seed(&rng, COST_SEED);
	for (int m = 0; m < 3 && rc == 0; m++) {
		rc = qkv_matrix_zero(inputs[m], n, c->d_k);
		for (size_t i = 0; rc == 0 && i < (size_t)n * (size_t)c->d_k; i++)
			inputs[m]->values[i] = qkv_rng_normal(&rng);
	}
	if (rc == 0)
		rc = qkv_matrix_zero(&c->output, n, c->d_k);
	if (standard) {
		if (rc == 0)
			rc = qkv_matrix_zero(&c->k_t, c->d_k, n);
		if (rc == 0)
			rc = qkv_matrix_shape(&c->scores, n, n);
		if (rc == 0)
			rc = qkv_matrix_shape(&c->scaled, n, n);
		if (rc == 0)
			rc = qkv_matrix_shape(&c->weights, n, n);
	} else if (rc == 0) {
		rc = qkv_online_blocks_init(&c->blocks, c->d_k, c->d_k, n < QKV_COST_TILE ? n : QKV_COST_TILE);
	}
	if (rc != 0) {
		release(c);
		return rc;
	}
	c->held = matrix_bytes(&c->q) + matrix_bytes(&c->k) + matrix_bytes(&c->v) + matrix_bytes(&c->output) +
		  (standard ? matrix_bytes(&c->k_t) + matrix_bytes(&c->scores) + matrix_bytes(&c->scaled) +
				      matrix_bytes(&c->weights)
			    : (int64_t)c->blocks.bytes);
	if (c->algorithm == (enum qkv_cost_algorithm)next_algorithm(c, -1))
		qkv_cost_row_of(n, c->d_k, c->heads, &c->rows[c->count]);
	c->prepared = true;
	c->touched_rows = standard ? 0 : n;
	c->next_row = 0;
	c->runs = 0;
	c->run_ms = 0.0;
	c->spent_ms = 0.0;
	return 0;
}

/* Writes zeros over rows of the n × n storage, a band at a time, so that the
 * memory is the process's before a run is timed (first touches cost page faults,
 * 400 MB of them at n = 4,096) and no step takes long. Returns true when done. */
static bool touch_rows(struct qkv_cost *c)
{
	struct qkv_matrix *squares[3] = { &c->scores, &c->scaled, &c->weights };
	int to = c->touched_rows + COST_MIN_BATCH < c->n ? c->touched_rows + COST_MIN_BATCH : c->n;

	for (int m = 0; m < 3; m++)
		memset(qkv_matrix_row(squares[m], c->touched_rows), 0,
		       (size_t)(to - c->touched_rows) * (size_t)c->n * sizeof(double));
	c->touched_rows = to;
	return to == c->n;
}

/* The online algorithm's output rows [from, to), a block of queries at a time. */
static void online_rows(struct qkv_cost *c, int from, int to)
{
	double divisor = sqrt((double)c->d_k);

	for (int first = from; first < to; first += QKV_ONLINE_QUERY_BLOCK) {
		int last = first + QKV_ONLINE_QUERY_BLOCK < to ? first + QKV_ONLINE_QUERY_BLOCK : to;

		qkv_online_blocks_rows(&c->blocks, &c->q, &c->k, &c->v, divisor, first, last, &c->output);
	}
}

/* The trace for queries [from, to): their rows of S, S', A and O, by the matrix
 * products and the softmax qkv_attention uses (Kᵀ first, once per run). */
static void trace_rows(struct qkv_cost *c, int from, int to)
{
	if (c->algorithm == QKV_COST_ONLINE) {
		online_rows(c, from, to);
		return;
	}
	int n = c->n;
	double divisor = sqrt((double)c->d_k);

	if (from == 0)
		qkv_matrix_transpose(&c->k_t, &c->k);
	qkv_matrix_multiply_rows(&c->scores, &c->q, &c->k_t, from, to);
	for (int i = from; i < to; i++) {
		const double *scores = qkv_matrix_row_const(&c->scores, i);
		double *scaled = qkv_matrix_row(&c->scaled, i);

		for (int j = 0; j < n; j++)
			scaled[j] = scores[j] / divisor;
		qkv_softmax_row(scaled, NULL, n, qkv_matrix_row(&c->weights, i));
	}
	qkv_matrix_multiply_rows(&c->output, &c->weights, &c->v, from, to);
}

/* Whether the table goes on past the row just measured. */
static bool another_n(const struct qkv_cost *c)
{
	int next = c->n * 2;
	double slope, predicted;

	if (next > c->last_n)
		return false;
	if (next <= QKV_COST_MIN_LAST_N)
		return true;
	slope = qkv_cost_slope(c, qkv_cost_measures(c, QKV_COST_STANDARD) ? QKV_COST_STANDARD : QKV_COST_ONLINE,
			       NULL);
	if (!isfinite(slope) || slope < 2.0)
		slope = 2.0;
	/* All this n took (storage, drawing the inputs, every run), scaled as the time. */
	predicted = (c->total_ms - c->n_start_ms) * pow(2.0, slope);
	return c->total_ms + predicted <= c->budget_ms;
}

static int compare_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The runs of one algorithm at n: their median, fastest and slowest, times h. */
static void record_runs(struct qkv_cost *c, struct qkv_cost_time *time)
{
	double *sorted = c->samples;
	int runs = c->runs;

	qsort(sorted, (size_t)runs, sizeof *sorted, compare_ms);
	time->ms = (runs % 2 == 1 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2.0) * c->heads;
	time->ms_min = sorted[0] * c->heads;
	time->ms_max = sorted[runs - 1] * c->heads;
	time->runs = runs;
	time->bytes = c->held * c->heads;
}

/* A run is over: keep its time, then run again, or record the algorithm's time
 * and go on to the next algorithm or the next n. */
static void run_finished(struct qkv_cost *c)
{
	bool again;
	int next;

	c->samples[c->runs++] = c->run_ms;
	c->spent_ms += c->run_ms;
	c->run_ms = 0.0;
	c->next_row = 0;
	again = c->runs < COST_MIN_RUNS || (c->spent_ms < COST_MIN_RUN_MS && c->runs < QKV_COST_MAX_RUNS);
	if (again)
		return;
	record_runs(c, &c->rows[c->count].time[c->algorithm]);
	release(c);
	next = next_algorithm(c, (int)c->algorithm);
	if (next >= 0) {
		c->algorithm = (enum qkv_cost_algorithm)next;
		return;
	}
	c->algorithm = (enum qkv_cost_algorithm)next_algorithm(c, -1);
	c->count++;
	if (c->count < QKV_COST_MAX_ROWS && another_n(c)) {
		c->n *= 2;
		c->n_start_ms = c->total_ms;
	}
	else
		c->done = true;
}

int qkv_cost_step(struct qkv_cost *c, double slice_ms, qkv_cost_clock clock, void *context)
{
	double start, before;
	int batch;

	if (c->done)
		return 0;
	start = clock(context);
	if (!c->prepared) {
		int rc = prepare(c);

		if (rc != 0) {
			c->done = true;
			return rc;
		}
	}
	batch = (int)(COST_BATCH_FLOPS / ((double)c->n * (4.0 * c->d_k + QKV_COST_SOFTMAX_FLOPS)));
	/* At least a band of rows, so that A V reuses each band of V as a full product does. */
	batch = batch < COST_MIN_BATCH ? COST_MIN_BATCH : batch;
	batch = batch > c->n ? c->n : batch;
	before = clock(context);
	while (c->touched_rows < c->n) {
		bool touched = touch_rows(c);

		before = clock(context);
		if (!touched && before - start >= slice_ms) {
			c->total_ms += before - start;
			return 1;
		}
	}
	c->total_ms += before - start;
	while (!c->done) {
		int to = c->next_row + batch < c->n ? c->next_row + batch : c->n;
		double after;

		trace_rows(c, c->next_row, to);
		after = clock(context);
		c->run_ms += after - before;
		c->total_ms += after - before;
		before = after;
		c->next_row = to;
		if (to == c->n)
			run_finished(c);
		if (after - start >= slice_ms || !c->prepared)
			break;
	}
	return c->done ? 0 : 1;
}

int qkv_cost_run(struct qkv_cost *c, qkv_cost_clock clock, void *context)
{
	int rc;

	while ((rc = qkv_cost_step(c, 1000.0, clock, context)) > 0)
		;
	return rc;
}

int qkv_cost_fit(const double *x, const double *y, int count, double *slope, double *intercept)
{
	double mean_x = 0.0, mean_y = 0.0, sxx = 0.0, sxy = 0.0;

	if (count < 2)
		return QKV_EINVAL;
	for (int i = 0; i < count; i++) {
		if (!(x[i] > 0.0) || !(y[i] > 0.0))
			return QKV_EINVAL;
		mean_x += log(x[i]);
		mean_y += log(y[i]);
	}
	mean_x /= count;
	mean_y /= count;
	for (int i = 0; i < count; i++) {
		double dx = log(x[i]) - mean_x;

		sxx += dx * dx;
		sxy += dx * (log(y[i]) - mean_y);
	}
	if (!(sxx > 0.0))
		return QKV_EINVAL;
	*slope = sxy / sxx;
	if (intercept != NULL)
		*intercept = mean_y - *slope * mean_x;
	return 0;
}

/* The slope of ln y against ln n over the rows with a y (ms or bytes of an
 * algorithm), n >= QKV_COST_FIT_FROM_N when two or more are that large. */
static double fit_rows(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm, bool bytes,
		       double *intercept)
{
	double x[QKV_COST_MAX_ROWS], y[QKV_COST_MAX_ROWS], slope, b;
	int large = 0, count = 0;

	for (int i = 0; i < c->count; i++) {
		const struct qkv_cost_time *t = &c->rows[i].time[algorithm];

		large += c->rows[i].n >= QKV_COST_FIT_FROM_N && t->ms > 0.0;
	}
	for (int i = 0; i < c->count; i++) {
		const struct qkv_cost_time *t = &c->rows[i].time[algorithm];

		if (!(t->ms > 0.0) || (large >= 2 && c->rows[i].n < QKV_COST_FIT_FROM_N))
			continue;
		x[count] = c->rows[i].n;
		y[count] = bytes ? (double)t->bytes : t->ms;
		count++;
	}
	if (qkv_cost_fit(x, y, count, &slope, &b) != 0)
		return NAN;
	if (intercept != NULL)
		*intercept = b;
	return slope;
}

double qkv_cost_slope(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm, double *intercept)
{
	return fit_rows(c, algorithm, false, intercept);
}

double qkv_cost_bytes_slope(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm)
{
	return fit_rows(c, algorithm, true, NULL);
}

/* The largest measured row with a time for the algorithm, or NULL. */
static const struct qkv_cost_row *last_timed(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm)
{
	for (int i = c->count - 1; i >= 0; i--)
		if (c->rows[i].time[algorithm].ms > 0.0)
			return &c->rows[i];
	return NULL;
}

void qkv_cost_extrapolate(const struct qkv_cost *c, int n, struct qkv_cost_row *row)
{
	/* The exponent the formulas give, 2, from the largest measurement: a fitted
	 * slope moves from run to run on a busy machine, and carried far beyond the
	 * table a small change of slope is a large change of time; so the range
	 * takes in the fastest and slowest runs carried as n² and the fitted line. */
	qkv_cost_row_of(n, c->d_k, c->heads, row);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
		const struct qkv_cost_row *last = last_timed(c, (enum qkv_cost_algorithm)a);
		struct qkv_cost_time *t = &row->time[a];
		double ratio, fitted;

		if (last == NULL)
			continue;
		ratio = (double)n / (double)last->n;
		ratio *= ratio;
		fitted = qkv_cost_extrapolate_fitted(c, (enum qkv_cost_algorithm)a, n);
		t->ms = last->time[a].ms * ratio;
		t->ms_min = last->time[a].ms_min * ratio;
		t->ms_max = last->time[a].ms_max * ratio;
		if (isfinite(fitted)) {
			t->ms_min = fmin(t->ms_min, fitted);
			t->ms_max = fmax(t->ms_max, fitted);
		}
	}
}

double qkv_cost_extrapolate_fitted(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm, int n)
{
	double intercept, slope = qkv_cost_slope(c, algorithm, &intercept);

	return isfinite(slope) ? exp(intercept + slope * log((double)n)) : NAN;
}

/* Three significant digits without an exponent ("800", "2.4", "16.8"). */
static int three_digits(char *buf, size_t size, double value, const char *unit)
{
	return snprintf(buf, size, "%.3g%s%s", value, unit[0] != '\0' ? " " : "", unit);
}

int qkv_cost_count_words(char *buf, size_t size, double count)
{
	static const char *const names[] = { "million", "billion", "trillion" };
	double value = count / 1e6;
	int name = 0;

	if (count < 1e6)
		return qkv_format_grouped(buf, size, llround(count));
	while (value >= 999.5 && name < 2) {
		value /= 1000.0;
		name++;
	}
	return three_digits(buf, size, value, names[name]);
}

int qkv_cost_bytes_words(char *buf, size_t size, double bytes)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int unit = 0;

	while (bytes >= 999.5 && unit < 5) {
		bytes /= 1000.0;
		unit++;
	}
	return three_digits(buf, size, bytes, units[unit]);
}

int qkv_cost_time_words(char *buf, size_t size, double ms)
{
	if (!isfinite(ms))
		return snprintf(buf, size, "an unknown time");
	if (ms < 999.5)
		return three_digits(buf, size, ms, "ms");
	if (ms < 59950.0)
		return three_digits(buf, size, ms / 1e3, "s");
	if (ms < 3597e3)
		return three_digits(buf, size, ms / 60e3, "min");
	if (ms < 47.95 * 3600e3)
		return three_digits(buf, size, ms / 3600e3, "h");
	return three_digits(buf, size, ms / 86400e3, "days");
}

/* Two significant digits without an exponent ("0.67", "2.4", "74", "870"). */
static int two_digits(char *buf, size_t size, double value)
{
	double scale;

	if (value < 99.5)
		return snprintf(buf, size, "%.2g", value);
	scale = pow(10.0, floor(log10(value)) - 1.0);
	return snprintf(buf, size, "%.0f", round(value / scale) * scale);
}

int qkv_cost_range_words(char *buf, size_t size, double low_ms, double high_ms)
{
	static const struct { double below, per; const char *unit; } units[] = {
		{ 999.5, 1.0, "ms" }, { 59950.0, 1e3, "s" }, { 3597e3, 60e3, "min" },
		{ 47.95 * 3600e3, 3600e3, "h" }, { INFINITY, 86400e3, "days" },
	};
	char low[32], high[32];
	int u = 0;

	if (!isfinite(low_ms) || !isfinite(high_ms))
		return snprintf(buf, size, "an unknown time");
	while (high_ms >= units[u].below)
		u++;
	two_digits(low, sizeof low, low_ms / units[u].per);
	two_digits(high, sizeof high, high_ms / units[u].per);
	if (strcmp(low, high) == 0)
		return snprintf(buf, size, "about %s %s", high, units[u].unit);
	return snprintf(buf, size, "%s to %s %s", low, high, units[u].unit);
}

int qkv_cost_words(char *buf, size_t size, const struct qkv_cost *c, int n)
{
	struct qkv_cost_row row;
	char tokens[32], scores[48], per[48], from[32], parts[QKV_COST_ALGORITHMS][256];
	const struct qkv_cost_row *last = NULL;
	int shown = 0;

	qkv_cost_extrapolate(c, n, &row);
	qkv_format_grouped(tokens, sizeof tokens, n);
	qkv_cost_count_words(scores, sizeof scores, (double)row.entries);
	if (c->heads == 1)
		snprintf(per, sizeof per, "per head per layer");
	else
		snprintf(per, sizeof per, "per layer of %d heads", c->heads);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
		enum qkv_cost_algorithm algorithm = (enum qkv_cost_algorithm)a;
		char held[32], when[64];

		if (!qkv_cost_measures(c, algorithm))
			continue;
		last = last != NULL ? last : last_timed(c, algorithm);
		qkv_cost_bytes_words(held, sizeof held, (double)row.time[a].bytes);
		qkv_cost_range_words(when, sizeof when, row.time[a].ms_min, row.time[a].ms_max);
		snprintf(parts[shown++], sizeof parts[0], "the %s algorithm would hold %s%s and take %s here",
			 qkv_cost_algorithm_name(algorithm), held,
			 algorithm == QKV_COST_STANDARD ? " (most of it S, S' and A in double)" : "", when);
	}
	qkv_format_grouped(from, sizeof from, last != NULL ? last->n : 0);
	if (shown == 2)
		return snprintf(buf, size, "%s tokens: %s scores, %s; %s; %s (as n² from the %s-token row's "
					   "runs, and the fitted slope).",
				tokens, scores, per, parts[0], parts[1], from);
	return snprintf(buf, size, "%s tokens: %s scores, %s; %s (as n² from the %s-token row's runs, and the "
				   "fitted slope).",
			tokens, scores, per, shown == 1 ? parts[0] : "nothing was measured", from);
}
