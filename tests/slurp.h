/* slurp.h — whole small files read into memory, for the Check suites that compare
 * what was written with what was expected. Header-only; not part of qkv. */
#ifndef QKV_TESTS_SLURP_H
#define QKV_TESTS_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The whole file at path, NUL-terminated (the caller frees), its size in *length
 * when length is not NULL; NULL when it cannot be opened or read whole. */
static inline char *slurp_sized(const char *path, size_t *length)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long size;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = size < 0 ? NULL : calloc((size_t)size + 1, 1);
	if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
		free(text);
		text = NULL;
	}
	if (text != NULL && length != NULL)
		*length = (size_t)size;
	fclose(f);
	return text;
}

/* The whole file at path, NUL-terminated (the caller frees), or NULL. */
static inline char *slurp(const char *path)
{
	return slurp_sized(path, NULL);
}

#endif
