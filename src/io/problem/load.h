/* load.h — reading problems from JSON (docs/DESIGN.md, "File format") with jansson.
 * Strict: unknown keys, wrong types, ragged rows, mismatched sizes, values that
 * are not finite, and sizes above the limits are errors. Each error is one line
 * for people: "FILE:LINE:COL: what was expected" (or "FILE: …" with no place). */
#ifndef QKV_IO_LOAD_H
#define QKV_IO_LOAD_H

#include <stddef.h>

#include "qkv/problem.h"

/* Reads the file at path into p (replacing what p held). Returns 0, or -1 with
 * one line (no trailing newline) in err; p is then left empty. */
int load_file(const char *path, struct qkv_problem *p, char *err, size_t err_size);
/* The same from text in memory; name stands for the file in messages. */
int load_string(const char *text, size_t length, const char *name,
		struct qkv_problem *p, char *err, size_t err_size);

#endif
