/* text.h — UTF-8 text, one way everywhere: the decoder, the columns a text takes
 * on a terminal, the line breaker, and which characters qkv lets into its strings
 * (titles, notes, labels, file names typed in the interface). A control character
 * written to a terminal moves the cursor, clears the screen or sets the window
 * title, and a bidi override turns the text that follows it around, so none is
 * accepted. */
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
/* The end of text's first line at `width` columns (broken at the last space that
 * fits, or inside a word longer than the line, or at a newline): the bytes of
 * the line; *next: where the next line starts (spaces and the newline skipped).
 * Every text broken into lines (the screen, the presenter's notes, --help) is
 * broken by this one. */
size_t qkv_text_line(const char *text, int width, const char **next);

#endif
