/* format.h — the one place where numbers become text for people.
 * The screen, the printer and the derivations all format through here, so a
 * value reads the same everywhere. Writes into caller buffers. */
#ifndef QKV_FORMAT_H
#define QKV_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* Numbers are written by snprintf in the C locale, whatever LC_NUMERIC the
 * process has: the decimal point is always '.'. */

/* Writes value with `decimals` digits after the point (0..12) into buf, as
 * "%.*f" does; "-0.00" becomes "0.00"; magnitudes of 1e7 and more switch to
 * "%.*e" with at most three decimals. Returns the full length, like snprintf
 * (buf truncated to size−1). */
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

#endif
