/* figure_internal.h — what the parts of a stage's figure share (private to
 * figure.c, figure_bar.c and figure_heads.c): the panels and the figure being laid
 * out and drawn, and the calls one part makes into another. figure.c holds the
 * panels, their layout and drawing and the public calls of one trace;
 * figure_bar.c the colour scale and the colour bar; figure_heads.c the multi-head
 * figure's panels and its public calls. */
#ifndef QKV_IO_FIGURE_INTERNAL_H
#define QKV_IO_FIGURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/figure/figure.h"
#include "io/figure/figure_canvas.h"
#include "qkv/colour.h"
#include "qkv/heads.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"
#include "qkv/attention.h"

#define FONT_SIZE 12.0        /* the numbers' size at the natural size */

enum panel_colour { COLOUR_PLAIN, COLOUR_WEIGHTS, COLOUR_SIGNED };
/* The tokens' labels (the keys'), the queries' (the same in self-attention), d1…. */
enum label_kind { LABELS_TOKENS, LABELS_QUERIES, LABELS_DIMS };

struct panel {
	char title[160];
	const struct qkv_trace *t;    /* whose mask and weights' sums */
	const struct qkv_matrix *m;   /* NULL for the mix */
	int rows, cols;
	enum panel_colour colour;
	enum label_kind row_labels, col_labels;
	bool square;                  /* queries × keys: the mask applies */
	bool mix;                     /* a_qj · v_jc for one query, then Σ */
	int query;
	bool sums;                    /* a wrong-way demonstration's row and column sums */
	bool selectable;              /* --cell frames a cell here */
	bool numbers;                 /* the cells carry their numbers */
	/* Layout, natural units. */
	double x, y, w, h;
	double grid_x, grid_y, cell_w, cell_h, label_w;
	double number_fs, row_fs, col_fs; /* the numbers', row labels' and column labels' sizes */
	bool cols_up;                 /* column labels turned to read upwards */
	double cols_h;                /* the column labels' height above the grid */
};

struct fig {
	const struct qkv_problem *p;
	const struct qkv_trace *t;        /* the single trace, or the first head shown */
	const struct qkv_heads_trace *heads; /* multi-head, else NULL */
	struct figure_options o;
	struct panel panels[FIGURE_MAX_PANELS];
	int count;
	int per_row;                      /* panels side by side (multi-head: the grid's columns) */
	struct qkv_matrix average;        /* FIGURE_HEADS_AVERAGE: the heads' mean weights */
	struct qkv_ramp weights, signs;
	struct figure_scale scale;        /* the heatmaps' colours, one for the figure */
	bool bar;                         /* a colour bar is drawn */
	double bar_x, bar_y, bar_w, bar_h;
	bool clamped_low, clamped_high;   /* values beyond the range, either side */
	struct qkv_rgb bg, fg, label, error, frame, rule;
	bool bold_numbers;
	char title[256], subtitle[256], facts[512];
	bool header;                      /* the built-in title, formula and facts */
	double top;                       /* where the panels start */
	bool wrong;
	struct canvas cv;
};

/* Whether a panel is a heatmap (coloured by value). */
static inline bool heat(const struct panel *pn)
{
	return pn->colour != COLOUR_PLAIN;
}

/* Rows of numbers a panel has (the mix: one more, the sum). */
static inline int grid_rows(const struct panel *pn)
{
	return pn->rows + (pn->mix || pn->sums ? 1 : 0);
}

/* Columns of numbers a panel has (the wrong-way sums: one more). */
static inline int grid_cols(const struct panel *pn)
{
	return pn->cols + (pn->sums ? 1 : 0);
}

/* ---- figure.c ---- */

/* text's width in natural units at size, measured with cairo. */
double fig_text_width(struct fig *f, const char *text, double size, bool bold);
/* Whether cell (row, col) of pn is masked (the mix: its key row). */
bool fig_cell_masked(const struct fig *f, const struct panel *pn, int row, int col);
/* The value of cell (row, col) of pn (the mix: row pn->rows is the output). */
double fig_cell_value(const struct fig *f, const struct panel *pn, int row, int col);
/* Appends a panel of m to f (room for FIGURE_MAX_PANELS is the caller's); the new
 * panel, borrowed from f. */
struct panel *fig_add_panel(struct fig *f, const char *title, const struct qkv_trace *t,
			    const struct qkv_matrix *m, enum panel_colour colour, enum label_kind rows,
			    enum label_kind cols, bool square);
/* Lays the figure out (heads NULL: the one trace t; else t is ignored); 0, or -1
 * out of memory. fig_close frees what it holds. */
int fig_open(struct fig *f, const struct qkv_problem *p, const struct qkv_trace *t,
	     const struct qkv_heads_trace *heads, const struct figure_options *o);
void fig_close(struct fig *f);
/* figure_write and figure_bytes for one trace (heads NULL) or several heads. */
int fig_write(FILE *out, enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
	      const struct qkv_heads_trace *heads, const struct figure_options *o, char *err, size_t err_size);
char *fig_bytes(enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
		const struct qkv_heads_trace *heads, const struct figure_options *o, size_t *length, char *err,
		size_t err_size);
/* figure_panels, figure_check_size and figure_cell for one trace (h NULL) or
 * several heads. */
int fig_panels(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
	       const struct figure_options *o, int rows[FIGURE_MAX_PANELS], int cols[FIGURE_MAX_PANELS]);
int fig_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
		   const struct figure_options *o, char *err, size_t err_size);
int fig_cell(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
	     const struct figure_options *o, int panel, int row, int col, struct figure_cell *cell);

/* ---- figure_bar.c ---- */

/* Sets f->scale and f->clamped_low / f->clamped_high from f's options and panels. */
void fig_make_scale(struct fig *f);
/* Whether the figure has a colour bar: a heatmap drawn in colour. */
bool fig_has_bar(const struct fig *f);
/* The colour bar's width with its ticks and clamp marks, from its left edge. */
double fig_bar_extent(struct fig *f);
/* Draws the colour bar at f->bar_x, bar_y, bar_w, bar_h. */
void fig_draw_bar(struct fig *f);

/* ---- figure_heads.c ---- */

/* A multi-head problem's panels into f (f->heads not NULL). */
void fig_heads_panels(struct fig *f);
/* The heads' mean weights into f->average, for FIGURE_HEADS_AVERAGE; 0, or -1 out
 * of memory. */
int fig_heads_average(struct fig *f);

#endif
