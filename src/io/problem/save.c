/* save.c — problems written as JSON (docs/DESIGN.md, "File format") that load.c
 * reads back to exactly the same problem: every double is written so it reads
 * back bit for bit.
 * Saving is atomic: a temporary file next to the target, flushed to disk, then
 * renamed over it with the target's mode. A failed save must never touch the
 * original file and never leave the temporary file behind. The target is found
 * as the kernel opens it for a shell's `>`: links are followed by the kernel, never
 * resolved here, and never one another user made in a sticky folder anyone may
 * write to; a terminal, a pipe or a device is written straight. */
#define _GNU_SOURCE /* O_PATH, strndup() */
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/problem/json_write.h"
#include "io/problem/quote.h"
#include "io/problem/save.h"
#include "qkv/error.h"
#include "qkv/format.h"

/* A problem file being written: the stream (a growing string) and how many
 * object members it has so far. */
struct text {
	FILE *out;
	int members;
	size_t limit;  /* the most bytes it may hold, 0 for no limit */
	bool too_big;  /* it grew past limit: the writing stopped */
	enum json_number_style numbers; /* the shortest text, or %.17g (one printf a number) */
};

/* True once the text has grown past its limit (then nothing more is written:
 * a file the loader would refuse is not worth finishing). */
static bool text_full(struct text *t)
{
	if (!t->too_big && t->limit > 0 && (size_t)ftello(t->out) > t->limit)
		t->too_big = true;
	return t->too_big;
}

/* Appends `"key": ` at the start of a member line. */
static void text_key(struct text *t, const char *key)
{
	fputs(t->members++ > 0 ? ",\n  " : "{\n  ", t->out);
	json_write_string(t->out, key);
	fputs(": ", t->out);
}

/* Appends a number in the text's style: %.17g straight through fprintf (save_text
 * has put the C locale in force for it), or the shortest text that reads back. */
static void text_number(struct text *t, double value)
{
	if (t->numbers == JSON_17G && isfinite(value) && !(value == 0 && signbit(value)))
		fprintf(t->out, "%.17g", value);
	else
		json_write_number(t->out, value, JSON_SHORTEST); /* -0 as -0.0: its sign kept */
}

/* Appends a matrix, one row per line, rows aligned under the first. */
static void text_matrix(struct text *t, const char *key, const struct qkv_matrix *m)
{
	text_key(t, key);
	fputc('[', t->out);
	for (int r = 0; r < m->rows && !text_full(t); r++) {
		if (r > 0)
			fprintf(t->out, ",\n   %*s", (int)strlen(key) + 4, "");
		fputc('[', t->out);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", t->out);
			text_number(t, qkv_matrix_get(m, r, c));
		}
		fputc(']', t->out);
	}
	fputc(']', t->out);
}

/* Appends a matrix as one line of rows, for the inside of a head. */
static void text_inline_matrix(struct text *t, const struct qkv_matrix *m)
{
	fputc('[', t->out);
	for (int r = 0; r < m->rows && !text_full(t); r++) {
		fputs(r > 0 ? ", [" : "[", t->out);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", t->out);
			text_number(t, qkv_matrix_get(m, r, c));
		}
		fputc(']', t->out);
	}
	fputc(']', t->out);
}

/* Appends "heads": one head per block, its W_Q, W_K and W_V one per line. */
static void text_heads(struct text *t, const struct qkv_problem *p)
{
	text_key(t, "heads");
	fputc('[', t->out);
	for (int i = 0; i < p->h && !text_full(t); i++) {
		fputs(i > 0 ? ",\n    {\"W_Q\": " : "\n    {\"W_Q\": ", t->out);
		text_inline_matrix(t, &p->heads[i].w_q);
		fputs(",\n     \"W_K\": ", t->out);
		text_inline_matrix(t, &p->heads[i].w_k);
		fputs(",\n     \"W_V\": ", t->out);
		text_inline_matrix(t, &p->heads[i].w_v);
		fputc('}', t->out);
	}
	fputs("\n  ]", t->out);
}

/* Appends the custom mask as m rows (a query each) of n booleans, true = hidden. */
static void text_mask(struct text *t, const struct qkv_problem *p)
{
	size_t n = (size_t)p->n, m = (size_t)p->m;

	text_key(t, "mask");
	fputc('[', t->out);
	for (size_t r = 0; r < m; r++) {
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

/* The JSON text of p, at most limit bytes (0: no limit), its numbers in the given
 * style; *too_big says why NULL. */
static char *write_text(const struct qkv_problem *p, size_t limit, enum json_number_style numbers, bool *too_big)
{
	char *s = NULL;
	size_t length = 0;
	struct text t = { open_memstream(&s, &length), 0, limit, false, numbers };

	*too_big = false;
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
	if (qkv_problem_is_cross(p)) {
		text_key(&t, "query_tokens");
		for (int i = 0; i < p->m; i++) {
			fputs(i > 0 ? ", " : "[", t.out);
			json_write_string(t.out, p->query_tokens[i]);
		}
		fputc(']', t.out);
	}
	if (p->h > 0) {
		text_matrix(&t, "X", &p->x);
		if (qkv_problem_is_cross(p))
			text_matrix(&t, "X_q", &p->x_q);
		text_heads(&t, p);
		text_matrix(&t, "W_O", &p->w_o);
	} else {
		for (int i = 0; i < QKV_GRID_INPUTS; i++)
			if (qkv_grid_info[i].form == p->form &&
			    qkv_problem_input_const(p, (enum qkv_grid)i) != NULL)
				text_matrix(&t, qkv_grid_info[i].name,
					    qkv_problem_input_const(p, (enum qkv_grid)i));
	}
	text_key(&t, "scale");
	if (p->scale == QKV_SCALE_CUSTOM)
		text_number(&t, p->scale_value);
	else
		json_write_string(t.out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	text_key(&t, "temperature");
	text_number(&t, p->temperature);
	if (p->mask == QKV_MASK_CUSTOM) {
		text_mask(&t, p);
	} else {
		text_key(&t, "mask");
		json_write_string(t.out, qkv_mask_name(p->mask));
	}
	text_padding(&t, p);
	if (p->seeded) {
		/* At most QKV_MAX_SEED (save_file refuses more): exact in any JSON reader. */
		text_key(&t, "seed");
		fprintf(t.out, "%llu", (unsigned long long)p->seed);
	}
	fputs("\n}\n", t.out);
	*too_big = text_full(&t);
	if (ferror(t.out) != 0 || *too_big) {
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

/* write_text with %.17g's numbers written in the C locale's '.' whatever LC_NUMERIC
 * says: the locale put in force once for the whole text, not once a number. */
static char *save_text(const struct qkv_problem *p, size_t limit, enum json_number_style numbers, bool *too_big)
{
	locale_t c_numeric = numbers == JSON_17G ? newlocale(LC_NUMERIC_MASK, "C", (locale_t)0) : (locale_t)0;
	locale_t before = c_numeric != (locale_t)0 ? uselocale(c_numeric) : (locale_t)0;
	char *text = write_text(p, limit, numbers, too_big);

	if (c_numeric != (locale_t)0) {
		uselocale(before);
		freelocale(c_numeric);
	}
	return text;
}

char *save_string(const struct qkv_problem *p)
{
	bool too_big;

	return save_text(p, 0, JSON_SHORTEST, &too_big);
}

char *save_string_fast(const struct qkv_problem *p)
{
	bool too_big;

	return save_text(p, 0, JSON_17G, &too_big);
}

/* The bytes of p's file, estimated from up to 4096 numbers of each matrix spread
 * evenly over it (the layout adds ", " or a line break and indent per number), so
 * that a file far above the limit is refused at once, without formatting
 * millions of numbers first. */
static double estimated_bytes(const struct qkv_problem *p)
{
	double bytes = 0;
	char buf[40];

	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const struct qkv_matrix *m = qkv_problem_input_const(p, (enum qkv_grid)i);
		size_t cells, step, sampled = 0, written = 0;

		if (m == NULL || m->rows == 0 || m->cols == 0)
			continue;
		cells = (size_t)m->rows * (size_t)m->cols;
		step = cells / 4096 + 1;
		for (size_t c = 0; c < cells; c += step, sampled++)
			written += (size_t)qkv_format_exact(buf, sizeof buf, m->values[c]) + 2;
		bytes += (double)written / (double)sampled * (double)cells;
	}
	/* Every head's W's: about as many bytes a number as X's and W_O's. */
	double shared = (double)p->x.rows * p->x.cols + (double)p->w_o.rows * p->w_o.cols;
	double per = shared > 0 ? bytes / shared : 24.0;

	for (int i = 0; i < p->h; i++) {
		const struct qkv_head *head = &p->heads[i];

		bytes += per * ((double)head->w_q.rows * head->w_q.cols * 2.0 +
				(double)head->w_v.rows * head->w_v.cols);
	}
	if (p->mask == QKV_MASK_CUSTOM)
		bytes += (double)p->m * (double)p->n * 6; /* "true, " or "false, " */
	return bytes;
}

/* Writes "PATH: cannot save: why" into err, PATH escaped (quote.h); returns -1. */
__attribute__((format(printf, 4, 5)))
static int save_fail(char *err, size_t err_size, const char *path, const char *format, ...)
{
	va_list args;
	int used;

	if (err_size == 0)
		return -1;
	quote_text(err, err_size, path, strlen(path), strlen(path));
	used = (int)strlen(err);
	used += snprintf(err + used, err_size - (size_t)used, ": cannot save: ");
	if (used >= 0 && (size_t)used < err_size) {
		va_start(args, format);
		vsnprintf(err + used, err_size - (size_t)used, format, args);
		va_end(args);
	}
	return -1;
}

int save_write_all(int fd, const char *text, size_t length)
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

/* Temporary files are FOLDER/.NAME.qkv-XXXXXX, NAME cut so the whole name stays
 * within NAME_MAX (a 255-byte file name still saves); the marker tells qkv's own
 * temporary files from anything else. */
#define TEMP_MARK ".qkv-"
#define TEMP_NAME_MAX (255 - 1 - (sizeof TEMP_MARK - 1) - 6)
#define TEMP_STALE_S 60 /* a temporary file this old was left by a save that died */

/* The temporary name's prefix for target, without the XXXXXX: malloc'd, or NULL. */
static char *temp_prefix(const char *target)
{
	const char *slash = strrchr(target, '/'), *base = slash != NULL ? slash + 1 : target;
	size_t folder = (size_t)(base - target), name = strlen(base);
	char *prefix;

	if (name > TEMP_NAME_MAX)
		name = TEMP_NAME_MAX;
	prefix = malloc(folder + 1 + name + sizeof TEMP_MARK + 6);
	if (prefix == NULL)
		return NULL;
	memcpy(prefix, target, folder);
	prefix[folder] = '.';
	memcpy(prefix + folder + 1, base, name);
	memcpy(prefix + folder + 1 + name, TEMP_MARK, sizeof TEMP_MARK);
	return prefix;
}

/* Removes the temporary files of target that earlier saves left behind when they
 * were killed mid-write: ours by name, owned by this user, and older than
 * TEMP_STALE_S (so a save running beside this one keeps its own). */
static void remove_stale_temps(const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	const char *start = slash != NULL ? slash + 1 : prefix;
	size_t start_length = strlen(start);
	char *folder = slash != NULL ? strndup(prefix, (size_t)(slash - prefix) + 1) : strdup("./");
	DIR *dir;
	struct dirent *entry;
	time_t now = time(NULL);

	if (folder == NULL)
		return;
	dir = opendir(folder);
	while (dir != NULL && (entry = readdir(dir)) != NULL) {
		struct stat st;
		char *path;
		bool stale;

		if (strncmp(entry->d_name, start, start_length) != 0 || strlen(entry->d_name) != start_length + 6)
			continue;
		path = malloc(strlen(folder) + strlen(entry->d_name) + 1);
		if (path == NULL)
			break;
		strcpy(path, folder);
		strcat(path, entry->d_name);
		stale = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
			now - st.st_mtime > TEMP_STALE_S;
		if (stale)
			unlink(path);
		free(path);
	}
	if (dir != NULL)
		closedir(dir);
	free(folder);
}

/* Writes text to a new temporary file next to target and renames it over target. */
static int replace_file(const char *target, const char *text, size_t text_length, mode_t mode, char *err,
			size_t err_size, const char *path)
{
	char *prefix = temp_prefix(target), *temp;
	int fd, code;

	if (prefix == NULL)
		return save_fail(err, err_size, path, "out of memory");
	remove_stale_temps(prefix);
	temp = malloc(strlen(prefix) + sizeof "XXXXXX");
	if (temp == NULL) {
		free(prefix);
		return save_fail(err, err_size, path, "out of memory");
	}
	strcpy(temp, prefix);
	strcat(temp, "XXXXXX");
	free(prefix);
	fd = mkstemp(temp);
	if (fd < 0) {
		code = errno;
		free(temp);
		return save_fail(err, err_size, path, "cannot create a file in its folder (%s)",
				 strerror(code));
	}
	code = save_write_all(fd, text, text_length);
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

/* The folder holding path's last name (malloc'd): "." when path has no slash. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* Whether the kernel's fs.protected_symlinks rule lets the link at path, whose
 * lstat is link, be followed: in a folder that is sticky and writable by all (such
 * as /tmp), only a link of this user's or of the folder's owner. qkv applies the
 * rule whatever the system's setting, as the shell's `>` is refused where it is on.
 * 0, or -1 with err written. */
static int check_link(const char *path, const struct stat *link, char *err, size_t err_size)
{
	char *folder = folder_of(path);
	struct stat st;
	int code;

	if (folder == NULL)
		return save_fail(err, err_size, path, "out of memory");
	if (stat(folder, &st) != 0) {
		code = errno;
		free(folder);
		return save_fail(err, err_size, path, "%s", strerror(code));
	}
	if ((st.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) && link->st_uid != geteuid() &&
	    link->st_uid != st.st_uid) {
		save_fail(err, err_size, path, "it is a link that another user made in %s, a folder where "
			  "anyone may make files; qkv does not follow it (nor does a shell's > where "
			  "fs.protected_symlinks is on)", folder);
		free(folder);
		return -1;
	}
	free(folder);
	return 0;
}

/* The name the kernel gives the file open at fd (malloc'd), or NULL with errno set:
 * where a link led when the kernel followed it. */
static char *name_of_open_file(int fd)
{
	char proc[64];
	size_t size = 256;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (;;) {
		char *name = malloc(size);
		ssize_t length;

		if (name == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		length = readlink(proc, name, size);
		if (length < 0) {
			free(name);
			return NULL;
		}
		if ((size_t)length < size) {
			name[length] = '\0';
			return name;
		}
		free(name);
		size *= 2;
	}
}

/* Where a save to path goes. */
struct target {
	char *path;       /* the file replaced (malloc'd), where a link led; NULL: path itself */
	struct stat st;   /* its stat, when it exists */
	bool exists;
	bool direct;      /* not a regular file (a terminal, a pipe, /dev/null): written straight */
	bool made;        /* made empty through a link that led nowhere: removed when the save fails */
};

/* Opens the file a link at path leads to as the kernel follows it (making it, empty,
 * when the link leads nowhere yet) and finds the target's name and stat. */
static int follow_link(const char *path, struct target *t, char *err, size_t err_size)
{
	int fd = open(path, O_PATH | O_CLOEXEC), code;
	struct stat named;

	if (fd < 0 && errno == ENOENT) {
		/* A link to a file not made yet: the kernel makes it, as for a shell's >,
		 * with the mode a new file gets (0644 less the umask). */
		fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0644);
		t->made = fd >= 0;
	}
	if (fd < 0)
		return save_fail(err, err_size, path, "%s", strerror(errno));
	if (fstat(fd, &t->st) != 0) {
		code = errno;
		close(fd);
		return save_fail(err, err_size, path, "%s", strerror(code));
	}
	t->exists = !t->made;
	if (!S_ISREG(t->st.st_mode)) {
		close(fd);
		return 0;
	}
	t->path = name_of_open_file(fd);
	code = errno;
	close(fd);
	if (t->path == NULL)
		return save_fail(err, err_size, path, "cannot find the file its link leads to (%s)", strerror(code));
	/* The name must still be that very file (not one moved there since). */
	if (stat(t->path, &named) != 0 || named.st_dev != t->st.st_dev || named.st_ino != t->st.st_ino)
		return save_fail(err, err_size, path, "the file its link leads to moved while saving");
	return 0;
}

/* Where path saves to, as the kernel would open it for a shell's `>`: a regular
 * file is replaced; a link is followed (check_link) to the file it leads to; a
 * terminal, a pipe or a device is written straight; a folder is refused. 0, or -1
 * with err written (t then owns nothing). */
static int resolve_target(const char *path, struct target *t, char *err, size_t err_size)
{
	memset(t, 0, sizeof *t);
	if (err_size > 0)
		err[0] = '\0';
	t->exists = lstat(path, &t->st) == 0;
	if (!t->exists && errno != ENOENT)
		return save_fail(err, err_size, path, "%s", strerror(errno));
	if (t->exists && S_ISLNK(t->st.st_mode) &&
	    (check_link(path, &t->st, err, err_size) != 0 || follow_link(path, t, err, err_size) != 0)) {
		if (t->made && t->path != NULL)
			unlink(t->path);
		free(t->path);
		t->path = NULL;
		return -1;
	}
	if (t->exists && S_ISDIR(t->st.st_mode)) {
		free(t->path);
		t->path = NULL;
		return save_fail(err, err_size, path, "it is a folder, not a file");
	}
	t->direct = t->exists && !S_ISREG(t->st.st_mode);
	if (t->made)
		t->exists = true; /* an empty file of its own, to be replaced like any */
	return 0;
}

/* Writes the bytes straight into what path opens (a terminal, a pipe, a device),
 * as a shell's `>` does: these cannot be replaced, and hold no earlier file. */
static int write_direct(const char *path, const char *bytes, size_t length, char *err, size_t err_size)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), code;
	struct stat st;

	if (fd < 0 && errno == ENXIO)
		return save_fail(err, err_size, path, "it is a pipe that no program is reading");
	if (fd < 0)
		return save_fail(err, err_size, path, "%s", strerror(errno));
	if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		close(fd);
		return save_fail(err, err_size, path, "it changed while saving");
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	code = save_write_all(fd, bytes, length);
	if (close(fd) != 0 && code == 0 && errno != EINTR)
		code = errno;
	if (code != 0)
		return save_fail(err, err_size, path, "%s", strerror(code));
	return 0;
}

/* Writes the bytes to the resolved target: straight, or replacing the file and
 * flushing its folder. */
static int write_target(const char *path, const struct target *t, const char *bytes, size_t length,
			char *err, size_t err_size)
{
	const char *file = t->path != NULL ? t->path : path;
	int result;

	if (t->direct)
		return write_direct(path, bytes, length, err, err_size);
	result = replace_file(file, bytes, length, target_mode(&t->st, t->exists), err, err_size, path);
	if (result == 0)
		sync_folder(file);
	else if (t->made)
		unlink(file);
	return result;
}

/* Gives up a resolved target: a file made empty for it is removed. */
static void target_drop(struct target *t)
{
	if (t->made && t->path != NULL)
		unlink(t->path);
	free(t->path);
	t->path = NULL;
}

int save_bytes(const char *path, const char *bytes, size_t length, char *err, size_t err_size)
{
	struct target t;
	int result;

	if (resolve_target(path, &t, err, err_size) != 0)
		return -1;
	result = write_target(path, &t, bytes, length, err, err_size);
	free(t.path);
	return result;
}

int save_file(const char *path, const struct qkv_problem *p, char *err, size_t err_size)
{
	struct target t;
	char *text;
	int result;
	bool too_big = false;
	double estimate;

	if (resolve_target(path, &t, err, err_size) != 0)
		return -1;
	if (p->seeded && p->seed > QKV_MAX_SEED) {
		target_drop(&t);
		return save_fail(err, err_size, path, "the seed %llu is above 9007199254740991 (2^53 - 1), "
				 "the largest a file holds", (unsigned long long)p->seed);
	}
	estimate = estimated_bytes(p);
	if (estimate > 1.25 * (double)QKV_MAX_FILE_BYTES) {
		target_drop(&t);
		return save_fail(err, err_size, path, "the file would be about %.0f MiB, more than the %ld "
				 "MiB qkv reads back; make the problem smaller (fewer tokens, smaller d_k "
				 "or d_v)", estimate / (1024 * 1024), QKV_MAX_FILE_BYTES / (1024 * 1024));
	}
	text = save_text(p, (size_t)QKV_MAX_FILE_BYTES, JSON_SHORTEST, &too_big);
	if (text == NULL) {
		target_drop(&t);
		if (too_big)
			return save_fail(err, err_size, path, "the file would be more than the %ld MiB qkv "
					 "reads back; make the problem smaller (fewer tokens, smaller d_k "
					 "or d_v)", QKV_MAX_FILE_BYTES / (1024 * 1024));
		return save_fail(err, err_size, path, "out of memory");
	}
	result = write_target(path, &t, text, strlen(text), err, err_size);
	free(text);
	free(t.path);
	return result;
}
