/* chart.h — line charts for the interface's views (saturation, learning, cost):
 * curves drawn in braille dots, 2 × 4 dots per character cell, so a chart of 10
 * rows has 40 distinct heights; a mark at every data point; axes with ticks and
 * labels; linear or log₁₀ axes. Without braille (an ASCII screen) the curves are
 * drawn with one character per cell. Reads the data it is given; keeps nothing. */
#ifndef QKV_TUI_CHART_H
#define QKV_TUI_CHART_H

#include <stdbool.h>
#include <curses.h>

#include "tui/palette.h"

#define CHART_MAX_TICKS 12

/* One axis: its range in data units (for a log axis both ends > 0, and the range
 * is log₁₀), a label, and where the ticks go: at the given values when tick_count
 * > 0, else at chart-chosen round values (decades on a log axis). */
struct chart_axis {
	double min, max;
	bool log;
	const char *label;
	int tick_count;
	double ticks[CHART_MAX_TICKS];
};

/* One curve: count points (x[i], y[i]), joined by dots in style; mark (a UTF-8
 * glyph of one column, or NULL) is drawn bold on every point. Points that are not
 * finite (or not positive on a log axis) break the curve there. */
struct chart_series {
	const double *x, *y;
	int count;
	struct cell_style style;
	const char *mark;
	const char *ascii_mark; /* the mark on an ASCII screen ("*", "x", …) */
};

/* A chart in the box of height × width cells whose top-left corner is (y, x):
 * the title on the first line, the y tick labels on the left, the x axis and its
 * tick labels on the last two lines. marker_x, when finite, draws a dotted
 * vertical line at that x (e.g. the problem's d_k now). */
struct chart {
	int y, x, height, width;
	const char *title;
	struct chart_axis x_axis, y_axis;
	const struct chart_series *series;
	int series_count;
	double marker_x;
	bool ascii; /* no braille or box glyphs: '.', '|', '-' and the ascii marks */
};

/* Sets axis->min and ->max to the range of the series' x (or y) values, widened
 * to round values (whole decades on a log axis); a flat range is opened up. */
void chart_fit_axis(struct chart_axis *axis, const struct chart_series *series, int count,
		    bool x_values);

/* Draws the chart into w. Too small a box (fewer than 5 lines or 16 columns)
 * draws the title alone. */
void chart_draw(WINDOW *w, const struct chart *c);

/* The braille character (U+2800 + bits) as UTF-8 for a cell whose dots are set
 * in bits: bit (col * 4 + row) for col 0–1 and row 0–3 from the top. Exposed for
 * the tests; buf holds at least 4 bytes. */
void chart_braille(char buf[4], unsigned bits);

#endif
