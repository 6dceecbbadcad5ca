/* draw_cost.c — the cost view: what attention costs as n grows, measured on the
 * machine in front of the class. The rows appear as they are measured; every
 * number and sentence is read from the app's cost table (qkv/cost.h). Reads the
 * app; changes nothing. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "qkv/text.h"
#include "tui/chart.h"
#include "tui/draw_cost.h"
#include "tui/glyphs.h"
#include "tui/palette.h"
#include "tui/text.h"

#define COST_TEXT_MAX 512
#define COST_COLUMNS 7     /* n, scores, flops, bytes held and time of each algorithm */
#define COST_CELL_MAX 32
#define TIME_WIDTH 11      /* "0.001913 ms" */
#define FLOPS_COLUMN 2     /* dropped first when the table is too wide */
#define SCORES_COLUMN 1    /* and then this one */
#define TABLE_MIN_ROWS 3   /* rows kept when the sentences below ask for room */
#define CHART_MIN_WIDTH 40 /* a chart beside the table needs this much */
#define CHART_MIN_HEIGHT 8
static const int far_n[2] = { 10000, 100000 };
static const char *const headers[COST_COLUMNS] = { "n", "scores", "flops", "std bytes", "online bytes",
						    "std time", "online time" };

/* The table's columns: each as wide as its widest entry over the rows planned
 * (n = 16 … last_n) and measured, so it keeps its place while the rows come in. */
struct cost_table {
	int width[COST_COLUMNS];
	int gap;    /* spaces between two columns */
	bool flops; /* the flops column is shown */
	bool scores; /* the scores column is shown */
	int columns; /* the table's width */
};

static void put(int y, int x, enum palette_role role, const char *text)
{
	char drawn[COST_TEXT_MAX];

	palette_apply(stdscr, palette_role(role));
	mvaddstr(y, x, glyphs_text(text, drawn, sizeof drawn));
}

/* Writes text from (y, x) in lines of `width` columns broken by qkv_text_line, if
 * it fits whole in `lines` lines; returns the lines used (0: nothing written, a
 * sentence is shown whole or not at all). */
static int put_wrapped(int y, int x, int width, int lines, enum palette_role role, const char *text)
{
	char drawn[COST_TEXT_MAX];
	const char *s = glyphs_text(text, drawn, sizeof drawn); /* broken where it is drawn */
	const char *next;
	int needed = text_lines(text, width);

	if (width <= 0 || needed > lines)
		return 0;
	for (int line = 0; line < needed; line++) {
		char chunk[COST_TEXT_MAX];
		size_t length = qkv_text_line(s, width, &next);

		memcpy(chunk, s, length);
		chunk[length] = '\0';
		put(y + line, x, role, chunk);
		s = next;
	}
	return needed;
}

/* A row's entries: n, scores, flops, then per algorithm (standard, online) the
 * bytes held and the median time; an algorithm not measured yet at this n is
 * blank, the one being measured says so. */
static void row_cells(const struct qkv_cost *c, const struct qkv_cost_row *row,
		      char cells[COST_COLUMNS][COST_CELL_MAX])
{
	snprintf(cells[0], COST_CELL_MAX, "%d", row->n);
	qkv_format_grouped(cells[1], COST_CELL_MAX, (long long)row->entries);
	qkv_format_grouped(cells[2], COST_CELL_MAX, (long long)row->flops);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
		const struct qkv_cost_time *t = &row->time[a];
		bool measured = t->ms > 0.0, measuring = !c->done && c->n == row->n && (int)c->algorithm == a;

		if (!qkv_cost_measures(c, (enum qkv_cost_algorithm)a)) {
			snprintf(cells[3 + a], COST_CELL_MAX, "-");
			snprintf(cells[5 + a], COST_CELL_MAX, "-");
			continue;
		}
		if (measured || measuring)
			qkv_cost_bytes_words(cells[3 + a], COST_CELL_MAX, (double)t->bytes);
		else
			cells[3 + a][0] = '\0';
		if (measured)
			snprintf(cells[5 + a], COST_CELL_MAX, "%.4g ms", t->ms);
		else
			snprintf(cells[5 + a], COST_CELL_MAX, "%s", measuring ? "measuring" : "");
	}
}

static void table_widen(struct cost_table *t, char cells[COST_COLUMNS][COST_CELL_MAX])
{
	for (int k = 0; k < COST_COLUMNS; k++) {
		int columns = qkv_text_columns(cells[k]);

		if (columns > t->width[k])
			t->width[k] = columns;
	}
}

static int table_columns(const struct cost_table *t)
{
	int columns = 0, shown = 0;

	for (int k = 0; k < COST_COLUMNS; k++)
		if ((k != FLOPS_COLUMN || t->flops) && (k != SCORES_COLUMN || t->scores)) {
			columns += t->width[k];
			shown++;
		}
	return columns + (shown - 1) * t->gap;
}

/* The table in `avail` columns: two spaces between columns when they fit, one
 * otherwise, and without the flops column, then the scores column (both follow
 * from n by formula), when even that is too wide. */
static void table_fit(const struct qkv_cost *c, int avail, struct cost_table *t)
{
	char cells[COST_COLUMNS][COST_CELL_MAX];
	struct qkv_cost_row row;

	for (int k = 0; k < COST_COLUMNS; k++)
		t->width[k] = qkv_text_columns(headers[k]);
	if (t->width[5] < TIME_WIDTH)
		t->width[5] = TIME_WIDTH;
	for (int n = QKV_COST_FIRST_N; n <= c->last_n; n *= 2) {
		qkv_cost_row_of(n, c->d_k, c->heads, &row);
		row_cells(c, &row, cells);
		table_widen(t, cells);
	}
	for (int i = 0; i < c->count; i++) {
		row_cells(c, &c->rows[i], cells);
		table_widen(t, cells);
	}
	t->flops = t->scores = true;
	t->gap = 2;
	if (table_columns(t) > avail)
		t->gap = 1;
	if (table_columns(t) > avail)
		t->flops = false;
	if (table_columns(t) > avail)
		t->scores = false;
	t->columns = table_columns(t);
}

/* One line of the table, each entry set right in its column. */
static void table_line(int y, int x, const struct cost_table *t, char cells[COST_COLUMNS][COST_CELL_MAX],
		       enum palette_role role)
{
	char line[COST_TEXT_MAX];
	size_t used = 0;

	line[0] = '\0';
	for (int k = 0; k < COST_COLUMNS && used < sizeof line; k++) {
		int written;

		if ((k == FLOPS_COLUMN && !t->flops) || (k == SCORES_COLUMN && !t->scores))
			continue;
		written = snprintf(line + used, sizeof line - used, "%*s%*s", used > 0 ? t->gap : 0, "",
				   t->width[k], cells[k]);
		if (written < 0)
			break;
		used += (size_t)written;
	}
	put(y, x, role, line);
}

/* One row of the table; a row still being measured is dim. */
static void table_row(int y, int x, const struct cost_table *t, const struct qkv_cost *c,
		      const struct qkv_cost_row *row, bool measured)
{
	char cells[COST_COLUMNS][COST_CELL_MAX];

	row_cells(c, row, cells);
	table_line(y, x, t, cells, measured ? ROLE_NORMAL : ROLE_DIM);
}

/* What the measurement is doing now, from its state. */
static void progress(char *buf, size_t size, const struct qkv_cost *c)
{
	char bytes[32];

	if (!c->prepared || c->touched_rows < c->n) {
		struct qkv_cost_row row;

		qkv_cost_row_of(c->n, c->d_k, c->heads, &row);
		qkv_cost_bytes_words(bytes, sizeof bytes, (double)row.time[c->algorithm].bytes / c->heads);
		snprintf(buf, size, "taking %s for the %s algorithm at n = %d … Esc cancels", bytes,
			 qkv_cost_algorithm_name(c->algorithm), c->n);
		return;
	}
	snprintf(buf, size, "measuring the %s algorithm at n = %d: run %d, query %d of %d … Esc cancels",
		 qkv_cost_algorithm_name(c->algorithm), c->n, c->runs + 1, c->next_row + 1, c->n);
}

/* The title of chart k (0 time, 1 bytes) that fits in `width` columns: the
 * longest of its forms that does. */
static const char *chart_title(int k, int width)
{
	static const char *const titles[2][3] = {
		{ "time (ms), log–log: ● standard × online ○ extrapolated", "ms: ● standard × online ○ extrapolated",
		  "ms: ● standard × online" },
		{ "bytes held, log–log: ● standard × online ○ extrapolated", "bytes: ● standard × online ○ extrapolated",
		  "bytes: ● standard × online" },
	};

	for (int i = 0; i < 2; i++)
		if (glyphs_columns(titles[k][i]) <= width)
			return titles[k][i];
	return titles[k][2];
}

/* Two log–log charts of the measured rows: the time and the bytes held, the
 * standard algorithm's (●) against the online one's (×), each with the standard's
 * extrapolation to 10,000 and 100,000 tokens (○). Stacked when tall, side by
 * side when wide. */
static void draw_charts(const struct qkv_cost *c, int y, int x, int height, int width, bool stacked,
			bool running)
{
	double n[QKV_COST_ALGORITHMS][QKV_COST_MAX_ROWS], ms[QKV_COST_ALGORITHMS][QKV_COST_MAX_ROWS];
	double held[QKV_COST_ALGORITHMS][QKV_COST_MAX_ROWS];
	double far_x[2], far_ms[2], far_bytes[2];
	struct cell_style first = palette_signed(-1.0, 1.0), second = palette_signed(1.0, 1.0);
	struct cell_style dim = palette_role(ROLE_DIM);
	int count[QKV_COST_ALGORITHMS] = { 0, 0 }, far_count = 0;
	struct chart_series time_series[3], memory_series[3];
	struct chart charts[2];

	for (int i = 0; i < c->count; i++)
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
			const struct qkv_cost_time *t = &c->rows[i].time[a];

			if (!(t->ms > 0.0))
				continue;
			n[a][count[a]] = c->rows[i].n;
			ms[a][count[a]] = t->ms;
			held[a][count[a]++] = (double)t->bytes;
		}
	/* The extrapolation once the table is complete, as the sentences give it. */
	if (!running && isfinite(qkv_cost_slope(c, QKV_COST_STANDARD, NULL)))
		for (int i = 0; i < 2; i++) {
			struct qkv_cost_row row;

			qkv_cost_extrapolate(c, far_n[i], &row);
			far_x[far_count] = far_n[i];
			far_ms[far_count] = row.time[QKV_COST_STANDARD].ms;
			far_bytes[far_count++] = (double)row.time[QKV_COST_STANDARD].bytes;
		}
	time_series[0] = (struct chart_series){ n[QKV_COST_STANDARD], ms[QKV_COST_STANDARD],
						count[QKV_COST_STANDARD], first, "●", "*" };
	time_series[1] = (struct chart_series){ n[QKV_COST_ONLINE], ms[QKV_COST_ONLINE], count[QKV_COST_ONLINE],
						second, "×", "x" };
	time_series[2] = (struct chart_series){ far_x, far_ms, far_count, dim, "○", "o" };
	memory_series[0] = (struct chart_series){ n[QKV_COST_STANDARD], held[QKV_COST_STANDARD],
						  count[QKV_COST_STANDARD], first, "●", "*" };
	memory_series[1] = (struct chart_series){ n[QKV_COST_ONLINE], held[QKV_COST_ONLINE],
						  count[QKV_COST_ONLINE], second, "×", "x" };
	memory_series[2] = (struct chart_series){ far_x, far_bytes, far_count, dim, "○", "o" };
	memset(charts, 0, sizeof charts);
	for (int k = 0; k < 2; k++) {
		struct chart *chart = &charts[k];

		chart->height = stacked ? height / 2 : height;
		chart->width = stacked ? width : width / 2 - 1;
		chart->y = stacked ? y + k * chart->height : y;
		chart->x = stacked ? x : x + k * (chart->width + 2);
		chart->x_axis.log = true;
		chart->y_axis.log = true;
		chart->x_axis.label = "n";
		chart->marker_x = NAN;
		chart->series = k == 0 ? time_series : memory_series;
		chart->series_count = 3;
		chart->title = chart_title(k, chart->width);
		chart->y_axis.label = k == 0 ? "ms" : "bytes";
		chart_fit_axis(&chart->x_axis, chart->series, chart->series_count, true);
		chart_fit_axis(&chart->y_axis, chart->series, chart->series_count, false);
		chart_draw(stdscr, chart);
	}
}

/* The view from 60 columns up: the heading drops "measured on this machine" and
 * the formulas take two lines when narrow; the table keeps its last rows (the
 * largest n) when the slope needs the room; a sentence is shown whole or not at
 * all. */
void draw_cost(const struct app *app, const struct layout *l)
{
	const struct qkv_cost *c = app->cost.table;
	int top = 2, bottom = l->notes_y - 1, width = l->width, avail = width - 2, y, x = 1;
	char text[COST_TEXT_MAX], bytes[COST_TEXT_MAX / 4], flops[COST_TEXT_MAX / 4], formulas[COST_TEXT_MAX];
	char cells[COST_COLUMNS][COST_CELL_MAX];
	struct cost_table table;
	double slope;
	bool beside;
	int text_w, left, chart_top, text_bottom, progress_lines = 0, slope_lines = 0, total, shown, room;

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	if (c == NULL)
		return;
	y = top;
	if (c->heads == 1)
		snprintf(text, sizeof text, " the price of n² · one head, d_k = d_v = %d · measured on this machine ",
			 c->d_k);
	else
		snprintf(text, sizeof text, " the price of n² · %d heads, each timed with d_k = d_v = %d · on this "
			 "machine ", c->heads, c->d_k);
	if (glyphs_columns(text) > avail) {
		if (c->heads == 1)
			snprintf(text, sizeof text, " the price of n² · one head, d_k = d_v = %d ", c->d_k);
		else
			snprintf(text, sizeof text, " the price of n² · %d heads, each timed with d_k = d_v = %d ",
				 c->heads, c->d_k);
	}
	y += put_wrapped(y, x, avail, bottom - y + 1, ROLE_TITLE, text);
	chart_top = y;
	if (c->heads == 1) {
		snprintf(bytes, sizeof bytes, "bytes: the standard holds S, S', A; the online, tiles");
		snprintf(flops, sizeof flops, "flops: 2n²d_k + 2n²d_v + 5n²");
	} else {
		snprintf(bytes, sizeof bytes, "bytes × %d heads: the standard holds S, S', A; the online, tiles",
			 c->heads);
		snprintf(flops, sizeof flops, "flops: (2n²d_k + 2n²d_v + 5n²) × %d", c->heads);
	}
	snprintf(formulas, sizeof formulas, "%s; %s", bytes, flops);
	if (glyphs_columns(formulas) <= avail)
		y += put_wrapped(y, x, avail, bottom - y + 1, ROLE_DIM, formulas);
	else {
		y += put_wrapped(y, x, avail, bottom - y + 1, ROLE_DIM, bytes);
		y += put_wrapped(y, x, avail, bottom - y + 1, ROLE_DIM, flops);
	}
	table_fit(c, avail, &table);
	left = table.columns > glyphs_columns(formulas) ? table.columns : glyphs_columns(formulas);
	beside = width - 1 - left - 2 >= CHART_MIN_WIDTH;
	text_w = beside ? left : avail;
	if (app->cost.running) {
		progress(text, sizeof text, c);
		progress_lines = put_wrapped(bottom - text_lines(text, avail) + 1, x, avail,
					     bottom - y + 1, ROLE_DIM, text);
	}
	text_bottom = bottom - progress_lines;
	for (int k = 0; k < COST_COLUMNS; k++)
		snprintf(cells[k], COST_CELL_MAX, "%s", headers[k]);
	if (y <= text_bottom)
		table_line(y++, x, &table, cells, ROLE_LABEL);
	/* The rows that fit, the last ones first: room is kept for the slope. */
	slope = qkv_cost_slope(c, QKV_COST_STANDARD, NULL);
	if (isfinite(slope)) {
		snprintf(text, sizeof text,
			 "slopes on log–log axes (least squares, n >= %d): time n^%.2f standard, n^%.2f online; "
			 "bytes held n^%.2f standard, n^%.2f online",
			 QKV_COST_FIT_FROM_N, slope, qkv_cost_slope(c, QKV_COST_ONLINE, NULL),
			 qkv_cost_bytes_slope(c, QKV_COST_STANDARD), qkv_cost_bytes_slope(c, QKV_COST_ONLINE));
		slope_lines = text_lines(text, text_w);
	}
	total = c->count + (app->cost.running ? 1 : 0);
	room = text_bottom - y + 1;
	shown = room - (slope_lines > 0 ? slope_lines + 1 : 0);
	if (shown < TABLE_MIN_ROWS)
		shown = TABLE_MIN_ROWS;
	if (shown > room)
		shown = room;
	if (shown > total)
		shown = total;
	if (shown < 0)
		shown = 0;
	for (int i = total - shown; i < total; i++, y++) {
		struct qkv_cost_row row;

		if (i < c->count)
			table_row(y, x, &table, c, &c->rows[i], true);
		else {
			qkv_cost_row_of(c->n, c->d_k, c->heads, &row);
			/* What of n is measured already (the online algorithm goes first). */
			if (c->rows[c->count].n == c->n)
				memcpy(row.time, c->rows[c->count].time, sizeof row.time);
			table_row(y, x, &table, c, &row, false);
		}
	}
	if (slope_lines > 0 && text_bottom - y >= slope_lines)
		y++;
	if (slope_lines > 0)
		y += put_wrapped(y, x, text_w, text_bottom - y + 1, ROLE_NORMAL, text);
	if (!app->cost.running && isfinite(slope)) {
		for (int i = 0, lines = 1; i < 2 && lines > 0; i++) { /* 100,000 only after 10,000 */
			qkv_cost_words(text, sizeof text, c, far_n[i]);
			lines = put_wrapped(y, x, text_w, text_bottom - y + 1, ROLE_TITLE, text);
			y += lines;
		}
	}
	/* The charts: beside the table when wide, under the words when tall. */
	if (c->count >= 2) {
		if (beside && text_bottom - chart_top + 1 >= CHART_MIN_HEIGHT)
			draw_charts(c, chart_top, x + left + 2, text_bottom - chart_top + 1, width - left - 4,
				    text_bottom - chart_top + 1 >= 2 * CHART_MIN_HEIGHT, app->cost.running);
		else if (text_bottom - (y + 1) + 1 >= CHART_MIN_HEIGHT)
			draw_charts(c, y + 1, x, text_bottom - y, width - 2, false, app->cost.running);
		else if (!app->cost.running)
			put_wrapped(y, x, avail, text_bottom - y + 1, ROLE_DIM,
				    "(a larger terminal shows the log–log charts of time and memory)");
	}
}
