/* test_print.c — the printer, every format, on the course's worked example.
 * Expected numbers are derived here from the closed form (Q = K = [[1,0],[0,1],[1,1]],
 * V = [[10,0],[0,10],[5,5]], d_k = 2): with a = 1/√2 and e = e^a, row 1 of the
 * weights is (e, 1, e) / (2e + 1), and so on. Text formats are checked at the
 * right place (the right line, the right column); JSON is parsed back with jansson
 * and compared key by key with docs/DESIGN.md's contract. */
#define _GNU_SOURCE /* fopencookie: a stream whose writes fail, counted */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/problem/builtin.h"
#include "io/report/latex_heatmap.h"
#include "io/report/latex_text.h"
#include "io/report/print.h"
#include "qkv/attention.h"
#include "qkv/online.h"
#include "qkv/problem.h"

#include "tap_main.h"

/* The worked example's weights and outputs, from the closed form. */
struct expected {
	double weights[3][3];
	double output[3][2];
	double scaled[3][3];
};

static void expected_worked(struct expected *x, bool causal)
{
	static const double q[3][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 } };
	static const double v[3][2] = { { 10, 0 }, { 0, 10 }, { 5, 5 } };

	for (int i = 0; i < 3; i++) {
		double sum = 0;
		for (int j = 0; j < 3; j++) {
			double dot = q[i][0] * q[j][0] + q[i][1] * q[j][1];
			x->scaled[i][j] = dot / sqrt(2.0);
		}
		for (int j = 0; j < 3; j++)
			sum += (causal && j > i) ? 0 : exp(x->scaled[i][j]);
		for (int j = 0; j < 3; j++)
			x->weights[i][j] = (causal && j > i) ? 0 : exp(x->scaled[i][j]) / sum;
		for (int c = 0; c < 2; c++) {
			x->output[i][c] = 0;
			for (int j = 0; j < 3; j++)
				x->output[i][c] += x->weights[i][j] * v[j][c];
		}
	}
}

/* The report of the worked example (mask applied when causal; its three tokens
 * relabelled when labels is not NULL), malloc'd. */
__attribute__((noinline))
/* The report of problem p printed with o, malloc'd. */
static char *render_problem(const struct print_options *o, const struct qkv_problem *p)
{
	struct qkv_trace t;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_attention(p, &t), 0);
	ck_assert_int_eq(print_trace(out, p, &t, o), 0);
	fclose(out);
	qkv_trace_fini(&t);
	return text;
}

static char *render_with(const struct print_options *o, bool causal, const char *const labels[3])
{
	struct qkv_problem p;
	char *text;

	qkv_problem_init(&p);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	if (causal)
		ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	for (int i = 0; labels != NULL && i < 3; i++)
		ck_assert_int_eq(qkv_problem_set_label(&p, i, labels[i]), 0);
	text = render_problem(o, &p);
	qkv_problem_fini(&p);
	return text;
}

/* The report of the worked example (mask applied when causal), malloc'd. */
static char *render(const struct print_options *o, bool causal)
{
	return render_with(o, causal, NULL);
}

static struct print_options options(enum print_format format, int stage)
{
	struct print_options o;

	print_options_default(&o);
	o.format = format;
	o.stage = stage;
	return o;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
		n++;
	return n;
}

/* The line that starts with `prefix`, at or after `from`; its text without the
 * newline goes to line (size bytes). Fails the test when there is none. */
static const char *find_line(const char *from, const char *prefix, char *line, size_t size)
{
	size_t length = strlen(prefix);

	for (const char *at = from; at != NULL && *at != '\0';) {
		const char *end = strchr(at, '\n');
		size_t line_length = end != NULL ? (size_t)(end - at) : strlen(at);
		if (strncmp(at, prefix, length) == 0) {
			snprintf(line, size, "%.*s", (int)line_length, at);
			return at;
		}
		at = end != NULL ? end + 1 : NULL;
	}
	ck_abort_msg("no line starting with \"%s\"", prefix);
	return NULL;
}

/* Splits line at whitespace (and '|', '&' when given) into at most max words. */
static int words(char *line, const char *separators, char *word[], int max)
{
	int n = 0;

	for (char *w = strtok(line, separators); w != NULL && n < max; w = strtok(NULL, separators))
		word[n++] = w;
	return n;
}

/* value at `decimals` places, formatted by the test itself. */
static const char *fixed(char *buf, double value, int decimals)
{
	snprintf(buf, 32, "%.*f", decimals, value);
	return buf;
}

/* Checks that the first line starting with `prefix` after `after` reads label
 * (unless NULL), then the n values at `decimals` places ("—" where masked[j]). */
static void check_row(const char *text, const char *after, const char *prefix,
		      const char *separators, const char *label, const double *values,
		      const bool *masked, int n, int decimals)
{
	char line[1024], number[32];
	char *word[16];
	const char *section = strstr(text, after);
	int first = label != NULL ? 1 : 0;

	ck_assert_msg(section != NULL, "no \"%s\"", after);
	find_line(section, prefix, line, sizeof line);
	ck_assert_int_eq(words(line, separators, word, 16), n + first);
	if (label != NULL)
		ck_assert_str_eq(word[0], label);
	for (int j = 0; j < n; j++) {
		if (masked != NULL && masked[j])
			ck_assert_str_eq(word[j + first], "—");
		else
			ck_assert_str_eq(word[j + first], fixed(number, values[j], decimals));
	}
}

/* The problem and trace of a case that changes the worked example (or replaces it)
 * before printing: a checked fixture loads the worked example before each case and
 * frees both after it. */
static struct qkv_problem p;
static struct qkv_trace t;

static void case_setup(void)
{
	qkv_problem_init(&p);
	qkv_trace_init(&t);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
}

static void case_teardown(void)
{
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}

/* p's trace, computed into t, printed with o: the report, malloc'd. */
static char *print_case(const struct print_options *o)
{
	char *report = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&report, &size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(print_trace(out, &p, &t, o), 0);
	fclose(out);
	return report;
}

START_TEST(text_header_and_stages)
{
	struct print_options o = options(PRINT_TEXT, -1);
	char *text = render(&o, false);
	char divisor[64];

	ck_assert_ptr_nonnull(strstr(text, "Three tokens"));
	ck_assert_ptr_nonnull(strstr(text, "n = 3 tokens, d_k = 2, d_v = 2"));
	snprintf(divisor, sizeof divisor, "÷ √2 = %.4f", sqrt(2.0));
	ck_assert_ptr_nonnull(strstr(text, divisor));
	ck_assert_ptr_nonnull(strstr(text, "mask: none"));
	ck_assert_ptr_nonnull(strstr(text, "Stage 1 — scores: S = Q Kᵀ"));
	ck_assert_ptr_nonnull(strstr(text, "Stage 3 — weights: "));
	ck_assert_ptr_nonnull(strstr(text, "Stage 5 — output: "));
	ck_assert_ptr_null(strstr(text, "Stage 0"));
	ck_assert_ptr_null(strstr(text, "masked"));
	/* Inputs come before the stages. */
	ck_assert_ptr_nonnull(strstr(text, "V — values"));
	ck_assert(strstr(text, "V — values") < strstr(text, "Stage 1"));
	free(text);
}
END_TEST

START_TEST(text_weights_and_scaled)
{
	struct print_options o = options(PRINT_TEXT, -1);
	char *text = render(&o, false);
	struct expected x;

	expected_worked(&x, false);
	check_row(text, "Stage 3 — weights", "  t1 ", " ", "t1", x.weights[0], NULL, 3, 4);
	check_row(text, "Stage 3 — weights", "  t3 ", " ", "t3", x.weights[2], NULL, 3, 4);
	check_row(text, "Stage 2 — scaled", "  t3 ", " ", "t3", x.scaled[2], NULL, 3, 4);
	check_row(text, "Stage 5 — output", "  t1 ", " ", "t1", x.output[0], NULL, 2, 4);
	check_row(text, "Stage 5 — output", "  t2 ", " ", "t2", x.output[1], NULL, 2, 4);
	free(text);
}
END_TEST

START_TEST(text_causal_mask)
{
	struct print_options o = options(PRINT_TEXT, -1);
	char *text = render(&o, true);
	struct expected x;
	const bool hidden_first[3] = { false, true, true };
	const double scores_first[3] = { 1, 0, 0 };

	expected_worked(&x, true);
	ck_assert_ptr_nonnull(strstr(text, "mask: causal"));
	ck_assert_ptr_nonnull(strstr(text, "— masked"));
	check_row(text, "Stage 1 — scores", "  t1 ", " ", "t1", scores_first, hidden_first, 3, 4);
	check_row(text, "Stage 2 — scaled", "  t1 ", " ", "t1", x.scaled[0], hidden_first, 3, 4);
	/* Weights show masked entries as 0, not as a dash. */
	check_row(text, "Stage 3 — weights", "  t1 ", " ", "t1", x.weights[0], NULL, 3, 4);
	check_row(text, "Stage 3 — weights", "  t2 ", " ", "t2", x.weights[1], NULL, 3, 4);
	ck_assert_double_eq_tol(x.weights[0][0], 1.0, 1e-15);
	free(text);
}
END_TEST

/* Stage 4 of query t2: the terms a_2j · v_j, and their sum equals output row t2. */
START_TEST(text_mix_sums_to_output)
{
	static const double v[3][2] = { { 10, 0 }, { 0, 10 }, { 5, 5 } };
	struct print_options o = options(PRINT_TEXT, QKV_STAGE_MIX);
	struct expected x;
	char *text;

	o.cell_row = 1;
	text = render(&o, false);
	expected_worked(&x, false);
	ck_assert_ptr_nonnull(strstr(text, "query t2"));
	for (int j = 0; j < 3; j++) {
		char prefix[16], label[16];
		double terms[2] = { x.weights[1][j] * v[j][0], x.weights[1][j] * v[j][1] };

		snprintf(prefix, sizeof prefix, "  t%d ", j + 1);
		snprintf(label, sizeof label, "t%d", j + 1);
		check_row(text, "Stage 4 — mix", prefix, " ", label, terms, NULL, 2, 4);
	}
	/* The Σ row: "Σ" when the terms as printed add up to the rounded output in
	 * both columns, else "Σ ≈" (worked out here from the printed terms). */
	{
		char number[32], other[32], line[1024], *word[16];
		bool adds_up = true;

		for (int c = 0; c < 2; c++) {
			double shown = 0.0;

			for (int j = 0; j < 3; j++)
				shown += atof(fixed(number, x.weights[1][j] * v[j][c], 4));
			adds_up = adds_up && strcmp(fixed(number, shown, 4), fixed(other, x.output[1][c], 4)) == 0;
		}
		if (adds_up)
			check_row(text, "Stage 4 — mix", "  Σ ", " ", "Σ", x.output[1], NULL, 2, 4);
		else {
			find_line(strstr(text, "Stage 4 — mix"), "  Σ ≈ ", line, sizeof line);
			ck_assert_int_eq(words(line, " ", word, 16), 4);
			ck_assert_str_eq(word[1], "≈");
			ck_assert_str_eq(word[2], fixed(number, x.output[1][0], 4));
			ck_assert_str_eq(word[3], fixed(number, x.output[1][1], 4));
		}
	}
	free(text);
}
END_TEST

START_TEST(text_decimals)
{
	struct print_options o = options(PRINT_TEXT, QKV_STAGE_WEIGHTS);
	struct expected x;
	char *text;

	o.decimals = 2;
	text = render(&o, false);
	expected_worked(&x, false);
	check_row(text, "Stage 3 — weights", "  t1 ", " ", "t1", x.weights[0], NULL, 3, 2);
	free(text);
}
END_TEST

/* --stage N: that stage and nothing else (no inputs, no other stage). */
START_TEST(stage_filter)
{
	for (int stage = 1; stage <= 5; stage++) {
		struct print_options o = options(PRINT_TEXT, stage);
		char *text = render(&o, false);

		for (int other = 1; other <= 5; other++) {
			char title[32];
			snprintf(title, sizeof title, "Stage %d — ", other);
			ck_assert_int_eq(count(text, title), other == stage ? 1 : 0);
		}
		ck_assert_ptr_null(strstr(text, "Q — queries"));
		ck_assert_int_eq(count(text, "Statistics"), stage == 3 ? 1 : 0);
		free(text);
	}
}
END_TEST

START_TEST(stage_filter_csv)
{
	struct print_options o = options(PRINT_CSV, QKV_STAGE_SCALED);
	char *text = render(&o, false);

	ck_assert_int_eq(count(text, "\n"), 1 + 9);
	ck_assert_int_eq(count(text, "\nscaled,"), 9);
	free(text);
}
END_TEST

/* The example cell's derivation follows the cell (1-based t2, t3 here), and its
 * column is clamped to the stage's width (d_v = 2 for the output). */
START_TEST(derivation_follows_cell)
{
	struct print_options o = options(PRINT_TEXT, -1);
	char *text;

	o.cell_row = 1;
	o.cell_col = 2;
	text = render(&o, false);
	ck_assert_ptr_nonnull(strstr(text, "    S[t2,t3] = "));
	ck_assert_ptr_nonnull(strstr(text, "    A[t2,t3] = "));
	ck_assert_ptr_nonnull(strstr(text, "    O[t2,d2] = "));
	free(text);
}
END_TEST

START_TEST(text_statistics)
{
	struct print_options o = options(PRINT_TEXT, QKV_STAGE_WEIGHTS);
	char *text = render(&o, false);
	struct expected x;
	char line[1024], number[32];
	char *word[16];

	expected_worked(&x, false);
	const char *stats = strstr(text, "Statistics");
	ck_assert_ptr_nonnull(stats);
	for (int i = 0; i < 3; i++) {
		char prefix[16];
		double entropy = 0, max = 0, jacobian = 0;
		int argmax = 0;

		for (int j = 0; j < 3; j++) {
			double a = x.weights[i][j];
			entropy -= a * log(a);
			if (a > max + 1e-12) {
				max = a;
				argmax = j;
			}
			for (int k = 0; k < 3; k++) {
				double d = (j == k ? a : 0) - a * x.weights[i][k];
				jacobian += d * d;
			}
		}
		snprintf(prefix, sizeof prefix, "  t%d ", i + 1);
		find_line(stats, prefix, line, sizeof line);
		ck_assert_int_eq(words(line, " ", word, 16), 6);
		ck_assert_str_eq(word[1], fixed(number, max, 4));
		snprintf(prefix, sizeof prefix, "t%d", argmax + 1);
		ck_assert_str_eq(word[2], prefix);
		ck_assert_str_eq(word[3], fixed(number, entropy, 4));
		ck_assert_str_eq(word[4], fixed(number, exp(entropy), 4));
		ck_assert_str_eq(word[5], fixed(number, sqrt(jacobian), 4));
	}
	free(text);
}
END_TEST

START_TEST(markdown_tables)
{
	struct print_options o = options(PRINT_MARKDOWN, -1);
	char *text = render(&o, false);
	struct expected x;

	expected_worked(&x, false);
	ck_assert_ptr_nonnull(strstr(text, "# Three tokens"));
	ck_assert_ptr_nonnull(strstr(text, "## Stage 3 — weights: `"));
	check_row(text, "## Stage 3 — weights", "| t1 ", "| ", "t1", x.weights[0], NULL, 3, 4);
	check_row(text, "## Stage 5 — output", "| t3 ", "| ", "t3", x.output[2], NULL, 2, 4);
	/* Every table has its alignment row; every fenced block is closed. */
	ck_assert_int_eq(count(text, "| :-"), 3 + 5 + 1);
	ck_assert_int_eq(count(text, "```text\n"), 5);
	ck_assert_int_eq(count(text, "\n```\n"), 5);
	free(text);
}
END_TEST

START_TEST(latex_matrices)
{
	struct print_options o = options(PRINT_LATEX, -1);
	char *text = render(&o, true);
	struct expected x;

	expected_worked(&x, true);
	ck_assert_int_eq(count(text, "\\begin{pmatrix}"), count(text, "\\end{pmatrix}"));
	/* Q, K, V, scores, scaled, weights, the mix and its sum, the output. */
	ck_assert_int_eq(count(text, "\\begin{pmatrix}"), 9);
	ck_assert_int_eq(count(text, "\\["), count(text, "\\]"));
	/* The five derivations in typewriter type, not verbatim, and no raw UTF-8
	 * anywhere (the title and labels are ASCII): pdflatex needs no declaration of
	 * a Unicode character for it. */
	ck_assert_int_eq(count(text, "\\begin{flushleft}\n"), 5);
	ck_assert_int_eq(count(text, "\\end{flushleft}"), 5);
	ck_assert_int_eq(count(text, "verbatim"), 0);
	for (const char *c = text; *c != '\0'; c++)
		ck_assert_msg((unsigned char)*c < 0x80, "raw UTF-8 in the LaTeX: %.40s", c);
	ck_assert_int_eq(count(text, "\\begin{tabular}"), count(text, "\\end{tabular}"));
	ck_assert_int_eq(count(text, "\\noindent\\textbf{Stage "), 5);
	/* Row t2 of the weights, and the masked entries of the scores. */
	check_row(text, "A = \\begin{pmatrix}", "0.", " &\\", NULL, x.weights[1], NULL, 3, 4);
	ck_assert_ptr_nonnull(strstr(text, "S = \\begin{pmatrix}\n1.0000 & \\text{---} & \\text{---}"));
	free(text);
}
END_TEST

/* LaTeX specials in a title and in labels are escaped; the ones the printer
 * writes itself (÷, √, —) become commands. */
START_TEST(latex_escapes)
{
	struct print_options o = options(PRINT_LATEX, QKV_STAGE_SCORES);
	char *text;

	ck_assert_int_eq(qkv_problem_set_title(&p, "50% of {a} & $b_c #1 ~^\\"), 0);
	ck_assert_int_eq(qkv_problem_set_label(&p, 0, "x_1"), 0);
	text = print_case(&o);
	ck_assert_ptr_nonnull(strstr(text, "50\\% of \\{a\\} \\& \\$b\\_c \\#1 "
				     "\\textasciitilde{}\\textasciicircum{}\\textbackslash{}\\par}"));
	ck_assert_ptr_nonnull(strstr(text, "\\texttt{x\\_1}"));
	ck_assert_ptr_null(strstr(text, "x_1}"));
	free(text);
}
END_TEST

/* The value of CSV row "stage,row_token,col_label,row,col,value" in text. */
static const char *csv_value(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	ck_assert_msg(at != NULL, "no CSV row %s", key);
	return at + strlen(key);
}

START_TEST(csv_cells)
{
	struct print_options o = options(PRINT_CSV, -1);
	char *text = render(&o, true);
	struct expected x;
	char key[64];

	expected_worked(&x, true);
	/* Header; Q, K, V (6 each); scores, scaled, weights (9 each); the mix of the
	 * example query (n × d_v = 6); the output (6); 4 statistics per query (12). */
	ck_assert_int_eq(count(text, "\n"), 1 + 3 * 6 + 3 * 9 + 6 + 6 + 12);
	ck_assert(strncmp(text, "stage,row_token,col_label,row,col,value\n", 40) == 0);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			snprintf(key, sizeof key, "\nweights,t%d,t%d,%d,%d,", i + 1, j + 1, i + 1, j + 1);
			ck_assert_double_eq_tol(strtod(csv_value(text, key), NULL), x.weights[i][j],
						1e-15);
			snprintf(key, sizeof key, "\nscores,t%d,t%d,%d,%d,", i + 1, j + 1, i + 1, j + 1);
			if (j > i)
				ck_assert(csv_value(text, key)[0] == '\n');
			else
				ck_assert(csv_value(text, key)[0] != '\n');
		}
	}
	ck_assert_double_eq_tol(strtod(csv_value(text, "\noutput,t2,d2,2,2,"), NULL),
				x.output[1][1], 1e-13);
	free(text);
}
END_TEST

START_TEST(csv_quotes_labels)
{
	struct print_options o = options(PRINT_CSV, QKV_STAGE_OUTPUT);
	char *text;

	ck_assert_int_eq(qkv_problem_set_label(&p, 1, "a,\"b\""), 0);
	text = print_case(&o);
	ck_assert_ptr_nonnull(strstr(text, "\noutput,\"a,\"\"b\"\"\",d1,2,1,"));
	free(text);
}
END_TEST

static json_t *parse(const char *text)
{
	json_error_t error;
	json_t *root = json_loads(text, 0, &error);

	ck_assert_msg(root != NULL, "JSON does not parse: %s (line %d)", error.text, error.line);
	return root;
}

/* Checks a JSON matrix against expected values (NAN = null expected). */
static void check_json_matrix(json_t *root, const char *key, const double *expected,
			      int rows, int cols, double tolerance)
{
	json_t *m = json_object_get(root, key);

	ck_assert_msg(json_is_array(m), "\"%s\" is not an array", key);
	ck_assert_int_eq((int)json_array_size(m), rows);
	for (int r = 0; r < rows; r++) {
		json_t *row = json_array_get(m, (size_t)r);
		ck_assert_int_eq((int)json_array_size(row), cols);
		for (int c = 0; c < cols; c++) {
			json_t *cell = json_array_get(row, (size_t)c);
			double want = expected[r * cols + c];
			if (isnan(want)) {
				ck_assert_msg(json_is_null(cell), "%s[%d][%d] is not null", key, r, c);
			} else {
				ck_assert_msg(json_is_number(cell), "%s[%d][%d] is not a number", key, r, c);
				if (tolerance == 0)
					ck_assert(json_number_value(cell) == want);
				else
					ck_assert_double_eq_tol(json_number_value(cell), want, tolerance);
			}
		}
	}
}

static void check_json(bool causal)
{
	static const char *const contract[] = {
		"title", "tokens", "n", "d_k", "d_v", "divisor", "mask", "Q", "K", "V",
		"scores", "scaled", "weights", "output", "stats",
	};
	static const double qk[6] = { 1, 0, 0, 1, 1, 1 };
	static const double v[6] = { 10, 0, 0, 10, 5, 5 };
	struct print_options o = options(PRINT_JSON, -1);
	char *text = render(&o, causal);
	json_t *root = parse(text);
	struct expected x;
	double scores[9], scaled[9], weights[9], output[6], mean = 0, variance = 0;
	int live = 0;

	expected_worked(&x, causal);
	for (size_t k = 0; k < sizeof contract / sizeof *contract; k++)
		ck_assert_msg(json_object_get(root, contract[k]) != NULL, "no \"%s\"", contract[k]);
	/* Beyond the contract: only the documented extras. */
	ck_assert_int_eq((int)json_object_size(root), 15 + 2);
	ck_assert_str_eq(json_string_value(json_object_get(root, "scale")), "sqrt_dk");
	ck_assert(json_number_value(json_object_get(root, "temperature")) == 1.0);
	ck_assert_str_eq(json_string_value(json_object_get(root, "title")),
			 "Three tokens, by hand (module 2)");
	ck_assert_int_eq((int)json_array_size(json_object_get(root, "tokens")), 3);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(root, "tokens"), 2)), "t3");
	ck_assert_int_eq(json_integer_value(json_object_get(root, "n")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "d_k")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "d_v")), 2);
	ck_assert(json_number_value(json_object_get(root, "divisor")) == sqrt(2.0));
	ck_assert_str_eq(json_string_value(json_object_get(root, "mask")), causal ? "causal" : "none");
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			bool hidden = causal && j > i;
			scores[i * 3 + j] = hidden ? NAN : qk[i * 2] * qk[j * 2] + qk[i * 2 + 1] * qk[j * 2 + 1];
			scaled[i * 3 + j] = hidden ? NAN : x.scaled[i][j];
			weights[i * 3 + j] = x.weights[i][j];
			if (!hidden) {
				mean += x.scaled[i][j];
				live++;
			}
		}
		output[i * 2] = x.output[i][0];
		output[i * 2 + 1] = x.output[i][1];
	}
	check_json_matrix(root, "Q", qk, 3, 2, 0);
	check_json_matrix(root, "K", qk, 3, 2, 0);
	check_json_matrix(root, "V", v, 3, 2, 0);
	check_json_matrix(root, "scores", scores, 3, 3, 0);
	check_json_matrix(root, "scaled", scaled, 3, 3, 1e-15);
	check_json_matrix(root, "weights", weights, 3, 3, 1e-15);
	check_json_matrix(root, "output", output, 3, 2, 1e-13);

	mean /= live;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j <= (causal ? i : 2); j++)
			variance += (x.scaled[i][j] - mean) * (x.scaled[i][j] - mean) / live;
	json_t *stats = json_object_get(root, "stats");
	ck_assert_int_eq((int)json_object_size(stats), 2);
	ck_assert_double_eq_tol(json_number_value(json_object_get(stats, "score_variance")),
				variance, 1e-15);
	json_t *rows = json_object_get(stats, "rows");
	ck_assert_int_eq((int)json_array_size(rows), 3);
	for (int i = 0; i < 3; i++) {
		json_t *row = json_array_get(rows, (size_t)i);
		double entropy = 0, max = 0;

		for (int j = 0; j < 3; j++) {
			double a = x.weights[i][j];
			if (a > 0)
				entropy -= a * log(a);
			if (a > max)
				max = a;
		}
		ck_assert_int_eq((int)json_object_size(row), 4);
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "max_weight")), max,
					1e-15);
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "entropy")), entropy,
					1e-14);
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "effective_tokens")),
					exp(entropy), 1e-13);
		ck_assert(json_is_number(json_object_get(row, "jacobian_norm")));
	}
	json_decref(root);
	free(text);
}

START_TEST(json_contract)
{
	check_json(false);
}
END_TEST

START_TEST(json_contract_causal)
{
	check_json(true);
}
END_TEST

/* Strings are escaped, and bytes that are not UTF-8 do not break the JSON. */
START_TEST(json_strings)
{
	struct print_options o = options(PRINT_JSON, -1);
	char *text;

	ck_assert_int_eq(qkv_problem_set_title(&p, "a \"quoted\" \\ title\n\x01 é \xff \x7f end"), 0);
	text = print_case(&o);
	/* Control characters, DEL among them, are escaped as the saver escapes them
	 * (one writer): nothing raw reaches a terminal that shows the JSON. */
	ck_assert_ptr_nonnull(strstr(text, "\\u0001 é \\ufffd \\u007f end"));
	json_t *root = parse(text);
	ck_assert_str_eq(json_string_value(json_object_get(root, "title")),
			 "a \"quoted\" \\ title\n\x01 é \xef\xbf\xbd \x7f end");
	json_decref(root);
	free(text);
}
END_TEST

/* Numbers read back to the very same double. */
START_TEST(json_round_trip)
{
	struct print_options o = options(PRINT_JSON, -1);
	char *text;

	qkv_problem_fini(&p); /* not the worked example */
	ck_assert_int_eq(qkv_problem_random(&p, 5, 7, 3, 42), 0);
	text = print_case(&o);
	json_t *root = parse(text);
	json_t *weights = json_object_get(root, "weights");
	json_t *q = json_object_get(root, "Q");
	for (int i = 0; i < 5; i++) {
		for (int j = 0; j < 5; j++)
			ck_assert(json_number_value(json_array_get(json_array_get(weights, (size_t)i),
								   (size_t)j))
				  == qkv_matrix_get(&t.weights, i, j));
		for (int c = 0; c < 7; c++)
			ck_assert(json_number_value(json_array_get(json_array_get(q, (size_t)i), (size_t)c))
				  == qkv_matrix_get(&p.q, i, c));
	}
	ck_assert(json_is_null(json_object_get(root, "title")));
	json_decref(root);
	free(text);
}
END_TEST

/* A write that fails (a full disk) is reported. */
START_TEST(write_error)
{
	struct print_options o = options(PRINT_TEXT, -1);
	FILE *out = fopen("/dev/full", "w");

	if (out == NULL)
		return;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(print_trace(out, &p, &t, &o), -1);
	fclose(out);
}
END_TEST

START_TEST(format_names)
{
	static const char *const names[] = {
		"text", "markdown", "latex", "csv", "json", "svg", "pdf", "png",
	};
	enum print_format f;

	ck_assert_int_eq(PRINT_FORMAT_COUNT, 8);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(print_format_parse(names[i], &f), 0);
		ck_assert_int_eq((int)f, i);
		ck_assert_str_eq(print_format_name(f), names[i]);
	}
	ck_assert_str_eq(print_format_name(PRINT_FORMAT_COUNT), "?");
	ck_assert_int_eq(print_format_parse("xml", &f), -1);
	ck_assert_int_eq(print_format_parse("", &f), -1);
	ck_assert_int_eq(print_format_parse("SVG", &f), -1);
}
END_TEST

/* One table of formats: each one's kind and what it writes, and the lists the
 * command line says are read from it. */
static bool never(enum print_format format)
{
	(void)format;
	return false;
}

START_TEST(format_table)
{
	char names[256];
	enum figure_format figure;

	for (int f = 0; f < PRINT_FORMAT_COUNT; f++) {
		bool drawn = f >= PRINT_SVG;

		ck_assert_int_eq(print_format_kind((enum print_format)f),
				 drawn ? PRINT_KIND_FIGURE : PRINT_KIND_REPORT);
		ck_assert_int_eq(print_format_figure((enum print_format)f, &figure), drawn ? 0 : -1);
		ck_assert(print_format_binary((enum print_format)f) == (f == PRINT_PDF || f == PRINT_PNG));
	}
	ck_assert_int_eq(print_format_figure(PRINT_SVG, &figure), 0);
	ck_assert_int_eq(figure, FIGURE_SVG);
	ck_assert_int_eq(print_format_figure(PRINT_PNG, &figure), 0);
	ck_assert_int_eq(figure, FIGURE_PNG);
	ck_assert_int_eq(print_figure_format_parse("pdf", &figure), 0);
	ck_assert_int_eq(figure, FIGURE_PDF);
	ck_assert_int_eq(print_figure_format_parse("json", &figure), -1);
	print_format_names(names, sizeof names, -1, NULL);
	ck_assert_str_eq(names, "text, markdown, latex, csv, json, svg, pdf or png");
	print_format_names(names, sizeof names, PRINT_KIND_REPORT, NULL);
	ck_assert_str_eq(names, "text, markdown, latex, csv or json");
	print_format_names(names, sizeof names, PRINT_KIND_FIGURE, NULL);
	ck_assert_str_eq(names, "svg, pdf or png");
	print_format_names(names, sizeof names, -1, print_format_trains);
	ck_assert_str_eq(names, "text, csv or json");
	print_format_names(names, sizeof names, -1, print_format_costs);
	ck_assert_str_eq(names, "text, markdown, csv or json");
	print_format_names(names, sizeof names, -1, print_format_heads);
	ck_assert_str_eq(names, "text, markdown, latex, csv or json");
	print_format_names(names, sizeof names, -1, never);
	ck_assert_str_eq(names, "");
	print_format_names(names, 12, -1, NULL);
	ck_assert_str_eq(names, "text, markd");
}
END_TEST

/* Two hand-made sweep points, printed. */
static char *render_sweep(enum print_format format, unsigned long long seed)
{
	struct qkv_sweep_point points[2] = {
		{ 1, { 1.0 / 3, 0.25, 0.875, 0.3 }, { 1.0 / 3, 0.25, 0.875, 0.3 } },
		{ 2, { 0.1, 0.2, 0.7, 0.31 }, { 2.0 / 3, 0.5, 0.125, 2.5e8 } },
	};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	struct print_options o = options(format, -1);

	ck_assert_int_eq(print_sweep(out, points, 2, 16, 8, seed, &o), 0);
	fclose(out);
	return text;
}

START_TEST(sweep_json)
{
	static const char *const keys[] = {
		"score_variance", "max_weight", "entropy_ratio", "jacobian_norm",
	};
	const double unscaled_2[4] = { 2.0 / 3, 0.5, 0.125, 2.5e8 };
	char *text = render_sweep(PRINT_JSON, 9007199254740991ULL);
	json_t *root = parse(text);

	ck_assert_int_eq((int)json_object_size(root), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "tokens")), 16);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "trials")), 8);
	ck_assert(json_integer_value(json_object_get(root, "seed")) == 9007199254740991LL);
	json_t *rows = json_object_get(root, "rows");
	ck_assert_int_eq((int)json_array_size(rows), 2);
	json_t *second = json_array_get(rows, 1);
	ck_assert_int_eq((int)json_object_size(second), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(second, "d_k")), 2);
	json_t *unscaled = json_object_get(second, "unscaled");
	ck_assert_int_eq((int)json_object_size(unscaled), 4);
	for (int k = 0; k < 4; k++)
		ck_assert(json_number_value(json_object_get(unscaled, keys[k])) == unscaled_2[k]);
	ck_assert(json_number_value(json_object_get(json_object_get(json_array_get(rows, 0), "scaled"),
						  "score_variance")) == 1.0 / 3);
	json_decref(root);
	free(text);
}
END_TEST

START_TEST(sweep_tables)
{
	char *text = render_sweep(PRINT_CSV, 1);
	char line[1024], number[32];
	char *word[16];

	ck_assert_int_eq(count(text, "\n"), 3);
	ck_assert(strncmp(text, "d_k,scaled_score_variance,", 26) == 0);
	ck_assert(strtod(csv_value(text, "\n2,0.1,"), NULL) == 0.2);
	free(text);

	text = render_sweep(PRINT_TEXT, 1);
	find_line(text, "    2 ", line, sizeof line);
	ck_assert_int_eq(words(line, " ", word, 16), 9);
	ck_assert_str_eq(word[1], fixed(number, 0.1, 3));
	ck_assert_str_eq(word[5], fixed(number, 2.0 / 3, 3));
	free(text);

	text = render_sweep(PRINT_MARKDOWN, 1);
	ck_assert_int_eq(count(text, "\n| "), 3);
	free(text);

	text = render_sweep(PRINT_LATEX, 1);
	ck_assert_int_eq(count(text, "\\begin{tabular}"), 2); /* scaled, then unscaled */
	ck_assert_int_eq(count(text, "\\end{tabular}"), 2);
	ck_assert_ptr_nonnull(strstr(text, "2.500 \\times 10^{8}"));
	free(text);
}
END_TEST

/* A custom mask and padding travel in the JSON as a problem file writes them: the
 * boolean matrix under "mask", the padding tokens' indexes under "padding"; the
 * hidden scores are null and the hidden weights exactly 0. */
START_TEST(test_json_custom_mask_and_padding)
{
	struct print_options o = options(PRINT_JSON, -1);
	char *text;
	json_t *root, *mask, *padding;

	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	p.mask_bits[0 * 3 + 1] = 0; /* the causal start, with (t1, t2) opened */
	p.padding = calloc(3, 1);
	ck_assert_ptr_nonnull(p.padding);
	p.padding[2] = 1;
	text = print_case(&o);
	root = parse(text);
	mask = json_object_get(root, "mask");
	ck_assert(json_is_array(mask));
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			bool hidden = j > i && !(i == 0 && j == 1);
			ck_assert(json_is_true(json_array_get(json_array_get(mask, (size_t)i), (size_t)j)) == hidden);
		}
	padding = json_object_get(root, "padding");
	ck_assert_int_eq((int)json_array_size(padding), 1);
	ck_assert_int_eq((int)json_integer_value(json_array_get(padding, 0)), 2);
	/* Row t1 sees t1 and t2 only: scores (1, 0) / √2, softmax over two. */
	{
		json_t *row = json_array_get(json_object_get(root, "weights"), 0);
		double e = exp(1.0 / sqrt(2.0));

		ck_assert_double_eq_tol(json_number_value(json_array_get(row, 0)), e / (e + 1.0), 1e-15);
		ck_assert_double_eq_tol(json_number_value(json_array_get(row, 1)), 1.0 / (e + 1.0), 1e-15);
		ck_assert(json_number_value(json_array_get(row, 2)) == 0.0);
		ck_assert(json_is_null(json_array_get(json_array_get(json_object_get(root, "scores"), 0), 2)));
	}
	json_decref(root);
	free(text);
}
END_TEST

/* The mask-after-softmax mistake under a causal mask: softmax over every key gives
 * row t1 (e, 1, e)/(2e + 1) with e = e^{1/√2}; zeroing the hidden keys afterwards
 * leaves row sums e/(2e+1), (1+e)/(2e+1) and 1, which the printer shows (text) and
 * lists as row_sum rows (CSV), with a "wrong" row naming the mistake. */
START_TEST(test_wrong_way_sums)
{
	struct print_options o = options(PRINT_CSV, -1);
	char *text;
	double e = exp(1.0 / sqrt(2.0));

	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	p.wrong = QKV_WRONG_MASK_AFTER_SOFTMAX;
	text = print_case(&o);
	ck_assert_double_eq_tol(strtod(csv_value(text, "row_sum,t1,,1,0,"), NULL), e / (2 * e + 1), 1e-15);
	ck_assert_double_eq_tol(strtod(csv_value(text, "row_sum,t2,,2,0,"), NULL), (1 + e) / (2 * e + 1), 1e-15);
	ck_assert_double_eq_tol(strtod(csv_value(text, "row_sum,t3,,3,0,"), NULL), 1.0, 1e-15);
	ck_assert_ptr_nonnull(strstr(text, "wrong,,mask-after-softmax,0,0,"));
	free(text);

	o = options(PRINT_TEXT, 3);
	text = print_case(&o);
	{
		char expected[256];

		snprintf(expected, sizeof expected, "each row's sum (softmax by rows makes them all 1): "
			 "t1 %.4f t2 %.4f t3 1.0000", e / (2 * e + 1), (1 + e) / (2 * e + 1));
		ck_assert_msg(strstr(text, expected) != NULL, "no \"%s\" in\n%s", expected, text);
	}
	free(text);
}
END_TEST

/* The worked example with its three tokens relabelled, printed; malloc'd. */
static char *render_labelled(const struct print_options *o, const char *const labels[3])
{
	return render_with(o, false, labels);
}

/* A table's rows line up on screen when a label is in a wide script: 日本語 is
 * 9 bytes and 6 columns, é written as e + U+0301 is 3 bytes and 1 column, so
 * every row of the scores table is as wide (in columns) as the "ok" row. */
START_TEST(text_wide_labels_align)
{
	static const char *const labels[3] = {
		"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "ok", "e\xcc\x81",
	};
	struct print_options o = options(PRINT_TEXT, QKV_STAGE_SCORES);
	char *text = render_labelled(&o, labels);
	char wide[256], ok[256], accent[256];

	ck_assert_ptr_nonnull(strstr(text, "rows: queries"));
	find_line(strstr(text, "rows: queries"), "  \xe6\x97\xa5", wide, sizeof wide);
	find_line(strstr(text, "rows: queries"), "  ok ", ok, sizeof ok);
	find_line(strstr(text, "rows: queries"), "  e\xcc\x81 ", accent, sizeof accent);
	/* Columns by hand: bytes less what the wide and combining characters add. */
	ck_assert_int_eq((int)strlen(wide) - 9 + 6, (int)strlen(ok));
	ck_assert_int_eq((int)strlen(accent) - 3 + 1, (int)strlen(ok));
	free(text);
}
END_TEST

/* Labels that a spreadsheet would run as formulas (=, +, -, @, tab, carriage
 * return first) are written with a ' in front, wherever a label stands: row and
 * column labels and the statistics' rows; other labels and the numbers as they are. */
START_TEST(csv_formula_labels)
{
	static const char *const first[3] = { "=SUM(A1:A2)", "-2", "@x" };
	static const char *const second[3] = { "+cmd", "\tt", "\rr" };
	struct print_options o = options(PRINT_CSV, QKV_STAGE_WEIGHTS);
	char *text = render_labelled(&o, first);

	ck_assert_ptr_nonnull(strstr(text, "\nweights,'=SUM(A1:A2),'-2,1,2,"));
	ck_assert_ptr_nonnull(strstr(text, "\nweights,'@x,'@x,3,3,"));
	ck_assert_ptr_nonnull(strstr(text, "\nstats,'-2,max_weight,2,1,"));
	ck_assert_ptr_null(strstr(text, ",=SUM"));
	ck_assert_ptr_null(strstr(text, ",-2,"));
	free(text);
	text = render_labelled(&o, second);
	ck_assert_ptr_nonnull(strstr(text, "\nweights,'+cmd,'\tt,1,2,"));
	ck_assert_ptr_nonnull(strstr(text, "\nweights,\"'\rr\",'+cmd,3,1,"));
	free(text);
	o = options(PRINT_CSV, QKV_STAGE_OUTPUT);
	text = render_labelled(&o, first);
	/* The output's rows too; the dimension labels need nothing. */
	ck_assert_ptr_nonnull(strstr(text, "\noutput,'=SUM(A1:A2),d1,1,1,"));
	free(text);
}
END_TEST

/* The wrong-way sums are one line each, however many tokens: at n = 400 the
 * lines run past 4 KiB and are written whole. Softmax down the columns makes each
 * column sum to 1, so the column line is " tK 1.0000" for every K, and the row
 * sums add up to n. */
START_TEST(wrong_sums_long_lines)
{
	enum { N = 400 };
	struct print_options o = options(PRINT_TEXT, QKV_STAGE_WEIGHTS);
	char *text = NULL, *line = malloc(65536), *expected = malloc(65536);
	size_t used = 0;
	double total = 0;
	int count = 0;

	ck_assert_ptr_nonnull(line);
	ck_assert_ptr_nonnull(expected);
	qkv_problem_fini(&p); /* not the worked example */
	ck_assert_int_eq(qkv_problem_random(&p, N, 1, 1, 3), 0);
	p.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	text = print_case(&o);
	used = (size_t)snprintf(expected, 65536, "  each column's sum:");
	for (int i = 0; i < N; i++)
		used += (size_t)snprintf(expected + used, 65536 - used, " %s 1.0000", p.tokens[i]);
	find_line(text, "  each column's sum:", line, 65536);
	ck_assert_uint_gt(strlen(line), 4096);
	ck_assert_str_eq(line, expected);
	find_line(text, "  WRONG WAY: each row's sum", line, 65536);
	ck_assert_uint_gt(strlen(line), 4096);
	for (char *at = strstr(line, "all 1):") + 6; (at = strstr(at, " t")) != NULL; count++) {
		char *end;

		at = strchr(at + 1, ' ');
		total += strtod(at, &end);
		at = end;
	}
	ck_assert_int_eq(count, N);
	ck_assert_double_eq_tol(total, N, N * 0.00005 + 1e-9);
	free(line);
	free(expected);
	free(text);
}
END_TEST

/* A label of 64 bytes of ^, ~ or \\ escapes to 16–18 bytes a byte in LaTeX
 * (\\textasciicircum{} is 18): written whole in the sentence before a matrix, in
 * the header's token list and in the statistics, and never without a break
 * between its characters (64 of them are wider than the page). */
START_TEST(latex_long_escaped_labels)
{
	static const char *const escapes[3] = {
		"\\textasciicircum{}", "\\textasciitilde{}", "\\textbackslash{}",
	};
	char labels[3][65], whole[3][64 * 32 + 16], plain[3][64 * 18 + 1], boxed[3][64 * 32 + 64];
	const char *const names[3] = { labels[0], labels[1], labels[2] };
	struct print_options o = options(PRINT_LATEX, QKV_STAGE_WEIGHTS);
	char *text;

	memset(labels[0], '^', 64);
	memset(labels[1], '~', 64);
	memset(labels[2], '\\', 64);
	for (int i = 0; i < 3; i++) {
		labels[i][64] = '\0';
		strcpy(whole[i], "\\texttt{");
		plain[i][0] = '\0';
		/* A long label may break after each character (\allowbreak). */
		for (int k = 0; k < 64; k++) {
			strcat(whole[i], escapes[i]);
			strcat(plain[i], escapes[i]);
			if (k < 63)
				strcat(whole[i], "\\allowbreak{}");
		}
		/* In the statistics, in a box 100 pt wide (LATEX_LABEL_WIDTH). */
		snprintf(boxed[i], sizeof boxed[i], "\\parbox[t]{100pt}{\\raggedright %s\\strut}",
			 whole[i] + strlen("\\texttt{"));
		strcat(whole[i], "}");
	}
	text = render_labelled(&o, names);
	for (int i = 0; i < 3; i++) {
		/* Header, rows and columns of the weights: three times each. */
		ck_assert_int_eq(count(text, whole[i]), 3);
		/* And once more at least, in the statistics' row labels. */
		ck_assert_int_ge(count(text, boxed[i]), 1);
		ck_assert_int_eq(count(text, plain[i]), 0);
	}
	free(text);
}
END_TEST

/* The most lines between `open` and the next `close` in text, over every such block. */
static int tallest(const char *text, const char *open, const char *close)
{
	int most = 0;

	for (const char *at = strstr(text, open); at != NULL; at = strstr(at + 1, open)) {
		const char *end = strstr(at, close);
		int lines = 0;

		ck_assert_ptr_nonnull(end);
		for (const char *c = at; c < end; c++)
			lines += *c == '\n';
		most = lines > most ? lines : most;
	}
	return most;
}

/* 29 tokens in LaTeX: a matrix of 29 rows is set in runs of 12, 12 and 5 rows,
 * each after a line naming them, and the statistics in tabulars of 12 rows at most
 * under their heading, so that a page or a Beamer frame can break between them
 * (a frame holds 14 lines of a table). */
START_TEST(latex_tall_tables_in_runs)
{
	struct print_options o = options(PRINT_LATEX, -1);
	struct qkv_problem tall;
	char *text;

	qkv_problem_init(&tall);
	ck_assert_int_eq(qkv_problem_random(&tall, 29, 2, 2, 7), 0);
	text = render_problem(&o, &tall);
	qkv_problem_fini(&tall);
	/* Q, K, V: two columns, so runs of rows alone */
	ck_assert_int_eq(count(text, "\\noindent Rows 1--12 of 29 of $Q$:"), 1);
	ck_assert_int_eq(count(text, "\\noindent Rows 13--24 of 29 of $Q$:"), 1);
	ck_assert_int_eq(count(text, "\\noindent Rows 25--29 of 29 of $Q$:"), 1);
	ck_assert_int_eq(count(text, "Q = \\begin{pmatrix}"), 0);
	/* each pmatrix: its lines, the \begin line included, at most 12 + 1 */
	ck_assert_int_le(tallest(text, "\\begin{pmatrix}", "\\end{pmatrix}"), 13);
	ck_assert_int_ge(tallest(text, "\\begin{pmatrix}", "\\end{pmatrix}"), 12);
	/* each statistics tabular: the \begin line, the heading and at most 12 rows */
	ck_assert_int_le(tallest(text, "\\begin{tabular}{l", "\\end{tabular}}"), 14);
	ck_assert_int_eq(count(text, "\\begin{tabular}{l") % 3, 0);
	free(text);
}
END_TEST

/* latex_text_runs: rows of a line each under a heading of two lines, in runs of
 * 14 - 2 = 12 (a frame holds LATEX_FIT_LINES = 14 lines of a table): 16 rows are
 * 12 + 4, 29 are 12 + 12 + 5, 12 one run; a row of 20 lines is a run of its own,
 * and the rows around it go on in runs of their own. */
START_TEST(latex_runs_of_rows)
{
	int lines[29], starts[30];

	for (int r = 0; r < 29; r++)
		lines[r] = 1;
	ck_assert_int_eq(latex_text_runs(lines, 16, 2, starts), 2);
	ck_assert_int_eq(starts[0], 0);
	ck_assert_int_eq(starts[1], 12);
	ck_assert_int_eq(starts[2], 16);
	ck_assert_int_eq(latex_text_runs(lines, 29, 2, starts), 3);
	ck_assert_int_eq(starts[1], 12);
	ck_assert_int_eq(starts[2], 24);
	ck_assert_int_eq(starts[3], 29);
	ck_assert_int_eq(latex_text_runs(lines, 12, 2, starts), 1);
	ck_assert_int_eq(starts[1], 12);
	ck_assert_int_eq(latex_text_runs(lines, 0, 2, starts), 1);
	ck_assert_int_eq(starts[1], 0);
	/* rows 0..4 of a line, row 5 of 20, rows 6..9 of a line: 0-4, 5, 6-9 */
	lines[5] = 20;
	ck_assert_int_eq(latex_text_runs(lines, 10, 2, starts), 3);
	ck_assert_int_eq(starts[1], 5);
	ck_assert_int_eq(starts[2], 6);
	ck_assert_int_eq(starts[3], 10);
	/* rows of 3 lines under a heading of 2: four rows a run (2 + 4·3 = 14) */
	for (int r = 0; r < 29; r++)
		lines[r] = 3;
	ck_assert_int_eq(latex_text_runs(lines, 9, 2, starts), 3);
	ck_assert_int_eq(starts[1], 4);
	ck_assert_int_eq(starts[2], 8);
}
END_TEST

/* The heatmap of n random tokens as a LaTeX table, malloc'd. */
static char *heatmap_table(int n)
{
	struct figure_options o;
	struct qkv_problem tall;
	struct qkv_trace trace;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	figure_options_default(&o);
	o.stage = QKV_STAGE_WEIGHTS;
	qkv_problem_init(&tall);
	qkv_trace_init(&trace);
	ck_assert_int_eq(qkv_problem_random(&tall, n, 2, 2, 7), 0);
	ck_assert_int_eq(qkv_attention(&tall, &trace), 0);
	ck_assert_int_eq(latex_heatmap_write(out, &tall, &trace, &o, LATEX_HEATMAP_TABLE), 0);
	fclose(out);
	qkv_trace_fini(&trace);
	qkv_problem_fini(&tall);
	return text;
}

/* A heatmap table of 16 or 29 queries: in each group of keys, its queries in runs
 * of 12 rows (16 = 12 + 4, 29 = 12 + 12 + 5), each a tabular of its own under
 * a line naming its queries (and keys), with the heading again: so that a
 * Beamer frame (14 lines of a table) can break between them. */
START_TEST(latex_heatmap_runs_of_rows)
{
	static const int queries[2] = { 16, 29 }, runs[2] = { 2, 3 };

	for (int c = 0; c < 2; c++) {
		int n = queries[c], groups;
		char *text = heatmap_table(n), line[64];

		snprintf(line, sizeof line, "\\noindent Queries 1--12 of %d", n);
		groups = count(text, line);
		ck_assert_int_ge(groups, 1);
		snprintf(line, sizeof line, "\\noindent Queries 13--%d of %d", n < 24 ? n : 24, n);
		ck_assert_int_eq(count(text, line), groups);
		snprintf(line, sizeof line, "\\noindent Queries 25--29 of %d", n);
		ck_assert_int_eq(count(text, line), n == 29 ? groups : 0);
		ck_assert_int_eq(count(text, "\\noindent Queries "), runs[c] * groups);
		ck_assert_int_eq(count(text, "\\begin{tabular}"), runs[c] * groups);
		ck_assert_int_eq(count(text, "\\textit{queries}"), runs[c] * groups);
		/* each tabular: the \begin line, the heading and at most 12 rows */
		ck_assert_int_le(tallest(text, "\\begin{tabular}", "\\end{tabular}"), 14);
		/* every query's row once in each group of keys: n rows and a heading each */
		ck_assert_int_eq(count(text, " \\\\\n"), (n + runs[c]) * groups);
		free(text);
	}
}
END_TEST

/* A stream's write that always fails (a full disk), counting its calls. */
static ssize_t failing_write(void *cookie, const char *buf, size_t size)
{
	(void)buf;
	(void)size;
	++*(int *)cookie;
	errno = ENOSPC;
	return -1;
}

/* A write error stops the report at once: at n = 300 a whole report is tens of
 * thousands of buffers, but no more than a few writes are tried after the first
 * fails, in every format: the reports, the SVG figure (thousands of elements,
 * none written after the first failure) and the figures cairo writes (its
 * writer fails at once after the first failure); the figures' reason is the
 * write error's. */
START_TEST(write_error_stops_at_once)
{

	qkv_problem_fini(&p); /* not the worked example */
	ck_assert_int_eq(qkv_problem_random(&p, 300, 8, 8, 5), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	for (int f = 0; f < PRINT_FORMAT_COUNT; f++) {
		cookie_io_functions_t io = { .write = failing_write };
		struct print_options o = options((enum print_format)f, -1);
		char err[256] = "";
		int calls = 0;
		FILE *out = fopencookie(&calls, "w", io);

		ck_assert_ptr_nonnull(out);
		setvbuf(out, NULL, _IOFBF, 4096);
		o.err = err;
		o.err_size = sizeof err;
		ck_assert_int_eq(print_trace(out, &p, &t, &o), -1);
		ck_assert_msg(calls >= 1 && calls <= 3, "%s: %d writes tried", print_format_name(o.format),
			      calls);
		if (print_format_kind((enum print_format)f) == PRINT_KIND_FIGURE)
			ck_assert_str_eq(err, "cannot write the figure: No space left on device");
		fclose(out);
	}
}
END_TEST

/* --- the online softmax's report ------------------------------------------------- */

/* The online report of the worked example (the fixture's p), with tiles of `tile`
 * keys (with a custom mask that hides every key from query t1 when hide_t1),
 * malloc'd. */
static char *render_online(enum print_format format, int tile, bool hide_t1)
{
	struct qkv_online online;
	struct print_options o = options(format, -1);
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	qkv_online_init(&online);
	if (hide_t1) {
		ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
		memset(p.mask_bits, 0, 9);
		memset(p.mask_bits, 1, 3);
	}
	ck_assert_int_eq(qkv_online_attention(&p, tile, &online), 0);
	ck_assert_int_eq(print_online(out, &p, &online, &o), 0);
	fclose(out);
	qkv_online_fini(&online);
	return text;
}

/* The worked example read online: each query's m is its largest scaled score and
 * ℓ = Σ e^(s' − m), from the closed form; the output rows are the closed form's;
 * no stage of S, S' or A is written. */
START_TEST(online_text)
{
	struct expected x;
	char *text = render_online(PRINT_TEXT, 1, false);
	double running[3][2];

	expected_worked(&x, false);
	for (int i = 0; i < 3; i++) {
		running[i][0] = fmax(fmax(x.scaled[i][0], x.scaled[i][1]), x.scaled[i][2]);
		running[i][1] = 0.0;
		for (int j = 0; j < 3; j++)
			running[i][1] += exp(x.scaled[i][j] - running[i][0]);
	}
	ck_assert_ptr_nonnull(strstr(text, "Online softmax, tiles of 1 key\n"));
	ck_assert_ptr_nonnull(strstr(text, "S, S' and A would take 216 bytes more."));
	for (int i = 0; i < 3; i++) {
		static const char *const prefix[3] = { "  t1 ", "  t2 ", "  t3 " };
		static const char *const label[3] = { "t1", "t2", "t3" };

		check_row(text, "m and ℓ at the end", prefix[i], " ", label[i], running[i], NULL, 2, 4);
		check_row(text, "O — output (3 × 2)", prefix[i], " ", label[i], x.output[i], NULL, 2, 4);
	}
	ck_assert_ptr_null(strstr(text, "Stage"));
	free(text);
}
END_TEST

/* JSON: the facts, "algorithm", "tile", "bytes", "max" and "sum" per query,
 * the output; no "scores", "scaled", "weights" or "stats". */
START_TEST(online_json)
{
	struct expected x;
	char *text = render_online(PRINT_JSON, 2, false);
	json_t *root = parse(text);
	double output[6];

	expected_worked(&x, false);
	for (int i = 0; i < 3; i++)
		for (int c = 0; c < 2; c++)
			output[i * 2 + c] = x.output[i][c];
	ck_assert_str_eq(json_string_value(json_object_get(root, "algorithm")), "online");
	ck_assert_int_eq(json_integer_value(json_object_get(root, "tile")), 2);
	/* Q, K, V 3×2 each, O 3×2, m and ℓ 3 each, a tile's 2 scores and o's 2. */
	ck_assert_int_eq(json_integer_value(json_object_get(root, "bytes")), 8 * (4 * 6 + 6 + 2 + 2));
	check_json_matrix(root, "output", output, 3, 2, 1e-12);
	for (int i = 0; i < 3; i++) {
		double m = fmax(fmax(x.scaled[i][0], x.scaled[i][1]), x.scaled[i][2]), sum = 0.0;

		for (int j = 0; j < 3; j++)
			sum += exp(x.scaled[i][j] - m);
		ck_assert_double_eq_tol(json_number_value(json_array_get(json_object_get(root, "max"), (size_t)i)),
					m, 1e-15);
		ck_assert_double_eq_tol(json_number_value(json_array_get(json_object_get(root, "sum"), (size_t)i)),
					sum, 1e-14);
	}
	ck_assert_ptr_null(json_object_get(root, "scores"));
	ck_assert_ptr_null(json_object_get(root, "scaled"));
	ck_assert_ptr_null(json_object_get(root, "weights"));
	ck_assert_ptr_null(json_object_get(root, "stats"));
	json_decref(root);
	free(text);
}
END_TEST

/* A query that sees no key: m is −∞ (null in JSON), ℓ 0 and its output row 0. */
START_TEST(online_query_that_sees_nothing)
{
	char *text = render_online(PRINT_JSON, 1, true);
	json_t *root = parse(text);

	ck_assert(json_is_null(json_array_get(json_object_get(root, "max"), 0)));
	ck_assert(json_number_value(json_array_get(json_object_get(root, "sum"), 0)) == 0.0);
	ck_assert(json_number_value(json_array_get(json_array_get(json_object_get(root, "output"), 0), 0)) == 0.0);
	ck_assert(json_is_number(json_array_get(json_object_get(root, "max"), 1)));
	json_decref(root);
	free(text);
	text = render_online(PRINT_TEXT, 1, true);
	ck_assert_ptr_nonnull(strstr(text, "  t1    -inf  0.0000\n"));
	free(text);
}
END_TEST

/* CSV: the running values and the output as rows of the usual columns. */
START_TEST(online_csv)
{
	char *text = render_online(PRINT_CSV, 3, false);

	ck_assert(strncmp(text, "stage,row_token,col_label,row,col,value\n", 40) == 0);
	ck_assert_ptr_nonnull(strstr(text, "\nrunning,t1,m,1,1,"));
	ck_assert_ptr_nonnull(strstr(text, "\nrunning,t3,ℓ,3,2,"));
	ck_assert_int_eq(count(text, "\noutput,"), 6);
	ck_assert_int_eq(count(text, "\nscores,") + count(text, "\nweights,"), 0);
	free(text);
}
END_TEST

/* Which formats write it: the reports but LaTeX; no figure. */
START_TEST(online_formats)
{
	ck_assert(print_format_online(PRINT_TEXT) && print_format_online(PRINT_MARKDOWN));
	ck_assert(print_format_online(PRINT_CSV) && print_format_online(PRINT_JSON));
	ck_assert(!print_format_online(PRINT_LATEX) && !print_format_online(PRINT_SVG));
	ck_assert(!print_format_online(PRINT_PDF) && !print_format_online(PRINT_PNG));
}
END_TEST

/* One query "who" attending to three keys a, b, c (q = (1, 0), keys (0,0), (1,0),
 * (2,0), values (1,0), (0,1), (1,1)), in the given format, malloc'd. Its weights
 * are e^(x/√2) / Σ for x = 0, 1, 2 (the closed form below). */
static char *render_cross(enum print_format format, int stage)
{
	static const double q[] = { 1, 0 }, k[] = { 0, 0, 1, 0, 2, 0 }, v[] = { 1, 0, 0, 1, 1, 1 };
	static const char *const keys[] = { "a", "b", "c" };
	struct print_options o = options(format, stage);
	struct qkv_problem cp;
	struct qkv_trace tr;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	qkv_problem_init(&cp);
	qkv_trace_init(&tr);
	ck_assert_int_eq(qkv_problem_random_cross(&cp, 1, 3, 2, 2, 1), 0);
	cp.seeded = false;
	ck_assert_int_eq(qkv_matrix_set_all(&cp.q, 1, 2, q), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&cp.k, 3, 2, k), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&cp.v, 3, 2, v), 0);
	ck_assert_int_eq(qkv_problem_set_query_label(&cp, 0, "who"), 0);
	for (int j = 0; j < 3; j++)
		ck_assert_int_eq(qkv_problem_set_label(&cp, j, keys[j]), 0);
	ck_assert_int_eq(qkv_attention(&cp, &tr), 0);
	ck_assert_int_eq(print_trace(out, &cp, &tr, &o), 0);
	fclose(out);
	qkv_trace_fini(&tr);
	qkv_problem_fini(&cp);
	return text;
}

/* Cross-attention in every format: the query's own label on the rows of S, S',
 * A, O and the statistics, the keys' on the columns; one row of weights from the
 * closed form; the sizes say m and n. */
START_TEST(cross_in_every_format)
{
	double z = 1.0 + exp(1.0 / sqrt(2.0)) + exp(sqrt(2.0));
	double a[3] = { 1.0 / z, exp(1.0 / sqrt(2.0)) / z, exp(sqrt(2.0)) / z };
	char *text, line[512], expected[64];
	json_t *root;

	text = render_cross(PRINT_TEXT, -1);
	ck_assert_ptr_nonnull(strstr(text, "\nm = 1 query, n = 3 tokens, d_k = 2, d_v = 2\n"));
	ck_assert_ptr_nonnull(find_line(strstr(text, "Stage 3"), "  who ", line, sizeof line));
	snprintf(expected, sizeof expected, "  who  %s  %s  %s", fixed((char[32]){ 0 }, a[0], 4),
		 fixed((char[32]){ 0 }, a[1], 4), fixed((char[32]){ 0 }, a[2], 4));
	ck_assert_str_eq(line, expected);
	ck_assert_ptr_nonnull(strstr(text, "query who: row j holds a_ij · v_j for key j"));
	ck_assert_ptr_nonnull(strstr(text, "S[who,a] = q_who · k_a = "));
	ck_assert_int_eq(count(text, "\n  c "), 3); /* rows of K, V and the mix */
	free(text);

	text = render_cross(PRINT_CSV, -1);
	ck_assert_double_eq_tol(strtod(csv_value(text, "\nweights,who,c,1,3,"), NULL), a[2], 1e-15);
	ck_assert_double_eq_tol(strtod(csv_value(text, "\noutput,who,d1,1,1,"), NULL), a[0] + a[2], 1e-15);
	ck_assert_ptr_nonnull(strstr(text, "\nstats,who,max_weight,1,1,"));
	free(text);

	text = render_cross(PRINT_JSON, -1);
	root = parse(text);
	ck_assert_int_eq((int)json_integer_value(json_object_get(root, "m")), 1);
	ck_assert_int_eq((int)json_integer_value(json_object_get(root, "n")), 3);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(root, "query_tokens"), 0)), "who");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(root, "tokens"), 2)), "c");
	check_json_matrix(root, "weights", a, 1, 3, 1e-15);
	check_json_matrix(root, "output", (double[]){ a[0] + a[2], a[1] + a[2] }, 1, 2, 1e-15);
	ck_assert_int_eq((int)json_array_size(json_object_get(json_object_get(root, "stats"), "rows")), 1);
	json_decref(root);
	free(text);

	text = render_cross(PRINT_MARKDOWN, QKV_STAGE_WEIGHTS);
	ck_assert_ptr_nonnull(strstr(text, "| who |"));
	free(text);
	text = render_cross(PRINT_LATEX, -1);
	ck_assert_ptr_nonnull(strstr(text, "$m = 1$ query ("));
	ck_assert_ptr_nonnull(strstr(text, "$n = 3$ tokens ("));
	free(text);
}
END_TEST

static Suite *print_suite(void)
{
	Suite *s = suite_create("print");
	TCase *tc = tcase_create("print"), *online;

	tcase_add_checked_fixture(tc, case_setup, case_teardown);

	tcase_add_test(tc, text_header_and_stages);
	tcase_add_test(tc, text_weights_and_scaled);
	tcase_add_test(tc, text_causal_mask);
	tcase_add_test(tc, text_mix_sums_to_output);
	tcase_add_test(tc, text_decimals);
	tcase_add_test(tc, stage_filter);
	tcase_add_test(tc, stage_filter_csv);
	tcase_add_test(tc, derivation_follows_cell);
	tcase_add_test(tc, text_statistics);
	tcase_add_test(tc, markdown_tables);
	tcase_add_test(tc, latex_matrices);
	tcase_add_test(tc, latex_escapes);
	tcase_add_test(tc, csv_cells);
	tcase_add_test(tc, csv_quotes_labels);
	tcase_add_test(tc, json_contract);
	tcase_add_test(tc, cross_in_every_format);
	tcase_add_test(tc, json_contract_causal);
	tcase_add_test(tc, json_strings);
	tcase_add_test(tc, json_round_trip);
	tcase_add_test(tc, write_error);
	tcase_add_test(tc, format_names);
	tcase_add_test(tc, format_table);
	tcase_add_test(tc, sweep_json);
	tcase_add_test(tc, sweep_tables);
	tcase_add_test(tc, test_json_custom_mask_and_padding);
	tcase_add_test(tc, test_wrong_way_sums);
	tcase_add_test(tc, text_wide_labels_align);
	tcase_add_test(tc, csv_formula_labels);
	tcase_add_test(tc, wrong_sums_long_lines);
	tcase_add_test(tc, latex_long_escaped_labels);
	tcase_add_test(tc, latex_tall_tables_in_runs);
	tcase_add_test(tc, latex_runs_of_rows);
	tcase_add_test(tc, latex_heatmap_runs_of_rows);
	tcase_add_test(tc, write_error_stops_at_once);
	suite_add_tcase(s, tc);
	online = tcase_create("online");
	tcase_add_checked_fixture(online, case_setup, case_teardown);
	tcase_add_test(online, online_text);
	tcase_add_test(online, online_json);
	tcase_add_test(online, online_csv);
	tcase_add_test(online, online_query_that_sees_nothing);
	tcase_add_test(online, online_formats);
	suite_add_tcase(s, online);
	return s;
}

int main(void)
{
	return run_tap(print_suite());
}
