/* recovery.c — the recovery copy of a file's unsaved changes (docs/DESIGN.md,
 * "Recovery copies"). A file qkv invents, so it lives only in the user's private
 * state folder, $XDG_STATE_HOME/qkv (else ~/.local/state/qkv), made 0700 and
 * refused when another user owns it. Each copy is a new file there, never
 * written over an old one: NAME-HASH-STAMP-PID.recovery, where NAME is the
 * file's own name, HASH a 64-bit FNV-1a hash of its absolute path (so "/a%b" and
 * "/a/b" differ and a long path still makes a short name), STAMP the time and
 * PID this process. It is written whole to a hidden temporary file (O_CREAT |
 * O_EXCL | O_NOFOLLOW, mode 0600), flushed, then linked under its name (link
 * never replaces a file), so a copy is whole or absent and a planted link is
 * never followed. Finding a copy again looks for NAME-HASH- among the regular
 * files this user owns there, the newest first. */
#define _XOPEN_SOURCE 700 /* realpath(), openat(), fdopendir() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/problem/quote.h"
#include "io/problem/recovery.h"
#include "io/problem/save.h"

#define SUFFIX ".recovery"
#define NAME_PART_MAX 96 /* bytes of the file's own name kept in the copy's name */

/* Writes one line into err; returns -1. */
__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t err_size, const char *format, ...)
{
	va_list args;

	if (err_size == 0)
		return -1;
	va_start(args, format);
	vsnprintf(err, err_size, format, args);
	va_end(args);
	return -1;
}

/* A name (a folder, a path) as a message quotes it (quote.h), into out. */
static const char *shown(char *out, size_t size, const char *name)
{
	quote_text(out, size, name, strlen(name), 240);
	return out;
}

/* The state folder's name into out; false when neither XDG_STATE_HOME nor HOME
 * names an absolute folder. */
static bool state_folder_name(char *out, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int used;

	if (state != NULL && state[0] == '/')
		used = snprintf(out, size, "%s/qkv", state);
	else if (home != NULL && home[0] == '/')
		used = snprintf(out, size, "%s/.local/state/qkv", home);
	else
		return false;
	return used >= 0 && (size_t)used < size;
}

/* Opens the private state folder (made, with its missing parents, when make is
 * true): a folder, not a link, owned by this user, and 0700 (a looser mode is
 * tightened). Returns its descriptor, or -1 with one line in err. */
static int state_folder_open(bool make, char *folder, size_t size, char *err, size_t err_size)
{
	char quoted[1024];
	struct stat st;
	int fd;

	if (!state_folder_name(folder, size))
		return fail(err, err_size, "no private folder for a recovery copy (neither XDG_STATE_HOME "
			    "nor HOME names an absolute folder)");
	if (make) {
		/* Each missing level, in turn (mkdir -p), private from the start. */
		for (char *slash = strchr(folder + 1, '/');; slash = strchr(slash + 1, '/')) {
			if (slash != NULL)
				*slash = '\0';
			if (mkdir(folder, 0700) != 0 && errno != EEXIST) {
				int code = errno;

				if (slash != NULL)
					*slash = '/';
				return fail(err, err_size, "%s: cannot make the folder (%s)",
					    shown(quoted, sizeof quoted, folder), strerror(code));
			}
			if (slash == NULL)
				break;
			*slash = '/';
		}
	}
	fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int code = errno;

		return fail(err, err_size, "%s: %s", shown(quoted, sizeof quoted, folder),
			    code == ELOOP || code == ENOTDIR ? "not a folder (a link or a file)" : strerror(code));
	}
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
		close(fd);
		return fail(err, err_size, "%s: the folder belongs to another user",
			    shown(quoted, sizeof quoted, folder));
	}
	if ((st.st_mode & 077) != 0 && fchmod(fd, 0700) != 0) {
		int code = errno;

		close(fd);
		return fail(err, err_size, "%s: cannot make the folder private (%s)",
			    shown(quoted, sizeof quoted, folder), strerror(code));
	}
	return fd;
}

/* 64-bit FNV-1a of the bytes of s. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3u;
	}
	return h;
}

/* The start every copy of path has: "NAME-HASH-", or "untitled-" without a
 * file. NAME is path's last part, at most NAME_PART_MAX bytes, with control
 * characters as '_'. False when path's absolute form cannot be found. */
static bool copy_prefix(const char *path, char *out, size_t size)
{
	char *absolute, *real;
	const char *base;
	size_t length;
	int used;

	if (path == NULL)
		return snprintf(out, size, "untitled-") < (int)size;
	real = realpath(path, NULL);
	if (real != NULL) {
		absolute = real;
	} else if (path[0] == '/') {
		absolute = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);

		absolute = NULL;
		if (cwd != NULL && (absolute = malloc(strlen(cwd) + strlen(path) + 2)) != NULL)
			sprintf(absolute, "%s/%s", cwd, path);
		free(cwd);
	}
	if (absolute == NULL)
		return false;
	base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	if (base[0] == '\0')
		base = "untitled";
	length = strlen(base) > NAME_PART_MAX ? NAME_PART_MAX : strlen(base);
	used = snprintf(out, size, "%.*s-%016llx-", (int)length, base, (unsigned long long)fnv1a(absolute));
	free(absolute);
	if (used < 0 || (size_t)used >= size)
		return false;
	for (char *c = out; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '_';
	return true;
}

int recovery_write(const char *path, const struct qkv_problem *p, char *where, size_t where_size,
		   char *err, size_t err_size)
{
	char folder[PATH_MAX], prefix[NAME_PART_MAX + 32], stamp[32], temp[NAME_PART_MAX + 96];
	char name[NAME_PART_MAX + 96], quoted[1024];
	time_t now = time(NULL);
	struct tm tm;
	char *text;
	int dir, fd, code, result = -1;

	if (err_size > 0)
		err[0] = '\0';
	if (!copy_prefix(path, prefix, sizeof prefix))
		return fail(err, err_size, "%s: cannot find its absolute name for a recovery copy (%s)",
			    shown(quoted, sizeof quoted, path), strerror(errno));
	dir = state_folder_open(true, folder, sizeof folder, err, err_size);
	if (dir < 0)
		return -1;
	if (localtime_r(&now, &tm) == NULL || strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm) == 0)
		snprintf(stamp, sizeof stamp, "%lld", (long long)now);
	text = save_string_fast(p);
	if (text == NULL) {
		close(dir);
		return fail(err, err_size, "out of memory for the recovery copy");
	}
	snprintf(temp, sizeof temp, ".%s%s-%ld.part", prefix, stamp, (long)getpid());
	fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	code = fd < 0 ? errno : save_write_all(fd, text, strlen(text));
	if (code == 0 && fsync(fd) != 0)
		code = errno;
	if (fd >= 0 && close(fd) != 0 && code == 0)
		code = errno;
	/* The first free name: STAMP-PID, then STAMP-PID-2, -3, … (link never replaces). */
	for (int k = 1; code == 0 && k <= 1000; k++) {
		if (k == 1)
			snprintf(name, sizeof name, "%s%s-%ld%s", prefix, stamp, (long)getpid(), SUFFIX);
		else
			snprintf(name, sizeof name, "%s%s-%ld-%d%s", prefix, stamp, (long)getpid(), k, SUFFIX);
		if (linkat(dir, temp, dir, name, 0) == 0) {
			result = 0;
			break;
		}
		if (errno != EEXIST)
			code = errno;
	}
	if (code == 0 && result != 0)
		code = EEXIST;
	if (fd >= 0)
		unlinkat(dir, temp, 0);
	if (result == 0) {
		fsync(dir);
		if (snprintf(where, where_size, "%s/%s", folder, name) >= (int)where_size)
			result = fail(err, err_size, "the recovery copy's name is too long to say");
	} else {
		fail(err, err_size, "%s: cannot write a recovery copy there (%s)", shown(quoted, sizeof quoted, folder),
		     strerror(code));
	}
	free(text);
	close(dir);
	return result;
}

bool recovery_find(const char *path, char *where, size_t where_size)
{
	char folder[PATH_MAX], prefix[NAME_PART_MAX + 32], err[8], best[NAME_MAX + 1] = "";
	size_t prefix_length, suffix_length = strlen(SUFFIX);
	struct timespec newest = { 0, 0 };
	struct dirent *entry;
	DIR *list;
	int dir;

	if (path == NULL || !copy_prefix(path, prefix, sizeof prefix))
		return false;
	dir = state_folder_open(false, folder, sizeof folder, err, sizeof err);
	if (dir < 0)
		return false;
	list = fdopendir(dir);
	if (list == NULL) {
		close(dir);
		return false;
	}
	prefix_length = strlen(prefix);
	while ((entry = readdir(list)) != NULL) {
		size_t length = strlen(entry->d_name);
		struct stat st;
		bool newer;

		if (length <= prefix_length + suffix_length || strncmp(entry->d_name, prefix, prefix_length) != 0 ||
		    strcmp(entry->d_name + length - suffix_length, SUFFIX) != 0)
			continue;
		/* Only a regular file of this user's, never through a link. */
		if (fstatat(dir, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		newer = st.st_mtim.tv_sec > newest.tv_sec ||
			(st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec) ||
			(st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec == newest.tv_nsec &&
			 strcmp(entry->d_name, best) > 0);
		if (best[0] == '\0' || newer) {
			snprintf(best, sizeof best, "%s", entry->d_name);
			newest = st.st_mtim;
		}
	}
	closedir(list); /* closes dir too */
	if (best[0] == '\0')
		return false;
	return snprintf(where, where_size, "%s/%s", folder, best) < (int)where_size;
}
