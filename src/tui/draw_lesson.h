/* draw_lesson.h — the lesson's own lines over the screen while a lesson is
 * presented: the step's number and title always on the keys line, the step's
 * notes on the message line while no presenter screen follows. */
#ifndef QKV_TUI_DRAW_LESSON_H
#define QKV_TUI_DRAW_LESSON_H

#include <stdbool.h>

#include "app/lesson.h"
#include "tui/layout.h"

/* Draws the lesson's lines (after draw_render) and makes the frame. followed:
 * a presenter screen shows the notes, so the message line is left to qkv. */
void draw_lesson(const struct app *app, const struct layout *l, const struct lesson_run *run, bool followed);

#endif
