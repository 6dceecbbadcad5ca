/* online.c — attention without the n × n matrices (see online.h). Each query is
 * read against its keys a tile at a time: the running maximum, sum and
 * accumulator are all the state there is. The scores are summed as qkv_attention
 * sums them (0 + q_1·k_1 + q_2·k_2 + …, then divided), so the two paths see the
 * same scaled scores bit for bit; they differ only in how the exponentials are
 * added up. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/error.h"
#include "qkv/online.h"

void qkv_online_row_start(struct qkv_online_row *r, double *acc, int d_v)
{
	r->max = -INFINITY;
	r->sum = 0.0;
	r->acc = acc;
	r->d_v = d_v;
	memset(acc, 0, (size_t)d_v * sizeof *acc);
}

/* The scaled score of query row q_row against key j: as qkv_attention's S'_ij. */
static double scaled_score(const double *q_row, const struct qkv_matrix *k, int j, double divisor)
{
	const double *k_j = qkv_matrix_row_const(k, j);
	double sum = 0.0;

	for (int c = 0; c < k->cols; c++)
		sum += q_row[c] * k_j[c];
	return sum / divisor;
}

void qkv_online_row_tile(struct qkv_online_row *r, const struct qkv_problem *p, int query,
			 const double *q_row, const struct qkv_matrix *k, const struct qkv_matrix *v,
			 double divisor, int first, int count, double *scores,
			 struct qkv_online_tile *what)
{
	/* The mask-after-softmax mistake normalises over every key, hidden or not. */
	bool all_in_sum = p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX;
	double max = r->max, before = r->max, sum_before = r->sum, rescale = 1.0;
	int live = 0;

	for (int j = first; j < first + count; j++) {
		double s = scaled_score(q_row, k, j, divisor);
		bool hidden = qkv_problem_is_masked(p, query, j);

		if (scores != NULL)
			scores[j - first] = s;
		if (!hidden)
			live++;
		if ((!hidden || all_in_sum) && s > max)
			max = s;
	}
	if (max > before) {
		/* From −∞ there is nothing to rescale: ℓ and o are 0. */
		rescale = isfinite(before) ? exp(before - max) : 0.0;
		r->sum *= rescale;
		for (int c = 0; c < r->d_v; c++)
			r->acc[c] *= rescale;
		r->max = max;
	}
	for (int j = first; j < first + count; j++) {
		bool hidden = qkv_problem_is_masked(p, query, j);
		double s, e;

		if (hidden && !all_in_sum)
			continue;
		s = scores != NULL ? scores[j - first] : scaled_score(q_row, k, j, divisor);
		e = exp(s - r->max);
		r->sum += e;
		if (!hidden) {
			const double *v_j = qkv_matrix_row_const(v, j);

			for (int c = 0; c < r->d_v; c++)
				r->acc[c] += e * v_j[c];
		}
	}
	if (what != NULL) {
		what->first = first;
		what->count = count;
		what->live = live;
		what->max_before = before;
		what->max_after = r->max;
		what->rescale = rescale;
		what->sum_before = sum_before;
		what->sum_after = r->sum;
	}
}

void qkv_online_row_finish(const struct qkv_online_row *r, double *out)
{
	for (int c = 0; c < r->d_v; c++)
		out[c] = r->sum > 0.0 ? r->acc[c] / r->sum : 0.0;
}

void qkv_online_init(struct qkv_online *o)
{
	memset(o, 0, sizeof *o);
	qkv_matrix_init(&o->q);
	qkv_matrix_init(&o->k);
	qkv_matrix_init(&o->v);
	qkv_matrix_init(&o->output);
}

void qkv_online_fini(struct qkv_online *o)
{
	qkv_matrix_fini(&o->q);
	qkv_matrix_fini(&o->k);
	qkv_matrix_fini(&o->v);
	qkv_matrix_fini(&o->output);
	free(o->max);
	free(o->sum);
	free(o->scratch);
	qkv_online_init(o);
}

/* Q, K, V as used: copies in the direct form, products in the projected form
 * (in cross-attention the queries from their own sequence X_q). */
static int online_inputs(const struct qkv_problem *p, struct qkv_online *o)
{
	int rc;

	if (p->form == QKV_FORM_DIRECT) {
		rc = qkv_matrix_copy(&o->q, &p->q);
		if (rc == 0)
			rc = qkv_matrix_copy(&o->k, &p->k);
		if (rc == 0)
			rc = qkv_matrix_copy(&o->v, &p->v);
		return rc;
	}
	rc = qkv_matrix_multiply(&o->q, qkv_problem_is_cross(p) ? &p->x_q : &p->x, &p->w_q);
	if (rc == 0)
		rc = qkv_matrix_multiply(&o->k, &p->x, &p->w_k);
	if (rc == 0)
		rc = qkv_matrix_multiply(&o->v, &p->x, &p->w_v);
	return rc;
}

/* Sizes the result's own storage for the problem's queries and a tile. */
static int online_reserve(struct qkv_online *o, int queries, int d_v, int tile)
{
	double *max = realloc(o->max, (size_t)queries * sizeof *max);
	double *sum, *scratch;

	if (max == NULL)
		return QKV_ENOMEM;
	o->max = max;
	sum = realloc(o->sum, (size_t)queries * sizeof *sum);
	if (sum == NULL)
		return QKV_ENOMEM;
	o->sum = sum;
	/* The tile's scores, then o: one block. */
	scratch = realloc(o->scratch, (size_t)(tile + d_v) * sizeof *scratch);
	if (scratch == NULL)
		return QKV_ENOMEM;
	o->scratch = scratch;
	return qkv_matrix_zero(&o->output, queries, d_v);
}

int qkv_online_attention(const struct qkv_problem *p, int tile, struct qkv_online *o)
{
	int rc = qkv_problem_check(p), queries, keys;

	o->queries = 0;
	if (rc == 0 && (p->h > 0 || p->wrong == QKV_WRONG_COLUMN_SOFTMAX || tile < 1))
		rc = QKV_EINVAL;
	if (rc == 0)
		rc = online_inputs(p, o);
	if (rc != 0)
		return rc;
	queries = o->q.rows;
	keys = o->k.rows;
	if (tile > keys)
		tile = keys;
	rc = online_reserve(o, queries, o->v.cols, tile);
	if (rc != 0)
		return rc;
	o->keys = keys;
	o->d_k = o->q.cols;
	o->d_v = o->v.cols;
	o->tile = tile;
	o->divisor = qkv_problem_divisor(p);
	for (int i = 0; i < queries; i++) {
		struct qkv_online_row r;

		qkv_online_row_start(&r, o->scratch + tile, o->d_v);
		for (int first = 0; first < keys; first += tile)
			qkv_online_row_tile(&r, p, i, qkv_matrix_row_const(&o->q, i), &o->k, &o->v,
					    o->divisor, first, first + tile <= keys ? tile : keys - first,
					    o->scratch, NULL);
		qkv_online_row_finish(&r, qkv_matrix_row(&o->output, i));
		o->max[i] = r.max;
		o->sum[i] = r.sum;
	}
	o->bytes = sizeof(double) * ((size_t)queries * (size_t)o->d_k + (size_t)keys * (size_t)o->d_k +
				     (size_t)keys * (size_t)o->d_v + (size_t)queries * (size_t)o->d_v +
				     2 * (size_t)queries + (size_t)tile + (size_t)o->d_v);
	o->queries = queries;
	return 0;
}

int qkv_online_blocks_init(struct qkv_online_blocks *w, int d_k, int d_v, int tile)
{
	int block = QKV_ONLINE_QUERY_BLOCK, rc;

	memset(w, 0, sizeof *w);
	qkv_matrix_init(&w->q_block);
	qkv_matrix_init(&w->k_tile);
	qkv_matrix_init(&w->v_tile);
	qkv_matrix_init(&w->scores);
	qkv_matrix_init(&w->part);
	if (d_k < 1 || d_v < 1 || tile < 1)
		return QKV_EINVAL;
	rc = qkv_matrix_zero(&w->q_block, block, d_k);
	if (rc == 0)
		rc = qkv_matrix_zero(&w->k_tile, d_k, tile);
	if (rc == 0)
		rc = qkv_matrix_zero(&w->v_tile, tile, d_v);
	if (rc == 0)
		rc = qkv_matrix_zero(&w->scores, block, tile);
	if (rc == 0)
		rc = qkv_matrix_zero(&w->part, block, d_v);
	if (rc == 0) {
		w->max = calloc((size_t)block, sizeof *w->max);
		w->sum = calloc((size_t)block, sizeof *w->sum);
		if (w->max == NULL || w->sum == NULL)
			rc = QKV_ENOMEM;
	}
	if (rc != 0) {
		qkv_online_blocks_fini(w);
		return rc;
	}
	w->d_k = d_k;
	w->d_v = d_v;
	w->tile = tile;
	w->bytes = qkv_online_blocks_bytes(d_k, d_v, tile);
	return 0;
}

size_t qkv_online_blocks_bytes(int d_k, int d_v, int tile)
{
	size_t block = QKV_ONLINE_QUERY_BLOCK;

	return sizeof(double) * (block * (size_t)d_k + (size_t)d_k * (size_t)tile + (size_t)tile * (size_t)d_v +
				 block * (size_t)tile + block * (size_t)d_v + 2 * block);
}

void qkv_online_blocks_fini(struct qkv_online_blocks *w)
{
	qkv_matrix_fini(&w->q_block);
	qkv_matrix_fini(&w->k_tile);
	qkv_matrix_fini(&w->v_tile);
	qkv_matrix_fini(&w->scores);
	qkv_matrix_fini(&w->part);
	free(w->max);
	free(w->sum);
	w->max = w->sum = NULL;
	w->bytes = 0;
}

/* One tile, keys first … first + count − 1, against the block's rows: S, the new
 * maxima and the rescaling of ℓ and O (the block's rows of out), P in place of
 * S, then O += P V_tile. The shapes fit the storage, so nothing fails. */
static void blocks_tile(struct qkv_online_blocks *w, const struct qkv_matrix *k, const struct qkv_matrix *v,
			double divisor, int rows, int from, int first, int count, struct qkv_matrix *out)
{
	(void)qkv_matrix_shape(&w->k_tile, w->d_k, count);
	(void)qkv_matrix_shape(&w->v_tile, count, w->d_v);
	(void)qkv_matrix_shape(&w->scores, rows, count);
	(void)qkv_matrix_shape(&w->part, rows, w->d_v);
	for (int j = 0; j < count; j++) {
		const double *k_j = qkv_matrix_row_const(k, first + j);

		for (int c = 0; c < w->d_k; c++)
			qkv_matrix_set(&w->k_tile, c, j, k_j[c]);
	}
	memcpy(w->v_tile.values, qkv_matrix_row_const(v, first), (size_t)count * (size_t)w->d_v * sizeof(double));
	(void)qkv_matrix_multiply_rows(&w->scores, &w->q_block, &w->k_tile, 0, rows);
	for (int r = 0; r < rows; r++) {
		double *s = qkv_matrix_row(&w->scores, r), *o = qkv_matrix_row(out, from + r);
		double max = w->max[r], rescale, sum = 0.0;

		for (int j = 0; j < count; j++) {
			s[j] /= divisor;
			if (s[j] > max)
				max = s[j];
		}
		rescale = isfinite(w->max[r]) ? exp(w->max[r] - max) : 0.0;
		for (int j = 0; j < count; j++) {
			s[j] = exp(s[j] - max);
			sum += s[j];
		}
		w->sum[r] = w->sum[r] * rescale + sum;
		w->max[r] = max;
		if (rescale != 1.0)
			for (int c = 0; c < w->d_v; c++)
				o[c] *= rescale;
	}
	(void)qkv_matrix_multiply_rows(&w->part, &w->scores, &w->v_tile, 0, rows);
	for (int r = 0; r < rows; r++) {
		double *o = qkv_matrix_row(out, from + r);
		const double *add = qkv_matrix_row_const(&w->part, r);

		for (int c = 0; c < w->d_v; c++)
			o[c] += add[c];
	}
}

void qkv_online_blocks_rows(struct qkv_online_blocks *w, const struct qkv_matrix *q,
			    const struct qkv_matrix *k, const struct qkv_matrix *v, double divisor,
			    int from, int to, struct qkv_matrix *out)
{
	int rows = to - from, n = k->rows;

	(void)qkv_matrix_shape(&w->q_block, rows, w->d_k);
	memcpy(w->q_block.values, qkv_matrix_row_const(q, from), (size_t)rows * (size_t)w->d_k * sizeof(double));
	memset(qkv_matrix_row(out, from), 0, (size_t)rows * (size_t)w->d_v * sizeof(double));
	for (int r = 0; r < rows; r++) {
		w->max[r] = -INFINITY;
		w->sum[r] = 0.0;
	}
	for (int first = 0; first < n; first += w->tile)
		blocks_tile(w, k, v, divisor, rows, from, first, first + w->tile <= n ? w->tile : n - first, out);
	for (int r = 0; r < rows; r++) {
		double *o = qkv_matrix_row(out, from + r);

		for (int c = 0; c < w->d_v; c++)
			o[c] /= w->sum[r];
	}
}
