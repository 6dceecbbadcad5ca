/* changes.c — the changes of the whole problem behind the structural and option keys,
 * each a job_change: a function of the problem and one argument alone, so that the
 * same change runs between two keys or on a job's copy beside the interface. */
#include <stdlib.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"

/* The temperatures t and T step through. */
static const double temperatures[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
#define TEMPERATURE_COUNT ((int)(sizeof temperatures / sizeof temperatures[0]))

/* The index'th temperature of t and T's steps, index kept within them. */
double change_temperature_step(int index)
{
	return temperatures[index < 0 ? 0 : index >= TEMPERATURE_COUNT ? TEMPERATURE_COUNT - 1 : index];
}

/* How many steps there are. */
int change_temperature_steps(void)
{
	return TEMPERATURE_COUNT;
}

/* The next temperature of the list below (direction < 0) or above the present one,
 * or -1 when there is none that way (τ from a file may lie outside the list). */
int change_temperature_index(double temperature, int direction)
{
	if (direction < 0) {
		for (int i = TEMPERATURE_COUNT - 1; i >= 0; i--)
			if (temperatures[i] < temperature)
				return i;
		return -1;
	}
	for (int i = 0; i < TEMPERATURE_COUNT; i++)
		if (temperatures[i] > temperature)
			return i;
	return -1;
}

/* The problem changes behind the structural and option keys. */
int change_insert_token(struct qkv_problem *p, int after, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_insert_token(p, after + 1, NULL);
}

/* Removes token at. */
int change_remove_token(struct qkv_problem *p, int at, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_remove_token(p, at);
}

/* Cross-attention: a new query after query `after` (a zero row of Q or X_q). */
int change_insert_query(struct qkv_problem *p, int after, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_insert_query(p, after + 1, NULL);
}

/* Cross-attention: removes query at. */
int change_remove_query(struct qkv_problem *p, int at, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_remove_query(p, at);
}

/* d_k becomes d_k: columns of Q and K (or W_Q and W_K) dropped or added as zeros. */
int change_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_d_k(p, d_k);
}

/* d_v becomes d_v. */
int change_d_v(struct qkv_problem *p, int d_v, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_d_v(p, d_v);
}

/* The divisor: √d_k or none. */
int change_scale(struct qkv_problem *p, int scale, const struct job_change_context *c)
{
	(void)c;
	p->scale = (enum qkv_scale)scale;
	return 0;
}

/* τ becomes temperatures[index]. */
int change_temperature(struct qkv_problem *p, int index, const struct job_change_context *c)
{
	(void)c;
	p->temperature = temperatures[index];
	return 0;
}

/* The mask becomes mask (none, causal, custom). */
int change_mask(struct qkv_problem *p, int mask, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_mask(p, (enum qkv_mask)mask);
}

/* The wrong-way demonstration becomes wrong. */
int change_wrong(struct qkv_problem *p, int wrong, const struct job_change_context *c)
{
	(void)c;
	p->wrong = (enum qkv_wrong)wrong;
	return 0;
}

/* New d_k columns drawn from N(0,1) with the app's column seed, for any problem. */
int change_draw_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c)
{
	return qkv_problem_draw_d_k(p, d_k, c->column_seed);
}

/* Toggles the custom mask bit of cell argument = query·n + key. */
int change_mask_bit(struct qkv_problem *p, int cell, const struct job_change_context *c)
{
	(void)c;
	p->mask_bits[cell] = !p->mask_bits[cell];
	return 0;
}

/* The seed `r` draws from next: 1 at first, back to 0 after the largest a file holds. */
uint64_t change_next_seed(const struct qkv_problem *p)
{
	return !p->seeded ? 1 : p->seed < QKV_MAX_SEED ? p->seed + 1 : 0;
}

/* New N(0,1) values for Q, K and V from the seed, keeping the shape. */
int change_random(struct qkv_problem *p, int unused, const struct job_change_context *c)
{
	struct qkv_problem fresh;
	uint64_t seed = change_next_seed(p);
	int rc;

	(void)unused;
	(void)c;
	if (p->form != QKV_FORM_DIRECT)
		return QKV_EINVAL;
	qkv_problem_init(&fresh);
	/* Cross-attention draws its m queries' rows and n keys' rows alike. */
	rc = qkv_problem_is_cross(p) ? qkv_problem_random_cross(&fresh, p->m, p->n, p->q.cols, p->v.cols, seed)
				     : qkv_problem_random(&fresh, p->n, p->q.cols, p->v.cols, seed);
	if (rc == 0) {
		/* The fresh draw's matrices are exchanged with the problem's, not
		 * copied: nothing to allocate, so nothing can fail half-way. */
		struct qkv_matrix *mine[] = { &p->q, &p->k, &p->v };
		struct qkv_matrix *theirs[] = { &fresh.q, &fresh.k, &fresh.v };

		for (int i = 0; i < (int)(sizeof mine / sizeof mine[0]); i++) {
			struct qkv_matrix swap = *mine[i];

			*mine[i] = *theirs[i];
			*theirs[i] = swap;
		}
		p->seeded = true;
		p->seed = seed;
	}
	qkv_problem_fini(&fresh);
	return rc;
}

/* True when m is square with ones on the diagonal and zeros elsewhere. */
static bool is_identity(const struct qkv_matrix *m)
{
	if (m->rows != m->cols)
		return false;
	for (int r = 0; r < m->rows; r++)
		for (int c = 0; c < m->cols; c++)
			if (qkv_matrix_get(m, r, c) != (r == c ? 1.0 : 0.0))
				return false;
	return true;
}

/* True when W_Q, W_K and W_V are all the identity. */
bool app_projections_tied(const struct app *app)
{
	const struct qkv_problem *p = &app->problem;

	return p->form == QKV_FORM_PROJECTED && is_identity(&p->w_q) && is_identity(&p->w_k) &&
	       is_identity(&p->w_v);
}

/* Ties W_Q, W_K, W_V to the identity (keeping the learned ones to come back to),
 * or brings the kept ones back. */
int change_identity(struct qkv_problem *p, int tie, const struct job_change_context *c)
{
	struct qkv_matrix *w[3] = { &p->w_q, &p->w_k, &p->w_v };
	int d_model = p->x.cols, rc = 0;

	for (int i = 0; i < APP_PROJECTIONS && rc == 0; i++) {
		if (tie) {
			rc = qkv_matrix_copy(&c->untied[i], w[i]);
			if (rc == 0)
				rc = qkv_matrix_zero(w[i], d_model, d_model);
			for (int d = 0; rc == 0 && d < d_model; d++)
				qkv_matrix_set(w[i], d, d, 1.0);
		} else {
			rc = qkv_matrix_copy(w[i], &c->untied[i]);
		}
	}
	return rc;
}

/* Marks the token as padding (hidden as a key from every query) or not. */
int change_padding(struct qkv_problem *p, int token, const struct job_change_context *c)
{
	(void)c;
	if (p->padding == NULL) {
		p->padding = calloc((size_t)p->n, 1);
		if (p->padding == NULL)
			return QKV_ENOMEM;
	}
	p->padding[token] = !p->padding[token];
	return 0;
}

/* d_model becomes d_model: columns of X and rows of every W. */
int change_d_model(struct qkv_problem *p, int d_model, const struct job_change_context *c)
{
	(void)c;
	return qkv_problem_set_d_model(p, d_model);
}
