/* format.c — numbers into text for people, in one place, so that the screen, the
 * printer and the derivations agree. Never allocates, never prints. */
#include <float.h>
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

int qkv_text_columns(const char *text)
{
	int columns = 0;

	for (; *text != '\0'; text++)
		if (((unsigned char)*text & 0xc0) != 0x80)
			columns++;
	return columns;
}

#if LDBL_MANT_DIG >= 64
/* 10^k for k = 0 … 27, exact in a 64-bit-mantissa long double (5^27 < 2^63). */
static long double exact_power_of_ten(int k)
{
	static long double table[28];
	long double p = 1.0L;

	if (table[0] == 0.0L)
		for (int i = 0; i < 28; i++, p *= 10.0L)
			table[i] = p;
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
