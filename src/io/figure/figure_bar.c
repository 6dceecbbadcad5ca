/* figure_bar.c — a stage figure's colour scale and colour bar (see
 * figure_internal.h): the map, levels and range every heatmap colours with
 * (figure_heat_fill), the values clamped beyond it, and the bar beside the
 * heatmaps with its round ticks and clamp marks. It lays out and draws nothing
 * else. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/figure/figure_internal.h"
#include "qkv/format.h"

#define BAR_STOPS 256                /* a continuous colour bar's gradient stops */

int figure_scale_map(const struct figure_scale *s)
{
	if (s->map < 0 || s->map >= QKV_MAP_COUNT)
		return -1;
	if (s->signed_values && s->map != QKV_MAP_GREY)
		return QKV_MAP_COOLWARM;
	return s->map;
}

struct qkv_rgb figure_heat_fill(const struct figure_scale *s, double value, bool masked, struct qkv_rgb plain)
{
	int map = figure_scale_map(s);
	struct qkv_ramp ramp;

	if (masked)
		return qkv_colour_masked();
	if (map >= 0)
		return qkv_colour_map_at((enum qkv_colour_map)map,
					 qkv_colour_level(qkv_colour_fraction(value, s->low, s->high), s->levels));
	ramp = s->signed_values ? qkv_colour_signed((enum qkv_palette)s->palette)
				: qkv_colour_weights((enum qkv_palette)s->palette);
	if (ramp.count <= 0)
		return plain;
	if (s->signed_values)
		return ramp.steps[qkv_colour_signed_step(value, s->high, ramp.count / 2)];
	return ramp.steps[qkv_colour_weight_step_of(value, ramp.count)];
}

double figure_signed_limit(const struct qkv_trace *t, const struct qkv_matrix *m)
{
	double limit = 0.0;

	for (int r = 0; r < t->m; r++)
		for (int c = 0; c < t->n; c++)
			if (!qkv_trace_is_masked(t, r, c) && fabs(qkv_matrix_get(m, r, c)) > limit)
				limit = fabs(qkv_matrix_get(m, r, c));
	return limit > 0.0 ? limit : 1.0;
}

/* The figure's colour scale: the options' map, levels and range, else the auto
 * range (0..1 for weights; ±the largest magnitude unmasked over every heatmap for
 * signed values); and whether any value lies beyond it. */
void fig_make_scale(struct fig *f)
{
	struct figure_scale *s = &f->scale;
	double limit = 0.0;

	s->palette = f->o.palette;
	s->map = f->o.map;
	s->levels = f->o.map >= 0 ? f->o.levels : 0;
	s->signed_values = false;
	for (int i = 0; i < f->count; i++)
		if (f->panels[i].colour == COLOUR_SIGNED) {
			s->signed_values = true;
			limit = fmax(limit, figure_signed_limit(f->panels[i].t, f->panels[i].m));
		}
	if (f->o.range_given && s->map >= 0) {
		s->low = f->o.range_low;
		s->high = f->o.range_high;
	} else if (s->signed_values) {
		s->low = -limit;
		s->high = limit;
	} else {
		s->low = 0.0;
		s->high = 1.0;
	}
	for (int i = 0; i < f->count; i++) {
		const struct panel *pn = &f->panels[i];

		for (int r = 0; heat(pn) && r < pn->rows; r++)
			for (int c = 0; c < pn->cols; c++) {
				double v = fig_cell_value(f, pn, r, c);

				if (fig_cell_masked(f, pn, r, c))
					continue;
				f->clamped_low = f->clamped_low || v < s->low;
				f->clamped_high = f->clamped_high || v > s->high;
			}
	}
}

/* Whether the figure has a colour bar: a heatmap drawn in colour. */
bool fig_has_bar(const struct fig *f)
{
	for (int i = 0; i < f->count; i++) {
		const struct panel *pn = &f->panels[i];

		if (pn->colour == COLOUR_WEIGHTS && (f->scale.map >= 0 || f->weights.count > 0))
			return true;
		if (pn->colour == COLOUR_SIGNED && (f->scale.map >= 0 || f->signs.count > 0))
			return true;
	}
	return false;
}

/* A round step for about `want` ticks over span: 1, 2, 2.5 or 5 times a power of
 * 10; one that divides the span into 3 to 6 equal parts when there is one (so the
 * range's ends are ticked: 0.5 in 0.1s, 1 in 0.25s). */
static double tick_step(double span, int want)
{
	static const double units[] = { 1.0, 2.0, 2.5, 5.0 };
	double raw = span / want, power = pow(10.0, floor(log10(raw))), unit = raw / power, best = 0.0;

	for (int e = -1; e <= 1; e++)
		for (int k = 0; k < 4; k++) {
			double step = units[k] * power * pow(10.0, e), parts = span / step;

			if (parts >= 3.0 - 1e-9 && parts <= 6.0 + 1e-9 && fabs(parts - round(parts)) < 1e-9 &&
			    (best == 0.0 || fabs(parts - want) < fabs(span / best - want)))
				best = step;
		}
	if (best > 0.0)
		return best;
	return power * (unit <= 1.0 ? 1.0 : unit <= 2.0 ? 2.0 : unit <= 2.5 ? 2.5 : unit <= 5.0 ? 5.0 : 10.0);
}

/* The colour bar's ticks: with a map, the round values within the range (four
 * steps or so); with a palette's steps, each step's edge (weights) or −limit, 0,
 * +limit (signed). Their values into v (at most 16), their count returned. */
static int bar_ticks(const struct fig *f, double v[16], int *decimals)
{
	const struct figure_scale *s = &f->scale;
	int count = 0;

	*decimals = 2;
	if (s->map < 0) {
		if (!s->signed_values) {
			for (int k = 0; k <= f->weights.count && count < 16; k++)
				v[count++] = (double)k / f->weights.count;
		} else {
			v[count++] = -s->high;
			v[count++] = 0.0;
			v[count++] = s->high;
		}
		return count;
	}
	{
		double step = tick_step(s->high - s->low, 4), first = ceil(s->low / step - 1e-9) * step;

		for (double x = first; x <= s->high + step * 1e-9 && count < 16; x += step)
			v[count++] = fabs(x) < step * 1e-9 ? 0.0 : x;
		*decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9) + (fmod(step / pow(10.0, floor(log10(step))),
											 1.0) > 1e-9 ? 1 : 0);
		if (*decimals < 0)
			*decimals = 0;
	}
	return count;
}

/* A tick's text: the number at `decimals` places, "−" for a minus. */
static void tick_text(double v, int decimals, char *buf, size_t size)
{
	char number[48];

	qkv_format_number(number, sizeof number, fabs(v), decimals);
	snprintf(buf, size, "%s%s", v < 0.0 ? "\u2212" : "", number);
}

/* The text at the bar's end for values past it: "≥ 0.5", "≤ −2". */
static void clamp_text(const struct fig *f, bool high, char *buf, size_t size)
{
	char number[64];

	tick_text(high ? f->scale.high : f->scale.low, 4, number, sizeof number);
	/* No trailing zeros: the range as the user gave it. */
	for (char *dot = strchr(number, '.'); dot != NULL;) {
		size_t len = strlen(number);

		while (len > 0 && number[len - 1] == '0')
			number[--len] = '\0';
		if (len > 0 && number[len - 1] == '.')
			number[--len] = '\0';
		break;
	}
	snprintf(buf, size, "%s %s", high ? "\u2265" : "\u2264", number);
}

/* The colour bar's width with its ticks and clamp marks, from its left edge. */
double fig_bar_extent(struct fig *f)
{
	const double fs = FONT_SIZE;
	double ticks[16], widest = 0.0;
	int decimals, count = bar_ticks(f, ticks, &decimals);
	char text[64];

	for (int k = 0; k < count; k++) {
		tick_text(ticks[k], decimals, text, sizeof text);
		widest = fmax(widest, fig_text_width(f, text, 0.85 * fs, false));
	}
	for (int k = 0; k < 2; k++) {
		clamp_text(f, k == 1, text, sizeof text);
		if (k == 1 ? f->clamped_high : f->clamped_low)
			widest = fmax(widest, fig_text_width(f, text, 0.85 * fs, false));
	}
	return 1.1 * fs + 0.4 * fs + widest;
}

/* A palette's stepped bar (no map): its steps, ticks at their edges or −, 0, +. */
static void draw_steps_bar(struct fig *f)
{
	struct canvas *cv = &f->cv;
	const double fs = FONT_SIZE;
	struct qkv_ramp ramp = f->scale.signed_values ? f->signs : f->weights;
	double step_h = f->bar_h / ramp.count, bottom = f->bar_y + f->bar_h, ticks[16];
	int decimals, count = bar_ticks(f, ticks, &decimals);
	char text[48];

	for (int k = 0; k < ramp.count; k++)
		canvas_rect(cv, f->bar_x, bottom - (k + 1) * step_h, f->bar_w, step_h, ramp.steps[k], "bar");
	canvas_outline(cv, f->bar_x, f->bar_y, f->bar_w, f->bar_h, f->rule, 0.5);
	for (int k = 0; k < count; k++) {
		double y = f->scale.signed_values ? bottom - k * f->bar_h / 2.0 : bottom - k * step_h;

		if (f->scale.signed_values)
			snprintf(text, sizeof text, "%s", k == 0 ? "\u2212" : k == 2 ? "+" : "");
		else
			text[0] = '\0';
		qkv_format_number(text + strlen(text), sizeof text - strlen(text), fabs(ticks[k]), 2);
		canvas_line(cv, f->bar_x + f->bar_w, y, f->bar_x + f->bar_w + 0.3 * fs, y, f->fg, 0.7, false);
		canvas_text(cv, f->bar_x + f->bar_w + 0.4 * fs, y + 0.3 * fs, text, 0.85 * fs, false, f->fg,
			    ANCHOR_START, "tick");
	}
}

/* The colour bar of a map: a gradient (or `levels` bands), round ticks, and a
 * triangle with "≥ high" / "≤ low" at an end past which some value was clamped. */
void fig_draw_bar(struct fig *f)
{
	struct canvas *cv = &f->cv;
	const double fs = FONT_SIZE;
	const struct figure_scale *s = &f->scale;
	double bottom = f->bar_y + f->bar_h, ticks[16];
	int decimals, count, map = figure_scale_map(s);
	char text[64];

	if (map < 0) {
		draw_steps_bar(f);
		return;
	}
	if (s->levels >= 2) {
		double band = f->bar_h / s->levels;

		/* Each band reaches a little into the next, drawn after it: no seam. */
		for (int k = 0; k < s->levels; k++)
			canvas_rect(cv, f->bar_x, bottom - (k + 1) * band, f->bar_w, band + (k > 0 ? 0.0 : 0.0) +
				    (k + 1 < s->levels ? 0.0 : 0.0) + (k > 0 ? 0.3 : 0.0),
				    qkv_colour_map_at((enum qkv_colour_map)map, (double)k / (s->levels - 1)), "bar");
	} else {
		struct qkv_rgb stops[BAR_STOPS];

		for (int k = 0; k < BAR_STOPS; k++)
			stops[k] = qkv_colour_map_at((enum qkv_colour_map)map, (double)k / (BAR_STOPS - 1));
		canvas_gradient(cv, f->bar_x, f->bar_y, f->bar_w, f->bar_h, stops, BAR_STOPS, "bar");
	}
	canvas_outline(cv, f->bar_x, f->bar_y, f->bar_w, f->bar_h, f->rule, 0.5);
	for (int k = 0; k < 2; k++) {
		bool high = k == 1;
		double tip = high ? f->bar_y - 1.0 * fs : bottom + 1.0 * fs, base = high ? f->bar_y : bottom;
		double xs[3] = { f->bar_x, f->bar_x + f->bar_w, f->bar_x + f->bar_w / 2.0 }, ys[3] = { base, base, tip };

		if (!(high ? f->clamped_high : f->clamped_low))
			continue;
		canvas_polygon(cv, xs, ys, 3, qkv_colour_map_at((enum qkv_colour_map)map, high ? 1.0 : 0.0), "clamp");
		clamp_text(f, high, text, sizeof text);
		canvas_text(cv, f->bar_x, high ? tip - 0.35 * fs : tip + 1.0 * fs, text, 0.85 * fs, false, f->fg,
			    ANCHOR_START, "clamp");
	}
	count = bar_ticks(f, ticks, &decimals);
	for (int k = 0; k < count; k++) {
		double y = bottom - f->bar_h * (ticks[k] - s->low) / (s->high - s->low);

		tick_text(ticks[k], decimals, text, sizeof text);
		canvas_line(cv, f->bar_x + f->bar_w, y, f->bar_x + f->bar_w + 0.3 * fs, y, f->fg, 0.7, false);
		canvas_text(cv, f->bar_x + f->bar_w + 0.4 * fs, y + 0.3 * fs, text, 0.85 * fs, false, f->fg,
			    ANCHOR_START, "tick");
	}
}
