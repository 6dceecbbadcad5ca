/* fuzz_load.c — the libFuzzer target for the JSON loader (src/io/problem/load.h).
 * Every input, however broken, must come back as 0 with a problem that passes
 * qkv_problem_check, or as -1 with one line of error and an empty problem; the
 * fast JSON reader's tree must be jansson's (or it declines); the sanitizers
 * catch the rest. It must never keep state between inputs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../json_tree.h"
#include "io/json_read.h"
#include "io/problem/load.h"
#include "qkv/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Traps (a crash libFuzzer reports) when the loader breaks its contract. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qkv_problem problem;
	char err[512];
	int rc;

	/* The fast JSON reader makes jansson's tree or declines; where jansson
	 * refuses the text, it declines. */
	{
		struct json_arena *arena = NULL;
		json_t *fast = json_read_fast((const char *)data, size, &arena);
		json_t *slow = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);

		if (fast != NULL && (slow == NULL || !json_tree_same(fast, slow)))
			__builtin_trap();
		json_arena_free(arena);
		json_decref(slow);
	}
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
