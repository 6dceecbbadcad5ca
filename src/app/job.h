/* job.h — a computation too long to run between two key presses (a whole trace of
 * a large problem, a large d_k sweep, a figure drawn into memory), run on a thread
 * of its own so the interface keeps reading keys and signals meanwhile; or the
 * cost view's measurement, run by the interface a slice at a time (job_slice). The job
 * works on its own copies and never touches the app: app_update looks at
 * job_done() on its ticks and takes the result in, or abandons the job when Esc
 * cancels it. No curses, no printing, no files. */
#ifndef QKV_APP_JOB_H
#define QKV_APP_JOB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/figure/figure.h"
#include "qkv/attention.h"
#include "qkv/grid.h"
#include "qkv/cost.h"
#include "qkv/heads.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

enum job_kind { JOB_TRACE, JOB_SWEEP, JOB_FIGURE, JOB_COST };

/* What a change of the whole problem may need besides the problem: the seed of new
 * columns, and the three W's a tie keeps (filled by a tie, read by an untie). */
struct job_change_context {
	uint64_t column_seed;
	struct qkv_matrix *untied; /* three */
};
/* A change of the whole problem p (argument as the key gave it): 0 or a QKV_E code. */
typedef int (*job_change)(struct qkv_problem *p, int argument, const struct job_change_context *c);

struct job {
	enum job_kind kind;
	/* JOB_TRACE: the trace of problem (a multi-head problem: heads, and trace the
	 * single-head trace of head `head`). problem is either given whole, or copied
	 * on the thread from source (job_borrow) and then changed there. */
	struct qkv_problem problem;
	struct qkv_trace trace;
	struct qkv_heads_trace heads;
	int head;
	/* The borrowed source: a shallow view of a problem the app leaves unchanged
	 * until the copy is made or job_abandon returns; the thread copies it under
	 * `lock`, a piece at a time, and stops when the app has let go of it. */
	bool borrowed;
	struct qkv_problem source;
	pthread_mutex_t lock;
	bool source_gone;        /* under lock: the app no longer holds source still */
	const struct qkv_matrix *source_w[3]; /* non-NULL: copied as W_Q, W_K, W_V instead */
	/* After the copy: one cell set (cell_input >= 0), then change (when not NULL)
	 * and qkv_problem_check; change_failed says the change's code is the result. */
	int cell_input, cell_head, cell_row, cell_col;
	double cell_value;
	job_change change;
	int argument;
	uint64_t column_seed;
	struct qkv_matrix untied[3]; /* the job's own: the app's copied in for an untie */
	bool change_failed;
	/* has_saved: after the trace, problem is compared with saved (borrowed like
	 * source, its wrong-way demonstration not counted) into equal_saved. */
	bool has_saved, equal_saved;
	struct qkv_problem saved;
	/* has_before: after the trace, each grid of the trace (qkv_grid_in_trace) is
	 * compared with before's (borrowed like source) where both
	 * have the same shape and n: moved[g] has a byte per cell of trace's grid g,
	 * 1 where it moved (a weight also when its key was hidden or shown), and
	 * marked says the comparison was made. skip_qk: Q and K are not compared (a
	 * problem that gives them directly). */
	bool has_before, skip_qk, marked;
	struct qkv_trace before;
	unsigned char *moved[QKV_GRID_COUNT];
	size_t moved_cells[QKV_GRID_COUNT];
	/* JOB_SWEEP: qkv_sweep(tokens, trials, seed, d_k_max) into sweep. */
	int tokens, trials, d_k_max;
	uint64_t seed;
	struct qkv_sweep_point sweep[QKV_SWEEP_MAX_POINTS];
	/* JOB_FIGURE: the borrowed problem copied, its trace computed as JOB_TRACE's,
	 * then drawn in memory (figure_bytes; no file is touched): bytes (malloc'd,
	 * length bytes, NULL with err when it cannot be drawn). path is the name it
	 * is for (owned), kept for the app. */
	enum figure_format figure_format;
	struct figure_options figure; /* its stop: &stop */
	atomic_bool stop;             /* set by job_abandon: the drawing ends early */
	char *bytes, *path;
	size_t length;
	char err[512];
	/* JOB_COST: the table measured by job_slice on clock (never started on a
	 * thread: the clock is read by the caller of job_slice alone). */
	struct qkv_cost cost;
	bool has_cost;
	qkv_cost_clock clock;
	void *clock_context;
	int result;   /* qkv_attention's code, or qkv_sweep's count or code */
	_Atomic int state; /* running, done or abandoned (job.c) */
	bool started;      /* job_start was called */
};

/* A new job of that kind with empty problem and trace, or NULL. */
struct job *job_new(enum job_kind kind);
/* Makes source (a shallow view: nothing is copied here) the problem the thread
 * copies into job->problem before it computes; job->problem's storage, if any, is
 * reused. */
void job_borrow(struct job *job, const struct qkv_problem *source);
/* Makes saved (a shallow view, borrowed like source) the problem the result is
 * compared with once computed (job->equal_saved): the app's "modified". */
void job_compare_with(struct job *job, const struct qkv_problem *saved);
/* Makes before (a shallow view of the trace on the screen, borrowed like source)
 * the trace the result is compared with, grid by grid (job->moved). */
void job_mark_against(struct job *job, const struct qkv_trace *before, bool skip_qk);
/* Starts the computation on a thread. Returns 0, or -1 when no thread can be
 * made (the job then runs here, before job_start returns, and is done). */
int job_start(struct job *job);
/* JOB_COST: measures on for about slice_ms of the job's clock, on the caller's
 * thread; qkv_cost_step's code (1 while more is to come). */
int job_slice(struct job *job, double slice_ms);
/* True once the computation has ended (its result can be taken). */
bool job_done(struct job *job);
/* Frees a job that is done, or leaves a running one to free itself when it ends.
 * Once it returns, the thread no longer reads the borrowed source. */
void job_abandon(struct job *job);

#endif
