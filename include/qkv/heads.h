/* heads.h — multi-head attention: h heads over one X, each computed by the
 * single-head trace of its own projections, laid side by side (the concatenation)
 * and projected by W_O. Also the per-head pattern scores the comparison readout
 * shows. No printing, no curses; every number comes from one trace. */
#ifndef QKV_HEADS_H
#define QKV_HEADS_H

#include "qkv/attention.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"

/* What one pattern of weights looks at, averaged over the queries. */
struct qkv_pattern {
	double entropy;  /* mean over queries with a live key of −Σ a ln a, in nats */
	double previous; /* mean of a_{i,i−1} over queries i = 2..n (0 when n = 1; in
			    cross-attention over the queries with a key i−1) */
	double diagonal; /* mean of a_ii over all queries (that have a key i) */
	double first;    /* mean of a_{i,1} over all queries */
};

struct qkv_heads_trace {
	int h, m, n, d_model, d_v;  /* m queries (n in self-attention), n keys */
	bool cross;                 /* cross-attention: no query is a key, so the
				       previous token and the token itself mean nothing */
	struct qkv_trace *head;     /* h single-head traces, head[i] of head i+1 */
	struct qkv_matrix concat;   /* m × (h·d_v): head outputs side by side */
	struct qkv_matrix output;   /* m × d_model: Concat · W_O */
	struct qkv_matrix *contrib; /* h matrices m × d_model: head_i · W_O⁽ⁱ⁾ */
	struct qkv_pattern *pattern; /* h entries */
	int capacity;               /* heads allocated */
	struct qkv_matrix scratch;  /* a row block of W_O, reused */
};

/* An empty multi-head trace; cannot fail. */
void qkv_heads_trace_init(struct qkv_heads_trace *t);
/* Frees its storage. */
void qkv_heads_trace_fini(struct qkv_heads_trace *t);

/* view becomes head i (0-based) of p as a single-head problem: the same tokens,
 * X (and queries, X_q), options and mask, with that head's W_Q, W_K, W_V. The view borrows p's
 * storage (never pass it to qkv_problem_fini or an editing function) and is
 * valid while p is unchanged. */
void qkv_problem_head_view(const struct qkv_problem *p, int i, struct qkv_problem *view);

/* Head i's W_Q, W_K or W_V (which), X, X_q and W_O (shared by the heads), or NULL
 * for any other input, a head out of range or a single-head problem. */
struct qkv_matrix *qkv_problem_head_input(struct qkv_problem *p, int i, enum qkv_grid which);

/* Computes every head (qkv_attention on each head's view), the concatenation,
 * the output Concat·W_O, each head's contribution head_i·W_O⁽ⁱ⁾ (W_O's row block
 * i) and the pattern scores. p must have h >= 1 and pass qkv_problem_check().
 * Returns 0, QKV_EINVAL, QKV_ESHAPE or QKV_ENOMEM; on failure t->h = 0. */
int qkv_heads_attention(const struct qkv_problem *p, struct qkv_heads_trace *t);

/* Multiply-adds of qkv_heads_attention on p: every head's projections, Q Kᵀ and
 * A V, and Concat · W_O. */
double qkv_heads_cost(const struct qkv_problem *p);

/* The pattern scores of an m×n matrix of weights (masked may be NULL: then
 * every key counts as live for the entropy). */
void qkv_pattern_of(const struct qkv_matrix *weights, const unsigned char *masked,
		    struct qkv_pattern *out);

/* Replaces p with a multi-head problem: n tokens, X n×d_model and h heads with
 * d_k = d_v = d_model / h, drawn from seed: X's entries N(0, 1), every W's (W_O
 * too) N(0, 1/d_model), X and each matrix by its own stream. d_model must be a
 * multiple of h: else QKV_EINVAL. */
int qkv_problem_random_heads(struct qkv_problem *p, int n, int h, int d_model,
			     uint64_t seed);

/* Rounds count values to `decimals` places (0..12) so that the rounded values add
 * up exactly to their rounded sum (largest remainders get the spare units; each
 * stays within one unit of its value): units[i] in steps of 10^-decimals. Equal
 * values get equal units: the spare units go to whole sets of equal values; when
 * no choice of sets takes exactly the spare units, every value is rounded to its
 * nearest unit instead, and the units do not add up to the rounded sum.
 * Returns the rounded sum in the same units. */
long long qkv_round_shares(const double *x, int count, int decimals, long long *units);

/* The selected cell's derivation, in one line of text: stage 6 (row, col of the
 * concatenation: which head's output it is) or 7 (row, col of the layer output as
 * each head's share, the shown shares adding up to the shown total; equal shares
 * are shown equal, and when they cannot add up the line says "≈" and what the
 * shown shares add up to). Returns the
 * length written, or -1 for a stage, cell or size out of range. */
int qkv_heads_derive(char *buf, size_t size, const struct qkv_problem *p,
		     const struct qkv_heads_trace *t, int stage, int row, int col, int decimals);

/* The wrong way: the heads' weights averaged into one m×n pattern (avg), and its
 * pattern scores. Returns 0 or QKV_ENOMEM / QKV_EINVAL. */
int qkv_heads_average(const struct qkv_heads_trace *t, struct qkv_matrix *avg,
		      struct qkv_pattern *out);

/* What averaging loses, in one sentence computed from the numbers: for the
 * previous token, the token itself and the first token (in cross-attention the
 * first key alone), the averaged pattern's
 * weight against the heads that give it the most (every head showing that value
 * named), then that averaging dilutes each head's pattern, or, when every head has
 * the same weights, that it loses nothing. Returns the length or -1. */
int qkv_heads_average_words(char *buf, size_t size, const struct qkv_heads_trace *t,
			    const struct qkv_pattern *averaged, int decimals);

/* The cost line: n²·h (m·n·h) scores per layer, and h heads of d_k against one head as
 * wide as all of them (the same multiply-adds for Q Kᵀ). Returns the length. */
int qkv_heads_cost_words(char *buf, size_t size, const struct qkv_heads_trace *t);

#endif
