/* test_attention.c — Check suite for the attention trace (attention.h): the worked
 * example against its closed form, the stages against loops written here, and
 * the properties softmax must keep (rows sum to 1, shift invariance, permutation,
 * masks, saturation without NaN, the wrong-way variants).
 * Inputs come from the test's own LCG, never from the core's random numbers;
 * expected values never come from running the code under test. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/error.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"

#include "fixtures.h"
#include "lcg.h"
#include "oracle.h"
#include "tap_main.h"

#define MAX_N 48 /* largest n the tests below build */


/* A direct-form problem with Q, K in [-qk, qk) and V in [-5, 5), built field by field. */
static void build_direct(struct qkv_problem *p, int n, int d_k, int d_v, double qk,
			 struct lcg *g)
{
	qkv_problem_init(p);
	give_labels(p, n);
	p->form = QKV_FORM_DIRECT;
	fill(&p->q, n, d_k, qk, g);
	fill(&p->k, n, d_k, qk, g);
	fill(&p->v, n, d_v, 5.0, g);
	ck_assert_int_eq(qkv_problem_check(p), 0);
}

/* Allocates p's padding array (all 0) when it does not exist yet. */
static void ensure_padding(struct qkv_problem *p)
{
	if (p->padding == NULL) {
		p->padding = calloc((size_t)p->n, 1);
		ck_assert_ptr_nonnull(p->padding);
	}
}

/* Switches p to a custom mask of all zeros (every pair visible). */
static void clear_custom_mask(struct qkv_problem *p)
{
	ck_assert_int_eq(qkv_problem_set_mask(p, QKV_MASK_CUSTOM), 0);
	ck_assert_ptr_nonnull(p->mask_bits);
	memset(p->mask_bits, 0, (size_t)p->m * (size_t)p->n);
}

/* The reference computation, written independently here: s = q_i·k_j by a plain
 * loop over the m queries (rows of q) and n keys (rows of k), divided by
 * `divisor`, softmax over the keys visible to query i (the hidden pattern is read
 * from qkv_problem_is_masked, tested in test_problem), and out = A V. Fully
 * hidden rows become 0. */
static void reference(const struct qkv_matrix *q, const struct qkv_matrix *k,
		      const struct qkv_matrix *v, double divisor, const struct qkv_problem *p,
		      double scaled[MAX_N][MAX_N], double weights[MAX_N][MAX_N],
		      double output[MAX_N][MAX_N])
{
	int m = q->rows, n = k->rows;
	ck_assert_int_le(m, MAX_N);
	ck_assert_int_le(n, MAX_N);
	ck_assert_int_eq(v->rows, n);
	ck_assert_int_le(v->cols, MAX_N);
	for (int i = 0; i < m; i++) {
		double max = -INFINITY;
		for (int j = 0; j < n; j++) {
			double dot = 0.0;
			for (int c = 0; c < q->cols; c++)
				dot += qkv_matrix_get(q, i, c) * qkv_matrix_get(k, j, c);
			scaled[i][j] = dot / divisor;
			if (!qkv_problem_is_masked(p, i, j) && scaled[i][j] > max)
				max = scaled[i][j];
		}
		double total = 0.0;
		for (int j = 0; j < n; j++) {
			weights[i][j] = qkv_problem_is_masked(p, i, j) ? 0.0 : exp(scaled[i][j] - max);
			total += weights[i][j];
		}
		for (int j = 0; j < n; j++)
			weights[i][j] = total > 0.0 ? weights[i][j] / total : 0.0;
		for (int c = 0; c < v->cols; c++) {
			output[i][c] = 0.0;
			for (int j = 0; j < n; j++)
				output[i][c] += weights[i][j] * qkv_matrix_get(v, j, c);
		}
	}
}

/* Compares trace t with the reference computed from p's direct-form matrices. */
static void expect_reference(const struct qkv_problem *p, const struct qkv_trace *t,
			     double tolerance)
{
	static double scaled[MAX_N][MAX_N], weights[MAX_N][MAX_N], output[MAX_N][MAX_N];
	reference(&p->q, &p->k, &p->v, qkv_problem_divisor(p), p, scaled, weights, output);
	ck_assert_int_eq(t->n, p->n);
	ck_assert_int_eq(t->m, p->m);
	for (int i = 0; i < p->m; i++) {
		for (int j = 0; j < p->n; j++) {
			ck_assert_double_eq_tol(qkv_matrix_get(&t->scaled, i, j), scaled[i][j],
						tolerance * (1.0 + fabs(scaled[i][j])));
			ck_assert_double_eq_tol(qkv_matrix_get(&t->weights, i, j), weights[i][j],
						tolerance);
		}
		for (int c = 0; c < p->v.cols; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t->output, i, c), output[i][c],
						tolerance * 10.0);
	}
}

/* The case under test, for every test that works on one problem and its trace:
 * the tests' generator g, the sizes drawn from it, the problem p built from it and
 * its trace t. A checked fixture empties p and t before each case (each turn of a
 * loop test) and frees them after it, so a case builds and reads, and never frees. */
static struct lcg g;
static int n, d_k, d_v;
static struct qkv_problem p;
static struct qkv_trace t;

static void case_setup(void)
{
	qkv_problem_init(&p);
	qkv_trace_init(&t);
}

static void case_teardown(void)
{
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}

/* p: a direct-form problem of n tokens, d_k and d_v (Q, K in [-qk, qk)), from g
 * seeded with seed. */
static void build_seeded(uint64_t seed, int tokens, int key_size, int value_size, double qk)
{
	g.state = seed;
	n = tokens;
	d_k = key_size;
	d_v = value_size;
	qkv_problem_fini(&p);
	build_direct(&p, n, d_k, d_v, qk, &g);
}

/* As build_seeded, the sizes drawn from g first, in this order: n in [n_min, n_max],
 * d_k in [1, d_k_max], d_v in [1, d_v_max]. */
static void draw_case(uint64_t seed, int n_min, int n_max, int d_k_max, int d_v_max, double qk)
{
	g.state = seed;
	n = lcg_int(&g, n_min, n_max);
	d_k = lcg_int(&g, 1, d_k_max);
	d_v = lcg_int(&g, 1, d_v_max);
	qkv_problem_fini(&p);
	build_direct(&p, n, d_k, d_v, qk, &g);
}

START_TEST(test_worked_example_closed_form)
{
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(t.d_k, 2);
	ck_assert_int_eq(t.d_v, 2);
	ck_assert_double_eq_tol(t.divisor, sqrt(2.0), 1e-15);
	ck_assert(qkv_matrix_equal(&t.q, &p.q));
	ck_assert(qkv_matrix_equal(&t.k, &p.k));
	ck_assert(qkv_matrix_equal(&t.v, &p.v));

	/* Q Kᵀ on paper: rows (1,0)·(1,0),(0,1),(1,1) = 1,0,1; (0,1)· = 0,1,1; (1,1)· = 1,1,2. */
	const double scores[3][3] = {{1, 0, 1}, {0, 1, 1}, {1, 1, 2}};
	/* Softmax of scores/√2, with e = e^{1/√2}:
	 * row 1: (e, 1, e)/(2e+1); row 2: (1, e, e)/(1+2e); row 3: (e, e, e²)/(2e+e²). */
	double e = exp(1.0 / sqrt(2.0));
	const double weights[3][3] = {
		{e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)},
		{1 / (2 * e + 1), e / (2 * e + 1), e / (2 * e + 1)},
		{e / (2 * e + e * e), e / (2 * e + e * e), e * e / (2 * e + e * e)},
	};
	const double v[3][2] = {{10, 0}, {0, 10}, {5, 5}};
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			ck_assert(qkv_matrix_get(&t.scores, i, j) == scores[i][j]);
			ck_assert_double_eq_tol(qkv_matrix_get(&t.scaled, i, j),
						scores[i][j] / sqrt(2.0), 1e-15);
			ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, i, j), weights[i][j],
						1e-15);
			ck_assert(!qkv_trace_is_masked(&t, i, j));
		}
		for (int c = 0; c < 2; c++) {
			double out = 0.0;
			for (int j = 0; j < 3; j++)
				out += weights[i][j] * v[j][c];
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, i, c), out, 1e-13);
		}
	}
	/* In numbers, row 1 is ≈ (0.4011, 0.1978, 0.4011), not the course's
	 * hand-rounded (0.38, 0.19, 0.42). */
	ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, 0, 0), 0.40111209268, 1e-10);
	ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, 0, 1), 0.19777581464, 1e-10);
}
END_TEST

START_TEST(test_scores_are_q_k_transposed)
{
	draw_case(300u + (uint64_t)_i, 1, 20, 40, 9, 2.0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(t.n, n);
	ck_assert_int_eq(t.d_k, d_k);
	ck_assert_int_eq(t.d_v, d_v);
	ck_assert_int_eq(t.scores.rows, n);
	ck_assert_int_eq(t.scores.cols, n);
	ck_assert_int_eq(t.output.rows, n);
	ck_assert_int_eq(t.output.cols, d_v);
	ck_assert_double_eq_tol(t.divisor, sqrt((double)d_k), 1e-14);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double dot = 0.0, magnitude = 0.0;
			for (int c = 0; c < d_k; c++) {
				dot += qkv_matrix_get(&p.q, i, c) * qkv_matrix_get(&p.k, j, c);
				magnitude += fabs(qkv_matrix_get(&p.q, i, c) * qkv_matrix_get(&p.k, j, c));
			}
			ck_assert_double_eq_tol(qkv_matrix_get(&t.scores, i, j), dot,
						1e-15 * d_k * (1.0 + magnitude));
		}
	expect_reference(&p, &t, 1e-12);
}
END_TEST

START_TEST(test_rows_sum_to_one)
{
	draw_case(500u + (uint64_t)_i, 1, MAX_N, 64, 8, 3.0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	for (int i = 0; i < n; i++) {
		double sum = 0.0;
		for (int j = 0; j < n; j++) {
			double a = qkv_matrix_get(&t.weights, i, j);
			ck_assert(a >= 0.0 && a <= 1.0);
			sum += a;
		}
		ck_assert_double_eq_tol(sum, 1.0, 1e-12);
		ck_assert_double_eq_tol(t.rows[i].weight_sum, 1.0, 1e-12);
		ck_assert_int_eq(t.rows[i].live_keys, n);
	}
}
END_TEST

START_TEST(test_softmax_row_shift_invariant)
{
	g.state = 700u + (uint64_t)_i;
	int count = lcg_int(&g, 1, 30);
	double x[30], shifted[30], a[30], b[30];
	/* Dyadic values and an integer shift: x + c is exact, so the results must be
	 * bit-identical. */
	double c = (double)lcg_int(&g, -1000, 1000);
	for (int j = 0; j < count; j++) {
		x[j] = (double)lcg_int(&g, -64, 64) / 8.0;
		shifted[j] = x[j] + c;
	}
	ck_assert_int_eq(qkv_softmax_row(x, NULL, count, a), count);
	ck_assert_int_eq(qkv_softmax_row(shifted, NULL, count, b), count);
	for (int j = 0; j < count; j++)
		ck_assert_msg(a[j] == b[j], "entry %d: %.17g vs %.17g after adding %g", j, a[j],
			      b[j], c);
	/* Arbitrary values and shift: the rounding of x + c (≤ 1e-14 here) bounds the
	 * difference. */
	c = 40.0 * lcg_signed(&g);
	double sum = 0.0;
	for (int j = 0; j < count; j++) {
		x[j] = 5.0 * lcg_signed(&g);
		shifted[j] = x[j] + c;
	}
	qkv_softmax_row(x, NULL, count, a);
	qkv_softmax_row(shifted, NULL, count, b);
	for (int j = 0; j < count; j++) {
		ck_assert_double_eq_tol(a[j], b[j], 1e-12);
		sum += a[j];
	}
	ck_assert_double_eq_tol(sum, 1.0, 1e-12);
}
END_TEST

START_TEST(test_softmax_row_values_and_hidden)
{
	/* softmax(0, ln 2, ln 3) = (1, 2, 3)/6; hiding the middle gives (1, 0, 3)/4. */
	const double x[3] = {0.0, log(2.0), log(3.0)};
	const unsigned char hide_middle[3] = {0, 1, 0};
	const unsigned char hide_all[3] = {1, 1, 1};
	double out[3];
	ck_assert_int_eq(qkv_softmax_row(x, NULL, 3, out), 3);
	ck_assert_double_eq_tol(out[0], 1.0 / 6.0, 1e-15);
	ck_assert_double_eq_tol(out[1], 2.0 / 6.0, 1e-15);
	ck_assert_double_eq_tol(out[2], 3.0 / 6.0, 1e-15);
	ck_assert_int_eq(qkv_softmax_row(x, hide_middle, 3, out), 2);
	ck_assert_double_eq_tol(out[0], 0.25, 1e-15);
	ck_assert(out[1] == 0.0);
	ck_assert_double_eq_tol(out[2], 0.75, 1e-15);
	for (int j = 0; j < 3; j++)
		out[j] = NAN;
	ck_assert_int_eq(qkv_softmax_row(x, hide_all, 3, out), 0);
	for (int j = 0; j < 3; j++)
		ck_assert(out[j] == 0.0);
	/* A single live entry is exactly 1 whatever its value. */
	const double huge[2] = {-1e300, 1e300};
	ck_assert_int_eq(qkv_softmax_row(huge, NULL, 1, out), 1);
	ck_assert(out[0] == 1.0);
	ck_assert_int_eq(qkv_softmax_row(huge, NULL, 2, out), 2);
	ck_assert(out[0] == 0.0);
	ck_assert(out[1] == 1.0);
}
END_TEST

/* Adding a constant to every score of a row, through the inputs: give Q an extra
 * column c_i and K an extra column of ones, so q_i·k_j grows by c_i for every j.
 * With scale NONE the scaled row shifts by c_i and nothing after it changes. */
START_TEST(test_score_row_shift_through_inputs)
{
	struct qkv_trace before, after;
	draw_case(900u + (uint64_t)_i, 2, 16, 8, 5, 2.0);
	p.scale = QKV_SCALE_NONE;
	qkv_trace_init(&before);
	qkv_trace_init(&after);
	ck_assert_int_eq(qkv_attention(&p, &before), 0);
	ck_assert(!p.seeded); /* so the new column starts at zero, to be set below */
	ck_assert_int_eq(qkv_problem_set_d_k(&p, d_k + 1), 0);
	for (int i = 0; i < n; i++) {
		qkv_matrix_set(&p.q, i, d_k, 20.0 * lcg_signed(&g));
		qkv_matrix_set(&p.k, i, d_k, 1.0);
	}
	ck_assert_int_eq(qkv_attention(&p, &after), 0);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++)
			ck_assert_double_eq_tol(qkv_matrix_get(&after.weights, i, j),
						qkv_matrix_get(&before.weights, i, j), 1e-12);
		for (int c = 0; c < d_v; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&after.output, i, c),
						qkv_matrix_get(&before.output, i, c), 1e-11);
	}
	qkv_trace_fini(&before);
	qkv_trace_fini(&after);
}
END_TEST

/* Reordering the keys and values (the same permutation of rows of K and V)
 * permutes the weight columns and leaves the output unchanged. */
START_TEST(test_permuting_keys_and_values)
{
	struct qkv_problem permuted;
	struct qkv_trace u;
	draw_case(1100u + (uint64_t)_i, 2, 24, 16, 6, 2.0);
	qkv_problem_init(&permuted);
	ck_assert_int_eq(qkv_problem_copy(&permuted, &p), 0);
	int order[MAX_N];
	for (int j = 0; j < n; j++)
		order[j] = j;
	for (int j = n - 1; j > 0; j--) {
		int r = lcg_int(&g, 0, j), swap = order[j];
		order[j] = order[r];
		order[r] = swap;
	}
	/* Row j of the permuted K and V is row order[j] of the originals. */
	for (int j = 0; j < n; j++) {
		for (int c = 0; c < d_k; c++)
			qkv_matrix_set(&permuted.k, j, c, qkv_matrix_get(&p.k, order[j], c));
		for (int c = 0; c < d_v; c++)
			qkv_matrix_set(&permuted.v, j, c, qkv_matrix_get(&p.v, order[j], c));
	}
	qkv_trace_init(&u);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_attention(&permuted, &u), 0);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			ck_assert(qkv_matrix_get(&u.scores, i, j) ==
				  qkv_matrix_get(&t.scores, i, order[j]));
			ck_assert_double_eq_tol(qkv_matrix_get(&u.weights, i, j),
						qkv_matrix_get(&t.weights, i, order[j]), 1e-14);
		}
		for (int c = 0; c < d_v; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&u.output, i, c),
						qkv_matrix_get(&t.output, i, c), 1e-12);
	}
	qkv_trace_fini(&u);
	qkv_problem_fini(&permuted);
}
END_TEST

START_TEST(test_custom_mask_exact_zeros)
{
	draw_case(1300u + (uint64_t)_i, 2, 20, 8, 4, 3.0);
	clear_custom_mask(&p);
	int live[MAX_N];
	for (int i = 0; i < n; i++) {
		live[i] = 0;
		for (int j = 0; j < n; j++) {
			p.mask_bits[i * n + j] = (unsigned char)(lcg_int(&g, 0, 2) == 0);
			live[i] += p.mask_bits[i * n + j] == 0;
		}
		if (live[i] == 0) {
			p.mask_bits[i * n + i] = 0;
			live[i] = 1;
		}
	}
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	for (int i = 0; i < n; i++) {
		double sum = 0.0;
		for (int j = 0; j < n; j++) {
			bool hidden = p.mask_bits[i * n + j] != 0;
			ck_assert(qkv_trace_is_masked(&t, i, j) == hidden);
			if (hidden)
				ck_assert_msg(qkv_matrix_get(&t.weights, i, j) == 0.0,
					      "masked (%d,%d) = %g", i, j,
					      qkv_matrix_get(&t.weights, i, j));
			else
				sum += qkv_matrix_get(&t.weights, i, j);
		}
		ck_assert_double_eq_tol(sum, 1.0, 1e-12);
		ck_assert_int_eq(t.rows[i].live_keys, live[i]);
	}
	expect_reference(&p, &t, 1e-12);
}
END_TEST

START_TEST(test_causal_mask)
{
	draw_case(1500u + (uint64_t)_i, 2, 20, 8, 4, 3.0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	/* The first query sees only itself. */
	ck_assert(qkv_matrix_get(&t.weights, 0, 0) == 1.0);
	for (int c = 0; c < d_v; c++)
		ck_assert_double_eq_tol(qkv_matrix_get(&t.output, 0, c), qkv_matrix_get(&p.v, 0, c),
					1e-15);
	for (int i = 0; i < n; i++) {
		double sum = 0.0;
		for (int j = 0; j < n; j++) {
			ck_assert(qkv_trace_is_masked(&t, i, j) == (j > i));
			if (j > i)
				ck_assert(qkv_matrix_get(&t.weights, i, j) == 0.0);
			sum += qkv_matrix_get(&t.weights, i, j);
		}
		ck_assert_double_eq_tol(sum, 1.0, 1e-12);
		ck_assert_int_eq(t.rows[i].live_keys, i + 1);
	}
	expect_reference(&p, &t, 1e-12);
}
END_TEST

/* True when every number in the trace is finite. */
static bool trace_all_finite(const struct qkv_trace *trace)
{
	if (!qkv_matrix_all_finite(&trace->q) || !qkv_matrix_all_finite(&trace->k) ||
	    !qkv_matrix_all_finite(&trace->v) || !qkv_matrix_all_finite(&trace->scores) ||
	    !qkv_matrix_all_finite(&trace->scaled) || !qkv_matrix_all_finite(&trace->weights) ||
	    !qkv_matrix_all_finite(&trace->output) || !isfinite(trace->score_variance) ||
	    !isfinite(trace->divisor))
		return false;
	for (int i = 0; i < trace->n; i++) {
		const struct qkv_row_stats *r = &trace->rows[i];
		if (!isfinite(r->max_weight) || !isfinite(r->entropy) ||
		    !isfinite(r->effective_tokens) || !isfinite(r->jacobian_norm) ||
		    !isfinite(r->weight_sum))
			return false;
	}
	return true;
}

/* Entries of Q and K around 1e6 make scores around 1e12: softmax saturates to
 * one-hot rows, and nothing may become NaN or Inf. */
START_TEST(test_huge_scores_saturate_cleanly)
{
	draw_case(1700u + (uint64_t)_i, 2, 12, 8, 4, 1e6);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(trace_all_finite(&t));
	for (int i = 0; i < n; i++) {
		/* The one-hot position is the largest scaled score, found here. */
		int best = 0;
		for (int j = 1; j < n; j++)
			if (qkv_matrix_get(&t.scaled, i, j) > qkv_matrix_get(&t.scaled, i, best))
				best = j;
		for (int j = 0; j < n; j++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, i, j), j == best ? 1.0 : 0.0,
						1e-12);
		ck_assert_double_eq_tol(t.rows[i].max_weight, 1.0, 1e-12);
		ck_assert_int_eq(t.rows[i].argmax, best);
		ck_assert_double_eq_tol(t.rows[i].entropy, 0.0, 1e-9);
		ck_assert_double_eq_tol(t.rows[i].jacobian_norm, 0.0, 1e-9);
	}
}
END_TEST

/* The extreme corner the limits allow: |values| = QKV_MAX_VALUE, large d_k, no
 * scaling and the smallest temperature. */
START_TEST(test_extreme_limits_stay_finite)
{
	build_seeded(1900, 6, 512, 3, QKV_MAX_VALUE);
	for (int j = 0; j < 3; j++)
		qkv_matrix_set(&p.v, 0, j, QKV_MAX_VALUE);
	p.scale = QKV_SCALE_NONE;
	p.temperature = QKV_MIN_TEMPERATURE;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(trace_all_finite(&t));
	for (int i = 0; i < 6; i++)
		ck_assert_double_eq_tol(t.rows[i].weight_sum, 1.0, 1e-12);
}
END_TEST

START_TEST(test_fully_masked_row)
{
	build_seeded(2100, 5, 3, 2, 2.0);
	clear_custom_mask(&p);
	memset(p.mask_bits + 1 * 5, 1, 5);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(trace_all_finite(&t));
	for (int j = 0; j < 5; j++)
		ck_assert(qkv_matrix_get(&t.weights, 1, j) == 0.0);
	for (int c = 0; c < 2; c++)
		ck_assert(qkv_matrix_get(&t.output, 1, c) == 0.0);
	ck_assert_int_eq(t.rows[1].argmax, -1);
	ck_assert_int_eq(t.rows[1].live_keys, 0);
	ck_assert(t.rows[1].weight_sum == 0.0);
	ck_assert(t.rows[1].max_weight == 0.0);
	for (int i = 0; i < 5; i++)
		if (i != 1)
			ck_assert_double_eq_tol(t.rows[i].weight_sum, 1.0, 1e-12);
	expect_reference(&p, &t, 1e-12);
}
END_TEST

/* The mix of one query: its terms, each rounded as shown, add up to the rounded
 * output or not. Query 4 of the causal sample (q = (1, −1) against keys (1, 1),
 * (0, 1), (1, 0), (1, −1), values (1, 0), (0, 1), (1, 1), (2, 0)), d1 by hand:
 * terms a_1, 0, a_3, 2 a_4 with a ∝ e^(0, −1, 1, 2)/√2. At two decimals 0.13 +
 * 0.27 + 1.08 = 1.48 against 1.47; at five they add up. Random problems: the
 * rounding sums done here. */
START_TEST(test_mix_adds_up)
{
	static const double q[] = { 1, 0, 0, 1, 1, 1, 1, -1 }, k[] = { 1, 1, 0, 1, 1, 0, 1, -1 };
	static const double v[] = { 1, 0, 0, 1, 1, 1, 2, 0 };
	double z = 0.0, a[4];

	for (int j = 0; j < 4; j++)
		z += exp((j == 0 ? 0.0 : j == 1 ? -1.0 : j == 2 ? 1.0 : 2.0) / sqrt(2.0));
	for (int j = 0; j < 4; j++)
		a[j] = exp((j == 0 ? 0.0 : j == 1 ? -1.0 : j == 2 ? 1.0 : 2.0) / sqrt(2.0)) / z;
	give_labels(&p, 4);
	p.form = QKV_FORM_DIRECT;
	ck_assert_int_eq(qkv_matrix_set_all(&p.q, 4, 2, q), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p.k, 4, 2, k), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p.v, 4, 2, v), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(llround(100 * a[0]) + llround(100 * a[2]) + llround(200 * a[3]) !=
		  llround(100 * (a[0] + a[2] + 2 * a[3])));
	ck_assert(!qkv_trace_mix_adds_up(&t, 3, 0, 2));
	ck_assert(qkv_trace_mix_adds_up(&t, 3, 1, 2)); /* d2: 0.06 + 0.27 = 0.33 */
	ck_assert(qkv_trace_mix_adds_up(&t, 3, 0, 5));
	g.state = 2600;
	for (int trial = 0; trial < 20; trial++) {
		n = 2 + trial % 6;
		qkv_problem_fini(&p);
		build_direct(&p, n, 3, 2, 2.0, &g);
		ck_assert_int_eq(qkv_attention(&p, &t), 0);
		for (int i = 0; i < n; i++)
			for (int c = 0; c < 2; c++) {
				long long shown = 0;
				double sum = 0.0;

				for (int j = 0; j < n; j++) {
					double term = qkv_matrix_get(&t.weights, i, j) * qkv_matrix_get(&p.v, j, c);

					shown += llround(100 * term);
					sum += term;
				}
				ck_assert(qkv_trace_mix_adds_up(&t, i, c, 2) == (shown == llround(100 * sum)));
			}
	}
}
END_TEST

START_TEST(test_padding_everything)
{
	build_seeded(2300, 4, 3, 2, 2.0);
	ensure_padding(&p);
	memset(p.padding, 1, 4);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(t.n, 4);
	ck_assert(trace_all_finite(&t));
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			ck_assert(qkv_trace_is_masked(&t, i, j));
			ck_assert(qkv_matrix_get(&t.weights, i, j) == 0.0);
		}
		for (int c = 0; c < 2; c++)
			ck_assert(qkv_matrix_get(&t.output, i, c) == 0.0);
		ck_assert_int_eq(t.rows[i].live_keys, 0);
		ck_assert_int_eq(t.rows[i].argmax, -1);
	}
	/* Padding one token hides that key from every query. */
	memset(p.padding, 0, 4);
	p.padding[2] = 1;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert(qkv_matrix_get(&t.weights, i, 2) == 0.0);
		ck_assert_int_eq(t.rows[i].live_keys, 3);
	}
	expect_reference(&p, &t, 1e-12);
}
END_TEST

START_TEST(test_projected_form)
{
	g.state = 2500u + (uint64_t)_i;
	n = lcg_int(&g, 1, 10);
	int d_model = lcg_int(&g, 1, 12);
	d_k = lcg_int(&g, 1, 8);
	d_v = lcg_int(&g, 1, 6);
	give_labels(&p, n);
	p.form = QKV_FORM_PROJECTED;
	fill(&p.x, n, d_model, 2.0, &g);
	fill(&p.w_q, d_model, d_k, 1.0, &g);
	fill(&p.w_k, d_model, d_k, 1.0, &g);
	fill(&p.w_v, d_model, d_v, 1.0, &g);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_problem_d_k(&p), d_k);
	ck_assert_int_eq(qkv_problem_d_v(&p), d_v);
	ck_assert_int_eq(qkv_problem_d_model(&p), d_model);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(t.d_k, d_k);
	ck_assert_int_eq(t.d_v, d_v);
	/* Q = X W_Q, K = X W_K, V = X W_V by plain loops. */
	const struct qkv_matrix *w[3] = {&p.w_q, &p.w_k, &p.w_v};
	const struct qkv_matrix *used[3] = {&t.q, &t.k, &t.v};
	for (int m = 0; m < 3; m++) {
		ck_assert_int_eq(used[m]->rows, n);
		ck_assert_int_eq(used[m]->cols, w[m]->cols);
		for (int i = 0; i < n; i++)
			for (int c = 0; c < w[m]->cols; c++) {
				double sum = 0.0;
				for (int r = 0; r < d_model; r++)
					sum += qkv_matrix_get(&p.x, i, r) * qkv_matrix_get(w[m], r, c);
				ck_assert_double_eq_tol(qkv_matrix_get(used[m], i, c), sum, 1e-13);
			}
	}
	/* The later stages follow from the projected Q, K, V. */
	static double scaled[MAX_N][MAX_N], weights[MAX_N][MAX_N], output[MAX_N][MAX_N];
	reference(&t.q, &t.k, &t.v, sqrt((double)d_k), &p, scaled, weights, output);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, i, j), weights[i][j], 1e-12);
		for (int c = 0; c < d_v; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, i, c), output[i][c], 1e-11);
	}
}
END_TEST

START_TEST(test_mix_cells)
{
	draw_case(2700u + (uint64_t)_i, 1, 12, 8, 6, 2.0);
	if (_i % 2 == 1)
		ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	for (int i = 0; i < n; i++)
		for (int c = 0; c < d_v; c++) {
			double sum = 0.0;
			for (int j = 0; j < n; j++) {
				double expected = qkv_matrix_get(&t.weights, i, j) *
						  qkv_matrix_get(&p.v, j, c);
				double mix = qkv_trace_mix(&t, i, j, c);
				ck_assert_double_eq_tol(mix, expected, 1e-15 * (1.0 + fabs(expected)));
				sum += mix;
			}
			ck_assert_double_eq_tol(sum, qkv_matrix_get(&t.output, i, c), 1e-12);
		}
}
END_TEST

START_TEST(test_wrong_column_softmax)
{
	draw_case(2900u + (uint64_t)_i, 2, 12, 8, 4, 2.0);
	p.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(trace_all_finite(&t));
	for (int j = 0; j < n; j++) {
		double total = 0.0, sum = 0.0;
		for (int i = 0; i < n; i++)
			total += exp(qkv_matrix_get(&t.scaled, i, j));
		for (int i = 0; i < n; i++) {
			double a = qkv_matrix_get(&t.weights, i, j);
			ck_assert_double_eq_tol(a, exp(qkv_matrix_get(&t.scaled, i, j)) / total, 1e-12);
			sum += a;
		}
		ck_assert_double_eq_tol(sum, 1.0, 1e-12);
		ck_assert_double_eq_tol(qkv_trace_column_sum(&t, j), 1.0, 1e-12);
	}
	/* And the output is still weights · V. */
	for (int i = 0; i < n; i++)
		for (int c = 0; c < d_v; c++) {
			double out = 0.0;
			for (int j = 0; j < n; j++)
				out += qkv_matrix_get(&t.weights, i, j) * qkv_matrix_get(&p.v, j, c);
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, i, c), out, 1e-12);
		}
}
END_TEST

/* Column sums under the causal mask: the last key is seen by the last query only,
 * so its column sums to that one weight, exactly; the first key by every query;
 * and all the columns together hold what all the rows hold, n (each row sums to 1). */
START_TEST(test_column_sums)
{
	double total = 0.0, first = 0.0;

	draw_case(3100u + (uint64_t)_i, 2, 12, 8, 4, 2.0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(qkv_trace_column_sum(&t, n - 1) == qkv_matrix_get(&t.weights, n - 1, n - 1));
	for (int i = n - 1; i >= 0; i--)
		first += qkv_matrix_get(&t.weights, i, 0);
	ck_assert_double_eq_tol(qkv_trace_column_sum(&t, 0), first, 1e-12);
	for (int j = 0; j < n; j++)
		total += qkv_trace_column_sum(&t, j);
	ck_assert_double_eq_tol(total, (double)n, 1e-12);
}
END_TEST

/* Mask after softmax: a full softmax over every key, then the hidden ones zeroed,
 * so row i keeps only the share of an unmasked softmax that fell on keys ≤ i. */
START_TEST(test_wrong_mask_after_softmax)
{
	draw_case(3100u + (uint64_t)_i, 2, 12, 8, 4, 2.0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	p.wrong = QKV_WRONG_MASK_AFTER_SOFTMAX;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert(trace_all_finite(&t));
	for (int i = 0; i < n; i++) {
		double total = 0.0, share = 0.0, sum = 0.0;
		for (int j = 0; j < n; j++)
			total += exp(qkv_matrix_get(&t.scaled, i, j));
		for (int j = 0; j < n; j++) {
			double unmasked = exp(qkv_matrix_get(&t.scaled, i, j)) / total;
			double a = qkv_matrix_get(&t.weights, i, j);
			if (j > i) {
				ck_assert(a == 0.0);
			} else {
				ck_assert_double_eq_tol(a, unmasked, 1e-12);
				share += unmasked;
			}
			sum += a;
		}
		ck_assert_double_eq_tol(sum, share, 1e-12);
		ck_assert_double_eq_tol(t.rows[i].weight_sum, share, 1e-12);
		if (i < n - 1)
			ck_assert_msg(sum < 1.0 - 1e-12, "row %d sums to %.17g", i, sum);
		else
			ck_assert_double_eq_tol(sum, 1.0, 1e-12);
	}
}
END_TEST

START_TEST(test_scale_and_temperature)
{
	build_seeded(3300, 6, 9, 3, 2.0);
	const struct {
		enum qkv_scale scale;
		double scale_value, temperature, divisor;
	} cases[] = {
		{QKV_SCALE_SQRT_DK, 0.0, 1.0, 3.0},
		{QKV_SCALE_SQRT_DK, 0.0, 2.0, 6.0},
		{QKV_SCALE_SQRT_DK, 0.0, 0.25, 0.75},
		{QKV_SCALE_NONE, 0.0, 1.0, 1.0},
		{QKV_SCALE_NONE, 0.0, 0.5, 0.5},
		{QKV_SCALE_CUSTOM, 4.0, 1.0, 4.0},
		{QKV_SCALE_CUSTOM, 4.0, 3.0, 12.0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		p.scale = cases[c].scale;
		p.scale_value = cases[c].scale_value;
		p.temperature = cases[c].temperature;
		ck_assert_int_eq(qkv_attention(&p, &t), 0);
		ck_assert_double_eq_tol(t.divisor, cases[c].divisor, 1e-15);
		for (int i = 0; i < 6; i++)
			for (int j = 0; j < 6; j++)
				ck_assert_double_eq_tol(qkv_matrix_get(&t.scaled, i, j),
							qkv_matrix_get(&t.scores, i, j) /
								cases[c].divisor,
							1e-14);
		expect_reference(&p, &t, 1e-12);
	}
	/* A larger divisor flattens every row: the largest weight cannot grow. */
	p.scale = QKV_SCALE_SQRT_DK;
	p.temperature = 1.0;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	double sharp[6];
	for (int i = 0; i < 6; i++)
		sharp[i] = t.rows[i].max_weight;
	p.temperature = 4.0;
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	for (int i = 0; i < 6; i++)
		ck_assert(t.rows[i].max_weight <= sharp[i] + 1e-15);
}
END_TEST

START_TEST(test_rejects_bad_problem)
{
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(qkv_matrix_resize(&p.k, 3, 3), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), QKV_ESHAPE);
	ck_assert_int_eq(t.n, 0);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	p.temperature = 0.0;
	ck_assert_int_eq(qkv_attention(&p, &t), QKV_EINVAL);
	ck_assert_int_eq(t.n, 0);
}
END_TEST

/* A trace reused for a smaller problem holds exactly what a fresh one would. */
START_TEST(test_trace_reuse)
{
	g.state = 3500;
	struct qkv_problem big, small;
	struct qkv_trace reused, fresh;
	build_direct(&big, 30, 12, 7, 2.0, &g);
	build_direct(&small, 4, 2, 3, 2.0, &g);
	ck_assert_int_eq(qkv_problem_set_mask(&small, QKV_MASK_CAUSAL), 0);
	qkv_trace_init(&reused);
	qkv_trace_init(&fresh);
	ck_assert_int_eq(qkv_attention(&big, &reused), 0);
	ck_assert_int_eq(qkv_attention(&small, &reused), 0);
	ck_assert_int_eq(qkv_attention(&small, &fresh), 0);
	ck_assert_int_eq(reused.n, 4);
	ck_assert(qkv_matrix_equal(&reused.scores, &fresh.scores));
	ck_assert(qkv_matrix_equal(&reused.scaled, &fresh.scaled));
	ck_assert(qkv_matrix_equal(&reused.weights, &fresh.weights));
	ck_assert(qkv_matrix_equal(&reused.output, &fresh.output));
	ck_assert(memcmp(reused.masked, fresh.masked, 16) == 0);
	for (int i = 0; i < 4; i++) {
		ck_assert(reused.rows[i].entropy == fresh.rows[i].entropy);
		ck_assert_int_eq(reused.rows[i].live_keys, fresh.rows[i].live_keys);
	}
	ck_assert(reused.score_variance == fresh.score_variance);
	qkv_trace_fini(&reused);
	qkv_trace_fini(&fresh);
	qkv_problem_fini(&big);
	qkv_problem_fini(&small);
}
END_TEST

/* Bit for bit: the same bytes in every double of a and b. */
static bool same_bits(const double *a, const double *b, size_t count)
{
	return count == 0 || memcmp(a, b, count * sizeof *a) == 0;
}

/* What differs between two traces, bit for bit, in every stage and statistic: NULL
 * when nothing does (one assertion per comparison: Check records each one). */
static const char *trace_difference(const struct qkv_trace *a, const struct qkv_trace *b)
{
	const struct qkv_matrix *ma[] = {&a->q, &a->k, &a->v, &a->scores, &a->scaled,
					 &a->weights, &a->output, &a->k_t};
	const struct qkv_matrix *mb[] = {&b->q, &b->k, &b->v, &b->scores, &b->scaled,
					 &b->weights, &b->output, &b->k_t};
	static const char *const names[] = {"Q", "K", "V", "S", "S'", "A", "O", "Kt"};

	if (a->m != b->m || a->n != b->n || a->d_k != b->d_k || a->d_v != b->d_v)
		return "sizes";
	if (!same_bits(&a->divisor, &b->divisor, 1))
		return "divisor";
	for (int m = 0; m < 8; m++)
		if (!qkv_matrix_equal(ma[m], mb[m]))
			return names[m];
	if (memcmp(a->masked, b->masked, (size_t)a->m * (size_t)a->n) != 0)
		return "mask";
	for (int i = 0; i < a->m; i++) {
		const struct qkv_row_stats *x = &a->rows[i], *y = &b->rows[i];

		if (!same_bits(&x->max_weight, &y->max_weight, 1) || !same_bits(&x->entropy, &y->entropy, 1) ||
		    !same_bits(&x->effective_tokens, &y->effective_tokens, 1) ||
		    !same_bits(&x->jacobian_norm, &y->jacobian_norm, 1) ||
		    !same_bits(&x->weight_sum, &y->weight_sum, 1) || x->argmax != y->argmax ||
		    x->live_keys != y->live_keys)
			return "row statistics";
	}
	if (!same_bits(&a->score_variance, &b->score_variance, 1))
		return "score variance";
	return NULL;
}

/* Two traces hold the same numbers, bit for bit. */
static void expect_same_trace(const struct qkv_trace *a, const struct qkv_trace *b)
{
	const char *differs = trace_difference(a, b);

	ck_assert_msg(differs == NULL, "%s differs", differs);
}

/* A value for an edited cell: ordinary, large enough to saturate, exactly 0 or −0,
 * or the value already there. */
static double edit_value(struct lcg *from, double present)
{
	switch (lcg_int(from, 0, 9)) {
	case 0:
		return 0.0;
	case 1:
		return -0.0;
	case 2:
		return present;
	case 3:
		return 400.0 * lcg_signed(from);
	default:
		return 3.0 * lcg_signed(from);
	}
}

/* Thousands of single-cell edits of every input, each applied to one trace kept up
 * to date by qkv_attention_update and compared, every byte of it, with a fresh
 * qkv_attention of the edited problem. Loop i picks the form, the mask (none,
 * causal, custom, padding), the wrong-way mode, the scale (√d_k, none, custom)
 * and the temperature, and the sizes, some above the matrix product's 64-row
 * bands. */
START_TEST(test_incremental_equals_full)
{
	bool projected = _i % 2 == 1;
	int mask = (_i / 2) % 4, wrong = (_i / 8) % 3;
	bool big = _i % 5 == 4;
	int edits = big ? 150 : 500;
	struct qkv_trace live, full;

	g.state = 4100u + (uint64_t)_i;
	n = big ? lcg_int(&g, 65, 80) : lcg_int(&g, 1, 12);
	d_k = big ? lcg_int(&g, 60, 70) : lcg_int(&g, 1, 9);
	d_v = big ? lcg_int(&g, 60, 70) : lcg_int(&g, 1, 6);
	if (projected) {
		int d_model = big ? lcg_int(&g, 60, 70) : lcg_int(&g, 1, 10);

		give_labels(&p, n);
		p.form = QKV_FORM_PROJECTED;
		fill(&p.x, n, d_model, 2.0, &g);
		fill(&p.w_q, d_model, d_k, 1.0, &g);
		fill(&p.w_k, d_model, d_k, 1.0, &g);
		fill(&p.w_v, d_model, d_v, 1.0, &g);
	} else {
		build_direct(&p, n, d_k, d_v, 2.0, &g);
	}
	if (mask == 1) {
		ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	} else if (mask == 2) {
		clear_custom_mask(&p);
		for (int c = 0; c < n * n; c++)
			p.mask_bits[c] = (unsigned char)(lcg_int(&g, 0, 3) == 0);
	} else if (mask == 3) {
		ensure_padding(&p);
		for (int j = 0; j < n; j++)
			p.padding[j] = (unsigned char)(lcg_int(&g, 0, 3) == 0);
	}
	p.wrong = (enum qkv_wrong)wrong;
	/* The divisor every row shares: √d_k, none or a custom number, and τ. */
	p.scale = (enum qkv_scale)(_i % 3);
	if (p.scale == QKV_SCALE_CUSTOM)
		p.scale_value = 0.3 + 5.0 * (1.0 + lcg_signed(&g));
	p.temperature = _i % 4 == 3 ? 0.05 + 2.0 * (1.0 + lcg_signed(&g)) : 1.0;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_trace_init(&live);
	qkv_trace_init(&full);
	ck_assert_int_eq(qkv_attention(&p, &live), 0);
	for (int e = 0; e < edits; e++) {
		static const enum qkv_grid direct[] = {QKV_GRID_Q, QKV_GRID_K, QKV_GRID_V};
		static const enum qkv_grid proj[] = {QKV_GRID_X, QKV_GRID_W_Q, QKV_GRID_W_K,
						      QKV_GRID_W_V};
		enum qkv_grid which = projected ? proj[lcg_int(&g, 0, 3)] : direct[lcg_int(&g, 0, 2)];
		struct qkv_matrix *m = qkv_problem_input(&p, which);
		int row = lcg_int(&g, 0, m->rows - 1), col = lcg_int(&g, 0, m->cols - 1);

		qkv_matrix_set(m, row, col, edit_value(&g, qkv_matrix_get(m, row, col)));
		ck_assert_int_eq(qkv_attention_update(&p, &live, which, row, col), 0);
		ck_assert_int_eq(qkv_attention(&p, &full), 0);
		expect_same_trace(&live, &full);
	}
	qkv_trace_fini(&live);
	qkv_trace_fini(&full);
}
END_TEST

/* An update that does not fit the trace (another size, no trace yet, a cell out
 * of range) computes the trace whole instead, and a bad problem is refused. */
START_TEST(test_incremental_falls_back)
{
	struct qkv_trace live, full;

	build_seeded(4200, 5, 3, 2, 2.0);
	qkv_trace_init(&live);
	qkv_trace_init(&full);
	ck_assert_int_eq(qkv_attention_update(&p, &live, QKV_GRID_Q, 0, 0), 0); /* no trace yet */
	ck_assert_int_eq(qkv_attention(&p, &full), 0);
	expect_same_trace(&live, &full);
	ck_assert_int_eq(qkv_problem_set_d_k(&p, 4), 0);
	qkv_matrix_set(&p.q, 1, 3, 1.5);
	ck_assert_int_eq(qkv_attention_update(&p, &live, QKV_GRID_Q, 1, 3), 0); /* d_k moved */
	ck_assert_int_eq(qkv_attention(&p, &full), 0);
	expect_same_trace(&live, &full);
	p.temperature = 2.0;
	ck_assert_int_eq(qkv_attention_update(&p, &live, QKV_GRID_V, 9, 9), 0); /* out of range */
	ck_assert_int_eq(qkv_attention(&p, &full), 0);
	expect_same_trace(&live, &full);
	qkv_matrix_set(&p.k, 2, 2, NAN);
	ck_assert_int_eq(qkv_attention_update(&p, &live, QKV_GRID_K, 2, 2), QKV_EINVAL);
	ck_assert_int_eq(live.n, 0);
	qkv_trace_fini(&live);
	qkv_trace_fini(&full);
}
END_TEST

/* What an update costs, from the counts written out here: a query's cell a row
 * (n·(d_k + d_v) and an exponential per key), a value's cell a column of O (n²), a
 * key's cell every row's softmax and A V, a W_Q cell the whole trace. */
START_TEST(test_update_cost)
{
	build_seeded(4300, 40, 8, 6, 1.0);
	ck_assert_double_eq_tol(qkv_attention_update_cost(&p, QKV_GRID_Q), n * (d_k + d_v + 3), 1e-9);
	ck_assert_double_eq_tol(qkv_attention_update_cost(&p, QKV_GRID_V), n * n, 1e-9);
	ck_assert_double_eq_tol(qkv_attention_update_cost(&p, QKV_GRID_K), n * d_k + n * n * (d_v + 3), 1e-9);
	p.wrong = QKV_WRONG_COLUMN_SOFTMAX; /* a query's row reaches every column's softmax */
	ck_assert_double_eq_tol(qkv_attention_update_cost(&p, QKV_GRID_Q), n * d_k + n * n * (d_v + 3), 1e-9);
	qkv_problem_fini(&p);
	qkv_problem_init(&p);
	give_labels(&p, 40);
	p.form = QKV_FORM_PROJECTED;
	fill(&p.x, 40, 10, 1.0, &g);
	fill(&p.w_q, 10, 8, 1.0, &g);
	fill(&p.w_k, 10, 8, 1.0, &g);
	fill(&p.w_v, 10, 6, 1.0, &g);
	ck_assert_double_eq_tol(qkv_attention_update_cost(&p, QKV_GRID_W_Q),
				n * n * (d_k + d_v + 3) + n * 10 * (2 * d_k + d_v), 1e-9);
	ck_assert_double_eq_tol(qkv_attention_update_cost(&p, QKV_GRID_W_V), n * 10 + n * n, 1e-9);
}
END_TEST

START_TEST(test_stage_names)
{
	const char *names[QKV_STAGE_COUNT] = {"projections", "scores", "scaled",
					      "weights", "mix", "output"};
	for (int s = 0; s < QKV_STAGE_COUNT; s++) {
		ck_assert_str_eq(qkv_stage_name((enum qkv_stage)s), names[s]);
		ck_assert_ptr_nonnull(qkv_stage_formula((enum qkv_stage)s));
		ck_assert_uint_gt(strlen(qkv_stage_formula((enum qkv_stage)s)), 0);
	}
	ck_assert_str_eq(qkv_stage_name((enum qkv_stage)QKV_STAGE_COUNT), "?");
	ck_assert_str_eq(qkv_stage_name((enum qkv_stage)-1), "?");
}
END_TEST

/* The suite: exact values, properties, masks and extremes, variants. */
/* --- cross-attention: m queries, n keys ----------------------------------------- */

/* A direct cross-attention problem: m queries q0…, n keys w0…, Q m×d_k and K n×d_k
 * in [-qk, qk), V n×d_v in [-5, 5). */
static void build_cross(struct qkv_problem *cp, int m, int keys, int dk, int dv, double qk,
			struct lcg *gen)
{
	qkv_problem_init(cp);
	give_labels(cp, keys);
	cp->m = m;
	cp->query_tokens = calloc((size_t)m, sizeof *cp->query_tokens);
	ck_assert_ptr_nonnull(cp->query_tokens);
	for (int i = 0; i < m; i++) {
		cp->query_tokens[i] = malloc(16);
		ck_assert_ptr_nonnull(cp->query_tokens[i]);
		snprintf(cp->query_tokens[i], 16, "q%d", i);
	}
	fill(&cp->q, m, dk, qk, gen);
	fill(&cp->k, keys, dk, qk, gen);
	fill(&cp->v, keys, dv, 5.0, gen);
	ck_assert_int_eq(qkv_problem_check(cp), 0);
}

/* m queries against n keys, m ≠ n (m = 1 and n = 1 among them), with no mask, a
 * custom m×n mask or padded keys: every stage against the reference, the trace's
 * shapes m×n and m×d_v, rows of weights summing to 1 over their live keys. */
START_TEST(test_cross_matches_reference)
{
	struct lcg gen = {7100u + (uint64_t)_i};
	int m = _i < 4 ? 1 : lcg_int(&gen, 1, 9), keys = _i >= 4 && _i < 8 ? 1 : lcg_int(&gen, 1, 9);
	int dk = lcg_int(&gen, 1, 5), dv = lcg_int(&gen, 1, 4), mask = _i % 3;
	struct qkv_problem cp;
	struct qkv_trace tr;

	if (m == keys)
		keys++;
	build_cross(&cp, m, keys, dk, dv, 2.0, &gen);
	if (mask == 1) {
		clear_custom_mask(&cp);
		for (int c = 0; c < m * keys; c++)
			cp.mask_bits[c] = (unsigned char)(lcg_int(&gen, 0, 3) == 0);
	} else if (mask == 2) {
		ensure_padding(&cp);
		for (int j = 0; j < keys; j++)
			cp.padding[j] = (unsigned char)(lcg_int(&gen, 0, 2) == 0);
	}
	qkv_trace_init(&tr);
	ck_assert_int_eq(qkv_attention(&cp, &tr), 0);
	ck_assert_int_eq(tr.m, m);
	ck_assert_int_eq(tr.n, keys);
	ck_assert_int_eq(tr.scores.rows, m);
	ck_assert_int_eq(tr.scores.cols, keys);
	ck_assert_int_eq(tr.weights.rows, m);
	ck_assert_int_eq(tr.weights.cols, keys);
	ck_assert_int_eq(tr.output.rows, m);
	ck_assert_int_eq(tr.output.cols, dv);
	expect_reference(&cp, &tr, 1e-12);
	for (int i = 0; i < m; i++) {
		double sum = 0.0;
		int live = 0;

		for (int j = 0; j < keys; j++) {
			sum += qkv_matrix_get(&tr.weights, i, j);
			live += !qkv_problem_is_masked(&cp, i, j);
			if (qkv_problem_is_masked(&cp, i, j))
				ck_assert(qkv_matrix_get(&tr.weights, i, j) == 0.0);
		}
		ck_assert_int_eq(tr.rows[i].live_keys, live);
		ck_assert_double_eq_tol(sum, live > 0 ? 1.0 : 0.0, 1e-12);
	}
	qkv_trace_fini(&tr);
	qkv_problem_fini(&cp);
}
END_TEST

/* The same numbers by a second method: one query attending to n keys is the
 * softmax of its n dot products, written here in closed form for q = (1, 0),
 * keys (a_j, 0): weights e^(a_j/√2) / Σ e^(a_k/√2). */
START_TEST(test_cross_one_query_closed_form)
{
	static const double q[] = { 1, 0 };
	static const double k[] = { 0, 0, 1, 0, 2, 0 };
	static const double v[] = { 1, 0, 0, 1, 1, 1 };
	double z = exp(0.0) + exp(1.0 / sqrt(2.0)) + exp(2.0 / sqrt(2.0));
	struct qkv_problem cp;
	struct qkv_trace tr;
	struct lcg gen = {1};

	build_cross(&cp, 1, 3, 2, 2, 1.0, &gen);
	ck_assert_int_eq(qkv_matrix_set_all(&cp.q, 1, 2, q), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&cp.k, 3, 2, k), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&cp.v, 3, 2, v), 0);
	qkv_trace_init(&tr);
	ck_assert_int_eq(qkv_attention(&cp, &tr), 0);
	ck_assert_double_eq_tol(qkv_matrix_get(&tr.weights, 0, 0), 1.0 / z, 1e-15);
	ck_assert_double_eq_tol(qkv_matrix_get(&tr.weights, 0, 1), exp(1.0 / sqrt(2.0)) / z, 1e-15);
	ck_assert_double_eq_tol(qkv_matrix_get(&tr.weights, 0, 2), exp(sqrt(2.0)) / z, 1e-15);
	/* O = a_1 (1, 0) + a_2 (0, 1) + a_3 (1, 1). */
	ck_assert_double_eq_tol(qkv_matrix_get(&tr.output, 0, 0), (1.0 + exp(sqrt(2.0))) / z, 1e-15);
	ck_assert_double_eq_tol(qkv_matrix_get(&tr.output, 0, 1),
				(exp(1.0 / sqrt(2.0)) + exp(sqrt(2.0))) / z, 1e-15);
	ck_assert_int_eq(tr.rows[0].argmax, 2);
	qkv_trace_fini(&tr);
	qkv_problem_fini(&cp);
}
END_TEST

/* Cross-attention with m = n whose queries are the tokens themselves (Q given as
 * the same rows, or X_q = X) is self-attention, bit for bit, whatever the form,
 * mask, padding, mistake, scale and temperature: the same trace, byte for byte. */
START_TEST(test_cross_of_same_rows_is_self_attention)
{
	struct lcg gen = {7300u + (uint64_t)_i};
	bool projected = _i % 2 == 1;
	int keys = lcg_int(&gen, 1, 10), dk = lcg_int(&gen, 1, 6), dv = lcg_int(&gen, 1, 5);
	int mask = (_i / 2) % 4;
	struct qkv_problem self, cross;
	struct qkv_trace a, b;

	if (projected) {
		int d_model = lcg_int(&gen, 1, 7);

		qkv_problem_init(&self);
		give_labels(&self, keys);
		self.form = QKV_FORM_PROJECTED;
		fill(&self.x, keys, d_model, 2.0, &gen);
		fill(&self.w_q, d_model, dk, 1.0, &gen);
		fill(&self.w_k, d_model, dk, 1.0, &gen);
		fill(&self.w_v, d_model, dv, 1.0, &gen);
	} else {
		build_direct(&self, keys, dk, dv, 2.0, &gen);
	}
	if (mask == 1) {
		clear_custom_mask(&self);
		for (int c = 0; c < keys * keys; c++)
			self.mask_bits[c] = (unsigned char)(lcg_int(&gen, 0, 3) == 0);
	} else if (mask == 2) {
		ensure_padding(&self);
		for (int j = 0; j < keys; j++)
			self.padding[j] = (unsigned char)(lcg_int(&gen, 0, 3) == 0);
	} else if (mask == 3) {
		ck_assert_int_eq(qkv_problem_set_mask(&self, QKV_MASK_CAUSAL), 0);
	}
	self.wrong = (enum qkv_wrong)((_i / 8) % 3);
	self.scale = (enum qkv_scale)(_i % 3);
	self.scale_value = 0.7;
	self.temperature = _i % 4 == 3 ? 0.4 : 1.0;
	qkv_problem_init(&cross);
	ck_assert_int_eq(qkv_problem_copy(&cross, &self), 0);
	ck_assert_int_eq(qkv_problem_make_cross(&cross), 0);
	ck_assert(qkv_problem_is_cross(&cross));
	ck_assert(!qkv_problem_is_cross(&self));
	ck_assert(!qkv_problem_equal(&cross, &self));
	ck_assert_int_eq(qkv_problem_check(&cross), 0);
	qkv_trace_init(&a);
	qkv_trace_init(&b);
	ck_assert_int_eq(qkv_attention(&self, &a), 0);
	ck_assert_int_eq(qkv_attention(&cross, &b), 0);
	expect_same_trace(&a, &b);
	qkv_trace_fini(&a);
	qkv_trace_fini(&b);
	qkv_problem_fini(&self);
	qkv_problem_fini(&cross);
}
END_TEST

/* A random cross problem draws the rows a self-attention draw of the same seed
 * has: m = n gives that trace, bit for bit, and other sizes its first rows. */
START_TEST(test_random_cross_draws_the_same_rows)
{
	struct qkv_problem self, cross;
	struct qkv_trace a, b;

	qkv_problem_init(&self);
	qkv_problem_init(&cross);
	ck_assert_int_eq(qkv_problem_random(&self, 5, 3, 2, 77), 0);
	ck_assert_int_eq(qkv_problem_random_cross(&cross, 5, 5, 3, 2, 77), 0);
	ck_assert(qkv_problem_is_cross(&cross));
	ck_assert_str_eq(cross.query_tokens[4], "q5");
	ck_assert_str_eq(cross.tokens[4], "t5");
	qkv_trace_init(&a);
	qkv_trace_init(&b);
	ck_assert_int_eq(qkv_attention(&self, &a), 0);
	ck_assert_int_eq(qkv_attention(&cross, &b), 0);
	expect_same_trace(&a, &b);
	ck_assert_int_eq(qkv_problem_random_cross(&cross, 2, 4, 3, 2, 77), 0);
	ck_assert_int_eq(cross.m, 2);
	ck_assert_int_eq(cross.n, 4);
	for (int c = 0; c < 3; c++) {
		ck_assert(qkv_matrix_get(&cross.q, 1, c) == qkv_matrix_get(&self.q, 1, c));
		ck_assert(qkv_matrix_get(&cross.k, 3, c) == qkv_matrix_get(&self.k, 3, c));
	}
	ck_assert_int_eq(qkv_problem_random_cross(&cross, 0, 4, 3, 2, 77), QKV_EINVAL);
	/* Stage 0 names where the queries come from. */
	ck_assert_str_eq(qkv_stage_formula_of(&cross, QKV_STAGE_PROJECTIONS, false),
			 "Q = X_q W_Q,  K = X W_K,  V = X W_V");
	ck_assert_str_eq(qkv_stage_formula_of(&self, QKV_STAGE_PROJECTIONS, false),
			 qkv_stage_formula(QKV_STAGE_PROJECTIONS));
	self.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	ck_assert_str_eq(qkv_stage_formula_of(&self, QKV_STAGE_WEIGHTS, true), "A = softmax(S') down the columns");
	ck_assert_str_eq(qkv_stage_formula_of(&self, QKV_STAGE_WEIGHTS, false), "A = softmax(S') by rows");
	qkv_trace_fini(&a);
	qkv_trace_fini(&b);
	qkv_problem_fini(&self);
	qkv_problem_fini(&cross);
}
END_TEST

/* Single-cell edits of every input of a cross problem (Q, K, V; or X, X_q and the
 * W's) kept up to date by qkv_attention_update equal a full recompute, bit for bit. */
START_TEST(test_cross_incremental_equals_full)
{
	struct lcg gen = {7500u + (uint64_t)_i};
	bool projected = _i % 2 == 1;
	int m = lcg_int(&gen, 1, 9), keys = lcg_int(&gen, 1, 9), dk = lcg_int(&gen, 1, 6), dv = lcg_int(&gen, 1, 5);
	struct qkv_problem cp;
	struct qkv_trace live, full;

	if (projected) {
		int d_model = lcg_int(&gen, 1, 7);

		qkv_problem_init(&cp);
		give_labels(&cp, keys);
		cp.form = QKV_FORM_PROJECTED;
		fill(&cp.x, keys, d_model, 2.0, &gen);
		fill(&cp.w_q, d_model, dk, 1.0, &gen);
		fill(&cp.w_k, d_model, dk, 1.0, &gen);
		fill(&cp.w_v, d_model, dv, 1.0, &gen);
		ck_assert_int_eq(qkv_problem_make_cross(&cp), 0);
		fill(&cp.x_q, m, d_model, 2.0, &gen);
		for (int i = cp.m; i < m; i++)
			ck_assert_int_eq(qkv_problem_insert_query(&cp, i, NULL), 0);
		while (cp.m > m)
			ck_assert_int_eq(qkv_problem_remove_query(&cp, cp.m - 1), 0);
		fill(&cp.x_q, m, d_model, 2.0, &gen);
	} else {
		build_cross(&cp, m, keys, dk, dv, 2.0, &gen);
	}
	if (_i % 3 == 1) {
		clear_custom_mask(&cp);
		for (int c = 0; c < m * keys; c++)
			cp.mask_bits[c] = (unsigned char)(lcg_int(&gen, 0, 3) == 0);
	} else if (_i % 3 == 2) {
		ensure_padding(&cp);
		for (int j = 0; j < keys; j++)
			cp.padding[j] = (unsigned char)(lcg_int(&gen, 0, 3) == 0);
	}
	cp.wrong = (enum qkv_wrong)((_i / 6) % 3);
	ck_assert_int_eq(qkv_problem_check(&cp), 0);
	qkv_trace_init(&live);
	qkv_trace_init(&full);
	ck_assert_int_eq(qkv_attention(&cp, &live), 0);
	for (int e = 0; e < 400; e++) {
		static const enum qkv_grid direct[] = {QKV_GRID_Q, QKV_GRID_K, QKV_GRID_V};
		static const enum qkv_grid proj[] = {QKV_GRID_X, QKV_GRID_X_Q, QKV_GRID_W_Q, QKV_GRID_W_K,
						      QKV_GRID_W_V};
		enum qkv_grid which = projected ? proj[lcg_int(&gen, 0, 4)] : direct[lcg_int(&gen, 0, 2)];
		struct qkv_matrix *mx = qkv_problem_input(&cp, which);
		int row = lcg_int(&gen, 0, mx->rows - 1), col = lcg_int(&gen, 0, mx->cols - 1);

		qkv_matrix_set(mx, row, col, edit_value(&gen, qkv_matrix_get(mx, row, col)));
		ck_assert_int_eq(qkv_attention_update(&cp, &live, which, row, col), 0);
		ck_assert_int_eq(qkv_attention(&cp, &full), 0);
		expect_same_trace(&live, &full);
	}
	qkv_trace_fini(&live);
	qkv_trace_fini(&full);
	qkv_problem_fini(&cp);
}
END_TEST

/* A causal mask needs as many queries as keys: refused otherwise, by the check,
 * by qkv_attention and by set_mask; with m = n it hides keys j > i. */
START_TEST(test_cross_causal_needs_m_equal_n)
{
	struct lcg gen = {7700};
	struct qkv_problem cp;
	struct qkv_trace tr;

	build_cross(&cp, 2, 3, 2, 2, 1.0, &gen);
	qkv_trace_init(&tr);
	ck_assert_int_eq(qkv_problem_set_mask(&cp, QKV_MASK_CAUSAL), QKV_EINVAL);
	ck_assert_int_eq(cp.mask, QKV_MASK_NONE);
	cp.mask = QKV_MASK_CAUSAL;
	ck_assert_int_eq(qkv_problem_check(&cp), QKV_EINVAL);
	ck_assert_int_eq(qkv_attention(&cp, &tr), QKV_EINVAL);
	ck_assert_int_eq(tr.m, 0);
	cp.mask = QKV_MASK_NONE;
	ck_assert_int_eq(qkv_problem_insert_query(&cp, 2, "late"), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&cp, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&cp, &tr), 0);
	ck_assert(qkv_trace_is_masked(&tr, 0, 1) && !qkv_trace_is_masked(&tr, 1, 1));
	/* Neither side grows alone under it. */
	ck_assert_int_eq(qkv_problem_insert_query(&cp, 0, NULL), QKV_EINVAL);
	ck_assert_int_eq(qkv_problem_insert_token(&cp, 0, NULL), QKV_EINVAL);
	ck_assert_int_eq(qkv_problem_remove_token(&cp, 0), QKV_EINVAL);
	qkv_trace_fini(&tr);
	qkv_problem_fini(&cp);
}
END_TEST

static Suite *attention_suite(void)
{
	Suite *s = suite_create("attention");
	TCase *values = tcase_create("values");
	tcase_add_checked_fixture(values, case_setup, case_teardown);
	tcase_add_test(values, test_worked_example_closed_form);
	tcase_add_loop_test(values, test_scores_are_q_k_transposed, 0, 20);
	tcase_add_loop_test(values, test_projected_form, 0, 12);
	tcase_add_loop_test(values, test_mix_cells, 0, 10);
	tcase_add_test(values, test_stage_names);
	suite_add_tcase(s, values);
	TCase *properties = tcase_create("properties");
	tcase_add_checked_fixture(properties, case_setup, case_teardown);
	tcase_add_loop_test(properties, test_rows_sum_to_one, 0, 30);
	tcase_add_loop_test(properties, test_softmax_row_shift_invariant, 0, 20);
	tcase_add_test(properties, test_softmax_row_values_and_hidden);
	tcase_add_loop_test(properties, test_score_row_shift_through_inputs, 0, 10);
	tcase_add_loop_test(properties, test_permuting_keys_and_values, 0, 15);
	suite_add_tcase(s, properties);
	TCase *masks = tcase_create("masks_and_extremes");
	tcase_add_checked_fixture(masks, case_setup, case_teardown);
	tcase_add_loop_test(masks, test_custom_mask_exact_zeros, 0, 15);
	tcase_add_loop_test(masks, test_causal_mask, 0, 10);
	tcase_add_loop_test(masks, test_huge_scores_saturate_cleanly, 0, 15);
	tcase_add_test(masks, test_extreme_limits_stay_finite);
	tcase_add_test(masks, test_fully_masked_row);
	tcase_add_test(masks, test_padding_everything);
	tcase_add_test(masks, test_mix_adds_up);
	suite_add_tcase(s, masks);
	TCase *variants = tcase_create("variants");
	tcase_add_checked_fixture(variants, case_setup, case_teardown);
	tcase_add_loop_test(variants, test_wrong_column_softmax, 0, 10);
	tcase_add_loop_test(variants, test_column_sums, 0, 10);
	tcase_add_loop_test(variants, test_wrong_mask_after_softmax, 0, 10);
	tcase_add_test(variants, test_scale_and_temperature);
	tcase_add_test(variants, test_rejects_bad_problem);
	tcase_add_test(variants, test_trace_reuse);

	TCase *incremental = tcase_create("incremental");
	tcase_add_checked_fixture(incremental, case_setup, case_teardown);
	tcase_set_timeout(incremental, 60);
	tcase_add_loop_test(incremental, test_incremental_equals_full, 0, 24);
	tcase_add_test(incremental, test_incremental_falls_back);
	tcase_add_test(incremental, test_update_cost);
	tcase_add_loop_test(incremental, test_cross_incremental_equals_full, 0, 18);
	suite_add_tcase(s, incremental);
	TCase *cross = tcase_create("cross");
	tcase_add_loop_test(cross, test_cross_matches_reference, 0, 24);
	tcase_add_test(cross, test_cross_one_query_closed_form);
	tcase_add_loop_test(cross, test_cross_of_same_rows_is_self_attention, 0, 24);
	tcase_add_test(cross, test_random_cross_draws_the_same_rows);
	tcase_add_test(cross, test_cross_causal_needs_m_equal_n);
	suite_add_tcase(s, cross);
	suite_add_tcase(s, variants);
	return s;
}

int main(void)
{
	return run_tap(attention_suite());
}
