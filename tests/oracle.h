/* oracle.h — checks the tests judge by that the program itself never needs, so
 * they live with the tests rather than in the core. */
#ifndef QKV_TESTS_ORACLE_H
#define QKV_TESTS_ORACLE_H

#include <math.h>
#include <stdbool.h>

#include "qkv/matrix.h"

/* True when every entry is finite. */
static inline bool qkv_matrix_all_finite(const struct qkv_matrix *m)
{
	size_t count = (size_t)m->rows * (size_t)m->cols;

	for (size_t i = 0; i < count; i++)
		if (!isfinite(m->values[i]))
			return false;
	return true;
}

#endif
