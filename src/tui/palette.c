/* palette.c — the interface's colours on this terminal. The ramps are the exact
 * sRGB values of qkv/colour.h; here they become colour pairs once per palette_use
 * (so the per-cell calls only look up): in 24-bit colour, as xterm-256 indices
 * (nearest in CIELAB among those that carry text at the palette's contrast), or
 * as the eight basic colours with shading glyphs. Roles of text are xterm indices
 * whose RGB is the same in every mode. Never calls init_color, never draws except
 * palette_flush's repaint of ramp cells in 24-bit mode. All state is file-static. */
#include "tui/palette.h"
#include "tui/glyphs.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "qkv/colour.h"
#include "qkv/text.h"

/* A table colour meaning "the terminal's own foreground or background". */
#define TERM_DEFAULT (-2)

#define MAX_WEIGHT_STEPS 6
#define MAX_SIGNED_STEPS 7
#define MONO_LEVELS 6
#define MAX_PAIRS 256

/* One role: attributes and xterm colours (TERM_DEFAULT for the terminal's own). */
struct role_def {
	attr_t attr;
	short fg;
	short bg;
};

/* Roles in 256 and 24-bit colour. Foregrounds on the terminal's own background
 * read at 4.5:1 on black and on white alike: 29 #00875f (4.63, 4.53), 243 #767676
 * (4.62, 4.54), 163 #d700af (4.51, 4.66). Pairs: 16 on 117 13.2, 16 on 220 15.0,
 * 252 on 236 8.6, 231 on 124 7.4, 222 on 236 9.6, 231 on 240 7.1, 16 on 225
 * 17.4. The selected stage keeps reverse video; the selected cell does not. */
static const struct role_def roles_256[ROLE_COUNT] = {
	[ROLE_NORMAL] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { 0, 29, TERM_DEFAULT },
	[ROLE_DIM] = { 0, 243, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD, 16, 117 },
	[ROLE_CURSOR] = { A_REVERSE | A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_UNDERLINE, 16, 220 },
	[ROLE_MOVED] = { A_BOLD, 16, 225 },
	[ROLE_MASKED] = { 0, 231, 240 },
	[ROLE_STATUS] = { 0, 252, 236 },
	[ROLE_ERROR] = { A_BOLD, 231, 124 },
	[ROLE_KEY] = { A_BOLD, 222, 236 },
};

/* Projector roles: everything bold except the dim role, which is plain text
 * (a grey or A_DIM would vanish on a projector). 231 on 236 13.2, 226 on 236
 * 12.3, 231 on 240 7.1. */
static const struct role_def roles_projector[ROLE_COUNT] = {
	[ROLE_NORMAL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_DIM] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD, 16, 117 },
	[ROLE_CURSOR] = { A_REVERSE | A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_UNDERLINE, 16, 220 },
	[ROLE_MOVED] = { A_BOLD, 16, 225 },
	[ROLE_MASKED] = { A_BOLD, 231, 240 },
	[ROLE_STATUS] = { A_BOLD, 231, 236 },
	[ROLE_ERROR] = { A_BOLD, 231, 124 },
	[ROLE_KEY] = { A_BOLD, 226, 236 },
};

/* Eight colours: only pairs with a fixed background, so a light or dark theme
 * cannot hide the text (xterm's values: white on blue 7.5, yellow on blue 5.5,
 * white on red 4.6, black on cyan 10.6, black on yellow 12.3, black on green
 * 9.8). Black text is never bold (many terminals draw bold black as grey). The
 * masked cells are green: no step of either eight-colour ramp. */
static const struct role_def roles_8[ROLE_COUNT] = {
	[ROLE_NORMAL] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_DIM] = { A_DIM, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_UNDERLINE, COLOR_BLACK, COLOR_CYAN },
	[ROLE_CURSOR] = { A_REVERSE | A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_UNDERLINE, COLOR_BLACK, COLOR_YELLOW },
	[ROLE_MOVED] = { A_BOLD, COLOR_WHITE, COLOR_MAGENTA },
	[ROLE_MASKED] = { 0, COLOR_BLACK, COLOR_GREEN },
	[ROLE_STATUS] = { 0, COLOR_WHITE, COLOR_BLUE },
	[ROLE_ERROR] = { A_BOLD, COLOR_WHITE, COLOR_RED },
	[ROLE_KEY] = { A_BOLD, COLOR_YELLOW, COLOR_BLUE },
};

/* Monochrome: attributes only. */
static const struct role_def roles_mono[ROLE_COUNT] = {
	[ROLE_NORMAL] = { 0, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_TITLE] = { A_BOLD | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_LABEL] = { A_BOLD, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_DIM] = { A_DIM, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_FOCUS] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_CURSOR] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_EDIT] = { A_BOLD | A_REVERSE | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_MOVED] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_MASKED] = { A_DIM, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_STATUS] = { A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_ERROR] = { A_BOLD | A_REVERSE | A_UNDERLINE, TERM_DEFAULT, TERM_DEFAULT },
	[ROLE_KEY] = { A_BOLD | A_REVERSE, TERM_DEFAULT, TERM_DEFAULT },
};

/* Shades, lightest to darkest, come from glyphs_shade: space, middle dot, ░ ▒ ▓ █
 * (ASCII: space : = # % @), in mono and beside the eight colours' steps, so that
 * neighbouring steps differ twice. */

/* A colour as the terminal takes it, and what it stands for in 24-bit mode. */
struct term_colour {
	int index;   /* xterm index, or a 24-bit value on a direct-colour terminfo, or -1 */
	long rgb;    /* 0xRRGGBB exact, or -1 for the terminal's own */
};

/* A pair allocated in 24-bit mode over a 256-colour terminfo, and the exact
 * colours its cells get in palette_flush (rgb -1: none, leave the cell as is). */
struct exact_pair {
	long fg, bg;
};

static struct {
	bool depth_set;
	enum palette_depth depth;
	bool direct;           /* terminfo is direct-colour: ncurses takes 24-bit values */
	bool limited;          /* fewer colours than asked for or detected */
	bool ready;
	int index;             /* palette as asked for */
	bool projector;
	int shown;             /* the qkv palette whose ramps are drawn */
	bool mono;
	bool eight;            /* basic colours: glyphs beside the ramp colours */
	bool bold;             /* A_BOLD on ramp text */
	int weight_steps;
	int signed_steps;
	int pairs_used;        /* pairs numbered here (24-bit over 256) */
	struct exact_pair exact[MAX_PAIRS];
	struct cell_style roles[ROLE_COUNT];
	struct cell_style weights[MAX_WEIGHT_STEPS];
	struct cell_style signs[MAX_SIGNED_STEPS];
	struct cell_style weight_halves[MAX_WEIGHT_STEPS][MAX_WEIGHT_STEPS];
	struct cell_style sign_halves[MAX_SIGNED_STEPS][MAX_SIGNED_STEPS];
	struct cell_style heads[8]; /* the heads' colours */
	struct cell_style key_point; /* the geometry view's keys (queries: ROLE_LABEL) */
	struct cell_style tint;   /* the selected uncoloured cell's background */
	struct cell_style tint_bar, moved_bar;   /* frames: selected, moved */
	int ramp_pairs[MAX_WEIGHT_STEPS + MAX_SIGNED_STEPS];   /* pairs of heat colours */
	int ramp_count;
	char notice[96];
} current;

int palette_count(void)
{
	return QKV_PALETTE_COUNT;
}

int palette_find(const char *name)
{
	return qkv_colour_palette_find(name);
}

int palette_default(void)
{
	return QKV_PALETTE_VIRIDIS;
}

/* 24-bit colour through a 256-colour terminfo needs a pair per colour
 * combination (palette_flush finds cells by pair). */
static bool can_number_pairs(void)
{
	return COLORS >= 256 && COLOR_PAIRS >= MAX_PAIRS;
}

int palette_set_depth(const char *forced)
{
	const char *no_color = getenv("NO_COLOR"), *colorterm = getenv("COLORTERM");
	enum palette_depth want, can;
	bool truecolour_env = colorterm != NULL &&
			      (strcmp(colorterm, "truecolor") == 0 || strcmp(colorterm, "24bit") == 0);

	current.direct = has_colors() && COLORS > 256;
	if (!has_colors() || COLORS < 8)
		can = DEPTH_MONO;
	else if (current.direct || can_number_pairs())
		can = DEPTH_TRUECOLOR;
	else if (COLORS >= 256)
		can = DEPTH_256;
	else
		can = DEPTH_8;

	if (forced == NULL || strcmp(forced, "auto") == 0)
		want = current.direct || truecolour_env ? DEPTH_TRUECOLOR : COLORS >= 256 ? DEPTH_256 : DEPTH_8;
	else if (strcmp(forced, "truecolor") == 0)
		want = DEPTH_TRUECOLOR;
	else if (strcmp(forced, "256") == 0)
		want = DEPTH_256;
	else if (strcmp(forced, "8") == 0)
		want = DEPTH_8;
	else if (strcmp(forced, "mono") == 0)
		want = DEPTH_MONO;
	else
		return -1;
	if (no_color != NULL && no_color[0] != '\0')
		want = DEPTH_MONO;
	current.limited = want > can || (want == DEPTH_8 && (forced == NULL || strcmp(forced, "auto") == 0));
	current.depth = want < can ? want : can;
	/* A direct-colour terminfo has no 256-colour indices to fall back to. */
	if (current.direct && current.depth == DEPTH_256)
		current.depth = DEPTH_TRUECOLOR;
	current.depth_set = true;
	current.ready = false;
	return 0;
}

enum palette_depth palette_depth(void)
{
	if (!current.depth_set)
		palette_set_depth(NULL);
	return current.depth;
}

const char *palette_notice(void)
{
	if (!current.depth_set || !current.limited || current.depth != DEPTH_8)
		return NULL;
	snprintf(current.notice, sizeof current.notice,
		 "this terminal reports %d colours; for the full scales try TERM=xterm-256color", COLORS);
	return current.notice;
}

static long rgb_long(struct qkv_rgb c)
{
	return (long)c.r << 16 | (long)c.g << 8 | c.b;
}

/* Exact colours on this terminal: each one's 24-bit value on a direct-colour
 * terminfo, else the nearest xterm colour (16–255, or 0–7 with eight colours)
 * among those that carry text at `need` (found for all of them at once). */
static void term_exact(const struct qkv_rgb *c, int count, double need, struct term_colour *out)
{
	int nearest[MAX_SIGNED_STEPS > MAX_WEIGHT_STEPS ? MAX_SIGNED_STEPS : MAX_WEIGHT_STEPS] = { 0 };

	if (count > (int)(sizeof nearest / sizeof nearest[0]))
		count = (int)(sizeof nearest / sizeof nearest[0]);
	if (current.eight)
		qkv_colour_nearest_xterms(c, count, 0, 7, 0.0, nearest);
	else if (!current.direct)
		qkv_colour_nearest_xterms(c, count, 16, 255, need, nearest);
	for (int i = 0; i < count; i++) {
		out[i] = (struct term_colour){ -1, rgb_long(c[i]) };
		if (current.direct && !current.eight)
			out[i].index = (int)(out[i].rgb < 8 ? 8 : out[i].rgb);   /* 0–7 are the ANSI colours there */
		else
			out[i].index = nearest[i];
	}
}

/* A role's xterm index on this terminal (TERM_DEFAULT stays the terminal's own). */
static struct term_colour term_index(short colour)
{
	struct qkv_rgb c;

	if (colour == TERM_DEFAULT)
		return (struct term_colour){ -1, -1 };
	c = qkv_colour_xterm(colour);
	if (current.direct && colour >= 16)
		return (struct term_colour){ (int)(rgb_long(c) < 8 ? 8 : rgb_long(c)), rgb_long(c) };
	return (struct term_colour){ colour, rgb_long(c) };
}

/* A colour pair for fg on bg, or 0 when both are the terminal's own or no pair
 * can be had. In 24-bit mode over a 256-colour terminfo the pairs are numbered
 * here, one per use, and remember the exact colours their cells stand for; else
 * alloc_pair shares them. */
static int make_pair(struct term_colour fg, struct term_colour bg)
{
	int pair;

	if (fg.index < 0 && bg.index < 0)
		return 0;
	if (current.depth == DEPTH_TRUECOLOR && !current.direct) {
		if (current.pairs_used + 1 >= MAX_PAIRS)
			return 0;
		pair = ++current.pairs_used;
		if (init_extended_pair(pair, fg.index, bg.index) == ERR)
			return 0;
		current.exact[pair].fg = fg.rgb;
		current.exact[pair].bg = bg.rgb;
		/* Roles are xterm colours already: nothing to repaint. */
		if ((fg.index < 0 || rgb_long(qkv_colour_xterm(fg.index)) == fg.rgb) &&
		    (bg.index < 0 || rgb_long(qkv_colour_xterm(bg.index)) == bg.rgb))
			current.exact[pair].fg = current.exact[pair].bg = -2;
		return pair;
	}
	pair = alloc_pair(fg.index, bg.index);
	return pair < 0 ? 0 : pair;
}

/* A ramp step's style: the colour, black or white text (the higher contrast on
 * the colour as the terminal shows it), bold in projector mode (never on black
 * text with eight colours: it turns grey), and with eight colours a glyph. */
static struct cell_style ramp_style(struct qkv_rgb bg, struct term_colour back, int glyph)
{
	struct qkv_rgb shown = current.depth == DEPTH_TRUECOLOR && !current.eight ? bg : qkv_colour_xterm(back.index);
	struct qkv_rgb dark = current.eight ? qkv_colour_xterm(COLOR_BLACK) : qkv_colour_xterm(16);
	struct qkv_rgb light = current.eight ? qkv_colour_xterm(COLOR_WHITE) : qkv_colour_xterm(231);
	struct qkv_rgb text = qkv_colour_text_on(shown, dark, light);
	bool light_text = text.r == light.r && text.g == light.g && text.b == light.b;
	struct term_colour fore;
	struct cell_style style = { A_NORMAL, 0, "" };

	if (current.eight)
		fore = (struct term_colour){ light_text ? COLOR_WHITE : COLOR_BLACK, rgb_long(text) };
	else
		fore = term_index(light_text ? 231 : 16);
	if (current.bold && (light_text || !current.eight))
		style.attr |= A_BOLD;
	if (current.eight && glyph >= 0)
		style.glyph = glyphs_shade(glyph < MONO_LEVELS ? glyph : MONO_LEVELS - 1);
	style.pair = make_pair(fore, back);
	if (current.ramp_count < (int)(sizeof current.ramp_pairs / sizeof current.ramp_pairs[0]))
		current.ramp_pairs[current.ramp_count++] = style.pair;
	return style;
}

void palette_use(int index, bool projector)
{
	const struct role_def *roles;
	struct qkv_ramp weights, signs;
	double need;

	if (!current.depth_set)
		palette_set_depth(NULL);
	if (index < 0 || index >= QKV_PALETTE_COUNT)
		index = palette_default();
	if (current.ready && current.index == index && current.projector == projector)
		return;

	current.index = index;
	current.projector = projector;
	current.shown = index;
	if (index == QKV_PALETTE_VIRIDIS && projector)
		current.shown = QKV_PALETTE_PROJECTOR;
	if (current.depth == DEPTH_8 && current.shown != QKV_PALETTE_MONO)
		current.shown = QKV_PALETTE_EIGHT;
	if (current.depth == DEPTH_MONO)
		current.shown = QKV_PALETTE_MONO;
	current.mono = current.shown == QKV_PALETTE_MONO;
	current.eight = current.shown == QKV_PALETTE_EIGHT;
	current.bold = projector || current.shown == QKV_PALETTE_PROJECTOR;
	current.pairs_used = 0;
	current.ramp_count = 0;
	memset(current.exact, 0xff, sizeof current.exact);   /* every rgb −1 */
	need = current.shown == QKV_PALETTE_PROJECTOR ? QKV_CONTRAST_PROJECTOR : QKV_CONTRAST_TEXT;
	weights = qkv_colour_weights(current.shown);
	signs = qkv_colour_signed(current.shown);
	current.weight_steps = current.mono ? MONO_LEVELS : weights.count < MAX_WEIGHT_STEPS ? weights.count
										     : MAX_WEIGHT_STEPS;
	current.signed_steps = signs.count < MAX_SIGNED_STEPS ? signs.count : MAX_SIGNED_STEPS;

	roles = current.mono ? roles_mono : current.eight ? roles_8
		: current.bold ? roles_projector : roles_256;
	for (int r = 0; r < ROLE_COUNT; r++) {
		struct cell_style style = { roles[r].attr, 0, "" };

		if (current.bold && roles != roles_projector && r != ROLE_DIM &&
		    !(current.eight && roles[r].fg == COLOR_BLACK))
			style.attr |= A_BOLD;
		if (!current.mono) {
			struct term_colour fg = term_index(roles[r].fg), bg = term_index(roles[r].bg);
			if (current.eight) {
				fg.rgb = bg.rgb = -1;
			}
			style.pair = make_pair(fg, bg);
		}
		current.roles[r] = style;
	}
	if (current.mono) {
		for (int k = 0; k < MONO_LEVELS; k++)
			current.weights[k] = (struct cell_style){ current.bold ? A_BOLD : A_NORMAL, 0,
								  glyphs_shade(k) };
	} else {
		/* Each step's terminal colour once: the steps and the halves (every step
		 * with every other) share them. */
		struct term_colour weight_exact[MAX_WEIGHT_STEPS], sign_exact[MAX_SIGNED_STEPS];

		term_exact(weights.steps, weights.count < MAX_WEIGHT_STEPS ? weights.count : MAX_WEIGHT_STEPS,
			   need, weight_exact);
		term_exact(signs.steps, signs.count < MAX_SIGNED_STEPS ? signs.count : MAX_SIGNED_STEPS, need,
			   sign_exact);
		for (int k = 0; k < weights.count && k < MAX_WEIGHT_STEPS; k++)
			current.weights[k] = ramp_style(weights.steps[k], weight_exact[k], k);
		for (int k = 0; k < signs.count && k < MAX_SIGNED_STEPS; k++)
			current.signs[k] = ramp_style(signs.steps[k], sign_exact[k], -1);
		for (int u = 0; u < weights.count && u < MAX_WEIGHT_STEPS; u++)
			for (int l = 0; l < weights.count && l < MAX_WEIGHT_STEPS; l++)
				current.weight_halves[u][l] = (struct cell_style){ A_NORMAL,
					make_pair(weight_exact[u], weight_exact[l]), "▀" };
		for (int u = 0; u < signs.count && u < MAX_SIGNED_STEPS; u++)
			for (int l = 0; l < signs.count && l < MAX_SIGNED_STEPS; l++)
				current.sign_halves[u][l] = (struct cell_style){ A_NORMAL,
					make_pair(sign_exact[u], sign_exact[l]), "▀" };
	}
	{
		/* Hues apart from the ramps' (blue, orange, green, purple, …), black text
		 * on each; eight colours: the basic ones with white or black text. */
		static const short xterm[8] = { 75, 214, 114, 177, 222, 210, 80, 250 };
		static const int basic[8] = { COLOR_BLUE, COLOR_YELLOW, COLOR_GREEN, COLOR_MAGENTA,
						COLOR_CYAN, COLOR_RED, COLOR_WHITE, COLOR_BLUE };
		for (int i = 0; i < 8; i++) {
			struct cell_style style = { A_BOLD, 0, "" };

			if (current.mono) {
				style.attr = A_BOLD | A_UNDERLINE;
			} else if (current.eight) {
				bool dark = basic[i] == COLOR_BLUE || basic[i] == COLOR_MAGENTA || basic[i] == COLOR_RED;
				style.pair = make_pair((struct term_colour){ dark ? COLOR_WHITE : COLOR_BLACK, -1 },
						       (struct term_colour){ basic[i], -1 });
				if (!dark)
					style.attr = A_NORMAL; /* bold black turns grey with eight colours */
			} else {
				style.pair = make_pair(term_index(16), term_index(xterm[i]));
			}
			current.heads[i] = style;
		}
	}
	/* Keys in the geometry view: magenta #d700af on the terminal's own background
	 * (4.5:1 on black and on white, as ROLE_LABEL's teal for the queries); eight
	 * colours: magenta; mono: bold (the marks tell keys from queries). */
	current.key_point = (struct cell_style){ A_BOLD, 0, "" };
	if (!current.mono) {
		struct term_colour fg = current.eight ? (struct term_colour){ COLOR_MAGENTA, -1 } : term_index(163);
		struct term_colour bg = term_index(TERM_DEFAULT);

		if (current.eight)
			bg.rgb = -1;
		current.key_point = (struct cell_style){ current.bold ? A_BOLD : A_NORMAL, make_pair(fg, bg), "" };
	}
	current.tint = current.roles[ROLE_FOCUS];
	current.tint_bar = current.moved_bar = (struct cell_style){ A_REVERSE, 0, "" };
	if (!current.mono) {
		/* Frames in colours no ramp has, that stand out on a black and on a white
		 * terminal alike: orange-red #ff5f00 (L* 60; magenta with eight colours)
		 * around the selected cell, magenta #d700af (green) around a moved value. */
		struct term_colour orange = current.eight ? (struct term_colour){ COLOR_MAGENTA, -1 } : term_index(202);
		struct term_colour magenta = current.eight ? (struct term_colour){ COLOR_GREEN, -1 } : term_index(163);
		current.tint_bar = (struct cell_style){ A_NORMAL, make_pair(orange, orange), "" };
		current.moved_bar = (struct cell_style){ A_NORMAL, make_pair(magenta, magenta), "" };
	}
	current.ready = true;
}

struct cell_style palette_role(enum palette_role role)
{
	struct cell_style plain = { A_NORMAL, 0, "" };

	if (!current.ready || (int)role < 0 || role >= ROLE_COUNT)
		return plain;
	return current.roles[role];
}

/* The step of a weight as shown (qkv/colour.h: the figures take the same). */
static int weight_step(double weight, int steps)
{
	return qkv_colour_weight_step_of(weight, steps);
}

struct cell_style palette_head(int head)
{
	struct cell_style plain = { A_BOLD, 0, "" };

	if (!current.ready || head < 0)
		return plain;
	return current.heads[head % 8];
}

struct cell_style palette_key_point(void)
{
	struct cell_style plain = { A_BOLD, 0, "" };

	return current.ready ? current.key_point : plain;
}

struct cell_style palette_weight(double weight)
{
	struct cell_style plain = { A_NORMAL, 0, "" };

	if (!current.ready || current.weight_steps <= 0)
		return plain;
	return current.weights[weight_step(weight, current.weight_steps)];
}

struct cell_style palette_weight_halves(double upper, double lower)
{
	struct cell_style plain = { A_NORMAL, 0, "▀" };

	if (!current.ready || current.mono || current.weight_steps <= 0)
		return plain;
	return current.weight_halves[weight_step(upper, current.weight_steps)]
				    [weight_step(lower, current.weight_steps)];
}

struct cell_style palette_signed_halves(double upper, double lower, double limit)
{
	struct cell_style plain = { A_NORMAL, 0, "▀" };
	int side = current.signed_steps / 2;

	if (!current.ready || current.mono || current.signed_steps <= 0)
		return plain;
	return current.sign_halves[qkv_colour_signed_step(upper, limit, side)]
				  [qkv_colour_signed_step(lower, limit, side)];
}

struct cell_style palette_signed(double value, double limit)
{
	struct cell_style plain = { A_NORMAL, 0, "" };
	double magnitude;

	if (!current.ready)
		return plain;
	if (current.mono || current.signed_steps <= 0) {
		magnitude = limit > 0.0 ? fabs(value / limit) : 0.0;
		plain.attr = current.bold ? A_BOLD : A_NORMAL;
		plain.glyph = glyphs_shade(qkv_colour_weight_step(magnitude > 1.0 ? 1.0 : magnitude, MONO_LEVELS));
		return plain;
	}
	return current.signs[qkv_colour_signed_step(value, limit, current.signed_steps / 2)];
}

int palette_steps(void)
{
	return current.ready ? current.weight_steps : 0;
}

int palette_signed_steps(void)
{
	return current.ready && !current.mono ? current.signed_steps : 0;
}

bool palette_monochrome(void)
{
	return !current.ready || current.mono;
}

bool palette_glyphs(void)
{
	return !current.ready || current.mono || current.eight;
}

/* Is this pair a ramp step's (a heat colour) rather than plain or a role's? */
static bool heat_coloured(int pair)
{
	for (int i = 0; i < current.ramp_count; i++)
		if (pair != 0 && current.ramp_pairs[i] == pair)
			return true;
	return false;
}

struct cell_style palette_selected(struct cell_style style)
{
	bool coloured = heat_coloured(style.pair);

	/* Bold black turns grey on many eight-colour terminals: underline there. */
	style.attr = (style.attr & ~A_REVERSE) | (current.eight ? A_UNDERLINE : A_BOLD);
	if (current.mono)
		style.attr |= A_UNDERLINE;
	else if (!coloured && style.pair != current.roles[ROLE_MOVED].pair) {
		style.pair = current.tint.pair;
		/* The tint's text is black: never bold with eight colours. */
		if (current.eight)
			style.attr &= ~A_BOLD;
	}
	return style;
}

struct cell_style palette_moved(struct cell_style style)
{
	bool coloured = heat_coloured(style.pair);

	if (current.mono || !coloured) {
		struct cell_style moved = current.roles[ROLE_MOVED];
		moved.glyph = style.glyph;
		style = moved;
	} else {
		style.attr |= current.eight ? A_UNDERLINE : A_BOLD;
	}
	return style;
}

struct cell_style palette_frame(enum cell_frame frame)
{
	if (frame == FRAME_MOVED)
		return current.moved_bar;
	return current.tint_bar;
}

void palette_apply(WINDOW *w, struct cell_style style)
{
	short legacy_pair = (short)(style.pair <= SHRT_MAX ? style.pair : 0);

	wattr_set(w, style.attr, legacy_pair, &style.pair);
}

/* ---- 24-bit colour over a 256-colour terminfo --------------------------------------
 *
 * ncurses draws 24-bit colour only with a direct-colour terminfo entry (RGB, e.g.
 * xterm-direct), which most systems do not install and which TERM rarely names,
 * while COLORTERM=truecolor is what terminals actually announce. Rewriting
 * ncurses' output stream is fragile, and mixing our own escapes into it would
 * leave ncurses' idea of the screen wrong. So ncurses keeps drawing everything,
 * ramp cells in their nearest xterm colours through pairs numbered here, and
 * after each doupdate palette_flush repaints just those cells with the same
 * characters and attributes in their exact colours, read back from curscr
 * (ncurses' own copy of the terminal), between DECSC and DECRC: the cursor and
 * the graphic rendition ncurses believes in are restored, the characters on
 * screen are unchanged, so its optimisation stays correct. A cell ncurses later
 * rewrites comes back in the xterm colour and is repainted again by the next
 * flush. */

struct out_buffer {
	char bytes[8192];
	size_t used;
};

static void out_flush(struct out_buffer *out)
{
	size_t done = 0;

	while (done < out->used) {
		ssize_t n = write(STDOUT_FILENO, out->bytes + done, out->used - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	out->used = 0;
}

static void out_add(struct out_buffer *out, const char *bytes, size_t length)
{
	if (out->used + length > sizeof out->bytes)
		out_flush(out);
	if (length > sizeof out->bytes)
		return;
	memcpy(out->bytes + out->used, bytes, length);
	out->used += length;
}

/* The SGR for a run of cells: attributes, then the exact colours. */
static void out_sgr(struct out_buffer *out, attr_t attr, const struct exact_pair *colours)
{
	char sgr[96];
	int n = snprintf(sgr, sizeof sgr, "\033[0%s%s%s%s", attr & A_BOLD ? ";1" : "",
			 attr & A_DIM ? ";2" : "", attr & A_UNDERLINE ? ";4" : "", attr & A_REVERSE ? ";7" : "");

	if (colours->fg >= 0)
		n += snprintf(sgr + n, sizeof sgr - (size_t)n, ";38;2;%ld;%ld;%ld", colours->fg >> 16,
			      colours->fg >> 8 & 0xff, colours->fg & 0xff);
	if (colours->bg >= 0)
		n += snprintf(sgr + n, sizeof sgr - (size_t)n, ";48;2;%ld;%ld;%ld", colours->bg >> 16,
			      colours->bg >> 8 & 0xff, colours->bg & 0xff);
	n += snprintf(sgr + n, sizeof sgr - (size_t)n, "m");
	out_add(out, sgr, (size_t)n);
}

void palette_flush(void)
{
	struct out_buffer out;
	bool any = false;

	if (!current.ready || current.depth != DEPTH_TRUECOLOR || current.direct || current.pairs_used == 0)
		return;
	out.used = 0;
	fflush(stdout);
	for (int y = 0; y < LINES; y++) {
		int run_pair = -1;
		attr_t run_attr = 0;

		for (int x = 0; x < COLS; x++) {
			cchar_t cell;
			wchar_t text[CCHARW_MAX + 1];
			attr_t attr;
			short legacy;
			int pair = 0;
			char bytes[MB_LEN_MAX * (CCHARW_MAX + 1)], position[32];
			size_t length = 0;
			mbstate_t state;

			if (mvwin_wch(curscr, y, x, &cell) == ERR ||
			    getcchar(&cell, text, &attr, &legacy, &pair) == ERR) {
				run_pair = -1;
				continue;
			}
			attr &= A_ATTRIBUTES & ~A_COLOR;
			if (pair <= 0 || pair >= MAX_PAIRS || current.exact[pair].fg == -2 ||
			    (current.exact[pair].fg < 0 && current.exact[pair].bg < 0) ||
			    text[0] == L'\0' || qkv_char_columns((unsigned long)text[0]) != 1) {
				run_pair = -1;
				continue;
			}
			memset(&state, 0, sizeof state);
			for (int i = 0; text[i] != L'\0' && i < CCHARW_MAX; i++) {
				size_t n = wcrtomb(bytes + length, text[i], &state);
				if (n == (size_t)-1) {
					length = 0;
					break;
				}
				length += n;
			}
			if (length == 0) {
				run_pair = -1;
				continue;
			}
			if (!any) {
				out_add(&out, "\0337", 2);   /* DECSC: cursor and rendition */
				any = true;
			}
			if (pair != run_pair || attr != run_attr) {
				if (run_pair < 0) {
					int n = snprintf(position, sizeof position, "\033[%d;%dH", y + 1, x + 1);
					out_add(&out, position, (size_t)n);
				}
				out_sgr(&out, attr, &current.exact[pair]);
				run_pair = pair;
				run_attr = attr;
			}
			out_add(&out, bytes, length);
		}
	}
	if (any) {
		out_add(&out, "\033[0m\0338", 6);   /* DECRC */
		out_flush(&out);
	}
}
