/* draw_saturation.c — the saturation view: how softmax collapses as d_k grows
 * when the scores are not divided by √d_k. Four charts on a log₂ d_k axis, two
 * curves each, told apart by their marks (● scaled, × unscaled) and not only by
 * colour, with the current d_k marked. Reads the app's sweep; changes nothing. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "tui/draw_saturation.h"
#include "tui/glyphs.h"
#include "tui/palette.h"

#define MARK_SCALED "●"
#define MARK_UNSCALED "×"
#define MARK_BOTH "◆"

/* One chart: which figure, its title and its vertical range. */
struct chart {
	const char *title;
	double (*figure)(const struct qkv_sweep_figures *f);
	bool log_scale;
	double low, high; /* set from the data for log charts */
};

static double max_weight(const struct qkv_sweep_figures *f) { return f->max_weight; }
static double entropy_ratio(const struct qkv_sweep_figures *f) { return f->entropy_ratio; }
static double jacobian(const struct qkv_sweep_figures *f) { return f->jacobian_norm; }
static double variance(const struct qkv_sweep_figures *f) { return f->score_variance; }

static void put(int y, int x, enum palette_role role, const char *text)
{
	char drawn[256];

	palette_apply(stdscr, palette_role(role));
	mvaddstr(y, x, glyphs_text(text, drawn, sizeof drawn));
}

static void put_styled(int y, int x, struct cell_style style, const char *text)
{
	char drawn[256];

	palette_apply(stdscr, style);
	mvaddstr(y, x, glyphs_text(text, drawn, sizeof drawn));
}

/* Vertical position (0 = bottom row) of value in a chart of `rows` rows. */
static int row_of(const struct chart *c, double value, int rows)
{
	double v = c->log_scale ? log10(value > 1e-300 ? value : 1e-300) : value;
	double t = (v - c->low) / (c->high - c->low);

	if (!(t >= 0.0))
		t = 0.0;
	if (t > 1.0)
		t = 1.0;
	return (int)lround(t * (rows - 1));
}

/* The x offset of sweep point i (d_k = 2^i) in a plot `width` wide. */
static int column_of(int i, int count, int width)
{
	return count > 1 ? (int)lround((double)i * (width - 1) / (count - 1)) : 0;
}

static void tick_label(char *buf, size_t size, const struct chart *c, double t)
{
	double v = c->low + t * (c->high - c->low);

	if (c->log_scale)
		snprintf(buf, size, "%.2g", pow(10.0, v));
	else
		qkv_format_number(buf, size, v, 2);
}

static void draw_chart(const struct app *app, const struct chart *c, int y, int x, int h, int w)
{
	int rows = h - 3, label_w = 7, plot_w = w - label_w - 1, count = app->sweep_count;
	int plot_x = x + label_w + 1;
	char text[32];

	if (rows < 3 || plot_w < count)
		return;
	put(y, x, ROLE_TITLE, c->title);
	/* The y axis with three ticks. */
	for (int r = 0; r < rows; r++) {
		put(y + 1 + r, plot_x - 1, ROLE_DIM, "│");
		if (r == 0 || r == rows - 1 || r == (rows - 1) / 2) {
			tick_label(text, sizeof text, c, 1.0 - (double)r / (rows - 1));
			palette_apply(stdscr, palette_role(ROLE_LABEL));
			mvprintw(y + 1 + r, x, "%*.*s", label_w, label_w, text);
		}
	}
	/* The x axis: d_k labels at 1, 4, 16, … */
	for (int xx = 0; xx < plot_w; xx++)
		put(y + 1 + rows, plot_x + xx, ROLE_DIM, "─");
	for (int i = 0; i < count; i += 2) {
		int length, at;

		snprintf(text, sizeof text, "%d", app->sweep[i].d_k);
		length = (int)strlen(text);
		at = plot_x + column_of(i, count, plot_w) - length / 2;
		if (at + length > plot_x + plot_w)
			at = plot_x + plot_w - length;
		put(y + 2 + rows, at < plot_x ? plot_x : at, ROLE_LABEL, text);
	}
	put(y + 2 + rows, x, ROLE_DIM, "d_k →");
	/* The current d_k, where it falls on the axis. */
	if (app->trace.d_k >= 1) {
		double position = log2((double)app->trace.d_k);
		if (position <= count - 1) {
			int at = plot_x + (int)lround(position * (plot_w - 1) / (count > 1 ? count - 1 : 1));
			for (int r = 0; r < rows; r++)
				put(y + 1 + r, at, ROLE_DIM, "┊");
		}
	}
	/* Both curves: dots between the sweep points, marks on them. */
	for (int i = 0; i + 1 < count; i++) {
		int x0 = column_of(i, count, plot_w), x1 = column_of(i + 1, count, plot_w);
		for (int xx = x0 + 1; xx < x1; xx++) {
			double t = (double)(xx - x0) / (x1 - x0);
			double s = c->figure(&app->sweep[i].scaled) * (1 - t) + c->figure(&app->sweep[i + 1].scaled) * t;
			double u = c->figure(&app->sweep[i].unscaled) * (1 - t) + c->figure(&app->sweep[i + 1].unscaled) * t;
			put_styled(y + rows - row_of(c, s, rows), plot_x + xx, palette_signed(-1.0, 1.0), "·");
			put_styled(y + rows - row_of(c, u, rows), plot_x + xx, palette_signed(1.0, 1.0), "·");
		}
	}
	for (int i = 0; i < count; i++) {
		int xx = plot_x + column_of(i, count, plot_w);
		int rs = row_of(c, c->figure(&app->sweep[i].scaled), rows);
		int ru = row_of(c, c->figure(&app->sweep[i].unscaled), rows);
		struct cell_style scaled = palette_signed(-1.0, 1.0), unscaled = palette_signed(1.0, 1.0);

		scaled.attr |= A_BOLD;
		unscaled.attr |= A_BOLD;
		if (rs == ru) {
			put_styled(y + rows - rs, xx, scaled, MARK_BOTH);
			continue;
		}
		put_styled(y + rows - rs, xx, scaled, MARK_SCALED);
		put_styled(y + rows - ru, xx, unscaled, MARK_UNSCALED);
	}
}

/* Sets a log chart's range from the data (whole decades). */
static void log_range(const struct app *app, struct chart *c)
{
	double low = 1e300, high = 1e-300;

	for (int i = 0; i < app->sweep_count; i++) {
		double values[2] = { c->figure(&app->sweep[i].scaled), c->figure(&app->sweep[i].unscaled) };
		for (int k = 0; k < 2; k++) {
			if (values[k] > 0 && values[k] < low)
				low = values[k];
			if (values[k] > high)
				high = values[k];
		}
	}
	c->low = floor(log10(low > 0 && low < 1e300 ? low : 0.1));
	c->high = ceil(log10(high > 1e-300 ? high : 10.0));
	if (c->high <= c->low)
		c->high = c->low + 1;
}

void draw_saturation(const struct app *app, const struct layout *l)
{
	struct chart charts[4] = {
		{ "mean max weight (1 = one-hot)", max_weight, false, 0.0, 1.0 },
		{ "entropy / ln n (1 = uniform)", entropy_ratio, false, 0.0, 1.0 },
		{ "gradient flow ‖J‖ (softmax Jacobian)", jacobian, false, 0.0, 0.5 },
		{ "variance of what softmax sees (log)", variance, true, 0.0, 1.0 },
	};
	int top = 2, bottom = l->status_y - 1, width = l->width;
	int h = (bottom - top - 2) / 2, w = width / 2 - 2;
	double highest = 0.0;
	char text[256];
	int x;

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	snprintf(text, sizeof text, " saturation · Q, K ~ N(0,1) · %d tokens · %d trials · seed %llu · d_k 1…%d ",
		 app->sweep_tokens, app->sweep_trials, (unsigned long long)app->sweep_seed,
		 app->sweep_count > 0 ? app->sweep[app->sweep_count - 1].d_k : 0);
	put(top, 1, ROLE_TITLE, text);
	/* Each key 4 columns after the last, as wide as it is drawn (ASCII is wider). */
	put_styled(top + 1, 2, palette_signed(-1.0, 1.0), MARK_SCALED " scaled (÷√d_k)");
	x = 2 + glyphs_columns(MARK_SCALED " scaled (÷√d_k)") + 4;
	put_styled(top + 1, x, palette_signed(1.0, 1.0), MARK_UNSCALED " unscaled");
	x += glyphs_columns(MARK_UNSCALED " unscaled") + 4;
	put(top + 1, x, ROLE_DIM, MARK_BOTH " both   ┊ the problem's d_k now");
	if (app->sweep_count < 2 || h < 6) {
		put(top + 3, 2, ROLE_NORMAL, "not enough room for the charts: make the terminal larger");
		return;
	}
	for (int i = 0; i < app->sweep_count; i++)
		if (app->sweep[i].scaled.jacobian_norm > highest)
			highest = app->sweep[i].scaled.jacobian_norm;
	charts[2].high = highest > 0 ? ceil(highest * 10.0) / 10.0 : 0.5;
	log_range(app, &charts[3]);
	for (int k = 0; k < 4; k++)
		draw_chart(app, &charts[k], top + 3 + (k / 2) * (h + 1), 1 + (k % 2) * (w + 3), h, w);
}
