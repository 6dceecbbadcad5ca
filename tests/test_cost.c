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
 * grow as n² (or n³): the slope is fitted over the large ones only. Each n's
 * standard runs span 0.9 to 1.2 times their median; the online algorithm's
 * median is 1.5 times the standard's, its runs as spread. */
static void synthetic_table(struct qkv_cost *c, double exponent)
{
	ck_assert_int_eq(qkv_cost_init(c, 64, 1, 8192, 1000.0, QKV_COST_BOTH), 0);
	for (int n = 16; n <= 4096; n *= 2) {
		struct qkv_cost_row *row = &c->rows[c->count++];
		double ms = n < 256 ? 1.0 : 6.2e-5 * pow(n, exponent) / pow(1e4, exponent - 2.0);

		qkv_cost_row_of(n, 64, 1, row);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
			double median = a == QKV_COST_ONLINE ? 1.5 * ms : ms;

			row->time[a].ms = median;
			row->time[a].ms_min = 0.9 * median;
			row->time[a].ms_max = 1.2 * median;
			row->time[a].runs = 3;
		}
	}
}

START_TEST(test_slope_of_large_n)
{
	struct qkv_cost c;

	synthetic_table(&c, 2.0);
	ck_assert_double_eq_tol(qkv_cost_slope(&c, QKV_COST_STANDARD, NULL), 2.0, 1e-12);
	ck_assert_double_eq_tol(qkv_cost_slope(&c, QKV_COST_ONLINE, NULL), 2.0, 1e-12);
	qkv_cost_fini(&c);
	synthetic_table(&c, 3.0);
	ck_assert_double_eq_tol(qkv_cost_slope(&c, QKV_COST_STANDARD, NULL), 3.0, 1e-12);
	qkv_cost_fini(&c);
	/* Fewer than two large rows: all the rows, flat here. */
	ck_assert_int_eq(qkv_cost_init(&c, 4, 1, 128, 1000.0, QKV_COST_BOTH), 0);
	for (int n = 16; n <= 128; n *= 2) {
		qkv_cost_row_of(n, 4, 1, &c.rows[c.count]);
		c.rows[c.count++].time[QKV_COST_STANDARD].ms = 0.5;
	}
	ck_assert_double_eq_tol(qkv_cost_slope(&c, QKV_COST_STANDARD, NULL), 0.0, 1e-12);
	ck_assert(isnan(qkv_cost_slope(&c, QKV_COST_ONLINE, NULL))); /* never timed */
	c.count = 1;
	ck_assert(isnan(qkv_cost_slope(&c, QKV_COST_STANDARD, NULL)));
	qkv_cost_fini(&c);
}
END_TEST

/* The bytes each algorithm holds, by hand for d = 64: the standard's 5 n × d
 * matrices and 3 n × n ones, the online's 4 n × d and its blocks' storage, with
 * b = 64 queries a block and t = min(64, n) keys a tile: b·d + d·t + t·d + b·t +
 * b·d + 2b doubles. Over n >= 256 the standard's bytes grow close to n², the
 * online's close to n. */
START_TEST(test_bytes_held)
{
	struct qkv_cost c;
	double d = 64.0, b = 64.0;

	synthetic_table(&c, 2.0);
	for (int i = 0; i < c.count; i++) {
		double n = c.rows[i].n, t = n < 64 ? n : 64;
		double standard = 8 * (5 * n * d + 3 * n * n);
		double online = 8 * (4 * n * d + b * d + d * t + t * d + b * t + b * d + 2 * b);

		ck_assert_double_eq((double)c.rows[i].time[QKV_COST_STANDARD].bytes, standard);
		ck_assert_double_eq((double)c.rows[i].time[QKV_COST_ONLINE].bytes, online);
	}
	ck_assert_double_eq_tol(qkv_cost_bytes_slope(&c, QKV_COST_STANDARD), 2.0, 0.15);
	ck_assert_double_eq_tol(qkv_cost_bytes_slope(&c, QKV_COST_ONLINE), 1.0, 0.1);
	qkv_cost_fini(&c);
}
END_TEST

/* ms = 6.2e-5·n²: the standard's median gives 6,200 ms at 10,000 tokens, its
 * runs 0.9 and 1.2 times that, 5,580 to 7,440 ms, and the fitted line 6,200 ms
 * within them: "5.6 to 7.4 s"; the online's, 1.5 times each, 8,370 to 11,160 ms.
 * At 100,000 tokens 100 times as much: 558,000 to 744,000 ms, 9.3 to 12.4 min,
 * and 837,000 to 1,116,000 ms, 14 to 18.6 min. Bytes: 8·(5·10⁴·64 + 3·10⁸) =
 * 2.4256 GB and 8·4·10⁴·64 + 164,864 = 20.6 MB; at 10⁵ 240.256 GB and 205 MB. */
START_TEST(test_extrapolation_in_words)
{
	struct qkv_cost c;
	struct qkv_cost_row row;
	char text[768];

	synthetic_table(&c, 2.0);
	qkv_cost_extrapolate(&c, 10000, &row);
	ck_assert(row.entries == 100000000);
	ck_assert(row.bytes_f64 == 2400000000LL);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms, 6200.0, 1e-6);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms_min, 5580.0, 1e-6);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms_max, 7440.0, 1e-6);
	ck_assert_double_eq_tol(row.time[QKV_COST_ONLINE].ms_max, 11160.0, 1e-6);
	qkv_cost_words(text, sizeof text, &c, 10000);
	ck_assert_str_eq(text, "10,000 tokens: 100 million scores, per head per layer; the standard algorithm "
			       "would hold 2.43 GB (most of it S, S' and A in double) and take 5.6 to 7.4 s here; the online "
			       "algorithm would hold 20.6 MB and take 8.4 to 11 s here (as n² from the 4,096-token "
			       "row's runs, and the fitted slope).");
	qkv_cost_words(text, sizeof text, &c, 100000);
	ck_assert_str_eq(text, "100,000 tokens: 10 billion scores, per head per layer; the standard algorithm "
			       "would hold 240 GB (most of it S, S' and A in double) and take 9.3 to 12 min here; the online "
			       "algorithm would hold 205 MB and take 14 to 19 min here (as n² from the 4,096-token "
			       "row's runs, and the fitted slope).");
	c.algorithms = QKV_COST_MEASURE(QKV_COST_ONLINE);
	qkv_cost_words(text, sizeof text, &c, 10000);
	ck_assert_str_eq(text, "10,000 tokens: 100 million scores, per head per layer; the online algorithm would "
			       "hold 20.6 MB and take 8.4 to 11 s here (as n² from the 4,096-token row's runs, and "
			       "the fitted slope).");
	qkv_cost_fini(&c);
}
END_TEST

/* Times that grow as n^2.5: ms = 6.2e-7·n^2.5, 665.72 ms at n = 4096. The
 * median carried as n² gives 665.72·(10000/4096)² = 3968 ms, the fastest run
 * 0.9 of that, 3571 ms; the fitted slope 2.50 gives 6.2e-7·10^10 = 6200 ms, above
 * the slowest run's 4762 ms: the range is 3.6 to 6.2 s. */
START_TEST(test_extrapolation_uses_n_squared)
{
	struct qkv_cost c;
	struct qkv_cost_row row;
	char text[768];
	double at_4096 = 6.2e-7 * pow(4096.0, 2.5);

	synthetic_table(&c, 2.5);
	qkv_cost_extrapolate(&c, 10000, &row);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms, at_4096 * pow(10000.0 / 4096.0, 2.0), 1e-6);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms, 3968.0, 0.5);
	ck_assert_double_eq_tol(qkv_cost_extrapolate_fitted(&c, QKV_COST_STANDARD, 10000), 6200.0, 1e-6);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms_min, 0.9 * 3968.0, 0.5);
	ck_assert_double_eq_tol(row.time[QKV_COST_STANDARD].ms_max, 6200.0, 1e-6);
	qkv_cost_words(text, sizeof text, &c, 10000);
	ck_assert_msg(strstr(text, "would hold 2.43 GB (most of it S, S' and A in double) and take 3.6 to 6.2 s here") != NULL,
		      "%s", text);
	qkv_cost_fini(&c);
}
END_TEST

/* Ranges to two digits in the larger one's unit, one value when both round alike. */
START_TEST(test_range_words)
{
	char text[64];

	qkv_cost_range_words(text, sizeof text, 1900.0, 2400.0);
	ck_assert_str_eq(text, "1.9 to 2.4 s");
	qkv_cost_range_words(text, sizeof text, 2101.0, 2149.0);
	ck_assert_str_eq(text, "about 2.1 s");
	qkv_cost_range_words(text, sizeof text, 40e3, 90e3);
	ck_assert_str_eq(text, "0.67 to 1.5 min");
	qkv_cost_range_words(text, sizeof text, 0.5, 0.75);
	ck_assert_str_eq(text, "0.5 to 0.75 ms");
	qkv_cost_range_words(text, sizeof text, 873.0, 884.0); /* no exponent: 8.7e+02 */
	ck_assert_str_eq(text, "870 to 880 ms");
	qkv_cost_range_words(text, sizeof text, 99.0, 126.0);
	ck_assert_str_eq(text, "99 to 130 ms");
	qkv_cost_range_words(text, sizeof text, NAN, 1.0);
	ck_assert_str_eq(text, "an unknown time");
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
 * 16, counts from the formulas; each algorithm's times positive and h times one
 * head's, at least three runs, the median between the fastest and the slowest;
 * slices of the clock end each step, so it takes many steps. */
START_TEST(test_measurement_in_steps)
{
	struct qkv_cost c;
	struct fake_clock clock = { 0.0, 0.25, 0 };
	int steps = 0, rc;

	ck_assert_int_eq(qkv_cost_init(&c, 8, 2, 256, 60000.0, QKV_COST_BOTH), 0);
	while ((rc = qkv_cost_step(&c, 0.5, fake_read, &clock)) == 1)
		steps++;
	ck_assert_int_eq(rc, 0);
	ck_assert(c.done);
	ck_assert_int_eq(c.count, 5);
	ck_assert_int_gt(steps, c.count * 6); /* three runs per n and algorithm, a step or more each */
	for (int i = 0; i < c.count; i++) {
		struct qkv_cost_row expected;

		qkv_cost_row_of(16 << i, 8, 2, &expected);
		ck_assert_int_eq(c.rows[i].n, 16 << i);
		ck_assert(c.rows[i].entries == expected.entries);
		ck_assert(c.rows[i].flops == expected.flops);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
			const struct qkv_cost_time *t = &c.rows[i].time[a];

			ck_assert(t->ms > 0.0);
			ck_assert_int_ge(t->runs, 3);
			ck_assert(t->ms_min <= t->ms && t->ms <= t->ms_max);
			ck_assert(t->bytes == expected.time[a].bytes);
			/* Every clock reading moves 0.25 ms: a run measures whole readings, times 2
			 * heads; a median of an even count is halfway between two. */
			ck_assert_double_eq_tol(fmod(t->ms_min / 2.0, 0.25), 0.0, 1e-9);
			ck_assert_double_eq_tol(fmod(t->ms / 2.0, 0.125), 0.0, 1e-9);
		}
	}
	ck_assert(c.q.values == NULL && c.scores.values == NULL); /* storage released */
	ck_assert(c.blocks.max == NULL);
	ck_assert_int_eq(qkv_cost_step(&c, 0.5, fake_read, &clock), 0);
	qkv_cost_fini(&c);
}
END_TEST

/* Only the online algorithm: its rows are timed, the standard's never are, and
 * it never takes the n × n storage. */
START_TEST(test_online_alone)
{
	struct qkv_cost c;
	struct fake_clock clock = { 0.0, 0.25, 0 };

	ck_assert_int_eq(qkv_cost_init(&c, 8, 1, 64, 60000.0, QKV_COST_MEASURE(QKV_COST_ONLINE)), 0);
	ck_assert(qkv_cost_measures(&c, QKV_COST_ONLINE) && !qkv_cost_measures(&c, QKV_COST_STANDARD));
	while (qkv_cost_step(&c, 0.5, fake_read, &clock) == 1)
		ck_assert(c.scores.values == NULL && c.weights.values == NULL);
	ck_assert_int_eq(c.count, 3);
	for (int i = 0; i < c.count; i++) {
		ck_assert(c.rows[i].time[QKV_COST_ONLINE].ms > 0.0);
		ck_assert(isnan(c.rows[i].time[QKV_COST_STANDARD].ms));
	}
	ck_assert_str_eq(qkv_cost_algorithm_name(QKV_COST_ONLINE), "online");
	ck_assert_str_eq(qkv_cost_algorithm_name(QKV_COST_STANDARD), "standard");
	qkv_cost_fini(&c);
}
END_TEST

START_TEST(test_init_rejects)
{
	struct qkv_cost c;

	ck_assert_int_eq(qkv_cost_init(&c, 0, 1, 4096, 1000.0, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 4097, 1, 4096, 1000.0, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 0, 4096, 1000.0, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4000, 1000.0, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 16384, 1000.0, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4096, 0.0, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4096, NAN, QKV_COST_BOTH), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 4, 16, 1.0, QKV_COST_BOTH), 0);
	qkv_cost_fini(&c);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4096, 1000.0, 0), QKV_EINVAL);
	ck_assert_int_eq(qkv_cost_init(&c, 64, 1, 4096, 1000.0, 4u), QKV_EINVAL);
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
	tcase_add_test(fit, test_bytes_held);
	tcase_add_test(counts, test_range_words);
	suite_add_tcase(s, fit);
	tcase_add_test(measure, test_measurement_in_steps);
	tcase_add_test(measure, test_init_rejects);
	tcase_add_test(measure, test_online_alone);
	suite_add_tcase(s, measure);
	return s;
}

int main(void)
{
	return run_tap(cost_suite());
}
