/* history.c — undo and redo by swapping: an entry holds the other side of a
 * change, and undo and redo both exchange it with the present. No curses. */
#include <stdlib.h>
#include <string.h>

#include "app/history.h"
#include "qkv/heads.h"
#include "qkv/error.h"

void history_init(struct history *h, size_t budget)
{
	memset(h, 0, sizeof *h);
	h->budget = budget;
}

static void entry_fini(struct history_entry *e)
{
	if (!e->is_cell)
		qkv_problem_fini(&e->snapshot);
}

void history_fini(struct history *h)
{
	for (int i = 0; i < h->count; i++)
		entry_fini(&h->entries[i]);
	free(h->entries);
	h->entries = NULL;
	h->count = h->position = h->capacity = 0;
	h->bytes = 0;
}

void history_drop_redo(struct history *h)
{
	for (int i = h->position; i < h->count; i++) {
		h->bytes -= h->entries[i].bytes;
		entry_fini(&h->entries[i]);
	}
	h->count = h->position;
}

/* Drops the oldest entries until the budget holds (keeping at least the newest). */
static void enforce_budget(struct history *h)
{
	int drop = 0;

	while (h->bytes > h->budget && drop < h->count - 1) {
		h->bytes -= h->entries[drop].bytes;
		entry_fini(&h->entries[drop]);
		drop++;
	}
	if (drop > 0) {
		memmove(h->entries, h->entries + drop, (size_t)(h->count - drop) * sizeof *h->entries);
		h->count -= drop;
		h->position -= drop;
	}
}

/* A new slot at the end, after dropping the redo branch; NULL when out of memory. */
static struct history_entry *new_entry(struct history *h)
{
	history_drop_redo(h);
	if (h->count == h->capacity) {
		int capacity = h->capacity > 0 ? h->capacity * 2 : 64;
		struct history_entry *grown = realloc(h->entries, (size_t)capacity * sizeof *grown);

		if (grown == NULL)
			return NULL;
		h->entries = grown;
		h->capacity = capacity;
	}
	memset(&h->entries[h->count], 0, sizeof h->entries[h->count]);
	return &h->entries[h->count];
}

/* Makes the newest slot count. */
static void commit_entry(struct history *h, size_t bytes)
{
	h->entries[h->count].bytes = bytes;
	h->bytes += bytes;
	h->count++;
	h->position = h->count;
	enforce_budget(h);
}

int history_push_cell(struct history *h, enum qkv_grid input, int row, int col,
		      double before, struct history_place place)
{
	struct history_entry *e = new_entry(h);

	if (e == NULL)
		return QKV_ENOMEM;
	e->is_cell = true;
	e->input = input;
	e->row = row;
	e->col = col;
	e->value = before;
	e->place = place;
	commit_entry(h, sizeof *e);
	return 0;
}

/* Bytes a problem's matrices hold, for the budget. */
static size_t problem_bytes(const struct qkv_problem *p)
{
	size_t total = sizeof *p + (size_t)p->m * (size_t)p->n;

	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const struct qkv_matrix *m = qkv_problem_input_const(p, (enum qkv_grid)i);

		if (m != NULL)
			total += (size_t)m->rows * (size_t)m->cols * sizeof(double);
	}
	for (int i = 0; i < p->h; i++)
		total += ((size_t)p->heads[i].w_q.rows * (size_t)p->heads[i].w_q.cols * 2 +
			  (size_t)p->heads[i].w_v.rows * (size_t)p->heads[i].w_v.cols) * sizeof(double);
	return total;
}

int history_push_problem(struct history *h, const struct qkv_problem *before,
			 struct history_place place)
{
	struct history_entry *e = new_entry(h);

	if (e == NULL)
		return QKV_ENOMEM;
	qkv_problem_init(&e->snapshot);
	if (qkv_problem_copy(&e->snapshot, before) != 0)
		return QKV_ENOMEM;
	e->is_cell = false;
	e->place = place;
	commit_entry(h, problem_bytes(before));
	return 0;
}

int history_push_moved(struct history *h, struct qkv_problem *before, struct history_place place)
{
	struct history_entry *e = new_entry(h);

	if (e == NULL)
		return QKV_ENOMEM;
	e->snapshot = *before;
	qkv_problem_init(before);
	e->is_cell = false;
	e->place = place;
	commit_entry(h, problem_bytes(&e->snapshot));
	return 0;
}

/* Exchanges entry e with the present state of p. */
static void swap_entry(struct history *h, struct history_entry *e, struct qkv_problem *p)
{
	if (e->is_cell) {
		struct qkv_matrix *m = p->h > 0 ? qkv_problem_head_input(p, e->place.head, e->input)
						: qkv_problem_input(p, e->input);
		double present = qkv_matrix_get(m, e->row, e->col);

		qkv_matrix_set(m, e->row, e->col, e->value);
		e->value = present;
	} else {
		struct qkv_problem present = *p;

		*p = e->snapshot;
		e->snapshot = present;
		h->bytes = h->bytes - e->bytes + problem_bytes(&present);
		e->bytes = problem_bytes(&present);
	}
}

bool history_undo(struct history *h, struct qkv_problem *p, struct history_place *place)
{
	struct history_entry *e;

	if (h->position == 0)
		return false;
	e = &h->entries[--h->position];
	swap_entry(h, e, p);
	*place = e->place;
	return true;
}

bool history_redo(struct history *h, struct qkv_problem *p, struct history_place *place)
{
	struct history_entry *e;

	if (h->position == h->count)
		return false;
	e = &h->entries[h->position++];
	swap_entry(h, e, p);
	*place = e->place;
	return true;
}
