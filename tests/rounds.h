/* rounds.h — how many random cases a Check suite's large sweeps draw: all of them,
 * or a QKV_TEST_ROUNDS_DIVISOR-th (scripts/test sets 10 for the sanitizer build,
 * where each case is checked access by access and a million take minutes; the
 * optimised build draws every one). Header-only, for the Check suites. */
#ifndef QKV_TESTS_ROUNDS_H
#define QKV_TESTS_ROUNDS_H

#include <stdlib.h>

/* n, divided by QKV_TEST_ROUNDS_DIVISOR when that is a number from 2 up; at least 1. */
static inline int test_rounds(int n)
{
	const char *text = getenv("QKV_TEST_ROUNDS_DIVISOR");
	long divisor = text != NULL ? strtol(text, NULL, 10) : 1;

	if (divisor < 2)
		return n;
	return n / divisor > 0 ? (int)(n / divisor) : 1;
}

#endif
