/* figure_geometry.c — the geometry of queries and keys as a figure (the geometry
 * view's picture, for slides): every query and key as an arrow from the origin in
 * the plane of qkv/geometry.h, equal units across and down so angles read true,
 * queries and keys told apart by mark (disc, cross) and by colour (the signed
 * ramp's two ends, as the charts have them), labelled by token; the selected
 * query's arrow drawn wide, its line through the origin dashed, each key's
 * projection onto it dashed; under the plot the dot product with the selected
 * key and what the plane is, in words. Points instead of arrows past a dozen
 * tokens. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/figure/figure.h"
#include "io/figure/figure_canvas.h"
#include "qkv/format.h"

#define FS 12.0          /* text size at the natural size */
#define PLOT 420.0       /* the plot's longer side */
#define MARGIN (1.2 * FS)
#define LEFT (4.0 * FS)
#define TOP (MARGIN + 4.0 * FS)
#define ARROWS_MAX 12
#define LEGEND "\u25cf queries (discs)   \u00d7 keys (crosses)   wide: the selected query   dashed: each key's " \
	"projection onto it"

struct geometry_fig {
	const struct qkv_problem *p;
	const struct qkv_trace *t;
	const struct qkv_geometry *g;
	int query, key;
	double x_lo, x_hi, y_lo, y_hi, unit, plot_w, plot_h;
	char dot[512], plane[256], title[256];
	struct qkv_rgb bg, fg, grid, query_colour, key_colour;
	struct canvas cv;
};

static double fig_x(const struct geometry_fig *f, double x)
{
	return LEFT + (x - f->x_lo) / f->unit;
}

static double fig_y(const struct geometry_fig *f, double y)
{
	return TOP + (f->y_hi - y) / f->unit;
}

/* A round step of about range / wanted: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int wanted)
{
	double raw = range / wanted, power = pow(10.0, floor(log10(raw))), m = raw / power;

	return (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * power;
}

/* The ticks and grid of one axis, their labels beside it. */
static void axis(struct geometry_fig *f, bool across)
{
	struct canvas *cv = &f->cv;
	double lo = across ? f->x_lo : f->y_lo, hi = across ? f->x_hi : f->y_hi, step = nice_step(hi - lo, 6);
	int decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
	char text[32];

	for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
		double shown = fabs(v) < step * 1e-6 ? 0.0 : v;

		qkv_format_number(text, sizeof text, shown, decimals);
		if (across) {
			canvas_line(cv, fig_x(f, v), TOP, fig_x(f, v), TOP + f->plot_h, f->grid, 0.5, false);
			canvas_text(cv, fig_x(f, v), TOP + f->plot_h + 1.2 * FS, text, 0.75 * FS, false, f->fg,
				    ANCHOR_MIDDLE, "xtick");
		} else {
			canvas_line(cv, LEFT, fig_y(f, v), LEFT + f->plot_w, fig_y(f, v), f->grid, 0.5, false);
			canvas_text(cv, LEFT - 0.4 * FS, fig_y(f, v) + 0.3 * FS, text, 0.75 * FS, false, f->fg, ANCHOR_END,
				    "ytick");
		}
	}
}

/* How far along (dx, dy) from the origin the plot reaches (the origin is inside). */
static double reach_in(const struct geometry_fig *f, double dx, double dy)
{
	double t = INFINITY;

	if (dx > 0)
		t = fmin(t, f->x_hi / dx);
	if (dx < 0)
		t = fmin(t, f->x_lo / dx);
	if (dy > 0)
		t = fmin(t, f->y_hi / dy);
	if (dy < 0)
		t = fmin(t, f->y_lo / dy);
	return isfinite(t) ? t : 0.0;
}

/* "q_t3" or "k_t1" (a query by its own label in cross-attention). */
static void name(char *buf, size_t size, const struct qkv_problem *p, char role, int token)
{
	snprintf(buf, size, "%c_%s", role, role == 'q' ? qkv_problem_query_label(p, token) : p->tokens[token]);
}

static void draw(struct canvas *cv, void *ctx)
{
	struct geometry_fig *f = ctx;
	const struct qkv_geometry *g = f->g;
	bool arrows = g->queries <= ARROWS_MAX && g->keys <= ARROWS_MAX;
	double qx = g->x[f->query], qy = g->y[f->query], q2 = qx * qx + qy * qy;
	char text[96];

	canvas_background(cv, f->bg);
	canvas_text(cv, MARGIN, MARGIN + 1.3 * FS, f->title, 1.4 * FS, true, f->fg, ANCHOR_START, "title");
	canvas_text(cv, MARGIN, MARGIN + 2.7 * FS, LEGEND, 0.9 * FS, false, f->fg, ANCHOR_START, "legend");
	canvas_rect(cv, LEFT, TOP, f->plot_w, f->plot_h, f->bg, "plot");
	axis(f, true);
	axis(f, false);
	canvas_outline(cv, LEFT, TOP, f->plot_w, f->plot_h, f->fg, 0.8);
	/* The axes through the origin. */
	canvas_line(cv, fig_x(f, f->x_lo), fig_y(f, 0), fig_x(f, f->x_hi), fig_y(f, 0), f->fg, 0.6, false);
	canvas_line(cv, fig_x(f, 0), fig_y(f, f->y_lo), fig_x(f, 0), fig_y(f, f->y_hi), f->fg, 0.6, false);
	if (q2 > 0) {
		/* The selected query's line across the plot, both ways from the origin,
		 * and the projections onto it. */
		double ahead = reach_in(f, qx, qy), back = reach_in(f, -qx, -qy);
		double ax = -qx * back, ay = -qy * back, bx = qx * ahead, by = qy * ahead;
		canvas_line(cv, fig_x(f, ax), fig_y(f, ay), fig_x(f, bx), fig_y(f, by), f->query_colour, 0.7, true);
		for (int j = 0; j < g->keys; j++) {
			double kx = g->x[g->queries + j], ky = g->y[g->queries + j], along = (kx * qx + ky * qy) / q2;
			if (arrows || j == f->key)
				canvas_line(cv, fig_x(f, kx), fig_y(f, ky), fig_x(f, along * qx), fig_y(f, along * qy),
					    f->key_colour, 0.8, true);
		}
	}
	for (int j = 0; j < g->keys; j++) {
		double kx = g->x[g->queries + j], ky = g->y[g->queries + j];
		if (arrows)
			canvas_line(cv, fig_x(f, 0), fig_y(f, 0), fig_x(f, kx), fig_y(f, ky), f->key_colour, 1.2, false);
		canvas_mark(cv, fig_x(f, kx), fig_y(f, ky), 4.0, f->key_colour, MARK_CROSS);
	}
	for (int i = 0; i < g->queries; i++) {
		if (arrows || i == f->query)
			canvas_line(cv, fig_x(f, 0), fig_y(f, 0), fig_x(f, g->x[i]), fig_y(f, g->y[i]), f->query_colour,
				    i == f->query ? 3.0 : 1.2, false);
		canvas_mark(cv, fig_x(f, g->x[i]), fig_y(f, g->y[i]), i == f->query ? 4.5 : 3.2, f->query_colour, MARK_DISC);
	}
	/* Labels: every point's with arrows; the selected query's and key's with points. */
	for (int j = 0; j < g->keys; j++)
		if (arrows || j == f->key) {
			name(text, sizeof text, f->p, 'k', j);
			canvas_text(cv, fig_x(f, g->x[g->queries + j]) + 0.5 * FS, fig_y(f, g->y[g->queries + j]) + 1.1 * FS,
				    text, 0.8 * FS, false, f->key_colour, ANCHOR_START, "key");
		}
	for (int i = 0; i < g->queries; i++)
		if (arrows || i == f->query) {
			name(text, sizeof text, f->p, 'q', i);
			canvas_text(cv, fig_x(f, g->x[i]) + 0.5 * FS, fig_y(f, g->y[i]) - 0.5 * FS, text, 0.8 * FS,
				    i == f->query, f->query_colour, ANCHOR_START, "query");
		}
	snprintf(text, sizeof text, "%s", g->plane == QKV_PLANE_EXACT ? "d1" : "PC1");
	canvas_text(cv, LEFT + f->plot_w, TOP + f->plot_h + 2.4 * FS, text, 0.8 * FS, false, f->fg, ANCHOR_END, NULL);
	snprintf(text, sizeof text, "%s", g->plane == QKV_PLANE_EXACT ? (g->d_k == 1 ? "" : "d2") : "PC2");
	canvas_text(cv, LEFT, TOP - 0.5 * FS, text, 0.8 * FS, false, f->fg, ANCHOR_END, NULL);
	canvas_text(cv, MARGIN, TOP + f->plot_h + 4.0 * FS, f->dot, 1.0 * FS, true, f->fg, ANCHOR_START, "dot");
	canvas_text(cv, MARGIN, TOP + f->plot_h + 5.4 * FS, f->plane, 0.9 * FS, false, f->fg, ANCHOR_START, "plane");
}

int figure_geometry_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
			  const struct qkv_trace *t, const struct qkv_geometry *g, int query, int key,
			  const char *dot, const char *plane, const struct figure_options *o, char *err,
			  size_t err_size)
{
	struct geometry_fig f;
	struct qkv_ramp ramp;
	int rc;

	memset(&f, 0, sizeof f);
	f.p = p;
	f.t = t;
	f.g = g;
	f.query = query;
	f.key = key;
	snprintf(f.dot, sizeof f.dot, "%s", dot);
	snprintf(f.plane, sizeof f.plane, "%s", plane);
	snprintf(f.title, sizeof f.title, "Queries and keys as arrows: q \u00b7 k = |q| |k| cos \u03b8 (d_k %d)", g->d_k);
	/* The range: the origin and every point, a margin around them, then equal
	 * units across and down (the plot's sides follow the range's shape). */
	f.x_lo = f.x_hi = f.y_lo = f.y_hi = 0.0;
	for (int i = 0; i < g->queries + g->keys; i++) {
		f.x_lo = fmin(f.x_lo, g->x[i]);
		f.x_hi = fmax(f.x_hi, g->x[i]);
		f.y_lo = fmin(f.y_lo, g->y[i]);
		f.y_hi = fmax(f.y_hi, g->y[i]);
	}
	if (f.x_hi - f.x_lo < 1e-12 && f.y_hi - f.y_lo < 1e-12)
		f.x_lo = f.y_lo = -1.0, f.x_hi = f.y_hi = 1.0;
	double pad = 0.08 * fmax(f.x_hi - f.x_lo, f.y_hi - f.y_lo);
	f.x_lo -= pad, f.x_hi += pad, f.y_lo -= pad, f.y_hi += pad;
	/* Neither side under a third of the other, so a flat cloud still has room. */
	double wide = fmax(f.x_hi - f.x_lo, f.y_hi - f.y_lo);
	if (f.x_hi - f.x_lo < wide / 3) {
		double grow = (wide / 3 - (f.x_hi - f.x_lo)) / 2;
		f.x_lo -= grow, f.x_hi += grow;
	}
	if (f.y_hi - f.y_lo < wide / 3) {
		double grow = (wide / 3 - (f.y_hi - f.y_lo)) / 2;
		f.y_lo -= grow, f.y_hi += grow;
	}
	f.unit = wide / PLOT;
	f.plot_w = (f.x_hi - f.x_lo) / f.unit;
	f.plot_h = (f.y_hi - f.y_lo) / f.unit;
	f.bg = o->dark ? qkv_colour_xterm(233) : (struct qkv_rgb){ 255, 255, 255 };
	f.fg = o->dark ? qkv_colour_xterm(255) : (struct qkv_rgb){ 0, 0, 0 };
	f.grid = o->dark ? qkv_colour_xterm(237) : qkv_colour_xterm(253);
	ramp = qkv_colour_signed((enum qkv_palette)(o->palette >= 0 && o->palette < QKV_PALETTE_COUNT ? o->palette : 0));
	f.query_colour = ramp.count > 0 ? ramp.steps[0] : f.fg;
	f.key_colour = ramp.count > 0 ? ramp.steps[ramp.count - 1] : f.fg;
	if (canvas_open(&f.cv) != 0) {
		canvas_open_error("geometry", err, err_size);
		return -1;
	}
	f.cv.natural_w = LEFT + f.plot_w + 3.0 * FS;
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * MARGIN + canvas_text_width(&f.cv, f.title, 1.4 * FS, true));
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * MARGIN + canvas_text_width(&f.cv, LEGEND, 0.9 * FS, false));
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * MARGIN + canvas_text_width(&f.cv, f.dot, 1.0 * FS, true));
	f.cv.natural_w = fmax(f.cv.natural_w, 2.0 * MARGIN + canvas_text_width(&f.cv, f.plane, 0.9 * FS, false));
	f.cv.natural_h = TOP + f.plot_h + 6.5 * FS;
	if (format == FIGURE_PNG && !(o->width > 0.0 && o->height > 0.0))
		canvas_place(&f.cv, ceil(2.0 * f.cv.natural_w), ceil(2.0 * f.cv.natural_h));
	else
		canvas_place(&f.cv, o->width, o->height);
	rc = canvas_write(out, format, &f.cv, f.title, draw, &f, err, err_size);
	canvas_close(&f.cv);
	return rc;
}
