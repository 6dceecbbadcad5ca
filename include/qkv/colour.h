/* colour.h — the colours qkv draws with, as exact sRGB values, and the colour
 * maths that chose them: CIELAB lightness and distance, WCAG luminance and
 * contrast, the text colour that reads best on a background, the xterm colour
 * table and the nearest xterm colour to an exact one. No terminal here: the
 * interface maps these values to what a terminal can show, and any other front
 * end (a figure exporter) draws the identical colours. Const tables only. */
#ifndef QKV_COLOUR_H
#define QKV_COLOUR_H

#include <stdbool.h>

struct qkv_rgb {
	unsigned char r, g, b;
};

/* CIELAB under D65 (L* 0..100). */
struct qkv_lab {
	double l, a, b;
};

/* The palettes, in the order `c` cycles them. VIRIDIS is the default; PROJECTOR
 * keeps only steps that carry text at 7:1; EIGHT is for terminals with the eight
 * basic colours (xterm's default values stand for them); MONO has no colour. */
enum qkv_palette {
	QKV_PALETTE_VIRIDIS,
	QKV_PALETTE_PROJECTOR,
	QKV_PALETTE_EIGHT,
	QKV_PALETTE_MONO,
	QKV_PALETTE_COUNT,
};

/* A ramp: `count` backgrounds, darkest/most negative first. */
struct qkv_ramp {
	const struct qkv_rgb *steps;
	int count;
};

/* Contrast every number on a coloured cell reaches (WCAG 2: 4.5 is AA, 7 AAA). */
#define QKV_CONTRAST_TEXT 4.5
#define QKV_CONTRAST_PROJECTOR 7.0
/* The least CIELAB distance (CIE76) between adjacent steps of a sequential ramp,
 * of a diverging ramp, and between the masked grey and any ramp step. */
#define QKV_RAMP_MIN_DELTA_E 20.0
#define QKV_SIGNED_MIN_DELTA_E 12.0
#define QKV_MASKED_MIN_DELTA_E 20.0

/* The palette's name ("viridis", "projector", "8", "mono"), or NULL out of range. */
const char *qkv_colour_palette_name(int palette);
/* The palette of that name (old names "256", "projector-dark" are accepted), or -1. */
int qkv_colour_palette_find(const char *name);

/* The sequential ramp for weights in [0, 1] and the diverging ramp for signed
 * values (2·side + 1 steps, zero in the middle). MONO has no steps (count 0). */
struct qkv_ramp qkv_colour_weights(enum qkv_palette palette);
struct qkv_ramp qkv_colour_signed(enum qkv_palette palette);
/* Masked cells: a grey that is no step of any ramp. */
struct qkv_rgb qkv_colour_masked(void);

/* The step of a shown weight: `steps` equal bins over [0, 1], 1 and above in the
 * last, NaN and below 0 in the first. Call it with the value as shown (rounded),
 * so that equal numbers on screen get equal colours. */
int qkv_colour_weight_step(double shown, int steps);
/* The step of a signed value on a 2·side + 1 ramp with ±limit at the ends
 * (limit > 0): equal bins over [−limit, limit], 0 in the middle one. */
int qkv_colour_signed_step(double value, double limit, int side);
/* A shown value back as the number it reads: value rounded to `decimals` places. */
double qkv_colour_shown(double value, int decimals);
/* The decimals a weight's colour is taken at: the fewest qkv shows weights with. */
#define QKV_COLOUR_WEIGHT_DECIMALS 2
/* The step of a weight as the screen and the figures colour it: from the weight
 * as shown at QKV_COLOUR_WEIGHT_DECIMALS, so equal numbers get equal colours. */
int qkv_colour_weight_step_of(double weight, int steps);

/* The continuous colour maps of figures (colour_map.c): viridis (the default),
 * cividis and grey are sequential, darkest at 0; coolwarm is diverging, for
 * signed values, a neutral grey at 0.5. The published tables are interpolated
 * linearly between their entries. */
enum qkv_colour_map {
	QKV_MAP_VIRIDIS,
	QKV_MAP_CIVIDIS,
	QKV_MAP_GREY,
	QKV_MAP_COOLWARM,
	QKV_MAP_COUNT,
};

/* The grey map's ends in CIELAB lightness: even steps of L* between them, so that
 * its darkest and lightest cells still stand apart from a white or a near-black
 * background. */
#define QKV_GREY_DARKEST 12.0
#define QKV_GREY_LIGHTEST 92.0

/* The map's name ("viridis", "cividis", "grey", "coolwarm"), or NULL out of range. */
const char *qkv_colour_map_name(int map);
/* The map of that name ("gray" too), or -1. */
int qkv_colour_map_find(const char *name);
/* The map's colour at t in [0, 1] (clamped; NaN as 0), between the two nearest
 * entries of its table, each component rounded to the nearest of 0..255. */
struct qkv_rgb qkv_colour_map_at(enum qkv_colour_map map, double t);
/* t in [0, 1] (clamped; NaN as 0) as `levels` steps show it: levels equal bins,
 * bin k (1 in the last) read at k / (levels − 1), so the steps take exactly
 * `levels` colours of a map, its two ends among them. levels < 2: t itself. */
double qkv_colour_level(double t, int levels);
/* Where value lies on [low, high], as 0..1 (clamped; NaN as 0; 0.5 when the
 * range is empty, high ≤ low). */
double qkv_colour_fraction(double value, double low, double high);

struct qkv_lab qkv_colour_lab(struct qkv_rgb c);
/* CIE76 ΔE: Euclidean distance in CIELAB. */
double qkv_colour_delta_e(struct qkv_rgb x, struct qkv_rgb y);
/* WCAG 2 relative luminance (0 black .. 1 white). */
double qkv_colour_luminance(struct qkv_rgb c);
/* WCAG 2 contrast ratio, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter: 1..21. */
double qkv_colour_contrast(struct qkv_rgb x, struct qkv_rgb y);
/* Of `dark` and `light`, the one with the higher contrast on bg (dark on a tie). */
struct qkv_rgb qkv_colour_text_on(struct qkv_rgb bg, struct qkv_rgb dark, struct qkv_rgb light);

/* xterm's 256 colours: 0–15 its default basic colours, 16–231 the 6×6×6 cube,
 * 232–255 the greys. index outside 0..255 gives black. */
struct qkv_rgb qkv_colour_xterm(int index);
/* The xterm colour in first..last (inclusive, within 0..255) nearest to c in
 * CIELAB among those on which black (16) or white (231) text reaches
 * min_contrast (0 for any); when none does, the nearest of all. */
int qkv_colour_nearest_xterm(struct qkv_rgb c, int first, int last, double min_contrast);
/* The same for count colours at once, into nearest[0 … count): the candidates
 * are measured once for all of them. */
void qkv_colour_nearest_xterms(const struct qkv_rgb *colours, int count, int first, int last,
			       double min_contrast, int *nearest);

#endif
