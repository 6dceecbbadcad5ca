/* draw_train.c — the learning view: two runs of one task, scaled and unscaled,
 * column by column, on shared axes so the comparison is fair. Curves are block
 * columns over the whole step budget (so a stalled run shows as a flat line all
 * the way), values in numbers beside them. Reads the app; changes nothing. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "qkv/text.h"
#include "qkv/train.h"
#include "tui/chart.h"
#include "tui/draw_train.h"
#include "tui/glyphs.h"
#include "tui/palette.h"

#define TEXT_MAX 1024

/* Writes s at (y, x) within `width` columns (UTF-8 aware). */
static void put(int y, int x, int width, struct cell_style style, const char *s)
{
	char drawn[TEXT_MAX];

	if (width <= 0)
		return;
	s = glyphs_text(s, drawn, sizeof drawn);
	palette_apply(stdscr, style);
	mvaddnstr(y, x, s, (int)qkv_text_fit(s, width, strcspn(s, "\n")));
}

/* Writes text over at most `lines` lines of `width`, broken by qkv_text_line;
 * returns the lines used. */
static int put_wrapped(int y, int x, int width, int lines, struct cell_style style,
		       const char *text)
{
	char drawn[TEXT_MAX];
	const char *s = glyphs_text(text, drawn, sizeof drawn); /* broken where it is drawn */
	int line = 0;

	if (width <= 0)
		return 0;
	for (; line < lines && *s != '\0'; line++) {
		const char *next;
		char chunk[TEXT_MAX];
		size_t length = qkv_text_line(s, width, &next);

		if (length > sizeof chunk - 1)
			length = sizeof chunk - 1;
		memcpy(chunk, s, length);
		chunk[length] = '\0';
		put(y + line, x, width, style, chunk);
		s = next;
	}
	return line;
}

/* What a curve shows of a record. */
enum series { SERIES_LOSS, SERIES_ACCURACY, SERIES_GRAD, SERIES_JACOBIAN };

static double value_of(const struct qkv_train_record *r, enum series s)
{
	switch (s) {
	case SERIES_LOSS:
		return r->loss;
	case SERIES_ACCURACY:
		return r->accuracy;
	case SERIES_GRAD:
		return hypot(r->grad_norm[QKV_WEIGHT_Q], r->grad_norm[QKV_WEIGHT_K]);
	case SERIES_JACOBIAN:
	default:
		return r->jacobian_norm;
	}
}

#define CURVE_POINTS 400 /* records sampled per curve (the chart has fewer dots) */

/* A run's curve of one series: up to CURVE_POINTS records spread evenly over the
 * steps so far, as (step, value) pairs. */
struct curve {
	double x[CURVE_POINTS], y[CURVE_POINTS];
	int count;
};

static void sample(const struct qkv_train *t, enum series s, struct curve *c)
{
	int count = t->count < CURVE_POINTS ? t->count : CURVE_POINTS;

	for (int k = 0; k < count; k++) {
		int record = count > 1 ? (int)((long)k * (t->count - 1) / (count - 1)) : 0;

		c->x[k] = t->history[record].step;
		c->y[k] = value_of(&t->history[record], s);
	}
	c->count = count;
}

/* Draws one chart of series s in the box: the runs in `sides` (a bit per side),
 * x over the whole budget so a stalled run is a long flat line, y shared by both
 * runs (log for all but accuracy). */
static void draw_series_chart(const struct app_learning *l, enum series s, unsigned sides,
			      const char *title, int y, int x, int height, int width,
			      struct curve curves[2])
{
	static const char *const marks[2] = { "●", "×" }, *const ascii[2] = { "*", "x" }; /* ● is * on ASCII screens */
	struct chart_series series[4];
	struct chart c;
	int count = 0;

	memset(&c, 0, sizeof c);
	for (int side = 0; side < 2; side++) {
		sample(&l->runs[side], s, &curves[side]);
		if (!(sides & (1u << side)))
			continue;
		/* The curve, then its newest point alone, marked: which run is which
		 * reads without colour. */
		series[count++] = (struct chart_series){
			.x = curves[side].x, .y = curves[side].y, .count = curves[side].count,
			.style = palette_role(side == LEARNING_SCALED ? ROLE_LABEL : ROLE_NORMAL),
		};
		series[count++] = (struct chart_series){
			.x = curves[side].x + curves[side].count - 1,
			.y = curves[side].y + curves[side].count - 1, .count = 1,
			.style = palette_role(side == LEARNING_SCALED ? ROLE_LABEL : ROLE_NORMAL),
			.mark = marks[side], .ascii_mark = ascii[side],
		};
	}
	c.y = y;
	c.x = x;
	c.height = height;
	c.width = width;
	c.title = title;
	c.series = series;
	c.series_count = count;
	c.marker_x = NAN;
	c.x_axis.min = 0.0;
	c.x_axis.max = l->config.steps;
	c.x_axis.label = "step";
	c.y_axis.log = s != SERIES_ACCURACY;
	if (s == SERIES_ACCURACY) {
		c.y_axis.min = 0.0;
		c.y_axis.max = 1.0;
	} else {
		/* Both runs fix the range, drawn or not, so the two columns compare. */
		struct chart_series both[2] = {
			{ .x = curves[0].x, .y = curves[0].y, .count = curves[0].count },
			{ .x = curves[1].x, .y = curves[1].y, .count = curves[1].count },
		};

		chart_fit_axis(&c.y_axis, both, 2, false);
	}
	chart_draw(stdscr, &c);
}

/* The attention weights of a run as coloured cells, two columns per key. */
static void draw_weights(const struct qkv_trace *tr, int y, int x, int rows, int cols)
{
	int n = tr->n < rows ? tr->n : rows, keys = tr->n < cols / 2 ? tr->n : cols / 2;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < keys; j++) {
			struct cell_style style = palette_weight(qkv_matrix_get(&tr->weights, i, j));
			const char *glyph = palette_monochrome() ? style.glyph : "  ";
			char cell[16];

			snprintf(cell, sizeof cell, "%s%s", glyph, palette_monochrome() ? glyph : "");
			put(y + i, x + 2 * j, 2, style, cell[0] != '\0' ? cell : "  ");
		}
}

/* Rows of W a screen row holds: two as half-block colours; one without colour (a
 * shade glyph can show only one value) or without half blocks (ASCII: a coloured
 * cell, as the main heatmap draws one row a line there). */
static int projection_rows_per_line(void)
{
	return palette_monochrome() || !glyphs_half_blocks() ? 1 : 2;
}

/* A projection, transposed (d_k rows × d_model columns), as half-block signed
 * cells, two rows of W per screen row (without colour one row, each entry's
 * magnitude a shade glyph; without half blocks one row of coloured cells),
 * cropped to what fits. */
static void draw_projection(const struct qkv_matrix *w, double limit, int y, int x, int rows,
			    int cols)
{
	int per_line = projection_rows_per_line();
	int height = (w->cols + per_line - 1) / per_line, width = w->rows;

	height = height < rows ? height : rows;
	width = width < cols ? width : cols;
	for (int r = 0; r < height; r++)
		for (int c = 0; c < width; c++) {
			if (per_line == 1) {
				struct cell_style style = palette_signed(qkv_matrix_get(w, c, r), limit);

				put(y + r, x + c, 1, style, style.glyph[0] != '\0' ? style.glyph : " ");
			} else {
				double upper = qkv_matrix_get(w, c, 2 * r);
				double lower = 2 * r + 1 < w->cols ? qkv_matrix_get(w, c, 2 * r + 1) : 0.0;

				put(y + r, x + c, 1, palette_signed_halves(upper, lower, limit), "▀");
			}
		}
}

static double largest_entry(const struct app_learning *l, enum qkv_weight which)
{
	double most = 1e-12;

	for (int side = 0; side < 2; side++) {
		const struct qkv_matrix *m = qkv_train_weight(&l->runs[side], which);

		for (int e = 0; e < m->rows * m->cols; e++)
			most = fmax(most, fabs(m->values[e]));
	}
	return most;
}

/* Frobenius distance of a projection from where it started. */
static double moved_by(const struct qkv_train *t, enum qkv_weight which)
{
	const struct qkv_matrix *now = qkv_train_weight(t, which), *start = &t->initial[which];
	double sum = 0.0;

	for (int e = 0; e < now->rows * now->cols; e++) {
		double d = now->values[e] - start->values[e];

		sum += d * d;
	}
	return sqrt(sum);
}

/* One run's column: heading, numbers, heatmap beside the curves, W_Q and W_K. */
static void draw_run(const struct app_learning *l, int side, int y, int x, int w, int h)
{
	const struct qkv_train *t = &l->runs[side];
	const struct qkv_train_record *r = &t->history[t->count - 1];
	struct cell_style normal = palette_role(ROLE_NORMAL), dim = palette_role(ROLE_DIM);
	struct cell_style title = palette_role(ROLE_TITLE);
	char text[TEXT_MAX], divisor[32];
	int n = t->config.tokens, map_w = 2 * n + 1 < w ? 2 * n + 1 : w, curve_x = x + map_w + 1;
	int curve_w = w - map_w - 1, map_rows, row, avail;

	if (side == LEARNING_SCALED)
		snprintf(divisor, sizeof divisor, "÷ √%d = %.3g", t->config.d_k, t->now.trace.divisor);
	else
		snprintf(divisor, sizeof divisor, "÷ 1, no scaling");
	snprintf(text, sizeof text, "%s · step %d", divisor, r->step);
	put(y, x, w, title, text);
	if (qkv_train_loss_floor(&t->config) > 0.0)
		snprintf(text, sizeof text, "loss %.4g ≥ %.4g · accuracy %.0f%%%s", r->loss,
			 qkv_train_loss_floor(&t->config), 100.0 * r->accuracy, t->steps_to_90 >= 0 ? " ✓" : "");
	else
		snprintf(text, sizeof text, "loss %.4g · accuracy %.0f%%%s", r->loss, 100.0 * r->accuracy,
			 t->steps_to_90 >= 0 ? " ✓" : "");
	put(y + 1, x, w, normal, text);
	snprintf(text, sizeof text, "‖∇W_Q‖ %.1e · ‖∇W_K‖ %.1e", r->grad_norm[QKV_WEIGHT_Q],
		 r->grad_norm[QKV_WEIGHT_K]);
	put(y + 2, x, w, normal, text);
	snprintf(text, sizeof text, "mean softmax Jacobian ‖J‖ %.2g", r->jacobian_norm);
	put(y + 3, x, w, normal, text);
	row = y + 4;
	avail = y + h - row;
	map_rows = n < avail ? n : avail;
	if (map_rows < 1)
		return;
	put(row, x, 1, dim, "A");
	draw_weights(&t->now.trace, row, x + 1, map_rows, w - 1);
	/* The loss beside the heatmap, on the axis both columns share. */
	if (curve_w >= 16 && avail >= 5) {
		struct curve curves[2];

		draw_series_chart(l, SERIES_LOSS, 1u << side, "loss", row,
				  curve_x, map_rows > 5 ? map_rows : 5, curve_w, curves);
	}
}

/* W_Q and W_K of a run, transposed (d_k rows, two per screen row, one without
 * colour, × d_model columns), each under a line saying how far it has moved. */
static void draw_projections(const struct app_learning *l, int side, int y, int x, int w, int h)
{
	const struct qkv_train *t = &l->runs[side];
	const enum qkv_weight which[2] = { QKV_WEIGHT_Q, QKV_WEIGHT_K };
	int each = h / 2;
	char text[128];

	for (int k = 0; k < 2 && each >= 2; k++) {
		const struct qkv_matrix *m = qkv_train_weight(t, which[k]);
		int per_line = projection_rows_per_line();
		int rows = per_line * (each - 1) < m->cols ? per_line * (each - 1) : m->cols;
		int cols = w < m->rows ? w : m->rows;

		snprintf(text, sizeof text, "%sᵀ: d_k %d of %d × d_model %d of %d, moved %.3g",
			 qkv_weight_name(which[k]), rows, m->cols, cols, m->rows, moved_by(t, which[k]));
		put(y, x, w, palette_role(ROLE_DIM), text);
		draw_projection(qkv_train_weight(t, which[k]), largest_entry(l, which[k]), y + 1, x,
				each - 1, w);
		y += each;
	}
}

/* A median as the table writes it: "17", or ">500" above the budget, "…" to come. */
static void median_text(char *buf, size_t size, double median, int budget, bool known)
{
	if (!known)
		snprintf(buf, size, "…");
	else if (median > budget)
		snprintf(buf, size, ">%d", budget);
	else
		snprintf(buf, size, "%g", median);
}

/* The experiment: the table of medians as each d_k finishes, a chart of them
 * (log d_k, log steps), and, when all is done, the verdict from the numbers. */
static void draw_sweep(const struct app_learning *g, int y, int x, int width, int height)
{
	const struct qkv_train_sweep_state *s = &g->sweep;
	struct cell_style normal = palette_role(ROLE_NORMAL), dim = palette_role(ROLE_DIM);
	int budget = s->config.steps, finished = s->done ? QKV_TRAIN_SWEEP_POINTS : s->point;
	char text[TEXT_MAX], name[32];
	int table_w = 54, row = y;

	snprintf(name, sizeof name, "%s + %s", qkv_loss_name(s->config.loss),
		 qkv_optimizer_name(s->config.optimizer));
	if (app_learning_sweep_done(g))
		snprintf(text, sizeof text, "steps to 90%%, %s, lr %g, seeds %llu…%llu, at most %d steps: done",
			 name, s->config.lr, (unsigned long long)s->config.seed,
			 (unsigned long long)s->config.seed + LEARNING_SWEEP_SEEDS - 1, budget);
	else if (!s->done)
		snprintf(text, sizeof text, "steps to 90%%, %s, lr %g, at most %d steps: running d_k %d, %s, seed %d of %d",
			 name, s->config.lr, budget, s->points[s->point].d_k,
			 s->side == 0 ? "scaled" : "unscaled", s->seed + 1, LEARNING_SWEEP_SEEDS);
	else
		snprintf(text, sizeof text, "steps to 90%%, %s: done; now the MSE + SGD sweep to compare, d_k %d",
			 name, g->baseline.points[g->baseline.point < QKV_TRAIN_SWEEP_POINTS ? g->baseline.point : 0].d_k);
	put(row++, x, width, palette_role(ROLE_TITLE), text);
	put(row++, x, width, dim, "   d_k   scaled  unscaled  unscaled/scaled  reached 90%");
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS && row < y + height; k++, row++) {
		const struct qkv_train_sweep_point *p = &s->points[k];
		char scaled[16], unscaled[16], ratio[24] = "…", reached[24] = "";
		bool known = k < finished;

		median_text(scaled, sizeof scaled, p->scaled_median, budget, known);
		median_text(unscaled, sizeof unscaled, p->unscaled_median, budget, known);
		if (known) {
			bool at_least;
			double gap = qkv_train_sweep_gap(p, budget, &at_least);

			if (gap < 0.0)
				snprintf(ratio, sizeof ratio, "—");
			else
				qkv_train_gap_text(ratio, sizeof ratio, gap, at_least);
			snprintf(reached, sizeof reached, "%d/%d, %d/%d", p->scaled_reached,
				 LEARNING_SWEEP_SEEDS, p->unscaled_reached, LEARNING_SWEEP_SEEDS);
		}
		snprintf(text, sizeof text, "%6d %8s %9s  %*s%s  %s", p->d_k, scaled, unscaled,
			 15 - glyphs_columns(ratio), "", ratio, reached);
		/* reached: "scaled/seeds, unscaled/seeds" */
		put(row, x, width, normal, text);
	}
	/* The chart: beside the table when there is room, else under it. */
	if (finished > 0) {
		double dks[QKV_TRAIN_SWEEP_POINTS], medians[2][QKV_TRAIN_SWEEP_POINTS];
		/* Censored medians (above the budget) apart, each on its own at the top:
		 * a bound, not a point of the curves. */
		double above_x[4 * QKV_TRAIN_SWEEP_POINTS], above_y[4 * QKV_TRAIN_SWEEP_POINTS];
		static const char *const marks[2] = { "●", "×" }, *const ascii[2] = { "*", "x" }; /* ● is * on ASCII screens */
		struct chart_series series[3];
		struct chart c;
		bool beside = width - table_w >= 30;
		int above = 0;
		char chart_title[96];

		for (int k = 0; k < finished; k++) {
			dks[k] = s->points[k].d_k;
			for (int side = 0; side < 2; side++) {
				double median = side == 0 ? s->points[k].scaled_median : s->points[k].unscaled_median;

				medians[side][k] = median > budget ? NAN : median;
				if (median > budget) {
					above_x[above] = dks[k];
					above_y[above++] = budget + 1;
					above_x[above] = dks[k];
					above_y[above++] = NAN;
				}
			}
		}
		for (int side = 0; side < 2; side++)
			series[side] = (struct chart_series){
				.x = dks, .y = medians[side], .count = finished,
				.style = palette_role(side == 0 ? ROLE_LABEL : ROLE_NORMAL),
				.mark = marks[side], .ascii_mark = ascii[side],
			};
		series[2] = (struct chart_series){
			.x = above_x, .y = above_y, .count = above,
			.style = palette_role(ROLE_DIM), .mark = "▲", .ascii_mark = "^",
		};
		memset(&c, 0, sizeof c);
		if (above > 0)
			snprintf(chart_title, sizeof chart_title, "median steps ● ÷√d_k × ÷1 ▲ >%d", budget);
		else
			snprintf(chart_title, sizeof chart_title, "median steps ● ÷√d_k × ÷1");
		c.title = chart_title;
		c.series = series;
		c.series_count = 3;
		c.marker_x = NAN;
		c.x_axis = (struct chart_axis){ .min = 4, .max = 256, .log = true, .label = "d_k",
						 .tick_count = 4, .ticks = { 4, 16, 64, 256 } };
		c.y_axis = (struct chart_axis){ .min = 1, .max = budget + 1, .log = true,
						 .label = "steps" };
		if (beside) {
			c.y = y + 1;
			c.x = x + table_w + 2;
			c.width = width - table_w - 2;
			c.height = height - 4 > 12 ? 12 : height - 4;
		} else {
			c.y = y + 2 + QKV_TRAIN_SWEEP_POINTS;
			c.x = x;
			c.width = width;
			c.height = height - 4 - (2 + QKV_TRAIN_SWEEP_POINTS);
			c.height = c.height > 12 ? 12 : c.height;
			row = c.y + (c.height >= 5 ? c.height : 0);
		}
		if (c.height >= 5)
			chart_draw(stdscr, &c);
		if (beside && c.height >= 5 && c.y + c.height > row)
			row = c.y + c.height;
	}
	if (app_learning_sweep_done(g) && row + 1 < y + height) {
		qkv_train_sweep_verdict(text, sizeof text, s->points, LEARNING_SWEEP_SEEDS, budget, name,
					g->has_baseline ? g->baseline.points : NULL);
		put_wrapped(row + 1, x, width, y + height - row - 1, palette_role(ROLE_TITLE), text);
	}
}

void draw_train(const struct app *app, const struct layout *l)
{
	const struct app_learning *g = app->learning;
	int top = 2, bottom = l->notes_y - 1, width = l->width;
	int column_w = (width - 3) / 2, derivation_lines, body, columns, rest, row;
	struct cell_style normal = palette_role(ROLE_NORMAL);
	char text[TEXT_MAX], derivation[TEXT_MAX * 2];
	const struct qkv_train *chosen;

	palette_apply(stdscr, normal);
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	if (g == NULL)
		return;
	snprintf(text, sizeof text, " %s · training %s · d_model %d · d_k %d · %s+%s · lr %g · seed %llu ",
		 g->running ? "▶ running" : "❚❚ paused", qkv_task_name(g->config.task),
		 g->config.d_model, g->config.d_k, qkv_loss_name(g->config.loss),
		 qkv_optimizer_name(g->config.optimizer), g->config.lr, (unsigned long long)g->config.seed);
	put(top, 0, width, palette_role(ROLE_TITLE), text);
	if (g->sweep_shown && g->sweep_started) {
		draw_sweep(g, top + 1, 1, width - 2, bottom - top);
		return;
	}
	app_learning_summary(g, text, sizeof text);
	/* Up to four lines: the runs now, how their gradient flow began, xent's floor. */
	top += 1 + put_wrapped(top + 1, 1, width - 2, 4, palette_role(ROLE_TITLE), text);
	/* The derivation of the selected gradient cell, at the bottom. */
	chosen = &g->runs[g->side];
	snprintf(derivation, sizeof derivation, "%s run: ",
		 g->side == LEARNING_SCALED ? "scaled" : "unscaled");
	qkv_train_derive(derivation + strlen(derivation), sizeof derivation - strlen(derivation),
			 &chosen->problem, &chosen->now, g->weight, g->row, g->col, 4);
	body = bottom - top + 1;
	derivation_lines = body >= 40 ? 6 : body >= 16 ? 4 : body >= 12 ? 2 : 0;
	if (derivation_lines > 0)
		put_wrapped(bottom - derivation_lines + 1, 1, width - 2, derivation_lines, normal,
			    derivation);
	body -= derivation_lines + 1;
	/* The columns: four lines of numbers and the heatmap with its loss chart. */
	columns = 4 + (g->config.tokens > 5 ? g->config.tokens : 5);
	if (columns > body)
		columns = body;
	draw_run(g, LEARNING_SCALED, top + 1, 1, column_w, columns);
	draw_run(g, LEARNING_UNSCALED, top + 1, column_w + 3, column_w, columns);
	rest = body - columns;
	row = top + 1 + columns;
	/* Below: accuracy, ‖∇‖ and ‖J‖ of both runs, when five lines are left. */
	if (rest >= 5) {
		struct curve curves[2];
		int height = rest >= 16 ? rest / 2 : rest, chart_w = (width - 2) / 3;
		const enum series order[3] = { SERIES_ACCURACY, SERIES_GRAD, SERIES_JACOBIAN };
		const char *titles[3] = { "accuracy ●÷√d_k ×÷1", "‖∇W_Q, W_K‖", "mean ‖J‖" };

		height = height > 10 ? 10 : height;
		for (int k = 0; k < 3; k++)
			draw_series_chart(g, order[k], 3u, titles[k], row, 1 + k * chart_w, height,
					  chart_w - 1, curves);
		rest -= height;
		row += height;
	}
	/* And W_Q, W_K as they change, when the screen is large. */
	if (rest >= 6) {
		draw_projections(g, LEARNING_SCALED, row, 1, column_w, rest);
		draw_projections(g, LEARNING_UNSCALED, row, column_w + 3, column_w, rest);
	}
}
