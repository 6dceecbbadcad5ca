/* matrix.h — dense row-major matrices of doubles, the storage of every stage.
 * A matrix owns its storage; it is read and written only through these functions.
 * Resizing keeps the values already there, so nothing a person typed is lost. */
#ifndef QKV_MATRIX_H
#define QKV_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

struct qkv_matrix {
	int rows;
	int cols;
	double *values;  /* rows * cols entries, row-major; NULL when empty */
	size_t capacity; /* entries allocated; storage is reused when it fits */
};

/* Sets up an empty 0×0 matrix; cannot fail. */
void qkv_matrix_init(struct qkv_matrix *m);
/* Frees the storage and leaves an empty matrix. */
void qkv_matrix_fini(struct qkv_matrix *m);

/* Resizes to rows × cols (each 0..QKV_MAX_DIM·4); entries inside both the old and
 * the new shape keep their values, new entries are 0. Returns 0 or QKV_ENOMEM /
 * QKV_EINVAL, leaving m unchanged on failure. */
int qkv_matrix_resize(struct qkv_matrix *m, int rows, int cols);
/* Resizes to rows × cols and sets every entry to 0. */
int qkv_matrix_zero(struct qkv_matrix *m, int rows, int cols);
/* Resizes to rows × cols without setting the entries: storage is reused or
 * allocated but not touched, so their values are unspecified until written (for
 * storage a caller fills in pieces). Returns 0, QKV_ENOMEM or QKV_EINVAL. */
int qkv_matrix_shape(struct qkv_matrix *m, int rows, int cols);
/* Makes dst an exact copy of src (dst's storage is reused when large enough). */
int qkv_matrix_copy(struct qkv_matrix *dst, const struct qkv_matrix *src);
/* Sets m from a row-major array of rows*cols values. */
int qkv_matrix_set_all(struct qkv_matrix *m, int rows, int cols, const double *values);

/* Inserts a zero row before row `at` (0..rows); the other rows keep their values. */
int qkv_matrix_insert_row(struct qkv_matrix *m, int at);
/* Removes row `at` (0..rows-1). */
int qkv_matrix_remove_row(struct qkv_matrix *m, int at);

/* The entry at (row, col); both must be in range. */
static inline double qkv_matrix_get(const struct qkv_matrix *m, int row, int col)
{
	return m->values[(size_t)row * (size_t)m->cols + (size_t)col];
}

/* Sets the entry at (row, col); both must be in range. */
static inline void qkv_matrix_set(struct qkv_matrix *m, int row, int col, double value)
{
	m->values[(size_t)row * (size_t)m->cols + (size_t)col] = value;
}

/* A pointer to row `row` (cols contiguous entries). */
static inline double *qkv_matrix_row(struct qkv_matrix *m, int row)
{
	return m->values + (size_t)row * (size_t)m->cols;
}

/* A read-only pointer to row `row`. */
static inline const double *qkv_matrix_row_const(const struct qkv_matrix *m, int row)
{
	return m->values + (size_t)row * (size_t)m->cols;
}

/* out = a · b (a: r×k, b: k×c). out must not alias a or b. */
int qkv_matrix_multiply(struct qkv_matrix *out, const struct qkv_matrix *a,
			const struct qkv_matrix *b);
/* Rows [from, to) of out = a · b again, the other rows untouched, bit-identical
 * to those rows of a full product (same terms, same order; b taken in the same
 * cache bands). out must already be a->rows × b->cols and not alias a or b. */
int qkv_matrix_multiply_rows(struct qkv_matrix *out, const struct qkv_matrix *a,
			     const struct qkv_matrix *b, int from, int to);
/* Row `row` of out = a · b again, alone, with exactly the arithmetic (terms and
 * order) of qkv_matrix_multiply, so the entries are bit-identical to a full
 * product. out must already be a->rows × b->cols and not alias a or b. */
int qkv_matrix_multiply_row(struct qkv_matrix *out, const struct qkv_matrix *a,
			    const struct qkv_matrix *b, int row);
/* Column `col` of out = a · b again, alone, bit-identical to a full product in the
 * same way (each entry summed term by term in the order of a's columns). */
int qkv_matrix_multiply_col(struct qkv_matrix *out, const struct qkv_matrix *a,
			    const struct qkv_matrix *b, int col);
/* out = aᵀ (a transposed). out must not alias a. */
int qkv_matrix_transpose(struct qkv_matrix *out, const struct qkv_matrix *a);

/* True when both have the same shape and bit-identical entries. */
bool qkv_matrix_equal(const struct qkv_matrix *a, const struct qkv_matrix *b);

#endif
