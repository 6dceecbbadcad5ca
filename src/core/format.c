/* format.c — numbers into text for people, in one place, so that the screen, the
 * printer and the derivations agree. Never prints. Numbers are written and read
 * back by libc (snprintf, strtod) in the C locale, whatever LC_NUMERIC the
 * process has: the decimal point is always '.'. */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/format.h"

/* The C locale for numbers, on this thread, between numeric_enter and
 * numeric_leave: glibc hands out its built-in C locale object, so this costs no
 * allocation. When no locale object can be had, the process's locale stays
 * (qkv itself never sets LC_NUMERIC, so that is the C locale too). */
struct numeric_locale {
	locale_t c;
	locale_t previous;
};

static void numeric_enter(struct numeric_locale *n)
{
	n->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	n->previous = n->c != (locale_t)0 ? uselocale(n->c) : (locale_t)0;
}

static void numeric_leave(struct numeric_locale *n)
{
	if (n->c == (locale_t)0)
		return;
	uselocale(n->previous);
	freelocale(n->c);
}

/* snprintf in the C locale; a negative length (an encoding error) becomes 0. */
__attribute__((format(printf, 3, 4)))
static int format_c(char *buf, size_t size, const char *format, ...)
{
	struct numeric_locale n;
	va_list args;
	int length;

	numeric_enter(&n);
	va_start(args, format);
	length = vsnprintf(buf, size, format, args);
	va_end(args);
	numeric_leave(&n);
	return length < 0 ? 0 : length;
}

/* Strips a leading '-' from text that reads as zero ("-0.00" → "0.00"). */
static int strip_negative_zero(char *text, int length)
{
	if (text[0] != '-' || strspn(text + 1, "0.") != (size_t)length - 1)
		return length;
	memmove(text, text + 1, (size_t)length);
	return length - 1;
}

/* Copies text (length bytes) into buf like snprintf: truncated to size−1, the
 * full length returned. */
static int copy_out(char *buf, size_t size, const char *text, int length)
{
	size_t copied;

	if (size == 0)
		return length;
	copied = (size_t)length < size ? (size_t)length : size - 1;
	memcpy(buf, text, copied);
	buf[copied] = '\0';
	return length;
}

int qkv_format_number(char *buf, size_t size, double value, int decimals)
{
	/* %.12f of a value below 1e7 and %.3e of any double fit with room to spare. */
	char text[64];
	int length;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 12)
		decimals = 12;
	if (!isfinite(value))
		length = format_c(text, sizeof text, "%s",
				  isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
	else if (fabs(value) >= 1e7)
		length = format_c(text, sizeof text, "%.*e", decimals > 3 ? 3 : decimals, value);
	else
		length = strip_negative_zero(text, format_c(text, sizeof text, "%.*f", decimals, value));
	return copy_out(buf, size, text, length);
}

/* The first of %.15g, %.16g, %.17g that strtod reads back as the same double
 * (%.17g always does). */
int qkv_format_exact(char *buf, size_t size, double value)
{
	struct numeric_locale n;
	char text[40];
	int length = 0;

	numeric_enter(&n);
	for (int digits = 15; digits <= 17; digits++) {
		length = snprintf(text, sizeof text, "%.*g", digits, value);
		if (length < 0)
			length = 0;
		if (strtod(text, NULL) == value)
			break;
	}
	numeric_leave(&n);
	return copy_out(buf, size, text, length);
}

int qkv_format_17g(char *buf, size_t size, double value)
{
	return format_c(buf, size, "%.17g", value);
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
