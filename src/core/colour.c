/* colour.c — qkv's colours as exact sRGB values and the maths on them (CIELAB,
 * CIE76 ΔE, WCAG luminance and contrast, nearest xterm colour). Const tables
 * only; nothing here knows a terminal. */
#include "qkv/colour.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Weights: viridis (van der Walt and Smith, matplotlib's default colour map) at
 * k/5, k = 0..5 — perceptually uniform and readable with every common colour
 * vision deficiency. L* 15 32 47 62 76 91. */
static const struct qkv_rgb viridis[] = {
	{ 0x44, 0x01, 0x54 }, { 0x41, 0x44, 0x87 }, { 0x2a, 0x78, 0x8e },
	{ 0x22, 0xa8, 0x84 }, { 0x7a, 0xd1, 0x51 }, { 0xfd, 0xe7, 0x25 },
};

/* Projector weights: viridis at 0, 0.2, 0.625, 0.8 and 1 — it skips the middle
 * lightnesses (WCAG luminance 0.10 to 0.30), where neither black nor white text
 * reaches 7:1. L* 15 32 63 76 91. */
static const struct qkv_rgb viridis_projector[] = {
	{ 0x44, 0x01, 0x54 }, { 0x41, 0x44, 0x87 }, { 0x27, 0xad, 0x81 },
	{ 0x7a, 0xd1, 0x51 }, { 0xfd, 0xe7, 0x25 },
};

/* Signed values: ColorBrewer PuOr (7 classes), purple below zero, orange above,
 * a near-white zero; safe for red–green colour blindness. */
static const struct qkv_rgb puor[] = {
	{ 0x54, 0x27, 0x88 }, { 0x99, 0x8e, 0xc3 }, { 0xd8, 0xda, 0xeb },
	{ 0xf7, 0xf7, 0xf7 },
	{ 0xfe, 0xe0, 0xb6 }, { 0xf1, 0xa3, 0x40 }, { 0xb3, 0x58, 0x06 },
};

/* Projector signed: PuOr's lightest and darkest steps, so that each carries text
 * at 7:1 (the dark orange is PuOr 11's end, #7f3b08). */
static const struct qkv_rgb puor_projector[] = {
	{ 0x54, 0x27, 0x88 }, { 0xb2, 0xab, 0xd2 }, { 0xf7, 0xf7, 0xf7 },
	{ 0xfd, 0xb8, 0x63 }, { 0x7f, 0x3b, 0x08 },
};

/* xterm's default basic colours (0–15). */
static const struct qkv_rgb xterm_basic[16] = {
	{ 0x00, 0x00, 0x00 }, { 0xcd, 0x00, 0x00 }, { 0x00, 0xcd, 0x00 }, { 0xcd, 0xcd, 0x00 },
	{ 0x00, 0x00, 0xee }, { 0xcd, 0x00, 0xcd }, { 0x00, 0xcd, 0xcd }, { 0xe5, 0xe5, 0xe5 },
	{ 0x7f, 0x7f, 0x7f }, { 0xff, 0x00, 0x00 }, { 0x00, 0xff, 0x00 }, { 0xff, 0xff, 0x00 },
	{ 0x5c, 0x5c, 0xff }, { 0xff, 0x00, 0xff }, { 0x00, 0xff, 0xff }, { 0xff, 0xff, 0xff },
};

/* Eight colours, rising in lightness: black, blue, red, cyan, yellow, white (L*
 * 0 30 43 75 80 91 with xterm's values); no green, so red and green are never
 * told apart by hue alone. */
static const struct qkv_rgb eight[] = {
	{ 0x00, 0x00, 0x00 }, { 0x00, 0x00, 0xee }, { 0xcd, 0x00, 0x00 },
	{ 0x00, 0xcd, 0xcd }, { 0xcd, 0xcd, 0x00 }, { 0xe5, 0xe5, 0xe5 },
};

/* Eight-colour signed: blue below zero, black around it, yellow above. */
static const struct qkv_rgb eight_signed[] = {
	{ 0x00, 0x00, 0xee }, { 0x00, 0x00, 0x00 }, { 0xcd, 0xcd, 0x00 },
};

/* xterm 240: L* 37 with no hue, ΔE ≥ 26 from every ramp step. */
static const struct qkv_rgb masked = { 0x58, 0x58, 0x58 };

static const char *const names[QKV_PALETTE_COUNT] = {
	[QKV_PALETTE_VIRIDIS] = "viridis",
	[QKV_PALETTE_PROJECTOR] = "projector",
	[QKV_PALETTE_EIGHT] = "8",
	[QKV_PALETTE_MONO] = "mono",
};

const char *qkv_colour_palette_name(int palette)
{
	if (palette < 0 || palette >= QKV_PALETTE_COUNT)
		return NULL;
	return names[palette];
}

int qkv_colour_palette_find(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < QKV_PALETTE_COUNT; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	if (strcmp(name, "256") == 0)
		return QKV_PALETTE_VIRIDIS;
	if (strcmp(name, "projector-dark") == 0)
		return QKV_PALETTE_PROJECTOR;
	return -1;
}

struct qkv_ramp qkv_colour_weights(enum qkv_palette palette)
{
	switch (palette) {
	case QKV_PALETTE_VIRIDIS: return (struct qkv_ramp){ viridis, LEN(viridis) };
	case QKV_PALETTE_PROJECTOR: return (struct qkv_ramp){ viridis_projector, LEN(viridis_projector) };
	case QKV_PALETTE_EIGHT: return (struct qkv_ramp){ eight, LEN(eight) };
	case QKV_PALETTE_MONO:
	case QKV_PALETTE_COUNT:
	default: return (struct qkv_ramp){ NULL, 0 };
	}
}

struct qkv_ramp qkv_colour_signed(enum qkv_palette palette)
{
	switch (palette) {
	case QKV_PALETTE_VIRIDIS: return (struct qkv_ramp){ puor, LEN(puor) };
	case QKV_PALETTE_PROJECTOR: return (struct qkv_ramp){ puor_projector, LEN(puor_projector) };
	case QKV_PALETTE_EIGHT: return (struct qkv_ramp){ eight_signed, LEN(eight_signed) };
	case QKV_PALETTE_MONO:
	case QKV_PALETTE_COUNT:
	default: return (struct qkv_ramp){ NULL, 0 };
	}
}

struct qkv_rgb qkv_colour_masked(void)
{
	return masked;
}

int qkv_colour_weight_step(double shown, int steps)
{
	int k;

	if (steps <= 1 || !(shown > 0.0))
		return 0;
	if (shown >= 1.0)
		return steps - 1;
	k = (int)(shown * steps);   /* shown · steps can round up to steps */
	return k < steps ? k : steps - 1;
}

int qkv_colour_signed_step(double value, double limit, int side)
{
	double t = limit > 0.0 ? value / limit : 0.0, magnitude;
	int level;

	if (side <= 0)
		return 0;
	if (isnan(t))
		t = 0.0;
	t = t < -1.0 ? -1.0 : t > 1.0 ? 1.0 : t;
	magnitude = fabs(t);
	level = (int)(magnitude * (2 * side + 1) / 2.0 + 0.5);
	if (level > side)
		level = side;
	return side + (t < 0.0 ? -level : level);
}

double qkv_colour_shown(double value, int decimals)
{
	double scale = pow(10.0, decimals < 0 ? 0 : decimals > 12 ? 12 : decimals);

	if (!isfinite(value))
		return value;
	return round(value * scale) / scale;
}

int qkv_colour_weight_step_of(double weight, int steps)
{
	return qkv_colour_weight_step(qkv_colour_shown(weight, QKV_COLOUR_WEIGHT_DECIMALS), steps);
}

/* sRGB component (0..255) to linear light (IEC 61966-2-1). */
static double linear(unsigned char component)
{
	double c = component / 255.0;

	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double lab_f(double t)
{
	const double delta = 6.0 / 29.0;

	return t > delta * delta * delta ? cbrt(t) : t / (3.0 * delta * delta) + 4.0 / 29.0;
}

static struct qkv_lab lab_of_linear(double r, double g, double b);

struct qkv_lab qkv_colour_lab(struct qkv_rgb c)
{
	return lab_of_linear(linear(c.r), linear(c.g), linear(c.b));
}

double qkv_colour_delta_e(struct qkv_rgb x, struct qkv_rgb y)
{
	struct qkv_lab a = qkv_colour_lab(x), b = qkv_colour_lab(y);

	return sqrt((a.l - b.l) * (a.l - b.l) + (a.a - b.a) * (a.a - b.a) + (a.b - b.b) * (a.b - b.b));
}

double qkv_colour_luminance(struct qkv_rgb c)
{
	return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

double qkv_colour_contrast(struct qkv_rgb x, struct qkv_rgb y)
{
	double a = qkv_colour_luminance(x), b = qkv_colour_luminance(y);

	return a > b ? (a + 0.05) / (b + 0.05) : (b + 0.05) / (a + 0.05);
}

struct qkv_rgb qkv_colour_text_on(struct qkv_rgb bg, struct qkv_rgb dark, struct qkv_rgb light)
{
	return qkv_colour_contrast(bg, light) > qkv_colour_contrast(bg, dark) ? light : dark;
}

struct qkv_rgb qkv_colour_xterm(int index)
{
	static const unsigned char levels[6] = { 0, 95, 135, 175, 215, 255 };
	unsigned char grey;

	if (index < 0 || index > 255)
		return xterm_basic[0];
	if (index < 16)
		return xterm_basic[index];
	if (index >= 232) {
		grey = (unsigned char)(8 + 10 * (index - 232));
		return (struct qkv_rgb){ grey, grey, grey };
	}
	index -= 16;
	return (struct qkv_rgb){ levels[index / 36], levels[index / 6 % 6], levels[index % 6] };
}

/* CIELAB of a colour whose components' linear light is already known (the
 * arithmetic of qkv_colour_lab, step for step, so the values are the same bits). */
static struct qkv_lab lab_of_linear(double r, double g, double b)
{
	double x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
	double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
	double z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
	double fx = lab_f(x / 0.95047), fy = lab_f(y), fz = lab_f(z / 1.08883);

	return (struct qkv_lab){ 116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz) };
}

/* WCAG contrast of two luminances (qkv_colour_contrast's formula). */
static double contrast_of(double a, double b)
{
	return a > b ? (a + 0.05) / (b + 0.05) : (b + 0.05) / (a + 0.05);
}

/* The same choice as comparing qkv_colour_delta_e(c, x) and the larger of
 * qkv_colour_contrast(x, black) and (x, white) for every candidate x, with the
 * same bits: each candidate's CIELAB and readability are computed once for all
 * the colours asked about (from each 8-bit component's linear light, found once:
 * the 240 candidates share about 40), so a palette of a dozen colours costs a
 * few hundred cube roots instead of tens of thousands of pow(). */
void qkv_colour_nearest_xterms(const struct qkv_rgb *colours, int count, int first, int last,
			       double min_contrast, int *nearest)
{
	const struct qkv_rgb black = { 0, 0, 0 }, white = { 255, 255, 255 };
	double light[256], black_y = qkv_colour_luminance(black), white_y = qkv_colour_luminance(white);
	bool known[256] = { false }, readable[256];
	struct qkv_lab candidates[256];

	first = first < 0 ? 0 : first;
	last = last > 255 ? 255 : last;
	for (int i = first; i <= last; i++) {
		struct qkv_rgb x = qkv_colour_xterm(i);
		const unsigned char parts[3] = { x.r, x.g, x.b };
		double y;

		for (int k = 0; k < 3; k++)
			if (!known[parts[k]]) {
				light[parts[k]] = linear(parts[k]);
				known[parts[k]] = true;
			}
		candidates[i] = lab_of_linear(light[x.r], light[x.g], light[x.b]);
		y = 0.2126 * light[x.r] + 0.7152 * light[x.g] + 0.0722 * light[x.b];
		readable[i] = fmax(contrast_of(y, black_y), contrast_of(y, white_y)) >= min_contrast;
	}
	for (int c = 0; c < count; c++) {
		struct qkv_lab a = qkv_colour_lab(colours[c]);
		int best = -1, best_any = -1;
		double best_d = INFINITY, best_any_d = INFINITY;

		for (int i = first; i <= last; i++) {
			const struct qkv_lab *b = &candidates[i];
			double d = sqrt((a.l - b->l) * (a.l - b->l) + (a.a - b->a) * (a.a - b->a) +
					(a.b - b->b) * (a.b - b->b));

			if (d < best_any_d) {
				best_any_d = d;
				best_any = i;
			}
			if (readable[i] && d < best_d) {
				best_d = d;
				best = i;
			}
		}
		nearest[c] = best >= 0 ? best : best_any;
	}
}

int qkv_colour_nearest_xterm(struct qkv_rgb c, int first, int last, double min_contrast)
{
	int nearest = -1;

	qkv_colour_nearest_xterms(&c, 1, first, last, min_contrast, &nearest);
	return nearest;
}
