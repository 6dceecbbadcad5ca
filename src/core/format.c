/* format.c — numbers into text for people, in one place, so that the screen, the
 * printer and the derivations agree. Never allocates, never prints. */
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/format.h"

/* Strips a leading '-' from text that reads as zero ("-0.00" → "0.00"). */
static int strip_negative_zero(char *buf, int length)
{
	if (buf[0] != '-')
		return length;
	for (const char *c = buf + 1; *c != '\0'; c++)
		if (*c != '0' && *c != '.')
			return length;
	memmove(buf, buf + 1, strlen(buf));
	return length - 1;
}

int qkv_format_number(char *buf, size_t size, double value, int decimals)
{
	double magnitude = fabs(value);
	int length;

	if (size == 0)
		return 0;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 12)
		decimals = 12;
	if (!isfinite(value))
		length = snprintf(buf, size, "%s", isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
	else if (magnitude >= 1e7)
		length = snprintf(buf, size, "%.*e", decimals > 3 ? 3 : decimals, value);
	else
		length = snprintf(buf, size, "%.*f", decimals, value);
	if (length < 0)
		return 0;
	/* Strip on the full text, then copy what fits, so truncation never shows "-0". */
	if (buf[0] == '-') {
		char full[64];

		snprintf(full, sizeof full, "%.*f", decimals, value);
		if (magnitude < 1e7 && strip_negative_zero(full, length) != length) {
			length--;
			snprintf(buf, size, "%s", full);
		}
	}
	return length;
}

int qkv_format_exact(char *buf, size_t size, double value)
{
	int length = 0;

	if (size == 0)
		return 0;
	for (int digits = 15; digits <= 17; digits++) {
		length = snprintf(buf, size, "%.*g", digits, value);
		if (length > 0 && (size_t)length < size && strtod(buf, NULL) == value)
			break;
	}
	return length;
}

size_t qkv_utf8_decode(const char *s, size_t avail, unsigned long *point)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned long c, min;
	size_t count;

	if (avail == 0)
		return 0;
	c = u[0];
	if (c < 0x80) {
		count = 1;
		min = 0;
	} else if (c >= 0xc2 && c <= 0xdf) {
		count = 2;
		min = 0x80;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		count = 3;
		min = 0x800;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		count = 4;
		min = 0x10000;
		c &= 0x07;
	} else {
		return 0;
	}
	if (avail < count)
		return 0;
	for (size_t i = 1; i < count; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (u[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (point != NULL)
		*point = c;
	return count;
}

size_t qkv_utf8_length(const char *s)
{
	size_t avail = 0, length;

	/* A sequence is at most 4 bytes: look no further than the terminator. */
	while (avail < 4 && s[avail] != '\0')
		avail++;
	if (avail == 0)
		return 0;
	length = qkv_utf8_decode(s, avail, NULL);
	return length > 0 ? length : 1;
}

/* Ranges of code points, first and last, sorted. */
struct range {
	unsigned long first, last;
};

/* Combining marks and zero-width characters (Unicode's Mn, Me and Cf that
 * terminals draw in no column of their own), the blocks that hold them. */
static const struct range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x05bf, 0x05bf },
	{ 0x05c1, 0x05c2 }, { 0x05c4, 0x05c5 }, { 0x05c7, 0x05c7 }, { 0x0610, 0x061a },
	{ 0x064b, 0x065f }, { 0x0670, 0x0670 }, { 0x06d6, 0x06dc }, { 0x06df, 0x06e4 },
	{ 0x06e7, 0x06e8 }, { 0x06ea, 0x06ed }, { 0x0711, 0x0711 }, { 0x0730, 0x074a },
	{ 0x07a6, 0x07b0 }, { 0x0900, 0x0902 }, { 0x093a, 0x093a }, { 0x093c, 0x093c },
	{ 0x0941, 0x0948 }, { 0x094d, 0x094d }, { 0x0951, 0x0957 }, { 0x0962, 0x0963 },
	{ 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x2064 },
	{ 0x20d0, 0x20ff }, { 0x302a, 0x302d }, { 0x3099, 0x309a }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff }, { 0x1d167, 0x1d169 }, { 0x1f3fb, 0x1f3ff },
	{ 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f }, { 0xe0100, 0xe01ef },
};

/* East Asian Wide (W) and Fullwidth (F) characters. */
static const struct range wide[] = {
	{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a }, { 0x23e9, 0x23ec },
	{ 0x23f0, 0x23f0 }, { 0x23f3, 0x23f3 }, { 0x25fd, 0x25fe }, { 0x2614, 0x2615 },
	{ 0x2648, 0x2653 }, { 0x267f, 0x267f }, { 0x2693, 0x2693 }, { 0x26a1, 0x26a1 },
	{ 0x26aa, 0x26ab }, { 0x26bd, 0x26be }, { 0x26c4, 0x26c5 }, { 0x26ce, 0x26ce },
	{ 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea }, { 0x26f2, 0x26f3 }, { 0x26f5, 0x26f5 },
	{ 0x26fa, 0x26fa }, { 0x26fd, 0x26fd }, { 0x2705, 0x2705 }, { 0x270a, 0x270b },
	{ 0x2728, 0x2728 }, { 0x274c, 0x274c }, { 0x274e, 0x274e }, { 0x2753, 0x2755 },
	{ 0x2757, 0x2757 }, { 0x2795, 0x2797 }, { 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf },
	{ 0x2b1b, 0x2b1c }, { 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 }, { 0x2e80, 0x303e },
	{ 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
	{ 0xa960, 0xa97f }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe10, 0xfe19 },
	{ 0xfe30, 0xfe6f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x16fe0, 0x16fe4 },
	{ 0x17000, 0x18cff }, { 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 }, { 0x1f0cf, 0x1f0cf },
	{ 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a }, { 0x1f200, 0x1f251 }, { 0x1f300, 0x1f320 },
	{ 0x1f32d, 0x1f335 }, { 0x1f337, 0x1f37c }, { 0x1f37e, 0x1f393 }, { 0x1f3a0, 0x1f3ca },
	{ 0x1f3cf, 0x1f3d3 }, { 0x1f3e0, 0x1f3f0 }, { 0x1f3f4, 0x1f3f4 }, { 0x1f3f8, 0x1f3fa },
	{ 0x1f400, 0x1f64f }, { 0x1f680, 0x1f6ff }, { 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f9ff },
	{ 0x1fa70, 0x1faff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

static bool in_ranges(unsigned long point, const struct range *r, size_t count)
{
	size_t low = 0, high = count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (point < r[mid].first)
			high = mid;
		else if (point > r[mid].last)
			low = mid + 1;
		else
			return true;
	}
	return false;
}

int qkv_char_columns(unsigned long point)
{
	if (point < 0x300)
		return 1;
	if (in_ranges(point, zero_width, sizeof zero_width / sizeof *zero_width))
		return 0;
	if (in_ranges(point, wide, sizeof wide / sizeof *wide))
		return 2;
	return 1;
}

/* Columns of the character at text and its length in bytes (1 column for a byte
 * that is not UTF-8). */
static int next_columns(const char *text, size_t *length)
{
	unsigned long point = 0;
	size_t avail = 0;

	if ((unsigned char)text[0] < 0x80) {
		*length = 1;
		return 1;
	}
	while (avail < 4 && text[avail] != '\0')
		avail++;
	*length = qkv_utf8_decode(text, avail, &point);
	if (*length == 0) {
		*length = 1;
		return 1;
	}
	return qkv_char_columns(point);
}

int qkv_text_columns(const char *text)
{
	int columns = 0;

	while (*text != '\0') {
		size_t length;

		columns += next_columns(text, &length);
		text += length;
	}
	return columns;
}

size_t qkv_text_fit(const char *text, int columns, size_t bytes)
{
	size_t used = 0, fits = 0, length;
	int width = 0, w;

	if (text[0] == '\0')
		return 0;
	w = next_columns(text, &length);
	while (width + w <= columns && used + length <= bytes) {
		width += w;
		used += length;
		if (text[used] == '\0')
			return used;
		/* A cut may fall only where the next character takes a column. */
		w = next_columns(text + used, &length);
		if (w > 0)
			fits = used;
	}
	return fits;
}

#if LDBL_MANT_DIG >= 64
/* 10^k for k = 0 … 27, exact in a 64-bit-mantissa long double (5^27 < 2^63). */
static long double exact_power_of_ten(int k)
{
	/* Written out, so that the core holds no mutable state (each is exact). */
	static const long double table[28] = {
		1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L,
		1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L,
		1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
	};

	return table[k];
}

/* x · 10^k with one rounding of the extended product when |k| <= 27. */
static long double times_power_of_ten(long double x, int k)
{
	if (k >= 0 && k <= 27)
		return x * exact_power_of_ten(k);
	if (k < 0 && k >= -27)
		return x / exact_power_of_ten(-k);
	return x * powl(10.0L, (long double)k);
}

/* x · 10^k rounded to an integer, half to even as printf rounds. Near a tie the
 * product's own rounding error is recovered exactly with a fused multiply-add (the
 * power is exact for |k| <= 27), so the result is the correctly rounded one. */
static uint64_t scaled_integer(double x, int k)
{
	long double scaled = times_power_of_ten((long double)x, k);
	long double whole = floorl(scaled), fraction = scaled - whole;

	if (fabsl(fraction - 0.5L) < 0.01L && k >= -27 && k <= 27) {
		long double power = exact_power_of_ten(k < 0 ? -k : k);
		/* The exact remainder of the product or quotient, as a fraction of one unit. */
		long double error = k >= 0 ? fmal((long double)x, power, -scaled)
					   : fmal(-scaled, power, (long double)x) / power;

		fraction += error;
		if (fraction >= 1.0L) {
			whole += 1.0L;
			fraction -= 1.0L;
		} else if (fraction < 0.0L) {
			whole -= 1.0L;
			fraction += 1.0L;
		}
	}
	if (fraction > 0.5L || (fraction == 0.5L && fmodl(whole, 2.0L) != 0.0L))
		whole += 1.0L;
	return (uint64_t)whole;
}

/* The 17 significant digits of x > 0 as an integer in [10^16, 10^17), and the
 * decimal exponent of the first: x ≈ digits · 10^(exponent − 16). Even where the
 * rounding is not exact (powers beyond 10^±27), its error stays far below half a
 * double's ulp: the text always reads back to x. */
static uint64_t seventeen_digits(double x, int *exponent)
{
	const uint64_t low = 10000000000000000ULL, high = 100000000000000000ULL;
	int e = (int)floor(log10(x));
	uint64_t digits = 0;

	for (int tries = 0; tries < 3; tries++) {
		digits = scaled_integer(x, 16 - e);
		if (digits >= high)
			e++;
		else if (digits < low)
			e--;
		else
			break;
	}
	*exponent = e;
	return digits;
}
#endif

int qkv_format_17g(char *buf, size_t size, double value)
{
#if LDBL_MANT_DIG >= 64
	char digits[24], text[40];
	int exponent, length = 0, last;
	uint64_t d;

	if (!isfinite(value) || value == 0.0)
		return snprintf(buf, size, "%.17g", value);
	d = seventeen_digits(fabs(value), &exponent);
	for (int i = 16; i >= 0; i--, d /= 10)
		digits[i] = (char)('0' + d % 10);
	for (last = 16; last > 0 && digits[last] == '0'; last--)
		;
	if (value < 0)
		text[length++] = '-';
	if (exponent < -4 || exponent >= 17) {
		/* d.ddd…e±XX, as %g writes large and small magnitudes. */
		text[length++] = digits[0];
		if (last > 0) {
			text[length++] = '.';
			for (int i = 1; i <= last; i++)
				text[length++] = digits[i];
		}
		{
			int magnitude = exponent < 0 ? -exponent : exponent;

			text[length++] = 'e';
			text[length++] = exponent < 0 ? '-' : '+';
			if (magnitude >= 100)
				text[length++] = (char)('0' + magnitude / 100);
			text[length++] = (char)('0' + magnitude / 10 % 10);
			text[length++] = (char)('0' + magnitude % 10);
		}
	} else if (exponent >= 0) {
		/* ddd.ddd: exponent + 1 digits before the point. */
		for (int i = 0; i <= exponent; i++)
			text[length++] = digits[i];
		if (last > exponent) {
			text[length++] = '.';
			for (int i = exponent + 1; i <= last; i++)
				text[length++] = digits[i];
		}
	} else {
		/* 0.000ddd: −exponent − 1 zeros after the point. */
		text[length++] = '0';
		text[length++] = '.';
		for (int i = 0; i < -exponent - 1; i++)
			text[length++] = '0';
		for (int i = 0; i <= last; i++)
			text[length++] = digits[i];
	}
	text[length] = '\0';
	if (size > 0) {
		size_t copied = (size_t)length < size ? (size_t)length : size - 1;

		memcpy(buf, text, copied);
		buf[copied] = '\0';
	}
	return length;
#else
	return snprintf(buf, size, "%.17g", value);
#endif
}
