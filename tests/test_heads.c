/* test_heads.c — Check suite for multi-head attention (heads.h): a two-head case
 * worked by hand in closed form, and the properties that must hold whatever the
 * numbers (one head with W_O = I is the single-head trace, permuting the heads
 * with W_O's row blocks changes nothing, Concat·W_O is the sum of the heads'
 * contributions, each head is the single-head trace of its own projections).
 * Inputs come from the test's own LCG; expected values never from the code. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/error.h"
#include "qkv/heads.h"
#include "qkv/problem.h"

#include "fixtures.h"
#include "lcg.h"
#include "tap_main.h"

/* A multi-head problem of n tokens, h heads, all entries from g. */
static void build_heads(struct qkv_problem *p, int n, int h, int d_model, int d_k, int d_v,
			struct lcg *g)
{
	qkv_problem_init(p);
	give_labels(p, n);
	ck_assert_int_eq(qkv_problem_make_heads(p, h), 0);
	fill(&p->x, n, d_model, 2.0, g);
	for (int i = 0; i < h; i++) {
		fill(&p->heads[i].w_q, d_model, d_k, 1.5, g);
		fill(&p->heads[i].w_k, d_model, d_k, 1.5, g);
		fill(&p->heads[i].w_v, d_model, d_v, 3.0, g);
	}
	fill(&p->w_o, h * d_v, d_model, 1.0, g);
	ck_assert_int_eq(qkv_problem_check(p), 0);
}

/* A single-head projected problem with its own copies of head i's matrices. */
static void single_of_head(struct qkv_problem *s, const struct qkv_problem *p, int i)
{
	qkv_problem_init(s);
	give_labels(s, p->n);
	s->form = QKV_FORM_PROJECTED;
	s->mask = p->mask;
	ck_assert_int_eq(qkv_matrix_copy(&s->x, &p->x), 0);
	ck_assert_int_eq(qkv_matrix_copy(&s->w_q, &p->heads[i].w_q), 0);
	ck_assert_int_eq(qkv_matrix_copy(&s->w_k, &p->heads[i].w_k), 0);
	ck_assert_int_eq(qkv_matrix_copy(&s->w_v, &p->heads[i].w_v), 0);
}

#define CLOSE(a, b) ck_assert_double_eq_tol((a), (b), 1e-12)

/* p (initialised here): the two-head problem of the closed form below, X = I,
 * head 1 W_Q = W_K = W_V = (1, 0)ᵀ, head 2 W_Q = (0, 2)ᵀ, W_K = (0, 1)ᵀ,
 * W_V = (0, 3)ᵀ, and W_O = [[1,2],[3,4]]. */
static void build_two_heads(struct qkv_problem *p)
{
	qkv_problem_init(p);
	give_labels(p, 2);
	ck_assert_int_eq(qkv_problem_make_heads(p, 2), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->x, 2, 2, (double[]){ 1, 0, 0, 1 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->heads[0].w_q, 2, 1, (double[]){ 1, 0 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->heads[0].w_k, 2, 1, (double[]){ 1, 0 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->heads[0].w_v, 2, 1, (double[]){ 1, 0 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->heads[1].w_q, 2, 1, (double[]){ 0, 2 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->heads[1].w_k, 2, 1, (double[]){ 0, 1 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->heads[1].w_v, 2, 1, (double[]){ 0, 3 }), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->w_o, 2, 2, (double[]){ 1, 2, 3, 4 }), 0);
}

/* X = I₂; head 1 reads the first coordinate (W_Q = W_K = W_V = e₁), head 2 the
 * second (W_Q = 2e₂, W_K = e₂, W_V = 3e₂); d_k = 1, so the divisor is 1.
 * Head 1: S = [[1,0],[0,0]], A = [[e/(e+1), 1/(e+1)], [½, ½]], V = [1, 0]ᵀ,
 *         head_1 = [e/(e+1), ½]ᵀ.
 * Head 2: S = [[0,0],[0,2]], A = [[½, ½], [1/(1+e²), e²/(1+e²)]], V = [0, 3]ᵀ,
 *         head_2 = [3/2, 3e²/(1+e²)]ᵀ.
 * W_O = [[1,2],[3,4]]: output row r = head_1[r]·(1,2) + head_2[r]·(3,4). */
START_TEST(test_two_heads_closed_form)
{
	struct qkv_problem p;
	struct qkv_heads_trace t;
	const double e = exp(1.0), e2 = exp(2.0);
	const double h1[2] = { e / (e + 1), 0.5 }, h2[2] = { 1.5, 3 * e2 / (1 + e2) };

	build_two_heads(&p);
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(t.h, 2);
	ck_assert_int_eq(t.concat.rows, 2);
	ck_assert_int_eq(t.concat.cols, 2);
	CLOSE(qkv_matrix_get(&t.head[0].weights, 0, 0), e / (e + 1));
	CLOSE(qkv_matrix_get(&t.head[0].weights, 1, 1), 0.5);
	CLOSE(qkv_matrix_get(&t.head[1].weights, 1, 1), e2 / (1 + e2));
	for (int r = 0; r < 2; r++) {
		CLOSE(qkv_matrix_get(&t.concat, r, 0), h1[r]);
		CLOSE(qkv_matrix_get(&t.concat, r, 1), h2[r]);
		CLOSE(qkv_matrix_get(&t.output, r, 0), h1[r] * 1 + h2[r] * 3);
		CLOSE(qkv_matrix_get(&t.output, r, 1), h1[r] * 2 + h2[r] * 4);
		CLOSE(qkv_matrix_get(&t.contrib[0], r, 0), h1[r]);
		CLOSE(qkv_matrix_get(&t.contrib[0], r, 1), 2 * h1[r]);
		CLOSE(qkv_matrix_get(&t.contrib[1], r, 0), 3 * h2[r]);
		CLOSE(qkv_matrix_get(&t.contrib[1], r, 1), 4 * h2[r]);
	}
	/* Pattern scores of head 1: previous = a_21 = ½, diagonal = first =
	 * (e/(e+1) + ½)/2, entropy = (H(e/(e+1)) + ln 2)/2. */
	{
		double a = e / (e + 1), b = 1 / (e + 1);
		double h_row0 = -(a * log(a) + b * log(b));

		CLOSE(t.pattern[0].previous, 0.5);
		CLOSE(t.pattern[0].diagonal, (a + 0.5) / 2);
		CLOSE(t.pattern[0].first, (a + 0.5) / 2);
		CLOSE(t.pattern[0].entropy, (h_row0 + log(2.0)) / 2);
		/* Head 2: previous = 1/(1+e²), diagonal = (½ + e²/(1+e²))/2, first = (½ + 1/(1+e²))/2. */
		CLOSE(t.pattern[1].previous, 1 / (1 + e2));
		CLOSE(t.pattern[1].diagonal, (0.5 + e2 / (1 + e2)) / 2);
		CLOSE(t.pattern[1].first, (0.5 + 1 / (1 + e2)) / 2);
	}
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* One head with W_O = I (d_v = d_model) gives exactly the single-head trace. */
START_TEST(test_one_head_identity_is_single_head)
{
	struct lcg g = { 7000u + (uint64_t)_i };
	struct qkv_problem p, s;
	struct qkv_heads_trace t;
	struct qkv_trace single;
	int n = lcg_int(&g, 1, 7), d = lcg_int(&g, 1, 5), d_k = lcg_int(&g, 1, 4);

	build_heads(&p, n, 1, d, d_k, d, &g);
	ck_assert_int_eq(qkv_matrix_zero(&p.w_o, d, d), 0);
	for (int i = 0; i < d; i++)
		qkv_matrix_set(&p.w_o, i, i, 1.0);
	single_of_head(&s, &p, 0);
	qkv_heads_trace_init(&t);
	qkv_trace_init(&single);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_attention(&s, &single), 0);
	ck_assert(qkv_matrix_equal(&t.output, &single.output));
	ck_assert(qkv_matrix_equal(&t.concat, &single.output));
	ck_assert(qkv_matrix_equal(&t.head[0].weights, &single.weights));
	qkv_trace_fini(&single);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&s);
	qkv_problem_fini(&p);
}
END_TEST

/* Each head of a multi-head problem is the single-head trace of its projections
 * (also under a causal mask, which applies to every head). */
START_TEST(test_each_head_is_its_single_trace)
{
	struct lcg g = { 8100u + (uint64_t)_i };
	struct qkv_problem p, s;
	struct qkv_heads_trace t;
	struct qkv_trace single;
	int n = lcg_int(&g, 1, 8), h = lcg_int(&g, 1, 5);

	build_heads(&p, n, h, lcg_int(&g, 1, 6), lcg_int(&g, 1, 4), lcg_int(&g, 1, 4), &g);
	if (_i % 2 == 1)
		p.mask = QKV_MASK_CAUSAL;
	qkv_heads_trace_init(&t);
	qkv_trace_init(&single);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	for (int i = 0; i < h; i++) {
		single_of_head(&s, &p, i);
		ck_assert_int_eq(qkv_attention(&s, &single), 0);
		ck_assert(qkv_matrix_equal(&t.head[i].q, &single.q));
		ck_assert(qkv_matrix_equal(&t.head[i].scores, &single.scores));
		ck_assert(qkv_matrix_equal(&t.head[i].weights, &single.weights));
		ck_assert(qkv_matrix_equal(&t.head[i].output, &single.output));
		/* The head's block of the concatenation is its output. */
		for (int r = 0; r < n; r++)
			for (int c = 0; c < t.d_v; c++)
				ck_assert(qkv_matrix_get(&t.concat, r, i * t.d_v + c) ==
					  qkv_matrix_get(&single.output, r, c));
		qkv_problem_fini(&s);
	}
	qkv_trace_fini(&single);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* Concat·W_O = Σᵢ head_i·W_O⁽ⁱ⁾, and the output against a loop written here. */
START_TEST(test_output_is_sum_of_contributions)
{
	struct lcg g = { 9200u + (uint64_t)_i };
	struct qkv_problem p;
	struct qkv_heads_trace t;
	int n = lcg_int(&g, 1, 8), h = lcg_int(&g, 1, 6), d_model = lcg_int(&g, 1, 6);

	build_heads(&p, n, h, d_model, lcg_int(&g, 1, 3), lcg_int(&g, 1, 3), &g);
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	for (int r = 0; r < n; r++)
		for (int c = 0; c < d_model; c++) {
			double sum = 0.0, loop = 0.0;

			for (int i = 0; i < h; i++)
				sum += qkv_matrix_get(&t.contrib[i], r, c);
			for (int k = 0; k < h * t.d_v; k++)
				loop += qkv_matrix_get(&t.concat, r, k) * qkv_matrix_get(&p.w_o, k, c);
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, r, c), sum, 1e-9);
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, r, c), loop, 1e-9);
		}
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* Reversing the heads together with W_O's row blocks leaves the output as it was. */
START_TEST(test_permuting_heads_with_w_o_blocks)
{
	struct lcg g = { 10300u + (uint64_t)_i };
	struct qkv_problem p, q;
	struct qkv_heads_trace t, u;
	int n = lcg_int(&g, 1, 7), h = lcg_int(&g, 2, 5), d_model = lcg_int(&g, 1, 5);
	int d_v = lcg_int(&g, 1, 3);

	build_heads(&p, n, h, d_model, lcg_int(&g, 1, 3), d_v, &g);
	qkv_problem_init(&q);
	ck_assert_int_eq(qkv_problem_copy(&q, &p), 0);
	for (int i = 0; i < h; i++) {
		int from = h - 1 - i;

		ck_assert_int_eq(qkv_matrix_copy(&q.heads[i].w_q, &p.heads[from].w_q), 0);
		ck_assert_int_eq(qkv_matrix_copy(&q.heads[i].w_k, &p.heads[from].w_k), 0);
		ck_assert_int_eq(qkv_matrix_copy(&q.heads[i].w_v, &p.heads[from].w_v), 0);
		for (int r = 0; r < d_v; r++)
			for (int c = 0; c < d_model; c++)
				qkv_matrix_set(&q.w_o, i * d_v + r, c,
					       qkv_matrix_get(&p.w_o, from * d_v + r, c));
	}
	ck_assert(!qkv_problem_equal(&p, &q) || h == 1);
	qkv_heads_trace_init(&t);
	qkv_heads_trace_init(&u);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_heads_attention(&q, &u), 0);
	for (int r = 0; r < n; r++)
		for (int c = 0; c < d_model; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, r, c),
						qkv_matrix_get(&u.output, r, c), 1e-9);
	qkv_heads_trace_fini(&t);
	qkv_heads_trace_fini(&u);
	qkv_problem_fini(&q);
	qkv_problem_fini(&p);
}
END_TEST

/* Pattern scores of patterns whose answer is known by construction. */
START_TEST(test_pattern_scores)
{
	struct qkv_matrix a;
	struct qkv_pattern s;
	int n = 5;

	qkv_matrix_init(&a);
	ck_assert_int_eq(qkv_matrix_zero(&a, n, n), 0);
	/* Query 1 looks at itself, every other query at the previous token. */
	qkv_matrix_set(&a, 0, 0, 1.0);
	for (int i = 1; i < n; i++)
		qkv_matrix_set(&a, i, i - 1, 1.0);
	qkv_pattern_of(&a, NULL, &s);
	ck_assert_double_eq(s.previous, 1.0);
	ck_assert_double_eq(s.diagonal, 1.0 / n);
	ck_assert_double_eq_tol(s.first, 2.0 / n, 1e-15);
	ck_assert_double_eq(s.entropy, 0.0);
	/* Uniform rows: every score 1/n, entropy ln n. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			qkv_matrix_set(&a, i, j, 1.0 / n);
	qkv_pattern_of(&a, NULL, &s);
	ck_assert_double_eq_tol(s.previous, 1.0 / n, 1e-15);
	ck_assert_double_eq_tol(s.diagonal, 1.0 / n, 1e-15);
	ck_assert_double_eq_tol(s.entropy, log((double)n), 1e-12);
	qkv_matrix_fini(&a);
}
END_TEST

START_TEST(test_shapes_checked_and_single_trace_refuses)
{
	struct lcg g = { 4242u };
	struct qkv_problem p, q;
	struct qkv_trace single;

	build_heads(&p, 3, 2, 4, 2, 2, &g);
	qkv_trace_init(&single);
	ck_assert_int_eq(qkv_attention(&p, &single), QKV_EINVAL);
	qkv_problem_init(&q);
	ck_assert_int_eq(qkv_problem_copy(&q, &p), 0);
	ck_assert(qkv_problem_equal(&p, &q));
	qkv_matrix_set(&q.w_o, 3, 3, 99.0);
	ck_assert(!qkv_problem_equal(&p, &q));
	ck_assert_int_eq(qkv_matrix_resize(&q.w_o, 3, 4), 0); /* h·d_v = 4 rows needed */
	ck_assert_int_eq(qkv_problem_check(&q), QKV_ESHAPE);
	ck_assert_int_eq(qkv_problem_copy(&q, &p), 0);
	ck_assert_int_eq(qkv_matrix_resize(&q.heads[1].w_k, 4, 3), 0); /* d_k differs */
	ck_assert_int_eq(qkv_problem_check(&q), QKV_ESHAPE);
	ck_assert_int_eq(qkv_problem_copy(&q, &p), 0);
	ck_assert_int_eq(qkv_matrix_resize(&q.heads[0].w_v, 3, 2), 0); /* rows ≠ d_model */
	ck_assert_int_eq(qkv_problem_check(&q), QKV_ESHAPE);
	qkv_trace_fini(&single);
	qkv_problem_fini(&q);
	qkv_problem_fini(&p);
}
END_TEST

/* Growing d_v puts zero rows at the end of each head's block of W_O, so the
 * output is unchanged; shrinking back restores the problem. */
START_TEST(test_reshaping_every_head)
{
	struct lcg g = { 5151u };
	struct qkv_problem p, q;
	struct qkv_heads_trace t, u;

	build_heads(&p, 4, 3, 6, 2, 2, &g);
	qkv_problem_init(&q);
	ck_assert_int_eq(qkv_problem_copy(&q, &p), 0);
	ck_assert_int_eq(qkv_problem_set_d_v(&q, 3), 0);
	ck_assert_int_eq(qkv_problem_check(&q), 0);
	ck_assert_int_eq(q.w_o.rows, 9);
	for (int i = 0; i < 3; i++)
		for (int c = 0; c < 6; c++) {
			ck_assert(qkv_matrix_get(&q.w_o, i * 3 + 2, c) == 0.0);
			ck_assert(qkv_matrix_get(&q.w_o, i * 3 + 1, c) ==
				  qkv_matrix_get(&p.w_o, i * 2 + 1, c));
		}
	qkv_heads_trace_init(&t);
	qkv_heads_trace_init(&u);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_heads_attention(&q, &u), 0);
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 6; c++)
			ck_assert_double_eq_tol(qkv_matrix_get(&t.output, r, c),
						qkv_matrix_get(&u.output, r, c), 1e-12);
	ck_assert_int_eq(qkv_problem_set_d_v(&q, 2), 0);
	ck_assert(qkv_problem_equal(&p, &q));
	ck_assert_int_eq(qkv_problem_set_d_k(&q, 4), 0);
	ck_assert_int_eq(qkv_problem_set_d_model(&q, 5), 0);
	ck_assert_int_eq(qkv_problem_check(&q), 0);
	ck_assert_int_eq(q.heads[2].w_k.cols, 4);
	ck_assert_int_eq(q.w_o.cols, 5);
	ck_assert_int_eq(qkv_problem_insert_token(&q, 1, "new"), 0);
	ck_assert_int_eq(qkv_problem_check(&q), 0);
	qkv_heads_trace_fini(&t);
	qkv_heads_trace_fini(&u);
	qkv_problem_fini(&q);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_random_heads)
{
	struct qkv_problem p;
	struct qkv_heads_trace t;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random_heads(&p, 5, 3, 7, 1), QKV_EINVAL);
	ck_assert_int_eq(qkv_problem_random_heads(&p, 5, 3, 12, 1), 0);
	ck_assert_int_eq(p.h, 3);
	ck_assert_int_eq(qkv_problem_d_k(&p), 4);
	ck_assert_int_eq(qkv_problem_d_v(&p), 4);
	ck_assert_int_eq(p.w_o.rows, 12);
	ck_assert_int_eq(p.w_o.cols, 12);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* The heads are different draws. */
	ck_assert(!qkv_matrix_equal(&p.heads[0].w_q, &p.heads[1].w_q));
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(t.output.rows, 5);
	ck_assert_int_eq(t.output.cols, 12);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The draw's variances: X's entries are N(0, 1) and every W's N(0, 1/d_model), so
 * Q = XW_Q and K = XW_K have unit-variance entries and E[S'²] = E[tr(W_QᵀW_Q W_KᵀW_K)]
 * / d_k = 1 off the diagonal (W_Q and W_K independent, E[WᵀW] = I); on the
 * diagonal it is 1 + O(1/d_model). Over 40 seeds the mean of S'² is near 1 (an
 * unscaled N(0, 1) draw makes it near d_model² = 4096). The same seed draws the
 * same problem. */
START_TEST(test_random_heads_unit_variance)
{
	const int n = 16, h = 8, d_model = 64, seeds = 40;
	double x2 = 0.0, w2 = 0.0, s2 = 0.0;
	long x_count = 0, w_count = 0, s_count = 0;

	for (int seed = 1; seed <= seeds; seed++) {
		struct qkv_problem p, again;
		struct qkv_heads_trace t;

		qkv_problem_init(&p);
		qkv_problem_init(&again);
		ck_assert_int_eq(qkv_problem_random_heads(&p, n, h, d_model, (uint64_t)seed), 0);
		ck_assert_int_eq(qkv_problem_random_heads(&again, n, h, d_model, (uint64_t)seed), 0);
		ck_assert(qkv_matrix_equal(&p.x, &again.x));
		ck_assert(qkv_matrix_equal(&p.heads[h - 1].w_k, &again.heads[h - 1].w_k));
		ck_assert(qkv_matrix_equal(&p.w_o, &again.w_o));
		for (int r = 0; r < n; r++)
			for (int c = 0; c < d_model; c++, x_count++)
				x2 += pow(qkv_matrix_get(&p.x, r, c), 2);
		for (int i = 0; i < h; i++) {
			const struct qkv_matrix *w[3] = { &p.heads[i].w_q, &p.heads[i].w_k, &p.heads[i].w_v };

			for (int k = 0; k < 3; k++)
				for (int r = 0; r < w[k]->rows; r++)
					for (int c = 0; c < w[k]->cols; c++, w_count++)
						w2 += pow(qkv_matrix_get(w[k], r, c), 2);
		}
		for (int r = 0; r < p.w_o.rows; r++)
			for (int c = 0; c < p.w_o.cols; c++, w_count++)
				w2 += pow(qkv_matrix_get(&p.w_o, r, c), 2);
		qkv_heads_trace_init(&t);
		ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
		for (int i = 0; i < h; i++)
			for (int r = 0; r < n; r++)
				for (int c = 0; c < n; c++, s_count++)
					s2 += pow(qkv_matrix_get(&t.head[i].scaled, r, c), 2);
		qkv_heads_trace_fini(&t);
		qkv_problem_fini(&again);
		qkv_problem_fini(&p);
	}
	ck_assert_double_eq_tol(x2 / (double)x_count, 1.0, 0.05);
	ck_assert_double_eq_tol(w2 / (double)w_count * d_model, 1.0, 0.05);
	ck_assert_double_eq_tol(s2 / (double)s_count, 1.0, 0.15);
}
END_TEST

/* Rounded shares add up to the rounded total, each within one unit of its value. */
START_TEST(test_round_shares_add_up)
{
	struct lcg g = { 12000u + (uint64_t)_i };
	int count = lcg_int(&g, 1, 12), decimals = lcg_int(&g, 0, 6);
	double x[12], sum = 0.0, scale = pow(10.0, decimals);
	long long units[12], total, added = 0;

	for (int i = 0; i < count; i++) {
		x[i] = 3.0 * lcg_signed(&g);
		sum += x[i] * scale;
	}
	total = qkv_round_shares(x, count, decimals, units);
	for (int i = 0; i < count; i++) {
		ck_assert(fabs((double)units[i] - x[i] * scale) < 1.0);
		added += units[i];
	}
	ck_assert(added == total);
	ck_assert(total == llround(sum));
}
END_TEST

/* Equal values get equal units, with ties drawn from the same few values: each
 * unit count within one unit of its value, equal values equal, and the units add
 * up to the rounded sum whenever every value is different. */
START_TEST(test_round_shares_keep_equal_values_equal)
{
	struct lcg g = { 13000u + (uint64_t)_i };
	int count = lcg_int(&g, 2, 12), decimals = lcg_int(&g, 0, 4), kinds = lcg_int(&g, 1, 3);
	double pool[3], x[12], sum = 0.0, scale = pow(10.0, decimals);
	long long units[12], total, added = 0;
	bool ties = false;

	for (int k = 0; k < 3; k++)
		pool[k] = 3.0 * lcg_signed(&g);
	for (int i = 0; i < count; i++) {
		x[i] = pool[lcg_int(&g, 0, kinds - 1)];
		sum += x[i] * scale;
	}
	total = qkv_round_shares(x, count, decimals, units);
	ck_assert(total == llround(sum));
	for (int i = 0; i < count; i++) {
		ck_assert(fabs((double)units[i] - x[i] * scale) < 1.0);
		for (int j = 0; j < i; j++)
			if (x[j] == x[i]) {
				ties = true;
				ck_assert(units[j] == units[i]);
			}
		added += units[i];
	}
	if (!ties)
		ck_assert(added == total);
	else if (added != total)
		/* No set of equal values could take the spare units: nearest units. */
		for (int i = 0; i < count; i++)
			ck_assert(units[i] == llround(x[i] * scale));
}
END_TEST

/* The spare units go to the sets of equal values that can take them whole: 0.26,
 * 0.26 and 0.48 at one decimal are 0.3 + 0.3 + 0.4 = 1.0 (the pair's remainders,
 * 0.6 each, outweigh 0.48's 0.8 alone, which would leave one unit nobody can
 * take); three thirds at two decimals stay 0.33 each, and add up to 0.99; 0.4236
 * twice and 0.0509 three times at three decimals (spare 4: sets of 2 and 3) are
 * rounded to the nearest, 0.424 and 0.051, adding up to 1.001. */
START_TEST(test_round_shares_by_sets)
{
	const double pair[3] = { 0.26, 0.26, 0.48 };
	const double third[3] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	long long units[3];

	ck_assert(qkv_round_shares(pair, 3, 1, units) == 10);
	ck_assert(units[0] == 3 && units[1] == 3 && units[2] == 4);
	ck_assert(qkv_round_shares(third, 3, 2, units) == 100);
	ck_assert(units[0] == 33 && units[1] == 33 && units[2] == 33);
	{
		const double five[5] = { 0.4236, 0.0509, 0.0509, 0.4236, 0.0509 };
		long long u[5];

		ck_assert(qkv_round_shares(five, 5, 3, u) == 1000);
		ck_assert(u[0] == 424 && u[3] == 424 && u[1] == 51 && u[2] == 51 && u[4] == 51);
	}
}
END_TEST

/* Three equal heads, each adding 1/3: the stage-7 line shows the three shares
 * equal, 0.33 each, says the total 1.00 is approximately their sum, and what the
 * shown shares add up to, 0.99. */
START_TEST(test_derive_shares_in_words)
{
	struct qkv_problem p;
	struct qkv_heads_trace t;
	char line[512];

	/* One token, d_model 1, three heads whose V is 1/3 and W_O 1: out = 1. */
	qkv_problem_init(&p);
	give_labels(&p, 1);
	ck_assert_int_eq(qkv_problem_make_heads(&p, 3), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p.x, 1, 1, (double[]){ 1 }), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(qkv_matrix_set_all(&p.heads[i].w_q, 1, 1, (double[]){ 1 }), 0);
		ck_assert_int_eq(qkv_matrix_set_all(&p.heads[i].w_k, 1, 1, (double[]){ 1 }), 0);
		ck_assert_int_eq(qkv_matrix_set_all(&p.heads[i].w_v, 1, 1, (double[]){ 1.0 / 3 }), 0);
	}
	ck_assert_int_eq(qkv_matrix_set_all(&p.w_o, 3, 1, (double[]){ 1, 1, 1 }), 0);
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_gt(qkv_heads_derive(line, sizeof line, &p, &t, 7, 0, 0, 2), 0);
	ck_assert_msg(strstr(line, "head 1 0.33 + head 2 0.33 + head 3 0.33 ≈ 1.00  (equal shares are "
			      "rounded alike, so the shares shown add up to 0.99; ") != NULL, "%s", line);
	ck_assert_int_gt(qkv_heads_derive(line, sizeof line, &p, &t, 6, 0, 2, 2), 0);
	ck_assert_msg(strstr(line, "concat[w0, 3] = head 3's output[w0, d1] = 0.33") != NULL, "%s", line);
	ck_assert_int_eq(qkv_heads_derive(line, sizeof line, &p, &t, 5, 0, 0, 2), -1);
	ck_assert_int_eq(qkv_heads_derive(line, sizeof line, &p, &t, 7, 1, 0, 2), -1);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* The cost line and the averaging sentence, from the two-head closed-form case:
 * n = 2, h = 2, d_k = 1; averaged weights and their scores by hand. */
START_TEST(test_cost_and_average_words)
{
	struct qkv_problem p;
	struct qkv_heads_trace t;
	struct qkv_matrix avg;
	struct qkv_pattern s;
	char line[512];
	const double e = exp(1.0), e2 = exp(2.0);

	build_two_heads(&p);
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	/* n²·h = 8 scores; h·n²·d_k = 8 multiply-adds; h·d_k = 2 = d_model. */
	ck_assert_int_gt(qkv_heads_cost_words(line, sizeof line, &t), 0);
	ck_assert_str_eq(line, "cost: n²·h = 8 scores a layer; Q Kᵀ: h·n²·d_k = 8 multiply-adds, as "
			       "for one head of width h·d_k = 2 = d_model");
	qkv_matrix_init(&avg);
	ck_assert_int_eq(qkv_heads_average(&t, &avg, &s), 0);
	/* Row 2 averages (½, ½) and (1/(1+e²), e²/(1+e²)): previous = (½ + 1/(1+e²))/2. */
	CLOSE(s.previous, (0.5 + 1 / (1 + e2)) / 2);
	CLOSE(qkv_matrix_get(&avg, 0, 0), (e / (e + 1) + 0.5) / 2);
	ck_assert_int_gt(qkv_heads_average_words(line, sizeof line, &t, &s, 2), 0);
	ck_assert_msg(strstr(line, "on the previous token is 0.31 (head 1: 0.50)") != NULL, "%s", line);
	ck_assert_msg(strstr(line, ": each head's pattern is diluted by the others, so no single pattern "
			      "does what the heads do side by side") != NULL, "%s", line);
	/* Cross-attention, one query (X_q = X's second row) over the two tokens:
	 * m·n·h = 4 scores; only the first key is named, no previous token nor itself.
	 * The query's rows: head 1 (½, ½), head 2 (1, e²)/(1 + e²). */
	ck_assert_int_eq(qkv_problem_make_cross(&p), 0);
	ck_assert_int_eq(qkv_problem_remove_query(&p, 0), 0);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert(t.cross);
	ck_assert_int_eq(t.m, 1);
	ck_assert_int_eq(t.concat.rows, 1);
	ck_assert_int_gt(qkv_heads_cost_words(line, sizeof line, &t), 0);
	ck_assert_str_eq(line, "cost: m·n·h = 4 scores a layer; Q Kᵀ: h·m·n·d_k = 4 multiply-adds, as "
			       "for one head of width h·d_k = 2 = d_model");
	ck_assert_int_eq(qkv_heads_average(&t, &avg, &s), 0);
	CLOSE(s.first, (0.5 + 1 / (1 + e2)) / 2);
	ck_assert_int_gt(qkv_heads_average_words(line, sizeof line, &t, &s, 2), 0);
	ck_assert_msg(strstr(line, "the mean weight on the first key is 0.31 (head 1: 0.50)") != NULL, "%s", line);
	ck_assert_msg(strstr(line, "previous") == NULL && strstr(line, "itself") == NULL, "%s", line);
	qkv_matrix_fini(&avg);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* Heads 1 and 2 the same: X = I₂, W_Q = W_K = (1, 0)ᵀ, weights (e, 1)/(e + 1) and
 * (½, ½); head 3 (0, 2)ᵀ and (0, 1)ᵀ, weights (½, ½) and (1, e²)/(1 + e²). */
static void equal_heads(struct qkv_problem *p, int h, bool third_differs)
{
	qkv_problem_init(p);
	give_labels(p, 2);
	ck_assert_int_eq(qkv_problem_make_heads(p, h), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&p->x, 2, 2, (double[]){ 1, 0, 0, 1 }), 0);
	for (int i = 0; i < h; i++) {
		bool other = third_differs && i == 2;

		ck_assert_int_eq(qkv_matrix_set_all(&p->heads[i].w_q, 2, 1, other ? (double[]){ 0, 2 }
										  : (double[]){ 1, 0 }), 0);
		ck_assert_int_eq(qkv_matrix_set_all(&p->heads[i].w_k, 2, 1, other ? (double[]){ 0, 1 }
										  : (double[]){ 1, 0 }), 0);
		ck_assert_int_eq(qkv_matrix_set_all(&p->heads[i].w_v, 2, 1, (double[]){ 1, 0 }), 0);
	}
	ck_assert_int_eq(qkv_matrix_set_all(&p->w_o, h, 2, (double[]){ 1, 0, 1, 0, 1, 0 }), 0);
}

/* The averaging sentence names every head that shows the largest value, and says
 * averaging loses nothing when every head has the same weights. */
START_TEST(test_average_words_equal_heads)
{
	struct qkv_problem p;
	struct qkv_heads_trace t;
	struct qkv_matrix avg;
	struct qkv_pattern s;
	char line[1024], want[512];
	const double e = exp(1.0), e2 = exp(2.0);
	/* Pattern scores of the (1, 0) head: previous ½, itself = first = (e/(e+1) + ½)/2;
	 * of head 3: previous 1/(1+e²), itself (½ + e²/(1+e²))/2, first (½ + 1/(1+e²))/2. */
	double same = (e / (e + 1) + 0.5) / 2, prev3 = 1 / (1 + e2), self3 = (0.5 + e2 / (1 + e2)) / 2,
	       first3 = (0.5 + 1 / (1 + e2)) / 2;

	equal_heads(&p, 3, false);
	qkv_heads_trace_init(&t);
	qkv_matrix_init(&avg);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_heads_average(&t, &avg, &s), 0);
	ck_assert_int_gt(qkv_heads_average_words(line, sizeof line, &t, &s, 2), 0);
	snprintf(want, sizeof want, "the mean weight on the previous token is 0.50 (heads 1, 2 and 3: 0.50), "
				    "on itself is %.2f (heads 1, 2 and 3: %.2f) and on the first token is "
				    "%.2f (heads 1, 2 and 3: %.2f): the 3 heads have the same weights, so the "
				    "average loses nothing here", same, same, same, same);
	ck_assert_msg(strstr(line, want) != NULL, "%s\nwanted: %s", line, want);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);

	equal_heads(&p, 3, true);
	qkv_heads_trace_init(&t);
	ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
	ck_assert_int_eq(qkv_heads_average(&t, &avg, &s), 0);
	ck_assert_int_gt(qkv_heads_average_words(line, sizeof line, &t, &s, 2), 0);
	snprintf(want, sizeof want, "the mean weight on the previous token is %.2f (heads 1 and 2: 0.50), on "
				    "itself is %.2f (head 3: %.2f) and on the first token is %.2f (heads 1 "
				    "and 2: %.2f): each head's pattern is diluted by the others",
		 (1 + prev3) / 3, (2 * same + self3) / 3, self3, (2 * same + first3) / 3, same);
	ck_assert_msg(strstr(line, want) != NULL, "%s\nwanted: %s", line, want);
	qkv_matrix_fini(&avg);
	qkv_heads_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

static Suite *heads_suite(void)
{
	Suite *s = suite_create("heads");
	TCase *c = tcase_create("heads");

	tcase_add_test(c, test_two_heads_closed_form);
	tcase_add_loop_test(c, test_one_head_identity_is_single_head, 0, 12);
	tcase_add_loop_test(c, test_each_head_is_its_single_trace, 0, 12);
	tcase_add_loop_test(c, test_output_is_sum_of_contributions, 0, 12);
	tcase_add_loop_test(c, test_permuting_heads_with_w_o_blocks, 0, 12);
	tcase_add_test(c, test_pattern_scores);
	tcase_add_test(c, test_shapes_checked_and_single_trace_refuses);
	tcase_add_test(c, test_reshaping_every_head);
	tcase_add_test(c, test_random_heads);
	tcase_add_test(c, test_random_heads_unit_variance);
	tcase_add_loop_test(c, test_round_shares_add_up, 0, 40);
	tcase_add_loop_test(c, test_round_shares_keep_equal_values_equal, 0, 200);
	tcase_add_test(c, test_round_shares_by_sets);
	tcase_add_test(c, test_derive_shares_in_words);
	tcase_add_test(c, test_cost_and_average_words);
	tcase_add_test(c, test_average_words_equal_heads);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return run_tap(heads_suite());
}
