/* geometry.c — the geometry view (G): every query and key as an arrow from the
 * origin, in the plane of Q's and K's rows (exact for d_k ≤ 2, their principal
 * plane past that; qkv/geometry.h), drawn by the interface from the trace. It
 * keeps no state of its own: the selected query and key are the editor's
 * (app_query, app_key), and the editor's keys edit the cells while it is open, so
 * the arrows move with every edit. Its own key is the arrows' row of the key
 * table, for the hints and the manual. */
#include "app/app.h"
#include "app/internal.h"

/* The arrows and h j k l: the cursor in the focused matrix, as in the editor; a
 * row of Q, X or the weights is the selected query, a row of K or a column of
 * the weights the selected key. */
int geometry_move(struct app *app, int key)
{
	switch (key) {
	case APP_KEY_UP: case 'k': return walk_move_cursor(app, -1, 0);
	case APP_KEY_DOWN: case 'j': return walk_move_cursor(app, 1, 0);
	case APP_KEY_LEFT: case 'h': return walk_move_cursor(app, 0, -1);
	default: return walk_move_cursor(app, 0, 1);
	}
}
