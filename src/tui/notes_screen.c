/* notes_screen.c — `qkv --notes FILE`: the presenter's notes on a second terminal,
 * following the lesson being presented through its socket (present/notes.h). The
 * terminal is this file's: its width, its flow control (off, so Ctrl-S there
 * cannot stop the notes) and its clearing. No curses: it writes lines. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "io/problem/quote.h"
#include "present/notes.h"
#include "qkv/text.h"
#include "tui/notes_screen.h"

#define CLEAR "\033[H\033[2J" /* the cursor home, the screen cleared */

/* The terminal's width, or 0 when standard output is no terminal. */
static int terminal_width(void)
{
	struct winsize size;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0)
		return 0;
	return size.ws_col - 1;
}

/* Flow control off on the notes terminal, so Ctrl-S there cannot stop the notes
 * (the presenter would then drop this screen); *saved keeps the modes to put back. */
static bool flow_control_off(struct termios *saved)
{
	struct termios modes;
	int fd = isatty(STDOUT_FILENO) ? STDOUT_FILENO : STDIN_FILENO;

	if (!isatty(fd) || tcgetattr(fd, saved) != 0)
		return false;
	modes = *saved;
	modes.c_iflag &= ~(tcflag_t)IXON;
	return tcsetattr(fd, TCSANOW, &modes) == 0;
}

static void flow_control_back(const struct termios *saved)
{
	tcsetattr(isatty(STDOUT_FILENO) ? STDOUT_FILENO : STDIN_FILENO, TCSANOW, saved);
}

/* The signals that end the notes screen; blocked, and looked for between reads,
 * so the terminal's modes go back before it ends. */
static const int follow_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* The first of follow_signals pending, taken, or 0. */
static int follow_signal_pending(void)
{
	sigset_t pending;

	if (sigpending(&pending) != 0)
		return 0;
	for (size_t i = 0; i < sizeof follow_signals / sizeof follow_signals[0]; i++)
		if (sigismember(&pending, follow_signals[i])) {
			sigset_t one;
			int taken;

			sigemptyset(&one);
			sigaddset(&one, follow_signals[i]);
			sigwait(&one, &taken);
			return taken;
		}
	return 0;
}

/* The longest line a presenter sends that a notes screen keeps: a path is at
 * most PATH_MAX bytes on Linux, and a line longer than this is dropped. */
#define NOTES_LINE_MAX (64 * 1024)

/* Reads the presenter's lines until the connection ends: 1 when the lesson said it
 * ended, 0 when the connection closed without that, 128 + N for a signal N. */
static int follow_lines(int fd, const struct lesson *l, const char *mine, bool terminal)
{
	size_t held = 0, capacity = 4096;
	char *buffer = malloc(capacity);
	int result = -1;

	if (buffer == NULL)
		return 0;
	while (result < 0) {
		struct pollfd ready = { .fd = fd, .events = POLLIN };
		ssize_t got;
		char *newline;
		int signal_number = follow_signal_pending();

		if (signal_number != 0) {
			result = 128 + signal_number;
			break;
		}
		if (poll(&ready, 1, 200) == 0)
			continue;
		if (held + 1 >= capacity) {
			char *grown = capacity < NOTES_LINE_MAX ? realloc(buffer, capacity * 2) : NULL;

			if (grown != NULL) {
				buffer = grown;
				capacity *= 2;
			} else {
				held = 0; /* a line too long to be a presenter's: dropped */
			}
		}
		got = read(fd, buffer + held, capacity - 1 - held);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0) {
			result = 0;
			break;
		}
		held += (size_t)got;
		buffer[held] = '\0';
		while ((newline = strchr(buffer, '\n')) != NULL) {
			int step = 0, count = 0, used = 0;

			*newline = '\0';
			if (strcmp(buffer, "end") == 0) {
				result = 1;
				break;
			}
			if (sscanf(buffer, "step %d %d %n", &step, &count, &used) == 2 && used > 0) {
				size_t offset;
				unsigned int code;

				if (qkv_text_find_control(buffer + used, strlen(buffer + used), &offset, &code)) {
					/* Never written to the terminal: it would act rather than show. */
				} else if (strcmp(buffer + used, mine) != 0) {
					char *shown = quote_dup(l->path);

					fprintf(stdout, "%sThe lesson being presented is %s, not %s.\n", terminal ? CLEAR : "",
						buffer + used, shown != NULL ? shown : "this one");
					free(shown);
					fflush(stdout);
				} else if (step >= 1 && step <= l->step_count) {
					{
					if (terminal)
						fputs(CLEAR, stdout);
					notes_write(stdout, l, step - 1, terminal_width());
				}
				}
			}
			held -= (size_t)(newline + 1 - buffer);
			memmove(buffer, newline + 1, held + 1);
		}
	}
	free(buffer);
	return result;
}

int notes_screen_follow(const struct lesson *l)
{
	char path[104], err[400], *mine;
	int fd, ended, status;
	bool terminal = isatty(STDOUT_FILENO), quiet;
	struct termios saved;
	sigset_t blocked, before;

	if (notes_socket_path(path, sizeof path, err, sizeof err) != 0 || (fd = notes_connect(path)) < 0) {
		fprintf(stderr, "qkv: no lesson is being presented (qkv --lesson FILE starts one)\n");
		return 1;
	}
	/* realpath() allocates the full path, whatever its length. */
	if ((mine = realpath(l->path, NULL)) == NULL && (mine = strdup(l->path)) == NULL) {
		fprintf(stderr, "qkv: out of memory\n");
		close(fd);
		return 1;
	}
	sigemptyset(&blocked);
	for (size_t i = 0; i < sizeof follow_signals / sizeof follow_signals[0]; i++)
		sigaddset(&blocked, follow_signals[i]);
	sigprocmask(SIG_BLOCK, &blocked, &before);
	quiet = flow_control_off(&saved);
	ended = follow_lines(fd, l, mine, terminal);
	free(mine);
	close(fd);
	if (quiet)
		flow_control_back(&saved);
	sigprocmask(SIG_SETMASK, &before, NULL);
	if (ended > 1)
		return ended;
	status = 0;
	if (ended == 0 && (fd = notes_connect(path)) >= 0) {
		/* The presenter is still there: it let this screen go, which it does to a
		 * screen that stopped reading. */
		close(fd);
		printf("The presenter dropped this screen: it fell behind. qkv --notes %s follows again.\n", l->path);
		status = 1;
	} else {
		printf("The lesson has ended.\n");
	}
	fflush(stdout);
	return status;
}
