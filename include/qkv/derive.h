/* derive.h — the arithmetic of one cell, written out with its actual numbers.
 * Used by the screen (the derivation line) and by the printer (handouts), so
 * both show the same text. Plain UTF-8, one or more lines separated by '\n'. */
#ifndef QKV_DERIVE_H
#define QKV_DERIVE_H

#include <stddef.h>

#include "qkv/attention.h"
#include "qkv/problem.h"

/* Writes the derivation of cell (row, col) of `stage` into buf (size bytes,
 * always NUL-terminated when size > 0), with numbers at `decimals` places.
 * Cells: PROJECTIONS (row = query, col = column of Q), SCORES/SCALED/WEIGHTS
 * (row = query, col = key), MIX and OUTPUT (row = query, col = column of V).
 * p is the problem the trace was computed from (for labels and options).
 * Returns the full length the text needs (as snprintf), or QKV_EINVAL when the
 * cell is out of range. */
int qkv_derive(char *buf, size_t size, const struct qkv_problem *p,
	       const struct qkv_trace *t, enum qkv_stage stage, int row, int col,
	       int decimals);

#endif
