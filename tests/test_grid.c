/* test_grid.c — Check suite for the catalogue of grids (qkv/grid.h): names are
 * unique and read back, every grid's matrix has the shape its row and column rules
 * say (checked against the sizes of random direct, projected and multi-head
 * problems), the stages find their grids, and a lesson names every grid the
 * catalogue has (its parser's message lists them all). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "present/lesson.h"
#include "qkv/attention.h"
#include "qkv/grid.h"
#include "qkv/heads.h"
#include "qkv/problem.h"

#include "tap_main.h"

/* The count a dimension rule stands for in p (the selected head's d_k and d_v). */
static int dimension(const struct qkv_problem *p, enum qkv_dim dim)
{
	switch (dim) {
	case QKV_DIM_QUERIES: return p->m;
	case QKV_DIM_KEYS: return p->n;
	case QKV_DIM_MODEL: return qkv_problem_d_model(p);
	case QKV_DIM_K: return qkv_problem_d_k(p);
	case QKV_DIM_V: return qkv_problem_d_v(p);
	case QKV_DIM_HEADS_V: default: return p->h * qkv_problem_d_v(p);
	}
}

START_TEST(test_names_unique_and_parsed)
{
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		enum qkv_grid back;

		ck_assert_ptr_nonnull(qkv_grid_info[g].name);
		ck_assert_ptr_nonnull(qkv_grid_info[g].role);
		ck_assert_ptr_nonnull(qkv_grid_info[g].tex_name);
		ck_assert_int_eq(qkv_grid_parse(qkv_grid_name((enum qkv_grid)g), &back), 0);
		ck_assert_int_eq(back, g);
		for (int h = g + 1; h < QKV_GRID_COUNT; h++)
			ck_assert_str_ne(qkv_grid_info[g].name, qkv_grid_info[h].name);
	}
	ck_assert_int_eq(qkv_grid_parse("T", &(enum qkv_grid){ 0 }), -1);
	ck_assert_str_eq(qkv_grid_name(QKV_GRID_COUNT), "?");
}
END_TEST

/* Every grid a problem has is there with the shape of its rules; the ones it has
 * not are NULL. Five forms: direct (Q K V given), projected, multi-head, and
 * cross-attention direct (2 queries, 5 keys) and multi-head (3 queries, 4 keys). */
START_TEST(test_shapes_follow_the_rules)
{
	for (int form = 0; form < 5; form++) {
		struct qkv_problem p;
		struct qkv_trace t;
		struct qkv_heads_trace heads;
		int head = 0;

		qkv_problem_init(&p);
		qkv_trace_init(&t);
		qkv_heads_trace_init(&heads);
		if (form == 0) {
			ck_assert_int_eq(qkv_problem_random(&p, 5, 3, 2, 11), 0);
			ck_assert_int_eq(qkv_attention(&p, &t), 0);
		} else if (form == 1) {
			ck_assert_int_eq(qkv_problem_random_heads(&p, 4, 1, 6, 12), 0);
			ck_assert_int_eq(qkv_heads_attention(&p, &heads), 0);
			/* One head made a one-head problem: its W's are the problem's. */
			struct qkv_problem view;

			qkv_problem_head_view(&p, 0, &view);
			ck_assert_int_eq(qkv_attention(&view, &t), 0);
		} else if (form == 3) {
			ck_assert_int_eq(qkv_problem_random_cross(&p, 2, 5, 3, 2, 14), 0);
			ck_assert_int_eq(qkv_attention(&p, &t), 0);
		} else {
			ck_assert_int_eq(qkv_problem_random_heads(&p, 4, 3, 6, 13), 0);
			if (form == 4) {
				ck_assert_int_eq(qkv_problem_make_cross(&p), 0);
				ck_assert_int_eq(qkv_problem_remove_query(&p, 0), 0);
				ck_assert_int_eq(p.m, 3);
				ck_assert_int_eq(p.x_q.rows, 3);
			}
			ck_assert_int_eq(qkv_heads_attention(&p, &heads), 0);
			head = 2;
			struct qkv_problem view;

			qkv_problem_head_view(&p, head, &view);
			ck_assert_int_eq(qkv_attention(&view, &t), 0);
		}
		for (int g = 0; g < QKV_GRID_COUNT; g++) {
			const struct qkv_grid_info *info = &qkv_grid_info[g];
			const struct qkv_matrix *m = qkv_grid_matrix(&p, &t, &heads, head, (enum qkv_grid)g);
			bool has = qkv_grid_in_trace((enum qkv_grid)g) ||
				   (info->source == QKV_SOURCE_INPUT && p.form == info->form &&
				    (g != QKV_GRID_W_O || p.h > 0) && (g != QKV_GRID_X_Q || qkv_problem_is_cross(&p))) ||
				   (info->source == QKV_SOURCE_HEADS && p.h > 0);

			if (qkv_grid_is_input((enum qkv_grid)g) && g <= QKV_GRID_V)
				has = true; /* Q, K, V as used: the trace's, whatever the form */
			ck_assert_msg((m != NULL) == has, "form %d, grid %s: %s", form, info->name,
				      m != NULL ? "there" : "missing");
			if (m == NULL)
				continue;
			ck_assert_msg(m->rows == dimension(&p, info->rows) && m->cols == dimension(&p, info->cols),
				      "form %d, grid %s: %d × %d", form, info->name, m->rows, m->cols);
		}
		qkv_heads_trace_fini(&heads);
		qkv_trace_fini(&t);
		qkv_problem_fini(&p);
	}
}
END_TEST

/* The stages with a grid of their own find it, and it says it is theirs. */
START_TEST(test_stages_find_their_grids)
{
	static const struct { int stage; enum qkv_grid grid; } pairs[] = {
		{ QKV_STAGE_SCORES, QKV_GRID_SCORES }, { QKV_STAGE_SCALED, QKV_GRID_SCALED },
		{ QKV_STAGE_WEIGHTS, QKV_GRID_WEIGHTS }, { QKV_STAGE_OUTPUT, QKV_GRID_OUTPUT },
		{ 6, QKV_GRID_CONCAT }, { 7, QKV_GRID_LAYER },
	};
	enum qkv_grid grid;

	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		ck_assert_int_eq(qkv_grid_of_stage(pairs[i].stage, &grid), 0);
		ck_assert_int_eq(grid, pairs[i].grid);
		ck_assert_int_eq(qkv_grid_info[grid].stage, pairs[i].stage);
	}
	ck_assert_int_eq(qkv_grid_of_stage(QKV_STAGE_PROJECTIONS, &grid), -1);
	ck_assert_int_eq(qkv_grid_of_stage(QKV_STAGE_MIX, &grid), -1);
}
END_TEST

/* A lesson names cells of every grid of the catalogue: the parser takes each, and
 * its message for a grid it does not know lists them all. */
START_TEST(test_lessons_know_every_grid)
{
	char text[256], err[1024];
	struct lesson l;

	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		snprintf(text, sizeof text, "step one\nselect %s[1,1]\n", qkv_grid_name((enum qkv_grid)g));
		ck_assert_msg(lesson_parse(text, strlen(text), "t.lesson", &l, err, sizeof err) == 0, "%s: %s",
			      qkv_grid_name((enum qkv_grid)g), err);
		ck_assert_int_eq(l.actions[0].grid, g);
		lesson_free(&l);
	}
	snprintf(text, sizeof text, "step one\nselect T[1,1]\n");
	ck_assert_int_eq(lesson_parse(text, strlen(text), "t.lesson", &l, err, sizeof err), -1);
	for (int g = 0; g < QKV_GRID_COUNT; g++) {
		char word[32];

		snprintf(word, sizeof word, " %s", qkv_grid_name((enum qkv_grid)g));
		ck_assert_msg(strstr(err, word) != NULL, "%s not listed in: %s", word, err);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grid");
	TCase *c = tcase_create("catalogue");

	tcase_add_test(c, test_names_unique_and_parsed);
	tcase_add_test(c, test_shapes_follow_the_rules);
	tcase_add_test(c, test_stages_find_their_grids);
	tcase_add_test(c, test_lessons_know_every_grid);
	suite_add_tcase(s, c);
	return run_tap(s);
}
