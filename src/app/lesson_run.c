/* lesson_run.c — presenting a lesson: the clicker's keys move through the steps,
 * every other event goes to app_update. A step is always rebuilt from the start
 * (lesson_build), so back, restart and jump land exactly where forward does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/lesson.h"

static struct lesson_look look_of(const struct app *app)
{
	struct lesson_look look = { .width = app->width, .height = app->height, .palette = app->palette,
				    .palette_count = app->palette_count, .projector = app->projector,
				    .clock = app->clock, .clock_context = app->clock_context };
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

int lesson_goto(struct lesson_run *run, struct app *app, int step)
{
	struct lesson_look look = look_of(app);
	struct app next;
	char err[600];

	if (step < 0)
		step = 0;
	if (step >= run->lesson->step_count)
		step = run->lesson->step_count - 1;
	if (lesson_build(run->lesson, step, &look, &next, err, sizeof err) != 0) {
		snprintf(run->said, sizeof run->said, "%.150s", err);
		return REDRAW_STATUS;
	}
	app_fini(app);
	*app = next;
	if (run->explored)
		snprintf(run->said, sizeof run->said, "from the lesson's own state: what was changed by hand is set aside");
	else
		run->said[0] = '\0';
	run->explored = false;
	run->step = step;
	run->jump[0] = '\0';
	run->moves++;
	return REDRAW_ALL | REDRAW_LAYOUT;
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
		if (run->step + 1 >= count) {
			snprintf(run->said, sizeof run->said, "the last step: Home starts again");
			return REDRAW_STATUS;
		}
		return lesson_goto(run, app, run->step + 1);
	case APP_KEY_PAGE_UP:
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
