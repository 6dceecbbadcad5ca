/* fuzz_load.c — the libFuzzer target for the JSON loader (src/io/problem/load.h).
 * Every input, however broken, must come back as 0 with a problem that passes
 * qkv_problem_check, or as -1 with one line of error and an empty problem; the
 * sanitizers catch the rest. It must never keep state between inputs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "io/problem/load.h"
#include "qkv/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Traps (a crash libFuzzer reports) when the loader breaks its contract. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qkv_problem problem;
	char err[512];
	int rc;

	qkv_problem_init(&problem);
	memset(err, 'x', sizeof err);
	rc = load_string((const char *)data, size, "fuzz.json", &problem, err, sizeof err);
	if (rc == 0) {
		if (qkv_problem_check(&problem) != 0)
			__builtin_trap();
	} else {
		if (rc != -1 || problem.n != 0)
			__builtin_trap();
		if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0' ||
		    strchr(err, '\n') != NULL)
			__builtin_trap();
	}
	qkv_problem_fini(&problem);
	return 0;
}
