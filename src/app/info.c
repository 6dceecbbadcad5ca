/* info.c — the lines under the grids that the core words (info.h). */
#include <stdio.h>

#include "app/info.h"
#include "qkv/derive.h"
#include "qkv/heads.h"
#include "qkv/matrix.h"

/* The one-head derivation of the stage the info line is about, at its cell. */
static void derivation_line(const struct app *app, int decimals, char *buf, size_t size)
{
	enum qkv_stage stage = app_derived_stage(app);
	int row = app_query(app), col;
	struct qkv_problem view;
	const struct qkv_problem *problem = &app->problem;

	if (app->problem.h > 0) {
		/* The single-head lines speak of the selected head. */
		qkv_problem_head_view(&app->problem, app->head, &view);
		problem = &view;
	}
	switch (stage) {
	case QKV_STAGE_PROJECTIONS:
		/* q's row: a row of X_q in cross-attention, of X otherwise. */
		row = app->cursor[qkv_problem_is_cross(&app->problem) ? QKV_GRID_X_Q : QKV_GRID_X].row;
		col = app->cursor[QKV_GRID_W_Q].col;
		break;
	case QKV_STAGE_MIX:
	case QKV_STAGE_OUTPUT:
		col = app_value_col(app);
		break;
	default:
		col = app_key(app);
		break;
	}
	if (qkv_derive(buf, size, problem, &app->trace, stage, row, col, decimals) < 0)
		buf[0] = '\0';
}

bool app_info_lines(const struct app *app, int decimals, char *formula, size_t formula_size, char *derivation,
		    size_t derivation_size)
{
	int stage = (int)app_derived_stage(app);

	formula[0] = '\0';
	derivation[0] = '\0';
	if (app->problem.h > 0 && app->stage == APP_STAGE_LIVE && stage < APP_STAGE_CONCAT) {
		/* Live, the heads: what they cost, and what averaging them would lose. */
		struct qkv_matrix avg;
		struct qkv_pattern averaged;
		char words[512];

		qkv_heads_cost_words(formula, formula_size, &app->heads);
		qkv_matrix_init(&avg);
		if (qkv_heads_average(&app->heads, &avg, &averaged) == 0 &&
		    qkv_heads_average_words(words, sizeof words, &app->heads, &averaged, 2) > 0)
			snprintf(derivation, derivation_size, "the wrong way: %s", words);
		qkv_matrix_fini(&avg);
		return true;
	}
	if (app->problem.h > 0 && stage >= APP_STAGE_CONCAT) {
		bool concat = stage == APP_STAGE_CONCAT;
		/* The row the arrows move wherever the cursor is (the concatenation, the
		 * output, another grid); the column of the concatenation at stage 6, at
		 * stage 7 the output's (W_O's, when the cursor is in W_O). */
		int r = app_query(app);
		int c = concat ? app->cursor[QKV_GRID_CONCAT].col
			: app->focus == QKV_GRID_W_O ? app->cursor[QKV_GRID_W_O].col : app->cursor[QKV_GRID_LAYER].col;

		snprintf(formula, formula_size, concat ? "stage 6 of 7 · concat:  Concat = [head 1 … head %d], "
							 "n × h·d_v = %d × %d"
						       : "stage 7 of 7 · output:  Concat · W_O = Σᵢ head_i · W_O(i)  "
							 "(%d heads)",
			 app->problem.h, app->heads.concat.rows, app->heads.concat.cols);
		if (qkv_heads_derive(derivation, derivation_size, &app->problem, &app->heads, stage,
				     r, c, decimals) < 0)
			derivation[0] = '\0';
		return true;
	}
	derivation_line(app, decimals, derivation, derivation_size);
	return false;
}
