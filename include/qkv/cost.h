/* cost.h — the price of n²: what attention costs as the number of tokens grows.
 * For n = 16, 32, 64, … the count of scores, the bytes of the trace's n × n
 * matrices, the floating-point operations, and the measured time of the trace on
 * this machine; a least-squares slope on log–log axes, and the extrapolation to
 * 10,000 and 100,000 tokens. The trace is computed directly (beyond the editor's
 * 1,024-token limit) in slices, so an interface can measure without blocking.
 * Pure: the time comes from a clock the caller passes in; never prints.
 *
 * Conventions. A trace here is one head's S = Q Kᵀ, S' = S / √d_k, A = softmax(S')
 * by rows and O = A V, with d_v = d_k; its n × n matrices are S, S' and A (three).
 * Flops per head: 2n²d_k for Q Kᵀ, 2n²d_v for A V, and 5n² for the scaling and the
 * softmax — per score one division by √d_k, one subtraction of the row maximum,
 * one exponential (counted as one operation), one addition to the row sum and one
 * division by it; the comparisons that find the maximum are not counted. With h
 * heads every count is h times one head's, and so is the time (one head measured,
 * times h: the heads are the same computation). */
#ifndef QKV_COST_H
#define QKV_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qkv/matrix.h"

#define QKV_COST_FIRST_N 16        /* the table starts here and doubles */
#define QKV_COST_MIN_LAST_N 4096   /* it always reaches this n */
#define QKV_COST_MAX_N 8192        /* and never goes past this one (1.6 GB) */
#define QKV_COST_MAX_ROWS 10       /* 16 … 8192 */
#define QKV_COST_SQUARES 3         /* n × n matrices in a trace: S, S', A */
#define QKV_COST_SOFTMAX_FLOPS 5   /* per score, see above */
#define QKV_COST_FIT_FROM_N 256    /* the slope is fitted over n >= this */
#define QKV_COST_MAX_HEADS 4096

/* One n of the table. */
struct qkv_cost_row {
	int n;
	int64_t entries;   /* h·n² scores */
	int64_t bytes_f64; /* h·3·n²·8: S, S' and A in double */
	int64_t bytes_f16; /* h·3·n²·2: the same in 16-bit floats */
	int64_t flops;     /* h·(2n²d_k + 2n²d_v + 5n²) */
	double ms;         /* measured: the fastest run of one head's trace, times h */
};

/* Milliseconds on a monotonic clock; context is what the caller registered. */
typedef double (*qkv_cost_clock)(void *context);

/* The table and the measurement in progress. Touch through the functions below. */
struct qkv_cost {
	int d_k, heads, last_n;
	double budget_ms;            /* past QKV_COST_MIN_LAST_N, stop when the next n
					would take the total beyond this */
	int count;                   /* rows measured */
	struct qkv_cost_row rows[QKV_COST_MAX_ROWS];
	bool done;
	/* The run in progress: its inputs, its trace and how far it has got. */
	bool prepared;               /* the run's storage is sized and filled for n */
	int n, touched_rows, next_row, runs;
	double run_ms, best_ms, spent_ms;
	double total_ms, n_start_ms; /* clock time of every step so far; when n began */
	struct qkv_matrix q, k, k_t, v, scores, scaled, weights, output;
};

/* Sets up an empty table for one head of width d_k (1..QKV_MAX_DIM) times `heads`
 * (1..QKV_COST_MAX_HEADS): n = 16, 32, … up to last_n (a power of two from 16 to
 * QKV_COST_MAX_N), but past QKV_COST_MIN_LAST_N only while the measurement so far
 * plus the next n's predicted time stays within budget_ms (> 0). QKV_EINVAL for
 * bad arguments. Allocates nothing yet. */
int qkv_cost_init(struct qkv_cost *c, int d_k, int heads, int last_n, double budget_ms);
/* Frees the trace storage. */
void qkv_cost_fini(struct qkv_cost *c);

/* The counted columns of a row for n tokens (ms left at 0): the formulas above. */
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
/* The slope of ln ms against ln n over the measured rows with n >=
 * QKV_COST_FIT_FROM_N (all rows when fewer than two are that large); NAN with
 * fewer than two rows. intercept may be NULL. */
double qkv_cost_slope(const struct qkv_cost *c, double *intercept);
/* The row for n tokens: counts from the formulas, ms as n² from the largest
 * measured row (the formulas' exponent; NAN when no row has a time). */
void qkv_cost_extrapolate(const struct qkv_cost *c, int n, struct qkv_cost_row *row);
/* The ms the fitted line (qkv_cost_slope) gives for n tokens; NAN without a slope. */
double qkv_cost_extrapolate_fitted(const struct qkv_cost *c, int n);

/* The extrapolation in words, e.g. "10,000 tokens: 100 million scores, 800 MB in
 * double for the scores alone (2.4 GB for S, S' and A), per head per layer; this
 * machine would take about 6.2 s (as n² from the 4,096-token row; the fitted
 * slope, 2.00, gives 6.2 s)." Returns the length, like snprintf. */
int qkv_cost_words(char *buf, size_t size, const struct qkv_cost *c, int n);
/* A count in words: "100 million", "10 billion", "4,096". */
int qkv_cost_count_words(char *buf, size_t size, double count);
/* Bytes in decimal units: "800 MB", "2.4 GB", "512 kB". */
int qkv_cost_bytes_words(char *buf, size_t size, double bytes);
/* A duration: "0.42 ms", "6.2 s", "3.1 min", "2.5 h", "4.0 days". */
int qkv_cost_time_words(char *buf, size_t size, double ms);

#endif
