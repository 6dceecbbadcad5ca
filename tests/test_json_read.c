/* test_json_read.c — Check suite for the fast JSON reader (src/io/json_read.h):
 * its numbers are strtod's, bit for bit, for millions of decimal texts (random
 * doubles written four ways as the printer and the saver write them, and random
 * digit strings), and its tree is jansson's — same kinds, same key order, same bits —
 * for every sample, every good and bad test file, and thousands of mutations of
 * them; where jansson refuses a text, the fast reader declines it (so every error
 * stays jansson's). strtod and json_loadb are the independent second method. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_read.h"
#include "qkv/format.h"
#include "json_tree.h"
#include "lcg.h"
#include "rounds.h"

/* 64 random bits: the high halves of two steps of the tests' LCG (its low bits
 * are weak). */
static uint64_t random_bits(struct lcg *g)
{
	uint64_t high;

	g->state = g->state * 6364136223846793005ULL + 1442695040888963407ULL;
	high = g->state >> 32;
	g->state = g->state * 6364136223846793005ULL + 1442695040888963407ULL;
	return high << 32 | g->state >> 32;
}

/* The first text whose value differs from strtod's (Check's assertions cost a
 * file write each: millions of them are asserted once, at the end). */
static char mismatch[128];

/* The reader's value for text equals strtod's, or the reader declines; counts
 * how many it took. */
static void check_decimal(const char *text, long *taken)
{
	double fast, slow = strtod(text, NULL);

	if (!json_read_decimal(text, strlen(text), &fast))
		return;
	if (json_tree_bits(fast) != json_tree_bits(slow) && mismatch[0] == '\0')
		snprintf(mismatch, sizeof mismatch, "%s: reader %.17g, strtod %.17g", text, fast, slow);
	(*taken)++;
}

/* Random doubles of every magnitude a trace holds (and beyond), written as
 * %.17g, as the saver's shortest round trip, and at 15 and 16 digits (not the
 * double itself then: another decimal, still correctly rounded). */
START_TEST(test_decimal_is_strtod)
{
	struct lcg g = { 77 };
	long taken = 0, tried = 0;

	for (int i = 0; i < test_rounds(500000); i++) {
		uint64_t b = random_bits(&g);
		double x;
		char text[64];
		int exponent = lcg_int(&g, -40, 40);

		/* Sign, a random mantissa, and an exponent mostly near 1. */
		b = (b & 0x800fffffffffffffULL) | (uint64_t)(1023 + exponent) << 52;
		memcpy(&x, &b, sizeof x);
		snprintf(text, sizeof text, "%.17g", x);
		check_decimal(text, &taken);
		qkv_format_exact(text, sizeof text, x);
		check_decimal(text, &taken);
		snprintf(text, sizeof text, "%.*g", 15 + i % 2, x);
		check_decimal(text, &taken);
		snprintf(text, sizeof text, "%.*e", i % 19, x);
		check_decimal(text, &taken);
		tried += 4;
	}
	ck_assert_msg(mismatch[0] == '\0', "%s", mismatch);
	/* Nearly all of them go the fast way (the rest is strtod's anyway). */
	ck_assert_msg(taken > tried * 9 / 10, "took %ld of %ld", taken, tried);
}
END_TEST

/* Random digit strings: 1 to 19 significant digits, leading and trailing zeros,
 * a point anywhere, an exponent from −40 to 40 — the halfway cases included
 * (digit strings ending in 5 after a 53-bit value). */
START_TEST(test_decimal_digit_strings)
{
	struct lcg g = { 4242 };
	long taken = 0;

	for (int i = 0; i < test_rounds(600000); i++) {
		char text[80];
		int length = 0, digits = lcg_int(&g, 1, 21), point = lcg_int(&g, 1, digits);

		if (lcg_int(&g, 0, 1))
			text[length++] = '-';
		for (int d = 0; d < digits; d++) {
			if (d == point)
				text[length++] = '.';
			/* The first digit is not 0 unless it stands alone before the point. */
			text[length++] = (char)('0' + (d == 0 ? (point == 1 ? lcg_int(&g, 0, 9) : lcg_int(&g, 1, 9))
						      : lcg_int(&g, 0, 9)));
		}
		if (length > 0 && text[length - 1] == '.')
			text[length++] = '0';
		if (lcg_int(&g, 0, 2) > 0)
			length += snprintf(text + length, sizeof text - (size_t)length, "e%d", lcg_int(&g, -40, 40));
		text[length] = '\0';
		check_decimal(text, &taken);
	}
	/* Exact halfway cases: a double's value and half an ulp, written out in full. */
	for (int i = 0; i < 20000; i++) {
		double x = 1.0 + (double)i * 0x1p-40, next = nextafter(x, 2.0);
		long double mid = ((long double)x + (long double)next) / 2;
		char text[80];

		snprintf(text, sizeof text, "%.19Lg", mid);
		check_decimal(text, &taken);
	}
	ck_assert_msg(mismatch[0] == '\0', "%s", mismatch);
	ck_assert_int_gt(taken, test_rounds(600000) / 2);
	/* Out of its range it declines rather than guess. */
	{
		double v;

		ck_assert(!json_read_decimal("1e400", 5, &v));
		ck_assert(!json_read_decimal("12345678901234567890.5", 22, &v));
		ck_assert(json_read_decimal("-0.0", 4, &v) && v == 0 && signbit(v));
		ck_assert(json_read_decimal("0e400", 5, &v) && v == 0 && !signbit(v));
	}
}
END_TEST

/* ---- trees ----------------------------------------------------------------------------- */

/* The fast tree is jansson's, or the fast reader declines; where jansson
 * refuses, it declines. Returns whether it took the text. */
static bool check_text(const char *text, size_t length, const char *what)
{
	struct json_arena *arena = NULL;
	json_t *fast = json_read_fast(text, length, &arena);
	json_t *slow = json_loadb(text, length, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
	bool took = fast != NULL;

	if (slow == NULL)
		ck_assert_msg(fast == NULL, "%s: jansson refuses it, the fast reader took it", what);
	else if (fast != NULL)
		ck_assert_msg(json_tree_same(fast, slow), "%s: the trees differ", what);
	/* A declined text leaves no arena; a taken one is freed whole. */
	ck_assert(took || arena == NULL);
	json_arena_free(arena);
	json_decref(slow);
	return took;
}

static char *read_text(const char *path, size_t *length)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long size;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(text);
	*length = fread(text, 1, (size_t)size, f);
	text[*length] = '\0';
	fclose(f);
	return text;
}

/* Every .json file of a directory under the source root; the count taken. */
static int check_directory(const char *relative, int *files)
{
	const char *root = getenv("QKV_SOURCE_ROOT");
	char dir[1024];
	DIR *d;
	struct dirent *e;
	int taken = 0;

	snprintf(dir, sizeof dir, "%s/%s", root != NULL ? root : ".", relative);
	d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d)) != NULL) {
		char path[2048];
		size_t length;
		char *text;

		if (strstr(e->d_name, ".json") == NULL)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		text = read_text(path, &length);
		taken += check_text(text, length, path);
		(*files)++;
		free(text);
	}
	closedir(d);
	return taken;
}

START_TEST(test_files_are_janssons_trees)
{
	int files = 0, taken;

	taken = check_directory("samples", &files);
	ck_assert_int_eq(taken, files); /* every sample: the fast way */
	check_directory("tests/data/good", &files);
	check_directory("tests/data/bad", &files);
	ck_assert_int_gt(files, 100);
}
END_TEST

/* Small texts of every kind, each either taken with jansson's tree or declined. */
START_TEST(test_small_texts)
{
	static const char *const texts[] = {
		"{}", "[]", " [1, 2.5, -0, -0.0, 1e3, 1E-3, 2.5e+2] ", "{\"a\": {\"b\": [true, false, null]}}",
		"\"x\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u00e9\"", "\"caf\xc3\xa9\"", "{\"a\": 1, \"a\": 2}",
		"[1,]", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[+1]", "[1 2]", "{\"a\" 1}", "{\"a\": 1,}",
		"[truex]", "[true1]", "[nul]", "[\"a\tb\"]", "123456789012345678", "1234567890123456789",
		"99999999999999999999", "-9223372036854775808", "1e400", "-1e400", "1e-400", "[1]x", "",
		"   ", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
		"{\"\": 1}", "[1.7976931348623157e308, 4.9e-324, 2.2250738585072014e-308]",
		"[0.1000000000000000055511151231257827021181583404541015625]", "\"\\", "[\"abc",
		"{\"k\": \"v\"", "[1, [2, [3]], {\"x\": []}]", "\xef\xbb\xbf{}", "{\"a\\u0000b\": 1}",
	};

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		check_text(texts[i], strlen(texts[i]), texts[i]);
	ck_assert(check_text("[1, 2.5, -0.0, true, null, \"x\"]", 31, "plain"));
}
END_TEST

/* A sample with one random change (a byte replaced, deleted or doubled), 20 000
 * times: jansson's verdict and tree, or a decline. */
START_TEST(test_mutations)
{
	const char *root = getenv("QKV_SOURCE_ROOT");
	static const char alphabet[] = "{}[],:\"\\-+.0123456789eEtrufalsn \t\n\x01\x7f\xc3\xa9";
	char path[1024];
	size_t length;
	char *text, *copy;
	struct lcg g = { 99 };

	snprintf(path, sizeof path, "%s/samples/causal.json", root != NULL ? root : ".");
	text = read_text(path, &length);
	copy = malloc(length + 2);
	ck_assert_ptr_nonnull(copy);
	for (int i = 0; i < 20000; i++) {
		size_t at = (size_t)lcg_int(&g, 0, (int)length - 1), n = length;
		int how = lcg_int(&g, 0, 2);

		memcpy(copy, text, length);
		if (how == 0) {
			copy[at] = alphabet[lcg_int(&g, 0, (int)sizeof alphabet - 2)];
		} else if (how == 1) {
			memmove(copy + at, copy + at + 1, length - at - 1);
			n--;
		} else {
			memmove(copy + at + 1, copy + at, length - at);
			n++;
		}
		check_text(copy, n, "a mutation");
	}
	free(copy);
	free(text);
}
END_TEST

static Suite *json_read_suite(void)
{
	Suite *s = suite_create("json_read");
	TCase *numbers = tcase_create("numbers");
	TCase *trees = tcase_create("trees");

	tcase_add_test(numbers, test_decimal_is_strtod);
	tcase_add_test(numbers, test_decimal_digit_strings);
	tcase_set_timeout(numbers, 120);
	tcase_add_test(trees, test_files_are_janssons_trees);
	tcase_add_test(trees, test_small_texts);
	tcase_add_test(trees, test_mutations);
	tcase_set_timeout(trees, 120);
	suite_add_tcase(s, numbers);
	suite_add_tcase(s, trees);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(json_read_suite());
	int failed;

	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
