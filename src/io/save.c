/* save.c — problems written as JSON (docs/DESIGN.md, "File format") that load.c
 * reads back to exactly the same problem: every double is written so it reads
 * back bit for bit.
 * Saving is atomic: a temporary file next to the target, flushed to disk, then
 * renamed over it with the target's mode. A failed save must never touch the
 * original file and never leave the temporary file behind. */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/json_write.h"
#include "io/save.h"

/* A problem file being written: the stream (a growing string) and how many
 * object members it has so far. */
struct text {
	FILE *out;
	int members;
};

/* Appends `"key": ` at the start of a member line. */
static void text_key(struct text *t, const char *key)
{
	fputs(t->members++ > 0 ? ",\n  " : "{\n  ", t->out);
	json_write_string(t->out, key);
	fputs(": ", t->out);
}

/* Appends a matrix, one row per line, rows aligned under the first. */
static void text_matrix(struct text *t, const char *key, const struct qkv_matrix *m)
{
	text_key(t, key);
	fputc('[', t->out);
	for (int r = 0; r < m->rows; r++) {
		if (r > 0)
			fprintf(t->out, ",\n   %*s", (int)strlen(key) + 4, "");
		fputc('[', t->out);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", t->out);
			json_write_number(t->out, qkv_matrix_get(m, r, c), JSON_SHORTEST);
		}
		fputc(']', t->out);
	}
	fputc(']', t->out);
}

/* Appends the custom mask as n rows of booleans, true = hidden. */
static void text_mask(struct text *t, const struct qkv_problem *p)
{
	size_t n = (size_t)p->n;

	text_key(t, "mask");
	fputc('[', t->out);
	for (size_t r = 0; r < n; r++) {
		if (r > 0)
			fputs(",\n           ", t->out);
		fputc('[', t->out);
		for (size_t c = 0; c < n; c++) {
			bool hidden = p->mask_bits != NULL && p->mask_bits[r * n + c] != 0;

			fputs(c > 0 ? ", " : "", t->out);
			fputs(hidden ? "true" : "false", t->out);
		}
		fputc(']', t->out);
	}
	fputc(']', t->out);
}

/* Appends the padding list when any token is padding. */
static void text_padding(struct text *t, const struct qkv_problem *p)
{
	bool first = true;

	for (int i = 0; p->padding != NULL && i < p->n; i++) {
		if (!p->padding[i])
			continue;
		if (first)
			text_key(t, "padding");
		fprintf(t->out, "%s%d", first ? "[" : ", ", i);
		first = false;
	}
	if (!first)
		fputc(']', t->out);
}

char *save_string(const struct qkv_problem *p)
{
	char *s = NULL;
	size_t length = 0;
	struct text t = { open_memstream(&s, &length), 0 };

	if (t.out == NULL)
		return NULL;
	if (p->title != NULL) {
		text_key(&t, "title");
		json_write_string(t.out, p->title);
	}
	if (p->notes != NULL) {
		text_key(&t, "notes");
		json_write_string(t.out, p->notes);
	}
	text_key(&t, "tokens");
	for (int i = 0; i < p->n; i++) {
		fputs(i > 0 ? ", " : "[", t.out);
		json_write_string(t.out, p->tokens[i]);
	}
	fputc(']', t.out);
	for (int i = 0; i < QKV_INPUT_COUNT; i++)
		if (qkv_input_info[i].form == p->form)
			text_matrix(&t, qkv_input_info[i].name,
				    qkv_problem_input_const(p, (enum qkv_input)i));
	text_key(&t, "scale");
	if (p->scale == QKV_SCALE_CUSTOM)
		json_write_number(t.out, p->scale_value, JSON_SHORTEST);
	else
		json_write_string(t.out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	text_key(&t, "temperature");
	json_write_number(t.out, p->temperature, JSON_SHORTEST);
	if (p->mask == QKV_MASK_CUSTOM) {
		text_mask(&t, p);
	} else {
		text_key(&t, "mask");
		json_write_string(t.out, qkv_mask_name(p->mask));
	}
	text_padding(&t, p);
	if (p->seeded) {
		/* JSON integers stop at 2^63 − 1 in jansson; larger seeds go as strings. */
		text_key(&t, "seed");
		fprintf(t.out, p->seed > INT64_MAX ? "\"%llu\"" : "%llu",
			(unsigned long long)p->seed);
	}
	fputs("\n}\n", t.out);
	if (ferror(t.out) != 0) {
		fclose(t.out);
		free(s);
		return NULL;
	}
	if (fclose(t.out) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Writes "PATH: cannot save: why" into err; returns -1. */
__attribute__((format(printf, 4, 5)))
static int save_fail(char *err, size_t err_size, const char *path, const char *format, ...)
{
	va_list args;
	int used;

	if (err_size == 0)
		return -1;
	used = snprintf(err, err_size, "%s: cannot save: ", path);
	if (used >= 0 && (size_t)used < err_size) {
		va_start(args, format);
		vsnprintf(err + used, err_size - (size_t)used, format, args);
		va_end(args);
	}
	return -1;
}

/* Writes all of text to fd, retrying short writes; 0 or an errno value. */
static int write_all(int fd, const char *text, size_t length)
{
	while (length > 0) {
		ssize_t done = write(fd, text, length);

		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			return errno;
		text += done;
		length -= (size_t)done;
	}
	return 0;
}

/* The mode the saved file gets: the existing file's, or 0644 less the umask. */
static mode_t target_mode(const struct stat *st, bool exists)
{
	mode_t mask;

	if (exists)
		return st->st_mode & 07777;
	mask = umask(022);
	umask(mask);
	return 0644 & ~mask;
}

/* Writes text to a new temporary file next to target and renames it over target. */
static int replace_file(const char *target, const char *text, mode_t mode, char *err,
			size_t err_size, const char *path)
{
	size_t length = strlen(target);
	char *temp = malloc(length + sizeof ".XXXXXX");
	int fd, code;

	if (temp == NULL)
		return save_fail(err, err_size, path, "out of memory");
	memcpy(temp, target, length);
	memcpy(temp + length, ".XXXXXX", sizeof ".XXXXXX");
	fd = mkstemp(temp);
	if (fd < 0) {
		code = errno;
		free(temp);
		return save_fail(err, err_size, path, "cannot create a file in its folder (%s)",
				 strerror(code));
	}
	code = write_all(fd, text, strlen(text));
	if (code == 0 && fchmod(fd, mode) != 0)
		code = errno;
	if (code == 0 && fsync(fd) != 0)
		code = errno;
	if (close(fd) != 0 && code == 0)
		code = errno;
	if (code == 0 && rename(temp, target) != 0)
		code = errno;
	if (code != 0) {
		unlink(temp);
		free(temp);
		return save_fail(err, err_size, path, "%s", strerror(code));
	}
	free(temp);
	return 0;
}

/* Flushes the folder holding path, so the rename itself survives a crash. */
static void sync_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *folder;
	int fd;

	if (slash == NULL) {
		folder = strdup(".");
	} else {
		size_t length = slash == path ? 1 : (size_t)(slash - path);

		folder = malloc(length + 1);
		if (folder != NULL) {
			memcpy(folder, path, length);
			folder[length] = '\0';
		}
	}
	if (folder == NULL)
		return;
	fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(folder);
}

int save_file(const char *path, const struct qkv_problem *p, char *err, size_t err_size)
{
	struct stat st;
	bool exists;
	char *target = NULL;
	char *text;
	int result;

	if (err_size > 0)
		err[0] = '\0';
	exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return save_fail(err, err_size, path, "%s", strerror(errno));
	if (exists && S_ISLNK(st.st_mode)) {
		/* Saving through a link replaces the file it points to, not the link. */
		target = realpath(path, NULL);
		if (target == NULL || stat(target, &st) != 0) {
			int code = errno;

			free(target);
			return save_fail(err, err_size, path, "%s", strerror(code));
		}
	}
	if (exists && S_ISDIR(st.st_mode)) {
		free(target);
		return save_fail(err, err_size, path, "it is a folder, not a file");
	}
	if (exists && !S_ISREG(st.st_mode)) {
		free(target);
		return save_fail(err, err_size, path, "it is not a regular file");
	}
	text = save_string(p);
	if (text == NULL) {
		free(target);
		return save_fail(err, err_size, path, "out of memory");
	}
	result = replace_file(target != NULL ? target : path, text, target_mode(&st, exists), err,
			      err_size, path);
	if (result == 0)
		sync_folder(target != NULL ? target : path);
	free(text);
	free(target);
	return result;
}
