/* figure_chart.h — a page of line charts for the figures (private to
 * src/io/figure*.c): a title, a line of facts, a legend, and up to four charts in
 * two columns, each with curves that carry marks (a disc or a cross, a solid or
 * dashed line) as well as colours, on linear, log₂ or log₁₀ axes. */
#ifndef QKV_IO_FIGURE_CHART_H
#define QKV_IO_FIGURE_CHART_H

#include "io/figure/figure.h"
#include "io/figure/figure_canvas.h"

#define CHART_MAX 4
#define CHART_MAX_SERIES 4

struct chart_series {
	const char *name;     /* in the legend (the first chart's series) */
	const double *x, *y;  /* count points; a NaN y is left out */
	int count;
	int side;             /* 0: the first colour, a disc, solid; 1: the second, a cross, dashed */
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
};

struct chart_page {
	const char *title, *facts;
	const char *legend[2];   /* the two sides' names */
	struct chart_spec charts[CHART_MAX];
	int count;
};

/* Writes the page as format in the options' palette (the signed ramp's two ends
 * for the two sides), background and size. 0, or -1 with one line in err. */
int chart_page_write(FILE *out, enum figure_format format, struct chart_page *page,
		     const struct figure_options *o, char *err, size_t err_size);

#endif
