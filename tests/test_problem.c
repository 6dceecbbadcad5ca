/* test_problem.c — Check suite for attention problems (problem.h): the worked
 * example, seeded random problems and their prefix property, token and size
 * edits, copy/equal, validation, the divisor and the mask predicate.
 * Expected values come from the course's matrices and the documented contracts,
 * never from output of the code under test. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/error.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"
#include "fixtures.h"
#include "oracle.h"
#include "tap_main.h"

/* The worked example of module 2, typed in from the course. */
static const double example_q[6] = {1, 0, 0, 1, 1, 1};
static const double example_k[6] = {1, 0, 0, 1, 1, 1};
static const double example_v[6] = {10, 0, 0, 10, 5, 5};

/* Builds, field by field, a direct-form problem of zeros (n × d_k, n × d_v). */
static void build_direct(struct qkv_problem *p, int n, int d_k, int d_v)
{
	qkv_problem_init(p);
	give_labels(p, n);
	p->form = QKV_FORM_DIRECT;
	ck_assert_int_eq(qkv_matrix_zero(&p->q, n, d_k), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p->k, n, d_k), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p->v, n, d_v), 0);
}

/* Builds a projected-form problem with distinct recognisable values. */
static void build_projected(struct qkv_problem *p, int n, int d_model, int d_k, int d_v)
{
	qkv_problem_init(p);
	give_labels(p, n);
	p->form = QKV_FORM_PROJECTED;
	ck_assert_int_eq(qkv_matrix_zero(&p->x, n, d_model), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p->w_q, d_model, d_k), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p->w_k, d_model, d_k), 0);
	ck_assert_int_eq(qkv_matrix_zero(&p->w_v, d_model, d_v), 0);
	struct qkv_matrix *all[4] = {&p->x, &p->w_q, &p->w_k, &p->w_v};
	for (int m = 0; m < 4; m++)
		for (int i = 0; i < all[m]->rows; i++)
			for (int j = 0; j < all[m]->cols; j++)
				qkv_matrix_set(all[m], i, j, 100.0 * m + 10.0 * i + j + 1.0);
}

/* True when columns 0..cols-1 of a and b are bit-identical (same row count). */
static bool same_leading_columns(const struct qkv_matrix *a, const struct qkv_matrix *b,
				 int cols)
{
	if (a->rows != b->rows || a->cols < cols || b->cols < cols)
		return false;
	for (int i = 0; i < a->rows; i++)
		for (int j = 0; j < cols; j++)
			if (memcmp(&a->values[(size_t)i * (size_t)a->cols + (size_t)j],
				   &b->values[(size_t)i * (size_t)b->cols + (size_t)j],
				   sizeof(double)) != 0)
				return false;
	return true;
}

/* True when every entry of row `row` of m is 0. */
static bool row_is_zero(const struct qkv_matrix *m, int row)
{
	for (int j = 0; j < m->cols; j++)
		if (qkv_matrix_get(m, row, j) != 0.0)
			return false;
	return true;
}

START_TEST(test_worked_example)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(p.n, 3);
	ck_assert_int_eq(p.form, QKV_FORM_DIRECT);
	ck_assert_ptr_nonnull(p.tokens);
	for (int i = 0; i < 3; i++) {
		ck_assert_ptr_nonnull(p.tokens[i]);
		ck_assert_uint_gt(strlen(p.tokens[i]), 0);
	}
	ck_assert_int_eq(qkv_problem_d_k(&p), 2);
	ck_assert_int_eq(qkv_problem_d_v(&p), 2);
	ck_assert_int_eq(qkv_problem_d_model(&p), 0);
	struct qkv_matrix q, k, v;
	qkv_matrix_init(&q);
	qkv_matrix_init(&k);
	qkv_matrix_init(&v);
	ck_assert_int_eq(qkv_matrix_set_all(&q, 3, 2, example_q), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&k, 3, 2, example_k), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&v, 3, 2, example_v), 0);
	ck_assert(qkv_matrix_equal(&p.q, &q));
	ck_assert(qkv_matrix_equal(&p.k, &k));
	ck_assert(qkv_matrix_equal(&p.v, &v));
	ck_assert_int_eq(p.scale, QKV_SCALE_SQRT_DK);
	ck_assert(p.temperature == 1.0);
	ck_assert_int_eq(p.mask, QKV_MASK_NONE);
	ck_assert_int_eq(p.wrong, QKV_WRONG_NONE);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), sqrt(2.0), 1e-15);
	/* Replacing a random problem gives the same example again. */
	struct qkv_problem again;
	qkv_problem_init(&again);
	ck_assert_int_eq(qkv_problem_random(&again, 7, 5, 4, 99), 0);
	ck_assert_int_eq(qkv_problem_worked_example(&again), 0);
	ck_assert(qkv_problem_equal(&again, &p));
	qkv_problem_fini(&again);
	qkv_matrix_fini(&q);
	qkv_matrix_fini(&k);
	qkv_matrix_fini(&v);
	qkv_problem_fini(&p);
	ck_assert_int_eq(p.n, 0);
}
END_TEST

START_TEST(test_input_names)
{
	const char *names[QKV_GRID_INPUTS] = {"Q", "K", "V", "X", "X_q", "W_Q", "W_K", "W_V", "W_O"};
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		ck_assert_str_eq(qkv_grid_name((enum qkv_grid)i), names[i]);
}
END_TEST

/* Each form has its own matrices; asking for the other form's gives NULL, from
 * both the mutable and the const accessor. */
START_TEST(test_inputs_by_form)
{
	struct qkv_problem direct, projected;
	qkv_problem_init(&direct);
	ck_assert_int_eq(qkv_problem_worked_example(&direct), 0);
	build_projected(&projected, 3, 4, 2, 5);
	struct qkv_matrix *const direct_matrices[3] = {&direct.q, &direct.k, &direct.v};
	/* X_q belongs to cross-attention only (NULL here, tested with it below). */
	struct qkv_matrix *const projected_matrices[5] = {&projected.x, NULL, &projected.w_q,
							  &projected.w_k, &projected.w_v};
	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		enum qkv_grid which = (enum qkv_grid)i;
		const struct qkv_matrix *in_direct = i < 3 ? direct_matrices[i] : NULL;
		/* W_O belongs to multi-head problems only (test_heads.c). */
		const struct qkv_matrix *in_projected = i < 3 || i > 7 ? NULL : projected_matrices[i - 3];
		ck_assert_msg(qkv_problem_input(&direct, which) == in_direct,
			      "qkv_problem_input(direct, %s)", qkv_grid_name(which));
		ck_assert_msg(qkv_problem_input_const(&direct, which) == in_direct,
			      "qkv_problem_input_const(direct, %s)", qkv_grid_name(which));
		ck_assert_msg(qkv_problem_input(&projected, which) == in_projected,
			      "qkv_problem_input(projected, %s)", qkv_grid_name(which));
		ck_assert_msg(qkv_problem_input_const(&projected, which) == in_projected,
			      "qkv_problem_input_const(projected, %s)", qkv_grid_name(which));
	}
	qkv_problem_fini(&direct);
	qkv_problem_fini(&projected);
}
END_TEST

START_TEST(test_random_deterministic)
{
	struct qkv_problem a, b, c;
	qkv_problem_init(&a);
	qkv_problem_init(&b);
	qkv_problem_init(&c);
	ck_assert_int_eq(qkv_problem_random(&a, 5, 4, 3, 42), 0);
	ck_assert_int_eq(qkv_problem_random(&b, 5, 4, 3, 42), 0);
	ck_assert_int_eq(qkv_problem_random(&c, 5, 4, 3, 43), 0);
	ck_assert_int_eq(a.n, 5);
	ck_assert_int_eq(qkv_problem_d_k(&a), 4);
	ck_assert_int_eq(qkv_problem_d_v(&a), 3);
	ck_assert_int_eq(a.q.rows, 5);
	ck_assert_int_eq(a.k.cols, 4);
	ck_assert_int_eq(a.v.cols, 3);
	ck_assert(a.seeded);
	ck_assert(a.seed == 42);
	ck_assert_int_eq(qkv_problem_check(&a), 0);
	ck_assert(qkv_problem_equal(&a, &b));
	ck_assert(!qkv_problem_equal(&a, &c));
	ck_assert(!qkv_matrix_equal(&a.q, &c.q));
	ck_assert(!qkv_matrix_equal(&a.k, &c.k));
	ck_assert(!qkv_matrix_equal(&a.v, &c.v));
	/* Q, K and V are separate draws, not one matrix three times. */
	ck_assert(!qkv_matrix_equal(&a.q, &a.k));
	ck_assert(!same_leading_columns(&a.q, &a.v, 3));
	qkv_problem_fini(&a);
	qkv_problem_fini(&b);
	qkv_problem_fini(&c);
}
END_TEST

START_TEST(test_random_prefix_property)
{
	struct qkv_problem small, large, grown;
	qkv_problem_init(&small);
	qkv_problem_init(&large);
	qkv_problem_init(&grown);
	ck_assert_int_eq(qkv_problem_random(&small, 6, 4, 3, 2024), 0);
	ck_assert_int_eq(qkv_problem_random(&large, 6, 8, 3, 2024), 0);
	ck_assert(same_leading_columns(&large.q, &small.q, 4));
	ck_assert(same_leading_columns(&large.k, &small.k, 4));
	ck_assert(qkv_matrix_equal(&large.v, &small.v));
	/* Growing d_k draws exactly the columns the larger draw has. */
	ck_assert_int_eq(qkv_problem_copy(&grown, &small), 0);
	ck_assert_int_eq(qkv_problem_set_d_k(&grown, 8), 0);
	ck_assert(qkv_matrix_equal(&grown.q, &large.q));
	ck_assert(qkv_matrix_equal(&grown.k, &large.k));
	ck_assert(qkv_problem_equal(&grown, &large));
	/* And shrinking back gives the original exactly. */
	ck_assert_int_eq(qkv_problem_set_d_k(&grown, 4), 0);
	ck_assert(qkv_problem_equal(&grown, &small));
	/* The same for d_v. */
	ck_assert_int_eq(qkv_problem_random(&large, 6, 4, 7, 2024), 0);
	ck_assert(same_leading_columns(&large.v, &small.v, 3));
	ck_assert_int_eq(qkv_problem_set_d_v(&grown, 7), 0);
	ck_assert(qkv_matrix_equal(&grown.v, &large.v));
	ck_assert(qkv_problem_equal(&grown, &large));
	ck_assert_int_eq(qkv_problem_set_d_v(&grown, 3), 0);
	ck_assert(qkv_problem_equal(&grown, &small));
	qkv_problem_fini(&small);
	qkv_problem_fini(&large);
	qkv_problem_fini(&grown);
}
END_TEST

START_TEST(test_random_rejects_limits)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_ne(qkv_problem_random(&p, 0, 2, 2, 1), 0);
	ck_assert_int_ne(qkv_problem_random(&p, QKV_MAX_TOKENS + 1, 2, 2, 1), 0);
	ck_assert_int_ne(qkv_problem_random(&p, 2, 0, 2, 1), 0);
	ck_assert_int_ne(qkv_problem_random(&p, 2, QKV_MAX_DIM + 1, 2, 1), 0);
	ck_assert_int_ne(qkv_problem_random(&p, 2, 2, QKV_MAX_DIM + 1, 1), 0);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_insert_token_keeps_others)
{
	struct qkv_problem original, p;
	qkv_problem_init(&original);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&original), 0);
	for (int at = 0; at <= 3; at++) {
		ck_assert_int_eq(qkv_problem_copy(&p, &original), 0);
		ck_assert_int_eq(qkv_problem_insert_token(&p, at, "new"), 0);
		ck_assert_int_eq(p.n, 4);
		ck_assert_int_eq(qkv_problem_check(&p), 0);
		for (int i = 0; i < 4; i++) {
			if (i == at) {
				ck_assert_str_eq(p.tokens[i], "new");
				ck_assert(row_is_zero(&p.q, i));
				ck_assert(row_is_zero(&p.k, i));
				ck_assert(row_is_zero(&p.v, i));
				continue;
			}
			int old = i < at ? i : i - 1;
			ck_assert_str_eq(p.tokens[i], original.tokens[old]);
			for (int j = 0; j < 2; j++) {
				ck_assert(qkv_matrix_get(&p.q, i, j) == example_q[old * 2 + j]);
				ck_assert(qkv_matrix_get(&p.k, i, j) == example_k[old * 2 + j]);
				ck_assert(qkv_matrix_get(&p.v, i, j) == example_v[old * 2 + j]);
			}
		}
		/* Removing it again restores the example exactly. */
		ck_assert_int_eq(qkv_problem_remove_token(&p, at), 0);
		ck_assert(qkv_problem_equal(&p, &original));
	}
	/* A NULL label gets a made-up "tN" label. */
	ck_assert_int_eq(qkv_problem_insert_token(&p, 3, NULL), 0);
	ck_assert_ptr_nonnull(p.tokens[3]);
	ck_assert_int_eq(p.tokens[3][0], 't');
	ck_assert_int_ne(qkv_problem_insert_token(&p, 5, "x"), 0);
	ck_assert_int_ne(qkv_problem_insert_token(&p, -1, "x"), 0);
	ck_assert_int_eq(p.n, 4);
	qkv_problem_fini(&original);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_remove_token_keeps_others)
{
	struct qkv_problem original, p;
	qkv_problem_init(&original);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&original), 0);
	for (int at = 0; at < 3; at++) {
		ck_assert_int_eq(qkv_problem_copy(&p, &original), 0);
		ck_assert_int_eq(qkv_problem_remove_token(&p, at), 0);
		ck_assert_int_eq(p.n, 2);
		ck_assert_int_eq(qkv_problem_check(&p), 0);
		for (int i = 0; i < 2; i++) {
			int old = i < at ? i : i + 1;
			ck_assert_str_eq(p.tokens[i], original.tokens[old]);
			for (int j = 0; j < 2; j++) {
				ck_assert(qkv_matrix_get(&p.q, i, j) == example_q[old * 2 + j]);
				ck_assert(qkv_matrix_get(&p.k, i, j) == example_k[old * 2 + j]);
				ck_assert(qkv_matrix_get(&p.v, i, j) == example_v[old * 2 + j]);
			}
		}
	}
	ck_assert_int_ne(qkv_problem_remove_token(&p, 2), 0);
	ck_assert_int_eq(qkv_problem_remove_token(&p, 0), 0);
	ck_assert_int_eq(p.n, 1);
	/* n must stay >= 1. */
	ck_assert_int_ne(qkv_problem_remove_token(&p, 0), 0);
	ck_assert_int_eq(p.n, 1);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&original);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_insert_token_random_keeps_others)
{
	struct qkv_problem original, p;
	qkv_problem_init(&original);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&original, 4, 3, 2, 5), 0);
	ck_assert_int_eq(qkv_problem_copy(&p, &original), 0);
	ck_assert_int_eq(qkv_problem_insert_token(&p, 2, "r"), 0);
	ck_assert_int_eq(p.n, 5);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	for (int i = 0; i < 5; i++) {
		if (i == 2)
			continue;
		int old = i < 2 ? i : i - 1;
		for (int j = 0; j < 3; j++) {
			ck_assert(qkv_matrix_get(&p.q, i, j) == qkv_matrix_get(&original.q, old, j));
			ck_assert(qkv_matrix_get(&p.k, i, j) == qkv_matrix_get(&original.k, old, j));
		}
		for (int j = 0; j < 2; j++)
			ck_assert(qkv_matrix_get(&p.v, i, j) == qkv_matrix_get(&original.v, old, j));
	}
	/* "Random problems draw the row": the new row is not left at zero. */
	ck_assert(!row_is_zero(&p.q, 2));
	qkv_problem_fini(&original);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_insert_token_keeps_mask_bits)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	ck_assert_ptr_nonnull(p.mask_bits);
	/* A pattern that is not causal: hide key 0 from query 2 and key 2 from query 0. */
	memset(p.mask_bits, 0, 9);
	p.mask_bits[2 * 3 + 0] = 1;
	p.mask_bits[0 * 3 + 2] = 1;
	ck_assert_int_eq(qkv_problem_insert_token(&p, 1, "mid"), 0);
	/* Old indices 0, 1, 2 are now 0, 2, 3. */
	const int now[3] = {0, 2, 3};
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			bool hidden = (a == 2 && b == 0) || (a == 0 && b == 2);
			ck_assert_msg(qkv_problem_is_masked(&p, now[a], now[b]) == hidden,
				      "old pair (%d,%d) lost its mask bit", a, b);
		}
	for (int i = 0; i < 4; i++) {
		ck_assert_msg(!qkv_problem_is_masked(&p, 1, i), "new token masked");
		ck_assert_msg(!qkv_problem_is_masked(&p, i, 1), "new token masked");
	}
	ck_assert_int_eq(qkv_problem_remove_token(&p, 0), 0);
	/* Both hidden pairs involved old token 0: removing it leaves nothing hidden. */
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			ck_assert(!qkv_problem_is_masked(&p, a, b));
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_set_d_k_and_d_v_plain)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_problem_set_d_k(&p, 3), 0);
	ck_assert_int_eq(qkv_problem_d_k(&p), 3);
	ck_assert_int_eq(p.q.cols, 3);
	ck_assert_int_eq(p.k.cols, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert(qkv_matrix_get(&p.q, i, 0) == example_q[i * 2]);
		ck_assert(qkv_matrix_get(&p.q, i, 1) == example_q[i * 2 + 1]);
		ck_assert(qkv_matrix_get(&p.q, i, 2) == 0.0);
		ck_assert(qkv_matrix_get(&p.k, i, 2) == 0.0);
	}
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_problem_set_d_v(&p, 3), 0);
	ck_assert_int_eq(qkv_problem_d_v(&p), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert(qkv_matrix_get(&p.v, i, 0) == example_v[i * 2]);
		ck_assert(qkv_matrix_get(&p.v, i, 1) == example_v[i * 2 + 1]);
		ck_assert(qkv_matrix_get(&p.v, i, 2) == 0.0);
	}
	ck_assert_int_eq(qkv_problem_set_d_v(&p, 1), 0);
	ck_assert_int_eq(p.v.cols, 1);
	for (int i = 0; i < 3; i++)
		ck_assert(qkv_matrix_get(&p.v, i, 0) == example_v[i * 2]);
	ck_assert_int_eq(qkv_problem_d_k(&p), 3);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* Out of 1..QKV_MAX_DIM: refused, nothing changes. */
	ck_assert_int_ne(qkv_problem_set_d_k(&p, 0), 0);
	ck_assert_int_ne(qkv_problem_set_d_k(&p, QKV_MAX_DIM + 1), 0);
	ck_assert_int_ne(qkv_problem_set_d_v(&p, 0), 0);
	ck_assert_int_ne(qkv_problem_set_d_v(&p, QKV_MAX_DIM + 1), 0);
	ck_assert_int_eq(qkv_problem_d_k(&p), 3);
	ck_assert_int_eq(qkv_problem_d_v(&p), 1);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_copy_and_equal)
{
	struct qkv_problem a, b;
	qkv_problem_init(&a);
	qkv_problem_init(&b);
	ck_assert_int_eq(qkv_problem_worked_example(&a), 0);
	ck_assert_int_eq(qkv_problem_set_title(&a, "Three tokens"), 0);
	ck_assert_int_eq(qkv_problem_set_notes(&a, "A note."), 0);
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);
	ck_assert(qkv_problem_equal(&a, &b));
	ck_assert_ptr_ne(a.tokens, b.tokens);
	ck_assert_ptr_ne(a.tokens[0], b.tokens[0]);
	ck_assert_ptr_ne(a.q.values, b.q.values);
	ck_assert_str_eq(b.title, "Three tokens");
	ck_assert_str_eq(b.notes, "A note.");

	ck_assert_int_eq(qkv_problem_set_label(&b, 0, "other"), 0);
	ck_assert_str_ne(a.tokens[0], "other");
	ck_assert(!qkv_problem_equal(&a, &b));
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);
	ck_assert(qkv_problem_equal(&a, &b));

	qkv_matrix_set(&b.v, 2, 1, nextafter(5.0, 6.0));
	ck_assert(qkv_matrix_get(&a.v, 2, 1) == 5.0);
	ck_assert(!qkv_problem_equal(&a, &b));
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);

	b.temperature = 2.0;
	ck_assert(!qkv_problem_equal(&a, &b));
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);
	b.scale = QKV_SCALE_NONE;
	ck_assert(!qkv_problem_equal(&a, &b));
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);
	ck_assert_int_eq(qkv_problem_set_mask(&b, QKV_MASK_CAUSAL), 0);
	ck_assert(!qkv_problem_equal(&a, &b));
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);
	ck_assert_int_eq(qkv_problem_set_title(&b, "Another"), 0);
	ck_assert(!qkv_problem_equal(&a, &b));
	ck_assert_int_eq(qkv_problem_set_title(&b, NULL), 0);
	ck_assert_ptr_null(b.title);
	ck_assert(!qkv_problem_equal(&a, &b));

	/* Copying over a larger problem replaces it entirely. */
	ck_assert_int_eq(qkv_problem_random(&b, 9, 6, 5, 3), 0);
	ck_assert_int_eq(qkv_problem_copy(&b, &a), 0);
	ck_assert(qkv_problem_equal(&a, &b));
	ck_assert_int_eq(b.n, 3);
	qkv_problem_fini(&a);
	qkv_problem_fini(&b);
}
END_TEST

START_TEST(test_labels)
{
	char long_label[QKV_MAX_LABEL + 2];
	memset(long_label, 'a', sizeof long_label - 1);
	long_label[sizeof long_label - 1] = '\0';
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_problem_set_label(&p, 1, "cat"), 0);
	ck_assert_str_eq(p.tokens[1], "cat");
	ck_assert_int_ne(qkv_problem_set_label(&p, 1, ""), 0);
	ck_assert_int_ne(qkv_problem_set_label(&p, 1, long_label), 0);
	ck_assert_int_ne(qkv_problem_set_label(&p, 3, "x"), 0);
	ck_assert_str_eq(p.tokens[1], "cat");
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_check_accepts_valid)
{
	struct qkv_problem p;
	build_direct(&p, 1, 1, 1);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
	build_direct(&p, QKV_MAX_TOKENS, 1, 1);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
	build_direct(&p, 2, QKV_MAX_DIM, QKV_MAX_DIM);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_check_rejects_shapes)
{
	struct qkv_problem empty;
	qkv_problem_init(&empty);
	ck_assert_int_ne(qkv_problem_check(&empty), 0);
	qkv_problem_fini(&empty);

	struct qkv_problem p;
	build_direct(&p, 3, 2, 2);
	ck_assert_int_eq(qkv_matrix_resize(&p.k, 2, 2), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.k, 3, 3), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.k, 3, 2), 0);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_matrix_resize(&p.v, 4, 2), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.v, 3, 2), 0);
	ck_assert_int_eq(qkv_matrix_resize(&p.q, 2, 2), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	qkv_problem_fini(&p);

	/* d_k = 0 is a shape that does not exist. */
	build_direct(&p, 2, 0, 1);
	ck_assert_int_ne(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_check_rejects_non_finite)
{
	const double bad[3] = {NAN, INFINITY, -INFINITY};
	struct qkv_problem p;
	qkv_problem_init(&p);
	for (int b = 0; b < 3; b++)
		for (int which = 0; which < 3; which++) {
			ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
			qkv_matrix_set(qkv_problem_input(&p, (enum qkv_grid)which), 1, 1, bad[b]);
			ck_assert_msg(qkv_problem_check(&p) == QKV_EINVAL, "%g in %s accepted",
				      bad[b], qkv_grid_name((enum qkv_grid)which));
		}
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_check_rejects_options)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	const double bad_temperature[6] = {0.0, -1.0, NAN, INFINITY,
					   QKV_MIN_TEMPERATURE / 2, QKV_MAX_TEMPERATURE * 2};
	for (int i = 0; i < 6; i++) {
		p.temperature = bad_temperature[i];
		ck_assert_msg(qkv_problem_check(&p) == QKV_EINVAL, "τ = %g accepted",
			      bad_temperature[i]);
	}
	p.temperature = 0.25;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	p.scale = QKV_SCALE_CUSTOM;
	const double bad_scale[5] = {0.0, -2.0, NAN, INFINITY, QKV_MIN_TEMPERATURE / 2};
	for (int i = 0; i < 5; i++) {
		p.scale_value = bad_scale[i];
		ck_assert_msg(qkv_problem_check(&p) == QKV_EINVAL, "scale %g accepted",
			      bad_scale[i]);
	}
	p.scale_value = 3.0;
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_check_rejects_limits)
{
	struct qkv_problem p;
	build_direct(&p, QKV_MAX_TOKENS + 1, 1, 1);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ELIMIT);
	qkv_problem_fini(&p);
	build_direct(&p, 1, QKV_MAX_DIM + 1, 1);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ELIMIT);
	qkv_problem_fini(&p);
	build_direct(&p, 1, 1, QKV_MAX_DIM + 1);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ELIMIT);
	qkv_problem_fini(&p);
	build_projected(&p, 1, QKV_MAX_DIM + 1, 1, 1);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ELIMIT);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_divisor)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), sqrt(2.0), 1e-15);
	ck_assert_int_eq(qkv_problem_set_d_k(&p, 9), 0);
	p.temperature = 2.5;
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), 7.5, 1e-14);
	p.scale = QKV_SCALE_NONE;
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), 2.5, 1e-15);
	p.temperature = 0.5;
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), 0.5, 1e-15);
	p.scale = QKV_SCALE_CUSTOM;
	p.scale_value = 3.0;
	p.temperature = 2.0;
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), 6.0, 1e-15);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_is_masked)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 5, 2, 2, 11), 0);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert(!qkv_problem_is_masked(&p, i, j));
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(p.mask, QKV_MASK_CAUSAL);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert_msg(qkv_problem_is_masked(&p, i, j) == (j > i),
				      "causal (%d,%d)", i, j);
	/* CUSTOM with no bits yet starts from the causal pattern. */
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	ck_assert_int_eq(p.mask, QKV_MASK_CUSTOM);
	ck_assert_ptr_nonnull(p.mask_bits);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++) {
			ck_assert_int_eq(p.mask_bits[i * 5 + j] != 0, j > i);
			ck_assert(qkv_problem_is_masked(&p, i, j) == (j > i));
		}
	/* Then follows the bits: a checkerboard. */
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			p.mask_bits[i * 5 + j] = (unsigned char)((i + j) % 2);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert(qkv_problem_is_masked(&p, i, j) == ((i + j) % 2 == 1));
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* NONE ignores the bits. */
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_NONE), 0);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			ck_assert(!qkv_problem_is_masked(&p, i, j));
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_is_masked_padding)
{
	struct qkv_problem p;
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 4, 2, 2, 12), 0);
	if (p.padding == NULL) {
		p.padding = calloc(4, 1);
		ck_assert_ptr_nonnull(p.padding);
	}
	p.padding[2] = 1;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			ck_assert_msg(qkv_problem_is_masked(&p, i, j) == (j == 2),
				      "padding, no mask (%d,%d)", i, j);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			ck_assert_msg(qkv_problem_is_masked(&p, i, j) == (j == 2 || j > i),
				      "padding and causal (%d,%d)", i, j);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_projected_form)
{
	struct qkv_problem p;
	build_projected(&p, 3, 4, 2, 5);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_problem_d_k(&p), 2);
	ck_assert_int_eq(qkv_problem_d_v(&p), 5);
	ck_assert_int_eq(qkv_problem_d_model(&p), 4);
	ck_assert_double_eq_tol(qkv_problem_divisor(&p), sqrt(2.0), 1e-15);

	struct qkv_problem original;
	qkv_problem_init(&original);
	ck_assert_int_eq(qkv_problem_copy(&original, &p), 0);
	ck_assert(qkv_problem_equal(&original, &p));

	/* d_model grows X's columns and the W's rows, keeping what was there. */
	ck_assert_int_eq(qkv_problem_set_d_model(&p, 6), 0);
	ck_assert_int_eq(qkv_problem_d_model(&p), 6);
	ck_assert_int_eq(p.x.cols, 6);
	ck_assert_int_eq(p.w_q.rows, 6);
	ck_assert_int_eq(p.w_k.rows, 6);
	ck_assert_int_eq(p.w_v.rows, 6);
	ck_assert(same_leading_columns(&p.x, &original.x, 4));
	ck_assert(qkv_matrix_get(&p.x, 2, 5) == 0.0);
	ck_assert(qkv_matrix_get(&p.w_q, 3, 1) == qkv_matrix_get(&original.w_q, 3, 1));
	ck_assert(qkv_matrix_get(&p.w_q, 5, 1) == 0.0);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_problem_set_d_model(&p, 4), 0);
	ck_assert(qkv_problem_equal(&original, &p));

	/* d_k and d_v act on the W's. */
	ck_assert_int_eq(qkv_problem_set_d_k(&p, 3), 0);
	ck_assert_int_eq(qkv_problem_d_k(&p), 3);
	ck_assert_int_eq(p.w_q.cols, 3);
	ck_assert_int_eq(p.w_k.cols, 3);
	ck_assert(same_leading_columns(&p.w_q, &original.w_q, 2));
	ck_assert_int_eq(qkv_problem_set_d_v(&p, 1), 0);
	ck_assert_int_eq(p.w_v.cols, 1);
	ck_assert_int_eq(qkv_problem_d_v(&p), 1);
	ck_assert_int_eq(qkv_problem_check(&p), 0);

	/* Token edits act on X. */
	ck_assert_int_eq(qkv_problem_insert_token(&p, 0, "x0"), 0);
	ck_assert_int_eq(p.x.rows, 4);
	ck_assert(row_is_zero(&p.x, 0));
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_problem_fini(&original);
	qkv_problem_fini(&p);
}
END_TEST

/* Drawing d_k columns into a hand-made problem: the old columns stay, the new ones
 * are the entries a random problem of that seed has there (a second route to the
 * same numbers), the seed of the problem is untouched, and halving drops them. */
START_TEST(test_draw_d_k_columns)
{
	struct qkv_problem p, drawn;

	qkv_problem_init(&p);
	qkv_problem_init(&drawn);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_problem_random(&drawn, 3, 8, 2, 5), 0);
	ck_assert_int_eq(qkv_problem_draw_d_k(&p, 8, 5), 0);
	ck_assert_int_eq(p.q.cols, 8);
	ck_assert_int_eq(p.k.cols, 8);
	ck_assert(!p.seeded);
	for (int r = 0; r < 3; r++) {
		ck_assert(qkv_matrix_get(&p.q, r, 0) == (r == 1 ? 0.0 : 1.0));
		ck_assert(qkv_matrix_get(&p.k, r, 1) == (r == 0 ? 0.0 : 1.0));
		for (int c = 2; c < 8; c++) {
			ck_assert(qkv_matrix_get(&p.q, r, c) == qkv_matrix_get(&drawn.q, r, c));
			ck_assert(qkv_matrix_get(&p.k, r, c) == qkv_matrix_get(&drawn.k, r, c));
			ck_assert(qkv_matrix_get(&p.q, r, c) != qkv_matrix_get(&p.k, r, c));
		}
	}
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_problem_draw_d_k(&p, 2, 5), 0);
	ck_assert_int_eq(p.q.cols, 2);
	ck_assert_int_eq(qkv_problem_draw_d_k(&p, 0, 5), QKV_EINVAL);
	ck_assert_int_eq(qkv_problem_draw_d_k(&p, QKV_MAX_DIM + 1, 5), QKV_ELIMIT);
	ck_assert_int_eq(p.q.cols, 2);
	qkv_problem_fini(&drawn);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_projected_rejects_shapes)
{
	struct qkv_problem p;
	build_projected(&p, 3, 4, 2, 5);
	ck_assert_int_eq(qkv_matrix_resize(&p.w_k, 4, 3), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.w_k, 4, 2), 0);
	ck_assert_int_eq(qkv_matrix_resize(&p.w_v, 3, 5), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.w_v, 4, 5), 0);
	ck_assert_int_eq(qkv_matrix_resize(&p.x, 3, 3), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.x, 2, 4), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.x, 3, 4), 0);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	qkv_matrix_set(&p.w_v, 0, 0, NAN);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_EINVAL);
	qkv_problem_fini(&p);
}
END_TEST

/* The suite: construction, edits, validation, options. */
/* --- cross-attention ------------------------------------------------------------ */

/* The worked example made cross-attention, then cut to 2 queries and 3 keys:
 * rows of Q stay queries, rows of K and V keys, the labels follow. */
static void cross_example(struct qkv_problem *p)
{
	qkv_problem_init(p);
	ck_assert_int_eq(qkv_problem_worked_example(p), 0);
	ck_assert_int_eq(qkv_problem_make_cross(p), 0);
	ck_assert_int_eq(qkv_problem_remove_query(p, 2), 0);
	ck_assert_int_eq(qkv_problem_set_query_label(p, 0, "der"), 0);
	ck_assert_int_eq(qkv_problem_set_query_label(p, 1, "Hund"), 0);
	ck_assert_int_eq(qkv_problem_check(p), 0);
}

/* Queries and keys are edited apart: a query is a row of Q (and of the mask), a
 * key a row of K and V (and a column of the mask); each keeps the other side's
 * values, labels and mask bits. */
START_TEST(test_cross_insert_and_remove_apart)
{
	struct qkv_problem p;

	cross_example(&p);
	ck_assert_int_eq(p.m, 2);
	ck_assert_int_eq(p.n, 3);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	memset(p.mask_bits, 0, 6);
	p.mask_bits[0 * 3 + 2] = 1; /* der cannot see t3 */
	p.mask_bits[1 * 3 + 0] = 1; /* Hund cannot see t1 */
	ck_assert_int_eq(qkv_problem_insert_query(&p, 1, "kleine"), 0);
	ck_assert_int_eq(p.m, 3);
	ck_assert_int_eq(p.n, 3);
	ck_assert_int_eq(p.q.rows, 3);
	ck_assert_int_eq(p.k.rows, 3);
	ck_assert_str_eq(p.query_tokens[1], "kleine");
	ck_assert_str_eq(p.query_tokens[2], "Hund");
	ck_assert(qkv_matrix_get(&p.q, 1, 0) == 0.0 && qkv_matrix_get(&p.q, 1, 1) == 0.0);
	ck_assert(qkv_matrix_get(&p.q, 2, 0) == 0.0 && qkv_matrix_get(&p.q, 2, 1) == 1.0);
	ck_assert(qkv_problem_is_masked(&p, 0, 2) && qkv_problem_is_masked(&p, 2, 0));
	for (int j = 0; j < 3; j++)
		ck_assert(!qkv_problem_is_masked(&p, 1, j));
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* A key before t2: a column of the mask, the queries untouched. */
	ck_assert_int_eq(qkv_problem_insert_token(&p, 1, "mid"), 0);
	ck_assert_int_eq(p.m, 3);
	ck_assert_int_eq(p.n, 4);
	ck_assert_int_eq(p.q.rows, 3);
	ck_assert_int_eq(p.k.rows, 4);
	ck_assert_int_eq(p.v.rows, 4);
	ck_assert_str_eq(p.tokens[1], "mid");
	ck_assert_str_eq(p.query_tokens[0], "der");
	ck_assert(qkv_problem_is_masked(&p, 0, 3) && qkv_problem_is_masked(&p, 2, 0));
	for (int i = 0; i < 3; i++)
		ck_assert(!qkv_problem_is_masked(&p, i, 1));
	ck_assert(qkv_matrix_get(&p.v, 3, 0) == 5.0);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	ck_assert_int_eq(qkv_problem_remove_token(&p, 0), 0);
	ck_assert_int_eq(p.n, 3);
	ck_assert_int_eq(p.m, 3);
	ck_assert(!qkv_problem_is_masked(&p, 2, 0)); /* t1 was the hidden one */
	ck_assert(qkv_problem_is_masked(&p, 0, 2));
	ck_assert_int_eq(qkv_problem_remove_query(&p, 0), 0);
	ck_assert_int_eq(p.m, 2);
	ck_assert_str_eq(p.query_tokens[0], "kleine");
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(!qkv_problem_is_masked(&p, i, j));
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* One of each stays. */
	ck_assert_int_eq(qkv_problem_remove_query(&p, 0), 0);
	ck_assert_int_eq(qkv_problem_remove_query(&p, 0), QKV_EINVAL);
	ck_assert_int_eq(qkv_problem_remove_token(&p, 0), 0);
	ck_assert_int_eq(qkv_problem_remove_token(&p, 0), 0);
	ck_assert_int_eq(qkv_problem_remove_token(&p, 0), QKV_EINVAL);
	ck_assert_int_eq(p.m, 1);
	ck_assert_int_eq(p.n, 1);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* Default labels: q<m+1> and t<n+1>. */
	ck_assert_int_eq(qkv_problem_insert_query(&p, 1, NULL), 0);
	ck_assert_str_eq(p.query_tokens[1], "q2");
	ck_assert_int_eq(qkv_problem_insert_token(&p, 1, NULL), 0);
	ck_assert_str_eq(p.tokens[1], "t2");
	qkv_problem_fini(&p);
}
END_TEST

/* Self-attention has no queries of its own: the query functions refuse, labels of
 * queries are the tokens', and make_cross copies them (and X into X_q). */
START_TEST(test_cross_from_self)
{
	struct qkv_problem p, copy;

	qkv_problem_init(&p);
	qkv_problem_init(&copy);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert(!qkv_problem_is_cross(&p));
	ck_assert_int_eq(p.m, 3);
	ck_assert_str_eq(qkv_problem_query_label(&p, 1), "t2");
	ck_assert_int_eq(qkv_problem_insert_query(&p, 0, NULL), QKV_EINVAL);
	ck_assert_int_eq(qkv_problem_remove_query(&p, 0), QKV_EINVAL);
	ck_assert_ptr_null(qkv_problem_input(&p, QKV_GRID_X_Q));
	ck_assert_int_eq(qkv_problem_insert_token(&p, 3, NULL), 0);
	ck_assert_int_eq(p.m, 4); /* a token is a query too */
	ck_assert_int_eq(qkv_problem_make_cross(&p), 0);
	ck_assert_int_eq(qkv_problem_make_cross(&p), QKV_EINVAL);
	ck_assert_str_eq(qkv_problem_query_label(&p, 1), "t2");
	ck_assert_int_eq(qkv_problem_set_query_label(&p, 1, "Q2"), 0);
	ck_assert_str_eq(qkv_problem_query_label(&p, 1), "Q2");
	ck_assert_str_eq(p.tokens[1], "t2");
	/* Copies and equality see the queries. */
	ck_assert_int_eq(qkv_problem_copy(&copy, &p), 0);
	ck_assert(qkv_problem_equal(&copy, &p));
	ck_assert_int_eq(qkv_problem_set_query_label(&copy, 1, "other"), 0);
	ck_assert(!qkv_problem_equal(&copy, &p));
	qkv_problem_fini(&p);
	qkv_problem_fini(&copy);

	build_projected(&p, 3, 4, 2, 5);
	ck_assert_int_eq(qkv_problem_make_cross(&p), 0);
	ck_assert_ptr_eq(qkv_problem_input(&p, QKV_GRID_X_Q), &p.x_q);
	ck_assert(qkv_matrix_equal(&p.x_q, &p.x));
	ck_assert_int_eq(qkv_problem_remove_query(&p, 0), 0);
	ck_assert_int_eq(p.x_q.rows, 2);
	ck_assert_int_eq(p.x.rows, 3);
	ck_assert_int_eq(qkv_problem_set_d_model(&p, 6), 0);
	ck_assert_int_eq(p.x_q.cols, 6);
	ck_assert_int_eq(qkv_problem_check(&p), 0);
	/* X_q must have d_model columns and m rows. */
	ck_assert_int_eq(qkv_matrix_resize(&p.x_q, 2, 5), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	ck_assert_int_eq(qkv_matrix_resize(&p.x_q, 3, 6), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	qkv_problem_fini(&p);
}
END_TEST

/* In self-attention m is n; a cross problem's Q has m rows, K and V n. */
START_TEST(test_cross_check_shapes)
{
	struct qkv_problem p;

	cross_example(&p);
	p.m = 3;
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	p.m = 2;
	ck_assert_int_eq(qkv_matrix_resize(&p.v, 2, 2), 0);
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	qkv_problem_fini(&p);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	p.m = 2;
	ck_assert_int_eq(qkv_problem_check(&p), QKV_ESHAPE);
	qkv_problem_fini(&p);
}
END_TEST

static Suite *problem_suite(void)
{
	Suite *s = suite_create("problem");
	TCase *making = tcase_create("making");
	tcase_add_test(making, test_worked_example);
	tcase_add_test(making, test_input_names);
	tcase_add_test(making, test_inputs_by_form);
	tcase_add_test(making, test_random_deterministic);
	tcase_add_test(making, test_random_prefix_property);
	tcase_add_test(making, test_random_rejects_limits);
	tcase_add_test(making, test_copy_and_equal);
	suite_add_tcase(s, making);
	TCase *editing = tcase_create("editing");
	tcase_add_test(editing, test_insert_token_keeps_others);
	tcase_add_test(editing, test_remove_token_keeps_others);
	tcase_add_test(editing, test_insert_token_random_keeps_others);
	tcase_add_test(editing, test_insert_token_keeps_mask_bits);
	tcase_add_test(editing, test_set_d_k_and_d_v_plain);
	tcase_add_test(editing, test_labels);
	tcase_add_test(editing, test_cross_insert_and_remove_apart);
	tcase_add_test(editing, test_cross_from_self);
	tcase_add_test(editing, test_cross_check_shapes);
	suite_add_tcase(s, editing);
	TCase *checking = tcase_create("checking");
	tcase_set_timeout(checking, 30);
	tcase_add_test(checking, test_check_accepts_valid);
	tcase_add_test(checking, test_check_rejects_shapes);
	tcase_add_test(checking, test_check_rejects_non_finite);
	tcase_add_test(checking, test_check_rejects_options);
	tcase_add_test(checking, test_check_rejects_limits);
	suite_add_tcase(s, checking);
	TCase *options = tcase_create("options");
	tcase_add_test(options, test_divisor);
	tcase_add_test(options, test_is_masked);
	tcase_add_test(options, test_is_masked_padding);
	tcase_add_test(options, test_projected_form);
	tcase_add_test(options, test_projected_rejects_shapes);
	tcase_add_test(options, test_draw_d_k_columns);
	suite_add_tcase(s, options);
	return s;
}

int main(void)
{
	return run_tap(problem_suite());
}
