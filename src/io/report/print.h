/* print.h — the printer: a trace written as a report (text, Markdown, LaTeX, CSV,
 * JSON) or drawn as a figure (SVG, PDF, PNG), and the d_k sweep as a table or its
 * charts. Every number comes from the trace; the JSON forms follow
 * docs/DESIGN.md's "JSON contracts" exactly. Each format is a backend of its own
 * (print_<format>.c, print_figure.c; see print_model.h), and the table of
 * backends in print.c is the one list of --format's words: parsing, --help and
 * the messages read it. */
#ifndef QKV_IO_PRINT_H
#define QKV_IO_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "io/figure/figure.h"
#include "qkv/attention.h"
#include "qkv/online.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

enum print_format {
	PRINT_TEXT,
	PRINT_MARKDOWN,
	PRINT_LATEX,
	PRINT_CSV,
	PRINT_JSON,
	PRINT_SVG,
	PRINT_PDF,
	PRINT_PNG,
	PRINT_FORMAT_COUNT,
};

/* What a format makes. */
enum print_kind {
	PRINT_KIND_REPORT, /* text for people or scripts (text … json) */
	PRINT_KIND_FIGURE, /* a picture of a stage or of the sweep (svg, pdf, png) */
};

/* --stage geometry: not a stage of the computation but a view of stage 1's
 * inputs, the queries and keys as points in a plane (print_geometry). */
#define PRINT_STAGE_GEOMETRY 16

struct print_options {
	enum print_format format;
	int stage;     /* -1 = every stage, else 0..5 (QKV_STAGE_*; 0 = projections),
			* or PRINT_STAGE_GEOMETRY */
	int cell_row;  /* the example cell whose derivation is written (0-based) */
	int cell_col;
	int decimals;  /* digits after the point in text, Markdown and LaTeX */
	/* Figure formats: how the figure is drawn (NULL: figure_options_default),
	 * and where the reason goes when it cannot be (err_size 0: nowhere). */
	const struct figure_options *figure;
	char *err;
	size_t err_size;
};

/* Parses a --format word ("text", …, "png"); returns 0 or -1. */
int print_format_parse(const char *name, enum print_format *format);
/* The format's --format word ("text", …). */
const char *print_format_name(enum print_format format);
/* What the format makes (PRINT_KIND_REPORT for a format out of range). */
enum print_kind print_format_kind(enum print_format format);
/* The figure format of a figure kind's format: 0 and *figure, else -1. */
int print_format_figure(enum print_format format, enum figure_format *figure);
/* Whether the format's bytes are not text (PDF, PNG: never to a terminal). */
bool print_format_binary(enum print_format format);
/* Whether the format writes a training run and sweep (--train; text, CSV, JSON). */
bool print_format_trains(enum print_format format);
/* Whether the format writes a multi-head problem's report (the report formats). */
bool print_format_heads(enum print_format format);
/* Whether the format writes the online softmax's report (text, Markdown, CSV, JSON). */
bool print_format_online(enum print_format format);
/* Whether the format writes --stage geometry (text, JSON, the figures). */
bool print_format_geometry(enum print_format format);
/* Whether the format writes --cost's table (text, Markdown, CSV, JSON). */
bool print_format_costs(enum print_format format);
/* The words of the formats of `kind` (every kind when kind is -1) for which
 * `fits` holds (every one when NULL), in the table's order, as a list for people:
 * "text, markdown, latex, csv or json". Empty when none fits. */
void print_format_names(char *buf, size_t size, int kind, bool (*fits)(enum print_format));
/* Sensible defaults: text, every stage, cell (0, 0), 4 decimals. */
void print_options_default(struct print_options *o);

/* Writes the report (or draws the figure) of t, computed from p, to out. Returns
 * 0, or -1 on a write error or a figure that could not be drawn (its reason in
 * o->err). */
int print_trace(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		const struct print_options *o);

/* Writes the report of the online softmax o, computed from p, to out: the problem's
 * facts and inputs, what the algorithm kept (each query's m and ℓ, the bytes it
 * held) and the output; no S, S' or A, which it never forms. o->figure, o->stage
 * and the cell are not used. Returns 0, or -1 on a write error or a format that
 * does not write it (print_format_online). */
int print_online(FILE *out, const struct qkv_problem *p, const struct qkv_online *online,
		 const struct print_options *o);
/* Writes the geometry of t's queries and keys (--stage geometry) in o's format,
 * or draws it; the selected query and key are o's cell (row, column). 0, or -1
 * on a write error, a format without it, or a figure not drawn (o->err). */
int print_geometry(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		   const struct print_options *o);

/* Writes a sweep table (count points) in o's format, or draws its charts (a
 * figure format); 0, or -1 on a write error or a figure not drawn (o->err). */
int print_sweep(FILE *out, const struct qkv_sweep_point *points, int count, int tokens,
		int trials, unsigned long long seed, const struct print_options *o);

/* "svg", "pdf", "png" → 0 and *format, else -1: the printer table's words for its
 * figure formats (print_figure.c). */
int print_figure_format_parse(const char *name, enum figure_format *format);

#endif
