/* history.h — undo and redo for the interactive state.
 * Each entry holds what to swap back in: one cell's other value (cheap, for
 * edits and nudges) or a whole problem (for structural and option changes).
 * Undo swaps an entry with the present and redo swaps it back, so one
 * mechanism serves both directions. The oldest entries are dropped past a
 * memory budget. No curses, no printing. */
#ifndef QKV_APP_HISTORY_H
#define QKV_APP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "qkv/problem.h"

/* Where the cursor was, so undo puts the class back where the change happened. */
struct history_place {
	int focus, row, col;
	int head; /* multi-head: the head whose W_Q, W_K or W_V a cell entry is in */
};

struct history_entry {
	bool is_cell;                 /* cell entry, else a whole-problem snapshot */
	enum qkv_grid input;         /* cell entries: which matrix */
	int row, col;                 /* cell entries: which cell */
	double value;                 /* cell entries: the value to swap in */
	struct qkv_problem snapshot;  /* snapshot entries: the problem to swap in */
	struct history_place place;
	size_t bytes;                 /* memory the entry holds */
};

struct history {
	struct history_entry *entries;
	int count;      /* entries stored */
	int position;   /* entries [0, position) can be undone; the rest redone */
	int capacity;
	size_t bytes;   /* total held */
	size_t budget;  /* drop the oldest entries past this many bytes */
};

/* An empty history holding at most `budget` bytes of snapshots. */
void history_init(struct history *h, size_t budget);
/* Frees every entry. */
void history_fini(struct history *h);

/* Records that cell (input, row, col) held `before`, dropping any redo entries. */
int history_push_cell(struct history *h, enum qkv_grid input, int row, int col,
		      double before, struct history_place place);
/* Records a copy of the whole problem as it was before a change. */
int history_push_problem(struct history *h, const struct qkv_problem *before,
			 struct history_place place);

/* Records *before itself as the problem before a change, taking it over (it is
 * left empty): no copy. On failure (QKV_ENOMEM) *before is untouched. */
int history_push_moved(struct history *h, struct qkv_problem *before, struct history_place place);

/* Forgets every entry that could be redone (a new change starts a new branch). */
void history_drop_redo(struct history *h);

/* Undoes the latest change on p; returns false when there is nothing to undo.
 * *place is set to where the change happened. */
bool history_undo(struct history *h, struct qkv_problem *p, struct history_place *place);
/* Redoes the change undone last; false when there is nothing to redo. */
bool history_redo(struct history *h, struct qkv_problem *p, struct history_place *place);

#endif
