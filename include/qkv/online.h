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

/* The block form of the same algorithm, as FlashAttention's kernels run it, over
 * plain matrices with no mask (what the cost explorer measures): the queries in
 * blocks of QKV_ONLINE_QUERY_BLOCK rows, the keys in tiles of B. For each block
 * and tile, S = Q_block K_tileᵀ / divisor (each score summed as qkv_attention
 * sums it), m_new = max(m, the row's largest score), P = e^(S − m_new),
 * ℓ = e^(m − m_new) ℓ + Σ P and O = e^(m − m_new) O + P V_tile; at the end O / ℓ.
 * Storage: the block's and tile's copies, S, P V_tile, m and ℓ — O(B·d + block·B),
 * nothing of n × n. */
#define QKV_ONLINE_QUERY_BLOCK 64

struct qkv_online_blocks {
	int d_k, d_v, tile;
	struct qkv_matrix q_block;  /* block × d_k: the block's rows of Q */
	struct qkv_matrix k_tile;   /* d_k × B: the tile's keys, transposed */
	struct qkv_matrix v_tile;   /* B × d_v: the tile's values */
	struct qkv_matrix scores;   /* block × B: S, then P in place */
	struct qkv_matrix part;     /* block × d_v: P V_tile */
	double *max, *sum;          /* per row of the block: m and ℓ */
	size_t bytes;               /* all of the above, in bytes */
};

/* Storage for queries of width d_k, values of width d_v and tiles of `tile` keys
 * (all >= 1). Returns 0, QKV_EINVAL or QKV_ENOMEM (then nothing is held). */
int qkv_online_blocks_init(struct qkv_online_blocks *w, int d_k, int d_v, int tile);
void qkv_online_blocks_fini(struct qkv_online_blocks *w);
/* The bytes qkv_online_blocks_init holds for these widths and tile. */
size_t qkv_online_blocks_bytes(int d_k, int d_v, int tile);

/* Output rows from … to−1 (to − from <= QKV_ONLINE_QUERY_BLOCK) of
 * softmax(Q Kᵀ / divisor) V into out (rows of Q × d_v), read as above.
 * Q is n_q × d_k, K n × d_k, V n × d_v with the widths w was made for. */
void qkv_online_blocks_rows(struct qkv_online_blocks *w, const struct qkv_matrix *q,
			    const struct qkv_matrix *k, const struct qkv_matrix *v, double divisor,
			    int from, int to, struct qkv_matrix *out);

#endif
