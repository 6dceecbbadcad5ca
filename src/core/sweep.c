/* sweep.c — the d_k sweep: how softmax saturates as d_k grows, scaled by √d_k or
 * not. Q and K are drawn i.i.d. N(0,1) from one seeded generator, in a fixed order,
 * so the same arguments give the same figures everywhere. Never prints. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/error.h"
#include "qkv/rng.h"
#include "qkv/sweep.h"

/* Scratch for one sweep, allocated once for the largest d_k. */
struct sweep_buffers {
	double *q;          /* tokens × d_k_max */
	double *k_t;        /* Kᵀ: d_k_max × tokens, so Q Kᵀ runs in axpy form */
	double *scores;     /* tokens × tokens, raw Q Kᵀ */
	double *fed, *row;  /* tokens × tokens fed to softmax; one row of weights */
};

static void buffers_free(struct sweep_buffers *b)
{
	free(b->q);
	free(b->k_t);
	free(b->scores);
	free(b->fed);
	free(b->row);
}

static int buffers_alloc(struct sweep_buffers *b, int tokens, int d_k_max)
{
	size_t wide = (size_t)tokens * (size_t)d_k_max, square = (size_t)tokens * (size_t)tokens;

	b->q = malloc(wide * sizeof(double));
	b->k_t = malloc(wide * sizeof(double));
	b->scores = malloc(square * sizeof(double));
	b->fed = malloc(square * sizeof(double));
	b->row = malloc((size_t)tokens * sizeof(double));
	if (!b->q || !b->k_t || !b->scores || !b->fed || !b->row) {
		buffers_free(b);
		return QKV_ENOMEM;
	}
	return 0;
}

/* scores = Q Kᵀ in axpy form: row i gathers q_ic times row c of Kᵀ, so the inner
 * loop is contiguous and vectorises; each score still sums c = 0, 1, … in order. */
static void compute_scores(const struct sweep_buffers *b, int tokens, int d_k)
{
	memset(b->scores, 0, (size_t)tokens * (size_t)tokens * sizeof(double));
	for (int i = 0; i < tokens; i++) {
		double *restrict row = b->scores + (size_t)i * (size_t)tokens;
		const double *q = b->q + (size_t)i * (size_t)d_k;

		for (int c = 0; c < d_k; c++) {
			const double q_ic = q[c];
			const double *restrict key = b->k_t + (size_t)c * (size_t)tokens;

			for (int j = 0; j < tokens; j++)
				row[j] += q_ic * key[j];
		}
	}
}

/* Adds this trial's figures for scores / divisor into sum (means taken later). */
static void measure(const struct sweep_buffers *b, int tokens, double divisor,
		    struct qkv_sweep_figures *sum)
{
	size_t square = (size_t)tokens * (size_t)tokens;
	double mean = 0.0, squares = 0.0, log_n = log((double)tokens);
	struct qkv_row_stats stats;

	for (size_t i = 0; i < square; i++) {
		b->fed[i] = b->scores[i] / divisor;
		mean += b->fed[i];
	}
	mean /= (double)square;
	for (size_t i = 0; i < square; i++)
		squares += (b->fed[i] - mean) * (b->fed[i] - mean);
	sum->score_variance += squares / (double)square;
	for (int i = 0; i < tokens; i++) {
		qkv_softmax_row(b->fed + (size_t)i * (size_t)tokens, NULL, tokens, b->row);
		qkv_row_stats_of(b->row, NULL, tokens, &stats);
		sum->max_weight += stats.max_weight / (double)tokens;
		sum->entropy_ratio += stats.entropy / log_n / (double)tokens;
		sum->jacobian_norm += stats.jacobian_norm / (double)tokens;
	}
}

static void divide(struct qkv_sweep_figures *f, double count)
{
	f->score_variance /= count;
	f->max_weight /= count;
	f->entropy_ratio /= count;
	f->jacobian_norm /= count;
}

int qkv_sweep(int tokens, int trials, uint64_t seed, int d_k_max,
	      struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS])
{
	struct sweep_buffers b;
	struct qkv_rng rng;
	int count = 0;

	if (tokens < 2 || tokens > QKV_MAX_TOKENS || trials < 1 || trials > 10000 ||
	    d_k_max < 1 || d_k_max > QKV_MAX_DIM)
		return QKV_EINVAL;
	if (buffers_alloc(&b, tokens, d_k_max) != 0)
		return QKV_ENOMEM;
	qkv_rng_seed(&rng, seed);
	for (int d_k = 1; d_k <= d_k_max && count < QKV_SWEEP_MAX_POINTS; d_k *= 2) {
		struct qkv_sweep_point *point = &points[count++];
		size_t wide = (size_t)tokens * (size_t)d_k;

		memset(point, 0, sizeof *point);
		point->d_k = d_k;
		for (int trial = 0; trial < trials; trial++) {
			for (size_t i = 0; i < wide; i++)
				b.q[i] = qkv_rng_normal(&rng);
			/* K is drawn row by row, as ever, and stored transposed. */
			for (int j = 0; j < tokens; j++)
				for (int c = 0; c < d_k; c++)
					b.k_t[(size_t)c * (size_t)tokens + (size_t)j] = qkv_rng_normal(&rng);
			compute_scores(&b, tokens, d_k);
			measure(&b, tokens, sqrt((double)d_k), &point->scaled);
			measure(&b, tokens, 1.0, &point->unscaled);
		}
		divide(&point->scaled, (double)trials);
		divide(&point->unscaled, (double)trials);
	}
	buffers_free(&b);
	return count;
}
