/* json_write.h — the one JSON writer of the program: strings and numbers as the
 * printer's JSON output and the saved problem files write them (docs/DESIGN.md,
 * "JSON contracts"). Writes to a FILE (the saver's is a memory stream). */
#ifndef QKV_IO_JSON_WRITE_H
#define QKV_IO_JSON_WRITE_H

#include <stdio.h>

/* s as a JSON string: '"', '\\' and control characters (C0 and DEL) escaped,
 * bytes that are not UTF-8 written as U+FFFD, so the text is valid JSON whatever
 * a label holds. NULL is written as null. */
void json_write_string(FILE *out, const char *s);

/* How a number is written; both read back to the same double. */
enum json_number_style {
	JSON_17G,      /* printf's "%.17g" (the printer's contract; fast) */
	JSON_SHORTEST, /* the shortest of %.15g–%.17g, -0 as -0.0 (files people edit) */
};
/* value as a JSON number in the given style; null when it is not finite. */
void json_write_number(FILE *out, double value, enum json_number_style style);
/* The same text into buf (at least 40 bytes: the longest is 24); its length. */
int json_number_text(char *buf, size_t size, double value, enum json_number_style style);

#endif
