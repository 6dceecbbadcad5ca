/* problem.c — building, copying, checking and reshaping attention problems.
 * Reshaping keeps every value a person typed. No printing, no files, no exit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/error.h"
#include "qkv/problem.h"
#include "qkv/rng.h"

/* Streams of qkv_rng_cell_normal, one per random matrix. */
enum { STREAM_Q = 1, STREAM_K = 2, STREAM_V = 3 };

static char *copy_string(const char *s)
{
	size_t length;
	char *copy;

	if (s == NULL)
		return NULL;
	length = strlen(s);
	copy = malloc(length + 1);
	if (copy != NULL)
		memcpy(copy, s, length + 1);
	return copy;
}

static struct qkv_matrix *matrix_of(struct qkv_problem *p, enum qkv_grid which)
{
	switch (which) {
	case QKV_GRID_Q: return &p->q;
	case QKV_GRID_K: return &p->k;
	case QKV_GRID_V: return &p->v;
	case QKV_GRID_X: return &p->x;
	case QKV_GRID_X_Q: return &p->x_q;
	case QKV_GRID_W_Q: return &p->w_q;
	case QKV_GRID_W_K: return &p->w_k;
	case QKV_GRID_W_V: return &p->w_v;
	case QKV_GRID_W_O: return &p->w_o;
	default: return NULL;
	}
}

/* Every matrix slot, whatever the form (the unused ones are empty). */
static const struct qkv_matrix *slot(const struct qkv_problem *p, enum qkv_grid which)
{
	return matrix_of((struct qkv_problem *)p, which);
}

void qkv_problem_init(struct qkv_problem *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		qkv_matrix_init(matrix_of(p, (enum qkv_grid)i));
	p->form = QKV_FORM_DIRECT;
	p->scale = QKV_SCALE_SQRT_DK;
	p->scale_value = 1.0;
	p->temperature = 1.0;
	p->mask = QKV_MASK_NONE;
	p->wrong = QKV_WRONG_NONE;
	p->h = 0;
	p->heads = NULL;
}

static void free_heads(struct qkv_problem *p)
{
	for (int i = 0; i < p->h && p->heads != NULL; i++) {
		qkv_matrix_fini(&p->heads[i].w_q);
		qkv_matrix_fini(&p->heads[i].w_k);
		qkv_matrix_fini(&p->heads[i].w_v);
	}
	free(p->heads);
	p->heads = NULL;
	p->h = 0;
}

int qkv_problem_make_heads(struct qkv_problem *p, int h)
{
	struct qkv_head *heads;

	if (h < 1)
		return QKV_EINVAL;
	if (h > QKV_MAX_HEADS)
		return QKV_ELIMIT;
	heads = calloc((size_t)h, sizeof *heads);
	if (heads == NULL)
		return QKV_ENOMEM;
	free_heads(p);
	for (int i = 0; i < h; i++) {
		qkv_matrix_init(&heads[i].w_q);
		qkv_matrix_init(&heads[i].w_k);
		qkv_matrix_init(&heads[i].w_v);
	}
	p->heads = heads;
	p->h = h;
	p->form = QKV_FORM_PROJECTED;
	qkv_matrix_fini(&p->q);
	qkv_matrix_fini(&p->k);
	qkv_matrix_fini(&p->v);
	qkv_matrix_fini(&p->w_q);
	qkv_matrix_fini(&p->w_k);
	qkv_matrix_fini(&p->w_v);
	return 0;
}

static void free_labels(char **labels, int count)
{
	if (labels != NULL)
		for (int i = 0; i < count; i++)
			free(labels[i]);
	free(labels);
}

static void free_tokens(struct qkv_problem *p)
{
	free_labels(p->tokens, p->n);
	p->tokens = NULL;
	free_labels(p->query_tokens, p->m);
	p->query_tokens = NULL;
}

void qkv_problem_fini(struct qkv_problem *p)
{
	free(p->title);
	free(p->notes);
	free_tokens(p);
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		qkv_matrix_fini(matrix_of(p, (enum qkv_grid)i));
	free(p->mask_bits);
	free(p->padding);
	free_heads(p);
	qkv_problem_init(p);
}

/* A copy of count labels (NULL for none); sets *failed when memory runs out. */
static char **copy_labels(char *const *labels, int count, bool *failed)
{
	char **copy;

	if (labels == NULL || count <= 0)
		return NULL;
	copy = calloc((size_t)count, sizeof *copy);
	if (copy == NULL) {
		*failed = true;
		return NULL;
	}
	for (int i = 0; i < count; i++) {
		copy[i] = copy_string(labels[i]);
		*failed |= labels[i] != NULL && copy[i] == NULL;
	}
	return copy;
}

static void *copy_bytes(const void *from, size_t size, bool *failed)
{
	void *to;

	if (from == NULL || size == 0)
		return NULL;
	to = malloc(size);
	if (to == NULL)
		*failed = true;
	else
		memcpy(to, from, size);
	return to;
}

int qkv_problem_copy(struct qkv_problem *dst, const struct qkv_problem *src)
{
	bool failed = false;
	size_t n = (size_t)src->n, m = (size_t)src->m;

	if (dst == src)
		return 0;
	qkv_problem_fini(dst);
	dst->form = src->form;
	dst->scale = src->scale;
	dst->scale_value = src->scale_value;
	dst->temperature = src->temperature;
	dst->mask = src->mask;
	dst->wrong = src->wrong;
	dst->seeded = src->seeded;
	dst->seed = src->seed;
	dst->title = copy_string(src->title);
	dst->notes = copy_string(src->notes);
	failed = (src->title != NULL && dst->title == NULL) ||
		 (src->notes != NULL && dst->notes == NULL);
	dst->tokens = copy_labels(src->tokens, src->n, &failed);
	dst->query_tokens = copy_labels(src->query_tokens, src->m, &failed);
	dst->n = src->n;
	dst->m = src->m;
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		failed |= qkv_matrix_copy(matrix_of(dst, (enum qkv_grid)i),
					  slot(src, (enum qkv_grid)i)) != 0;
	dst->mask_bits = copy_bytes(src->mask_bits, m * n, &failed);
	dst->padding = copy_bytes(src->padding, n, &failed);
	if (!failed && src->h > 0) {
		failed = qkv_problem_make_heads(dst, src->h) != 0;
		dst->form = src->form;
		for (int i = 0; !failed && i < src->h; i++)
			failed = qkv_matrix_copy(&dst->heads[i].w_q, &src->heads[i].w_q) != 0 ||
				 qkv_matrix_copy(&dst->heads[i].w_k, &src->heads[i].w_k) != 0 ||
				 qkv_matrix_copy(&dst->heads[i].w_v, &src->heads[i].w_v) != 0;
	}
	if (failed) {
		qkv_problem_fini(dst);
		return QKV_ENOMEM;
	}
	return 0;
}

static bool strings_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Bytes equal, where a missing array reads as all zeros. */
static bool bytes_equal(const unsigned char *a, const unsigned char *b, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if ((a != NULL ? a[i] : 0) != (b != NULL ? b[i] : 0))
			return false;
	return true;
}

bool qkv_problem_equal(const struct qkv_problem *a, const struct qkv_problem *b)
{
	size_t n = (size_t)a->n, m = (size_t)a->m;

	if (a->n != b->n || a->m != b->m || (a->query_tokens == NULL) != (b->query_tokens == NULL) ||
	    a->form != b->form || a->scale != b->scale ||
	    a->temperature != b->temperature || a->mask != b->mask || a->wrong != b->wrong ||
	    a->seeded != b->seeded || (a->seeded && a->seed != b->seed) ||
	    (a->scale == QKV_SCALE_CUSTOM && a->scale_value != b->scale_value))
		return false;
	if (!strings_equal(a->title, b->title) || !strings_equal(a->notes, b->notes))
		return false;
	for (int i = 0; i < a->n; i++)
		if (!strings_equal(a->tokens[i], b->tokens[i]))
			return false;
	for (int i = 0; a->query_tokens != NULL && i < a->m; i++)
		if (!strings_equal(a->query_tokens[i], b->query_tokens[i]))
			return false;
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		if (!qkv_matrix_equal(slot(a, (enum qkv_grid)i), slot(b, (enum qkv_grid)i)))
			return false;
	if (a->h != b->h)
		return false;
	for (int i = 0; i < a->h; i++)
		if (!qkv_matrix_equal(&a->heads[i].w_q, &b->heads[i].w_q) ||
		    !qkv_matrix_equal(&a->heads[i].w_k, &b->heads[i].w_k) ||
		    !qkv_matrix_equal(&a->heads[i].w_v, &b->heads[i].w_v))
			return false;
	return bytes_equal(a->padding, b->padding, n) &&
	       (a->mask != QKV_MASK_CUSTOM || bytes_equal(a->mask_bits, b->mask_bits, m * n));
}

/* count labels prefix1…prefix<count> into *labels (which must be NULL). */
static int default_labels(char ***labels, int count, char prefix)
{
	char label[16];

	*labels = calloc((size_t)count, sizeof **labels);
	if (*labels == NULL)
		return QKV_ENOMEM;
	for (int i = 0; i < count; i++) {
		snprintf(label, sizeof label, "%c%d", prefix, i + 1);
		(*labels)[i] = copy_string(label);
		if ((*labels)[i] == NULL)
			return QKV_ENOMEM;
	}
	return 0;
}

/* Gives p n tokens labelled t1…tn (p must have none), which are its queries too. */
static int default_tokens(struct qkv_problem *p, int n)
{
	int rc = default_labels(&p->tokens, n, 't');

	if (p->tokens != NULL) {
		p->n = n;
		p->m = n;
	}
	return rc;
}

int qkv_problem_worked_example(struct qkv_problem *p)
{
	static const double qk[] = { 1, 0, 0, 1, 1, 1 };
	static const double values[] = { 10, 0, 0, 10, 5, 5 };
	int rc;

	qkv_problem_fini(p);
	rc = default_tokens(p, 3);
	if (rc == 0)
		rc = qkv_matrix_set_all(&p->q, 3, 2, qk);
	if (rc == 0)
		rc = qkv_matrix_set_all(&p->k, 3, 2, qk);
	if (rc == 0)
		rc = qkv_matrix_set_all(&p->v, 3, 2, values);
	if (rc != 0)
		qkv_problem_fini(p);
	return rc;
}

/* Fills columns [from, to) of every row of m with the seed's draws for stream. */
static void draw_columns(struct qkv_matrix *m, uint64_t seed, uint32_t stream, int from, int to)
{
	for (int r = 0; r < m->rows; r++)
		for (int c = from; c < to; c++)
			qkv_matrix_set(m, r, c,
				       qkv_rng_cell_normal(seed, stream, (uint32_t)r, (uint32_t)c));
}

int qkv_problem_random(struct qkv_problem *p, int n, int d_k, int d_v, uint64_t seed)
{
	int rc;

	if (n < 1 || d_k < 1 || d_v < 1)
		return QKV_EINVAL;
	if (n > QKV_MAX_TOKENS || d_k > QKV_MAX_DIM || d_v > QKV_MAX_DIM)
		return QKV_ELIMIT;
	qkv_problem_fini(p);
	rc = default_tokens(p, n);
	if (rc == 0)
		rc = qkv_matrix_zero(&p->q, n, d_k);
	if (rc == 0)
		rc = qkv_matrix_zero(&p->k, n, d_k);
	if (rc == 0)
		rc = qkv_matrix_zero(&p->v, n, d_v);
	if (rc != 0) {
		qkv_problem_fini(p);
		return rc;
	}
	draw_columns(&p->q, seed, STREAM_Q, 0, d_k);
	draw_columns(&p->k, seed, STREAM_K, 0, d_k);
	draw_columns(&p->v, seed, STREAM_V, 0, d_v);
	p->seeded = true;
	p->seed = seed;
	return 0;
}

int qkv_problem_random_cross(struct qkv_problem *p, int m, int n, int d_k, int d_v, uint64_t seed)
{
	int rc;

	if (m < 1 || n < 1 || d_k < 1 || d_v < 1)
		return QKV_EINVAL;
	if (m > QKV_MAX_TOKENS || n > QKV_MAX_TOKENS)
		return QKV_ELIMIT;
	/* The draw of max(m, n) tokens, cut to m queries and n keys and values. */
	rc = qkv_problem_random(p, m > n ? m : n, d_k, d_v, seed);
	if (rc == 0)
		rc = qkv_problem_cut_cross(p, m, n);
	return rc;
}

int qkv_problem_cut_cross(struct qkv_problem *p, int m, int n)
{
	int rc;

	if (m < 1 || n < 1 || m > p->n || n > p->n || p->mask == QKV_MASK_CAUSAL)
		return QKV_EINVAL;
	rc = qkv_problem_make_cross(p);
	while (rc == 0 && p->m > m)
		rc = qkv_problem_remove_query(p, p->m - 1);
	while (rc == 0 && p->n > n)
		rc = qkv_problem_remove_token(p, p->n - 1);
	for (int i = 0; rc == 0 && i < m; i++) {
		char label[16];

		snprintf(label, sizeof label, "q%d", i + 1);
		rc = qkv_problem_set_query_label(p, i, label);
	}
	if (rc != 0)
		qkv_problem_fini(p);
	return rc;
}

bool qkv_problem_is_cross(const struct qkv_problem *p)
{
	return p->query_tokens != NULL;
}

const char *qkv_problem_query_label(const struct qkv_problem *p, int i)
{
	return p->query_tokens != NULL ? p->query_tokens[i] : p->tokens[i];
}

int qkv_problem_make_cross(struct qkv_problem *p)
{
	bool failed = false;
	char **labels;

	if (p->query_tokens != NULL || p->tokens == NULL || p->m != p->n)
		return QKV_EINVAL;
	labels = copy_labels(p->tokens, p->n, &failed);
	if (!failed && labels != NULL && p->form == QKV_FORM_PROJECTED &&
	    qkv_matrix_copy(&p->x_q, &p->x) != 0)
		failed = true;
	if (failed || labels == NULL) {
		free_labels(labels, p->n);
		qkv_matrix_fini(&p->x_q);
		qkv_matrix_init(&p->x_q);
		return QKV_ENOMEM;
	}
	p->query_tokens = labels;
	return 0;
}

int qkv_problem_d_k(const struct qkv_problem *p)
{
	if (p->h > 0)
		return p->heads[0].w_q.cols;
	return p->form == QKV_FORM_DIRECT ? p->q.cols : p->w_q.cols;
}

int qkv_problem_d_v(const struct qkv_problem *p)
{
	if (p->h > 0)
		return p->heads[0].w_v.cols;
	return p->form == QKV_FORM_DIRECT ? p->v.cols : p->w_v.cols;
}

int qkv_problem_d_model(const struct qkv_problem *p)
{
	return p->form == QKV_FORM_DIRECT ? 0 : p->x.cols;
}

struct qkv_matrix *qkv_problem_input(struct qkv_problem *p, enum qkv_grid which)
{
	bool direct = which <= QKV_GRID_V;

	if ((p->form == QKV_FORM_DIRECT) != direct)
		return NULL;
	if (which == QKV_GRID_X_Q && p->query_tokens == NULL)
		return NULL;
	if (which == QKV_GRID_W_O ? p->h == 0
				   : p->h > 0 && which >= QKV_GRID_W_Q && which <= QKV_GRID_W_V)
		return NULL;
	return matrix_of(p, which);
}

const struct qkv_matrix *qkv_problem_input_const(const struct qkv_problem *p,
						 enum qkv_grid which)
{
	return qkv_problem_input((struct qkv_problem *)p, which);
}

static const char *const mask_names[] = {
	[QKV_MASK_NONE] = "none", [QKV_MASK_CAUSAL] = "causal", [QKV_MASK_CUSTOM] = "custom",
};
_Static_assert(sizeof mask_names / sizeof *mask_names == QKV_MASK_CUSTOM + 1,
	       "a name for every mask");

static const char *const wrong_names[] = {
	[QKV_WRONG_NONE] = "none",
	[QKV_WRONG_MASK_AFTER_SOFTMAX] = "mask-after-softmax",
	[QKV_WRONG_COLUMN_SOFTMAX] = "column-softmax",
};
_Static_assert(sizeof wrong_names / sizeof *wrong_names == QKV_WRONG_COLUMN_SOFTMAX + 1,
	       "a name for every mistake");

const char *qkv_mask_name(enum qkv_mask mask)
{
	return (int)mask >= 0 && mask <= QKV_MASK_CUSTOM ? mask_names[mask] : "?";
}

const char *qkv_wrong_name(enum qkv_wrong wrong)
{
	return (int)wrong >= 0 && wrong <= QKV_WRONG_COLUMN_SOFTMAX ? wrong_names[wrong] : "?";
}

int qkv_mask_parse(const char *name, enum qkv_mask *mask)
{
	for (int i = 0; i <= QKV_MASK_CUSTOM; i++)
		if (strcmp(name, mask_names[i]) == 0) {
			*mask = (enum qkv_mask)i;
			return 0;
		}
	return -1;
}

int qkv_wrong_parse(const char *name, enum qkv_wrong *wrong)
{
	for (int i = 0; i <= QKV_WRONG_COLUMN_SOFTMAX; i++)
		if (strcmp(name, wrong_names[i]) == 0) {
			*wrong = (enum qkv_wrong)i;
			return 0;
		}
	return -1;
}

double qkv_problem_divisor(const struct qkv_problem *p)
{
	switch (p->scale) {
	case QKV_SCALE_NONE:
		return p->temperature;
	case QKV_SCALE_CUSTOM:
		return p->temperature * p->scale_value;
	case QKV_SCALE_SQRT_DK:
	default:
		return p->temperature * sqrt((double)qkv_problem_d_k(p));
	}
}

bool qkv_problem_is_masked(const struct qkv_problem *p, int query, int key)
{
	if (p->padding != NULL && p->padding[key])
		return true;
	switch (p->mask) {
	case QKV_MASK_CAUSAL:
		return key > query;
	case QKV_MASK_CUSTOM:
		return p->mask_bits != NULL && p->mask_bits[(size_t)query * (size_t)p->n + (size_t)key];
	case QKV_MASK_NONE:
	default:
		return false;
	}
}

static bool values_in_range(const struct qkv_matrix *m)
{
	size_t count = (size_t)m->rows * (size_t)m->cols;

	for (size_t i = 0; i < count; i++)
		if (!isfinite(m->values[i]) || fabs(m->values[i]) > QKV_MAX_VALUE)
			return false;
	return true;
}

static bool dim_ok(int d)
{
	return d >= 1 && d <= QKV_MAX_DIM;
}

static bool ratio_ok(double x)
{
	return isfinite(x) && x >= QKV_MIN_TEMPERATURE && x <= QKV_MAX_TEMPERATURE;
}

/* The shapes of a multi-head problem: X n×d_model, every head's W_Q and W_K
 * d_model×d_k and W_V d_model×d_v (one d_k, one d_v), W_O (h·d_v)×d_model. */
static int check_heads(const struct qkv_problem *p)
{
	int d_model = p->x.cols, d_k, d_v;

	if (p->form != QKV_FORM_PROJECTED || p->heads == NULL)
		return QKV_ESHAPE;
	if (p->h > QKV_MAX_HEADS)
		return QKV_ELIMIT;
	d_k = p->heads[0].w_q.cols;
	d_v = p->heads[0].w_v.cols;
	if (d_model > QKV_MAX_DIM || d_k > QKV_MAX_DIM || d_v > QKV_MAX_DIM ||
	    (long)p->h * d_v > QKV_MAX_DIM)
		return QKV_ELIMIT;
	if (p->x.rows != p->n || !dim_ok(d_model) || !dim_ok(d_k) || !dim_ok(d_v))
		return QKV_ESHAPE;
	if (p->query_tokens != NULL && (p->x_q.rows != p->m || p->x_q.cols != d_model))
		return QKV_ESHAPE;
	for (int i = 0; i < p->h; i++) {
		const struct qkv_head *head = &p->heads[i];

		if (head->w_q.rows != d_model || head->w_k.rows != d_model ||
		    head->w_v.rows != d_model || head->w_q.cols != d_k ||
		    head->w_k.cols != d_k || head->w_v.cols != d_v)
			return QKV_ESHAPE;
		if (!values_in_range(&head->w_q) || !values_in_range(&head->w_k) ||
		    !values_in_range(&head->w_v))
			return QKV_EINVAL;
	}
	if (p->w_o.rows != p->h * d_v || p->w_o.cols != d_model)
		return QKV_ESHAPE;
	if (!values_in_range(&p->w_o))
		return QKV_EINVAL;
	return 0;
}

int qkv_problem_check(const struct qkv_problem *p)
{
	int n = p->n, m = p->m;
	bool cross = p->query_tokens != NULL;

	if (n > QKV_MAX_TOKENS || m > QKV_MAX_TOKENS)
		return QKV_ELIMIT;
	if (n < 1 || m < 1 || p->tokens == NULL || (!cross && m != n))
		return QKV_ESHAPE;
	for (int i = 0; i < n; i++)
		if (p->tokens[i] == NULL)
			return QKV_ESHAPE;
	for (int i = 0; cross && i < m; i++)
		if (p->query_tokens[i] == NULL)
			return QKV_ESHAPE;
	/* X_q belongs to projected cross-attention alone. */
	if ((!cross || p->form == QKV_FORM_DIRECT) && (p->x_q.rows != 0 || p->x_q.cols != 0))
		return QKV_ESHAPE;
	if (p->mask == QKV_MASK_CAUSAL && m != n)
		return QKV_EINVAL;
	if (p->form == QKV_FORM_DIRECT) {
		if (p->q.cols > QKV_MAX_DIM || p->v.cols > QKV_MAX_DIM)
			return QKV_ELIMIT;
		if (p->q.rows != m || p->k.rows != n || p->v.rows != n ||
		    p->k.cols != p->q.cols || !dim_ok(p->q.cols) || !dim_ok(p->v.cols))
			return QKV_ESHAPE;
	} else if (p->h > 0) {
		int rc = check_heads(p);

		if (rc != 0)
			return rc;
	} else {
		int d_model = p->x.cols;

		if (d_model > QKV_MAX_DIM || p->w_q.cols > QKV_MAX_DIM || p->w_v.cols > QKV_MAX_DIM)
			return QKV_ELIMIT;
		if (p->x.rows != n || !dim_ok(d_model) || p->w_q.rows != d_model ||
		    (cross && (p->x_q.rows != m || p->x_q.cols != d_model)) ||
		    p->w_k.rows != d_model || p->w_v.rows != d_model ||
		    p->w_k.cols != p->w_q.cols || !dim_ok(p->w_q.cols) || !dim_ok(p->w_v.cols))
			return QKV_ESHAPE;
	}
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		if (!values_in_range(slot(p, (enum qkv_grid)i)))
			return QKV_EINVAL;
	if (!ratio_ok(p->temperature))
		return QKV_EINVAL;
	if (p->scale == QKV_SCALE_CUSTOM && !ratio_ok(p->scale_value))
		return QKV_EINVAL;
	if (p->mask == QKV_MASK_CUSTOM && p->mask_bits == NULL)
		return QKV_EINVAL;
	return 0;
}

/* Grows a byte array to new_count bytes (the new ones undefined; NULL stays
 * NULL); 0 or QKV_ENOMEM. */
static int grow_bytes(unsigned char **bytes, size_t new_count)
{
	unsigned char *grown;

	if (*bytes == NULL)
		return 0;
	grown = realloc(*bytes, new_count > 0 ? new_count : 1);
	if (grown == NULL)
		return QKV_ENOMEM;
	*bytes = grown;
	return 0;
}

/* Re-lays rows×cols mask bits (storage already grown) with a zero row inserted
 * before row_at and a zero column before col_at (either -1 for none), from the
 * last entry backwards so nothing is overwritten before it moves. */
static void bits_insert(unsigned char *bits, size_t rows, size_t cols, long row_at, long col_at)
{
	size_t new_cols = cols + (col_at >= 0), new_rows = rows + (row_at >= 0);

	for (size_t r = rows; r-- > 0;) {
		size_t to_row = row_at >= 0 && r >= (size_t)row_at ? r + 1 : r;

		for (size_t c = cols; c-- > 0;) {
			size_t to_col = col_at >= 0 && c >= (size_t)col_at ? c + 1 : c;

			bits[to_row * new_cols + to_col] = bits[r * cols + c];
		}
	}
	for (size_t i = 0; row_at >= 0 && i < new_cols; i++)
		bits[(size_t)row_at * new_cols + i] = 0;
	for (size_t i = 0; col_at >= 0 && i < new_rows; i++)
		bits[i * new_cols + (size_t)col_at] = 0;
}

/* Re-lays rows×cols mask bits without row row_at and column col_at (either -1). */
static void bits_remove(unsigned char *bits, size_t rows, size_t cols, long row_at, long col_at)
{
	size_t to = 0;

	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			if ((row_at < 0 || r != (size_t)row_at) && (col_at < 0 || c != (size_t)col_at))
				bits[to++] = bits[r * cols + c];
}

/* The rows that belong to a token: Q, K, V in the direct form, X in the projected
 * form; in cross-attention, where the queries are apart, K and V, or X. */
static int token_matrices(struct qkv_problem *p, struct qkv_matrix *out[3], uint32_t streams[3])
{
	int count = 0;

	if (p->form == QKV_FORM_DIRECT) {
		if (p->query_tokens == NULL) {
			streams[count] = STREAM_Q;
			out[count++] = &p->q;
		}
		streams[count] = STREAM_K;
		out[count++] = &p->k;
		streams[count] = STREAM_V;
		out[count++] = &p->v;
		return count;
	}
	streams[0] = 0;
	out[0] = &p->x;
	return 1;
}

/* Inserts a label before at into an array of count labels (NULL label: prefix and
 * count + 1). 0 or QKV_ENOMEM, with the array unchanged. */
static int labels_insert(char ***labels, int count, int at, const char *label, char prefix)
{
	char fallback[16], **grown, *name;

	if (label == NULL) {
		snprintf(fallback, sizeof fallback, "%c%d", prefix, count + 1);
		label = fallback;
	}
	name = copy_string(label);
	if (name == NULL)
		return QKV_ENOMEM;
	grown = realloc(*labels, ((size_t)count + 1) * sizeof *grown);
	if (grown == NULL) {
		free(name);
		return QKV_ENOMEM;
	}
	*labels = grown;
	memmove(grown + at + 1, grown + at, ((size_t)count - (size_t)at) * sizeof *grown);
	grown[at] = name;
	return 0;
}

static void labels_remove(char **labels, int count, int at)
{
	free(labels[at]);
	memmove(labels + at, labels + at + 1, ((size_t)count - (size_t)at - 1) * sizeof *labels);
}

/* Inserts a zero row before at in count matrices; 0 or QKV_ENOMEM (none changed). */
static int rows_insert(struct qkv_matrix *const *rows, int count, int at)
{
	for (int i = 0; i < count; i++) {
		if (qkv_matrix_insert_row(rows[i], at) != 0) {
			for (int j = 0; j < i; j++)
				qkv_matrix_remove_row(rows[j], at);
			return QKV_ENOMEM;
		}
	}
	return 0;
}

/* A random problem's new row: a fresh address per insertion, so it is a new draw. */
static void draw_row(const struct qkv_problem *p, struct qkv_matrix *m, uint32_t stream,
		     uint32_t address, int at)
{
	for (int c = 0; c < m->cols; c++)
		qkv_matrix_set(m, at, c, qkv_rng_cell_normal(p->seed, stream, address, (uint32_t)c));
}

int qkv_problem_insert_token(struct qkv_problem *p, int at, const char *label)
{
	struct qkv_matrix *rows[3];
	uint32_t streams[3];
	int count = token_matrices(p, rows, streams);
	bool cross = p->query_tokens != NULL;
	size_t n = (size_t)p->n, m = (size_t)p->m;

	if (at < 0 || at > p->n || (cross && p->mask == QKV_MASK_CAUSAL))
		return QKV_EINVAL;
	if (p->n + 1 > QKV_MAX_TOKENS)
		return QKV_ELIMIT;
	if (grow_bytes(&p->padding, n + 1) != 0 ||
	    grow_bytes(&p->mask_bits, (cross ? m : m + 1) * (n + 1)) != 0)
		return QKV_ENOMEM;
	if (labels_insert(&p->tokens, p->n, at, label, 't') != 0)
		return QKV_ENOMEM;
	if (rows_insert(rows, count, at) != 0) {
		labels_remove(p->tokens, p->n + 1, at);
		return QKV_ENOMEM;
	}
	if (p->padding != NULL) {
		memmove(p->padding + at + 1, p->padding + at, n - (size_t)at);
		p->padding[at] = 0;
	}
	if (p->mask_bits != NULL)
		bits_insert(p->mask_bits, m, n, cross ? -1 : at, at);
	p->n++;
	if (!cross)
		p->m++;
	if (p->seeded && p->form == QKV_FORM_DIRECT)
		for (int i = 0; i < count; i++)
			draw_row(p, rows[i], streams[i], 0x10000u + (uint32_t)p->n, at);
	return 0;
}

int qkv_problem_remove_token(struct qkv_problem *p, int at)
{
	struct qkv_matrix *rows[3];
	uint32_t streams[3];
	int count = token_matrices(p, rows, streams);
	bool cross = p->query_tokens != NULL;
	size_t n = (size_t)p->n;

	if (at < 0 || at >= p->n || p->n <= 1 || (cross && p->mask == QKV_MASK_CAUSAL))
		return QKV_EINVAL;
	for (int i = 0; i < count; i++)
		qkv_matrix_remove_row(rows[i], at);
	labels_remove(p->tokens, p->n, at);
	if (p->padding != NULL)
		memmove(p->padding + at, p->padding + at + 1, n - (size_t)at - 1);
	if (p->mask_bits != NULL)
		bits_remove(p->mask_bits, (size_t)p->m, n, cross ? -1 : at, at);
	p->n--;
	if (!cross)
		p->m--;
	return 0;
}

/* The queries' own rows in cross-attention: Q, or X_q. */
static struct qkv_matrix *query_matrix(struct qkv_problem *p)
{
	return p->form == QKV_FORM_DIRECT ? &p->q : &p->x_q;
}

int qkv_problem_insert_query(struct qkv_problem *p, int at, const char *label)
{
	struct qkv_matrix *rows[1] = { query_matrix(p) };
	size_t n = (size_t)p->n, m = (size_t)p->m;

	if (p->query_tokens == NULL || at < 0 || at > p->m || p->mask == QKV_MASK_CAUSAL)
		return QKV_EINVAL;
	if (p->m + 1 > QKV_MAX_TOKENS)
		return QKV_ELIMIT;
	if (grow_bytes(&p->mask_bits, (m + 1) * n) != 0)
		return QKV_ENOMEM;
	if (labels_insert(&p->query_tokens, p->m, at, label, 'q') != 0)
		return QKV_ENOMEM;
	if (rows_insert(rows, 1, at) != 0) {
		labels_remove(p->query_tokens, p->m + 1, at);
		return QKV_ENOMEM;
	}
	if (p->mask_bits != NULL)
		bits_insert(p->mask_bits, m, n, at, -1);
	p->m++;
	if (p->seeded && p->form == QKV_FORM_DIRECT)
		draw_row(p, rows[0], STREAM_Q, 0x20000u + (uint32_t)p->m, at);
	return 0;
}

int qkv_problem_remove_query(struct qkv_problem *p, int at)
{
	if (p->query_tokens == NULL || at < 0 || at >= p->m || p->m <= 1 ||
	    p->mask == QKV_MASK_CAUSAL)
		return QKV_EINVAL;
	qkv_matrix_remove_row(query_matrix(p), at);
	labels_remove(p->query_tokens, p->m, at);
	if (p->mask_bits != NULL)
		bits_remove(p->mask_bits, (size_t)p->m, (size_t)p->n, at, -1);
	p->m--;
	return 0;
}

/* Resizes the columns of the given matrices to d, drawing new columns when seeded. */
static int set_columns(struct qkv_problem *p, struct qkv_matrix *const *matrices,
		       const uint32_t *streams, int count, int d)
{
	int old = matrices[0]->cols;

	if (d < 1)
		return QKV_EINVAL;
	if (d > QKV_MAX_DIM)
		return QKV_ELIMIT;
	for (int i = 0; i < count; i++) {
		if (qkv_matrix_resize(matrices[i], matrices[i]->rows, d) != 0) {
			for (int j = 0; j < i; j++)
				qkv_matrix_resize(matrices[j], matrices[j]->rows, old);
			return QKV_ENOMEM;
		}
	}
	if (p->seeded && p->form == QKV_FORM_DIRECT && d > old)
		for (int i = 0; i < count; i++)
			draw_columns(matrices[i], p->seed, streams[i], old, d);
	return 0;
}

/* d_k, d_v or d_model of every head of a multi-head problem. A failed
 * allocation can leave the heads of different sizes, so it restores none and
 * the caller's copy is what is kept (the app edits a copy). */
static int set_head_size(struct qkv_problem *p, char which, int d)
{
	int h = p->h, old_d_v = qkv_problem_d_v(p);

	if (d < 1)
		return QKV_EINVAL;
	if (d > QKV_MAX_DIM || (which == 'v' && (long)h * d > QKV_MAX_DIM))
		return QKV_ELIMIT;
	for (int i = 0; i < h; i++) {
		struct qkv_head *head = &p->heads[i];
		int rc = 0;

		if (which == 'k') {
			rc = qkv_matrix_resize(&head->w_q, head->w_q.rows, d);
			if (rc == 0)
				rc = qkv_matrix_resize(&head->w_k, head->w_k.rows, d);
		} else if (which == 'v') {
			rc = qkv_matrix_resize(&head->w_v, head->w_v.rows, d);
		} else {
			rc = qkv_matrix_resize(&head->w_q, d, head->w_q.cols);
			if (rc == 0)
				rc = qkv_matrix_resize(&head->w_k, d, head->w_k.cols);
			if (rc == 0)
				rc = qkv_matrix_resize(&head->w_v, d, head->w_v.cols);
		}
		if (rc != 0)
			return rc;
	}
	if (which == 'm')
		return qkv_matrix_resize(&p->w_o, p->w_o.rows, d);
	if (which == 'v') {
		/* Each head's block of W_O rows grows or shrinks at its end. */
		for (int i = h; i-- > 0;) {
			int end = i * old_d_v + old_d_v;

			for (int r = old_d_v; r < d; r++)
				if (qkv_matrix_insert_row(&p->w_o, end++) != 0)
					return QKV_ENOMEM;
			for (int r = d; r < old_d_v; r++)
				qkv_matrix_remove_row(&p->w_o, i * old_d_v + d);
		}
	}
	return 0;
}

int qkv_problem_set_d_k(struct qkv_problem *p, int d_k)
{
	if (p->h > 0)
		return set_head_size(p, 'k', d_k);
	static const uint32_t streams[2] = { STREAM_Q, STREAM_K };
	struct qkv_matrix *direct[2] = { &p->q, &p->k };
	struct qkv_matrix *projected[2] = { &p->w_q, &p->w_k };

	return set_columns(p, p->form == QKV_FORM_DIRECT ? direct : projected, streams, 2, d_k);
}

int qkv_problem_draw_d_k(struct qkv_problem *p, int d_k, uint64_t seed)
{
	static const uint32_t streams[2] = { STREAM_Q, STREAM_K };
	struct qkv_matrix *m[2];
	int old;

	if (p->h > 0)
		return QKV_EINVAL;
	m[0] = p->form == QKV_FORM_DIRECT ? &p->q : &p->w_q;
	m[1] = p->form == QKV_FORM_DIRECT ? &p->k : &p->w_k;
	old = m[0]->cols;
	if (d_k < 1)
		return QKV_EINVAL;
	if (d_k > QKV_MAX_DIM)
		return QKV_ELIMIT;
	if (qkv_matrix_resize(m[0], m[0]->rows, d_k) != 0)
		return QKV_ENOMEM;
	if (qkv_matrix_resize(m[1], m[1]->rows, d_k) != 0) {
		qkv_matrix_resize(m[0], m[0]->rows, old);
		return QKV_ENOMEM;
	}
	for (int i = 0; i < 2 && d_k > old; i++)
		draw_columns(m[i], seed, streams[i], old, d_k);
	return 0;
}

int qkv_problem_set_d_v(struct qkv_problem *p, int d_v)
{
	static const uint32_t streams[1] = { STREAM_V };
	struct qkv_matrix *direct[1] = { &p->v };
	struct qkv_matrix *projected[1] = { &p->w_v };

	if (p->h > 0)
		return set_head_size(p, 'v', d_v);
	return set_columns(p, p->form == QKV_FORM_DIRECT ? direct : projected, streams, 1, d_v);
}

int qkv_problem_set_d_model(struct qkv_problem *p, int d_model)
{
	struct qkv_matrix *w[3] = { &p->w_q, &p->w_k, &p->w_v };
	int old_cols = p->x.cols;

	if (p->form != QKV_FORM_PROJECTED || d_model < 1)
		return QKV_EINVAL;
	if (d_model > QKV_MAX_DIM)
		return QKV_ELIMIT;
	if (qkv_matrix_resize(&p->x, p->x.rows, d_model) != 0)
		return QKV_ENOMEM;
	if (p->query_tokens != NULL && qkv_matrix_resize(&p->x_q, p->x_q.rows, d_model) != 0) {
		qkv_matrix_resize(&p->x, p->x.rows, old_cols);
		return QKV_ENOMEM;
	}
	if (p->h > 0)
		return set_head_size(p, 'm', d_model);
	for (int i = 0; i < 3; i++) {
		if (qkv_matrix_resize(w[i], d_model, w[i]->cols) != 0) {
			for (int j = 0; j < i; j++)
				qkv_matrix_resize(w[j], old_cols, w[j]->cols);
			qkv_matrix_resize(&p->x, p->x.rows, old_cols);
			if (p->query_tokens != NULL)
				qkv_matrix_resize(&p->x_q, p->x_q.rows, old_cols);
			return QKV_ENOMEM;
		}
	}
	return 0;
}

/* Replaces an owned string with a copy of value (NULL clears). */
static int replace_string(char **slot, const char *value)
{
	char *copy = copy_string(value);

	if (value != NULL && copy == NULL)
		return QKV_ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

int qkv_problem_set_label(struct qkv_problem *p, int token, const char *label)
{
	size_t length;

	if (token < 0 || token >= p->n || label == NULL)
		return QKV_EINVAL;
	length = strlen(label);
	if (length < 1 || length > QKV_MAX_LABEL)
		return QKV_EINVAL;
	return replace_string(&p->tokens[token], label);
}

int qkv_problem_set_query_label(struct qkv_problem *p, int query, const char *label)
{
	size_t length;

	if (p->query_tokens == NULL)
		return qkv_problem_set_label(p, query, label);
	if (query < 0 || query >= p->m || label == NULL)
		return QKV_EINVAL;
	length = strlen(label);
	if (length < 1 || length > QKV_MAX_LABEL)
		return QKV_EINVAL;
	return replace_string(&p->query_tokens[query], label);
}

int qkv_problem_set_title(struct qkv_problem *p, const char *title)
{
	return replace_string(&p->title, title);
}

int qkv_problem_set_notes(struct qkv_problem *p, const char *notes)
{
	return replace_string(&p->notes, notes);
}

int qkv_problem_set_mask(struct qkv_problem *p, enum qkv_mask mask)
{
	size_t n = (size_t)p->n, m = (size_t)p->m;

	if (mask == QKV_MASK_CAUSAL && p->m != p->n)
		return QKV_EINVAL;
	if (mask == QKV_MASK_CUSTOM && p->mask_bits == NULL) {
		p->mask_bits = calloc(m * n > 0 ? m * n : 1, 1);
		if (p->mask_bits == NULL)
			return QKV_ENOMEM;
		for (size_t r = 0; r < m; r++)
			for (size_t c = r + 1; c < n; c++)
				p->mask_bits[r * n + c] = 1;
	}
	p->mask = mask;
	return 0;
}
