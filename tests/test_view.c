/* test_view.c — the table of views (app_views, app/view.h): a view is an entry of
 * the table, and what the help, the status line's hints and app_update know of
 * it they read from there. A made-up view added to a copy of the table is listed
 * in the help and hinted without any other change; every real view opens by its
 * own row's key, takes the key context its entry names, and closes by that key
 * and by Esc. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/help.h"
#include "app/view.h"
#include "qkv/problem.h"

#include "tap_main.h"

/* A key context no real view or state uses. */
#define KEYS_ABOUT (1u << 15)

static int about_key(struct app *app, int key)
{
	(void)app;
	(void)key;
	return REDRAW_NONE;
}

/* The app's views, and after them "about": one sentence, opened and closed by Z. */
static void views_with_about(struct app_view *views)
{
	memcpy(views, app_views, sizeof app_views);
	views[VIEW_COUNT] = (struct app_view){
		.name = "about",
		.keys = KEYS_ABOUT,
		.toggle = { { 'Z' }, APP_KEYS_LIVE | APP_KEYS_STAGES, "Z", "about qkv", "Z close", KEYS_ABOUT, about_key,
			    "about: what qkv is, in one sentence", "views", 0 },
	};
}

/* How many rows of keys bind key (with a handler or not). */
static int rows_binding(const struct app_keys *keys, int key)
{
	int count = 0;

	for (int i = 0; i < keys->count; i++)
		for (int k = 0; k < APP_BINDING_KEYS && keys->rows[i]->keys[k] != 0; k++)
			count += keys->rows[i]->keys[k] == key;
	return count;
}

START_TEST(test_made_up_view_in_help_and_hints)
{
	static struct app_view views[VIEW_COUNT + 1];
	static const int sizes[][2] = { { 80, 24 }, { 60, 18 }, { 200, 60 } };
	static struct app_help help;
	struct app_keys plain, keys;
	struct qkv_problem p;
	struct app a;
	char hints[512];

	views_with_about(views);
	app_keys_default(&plain);
	app_keys_gather(&keys, views, VIEW_COUNT + 1);
	/* Z is nobody's key in the app's own table: only the added view brings it. */
	ck_assert_int_eq(rows_binding(&plain, 'Z'), 0);
	ck_assert_int_eq(keys.count, plain.count + 1);
	ck_assert_int_eq(rows_binding(&keys, 'Z'), 1);
	ck_assert_ptr_eq(keys.rows[keys.count - 1], &views[VIEW_COUNT].toggle);

	/* The help lists it once, under the views' heading, at every size. */
	for (int z = 0; z < 3; z++) {
		int found = 0;
		const char *heading = NULL;

		app_help_layout_keys(&help, &keys, sizes[z][0], sizes[z][1]);
		for (int i = 0; i < help.count; i++) {
			if (help.items[i].name == NULL) {
				heading = help.items[i].text;
				continue;
			}
			if (strcmp(help.items[i].name, "Z") != 0)
				continue;
			found++;
			ck_assert_str_eq(help.items[i].text, "about qkv");
			ck_assert_str_eq(heading, "views");
			ck_assert_int_lt(help.items[i].page, help.pages);
		}
		ck_assert_int_eq(found, 1);
		app_help_layout(&help, sizes[z][0], sizes[z][1]);
		for (int i = 0; i < help.count; i++)
			ck_assert(help.items[i].name == NULL || strcmp(help.items[i].name, "Z") != 0);
	}

	/* Its hint in its own context, and only there. */
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(&a, &p, NULL, NULL), 0);
	app_keys_hints(&keys, &a, KEYS_ABOUT, hints, sizeof hints);
	ck_assert_str_eq(hints, " Z close");
	app_keys_hints(&keys, &a, APP_KEYS_LIVE, hints, sizeof hints);
	ck_assert_ptr_null(strstr(hints, "Z close"));
	app_keys_hints(&plain, &a, KEYS_ABOUT, hints, sizeof hints);
	ck_assert_str_eq(hints, "");
	app_fini(&a);
}
END_TEST

static double fake_clock(void *context)
{
	double *now = context;

	*now += 1.0;
	return *now;
}

static int key(struct app *a, int k)
{
	static int64_t now = 1000;
	struct event e = { .type = EVENT_KEY, .key = k, .now_ms = now += 10 };

	return app_update(a, &e);
}

/* Every view opens by the key of its own row from the editor, the key context is
 * its entry's (the editor's when it has none), and its key or Esc closes it. */
START_TEST(test_each_view_opens_and_closes_by_its_row)
{
	static double now;
	struct app_options o = { .clock = fake_clock, .clock_context = &now };
	struct app_keys keys;

	app_keys_default(&keys);
	for (int v = 1; v < VIEW_COUNT; v++) {
		const struct app_view *view = &app_views[v];

		/* Its row is in the key table once, and its name is its own. */
		ck_assert_int_eq(rows_binding(&keys, view->toggle.keys[0]) >= 1, 1);
		for (int w = 0; w < v; w++)
			ck_assert_str_ne(app_views[w].name, view->name);
		for (int closer = 0; closer < 2; closer++) {
			struct qkv_problem p;
			struct app a;

			qkv_problem_init(&p);
			ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
			ck_assert_int_eq(app_init(&a, &p, NULL, &o), 0);
			ck_assert_int_eq(a.view, VIEW_NONE);
			ck_assert_uint_eq(app_key_context(&a), APP_KEYS_LIVE);
			ck_assert_int_eq(key(&a, view->toggle.keys[0]) & REDRAW_ALL, REDRAW_ALL);
			ck_assert_msg(a.view == (enum app_view_id)v, "%s does not open by its key", view->name);
			ck_assert_uint_eq(app_key_context(&a), view->keys != 0 ? view->keys : APP_KEYS_LIVE);
			key(&a, closer == 0 ? view->toggle.keys[0] : APP_KEY_ESCAPE);
			ck_assert_msg(a.view == VIEW_NONE, "%s does not close by %s", view->name,
				      closer == 0 ? "its key" : "Esc");
			ck_assert_uint_eq(app_key_context(&a), APP_KEYS_LIVE);
			app_fini(&a);
		}
	}
}
END_TEST

static Suite *view_suite(void)
{
	Suite *s = suite_create("view");
	TCase *table = tcase_create("table");

	tcase_add_test(table, test_made_up_view_in_help_and_hints);
	tcase_add_test(table, test_each_view_opens_and_closes_by_its_row);
	suite_add_tcase(s, table);
	return s;
}

int main(void)
{
	return run_tap(view_suite());
}
