/* compute.c — changes whose trace is too long for the time between two keys: they
 * run as jobs beside the interface (app/job.h), and are taken in, or cancelled,
 * on later events. The screen keeps the state before a job until it is taken in. */
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "qkv/error.h"

/* Multiply-adds of a whole trace: the projections, Q Kᵀ and A V. */
double compute_trace_cost(const struct qkv_problem *p)
{
	if (p->h > 0)
		return qkv_heads_cost(p);
	double m = p->m, n = p->n, d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p);
	double cost = m * n * (d_k + d_v);

	if (p->form == QKV_FORM_PROJECTED)
		cost += (m * d_k + n * (d_k + d_v)) * qkv_problem_d_model(p);
	return cost;
}

/* Multiply-adds of a sweep: each trial of each d_k = 1, 2, 4, … (2 d_k_max in all). */
double compute_sweep_cost(int tokens, int trials, int d_k_max)
{
	return (double)trials * tokens * tokens * 2.0 * d_k_max;
}

/* True while a computation runs beside the interface. */
bool app_busy(const struct app *app)
{
	return app->job != NULL;
}

/* The progress line; once a key has been refused, it says the keys wait. */
void compute_say_progress(struct app *app)
{
	app_say(app, app->job_refused, "%s %s%s… %.1f s · Esc cancels", app->job_refused ? "still computing" : "computing",
	    app->job_what, app->job_refused ? ", keys wait" : "", (double)(app->now_ms - app->job_started_ms) / 1000.0);
}

/* Bytes of a problem's matrices: what a copy of it moves. */
static double matrix_bytes(const struct qkv_problem *p)
{
	double bytes = 0;

	for (int i = 0; i < QKV_GRID_INPUTS; i++) {
		const struct qkv_matrix *m = qkv_problem_input_const(p, (enum qkv_grid)i);

		if (m != NULL)
			bytes += (double)m->rows * m->cols * sizeof(double);
	}
	for (int i = 0; i < p->h; i++)
		bytes += ((double)p->heads[i].w_q.rows * p->heads[i].w_q.cols * 2 +
			  (double)p->heads[i].w_v.rows * p->heads[i].w_v.cols) * sizeof(double);
	return bytes;
}

/* Bytes above which a problem is not copied between two keys (some 10 ms). */
#define JOB_BYTES (16.0 * 1024 * 1024)

/* A problem whose changes run as jobs: its copy or its trace takes long. */
bool compute_problem_is_long(const struct qkv_problem *p)
{
	return compute_trace_cost(p) > JOB_COST / 2 || matrix_bytes(p) > JOB_BYTES;
}

/* What a trace job computes, for the progress line: the trace of a problem of n
 * tokens, d_k, d_v and d_model like p's. */
static void job_words_of(struct app *app, const struct qkv_problem *p, int n, int d_k, int d_v, int d_model)
{
	if (p->h > 0)
		snprintf(app->job_what, sizeof app->job_what, "the %d heads of %d tokens, d_model %d", p->h, n, d_model);
	else
		snprintf(app->job_what, sizeof app->job_what, "the trace of %d tokens, d_k %d, d_v %d%s", n, d_k, d_v,
			 p->form == QKV_FORM_PROJECTED ? " through the projections" : "");
}

static void job_words(struct app *app, const struct qkv_problem *p)
{
	job_words_of(app, p, p->n, qkv_problem_d_k(p), qkv_problem_d_v(p), qkv_problem_d_model(p));
}

/* Hands job to the caller to run (app_perform starts it after this event): the
 * screen says what it computes, and keys wait until EVENT_JOB_DONE. */
void compute_run(struct app *app, struct job *job)
{
	app->job = job;
	app->job_started_ms = app->now_ms;
	app->job_refused = false;
	compute_say_progress(app);
}

/* A trace job with the storage of an earlier job's copy to copy into, or NULL. */
static struct job *new_trace_job(struct app *app)
{
	struct job *job = job_new(JOB_TRACE);

	if (job != NULL) {
		job->problem = app->spare; /* storage of an earlier job, reused */
		qkv_problem_init(&app->spare);
		job->head = app->head;
	}
	return job;
}

static void run_job(struct app *app, struct job *job)
{
	/* "Modified" and the marks of what moved are found beside the interface too. */
	job_compare_with(job, &app->saved);
	job_mark_against(job, &app->trace, app->problem.form != QKV_FORM_PROJECTED);
	compute_run(app, job);
}

/* Computes the trace of app->problem (just changed by a history step or a new
 * cell edit) as a job, and meanwhile steps the history back so the problem matches
 * the trace on the screen; replay is the step that makes the job's problem current
 * again. The job copies that problem on its thread from what the step back left:
 * the entry's snapshot, or the app's problem and the entry's cell. Returns false
 * when the job cannot be made (then nothing has moved). */
bool compute_start_trace_job(struct app *app, int replay, bool new_change, const char *done,
			     const struct history_place *place)
{
	struct job *job = new_trace_job(app);
	struct history_place ignored;
	const struct history_entry *e;

	if (job == NULL)
		return false;
	if (replay == REPLAY_REDO)
		history_undo(&app->history, &app->problem, &ignored);
	else
		history_redo(&app->history, &app->problem, &ignored);
	e = &app->history.entries[replay == REPLAY_REDO ? app->history.position : app->history.position - 1];
	if (e->is_cell) {
		job_borrow(job, &app->problem);
		job->cell_input = (int)e->input;
		job->cell_head = e->place.head;
		job->cell_row = e->row;
		job->cell_col = e->col;
		job->cell_value = e->value;
	} else {
		job_borrow(job, &e->snapshot);
	}
	if (place != NULL && place->head >= 0)
		job->head = place->head; /* the class sees the head the change was in */
	app->job_is_change = false;
	app->job_change = NULL; /* edit_change_problem names a change whose trace this is */
	app->job_replay = replay;
	app->job_new_change = new_change;
	app->job_has_place = place != NULL;
	app->job_has_cell = false;
	if (place != NULL)
		app->job_place = *place;
	snprintf(app->job_message, sizeof app->job_message, "%s", done != NULL ? done : "");
	job_words(app, e->is_cell ? &app->problem : &e->snapshot);
	run_job(app, job);
	return true;
}

/* A change of the whole problem made by a job: the job copies the app's problem
 * (lent unchanged until the job is done or dropped), changes and checks the copy
 * and computes its trace; take_job then keeps the app's problem as the undo step
 * and takes the copy. Returns false when the job cannot be made. */
bool compute_start_change_job(struct app *app, job_change change, int argument, const char *done,
			      struct history_place place)
{
	struct job *job = new_trace_job(app);

	if (job == NULL)
		return false;
	job_borrow(job, &app->problem);
	job->change = change;
	job->argument = argument;
	job->column_seed = app->column_seed;
	for (int i = 0; i < 3; i++)
		if (qkv_matrix_copy(&job->untied[i], &app->untied[i]) != 0) {
			job_abandon(job);
			return false;
		}
	app->job_is_change = true;
	app->job_change = change;
	app->job_argument = argument;
	app->job_change_place = place;
	app->job_new_change = true;
	app->job_has_place = false;
	app->job_has_cell = false;
	snprintf(app->job_message, sizeof app->job_message, "%s", done != NULL ? done : "");
	{
		/* The progress line names the problem the change makes. */
		const struct qkv_problem *p = &app->problem;
		int n = p->n, d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p), d_model = qkv_problem_d_model(p);

		if (change == change_insert_token)
			n++;
		else if (change == change_remove_token)
			n--;
		else if (change == change_d_k || change == change_draw_d_k)
			d_k = argument;
		else if (change == change_d_v)
			d_v = argument;
		else if (change == change_d_model)
			d_model = argument;
		else if (change == change_identity && argument == 1)
			d_k = d_v = d_model;
		else if (change == change_identity)
			d_k = app->untied[0].cols, d_v = app->untied[2].cols;
		job_words_of(app, p, n, d_k, d_v, d_model);
	}
	run_job(app, job);
	return true;
}

/* A job that has ended: its trace (or sweep) becomes the app's. */
static int take_job(struct app *app)
{
	struct job *job = app->job;
	struct history_place place;
	struct qkv_trace swap;
	int rc = job->result;

	app->job = NULL;
	if (job->kind == JOB_FIGURE)
		return prompt_take_figure(app, job);
	if (job->kind == JOB_SWEEP) {
		if (rc < 0) {
			app->saturation.tokens = app->job_tokens;
			app->saturation.trials = app->job_trials;
			app_say(app, true, "the sweep failed: %s", qkv_error_string(rc));
		} else {
			memcpy(app->saturation.sweep, job->sweep, sizeof app->saturation.sweep);
			app->saturation.count = rc;
			app->message[0] = '\0';
		}
		job_abandon(job);
		return REDRAW_OVERLAY | REDRAW_STATUS;
	}
	if (rc != 0 && app->job_is_change && job->change_failed) {
		app_say(app, true, "%s", rc == QKV_ELIMIT ? "that is above qkv's limits (1024 tokens, 4096 columns)"
						      : qkv_error_string(rc));
		job_abandon(job);
		return REDRAW_ALL;
	}
	if (rc != 0) {
		if (app->job_new_change && !app->job_is_change)
			history_drop_redo(&app->history);
		app_say(app, true, "cannot compute: %s; nothing changed", qkv_error_string(rc));
		job_abandon(job);
		return REDRAW_ALL;
	}
	if (app->job_is_change) {
		/* The app's problem becomes the undo step, the job's copy the problem. */
		if (history_push_moved(&app->history, &app->problem, app->job_change_place) != 0) {
			app_say(app, true, "out of memory: the change was not made");
			job_abandon(job);
			return REDRAW_ALL;
		}
		app->problem = job->problem;
		if (app->job_change == change_identity && app->job_argument == 1)
			for (int i = 0; i < 3; i++) {
				struct qkv_matrix kept = app->untied[i];

				app->untied[i] = job->untied[i];
				job->untied[i] = kept;
			}
	} else {
		if (app->job_replay == REPLAY_REDO)
			history_redo(&app->history, &app->problem, &place);
		else
			history_undo(&app->history, &app->problem, &place);
		/* The job's copy is kept, for the next copy to reuse its storage; the
		 * one kept before leaves with the job, freed beside the interface. */
		struct qkv_problem old = app->spare;

		app->spare = job->problem;
		job->problem = old;
	}
	if (app->job_is_change)
		qkv_problem_init(&job->problem);
	/* The old trace is kept as the one before (its storage exchanged, not copied). */
	rc = marks_keep_taking(app, &app->trace);
	if (rc == 0 && app->problem.h > 0) {
		struct qkv_heads_trace heads = app->heads;

		if (app->heads.h > 0)
			rc = marks_keep_heads(app);
		app->heads = job->heads;
		job->heads = heads;
		app->head = job->head;
	}
	swap = app->trace;
	app->trace = job->trace;
	job->trace = swap;
	app->dirty = !job->equal_saved;
	if (rc == 0 && app->problem.h > 0)
		rc = marks_heads(app, true);
	/* What moved was found by the job (the same comparison as marks_mark's). */
	if (marks_settle_trace(app, rc, false) == 0 && rc == 0) {
		for (int g = 0; g < QKV_GRID_COUNT && job->marked; g++) {
			unsigned char *moved = app->moved[g];

			if (!qkv_grid_in_trace((enum qkv_grid)g))
				continue;
			app->moved[g] = job->moved[g];
			app->moved_capacity[g] = job->moved_cells[g];
			job->moved[g] = moved;
		}
		if (!job->marked)
			marks_mark(app, -1, -1);
		app->mark_until_ms = app->now_ms + APP_MARK_MS;
	}
	job_abandon(job);
	if (app->job_has_place && app->job_place.focus >= 0 && app->job_place.focus < QKV_GRID_COUNT &&
	    (app_focus_is_input(app, (enum qkv_grid)app->job_place.focus) ||
	     app->job_place.focus >= QKV_GRID_WEIGHTS)) {
		app->focus = (enum qkv_grid)app->job_place.focus;
		app->cursor[app->focus].row = app->job_place.row;
		app->cursor[app->focus].col = app->job_place.col;
		app_clamp_cursors(app);
	}
	if (rc == 0 && app->job_has_cell) {
		const struct qkv_matrix *m = app_focus_matrix(app, (enum qkv_grid)app->job_cell.focus);

		app->moved_input = (enum qkv_grid)app->job_cell.focus;
		if (m != NULL && app->job_cell.row < m->rows && app->job_cell.col < m->cols)
			app->moved_inputs[(size_t)app->job_cell.row * (size_t)m->cols + (size_t)app->job_cell.col] = 1;
	}
	if (rc == 0 && app->job_has_place) {
		edit_say_undone(app, app->job_replay == REPLAY_REDO);
	} else if (rc == 0 && app->job_has_cell && app->history.position > 0 &&
		   app->history.entries[app->history.position - 1].is_cell) {
		/* The edit's words again, now that what it reached is known: the undo
		 * step holds the value before. */
		const struct qkv_matrix *m = app_focus_matrix(app, (enum qkv_grid)app->job_cell.focus);

		if (m != NULL && app->job_cell.row < m->rows && app->job_cell.col < m->cols)
			marks_describe_change(app, (enum qkv_grid)app->job_cell.focus, app->job_cell.row, app->job_cell.col,
					app->history.entries[app->history.position - 1].value,
					qkv_matrix_get(m, app->job_cell.row, app->job_cell.col));
	} else if (rc == 0) {
		app_say(app, false, "%s", app->job_message);
		if (app->job_change != NULL)
			options_after_change(app, app->job_change, app->job_argument);
	}
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* Esc: the job is dropped and everything stays as it was before it. */
static int cancel_job(struct app *app)
{
	if (app->job->kind == JOB_FIGURE) {
		app_say(app, false, "cancelled: %s was not written", app->job->path);
		job_abandon(app->job);
		app->job = NULL;
		return REDRAW_STATUS;
	}
	if (app->job->kind == JOB_SWEEP) {
		app->saturation.tokens = app->job_tokens;
		app->saturation.trials = app->job_trials;
	} else if (app->job_new_change && !app->job_is_change) {
		history_drop_redo(&app->history); /* the cell edit's entry (a change job has none yet) */
	}
	job_abandon(app->job);
	app->job = NULL;
	app_say(app, false, "cancelled: %s was not computed, everything stays as it was", app->job_what);
	return REDRAW_ALL;
}

/* Events while a job runs: ticks move its progress line, its end takes it in, Esc and Ctrl-C cancel it, other keys
 * and the mouse wait. Returns -1 for events handled as ever (resizes). */
int compute_job_event(struct app *app, const struct event *event)
{
	switch (event->type) {
	case EVENT_JOB_DONE:
		return job_done(app->job) ? take_job(app) : REDRAW_NONE;
	case EVENT_TICK:
		compute_say_progress(app);
		return REDRAW_STATUS;
	case EVENT_CLICK:
	case EVENT_WHEEL:
		return REDRAW_NONE;
	case EVENT_KEY:
		if (!event->pasted && (event->key == APP_KEY_ESCAPE || event->key == APP_KEY_CTRL_C))
			return cancel_job(app);
		app->job_refused = true;
		compute_say_progress(app);
		return REDRAW_STATUS;
	case EVENT_RESIZE:
	default:
		return -1; /* a resize and the answers about files are taken as always */
	}
}
