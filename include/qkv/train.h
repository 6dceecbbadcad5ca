/* train.h — training one attention head on a toy task, with backpropagation
 * written out in double precision. The model is the head every other view shows:
 * O = softmax(X W_Q (X W_K)ᵀ / d) X W_V, computed by qkv_attention() (scale,
 * temperature and mask as in any problem); the backward pass runs the chain
 * dL/dO → dL/dA → dL/dS' (each row's softmax Jacobian) → dL/dS → dL/dQ, dL/dK,
 * dL/dV → dL/dW. No printing, no globals: the caller owns every object.
 *
 * The tasks (n tokens, value classes one per token, d_v = n; X's code parts are
 * ±1 entries, its value part the one-hot of the token's class):
 *   lookup    X = [query code | key code | value]: each token has a random key
 *             code and carries as its query code the key code of another token
 *             (a random permutation); its target is that token's value. W_Q and
 *             W_K must make the score of the matching pair the highest; with one
 *             fixed set of tokens any part of X that tells them apart will do.
 *   previous  X = [position code | value]: the target of token i is the value of
 *             token i − 1 (the first token, which has none, keeps its own).
 *   self      X = [content code | value]: the target is the token's own value.
 * W_V starts as the exact read-out of the value part (V is the one-hot of each
 * token's class) unless W_V is to learn; then it is drawn like W_Q and W_K,
 * N(0, 1/d_model) entries, so every entry of Q and K starts near N(0, 1). */
#ifndef QKV_TRAIN_H
#define QKV_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qkv/attention.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"

enum qkv_task { QKV_TASK_LOOKUP, QKV_TASK_PREVIOUS, QKV_TASK_SELF, QKV_TASK_COUNT };
enum qkv_loss { QKV_LOSS_MSE, QKV_LOSS_XENT };
enum qkv_optimizer { QKV_OPTIMIZER_SGD, QKV_OPTIMIZER_ADAM };

/* The three projections, as indexes into gradient arrays and learn masks. */
enum qkv_weight { QKV_WEIGHT_Q, QKV_WEIGHT_K, QKV_WEIGHT_V, QKV_WEIGHT_COUNT };
#define QKV_LEARN_W_Q (1u << QKV_WEIGHT_Q)
#define QKV_LEARN_W_K (1u << QKV_WEIGHT_K)
#define QKV_LEARN_W_V (1u << QKV_WEIGHT_V)

#define QKV_TRAIN_MAX_TOKENS 64
#define QKV_TRAIN_MAX_STEPS 100000
#define QKV_TRAIN_TARGET_ACCURACY 0.9

/* "lookup", "previous", "self"; "mse", "xent"; "sgd", "adam"; "?" out of range. */
const char *qkv_task_name(enum qkv_task task);
const char *qkv_loss_name(enum qkv_loss loss);
const char *qkv_optimizer_name(enum qkv_optimizer optimizer);
/* The enum for a name, or −1. */
int qkv_task_parse(const char *name);
int qkv_loss_parse(const char *name);
int qkv_optimizer_parse(const char *name);
/* "W_Q", "W_K", "W_V". */
const char *qkv_weight_name(enum qkv_weight weight);

struct qkv_train_config {
	enum qkv_task task;
	int tokens;        /* n, 2..QKV_TRAIN_MAX_TOKENS */
	int d_model;       /* ≥ qkv_train_min_d_model(task, tokens); extra columns are 0 */
	int d_k;           /* 1..QKV_MAX_DIM */
	bool scaled;       /* divide the scores by √d_k (else by 1) */
	double temperature; /* τ, as in a problem */
	enum qkv_mask mask; /* NONE or CAUSAL */
	enum qkv_loss loss;
	enum qkv_optimizer optimizer;
	unsigned learn;    /* QKV_LEARN_* bits; at least one */
	double lr;         /* > 0 */
	int steps;         /* updates to run, 1..QKV_TRAIN_MAX_STEPS */
	uint64_t seed;
};

/* The defaults: 8 tokens, d_model with code parts of 2n entries each, d_k 16,
 * scaled, τ 1, no mask, MSE, SGD, W_Q and W_K learn, lr and steps of
 * qkv_train_default_lr and qkv_train_default_steps, seed 1. */
void qkv_train_config_default(struct qkv_train_config *c, enum qkv_task task);
/* A learning rate that learns the tasks for the loss and optimiser. */
double qkv_train_default_lr(enum qkv_loss loss, enum qkv_optimizer optimizer);
/* How many updates a run makes by default. */
int qkv_train_default_steps(enum qkv_loss loss, enum qkv_optimizer optimizer);
/* d_model = (code parts) × 2n + n, the default for the task. */
int qkv_train_default_d_model(enum qkv_task task, int tokens);
/* The smallest d_model: one code entry per part and the n value columns. */
int qkv_train_min_d_model(enum qkv_task task, int tokens);
/* The loss the run can approach but not go below: with xent and W_V fixed at the
 * read-out, each output row is a weighted average of one-hot values (entries in
 * [0, 1], adding to 1), and −log softmax(O)[t] is least at O = e_t, where it is
 * log(1 + (n − 1)/e). 0 with MSE or when W_V learns (no bound then). */
double qkv_train_loss_floor(const struct qkv_train_config *c);
/* 0 when every field is in range, else QKV_EINVAL. */
int qkv_train_config_check(const struct qkv_train_config *c);

/* The multiply-adds of one step (forward and backward, about n·d_model·(3 d_k +
 * 2 d_v)·2 + n²·(2 d_k + 2 d_v)): what decides how long a step takes. */
double qkv_train_step_work(const struct qkv_train_config *c);
/* The most work per step the interface trains live: under 10 ms a step on the
 * machine the benchmark runs on (64 tokens, d_model 320, d_k 256 is 3.9e7), so a
 * tick of one step for each of the two runs stays under about 20 ms. */
#define QKV_TRAIN_LIVE_WORK 6e7

/* Builds the task's problem (projected form: X and the initial W_Q, W_K, W_V, the
 * scale, τ and mask) and its n × d_v one-hot target, from c->seed alone. */
int qkv_train_task(const struct qkv_train_config *c, struct qkv_problem *p,
		   struct qkv_matrix *target);

/* One forward and backward pass, with every intermediate kept for derivations. */
struct qkv_backprop {
	struct qkv_trace trace;        /* the forward pass, by qkv_attention() */
	double loss, accuracy;
	double jacobian_norm;          /* mean over rows of ‖diag(a) − a aᵀ‖_F */
	struct qkv_matrix d_output;    /* n × d_v, dL/dO */
	struct qkv_matrix d_weights;   /* n × n, dL/dA = dL/dO · Vᵀ */
	struct qkv_matrix d_scaled;    /* n × n, dL/dS' (0 where masked) */
	struct qkv_matrix d_scores;    /* n × n, dL/dS = dL/dS' / d */
	struct qkv_matrix d_q, d_k, d_v; /* dL/dQ = dL/dS K, dL/dK = dL/dSᵀ Q, dL/dV = Aᵀ dL/dO */
	struct qkv_matrix grad[QKV_WEIGHT_COUNT]; /* dL/dW = Xᵀ dL/dQ, … */
	double grad_norm[QKV_WEIGHT_COUNT];       /* Frobenius norms of grad */
	struct qkv_matrix scratch;
};

void qkv_backprop_init(struct qkv_backprop *b);
void qkv_backprop_fini(struct qkv_backprop *b);
/* Loss, accuracy and every gradient of a projected-form problem p against target
 * (n × d_v; its row's largest entry is the class for xent and accuracy).
 * mse: L = mean over the n·d_v entries of (O − T)²; xent: L = mean over rows of
 * −log softmax(O_i)[class_i]. Returns 0, QKV_ESHAPE or QKV_ENOMEM. */
int qkv_backprop_run(struct qkv_backprop *b, const struct qkv_problem *p,
		     const struct qkv_matrix *target, enum qkv_loss loss);

/* The backward pass of one row of softmax: out = (diag(a) − a aᵀ) g, written as
 * out_j = a_j (g_j − Σ_k a_k g_k). */
void qkv_softmax_backward_row(const double *a, const double *g, int count, double *out);

/* What one step of a run measured, at the weights after `step` updates. */
struct qkv_train_record {
	int step;
	double loss, accuracy;
	double grad_norm[QKV_WEIGHT_COUNT];
	double jacobian_norm;
};

struct qkv_train {
	struct qkv_train_config config;
	struct qkv_problem problem;      /* X and the current weights */
	struct qkv_matrix target;
	struct qkv_matrix initial[QKV_WEIGHT_COUNT];
	struct qkv_backprop now;         /* at the current weights */
	struct qkv_matrix moment1[QKV_WEIGHT_COUNT], moment2[QKV_WEIGHT_COUNT]; /* Adam */
	struct qkv_train_record *history; /* count records: steps 0 … count − 1 */
	int count, capacity;
	int steps_to_90;                 /* first step with accuracy ≥ 0.9, or −1 */
};

/* Builds the task and evaluates step 0. On failure t is left empty (fini-safe). */
int qkv_train_init(struct qkv_train *t, const struct qkv_train_config *c);
void qkv_train_fini(struct qkv_train *t);
/* One update of the learning weights by the optimiser, then the new point's
 * record. Returns 0 or QKV_ENOMEM. */
int qkv_train_step(struct qkv_train *t);
/* Steps until config.steps updates are done (or `until_90` and the accuracy has
 * reached 0.9). Returns 0 or a QKV_E* code. */
int qkv_train_run(struct qkv_train *t, bool until_90);
/* The matrix of a projection in the current problem. */
const struct qkv_matrix *qkv_train_weight(const struct qkv_train *t, enum qkv_weight w);

/* The steps-to-90% experiment over d_k = 4, 8, …, 256, scaled against unscaled. */
#define QKV_TRAIN_SWEEP_POINTS 7
#define QKV_TRAIN_SWEEP_MAX_SEEDS 32
struct qkv_train_sweep_point {
	int d_k;
	/* steps to 90% per seed, −1 when not reached within the budget */
	int scaled[QKV_TRAIN_SWEEP_MAX_SEEDS], unscaled[QKV_TRAIN_SWEEP_MAX_SEEDS];
	double scaled_median, unscaled_median; /* censored runs count as budget + 1 */
	int scaled_reached, unscaled_reached;  /* seeds that reached 90% */
};
/* Runs c (d_k and scaled replaced) for seeds c->seed … c->seed + seeds − 1, each
 * at most c->steps updates. seeds 1..QKV_TRAIN_SWEEP_MAX_SEEDS. */
int qkv_train_sweep(const struct qkv_train_config *c, int seeds,
		    struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS]);
/* The same sweep in pieces, so an interface can run it between keys: begin, then
 * advance with a budget of work (qkv_train_step_work units; INFINITY for all of
 * it) until done, then end. points fill in as each d_k finishes. */
struct qkv_train_sweep_state {
	struct qkv_train_config config;
	int seeds;
	struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS];
	int point, side, seed;  /* the run in progress: d_k index, 0 scaled / 1 unscaled, seed */
	struct qkv_train run;
	bool open, done;
};
int qkv_train_sweep_begin(struct qkv_train_sweep_state *s, const struct qkv_train_config *c,
			  int seeds);
int qkv_train_sweep_advance(struct qkv_train_sweep_state *s, double work);
void qkv_train_sweep_end(struct qkv_train_sweep_state *s);

/* The median over seeds of steps to 90%, counting a seed that never got there as
 * budget + 1 (so the median is a lower bound when it is above the budget). */
double qkv_train_median_steps(const int *steps, int seeds, int budget);

/* True when a median of steps over seeds runs is censored, only a lower bound:
 * the middle value (either middle value, for an even count) is a run that never
 * reached 90%, i.e. reached ≤ seeds / 2 (integer division). */
bool qkv_train_median_censored(int reached, int seeds);

/* The gap at one point: the unscaled median over the scaled median. *at_least is
 * set when the unscaled median is a censored budget + 1 (the gap is then a lower
 * bound); returns −1 when the scaled head itself did not get there (median above
 * the budget), so there is no gap to state. */
double qkv_train_sweep_gap(const struct qkv_train_sweep_point *point, int budget,
			   bool *at_least);
/* A gap as shown, into buf: "5.1×" or "56×" (one decimal below 10, rounded), or
 * as a lower bound "≥ 55×", rounded down so the bound still holds (501/9 = 55.67
 * is "≥ 55×"). gap ≥ 0. */
void qkv_train_gap_text(char *buf, size_t size, double gap, bool at_least);
/* One or two sentences on the sweep's largest d_k, computed from its numbers: the
 * gap, and — given the MSE + SGD sweep of the same task as baseline (NULL when
 * the sweep is MSE + SGD itself) — whether `name` ("xent + adam") shrinks it,
 * there and, when a gap there is only a lower bound, at the largest d_k where
 * both gaps are measured.
 * Returns the length needed, as snprintf. */
int qkv_train_sweep_verdict(char *buf, size_t size,
			    const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
			    int seeds, int budget, const char *name,
			    const struct qkv_train_sweep_point baseline[QKV_TRAIN_SWEEP_POINTS]);

/* The arithmetic of dL/dW[row, col] for the projection w, with its numbers: the
 * sum over tokens, and the chain back through the token and key that contribute
 * most (dL/dQ, dL/dS, dL/dS', dL/dA, dL/dO). Lines separated by '\n'. Returns the
 * length needed (as snprintf) or QKV_EINVAL for a cell out of range. */
int qkv_train_derive(char *buf, size_t size, const struct qkv_problem *p,
		     const struct qkv_backprop *b, enum qkv_weight w, int row, int col,
		     int decimals);

#endif
