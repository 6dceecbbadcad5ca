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
#define COST_COLUMNS 6     /* n, scores, double, 16-bit, flops, time */
#define COST_CELL_MAX 32
#define TIME_WIDTH 11      /* "0.001913 ms" */
#define TABLE_MIN_ROWS 3   /* rows kept when the sentences below ask for room */
#define CHART_MIN_WIDTH 40 /* a chart beside the table needs this much */
#define CHART_MIN_HEIGHT 8
static const int far_n[2] = { 10000, 100000 };
static const char *const headers[COST_COLUMNS] = { "n", "scores", "double", "16-bit", "flops", "time" };

/* The table's columns: each as wide as its widest entry over the rows planned
 * (n = 16 … last_n) and measured, so it keeps its place while the rows come in. */
struct cost_table {
	int width[COST_COLUMNS];
	int gap;    /* spaces between two columns */
	bool f16;   /* the 16-bit column is shown */
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

/* A row's entries: n, scores, bytes in double and in 16-bit, flops, time. */
static void row_cells(const struct qkv_cost_row *row, bool measured, char cells[COST_COLUMNS][COST_CELL_MAX])
{
	snprintf(cells[0], COST_CELL_MAX, "%d", row->n);
	qkv_format_grouped(cells[1], COST_CELL_MAX, (long long)row->entries);
	qkv_cost_bytes_words(cells[2], COST_CELL_MAX, (double)row->bytes_f64);
	qkv_cost_bytes_words(cells[3], COST_CELL_MAX, (double)row->bytes_f16);
	qkv_format_grouped(cells[4], COST_CELL_MAX, (long long)row->flops);
	if (measured)
		snprintf(cells[5], COST_CELL_MAX, "%.4g ms", row->ms);
	else
		snprintf(cells[5], COST_CELL_MAX, "measuring");
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
		if (k != 3 || t->f16) {
			columns += t->width[k];
			shown++;
		}
	return columns + (shown - 1) * t->gap;
}

/* The table in `avail` columns: two spaces between columns when they fit, one
 * otherwise, and without the 16-bit column (a quarter of the double one) when
 * even that is too wide. */
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
		row_cells(&row, false, cells);
		table_widen(t, cells);
	}
	for (int i = 0; i < c->count; i++) {
		row_cells(&c->rows[i], true, cells);
		table_widen(t, cells);
	}
	t->f16 = true;
	t->gap = 2;
	if (table_columns(t) > avail)
		t->gap = 1;
	if (table_columns(t) > avail)
		t->f16 = false;
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

		if (k == 3 && !t->f16)
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
static void table_row(int y, int x, const struct cost_table *t, const struct qkv_cost_row *row, bool measured)
{
	char cells[COST_COLUMNS][COST_CELL_MAX];

	row_cells(row, measured, cells);
	table_line(y, x, t, cells, measured ? ROLE_NORMAL : ROLE_DIM);
}

/* What the measurement is doing now, from its state. */
static void progress(char *buf, size_t size, const struct qkv_cost *c)
{
	char bytes[32];

	if (!c->prepared || c->touched_rows < c->n) {
		qkv_cost_bytes_words(bytes, sizeof bytes, (double)c->n * c->n * 8.0 * QKV_COST_SQUARES);
		snprintf(buf, size, "taking %s for n = %d … Esc cancels", bytes, c->n);
		return;
	}
	snprintf(buf, size, "measuring n = %d: run %d, query %d of %d … Esc cancels", c->n, c->runs + 1,
		 c->next_row + 1, c->n);
}

/* Two log–log charts of the measured rows, each with the extrapolation to 10,000
 * and 100,000 tokens (○): the time of the trace, and the bytes of S, S' and A in
 * double (●) and in 16-bit floats (×). Stacked when tall, side by side when wide. */
static void draw_charts(const struct qkv_cost *c, int y, int x, int height, int width, bool stacked,
			bool running)
{
	double n[QKV_COST_MAX_ROWS], ms[QKV_COST_MAX_ROWS], f64[QKV_COST_MAX_ROWS], f16[QKV_COST_MAX_ROWS];
	double far_x[2], far_ms[2], far_f64[2];
	struct cell_style first = palette_signed(-1.0, 1.0), second = palette_signed(1.0, 1.0);
	struct cell_style dim = palette_role(ROLE_DIM);
	int count = c->count, far_count = 0;
	struct chart_series time_series[2], memory_series[3];
	struct chart charts[2];

	for (int i = 0; i < count; i++) {
		n[i] = c->rows[i].n;
		ms[i] = c->rows[i].ms;
		f64[i] = (double)c->rows[i].bytes_f64;
		f16[i] = (double)c->rows[i].bytes_f16;
	}
	/* The extrapolation once the table is complete, as the sentences give it. */
	if (!running && isfinite(qkv_cost_slope(c, NULL)))
		for (int i = 0; i < 2; i++) {
			struct qkv_cost_row row;

			qkv_cost_extrapolate(c, far_n[i], &row);
			far_x[far_count] = far_n[i];
			far_ms[far_count] = row.ms;
			far_f64[far_count++] = (double)row.bytes_f64;
		}
	time_series[0] = (struct chart_series){ n, ms, count, first, "●", "*" };
	time_series[1] = (struct chart_series){ far_x, far_ms, far_count, dim, "○", "o" };
	memory_series[0] = (struct chart_series){ n, f64, count, first, "●", "*" };
	memory_series[1] = (struct chart_series){ n, f16, count, second, "×", "x" };
	memory_series[2] = (struct chart_series){ far_x, far_f64, far_count, dim, "○", "o" };
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
		chart->series_count = k == 0 ? 2 : 3;
		chart->title = k == 0 ? "time of the trace (ms), log–log; ○ extrapolated"
				      : "S, S', A: ● double × 16-bit (bytes), log–log";
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
		snprintf(bytes, sizeof bytes, "bytes: S, S' and A (n × n each)");
		snprintf(flops, sizeof flops, "flops: 2n²d_k + 2n²d_v + 5n²");
	} else {
		snprintf(bytes, sizeof bytes, "bytes: S, S' and A (n × n each) × %d heads", c->heads);
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
	slope = qkv_cost_slope(c, NULL);
	if (isfinite(slope)) {
		snprintf(text, sizeof text,
			 "slope of log time against log n (least squares, n >= %d): %.2f — the time grows "
			 "about as n^%.2f; the scores and the bytes as n² exactly",
			 QKV_COST_FIT_FROM_N, slope, slope);
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
			table_row(y, x, &table, &c->rows[i], true);
		else {
			qkv_cost_row_of(c->n, c->d_k, c->heads, &row);
			table_row(y, x, &table, &row, false);
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
