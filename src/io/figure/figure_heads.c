/* figure_heads.c — a multi-head problem's figure (see figure.h): each head's
 * heatmap in a grid sharing one range and one bar, the heads' average and the
 * concatenation and output when asked for, and the public figure_heads_* calls.
 * Layout and drawing are figure.c's, the same as for one trace. */
#include <stdio.h>
#include <string.h>

#include "io/figure/figure_internal.h"

/* The matrix of stage (1, 2 or 3) in t. */
static const struct qkv_matrix *heat_matrix(const struct qkv_trace *t, int stage)
{
	return stage == QKV_STAGE_SCORES ? &t->scores : stage == QKV_STAGE_SCALED ? &t->scaled : &t->weights;
}

/* A multi-head problem's panels: each head's heatmap of the stage (the weights
 * but for stage 1 or 2), then the asked-for extras. */
void fig_heads_panels(struct fig *f)
{
	const struct qkv_heads_trace *h = f->heads;
	int stage = f->o.stage == QKV_STAGE_SCORES || f->o.stage == QKV_STAGE_SCALED ? f->o.stage
										    : QKV_STAGE_WEIGHTS;
	enum panel_colour colour = stage == QKV_STAGE_WEIGHTS ? COLOUR_WEIGHTS : COLOUR_SIGNED;
	char title[160];

	f->count = 0;
	for (int i = 0; i < h->h; i++) {
		struct panel *pn;

		if (f->o.head >= 0 && f->o.head != i)
			continue;
		snprintf(title, sizeof title, "Head %d", i + 1);
		pn = fig_add_panel(f, title, &h->head[i], heat_matrix(&h->head[i], stage), colour, LABELS_QUERIES,
			       LABELS_TOKENS, true);
		pn->selectable = f->o.head == i;
	}
	if ((f->o.heads_panels & FIGURE_HEADS_AVERAGE) && stage == QKV_STAGE_WEIGHTS && f->average.rows > 0)
		fig_add_panel(f, "Average of the heads", &h->head[0], &f->average, COLOUR_WEIGHTS, LABELS_QUERIES,
			  LABELS_TOKENS, true);
	if (f->o.heads_panels & FIGURE_HEADS_CONCAT) {
		fig_add_panel(f, "Concat(head_1 \u2026 head_h)", &h->head[0], &h->concat, COLOUR_PLAIN, LABELS_QUERIES,
			  LABELS_DIMS, false);
		fig_add_panel(f, "Concat \u00b7 W_O", &h->head[0], &h->output, COLOUR_PLAIN, LABELS_QUERIES, LABELS_DIMS,
			  false);
	}
}

/* The heads' mean weights, for FIGURE_HEADS_AVERAGE; 0 or -1 out of memory. */
int fig_heads_average(struct fig *f)
{
	const struct qkv_heads_trace *h = f->heads;

	if (h == NULL || !(f->o.heads_panels & FIGURE_HEADS_AVERAGE))
		return 0;
	if (qkv_matrix_resize(&f->average, h->m, h->n) != 0)
		return -1;
	for (int r = 0; r < h->m; r++)
		for (int c = 0; c < h->n; c++) {
			double sum = 0.0;

			for (int i = 0; i < h->h; i++)
				sum += qkv_matrix_get(&h->head[i].weights, r, c);
			qkv_matrix_set(&f->average, r, c, sum / h->h);
		}
	return 0;
}

bool figure_heads_drawable(const struct qkv_problem *p, const struct figure_options *o)
{
	return p->h > 0 && (o->stage == QKV_STAGE_SCORES || o->stage == QKV_STAGE_SCALED ||
			    o->stage == QKV_STAGE_WEIGHTS);
}

int figure_heads_write(FILE *out, enum figure_format format, const struct qkv_problem *p,
		       const struct qkv_heads_trace *h, const struct figure_options *o, char *err, size_t err_size)
{
	return fig_write(out, format, p, NULL, h, o, err, err_size);
}

int figure_heads_panels(const struct qkv_problem *p, const struct qkv_heads_trace *h, const struct figure_options *o,
			int rows[FIGURE_MAX_PANELS], int cols[FIGURE_MAX_PANELS])
{
	return fig_panels(p, NULL, h, o, rows, cols);
}

int figure_heads_check_size(const struct qkv_problem *p, const struct qkv_heads_trace *h,
			    const struct figure_options *o, char *err, size_t err_size)
{
	return fig_check_size(p, NULL, h, o, err, err_size);
}

int figure_heads_cell(const struct qkv_problem *p, const struct qkv_heads_trace *h, const struct figure_options *o,
		      int panel, int row, int col, struct figure_cell *cell)
{
	return fig_cell(p, NULL, h, o, panel, row, col, cell);
}

int figure_heads_layout(const struct qkv_problem *p, const struct qkv_heads_trace *h,
			const struct figure_options *o, struct figure_layout *l)
{
	const double fs = FONT_SIZE;
	struct fig f;
	double scale;

	if (fig_open(&f, p, NULL, h, o) != 0)
		return -1;
	scale = f.cv.scale;
	memset(l, 0, sizeof *l);
	l->count = f.count;
	l->width = f.cv.out_w;
	l->height = f.cv.out_h;
	for (int i = 0; i < f.count; i++) {
		const struct panel *pn = &f.panels[i];

		l->panel[i] = (struct figure_box){ canvas_x(&f.cv, pn->x), canvas_y(&f.cv, pn->y), pn->w * scale,
						   pn->h * scale };
		l->grid[i] = (struct figure_box){ canvas_x(&f.cv, pn->grid_x), canvas_y(&f.cv, pn->grid_y),
						  grid_cols(pn) * pn->cell_w * scale, grid_rows(pn) * pn->cell_h * scale };
		l->number_size[i] = pn->numbers ? pn->number_fs * scale : 0.0;
	}
	if (f.bar) {
		double top = f.bar_y - (f.clamped_high ? 2.4 * fs : 0.5 * fs);
		double bottom = f.bar_y + f.bar_h + (f.clamped_low ? 2.6 * fs : 0.5 * fs);

		l->bar = (struct figure_box){ canvas_x(&f.cv, f.bar_x), canvas_y(&f.cv, top), fig_bar_extent(&f) * scale,
					      (bottom - top) * scale };
	}
	fig_close(&f);
	return l->count;
}

int figure_either_check_size(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_heads_trace *h,
			     const struct figure_options *o, char *err, size_t err_size)
{
	return figure_heads_drawable(p, o) ? fig_check_size(p, NULL, h, o, err, err_size)
					   : fig_check_size(p, t, NULL, o, err, err_size);
}

char *figure_either_bytes(enum figure_format format, const struct qkv_problem *p, const struct qkv_trace *t,
			  const struct qkv_heads_trace *h, const struct figure_options *o, size_t *length, char *err,
			  size_t err_size)
{
	return figure_heads_drawable(p, o) ? fig_bytes(format, p, NULL, h, o, length, err, err_size)
					   : fig_bytes(format, p, t, NULL, o, length, err, err_size);
}
