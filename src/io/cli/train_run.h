/* train_run.h — `qkv --train TASK` without the interface: trained, then printed or
 * drawn (train_run.c). */
#ifndef QKV_IO_TRAIN_RUN_H
#define QKV_IO_TRAIN_RUN_H

#include <stdio.h>

#include "io/cli/train_cli.h"

/* Runs what c asks for (a run or a sweep) and prints it to out, or with c->output
 * to that file atomically (nothing is written when the run fails); the exit status:
 * 0, 1 with one line on stderr when a run or a write fails, 2 when the file cannot
 * be saved. */
int train_run_print(FILE *out, const struct train_cli *c);

/* Trains as c asks and writes the figure to standard output or c->output
 * (atomically); the exit status: 0, 1 (training or drawing failed) or 2 (the
 * output cannot be written), with one line on stderr. */
int train_run_figure(const struct train_cli *c);

#endif
