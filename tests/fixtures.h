/* fixtures.h — what the core's Check suites build their problems from: token
 * labels "w0", "w1", …, and matrices filled from the tests' own LCG (lcg.h, never
 * the core's generator). Header-only, for the Check suites; not part of qkv. */
#ifndef QKV_TESTS_FIXTURES_H
#define QKV_TESTS_FIXTURES_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "qkv/matrix.h"
#include "qkv/problem.h"

#include "lcg.h"

/* Gives p (freshly initialised) n owned labels "w0", "w1", … */
static inline void give_labels(struct qkv_problem *p, int n)
{
	p->n = n;
	p->m = n;
	p->tokens = calloc((size_t)n, sizeof *p->tokens);
	ck_assert_ptr_nonnull(p->tokens);
	for (int i = 0; i < n; i++) {
		p->tokens[i] = malloc(16);
		ck_assert_ptr_nonnull(p->tokens[i]);
		snprintf(p->tokens[i], 16, "w%d", i);
	}
}

/* Sizes m and fills it with values in [-magnitude, magnitude) from g. */
static inline void fill(struct qkv_matrix *m, int rows, int cols, double magnitude,
			struct lcg *g)
{
	ck_assert_int_eq(qkv_matrix_zero(m, rows, cols), 0);
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++)
			qkv_matrix_set(m, i, j, magnitude * lcg_signed(g));
}

#endif
