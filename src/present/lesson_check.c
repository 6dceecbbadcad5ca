/* lesson_check.c — a lesson's check from the command line (see lesson_check.h):
 * --check-lesson's lines on standard output, and the check before a lesson
 * starts, on a thread, with one line on stderr when it takes long. No terminal
 * control. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "io/cli/cli.h"
#include "present/lesson_check.h"

static void print_failure(const char *line, void *data)
{
	(void)data;
	printf("%s\n", line);
}

/* A lesson's check on a thread, so that one line can say what is happening when
 * it takes long (lesson_checking). */
struct lesson_checking {
	const struct lesson *lesson;
	int failed, checked;
	char err[1200];
	pthread_mutex_t lock;
	pthread_cond_t ended;
	bool done; /* under lock */
};

static void *lesson_checking_thread(void *argument)
{
	struct lesson_checking *k = argument;

	k->failed = lesson_check(k->lesson, NULL, NULL, &k->checked, k->err, sizeof k->err);
	pthread_mutex_lock(&k->lock);
	k->done = true;
	pthread_cond_signal(&k->ended);
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

/* Milliseconds a lesson's check takes before a line on stderr says what it does. */
#define LESSON_CHECK_QUIET_MS 300

/* Checks the lesson before the interface starts (every step replayed once; a
 * large lesson takes seconds): on a thread, and when it is not done within
 * LESSON_CHECK_QUIET_MS, one line on stderr says so. Ctrl-C, with the terminal
 * still as the shell left it, ends qkv meanwhile. The failed expects' count, or
 * -1 with err. */
int lesson_check_saying(const struct lesson *lesson, const char *name, int *checked, char *err, size_t err_size)
{
	struct lesson_checking k = { .lesson = lesson };
	struct timespec until;
	pthread_t thread;
	bool done;

	if (pthread_mutex_init(&k.lock, NULL) != 0)
		return lesson_check(lesson, NULL, NULL, checked, err, err_size);
	if (pthread_cond_init(&k.ended, NULL) != 0) {
		pthread_mutex_destroy(&k.lock);
		return lesson_check(lesson, NULL, NULL, checked, err, err_size);
	}
	if (pthread_create(&thread, NULL, lesson_checking_thread, &k) != 0) {
		pthread_cond_destroy(&k.ended);
		pthread_mutex_destroy(&k.lock);
		return lesson_check(lesson, NULL, NULL, checked, err, err_size);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += LESSON_CHECK_QUIET_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&k.lock);
	while (!k.done && pthread_cond_timedwait(&k.ended, &k.lock, &until) == 0)
		;
	done = k.done;
	pthread_mutex_unlock(&k.lock);
	if (!done) {
		char shown[CLI_QUOTED];

		fprintf(stderr, "qkv: checking %s: each of its %d steps is replayed once before the lesson starts "
			"(Ctrl-C stops)\n", cli_quote(shown, name), lesson->step_count);
		fflush(stderr);
	}
	pthread_join(thread, NULL);
	pthread_cond_destroy(&k.ended);
	pthread_mutex_destroy(&k.lock);
	*checked = k.checked;
	snprintf(err, err_size, "%s", k.err);
	return k.failed;
}

int lesson_check_printing(const struct lesson *lesson, int *checked, char *err, size_t err_size)
{
	return lesson_check(lesson, print_failure, NULL, checked, err, err_size);
}
