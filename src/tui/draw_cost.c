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

#define COST_TEXT_MAX 512
#define TABLE_WIDTH 68     /* the table's columns */
#define CHART_MIN_WIDTH 40 /* a chart beside the table needs this much */
#define CHART_MIN_HEIGHT 8
static const int far_n[2] = { 10000, 100000 };

static void put(int y, int x, enum palette_role role, const char *text)
{
	char drawn[COST_TEXT_MAX];

	palette_apply(stdscr, palette_role(role));
	mvaddstr(y, x, glyphs_text(text, drawn, sizeof drawn));
}

/* Writes text from (y, x) over at most `lines` lines of `width` columns, broken
 * by qkv_text_line; returns the lines used. */
static int put_wrapped(int y, int x, int width, int lines, enum palette_role role, const char *text)
{
	char drawn[COST_TEXT_MAX];
	const char *s = glyphs_text(text, drawn, sizeof drawn); /* broken where it is drawn */
	int line = 0;

	if (width <= 0)
		return 0;
	for (; line < lines && *s != '\0'; line++) {
		const char *next;
		char chunk[COST_TEXT_MAX];
		size_t length = qkv_text_line(s, width, &next);

		if (length > sizeof chunk - 1)
			length = sizeof chunk - 1;
		memcpy(chunk, s, length);
		chunk[length] = '\0';
		put(y + line, x, role, chunk);
		s = next;
	}
	return line;
}

/* One line of the table: n, scores, bytes in double and in 16-bit, flops, time. */
static void table_row(int y, int x, const struct qkv_cost_row *row, bool measured)
{
	char entries[32], f64[32], f16[32], flops[32], time[32], line[200];

	qkv_format_grouped(entries, sizeof entries, (long long)row->entries);
	qkv_cost_bytes_words(f64, sizeof f64, (double)row->bytes_f64);
	qkv_cost_bytes_words(f16, sizeof f16, (double)row->bytes_f16);
	qkv_format_grouped(flops, sizeof flops, (long long)row->flops);
	if (measured)
		snprintf(time, sizeof time, "%.4g ms", row->ms);
	else
		snprintf(time, sizeof time, "measuring");
	snprintf(line, sizeof line, "%6d %12s %9s %9s %15s %11s", row->n, entries, f64, f16, flops, time);
	put(y, x, measured ? ROLE_NORMAL : ROLE_DIM, line);
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

void draw_cost(const struct app *app, const struct layout *l)
{
	const struct qkv_cost *c = app->cost.table;
	int top = 2, bottom = l->notes_y - 1, width = l->width, y, x = 1;
	char text[COST_TEXT_MAX];
	double slope;
	bool beside;
	int text_w;

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	if (c == NULL)
		return;
	if (c->heads == 1)
		snprintf(text, sizeof text, " the price of n² · one head, d_k = d_v = %d · measured on this machine ",
			 c->d_k);
	else
		snprintf(text, sizeof text, " the price of n² · %d heads, each timed with d_k = d_v = %d · on this "
			 "machine ", c->heads, c->d_k);
	put(top, x, ROLE_TITLE, text);
	if (c->heads == 1)
		put(top + 1, x, ROLE_DIM, "bytes: S, S' and A (n × n each); flops: 2n²d_k + 2n²d_v + 5n²");
	else {
		snprintf(text, sizeof text, "bytes: S, S' and A (n × n each) × %d heads; flops: (2n²d_k + 2n²d_v + "
			 "5n²) × %d", c->heads, c->heads);
		put(top + 1, x, ROLE_DIM, text);
	}
	snprintf(text, sizeof text, "%6s %12s %9s %9s %15s %11s", "n", "scores", "double", "16-bit", "flops",
		 "time");
	put(top + 2, x, ROLE_LABEL, text);
	y = top + 3;
	for (int i = 0; i < c->count && y <= bottom; i++, y++)
		table_row(y, x, &c->rows[i], true);
	if (app->cost.running && y <= bottom) {
		struct qkv_cost_row row;

		qkv_cost_row_of(c->n, c->d_k, c->heads, &row);
		table_row(y++, x, &row, false);
	}
	y++;
	beside = width - 1 - TABLE_WIDTH - 2 >= CHART_MIN_WIDTH;
	text_w = beside ? TABLE_WIDTH : width - 2;
	slope = qkv_cost_slope(c, NULL);
	if (isfinite(slope) && y <= bottom) {
		snprintf(text, sizeof text,
			 "slope of log time against log n (least squares, n >= %d): %.2f — the time grows "
			 "about as n^%.2f; the scores and the bytes as n² exactly",
			 QKV_COST_FIT_FROM_N, slope, slope);
		y += put_wrapped(y, x, text_w, bottom - y + 1, ROLE_NORMAL, text);
	}
	if (!app->cost.running && isfinite(slope)) {
		for (int i = 0; i < 2 && y <= bottom; i++) {
			qkv_cost_words(text, sizeof text, c, far_n[i]);
			y += put_wrapped(y, x, text_w, bottom - y + 1, ROLE_TITLE, text);
		}
	}
	/* The charts: beside the table when wide, under the words when tall. */
	if (c->count >= 2) {
		int chart_bottom = bottom - (app->cost.running ? 1 : 0);

		if (beside && chart_bottom - (top + 1) + 1 >= CHART_MIN_HEIGHT)
			draw_charts(c, top + 1, x + TABLE_WIDTH + 2, chart_bottom - top,
				    width - TABLE_WIDTH - 4, chart_bottom - top >= 2 * CHART_MIN_HEIGHT,
				    app->cost.running);
		else if (chart_bottom - (y + 1) + 1 >= CHART_MIN_HEIGHT)
			draw_charts(c, y + 1, x, chart_bottom - y, width - 2, false, app->cost.running);
		else if (!app->cost.running && y <= bottom)
			put(y, x, ROLE_DIM, "(a larger terminal shows the log–log charts of time and memory)");
	}
	if (app->cost.running) {
		progress(text, sizeof text, c);
		put(bottom, x, ROLE_DIM, text);
	}
}
