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

/* The product's kernels are compiled twice on x86-64 with GCC: for AVX2 (four
 * doubles an instruction) and for the baseline, the one that runs chosen when the
 * program loads. AVX2 alone, not FMA: a fused multiply-add rounds once where the
 * baseline rounds twice, so the clones give the same bits, each entry's sum taken
 * k by k in both. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define QKV_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define QKV_VECTOR_CLONES
#endif

/* The kernel's tile of out: BLOCK_ROWS rows by BLOCK_COLS columns held in
 * registers while k runs from `from` to `to`. */
#define BLOCK_ROWS 4
#define BLOCK_COLS 8
/* Rows of b taken at a time, and tiles side by side in a panel: 32 KiB. */
#define MULTIPLY_BAND 64
#define PANEL_TILES 8

/* Four doubles, added and multiplied lane by lane (GCC's and clang's vector
 * extension: each lane is the IEEE operation on its own, as in a loop); loaded
 * and stored through memcpy, since a row need not be aligned. */
typedef double qkv_lanes __attribute__((vector_size(4 * sizeof(double))));

/* out[r][col + c] += Σ_k a[r][k] · panel[k − from][c] for k = from … to−1 in that
 * order, panel being columns col … col + 7 of b's rows from … to−1 copied side by
 * side: the sums stay in registers over the whole run of k (one load and store of
 * out per tile, not per k), each lane adding its products term by term, so every
 * entry is the same arithmetic as the one-row loop below. */
QKV_VECTOR_CLONES
static void accumulate_tile(double *const out[BLOCK_ROWS], const double *const a[BLOCK_ROWS],
			    const double *panel, int col, int from, int to)
{
	qkv_lanes sum[BLOCK_ROWS][2];

	for (int r = 0; r < BLOCK_ROWS; r++)
		memcpy(sum[r], out[r] + col, sizeof sum[r]);
	for (int k = from; k < to; k++, panel += BLOCK_COLS) {
		qkv_lanes low, high;

		memcpy(&low, panel, sizeof low);
		memcpy(&high, panel + 4, sizeof high);
		for (int r = 0; r < BLOCK_ROWS; r++) {
			const double a_rk = a[r][k];
			const qkv_lanes a_r = { a_rk, a_rk, a_rk, a_rk };

			sum[r][0] += a_r * low;
			sum[r][1] += a_r * high;
		}
	}
	for (int r = 0; r < BLOCK_ROWS; r++)
		memcpy(out[r] + col, sum[r], sizeof sum[r]);
}

/* row[j] += Σ a_k · b[k][j] for j = col … cols−1 and k = from … to−1, k by k: the
 * rows and columns the tiles leave over. */
QKV_VECTOR_CLONES
static void accumulate_rows(double *restrict row, const double *a, const struct qkv_matrix *b,
			    int col, int from, int to)
{
	for (int k = from; k < to; k++) {
		const double a_k = a[k];
		const double *restrict b_k = qkv_matrix_row_const(b, k);

		for (int j = col; j < b->cols; j++)
			row[j] += a_k * b_k[j];
	}
}

/* Rows from … to−1 of out += a · (rows band … end−1 of b), at most MULTIPLY_BAND
 * rows. PANEL_TILES tiles' columns of the band at a time are copied side by side
 * into a panel that stays in cache (b's rows may lie a page apart, as Kᵀ's do);
 * each BLOCK_ROWS rows of a go against the whole panel while their stretch of a
 * is in the first-level cache. What is left of the columns and of the rows goes a
 * row at a time. */
static void accumulate_band(struct qkv_matrix *out, const struct qkv_matrix *a, const struct qkv_matrix *b,
			    int from, int to, int band, int end)
{
	double panel[PANEL_TILES * MULTIPLY_BAND * BLOCK_COLS];
	int whole = b->cols - b->cols % BLOCK_COLS, height = end - band;
	int tiled = from + (to - from) / BLOCK_ROWS * BLOCK_ROWS;

	for (int first = 0; first < whole && tiled > from; first += PANEL_TILES * BLOCK_COLS) {
		int tiles = (whole - first) / BLOCK_COLS < PANEL_TILES ? (whole - first) / BLOCK_COLS : PANEL_TILES;

		for (int t = 0; t < tiles; t++)
			for (int k = band; k < end; k++)
				memcpy(panel + ((size_t)t * height + (size_t)(k - band)) * BLOCK_COLS,
				       qkv_matrix_row_const(b, k) + first + t * BLOCK_COLS, sizeof(double) * BLOCK_COLS);
		for (int i = from; i < tiled; i += BLOCK_ROWS) {
			double *rows[BLOCK_ROWS];
			const double *as[BLOCK_ROWS];

			for (int r = 0; r < BLOCK_ROWS; r++) {
				rows[r] = qkv_matrix_row(out, i + r);
				as[r] = qkv_matrix_row_const(a, i + r);
			}
			for (int t = 0; t < tiles; t++)
				accumulate_tile(rows, as, panel + (size_t)t * height * BLOCK_COLS,
						first + t * BLOCK_COLS, band, end);
		}
	}
	for (int i = from; i < tiled && whole < b->cols; i++)
		accumulate_rows(qkv_matrix_row(out, i), qkv_matrix_row_const(a, i), b, whole, band, end);
	for (int i = tiled; i < to; i++)
		accumulate_rows(qkv_matrix_row(out, i), qkv_matrix_row_const(a, i), b, 0, band, end);
}

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
	if (a->cols != b->rows || out == a || out == b || out->rows != a->rows ||
	    out->cols != b->cols || from < 0 || to > a->rows || from > to)
		return QKV_ESHAPE;
	if (to > from)
		memset(qkv_matrix_row(out, from), 0, (size_t)(to - from) * (size_t)out->cols * sizeof(double));
	for (int band = 0; band < b->rows; band += MULTIPLY_BAND) {
		int end = band + MULTIPLY_BAND < b->rows ? band + MULTIPLY_BAND : b->rows;

		accumulate_band(out, a, b, from, to, band, end);
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
