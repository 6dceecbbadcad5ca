/* online_walk.c — the online softmax walk (F): opening it, and its keys, which
 * step through the tiles, change the tile size and choose the query. What each
 * step shows is computed when it is drawn, from the trace (tui/draw_online.c). */
#include "app/app.h"
#include "app/internal.h"

/* The number of tiles of the walk: ⌈keys / B⌉. */
int online_walk_tiles(const struct app *app)
{
	int keys = app->trace.n, tile = app_clamp(app->online.tile, 1, keys > 0 ? keys : 1);

	return keys > 0 ? (keys + tile - 1) / tile : 0;
}

/* The walk starts before its first tile, with tiles of one key while the keys fit
 * on a screen's lines, else of the power of two that makes about eight tiles. */
int online_walk_open(struct app *app)
{
	int keys = app->trace.n, tile = 1;

	while (keys > 12 && tile * 8 < keys)
		tile *= 2;
	app->online.tile = tile;
	app->online.step = 0;
	return 0;
}

/* →: the next tile (then the output beside the standard row); ←: the one
 * before; Home and End: the start and the comparison. */
int online_walk_step(struct app *app, int key)
{
	int last = online_walk_tiles(app) + 1, step = app->online.step;

	if (key == APP_KEY_HOME)
		step = 0;
	else if (key == APP_KEY_END)
		step = last;
	else if (key == APP_KEY_LEFT)
		step--;
	else
		step++;
	app->online.step = app_clamp(step, 0, last);
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* + and −: twice or half the keys a tile (1 … n); the walk starts again. */
int online_walk_tile(struct app *app, int key)
{
	int keys = app->trace.n > 0 ? app->trace.n : 1, tile = app->online.tile;

	tile = key == '-' ? tile / 2 : tile * 2;
	app->online.tile = app_clamp(tile, 1, keys);
	app->online.step = 0;
	return REDRAW_OVERLAY | REDRAW_STATUS;
}

/* ↑ k and ↓ j: the query before or after; the walk starts again. */
int online_walk_query(struct app *app, int key)
{
	struct app_cursor *cursor = &app->cursor[QKV_GRID_WEIGHTS];
	int up = key == APP_KEY_UP || key == 'k';

	cursor->row = app_clamp(cursor->row + (up ? -1 : 1), 0, app->trace.m > 0 ? app->trace.m - 1 : 0);
	app->online.step = 0;
	return REDRAW_OVERLAY | REDRAW_STATUS | REDRAW_ATTENTION;
}
