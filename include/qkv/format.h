/* format.h — the one place where numbers become text for people.
 * The screen, the printer and the derivations all format through here, so a
 * value reads the same everywhere. Writes into caller buffers; never allocates. */
#ifndef QKV_FORMAT_H
#define QKV_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* Writes value with `decimals` digits after the point (0..12) into buf; "-0.00"
 * becomes "0.00"; magnitudes of 1e7 and more switch to %.*e with at most three
 * decimals. Returns the length snprintf reports (output truncated to size-1). */
int qkv_format_number(char *buf, size_t size, double value, int decimals);
/* The most values qkv_format_places weighs (a teaching grid; larger ones keep
 * `least`). */
#define QKV_PLACES_MAX_VALUES 4096

/* The fewest decimals from least up to most (0..12) at which the count values
 * print apart: values that differ by more than 1e-9 of the larger get different
 * texts, and no value other than 0 shows fewer than two significant digits (0.00
 * for 0.001, 0.01 for 0.0147). When even most does not tell
 * them apart, returns most and sets *apart false (else true); more than
 * QKV_PLACES_MAX_VALUES values: least, *apart true (not weighed). */
int qkv_format_places(const double *values, size_t count, int least, int most, bool *apart);

/* True when value, printed at `decimals`, hides what it is: it is not 0 but
 * shows fewer than two significant digits, or one of the count values differs
 * from it by more than 1e-9 of the larger and prints the same. */
bool qkv_format_hides(const double *values, size_t count, double value, int decimals);

/* Writes value so that it reads back to the same double (shortest of %.15g,
 * %.16g, %.17g that round-trips). */
int qkv_format_exact(char *buf, size_t size, double value);

/* Writes value as printf's "%.17g" would, up to the last digit: 17 significant
 * digits, so it always reads back to the same double. Integer arithmetic on an
 * extended-precision scaling where the platform has one (a large printout writes
 * tens of thousands of numbers), printf otherwise. Returns the length, like
 * snprintf (buf truncated to size−1). */
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
