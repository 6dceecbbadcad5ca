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
#include "io/report/print_model.h"

#include "lcg.h"
#include "tap_main.h"

/* n = 16 … 4096 for d_k = 64 and h heads, both algorithms, medians exactly
 * quadratic from n = 256 (the online's twice the standard's), the runs 0.5 to
 * 1.5 times the median; a peak resident memory of 420 MB. */
static void known_table(struct qkv_cost *c, int heads)
{
	ck_assert_int_eq(qkv_cost_init(c, 64, heads, 8192, 1000.0, QKV_COST_BOTH), 0);
	for (int n = 16; n <= 4096; n *= 2) {
		struct qkv_cost_row *row = &c->rows[c->count++];
		double ms = n < 256 ? 1.0 : 6.2e-5 * (double)n * n * heads;

		qkv_cost_row_of(n, 64, heads, row);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
			double median = a == QKV_COST_ONLINE ? 2.0 * ms : ms;

			row->time[a] = (struct qkv_cost_time){ median, 0.5 * median, 1.5 * median, 3,
							       row->time[a].bytes };
		}
	}
	c->peak_resident_bytes = 420000000;
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

/* The JSON: a row per n and algorithm with the counts written out here (d = 64):
 * the standard holds 8·(5nd + 3n²) bytes, the online 8·4nd plus its blocks,
 * 8·(64·64·5 + 2·64) for n >= 64; the slopes of time (2 for both) and bytes
 * (about 2 and about 1); extrapolated rows with the range of the runs. */
START_TEST(test_json_contract)
{
	static const char *const top[] = { "d_k", "h", "tile", "rows", "slopes", "peak_resident_bytes",
					   "extrapolated" };
	static const char *const standard_keys[] = { "n", "algorithm", "entries", "bytes_f64", "bytes_f16", "flops",
						     "bytes", "ms", "ms_min", "ms_max", "runs" };
	static const char *const online_keys[] = { "n", "algorithm", "entries", "flops", "bytes", "ms", "ms_min",
						   "ms_max", "runs" };
	int heads = _i == 0 ? 1 : 8;
	struct qkv_cost c;
	json_error_t error;
	json_t *root, *rows, *far, *slopes;
	char *text;

	known_table(&c, heads);
	text = printed(&c, PRINT_JSON);
	root = json_loads(text, 0, &error);
	ck_assert_msg(root != NULL, "not JSON: %s", error.text);
	expect_keys(root, top, 7);
	ck_assert_int_eq(integer(root, "d_k"), 64);
	ck_assert_int_eq(integer(root, "h"), heads);
	ck_assert_int_eq(integer(root, "tile"), 64);
	ck_assert_int_eq(integer(root, "peak_resident_bytes"), 420000000);
	slopes = json_object_get(root, "slopes");
	for (int a = 0; a < 2; a++) {
		json_t *fit = json_object_get(slopes, a == 0 ? "standard" : "online");

		ck_assert_double_eq_tol(json_number_value(json_object_get(fit, "ms")), 2.0, 1e-12);
		ck_assert_double_eq_tol(json_number_value(json_object_get(fit, "bytes")), a == 0 ? 2.0 : 1.0, 0.15);
	}
	rows = json_object_get(root, "rows");
	ck_assert_uint_eq(json_array_size(rows), 18);
	for (size_t i = 0; i < 18; i++) {
		json_t *row = json_array_get(rows, i);
		long long n = 16LL << (i / 2), square = n * n, tile = n < 64 ? n : 64;
		bool online = i % 2 == 1;
		long long bytes = online ? 8 * (4 * n * 64 + 64 * 64 + 64 * tile + tile * 64 + 64 * tile + 64 * 64 + 128)
					 : 8 * (5 * n * 64 + 3 * square);

		if (online)
			expect_keys(row, online_keys, 9);
		else
			expect_keys(row, standard_keys, 11);
		ck_assert_str_eq(json_string_value(json_object_get(row, "algorithm")), online ? "online" : "standard");
		ck_assert_int_eq(integer(row, "n"), n);
		ck_assert_int_eq(integer(row, "entries"), heads * square);
		if (!online) {
			ck_assert_int_eq(integer(row, "bytes_f64"), heads * 3 * 8 * square);
			ck_assert_int_eq(integer(row, "bytes_f16"), heads * 3 * 2 * square);
		}
		ck_assert_int_eq(integer(row, "bytes"), heads * bytes);
		ck_assert_int_eq(integer(row, "flops"), heads * (4 * 64 * square + 5 * square));
		ck_assert(json_number_value(json_object_get(row, "ms")) == c.rows[i / 2].time[online].ms);
		ck_assert(json_number_value(json_object_get(row, "ms_min")) == 0.5 * c.rows[i / 2].time[online].ms);
		ck_assert(json_number_value(json_object_get(row, "ms_max")) == 1.5 * c.rows[i / 2].time[online].ms);
	}
	far = json_object_get(root, "extrapolated");
	ck_assert_uint_eq(json_array_size(far), 4);
	for (size_t i = 0; i < 4; i++) {
		json_t *row = json_array_get(far, i);
		long long n = i < 2 ? 10000 : 100000;
		double expected = 6.2e-5 * (double)(n * n * heads) * (i % 2 == 1 ? 2.0 : 1.0);

		ck_assert_int_eq(integer(row, "n"), n);
		ck_assert_int_eq(integer(row, "entries"), heads * n * n);
		ck_assert_ptr_null(json_object_get(row, "runs"));
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "ms")), expected, 1e-9 * expected);
		/* The fitted line (exactly n²) lies inside the runs' range. */
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "ms_min")), 0.5 * expected,
					1e-9 * expected);
		ck_assert_double_eq_tol(json_number_value(json_object_get(row, "ms_max")), 1.5 * expected,
					1e-9 * expected);
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
	const char *header = "kind,n,algorithm,entries,bytes_f64,bytes_f16,flops,bytes,ms,ms_min,ms_max\n";

	known_table(&c, 1);
	text = printed(&c, PRINT_CSV);
	ck_assert(strncmp(text, header, strlen(header)) == 0);
	for (line = text; (line = strchr(line, '\n')) != NULL; line++)
		lines++;
	ck_assert_int_eq(lines, 1 + 18 + 4);
	/* 8·(5·4096·64 + 3·4096²) = 413,138,944 bytes held. */
	ck_assert_ptr_nonnull(strstr(text, "\nmeasured,4096,standard,16777216,402653184,100663296,4378853376,413138944,"));
	/* 8·4·4096·64 + 8·20,608 = 8,553,472: no S, S', A. */
	ck_assert_ptr_nonnull(strstr(text, "\nmeasured,4096,online,16777216,,,4378853376,8553472,"));
	ck_assert_ptr_nonnull(strstr(text, "\nextrapolated,10000,standard,100000000,2400000000,600000000,"));
	free(text);
	qkv_cost_fini(&c);
}
END_TEST

/* The text's sentences with the same numbers worked by hand: 8 heads, 8·10⁸
 * scores at 10,000 tokens; the standard's median 6.2e-5·10⁸·8 ms = 49.6 s, its
 * runs half and one and a half times that, 24.8 to 74.4 s, in minutes (the larger is over 59.95 s) "0.41 to 1.2 min"; the
 * online's twice as much, 49.6 to 148.8 s, "0.83 to 2.5 min"; bytes held
 * 8·8·(5·10⁴·64 + 3·10⁸) = 19.4 GB and 8·(8·4·10⁴·64 + 164,864) = 165 MB. */
START_TEST(test_text_sentences)
{
	struct qkv_cost c;
	char *text;

	known_table(&c, 8);
	text = printed(&c, PRINT_TEXT);
	{
		/* The bytes' slopes: near 2 for the n² the standard holds (its 5nd pulls it
		 * under), near 1 for the online's n·d (its blocks' constant pulls it under). */
		const char *standard = strstr(text, "the standard algorithm's time grows as n^2.00 and its bytes held as n^");
		const char *online = strstr(text, "the online algorithm's time grows as n^2.00 and its bytes held as n^");
		double slope;

		ck_assert_ptr_nonnull(standard);
		ck_assert_ptr_nonnull(online);
		ck_assert_int_eq(sscanf(strchr(strstr(standard, "held"), '^') + 1, "%lf", &slope), 1);
		ck_assert(slope > 1.8 && slope < 2.0);
		ck_assert_int_eq(sscanf(strchr(strstr(online, "held"), '^') + 1, "%lf", &slope), 1);
		ck_assert(slope > 0.85 && slope < 1.0);
	}
	ck_assert_msg(strstr(text, "10,000 tokens: 800 million scores, per layer of 8 heads; the standard "
				   "algorithm would hold 19.4 GB (most of it S, S' and A in double) and take 0.41 "
				   "to 1.2 min here; the online algorithm would hold 165 MB and take 0.83 to 2.5 "
				   "min here") != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "This process's peak resident memory: 420 MB; the most any computation "
					   "held: 3.31 GB (standard, n = 4,096)."));
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

/* A time cell, "median (fastest–slowest)", read back as three numbers. */
static void read_time_cell(const char *cell, double *median, double *low, double *high)
{
	char *end;

	*median = strtod(cell, &end);
	ck_assert_msg(strncmp(end, " (", 2) == 0, "%s", cell);
	*low = strtod(end + 2, &end);
	ck_assert_msg(strncmp(end, "\u2013", 3) == 0, "%s", cell);
	*high = strtod(end + 3, &end);
	ck_assert_msg(strcmp(end, ")") == 0, "%s", cell);
}

/* As shown, the fastest run never reads above the median nor the slowest below
 * it, and the range holds the runs: 223.6, 223.9 and 225.9 ms read "223.9
 * (223–226)" (rounded to three digits, 223.6 would read 224, above the median);
 * and over 20,000 random runs from 0.001 ms to 100 s, low ≤ fastest,
 * slowest ≤ high, low ≤ median as shown ≤ high. */
START_TEST(test_time_range_in_order)
{
	struct qkv_cost_row row = { .n = 4096, .entries = 4096LL * 4096 };
	struct cost_cells cells;
	struct lcg g = { 20261206 };
	double median, low, high;

	row.time[QKV_COST_STANDARD] = (struct qkv_cost_time){ .ms = 223.9, .ms_min = 223.6, .ms_max = 225.9, .runs = 3 };
	print_cost_cells(&row, &cells);
	ck_assert_str_eq(cells.ms[QKV_COST_STANDARD], "223.9 (223\u2013226)");
	for (int i = 0; i < 20000; i++) {
		double fastest = pow(10.0, 1.0 + 4.0 * lcg_signed(&g)), middle = fastest * (1.05 + 0.05 * lcg_signed(&g)),
		       slowest = middle * (1.05 + 0.05 * lcg_signed(&g));

		row.time[QKV_COST_STANDARD] = (struct qkv_cost_time){ .ms = middle, .ms_min = fastest, .ms_max = slowest,
								      .runs = 3 };
		print_cost_cells(&row, &cells);
		read_time_cell(cells.ms[QKV_COST_STANDARD], &median, &low, &high);
		ck_assert_msg(low <= fastest && slowest <= high && low <= median && median <= high, "%s from %.17g %.17g %.17g",
			      cells.ms[QKV_COST_STANDARD], fastest, middle, slowest);
		ck_assert_msg(strchr(cells.ms[QKV_COST_STANDARD], 'e') == NULL, "%s", cells.ms[QKV_COST_STANDARD]);
	}
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
	tcase_add_test(formats, test_time_range_in_order);
	suite_add_tcase(s, formats);
	return s;
}

int main(void)
{
	return run_tap(print_cost_suite());
}
