/* job.h — a computation too long to run between two key presses (a whole trace of
 * a large problem, a large d_k sweep), run on a thread of its own so the interface
 * keeps reading keys and signals meanwhile. The job works on its own copies and
 * never touches the app: app_update looks at job_done() on its ticks and takes the
 * result in, or abandons the job when Esc cancels it. No curses, no printing. */
#ifndef QKV_APP_JOB_H
#define QKV_APP_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "qkv/attention.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

enum job_kind { JOB_TRACE, JOB_SWEEP };

struct job {
	enum job_kind kind;
	/* JOB_TRACE: the trace of problem. */
	struct qkv_problem problem;
	struct qkv_trace trace;
	/* JOB_SWEEP: qkv_sweep(tokens, trials, seed, d_k_max) into sweep. */
	int tokens, trials, d_k_max;
	uint64_t seed;
	struct qkv_sweep_point sweep[QKV_SWEEP_MAX_POINTS];
	int result;   /* qkv_attention's code, or qkv_sweep's count or code */
	_Atomic int state; /* running, done or abandoned (job.c) */
	bool started;      /* job_start was called */
};

/* A new job of that kind with empty problem and trace, or NULL. */
struct job *job_new(enum job_kind kind);
/* Starts the computation on a thread. Returns 0, or -1 when no thread can be
 * made (the job then runs here, before job_start returns, and is done). */
int job_start(struct job *job);
/* True once the computation has ended (its result can be taken). */
bool job_done(struct job *job);
/* Frees a job that is done, or leaves a running one to free itself when it ends. */
void job_abandon(struct job *job);

#endif
