/* test_matrix.c — Check suite for the dense matrices of the core (matrix.h).
 * Expected values come from hand-computed products, a naive triple loop written
 * here, and the documented contracts; never from output of the code under test.
 * Must never link anything above the core or depend on the order tests run in. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "qkv/error.h"
#include "qkv/matrix.h"

#include "lcg.h"
#include "oracle.h"
#include "tap_main.h"


/* Fills m (already sized) with distinct recognisable values: 10·row + col + 1. */
static void fill_pattern(struct qkv_matrix *m)
{
	for (int i = 0; i < m->rows; i++)
		for (int j = 0; j < m->cols; j++)
			qkv_matrix_set(m, i, j, 10.0 * i + j + 1.0);
}

/* Sizes m to rows × cols and fills it from the test generator. */
static void fill_random(struct qkv_matrix *m, int rows, int cols, struct lcg *g)
{
	ck_assert_int_eq(qkv_matrix_zero(m, rows, cols), 0);
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++)
			qkv_matrix_set(m, i, j, lcg_signed(g));
}

START_TEST(test_init_is_empty)
{
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	ck_assert_int_eq(m.rows, 0);
	ck_assert_int_eq(m.cols, 0);
	ck_assert_ptr_null(m.values);
	ck_assert(qkv_matrix_all_finite(&m));
	qkv_matrix_fini(&m);
	ck_assert_int_eq(m.rows, 0);
	ck_assert_int_eq(m.cols, 0);
	ck_assert_ptr_null(m.values);
}
END_TEST

START_TEST(test_resize_grow_keeps_and_zeroes)
{
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	ck_assert_int_eq(qkv_matrix_resize(&m, 2, 3), 0);
	ck_assert_int_eq(m.rows, 2);
	ck_assert_int_eq(m.cols, 3);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(qkv_matrix_get(&m, i, j) == 0.0);
	fill_pattern(&m);
	ck_assert_int_eq(qkv_matrix_resize(&m, 4, 5), 0);
	ck_assert_int_eq(m.rows, 4);
	ck_assert_int_eq(m.cols, 5);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 5; j++) {
			double expected = (i < 2 && j < 3) ? 10.0 * i + j + 1.0 : 0.0;
			ck_assert_msg(qkv_matrix_get(&m, i, j) == expected,
				      "(%d,%d) = %g, expected %g", i, j,
				      qkv_matrix_get(&m, i, j), expected);
		}
	qkv_matrix_fini(&m);
}
END_TEST

START_TEST(test_resize_shrink_and_reshape)
{
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	ck_assert_int_eq(qkv_matrix_resize(&m, 3, 4), 0);
	fill_pattern(&m);
	/* 3×4 → 4×2: the overlap is rows 0..2, columns 0..1; row 3 is new. */
	ck_assert_int_eq(qkv_matrix_resize(&m, 4, 2), 0);
	ck_assert_int_eq(m.rows, 4);
	ck_assert_int_eq(m.cols, 2);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 2; j++) {
			double expected = i < 3 ? 10.0 * i + j + 1.0 : 0.0;
			ck_assert_msg(qkv_matrix_get(&m, i, j) == expected,
				      "(%d,%d) = %g, expected %g", i, j,
				      qkv_matrix_get(&m, i, j), expected);
		}
	/* Shrink, then grow again: the dropped entries must come back as 0, not as
	 * the old values left in reused storage. */
	ck_assert_int_eq(qkv_matrix_resize(&m, 1, 1), 0);
	ck_assert(qkv_matrix_get(&m, 0, 0) == 1.0);
	ck_assert_int_eq(qkv_matrix_resize(&m, 4, 2), 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 2; j++) {
			double expected = (i == 0 && j == 0) ? 1.0 : 0.0;
			ck_assert_msg(qkv_matrix_get(&m, i, j) == expected,
				      "(%d,%d) = %g after shrink+grow, expected %g", i, j,
				      qkv_matrix_get(&m, i, j), expected);
		}
	ck_assert_int_eq(qkv_matrix_resize(&m, 0, 0), 0);
	ck_assert_int_eq(m.rows, 0);
	ck_assert_int_eq(m.cols, 0);
	qkv_matrix_fini(&m);
}
END_TEST

START_TEST(test_resize_rejects_bad_sizes)
{
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	ck_assert_int_eq(qkv_matrix_resize(&m, 2, 2), 0);
	fill_pattern(&m);
	ck_assert_int_eq(qkv_matrix_resize(&m, -1, 2), QKV_EINVAL);
	ck_assert_int_eq(qkv_matrix_resize(&m, 2, -1), QKV_EINVAL);
	ck_assert_int_eq(qkv_matrix_resize(&m, QKV_MAX_DIM * 4 + 1, 1), QKV_EINVAL);
	ck_assert_int_eq(qkv_matrix_resize(&m, 1, QKV_MAX_DIM * 4 + 1), QKV_EINVAL);
	/* Unchanged on failure. */
	ck_assert_int_eq(m.rows, 2);
	ck_assert_int_eq(m.cols, 2);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			ck_assert(qkv_matrix_get(&m, i, j) == 10.0 * i + j + 1.0);
	qkv_matrix_fini(&m);
}
END_TEST

START_TEST(test_zero_and_set_all)
{
	const double values[6] = {1.5, -2.0, 3.25, 0.0, 7.0, -8.5};
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	ck_assert_int_eq(qkv_matrix_set_all(&m, 2, 3, values), 0);
	ck_assert_int_eq(m.rows, 2);
	ck_assert_int_eq(m.cols, 3);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(qkv_matrix_get(&m, i, j) == values[i * 3 + j]);
	ck_assert(qkv_matrix_row(&m, 1)[2] == -8.5);
	ck_assert(qkv_matrix_row_const(&m, 1)[0] == 0.0);
	ck_assert_int_eq(qkv_matrix_zero(&m, 3, 2), 0);
	ck_assert_int_eq(m.rows, 3);
	ck_assert_int_eq(m.cols, 2);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			ck_assert(qkv_matrix_get(&m, i, j) == 0.0);
	qkv_matrix_fini(&m);
}
END_TEST

START_TEST(test_insert_row_keeps_others)
{
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	for (int at = 0; at <= 3; at++) {
		ck_assert_int_eq(qkv_matrix_zero(&m, 3, 2), 0);
		fill_pattern(&m);
		ck_assert_int_eq(qkv_matrix_insert_row(&m, at), 0);
		ck_assert_int_eq(m.rows, 4);
		ck_assert_int_eq(m.cols, 2);
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 2; j++) {
				int old = i < at ? i : i - 1;
				double expected = i == at ? 0.0 : 10.0 * old + j + 1.0;
				ck_assert_msg(qkv_matrix_get(&m, i, j) == expected,
					      "insert at %d: (%d,%d) = %g, expected %g", at, i, j,
					      qkv_matrix_get(&m, i, j), expected);
			}
	}
	ck_assert_int_eq(qkv_matrix_zero(&m, 3, 2), 0);
	ck_assert_int_ne(qkv_matrix_insert_row(&m, 4), 0);
	ck_assert_int_ne(qkv_matrix_insert_row(&m, -1), 0);
	ck_assert_int_eq(m.rows, 3);
	qkv_matrix_fini(&m);
}
END_TEST

START_TEST(test_remove_row_keeps_others)
{
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	for (int at = 0; at < 4; at++) {
		ck_assert_int_eq(qkv_matrix_zero(&m, 4, 3), 0);
		fill_pattern(&m);
		ck_assert_int_eq(qkv_matrix_remove_row(&m, at), 0);
		ck_assert_int_eq(m.rows, 3);
		ck_assert_int_eq(m.cols, 3);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				int old = i < at ? i : i + 1;
				ck_assert(qkv_matrix_get(&m, i, j) == 10.0 * old + j + 1.0);
			}
	}
	ck_assert_int_eq(qkv_matrix_zero(&m, 2, 2), 0);
	ck_assert_int_ne(qkv_matrix_remove_row(&m, 2), 0);
	ck_assert_int_ne(qkv_matrix_remove_row(&m, -1), 0);
	ck_assert_int_eq(m.rows, 2);
	qkv_matrix_fini(&m);
}
END_TEST

START_TEST(test_copy_and_equal)
{
	struct qkv_matrix a, b;
	qkv_matrix_init(&a);
	qkv_matrix_init(&b);
	struct lcg g = {7};
	fill_random(&a, 3, 5, &g);
	/* dst larger than src: storage reused, shape must follow src. */
	ck_assert_int_eq(qkv_matrix_zero(&b, 6, 6), 0);
	ck_assert_int_eq(qkv_matrix_copy(&b, &a), 0);
	ck_assert_int_eq(b.rows, 3);
	ck_assert_int_eq(b.cols, 5);
	ck_assert_ptr_ne(a.values, b.values);
	ck_assert(qkv_matrix_equal(&a, &b));
	ck_assert(qkv_matrix_equal(&b, &a));
	/* The copy is deep: changing it leaves the source alone. */
	double before = qkv_matrix_get(&a, 2, 4);
	qkv_matrix_set(&b, 2, 4, nextafter(before, 2.0));
	ck_assert(qkv_matrix_get(&a, 2, 4) == before);
	ck_assert(!qkv_matrix_equal(&a, &b));
	qkv_matrix_set(&b, 2, 4, before);
	ck_assert(qkv_matrix_equal(&a, &b));
	/* Same number of entries, different shape. */
	double flat[15];
	for (int i = 0; i < 15; i++)
		flat[i] = a.values[i];
	ck_assert_int_eq(qkv_matrix_set_all(&b, 5, 3, flat), 0);
	ck_assert(!qkv_matrix_equal(&a, &b));
	/* Bit-identical: +0 and -0 compare equal as numbers but are different bits. */
	ck_assert_int_eq(qkv_matrix_zero(&a, 1, 1), 0);
	ck_assert_int_eq(qkv_matrix_zero(&b, 1, 1), 0);
	ck_assert(qkv_matrix_equal(&a, &b));
	qkv_matrix_set(&b, 0, 0, -0.0);
	ck_assert_msg(!qkv_matrix_equal(&a, &b), "0.0 and -0.0 are not bit-identical");
	/* Empty matrices are equal; copying an empty one empties dst. */
	struct qkv_matrix empty;
	qkv_matrix_init(&empty);
	ck_assert_int_eq(qkv_matrix_copy(&b, &empty), 0);
	ck_assert_int_eq(b.rows, 0);
	ck_assert_int_eq(b.cols, 0);
	ck_assert(qkv_matrix_equal(&b, &empty));
	qkv_matrix_fini(&empty);
	qkv_matrix_fini(&a);
	qkv_matrix_fini(&b);
}
END_TEST

START_TEST(test_multiply_by_hand)
{
	/* [1 2; 3 4; 5 6] · [7 8 9; 10 11 12], worked out on paper:
	 * row 1: 1·7+2·10 = 27, 1·8+2·11 = 30, 1·9+2·12 = 33
	 * row 2: 3·7+4·10 = 61, 3·8+4·11 = 68, 3·9+4·12 = 75
	 * row 3: 5·7+6·10 = 95, 5·8+6·11 = 106, 5·9+6·12 = 117 */
	const double a_values[6] = {1, 2, 3, 4, 5, 6};
	const double b_values[6] = {7, 8, 9, 10, 11, 12};
	const double product[9] = {27, 30, 33, 61, 68, 75, 95, 106, 117};
	struct qkv_matrix a, b, out;
	qkv_matrix_init(&a);
	qkv_matrix_init(&b);
	qkv_matrix_init(&out);
	ck_assert_int_eq(qkv_matrix_set_all(&a, 3, 2, a_values), 0);
	ck_assert_int_eq(qkv_matrix_set_all(&b, 2, 3, b_values), 0);
	ck_assert_int_eq(qkv_matrix_multiply(&out, &a, &b), 0);
	ck_assert_int_eq(out.rows, 3);
	ck_assert_int_eq(out.cols, 3);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(qkv_matrix_get(&out, i, j) == product[i * 3 + j]);
	/* b · a = [7·1+8·3+9·5, 7·2+8·4+9·6; 10·1+11·3+12·5, 10·2+11·4+12·6]. */
	ck_assert_int_eq(qkv_matrix_multiply(&out, &b, &a), 0);
	ck_assert_int_eq(out.rows, 2);
	ck_assert_int_eq(out.cols, 2);
	ck_assert(qkv_matrix_get(&out, 0, 0) == 76.0);
	ck_assert(qkv_matrix_get(&out, 0, 1) == 100.0);
	ck_assert(qkv_matrix_get(&out, 1, 0) == 103.0);
	ck_assert(qkv_matrix_get(&out, 1, 1) == 136.0);
	qkv_matrix_fini(&a);
	qkv_matrix_fini(&b);
	qkv_matrix_fini(&out);
}
END_TEST

START_TEST(test_multiply_shape_mismatch)
{
	struct qkv_matrix a, b, out;
	qkv_matrix_init(&a);
	qkv_matrix_init(&b);
	qkv_matrix_init(&out);
	ck_assert_int_eq(qkv_matrix_zero(&a, 2, 3), 0);
	ck_assert_int_eq(qkv_matrix_zero(&b, 2, 3), 0);
	ck_assert_int_eq(qkv_matrix_multiply(&out, &a, &b), QKV_ESHAPE);
	qkv_matrix_fini(&a);
	qkv_matrix_fini(&b);
	qkv_matrix_fini(&out);
}
END_TEST

/* Random shapes (the loop index picks the seed) against a triple loop written
 * here; the tolerance is a few ulps of Σ|a||b|, which bounds any summation order. */
START_TEST(test_multiply_random_against_naive)
{
	struct qkv_matrix a, b, out;
	qkv_matrix_init(&a);
	qkv_matrix_init(&b);
	qkv_matrix_init(&out);
	struct lcg g = {1000u + (uint64_t)_i};
	int r = lcg_int(&g, 1, 17), k = lcg_int(&g, 1, 33), c = lcg_int(&g, 1, 19);
	fill_random(&a, r, k, &g);
	fill_random(&b, k, c, &g);
	/* Leftover storage in out must not leak into the product. */
	ck_assert_int_eq(qkv_matrix_zero(&out, 40, 40), 0);
	for (size_t e = 0; e < 1600; e++)
		out.values[e] = 1e300;
	ck_assert_int_eq(qkv_matrix_multiply(&out, &a, &b), 0);
	ck_assert_int_eq(out.rows, r);
	ck_assert_int_eq(out.cols, c);
	for (int i = 0; i < r; i++)
		for (int j = 0; j < c; j++) {
			double sum = 0.0, magnitude = 0.0;
			for (int p = 0; p < k; p++) {
				sum += a.values[i * k + p] * b.values[p * c + j];
				magnitude += fabs(a.values[i * k + p] * b.values[p * c + j]);
			}
			ck_assert_double_eq_tol(qkv_matrix_get(&out, i, j), sum,
						1e-15 * (magnitude + 1.0) * k);
		}
	qkv_matrix_fini(&a);
	qkv_matrix_fini(&b);
	qkv_matrix_fini(&out);
}
END_TEST

/* The product's tiles, panels and vector lanes keep each entry's sum in the order
 * of k: bit for bit the triple loop written here (0, then + a_i0·b_0j, + a_i1·b_1j,
 * …), for shapes with leftover rows and columns around the tiles and more than one
 * band of b's rows; and any run of rows alone is the same as the whole product. */
START_TEST(test_multiply_bitwise_in_k_order)
{
	struct qkv_matrix a, b, out, part;
	qkv_matrix_init(&a);
	qkv_matrix_init(&b);
	qkv_matrix_init(&out);
	qkv_matrix_init(&part);
	struct lcg g = {7000u + (uint64_t)_i};
	int r = lcg_int(&g, 1, 41), k = lcg_int(&g, 1, 150), c = lcg_int(&g, 1, 70);
	fill_random(&a, r, k, &g);
	fill_random(&b, k, c, &g);
	ck_assert_int_eq(qkv_matrix_multiply(&out, &a, &b), 0);
	for (int i = 0; i < r; i++)
		for (int j = 0; j < c; j++) {
			double sum = 0.0, got = qkv_matrix_get(&out, i, j);
			for (int p = 0; p < k; p++)
				sum += a.values[i * k + p] * b.values[p * c + j];
			ck_assert_msg(memcmp(&sum, &got, sizeof sum) == 0,
				      "%dx%d·%dx%d: entry (%d,%d) is %.17g, the k-order sum %.17g", r, k, k, c, i, j,
				      got, sum);
		}
	int from = lcg_int(&g, 0, r), to = lcg_int(&g, from, r);
	ck_assert_int_eq(qkv_matrix_zero(&part, r, c), 0);
	ck_assert_int_eq(qkv_matrix_multiply_rows(&part, &a, &b, from, to), 0);
	if (to > from)
		ck_assert_int_eq(memcmp(qkv_matrix_row(&part, from), qkv_matrix_row(&out, from),
					(size_t)(to - from) * (size_t)c * sizeof(double)), 0);
	qkv_matrix_fini(&a);
	qkv_matrix_fini(&b);
	qkv_matrix_fini(&out);
	qkv_matrix_fini(&part);
}
END_TEST

START_TEST(test_transpose)
{
	struct qkv_matrix a, t, back;
	qkv_matrix_init(&a);
	qkv_matrix_init(&t);
	qkv_matrix_init(&back);
	ck_assert_int_eq(qkv_matrix_zero(&a, 3, 5), 0);
	fill_pattern(&a);
	ck_assert_int_eq(qkv_matrix_transpose(&t, &a), 0);
	ck_assert_int_eq(t.rows, 5);
	ck_assert_int_eq(t.cols, 3);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 3; j++)
			ck_assert(qkv_matrix_get(&t, i, j) == 10.0 * j + i + 1.0);
	ck_assert_int_eq(qkv_matrix_transpose(&back, &t), 0);
	ck_assert(qkv_matrix_equal(&back, &a));
	/* A row vector becomes a column vector. */
	ck_assert_int_eq(qkv_matrix_zero(&a, 1, 4), 0);
	fill_pattern(&a);
	ck_assert_int_eq(qkv_matrix_transpose(&t, &a), 0);
	ck_assert_int_eq(t.rows, 4);
	ck_assert_int_eq(t.cols, 1);
	for (int i = 0; i < 4; i++)
		ck_assert(qkv_matrix_get(&t, i, 0) == i + 1.0);
	qkv_matrix_fini(&a);
	qkv_matrix_fini(&t);
	qkv_matrix_fini(&back);
}
END_TEST

START_TEST(test_all_finite)
{
	const double bad[3] = {NAN, INFINITY, -INFINITY};
	struct qkv_matrix m;
	qkv_matrix_init(&m);
	ck_assert_int_eq(qkv_matrix_zero(&m, 3, 3), 0);
	fill_pattern(&m);
	qkv_matrix_set(&m, 1, 1, 1.7976931348623157e308);
	qkv_matrix_set(&m, 1, 2, 4.9406564584124654e-324);
	ck_assert(qkv_matrix_all_finite(&m));
	for (int b = 0; b < 3; b++)
		for (int e = 0; e < 9; e++) {
			ck_assert_int_eq(qkv_matrix_zero(&m, 3, 3), 0);
			m.values[e] = bad[b];
			ck_assert_msg(!qkv_matrix_all_finite(&m), "%g at entry %d not found", bad[b],
				      e);
		}
	qkv_matrix_fini(&m);
}
END_TEST

/* The suite: storage, editing, arithmetic, predicates. */
static Suite *matrix_suite(void)
{
	Suite *s = suite_create("matrix");
	TCase *storage = tcase_create("storage");
	tcase_add_test(storage, test_init_is_empty);
	tcase_add_test(storage, test_resize_grow_keeps_and_zeroes);
	tcase_add_test(storage, test_resize_shrink_and_reshape);
	tcase_add_test(storage, test_resize_rejects_bad_sizes);
	tcase_add_test(storage, test_zero_and_set_all);
	tcase_add_test(storage, test_copy_and_equal);
	suite_add_tcase(s, storage);
	TCase *editing = tcase_create("editing");
	tcase_add_test(editing, test_insert_row_keeps_others);
	tcase_add_test(editing, test_remove_row_keeps_others);
	suite_add_tcase(s, editing);
	TCase *arithmetic = tcase_create("arithmetic");
	tcase_add_test(arithmetic, test_multiply_by_hand);
	tcase_add_test(arithmetic, test_multiply_shape_mismatch);
	tcase_add_loop_test(arithmetic, test_multiply_random_against_naive, 0, 25);
	tcase_add_loop_test(arithmetic, test_multiply_bitwise_in_k_order, 0, 40);
	tcase_add_test(arithmetic, test_transpose);
	tcase_add_test(arithmetic, test_all_finite);
	suite_add_tcase(s, arithmetic);
	return s;
}

int main(void)
{
	return run_tap(matrix_suite());
}
