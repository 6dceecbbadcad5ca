/* figure.c — one stage of a trace as a figure (see figure.h). The figure is laid
 * out once in natural units (points, the numbers at FONT_SIZE), then scaled and
 * centred into the size asked for; a canvas draws it either through cairo (PDF,
 * PNG) or as SVG elements, from the same calls. */
#include "io/figure/figure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/figure/figure_canvas.h"
#include "qkv/format.h"

#define FONT_SIZE 12.0        /* the numbers' size at the natural size */
#define LABEL_CHARS 12        /* a token label longer than this ends in "…" */
#define SUM_TOLERANCE 5e-3    /* a wrong-way sum further than this from 1 is red */
#define MIX_SUM_LABEL "\u03a3 = O"
#define MIX_SUM_ABOUT_LABEL "\u03a3 \u2248 O"

enum panel_colour { COLOUR_PLAIN, COLOUR_WEIGHTS, COLOUR_SIGNED };
/* The tokens' labels (the keys'), the queries' (the same in self-attention), d1…. */
enum label_kind { LABELS_TOKENS, LABELS_QUERIES, LABELS_DIMS };

struct panel {
	char title[160];
	const struct qkv_matrix *m;   /* NULL for the mix */
	int rows, cols;
	enum panel_colour colour;
	enum label_kind row_labels, col_labels;
	bool square;                  /* queries × keys: the mask applies */
	bool mix;                     /* a_qj · v_jc for one query, then Σ */
	int query;
	bool sums;                    /* a wrong-way demonstration's row and column sums */
	bool selectable;              /* --cell frames a cell here */
	double limit;                 /* the signed ramp's ends: ±limit */
	/* Layout, natural units. */
	double x, y, w, h;
	double grid_x, grid_y, cell_w, cell_h, label_w;
	double bar_x, bar_w, bar_h;
};

struct fig {
	const struct qkv_problem *p;
	const struct qkv_trace *t;
	struct figure_options o;
	struct panel panels[FIGURE_MAX_PANELS];
	int count;
	struct qkv_ramp weights, signs;
	struct qkv_rgb bg, fg, label, error, frame, rule;
	bool bold_numbers;
	char title[256], subtitle[256], facts[512];
	bool wrong;
	struct canvas cv;
};

static const struct qkv_rgb black = { 0x00, 0x00, 0x00 }, white = { 0xff, 0xff, 0xff };

void figure_options_default(struct figure_options *o)
{
	*o = (struct figure_options){
		.stage = QKV_STAGE_WEIGHTS, .palette = QKV_PALETTE_VIRIDIS, .dark = false,
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

static double text_width(struct fig *f, const char *text, double size, bool bold)
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

static bool cell_masked(const struct fig *f, const struct panel *pn, int row, int col)
{
	if (pn->square)
		return qkv_trace_is_masked(f->t, row, col);
	if (pn->mix)
		return qkv_trace_is_masked(f->t, pn->query, row);
	return false;
}

static double cell_value(const struct fig *f, const struct panel *pn, int row, int col)
{
	if (pn->mix) {
		if (row == pn->rows)
			return qkv_matrix_get(&f->t->output, pn->query, col);
		return qkv_trace_mix(f->t, pn->query, row, col);
	}
	return qkv_matrix_get(pn->m, row, col);
}

struct qkv_rgb figure_heat_fill(int palette, bool signed_values, double value, double limit, bool masked,
				struct qkv_rgb plain)
{
	struct qkv_ramp ramp = signed_values ? qkv_colour_signed((enum qkv_palette)palette)
					     : qkv_colour_weights((enum qkv_palette)palette);

	if (masked)
		return qkv_colour_masked();
	if (ramp.count <= 0)
		return plain;
	if (signed_values)
		return ramp.steps[qkv_colour_signed_step(value, limit, ramp.count / 2)];
	return ramp.steps[qkv_colour_weight_step_of(value, ramp.count)];
}

double figure_signed_limit(const struct qkv_trace *t, const struct qkv_matrix *m)
{
	double limit = 0.0;

	for (int r = 0; r < t->m; r++)
		for (int c = 0; c < t->n; c++)
			if (!qkv_trace_is_masked(t, r, c) && fabs(qkv_matrix_get(m, r, c)) > limit)
				limit = fabs(qkv_matrix_get(m, r, c));
	return limit > 0.0 ? limit : 1.0;
}

static struct qkv_rgb cell_fill(const struct fig *f, const struct panel *pn, int row, int col, double v)
{
	bool masked = row < pn->rows && cell_masked(f, pn, row, col);

	if (pn->colour == COLOUR_PLAIN && !masked)
		return f->bg;
	return figure_heat_fill(f->o.palette, pn->colour == COLOUR_SIGNED, v, pn->limit, masked, f->bg);
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

static void add_panel(struct fig *f, const char *title, const struct qkv_matrix *m,
		      enum panel_colour colour, enum label_kind rows, enum label_kind cols, bool square)
{
	struct panel *pn = &f->panels[f->count++];

	memset(pn, 0, sizeof *pn);
	snprintf(pn->title, sizeof pn->title, "%s", title);
	pn->m = m;
	pn->rows = m->rows;
	pn->cols = m->cols;
	pn->colour = colour;
	pn->row_labels = rows;
	pn->col_labels = cols;
	pn->square = square;
}

static void make_panels(struct fig *f)
{
	const struct qkv_trace *t = f->t;
	bool weights_sums = f->p->wrong != QKV_WRONG_NONE;
	char title[160];

	f->count = 0;
	switch (f->o.stage) {
	case QKV_STAGE_PROJECTIONS:
		add_panel(f, qkv_problem_is_cross(f->p) ? "Q = X_q W_Q" : "Q = X W_Q", &t->q, COLOUR_PLAIN,
			  LABELS_QUERIES, LABELS_DIMS, false);
		add_panel(f, "K = X W_K", &t->k, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		add_panel(f, "V = X W_V", &t->v, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		break;
	case QKV_STAGE_SCORES:
		add_panel(f, "S (rows: queries, columns: keys)", &t->scores, COLOUR_SIGNED,
			  LABELS_QUERIES, LABELS_TOKENS, true);
		f->panels[0].selectable = true;
		break;
	case QKV_STAGE_SCALED:
		add_panel(f, "S' (rows: queries, columns: keys)", &t->scaled, COLOUR_SIGNED,
			  LABELS_QUERIES, LABELS_TOKENS, true);
		f->panels[0].selectable = true;
		break;
	case QKV_STAGE_MIX: {
		int query = f->o.cell_row >= 0 && f->o.cell_row < t->m ? f->o.cell_row : 0;
		struct panel *pn;

		snprintf(title, sizeof title, "a_ij \u00b7 v_j for query %s (rows: keys j)",
			 qkv_problem_query_label(f->p, query));
		add_panel(f, title, &t->v, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		pn = &f->panels[0];
		pn->m = NULL;
		pn->mix = true;
		pn->query = query;
		break;
	}
	case QKV_STAGE_OUTPUT:
		add_panel(f, "A (weights)", &t->weights, COLOUR_WEIGHTS, LABELS_QUERIES, LABELS_TOKENS, true);
		f->panels[0].sums = weights_sums;
		add_panel(f, "V", &t->v, COLOUR_PLAIN, LABELS_TOKENS, LABELS_DIMS, false);
		add_panel(f, "O = A V", &t->output, COLOUR_PLAIN, LABELS_QUERIES, LABELS_DIMS, false);
		f->panels[2].selectable = true;
		break;
	case QKV_STAGE_WEIGHTS:
	default:
		add_panel(f, "A (rows: queries, columns: keys)", &t->weights,
			  COLOUR_WEIGHTS, LABELS_QUERIES, LABELS_TOKENS, true);
		f->panels[0].sums = weights_sums;
		f->panels[0].selectable = true;
		break;
	}
	for (int i = 0; i < f->count; i++)
		if (f->panels[i].colour == COLOUR_SIGNED)
			f->panels[i].limit = figure_signed_limit(f->t, f->panels[i].m);
}

/* ---- layout ------------------------------------------------------------------------ */

/* Rows of numbers a panel has (the mix: one more, the sum). */
static int grid_rows(const struct panel *pn)
{
	return pn->rows + (pn->mix || pn->sums ? 1 : 0);
}

static int grid_cols(const struct panel *pn)
{
	return pn->cols + (pn->sums ? 1 : 0);
}

static bool has_bar(const struct fig *f, const struct panel *pn)
{
	return (pn->colour == COLOUR_WEIGHTS && f->weights.count > 0) ||
	       (pn->colour == COLOUR_SIGNED && f->signs.count > 0);
}

/* The colour bar's tick k (0..ticks-1): its value and its text. */
static int bar_ticks(const struct fig *f, const struct panel *pn)
{
	return pn->colour == COLOUR_WEIGHTS ? f->weights.count + 1 : 3;
}

static double bar_tick(const struct fig *f, const struct panel *pn, int k, char *buf, size_t size)
{
	double v;

	if (pn->colour == COLOUR_WEIGHTS)
		v = (double)k / f->weights.count;
	else
		v = pn->limit * (k - 1);
	/* The signed bar's ends get their sign from the caller ("−", "+"). */
	qkv_format_number(buf, size, fabs(v), 2);
	return v;
}

static void layout_panel(struct fig *f, struct panel *pn)
{
	const double fs = FONT_SIZE, pad = 0.6 * fs;
	char text[96];
	double widest = 2.0 * fs, label_w = 1.5 * fs;

	/* The numbers (the mix: and its sum; the wrong-way sums are measured below). */
	for (int r = 0; r < pn->rows + (pn->mix ? 1 : 0) && !stopped(f); r++)
		for (int c = 0; c < pn->cols; c++) {
			qkv_format_number(text, sizeof text, cell_value(f, pn, r, c), f->o.decimals);
			widest = fmax(widest, text_width(f, text, fs, f->bold_numbers));
		}
	for (int i = 0; pn->sums && i < pn->rows; i++) {
		weight_sum_text(f, true, i, text, sizeof text);
		widest = fmax(widest, text_width(f, text, fs, false));
	}
	for (int i = 0; pn->sums && i < pn->cols; i++) {
		weight_sum_text(f, false, i, text, sizeof text);
		widest = fmax(widest, text_width(f, text, fs, false));
	}
	for (int c = 0; c < pn->cols; c++) {
		label_text(f, pn->col_labels, c, text, sizeof text);
		widest = fmax(widest, text_width(f, text, fs, false));
	}
	if (pn->sums)
		widest = fmax(widest, text_width(f, "\u03a3row", fs, true));
	for (int r = 0; r < pn->rows; r++) {
		label_text(f, pn->row_labels, r, text, sizeof text);
		label_w = fmax(label_w, text_width(f, text, fs, false));
	}
	if (pn->sums)
		label_w = fmax(label_w, text_width(f, "\u03a3col", fs, true));
	if (pn->mix)
		label_w = fmax(label_w, fmax(text_width(f, MIX_SUM_LABEL, fs, true),
					     text_width(f, MIX_SUM_ABOUT_LABEL, fs, true)));
	pn->cell_w = widest + 2.0 * pad;
	pn->cell_h = 2.0 * fs;
	pn->label_w = label_w + pad;
	pn->grid_x = pn->x + pn->label_w;
	pn->grid_y = pn->y + 1.8 * fs + 1.5 * fs;
	pn->w = pn->label_w + grid_cols(pn) * pn->cell_w;
	pn->h = pn->grid_y - pn->y + grid_rows(pn) * pn->cell_h;
	pn->w = fmax(pn->w, text_width(f, pn->title, 1.05 * fs, true));
	if (has_bar(f, pn)) {
		double ticks_w = 0.0;

		for (int k = 0; k < bar_ticks(f, pn); k++) {
			char tick[32];

			bar_tick(f, pn, k, tick, sizeof tick);
			if (pn->colour == COLOUR_SIGNED && k != 1)
				snprintf(text, sizeof text, "%s%s", k == 0 ? "\u2212" : "+", tick);
			else
				snprintf(text, sizeof text, "%s", tick);
			ticks_w = fmax(ticks_w, text_width(f, text, 0.85 * fs, false));
		}
		pn->bar_x = pn->grid_x + grid_cols(pn) * pn->cell_w + 1.0 * fs;
		pn->bar_w = 1.1 * fs;
		pn->bar_h = fmax(pn->rows * pn->cell_h, 7.0 * fs);
		pn->w = fmax(pn->w, pn->bar_x + pn->bar_w + 0.4 * fs + ticks_w - pn->x);
		pn->h = fmax(pn->h, pn->grid_y - pn->y + pn->bar_h + 0.6 * fs);
	}
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

static void layout(struct fig *f)
{
	const double fs = FONT_SIZE, margin = 1.2 * fs, gap = 1.6 * fs;
	char divisor[160], seed[48] = "", queries[48] = "";
	const char *mask = f->p->mask == QKV_MASK_CAUSAL ? "causal mask"
			   : f->p->mask == QKV_MASK_CUSTOM ? "custom mask" : "no mask";
	double x = margin, top = margin + 4.6 * fs, tallest = 0.0;

	snprintf(f->title, sizeof f->title, "%s", f->p->title != NULL && f->p->title[0] != '\0' ? f->p->title : "qkv");
	snprintf(f->subtitle, sizeof f->subtitle, "Stage %d \u2014 %s: %s", f->o.stage,
		 qkv_stage_name((enum qkv_stage)f->o.stage), qkv_stage_formula_of(f->p, (enum qkv_stage)f->o.stage, false));
	divisor_words(f, divisor, sizeof divisor);
	if (f->p->seeded)
		snprintf(seed, sizeof seed, ", seed %llu", (unsigned long long)f->p->seed);
	if (qkv_problem_is_cross(f->p))
		snprintf(queries, sizeof queries, "%d quer%s of ", f->t->m, f->t->m == 1 ? "y" : "ies");
	snprintf(f->facts, sizeof f->facts, "%s%d tokens, d_k = %d, d_v = %d%s; %s; %s%s", queries, f->t->n, f->t->d_k,
		 f->t->d_v, seed, divisor, mask,
		 f->p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX ? "; WRONG WAY: mask after softmax"
		 : f->p->wrong == QKV_WRONG_COLUMN_SOFTMAX ? "; WRONG WAY: softmax down columns" : "");
	for (int i = 0; i < f->count; i++) {
		struct panel *pn = &f->panels[i];

		pn->x = x;
		pn->y = top;
		layout_panel(f, pn);
		x += pn->w + gap;
		tallest = fmax(tallest, pn->h);
	}
	f->cv.natural_w = x - gap + margin;
	f->cv.natural_w = fmax(f->cv.natural_w, 2.0 * margin + text_width(f, f->title, 1.4 * fs, true));
	f->cv.natural_w = fmax(f->cv.natural_w, 2.0 * margin + text_width(f, f->subtitle, 1.1 * fs, false));
	f->cv.natural_w = fmax(f->cv.natural_w, 2.0 * margin + text_width(f, f->facts, 0.9 * fs, false));
	f->cv.natural_h = top + tallest + margin;
}

/* f's problem, trace and options, the stage it can draw: all the panels need. */
static void fig_bare(struct fig *f, const struct qkv_problem *p, const struct qkv_trace *t,
		     const struct figure_options *o)
{
	memset(f, 0, sizeof *f);
	f->p = p;
	f->t = t;
	f->o = *o;
	if (!figure_stage_drawable(p, f->o.stage))
		f->o.stage = QKV_STAGE_WEIGHTS;
}

static int fig_open(struct fig *f, const struct qkv_problem *p, const struct qkv_trace *t,
		    const struct figure_options *o)
{
	int code;

	fig_bare(f, p, t, o);
	f->o.decimals = f->o.decimals < 0 ? 0 : f->o.decimals > 12 ? 12 : f->o.decimals;
	if (f->o.palette < 0 || f->o.palette >= QKV_PALETTE_COUNT)
		f->o.palette = QKV_PALETTE_VIRIDIS;
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
	make_panels(f);
	layout(f);
	canvas_place(&f->cv, f->o.width, f->o.height);
	return 0;
}

static void fig_close(struct fig *f)
{
	canvas_close(&f->cv);
}

/* ---- drawing --------------------------------------------------------------------------- */

static bool cell_selected(const struct fig *f, const struct panel *pn, int row, int col)
{
	return pn->selectable && row == f->o.cell_row && col == f->o.cell_col;
}

static void draw_bar(struct fig *f, const struct panel *pn)
{
	struct canvas *cv = &f->cv;
	const double fs = FONT_SIZE;
	struct qkv_ramp ramp = pn->colour == COLOUR_WEIGHTS ? f->weights : f->signs;
	double step_h = pn->bar_h / ramp.count, bottom = pn->grid_y + pn->bar_h;
	char tick[32], text[48];

	for (int k = 0; k < ramp.count; k++)
		canvas_rect(cv, pn->bar_x, bottom - (k + 1) * step_h, pn->bar_w, step_h, ramp.steps[k], "bar");
	canvas_outline(cv, pn->bar_x, pn->grid_y, pn->bar_w, pn->bar_h, f->rule, 0.5);
	for (int k = 0; k < bar_ticks(f, pn); k++) {
		double y;

		bar_tick(f, pn, k, tick, sizeof tick);
		if (pn->colour == COLOUR_WEIGHTS) {
			y = bottom - k * step_h;
			snprintf(text, sizeof text, "%s", tick);
		} else {
			/* −limit, 0 (the middle step's centre), +limit. */
			y = bottom - k * pn->bar_h / 2.0;
			snprintf(text, sizeof text, "%s%s", k == 0 ? "\u2212" : k == 2 ? "+" : "", tick);
		}
		canvas_line(cv, pn->bar_x + pn->bar_w, y, pn->bar_x + pn->bar_w + 0.3 * fs, y, f->fg, 0.7, false);
		canvas_text(cv, pn->bar_x + pn->bar_w + 0.4 * fs, y + 0.3 * fs, text, 0.85 * fs, false, f->fg,
		       ANCHOR_START, "tick");
	}
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
	bool plain = pn->colour == COLOUR_PLAIN || (pn->colour == COLOUR_WEIGHTS ? f->weights.count == 0
											: f->signs.count == 0);

	canvas_text(cv, pn->x, pn->y + 1.1 * fs, pn->title, 1.05 * fs, true, f->fg, ANCHOR_START, "panel-title");
	for (int c = 0; c < pn->cols; c++) {
		label_text(f, pn->col_labels, c, text, sizeof text);
		canvas_text(cv, pn->grid_x + (c + 0.5) * pn->cell_w, pn->grid_y - 0.5 * fs, text, fs, false, f->label,
		       ANCHOR_MIDDLE, "label");
	}
	for (int r = 0; r < grid_rows(pn) && !stopped(f); r++) {
		double y = pn->grid_y + r * pn->cell_h;
		bool sum_row = pn->mix && r == pn->rows;

		if (sum_row) {
			/* The terms, each rounded on its own, may not add up to the rounded Σ. */
			bool adds_up = true;

			for (int c = 0; c < pn->cols; c++)
				adds_up = adds_up && qkv_trace_mix_adds_up(f->t, pn->query, c, f->o.decimals);
			snprintf(text, sizeof text, "%s", adds_up ? MIX_SUM_LABEL : MIX_SUM_ABOUT_LABEL);
		} else if (r < pn->rows)
			label_text(f, pn->row_labels, r, text, sizeof text);
		else
			continue;   /* the wrong-way sums' row: draw_sums */
		canvas_text(cv, pn->grid_x - 0.5 * fs, y + pn->cell_h / 2.0 + 0.35 * fs, text, fs, sum_row, f->label,
		       ANCHOR_END, "label");
		for (int c = 0; c < pn->cols; c++) {
			double x = pn->grid_x + c * pn->cell_w, v = cell_value(f, pn, r, c);
			bool masked = !sum_row && cell_masked(f, pn, r, c);
			struct qkv_rgb fill = sum_row ? f->bg : cell_fill(f, pn, r, c, v);
			struct qkv_rgb ink = same_rgb(fill, f->bg) ? f->fg : qkv_colour_text_on(fill, black, white);

			if (masked)
				snprintf(text, sizeof text, "\u2014");
			else
				qkv_format_number(text, sizeof text, v, f->o.decimals);
			canvas_rect(cv, x, y, pn->cell_w, pn->cell_h, fill, sum_row ? "sum" : "cell");
			if (plain || sum_row)
				canvas_outline(cv, x, y, pn->cell_w, pn->cell_h, f->rule, 0.4);
			canvas_text(cv, x + pn->cell_w / 2.0, y + pn->cell_h / 2.0 + 0.35 * fs, text, fs,
			       f->bold_numbers || sum_row, ink, ANCHOR_MIDDLE, sum_row ? "sum" : "value");
			if (cell_selected(f, pn, r, c))
				canvas_outline(cv, x, y, pn->cell_w, pn->cell_h, f->frame, 0.18 * fs);
		}
	}
	if (pn->sums)
		draw_sums(f, pn);
	if (has_bar(f, pn))
		draw_bar(f, pn);
}

static void draw(struct canvas *cv, void *ctx)
{
	struct fig *f = ctx;
	const double fs = FONT_SIZE, margin = 1.2 * fs;

	canvas_background(cv, f->bg);
	canvas_text(cv, margin, margin + 1.3 * fs, f->title, 1.4 * fs, true, f->fg, ANCHOR_START, "title");
	canvas_text(cv, margin, margin + 2.75 * fs, f->subtitle, 1.1 * fs, false, f->fg, ANCHOR_START, "formula");
	canvas_text(cv, margin, margin + 3.95 * fs, f->facts, 0.9 * fs, false, f->wrong ? f->error : f->fg,
	       ANCHOR_START, "facts");
	for (int i = 0; i < f->count; i++)
		draw_panel(f, &f->panels[i]);
}

/* The SVG's title: the figure's title and stage. */
static void svg_title(const struct fig *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s \u2014 %s", f->title, f->subtitle);
}

/* Opens the figure for format: a PNG without a size is drawn at twice the
 * natural size, in pixels. */
static int fig_open_for(struct fig *f, enum figure_format format, const struct qkv_problem *p,
			const struct qkv_trace *t, const struct figure_options *o, char *err, size_t err_size)
{
	int code = fig_open(f, p, t, o);

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

int figure_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
		 const struct qkv_trace *t, const struct figure_options *o, char *err, size_t err_size)
{
	struct fig f;
	char title[600];
	int rc;

	if (fig_open_for(&f, format, p, t, o, err, err_size) != 0)
		return -1;
	svg_title(&f, title, sizeof title);
	rc = canvas_write(out, format, &f.cv, title, draw, &f, err, err_size);
	fig_close(&f);
	return rc;
}

char *figure_bytes(enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
		   const struct figure_options *o, size_t *length, char *err, size_t err_size)
{
	struct fig f;
	char title[600], *bytes;

	if (fig_open_for(&f, format, p, t, o, err, err_size) != 0)
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

/* The panels only, without cairo or layout: cheap whatever the figure's size. */
int figure_panels(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		  int rows[FIGURE_MAX_PANELS], int cols[FIGURE_MAX_PANELS])
{
	struct fig f;

	fig_bare(&f, p, t, o);
	make_panels(&f);
	for (int i = 0; i < f.count; i++) {
		rows[i] = f.panels[i].rows;
		cols[i] = f.panels[i].cols;
	}
	return f.count;
}

long long figure_cells(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o)
{
	int rows[FIGURE_MAX_PANELS], cols[FIGURE_MAX_PANELS], count = figure_panels(p, t, o, rows, cols);
	long long cells = 0;

	for (int i = 0; i < count; i++)
		cells += (long long)rows[i] * cols[i];
	return cells;
}

int figure_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		      char *err, size_t err_size)
{
	long long cells = figure_cells(p, t, o);
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

void figure_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		 double *width, double *height)
{
	struct fig f;

	*width = *height = 0.0;
	if (fig_open(&f, p, t, o) != 0)
		return;
	*width = f.cv.out_w;
	*height = f.cv.out_h;
	fig_close(&f);
}

int figure_cell(const struct qkv_problem *p, const struct qkv_trace *t, const struct figure_options *o,
		int panel, int row, int col, struct figure_cell *cell)
{
	struct fig f;
	const struct panel *pn;
	double v;

	if (fig_open(&f, p, t, o) != 0)
		return -1;
	if (panel < 0 || panel >= f.count || row < 0 || col < 0 || row >= f.panels[panel].rows ||
	    col >= f.panels[panel].cols) {
		fig_close(&f);
		return -1;
	}
	pn = &f.panels[panel];
	v = cell_value(&f, pn, row, col);
	cell->x = canvas_x(&f.cv, pn->grid_x + col * pn->cell_w);
	cell->y = canvas_y(&f.cv, pn->grid_y + row * pn->cell_h);
	cell->w = pn->cell_w * f.cv.scale;
	cell->h = pn->cell_h * f.cv.scale;
	cell->fill = cell_fill(&f, pn, row, col, v);
	if (cell_masked(&f, pn, row, col))
		snprintf(cell->text, sizeof cell->text, "\u2014");
	else
		qkv_format_number(cell->text, sizeof cell->text, v, f.o.decimals);
	fig_close(&f);
	return 0;
}
