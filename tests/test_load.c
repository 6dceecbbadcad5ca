/* test_load.c — the JSON loader: every sample loads with the shapes and values
 * written in it and teaches what its note says; every file in tests/data/bad is
 * refused with exactly the line in its .expected file; generated files probe the
 * limits, deep nesting and very large files. Runs from QKV_SOURCE_ROOT. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/problem/builtin.h"
#include "io/problem/load.h"
#include "qkv/attention.h"
#include "qkv/error.h"
#include "oracle.h"
#include "slurp.h"
#include "tap_main.h"

#define BAD_DIR "tests/data/bad"
#define MAX_BAD 512

/* The bad corpus, listed once before the suite runs (a loop test per file). */
static char *bad_names[MAX_BAD];
static int bad_count;

/* Loads path, failing the test with the loader's message if it is refused. */
static void must_load(const char *path, struct qkv_problem *p)
{
	char err[1024];

	qkv_problem_init(p);
	ck_assert_msg(load_file(path, p, err, sizeof err) == 0, "%s refused: %s", path, err);
	ck_assert_int_eq(qkv_problem_check(p), 0);
}

/* The weights of p, computed by the core. */
static void weights_of(const struct qkv_problem *p, struct qkv_trace *t)
{
	qkv_trace_init(t);
	ck_assert_int_eq(qkv_attention(p, t), 0);
}

START_TEST(worked_example_file_matches_course)
{
	struct qkv_problem p, builtin;

	must_load("samples/worked-example.json", &p);
	qkv_problem_init(&builtin);
	ck_assert_int_eq(p.n, 3);
	ck_assert_int_eq(p.form, QKV_FORM_DIRECT);
	ck_assert_int_eq(qkv_problem_d_k(&p), 2);
	ck_assert_int_eq(qkv_problem_d_v(&p), 2);
	/* The course text: Q = K = [[1,0],[0,1],[1,1]], V = [[10,0],[0,10],[5,5]]. */
	ck_assert_double_eq(qkv_matrix_get(&p.q, 2, 1), 1);
	ck_assert_double_eq(qkv_matrix_get(&p.k, 1, 0), 0);
	ck_assert_double_eq(qkv_matrix_get(&p.v, 0, 0), 10);
	ck_assert_double_eq(qkv_matrix_get(&p.v, 2, 1), 5);
	ck_assert_str_eq(p.tokens[2], "t3");
	ck_assert_int_eq(p.scale, QKV_SCALE_SQRT_DK);
	ck_assert_double_eq(p.temperature, 1);
	ck_assert_int_eq(p.mask, QKV_MASK_NONE);
	ck_assert(!p.seeded);
	ck_assert_int_eq(builtin_worked_example(&builtin), 0);
	ck_assert_msg(qkv_problem_equal(&p, &builtin),
		      "samples/worked-example.json differs from the built-in example");
	qkv_problem_fini(&p);
	qkv_problem_fini(&builtin);
}
END_TEST

START_TEST(builtin_has_words)
{
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_str_eq(p.title, "Three tokens, by hand (module 2)");
	ck_assert_ptr_nonnull(p.notes);
	ck_assert_ptr_null(strchr(p.notes, '\n'));
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
}
END_TEST

/* Every sample: loads, has a title and a one-line note, and fits 80×24 (n ≤ 6, d ≤ 4). */
START_TEST(every_sample_loads_small_and_annotated)
{
	DIR *dir = opendir("samples");
	struct dirent *entry;
	int count = 0;

	ck_assert_ptr_nonnull(dir);
	while ((entry = readdir(dir)) != NULL) {
		size_t length = strlen(entry->d_name);
		char path[512];
		struct qkv_problem p;

		if (length < 6 || strcmp(entry->d_name + length - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof path, "samples/%s", entry->d_name);
		must_load(path, &p);
		ck_assert_msg(p.title != NULL && p.title[0] != '\0', "%s has no title", path);
		ck_assert_msg(p.notes != NULL && strlen(p.notes) > 20, "%s has no notes", path);
		ck_assert_msg(strchr(p.notes, '\n') == NULL, "%s: notes span lines", path);
		ck_assert_msg(p.n <= 6 && qkv_problem_d_k(&p) <= 4 && qkv_problem_d_v(&p) <= 4 &&
			      qkv_problem_d_model(&p) <= 4, "%s is too big for 80×24", path);
		qkv_problem_fini(&p);
		count++;
	}
	closedir(dir);
	ck_assert_int_ge(count, 8);
}
END_TEST

/* exact-match.json: each query is 4·e_j for one key 4·e_j, so its scaled scores are
 * 16/2 = 8 there and 0 elsewhere: weight e^8 / (e^8 + 3), and output = that V row. */
START_TEST(exact_match_sample_picks_one_key)
{
	static const int match[4] = { 2, 0, 3, 1 };
	double expected = exp(8) / (exp(8) + 3);
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/exact-match.json", &p);
	ck_assert_int_eq(p.n, 4);
	ck_assert_str_eq(p.tokens[2], "cheese");
	weights_of(&p, &t);
	for (int i = 0; i < 4; i++) {
		ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, i, match[i]), expected, 1e-12);
		ck_assert(expected > 0.99);
		for (int c = 0; c < 2; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, i, c),
						qkv_matrix_get(&p.v, match[i], c), 0.01);
	}
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* uniform.json: equal keys give equal scores, so every weight is 1/4 and every
 * output row is the column mean of V. */
START_TEST(uniform_sample_averages)
{
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/uniform.json", &p);
	weights_of(&p, &t);
	for (int i = 0; i < p.n; i++) {
		for (int j = 0; j < p.n; j++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, i, j), 0.25, 1e-15);
		for (int c = 0; c < 2; c++) {
			double mean = 0;

			for (int j = 0; j < p.n; j++)
				mean += qkv_matrix_get(&p.v, j, c) / 4;
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, i, c), mean, 1e-12);
		}
	}
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* copy.json: Q = K = 3·I (d_k 3): self score 9/√3, others 0. */
START_TEST(copy_sample_is_nearly_identity)
{
	double self = exp(9 / sqrt(3)) / (exp(9 / sqrt(3)) + 2);
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/copy.json", &p);
	weights_of(&p, &t);
	for (int i = 0; i < p.n; i++)
		ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, i, i), self, 1e-12);
	ck_assert(self > 0.98);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* sentence.json: "sat" (query 6·noun) scores cat 6/2 = 3, mat 1.5, the others 0;
 * "on" (query 6·place) scores mat 3 and the others 0. */
START_TEST(sentence_sample_links_words)
{
	double sat_cat = exp(3) / (exp(3) + exp(1.5) + 4);
	double on_mat = exp(3) / (exp(3) + 5);
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/sentence.json", &p);
	ck_assert_int_eq(p.n, 6);
	ck_assert_int_eq(qkv_problem_d_k(&p), 4);
	ck_assert_str_eq(p.tokens[0], "the");
	ck_assert_str_eq(p.tokens[5], "mat");
	weights_of(&p, &t);
	ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, 2, 1), sat_cat, 1e-12);
	ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, 3, 5), on_mat, 1e-12);
	ck_assert_int_eq(t.rows[2].argmax, 1);
	ck_assert_int_eq(t.rows[3].argmax, 5);
	ck_assert_int_eq(t.rows[1].argmax, 2);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* previous-token.json: positions sit on a circle, W_Q turns them back a quarter
 * turn, so q_i · k_(i-1) = 4 and the scaled score is 4/√2; under the causal mask
 * every token after the first puts most of its weight on the one before. */
START_TEST(projection_sample_attends_to_previous)
{
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/previous-token.json", &p);
	ck_assert_int_eq(p.form, QKV_FORM_PROJECTED);
	ck_assert_int_eq(p.n, 4);
	ck_assert_int_eq(qkv_problem_d_model(&p), 4);
	ck_assert_int_eq(qkv_problem_d_k(&p), 2);
	ck_assert_int_eq(p.mask, QKV_MASK_CAUSAL);
	weights_of(&p, &t);
	for (int i = 1; i < 4; i++) {
		double score = qkv_matrix_get(&t.scaled, i, i - 1);

		ck_assert_double_eq_tol(score, 4 / sqrt(2), 1e-12);
		ck_assert_int_eq(t.rows[i].argmax, i - 1);
		ck_assert_msg(qkv_matrix_get(&t.weights, i, i - 1) > 0.85,
			      "token %d looks at the previous one with %g", i,
			      qkv_matrix_get(&t.weights, i, i - 1));
	}
	/* Token 2 ("cat") then sees mostly "black"'s features: W_V reads columns 3-4 of X. */
	ck_assert(qkv_matrix_get(&t.output, 2, 0) > 0.85);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(causal_sample_hides_the_future)
{
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/causal.json", &p);
	ck_assert_int_eq(p.mask, QKV_MASK_CAUSAL);
	weights_of(&p, &t);
	ck_assert_double_eq(qkv_matrix_get(&t.weights, 0, 0), 1);
	for (int i = 0; i < p.n; i++)
		for (int j = i + 1; j < p.n; j++)
			ck_assert(qkv_matrix_get(&t.weights, i, j) == 0);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(padding_sample_hides_pad_columns)
{
	struct qkv_problem p;
	struct qkv_trace t;

	must_load("samples/padding.json", &p);
	ck_assert_int_eq(p.n, 5);
	ck_assert_ptr_nonnull(p.padding);
	ck_assert_int_eq(p.padding[0] + p.padding[1] + p.padding[2], 0);
	ck_assert_int_eq(p.padding[3], 1);
	ck_assert_int_eq(p.padding[4], 1);
	ck_assert_str_eq(p.tokens[3], "<pad>");
	weights_of(&p, &t);
	for (int i = 0; i < p.n; i++) {
		ck_assert(qkv_matrix_get(&t.weights, i, 3) == 0);
		ck_assert(qkv_matrix_get(&t.weights, i, 4) == 0);
	}
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(local_window_sample_custom_mask)
{
	struct qkv_problem p;

	must_load("samples/local-window.json", &p);
	ck_assert_int_eq(p.mask, QKV_MASK_CUSTOM);
	ck_assert_ptr_nonnull(p.mask_bits);
	for (int i = 0; i < p.n; i++)
		for (int j = 0; j < p.n; j++)
			ck_assert_int_eq(p.mask_bits[i * p.n + j], abs(i - j) > 1);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(good_files_options)
{
	struct qkv_problem p;

	must_load("tests/data/good/all-options.json", &p);
	ck_assert_str_eq(p.title, "Every option at once");
	ck_assert_int_eq(p.scale, QKV_SCALE_CUSTOM);
	ck_assert_double_eq(p.scale_value, 0.75);
	ck_assert_double_eq(p.temperature, 2.5);
	ck_assert_int_eq(p.mask, QKV_MASK_CUSTOM);
	ck_assert_int_eq(p.mask_bits[1], 1);
	ck_assert_int_eq(p.mask_bits[3], 0);
	ck_assert_int_eq(p.mask_bits[7], 1);
	ck_assert_int_eq(p.padding[1], 1);
	ck_assert_int_eq(p.padding[0], 0);
	ck_assert(p.seeded);
	ck_assert(p.seed == 9007199254740991ULL); /* 2^53 − 1, the largest */
	ck_assert(qkv_matrix_get(&p.v, 0, 0) == 1e12);
	ck_assert(qkv_matrix_get(&p.v, 1, 0) == 0.1);
	ck_assert(qkv_matrix_get(&p.q, 2, 1) == 1e-3);
	qkv_problem_fini(&p);

	must_load("tests/data/good/seed-max.json", &p);
	ck_assert(p.seed == QKV_MAX_SEED);
	ck_assert(QKV_MAX_SEED == (1ULL << 53) - 1);
	ck_assert_int_eq(p.scale, QKV_SCALE_NONE);
	ck_assert_int_eq(p.mask, QKV_MASK_CAUSAL);
	qkv_problem_fini(&p);

	must_load("tests/data/good/minimal.json", &p);
	ck_assert_int_eq(p.n, 1);
	ck_assert_str_eq(p.tokens[0], "t1");
	ck_assert_ptr_null(p.title);
	ck_assert_ptr_null(p.notes);
	ck_assert(!p.seeded);
	ck_assert(qkv_matrix_get(&p.v, 0, 0) == -4.5);
	qkv_problem_fini(&p);

	must_load("tests/data/good/bom.json", &p);
	ck_assert_int_eq(qkv_problem_d_k(&p), 2);
	qkv_problem_fini(&p);

	must_load("tests/data/good/escaped.json", &p);
	ck_assert_str_eq(p.title, "Caf\xc3\xa9 \"quoted\" \\ tab\xc2\xa0here");
	ck_assert_str_eq(p.tokens[0], "\xc3\xa9t\xc3\xa9");
	ck_assert_str_eq(p.tokens[1], "\xe2\x9f\xa8q\xe2\x9f\xa9");
	ck_assert_int_eq(p.form, QKV_FORM_PROJECTED);
	ck_assert_int_eq(qkv_problem_d_v(&p), 3);
	ck_assert(qkv_matrix_get(&p.x, 2, 1) == 6);
	qkv_problem_fini(&p);
}
END_TEST

/* One bad file: refused with exactly its .expected line, and p left empty. */
START_TEST(bad_file_gives_expected_line)
{
	const char *name = bad_names[_i];
	char path[512], expected_path[512], err[2048];
	char *expected;
	struct qkv_problem p;
	size_t length;

	snprintf(path, sizeof path, BAD_DIR "/%s", name);
	snprintf(expected_path, sizeof expected_path, BAD_DIR "/%.*s.expected",
		 (int)(strlen(name) - 5), name);
	expected = slurp_sized(expected_path, &length);
	ck_assert_msg(expected != NULL, "%s has no .expected file", path);
	ck_assert_msg(length > 0 && expected[length - 1] == '\n' &&
		      strchr(expected, '\n') == expected + length - 1,
		      "%s must hold exactly one line", expected_path);
	expected[length - 1] = '\0';
	qkv_problem_init(&p);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_int_eq(load_file(path, &p, err, sizeof err), -1);
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(p.n, 0);
	ck_assert_ptr_null(p.tokens);
	ck_assert_ptr_null(p.title);
	ck_assert_ptr_null(p.q.values);
	free(expected);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(bad_corpus_is_large_enough)
{
	ck_assert_int_ge(bad_count, 32);
}
END_TEST

/* A growing text for generated documents. */
struct gen {
	char *s;
	size_t length, capacity;
};

static void gen_add(struct gen *g, const char *text)
{
	size_t length = strlen(text);

	if (g->length + length + 1 > g->capacity) {
		g->capacity = (g->length + length + 1) * 2;
		g->s = realloc(g->s, g->capacity);
		ck_assert_ptr_nonnull(g->s);
	}
	memcpy(g->s + g->length, text, length + 1);
	g->length += length;
}

/* A direct problem with n tokens and width d: Q and K n×d, V n×1, one row per line
 * (so row r of Q is on line r + 2, column 1). */
static void gen_direct(struct gen *g, int n, int d)
{
	const char *keys[3] = { "Q", "K", "V" };

	g->length = 0;
	gen_add(g, "{\n\"Q\": [\n");
	for (int m = 0; m < 3; m++) {
		if (m > 0) {
			gen_add(g, "],\n\"");
			gen_add(g, keys[m]);
			gen_add(g, "\": [\n");
		}
		for (int r = 0; r < n; r++) {
			gen_add(g, r > 0 ? ",\n[" : "[");
			for (int c = 0; c < (m == 2 ? 1 : d); c++)
				gen_add(g, c > 0 ? ", 0.5" : "1");
			gen_add(g, "]");
		}
	}
	gen_add(g, "]\n}\n");
}

/* A pipe has no size to look at: the loader stops one byte past the limit instead
 * of reading on (the writer sees the pipe close soon after 64 MiB, not at 128). */
START_TEST(pipe_stops_at_the_limit)
{
	int data[2], report[2];
	pid_t child;
	char path[64], err[512];
	long long written = 0;
	struct qkv_problem p;

	ck_assert_int_eq(pipe(data), 0);
	ck_assert_int_eq(pipe(report), 0);
	child = fork();
	ck_assert_int_ne(child, -1);
	if (child == 0) {
		static char spaces[65536];

		signal(SIGPIPE, SIG_IGN);
		close(data[0]);
		close(report[0]);
		memset(spaces, ' ', sizeof spaces);
		while (written < 200LL * 1024 * 1024) {
			ssize_t done = write(data[1], spaces, sizeof spaces);

			if (done <= 0)
				break;
			written += done;
		}
		if (write(report[1], &written, sizeof written) != sizeof written)
			_exit(1);
		_exit(0);
	}
	close(data[1]);
	close(report[1]);
	snprintf(path, sizeof path, "/proc/self/fd/%d", data[0]);
	qkv_problem_init(&p);
	ck_assert_int_eq(load_file(path, &p, err, sizeof err), -1);
	close(data[0]);
	ck_assert_ptr_nonnull(strstr(err, "larger than the limit of 64 MiB"));
	ck_assert_int_eq(read(report[0], &written, sizeof written), (ssize_t)sizeof written);
	close(report[0]);
	waitpid(child, NULL, 0);
	/* The limit, the byte past it, and what the pipe holds (64 KiB here, 1 MiB at most). */
	ck_assert_msg(written <= QKV_MAX_FILE_BYTES + 1 + (1 << 20), "the writer got %lld bytes in", written);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(limits_tokens)
{
	struct gen g = { NULL, 0, 0 };
	struct qkv_problem p;
	char err[1024], expected[1024];

	qkv_problem_init(&p);
	gen_direct(&g, QKV_MAX_TOKENS, 1);
	ck_assert_msg(load_string(g.s, g.length, "gen.json", &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(p.n, 1024);
	ck_assert_str_eq(p.tokens[1023], "t1024");
	gen_direct(&g, QKV_MAX_TOKENS + 1, 1);
	ck_assert_int_eq(load_string(g.s, g.length, "gen.json", &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "gen.json:%d:1: \"Q\" has 1025 rows, more than the "
		 "limit of 1024 tokens", 1025 + 2);
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(p.n, 0);
	free(g.s);
}
END_TEST

START_TEST(limits_dimensions)
{
	struct gen g = { NULL, 0, 0 };
	struct qkv_problem p;
	char err[1024];

	qkv_problem_init(&p);
	gen_direct(&g, 2, QKV_MAX_DIM);
	ck_assert_msg(load_string(g.s, g.length, "gen.json", &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(qkv_problem_d_k(&p), 4096);
	ck_assert(qkv_matrix_get(&p.k, 1, 4095) == 0.5);
	gen_direct(&g, 2, QKV_MAX_DIM + 1);
	ck_assert_int_eq(load_string(g.s, g.length, "gen.json", &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "gen.json:3:1: \"Q\" row 1 has 4097 numbers, more than the limit "
			      "of 4096 for d_k");
	free(g.s);
}
END_TEST

START_TEST(limits_d_model)
{
	struct gen g = { NULL, 0, 0 };
	struct qkv_problem p;
	char err[1024];

	qkv_problem_init(&p);
	gen_add(&g, "{\"X\": [[");
	for (int c = 0; c <= QKV_MAX_DIM; c++)
		gen_add(&g, c > 0 ? ",0" : "0");
	gen_add(&g, "]], \"W_Q\": [[1]], \"W_K\": [[1]], \"W_V\": [[1]]}");
	ck_assert_int_eq(load_string(g.s, g.length, "x.json", &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "x.json:1:8: \"X\" row 1 has 4097 numbers, more than the limit of "
			      "4096 for d_model");
	free(g.s);
}
END_TEST

START_TEST(deep_nesting_generated)
{
	size_t depth = 100000;
	char *text = malloc(depth);
	struct qkv_problem p;
	char err[1024];

	ck_assert_ptr_nonnull(text);
	memset(text, '[', depth);
	qkv_problem_init(&p);
	ck_assert_int_eq(load_string(text, depth, "deep.json", &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "deep.json:1:2049: nested more than 2048 levels deep; a problem "
			      "needs at most 3");
	memset(text, '{', depth);
	ck_assert_int_eq(load_string(text, depth, "deep.json", &p, err, sizeof err), -1);
	ck_assert_ptr_null(strchr(err, '\n'));
	ck_assert(strncmp(err, "deep.json:1:", 12) == 0);
	free(text);
}
END_TEST

/* A problem in a temporary folder; the caller removes it. */
static void temp_path(char *path, size_t size, const char *folder, const char *name)
{
	snprintf(path, size, "%s/%s", folder, name);
}

START_TEST(big_files)
{
	char folder[] = "/tmp/qkv-test-load-XXXXXX";
	char path[512], err[1024], expected[1024];
	struct gen g = { NULL, 0, 0 };
	struct qkv_problem p;
	FILE *f;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(folder));
	qkv_problem_init(&p);

	/* A sparse file just over 64 MiB: refused from its size, before reading. */
	temp_path(path, sizeof path, folder, "huge.json");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 64L * 1024 * 1024 + 1), 0);
	close(fd);
	ck_assert_int_eq(load_file(path, &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "%s: the file is larger than the limit of 64 MiB for "
		 "a problem", path);
	ck_assert_str_eq(err, expected);
	unlink(path);

	/* A large problem that is within every limit: 1024 tokens, d_k = 64. */
	temp_path(path, sizeof path, folder, "large.json");
	gen_direct(&g, QKV_MAX_TOKENS, 64);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(g.s, 1, g.length, f), g.length);
	fclose(f);
	ck_assert_msg(load_file(path, &p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(p.n, 1024);
	ck_assert_int_eq(qkv_problem_d_k(&p), 64);
	ck_assert(qkv_matrix_get(&p.q, 1023, 63) == 0.5);
	qkv_problem_fini(&p);
	unlink(path);
	free(g.s);
	rmdir(folder);
}
END_TEST

START_TEST(open_errors)
{
	struct qkv_problem p;
	char err[1024], expected[1024];

	qkv_problem_init(&p);
	ck_assert_int_eq(load_file("tests/data/no-such-file.json", &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "tests/data/no-such-file.json: cannot open: %s",
		 strerror(ENOENT));
	ck_assert_str_eq(err, expected);
	ck_assert_int_eq(load_file("tests/data", &p, err, sizeof err), -1);
	snprintf(expected, sizeof expected, "tests/data: cannot open: %s", strerror(EISDIR));
	ck_assert_str_eq(err, expected);
}
END_TEST

START_TEST(messages_fit_small_buffers)
{
	static const char text[] = "{\"Q\": [[1]], \"K\": [[1]], \"V\": [[\"x\"]]}";
	struct qkv_problem p;
	char err[16];

	qkv_problem_init(&p);
	memset(err, 'z', sizeof err);
	ck_assert_int_eq(load_string(text, sizeof text - 1, "a-long-name.json", &p, err, 12), -1);
	ck_assert_str_eq(err, "a-long-name");
	ck_assert_int_eq(err[12], 'z');
	ck_assert_int_eq(load_string(text, sizeof text - 1, "a.json", &p, err, 0), -1);
	ck_assert_int_eq(err[0], 'a');
}
END_TEST

START_TEST(string_and_name)
{
	static const char text[] = "{\"Q\": [[1, 2]], \"K\": [[3, 4]], \"V\": [[5]], "
				   "\"tokens\": [\"only\"], \"scale\": 2}";
	static const char broken[] = "{\"Q\": [[1, 2]], \"K\": [[3, 4]], \"V\": [[5]]";
	struct qkv_problem p;
	char err[256];

	qkv_problem_init(&p);
	ck_assert_int_eq(load_string(text, sizeof text - 1, "<memory>", &p, err, sizeof err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(p.tokens[0], "only");
	ck_assert_int_eq(p.scale, QKV_SCALE_CUSTOM);
	ck_assert(p.scale_value == 2);
	/* The length bounds the text: the same bytes cut short are truncated JSON. */
	ck_assert_int_eq(load_string(text, 10, "<memory>", &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "<memory>:1:11: the file ends too early: ']' expected");
	ck_assert_int_eq(load_string(broken, sizeof broken - 1, "b", &p, err, sizeof err), -1);
	ck_assert_str_eq(err, "b:1:42: the file ends too early: '}' expected");
	qkv_problem_fini(&p);
}
END_TEST

/* Lists the .json files of the bad corpus in name order. */
static void list_bad_files(void)
{
	struct dirent **entries;
	int count = scandir(BAD_DIR, &entries, NULL, alphasort);

	for (int i = 0; i < count; i++) {
		size_t length = strlen(entries[i]->d_name);

		if (length > 5 && strcmp(entries[i]->d_name + length - 5, ".json") == 0 &&
		    bad_count < MAX_BAD)
			bad_names[bad_count++] = strdup(entries[i]->d_name);
		free(entries[i]);
	}
	if (count >= 0)
		free(entries);
}

/* A multi-head file: X, two heads and W_O, read into h heads in the projected form. */
START_TEST(heads_file_loads)
{
	static const char text[] =
		"{\"tokens\": [\"a\", \"b\"], \"X\": [[1, 0], [0, 1]],\n"
		" \"heads\": [{\"W_Q\": [[1], [0]], \"W_K\": [[1], [0]], \"W_V\": [[1], [0]]},\n"
		"  {\"W_V\": [[0], [3]], \"W_Q\": [[0], [2]], \"W_K\": [[0], [1]]}],\n"
		" \"W_O\": [[1, 2], [3, 4]], \"mask\": \"causal\"}\n";
	struct qkv_problem p;
	char err[512];

	qkv_problem_init(&p);
	ck_assert_msg(load_string(text, sizeof text - 1, "h.json", &p, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(p.h, 2);
	ck_assert_int_eq(p.form, QKV_FORM_PROJECTED);
	ck_assert_int_eq(p.mask, QKV_MASK_CAUSAL);
	ck_assert_int_eq(p.n, 2);
	ck_assert(qkv_matrix_get(&p.heads[1].w_v, 1, 0) == 3.0);
	ck_assert(qkv_matrix_get(&p.heads[1].w_q, 1, 0) == 2.0);
	ck_assert(qkv_matrix_get(&p.w_o, 1, 0) == 3.0);
	ck_assert_int_eq(p.w_q.rows, 0);
	qkv_problem_fini(&p);
}
END_TEST

/* Loads text (named name) into p, failing the test with the loader's message. */
static void must_load_text(const char *text, const char *name, struct qkv_problem *p)
{
	char err[512];

	qkv_problem_init(p);
	ck_assert_msg(load_string(text, strlen(text), name, p, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(qkv_problem_check(p), 0);
}

/* Cross-attention files: a Q of other rows than K is one, with labels q1…qm and
 * t1…tn; "query_tokens" makes one of any sizes; the mask is m × n; padding hides
 * keys; a projected one gives X_q (single- or multi-head); and a file without
 * them is self-attention as always (m = n, no labels of its own). */
START_TEST(cross_files_load)
{
	struct qkv_problem p;

	must_load_text("{\"Q\": [[1, 0]], \"K\": [[1, 0], [0, 1], [1, 1]], \"V\": [[1], [2], [3]]}",
		       "one-query", &p);
	ck_assert(qkv_problem_is_cross(&p));
	ck_assert_int_eq(p.m, 1);
	ck_assert_int_eq(p.n, 3);
	ck_assert_str_eq(p.query_tokens[0], "q1");
	ck_assert_str_eq(p.tokens[2], "t3");
	qkv_problem_fini(&p);

	must_load_text("{\"Q\": [[1, 0], [0, 1], [2, 2]], \"K\": [[1, 0]], \"V\": [[7]]}", "one-key", &p);
	ck_assert_int_eq(p.m, 3);
	ck_assert_int_eq(p.n, 1);
	ck_assert_str_eq(p.query_tokens[2], "q3");
	qkv_problem_fini(&p);

	must_load_text("{\"Q\": [[1, 0], [0, 1]], \"K\": [[1, 0], [0, 1]], \"V\": [[1], [2]]}", "self", &p);
	ck_assert(!qkv_problem_is_cross(&p));
	ck_assert_int_eq(p.m, 2);
	qkv_problem_fini(&p);

	must_load_text("{\"query_tokens\": [\"a\", \"b\"], \"Q\": [[1, 0], [0, 1]], \"K\": [[1, 0], [0, 1]],"
		       " \"V\": [[1], [2]], \"mask\": \"causal\"}", "same-sizes", &p);
	ck_assert(qkv_problem_is_cross(&p));
	ck_assert_str_eq(p.query_tokens[1], "b");
	ck_assert_str_eq(p.tokens[1], "t2");
	ck_assert_int_eq(p.mask, QKV_MASK_CAUSAL);
	qkv_problem_fini(&p);

	must_load("tests/data/good/cross.json", &p);
	ck_assert_int_eq(p.m, 2);
	ck_assert_int_eq(p.n, 3);
	ck_assert_str_eq(p.query_tokens[1], "Hund");
	ck_assert_str_eq(p.tokens[2], "barks");
	ck_assert_int_eq(p.mask, QKV_MASK_CUSTOM);
	ck_assert(qkv_problem_is_masked(&p, 0, 2) && !qkv_problem_is_masked(&p, 1, 2));
	ck_assert(qkv_problem_is_masked(&p, 1, 0)); /* padding: key 0 from every query */
	ck_assert(!qkv_problem_is_masked(&p, 0, 1));
	qkv_problem_fini(&p);

	must_load_text("{\"X\": [[1, 0], [0, 1], [1, 1]], \"X_q\": [[2, 0]], \"W_Q\": [[1, 0], [0, 1]],"
		       " \"W_K\": [[1, 0], [0, 1]], \"W_V\": [[2], [3]], \"query_tokens\": [\"who\"]}",
		       "projected", &p);
	ck_assert(qkv_problem_is_cross(&p));
	ck_assert_int_eq(p.m, 1);
	ck_assert_int_eq(p.n, 3);
	ck_assert(qkv_matrix_get(&p.x_q, 0, 0) == 2.0);
	ck_assert_str_eq(p.query_tokens[0], "who");
	qkv_problem_fini(&p);

	must_load_text("{\"X\": [[1, 0], [0, 1]], \"X_q\": [[1, 1], [2, 0], [0, 2]],\n"
		       " \"heads\": [{\"W_Q\": [[1], [0]], \"W_K\": [[1], [0]], \"W_V\": [[1], [0]]}],\n"
		       " \"W_O\": [[1, 2]]}", "heads", &p);
	ck_assert_int_eq(p.h, 1);
	ck_assert_int_eq(p.m, 3);
	ck_assert_int_eq(p.n, 2);
	ck_assert_str_eq(p.query_tokens[0], "q1");
	ck_assert(qkv_matrix_get(&p.x_q, 2, 1) == 2.0);
	qkv_problem_fini(&p);
}
END_TEST

static Suite *load_suite(void)
{
	Suite *s = suite_create("load");
	TCase *samples = tcase_create("samples");
	TCase *bad = tcase_create("bad");
	TCase *generated = tcase_create("generated");

	tcase_add_test(samples, worked_example_file_matches_course);
	tcase_add_test(samples, builtin_has_words);
	tcase_add_test(samples, heads_file_loads);
	tcase_add_test(samples, cross_files_load);
	tcase_add_test(samples, every_sample_loads_small_and_annotated);
	tcase_add_test(samples, exact_match_sample_picks_one_key);
	tcase_add_test(samples, uniform_sample_averages);
	tcase_add_test(samples, copy_sample_is_nearly_identity);
	tcase_add_test(samples, sentence_sample_links_words);
	tcase_add_test(samples, projection_sample_attends_to_previous);
	tcase_add_test(samples, causal_sample_hides_the_future);
	tcase_add_test(samples, padding_sample_hides_pad_columns);
	tcase_add_test(samples, local_window_sample_custom_mask);
	tcase_add_test(samples, good_files_options);
	suite_add_tcase(s, samples);

	tcase_add_test(bad, bad_corpus_is_large_enough);
	tcase_add_loop_test(bad, bad_file_gives_expected_line, 0, bad_count);
	suite_add_tcase(s, bad);

	tcase_set_timeout(generated, 60);
	tcase_add_test(generated, limits_tokens);
	tcase_add_test(generated, limits_dimensions);
	tcase_add_test(generated, limits_d_model);
	tcase_add_test(generated, deep_nesting_generated);
	tcase_add_test(generated, big_files);
	tcase_add_test(generated, pipe_stops_at_the_limit);
	tcase_add_test(generated, open_errors);
	tcase_add_test(generated, messages_fit_small_buffers);
	tcase_add_test(generated, string_and_name);
	suite_add_tcase(s, generated);
	return s;
}

int main(void)
{
	const char *root = getenv("QKV_SOURCE_ROOT");
	int status;

	if (root == NULL || chdir(root) != 0) {
		fprintf(stderr, "test_load: set QKV_SOURCE_ROOT to the source tree\n");
		return 1;
	}
	list_bad_files();
	status = run_tap(load_suite());
	for (int i = 0; i < bad_count; i++)
		free(bad_names[i]);
	return status;
}
