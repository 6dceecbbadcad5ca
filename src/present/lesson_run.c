/* lesson_run.c — presenting a lesson: the clicker's keys move through the steps,
 * every other event goes to app_update. A step is always rebuilt from the start
 * (lesson_build), so back, restart and jump land exactly where forward does; in
 * the background, on a thread with its own copy of the lesson, which the app never
 * sees until it is built. Ownership of a worker is settled by one atomic state, as
 * a job's (job.c): the thread moves RUNNING to DONE, the run moves RUNNING to
 * ABANDONED and the thread, finding that, frees the worker itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "present/lesson.h"

enum { WORKER_RUNNING, WORKER_DONE, WORKER_ABANDONED };
#define WAIT_INLINE_MS 50 /* a step built within this is taken at once, as before */

struct lesson_worker {
	struct lesson lesson;   /* its own copy: the presenter's may be freed first */
	int step;
	struct lesson_look look;
	struct lesson_control control;
	struct app app;         /* the step, once built (result 0) */
	int result;
	char err[600];
	atomic_int state;
};

static char *copy_text(const char *text, bool *failed)
{
	char *copy;

	if (text == NULL)
		return NULL;
	copy = strdup(text);
	*failed |= copy == NULL;
	return copy;
}

/* A deep copy of from into to: 0, or -1 (to then empty). */
static int copy_lesson(struct lesson *to, const struct lesson *from)
{
	bool failed = false;

	memset(to, 0, sizeof *to);
	to->path = copy_text(from->path, &failed);
	to->title = copy_text(from->title, &failed);
	to->steps = calloc((size_t)from->step_count + 1, sizeof *to->steps);
	to->actions = calloc((size_t)from->action_count + 1, sizeof *to->actions);
	if (to->steps == NULL || to->actions == NULL)
		failed = true;
	for (int i = 0; i < from->step_count && !failed; i++, to->step_count++) {
		to->steps[i] = from->steps[i];
		to->steps[i].title = copy_text(from->steps[i].title, &failed);
		to->steps[i].notes = copy_text(from->steps[i].notes, &failed);
	}
	for (int i = 0; i < from->action_count && !failed; i++, to->action_count++) {
		to->actions[i] = from->actions[i];
		to->actions[i].text = copy_text(from->actions[i].text, &failed);
	}
	if (failed) {
		lesson_free(to);
		return -1;
	}
	return 0;
}

static void worker_free(struct lesson_worker *w)
{
	if (w->result == 0)
		app_fini(&w->app);
	lesson_free(&w->lesson);
	free(w);
}

static void *build_step(void *data)
{
	struct lesson_worker *w = data;
	int running = WORKER_RUNNING;

	w->result = lesson_build(&w->lesson, w->step, &w->look, &w->app, w->err, sizeof w->err);
	if (!atomic_compare_exchange_strong(&w->state, &running, WORKER_DONE))
		worker_free(w); /* abandoned meanwhile: nobody else will */
	return NULL;
}

/* Lets go of the worker: it stops before its next action and frees itself. */
static void abandon(struct lesson_run *run)
{
	struct lesson_worker *w = run->worker;
	int running = WORKER_RUNNING;

	if (w == NULL)
		return;
	run->worker = NULL;
	atomic_store(&w->control.cancel, true);
	if (!atomic_compare_exchange_strong(&w->state, &running, WORKER_ABANDONED))
		worker_free(w); /* it had ended: ours to free */
}

void lesson_run_background(struct lesson_run *run)
{
	run->background = true;
}

bool lesson_run_busy(const struct lesson_run *run)
{
	return run->worker != NULL;
}

void lesson_run_fini(struct lesson_run *run)
{
	abandon(run);
}

static struct lesson_look look_of(const struct app *app)
{
	struct lesson_look look = { .width = app->width, .height = app->height, .palette = app->palette,
				    .palette_count = app->palette_count, .projector = app->projector,
				    .clock = app->cost.clock, .clock_context = app->cost.clock_context };
	return look;
}

int lesson_run_start(struct lesson_run *run, const struct lesson *l, const struct lesson_look *look,
		     struct app *app, char *err, size_t err_size)
{
	memset(run, 0, sizeof *run);
	run->lesson = l;
	return lesson_build(l, 0, look, app, err, err_size);
}

void lesson_run_tell(struct lesson_run *run, const char *sentence)
{
	snprintf(run->said, sizeof run->said, "%s", sentence);
}

/* Step `step`, built into next, becomes the app; redraw flags. */
static int arrive(struct lesson_run *run, struct app *app, struct app *next, int step)
{
	struct event resize = { .type = EVENT_RESIZE, .width = app->width, .height = app->height,
				.now_ms = app->now_ms };

	if (next->width != app->width || next->height != app->height)
		app_update(next, &resize); /* the terminal changed while the step was built */
	app_fini(app);
	*app = *next;
	if (run->explored)
		snprintf(run->said, sizeof run->said, "from the lesson's own state: changes by hand are set aside");
	else
		run->said[0] = '\0';
	run->explored = false;
	run->step = step;
	run->page = 0;
	run->jump[0] = '\0';
	run->moves++;
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* The progress of the step being built, on the lesson bar. */
static void say_building(struct lesson_run *run, int64_t now_ms)
{
	int done = atomic_load(&run->worker->control.actions_done);

	snprintf(run->said, sizeof run->said, "%s step %d: action %d of %d%s… %.1f s · Esc cancels",
		 run->building_refused ? "still building" : "building", run->building + 1,
		 done < run->building_actions ? done + 1 : run->building_actions, run->building_actions,
		 run->building_refused ? ", keys wait" : "", (double)(now_ms - run->building_since_ms) / 1000.0);
}

/* The worker's step taken in, when it is done; redraw flags. */
static int take_built(struct lesson_run *run, struct app *app)
{
	struct lesson_worker *w = run->worker;
	int flags;

	run->worker = NULL;
	if (w->result != 0) {
		snprintf(run->said, sizeof run->said, "%.300s", w->err);
		worker_free(w);
		return REDRAW_STATUS;
	}
	flags = arrive(run, app, &w->app, w->step);
	w->result = -1; /* the app is the run's now */
	worker_free(w);
	return flags;
}

static bool worker_done(const struct lesson_worker *w)
{
	return atomic_load(&w->state) == WORKER_DONE;
}

/* Starts building step on a thread; a step built within a moment is taken at
 * once. Redraw flags. */
static int build_beside(struct lesson_run *run, struct app *app, int step)
{
	struct lesson_worker *w = calloc(1, sizeof *w);
	pthread_t thread;
	int actions = 0;

	abandon(run);
	if (w == NULL || copy_lesson(&w->lesson, run->lesson) != 0) {
		free(w);
		snprintf(run->said, sizeof run->said, "out of memory: step %d was not built", step + 1);
		return REDRAW_STATUS;
	}
	w->step = step;
	w->look = look_of(app);
	w->look.control = &w->control;
	atomic_init(&w->control.cancel, false);
	atomic_init(&w->control.actions_done, 0);
	atomic_init(&w->state, WORKER_RUNNING);
	for (int s = 0; s <= step; s++)
		actions += run->lesson->steps[s].count;
	run->worker = w;
	run->building = step;
	run->building_actions = actions;
	run->building_since_ms = app->now_ms;
	run->building_refused = false;
	if (pthread_create(&thread, NULL, build_step, w) != 0) {
		build_step(w); /* no thread: built here */
	} else {
		pthread_detach(thread);
		for (int waited = 0; waited < WAIT_INLINE_MS && !worker_done(w); waited++) {
			struct timespec pause = { 0, 1000000 };

			nanosleep(&pause, NULL);
		}
	}
	if (worker_done(w))
		return take_built(run, app);
	say_building(run, app->now_ms);
	return REDRAW_STATUS;
}

int lesson_goto(struct lesson_run *run, struct app *app, int step)
{
	struct lesson_look look = look_of(app);
	struct app next;
	char err[600];

	if (step < 0)
		step = 0;
	if (step >= run->lesson->step_count)
		step = run->lesson->step_count - 1;
	if (run->background)
		return build_beside(run, app, step);
	if (lesson_build(run->lesson, step, &look, &next, err, sizeof err) != 0) {
		snprintf(run->said, sizeof run->said, "%.150s", err);
		return REDRAW_STATUS;
	}
	return arrive(run, app, &next, step);
}

/* Events while a step is built: ticks watch it, Esc and Ctrl-C cancel it (the
 * step shown stays), a resize reaches the app, other keys wait. */
static int building_event(struct lesson_run *run, struct app *app, const struct event *e)
{
	switch (e->type) {
	case EVENT_TICK:
		if (worker_done(run->worker))
			return take_built(run, app);
		say_building(run, e->now_ms);
		return REDRAW_STATUS;
	case EVENT_KEY:
		if (!e->pasted && (e->key == APP_KEY_ESCAPE || e->key == APP_KEY_CTRL_C)) {
			int building = run->building;

			abandon(run);
			snprintf(run->said, sizeof run->said, "cancelled: step %d was not built; this is still step %d",
				 building + 1, run->step + 1);
			return REDRAW_STATUS;
		}
		run->building_refused = true;
		say_building(run, e->now_ms);
		return REDRAW_STATUS;
	case EVENT_RESIZE:
		return app_update(app, e);
	default:
		return REDRAW_NONE;
	}
}

void lesson_notes_pages(struct lesson_run *run, int pages)
{
	run->pages = pages > 0 ? pages : 0;
	if (run->page >= run->pages)
		run->page = run->pages > 0 ? run->pages - 1 : 0;
}

/* True when the key is the lesson's rather than the app's. */
static bool lesson_key(const struct lesson_run *run, const struct app *app, const struct event *e)
{
	if (e->type != EVENT_KEY || e->pasted || app->editing || app->prompt != PROMPT_NONE || app_busy(app))
		return false;
	/* While a number is typed, Enter, Esc and Backspace finish or mend it. */
	if (run->jump[0] != '\0' && (e->key == APP_KEY_ENTER || e->key == APP_KEY_ESCAPE || e->key == APP_KEY_BACKSPACE))
		return true;
	return app_key_bound(APP_KEYS_LESSON, e->key); /* the key table's lesson rows */
}

int lesson_update(struct lesson_run *run, struct app *app, const struct event *e)
{
	int count = run->lesson->step_count, redraw;
	size_t typed = strlen(run->jump);

	if (run->worker != NULL)
		return building_event(run, app, e);
	if (!lesson_key(run, app, e)) {
		redraw = app_update(app, e);
		if ((e->type == EVENT_KEY || e->type == EVENT_CLICK || e->type == EVENT_WHEEL) && redraw != REDRAW_NONE
		    && !run->explored) {
			/* The notes leave the screen: every line they took is drawn again. */
			run->explored = true;
			redraw |= REDRAW_ALL;
		}
		return redraw;
	}
	switch (e->key) {
	case APP_KEY_PAGE_DOWN:
		if (run->page + 1 < run->pages) {
			run->page++;
			return REDRAW_STATUS;
		}
		if (run->step + 1 >= count) {
			snprintf(run->said, sizeof run->said, "the last step: Home starts again");
			return REDRAW_STATUS;
		}
		return lesson_goto(run, app, run->step + 1);
	case APP_KEY_PAGE_UP:
		if (run->page > 0) {
			run->page--;
			return REDRAW_STATUS;
		}
		return lesson_goto(run, app, run->step - 1);
	case APP_KEY_HOME:
		return lesson_goto(run, app, 0);
	case APP_KEY_END:
		return lesson_goto(run, app, count - 1);
	case APP_KEY_ESCAPE:
		run->jump[0] = '\0';
		run->said[0] = '\0';
		return REDRAW_STATUS;
	case APP_KEY_BACKSPACE:
		run->jump[typed - 1] = '\0';
		snprintf(run->said, sizeof run->said, "go to step %s_ (Enter goes, Esc cancels)", run->jump);
		return REDRAW_STATUS;
	case APP_KEY_ENTER: {
		long step = strtol(run->jump, NULL, 10);

		run->jump[0] = '\0';
		if (step < 1 || step > count) {
			snprintf(run->said, sizeof run->said, "there is no step %ld: the steps go from 1 to %d", step, count);
			return REDRAW_STATUS;
		}
		return lesson_goto(run, app, (int)step - 1);
	}
	default:
		if (typed + 1 < sizeof run->jump && typed < 4) {
			run->jump[typed] = (char)e->key;
			run->jump[typed + 1] = '\0';
		}
		snprintf(run->said, sizeof run->said, "go to step %s_ (Enter goes, Esc cancels)", run->jump);
		return REDRAW_STATUS;
	}
}
