/* test_print_cost.c — Check suite for `qkv --cost`'s printer (src/io/report/print_cost.h):
 * a table with known times (6.2e-5·n² ms beyond n = 128) written in every format
 * and read back — the JSON with jansson against its exact contract, the counts
 * against their formulas written out here, the CSV by its lines, the text by the
 * sentences the same numbers give by hand. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/report/print_cost.h"

#include "tap_main.h"

/* n = 16 … 4096 for d_k = 64 and h heads, times exactly quadratic from n = 256. */
static void known_table(struct qkv_cost *c, int heads)
{
	ck_assert_int_eq(qkv_cost_init(c, 64, heads, 8192, 1000.0), 0);
	for (int n = 16; n <= 4096; n *= 2) {
		struct qkv_cost_row *row = &c->rows[c->count++];

		qkv_cost_row_of(n, 64, heads, row);
		row->ms = n < 256 ? 1.0 : 6.2e-5 * (double)n * n * heads;
	}
	c->done = true;
}

/* What print_cost writes, NUL-terminated (caller frees). */
static char *printed(const struct qkv_cost *c, enum print_format format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(print_cost(out, c, format), 0);
	fclose(out);
	return text;
}

/* The object has exactly these keys. */
static void expect_keys(json_t *object, const char *const *keys, size_t count)
{
	ck_assert(json_is_object(object));
	ck_assert_uint_eq(json_object_size(object), count);
	for (size_t i = 0; i < count; i++)
		ck_assert_msg(json_object_get(object, keys[i]) != NULL, "no key %s", keys[i]);
}

static long long integer(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);

	ck_assert_msg(json_is_integer(value), "%s is not an integer", key);
	return (long long)json_integer_value(value);
}

START_TEST(test_json_contract)
{
	static const char *const top[] = { "d_k", "h", "rows", "slope", "extrapolated" };
	static const char *const row_keys[] = { "n", "entries", "bytes_f64", "bytes_f16", "flops", "ms" };
	static const char *const far_keys[] = { "n", "entries", "bytes_f64", "ms" };
	int heads = _i == 0 ? 1 : 8;
	struct qkv_cost c;
	json_error_t error;
	json_t *root, *rows, *far;
	char *text;

	known_table(&c, heads);
	text = printed(&c, PRINT_JSON);
	root = json_loads(text, 0, &error);
	ck_assert_msg(root != NULL, "not JSON: %s", error.text);
	expect_keys(root, top, 5);
	ck_assert_int_eq(integer(root, "d_k"), 64);
	ck_assert_int_eq(integer(root, "h"), heads);
	ck_assert_double_eq_tol(json_number_value(json_object_get(root, "slope")), 2.0, 1e-12);
	rows = json_object_get(root, "rows");
	ck_assert_uint_eq(json_array_size(rows), 9);
	for (size_t i = 0; i < 9; i++) {
		json_t *row = json_array_get(rows, i);
		long long n = 16LL << i, square = n * n;

		expect_keys(row, row_keys, 6);
		ck_assert_int_eq(integer(row, "n"), n);
		ck_assert_int_eq(integer(row, "entries"), heads * square);
		ck_assert_int_eq(integer(row, "bytes_f64"), heads * 3 * 8 * square);
		ck_assert_int_eq(integer(row, "bytes_f16"), heads * 3 * 2 * square);
		ck_assert_int_eq(integer(row, "flops"), heads * (4 * 64 * square + 5 * square));
		ck_assert(json_number_value(json_object_get(row, "ms")) == c.rows[i].ms);
	}
	far = json_object_get(root, "extrapolated");
	ck_assert_uint_eq(json_array_size(far), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *row = json_array_get(far, i);
		long long n = i == 0 ? 10000 : 100000;
		double expected = 6.2e-5 * (double)(n * n * heads);

		expect_keys(row, far_keys, 4);
		ck_assert_int_eq(integer(row, "n"), n);
		ck_assert_int_eq(integer(row, "entries"), heads * n * n);
		ck_assert_int_eq(integer(row, "bytes_f64"), heads * 24 * n * n);
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "ms")), expected, 1e-9 * expected);
	}
	json_decref(root);
	free(text);
	qkv_cost_fini(&c);
}
END_TEST

START_TEST(test_csv_rows)
{
	struct qkv_cost c;
	char *text, *line;
	int lines = 0;

	known_table(&c, 1);
	text = printed(&c, PRINT_CSV);
	ck_assert(strncmp(text, "kind,n,entries,bytes_f64,bytes_f16,flops,ms\n", 44) == 0);
	for (line = text; (line = strchr(line, '\n')) != NULL; line++)
		lines++;
	ck_assert_int_eq(lines, 1 + 9 + 2);
	ck_assert_ptr_nonnull(strstr(text, "\nmeasured,4096,16777216,402653184,100663296,4378853376,"));
	ck_assert_ptr_nonnull(strstr(text, "\nextrapolated,10000,100000000,2400000000,600000000,"));
	free(text);
	qkv_cost_fini(&c);
}
END_TEST

START_TEST(test_text_sentences)
{
	struct qkv_cost c;
	char *text;

	known_table(&c, 8);
	text = printed(&c, PRINT_TEXT);
	ck_assert_ptr_nonnull(strstr(text, "least squares, n >= 256): 2.00,"));
	/* 8·10⁸ scores; 6.2e-5·10⁸·8 ms = 49.6 s. */
	ck_assert_ptr_nonnull(strstr(text, "10,000 tokens: 800 million scores, 6.4 GB in double for the scores "
					   "alone (19.2 GB for S, S' and A), per layer of 8 heads; this machine "
					   "would take about 49.6 s (as n² from the 4,096-token row; the fitted "
					   "slope, 2.00, gives 49.6 s)."));
	ck_assert_ptr_nonnull(strstr(text, "8 heads of d_k = 64 against one head of d_k = 512"));
	ck_assert_ptr_nonnull(strstr(text, "\n  4096    134,217,728 ")); /* 8 · 4096² scores */
	free(text);
	qkv_cost_fini(&c);
}
END_TEST

START_TEST(test_latex_refused)
{
	struct qkv_cost c;
	FILE *out = tmpfile();

	known_table(&c, 1);
	ck_assert_int_eq(print_cost(out, &c, PRINT_LATEX), -1);
	fclose(out);
	qkv_cost_fini(&c);
}
END_TEST

static Suite *print_cost_suite(void)
{
	Suite *s = suite_create("print_cost");
	TCase *formats = tcase_create("formats");

	tcase_add_loop_test(formats, test_json_contract, 0, 2);
	tcase_add_test(formats, test_csv_rows);
	tcase_add_test(formats, test_text_sentences);
	tcase_add_test(formats, test_latex_refused);
	suite_add_tcase(s, formats);
	return s;
}

int main(void)
{
	return run_tap(print_cost_suite());
}
