/* attention.c — the five stages of softmax(Q Kᵀ / divisor) V, as one trace, with
 * the statistics the saturation readout needs. Storage is reused between calls.
 * Never prints; never gives NaN or Inf for a problem that passes qkv_problem_check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/attention.h"
#include "qkv/error.h"

const char *qkv_stage_name(enum qkv_stage stage)
{
	static const char *const names[QKV_STAGE_COUNT] = {
		"projections", "scores", "scaled", "weights", "mix", "output",
	};

	if ((int)stage < 0 || (int)stage >= QKV_STAGE_COUNT)
		return "?";
	return names[stage];
}

const char *qkv_stage_formula(enum qkv_stage stage)
{
	static const char *const formulas[QKV_STAGE_COUNT] = {
		"Q = X W_Q,  K = X W_K,  V = X W_V",
		"S = Q Kᵀ",
		"S' = S / d",
		"A = softmax(S') by rows",
		"a_ij · v_j",
		"O = A V",
	};

	if ((int)stage < 0 || (int)stage >= QKV_STAGE_COUNT)
		return "?";
	return formulas[stage];
}

const char *qkv_stage_formula_computed(enum qkv_stage stage, enum qkv_wrong wrong)
{
	if (stage == QKV_STAGE_WEIGHTS && wrong == QKV_WRONG_COLUMN_SOFTMAX)
		return "A = softmax(S') down the columns";
	if (stage == QKV_STAGE_WEIGHTS && wrong == QKV_WRONG_MASK_AFTER_SOFTMAX)
		return "A = softmax(S') over every key, then the mask";
	return qkv_stage_formula(stage);
}

const char *qkv_stage_formula_of(const struct qkv_problem *p, enum qkv_stage stage, bool computed)
{
	if (stage == QKV_STAGE_PROJECTIONS && qkv_problem_is_cross(p))
		return "Q = X_q W_Q,  K = X W_K,  V = X W_V";
	return computed ? qkv_stage_formula_computed(stage, p->wrong) : qkv_stage_formula(stage);
}

void qkv_trace_init(struct qkv_trace *t)
{
	memset(t, 0, sizeof *t);
	qkv_matrix_init(&t->q);
	qkv_matrix_init(&t->k);
	qkv_matrix_init(&t->v);
	qkv_matrix_init(&t->scores);
	qkv_matrix_init(&t->scaled);
	qkv_matrix_init(&t->weights);
	qkv_matrix_init(&t->output);
	qkv_matrix_init(&t->k_t);
}

void qkv_trace_fini(struct qkv_trace *t)
{
	qkv_matrix_fini(&t->q);
	qkv_matrix_fini(&t->k);
	qkv_matrix_fini(&t->v);
	qkv_matrix_fini(&t->scores);
	qkv_matrix_fini(&t->scaled);
	qkv_matrix_fini(&t->weights);
	qkv_matrix_fini(&t->output);
	qkv_matrix_fini(&t->k_t);
	free(t->masked);
	free(t->rows);
	free(t->moments);
	qkv_trace_init(t);
}

int qkv_softmax_row(const double *x, const unsigned char *hidden, int count, double *out)
{
	double max = -INFINITY, sum = 0.0;
	int live = 0;

	for (int j = 0; j < count; j++) {
		if (hidden != NULL && hidden[j])
			continue;
		if (x[j] > max)
			max = x[j];
		live++;
	}
	for (int j = 0; j < count; j++) {
		if (hidden != NULL && hidden[j]) {
			out[j] = 0.0;
			continue;
		}
		out[j] = exp(x[j] - max); /* ≤ 1, and the maximum gives exactly 1 */
		sum += out[j];
	}
	if (live == 0)
		return 0;
	for (int j = 0; j < count; j++)
		out[j] /= sum;
	return live;
}

/* ‖diag(a) − a aᵀ‖_F for a row summing to 1 over its live keys. Written around the
 * largest weight a_m, using 1 − a_m = Σ_{j≠m} a_j, so a nearly one-hot row keeps
 * its small norm instead of drowning it in rounding. */
static double jacobian_norm(const double *a, const unsigned char *hidden, int count, int m)
{
	double rest = 0.0, rest_squares = 0.0, am2, total;

	for (int j = 0; j < count; j++) {
		if (j == m || (hidden != NULL && hidden[j]))
			continue;
		rest += a[j];
		rest_squares += a[j] * a[j];
	}
	am2 = a[m] * a[m];
	/* Row m: (a_m − a_m²)² + a_m² Σ_{j≠m} a_j². */
	total = am2 * rest * rest + am2 * rest_squares;
	for (int i = 0; i < count; i++) {
		double ai2;

		if (i == m || (hidden != NULL && hidden[i]))
			continue;
		ai2 = a[i] * a[i];
		/* Row i: (a_i − a_i²)² + a_i² Σ_{j≠i} a_j². */
		total += ai2 * (1.0 - a[i]) * (1.0 - a[i]) + ai2 * (am2 + rest_squares - ai2);
	}
	return sqrt(total);
}

void qkv_row_stats_of(const double *a, const unsigned char *hidden, int count,
		      struct qkv_row_stats *stats)
{
	double entropy = 0.0, sum = 0.0;
	int m = -1, live = 0;

	for (int j = 0; j < count; j++) {
		if (hidden != NULL && hidden[j])
			continue;
		live++;
		sum += a[j];
		if (m < 0 || a[j] > a[m])
			m = j;
		if (a[j] > 0.0)
			entropy -= a[j] * log(a[j]);
	}
	stats->live_keys = live;
	stats->weight_sum = sum;
	stats->argmax = m;
	if (m < 0) {
		stats->max_weight = 0.0;
		stats->entropy = 0.0;
		stats->effective_tokens = 0.0;
		stats->jacobian_norm = 0.0;
		return;
	}
	stats->max_weight = a[m];
	stats->entropy = entropy > 0.0 ? entropy : 0.0;
	stats->effective_tokens = exp(stats->entropy);
	stats->jacobian_norm = jacobian_norm(a, hidden, count, m);
}

/* Makes room in the trace's per-row arrays for m queries of n keys. */
static int trace_reserve(struct qkv_trace *t, int m, int n)
{
	if ((size_t)m * (size_t)n > (size_t)t->masked_capacity) {
		unsigned char *masked = malloc((size_t)m * (size_t)n);

		if (masked == NULL)
			return QKV_ENOMEM;
		free(t->masked);
		t->masked = masked;
		t->masked_capacity = m * n;
	}
	if (m > t->rows_capacity) {
		struct qkv_row_stats *rows = malloc((size_t)m * sizeof *rows);
		double *moments = malloc((size_t)m * 3 * sizeof *moments);

		if (rows == NULL || moments == NULL) {
			free(rows);
			free(moments);
			return QKV_ENOMEM;
		}
		free(t->rows);
		free(t->moments);
		t->rows = rows;
		t->moments = moments;
		t->rows_capacity = m;
	}
	return 0;
}

/* The sequence the queries come from in the projected form: X_q in
 * cross-attention, X in self-attention. */
static const struct qkv_matrix *query_sequence(const struct qkv_problem *p)
{
	return qkv_problem_is_cross(p) ? &p->x_q : &p->x;
}

/* Q, K, V as used: copies in the direct form, products in the projected form. */
static int trace_inputs(const struct qkv_problem *p, struct qkv_trace *t)
{
	int rc;

	if (p->form == QKV_FORM_DIRECT) {
		rc = qkv_matrix_copy(&t->q, &p->q);
		if (rc == 0)
			rc = qkv_matrix_copy(&t->k, &p->k);
		if (rc == 0)
			rc = qkv_matrix_copy(&t->v, &p->v);
		return rc;
	}
	rc = qkv_matrix_multiply(&t->q, query_sequence(p), &p->w_q);
	if (rc == 0)
		rc = qkv_matrix_multiply(&t->k, &p->x, &p->w_k);
	if (rc == 0)
		rc = qkv_matrix_multiply(&t->v, &p->x, &p->w_v);
	return rc;
}

/* The wrong way on purpose: softmax down each column (over the queries that see
 * the key), so columns sum to 1 and rows do not. Uses k_t as n×m scratch. */
static int column_softmax(struct qkv_trace *t)
{
	int m = t->m, n = t->n, rc;
	unsigned char *hidden_column = t->masked; /* reread per column below */

	rc = qkv_matrix_transpose(&t->k_t, &t->scaled);
	if (rc != 0)
		return rc;
	for (int j = 0; j < n; j++) {
		double *column = qkv_matrix_row(&t->k_t, j);
		double max = -INFINITY, sum = 0.0;

		for (int i = 0; i < m; i++)
			if (!hidden_column[(size_t)i * (size_t)n + (size_t)j] && column[i] > max)
				max = column[i];
		for (int i = 0; i < m; i++) {
			double e = hidden_column[(size_t)i * (size_t)n + (size_t)j] ? 0.0
										: exp(column[i] - max);
			qkv_matrix_set(&t->weights, i, j, e);
			sum += e;
		}
		for (int i = 0; i < m; i++)
			if (sum > 0.0)
				qkv_matrix_set(&t->weights, i, j, qkv_matrix_get(&t->weights, i, j) / sum);
	}
	return 0;
}

/* Stage 3 for one query when the softmax runs along rows. */
static void weights_row(const struct qkv_problem *p, struct qkv_trace *t, int i)
{
	int n = t->n;
	const unsigned char *hidden = t->masked + (size_t)i * (size_t)n;
	double *row = qkv_matrix_row(&t->weights, i);

	if (p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX) {
		qkv_softmax_row(qkv_matrix_row_const(&t->scaled, i), NULL, n, row);
		for (int j = 0; j < n; j++)
			if (hidden[j])
				row[j] = 0.0;
	} else {
		qkv_softmax_row(qkv_matrix_row_const(&t->scaled, i), hidden, n, row);
	}
}

/* Stage 3 with the variant the problem asks for. */
static int trace_weights(const struct qkv_problem *p, struct qkv_trace *t)
{
	int rc = qkv_matrix_resize(&t->weights, t->m, t->n); /* every entry is written below */

	if (rc != 0)
		return rc;
	if (p->wrong == QKV_WRONG_COLUMN_SOFTMAX)
		return column_softmax(t);
	for (int i = 0; i < t->m; i++)
		weights_row(p, t, i);
	return 0;
}

/* Which keys each query cannot see: none at all without a mask or padding. */
static void trace_mask(const struct qkv_problem *p, struct qkv_trace *t, int m, int n)
{
	if (p->mask == QKV_MASK_NONE && p->padding == NULL) {
		memset(t->masked, 0, (size_t)m * (size_t)n);
		return;
	}
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++)
			t->masked[(size_t)i * (size_t)n + (size_t)j] = qkv_problem_is_masked(p, i, j);
}

/* Row i's share of the score variance: how many scaled entries softmax sees, their
 * sum, and their squared deviations from the row's own mean (two passes). */
static void row_moments(struct qkv_trace *t, int i)
{
	int n = t->n, count = 0;
	const double *x = qkv_matrix_row_const(&t->scaled, i);
	const unsigned char *masked = t->masked + (size_t)i * (size_t)n;
	double sum = 0.0, squares = 0.0, mean;

	for (int j = 0; j < n; j++)
		if (!masked[j]) {
			sum += x[j];
			count++;
		}
	mean = count > 0 ? sum / count : 0.0;
	for (int j = 0; j < n; j++)
		if (!masked[j]) {
			double d = x[j] - mean;
			squares += d * d;
		}
	t->moments[3 * i] = count;
	t->moments[3 * i + 1] = sum;
	t->moments[3 * i + 2] = squares;
}

/* Population variance of the scaled entries that softmax sees, from the rows'
 * moments combined as Chan, Golub and LeVeque do (Σ squares within rows, plus
 * Σ count·(row mean − mean)²): stable, and a changed row costs one row. */
static double unmasked_variance(const struct qkv_trace *t)
{
	double count = 0.0, sum = 0.0, squares = 0.0, mean;

	for (int i = 0; i < t->m; i++) {
		count += t->moments[3 * i];
		sum += t->moments[3 * i + 1];
	}
	if (count == 0.0)
		return 0.0;
	mean = sum / count;
	for (int i = 0; i < t->m; i++) {
		double c = t->moments[3 * i], d;

		if (c == 0.0)
			continue;
		d = t->moments[3 * i + 1] / c - mean;
		squares += t->moments[3 * i + 2] + c * d * d;
	}
	return squares / count;
}

/* Stages 1 to 5 and the statistics from the trace's Q, K, V and mask. */
static int trace_stages(const struct qkv_problem *p, struct qkv_trace *t)
{
	int m = t->m, n = t->n;
	/* Stages 1 and 2: S = Q Kᵀ via a transposed copy of K, then S / divisor. */
	int rc = qkv_matrix_transpose(&t->k_t, &t->k);

	if (rc == 0)
		rc = qkv_matrix_multiply(&t->scores, &t->q, &t->k_t);
	if (rc == 0)
		rc = qkv_matrix_copy(&t->scaled, &t->scores);
	if (rc == 0) {
		size_t total = (size_t)m * (size_t)n;
		double divisor = t->divisor, *scaled = t->scaled.values;

		for (size_t i = 0; i < total; i++)
			scaled[i] /= divisor;
		rc = trace_weights(p, t);
	}
	/* Stages 4 and 5: O = A V (the mix terms are read on demand). */
	if (rc == 0)
		rc = qkv_matrix_multiply(&t->output, &t->weights, &t->v);
	if (rc != 0) {
		t->n = 0;
		t->m = 0;
		return rc;
	}
	for (int i = 0; i < m; i++) {
		qkv_row_stats_of(qkv_matrix_row_const(&t->weights, i),
				 t->masked + (size_t)i * (size_t)n, n, &t->rows[i]);
		row_moments(t, i);
	}
	t->score_variance = unmasked_variance(t);
	return 0;
}

int qkv_attention(const struct qkv_problem *p, struct qkv_trace *t)
{
	int rc = qkv_problem_check(p);
	int m = p->m, n = p->n;

	t->n = 0;
	t->m = 0;
	if (rc == 0 && p->h > 0)
		rc = QKV_EINVAL; /* a multi-head problem: qkv_heads_attention, head by head */
	if (rc != 0)
		return rc;
	rc = trace_reserve(t, m, n);
	if (rc == 0)
		rc = trace_inputs(p, t);
	if (rc != 0)
		return rc;
	t->d_k = t->q.cols;
	t->d_v = t->v.cols;
	t->divisor = qkv_problem_divisor(p);
	trace_mask(p, t, m, n);
	t->m = m;
	t->n = n;
	return trace_stages(p, t);
}

/* --- one cell at a time ---------------------------------------------------------
 * Each entry below is recomputed by the same operations, in the same order, as in
 * trace_stages: S_ij = 0 + q_i1·k_j1 + q_i2·k_j2 + … term by term (as
 * qkv_matrix_multiply adds them), S'_ij = S_ij / divisor, the same softmax and
 * statistics per row, and rows or columns of products through the matrix module's
 * single-row and single-column products. So an updated trace is bit-for-bit the
 * full one, which the tests check after thousands of random edits. */

/* S_ij and S'_ij again from the trace's Q and K. */
static void score_entry(struct qkv_trace *t, int i, int j)
{
	const double *q_i = qkv_matrix_row_const(&t->q, i), *k_j = qkv_matrix_row_const(&t->k, j);
	double sum = 0.0;

	for (int c = 0; c < t->d_k; c++)
		sum += q_i[c] * k_j[c];
	qkv_matrix_set(&t->scores, i, j, sum);
	qkv_matrix_set(&t->scaled, i, j, sum / t->divisor);
}

/* Stage 3 on, after the scores of query `row` changed (row >= 0) or those of many
 * queries (row < 0). Only a softmax by rows keeps a row's change in its row. */
static int trace_from_scaled(const struct qkv_problem *p, struct qkv_trace *t, int row)
{
	int n = t->n, rc;

	if (row >= 0)
		row_moments(t, row);
	else
		for (int i = 0; i < t->m; i++)
			row_moments(t, i);
	if (row >= 0 && p->wrong != QKV_WRONG_COLUMN_SOFTMAX) {
		weights_row(p, t, row);
		rc = qkv_matrix_multiply_row(&t->output, &t->weights, &t->v, row);
		qkv_row_stats_of(qkv_matrix_row_const(&t->weights, row),
				 t->masked + (size_t)row * (size_t)n, n, &t->rows[row]);
	} else {
		rc = trace_weights(p, t);
		if (rc == 0)
			rc = qkv_matrix_multiply(&t->output, &t->weights, &t->v);
		for (int i = 0; rc == 0 && i < t->m; i++)
			qkv_row_stats_of(qkv_matrix_row_const(&t->weights, i),
					 t->masked + (size_t)i * (size_t)n, n, &t->rows[i]);
	}
	if (rc != 0) {
		t->n = 0;
		t->m = 0;
		return rc;
	}
	t->score_variance = unmasked_variance(t);
	return 0;
}

/* The new scores of query i (its row of Q moved): through Kᵀ as the full product
 * runs, while k_t holds Kᵀ (the column softmax reuses it as scratch). */
static void scores_of_query(const struct qkv_problem *p, struct qkv_trace *t, int i)
{
	if (p->wrong != QKV_WRONG_COLUMN_SOFTMAX &&
	    qkv_matrix_multiply_row(&t->scores, &t->q, &t->k_t, i) == 0) {
		const double *scores = qkv_matrix_row_const(&t->scores, i);
		double *scaled = qkv_matrix_row(&t->scaled, i);

		for (int j = 0; j < t->n; j++)
			scaled[j] = scores[j] / t->divisor;
		return;
	}
	for (int j = 0; j < t->n; j++)
		score_entry(t, i, j);
}

/* The new scores of key j (its row of K moved); Kᵀ follows. */
static void scores_of_key(struct qkv_trace *t, int j)
{
	for (int c = 0; c < t->d_k; c++)
		qkv_matrix_set(&t->k_t, c, j, qkv_matrix_get(&t->k, j, c));
	for (int i = 0; i < t->m; i++)
		score_entry(t, i, j);
}

/* True when t is a computed trace with p's sizes, form and divisor, so that one
 * changed cell of p is all that separates them. */
static bool trace_matches(const struct qkv_problem *p, const struct qkv_trace *t)
{
	return t->n > 0 && t->n == p->n && t->m == p->m && t->d_k == qkv_problem_d_k(p) &&
	       t->d_v == qkv_problem_d_v(p) && t->divisor == qkv_problem_divisor(p) &&
	       t->k_t.rows == t->d_k && t->k_t.cols == t->n;
}

int qkv_attention_update(const struct qkv_problem *p, struct qkv_trace *t, enum qkv_grid which,
			 int row, int col)
{
	const struct qkv_matrix *changed = qkv_problem_input_const(p, which);
	double value;
	int rc;

	if (changed == NULL || row < 0 || row >= changed->rows || col < 0 || col >= changed->cols ||
	    !trace_matches(p, t))
		return qkv_attention(p, t);
	/* The rest of p passed qkv_problem_check when t was computed. */
	value = qkv_matrix_get(changed, row, col);
	if (!isfinite(value) || fabs(value) > QKV_MAX_VALUE) {
		t->n = 0;
		t->m = 0;
		return QKV_EINVAL;
	}
	switch (which) {
	case QKV_GRID_Q: /* one query's scores, so its row of everything */
		qkv_matrix_set(&t->q, row, col, qkv_matrix_get(changed, row, col));
		scores_of_query(p, t, row);
		return trace_from_scaled(p, t, row);
	case QKV_GRID_K: /* one key's scores in every row, so every softmax */
		qkv_matrix_set(&t->k, row, col, qkv_matrix_get(changed, row, col));
		scores_of_key(t, row);
		return trace_from_scaled(p, t, -1);
	case QKV_GRID_V: /* the weights stay; one column of the output moves */
		qkv_matrix_set(&t->v, row, col, qkv_matrix_get(changed, row, col));
		return qkv_matrix_multiply_col(&t->output, &t->weights, &t->v, col);
	case QKV_GRID_X: /* one token's q, k and v: its scores row and column */
		rc = qkv_problem_is_cross(p) ? 0 : qkv_matrix_multiply_row(&t->q, &p->x, &p->w_q, row);
		if (rc == 0)
			rc = qkv_matrix_multiply_row(&t->k, &p->x, &p->w_k, row);
		if (rc == 0)
			rc = qkv_matrix_multiply_row(&t->v, &p->x, &p->w_v, row);
		if (rc != 0)
			break;
		scores_of_key(t, row); /* Kᵀ first: the query's row reads it */
		if (!qkv_problem_is_cross(p)) /* in cross-attention the token is no query */
			scores_of_query(p, t, row);
		return trace_from_scaled(p, t, -1);
	case QKV_GRID_X_Q: /* one query's q: its row of everything */
		rc = qkv_matrix_multiply_row(&t->q, &p->x_q, &p->w_q, row);
		if (rc != 0)
			break;
		scores_of_query(p, t, row);
		return trace_from_scaled(p, t, row);
	case QKV_GRID_W_Q: /* a column of every query: every score */
		rc = qkv_matrix_multiply_col(&t->q, query_sequence(p), &p->w_q, col);
		return rc == 0 ? trace_stages(p, t) : rc;
	case QKV_GRID_W_K: /* a column of every key: every score */
		rc = qkv_matrix_multiply_col(&t->k, &p->x, &p->w_k, col);
		return rc == 0 ? trace_stages(p, t) : rc;
	case QKV_GRID_W_V: /* a column of every value: one column of the output */
		rc = qkv_matrix_multiply_col(&t->v, &p->x, &p->w_v, col);
		if (rc == 0)
			rc = qkv_matrix_multiply_col(&t->output, &t->weights, &t->v, col);
		break;
	default:
		return qkv_attention(p, t);
	}
	if (rc != 0) {
		t->n = 0;
		t->m = 0;
	}
	return rc;
}

double qkv_attention_update_cost(const struct qkv_problem *p, enum qkv_grid which)
{
	double m = p->m, n = p->n, d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p);
	double d_model = qkv_problem_d_model(p);
	/* Every row's softmax and statistics, A V, and the variance: what a change of
	 * every score row costs after the scores themselves. */
	double rows = m * n * (d_v + 3.0);
	double whole = m * n * (d_k + d_v + 3.0) + (m * d_k + n * (d_k + d_v)) * d_model;

	switch (which) {
	case QKV_GRID_Q:
		return p->wrong == QKV_WRONG_COLUMN_SOFTMAX ? n * d_k + rows : n * (d_k + d_v + 3.0);
	case QKV_GRID_X_Q:
		return d_model * d_k + (p->wrong == QKV_WRONG_COLUMN_SOFTMAX ? n * d_k + rows
									      : n * (d_k + d_v + 3.0));
	case QKV_GRID_K:
		return m * d_k + rows;
	case QKV_GRID_V:
		return m * n;
	case QKV_GRID_X:
		return d_model * (2.0 * d_k + d_v) + (m + n) * d_k + rows;
	case QKV_GRID_W_V:
		return n * d_model + m * n;
	case QKV_GRID_W_Q:
	case QKV_GRID_W_K:
	default:
		return whole;
	}
}

double qkv_trace_mix(const struct qkv_trace *t, int query, int key, int col)
{
	return qkv_matrix_get(&t->weights, query, key) * qkv_matrix_get(&t->v, key, col);
}

bool qkv_trace_mix_adds_up(const struct qkv_trace *t, int query, int col, int decimals)
{
	double scale = pow(10.0, decimals);
	long long shown = 0;

	for (int j = 0; j < t->n; j++)
		if (!qkv_trace_is_masked(t, query, j))
			shown += llround(qkv_trace_mix(t, query, j, col) * scale);
	return shown == llround(qkv_matrix_get(&t->output, query, col) * scale);
}

double qkv_trace_column_sum(const struct qkv_trace *t, int key)
{
	double sum = 0.0;

	for (int i = 0; i < t->m; i++)
		sum += qkv_matrix_get(&t->weights, i, key);
	return sum;
}
