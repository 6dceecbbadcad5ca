/* draw.h — drawing the app state onto the screen (stdscr), region by region as
 * the redraw flags ask. Reads the app and the layout; changes neither. The caller
 * finishes the frame with wnoutrefresh + doupdate. */
#ifndef QKV_TUI_DRAW_H
#define QKV_TUI_DRAW_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the parts of the screen named by flags (enum app_redraw). */
void draw_frame(const struct app *app, const struct layout *l, int flags);

/* Makes one frame: palette_use, layout_compute when the size or shapes may have
 * changed (keeping each panel's scroll), draw_frame, wnoutrefresh, doupdate. */
void draw_render(const struct app *app, struct layout *l, int flags);

#endif
