/* files.c — the app's requests performed on the file system (files.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/files.h"
#include "io/figure/figure.h"
#include "io/problem/save.h"
#include "qkv/colour.h"

/* What is at path, into f. */
static void look(const char *path, struct app_file *f)
{
	struct stat st;

	memset(f, 0, sizeof *f);
	if (stat(path, &st) != 0)
		return;
	f->exists = true;
	f->is_dir = S_ISDIR(st.st_mode);
	f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	f->size = (int64_t)st.st_size;
}

/* E's figure, drawn by a job into the request's bytes, to path, written
 * atomically; 0, or -1 with err. */
static int export_figure(const struct app *app, const char *path, char *err, size_t err_size)
{
	if (app->request.bytes == NULL) {
		snprintf(err, err_size, "%s: the figure was not drawn", path);
		return -1;
	}
	return save_bytes(path, app->request.bytes, app->request.length, err, err_size) != 0 ? -1 : 0;
}

/* The work the app handed over: a job to start, a job ended (taken in only when
 * started by an earlier call: the event after the one that made it), a slice of
 * the cost view's measurement. */
static int run_work(struct app *app, int64_t now_ms)
{
	int redraw = 0;

	if (app->job != NULL && app->job->started && job_done(app->job)) {
		struct event done = { .type = EVENT_JOB_DONE, .now_ms = now_ms };

		redraw |= app_update(app, &done);
	}
	if (app->job != NULL && !app->job->started)
		job_start(app->job);
	if (app->cost.measure != NULL && app->cost.asked) {
		struct event measured = { .type = EVENT_MEASURED, .now_ms = now_ms };

		measured.error = job_slice(app->cost.measure, APP_COST_SLICE_MS);
		redraw |= app_update(app, &measured);
	}
	return redraw;
}

int app_perform(struct app *app, int64_t now_ms)
{
	int redraw = run_work(app, now_ms);

	/* An answer makes at most one more request (a save after a look, a removal
	 * after a save): a few rounds always end it. */
	for (int round = 0; round < 8 && app->request.type != APP_REQUEST_NONE; round++) {
		const char *path = app->request.path;
		char err[1024];
		struct event answer = { .now_ms = now_ms };

		switch (app->request.type) {
		case APP_REQUEST_LOOK:
			answer.type = EVENT_LOOKED;
			look(path, &answer.file);
			break;
		case APP_REQUEST_SAVE:
			if (save_file(path, &app->problem, err, sizeof err) != 0) {
				answer.type = EVENT_SAVE_FAILED;
				answer.error = errno;
				answer.text = err;
			} else {
				answer.type = EVENT_SAVED;
				look(path, &answer.file);
			}
			break;
		case APP_REQUEST_EXPORT:
			if (export_figure(app, path, err, sizeof err) != 0) {
				answer.type = EVENT_SAVE_FAILED;
				answer.text = err;
			} else {
				answer.type = EVENT_SAVED;
				look(path, &answer.file);
			}
			break;
		case APP_REQUEST_REMOVE:
		default:
			answer.type = EVENT_REMOVED;
			answer.error = unlink(path) == 0 ? 0 : errno;
			break;
		}
		redraw |= app_update(app, &answer);
	}
	return redraw;
}
