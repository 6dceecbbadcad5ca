/* print_train.h — training printed: one run (`qkv --train TASK --format F`) or the
 * steps-to-90% sweep (`--train-sweep`), as text, CSV or JSON. The JSON of a run is
 * the contract: format ("qkv-train-run 1"), task, n, d_model, d_k, d_v, scaled,
 * learn, budget, divisor, loss, optimizer, lr, seed (enough to replay the run), X,
 * target, W_Q, W_K, W_V (initial), grad0, steps, steps_to_90, final. */
#ifndef QKV_IO_PRINT_TRAIN_H
#define QKV_IO_PRINT_TRAIN_H

#include <stdio.h>

#include "io/report/print.h"
#include "qkv/train.h"

/* Writes the run t (already run) to out. Returns 0 or -1 on a write error. */
int print_train_run(FILE *out, const struct qkv_train *t, enum print_format format);

/* Writes a sweep of c's task (seeds from c->seed, budget c->steps); baseline is the
 * MSE + SGD sweep of the same task to compare with, or NULL. 0 or -1. */
int print_train_sweep(FILE *out, const struct qkv_train_config *c, int seeds,
		      const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
		      const struct qkv_train_sweep_point *baseline, enum print_format format);

#endif
