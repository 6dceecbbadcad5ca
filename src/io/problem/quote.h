/* quote.h — text from outside (a file name, TERM, a line of a file) made safe to
 * quote in a message for a terminal: the one way qkv escapes it. Control
 * characters (C0, DEL) and bytes that are not UTF-8 (a lone 0x9b, CSI to an
 * 8-bit terminal) become \xHH; C1 controls and bidi overrides written in UTF-8
 * become \uXXXX; every other character is itself. */
#ifndef QKV_IO_QUOTE_H
#define QKV_IO_QUOTE_H

#include <stddef.h>

/* Writes the length bytes of text, escaped, into out (size bytes, always ended with
 * a NUL); at most limit bytes of text are quoted, then "...". */
void quote_text(char *out, size_t size, const char *text, size_t length, size_t limit);
/* The whole of text escaped (malloc'd, the caller frees), or NULL when out of
 * memory; NULL text gives NULL. */
char *quote_dup(const char *text);

#endif
