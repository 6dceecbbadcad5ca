/* lesson_check.h — a lesson's check as the command line runs it (--check-lesson,
 * and the check of every step before --lesson or --notes starts). */
#ifndef QKV_PRESENT_LESSON_CHECK_H
#define QKV_PRESENT_LESSON_CHECK_H

#include <stddef.h>

#include "present/lesson.h"

/* lesson_check with each failed expect's line written to standard output: the
 * failed expects' count, or -1 with err. */
int lesson_check_printing(const struct lesson *lesson, int *checked, char *err, size_t err_size);
/* lesson_check on a thread; when it is not done within LESSON_CHECK_QUIET_MS,
 * one line on stderr names the lesson (name, its file) and says what is being
 * done. The failed expects' count, or -1 with err. */
int lesson_check_saying(const struct lesson *lesson, const char *name, int *checked, char *err, size_t err_size);

#endif
