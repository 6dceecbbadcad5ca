/* tui.h — the interactive interface (ncurses). main.c calls tui_run after the
 * options are parsed and the problem is loaded; tui_run owns the terminal until it
 * returns, and restores it on every path. */
#ifndef QKV_TUI_H
#define QKV_TUI_H

#include <stdbool.h>

#include "qkv/problem.h"
#include "qkv/train.h"

struct lesson;

struct tui_options {
	const char *palette;  /* palette name, or NULL for viridis */
	const char *color;    /* colour depth: auto, truecolor, 256, 8, mono; NULL is auto */
	bool projector;       /* start in projector mode */
	double pace;          /* autoplay seconds per step (> 0) */
	const struct lesson *lesson; /* a lesson to present (replayed, its steps on PgDn), or NULL */
	const char *record;   /* --record: the asciicast v2 file to write, or NULL */
	bool record_force;    /* --force: the recording may replace an existing file */
	const struct qkv_train_config *train; /* open on the learning view, or NULL */
	bool recover;         /* --recover: offer a recovery copy of path (else only say where it is) */
};

/* Runs the interface on p (taken over: tui_run finishes it), editing the file at
 * path (NULL for an unsaved problem). Returns the exit status: 0, 1 for a runtime
 * failure (a message was printed after the terminal was restored; an incomplete
 * recording is one), 2 when the terminal is unusable (TERM unset, dumb or unknown;
 * stdout not a terminal) or the recording's file is refused. */
int tui_run(struct qkv_problem *p, const char *path, const struct tui_options *o);

#endif
