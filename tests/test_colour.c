/* test_colour.c — Check suite for the colours (colour.h): the ramps' lightness
 * and distances, the contrast of the text colour chosen on every step of every
 * palette (exact colours and their xterm-256 and eight-colour stand-ins), the
 * masked grey, the label colour on dark and light terminals, and the rule that
 * equal shown numbers get equal colours. The test has its own sRGB → CIELAB and
 * WCAG code (written from the standards' formulas, checked against published
 * values), so the colours are measured by code other than the code under test. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/colour.h"
#include "qkv/format.h"
#include "lcg.h"
#include "rounds.h"
#include "tap_main.h"

/* ---- the test's own colour maths ---------------------------------------------- */

struct lab3 {
	double l, a, b;
};

/* sRGB (IEC 61966-2-1) decoding of one 8-bit component. */
static double decode(int v)
{
	double c = v / 255.0;

	if (c > 0.04045)
		return exp(2.4 * log((c + 0.055) / 1.055));
	return c / 12.92;
}

/* XYZ from the sRGB primaries' chromaticities (D65), then CIELAB with the white
 * point taken as the XYZ of sRGB white itself, so the matrix is never copied. */
static struct lab3 lab_of(int r8, int g8, int b8)
{
	static const double m[3][3] = {
		{ 0.4124, 0.3576, 0.1805 },
		{ 0.2126, 0.7152, 0.0722 },
		{ 0.0193, 0.1192, 0.9505 },
	};
	double rgb[3] = { decode(r8), decode(g8), decode(b8) }, xyz[3], white[3], f[3];
	const double e = 216.0 / 24389.0, k = 24389.0 / 27.0;

	for (int i = 0; i < 3; i++) {
		xyz[i] = m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2];
		white[i] = m[i][0] + m[i][1] + m[i][2];
	}
	for (int i = 0; i < 3; i++) {
		double t = xyz[i] / white[i];
		f[i] = t > e ? pow(t, 1.0 / 3.0) : (k * t + 16.0) / 116.0;
	}
	return (struct lab3){ 116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2]) };
}

static struct lab3 lab(struct qkv_rgb c)
{
	return lab_of(c.r, c.g, c.b);
}

static double delta_e(struct qkv_rgb x, struct qkv_rgb y)
{
	struct lab3 a = lab(x), b = lab(y);

	return hypot(hypot(a.l - b.l, a.a - b.a), a.b - b.b);
}

/* WCAG 2.x relative luminance and contrast ratio. */
static double luminance(struct qkv_rgb c)
{
	return 0.2126 * decode(c.r) + 0.7152 * decode(c.g) + 0.0722 * decode(c.b);
}

static double contrast(struct qkv_rgb x, struct qkv_rgb y)
{
	double a = luminance(x) + 0.05, b = luminance(y) + 0.05;

	return a > b ? a / b : b / a;
}

static struct qkv_rgb rgb(int hex)
{
	return (struct qkv_rgb){ (unsigned char)(hex >> 16), (unsigned char)(hex >> 8 & 0xff),
				 (unsigned char)(hex & 0xff) };
}

/* ---- the palettes as a terminal shows them ------------------------------------ */

enum depth { DEPTH_EXACT, DEPTH_256, DEPTH_8 };

/* A ramp step as drawn at a depth: the exact colour (truecolor), its nearest
 * xterm-256 colour that carries text at the palette's contrast, or for the eight
 * colour palette the basic colour itself. */
static struct qkv_rgb shown_step(struct qkv_rgb c, enum depth depth, double need)
{
	if (depth == DEPTH_256)
		return qkv_colour_xterm(qkv_colour_nearest_xterm(c, 16, 255, need));
	if (depth == DEPTH_8)
		return qkv_colour_xterm(qkv_colour_nearest_xterm(c, 0, 7, 0.0));
	return c;
}

static double needed(enum qkv_palette p)
{
	return p == QKV_PALETTE_PROJECTOR ? QKV_CONTRAST_PROJECTOR : QKV_CONTRAST_TEXT;
}

/* ---- tests ----------------------------------------------------------------------- */

/* The test's own maths against published values: CIELAB of sRGB red is
 * (53.24, 80.09, 67.20), of blue (32.30, 79.19, −107.86); white on black is 21:1;
 * and the core agrees with it. */
START_TEST(test_maths_known_values)
{
	struct lab3 red = lab_of(255, 0, 0), blue = lab_of(0, 0, 255), white = lab_of(255, 255, 255);

	ck_assert_double_eq_tol(red.l, 53.24, 0.02);
	ck_assert_double_eq_tol(red.a, 80.09, 0.05);
	ck_assert_double_eq_tol(red.b, 67.20, 0.05);
	ck_assert_double_eq_tol(blue.l, 32.30, 0.02);
	ck_assert_double_eq_tol(blue.b, -107.86, 0.1);
	ck_assert_double_eq_tol(white.l, 100.0, 1e-9);
	ck_assert_double_eq_tol(contrast(rgb(0xffffff), rgb(0x000000)), 21.0, 1e-9);
	/* #767676 on white is the classic 4.54:1. */
	ck_assert_double_eq_tol(contrast(rgb(0x767676), rgb(0xffffff)), 4.54, 0.005);
	for (int hex = 0; hex <= 0xffffff; hex += 0x0f0e0d) {
		struct qkv_rgb c = rgb(hex);
		struct qkv_lab core = qkv_colour_lab(c);
		ck_assert_double_eq_tol(core.l, lab(c).l, 0.05);
		ck_assert_double_eq_tol(core.a, lab(c).a, 0.1);
		ck_assert_double_eq_tol(core.b, lab(c).b, 0.1);
		ck_assert_double_eq_tol(qkv_colour_contrast(c, rgb(0x204060)), contrast(c, rgb(0x204060)), 1e-3);
	}
}
END_TEST

/* The sequential ramps, as a table: viridis L* rises by about 15 per step. */
START_TEST(test_weights_lightness_table)
{
	static const double viridis_l[] = { 14.90, 31.82, 46.81, 61.66, 76.27, 90.86 };
	static const double projector_l[] = { 14.90, 31.82, 63.26, 76.27, 90.86 };
	struct qkv_ramp v = qkv_colour_weights(QKV_PALETTE_VIRIDIS);
	struct qkv_ramp p = qkv_colour_weights(QKV_PALETTE_PROJECTOR);

	ck_assert_int_eq(v.count, 6);
	ck_assert_int_eq(p.count, 5);
	for (int k = 0; k < v.count; k++)
		ck_assert_double_eq_tol(lab(v.steps[k]).l, viridis_l[k], 0.05);
	for (int k = 0; k < p.count; k++)
		ck_assert_double_eq_tol(lab(p.steps[k]).l, projector_l[k], 0.05);
	ck_assert_int_eq(qkv_colour_weights(QKV_PALETTE_MONO).count, 0);
}
END_TEST

/* Every sequential ramp at every depth: L* strictly increasing, adjacent steps at
 * least QKV_RAMP_MIN_DELTA_E apart (the eight colours: L* increasing). */
START_TEST(test_weights_monotone_and_apart)
{
	const enum qkv_palette palettes[] = { QKV_PALETTE_VIRIDIS, QKV_PALETTE_PROJECTOR };

	for (int i = 0; i < 2; i++) {
		struct qkv_ramp r = qkv_colour_weights(palettes[i]);
		for (int depth = DEPTH_EXACT; depth <= DEPTH_256; depth++) {
			double least = INFINITY;
			for (int k = 1; k < r.count; k++) {
				struct qkv_rgb a = shown_step(r.steps[k - 1], depth, needed(palettes[i]));
				struct qkv_rgb b = shown_step(r.steps[k], depth, needed(palettes[i]));
				ck_assert_msg(lab(b).l > lab(a).l, "%s depth %d: L* of step %d (%.1f) not above step %d (%.1f)",
					      qkv_colour_palette_name(palettes[i]), depth, k, lab(b).l, k - 1, lab(a).l);
				least = fmin(least, delta_e(a, b));
			}
			ck_assert_msg(least >= QKV_RAMP_MIN_DELTA_E, "%s depth %d: adjacent ΔE %.1f",
				      qkv_colour_palette_name(palettes[i]), depth, least);
			fprintf(stderr, "# %s %s: least adjacent ΔE %.1f\n", qkv_colour_palette_name(palettes[i]),
				depth == DEPTH_EXACT ? "24-bit" : "256", least);
		}
	}
	{
		struct qkv_ramp e = qkv_colour_weights(QKV_PALETTE_EIGHT);
		ck_assert_int_ge(e.count, 5);
		for (int k = 1; k < e.count; k++)
			ck_assert(lab(shown_step(e.steps[k], DEPTH_8, 0)).l > lab(shown_step(e.steps[k - 1], DEPTH_8, 0)).l);
	}
}
END_TEST

/* The diverging ramps: odd length, L* rising towards the middle from both ends,
 * adjacent steps apart, purple-blue (b* < 0) below zero, orange (b* > 0) above. */
START_TEST(test_signed_diverging)
{
	const enum qkv_palette palettes[] = { QKV_PALETTE_VIRIDIS, QKV_PALETTE_PROJECTOR };

	for (int i = 0; i < 2; i++) {
		struct qkv_ramp r = qkv_colour_signed(palettes[i]);
		int side = r.count / 2;

		ck_assert_int_eq(r.count % 2, 1);
		for (int depth = DEPTH_EXACT; depth <= DEPTH_256; depth++) {
			for (int k = 0; k < side; k++) {
				struct qkv_rgb lo = shown_step(r.steps[k], depth, needed(palettes[i]));
				struct qkv_rgb lo_in = shown_step(r.steps[k + 1], depth, needed(palettes[i]));
				struct qkv_rgb hi = shown_step(r.steps[r.count - 1 - k], depth, needed(palettes[i]));
				struct qkv_rgb hi_in = shown_step(r.steps[r.count - 2 - k], depth, needed(palettes[i]));

				ck_assert(lab(lo_in).l > lab(lo).l);
				ck_assert(lab(hi_in).l > lab(hi).l);
				ck_assert_double_ge(delta_e(lo, lo_in), QKV_SIGNED_MIN_DELTA_E);
				ck_assert_double_ge(delta_e(hi, hi_in), QKV_SIGNED_MIN_DELTA_E);
				/* Exact colours carry their side's hue; xterm stand-ins may
				 * turn grey near zero but never take the other side's hue. */
				ck_assert_double_lt(lab(lo).b, depth == DEPTH_EXACT ? 0.0 : 0.5);
				ck_assert_double_gt(lab(hi).b, depth == DEPTH_EXACT ? 0.0 : -0.5);
			}
		}
		/* The middle step is zero's: a value of 0 lands there, ±limit at the ends. */
		ck_assert_int_eq(qkv_colour_signed_step(0.0, 2.0, side), side);
		ck_assert_int_eq(qkv_colour_signed_step(-2.0, 2.0, side), 0);
		ck_assert_int_eq(qkv_colour_signed_step(2.0, 2.0, side), 2 * side);
		ck_assert_int_eq(qkv_colour_signed_step(NAN, 2.0, side), side);
	}
}
END_TEST

/* The masked grey is no step of any ramp (ΔE ≥ QKV_MASKED_MIN_DELTA_E from each,
 * at every depth) and has no hue. */
START_TEST(test_masked_is_no_step)
{
	struct qkv_rgb grey = qkv_colour_masked();

	ck_assert_double_lt(hypot(lab(grey).a, lab(grey).b), 1.0);
	for (int p = 0; p < QKV_PALETTE_COUNT; p++) {
		struct qkv_ramp ramps[2] = { qkv_colour_weights(p), qkv_colour_signed(p) };
		enum depth first = p == QKV_PALETTE_EIGHT ? DEPTH_8 : DEPTH_EXACT;
		enum depth last = p == QKV_PALETTE_EIGHT ? DEPTH_8 : DEPTH_256;
		for (int r = 0; r < 2; r++)
			for (int k = 0; k < ramps[r].count; k++)
				for (int depth = first; depth <= (int)last; depth++) {
					struct qkv_rgb step = shown_step(ramps[r].steps[k], depth, needed(p));
					ck_assert_msg(delta_e(grey, step) >= QKV_MASKED_MIN_DELTA_E,
						      "%s ramp %d step %d: ΔE %.1f from the masked grey",
						      qkv_colour_palette_name(p), r, k, delta_e(grey, step));
				}
	}
	/* Its white text (the masked glyph) reaches 7:1. */
	ck_assert_double_ge(contrast(grey, rgb(0xffffff)), QKV_CONTRAST_PROJECTOR);
}
END_TEST

/* The text colour chosen on every step of every palette at every depth reaches
 * the palette's contrast: 7:1 for the projector palette, 4.5:1 otherwise. The
 * eight colours use xterm's black and white (#e5e5e5) as text. */
START_TEST(test_text_contrast_every_step)
{
	for (int p = 0; p < QKV_PALETTE_COUNT; p++) {
		struct qkv_ramp ramps[2] = { qkv_colour_weights(p), qkv_colour_signed(p) };
		enum depth first = p == QKV_PALETTE_EIGHT ? DEPTH_8 : DEPTH_EXACT;
		enum depth last = p == QKV_PALETTE_EIGHT ? DEPTH_8 : DEPTH_256;

		for (int depth = first; depth <= (int)last; depth++) {
			struct qkv_rgb dark = depth == DEPTH_8 ? qkv_colour_xterm(0) : rgb(0x000000);
			struct qkv_rgb light = depth == DEPTH_8 ? qkv_colour_xterm(7) : rgb(0xffffff);
			double least = INFINITY;

			if (ramps[0].count == 0)
				continue;
			for (int r = 0; r < 2; r++)
				for (int k = 0; k < ramps[r].count; k++) {
					struct qkv_rgb bg = shown_step(ramps[r].steps[k], depth, needed(p));
					struct qkv_rgb text = qkv_colour_text_on(bg, dark, light);
					double ratio = contrast(bg, text);
					ck_assert_msg(ratio >= needed(p), "%s depth %d ramp %d step %d: %.2f:1",
						      qkv_colour_palette_name(p), depth, r, k, ratio);
					/* And it is the better of the two. */
					ck_assert_double_ge(ratio, fmin(contrast(bg, dark), contrast(bg, light)));
					least = fmin(least, ratio);
				}
			fprintf(stderr, "# %s %s: least text contrast %.2f:1\n", qkv_colour_palette_name(p),
				depth == DEPTH_EXACT ? "24-bit" : depth == DEPTH_256 ? "256" : "8", least);
		}
	}
}
END_TEST

/* The interface's text colours on the terminal's own background — labels
 * (xterm 29, #00875f) and hints (243, #767676) — read at 4.5:1 on a black and
 * on a white terminal; the frames (202 selected, 163 moved) stand out from both
 * at 3:1 (WCAG's figure for graphics) and are no ramp colour. */
START_TEST(test_label_on_dark_and_light)
{
	const int text[] = { 29, 243 }, frames[] = { 202, 163 };

	for (int i = 0; i < 2; i++) {
		struct qkv_rgb c = qkv_colour_xterm(text[i]);
		ck_assert_double_ge(contrast(c, rgb(0x000000)), QKV_CONTRAST_TEXT);
		ck_assert_double_ge(contrast(c, rgb(0xffffff)), QKV_CONTRAST_TEXT);
	}
	for (int i = 0; i < 2; i++) {
		struct qkv_rgb c = qkv_colour_xterm(frames[i]);
		ck_assert_double_ge(contrast(c, rgb(0x000000)), 3.0);
		ck_assert_double_ge(contrast(c, rgb(0xffffff)), 3.0);
		for (int p = QKV_PALETTE_VIRIDIS; p <= QKV_PALETTE_PROJECTOR; p++) {
			struct qkv_ramp w = qkv_colour_weights(p);
			for (int k = 0; k < w.count; k++)
				ck_assert_double_ge(delta_e(c, w.steps[k]), QKV_RAMP_MIN_DELTA_E);
		}
	}
}
END_TEST

/* xterm's table: the cube and the greys from their definitions. */
START_TEST(test_xterm_table)
{
	struct qkv_rgb c = qkv_colour_xterm(16 + 36 * 5 + 6 * 2 + 1);   /* r 5, g 2, b 1 */

	ck_assert_int_eq(c.r, 255);
	ck_assert_int_eq(c.g, 135);
	ck_assert_int_eq(c.b, 95);
	c = qkv_colour_xterm(244);
	ck_assert_int_eq(c.r, 8 + 10 * 12);
	ck_assert_int_eq(qkv_colour_nearest_xterm(rgb(0xff875f), 16, 255, 0.0), 16 + 36 * 5 + 6 * 2 + 1);
	/* The nearest is nearest: no colour of the range is closer. */
	for (int hex = 0x010203; hex <= 0xffffff; hex += 0x1d2b3f) {
		int n = qkv_colour_nearest_xterm(rgb(hex), 16, 255, 0.0);
		for (int i = 16; i < 256; i++)
			ck_assert_double_le(delta_e(rgb(hex), qkv_colour_xterm(n)),
					    delta_e(rgb(hex), qkv_colour_xterm(i)) + 0.05);
	}
}
END_TEST

/* The nearest xterm colour is the one its definition names: the least
 * qkv_colour_delta_e among the candidates that reach min_contrast against black
 * or white (qkv_colour_contrast), else the least of all, the first on a tie —
 * every candidate measured one by one through the public functions, for random
 * colours, ranges and contrast needs (the core shares work between candidates). */
START_TEST(test_nearest_xterm_is_the_definition)
{
	const struct qkv_rgb black = { 0, 0, 0 }, white = { 255, 255, 255 };
	const double needs[] = { 0.0, 4.5, 7.0, 12.0, 21.5 };
	struct lcg g = { 2024 };

	for (int t = 0; t < 400; t++) {
		struct qkv_rgb c = { (unsigned char)lcg_int(&g, 0, 255), (unsigned char)lcg_int(&g, 0, 255),
				     (unsigned char)lcg_int(&g, 0, 255) };
		int first = t % 3 == 0 ? 0 : t % 3 == 1 ? 16 : lcg_int(&g, 0, 255);
		int last = t % 3 == 0 ? 7 : t % 3 == 1 ? 255 : lcg_int(&g, first, 255);
		double need = needs[t % 5];
		int best = -1, best_any = -1;
		double best_d = INFINITY, best_any_d = INFINITY;

		for (int i = first; i <= last; i++) {
			struct qkv_rgb x = qkv_colour_xterm(i);
			double d = qkv_colour_delta_e(c, x);
			double readable = fmax(qkv_colour_contrast(x, black), qkv_colour_contrast(x, white));

			if (d < best_any_d) {
				best_any_d = d;
				best_any = i;
			}
			if (readable >= need && d < best_d) {
				best_d = d;
				best = i;
			}
		}
		ck_assert_int_eq(qkv_colour_nearest_xterm(c, first, last, need), best >= 0 ? best : best_any);
	}
	/* Many colours at once: each answer is the one asked alone. */
	for (int t = 0; t < 3; t++) {
		struct qkv_rgb colours[50];
		int nearest[50];
		int first = t == 0 ? 0 : 16, last = t == 0 ? 7 : 255;

		for (int i = 0; i < 50; i++)
			colours[i] = (struct qkv_rgb){ (unsigned char)lcg_int(&g, 0, 255),
						       (unsigned char)lcg_int(&g, 0, 255),
						       (unsigned char)lcg_int(&g, 0, 255) };
		qkv_colour_nearest_xterms(colours, 50, first, last, needs[t + 1], nearest);
		for (int i = 0; i < 50; i++)
			ck_assert_int_eq(nearest[i], qkv_colour_nearest_xterm(colours[i], first, last, needs[t + 1]));
	}
}
END_TEST

/* The number and the colour tell the same story: two weights that read the same
 * at two decimals get the same step, and a larger shown weight never a lower
 * step — for 100 000 random pairs (a tenth under the sanitizers: rounds.h), many
 * of them equal when shown. */
START_TEST(test_equal_numbers_equal_colours)
{
	struct lcg g = { 12345 };
	const int steps[] = { 5, 6 };

	for (int i = 0; i < test_rounds(100000); i++) {
		double a = 0.5 + 0.5 * lcg_signed(&g), b = a + 0.01 * lcg_signed(&g);
		char ta[32], tb[32];
		for (int s = 0; s < 2; s++) {
			int ka = qkv_colour_weight_step(qkv_colour_shown(a, 2), steps[s]);
			int kb = qkv_colour_weight_step(qkv_colour_shown(b, 2), steps[s]);
			qkv_format_number(ta, sizeof ta, a, 2);
			qkv_format_number(tb, sizeof tb, b, 2);
			if (strcmp(ta, tb) == 0)
				ck_assert_msg(ka == kb, "%s and %s: steps %d and %d", ta, tb, ka, kb);
			else if (strtod(ta, NULL) < strtod(tb, NULL))
				ck_assert_int_le(ka, kb);
			else
				ck_assert_int_ge(ka, kb);
		}
	}
	/* The eight colours: 0.40 and 0.50 never share a step. */
	ck_assert_int_ne(qkv_colour_weight_step(0.40, qkv_colour_weights(QKV_PALETTE_EIGHT).count),
			 qkv_colour_weight_step(0.50, qkv_colour_weights(QKV_PALETTE_EIGHT).count));
	ck_assert_int_eq(qkv_colour_weight_step(1.0, 6), 5);
	ck_assert_int_eq(qkv_colour_weight_step(NAN, 6), 0);
	ck_assert_double_eq(qkv_colour_shown(0.1978, 2), 0.20);
	ck_assert_double_eq(qkv_colour_shown(0.2483, 2), 0.25);
}
END_TEST

/* The step the screen and the figures share: from the weight as shown at two
 * decimals. 0.1649 reads 0.16 (0.16 · 6 < 1: the first step), 0.1651 reads 0.17
 * (0.17 · 6 > 1: the second); 0.995 and up read 1.00, the last step. */
START_TEST(test_weight_step_of_shown)
{
	ck_assert_int_eq(qkv_colour_weight_step_of(0.1649, 6), 0);
	ck_assert_int_eq(qkv_colour_weight_step_of(0.1651, 6), 1);
	ck_assert_int_eq(qkv_colour_weight_step_of(0.9951, 6), 5);
	ck_assert_int_eq(qkv_colour_weight_step_of(0.8249, 6), 4);
	ck_assert_int_eq(qkv_colour_weight_step_of(0.0049, 5), 0);
	ck_assert_int_eq(qkv_colour_weight_step_of(0.2049, 5), 1);   /* 0.20 · 5 = 1 */
}
END_TEST

START_TEST(test_palette_names)
{
	ck_assert_str_eq(qkv_colour_palette_name(QKV_PALETTE_VIRIDIS), "viridis");
	ck_assert_ptr_null(qkv_colour_palette_name(QKV_PALETTE_COUNT));
	for (int p = 0; p < QKV_PALETTE_COUNT; p++)
		ck_assert_int_eq(qkv_colour_palette_find(qkv_colour_palette_name(p)), p);
	ck_assert_int_eq(qkv_colour_palette_find("bogus"), -1);
	ck_assert_int_eq(qkv_colour_palette_find(NULL), -1);
}
END_TEST

/* ---- the continuous maps -------------------------------------------------------- */

/* A published entry (components 0..1) as the 8-bit colour it rounds to. */
static void assert_entry(struct qkv_rgb got, double r, double g, double b)
{
	ck_assert_int_eq(got.r, (int)floor(r * 255.0 + 0.5));
	ck_assert_int_eq(got.g, (int)floor(g * 255.0 + 0.5));
	ck_assert_int_eq(got.b, (int)floor(b * 255.0 + 0.5));
}

/* Entries typed from matplotlib's _cm_listed.py (viridis, cividis: 256 entries,
 * entry k at k/255) and Moreland's 33 cool-warm points (entry k at k/32). */
START_TEST(test_map_published_entries)
{
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, 0.0), 0.267004, 0.004874, 0.329415);
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, 128.0 / 255.0), 0.127568, 0.566949, 0.550556);
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, 1.0), 0.993248, 0.906157, 0.143936);
	assert_entry(qkv_colour_map_at(QKV_MAP_CIVIDIS, 0.0), 0.0, 0.135112, 0.304751);
	assert_entry(qkv_colour_map_at(QKV_MAP_CIVIDIS, 128.0 / 255.0), 0.488697, 0.485318, 0.471008);
	assert_entry(qkv_colour_map_at(QKV_MAP_CIVIDIS, 1.0), 0.995737, 0.909344, 0.217772);
	assert_entry(qkv_colour_map_at(QKV_MAP_COOLWARM, 0.0), 0.2298057, 0.298717966, 0.753683153);
	assert_entry(qkv_colour_map_at(QKV_MAP_COOLWARM, 0.5), 0.865395197, 0.86541021, 0.865395561);
	assert_entry(qkv_colour_map_at(QKV_MAP_COOLWARM, 1.0), 0.705673158, 0.01555616, 0.150232812);
	/* Halfway between viridis' first two entries: their mean. */
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, 0.5 / 255.0), (0.267004 + 0.268510) / 2,
		     (0.004874 + 0.009605) / 2, (0.329415 + 0.335427) / 2);
	/* Outside [0, 1] and NaN: clamped. */
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, -3.0), 0.267004, 0.004874, 0.329415);
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, 7.0), 0.993248, 0.906157, 0.143936);
	assert_entry(qkv_colour_map_at(QKV_MAP_VIRIDIS, NAN), 0.267004, 0.004874, 0.329415);
}
END_TEST

/* The sequential maps grow lighter all the way (CIELAB L*, the test's own code),
 * sampled at 65 points; grey has no hue and runs from L* 12 to 92. */
START_TEST(test_map_lightness_monotone)
{
	static const enum qkv_colour_map maps[] = { QKV_MAP_VIRIDIS, QKV_MAP_CIVIDIS, QKV_MAP_GREY };

	for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
		double last = -1.0;

		for (int i = 0; i <= 64; i++) {
			struct qkv_rgb c = qkv_colour_map_at(maps[m], i / 64.0);
			struct lab3 lab = lab_of(c.r, c.g, c.b);

			ck_assert_msg(lab.l > last, "map %zu at %d/64: L* %.2f after %.2f", m, i, lab.l, last);
			last = lab.l;
			if (maps[m] == QKV_MAP_GREY)
				ck_assert(c.r == c.g && c.g == c.b);
		}
	}
	ck_assert_double_eq_tol(lab_of(qkv_colour_map_at(QKV_MAP_GREY, 0.0).r, qkv_colour_map_at(QKV_MAP_GREY, 0.0).g,
				       qkv_colour_map_at(QKV_MAP_GREY, 0.0).b).l, 12.0, 0.5);
	ck_assert_double_eq_tol(lab_of(qkv_colour_map_at(QKV_MAP_GREY, 1.0).r, qkv_colour_map_at(QKV_MAP_GREY, 1.0).g,
				       qkv_colour_map_at(QKV_MAP_GREY, 1.0).b).l, 92.0, 0.5);
}
END_TEST

/* The diverging map: neutral (no hue) in the middle, lightest there, its two
 * ends of the same lightness, and each half darker towards its end. */
START_TEST(test_map_diverging)
{
	struct qkv_rgb mid = qkv_colour_map_at(QKV_MAP_COOLWARM, 0.5);
	struct qkv_rgb lo = qkv_colour_map_at(QKV_MAP_COOLWARM, 0.0), hi = qkv_colour_map_at(QKV_MAP_COOLWARM, 1.0);
	struct lab3 m = lab_of(mid.r, mid.g, mid.b), a = lab_of(lo.r, lo.g, lo.b), b = lab_of(hi.r, hi.g, hi.b);
	double last_lo = m.l, last_hi = m.l;

	ck_assert_msg(fabs(m.a) < 1.0 && fabs(m.b) < 1.0, "middle a* %.2f b* %.2f", m.a, m.b);
	ck_assert_msg(fabs(a.l - b.l) < 1.5, "ends' L* %.2f and %.2f", a.l, b.l);
	ck_assert(a.b < -20.0 && b.a > 20.0); /* blue below, red above */
	for (int i = 1; i <= 16; i++) {
		struct qkv_rgb x = qkv_colour_map_at(QKV_MAP_COOLWARM, 0.5 - i / 32.0);
		struct qkv_rgb y = qkv_colour_map_at(QKV_MAP_COOLWARM, 0.5 + i / 32.0);
		double lx = lab_of(x.r, x.g, x.b).l, ly = lab_of(y.r, y.g, y.b).l;

		ck_assert_msg(lx < last_lo && ly < last_hi, "step %d: %.2f %.2f", i, lx, ly);
		last_lo = lx;
		last_hi = ly;
	}
}
END_TEST

/* --levels N: exactly N colours over [0, 1], equal bins (k/N starts bin k), the
 * first and last the map's ends. */
START_TEST(test_map_levels)
{
	static const int levels[] = { 2, 3, 5, 6, 10, 16, 32, 64 };

	for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		int n = levels[l], distinct = 0;
		struct qkv_rgb seen[64];

		for (int i = 0; i <= 10000; i++) {
			struct qkv_rgb c = qkv_colour_map_at(QKV_MAP_VIRIDIS, qkv_colour_level(i / 10000.0, n));
			bool known = false;

			for (int k = 0; k < distinct; k++)
				known = known || (seen[k].r == c.r && seen[k].g == c.g && seen[k].b == c.b);
			if (!known) {
				ck_assert_int_lt(distinct, 64);
				seen[distinct++] = c;
			}
		}
		ck_assert_int_eq(distinct, n);
		for (int k = 1; k < n; k++) {
			ck_assert_double_eq_tol(qkv_colour_level((double)k / n - 1e-9, n), (k - 1.0) / (n - 1), 1e-15);
			ck_assert_double_eq_tol(qkv_colour_level((double)k / n + 1e-9, n), (double)k / (n - 1), 1e-15);
		}
		ck_assert_double_eq(qkv_colour_level(0.0, n), 0.0);
		ck_assert_double_eq(qkv_colour_level(1.0, n), 1.0);
	}
	/* 256 levels: 256 different positions; no levels: t itself. */
	for (int k = 0; k < 256; k++)
		ck_assert_double_eq_tol(qkv_colour_level((k + 0.5) / 256.0, 256), k / 255.0, 1e-15);
	ck_assert_double_eq(qkv_colour_level(0.3, 0), 0.3);
}
END_TEST

/* Black or white text reaches 4.5:1 (WCAG AA) on every colour of every map, the
 * stronger of the two measured with the test's own luminance. */
START_TEST(test_map_text_contrast)
{
	for (int m = 0; m < QKV_MAP_COUNT; m++) {
		double least = 21.0;

		for (int i = 0; i <= 1000; i++) {
			struct qkv_rgb c = qkv_colour_map_at((enum qkv_colour_map)m, i / 1000.0);
			double y = luminance(c), best = fmax((y + 0.05) / 0.05, 1.05 / (y + 0.05));

			least = fmin(least, best);
		}
		printf("# map %s: least text contrast %.2f:1\n", qkv_colour_map_name(m), least);
		ck_assert_msg(least >= QKV_CONTRAST_TEXT, "map %d: %.2f", m, least);
	}
}
END_TEST

START_TEST(test_map_names_and_fraction)
{
	for (int m = 0; m < QKV_MAP_COUNT; m++)
		ck_assert_int_eq(qkv_colour_map_find(qkv_colour_map_name(m)), m);
	ck_assert_int_eq(qkv_colour_map_find("gray"), QKV_MAP_GREY);
	ck_assert_int_eq(qkv_colour_map_find("jet"), -1);
	ck_assert_ptr_null(qkv_colour_map_name(QKV_MAP_COUNT));
	ck_assert_double_eq_tol(qkv_colour_fraction(0.25, 0.0, 0.5), 0.5, 1e-15);
	ck_assert_double_eq_tol(qkv_colour_fraction(-3.0, -4.0, 4.0), 0.125, 1e-15);
	ck_assert_double_eq(qkv_colour_fraction(0.9, 0.0, 0.5), 1.0);
	ck_assert_double_eq(qkv_colour_fraction(-1.0, 0.0, 0.5), 0.0);
	ck_assert_double_eq(qkv_colour_fraction(2.0, 1.0, 1.0), 0.5);
}
END_TEST

static Suite *colour_suite(void)
{
	Suite *s = suite_create("colour");
	TCase *ramps = tcase_create("ramps");
	tcase_add_test(ramps, test_maths_known_values);
	tcase_add_test(ramps, test_weights_lightness_table);
	tcase_add_test(ramps, test_weights_monotone_and_apart);
	tcase_add_test(ramps, test_signed_diverging);
	tcase_add_test(ramps, test_masked_is_no_step);
	tcase_add_test(ramps, test_xterm_table);
	tcase_add_test(ramps, test_nearest_xterm_is_the_definition);
	tcase_add_test(ramps, test_palette_names);
	suite_add_tcase(s, ramps);
	TCase *text = tcase_create("contrast");
	tcase_add_test(text, test_text_contrast_every_step);
	tcase_add_test(text, test_label_on_dark_and_light);
	tcase_add_test(text, test_equal_numbers_equal_colours);
	tcase_add_test(text, test_weight_step_of_shown);
	suite_add_tcase(s, text);
	TCase *maps = tcase_create("maps");
	tcase_add_test(maps, test_map_published_entries);
	tcase_add_test(maps, test_map_lightness_monotone);
	tcase_add_test(maps, test_map_diverging);
	tcase_add_test(maps, test_map_levels);
	tcase_add_test(maps, test_map_names_and_fraction);
	tcase_add_test(maps, test_map_text_contrast);
	suite_add_tcase(s, maps);
	return s;
}

int main(void)
{
	return run_tap(colour_suite());
}
