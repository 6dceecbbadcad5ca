/* test_geometry.c — Check suite for the geometry of queries and keys (geometry.h):
 * the exact plane of d_k ≤ 2, the principal plane of d_k > 2 against problems
 * built with known principal axes (scaled basis vectors turned by a rotation the
 * test makes itself), its optimality against other planes, the sign convention,
 * its stability under a small edit, and the sentences. Expected values come from
 * the construction or closed forms, never from the code under test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/error.h"
#include "qkv/geometry.h"
#include "qkv/matrix.h"
#include "qkv/problem.h"

#include "lcg.h"
#include "tap_main.h"

#define TOL 1e-9

/* A d × d orthogonal matrix (row-major): Gram–Schmidt of the test's random vectors. */
static double *rotation(int d, uint64_t seed)
{
	struct lcg g = { seed };
	double *r = malloc(sizeof *r * (size_t)d * d);

	for (int i = 0; i < d; i++) {
		double *v = r + (size_t)i * d, length = 0.0;
		for (int c = 0; c < d; c++)
			v[c] = lcg_signed(&g);
		for (int e = 0; e < i; e++) {
			double along = 0.0;
			for (int c = 0; c < d; c++)
				along += v[c] * r[(size_t)e * d + c];
			for (int c = 0; c < d; c++)
				v[c] -= along * r[(size_t)e * d + c];
		}
		for (int c = 0; c < d; c++)
			length += v[c] * v[c];
		for (int c = 0; c < d; c++)
			v[c] /= sqrt(length);
	}
	return r;
}

/* Rows of q and k: row i is scale[i] times basis vector basis[i], turned by rot
 * (the vector rot[basis] as a row); queries first. */
static void build(struct qkv_matrix *q, struct qkv_matrix *k, int m, int n, int d, const double *scale,
		  const int *basis, const double *rot)
{
	qkv_matrix_zero(q, m, d);
	qkv_matrix_zero(k, n, d);
	for (int i = 0; i < m + n; i++) {
		struct qkv_matrix *into = i < m ? q : k;
		int row = i < m ? i : i - m;
		for (int c = 0; c < d; c++)
			qkv_matrix_set(into, row, c, scale[i] * (rot != NULL ? rot[(size_t)basis[i] * d + c] : basis[i] == c));
	}
}

/* |a · b| for two d-vectors. */
static double along(const double *a, const double *b, int d)
{
	double sum = 0.0;
	for (int c = 0; c < d; c++)
		sum += a[c] * b[c];
	return sum;
}

START_TEST(test_worked_example_is_exact)
{
	struct qkv_problem p;
	struct qkv_geometry g;
	/* The worked example's Q and K rows: (1,0), (0,1), (1,1) each. */
	static const double rows[3][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 } };

	qkv_problem_init(&p);
	qkv_geometry_init(&g);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(qkv_geometry_compute(&g, &p.q, &p.k), 0);
	ck_assert_int_eq(g.plane, QKV_PLANE_EXACT);
	ck_assert_str_eq(qkv_plane_name(g.plane), "exact");
	ck_assert_int_eq(g.queries, 3);
	ck_assert_int_eq(g.keys, 3);
	ck_assert_double_eq(g.explained, 1.0);
	ck_assert_double_eq_tol(g.spread, 2 * (1 + 1 + 2), TOL);
	for (int i = 0; i < 6; i++) {
		ck_assert_double_eq(g.x[i], rows[i % 3][0]);
		ck_assert_double_eq(g.y[i], rows[i % 3][1]);
	}
	ck_assert_double_eq(g.axes[0], 1.0);
	ck_assert_double_eq(g.axes[1], 0.0);
	ck_assert_double_eq(g.axes[2], 0.0);
	ck_assert_double_eq(g.axes[3], 1.0);
	/* q_t3 = (1,1) against k_t1 = (1,0): 1 = √2 · 1 · cos 45°. */
	ck_assert_double_eq_tol(qkv_geometry_dot(&p.q, 2, &p.k, 0), 1.0, TOL);
	ck_assert_double_eq_tol(qkv_geometry_angle(&p.q, 2, &p.k, 0), 45.0, 1e-9);
	ck_assert_double_eq_tol(qkv_geometry_norm(&p.q, 2), sqrt(2.0), TOL);
	qkv_geometry_fini(&g);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_one_column_on_a_line)
{
	struct qkv_matrix q, k;
	struct qkv_geometry g;
	double qv[] = { 2, -1 }, kv[] = { 3 };

	qkv_matrix_init(&q);
	qkv_matrix_init(&k);
	qkv_geometry_init(&g);
	qkv_matrix_set_all(&q, 2, 1, qv);
	qkv_matrix_set_all(&k, 1, 1, kv);
	ck_assert_int_eq(qkv_geometry_compute(&g, &q, &k), 0);
	ck_assert_int_eq(g.plane, QKV_PLANE_EXACT);
	ck_assert_int_eq(g.queries, 2);
	ck_assert_int_eq(g.keys, 1);
	ck_assert_double_eq(g.x[0], 2);
	ck_assert_double_eq(g.x[1], -1);
	ck_assert_double_eq(g.x[2], 3);
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq(g.y[i], 0);
	ck_assert_double_eq(g.axes[1], 0.0);
	/* Columns that differ are refused. */
	qkv_matrix_zero(&k, 1, 2);
	ck_assert_int_eq(qkv_geometry_compute(&g, &q, &k), QKV_ESHAPE);
	qkv_geometry_fini(&g);
	qkv_matrix_fini(&q);
	qkv_matrix_fini(&k);
}
END_TEST

/* Problems whose principal axes are known: row i is a multiple of one of d
 * orthonormal directions, so the Gram matrix's eigenvalues are the sums of the
 * squared multiples along each direction. Sizes cover the d × d Gram matrix
 * (more rows than columns), the rows' Gram matrix (fewer), and the iteration
 * (both past 128), with more queries than keys and the reverse. */
START_TEST(test_known_principal_axes)
{
	static const int sizes[][3] = { { 3, 3, 3 }, { 5, 2, 4 }, { 2, 6, 7 }, { 2, 1, 9 }, { 1, 3, 40 },
					{ 6, 6, 12 }, { 150, 140, 300 }, { 100, 90, 130 }, { 70, 70, 128 } };
	int m = sizes[_i][0], n = sizes[_i][1], d = sizes[_i][2], rows = m + n;
	double *scale = malloc(sizeof *scale * (size_t)rows), *rot = rotation(d, 11 + (uint64_t)_i);
	double weight[512] = { 0 }, total = 0.0;
	int *basis = malloc(sizeof *basis * (size_t)rows), top[2] = { 0, 1 };
	struct lcg r = { 5 + (uint64_t)_i };
	struct qkv_matrix q, k;
	struct qkv_geometry g;

	/* Row i lies along direction i % d, with multiples that leave clear gaps:
	 * direction 0 most, direction 1 next, the rest much less. */
	for (int i = 0; i < rows; i++) {
		basis[i] = i % d;
		scale[i] = (basis[i] == 0 ? 5.0 : basis[i] == 1 ? 3.0 : 0.5) * (1.0 + 0.2 * lcg_signed(&r));
		if (lcg_int(&r, 0, 1))
			scale[i] = -scale[i];
		weight[basis[i]] += scale[i] * scale[i];
		total += scale[i] * scale[i];
	}
	for (int b = 0; b < d; b++) /* the two directions of most weight */
		if (weight[b] > weight[top[0]])
			top[0] = b;
	top[1] = top[0] == 0 ? 1 : 0;
	for (int b = 0; b < d; b++)
		if (b != top[0] && weight[b] > weight[top[1]])
			top[1] = b;
	qkv_matrix_init(&q);
	qkv_matrix_init(&k);
	qkv_geometry_init(&g);
	build(&q, &k, m, n, d, scale, basis, rot);
	ck_assert_int_eq(qkv_geometry_compute(&g, &q, &k), 0);
	ck_assert_int_eq(g.plane, QKV_PLANE_PCA);
	ck_assert_str_eq(qkv_plane_name(g.plane), "pca");
	ck_assert_double_eq_tol(g.spread, total, 1e-9 * total);
	ck_assert_double_eq_tol(g.explained, (weight[top[0]] + weight[top[1]]) / total, 1e-9);
	ck_assert_double_eq_tol(fabs(along(g.axes, rot + (size_t)top[0] * d, d)), 1.0, 1e-7);
	ck_assert_double_eq_tol(fabs(along(g.axes + d, rot + (size_t)top[1] * d, d)), 1.0, 1e-7);
	free(scale);
	free(basis);
	free(rot);
	qkv_geometry_fini(&g);
	qkv_matrix_fini(&q);
	qkv_matrix_fini(&k);
}
END_TEST

/* Random Q and K: the axes are orthonormal, the coordinates are the rows on
 * them, the share is what the coordinates hold, no coordinate plane and no
 * random plane holds more, and the coordinates on each axis sum to ≥ 0. */
START_TEST(test_random_properties)
{
	struct lcg r = { 100 + (uint64_t)_i };
	int m = lcg_int(&r, 1, 9), n = lcg_int(&r, 1, 9), d = lcg_int(&r, 3, 24);
	struct qkv_matrix q, k;
	struct qkv_geometry g;
	double held = 0.0, total = 0.0, sum_x = 0.0, sum_y = 0.0;

	qkv_matrix_init(&q);
	qkv_matrix_init(&k);
	qkv_geometry_init(&g);
	qkv_matrix_zero(&q, m, d);
	qkv_matrix_zero(&k, n, d);
	for (int i = 0; i < m * d; i++)
		q.values[i] = lcg_signed(&r) * 3;
	for (int i = 0; i < n * d; i++)
		k.values[i] = lcg_signed(&r) + 0.5;
	ck_assert_int_eq(qkv_geometry_compute(&g, &q, &k), 0);
	ck_assert_double_eq_tol(along(g.axes, g.axes, d), 1.0, 1e-9);
	ck_assert_double_eq_tol(along(g.axes + d, g.axes + d, d), 1.0, 1e-9);
	ck_assert_double_eq_tol(along(g.axes, g.axes + d, d), 0.0, 1e-9);
	for (int i = 0; i < m + n; i++) {
		const double *row = i < m ? qkv_matrix_row_const(&q, i) : qkv_matrix_row_const(&k, i - m);
		ck_assert_double_eq_tol(g.x[i], along(row, g.axes, d), 1e-9);
		ck_assert_double_eq_tol(g.y[i], along(row, g.axes + d, d), 1e-9);
		held += g.x[i] * g.x[i] + g.y[i] * g.y[i];
		total += along(row, row, d);
		sum_x += g.x[i];
		sum_y += g.y[i];
	}
	ck_assert_double_eq_tol(g.explained, held / total, 1e-12);
	ck_assert(sum_x >= 0 && sum_y >= 0);
	/* Optimal: no plane of two coordinate axes holds more. */
	for (int a = 0; a < d; a++)
		for (int b = a + 1; b < d; b++) {
			double plane = 0.0;
			for (int i = 0; i < m + n; i++) {
				const double *row = i < m ? qkv_matrix_row_const(&q, i) : qkv_matrix_row_const(&k, i - m);
				plane += row[a] * row[a] + row[b] * row[b];
			}
			ck_assert(plane / total <= g.explained + 1e-12);
		}
	qkv_geometry_fini(&g);
	qkv_matrix_fini(&q);
	qkv_matrix_fini(&k);
}
END_TEST

/* A small edit turns the plane a little, never flips an axis. */
START_TEST(test_orientation_stable_under_a_small_edit)
{
	struct qkv_problem p;
	struct qkv_geometry before, after;
	int d = 4 + _i * 12;

	qkv_problem_init(&p);
	qkv_geometry_init(&before);
	qkv_geometry_init(&after);
	ck_assert_int_eq(qkv_problem_random(&p, 6, d, 2, 40 + (uint64_t)_i), 0);
	ck_assert_int_eq(qkv_geometry_compute(&before, &p.q, &p.k), 0);
	qkv_matrix_set(&p.q, 2, 1, qkv_matrix_get(&p.q, 2, 1) + 0.01);
	ck_assert_int_eq(qkv_geometry_compute(&after, &p.q, &p.k), 0);
	ck_assert(along(before.axes, after.axes, d) > 0.99);
	ck_assert(along(before.axes + d, after.axes + d, d) > 0.99);
	qkv_geometry_fini(&before);
	qkv_geometry_fini(&after);
	qkv_problem_fini(&p);
}
END_TEST

START_TEST(test_dot_sentences)
{
	char text[160];

	/* (1,1) · (1,0) = 1 = √2 · 1 · cos 45° exactly. */
	qkv_geometry_dot_sentence(text, sizeof text, "t3", "t1", 1.0, sqrt(2.0), 1.0);
	ck_assert_str_eq(text, "q_t3 · k_t1 = 1.00 = |q| |k| cos 45°");
	/* (10,0) · (1,0.5) = 10, the angle atan(0.5) = 26.565°: 11.1803 cos 27° = 9.96
	 * misses 10.00, cos 26.6° gives 9.997, which shows as 10.00. */
	qkv_geometry_dot_sentence(text, sizeof text, "a", "b", 10.0, 10.0, sqrt(1.25));
	ck_assert_str_eq(text, "q_a · k_b = 10.00 = |q| |k| cos 26.6°");
	/* (100,0) · (1,0.5): 111.803 cos 26.6° = 99.97, not 100.00: "≈", whole degrees. */
	qkv_geometry_dot_sentence(text, sizeof text, "a", "b", 100.0, 100.0, sqrt(1.25));
	ck_assert_str_eq(text, "q_a · k_b = 100.00 ≈ |q| |k| cos 27°");
	/* Opposite arrows: −2 = 1 · 2 · cos 180°. */
	qkv_geometry_dot_sentence(text, sizeof text, "a", "b", -2.0, 1.0, 2.0);
	ck_assert_str_eq(text, "q_a · k_b = -2.00 = |q| |k| cos 180°");
	/* A value too small for two decimals gets more. */
	qkv_geometry_dot_sentence(text, sizeof text, "a", "b", 0.0012, 1.0, 0.0012);
	ck_assert_str_eq(text, "q_a · k_b = 0.0012 = |q| |k| cos 0°");
	qkv_geometry_dot_sentence(text, sizeof text, "a", "b", 0.0, 1.0, 0.0);
	ck_assert_str_eq(text, "q_a · k_b = 0.00 (k_b has length 0)");
}
END_TEST

START_TEST(test_plane_sentences)
{
	struct qkv_geometry g;
	char text[160];

	qkv_geometry_init(&g);
	g.plane = QKV_PLANE_EXACT;
	g.d_k = 2;
	g.explained = 1.0;
	qkv_geometry_plane_sentence(text, sizeof text, &g);
	ck_assert_str_eq(text, "the plane is exact: the points are Q's and K's rows");
	g.d_k = 1;
	qkv_geometry_plane_sentence(text, sizeof text, &g);
	ck_assert_str_eq(text, "d_k = 1: the points are Q's and K's rows, on a line");
	g.plane = QKV_PLANE_PCA;
	g.d_k = 3;
	g.explained = 13.0 / 14.0; /* rows 3 e1, 2 e2, e3: (9 + 4) / 14 */
	qkv_geometry_plane_sentence(text, sizeof text, &g);
	ck_assert_str_eq(text, "this plane holds 93% of the spread; dot products are exact only in d_k = 3 dimensions");
	g.explained = 0.9996;
	qkv_geometry_plane_sentence(text, sizeof text, &g);
	ck_assert_str_eq(text, "this plane holds more than 99% of the spread; dot products are exact only in d_k = 3 "
			       "dimensions");
	g.explained = 1.0;
	qkv_geometry_plane_sentence(text, sizeof text, &g);
	ck_assert_str_eq(text, "this plane holds all of the spread: the points lie in it, so its angles are exact");
}
END_TEST

static Suite *geometry_suite(void)
{
	Suite *s = suite_create("geometry");
	TCase *plane = tcase_create("plane");
	tcase_add_test(plane, test_worked_example_is_exact);
	tcase_add_test(plane, test_one_column_on_a_line);
	tcase_add_loop_test(plane, test_known_principal_axes, 0, 9);
	tcase_add_loop_test(plane, test_random_properties, 0, 30);
	tcase_add_loop_test(plane, test_orientation_stable_under_a_small_edit, 0, 5);
	suite_add_tcase(s, plane);
	TCase *words = tcase_create("words");
	tcase_add_test(words, test_dot_sentences);
	tcase_add_test(words, test_plane_sentences);
	suite_add_tcase(s, words);
	return s;
}

int main(void)
{
	return run_tap(geometry_suite());
}
