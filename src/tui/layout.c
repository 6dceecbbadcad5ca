/* layout.c — panel geometry: which grids the stage shows, how wide their cells
 * are, where they go, and how far they scroll. Reads the app; never draws and
 * never changes the app. Widths come from the values' magnitudes, not from
 * formatting every number, so a layout pass stays cheap for large matrices. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/format.h"
#include "tui/glyphs.h"
#include "tui/layout.h"
#include "tui/text.h"

#define GAP 2           /* columns between panels (1 when tight) */
#define READOUT_WIDTH 32
#define MAX_CELL_W 30    /* cells grow with the screen up to this many columns */
#define MAX_CELL_H 6     /* and up to this many lines */

/* Width of the widest number of m's entries at `decimals` places. */
static int number_width(const struct qkv_matrix *m, int decimals)
{
	double largest = 0.0, smallest = 0.0, half = 0.5 * pow(10.0, -decimals);
	size_t count = (size_t)m->rows * (size_t)m->cols;
	bool negative;
	int digits;

	/* Four running maxima and minima (the same answer in any order), so a wide
	 * Q of 256 × 4,096 entries is scanned in a fraction of a frame. */
	double most[4] = { 0.0, 0.0, 0.0, 0.0 }, least[4] = { 0.0, 0.0, 0.0, 0.0 };
	size_t i = 0;

	for (; i + 4 <= count; i += 4)
		for (int lane = 0; lane < 4; lane++) {
			double v = m->values[i + (size_t)lane];

			most[lane] = fabs(v) > most[lane] ? fabs(v) : most[lane];
			least[lane] = v < least[lane] ? v : least[lane];
		}
	for (; i < count; i++) {
		double v = m->values[i];

		most[0] = fabs(v) > most[0] ? fabs(v) : most[0];
		least[0] = v < least[0] ? v : least[0];
	}
	for (int lane = 0; lane < 4; lane++) {
		if (most[lane] > largest)
			largest = most[lane];
		if (least[lane] < smallest)
			smallest = least[lane];
	}
	negative = smallest <= -half; /* a minus sign shows unless it rounds to 0 */
	largest += half;
	if (largest >= 1e7)
		digits = 1 + 1 + (decimals > 3 ? 3 : decimals) + 4;
	else
		digits = (largest < 1.0 ? 1 : (int)floor(log10(largest)) + 1) + (decimals > 0 ? decimals + 1 : 0);
	return digits + (negative ? 1 : 0);
}

/* Columns of the widest of "m1" … "m<count>" (or "d1" …). */
static int index_label_width(int count)
{
	int digits = 1;

	for (; count >= 10; count /= 10)
		digits++;
	return 1 + digits;
}

/* The row labels' width: the tokens' and, in cross-attention, the queries'. */
static int label_width(const struct qkv_problem *p)
{
	int widest = 2;

	for (int i = 0; i < p->n; i++) {
		int length = (int)strlen(p->tokens[i]);
		if (length > widest)
			widest = length;
	}
	for (int i = 0; qkv_problem_is_cross(p) && i < p->m; i++) {
		int length = (int)strlen(p->query_tokens[i]);
		if (length > widest)
			widest = length;
	}
	return (widest > 8 ? 8 : widest) + 1;
}

bool layout_query_rows(const struct panel *panel)
{
	switch (panel->kind) {
	case PANEL_INPUT:
	case PANEL_DERIVED:
		return panel->input >= 0 && panel->input < QKV_GRID_INPUTS &&
		       qkv_grid_info[panel->input].rows == QKV_DIM_QUERIES;
	case PANEL_MIX:
		return false; /* one query's terms, a row per key */
	case PANEL_READOUT:
		return panel->input != LAYOUT_HEADS_READOUT;
	default:
		return true;
	}
}

const char *layout_row_label(const struct app *app, const struct panel *panel, int row)
{
	return layout_query_rows(panel) ? qkv_problem_query_label(&app->problem, row) : app->problem.tokens[row];
}

/* The most decimals an input grid takes to tell its values apart. */
#define MORE_PLACES 2

/* The decimals an input or derived grid's numbers get: from the layout's up to
 * MORE_PLACES more, the fewest at which its values print apart
 * (qkv_format_places); *rounded when even those do not. */
static int grid_places(const struct qkv_matrix *m, int decimals, bool *rounded)
{
	bool apart;
	int places = qkv_format_places(m->values, (size_t)m->rows * (size_t)m->cols, decimals,
				       decimals + MORE_PLACES, &apart);

	*rounded = !apart;
	return places;
}

/* Sets up one grid panel of the given data shape and number width. */
static void grid_panel(struct panel *panel, enum panel_kind kind, int focus, int input,
		       int rows, int cols, int number_w, int label_w, int col_label_w)
{
	memset(panel, 0, sizeof *panel);
	panel->kind = kind;
	panel->focus = focus;
	panel->input = input;
	panel->rows = rows;
	panel->cols = cols;
	panel->label_w = label_w;
	panel->row_label_w = label_w;
	panel->field_w = number_w > col_label_w ? number_w : col_label_w;
	panel->number_cell_w = panel->field_w + 2;
	if (panel->number_cell_w < 6)
		panel->number_cell_w = 6;
	panel->cell_w = panel->number_cell_w;
	panel->cell_h = 1;
}

/* Makes panel (set up by grid_panel as PANEL_GRID) show the computed grid. */
static struct panel *showing(struct panel *panel, enum qkv_grid grid)
{
	panel->grid = grid;
	return panel;
}

/* The panel's full width for `cols` shown columns (never narrower than its title). */
static int panel_width(const struct panel *panel, int cols)
{
	int w = panel->label_w + (cols + (panel->sums ? 1 : 0)) * panel->cell_w + 1;

	if (panel->kind == PANEL_READOUT)
		return READOUT_WIDTH;
	return w < panel->title_w ? panel->title_w : w;
}

/* Lines a panel takes besides its data rows (title, header, legend or sum); a
 * tight layout drops the signed grids' legends, never the weights'. */
static int panel_extra_lines(const struct layout *l, const struct panel *panel)
{
	if (panel_shows(panel, QKV_GRID_WEIGHTS))
		return 3; /* the legend stays: what the colours mean */
	if (panel_signed(panel))
		return l->tight && !panel->sums ? 2 : 3;
	return panel->kind == PANEL_MIX ? 3 : 2;
}

struct builder {
	struct layout *l;
	int group[LAYOUT_MAX_PANELS]; /* group number of each panel */
	int groups;
	struct panel spare;           /* what add() gives past the limit */
};

/* The most panels a layout builds: the projected form's walk shows X and three
 * W's, Q K V derived, and the five stages' grids. */
_Static_assert(LAYOUT_MAX_PANELS >= (QKV_GRID_INPUTS - 3) + 3 + 5,
	       "room for every panel of the projected stage walk");
/* And the multi-head layout: X and the selected head's three W's, a panel per head,
 * the concatenation, W_O, the layer's output and the heads' readout. */
_Static_assert(LAYOUT_MAX_PANELS >= 4 + QKV_MAX_HEADS + 4, "room for every panel of the heads");

/* The next panel; past LAYOUT_MAX_PANELS a spare one that is never laid out. */
static struct panel *add(struct builder *b)
{
	if (b->l->count >= LAYOUT_MAX_PANELS) {
		memset(&b->spare, 0, sizeof b->spare);
		return &b->spare;
	}
	b->group[b->l->count] = b->groups;
	return &b->l->panels[b->l->count++];
}

int layout_panel_head(const struct app *app, const struct panel *panel)
{
	if (app->problem.h < 1)
		return -1;
	switch (panel->kind) {
	case PANEL_HEAD:
		return panel->input;
	case PANEL_INPUT:
		return panel->input >= QKV_GRID_W_Q && panel->input <= QKV_GRID_W_V ? app->head : -1;
	case PANEL_GRID:
		/* The concatenation and the layer output are the heads' together. */
		return panel->grid == QKV_GRID_CONCAT || panel->grid == QKV_GRID_LAYER ? -1 : app->head;
	case PANEL_DERIVED:
	case PANEL_MIX:
	case PANEL_READOUT:
		return panel->input == LAYOUT_HEADS_READOUT ? -1 : app->head;
	default:
		return -1;
	}
}

/* The mix's title, from the most it says (form 0) to the least (MIX_TITLE_FORMS − 1):
 * its rows are the keys j of one query's terms a_ij · v_j. */
#define MIX_TITLE_FORMS 4
static void mix_title(const char *query, int form, char *buf, size_t size)
{
	switch (form) {
	case 0:
		snprintf(buf, size, "4 mix  terms of query \"%s\": a_%s,j · v_j, one row per key j", query, query);
		break;
	case 1:
		snprintf(buf, size, "4 mix  query \"%s\": a_%s,j · v_j by key j", query, query);
		break;
	case 2:
		snprintf(buf, size, "4 mix  a_%s,j · v_j by key j", query);
		break;
	default:
		snprintf(buf, size, "4 mix  a_%s,j · v_j", query);
		break;
	}
}

/* A computed grid's title: its stage's number in the walk, its name and formula. */
static void grid_title(const struct app *app, enum qkv_grid grid, bool live, const char *divisor, char *buf,
		       size_t size)
{
	switch (grid) {
	case QKV_GRID_SCORES:
		snprintf(buf, size, "1 scores  S = Q Kᵀ");
		break;
	case QKV_GRID_SCALED:
		snprintf(buf, size, "2 scaled  S / %s", divisor);
		break;
	case QKV_GRID_WEIGHTS:
		if (app->problem.wrong == QKV_WRONG_COLUMN_SOFTMAX)
			snprintf(buf, size, live ? "weights  softmax columns" : "3 weights  softmax(S') by columns");
		else if (app->problem.wrong == QKV_WRONG_MASK_AFTER_SOFTMAX)
			snprintf(buf, size, live ? "weights  softmax, then mask" : "3 weights  softmax, then mask");
		else
			snprintf(buf, size, live ? "weights  softmax rows" : "3 weights  A = softmax(S')");
		break;
	case QKV_GRID_OUTPUT:
		snprintf(buf, size, live ? "output  O = A V" : "5 output  O = A V");
		break;
	case QKV_GRID_CONCAT:
		snprintf(buf, size, live ? "concat" : "6 concat");
		break;
	default:
		snprintf(buf, size, live ? "output = Concat W_O" : "7 output = Concat W_O");
		break;
	}
}

/* The title in the given form (only the mix's has more than one). */
static const char *panel_title(const struct app *app, const struct panel *panel, int form, char *buf,
			       size_t size)
{
	static const char *const input_titles[QKV_GRID_INPUTS] = {
		[QKV_GRID_Q] = "Q  queries", [QKV_GRID_K] = "K  keys", [QKV_GRID_V] = "V  values",
		[QKV_GRID_X] = "X  inputs", [QKV_GRID_X_Q] = "X_q  queries", [QKV_GRID_W_Q] = "W_Q",
		[QKV_GRID_W_K] = "W_K", [QKV_GRID_W_V] = "W_V", [QKV_GRID_W_O] = "W_O",
	};
	int head = layout_panel_head(app, panel);
	static const char *const derived_titles[QKV_GRID_V + 1] = {
		[QKV_GRID_Q] = "Q = X W_Q", [QKV_GRID_K] = "K = X W_K", [QKV_GRID_V] = "V = X W_V",
	};
	char divisor[32];
	const char *token = qkv_problem_query_label(&app->problem, app_query(app));
	bool live = app->stage == APP_STAGE_LIVE, cross = qkv_problem_is_cross(&app->problem);

	qkv_format_number(divisor, sizeof divisor, app->trace.divisor, 3);
	switch (panel->kind) {
	case PANEL_INPUT:
		/* In cross-attention X holds the keys' and values' tokens. */
		snprintf(buf, size, "%s", cross && panel->input == QKV_GRID_X ? "X  tokens" : input_titles[panel->input]);
		break;
	case PANEL_DERIVED:
		snprintf(buf, size, "%s", cross && panel->input == QKV_GRID_Q ? "Q = X_q W_Q" : derived_titles[panel->input]);
		break;
	case PANEL_GRID:
		grid_title(app, panel->grid, live, divisor, buf, size);
		break;
	case PANEL_MIX:
		mix_title(token, form, buf, size);
		break;
	case PANEL_HEAD:
		snprintf(buf, size, "weights");
		break;
	case PANEL_READOUT:
	default:
		snprintf(buf, size, panel->input == LAYOUT_HEADS_READOUT ? "heads compared"
									  : "softmax readout");
		break;
	}

	if (panel->kind != PANEL_READOUT && (panel->shown_cols < panel->cols || panel->shown_rows < panel->rows)) {
		size_t length = strlen(buf);
		snprintf(buf + length, size - length, "  %d×%d", panel->rows, panel->cols);
	}
	if (head >= 0) {
		/* The head's tag first, so a cut title keeps it; drawn in the head's colour. */
		char rest[256];

		snprintf(rest, sizeof rest, "%s", buf);
		snprintf(buf, size, "h%d %s", head + 1, rest);
	}
	return buf;
}

const char *layout_panel_title(const struct app *app, const struct panel *panel, char *buf, size_t size)
{
	return panel_title(app, panel, MIX_TITLE_FORMS - 1, buf, size);
}

const char *layout_panel_title_within(const struct app *app, const struct panel *panel, int width, char *buf,
				      size_t size)
{
	for (int form = 0; panel->kind == PANEL_MIX && form < MIX_TITLE_FORMS - 1; form++)
		if (glyphs_columns(panel_title(app, panel, form, buf, size)) <= width)
			return buf;
	return layout_panel_title(app, panel, buf, size);
}

/* Multi-head, live or in stages 6 and 7: every head's weights side by side (the
 * selected head's carries the cursor), then the concatenation (whose blocks are
 * the heads' outputs), W_O and the layer output; live also the selected head's
 * inputs. Stage 6 shows the heads' weights it concatenates and the concatenation;
 * stage 7 the concatenation, W_O and the layer output. */
static void choose_heads_panels(struct builder *b, const struct app *app, int decimals)
{
	const struct qkv_problem *p = &app->problem;
	const struct qkv_heads_trace *t = &app->heads;
	int label_w = label_width(p), token_w = label_w - 1, weight_w = decimals + 2 + (b->l->look.glyphs ? 1 : 0);
	bool live = app->stage == APP_STAGE_LIVE, concat = app->stage == APP_STAGE_CONCAT;
	const struct qkv_matrix *w_o = app_input(app, QKV_GRID_W_O);
	struct panel *panel;

	if (live) {
		static const int inputs[] = { QKV_GRID_X, QKV_GRID_X_Q, QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V };

		for (int i = 0; i < (int)(sizeof inputs / sizeof inputs[0]); i++) {
			const struct qkv_matrix *m = app_input(app, (enum qkv_grid)inputs[i]);
			bool sequence = inputs[i] == QKV_GRID_X || inputs[i] == QKV_GRID_X_Q;

			if (m == NULL) /* X_q: cross-attention's */
				continue;
			panel = add(b);
			/* X's columns and the W's rows are d_model's dimensions, m1 … */
			grid_panel(panel, PANEL_INPUT, inputs[i], inputs[i], m->rows, m->cols,
				   number_width(m, decimals), sequence ? label_w : index_label_width(m->rows) + 1,
				   sequence ? index_label_width(m->cols) : 3);
			panel->priority = PRIORITY_INPUT;
		}
		b->groups++;
	}
	for (int i = 0; i < t->h; i++) {
		if (i == app->head)
			panel = add(b), grid_panel(panel, PANEL_GRID, QKV_GRID_WEIGHTS, -1, t->m, t->n, weight_w,
						   label_w, token_w), showing(panel, QKV_GRID_WEIGHTS);
		else
			panel = add(b), grid_panel(panel, PANEL_HEAD, -1, i, t->m, t->n, weight_w, label_w, token_w);
		panel->priority = live ? PRIORITY_CURRENT : concat ? PRIORITY_CONTEXT : PRIORITY_INPUT;
	}
	if (live)
		b->groups++;
	panel = add(b);
	grid_panel(panel, PANEL_GRID, QKV_GRID_CONCAT, -1, t->m, t->concat.cols, number_width(&t->concat, decimals),
		   label_w, 4);
	showing(panel, QKV_GRID_CONCAT);
	/* Live, the heads' weights are the picture; what they make comes after. */
	panel->priority = concat ? PRIORITY_CURRENT : PRIORITY_CONTEXT;
	panel = add(b);
	grid_panel(panel, PANEL_INPUT, QKV_GRID_W_O, QKV_GRID_W_O, w_o->rows, w_o->cols, number_width(w_o, decimals),
		   5, 3);
	panel->priority = live || concat ? PRIORITY_INPUT : PRIORITY_CONTEXT;
	if (!concat) {
		panel = add(b);
		grid_panel(panel, PANEL_GRID, QKV_GRID_LAYER, -1, t->m, t->output.cols,
			   number_width(&t->output, decimals), label_w, 3);
		showing(panel, QKV_GRID_LAYER);
		panel->priority = live ? PRIORITY_CONTEXT : PRIORITY_CURRENT;
	}
	/* The heads compared (a row each and one for their average). */
	if (app->show_stats) {
		panel = add(b);
		grid_panel(panel, PANEL_READOUT, -1, LAYOUT_HEADS_READOUT, t->h + 1, 4, 6, 4, 6);
		panel->priority = PRIORITY_READOUT;
	}
	b->groups++;
}

/* Titles and shapes. */
static void finish_panels(struct builder *b, const struct app *app)
{
	for (int i = 0; i < b->l->count; i++) {
		struct panel *q = &b->l->panels[i];
		char title[128];

		q->shown_rows = q->rows;
		q->shown_cols = q->cols;
		layout_panel_title(app, q, title, sizeof title);
		q->title_w = 3 + glyphs_columns(title); /* room for the focus mark "▶ " */
	}
}

/* Adds a grid panel with its priority. */
static struct panel *grid_at(struct builder *b, enum panel_priority priority, enum panel_kind kind, int focus,
			     int input, int rows, int cols, int number_w, int label_w, int col_label_w)
{
	struct panel *panel = add(b);

	grid_panel(panel, kind, focus, input, rows, cols, number_w, label_w, col_label_w);
	panel->priority = priority;
	return panel;
}

/* Adds an input or derived grid showing m: its numbers at the decimals that tell
 * them apart (grid_places), as wide as those need, with a column for the mark of a
 * value that still prints like another. */
static struct panel *grid_of(struct builder *b, enum panel_priority priority, enum panel_kind kind, int focus,
			     int input, const struct qkv_matrix *m, int decimals, int label_w, int col_label_w)
{
	bool rounded;
	int places = grid_places(m, decimals, &rounded);
	struct panel *panel = grid_at(b, priority, kind, focus, input, m->rows, m->cols,
				      number_width(m, places) + (rounded ? 1 : 0), label_w, col_label_w);

	panel->places = places;
	panel->rounded = rounded;
	return panel;
}

/* Chooses the panels for the form and the stage, in reading order. Live: the
 * inputs, then the weights, the output and the readout. In the stage walk the
 * current stage's grid, the grids it is computed from, the readout where the
 * weights are made (stages 2 and 3), and the inputs; never a later stage. */
static void choose_panels(struct builder *b, const struct app *app, int decimals)
{
	const struct qkv_problem *p = &app->problem;
	const struct qkv_trace *t = &app->trace;
	int label_w = label_width(p), token_w = label_w - 1, stage = app->stage;
	bool live = stage == APP_STAGE_LIVE;
	int digits_v = t->d_v >= 10 ? 3 : 2;
	/* The priority of a grid of stage `of` at this stage: live the computed grids
	 * are current; in the walk, its own stage's grid is, the one before it (and
	 * what a stage reads) is context. */
#define AT(of) (live || stage == (of) ? PRIORITY_CURRENT : PRIORITY_CONTEXT)
	enum panel_priority qk = live ? PRIORITY_INPUT : stage == QKV_STAGE_SCORES ? PRIORITY_CONTEXT
						: stage == QKV_STAGE_PROJECTIONS ? PRIORITY_CURRENT : PRIORITY_INPUT;
	enum panel_priority v = live ? PRIORITY_INPUT : stage >= QKV_STAGE_MIX ? PRIORITY_CONTEXT
						: stage == QKV_STAGE_PROJECTIONS ? PRIORITY_CURRENT : PRIORITY_INPUT;
	struct panel *panel;

	if (p->h > 0 && (live || stage >= APP_STAGE_CONCAT)) {
		choose_heads_panels(b, app, decimals);
		finish_panels(b, app);
		return;
	}

	if (p->form == QKV_FORM_PROJECTED) {
		static const int inputs[] = { QKV_GRID_X, QKV_GRID_X_Q, QKV_GRID_W_Q, QKV_GRID_W_K, QKV_GRID_W_V };
		enum panel_priority w = stage == QKV_STAGE_PROJECTIONS ? PRIORITY_CONTEXT : PRIORITY_INPUT;

		for (int i = 0; i < (int)(sizeof inputs / sizeof inputs[0]); i++) {
			const struct qkv_matrix *m = app_input(app, (enum qkv_grid)inputs[i]);
			bool sequence = inputs[i] == QKV_GRID_X || inputs[i] == QKV_GRID_X_Q;

			if (m == NULL) /* X_q: cross-attention's */
				continue;
			/* X's columns and the W's rows are dimensions of d_model, m1, m2, … */
			grid_of(b, w, PANEL_INPUT, inputs[i], inputs[i], m, decimals,
				sequence ? label_w : index_label_width(m->rows) + 1,
				sequence ? index_label_width(m->cols) : digits_v + 1);
		}
		/* X and the W's on a line of their own, Q, K and V under them. */
		b->groups++;
		grid_of(b, qk, PANEL_DERIVED, -1, QKV_GRID_Q, &t->q, decimals, label_w, digits_v + 1)->derived = true;
		grid_of(b, qk, PANEL_DERIVED, -1, QKV_GRID_K, &t->k, decimals, label_w, digits_v + 1)->derived = true;
		grid_of(b, v, PANEL_DERIVED, -1, QKV_GRID_V, &t->v, decimals, label_w, digits_v + 1)->derived = true;
	} else {
		grid_of(b, qk, PANEL_INPUT, QKV_GRID_Q, QKV_GRID_Q, &p->q, decimals, label_w, digits_v + 1);
		grid_of(b, qk, PANEL_INPUT, QKV_GRID_K, QKV_GRID_K, &p->k, decimals, label_w, digits_v + 1);
		grid_of(b, v, PANEL_INPUT, QKV_GRID_V, QKV_GRID_V, &p->v, decimals, label_w, digits_v + 1);
	}
	if (live)
		b->groups++;
	if (stage == QKV_STAGE_SCORES || stage == QKV_STAGE_SCALED)
		showing(grid_at(b, AT(QKV_STAGE_SCORES), PANEL_GRID, QKV_GRID_WEIGHTS, -1, t->m, t->n,
				number_width(&t->scores, decimals), label_w, token_w), QKV_GRID_SCORES);
	if (stage == QKV_STAGE_SCALED || stage == QKV_STAGE_WEIGHTS)
		showing(grid_at(b, AT(QKV_STAGE_SCALED), PANEL_GRID, QKV_GRID_WEIGHTS, -1, t->m, t->n,
				number_width(&t->scaled, decimals), label_w, token_w), QKV_GRID_SCALED);
	if (stage == QKV_STAGE_SCALED && app->show_stats)
		grid_at(b, PRIORITY_READOUT, PANEL_READOUT, -1, -1, t->m, 4, 6, label_w, 6);
	if (live || stage >= QKV_STAGE_WEIGHTS) {
		/* Without colour, or with only eight, a shading glyph stands beside each
		 * weight: it needs a column. */
		panel = showing(grid_at(b, AT(QKV_STAGE_WEIGHTS), PANEL_GRID, QKV_GRID_WEIGHTS, -1, t->m, t->n,
					decimals + 2 + (b->l->look.glyphs ? 1 : 0), label_w, token_w),
				QKV_GRID_WEIGHTS);
		/* The wrong-way demonstrations show each row's and each column's sum. */
		panel->sums = p->wrong != QKV_WRONG_NONE;
		if (panel->sums && panel->label_w < 5)
			panel->label_w = panel->row_label_w = 5; /* room for the column sums' label, "Σcol" */
	}
	if (stage == QKV_STAGE_WEIGHTS && app->show_stats)
		grid_at(b, PRIORITY_READOUT, PANEL_READOUT, -1, -1, t->m, 4, 6, label_w, 6);
	/* The mix terms a_ij·v_jc are at most |v| in size. */
	if (stage == QKV_STAGE_MIX)
		grid_at(b, PRIORITY_CURRENT, PANEL_MIX, QKV_GRID_OUTPUT, -1, t->n, t->d_v, number_width(&t->v, decimals) + 1,
			label_w < 4 ? 4 : label_w, digits_v + 1); /* room for "key" over its rows */
	if (live || stage == QKV_STAGE_OUTPUT)
		showing(grid_at(b, PRIORITY_CURRENT, PANEL_GRID, QKV_GRID_OUTPUT, -1, t->m, t->d_v,
				number_width(&t->output, decimals), label_w, digits_v + 1), QKV_GRID_OUTPUT);
	if (live && app->show_stats)
		grid_at(b, PRIORITY_READOUT, PANEL_READOUT, -1, -1, t->m, 4, 6, label_w, 6);
#undef AT
	b->groups++;
	finish_panels(b, app);
}

static int layout_gap(const struct layout *l)
{
	return l->tight ? 1 : GAP;
}

/* The width an input panel may take when its group is too wide for one line
 * (each gets an equal share), or 0 when the group fits or i is not an input. */
static int input_share(const struct builder *b, int i, int width)
{
	const struct layout *l = b->l;
	int total = 0, count = 0;

	if (l->panels[i].kind != PANEL_INPUT && l->panels[i].kind != PANEL_DERIVED)
		return 0;
	for (int j = 0; j < l->count; j++) {
		const struct panel *p = &l->panels[j];

		if (b->group[j] != b->group[i] || p->dropped ||
		    (p->kind != PANEL_INPUT && p->kind != PANEL_DERIVED))
			continue;
		total += p->label_w + p->cols * p->number_cell_w + 1 + layout_gap(l);
		count++;
	}
	if (total - layout_gap(l) <= width)
		return 0;
	return (width - layout_gap(l) * (count - 1)) / count;
}

/* Places the panels not left out in lines (wrapping within a group) with at
 * most caps[priority] data rows each, from line 0; returns the total height, and
 * the widest line in *widest. */
static int place(struct builder *b, int width, const int caps[PRIORITY_COUNT], int *widest)
{
	struct layout *l = b->l;
	int x = 0, y = 0, line_h = 0, group = -1, strip_w = 0;

	*widest = 0;
	/* The width the heads' weights need side by side with numbers. */
	for (int i = 0; i < l->count; i++)
		if (!l->panels[i].dropped &&
		    (l->panels[i].kind == PANEL_HEAD ||
		     (panel_shows(&l->panels[i], QKV_GRID_WEIGHTS) && i + 1 < l->count &&
		      l->panels[i + 1].kind == PANEL_HEAD) ||
		     (panel_shows(&l->panels[i], QKV_GRID_WEIGHTS) && i > 0 && l->panels[i - 1].kind == PANEL_HEAD)))
			strip_w += l->panels[i].row_label_w + l->panels[i].cols * l->panels[i].number_cell_w + 1 +
				   layout_gap(l);
	for (int i = 0; i < l->count; i++) {
		struct panel *panel = &l->panels[i];
		int room, w, shown, share;

		if (panel->dropped)
			continue;
		/* A heatmap too wide for numbers becomes colour-only cells, two columns each. */
		panel->compact = panel_attention(panel) &&
				 panel->row_label_w + panel->cols * panel->number_cell_w + 1 > width && panel->cols > 8;
		/* The heads' weights side by side: colour-only cells when they do not all fit. */
		if (panel->kind == PANEL_HEAD || (panel_shows(panel, QKV_GRID_WEIGHTS) && strip_w > width))
			panel->compact = panel->compact || strip_w > width;
		panel->cell_w = panel->compact ? 2 : panel->number_cell_w;
		/* The selected row and column in numbers (not under another head's). */
		panel->h_extra = panel->compact && panel->kind != PANEL_HEAD ? 2 : 0;
		/* In colour, a compact grid shows two rows per line with half blocks, each
		 * line labelled with both rows ("t1/t2"). */
		panel->halves = panel->compact && !l->look.monochrome && l->look.half_blocks;
		panel->label_w = panel->halves ? 2 * panel->row_label_w : panel->row_label_w;
		room = width - panel->label_w - 1 - (panel->sums ? panel->cell_w : 0);
		/* Wide inputs (d_k in the hundreds) share their line. */
		share = input_share(b, i, width);
		if (share > 0 && share - panel->label_w - 1 < room)
			room = share - panel->label_w - 1;
		panel->shown_cols = room / panel->cell_w;
		if (panel->shown_cols > panel->cols)
			panel->shown_cols = panel->cols;
		if (panel->shown_cols < 1)
			panel->shown_cols = 1;
		shown = caps[panel->priority] * (panel->halves ? 2 : 1);
		shown = panel->rows < shown ? panel->rows : shown;
		panel->shown_rows = shown;
		if (panel->halves)
			shown = (shown + 1) / 2; /* lines, from here on */
		else
			shown *= panel->cell_h;
		/* Rows or columns out of sight: a line under the grid says how many. */
		panel->marker = panel->kind != PANEL_READOUT &&
				(panel->shown_rows < panel->rows || panel->shown_cols < panel->cols);
		w = panel_width(panel, panel->shown_cols);
		if (w > width)
			w = width;
		panel->w = w;
		panel->h = panel_extra_lines(l, panel) + panel->h_extra + (panel->marker ? 1 : 0) +
			   (panel->kind == PANEL_READOUT ? shown + 1 : shown);
		if (group != b->group[i] || x + w > width) {
			y += line_h;
			line_h = 0;
			x = 0;
			group = b->group[i];
		}
		panel->x = x;
		panel->y = y;
		x += w + layout_gap(l);
		if (x - layout_gap(l) > *widest)
			*widest = x - layout_gap(l);
		if (panel->h > line_h)
			line_h = panel->h;
	}
	return y + line_h;
}

/* What a layout leaves out, in order of importance: cells of the grids being
 * explained, numbers drawn as colour only, lines of the notes (on later pages),
 * rows of the readout, cells of the grids they come from, cells of the inputs. */
struct hidden {
	long current, compact, notes, readout, context, inputs;
};

static struct hidden hidden_cells(const struct layout *l, int notes_need)
{
	struct hidden h = { 0, 0, notes_need - l->notes_h, 0, 0, 0 };

	for (int i = 0; i < l->count; i++) {
		const struct panel *p = &l->panels[i];
		long cut = (long)p->rows * p->cols - (p->dropped ? 0 : (long)p->shown_rows * p->shown_cols);

		if (!p->dropped && p->compact)
			h.compact += (long)p->shown_rows * p->shown_cols;
		switch (p->priority) {
		case PRIORITY_CURRENT:
			h.current += cut;
			break;
		case PRIORITY_READOUT:
			h.readout += p->rows - (p->dropped ? 0 : p->shown_rows);
			break;
		case PRIORITY_CONTEXT:
			h.context += cut;
			break;
		default:
			h.inputs += cut;
			break;
		}
	}
	return h;
}

static bool fewer_hidden(struct hidden a, struct hidden b)
{
	const long x[] = { a.current, a.compact, a.notes, a.readout, a.context, a.inputs };
	const long y[] = { b.current, b.compact, b.notes, b.readout, b.context, b.inputs };

	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
		if (x[i] != y[i])
			return x[i] < y[i];
	return false;
}

/* The lines the text under the grids needs (text.h), at the screen's width. */
struct text_need {
	int info;    /* the formula line and the derivation */
	int message; /* the status sentence (at least one line) */
	int notes;   /* the lesson's notes, 0 without */
};

static struct text_need text_need(const struct app *app, int width, int decimals, const char *notes)
{
	char formula[TEXT_MAX], derivation[TEXT_MAX], buf[TEXT_MAX];
	struct text_need need;
	bool error;
	int with, without;

	/* Live, the formula line differs with and without the readout: room for either. */
	text_info(app, decimals, true, formula, sizeof formula, derivation, sizeof derivation);
	with = text_lines(formula, width - 2);
	text_info(app, decimals, false, formula, sizeof formula, derivation, sizeof derivation);
	without = text_lines(formula, width - 2);
	need.info = (with > without ? with : without) + text_lines(derivation, width - 2);
	if (need.info < 1)
		need.info = 1;
	need.message = text_lines(text_status(app, buf, sizeof buf, &error), width - 2);
	if (need.message < 1 || app->view == VIEW_HELP)
		need.message = 1;
	need.notes = notes != NULL ? text_lines(notes, width - 2) : 0;
	return need;
}

bool layout_text_changed(const struct layout *l, const struct app *app)
{
	struct text_need need;

	if (l->too_small)
		return false;
	need = text_need(app, l->width, l->decimals, l->notes);
	return need.info != l->info_need || need.message != l->message_need;
}

/* True when the panels not left out, at caps, leave `room` lines for notes_h lines of notes. */
static bool fits(struct builder *b, int width, const int caps[PRIORITY_COUNT], int room, int notes_h)
{
	int widest;

	return place(b, width, caps, &widest) + notes_h <= room;
}

/* Raises caps[k] while the layout still fits (rows are never worth less than the
 * notes' lines they would take). */
static void grow_cap(struct builder *b, int width, int caps[PRIORITY_COUNT], int k, int most, int room, int notes_h)
{
	while (caps[k] < most) {
		caps[k]++;
		if (k == PRIORITY_CURRENT)
			caps[PRIORITY_READOUT] = caps[k];
		if (!fits(b, width, caps, room, notes_h)) {
			caps[k]--;
			if (k == PRIORITY_CURRENT)
				caps[PRIORITY_READOUT] = caps[k];
			break;
		}
	}
}

/* Leaves out the last current panel but the one the cursor is in (or, if none
 * of them has it, the first); false when only that one is left. */
static bool drop_current(struct layout *l, const struct app *app)
{
	int keep = -1;

	for (int i = 0; i < l->count; i++)
		if (l->panels[i].priority == PRIORITY_CURRENT && !l->panels[i].dropped &&
		    (keep < 0 || l->panels[i].focus == (int)app->focus) &&
		    (keep < 0 || l->panels[keep].focus != (int)app->focus))
			keep = i;
	for (int i = l->count - 1; i >= 0; i--)
		if (i != keep && l->panels[i].priority == PRIORITY_CURRENT && !l->panels[i].dropped) {
			l->panels[i].dropped = true;
			return true;
		}
	return false;
}

/* The mix's title says more (what its rows are) where its line has room to the
 * right of it; no other panel moves. */
static void widen_titles(struct layout *l, const struct app *app, int width)
{
	for (int i = 0; i < l->count; i++) {
		struct panel *panel = &l->panels[i];
		char title[200];
		int right = width, need;

		if (panel->dropped || panel->kind != PANEL_MIX)
			continue;
		for (int j = 0; j < l->count; j++) {
			const struct panel *other = &l->panels[j];

			if (j != i && !other->dropped && other->y == panel->y && other->x > panel->x &&
			    other->x - layout_gap(l) < right)
				right = other->x - layout_gap(l);
		}
		/* 3 columns for the focus mark "▶ ", as finish_panels counts them. */
		layout_panel_title_within(app, panel, right - panel->x - 3, title, sizeof title);
		need = 3 + glyphs_columns(title);
		if (need > panel->w && panel->x + need <= right)
			panel->w = need;
	}
}

/* One attempt at the layout, normal or tight (narrower cells and gaps, no legends
 * under the signed grids). The text's lines are reserved first; then, in turn,
 * the current grids with as many rows as fit, the notes' lines, the readout, the
 * grids they come from and the inputs, each as far as it fits; what does not fit
 * at all is left out, and a grid with rows out of sight scrolls. */
static void layout_try(struct layout *l, const struct builder *chosen, const struct app *app, int width,
		       int height, bool tight, const struct text_need *need, struct hidden *hidden)
{
	struct builder b = *chosen;
	int caps[PRIORITY_COUNT], most = 1, total, widest = 0, top = 2, room, notes_h, spacer = 0, free;
	int message = need->message, info = need->info, least_notes = need->notes > 0 ? 1 : 0;
	bool short_text;

	*l = *chosen->l;
	b.l = l;
	l->tight = tight;
	if (l->too_small)
		return;
	for (int i = 0; i < l->count; i++) {
		struct panel *panel = &l->panels[i];

		if (tight && panel->number_cell_w > 5)
			panel->number_cell_w--;
		if (panel->rows > most)
			most = panel->rows;
		panel->dropped = panel->priority != PRIORITY_CURRENT;
	}
	for (int k = 0; k < PRIORITY_COUNT; k++)
		caps[k] = 1;
	/* Title and stage bar, the keys line, the message, the formula and derivation. */
	room = height - 3 - message - info;
	notes_h = need->notes < 2 ? need->notes : 2;
	/* At the least the current grids with a row each and two lines of notes
	 * (they page); failing that, fewer current grids, the derivation's last
	 * lines, a shorter message, one line of notes. */
	while (!fits(&b, width, caps, room, notes_h)) {
		if (drop_current(l, app)) {
			continue;
		} else if (info > 2) {
			/* A derivation longer than the screen: its last lines, with its result. */
			info--;
			room++;
		} else if (message > 1) {
			message--;
			room++;
		} else if (notes_h > least_notes) {
			notes_h--;
		} else {
			int widest_now;

			l->too_small = true;
			l->need_height = height + place(&b, width, caps, &widest_now) + notes_h - room;
			return;
		}
	}
	/* A screen too small for the text gets nothing more (the text comes first). */
	short_text = info < need->info || message < need->message;
	if (!short_text)
		grow_cap(&b, width, caps, PRIORITY_CURRENT, most, room, notes_h);
	while (!short_text && notes_h < need->notes && fits(&b, width, caps, room, notes_h + 1))
		notes_h++;
	for (int k = PRIORITY_CURRENT; !short_text && k < PRIORITY_COUNT; k++) {
		/* Of the inputs, the one the cursor is in first. */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < l->count; i++) {
				struct panel *panel = &l->panels[i];

				if (panel->priority != (enum panel_priority)k || !panel->dropped ||
				    (pass == 0 && (k != PRIORITY_INPUT || panel->focus != (int)app->focus)))
					continue;
				panel->dropped = false;
				if (!fits(&b, width, caps, room, notes_h))
					panel->dropped = true;
			}
		if (k != PRIORITY_READOUT)
			grow_cap(&b, width, caps, k, most, room, notes_h);
	}
	if (fits(&b, width, caps, room, notes_h + 1))
		spacer = 1;
	l->notes_h = notes_h;
	*hidden = hidden_cells(l, need->notes);
	total = place(&b, width, caps, &widest);
	/* Room to spare and nothing out of sight: the cells grow with the screen,
	 * first wider (up to nine tenths of the width, without wrapping a line of
	 * panels), then taller (a block of lines per row, leaving air above the text,
	 * and never taller than a third of the width in lines: a cell stays wider
	 * than tall). */
	if (!tight && hidden->current + hidden->compact + hidden->notes + hidden->readout + hidden->context +
			      hidden->inputs == 0) {
		bool compact = false;
		int narrowest = MAX_CELL_W;

		for (int fitted = total;;) {
			int trial_widest;
			bool grows = true;

			for (int i = 0; i < l->count; i++)
				grows &= l->panels[i].kind == PANEL_READOUT || l->panels[i].number_cell_w < MAX_CELL_W;
			if (!grows)
				break;
			for (int i = 0; i < l->count; i++)
				l->panels[i].number_cell_w++;
			total = place(&b, width, caps, &trial_widest);
			if (trial_widest > width * 9 / 10 || total > fitted) {
				for (int i = 0; i < l->count; i++)
					l->panels[i].number_cell_w--;
				total = place(&b, width, caps, &widest);
				break;
			}
			widest = trial_widest;
		}
		for (int i = 0; i < l->count; i++) {
			compact |= l->panels[i].compact;
			if (l->panels[i].kind != PANEL_READOUT && l->panels[i].cell_w < narrowest)
				narrowest = l->panels[i].cell_w;
		}
		for (int h = 2; !compact && h <= MAX_CELL_H && h <= narrowest / 3; h++) {
			int trial_widest, trial;

			for (int i = 0; i < l->count; i++)
				l->panels[i].cell_h = h;
			trial = place(&b, width, caps, &trial_widest);
			if (trial + notes_h + spacer + 4 > room) {
				for (int i = 0; i < l->count; i++)
					l->panels[i].cell_h = h - 1;
				total = place(&b, width, caps, &widest);
				break;
			}
			total = trial;
			widest = trial_widest;
		}
	}
	l->left = (width - widest) / 2;
	if (l->left < 0)
		l->left = 0;
	/* The grids and the formula under them centred in what the text leaves. */
	free = room - total - notes_h - spacer;
	if (free > 1)
		top += free / 2;
	for (int i = 0; i < l->count; i++) {
		l->panels[i].x += l->left;
		l->panels[i].y += top;
	}
	widen_titles(l, app, width);
	/* The formula and derivation under the grids, where the eye already is; the
	 * notes, the message and the keys at the foot of the screen. */
	l->info_y = top + total + spacer;
	l->info_h = info;
	l->status_y = height - 2;
	l->message_h = message;
	l->info_need = need->info;
	l->message_need = need->message;
	l->notes_y = l->status_y - message + 1 - notes_h;
	l->notes_pages = notes_h > 0 ? (need->notes + notes_h - 1) / notes_h : 0;
	/* Only what is placed stays in the list. */
	int kept = 0;

	for (int i = 0; i < l->count; i++)
		if (!l->panels[i].dropped)
			l->panels[kept++] = l->panels[i];
	l->count = kept;
	layout_follow(l, app);
}

/* The normal layout when everything fits; otherwise the attempt that hides the
 * least (see struct hidden): normal or tight (narrower cells, no legends). */
void layout_compute(struct layout *l, const struct app *app, int width, int height,
		    const struct layout_look *look)
{
	struct layout trial, base;
	struct builder chosen;
	struct hidden best, hidden;
	struct text_need need;
	const char *notes = l->notes;

	/* The panels and their number widths once (a scan of every value), then the
	 * attempts, which only arrange them. */
	memset(&base, 0, sizeof base);
	memset(&chosen, 0, sizeof chosen);
	chosen.l = &base;
	base.width = width;
	base.height = height;
	base.look = *look;
	base.notes = notes;
	base.decimals = 2;   /* weights never with fewer than two decimals, projector too */
	base.need_width = LAYOUT_MIN_WIDTH;
	base.need_height = LAYOUT_MIN_HEIGHT;
	base.too_small = width < base.need_width || height < base.need_height;
	if (!base.too_small)
		choose_panels(&chosen, app, base.decimals);
	need = text_need(app, width, base.decimals, notes);
	layout_try(l, &chosen, app, width, height, false, &need, &best);
	if (!l->too_small && !fewer_hidden((struct hidden){ 0, 0, 0, 0, 0, 0 }, best))
		return;
	layout_try(&trial, &chosen, app, width, height, true, &need, &hidden);
	if (!trial.too_small && (l->too_small || fewer_hidden(hidden, best)))
		*l = trial;
}

/* Keeps first within [cursor − shown + 1, cursor] and inside [0, count − shown]. */
static int follow(int first, int cursor, int shown, int count)
{
	if (cursor < first)
		first = cursor;
	if (cursor >= first + shown)
		first = cursor - shown + 1;
	if (first > count - shown)
		first = count - shown;
	return first < 0 ? 0 : first;
}

void layout_follow(struct layout *l, const struct app *app)
{
	for (int i = 0; i < l->count; i++) {
		struct panel *panel = &l->panels[i];
		int row = app_query(app), col = 0;

		if (panel->focus >= 0) {
			row = app->cursor[panel->focus].row;
			col = app->cursor[panel->focus].col;
		} else if (panel->kind == PANEL_DERIVED) {
			row = app_query(app);
		}
		if (panel->kind == PANEL_MIX)
			row = app_key(app);
		panel->first_row = follow(panel->first_row, row, panel->shown_rows, panel->rows);
		panel->first_col = follow(panel->first_col, col, panel->shown_cols, panel->cols);
	}
}

int panel_lines(const struct panel *panel)
{
	return panel->halves ? (panel->shown_rows + 1) / 2 : panel->shown_rows * panel->cell_h;
}

int panel_row_y(const struct panel *panel, int shown_row)
{
	return panel->y + 2 + shown_row * panel->cell_h + (panel->cell_h - 1) / 2;
}

bool layout_hit(const struct layout *l, int x, int y, int *focus, int *row, int *col, int *head)
{
	for (int i = 0; i < l->count; i++) {
		const struct panel *panel = &l->panels[i];
		int data_x = panel->x + panel->label_w, data_y = panel->y + 2;
		bool small_multiple = panel->kind == PANEL_HEAD;

		if ((panel->focus < 0 && !small_multiple) || panel->kind == PANEL_MIX)
			continue;
		if (x < data_x || y < data_y || y >= data_y + panel_lines(panel) ||
		    x >= data_x + panel->shown_cols * panel->cell_w)
			continue;
		*focus = small_multiple ? QKV_GRID_WEIGHTS : panel->focus;
		*head = small_multiple ? panel->input + 1 : 0;
		*row = panel->first_row + (panel->halves ? (y - data_y) * 2 : (y - data_y) / panel->cell_h);
		*col = panel->first_col + (x - data_x) / panel->cell_w;
		return true;
	}
	return false;
}

bool layout_same(const struct layout *a, const struct layout *b)
{
	if (a->width != b->width || a->height != b->height || a->too_small != b->too_small ||
	    a->tight != b->tight || a->count != b->count || a->decimals != b->decimals || a->left != b->left ||
	    a->info_y != b->info_y || a->info_h != b->info_h || a->status_y != b->status_y ||
	    a->message_h != b->message_h || a->notes_y != b->notes_y || a->notes_h != b->notes_h ||
	    a->notes_pages != b->notes_pages)
		return false;
	for (int i = 0; i < a->count; i++) {
		const struct panel *p = &a->panels[i], *q = &b->panels[i];

		if (p->kind != q->kind || p->x != q->x || p->y != q->y || p->w != q->w || p->h != q->h ||
		    p->label_w != q->label_w || p->cell_w != q->cell_w || p->cell_h != q->cell_h ||
		    p->shown_rows != q->shown_rows || p->shown_cols != q->shown_cols ||
		    p->first_row != q->first_row || p->first_col != q->first_col || p->compact != q->compact ||
		    p->halves != q->halves || p->h_extra != q->h_extra || p->marker != q->marker ||
		    p->sums != q->sums || p->rows != q->rows || p->cols != q->cols)
			return false;
	}
	return true;
}
