/* test_train_figure.c — training's figures in-process (figure_train.h and the
 * chart page under them): both runs' curves and their legend, the subtitle's
 * learning rate, the sweep's lower bounds where (and only where) a median is
 * censored, the sweep's plot across the page, typeset labels, and the curves'
 * colours against both backgrounds by WCAG contrast computed here. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/figure/figure_chart.h"
#include "io/figure/figure_train.h"
#include "qkv/train.h"

#include "tap_main.h"

/* WCAG 2 relative luminance and contrast, from their definitions (sRGB to linear
 * with the 0.03928 knee, weights 0.2126, 0.7152, 0.0722). */
static double linear(unsigned char v)
{
	double c = v / 255.0;

	return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double luminance(struct qkv_rgb c)
{
	return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

static double contrast(struct qkv_rgb a, struct qkv_rgb b)
{
	double la = luminance(a), lb = luminance(b);

	return (fmax(la, lb) + 0.05) / (fmin(la, lb) + 0.05);
}

static bool same(struct qkv_rgb a, struct qkv_rgb b)
{
	return a.r == b.r && a.g == b.g && a.b == b.b;
}

/* How often needle occurs in hay. */
static int occurrences(const char *hay, const char *needle)
{
	int count = 0;

	for (const char *at = strstr(hay, needle); at != NULL; at = strstr(at + 1, needle))
		count++;
	return count;
}

/* The value of attribute `name` in the first element whose id starts with id. */
static double attribute(const char *svg, const char *id, const char *name)
{
	char key[64];
	const char *at = strstr(svg, id), *end, *value;

	if (at == NULL)
		return NAN;
	end = strstr(at, "/>");
	snprintf(key, sizeof key, " %s=\"", name);
	value = strstr(at, key);
	if (value == NULL || (end != NULL && value > end))
		return NAN;
	return strtod(value + strlen(key), NULL);
}

/* Every curve of every palette keeps 3:1 (WCAG's least for graphics) on the
 * light and the dark background, and the two sides differ but under mono. */
START_TEST(test_curve_contrast)
{
	for (int dark = 0; dark < 2; dark++)
		for (int palette = 0; palette < QKV_PALETTE_COUNT; palette++) {
			struct figure_options o;
			struct chart_colours ink;

			figure_options_default(&o);
			o.dark = dark;
			o.palette = palette;
			chart_colours(&o, &ink);
			ck_assert_msg((luminance(ink.bg) < 0.01) == (dark == 1), "background of %s", dark ? "dark" : "light");
			for (int s = 0; s < 2; s++) {
				ck_assert_msg(contrast(ink.side[s], ink.bg) >= 3.0, "side %d, palette %d, %s: %.2f", s,
					      palette, dark ? "dark" : "light", contrast(ink.side[s], ink.bg));
				ck_assert(!same(ink.faint[s], ink.bg) && !same(ink.faint[s], ink.side[s]));
			}
			ck_assert(same(ink.side[0], ink.side[1]) == (palette == QKV_PALETTE_MONO));
		}
	/* the same colours are used on both backgrounds, so each meets both */
	{
		struct figure_options light, dark;
		struct chart_colours a, b;

		figure_options_default(&light);
		figure_options_default(&dark);
		dark.dark = true;
		chart_colours(&light, &a);
		chart_colours(&dark, &b);
		for (int s = 0; s < 2; s++) {
			ck_assert(same(a.side[s], b.side[s]));
			ck_assert(contrast(a.side[s], (struct qkv_rgb){ 255, 255, 255 }) >= 3.0);
			ck_assert(contrast(a.side[s], (struct qkv_rgb){ 0x12, 0x12, 0x12 }) >= 3.0);
		}
	}
}
END_TEST

static char *svg_of_runs(double lr, char **svg, size_t *length)
{
	struct qkv_train runs[2];
	struct qkv_train_config c;
	struct figure_options o;
	char err[256] = "";
	FILE *out = open_memstream(svg, length);

	ck_assert_ptr_nonnull(out);
	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	c.steps = 12;
	c.lr = lr;
	for (int s = 0; s < 2; s++) {
		c.scaled = s == 0;
		ck_assert_int_eq(qkv_train_init(&runs[s], &c), 0);
		ck_assert_int_eq(qkv_train_run(&runs[s], false), 0);
	}
	figure_options_default(&o);
	ck_assert_int_eq(figure_train_run_write(out, FIGURE_SVG, &runs[0], &runs[1], &o, err, sizeof err), 0);
	ck_assert_int_eq(fclose(out), 0);
	for (int s = 0; s < 2; s++)
		qkv_train_fini(&runs[s]);
	return *svg;
}

/* A run's figure has both runs: one curve each in each of the four charts, and
 * both names in the legend; its subtitle names the learning rate, dₖ, the loss
 * and the optimiser. */
START_TEST(test_run_has_both_curves)
{
	char *svg = NULL;
	size_t length = 0;

	svg_of_runs(0.37, &svg, &length);
	ck_assert_int_eq(occurrences(svg, "<polyline id=\"curve-scaled-"), 4);
	ck_assert_int_eq(occurrences(svg, "<polyline id=\"curve-unscaled-"), 4);
	ck_assert_int_eq(occurrences(svg, "<rect id=\"plot-"), 4);
	ck_assert_int_eq(occurrences(svg, ">scaled (\u00f7\u221ad\u2096)</text>"), 1);
	ck_assert_int_eq(occurrences(svg, ">unscaled (\u00f71)</text>"), 1);
	ck_assert_ptr_nonnull(strstr(svg, "learning rate 0.37 "));
	ck_assert_ptr_nonnull(strstr(svg, "d\u2096 16 "));
	ck_assert_ptr_nonnull(strstr(svg, "mean squared error"));
	ck_assert_ptr_nonnull(strstr(svg, "SGD"));
	ck_assert_ptr_nonnull(strstr(svg, "\u2016J\u2016"));
	ck_assert_ptr_null(strstr(svg, "d_k"));
	ck_assert_ptr_null(strstr(svg, "sqrt"));
	ck_assert_ptr_null(strstr(svg, "||"));
	free(svg);
	/* a rate that needs all 17 digits is written so that it reads back */
	svg_of_runs(0.1 + 0.2, &svg, &length);
	ck_assert_ptr_nonnull(strstr(svg, "learning rate 0.30000000000000004 "));
	free(svg);
}
END_TEST

/* A sweep made by hand, 3 seeds and a budget of 40, whose censored medians are
 * known: d_k = 8 on both sides (one seed and none reached 90%), and no other —
 * d_k = 4 unscaled has a seed that never got there, but its median (23) did. */
START_TEST(test_sweep_bounds)
{
	struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS];
	struct qkv_train_config c;
	struct figure_options o;
	char err[256] = "", *svg = NULL, id[64];
	size_t length = 0;
	FILE *out = open_memstream(&svg, &length);
	double width, plot, ring_x, tick_x;

	memset(points, 0, sizeof points);
	for (int i = 0; i < QKV_TRAIN_SWEEP_POINTS; i++) {
		const int scaled[3] = { 5, 6, 7 }, unscaled[3] = { 30, 31, -1 };

		points[i].d_k = 4 << i;
		memcpy(points[i].scaled, scaled, sizeof scaled);
		memcpy(points[i].unscaled, unscaled, sizeof unscaled);
		points[i].scaled_median = 6;
		points[i].unscaled_median = 31;
		points[i].scaled_reached = 3;
		points[i].unscaled_reached = 2;
	}
	points[0].unscaled[0] = 7;
	points[0].unscaled[1] = 23;
	points[0].unscaled_median = 23;
	points[1].scaled[1] = points[1].scaled[2] = -1;
	points[1].scaled_reached = 1;
	points[1].scaled_median = 41;
	points[1].unscaled[0] = points[1].unscaled[1] = -1;
	points[1].unscaled_reached = 0;
	points[1].unscaled_median = 41;
	qkv_train_config_default(&c, QKV_TASK_LOOKUP);
	c.steps = 40;
	c.lr = 0.25;
	figure_options_default(&o);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(figure_train_sweep_write(out, FIGURE_SVG, &c, 3, points, &o, err, sizeof err), 0);
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_int_eq(occurrences(svg, "<circle id=\"bound-scaled-"), 1);
	ck_assert_int_eq(occurrences(svg, "<circle id=\"bound-unscaled-"), 1);
	/* each seed a pale point: 7 d_k × 3 seeds a side */
	ck_assert_int_eq(occurrences(svg, "<circle id=\"seed-scaled-"), 21);
	ck_assert_int_eq(occurrences(svg, "<circle id=\"seed-unscaled-"), 21);
	/* the ring is an open circle at d_k = 8's tick */
	ring_x = attribute(svg, "id=\"bound-scaled-", "cx");
	snprintf(id, sizeof id, ">8</text>");
	{
		const char *tick = strstr(svg, id), *start = tick;

		ck_assert_ptr_nonnull(tick);
		while (start > svg && strncmp(start, "<text", 5) != 0)
			start--;
		tick_x = strtod(strstr(start, " x=\"") + 4, NULL);
	}
	ck_assert_double_eq_tol(ring_x, tick_x, 1e-3);
	ck_assert_ptr_nonnull(strstr(strstr(svg, "id=\"bound-scaled-"), "fill=\"none\""));
	/* the legend says what the ring and the rule are; the subtitle the rate and loss */
	ck_assert_ptr_nonnull(strstr(svg, ">a lower bound: a middle seed never reached 90% in 40 steps</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "counts as 41</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "learning rate 0.25 "));
	ck_assert_ptr_nonnull(strstr(svg, "mean squared error"));
	ck_assert_ptr_null(strstr(svg, "d_k"));
	/* the plot spans most of the page */
	width = attribute(svg, "<svg", "width");
	plot = attribute(svg, "id=\"plot-", "width");
	ck_assert_msg(plot > 0.8 * width, "plot %.1f of %.1f", plot, width);
	free(svg);
}
END_TEST

static Suite *train_figure_suite(void)
{
	Suite *s = suite_create("train_figure");
	TCase *tc = tcase_create("train_figure");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_curve_contrast);
	tcase_add_test(tc, test_run_has_both_curves);
	tcase_add_test(tc, test_sweep_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(train_figure_suite());
}
