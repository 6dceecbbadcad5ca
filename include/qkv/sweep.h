/* sweep.h — the d_k sweep behind the saturation view and `qkv --sweep`:
 * for d_k = 1, 2, 4, … d_k_max, draw Q and K i.i.d. N(0,1) (n tokens, several
 * trials, one seeded generator) and measure softmax with and without √d_k. */
#ifndef QKV_SWEEP_H
#define QKV_SWEEP_H

#include <stdint.h>

/* Means over trials and query rows. */
struct qkv_sweep_figures {
	double score_variance; /* variance of the entries fed to softmax */
	double max_weight;
	double entropy_ratio;  /* entropy / ln n: 1 uniform, 0 one-hot */
	double jacobian_norm;
};

struct qkv_sweep_point {
	int d_k;
	struct qkv_sweep_figures scaled, unscaled;
};

#define QKV_SWEEP_MAX_POINTS 13 /* d_k = 1 … 4096 */

/* The sweep's defaults (--sweep and the saturation view): tokens, trials per d_k,
 * the largest d_k and the seed. */
#define QKV_SWEEP_TOKENS 16
#define QKV_SWEEP_TRIALS 8
#define QKV_SWEEP_DK_MAX 1024
#define QKV_SWEEP_SEED 1

/* Fills points[0..] for d_k = 1, 2, 4, … up to d_k_max (1..QKV_MAX_DIM) and returns
 * how many (at most QKV_SWEEP_MAX_POINTS), or QKV_EINVAL (tokens 2..QKV_MAX_TOKENS,
 * trials 1..10000) or QKV_ENOMEM. The same arguments give the same figures. */
int qkv_sweep(int tokens, int trials, uint64_t seed, int d_k_max,
	      struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS]);

#endif
