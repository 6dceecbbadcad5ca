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

/* "00" … "99": the digits of a number two at a time. */
static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

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

#if defined(__SIZEOF_INT128__)
/* printf's "%.*f" of |value| < 1e7 at decimals <= 12, with no "-0" (what
 * qkv_format_number writes there), made in integers: |value| = m·2^e exactly, so
 * |value|·10^decimals = m·10^decimals·2^e (below 2^93 and 10^19) rounds half to
 * even on the exact remainder, as printf rounds the exact binary value. text
 * holds at least 24 bytes; the length. */
static int fixed_point(char *text, double value, int decimals)
{
	static const uint64_t powers[13] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	};
	__extension__ typedef unsigned __int128 wide128;
	uint64_t bits, m, n;
	int biased, e, length = 0, at = 24, count;
	char digits[24];

	memcpy(&bits, &value, sizeof bits);
	biased = (int)(bits >> 52) & 0x7ff;
	m = bits & ((1ULL << 52) - 1);
	if (biased != 0)
		m |= 1ULL << 52;
	e = (biased == 0 ? 1 : biased) - 1075; /* |value| = m·2^e */
	if (m == 0) {
		n = 0;
	} else if (e >= 0) {
		n = (m << e) * powers[decimals]; /* |value| < 1e7: m·2^e < 2^24 */
	} else if (-e >= 120) {
		n = 0; /* below 2^-67: far under half of 10^-12 */
	} else {
		wide128 product = (wide128)m * powers[decimals], rest, half = (wide128)1 << (-e - 1);

		n = (uint64_t)(product >> -e);
		rest = product & (((wide128)1 << -e) - 1);
		if (rest > half || (rest == half && (n & 1) != 0))
			n++;
	}
	if (n > 0 && (bits >> 63) != 0)
		text[length++] = '-';
	/* n's digits from the right, two at a time (constant divisors), zero-padded
	 * to decimals + 1; the point goes before the last `decimals`. */
	while (n >= 100) {
		at -= 2;
		memcpy(digits + at, pairs + 2 * (n % 100), 2);
		n /= 100;
	}
	if (n >= 10) {
		at -= 2;
		memcpy(digits + at, pairs + 2 * n, 2);
	} else {
		digits[--at] = (char)('0' + n);
	}
	count = (int)sizeof digits - at;
	while (count < decimals + 1) {
		digits[--at] = '0';
		count++;
	}
	memcpy(text + length, digits + at, (size_t)(count - decimals));
	length += count - decimals;
	if (decimals > 0) {
		text[length++] = '.';
		memcpy(text + length, digits + sizeof digits - decimals, (size_t)decimals);
		length += decimals;
	}
	text[length] = '\0';
	return length;
}
#endif

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
#if defined(__SIZEOF_INT128__)
	if (magnitude < 1e7) {
		/* The common case, without printf: a report formats every cell twice. */
		char text[32];
		size_t copied;

		length = fixed_point(text, value, decimals);
		copied = (size_t)length < size ? (size_t)length : size - 1;
		memcpy(buf, text, copied);
		buf[copied] = '\0';
		return length;
	}
#endif
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

#if defined(__SIZEOF_INT128__) && LDBL_MANT_DIG >= 64
__extension__ typedef unsigned __int128 wide;
__extension__ typedef __int128 signed_wide;

/* 10^0 … 10^22 (past 10^19 as products, exact in 128 bits). */
static const wide ten_to[23] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL, 10000000000000000000ULL, (wide)10000000000000000000ULL * 10,
	(wide)10000000000000000000ULL * 100, (wide)10000000000000000000ULL * 1000,
};

/* x > 0 to 17 significant digits in integers alone: x = m·2^−shift (m of 53 bits),
 * so x·10^k = m·10^k / 2^shift, which 128 bits hold exactly for k <= 22 (x from
 * about 1e-6 to 2^52, where nearly every value of a trace lies). */
struct exact_digits {
	uint64_t digits;    /* x·10^k rounded half to even, in [10^16, 10^17) */
	int exponent;       /* of the first digit: k = 16 − exponent */
	int shift;
	uint64_t mantissa;  /* m */
	signed_wide rest;   /* m·10^k − digits·2^shift: x·10^k − digits, times 2^shift */
};

static bool exact_17(double x, struct exact_digits *out)
{
	uint64_t bits, m;
	int biased, binary, shift, e, scaled;

	/* x = m·2^(biased − 1075), read from its bits (normal numbers only). */
	memcpy(&bits, &x, sizeof bits);
	biased = (int)(bits >> 52) & 0x7ff;
	if (biased == 0 || biased == 0x7ff)
		return false;
	m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	binary = biased - 1022; /* x = f·2^binary with f in [½, 1) */
	shift = 53 - binary;
	if (shift < 1 || shift > 100)
		return false;
	/* floor((binary − 1)·log10 2), one below at most (78913 / 2^18 ≈ log10 2). */
	scaled = (binary - 1) * 78913;
	e = scaled >= 0 ? scaled / 262144 : -((-scaled + 262143) / 262144);
	for (int tries = 0; tries < 3; tries++) {
		int k = 16 - e;
		wide product, unit = (wide)1 << shift, low;
		uint64_t digits;

		if (k < 0 || k > 22)
			return false;
		product = (wide)m * ten_to[k];
		digits = (uint64_t)(product >> shift);
		low = product & (unit - 1);
		if (low > unit / 2 || (low == unit / 2 && digits % 2 != 0)) {
			digits++;
			out->rest = (signed_wide)low - (signed_wide)unit;
		} else {
			out->rest = (signed_wide)low;
		}
		if (digits >= 100000000000000000ULL) {
			e++;
		} else if (digits < 10000000000000000ULL) {
			e--;
		} else {
			out->digits = digits;
			out->exponent = e;
			out->shift = shift;
			out->mantissa = m;
			return true;
		}
	}
	return false;
}
#endif

#if LDBL_MANT_DIG >= 64
static int write_significant(char *buf, size_t size, bool negative, uint64_t d, int precision,
			     int exponent);
static uint64_t significant_digits(double x, int precision, int *exponent);
static long double remainder_of(double x, uint64_t digits, int k);
static long double half_gap(double x, int k, bool below);
#endif

/* Printf's text for 15 and 16 digits, and whether it reads back, decided without
 * printf or strtod where every power of ten involved is exact (1e-11 <= |value| <
 * 1e41, every value a problem holds): from the 17 correctly rounded digits and the
 * exact remainder x·10^k − digits, the 15- and 16-digit roundings are exact too,
 * and so is their distance from x against half the gap to the next double. Too
 * close to call, strtod decides; outside that range, printf and strtod do it all.
 * The text is the same either way. */
int qkv_format_exact(char *buf, size_t size, double value)
{
	int length = 0;

	if (size == 0)
		return 0;
#if defined(__SIZEOF_INT128__) && LDBL_MANT_DIG >= 64
	struct exact_digits d;

	if (isfinite(value) && value != 0.0 && exact_17(fabs(value), &d)) {
		wide limit = ten_to[16 - d.exponent];
		/* Half the gap in units of the 17th digit is about limit / 2^(shift+1):
		 * a rounding that moved the value by more than that, whatever the
		 * remainder, cannot read back (no 128-bit product needed to say so). */
		uint64_t gap_units = (uint64_t)(limit >> d.shift);
		bool power_of_two = d.mantissa == (1ULL << 52);

		for (int precision = 15; precision <= 16; precision++) {
			/* Constant divisors: multiplications, not divisions. */
			uint64_t scale = precision == 15 ? 100 : 10;
			uint64_t q = precision == 15 ? d.digits / 100 : d.digits / 10, rest = d.digits - q * scale;
			uint64_t digits = q, top = precision == 15 ? 1000000000000000ULL : 10000000000000000ULL;
			signed_wide distance;
			wide twice;
			int exponent = d.exponent;
			int64_t moved;

			/* Round to `precision` digits, half to even, on the exact value. */
			if (rest > scale / 2 || (rest == scale / 2 && (d.rest > 0 || (d.rest == 0 && q % 2 != 0))))
				digits = q + 1;
			/* |x·10^k − digits·scale| >= |moved| − ½ in 17th-digit units, and
			 * twice that is at least (2|moved| − 1)·2^shift > limit when
			 * 2|moved| − 1 > gap_units. */
			moved = (int64_t)rest - (int64_t)((digits - q) * scale);
			if (!power_of_two && 2 * (moved < 0 ? -moved : moved) - 1 > (int64_t)gap_units)
				continue;
			/* (x·10^k − digits·scale)·2^shift, exactly. */
			distance = (signed_wide)moved * ((signed_wide)1 << d.shift) + d.rest;
			/* Reads back when within half the gap to the neighbour on its side,
			 * 2^−shift−1 (half that below a power of two), times 10^k. */
			twice = (wide)(distance < 0 ? -distance : distance) * (distance > 0 && power_of_two ? 4 : 2);
			if (digits == top) {
				digits /= 10;
				exponent++;
			}
			if (twice < limit)
				return write_significant(buf, size, value < 0, digits, precision, exponent);
			if (twice == limit) {
				length = write_significant(buf, size, value < 0, digits, precision, exponent);
				if ((size_t)length < size && strtod(buf, NULL) == value)
					return length;
			}
		}
		return write_significant(buf, size, value < 0, d.digits, 17, d.exponent);
	}
#endif
#if LDBL_MANT_DIG >= 64
	if (isfinite(value) && fabs(value) >= 1e-11 && fabs(value) < 1e41) {
		double x = fabs(value);
		int e17;
		uint64_t d17 = significant_digits(x, 17, &e17);
		long double r17 = remainder_of(x, d17, 16 - e17); /* x·10^k − d17, in [−½, ½] */

		for (int precision = 15; precision <= 16; precision++) {
			uint64_t scale = precision == 15 ? 100 : 10, q = d17 / scale, rest = d17 % scale;
			uint64_t digits = q, top = precision == 15 ? 1000000000000000ULL : 10000000000000000ULL;
			long double distance, bound;
			int exponent = e17;

			/* Round (q·scale + rest + r17) / scale to an integer, half to even. */
			if (rest > scale / 2 || (rest == scale / 2 && (r17 > 0.0L || (r17 == 0.0L && q % 2 != 0))))
				digits = q + 1;
			/* x·10^k − digits·scale, in units of the 17th digit. */
			distance = ((long double)rest - (long double)((digits - q) * scale)) + r17;
			bound = half_gap(x, 16 - e17, distance > 0.0L);
			if (digits == top) {
				digits /= 10;
				exponent++;
			}
			if (fabsl(fabsl(distance) - bound) > bound * 1e-12L) {
				if (fabsl(distance) < bound)
					return write_significant(buf, size, value < 0, digits, precision, exponent);
				continue;
			}
			length = write_significant(buf, size, value < 0, digits, precision, exponent);
			if ((size_t)length < size && strtod(buf, NULL) == value)
				return length;
		}
		return write_significant(buf, size, value < 0, d17, 17, e17);
	}
#endif
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
static const struct range wide_chars[] = {
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
	if (in_ranges(point, wide_chars, sizeof wide_chars / sizeof *wide_chars))
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

/* The `precision` (1..17) significant digits of x > 0, rounded as printf rounds,
 * as an integer in [10^(precision−1), 10^precision), and the decimal exponent of
 * the first: x ≈ digits · 10^(exponent − precision + 1). Even where the rounding
 * is not exact (powers beyond 10^±27), its error stays far below half a double's
 * ulp: 17 digits always read back to x. */
static uint64_t significant_digits(double x, int precision, int *exponent)
{
	static const uint64_t powers[18] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL,
	};
	uint64_t low = powers[precision - 1], high = powers[precision], digits = 0;
	int binary, e;

	/* log10(x) from the binary exponent, one off at most; the loop corrects it. */
	frexp(x, &binary);
	e = (int)floor((binary - 1) * 0.30102999566398120);
	for (int tries = 0; tries < 4; tries++) {
		digits = scaled_integer(x, precision - 1 - e);
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

/* a·b − product exactly, for product = a·b rounded (Dekker's product with
 * Veltkamp's split into 32-bit halves; libm's fmal is emulated in software on
 * x87 and costs more than all the rest of a number). */
static long double product_error(long double a, long double b, long double product)
{
	const long double split = 4294967297.0L; /* 2^32 + 1 */
	long double t = split * a, a_high = t - (t - a), a_low = a - a_high;
	long double u = split * b, b_high = u - (u - b), b_low = b - b_high;

	return ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low;
}

/* x·10^k − digits, exactly but for a last rounding far below what is asked of it
 * (Dekker's product recovers the rounding error of x·10^k, or of x / 10^−k);
 * |k| <= 27, so the power of ten is exact. */
static long double remainder_of(double x, uint64_t digits, int k)
{
	long double power = exact_power_of_ten(k < 0 ? -k : k), scaled, error;

	if (k >= 0) {
		scaled = (long double)x * power;
		error = product_error(x, power, scaled);
	} else {
		long double back;

		scaled = (long double)x / power;
		back = scaled * power; /* within an ulp of x: x − back is exact */
		error = (((long double)x - back) - product_error(scaled, power, back)) / power;
	}
	return (scaled - (long double)digits) + error;
}

/* Half the gap from x > 0 to the neighbouring double below (or above), times 10^k:
 * a decimal nearer to x than that, on that side, reads back as x. */
static long double half_gap(double x, int k, bool below)
{
	int binary;
	double fraction = frexp(x, &binary);
	/* Half an ulp; below a power of two the gap is half as wide. */
	long double gap = ldexpl(1.0L, binary - 54 - (below && fraction == 0.5 ? 1 : 0));

	return k >= 0 ? gap * exact_power_of_ten(k) : gap / exact_power_of_ten(-k);
}
#endif

#if LDBL_MANT_DIG >= 64
/* Writes ±digits (precision of them, exponent of the first) as printf's "%.*g"
 * writes them: trailing zeros dropped, d.ddde±XX below 1e-4 and from 10^precision. */
static int write_significant(char *buf, size_t size, bool negative, uint64_t d, int precision,
			     int exponent)
{
	/* Two digits per division (pairs), in 32 bits (d < 10^17 splits into two
	 * halves below 10^9 and 10^8). */
	char digits[24], scratch[40];
	/* Straight into buf when the longest text (24 bytes and the NUL) fits. */
	char *text = size >= 25 ? buf : scratch;
	int length = 0, last, fill = precision;
	uint32_t low = (uint32_t)(d % 100000000u), high = (uint32_t)(d / 100000000u);

	/* The last eight digits (or all of them, zero-padded) from low, the rest from high. */
	for (int k = 0; k < 4 && fill > 0; k++) {
		const char *pair = pairs + 2 * (low % 100);

		low /= 100;
		if (fill >= 2) {
			memcpy(digits + fill - 2, pair, 2);
			fill -= 2;
		} else {
			digits[--fill] = pair[1];
		}
	}
	while (fill >= 2) {
		memcpy(digits + fill - 2, pairs + 2 * (high % 100), 2);
		high /= 100;
		fill -= 2;
	}
	if (fill == 1)
		digits[0] = (char)('0' + high % 10);
	for (last = precision - 1; last > 0 && digits[last] == '0'; last--)
		;
	if (negative)
		text[length++] = '-';
	/* Runs of digits are copied whole (a report writes tens of thousands). */
	if (exponent < -4 || exponent >= precision) {
		/* d.ddd…e±XX, as %g writes large and small magnitudes. */
		text[length++] = digits[0];
		if (last > 0) {
			text[length++] = '.';
			memcpy(text + length, digits + 1, (size_t)last);
			length += last;
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
		memcpy(text + length, digits, (size_t)exponent + 1);
		length += exponent + 1;
		if (last > exponent) {
			text[length++] = '.';
			memcpy(text + length, digits + exponent + 1, (size_t)(last - exponent));
			length += last - exponent;
		}
	} else {
		/* 0.000ddd: −exponent − 1 zeros after the point. */
		text[length++] = '0';
		text[length++] = '.';
		memset(text + length, '0', (size_t)(-exponent - 1));
		length += -exponent - 1;
		memcpy(text + length, digits, (size_t)last + 1);
		length += last + 1;
	}
	text[length] = '\0';
	if (text == scratch && size > 0) {
		size_t copied = (size_t)length < size ? (size_t)length : size - 1;

		memcpy(buf, text, copied);
		buf[copied] = '\0';
	}
	return length;
}
#endif

int qkv_format_17g(char *buf, size_t size, double value)
{
#if LDBL_MANT_DIG >= 64
	int exponent;
	uint64_t d;

	if (!isfinite(value) || value == 0.0)
		return snprintf(buf, size, "%.17g", value);
#if defined(__SIZEOF_INT128__)
	{
		struct exact_digits exact;

		if (exact_17(fabs(value), &exact))
			return write_significant(buf, size, value < 0, exact.digits, 17, exact.exponent);
	}
#endif
	d = significant_digits(fabs(value), 17, &exponent);
	return write_significant(buf, size, value < 0, d, 17, exponent);
#else
	return snprintf(buf, size, "%.17g", value);
#endif
}

int qkv_format_grouped(char *buf, size_t size, long long value)
{
	/* The magnitude unsigned, so that LLONG_MIN has one too. */
	unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value
					       : (unsigned long long)value;
	char digits[32], text[48];
	int length = snprintf(digits, sizeof digits, "%llu", magnitude), at = 0;

	if (value < 0)
		text[at++] = '-';
	for (int i = 0; i < length; i++) {
		if (i > 0 && (length - i) % 3 == 0)
			text[at++] = ',';
		text[at++] = digits[i];
	}
	text[at] = '\0';
	return snprintf(buf, size, "%s", text);
}

/* Two values the screen must tell apart: they differ by more than 1e-9 of the larger. */
static bool distinct(double a, double b)
{
	return fabs(a - b) > 1e-9 * fmax(fabs(a), fabs(b));
}

/* True when value is not 0 but its text at `decimals` shows fewer than two of
 * its significant digits (0.00 for 0.001, 0.01 for 0.0147): it hides the value. */
static bool too_few_digits(double value, int decimals)
{
	char text[64];
	int significant = 0;
	bool started = false;

	if (value == 0.0 || !isfinite(value))
		return false;
	qkv_format_number(text, sizeof text, value, decimals);
	for (const char *c = text; *c != '\0' && *c != 'e'; c++) {
		started |= *c >= '1' && *c <= '9';
		significant += started && *c >= '0' && *c <= '9';
	}
	return significant < 2;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* True when the sorted values print apart at `decimals`. Printing keeps the
 * order, so only neighbours can print alike. */
static bool apart_at(const double *sorted, size_t count, int decimals)
{
	char a[64], b[64];

	for (size_t i = 0; i < count; i++) {
		if (too_few_digits(sorted[i], decimals))
			return false;
		if (i == 0 || !distinct(sorted[i - 1], sorted[i]) || !isfinite(sorted[i]))
			continue;
		qkv_format_number(a, sizeof a, sorted[i - 1], decimals);
		qkv_format_number(b, sizeof b, sorted[i], decimals);
		if (strcmp(a, b) == 0)
			return false;
	}
	return true;
}

int qkv_format_places(const double *values, size_t count, int least, int most, bool *apart)
{
	double sorted[QKV_PLACES_MAX_VALUES];

	*apart = true;
	if (count > QKV_PLACES_MAX_VALUES || count == 0)
		return least;
	memcpy(sorted, values, count * sizeof *values);
	qsort(sorted, count, sizeof *sorted, compare_doubles);
	for (int decimals = least; decimals <= most; decimals++)
		if (apart_at(sorted, count, decimals))
			return decimals;
	*apart = false;
	return most;
}

bool qkv_format_hides(const double *values, size_t count, double value, int decimals)
{
	char text[64], other[64];
	double unit = pow(10.0, -decimals);

	if (too_few_digits(value, decimals))
		return true;
	qkv_format_number(text, sizeof text, value, decimals);
	for (size_t i = 0; i < count; i++) {
		/* Only a value within a unit of the last place can print the same. */
		if (!(fabs(values[i] - value) < unit) || !distinct(values[i], value))
			continue;
		qkv_format_number(other, sizeof other, values[i], decimals);
		if (strcmp(text, other) == 0)
			return true;
	}
	return false;
}
