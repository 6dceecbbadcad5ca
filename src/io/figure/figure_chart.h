/* figure_chart.h — a page of line charts for the figures (private to
 * src/io/figure*.c): a title, a line or two of facts, a legend, and up to four
 * charts in two columns (one chart takes the page's whole width), each with
 * curves that carry marks (a disc or a cross, a solid or dashed line) as well as
 * colours, on linear, log₂ or log₁₀ axes. A curve's point may be a lower bound
 * (an open ring with an arrow up, not joined to the line), and a series may be
 * pale points only (each seed under a median's curve). */
#ifndef QKV_IO_FIGURE_CHART_H
#define QKV_IO_FIGURE_CHART_H

#include "io/figure/figure.h"
#include "io/figure/figure_canvas.h"

#define CHART_MAX 4
#define CHART_MAX_SERIES 4

struct chart_series {
	const char *name;     /* the stem of its SVG ids: "curve-NAME", "bound-NAME", "seed-NAME" */
	const double *x, *y;  /* count points; a NaN y is left out */
	int count;
	int side;             /* 0: the first colour, a disc, solid; 1: the second, a cross, dashed */
	bool faint;           /* small pale discs only, no line (each seed of a median) */
	const bool *bound;    /* NULL, or per point: true when the value is only a lower bound */
};

struct chart_axis {
	bool log;             /* x: log₂ with a tick at each point's x; y: log₁₀ in whole decades */
	double low, high;     /* linear: the range; log y: filled from the data */
	const char *label;    /* under the x axis (NULL: none) */
};

struct chart_spec {
	const char *title;
	struct chart_axis x, y;
	struct chart_series series[CHART_MAX_SERIES];
	int count;
	double cap;           /* > 0: a dashed rule across the plot at this y (the budget) */
};

struct chart_page {
	const char *title, *facts;
	const char *result;      /* a second line of facts (NULL: none) */
	const char *legend[2];   /* the two sides' names */
	const char *legend_bound; /* the lower bound's entry (NULL: none) */
	const char *legend_faint; /* the pale points' entry (NULL: none) */
	const char *legend_cap;   /* the dashed rule's entry (NULL: none) */
	struct chart_spec charts[CHART_MAX];
	int count;
};

/* The colours of a page: the background and ink of the options' background, the
 * grid, and the two sides' curves: the text colour under the mono palette (the
 * marks and dashes tell them apart), else a blue and a vermilion that keep 3:1
 * (WCAG's contrast for graphics) on both backgrounds; `faint` is each side's
 * colour a third of the way to the background. */
struct chart_colours {
	struct qkv_rgb bg, fg, grid, side[2], faint[2];
};
void chart_colours(const struct figure_options *o, struct chart_colours *c);

/* Writes the page as format in the options' palette, background and size. 0, or
 * -1 with one line in err. */
int chart_page_write(FILE *out, enum figure_format format, struct chart_page *page,
		     const struct figure_options *o, char *err, size_t err_size);

#endif
