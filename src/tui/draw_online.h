/* draw_online.h — the online softmax walk (F): one query's keys read a tile at a
 * time, with m, ℓ and o before and after each tile, and at the end o / ℓ beside
 * the standard row. */
#ifndef QKV_TUI_DRAW_ONLINE_H
#define QKV_TUI_DRAW_ONLINE_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the walk over the screen below the header (reads the trace and app->online). */
void draw_online(const struct app *app, const struct layout *l);

#endif
