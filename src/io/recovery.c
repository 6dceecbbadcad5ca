/* recovery.c — where the recovery copy of a file's unsaved changes goes: first
 * FILE.recovery beside the file, then $XDG_STATE_HOME/qkv/ (or ~/.local/state/qkv/)
 * under the file's absolute path with every '/' written as '%'. Both are written
 * with save_file, so a copy is whole or absent. */
#define _XOPEN_SOURCE 700 /* realpath() */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/recovery.h"
#include "io/save.h"

#define SUFFIX ".recovery"

/* The folder of the state copies, made when make is true; false when there is none. */
static bool state_folder(char *out, size_t size, bool make)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int used;

	if (state != NULL && state[0] == '/')
		used = snprintf(out, size, "%s/qkv", state);
	else if (home != NULL && home[0] == '/')
		used = snprintf(out, size, "%s/.local/state/qkv", home);
	else
		return false;
	if (used < 0 || (size_t)used >= size)
		return false;
	if (make) {
		/* Each missing level, in turn (mkdir -p). */
		for (char *slash = strchr(out + 1, '/');; slash = strchr(slash + 1, '/')) {
			if (slash != NULL)
				*slash = '\0';
			if (mkdir(out, 0700) != 0 && errno != EEXIST)
				return false;
			if (slash == NULL)
				break;
			*slash = '/';
		}
	}
	return true;
}

/* The name of the copy under the state folder: the absolute path, '/' as '%'. */
static bool state_name(const char *path, char *out, size_t size, bool make)
{
	char folder[PATH_MAX], absolute[PATH_MAX * 2];
	const char *name = "untitled";
	int used;

	if (!state_folder(folder, sizeof folder, make))
		return false;
	if (path != NULL) {
		char *real = realpath(path, NULL);

		if (real != NULL) {
			used = snprintf(absolute, sizeof absolute, "%s", real);
			free(real);
		} else if (path[0] == '/') {
			used = snprintf(absolute, sizeof absolute, "%s", path);
		} else {
			char cwd[PATH_MAX];

			if (getcwd(cwd, sizeof cwd) == NULL)
				return false;
			used = snprintf(absolute, sizeof absolute, "%s/%s", cwd, path);
		}
		if (used < 0 || (size_t)used >= sizeof absolute)
			return false;
		for (char *c = absolute; *c != '\0'; c++)
			if (*c == '/')
				*c = '%';
		name = absolute;
	}
	used = snprintf(out, size, "%s/%s%s", folder, name, SUFFIX);
	return used >= 0 && (size_t)used < size;
}

static bool beside_name(const char *path, char *out, size_t size)
{
	int used;

	if (path == NULL)
		return false;
	used = snprintf(out, size, "%s%s", path, SUFFIX);
	return used >= 0 && (size_t)used < size;
}

int recovery_write(const char *path, const struct qkv_problem *p, char *where, size_t where_size,
		   char *err, size_t err_size)
{
	char first_err[512] = "";

	if (beside_name(path, where, where_size) &&
	    save_file(where, p, first_err, sizeof first_err) == 0)
		return 0;
	if (state_name(path, where, where_size, true) && save_file(where, p, err, err_size) == 0)
		return 0;
	if (first_err[0] != '\0')
		snprintf(err, err_size, "%s", first_err);
	else if (err_size > 0 && err[0] == '\0')
		snprintf(err, err_size, "no folder to keep a recovery copy in (HOME is not set)");
	return -1;
}

static bool is_file(const char *name)
{
	struct stat st;

	return stat(name, &st) == 0 && S_ISREG(st.st_mode);
}

bool recovery_find(const char *path, char *where, size_t where_size)
{
	if (path == NULL)
		return false;
	if (beside_name(path, where, where_size) && is_file(where))
		return true;
	return state_name(path, where, where_size, false) && is_file(where);
}
