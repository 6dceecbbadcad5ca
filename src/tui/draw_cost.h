/* draw_cost.h — the cost view (C): the price of n² measured on this machine, as a
 * table that fills in while the measurement runs, its fitted slope and the
 * extrapolation to 10,000 and 100,000 tokens in words. */
#ifndef QKV_TUI_DRAW_COST_H
#define QKV_TUI_DRAW_COST_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the view over the screen below the header (reads app->cost.table). */
void draw_cost(const struct app *app, const struct layout *l);

#endif
