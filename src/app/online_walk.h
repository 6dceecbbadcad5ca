/* online_walk.h — the online softmax walk's state (F): one query's keys read a
 * tile at a time, as memory-efficient kernels read them (qkv/online.h). The
 * query is the attention grid's cursor row; the walk's numbers are computed from
 * the trace's Q, K and V whenever they are drawn. Changed only through
 * app_update (app/online_walk.c); no curses. */
#ifndef QKV_APP_ONLINE_WALK_H
#define QKV_APP_ONLINE_WALK_H

struct app_online_walk {
	int tile; /* B: keys a tile, 1 … n (+ and − double and halve it) */
	int step; /* tiles read so far, 0 … T (T = ⌈n / B⌉); T + 1: the output set
		     beside the standard row */
};

#endif
