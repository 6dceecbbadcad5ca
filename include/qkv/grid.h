/* grid.h — the catalogue of grids: every matrix qkv shows, edits, prints or reads,
 * named once. An enum of them and one table of what each is (its name on screen,
 * in files and in lessons, its role in words, its LaTeX name, the form of problem
 * that gives it, the stage that shows it, what its rows and columns count), and
 * the function that finds a grid's matrix in a problem and its traces. The
 * editor's focus, the change marks, lessons, the layout, the printer and the
 * loader read it; a grid added here is known to all of them. No printing. */
#ifndef QKV_GRID_H
#define QKV_GRID_H

#include <stdbool.h>

#include "qkv/matrix.h"

struct qkv_problem;
struct qkv_trace;
struct qkv_heads_trace;

/* The form of a problem: which inputs it gives. */
enum qkv_form {
	QKV_FORM_DIRECT,    /* Q, K, V given */
	QKV_FORM_PROJECTED, /* X, W_Q, W_K, W_V given; Q = X W_Q and so on */
};

/* What a grid's rows or columns count. */
enum qkv_dim {
	QKV_DIM_QUERIES, /* m: the queries (n in self-attention, where they are the tokens) */
	QKV_DIM_KEYS,    /* n: the tokens that give the keys and values */
	QKV_DIM_MODEL,   /* d_model (the projected form's token vectors) */
	QKV_DIM_K,       /* d_k */
	QKV_DIM_V,       /* d_v */
	QKV_DIM_HEADS_V, /* h·d_v: the heads' outputs side by side (W_O's rows) */
};

/* Every grid. The inputs come first (a problem gives them; an editor edits them),
 * then the computed ones. In a multi-head problem W_Q, W_K, W_V and S, S', A, O
 * are a head's (the selected one's), X, W_O, Concat and the layer output the
 * problem's. */
enum qkv_grid {
	QKV_GRID_Q,
	QKV_GRID_K,
	QKV_GRID_V,
	QKV_GRID_X,
	QKV_GRID_X_Q,     /* cross-attention's queries' sequence (projected form) */
	QKV_GRID_W_Q,
	QKV_GRID_W_K,
	QKV_GRID_W_V,
	QKV_GRID_W_O,     /* multi-head problems only */
	QKV_GRID_SCORES,  /* S = Q Kᵀ */
	QKV_GRID_SCALED,  /* S' = S / d */
	QKV_GRID_WEIGHTS, /* A = softmax(S') by rows */
	QKV_GRID_OUTPUT,  /* O = A V */
	QKV_GRID_CONCAT,  /* multi-head: the heads' outputs side by side */
	QKV_GRID_LAYER,   /* multi-head: the layer output Concat · W_O */
	QKV_GRID_COUNT,
};
/* The inputs are the grids before this one. */
#define QKV_GRID_INPUTS QKV_GRID_SCORES

/* Where a grid's values come from. */
enum qkv_grid_source {
	QKV_SOURCE_INPUT, /* given by a problem of `form` (W_O: a multi-head one) */
	QKV_SOURCE_TRACE, /* a single-head trace's (Q, K, V as used, S, S', A, O) */
	QKV_SOURCE_HEADS, /* a multi-head trace's (Concat, the layer output) */
};

/* Everything said about one grid, in one place: the screen, the loader, the saver,
 * the printer and lessons all read it from here, indexed by enum qkv_grid. */
struct qkv_grid_info {
	const char *name;     /* "W_Q", "S'": on screen, in messages, in lessons, and an
				 input's problem-file key */
	const char *role;     /* "query projection": what it is, in words */
	const char *tex_name; /* "W_Q", "S'": in LaTeX math */
	enum qkv_grid_source source;
	enum qkv_form form;   /* an input's: the form of problem that gives it (X_q: a
				 cross-attention one) */
	int stage;            /* the stage that shows it: an enum qkv_stage, 6 for Concat
				 and 7 for the layer output and W_O (multi-head) */
	enum qkv_dim rows, cols; /* its shape: X is keys × d_model, S queries × keys */
};
extern const struct qkv_grid_info qkv_grid_info[QKV_GRID_COUNT];

/* The grid's name ("Q", "S'", "concat"…; "?" out of range). */
const char *qkv_grid_name(enum qkv_grid grid);
/* The grid named name (as qkv_grid_info's names, exactly): 0, or -1 when none is. */
int qkv_grid_parse(const char *name, enum qkv_grid *grid);
/* The grid computed by stage (an enum qkv_stage; 6 and 7 with heads: Concat and the
 * layer output) into *grid: 0, or -1 for a stage without one grid of its own (the
 * projections, the mix). */
int qkv_grid_of_stage(int stage, enum qkv_grid *grid);
/* True for the grids a problem gives (Q … W_O). */
bool qkv_grid_is_input(enum qkv_grid grid);
/* True for the grids of a single-head trace: Q, K and V as used, S, S', A, O. */
bool qkv_grid_in_trace(enum qkv_grid grid);
/* True for the m × n grids of a trace (S, S', A): query by key. */
bool qkv_grid_is_attention(enum qkv_grid grid);

/* The matrix of grid: X, X_q and the W's from p (in a multi-head problem W_Q, W_K and
 * W_V are head's), Q, K and V as used and S, S', A, O from trace (the single-head
 * trace, or the selected head's as the caller keeps it), Concat and the layer
 * output from heads. NULL when there is none (W_O of a one-head problem, X of a
 * direct one, X_q of self-attention, Concat without heads, a NULL trace or heads). */
const struct qkv_matrix *qkv_grid_matrix(const struct qkv_problem *p, const struct qkv_trace *trace,
					 const struct qkv_heads_trace *heads, int head, enum qkv_grid grid);

#endif
