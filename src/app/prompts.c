/* prompts.c — questions and files: quitting with unsaved changes, saving, save-as and
 * its typed name, overwriting, a file changed on disk, E's figure export, and the
 * recovery copy. The app only asks (struct app_request); its caller does the work. */
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/internal.h"
#include "io/report/print.h"
#include "qkv/text.h"

static int export_to(struct app *app, const char *path);

/* Remembers the modification time and size of the file at path as qkv last read
 * or wrote it, to notice someone else changing it meanwhile. */
/* Asks the caller for a look at, a save to or the removal of path (any earlier
 * request not yet answered is dropped). Out of memory, nothing is asked. */
void prompt_ask(struct app *app, enum app_request_type type, const char *path, int why)
{
	char *copy = strdup(path);

	free(app->request.path);
	free(app->request.bytes);
	app->request.bytes = NULL;
	app->request.length = 0;
	app->request.path = copy;
	app->request.type = copy != NULL ? type : APP_REQUEST_NONE;
	app->request.why = why;
	if (copy == NULL)
		app_say(app, true, "out of memory: %s was not %s", path, type == APP_REQUEST_SAVE ? "saved" : "read");
}

/* The request answered: none is left unless the answer makes the next one. */
static void answered(struct app *app)
{
	free(app->request.path);
	app->request.path = NULL;
	free(app->request.bytes);
	app->request.bytes = NULL;
	app->request.length = 0;
	app->request.type = APP_REQUEST_NONE;
}

/* The file as qkv last read or wrote it. */
static void note_disk(struct app *app, const struct app_file *f)
{
	app->disk_known = f->exists;
	app->disk_mtime_ns = f->mtime_ns;
	app->disk_size = f->size;
}

/* True when f is not the file as qkv last read or wrote it. */
static bool changed_on_disk(const struct app *app, const struct app_file *f)
{
	return app->disk_known && f->exists && (f->mtime_ns != app->disk_mtime_ns || f->size != app->disk_size);
}

/* The saved problem at path: it is the file now, and the recovery copy's changes are in it. */
static int saved(struct app *app, const char *path, const struct app_file *f)
{
	note_disk(app, f);
	if (app->path == NULL || strcmp(app->path, path) != 0) {
		char *copy = strdup(path);

		if (copy != NULL) {
			free(app->path);
			app->path = copy;
		}
	}
	/* Without a copy (out of memory) saved is left empty: the problem reads modified. */
	qkv_problem_copy(&app->saved, &app->problem);
	edit_update_dirty(app);
	app_say(app, false, "saved to %s", path);
	if (app->recovery != NULL && app->prompt != PROMPT_RECOVER) {
		/* The changes it kept are in the file now (or were declined). */
		prompt_ask(app, APP_REQUEST_REMOVE, app->recovery, REMOVE_SAVED);
		free(app->recovery);
		app->recovery = NULL;
	}
	return REDRAW_STATUS;
}

/* The save to path failed: the saver's sentence, or the errno's. */
static int save_failed(struct app *app, const char *path, const struct event *event)
{
	const char *err = event->text, *why = err != NULL ? strstr(err, ": cannot save: ") : NULL;

	if (err == NULL)
		app_say(app, true, "cannot save %s: %s", path, strerror(event->error));
	/* The reason must fit: a long name gives way, not the why. */
	else if (why != NULL && strlen(err) >= sizeof app->message)
		app_say(app, true, "cannot save %.60s…: %s", path, why + strlen(": cannot save: "));
	else
		app_say(app, true, "%s", err);
	return REDRAW_STATUS;
}

/* An answer from the caller to the request (a look, a save, a removal). */
int prompt_answer_file(struct app *app, const struct event *event)
{
	enum app_request_type type = app->request.type;
	int why = app->request.why, redraw = REDRAW_STATUS;
	char *path = app->request.path;

	if (type == APP_REQUEST_NONE || path == NULL)
		return REDRAW_NONE; /* nothing was asked: a stray answer */
	app->request.path = NULL;
	answered(app);
	if (event->type == EVENT_LOOKED && type == APP_REQUEST_LOOK) {
		if (why == LOOK_DISK) {
			note_disk(app, &event->file);
			redraw = REDRAW_NONE;
		} else if (why == LOOK_BEFORE_SAVE && changed_on_disk(app, &event->file)) {
			app->prompt = PROMPT_CHANGED;
		} else if (why == LOOK_BEFORE_SAVE) {
			prompt_ask(app, APP_REQUEST_SAVE, path, 0);
		} else if (event->file.is_dir) {
			app_say(app, true, "%s is a folder: type the name of a file in it", path);
		} else if (event->file.exists) {
			app->prompt = PROMPT_OVERWRITE;
		} else {
			app->prompt = PROMPT_NONE;
			if (app->exporting)
				export_to(app, path);
			else
				prompt_ask(app, APP_REQUEST_SAVE, path, 0);
		}
	} else if (event->type == EVENT_SAVED && type == APP_REQUEST_EXPORT) {
		int stage = app_figure_stage(app);

		app_say(app, false, "stage %d (%s) exported to %s", stage, qkv_stage_name((enum qkv_stage)stage), path);
	} else if (event->type == EVENT_SAVE_FAILED && type == APP_REQUEST_EXPORT) {
		app_say(app, true, "%s", event->text != NULL ? event->text : strerror(event->error));
	} else if (event->type == EVENT_SAVED && type == APP_REQUEST_SAVE) {
		redraw = saved(app, path, &event->file);
	} else if (event->type == EVENT_SAVE_FAILED && type == APP_REQUEST_SAVE) {
		redraw = save_failed(app, path, event);
	} else if (event->type == EVENT_REMOVED && type == APP_REQUEST_REMOVE) {
		if (why == REMOVE_SAVED)
			redraw = REDRAW_NONE;
		else if (event->error != 0)
			app_say(app, true, "%s: cannot delete the recovery copy (%s)", path, strerror(event->error));
		else
			app_say(app, false, "recovery copy %s deleted", path);
	} else {
		redraw = REDRAW_NONE; /* an answer to another question */
	}
	free(path);
	return redraw;
}

/* The stage E draws: the one on screen, or the weights in the live view (and
 * where the stage has no figure). */
int app_figure_stage(const struct app *app)
{
	return app->stage == APP_STAGE_LIVE || !figure_stage_drawable(&app->problem, app->stage)
	       ? QKV_STAGE_WEIGHTS : app->stage;
}

void app_figure_options(const struct app *app, struct figure_options *o)
{
	figure_options_default(o);
	o->stage = app_figure_stage(app);
	o->palette = app->projector && app->palette == QKV_PALETTE_VIRIDIS ? QKV_PALETTE_PROJECTOR : app->palette;
	/* viridis is drawn as the continuous map; the other palettes as their steps. */
	o->map = o->palette == QKV_PALETTE_VIRIDIS ? QKV_MAP_VIRIDIS : -1;
	/* Several heads: live and in stages 6 and 7 the screen shows every head's
	 * weights, in stages 1 to 5 the selected head's grids. */
	o->head = app->problem.h > 0 && (app->stage == APP_STAGE_LIVE || app->stage >= APP_STAGE_CONCAT) ? -1
													 : app->head;
	o->cell_row = app_query(app);
	o->cell_col = o->stage == QKV_STAGE_OUTPUT ? app_value_col(app) : app_key(app);
}

/* E's name typed: the format from its ending, then the figure is drawn by a job
 * beside the interface (Esc cancels it, and nothing is written); once drawn, the
 * caller is asked to write its bytes (app_perform). */
static int export_to(struct app *app, const char *path)
{
	const char *dot = strrchr(path, '.');
	enum figure_format format;
	struct job *job;
	int stage;

	if (dot == NULL || print_figure_format_parse(dot + 1, &format) != 0) {
		app_say(app, true, "%s: name the figure .svg, .pdf or .png", path);
		return REDRAW_STATUS;
	}
	job = job_new(JOB_FIGURE);
	if (job == NULL || (job->path = strdup(path)) == NULL) {
		job_abandon(job);
		app_say(app, true, "out of memory: %s was not exported", path);
		return REDRAW_STATUS;
	}
	job->figure_format = format;
	app_figure_options(app, &job->figure);
	job->head = app->head;
	job_borrow(job, &app->problem);
	stage = job->figure.stage;
	snprintf(app->job_what, sizeof app->job_what, "the figure of stage %d (%s) for %s", stage,
		 qkv_stage_name((enum qkv_stage)stage), path);
	compute_run(app, job);
	return REDRAW_STATUS;
}

/* A figure drawn: its bytes go to the caller to write, or its reason is said. */
int prompt_take_figure(struct app *app, struct job *job)
{
	if (job->bytes == NULL) {
		app_say(app, true, "%s", job->err[0] != '\0' ? job->err : "cannot draw the figure");
	} else {
		prompt_ask(app, APP_REQUEST_EXPORT, job->path, 0);
		if (app->request.type == APP_REQUEST_EXPORT) {
			app->request.bytes = job->bytes;
			app->request.length = job->length;
			job->bytes = NULL;
		}
	}
	job_abandon(job);
	return REDRAW_STATUS;
}

/* y to the recovery copy: the recovered problem replaces the file's (undo goes back
 * to the file's). */
int prompt_recover_open(struct app *app, int key)
{
	struct history_place place = edit_here(app);
	int rc;

	(void)key;
	if (history_push_problem(&app->history, &app->problem, place) != 0) {
		app_say(app, true, "out of memory: the recovery copy was not opened");
		return REDRAW_STATUS;
	}
	qkv_problem_fini(&app->problem);
	app->problem = app->recovered;
	qkv_problem_init(&app->recovered);
	app->prompt = PROMPT_NONE;
	edit_update_dirty(app);
	app->focus = app_first_input(app);
	if ((rc = marks_recompute(app, false)) != 0)
		return edit_change_failed(app, rc);
	app_say(app, false, "the recovered changes are open, not saved yet: w saves them, u goes back to the file");
	return REDRAW_ALL | REDRAW_LAYOUT;
}

/* n to the recovery copy: it is deleted (the caller is asked to). */
int prompt_recover_delete(struct app *app, int key)
{
	(void)key;
	app->prompt = PROMPT_NONE;
	qkv_problem_fini(&app->recovered);
	prompt_ask(app, APP_REQUEST_REMOVE, app->recovery, REMOVE_DECLINED);
	free(app->recovery);
	app->recovery = NULL;
	return REDRAW_STATUS;
}

/* Esc or Ctrl-C to the recovery copy: it stays for the next time. */
int prompt_recover_later(struct app *app, int key)
{
	(void)key;
	app->prompt = PROMPT_NONE;
	qkv_problem_fini(&app->recovered);
	app_say(app, false, "recovery copy kept in %s for the next time", app->recovery);
	free(app->recovery);
	app->recovery = NULL;
	return REDRAW_STATUS;
}

/* key as UTF-8 into out (4 bytes); the byte count, 0 for a surrogate. */
static size_t utf8_encode(unsigned int key, char *out)
{
	if (key < 0x80) {
		out[0] = (char)key;
		return 1;
	}
	if (key < 0x800) {
		out[0] = (char)(0xc0 | key >> 6);
		out[1] = (char)(0x80 | (key & 0x3f));
		return 2;
	}
	if (key >= 0xd800 && key <= 0xdfff)
		return 0;
	if (key < 0x10000) {
		out[0] = (char)(0xe0 | key >> 12);
		out[1] = (char)(0x80 | (key >> 6 & 0x3f));
		out[2] = (char)(0x80 | (key & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | key >> 18);
	out[1] = (char)(0x80 | (key >> 12 & 0x3f));
	out[2] = (char)(0x80 | (key >> 6 & 0x3f));
	out[3] = (char)(0x80 | (key & 0x3f));
	return 4;
}

/* y to a question: quit, save over the changed file, or overwrite the named one. */
int prompt_answer_yes(struct app *app, int key)
{
	enum app_prompt prompt = app->prompt;

	(void)key;
	app->prompt = PROMPT_NONE;
	if (prompt == PROMPT_QUIT)
		app->quit = true;
	else if (prompt == PROMPT_OVERWRITE && app->exporting)
		return export_to(app, app->answer);
	else
		prompt_ask(app, APP_REQUEST_SAVE, prompt == PROMPT_CHANGED ? app->path : app->answer, 0);
	return REDRAW_STATUS;
}

/* n, Esc or Ctrl-C to a question (Ctrl-\ too to quitting's): nothing is done. */
int prompt_answer_no(struct app *app, int key)
{
	enum app_prompt prompt = app->prompt;

	if (key == APP_KEY_CTRL_BACKSLASH && prompt != PROMPT_QUIT)
		return REDRAW_NONE;
	app->prompt = PROMPT_NONE;
	if (prompt == PROMPT_QUIT)
		app_say(app, false, "not quitting");
	else if (prompt == PROMPT_CHANGED)
		app_say(app, false, "not saved: %s stays as it is on disk", app->path);
	else
		app_say(app, false, app->exporting ? "not exported" : "not saved");
	return REDRAW_STATUS;
}

/* Esc or Ctrl-C while a name is typed: not saved. */
int prompt_save_as_cancel(struct app *app, int key)
{
	(void)key;
	app->prompt = PROMPT_NONE;
	app_say(app, false, app->exporting ? "not exported" : "not saved");
	return REDRAW_STATUS;
}

/* Backspace or Delete: the name's last character (UTF-8, whole); Ctrl-U: all of it. */
int prompt_save_as_erase(struct app *app, int key)
{
	size_t length = strlen(app->answer);

	if (key == APP_KEY_CTRL_U) {
		app->answer[0] = '\0';
		return REDRAW_STATUS;
	}
	/* One character: back over UTF-8 continuation bytes. */
	while (length > 0 && ((unsigned char)app->answer[length - 1] & 0xc0) == 0x80)
		app->answer[--length] = '\0';
	if (length > 0)
		app->answer[length - 1] = '\0';
	return REDRAW_STATUS;
}

/* Enter on a typed name: what is there is looked at first (a folder, a file). */
int prompt_save_as_enter(struct app *app, int key)
{
	(void)key;
	if (app->answer[0] == '\0')
		return REDRAW_NONE;
	prompt_ask(app, APP_REQUEST_LOOK, app->answer, LOOK_SAVE_AS);
	return REDRAW_STATUS;
}

/* Any other key while a name is typed: a printable character is added to it. */
static int save_as_type(struct app *app, int key)
{
	size_t length = strlen(app->answer);

	if (key >= 0x20 && key < APP_KEY_UP && !qkv_is_control(key)) {
		char bytes[4];
		size_t count = utf8_encode((unsigned int)key, bytes);

		if (count > 0 && length + count < sizeof app->answer) {
			memcpy(app->answer + length, bytes, count);
			app->answer[length + count] = '\0';
		}
	}
	return REDRAW_STATUS;
}

/* A key while a question is asked: its binding in the key table; a name's text. */
int prompt_key(struct app *app, int key)
{
	const struct app_binding *b = app_binding_find(app_key_context(app), key);

	if (b != NULL)
		return b->handler(app, key);
	return app->prompt == PROMPT_SAVE_AS ? save_as_type(app, key) : REDRAW_NONE;
}
