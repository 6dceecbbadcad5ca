/* job.c — computations on a thread beside the interface (job.h). Ownership is
 * settled by one atomic state: the thread moves RUNNING to DONE when it ends and
 * the app then owns the job; the app moves RUNNING to ABANDONED when it gives up
 * on it and the thread, finding that, frees the job itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/job.h"
#include "qkv/grid.h"
#include "qkv/error.h"

enum { JOB_RUNNING, JOB_DONE, JOB_ABANDONED };

struct job *job_new(enum job_kind kind)
{
	struct job *job = calloc(1, sizeof *job);

	if (job == NULL)
		return NULL;
	job->kind = kind;
	qkv_problem_init(&job->problem);
	qkv_problem_init(&job->source);
	qkv_trace_init(&job->trace);
	qkv_heads_trace_init(&job->heads);
	for (int i = 0; i < 3; i++)
		qkv_matrix_init(&job->untied[i]);
	job->cell_input = -1;
	if (pthread_mutex_init(&job->lock, NULL) != 0) {
		free(job);
		return NULL;
	}
	atomic_init(&job->state, JOB_RUNNING);
	atomic_init(&job->stop, false);
	return job;
}

static void job_free(struct job *job)
{
	qkv_problem_fini(&job->problem);
	qkv_trace_fini(&job->trace);
	qkv_heads_trace_fini(&job->heads);
	for (int i = 0; i < 3; i++)
		qkv_matrix_fini(&job->untied[i]);
	for (int g = 0; g < QKV_GRID_COUNT; g++)
		free(job->moved[g]);
	if (job->has_cost)
		qkv_cost_fini(&job->cost);
	free(job->bytes);
	free(job->path);
	pthread_mutex_destroy(&job->lock);
	free(job); /* source, saved and before are borrowed: never freed here */
}

void job_borrow(struct job *job, const struct qkv_problem *source)
{
	job->source = *source;
	job->borrowed = true;
}

/* Rows of a matrix copied at a time under the lock: about 256 KiB, a fraction of a
 * millisecond, so job_abandon waits no longer than that. */
#define COPY_BYTES (256 * 1024)
#define JOB_GONE 1 /* the copy stopped: the app let go of the source */

/* Copies the borrowed matrix from into to (reusing to's storage), a block of rows
 * at a time under the lock. Returns 0, JOB_GONE or QKV_ENOMEM. */
static int copy_matrix(struct job *job, struct qkv_matrix *to, const struct qkv_matrix *from)
{
	int rows = from->rows, cols = from->cols, step;

	if (qkv_matrix_shape(to, rows, cols) != 0)
		return QKV_ENOMEM;
	step = cols > 0 ? (int)(COPY_BYTES / ((size_t)cols * sizeof(double))) : rows;
	if (step < 1)
		step = 1;
	for (int r = 0; r < rows; r += step) {
		int count = rows - r < step ? rows - r : step;
		bool gone;

		pthread_mutex_lock(&job->lock);
		gone = job->source_gone;
		if (!gone)
			memcpy(to->values + (size_t)r * (size_t)cols, from->values + (size_t)r * (size_t)cols,
			       (size_t)count * (size_t)cols * sizeof(double));
		pthread_mutex_unlock(&job->lock);
		if (gone)
			return JOB_GONE;
	}
	return 0;
}

/* The problem's matrix slot `which` (whatever the form). */
static struct qkv_matrix *slot(struct qkv_problem *p, int which)
{
	struct qkv_matrix *slots[QKV_GRID_INPUTS] = {
		[QKV_GRID_Q] = &p->q, [QKV_GRID_K] = &p->k, [QKV_GRID_V] = &p->v, [QKV_GRID_X] = &p->x,
		[QKV_GRID_X_Q] = &p->x_q, [QKV_GRID_W_Q] = &p->w_q, [QKV_GRID_W_K] = &p->w_k,
		[QKV_GRID_W_V] = &p->w_v, [QKV_GRID_W_O] = &p->w_o,
	};

	return slots[which];
}

/* job->problem becomes a copy of the borrowed source: first everything but the
 * matrices (labels, masks, options) under the lock, then each matrix in blocks.
 * The storage job->problem had is reused. Returns 0, JOB_GONE or QKV_ENOMEM. */
static int copy_source(struct job *job)
{
	struct qkv_problem *dst = &job->problem, bare;
	struct qkv_matrix kept[QKV_GRID_INPUTS];
	int rc = 0, h;

	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		kept[i] = *slot(dst, i);
		qkv_matrix_init(slot(dst, i));
	}
	pthread_mutex_lock(&job->lock);
	if (job->source_gone) {
		rc = JOB_GONE;
	} else {
		bare = job->source;
		for (int i = 0; i < QKV_GRID_INPUTS; i++)
			qkv_matrix_init(slot(&bare, i));
		bare.h = 0;
		bare.heads = NULL;
		h = job->source.h;
		rc = qkv_problem_copy(dst, &bare);
		if (rc == 0 && h > 0) {
			rc = qkv_problem_make_heads(dst, h);
			dst->form = job->source.form;
		}
	}
	pthread_mutex_unlock(&job->lock);
	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const struct qkv_matrix *from = slot(&job->source, i);

		if (i >= QKV_GRID_W_Q && i <= QKV_GRID_W_V && job->source_w[i - QKV_GRID_W_Q] != NULL)
			from = job->source_w[i - QKV_GRID_W_Q];
		if (rc == 0)
			rc = copy_matrix(job, &kept[i], from);
		qkv_matrix_fini(slot(dst, i));
		*slot(dst, i) = kept[i];
	}
	for (int i = 0; rc == 0 && i < dst->h; i++) {
		rc = copy_matrix(job, &dst->heads[i].w_q, &job->source.heads[i].w_q);
		if (rc == 0)
			rc = copy_matrix(job, &dst->heads[i].w_k, &job->source.heads[i].w_k);
		if (rc == 0)
			rc = copy_matrix(job, &dst->heads[i].w_v, &job->source.heads[i].w_v);
	}
	return rc;
}

/* The trace of job->problem: every head and the chosen head's own trace, or the one trace. */
static int compute_trace(struct job *job)
{
	struct qkv_problem view;
	int rc;

	if (job->problem.h == 0)
		return qkv_attention(&job->problem, &job->trace);
	rc = qkv_heads_attention(&job->problem, &job->heads);
	if (job->head >= job->problem.h)
		job->head = job->problem.h - 1;
	if (job->head < 0)
		job->head = 0;
	if (rc == 0) {
		qkv_problem_head_view(&job->problem, job->head, &view);
		rc = qkv_attention(&view, &job->trace);
	}
	return rc;
}

void job_compare_with(struct job *job, const struct qkv_problem *saved)
{
	job->saved = *saved;
	job->has_saved = true;
}

/* Whether the result equals the borrowed saved problem, the wrong-way
 * demonstration aside; under the lock, as the app may let go of it meanwhile. */
static void compare_saved(struct job *job)
{
	pthread_mutex_lock(&job->lock);
	if (!job->source_gone) {
		struct qkv_problem saved = job->saved;

		saved.wrong = job->problem.wrong;
		job->equal_saved = qkv_problem_equal(&job->problem, &saved);
	}
	pthread_mutex_unlock(&job->lock);
}

void job_mark_against(struct job *job, const struct qkv_trace *before, bool skip_qk)
{
	job->before = *before;
	job->has_before = true;
	job->skip_qk = skip_qk;
}

/* job->moved: what moved from the borrowed trace before to job->trace, a grid at a
 * time under the lock. Returns 0 or QKV_ENOMEM (then no marks: marked stays false). */
static int mark_grids(struct job *job)
{
	const struct qkv_trace *t = &job->trace;

	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		if (!qkv_grid_in_trace((enum qkv_grid)g))
			continue;
		const struct qkv_matrix *now = qkv_grid_matrix(NULL, t, NULL, 0, (enum qkv_grid)g), *was;
		size_t cells = (size_t)now->rows * (size_t)now->cols;
		bool gone;

		job->moved[g] = calloc(cells > 0 ? cells : 1, 1);
		if (job->moved[g] == NULL)
			return QKV_ENOMEM;
		job->moved_cells[g] = cells > 0 ? cells : 1;
		pthread_mutex_lock(&job->lock);
		gone = job->source_gone;
		was = qkv_grid_matrix(NULL, &job->before, NULL, 0, (enum qkv_grid)g);
		if (!gone && job->before.n == t->n && was->rows == now->rows && was->cols == now->cols &&
		    !(job->skip_qk && g <= QKV_GRID_K)) {
			const double *restrict after_v = now->values, *restrict before_v = was->values;
			const unsigned char *restrict masked = t->masked, *restrict was_masked = job->before.masked;
			unsigned char *restrict out = job->moved[g];

			if (qkv_grid_is_attention((enum qkv_grid)g)) /* the mask counts too */
				for (size_t i = 0; i < cells; i++)
					out[i] = (unsigned char)(((masked[i] != 0) != (was_masked[i] != 0)) |
								 (masked[i] == 0 && after_v[i] != before_v[i]));
			else
				for (size_t i = 0; i < cells; i++)
					out[i] = after_v[i] != before_v[i];
		}
		pthread_mutex_unlock(&job->lock);
		if (gone)
			return 0;
	}
	job->marked = true;
	return 0;
}

/* A borrowed job: the copy, the cell, the change and its check, then the trace. */
static int compute_borrowed(struct job *job)
{
	int rc = copy_source(job);

	if (rc == JOB_GONE)
		return 0; /* abandoned: nobody takes the result */
	if (rc == 0 && job->cell_input >= 0) {
		struct qkv_matrix *m = job->problem.h > 0
					       ? qkv_problem_head_input(&job->problem, job->cell_head,
									(enum qkv_grid)job->cell_input)
					       : qkv_problem_input(&job->problem, (enum qkv_grid)job->cell_input);

		if (m != NULL && job->cell_row < m->rows && job->cell_col < m->cols)
			qkv_matrix_set(m, job->cell_row, job->cell_col, job->cell_value);
	}
	if (rc == 0 && job->change != NULL) {
		struct job_change_context context = { job->column_seed, job->untied };

		rc = job->change(&job->problem, job->argument, &context);
		if (rc == 0)
			rc = qkv_problem_check(&job->problem);
		job->change_failed = rc != 0;
	}
	if (rc == 0)
		rc = compute_trace(job);
	if (rc == 0 && job->has_saved)
		compare_saved(job);
	if (rc == 0 && job->has_before)
		mark_grids(job); /* without marks (out of memory) the change stands all the same */
	return rc;
}

/* A figure: the copy and its trace, then the figure's bytes in memory. */
static int compute_figure(struct job *job)
{
	int rc = job->borrowed ? copy_source(job) : 0;

	if (rc == JOB_GONE)
		return 0; /* abandoned: nobody takes the result */
	if (rc == 0)
		rc = compute_trace(job);
	if (rc != 0) {
		snprintf(job->err, sizeof job->err, "cannot draw the figure: %s", qkv_error_string(rc));
		return rc;
	}
	job->figure.stop = &job->stop;
	/* Several heads: a heatmap per head shown (stages 1, 2, 3), else the head's own figure. */
	job->bytes = figure_either_bytes(job->figure_format, &job->problem, &job->trace, &job->heads, &job->figure,
					 &job->length, job->err, sizeof job->err);
	return job->bytes != NULL ? 0 : -1;
}

static void *job_free_thread(void *argument)
{
	job_free(argument);
	return NULL;
}

/* Frees a job on a thread of its own: giving back a large trace's hundreds of
 * megabytes takes tens of milliseconds the interface need not wait for. */
static void free_aside(struct job *job)
{
	pthread_t thread;
	pthread_attr_t attributes;
	bool started = false;

	if (pthread_attr_init(&attributes) == 0) {
		pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
		started = pthread_create(&thread, &attributes, job_free_thread, job) == 0;
		pthread_attr_destroy(&attributes);
	}
	if (!started)
		job_free(job);
}

static void job_compute(struct job *job)
{
	if (job->kind == JOB_TRACE && job->borrowed)
		job->result = compute_borrowed(job);
	else if (job->kind == JOB_TRACE)
		job->result = compute_trace(job);
	else if (job->kind == JOB_FIGURE)
		job->result = compute_figure(job);
	else
		job->result = qkv_sweep(job->tokens, job->trials, job->seed, job->d_k_max, job->sweep);
}

static void *job_thread(void *argument)
{
	struct job *job = argument;
	int running = JOB_RUNNING;

	job_compute(job);
	if (!atomic_compare_exchange_strong(&job->state, &running, JOB_DONE))
		job_free(job); /* abandoned while it ran: nobody else holds it */
	return NULL;
}

int job_start(struct job *job)
{
	pthread_t thread;
	pthread_attr_t attributes;
	int rc;

	job->started = true;
	if (pthread_attr_init(&attributes) != 0) {
		job_compute(job);
		atomic_store(&job->state, JOB_DONE);
		return -1;
	}
	pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&thread, &attributes, job_thread, job);
	pthread_attr_destroy(&attributes);
	if (rc != 0) {
		job_compute(job);
		atomic_store(&job->state, JOB_DONE);
		return -1;
	}
	return 0;
}

int job_slice(struct job *job, double slice_ms)
{
	int rc = qkv_cost_step(&job->cost, slice_ms, job->clock, job->clock_context);

	if (rc <= 0)
		atomic_store(&job->state, JOB_DONE);
	return rc;
}

bool job_done(struct job *job)
{
	return atomic_load(&job->state) == JOB_DONE;
}

void job_abandon(struct job *job)
{
	int running = JOB_RUNNING;

	if (job == NULL)
		return;
	/* From here on the app may change or free the source: the thread, between two
	 * blocks of its copy, finds it gone and stops copying. */
	pthread_mutex_lock(&job->lock);
	job->source_gone = true;
	pthread_mutex_unlock(&job->lock);
	atomic_store(&job->stop, true);
	if (!job->started) {
		job_free(job);
		return;
	}
	if (!atomic_compare_exchange_strong(&job->state, &running, JOB_ABANDONED))
		free_aside(job); /* it was done: the app held the only reference */
}
