/* format.h — the one place where numbers become text for people.
 * The screen, the printer and the derivations all format through here, so a
 * value reads the same everywhere. Writes into caller buffers. */
#ifndef QKV_FORMAT_H
#define QKV_FORMAT_H

#include <stddef.h>

/* Numbers are written by snprintf in the C locale, whatever LC_NUMERIC the
 * process has: the decimal point is always '.'. */

/* Writes value with `decimals` digits after the point (0..12) into buf, as
 * "%.*f" does; "-0.00" becomes "0.00"; magnitudes of 1e7 and more switch to
 * "%.*e" with at most three decimals. Returns the full length, like snprintf
 * (buf truncated to size−1). */
int qkv_format_number(char *buf, size_t size, double value, int decimals);
/* Writes value so that it reads back to the same double: the first of %.15g,
 * %.16g, %.17g that strtod reads back. Returns the length, like snprintf. */
int qkv_format_exact(char *buf, size_t size, double value);

/* Writes value as printf's "%.17g" does: 17 significant digits, so it always
 * reads back to the same double. Returns the length, like snprintf (buf
 * truncated to size−1). */
int qkv_format_17g(char *buf, size_t size, double value);

/* Writes a whole number with its thousands separated by commas ("1,234,567",
 * "-1,000", "999"), as the cost tables and sentences write counts. Returns the
 * length, like snprintf (buf truncated to size−1). */
int qkv_format_grouped(char *buf, size_t size, long long value);

/* The UTF-8 sequence at s (at most avail bytes): its length 1..4 and, when point
 * is not NULL, its code point; 0 when it is not valid UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF included). The one UTF-8 check of
 * the program: the loader, the saver and the printer all use it. */
size_t qkv_utf8_decode(const char *s, size_t avail, unsigned long *point);
/* Bytes to step over at s in NUL-terminated text: the valid sequence's length, or
 * 1 for a byte that is not UTF-8 (0 at the terminator). */
size_t qkv_utf8_length(const char *s);

/* Columns a code point takes on a terminal, whatever the process's locale: 0 for
 * combining marks and zero-width characters, 2 for East Asian Wide and Fullwidth
 * ones (CJK, Hangul, fullwidth forms, most emoji), 1 otherwise. */
int qkv_char_columns(unsigned long point);
/* Columns that UTF-8 text takes on a terminal, by qkv_char_columns (a byte that
 * is not UTF-8 takes one, as the terminal's replacement character does). */
int qkv_text_columns(const char *text);
/* The bytes of text's longest prefix that fits in `columns` columns and `bytes`
 * bytes, never ending inside a character (nor before its combining marks). */
size_t qkv_text_fit(const char *text, int columns, size_t bytes);

#endif
