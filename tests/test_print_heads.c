/* test_print_heads.c — Check suite for the printed report of a multi-head problem
 * (io/print_heads.h): the JSON object's keys and shapes, its output against
 * Concat · W_O multiplied here from the JSON's own numbers, each head's block of
 * the concatenation against that head's output, each head against the one-head
 * report of a problem built from that head's projections, the text formats'
 * sections and shares (which must add up as shown), and every CSV and JSON number
 * of a one-head and a multi-head report read back as the double it came from. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/problem/load.h"
#include "io/report/print.h"
#include "io/report/print_heads.h"
#include "qkv/attention.h"
#include "qkv/error.h"
#include "qkv/heads.h"

#include "tap_main.h"

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

/* A problem from JSON text, loaded, with its multi-head trace. */
static void load_text(const char *text, size_t length, struct qkv_problem *p,
		      struct qkv_heads_trace *t)
{
	char err[512];

	qkv_problem_init(p);
	ck_assert_msg(load_string(text, length, "f.json", p, err, sizeof err) == 0, "%s", err);
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

/* A one-head report of t in o's format, as a string the caller frees. */
static char *render_one(const struct qkv_problem *p, const struct qkv_trace *t,
			const struct print_options *o)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(print_trace(out, p, t, o), 0);
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
						"{\\large\\bfseries Head 2 of 3\\par}" };
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
		/* LaTeX writes the numbers as math: "head $1$ $0.25 +$ head $2$ …". */
		line = strstr(text, formats[f] == PRINT_LATEX ? "head $1$ $" : "] = head 1 ");
		ck_assert_ptr_nonnull(line);
		ck_assert_int_eq(sscanf(line, formats[f] == PRINT_LATEX
					? "head $1$ $%lf +$ head $2$ $%lf +$ head $3$ $%lf = %lf"
					: "] = head 1 %lf + head 2 %lf + head 3 %lf = %lf", &a, &b, &c, &total), 4);
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
	char *csv;

	load_text(text, sizeof text - 1, &p, &t);
	csv = render(&p, &t, PRINT_CSV);
	ck_assert_ptr_nonnull(strstr(csv, "\n,concat,'=a,h1d1,1,1,"));
	ck_assert_ptr_null(strstr(csv, ",concat,=a,"));
	free(csv);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The matrix a CSV stage or a JSON key names: an input of p (X, W_Q, W_K, W_V)
 * or a stage of t; NULL for any other name. */
static const struct qkv_matrix *named(const struct qkv_problem *p, const struct qkv_trace *t,
				      const char *name)
{
	const struct {
		const char *name;
		const struct qkv_matrix *m;
	} table[] = {
		{ "X", &p->x }, { "W_Q", &p->w_q }, { "W_K", &p->w_k }, { "W_V", &p->w_v },
		{ "Q", &t->q }, { "K", &t->k }, { "V", &t->v }, { "scores", &t->scores },
		{ "scaled", &t->scaled }, { "weights", &t->weights }, { "output", &t->output },
	};

	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].m;
	return NULL;
}

/* The length of the shortest of printf's "%.1g" … "%.17g" of value that reads
 * back as value (a second method for the CSV's shortest exact form). */
static long shortest_length(double value)
{
	char text[64];

	for (int digits = 1; digits < 17; digits++) {
		snprintf(text, sizeof text, "%.*g", digits, value);
		if (strtod(text, NULL) == value)
			return (long)strlen(text);
	}
	return (long)snprintf(text, sizeof text, "%.17g", value);
}

/* Every value of a CSV report read back with strtod is the double it was written
 * from: the input's, the trace's (each head's, or the heads' together when the
 * head column is empty), a statistic, or a_ij · v_jc of the mix table (query
 * `query`), and written no longer than it needs to be. Returns the count of
 * values checked. */
static int csv_round_trip(const char *csv, const struct qkv_problem *p,
			  const struct qkv_trace *one, const struct qkv_heads_trace *ht, int query)
{
	const char *line = strchr(csv, '\n') + 1;
	int checked = 0;

	for (; *line != '\0'; line = strchr(line, '\n') + 1) {
		const char *end = strchr(line, '\n'), *field[8];
		int count = 0, head = -1;
		char stage[32];

		ck_assert_ptr_nonnull(end);
		field[count++] = line;
		for (const char *c = line; c < end; c++)
			if (*c == ',' && count < 8)
				field[count++] = c + 1;
		ck_assert_int_eq(count, ht != NULL ? 7 : 6); /* labels hold no commas here */
		if (ht != NULL) {
			if (field[0][0] != ',')
				head = atoi(field[0]) - 1;
			memmove(field, field + 1, 6 * sizeof field[0]);
		}
		snprintf(stage, sizeof stage, "%.*s", (int)(field[1] - 1 - field[0]), field[0]);
		int row = atoi(field[3]) - 1, col = atoi(field[4]) - 1;
		const struct qkv_trace *t = ht == NULL ? one : head >= 0 ? &ht->head[head] : NULL;
		struct qkv_problem view = *p;
		const struct qkv_matrix *m;
		double expected;
		char *after;

		if (field[5] == end) /* a masked score: empty */
			continue;
		if (ht != NULL && head >= 0)
			qkv_problem_head_view(p, head, &view);
		if (t == NULL)
			m = strcmp(stage, "concat") == 0 ? &ht->concat
				: strcmp(stage, "W_O") == 0 ? &p->w_o
				: strcmp(stage, "output") == 0 ? &ht->output : NULL;
		else
			m = named(&view, t, stage);
		if (m != NULL) {
			expected = qkv_matrix_get(m, row, col);
		} else if (t != NULL && strcmp(stage, "stats") == 0) {
			const struct qkv_row_stats *s = &t->rows[row];
			const double values[] = { s->max_weight, s->entropy, s->effective_tokens,
						  s->jacobian_norm };

			expected = values[col];
		} else {
			ck_assert_msg(t != NULL && strcmp(stage, "mix") == 0, "stage %s", stage);
			expected = qkv_trace_mix(t, query, row, col);
		}
		ck_assert_msg(strtod(field[5], &after) == expected && after == end,
			      "%s (%d,%d): %.*s is not %.17g", stage, row + 1, col + 1,
			      (int)(end - field[5]), field[5], expected);
		ck_assert_msg(end - field[5] <= shortest_length(expected), "%s (%d,%d): %.*s is longer "
			      "than it needs", stage, row + 1, col + 1, (int)(end - field[5]), field[5]);
		checked++;
	}
	return checked;
}

/* How many numbers the JSON value holds, at any depth. */
static int json_numbers(json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;
	int count = json_is_number(v) ? 1 : 0;

	if (json_is_array(v))
		json_array_foreach(v, i, item)
			count += json_numbers(item);
	if (json_is_object(v))
		json_object_foreach(v, key, item)
			count += json_numbers(item);
	return count;
}

/* m's entries in the JSON array of rows read back as themselves (null where
 * masked); the count of numbers checked. */
static int json_matrix_round_trip(json_t *rows, const struct qkv_matrix *m, const char *name)
{
	int checked = 0;

	ck_assert_uint_eq(json_array_size(rows), (size_t)m->rows);
	for (int r = 0; r < m->rows; r++)
		for (int c = 0; c < m->cols; c++) {
			json_t *v = json_array_get(json_array_get(rows, (size_t)r), (size_t)c);

			if (json_is_null(v))
				continue;
			ck_assert_msg(json_number_value(v) == qkv_matrix_get(m, r, c),
				      "%s (%d,%d): %.17g is not %.17g", name, r + 1, c + 1,
				      json_number_value(v), qkv_matrix_get(m, r, c));
			checked++;
		}
	return checked;
}

/* A one-head report's (or one head's) matrices, statistics, divisor and
 * temperature read back as the doubles of p and t; the count checked. */
static int json_one_round_trip(json_t *o, const struct qkv_problem *p, const struct qkv_trace *t)
{
	const char *key;
	json_t *v, *stats = json_object_get(o, "stats"), *row;
	size_t i;
	int checked = 0;

	json_object_foreach(o, key, v) {
		const struct qkv_matrix *m = named(p, t, key);

		if (m != NULL && json_is_array(v))
			checked += json_matrix_round_trip(v, m, key);
	}
	if (json_object_get(o, "divisor") != NULL) {
		ck_assert(json_number_value(json_object_get(o, "divisor")) == t->divisor);
		ck_assert(json_number_value(json_object_get(o, "temperature")) == p->temperature);
		checked += 2;
	}
	ck_assert(json_number_value(json_object_get(stats, "score_variance")) == t->score_variance);
	checked++;
	json_array_foreach(json_object_get(stats, "rows"), i, row) {
		const struct qkv_row_stats *s = &t->rows[i];

		ck_assert(json_number_value(json_object_get(row, "max_weight")) == s->max_weight);
		ck_assert(json_number_value(json_object_get(row, "entropy")) == s->entropy);
		ck_assert(json_number_value(json_object_get(row, "effective_tokens"))
			  == s->effective_tokens);
		ck_assert(json_number_value(json_object_get(row, "jacobian_norm")) == s->jacobian_norm);
		checked += 4;
	}
	return checked;
}

/* The numbers of a JSON report that are not sizes (n, h, d_model, d_k, d_v). */
static int json_values(json_t *root)
{
	static const char *const sizes[] = { "n", "h", "d_model", "d_k", "d_v" };
	int count = json_numbers(root);

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		count -= json_numbers(json_object_get(root, sizes[i]));
	return count;
}

/* Every number of the CSV and JSON reports, one-head and multi-head, reads back
 * (strtod, jansson) as the very double it was written from: the CSV's shortest
 * exact form (one rule for one head and many) and the JSON's %.17g. Random N(0,1) problems, so the values are not
 * short decimals; a causal mask, so that masked cells are skipped as written. */
START_TEST(csv_and_json_numbers_round_trip)
{
	struct qkv_problem p;
	struct qkv_trace t;
	struct qkv_heads_trace ht;
	struct print_options o;
	json_t *root, *head;
	size_t i;
	char *text;
	int checked;

	/* One head (the direct form), the mix table of query 3. */
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 5, 3, 2, 7), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	print_options_default(&o);
	o.cell_row = 2;
	o.format = PRINT_CSV;
	text = render_one(&p, &t, &o);
	/* Q, K, V, scores, scaled (10 of 25 masked each), weights, stats, mix, output. */
	ck_assert_int_eq(csv_round_trip(text, &p, &t, NULL, 2),
			 15 + 15 + 10 + 15 + 15 + 25 + 20 + 10 + 10);
	free(text);
	o.format = PRINT_JSON;
	text = render_one(&p, &t, &o);
	root = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(root);
	checked = json_one_round_trip(root, &p, &t);
	ck_assert_int_eq(checked, json_values(root));
	ck_assert_int_gt(checked, 100);
	json_decref(root);
	free(text);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);

	/* Three heads. */
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random_heads(&p, 4, 3, 6, 19), 0);
	qkv_heads_trace_init(&ht);
	ck_assert_int_eq(qkv_heads_attention(&p, &ht), 0);
	text = render(&p, &ht, PRINT_CSV);
	/* Per head: X, W_Q, W_K, W_V, Q, K, V, scores, scaled, weights, stats, mix,
	 * output; then concat, W_O and output. */
	ck_assert_int_eq(csv_round_trip(text, &p, NULL, &ht, 0),
			 3 * (24 + 3 * 12 + 3 * 8 + 3 * 16 + 16 + 8 + 8) + 24 + 36 + 24);
	free(text);
	text = render(&p, &ht, PRINT_JSON);
	root = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(root);
	checked = json_matrix_round_trip(json_object_get(root, "X"), &p.x, "X")
		+ json_matrix_round_trip(json_object_get(root, "concat"), &ht.concat, "concat")
		+ json_matrix_round_trip(json_object_get(root, "W_O"), &p.w_o, "W_O")
		+ json_matrix_round_trip(json_object_get(root, "output"), &ht.output, "output");
	ck_assert(json_number_value(json_object_get(root, "divisor")) == ht.head[0].divisor);
	ck_assert(json_number_value(json_object_get(root, "temperature")) == p.temperature);
	checked += 2;
	json_array_foreach(json_object_get(root, "heads"), i, head) {
		struct qkv_problem view;

		qkv_problem_head_view(&p, (int)i, &view);
		checked += json_one_round_trip(head, &view, &ht.head[i]);
	}
	ck_assert_int_eq(checked, json_values(root));
	json_decref(root);
	free(text);
	qkv_heads_trace_fini(&ht);
	qkv_problem_fini(&p);
}
END_TEST

/* The Markdown of a multi-head report's own part escapes as a one-head report
 * does: the table titles (W_O as W\_O), the row labels and the sentences, so a
 * token "a|b" neither splits a table row nor a "*c*" turns into emphasis. */
START_TEST(markdown_titles_and_labels_escaped)
{
	static const char text[] = "{\"tokens\": [\"a|b\", \"*c*\"], \"X\": [[1, 0], [0, 1]],"
		" \"heads\": [{\"W_Q\": [[1], [0]], \"W_K\": [[1], [0]], \"W_V\": [[1], [0]]},"
		" {\"W_Q\": [[0], [1]], \"W_K\": [[0], [1]], \"W_V\": [[0], [1]]}],"
		" \"W_O\": [[1, 0], [0, 1]]}";
	struct qkv_problem p;
	struct qkv_heads_trace t;
	char *md;
	const char *together, *row;

	load_text(text, sizeof text - 1, &p, &t);
	md = render(&p, &t, PRINT_MARKDOWN);
	together = strstr(md, "# The heads together");
	ck_assert_ptr_nonnull(together);
	ck_assert_ptr_nonnull(strstr(together, "\n## Concat — the heads' outputs side by side (2 × 2)\n"));
	ck_assert_ptr_nonnull(strstr(together, "\n## W\\_O — the output projection (2 × 2)\n"));
	ck_assert_ptr_nonnull(strstr(together, "\n## Output — Concat · W\\_O (2 × 2)\n"));
	ck_assert_ptr_null(strstr(together, "W_O"));
	/* Row labels in both token tables, and the first token in the sentence. */
	row = strstr(together, "\n| a\\|b |");
	ck_assert_ptr_nonnull(row);
	ck_assert_ptr_nonnull(strstr(row + 1, "\n| a\\|b |"));
	row = strstr(together, "\n| \\*c\\* |");
	ck_assert_ptr_nonnull(row);
	ck_assert_ptr_nonnull(strstr(row + 1, "\n| \\*c\\* |"));
	ck_assert_ptr_nonnull(strstr(together, "\nout\\[a\\|b, d1\\] = "));
	ck_assert_ptr_null(strstr(together, "a|b"));
	ck_assert_ptr_null(strstr(together, "*c*"));
	free(md);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The LaTeX of a multi-head report's own part (after the heads' one-head reports,
 * checked in test_print.c) is written as a one-head report's prose is: the
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
	together = strstr(text, "{\\large\\bfseries The heads together");
	ck_assert_ptr_nonnull(together);
	for (size_t g = 0; g < sizeof glyphs / sizeof *glyphs; g++)
		ck_assert_msg(strstr(together, glyphs[g]) == NULL, "raw %s in the LaTeX", glyphs[g]);
	ck_assert_ptr_nonnull(strstr(together, "\\textbf{Concat --- the heads' outputs side by side $("));
	ck_assert_ptr_nonnull(strstr(together, "\\textbf{Output --- Concat $\\cdot  W_{O}$ $("));
	ck_assert_ptr_nonnull(strstr(together, "\\sum_{k}$ $\\mathrm{concat}_{"));
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
	tcase_add_test(c, csv_and_json_numbers_round_trip);
	tcase_add_test(c, markdown_titles_and_labels_escaped);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return run_tap(print_heads_suite());
}
