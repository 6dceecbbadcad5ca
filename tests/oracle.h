/* oracle.h — the equality and finiteness checks the tests judge by. The program
 * itself never needs them, so they live with the tests rather than in the core.
 * Include after the core's headers. */
#ifndef QKV_TESTS_ORACLE_H
#define QKV_TESTS_ORACLE_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "qkv/matrix.h"
#include "qkv/problem.h"

/* True when a and b have the same shape and bit-identical entries. */
static inline bool qkv_matrix_equal(const struct qkv_matrix *a, const struct qkv_matrix *b)
{
	size_t count = (size_t)a->rows * (size_t)a->cols;

	if (a->rows != b->rows || a->cols != b->cols)
		return false;
	return count == 0 || memcmp(a->values, b->values, count * sizeof(double)) == 0;
}

/* True when every entry is finite. */
static inline bool qkv_matrix_all_finite(const struct qkv_matrix *m)
{
	size_t count = (size_t)m->rows * (size_t)m->cols;

	for (size_t i = 0; i < count; i++)
		if (!isfinite(m->values[i]))
			return false;
	return true;
}

static inline bool oracle_strings_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Bytes equal, where a missing array reads as all zeros. */
static inline bool oracle_bytes_equal(const unsigned char *a, const unsigned char *b,
				      size_t size)
{
	for (size_t i = 0; i < size; i++)
		if ((a != NULL ? a[i] : 0) != (b != NULL ? b[i] : 0))
			return false;
	return true;
}

/* True when a and b describe exactly the same problem (bit-identical values). */
static inline bool qkv_problem_equal(const struct qkv_problem *a, const struct qkv_problem *b)
{
	size_t n = (size_t)a->n;

	if (a->n != b->n || a->form != b->form || a->scale != b->scale ||
	    a->temperature != b->temperature || a->mask != b->mask || a->wrong != b->wrong ||
	    a->seeded != b->seeded || (a->seeded && a->seed != b->seed) ||
	    (a->scale == QKV_SCALE_CUSTOM && a->scale_value != b->scale_value))
		return false;
	if (!oracle_strings_equal(a->title, b->title) || !oracle_strings_equal(a->notes, b->notes))
		return false;
	for (int i = 0; i < a->n; i++)
		if (!oracle_strings_equal(a->tokens[i], b->tokens[i]))
			return false;
	for (int i = 0; i < QKV_INPUT_COUNT; i++) {
		const struct qkv_matrix *ma = qkv_problem_input_const(a, (enum qkv_input)i);
		const struct qkv_matrix *mb = qkv_problem_input_const(b, (enum qkv_input)i);

		if (ma != NULL && mb != NULL && !qkv_matrix_equal(ma, mb))
			return false;
	}
	return oracle_bytes_equal(a->padding, b->padding, n) &&
	       (a->mask != QKV_MASK_CUSTOM || oracle_bytes_equal(a->mask_bits, b->mask_bits, n * n));
}

#endif
