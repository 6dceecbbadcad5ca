/* geometry.c — queries and keys as points in a plane (see geometry.h): the rows
 * themselves when d_k ≤ 2, else their projection onto the two leading principal
 * axes of Q's and K's rows stacked, uncentred. The axes come from the Jacobi
 * eigen-decomposition of the smaller Gram matrix (MᵀM, d_k × d_k, or M Mᵀ over
 * the rows when there are fewer rows than columns); past JACOBI_MAX of both, from
 * orthogonal iteration on MᵀM within a budget of work (the share stated is always
 * the one of the plane found, computed from its points). Never prints; allocates only g's storage and
 * scratch it frees before returning. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/buffer.h"
#include "qkv/error.h"
#include "qkv/format.h"
#include "qkv/geometry.h"

#define DEGREES (180.0 / 3.14159265358979323846)

#define JACOBI_MAX 128     /* the largest Gram matrix decomposed by Jacobi rotations (0.1 s) */
#define JACOBI_SWEEPS 60   /* cyclic sweeps at most (it converges in far fewer) */
#define BLOCK 6            /* vectors of the orthogonal iteration (2 wanted, 4 to converge faster) */
#define BLOCK_ITERATIONS 2000
/* Multiply-adds the iteration may spend (some tenths of a second): past them it
 * stops with the plane it has, whose share is still computed from the points. */
#define BLOCK_BUDGET 4e8

const char *qkv_plane_name(enum qkv_plane plane)
{
	return plane == QKV_PLANE_EXACT ? "exact" : "pca";
}

void qkv_geometry_init(struct qkv_geometry *g)
{
	memset(g, 0, sizeof *g);
}

void qkv_geometry_fini(struct qkv_geometry *g)
{
	free(g->axes);
	free(g->x);
	free(g->y);
	qkv_geometry_init(g);
}

double qkv_geometry_dot(const struct qkv_matrix *q, int query, const struct qkv_matrix *k, int key)
{
	const double *a = qkv_matrix_row_const(q, query), *b = qkv_matrix_row_const(k, key);
	double sum = 0.0;

	for (int c = 0; c < q->cols; c++)
		sum += a[c] * b[c];
	return sum;
}

double qkv_geometry_norm(const struct qkv_matrix *m, int row)
{
	return sqrt(qkv_geometry_dot(m, row, m, row));
}

double qkv_geometry_angle(const struct qkv_matrix *q, int query, const struct qkv_matrix *k, int key)
{
	double nq = qkv_geometry_norm(q, query), nk = qkv_geometry_norm(k, key), c;

	if (nq == 0.0 || nk == 0.0)
		return NAN;
	c = qkv_geometry_dot(q, query, k, key) / (nq * nk);
	c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
	return acos(c) * DEGREES;
}

/* Row i of the stacked rows: Q's first, then K's. */
static const double *stacked_row(const struct qkv_matrix *q, const struct qkv_matrix *k, int i)
{
	return i < q->rows ? qkv_matrix_row_const(q, i) : qkv_matrix_row_const(k, i - q->rows);
}

/* Eigen-decomposition of the symmetric s × s matrix a (destroyed) by cyclic
 * Jacobi rotations: values[i] and column i of vectors (row-major s × s). */
static void jacobi(double *a, int s, double *values, double *vectors)
{
	for (int i = 0; i < s; i++)
		for (int j = 0; j < s; j++)
			vectors[i * s + j] = i == j ? 1.0 : 0.0;
	for (int sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
		double off = 0.0, diag = 0.0;

		for (int i = 0; i < s; i++) {
			diag += a[i * s + i] * a[i * s + i];
			for (int j = i + 1; j < s; j++)
				off += a[i * s + j] * a[i * s + j];
		}
		if (off <= 1e-30 * diag || off == 0.0)
			break;
		for (int p = 0; p < s; p++)
			for (int r = p + 1; r < s; r++) {
				double apr = a[p * s + r];

				if (apr == 0.0)
					continue;
				double theta = (a[r * s + r] - a[p * s + p]) / (2.0 * apr);
				double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
				double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;

				for (int i = 0; i < s; i++) { /* columns p and r */
					double aip = a[i * s + p], air = a[i * s + r];
					a[i * s + p] = c * aip - sn * air;
					a[i * s + r] = sn * aip + c * air;
				}
				for (int i = 0; i < s; i++) { /* rows p and r */
					double api = a[p * s + i], ari = a[r * s + i];
					a[p * s + i] = c * api - sn * ari;
					a[r * s + i] = sn * api + c * ari;
				}
				for (int i = 0; i < s; i++) {
					double vip = vectors[i * s + p], vir = vectors[i * s + r];
					vectors[i * s + p] = c * vip - sn * vir;
					vectors[i * s + r] = sn * vip + c * vir;
				}
			}
	}
	for (int i = 0; i < s; i++)
		values[i] = a[i * s + i];
}

/* The indexes of the two largest of values[0..s). */
static void two_largest(const double *values, int s, int *first, int *second)
{
	*first = 0;
	for (int i = 1; i < s; i++)
		if (values[i] > values[*first])
			*first = i;
	*second = *first == 0 ? (s > 1 ? 1 : 0) : 0;
	for (int i = 0; i < s; i++)
		if (i != *first && values[i] > values[*second])
			*second = i;
}

/* Makes axis (d values) unit length and orthogonal to the unit `other` (NULL:
 * none); when nothing is left of it, the first standard basis vector that is. */
static void orthonormalise(double *axis, const double *other, int d)
{
	for (int attempt = -1; attempt < d; attempt++) {
		double along = 0.0, length = 0.0;

		if (attempt >= 0)
			for (int c = 0; c < d; c++)
				axis[c] = c == attempt ? 1.0 : 0.0;
		if (other != NULL) {
			for (int c = 0; c < d; c++)
				along += axis[c] * other[c];
			for (int c = 0; c < d; c++)
				axis[c] -= along * other[c];
		}
		for (int c = 0; c < d; c++)
			length += axis[c] * axis[c];
		length = sqrt(length);
		if (length > 1e-9) {
			for (int c = 0; c < d; c++)
				axis[c] /= length;
			return;
		}
	}
}

/* The leading axes from the d × d Gram matrix MᵀM. */
static int axes_from_columns(const struct qkv_matrix *q, const struct qkv_matrix *k, int d, double *axes)
{
	int rows = q->rows + k->rows, first, second;
	double *gram = calloc((size_t)d * d, sizeof *gram), *vectors = malloc(sizeof *vectors * (size_t)d * d);
	double *values = malloc(sizeof *values * (size_t)d);

	if (gram == NULL || vectors == NULL || values == NULL) {
		free(gram);
		free(vectors);
		free(values);
		return QKV_ENOMEM;
	}
	for (int i = 0; i < rows; i++) {
		const double *m = stacked_row(q, k, i);
		for (int a = 0; a < d; a++)
			for (int b = a; b < d; b++)
				gram[a * d + b] += m[a] * m[b];
	}
	for (int a = 0; a < d; a++)
		for (int b = 0; b < a; b++)
			gram[a * d + b] = gram[b * d + a];
	jacobi(gram, d, values, vectors);
	two_largest(values, d, &first, &second);
	for (int c = 0; c < d; c++) {
		axes[c] = vectors[c * d + first];
		axes[d + c] = vectors[c * d + second];
	}
	free(gram);
	free(vectors);
	free(values);
	return 0;
}

/* The leading axes from the rows × rows Gram matrix M Mᵀ (fewer rows than
 * columns): axis i = Mᵀ uᵢ, normalised. */
static int axes_from_rows(const struct qkv_matrix *q, const struct qkv_matrix *k, int d, double *axes)
{
	int rows = q->rows + k->rows, first, second;
	double *gram = malloc(sizeof *gram * (size_t)rows * rows), *vectors = malloc(sizeof *vectors * (size_t)rows * rows);
	double *values = malloc(sizeof *values * (size_t)rows);

	if (gram == NULL || vectors == NULL || values == NULL) {
		free(gram);
		free(vectors);
		free(values);
		return QKV_ENOMEM;
	}
	for (int i = 0; i < rows; i++)
		for (int j = i; j < rows; j++) {
			const double *a = stacked_row(q, k, i), *b = stacked_row(q, k, j);
			double sum = 0.0;
			for (int c = 0; c < d; c++)
				sum += a[c] * b[c];
			gram[i * rows + j] = gram[j * rows + i] = sum;
		}
	jacobi(gram, rows, values, vectors);
	two_largest(values, rows, &first, &second);
	memset(axes, 0, sizeof *axes * 2 * (size_t)d);
	for (int i = 0; i < rows; i++) {
		const double *m = stacked_row(q, k, i);
		for (int c = 0; c < d; c++) {
			axes[c] += vectors[i * rows + first] * m[c];
			axes[d + c] += vectors[i * rows + second] * m[c];
		}
	}
	free(gram);
	free(vectors);
	free(values);
	orthonormalise(axes, NULL, d);
	orthonormalise(axes + d, axes, d);
	return 0;
}

/* out = MᵀM v for the stacked rows M (v and out of d values, apart). */
static void gram_times(const struct qkv_matrix *q, const struct qkv_matrix *k, int d, const double *v, double *out)
{
	memset(out, 0, sizeof *out * (size_t)d);
	for (int i = 0; i < q->rows + k->rows; i++) {
		const double *m = stacked_row(q, k, i);
		double along = 0.0;
		for (int c = 0; c < d; c++)
			along += m[c] * v[c];
		for (int c = 0; c < d; c++)
			out[c] += along * m[c];
	}
}

/* Orthonormalises the BLOCK vectors of d values in order (modified Gram–Schmidt);
 * a vector with nothing left of it becomes the first standard basis vector that
 * has something left. */
static void gram_schmidt(double *block, int d)
{
	for (int b = 0; b < BLOCK; b++) {
		double *v = block + b * d;
		for (int attempt = -1; attempt < d; attempt++) {
			double length = 0.0;
			if (attempt >= 0)
				for (int c = 0; c < d; c++)
					v[c] = c == attempt ? 1.0 : 0.0;
			for (int e = 0; e < b; e++) {
				double along = 0.0;
				for (int c = 0; c < d; c++)
					along += v[c] * block[e * d + c];
				for (int c = 0; c < d; c++)
					v[c] -= along * block[e * d + c];
			}
			for (int c = 0; c < d; c++)
				length += v[c] * v[c];
			length = sqrt(length);
			if (length > 1e-9) {
				for (int c = 0; c < d; c++)
					v[c] /= length;
				break;
			}
		}
	}
}

/* The leading axes of large problems: orthogonal iteration of BLOCK vectors on
 * MᵀM with Rayleigh–Ritz on the block, until the two leading Ritz vectors are
 * eigenvectors to a small residual or the budget is spent. */
static int axes_by_iteration(const struct qkv_matrix *q, const struct qkv_matrix *k, int d, double *axes)
{
	double *block = malloc(sizeof *block * (size_t)BLOCK * d), *image = malloc(sizeof *image * (size_t)BLOCK * d);
	double small[BLOCK * BLOCK], vectors[BLOCK * BLOCK], values[BLOCK];
	int first, second, rows = q->rows + k->rows;
	/* Each iteration costs 2 · rows · d multiply-adds per vector of the block. */
	double per_iteration = 2.0 * rows * d * BLOCK;
	int iterations = (int)fmin(BLOCK_ITERATIONS, fmax(30.0, BLOCK_BUDGET / per_iteration));

	if (block == NULL || image == NULL) {
		free(block);
		free(image);
		return QKV_ENOMEM;
	}
	for (int b = 0; b < BLOCK; b++) /* a fixed start: every column weighs in, deterministically */
		for (int c = 0; c < d; c++)
			block[b * d + c] = cos(0.7 * (b + 1) * (c + 1)) + (c % BLOCK == b ? 1.0 : 0.0);
	gram_schmidt(block, d);
	for (int iteration = 0; iteration < iterations; iteration++) {
		for (int b = 0; b < BLOCK; b++)
			gram_times(q, k, d, block + b * d, image + b * d);
		for (int a = 0; a < BLOCK; a++) /* Rayleigh quotients of the block */
			for (int b = 0; b < BLOCK; b++) {
				double sum = 0.0;
				for (int c = 0; c < d; c++)
					sum += block[a * d + c] * image[b * d + c];
				small[a * BLOCK + b] = sum;
			}
		jacobi(small, BLOCK, values, vectors);
		two_largest(values, BLOCK, &first, &second);
		/* Settled when both Ritz vectors a are eigenvectors to within a residual
		 * |MᵀM a − λ a| of 1e-10 of the largest λ (MᵀM a is the image's mix). */
		bool settled = true;
		for (int which = 0; which < 2; which++) {
			int w = which == 0 ? first : second;
			double residual = 0.0;
			for (int c = 0; c < d; c++) {
				double r = 0.0;
				for (int b = 0; b < BLOCK; b++)
					r += vectors[b * BLOCK + w] * (image[b * d + c] - values[w] * block[b * d + c]);
				residual += r * r;
			}
			settled &= sqrt(residual) <= 1e-10 * fabs(values[first]);
		}
		if (settled || iteration + 1 == iterations) {
			memset(axes, 0, sizeof *axes * 2 * (size_t)d);
			for (int b = 0; b < BLOCK; b++)
				for (int c = 0; c < d; c++) {
					axes[c] += vectors[b * BLOCK + first] * block[b * d + c];
					axes[d + c] += vectors[b * BLOCK + second] * block[b * d + c];
				}
			break;
		}
		gram_schmidt(image, d); /* the next block */
		memcpy(block, image, sizeof *block * (size_t)BLOCK * d);
	}
	free(block);
	free(image);
	orthonormalise(axes, NULL, d);
	orthonormalise(axes + d, axes, d);
	return 0;
}

/* The sign convention: the sum of the coordinates on an axis is positive; when
 * it is 0 (to rounding), its largest component is. */
static void orient(double *axis, const struct qkv_matrix *q, const struct qkv_matrix *k, int d, double spread)
{
	double sum = 0.0, largest = 0.0;
	int rows = q->rows + k->rows;

	for (int i = 0; i < rows; i++) {
		const double *m = stacked_row(q, k, i);
		for (int c = 0; c < d; c++)
			sum += m[c] * axis[c];
	}
	if (fabs(sum) <= 1e-12 * sqrt(spread) * rows)
		for (int c = 0; c < d; c++)
			if (fabs(axis[c]) > fabs(largest) + 1e-12)
				largest = axis[c], sum = axis[c];
	if (sum < 0)
		for (int c = 0; c < d; c++)
			axis[c] = -axis[c];
}

/* Makes room for the points and the axes. */
static int reserve(struct qkv_geometry *g, size_t points, size_t axes)
{
	if (points > g->capacity) {
		double *x = realloc(g->x, sizeof *x * points), *y;
		if (x == NULL)
			return QKV_ENOMEM;
		g->x = x;
		if ((y = realloc(g->y, sizeof *y * points)) == NULL)
			return QKV_ENOMEM;
		g->y = y;
		g->capacity = points;
	}
	if (axes > g->axes_capacity) {
		double *a = realloc(g->axes, sizeof *a * axes);
		if (a == NULL)
			return QKV_ENOMEM;
		g->axes = a;
		g->axes_capacity = axes;
	}
	return 0;
}

int qkv_geometry_compute(struct qkv_geometry *g, const struct qkv_matrix *q, const struct qkv_matrix *k)
{
	int d = q->cols, rows = q->rows + k->rows, rc;
	double held = 0.0;

	if (d != k->cols || d < 1)
		return QKV_ESHAPE;
	if ((rc = reserve(g, rows > 0 ? (size_t)rows : 1, 2 * (size_t)d)) != 0)
		return rc;
	g->queries = q->rows;
	g->keys = k->rows;
	g->d_k = d;
	g->spread = 0.0;
	for (int i = 0; i < rows; i++) {
		const double *m = stacked_row(q, k, i);
		for (int c = 0; c < d; c++)
			g->spread += m[c] * m[c];
	}
	g->plane = d <= 2 ? QKV_PLANE_EXACT : QKV_PLANE_PCA;
	if (d <= 2) {
		for (int c = 0; c < 2 * d; c++)
			g->axes[c] = 0.0;
		g->axes[0] = 1.0;
		if (d == 2)
			g->axes[d + 1] = 1.0;
	} else {
		int smaller = d <= rows ? d : rows;
		rc = smaller > JACOBI_MAX ? axes_by_iteration(q, k, d, g->axes)
		     : d <= rows ? axes_from_columns(q, k, d, g->axes) : axes_from_rows(q, k, d, g->axes);
		if (rc != 0)
			return rc;
		orient(g->axes, q, k, d, g->spread);
		orient(g->axes + d, q, k, d, g->spread);
	}
	for (int i = 0; i < rows; i++) {
		const double *m = stacked_row(q, k, i);
		double x = 0.0, y = 0.0;
		for (int c = 0; c < d; c++) {
			x += m[c] * g->axes[c];
			y += m[c] * g->axes[d + c];
		}
		g->x[i] = x;
		g->y[i] = y;
		held += x * x + y * y;
	}
	g->explained = g->plane == QKV_PLANE_EXACT || g->spread == 0.0 ? 1.0 : held / g->spread;
	if (g->explained > 1.0)
		g->explained = 1.0;
	return 0;
}

/* The decimals a value is shown at: from 2, until it shows two significant digits. */
static int decimals_of(double value)
{
	bool apart;

	return qkv_format_places(&value, 1, 2, 8, &apart);
}

int qkv_geometry_dot_sentence(char *buf, size_t size, const char *query_label, const char *key_label,
			      double dot, double query_norm, double key_norm)
{
	struct qkv_buffer t = { buf, size, 0 };
	int decimals = decimals_of(dot);
	char shown[48];
	double value, half = 0.5 * pow(10.0, -decimals);

	if (size > 0)
		buf[0] = '\0';
	qkv_format_number(shown, sizeof shown, dot, decimals);
	if (strspn(shown, "-0.") == strlen(shown) && shown[0] == '-')
		memmove(shown, shown + 1, strlen(shown));
	value = strtod(shown, NULL);
	qkv_buffer_put(&t, "q_%s · k_%s = %s", query_label, key_label, shown);
	if (query_norm == 0.0 || key_norm == 0.0) {
		qkv_buffer_put(&t, " (%s_%s has length 0)", query_norm == 0.0 ? "q" : "k",
			       query_norm == 0.0 ? query_label : key_label);
		return (int)t.length;
	}
	double c = dot / (query_norm * key_norm);
	double angle = acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c) * DEGREES;
	/* Whole degrees, or a tenth when only that makes the equation hold. */
	for (int places = 0; places <= 1; places++) {
		double step = places == 0 ? 1.0 : 0.1, shown_angle = round(angle / step) * step;
		double product = query_norm * key_norm * cos(shown_angle / DEGREES);
		bool holds = fabs(product - value) <= half * (1.0 - 1e-6);

		if (holds || places == 1) {
			if (!holds)
				shown_angle = round(angle);
			qkv_buffer_put(&t, " %s |q| |k| cos %.*f°", holds ? "=" : "≈", holds ? places : 0, shown_angle);
			break;
		}
	}
	return (int)t.length;
}

int qkv_geometry_plane_sentence(char *buf, size_t size, const struct qkv_geometry *g)
{
	struct qkv_buffer t = { buf, size, 0 };
	double percent = g->explained * 100.0;

	if (size > 0)
		buf[0] = '\0';
	if (g->plane == QKV_PLANE_EXACT) {
		if (g->d_k == 1)
			qkv_buffer_put(&t, "d_k = 1: the points are Q's and K's rows, on a line");
		else
			qkv_buffer_put(&t, "the plane is exact: the points are Q's and K's rows");
		return (int)t.length;
	}
	if (g->explained >= 1.0) {
		qkv_buffer_put(&t, "this plane holds all of the spread: the points lie in it, so its angles are exact");
		return (int)t.length;
	}
	if (round(percent) >= 100.0)
		qkv_buffer_put(&t, "this plane holds more than 99%% of the spread");
	else if (round(percent) <= 0.0)
		qkv_buffer_put(&t, "this plane holds less than 1%% of the spread");
	else
		qkv_buffer_put(&t, "this plane holds %.0f%% of the spread", percent);
	qkv_buffer_put(&t, "; dot products are exact only in d_k = %d dimensions", g->d_k);
	return (int)t.length;
}
