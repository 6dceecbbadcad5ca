/* heads.c — multi-head attention. Each head is the single-head trace of its own
 * projections (qkv_attention on a borrowed view), so there is one forward pass;
 * this file only lays the heads side by side and applies W_O. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/buffer.h"
#include "qkv/error.h"
#include "qkv/format.h"
#include "qkv/heads.h"
#include "qkv/rng.h"

/* Streams of qkv_rng_cell_normal for random multi-head problems. */
enum { STREAM_X = 4, STREAM_W_O = 5, STREAM_HEADS = 16 };

void qkv_heads_trace_init(struct qkv_heads_trace *t)
{
	memset(t, 0, sizeof *t);
	qkv_matrix_init(&t->concat);
	qkv_matrix_init(&t->output);
	qkv_matrix_init(&t->scratch);
}

void qkv_heads_trace_fini(struct qkv_heads_trace *t)
{
	for (int i = 0; i < t->capacity; i++) {
		qkv_trace_fini(&t->head[i]);
		qkv_matrix_fini(&t->contrib[i]);
	}
	free(t->head);
	free(t->contrib);
	free(t->pattern);
	qkv_matrix_fini(&t->concat);
	qkv_matrix_fini(&t->output);
	qkv_matrix_fini(&t->scratch);
	qkv_heads_trace_init(t);
}

void qkv_problem_head_view(const struct qkv_problem *p, int i, struct qkv_problem *view)
{
	*view = *p;
	view->h = 0;
	view->heads = NULL;
	qkv_matrix_init(&view->w_o);
	view->form = QKV_FORM_PROJECTED;
	view->w_q = p->heads[i].w_q;
	view->w_k = p->heads[i].w_k;
	view->w_v = p->heads[i].w_v;
}

struct qkv_matrix *qkv_problem_head_input(struct qkv_problem *p, int i, enum qkv_grid which)
{
	if (p->h < 1 || i < 0 || i >= p->h)
		return NULL;
	switch (which) {
	case QKV_GRID_X: return &p->x;
	case QKV_GRID_X_Q: return qkv_problem_is_cross(p) ? &p->x_q : NULL;
	case QKV_GRID_W_Q: return &p->heads[i].w_q;
	case QKV_GRID_W_K: return &p->heads[i].w_k;
	case QKV_GRID_W_V: return &p->heads[i].w_v;
	case QKV_GRID_W_O: return &p->w_o;
	default: return NULL;
	}
}

static int reserve(struct qkv_heads_trace *t, int h)
{
	struct qkv_trace *head;
	struct qkv_matrix *contrib;
	struct qkv_pattern *pattern;

	if (h <= t->capacity)
		return 0;
	head = realloc(t->head, (size_t)h * sizeof *head);
	if (head == NULL)
		return QKV_ENOMEM;
	t->head = head;
	contrib = realloc(t->contrib, (size_t)h * sizeof *contrib);
	if (contrib == NULL)
		return QKV_ENOMEM;
	t->contrib = contrib;
	pattern = realloc(t->pattern, (size_t)h * sizeof *pattern);
	if (pattern == NULL)
		return QKV_ENOMEM;
	t->pattern = pattern;
	for (int i = t->capacity; i < h; i++) {
		qkv_trace_init(&t->head[i]);
		qkv_matrix_init(&t->contrib[i]);
	}
	t->capacity = h;
	return 0;
}

double qkv_heads_cost(const struct qkv_problem *p)
{
	double m = p->m, n = p->n, d_model = p->x.cols, d_k = qkv_problem_d_k(p);
	double d_v = qkv_problem_d_v(p), h = p->h;

	return h * ((m * d_k + n * (d_k + d_v)) * d_model + m * n * (d_k + d_v)) + m * h * d_v * d_model;
}

void qkv_pattern_of(const struct qkv_matrix *weights, const unsigned char *masked,
		    struct qkv_pattern *out)
{
	/* m queries by n keys; the diagonal and the previous key are those of the
	 * queries that have them (all of them in self-attention, m = n). */
	int m = weights->rows, n = weights->cols, live_rows = 0, diagonals = 0, previous_count = 0;
	double entropy = 0.0, previous = 0.0, diagonal = 0.0, first = 0.0;

	for (int i = 0; i < m; i++) {
		const double *a = qkv_matrix_row_const(weights, i);
		struct qkv_row_stats stats;

		qkv_row_stats_of(a, masked != NULL ? masked + (size_t)i * (size_t)n : NULL, n,
				 &stats);
		if (stats.live_keys > 0) {
			entropy += stats.entropy;
			live_rows++;
		}
		if (i < n) {
			diagonal += a[i];
			diagonals++;
		}
		first += a[0];
		if (i > 0 && i - 1 < n) {
			previous += a[i - 1];
			previous_count++;
		}
	}
	out->entropy = live_rows > 0 ? entropy / live_rows : 0.0;
	out->previous = previous_count > 0 ? previous / previous_count : 0.0;
	out->diagonal = diagonals > 0 ? diagonal / diagonals : 0.0;
	out->first = m > 0 ? first / m : 0.0;
}

int qkv_heads_attention(const struct qkv_problem *p, struct qkv_heads_trace *t)
{
	int rc = qkv_problem_check(p), h = p->h, m = p->m, d_v, d_model;

	t->h = 0;
	if (rc == 0 && h < 1)
		rc = QKV_EINVAL;
	if (rc == 0)
		rc = reserve(t, h);
	if (rc != 0)
		return rc;
	d_v = qkv_problem_d_v(p);
	d_model = p->x.cols;
	for (int i = 0; i < h && rc == 0; i++) {
		struct qkv_problem view;

		qkv_problem_head_view(p, i, &view);
		rc = qkv_attention(&view, &t->head[i]);
	}
	if (rc == 0)
		rc = qkv_matrix_zero(&t->concat, m, h * d_v);
	if (rc != 0)
		return rc;
	for (int i = 0; i < h; i++)
		for (int r = 0; r < m; r++)
			memcpy(qkv_matrix_row(&t->concat, r) + (size_t)i * (size_t)d_v,
			       qkv_matrix_row_const(&t->head[i].output, r),
			       (size_t)d_v * sizeof(double));
	rc = qkv_matrix_multiply(&t->output, &t->concat, &p->w_o);
	for (int i = 0; i < h && rc == 0; i++) {
		rc = qkv_matrix_set_all(&t->scratch, d_v, d_model,
					qkv_matrix_row_const(&p->w_o, i * d_v));
		if (rc == 0)
			rc = qkv_matrix_multiply(&t->contrib[i], &t->head[i].output, &t->scratch);
		if (rc == 0)
			qkv_pattern_of(&t->head[i].weights, t->head[i].masked, &t->pattern[i]);
	}
	if (rc != 0)
		return rc;
	t->m = m;
	t->n = p->n;
	t->cross = qkv_problem_is_cross(p);
	t->d_v = d_v;
	t->d_model = d_model;
	t->h = h;
	return 0;
}

/* Fills m with N(0, sd²) entries, each from its own cell of the stream: the
 * same seed gives the same numbers whatever the size. */
static void draw(struct qkv_matrix *m, uint64_t seed, uint32_t stream, double sd)
{
	for (int r = 0; r < m->rows; r++)
		for (int c = 0; c < m->cols; c++)
			qkv_matrix_set(m, r, c, sd * qkv_rng_cell_normal(seed, stream, (uint32_t)r,
									 (uint32_t)c));
}

int qkv_problem_random_heads(struct qkv_problem *p, int n, int h, int d_model,
			     uint64_t seed)
{
	struct qkv_problem fresh;
	double w_sd;
	int rc, d;

	if (n < 1 || h < 1 || d_model < 1 || d_model % h != 0)
		return QKV_EINVAL;
	if (n > QKV_MAX_TOKENS || h > QKV_MAX_HEADS || d_model > QKV_MAX_DIM)
		return QKV_ELIMIT;
	d = d_model / h;
	/* Tokens t1…tn come from a single-head draw, which is then made multi-head. */
	qkv_problem_init(&fresh);
	rc = qkv_problem_random(&fresh, n, 1, 1, seed);
	if (rc == 0)
		rc = qkv_problem_make_heads(&fresh, h);
	if (rc == 0)
		rc = qkv_matrix_zero(&fresh.x, n, d_model);
	if (rc == 0)
		rc = qkv_matrix_zero(&fresh.w_o, h * d, d_model);
	for (int i = 0; i < h && rc == 0; i++) {
		rc = qkv_matrix_zero(&fresh.heads[i].w_q, d_model, d);
		if (rc == 0)
			rc = qkv_matrix_zero(&fresh.heads[i].w_k, d_model, d);
		if (rc == 0)
			rc = qkv_matrix_zero(&fresh.heads[i].w_v, d_model, d);
	}
	if (rc != 0) {
		qkv_problem_fini(&fresh);
		return rc;
	}
	/* X is N(0, 1); every W is N(0, 1/d_model) (each has d_model inputs, W_O's
	 * being h·d_v = d_model), so Q, K and V have unit variance and the scaled
	 * scores S' = QKᵀ/√d_k have variance near 1, as in a trained model's start. */
	w_sd = 1.0 / sqrt((double)d_model);
	draw(&fresh.x, seed, STREAM_X, 1.0);
	draw(&fresh.w_o, seed, STREAM_W_O, w_sd);
	for (int i = 0; i < h; i++) {
		uint32_t base = STREAM_HEADS + 3u * (uint32_t)i;

		draw(&fresh.heads[i].w_q, seed, base, w_sd);
		draw(&fresh.heads[i].w_k, seed, base + 1, w_sd);
		draw(&fresh.heads[i].w_v, seed, base + 2, w_sd);
	}
	/* New columns of a multi-head problem are not drawn: it is not "seeded". */
	fresh.seeded = false;
	qkv_problem_fini(p);
	*p = fresh;
	return 0;
}

long long qkv_round_shares(const double *x, int count, int decimals, long long *units)
{
	double scale = pow(10.0, decimals), sum = 0.0;
	long long total, floors = 0;
	/* The sets of equal values: a member of each, its size, and what one unit more
	 * for every member is worth (the sum of their remainders). */
	int first[QKV_MAX_HEADS], members[QKV_MAX_HEADS], groups = 0, spare, best;
	double worth[QKV_MAX_HEADS], value[QKV_MAX_HEADS + 1];
	bool taken[QKV_MAX_HEADS][QKV_MAX_HEADS + 1];

	if (count > QKV_MAX_HEADS)
		count = QKV_MAX_HEADS;
	for (int i = 0; i < count; i++) {
		int g = 0;

		sum += x[i] * scale;
		units[i] = (long long)floor(x[i] * scale);
		floors += units[i];
		while (g < groups && x[first[g]] != x[i])
			g++;
		if (g == groups) {
			first[groups] = i;
			members[groups] = 0;
			worth[groups++] = 0.0;
		}
		members[g]++;
		worth[g] += x[i] * scale - (double)units[i];
	}
	total = llround(sum);
	/* 0 <= total − floors <= count spare units, one each, to the largest remainders,
	 * except that equal values take theirs together and stay equal: the sets whose
	 * sizes add up to the spare units with the
	 * largest remainders, by a knapsack over the sets. When no choice of sets
	 * adds up, each value is rounded to its nearest unit instead. */
	spare = (int)(total - floors);
	if (spare > count)
		spare = count;
	for (int k = 0; k <= spare; k++)
		value[k] = k == 0 ? 0.0 : -1.0;
	for (int g = 0; g < groups; g++)
		for (int k = spare; k >= 0; k--) {
			taken[g][k] = false;
			if (k >= members[g] && value[k - members[g]] >= 0.0 &&
			    value[k - members[g]] + worth[g] > value[k]) {
				value[k] = value[k - members[g]] + worth[g];
				taken[g][k] = true;
			}
		}
	best = spare < 0 ? 0 : spare;
	if (best > 0 && value[best] < 0.0) {
		/* No choice of sets adds up: every value to its nearest unit, equal
		 * values alike, and the units do not add up to the total. */
		for (int i = 0; i < count; i++)
			units[i] = llround(x[i] * scale);
		return total;
	}
	for (int g = groups - 1; g >= 0 && best > 0; g--)
		if (taken[g][best]) {
			for (int i = 0; i < count; i++)
				units[i] += x[i] == x[first[g]];
			best -= members[g];
		}
	return total;
}

/* A number of units of 10^-decimals as text. */
static void units_text(char *buf, size_t size, long long units, int decimals)
{
	qkv_format_number(buf, size, (double)units / pow(10.0, decimals), decimals);
}

int qkv_heads_derive(char *buf, size_t size, const struct qkv_problem *p,
		     const struct qkv_heads_trace *t, int stage, int row, int col, int decimals)
{
	char number[48];
	size_t length;
	int d_v = t->d_v;

	if (size == 0 || t->h < 1 || row < 0 || row >= t->m || decimals < 0 || decimals > 12)
		return -1;
	if (stage == 6) {
		int head, c;

		if (col < 0 || col >= t->concat.cols)
			return -1;
		head = col / d_v;
		c = col % d_v;
		qkv_format_number(number, sizeof number, qkv_matrix_get(&t->concat, row, col), decimals);
		if (d_v == 1)
			return snprintf(buf, size, "concat[%s, %d] = head %d's output[%s, d1] = %s: "
					"column %d of concat is head %d's output, as it came out of its "
					"attention", qkv_problem_query_label(p, row), col + 1, head + 1, qkv_problem_query_label(p, row),
					number, col + 1, head + 1);
		return snprintf(buf, size, "concat[%s, %d] = head %d's output[%s, d%d] = %s: columns "
				"%d–%d of concat are head %d's output, as it came out of its attention",
				qkv_problem_query_label(p, row), col + 1, head + 1, qkv_problem_query_label(p, row), c + 1, number,
				head * d_v + 1, head * d_v + d_v, head + 1);
	}
	if (stage != 7 || col < 0 || col >= t->output.cols || t->h > QKV_MAX_HEADS)
		return -1;
	{
		double shares[QKV_MAX_HEADS];
		long long units[QKV_MAX_HEADS], total, added = 0;

		for (int i = 0; i < t->h; i++)
			shares[i] = qkv_matrix_get(&t->contrib[i], row, col);
		total = qkv_round_shares(shares, t->h, decimals, units);
		length = (size_t)snprintf(buf, size, "out[%s, d%d] = Σ_k concat[%s, k] · W_O[k, d%d] = ",
					  qkv_problem_query_label(p, row), col + 1, qkv_problem_query_label(p, row), col + 1);
		for (int i = 0; i < t->h && length < size; i++) {
			units_text(number, sizeof number, units[i], decimals);
			length += (size_t)snprintf(buf + length, size - length, "%shead %d %s",
						   i > 0 ? " + " : "", i + 1, number);
		}
		for (int i = 0; i < t->h; i++)
			added += units[i];
		units_text(number, sizeof number, total, decimals);
		if (added != total) {
			/* Equal shares shown equal: then the shown shares cannot add up. */
			char shown[48];

			units_text(shown, sizeof shown, added, decimals);
			if (length < size)
				length += (size_t)snprintf(buf + length, size - length, " ≈ %s  (equal shares "
							   "are rounded alike, so the shares shown add up to "
							   "%s; ", number, shown);
		} else if (length < size)
			length += (size_t)snprintf(buf + length, size - length, " = %s  (", number);
		if (length < size)
			length += (size_t)snprintf(buf + length, size - length, "head i's share: its "
						   "output row · its %d row%s of W_O)", d_v, d_v == 1 ? "" : "s");
	}
	return length < size ? (int)length : (int)size - 1;
}

int qkv_heads_average(const struct qkv_heads_trace *t, struct qkv_matrix *avg,
		      struct qkv_pattern *out)
{
	int m = t->m, n = t->n, rc;

	if (t->h < 1)
		return QKV_EINVAL;
	rc = qkv_matrix_zero(avg, m, n);
	if (rc != 0)
		return rc;
	for (int i = 0; i < t->h; i++)
		for (size_t c = 0; c < (size_t)m * (size_t)n; c++)
			avg->values[c] += t->head[i].weights.values[c] / t->h;
	/* Every head has the same mask, so head 1's says which keys are hidden. */
	qkv_pattern_of(avg, t->head[0].masked, out);
	return 0;
}

/* True when every head's weights equal head 1's (to 1e-12): then the average is
 * that very pattern and loses nothing. */
static bool heads_weights_equal(const struct qkv_heads_trace *t)
{
	size_t count = (size_t)t->m * (size_t)t->n;

	for (int i = 1; i < t->h; i++)
		for (size_t c = 0; c < count; c++)
			if (fabs(t->head[i].weights.values[c] - t->head[0].weights.values[c]) > 1e-12)
				return false;
	return true;
}

static double pattern_score(const struct qkv_pattern *s, int k)
{
	return k == 0 ? s->previous : k == 1 ? s->diagonal : s->first;
}

int qkv_heads_average_words(char *buf, size_t size, const struct qkv_heads_trace *t,
			    const struct qkv_pattern *averaged, int decimals)
{
	static const char *const names[3] = { "the previous token", "itself", "the first token" };
	struct qkv_buffer out = { buf, size, 0 };

	if (size == 0 || t->h < 1)
		return -1;
	buf[0] = '\0';
	qkv_buffer_put(&out, "averaged into one pattern, the mean weight on ");
	/* Across two sequences only the first key is the same word for every query. */
	for (int k = t->cross ? 2 : 0; k < 3; k++) {
		double best = -1.0;
		char mine[32], top[32], v[32];
		int tied = 0, named = 0;

		for (int i = 0; i < t->h; i++)
			if (pattern_score(&t->pattern[i], k) > best)
				best = pattern_score(&t->pattern[i], k);
		qkv_format_number(mine, sizeof mine, pattern_score(averaged, k), decimals);
		qkv_format_number(top, sizeof top, best, decimals);
		/* Every head that shows the largest value is named: equal values together. */
		for (int i = 0; i < t->h; i++) {
			qkv_format_number(v, sizeof v, pattern_score(&t->pattern[i], k), decimals);
			tied += strcmp(v, top) == 0;
		}
		qkv_buffer_put(&out, "%s%s is %s (head%s ", k == 0 || t->cross ? "" : k == 1 ? ", on " : " and on ",
			       t->cross ? "the first key" : names[k], mine, tied > 1 ? "s" : "");
		for (int i = 0; i < t->h; i++) {
			qkv_format_number(v, sizeof v, pattern_score(&t->pattern[i], k), decimals);
			if (strcmp(v, top) != 0)
				continue;
			named++;
			qkv_buffer_put(&out, "%s%d", named == 1 ? "" : named == tied ? " and " : ", ", i + 1);
		}
		qkv_buffer_put(&out, ": %s)", top);
	}
	if (t->h == 1)
		qkv_buffer_put(&out, ": with one head the average is that head");
	else if (heads_weights_equal(t))
		qkv_buffer_put(&out, ": the %d heads have the same weights, so the average loses nothing "
				     "here", t->h);
	else
		qkv_buffer_put(&out, ": each head's pattern is diluted by the others, so no single pattern "
				     "does what the heads do side by side");
	return out.length < size ? (int)out.length : (int)size - 1;
}

int qkv_heads_cost_words(char *buf, size_t size, const struct qkv_heads_trace *t)
{
	long m = t->m, n = t->n, h = t->h, d_k = t->h > 0 ? t->head[0].d_k : 0;
	long scores = m * n * h, madds = h * m * n * d_k;
	bool square = m == n;
	int length;

	if (size == 0 || t->h < 1)
		return -1;
	length = snprintf(buf, size, "cost: %s·h = %ld scores a layer; Q Kᵀ: h·%s·d_k = %ld "
				     "multiply-adds, as for one head of width h·d_k = %ld%s",
			  square ? "n²" : "m·n", scores, square ? "n²" : "m·n", madds, h * d_k,
			  h * d_k == t->d_model ? " = d_model" : "");
	return length < (int)size ? length : (int)size - 1;
}
