/* notes_screen.h — the notes screen, `qkv --notes FILE`: a second terminal that
 * shows the presenter's notes of the current and the next step of the lesson
 * being presented (present/notes.h serves them). */
#ifndef QKV_TUI_NOTES_SCREEN_H
#define QKV_TUI_NOTES_SCREEN_H

#include "present/lesson.h"

/* Follows the running lesson until it ends, with the terminal's XON/XOFF flow
 * control off meanwhile; the exit status (1 with one line on stderr when no lesson
 * is being presented, 1 with a line on stdout when the presenter dropped this
 * screen for falling behind, 128 + N after signal N). */
int notes_screen_follow(const struct lesson *l);

#endif
