/* draw_geometry.c — the geometry view (G): every query and key as an arrow from
 * the origin in a braille plot (2 × 4 dots a cell, equal units across and down,
 * so angles read true), points past ARROWS_MAX tokens; queries and keys told
 * apart by colour and by mark (● and ◆, * and # in ASCII); the selected query's
 * arrow drawn thick, its line through the origin dotted, each key's projection
 * onto it dotted, the keys' marks by their weights; a table of the selected
 * query's dot products, scaled scores and weights beside the plot; the dot
 * product with the selected key and what the plane is in words under it. The
 * numbers come from the trace and qkv/geometry.h; reads the app, changes
 * nothing. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/colour.h"
#include "qkv/format.h"
#include "qkv/geometry.h"
#include "qkv/grid.h"
#include "qkv/text.h"
#include "tui/chart.h"
#include "tui/draw_geometry.h"
#include "tui/draw_internal.h"
#include "tui/glyphs.h"
#include "tui/palette.h"

#define ARROWS_MAX 12  /* tokens drawn as arrows; past them, points */
#define LABELS_MAX 3   /* keys labelled past ARROWS_MAX: the heaviest */
#define LINE_MAX 512
#define TABLE_NUMBER 8 /* columns of a number in the table */
#define TABLE_ROWS_MAX 64

#define MARK_QUERY "●"
#define MARK_SELECTED "◉"
#define MARK_KEY_HEAVY "◆" /* weight ≥ 0.3 */
#define MARK_KEY_MIDDLE "◇" /* weight ≥ 0.1 */
#define MARK_KEY_LIGHT "·" /* less */

/* What set a dot, in the order a cell's colour is chosen (the highest wins). */
enum ink { INK_NONE, INK_AXIS, INK_GUIDE, INK_PROJECTION, INK_KEY, INK_QUERY, INK_SELECTED };

/* The dots of the plot and, per cell, the ink that colours it and whether a mark
 * or a label holds it. Reused from frame to frame. */
struct canvas {
	int w, h; /* cells */
	unsigned char *bits, *ink, *taken;
	size_t capacity;
	double x_min, y_max, unit; /* data at dot (0, 0), and data units a dot */
};

static struct canvas canvas;
/* The plane of the Q and K it was computed from (kept, so a frame that changed
 * neither, a cursor move say, does not decompose them again). */
static struct qkv_geometry geometry;
static struct qkv_matrix geometry_q, geometry_k;
static bool geometry_valid;

/* Brings the plane up to date with the trace's Q and K; 0 or a QKV_E* code. */
static int geometry_update(const struct qkv_trace *t)
{
	int rc;

	if (geometry_valid && geometry_q.rows == t->q.rows && geometry_q.cols == t->q.cols &&
	    geometry_k.rows == t->k.rows && geometry_k.cols == t->k.cols &&
	    memcmp(geometry_q.values, t->q.values, sizeof *t->q.values * (size_t)t->q.rows * t->q.cols) == 0 &&
	    memcmp(geometry_k.values, t->k.values, sizeof *t->k.values * (size_t)t->k.rows * t->k.cols) == 0)
		return 0;
	geometry_valid = false;
	if ((rc = qkv_geometry_compute(&geometry, &t->q, &t->k)) != 0)
		return rc;
	if (qkv_matrix_copy(&geometry_q, &t->q) == 0 && qkv_matrix_copy(&geometry_k, &t->k) == 0)
		geometry_valid = true;
	return 0;
}

static struct cell_style query_style(void)
{
	return palette_role(ROLE_LABEL);
}

static struct cell_style key_style(void)
{
	return palette_key_point();
}

static struct cell_style ink_style(enum ink ink)
{
	struct cell_style style;

	switch (ink) {
	case INK_KEY: case INK_PROJECTION: return key_style();
	case INK_QUERY: return query_style();
	case INK_SELECTED:
		style = query_style();
		style.attr |= A_BOLD;
		return style;
	default: return palette_role(ROLE_DIM);
	}
}

static void put(int y, int x, struct cell_style style, const char *text)
{
	char drawn[LINE_MAX];

	palette_apply(stdscr, style);
	mvaddstr(y, x, glyphs_text(text, drawn, sizeof drawn));
}

/* The key's mark for its weight from the selected query, as shown at two
 * decimals (so 0.0975, shown 0.10, has the mark of 0.10): larger for more. */
const char *draw_geometry_key_mark(double weight)
{
	double shown = qkv_colour_shown(weight, 2);

	return shown >= 0.3 ? MARK_KEY_HEAVY : shown >= 0.1 ? MARK_KEY_MIDDLE : MARK_KEY_LIGHT;
}

static bool canvas_reserve(int w, int h)
{
	size_t cells = (size_t)w * (size_t)h;

	if (cells > canvas.capacity) {
		unsigned char *bits = realloc(canvas.bits, cells), *ink, *taken;
		if (bits == NULL)
			return false;
		canvas.bits = bits;
		if ((ink = realloc(canvas.ink, cells)) == NULL)
			return false;
		canvas.ink = ink;
		if ((taken = realloc(canvas.taken, cells)) == NULL)
			return false;
		canvas.taken = taken;
		canvas.capacity = cells;
	}
	canvas.w = w;
	canvas.h = h;
	memset(canvas.bits, 0, cells);
	memset(canvas.ink, 0, cells);
	memset(canvas.taken, 0, cells);
	return true;
}

/* The dot of a point of the plane (column from the left, row from the top). */
static void dot_of(double x, double y, long *dx, long *dy)
{
	*dx = lround((x - canvas.x_min) / canvas.unit);
	*dy = lround((canvas.y_max - y) / canvas.unit);
}

static void set_dot(long dx, long dy, enum ink ink)
{
	long cx = dx / 2, cy = dy / 4;

	if (dx < 0 || dy < 0 || cx >= canvas.w || cy >= canvas.h)
		return;
	size_t at = (size_t)cy * (size_t)canvas.w + (size_t)cx;
	canvas.bits[at] |= (unsigned char)(1u << ((dx % 2) * 4 + dy % 4));
	if (canvas.ink[at] < ink)
		canvas.ink[at] = (unsigned char)ink;
}

/* A run of dots from one point of the plane to another (Bresenham): every dot,
 * every other one (dotted), or two dots wide (thick). */
static void line(double x0, double y0, double x1, double y1, enum ink ink, bool dotted, bool thick)
{
	long ax, ay, bx, by;

	dot_of(x0, y0, &ax, &ay);
	dot_of(x1, y1, &bx, &by);
	long dx = labs(bx - ax), dy = -labs(by - ay), sx = ax < bx ? 1 : -1, sy = ay < by ? 1 : -1, err = dx + dy;
	for (long step = 0; step < 100000; step++) {
		if (!dotted || step % 2 == 0) {
			set_dot(ax, ay, ink);
			if (thick) {
				set_dot(ax + (dx >= -dy ? 0 : 1), ay + (dx >= -dy ? 1 : 0), ink);
			}
		}
		if (ax == bx && ay == by)
			return;
		long e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			ax += sx;
		}
		if (e2 <= dx) {
			err += dx;
			ay += sy;
		}
	}
}

/* The cell of a point of the plane, false when it is outside the plot. */
static bool cell_of(double x, double y, int *row, int *col)
{
	long dx, dy;

	dot_of(x, y, &dx, &dy);
	*row = (int)(dy / 4);
	*col = (int)(dx / 2);
	return dx >= 0 && dy >= 0 && *col < canvas.w && *row < canvas.h;
}

/* A round step of about range / wanted: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int wanted)
{
	double raw = range / (wanted > 1 ? wanted : 1), power = pow(10.0, floor(log10(raw))), f = raw / power;

	return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * power;
}

/* A tick label at the step's decimals, with a true minus sign. */
static void tick_text(char *buf, size_t size, double value, double step)
{
	int decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
	char plain[32];

	qkv_format_number(plain, sizeof plain, fabs(value) < step * 1e-6 ? 0.0 : value, decimals);
	snprintf(buf, size, "%s%s", plain[0] == '-' ? "−" : "", plain[0] == '-' ? plain + 1 : plain);
}

/* Writes text at (row, col) of the plot when every cell it needs is free, and
 * takes them; false when it does not fit there. */
static bool label_at(int top, int left, int row, int col, struct cell_style style, const char *text)
{
	int cols = glyphs_columns(text);

	if (row < 0 || row >= canvas.h || col < 0 || col + cols > canvas.w)
		return false;
	for (int c = col; c < col + cols; c++)
		if (canvas.taken[(size_t)row * canvas.w + c])
			return false;
	for (int c = col; c < col + cols; c++)
		canvas.taken[(size_t)row * canvas.w + c] = 1;
	put(top + row, left + col, style, text);
	return true;
}

/* A point's label, right of its mark, else left of it, else none. */
static void label(int top, int left, double x, double y, struct cell_style style, const char *text)
{
	int row, col;

	if (!cell_of(x, y, &row, &col))
		return;
	if (!label_at(top, left, row, col + 1, style, text))
		label_at(top, left, row, col - glyphs_columns(text), style, text);
}

/* A mark on a point, taking its cell. */
static void mark(int top, int left, double x, double y, struct cell_style style, const char *glyph)
{
	int row, col;

	if (!cell_of(x, y, &row, &col))
		return;
	canvas.taken[(size_t)row * canvas.w + col] = 1;
	put(top + row, left + col, style, glyph);
}

/* "q_t3" or "k_t1", the token's own label (its number when the label is long). */
static void point_name(char *buf, size_t size, const struct qkv_problem *p, char role, int token)
{
	/* A query by its own label in cross-attention. */
	const char *label = role == 'q' ? (token < p->m ? qkv_problem_query_label(p, token) : NULL)
					: (token < p->n ? p->tokens[token] : NULL);

	if (label != NULL && glyphs_columns(label) <= 12)
		snprintf(buf, size, "%c_%s", role, label);
	else
		snprintf(buf, size, "%c_%d", role, token + 1);
}

/* The plot in the box (top, x, h, w) with query and key selected: y tick labels,
 * the plot, the x tick labels on its last line. */
static void draw_plot(const struct app *app, int query, int key, int top, int x, int h, int w)
{
	const struct qkv_trace *t = &app->trace;
	const struct qkv_geometry *g = &geometry;
	int points = g->queries + g->keys;
	bool arrows = g->queries <= ARROWS_MAX && g->keys <= ARROWS_MAX;
	double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0, step_x, step_y;
	char text[96];
	int label_w = 1, plot_h = h - 1, plot_w, left;

	for (int i = 0; i < points; i++) {
		x_lo = fmin(x_lo, g->x[i]);
		x_hi = fmax(x_hi, g->x[i]);
		y_lo = fmin(y_lo, g->y[i]);
		y_hi = fmax(y_hi, g->y[i]);
	}
	if (x_hi - x_lo < 1e-12 && y_hi - y_lo < 1e-12) {
		x_lo = y_lo = -1.0;
		x_hi = y_hi = 1.0;
	}
	/* Room around the points, then the tick labels' width. */
	double pad = 0.08 * fmax(x_hi - x_lo, y_hi - y_lo);
	x_lo -= pad, x_hi += pad, y_lo -= pad, y_hi += pad;
	step_y = nice_step(y_hi - y_lo, plot_h / 3 > 1 ? plot_h / 3 : 2);
	for (double v = ceil(y_lo / step_y) * step_y; v <= y_hi; v += step_y) {
		tick_text(text, sizeof text, v, step_y);
		if (glyphs_columns(text) > label_w)
			label_w = glyphs_columns(text);
	}
	left = x + label_w + 1;
	plot_w = w - label_w - 1;
	if (plot_h < 3 || plot_w < 8 || !canvas_reserve(plot_w, plot_h))
		return;
	/* Equal units across and down: the wider range sets the unit, the other is
	 * opened up around its middle. */
	double unit = fmax((x_hi - x_lo) / (2.0 * plot_w - 1.0), (y_hi - y_lo) / (4.0 * plot_h - 1.0));
	double x_mid = (x_lo + x_hi) / 2, y_mid = (y_lo + y_hi) / 2;
	canvas.unit = unit;
	canvas.x_min = x_mid - unit * (2.0 * plot_w - 1.0) / 2;
	canvas.y_max = y_mid + unit * (4.0 * plot_h - 1.0) / 2;
	double x_max = canvas.x_min + unit * (2.0 * plot_w - 1.0), y_min = canvas.y_max - unit * (4.0 * plot_h - 1.0);

	/* The axes through the origin, then the selected query's line, the keys'
	 * projections onto it, the arrows (or points) and the selected arrow. */
	line(canvas.x_min, 0, x_max, 0, INK_AXIS, true, false);
	line(0, y_min, 0, canvas.y_max, INK_AXIS, true, false);
	double qx = g->x[query], qy = g->y[query], q2 = qx * qx + qy * qy;
	if (q2 > 0) {
		double reach = 2.0 * fmax(fmax(fabs(canvas.x_min), fabs(x_max)), fmax(fabs(y_min), fabs(canvas.y_max)));
		double s = reach / sqrt(q2);
		line(-qx * s, -qy * s, qx * s, qy * s, INK_GUIDE, true, false);
		for (int j = 0; j < g->keys; j++) {
			double kx = g->x[g->queries + j], ky = g->y[g->queries + j], along = (kx * qx + ky * qy) / q2;
			if (arrows || j == key)
				line(kx, ky, along * qx, along * qy, INK_PROJECTION, true, false);
		}
	}
	if (arrows) {
		for (int j = 0; j < g->keys; j++)
			line(0, 0, g->x[g->queries + j], g->y[g->queries + j], INK_KEY, false, false);
		for (int i = 0; i < g->queries; i++)
			line(0, 0, g->x[i], g->y[i], INK_QUERY, false, false);
	}
	line(0, 0, qx, qy, INK_SELECTED, false, true);

	for (int r = 0; r < canvas.h; r++)
		for (int c = 0; c < canvas.w; c++) {
			size_t at = (size_t)r * canvas.w + c;
			char glyph[4];
			if (canvas.bits[at] == 0)
				continue;
			if (glyphs_set() == GLYPHS_ASCII)
				snprintf(glyph, sizeof glyph, ".");
			else
				chart_braille(glyph, canvas.bits[at]);
			put(top + r, left + c, ink_style((enum ink)canvas.ink[at]), glyph);
		}

	/* The marks: keys, then queries, the selected query last (on top). */
	for (int j = 0; j < g->keys; j++) {
		struct cell_style style = key_style();
		style.attr |= A_BOLD;
		mark(top, left, g->x[g->queries + j], g->y[g->queries + j], style,
		     draw_geometry_key_mark(qkv_matrix_get(&t->weights, query, j)));
	}
	for (int i = 0; i < g->queries; i++)
		if (i != query)
			mark(top, left, g->x[i], g->y[i], query_style(), MARK_QUERY);
	mark(top, left, qx, qy, ink_style(INK_SELECTED), MARK_SELECTED);

	/* The labels: the selected query first, then (as points) the heaviest keys. */
	point_name(text, sizeof text, &app->problem, 'q', query);
	label(top, left, qx, qy, ink_style(INK_SELECTED), text);
	if (arrows) {
		for (int j = 0; j < g->keys; j++) {
			point_name(text, sizeof text, &app->problem, 'k', j);
			label(top, left, g->x[g->queries + j], g->y[g->queries + j], key_style(), text);
		}
		for (int i = 0; i < g->queries; i++)
			if (i != query) {
				point_name(text, sizeof text, &app->problem, 'q', i);
				label(top, left, g->x[i], g->y[i], query_style(), text);
			}
	} else {
		int chosen[LABELS_MAX + 1], count = 0;
		chosen[count++] = key;
		while (count <= LABELS_MAX) {
			int best = -1;
			for (int j = 0; j < g->keys; j++) {
				bool taken = false;
				for (int k = 0; k < count; k++)
					taken |= chosen[k] == j;
				if (!taken && (best < 0 || qkv_matrix_get(&t->weights, query, j) >
							       qkv_matrix_get(&t->weights, query, best)))
					best = j;
			}
			if (best < 0)
				break;
			chosen[count++] = best;
		}
		for (int k = 0; k < count; k++) {
			point_name(text, sizeof text, &app->problem, 'k', chosen[k]);
			label(top, left, g->x[g->queries + chosen[k]], g->y[g->queries + chosen[k]], key_style(), text);
		}
	}

	/* The y tick labels on the rows their values fall in, the x ones under the plot. */
	struct cell_style dim = palette_role(ROLE_DIM), tick = palette_role(ROLE_LABEL);
	int last_row = -1;
	for (int r = 0; r < plot_h; r++)
		put(top + r, left - 1, dim, "│");
	for (double v = ceil(y_min / step_y) * step_y; v <= canvas.y_max; v += step_y) {
		int row = (int)((canvas.y_max - v) / unit + 0.5) / 4;
		if (row < 0 || row >= plot_h || row == last_row)
			continue;
		tick_text(text, sizeof text, v, step_y);
		put(top + row, left - 1 - glyphs_columns(text), tick, text);
		put(top + row, left - 1, dim, "┤");
		last_row = row;
	}
	step_x = nice_step(x_max - canvas.x_min, plot_w / 8 > 1 ? plot_w / 8 : 2);
	int free_from = left;
	for (double v = ceil(canvas.x_min / step_x) * step_x; v <= x_max; v += step_x) {
		int col = (int)((v - canvas.x_min) / unit + 0.5) / 2;
		tick_text(text, sizeof text, v, step_x);
		int cols = glyphs_columns(text), at = left + col - cols / 2;
		if (col < 0 || col >= plot_w || at < free_from || at + cols > left + plot_w)
			continue;
		put(top + plot_h, at, tick, text);
		free_from = at + cols + 1;
	}
	/* The axes' names: the rows' own columns, or the principal components. */
	snprintf(text, sizeof text, "%s →", g->plane == QKV_PLANE_EXACT ? "d1" : "PC1");
	if (free_from + glyphs_columns(text) < left + plot_w)
		put(top + plot_h, left + plot_w - glyphs_columns(text), dim, text);
	if (g->d_k > 1) {
		snprintf(text, sizeof text, "↑ %s", g->plane == QKV_PLANE_EXACT ? "d2" : "PC2");
		label_at(top, left, 0, 0, dim, text);
	}
}

/* A weight, score or dot product in a table cell: two decimals, more for a
 * value that would show fewer than two significant digits (up to `most`). */
static void number(char *buf, size_t size, double value, int most)
{
	bool apart;
	int decimals = qkv_format_places(&value, 1, 2, most, &apart);

	qkv_format_number(buf, size, value, decimals);
	if (strspn(buf, "-0.") == strlen(buf) && buf[0] == '-')
		memmove(buf, buf + 1, strlen(buf));
}

/* Appends text right-aligned in `width` columns (as drawn). */
static void append_right(char *buf, size_t size, const char *text, int width)
{
	size_t used = strlen(buf);
	int pad = width - glyphs_columns(text);

	snprintf(buf + used, size - used, "%*s%s", pad > 0 ? pad : 0, "", text);
}

/* The columns of the keys' names in the table (at least "key"'s). */
static int name_columns(const struct app *app)
{
	char name[48];
	int most = 3;

	for (int j = 0; j < app->trace.k.rows; j++) {
		point_name(name, sizeof name, &app->problem, 'k', j);
		if (glyphs_columns(name) > most)
			most = glyphs_columns(name);
	}
	return most;
}

/* The table's width: a mark, the name, three numbers of 7 columns. */
static int table_columns(const struct app *app)
{
	return 2 + name_columns(app) + 3 * TABLE_NUMBER;
}

/* The table beside the plot: the selected query, then for each key its dot
 * product, its scaled score and its weight; past the rows there are, the
 * heaviest keys (and the selected one) and how light the rest are. */
static void draw_table(const struct app *app, int query, int key, int top, int x, int h)
{
	const struct qkv_trace *t = &app->trace;
	const struct qkv_problem *p = &app->problem;
	int keys = t->k.rows, rows = h - 2, names = name_columns(app);
	char name[48], value[32], row_text[LINE_MAX], divisor[48];
	int order[TABLE_ROWS_MAX], shown = 0;

	point_name(name, sizeof name, p, 'q', query);
	number(value, sizeof value, qkv_geometry_norm(&t->q, query), 4);
	snprintf(row_text, sizeof row_text, "%s %s  |q| = %s", MARK_SELECTED, name, value);
	put(top, x, ink_style(INK_SELECTED), row_text);
	snprintf(row_text, sizeof row_text, "  %-*s", names, "key");
	append_right(row_text, sizeof row_text, "q·k", TABLE_NUMBER);
	qkv_format_number(value, sizeof value, t->divisor, 2);
	snprintf(divisor, sizeof divisor, "÷√%d", t->d_k);
	if (p->scale != QKV_SCALE_SQRT_DK || p->temperature != 1.0 || glyphs_columns(divisor) >= TABLE_NUMBER)
		snprintf(divisor, sizeof divisor, "%s%s", t->divisor == strtod(value, NULL) ? "÷" : "÷≈", value);
	append_right(row_text, sizeof row_text, divisor, TABLE_NUMBER);
	append_right(row_text, sizeof row_text, "weight", TABLE_NUMBER);
	put(top + 1, x, palette_role(ROLE_DIM), row_text);
	if (rows < 1)
		return;
	if (rows > TABLE_ROWS_MAX)
		rows = TABLE_ROWS_MAX;
	/* Which keys: all in order when they fit, else the heaviest, the selected
	 * one among them, and a last line for the rest. */
	if (keys <= rows) {
		for (int j = 0; j < keys; j++)
			order[shown++] = j;
	} else {
		bool has_key = false;
		for (int s = 0; s < rows - 1; s++) {
			int best = -1;
			for (int j = 0; j < keys; j++) {
				bool taken = false;
				for (int k = 0; k < shown; k++)
					taken |= order[k] == j;
				if (!taken && (best < 0 || qkv_matrix_get(&t->weights, query, j) >
							       qkv_matrix_get(&t->weights, query, best)))
					best = j;
			}
			order[shown++] = best;
			has_key |= best == key;
		}
		if (!has_key && shown > 0)
			order[shown - 1] = key;
	}
	for (int s = 0; s < shown; s++) {
		int j = order[s];
		double a = qkv_matrix_get(&t->weights, query, j);
		struct cell_style style = key_style();

		point_name(name, sizeof name, p, 'k', j);
		snprintf(row_text, sizeof row_text, "%s %-*s", draw_geometry_key_mark(a), names, name);
		number(value, sizeof value, qkv_matrix_get(&t->scores, query, j), 4);
		append_right(row_text, sizeof row_text, value, TABLE_NUMBER);
		number(value, sizeof value, qkv_matrix_get(&t->scaled, query, j), 4);
		append_right(row_text, sizeof row_text, value, TABLE_NUMBER);
		number(value, sizeof value, a, 4);
		if (t->masked != NULL && t->masked[(size_t)query * t->n + j])
			snprintf(value, sizeof value, "masked");
		append_right(row_text, sizeof row_text, value, TABLE_NUMBER);
		if (j == key)
			style = palette_selected(style);
		put(top + 2 + s, x, style, row_text);
	}
	if (keys > shown) {
		double rest = 0.0;
		for (int j = 0; j < keys; j++) {
			bool listed = false;
			for (int s = 0; s < shown; s++)
				listed |= order[s] == j;
			if (!listed)
				rest = fmax(rest, qkv_matrix_get(&t->weights, query, j));
		}
		/* Rounded up, so "≤" holds. */
		qkv_format_number(value, sizeof value, ceil(rest * 100.0) / 100.0, 2);
		snprintf(row_text, sizeof row_text, "%d more, each weight ≤ %s", keys - shown, value);
		put(top + 2 + shown, x, palette_role(ROLE_DIM), row_text);
	}
}

/* How many lines text takes at width columns, as drawn. */
static int lines_of(const char *text, int width)
{
	char drawn[LINE_MAX];
	const char *next;
	int count = 0;

	for (const char *at = glyphs_text(text, drawn, sizeof drawn); *at != '\0' && count < 16; at = next, count++)
		qkv_text_line(at, width, &next);
	return count > 0 ? count : 1;
}

/* The cell under the cursor, in words: "the cell Q[t3, d1] = 1.00", or the edit. */
static void cell_words(const struct app *app, char *buf, size_t size)
{
	const struct qkv_grid_info *info = &qkv_grid_info[app->focus];
	const struct app_cursor *c = &app->cursor[app->focus];
	const struct qkv_matrix *m = app_focus_matrix(app, app->focus);
	char row[80], value[32];

	if (info->rows == QKV_DIM_QUERIES && c->row < app->problem.m)
		snprintf(row, sizeof row, "%s", qkv_problem_query_label(&app->problem, c->row));
	else if (info->rows == QKV_DIM_KEYS && c->row < app->problem.n)
		snprintf(row, sizeof row, "%s", app->problem.tokens[c->row]);
	else
		snprintf(row, sizeof row, "%d", c->row + 1);
	if (app->editing) {
		snprintf(buf, size, "editing %s[%s, d%d]: %s_ (Enter keeps, Esc cancels)", info->name, row, c->col + 1,
			 app->edit);
		return;
	}
	if (m == NULL || !app_focus_is_input(app, app->focus)) {
		snprintf(buf, size, "the cursor is on %s: Tab to Q or K (or X and the W's) to edit", info->name);
		return;
	}
	number(value, sizeof value, qkv_matrix_get(m, c->row, c->col), 6);
	snprintf(buf, size, "the cell %s[%s, d%d] = %s; 0-9 and + - edit it", info->name, row, c->col + 1, value);
}

void draw_geometry(const struct app *app, const struct layout *l)
{
	const struct qkv_trace *t = &app->trace;
	int top = 2, bottom = l->notes_y - 1, width = l->width;
	int query = app_query(app), key = app_key(app);
	char sentence[LINE_MAX], dot[LINE_MAX + 64], plane[LINE_MAX], cell[LINE_MAX], text[LINE_MAX], q_name[48];
	char k_name[48], weight[32];

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	if (t->n < 1 || geometry_update(t) != 0) {
		put(top, 1, palette_role(ROLE_ERROR), "the geometry could not be computed (out of memory)");
		return;
	}
	if (query >= geometry.queries)
		query = geometry.queries - 1;
	if (key >= geometry.keys)
		key = geometry.keys - 1;

	/* The words first: they are shown whole, the plot gets the rest. */
	point_name(q_name, sizeof q_name, &app->problem, 'q', query);
	point_name(k_name, sizeof k_name, &app->problem, 'k', key);
	qkv_geometry_dot_sentence(sentence, sizeof sentence, q_name + 2, k_name + 2, qkv_matrix_get(&t->scores, query, key),
				  qkv_geometry_norm(&t->q, query), qkv_geometry_norm(&t->k, key));
	number(weight, sizeof weight, qkv_matrix_get(&t->weights, query, key), 4);
	if (t->masked != NULL && t->masked[(size_t)query * t->n + key])
		snprintf(dot, sizeof dot, "%s; masked, weight 0", sentence);
	else
		snprintf(dot, sizeof dot, "%s; weight %s", sentence, weight);
	qkv_geometry_plane_sentence(plane, sizeof plane, &geometry);
	cell_words(app, cell, sizeof cell);
	int text_w = width - 2;
	int dot_h = lines_of(dot, text_w), plane_h = lines_of(plane, text_w), cell_h = lines_of(cell, text_w);
	int rows = bottom - top + 1, legend = 1;
	/* Title, legend, the plot (at least 4 lines and its ticks), the words; the
	 * cell's line and the legend give way first. */
	if (rows - 2 - dot_h - plane_h - cell_h < 5)
		cell_h = 0;
	if (rows - 2 - dot_h - plane_h - cell_h < 5)
		legend = 0;

	snprintf(text, sizeof text, " geometry · q · k = |q| |k| cos θ · d_k %d · %d queries, %d keys ", t->d_k,
		 geometry.queries, geometry.keys);
	if (glyphs_columns(text) > width)
		snprintf(text, sizeof text, " geometry · q · k = |q| |k| cos θ · d_k %d ", t->d_k);
	put(top, 0, palette_role(ROLE_TITLE), text);
	if (legend) {
		int x = 1;
		struct cell_style bold_key = key_style();
		bold_key.attr |= A_BOLD;
		put(top + 1, x, query_style(), MARK_QUERY " query");
		x += glyphs_columns(MARK_QUERY " query") + 2;
		put(top + 1, x, ink_style(INK_SELECTED), MARK_SELECTED " selected");
		x += glyphs_columns(MARK_SELECTED " selected") + 2;
		snprintf(text, sizeof text, "key by weight: %s ≥ 0.3 %s ≥ 0.1 %s less", MARK_KEY_HEAVY, MARK_KEY_MIDDLE,
			 MARK_KEY_LIGHT);
		if (x + glyphs_columns(text) <= width)
			put(top + 1, x, bold_key, text);
		else if (x + glyphs_columns(MARK_KEY_HEAVY " key") <= width)
			put(top + 1, x, bold_key, MARK_KEY_HEAVY " key");
	}

	int words_y = bottom - (dot_h + plane_h + cell_h) + 1;
	int plot_top = top + 1 + legend, plot_h = words_y - plot_top;
	int side = table_columns(app) + 1;
	int plot_w = width - side - 1;
	if (plot_w < 24) { /* too narrow beside a table: the plot alone */
		plot_w = width - 1;
		side = 0;
	}
	draw_plot(app, query, key, plot_top, 0, plot_h, plot_w);
	if (side > 0)
		draw_table(app, query, key, plot_top, width - side, plot_h);

	draw_put_wrapped(words_y, 1, text_w, dot_h, palette_role(ROLE_TITLE), dot);
	draw_put_wrapped(words_y + dot_h, 1, text_w, plane_h, palette_role(ROLE_NORMAL), plane);
	if (cell_h > 0)
		draw_put_wrapped(words_y + dot_h + plane_h, 1, text_w, cell_h,
				 palette_role(app->editing ? ROLE_EDIT : ROLE_DIM), cell);
}
