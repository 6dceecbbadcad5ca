/* saturation.h — the saturation view's state (S): the d_k sweep on random
 * problems, scaled against unscaled, and its parameters. Changed only through
 * app_update (its keys and its opening live in app/saturation.c); no curses. */
#ifndef QKV_APP_SATURATION_H
#define QKV_APP_SATURATION_H

#include <stdint.h>

#include "qkv/sweep.h"

struct app_saturation {
	struct qkv_sweep_point sweep[QKV_SWEEP_MAX_POINTS]; /* count of them, d_k = 1, 2, 4, … */
	int count;
	int tokens, trials;  /* of each random problem; ↑ ↓ and ← → double and halve them */
	int dk_max;          /* the largest d_k swept */
	uint64_t seed;
};

#endif
