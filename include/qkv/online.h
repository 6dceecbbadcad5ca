/* online.h — attention without the n × n matrices: the online softmax of
 * FlashAttention-style kernels. For each query the keys and values are read in
 * tiles of B; a running maximum m, a running sum ℓ and an accumulator o (d_v
 * numbers) are updated, ℓ and o multiplied by e^(m_old − m_new) whenever the
 * maximum grows, and the output row is o / ℓ at the end. That is the standard
 * output exactly (not an approximation: every e^(s_j − m) is rescaled to the
 * final maximum), up to the rounding of a different order of operations, while
 * the memory held is O(n·d + B) instead of the n² of S, S′ and A.
 * Same masks, padding, divisor and temperature as qkv_attention; the problem's
 * mistakes: the mask applied after the softmax is followed (ℓ counts the hidden
 * keys, o does not), the softmax down the columns cannot be (it needs whole
 * columns). No printing. */
#ifndef QKV_ONLINE_H
#define QKV_ONLINE_H

#include <stddef.h>

#include "qkv/matrix.h"
#include "qkv/problem.h"

/* The tile size used when none is given. */
#define QKV_ONLINE_DEFAULT_TILE 64

/* One query's running state. */
struct qkv_online_row {
	double max;  /* m: the largest scaled score of a live key so far (−∞ before one) */
	double sum;  /* ℓ: Σ e^(s_j − m) over the keys read (live ones, or all of them
			in the mask-after-softmax mistake) */
	double *acc; /* o: Σ e^(s_j − m) · v_j over the live keys read, d_v entries
			(the caller's storage) */
	int d_v;
};

/* What one tile did to a query's state: what a walk through it shows. */
struct qkv_online_tile {
	int first, count;       /* the keys first … first + count − 1 */
	int live;               /* how many of them the query sees */
	double max_before, max_after; /* m (−∞ while no live key was read) */
	double rescale;         /* what ℓ and o were multiplied by: e^(m_before − m_after)
				   when the maximum grew from a finite value, 1 when it did
				   not grow, 0 when there was none before (ℓ and o were 0) */
	double sum_before, sum_after; /* ℓ */
};

/* Starts a query's state: m = −∞, ℓ = 0, o = 0 (acc holds d_v entries). */
void qkv_online_row_start(struct qkv_online_row *r, double *acc, int d_v);

/* Reads keys first … first + count − 1 (within K's rows) for query `query` of p,
 * whose row of Q as used is q_row: the scaled scores s_j = (q · k_j) / divisor,
 * summed term by term as qkv_attention sums them; m becomes the largest live one;
 * ℓ and o are rescaled to it and the tile's e^(s_j − m) and e^(s_j − m)·v_j added.
 * scores (count entries, or NULL) receives the tile's scaled scores; what (or
 * NULL) what the tile did. */
void qkv_online_row_tile(struct qkv_online_row *r, const struct qkv_problem *p, int query,
			 const double *q_row, const struct qkv_matrix *k, const struct qkv_matrix *v,
			 double divisor, int first, int count, double *scores,
			 struct qkv_online_tile *what);

/* The output row o / ℓ into out (d_v entries); zeros when ℓ is 0 (every key hidden). */
void qkv_online_row_finish(const struct qkv_online_row *r, double *out);

/* The whole computation: every query, tile by tile. */
struct qkv_online {
	int queries, keys, d_k, d_v;
	int tile;                  /* B, keys a tile */
	double divisor;
	struct qkv_matrix q, k, v; /* as used (after projection in the projected form) */
	struct qkv_matrix output;  /* queries × d_v */
	double *max, *sum;         /* per query: m and ℓ at the end */
	double *scratch;           /* a tile's scores, B entries */
	size_t bytes;              /* bytes the computation held: Q, K, V as used, O,
				      m and ℓ, a tile's scores, o (the inputs aside) */
};

/* An empty result; cannot fail. */
void qkv_online_init(struct qkv_online *o);
/* Frees its storage. */
void qkv_online_fini(struct qkv_online *o);

/* Computes p's output the online way with tiles of `tile` keys (>= 1; a tile
 * larger than n is one tile). p must pass qkv_problem_check() and have one head.
 * Returns 0, QKV_ENOMEM, QKV_ESHAPE or QKV_EINVAL (a multi-head problem, the
 * column-softmax mistake, a tile < 1). On failure o->queries = 0. */
int qkv_online_attention(const struct qkv_problem *p, int tile, struct qkv_online *o);

#endif
