/* test_print_heads.c — Check suite for the printed report of a multi-head problem
 * (io/print_heads.h): the JSON object's keys and shapes, its output against
 * Concat · W_O multiplied here from the JSON's own numbers, each head's block of
 * the concatenation against that head's output, each head against the one-head
 * report of a problem built from that head's projections, and the text formats'
 * sections and shares (which must add up as shown). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/load.h"
#include "io/print.h"
#include "io/print_heads.h"
#include "qkv/error.h"
#include "qkv/heads.h"

/* A sample problem by name, loaded, with its multi-head trace. */
static void load_sample(const char *name, struct qkv_problem *p, struct qkv_heads_trace *t)
{
	char path[1024], err[512];

	snprintf(path, sizeof path, "%s/samples/%s.json", getenv("QKV_SOURCE_ROOT"), name);
	qkv_problem_init(p);
	ck_assert_msg(load_file(path, p, err, sizeof err) == 0, "%s", err);
	qkv_heads_trace_init(t);
	ck_assert_int_eq(qkv_heads_attention(p, t), 0);
}

/* The report in a format, as a string the caller frees. */
static char *render(const struct qkv_problem *p, const struct qkv_heads_trace *t,
		    enum print_format format)
{
	struct print_options o;
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	ck_assert_ptr_nonnull(out);
	print_options_default(&o);
	o.format = format;
	ck_assert_int_eq(print_heads(out, p, t, &o), 0);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

static double at(json_t *m, size_t r, size_t c)
{
	return json_number_value(json_array_get(json_array_get(m, r), c));
}

START_TEST(json_object_and_output)
{
	static const char *const keys[] = { "W_Q", "W_K", "W_V", "Q", "K", "V", "scores",
					    "scaled", "weights", "output", "stats" };
	struct qkv_problem p;
	struct qkv_heads_trace t;
	json_error_t error;
	char *text;
	json_t *root, *heads, *concat, *w_o, *output;
	size_t n, h, d_v, d_model;

	load_sample("heads-three-ways", &p, &t);
	text = render(&p, &t, PRINT_JSON);
	root = json_loads(text, 0, &error);
	ck_assert_msg(root != NULL, "%s", error.text);
	h = (size_t)json_integer_value(json_object_get(root, "h"));
	n = (size_t)json_integer_value(json_object_get(root, "n"));
	d_v = (size_t)json_integer_value(json_object_get(root, "d_v"));
	ck_assert_uint_eq(h, 3);
	heads = json_object_get(root, "heads");
	ck_assert_uint_eq(json_array_size(heads), h);
	for (size_t i = 0; i < h; i++) {
		json_t *head = json_array_get(heads, i);

		ck_assert_uint_eq(json_object_size(head), sizeof keys / sizeof keys[0]);
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			ck_assert_msg(json_object_get(head, keys[k]) != NULL, "head %zu lacks %s", i,
				      keys[k]);
	}
	concat = json_object_get(root, "concat");
	w_o = json_object_get(root, "W_O");
	output = json_object_get(root, "output");
	ck_assert_ptr_nonnull(json_object_get(root, "X"));
	d_model = json_array_size(json_array_get(output, 0));
	ck_assert_uint_eq(json_array_size(concat), n);
	ck_assert_uint_eq(json_array_size(json_array_get(concat, 0)), h * d_v);
	ck_assert_uint_eq(json_array_size(w_o), h * d_v);
	for (size_t r = 0; r < n; r++) {
		/* Each head's block of concat is its output. */
		for (size_t i = 0; i < h; i++)
			for (size_t c = 0; c < d_v; c++)
				ck_assert(at(concat, r, i * d_v + c) ==
					  at(json_object_get(json_array_get(heads, i), "output"), r, c));
		/* Output = Concat · W_O, multiplied here. */
		for (size_t c = 0; c < d_model; c++) {
			double sum = 0.0;

			for (size_t k = 0; k < h * d_v; k++)
				sum += at(concat, r, k) * at(w_o, k, c);
			ck_assert_double_eq_tol(at(output, r, c), sum, 1e-12);
		}
	}
	/* Causal: the scores above the diagonal are null, the weights 0. */
	ck_assert(json_is_null(json_array_get(json_array_get(
		json_object_get(json_array_get(heads, 0), "scores"), 0), 1)));
	json_decref(root);
	free(text);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* Each head's numbers in the JSON are those of the one-head report of a problem
 * built from that head's projections (a copy, not the view the printer uses). */
START_TEST(json_heads_are_one_head_reports)
{
	struct qkv_problem p;
	struct qkv_heads_trace t;
	json_t *root, *heads;
	char *text;

	load_sample("heads-content", &p, &t);
	text = render(&p, &t, PRINT_JSON);
	root = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(root);
	heads = json_object_get(root, "heads");
	for (int i = 0; i < p.h; i++) {
		struct qkv_problem single;
		struct qkv_trace trace;
		struct print_options o;
		char *one = NULL;
		size_t length = 0;
		FILE *out;
		json_t *doc;

		qkv_problem_init(&single);
		ck_assert_int_eq(qkv_problem_random(&single, p.n, 1, 1, 1), 0);
		single.seeded = false;
		single.form = QKV_FORM_PROJECTED;
		qkv_matrix_fini(&single.q);
		qkv_matrix_fini(&single.k);
		qkv_matrix_fini(&single.v);
		ck_assert_int_eq(qkv_matrix_copy(&single.x, &p.x), 0);
		ck_assert_int_eq(qkv_matrix_copy(&single.w_q, &p.heads[i].w_q), 0);
		ck_assert_int_eq(qkv_matrix_copy(&single.w_k, &p.heads[i].w_k), 0);
		ck_assert_int_eq(qkv_matrix_copy(&single.w_v, &p.heads[i].w_v), 0);
		qkv_trace_init(&trace);
		ck_assert_int_eq(qkv_attention(&single, &trace), 0);
		out = open_memstream(&one, &length);
		print_options_default(&o);
		o.format = PRINT_JSON;
		ck_assert_int_eq(print_trace(out, &single, &trace, &o), 0);
		fclose(out);
		doc = json_loads(one, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		ck_assert(json_equal(json_object_get(doc, "weights"),
				     json_object_get(json_array_get(heads, (size_t)i), "weights")));
		ck_assert(json_equal(json_object_get(doc, "output"),
				     json_object_get(json_array_get(heads, (size_t)i), "output")));
		json_decref(doc);
		free(one);
		qkv_trace_fini(&trace);
		qkv_problem_fini(&single);
	}
	json_decref(root);
	free(text);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* Text, Markdown and LaTeX: a section a head, then the heads together; the shares
 * of the example cell add up to its shown total. CSV: a head column. */
START_TEST(text_formats_sections_and_shares)
{
	static const enum print_format formats[] = { PRINT_TEXT, PRINT_MARKDOWN, PRINT_LATEX };
	static const char *const head_two[] = { "════ Head 2 of 3 ════", "# Head 2 of 3",
						"\\section*{Head 2 of 3}" };
	struct qkv_problem p;
	struct qkv_heads_trace t;
	char *text;

	load_sample("heads-three-ways", &p, &t);
	for (int f = 0; f < 3; f++) {
		const char *line;
		double a, b, c, total;

		text = render(&p, &t, formats[f]);
		ck_assert_msg(strstr(text, head_two[f]) != NULL, "format %d: no head 2 section", f);
		ck_assert_ptr_nonnull(strstr(text, "Concat"));
		ck_assert_ptr_nonnull(strstr(text, "W"));
		line = strstr(text, "] = head 1 ");
		ck_assert_ptr_nonnull(line);
		ck_assert_int_eq(sscanf(line, "] = head 1 %lf + head 2 %lf + head 3 %lf = %lf", &a, &b, &c,
					&total), 4);
		ck_assert_double_eq_tol(a + b + c, total, 1e-9);
		free(text);
	}
	/* A figure format writes no multi-head report: refused, nothing written. */
	{
		struct print_options o;
		char *none = NULL;
		size_t length = 0;
		FILE *out = open_memstream(&none, &length);

		ck_assert_ptr_nonnull(out);
		print_options_default(&o);
		o.format = PRINT_SVG;
		ck_assert_int_eq(print_heads(out, &p, &t, &o), -1);
		ck_assert_int_eq(fclose(out), 0);
		ck_assert_uint_eq(length, 0);
		free(none);
	}
	text = render(&p, &t, PRINT_CSV);
	ck_assert(strncmp(text, "head,stage,row_token,", 21) == 0);
	ck_assert_ptr_nonnull(strstr(text, "\n1,X,the,"));
	ck_assert_ptr_nonnull(strstr(text, "\n3,weights,"));
	ck_assert_ptr_nonnull(strstr(text, "\n,concat,sat,h1d1,3,1,"));
	ck_assert_ptr_nonnull(strstr(text, "\n,W_O,h2d1,d2,2,2,1\n"));
	free(text);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* A label a spreadsheet would run as a formula gets a ' in the concatenation's rows. */
START_TEST(csv_guards_formula_labels)
{
	static const char text[] = "{\"tokens\": [\"=a\", \"b\"], \"X\": [[1, 0], [0, 1]],"
		" \"heads\": [{\"W_Q\": [[1], [0]], \"W_K\": [[1], [0]], \"W_V\": [[1], [0]]}],"
		" \"W_O\": [[1, 0]]}";
	struct qkv_problem p;
	struct qkv_heads_trace t;
	char err[256], *csv;

	qkv_problem_init(&p);
	ck_assert_msg(load_string(text, sizeof text - 1, "f.json", &p, err, sizeof err) == 0, "%s", err);
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	csv = render(&p, &t, PRINT_CSV);
	ck_assert_ptr_nonnull(strstr(csv, "\n,concat,'=a,h1d1,1,1,"));
	ck_assert_ptr_null(strstr(csv, ",concat,=a,"));
	free(csv);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The LaTeX of a multi-head report's own part (after the heads' one-head reports,
 * whose derivations are verbatim) is written as a one-head report's prose is: the
 * printer's glyphs as LaTeX (— as ---, · as $\cdot$, Σ, ×, ᵀ in math), never as
 * raw UTF-8, so that pdflatex compiles it. */
START_TEST(latex_glyphs_as_latex)
{
	static const char *const glyphs[] = { "—", "·", "Σ", "×", "ᵀ", "√", "÷", "≤", "τ" };
	struct qkv_problem p;
	struct qkv_heads_trace t;
	char *text;
	const char *together;

	load_sample("heads-three-ways", &p, &t);
	text = render(&p, &t, PRINT_LATEX);
	together = strstr(text, "\\section*{The heads together");
	ck_assert_ptr_nonnull(together);
	for (size_t g = 0; g < sizeof glyphs / sizeof *glyphs; g++)
		ck_assert_msg(strstr(together, glyphs[g]) == NULL, "raw %s in the LaTeX", glyphs[g]);
	ck_assert_ptr_nonnull(strstr(together, "\\paragraph{Concat --- the heads' outputs side by side ("));
	ck_assert_ptr_nonnull(strstr(together, "\\paragraph{Output --- Concat $\\cdot$ W\\_O ("));
	ck_assert_ptr_nonnull(strstr(together, "$\\Sigma$\\_k concat["));
	free(text);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

static Suite *print_heads_suite(void)
{
	Suite *s = suite_create("print_heads");
	TCase *c = tcase_create("print_heads");

	tcase_add_test(c, json_object_and_output);
	tcase_add_test(c, json_heads_are_one_head_reports);
	tcase_add_test(c, text_formats_sections_and_shares);
	tcase_add_test(c, csv_guards_formula_labels);
	tcase_add_test(c, latex_glyphs_as_latex);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(print_heads_suite());
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
