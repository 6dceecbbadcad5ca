/* chart.c — line charts in braille dots (see chart.h). The plot is a grid of
 * dots, 2 across and 4 down per character cell; each curve is drawn into it as
 * straight segments between its points (Bresenham), and every cell is then
 * written once, as the braille character of its dots, in the colour of the curve
 * that set most of them. Marks go on top, so a data point is never hidden. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/format.h"
#include "tui/chart.h"
#include "tui/glyphs.h"

#define LABEL_MAX 9 /* widest y tick label, in columns */

/* A dot grid over the plot: which dots are set, and by how many dots of each
 * curve a cell was touched (to choose its colour). */
struct dots {
	int w, h;              /* in cells */
	unsigned char *bits;   /* per cell */
	short *owner;          /* per cell: the curve that set most dots, or -1 */
	short *owner_count;    /* per cell: how many dots that curve set */
};

void chart_braille(char buf[4], unsigned bits)
{
	/* bit (col * 4 + row) → braille dot: column 0 is dots 1 2 3 7, column 1 is
	 * dots 4 5 6 8, i.e. bits 0 1 2 6 and 3 4 5 7 of U+2800's offset. */
	static const unsigned char dot[8] = { 0x01, 0x02, 0x04, 0x40, 0x08, 0x10, 0x20, 0x80 };
	unsigned code = 0x2800;

	for (int i = 0; i < 8; i++)
		if (bits & (1u << i))
			code |= dot[i];
	buf[0] = (char)(0xe0 | (code >> 12));
	buf[1] = (char)(0x80 | ((code >> 6) & 0x3f));
	buf[2] = (char)(0x80 | (code & 0x3f));
	buf[3] = '\0';
}

/* The value on the axis's own scale (log₁₀ for a log axis); NAN when it has none. */
static double scale(const struct chart_axis *a, double v)
{
	if (!isfinite(v))
		return NAN;
	if (a->log)
		return v > 0 ? log10(v) : NAN;
	return v;
}

/* Where v falls along an axis of `steps` positions (0 … steps − 1), as a double;
 * NAN when v has no place on the axis. */
static double position(const struct chart_axis *a, double v, int steps)
{
	double lo = scale(a, a->min), hi = scale(a, a->max), s = scale(a, v);

	if (isnan(s) || isnan(lo) || isnan(hi) || hi <= lo)
		return NAN;
	return (s - lo) / (hi - lo) * (steps - 1);
}

/* A round step of about range / wanted: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int wanted)
{
	double raw = range / (wanted > 1 ? wanted : 1), power = pow(10.0, floor(log10(raw)));
	double f = raw / power;

	return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * power;
}

void chart_fit_axis(struct chart_axis *axis, const struct chart_series *series, int count,
		    bool x_values)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int s = 0; s < count; s++)
		for (int i = 0; i < series[s].count; i++) {
			double v = x_values ? series[s].x[i] : series[s].y[i];
			if (!isfinite(v) || (axis->log && v <= 0))
				continue;
			if (v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
	if (lo > hi) { /* no usable value */
		lo = axis->log ? 1.0 : 0.0;
		hi = axis->log ? 10.0 : 1.0;
	}
	if (axis->log) {
		axis->min = pow(10.0, floor(log10(lo)));
		axis->max = pow(10.0, ceil(log10(hi)));
		if (axis->max <= axis->min)
			axis->max = axis->min * 10.0;
		return;
	}
	if (hi == lo) {
		double open = lo != 0 ? fabs(lo) * 0.1 : 0.5;
		lo -= open;
		hi += open;
	}
	double step = nice_step(hi - lo, 4);
	axis->min = floor(lo / step) * step;
	axis->max = ceil(hi / step) * step;
}

/* The ticks of an axis with room for about `wanted` labels: the given ones, or
 * round values inside the range. Returns how many were written to out. */
static int ticks_of(const struct chart_axis *a, int wanted, double out[CHART_MAX_TICKS])
{
	int n = 0;

	if (a->tick_count > 0) {
		for (int i = 0; i < a->tick_count && i < CHART_MAX_TICKS; i++)
			out[n++] = a->ticks[i];
		return n;
	}
	if (wanted < 2)
		wanted = 2;
	if (wanted > CHART_MAX_TICKS)
		wanted = CHART_MAX_TICKS;
	if (a->log) {
		double lo = ceil(log10(a->min) - 1e-9), hi = floor(log10(a->max) + 1e-9);
		int every = (int)ceil((hi - lo + 1) / wanted);
		for (double e = lo; e <= hi && n < CHART_MAX_TICKS; e += every > 0 ? every : 1)
			out[n++] = pow(10.0, e);
		if (n < 2) {
			n = 0;
			out[n++] = a->min;
			out[n++] = a->max;
		}
		return n;
	}
	double step = nice_step(a->max - a->min, wanted - 1);
	for (double v = ceil(a->min / step - 1e-9) * step; v <= a->max + step * 1e-9 && n < CHART_MAX_TICKS;
	     v += step)
		out[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
	return n;
}

/* Where v falls on a y axis of `rows` character rows, in dots from the bottom:
 * the axis's ends at the middles of the bottom and the top rows (dots 1.5 and
 * 4·rows − 2.5), where a tick's "┤" points, so a tick at either end reads true. */
static double y_position(const struct chart_axis *a, double v, int rows)
{
	double p = position(a, v, 2);

	return isnan(p) ? NAN : 1.5 + p * (4.0 * rows - 4.0);
}

/* The value at the middle of row `row` (0 the bottom) of a y axis of `rows` rows:
 * what a tick label on that row stands for. */
static double y_value_at_row(const struct chart_axis *a, int row, int rows)
{
	double lo = scale(a, a->min), hi = scale(a, a->max), s = lo + (hi - lo) * row / (rows - 1.0);

	return a->log ? pow(10.0, s) : s;
}

/* A tick label: whole numbers in full below 10⁵, else three significant digits
 * (an exponent for very large and small values); a true minus sign on a UTF-8
 * screen. */
static void tick_text(char *buf, size_t size, double v, bool ascii)
{
	char plain[24];

	if (v == floor(v) && fabs(v) < 1e5)
		snprintf(plain, sizeof plain, "%.0f", v);
	else if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-3))
		snprintf(plain, sizeof plain, "%.0e", v);
	else
		snprintf(plain, sizeof plain, "%.3g", v);
	if (plain[0] == '-' && !ascii)
		snprintf(buf, size, "−%s", plain + 1);
	else
		snprintf(buf, size, "%s", plain);
}

/* Sets dot (dx, dy) for curve s. */
static void set_dot(struct dots *d, int dx, int dy, int s)
{
	int cx = dx / 2, cy = dy / 4, at;
	unsigned bit = 1u << ((dx % 2) * 4 + dy % 4);

	if (dx < 0 || dy < 0 || cx >= d->w || cy >= d->h)
		return;
	at = cy * d->w + cx;
	if (d->bits[at] & bit)
		return;
	d->bits[at] |= (unsigned char)bit;
	if (d->owner[at] == s) {
		d->owner_count[at]++;
	} else if (d->owner[at] < 0 || d->owner_count[at] <= 1) {
		d->owner[at] = (short)s;
		d->owner_count[at] = 1;
	}
}

/* A straight run of dots from (x0, y0) to (x1, y1) (Bresenham). */
static void segment(struct dots *d, int x0, int y0, int x1, int y1, int s)
{
	int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;

	for (;;) {
		set_dot(d, x0, y0, s);
		if (x0 == x1 && y0 == y1)
			return;
		int e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
	}
}

static void put(WINDOW *w, int y, int x, struct cell_style style, const char *text)
{
	char drawn[256];

	palette_apply(w, style);
	mvwaddstr(w, y, x, glyphs_text(text, drawn, sizeof drawn));
}

/* What a tick at `tick` shows and on which row (from the bottom; −1 when it is off
 * the axis): the tick's own value when it lies at the row's middle, else the value
 * at that middle. */
static double y_tick_shown(const struct chart *c, double tick, int plot_h, int *from_bottom)
{
	double p = y_position(&c->y_axis, tick, plot_h);

	*from_bottom = -1;
	if (isnan(p) || p < 0.0 || p >= plot_h * 4)
		return NAN;
	*from_bottom = (int)floor(p / 4.0);
	if (fabs(p - (4.0 * *from_bottom + 1.5)) > 1e-9 * plot_h)
		return y_value_at_row(&c->y_axis, *from_bottom, plot_h);
	return tick;
}

/* One y tick: its label, right-aligned before the axis, and "┤" on the row
 * from_bottom rows above the bottom one; false when the label is too wide. */
static bool put_y_tick(WINDOW *w, const struct chart *c, int top, int plot_h, int axis_x, int label_w,
		       int from_bottom, double value)
{
	char text[32];
	int row = top + plot_h - 1 - from_bottom, cols;

	tick_text(text, sizeof text, value, c->ascii);
	cols = glyphs_columns(text);
	if (cols > label_w)
		return false;
	put(w, row, axis_x - cols, palette_role(ROLE_LABEL), text);
	put(w, row, axis_x, palette_role(ROLE_DIM), c->ascii ? "+" : "┤");
	return true;
}

/* The y axis: the rule, and tick labels right-aligned in label_w columns. Each
 * tick goes on the row that holds its value, labelled with the value at that
 * row's middle, where "┤" points (the tick's own value when it lies there); the
 * bottom and top rows, the axis's ends, are always labelled. */
static void draw_y_axis(WINDOW *w, const struct chart *c, int top, int plot_h, int axis_x,
			int label_w, const double *ticks, int tick_count)
{
	struct cell_style dim = palette_role(ROLE_DIM);
	int last_row = -1;
	bool bottom = false, top_row = false;

	for (int r = 0; r < plot_h; r++)
		put(w, top + r, axis_x, dim, c->ascii ? "|" : "│");
	for (int i = 0; i < tick_count; i++) {
		int from_bottom;
		double shown = y_tick_shown(c, ticks[i], plot_h, &from_bottom);

		if (from_bottom < 0 || from_bottom == last_row || !put_y_tick(w, c, top, plot_h, axis_x, label_w, from_bottom, shown))
			continue;
		last_row = from_bottom;
		bottom |= from_bottom == 0;
		top_row |= from_bottom == plot_h - 1;
	}
	if (!bottom)
		put_y_tick(w, c, top, plot_h, axis_x, label_w, 0, c->y_axis.min);
	if (!top_row)
		put_y_tick(w, c, top, plot_h, axis_x, label_w, plot_h - 1, c->y_axis.max);
}

/* The x axis: the rule with tick marks, the labels under it, the axis label. */
static void draw_x_axis(WINDOW *w, const struct chart *c, int row, int plot_x, int plot_w,
			int axis_x, const double *ticks, int tick_count)
{
	struct cell_style dim = palette_role(ROLE_DIM), label = palette_role(ROLE_LABEL);
	int free_from = c->x; /* first column a label may use */
	char text[32];

	put(w, row, axis_x, dim, c->ascii ? "+" : "└");
	for (int i = 0; i < plot_w; i++)
		put(w, row, plot_x + i, dim, c->ascii ? "-" : "─");
	for (int i = 0; i < tick_count; i++) {
		double p = position(&c->x_axis, ticks[i], plot_w * 2);
		if (isnan(p) || p < -0.5 || p > plot_w * 2 - 0.5)
			continue;
		int col = plot_x + (int)lround(p) / 2;
		put(w, row, col, dim, c->ascii ? "+" : "┬");
		tick_text(text, sizeof text, ticks[i], c->ascii);
		int cols = glyphs_columns(text), at = col - cols / 2;
		if (at + cols > plot_x + plot_w)
			at = plot_x + plot_w - cols;
		if (at < c->x)
			at = c->x;
		if (at < free_from)
			continue;
		put(w, row + 1, at, label, text);
		free_from = at + cols + 1;
	}
	if (c->x_axis.label) { /* at the right end, when the tick labels leave room */
		int cols = glyphs_columns(c->x_axis.label);
		if (free_from + cols <= plot_x + plot_w)
			put(w, row + 1, plot_x + plot_w - cols, dim, c->x_axis.label);
	}
}

/* Draws every curve into the dot grid. */
static void fill_dots(struct dots *d, const struct chart *c)
{
	for (int s = 0; s < c->series_count; s++) {
		const struct chart_series *cs = &c->series[s];
		bool have = false;
		int px = 0, py = 0;

		for (int i = 0; i < cs->count; i++) {
			double fx = position(&c->x_axis, cs->x[i], d->w * 2);
			double fy = y_position(&c->y_axis, cs->y[i], d->h);
			if (isnan(fx) || isnan(fy)) {
				have = false;
				continue;
			}
			if (fy < 0)
				fy = 0;
			if (fy > d->h * 4 - 1)
				fy = d->h * 4 - 1;
			int x = (int)lround(fx), y = d->h * 4 - 1 - (int)lround(fy);
			if (have)
				segment(d, px, py, x, y, s);
			else
				set_dot(d, x, y, s);
			px = x;
			py = y;
			have = true;
		}
	}
}

/* Writes the dot grid and then the marks. */
static void draw_plot(WINDOW *w, const struct chart *c, const struct dots *d, int top, int left)
{
	char glyph[4];

	if (isfinite(c->marker_x)) {
		double p = position(&c->x_axis, c->marker_x, d->w * 2);
		if (!isnan(p) && p >= -0.5 && p <= d->w * 2 - 0.5)
			for (int r = 0; r < d->h; r++)
				put(w, top + r, left + (int)lround(p) / 2, palette_role(ROLE_DIM),
				    c->ascii ? ":" : "┊");
	}
	for (int r = 0; r < d->h; r++)
		for (int col = 0; col < d->w; col++) {
			int at = r * d->w + col;
			if (!d->bits[at])
				continue;
			if (c->ascii)
				snprintf(glyph, sizeof glyph, ".");
			else
				chart_braille(glyph, d->bits[at]);
			put(w, top + r, left + col, c->series[d->owner[at]].style, glyph);
		}
	for (int s = 0; s < c->series_count; s++) {
		const struct chart_series *cs = &c->series[s];
		const char *mark = c->ascii ? cs->ascii_mark : cs->mark;
		struct cell_style style = cs->style;

		if (!mark)
			continue;
		style.attr |= A_BOLD;
		for (int i = 0; i < cs->count; i++) {
			double fx = position(&c->x_axis, cs->x[i], d->w * 2);
			double fy = y_position(&c->y_axis, cs->y[i], d->h);
			if (isnan(fx) || isnan(fy) || fx < -0.5 || fx > d->w * 2 - 0.5)
				continue;
			if (fy < 0)
				fy = 0;
			if (fy > d->h * 4 - 1)
				fy = d->h * 4 - 1;
			put(w, top + d->h - 1 - (int)lround(fy) / 4, left + (int)lround(fx) / 2, style, mark);
		}
	}
}

void chart_draw(WINDOW *w, const struct chart *given)
{
	double yt[CHART_MAX_TICKS], xt[CHART_MAX_TICKS];
	/* The glyph set decides too: an ASCII screen gets the ASCII chart. */
	struct chart ascii_or_not = *given;
	const struct chart *c = &ascii_or_not;
	int plot_h = c->height - 3, label_w = 1, y_count, x_count;
	char text[32];
	struct dots d;

	ascii_or_not.ascii = given->ascii || glyphs_set() == GLYPHS_ASCII;

	if (c->title)
		put(w, c->y, c->x, palette_role(ROLE_TITLE), c->title);
	if (c->height < 5 || c->width < 16)
		return;
	y_count = ticks_of(&c->y_axis, plot_h / 2 + 1, yt);
	/* Room for every label drawn: the ticks' (as their rows show them) and the ends'. */
	for (int i = 0; i < y_count + 2; i++) {
		int from_bottom;
		double shown = i == y_count ? c->y_axis.min : i == y_count + 1 ? c->y_axis.max
			       : y_tick_shown(c, yt[i], plot_h, &from_bottom);

		if (isnan(shown))
			continue;
		tick_text(text, sizeof text, shown, c->ascii);
		int cols = glyphs_columns(text);
		if (cols > label_w && cols <= LABEL_MAX)
			label_w = cols;
	}
	int axis_x = c->x + label_w, plot_x = axis_x + 1, plot_w = c->width - label_w - 1;
	if (plot_w < 8)
		return;
	x_count = ticks_of(&c->x_axis, plot_w / 8, xt);
	if (c->y_axis.label) {
		int title_cols = c->title ? glyphs_columns(c->title) : 0;
		int cols = glyphs_columns(c->y_axis.label);
		if (title_cols + 2 + cols <= c->width)
			put(w, c->y, c->x + c->width - cols, palette_role(ROLE_DIM), c->y_axis.label);
	}
	draw_y_axis(w, c, c->y + 1, plot_h, axis_x, label_w, yt, y_count);
	draw_x_axis(w, c, c->y + 1 + plot_h, plot_x, plot_w, axis_x, xt, x_count);

	d.w = plot_w;
	d.h = plot_h;
	d.bits = calloc((size_t)plot_w * plot_h, 1);
	d.owner = malloc(sizeof *d.owner * (size_t)plot_w * plot_h);
	d.owner_count = calloc((size_t)plot_w * plot_h, sizeof *d.owner_count);
	if (d.bits && d.owner && d.owner_count) {
		for (int i = 0; i < plot_w * plot_h; i++)
			d.owner[i] = -1;
		fill_dots(&d, c);
		draw_plot(w, c, &d, c->y + 1, plot_x);
	}
	free(d.bits);
	free(d.owner);
	free(d.owner_count);
}
