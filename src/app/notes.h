/* notes.h — presenter notes on a second terminal. The lesson being presented
 * listens on a Unix socket of the user's own (no network): in $XDG_RUNTIME_DIR
 * when that is a private directory of the user's, else in /tmp/qkv-UID (made
 * 0700); the socket itself is 0600. One lesson at a time: a second one is refused
 * while the first answers; a socket left by a lesson that ended badly is replaced.
 * `qkv --notes FILE` connects and shows the full notes of the current and the
 * next step each time the step changes. No curses here. */
#ifndef QKV_APP_NOTES_H
#define QKV_APP_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "app/lesson.h"

#define NOTES_MAX_FOLLOWERS 8

struct notes_server {
	int fd;                              /* listening, non-blocking */
	int followers[NOTES_MAX_FOLLOWERS];  /* connected notes screens, -1 when free */
	char path[104];                      /* the socket (fits sun_path) */
	char *lesson;                        /* the lesson's full path, sent to followers (owned) */
	int sent_step, step_count;
};

/* The socket's name into buf (making the private directory in /tmp if needed).
 * 0, or -1 with one line in err. */
int notes_socket_path(char *buf, size_t size, char *err, size_t err_size);

/* Listens for notes screens of the lesson at lesson_path. 0, or -1 with one line
 * in err (another lesson answers; the directory is not private; …). */
int notes_server_open(struct notes_server *s, const char *lesson_path, int step_count, char *err,
		      size_t err_size);
/* Takes in new notes screens and tells every one the step (0-based) when it
 * changed or when they are new. Never blocks. */
void notes_server_poll(struct notes_server *s, int step);
/* True when at least one notes screen follows. */
bool notes_server_followed(const struct notes_server *s);
/* Closes every connection and removes the socket. */
void notes_server_close(struct notes_server *s);

/* Writes the notes of step (0-based) and of the next one to out, broken at spaces
 * to fit width columns (0: lines as written); clear first clears the terminal. */
void notes_write(FILE *out, const struct lesson *l, int step, bool clear, int width);

/* qkv --notes: follows the running lesson until it ends; the exit status (1 with
 * one line on stderr when no lesson is being presented). */
int notes_follow(const struct lesson *l);

#endif
