/* text.c — UTF-8 text (text.h): the one decoder, the one width function, the one
 * line breaker, and the characters qkv refuses in strings. Pure: no locale, no
 * allocation. */
#include <string.h>

#include "qkv/text.h"

bool qkv_is_control(unsigned int c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

bool qkv_text_find_control(const char *text, size_t length, size_t *offset,
			   unsigned int *code_point)
{
	for (size_t i = 0; i < length;) {
		unsigned long c = 0;
		size_t count = qkv_utf8_decode(text + i, length - i, &c);

		if (count == 0) {
			i++; /* not UTF-8: the loader's encoding check names it */
			continue;
		}
		if (qkv_is_control((unsigned int)c)) {
			*offset = i;
			*code_point = (unsigned int)c;
			return true;
		}
		i += count;
	}
	return false;
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

size_t qkv_text_line(const char *s, int width, const char **next)
{
	size_t line_bytes = strcspn(s, "\n");
	/* What fits in width display columns (wide characters count two). */
	size_t fit = width > 0 ? qkv_text_fit(s, width, line_bytes) : 0;
	const char *end = s + (fit > 0 || line_bytes == 0 ? fit : qkv_utf8_length(s));
	const char *cut = NULL;

	for (const char *c = s; c < end; c++)
		if (*c == ' ')
			cut = c;
	/* Broken at the last space that fits (the one just past the edge too: a
	 * word may end at the last column), unless the line is one long word. */
	if (fit > 0 && fit < line_bytes && s[fit] == ' ')
		cut = s + fit;
	if (fit < line_bytes && cut != NULL && cut > s) {
		end = cut;
		while (end > s + 1 && end[-1] == ' ')
			end--;
	}
	*next = end;
	while (**next == ' ' || **next == '\n')
		(*next)++;
	return (size_t)(end - s);
}
