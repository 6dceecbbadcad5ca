/* train.c — the toy tasks, backpropagation through one attention head, SGD and
 * Adam, and the steps-to-90% sweep. The forward pass is qkv_attention()'s trace;
 * the backward pass is written out stage by stage in double precision. Never
 * prints; every run is a function of its configuration and seed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv/error.h"
#include "qkv/buffer.h"
#include "qkv/format.h"
#include "qkv/rng.h"
#include "qkv/train.h"

static const char *const task_names[QKV_TASK_COUNT] = { "lookup", "previous", "self" };

const char *qkv_task_name(enum qkv_task task)
{
	return (int)task >= 0 && task < QKV_TASK_COUNT ? task_names[task] : "?";
}

const char *qkv_loss_name(enum qkv_loss loss)
{
	return loss == QKV_LOSS_MSE ? "mse" : loss == QKV_LOSS_XENT ? "xent" : "?";
}

const char *qkv_optimizer_name(enum qkv_optimizer optimizer)
{
	return optimizer == QKV_OPTIMIZER_SGD ? "sgd" : optimizer == QKV_OPTIMIZER_ADAM ? "adam" : "?";
}

int qkv_task_parse(const char *name)
{
	for (int i = 0; i < QKV_TASK_COUNT; i++)
		if (strcmp(name, task_names[i]) == 0)
			return i;
	return -1;
}

int qkv_loss_parse(const char *name)
{
	if (strcmp(name, "mse") == 0)
		return QKV_LOSS_MSE;
	if (strcmp(name, "xent") == 0)
		return QKV_LOSS_XENT;
	return -1;
}

int qkv_optimizer_parse(const char *name)
{
	if (strcmp(name, "sgd") == 0)
		return QKV_OPTIMIZER_SGD;
	if (strcmp(name, "adam") == 0)
		return QKV_OPTIMIZER_ADAM;
	return -1;
}

const char *qkv_weight_name(enum qkv_weight weight)
{
	static const char *const names[QKV_WEIGHT_COUNT] = { "W_Q", "W_K", "W_V" };

	return (int)weight >= 0 && weight < QKV_WEIGHT_COUNT ? names[weight] : "?";
}

/* Code parts of X before the value part: lookup has a query and a key code. */
static int code_parts(enum qkv_task task)
{
	return task == QKV_TASK_LOOKUP ? 2 : 1;
}

int qkv_train_default_d_model(enum qkv_task task, int tokens)
{
	return code_parts(task) * 2 * tokens + tokens;
}

int qkv_train_min_d_model(enum qkv_task task, int tokens)
{
	return code_parts(task) + tokens;
}

double qkv_train_default_lr(enum qkv_loss loss, enum qkv_optimizer optimizer)
{
	if (optimizer == QKV_OPTIMIZER_ADAM)
		return 0.01;
	(void)loss;
	return 1.0;
}

int qkv_train_default_steps(enum qkv_loss loss, enum qkv_optimizer optimizer)
{
	(void)loss;
	(void)optimizer;
	return 500;
}

double qkv_train_loss_floor(const struct qkv_train_config *c)
{
	if (c->loss != QKV_LOSS_XENT || (c->learn & QKV_LEARN_W_V) || c->tokens < 2)
		return 0.0;
	return log1p((c->tokens - 1) / exp(1.0));
}

void qkv_train_config_default(struct qkv_train_config *c, enum qkv_task task)
{
	memset(c, 0, sizeof *c);
	c->task = task;
	c->tokens = 8;
	c->d_model = qkv_train_default_d_model(task, c->tokens);
	c->d_k = 16;
	c->scaled = true;
	c->temperature = 1.0;
	c->mask = QKV_MASK_NONE;
	c->loss = QKV_LOSS_MSE;
	c->optimizer = QKV_OPTIMIZER_SGD;
	c->learn = QKV_LEARN_W_Q | QKV_LEARN_W_K;
	c->lr = qkv_train_default_lr(c->loss, c->optimizer);
	c->steps = qkv_train_default_steps(c->loss, c->optimizer);
	c->seed = 1;
}

int qkv_train_config_check(const struct qkv_train_config *c)
{
	if ((int)c->task < 0 || c->task >= QKV_TASK_COUNT)
		return QKV_EINVAL;
	if (c->tokens < 2 || c->tokens > QKV_TRAIN_MAX_TOKENS)
		return QKV_EINVAL;
	if (c->d_model < qkv_train_min_d_model(c->task, c->tokens) || c->d_model > QKV_MAX_DIM)
		return QKV_EINVAL;
	if (c->d_k < 1 || c->d_k > QKV_MAX_DIM)
		return QKV_EINVAL;
	if (!(c->temperature >= QKV_MIN_TEMPERATURE && c->temperature <= QKV_MAX_TEMPERATURE))
		return QKV_EINVAL;
	if (c->mask != QKV_MASK_NONE && c->mask != QKV_MASK_CAUSAL)
		return QKV_EINVAL;
	if (c->loss != QKV_LOSS_MSE && c->loss != QKV_LOSS_XENT)
		return QKV_EINVAL;
	if (c->optimizer != QKV_OPTIMIZER_SGD && c->optimizer != QKV_OPTIMIZER_ADAM)
		return QKV_EINVAL;
	if (c->learn == 0 || (c->learn & ~(QKV_LEARN_W_Q | QKV_LEARN_W_K | QKV_LEARN_W_V)) != 0)
		return QKV_EINVAL;
	if (!(c->lr > 0.0 && c->lr <= 1e6))
		return QKV_EINVAL;
	if (c->steps < 1 || c->steps > QKV_TRAIN_MAX_STEPS)
		return QKV_EINVAL;
	return 0;
}

double qkv_train_step_work(const struct qkv_train_config *c)
{
	double n = c->tokens, d_model = c->d_model, d_k = c->d_k, d_v = c->tokens;

	return 2.0 * n * d_model * (3.0 * d_k + 2.0 * d_v) + n * n * (2.0 * d_k + 2.0 * d_v);
}

/* A uniformly random permutation of 0..n−1 (Fisher–Yates). */
static void shuffle(struct qkv_rng *rng, int *perm, int n)
{
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(qkv_rng_uniform(rng) * (double)(i + 1));
		int swap = perm[i];

		perm[i] = perm[j];
		perm[j] = swap;
	}
}

/* ±1 with equal probability. */
static double random_sign(struct qkv_rng *rng)
{
	return (qkv_rng_next(rng) >> 63) != 0 ? 1.0 : -1.0;
}

/* A projection of N(0, 1/d_model) entries, each addressed by (seed, matrix, row,
 * column), so a larger d_k appends columns and keeps the first ones. */
static void draw_weight(struct qkv_matrix *w, uint64_t seed, uint32_t stream)
{
	double sd = 1.0 / sqrt((double)w->rows);

	for (int r = 0; r < w->rows; r++)
		for (int c = 0; c < w->cols; c++)
			qkv_matrix_set(w, r, c, sd * qkv_rng_cell_normal(seed, stream, (uint32_t)r,
									 (uint32_t)c));
}

int qkv_train_task(const struct qkv_train_config *c, struct qkv_problem *p,
		   struct qkv_matrix *target)
{
	int n = c->tokens, parts = code_parts(c->task);
	int code = (c->d_model - n) / parts; /* entries per code part */
	int value_at = parts * code;         /* first column of the value part */
	int key_at = parts == 2 ? code : 0;  /* lookup: [query | key | value]; else [code | value] */
	int perm[QKV_TRAIN_MAX_TOKENS], classes[QKV_TRAIN_MAX_TOKENS], source[QKV_TRAIN_MAX_TOKENS];
	struct qkv_rng rng;
	int rc = qkv_train_config_check(c);

	if (rc != 0)
		return rc;
	qkv_problem_fini(p);
	p->form = QKV_FORM_PROJECTED;
	p->n = n;
	p->m = n;
	p->tokens = calloc((size_t)n, sizeof *p->tokens);
	if (p->tokens == NULL)
		return QKV_ENOMEM;
	for (int i = 0; i < n; i++) {
		char label[16];
		int length = snprintf(label, sizeof label, "t%d", i + 1);

		p->tokens[i] = malloc((size_t)length + 1);
		if (p->tokens[i] == NULL) {
			qkv_problem_fini(p);
			return QKV_ENOMEM;
		}
		memcpy(p->tokens[i], label, (size_t)length + 1);
	}
	rc = qkv_matrix_zero(&p->x, n, c->d_model);
	if (rc == 0)
		rc = qkv_matrix_zero(&p->w_q, c->d_model, c->d_k);
	if (rc == 0)
		rc = qkv_matrix_zero(&p->w_k, c->d_model, c->d_k);
	if (rc == 0)
		rc = qkv_matrix_zero(&p->w_v, c->d_model, n);
	if (rc == 0)
		rc = qkv_matrix_zero(target, n, n);
	if (rc != 0) {
		qkv_problem_fini(p);
		return rc;
	}
	{
		char title[64];

		snprintf(title, sizeof title, "the %s task", qkv_task_name(c->task));
		rc = qkv_problem_set_title(p, title);
		if (rc != 0) {
			qkv_problem_fini(p);
			return rc;
		}
	}
	p->scale = c->scaled ? QKV_SCALE_SQRT_DK : QKV_SCALE_NONE;
	p->temperature = c->temperature;
	p->seeded = false;
	p->seed = c->seed;
	if (c->mask != QKV_MASK_NONE && (rc = qkv_problem_set_mask(p, c->mask)) != 0) {
		qkv_problem_fini(p);
		return rc;
	}

	/* The data, in a fixed order from one generator: codes, classes, sources. */
	qkv_rng_seed(&rng, c->seed);
	for (int i = 0; i < n; i++)
		for (int e = 0; e < code; e++)
			qkv_matrix_set(&p->x, i, key_at + e, random_sign(&rng));
	shuffle(&rng, classes, n);
	shuffle(&rng, perm, n);
	for (int i = 0; i < n; i++) {
		switch (c->task) {
		case QKV_TASK_LOOKUP:
			source[i] = perm[i];
			break;
		case QKV_TASK_PREVIOUS:
			source[i] = i > 0 ? i - 1 : 0;
			break;
		case QKV_TASK_SELF:
		default:
			source[i] = i;
			break;
		}
	}
	/* lookup: the query code of token i is the key code of its source. */
	if (c->task == QKV_TASK_LOOKUP)
		for (int i = 0; i < n; i++)
			for (int e = 0; e < code; e++)
				qkv_matrix_set(&p->x, i, e, qkv_matrix_get(&p->x, source[i], key_at + e));
	for (int i = 0; i < n; i++) {
		qkv_matrix_set(&p->x, i, value_at + classes[i], 1.0);
		qkv_matrix_set(target, i, classes[source[i]], 1.0);
	}
	draw_weight(&p->w_q, c->seed, 1);
	draw_weight(&p->w_k, c->seed, 2);
	if (c->learn & QKV_LEARN_W_V)
		draw_weight(&p->w_v, c->seed, 3);
	else
		for (int k = 0; k < n; k++)
			qkv_matrix_set(&p->w_v, value_at + k, k, 1.0);
	return 0;
}

void qkv_backprop_init(struct qkv_backprop *b)
{
	memset(b, 0, sizeof *b);
	qkv_trace_init(&b->trace);
	qkv_matrix_init(&b->d_output);
	qkv_matrix_init(&b->d_weights);
	qkv_matrix_init(&b->d_scaled);
	qkv_matrix_init(&b->d_scores);
	qkv_matrix_init(&b->d_q);
	qkv_matrix_init(&b->d_k);
	qkv_matrix_init(&b->d_v);
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
		qkv_matrix_init(&b->grad[w]);
	qkv_matrix_init(&b->scratch);
}

void qkv_backprop_fini(struct qkv_backprop *b)
{
	qkv_trace_fini(&b->trace);
	qkv_matrix_fini(&b->d_output);
	qkv_matrix_fini(&b->d_weights);
	qkv_matrix_fini(&b->d_scaled);
	qkv_matrix_fini(&b->d_scores);
	qkv_matrix_fini(&b->d_q);
	qkv_matrix_fini(&b->d_k);
	qkv_matrix_fini(&b->d_v);
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
		qkv_matrix_fini(&b->grad[w]);
	qkv_matrix_fini(&b->scratch);
	qkv_backprop_init(b);
}

void qkv_softmax_backward_row(const double *a, const double *g, int count, double *out)
{
	double dot = 0.0;

	for (int k = 0; k < count; k++)
		dot += a[k] * g[k];
	for (int j = 0; j < count; j++)
		out[j] = a[j] * (g[j] - dot);
}

/* The first largest entry of a row. */
static int row_argmax(const double *row, int count)
{
	int best = 0;

	for (int j = 1; j < count; j++)
		if (row[j] > row[best])
			best = j;
	return best;
}

/* Loss, accuracy and dL/dO from the output and the target. */
static void loss_and_output_gradient(struct qkv_backprop *b, const struct qkv_matrix *target,
				     enum qkv_loss loss)
{
	const struct qkv_matrix *output = &b->trace.output;
	int n = output->rows, d_v = output->cols, right = 0;
	double total = 0.0;

	for (int i = 0; i < n; i++) {
		const double *o = qkv_matrix_row_const(output, i);
		const double *t = qkv_matrix_row_const(target, i);
		double *g = qkv_matrix_row(&b->d_output, i);
		int target_class = row_argmax(t, d_v);

		if (row_argmax(o, d_v) == target_class)
			right++;
		if (loss == QKV_LOSS_MSE) {
			double scale = 2.0 / ((double)n * (double)d_v);

			for (int c = 0; c < d_v; c++) {
				double e = o[c] - t[c];

				total += e * e;
				g[c] = scale * e;
			}
		} else {
			/* −log softmax(o)[class] = log Σ e^(o_c − max) − (o_class − max). */
			double max = o[row_argmax(o, d_v)], sum = 0.0;

			for (int c = 0; c < d_v; c++)
				sum += exp(o[c] - max);
			total += log(sum) - (o[target_class] - max);
			for (int c = 0; c < d_v; c++)
				g[c] = (exp(o[c] - max) / sum - (c == target_class ? 1.0 : 0.0)) / (double)n;
		}
	}
	b->loss = loss == QKV_LOSS_MSE ? total / ((double)n * (double)d_v) : total / (double)n;
	b->accuracy = (double)right / (double)n;
}

static double frobenius(const struct qkv_matrix *m)
{
	double sum = 0.0;
	size_t count = (size_t)m->rows * (size_t)m->cols;

	for (size_t i = 0; i < count; i++)
		sum += m->values[i] * m->values[i];
	return sqrt(sum);
}

/* out = aᵀ b through the scratch matrix. */
static int multiply_transposed(struct qkv_backprop *bp, struct qkv_matrix *out,
			       const struct qkv_matrix *a, const struct qkv_matrix *b)
{
	int rc = qkv_matrix_transpose(&bp->scratch, a);

	return rc != 0 ? rc : qkv_matrix_multiply(out, &bp->scratch, b);
}

int qkv_backprop_run(struct qkv_backprop *b, const struct qkv_problem *p,
		     const struct qkv_matrix *target, enum qkv_loss loss)
{
	struct qkv_trace *t = &b->trace;
	int rc, n;
	double jacobian = 0.0;

	if (p->form != QKV_FORM_PROJECTED)
		return QKV_ESHAPE;
	rc = qkv_attention(p, t);
	if (rc != 0)
		return rc;
	n = t->n;
	if (target->rows != n || target->cols != t->d_v)
		return QKV_ESHAPE;
	rc = qkv_matrix_resize(&b->d_output, n, t->d_v);
	if (rc == 0)
		rc = qkv_matrix_resize(&b->d_scaled, n, n);
	if (rc == 0)
		rc = qkv_matrix_resize(&b->d_scores, n, n);
	if (rc != 0)
		return rc;
	loss_and_output_gradient(b, target, loss);

	/* dL/dA = dL/dO · Vᵀ, and dL/dV = Aᵀ · dL/dO. */
	rc = qkv_matrix_transpose(&b->scratch, &t->v);
	if (rc == 0)
		rc = qkv_matrix_multiply(&b->d_weights, &b->d_output, &b->scratch);
	if (rc == 0)
		rc = multiply_transposed(b, &b->d_v, &t->weights, &b->d_output);
	if (rc != 0)
		return rc;
	/* dL/dS' row by row through diag(a) − a aᵀ; dL/dS = dL/dS' / d. Masked weights
	 * are exactly 0, so their entries come out 0. */
	for (int i = 0; i < n; i++) {
		double *d_scaled = qkv_matrix_row(&b->d_scaled, i);
		double *d_scores = qkv_matrix_row(&b->d_scores, i);

		qkv_softmax_backward_row(qkv_matrix_row_const(&t->weights, i),
					 qkv_matrix_row_const(&b->d_weights, i), n, d_scaled);
		for (int j = 0; j < n; j++)
			d_scores[j] = d_scaled[j] / t->divisor;
		jacobian += t->rows[i].jacobian_norm;
	}
	b->jacobian_norm = jacobian / (double)n;
	/* dL/dQ = dL/dS · K, dL/dK = dL/dSᵀ · Q, then dL/dW = Xᵀ dL/d(QKV). */
	rc = qkv_matrix_multiply(&b->d_q, &b->d_scores, &t->k);
	if (rc == 0)
		rc = multiply_transposed(b, &b->d_k, &b->d_scores, &t->q);
	if (rc == 0)
		rc = multiply_transposed(b, &b->grad[QKV_WEIGHT_Q], &p->x, &b->d_q);
	if (rc == 0)
		rc = qkv_matrix_multiply(&b->grad[QKV_WEIGHT_K], &b->scratch, &b->d_k);
	if (rc == 0)
		rc = qkv_matrix_multiply(&b->grad[QKV_WEIGHT_V], &b->scratch, &b->d_v);
	if (rc != 0)
		return rc;
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
		b->grad_norm[w] = frobenius(&b->grad[w]);
	return 0;
}

static struct qkv_matrix *weight_of(struct qkv_problem *p, enum qkv_weight w)
{
	return w == QKV_WEIGHT_Q ? &p->w_q : w == QKV_WEIGHT_K ? &p->w_k : &p->w_v;
}

const struct qkv_matrix *qkv_train_weight(const struct qkv_train *t, enum qkv_weight w)
{
	return w == QKV_WEIGHT_Q ? &t->problem.w_q : w == QKV_WEIGHT_K ? &t->problem.w_k
									: &t->problem.w_v;
}

/* Evaluates the current weights and appends their record. */
static int train_record(struct qkv_train *t)
{
	struct qkv_train_record *r;
	int rc;

	if (t->count == t->capacity) {
		int capacity = t->capacity > 0 ? 2 * t->capacity : 64;
		struct qkv_train_record *history = realloc(t->history, (size_t)capacity * sizeof *history);

		if (history == NULL)
			return QKV_ENOMEM;
		t->history = history;
		t->capacity = capacity;
	}
	rc = qkv_backprop_run(&t->now, &t->problem, &t->target, t->config.loss);
	if (rc != 0)
		return rc;
	r = &t->history[t->count];
	r->step = t->count;
	r->loss = t->now.loss;
	r->accuracy = t->now.accuracy;
	r->jacobian_norm = t->now.jacobian_norm;
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
		r->grad_norm[w] = t->now.grad_norm[w];
	if (t->steps_to_90 < 0 && r->accuracy >= QKV_TRAIN_TARGET_ACCURACY)
		t->steps_to_90 = r->step;
	t->count++;
	return 0;
}

int qkv_train_init(struct qkv_train *t, const struct qkv_train_config *c)
{
	int rc;

	memset(t, 0, sizeof *t);
	t->config = *c;
	t->steps_to_90 = -1;
	qkv_problem_init(&t->problem);
	qkv_matrix_init(&t->target);
	qkv_backprop_init(&t->now);
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++) {
		qkv_matrix_init(&t->initial[w]);
		qkv_matrix_init(&t->moment1[w]);
		qkv_matrix_init(&t->moment2[w]);
	}
	rc = qkv_train_task(c, &t->problem, &t->target);
	for (int w = 0; w < QKV_WEIGHT_COUNT && rc == 0; w++) {
		const struct qkv_matrix *m = weight_of(&t->problem, (enum qkv_weight)w);

		rc = qkv_matrix_copy(&t->initial[w], m);
		if (rc == 0)
			rc = qkv_matrix_zero(&t->moment1[w], m->rows, m->cols);
		if (rc == 0)
			rc = qkv_matrix_zero(&t->moment2[w], m->rows, m->cols);
	}
	if (rc == 0)
		rc = train_record(t);
	if (rc != 0)
		qkv_train_fini(t);
	return rc;
}

void qkv_train_fini(struct qkv_train *t)
{
	qkv_problem_fini(&t->problem);
	qkv_matrix_fini(&t->target);
	qkv_backprop_fini(&t->now);
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++) {
		qkv_matrix_fini(&t->initial[w]);
		qkv_matrix_fini(&t->moment1[w]);
		qkv_matrix_fini(&t->moment2[w]);
	}
	free(t->history);
	t->history = NULL;
	t->count = t->capacity = 0;
}

#define ADAM_BETA1 0.9
#define ADAM_BETA2 0.999
#define ADAM_EPSILON 1e-8

int qkv_train_step(struct qkv_train *t)
{
	const struct qkv_train_config *c = &t->config;
	int update = t->count; /* this is update number `update` (from 1) */

	if (t->count < 1)
		return QKV_EINVAL;
	for (int w = 0; w < QKV_WEIGHT_COUNT; w++) {
		struct qkv_matrix *m = weight_of(&t->problem, (enum qkv_weight)w);
		const double *g = t->now.grad[w].values;
		size_t count = (size_t)m->rows * (size_t)m->cols;

		if (!(c->learn & (1u << w)))
			continue;
		if (c->optimizer == QKV_OPTIMIZER_SGD) {
			for (size_t e = 0; e < count; e++)
				m->values[e] -= c->lr * g[e];
			continue;
		}
		{
			double *m1 = t->moment1[w].values, *m2 = t->moment2[w].values;
			double correct1 = 1.0 - pow(ADAM_BETA1, update);
			double correct2 = 1.0 - pow(ADAM_BETA2, update);

			for (size_t e = 0; e < count; e++) {
				m1[e] = ADAM_BETA1 * m1[e] + (1.0 - ADAM_BETA1) * g[e];
				m2[e] = ADAM_BETA2 * m2[e] + (1.0 - ADAM_BETA2) * g[e] * g[e];
				m->values[e] -= c->lr * (m1[e] / correct1)
					/ (sqrt(m2[e] / correct2) + ADAM_EPSILON);
			}
		}
	}
	return train_record(t);
}

int qkv_train_run(struct qkv_train *t, bool until_90)
{
	while (t->count <= t->config.steps) {
		int rc;

		if (until_90 && t->steps_to_90 >= 0)
			return 0;
		rc = qkv_train_step(t);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

double qkv_train_median_steps(const int *steps, int seeds, int budget)
{
	int sorted[QKV_TRAIN_SWEEP_MAX_SEEDS];

	if (seeds < 1 || seeds > QKV_TRAIN_SWEEP_MAX_SEEDS)
		return 0.0;
	for (int s = 0; s < seeds; s++)
		sorted[s] = steps[s] >= 0 ? steps[s] : budget + 1;
	qsort(sorted, (size_t)seeds, sizeof *sorted, compare_ints);
	if (seeds % 2 == 1)
		return sorted[seeds / 2];
	return 0.5 * ((double)sorted[seeds / 2 - 1] + (double)sorted[seeds / 2]);
}

int qkv_train_sweep_begin(struct qkv_train_sweep_state *s, const struct qkv_train_config *c,
			  int seeds)
{
	int rc = qkv_train_config_check(c);

	memset(s, 0, sizeof *s);
	if (rc != 0)
		return rc;
	if (seeds < 1 || seeds > QKV_TRAIN_SWEEP_MAX_SEEDS)
		return QKV_EINVAL;
	s->config = *c;
	s->seeds = seeds;
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++)
		s->points[k].d_k = 4 << k;
	return 0;
}

/* Opens the run the state is at (its d_k, side and seed). */
static int sweep_open_run(struct qkv_train_sweep_state *s)
{
	struct qkv_train_config run = s->config;

	run.d_k = s->points[s->point].d_k;
	run.scaled = s->side == 0;
	run.seed = s->config.seed + (uint64_t)s->seed;
	s->open = qkv_train_init(&s->run, &run) == 0;
	return s->open ? 0 : QKV_ENOMEM;
}

/* Records the finished run and moves on to the next seed, side and d_k. */
static void sweep_close_run(struct qkv_train_sweep_state *s)
{
	struct qkv_train_sweep_point *point = &s->points[s->point];
	int steps = s->run.steps_to_90;

	(s->side == 0 ? point->scaled : point->unscaled)[s->seed] = steps;
	if (steps >= 0) {
		if (s->side == 0)
			point->scaled_reached++;
		else
			point->unscaled_reached++;
	}
	qkv_train_fini(&s->run);
	s->open = false;
	if (++s->seed < s->seeds)
		return;
	s->seed = 0;
	if (++s->side < 2)
		return;
	s->side = 0;
	point->scaled_median = qkv_train_median_steps(point->scaled, s->seeds, s->config.steps);
	point->unscaled_median = qkv_train_median_steps(point->unscaled, s->seeds, s->config.steps);
	if (++s->point == QKV_TRAIN_SWEEP_POINTS)
		s->done = true;
}

int qkv_train_sweep_advance(struct qkv_train_sweep_state *s, double work)
{
	double spent = 0.0;

	while (!s->done && spent < work) {
		int rc;

		if (!s->open && (rc = sweep_open_run(s)) != 0)
			return rc;
		if (s->run.steps_to_90 >= 0 || s->run.count > s->config.steps) {
			sweep_close_run(s);
			continue;
		}
		rc = qkv_train_step(&s->run);
		if (rc != 0) {
			qkv_train_fini(&s->run);
			s->open = false;
			return rc;
		}
		spent += qkv_train_step_work(&s->run.config);
	}
	return 0;
}

void qkv_train_sweep_end(struct qkv_train_sweep_state *s)
{
	if (s->open)
		qkv_train_fini(&s->run);
	s->open = false;
}

int qkv_train_sweep(const struct qkv_train_config *c, int seeds,
		    struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS])
{
	struct qkv_train_sweep_state s;
	int rc = qkv_train_sweep_begin(&s, c, seeds);

	if (rc == 0)
		rc = qkv_train_sweep_advance(&s, INFINITY);
	qkv_train_sweep_end(&s);
	if (rc == 0)
		memcpy(points, s.points, sizeof s.points);
	return rc;
}

/* The derivation text: writes into a fixed buffer, counting what was needed. */

#define MAX_TERMS 6 /* sums longer than this show their first terms and "…" */

/* A number at `decimals` places, or with more places when those would give it fewer
 * than three significant digits (so the arithmetic written out with the numbers as
 * shown works out: a gradient of 0.0079123 is 0.00791, not 0.0079); below 10^-4 as
 * %.3g, so a vanishing gradient reads as such, not as 0. Trailing zeros dropped;
 * negatives in parentheses in sums. */
static void put_number(struct qkv_buffer *t, double value, int decimals, bool parenthesise)
{
	char number[48];
	double size = fabs(value);

	if (value != 0.0 && size < 1e-4)
		snprintf(number, sizeof number, "%.3g", value);
	else if (value != 0.0 && size < 1.0) {
		/* Three significant digits: 2 − floor(log10 |value|) places at least. */
		int places = 2 - (int)floor(log10(size));

		qkv_format_number(number, sizeof number, value, places > decimals ? places : decimals);
	} else
		qkv_format_number(number, sizeof number, value, decimals);
	if (strchr(number, '.') != NULL && strchr(number, 'e') == NULL) {
		char *end = number + strlen(number) - 1;

		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	if (strcmp(number, "-0") == 0)
		memmove(number, number + 1, strlen(number));
	if (parenthesise && number[0] == '-')
		qkv_buffer_put(t, "(%s)", number);
	else
		qkv_buffer_put(t, "%s", number);
}

/* "a1×b1 + a2×b2 + … = value" over the count pairs (a[k·a_stride], b[k·b_stride]),
 * leaving out the pairs whose a is 0 when skip_zero_a. */
static void put_sum(struct qkv_buffer *t, const double *a, size_t a_stride, const double *b,
		    size_t b_stride, int count, bool skip_zero_a, double value, int decimals)
{
	int shown = 0, terms = 0;

	for (int k = 0; k < count; k++)
		if (!skip_zero_a || a[(size_t)k * a_stride] != 0.0)
			terms++;
	for (int k = 0; k < count; k++) {
		if (skip_zero_a && a[(size_t)k * a_stride] == 0.0)
			continue;
		if (shown == MAX_TERMS) {
			qkv_buffer_put(t, " + … (%d terms)", terms);
			break;
		}
		if (shown > 0)
			qkv_buffer_put(t, " + ");
		put_number(t, a[(size_t)k * a_stride], decimals, true);
		qkv_buffer_put(t, "×");
		put_number(t, b[(size_t)k * b_stride], decimals, true);
		shown++;
	}
	if (terms == 0)
		qkv_buffer_put(t, "0");
	qkv_buffer_put(t, " = ");
	put_number(t, value, decimals, false);
}

static const char *token(const struct qkv_problem *p, int i)
{
	return p->tokens != NULL && i >= 0 && i < p->n ? p->tokens[i] : "?";
}

/* The index k < count whose |a_k b_k| is largest (the first on ties). */
static int largest_term(const double *a, size_t a_stride, const double *b, size_t b_stride,
			int count)
{
	int best = 0;
	double most = -1.0;

	for (int k = 0; k < count; k++) {
		double term = fabs(a[(size_t)k * a_stride] * b[(size_t)k * b_stride]);

		if (term > most) {
			most = term;
			best = k;
		}
	}
	return best;
}

/* ∂L/∂O of query i, as the loss defines it. */
static void put_output_gradient(struct qkv_buffer *t, const struct qkv_problem *p,
				const struct qkv_backprop *b, int i, int decimals)
{
	int d_v = b->d_output.cols, n = b->trace.n;

	qkv_buffer_put(t, "∂L/∂O[%s] = ", token(p, i));
	qkv_buffer_put(t, "(");
	for (int c = 0; c < d_v; c++) {
		if (c == MAX_TERMS - 1 && d_v > MAX_TERMS) {
			qkv_buffer_put(t, "…, ");
			c = d_v - 1;
		}
		put_number(t, qkv_matrix_get(&b->d_output, i, c), decimals, false);
		if (c + 1 < d_v)
			qkv_buffer_put(t, ", ");
	}
	qkv_buffer_put(t, ") from O[%s] against the target; n = %d", token(p, i), n);
}

/* ∂L/∂S[i,j] = a_ij (∂L/∂A_ij − Σ_k a_ik ∂L/∂A_ik) / d, then ∂L/∂A[i,j]. */
static void put_score_gradient(struct qkv_buffer *t, const struct qkv_problem *p,
			       const struct qkv_backprop *b, int i, int j, int decimals)
{
	const struct qkv_trace *tr = &b->trace;
	double a = qkv_matrix_get(&tr->weights, i, j), g = qkv_matrix_get(&b->d_weights, i, j);
	double mean = 0.0;

	for (int k = 0; k < tr->n; k++)
		mean += qkv_matrix_get(&tr->weights, i, k) * qkv_matrix_get(&b->d_weights, i, k);
	qkv_buffer_put(t, "∂L/∂S[%s,%s] = a (∂L/∂A − Σ_k a_k ∂L/∂A_k) / d = ", token(p, i), token(p, j));
	put_number(t, a, decimals, false);
	qkv_buffer_put(t, " × (");
	put_number(t, g, decimals, false);
	qkv_buffer_put(t, " − ");
	put_number(t, mean, decimals, true);
	qkv_buffer_put(t, ") / ");
	put_number(t, tr->divisor, decimals, false);
	qkv_buffer_put(t, " = ");
	put_number(t, qkv_matrix_get(&b->d_scores, i, j), decimals, false);
	qkv_buffer_put(t, "\n∂L/∂A[%s,%s] = v_%s · ∂L/∂O[%s] = ", token(p, i), token(p, j), token(p, j),
	    token(p, i));
	put_sum(t, qkv_matrix_row_const(&tr->v, j), 1, qkv_matrix_row_const(&b->d_output, i), 1,
		tr->d_v, true, g, decimals);
	qkv_buffer_put(t, "\n");
	put_output_gradient(t, p, b, i, decimals);
}

int qkv_train_derive(char *buf, size_t size, const struct qkv_problem *p,
		     const struct qkv_backprop *b, enum qkv_weight w, int row, int col,
		     int decimals)
{
	struct qkv_buffer text = { buf, size, 0 };
	const struct qkv_trace *tr = &b->trace;
	const struct qkv_matrix *grad, *d_proj;
	const char *name = qkv_weight_name(w);
	const char *proj = w == QKV_WEIGHT_Q ? "Q" : w == QKV_WEIGHT_K ? "K" : "V";
	size_t x_stride;
	int n = tr->n, i;

	if (size > 0)
		buf[0] = '\0';
	if ((int)w < 0 || w >= QKV_WEIGHT_COUNT || n < 1 || p->form != QKV_FORM_PROJECTED)
		return QKV_EINVAL;
	grad = &b->grad[w];
	d_proj = w == QKV_WEIGHT_Q ? &b->d_q : w == QKV_WEIGHT_K ? &b->d_k : &b->d_v;
	if (row < 0 || row >= grad->rows || col < 0 || col >= grad->cols)
		return QKV_EINVAL;
	x_stride = (size_t)p->x.cols;
	qkv_buffer_put(&text, "∂L/∂%s[m%d,d%d] = Σ_i X[i,m%d] ∂L/∂%s[i,d%d] = ", name, row + 1, col + 1, row + 1,
	    proj, col + 1);
	put_sum(&text, p->x.values + row, x_stride, d_proj->values + col, (size_t)d_proj->cols, n,
		true, qkv_matrix_get(grad, row, col), decimals);
	i = largest_term(p->x.values + row, x_stride, d_proj->values + col, (size_t)d_proj->cols, n);
	qkv_buffer_put(&text, "\n");
	if (w == QKV_WEIGHT_Q) {
		int j = largest_term(qkv_matrix_row_const(&b->d_scores, i), 1, tr->k.values + col,
				     (size_t)tr->k.cols, n);

		qkv_buffer_put(&text, "∂L/∂Q[%s,d%d] = Σ_j ∂L/∂S[%s,j] K[j,d%d] = ", token(p, i), col + 1,
		    token(p, i), col + 1);
		put_sum(&text, qkv_matrix_row_const(&b->d_scores, i), 1, tr->k.values + col,
			(size_t)tr->k.cols, n, false, qkv_matrix_get(&b->d_q, i, col), decimals);
		qkv_buffer_put(&text, "\n");
		put_score_gradient(&text, p, b, i, j, decimals);
	} else if (w == QKV_WEIGHT_K) {
		int j = i;
		int q = largest_term(b->d_scores.values + j, (size_t)n, tr->q.values + col,
				     (size_t)tr->q.cols, n);

		qkv_buffer_put(&text, "∂L/∂K[%s,d%d] = Σ_i ∂L/∂S[i,%s] Q[i,d%d] = ", token(p, j), col + 1,
		    token(p, j), col + 1);
		put_sum(&text, b->d_scores.values + j, (size_t)n, tr->q.values + col,
			(size_t)tr->q.cols, n, false, qkv_matrix_get(&b->d_k, j, col), decimals);
		qkv_buffer_put(&text, "\n");
		put_score_gradient(&text, p, b, q, j, decimals);
	} else {
		int j = i;
		int q = largest_term(tr->weights.values + j, (size_t)n, b->d_output.values + col,
				     (size_t)b->d_output.cols, n);

		qkv_buffer_put(&text, "∂L/∂V[%s,d%d] = Σ_i A[i,%s] ∂L/∂O[i,d%d] = ", token(p, j), col + 1,
		    token(p, j), col + 1);
		put_sum(&text, tr->weights.values + j, (size_t)n, b->d_output.values + col,
			(size_t)b->d_output.cols, n, false, qkv_matrix_get(&b->d_v, j, col), decimals);
		qkv_buffer_put(&text, "\n");
		put_output_gradient(&text, p, b, q, decimals);
	}
	return (int)text.length;
}

bool qkv_train_median_censored(int reached, int seeds)
{
	return reached <= seeds / 2;
}

double qkv_train_sweep_gap(const struct qkv_train_sweep_point *point, int budget,
			   bool *at_least)
{
	*at_least = point->unscaled_median > budget;
	if (point->scaled_median > budget || point->scaled_median <= 0.0)
		return -1.0;
	return point->unscaled_median / point->scaled_median;
}

/* "56×" or "≥ 55×" (a bound, rounded down) or "no gap to measure", into t. */
static void put_gap(struct qkv_buffer *t, double gap, bool at_least)
{
	if (gap < 0.0) {
		qkv_buffer_put(t, "no ratio (the scaled head did not reach 90%%)");
		return;
	}
	char text[48];

	qkv_train_gap_text(text, sizeof text, gap, at_least);
	qkv_buffer_put(t, "%s", text);
}

void qkv_train_gap_text(char *buf, size_t size, double gap, bool at_least)
{
	int decimals = gap < 10.0 ? 1 : 0;
	double unit = decimals == 1 ? 0.1 : 1.0;

	/* A bound keeps its direction: floor, with a hair of room for a ratio that is
	 * a whole number of units up to rounding error (501/3 = 167). */
	if (at_least)
		gap = floor(gap / unit + 1e-9) * unit;
	snprintf(buf, size, "%s%.*f×", at_least ? "≥ " : "", decimals, gap);
}

/* The comparison of two gaps into t: shrinks, does not, or cannot say (a gap with
 * "≥" is a lower bound and is compared only where that decides). */
static void put_comparison(struct qkv_buffer *t, const char *name, double gap, bool at_least,
			   double base_gap, bool base_at_least)
{
	if (!at_least && gap < base_gap)
		qkv_buffer_put(t, ": %s shrinks the gap.", name);
	else if (!base_at_least && gap >= base_gap)
		qkv_buffer_put(t, ": %s does not shrink the gap.", name);
	else
		qkv_buffer_put(t, ": lower bounds, so the sweep cannot say which gap is smaller.");
}

int qkv_train_sweep_verdict(char *buf, size_t size,
			    const struct qkv_train_sweep_point points[QKV_TRAIN_SWEEP_POINTS],
			    int seeds, int budget, const char *name,
			    const struct qkv_train_sweep_point baseline[QKV_TRAIN_SWEEP_POINTS])
{
	struct qkv_buffer text = { buf, size, 0 };
	const struct qkv_train_sweep_point *last = &points[QKV_TRAIN_SWEEP_POINTS - 1];
	bool at_least, base_at_least;
	double gap = qkv_train_sweep_gap(last, budget, &at_least), base_gap;

	if (size > 0)
		buf[0] = '\0';
	qkv_buffer_put(&text, "%s at d_k = %d: the unscaled head needs ", name, last->d_k);
	put_gap(&text, gap, at_least);
	qkv_buffer_put(&text, " the scaled head's steps (%d of %d unscaled runs reached 90%% in %d steps).",
	    last->unscaled_reached, seeds, budget);
	if (baseline == NULL || gap < 0.0)
		return (int)text.length;
	base_gap = qkv_train_sweep_gap(&baseline[QKV_TRAIN_SWEEP_POINTS - 1], budget, &base_at_least);
	if (base_gap < 0.0)
		return (int)text.length;
	qkv_buffer_put(&text, " MSE + SGD: ");
	put_gap(&text, base_gap, base_at_least);
	put_comparison(&text, name, gap, at_least, base_gap, base_at_least);
	if (!at_least && !base_at_least)
		return (int)text.length;
	if (last->unscaled_reached != baseline[QKV_TRAIN_SWEEP_POINTS - 1].unscaled_reached)
		qkv_buffer_put(&text, " Unscaled runs at 90%%: %d of %d with %s, %d of %d with MSE + SGD.",
		    last->unscaled_reached, seeds, name,
		    baseline[QKV_TRAIN_SWEEP_POINTS - 1].unscaled_reached, seeds);
	/* Where both gaps are measured, not bounded, the comparison is exact. */
	for (int k = QKV_TRAIN_SWEEP_POINTS - 1; k >= 0; k--) {
		gap = qkv_train_sweep_gap(&points[k], budget, &at_least);
		base_gap = qkv_train_sweep_gap(&baseline[k], budget, &base_at_least);
		if (gap < 0.0 || base_gap < 0.0 || at_least || base_at_least)
			continue;
		qkv_buffer_put(&text, " At d_k = %d, the largest where both are measured: %s ", points[k].d_k, name);
		put_gap(&text, gap, false);
		qkv_buffer_put(&text, ", MSE + SGD ");
		put_gap(&text, base_gap, false);
		put_comparison(&text, name, gap, false, base_gap, false);
		break;
	}
	return (int)text.length;
}
