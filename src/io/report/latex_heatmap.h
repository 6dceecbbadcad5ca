/* latex_heatmap.h — one stage's n×n heatmap (scores, scaled scores or weights)
 * as LaTeX to paste into a Beamer slide or a paper: a tabular whose cells carry
 * \cellcolor[RGB]{…} (xcolor's table option) and the numbers, or a pgfplots
 * `matrix plot*` with the same colours as a piecewise constant colour map, a
 * colour bar and each number written on its cell. The colours are the figures'
 * (figure_heat_fill with the figure options' map, --levels and --range): the
 * tabular's cells exactly, the pgfplots colour map in --levels bins (256 when
 * continuous); the text on each cell black or white by contrast. */
#ifndef QKV_IO_LATEX_HEATMAP_H
#define QKV_IO_LATEX_HEATMAP_H

#include <stdio.h>

#include "io/figure/figure.h"
#include "qkv/attention.h"
#include "qkv/heads.h"
#include "qkv/problem.h"

enum latex_heatmap_form { LATEX_HEATMAP_TABLE, LATEX_HEATMAP_PGFPLOTS };

/* "table" or "pgfplots" → 0 and *form, else -1. */
int latex_heatmap_parse(const char *name, enum latex_heatmap_form *form);

/* Writes stage o->stage (1, 2 or 3) of t as a heatmap coloured as the figure
 * with the options o would be (its palette or map, levels and range), with
 * o->decimals digits. Returns 0, or -1 on a write error or another stage. */
int latex_heatmap_write(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
			const struct figure_options *o, enum latex_heatmap_form form);

/* Every head's heatmap of a multi-head trace, one after the other, each titled
 * "Head i of h" (above the tabular; pgfplots: the axis title), on one colour
 * range as the figure's heads share one bar. 0 or -1, as above. */
int latex_heatmap_write_heads(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
			      const struct figure_options *o, enum latex_heatmap_form form);

/* The preamble a heatmap of that form needs (what its first comment names). */
const char *latex_heatmap_preamble(enum latex_heatmap_form form);

#endif
