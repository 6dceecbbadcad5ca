/* format.c — numbers into text for people, in one place, so that the screen, the
 * printer and the derivations agree. Never allocates, never prints. */
#include <math.h>
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
