/* test_format.c — Check suite for numbers as text (format.h): fixed-point
 * rounding of the exact binary value, no "-0.00", exponent form from 1e7 up,
 * truncation like snprintf, exact formatting that reads back bit-identical, and
 * whole numbers with their thousands separated by commas.
 * Expected strings are worked out in the comments from the exact binary values
 * (e.g. 0.40105 is stored as 0.4010500000000000175…), never copied from output
 * of the code under test. */
#include <check.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/format.h"
#include "rounds.h"

/* The test's own generator (a 64-bit LCG, Knuth's MMIX constants). */
struct lcg {
	uint64_t state;
};

/* The next 64 bits: two LCG steps, high halves joined (the low bits of an LCG
 * are weak). */
static uint64_t lcg_bits(struct lcg *g)
{
	g->state = g->state * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t high = g->state >> 32;
	g->state = g->state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (high << 32) | (g->state >> 32);
}

/* The double with the given bit pattern. */
static double from_bits(uint64_t bits)
{
	double value;
	memcpy(&value, &bits, sizeof value);
	return value;
}

/* Formats value at `decimals` and checks the exact text and returned length. */
static void expect_number(double value, int decimals, const char *expected)
{
	char buf[64];
	int length = qkv_format_number(buf, sizeof buf, value, decimals);
	ck_assert_msg(strcmp(buf, expected) == 0, "%.17g at %d decimals gave \"%s\", expected \"%s\"",
		      value, decimals, buf, expected);
	ck_assert_int_eq(length, (int)strlen(expected));
}

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

/* qkv_format_17g against printf's "%.17g" on a million random bit patterns (every
 * exponent, subnormals included) and hand-picked values: the text must read back to
 * the same double everywhere, and be printf's very text wherever the scaling is by
 * an exact power of ten. */
START_TEST(test_17g_reads_back)
{
	static const double picked[] = {
		1, -1, 0.1, 1.0 / 3, 1e16, 1e17, 9.999999999999999e16, 123456789012345678.0,
		1e-4, 9.9999999999999995e-5, 1e-5, 1.4142135623730951, 4.9406564584124654e-324,
		2.2250738585072014e-308, 1.7976931348623157e308, 6.02214076e23, -2.5e-300, 1e12,
		0.5, 100, 1e300, 123.456,
	};
	char ours[64], theirs[64];
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	int differ = 0, total = 0;

	for (size_t i = 0; i < sizeof picked / sizeof picked[0]; i++) {
		qkv_format_17g(ours, sizeof ours, picked[i]);
		snprintf(theirs, sizeof theirs, "%.17g", picked[i]);
		ck_assert_msg(strtod(ours, NULL) == picked[i], "%s does not read back", ours);
		ck_assert_str_eq(ours, theirs);
	}
	for (int i = 0; i < test_rounds(1000000); i++) {
		uint64_t bits;
		double value;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		bits = state;
		memcpy(&value, &bits, sizeof value);
		if (!isfinite(value))
			continue;
		qkv_format_17g(ours, sizeof ours, value);
		snprintf(theirs, sizeof theirs, "%.17g", value);
		ck_assert_msg(strtod(ours, NULL) == value, "%s does not read back as %s", ours, theirs);
		/* Text identity is asked only where the scaling is one exact power of ten
		 * (10^-11 … 10^43, every value a problem holds); elsewhere powl rounds too. */
		if (fabs(value) >= 1e-11 && fabs(value) < 1e43) {
			differ += strcmp(ours, theirs) != 0;
			total++;
		}
	}
	ck_assert_msg(total > test_rounds(10000), "only %d values in range", total);
	ck_assert_msg(differ == 0, "%d of %d differ from printf", differ, total);
}
END_TEST

START_TEST(test_number_rounding)
{
	/* 0.40105 is stored as 0.40105000000000001758…, just above the tie: 0.4011. */
	expect_number(0.40105, 4, "0.4011");
	/* 2.675 is stored as 2.67499999999999982236…, just below the tie: 2.67. */
	expect_number(2.675, 2, "2.67");
	/* 1.005 is stored as 1.00499999999999989341…: 1.00. */
	expect_number(1.005, 2, "1.00");
	/* 1.23456 → 1.235 at 3 (far from a tie); 123.456 → 123.46 at 2. */
	expect_number(1.23456, 3, "1.235");
	expect_number(123.456, 2, "123.46");
	expect_number(-123.456, 1, "-123.5");
	/* -1.5 at 0: a tie either rule (to even, away from zero) sends to -2. */
	expect_number(-1.5, 0, "-2");
	expect_number(0.0, 2, "0.00");
	expect_number(1.0, 0, "1");
	expect_number(1.0 / 3.0, 12, "0.333333333333");
	expect_number(2.0 / 3.0, 5, "0.66667");
	expect_number(9999999.0, 2, "9999999.00");
	expect_number(-9999999.24, 1, "-9999999.2");
	/* Tiny values stay in fixed notation (only large ones switch). */
	expect_number(0.001, 2, "0.00");
	expect_number(1e-9, 4, "0.0000");
	expect_number(0.0049, 2, "0.00");
}
END_TEST

START_TEST(test_number_no_negative_zero)
{
	expect_number(-0.0, 2, "0.00");
	expect_number(-0.0, 0, "0");
	expect_number(-0.4, 0, "0");
	expect_number(-0.001, 2, "0.00");
	expect_number(-0.0049, 2, "0.00");
	expect_number(-1e-300, 12, "0.000000000000");
	expect_number(-4.9406564584124654e-324, 3, "0.000");
	/* Just past the rounding point the sign is real and stays: -0.0051 → -0.01. */
	expect_number(-0.0051, 2, "-0.01");
	/* Every negative value that rounds to zero, at every precision. */
	struct lcg g = {17};
	for (int decimals = 0; decimals <= 12; decimals++) {
		char zero[32] = "0";
		if (decimals > 0) {
			zero[1] = '.';
			memset(zero + 2, '0', (size_t)decimals);
			zero[2 + decimals] = '\0';
		}
		double half_step = 0.5 * pow(10.0, -decimals);
		for (int k = 0; k < 200; k++) {
			double u = (double)(lcg_bits(&g) >> 11) * 0x1.0p-53;
			double value = -0.98 * half_step * u;
			char buf[64];
			qkv_format_number(buf, sizeof buf, value, decimals);
			if (strcmp(buf, zero) != 0)
				ck_abort_msg("%.17g at %d decimals gave \"%s\", expected \"%s\"", value,
					     decimals, buf, zero);
		}
	}
}
END_TEST

/* Fixed point is printf's "%.*f" with a "-0…" stripped to "0…", for a million
 * random values of every magnitude below 1e7 (random bit patterns, values near
 * ties k/10^d ± a few ulps, exact ties such as 0.125) at every precision — made
 * without printf in the core, checked here against printf itself. */
START_TEST(test_number_is_printf)
{
	struct lcg g = { 2718 };
	char first[160] = "";

	for (int i = 0; i < test_rounds(1000000); i++) {
		int decimals = i % 13;
		uint64_t bits = lcg_bits(&g);
		double value;
		char ours[64], theirs[64];
		int length;

		if (i % 3 == 0) {
			/* A random double below 1e7 (2^23 ≈ 8.4e6) or as small as 2^-1022. */
			bits = (bits & 0x800fffffffffffffULL) | (uint64_t)(bits % 1046) << 52;
			value = from_bits(bits);
		} else if (i % 3 == 1) {
			/* Next to a tie of the last decimal: (k + ½)/10^d, a few ulps off. */
			double tie = ((double)(bits % 20000000) + 0.5) / pow(10.0, decimals);
			value = tie;
			for (int k = (int)(bits >> 60) % 4; k > 0; k--)
				value = nextafter(value, (bits >> 59) & 1 ? 1e9 : -1e9);
			if ((bits >> 58) & 1)
				value = -value;
		} else {
			/* Exact binary ties: k/2^j. */
			value = ldexp((double)(bits % 100000), -(int)(bits >> 59) % 20);
			if ((bits >> 58) & 1)
				value = -value;
		}
		if (!(fabs(value) < 1e7))
			continue;
		length = qkv_format_number(ours, sizeof ours, value, decimals);
		snprintf(theirs, sizeof theirs, "%.*f", decimals, value);
		if (theirs[0] == '-' && strspn(theirs + 1, "0.") == strlen(theirs + 1))
			memmove(theirs, theirs + 1, strlen(theirs));
		if ((strcmp(ours, theirs) != 0 || length != (int)strlen(theirs)) && first[0] == '\0')
			snprintf(first, sizeof first, "%.17g at %d decimals: \"%s\", printf \"%s\"", value,
				 decimals, ours, theirs);
	}
	ck_assert_msg(first[0] == '\0', "%s", first);
}
END_TEST

/* From 1e7 up the text switches to %.*e with min(decimals, 3) decimals. */
START_TEST(test_number_exponent_form)
{
	expect_number(1e7, 2, "1.00e+07");
	expect_number(-1e7, 2, "-1.00e+07");
	expect_number(12345678.0, 1, "1.2e+07");
	expect_number(123456789.0, 0, "1e+08");
	expect_number(1e7, 6, "1.000e+07");
	expect_number(-2.5e300, 12, "-2.500e+300");
	expect_number(DBL_MAX, 3, "1.798e+308");
	/* Whatever the precision, nothing long: 12 decimals never give 300 digits. */
	char buf[64];
	int length = qkv_format_number(buf, sizeof buf, 1e300, 12);
	ck_assert_int_lt(length, 16);
	ck_assert_ptr_nonnull(strchr(buf, 'e'));
}
END_TEST

/* Truncation like snprintf: the full length is returned, size-1 bytes written. */
START_TEST(test_number_truncation)
{
	char buf[8];
	memset(buf, 'x', sizeof buf);
	ck_assert_int_eq(qkv_format_number(buf, 4, 123.456, 2), 6);
	ck_assert_str_eq(buf, "123");
	ck_assert_int_eq(buf[4], 'x');
	ck_assert_int_eq(qkv_format_number(buf, 1, 123.456, 2), 6);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(qkv_format_number(buf, 7, 123.456, 2), 6);
	ck_assert_str_eq(buf, "123.46");
	/* Truncated text must not show "-0.00" either: -0.0 at 4 is "0.0000". */
	int length = qkv_format_number(buf, 6, -0.0, 4);
	ck_assert_str_eq(buf, "0.000");
	ck_assert_int_eq(length, 6);
	ck_assert_int_eq(qkv_format_number(buf, 5, 1e7, 2), 8);
	ck_assert_str_eq(buf, "1.00");
}
END_TEST

/* True when text reads back (whole) to exactly the bits of value. */
static bool reads_back(const char *text, double value)
{
	char *end = NULL;
	double back = strtod(text, &end);
	return end != text && *end == '\0' && memcmp(&back, &value, sizeof value) == 0;
}

/* Formats value exactly; checks the round trip, the length, and the digit count. */
static void expect_round_trip(double value)
{
	char buf[64];
	int length = qkv_format_exact(buf, sizeof buf, value);
	if (!reads_back(buf, value))
		ck_abort_msg("%a formatted as \"%s\" does not read back", value, buf);
	/* The length returned is the text's, and never more than %.17g needs:
	 * "-d.dddddddddddddddde-308" is 24 bytes. */
	if (length != (int)strlen(buf) || length > 24)
		ck_abort_msg("%a formatted as \"%s\" with length %d", value, buf, length);
}

START_TEST(test_exact_known_values)
{
	char buf[64];
	/* %.15g already reads back for 0.1 and 1e308. */
	qkv_format_exact(buf, sizeof buf, 0.1);
	ck_assert_str_eq(buf, "0.1");
	qkv_format_exact(buf, sizeof buf, 1e308);
	ck_assert_str_eq(buf, "1e+308");
	qkv_format_exact(buf, sizeof buf, -2.5);
	ck_assert_str_eq(buf, "-2.5");
	/* 1/3: 15 threes read back as a different double, 16 are enough. */
	qkv_format_exact(buf, sizeof buf, 1.0 / 3.0);
	ck_assert_str_eq(buf, "0.3333333333333333");
	/* 0.1 + 0.2 = 0.3000000000000000444…: 16 digits give "0.3", which is a
	 * different double, so 17 are needed. */
	qkv_format_exact(buf, sizeof buf, 0.1 + 0.2);
	ck_assert_str_eq(buf, "0.30000000000000004");
	/* √2 needs 17: 1.414213562373095 (16) reads back one ulp away. */
	qkv_format_exact(buf, sizeof buf, sqrt(2.0));
	ck_assert_str_eq(buf, "1.4142135623730951");
	const double specials[] = {0.0, -0.0, 0.1, 1.0 / 3.0, 1e308, -1e308, DBL_MAX, -DBL_MAX,
				   DBL_MIN, 4.9406564584124654e-324, -4.9406564584124654e-324,
				   2.2250738585072009e-308, 9007199254740993.0, 1e-5, 123456789.0,
				   3.141592653589793};
	for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
		expect_round_trip(specials[k]);
	/* -0.0 keeps its sign. */
	qkv_format_exact(buf, sizeof buf, -0.0);
	ck_assert_int_eq(buf[0], '-');
}
END_TEST

/* Random bit patterns cover every exponent, normal and subnormal. */
START_TEST(test_exact_random_round_trip)
{
	struct lcg g = {12345u + (uint64_t)_i};
	for (int k = 0; k < 20000; k++) {
		double value = from_bits(lcg_bits(&g));
		if (isfinite(value))
			expect_round_trip(value);
		/* Subnormals: exponent bits all 0, random mantissa and sign. */
		expect_round_trip(from_bits(lcg_bits(&g) & 0x800fffffffffffffULL));
		/* Values of the size people type: up to 6 decimals, up to 1e6. */
		double typed = (double)(int64_t)(lcg_bits(&g) % 2000000000001ULL) / 1e6 - 1e6;
		expect_round_trip(typed);
	}
}
END_TEST

/* printf's way, written out here: the first of %.15g, %.16g, %.17g that strtod
 * reads back as the same double. */
static void exact_by_printf(char *buf, size_t size, double value)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, value);
		if (strtod(buf, NULL) == value)
			return;
	}
}

/* The next value of a xorshift generator. */
static uint64_t xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* qkv_format_exact gives printf's very text (300,000 values over the three loops):
 * random bit patterns (every exponent),
 * random values in the range the fast path takes (1e-11 to 1e41), short decimals
 * (which read back at 15 digits), integers of 16 digits (ties at the 15th) and
 * softmax-like weights. */
START_TEST(test_exact_matches_printf)
{
	char ours[64], theirs[64];
	uint64_t state = 0x2545f4914f6cdd1dULL + (uint64_t)_i;

	for (int i = 0; i < 100000; i++) {
		uint64_t bits = xorshift(&state);
		double u = (double)(xorshift(&state) >> 11) * 0x1.0p-53, value;

		switch (i % 5) {
		case 0:
			memcpy(&value, &bits, sizeof value);
			if (!isfinite(value))
				continue;
			break;
		case 1:
			value = (1.0 + u) * pow(10.0, (double)(int)(bits % 52) - 11.0);
			break;
		case 2:
			value = (double)(bits % 1000000000000000ULL) / pow(10.0, (double)(int)(bits % 23));
			break;
		case 3:
			value = (double)(1000000000000000ULL + bits % 9000000000000000ULL);
			break;
		default:
			value = exp(-40.0 * u) / (1.0 + 3.0 * u);
			break;
		}
		if (bits & 1)
			value = -value;
		qkv_format_exact(ours, sizeof ours, value);
		exact_by_printf(theirs, sizeof theirs, value);
		ck_assert_msg(strcmp(ours, theirs) == 0, "%a: \"%s\", printf \"%s\"", value, ours, theirs);
	}
}
END_TEST

/* Whole numbers with thousands separated: known values worked out by hand, then
 * the property for many values (removing the commas gives printf's "%lld"; a
 * comma stands before every group of three digits counted from the right and
 * nowhere else), and truncation like snprintf. */
START_TEST(test_grouped)
{
	static const struct {
		long long value;
		const char *text;
	} known[] = {
		{ 0, "0" }, { 7, "7" }, { 999, "999" }, { 1000, "1,000" }, { -1000, "-1,000" },
		{ -999, "-999" }, { 12345, "12,345" }, { 1234567, "1,234,567" },
		{ -100000, "-100,000" }, { 1000000000, "1,000,000,000" },
		{ LLONG_MAX, "9,223,372,036,854,775,807" },
		{ LLONG_MIN, "-9,223,372,036,854,775,808" },
	};
	char buf[48], plain[32], stripped[48];
	struct lcg g = { 17 };

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		ck_assert_int_eq(qkv_format_grouped(buf, sizeof buf, known[i].value),
				 (int)strlen(known[i].text));
		ck_assert_str_eq(buf, known[i].text);
	}
	for (int i = 0; i < 10000; i++) {
		/* Magnitudes spread over every number of digits, below 2^63. */
		uint64_t shift = 1 + lcg_bits(&g) % 63;
		long long value = (long long)(lcg_bits(&g) >> shift);
		int length = qkv_format_grouped(buf, sizeof buf, i % 2 != 0 ? -value : value);
		size_t at = 0, start = buf[0] == '-' ? 1 : 0, digits = 0;

		ck_assert_int_eq(length, (int)strlen(buf));
		for (size_t k = 0; buf[k] != '\0'; k++)
			if (buf[k] != ',')
				stripped[at++] = buf[k];
		stripped[at] = '\0';
		snprintf(plain, sizeof plain, "%lld", i % 2 != 0 ? -value : value);
		ck_assert_str_eq(stripped, plain);
		for (size_t k = strlen(buf); k-- > start;) {
			if (buf[k] == ',') {
				ck_assert_msg(digits > 0 && digits % 3 == 0 && k > start, "%s", buf);
				continue;
			}
			digits++;
			/* After three digits (from the right) comes a comma or the start. */
			if (digits % 3 == 0 && k > start)
				ck_assert_msg(buf[k - 1] == ',', "%s", buf);
		}
	}
	memset(buf, 'x', sizeof buf);
	ck_assert_int_eq(qkv_format_grouped(buf, 4, 1234567), 9);
	ck_assert_str_eq(buf, "1,2");
	ck_assert_int_eq(buf[4], 'x');
	ck_assert_int_eq(qkv_format_grouped(buf, 1, -5), 2);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* The suite: fixed-point numbers for people, exact numbers for files. */
/* Counted here from the text: the significant digits a number shows. */
static int significant_shown(const char *text)
{
	int count = 0;
	bool started = false;

	for (const char *c = text; *c != '\0' && *c != 'e'; c++) {
		started |= *c >= '1' && *c <= '9';
		count += started && *c >= '0' && *c <= '9';
	}
	return count;
}

/* An integer in [lo, hi], and a double in [-1, 1), from the test's generator. */
static int pick(struct lcg *g, int lo, int hi)
{
	return lo + (int)(lcg_bits(g) % (uint64_t)(hi - lo + 1));
}

static double pick_signed(struct lcg *g)
{
	return (double)(lcg_bits(g) >> 11) * 0x1.0p-52 - 1.0;
}

/* True when the grid prints apart at `places`, checked pair by pair. */
static bool apart_pairwise(const double *v, int count, int places)
{
	char a[64], b[64];

	for (int i = 0; i < count; i++) {
		qkv_format_number(a, sizeof a, v[i], places);
		if (v[i] != 0.0 && significant_shown(a) < 2)
			return false;
		for (int j = i + 1; j < count; j++) {
			if (fabs(v[i] - v[j]) <= 1e-9 * fmax(fabs(v[i]), fabs(v[j])))
				continue;
			qkv_format_number(b, sizeof b, v[j], places);
			if (strcmp(a, b) == 0)
				return false;
		}
	}
	return true;
}

/* Random grids (whole numbers, a few decimals, values a hair apart, tiny ones, and
 * equal ones): at the places chosen, different values print differently or are
 * marked as hiding, every value that shows too few digits is marked, and one place
 * fewer would not do. */
START_TEST(test_places_tell_values_apart)
{
	struct lcg g = { 2026 };

	for (int trial = 0; trial < 150; trial++) {
		double v[48];
		int count = pick(&g, 1, 48), places;
		bool apart;

		for (int i = 0; i < count; i++) {
			double scale = pow(10.0, pick(&g, 0, 4));

			switch (pick(&g, 0, 4)) {
			case 0: v[i] = pick(&g, -5, 5); break;
			case 1: v[i] = round(pick_signed(&g) * 10.0 * scale) / scale; break;
			case 2: v[i] = i > 0 ? v[i - 1] + pick_signed(&g) * 1e-3 : 0.5; break;
			case 3: v[i] = pick_signed(&g) * 1e-5; break;
			default: v[i] = i > 0 ? v[pick(&g, 0, i - 1)] : 0.0; break;
			}
		}
		places = qkv_format_places(v, (size_t)count, 2, 4, &apart);
		ck_assert_int_ge(places, 2);
		ck_assert_int_le(places, 4);
		ck_assert(apart == apart_pairwise(v, count, places));
		if (places > 2)
			ck_assert_msg(!apart_pairwise(v, count, places - 1), "trial %d: %d places, one fewer would do",
				      trial, places);
		for (int i = 0; i < count; i++) {
			char a[64], b[64];

			qkv_format_number(a, sizeof a, v[i], places);
			if (v[i] != 0.0 && significant_shown(a) < 2)
				ck_assert_msg(qkv_format_hides(v, (size_t)count, v[i], places), "%.17g shows as %s", v[i], a);
			for (int j = 0; j < count; j++) {
				if (fabs(v[i] - v[j]) <= 1e-9 * fmax(fabs(v[i]), fabs(v[j])))
					continue;
				qkv_format_number(b, sizeof b, v[j], places);
				if (strcmp(a, b) == 0)
					ck_assert_msg(qkv_format_hides(v, (size_t)count, v[i], places) &&
							      qkv_format_hides(v, (size_t)count, v[j], places),
						      "%.17g and %.17g both print %s, unmarked", v[i], v[j], a);
			}
		}
	}
	/* The case that hid: K = 0.0147 and 0.0153 read 0.01 and 0.02 at two places. */
	{
		double k[4] = { 0.0147, 0.0153, 1.0, 0.0 };
		bool apart;

		ck_assert_int_eq(qkv_format_places(k, 4, 2, 4, &apart), 4);
		ck_assert(apart);
		ck_assert(!qkv_format_hides(k, 4, 0.0, 4));
	}
}
END_TEST

static Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *number = tcase_create("number");
	tcase_add_test(number, test_number_rounding);
	tcase_add_test(number, test_number_no_negative_zero);
	tcase_add_test(number, test_number_is_printf);
	tcase_add_test(number, test_number_exponent_form);
	tcase_add_test(number, test_number_truncation);
	tcase_add_test(number, test_text_columns);
	tcase_add_test(number, test_text_columns_wide);
	tcase_add_test(number, test_text_fit);
	tcase_add_test(number, test_utf8_decode);
	tcase_add_test(number, test_17g_reads_back);
	tcase_add_test(number, test_grouped);
	tcase_add_test(number, test_places_tell_values_apart);
	tcase_set_timeout(number, 60); /* a million printf calls on a loaded machine */
	suite_add_tcase(s, number);
	TCase *exact = tcase_create("exact");
	tcase_set_timeout(exact, 60);
	tcase_add_test(exact, test_exact_known_values);
	tcase_add_loop_test(exact, test_exact_random_round_trip, 0, 5);
	tcase_add_loop_test(exact, test_exact_matches_printf, 0, 3);
	suite_add_tcase(s, exact);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(format_suite());
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
