/* format.h — the one place where numbers become text for people.
 * The screen, the printer and the derivations all format through here, so a
 * value reads the same everywhere. Writes into caller buffers; never allocates. */
#ifndef QKV_FORMAT_H
#define QKV_FORMAT_H

#include <stddef.h>

/* Writes value with `decimals` digits after the point (0..12) into buf; "-0.00"
 * becomes "0.00"; magnitudes of 1e7 and more switch to %.*e with at most three
 * decimals. Returns the length snprintf reports (output truncated to size-1). */
int qkv_format_number(char *buf, size_t size, double value, int decimals);
/* Writes value so that it reads back to the same double (shortest of %.15g,
 * %.16g, %.17g that round-trips). */
int qkv_format_exact(char *buf, size_t size, double value);

/* Writes value as printf's "%.17g" would, up to the last digit: 17 significant
 * digits, so it always reads back to the same double. Integer arithmetic on an
 * extended-precision scaling where the platform has one (a large printout writes
 * tens of thousands of numbers), printf otherwise. Returns the length, like
 * snprintf (buf truncated to size−1). */
int qkv_format_17g(char *buf, size_t size, double value);

/* Columns that UTF-8 text takes on a terminal, one per code point: right for
 * qkv's own glyphs and most labels (a wide script such as CJK counts short). */
int qkv_text_columns(const char *text);

#endif
