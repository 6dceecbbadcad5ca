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

/* Whether %.*g of value at `digits` reads back to value; its text in text. */
static bool reads_back(char *text, size_t size, int digits, double value, int *length)
{
	*length = snprintf(text, size, "%.*g", digits, value);
	if (*length < 0)
		*length = 0;
	return strtod(text, NULL) == value;
}

/* The first of %.15g, %.16g, %.17g that strtod reads back as the same double,
 * asked in the order that needs fewest calls: when 16 digits read back, 15 may
 * too; when they do not, neither do 15 (the nearest 16-digit decimal is nearer
 * than any of 15), but where the gap below value is half the gap above (a
 * power of two) a 15-digit text below may; 17 digits always read back. */
int qkv_format_exact(char *buf, size_t size, double value)
{
	struct numeric_locale n;
	char text[40], shorter[40];
	int length, shorter_length, exponent;

	numeric_enter(&n);
	if (reads_back(text, sizeof text, 16, value, &length)) {
		if (reads_back(shorter, sizeof shorter, 15, value, &shorter_length)) {
			memcpy(text, shorter, sizeof text);
			length = shorter_length;
		}
	} else if (isfinite(value) && frexp(value, &exponent) == copysign(0.5, value) &&
		   reads_back(text, sizeof text, 15, value, &length)) {
		/* 15 digits, on the narrow side of a power of two. */
	} else {
		length = snprintf(text, sizeof text, "%.17g", value);
		if (length < 0)
			length = 0;
	}
	numeric_leave(&n);
	return copy_out(buf, size, text, length);
}

int qkv_format_17g(char *buf, size_t size, double value)
{
	return format_c(buf, size, "%.17g", value);
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
