/* draw_saturation.h — the saturation view (S): the d_k sweep as four braille
 * charts (max weight, entropy ratio, gradient norm, score variance), scaled against
 * unscaled, told apart by their marks so it reads without colour. */
#ifndef QKV_TUI_DRAW_SATURATION_H
#define QKV_TUI_DRAW_SATURATION_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the view over the whole screen below the header (reads app->sweep). */
void draw_saturation(const struct app *app, const struct layout *l);

#endif
