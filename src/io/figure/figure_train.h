/* figure_train.h — training as figures (figure_train.c): a run with the scores
 * scaled by √dₖ against the same run unscaled, and the steps-to-90% sweep over
 * dₖ with its seeds and its lower bounds. Draws what it is given; trains nothing. */
#ifndef QKV_IO_FIGURE_TRAIN_H
#define QKV_IO_FIGURE_TRAIN_H

#include <stddef.h>
#include <stdio.h>

#include "io/figure/figure.h"
#include "qkv/train.h"

/* Four charts over the steps — loss (log axis), accuracy, the gradient norm of
 * the learnt weights and the mean softmax Jacobian norm — each with both runs on
 * the same axes; the subtitle names the task, sizes, dₖ, loss, optimiser,
 * learning rate and seed, and a line says when each run reached 90%. scaled and
 * unscaled are runs of one configuration but for `scaled` (borrowed). 0, or -1
 * with one line in err. */
int figure_train_run_write(FILE *out, enum figure_format format, const struct qkv_train *scaled,
			   const struct qkv_train *unscaled, const struct figure_options *o, char *err,
			   size_t err_size);

/* The sweep c was run with (seeds seeds from c->seed, at most c->steps steps a
 * run): the median steps to 90% per dₖ on log axes, scaled against unscaled,
 * each seed a pale point beside it, a median that is only a lower bound (its
 * middle seed never reached 90%: qkv_train_median_censored) an open ring with an
 * arrow up, the budget a dashed rule. 0, or -1 with one line in err. */
int figure_train_sweep_write(FILE *out, enum figure_format format, const struct qkv_train_config *c, int seeds,
			     const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
			     const struct figure_options *o, char *err, size_t err_size);

#endif
