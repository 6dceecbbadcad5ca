/* palette.h — the interface's colours on this terminal: the exact ramps of
 * qkv/colour.h (sequential viridis for weights, diverging PuOr for signed values)
 * drawn in 24-bit colour where the terminal says it can, else as their nearest
 * xterm-256 colours, else with the eight basic colours plus shading glyphs, else
 * (NO_COLOR, no colours) with glyphs and attributes only. The text on a coloured
 * cell is black or white, whichever the WCAG contrast favours. Never calls
 * init_color: the terminal's own palette is left alone. */
#ifndef QKV_TUI_PALETTE_H
#define QKV_TUI_PALETTE_H

#include <stdbool.h>
#include <curses.h>

/* Roles of text that is not a value on a ramp. */
enum palette_role {
	ROLE_NORMAL,
	ROLE_TITLE,     /* panel titles, the title bar */
	ROLE_LABEL,     /* token and column labels */
	ROLE_DIM,       /* withheld stages, hints, grid rules */
	ROLE_FOCUS,     /* the focused panel's title */
	ROLE_CURSOR,    /* the selected cell */
	ROLE_EDIT,      /* the cell being edited */
	ROLE_MOVED,     /* a value that moved in the last change (blast radius) */
	ROLE_MASKED,    /* a masked cell: not a colour of the ramp */
	ROLE_STATUS,    /* the status line */
	ROLE_ERROR,     /* error messages, wrong-way banners */
	ROLE_KEY,       /* key names in the status line */
	ROLE_COUNT,
};

/* A frame drawn in a cell's first and last column (its padding), the number
 * between them untouched: the selected cell's, or a value's that just moved. */
enum cell_frame { FRAME_NONE, FRAME_SELECTED, FRAME_MOVED };

/* How one cell is drawn: attributes, a colour pair, and a glyph to put beside the
 * number when colour alone cannot carry the value (eight colours and mono:
 * " ·░▒▓█"). */
struct cell_style {
	attr_t attr;
	int pair;          /* for wattr_set / wcolor_set's extended pair argument */
	const char *glyph; /* "" when colour carries the value, else a UTF-8 shade */
};

/* How many colours are drawn: chosen once by palette_set_depth. */
enum palette_depth { DEPTH_MONO, DEPTH_8, DEPTH_256, DEPTH_TRUECOLOR };

/* The palettes are qkv/colour.h's (viridis, projector, 8, mono): their number
 * and lookup by name (-1 when unknown). */
int palette_count(void);
int palette_find(const char *name);
/* The palette to start with: viridis (the depth decides how it is drawn). */
int palette_default(void);

/* Chooses the depth after start_color(): NO_COLOR or a terminal without colours
 * gives mono whatever is asked; `forced` "truecolor", "256", "8" or "mono" asks
 * for that depth (the terminal's limit still applies); NULL or "auto" detects:
 * 24-bit when terminfo is direct-colour (RGB) or COLORTERM is truecolor or
 * 24bit, else 256, else 8. Returns -1 when forced is no depth's name. */
int palette_set_depth(const char *forced);
enum palette_depth palette_depth(void);
/* One sentence for the status line when the terminal limits the picture (eight
 * colours) and how to get more, or NULL. */
const char *palette_notice(void);

/* Makes palette `index` current (after initscr/start_color); projector mode uses
 * fewer, well separated steps and bold text. Cheap to call again. */
void palette_use(int index, bool projector);
/* The style of a role in the current palette. */
struct cell_style palette_role(enum palette_role role);
/* The style of a weight in [0, 1] (values outside are clamped), its step taken
 * from the weight as shown (two decimals), so equal numbers get equal colours. */
struct cell_style palette_weight(double weight);
/* The style of a signed value, scaled so ±limit are the ends (limit > 0). */
struct cell_style palette_signed(double value, double limit);
/* A half-block "▀" showing two weights at once: upper as the text colour, lower
 * as the background (colour palettes only; mono gets a plain "▀"). */
struct cell_style palette_weight_halves(double upper, double lower);
/* The same for two signed values on the diverging ramp. */
struct cell_style palette_signed_halves(double upper, double lower, double limit);
/* Number of steps in the current weight ramp and in the signed ramp (for the
 * legends). */
int palette_steps(void);
int palette_signed_steps(void);
/* The style of the selected cell on top of its own: bold (underlined with eight
 * colours or none), the heat colour and its contrast kept, no reverse video;
 * an uncoloured cell gets a light tint. Its frame is palette_frame's. */
struct cell_style palette_selected(struct cell_style style);
/* The style of a value that moved in the last change: bold on its heat colour,
 * an uncoloured cell a pink tint (mono: bold reverse video). */
struct cell_style palette_moved(struct cell_style style);
/* Multi-head: head i's colour (its tag on every panel of the head, its block of
 * the concatenation and of W_O); eight hues, then again. Mono: bold underline. */
struct cell_style palette_head(int head);
/* The geometry view's keys: a foreground on the terminal's own background (its
 * queries are ROLE_LABEL's); mono: bold. */
struct cell_style palette_key_point(void);
/* The style of a frame's blank columns: orange-red around the selected cell,
 * magenta around a moved value (mono: reverse video). */
struct cell_style palette_frame(enum cell_frame frame);
/* True when the current palette draws glyphs instead of colours. */
bool palette_monochrome(void);
/* True when weights carry a shading glyph beside the number (mono, eight colours). */
bool palette_glyphs(void);

/* Applies a style to w (wattr_set with the extended pair). */
void palette_apply(WINDOW *w, struct cell_style style);
/* After doupdate: in 24-bit mode on a 256-colour terminfo, repaints the cells of
 * ramp colours with their exact colours (see palette.c). Otherwise nothing. */
void palette_flush(void);

#endif
