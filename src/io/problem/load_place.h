/* load_place.h — what the loader's files share: one load (its text, its name for
 * messages, the parsed document) and the place of a key or value in it, and the
 * messages that name a place as FILE:LINE:COL. Private to load.c and load_place.c. */
#ifndef QKV_IO_LOAD_PLACE_H
#define QKV_IO_LOAD_PLACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "qkv/error.h"

#define LOAD_MAX_BYTES QKV_MAX_FILE_BYTES /* the largest problem file read */
#define LOAD_MAX_QUOTE 40                  /* bytes of a bad key or token quoted */
#define LOAD_MAX_DEPTH 5                   /* key, [head, key,] row, column */
#define LOAD_TEXT(x) #x                    /* a limit as written in error.h */
#define LOAD_LIMIT(x) LOAD_TEXT(x)

/* Where an error is: member or element indexes from the top object down. */
struct place {
	int depth;
	size_t step[LOAD_MAX_DEPTH];
	bool key; /* the last step names an object member's key, not its value */
};

/* One load: the text (after any byte order mark), its name for messages, where
 * the message goes, and the parsed document. */
struct loader {
	const char *text;
	size_t length;
	const char *name;
	char *err;
	size_t err_size;
	json_t *root;
};

/* One line into the load's err, "FILE:LINE:COL: " and the message, for the byte at
 * offset, for the file as a whole ("FILE: "), or for the key or value at a place.
 * Each returns -1. */
int load_fail_offset(const struct loader *ld, size_t offset, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
int load_fail_file(const struct loader *ld, const char *format, ...) __attribute__((format(printf, 2, 3)));
int load_fail_at(const struct loader *ld, const struct place *at, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
/* The place of a top-level member's value (or key), with up to two more steps. */
struct place load_place_of(const struct loader *ld, const char *key, int depth, size_t row,
			     size_t col);
/* "s" after a count other than one. */
const char *load_plural(size_t count);
/* "a string", "an array", ... for messages; numbers are shown by callers. */
const char *load_type_name(const json_t *v);
/* Refuses NUL bytes and text that is not UTF-8, at their exact place, before
 * jansson sees the text (so binary files get a clear line, not a parse error). */
int load_check_encoding(const struct loader *ld);
/* jansson's syntax error e as one line at its place, in words for people (a
 * comment, single quotes, NaN…); returns -1. */
int load_syntax_error(const struct loader *ld, const json_error_t *e);
/* A blank text: nothing but white space. */
bool load_is_blank(const struct loader *ld);

#endif
