/* notes.h — presenter notes on a second terminal. The lesson being presented
 * listens on a Unix socket of the user's own (no network): in $XDG_RUNTIME_DIR
 * when that is a private directory of the user's, else in TMP/qkv-UID (TMP is
 * $TMPDIR or /tmp; made 0700), and when that one is taken by another user or not
 * private, in a fresh folder TMP/qkv-UID.XXXXXX (mkdtemp), which the followers
 * find among the private folders of the user's there; the socket itself is 0600.
 * One lesson at a time: a second one is refused while the first answers; a socket
 * left by a lesson that ended badly is replaced. `qkv --notes FILE` connects and
 * shows the full notes of the current and the next step each time the step
 * changes. The presenter never waits for a notes screen: one that falls behind is
 * dropped and says so. No curses and no terminal control here: the notes screen
 * that follows is the interface's (tui/notes_screen.c). */
#ifndef QKV_PRESENT_NOTES_H
#define QKV_PRESENT_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "present/lesson.h"

#define NOTES_MAX_FOLLOWERS 8

struct notes_server {
	int fd;                              /* listening, non-blocking */
	int followers[NOTES_MAX_FOLLOWERS];  /* connected notes screens, -1 when free */
	char path[104];                      /* the socket (fits sun_path) */
	char folder[104];                    /* a fallback folder made for it, or "" */
	char said[300];                      /* "" or where the socket went, for the screen */
	char *lesson;                        /* the lesson's full path, sent to followers (owned) */
	int sent_step, step_count;
};

/* The socket of the lesson being presented into buf, as a notes screen finds it
 * (making the usual private folder if needed). 0, or -1 with one line in err. */
int notes_socket_path(char *buf, size_t size, char *err, size_t err_size);

/* Listens for notes screens of the lesson at lesson_path. 0, or -1 with one line
 * in err (another lesson answers; no private folder can be made; …). When the
 * socket had to go to a fallback folder, s->said says where. */
int notes_server_open(struct notes_server *s, const char *lesson_path, int step_count, char *err,
		      size_t err_size);
/* Takes in new notes screens and tells every one the step (0-based) when it
 * changed or when they are new. Never blocks. */
void notes_server_poll(struct notes_server *s, int step);
/* True when at least one notes screen follows. */
bool notes_server_followed(const struct notes_server *s);
/* Closes every connection (telling each screen that the lesson ended) and
 * removes the socket and the fallback folder made for it. */
void notes_server_close(struct notes_server *s);

/* A connection to the notes socket at path (as notes_socket_path finds it): its
 * descriptor, or -1 with errno set. The presenter sends "step N COUNT PATH" lines
 * and "end" (the follower's side: tui/notes_screen.h). */
int notes_connect(const char *path);

/* Writes the notes of step (0-based) and of the next one to out, broken at spaces
 * to fit width columns (0: lines as written). */
void notes_write(FILE *out, const struct lesson *l, int step, int width);

#endif
