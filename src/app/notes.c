#define _XOPEN_SOURCE 700 /* realpath(path, NULL) */
/* notes.c — the presenter's socket (notes.h). The lesson sends one line per change
 * of step, "step K N PATH" (K from 1); the notes screen reads it and writes the
 * notes from its own copy of the lesson file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "app/notes.h"
#include "io/quote.h"
#include "qkv/text.h"

/* A directory of ours that nobody else may enter or write. */
static bool private_dir(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

int notes_socket_path(char *buf, size_t size, char *err, size_t err_size)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char dir[200];

	if (runtime != NULL && runtime[0] == '/' && strlen(runtime) < 80 && private_dir(runtime)) {
		snprintf(buf, size, "%s/qkv-lesson.sock", runtime);
		return 0;
	}
	snprintf(dir, sizeof dir, "/tmp/qkv-%lu", (unsigned long)geteuid());
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, err_size, "qkv: cannot make %s for the presenter notes: %s", dir, strerror(errno));
		return -1;
	}
	if (!private_dir(dir)) {
		snprintf(err, err_size, "qkv: %s is not a private directory of yours (mode 0700), so the presenter "
			 "notes cannot use it", dir);
		return -1;
	}
	snprintf(buf, size, "%s/lesson.sock", dir);
	return 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un address;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	memset(&address, 0, sizeof address);
	address.sun_family = AF_UNIX;
	snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
	if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int notes_server_open(struct notes_server *s, const char *lesson_path, int step_count, char *err,
		      size_t err_size)
{
	struct sockaddr_un address;
	struct stat st;
	mode_t old_mask;
	int fd, rc;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	for (int i = 0; i < NOTES_MAX_FOLLOWERS; i++)
		s->followers[i] = -1;
	s->sent_step = -1;
	s->step_count = step_count;
	if (notes_socket_path(s->path, sizeof s->path, err, err_size) != 0)
		return -1;
	if ((fd = connect_to(s->path)) >= 0) {
		close(fd);
		snprintf(err, err_size, "qkv: another lesson is being presented (its notes socket is %s); one at a time",
			 s->path);
		return -1;
	}
	/* Nobody answers: what is there is a socket left by a lesson that ended badly. */
	if (lstat(s->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
			snprintf(err, err_size, "qkv: %s is in the way of the presenter notes and is not a socket of yours",
				 s->path);
			return -1;
		}
		unlink(s->path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		snprintf(err, err_size, "qkv: cannot open the presenter notes' socket: %s", strerror(errno));
		return -1;
	}
	memset(&address, 0, sizeof address);
	address.sun_family = AF_UNIX;
	snprintf(address.sun_path, sizeof address.sun_path, "%s", s->path);
	old_mask = umask(077);
	rc = bind(fd, (struct sockaddr *)&address, sizeof address);
	umask(old_mask);
	if (rc != 0 || chmod(s->path, 0600) != 0 || listen(fd, NOTES_MAX_FOLLOWERS) != 0) {
		snprintf(err, err_size, "qkv: cannot listen on %s for the presenter notes: %s", s->path, strerror(errno));
		close(fd);
		return -1;
	}
	/* realpath() allocates the full path, whatever its length. */
	if ((s->lesson = realpath(lesson_path, NULL)) == NULL && (s->lesson = strdup(lesson_path)) == NULL) {
		snprintf(err, err_size, "qkv: out of memory for the presenter notes");
		close(fd);
		unlink(s->path);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	s->fd = fd;
	return 0;
}

static void tell(struct notes_server *s, int i, int step)
{
	char head[64];
	int used = snprintf(head, sizeof head, "step %d %d ", step + 1, s->step_count);
	size_t path_length = strlen(s->lesson);
	struct iovec parts[3] = {
		{ head, (size_t)used }, { s->lesson, path_length }, { (char *)"\n", 1 },
	};
	struct msghdr message = { .msg_iov = parts, .msg_iovlen = 3 };

	if (sendmsg(s->followers[i], &message, MSG_NOSIGNAL) != (ssize_t)((size_t)used + path_length + 1)) {
		close(s->followers[i]);
		s->followers[i] = -1;
	}
}

void notes_server_poll(struct notes_server *s, int step)
{
	int fd;

	if (s->fd < 0)
		return;
	while ((fd = accept(s->fd, NULL, NULL)) >= 0) {
		int i;

		fcntl(fd, F_SETFD, FD_CLOEXEC);
		for (i = 0; i < NOTES_MAX_FOLLOWERS && s->followers[i] >= 0; i++)
			;
		if (i == NOTES_MAX_FOLLOWERS) {
			close(fd);
			continue;
		}
		s->followers[i] = fd;
		tell(s, i, step);
	}
	if (step == s->sent_step)
		return;
	s->sent_step = step;
	for (int i = 0; i < NOTES_MAX_FOLLOWERS; i++)
		if (s->followers[i] >= 0)
			tell(s, i, step);
}

bool notes_server_followed(const struct notes_server *s)
{
	for (int i = 0; i < NOTES_MAX_FOLLOWERS; i++)
		if (s->followers[i] >= 0)
			return true;
	return false;
}

void notes_server_close(struct notes_server *s)
{
	for (int i = 0; i < NOTES_MAX_FOLLOWERS; i++)
		if (s->followers[i] >= 0) {
			close(s->followers[i]);
			s->followers[i] = -1;
		}
	if (s->fd >= 0) {
		close(s->fd);
		unlink(s->path);
		s->fd = -1;
	}
	free(s->lesson);
	s->lesson = NULL;
}

/* Columns of the first bytes bytes of UTF-8 text (a code point is a column). */
static int columns_of(const char *text, size_t bytes)
{
	int columns = 0;

	for (size_t i = 0; i < bytes; i++)
		columns += ((unsigned char)text[i] & 0xc0) != 0x80;
	return columns;
}

/* Writes text, its lines broken at spaces to fit width columns (0: as it is). */
static void write_wrapped(FILE *out, const char *text, int width)
{
	while (*text != '\0') {
		size_t line = strcspn(text, "\n"), start = 0;

		while (width > 0 && columns_of(text + start, line - start) > width) {
			size_t cut = start, i;
			int columns = 0;

			for (i = start; i < line && columns <= width; i++) {
				if (((unsigned char)text[i] & 0xc0) != 0x80)
					columns++;
				if (text[i] == ' ' && columns <= width + 1)
					cut = i;
			}
			if (cut == start) /* one word longer than the line: it goes as it is */
				break;
			fprintf(out, "%.*s\n", (int)(cut - start), text + start);
			start = cut + 1;
		}
		fprintf(out, "%.*s\n", (int)(line - start), text + start);
		text += line + (text[line] == '\n');
	}
}

void notes_write(FILE *out, const struct lesson *l, int step, bool clear, int width)
{
	const struct lesson_step *now = &l->steps[step];

	if (clear)
		fputs("\033[H\033[2J", out);
	if (l->title != NULL)
		fprintf(out, "%s\n\n", l->title);
	fprintf(out, "Step %d of %d: %s\n\n", step + 1, l->step_count, now->title);
	write_wrapped(out, now->notes[0] != '\0' ? now->notes : "(no notes)", width);
	if (step + 1 < l->step_count) {
		fprintf(out, "\nNext, step %d: %s\n\n", step + 2, l->steps[step + 1].title);
		write_wrapped(out, l->steps[step + 1].notes[0] != '\0' ? l->steps[step + 1].notes : "(no notes)", width);
	} else {
		fprintf(out, "\nThis is the last step.\n");
	}
	fputs("----\n", out);
	fflush(out);
}

/* The terminal's width, or 0 when standard output is no terminal. */
static int terminal_width(void)
{
	struct winsize size;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0)
		return 0;
	return size.ws_col - 1;
}

/* The longest line a presenter sends that a notes screen keeps: a path is at
 * most PATH_MAX bytes on Linux, and a line longer than this is dropped. */
#define NOTES_LINE_MAX (64 * 1024)

int notes_follow(const struct lesson *l)
{
	char path[104], err[400];
	size_t held = 0, capacity = 4096;
	char *buffer = malloc(capacity), *mine;
	int fd;
	bool terminal = isatty(STDOUT_FILENO);

	/* realpath() allocates the full path, whatever its length. */
	if ((mine = realpath(l->path, NULL)) == NULL)
		mine = strdup(l->path);
	if (buffer == NULL || mine == NULL) {
		fprintf(stderr, "qkv: out of memory\n");
		free(buffer);
		free(mine);
		return 1;
	}
	if (notes_socket_path(path, sizeof path, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		free(buffer);
		free(mine);
		return 1;
	}
	if ((fd = connect_to(path)) < 0) {
		fprintf(stderr, "qkv: no lesson is being presented (qkv --lesson FILE starts one)\n");
		free(buffer);
		free(mine);
		return 1;
	}
	for (;;) {
		ssize_t got;
		char *newline;

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
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		held += (size_t)got;
		buffer[held] = '\0';
		while ((newline = strchr(buffer, '\n')) != NULL) {
			int step = 0, count = 0, used = 0;

			*newline = '\0';
			if (sscanf(buffer, "step %d %d %n", &step, &count, &used) == 2 && used > 0) {
				size_t offset;
				unsigned int code;

				if (qkv_text_find_control(buffer + used, strlen(buffer + used), &offset, &code)) {
					/* Never written to the terminal: it would act rather than show. */
				} else if (strcmp(buffer + used, mine) != 0) {
					char *shown = quote_dup(l->path);

					fprintf(stdout, "%sThe lesson being presented is %s, not %s.\n", terminal ? "\033[H\033[2J" : "",
						buffer + used, shown != NULL ? shown : "this one");
					free(shown);
					fflush(stdout);
				} else if (step >= 1 && step <= l->step_count) {
					notes_write(stdout, l, step - 1, terminal, terminal_width());
				}
			}
			held -= (size_t)(newline + 1 - buffer);
			memmove(buffer, newline + 1, held + 1);
		}
	}
	close(fd);
	free(buffer);
	free(mine);
	printf("The lesson has ended.\n");
	return 0;
}
