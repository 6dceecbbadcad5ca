/* test_format.c — Check suite for numbers as text (format.h): fixed-point
 * rounding of the exact binary value, no "-0.00", exponent form from 1e7 up,
 * truncation like snprintf, fixed point equal to snprintf's in the C locale,
 * exact formatting that reads back bit-identical and is never longer than a short
 * decimal, all of it with '.' whatever LC_NUMERIC says, and whole numbers with
 * their thousands separated by commas.
 * Expected strings are worked out in the comments from the exact binary values
 * (e.g. 0.40105 is stored as 0.4010500000000000175…), never copied from output
 * of the code under test. */
#include <check.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/format.h"
#include "rounds.h"
#include "tap_main.h"

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

/* %.17g's text of values whose digits are known from another printf (Python's,
 * David Gay's dtoa): 17 significant digits, trailing zeros dropped, exponent form
 * below 1e-4 and from 1e17. */
START_TEST(test_17g_known_values)
{
	static const struct {
		double value;
		const char *text;
	} known[] = {
		{ 0.1, "0.10000000000000001" },       { 1.0 / 3.0, "0.33333333333333331" },
		{ 1e23, "9.9999999999999992e+22" },    { 4.9406564584124654e-324, "4.9406564584124654e-324" },
		{ 1.0, "1" },                          { 100.0, "100" },
		{ 1e17, "1e+17" },                     { 1e-5, "1.0000000000000001e-05" },
		{ -2.5e-300, "-2.5e-300" },            { DBL_MAX, "1.7976931348623157e+308" },
		{ 123456789012345678.0, "1.2345678901234568e+17" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		ck_assert_int_eq(qkv_format_17g(buf, sizeof buf, known[i].value), (int)strlen(known[i].text));
		ck_assert_str_eq(buf, known[i].text);
	}
}
END_TEST

/* Every finite double (random bit patterns: every exponent, subnormals too)
 * reads back from its %.17g text to the same bits. */
START_TEST(test_17g_reads_back)
{
	struct lcg g = { 0x9e3779b97f4a7c15ULL };
	char buf[64];

	for (int i = 0; i < 50000; i++) {
		double value = from_bits(lcg_bits(&g)), back;

		if (!isfinite(value))
			continue;
		qkv_format_17g(buf, sizeof buf, value);
		back = strtod(buf, NULL);
		ck_assert_msg(memcmp(&back, &value, sizeof value) == 0, "%a gave \"%s\"", value, buf);
	}
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
	/* Exact binary ties round half to even, as printf rounds the exact value:
	 * 0.125 → 0.12, 0.375 → 0.38. */
	expect_number(0.125, 2, "0.12");
	expect_number(0.375, 2, "0.38");
	/* 9999999.995 is stored as 9999999.99499999918…, 0.045 as 0.04499999999999999833…:
	 * both just below their tie. */
	expect_number(9999999.995, 2, "9999999.99");
	expect_number(0.045, 2, "0.04");
	/* 1.0000005 is stored as 1.00000050000000006988…, just above: 1.000001. */
	expect_number(1.0000005, 6, "1.000001");
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

/* snprintf's "%.*f" in the C locale, "-0…" stripped to "0…": what fixed point
 * must be. */
static void fixed_by_printf(char *buf, size_t size, double value, int decimals)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), previous;

	ck_assert_ptr_nonnull(c);
	previous = uselocale(c);
	snprintf(buf, size, "%.*f", decimals, value);
	uselocale(previous);
	freelocale(c);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
}

/* Fixed point is snprintf's "%.*f" in the C locale at every precision, for
 * random values below 1e7 of three kinds: any bit pattern, values a few ulps
 * from a tie of the last decimal, and exact binary ties. */
static void check_fixed_is_printf(int count)
{
	struct lcg g = { 2718 };

	for (int i = 0; i < count; i++) {
		int decimals = i % 13;
		uint64_t bits = lcg_bits(&g);
		double value;
		char ours[64], theirs[64];
		int length;

		if (i % 3 == 0) {
			/* A random double below 2^23 ≈ 8.4e6, or as small as 2^-1022. */
			value = from_bits((bits & 0x800fffffffffffffULL) | (uint64_t)(bits % 1046) << 52);
		} else if (i % 3 == 1) {
			/* Next to a tie of the last decimal: (k + ½)/10^d, a few ulps off. */
			value = ((double)(bits % 20000000) + 0.5) / pow(10.0, decimals);
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
		fixed_by_printf(theirs, sizeof theirs, value, decimals);
		ck_assert_msg(strcmp(ours, theirs) == 0 && length == (int)strlen(theirs),
			      "%a at %d decimals: \"%s\", printf \"%s\"", value, decimals, ours, theirs);
	}
}

START_TEST(test_number_is_printf)
{
	check_fixed_is_printf(30000);
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

/* The first of %.15g, %.16g, %.17g that strtod reads back, asked in that order
 * (what qkv_format_exact must give, however it asks). */
static void exact_by_printf(char *buf, size_t size, double value)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, value);
		if (strtod(buf, NULL) == value)
			return;
	}
}

/* qkv_format_exact gives that very text for random bit patterns, powers of two
 * (where the gap below is half the gap above), their neighbours, and short
 * decimals. */
START_TEST(test_exact_is_first_that_reads_back)
{
	struct lcg g = { 4242 };
	char ours[64], theirs[64];

	for (int i = 0; i < 40000; i++) {
		uint64_t bits = lcg_bits(&g);
		double value;

		switch (i % 4) {
		case 0:
			value = from_bits(bits);
			break;
		case 1:
			value = ldexp(1.0, (int)(bits % 2100) - 1074);
			break;
		case 2:
			value = nextafter(ldexp(1.0, (int)(bits % 2000) - 1000), (bits >> 40) & 1 ? 0.0 : INFINITY);
			break;
		default:
			value = (double)(bits % 1000000000000000ULL) / pow(10.0, (double)(int)(bits >> 59));
			break;
		}
		if (!isfinite(value))
			continue;
		if ((bits >> 63) != 0)
			value = -value;
		qkv_format_exact(ours, sizeof ours, value);
		exact_by_printf(theirs, sizeof theirs, value);
		ck_assert_msg(strcmp(ours, theirs) == 0, "%a: \"%s\", printf \"%s\"", value, ours, theirs);
	}
}
END_TEST

/* A decimal of at most 15 significant digits comes back with at most 15: it is
 * the nearest double's decimal at %.15g (DBL_DIG is 15), so the shortest form is
 * never longer. Typed values: up to 6 decimals, up to 1e6. */
START_TEST(test_exact_short_decimals)
{
	struct lcg g = { 31337 };
	char typed[64], buf[64];

	for (int i = 0; i < 30000; i++) {
		long long millionths = (long long)(lcg_bits(&g) % 2000000000001ULL) - 1000000000000LL;
		double value;
		size_t digits = 0;

		snprintf(typed, sizeof typed, "%s%lld.%06lld", millionths < 0 ? "-" : "",
			 llabs(millionths) / 1000000, llabs(millionths) % 1000000);
		value = strtod(typed, NULL);
		expect_round_trip(value);
		qkv_format_exact(buf, sizeof buf, value);
		/* Significant digits: every digit after the leading zeros, up to an exponent. */
		for (const char *c = buf + strspn(buf, "-0."); *c != '\0' && *c != 'e'; c++)
			digits += *c >= '0' && *c <= '9';
		ck_assert_msg(digits <= 15, "%s (from %s) has %zu significant digits", buf, typed, digits);
	}
}
END_TEST

/* A locale whose decimal point is a comma, made for this test with localedef
 * into a private folder (LOCPATH); false when localedef cannot make it. */
static bool comma_locale(void)
{
	static const char source[] =
		"LC_CTYPE\ncopy \"POSIX\"\nEND LC_CTYPE\n"
		"LC_NUMERIC\ndecimal_point \"<U002C>\"\nthousands_sep \"<U002E>\"\n"
		"grouping 3\nEND LC_NUMERIC\n";
	char folder[] = "/tmp/qkv-test-format-XXXXXX", path[128], command[512];
	FILE *file;
	bool made;

	if (mkdtemp(folder) == NULL)
		return false;
	snprintf(path, sizeof path, "%s/comma.src", folder);
	file = fopen(path, "w");
	if (file == NULL)
		return false;
	fputs(source, file);
	fclose(file);
	snprintf(command, sizeof command,
		 "localedef -c -i %s/comma.src -f UTF-8 %s/comma >/dev/null 2>&1; "
		 "test -f %s/comma/LC_NUMERIC", folder, folder, folder);
	made = system(command) == 0;
	setenv("LOCPATH", folder, 1);
	made = made && setlocale(LC_NUMERIC, "comma") != NULL;
	snprintf(command, sizeof command, "rm -rf %s", folder);
	if (system(command) != 0)
		fprintf(stderr, "# could not remove %s\n", folder);
	return made;
}

/* With LC_NUMERIC's decimal point a comma, every number is still written with
 * '.', and the round trip is still read with '.' (0.1 and 1/3 keep their short
 * forms). */
START_TEST(test_numbers_ignore_lc_numeric)
{
	char buf[64];

	if (!comma_locale()) {
		fprintf(stderr, "# skipped: localedef could not make a locale with a decimal comma\n");
		return;
	}
	snprintf(buf, sizeof buf, "%.1f", 1.5);
	ck_assert_str_eq(buf, "1,5"); /* the locale is in force */
	expect_number(1.5, 2, "1.50");
	expect_number(-123.456, 1, "-123.5");
	expect_number(12345678.0, 1, "1.2e+07");
	qkv_format_exact(buf, sizeof buf, 0.1);
	ck_assert_str_eq(buf, "0.1");
	qkv_format_exact(buf, sizeof buf, 1.0 / 3.0);
	ck_assert_str_eq(buf, "0.3333333333333333");
	qkv_format_17g(buf, sizeof buf, 0.1);
	ck_assert_str_eq(buf, "0.10000000000000001");
	check_fixed_is_printf(3000);
	setlocale(LC_NUMERIC, "C");
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
	tcase_add_test(number, test_17g_known_values);
	tcase_add_test(number, test_17g_reads_back);
	tcase_add_test(number, test_grouped);
	tcase_add_test(number, test_numbers_ignore_lc_numeric);
	tcase_add_test(number, test_places_tell_values_apart);
	tcase_set_timeout(number, 60); /* localedef on a loaded machine */
	suite_add_tcase(s, number);
	TCase *exact = tcase_create("exact");
	tcase_add_test(exact, test_exact_known_values);
	tcase_add_loop_test(exact, test_exact_random_round_trip, 0, 2);
	tcase_add_test(exact, test_exact_short_decimals);
	tcase_add_test(exact, test_exact_is_first_that_reads_back);
	suite_add_tcase(s, exact);
	return s;
}

int main(void)
{
	return run_tap(format_suite());
}
