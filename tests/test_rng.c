/* test_rng.c — Check suite for the seeded generator (rng.h): the exact
 * xoshiro256** / splitmix64 sequence against a second implementation written
 * here from the published algorithms, determinism, the range of uniform draws,
 * and the moments of normal draws with tolerances derived in the comments.
 * Never compares against numbers produced by the code under test. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "qkv/rng.h"

#include "tap_main.h"

/* splitmix64 (Steele, Lea & Flood; Vigna's public-domain reference): advances x
 * and returns the next output. */
static uint64_t reference_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Rotates x left by k bits (0 < k < 64). */
static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman & Vigna 2018, public-domain reference): returns the next
 * output and advances s. */
static uint64_t reference_xoshiro(uint64_t s[4])
{
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Seeds the reference state: four successive splitmix64 outputs from seed. */
static void reference_seed(uint64_t s[4], uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		s[i] = reference_splitmix64(&x);
}

/* The reference itself against a published value: splitmix64 from 0 first gives
 * 0xe220a8397b1dcdaf (the value Vigna's splitmix64.c prints first for seed 0). */
START_TEST(test_reference_splitmix_anchor)
{
	uint64_t x = 0;
	ck_assert_uint_eq(reference_splitmix64(&x), 0xe220a8397b1dcdafULL);
}
END_TEST

START_TEST(test_matches_reference_sequence)
{
	const uint64_t seeds[5] = {0, 1, 42, 0xdeadbeefULL, UINT64_MAX};
	uint64_t seed = seeds[_i];
	uint64_t s[4];
	struct qkv_rng rng;
	reference_seed(s, seed);
	qkv_rng_seed(&rng, seed);
	for (int k = 0; k < 1000; k++) {
		uint64_t expected = reference_xoshiro(s);
		uint64_t got = qkv_rng_next(&rng);
		if (got != expected)
			ck_abort_msg("seed %llu, output %d: 0x%016llx, expected 0x%016llx",
				     (unsigned long long)seed, k, (unsigned long long)got,
				     (unsigned long long)expected);
	}
}
END_TEST

START_TEST(test_same_seed_same_sequence)
{
	struct qkv_rng a, b;
	qkv_rng_seed(&a, 12345);
	qkv_rng_seed(&b, 12345);
	for (int k = 0; k < 1000; k++) {
		ck_assert(qkv_rng_next(&a) == qkv_rng_next(&b));
		ck_assert(qkv_rng_uniform(&a) == qkv_rng_uniform(&b));
		ck_assert(qkv_rng_normal(&a) == qkv_rng_normal(&b));
	}
}
END_TEST

START_TEST(test_different_seeds_differ)
{
	/* 200 seeds (0..199, neighbours included): every first output distinct. A
	 * chance collision among 200 random 64-bit values has probability ~1e-15. */
	uint64_t first[200];
	for (int seed = 0; seed < 200; seed++) {
		struct qkv_rng rng;
		qkv_rng_seed(&rng, (uint64_t)seed);
		first[seed] = qkv_rng_next(&rng);
		for (int other = 0; other < seed; other++)
			ck_assert_msg(first[other] != first[seed], "seeds %d and %d collide", other,
				      seed);
	}
	struct qkv_rng a, b;
	qkv_rng_seed(&a, 7);
	qkv_rng_seed(&b, 8);
	int same = 0;
	for (int k = 0; k < 100; k++)
		same += qkv_rng_normal(&a) == qkv_rng_normal(&b);
	ck_assert_int_eq(same, 0);
}
END_TEST

/* Reseeding forgets a pending Box–Muller spare: the sequence restarts exactly. */
START_TEST(test_reseed_forgets_spare)
{
	struct qkv_rng fresh, reused;
	qkv_rng_seed(&fresh, 99);
	qkv_rng_seed(&reused, 5);
	(void)qkv_rng_normal(&reused);
	qkv_rng_seed(&reused, 99);
	for (int k = 0; k < 10; k++)
		ck_assert(qkv_rng_normal(&fresh) == qkv_rng_normal(&reused));
}
END_TEST

/* Uniform draws: in [0, 1), on the 2^-53 grid ("53 random bits"), and with mean
 * 1/2: the standard error of the mean of N draws is √(1/12)/√N, so 6 standard
 * errors is 6·0.2887/1000 ≈ 0.0017 at N = 10^6. */
START_TEST(test_uniform_range_and_mean)
{
	const int count = 1000000;
	struct qkv_rng rng;
	qkv_rng_seed(&rng, 2024);
	double sum = 0.0, smallest = 1.0, largest = 0.0;
	int outside = 0, off_grid = 0;
	for (int k = 0; k < count; k++) {
		double u = qkv_rng_uniform(&rng);
		outside += !(u >= 0.0 && u < 1.0);
		off_grid += u * 0x1.0p53 != floor(u * 0x1.0p53);
		sum += u;
		smallest = fmin(smallest, u);
		largest = fmax(largest, u);
	}
	ck_assert_int_eq(outside, 0);
	ck_assert_int_eq(off_grid, 0);
	ck_assert_double_eq_tol(sum / count, 0.5, 6.0 * sqrt(1.0 / 12.0) / sqrt(count));
	/* Both ends of the interval are reached to within a few 1/N. */
	ck_assert(smallest < 1e-5);
	ck_assert(largest > 1.0 - 1e-5);
}
END_TEST

/* N = 200000 normal draws. The sample mean has standard error 1/√N ≈ 0.00224;
 * the sample variance of a normal has standard error √(2/N) ≈ 0.00316; the share
 * of draws with |z| < 1 (0.682689 for N(0,1)) has standard error √(p(1−p)/N) ≈
 * 0.00104. Each is allowed 6 standard errors: a correct generator fails with
 * probability ~2e-9, while a wrong scale or shape (e.g. a uniform of variance 1,
 * whose share is 0.577) is caught. */
START_TEST(test_normal_moments)
{
	const int count = 200000;
	struct qkv_rng rng;
	qkv_rng_seed(&rng, 31337);
	double sum = 0.0, squares = 0.0;
	int inside = 0, infinite = 0;
	for (int k = 0; k < count; k++) {
		double z = qkv_rng_normal(&rng);
		infinite += !isfinite(z);
		sum += z;
		squares += z * z;
		inside += fabs(z) < 1.0;
	}
	ck_assert_int_eq(infinite, 0);
	double mean = sum / count;
	double variance = squares / count - mean * mean;
	double share = (double)inside / count;
	ck_assert_double_eq_tol(mean, 0.0, 6.0 / sqrt(count));
	ck_assert_double_eq_tol(variance, 1.0, 6.0 * sqrt(2.0 / count));
	double p = erf(1.0 / sqrt(2.0));
	ck_assert_double_eq_tol(share, p, 6.0 * sqrt(p * (1.0 - p) / count));
}
END_TEST

START_TEST(test_cell_normal_is_pure)
{
	double first = qkv_rng_cell_normal(42, 1, 3, 5);
	ck_assert(isfinite(first));
	/* Other draws in between change nothing. */
	for (uint32_t k = 0; k < 100; k++)
		(void)qkv_rng_cell_normal(42 + k, k, k, k);
	struct qkv_rng rng;
	qkv_rng_seed(&rng, 42);
	(void)qkv_rng_normal(&rng);
	ck_assert(qkv_rng_cell_normal(42, 1, 3, 5) == first);
	/* Every coordinate matters, and rows and columns are not interchangeable. */
	ck_assert(qkv_rng_cell_normal(43, 1, 3, 5) != first);
	ck_assert(qkv_rng_cell_normal(42, 2, 3, 5) != first);
	ck_assert(qkv_rng_cell_normal(42, 1, 4, 5) != first);
	ck_assert(qkv_rng_cell_normal(42, 1, 3, 6) != first);
	ck_assert(qkv_rng_cell_normal(42, 1, 5, 3) != first);
	ck_assert(qkv_rng_cell_normal(42, 0, 0, 0) != qkv_rng_cell_normal(42, 1, 0, 0));
	ck_assert(qkv_rng_cell_normal(0, 0, 0, 1) != qkv_rng_cell_normal(0, 0, 1, 0));
}
END_TEST

/* 256 × 256 cells of one stream: N = 65536, so 6 standard errors are
 * 6/256 ≈ 0.023 for the mean and 6·√(2/N) ≈ 0.033 for the variance. Across two
 * streams at the same cells the correlation has standard error 1/√N: within
 * 6/256 of 0 (streams must not be copies or shifts of one another). */
START_TEST(test_cell_normal_distribution)
{
	const uint32_t side = 256;
	const double count = (double)side * side;
	double sum = 0.0, squares = 0.0, cross = 0.0, shifted = 0.0;
	for (uint32_t r = 0; r < side; r++)
		for (uint32_t c = 0; c < side; c++) {
			double z = qkv_rng_cell_normal(7, 0, r, c);
			double w = qkv_rng_cell_normal(7, 1, r, c);
			double next = qkv_rng_cell_normal(7, 0, r, c + 1);
			sum += z;
			squares += z * z;
			cross += z * w;
			shifted += z * next;
		}
	double mean = sum / count;
	ck_assert_double_eq_tol(mean, 0.0, 6.0 / sqrt(count));
	ck_assert_double_eq_tol(squares / count - mean * mean, 1.0, 6.0 * sqrt(2.0 / count));
	ck_assert_double_eq_tol(cross / count, 0.0, 6.0 / sqrt(count));
	ck_assert_double_eq_tol(shifted / count, 0.0, 6.0 / sqrt(count));
}
END_TEST

/* The suite: exact sequence, determinism, distributions. */
static Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *exact = tcase_create("exact");
	tcase_add_test(exact, test_reference_splitmix_anchor);
	tcase_add_loop_test(exact, test_matches_reference_sequence, 0, 5);
	tcase_add_test(exact, test_same_seed_same_sequence);
	tcase_add_test(exact, test_different_seeds_differ);
	tcase_add_test(exact, test_reseed_forgets_spare);
	suite_add_tcase(s, exact);
	TCase *distributions = tcase_create("distributions");
	tcase_set_timeout(distributions, 60);
	tcase_add_test(distributions, test_uniform_range_and_mean);
	tcase_add_test(distributions, test_normal_moments);
	tcase_add_test(distributions, test_cell_normal_is_pure);
	tcase_add_test(distributions, test_cell_normal_distribution);
	suite_add_tcase(s, distributions);
	return s;
}

int main(void)
{
	return run_tap(rng_suite());
}
