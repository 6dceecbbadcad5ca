/* problem.h — one attention problem: tokens, Q K V (or X and the projections),
 * and the options that change the computation (scale, temperature, mask).
 * A problem holds only what a person gives; everything computed lives in a trace.
 * No printing, no files here: src/io reads and writes problems. */
#ifndef QKV_PROBLEM_H
#define QKV_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include "qkv/grid.h"
#include "qkv/matrix.h"

#define QKV_MAX_LABEL 64 /* bytes in a token label */
/* The largest seed, 2^53 − 1: a seed written in JSON reads back exactly in every
 * reader (JavaScript's numbers included). Files, options and the saver keep to it. */
#define QKV_MAX_SEED 9007199254740991ULL

enum qkv_scale {
	QKV_SCALE_SQRT_DK, /* divide the scores by √d_k (the paper's choice) */
	QKV_SCALE_NONE,    /* divide by 1 */
	QKV_SCALE_CUSTOM,  /* divide by scale_value */
};

enum qkv_mask {
	QKV_MASK_NONE,
	QKV_MASK_CAUSAL, /* query i sees keys j <= i */
	QKV_MASK_CUSTOM, /* mask_bits says which (query, key) pairs are hidden */
};

/* Deliberate mistakes, for the "wrong way" demonstrations; never saved. */
enum qkv_wrong {
	QKV_WRONG_NONE,
	QKV_WRONG_MASK_AFTER_SOFTMAX, /* softmax over all keys, then zero the masked */
	QKV_WRONG_COLUMN_SOFTMAX,     /* softmax down each column instead of each row */
};

/* One head's projections in a multi-head problem. */
struct qkv_head {
	struct qkv_matrix w_q, w_k; /* d_model × d_k */
	struct qkv_matrix w_v;      /* d_model × d_v */
};

/* "none", "causal", "custom": the names a problem file and the JSON output use. */
const char *qkv_mask_name(enum qkv_mask mask);
/* "none", "mask-after-softmax", "column-softmax": --wrong's words and JSON's. */
const char *qkv_wrong_name(enum qkv_wrong wrong);
/* The mask or mistake named `name` (as above); 0, or -1 when there is none. */
int qkv_mask_parse(const char *name, enum qkv_mask *mask);
int qkv_wrong_parse(const char *name, enum qkv_wrong *wrong);

struct qkv_problem {
	char *title;   /* owned, may be NULL */
	char *notes;   /* owned, may be NULL */
	/* Self-attention has one sequence of n tokens, whose rows are the queries, the
	 * keys and the values (m = n, no query_tokens, no x_q). Cross-attention has two:
	 * m queries (query_tokens, and x_q in the projected form) attend to the n tokens
	 * that give the keys and values (tokens, x). */
	int m;         /* number of queries, 1..QKV_MAX_TOKENS: n in self-attention */
	int n;         /* number of tokens (keys and values), 1..QKV_MAX_TOKENS */
	char **tokens; /* n owned labels, never NULL once valid */
	char **query_tokens; /* cross-attention: m owned labels; NULL in self-attention */
	enum qkv_form form;
	/* Direct form: q (m×d_k), k (n×d_k), v (n×d_v). Projected form: empty. */
	struct qkv_matrix q, k, v;
	/* Projected form: x (n×d_model), w_q, w_k (d_model×d_k), w_v (d_model×d_v). */
	struct qkv_matrix x, w_q, w_k, w_v;
	/* Projected cross-attention: x_q (m×d_model), the queries' sequence, so that
	 * Q = X_q W_Q; empty otherwise. */
	struct qkv_matrix x_q;
	enum qkv_scale scale;
	double scale_value;     /* the custom divisor (> 0) when scale is CUSTOM */
	double temperature;     /* τ > 0; the scores are divided by τ·(scale) */
	enum qkv_mask mask;
	unsigned char *mask_bits; /* m×n, 1 = key hidden from query; used when CUSTOM */
	unsigned char *padding;   /* n, 1 = token is padding (hidden as a key from all) */
	enum qkv_wrong wrong;
	bool seeded;   /* true for random problems: new columns are drawn from seed */
	uint64_t seed;
	/* Multi-head (projected form only): h >= 1 heads share X (and X_q), each with its own
	 * W_Q, W_K, W_V (the same d_k and d_v for all), and the layer's output is
	 * Concat(head_1 … head_h) · W_O. h = 0 is the single head of w_q, w_k, w_v
	 * above (which are empty when h >= 1). */
	int h;
	struct qkv_head *heads; /* h owned heads */
	struct qkv_matrix w_o;  /* (h·d_v) × d_model */
};

/* An empty problem (n = 0, direct form, √d_k, τ = 1, no mask). Cannot fail. */
void qkv_problem_init(struct qkv_problem *p);
/* Frees everything p owns and leaves it empty. */
void qkv_problem_fini(struct qkv_problem *p);
/* Makes dst a deep copy of src. On failure dst is left empty. */
int qkv_problem_copy(struct qkv_problem *dst, const struct qkv_problem *src);
/* True when a and b describe exactly the same problem (bit-identical values). */
bool qkv_problem_equal(const struct qkv_problem *a, const struct qkv_problem *b);

/* Replaces p with the course's three-token worked example (module 2). */
int qkv_problem_worked_example(struct qkv_problem *p);
/* Replaces p with n tokens of N(0,1) entries, Q and K n×d_k, V n×d_v, drawn from
 * seed; the entry of a given matrix, row and column depends only on the seed, so
 * growing d_k later appends the same columns a larger draw would have had. */
int qkv_problem_random(struct qkv_problem *p, int n, int d_k, int d_v, uint64_t seed);

/* Replaces p with a cross-attention problem of m queries q1…qm and n tokens t1…tn:
 * Q m×d_k, K n×d_k, V n×d_v of N(0,1) entries drawn from seed exactly as
 * qkv_problem_random draws them (the same seed gives the same rows). */
int qkv_problem_random_cross(struct qkv_problem *p, int m, int n, int d_k, int d_v, uint64_t seed);
/* Makes a self-attention problem of at least max(m, n) tokens (no causal mask) a
 * cross-attention one: its first m tokens' rows become the queries q1…qm (Q, or
 * X_q = X's rows), its first n the keys and values. On failure p is emptied;
 * QKV_EINVAL for sizes out of range. */
int qkv_problem_cut_cross(struct qkv_problem *p, int m, int n);

/* True when p has a sequence of queries of its own (cross-attention). */
bool qkv_problem_is_cross(const struct qkv_problem *p);
/* The label of query i: its own label in cross-attention, token i's otherwise. */
const char *qkv_problem_query_label(const struct qkv_problem *p, int i);
/* Makes a self-attention problem a cross-attention one whose queries are a copy of
 * its tokens: labels (copied), and X_q = X in the projected form. The numbers are
 * unchanged. Returns 0, QKV_EINVAL (already cross) or QKV_ENOMEM. */
int qkv_problem_make_cross(struct qkv_problem *p);

/* Makes p a multi-head problem of h empty heads (1..QKV_MAX_HEADS): the projected
 * form, with Q, K, V, W_Q, W_K, W_V emptied; X and the options are kept. The
 * caller fills every head and W_O. Returns 0, QKV_EINVAL, QKV_ELIMIT or QKV_ENOMEM. */
int qkv_problem_make_heads(struct qkv_problem *p, int h);

/* The sizes in force (whatever the form; d_k and d_v of any head). */
int qkv_problem_d_k(const struct qkv_problem *p);
int qkv_problem_d_v(const struct qkv_problem *p);
int qkv_problem_d_model(const struct qkv_problem *p); /* 0 in the direct form */

/* The matrix for `which`, or NULL when the form does not have it. In a
 * multi-head problem W_Q, W_K and W_V are NULL (they are per head: heads.h's
 * qkv_problem_head_input) and W_O is the output projection; W_O is NULL in a
 * single-head problem. */
struct qkv_matrix *qkv_problem_input(struct qkv_problem *p, enum qkv_grid which);
const struct qkv_matrix *qkv_problem_input_const(const struct qkv_problem *p,
						 enum qkv_grid which);

/* What the scores are divided by: τ·√d_k, τ, or τ·scale_value. */
double qkv_problem_divisor(const struct qkv_problem *p);
/* True when the key is hidden from the query (causal, custom bits or padding):
 * query 0..m-1, key 0..n-1. */
bool qkv_problem_is_masked(const struct qkv_problem *p, int query, int key);

/* 0 when p is complete and consistent (shapes agree, values finite, sizes within
 * the limits, options in range; a causal mask only with m = n), else QKV_ESHAPE,
 * QKV_ELIMIT or QKV_EINVAL. */
int qkv_problem_check(const struct qkv_problem *p);

/* Inserts a token before index at (0..n) with the given label (copied; NULL makes
 * "tN"): a zero row in Q, K, V (or X), unmasked. Random problems draw the row. In
 * cross-attention the token is a key and value only: a row of K and V (or X) and a
 * column of the mask; the queries stay. A causal problem of m = n queries and keys
 * cannot grow one side alone: QKV_EINVAL. */
int qkv_problem_insert_token(struct qkv_problem *p, int at, const char *label);
/* Removes token at (0..n-1); n must stay >= 1. In cross-attention the queries stay. */
int qkv_problem_remove_token(struct qkv_problem *p, int at);
/* Cross-attention only: inserts a query before index at (0..m) labelled label
 * (copied; NULL makes "qM"): a zero row of Q (or X_q; drawn in random problems),
 * a row of the mask, unmasked. QKV_EINVAL in self-attention or for a causal mask. */
int qkv_problem_insert_query(struct qkv_problem *p, int at, const char *label);
/* Cross-attention only: removes query at (0..m-1); m must stay >= 1. */
int qkv_problem_remove_query(struct qkv_problem *p, int at);
/* The reshaping functions below act on every head of a multi-head problem
 * (W_O's row blocks follow d_v and its columns d_model); draw_d_k refuses one. */
/* Sets d_k (1..QKV_MAX_DIM): columns are appended (zero, or drawn from the seed in
 * random problems) or dropped from the end of Q and K (or W_Q and W_K). */
int qkv_problem_set_d_k(struct qkv_problem *p, int d_k);
/* Sets d_k as qkv_problem_set_d_k does, but whatever the problem, new columns of Q
 * and K (or of W_Q and W_K) are drawn from N(0,1) by seed: the entry of a given
 * matrix, row and column depends only on the seed, as in qkv_problem_random. The
 * problem's own seed (if any) is not changed. */
int qkv_problem_draw_d_k(struct qkv_problem *p, int d_k, uint64_t seed);
/* Sets d_v the same way for V (or W_V). */
int qkv_problem_set_d_v(struct qkv_problem *p, int d_v);
/* Sets d_model for X and the rows of the W's (projected form only). */
int qkv_problem_set_d_model(struct qkv_problem *p, int d_model);
/* Replaces token's label (copied; 1..QKV_MAX_LABEL bytes). */
int qkv_problem_set_label(struct qkv_problem *p, int token, const char *label);
/* Replaces query's label in cross-attention (as qkv_problem_set_label); in
 * self-attention the query is a token and this sets the token's label. */
int qkv_problem_set_query_label(struct qkv_problem *p, int query, const char *label);
/* Replaces the title (copied; NULL clears). */
int qkv_problem_set_title(struct qkv_problem *p, const char *title);
/* Replaces the notes (copied; NULL clears). */
int qkv_problem_set_notes(struct qkv_problem *p, const char *notes);
/* Sets the mask mode; CUSTOM starts from the causal pattern when no bits exist.
 * CAUSAL needs m = n: QKV_EINVAL otherwise. */
int qkv_problem_set_mask(struct qkv_problem *p, enum qkv_mask mask);

#endif
