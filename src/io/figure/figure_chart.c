/* figure_chart.c — a page of line charts (see figure_chart.h). */
#include "io/figure/figure_chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"

#define FS 12.0           /* text size at the natural size */
#define PLOT_W 300.0      /* one chart's plotting area */
#define PLOT_H 180.0
#define MARGIN (1.2 * FS)
#define LEFT (4.0 * FS)
#define GAP_X (4.5 * FS)
#define TOP (MARGIN + 6.2 * FS)
#define ROW_H (PLOT_H + 6.0 * FS)

struct page_fig {
	struct chart_page *page;
	struct qkv_rgb bg, fg, grid, side[2];
	struct canvas cv;
};

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

/* A log y axis's whole decades around the data's positive values. */
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
	c->y.low = floor(log10(low > 0.0 && low < 1e300 ? low : 0.1));
	c->y.high = ceil(log10(high > 1e-300 ? high : 10.0));
	if (c->y.high <= c->y.low)
		c->y.high = c->y.low + 1.0;
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
	if (!(c->x.high > c->x.low))
		c->x.high = c->x.low + 1.0;
}

static double x_of(const struct chart_spec *c, double left, double x)
{
	double v = c->x.log ? log2(x > 0.0 ? x : 1.0) : x;

	return left + PLOT_W * (v - c->x.low) / (c->x.high - c->x.low);
}

static double y_of(const struct chart_spec *c, double top, double v)
{
	double t;

	if (c->y.log)
		v = log10(v > 1e-300 ? v : 1e-300);
	t = (v - c->y.low) / (c->y.high - c->y.low);
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	return top + PLOT_H * (1.0 - t);
}

static void draw_chart(struct page_fig *f, const struct chart_spec *c, double left, double top)
{
	struct canvas *cv = &f->cv;
	char text[64];
	int ticks = c->y.log ? (int)(c->y.high - c->y.low) : 4;

	canvas_text(cv, left, top - 0.8 * FS, c->title, 1.0 * FS, true, f->fg, ANCHOR_START, "chart-title");
	for (int k = 0; k <= ticks; k++) {
		double v = c->y.low + (c->y.high - c->y.low) * k / ticks;
		double y = top + PLOT_H * (1.0 - (double)k / ticks);

		if (c->y.log)
			power_of_ten(text, sizeof text, (int)lround(v));
		else   /* ticks a quarter apart: three decimals below a range of 0.4 */
			qkv_format_number(text, sizeof text, v, c->y.high - c->y.low < 0.4 ? 3 : 2);
		canvas_text(cv, left - 0.4 * FS, y + 0.3 * FS, text, 0.8 * FS, false, f->fg, ANCHOR_END, "ytick");
	}
	if (c->x.log && c->count > 0) {
		for (int i = 0; i < c->series[0].count; i++) {
			double x = x_of(c, left, c->series[0].x[i]);

			canvas_line(cv, x, top + PLOT_H, x, top + PLOT_H + 0.3 * FS, f->fg, 0.6, false);
			snprintf(text, sizeof text, "%.0f", c->series[0].x[i]);
			canvas_text(cv, x, top + PLOT_H + 1.2 * FS, text, 0.75 * FS, false, f->fg, ANCHOR_MIDDLE, "xtick");
		}
	} else {
		for (int k = 0; k <= 4; k++) {
			double v = c->x.low + (c->x.high - c->x.low) * k / 4.0, x = left + PLOT_W * k / 4.0;

			canvas_line(cv, x, top + PLOT_H, x, top + PLOT_H + 0.3 * FS, f->fg, 0.6, false);
			snprintf(text, sizeof text, "%.0f", v);
			canvas_text(cv, x, top + PLOT_H + 1.2 * FS, text, 0.75 * FS, false, f->fg, ANCHOR_MIDDLE, "xtick");
		}
	}
	if (c->x.label != NULL)
		canvas_text(cv, left + PLOT_W / 2.0, top + PLOT_H + 2.4 * FS, c->x.label, 0.8 * FS, false, f->fg,
			    ANCHOR_MIDDLE, NULL);
	canvas_rect(cv, left, top, PLOT_W, PLOT_H, f->bg, "plot");
	for (int k = 0; k <= ticks; k++) {
		double y = top + PLOT_H * (1.0 - (double)k / ticks);

		canvas_line(cv, left, y, left + PLOT_W, y, f->grid, 0.5, false);
	}
	canvas_outline(cv, left, top, PLOT_W, PLOT_H, f->fg, 0.8);
	for (int s = 0; s < c->count; s++) {
		const struct chart_series *sr = &c->series[s];
		struct qkv_rgb colour = f->side[sr->side != 0];
		int before = -1;

		for (int i = 0; i < sr->count; i++) {
			if (isnan(sr->y[i]))
				continue;
			if (before >= 0)
				canvas_line(cv, x_of(c, left, sr->x[before]), y_of(c, top, sr->y[before]), x_of(c, left, sr->x[i]),
					    y_of(c, top, sr->y[i]), colour, 1.4, sr->side != 0);
			before = i;
		}
		/* Marks only where they can be told apart: every point of a short curve. */
		for (int i = 0; i < sr->count && sr->count <= 64; i++)
			if (!isnan(sr->y[i]))
				canvas_mark(cv, x_of(c, left, sr->x[i]), y_of(c, top, sr->y[i]), sr->side == 0 ? 3.2 : 3.6,
					    colour, sr->side == 0 ? MARK_DISC : MARK_CROSS);
	}
}

static void draw(struct canvas *cv, void *ctx)
{
	struct page_fig *f = ctx;
	double x = MARGIN, y = MARGIN + 4.2 * FS;

	canvas_background(cv, f->bg);
	canvas_text(cv, MARGIN, MARGIN + 1.3 * FS, f->page->title, 1.4 * FS, true, f->fg, ANCHOR_START, "title");
	canvas_text(cv, MARGIN, MARGIN + 2.7 * FS, f->page->facts, 0.9 * FS, false, f->fg, ANCHOR_START, "facts");
	for (int side = 0; side < 2; side++) {
		if (f->page->legend[side] == NULL)
			continue;
		canvas_mark(cv, x + 0.5 * FS, y - 0.35 * FS, side == 0 ? 3.2 : 3.6, f->side[side],
			    side == 0 ? MARK_DISC : MARK_CROSS);
		canvas_line(cv, x, y - 0.35 * FS, x + 1.0 * FS, y - 0.35 * FS, f->side[side], 1.4, side != 0);
		canvas_text(cv, x + 1.5 * FS, y, f->page->legend[side], 0.9 * FS, false, f->fg, ANCHOR_START, "legend");
		x += 1.5 * FS + canvas_text_width(cv, f->page->legend[side], 0.9 * FS, false) + 1.5 * FS;
	}
	for (int k = 0; k < f->page->count; k++)
		draw_chart(f, &f->page->charts[k], LEFT + (k % 2) * (PLOT_W + GAP_X), TOP + (k / 2) * ROW_H);
}

int chart_page_write(FILE *out, enum figure_format format, struct chart_page *page,
		     const struct figure_options *o, char *err, size_t err_size)
{
	struct page_fig f;
	struct qkv_ramp ramp;
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
	f.bg = o->dark ? qkv_colour_xterm(233) : (struct qkv_rgb){ 255, 255, 255 };
	f.fg = o->dark ? qkv_colour_xterm(255) : (struct qkv_rgb){ 0, 0, 0 };
	f.grid = o->dark ? qkv_colour_xterm(237) : qkv_colour_xterm(253);
	ramp = qkv_colour_signed((enum qkv_palette)(o->palette >= 0 && o->palette < QKV_PALETTE_COUNT ? o->palette : 0));
	f.side[0] = ramp.count > 0 ? ramp.steps[0] : f.fg;
	f.side[1] = ramp.count > 0 ? ramp.steps[ramp.count - 1] : f.fg;
	rc = canvas_open(&f.cv);
	if (rc != 0) {
		canvas_open_error("charts", err, err_size);
		return -1;
	}
	rows = (page->count + 1) / 2;
	f.cv.natural_w = LEFT + (page->count > 1 ? 2.0 * PLOT_W + GAP_X : PLOT_W) + 2.0 * FS;
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * MARGIN + canvas_text_width(&f.cv, page->facts, 0.9 * FS, false));
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * MARGIN + canvas_text_width(&f.cv, page->title, 1.4 * FS, true));
	f.cv.natural_h = TOP + rows * ROW_H - 2.0 * FS;
	if (format == FIGURE_PNG && !(o->width > 0.0 && o->height > 0.0))
		canvas_place(&f.cv, ceil(2.0 * f.cv.natural_w), ceil(2.0 * f.cv.natural_h));
	else
		canvas_place(&f.cv, o->width, o->height);
	rc = canvas_write(out, format, &f.cv, page->title, draw, &f, err, err_size);
	canvas_close(&f.cv);
	return rc;
}
