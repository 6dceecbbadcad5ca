/* test_walk.c — the online softmax walk (F) through app_update: it opens before
 * its first tile, with tiles of one key for a few keys and about eight tiles for
 * many; its keys step through ⌈n / B⌉ tiles and then the comparison, and no
 * further; + and − double and halve the tile within 1 … n and start again; ↑ and
 * ↓ move the query (the attention grid's cursor row) and start again; the
 * editor's keys still edit while it is open. */
#include <check.h>
#include <stdlib.h>

#include "app/app.h"
#include "qkv/problem.h"

#include "tap_main.h"

static int key(struct app *a, int k)
{
	static int64_t now = 1000;
	struct event e = { .type = EVENT_KEY, .key = k, .now_ms = now += 10 };

	return app_update(a, &e);
}

/* An app on the worked example (n = 3), or on n random tokens when n > 0. */
static void start(struct app *a, int n)
{
	struct qkv_problem p;

	qkv_problem_init(&p);
	if (n > 0)
		ck_assert_int_eq(qkv_problem_random(&p, n, 4, 4, 7), 0);
	else
		ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(a, &p, NULL, NULL), 0);
}

START_TEST(test_opens_before_the_first_tile)
{
	struct app a;

	start(&a, 0);
	key(&a, 'F');
	ck_assert_int_eq(a.view, VIEW_ONLINE);
	ck_assert_int_eq(a.online.step, 0);
	ck_assert_int_eq(a.online.tile, 1);
	app_fini(&a);
	/* 100 keys: the power of two that makes at most eight tiles, 16 (⌈100/16⌉ = 7). */
	start(&a, 100);
	key(&a, 'F');
	ck_assert_int_eq(a.online.tile, 16);
	app_fini(&a);
}
END_TEST

/* Three keys in tiles of one: steps 0 … 3 read the tiles, 4 compares; → beyond
 * and ← before stay put; Home and End jump. */
START_TEST(test_steps_stop_at_the_ends)
{
	struct app a;

	start(&a, 0);
	key(&a, 'F');
	for (int i = 1; i <= 6; i++) {
		key(&a, APP_KEY_RIGHT);
		ck_assert_int_eq(a.online.step, i < 4 ? i : 4);
	}
	key(&a, APP_KEY_LEFT);
	ck_assert_int_eq(a.online.step, 3);
	key(&a, APP_KEY_LEFT);
	ck_assert_int_eq(a.online.step, 2);
	key(&a, APP_KEY_HOME);
	ck_assert_int_eq(a.online.step, 0);
	key(&a, APP_KEY_LEFT);
	ck_assert_int_eq(a.online.step, 0);
	key(&a, APP_KEY_END);
	ck_assert_int_eq(a.online.step, 4);
	ck_assert_int_eq(a.view, VIEW_ONLINE);
	app_fini(&a);
}
END_TEST

/* + and − within 1 … n, each starting the walk again; with tiles of 2 of 3 keys
 * there are two tiles, so End is step 3. */
START_TEST(test_tile_size)
{
	struct app a;

	start(&a, 0);
	key(&a, 'F');
	key(&a, APP_KEY_RIGHT);
	key(&a, '+');
	ck_assert_int_eq(a.online.tile, 2);
	ck_assert_int_eq(a.online.step, 0);
	key(&a, APP_KEY_END);
	ck_assert_int_eq(a.online.step, 3);
	key(&a, '+');
	ck_assert_int_eq(a.online.tile, 3);
	key(&a, '+');
	ck_assert_int_eq(a.online.tile, 3);
	key(&a, APP_KEY_END);
	ck_assert_int_eq(a.online.step, 2);
	for (int i = 0; i < 4; i++)
		key(&a, '-');
	ck_assert_int_eq(a.online.tile, 1);
	app_fini(&a);
}
END_TEST

/* ↓ and ↑ move the attention grid's cursor row, within the queries, and start
 * again; an edit of Q while the walk is open reaches the trace it reads. */
START_TEST(test_query_and_edits)
{
	struct app a;
	double before;

	start(&a, 0);
	key(&a, 'F');
	key(&a, APP_KEY_RIGHT);
	key(&a, APP_KEY_DOWN);
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, 1);
	ck_assert_int_eq(a.online.step, 0);
	for (int i = 0; i < 4; i++)
		key(&a, 'j');
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, 2);
	key(&a, APP_KEY_UP);
	key(&a, 'k');
	key(&a, 'k');
	ck_assert_int_eq(a.cursor[QKV_GRID_WEIGHTS].row, 0);
	/* Q[t1, d1] = 3 typed while the walk is open. */
	before = qkv_matrix_get(&a.trace.output, 0, 0);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	key(&a, '3');
	key(&a, APP_KEY_ENTER);
	ck_assert(qkv_matrix_get(&a.problem.q, 0, 0) == 3.0);
	ck_assert(qkv_matrix_get(&a.trace.output, 0, 0) != before);
	ck_assert_int_eq(a.view, VIEW_ONLINE);
	app_fini(&a);
}
END_TEST

static Suite *walk_suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("walk");

	tcase_add_test(tc, test_opens_before_the_first_tile);
	tcase_add_test(tc, test_steps_stop_at_the_ends);
	tcase_add_test(tc, test_tile_size);
	tcase_add_test(tc, test_query_and_edits);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(walk_suite());
}
