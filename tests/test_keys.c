/* test_keys.c — the key table (app_bindings in src/app/keys.c): the one place each
 * key is bound and documented. The help overlay, the status line's hints and the
 * dispatch of app_update read it; the manual page's KEYS section must say the same,
 * and this suite fails when it does not (printing the section as it should read). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/help.h"
#include "present/lesson.h"
#include "qkv/format.h"
#include "qkv/heads.h"
#include "qkv/text.h"
#include "qkv/problem.h"

#include "tap_main.h"

/* The key table as the app reads it: app_bindings with each view's own row. */
static const struct app_keys *key_rows(void)
{
	static struct app_keys keys;

	app_keys_default(&keys);
	return &keys;
}

/* The interface's three palettes, the rest as the defaults. */
static const struct app_options three_palettes = { .palette_count = 3 };

#define MARK_BEGIN ".\\\" The keys: from the key table (src/app/keys.c); tests/test_keys.c checks them.\n"
#define MARK_END ".\\\" The keys: end of the key table.\n"

/* Appends text to buf (of size) at *used, roff-escaped: \ and - written as \e and
 * \-, a leading . or ' guarded, and every other character as groff's \[uXXXX], so
 * the page reads the same whatever groff takes its input to be. */
static void roff(char *buf, size_t size, size_t *used, const char *text, bool line_start)
{
	for (const char *c = text; *c != '\0' && *used + 12 < size; c++) {
		unsigned long point;
		size_t length;

		if (line_start && c == text && (*c == '.' || *c == '\'')) {
			memcpy(buf + *used, "\\&", 2);
			*used += 2;
		}
		if (*c == '\\' || *c == '-') {
			buf[(*used)++] = '\\';
			buf[(*used)++] = *c == '\\' ? 'e' : '-';
		} else if ((unsigned char)*c >= 0x80 && (length = qkv_utf8_decode(c, strlen(c), &point)) > 0) {
			*used += (size_t)snprintf(buf + *used, size - *used, "\\[u%04lX]", point);
			c += length - 1;
		} else {
			buf[(*used)++] = *c;
		}
	}
	buf[*used] = '\0';
}

/* The manual's KEYS entries as the key table has them: every binding with a note
 * or manual words, its name in bold, its manual words (or its note) under it. */
static void manual_from_table(char *buf, size_t size)
{
	size_t used = 0;
	bool first = true;

	buf[0] = '\0';
	used += (size_t)snprintf(buf, size, "%s", MARK_BEGIN);
	for (int i = 0; i < key_rows()->count; i++) {
		const struct app_binding *b = key_rows()->rows[i];

		if (b->note == NULL && b->manual == NULL)
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s\n.B \"", first ? ".TP 16" : ".TP");
		first = false;
		roff(buf, size, &used, b->name, false);
		used += (size_t)snprintf(buf + used, size - used, "\"\n");
		roff(buf, size, &used, b->manual != NULL ? b->manual : b->note, true);
		used += (size_t)snprintf(buf + used, size - used, "\n");
	}
	snprintf(buf + used, size - used, "%s", MARK_END);
}

/* The whole of man/qkv.1 (malloc'ed), from QKV_SOURCE_ROOT. */
static char *read_manual(void)
{
	const char *root = getenv("QKV_SOURCE_ROOT");
	char path[4096];
	FILE *f;
	char *text;
	long size;

	ck_assert_msg(root != NULL, "QKV_SOURCE_ROOT names the source tree");
	snprintf(path, sizeof path, "%s/man/qkv.1", root);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s opens", path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
	text[size] = '\0';
	fclose(f);
	return text;
}

START_TEST(test_manual_says_what_the_table_says)
{
	static char expected[32768];
	char *manual = read_manual(), *begin, *end;

	manual_from_table(expected, sizeof expected);
	begin = strstr(manual, MARK_BEGIN);
	end = begin != NULL ? strstr(begin, MARK_END) : NULL;
	ck_assert_msg(begin != NULL && end != NULL, "man/qkv.1 marks the key table's part");
	end += strlen(MARK_END);
	if ((size_t)(end - begin) != strlen(expected) || memcmp(begin, expected, strlen(expected)) != 0) {
		fprintf(stderr, "man/qkv.1's key table should read:\n%s", expected);
		ck_abort_msg("man/qkv.1's KEYS differ from the key table (the text it should have is on stderr)");
	}
	free(manual);
}
END_TEST

/* Two columns of name and note fit the help box at 80 columns. */
START_TEST(test_help_entries_fit_two_columns)
{
	for (int i = 0; i < key_rows()->count; i++) {
		const struct app_binding *b = key_rows()->rows[i];

		if (b->note == NULL)
			continue;
		ck_assert_msg(qkv_text_columns(b->name) <= APP_KEY_NAME_MAX, "%s: name too wide", b->name);
		ck_assert_msg(qkv_text_columns(b->note) <= APP_KEY_NOTE_MAX, "%s: “%s” too wide", b->name, b->note);
	}
	/* Name, a space, note, two spaces, name, a space, note: inside the box at 80. */
	ck_assert_int_le(2 * (APP_KEY_NAME_MAX + 1 + APP_KEY_NOTE_MAX) + 2, 80 - 2 - 4);
}
END_TEST

static void key(struct app *a, int k);

/* a on the worked example, with the interface's three palettes. */
static void start_worked(struct app *a)
{
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(a, &p, NULL, &three_palettes), 0);
}

static void resize(struct app *a, int width, int height)
{
	struct event e = { .type = EVENT_RESIZE, .width = width, .height = height };

	app_update(a, &e);
}

/* Every item of a help laid out for width × height has one place of its own on a
 * page: inside the box's lines and columns, no two in one place, and a heading
 * never last in its column. */
static void check_places(const struct app_help *help, int width, int height)
{
	ck_assert_int_ge(help->x, 0);
	ck_assert_int_ge(help->y, 0);
	ck_assert_int_le(help->x + help->w, width);
	ck_assert_int_le(help->y + help->h, height);
	ck_assert_int_eq(help->h, help->lines + 3);
	/* The last column's entry ends inside the frame and its margin. */
	ck_assert_int_le(2 + help->columns * APP_HELP_COLUMN - 2, help->w - 2);
	for (int i = 0; i < help->count; i++) {
		const struct app_help_item *a = &help->items[i];

		ck_assert_msg(a->page >= 0 && a->page < help->pages && a->column >= 0 && a->column < help->columns &&
				      a->line >= 0 && a->line < help->lines,
			      "%d×%d: “%s” at page %d column %d line %d, outside %d pages of %d×%d", width, height,
			      a->text, a->page, a->column, a->line, help->pages, help->columns, help->lines);
		for (int j = i + 1; j < help->count; j++) {
			const struct app_help_item *b = &help->items[j];

			ck_assert_msg(a->page != b->page || a->column != b->column || a->line != b->line,
				      "“%s” and “%s” in one place", a->text, b->text);
		}
		if (a->name == NULL)
			ck_assert_msg(i + 1 < help->count && help->items[i + 1].name != NULL &&
					      help->items[i + 1].page == a->page && help->items[i + 1].column == a->column,
				      "heading “%s” ends its column", a->text);
	}
}

/* Every help entry is listed under a heading, once; at 80×24 the help takes the
 * 19 lines the screen leaves in two columns and pages; and it holds any number of
 * entries: 200-odd made-up ones in groups of 1 to 36 each find a place of their own at
 * 80×24, at 200×60 and on a screen of 12 lines. */
START_TEST(test_help_holds_any_number)
{
	static struct app_help help;
	static const int sizes[][2] = { { 80, 24 }, { 200, 60 }, { 60, 12 } };
	int entries = 0, listed = 0;

	for (int i = 0; i < key_rows()->count; i++) {
		if (key_rows()->rows[i]->note == NULL)
			continue;
		entries++;
		ck_assert_msg(key_rows()->rows[i]->group != NULL, "%s is in the help under no heading", key_rows()->rows[i]->name);
	}
	app_help_layout(&help, 80, 24);
	for (int i = 0; i < help.count; i++)
		listed += help.items[i].name != NULL;
	ck_assert_int_eq(listed, entries);
	ck_assert_int_eq(help.lines, 24 - 2 - 3);
	ck_assert_int_eq(help.columns, 2);
	ck_assert_int_ge(help.pages, 2);
	check_places(&help, 80, 24);
	for (int s = 0; s < 3; s++) {
		int count = 0, group = 1;

		memset(&help, 0, sizeof help);
		while (count < 200 + 20) {
			help.items[count++] = (struct app_help_item){ .name = NULL, .text = "heading" };
			for (int k = 0; k < group && count < 200 + 20; k++)
				help.items[count++] = (struct app_help_item){ .name = "k", .text = "entry" };
			group = group % 30 + 7;
		}
		help.count = count;
		app_help_place(&help, sizes[s][0], sizes[s][1]);
		check_places(&help, sizes[s][0], sizes[s][1]);
		ck_assert_int_ge(help.pages * help.columns * help.lines, count);
	}
}
END_TEST

/* In the help, PgDn / Space / n turn to the next page and PgUp / p back; on the
 * last page PgDn closes the help and steps the stages as outside it; any other key
 * closes it; a larger screen that holds everything on one page brings the page
 * shown back to the one there is. */
START_TEST(test_help_pages)
{
	struct app a;
	struct app_help help;

	start_worked(&a);
	resize(&a, 80, 24);
	app_help_layout(&help, 80, 24);
	ck_assert_int_eq(help.pages, 2);
	key(&a, '?');
	ck_assert_int_eq(a.view, VIEW_HELP);
	ck_assert_int_eq(a.help.page, 0);
	key(&a, APP_KEY_PAGE_UP); /* no page before the first: closes, and is the stage key */
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, '?');
	key(&a, ' ');
	ck_assert_int_eq(a.view, VIEW_HELP);
	ck_assert_int_eq(a.help.page, 1);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	key(&a, 'p');
	ck_assert_int_eq(a.help.page, 0);
	key(&a, 'n');
	ck_assert_int_eq(a.help.page, 1);
	key(&a, APP_KEY_PAGE_DOWN); /* the last page: closes and steps */
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_int_ne(a.stage, APP_STAGE_LIVE);
	key(&a, APP_KEY_HOME);
	key(&a, '?');
	ck_assert_int_eq(a.help.page, 0);
	key(&a, APP_KEY_PAGE_DOWN);
	ck_assert_int_eq(a.help.page, 1);
	resize(&a, 200, 60);
	app_help_layout(&help, 200, 60);
	ck_assert_int_eq(help.pages, 1);
	ck_assert_int_eq(a.help.page, 0);
	key(&a, APP_KEY_PAGE_DOWN); /* one page: PgDn closes and steps, as before there were pages */
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert_int_ne(a.stage, APP_STAGE_LIVE);
	key(&a, '?');
	key(&a, 'x'); /* any other key closes */
	ck_assert_int_eq(a.view, VIEW_NONE);
	app_fini(&a);
}
END_TEST

/* While the help is open the status line offers what its keys do there: a page
 * key only when there is a page that way, and Esc to close; not the editor's keys,
 * which the help does not pass on (q closes it rather than quitting). */
START_TEST(test_help_hints)
{
	struct app a;
	char hints[512];

	start_worked(&a);
	resize(&a, 80, 24);
	key(&a, '?');
	ck_assert_uint_eq(app_key_context(&a), APP_KEYS_HELP);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " PgDn more · Esc close");
	key(&a, APP_KEY_PAGE_DOWN);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " PgUp back · Esc close");
	resize(&a, 200, 60);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " Esc close");
	key(&a, 'q');
	ck_assert_int_eq(a.view, VIEW_NONE);
	ck_assert(!a.quit);
	ck_assert_int_eq(a.prompt, PROMPT_NONE);
	ck_assert_uint_eq(app_key_context(&a), APP_KEYS_LIVE);
	app_fini(&a);
}
END_TEST

/* The contexts a binding's keys reach: the saturation view falls back on the editor's. */
static unsigned reach(unsigned context)
{
	return context & APP_KEYS_SATURATION ? context | APP_KEYS_LIVE | APP_KEYS_STAGES : context;
}

/* No key does two things in one place, and every bound key is documented. */
START_TEST(test_each_key_bound_once_and_documented)
{
	for (int i = 0; i < key_rows()->count; i++) {
		const struct app_binding *a = key_rows()->rows[i];

		if (a->handler == NULL)
			continue;
		/* In the help; an edit's and a question's keys in the manual. */
		ck_assert_msg(a->note != NULL || ((a->context & (APP_KEYS_EDIT | APP_KEYS_ANSWER | APP_KEYS_SAVE_AS |
							       APP_KEYS_RECOVER | APP_KEYS_HELP)) == a->context &&
						  a->manual != NULL),
			      "%s is bound but neither in the help nor, for an edit or a question, in the manual",
			      a->name);
		ck_assert_msg(a->keys[0] != 0, "%s binds no key", a->name);
		ck_assert_msg((a->note != NULL) == (a->group != NULL), "%s: a heading without a help entry or "
			      "the reverse", a->name);
		for (int j = i + 1; j < key_rows()->count; j++) {
			const struct app_binding *b = key_rows()->rows[j];

			if (b->handler == NULL || (a->context & b->context) == 0)
				continue;
			for (int k = 0; k < APP_BINDING_KEYS && a->keys[k] != 0; k++)
				for (int m = 0; m < APP_BINDING_KEYS && b->keys[m] != 0; m++)
					ck_assert_msg(a->keys[k] != b->keys[m], "%s and %s share a key", a->name,
						      b->name);
		}
	}
}
END_TEST

/* The status line only offers a key where it works. */
START_TEST(test_hints_only_where_bound)
{
	for (int i = 0; i < key_rows()->count; i++) {
		const struct app_binding *b = key_rows()->rows[i];

		if (b->hint == NULL)
			continue;
		ck_assert_msg(b->hint_context != 0, "%s has a hint shown nowhere", b->name);
		for (int k = 0; k < APP_BINDING_KEYS && b->handler != NULL && b->keys[k] != 0; k++)
			for (unsigned c = 1; c <= APP_KEYS_RECOVER; c <<= 1)
				if (b->hint_context & c)
					ck_assert_msg(app_binding_find(c == APP_KEYS_SATURATION ? reach(c) : c,
								       b->keys[k]) != NULL,
						      "%s hinted in context %u but not found there", b->name, c);
	}
}
END_TEST

static void key(struct app *a, int k)
{
	static int64_t now = 1000;
	struct event e = { .type = EVENT_KEY, .key = k, .now_ms = now += 10 };

	app_update(a, &e);
}

/* The hints follow the state: the editor's, a stage's, an edit's, the saturation
 * view's, a question's; the nudge's hint says the step. */
START_TEST(test_hints_follow_the_state)
{
	struct app a;
	char hints[512];

	start_worked(&a);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_uint_eq(app_key_context(&a), APP_KEYS_LIVE);
	ck_assert_msg(strstr(hints, "Tab matrix") != NULL && strstr(hints, "+/- nudge 0.1 ·") != NULL, "%s", hints);
	ck_assert_msg(strstr(hints, "PgUp back") == NULL, "%s", hints);
	key(&a, APP_KEY_PAGE_DOWN);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_msg(strstr(hints, "PgUp back") != NULL && strstr(hints, "Tab matrix") == NULL, "%s", hints);
	key(&a, APP_KEY_HOME);
	key(&a, '7');
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " Enter keep · Esc cancel · Backspace erase · digits . - e");
	key(&a, APP_KEY_ESCAPE);
	key(&a, 'w');
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " Enter save · Esc cancel");
	key(&a, APP_KEY_ESCAPE);
	key(&a, '+');
	key(&a, 'q');
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " y yes · n no");
	key(&a, 'n');
	key(&a, 'S');
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_str_eq(hints, " ↑↓ tokens · ←→ trials · > < d_k · s scale · S close");
	app_fini(&a);
}
END_TEST

/* Every bound key reaches its binding's handler: a key of each binding, pressed in
 * the editor, changes what that binding's note says it does (checked for a few that
 * leave a mark in the state). */
START_TEST(test_keys_reach_their_handlers)
{
	struct app a;

	start_worked(&a);
	key(&a, ' ');
	ck_assert_int_ne(a.stage, APP_STAGE_LIVE);
	key(&a, APP_KEY_HOME);
	ck_assert_int_eq(a.stage, APP_STAGE_LIVE);
	key(&a, APP_KEY_END);
	ck_assert_int_eq(a.stage, QKV_STAGE_OUTPUT);
	key(&a, APP_KEY_HOME);
	key(&a, 'P');
	ck_assert(a.projector);
	key(&a, 'R');
	ck_assert(a.auto_range);
	key(&a, '?');
	ck_assert_int_eq(a.view, VIEW_HELP);
	key(&a, '?');
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, 'D');
	ck_assert_int_eq(a.view, VIEW_DESCRIBE);
	key(&a, APP_KEY_ESCAPE);
	ck_assert_int_eq(a.view, VIEW_NONE);
	key(&a, APP_KEY_TAB);
	ck_assert_int_eq(a.focus, QKV_GRID_K);
	key(&a, APP_KEY_BACKTAB);
	ck_assert_int_eq(a.focus, QKV_GRID_Q);
	key(&a, 'j');
	ck_assert_int_eq(a.cursor[QKV_GRID_Q].row, 1);
	key(&a, '4');
	ck_assert(a.editing);
	ck_assert_str_eq(a.edit, "4");
	key(&a, APP_KEY_ESCAPE);
	ck_assert(!a.editing);
	key(&a, 'q');
	ck_assert(a.quit);
	app_fini(&a);
}
END_TEST

/* A multi-head problem's hints offer H; a one-head problem's do not, and there H
 * says the problem has one head. */
START_TEST(test_head_key_hinted_with_heads)
{
	struct app a;
	struct qkv_problem p;
	char hints[512];

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random_heads(&p, 3, 4, 12, 7), 0);
	ck_assert_int_eq(app_init(&a, &p, NULL, &three_palettes), 0);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_msg(strstr(hints, "H next head") != NULL, "%s", hints);
	key(&a, 'b');
	ck_assert_int_eq(a.head, 1);
	key(&a, APP_KEY_PAGE_DOWN);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_msg(strstr(hints, "H next head") != NULL, "%s", hints);
	key(&a, 'H');
	ck_assert_int_eq(a.head, 2);
	app_fini(&a);

	start_worked(&a);
	app_key_hints(&a, hints, sizeof hints);
	ck_assert_msg(strstr(hints, "H next") == NULL, "%s", hints);
	key(&a, 'H');
	ck_assert_int_eq(a.head, 0);
	ck_assert_msg(strstr(a.message, "one head") != NULL, "%s", a.message);
	app_fini(&a);
}
END_TEST

/* A lesson event: through lesson_update, as the interface sends it. */
static void lesson_key(struct lesson_run *run, struct app *a, int k)
{
	struct event e = { .type = EVENT_KEY, .key = k, .now_ms = a->now_ms };

	lesson_update(run, a, &e);
}

/* While a lesson is presented, every key of the table's lesson rows is the
 * lesson's: it moves through the steps (or types a step's number) and never
 * reaches the app, whose same keys would step the stages or edit a cell. The
 * lesson's keys line is the rows' hints. */
START_TEST(test_lesson_keys_from_the_table)
{
	static const char text[] = "step one\nopen example\nstep two\nstage 2\nstep three\nstage 3\n"
				   "step four\nstage 4\n";
	static const struct lesson_look look = { .width = 80, .height = 24, .palette_count = 3 };
	struct lesson l;
	struct lesson_run run;
	struct app a;
	char err[600], hints[256];
	int rows = 0;

	ck_assert_msg(lesson_parse(text, strlen(text), "t.lesson", &l, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(lesson_run_start(&run, &l, &look, &a, err, sizeof err), 0);
	for (int i = 0; i < key_rows()->count; i++) {
		const struct app_binding *b = key_rows()->rows[i];

		if (!(b->context & APP_KEYS_LESSON))
			continue;
		rows++;
		ck_assert_msg(b->handler == NULL, "%s: the lesson handles its own keys", b->name);
		for (int k = 0; k < APP_BINDING_KEYS && b->keys[k] != 0; k++) {
			int moves;

			lesson_key(&run, &a, APP_KEY_END);
			lesson_key(&run, &a, APP_KEY_PAGE_UP); /* step three, the app on stage 3 */
			ck_assert_int_eq(run.step, 2);
			moves = run.moves;
			lesson_key(&run, &a, b->keys[k]);
			if (b->keys[k] >= '0' && b->keys[k] <= '9') {
				/* A digit is typed, not yet gone to; the app's cell is not edited. */
				ck_assert_int_eq(run.moves, moves);
				ck_assert_int_eq(run.jump[0], b->keys[k]);
				ck_assert(!a.editing);
				lesson_key(&run, &a, APP_KEY_ESCAPE);
				ck_assert_int_eq(run.jump[0], '\0');
			} else {
				ck_assert_int_eq(run.moves, moves + 1);
				ck_assert_int_eq(run.step, b->keys[k] == APP_KEY_PAGE_DOWN ? 3 : b->keys[k] == APP_KEY_PAGE_UP ? 1
							   : b->keys[k] == APP_KEY_HOME ? 0 : 3);
			}
		}
	}
	ck_assert_int_eq(rows, 3);
	/* A key of no lesson row reaches the app. */
	lesson_key(&run, &a, APP_KEY_HOME);
	lesson_key(&run, &a, 'P');
	ck_assert(a.projector);
	app_context_hints(&a, APP_KEYS_LESSON, hints, sizeof hints);
	ck_assert_str_eq(hints, " PgDn next · PgUp back · Home first · number Enter jumps");
	app_fini(&a);
	lesson_free(&l);
}
END_TEST

static Suite *keys_suite(void)
{
	Suite *s = suite_create("keys");
	TCase *table = tcase_create("table");

	tcase_add_test(table, test_manual_says_what_the_table_says);
	tcase_add_test(table, test_help_entries_fit_two_columns);
	tcase_add_test(table, test_each_key_bound_once_and_documented);
	tcase_add_test(table, test_hints_only_where_bound);
	tcase_add_test(table, test_hints_follow_the_state);
	tcase_add_test(table, test_keys_reach_their_handlers);
	tcase_add_test(table, test_help_holds_any_number);
	tcase_add_test(table, test_help_pages);
	tcase_add_test(table, test_help_hints);
	tcase_add_test(table, test_head_key_hinted_with_heads);
	tcase_add_test(table, test_lesson_keys_from_the_table);
	suite_add_tcase(s, table);
	return s;
}

int main(void)
{
	return run_tap(keys_suite());
}
