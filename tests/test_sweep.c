/* test_sweep.c — Check suite for the d_k sweep (sweep.h): which points it
 * returns, determinism, argument checks, and the statistical laws the
 * saturation view teaches, with tolerances derived in the comments below.
 * No expected value here comes from running the code under test. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "qkv/error.h"
#include "qkv/sweep.h"

#include "tap_main.h"

/* The run most laws are checked on. */
#define LAW_TOKENS 16
#define LAW_TRIALS 256
#define LAW_DK_MAX 1024
#define LAW_POINTS 11 /* d_k = 1, 2, 4, …, 1024 */

/* True when two sets of figures are identical. */
static bool same_figures(const struct qkv_sweep_figures *a, const struct qkv_sweep_figures *b)
{
	return a->score_variance == b->score_variance && a->max_weight == b->max_weight &&
	       a->entropy_ratio == b->entropy_ratio && a->jacobian_norm == b->jacobian_norm;
}

/* True when two sweep points are identical. */
static bool same_point(const struct qkv_sweep_point *a, const struct qkv_sweep_point *b)
{
	return a->d_k == b->d_k && same_figures(&a->scaled, &b->scaled) &&
	       same_figures(&a->unscaled, &b->unscaled);
}

/* Runs the sweep the laws are checked on (computed once per test that needs it). */
static void law_sweep(struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS])
{
	ck_assert_int_eq(qkv_sweep(LAW_TOKENS, LAW_TRIALS, 1, LAW_DK_MAX, points), LAW_POINTS);
}

/* floor(log2(d_k_max)) + 1 points, with d_k = 1, 2, 4, … */
START_TEST(test_point_count_and_dk)
{
	const int dk_max[8] = {1, 2, 3, 4, 100, 1000, 1024, 4096};
	const int expected[8] = {1, 2, 2, 3, 7, 10, 11, 13};
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	int count = qkv_sweep(2, 1, 5, dk_max[_i], points);
	ck_assert_int_eq(count, expected[_i]);
	for (int k = 0; k < count; k++)
		ck_assert_int_eq(points[k].d_k, 1 << k);
}
END_TEST

START_TEST(test_rejects_bad_arguments)
{
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	ck_assert_int_eq(qkv_sweep(1, 4, 1, 8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(0, 4, 1, 8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(-3, 4, 1, 8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(QKV_MAX_TOKENS + 1, 4, 1, 8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(4, 0, 1, 8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(4, 10001, 1, 8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(4, 4, 1, 0, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(4, 4, 1, -8, points), QKV_EINVAL);
	ck_assert_int_eq(qkv_sweep(4, 4, 1, QKV_MAX_DIM + 1, points), QKV_EINVAL);
	/* The boundaries themselves are valid. */
	ck_assert_int_eq(qkv_sweep(2, 1, 1, 1, points), 1);
	ck_assert_int_eq(qkv_sweep(QKV_MAX_TOKENS, 1, 1, 1, points), 1);
}
END_TEST

START_TEST(test_same_seed_same_figures)
{
	struct qkv_sweep_point a[QKV_SWEEP_MAX_POINTS], b[QKV_SWEEP_MAX_POINTS];
	struct qkv_sweep_point c[QKV_SWEEP_MAX_POINTS];
	ck_assert_int_eq(qkv_sweep(8, 5, 77, 64, a), 7);
	ck_assert_int_eq(qkv_sweep(8, 5, 77, 64, b), 7);
	ck_assert_int_eq(qkv_sweep(8, 5, 78, 64, c), 7);
	int differ = 0;
	for (int k = 0; k < 7; k++) {
		ck_assert_msg(same_point(&a[k], &b[k]), "point %d differs for the same seed", k);
		differ += !same_point(&a[k], &c[k]);
	}
	ck_assert_int_eq(differ, 7);
}
END_TEST

/* Scaled and unscaled are measured on the same draws, so at d_k = 1 (√1 = 1)
 * they are identical, and everywhere the unscaled scores are √d_k times the
 * scaled ones, so their variance is exactly d_k times as large. */
START_TEST(test_scaled_and_unscaled_share_draws)
{
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	ck_assert_int_eq(qkv_sweep(8, 16, 3, 256, points), 9);
	ck_assert(same_figures(&points[0].scaled, &points[0].unscaled));
	for (int k = 0; k < 9; k++) {
		double d_k = points[k].d_k;
		ck_assert_double_eq_tol(points[k].unscaled.score_variance,
					d_k * points[k].scaled.score_variance,
					1e-9 * d_k * points[k].scaled.score_variance);
	}
}
END_TEST

/* The variance law. With q, k ∈ R^d i.i.d. N(0,1), s = q·k has mean 0 and
 * variance d. The sweep averages, over T trials, the variance of n² scores that
 * share rows and columns, so they are not independent. Per trial (n tokens):
 *   Var(s²) = E[(q·k)⁴] − d² = 3(d² + 2d) − d² = 2d² + 6d,
 *   Cov(s_ij², s_il²) = E[|q|⁴] − d² = 2d for the 2n²(n−1) ordered pairs that
 *   share a query or a key, and 0 otherwise,
 * so the mean of the n² squares has relative standard deviation
 *   σ₁ = √((2 + 6/d + 4(n−1)/d) / n²)      (0.52 at d = 1, 0.09 at d = 1024, n = 16)
 * and over T independent trials σ = σ₁/√T (0.032 and 0.006 at T = 256; checked
 * by simulation). Centring on the sample mean (over the whole matrix or per row)
 * lowers the expectation by at most the factor 1 − 1/n, so the ratio
 * variance/d must lie in [1 − 1/n − 5σ, 1 + 5σ]: a plain 15% band would be
 * only 2.3σ at d = 1 with T = 64 and far too loose at d = 1024, while a wrong
 * law (variance √d, or no scaling in the "scaled" figures) is far outside. */
START_TEST(test_score_variance_law)
{
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	law_sweep(points);
	double n = LAW_TOKENS;
	for (int k = 0; k < LAW_POINTS; k++) {
		double d = points[k].d_k;
		double sigma = sqrt((2.0 + 6.0 / d + 4.0 * (n - 1.0) / d) / (n * n) / LAW_TRIALS);
		double low = 1.0 - 1.0 / n - 5.0 * sigma, high = 1.0 + 5.0 * sigma;
		double unscaled = points[k].unscaled.score_variance / d;
		double scaled = points[k].scaled.score_variance;
		ck_assert_msg(unscaled >= low && unscaled <= high,
			      "d_k = %g: unscaled variance / d_k = %g, expected in [%g, %g]", d,
			      unscaled, low, high);
		ck_assert_msg(scaled >= low && scaled <= high,
			      "d_k = %g: scaled variance = %g, expected in [%g, %g]", d, scaled, low,
			      high);
	}
}
END_TEST

/* Saturation. Without scaling the spread of the scores grows like √d_k, so the
 * largest weight grows with d_k towards 1; with 16 tokens it is ≈ 0.96 at
 * d_k = 1024. With scaling the scores keep unit variance and the largest weight
 * stays near the value for 16 i.i.d. N(0,1) scores, ≈ 0.21–0.25 at every d_k.
 * Over 256 trials × 16 rows the standard error of each mean is below 0.005
 * (simulated), while consecutive unscaled points differ by at least 0.017, so a
 * strict increase is a safe requirement; the bounds 0.9 and 0.08 are > 10
 * standard errors from the simulated values. */
START_TEST(test_max_weight_law)
{
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	law_sweep(points);
	double low = 1.0, high = 0.0;
	for (int k = 0; k < LAW_POINTS; k++) {
		if (k > 0)
			ck_assert_msg(points[k].unscaled.max_weight > points[k - 1].unscaled.max_weight,
				      "unscaled max weight fell from %g to %g at d_k = %d",
				      points[k - 1].unscaled.max_weight, points[k].unscaled.max_weight,
				      points[k].d_k);
		low = fmin(low, points[k].scaled.max_weight);
		high = fmax(high, points[k].scaled.max_weight);
		/* Never below uniform (1/n), never above 1. */
		ck_assert(points[k].scaled.max_weight >= 1.0 / LAW_TOKENS);
		ck_assert(points[k].unscaled.max_weight <= 1.0);
	}
	ck_assert_double_gt(points[LAW_POINTS - 1].unscaled.max_weight, 0.9);
	ck_assert_msg(high - low < 0.08, "scaled max weight spans [%g, %g]", low, high);
	ck_assert_double_lt(high, 0.4);
}
END_TEST

/* Entropy ratio in [0, 1] (1 uniform, 0 one-hot); without scaling it falls with
 * d_k as the rows become one-hot, and so does the Jacobian norm, which vanishes
 * at a one-hot row: at d_k = 1024 both are far below the scaled ones. */
START_TEST(test_entropy_and_jacobian_laws)
{
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	law_sweep(points);
	for (int k = 0; k < LAW_POINTS; k++) {
		const struct qkv_sweep_figures *f[2] = {&points[k].scaled, &points[k].unscaled};
		for (int s = 0; s < 2; s++) {
			ck_assert(f[s]->entropy_ratio >= 0.0 && f[s]->entropy_ratio <= 1.0);
			ck_assert(f[s]->jacobian_norm >= 0.0 && f[s]->jacobian_norm <= 1.0);
		}
		if (k > 0)
			ck_assert(points[k].unscaled.entropy_ratio <
				  points[k - 1].unscaled.entropy_ratio);
	}
	const struct qkv_sweep_point *last = &points[LAW_POINTS - 1];
	ck_assert_double_lt(last->unscaled.entropy_ratio, 0.5 * last->scaled.entropy_ratio);
	ck_assert_double_lt(last->unscaled.jacobian_norm, 0.5 * last->scaled.jacobian_norm);
	/* Scaled rows stay soft: well above one-hot at every d_k. */
	for (int k = 0; k < LAW_POINTS; k++)
		ck_assert_double_gt(points[k].scaled.entropy_ratio, 0.5);
}
END_TEST

/* The suite: the shape of the result, then the laws. */
static Suite *sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *shape = tcase_create("shape");
	tcase_set_timeout(shape, 60);
	tcase_add_loop_test(shape, test_point_count_and_dk, 0, 8);
	tcase_add_test(shape, test_rejects_bad_arguments);
	tcase_add_test(shape, test_same_seed_same_figures);
	tcase_add_test(shape, test_scaled_and_unscaled_share_draws);
	suite_add_tcase(s, shape);
	TCase *laws = tcase_create("laws");
	tcase_set_timeout(laws, 120);
	tcase_add_test(laws, test_score_variance_law);
	tcase_add_test(laws, test_max_weight_law);
	tcase_add_test(laws, test_entropy_and_jacobian_laws);
	suite_add_tcase(s, laws);
	return s;
}

int main(void)
{
	return run_tap(sweep_suite());
}
