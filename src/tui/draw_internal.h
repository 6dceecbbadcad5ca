/* draw_internal.h — what draw.c and draw_lines.c share: writing a text into the
 * screen's cells, and the lines around the grids. Private to the interface's drawing;
 * draw.h is its face to the rest. */
#ifndef QKV_TUI_DRAW_INTERNAL_H
#define QKV_TUI_DRAW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "tui/layout.h"
#include "tui/palette.h"

/* draw.c */
/* Writes s at (y, x) in at most `width` columns (wide characters count two),
 * cutting on a character boundary. */
void draw_put(int y, int x, int width, struct cell_style style, const char *s);
/* Copies into buf the words of text that fit in `width` columns, never cutting a
 * word: when some are left out, the kept ones end in "…". */
const char *draw_words_fitting(char *buf, size_t size, const char *text, int width);
/* Blanks a rectangle in the normal style. */
void draw_blank(int y, int x, int h, int w);
/* True when the layout has the statistics readout beside the heatmap. */
bool draw_has_readout(const struct layout *l);

/* draw_lines.c */
/* The redraw flag that asks for a panel (REDRAW_INPUTS, _ATTENTION, _OUTPUT, _INFO). */
int draw_panel_flag(const struct panel *panel);
/* The title bar (the problem's title and numbers) and the stage bar. */
void draw_bars(const struct app *app, const struct layout *l);
/* Writes text over `lines` lines from y, breaking at spaces. */
void draw_put_wrapped(int y, int x, int width, int lines, struct cell_style style, const char *text);
/* The formula line and the derivation in the lines the layout reserved for them
 * under the grids (all they need, unless the screen is too small: then the
 * formula's first line and the derivation's last ones, with its result),
 * aligned with the grids when they fit that way. */
void draw_info(const struct app *app, const struct layout *l);
/* The message line (or a question) and, under it, the keys in reach now. */
void draw_status(const struct app *app, const struct layout *l);

#endif
