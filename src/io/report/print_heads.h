/* print_heads.h — the printed report of a multi-head problem: every head's report
 * (print_trace of that head's single-head view), then the concatenation, W_O and
 * the output Concat · W_O with the example cell's shares; or one JSON object. */
#ifndef QKV_IO_PRINT_HEADS_H
#define QKV_IO_PRINT_HEADS_H

#include <stdio.h>

#include "io/report/print.h"
#include "qkv/heads.h"
#include "qkv/problem.h"

/* Writes the report of t (computed from p, h >= 1) to out in o's format.
 * Returns 0, or -1 on a write error or when memory runs out. */
int print_heads(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
		const struct print_options *o);

#endif
