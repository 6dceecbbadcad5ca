/* draw_lesson.h — the lesson's own lines while a lesson is presented: the step's
 * number and title always on the keys line, the step's notes in the lines the
 * layout reserved for them (above the message) while no presenter screen shows
 * them, a page at a time when the screen cannot hold them all. */
#ifndef QKV_TUI_DRAW_LESSON_H
#define QKV_TUI_DRAW_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "present/lesson.h"
#include "tui/layout.h"

/* The step's notes as the screen shows them (one paragraph) into buf, or NULL
 * when they are not shown: a presenter screen follows them (followed), something
 * was changed by hand during the step, or the step has none. */
const char *draw_lesson_notes(const struct lesson_run *run, bool followed, char *buf, size_t size);
/* Draws the lesson's lines (after draw_render, whose layout reserved the notes'
 * lines from l->notes) and makes the frame. */
void draw_lesson(const struct app *app, const struct layout *l, const struct lesson_run *run);

#endif
