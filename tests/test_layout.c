/* test_layout.c — the layout as a property: over random problems (1 to 64 tokens,
 * dimensions 1 to 64, one head or several, direct or projected), random screens
 * from the smallest qkv draws on to 250 × 70, every stage of the walk and the live
 * view, with and without a lesson's notes, the layout never refuses, every panel
 * it places lies on the screen above the text, a grid that shows fewer rows or
 * columns than it has carries a scroll marker, the grid being explained is
 * there, the selected cell is visible, and the text under the grids has every
 * line it needs (the notes in pages that hold them all). No curses: the layout
 * and the text are pure. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "io/problem/load.h"
#include "qkv/heads.h"
#include "tui/glyphs.h"
#include "tui/layout.h"
#include "tui/text.h"
#include "lcg.h"
#include "rounds.h"
#include "tap_main.h"

#define TRIALS 3000 /* random screens (a tenth under the sanitizers: rounds.h) */

static const char *const notes_texts[] = {
	NULL,
	"Three tokens t1, t2, t3.",
	"Eight tokens whose queries and keys are random numbers, drawn the same way every time (seed 7). "
	"With d_k = 2 the weights are soft: every token spreads its attention. Point at the readout on the "
	"right: max is each row's largest weight, eff is how many tokens it really looks at.",
	"The wrong way: no division. The scores now spread about 23 times wider than with it (the square root "
	"of 512 is 22.6). Watch the weights: seven of the eight rows show 0.99 or 1.00 on one key, and t5 "
	"still splits 0.71 and 0.28 between t4 and t8. Softmax has become nearly argmax. Near one-hot weights "
	"mean near-zero gradients: training stalls. That is the course's warning. One division fixes it at "
	"every size. It looks like decoration; it is load-bearing.",
};

static void send(struct app *app, struct event e)
{
	e.now_ms = 1000;
	app_update(app, &e);
}

static void key(struct app *app, int code)
{
	send(app, (struct event){ .type = EVENT_KEY, .key = code });
}

/* A random problem of one of the forms. */
static void random_problem(struct lcg *g, struct qkv_problem *p)
{
	int form = lcg_int(g, 0, 3), n = lcg_int(g, 1, 64);
	char err[256];

	qkv_problem_init(p);
	if (form == 0 || form == 1) {
		ck_assert_int_eq(qkv_problem_random(p, n, lcg_int(g, 1, 64), lcg_int(g, 1, 64),
						    (uint64_t)lcg_int(g, 1, 1000)), 0);
	} else if (form == 2) {
		int h = lcg_int(g, 1, 4), per = lcg_int(g, 1, 16);

		ck_assert_int_eq(qkv_problem_random_heads(p, n, h, h * per, (uint64_t)lcg_int(g, 1, 1000)), 0);
	} else {
		char path[1024];

		snprintf(path, sizeof path, "%s/samples/previous-token.json", getenv("QKV_SOURCE_ROOT"));
		ck_assert_msg(load_file(path, p, err, sizeof err) == 0, "%s", err);
	}
}

/* The panel the stage explains (or, live, the weights). */
static const struct panel *current_panel(const struct layout *l, const struct app *app)
{
	enum qkv_grid want = QKV_GRID_WEIGHTS;

	/* The projections' and the mix's panels have a kind of their own; the other
	 * stages show the catalogue's grid of the stage. */
	if (app->stage != APP_STAGE_LIVE && qkv_grid_of_stage(app->stage, &want) != 0) {
		enum panel_kind kind = app->stage == QKV_STAGE_PROJECTIONS ? PANEL_DERIVED : PANEL_MIX;

		for (int i = 0; i < l->count; i++)
			if (l->panels[i].kind == kind)
				return &l->panels[i];
		return NULL;
	}
	for (int i = 0; i < l->count; i++)
		if (panel_shows(&l->panels[i], want))
			return &l->panels[i];
	return NULL;
}

static void check_one(struct lcg *g, int trial)
{
	struct qkv_problem p;
	struct app app;
	struct layout l;
	struct layout_look look = { .monochrome = lcg_int(g, 0, 1) == 1, .glyphs = lcg_int(g, 0, 1) == 1,
				    .half_blocks = true };
	int width = lcg_int(g, LAYOUT_MIN_WIDTH, 250), height = lcg_int(g, LAYOUT_MIN_HEIGHT, 70);
	int pages = lcg_int(g, 0, 7), moves = lcg_int(g, 0, 40);
	const char *notes = notes_texts[lcg_int(g, 0, 3)];
	char formula[TEXT_MAX], derivation[TEXT_MAX], what[160];
	int need;

	random_problem(g, &p);
	ck_assert_int_eq(app_init(&app, &p, NULL, &(struct app_options){ .palette_count = 4 }), 0);
	send(&app, (struct event){ .type = EVENT_RESIZE, .width = width, .height = height });
	/* A stage (PageDown from live), a grid (Tab) and a cell (arrows). */
	for (int i = 0; i < pages; i++)
		key(&app, APP_KEY_PAGE_DOWN);
	for (int i = lcg_int(g, 0, 3); i > 0; i--)
		key(&app, APP_KEY_TAB);
	for (int i = 0; i < moves; i++)
		key(&app, lcg_int(g, 0, 1) == 0 ? APP_KEY_DOWN : APP_KEY_RIGHT);
	snprintf(what, sizeof what, "trial %d: n %d, h %d, %d×%d, stage %d, focus %d", trial, app.problem.n,
		 app.problem.h, width, height, app.stage, (int)app.focus);

	memset(&l, 0, sizeof l);
	l.notes = notes;
	layout_compute(&l, &app, width, height, &look);
	ck_assert_msg(!l.too_small, "%s: the layout refused", what);
	for (int i = 0; i < l.count; i++) {
		const struct panel *q = &l.panels[i];

		ck_assert_msg(q->x >= 0 && q->x + q->w <= width, "%s: panel %d leaves the screen sideways", what, i);
		ck_assert_msg(q->y >= 2 && q->y + q->h <= l.info_y, "%s: panel %d (%d+%d) is not above the text (%d)",
			      what, i, q->y, q->h, l.info_y);
		ck_assert_msg(q->shown_rows >= 1 && q->shown_cols >= 1, "%s: panel %d shows nothing", what, i);
		if (q->kind != PANEL_READOUT && (q->shown_rows < q->rows || q->shown_cols < q->cols))
			ck_assert_msg(q->marker, "%s: panel %d hides rows or columns without a marker", what, i);
		/* The selected cell of the grid the cursor is in is on screen. */
		if (q->focus >= 0 && q->focus == (int)app.focus && q->kind != PANEL_MIX) {
			int row = app.cursor[q->focus].row, col = app.cursor[q->focus].col;

			ck_assert_msg(row >= q->first_row && row < q->first_row + q->shown_rows &&
					      col >= q->first_col && col < q->first_col + q->shown_cols,
				      "%s: panel %d hides the selected cell (%d, %d)", what, i, row, col);
		}
	}
	ck_assert_msg(current_panel(&l, &app) != NULL, "%s: the grid being explained is missing", what);
	/* The text: the formula and the whole derivation, the notes in pages, the
	 * message, the keys, in order down to the last line. */
	text_info(&app, l.decimals, true, formula, sizeof formula, derivation, sizeof derivation);
	need = text_lines(formula, width - 2) + text_lines(derivation, width - 2);
	ck_assert_msg(l.info_h >= need || (l.info_h >= 2 && l.count == 1 && panel_lines(&l.panels[0]) == 1),
		      "%s: the derivation is given %d of its %d lines while the grids take more (%d panels, %d rows)",
		      what, l.info_h, need, l.count, l.count > 0 ? l.panels[0].shown_rows : 0);
	ck_assert_msg(l.info_y + l.info_h <= l.notes_y, "%s: the notes overlap the derivation", what);
	ck_assert_msg(l.notes_y + l.notes_h == l.status_y - l.message_h + 1, "%s: the notes are not above the message",
		      what);
	ck_assert_int_eq(l.status_y, height - 2);
	if (notes != NULL) {
		ck_assert_msg(l.notes_h >= 1, "%s: no line for the notes", what);
		ck_assert_msg(l.notes_pages * l.notes_h >= text_lines(notes, width - 2), "%s: notes out of reach", what);
	}
	app_fini(&app);
}

START_TEST(the_layout_holds_on_every_screen)
{
	struct lcg g = { 20261202 };

	glyphs_use(GLYPHS_UTF8);
	for (int trial = 0; trial < test_rounds(TRIALS); trial++)
		check_one(&g, trial);
}
END_TEST

/* The worked example's walk at 83 × 22 (a 28 pt projector): every stage shows
 * every row of the grid it explains. */
START_TEST(the_worked_example_walk_fits_a_projector)
{
	struct qkv_problem p;
	struct app app;
	struct layout_look look = { .half_blocks = true };

	glyphs_use(GLYPHS_UTF8);
	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_worked_example(&p), 0);
	ck_assert_int_eq(app_init(&app, &p, NULL, &(struct app_options){ .palette_count = 4 }), 0);
	send(&app, (struct event){ .type = EVENT_RESIZE, .width = 83, .height = 22 });
	for (int stage = 1; stage <= QKV_STAGE_OUTPUT; stage++) {
		struct layout l;
		const struct panel *q;

		key(&app, APP_KEY_PAGE_DOWN);
		ck_assert_int_eq(app.stage, stage);
		memset(&l, 0, sizeof l);
		layout_compute(&l, &app, 83, 22, &look);
		q = current_panel(&l, &app);
		ck_assert_ptr_nonnull(q);
		ck_assert_int_eq(q->shown_rows, 3);
		ck_assert_int_eq(q->shown_cols, q->cols);
	}
	app_fini(&app);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("property");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, the_layout_holds_on_every_screen);
	tcase_add_test(tc, the_worked_example_walk_fits_a_projector);
	suite_add_tcase(s, tc);
	return run_tap(s);
}
