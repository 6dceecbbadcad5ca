/* cost.h — the price of n²: what attention costs as the number of tokens grows.
 * For n = 16, 32, 64, … the count of scores, the bytes of the trace's n × n
 * matrices, the floating-point operations, and the measured time of the trace on
 * this machine; a least-squares slope on log–log axes, and the extrapolation to
 * 10,000 and 100,000 tokens. The trace is computed directly (beyond the editor's
 * 1,024-token limit) in slices, so an interface can measure without blocking.
 * Two algorithms are measured side by side at each n: the standard one, which
 * holds S, S' and A, and the online softmax in its block form (qkv/online.h),
 * which never forms them; each run's time is kept, and a row carries the median,
 * the fastest and the slowest run, and the bytes the computation held, counted
 * from its own storage.
 * Pure: the time comes from a clock the caller passes in; never prints.
 *
 * Conventions. A trace here is one head's S = Q Kᵀ, S' = S / √d_k, A = softmax(S')
 * by rows and O = A V, with d_v = d_k; its n × n matrices are S, S' and A (three).
 * Flops per head: 2n²d_k for Q Kᵀ, 2n²d_v for A V, and 5n² for the scaling and the
 * softmax — per score one division by √d_k, one subtraction of the row maximum,
 * one exponential (counted as one operation), one addition to the row sum and one
 * division by it; the comparisons that find the maximum are not counted. With h
 * heads every count is h times one head's, and so is the time (one head measured,
 * times h: the heads are the same computation). The online algorithm does the
 * same products and exponentials, plus a rescaling of ℓ and O per tile, about
 * n²(d_v + 2)/B more, which the count leaves out. Bytes held: the standard's Q,
 * K, V, Kᵀ, O and S, S', A; the online's Q, K, V, O and its blocks' storage. */
#ifndef QKV_COST_H
#define QKV_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qkv/matrix.h"
#include "qkv/online.h"

#define QKV_COST_FIRST_N 16        /* the table starts here and doubles */
#define QKV_COST_MIN_LAST_N 4096   /* it always reaches this n */
#define QKV_COST_MAX_N 8192        /* and never goes past this one (1.6 GB) */
#define QKV_COST_MAX_ROWS 10       /* 16 … 8192 */
#define QKV_COST_SQUARES 3         /* n × n matrices in a trace: S, S', A */
#define QKV_COST_SOFTMAX_FLOPS 5   /* per score, see above */
#define QKV_COST_FIT_FROM_N 256    /* the slope is fitted over n >= this */
#define QKV_COST_MAX_HEADS 4096
#define QKV_COST_TILE 64           /* the online algorithm's tile of keys */
#define QKV_COST_TILE_TEXT "64"    /* the same, for sentences */
#define QKV_COST_MAX_RUNS 200      /* runs kept per n and algorithm */

enum qkv_cost_algorithm { QKV_COST_STANDARD, QKV_COST_ONLINE, QKV_COST_ALGORITHMS };
/* Which algorithms a table measures: bits 1 << enum qkv_cost_algorithm. */
#define QKV_COST_MEASURE(algorithm) (1u << (algorithm))
#define QKV_COST_BOTH (QKV_COST_MEASURE(QKV_COST_STANDARD) | QKV_COST_MEASURE(QKV_COST_ONLINE))

/* One algorithm's measurement at one n, times h. */
struct qkv_cost_time {
	double ms;       /* the median run (NAN: not measured) */
	double ms_min;   /* the fastest and the slowest run */
	double ms_max;
	int runs;
	int64_t bytes;   /* held by the computation, counted from its storage */
};

/* One n of the table. */
struct qkv_cost_row {
	int n;
	int64_t entries;   /* h·n² scores */
	int64_t bytes_f64; /* h·3·n²·8: S, S' and A in double */
	int64_t bytes_f16; /* h·3·n²·2: the same in 16-bit floats */
	int64_t flops;     /* h·(2n²d_k + 2n²d_v + 5n²) */
	struct qkv_cost_time time[QKV_COST_ALGORITHMS];
};

/* Milliseconds on a monotonic clock; context is what the caller registered. */
typedef double (*qkv_cost_clock)(void *context);

/* The table and the measurement in progress. Touch through the functions below. */
struct qkv_cost {
	int d_k, heads, last_n;
	unsigned algorithms;         /* QKV_COST_MEASURE bits */
	double budget_ms;            /* past QKV_COST_MIN_LAST_N, stop when the next n
					would take the total beyond this */
	int count;                   /* rows measured */
	struct qkv_cost_row rows[QKV_COST_MAX_ROWS];
	bool done;
	int64_t peak_resident_bytes; /* the caller's reading of the process's peak resident
					memory once measured (0: not read) */
	/* The run in progress: its inputs, its trace and how far it has got. */
	bool prepared;               /* the run's storage is sized and filled for n */
	enum qkv_cost_algorithm algorithm; /* the one being measured at n */
	int n, touched_rows, next_row, runs;
	double run_ms, spent_ms;
	int64_t held;                /* bytes the computation in progress holds */
	double samples[QKV_COST_MAX_RUNS];
	double total_ms, n_start_ms; /* clock time of every step so far; when n began */
	struct qkv_matrix q, k, k_t, v, scores, scaled, weights, output;
	struct qkv_online_blocks blocks;
};

/* Sets up an empty table for one head of width d_k (1..QKV_MAX_DIM) times `heads`
 * (1..QKV_COST_MAX_HEADS) measuring `algorithms` (QKV_COST_MEASURE bits, at least
 * one; at each n the online one first): n = 16, 32, … up to last_n (a power of two
 * from 16 to QKV_COST_MAX_N), but past QKV_COST_MIN_LAST_N only while the
 * measurement so far plus the next n's predicted time stays within budget_ms
 * (> 0). QKV_EINVAL for bad arguments. Allocates nothing yet. */
int qkv_cost_init(struct qkv_cost *c, int d_k, int heads, int last_n, double budget_ms, unsigned algorithms);
/* Whether c measures the algorithm. */
bool qkv_cost_measures(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm);
/* "standard" or "online". */
const char *qkv_cost_algorithm_name(enum qkv_cost_algorithm algorithm);
/* Frees the trace storage. */
void qkv_cost_fini(struct qkv_cost *c);

/* The counted columns of a row for n tokens, and each algorithm's bytes held;
 * the times NAN, the runs 0. */
void qkv_cost_row_of(int n, int d_k, int heads, struct qkv_cost_row *row);

/* Measures on for about slice_ms of the clock, then returns: 1 while more is to
 * come, 0 when the table is complete (c->done), QKV_ENOMEM when a trace does not
 * fit in memory (the rows so far stay, and the table is complete). */
int qkv_cost_step(struct qkv_cost *c, double slice_ms, qkv_cost_clock clock, void *context);
/* Runs the whole measurement (steps of any length until done). */
int qkv_cost_run(struct qkv_cost *c, qkv_cost_clock clock, void *context);

/* Least-squares slope and intercept of ln y against ln x over count points (all
 * x, y > 0; count >= 2, the x not all equal). Returns 0 or QKV_EINVAL. */
int qkv_cost_fit(const double *x, const double *y, int count, double *slope, double *intercept);
/* The slope of ln ms (the medians) against ln n for an algorithm over the
 * measured rows with n >= QKV_COST_FIT_FROM_N (all rows when fewer than two are
 * that large); NAN with fewer than two rows. intercept may be NULL. */
double qkv_cost_slope(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm, double *intercept);
/* The same for the bytes the algorithm held. */
double qkv_cost_bytes_slope(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm);
/* The row for n tokens: counts and bytes from the formulas; for each measured
 * algorithm ms as n² from its largest measured row's median, ms_min and ms_max
 * the range of the fastest and slowest runs carried the same way and of the
 * fitted line (NAN when no row has a time). */
void qkv_cost_extrapolate(const struct qkv_cost *c, int n, struct qkv_cost_row *row);
/* The ms the fitted line (qkv_cost_slope) gives for n tokens; NAN without a slope. */
double qkv_cost_extrapolate_fitted(const struct qkv_cost *c, enum qkv_cost_algorithm algorithm, int n);

/* The extrapolation in words, e.g. "10,000 tokens: 100 million scores, per head
 * per layer. The standard algorithm holds 2.4 GB (S, S' and A in double) and
 * would take 1.9 to 2.4 s here; the online one holds 10 MB and would take 2.0 to
 * 2.6 s (as n² from the 4,096-token row's runs and the fitted slopes)."
 * Returns the length, like snprintf. */
int qkv_cost_words(char *buf, size_t size, const struct qkv_cost *c, int n);
/* A count in words: "100 million", "10 billion", "4,096". */
int qkv_cost_count_words(char *buf, size_t size, double count);
/* Bytes in decimal units: "800 MB", "2.4 GB", "512 kB". */
int qkv_cost_bytes_words(char *buf, size_t size, double bytes);
/* A duration: "0.42 ms", "6.2 s", "3.1 min", "2.5 h", "4.0 days". */
int qkv_cost_time_words(char *buf, size_t size, double ms);
/* A range of durations to two significant digits in the unit of the larger:
 * "1.9 to 2.4 s", or one "about" value when both round alike ("about 2.1 s"). */
int qkv_cost_range_words(char *buf, size_t size, double low_ms, double high_ms);

#endif
