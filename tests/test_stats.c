/* test_stats.c — Check suite for what the softmax made of each row (the row
 * statistics of attention.h) and the trace's score variance.
 * Expected values are closed forms worked out in comments, or second
 * computations written here (the full Jacobian matrix, a two-pass variance);
 * never output of the code under test. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/describe.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"

#include "lcg.h"
#include "tap_main.h"

#define MAX_COUNT 64 /* longest row the tests build */


/* ||diag(a) − a aᵀ||_F, by building every entry of the matrix. */
static double jacobian_frobenius(const double *a, int count)
{
	double sum = 0.0;
	for (int i = 0; i < count; i++)
		for (int j = 0; j < count; j++) {
			double entry = (i == j ? a[i] : 0.0) - a[i] * a[j];
			sum += entry * entry;
		}
	return sqrt(sum);
}

/* −Σ a ln a, with 0 ln 0 = 0. */
static double entropy_of(const double *a, int count)
{
	double h = 0.0;
	for (int j = 0; j < count; j++)
		if (a[j] > 0.0)
			h -= a[j] * log(a[j]);
	return h;
}

/* A probability row: e^{x_j} / Σ e^{x_k} for x from g, hidden entries 0. */
static void random_row(double *a, const unsigned char *hidden, int count, double spread,
		       struct lcg *g)
{
	double total = 0.0;
	for (int j = 0; j < count; j++) {
		double x = spread * lcg_signed(g);
		a[j] = hidden != NULL && hidden[j] ? 0.0 : exp(x);
		total += a[j];
	}
	for (int j = 0; j < count; j++)
		a[j] /= total;
}

/* Uniform row of n: entropy ln n, e^entropy = n, max 1/n, and the Jacobian has
 * (n−1)/n² on the diagonal and −1/n² elsewhere, so
 * ||J||²_F = n(n−1)²/n⁴ + n(n−1)/n⁴ = (n−1)/n², i.e. ||J||_F = √(n−1)/n. */
START_TEST(test_uniform_row)
{
	const int sizes[6] = {1, 2, 3, 7, 16, 64};
	int n = sizes[_i];
	double a[MAX_COUNT];
	for (int j = 0; j < n; j++)
		a[j] = 1.0 / n;
	struct qkv_row_stats stats;
	qkv_row_stats_of(a, NULL, n, &stats);
	ck_assert_double_eq_tol(stats.entropy, log((double)n), 1e-13);
	ck_assert_double_eq_tol(stats.effective_tokens, (double)n, 1e-11);
	ck_assert_double_eq_tol(stats.jacobian_norm, sqrt(n - 1.0) / n, 1e-15);
	ck_assert_double_eq_tol(stats.max_weight, 1.0 / n, 1e-15);
	ck_assert_int_eq(stats.argmax, 0);
	ck_assert_int_eq(stats.live_keys, n);
	ck_assert_double_eq_tol(stats.weight_sum, 1.0, 1e-13);
}
END_TEST

/* One-hot at k: entropy 0, one effective token, and diag(e_k) − e_k e_kᵀ = 0. */
START_TEST(test_one_hot_row)
{
	const int n = 9;
	int k = _i;
	double a[9] = {0};
	a[k] = 1.0;
	struct qkv_row_stats stats;
	qkv_row_stats_of(a, NULL, n, &stats);
	ck_assert_double_eq_tol(stats.entropy, 0.0, 1e-300);
	ck_assert_double_eq_tol(stats.effective_tokens, 1.0, 1e-15);
	ck_assert_double_eq_tol(stats.jacobian_norm, 0.0, 1e-300);
	ck_assert(stats.max_weight == 1.0);
	ck_assert_int_eq(stats.argmax, k);
	ck_assert_int_eq(stats.live_keys, n);
	ck_assert(stats.weight_sum == 1.0);
}
END_TEST

/* Two keys (p, 1−p): J = p(1−p)·[1 −1; −1 1], so ||J||_F = 2p(1−p); the entropy
 * is the binary entropy −p ln p − (1−p) ln(1−p). */
START_TEST(test_two_keys_closed_form)
{
	double p = 0.03 + 0.09 * _i; /* never 0.5, where the two keys tie */
	double a[2] = {p, 1.0 - p};
	struct qkv_row_stats stats;
	qkv_row_stats_of(a, NULL, 2, &stats);
	ck_assert_double_eq_tol(stats.jacobian_norm, 2.0 * p * (1.0 - p), 1e-15);
	ck_assert_double_eq_tol(stats.entropy, -p * log(p) - (1.0 - p) * log(1.0 - p), 1e-15);
	ck_assert_double_eq_tol(stats.effective_tokens,
				exp(-p * log(p) - (1.0 - p) * log(1.0 - p)), 1e-14);
	ck_assert_double_eq_tol(stats.max_weight, p > 0.5 ? p : 1.0 - p, 1e-15);
	ck_assert_int_eq(stats.argmax, p > 0.5 ? 0 : 1);
}
END_TEST

START_TEST(test_random_row_against_full_matrix)
{
	struct lcg g = {100u + (uint64_t)_i};
	int n = lcg_int(&g, 2, MAX_COUNT);
	double a[MAX_COUNT];
	random_row(a, NULL, n, 3.0, &g);
	int best = 0;
	for (int j = 1; j < n; j++)
		if (a[j] > a[best])
			best = j;
	struct qkv_row_stats stats;
	qkv_row_stats_of(a, NULL, n, &stats);
	ck_assert_double_eq_tol(stats.jacobian_norm, jacobian_frobenius(a, n), 1e-14);
	ck_assert_double_eq_tol(stats.entropy, entropy_of(a, n), 1e-13);
	ck_assert_double_eq_tol(stats.effective_tokens, exp(entropy_of(a, n)), 1e-11);
	ck_assert(stats.max_weight == a[best]);
	ck_assert_int_eq(stats.argmax, best);
	ck_assert_int_eq(stats.live_keys, n);
	ck_assert_double_eq_tol(stats.weight_sum, 1.0, 1e-13);
	/* The effective number of tokens lies between 1 and n. */
	ck_assert(stats.effective_tokens >= 1.0 - 1e-12);
	ck_assert(stats.effective_tokens <= n + 1e-9);
}
END_TEST

START_TEST(test_row_with_hidden_keys)
{
	struct lcg g = {200u + (uint64_t)_i};
	int n = lcg_int(&g, 2, MAX_COUNT);
	unsigned char hidden[MAX_COUNT];
	int live = 0;
	for (int j = 0; j < n; j++) {
		hidden[j] = (unsigned char)(lcg_int(&g, 0, 2) == 0);
		live += !hidden[j];
	}
	if (live == 0) {
		hidden[n - 1] = 0;
		live = 1;
	}
	double a[MAX_COUNT];
	random_row(a, hidden, n, 2.0, &g);
	struct qkv_row_stats stats;
	qkv_row_stats_of(a, hidden, n, &stats);
	ck_assert_int_eq(stats.live_keys, live);
	ck_assert_double_eq_tol(stats.entropy, entropy_of(a, n), 1e-13);
	ck_assert_double_eq_tol(stats.jacobian_norm, jacobian_frobenius(a, n), 1e-14);
	ck_assert_double_eq_tol(stats.weight_sum, 1.0, 1e-13);
	ck_assert(!hidden[stats.argmax]);
}
END_TEST

START_TEST(test_ties_and_empty_rows)
{
	/* Ties: the first largest wins. */
	const double tied[4] = {0.125, 0.375, 0.375, 0.125};
	struct qkv_row_stats stats;
	qkv_row_stats_of(tied, NULL, 4, &stats);
	ck_assert_int_eq(stats.argmax, 1);
	ck_assert(stats.max_weight == 0.375);
	/* Every key hidden: no argmax, no live keys, nothing summed, nothing NaN. */
	const double zeros[3] = {0.0, 0.0, 0.0};
	const unsigned char all[3] = {1, 1, 1};
	qkv_row_stats_of(zeros, all, 3, &stats);
	ck_assert_int_eq(stats.argmax, -1);
	ck_assert_int_eq(stats.live_keys, 0);
	ck_assert(stats.weight_sum == 0.0);
	ck_assert(stats.max_weight == 0.0);
	ck_assert(isfinite(stats.entropy));
	ck_assert(isfinite(stats.effective_tokens));
	ck_assert(stats.jacobian_norm == 0.0);
}
END_TEST

/* The worked example's rows: the entropy and Jacobian of the closed-form weights
 * (see test_attention.c), and the score variance by hand: the scaled entries are
 * {1,0,1, 0,1,1, 1,1,2}/√2, Σx = 8/√2, Σx² = 10/2 = 5, so the population
 * variance is 5/9 − (8/9)²/2 = 45/81 − 32/81 = 13/81. */
START_TEST(test_worked_example_stats)
{
	struct qkv_problem p;
	struct qkv_trace t;
	qkv_problem_init(&p);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	double e = exp(1.0 / sqrt(2.0));
	const double rows[3][3] = {
		{e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)},
		{1 / (2 * e + 1), e / (2 * e + 1), e / (2 * e + 1)},
		{e / (2 * e + e * e), e / (2 * e + e * e), e * e / (2 * e + e * e)},
	};
	const int argmax[3] = {0, 1, 2};
	for (int i = 0; i < 3; i++) {
		ck_assert_double_eq_tol(t.rows[i].entropy, entropy_of(rows[i], 3), 1e-14);
		ck_assert_double_eq_tol(t.rows[i].effective_tokens, exp(entropy_of(rows[i], 3)),
					1e-13);
		ck_assert_double_eq_tol(t.rows[i].jacobian_norm, jacobian_frobenius(rows[i], 3),
					1e-14);
		ck_assert_int_eq(t.rows[i].argmax, argmax[i]);
		ck_assert_double_eq_tol(t.rows[i].weight_sum, 1.0, 1e-14);
		ck_assert_int_eq(t.rows[i].live_keys, 3);
	}
	ck_assert_double_eq_tol(t.rows[0].max_weight, e / (2 * e + 1), 1e-15);
	ck_assert_double_eq_tol(t.rows[2].max_weight, e * e / (2 * e + e * e), 1e-15);
	ck_assert_double_eq_tol(t.score_variance, 13.0 / 81.0, 1e-15);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The scaled score q_i · k_j / √d_k of a direct-form problem, by a loop written here. */
static double scaled_here(const struct qkv_problem *problem, int i, int j)
{
	double dot = 0.0;

	for (int c = 0; c < problem->q.cols; c++)
		dot += qkv_matrix_get(&problem->q, i, c) * qkv_matrix_get(&problem->k, j, c);
	return dot / sqrt((double)problem->q.cols);
}

/* The trace's score variance is the population variance of the unmasked scaled
 * entries (computed here in two passes), and its row statistics are those of
 * its weight rows. Loop index: no mask, causal, random custom mask. */
START_TEST(test_trace_score_variance_and_rows)
{
	struct lcg g = {300u + (uint64_t)_i};
	int n = lcg_int(&g, 2, 24), d_k = lcg_int(&g, 1, 16), d_v = lcg_int(&g, 1, 4);
	struct qkv_problem p;
	struct qkv_trace t;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, n, d_k, d_v, 1), 0);
	/* Replace the core's draws with the test's own numbers. */
	struct qkv_matrix *inputs[3] = {&p.q, &p.k, &p.v};
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < inputs[m]->rows; i++)
			for (int c = 0; c < inputs[m]->cols; c++)
				qkv_matrix_set(inputs[m], i, c, 2.0 * lcg_signed(&g));
	int mode = _i % 3;
	if (mode == 1)
		ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	if (mode == 2) {
		ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				p.mask_bits[i * n + j] = (unsigned char)(i != j && lcg_int(&g, 0, 1));
	}
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	double sum = 0.0, squares = 0.0;
	int count = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (!qkv_problem_is_masked(&p, i, j)) {
				sum += scaled_here(&p, i, j);
				count++;
			}
	double mean = sum / count;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (!qkv_problem_is_masked(&p, i, j))
				squares += (scaled_here(&p, i, j) - mean) * (scaled_here(&p, i, j) - mean);
	ck_assert_double_eq_tol(t.score_variance, squares / count, 1e-12);
	for (int i = 0; i < n; i++) {
		const double *a = qkv_matrix_row_const(&t.weights, i);
		ck_assert_double_eq_tol(t.rows[i].entropy, entropy_of(a, n), 1e-13);
		ck_assert_double_eq_tol(t.rows[i].jacobian_norm, jacobian_frobenius(a, n), 1e-14);
		int live = 0;
		for (int j = 0; j < n; j++)
			live += !qkv_problem_is_masked(&p, i, j);
		ck_assert_int_eq(t.rows[i].live_keys, live);
	}
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* H / ln(visible keys): under the causal mask row t2 of the worked example sees two
 * keys, row t1 one; the ratio uses ln of those, not ln n (closed form). */
START_TEST(test_entropy_ratio_over_visible_keys)
{
	struct qkv_problem p;
	struct qkv_trace t;
	double w = 1.0 / (1.0 + exp(1.0 / sqrt(2.0))), h2 = -(w * log(w) + (1 - w) * log(1 - w));
	double r = sqrt(2.0), e1 = exp(1 / r), e3 = exp(2 / r), z = 2 * e1 + e3;
	double h3 = -(2 * (e1 / z) * log(e1 / z) + (e3 / z) * log(e3 / z));

	qkv_problem_init(&p);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_double_eq_tol(qkv_row_entropy_ratio(&t.rows[0]), 0.0, 1e-15);
	ck_assert_double_eq_tol(qkv_row_entropy_ratio(&t.rows[1]), h2 / log(2.0), 1e-13);
	ck_assert_double_eq_tol(qkv_row_entropy_ratio(&t.rows[2]), h3 / log(3.0), 1e-13);
	/* Padding hides a key from every query: a uniform row over the rest reads 1. */
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_NONE), 0);
	qkv_matrix_set(&p.q, 0, 0, 0.0);
	p.padding = calloc(3, 1);
	ck_assert_ptr_nonnull(p.padding);
	p.padding[1] = 1;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_double_eq_tol(qkv_row_entropy_ratio(&t.rows[0]), 1.0, 1e-13);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The suite: closed forms, a second computation, the trace's figures. */
static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *rows = tcase_create("rows");
	tcase_add_loop_test(rows, test_uniform_row, 0, 6);
	tcase_add_loop_test(rows, test_one_hot_row, 0, 9);
	tcase_add_loop_test(rows, test_two_keys_closed_form, 0, 11);
	tcase_add_loop_test(rows, test_random_row_against_full_matrix, 0, 25);
	tcase_add_loop_test(rows, test_row_with_hidden_keys, 0, 15);
	tcase_add_test(rows, test_ties_and_empty_rows);
	suite_add_tcase(s, rows);
	TCase *trace = tcase_create("trace");
	tcase_add_test(trace, test_worked_example_stats);
	tcase_add_test(trace, test_entropy_ratio_over_visible_keys);
	tcase_add_loop_test(trace, test_trace_score_variance_and_rows, 0, 18);
	suite_add_tcase(s, trace);
	return s;
}

int main(void)
{
	return run_tap(stats_suite());
}
