/* figure.h — the figure of one stage of a trace, for slides and papers: the
 * heatmap of scores, scaled scores or weights with its number in each cell (or
 * none: --numbers), the token labels on both axes, a colour bar with round
 * ticks, the title and the formula; stage 5 draws A, V and O side by side, stage
 * 0 the projections Q, K, V, stage 4 one query's terms aᵢⱼ · vⱼ and their sum. A
 * multi-head problem's figure is one heatmap per head ("Head i") in a grid with
 * one shared colour bar, and on request the heads' average and Concat, Concat ·
 * W_O. The colours are qkv/colour.h's continuous maps (viridis, cividis, grey;
 * coolwarm for signed values), or N equal steps of them (levels), or a screen
 * palette's steps; each number's text is black or white, whichever has the
 * higher contrast on its cell. Masked cells are the masked grey with "—", a
 * wrong-way demonstration's weights carry their row and column sums, the
 * selected cell has the screen's orange-red frame.
 *
 * PDF and PNG are drawn by cairo (text stays text in the PDF). SVG is written as
 * plain SVG elements — one <rect> per cell, numbers and labels as <text> — laid
 * out with cairo's text measurements, because cairo's own SVG surface turns text
 * into glyph outlines. All formats share one layout, so a cell sits at the same
 * place in each at the same size. */
#ifndef QKV_IO_FIGURE_H
#define QKV_IO_FIGURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "qkv/attention.h"
#include "qkv/colour.h"
#include "qkv/error.h"
#include "qkv/geometry.h"
#include "qkv/heads.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

enum figure_format { FIGURE_SVG, FIGURE_PDF, FIGURE_PNG };

/* The most panels a figure has: a heatmap per head, their average, Concat and
 * Concat · W_O. */
#define FIGURE_MAX_PANELS (QKV_MAX_HEADS + 3)
/* The largest --size side, points or pixels. */
#define FIGURE_MAX_SIDE 8192.0
#define FIGURE_MIN_SIDE 16.0

/* --numbers: the numbers in a heatmap's cells. AUTO drops them when they would
 * be drawn smaller than FIGURE_MIN_NUMBER_SIZE at the figure's output size. */
enum figure_numbers { FIGURE_NUMBERS_AUTO, FIGURE_NUMBERS_ON, FIGURE_NUMBERS_OFF };
/* The smallest number text AUTO keeps, in output units (points; PNG pixels). */
#define FIGURE_MIN_NUMBER_SIZE 7.0
/* A heatmap's grid is at most this wide and tall at the natural size (points):
 * past it the cells, and their numbers, shrink. */
#define FIGURE_GRID_MAX 720.0

/* A multi-head figure's extra panels (figure_options.heads_panels). */
#define FIGURE_HEADS_AVERAGE 1u /* the heads' weights averaged (stage 3) */
#define FIGURE_HEADS_CONCAT 2u  /* Concat(head₁ … headₕ) and Concat · W_O */

/* The most --levels. */
#define FIGURE_MAX_LEVELS 256

struct figure_options {
	int stage;          /* 0..5 (QKV_STAGE_*) */
	int palette;        /* enum qkv_palette: its stepped ramps when map < 0 */
	int map;            /* enum qkv_colour_map of the weights (signed values: coolwarm,
			       or grey for grey), continuous; -1: the palette's steps */
	int levels;         /* 0: continuous; 2..FIGURE_MAX_LEVELS equal steps of the map */
	bool range_given;   /* the colours' range is range_low..range_high (else auto: */
	double range_low;   /* 0..1 for weights, ±max |value| unmasked for signed) */
	double range_high;
	enum figure_numbers numbers;
	const char *title;  /* NULL: the built-in title, formula and facts; "": no title;
			       else this line instead (borrowed) */
	int head;           /* multi-head: -1 every head, else that head alone (0-based) */
	unsigned heads_panels; /* FIGURE_HEADS_* bits (multi-head) */
	bool dark;          /* light text on a dark background */
	int decimals;       /* 0..12 */
	int cell_row;       /* the selected cell, framed (-1: none) */
	int cell_col;
	double width;       /* points (SVG, PDF) or pixels (PNG); 0: the natural size */
	double height;
	/* Not NULL: read between rows while the figure is laid out and drawn; once it
	 * is true the rest is skipped and figure_bytes returns NULL ("stopped"). For a
	 * figure drawn on a thread that may be cancelled (borrowed). */
	const atomic_bool *stop;
};

/* Weights, continuous viridis, auto range and numbers, the built-in title, light
 * background, 2 decimals, no selected cell, natural size, every head. */
void figure_options_default(struct figure_options *o);

/* "WxH" (W and H numbers within FIGURE_MIN_SIDE..FIGURE_MAX_SIDE, "x" or "×")
 * → 0, else -1. */
int figure_size_parse(const char *text, double *width, double *height);

/* The stage a figure can show for this problem: stage 0 needs the projected form. */
bool figure_stage_drawable(const struct qkv_problem *p, int stage);

/* How a heatmap's values become colours. */
struct figure_scale {
	int palette;        /* enum qkv_palette: its steps when map < 0 */
	int map;            /* enum qkv_colour_map of weights, or -1 */
	int levels;         /* 0 or 2..FIGURE_MAX_LEVELS */
	bool signed_values;
	double low, high;   /* the range: low takes the first colour, high the last */
};
/* The map a scale draws with: its map, coolwarm for signed values (grey stays
 * grey); -1 for a palette's steps. */
int figure_scale_map(const struct figure_scale *s);
/* "--range MIN:MAX" (MIN < MAX, finite) → 0, else -1. */
int figure_range_parse(const char *text, double *low, double *high);
/* A heatmap cell's fill, as every figure, its colour bar and the LaTeX heatmap
 * colour it: the masked grey; with a map, the map at the value's place in
 * low..high (clamped), in `levels` steps when asked; with a palette's steps, the
 * weights step of the weight as shown, or the signed step with ±high at the
 * ends; `plain` when the palette has no ramp. */
struct qkv_rgb figure_heat_fill(const struct figure_scale *s, double value, bool masked, struct qkv_rgb plain);
/* The signed ramp's limit for an n×n stage of t: the largest magnitude among the
 * unmasked entries of m, 1 when they are all 0. */
double figure_signed_limit(const struct qkv_trace *t, const struct qkv_matrix *m);

/* Where a cell of a panel is drawn (x, y, w, h in the figure's units) and its
 * fill, for the options given; 0, or -1 when there is no such cell. Panels are
 * counted left to right. */
struct figure_cell {
	double x, y, w, h;
	struct qkv_rgb fill;
	char text[64];      /* the number as written ("—" when masked) */
};
int figure_cell(const struct qkv_problem *p, const struct qkv_trace *t,
		const struct figure_options *o, int panel, int row, int col,
		struct figure_cell *cell);
/* The figure's panels and their grids' sizes (rows, cols each); returns the
 * count. Cheap: no cairo, no layout. */
int figure_panels(const struct qkv_problem *p, const struct qkv_trace *t,
		  const struct figure_options *o, int rows[FIGURE_MAX_PANELS],
		  int cols[FIGURE_MAX_PANELS]);
/* The most cells a figure draws, all its panels' grids together (the weights of
 * 500 tokens): above it a figure is refused before anything is drawn or opened. */
#define FIGURE_MAX_CELLS 250000
/* The cells of the figure's panels' grids together; cheap (no cairo, no layout). */
long long figure_cells(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o);
/* 0 when the figure has at most FIGURE_MAX_CELLS cells, else -1 with one line in
 * err saying how many it would have and the cap. */
int figure_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		      char *err, size_t err_size);
/* The size the figure is drawn at (the options' size, else its natural size). */
void figure_size(const struct qkv_problem *p, const struct qkv_trace *t,
		 const struct figure_options *o, double *width, double *height);

/* A multi-head problem's figure (stage 1, 2 or 3 of each head; another stage
 * draws the weights): the panels, cells, size and bytes of heads' figure, as the
 * functions above give a single trace's. */
/* Whether o draws p's heads as heatmaps: p has several heads and o's stage is 1,
 * 2 or 3 (another stage is drawn from one head's trace, figure_write). */
bool figure_heads_drawable(const struct qkv_problem *p, const struct figure_options *o);
int figure_heads_panels(const struct qkv_problem *p, const struct qkv_heads_trace *h,
			const struct figure_options *o, int rows[FIGURE_MAX_PANELS], int cols[FIGURE_MAX_PANELS]);
int figure_heads_cell(const struct qkv_problem *p, const struct qkv_heads_trace *h,
		      const struct figure_options *o, int panel, int row, int col, struct figure_cell *cell);
int figure_heads_check_size(const struct qkv_problem *p, const struct qkv_heads_trace *h,
			    const struct figure_options *o, char *err, size_t err_size);
int figure_heads_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
		       const struct qkv_heads_trace *h, const struct figure_options *o, char *err, size_t err_size);
/* The figure of a problem that has both: h's heads when figure_heads_drawable,
 * else t (the selected head's trace, or the only one); as figure_check_size and
 * figure_bytes. */
int figure_either_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
			     const struct figure_options *o, char *err, size_t err_size);
char *figure_either_bytes(enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
			  const struct qkv_heads_trace *h, const struct figure_options *o, size_t *length, char *err,
			  size_t err_size);
/* Where a multi-head figure's parts are drawn, in the figure's units: each
 * panel's box (its title, labels and grid), its grid's, the numbers' size (0
 * when they are not drawn), and the colour bar's box with its ticks' text and
 * clamp marks (w = 0 when there is no bar). */
struct figure_box {
	double x, y, w, h;
};
struct figure_layout {
	int count;
	double width, height;
	struct figure_box panel[FIGURE_MAX_PANELS], grid[FIGURE_MAX_PANELS], bar;
	double number_size[FIGURE_MAX_PANELS];
};
/* Fills l for heads' figure; returns the panel count, or -1 (out of memory). */
int figure_heads_layout(const struct qkv_problem *p, const struct qkv_heads_trace *h,
			const struct figure_options *o, struct figure_layout *l);
/* Whether the cells of panel `panel` carry their numbers (--numbers, and for
 * AUTO the rule above); false when there is no such panel. */
bool figure_numbers_shown(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
			  const struct figure_options *o, int panel);

/* Writes the figure to out. Returns 0, or -1 with one line in err (a write
 * error, or a surface cairo could not make). */
int figure_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
		 const struct qkv_trace *t, const struct figure_options *o, char *err,
		 size_t err_size);
/* The same into memory (malloc'd, *length bytes; caller frees), or NULL with err
 * (also when o->stop became true). */
char *figure_bytes(enum figure_format format, const struct qkv_problem *p,
		   const struct qkv_trace *t, const struct figure_options *o, size_t *length,
		   char *err, size_t err_size);

/* The geometry g of t's queries and keys (qkv/geometry.h) as a figure: arrows
 * (points past a dozen tokens) labelled by token, the selected query's arrow
 * wide with each key's projection onto it, and under the plot the sentences dot
 * (its dot product with the selected key) and plane (what the plane is), in the
 * options' palette (the signed ramp's two ends), background and size. 0, or -1
 * with one line in err. */
int figure_geometry_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
			  const struct qkv_trace *t, const struct qkv_geometry *g, int query, int key,
			  const char *dot, const char *plane, const struct figure_options *o, char *err,
			  size_t err_size);

/* The d_k sweep (count points) as the saturation view's four charts, in the
 * options' palette (the signed ramp's ends), background and size. 0, or -1 with
 * one line in err. */
int figure_sweep_write(FILE *out, enum figure_format format, const struct qkv_sweep_point *points, int count,
		       int tokens, int trials, unsigned long long seed, const struct figure_options *o, char *err,
		       size_t err_size);

#endif
