/* figure_chart.c — a page of line charts (see figure_chart.h). */
#include "io/figure/figure_chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"

#define FS 12.0           /* text size at the natural size */
#define PLOT_W 300.0      /* one chart's plotting area, at the least */
#define PLOT_H 180.0
#define MARGIN (1.2 * FS)
#define LEFT (4.0 * FS)
#define RIGHT (2.0 * FS)
#define GAP_X (4.5 * FS)
#define ROW_H (PLOT_H + 6.0 * FS)
#define SEED_R 2.2        /* a pale seed point */
#define BOUND_R 4.0       /* a lower bound's ring */

/* The blue and vermilion of Okabe and Ito's palette for colour-blind readers:
 * WCAG luminance 0.152 and 0.222, so 3:1 or more on white and on the dark
 * background (xterm 233) alike. */
static const struct qkv_rgb curve_blue = { 0x00, 0x72, 0xb2 };
static const struct qkv_rgb curve_vermilion = { 0xd5, 0x5e, 0x00 };

struct page_fig {
	struct chart_page *page;
	struct chart_colours ink;
	double plot_w, plot_h, row_h, top;
	int columns;
	struct canvas cv;
};

/* Two thirds of the way from a to b, rounded. */
static struct qkv_rgb paler(struct qkv_rgb a, struct qkv_rgb b)
{
	return (struct qkv_rgb){ (unsigned char)((a.r + 2 * b.r + 1) / 3), (unsigned char)((a.g + 2 * b.g + 1) / 3),
				 (unsigned char)((a.b + 2 * b.b + 1) / 3) };
}

void chart_colours(const struct figure_options *o, struct chart_colours *c)
{
	bool mono = o->palette == QKV_PALETTE_MONO;

	c->bg = o->dark ? qkv_colour_xterm(233) : (struct qkv_rgb){ 255, 255, 255 };
	c->fg = o->dark ? qkv_colour_xterm(255) : (struct qkv_rgb){ 0, 0, 0 };
	c->grid = o->dark ? qkv_colour_xterm(237) : qkv_colour_xterm(253);
	c->side[0] = mono ? c->fg : curve_blue;
	c->side[1] = mono ? c->fg : curve_vermilion;
	for (int s = 0; s < 2; s++)
		c->faint[s] = paler(c->bg, c->side[s]);
}

/* "10" with the exponent in superscript digits, e.g. 10⁻². */
static void power_of_ten(char *buf, size_t size, int exponent)
{
	static const char *const digits[] = { "\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
					      "\u2075", "\u2076", "\u2077", "\u2078", "\u2079" };
	char number[16];
	size_t used;

	snprintf(number, sizeof number, "%d", exponent);
	used = (size_t)snprintf(buf, size, "10");
	for (const char *c = number; *c != '\0' && used < size; c++)
		used += (size_t)snprintf(buf + used, size - used, "%s", *c == '-' ? "\u207b" : digits[*c - '0']);
}

/* A log y axis's whole decades around the data's positive values (and the cap,
 * with room above it for a lower bound's arrow). */
static void fit_decades(struct chart_spec *c)
{
	double low = 1e300, high = 1e-300;

	for (int s = 0; s < c->count; s++)
		for (int i = 0; i < c->series[s].count; i++) {
			double v = c->series[s].y[i];

			if (v > 0.0 && v < low)
				low = v;
			if (v > high)
				high = v;
		}
	if (c->cap > 0.0)
		high = fmax(high, c->cap);
	c->y.low = floor(log10(low > 0.0 && low < 1e300 ? low : 0.1));
	c->y.high = ceil(log10(high > 1e-300 ? high : 10.0));
	if (c->y.high <= c->y.low)
		c->y.high = c->y.low + 1.0;
	if (c->cap > 0.0 && log10(c->cap) > c->y.high - 0.25)
		c->y.high += 1.0;
}

/* A linear x axis's range from the data, when none was given. */
static void fit_x(struct chart_spec *c)
{
	double low = INFINITY, high = -INFINITY;

	for (int s = 0; s < c->count; s++)
		for (int i = 0; i < c->series[s].count; i++) {
			low = fmin(low, c->series[s].x[i]);
			high = fmax(high, c->series[s].x[i]);
		}
	if (!(low < high)) {
		low = isfinite(low) ? low - 1.0 : 0.0;
		high = isfinite(high) ? high + 1.0 : 1.0;
	}
	c->x.low = c->x.log ? log2(low > 0.0 ? low : 1.0) : low;
	c->x.high = c->x.log ? log2(high > 0.0 ? high : 2.0) : high;
	/* room for the pale points beside the first and last dₖ */
	for (int s = 0; s < c->count && c->x.log; s++)
		if (c->series[s].faint) {
			c->x.low -= 0.25;
			c->x.high += 0.25;
			break;
		}
	if (!(c->x.high > c->x.low))
		c->x.high = c->x.low + 1.0;
}

static double x_of(const struct page_fig *f, const struct chart_spec *c, double left, double x)
{
	double v = c->x.log ? log2(x > 0.0 ? x : 1.0) : x;

	return left + f->plot_w * (v - c->x.low) / (c->x.high - c->x.low);
}

static double y_of(const struct page_fig *f, const struct chart_spec *c, double top, double v)
{
	double t;

	if (c->y.log)
		v = log10(v > 1e-300 ? v : 1e-300);
	t = (v - c->y.low) / (c->y.high - c->y.low);
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	return top + f->plot_h * (1.0 - t);
}

/* A lower bound at (x, y): an open ring, and an arrow up from it; `size` 1 on a
 * chart, less in the legend. */
static void bound_mark(struct canvas *cv, double x, double y, double size, struct qkv_rgb colour, const char *name)
{
	double r = BOUND_R * size, tip = y - r - 11.0 * size;
	double head_x[3] = { x - 3.2 * size, x, x + 3.2 * size };
	double head_y[3] = { tip + 4.0 * size, tip, tip + 4.0 * size };

	canvas_circle(cv, x, y, r, colour, 1.3, name);
	canvas_line(cv, x, y - r, x, tip, colour, 1.3, false);
	canvas_polyline(cv, head_x, head_y, 3, colour, 1.3, false, NULL);
}

/* One series: its line through the points that are values (a lower bound breaks
 * it), their marks, and the lower bounds' rings; or pale points. */
static void draw_series(struct page_fig *f, const struct chart_spec *c, const struct chart_series *sr, double left,
			double top)
{
	struct canvas *cv = &f->cv;
	struct qkv_rgb colour = f->ink.side[sr->side != 0];
	double xs[512], ys[512];
	char name[64];
	int run = 0;

	if (sr->faint) {
		snprintf(name, sizeof name, "seed-%s", sr->name);
		for (int i = 0; i < sr->count; i++)
			if (!isnan(sr->y[i]))
				canvas_circle(cv, x_of(f, c, left, sr->x[i]), y_of(f, c, top, sr->y[i]), SEED_R,
					      f->ink.faint[sr->side != 0], 0.0, name);
		return;
	}
	snprintf(name, sizeof name, "curve-%s", sr->name);
	for (int i = 0; i <= sr->count; i++) {
		bool joined = i < sr->count && !isnan(sr->y[i]) && !(sr->bound != NULL && sr->bound[i]);

		if (joined && run < (int)(sizeof xs / sizeof *xs)) {
			xs[run] = x_of(f, c, left, sr->x[i]);
			ys[run] = y_of(f, c, top, sr->y[i]);
			run++;
		}
		if (!joined || i == sr->count - 1 || run == (int)(sizeof xs / sizeof *xs)) {
			canvas_polyline(cv, xs, ys, run, colour, 1.4, sr->side != 0, name);
			/* a long curve goes on from its last point */
			if (run == (int)(sizeof xs / sizeof *xs)) {
				xs[0] = xs[run - 1];
				ys[0] = ys[run - 1];
				run = 1;
			} else {
				run = 0;
			}
		}
	}
	snprintf(name, sizeof name, "bound-%s", sr->name);
	for (int i = 0; i < sr->count; i++) {
		double x, y;

		if (isnan(sr->y[i]))
			continue;
		x = x_of(f, c, left, sr->x[i]);
		y = y_of(f, c, top, sr->y[i]);
		if (sr->bound != NULL && sr->bound[i])
			bound_mark(cv, x, y, 1.0, colour, name);
		else if (sr->count <= 64)   /* marks only where they can be told apart */
			canvas_mark(cv, x, y, sr->side == 0 ? 3.2 : 3.6, colour, sr->side == 0 ? MARK_DISC : MARK_CROSS);
	}
}

/* The decimals that write every multiple of step exactly (at least 2, at most 6):
 * ticks a quarter of 0.6 apart are 0.15, 0.30, …, not 0.15 and 0.3 rounded. */
static int tick_decimals(double step)
{
	int decimals = 2;

	while (decimals < 6) {
		double scaled = step * pow(10.0, decimals);

		if (fabs(scaled - round(scaled)) < 1e-6 * fmax(1.0, scaled))
			break;
		decimals++;
	}
	return decimals;
}

static void draw_chart(struct page_fig *f, const struct chart_spec *c, double left, double top)
{
	struct canvas *cv = &f->cv;
	char text[64];
	int ticks = c->y.log ? (int)(c->y.high - c->y.low) : 4;

	canvas_text(cv, left, top - 0.8 * FS, c->title, 1.0 * FS, true, f->ink.fg, ANCHOR_START, "chart-title");
	for (int k = 0; k <= ticks; k++) {
		double v = c->y.low + (c->y.high - c->y.low) * k / ticks;
		double y = top + f->plot_h * (1.0 - (double)k / ticks);

		if (c->y.log)
			power_of_ten(text, sizeof text, (int)lround(v));
		else
			qkv_format_number(text, sizeof text, v, tick_decimals((c->y.high - c->y.low) / ticks));
		canvas_text(cv, left - 0.4 * FS, y + 0.3 * FS, text, 0.8 * FS, false, f->ink.fg, ANCHOR_END, "ytick");
	}
	if (c->x.log && c->count > 0) {
		for (int i = 0; i < c->series[0].count; i++) {
			double x = x_of(f, c, left, c->series[0].x[i]);

			canvas_line(cv, x, top + f->plot_h, x, top + f->plot_h + 0.3 * FS, f->ink.fg, 0.6, false);
			snprintf(text, sizeof text, "%.0f", c->series[0].x[i]);
			canvas_text(cv, x, top + f->plot_h + 1.2 * FS, text, 0.75 * FS, false, f->ink.fg, ANCHOR_MIDDLE,
				    "xtick");
		}
	} else {
		for (int k = 0; k <= 4; k++) {
			double v = c->x.low + (c->x.high - c->x.low) * k / 4.0, x = left + f->plot_w * k / 4.0;

			canvas_line(cv, x, top + f->plot_h, x, top + f->plot_h + 0.3 * FS, f->ink.fg, 0.6, false);
			snprintf(text, sizeof text, "%.0f", v);
			canvas_text(cv, x, top + f->plot_h + 1.2 * FS, text, 0.75 * FS, false, f->ink.fg, ANCHOR_MIDDLE,
				    "xtick");
		}
	}
	if (c->x.label != NULL)
		canvas_text(cv, left + f->plot_w / 2.0, top + f->plot_h + 2.4 * FS, c->x.label, 0.8 * FS, false,
			    f->ink.fg, ANCHOR_MIDDLE, NULL);
	canvas_rect(cv, left, top, f->plot_w, f->plot_h, f->ink.bg, "plot");
	for (int k = 0; k <= ticks; k++) {
		double y = top + f->plot_h * (1.0 - (double)k / ticks);

		canvas_line(cv, left, y, left + f->plot_w, y, f->ink.grid, 0.5, false);
	}
	canvas_outline(cv, left, top, f->plot_w, f->plot_h, f->ink.fg, 0.8);
	if (c->cap > 0.0) {
		double y = y_of(f, c, top, c->cap);

		canvas_line(cv, left, y, left + f->plot_w, y, f->ink.fg, 0.6, true);
	}
	/* pale points first, so the medians' curves lie on them */
	for (int pass = 0; pass < 2; pass++)
		for (int s = 0; s < c->count; s++)
			if (c->series[s].faint == (pass == 0))
				draw_series(f, c, &c->series[s], left, top);
}

/* The legend's entries, flowed into rows as wide as the page, from baseline y;
 * drawn when `draw`, else only measured. Returns the rows. */
static int legend(struct page_fig *f, double y, bool draw)
{
	struct canvas *cv = &f->cv;
	const struct chart_page *page = f->page;
	double x = MARGIN, right = cv->natural_w - MARGIN;
	int rows = 1;

	for (int entry = 0; entry < 5; entry++) {
		const char *text = entry < 2 ? page->legend[entry] : entry == 2 ? page->legend_faint
				   : entry == 3 ? page->legend_bound : page->legend_cap;
		double sample_y, w;

		if (text == NULL)
			continue;
		w = 1.5 * FS + canvas_text_width(cv, text, 0.9 * FS, false);
		if (x > MARGIN && x + w > right) {
			x = MARGIN;
			y += 1.5 * FS;
			rows++;
		}
		sample_y = y - 0.35 * FS;
		if (draw && entry < 2) {
			canvas_mark(cv, x + 0.5 * FS, sample_y, entry == 0 ? 3.2 : 3.6, f->ink.side[entry],
				    entry == 0 ? MARK_DISC : MARK_CROSS);
			canvas_line(cv, x, sample_y, x + 1.0 * FS, sample_y, f->ink.side[entry], 1.4, entry != 0);
		} else if (draw && entry == 2) {
			canvas_circle(cv, x + 0.2 * FS, sample_y, SEED_R, f->ink.faint[0], 0.0, NULL);
			canvas_circle(cv, x + 0.8 * FS, sample_y, SEED_R, f->ink.faint[1], 0.0, NULL);
		} else if (draw && entry == 3) {
			bound_mark(cv, x + 0.5 * FS, y - 0.1 * FS, 0.6, f->ink.fg, NULL);
		} else if (draw) {
			canvas_line(cv, x, sample_y, x + 1.0 * FS, sample_y, f->ink.fg, 0.6, true);
		}
		if (draw)
			canvas_text(cv, x + 1.5 * FS, y, text, 0.9 * FS, false, f->ink.fg, ANCHOR_START, "legend");
		x += w + 1.5 * FS;
	}
	return rows;
}

/* Baselines: the title, the facts, the result, then the legend's first row. */
static double legend_y(const struct chart_page *page)
{
	return MARGIN + (page->result != NULL ? 5.4 : 4.2) * FS;
}

static void draw(struct canvas *cv, void *ctx)
{
	struct page_fig *f = ctx;

	canvas_background(cv, f->ink.bg);
	canvas_text(cv, MARGIN, MARGIN + 1.3 * FS, f->page->title, 1.4 * FS, true, f->ink.fg, ANCHOR_START, "title");
	canvas_text(cv, MARGIN, MARGIN + 2.7 * FS, f->page->facts, 0.9 * FS, false, f->ink.fg, ANCHOR_START, "facts");
	if (f->page->result != NULL)
		canvas_text(cv, MARGIN, MARGIN + 3.9 * FS, f->page->result, 0.9 * FS, false, f->ink.fg, ANCHOR_START,
			    "result");
	legend(f, legend_y(f->page), true);
	for (int k = 0; k < f->page->count; k++)
		draw_chart(f, &f->page->charts[k], LEFT + (k % f->columns) * (f->plot_w + GAP_X),
			   f->top + (k / f->columns) * f->row_h);
}

int chart_page_write(FILE *out, enum figure_format format, struct chart_page *page,
		     const struct figure_options *o, char *err, size_t err_size)
{
	struct page_fig f;
	double width;
	int rows, rc;

	if (page->count < 1 || page->count > CHART_MAX) {
		canvas_error(err, err_size, "cannot draw the charts: nothing to draw");
		return -1;
	}
	memset(&f, 0, sizeof f);
	f.page = page;
	for (int k = 0; k < page->count; k++) {
		if (page->charts[k].y.log)
			fit_decades(&page->charts[k]);
		if (page->charts[k].x.log || !(page->charts[k].x.high > page->charts[k].x.low))
			fit_x(&page->charts[k]);
	}
	chart_colours(o, &f.ink);
	rc = canvas_open(&f.cv);
	if (rc != 0) {
		canvas_open_error("charts", err, err_size);
		return -1;
	}
	/* One chart takes the width of two, and is taller; every chart widens to
	 * fill a page made wider by its text. */
	f.columns = page->count > 1 ? 2 : 1;
	f.plot_h = page->count > 1 ? PLOT_H : 1.4 * PLOT_H;
	f.row_h = f.plot_h + 6.0 * FS;
	rows = (page->count + f.columns - 1) / f.columns;
	width = LEFT + 2.0 * PLOT_W + GAP_X + RIGHT;
	width = fmax(width, 2.0 * MARGIN + canvas_text_width(&f.cv, page->facts, 0.9 * FS, false));
	width = fmax(width, 2.0 * MARGIN + canvas_text_width(&f.cv, page->title, 1.4 * FS, true));
	if (page->result != NULL)
		width = fmax(width, 2.0 * MARGIN + canvas_text_width(&f.cv, page->result, 0.9 * FS, false));
	f.cv.natural_w = width;
	f.plot_w = (width - LEFT - RIGHT - (f.columns - 1) * GAP_X) / f.columns;
	f.top = legend_y(page) + (legend(&f, 0.0, false) - 1) * 1.5 * FS + 2.4 * FS;
	f.cv.natural_h = f.top + rows * f.row_h - 2.0 * FS;
	if (format == FIGURE_PNG && !(o->width > 0.0 && o->height > 0.0))
		canvas_place(&f.cv, ceil(2.0 * f.cv.natural_w), ceil(2.0 * f.cv.natural_h));
	else
		canvas_place(&f.cv, o->width, o->height);
	rc = canvas_write(out, format, &f.cv, page->title, draw, &f, err, err_size);
	canvas_close(&f.cv);
	return rc;
}
