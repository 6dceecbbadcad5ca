/* figure_train.h — `qkv --train TASK --format svg|pdf|png`: a run's curves or the
 * steps-to-90% sweep drawn as charts (see figure_train.c). */
#ifndef QKV_IO_FIGURE_TRAIN_H
#define QKV_IO_FIGURE_TRAIN_H

#include "io/cli/train_cli.h"

/* Trains as c asks and writes the figure to standard output or c->output
 * (atomically); the exit status: 0, 1 (training or drawing failed) or 2 (the
 * output cannot be written), with one line on stderr. */
int figure_train_cli(const struct train_cli *c);

#endif
