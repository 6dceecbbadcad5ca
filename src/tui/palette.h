/* palette.h — colours for the interface: ramps for weights (sequential, fixed
 * 0–1) and for signed values (diverging blue ↔ orange around 0), text colour
 * chosen for contrast on every background, and the monochrome fallback of
 * shading glyphs. Only xterm indices 16–255 are used for ramps (never 0–15 for a
 * ramp, never init_color); colour pairs come from alloc_pair. */
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

/* How one cell is drawn: attributes, a colour pair, and a glyph to put beside the
 * number when colour cannot carry the value (monochrome: " ·░▒▓█"). */
struct cell_style {
	attr_t attr;
	int pair;          /* for wattr_set / wcolor_set's extended pair argument */
	const char *glyph; /* "" when colour carries the value, else a UTF-8 shade */
};

/* Number of palettes and their names: "256", "8", "mono", "projector-dark",
 * "projector-light" (only those the terminal can show are usable). */
int palette_count(void);
const char *palette_name(int index);
/* The index of a palette by name, or -1. */
int palette_find(const char *name);
/* The best palette for this terminal: mono under NO_COLOR or without colours,
 * "8" with fewer than 256 colours, else "256". Call after start_color(). */
int palette_default(void);

/* Makes palette `index` current (after initscr/start_color); projector mode uses
 * fewer, well separated steps and bold text. Cheap to call again. */
void palette_use(int index, bool projector);
/* The style of a role in the current palette. */
struct cell_style palette_role(enum palette_role role);
/* The style of a weight in [0, 1] (values outside are clamped). */
struct cell_style palette_weight(double weight);
/* The style of a signed value, scaled so ±limit are the ends (limit > 0). */
struct cell_style palette_signed(double value, double limit);
/* A half-block "▀" showing two weights at once: upper as the text colour, lower
 * as the background (colour palettes only; mono gets a plain "▀"). */
struct cell_style palette_weight_halves(double upper, double lower);
/* The same for two signed values on the diverging ramp. */
struct cell_style palette_signed_halves(double upper, double lower, double limit);
/* Number of steps in the current weight ramp (for the legend). */
int palette_steps(void);
/* True when the current palette draws glyphs instead of colours. */
bool palette_monochrome(void);

/* Applies a style to w (wattr_set with the extended pair). */
void palette_apply(WINDOW *w, struct cell_style style);

#endif
