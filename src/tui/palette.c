/* palette.c — the interface's colours: fixed tables of xterm indices for the
 * weight ramp, the signed ramp and the roles of text, turned into colour pairs
 * (alloc_pair) once per palette_use so that the per-cell calls only look up.
 * Never calls init_color, never draws, never uses indices 0–15 for a colour
 * ramp (the 8-colour palette alone uses the 8 basic colours, which is all that
 * terminal has). All tables and the current palette are file-static. */
#include "tui/palette.h"
#include "tui/glyphs.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A table colour meaning "the terminal's own foreground or background". */
#define TERM_DEFAULT (-2)

#define MAX_WEIGHT_STEPS 9
#define MAX_SIGNED_SIDE 4
#define MONO_LEVELS 6

/* One background with the text colour that reads best on it. */
struct ramp_cell {
	short bg;
	short fg;
};

/* One role: attributes and colours (TERM_DEFAULT for the terminal's own). */
struct role_def {
	attr_t attr;
	short fg;
	short bg;
};

enum palette_kind { KIND_256, KIND_8, KIND_MONO };

struct palette_def {
	const char *name;
	enum palette_kind kind;
	bool projector;               /* few steps, bold text */
	const struct ramp_cell *weights;
	int weight_steps;
	const struct ramp_cell *signs; /* 2 * signed_side + 1, most negative first */
	int signed_side;
	const struct role_def *roles;
};

/* How the tables below were made (offline, once):
 * - Backgrounds are xterm-256 indices 16–255: the 6×6×6 cube (levels 0, 95,
 *   135, 175, 215, 255) and the grey ramp 232–255 (8 + 10k).
 * - Text is black (16) or white (231), whichever has the higher WCAG 2 contrast
 *   ratio against the background's sRGB; the ratios are in the comments.
 * - "Nearest" is CIE76 ΔE in CIELAB (D65). */

/* "256" weights: viridis sampled at k/8, k = 0..8 (matplotlib's table):
 * #440154 #472d7b #3b528b #2c728e #21918c #27ad81 #5cc863 #aadc32 #fde725.
 * Each maps to its nearest xterm colour under the constraint that the nine are
 * distinct and strictly increase in L* (the plain nearest gives 53 twice and
 * 60 before 24); least total ΔE. L* 21 24 38 42 51 64 77 81 87, adjacent
 * ΔE ≥ 20. */
static const struct ramp_cell weights_256[] = {
	{ 53, 231 },  /* #5f005f  white 12.7 : black 1.7 */
	{ 54, 231 },  /* #5f0087  white 11.4 : black 1.8 */
	{ 24, 231 },  /* #005f87  white 7.0  : black 3.0 */
	{ 60, 231 },  /* #5f5f87  white 6.0  : black 3.5 */
	{ 30, 16 },   /* #008787  black 4.8  : white 4.4 */
	{ 36, 16 },   /* #00af87  black 7.5  : white 2.8 */
	{ 77, 16 },   /* #5fd75f  black 11.4 : white 1.8 */
	{ 148, 16 },  /* #afd700  black 12.5 : white 1.7 */
	{ 220, 16 },  /* #ffd700  black 15.0 : white 1.4 */
};

/* "256" signed: a light neutral grey, then four steps each side darkening
 * outward; blue (hue ≈ 240–280) below zero, orange (hue ≈ 55–70) above. Picked
 * from the cube at matched L*: blue 84 70 54 40, orange 88 69 55 49. Never red
 * or green. */
static const struct ramp_cell signs_256[] = {
	{ 25, 231 },  /* #005faf  white 6.4  : black 3.3 */
	{ 32, 16 },   /* #0087d7  black 5.4  : white 3.9 */
	{ 75, 16 },   /* #5fafff  black 9.1  : white 2.3 */
	{ 153, 16 },  /* #afd7ff  black 14.0 : white 1.5 */
	{ 254, 16 },  /* #e4e4e4  black 16.5 : white 1.3 (zero) */
	{ 223, 16 },  /* #ffd7af  black 15.6 : white 1.3 */
	{ 208, 16 },  /* #ff8700  black 8.7  : white 2.4 */
	{ 166, 16 },  /* #d75f00  black 5.5  : white 3.8 */
	{ 130, 231 }, /* #af5f00  white 4.7  : black 4.5 */
};

/* "projector-dark" weights: violet → blue → teal → green → yellow rising from a
 * dark screen; L* 24 43 65 79 97, adjacent ΔE ≥ 40 so a washed-out projector
 * still separates them. */
static const struct ramp_cell weights_projector_dark[] = {
	{ 54, 231 },  /* #5f0087  white 11.4 : black 1.8 */
	{ 26, 231 },  /* #005fd7  white 5.8  : black 3.6 */
	{ 37, 16 },   /* #00afaf  black 7.8  : white 2.7 */
	{ 113, 16 },  /* #87d75f  black 11.9 : white 1.8 */
	{ 226, 16 },  /* #ffff00  black 19.6 : white 1.1 */
};

/* "projector-light" weights: white → pale yellow → orange → red-brown → dark
 * maroon on a light screen (after ColorBrewer YlOrBr); L* 100 88 68 49 18,
 * adjacent ΔE ≥ 29. */
static const struct ramp_cell weights_projector_light[] = {
	{ 231, 16 },  /* #ffffff  black 21.0 */
	{ 222, 16 },  /* #ffd787  black 15.3 : white 1.4 */
	{ 208, 16 },  /* #ff8700  black 8.7  : white 2.4 */
	{ 130, 231 }, /* #af5f00  white 4.7  : black 4.5 */
	{ 52, 231 },  /* #5f0000  white 14.1 : black 1.5 */
};

/* Projector signed: two steps each side around a near-white zero; L* 40 82 94
 * 78 55, adjacent ΔE ≥ 33. */
static const struct ramp_cell signs_projector[] = {
	{ 25, 231 },  /* #005faf  white 6.4  : black 3.3 */
	{ 117, 16 },  /* #87d7ff  black 13.2 : white 1.6 */
	{ 255, 16 },  /* #eeeeee  black 18.1 (zero) */
	{ 215, 16 },  /* #ffaf5f  black 11.5 : white 1.8 */
	{ 166, 16 },  /* #d75f00  black 5.5  : white 3.8 */
};

/* "8" weights, rising in lightness: black → blue → magenta → yellow → white
 * (xterm's defaults: L* 0 30 49 80 91; text ratios 16.7 7.5 4.5 12.3 16.7). */
static const struct ramp_cell weights_8[] = {
	{ COLOR_BLACK, COLOR_WHITE },
	{ COLOR_BLUE, COLOR_WHITE },
	{ COLOR_MAGENTA, COLOR_BLACK },
	{ COLOR_YELLOW, COLOR_BLACK },
	{ COLOR_WHITE, COLOR_BLACK },
};

/* "8" signed: blue below zero, black around it, yellow above. */
static const struct ramp_cell signs_8[] = {
	{ COLOR_BLUE, COLOR_WHITE },
	{ COLOR_BLACK, COLOR_WHITE },
	{ COLOR_YELLOW, COLOR_BLACK },
};

/* "256" roles. Foregrounds on the terminal's own background have a relative
 * luminance near 0.18, so they read on dark and light themes alike: 30 #008787
 * (4.8 on black, 4.4 on white), 243 #767676 (4.6, 4.5), 164 #d700d7 (4.9, 4.3).
 * Pairs: 16 on 117 13.2, 16 on 220 15.0, 250 on 238 5.1, 252 on 236 8.6,
 * 231 on 124 7.4, 222 on 236 9.6. */
static const struct role_def roles_256[ROLE_COUNT] = {
	[ROLE_NORMAL] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { 0, 30, TERM_DEFAULT },
	[ROLE_DIM] = { 0, 243, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD, 16, 117 },
	[ROLE_CURSOR] = { A_REVERSE | A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_UNDERLINE, 16, 220 },
	[ROLE_MOVED] = { A_BOLD | A_UNDERLINE, 164, TERM_DEFAULT },
	[ROLE_MASKED] = { 0, 250, 238 },
	[ROLE_STATUS] = { 0, 252, 236 },
	[ROLE_ERROR] = { A_BOLD, 231, 124 },
	[ROLE_KEY] = { A_BOLD, 222, 236 },
};

/* Projector roles: everything bold except the dim role, which is plain text
 * (a grey or A_DIM would vanish on a projector). 231 on 236 13.2, 226 on 236
 * 12.3, 252 on 238 6.3. */
static const struct role_def roles_projector[ROLE_COUNT] = {
	[ROLE_NORMAL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_DIM] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD, 16, 117 },
	[ROLE_CURSOR] = { A_REVERSE | A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_UNDERLINE, 16, 220 },
	[ROLE_MOVED] = { A_BOLD | A_UNDERLINE, 164, TERM_DEFAULT },
	[ROLE_MASKED] = { A_BOLD, 252, 238 },
	[ROLE_STATUS] = { A_BOLD, 231, 236 },
	[ROLE_ERROR] = { A_BOLD, 231, 124 },
	[ROLE_KEY] = { A_BOLD, 226, 236 },
};

/* "8" roles: only colour pairs with a fixed background, so a light or dark
 * theme cannot hide the text (white on blue 7.5, yellow on blue 5.5, white on
 * red 4.6, black on cyan 10.6, black on yellow 12.3). */
static const struct role_def roles_8[ROLE_COUNT] = {
	[ROLE_NORMAL] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_DIM] = { A_DIM, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD, COLOR_BLACK, COLOR_CYAN },
	[ROLE_CURSOR] = { A_REVERSE | A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_UNDERLINE, COLOR_BLACK, COLOR_YELLOW },
	[ROLE_MOVED] = { A_BOLD | A_UNDERLINE, COLOR_MAGENTA, TERM_DEFAULT },
	[ROLE_MASKED] = { A_DIM, COLOR_WHITE, COLOR_BLACK },
	[ROLE_STATUS] = { 0, COLOR_WHITE, COLOR_BLUE },
	[ROLE_ERROR] = { A_BOLD, COLOR_WHITE, COLOR_RED },
	[ROLE_KEY] = { A_BOLD, COLOR_YELLOW, COLOR_BLUE },
};

/* "mono" roles: attributes only. */
static const struct role_def roles_mono[ROLE_COUNT] = {
	[ROLE_NORMAL] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_DIM] = { A_DIM, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_CURSOR] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_REVERSE | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_MOVED] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_MASKED] = { A_DIM, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_STATUS] = { A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_ERROR] = { A_BOLD | A_REVERSE | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_KEY] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
};

/* Shades for monochrome, lightest to darkest, come from glyphs_shade: space,
 * middle dot, ░ ▒ ▓ █ (ASCII: space : = # % @). */

#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* In the order of palette.h. */
static const struct palette_def palettes[] = {
	{ "256", KIND_256, false, weights_256, LEN(weights_256),
	  signs_256, LEN(signs_256) / 2, roles_256 },
	{ "8", KIND_8, false, weights_8, LEN(weights_8),
	  signs_8, LEN(signs_8) / 2, roles_8 },
	{ "mono", KIND_MONO, false, NULL, MONO_LEVELS, NULL, 0, roles_mono },
	{ "projector-dark", KIND_256, true, weights_projector_dark,
	  LEN(weights_projector_dark), signs_projector, LEN(signs_projector) / 2,
	  roles_projector },
	{ "projector-light", KIND_256, true, weights_projector_light,
	  LEN(weights_projector_light), signs_projector, LEN(signs_projector) / 2,
	  roles_projector },
};

enum { PALETTE_256, PALETTE_8, PALETTE_MONO, PALETTE_PROJECTOR_DARK };

_Static_assert(LEN(weights_256) <= MAX_WEIGHT_STEPS && MONO_LEVELS <= MAX_WEIGHT_STEPS,
	"a weight ramp is longer than the cache");
_Static_assert(LEN(signs_256) == 2 * MAX_SIGNED_SIDE + 1, "signed ramps are 2 · side + 1 long");

/* The current palette, with every style it can hand out already built. */
static struct {
	bool ready;
	int index;          /* as asked for */
	bool projector;     /* as asked for */
	int shown;          /* the palette actually in use after degrading */
	int colours;        /* COLORS when it was built */
	bool mono;
	bool bold;          /* A_BOLD on ramp text */
	int weight_steps;
	int signed_side;
	struct cell_style roles[ROLE_COUNT];
	struct cell_style weights[MAX_WEIGHT_STEPS];
	struct cell_style signs[2 * MAX_SIGNED_SIDE + 1];
	/* Half-block cells "▀": the upper step as the text colour, the lower as the
	 * background, so one character shows two rows of a large grid. */
	struct cell_style weight_halves[MAX_WEIGHT_STEPS][MAX_WEIGHT_STEPS];
	struct cell_style sign_halves[2 * MAX_SIGNED_SIDE + 1][2 * MAX_SIGNED_SIDE + 1];
} current;

int palette_count(void)
{
	return LEN(palettes);
}

const char *palette_name(int index)
{
	if (index < 0 || index >= LEN(palettes))
		return NULL;
	return palettes[index].name;
}

int palette_find(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < LEN(palettes); i++)
		if (strcmp(palettes[i].name, name) == 0)
			return i;
	return -1;
}

int palette_default(void)
{
	const char *no_color = getenv("NO_COLOR");

	if ((no_color != NULL && no_color[0] != '\0') || !has_colors() || COLORS < 8)
		return PALETTE_MONO;
	if (COLORS < 256)
		return PALETTE_8;
	return PALETTE_256;
}

/* The palette the terminal can show for a request: 256-colour palettes fall
 * back to "8", "8" to "mono". */
static int palette_shown(int index, bool projector)
{
	if (projector && index == PALETTE_256)
		index = PALETTE_PROJECTOR_DARK;
	if (palettes[index].kind == KIND_256 && (!has_colors() || COLORS < 256))
		index = PALETTE_8;
	if (palettes[index].kind == KIND_8 && (!has_colors() || COLORS < 8))
		index = PALETTE_MONO;
	return index;
}

/* A table colour as the terminal takes it: TERM_DEFAULT becomes pair 0's colour
 * (-1 once use_default_colors is on); on a direct-colour terminal (COLORS above
 * 256, colours are 24-bit RGB) an xterm index becomes its RGB value. */
static int palette_colour(short colour, int term_default)
{
	static const int cube_levels[6] = { 0, 95, 135, 175, 215, 255 };
	int r, g, b, rgb;

	if (colour == TERM_DEFAULT)
		return term_default;
	if (COLORS <= 256 || colour < 16)
		return colour;
	if (colour >= 232) {
		r = g = b = 8 + 10 * (colour - 232);
	} else {
		r = cube_levels[(colour - 16) / 36];
		g = cube_levels[(colour - 16) / 6 % 6];
		b = cube_levels[(colour - 16) % 6];
	}
	rgb = r << 16 | g << 8 | b;
	return rgb < 8 ? 8 : rgb;   /* there, 0–7 are the ANSI colours, not RGB */
}

/* A colour pair for fg on bg, or 0 when both are the terminal's own or no pair
 * can be had. */
static int palette_pair(short fg, short bg)
{
	int default_fg = -1, default_bg = -1;
	int pair;

	if (fg == TERM_DEFAULT && bg == TERM_DEFAULT)
		return 0;
	if (extended_pair_content(0, &default_fg, &default_bg) == ERR) {
		default_fg = -1;
		default_bg = -1;
	}
	pair = alloc_pair(palette_colour(fg, default_fg), palette_colour(bg, default_bg));
	return pair < 0 ? 0 : pair;
}

/* A ramp cell's style: its pair, bold text in projector mode, no glyph. */
static struct cell_style palette_ramp_style(const struct ramp_cell *cell, bool bold)
{
	struct cell_style style = { bold ? A_BOLD : A_NORMAL, 0, "" };

	style.pair = palette_pair(cell->fg, cell->bg);
	return style;
}

void palette_use(int index, bool projector)
{
	const struct palette_def *def;
	int shown;

	if (index < 0 || index >= LEN(palettes))
		index = palette_default();
	shown = palette_shown(index, projector);
	if (current.ready && current.index == index && current.projector == projector
	    && current.shown == shown && current.colours == COLORS)
		return;

	def = &palettes[shown];
	current.index = index;
	current.projector = projector;
	current.shown = shown;
	current.colours = COLORS;
	current.mono = def->kind == KIND_MONO;
	current.bold = palettes[index].projector || def->projector || projector;
	current.weight_steps = def->weight_steps;
	current.signed_side = def->signed_side;

	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct role_def *role = &def->roles[r];
		struct cell_style style = { role->attr, 0, "" };

		if (current.bold && !def->projector && r != ROLE_DIM)
			style.attr |= A_BOLD;
		if (!current.mono)
			style.pair = palette_pair(role->fg, role->bg);
		current.roles[r] = style;
	}
	for (int k = 0; k < current.weight_steps; k++) {
		if (current.mono) {
			current.weights[k] = (struct cell_style){
				current.bold ? A_BOLD : A_NORMAL, 0, glyphs_shade(k) };
		} else {
			current.weights[k] = palette_ramp_style(&def->weights[k], current.bold);
		}
	}
	for (int k = 0; k < 2 * current.signed_side + 1 && !current.mono; k++)
		current.signs[k] = palette_ramp_style(&def->signs[k], current.bold);
	for (int u = 0; u < current.weight_steps && !current.mono; u++)
		for (int l = 0; l < current.weight_steps; l++)
			current.weight_halves[u][l] = (struct cell_style){
				A_NORMAL, palette_pair(def->weights[u].bg, def->weights[l].bg), "▀" };
	for (int u = 0; u < 2 * current.signed_side + 1 && !current.mono; u++)
		for (int l = 0; l < 2 * current.signed_side + 1; l++)
			current.sign_halves[u][l] = (struct cell_style){
				A_NORMAL, palette_pair(def->signs[u].bg, def->signs[l].bg), "▀" };
	current.ready = true;
}

struct cell_style palette_role(enum palette_role role)
{
	struct cell_style plain = { A_NORMAL, 0, "" };

	if (!current.ready || (int)role < 0 || role >= ROLE_COUNT)
		return plain;
	return current.roles[role];
}

/* Step k of n equal bins over [0, 1]: floor(x · n), clamped; NaN is 0. */
static int palette_bin(double x, int n)
{
	int k;

	if (!(x > 0.0))
		return 0;
	if (x >= 1.0)
		return n - 1;
	k = (int)(x * n);   /* x · n can round up to n */
	return k < n ? k : n - 1;
}

struct cell_style palette_weight(double weight)
{
	struct cell_style plain = { A_NORMAL, 0, "" };

	if (!current.ready || current.weight_steps <= 0)
		return plain;
	return current.weights[palette_bin(weight, current.weight_steps)];
}

/* The signed ramp's step for value / limit: 2·side + 1 equal bins over [−1, 1]. */
static int palette_signed_level(double value, double limit)
{
	int side = current.signed_side, level;
	double t = limit > 0.0 ? value / limit : 0.0, magnitude;

	if (isnan(t))
		t = 0.0;
	t = t < -1.0 ? -1.0 : t > 1.0 ? 1.0 : t;
	magnitude = t < 0.0 ? -t : t;
	level = (int)(magnitude * (2 * side + 1) / 2.0 + 0.5);
	if (level > side)
		level = side;
	return side + (t < 0.0 ? -level : level);
}

struct cell_style palette_weight_halves(double upper, double lower)
{
	struct cell_style plain = { A_NORMAL, 0, "▀" };

	if (!current.ready || current.mono || current.weight_steps <= 0)
		return plain;
	return current.weight_halves[palette_bin(upper, current.weight_steps)]
				    [palette_bin(lower, current.weight_steps)];
}

struct cell_style palette_signed_halves(double upper, double lower, double limit)
{
	struct cell_style plain = { A_NORMAL, 0, "▀" };

	if (!current.ready || current.mono)
		return plain;
	return current.sign_halves[palette_signed_level(upper, limit)][palette_signed_level(lower, limit)];
}

struct cell_style palette_signed(double value, double limit)
{
	struct cell_style plain = { A_NORMAL, 0, "" };
	double magnitude;

	if (!current.ready)
		return plain;
	if (current.mono) {
		magnitude = limit > 0.0 ? fabs(value / limit) : 0.0;
		plain.attr = current.bold ? A_BOLD : A_NORMAL;
		plain.glyph = glyphs_shade(palette_bin(magnitude > 1.0 ? 1.0 : magnitude, MONO_LEVELS));
		return plain;
	}
	return current.signs[palette_signed_level(value, limit)];
}

int palette_steps(void)
{
	return current.ready ? current.weight_steps : 0;
}

bool palette_monochrome(void)
{
	return !current.ready || current.mono;
}

void palette_apply(WINDOW *w, struct cell_style style)
{
	short legacy_pair = (short)(style.pair <= SHRT_MAX ? style.pair : 0);

	wattr_set(w, style.attr, legacy_pair, &style.pair);
}
