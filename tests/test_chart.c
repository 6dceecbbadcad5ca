/* test_chart.c — Check suite for the braille line charts (src/tui/chart.c),
 * drawn into an ncurses pad (no terminal needed) and read back cell by cell.
 * Expected characters come from the Unicode braille block (U+2800 + the dot
 * bits: dots 1–8 are bits 0–7, dots 1 2 3 7 down the left column, 4 5 6 8 down
 * the right) and from where a straight line must fall, not from the code. */
#include <check.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <curses.h>

#include "tui/chart.h"
#include "tui/draw_geometry.h"
#include "tui/glyphs.h"

#include "tap_main.h"

static SCREEN *screen;
static FILE *out, *in;

static void setup(void)
{
	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C.UTF-8"));
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(in);
	screen = newterm("xterm-256color", out, in);
	ck_assert_ptr_nonnull(screen);
}

static void teardown(void)
{
	endwin();
	delscreen(screen);
	fclose(out);
	fclose(in);
}

/* The character at (y, x) of w. */
static wchar_t at(WINDOW *w, int y, int x)
{
	cchar_t cell;
	wchar_t text[CCHARW_MAX + 1] = { 0 };
	attr_t attr;
	short pair;

	ck_assert_int_eq(mvwin_wch(w, y, x, &cell), OK);
	getcchar(&cell, text, &attr, &pair, NULL);
	return text[0];
}

static bool is_braille(wchar_t c)
{
	return c >= 0x2800 && c <= 0x28ff;
}

/* Unicode's own numbering: dot 1 alone is U+2801, dot 8 alone U+2880, all eight
 * U+28FF; chart_braille's bit (col * 4 + row) names dot 1 2 3 7 / 4 5 6 8. */
START_TEST(test_braille_code_points)
{
	static const struct {
		unsigned bits;
		const char *utf8;
	} cases[] = {
		{ 0x00, "\xe2\xa0\x80" }, /* U+2800 blank */
		{ 0x01, "\xe2\xa0\x81" }, /* col 0 row 0: dot 1, U+2801 */
		{ 0x08, "\xe2\xa1\x80" }, /* col 0 row 3: dot 7, U+2840 */
		{ 0x10, "\xe2\xa0\x88" }, /* col 1 row 0: dot 4, U+2808 */
		{ 0x80, "\xe2\xa2\x80" }, /* col 1 row 3: dot 8, U+2880 */
		{ 0x06, "\xe2\xa0\x86" }, /* col 0 rows 1, 2: dots 2 3, U+2806 */
		{ 0xff, "\xe2\xa3\xbf" }, /* all: U+28FF */
	};
	char buf[4];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		chart_braille(buf, cases[i].bits);
		ck_assert_msg(strcmp(buf, cases[i].utf8) == 0, "bits 0x%02x", cases[i].bits);
	}
}
END_TEST

/* A horizontal line at the middle of a 0–1 axis sets dots in exactly one row of
 * cells, in every column of the plot, and nowhere else. */
START_TEST(test_flat_line_one_row)
{
	double x[2] = { 0.0, 1.0 }, y[2] = { 0.5, 0.5 };
	struct chart_series s = { x, y, 2, { A_NORMAL, 0, "" }, NULL, NULL };
	struct chart c = { .y = 0, .x = 0, .height = 12, .width = 40, .title = "flat",
			   .x_axis = { .min = 0, .max = 1 }, .y_axis = { .min = 0, .max = 1 },
			   .series = &s, .series_count = 1, .marker_x = NAN };
	WINDOW *pad = newpad(12, 40);
	int rows_with_dots = 0, plot_left = -1;

	ck_assert_ptr_nonnull(pad);
	chart_draw(pad, &c);
	for (int r = 1; r <= 9; r++) {
		int count = 0;
		for (int col = 0; col < 40; col++)
			if (is_braille(at(pad, r, col))) {
				count++;
				if (plot_left < 0 || col < plot_left)
					plot_left = col;
			}
		if (count > 0) {
			rows_with_dots++;
			/* the whole plot width: 40 minus the y labels and the axis */
			ck_assert_int_eq(count, 40 - plot_left);
		}
	}
	ck_assert_int_eq(rows_with_dots, 1);
	delwin(pad);
}
END_TEST

/* A rising line with marks: the first point's mark in the plot's bottom-left
 * cell, the last's in its top-right cell, the curve's cells never going down
 * from left to right, and tick labels 0 and 1 beside the y axis. */
START_TEST(test_rising_line_marks_and_ticks)
{
	double x[3] = { 0.0, 0.5, 1.0 }, y[3] = { 0.0, 0.5, 1.0 };
	struct chart_series s = { x, y, 3, { A_NORMAL, 0, "" }, "\xe2\x97\x8f", "*" }; /* ● */
	struct chart c = { .y = 0, .x = 0, .height = 10, .width = 30, .title = "rise",
			   .x_axis = { .min = 0, .max = 1 }, .y_axis = { .min = 0, .max = 1 },
			   .series = &s, .series_count = 1, .marker_x = NAN };
	WINDOW *pad = newpad(10, 30);
	int axis_col = -1, last_row = 100;

	chart_draw(pad, &c);
	/* the y axis rule is the first column of │ or ┤ on row 1 */
	for (int col = 0; col < 30 && axis_col < 0; col++)
		if (at(pad, 1, col) == 0x2502 || at(pad, 1, col) == 0x2524)
			axis_col = col;
	ck_assert_int_ge(axis_col, 1);
	ck_assert_int_eq(at(pad, 7, axis_col + 1), 0x25cf); /* bottom plot row, first column */
	ck_assert_int_eq(at(pad, 1, 29), 0x25cf);           /* top plot row, last column */
	ck_assert_int_eq(at(pad, 7, axis_col - 1), L'0');   /* tick 0 at the bottom */
	ck_assert_int_eq(at(pad, 1, axis_col - 1), L'1');   /* tick 1 at the top */
	for (int col = axis_col + 1; col < 30; col++)
		for (int r = 1; r <= 7; r++) {
			wchar_t ch = at(pad, r, col);
			if (is_braille(ch) || ch == 0x25cf) {
				ck_assert_int_le(r, last_row + 1); /* never lower than the cell before */
				last_row = r;
				break;
			}
		}
	ck_assert_int_eq(at(pad, 8, axis_col), 0x2514); /* └ */
	delwin(pad);
}
END_TEST

/* The number a y tick label on row r of pad reads (left of the "┤" in column
 * axis_col), or NAN when row r has no tick. */
static double label_on_row(WINDOW *pad, int r, int axis_col)
{
	char text[32];
	int n = 0, from = axis_col;

	if (at(pad, r, axis_col) != 0x2524)
		return NAN;
	while (from > 0 && at(pad, r, from - 1) != L' ')
		from--;
	for (int col = from; col < axis_col && n < (int)sizeof text - 1; col++) {
		wchar_t ch = at(pad, r, col);
		text[n++] = ch == 0x2212 ? '-' : (char)ch;
	}
	text[n] = '\0';
	return strtod(text, NULL);
}

/* Every y tick label reads the value at the middle of its row, where its "┤"
 * points (the axis's ends at the middles of its bottom and top rows), at every
 * height, linear and log: a tick never claims a value half a row away. */
START_TEST(test_ticks_read_their_rows)
{
	for (int logs = 0; logs < 2; logs++)
		for (int height = 5; height <= 24; height++) {
			struct chart c = { .y = 0, .x = 0, .height = height, .width = 40, .title = "t",
					   .x_axis = { .min = 1, .max = 1024, .log = true },
					   .y_axis = { .min = logs ? 0.1 : 0.0, .max = logs ? 1e4 : 1.0, .log = logs },
					   .series_count = 0, .marker_x = NAN };
			WINDOW *pad = newpad(height, 40);
			int plot_h = height - 3, axis_col = -1, labels = 0;

			chart_draw(pad, &c);
			for (int col = 0; col < 40 && axis_col < 0; col++)
				if (at(pad, plot_h, col) == 0x2524)
					axis_col = col;
			ck_assert_msg(axis_col > 0, "height %d: the bottom row has a tick", height);
			for (int r = 1; r <= plot_h; r++) {
				double shown = label_on_row(pad, r, axis_col), k = plot_h - r, middle;

				if (isnan(shown))
					continue;
				labels++;
				middle = logs ? pow(10.0, -1.0 + 5.0 * k / (plot_h - 1)) : k / (plot_h - 1);
				ck_assert_msg(fabs(shown - middle) <= 0.005 * fabs(middle) + 1e-12,
					      "%s axis, height %d: row %d is labelled %g, its middle is %g",
					      logs ? "log" : "linear", height, r, shown, middle);
			}
			ck_assert_msg(labels >= 2, "height %d: %d labels", height, labels);
			ck_assert_msg(!isnan(label_on_row(pad, 1, axis_col)), "height %d: the top row has a tick", height);
			delwin(pad);
		}
}
END_TEST

/* chart_fit_axis: decades on a log axis; round steps on a linear one. */
START_TEST(test_fit_axis)
{
	double x[3] = { 1, 2, 3 }, y[3] = { 0.03, 2.0, 450.0 };
	struct chart_series s = { x, y, 3, { A_NORMAL, 0, "" }, NULL, NULL };
	struct chart_axis log_axis = { .log = true }, lin = { .log = false };

	chart_fit_axis(&log_axis, &s, 1, false);
	ck_assert_double_eq_tol(log_axis.min, 0.01, 1e-15);
	ck_assert_double_eq_tol(log_axis.max, 1000.0, 1e-9);
	chart_fit_axis(&lin, &s, 1, true);
	ck_assert(lin.min <= 1.0 && lin.min > 0.0 - 1e-12);
	ck_assert(lin.max >= 3.0 && lin.max <= 4.0);
}
END_TEST

/* ASCII screens: no braille, no box glyphs. */
START_TEST(test_ascii)
{
	double x[2] = { 0.0, 1.0 }, y[2] = { 0.0, 1.0 };
	struct chart_series s = { x, y, 2, { A_NORMAL, 0, "" }, "\xe2\x97\x8f", "*" };
	struct chart c = { .y = 0, .x = 0, .height = 10, .width = 30, .title = "ascii",
			   .x_axis = { .min = 0, .max = 1 }, .y_axis = { .min = 0, .max = 1 },
			   .series = &s, .series_count = 1, .marker_x = 0.5, .ascii = true };
	WINDOW *pad = newpad(10, 30);
	int stars = 0;

	chart_draw(pad, &c);
	for (int r = 0; r < 10; r++)
		for (int col = 0; col < 30; col++) {
			wchar_t ch = at(pad, r, col);
			ck_assert_msg(ch < 0x80, "non-ASCII U+%04X at %d,%d", (unsigned)ch, r, col);
			stars += ch == L'*';
		}
	ck_assert_int_eq(stars, 2);
	delwin(pad);
}
END_TEST

/* The glyph set decides as well: on an ASCII screen (glyphs_use, as glyphs_start
 * picks without a UTF-8 locale) a chart not asking for ASCII is drawn in ASCII,
 * its UTF-8 title spelled out ("‖J‖" as "||J||"). */
START_TEST(test_ascii_from_the_glyph_set)
{
	double x[2] = { 0.0, 1.0 }, y[2] = { 0.0, 1.0 };
	struct chart_series s = { x, y, 2, { A_NORMAL, 0, "" }, "\xe2\x97\x8f", "*" };
	struct chart c = { .y = 0, .x = 0, .height = 10, .width = 30, .title = "\xe2\x80\x96J\xe2\x80\x96",
			   .x_axis = { .min = 0, .max = 1 }, .y_axis = { .min = 0, .max = 1 },
			   .series = &s, .series_count = 1, .marker_x = 0.5 };
	WINDOW *pad = newpad(10, 30);
	const wchar_t *title = L"||J||";

	glyphs_use(GLYPHS_ASCII);
	chart_draw(pad, &c);
	glyphs_use(GLYPHS_UTF8);
	for (int r = 0; r < 10; r++)
		for (int col = 0; col < 30; col++) {
			wchar_t ch = at(pad, r, col);
			ck_assert_msg(ch < 0x80, "non-ASCII U+%04X at %d,%d", (unsigned)ch, r, col);
		}
	for (int i = 0; title[i] != 0; i++)
		ck_assert_int_eq(at(pad, 0, i), title[i]);
	delwin(pad);
}
END_TEST

/* The geometry view's key marks follow the weight as shown at two decimals, so a
 * weight that reads 0.10 has the mark of 0.10: ◆ from 0.30, ◇ from 0.10, · below. */
START_TEST(test_geometry_key_marks)
{
	ck_assert_str_eq(draw_geometry_key_mark(1.0), "◆");
	ck_assert_str_eq(draw_geometry_key_mark(0.2951), "◆"); /* shown 0.30 */
	ck_assert_str_eq(draw_geometry_key_mark(0.2949), "◇"); /* shown 0.29 */
	ck_assert_str_eq(draw_geometry_key_mark(0.0975), "◇"); /* shown 0.10 */
	ck_assert_str_eq(draw_geometry_key_mark(0.0949), "·"); /* shown 0.09 */
	ck_assert_str_eq(draw_geometry_key_mark(0.0), "·");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chart");
	TCase *tc = tcase_create("chart");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_braille_code_points);
	tcase_add_test(tc, test_flat_line_one_row);
	tcase_add_test(tc, test_rising_line_marks_and_ticks);
	tcase_add_test(tc, test_ticks_read_their_rows);
	tcase_add_test(tc, test_fit_axis);
	tcase_add_test(tc, test_ascii);
	tcase_add_test(tc, test_ascii_from_the_glyph_set);
	tcase_add_test(tc, test_geometry_key_marks);
	suite_add_tcase(s, tc);
	return run_tap(s);
}
