/* draw_cost.c — the cost view: what attention costs as n grows, measured on the
 * machine in front of the class. The rows appear as they are measured; every
 * number and sentence is read from the app's cost table (qkv/cost.h). Reads the
 * app; changes nothing. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/draw_cost.h"
#include "tui/palette.h"

#define COST_TEXT_MAX 512

static void put(int y, int x, enum palette_role role, const char *text)
{
	palette_apply(stdscr, palette_role(role));
	mvaddstr(y, x, text);
}

/* Writes text from (y, x) over at most `lines` lines of `width` columns, breaking
 * at spaces; returns the lines used. */
static int put_wrapped(int y, int x, int width, int lines, enum palette_role role, const char *text)
{
	const char *s = text;
	int line = 0;

	for (; line < lines && *s != '\0'; line++) {
		const char *end = s, *cut = NULL;
		char chunk[COST_TEXT_MAX];
		size_t length;
		int columns = 0;

		while (*end != '\0') {
			if (((unsigned char)*end & 0xc0) != 0x80) {
				if (columns == width)
					break;
				columns++;
			}
			if (*end == ' ')
				cut = end;
			end++;
		}
		if (*end != '\0' && cut != NULL && cut > s)
			end = cut;
		length = (size_t)(end - s) < sizeof chunk - 1 ? (size_t)(end - s) : sizeof chunk - 1;
		memcpy(chunk, s, length);
		chunk[length] = '\0';
		put(y + line, x, role, chunk);
		s = end;
		while (*s == ' ')
			s++;
	}
	return line;
}

/* A whole number with thousands separated by commas. */
static void grouped(char *buf, size_t size, long long value)
{
	char digits[32];
	int length = snprintf(digits, sizeof digits, "%lld", value), at = 0;

	for (int i = 0; i < length && (size_t)at + 2 < size; i++) {
		if (i > 0 && (length - i) % 3 == 0)
			buf[at++] = ',';
		buf[at++] = digits[i];
	}
	buf[at] = '\0';
}

/* One line of the table: n, scores, bytes in double and in 16-bit, flops, time. */
static void table_row(int y, int x, const struct qkv_cost_row *row, bool measured)
{
	char entries[32], f64[32], f16[32], flops[32], time[32], line[200];

	grouped(entries, sizeof entries, (long long)row->entries);
	qkv_cost_bytes_words(f64, sizeof f64, (double)row->bytes_f64);
	qkv_cost_bytes_words(f16, sizeof f16, (double)row->bytes_f16);
	grouped(flops, sizeof flops, (long long)row->flops);
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

void draw_cost(const struct app *app, const struct layout *l)
{
	const struct qkv_cost *c = app->cost;
	int top = 2, bottom = l->status_y - 1, width = l->width, y, x = 1;
	char text[COST_TEXT_MAX];
	double slope;

	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = top; r <= bottom; r++)
		mvhline(r, 0, ' ', width);
	if (c == NULL)
		return;
	snprintf(text, sizeof text, " the price of n² · one head, d_k = d_v = %d · measured on this machine ",
		 c->d_k);
	put(top, x, ROLE_TITLE, text);
	put(top + 1, x, ROLE_DIM, "bytes: S, S' and A (n × n each); flops: 2n²d_k + 2n²d_v + 5n²");
	snprintf(text, sizeof text, "%6s %12s %9s %9s %15s %11s", "n", "scores", "double", "16-bit", "flops",
		 "time");
	put(top + 2, x, ROLE_LABEL, text);
	y = top + 3;
	for (int i = 0; i < c->count && y <= bottom; i++, y++)
		table_row(y, x, &c->rows[i], true);
	if (app->cost_running && y <= bottom) {
		struct qkv_cost_row row;

		qkv_cost_row_of(c->n, c->d_k, c->heads, &row);
		table_row(y++, x, &row, false);
	}
	y++;
	slope = qkv_cost_slope(c, NULL);
	if (isfinite(slope) && y <= bottom) {
		snprintf(text, sizeof text,
			 "slope of log time against log n (least squares, n >= %d): %.2f — the time grows "
			 "about as n^%.2f; the scores and the bytes as n² exactly",
			 QKV_COST_FIT_FROM_N, slope, slope);
		y += put_wrapped(y, x, width - 2, bottom - y + 1, ROLE_NORMAL, text);
	}
	if (!app->cost_running && isfinite(slope)) {
		static const int far[] = { 10000, 100000 };

		for (int i = 0; i < 2 && y <= bottom; i++) {
			qkv_cost_words(text, sizeof text, c, far[i]);
			y += put_wrapped(y, x, width - 2, bottom - y + 1, ROLE_TITLE, text);
		}
	}
	if (app->cost_running) {
		progress(text, sizeof text, c);
		put(bottom, x, ROLE_DIM, text);
	}
}
