/* record.c — the asciicast v2 recording (record.h). It never replaces a file
 * unasked, never the file being presented, and never writes over one in place. */
#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "io/problem/json_write.h"
#include "io/problem/quote.h"
#include "qkv/text.h"
#include "tui/record.h"

struct record {
	FILE *file;
	char *path;
	char *temp;         /* with --force over an existing file: written here, renamed at the end */
	struct timespec started;
	int width, height;
	char *last;         /* the last frame written, to skip repeats */
	char *frame;        /* the frame being built */
	size_t length, capacity;
	bool failed;
	int error;
};

static void grow(struct record *r, size_t more)
{
	if (r->failed || r->length + more + 1 <= r->capacity)
		return;
	size_t capacity = r->capacity ? r->capacity : 16384;
	while (capacity < r->length + more + 1)
		capacity *= 2;
	char *bigger = realloc(r->frame, capacity);

	if (bigger == NULL) {
		r->failed = true;
		r->error = ENOMEM;
		return;
	}
	r->frame = bigger;
	r->capacity = capacity;
}

static void add(struct record *r, const char *text, size_t length)
{
	grow(r, length);
	if (r->failed)
		return;
	memcpy(r->frame + r->length, text, length);
	r->length += length;
	r->frame[r->length] = '\0';
}

static void add_text(struct record *r, const char *text)
{
	add(r, text, strlen(text));
}

static double seconds(const struct record *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - r->started.tv_sec) + (double)(now.tv_nsec - r->started.tv_nsec) / 1e9;
}

/* "qkv: --record PATH" then the rest into err, PATH escaped (io/quote.h). */
static void record_fail(char *err, size_t err_size, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void record_fail(char *err, size_t err_size, const char *path, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (err_size == 0)
		return;
	snprintf(err, err_size, "qkv: --record ");
	used = strlen(err);
	quote_text(err + used, err_size - used, path, strlen(path), strlen(path));
	used = strlen(err);
	va_start(ap, fmt);
	vsnprintf(err + used, err_size - used, fmt, ap);
	va_end(ap);
}

/* True when path and other name the same file (device and inode, not names). */
static bool same_file(const struct stat *st, const char *other)
{
	struct stat o;

	return other != NULL && stat(other, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* Opens the recording's file: a new file made with O_EXCL; with force, an
 * existing one is replaced at the end by a new file written beside it; a
 * terminal, a pipe or a device is written straight. Never the problem or the
 * lesson being opened. NULL with one line in err. */
static FILE *open_file(struct record *r, const char *path, const struct record_files *files, char *err,
		       size_t err_size)
{
	struct stat st, named;
	bool exists = lstat(path, &named) == 0, followed = exists && stat(path, &st) == 0;
	int fd;

	if (followed && (same_file(&st, files->problem) || same_file(&st, files->lesson))) {
		record_fail(err, err_size, path, " is the %s being opened; a recording never replaces it",
			    same_file(&st, files->lesson) ? "lesson" : "problem file");
		return NULL;
	}
	if (followed && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		/* A terminal, a pipe, /dev/null: nothing there to keep, written as > writes it. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	} else if (exists && !files->force) {
		record_fail(err, err_size, path, ": the file exists; give --force to replace it");
		return NULL;
	} else if (exists) {
		const char *slash = strrchr(path, '/');
		size_t folder = slash != NULL ? (size_t)(slash - path) + 1 : 0;

		if (followed && S_ISDIR(st.st_mode)) {
			record_fail(err, err_size, path, ": it is a folder, not a file");
			return NULL;
		}
		if ((r->temp = malloc(strlen(path) + 16)) == NULL) {
			record_fail(err, err_size, path, ": out of memory");
			return NULL;
		}
		memcpy(r->temp, path, folder);
		snprintf(r->temp + folder, strlen(path) + 16 - folder, ".%s.qkv-XXXXXX", path + folder);
		fd = mkstemp(r->temp);
		if (fd >= 0) { /* the mode of the file it replaces, else a new file's */
			mode_t mask = umask(022);

			umask(mask);
			fchmod(fd, followed ? st.st_mode & 0777 : 0644 & ~mask);
		}
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		record_fail(err, err_size, path, ": cannot write it: %s",
			    errno == EEXIST ? "the file exists; give --force to replace it" : strerror(errno));
		free(r->temp);
		r->temp = NULL;
		return NULL;
	}
	return fdopen(fd, "w");
}

struct record *record_open(const char *path, const struct record_files *files, int width, int height,
			   char *err, size_t err_size)
{
	struct record *r = calloc(1, sizeof *r);
	const char *term = getenv("TERM");

	if (r == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		record_fail(err, err_size, path, ": out of memory");
		return NULL;
	}
	r->file = open_file(r, path, files, err, err_size);
	if (r->file == NULL) {
		free(r->path);
		free(r);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->started);
	r->width = width;
	r->height = height;
	fprintf(r->file, "{\"version\": 2, \"width\": %d, \"height\": %d, \"timestamp\": %lld, \"env\": {\"TERM\": ",
		width, height, (long long)time(NULL));
	json_write_string(r->file, term != NULL ? term : "xterm-256color");
	fputs("}, \"title\": \"qkv\"}\n", r->file);
	if (fflush(r->file) != 0) {
		r->failed = true;
		r->error = errno;
	}
	return r;
}

/* The SGR parameters of one colour: foreground (base 30) or background (base 40). */
static void add_colour(struct record *r, int colour, int base)
{
	char text[32];

	if (colour < 0)
		snprintf(text, sizeof text, ";%d", base + 9);
	else if (colour < 8)
		snprintf(text, sizeof text, ";%d", base + colour);
	else if (colour < 16)
		snprintf(text, sizeof text, ";%d", base + 60 + colour - 8);
	else if (colour < 256)
		snprintf(text, sizeof text, ";%d;5;%d", base + 8, colour);
	else /* a direct-colour terminal: the colour is its 24-bit value */
		snprintf(text, sizeof text, ";%d;2;%d;%d;%d", base + 8, (colour >> 16) & 0xff, (colour >> 8) & 0xff,
			 colour & 0xff);
	add_text(r, text);
}

static void add_style(struct record *r, attr_t attrs, int pair)
{
	int fg = -1, bg = -1;

	add_text(r, "\033[0");
	if (attrs & A_BOLD)
		add_text(r, ";1");
	if (attrs & A_DIM)
		add_text(r, ";2");
	if (attrs & A_ITALIC)
		add_text(r, ";3");
	if (attrs & A_UNDERLINE)
		add_text(r, ";4");
	if (attrs & A_REVERSE)
		add_text(r, ";7");
	if (pair > 0 && has_colors() && extended_pair_content(pair, &fg, &bg) == OK) {
		add_colour(r, fg, 30);
		add_colour(r, bg, 40);
	}
	add_text(r, "m");
}

void record_frame(struct record *r)
{
	int height = getmaxy(stdscr), width = getmaxx(stdscr);
	attr_t style_attrs = (attr_t)-1;
	int style_pair = -1;

	if (r == NULL || r->failed)
		return;
	if (width != r->width || height != r->height) {
		r->width = width;
		r->height = height;
		fprintf(r->file, "[%.6f, \"r\", \"%dx%d\"]\n", seconds(r), width, height);
		free(r->last);
		r->last = NULL;
	}
	r->length = 0;
	add_text(r, "\033[?25l\033[H");
	for (int y = 0; y < height; y++) {
		char place[32];

		snprintf(place, sizeof place, "\033[%d;1H", y + 1);
		add_text(r, place);
		for (int x = 0; x < width; x++) {
			cchar_t cell;
			wchar_t wide[CCHARW_MAX + 1];
			attr_t attrs = 0;
			short legacy = 0;
			int pair = 0, columns;
			char bytes[8 * (CCHARW_MAX + 1)];
			size_t n = 0;
			mbstate_t state;

			if (mvwin_wch(stdscr, y, x, &cell) == ERR || getcchar(&cell, wide, &attrs, &legacy, &pair) == ERR)
				continue;
			attrs &= ~(attr_t)A_COLOR;
			if (attrs != style_attrs || pair != style_pair) {
				add_style(r, attrs, pair);
				style_attrs = attrs;
				style_pair = pair;
			}
			memset(&state, 0, sizeof state);
			for (int i = 0; i < CCHARW_MAX && wide[i] != L'\0'; i++) {
				size_t got = wcrtomb(bytes + n, wide[i], &state);

				if (got != (size_t)-1)
					n += got;
			}
			if (n == 0)
				bytes[n++] = ' ';
			add(r, bytes, n);
			columns = qkv_char_columns((unsigned long)wide[0]);
			if (columns == 2)
				x++; /* the wide character covers the next cell too */
		}
	}
	add_text(r, "\033[0m");
	if (r->failed || (r->last != NULL && strcmp(r->last, r->frame) == 0))
		return;
	fprintf(r->file, "[%.6f, \"o\", ", seconds(r));
	json_write_string(r->file, r->frame);
	fputs("]\n", r->file);
	free(r->last);
	r->last = strdup(r->frame);
	/* Each frame reaches the file at once: a session that ends abruptly keeps its
	 * recording up to its last frame. */
	if ((fflush(r->file) != 0 || ferror(r->file)) && !r->failed) {
		r->failed = true;
		r->error = errno;
	}
}

int record_close(struct record *r, char *err, size_t err_size)
{
	int rc = 0;

	if (r == NULL)
		return 0;
	if (r->temp != NULL && !r->failed && (fflush(r->file) != 0 || fsync(fileno(r->file)) != 0)) {
		r->failed = true;
		r->error = errno;
	}
	if (fclose(r->file) != 0 && !r->failed) {
		r->failed = true;
		r->error = errno;
	}
	if (r->temp != NULL && !r->failed && rename(r->temp, r->path) != 0) {
		r->failed = true;
		r->error = errno;
	}
	if (r->failed) {
		if (r->temp != NULL) {
			unlink(r->temp);
			record_fail(err, err_size, r->path, " was not replaced: %s", strerror(r->error));
		} else {
			record_fail(err, err_size, r->path, " is incomplete: %s", strerror(r->error));
		}
		rc = -1;
	}
	free(r->temp);
	free(r->path);
	free(r->frame);
	free(r->last);
	free(r);
	return rc;
}
