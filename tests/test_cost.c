/* test_cost.c — Check suite for the cost explorer's core (include/qkv/cost.h).
 * Counts against their formulas written out here in integers; the log–log fit
 * against synthetic series whose exponent is known (c·n² gives 2, c·n³ gives 3);
 * the measurement driven by a fake clock, so no test depends on this machine's
 * speed; the words against sentences derived by hand from the same numbers. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/cost.h"
#include "qkv/error.h"

#include "tap_main.h"

START_TEST(test_row_formulas)
{
	static const int widths[] = { 1, 8, 64, 512, 4096 };
	static const int heads[] = { 1, 2, 8, 96 };

	for (int n = 16; n <= 100000; n = n < 8192 ? n * 2 : n * 10) {
		for (int w = 0; w < 5; w++) {
			for (int h = 0; h < 4; h++) {
				struct qkv_cost_row row;
				int64_t square = (int64_t)n * n, d = widths[w], hh = heads[h];

				qkv_cost_row_of(n, widths[w], heads[h], &row);
				ck_assert_int_eq(row.n, n);
				ck_assert(row.entries == hh * square);
				ck_assert(row.bytes_f64 == hh * square * 8 * 3);
				ck_assert(row.bytes_f16 == hh * square * 2 * 3);
				/* 2n²d_k for Q Kᵀ, 2n²d_v for A V (d_v = d_k), 5n² for softmax. */
				ck_assert(row.flops == hh * (2 * square * d + 2 * square * d + 5 * square));
			}
		}
	}
}
END_TEST

/* y = c·x^k exactly (up to rounding) for x = 256 … 8192: the fit recovers k and ln c. */
START_TEST(test_fit_recovers_exponent)
{
	static const double exponents[] = { 2.0, 3.0, 1.0, 2.5 };
	double x[6], y[6], slope = 0.0, intercept = 0.0;

	for (int e = 0; e < 4; e++) {
		for (int i = 0; i < 6; i++) {
			x[i] = 256.0 * pow(2.0, i);
			y[i] = 3e-6 * pow(x[i], exponents[e]);
		}
		ck_assert_int_eq(qkv_cost_fit(x, y, 6, &slope, &intercept), 0);
		ck_assert_double_eq_tol(slope, exponents[e], 1e-12);
		ck_assert_double_eq_tol(intercept, log(3e-6), 1e-9);
	}
	ck_assert_int_eq(qkv_cost_fit(x, y, 1, &slope, NULL), QKV_EINVAL);
	y[2] = 0.0;
	ck_assert_int_eq(qkv_cost_fit(x, y, 6, &slope, NULL), QKV_EINVAL);
	x[1] = x[0];
	y[1] = y[0];
	ck_assert_int_eq(qkv_cost_fit(x, y, 2, &slope, NULL), QKV_EINVAL);
}
END_TEST

/* A table whose small n are all start-up overhead (1 ms flat) and whose large n
 * grow as n² (or n³): the slope is fitted over the large ones only. */
static void synthetic_table(struct qkv_cost *c, double exponent)
{
	ck_assert_int_eq(qkv_cost_init(c, 64, 1, 8192, 1000.0), 0);
	for (int n = 16; n <= 4096; n *= 2) {
		struct qkv_cost_row *row = &c->rows[c->count++];

		qkv_cost_row_of(n, 64, 1, row);
		row->ms = n < 256 ? 1.0 : 6.2e-5 * pow(n, exponent) / pow(1e4, exponent - 2.0);
	}
}

START_TEST(test_slope_of_large_n)
{
	struct qkv_cost c;

	synthetic_table(&c, 2.0);
	ck_assert_double_eq_tol(qkv_cost_slope(&c, NULL), 2.0, 1e-12);
	qkv_cost_fini(&c);
	synthetic_table(&c, 3.0);
	ck_assert_double_eq_tol(qkv_cost_slope(&c, NULL), 3.0, 1e-12);
	qkv_cost_fini(&c);
	/* Fewer than two large rows: all the rows, flat here. */
	ck_assert_int_eq(qkv_cost_init(&c, 4, 1, 128, 1000.0), 0);
	for (int n = 16; n <= 128; n *= 2) {
		qkv_cost_row_of(n, 4, 1, &c.rows[c.count]);
		c.rows[c.count++].ms = 0.5;
	}
	ck_assert_double_eq_tol(qkv_cost_slope(&c, NULL), 0.0, 1e-12);
	c.count = 1;
	ck_assert(isnan(qkv_cost_slope(&c, NULL)));
	qkv_cost_fini(&c);
}
END_TEST

/* ms = 6.2e-5·n²: 6,200 ms at 10,000 tokens and 620,000 ms (10.3 min) at 100,000. */
START_TEST(test_extrapolation_in_words)
{
	struct qkv_cost c;
	struct qkv_cost_row row;
	char text[512];

	synthetic_table(&c, 2.0);
	qkv_cost_extrapolate(&c, 10000, &row);
	ck_assert(row.entries == 100000000);
	ck_assert(row.bytes_f64 == 2400000000LL);
	ck_assert_double_eq_tol(row.ms, 6200.0, 1e-6);
	qkv_cost_words(text, sizeof text, &c, 10000);
	ck_assert_str_eq(text, "10,000 tokens: 100 million scores, 800 MB in double for the scores alone "
			       "(2.4 GB for S, S' and A), per head per layer; this machine would take about 6.2 s "
			       "(as n² from the 4,096-token row; the fitted slope, 2.00, gives 6.2 s).");
	qkv_cost_words(text, sizeof text, &c, 100000);
	ck_assert_str_eq(text, "100,000 tokens: 10 billion scores, 80 GB in double for the scores alone "
			       "(240 GB for S, S' and A), per head per layer; this machine would take about 10.3 min "
			       "(as n² from the 4,096-token row; the fitted slope, 2.00, gives 10.3 min).");
	c.heads = 8;
	qkv_cost_words(text, sizeof text, &c, 10000);
	ck_assert_str_eq(text, "10,000 tokens: 800 million scores, 6.4 GB in double for the scores alone "
			       "(19.2 GB for S, S' and A), per layer of 8 heads; this machine would take about 6.2 s "
			       "(as n² from the 4,096-token row; the fitted slope, 2.00, gives 6.2 s).");
	qkv_cost_fini(&c);
}
END_TEST

/* Times that grow as n^2.5: ms = 6.2e-7·n^2.5, 665.72 ms at n = 4096. The
 * extrapolation uses the formulas' exponent 2 from there, 665.72·(10000/4096)² =
 * 3968 ms, "3.97 s"; the fitted slope 2.50 is shown beside it with what it gives,
 * 6.2e-7·10^10 = 6200 ms. */
START_TEST(test_extrapolation_uses_n_squared)
{
	struct qkv_cost c;
	struct qkv_cost_row row;
	char text[512];
	double at_4096 = 6.2e-7 * pow(4096.0, 2.5);

	synthetic_table(&c, 2.5);
	qkv_cost_extrapolate(&c, 10000, &row);
	ck_assert_double_eq_tol(row.ms, at_4096 * pow(10000.0 / 4096.0, 2.0), 1e-6);
	ck_assert_double_eq_tol(row.ms, 3968.0, 0.5);
	ck_assert_double_eq_tol(qkv_cost_extrapolate_fitted(&c, 10000), 6200.0, 1e-6);
	qkv_cost_words(text, sizeof text, &c, 10000);
	ck_assert_msg(strstr(text, "would take about 3.97 s (as n² from the 4,096-token row; the fitted "
				   "slope, 2.50, gives 6.2 s).") != NULL, "%s", text);
	qkv_cost_fini(&c);
}
END_TEST

/* One number in words, by one of the word helpers. */
struct word_case {
	int (*words)(char *buf, size_t size, double value);
	double value;
	const char *expected;
};

START_TEST(test_word_helpers)
{
	static const struct word_case cases[] = {
		{ qkv_cost_count_words, 4096.0, "4,096" },
		{ qkv_cost_count_words, 999999.0, "999,999" },
		{ qkv_cost_count_words, 16777216.0, "16.8 million" },
		{ qkv_cost_count_words, 1e10, "10 billion" },
		{ qkv_cost_bytes_words, 512.0, "512 B" },
		{ qkv_cost_bytes_words, 999.7, "1 kB" },
		{ qkv_cost_bytes_words, 402653184.0, "403 MB" },
		{ qkv_cost_time_words, 0.42, "0.42 ms" },
		{ qkv_cost_time_words, 90e3, "1.5 min" },
		{ qkv_cost_time_words, 9000e3, "2.5 h" },
		{ qkv_cost_time_words, 4 * 86400e3, "4 days" },
	};
	char text[64];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cases[i].words(text, sizeof text, cases[i].value);
		ck_assert_str_eq(text, cases[i].expected);
	}
}
END_TEST

/* A clock that moves by a fixed step every time it is read. */
struct fake_clock {
	double now, step;
	int reads;
};

static double fake_read(void *context)
{
	struct fake_clock *clock = context;

	clock->reads++;
	clock->now += clock->step;
	return clock->now;
}

/* The measurement up to last_n = 256 with two heads: one row per n, doubling from
 * 16, counts from the formulas, times positive and h times one head's; slices of
 * the clock end each step, so it takes many steps. */
START_TEST(test_measurement_in_steps)
{
	struct qkv_cost c;
	struct fake_clock clock = { 0.0, 0.25, 0 };
	int steps = 0, rc;

	ck_assert_int_eq(qkv_cost_init(&c, 8, 2, 256, 60000.0), 0);
	while ((rc = qkv_cost_step(&c, 0.5, fake_read, &clock)) == 1)
		steps++;
	ck_assert_int_eq(rc, 0);
	ck_assert(c.done);
	ck_assert_int_eq(c.count, 5);
	ck_assert_int_gt(steps, c.count * 3); /* at least three runs per n, a step or more each */
	for (int i = 0; i < c.count; i++) {
		struct qkv_cost_row expected;

		qkv_cost_row_of(16 << i, 8, 2, &expected);
		ck_assert_int_eq(c.rows[i].n, 16 << i);
		ck_assert(c.rows[i].entries == expected.entries);
		ck_assert(c.rows[i].flops == expected.flops);
		ck_assert(c.rows[i].ms > 0.0);
		/* Every clock reading moves 0.25 ms: a run measures whole readings, times 2 heads. */
		ck_assert_double_eq_tol(fmod(c.rows[i].ms / 2.0, 0.25), 0.0, 1e-9);
	}
	ck_assert(c.q.values == NULL && c.scores.values == NULL); /* storage released */
	ck_assert_int_eq(qkv_cost_step(&c, 0.5, fake_read, &clock), 0);
	qkv_cost_fini(&c);
}
END_TEST

START_TEST(test_init_rejects)
{
	struct qkv_cost c;

	ck_assert_int_eq(qkv_cost_init(&c, 0, 1, 4096, 1000.0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 4097, 1, 4096, 1000.0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 0, 4096, 1000.0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4000, 1000.0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 16384, 1000.0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4096, 0.0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4096, NAN), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 4, 16, 1.0), 0);
	qkv_cost_fini(&c);
}
END_TEST

static Suite *cost_suite(void)
{
	Suite *s = suite_create("cost");
	TCase *counts = tcase_create("counts");
	TCase *fit = tcase_create("fit");
	TCase *measure = tcase_create("measure");

	tcase_add_test(counts, test_row_formulas);
	tcase_add_test(counts, test_word_helpers);
	suite_add_tcase(s, counts);
	tcase_add_test(fit, test_fit_recovers_exponent);
	tcase_add_test(fit, test_slope_of_large_n);
	tcase_add_test(fit, test_extrapolation_in_words);
	tcase_add_test(fit, test_extrapolation_uses_n_squared);
	suite_add_tcase(s, fit);
	tcase_add_test(measure, test_measurement_in_steps);
	tcase_add_test(measure, test_init_rejects);
	suite_add_tcase(s, measure);
	return s;
}

int main(void)
{
	return run_tap(cost_suite());
}
