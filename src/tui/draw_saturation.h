/* draw_saturation.h — the saturation view (S): the d_k sweep as four small charts
 * (max weight, entropy ratio, gradient norm, score variance), scaled against
 * unscaled, drawn with plain characters so it works over SSH and without colour. */
#ifndef QKV_TUI_DRAW_SATURATION_H
#define QKV_TUI_DRAW_SATURATION_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the view over the whole screen below the header (reads app->sweep). */
void draw_saturation(const struct app *app, const struct layout *l);

#endif
