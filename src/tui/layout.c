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

#define GAP 2           /* columns between panels (1 when tight) */
#define FIXED_LINES 7   /* title, stage bar, three info lines, message, keys (6 when tight) */
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

static int label_width(const struct qkv_problem *p)
{
	int widest = 2;

	for (int i = 0; i < p->n; i++) {
		int length = (int)strlen(p->tokens[i]);
		if (length > widest)
			widest = length;
	}
	return (widest > 8 ? 8 : widest) + 1;
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
	switch (panel->kind) {
	case PANEL_WEIGHTS:
		return 3; /* the legend stays: what the colours mean */
	case PANEL_SCORES:
	case PANEL_SCALED:
		return l->tight && !panel->sums ? 2 : 3;
	case PANEL_MIX:
		return 3;
	default:
		return 2;
	}
}

struct builder {
	struct layout *l;
	int group[LAYOUT_MAX_PANELS]; /* group number of each panel */
	int groups;
	struct panel spare;           /* what add() gives past the limit */
};

/* The most panels a layout builds: the projected form's walk shows X and three
 * W's, Q K V derived, and the five stages' grids. */
_Static_assert(LAYOUT_MAX_PANELS >= (QKV_INPUT_COUNT - 3) + 3 + 5,
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
		return panel->input >= QKV_INPUT_W_Q && panel->input <= QKV_INPUT_W_V ? app->head : -1;
	case PANEL_DERIVED:
	case PANEL_SCORES:
	case PANEL_SCALED:
	case PANEL_WEIGHTS:
	case PANEL_MIX:
	case PANEL_OUTPUT:
	case PANEL_READOUT:
		return panel->input == LAYOUT_HEADS_READOUT ? -1 : app->head;
	default:
		return -1;
	}
}

const char *layout_panel_title(const struct app *app, const struct panel *panel, char *buf, size_t size)
{
	static const char *const input_titles[QKV_INPUT_COUNT] = {
		[QKV_INPUT_Q] = "Q  queries", [QKV_INPUT_K] = "K  keys", [QKV_INPUT_V] = "V  values",
		[QKV_INPUT_X] = "X  inputs", [QKV_INPUT_W_Q] = "W_Q", [QKV_INPUT_W_K] = "W_K", [QKV_INPUT_W_V] = "W_V",
		[QKV_INPUT_W_O] = "W_O",
	};
	int head = layout_panel_head(app, panel);
	static const char *const derived_titles[QKV_INPUT_V + 1] = {
		[QKV_INPUT_Q] = "Q = X W_Q", [QKV_INPUT_K] = "K = X W_K", [QKV_INPUT_V] = "V = X W_V",
	};
	char divisor[32];
	const char *token = app->problem.tokens[app_query(app)];
	bool live = app->stage == APP_STAGE_LIVE;

	qkv_format_number(divisor, sizeof divisor, app->trace.divisor, 3);
	switch (panel->kind) {
	case PANEL_INPUT:
		snprintf(buf, size, "%s", input_titles[panel->input]);
		break;
	case PANEL_DERIVED:
		snprintf(buf, size, "%s", derived_titles[panel->input]);
		break;
	case PANEL_SCORES:
		snprintf(buf, size, "1 scores  S = Q Kᵀ");
		break;
	case PANEL_SCALED:
		snprintf(buf, size, "2 scaled  S / %s", divisor);
		break;
	case PANEL_WEIGHTS:
		snprintf(buf, size, live ? "weights  softmax rows" : "3 weights  A = softmax(S')");
		break;
	case PANEL_MIX:
		snprintf(buf, size, "4 mix  a_%s,j × v_j", token);
		break;
	case PANEL_OUTPUT:
		snprintf(buf, size, live ? "output  O = A V" : "5 output  O = A V");
		break;
	case PANEL_HEAD:
		snprintf(buf, size, "weights");
		break;
	case PANEL_CONCAT:
		snprintf(buf, size, live ? "concat" : "6 concat");
		break;
	case PANEL_LAYER:
		snprintf(buf, size, live ? "output = Concat W_O" : "7 output = Concat W_O");
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
		char rest[160];

		snprintf(rest, sizeof rest, "%s", buf);
		snprintf(buf, size, "h%d %s", head + 1, rest);
	}
	return buf;
}

/* Multi-head, live or in stages 6 and 7: every head's weights side by side (the
 * selected head's carries the cursor), then the concatenation (whose blocks are
 * the heads' outputs), W_O and the layer output; live also the selected head's
 * inputs. */
static void choose_heads_panels(struct builder *b, const struct app *app, int decimals)
{
	const struct qkv_problem *p = &app->problem;
	const struct qkv_heads_trace *t = &app->heads;
	int label_w = label_width(p), token_w = label_w - 1, weight_w = decimals + 2 + (b->l->look.glyphs ? 1 : 0);
	bool live = app->stage == APP_STAGE_LIVE;
	const struct qkv_matrix *w_o = app_input(app, QKV_INPUT_W_O);

	if (live) {
		static const int inputs[] = { QKV_INPUT_X, QKV_INPUT_W_Q, QKV_INPUT_W_K, QKV_INPUT_W_V };

		for (int i = 0; i < (int)(sizeof inputs / sizeof inputs[0]); i++) {
			const struct qkv_matrix *m = app_input(app, (enum qkv_input)inputs[i]);

			grid_panel(add(b), PANEL_INPUT, inputs[i], inputs[i], m->rows, m->cols,
				   number_width(m, decimals), i == 0 ? label_w : (m->rows >= 10 ? 3 : 2) + 1, 3);
		}
		b->groups++;
	}
	for (int i = 0; i < t->h; i++) {
		if (i == app->head)
			grid_panel(add(b), PANEL_WEIGHTS, FOCUS_ATTENTION, -1, t->n, t->n, weight_w, label_w, token_w);
		else
			grid_panel(add(b), PANEL_HEAD, -1, i, t->n, t->n, weight_w, label_w, token_w);
	}
	b->groups++;
	grid_panel(add(b), PANEL_CONCAT, FOCUS_CONCAT, -1, t->n, t->concat.cols,
		   number_width(&t->concat, decimals), label_w, 4);
	grid_panel(add(b), PANEL_INPUT, FOCUS_W_O, QKV_INPUT_W_O, w_o->rows, w_o->cols,
		   number_width(w_o, decimals), 5, 3);
	grid_panel(add(b), PANEL_LAYER, FOCUS_LAYER, -1, t->n, t->output.cols,
		   number_width(&t->output, decimals), label_w, 3);
	/* The heads compared (a row each and one for their average), last: the layout
	 * drops it first when the screen is short. */
	if (app->show_stats)
		grid_panel(add(b), PANEL_READOUT, -1, LAYOUT_HEADS_READOUT, t->h + 1, 4, 6, 4, 6);
	b->groups++;
}

/* Titles, and which panels the stage walk still withholds. */
static void finish_panels(struct builder *b, const struct app *app)
{
	for (int i = 0; i < b->l->count; i++) {
		struct panel *q = &b->l->panels[i];
		char title[128];
		int stage;

		q->shown_rows = q->rows;
		q->shown_cols = q->cols;
		layout_panel_title(app, q, title, sizeof title);
		q->title_w = 3 + glyphs_columns(title); /* room for the focus mark "▶ " */
		stage = q->kind == PANEL_SCORES ? QKV_STAGE_SCORES
			: q->kind == PANEL_SCALED ? QKV_STAGE_SCALED
			: q->kind == PANEL_WEIGHTS || q->kind == PANEL_HEAD ? QKV_STAGE_WEIGHTS
			: q->kind == PANEL_MIX ? QKV_STAGE_MIX
			: q->kind == PANEL_OUTPUT ? QKV_STAGE_OUTPUT
			: q->kind == PANEL_CONCAT ? APP_STAGE_CONCAT
			: q->kind == PANEL_LAYER ? APP_STAGE_LAYER : QKV_STAGE_PROJECTIONS;
		if (q->kind != PANEL_INPUT && q->kind != PANEL_DERIVED && q->kind != PANEL_READOUT)
			q->withheld = !app_stage_visible(app, (enum qkv_stage)stage);
	}
}

/* Chooses the panels for the form and the stage, in reading order. */
static void choose_panels(struct builder *b, const struct app *app, int decimals)
{
	const struct qkv_problem *p = &app->problem;
	const struct qkv_trace *t = &app->trace;
	int label_w = label_width(p), token_w = label_w - 1;
	bool live = app->stage == APP_STAGE_LIVE;
	int digits_v = t->d_v >= 10 ? 3 : 2;
	struct panel *panel;

	if (p->h > 0 && (live || app->stage >= APP_STAGE_CONCAT)) {
		choose_heads_panels(b, app, decimals);
		finish_panels(b, app);
		return;
	}

	if (p->form == QKV_FORM_PROJECTED) {
		static const int inputs[] = { QKV_INPUT_X, QKV_INPUT_W_Q, QKV_INPUT_W_K, QKV_INPUT_W_V };
		for (int i = 0; i < (int)(sizeof inputs / sizeof inputs[0]); i++) {
			const struct qkv_matrix *m = app_input(app, (enum qkv_input)inputs[i]);
			/* The W's rows are dimensions of d_model, numbered 1, 2, … */
			grid_panel(add(b), PANEL_INPUT, inputs[i], inputs[i], m->rows, m->cols,
				   number_width(m, decimals), i == 0 ? label_w : (m->rows >= 10 ? 3 : 2) + 1,
				   digits_v + 1);
		}
		b->groups++;
		grid_panel(add(b), PANEL_DERIVED, -1, QKV_INPUT_Q, t->n, t->d_k, number_width(&t->q, decimals), label_w, digits_v + 1);
		grid_panel(add(b), PANEL_DERIVED, -1, QKV_INPUT_K, t->n, t->d_k, number_width(&t->k, decimals), label_w, digits_v + 1);
		grid_panel(add(b), PANEL_DERIVED, -1, QKV_INPUT_V, t->n, t->d_v, number_width(&t->v, decimals), label_w, digits_v + 1);
		b->groups++;
		for (int i = b->l->count - 3; i < b->l->count; i++) {
			b->l->panels[i].derived = true;
			b->l->panels[i].withheld = !live && app->stage < QKV_STAGE_PROJECTIONS;
		}
	} else {
		grid_panel(add(b), PANEL_INPUT, FOCUS_Q, QKV_INPUT_Q, p->n, p->q.cols, number_width(&p->q, decimals), label_w, digits_v + 1);
		grid_panel(add(b), PANEL_INPUT, FOCUS_K, QKV_INPUT_K, p->n, p->k.cols, number_width(&p->k, decimals), label_w, digits_v + 1);
		grid_panel(add(b), PANEL_INPUT, FOCUS_V, QKV_INPUT_V, p->n, p->v.cols, number_width(&p->v, decimals), label_w, digits_v + 1);
		b->groups++;
	}
	if (!live) {
		grid_panel(add(b), PANEL_SCORES, FOCUS_ATTENTION, -1, t->n, t->n, number_width(&t->scores, decimals), label_w, token_w);
		grid_panel(add(b), PANEL_SCALED, FOCUS_ATTENTION, -1, t->n, t->n, number_width(&t->scaled, decimals), label_w, token_w);
	}
	/* Without colour, or with only eight, a shading glyph stands beside each weight:
	 * it needs a column. */
	panel = add(b);
	grid_panel(panel, PANEL_WEIGHTS, FOCUS_ATTENTION, -1, t->n, t->n,
		   decimals + 2 + (b->l->look.glyphs ? 1 : 0), label_w, token_w);
	/* The wrong-way demonstrations show each row's and each column's sum. */
	panel->sums = p->wrong != QKV_WRONG_NONE;
	if (panel->sums && panel->label_w < 5)
		panel->label_w = panel->row_label_w = 5; /* room for the column sums' label, "Σcol" */
	if (!live) {
		b->groups++;
		/* The mix terms a_ij·v_jc are at most |v| in size. */
		grid_panel(add(b), PANEL_MIX, FOCUS_OUTPUT, -1, t->n, t->d_v, number_width(&t->v, decimals) + 1, label_w, digits_v + 1);
	}
	panel = add(b);
	grid_panel(panel, PANEL_OUTPUT, FOCUS_OUTPUT, -1, t->n, t->d_v, number_width(&t->output, decimals), label_w, digits_v + 1);
	if (live && app->show_stats)
		grid_panel(add(b), PANEL_READOUT, -1, -1, t->n, 4, 6, label_w, 6);
	b->groups++;
	finish_panels(b, app);
}

static int layout_gap(const struct layout *l)
{
	return l->tight ? 1 : GAP;
}

/* Row limits by priority: inputs give up rows first, then the readout, and the
 * heatmap and the output last, so they stay readable. */
enum { CAP_INPUT, CAP_READOUT, CAP_GRID, CAP_COUNT };

static int cap_kind(const struct panel *panel)
{
	if (panel->kind == PANEL_INPUT || panel->kind == PANEL_DERIVED)
		return CAP_INPUT;
	return panel->kind == PANEL_READOUT ? CAP_READOUT : CAP_GRID;
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

		if (b->group[j] != b->group[i])
			continue;
		total += p->label_w + p->cols * p->number_cell_w + 1 + layout_gap(l);
		count++;
	}
	if (total - layout_gap(l) <= width)
		return 0;
	return (width - layout_gap(l) * (count - 1)) / count;
}

/* Places panels in lines (wrapping within a group) with at most `cap` data rows
 * each; returns the total height, and the widest line in *widest. */
static int place(struct builder *b, int width, const int caps[CAP_COUNT], int top, int *widest)
{
	struct layout *l = b->l;
	int x = 0, y = top, line_h = 0, group = -1, strip_w = 0;

	*widest = 0;
	/* The width the heads' weights need side by side with numbers. */
	for (int i = 0; i < l->count; i++)
		if (l->panels[i].kind == PANEL_HEAD ||
		    (l->panels[i].kind == PANEL_WEIGHTS && i + 1 < l->count &&
		     l->panels[i + 1].kind == PANEL_HEAD) ||
		    (l->panels[i].kind == PANEL_WEIGHTS && i > 0 && l->panels[i - 1].kind == PANEL_HEAD))
			strip_w += l->panels[i].row_label_w + l->panels[i].cols * l->panels[i].number_cell_w + 1 +
				   layout_gap(l);
	for (int i = 0; i < l->count; i++) {
		struct panel *panel = &l->panels[i];
		int room, w, shown, share;

		/* A heatmap too wide for numbers becomes colour-only cells, two columns each. */
		panel->compact = (panel->kind == PANEL_WEIGHTS || panel->kind == PANEL_SCORES ||
				  panel->kind == PANEL_SCALED) &&
				 panel->row_label_w + panel->cols * panel->number_cell_w + 1 > width && panel->cols > 8;
		/* The heads' weights side by side: colour-only cells when they do not all fit. */
		if (panel->kind == PANEL_HEAD || (panel->kind == PANEL_WEIGHTS && strip_w > width))
			panel->compact = panel->compact || strip_w > width;
		panel->cell_w = panel->compact ? 2 : panel->number_cell_w;
		/* The selected row and column in numbers (not under another head's). */
		panel->h_extra = panel->compact && panel->kind != PANEL_HEAD ? 2 : 0;
		/* In colour, a compact grid shows two rows per line with half blocks, each
		 * line labelled with both rows ("t1/t2"). */
		panel->halves = panel->compact && !l->look.monochrome && l->look.half_blocks;
		panel->label_w = panel->halves ? 2 * panel->row_label_w : panel->row_label_w;
		room = width - panel->label_w - 1;
		/* Wide inputs (d_k in the hundreds) share their line: first columns and "…". */
		share = input_share(b, i, width);
		if (share > 0 && share - panel->label_w - 2 < room)
			room = share - panel->label_w - 2;
		panel->shown_cols = room / panel->cell_w;
		if (panel->shown_cols > panel->cols)
			panel->shown_cols = panel->cols;
		if (panel->shown_cols < 1)
			panel->shown_cols = 1;
		shown = caps[cap_kind(panel)] * (panel->halves ? 2 : 1);
		shown = panel->rows < shown ? panel->rows : shown;
		panel->shown_rows = shown;
		if (panel->halves)
			shown = (shown + 1) / 2; /* lines, from here on */
		else
			shown *= panel->cell_h;
		w = panel_width(panel, panel->shown_cols);
		if (w > width)
			w = width;
		panel->w = w;
		panel->h = panel_extra_lines(l, panel) + panel->h_extra + (panel->kind == PANEL_READOUT ? shown + 1 : shown);
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
	return y + line_h - top;
}

/* What a layout leaves out, in order of importance: cells of the computed grids
 * (heatmap, output), cells of the inputs, rows of the readout (all of them when it
 * is dropped; the formula line then carries its variance). */
struct hidden {
	long grids, readout, inputs;
};

static struct hidden hidden_cells(const struct layout *l, const struct app *app)
{
	struct hidden h = { 0, 0, 0 };
	bool has_readout = false;

	for (int i = 0; i < l->count; i++) {
		const struct panel *p = &l->panels[i];
		long cut = (long)p->rows * p->cols - (long)p->shown_rows * p->shown_cols;

		if (p->kind == PANEL_READOUT) {
			has_readout = true;
			h.readout += p->rows - p->shown_rows;
		} else if (p->kind == PANEL_INPUT || p->kind == PANEL_DERIVED) {
			h.inputs += cut;
		} else {
			h.grids += cut;
		}
	}
	if (!has_readout && app->stage == APP_STAGE_LIVE && app->show_stats)
		h.readout += app->trace.n;
	return h;
}

static bool fewer_hidden(struct hidden a, struct hidden b)
{
	if (a.grids != b.grids)
		return a.grids < b.grids;
	if (a.inputs != b.inputs)
		return a.inputs < b.inputs;
	return a.readout < b.readout;
}

/* One attempt at the layout, normal or tight (narrower cells and gaps, no legends,
 * two info lines), with or without the readout. */
static void layout_try(struct layout *l, const struct builder *chosen, const struct app *app,
		       int width, int height, bool tight, bool readout)
{
	struct builder b = *chosen;
	int fixed = tight ? FIXED_LINES - 1 : FIXED_LINES;
	int body = height - fixed, most = 0, caps[CAP_COUNT], total = 0, widest = 0, top = 2;

	*l = *chosen->l;
	b.l = l;
	l->tight = tight;
	if (l->too_small)
		return;
	if (!readout && l->count > 0 && l->panels[l->count - 1].kind == PANEL_READOUT)
		l->count--;
	for (int i = 0; i < l->count; i++) {
		if (tight && l->panels[i].number_cell_w > 5)
			l->panels[i].number_cell_w--;
		if (l->panels[i].rows > most)
			most = l->panels[i].rows;
	}
	/* A cap above the body's lines never fits (1024 tokens would try 1024 caps). */
	for (int k = 0; k < CAP_COUNT; k++)
		caps[k] = most < body ? most : body > 1 ? body : 1;
	/* Fewer visible rows until everything fits (the grids scroll): inputs down to 2,
	 * then the readout, then everything down to 1. */
	for (;;) {
		total = place(&b, width, caps, top, &widest);
		if (total <= body)
			break;
		if (caps[CAP_INPUT] > 2)
			caps[CAP_INPUT]--;
		else if (caps[CAP_READOUT] > 1)
			caps[CAP_READOUT]--;
		else if (caps[CAP_GRID] > 1)
			caps[CAP_GRID]--;
		else if (caps[CAP_INPUT] > 1)
			caps[CAP_INPUT]--;
		else
			break;
	}
	if (total > body && l->count > 0 && l->panels[l->count - 1].kind == PANEL_READOUT) {
		l->count--;
		total = place(&b, width, caps, top, &widest);
	}
	if (total > body) {
		l->too_small = true;
		l->need_height = height + (total - body);
		return;
	}
	/* Room to spare: the cells grow with the screen, first wider (up to nine tenths
	 * of the width, without wrapping a line of panels), then, when every row shows,
	 * taller (a block of lines per row, leaving five lines for the formula and the
	 * derivation, and never taller than a third of the width in lines: a cell
	 * stays wider than tall). Then the block is centred. */
	for (int fitted = total; !tight;) {
		int trial_widest;
		bool room = true;

		for (int i = 0; i < l->count; i++)
			room &= l->panels[i].kind == PANEL_READOUT || l->panels[i].number_cell_w < MAX_CELL_W;
		if (!room)
			break;
		for (int i = 0; i < l->count; i++)
			l->panels[i].number_cell_w++;
		total = place(&b, width, caps, top, &trial_widest);
		if (trial_widest > width * 9 / 10 || total > fitted) {
			for (int i = 0; i < l->count; i++)
				l->panels[i].number_cell_w--;
			total = place(&b, width, caps, top, &widest);
			break;
		}
		widest = trial_widest;
	}
	if (!tight && caps[CAP_GRID] >= most && caps[CAP_INPUT] >= most && caps[CAP_READOUT] >= most) {
		bool compact = false;
		int narrowest = MAX_CELL_W;

		for (int i = 0; i < l->count; i++) {
			compact |= l->panels[i].compact;
			if (l->panels[i].kind != PANEL_READOUT && l->panels[i].cell_w < narrowest)
				narrowest = l->panels[i].cell_w;
		}
		for (int h = 2; !compact && h <= MAX_CELL_H && h <= narrowest / 3; h++) {
			int trial_widest, trial;

			for (int i = 0; i < l->count; i++)
				l->panels[i].cell_h = h;
			trial = place(&b, width, caps, top, &trial_widest);
			if (trial > body - 5) {
				for (int i = 0; i < l->count; i++)
					l->panels[i].cell_h = h - 1;
				total = place(&b, width, caps, top, &widest);
				break;
			}
			total = trial;
			widest = trial_widest;
		}
	}
	l->left = (width - widest) / 2;
	if (l->left < 0)
		l->left = 0;
	/* Centre the grids and the lines under them (about 5) in the height. */
	if (body - total > 5)
		top += (body - total - 5) / 2;
	for (int i = 0; i < l->count; i++) {
		l->panels[i].x += l->left;
		l->panels[i].y += top - 2;
	}
	/* The formula and derivation sit under the grids, where the eye already is. */
	l->status_y = height - 2;
	l->info_y = top + total + 1 <= height - (fixed - 2) ? top + total + 1 : height - (fixed - 2);
	/* Up to four lines; a line left free above the message lets a long one wrap. */
	l->info_h = l->status_y - l->info_y;
	if (l->info_h > 4)
		l->info_h = 4;
	layout_follow(l, app);
}

/* The normal layout when everything fits; otherwise the attempt that hides the
 * least (see struct hidden): tight (narrower cells, no legends), and without the
 * readout, whose verdict the formula line also gives in words. */
void layout_compute(struct layout *l, const struct app *app, int width, int height,
		    const struct layout_look *look)
{
	struct layout trial, base;
	struct builder chosen;
	struct hidden best, none = { 0, 0, 0 };

	/* The panels and their number widths once (a scan of every value), then the
	 * attempts, which only arrange them. */
	memset(&base, 0, sizeof base);
	memset(&chosen, 0, sizeof chosen);
	chosen.l = &base;
	base.width = width;
	base.height = height;
	base.look = *look;
	base.decimals = 2;   /* weights never with fewer than two decimals, projector too */
	base.need_width = 60;
	base.need_height = 16;
	base.too_small = width < base.need_width || height < base.need_height;
	if (!base.too_small)
		choose_panels(&chosen, app, base.decimals);
	layout_try(l, &chosen, app, width, height, false, true);
	best = hidden_cells(l, app);
	if (!l->too_small && !fewer_hidden(none, best))
		return;
	for (int attempt = 0; attempt < 3; attempt++) {
		struct hidden hidden;

		layout_try(&trial, &chosen, app, width, height, attempt != 0, attempt == 1);
		if (trial.too_small)
			continue;
		hidden = hidden_cells(&trial, app);
		if (l->too_small || fewer_hidden(hidden, best)) {
			*l = trial;
			best = hidden;
		}
	}
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

		if ((panel->focus < 0 && !small_multiple) || panel->withheld || panel->kind == PANEL_MIX)
			continue;
		if (x < data_x || y < data_y || y >= data_y + panel_lines(panel) ||
		    x >= data_x + panel->shown_cols * panel->cell_w)
			continue;
		*focus = small_multiple ? FOCUS_ATTENTION : panel->focus;
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
	    a->info_y != b->info_y || a->info_h != b->info_h || a->status_y != b->status_y)
		return false;
	for (int i = 0; i < a->count; i++) {
		const struct panel *p = &a->panels[i], *q = &b->panels[i];

		if (p->kind != q->kind || p->x != q->x || p->y != q->y || p->w != q->w || p->h != q->h ||
		    p->label_w != q->label_w || p->cell_w != q->cell_w || p->cell_h != q->cell_h ||
		    p->shown_rows != q->shown_rows || p->shown_cols != q->shown_cols ||
		    p->first_row != q->first_row || p->first_col != q->first_col || p->compact != q->compact ||
		    p->halves != q->halves || p->h_extra != q->h_extra || p->withheld != q->withheld ||
		    p->sums != q->sums || p->rows != q->rows || p->cols != q->cols)
			return false;
	}
	return true;
}
