/* test_text.c — Check suite for UTF-8 text (qkv/text.h): the one decoder, the
 * columns a text takes on a terminal, the longest prefix that fits, and the one
 * line breaker. Expected values come from the Unicode tables (byte sequences and
 * East Asian Width written out by hand) and from properties of the lines. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/text.h"

#include "tap_main.h"

/* Terminal columns of UTF-8 text: one per ordinary code point, whatever its byte
 * length (1 to 4 bytes here), so multi-byte glyphs line up with ASCII. */
START_TEST(test_text_columns)
{
	ck_assert_int_eq(qkv_text_columns(""), 0);
	ck_assert_int_eq(qkv_text_columns("abc"), 3);
	ck_assert_int_eq(qkv_text_columns("\xe2\x88\x9a" "2"), 2);          /* √2: 3 + 1 bytes */
	ck_assert_int_eq(qkv_text_columns("\xc3\x97"), 1);                   /* ×: 2 bytes */
	ck_assert_int_eq(qkv_text_columns("\xf0\x9d\x9b\xbc x"), 3);         /* a 4-byte letter, space, x */
	ck_assert_int_eq(qkv_text_columns("t1 \xe2\x96\x91\xe2\x96\x92"), 5); /* t1 ░▒ */
}
END_TEST

/* Wide and zero-width characters, by the Unicode tables (East Asian Width W and
 * F; combining marks), not by the process's locale: what a terminal draws. */
START_TEST(test_text_columns_wide)
{
	ck_assert_int_eq(qkv_text_columns("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), 6);  /* 日本語 */
	ck_assert_int_eq(qkv_text_columns("\xed\x95\x9c"), 2);                      /* 한 (Hangul) */
	ck_assert_int_eq(qkv_text_columns("\xef\xbd\x86x"), 3);                     /* ｆ fullwidth, x */
	ck_assert_int_eq(qkv_text_columns("\xf0\x9f\x98\x80"), 2);                  /* U+1F600 emoji */
	ck_assert_int_eq(qkv_text_columns("\xf0\xa0\x80\x80"), 2);                  /* U+20000 CJK ext. B */
	ck_assert_int_eq(qkv_text_columns("e\xcc\x81te\xcc\x81"), 3);               /* e + U+0301, t, e + U+0301 */
	ck_assert_int_eq(qkv_text_columns("a\xe2\x80\x8b" "b"), 2);                   /* zero-width space */
	ck_assert_int_eq(qkv_text_columns("\xe3\x80\x80"), 2);                      /* ideographic space */
	ck_assert_int_eq(qkv_text_columns("\xe2\x94\x80\xc2\xb7"), 2);              /* ─· stay narrow */
	ck_assert_int_eq(qkv_text_columns("\xff" "a"), 2);                          /* a stray byte: one */
	/* Every boundary of the two tables, one past each end, and a binary search
	 * that lands on each range. */
	ck_assert_int_eq(qkv_char_columns(0x10ff), 1);
	ck_assert_int_eq(qkv_char_columns(0x1100), 2);
	ck_assert_int_eq(qkv_char_columns(0x115f), 2);
	ck_assert_int_eq(qkv_char_columns(0x1160), 1);
	ck_assert_int_eq(qkv_char_columns(0x2ff), 1);
	ck_assert_int_eq(qkv_char_columns(0x300), 0);
	ck_assert_int_eq(qkv_char_columns(0x36f), 0);
	ck_assert_int_eq(qkv_char_columns(0x370), 1);
	ck_assert_int_eq(qkv_char_columns(0xac00), 2);
	ck_assert_int_eq(qkv_char_columns(0xd7a3), 2);
	ck_assert_int_eq(qkv_char_columns(0xd7a4), 1);
	ck_assert_int_eq(qkv_char_columns(0x3fffd), 2);
	ck_assert_int_eq(qkv_char_columns(0x3fffe), 1);
	ck_assert_int_eq(qkv_char_columns(0xe0100), 0);
}
END_TEST

/* The longest prefix that fits, never inside a character and never between a
 * letter and its combining mark. */
START_TEST(test_text_fit)
{
	const char *cjk = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"; /* 日本語: 3 × 3 bytes, 2 columns each */

	ck_assert_uint_eq(qkv_text_fit(cjk, 6, 100), 9);
	ck_assert_uint_eq(qkv_text_fit(cjk, 5, 100), 6);
	ck_assert_uint_eq(qkv_text_fit(cjk, 1, 100), 0);
	ck_assert_uint_eq(qkv_text_fit(cjk, 100, 8), 6);
	ck_assert_uint_eq(qkv_text_fit("abc", 2, 100), 2);
	ck_assert_uint_eq(qkv_text_fit("e\xcc\x81x", 1, 100), 3);   /* é stays whole */
	ck_assert_uint_eq(qkv_text_fit("e\xcc\x81x", 1, 2), 0);     /* no room for the mark */
	ck_assert_uint_eq(qkv_text_fit("", 5, 5), 0);
}
END_TEST

/* One UTF-8 check: valid sequences give their code point; overlong forms,
 * surrogates, points past U+10FFFF, stray continuation bytes and sequences cut
 * short give 0. */
START_TEST(test_utf8_decode)
{
	unsigned long point = 0;

	ck_assert_uint_eq(qkv_utf8_decode("A", 1, &point), 1);
	ck_assert_uint_eq(point, 0x41);
	ck_assert_uint_eq(qkv_utf8_decode("\xc3\xa9", 2, &point), 2);
	ck_assert_uint_eq(point, 0xe9);
	ck_assert_uint_eq(qkv_utf8_decode("\xe2\x88\x9a", 3, &point), 3);
	ck_assert_uint_eq(point, 0x221a);
	ck_assert_uint_eq(qkv_utf8_decode("\xf4\x8f\xbf\xbf", 4, &point), 4);
	ck_assert_uint_eq(point, 0x10ffff);
	ck_assert_uint_eq(qkv_utf8_decode("\xc0\x80", 2, NULL), 0);         /* overlong NUL */
	ck_assert_uint_eq(qkv_utf8_decode("\xe0\x80\xaf", 3, NULL), 0);     /* overlong '/' */
	ck_assert_uint_eq(qkv_utf8_decode("\xed\xa0\x80", 3, NULL), 0);     /* surrogate */
	ck_assert_uint_eq(qkv_utf8_decode("\xf4\x90\x80\x80", 4, NULL), 0); /* past U+10FFFF */
	ck_assert_uint_eq(qkv_utf8_decode("\x80", 1, NULL), 0);
	ck_assert_uint_eq(qkv_utf8_decode("\xe2\x88", 2, NULL), 0);         /* cut short */
	ck_assert_uint_eq(qkv_utf8_decode("\xe2\x88\x9a", 2, NULL), 0);     /* past avail */
	ck_assert_uint_eq(qkv_utf8_decode("", 0, NULL), 0);
	ck_assert_uint_eq(qkv_utf8_length("\xe2\x88\x9ax"), 3);
	ck_assert_uint_eq(qkv_utf8_length("\xffx"), 1);
	ck_assert_uint_eq(qkv_utf8_length("\xe2\x88"), 1);
	ck_assert_uint_eq(qkv_utf8_length(""), 0);
}
END_TEST

/* Breaks text into lines at width and checks them: each fits in width columns;
 * joined again (each break was at spaces or one newline, or inside a word longer
 * than the line) they give back text's words in order. Returns the line count. */
static int check_lines(const char *text, int width, const char *expected[], int expected_count)
{
	const char *s = text;
	int count = 0;

	while (*s != '\0') {
		const char *next;
		size_t length = qkv_text_line(s, width, &next);
		char line[256];

		ck_assert_msg(length > 0 || *s == '\n', "an empty line inside \"%s\"", s);
		ck_assert_uint_lt(length, sizeof line);
		memcpy(line, s, length);
		line[length] = '\0';
		ck_assert_int_le(qkv_text_columns(line), width);
		ck_assert(next > s);
		for (const char *c = s + length; c < next; c++)
			ck_assert_msg(*c == ' ' || *c == '\n', "\"%s\": bytes lost at a break", text);
		if (count < expected_count)
			ck_assert_str_eq(line, expected[count]);
		count++;
		s = next;
	}
	ck_assert_int_eq(count, expected_count);
	return count;
}

/* Lines break at the last space that fits, at a newline, and inside a word only
 * when the word is longer than the line; wide characters count two columns. */
START_TEST(test_text_line)
{
	const char *words[] = { "the weights", "sum to one" };
	const char *newline[] = { "a b", "c" };
	const char *long_word[] = { "abcd", "efgh", "ij k" };
	const char *cjk[] = { "\xe6\x97\xa5\xe6\x9c\xac", "\xe8\xaa\x9e x" }; /* 日本 / 語 x */
	const char *fits[] = { "exactly ten" };
	const char *edge[] = { "exactly ten", "more" };
	const char *next;

	check_lines("the weights sum to one", 12, words, 2);
	check_lines("a b\nc", 10, newline, 2);
	check_lines("abcdefghij k", 4, long_word, 3);
	check_lines("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e x", 5, cjk, 2);
	check_lines("exactly ten", 11, fits, 1);
	/* A word that ends at the last column stays on its line. */
	check_lines("exactly ten more", 11, edge, 2);
	check_lines("exactly ten  more", 11, edge, 2);
	/* Spaces and the newline after a break are skipped. */
	ck_assert_uint_eq(qkv_text_line("ab   cd", 3, &next), 2);
	ck_assert_str_eq(next, "cd");
	ck_assert_uint_eq(qkv_text_line("", 5, &next), 0);
	ck_assert_str_eq(next, "");
}
END_TEST

static Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, test_text_columns);
	tcase_add_test(tc, test_text_columns_wide);
	tcase_add_test(tc, test_text_fit);
	tcase_add_test(tc, test_utf8_decode);
	tcase_add_test(tc, test_text_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(text_suite());
}
