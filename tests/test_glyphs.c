/* test_glyphs.c — Check suite for the glyph set (src/tui/glyphs.h): which set the
 * locale gives (UTF-8, the C.UTF-8 fallback, ASCII when no UTF-8 locale can be had
 * or QKV_ASCII asks for it), and the ASCII spelling of what the interface draws.
 * Expected spellings are written out by hand from the table's intent (√ is "sqrt"
 * with its operand in parentheses, boxes are | - +), not copied from output. */
#include <check.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/help.h"
#include "tui/glyphs.h"

#include "tap_main.h"

/* The key table as the app reads it: app_bindings with each view's own row. */
static const struct app_keys *key_rows(void)
{
	static struct app_keys keys;

	app_keys_default(&keys);
	return &keys;
}

/* Every byte of s is ASCII. */
static bool all_ascii(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* The environment of a terminal with no locale set at all. */
static void clear_locale_environment(void)
{
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	unsetenv("LANG");
	unsetenv("QKV_ASCII");
	setlocale(LC_ALL, "C");
}

START_TEST(test_utf8_is_untouched)
{
	char buf[64];
	const char *s = "÷ √2 = 1.414 · τ 1";

	glyphs_use(GLYPHS_UTF8);
	ck_assert_ptr_eq(glyphs_text(s, buf, sizeof buf), s);
	ck_assert_int_eq(glyphs_columns(s), 18);
	ck_assert_str_eq(glyphs_shade(3), "▒");
	ck_assert(glyphs_half_blocks());
}
END_TEST

START_TEST(test_ascii_spellings)
{
	static const struct {
		const char *utf8, *ascii;
	} cases[] = {
		{ "÷ √2 = 1.414", "/ sqrt(2) = 1.414" },
		{ "÷ τ√64 = 4.000", "/ tau*sqrt(64) = 4.000" },
		{ "softmax(Q Kᵀ / √d_k) V", "softmax(Q K^T / sqrt(d_k)) V" },
		{ "max  H/lnN   eff  ‖J‖", "max  H/lnN   eff  ||J||" },
		{ "Σrow", "sumrow" },
		{ "e^(S' − max) / Σ e^(S' − max)", "e^(S' - max) / sum e^(S' - max)" },
		{ "┌─┐│└┘┊", "+-+|++:" },
		{ "▶ Q  queries", "> Q  queries" },
		{ "d_k →", "d_k ->" },
		{ "↑↓ tokens · ←→ trials", "Up/Down tokens . Left/Right trials" },
		{ "j ≤ i, ±1e12, 0–1, a — b, 1…3", "j <= i, +-1e12, 0-1, a - b, 1...3" },
		{ "“x” is", "\"x\" is" },
		{ "● scaled ◆ both × unscaled ○ extrapolated", "* scaled # both x unscaled o extrapolated" },
		{ "2n²d_k ┤┬", "2n^2d_k ++" },
		{ "‖∇W_Q‖ · ∂L/∂O ✓ ❚❚ paused", "||grad W_Q|| . dL/dO (done) || paused" },
		{ "masked: −∞", "masked: -inf" },
		{ "Concat · W_O = Σᵢ head_i · W_O(i)", "Concat . W_O = sum_i head_i . W_O(i)" },
		{ "[head 1 … head 3], n × h·d_v", "[head 1 ... head 3], n x h.d_v" },
		{ "café 日本", "caf? ??" },
		{ "plain ASCII", "plain ASCII" },
	};
	char buf[128];

	glyphs_use(GLYPHS_ASCII);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = glyphs_text(cases[i].utf8, buf, sizeof buf);
		ck_assert_msg(strcmp(got, cases[i].ascii) == 0, "\"%s\" became \"%s\", expected \"%s\"",
			      cases[i].utf8, got, cases[i].ascii);
		ck_assert_int_eq(glyphs_columns(cases[i].utf8), (int)strlen(cases[i].ascii));
	}
	glyphs_use(GLYPHS_UTF8);
}
END_TEST

/* A short buffer cuts the text and still ends it; nothing is written past it. */
START_TEST(test_ascii_cut)
{
	char buf[8];

	memset(buf, 'Z', sizeof buf);
	glyphs_use(GLYPHS_ASCII);
	ck_assert_str_eq(glyphs_text("÷ √1024 = 32", buf, 7), "/ sqrt");
	ck_assert_int_eq(buf[7], 'Z');
	ck_assert_str_eq(glyphs_text("√", buf, 1), "");
	glyphs_use(GLYPHS_UTF8);
}
END_TEST

/* Shades: six, distinct, ASCII, lightest a space, none a sign or a point. */
START_TEST(test_ascii_shades)
{
	glyphs_use(GLYPHS_ASCII);
	ck_assert_str_eq(glyphs_shade(0), " ");
	for (int k = 0; k < 6; k++) {
		ck_assert_int_eq((int)strlen(glyphs_shade(k)), 1);
		ck_assert(all_ascii(glyphs_shade(k)));
		ck_assert_ptr_null(strpbrk(glyphs_shade(k), "+-.,0123456789"));
		for (int j = 0; j < k; j++)
			ck_assert_str_ne(glyphs_shade(j), glyphs_shade(k));
	}
	ck_assert_str_eq(glyphs_shade(5), "@");
	ck_assert(!glyphs_half_blocks());
	glyphs_use(GLYPHS_UTF8);
}
END_TEST

/* Every byte sequence, valid UTF-8 or not, comes out ASCII and no longer than asked. */
START_TEST(test_ascii_any_bytes)
{
	char in[64], buf[40];
	unsigned int state = 12345;

	glyphs_use(GLYPHS_ASCII);
	for (int trial = 0; trial < 20000; trial++) {
		size_t n = 1 + (state >> 16) % 63;
		for (size_t i = 0; i < n; i++) {
			state = state * 1103515245u + 12345u;
			in[i] = (char)(1 + (state >> 16) % 255);
		}
		in[n > 63 ? 63 : n] = '\0';
		const char *out = glyphs_text(in, buf, sizeof buf);
		ck_assert(all_ascii(out));
		if (out == buf)
			ck_assert_uint_lt(strlen(out), sizeof buf);
	}
	glyphs_use(GLYPHS_UTF8);
}
END_TEST

/* No locale in the environment: the C.UTF-8 fallback is taken, so UTF-8 is drawn. */
START_TEST(test_start_falls_back_to_c_utf8)
{
	clear_locale_environment();
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL && setlocale(LC_CTYPE, "C.utf8") == NULL) {
		setlocale(LC_ALL, "C");
		return; /* this system has no C.UTF-8: the next test covers it */
	}
	setlocale(LC_ALL, "C");
	ck_assert_int_eq(glyphs_start(glyphs_fallback_locales), GLYPHS_UTF8);
	ck_assert_int_eq(glyphs_set(), GLYPHS_UTF8);
	/* LANG naming a locale that is not installed is the same as none. */
	clear_locale_environment();
	setenv("LANG", "xx_NO.UTF-8", 1);
	ck_assert_int_eq(glyphs_start(glyphs_fallback_locales), GLYPHS_UTF8);
	clear_locale_environment();
}
END_TEST

/* No UTF-8 locale to be had (the fallbacks name none that exists): ASCII. */
START_TEST(test_start_without_utf8_locale)
{
	static const char *const none[] = { "qkv-no-such-locale.UTF-8", NULL };

	clear_locale_environment();
	ck_assert_int_eq(glyphs_start(none), GLYPHS_ASCII);
	ck_assert_int_eq(glyphs_set(), GLYPHS_ASCII);
	ck_assert_int_eq(glyphs_start(NULL), GLYPHS_ASCII);
	glyphs_use(GLYPHS_UTF8);
	clear_locale_environment();
}
END_TEST

/* QKV_ASCII asks for ASCII even in a UTF-8 locale; empty means unset. */
START_TEST(test_start_ascii_asked_for)
{
	clear_locale_environment();
	setenv("QKV_ASCII", "1", 1);
	ck_assert_int_eq(glyphs_start(glyphs_fallback_locales), GLYPHS_ASCII);
	setenv("QKV_ASCII", "", 1);
	if (setlocale(LC_CTYPE, "C.UTF-8") != NULL) {
		setlocale(LC_ALL, "C");
		ck_assert_int_eq(glyphs_start(glyphs_fallback_locales), GLYPHS_UTF8);
	}
	glyphs_use(GLYPHS_UTF8);
	clear_locale_environment();
}
END_TEST

/* The terminal's answer to ESC [ 6 n: the column of the last report, wherever it
 * sits among other bytes; anything else is no report. */
START_TEST(test_report_column)
{
	static const char latin1[] = "\033[1;3R", utf8[] = "x\033[12;2R", two[] = "\033[1;3R\033[5;17R";

	ck_assert_int_eq(glyphs_report_column(latin1, strlen(latin1)), 3);
	ck_assert_int_eq(glyphs_report_column(utf8, strlen(utf8)), 2);
	ck_assert_int_eq(glyphs_report_column(two, strlen(two)), 17);
	ck_assert_int_eq(glyphs_report_column("", 0), -1);
	ck_assert_int_eq(glyphs_report_column("\033[1;3", 6), -1);   /* no R yet */
	ck_assert_int_eq(glyphs_report_column("\033[;3R", 6), -1);   /* no row */
	ck_assert_int_eq(glyphs_report_column("\033[1;R", 6), -1);   /* no column */
	ck_assert_int_eq(glyphs_report_column("\033[?1;2c", 8), -1); /* a device report is no position */
	ck_assert_int_eq(glyphs_report_column("\033[1;3R", 5), -1);  /* cut before the R */
}
END_TEST

/* Whether a fallback was taken: only when the environment named the C locale. */
START_TEST(test_fell_back)
{
	clear_locale_environment();
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
		setlocale(LC_ALL, "C");
		return;
	}
	setlocale(LC_ALL, "C");
	glyphs_start(glyphs_fallback_locales);
	ck_assert(glyphs_fell_back());
	setenv("LC_ALL", "C.UTF-8", 1);
	glyphs_start(glyphs_fallback_locales);
	ck_assert(!glyphs_fell_back());
	glyphs_use(GLYPHS_UTF8);
	clear_locale_environment();
	setlocale(LC_ALL, "C");
}
END_TEST

/* Every key of the help is reachable and none is cut, in either glyph set (drawn in
 * ASCII, √d_k becomes sqrt(d_k) and → becomes ->), at 80×24 and at 200×60: each
 * binding with a note is on one page of app_help_layout's, its name inside the name
 * column and its note, as wide as the set draws it, inside the box's frame; each
 * heading inside the box too. */
START_TEST(test_help_entries_fit_either_set)
{
	static const enum glyph_set sets[] = { GLYPHS_UTF8, GLYPHS_ASCII };
	static const int sizes[][2] = { { 80, 24 }, { 200, 60 } };
	static struct app_help help;

	for (int s = 0; s < 2; s++)
		for (int z = 0; z < 2; z++) {
			int width = sizes[z][0], height = sizes[z][1];

			glyphs_use(sets[s]);
			app_help_layout(&help, width, height);
			ck_assert_int_ge(help.x, 0);
			ck_assert_int_le(help.x + help.w, width);
			ck_assert_int_ge(help.y, 0);
			ck_assert_int_le(help.y + help.h, height);
			for (int i = 0; i < key_rows()->count; i++) {
				const struct app_binding *b = key_rows()->rows[i];
				int found = 0;

				if (b->note == NULL)
					continue;
				for (int k = 0; k < help.count; k++) {
					const struct app_help_item *item = &help.items[k];
					int x = help.x + 2 + item->column * APP_HELP_COLUMN;

					if (item->name != b->name || item->text != b->note)
						continue;
					found++;
					ck_assert_int_lt(item->page, help.pages);
					ck_assert_int_lt(item->line, help.lines);
					ck_assert_msg(glyphs_columns(b->name) <= APP_KEY_NAME_MAX, "set %d: %s too wide", s,
						      b->name);
					ck_assert_msg(x + APP_KEY_NAME_MAX + 1 + glyphs_columns(b->note) <=
							      help.x + help.w - 2,
						      "set %d, %d×%d: %s: “%s” cut by the frame", s, width, height, b->name,
						      b->note);
				}
				ck_assert_msg(found == 1, "set %d, %d×%d: %s listed %d times", s, width, height, b->name,
					      found);
			}
			for (int k = 0; k < help.count; k++)
				if (help.items[k].name == NULL)
					ck_assert_msg(help.x + 2 + help.items[k].column * APP_HELP_COLUMN +
								      glyphs_columns(help.items[k].text) <=
							      help.x + help.w - 2,
						      "heading “%s” cut", help.items[k].text);
		}
	glyphs_use(GLYPHS_UTF8);
}
END_TEST

static Suite *glyphs_suite(void)
{
	Suite *s = suite_create("glyphs");
	TCase *text = tcase_create("text");
	tcase_add_test(text, test_utf8_is_untouched);
	tcase_add_test(text, test_ascii_spellings);
	tcase_add_test(text, test_ascii_cut);
	tcase_add_test(text, test_ascii_shades);
	tcase_add_test(text, test_ascii_any_bytes);
	tcase_add_test(text, test_help_entries_fit_either_set);
	suite_add_tcase(s, text);
	TCase *start = tcase_create("start");
	tcase_add_test(start, test_start_falls_back_to_c_utf8);
	tcase_add_test(start, test_start_without_utf8_locale);
	tcase_add_test(start, test_start_ascii_asked_for);
	tcase_add_test(start, test_report_column);
	tcase_add_test(start, test_fell_back);
	suite_add_tcase(s, start);
	return s;
}

int main(void)
{
	return run_tap(glyphs_suite());
}
