/* geometry.h — queries and keys as arrows from the origin: a score is a dot
 * product, |q| |k| cos θ. With d_k ≤ 2 the rows of Q and K are the points
 * themselves (the plane is exact); with d_k > 2 they are projected onto the plane
 * of the first two principal components of Q's and K's rows stacked together,
 * uncentred (arrows start at the origin and dot products are about the origin),
 * and the share of the spread that plane holds is stated (for very large Q and K
 * the plane is found within a budget of work and may fall a little short of the
 * principal one; the share is always the one of the plane found). Q and K may
 * have different numbers of rows (queries and keys are counted apart). No I/O. */
#ifndef QKV_GEOMETRY_H
#define QKV_GEOMETRY_H

#include <stddef.h>

#include "qkv/matrix.h"

/* How the plane was found: the rows themselves, or principal components. */
enum qkv_plane {
	QKV_PLANE_EXACT, /* d_k ≤ 2: x and y are the rows' own coordinates */
	QKV_PLANE_PCA,   /* d_k > 2: the two leading right singular vectors */
};

/* "exact" or "pca", as the JSON writes them. */
const char *qkv_plane_name(enum qkv_plane plane);

struct qkv_geometry {
	int queries, keys; /* rows of Q, rows of K */
	int d_k;
	enum qkv_plane plane;
	/* The spread: the sum of the squared lengths of every query and key arrow
	 * (the trace of the Gram matrix, Σ σᵢ² of the stacked rows). */
	double spread;
	/* The share of the spread the plane holds: Σ (x² + y²) / spread, in 0..1;
	 * 1 when the plane is exact (or every arrow has length 0). */
	double explained;
	/* The plane's two unit axes in d_k dimensions, row-major 2 × d_k: e1 and e2
	 * when exact (with d_k = 1 the second axis is all zeros). Orthonormal; each
	 * axis's sign makes the sum of every point's coordinate on it positive (the
	 * mean arrow points its way), so a small edit does not flip the picture. */
	double *axes;
	/* Each point's coordinates in the plane: queries first (0..queries−1), then
	 * keys (queries..queries+keys−1). */
	double *x, *y;
	size_t capacity, axes_capacity;
};

/* An empty geometry; cannot fail. */
void qkv_geometry_init(struct qkv_geometry *g);
/* Frees its storage. */
void qkv_geometry_fini(struct qkv_geometry *g);

/* Fills g from q (m × d_k) and k (n × d_k), reusing g's storage. Returns 0,
 * QKV_ESHAPE when their columns differ (or are 0), QKV_ENOMEM. */
int qkv_geometry_compute(struct qkv_geometry *g, const struct qkv_matrix *q, const struct qkv_matrix *k);

/* The dot product of row `query` of q and row `key` of k (the same columns). */
double qkv_geometry_dot(const struct qkv_matrix *q, int query, const struct qkv_matrix *k, int key);
/* The length of row `row` of m. */
double qkv_geometry_norm(const struct qkv_matrix *m, int row);
/* The angle between the two rows in degrees (0..180), in d_k dimensions; NAN
 * when either has length 0. */
double qkv_geometry_angle(const struct qkv_matrix *q, int query, const struct qkv_matrix *k, int key);

/* "q_t3 · k_t1 = 1.00 = |q| |k| cos 45°": the dot product at the fewest decimals
 * from 2 that show two significant digits, then the angle in whole degrees (one
 * decimal when that makes the equation hold); "=" only when |q| |k| cos of the
 * angle as shown gives the shown product at its digits, else "≈". An arrow of
 * length 0 has no angle: "q_t3 · k_t1 = 0.00 (k_t1 has length 0)". Labels are
 * used as given. Returns the length the text needs, as snprintf. */
int qkv_geometry_dot_sentence(char *buf, size_t size, const char *query_label, const char *key_label,
			      double dot, double query_norm, double key_norm);

/* What the plane is, in words: "the plane is exact: the points are Q's and K's
 * rows" (d_k 2), "d_k = 1: the points are Q's and K's rows, on a line", or "this
 * plane holds 73% of the spread; dot products are exact only in d_k = 64
 * dimensions" (a share that rounds to 100% or 0% without being it says "more
 * than 99%" or "less than 1%"; all of it: "this plane holds all of the spread:
 * the points lie in it, so its angles are exact"). Returns the length, as
 * snprintf. */
int qkv_geometry_plane_sentence(char *buf, size_t size, const struct qkv_geometry *g);

#endif
