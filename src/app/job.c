/* job.c — computations on a thread beside the interface (job.h). Ownership is
 * settled by one atomic state: the thread moves RUNNING to DONE when it ends and
 * the app then owns the job; the app moves RUNNING to ABANDONED when it gives up
 * on it and the thread, finding that, frees the job itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "app/job.h"

enum { JOB_RUNNING, JOB_DONE, JOB_ABANDONED };

struct job *job_new(enum job_kind kind)
{
	struct job *job = calloc(1, sizeof *job);

	if (job == NULL)
		return NULL;
	job->kind = kind;
	qkv_problem_init(&job->problem);
	qkv_trace_init(&job->trace);
	atomic_init(&job->state, JOB_RUNNING);
	return job;
}

static void job_free(struct job *job)
{
	qkv_problem_fini(&job->problem);
	qkv_trace_fini(&job->trace);
	free(job);
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
	if (job->kind == JOB_TRACE)
		job->result = qkv_attention(&job->problem, &job->trace);
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

bool job_done(struct job *job)
{
	return atomic_load(&job->state) == JOB_DONE;
}

void job_abandon(struct job *job)
{
	int running = JOB_RUNNING;

	if (job == NULL)
		return;
	if (!job->started) {
		job_free(job);
		return;
	}
	if (!atomic_compare_exchange_strong(&job->state, &running, JOB_ABANDONED))
		free_aside(job); /* it was done: the app held the only reference */
}
