/* text.h — which characters qkv lets into its strings (titles, notes, labels,
 * file names typed in the interface). A control character written to a terminal
 * moves the cursor, clears the screen or sets the window title, and a bidi
 * override turns the text that follows it around, so none is accepted. */
#ifndef QKV_TEXT_H
#define QKV_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* True for C0 controls (U+0000–U+001F, tab and newline included), DEL, C1 controls
 * (U+0080–U+009F), the bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029). */
bool qkv_is_control(unsigned int code_point);

/* The first such character in the UTF-8 text of length bytes: true with its byte
 * offset and code point. Bytes that are not UTF-8 are skipped (checked elsewhere). */
bool qkv_text_find_control(const char *text, size_t length, size_t *offset,
			   unsigned int *code_point);

#endif
