/* draw_geometry.h — the geometry view (G): every query and key as an arrow from
 * the origin in a braille plot (points past a dozen tokens), told apart by mark
 * and colour, the selected query's projections and the keys' weights, and the
 * dot product and the plane in words (qkv/geometry.h). */
#ifndef QKV_TUI_DRAW_GEOMETRY_H
#define QKV_TUI_DRAW_GEOMETRY_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the view over the screen between the header and the notes' lines. */
void draw_geometry(const struct app *app, const struct layout *l);
/* A key's mark for its weight from the selected query, as shown at two decimals:
 * ◆ from 0.30, ◇ from 0.10, · below (UTF-8; the drawing spells them in ASCII
 * where it must). */
const char *draw_geometry_key_mark(double weight);

#endif
