/* draw_saturation.c — the saturation view: how softmax collapses as d_k grows
 * when the scores are not divided by √d_k. Four braille charts (tui/chart.h) on a
 * log d_k axis, as tall as the screen allows, two curves each, told apart by their
 * marks (● scaled, × unscaled) and not only by colour, with the current d_k
 * marked. Reads the app's sweep; changes nothing. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/chart.h"
#include "tui/draw_saturation.h"
#include "tui/glyphs.h"
#include "tui/palette.h"

#define MARK_SCALED "●"
#define MARK_UNSCALED "×"

/* One of the four figures: its title, how to read it, its y axis. */
struct figure {
	const char *title;
	double (*value)(const struct qkv_sweep_figures *f);
	bool log;
	double min, max; /* max < min: fitted to the data */
};

static double max_weight(const struct qkv_sweep_figures *f) { return f->max_weight; }
static double entropy_ratio(const struct qkv_sweep_figures *f) { return f->entropy_ratio; }
static double jacobian(const struct qkv_sweep_figures *f) { return f->jacobian_norm; }
static double variance(const struct qkv_sweep_figures *f) { return f->score_variance; }

/* The curves' colours: foregrounds on the terminal's own background (the
 * heatmap ramps fill cell backgrounds, which would turn braille dots into
 * blocks). Teal for scaled, magenta for unscaled; the marks tell them apart
 * without colour. */
static struct cell_style scaled_style(void)
{
	return palette_role(ROLE_LABEL);
}

static struct cell_style unscaled_style(void)
{
	struct cell_style style = palette_role(ROLE_MOVED);

	style.attr &= ~(attr_t)A_UNDERLINE;
	return style;
}

static void put(int y, int x, struct cell_style style, const char *text)
{
	char drawn[256];

	palette_apply(stdscr, style);
	mvaddstr(y, x, glyphs_text(text, drawn, sizeof drawn));
}

/* One chart of the sweep in the box (y, x, h, w). */
static void draw_figure(const struct app *app, const struct figure *f, int y, int x, int h, int w)
{
	double d_k[QKV_SWEEP_MAX_POINTS], scaled[QKV_SWEEP_MAX_POINTS], unscaled[QKV_SWEEP_MAX_POINTS];
	int count = app->saturation.count;
	struct chart_series series[2];
	struct chart c;

	for (int i = 0; i < count; i++) {
		d_k[i] = app->saturation.sweep[i].d_k;
		scaled[i] = f->value(&app->saturation.sweep[i].scaled);
		unscaled[i] = f->value(&app->saturation.sweep[i].unscaled);
	}
	memset(series, 0, sizeof series);
	series[0] = (struct chart_series){ d_k, scaled, count, scaled_style(), MARK_SCALED, "*" }; /* as the legend spells ● */
	series[1] = (struct chart_series){ d_k, unscaled, count, unscaled_style(), MARK_UNSCALED, "x" };
	memset(&c, 0, sizeof c);
	c.y = y;
	c.x = x;
	c.height = h;
	c.width = w;
	c.title = f->title;
	c.series = series;
	c.series_count = 2;
	c.marker_x = app->trace.d_k;
	/* d_k on a log axis, ticked at the powers of 4 the sweep passes through. */
	c.x_axis.log = true;
	c.x_axis.min = d_k[0];
	c.x_axis.max = d_k[count - 1];
	c.x_axis.label = "d_k";
	for (int i = 0; i < count && c.x_axis.tick_count < CHART_MAX_TICKS; i += 2)
		c.x_axis.ticks[c.x_axis.tick_count++] = d_k[i];
	c.y_axis.log = f->log;
	if (f->max > f->min) {
		c.y_axis.min = f->min;
		c.y_axis.max = f->max;
	} else {
		chart_fit_axis(&c.y_axis, series, 2, false);
		if (!f->log && c.y_axis.min > 0.0)
			c.y_axis.min = 0.0;
	}
	chart_draw(stdscr, &c);
}

void draw_saturation(const struct app *app, const struct layout *l)
{
	static const struct figure figures[4] = {
		{ "mean max weight (1 = one-hot)", max_weight, false, 0.0, 1.0 },
		{ "entropy / ln n (1 = uniform)", entropy_ratio, false, 0.0, 1.0 },
		{ "gradient flow ‖J‖ (softmax Jacobian)", jacobian, false, 0.0, -1.0 },
		{ "variance softmax sees (log axis)", variance, true, 0.0, -1.0 },
	};
	int top = 2, bottom = l->notes_y - 1, width = l->width;
	/* Two rows of two charts, as tall as the lines under the two header lines allow. */
	int h = (bottom - top - 1) / 2, w = (width - 3) / 2;
	char text[256];
	int x;

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	snprintf(text, sizeof text, " saturation · Q, K ~ N(0,1) · %d tokens · %d trials · seed %llu · d_k 1…%d ",
		 app->saturation.tokens, app->saturation.trials, (unsigned long long)app->saturation.seed,
		 app->saturation.count > 0 ? app->saturation.sweep[app->saturation.count - 1].d_k : 0);
	put(top, 1, palette_role(ROLE_TITLE), text);
	/* Each key 4 columns after the last, as wide as it is drawn (ASCII is wider). */
	put(top + 1, 2, scaled_style(), MARK_SCALED " scaled (÷√d_k)");
	x = 2 + glyphs_columns(MARK_SCALED " scaled (÷√d_k)") + 4;
	put(top + 1, x, unscaled_style(), MARK_UNSCALED " unscaled");
	x += glyphs_columns(MARK_UNSCALED " unscaled") + 4;
	put(top + 1, x, palette_role(ROLE_DIM), "┊ the problem's d_k now");
	if (app->saturation.count < 2 || h < 6) {
		put(top + 3, 2, palette_role(ROLE_NORMAL), "not enough room for the charts: make the terminal larger");
		return;
	}
	for (int k = 0; k < 4; k++)
		draw_figure(app, &figures[k], top + 2 + (k / 2) * h, 1 + (k % 2) * (w + 1), h, w);
}
