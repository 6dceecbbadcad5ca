/* test_save.c — saving problems: save then load gives back exactly the same problem
 * (bit-identical doubles, masks, padding, seeds, labels); the text is the format of
 * the samples; saving is atomic, keeps the file's mode, follows links (never
 * another user's in a sticky folder), writes pipes and devices straight, and a
 * failed save leaves the original untouched and no temporary file behind. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/problem/builtin.h"
#include "io/problem/load.h"
#include "io/problem/save.h"
#include "qkv/error.h"
#include "qkv/heads.h"
#include "oracle.h"
#include "slurp.h"
#include "tap_main.h"

/* A fresh temporary folder for one test; removed by remove_folder(). */
static void make_folder(char *folder, size_t size)
{
	snprintf(folder, size, "/tmp/qkv-test-save-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(folder));
}

/* Removes the folder and the files directly inside it. */
static void remove_folder(const char *folder)
{
	DIR *dir = opendir(folder);
	struct dirent *entry;
	char path[1024];

	ck_assert_ptr_nonnull(dir);
	while ((entry = readdir(dir)) != NULL) {
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
		if (rmdir(path) != 0)
			unlink(path);
	}
	closedir(dir);
	rmdir(folder);
}

/* Entries in a folder other than . and .. */
static int folder_entries(const char *folder)
{
	DIR *dir = opendir(folder);
	struct dirent *entry;
	int count = 0;

	ck_assert_ptr_nonnull(dir);
	while ((entry = readdir(dir)) != NULL)
		if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
			count++;
	closedir(dir);
	return count;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* Saves p into folder/name, loads it back and checks the two are equal. */
static void round_trip(const struct qkv_problem *p, const char *folder, const char *name)
{
	struct qkv_problem back;
	char path[1024], err[1024];

	snprintf(path, sizeof path, "%s/%s", folder, name);
	qkv_problem_init(&back);
	ck_assert_msg(save_file(path, p, err, sizeof err) == 0, "save: %s", err);
	ck_assert_msg(load_file(path, &back, err, sizeof err) == 0, "load: %s", err);
	ck_assert_msg(qkv_problem_equal(p, &back), "%s did not read back the same", name);
	qkv_problem_fini(&back);
}

/* Each case's temporary folder and problem: a checked fixture makes the folder and
 * empties the problem before the case, and frees the problem and removes the folder
 * (with the files directly inside it) after it. */
static char folder[64];
static struct qkv_problem p;

static void case_setup(void)
{
	make_folder(folder, sizeof folder);
	qkv_problem_init(&p);
}

static void case_teardown(void)
{
	qkv_problem_fini(&p);
	remove_folder(folder);
}

START_TEST(worked_example_round_trip_and_format)
{
	char path[1024];
	char *text, *sample;

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	round_trip(&p, folder, "worked.json");
	/* The sample was written by hand in the saved format: one matrix row per line. */
	text = save_string(&p);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "  \"Q\": [[1, 0],\n        [0, 1],\n        [1, 1]],\n"));
	snprintf(path, sizeof path, "%s/samples/worked-example.json", getenv("QKV_SOURCE_ROOT"));
	sample = slurp(path);
	ck_assert_ptr_nonnull(sample);
	ck_assert_str_eq(text, sample);
	snprintf(path, sizeof path, "%s/worked.json", folder);
	free(sample);
	sample = slurp(path);
	ck_assert_str_eq(text, sample);
	ck_assert_int_eq(folder_entries(folder), 1);
	free(sample);
	free(text);
}
END_TEST

/* The samples were written by hand in the saved layout, so saving one after loading
 * it gives back the same bytes: a teacher who saves an untouched sample sees no diff. */
START_TEST(samples_save_back_unchanged)
{
	char samples[1024], path[1200], err[512];
	const char *root = getenv("QKV_SOURCE_ROOT");
	struct dirent *entry;
	int count = 0;
	DIR *dir;

	snprintf(samples, sizeof samples, "%s/samples", root);
	dir = opendir(samples);
	ck_assert_ptr_nonnull(dir);
	while ((entry = readdir(dir)) != NULL) {
		size_t length = strlen(entry->d_name);
		char *original, *saved;

		if (length < 6 || strcmp(entry->d_name + length - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", samples, entry->d_name);
		ck_assert_msg(load_file(path, &p, err, sizeof err) == 0, "%s", err);
		original = slurp(path);
		saved = save_string(&p);
		ck_assert_msg(strcmp(original, saved) == 0, "%s changes when saved", entry->d_name);
		free(original);
		free(saved);
		count++;
	}
	closedir(dir);
	ck_assert_int_ge(count, 8);
}
END_TEST

/* Doubles whose shortest exact text needs care: 17 digits, subnormals, -0, the limit. */
START_TEST(awkward_doubles_round_trip)
{
	const double awkward[] = {
		0.1, 1.0 / 3, -2.0 / 3, 1e-300, -1e-300, 4.9406564584124654e-324, DBL_MIN,
		nextafter(DBL_MIN, 0), -0.0, 0.0, QKV_MAX_VALUE, -QKV_MAX_VALUE,
		nextafter(QKV_MAX_VALUE, 0), nextafter(0.1, 1), nextafter(1.0, 2),
		nextafter(1.0, 0), 123456789.12345679, -2.5e11, 0.30000000000000004, acos(-1.0),
	};
	size_t count = sizeof awkward / sizeof awkward[0];
	struct qkv_problem back;
	char *text;
	char err[512];

	qkv_problem_init(&back);
	ck_assert_int_eq(qkv_problem_random(&p, 5, 4, 4, 42), 0);
	for (size_t i = 0; i < count; i++) {
		qkv_matrix_set(&p.q, (int)(i / 4), (int)(i % 4), awkward[i]);
		qkv_matrix_set(&p.v, (int)(4 - i / 4), (int)(3 - i % 4), awkward[i]);
	}
	p.temperature = 1.0 / 3;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	round_trip(&p, folder, "awkward.json");
	/* -0 must keep its sign (bit-identical), not just compare equal. */
	text = save_string(&p);
	ck_assert_int_eq(load_string(text, strlen(text), "s", &back, err, sizeof err), 0);
	ck_assert(signbit(qkv_matrix_get(&back.q, 2, 0)));
	ck_assert(!signbit(qkv_matrix_get(&back.q, 2, 1)));
	ck_assert(back.seeded && back.seed == 42);
	free(text);
	/* The fast text of a recovery copy (%.17g) reads back bit for bit too. */
	text = save_string_fast(&p);
	ck_assert_int_eq(load_string(text, strlen(text), "s", &back, err, sizeof err), 0);
	ck_assert(qkv_problem_equal(&p, &back));
	ck_assert(signbit(qkv_matrix_get(&back.q, 2, 0)));
	free(text);
	qkv_problem_fini(&back);
}
END_TEST

/* A value beyond the loader's limit is written faithfully, and the loader then
 * refuses it with a clear line rather than reading something else. */
START_TEST(huge_value_saved_exactly_but_refused)
{
	struct qkv_problem back;
	char err[512];
	char *text, *at;

	qkv_problem_init(&back);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	qkv_matrix_set(&p.v, 1, 1, -2.5e300);
	text = save_string(&p);
	ck_assert_ptr_nonnull(text);
	at = strstr(text, "[0, -2.5e+300]");
	ck_assert_ptr_nonnull(at);
	ck_assert(strtod(at + 4, NULL) == -2.5e300);
	ck_assert_int_eq(load_string(text, strlen(text), "big.json", &back, err, sizeof err), -1);
	ck_assert_str_eq(err, "big.json:12:13: \"V\" row 2, column 2 is -2.5e+300, outside the "
			      "range ±1e12");
	free(text);
}
END_TEST

START_TEST(options_round_trip)
{
	size_t n;

	ck_assert_int_eq(qkv_problem_random(&p, 4, 3, 2, QKV_MAX_SEED), 0);
	n = (size_t)p.n;
	/* Custom mask with an irregular pattern, padding, custom scale, big seed. */
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	p.mask_bits[0 * n + 3] = 0;
	p.mask_bits[3 * n + 0] = 1;
	p.mask_bits[2 * n + 2] = 1;
	p.padding = calloc(n, 1);
	ck_assert_ptr_nonnull(p.padding);
	p.padding[1] = 1;
	p.padding[3] = 1;
	p.scale = QKV_SCALE_CUSTOM;
	p.scale_value = 0.7;
	p.temperature = QKV_MIN_TEMPERATURE;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	round_trip(&p, folder, "options.json");

	p.seed = (1ULL << 53) - 1; /* the largest a file holds, written out by hand */
	p.scale = QKV_SCALE_NONE;
	p.temperature = QKV_MAX_TEMPERATURE;
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	round_trip(&p, folder, "options.json");

	p.seeded = false;
	memset(p.padding, 0, n);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_NONE), 0);
	p.scale = QKV_SCALE_SQRT_DK;
	round_trip(&p, folder, "options.json");
	ck_assert_int_eq(folder_entries(folder), 1);
}
END_TEST

START_TEST(projected_form_round_trip)
{
	static const double x[] = { 1, 0.25, -3, 0.1, 2, 1e-7 };
	static const double w_q[] = { 1.0 / 7, 2, 0.5, -1, 3, 4 };
	static const double w_k[] = { 0, 1, 1, 0, 0.3, 0.3 };
	static const double w_v[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	char *text;

	ck_assert_int_eq(qkv_problem_random(&p, 2, 1, 1, 7), 0);
	p.seeded = false;
	qkv_matrix_fini(&p.q);
	qkv_matrix_fini(&p.k);
	qkv_matrix_fini(&p.v);
	p.form = QKV_FORM_PROJECTED;
	ck_assert_int_eq(qkv_matrix_set_all(&p.x, 2, 3, x), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p.w_q, 3, 2, w_q), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p.w_k, 3, 2, w_k), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p.w_v, 3, 3, w_v), 0);
	ck_assert_int_eq(qkv_problem_set_label(&p, 0, "say \"hi\""), 0);
	ck_assert_int_eq(qkv_problem_set_title(&p, "Projections \\ with \"quotes\"\xc2\xa0" "and a space"), 0);
	ck_assert_int_eq(qkv_problem_set_notes(&p, "Line one, line two \xe2\x9f\xa8q\xe2\x9f\xa9"), 0);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	round_trip(&p, folder, "projected.json");
	/* Control characters (which the loader refuses, so only the API can put them
	 * in) are still written escaped, never raw. */
	ck_assert_int_eq(qkv_problem_set_notes(&p, "Line one\nline two \x01"), 0);
	text = save_string(&p);
	ck_assert_ptr_null(strstr(text, "\"Q\""));
	ck_assert_ptr_nonnull(strstr(text, "\"W_V\": [[5, 6, 7],\n          [8, 9, 10],\n"));
	ck_assert_ptr_nonnull(strstr(text, "\\u0001"));
	free(text);
}
END_TEST

/* A multi-head problem saves X, "heads" (one head a block) and W_O, and reads back
 * the same, options included. */
START_TEST(heads_round_trip)
{
	char *text;

	ck_assert_int_eq(qkv_problem_random_heads(&p, 4, 3, 6, 11), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	p.temperature = 0.5;
	qkv_matrix_set(&p.w_o, 5, 5, 0.1);
	round_trip(&p, folder, "heads.json");
	text = save_string(&p);
	ck_assert_ptr_nonnull(strstr(text, "\n  \"heads\": [\n    {\"W_Q\": [["));
	ck_assert_ptr_nonnull(strstr(text, "]]},\n    {\"W_Q\": [["));
	ck_assert_ptr_nonnull(strstr(text, ",\n     \"W_K\": [["));
	ck_assert_ptr_nonnull(strstr(text, "\n  \"W_O\": [["));
	ck_assert_ptr_null(strstr(text, "\"Q\""));
	free(text);
}
END_TEST

/* Cross-attention reads back the same: m ≠ n, m = n (its query_tokens keep it
 * cross), a custom m × n mask and padding, the projected form's X_q, and heads. */
START_TEST(cross_round_trip)
{
	char dir[64];
	struct qkv_problem cp;
	char *text;

	make_folder(dir, sizeof dir);
	qkv_problem_init(&cp);
	ck_assert_int_eq(qkv_problem_random_cross(&cp, 2, 5, 3, 2, 4), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&cp, QKV_MASK_CUSTOM), 0);
	cp.mask_bits[1 * 5 + 4] = 1;
	cp.padding = calloc(5, 1);
	ck_assert_ptr_nonnull(cp.padding);
	cp.padding[3] = 1;
	round_trip(&cp, dir, "cross.json");
	text = save_string(&cp);
	ck_assert_ptr_nonnull(strstr(text, "\"query_tokens\": [\"q1\", \"q2\"]"));
	free(text);
	ck_assert_int_eq(qkv_problem_random_cross(&cp, 3, 3, 2, 2, 4), 0);
	round_trip(&cp, dir, "cross-square.json");
	ck_assert_int_eq(qkv_problem_random_heads(&cp, 4, 2, 4, 9), 0);
	ck_assert_int_eq(qkv_problem_cut_cross(&cp, 3, 2), 0);
	ck_assert_int_eq(cp.x_q.rows, 3);
	round_trip(&cp, dir, "cross-heads.json");
	text = save_string(&cp);
	ck_assert_ptr_nonnull(strstr(text, "\n  \"X_q\": [["));
	free(text);
	qkv_problem_fini(&cp);
	remove_folder(dir);
}
END_TEST

/* A label typed in a broken encoding is saved as U+FFFD, so the file still loads. */
START_TEST(invalid_utf8_label_still_loads)
{
	struct qkv_problem back;
	char err[512];
	char *text;

	qkv_problem_init(&back);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_int_eq(qkv_problem_set_label(&p, 1, "caf\xe9"), 0);
	text = save_string(&p);
	ck_assert_int_eq(load_string(text, strlen(text), "s", &back, err, sizeof err), 0);
	ck_assert_str_eq(back.tokens[1], "caf\xef\xbf\xbd");
	free(text);
	/* Control characters and DEL are escaped, as the printer's JSON escapes them. */
	ck_assert_int_eq(qkv_problem_set_title(&p, "a\x01" "b\x7f" "c\td\"e\\"), 0);
	text = save_string(&p);
	ck_assert_ptr_nonnull(strstr(text, "\"title\": \"a\\u0001b\\u007fc\\td\\\"e\\\\\""));
	free(text);
	qkv_problem_fini(&back);
}
END_TEST

START_TEST(keeps_mode_of_existing_file)
{
	static const mode_t modes[] = { 0600, 0640, 0664, 0444 };
	char path[1024], err[512];
	struct stat st;

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	snprintf(path, sizeof path, "%s/mode.json", folder);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		write_text(path, "old");
		ck_assert_int_eq(chmod(path, modes[i]), 0);
		ck_assert_msg(save_file(path, &p, err, sizeof err) == 0, "%s", err);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_mode & 07777, modes[i]);
		unlink(path);
	}
}
END_TEST

START_TEST(new_file_follows_umask)
{
	char path[1024], err[512];
	struct stat st;
	mode_t old = umask(077);

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	snprintf(path, sizeof path, "%s/private.json", folder);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	umask(022);
	snprintf(path, sizeof path, "%s/shared.json", folder);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	umask(old);
}
END_TEST

START_TEST(saving_through_a_link_keeps_the_link)
{
	char target[1024], link[1024], err[512];
	struct qkv_problem back;
	struct stat st;

	qkv_problem_init(&back);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	snprintf(target, sizeof target, "%s/real.json", folder);
	snprintf(link, sizeof link, "%s/link.json", folder);
	write_text(target, "old");
	ck_assert_int_eq(symlink("real.json", link), 0);
	ck_assert_int_eq(save_file(link, &p, err, sizeof err), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(load_file(target, &back, err, sizeof err), 0);
	ck_assert(qkv_problem_equal(&p, &back));
	ck_assert_int_eq(folder_entries(folder), 2);
	qkv_problem_fini(&back);
}
END_TEST

/* The saver stops where the loader would: a 1024 × 4096 problem of random values
 * (about 250 MiB of text) is refused with a sentence, and the file already there
 * and the folder are as before. */
START_TEST(too_big_to_read_back_is_refused)
{
	char path[1024], expected[1200], err[1200];
	char *before;
	int mib;

	snprintf(path, sizeof path, "%s/big.json", folder);
	write_text(path, "the file that was there\n");
	ck_assert_int_eq(qkv_problem_random(&p, QKV_MAX_TOKENS, QKV_MAX_DIM, QKV_MAX_DIM, 7), 0);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	/* 3 × 2^22 numbers of about 19 characters and ", ": some 250 MiB. */
	snprintf(expected, sizeof expected, "%s: cannot save: the file would be about ", path);
	ck_assert_msg(strncmp(err, expected, strlen(expected)) == 0, "%s", err);
	mib = atoi(err + strlen(expected));
	ck_assert_msg(mib >= 200 && mib <= 300, "%d MiB", mib);
	ck_assert_ptr_nonnull(strstr(err, " MiB, more than the 64 MiB qkv reads back; make the problem "
				 "smaller (fewer tokens, smaller d_k or d_v)"));
	before = slurp(path);
	ck_assert_str_eq(before, "the file that was there\n");
	free(before);
	ck_assert_int_eq(folder_entries(folder), 1);
	qkv_problem_fini(&p);

	/* Projected with two 4096 × 4096 W's of zeros: "0, " is 3 bytes, 2 × 2^24 of them 96 MiB. */
	qkv_problem_init(&p);
	p.form = QKV_FORM_PROJECTED;
	ck_assert_int_eq(qkv_matrix_zero(&p.x, 4, QKV_MAX_DIM), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p.w_q, QKV_MAX_DIM, QKV_MAX_DIM), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p.w_k, QKV_MAX_DIM, QKV_MAX_DIM), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p.w_v, QKV_MAX_DIM, 2), 0);
	p.n = 4;
	p.m = 4;
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	ck_assert_msg(strncmp(err, expected, strlen(expected)) == 0, "%s", err);
	ck_assert_int_eq(folder_entries(folder), 1);
}
END_TEST

/* A file name of 255 bytes (the most a folder entry holds) saves: the temporary
 * file's name is cut to fit, and none is left behind. */
START_TEST(longest_file_name_saves)
{
	char name[256], path[1024], err[1024];
	struct qkv_problem back;

	for (int length = 249; length <= 255; length++) {
		memset(name, 'a', (size_t)length - 5);
		memcpy(name + length - 5, ".json", 6);
		snprintf(path, sizeof path, "%s/%s", folder, name);
		qkv_problem_init(&p);
		qkv_problem_init(&back);
		ck_assert_int_eq(builtin_worked_example(&p), 0);
		ck_assert_msg(save_file(path, &p, err, sizeof err) == 0, "%d bytes: %s", length, err);
		ck_assert_msg(load_file(path, &back, err, sizeof err) == 0, "%s", err);
		ck_assert(qkv_problem_equal(&p, &back));
		ck_assert_int_eq(folder_entries(folder), 1);
		ck_assert_int_eq(unlink(path), 0);
		qkv_problem_fini(&p);
		qkv_problem_fini(&back);
	}
}
END_TEST

/* A link to a file that does not exist yet: the save makes that file, and the link
 * stays a link. */
START_TEST(dangling_link_makes_its_file)
{
	char link[1024], made[1024], err[1024];
	struct qkv_problem back;
	struct stat st;

	snprintf(link, sizeof link, "%s/link.json", folder);
	snprintf(made, sizeof made, "%s/made.json", folder);
	ck_assert_int_eq(symlink("made.json", link), 0);
	qkv_problem_init(&back);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_msg(save_file(link, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(made, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_msg(load_file(link, &back, err, sizeof err) == 0, "%s", err);
	ck_assert(qkv_problem_equal(&p, &back));
	ck_assert_int_eq(folder_entries(folder), 2);
	qkv_problem_fini(&back);
}
END_TEST

/* Two links in a row: the kernel follows both, so the file at the end is replaced
 * when it exists and made when it does not; the links stay links. */
START_TEST(chain_of_links_reaches_its_file)
{
	char first[1024], second[1024], end[1024], err[1024];
	struct qkv_problem back;
	struct stat st;

	snprintf(first, sizeof first, "%s/first.json", folder);
	snprintf(second, sizeof second, "%s/second.json", folder);
	snprintf(end, sizeof end, "%s/end.json", folder);
	ck_assert_int_eq(symlink("second.json", first), 0);
	ck_assert_int_eq(symlink("end.json", second), 0);
	qkv_problem_init(&back);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	for (int round = 0; round < 2; round++) { /* end.json missing, then there */
		ck_assert_msg(save_file(first, &p, err, sizeof err) == 0, "round %d: %s", round, err);
		ck_assert_int_eq(lstat(first, &st), 0);
		ck_assert(S_ISLNK(st.st_mode));
		ck_assert_int_eq(lstat(second, &st), 0);
		ck_assert(S_ISLNK(st.st_mode));
		ck_assert_int_eq(lstat(end, &st), 0);
		ck_assert(S_ISREG(st.st_mode));
		ck_assert_msg(load_file(end, &back, err, sizeof err) == 0, "%s", err);
		ck_assert(qkv_problem_equal(&p, &back));
		ck_assert_int_eq(folder_entries(folder), 3);
		p.temperature = 2;
	}
	qkv_problem_fini(&back);
}
END_TEST

/* A sticky folder anyone may write to, as /tmp is, holding a link to a victim file:
 * the link made by another user (uid 4242) is not followed, and nothing is
 * written; one made by the folder's owner or by this user is. The kernel's rule
 * (fs.protected_symlinks), applied whatever the system's setting. Making files of
 * another user needs root: skipped (passes) otherwise. */
START_TEST(other_users_link_in_sticky_folder_refused)
{
	char sticky[128], victim[1024], link[1024], expected[1400], err[1400];
	struct stat st;
	char *text;

	if (geteuid() != 0)
		return;
	snprintf(sticky, sizeof sticky, "%s/tmp", folder);
	ck_assert_int_eq(mkdir(sticky, 0700), 0);
	ck_assert_int_eq(chmod(sticky, 01777), 0);
	snprintf(victim, sizeof victim, "%s/victim.rc", folder);
	snprintf(link, sizeof link, "%s/out.json", sticky);
	write_text(victim, "the victim's file\n");
	ck_assert_int_eq(symlink(victim, link), 0);
	ck_assert_int_eq(lchown(link, 4242, 4242), 0);
	ck_assert_int_eq(builtin_worked_example(&p), 0);

	ck_assert_int_eq(save_file(link, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: cannot save: it is a link that another user made in %s, a "
		 "folder where anyone may make files; qkv does not follow it (nor does a shell's > where "
		 "fs.protected_symlinks is on)", link, sticky);
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(save_bytes(link, "x", 1, err, sizeof err), -1);
	ck_assert_str_eq(err, expected);
	text = slurp(victim);
	ck_assert_str_eq(text, "the victim's file\n");
	free(text);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(folder_entries(sticky), 1);

	/* Not sticky: the rule does not apply, as the kernel's does not. */
	ck_assert_int_eq(chmod(sticky, 0777), 0);
	ck_assert_msg(save_bytes(link, "one\n", 4, err, sizeof err) == 0, "%s", err);
	text = slurp(victim);
	ck_assert_str_eq(text, "one\n");
	free(text);

	/* Sticky again, the folder now the link owner's: followed. */
	ck_assert_int_eq(chmod(sticky, 01777), 0);
	ck_assert_int_eq(chown(sticky, 4242, 4242), 0);
	ck_assert_int_eq(chmod(sticky, 01777), 0);
	ck_assert_msg(save_bytes(link, "two\n", 4, err, sizeof err) == 0, "%s", err);
	text = slurp(victim);
	ck_assert_str_eq(text, "two\n");
	free(text);

	/* This user's own link in a stranger's sticky folder: followed. */
	ck_assert_int_eq(lchown(link, 0, 0), 0);
	ck_assert_int_eq(chown(sticky, 4242, 4242), 0);
	ck_assert_int_eq(chmod(sticky, 01777), 0);
	ck_assert_msg(save_bytes(link, "three\n", 6, err, sizeof err) == 0, "%s", err);
	text = slurp(victim);
	ck_assert_str_eq(text, "three\n");
	free(text);

	unlink(link);
	rmdir(sticky);
}
END_TEST

/* What is not a regular file is written straight, as a shell's > writes it: a
 * pipe with a reader gets the bytes, /dev/null stays /dev/null, and a pipe that
 * nobody reads is said to be so, at once. */
START_TEST(pipes_and_devices_written_straight)
{
	char fifo[1024], err[1024], got[16] = "";
	struct stat st;
	int reader;

	snprintf(fifo, sizeof fifo, "%s/pipe", folder);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(save_bytes(fifo, "abc", 3, err, sizeof err), -1);
	{
		char expected[1200];

		snprintf(expected, sizeof expected, "%s: cannot save: it is a pipe that no program is reading", fifo);
		ck_assert_str_eq(err, expected);
	}
	reader = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(reader, 0);
	ck_assert_msg(save_bytes(fifo, "abc", 3, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(read(reader, got, sizeof got - 1), 3);
	ck_assert_str_eq(got, "abc");
	close(reader);
	ck_assert_int_eq(folder_entries(folder), 1); /* no temporary file beside it */
	ck_assert_msg(save_bytes("/dev/null", "abc", 3, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

/* A save killed mid-write leaves .NAME.qkv-XXXXXX behind; the next save of NAME
 * removes such files once they are a minute old, and nothing else. */
START_TEST(stale_temporary_files_are_removed)
{
	char path[1024], old_temp[1024], new_temp[1024], other[1024], err[1024];
	struct timespec times[2] = { { 0, 0 }, { 0, 0 } };
	struct stat st;

	snprintf(path, sizeof path, "%s/three.json", folder);
	snprintf(old_temp, sizeof old_temp, "%s/.three.json.qkv-Ab12Cd", folder);
	snprintf(new_temp, sizeof new_temp, "%s/.three.json.qkv-Ef34Gh", folder);
	snprintf(other, sizeof other, "%s/three.json.backup", folder);
	write_text(old_temp, "{\n  \"title\": ");
	write_text(new_temp, "{\n  \"title\": ");
	write_text(other, "kept\n");
	times[0].tv_sec = times[1].tv_sec = time(NULL) - 120;
	ck_assert_int_eq(utimensat(AT_FDCWD, old_temp, times, 0), 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, other, times, 0), 0);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_msg(save_file(path, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_ne(stat(old_temp, &st), 0);
	ck_assert_int_eq(stat(new_temp, &st), 0);
	ck_assert_int_eq(stat(other, &st), 0);
	ck_assert_int_eq(folder_entries(folder), 3);
}
END_TEST

START_TEST(directory_path_fails_cleanly)
{
	char expected[1024], err[512];
	struct stat st;

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_int_eq(save_file(folder, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: cannot save: it is a folder, not a file", folder);
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(stat(folder, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(folder_entries(folder), 0);
}
END_TEST

/* A seed above 2^53 − 1 is refused, as the loader and --seed refuse it: nothing is
 * written; 2^53 − 1 itself saves as a plain JSON integer and reads back. */
START_TEST(seed_above_the_limit_is_refused)
{
	char path[1024], expected[1200], err[1200];
	struct qkv_problem back;
	char *text;

	qkv_problem_init(&back);
	ck_assert_int_eq(qkv_problem_random(&p, 2, 2, 2, 1), 0);
	p.seed = 9007199254740992ULL; /* 2^53 */
	snprintf(path, sizeof path, "%s/p.json", folder);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: cannot save: the seed 9007199254740992 is above "
		 "9007199254740991 (2^53 - 1), the largest a file holds", path);
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(folder_entries(folder), 0);
	p.seed = 9007199254740991ULL;
	text = save_string(&p);
	ck_assert_ptr_nonnull(strstr(text, "\"seed\": 9007199254740991\n"));
	ck_assert_int_eq(load_string(text, strlen(text), "s", &back, err, sizeof err), 0);
	ck_assert(back.seeded && back.seed == 9007199254740991ULL);
	free(text);
	qkv_problem_fini(&back);
}
END_TEST

START_TEST(missing_folder_fails_cleanly)
{
	char path[1024], expected[1200], err[1200];

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	snprintf(path, sizeof path, "%s/no-such-folder/p.json", folder);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: cannot save: cannot create a file in its folder "
		 "(%s)", path, strerror(ENOENT));
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(folder_entries(folder), 0);
}
END_TEST

/* A name with control characters and a stray byte (ESC, a lone 0x9b, the bidi
 * override U+202E) is quoted escaped, one way (\xHH, \uXXXX), in the message. */
START_TEST(message_escapes_the_name)
{
	char path[1024], expected[1400], err[1400];

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	snprintf(path, sizeof path, "%s/gone\x1b[2J/p\x9b\xe2\x80\xae.json", folder);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s/gone\\x1b[2J/p\\x9b\\u202E.json: cannot save: cannot create a "
		 "file in its folder (%s)", folder, strerror(ENOENT));
	ck_assert_str_eq(err, expected);
}
END_TEST

/* /proc refuses new files even to root: the save fails and the file it would have
 * replaced reads exactly as before. */
START_TEST(refused_folder_leaves_original)
{
	const char *path = "/proc/self/comm";
	char err[512];
	char *before, *after;

	ck_assert_int_eq(builtin_worked_example(&p), 0);
	before = slurp(path);
	ck_assert_ptr_nonnull(before);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	ck_assert(strncmp(err, "/proc/self/comm: cannot save: ", 30) == 0);
	ck_assert_ptr_null(strchr(err, '\n'));
	after = slurp(path);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}
END_TEST

/* A read-only folder: root ignores the permission bits, so as root this case
 * cannot fail and is skipped (refused_folder_leaves_original covers it there). */
START_TEST(read_only_folder_leaves_original)
{
	char path[1024], expected[1200], err[1200];
	char *after;

	if (geteuid() == 0)
		return;
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	snprintf(path, sizeof path, "%s/kept.json", folder);
	write_text(path, "the original");
	ck_assert_int_eq(chmod(folder, 0555), 0);
	ck_assert_int_eq(save_file(path, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: cannot save: cannot create a file in its folder "
		 "(%s)", path, strerror(EACCES));
	ck_assert_str_eq(err, expected);
	after = slurp(path);
	ck_assert_str_eq(after, "the original");
	ck_assert_int_eq(folder_entries(folder), 1);
	ck_assert_int_eq(chmod(folder, 0755), 0);
	free(after);
}
END_TEST

static Suite *save_suite(void)
{
	Suite *s = suite_create("save");
	TCase *trip = tcase_create("round-trip");
	TCase *files = tcase_create("files");

	tcase_add_checked_fixture(trip, case_setup, case_teardown);
	tcase_add_checked_fixture(files, case_setup, case_teardown);
	tcase_add_test(trip, worked_example_round_trip_and_format);
	tcase_add_test(trip, samples_save_back_unchanged);
	tcase_add_test(trip, awkward_doubles_round_trip);
	tcase_add_test(trip, huge_value_saved_exactly_but_refused);
	tcase_add_test(trip, options_round_trip);
	tcase_add_test(trip, projected_form_round_trip);
	tcase_add_test(trip, heads_round_trip);
	tcase_add_test(trip, cross_round_trip);
	tcase_add_test(trip, invalid_utf8_label_still_loads);
	suite_add_tcase(s, trip);

	tcase_add_test(files, keeps_mode_of_existing_file);
	tcase_add_test(files, new_file_follows_umask);
	tcase_add_test(files, saving_through_a_link_keeps_the_link);
	tcase_add_test(files, directory_path_fails_cleanly);
	tcase_add_test(files, longest_file_name_saves);
	tcase_add_test(files, dangling_link_makes_its_file);
	tcase_add_test(files, chain_of_links_reaches_its_file);
	tcase_add_test(files, other_users_link_in_sticky_folder_refused);
	tcase_add_test(files, pipes_and_devices_written_straight);
	tcase_add_test(files, stale_temporary_files_are_removed);
	tcase_add_test(files, too_big_to_read_back_is_refused);
	tcase_add_test(files, missing_folder_fails_cleanly);
	tcase_add_test(files, message_escapes_the_name);
	tcase_add_test(files, seed_above_the_limit_is_refused);
	tcase_add_test(files, refused_folder_leaves_original);
	tcase_add_test(files, read_only_folder_leaves_original);
	suite_add_tcase(s, files);
	return s;
}

int main(void)
{
	if (getenv("QKV_SOURCE_ROOT") == NULL) {
		fprintf(stderr, "test_save: set QKV_SOURCE_ROOT to the source tree\n");
		return 1;
	}
	return run_tap(save_suite());
}
