/* figure_sweep.c — the d_k sweep as a figure: the saturation view's four charts
 * (mean max weight, entropy / ln n, the softmax Jacobian's norm, the variance of
 * what softmax sees on a log axis) over a log₂ d_k axis, each with two curves told
 * apart by their marks (● scaled, × unscaled) as well as by colour (the signed
 * ramp's two ends, as on screen), and a legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/figure.h"
#include "io/figure_canvas.h"
#include "qkv/format.h"

#define FS 12.0           /* text size at the natural size */
#define PLOT_W 300.0      /* one chart's plotting area */
#define PLOT_H 180.0

struct chart {
	const char *title;
	int figure;           /* index into print order: max weight, entropy, ‖J‖, variance */
	bool log_scale;
	double low, high;     /* the vertical range (log charts: decades) */
	double x, y;          /* the plotting area's top left, natural units */
};

struct sweep_fig {
	const struct qkv_sweep_point *points;
	int count, tokens, trials;
	unsigned long long seed;
	struct figure_options o;
	struct chart charts[4];
	struct qkv_rgb bg, fg, grid, scaled, unscaled;
	char title[128], subtitle[256];
	struct canvas cv;
};

static double figure_of(const struct qkv_sweep_figures *f, int which)
{
	switch (which) {
	case 0: return f->max_weight;
	case 1: return f->entropy_ratio;
	case 2: return f->jacobian_norm;
	default: return f->score_variance;
	}
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

/* The chart's vertical position of v (natural units), clamped to the area. */
static double y_of(const struct chart *c, double v)
{
	double t;

	if (c->log_scale)
		v = log10(v > 1e-300 ? v : 1e-300);
	t = (v - c->low) / (c->high - c->low);
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	return c->y + PLOT_H * (1.0 - t);
}

static double x_of(const struct sweep_fig *f, const struct chart *c, int d_k)
{
	double last = log2((double)f->points[f->count - 1].d_k);

	return c->x + (last > 0.0 ? PLOT_W * log2((double)d_k) / last : PLOT_W / 2.0);
}

static void ranges(struct sweep_fig *f)
{
	double highest = 0.0, low = 1e300, high = 1e-300;

	for (int i = 0; i < f->count; i++) {
		highest = fmax(highest, f->points[i].scaled.jacobian_norm);
		highest = fmax(highest, f->points[i].unscaled.jacobian_norm);
		for (int side = 0; side < 2; side++) {
			double v = side == 0 ? f->points[i].scaled.score_variance : f->points[i].unscaled.score_variance;

			if (v > 0.0 && v < low)
				low = v;
			if (v > high)
				high = v;
		}
	}
	f->charts[2].high = highest > 0.0 ? ceil(highest * 10.0) / 10.0 : 0.5;
	f->charts[3].low = floor(log10(low > 0.0 && low < 1e300 ? low : 0.1));
	f->charts[3].high = ceil(log10(high > 1e-300 ? high : 10.0));
	if (f->charts[3].high <= f->charts[3].low)
		f->charts[3].high = f->charts[3].low + 1.0;
}

static void draw_chart(struct sweep_fig *f, const struct chart *c)
{
	struct canvas *cv = &f->cv;
	char text[64];
	int ticks = c->log_scale ? (int)(c->high - c->low) : 4;

	canvas_text(cv, c->x, c->y - 0.8 * FS, c->title, 1.0 * FS, true, f->fg, ANCHOR_START, "chart-title");
	for (int k = 0; k <= ticks; k++) {
		double v = c->low + (c->high - c->low) * k / ticks;
		double y = c->y + PLOT_H * (1.0 - (double)k / ticks);

		if (c->log_scale)
			power_of_ten(text, sizeof text, (int)lround(v));
		else
			qkv_format_number(text, sizeof text, v, 2);
		canvas_text(cv, c->x - 0.4 * FS, y + 0.3 * FS, text, 0.8 * FS, false, f->fg, ANCHOR_END, "ytick");
	}
	for (int i = 0; i < f->count; i++) {
		double x = x_of(f, c, f->points[i].d_k);

		canvas_line(cv, x, c->y + PLOT_H, x, c->y + PLOT_H + 0.3 * FS, f->fg, 0.6, false);
		snprintf(text, sizeof text, "%d", f->points[i].d_k);
		canvas_text(cv, x, c->y + PLOT_H + 1.2 * FS, text, 0.75 * FS, false, f->fg, ANCHOR_MIDDLE, "xtick");
	}
	canvas_text(cv, c->x + PLOT_W / 2.0, c->y + PLOT_H + 2.4 * FS, "d_k (log\u2082 axis)", 0.8 * FS, false,
		    f->fg, ANCHOR_MIDDLE, NULL);
	canvas_rect(cv, c->x, c->y, PLOT_W, PLOT_H, f->bg, "plot");
	for (int k = 0; k <= ticks; k++) {
		double y = c->y + PLOT_H * (1.0 - (double)k / ticks);

		canvas_line(cv, c->x, y, c->x + PLOT_W, y, f->grid, 0.5, false);
	}
	canvas_outline(cv, c->x, c->y, PLOT_W, PLOT_H, f->fg, 0.8);
	for (int side = 0; side < 2; side++) {
		struct qkv_rgb colour = side == 0 ? f->scaled : f->unscaled;

		for (int i = 0; i < f->count; i++) {
			const struct qkv_sweep_figures *now = side == 0 ? &f->points[i].scaled : &f->points[i].unscaled;
			double x = x_of(f, c, f->points[i].d_k), y = y_of(c, figure_of(now, c->figure));

			if (i > 0) {
				const struct qkv_sweep_figures *before = side == 0 ? &f->points[i - 1].scaled
										    : &f->points[i - 1].unscaled;

				canvas_line(cv, x_of(f, c, f->points[i - 1].d_k), y_of(c, figure_of(before, c->figure)), x, y,
					    colour, 1.4, side == 1);
			}
		}
		for (int i = 0; i < f->count; i++) {
			const struct qkv_sweep_figures *now = side == 0 ? &f->points[i].scaled : &f->points[i].unscaled;

			canvas_mark(cv, x_of(f, c, f->points[i].d_k), y_of(c, figure_of(now, c->figure)),
				    side == 0 ? 3.2 : 3.6, colour, side == 0 ? MARK_DISC : MARK_CROSS);
		}
	}
}

static void draw(struct canvas *cv, void *ctx)
{
	struct sweep_fig *f = ctx;
	const double margin = 1.2 * FS;
	double x = margin, y = margin + 4.2 * FS;

	canvas_background(cv, f->bg);
	canvas_text(cv, margin, margin + 1.3 * FS, f->title, 1.4 * FS, true, f->fg, ANCHOR_START, "title");
	canvas_text(cv, margin, margin + 2.7 * FS, f->subtitle, 0.9 * FS, false, f->fg, ANCHOR_START, "facts");
	canvas_mark(cv, x + 0.5 * FS, y - 0.35 * FS, 3.2, f->scaled, MARK_DISC);
	canvas_line(cv, x, y - 0.35 * FS, x + 1.0 * FS, y - 0.35 * FS, f->scaled, 1.4, false);
	canvas_text(cv, x + 1.5 * FS, y, "scaled (\u00f7\u221ad_k)", 0.9 * FS, false, f->fg, ANCHOR_START, "legend");
	x += 1.5 * FS + canvas_text_width(cv, "scaled (\u00f7\u221ad_k)", 0.9 * FS, false) + 1.5 * FS;
	canvas_mark(cv, x + 0.5 * FS, y - 0.35 * FS, 3.6, f->unscaled, MARK_CROSS);
	canvas_line(cv, x, y - 0.35 * FS, x + 1.0 * FS, y - 0.35 * FS, f->unscaled, 1.4, true);
	canvas_text(cv, x + 1.5 * FS, y, "unscaled", 0.9 * FS, false, f->fg, ANCHOR_START, "legend");
	for (int k = 0; k < 4; k++)
		draw_chart(f, &f->charts[k]);
}

int figure_sweep_write(FILE *out, enum figure_format format, const struct qkv_sweep_point *points, int count,
		       int tokens, int trials, unsigned long long seed, const struct figure_options *o, char *err,
		       size_t err_size)
{
	static const struct chart charts[4] = {
		{ "mean max weight (1 = one-hot)", 0, false, 0.0, 1.0, 0.0, 0.0 },
		{ "entropy / ln n (1 = uniform)", 1, false, 0.0, 1.0, 0.0, 0.0 },
		{ "gradient flow \u2016J\u2016 (softmax Jacobian)", 2, false, 0.0, 0.5, 0.0, 0.0 },
		{ "variance of what softmax sees (log)", 3, true, 0.0, 1.0, 0.0, 0.0 },
	};
	struct sweep_fig f;
	struct qkv_ramp ramp;
	const double margin = 1.2 * FS, left = 4.0 * FS, gap_x = 4.5 * FS, top = margin + 6.2 * FS;
	const double row_h = PLOT_H + 6.0 * FS;
	int rc;

	if (count < 1) {
		canvas_error(err, err_size, "cannot draw the sweep: no points");
		return -1;
	}
	memset(&f, 0, sizeof f);
	f.points = points;
	f.count = count;
	f.tokens = tokens;
	f.trials = trials;
	f.seed = seed;
	f.o = *o;
	memcpy(f.charts, charts, sizeof charts);
	for (int k = 0; k < 4; k++) {
		f.charts[k].x = left + (k % 2) * (PLOT_W + gap_x);
		f.charts[k].y = top + (k / 2) * row_h;
	}
	ranges(&f);
	f.bg = o->dark ? qkv_colour_xterm(233) : (struct qkv_rgb){ 255, 255, 255 };
	f.fg = o->dark ? qkv_colour_xterm(255) : (struct qkv_rgb){ 0, 0, 0 };
	f.grid = o->dark ? qkv_colour_xterm(237) : qkv_colour_xterm(253);
	ramp = qkv_colour_signed((enum qkv_palette)(o->palette >= 0 && o->palette < QKV_PALETTE_COUNT ? o->palette : 0));
	f.scaled = ramp.count > 0 ? ramp.steps[0] : f.fg;
	f.unscaled = ramp.count > 0 ? ramp.steps[ramp.count - 1] : f.fg;
	snprintf(f.title, sizeof f.title, "Saturation: softmax with and without \u221ad_k");
	snprintf(f.subtitle, sizeof f.subtitle, "Q, K ~ N(0,1) \u00b7 %d tokens \u00b7 %d trials \u00b7 seed %llu "
		 "\u00b7 d_k 1\u2026%d \u00b7 means over trials and query rows", tokens, trials, seed,
		 points[count - 1].d_k);
	if (canvas_open(&f.cv) != 0) {
		canvas_error(err, err_size, "cannot draw the sweep: out of memory");
		return -1;
	}
	f.cv.natural_w = left + 2.0 * PLOT_W + gap_x + 2.0 * FS;
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * margin + canvas_text_width(&f.cv, f.subtitle, 0.9 * FS, false));
	f.cv.natural_h = top + 2.0 * row_h - 2.0 * FS;
	if (format == FIGURE_PNG && !(o->width > 0.0 && o->height > 0.0))
		canvas_place(&f.cv, ceil(2.0 * f.cv.natural_w), ceil(2.0 * f.cv.natural_h));
	else
		canvas_place(&f.cv, o->width, o->height);
	rc = canvas_write(out, format, &f.cv, f.title, draw, &f, err, err_size);
	canvas_close(&f.cv);
	return rc;
}
