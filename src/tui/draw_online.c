/* draw_online.c — the online softmax walk (F): one query reads its keys a tile
 * at a time (qkv/online.h) and keeps m, ℓ and o. At the top what the algorithm
 * keeps; then a table of the tiles read so far (their largest score, m, the
 * rescale factor and ℓ), as many of the latest as the lines left allow, with a
 * marker for those above; under it the present step in sentences: the tile's
 * scores, what happened to m, ℓ and o, and at the end o / ℓ beside the standard
 * row of the trace with their largest difference. Every number is computed here
 * from the trace's Q, K and V by the core's own tile function, the one the
 * printer's --algorithm online runs; nothing is changed. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/format.h"
#include "qkv/online.h"
#include "qkv/text.h"
#include "tui/draw_online.h"
#include "tui/glyphs.h"
#include "tui/palette.h"

#define DECIMALS 4
#define SHOWN_VALUES 4 /* of o and of a tile's scores, written out */
#define TEXT_SIZE 2048

/* The walk up to the present step, recomputed from the trace. */
struct walk {
	int query, keys, tile, tiles, step, d_v;
	struct qkv_online_tile *what; /* one per tile read */
	double *largest;              /* per tile read: its largest score the query sees */
	double *scores;               /* the present tile's scaled scores */
	double *before, *after;       /* o before and after the present tile */
	double *output;               /* o / ℓ, at the end */
	struct qkv_online_row row;
};

/* One line of the table, cut at width columns (its widest cells are numbers and
 * labels of at most 12 columns: the table is drawn only where it fits). */
static void put(int y, int x, int width, struct cell_style style, const char *text)
{
	char drawn[TEXT_SIZE];
	const char *shown = glyphs_text(text, drawn, sizeof drawn);

	palette_apply(stdscr, style);
	mvaddnstr(y, x, shown, (int)qkv_text_fit(shown, width, strlen(shown)));
}

/* A number at the walk's decimals; "−∞" for minus infinity. */
static const char *number(char *buf, size_t size, double value)
{
	if (isinf(value) && value < 0)
		snprintf(buf, size, "−∞");
	else
		qkv_format_number(buf, size, value, DECIMALS);
	return buf;
}

/* Whether value is exactly what it reads at the walk's decimals. */
static bool shown_exactly(double value)
{
	double scaled = value * 1e4;

	return scaled == rint(scaled) && rint(scaled) / 1e4 == value;
}

/* "(a, b, c)", the first SHOWN_VALUES of count values, and how many more. */
static const char *vector(char *buf, size_t size, const double *values, int count)
{
	size_t used = 0;
	char one[64];

	used += (size_t)snprintf(buf, size, "(");
	for (int c = 0; c < count && c < SHOWN_VALUES && used < size; c++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", c > 0 ? ", " : "",
					 number(one, sizeof one, values[c]));
	if (used < size)
		snprintf(buf + used, size - used, count > SHOWN_VALUES ? ", and %d more)" : ")",
			 count - SHOWN_VALUES);
	return buf;
}

static void walk_free(struct walk *w)
{
	free(w->what);
	free(w->largest);
	free(w->scores);
	free(w->row.acc);
}

/* Reads the tiles up to the present step (the last one into before/after). */
static int walk_compute(const struct app *app, struct walk *w)
{
	const struct qkv_trace *t = &app->trace;
	double *acc;
	int read;

	memset(w, 0, sizeof *w);
	w->keys = t->n;
	w->d_v = t->d_v;
	w->query = app->cursor[QKV_GRID_WEIGHTS].row;
	if (w->query < 0 || w->query >= t->m)
		w->query = 0;
	w->tile = app->online.tile < 1 ? 1 : app->online.tile > t->n ? t->n : app->online.tile;
	w->tiles = (t->n + w->tile - 1) / w->tile;
	w->step = app->online.step < 0 ? 0 : app->online.step > w->tiles + 1 ? w->tiles + 1 : app->online.step;
	w->what = calloc((size_t)w->tiles, sizeof *w->what);
	w->largest = calloc((size_t)w->tiles, sizeof *w->largest);
	w->scores = calloc((size_t)w->tile, sizeof *w->scores);
	acc = calloc((size_t)w->d_v * 4, sizeof *acc);
	if (w->what == NULL || w->largest == NULL || w->scores == NULL || acc == NULL) {
		free(acc);
		walk_free(w);
		return -1;
	}
	w->before = acc + w->d_v;
	w->after = acc + 2 * w->d_v;
	w->output = acc + 3 * w->d_v;
	qkv_online_row_start(&w->row, acc, w->d_v);
	read = w->step < w->tiles ? w->step : w->tiles;
	for (int i = 0; i < read; i++) {
		int first = i * w->tile, count = first + w->tile <= w->keys ? w->tile : w->keys - first;

		memcpy(w->before, acc, (size_t)w->d_v * sizeof *acc);
		qkv_online_row_tile(&w->row, &app->problem, w->query, qkv_matrix_row_const(&t->q, w->query),
				    &t->k, &t->v, t->divisor, first, count, w->scores, &w->what[i]);
		w->largest[i] = -INFINITY;
		for (int j = 0; j < count; j++)
			if (!qkv_problem_is_masked(&app->problem, w->query, first + j))
				w->largest[i] = fmax(w->largest[i], w->scores[j]);
	}
	memcpy(w->after, acc, (size_t)w->d_v * sizeof *acc);
	qkv_online_row_finish(&w->row, w->output);
	return 0;
}

/* The label of key j, or "t3–t6" for a tile of several. */
static void keys_text(const struct app *app, const struct qkv_online_tile *what, char *buf, size_t size)
{
	if (what->count == 1)
		snprintf(buf, size, "%s", app->problem.tokens[what->first]);
	else
		snprintf(buf, size, "%s–%s", app->problem.tokens[what->first],
			 app->problem.tokens[what->first + what->count - 1]);
}

/* The present step in sentences, into text (lines broken later). */
static void step_words(const struct app *app, const struct walk *w, char *text, size_t size)
{
	char a[64], b[64], c[64], d[64], keys[160], va[512], vb[512];
	size_t used = 0;

	if (w->step == 0) {
		snprintf(text, size, "Nothing is read yet: m = −∞, ℓ = 0 and o = 0. → reads the first tile.");
		return;
	}
	if (w->step <= w->tiles) {
		const struct qkv_online_tile *what = &w->what[w->step - 1];

		keys_text(app, what, keys, sizeof keys);
		used += (size_t)snprintf(text + used, size - used, "Tile %d, key%s %s, score%s s' = q·k / %s: ", w->step,
					 what->count == 1 ? "" : "s", keys, what->count == 1 ? "" : "s", number(a, sizeof a, app->trace.divisor));
		for (int j = 0; j < what->count && j < SHOWN_VALUES && used < size; j++) {
			bool hidden = qkv_problem_is_masked(&app->problem, w->query, what->first + j);

			used += (size_t)snprintf(text + used, size - used, "%s%s%s", j > 0 ? ", " : "",
						 number(a, sizeof a, w->scores[j]), hidden ? " (hidden)" : "");
		}
		if (what->count > SHOWN_VALUES && used < size)
			used += (size_t)snprintf(text + used, size - used, " and %d more", what->count - SHOWN_VALUES);
		if (used >= size)
			return;
		if (what->live == 0)
			used += (size_t)snprintf(text + used, size - used, ". Every key of it is hidden from this "
						 "query: m, ℓ and o stay as they were.");
		else if (isinf(what->max_before))
			used += (size_t)snprintf(text + used, size - used, ". m: −∞ → %s, the first score seen, so "
						 "there is nothing to rescale (ℓ and o were 0).",
						 number(a, sizeof a, what->max_after));
		else if (what->rescale == 1.0)
			used += (size_t)snprintf(text + used, size - used, ". m stays %s (no score above it), so "
						 "nothing is rescaled.", number(a, sizeof a, what->max_after));
		else
			used += (size_t)snprintf(text + used, size - used, ". m: %s → %s, so ℓ and o are multiplied "
						 "by e^(%s − %s) %s %s.", number(a, sizeof a, what->max_before),
						 number(b, sizeof b, what->max_after), a, b,
						 shown_exactly(what->rescale) ? "=" : "≈",
						 number(c, sizeof c, what->rescale));
		if (used < size)
			snprintf(text + used, size - used, " ℓ: %s → %s. o: %s → %s.",
				 number(c, sizeof c, what->sum_before), number(d, sizeof d, what->sum_after),
				 vector(va, sizeof va, w->before, w->d_v), vector(vb, sizeof vb, w->after, w->d_v));
		return;
	}
	{
		const double *standard = qkv_matrix_row_const(&app->trace.output, w->query);
		double largest = 0.0;
		bool shown_same = true;

		for (int col = 0; col < w->d_v; col++) {
			largest = fmax(largest, fabs(w->output[col] - standard[col]));
			number(a, sizeof a, w->output[col]);
			number(b, sizeof b, standard[col]);
			shown_same = shown_same && strcmp(a, b) == 0;
		}
		used += (size_t)snprintf(text + used, size - used, "Every key is read. The output is o / ℓ: %s / %s",
					 vector(va, sizeof va, w->after, w->d_v), number(a, sizeof a, w->row.sum));
		if (used < size)
			used += (size_t)snprintf(text + used, size - used, " %s %s. The standard row, softmax(S')·V, "
						 "reads %s. ",
						 w->row.sum > 0.0 ? "≈" : "=", vector(vb, sizeof vb, w->output, w->d_v),
						 vector(va, sizeof va, standard, w->d_v));
		if (used >= size)
			return;
		if (largest == 0.0)
			snprintf(text + used, size - used, "They are equal, bit for bit.");
		else if (shown_same)
			snprintf(text + used, size - used, "They agree at the %d decimals shown; the largest "
				 "difference is %.1e, the rounding of doubles added in another order.", DECIMALS, largest);
		else
			snprintf(text + used, size - used, "They differ at the digits shown, by %.1e at most.", largest);
	}
}

/* Breaks text into lines of at most width columns (drawn as the glyphs allow)
 * and draws them from line y, at most max lines; the number drawn. */
static int draw_wrapped(int y, int x, int width, int max, struct cell_style style, const char *text)
{
	char drawn[TEXT_SIZE], line[TEXT_SIZE];
	const char *at = glyphs_text(text, drawn, sizeof drawn);
	int count = 0;

	while (*at != '\0' && count < max) {
		const char *next;
		size_t length = qkv_text_line(at, width, &next);

		snprintf(line, sizeof line, "%.*s", (int)length, at);
		palette_apply(stdscr, style);
		mvaddstr(y + count, x, line);
		count++;
		at = next;
	}
	return count;
}

/* The lines draw_wrapped would take. */
static int wrapped_lines(int width, const char *text)
{
	char drawn[TEXT_SIZE];
	const char *at = glyphs_text(text, drawn, sizeof drawn);
	int count = 0;

	while (*at != '\0') {
		qkv_text_line(at, width, &at);
		count++;
	}
	return count;
}

/* The table's columns: the tile, its keys, its largest score, m, the rescale
 * factor and ℓ after it. */
enum { COL_TILE, COL_KEYS, COL_LARGEST, COL_M, COL_RESCALE, COL_SUM, TABLE_COLUMNS };

/* Row r's cell of column col (r = −1: the heading). */
static void table_cell(const struct app *app, const struct walk *w, int r, int col, char *buf, size_t size)
{
	static const char *const headings[TABLE_COLUMNS] = { "tile", "keys", "largest s'", "m", "rescale", "ℓ" };
	const struct qkv_online_tile *what = r >= 0 ? &w->what[r] : NULL;

	if (r < 0) {
		snprintf(buf, size, "%s", headings[col]);
		return;
	}
	switch (col) {
	case COL_TILE:
		snprintf(buf, size, "%d", r + 1);
		break;
	case COL_KEYS:
		keys_text(app, what, buf, size);
		break;
	case COL_LARGEST:
		if (what->live == 0)
			snprintf(buf, size, "hidden");
		else
			number(buf, size, w->largest[r]);
		break;
	case COL_M:
		number(buf, size, what->max_after);
		break;
	case COL_RESCALE:
		if (isinf(what->max_before))
			snprintf(buf, size, "—");
		else
			number(buf, size, what->rescale);
		break;
	default:
		number(buf, size, what->sum_after);
		break;
	}
}

/* The tiles first … rows − 1 from line y (with a marker for those above), in
 * columns as wide as their widest cell; when they do not fit in width, the rescale
 * column goes first (the sentence under the table says it), then the largest
 * score's. */
static void draw_table(const struct app *app, const struct walk *w, int y, int width, int first, int rows)
{
	static const int dropped[] = { COL_RESCALE, COL_LARGEST };
	int widths[TABLE_COLUMNS], total = 0, drop = 0;
	bool shown[TABLE_COLUMNS];
	char cell[256], text[TEXT_SIZE];

	for (int col = 0; col < TABLE_COLUMNS; col++) {
		shown[col] = true;
		widths[col] = 0;
		for (int r = -1; r < rows; r++) {
			if (r >= 0 && r < first)
				continue;
			table_cell(app, w, r, col, cell, sizeof cell);
			widths[col] = widths[col] > qkv_text_columns(cell) ? widths[col] : qkv_text_columns(cell);
		}
		total += widths[col] + 2;
	}
	while (total > width && drop < 2) {
		shown[dropped[drop]] = false;
		total -= widths[dropped[drop]] + 2;
		drop++;
	}
	for (int r = -1; r < rows; r++) {
		size_t used = 0;

		if (r >= 0 && r < first)
			continue;
		if (r == first && first > 0) {
			snprintf(text, sizeof text, "↑ %d earlier tile%s above", first, first == 1 ? "" : "s");
			put(y++, 1, width, palette_role(ROLE_DIM), text);
		}
		for (int col = 0; col < TABLE_COLUMNS; col++) {
			int pad;

			if (!shown[col])
				continue;
			table_cell(app, w, r, col, cell, sizeof cell);
			pad = widths[col] - qkv_text_columns(cell);
			/* Words to the left, numbers to the right. */
			used += (size_t)snprintf(text + used, sizeof text - used, "%*s%s%*s  ",
						 col > COL_KEYS ? pad : 0, "", cell, col > COL_KEYS ? 0 : pad, "");
			if (used >= sizeof text)
				break;
		}
		put(y++, 1, width, palette_role(r < 0 ? ROLE_LABEL : r == w->step - 1 ? ROLE_FOCUS : ROLE_NORMAL), text);
	}
}

void draw_online(const struct app *app, const struct layout *l)
{
	int top = 2, bottom = l->notes_y - 1, width = l->width, y, rows, first, room;
	char title[512], text[TEXT_SIZE];
	struct walk w;

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	if (app->problem.wrong == QKV_WRONG_COLUMN_SOFTMAX) {
		draw_wrapped(top, 1, width - 2, bottom - top + 1, palette_role(ROLE_NORMAL),
			     "The online softmax reads one query's keys at a time. The mistake on screen, the "
			     "softmax down the columns, needs every query's score for a key at once, so it cannot "
			     "be walked this way.");
		return;
	}
	if (app->trace.n <= 0 || walk_compute(app, &w) != 0)
		return;
	snprintf(title, sizeof title, " online softmax · query \"%s\" · tiles of %d key%s · step %d of %d ",
		 qkv_problem_query_label(&app->problem, w.query), w.tile, w.tile == 1 ? "" : "s", w.step, w.tiles + 1);
	if (glyphs_columns(title) > width - 2)
		snprintf(title, sizeof title, " online · \"%s\" · tile %d · step %d/%d ",
			 qkv_problem_query_label(&app->problem, w.query),
			 w.tile, w.step, w.tiles + 1);
	y = top + draw_wrapped(top, 1, width - 2, 2, palette_role(ROLE_TITLE), title);
	y += draw_wrapped(y, 1, width - 2, 3, palette_role(ROLE_DIM),
			  "S, S' and A are never formed. The query keeps m, its largest score s' so far, "
			  "ℓ = Σ e^(s'−m) and o = Σ e^(s'−m)·v, and rescales ℓ and o when m grows.");
	step_words(app, &w, text, sizeof text);
	/* The present step's sentences take the bottom; the table the lines between. */
	room = bottom - y + 1 - wrapped_lines(width - 2, text) - 1;
	rows = w.step < w.tiles ? w.step : w.tiles;
	if (room >= 2 && rows > 0) {
		int shown = rows < room - 1 ? rows : room - 1;

		first = rows - shown;
		if (first > 0 && shown > 1) {
			shown--;
			first++;
		}
		draw_table(app, &w, y, width - 2, first, rows);
	}
	step_words(app, &w, text, sizeof text);
	draw_wrapped(bottom - wrapped_lines(width - 2, text) + 1, 1, width - 2, bottom - top, palette_role(ROLE_NORMAL),
		     text);
	walk_free(&w);
}
