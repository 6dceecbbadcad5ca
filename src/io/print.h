/* print.h — the printer: a trace written as a report (text, Markdown, LaTeX, CSV,
 * JSON) and the d_k sweep as a table. Every number comes from the trace; the
 * JSON forms follow docs/DESIGN.md's "JSON contracts" exactly. Each format is a
 * backend of its own (print_<format>.c, see print_model.h). */
#ifndef QKV_IO_PRINT_H
#define QKV_IO_PRINT_H

#include <stdio.h>

#include "qkv/attention.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

enum print_format {
	PRINT_TEXT,
	PRINT_MARKDOWN,
	PRINT_LATEX,
	PRINT_CSV,
	PRINT_JSON,
	PRINT_FORMAT_COUNT,
};

struct print_options {
	enum print_format format;
	int stage;     /* -1 = every stage, else 0..5 (QKV_STAGE_*; 0 = projections) */
	int cell_row;  /* the example cell whose derivation is written (0-based) */
	int cell_col;
	int decimals;  /* digits after the point in text, Markdown and LaTeX */
};

/* Parses "text", "markdown", "latex", "csv", "json"; returns 0 or -1. */
int print_format_parse(const char *name, enum print_format *format);
/* The format's --format word ("text", …). */
const char *print_format_name(enum print_format format);
/* Sensible defaults: text, every stage, cell (0, 0), 4 decimals. */
void print_options_default(struct print_options *o);

/* Writes the report of t (computed from p) to out. Returns 0 or -1 on a write error. */
int print_trace(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		const struct print_options *o);

/* Writes a sweep table (count points) in the format; 0, or -1 on a write error. */
int print_sweep(FILE *out, const struct qkv_sweep_point *points, int count, int tokens,
		int trials, unsigned long long seed, enum print_format format);

#endif
