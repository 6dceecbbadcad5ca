/* tap_main.h — the main of every Check suite: one suite run with its results as
 * TAP on stdout, so `meson test` lists each case. Header-only, for tests/test_*.c. */
#ifndef QKV_TESTS_TAP_MAIN_H
#define QKV_TESTS_TAP_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs s (and frees it); EXIT_SUCCESS when every case passed, else EXIT_FAILURE. */
static inline int run_tap(Suite *s)
{
	SRunner *runner = srunner_create(s);
	int failed;

	srunner_set_tap(runner, "-");
	srunner_run_all(runner, CK_SILENT);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
