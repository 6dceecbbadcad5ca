/* print_cost.h — the cost explorer's table on paper: `qkv --cost` measures one
 * head's trace for n = 16, 32, … on this machine and writes what it costs (scores,
 * bytes, flops, time), the fitted log–log slope and the extrapolation, as text,
 * Markdown, CSV or JSON. */
#ifndef QKV_IO_PRINT_COST_H
#define QKV_IO_PRINT_COST_H

#include <stdio.h>

#include "io/report/print.h"
#include "qkv/cost.h"

/* Writes a measured table c in format (not LaTeX). Returns 0 or -1 on a write
 * error or an unsupported format. */
int print_cost(FILE *out, const struct qkv_cost *c, enum print_format format);

/* Measures the table for d_k, heads and algorithms (QKV_COST_MEASURE bits) on this
 * machine's monotonic clock (a few seconds; past n = 4,096 only while the total
 * stays within budget_ms) into c, which the caller finishes with qkv_cost_fini;
 * then reads the process's peak resident memory into c->peak_resident_bytes.
 * Returns 0 or a QKV_E* code. */
int print_cost_measure(struct qkv_cost *c, int d_k, int heads, double budget_ms, unsigned algorithms);

#endif
