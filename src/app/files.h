/* files.h — the caller's side of what the app asks for: its requests (look at a
 * file, save the problem, delete a recovery copy, write a figure) done with the
 * real file system, and its work (a job started on its thread, a job that ended,
 * a slice of the cost view's measurement on the clock), each answered with its
 * event. app_update itself touches no file, starts no thread and reads no clock.
 * The interface calls app_perform after app_init and after every app_update;
 * tests of the app's logic answer with events of their own instead. */
#ifndef QKV_APP_FILES_H
#define QKV_APP_FILES_H

#include <stdint.h>

#include "app/app.h"

/* Does the app's work (see above), then performs its requests until none is left
 * (each answer may make the next one); returns the enum app_redraw flags of the
 * answers. */
int app_perform(struct app *app, int64_t now_ms);

#endif
