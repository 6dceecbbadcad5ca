/* grid.c — the catalogue of grids (grid.h): one row per grid, and where each
 * grid's matrix is found. Read-only tables; nothing here allocates. */
#include <string.h>

#include "qkv/attention.h"
#include "qkv/grid.h"
#include "qkv/heads.h"
#include "qkv/problem.h"

#define IN QKV_SOURCE_INPUT
#define TRACED QKV_SOURCE_TRACE
#define HEADS QKV_SOURCE_HEADS
#define DIRECT QKV_FORM_DIRECT
#define PROJECTED QKV_FORM_PROJECTED

const struct qkv_grid_info qkv_grid_info[QKV_GRID_COUNT] = {
	[QKV_GRID_Q] = { "Q", "queries", "Q", IN, DIRECT, QKV_STAGE_PROJECTIONS, QKV_DIM_QUERIES, QKV_DIM_K },
	[QKV_GRID_K] = { "K", "keys", "K", IN, DIRECT, QKV_STAGE_PROJECTIONS, QKV_DIM_KEYS, QKV_DIM_K },
	[QKV_GRID_V] = { "V", "values", "V", IN, DIRECT, QKV_STAGE_PROJECTIONS, QKV_DIM_KEYS, QKV_DIM_V },
	[QKV_GRID_X] = { "X", "token vectors", "X", IN, PROJECTED, QKV_STAGE_PROJECTIONS, QKV_DIM_KEYS,
			 QKV_DIM_MODEL },
	/* Cross-attention only: qkv_problem_input gives NULL in self-attention. */
	[QKV_GRID_X_Q] = { "X_q", "query vectors", "X_q", IN, PROJECTED, QKV_STAGE_PROJECTIONS, QKV_DIM_QUERIES,
			   QKV_DIM_MODEL },
	[QKV_GRID_W_Q] = { "W_Q", "query projection", "W_Q", IN, PROJECTED, QKV_STAGE_PROJECTIONS, QKV_DIM_MODEL,
			   QKV_DIM_K },
	[QKV_GRID_W_K] = { "W_K", "key projection", "W_K", IN, PROJECTED, QKV_STAGE_PROJECTIONS, QKV_DIM_MODEL,
			   QKV_DIM_K },
	[QKV_GRID_W_V] = { "W_V", "value projection", "W_V", IN, PROJECTED, QKV_STAGE_PROJECTIONS, QKV_DIM_MODEL,
			   QKV_DIM_V },
	/* Multi-head problems only: qkv_problem_input gives NULL in a one-head one. */
	[QKV_GRID_W_O] = { "W_O", "output projection", "W_O", IN, PROJECTED, 7, QKV_DIM_HEADS_V, QKV_DIM_MODEL },
	[QKV_GRID_SCORES] = { "S", "scores", "S", TRACED, DIRECT, QKV_STAGE_SCORES, QKV_DIM_QUERIES, QKV_DIM_KEYS },
	[QKV_GRID_SCALED] = { "S'", "scaled scores", "S'", TRACED, DIRECT, QKV_STAGE_SCALED, QKV_DIM_QUERIES,
			      QKV_DIM_KEYS },
	[QKV_GRID_WEIGHTS] = { "A", "attention weights", "A", TRACED, DIRECT, QKV_STAGE_WEIGHTS, QKV_DIM_QUERIES,
			       QKV_DIM_KEYS },
	[QKV_GRID_OUTPUT] = { "O", "output", "O", TRACED, DIRECT, QKV_STAGE_OUTPUT, QKV_DIM_QUERIES, QKV_DIM_V },
	[QKV_GRID_CONCAT] = { "concat", "the heads' outputs side by side", "\\mathrm{Concat}", HEADS, PROJECTED, 6,
			      QKV_DIM_QUERIES, QKV_DIM_HEADS_V },
	[QKV_GRID_LAYER] = { "out", "layer output", "\\mathrm{Concat}\\,W_O", HEADS, PROJECTED, 7, QKV_DIM_QUERIES,
			     QKV_DIM_MODEL },
};

const char *qkv_grid_name(enum qkv_grid grid)
{
	if ((int)grid < 0 || grid >= QKV_GRID_COUNT)
		return "?";
	return qkv_grid_info[grid].name;
}

int qkv_grid_parse(const char *name, enum qkv_grid *grid)
{
	for (int g = 0; g < QKV_GRID_COUNT; g++)
		if (strcmp(name, qkv_grid_info[g].name) == 0) {
			*grid = (enum qkv_grid)g;
			return 0;
		}
	return -1;
}

int qkv_grid_of_stage(int stage, enum qkv_grid *grid)
{
	/* The computed grids, each the one grid its stage shows. */
	for (int g = QKV_GRID_INPUTS; g < QKV_GRID_COUNT; g++)
		if (qkv_grid_info[g].stage == stage) {
			*grid = (enum qkv_grid)g;
			return 0;
		}
	return -1;
}

bool qkv_grid_is_input(enum qkv_grid grid)
{
	return (int)grid >= 0 && grid < QKV_GRID_INPUTS;
}

bool qkv_grid_in_trace(enum qkv_grid grid)
{
	return grid == QKV_GRID_Q || grid == QKV_GRID_K || grid == QKV_GRID_V ||
	       (grid >= QKV_GRID_SCORES && grid <= QKV_GRID_OUTPUT);
}

bool qkv_grid_is_attention(enum qkv_grid grid)
{
	return grid == QKV_GRID_SCORES || grid == QKV_GRID_SCALED || grid == QKV_GRID_WEIGHTS;
}

const struct qkv_matrix *qkv_grid_matrix(const struct qkv_problem *p, const struct qkv_trace *trace,
					 const struct qkv_heads_trace *heads, int head, enum qkv_grid grid)
{
	switch (grid) {
	case QKV_GRID_Q: return trace != NULL ? &trace->q : NULL;
	case QKV_GRID_K: return trace != NULL ? &trace->k : NULL;
	case QKV_GRID_V: return trace != NULL ? &trace->v : NULL;
	case QKV_GRID_W_Q:
	case QKV_GRID_W_K:
	case QKV_GRID_W_V:
		if (p->h > 0)
			return head >= 0 && head < p->h ? qkv_problem_head_input((struct qkv_problem *)p, head, grid)
							: NULL;
		return qkv_problem_input_const(p, grid);
	case QKV_GRID_X:
	case QKV_GRID_X_Q:
	case QKV_GRID_W_O: return qkv_problem_input_const(p, grid);
	case QKV_GRID_SCORES: return trace != NULL ? &trace->scores : NULL;
	case QKV_GRID_SCALED: return trace != NULL ? &trace->scaled : NULL;
	case QKV_GRID_WEIGHTS: return trace != NULL ? &trace->weights : NULL;
	case QKV_GRID_OUTPUT: return trace != NULL ? &trace->output : NULL;
	case QKV_GRID_CONCAT: return heads != NULL && heads->h > 0 ? &heads->concat : NULL;
	case QKV_GRID_LAYER: return heads != NULL && heads->h > 0 ? &heads->output : NULL;
	case QKV_GRID_COUNT:
	default: return NULL;
	}
}
