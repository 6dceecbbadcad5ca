/* attention.h — the whole computation, stage by stage, as one trace.
 * qkv_attention() fills a trace from a problem; everything the screen and the
 * printer show is read from a trace, so every number comes from the same place.
 * Softmax is stable (row maximum subtracted); masked weights are exactly 0; no
 * finite input that passes qkv_problem_check() gives NaN or Inf. */
#ifndef QKV_ATTENTION_H
#define QKV_ATTENTION_H

#include <stdbool.h>

#include "qkv/matrix.h"
#include "qkv/problem.h"

/* The stages, in the course's order. PROJECTIONS exists only in the projected form. */
enum qkv_stage {
	QKV_STAGE_PROJECTIONS = 0, /* Q = X W_Q, K = X W_K, V = X W_V */
	QKV_STAGE_SCORES = 1,      /* S = Q Kᵀ */
	QKV_STAGE_SCALED = 2,      /* S / divisor */
	QKV_STAGE_WEIGHTS = 3,     /* A = softmax by rows */
	QKV_STAGE_MIX = 4,         /* a_ij · v_j */
	QKV_STAGE_OUTPUT = 5,      /* O = A V */
};
#define QKV_STAGE_COUNT 6

/* "projections", "scores", "scaled", "weights", "mix", "output"; "?" out of range. */
const char *qkv_stage_name(enum qkv_stage stage);
/* The stage's formula in plain text, e.g. "S = Q Kᵀ" (UTF-8). */
const char *qkv_stage_formula(enum qkv_stage stage);
/* The formula as a problem with mistake `wrong` computes it: stage 3 of a wrong
 * way says what it does ("A = softmax(S') down the columns", "A = softmax(S') over
 * every key, then the mask"); otherwise qkv_stage_formula. */
const char *qkv_stage_formula_computed(enum qkv_stage stage, enum qkv_wrong wrong);
/* The formula of p's stage: in cross-attention stage 0 says its queries come from
 * X_q ("Q = X_q W_Q,  K = X W_K,  V = X W_V"); otherwise qkv_stage_formula, or
 * qkv_stage_formula_computed with p's mistake when `computed`. */
const char *qkv_stage_formula_of(const struct qkv_problem *p, enum qkv_stage stage, bool computed);

/* Per query row: what the softmax made of it. */
struct qkv_row_stats {
	double max_weight;       /* largest weight in the row */
	int argmax;              /* key holding it (first on ties); -1 if fully masked */
	double entropy;          /* −Σ a ln a over the row, in nats */
	double effective_tokens; /* e^entropy */
	double jacobian_norm;    /* Frobenius norm of diag(a) − a aᵀ */
	int live_keys;           /* keys not masked for this query */
	double weight_sum;       /* Σ_j a_ij (1 unless the row is fully masked or wrong) */
};

struct qkv_trace {
	int m, n, d_k, d_v;        /* m queries (n in self-attention), n keys */
	double divisor;            /* what the scores were divided by */
	struct qkv_matrix q, k, v; /* as used (after projection in the projected form):
				      q m×d_k, k n×d_k, v n×d_v */
	struct qkv_matrix scores;  /* m×n, Q Kᵀ (computed also where masked) */
	struct qkv_matrix scaled;  /* m×n, scores / divisor */
	struct qkv_matrix weights; /* m×n, softmax rows; exactly 0 where masked */
	struct qkv_matrix output;  /* m×d_v, weights · V */
	unsigned char *masked;     /* m×n, 1 where the key is hidden from the query */
	struct qkv_row_stats *rows; /* m entries */
	double score_variance;     /* population variance of the unmasked scaled entries */
	struct qkv_matrix k_t;     /* scratch: Kᵀ, reused */
	double *moments;           /* per row: count, sum and squared deviations of the
				      unmasked scaled entries (the variance's parts) */
	int masked_capacity, rows_capacity;
};

/* An empty trace; cannot fail. */
void qkv_trace_init(struct qkv_trace *t);
/* Frees the trace's storage. */
void qkv_trace_fini(struct qkv_trace *t);

/* Computes every stage of p into t, reusing t's storage. p must pass
 * qkv_problem_check(). Returns 0, QKV_ENOMEM, or QKV_ESHAPE/QKV_EINVAL for a
 * problem that does not check, QKV_EINVAL for a multi-head one (see heads.h).
 * On failure t holds no valid trace (t->n = 0, t->m = 0). */
int qkv_attention(const struct qkv_problem *p, struct qkv_trace *t);

/* Brings t up to date after one cell, (row, col) of input `which`, changed in p,
 * t being p's trace from before that change and nothing else having changed.
 * Recomputes only what the cell reaches — a Q cell its query's row of S, S', A,
 * O and statistics; a V cell one column of O; a K cell its key's column of S,
 * then every row's softmax and output; an X cell its token's q, k, v, row and
 * column of S, then every row (in cross-attention its k and v and column of S);
 * an X_q cell its query's q and row of everything; a W_V cell a column of V and of O; a W_Q or W_K
 * cell a column of Q or K, then everything — by the same arithmetic in the same
 * order as qkv_attention, so t is bit-for-bit what qkv_attention would give.
 * When t does not fit p (sizes, divisor, no trace yet) it computes t whole.
 * Returns as qkv_attention does. */
int qkv_attention_update(const struct qkv_problem *p, struct qkv_trace *t, enum qkv_grid which,
			 int row, int col);

/* The multiply-adds (exponentials counted as one) qkv_attention_update needs
 * after one cell of `which` changed in p: n·(d_k + d_v) for a query's cell
 * (softmax by rows), m·n for a value's, m·n·d_v and more for a key's, and the
 * whole trace's where the cell reaches every score (a W_Q or W_K cell). For
 * deciding whether an edit is quick enough to make between two key presses. */
double qkv_attention_update_cost(const struct qkv_problem *p, enum qkv_grid which);

/* Stage 4 for one cell, without storing the m×n×d_v cube: a_ij · v_jc. */
double qkv_trace_mix(const struct qkv_trace *t, int query, int key, int col);

/* True when the mix's terms of column col, each rounded to `decimals` places
 * (0..12) as shown, add up to the output O[q,c] they sum to, rounded the same
 * way: then the Σ under them is their sum as shown, else only about it ("Σ ≈"). */
bool qkv_trace_mix_adds_up(const struct qkv_trace *t, int query, int col, int decimals);

/* Σ_i a_i,key: the weights key receives from every query, in query order (a row's
 * sum is its stats' weight_sum). 1 for each key only in the column-softmax mistake. */
double qkv_trace_column_sum(const struct qkv_trace *t, int key);
/* True when key is hidden from query in this trace. */
static inline bool qkv_trace_is_masked(const struct qkv_trace *t, int query, int key)
{
	return t->masked[(size_t)query * (size_t)t->n + (size_t)key] != 0;
}

/* Softmax of one row, stably: out_j = e^(x_j − max) / Σ e^(x_k − max) over the
 * entries whose hidden[j] is 0 (hidden may be NULL); hidden entries get 0. A row
 * with every entry hidden becomes all 0. Returns the number of live entries. */
int qkv_softmax_row(const double *x, const unsigned char *hidden, int count, double *out);

/* Statistics of one row of weights a (count entries, hidden may be NULL). */
void qkv_row_stats_of(const double *a, const unsigned char *hidden, int count,
		      struct qkv_row_stats *stats);

#endif
