/* test_repaint.c — the screen drawn frame by frame equals the screen drawn from
 * scratch. The interface redraws only the regions an event names; whatever the
 * event sequence, the result must be what a full repaint of the same state shows
 * (no ghost text left by a panel that moved or widened). ncurses runs on a
 * terminal whose output goes to /dev/null; the virtual screen (stdscr after each
 * frame) is read back cell by cell with mvwin_wch and compared with a repaint:
 * a blank window, the layout computed afresh, every region drawn. */
#include <check.h>
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "app/app.h"
#include "io/problem/builtin.h"
#include "io/problem/load.h"
#include "tui/draw.h"
#include "tui/glyphs.h"
#include "tui/layout.h"
#include "tui/palette.h"

#include "lcg.h"
#include "rounds.h"
#include "tap_main.h"

/* One cell of the virtual screen: its characters, attributes and colour pair. */
struct cell {
	wchar_t text[CCHARW_MAX + 1];
	attr_t attr;
	short pair;
};

struct fixture {
	FILE *out, *in;
	SCREEN *screen;
	struct app app;
	struct layout layout;
	int64_t now;
	struct cell *before, *after;
};

static void snapshot(struct cell *cells)
{
	cchar_t line[201];

	for (int y = 0; y < LINES; y++) {
		int got = mvwin_wchnstr(stdscr, y, 0, line, COLS) == ERR ? 0 : COLS;

		for (int x = 0; x < COLS; x++) {
			struct cell *cell = &cells[y * COLS + x];

			memset(cell, 0, sizeof *cell);
			if (x < got)
				getcchar(&line[x], cell->text, &cell->attr, &cell->pair, NULL);
		}
	}
}

/* The line y of a snapshot as text, for the failure message. */
static void line_text(const struct cell *cells, int y, char *buf, size_t size)
{
	size_t used = 0;

	for (int x = 0; x < COLS && used + 8 < size; x++) {
		const struct cell *cell = &cells[y * COLS + x];
		char mb[16];
		int n = cell->text[0] == 0 ? 0 : (int)wctomb(mb, cell->text[0]);

		if (n <= 0) {
			/* The second column of a wide character. */
			continue;
		}
		memcpy(buf + used, mb, (size_t)n);
		used += (size_t)n;
	}
	buf[used] = '\0';
}

static void open_screen(struct fixture *f, int width, int height)
{
	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	ck_assert_ptr_nonnull(f->out);
	ck_assert_ptr_nonnull(f->in);
	f->screen = newterm("xterm-256color", f->out, f->in);
	ck_assert_ptr_nonnull(f->screen);
	set_term(f->screen);
	resizeterm(height, width);
	typeahead(-1);
	start_color();
	use_default_colors();
	f->before = calloc(200 * 80, sizeof *f->before);
	f->after = calloc(200 * 80, sizeof *f->after);
	ck_assert_ptr_nonnull(f->before);
	ck_assert_ptr_nonnull(f->after);
}

static void close_screen(struct fixture *f)
{
	app_fini(&f->app);
	endwin();
	delscreen(f->screen);
	fclose(f->out);
	fclose(f->in);
	free(f->before);
	free(f->after);
}

static void start(struct fixture *f, struct qkv_problem *p, int width, int height)
{
	memset(f, 0, sizeof *f);
	open_screen(f, width, height);
	ck_assert_int_eq(app_init(&f->app, p, NULL,
				  &(struct app_options){ .palette_count = palette_count(), .palette = palette_default() }),
			 0);
	f->now = 1000;
	{
		struct event resize = { .type = EVENT_RESIZE, .width = COLS, .height = LINES, .now_ms = f->now };
		draw_render(&f->app, &f->layout, app_update(&f->app, &resize));
	}
}

/* One event through app_update and one frame, as the interface makes it. */
static void event(struct fixture *f, struct event e)
{
	e.now_ms = f->now;
	if (e.type == EVENT_RESIZE)
		resizeterm(e.height, e.width);
	draw_render(&f->app, &f->layout, app_update(&f->app, &e));
}

static void key(struct fixture *f, int code)
{
	struct event e = { .type = EVENT_KEY, .key = code };

	event(f, e);
}

/* Compares the screen as drawn so far with a repaint from scratch; on a
 * difference, fails naming the event count, the line and both versions. */
static void check_repaint(struct fixture *f, const char *what)
{
	struct layout fresh;

	snapshot(f->before);
	werase(stdscr);
	memset(&fresh, 0, sizeof fresh);
	layout_compute(&fresh, &f->app, COLS, LINES,
		       &(struct layout_look){ .monochrome = palette_monochrome(), .glyphs = palette_glyphs(),
					      .half_blocks = glyphs_half_blocks() });
	/* The scroll offsets are part of the state the frame shows. */
	if (fresh.count == f->layout.count)
		for (int i = 0; i < fresh.count; i++) {
			fresh.panels[i].first_row = f->layout.panels[i].first_row;
			fresh.panels[i].first_col = f->layout.panels[i].first_col;
		}
	layout_follow(&fresh, &f->app);
	draw_frame(&f->app, &fresh, REDRAW_ALL);
	snapshot(f->after);
	ck_assert_msg(layout_same(&f->layout, &fresh), "%s: the layout drawn is not the one computed afresh", what);
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++) {
			const struct cell *a = &f->before[y * COLS + x], *b = &f->after[y * COLS + x];

			if (wcscmp(a->text, b->text) != 0 || a->attr != b->attr || a->pair != b->pair) {
				char drawn[1024], repaint[1024];

				line_text(f->before, y, drawn, sizeof drawn);
				line_text(f->after, y, repaint, sizeof repaint);
				ck_abort_msg("%s: %dx%d, line %d column %d differs from a repaint "
					     "(attributes %#lx / %#lx, pairs %d / %d)\n"
					     "drawn:   |%s|\nrepaint: |%s|",
					     what, COLS, LINES, y, x, (unsigned long)a->attr, (unsigned long)b->attr,
					     a->pair, b->pair, drawn, repaint);
			}
		}
	/* Carry on from the repainted screen: the same cells, so nothing is lost. */
	f->layout = fresh;
}

/* At 80×24 on the worked example, typing 15 into Q widens Q's cells: the old
 * headers and row labels must not show through. */
START_TEST(widening_cell_leaves_no_ghost)
{
	struct fixture f;
	struct qkv_problem p;

	qkv_problem_init(&p);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	start(&f, &p, 80, 24);
	check_repaint(&f, "start");
	key(&f, '1');
	key(&f, '5');
	key(&f, APP_KEY_ENTER);
	check_repaint(&f, "after 1 5 Enter");
	key(&f, 'u');
	check_repaint(&f, "after undo");
	close_screen(&f);
}
END_TEST

/* The changed-cell marks end with time: the first event after their end, of any
 * kind, asks for the grids again (not only the next tick), so a mark never stays
 * drawn on a grid that a later key does not redraw. */
START_TEST(faded_marks_redraw_on_any_event)
{
	struct app app;
	struct qkv_problem p;
	struct event nudge = { .type = EVENT_KEY, .key = '+', .now_ms = 1000 };
	/* A key with nothing to do: on its own it redraws nothing. */
	struct event later = { .type = EVENT_KEY, .key = 'Z', .now_ms = 1000 + APP_MARK_MS + 1 };
	int flags;

	qkv_problem_init(&p);
	ck_assert_int_eq(builtin_worked_example(&p), 0);
	ck_assert_int_eq(app_init(&app, &p, NULL, NULL), 0);
	app_update(&app, &nudge);
	ck_assert(app_moved_input(&app, QKV_GRID_Q, 0, 0));
	flags = app_update(&app, &later);
	ck_assert(!app_moved_input(&app, QKV_GRID_Q, 0, 0));
	ck_assert_msg((flags & (REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT)) ==
			      (REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT),
		      "a key after the marks' end redraws the grids (flags %#x)", (unsigned)flags);
	app_fini(&app);
}
END_TEST

/* Keys the property draws from: every command but those that save or quit. */
static const int keys[] = {
	APP_KEY_UP, APP_KEY_DOWN, APP_KEY_LEFT, APP_KEY_RIGHT, APP_KEY_UP, APP_KEY_DOWN, APP_KEY_LEFT,
	APP_KEY_RIGHT, APP_KEY_PAGE_UP, APP_KEY_PAGE_DOWN, APP_KEY_HOME, APP_KEY_END, APP_KEY_ENTER,
	APP_KEY_ENTER, APP_KEY_ESCAPE, APP_KEY_BACKSPACE, APP_KEY_TAB, APP_KEY_BACKTAB, APP_KEY_CTRL_R,
	APP_KEY_CTRL_U, '0', '1', '2', '5', '9', '.', '-', '-', '+', '+', 'e', 'u', 'o', 'x', ']', '[',
	'}', '{', '>', '<', 's', 't', 'T', 'm', 'z', 'I', 'W', 'r', 'S', 'D', 'R', 'P', 'c', '?', 'A',
	'n', 'p', 'j', 'k', 'h', 'l',
};

static const int sizes[][2] = { { 80, 24 }, { 120, 40 }, { 200, 60 }, { 83, 22 }, { 100, 30 }, { 60, 16 }, { 50, 12 } };

static void random_events(const char *sample, uint64_t seed, int count)
{
	struct fixture f;
	struct qkv_problem p;
	struct lcg g = { seed };
	char path[1024], err[256], what[160];
	const char *root = getenv("QKV_SOURCE_ROOT");

	if (sample == NULL) {
		qkv_problem_init(&p);
		ck_assert_int_eq(builtin_worked_example(&p), 0);
	} else if (strcmp(sample, "random 64") == 0) {
		/* Half-block heatmaps, scrolling grids. */
		qkv_problem_init(&p);
		ck_assert_int_eq(qkv_problem_random(&p, 64, 8, 8, seed), 0);
	} else {
		qkv_problem_init(&p);
		snprintf(path, sizeof path, "%s/samples/%s", root != NULL ? root : ".", sample);
		ck_assert_msg(load_file(path, &p, err, sizeof err) == 0, "%s", err);
	}
	start(&f, &p, 80, 24);
	for (int i = 0; i < count; i++) {
		int pick = lcg_int(&g, 0, 99);
		struct event e = { .type = EVENT_KEY };

		if (pick < 3) {
			int s = lcg_int(&g, 0, (int)(sizeof sizes / sizeof sizes[0]) - 1);
			e.type = EVENT_RESIZE;
			e.width = sizes[s][0];
			e.height = sizes[s][1];
		} else if (pick < 8) {
			e.type = EVENT_TICK;
			f.now += lcg_int(&g, 50, 2000);
		} else if (pick < 11) {
			int rows, cols;
			e.type = lcg_int(&g, 0, 1) ? EVENT_CLICK : EVENT_WHEEL;
			e.focus = lcg_int(&g, 0, QKV_GRID_COUNT - 1);
			app_focus_shape(&f.app, (enum qkv_grid)e.focus, &rows, &cols);
			e.row = rows > 0 ? lcg_int(&g, 0, rows - 1) : 0;
			e.col = cols > 0 ? lcg_int(&g, 0, cols - 1) : 0;
			e.delta = lcg_int(&g, 0, 1) ? 1 : -1;
			/* Now and then another head's small multiple (in range or not). */
			if (f.app.problem.h > 0 && lcg_int(&g, 0, 2) == 0)
				e.head = lcg_int(&g, 0, f.app.problem.h + 1);
		} else {
			e.key = keys[lcg_int(&g, 0, (int)(sizeof keys / sizeof keys[0]) - 1)];
			/* Keep the problem small enough to draw quickly. */
			if ((e.key == 'o' && f.app.problem.n >= 12 && f.app.problem.n != 64) || (e.key == '>' && f.app.trace.d_k >= 64) ||
			    (e.key == ']' && f.app.trace.d_k >= 64) || (e.key == '}' && f.app.trace.d_v >= 16))
				e.key = APP_KEY_DOWN;
		}
		f.now += 10;
		event(&f, e);
		if (f.app.quit)
			break;
		snprintf(what, sizeof what, "%s, seed %llu, event %d (type %d key %d)", sample ? sample : "worked example",
			 (unsigned long long)seed, i, (int)e.type, e.key);
		check_repaint(&f, what);
	}
	close_screen(&f);
}

/* 11,400 random events over six problems, each frame compared with a repaint (a
 * tenth of them under the sanitizers: rounds.h). */
START_TEST(random_events_match_repaint)
{
	random_events(NULL, 11, test_rounds(3000));
	random_events("causal.json", 12, test_rounds(2500));
	random_events("sentence.json", 13, test_rounds(2500));
	random_events("padding.json", 14, test_rounds(2000));
	random_events("random 64", 15, test_rounds(1000));
	random_events("heads-three-ways.json", 16, test_rounds(400));
}
END_TEST

/* A small multiple on screen is hit as its head's weights: layout_hit reports the
 * head, and the click, through app_update, selects it with the cursor on the cell. */
START_TEST(small_multiple_click_selects_head)
{
	struct fixture f;
	struct qkv_problem p;
	char path[1024], err[256];
	const char *root = getenv("QKV_SOURCE_ROOT");
	int hits = 0;

	snprintf(path, sizeof path, "%s/samples/heads-three-ways.json", root != NULL ? root : ".");
	qkv_problem_init(&p);
	ck_assert_msg(load_file(path, &p, err, sizeof err) == 0, "%s", err);
	start(&f, &p, 120, 40);
	for (int head = 1; head <= 2; head++) {
		const struct panel *small = NULL;
		int focus = -1, row = -1, col = -1, hit_head = -1;

		for (int i = 0; i < f.layout.count; i++)
			if (f.layout.panels[i].kind == PANEL_HEAD && f.layout.panels[i].input == head)
				small = &f.layout.panels[i];
		ck_assert_msg(small != NULL, "head %d's weights are a small multiple at 120x40", head + 1);
		/* Its last shown row, second shown column. */
		ck_assert(layout_hit(&f.layout, small->x + small->label_w + small->cell_w,
				     panel_row_y(small, small->shown_rows - 1), &focus, &row, &col, &hit_head));
		ck_assert_int_eq(focus, QKV_GRID_WEIGHTS);
		ck_assert_int_eq(hit_head, head + 1);
		ck_assert_int_eq(row, small->first_row + small->shown_rows - 1);
		ck_assert_int_eq(col, small->first_col + 1);
		{
			struct event click = { .type = EVENT_CLICK, .focus = focus, .row = row, .col = col,
					       .head = hit_head };
			event(&f, click);
		}
		ck_assert_int_eq(f.app.head, head);
		ck_assert_int_eq(f.app.cursor[QKV_GRID_WEIGHTS].row, row);
		ck_assert_int_eq(f.app.cursor[QKV_GRID_WEIGHTS].col, col);
		check_repaint(&f, "after a click on a small multiple");
		hits++;
	}
	/* The selected head's own weights: no head in the hit. */
	for (int i = 0; i < f.layout.count; i++) {
		const struct panel *own = &f.layout.panels[i];
		int focus, row, col, hit_head = -1;

		if (!panel_shows(own, QKV_GRID_WEIGHTS))
			continue;
		ck_assert(layout_hit(&f.layout, own->x + own->label_w, panel_row_y(own, 0), &focus, &row, &col,
				     &hit_head));
		ck_assert_int_eq(focus, QKV_GRID_WEIGHTS);
		ck_assert_int_eq(hit_head, 0);
	}
	ck_assert_int_eq(hits, 2);
	close_screen(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("repaint");
	TCase *tc = tcase_create("repaint");

	setlocale(LC_CTYPE, "C.UTF-8");
	tcase_set_timeout(tc, 400);
	tcase_add_test(tc, widening_cell_leaves_no_ghost);
	tcase_add_test(tc, faded_marks_redraw_on_any_event);
	tcase_add_test(tc, random_events_match_repaint);
	tcase_add_test(tc, small_multiple_click_selects_head);
	suite_add_tcase(s, tc);
	return run_tap(s);
}
