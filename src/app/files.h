/* files.h — the caller's side of the app's requests: what app_update asks for
 * (look at a file, save the problem, delete a recovery copy) done with the real
 * file system, each answered with its event. The interface calls app_perform after
 * app_init and after every app_update; tests of the app's logic answer with events
 * of their own instead. */
#ifndef QKV_APP_FILES_H
#define QKV_APP_FILES_H

#include <stdint.h>

#include "app/app.h"

/* Performs the app's requests until none is left (each answer may make the next
 * one); returns the enum app_redraw flags of the answers. */
int app_perform(struct app *app, int64_t now_ms);

#endif
