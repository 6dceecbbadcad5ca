/* fuzz_lesson.c — the libFuzzer target for the lesson parser (src/present/lesson.h).
 * Every input, however broken, must come back as 0 with at least one step and
 * actions that all belong to a step, or as -1 with one line naming the file and a
 * line and an empty lesson; the sanitizers catch the rest. No state between inputs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "present/lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lesson l;
	char err[600];
	int rc, counted = 0;

	memset(err, 'x', sizeof err);
	rc = lesson_parse((const char *)data, size, "fuzz.lesson", &l, err, sizeof err);
	if (rc == 0) {
		if (l.step_count < 1)
			__builtin_trap();
		for (int i = 0; i < l.step_count; i++) {
			if (l.steps[i].first != counted || l.steps[i].title == NULL || l.steps[i].notes == NULL)
				__builtin_trap();
			counted += l.steps[i].count;
		}
		if (counted != l.action_count)
			__builtin_trap();
		lesson_free(&l);
	} else {
		if (rc != -1 || l.step_count != 0 || l.actions != NULL)
			__builtin_trap();
		if (memchr(err, '\0', sizeof err) == NULL || strncmp(err, "fuzz.lesson:", 12) != 0 ||
		    strchr(err, '\n') != NULL)
			__builtin_trap();
	}
	return 0;
}
