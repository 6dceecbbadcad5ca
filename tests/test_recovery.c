/* test_recovery.c — the recovery copy of unsaved changes: only in the private state
 * folder (0700, this user's), each copy a new 0600 file that reads back to the
 * same problem, never beside the file, never through a planted link, never over an
 * earlier copy; found again by the file's path, the newest first, and only among
 * regular files this user owns. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/problem/builtin.h"
#include "io/problem/load.h"
#include "io/problem/recovery.h"
#include "io/problem/save.h"

#include "tap_main.h"

#define NOBODY 65534

static char root[PATH_MAX];  /* this test's folder */
static char state[PATH_MAX + 8]; /* XDG_STATE_HOME inside it */
static char qkv_folder[PATH_MAX + 16];

/* Removes path and everything under it, never following links. */
static void remove_tree(const char *path)
{
	struct stat st;
	DIR *dir;
	struct dirent *entry;

	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode) && (dir = opendir(path)) != NULL) {
		while ((entry = readdir(dir)) != NULL) {
			char inner[PATH_MAX * 2];

			if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
				continue;
			snprintf(inner, sizeof inner, "%s/%s", path, entry->d_name);
			remove_tree(inner);
		}
		closedir(dir);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/qkv-test-recovery-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(state, sizeof state, "%s/state", root);
	snprintf(qkv_folder, sizeof qkv_folder, "%s/qkv", state);
	ck_assert_int_eq(setenv("XDG_STATE_HOME", state, 1), 0);
}

static void teardown(void)
{
	remove_tree(root);
}

/* The entries of folder other than . and .. */
static int entries(const char *folder)
{
	DIR *dir = opendir(folder);
	struct dirent *entry;
	int count = 0;

	if (dir == NULL)
		return -1;
	while ((entry = readdir(dir)) != NULL)
		if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
			count++;
	closedir(dir);
	return count;
}

/* The worked example with Q[t1,d1] set to value. */
static void example(struct qkv_problem *p, double value)
{
	qkv_problem_init(p);
	ck_assert_int_eq(builtin_worked_example(p), 0);
	qkv_matrix_set(&p->q, 0, 0, value);
}

/* Writes p as path's copy and returns its name (static). */
static const char *write_copy(const char *path, const struct qkv_problem *p)
{
	static char where[PATH_MAX * 2];
	char err[512];

	ck_assert_msg(recovery_write(path, p, where, sizeof where, err, sizeof err) == 0, "%s", err);
	return where;
}

/* True when the copy at where loads to a problem equal to p. */
static bool holds(const char *where, const struct qkv_problem *p)
{
	struct qkv_problem back;
	char err[512];
	bool same;

	qkv_problem_init(&back);
	ck_assert_msg(load_file(where, &back, err, sizeof err) == 0, "%s", err);
	same = qkv_problem_equal(p, &back);
	qkv_problem_fini(&back);
	return same;
}

START_TEST(copy_is_private_and_not_beside_the_file)
{
	char file[PATH_MAX + 16], planted[PATH_MAX + 32], target[PATH_MAX + 16], err[512];
	struct qkv_problem p;
	struct stat st;
	const char *where;
	mode_t mask;

	example(&p, 1.1);
	snprintf(file, sizeof file, "%s/three.json", root);
	ck_assert_int_eq(save_file(file, &p, err, sizeof err), 0);
	/* Another user's link where the copy used to go, naming a file to make. */
	snprintf(planted, sizeof planted, "%s.recovery", file);
	snprintf(target, sizeof target, "%s/victim", root);
	ck_assert_int_eq(symlink(target, planted), 0);
	mask = umask(0); /* the mode must not depend on the umask */
	where = write_copy(file, &p);
	umask(mask);
	ck_assert_int_ne(access(target, F_OK), 0);
	ck_assert_int_eq(strncmp(where, qkv_folder, strlen(qkv_folder)), 0);
	ck_assert_int_eq(strncmp(where + strlen(qkv_folder), "/three.json-", 12), 0);
	ck_assert_int_eq(lstat(where, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(lstat(qkv_folder, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert(holds(where, &p));
	/* Nothing else was left in the folder (no temporary file). */
	ck_assert_int_eq(entries(qkv_folder), 1);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(copies_never_overwrite_and_the_newest_is_found)
{
	char file[PATH_MAX + 16], first[PATH_MAX * 2], found[PATH_MAX * 2], err[512];
	struct qkv_problem a, b;
	struct timespec old[2];

	example(&a, 1.1);
	example(&b, 2.2);
	snprintf(file, sizeof file, "%s/three.json", root);
	ck_assert_int_eq(save_file(file, &a, err, sizeof err), 0);
	snprintf(first, sizeof first, "%s", write_copy(file, &a));
	/* The first copy is ten seconds older than the second. */
	ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &old[0]), 0);
	old[0].tv_sec -= 10;
	old[1] = old[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, first, old, AT_SYMLINK_NOFOLLOW), 0);
	const char *second = write_copy(file, &b);

	ck_assert_str_ne(first, second);
	ck_assert(holds(first, &a));
	ck_assert(holds(second, &b));
	ck_assert(recovery_find(file, found, sizeof found));
	ck_assert_str_eq(found, second);
	/* Found by another spelling of the same path too. */
	ck_assert_int_eq(chdir(root), 0);
	ck_assert(recovery_find("./three.json", found, sizeof found));
	ck_assert_str_eq(found, second);
	/* Once the newest is gone, the earlier one is offered. */
	ck_assert_int_eq(unlink(second), 0);
	ck_assert(recovery_find(file, found, sizeof found));
	ck_assert_str_eq(found, first);
	ck_assert_int_eq(chdir("/"), 0);
	qkv_problem_fini(&a);
	qkv_problem_fini(&b);
}
END_TEST

START_TEST(problems_without_a_file_get_their_own_copies)
{
	char first[PATH_MAX * 2], found[PATH_MAX * 2];
	struct qkv_problem p;
	const char *second;

	example(&p, 3.3);
	snprintf(first, sizeof first, "%s", write_copy(NULL, &p));
	second = write_copy(NULL, &p);
	ck_assert_str_ne(first, second);
	ck_assert_int_eq(strncmp(first + strlen(qkv_folder), "/untitled-", 10), 0);
	ck_assert(holds(first, &p));
	ck_assert(holds(second, &p));
	ck_assert(!recovery_find(NULL, found, sizeof found));
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(paths_that_differ_never_share_a_copy)
{
	char found[PATH_MAX * 2];
	struct qkv_problem p;
	const char *where;

	example(&p, 1.5);
	/* Once one path with '/' written as '%', the two named the same copy. */
	where = write_copy("/nowhere-qkv/a%b/c.json", &p);
	ck_assert(recovery_find("/nowhere-qkv/a%b/c.json", found, sizeof found));
	ck_assert_str_eq(found, where);
	ck_assert(!recovery_find("/nowhere-qkv/a/b/c.json", found, sizeof found));
	ck_assert(!recovery_find("/nowhere-qkv/a%b/d.json", found, sizeof found));
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(a_long_path_still_has_a_copy)
{
	char path[PATH_MAX], found[PATH_MAX * 2];
	struct qkv_problem p;
	const char *where, *base;
	int used;

	example(&p, 1.25);
	used = snprintf(path, sizeof path, "/nowhere-qkv/%0*d/%0*d.json", 200, 7, 250, 9);
	ck_assert_int_lt(used, (int)sizeof path);
	where = write_copy(path, &p);
	base = strrchr(where, '/') + 1;
	ck_assert_int_le(strlen(base), NAME_MAX);
	ck_assert(holds(where, &p));
	ck_assert(recovery_find(path, found, sizeof found));
	ck_assert_str_eq(found, where);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(planted_files_in_the_folder_are_not_offered)
{
	char file[PATH_MAX + 16], decoy[PATH_MAX + 16], name[PATH_MAX * 2], found[PATH_MAX * 2], err[512];
	struct qkv_problem p;

	example(&p, 1.1);
	snprintf(file, sizeof file, "%s/three.json", root);
	snprintf(decoy, sizeof decoy, "%s/decoy.json", root);
	ck_assert_int_eq(save_file(file, &p, err, sizeof err), 0);
	ck_assert_int_eq(save_file(decoy, &p, err, sizeof err), 0);
	/* A link under a copy's name is not a copy. */
	snprintf(name, sizeof name, "%s", write_copy(file, &p));
	ck_assert_int_eq(unlink(name), 0);
	ck_assert_int_eq(symlink(decoy, name), 0);
	ck_assert(!recovery_find(file, found, sizeof found));
	ck_assert_int_eq(unlink(name), 0);
	/* Nor is a file another user owns (only root can make one to test). */
	if (geteuid() == 0) {
		snprintf(name, sizeof name, "%s", write_copy(file, &p));
		ck_assert_int_eq(chown(name, NOBODY, NOBODY), 0);
		ck_assert(!recovery_find(file, found, sizeof found));
	}
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(a_folder_that_is_not_private_is_refused_or_tightened)
{
	char elsewhere[PATH_MAX + 16], where[PATH_MAX * 2], err[512];
	struct qkv_problem p;
	struct stat st;

	example(&p, 1.1);
	/* The state folder a link to another folder: refused, nothing written there. */
	snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", root);
	ck_assert_int_eq(mkdir(elsewhere, 0700), 0);
	ck_assert_int_eq(mkdir(state, 0700), 0);
	ck_assert_int_eq(symlink(elsewhere, qkv_folder), 0);
	ck_assert_int_eq(recovery_write(NULL, &p, where, sizeof where, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a folder"));
	ck_assert_int_eq(entries(elsewhere), 0);
	ck_assert_int_eq(unlink(qkv_folder), 0);
	/* A folder open to others is made private before a copy goes in. */
	ck_assert_int_eq(mkdir(qkv_folder, 0700), 0);
	ck_assert_int_eq(chmod(qkv_folder, 0777), 0);
	write_copy(NULL, &p);
	ck_assert_int_eq(stat(qkv_folder, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	/* Another user's folder: refused (only root can make one to test). */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(qkv_folder, NOBODY, NOBODY), 0);
		ck_assert_int_eq(recovery_write(NULL, &p, where, sizeof where, err, sizeof err), -1);
		ck_assert_ptr_nonnull(strstr(err, "belongs to another user"));
		ck_assert_int_eq(entries(qkv_folder), 1);
	}
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(no_state_folder_is_one_line)
{
	char where[PATH_MAX], err[512];
	struct qkv_problem p;
	char *home = getenv("HOME") != NULL ? strdup(getenv("HOME")) : NULL;

	example(&p, 1.1);
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	ck_assert_int_eq(recovery_write(NULL, &p, where, sizeof where, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "neither XDG_STATE_HOME nor HOME"));
	ck_assert_ptr_null(strchr(err, '\n'));
	if (home != NULL)
		setenv("HOME", home, 1);
	free(home);
	qkv_problem_fini(&p);
}
END_TEST

/* A state folder whose name holds an escape sequence: the refusal quotes it with
 * the control character escaped, never raw. */
START_TEST(a_folder_name_is_quoted_escaped)
{
	char odd[PATH_MAX + 16], file[PATH_MAX + 32], where[PATH_MAX * 2], err[1024];
	struct qkv_problem p;
	int fd;

	example(&p, 1.1);
	ck_assert_int_eq(mkdir(state, 0700), 0);
	snprintf(odd, sizeof odd, "%s/a\033[2Jb", state);
	ck_assert_int_eq(mkdir(odd, 0700), 0);
	/* A file where the folder qkv keeps its copies in should be. */
	snprintf(file, sizeof file, "%s/qkv", odd);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(setenv("XDG_STATE_HOME", odd, 1), 0);
	ck_assert_int_eq(recovery_write(NULL, &p, where, sizeof where, err, sizeof err), -1);
	ck_assert_ptr_null(strchr(err, '\033'));
	ck_assert_msg(strstr(err, "/a\\x1b[2Jb/qkv: not a folder") != NULL, "%s", err);
	qkv_problem_fini(&p);
}
END_TEST

static Suite *recovery_suite(void)
{
	Suite *s = suite_create("recovery");
	TCase *tc = tcase_create("copies");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, copy_is_private_and_not_beside_the_file);
	tcase_add_test(tc, copies_never_overwrite_and_the_newest_is_found);
	tcase_add_test(tc, problems_without_a_file_get_their_own_copies);
	tcase_add_test(tc, paths_that_differ_never_share_a_copy);
	tcase_add_test(tc, a_long_path_still_has_a_copy);
	tcase_add_test(tc, planted_files_in_the_folder_are_not_offered);
	tcase_add_test(tc, a_folder_that_is_not_private_is_refused_or_tightened);
	tcase_add_test(tc, no_state_folder_is_one_line);
	tcase_add_test(tc, a_folder_name_is_quoted_escaped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(recovery_suite());
}
