/* figure.c — one stage of a trace as a figure (see figure.h): the options and
 * their parsers, the panels of a stage, their layout and drawing, and the public
 * calls of one trace. A multi-head trace's panels and calls are figure_heads.c's,
 * the colour scale and bar figure_bar.c's. The figure is laid out once in natural
 * units (points, the numbers at FONT_SIZE, a heatmap's grid within
 * FIGURE_GRID_MAX), then scaled and centred into the size asked for; a canvas
 * draws it either through cairo (PDF, PNG) or as SVG elements, from the same
 * calls. */
#include "io/figure/figure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/figure/figure_internal.h"
#include "qkv/format.h"

#define LABEL_CHARS 12        /* a token label longer than this ends in "…" */
#define SUM_TOLERANCE 5e-3    /* a wrong-way sum further than this from 1 is red */
#define MIX_SUM_LABEL "\u03a3 = O"
#define MIX_SUM_ABOUT_LABEL "\u03a3 \u2248 O"
#define PLAIN_CELL (1.6 * FONT_SIZE) /* a heatmap cell without numbers, at most */

static const struct qkv_rgb black = { 0x00, 0x00, 0x00 }, white = { 0xff, 0xff, 0xff };

void figure_options_default(struct figure_options *o)
{
	*o = (struct figure_options){
		.stage = QKV_STAGE_WEIGHTS, .palette = QKV_PALETTE_VIRIDIS, .map = QKV_MAP_VIRIDIS,
		.numbers = FIGURE_NUMBERS_AUTO, .head = -1, .dark = false,
		.decimals = 2, .cell_row = -1, .cell_col = -1, .width = 0.0, .height = 0.0,
	};
}

/* One side of a size: a plain positive number within the limits. */
static int parse_side(const char *text, size_t length, double *side)
{
	char buf[32], *end;
	double v;

	if (length == 0 || length >= sizeof buf)
		return -1;
	memcpy(buf, text, length);
	buf[length] = '\0';
	for (size_t i = 0; i < length; i++)
		if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.'))
			return -1;
	errno = 0;
	v = strtod(buf, &end);
	if (errno != 0 || *end != '\0' || !(v >= FIGURE_MIN_SIDE && v <= FIGURE_MAX_SIDE))
		return -1;
	*side = v;
	return 0;
}

int figure_size_parse(const char *text, double *width, double *height)
{
	const char *x;
	size_t sep = 1;

	if (text == NULL)
		return -1;
	x = strchr(text, 'x');
	if (x == NULL) {
		x = strstr(text, "\u00d7");
		sep = 2;
	}
	if (x == NULL || parse_side(text, (size_t)(x - text), width) != 0 ||
	    parse_side(x + sep, strlen(x + sep), height) != 0)
		return -1;
	return 0;
}

int figure_range_parse(const char *text, double *low, double *high)
{
	const char *colon;
	char *end;
	double a, b;

	if (text == NULL || (colon = strchr(text, ':')) == NULL || colon == text || colon[1] == '\0')
		return -1;
	errno = 0;
	a = strtod(text, &end);
	if (end != colon || errno != 0)
		return -1;
	b = strtod(colon + 1, &end);
	if (*end != '\0' || errno != 0 || !isfinite(a) || !isfinite(b) || !(a < b))
		return -1;
	*low = a;
	*high = b;
	return 0;
}

bool figure_stage_drawable(const struct qkv_problem *p, int stage)
{
	if (stage < 0 || stage >= QKV_STAGE_COUNT)
		return false;
	return stage != QKV_STAGE_PROJECTIONS || p->form == QKV_FORM_PROJECTED;
}

/* ---- text ----------------------------------------------------------------------- */

/* True once the figure's caller asked it to stop (figure_options.stop). */
static bool stopped(const struct fig *f)
{
	return f->o.stop != NULL && atomic_load(f->o.stop);
}

double fig_text_width(struct fig *f, const char *text, double size, bool bold)
{
	return canvas_text_width(&f->cv, text, size, bold);
}

/* A token label, cut to LABEL_CHARS characters with "…". */
static void label_text(const struct fig *f, enum label_kind kind, int index, char *buf, size_t size)
{
	const char *s;
	size_t used = 0;
	int chars = 0;

	if (kind == LABELS_DIMS) {
		snprintf(buf, size, "d%d", index + 1);
		return;
	}
	s = kind == LABELS_QUERIES ? qkv_problem_query_label(f->p, index) : f->p->tokens[index];
	while (s[used] != '\0') {
		if (((unsigned char)s[used] & 0xc0) != 0x80 && chars++ == LABEL_CHARS)
			break;
		used++;
	}
	if (s[used] == '\0' || used + 4 > size)
		snprintf(buf, size, "%.*s", (int)(used < size ? used : size - 1), s);
	else
		snprintf(buf, size, "%.*s\u2026", (int)used, s);
}

/* ---- values and colours ----------------------------------------------------------- */

bool fig_cell_masked(const struct fig *f, const struct panel *pn, int row, int col)
{
	(void)f;
	if (pn->square)
		return qkv_trace_is_masked(pn->t, row, col);
	if (pn->mix)
		return qkv_trace_is_masked(pn->t, pn->query, row);
	return false;
}

double fig_cell_value(const struct fig *f, const struct panel *pn, int row, int col)
{
	(void)f;
	if (pn->mix) {
		if (row == pn->rows)
			return qkv_matrix_get(&pn->t->output, pn->query, col);
		return qkv_trace_mix(pn->t, pn->query, row, col);
	}
	return qkv_matrix_get(pn->m, row, col);
}

static struct qkv_rgb cell_fill(const struct fig *f, const struct panel *pn, int row, int col, double v)
{
	bool masked = row < pn->rows && fig_cell_masked(f, pn, row, col);

	if (pn->colour == COLOUR_PLAIN && !masked)
		return f->bg;
	return figure_heat_fill(&f->scale, v, masked, f->bg);
}

static bool same_rgb(struct qkv_rgb a, struct qkv_rgb b)
{
	return a.r == b.r && a.g == b.g && a.b == b.b;
}

/* A row's sum of weights (the trace's) or a column's (the core's). */
static double weight_sum(const struct fig *f, bool rows, int i)
{
	return rows ? f->t->rows[i].weight_sum : qkv_trace_column_sum(f->t, i);
}

/* A row's or column's sum of weights as text, "≈" in front when the weights it
 * sums, each rounded as the figure shows it, add up to something else. */
static void weight_sum_text(const struct fig *f, bool rows, int i, char *buf, size_t size)
{
	double scale = pow(10.0, f->o.decimals), sum = weight_sum(f, rows, i);
	long long shown = 0;
	char number[48];

	for (int j = 0; j < (rows ? f->t->n : f->t->m); j++)
		shown += llround((rows ? qkv_matrix_get(&f->t->weights, i, j) : qkv_matrix_get(&f->t->weights, j, i)) *
				 scale);
	qkv_format_number(number, sizeof number, sum, f->o.decimals);
	snprintf(buf, size, "%s%s", shown == llround(sum * scale) ? "" : "\u2248", number);
}

/* ---- the panels of a stage --------------------------------------------------------- */

struct panel *fig_add_panel(struct fig *f, const char *title, const struct qkv_trace *t,
			    const struct qkv_matrix *m, enum panel_colour colour, enum label_kind rows,
			    enum label_kind cols, bool square)
{
	struct panel *pn = &f->panels[f->count++];

	memset(pn, 0, sizeof *pn);
	snprintf(pn->title, sizeof pn->title, "%s", title);
	pn->t = t;
	pn->m = m;
	pn->rows = m->rows;
	pn->cols = m->cols;
	pn->colour = colour;
	pn->row_labels = rows;
	pn->col_labels = cols;
	pn->square = square;
	return pn;
}

static void make_panels(struct fig *f)
{
	const struct qkv_trace *t = f->t;
	bool weights_sums = f->p->wrong != QKV_WRONG_NONE;
	char title[160];

	if (f->heads != NULL) {
		fig_heads_panels(f);
		return;
	}
	f->count = 0;
	switch (f->o.stage) {
	case QKV_STAGE_PROJECTIONS:
		fig_add_panel(f, qkv_problem_is_cross(f->p) ? "Q = X_q W_Q" : "Q = X W_Q", t, &t->q, COLOUR_PLAIN,
			  LABELS_QUERIES, LABELS_DIMS, false);
		fig_add_panel(f, "K = X W_K", t, &t->k, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		fig_add_panel(f, "V = X W_V", t, &t->v, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		break;
	case QKV_STAGE_SCORES:
		fig_add_panel(f, "S (rows: queries, columns: keys)", t, &t->scores, COLOUR_SIGNED,
			  LABELS_QUERIES, LABELS_TOKENS, true)->selectable = true;
		break;
	case QKV_STAGE_SCALED:
		fig_add_panel(f, "S' (rows: queries, columns: keys)", t, &t->scaled, COLOUR_SIGNED,
			  LABELS_QUERIES, LABELS_TOKENS, true)->selectable = true;
		break;
	case QKV_STAGE_MIX: {
		int query = f->o.cell_row >= 0 && f->o.cell_row < t->m ? f->o.cell_row : 0;
		struct panel *pn;

		snprintf(title, sizeof title, "a_{ij} \u00b7 v_j for query %s (rows: keys j)",
			 qkv_problem_query_label(f->p, query));
		pn = fig_add_panel(f, title, t, &t->v, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		pn->m = NULL;
		pn->mix = true;
		pn->query = query;
		break;
	}
	case QKV_STAGE_OUTPUT:
		fig_add_panel(f, "A (weights)", t, &t->weights, COLOUR_WEIGHTS, LABELS_QUERIES, LABELS_TOKENS, true)->sums =
			weights_sums;
		fig_add_panel(f, "V", t, &t->v, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		fig_add_panel(f, "O = A V", t, &t->output, COLOUR_PLAIN, LABELS_QUERIES, LABELS_DIMS, false)->selectable =
			true;
		break;
	case QKV_STAGE_WEIGHTS:
	default: {
		struct panel *pn = fig_add_panel(f, "A (rows: queries, columns: keys)", t, &t->weights, COLOUR_WEIGHTS,
					     LABELS_QUERIES, LABELS_TOKENS, true);

		pn->sums = weights_sums;
		pn->selectable = true;
		break;
	}
	}
}

/* ---- layout ------------------------------------------------------------------------ */

/* Whether the numbers are drawn in a heatmap of this cell width and height
 * (natural units) at the figure's output scale: never with OFF, always with ON,
 * and with AUTO when they are at least FIGURE_MIN_NUMBER_SIZE once scaled. */
static bool numbers_fit(const struct fig *f, double number_fs, double scale)
{
	if (f->o.numbers == FIGURE_NUMBERS_OFF)
		return false;
	if (f->o.numbers == FIGURE_NUMBERS_ON)
		return true;
	return number_fs * scale >= FIGURE_MIN_NUMBER_SIZE - 1e-9;
}

/* A panel's cells and labels at the natural size: a heatmap's cells fit its
 * numbers, shrunk (with them) to FIGURE_GRID_MAX; without numbers, square cells of
 * PLAIN_CELL or less. Labels shrink with the cells; column labels that are wider
 * than their cells are turned upwards. */
static void layout_panel(struct fig *f, struct panel *pn, bool numbers)
{
	const double fs = FONT_SIZE, pad = 0.6 * fs;
	char text[96];
	double widest = 2.0 * fs, label_w = 0.0, col_w = 0.0, fit;

	/* The numbers (the mix: and its sum; the wrong-way sums are measured below). */
	for (int r = 0; r < pn->rows + (pn->mix ? 1 : 0) && !stopped(f); r++)
		for (int c = 0; c < pn->cols; c++) {
			qkv_format_number(text, sizeof text, fig_cell_value(f, pn, r, c), f->o.decimals);
			widest = fmax(widest, fig_text_width(f, text, fs, f->bold_numbers));
		}
	for (int i = 0; pn->sums && i < pn->rows; i++) {
		weight_sum_text(f, true, i, text, sizeof text);
		widest = fmax(widest, fig_text_width(f, text, fs, false));
	}
	for (int i = 0; pn->sums && i < pn->cols; i++) {
		weight_sum_text(f, false, i, text, sizeof text);
		widest = fmax(widest, fig_text_width(f, text, fs, false));
	}
	if (pn->sums)
		widest = fmax(widest, fig_text_width(f, "\u03a3row", fs, true));
	pn->numbers = !heat(pn) || numbers;
	if (pn->numbers) {
		pn->cell_w = widest + 2.0 * pad;
		pn->cell_h = 2.0 * fs;
	} else {
		pn->cell_w = pn->cell_h = PLAIN_CELL;
	}
	fit = heat(pn) ? fmin(1.0, fmin(FIGURE_GRID_MAX / (grid_cols(pn) * pn->cell_w),
					 FIGURE_GRID_MAX / (grid_rows(pn) * pn->cell_h))) : 1.0;
	pn->cell_w *= fit;
	pn->cell_h *= fit;
	pn->number_fs = fs * fit;
	pn->row_fs = fmin(fs, 0.8 * pn->cell_h);
	for (int r = 0; r < pn->rows; r++) {
		label_text(f, pn->row_labels, r, text, sizeof text);
		label_w = fmax(label_w, fig_text_width(f, text, pn->row_fs, false));
	}
	if (pn->sums)
		label_w = fmax(label_w, fig_text_width(f, "\u03a3col", fs, true));
	if (pn->mix)
		label_w = fmax(label_w, fmax(fig_text_width(f, MIX_SUM_LABEL, fs, true),
					     fig_text_width(f, MIX_SUM_ABOUT_LABEL, fs, true)));
	pn->col_fs = fs;
	for (int c = 0; c < pn->cols; c++) {
		label_text(f, pn->col_labels, c, text, sizeof text);
		col_w = fmax(col_w, fig_text_width(f, text, fs, false));
	}
	pn->cols_up = col_w > pn->cell_w - 0.2 * fs;
	if (pn->cols_up) {
		pn->col_fs = fmin(fs, 0.8 * pn->cell_w);
		pn->cols_h = col_w * pn->col_fs / fs + 0.6 * fs;
	} else {
		pn->cols_h = 1.5 * fs;
	}
	pn->label_w = label_w + pad;
	pn->grid_x = pn->x + pn->label_w;
	pn->grid_y = pn->y + 1.8 * fs + pn->cols_h;
	pn->w = pn->label_w + grid_cols(pn) * pn->cell_w;
	pn->h = pn->grid_y - pn->y + grid_rows(pn) * pn->cell_h;
	pn->w = fmax(pn->w, canvas_math_width(&f->cv, pn->title, 1.05 * fs, true));
}

static void divisor_words(const struct fig *f, char *buf, size_t size)
{
	const struct qkv_problem *p = f->p;
	char d[64], tau[64];

	qkv_format_number(d, sizeof d, f->t->divisor, f->o.decimals < 4 ? 4 : f->o.decimals);
	qkv_format_exact(tau, sizeof tau, p->temperature);
	if (p->scale == QKV_SCALE_NONE)
		snprintf(buf, size, p->temperature == 1.0 ? "scaling off (divisor 1)" : "scaling off, \u03c4 = %s (divisor %s)",
			 tau, d);
	else if (p->scale == QKV_SCALE_CUSTOM)
		snprintf(buf, size, "divisor %s", d);
	else if (p->temperature == 1.0)
		snprintf(buf, size, "divisor \u221ad_k = \u221a%d = %s", f->t->d_k, d);
	else
		snprintf(buf, size, "divisor \u03c4\u00b7\u221ad_k = %s\u00b7\u221a%d = %s", tau, f->t->d_k, d);
}

/* The title, formula and facts lines (or the options' title, or none). */
static void header_text(struct fig *f)
{
	char divisor[160], seed[48] = "", queries[48] = "", heads[48] = "";
	const char *mask = f->p->mask == QKV_MASK_CAUSAL ? "causal mask"
			   : f->p->mask == QKV_MASK_CUSTOM ? "custom mask" : "no mask";
	int stage = f->heads != NULL ? (f->o.stage == QKV_STAGE_SCORES || f->o.stage == QKV_STAGE_SCALED
					? f->o.stage : QKV_STAGE_WEIGHTS) : f->o.stage;

	f->header = f->o.title == NULL;
	snprintf(f->title, sizeof f->title, "%s", f->o.title != NULL ? f->o.title
		 : f->p->title != NULL && f->p->title[0] != '\0' ? f->p->title : "qkv");
	/* One head of several drawn alone (the interface's E in stages 0 to 5): the
	 * built-in title names it. */
	if (f->o.title == NULL && f->heads == NULL && f->p->h > 1 && f->o.head >= 0 && f->o.head < f->p->h) {
		size_t used = strlen(f->title);

		snprintf(f->title + used, sizeof f->title - used, " \u2014 Head %d of %d", f->o.head + 1, f->p->h);
	}
	snprintf(f->subtitle, sizeof f->subtitle, "Stage %d \u2014 %s: %s", stage,
		 qkv_stage_name((enum qkv_stage)stage), qkv_stage_formula_of(f->p, (enum qkv_stage)stage, false));
	divisor_words(f, divisor, sizeof divisor);
	if (f->p->seeded)
		snprintf(seed, sizeof seed, ", seed %llu", (unsigned long long)f->p->seed);
	if (qkv_problem_is_cross(f->p))
		snprintf(queries, sizeof queries, "%d quer%s of ", f->t->m, f->t->m == 1 ? "y" : "ies");
	if (f->heads != NULL)
		snprintf(heads, sizeof heads, "%d heads, d_model = %d, ", f->heads->h, f->heads->d_model);
	snprintf(f->facts, sizeof f->facts, "%s%s%d tokens, d_k = %d, d_v = %d%s; %s; %s%s", heads, queries, f->t->n,
		 f->t->d_k, f->t->d_v, seed, divisor, mask,
		 f->p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX ? "; WRONG WAY: mask after softmax"
		 : f->p->wrong == QKV_WRONG_COLUMN_SOFTMAX ? "; WRONG WAY: softmax down columns" : "");
}

/* The panels' places: side by side (per_row of them a row, the tallest of a row
 * setting the next row's top), the colour bar right of the first row's heatmaps. */
static void layout_with(struct fig *f, bool numbers)
{
	const double fs = FONT_SIZE, margin = 1.2 * fs, gap = 1.6 * fs;
	double x = margin, y, row_h = 0.0, right = margin, bar_right = 0.0;

	f->top = margin + (f->header ? 4.6 * fs : f->title[0] != '\0' ? 2.2 * fs : 0.0);
	y = f->top;
	f->bar = fig_has_bar(f);
	for (int i = 0; i < f->count; i++) {
		struct panel *pn = &f->panels[i];

		if (i > 0 && i % f->per_row == 0) {
			x = margin;
			y += row_h + gap;
			row_h = 0.0;
		}
		pn->x = x;
		pn->y = y;
		layout_panel(f, pn, numbers);
		x += pn->w + gap;
		row_h = fmax(row_h, pn->h);
		right = fmax(right, pn->x + pn->w);
		/* The bar: after the single heatmap, or the first row of heads. */
		if (f->bar && heat(pn) && (i < f->per_row)) {
			f->bar_x = pn->grid_x + grid_cols(pn) * pn->cell_w + 1.0 * fs;
			f->bar_y = pn->grid_y;
			f->bar_w = 1.1 * fs;
			f->bar_h = fmax(pn->rows * pn->cell_h, 7.0 * fs);
			/* Room for a clamp's triangle and its words above or below the bar. */
			if (f->clamped_high)
				f->bar_y += 2.4 * fs, f->bar_h = fmax(f->bar_h - 2.4 * fs, 5.0 * fs);
			if (f->clamped_low)
				f->bar_h = fmax(f->bar_h - 2.4 * fs, 5.0 * fs);
			if (f->heads == NULL || i == f->per_row - 1 || i == f->count - 1) {
				bar_right = f->bar_x + fig_bar_extent(f);
				row_h = fmax(row_h, f->bar_y + f->bar_h + (f->clamped_low ? 2.6 * fs : 0.6 * fs) - y);
				if (f->heads == NULL) {
					/* Single head: the bar is part of its panel (stage 5: V and O come after it). */
					pn->w = fmax(pn->w, bar_right - pn->x);
					x = pn->x + pn->w + gap;
					right = fmax(right, bar_right);
				}
			}
		}
	}
	/* Multi-head: the bar right of the whole grid's first row. */
	if (f->bar && f->heads != NULL) {
		double grid_right = margin;

		for (int i = 0; i < f->count && i < f->per_row; i++)
			grid_right = fmax(grid_right, f->panels[i].x + f->panels[i].w);
		for (int i = 0; i < f->count; i++)
			if (heat(&f->panels[i]))
				grid_right = fmax(grid_right, f->panels[i].x + f->panels[i].w);
		f->bar_x = grid_right + 1.0 * fs;
		bar_right = f->bar_x + fig_bar_extent(f);
		right = fmax(right, bar_right);
	}
	f->cv.natural_w = right + margin;
	if (f->title[0] != '\0')
		f->cv.natural_w = fmax(f->cv.natural_w, 2.0 * margin + canvas_math_width(&f->cv, f->title, 1.4 * fs, true));
	if (f->header) {
		f->cv.natural_w = fmax(f->cv.natural_w, 2.0 * margin + canvas_math_width(&f->cv, f->subtitle, 1.1 * fs, false));
		f->cv.natural_w = fmax(f->cv.natural_w, 2.0 * margin + canvas_math_width(&f->cv, f->facts, 0.9 * fs, false));
	}
	f->cv.natural_h = y + row_h + margin;
}

/* Laid out with the numbers; with AUTO, again without them when the numbers
 * would be drawn smaller than FIGURE_MIN_NUMBER_SIZE at the size asked for. */
static void layout(struct fig *f, double width, double height)
{
	double smallest = INFINITY;

	header_text(f);
	layout_with(f, f->o.numbers != FIGURE_NUMBERS_OFF);
	canvas_place(&f->cv, width, height);
	for (int i = 0; i < f->count; i++)
		if (heat(&f->panels[i]))
			smallest = fmin(smallest, f->panels[i].number_fs);
	if (f->o.numbers == FIGURE_NUMBERS_AUTO && isfinite(smallest) && !numbers_fit(f, smallest, f->cv.scale)) {
		layout_with(f, false);
		canvas_place(&f->cv, width, height);
	}
}

/* f's problem, trace(s) and options, the stage it can draw: all the panels need. */
static void fig_bare(struct fig *f, const struct qkv_problem *p, const struct qkv_trace *t,
		     const struct qkv_heads_trace *heads, const struct figure_options *o)
{
	memset(f, 0, sizeof *f);
	qkv_matrix_init(&f->average);
	f->p = p;
	f->heads = heads != NULL && heads->h > 0 ? heads : NULL;
	f->o = *o;
	if (f->heads != NULL) {
		if (f->o.head >= f->heads->h)
			f->o.head = -1;
		t = &f->heads->head[f->o.head >= 0 ? f->o.head : 0];
	}
	f->t = t;
	if (!figure_stage_drawable(p, f->o.stage))
		f->o.stage = QKV_STAGE_WEIGHTS;
}

/* The grid's columns: ⌈√(heatmaps)⌉ for heads (the extras on rows after them). */
static void arrange(struct fig *f)
{
	int heatmaps = 0;

	for (int i = 0; i < f->count; i++)
		heatmaps += heat(&f->panels[i]);
	f->per_row = f->count > 0 ? f->count : 1;
	if (f->heads != NULL) {
		int columns = (int)ceil(sqrt((double)heatmaps) - 1e-9);

		f->per_row = columns > 0 ? columns : 1;
	}
}

int fig_open(struct fig *f, const struct qkv_problem *p, const struct qkv_trace *t,
	     const struct qkv_heads_trace *heads, const struct figure_options *o)
{
	int code;

	fig_bare(f, p, t, heads, o);
	f->o.decimals = f->o.decimals < 0 ? 0 : f->o.decimals > 12 ? 12 : f->o.decimals;
	if (f->o.palette < 0 || f->o.palette >= QKV_PALETTE_COUNT)
		f->o.palette = QKV_PALETTE_VIRIDIS;
	if (f->o.map >= QKV_MAP_COUNT || f->o.map == QKV_MAP_COOLWARM)
		f->o.map = QKV_MAP_VIRIDIS;
	if (f->o.levels != 0 && (f->o.levels < 2 || f->o.levels > FIGURE_MAX_LEVELS))
		f->o.levels = 0;
	f->weights = qkv_colour_weights((enum qkv_palette)f->o.palette);
	f->signs = qkv_colour_signed((enum qkv_palette)f->o.palette);
	f->bold_numbers = f->o.palette == QKV_PALETTE_PROJECTOR;
	f->wrong = p->wrong != QKV_WRONG_NONE;
	/* The screen's colours where they read at 4.5:1 on the figure's background:
	 * labels #00875f (light) or #00af87 (dark), errors #af0000 or #ff5f5f, the
	 * cell rules grey #767676; the selected cell's frame orange-red #ff5f00. */
	f->bg = o->dark ? qkv_colour_xterm(233) : white;
	f->fg = o->dark ? qkv_colour_xterm(255) : black;
	f->label = o->dark ? qkv_colour_xterm(36) : qkv_colour_xterm(29);
	f->rule = qkv_colour_xterm(243);
	f->error = o->dark ? qkv_colour_xterm(203) : qkv_colour_xterm(124);
	f->frame = qkv_colour_xterm(202);
	code = canvas_open(&f->cv);
	if (code != 0)
		return code;
	if (fig_heads_average(f) != 0) {
		canvas_close(&f->cv);
		qkv_matrix_fini(&f->average);
		return -1;
	}
	make_panels(f);
	fig_make_scale(f);
	arrange(f);
	layout(f, f->o.width, f->o.height);
	return 0;
}

void fig_close(struct fig *f)
{
	canvas_close(&f->cv);
	qkv_matrix_fini(&f->average);
}

/* ---- drawing --------------------------------------------------------------------------- */

static bool cell_selected(const struct fig *f, const struct panel *pn, int row, int col)
{
	return pn->selectable && row == f->o.cell_row && col == f->o.cell_col;
}

/* A masked cell's mark over its grey: hatching half way from the grey to the
 * background. No value's cell is hatched, so a masked cell is told from every
 * value even without its "—" (--numbers off) and in the grey map, whose range
 * holds the masked grey; the "—" (black or white on the grey) stays clear of
 * the half-tone lines. */
static void masked_hatch(struct fig *f, double x, double y, double w, double h)
{
	struct qkv_rgb grey = qkv_colour_masked(), hatch = {
		(unsigned char)((grey.r + f->bg.r + 1) / 2), (unsigned char)((grey.g + f->bg.g + 1) / 2),
		(unsigned char)((grey.b + f->bg.b + 1) / 2) };
	double spacing = fmin(w, h) / 3.0;

	canvas_hatch(&f->cv, x, y, w, h, spacing, hatch, 0.22 * spacing, "masked");
}

static void draw_sums(struct fig *f, const struct panel *pn)
{
	struct canvas *cv = &f->cv;
	const double fs = FONT_SIZE;
	double x_sum = pn->grid_x + pn->cols * pn->cell_w, y_sum = pn->grid_y + pn->rows * pn->cell_h;
	char text[64];

	canvas_text(cv, x_sum + pn->cell_w / 2.0, pn->grid_y - 0.5 * fs, "\u03a3row", fs, true, f->error,
	       ANCHOR_MIDDLE, NULL);
	canvas_text(cv, pn->grid_x - 0.5 * fs, y_sum + pn->cell_h / 2.0 + 0.35 * fs, "\u03a3col", fs, true, f->error,
	       ANCHOR_END, NULL);
	/* Row i's sum, then column i's (m rows and n columns in cross-attention). */
	for (int i = 0; i < pn->rows || i < pn->cols; i++) {
		if (i < pn->rows) {
			double row = weight_sum(f, true, i);

			weight_sum_text(f, true, i, text, sizeof text);
			canvas_text(cv, x_sum + pn->cell_w / 2.0, pn->grid_y + (i + 0.5) * pn->cell_h + 0.35 * fs, text,
			       fs, false, fabs(row - 1.0) > SUM_TOLERANCE ? f->error : f->fg, ANCHOR_MIDDLE, "sum");
		}
		if (i < pn->cols) {
			double col = weight_sum(f, false, i);

			weight_sum_text(f, false, i, text, sizeof text);
			canvas_text(cv, pn->grid_x + (i + 0.5) * pn->cell_w, y_sum + pn->cell_h / 2.0 + 0.35 * fs, text,
			       fs, false, fabs(col - 1.0) > SUM_TOLERANCE ? f->error : f->fg, ANCHOR_MIDDLE, "sum");
		}
	}
}

static void draw_panel(struct fig *f, const struct panel *pn)
{
	struct canvas *cv = &f->cv;
	const double fs = FONT_SIZE;
	char text[96];
	bool plain = pn->colour == COLOUR_PLAIN ||
		     (f->scale.map < 0 && (pn->colour == COLOUR_WEIGHTS ? f->weights.count == 0 : f->signs.count == 0));
	/* A heatmap's cells reach a little into their right and lower neighbours,
	 * which are drawn after them and cover it: no hairline seam between cells. */
	double overlap = plain ? 0.0 : fmin(0.4, 0.05 * fmin(pn->cell_w, pn->cell_h));

	canvas_math(cv, pn->x, pn->y + 1.1 * fs, pn->title, 1.05 * fs, true, f->fg, ANCHOR_START, "panel-title");
	for (int c = 0; c < pn->cols; c++) {
		double x = pn->grid_x + (c + 0.5) * pn->cell_w;

		label_text(f, pn->col_labels, c, text, sizeof text);
		if (pn->cols_up)
			canvas_text_up(cv, x + 0.35 * pn->col_fs, pn->grid_y - 0.4 * fs, text, pn->col_fs, f->label,
				       ANCHOR_START, "label");
		else
			canvas_text(cv, x, pn->grid_y - 0.5 * fs, text, fs, false, f->label, ANCHOR_MIDDLE, "label");
	}
	for (int r = 0; r < grid_rows(pn) && !stopped(f); r++) {
		double y = pn->grid_y + r * pn->cell_h;
		bool sum_row = pn->mix && r == pn->rows;
		double label_fs = sum_row ? fs : pn->row_fs;

		if (sum_row) {
			/* The terms, each rounded on its own, may not add up to the rounded Σ. */
			bool adds_up = true;

			for (int c = 0; c < pn->cols; c++)
				adds_up = adds_up && qkv_trace_mix_adds_up(pn->t, pn->query, c, f->o.decimals);
			snprintf(text, sizeof text, "%s", adds_up ? MIX_SUM_LABEL : MIX_SUM_ABOUT_LABEL);
		} else if (r < pn->rows)
			label_text(f, pn->row_labels, r, text, sizeof text);
		else
			continue;   /* the wrong-way sums' row: draw_sums */
		canvas_text(cv, pn->grid_x - 0.5 * fs * fmin(1.0, label_fs / fs), y + pn->cell_h / 2.0 + 0.35 * label_fs,
			    text, label_fs, sum_row, f->label, ANCHOR_END, "label");
		for (int c = 0; c < pn->cols; c++) {
			double x = pn->grid_x + c * pn->cell_w, v = fig_cell_value(f, pn, r, c);
			bool masked = !sum_row && fig_cell_masked(f, pn, r, c);
			struct qkv_rgb fill = sum_row ? f->bg : cell_fill(f, pn, r, c, v);
			struct qkv_rgb ink = same_rgb(fill, f->bg) ? f->fg : qkv_colour_text_on(fill, black, white);
			double right = c + 1 < pn->cols ? overlap : 0.0, down = r + 1 < pn->rows ? overlap : 0.0;
			double number_fs = sum_row ? fs : pn->number_fs;

			if (masked)
				snprintf(text, sizeof text, "\u2014");
			else
				qkv_format_number(text, sizeof text, v, f->o.decimals);
			canvas_rect(cv, x, y, pn->cell_w + right, pn->cell_h + down, fill, sum_row ? "sum" : "cell");
			if (masked)
				masked_hatch(f, x, y, pn->cell_w, pn->cell_h);
			if (plain || sum_row)
				canvas_outline(cv, x, y, pn->cell_w, pn->cell_h, f->rule, 0.4);
			if (pn->numbers || sum_row)
				canvas_text(cv, x + pn->cell_w / 2.0, y + pn->cell_h / 2.0 + 0.35 * number_fs, text,
					    number_fs, f->bold_numbers || sum_row, ink, ANCHOR_MIDDLE,
					    sum_row ? "sum" : "value");
			if (cell_selected(f, pn, r, c))
				canvas_outline(cv, x, y, pn->cell_w, pn->cell_h, f->frame,
					       fmin(0.18 * fs, 0.15 * fmin(pn->cell_w, pn->cell_h)));
		}
	}
	if (pn->sums)
		draw_sums(f, pn);
}

static void draw(struct canvas *cv, void *ctx)
{
	struct fig *f = ctx;
	const double fs = FONT_SIZE, margin = 1.2 * fs;

	canvas_background(cv, f->bg);
	if (f->title[0] != '\0')
		canvas_math(cv, margin, margin + 1.3 * fs, f->title, 1.4 * fs, true, f->fg, ANCHOR_START, "title");
	if (f->header) {
		canvas_math(cv, margin, margin + 2.75 * fs, f->subtitle, 1.1 * fs, false, f->fg, ANCHOR_START, "formula");
		canvas_math(cv, margin, margin + 3.95 * fs, f->facts, 0.9 * fs, false, f->wrong ? f->error : f->fg,
			    ANCHOR_START, "facts");
	}
	for (int i = 0; i < f->count; i++)
		draw_panel(f, &f->panels[i]);
	if (f->bar)
		fig_draw_bar(f);
}

/* The SVG's title: the figure's title and stage. */
static void svg_title(const struct fig *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s \u2014 %s", f->title[0] != '\0' ? f->title : "qkv", f->subtitle);
}

/* Opens the figure for format: a PNG without a size is drawn at twice the
 * natural size, in pixels. */
static int fig_open_for(struct fig *f, enum figure_format format, const struct qkv_problem *p,
			const struct qkv_trace *t, const struct qkv_heads_trace *heads,
			const struct figure_options *o, char *err, size_t err_size)
{
	int code = fig_open(f, p, t, heads, o);

	if (code != 0) {
		canvas_open_error("figure", err, err_size);
		return -1;
	}
	if (format == FIGURE_PNG && !(o->width > 0.0 && o->height > 0.0)) {
		double fit = fmin(2.0, fmin(FIGURE_MAX_SIDE / f->cv.natural_w, FIGURE_MAX_SIDE / f->cv.natural_h));

		canvas_place(&f->cv, ceil(f->cv.natural_w * fit), ceil(f->cv.natural_h * fit));
	}
	return 0;
}

int fig_write(FILE *out, enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
	      const struct qkv_heads_trace *heads, const struct figure_options *o, char *err, size_t err_size)
{
	struct fig f;
	char title[600];
	int rc;

	if (fig_open_for(&f, format, p, t, heads, o, err, err_size) != 0)
		return -1;
	svg_title(&f, title, sizeof title);
	rc = canvas_write(out, format, &f.cv, title, draw, &f, err, err_size);
	fig_close(&f);
	return rc;
}

char *fig_bytes(enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
		const struct qkv_heads_trace *heads, const struct figure_options *o, size_t *length, char *err,
		size_t err_size)
{
	struct fig f;
	char title[600], *bytes;

	if (fig_open_for(&f, format, p, t, heads, o, err, err_size) != 0)
		return NULL;
	svg_title(&f, title, sizeof title);
	bytes = stopped(&f) ? NULL : canvas_bytes(format, &f.cv, title, draw, &f, length, err, err_size);
	if (bytes != NULL && stopped(&f)) {
		free(bytes);
		bytes = NULL;
	}
	if (bytes == NULL && stopped(&f))
		snprintf(err, err_size, "stopped");
	fig_close(&f);
	return bytes;
}

int figure_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
		 const struct qkv_trace *t, const struct figure_options *o, char *err, size_t err_size)
{
	return fig_write(out, format, p, t, NULL, o, err, err_size);
}

char *figure_bytes(enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
		   const struct figure_options *o, size_t *length, char *err, size_t err_size)
{
	return fig_bytes(format, p, t, NULL, o, length, err, err_size);
}

/* The panels only, without cairo or layout: cheap whatever the figure's size. */
int fig_panels(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
	       const struct figure_options *o, int rows[FIGURE_MAX_PANELS], int cols[FIGURE_MAX_PANELS])
{
	struct fig f;

	fig_bare(&f, p, t, h, o);
	/* The average's shape without computing it. */
	if (f.heads != NULL && (f.o.heads_panels & FIGURE_HEADS_AVERAGE)) {
		f.average.rows = f.heads->m;
		f.average.cols = f.heads->n;
	}
	make_panels(&f);
	for (int i = 0; i < f.count; i++) {
		rows[i] = f.panels[i].rows;
		cols[i] = f.panels[i].cols;
	}
	return f.count;
}

int figure_panels(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		  int rows[FIGURE_MAX_PANELS], int cols[FIGURE_MAX_PANELS])
{
	return fig_panels(p, t, NULL, o, rows, cols);
}

static long long cells_any(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
			   const struct figure_options *o)
{
	int rows[FIGURE_MAX_PANELS], cols[FIGURE_MAX_PANELS], count = fig_panels(p, t, h, o, rows, cols);
	long long cells = 0;

	for (int i = 0; i < count; i++)
		cells += (long long)rows[i] * cols[i];
	return cells;
}

long long figure_cells(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o)
{
	return cells_any(p, t, NULL, o);
}

int fig_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
		   const struct figure_options *o, char *err, size_t err_size)
{
	long long cells = cells_any(p, t, h, o);
	int stage = figure_stage_drawable(p, o->stage) ? o->stage : QKV_STAGE_WEIGHTS;
	char count[32], cap[32];

	if (cells <= FIGURE_MAX_CELLS)
		return 0;
	qkv_format_grouped(count, sizeof count, cells);
	qkv_format_grouped(cap, sizeof cap, FIGURE_MAX_CELLS);
	snprintf(err, err_size, "the figure of stage %d (%s) would draw %s cells; a figure draws at most %s",
		 stage, qkv_stage_name((enum qkv_stage)stage), count, cap);
	return -1;
}

int figure_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		      char *err, size_t err_size)
{
	return fig_check_size(p, t, NULL, o, err, err_size);
}

void figure_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		 double *width, double *height)
{
	struct fig f;

	*width = *height = 0.0;
	if (fig_open(&f, p, t, NULL, o) != 0)
		return;
	*width = f.cv.out_w;
	*height = f.cv.out_h;
	fig_close(&f);
}

int fig_cell(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
	     const struct figure_options *o, int panel, int row, int col, struct figure_cell *cell)
{
	struct fig f;
	const struct panel *pn;
	double v;

	if (fig_open(&f, p, t, h, o) != 0)
		return -1;
	if (panel < 0 || panel >= f.count || row < 0 || col < 0 || row >= f.panels[panel].rows ||
	    col >= f.panels[panel].cols) {
		fig_close(&f);
		return -1;
	}
	pn = &f.panels[panel];
	v = fig_cell_value(&f, pn, row, col);
	cell->x = canvas_x(&f.cv, pn->grid_x + col * pn->cell_w);
	cell->y = canvas_y(&f.cv, pn->grid_y + row * pn->cell_h);
	cell->w = pn->cell_w * f.cv.scale;
	cell->h = pn->cell_h * f.cv.scale;
	cell->fill = cell_fill(&f, pn, row, col, v);
	if (fig_cell_masked(&f, pn, row, col))
		snprintf(cell->text, sizeof cell->text, "\u2014");
	else
		qkv_format_number(cell->text, sizeof cell->text, v, f.o.decimals);
	fig_close(&f);
	return 0;
}

int figure_cell(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		int panel, int row, int col, struct figure_cell *cell)
{
	return fig_cell(p, t, NULL, o, panel, row, col, cell);
}

bool figure_numbers_shown(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
			  const struct figure_options *o, int panel)
{
	struct fig f;
	bool shown;

	if (fig_open(&f, p, t, h, o) != 0)
		return false;
	shown = panel >= 0 && panel < f.count && f.panels[panel].numbers;
	fig_close(&f);
	return shown;
}
