/* json_read.h — a fast reader for the JSON that problem files are made of, beside
 * jansson's parser: the same tree (json_t), made several times faster, for text
 * that is plainly valid. Whatever it is not sure of (any syntax error, an escape
 * \u, a control character, a duplicate key, an integer of 19 digits or more, deep
 * nesting) it declines, and the caller parses with jansson, which then also words
 * the error. So the tree is always jansson's, and so is every message. */
#ifndef QKV_IO_JSON_READ_H
#define QKV_IO_JSON_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Where a fast tree lives: its objects are carved out of a few large blocks
 * (a problem file is tens of thousands of numbers, each a jansson object), and
 * all of them go at once. */
struct json_arena;

/* The document in text (length bytes, one value of any kind with white space
 * around it), as json_loadb(text, length, JSON_REJECT_DUPLICATES |
 * JSON_DECODE_ANY) would make it, or NULL when this reader declines (then ask
 * jansson). The tree is read-only and lives in *arena: free it with
 * json_arena_free(*arena), never with json_decref. While it reads, jansson's
 * allocator is the arena's: no other thread may use jansson at that moment
 * (qkv loads problems on its main thread only). */
json_t *json_read_fast(const char *text, size_t length, struct json_arena **arena);
void json_arena_free(struct json_arena *arena);

/* A JSON number token with a fraction or an exponent (the grammar's
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, already checked) to the double
 * strtod gives, correctly rounded, in integer arithmetic. false when the token
 * has more than 19 significant digits or a decimal exponent beyond ±27 from
 * them: then strtod must do it. */
bool json_read_decimal(const char *token, size_t length, double *value);

#endif
