/* matrix.c — dense row-major matrices of doubles.
 * Pure storage and arithmetic: no printing, no exit. Storage grows but is reused,
 * so recomputing a trace after an edit allocates nothing in steady state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/error.h"
#include "qkv/matrix.h"

#define MATRIX_MAX_SIDE (QKV_MAX_DIM * 4)

void qkv_matrix_init(struct qkv_matrix *m)
{
	m->rows = 0;
	m->cols = 0;
	m->values = NULL;
	m->capacity = 0;
}

void qkv_matrix_fini(struct qkv_matrix *m)
{
	free(m->values);
	qkv_matrix_init(m);
}

/* Makes room for `count` entries without keeping their contents. */
static int matrix_reserve(struct qkv_matrix *m, size_t count)
{
	double *values;

	if (count <= m->capacity)
		return 0;
	values = malloc(count * sizeof *values);
	if (values == NULL)
		return QKV_ENOMEM;
	if (m->values != NULL)
		memcpy(values, m->values, m->capacity * sizeof *values);
	free(m->values);
	m->values = values;
	m->capacity = count;
	return 0;
}

static bool matrix_shape_valid(int rows, int cols)
{
	return rows >= 0 && cols >= 0 && rows <= MATRIX_MAX_SIDE && cols <= MATRIX_MAX_SIDE;
}

int qkv_matrix_zero(struct qkv_matrix *m, int rows, int cols)
{
	size_t count = (size_t)rows * (size_t)cols;
	int rc;

	if (!matrix_shape_valid(rows, cols))
		return QKV_EINVAL;
	rc = matrix_reserve(m, count);
	if (rc != 0)
		return rc;
	m->rows = rows;
	m->cols = cols;
	if (count > 0)
		memset(m->values, 0, count * sizeof *m->values);
	return 0;
}

int qkv_matrix_shape(struct qkv_matrix *m, int rows, int cols)
{
	size_t count = (size_t)rows * (size_t)cols;

	if (!matrix_shape_valid(rows, cols))
		return QKV_EINVAL;
	if (count > m->capacity) {
		/* Nothing to keep: the old storage goes before the new is taken. */
		qkv_matrix_fini(m);
		m->values = malloc(count * sizeof *m->values);
		if (m->values == NULL)
			return QKV_ENOMEM;
		m->capacity = count;
	}
	m->rows = rows;
	m->cols = cols;
	return 0;
}

int qkv_matrix_resize(struct qkv_matrix *m, int rows, int cols)
{
	struct qkv_matrix fresh;
	int keep_rows, keep_cols;

	if (!matrix_shape_valid(rows, cols))
		return QKV_EINVAL;
	if (rows == m->rows && cols == m->cols)
		return 0;
	qkv_matrix_init(&fresh);
	if (qkv_matrix_zero(&fresh, rows, cols) != 0)
		return QKV_ENOMEM;
	keep_rows = rows < m->rows ? rows : m->rows;
	keep_cols = cols < m->cols ? cols : m->cols;
	for (int r = 0; r < keep_rows; r++)
		memcpy(qkv_matrix_row(&fresh, r), qkv_matrix_row_const(m, r),
		       (size_t)keep_cols * sizeof(double));
	qkv_matrix_fini(m);
	*m = fresh;
	return 0;
}

int qkv_matrix_copy(struct qkv_matrix *dst, const struct qkv_matrix *src)
{
	size_t count = (size_t)src->rows * (size_t)src->cols;
	int rc;

	if (dst == src)
		return 0;
	rc = matrix_reserve(dst, count);
	if (rc != 0)
		return rc;
	dst->rows = src->rows;
	dst->cols = src->cols;
	if (count > 0)
		memcpy(dst->values, src->values, count * sizeof *dst->values);
	return 0;
}

int qkv_matrix_set_all(struct qkv_matrix *m, int rows, int cols, const double *values)
{
	int rc = qkv_matrix_zero(m, rows, cols);

	if (rc != 0)
		return rc;
	if (rows > 0 && cols > 0)
		memcpy(m->values, values, (size_t)rows * (size_t)cols * sizeof *values);
	return 0;
}

int qkv_matrix_insert_row(struct qkv_matrix *m, int at)
{
	size_t cols = (size_t)m->cols;
	int rc;

	if (at < 0 || at > m->rows || m->rows + 1 > MATRIX_MAX_SIDE)
		return QKV_EINVAL;
	rc = matrix_reserve(m, (size_t)(m->rows + 1) * cols);
	if (rc != 0)
		return rc;
	memmove(m->values + (size_t)(at + 1) * cols, m->values + (size_t)at * cols,
		(size_t)(m->rows - at) * cols * sizeof(double));
	memset(m->values + (size_t)at * cols, 0, cols * sizeof(double));
	m->rows++;
	return 0;
}

int qkv_matrix_remove_row(struct qkv_matrix *m, int at)
{
	size_t cols = (size_t)m->cols;

	if (at < 0 || at >= m->rows)
		return QKV_EINVAL;
	memmove(m->values + (size_t)at * cols, m->values + (size_t)(at + 1) * cols,
		(size_t)(m->rows - at - 1) * cols * sizeof(double));
	m->rows--;
	return 0;
}

/* row += Σ a_k · (row k of b) for k = from … to−1, in that order: the axpy form,
 * whose inner loop runs over contiguous memory and vectorises. Four rows of b go
 * in per pass (one load and store of row instead of four), each sum still taken
 * k by k, so the result is bit-identical to one row at a time. */
static void accumulate_rows(double *restrict row, const double *a, const struct qkv_matrix *b,
			    int from, int to)
{
	int k;

	for (k = from; k + 4 <= to; k += 4) {
		const double a0 = a[k], a1 = a[k + 1], a2 = a[k + 2], a3 = a[k + 3];
		const double *restrict b0 = qkv_matrix_row_const(b, k);
		const double *restrict b1 = qkv_matrix_row_const(b, k + 1);
		const double *restrict b2 = qkv_matrix_row_const(b, k + 2);
		const double *restrict b3 = qkv_matrix_row_const(b, k + 3);

		for (int j = 0; j < b->cols; j++) {
			double sum = row[j];

			sum += a0 * b0[j];
			sum += a1 * b1[j];
			sum += a2 * b2[j];
			sum += a3 * b3[j];
			row[j] = sum;
		}
	}
	for (; k < to; k++) {
		const double a_k = a[k];
		const double *restrict b_k = qkv_matrix_row_const(b, k);

		for (int j = 0; j < b->cols; j++)
			row[j] += a_k * b_k[j];
	}
}

/* out = a·b. A narrow b (Kᵀ at n = 64, V at d_v = 64) is taken in bands of
 * MULTIPLY_BAND rows, 32 KiB, that stay in cache while every row of out passes over
 * them; the order of each sum is unchanged. A wider b is taken whole. */
#define MULTIPLY_BAND 64

int qkv_matrix_multiply(struct qkv_matrix *out, const struct qkv_matrix *a,
			const struct qkv_matrix *b)
{
	int rc;

	if (a->cols != b->rows || out == a || out == b)
		return QKV_ESHAPE;
	rc = qkv_matrix_zero(out, a->rows, b->cols);
	if (rc != 0)
		return rc;
	return qkv_matrix_multiply_rows(out, a, b, 0, a->rows);
}

int qkv_matrix_multiply_rows(struct qkv_matrix *out, const struct qkv_matrix *a,
			     const struct qkv_matrix *b, int from, int to)
{
	int height;

	if (a->cols != b->rows || out == a || out == b || out->rows != a->rows ||
	    out->cols != b->cols || from < 0 || to > a->rows || from > to)
		return QKV_ESHAPE;
	if (to > from)
		memset(qkv_matrix_row(out, from), 0, (size_t)(to - from) * (size_t)out->cols * sizeof(double));
	height = b->cols <= MULTIPLY_BAND && b->rows > MULTIPLY_BAND ? MULTIPLY_BAND : b->rows;
	for (int band = 0; band < b->rows; band += height) {
		int end = band + height < b->rows ? band + height : b->rows;

		for (int i = from; i < to; i++)
			accumulate_rows(qkv_matrix_row(out, i), qkv_matrix_row_const(a, i), b, band, end);
	}
	return 0;
}

/* Every entry of out in qkv_matrix_multiply is 0 + a_i0·b_0j + a_i1·b_1j + …, added
 * one term at a time in the order of k whatever the band and the four-row pass, so
 * any rows alone are the same arithmetic. */
int qkv_matrix_multiply_row(struct qkv_matrix *out, const struct qkv_matrix *a,
			    const struct qkv_matrix *b, int row)
{
	if (row < 0 || row >= a->rows)
		return QKV_ESHAPE;
	return qkv_matrix_multiply_rows(out, a, b, row, row + 1);
}

/* The same sum per entry as above, taken term by term from 0 (no reassociation:
 * qkv is built without -ffast-math, so the compiler keeps this order). */
int qkv_matrix_multiply_col(struct qkv_matrix *out, const struct qkv_matrix *a,
			    const struct qkv_matrix *b, int col)
{
	if (a->cols != b->rows || out == a || out == b || out->rows != a->rows ||
	    out->cols != b->cols || col < 0 || col >= b->cols)
		return QKV_ESHAPE;
	for (int i = 0; i < a->rows; i++) {
		const double *a_i = qkv_matrix_row_const(a, i);
		double sum = 0.0;

		for (int k = 0; k < a->cols; k++)
			sum += a_i[k] * qkv_matrix_get(b, k, col);
		qkv_matrix_set(out, i, col, sum);
	}
	return 0;
}

/* out = aᵀ, a band of TRANSPOSE_BAND columns of a at a time: the few rows of out
 * that the band fills stay in cache while a is read row by row, so a tall or a
 * wide matrix (K at n = 512, or at d_k = 1024) does not miss the cache per entry. */
#define TRANSPOSE_BAND 8

int qkv_matrix_transpose(struct qkv_matrix *out, const struct qkv_matrix *a)
{
	int rc;

	if (out == a)
		return QKV_ESHAPE;
	rc = qkv_matrix_zero(out, a->cols, a->rows);
	if (rc != 0)
		return rc;
	for (int band = 0; band < a->cols; band += TRANSPOSE_BAND) {
		int end = band + TRANSPOSE_BAND < a->cols ? band + TRANSPOSE_BAND : a->cols;

		for (int i = 0; i < a->rows; i++)
			for (int j = band; j < end; j++)
				qkv_matrix_set(out, j, i, qkv_matrix_get(a, i, j));
	}
	return 0;
}

bool qkv_matrix_equal(const struct qkv_matrix *a, const struct qkv_matrix *b)
{
	size_t count = (size_t)a->rows * (size_t)a->cols;

	if (a->rows != b->rows || a->cols != b->cols)
		return false;
	return count == 0 || memcmp(a->values, b->values, count * sizeof(double)) == 0;
}
