/* builtin.c — the problem compiled into the binary, so `qkv` with no file opens the
 * course's worked example (module 2) anywhere. Its numbers come from the core's
 * qkv_problem_worked_example(); this file adds only the words around them. */
#include "io/problem/builtin.h"

int builtin_worked_example(struct qkv_problem *p)
{
	int rc = qkv_problem_worked_example(p);

	if (rc == 0)
		rc = qkv_problem_set_title(p, "Three tokens, by hand (module 2)");
	if (rc == 0)
		rc = qkv_problem_set_notes(p, "The course's worked example: edit Q, K or V and "
					      "watch the weights move.");
	if (rc != 0)
		qkv_problem_fini(p);
	return rc;
}
