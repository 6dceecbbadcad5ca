#define _XOPEN_SOURCE 700 /* realpath(path, NULL) */
/* notes.c — the presenter's socket (notes.h). The lesson sends one line per change
 * of step, "step K N PATH" (K from 1); the notes screen reads it and writes the
 * notes from its own copy of the lesson file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "present/notes.h"
#include "io/problem/quote.h"
#include "qkv/text.h"

/* A directory of ours that nobody else may enter or write. */
static bool private_dir(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

/* Where the usual folder and the fallback folders go: $TMPDIR when it is an
 * absolute path short enough for a socket's name, else /tmp. */
static const char *temporary_base(void)
{
	const char *base = getenv("TMPDIR");

	return base != NULL && base[0] == '/' && strlen(base) < 60 ? base : "/tmp";
}

/* The socket in the runtime folder when it is private, else NULL. */
static bool runtime_socket(char *buf, size_t size)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");

	if (runtime == NULL || runtime[0] != '/' || strlen(runtime) >= 80 || !private_dir(runtime))
		return false;
	snprintf(buf, size, "%s/qkv-lesson.sock", runtime);
	return true;
}


/* A fallback folder of ours (BASE/qkv-UID.XXXXXX, private) whose socket answers:
 * its socket into buf. The folder's owner and mode are checked, so a folder
 * another user made is never taken. */
static bool find_fallback(char *buf, size_t size)
{
	char prefix[40], dir[104];
	const char *base = temporary_base();
	struct dirent *entry;
	DIR *listing = opendir(base);
	bool found = false;

	if (listing == NULL)
		return false;
	snprintf(prefix, sizeof prefix, "qkv-%lu.", (unsigned long)geteuid());
	while (!found && (entry = readdir(listing)) != NULL) {
		int fd;

		if (strncmp(entry->d_name, prefix, strlen(prefix)) != 0 || strlen(entry->d_name) > 30)
			continue;
		snprintf(dir, sizeof dir, "%s/%s", base, entry->d_name);
		if (!private_dir(dir))
			continue;
		snprintf(buf, size, "%s/lesson.sock", dir);
		if ((fd = notes_connect(buf)) >= 0) {
			close(fd);
			found = true;
		}
	}
	closedir(listing);
	return found;
}

/* The usual folder, BASE/qkv-UID (made 0700 if missing): its socket into buf when
 * the folder is a private one of ours, else false with the folder's name in dir. */
static bool usual_socket(char *buf, size_t size, char *dir, size_t dir_size)
{
	snprintf(dir, dir_size, "%s/qkv-%lu", temporary_base(), (unsigned long)geteuid());
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return false;
	if (!private_dir(dir))
		return false;
	snprintf(buf, size, "%s/lesson.sock", dir);
	return true;
}

int notes_socket_path(char *buf, size_t size, char *err, size_t err_size)
{
	char dir[104];

	if (runtime_socket(buf, size) || usual_socket(buf, size, dir, sizeof dir) || find_fallback(buf, size))
		return 0;
	snprintf(err, err_size, "qkv: no lesson is being presented (qkv --lesson FILE starts one)");
	return -1;
}

/* The presenter's socket: the runtime folder, the usual one, or else a fresh
 * private folder (mkdtemp) of its own, which s then names in s->said. */
static int server_socket_path(struct notes_server *s, char *err, size_t err_size)
{
	char dir[104], fallback[104];

	if (runtime_socket(s->path, sizeof s->path) || usual_socket(s->path, sizeof s->path, dir, sizeof dir))
		return 0;
	if (find_fallback(s->path, sizeof s->path)) {
		snprintf(err, err_size, "qkv: another lesson is being presented (its notes socket is %s); one at a time",
			 s->path);
		return -1;
	}
	snprintf(fallback, sizeof fallback, "%.80s.XXXXXX", dir);
	if (mkdtemp(fallback) == NULL) {
		snprintf(err, err_size, "qkv: %s is not a private folder of yours and no other can be made for the "
			 "presenter notes: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(s->folder, sizeof s->folder, "%s", fallback);
	snprintf(s->path, sizeof s->path, "%.88s/lesson.sock", fallback);
	snprintf(s->said, sizeof s->said, "notes socket: %s, as %s is not a private folder of yours", s->path, dir);
	return 0;
}

int notes_connect(const char *path)
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

/* The fallback folder the server made, if any, removed (with nothing in it). */
static void remove_folder(struct notes_server *s)
{
	if (s->folder[0] != '\0')
		rmdir(s->folder);
	s->folder[0] = '\0';
}

static int server_open(struct notes_server *s, const char *lesson_path, int step_count, char *err,
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
	/* realpath() allocates the full path, whatever its length. */
	if ((s->lesson = realpath(lesson_path, NULL)) == NULL && (s->lesson = strdup(lesson_path)) == NULL) {
		snprintf(err, err_size, "qkv: out of memory for the presenter notes");
		return -1;
	}
	if (server_socket_path(s, err, err_size) != 0) {
		free(s->lesson);
		s->lesson = NULL;
		return -1;
	}
	if ((fd = notes_connect(s->path)) >= 0) {
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
			remove_folder(s);
			return -1;
		}
		unlink(s->path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		snprintf(err, err_size, "qkv: cannot open the presenter notes' socket: %s", strerror(errno));
		remove_folder(s);
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
		unlink(s->path);
		remove_folder(s);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	s->fd = fd;
	return 0;
}

int notes_server_open(struct notes_server *s, const char *lesson_path, int step_count, char *err,
		      size_t err_size)
{
	if (server_open(s, lesson_path, step_count, err, err_size) == 0)
		return 0;
	free(s->lesson);
	s->lesson = NULL;
	return -1;
}

/* Sends a line to follower i without waiting: a follower whose socket cannot take
 * the whole line now (it stopped reading: Ctrl-S, Ctrl-Z, a stalled link) has
 * fallen behind and is dropped, so the presenter never waits for a notes screen.
 * Its screen then finds the connection closed without the lesson's end. */
static void tell(struct notes_server *s, int i, const char *line, size_t length)
{
	if (send(s->followers[i], line, length, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)length) {
		close(s->followers[i]);
		s->followers[i] = -1;
	}
}

static void tell_step(struct notes_server *s, int i, int step)
{
	size_t size = strlen(s->lesson) + 64;
	char *line = malloc(size);
	int length = line != NULL ? snprintf(line, size, "step %d %d %s\n", step + 1, s->step_count, s->lesson) : -1;

	if (length < 0 || (size_t)length >= size) {
		free(line);
		close(s->followers[i]);
		s->followers[i] = -1;
		return;
	}
	tell(s, i, line, (size_t)length);
	free(line);
}

void notes_server_poll(struct notes_server *s, int step)
{
	int fd;

	if (s->fd < 0)
		return;
	while ((fd = accept(s->fd, NULL, NULL)) >= 0) {
		int i;

		fcntl(fd, F_SETFD, FD_CLOEXEC);
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		for (i = 0; i < NOTES_MAX_FOLLOWERS && s->followers[i] >= 0; i++)
			;
		if (i == NOTES_MAX_FOLLOWERS) {
			close(fd);
			continue;
		}
		s->followers[i] = fd;
		tell_step(s, i, step);
	}
	if (step == s->sent_step)
		return;
	s->sent_step = step;
	for (int i = 0; i < NOTES_MAX_FOLLOWERS; i++)
		if (s->followers[i] >= 0)
			tell_step(s, i, step);
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
	if (s->fd >= 0) {
		close(s->fd); /* first: a notes screen that tries again finds nobody */
		unlink(s->path);
		remove_folder(s);
		s->fd = -1;
	}
	for (int i = 0; i < NOTES_MAX_FOLLOWERS; i++)
		if (s->followers[i] >= 0) {
			tell(s, i, "end\n", 4);
			if (s->followers[i] >= 0)
				close(s->followers[i]);
			s->followers[i] = -1;
		}
	free(s->lesson);
	s->lesson = NULL;
}

/* Writes text, its lines broken by qkv_text_line to fit width columns (0: as it
 * is). */
static void write_wrapped(FILE *out, const char *text, int width)
{
	while (*text != '\0') {
		const char *next;
		size_t length = qkv_text_line(text, width > 0 ? width : INT_MAX, &next);

		fprintf(out, "%.*s\n", (int)length, text);
		/* A newline ends this line only: the blank lines after it stay. */
		if (text[length] == '\n')
			next = text + length + 1;
		text = next;
	}
}

void notes_write(FILE *out, const struct lesson *l, int step, int width)
{
	const struct lesson_step *now = &l->steps[step];

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
