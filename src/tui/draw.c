/* draw.c — the screen: title and stage bars, the grids (inputs, scores, scaled,
 * weights heatmap with its legend, mix, output), the statistics readout, the
 * formula and derivation lines, the status line and the overlays. Draws only the
 * regions the flags name and never changes the app. Numbers go through
 * qkv_format_number, as in the printer, so the screen and the handouts agree. */
#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qkv/colour.h"
#include "qkv/describe.h"
#include "qkv/format.h"
#include "qkv/heads.h"
#include "qkv/text.h"
#include "app/info.h"
#include "app/learning.h"
#include "app/help.h"
#include "tui/draw.h"
#include "tui/draw_internal.h"
#include "tui/draw_cost.h"
#include "tui/draw_online.h"
#include "tui/draw_saturation.h"
#include "tui/draw_geometry.h"
#include "tui/glyphs.h"
#include "tui/draw_train.h"
#include "tui/palette.h"
#include "tui/text.h"

/* Writes s at (y, x) in at most `width` columns (wide characters count two),
 * cutting on a character boundary. */
void draw_put(int y, int x, int width, struct cell_style style, const char *s)
{
	char drawn[TEXT_MAX];

	if (width <= 0)
		return;
	s = glyphs_text(s, drawn, sizeof drawn);
	palette_apply(stdscr, style);
	mvaddnstr(y, x, s, (int)qkv_text_fit(s, width, strlen(s)));
}

/* Copies into buf the words of text that fit in `width` columns, never cutting a
 * word: when some are left out, the kept ones end in "…". */
const char *draw_words_fitting(char *buf, size_t size, const char *text, int width)
{
	size_t best = 0;

	snprintf(buf, size, "%s", text);
	if (glyphs_columns(buf) <= width)
		return buf;
	for (size_t i = 1; buf[i] != '\0'; i++) {
		char saved = buf[i];

		if (buf[i] != ' ' || buf[i - 1] == ' ')
			continue;
		buf[i] = '\0';
		if (glyphs_columns(buf) + 2 <= width)
			best = i;
		buf[i] = saved;
	}
	if (best + 4 < size)
		memcpy(buf + best, " …", sizeof " …");
	if (glyphs_columns(buf) > width)
		buf[0] = '\0';
	return buf;
}

/* Blanks a rectangle in the normal style. */
void draw_blank(int y, int x, int h, int w)
{
	palette_apply(stdscr, palette_role(ROLE_NORMAL));
	for (int r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
}

/* Right-aligns text in a field `field` columns wide, centred in a cell of width w
 * (the last column stays a gap), so the numbers of a column line up on their
 * decimal points however wide the cells grow. */
static void put_cell_in(int y, int x, int w, int field, struct cell_style style, const char *text)
{
	char cell[160];
	int length = glyphs_columns(text), pad;

	if (field > w - 1 || field < length)
		field = w - 1 < length ? length : w - 1;
	pad = (w - field) / 2 + field - length;
	if (pad > w - 1 - length)
		pad = w - 1 - length;

	if (pad < 0)
		pad = 0;
	/* A plain cell on the blanked panel needs only its text (the common case). */
	if (style.pair == 0 && style.attr == A_NORMAL && length < w) {
		draw_put(y, x + pad, length, style, text);
		return;
	}
	snprintf(cell, sizeof cell, "%*s%s%*s", pad, "", text, w - pad - length, "");
	draw_put(y, x, w, style, cell);
}

/* Right-aligns text in a cell of width w (the last column stays a gap). */
static void put_cell(int y, int x, int w, struct cell_style style, const char *text)
{
	put_cell_in(y, x, w, w - 1, style, text);
}

/* A cell taller than one line: its colour (or, without colour, its shade) fills
 * the lines above and below its number (line `middle` of the block, which
 * put_cell draws). */
static void fill_cell(int top, int x, int w, int h, int middle, struct cell_style style)
{
	/* Without colour, the shading glyph fills the block (its last column a gap). */
	bool shade = style.pair == 0 && (style.attr & A_REVERSE) == 0 && style.glyph[0] != '\0' &&
		     strcmp(style.glyph, " ") != 0;

	if (h <= 1 || (style.pair == 0 && (style.attr & A_REVERSE) == 0 && !shade))
		return;
	style.attr &= ~(attr_t)A_UNDERLINE;
	for (int line = 0; line < h; line++) {
		if (line == middle)
			continue;
		if (!shade) {
			draw_put(top + line, x, w, style, "                                ");
			continue;
		}
		for (int c = 0; c < w - 1; c++)
			draw_put(top + line, x + c, 1, style, style.glyph);
	}
}

/* The value of a grid panel's cell, and whether it is masked. */
static double panel_value(const struct app *app, const struct panel *panel, int row, int col,
			  bool *masked)
{
	const struct qkv_trace *t = &app->trace;

	*masked = false;
	switch (panel->kind) {
	case PANEL_INPUT:
		return qkv_matrix_get(app_input(app, (enum qkv_grid)panel->input), row, col);
	case PANEL_HEAD:
		*masked = qkv_trace_is_masked(&app->heads.head[panel->input], row, col);
		return qkv_matrix_get(&app->heads.head[panel->input].weights, row, col);
	case PANEL_GRID:
		/* S, S', A and O the selected head's (app->trace), the concatenation and
		 * the layer output the heads' together. */
		*masked = qkv_grid_is_attention(panel->grid) && qkv_trace_is_masked(t, row, col);
		return qkv_matrix_get(qkv_grid_matrix(&app->problem, t, &app->heads, app->head, panel->grid), row, col);
	case PANEL_DERIVED:
		return qkv_matrix_get(panel->input == QKV_GRID_Q ? &t->q : panel->input == QKV_GRID_K ? &t->k : &t->v,
				      row, col);
	case PANEL_MIX:
		*masked = qkv_trace_is_masked(t, app_query(app), row);
		return qkv_trace_mix(t, app_query(app), row, col);
	default:
		return 0.0;
	}
}

/* True when value, at the panel's decimals, prints like a different value of its
 * grid (an input or derived grid: Q, K, V, X or a W), or as zero when it is not. */
static bool panel_hides(const struct app *app, const struct panel *panel, double value)
{
	const struct qkv_trace *t = &app->trace;
	const struct qkv_matrix *m = NULL;

	if (panel->kind == PANEL_INPUT)
		m = app_input(app, (enum qkv_grid)panel->input);
	else if (panel->kind == PANEL_DERIVED)
		m = panel->input == QKV_GRID_Q ? &t->q : panel->input == QKV_GRID_K ? &t->k : &t->v;
	return m != NULL && qkv_format_hides(m->values, (size_t)m->rows * (size_t)m->cols, value, panel->places);
}

/* Largest magnitude in a signed panel, for the diverging ramp's ends. */
static double signed_limit(const struct app *app, const struct panel *panel)
{
	double limit = 0.0;
	bool masked;

	for (int r = 0; r < panel->rows; r++)
		for (int c = 0; c < panel->cols; c++) {
			double v = fabs(panel_value(app, panel, r, c, &masked));
			if (!masked && v > limit)
				limit = v;
		}
	return limit > 0.0 ? limit : 1.0;
}

/* Range of a weights row for the auto-range mode. */
static void row_range(const struct app *app, int row, double *low, double *high)
{
	const struct qkv_trace *t = &app->trace;

	*low = 1.0;
	*high = 0.0;
	for (int j = 0; j < t->n; j++) {
		double w = qkv_matrix_get(&t->weights, row, j);
		if (qkv_trace_is_masked(t, row, j))
			continue;
		if (w < *low)
			*low = w;
		if (w > *high)
			*high = w;
	}
}

static bool cell_moved(const struct app *app, const struct panel *panel, int row, int col)
{
	switch (panel->kind) {
	case PANEL_INPUT:
		return app_moved_input(app, (enum qkv_grid)panel->input, row, col);
	case PANEL_DERIVED:
		return app_moved(app, (enum qkv_grid)(QKV_GRID_Q + panel->input - QKV_GRID_Q), row, col);
	case PANEL_MIX:
		return app_moved_mix(app, app_query(app), row, col);
	case PANEL_GRID:
		if (panel->grid == QKV_GRID_CONCAT)
			return app_moved_concat(app, row, col);
		if (panel->grid == QKV_GRID_LAYER)
			return app_moved_layer(app, row, col);
		return app_moved(app, panel->grid, row, col);
	case PANEL_HEAD:
		return app_moved_head_weight(app, panel->input, row, col);
	default:
		return false;
	}
}

/* Is (row, col) of this panel the selected cell? */
static bool cell_selected(const struct app *app, const struct panel *panel, int row, int col)
{
	if (panel->kind == PANEL_MIX)
		return row == app_key(app) && col == app_value_col(app);
	if (panel->focus < 0)
		return false;
	if (panel_attention(panel))
		return row == app_query(app) && col == app_key(app);
	if (panel_shows(panel, QKV_GRID_OUTPUT))
		return row == app_query(app) && col == app_value_col(app);
	return (int)app->focus == panel->focus && app->cursor[panel->focus].row == row &&
	       app->cursor[panel->focus].col == col;
}

static struct cell_style cell_style_of(const struct app *app, const struct panel *panel, int row,
				       int col, double value, bool masked, double limit)
{
	struct cell_style style = palette_role(ROLE_NORMAL);

	if (masked)
		return palette_role(ROLE_MASKED);
	if (panel->kind == PANEL_HEAD) {
		style = palette_weight(value);
	} else if (panel_shows(panel, QKV_GRID_WEIGHTS)) {
		double w = value;
		if (app->auto_range) {
			/* From the numbers as shown, so equal numbers stay equal colours. */
			double low, high, shown = qkv_colour_shown(value, 2);
			row_range(app, row, &low, &high);
			low = qkv_colour_shown(low, 2);
			high = qkv_colour_shown(high, 2);
			w = high > low ? (shown - low) / (high - low) : 1.0;
		}
		style = palette_weight(w);
	} else if (panel_signed(panel)) {
		style = palette_signed(value, limit);
	}
	if (cell_moved(app, panel, row, col))
		style = palette_moved(style);
	if (cell_selected(app, panel, row, col))
		style = palette_selected(style);
	return style;
}

/* The frame of the selected cell or of a moved value: the cell's blank first and
 * last columns in the frame's colour, the number and its heat colour untouched. */
static void put_frame(const struct app *app, const struct panel *panel, int row, int col, int y, int x,
		      const char *text)
{
	int w = panel->cell_w, pad = w - 1 - glyphs_columns(text);
	enum cell_frame frame = cell_selected(app, panel, row, col) ? FRAME_SELECTED
				: cell_moved(app, panel, row, col) ? FRAME_MOVED : FRAME_NONE;

	if (frame == FRAME_NONE || w < 2)
		return;
	if (pad > 0)
		draw_put(y, x, 1, palette_frame(frame), " ");
	draw_put(y, x + w - 1, 1, palette_frame(frame), " ");
}

/* A compact grid in colour: each line shows two rows, the lower as a lower half
 * block's colour and the upper as its background. The selected cell keeps both its
 * colours (reversing them would show the other row's colour in its place): its
 * row's token in the label and its column's place in the label line above are
 * marked instead, a cross-hair read from the margins. */
static void draw_halves(const struct app *app, const struct panel *panel, double limit)
{
	char text[32];
	cchar_t half;
	int data_x = panel->x + panel->label_w, mark_line = -1, mark_col = -1;
	bool mark_lower = false;
	struct cell_style mark = palette_role(ROLE_CURSOR);

	for (int line = 0; line < panel_lines(panel); line++) {
		int upper = panel->first_row + 2 * line, lower = upper + 1, y = panel->y + 2 + line;
		bool has_lower = lower < panel->first_row + panel->shown_rows;

		if (has_lower)
			snprintf(text, sizeof text, "%.*s/%.*s", panel->row_label_w - 1, layout_row_label(app, panel, upper),
				 panel->row_label_w - 1, layout_row_label(app, panel, lower));
		else
			snprintf(text, sizeof text, "%.*s", panel->row_label_w - 1, layout_row_label(app, panel, upper));
		draw_put(y, panel->x, panel->label_w, palette_role(ROLE_LABEL), text);
		for (int c = 0; c < panel->shown_cols; c++) {
			int col = panel->first_col + c;
			bool masked_upper, masked_lower = false;
			double a = panel_value(app, panel, upper, col, &masked_upper);
			double b = has_lower ? panel_value(app, panel, lower, col, &masked_lower) : a;
			struct cell_style style;

			a = masked_upper ? 0.0 : a;
			b = masked_lower ? 0.0 : b;
			/* The lower half block in the lower row's colour on the upper's: a
			 * font whose blocks stop short of the cell's top then shows the
			 * upper colour there, not a thin line of the lower one. */
			style = panel_shows(panel, QKV_GRID_WEIGHTS) || panel->kind == PANEL_HEAD
					? palette_weight_halves(b, a) : palette_signed_halves(b, a, limit);
			if (cell_selected(app, panel, upper, col) || (has_lower && cell_selected(app, panel, lower, col))) {
				mark_line = line;
				mark_col = c;
				mark_lower = !cell_selected(app, panel, upper, col);
			}
			/* Wide characters straight in: no UTF-8 decoding per cell. */
			setcchar(&half, L"▄", style.attr, 0, &style.pair);
			mvadd_wch(y, data_x + c * panel->cell_w, &half);
			add_wch(&half);
		}
	}
	if (mark_line < 0)
		return;
	/* The selected row's token, in the label "upper/lower"; then the column's two
	 * places in the label line, whatever they hold (a token's name, or blanks). */
	{
		int row = panel->first_row + 2 * mark_line + (mark_lower ? 1 : 0), x = panel->x;
		short legacy = (short)(mark.pair <= SHRT_MAX ? mark.pair : 0);

		snprintf(text, sizeof text, "%.*s", panel->row_label_w - 1,
			 layout_row_label(app, panel, panel->first_row + 2 * mark_line));
		if (mark_lower)
			x += glyphs_columns(text) + 1;
		snprintf(text, sizeof text, "%.*s", panel->row_label_w - 1, layout_row_label(app, panel, row));
		draw_put(panel->y + 2 + mark_line, x, panel->label_w - (x - panel->x), mark, text);
		mvchgat(panel->y + 1, data_x + mark_col * panel->cell_w, panel->cell_w, mark.attr, legacy, &mark.pair);
	}
}

static void draw_panel_body(const struct app *app, const struct layout *l, const struct panel *panel)
{
	char text[APP_EDIT_MAX + 16];
	int data_x = panel->x + panel->label_w;
	double limit = panel_signed(panel) ? signed_limit(app, panel) : 1.0;
	bool token_columns = panel_attention(panel) || panel->kind == PANEL_HEAD;
	bool token_rows = !(panel->kind == PANEL_INPUT && panel->input >= QKV_GRID_W_Q);
	/* The rows of S, S', A, O, Q (and X_q) are queries; those of K, V, X and the mix keys. */
	bool query_rows = layout_query_rows(panel);
	/* The concatenation's columns and W_O's rows come in blocks of d_v, one a head. */
	int d_v = app->heads.d_v > 0 ? app->heads.d_v : 1;
	bool head_columns = panel_shows(panel, QKV_GRID_CONCAT);
	bool head_rows = panel->kind == PANEL_INPUT && panel->input == QKV_GRID_W_O;
	/* X's columns and W_Q's, W_K's and W_V's rows are d_model's dimensions, m1 … */
	bool model_columns = panel->kind == PANEL_INPUT && (panel->input == QKV_GRID_X || panel->input == QKV_GRID_X_Q);

	/* Column labels; a compact grid's whole, on every k-th column (k columns
	 * of two make room for the longest shown). */
	if (panel->compact) {
		int k = 1, end = data_x + panel->shown_cols * panel->cell_w;

		for (int c = 0; c < panel->shown_cols; c++) {
			int need = (glyphs_columns(app->problem.tokens[panel->first_col + c]) + 2) / 2;
			k = need > k ? need : k;
		}
		for (int c = 0; c < panel->shown_cols; c++) {
			int x = data_x + c * panel->cell_w;

			if ((panel->first_col + c) % k != 0 ||
			    glyphs_columns(app->problem.tokens[panel->first_col + c]) > end - x)
				continue;
			snprintf(text, sizeof text, "%.*s", end - x, app->problem.tokens[panel->first_col + c]);
			draw_put(panel->y + 1, x, end - x < k * 2 - 1 ? end - x : k * 2 - 1, palette_role(ROLE_LABEL), text);
		}
	}
	for (int c = 0; c < panel->shown_cols && !panel->compact; c++) {
		int col = panel->first_col + c;
		if (head_columns) {
			snprintf(text, sizeof text, "h%dd%d", col / d_v + 1, col % d_v + 1);
			put_cell(panel->y + 1, data_x + c * panel->cell_w, panel->cell_w, palette_head(col / d_v), text);
			continue;
		}
		if (token_columns)
			snprintf(text, sizeof text, "%.*s", panel->cell_w - 1, app->problem.tokens[col]);
		else
			snprintf(text, sizeof text, "%s%d", model_columns ? "m" : "d", col + 1);
		put_cell_in(panel->y + 1, data_x + c * panel->cell_w, panel->cell_w, panel->field_w,
			    palette_role(ROLE_LABEL), text);
	}
	/* The mix's rows are keys, not queries: its label column says so. */
	if (panel->kind == PANEL_MIX && !panel->halves)
		draw_put(panel->y + 1, panel->x, panel->label_w - 1, palette_role(ROLE_LABEL), "key");
	if (panel->halves) {
		draw_halves(app, panel, limit);
		return;
	}
	for (int r = 0; r < panel->shown_rows; r++) {
		int row = panel->first_row + r, y = panel_row_y(panel, r), top = panel->y + 2 + r * panel->cell_h;
		bool query_row = token_rows && query_rows && row == app_query(app);

		if (token_rows)
			snprintf(text, sizeof text, "%.*s", panel->label_w - 1, layout_row_label(app, panel, row));
		else if (head_rows)
			snprintf(text, sizeof text, "h%dd%d", row / d_v + 1, row % d_v + 1);
		else
			snprintf(text, sizeof text, "m%d", row + 1);
		if (head_rows)
			draw_put(y, panel->x, panel->label_w - 1, palette_head(row / d_v), text);
		else
			draw_put(y, panel->x, panel->label_w, palette_role(query_row ? ROLE_TITLE : ROLE_LABEL), text);
		for (int c = 0; c < panel->shown_cols; c++) {
			int col = panel->first_col + c, x = data_x + c * panel->cell_w;
			bool masked;
			double value = panel_value(app, panel, row, col, &masked);
			struct cell_style style = cell_style_of(app, panel, row, col, value, masked, limit);

			fill_cell(top, x, panel->cell_w, panel->cell_h, y - top, style);
			/* A tall cell's frame runs down all its lines. */
			for (int line = 0; line < panel->cell_h; line++)
				if (top + line != y)
					put_frame(app, panel, row, col, top + line, x, "");
			if (app->editing && panel->kind == PANEL_INPUT && panel->focus == (int)app->focus &&
			    cell_selected(app, panel, row, col)) {
				snprintf(text, sizeof text, "%s_", app->edit);
				put_cell(y, x, panel->cell_w, palette_role(ROLE_EDIT), text);
				continue;
			}
			if (panel->compact) {
				draw_put(y, x, 2, style, style.glyph[0] != '\0' ? style.glyph : "  ");
				if (style.glyph[0] != '\0')
					draw_put(y, x + 1, 1, style, style.glyph);
				continue;
			}
			if (masked) {
				put_cell_in(y, x, panel->cell_w, panel->field_w, style, "—");
				put_frame(app, panel, row, col, y, x, "—");
				continue;
			}
			qkv_format_number(text, sizeof text, value, panel->places > 0 ? panel->places : l->decimals);
			/* A value that prints like a different one of its grid is marked "~". */
			if (panel->rounded && panel_hides(app, panel, value))
				snprintf(text + strlen(text), sizeof text - strlen(text), "~");
			if (style.glyph[0] != '\0' && panel->cell_w >= glyphs_columns(text) + 2) {
				size_t length = strlen(text);
				snprintf(text + length, sizeof text - length, "%s", style.glyph);
			}
			put_cell_in(y, x, panel->cell_w, panel->field_w, style, text);
			put_frame(app, panel, row, col, y, x, text);
		}
	}
}

/* Under a colour-only grid: the selected row and column written out in numbers,
 * largest first, as many whole entries as the panel's width holds, so the values
 * are there for whoever cannot read the colours. */
static void draw_compact_numbers(const struct app *app, const struct layout *l, const struct panel *panel)
{
	/* The panel's last two lines (under the legend, or under the grid when a tight
	 * layout has no legend), above the scroll marker. */
	int y = panel->y + panel->h - 2 - (panel->marker ? 1 : 0), query = app_query(app), key = app_key(app);

	for (int line = 0; line < 2; line++) {
		char text[TEXT_MAX], entry[96], number[32];
		size_t length;
		int used[8], count = 0;

		/* The row is the query's (its entries the keys), the column the key's. */
		int entries = line == 0 ? app->trace.n : app->trace.m;

		length = (size_t)snprintf(text, sizeof text, line == 0 ? "row %s, largest:" : "col %s, largest:",
					  line == 0 ? qkv_problem_query_label(&app->problem, query) : app->problem.tokens[key]);
		/* The eight largest entries of the line, each once, while they fit. */
		for (int k = 0; k < 8 && k < entries; k++) {
			int best = -1;
			double best_value = 0.0;

			for (int j = 0; j < entries; j++) {
				bool masked, taken = false;
				double v = panel_value(app, panel, line == 0 ? query : j, line == 0 ? j : key, &masked);

				for (int u = 0; u < count; u++)
					taken |= used[u] == j;
				if (!taken && !masked && (best < 0 || v > best_value)) {
					best = j;
					best_value = v;
				}
			}
			if (best < 0)
				break;
			used[count++] = best;
			qkv_format_number(number, sizeof number, best_value, l->decimals);
			snprintf(entry, sizeof entry, " %s %s",
				 line == 0 ? app->problem.tokens[best] : qkv_problem_query_label(&app->problem, best), number);
			if (glyphs_columns(text) + glyphs_columns(entry) > panel->w || length + strlen(entry) >= sizeof text)
				break;
			length += (size_t)snprintf(text + length, sizeof text - length, "%s", entry);
		}
		draw_put(y + line, panel->x, panel->w, palette_role(ROLE_LABEL), text);
	}
}

/* A sum of weights at `decimals` places, "≈" in front when the weights it sums, each
 * rounded as the heatmap shows it, add up to something else (0.40 + 0.40 + 0.50
 * under a sum of 1.3057, shown 1.31). */
static void weight_sum_text(char *buf, size_t size, double sum, long long shown, int decimals)
{
	char number[24];

	qkv_format_number(number, sizeof number, sum, decimals);
	snprintf(buf, size, "%s%s", shown == llround(sum * pow(10.0, decimals)) ? "" : "≈", number);
}

/* Wrong-way demonstrations: each row's sum (right), red where it is not 1, and
 * each column's sum (below), shown but not judged. */
static void draw_weight_sums(const struct app *app, const struct layout *l, const struct panel *panel)
{
	const struct qkv_trace *t = &app->trace;
	int data_x = panel->x + panel->label_w, sum_x = data_x + panel->shown_cols * panel->cell_w;
	int y = panel->y + 2 + panel_lines(panel);
	char text[32];

	/* "Σrow", or "Σ" where the cells are too narrow for it ("sumrow" in ASCII). */
	put_cell(panel->y + 1, sum_x, panel->cell_w, palette_role(ROLE_ERROR),
		 glyphs_columns("Σrow") < panel->cell_w ? "Σrow" : "Σ");
	for (int r = 0; r < panel->shown_rows; r++) {
		double sum = t->rows[panel->first_row + r].weight_sum, scale = pow(10.0, l->decimals);
		long long shown = 0;
		int row = panel->first_row + r;

		for (int j = 0; j < t->n; j++)
			shown += llround(qkv_matrix_get(&t->weights, row, j) * scale);
		weight_sum_text(text, sizeof text, sum, shown, l->decimals);
		put_cell(panel_row_y(panel, r), sum_x, panel->cell_w,
			 palette_role(fabs(sum - 1.0) > 5e-3 ? ROLE_ERROR : ROLE_NORMAL), text);
	}
	/* "Σcol", or "Σ" where the glyph set spells it out and it would not fit
	 * ("sumcol" cut to "sumco" in ASCII). */
	/* Column sums are shown, not judged: those of correct attention are not 1
	 * either (only each row of weights must add up to 1). */
	draw_put(y, panel->x, panel->label_w, palette_role(ROLE_LABEL),
	    glyphs_columns("Σcol") <= panel->label_w ? "Σcol" : "Σ");
	for (int c = 0; c < panel->shown_cols; c++) {
		double sum = qkv_trace_column_sum(t, panel->first_col + c), scale = pow(10.0, l->decimals);
		long long shown = 0;
		int col = panel->first_col + c;

		for (int i = 0; i < t->m; i++)
			shown += llround(qkv_matrix_get(&t->weights, i, col) * scale);
		weight_sum_text(text, sizeof text, sum, shown, l->decimals);
		put_cell_in(y, data_x + c * panel->cell_w, panel->cell_w, panel->field_w, palette_role(ROLE_NORMAL),
			    text);
	}
}

/* The legend under the heatmap: the ramp, as wide as the grid allows, and its ends: 0 and 1, or with R the selected query's row range, which the
 * colours then span. */
static void draw_weights_legend(const struct app *app, const struct layout *l, const struct panel *panel)
{
	int y = panel->y + 2 + panel_lines(panel), steps = palette_steps();
	int x = panel->x + panel->label_w, end = panel->x + panel->w, step_w;
	char low[32] = "0", high[64], number[32];

	if (app->auto_range) {
		double from, to;
		int row = app_query(app);

		row_range(app, row, &from, &to);
		qkv_format_number(low, sizeof low, from, l->decimals);
		qkv_format_number(number, sizeof number, to, l->decimals);
		snprintf(high, sizeof high, " %s row %s", number, qkv_problem_query_label(&app->problem, row));
		if (x + steps + glyphs_columns(high) > end)
			snprintf(high, sizeof high, " %s", number);
		draw_put(y, panel->x, end - panel->x, palette_role(ROLE_LABEL), low);
		x = panel->x + glyphs_columns(low) + 1;
	} else {
		snprintf(high, sizeof high, " 1 fixed");
		draw_put(y, panel->x, panel->label_w, palette_role(ROLE_LABEL), low);
	}
	/* As wide as the grid above it allows, one column a step at least. */
	step_w = (end - x - glyphs_columns(high)) / steps;
	if (step_w < 1)
		step_w = 1;
	for (int s = 0; s < steps && x + step_w <= end - glyphs_columns(high); s++) {
		struct cell_style style = palette_weight(((double)s + 0.5) / steps);
		const char *glyph = style.glyph[0] != '\0' ? style.glyph : " ";

		/* With colour the glyph once (a dark shade would hide a light step). */
		for (int i = 0; i < step_w; i++)
			draw_put(y, x + i, 1, style, i == 0 || palette_monochrome() ? glyph : " ");
		x += step_w;
	}
	draw_put(y, x, end - x, palette_role(ROLE_LABEL), high);
}

/* The legend under a signed grid: −limit, the diverging ramp, +limit. */
static void draw_signed_legend(const struct app *app, const struct panel *panel)
{
	char low[32], high[32], number[24];
	int y = panel->y + 2 + panel_lines(panel), x, side = palette_signed_steps() > 1 ? palette_signed_steps() / 2 : 4;
	double limit = signed_limit(app, panel);

	qkv_format_number(number, sizeof number, limit, 2);
	snprintf(low, sizeof low, "−%s ", number);
	snprintf(high, sizeof high, " +%s", number);
	draw_put(y, panel->x, panel->w, palette_role(ROLE_LABEL), low);
	x = panel->x + glyphs_columns(low);
	for (int s = -side; s <= side && x < panel->x + panel->w - glyphs_columns(high); s++, x++) {
		struct cell_style style = palette_signed(limit * s / side, limit);
		draw_put(y, x, 1, style, style.glyph[0] != '\0' ? style.glyph : " ");
	}
	draw_put(y, x, panel->x + panel->w - x, palette_role(ROLE_LABEL), high);
}

static void draw_mix_sum(const struct app *app, const struct layout *l, const struct panel *panel)
{
	char text[64];
	int y = panel->y + 2 + panel_lines(panel), data_x = panel->x + panel->label_w;

	bool adds_up = true;

	/* Each term rounded on its own may not add up to the rounded sum: then "≈". */
	for (int c = 0; c < app->trace.d_v; c++)
		adds_up = adds_up && qkv_trace_mix_adds_up(&app->trace, app_query(app), c, l->decimals);
	draw_put(y, panel->x, panel->label_w, palette_role(ROLE_TITLE), adds_up ? "Σ =" : "Σ ≈");
	for (int c = 0; c < panel->shown_cols; c++) {
		qkv_format_number(text, sizeof text, qkv_matrix_get(&app->trace.output, app_query(app), panel->first_col + c),
			    l->decimals);
		put_cell_in(y, data_x + c * panel->cell_w, panel->cell_w, panel->field_w, palette_role(ROLE_TITLE), text);
	}
}

/* True when the layout has the statistics readout beside the heatmap. */
bool draw_has_readout(const struct layout *l)
{
	for (int i = 0; i < l->count; i++)
		if (l->panels[i].kind == PANEL_READOUT)
			return true;
	return false;
}

/* The variance softmax sees against the one expected for N(0,1) entries of Q and K. */
static const char *variance_words(const struct app *app, char *buf, size_t size)
{
	qkv_describe_variance(buf, size, &app->trace);
	return buf;
}

/* Per-row softmax statistics with the measured against the predicted variance. */
static void draw_readout(const struct app *app, const struct panel *panel)
{
	const struct qkv_trace *t = &app->trace;
	char text[96], a[16], b[16], c[16], d[16];
	int y = panel->y + 1;

	snprintf(text, sizeof text, "%-*s  max  H/lnN   eff  ‖J‖", panel->label_w - 1, "");
	draw_put(y++, panel->x, panel->w, palette_role(ROLE_LABEL), text);
	for (int r = 0; r < panel->shown_rows; r++) {
		int row = panel->first_row + r;
		const struct qkv_row_stats *s = &t->rows[row];

		/* Beside the heatmap's rows, however tall they are. */
		y = panel_row_y(panel, r);
		qkv_format_number(a, sizeof a, s->max_weight, 2);
		/* H / ln N has no value for a query that sees no key (N = 0). */
		if (s->live_keys > 0)
			qkv_format_number(b, sizeof b, qkv_row_entropy_ratio(s), 2);
		else
			snprintf(b, sizeof b, "    —"); /* five columns, as %5s */
		qkv_format_number(c, sizeof c, s->effective_tokens, 1);
		qkv_format_number(d, sizeof d, s->jacobian_norm, 3);
		snprintf(text, sizeof text, "%-*.*s %5s %5s %5s %6s", panel->label_w - 1, panel->label_w - 1,
			 qkv_problem_query_label(&app->problem, row), a, b, c, d);
		draw_put(y, panel->x, panel->w,
		    palette_role(app_moved_readout(app, row) ? ROLE_MOVED : row == app_query(app) ? ROLE_TITLE : ROLE_NORMAL),
		    text);
	}
	y = panel->y + 2 + panel_lines(panel);
	variance_words(app, text, sizeof text);
	if (glyphs_columns(text) > panel->w) {
		/* A variance too wide for the line with its comparison (8.64e+22): the
		 * measured one alone, rather than a number cut short ("1." for 1.00). */
		char *comparison = strstr(text, " · ");

		if (comparison != NULL)
			*comparison = '\0';
	}
	draw_put(y, panel->x, panel->w, palette_role(ROLE_DIM), text);
}

/* Multi-head: per head, what its weights look at (mean entropy; mean weight on
 * the previous token, on itself, on the first token), and the same for the
 * heads' weights averaged into one pattern, the wrong way. */
static void draw_heads_readout(const struct app *app, const struct panel *panel)
{
	const struct qkv_heads_trace *t = &app->heads;
	struct qkv_matrix avg;
	struct qkv_pattern averaged;
	char text[96], a[16], b[16], c[16], d[16];
	int y = panel->y + 1;

	draw_put(y++, panel->x, panel->w, palette_role(ROLE_LABEL), "      H  prev  self first");
	for (int r = 0; r < panel->shown_rows && r <= t->h; r++) {
		int row = panel->first_row + r;
		const struct qkv_pattern *s = &averaged;

		if (row < t->h) {
			s = &t->pattern[row];
		} else {
			qkv_matrix_init(&avg);
			if (qkv_heads_average(t, &avg, &averaged) != 0) {
				qkv_matrix_fini(&avg);
				break;
			}
			qkv_matrix_fini(&avg);
		}
		qkv_format_number(a, sizeof a, s->entropy, 2);
		qkv_format_number(b, sizeof b, s->previous, 2);
		qkv_format_number(c, sizeof c, s->diagonal, 2);
		/* Cross-attention has no previous token or token itself among its keys. */
		if (t->cross) {
			snprintf(b, sizeof b, "—");
			snprintf(c, sizeof c, "—");
		}
		qkv_format_number(d, sizeof d, s->first, 2);
		snprintf(text, sizeof text, "%-3s %5s %5s %5s %5s", "", a, b, c, d);
		draw_put(y, panel->x, panel->w, palette_role(row == t->h ? ROLE_ERROR : row == app->head ? ROLE_TITLE
											: ROLE_NORMAL), text);
		if (row < t->h) {
			snprintf(text, sizeof text, "h%d", row + 1);
			draw_put(y, panel->x, 3, palette_head(row), text);
		} else {
			draw_put(y, panel->x, 3, palette_role(ROLE_ERROR), "avg");
		}
		y++;
	}
}

/* Which panel wears the focus mark: the focused input; for the computed grids, the
 * weights or the output when all is live, and in the walk the current stage's grid
 * (the walk shows no later stage). */
static bool panel_has_focus(const struct app *app, const struct panel *panel)
{
	enum qkv_grid grid;

	if (panel->focus < 0 || panel->focus != (int)app->focus)
		return false;
	if (panel->kind == PANEL_INPUT || panel_shows(panel, QKV_GRID_CONCAT) || panel_shows(panel, QKV_GRID_LAYER))
		return true;
	if (app->stage == APP_STAGE_LIVE || app->stage >= QKV_STAGE_COUNT)
		return panel_shows(panel, QKV_GRID_WEIGHTS) || panel_shows(panel, QKV_GRID_OUTPUT);
	if (app->stage == QKV_STAGE_PROJECTIONS)
		return panel->kind == PANEL_DERIVED;
	if (app->stage == QKV_STAGE_MIX)
		return panel->kind == PANEL_MIX;
	return qkv_grid_of_stage(app->stage, &grid) == 0 && panel_shows(panel, grid);
}

/* The words under a grid with rows or columns out of sight: how many, on which
 * side ("↑ 2 ↓ 5 more rows · → 3 more columns"), shorter when the panel is narrow. */
static void marker_text(const struct panel *panel, char *buf, size_t size, int width)
{
	int above = panel->first_row, below = panel->rows - panel->first_row - panel->shown_rows;
	int left = panel->first_col, right = panel->cols - panel->first_col - panel->shown_cols;
	char rows[64] = "", cols[64] = "", up[16] = "", down[16] = "", back[16] = "", on[16] = "";

	for (int form = 0; form < 3; form++) {
		bool one_row = above + below == 1;
		bool one_col = left + right == 1;
		const char *row_word = form == 0 ? (one_row ? " more row" : " more rows")
				       : form == 1 ? (one_row ? " row" : " rows") : "";
		const char *col_word = form == 0 ? (one_col ? " more column" : " more columns")
				       : form == 1 ? (one_col ? " col" : " cols") : "";

		snprintf(up, sizeof up, above > 0 ? "↑ %d" : "", above);
		snprintf(down, sizeof down, below > 0 ? "↓ %d" : "", below);
		snprintf(back, sizeof back, left > 0 ? "← %d" : "", left);
		snprintf(on, sizeof on, right > 0 ? "→ %d" : "", right);
		rows[0] = cols[0] = '\0';
		if (above > 0 || below > 0)
			snprintf(rows, sizeof rows, "%s%s%s%s", up, above > 0 && below > 0 ? " " : "", down, row_word);
		if (left > 0 || right > 0)
			snprintf(cols, sizeof cols, "%s%s%s%s", back, left > 0 && right > 0 ? " " : "", on, col_word);
		snprintf(buf, size, "%s%s%s", rows, rows[0] != '\0' && cols[0] != '\0' ? (form < 2 ? " · " : " ") : "",
			 cols);
		if (glyphs_columns(buf) <= width)
			return;
	}
}

/* The scroll marker: the panel's last line. */
static void draw_marker(const struct panel *panel)
{
	char text[160];

	marker_text(panel, text, sizeof text, panel->w);
	draw_put(panel->y + panel->h - 1, panel->x, panel->w, palette_role(ROLE_DIM), text);
}

static void draw_panel(const struct app *app, const struct layout *l, const struct panel *panel)
{
	char title[200];
	bool focused = panel_has_focus(app, panel);

	draw_blank(panel->y, panel->x, panel->h, panel->w);
	layout_panel_title_within(app, panel, panel->w - (focused ? 2 : 0), title, sizeof title);
	/* A title wider than its panel drops its "  rows×cols", then words. */
	if (glyphs_columns(title) + (focused ? 2 : 0) > panel->w) {
		char *size_part = strstr(title, "×") != NULL ? strrchr(title, ' ') : NULL;

		if (size_part != NULL && size_part > title + 1 && size_part[-1] == ' ')
			size_part[-1] = '\0';
		if (glyphs_columns(title) + (focused ? 2 : 0) > panel->w) {
			char whole[200];

			snprintf(whole, sizeof whole, "%s", title);
			draw_words_fitting(title, sizeof title, whole, panel->w - (focused ? 2 : 0));
		}
	}
	if (focused) {
		char marked[216];
		snprintf(marked, sizeof marked, "▶ %s", title);
		draw_put(panel->y, panel->x, panel->w, palette_role(ROLE_FOCUS), marked);
	} else {
		draw_put(panel->y, panel->x, panel->w, palette_role(ROLE_TITLE), title);
	}
	if (layout_panel_head(app, panel) >= 0) {
		/* The head's tag, the title's first word, in the head's colour. */
		char tag[24];
		int head = layout_panel_head(app, panel), at;

		snprintf(tag, sizeof tag, "h%d", head + 1);
		at = panel->x + (focused ? 2 : 0);
		if (at + glyphs_columns(tag) <= panel->x + panel->w)
			draw_put(panel->y, at, glyphs_columns(tag), palette_head(head), tag);
	}
	if (panel->kind == PANEL_READOUT && panel->input == LAYOUT_HEADS_READOUT) {
		draw_heads_readout(app, panel);
		return;
	}
	if (panel->kind == PANEL_READOUT) {
		draw_readout(app, panel);
		return;
	}
	draw_panel_body(app, l, panel);
	if (panel->compact && panel->kind != PANEL_HEAD)
		draw_compact_numbers(app, l, panel);
	/* Colour-only cells have no room for the sums: the legend instead. */
	if (panel_shows(panel, QKV_GRID_WEIGHTS) && panel->sums && !panel->compact)
		draw_weight_sums(app, l, panel);
	else if (panel_shows(panel, QKV_GRID_WEIGHTS))
		draw_weights_legend(app, l, panel);
	else if (panel_signed(panel) && !l->tight)
		draw_signed_legend(app, panel);
	else if (panel->kind == PANEL_MIX)
		draw_mix_sum(app, l, panel);
	if (panel->marker)
		draw_marker(panel);
}

/* A framed box with a title, in UTF-8 line drawing (the same in every terminal
 * and in tmux's captures, unlike the alternate character set). */
static void draw_box(int y, int x, int h, int w, const char *title)
{
	struct cell_style frame = palette_role(ROLE_TITLE);

	draw_blank(y, x, h, w);
	for (int c = 1; c < w - 1; c++) {
		draw_put(y, x + c, 1, frame, "─");
		draw_put(y + h - 1, x + c, 1, frame, "─");
	}
	for (int r = 1; r < h - 1; r++) {
		draw_put(y + r, x, 1, frame, "│");
		draw_put(y + r, x + w - 1, 1, frame, "│");
	}
	draw_put(y, x, 1, frame, "┌");
	draw_put(y, x + w - 1, 1, frame, "┐");
	draw_put(y + h - 1, x, 1, frame, "└");
	draw_put(y + h - 1, x + w - 1, 1, frame, "┘");
	draw_put(y, x + 2, w - 4, frame, title);
}

/* The help box: the key table's bindings with a note, grouped under headings,
 * name and note side by side, in the columns and pages app_help_layout gives the
 * screen; the frame says which page and how to reach the others. */
static void draw_help(const struct app *app, const struct layout *l)
{
	static struct app_help help;
	char title[160];
	int page;

	app_help_layout(&help, l->width, l->height);
	page = app->help.page < help.pages ? app->help.page : help.pages - 1;
	if (help.pages == 1) {
		snprintf(title, sizeof title, " keys · any key closes ");
	} else {
		const struct app_binding *more = app_binding_find(APP_KEYS_HELP, APP_KEY_PAGE_DOWN);
		const struct app_binding *back = app_binding_find(APP_KEYS_HELP, APP_KEY_PAGE_UP);

		/* Whole words only: the page keys, then what closes, go when the frame
		 * is too narrow (the status line under the box offers them too). */
		snprintf(title, sizeof title, " keys · page %d of %d%s%s%s%s · any other key closes ", page + 1,
			 help.pages, page + 1 < help.pages ? " · " : "", page + 1 < help.pages ? more->hint : "",
			 page > 0 ? " · " : "", page > 0 ? back->hint : "");
		if (glyphs_columns(title) > help.w - 4)
			snprintf(title, sizeof title, " keys · page %d of %d · any other key closes ", page + 1,
				 help.pages);
		if (glyphs_columns(title) > help.w - 4)
			snprintf(title, sizeof title, " keys · page %d of %d ", page + 1, help.pages);
	}
	draw_box(help.y, help.x, help.h, help.w, title);
	for (int i = 0; i < help.count; i++) {
		const struct app_help_item *item = &help.items[i];
		int y = help.y + 1 + item->line, x = help.x + 2 + item->column * APP_HELP_COLUMN;
		int room = help.x + help.w - 2 - x;

		if (item->page != page)
			continue;
		if (item->name == NULL) {
			draw_put(y, x, room, palette_role(ROLE_TITLE), item->text);
			continue;
		}
		/* Name and note each in its own column, however wide the glyph set draws them. */
		draw_put(y, x, APP_KEY_NAME_MAX, palette_role(ROLE_NORMAL), item->name);
		draw_put(y, x + APP_KEY_NAME_MAX + 1, room - APP_KEY_NAME_MAX - 1, palette_role(ROLE_NORMAL), item->text);
	}
	draw_put(help.y + help.h - 2, help.x + 2, help.w - 4, palette_role(ROLE_DIM),
	    "qkv --help and man qkv list the command line");
}

/* Each query's row of weights in words, for whoever cannot see the colours. */
static void draw_describe(const struct app *app, const struct layout *l)
{
	const struct qkv_trace *t = &app->trace;
	int w = l->width - 4 < 100 ? l->width - 4 : 100;
	/* A line per query, or per key when the columns are described. */
	int lines = app->problem.wrong == QKV_WRONG_COLUMN_SOFTMAX ? t->n : t->m;
	int per_row = w - 4 >= 90 ? 1 : 2, h = lines * per_row + 2;
	char text[TEXT_MAX];
	int y, x = (l->width - w) / 2;

	if (h > l->height - 2)
		h = l->height - 2;
	y = (l->height - h) / 2;
	draw_box(y, x, h, w, " the weights in words · D or Esc closes ");
	for (int i = 0; i < lines && 1 + (i + 1) * per_row <= h - 1; i++) {
		/* Softmax down the columns (the wrong way) made columns: those are described. */
		bool columns = app->problem.wrong == QKV_WRONG_COLUMN_SOFTMAX;

		if (columns)
			qkv_describe_column(text, sizeof text, &app->problem, t, i, l->decimals < 2 ? 2 : l->decimals);
		else
			qkv_describe_row(text, sizeof text, &app->problem, t, i, l->decimals < 2 ? 2 : l->decimals, true);
		draw_put_wrapped(y + 1 + i * per_row, x + 2, w - 4, per_row,
			    palette_role(i == (columns ? app_key(app) : app_query(app)) ? ROLE_TITLE : ROLE_NORMAL), text);
	}
}

/* Each view's drawing over the editor, by enum app_view_id (the app's table of
 * views, app/view.h, has the same index). */
static void (*const view_drawings[VIEW_COUNT])(const struct app *app, const struct layout *l) = {
	[VIEW_HELP] = draw_help,
	[VIEW_DESCRIBE] = draw_describe,
	[VIEW_SATURATION] = draw_saturation,
	[VIEW_COST] = draw_cost,
	[VIEW_LEARNING] = draw_train,
	[VIEW_ONLINE] = draw_online,
	[VIEW_GEOMETRY] = draw_geometry,
};

void draw_frame(const struct app *app, const struct layout *l, int flags)
{
	if (l->too_small) {
		char text[160];

		palette_apply(stdscr, palette_role(ROLE_NORMAL));
		erase();
		/* One sentence, the long form when it fits, wrapped only as a last resort. */
		snprintf(text, sizeof text, "qkv needs a terminal of at least %d×%d; this one is %d×%d.",
			 l->need_width, l->need_height, l->width, l->height);
		if (glyphs_columns(text) > l->width)
			snprintf(text, sizeof text, "qkv needs a terminal of at least %d×%d.", l->need_width,
				 l->need_height);
		draw_put_wrapped(l->height / 2 - 1 > 0 ? l->height / 2 - 1 : 0, 0, l->width, 3,
			    palette_role(ROLE_TITLE), text);
		return;
	}
	if (flags & (REDRAW_LAYOUT | REDRAW_OVERLAY))
		flags = REDRAW_ALL;
	if (flags & REDRAW_LAYOUT || (flags & REDRAW_ALL) == REDRAW_ALL) {
		palette_apply(stdscr, palette_role(ROLE_NORMAL));
		draw_blank(2, 0, l->height - 2, l->width);
	}
	if (flags & REDRAW_STATUS)
		draw_bars(app, l);
	for (int i = 0; i < l->count; i++)
		if (flags & draw_panel_flag(&l->panels[i]))
			draw_panel(app, l, &l->panels[i]);
	/* The message shares its lines with the formula: a new one redraws both. */
	if (flags & (REDRAW_INFO | REDRAW_ATTENTION | REDRAW_INPUTS | REDRAW_STATUS))
		draw_info(app, l);
	if (flags & REDRAW_STATUS)
		draw_status(app, l);
	if (view_drawings[app->view] != NULL)
		view_drawings[app->view](app, l);
}

/* One frame, as the interface and the benchmark make it: the palette, the layout
 * again when shapes may have changed (keeping the scroll offsets), the flagged
 * regions, and one doupdate. */
void draw_render(const struct app *app, struct layout *l, int flags)
{
	if (flags == REDRAW_NONE)
		return;
	struct layout before = *l;

	palette_use(app->palette, app->projector);
	if (flags & REDRAW_LAYOUT || l->width != COLS || l->height != LINES ||
	    (flags & (REDRAW_INPUTS | REDRAW_ATTENTION | REDRAW_OUTPUT)) != 0 || layout_text_changed(l, app)) {
		int first[LAYOUT_MAX_PANELS][2], count = l->count;
		struct layout_look look = { .monochrome = palette_monochrome(), .glyphs = palette_glyphs(),
					    .half_blocks = glyphs_half_blocks() };

		for (int i = 0; i < count; i++) {
			first[i][0] = l->panels[i].first_row;
			first[i][1] = l->panels[i].first_col;
		}
		layout_compute(l, app, COLS, LINES, &look);
		l->lesson = before.lesson;
		l->notes = before.notes;
		if (l->count == count)
			for (int i = 0; i < count; i++) {
				l->panels[i].first_row = first[i][0];
				l->panels[i].first_col = first[i][1];
			}
	}
	layout_follow(l, app);
	/* Whatever moved, widened or scrolled leaves nothing behind: a layout unlike
	 * the last frame's redraws the whole screen. */
	if (!layout_same(&before, l))
		flags |= REDRAW_ALL;
	draw_frame(app, l, flags);
	wnoutrefresh(stdscr);
	doupdate();
	palette_flush();
}
