/* draw_lines.c — the lines around the grids: the title bar and the stage bar, the
 * formula, derivation and readout lines under the grids, and the status line with
 * its message and the keys in reach. Reads the app and the layout; draws with
 * draw.c's cell writers (draw_internal.h). */
#include <string.h>
#include "qkv/format.h"
#include "qkv/text.h"
#include "tui/draw.h"
#include "tui/draw_internal.h"
#include "tui/glyphs.h"
#include "tui/text.h"

/* The redraw flag that asks for a panel (REDRAW_INPUTS, _ATTENTION, _OUTPUT, _INFO). */
int draw_panel_flag(const struct panel *panel)
{
	switch (panel->kind) {
	case PANEL_INPUT:
	case PANEL_DERIVED:
		return REDRAW_INPUTS;
	case PANEL_MIX:
		return REDRAW_OUTPUT;
	case PANEL_GRID:
		/* S, S' and A are the attention; O and what the heads make of it, output. */
		return qkv_grid_is_attention(panel->grid) ? REDRAW_ATTENTION : REDRAW_OUTPUT;
	case PANEL_READOUT:
		return REDRAW_ATTENTION | REDRAW_INFO;
	default:
		return REDRAW_ATTENTION;
	}
}

static const char *scale_words(const struct app *app, char *buf, size_t size)
{
	char divisor[32];
	const struct qkv_problem *p = &app->problem;

	qkv_format_number(divisor, sizeof divisor, app->trace.divisor, 3);
	if (p->scale == QKV_SCALE_NONE)
		snprintf(buf, size, "÷ %s (scaling off)", divisor);
	else if (p->scale == QKV_SCALE_CUSTOM)
		snprintf(buf, size, "÷ %s (custom)", divisor);
	else if (p->temperature != 1.0)
		snprintf(buf, size, "÷ τ√%d = %s", app->trace.d_k, divisor);
	else
		snprintf(buf, size, "÷ √%d = %s", app->trace.d_k, divisor);
	return buf;
}


/* The title bar's right side: the problem's numbers, with " · " between them or,
 * from level 2, two spaces; at level 3 without τ and the mask when both are the
 * defaults (τ 1, no mask); at level 4 the divisor alone ("÷ 2.000"). */
static void bar_numbers(const struct app *app, int level, char *buf, size_t size)
{
	const struct qkv_problem *p = &app->problem;
	const char *dot = level >= 2 ? "  " : " · ";
	char scale[64], seed[48], tau[48] = "", mask[48] = "", heads[32] = "", queries[32] = "";

	/* The learning view's runs, not the problem under it: > and < change their d_k. */
	if (app->view == VIEW_LEARNING && app->learning != NULL) {
		const struct qkv_train_config *c = &app->learning->config;

		snprintf(buf, size, " n %d%sd_model %d%sd_k %d%sd_v %d%s÷ √%d and ÷ 1%sseed %llu%s", c->tokens,
			 dot, c->d_model, dot, c->d_k, dot, c->tokens, dot, c->d_k, dot,
			 (unsigned long long)c->seed, level >= 2 ? "" : " ");
		return;
	}

	scale_words(app, scale, sizeof scale);
	if (level >= 4 && p->scale == QKV_SCALE_SQRT_DK && p->temperature == 1.0) {
		/* "÷ √4 = 2.000" as "÷ 2.000": the divisor, which the stage titles repeat. */
		char divisor[32];

		qkv_format_number(divisor, sizeof divisor, app->trace.divisor, 3);
		snprintf(scale, sizeof scale, "÷ %s", divisor);
	}
	snprintf(seed, sizeof seed, "%sseed %llu", dot, (unsigned long long)p->seed);
	if (level < 3 || p->temperature != 1.0)
		snprintf(tau, sizeof tau, "%sτ %g", dot, p->temperature);
	if (level < 3 || p->mask != QKV_MASK_NONE || p->temperature != 1.0)
		snprintf(mask, sizeof mask, "%smask %s", dot, qkv_mask_name(p->mask));
	/* "modified" stands with the numbers, which always show; the title gets the rest. */
	if (p->h > 0)
		snprintf(heads, sizeof heads, "%sh %d", dot, p->h);
	/* Cross-attention's m queries before its n tokens. */
	if (qkv_problem_is_cross(p))
		snprintf(queries, sizeof queries, " m %d%s", p->m, dot);
	snprintf(buf, size, "%s%s n %d%sd_k %d%sd_v %d%s%s%s%s%s%s%s", app->dirty ? " modified ·" : "", queries,
		 p->n, dot, app->trace.d_k, dot, app->trace.d_v, dot, scale, tau, mask, p->seeded ? seed : "",
		 heads, level >= 2 ? "" : " ");
}

/* The title bar (the problem's title and numbers) and the stage bar. */
void draw_bars(const struct app *app, const struct layout *l)
{
	const struct qkv_problem *p = &app->problem;
	const char *title = p->title != NULL ? p->title : "untitled";
	char left[TEXT_MAX], right[200], stages[APP_STAGE_LAYER + 1][32], training[64];
	int x, level, first = p->form == QKV_FORM_PROJECTED ? 0 : 1, bar = 7, last = app_last_stage(app);
	const char *banner = p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX ? " WRONG WAY: mask after softmax "
			     : p->wrong != QKV_WRONG_NONE ? " WRONG WAY: softmax down columns "
			     : app->projector ? "projector" : NULL;

	/* The learning view trains a task of its own: the title names it, not the
	 * problem under the view (the numbers beside it are the runs', bar_numbers). */
	if (app->view == VIEW_LEARNING && app->learning != NULL) {
		snprintf(training, sizeof training, "the %s task",
			 qkv_task_name(app->learning->config.task));
		title = training;
	}
	draw_blank(0, 0, 2, l->width);
	/* The numbers always; the whole title when it fits (without "qkv ·", then
	 * with tighter separators, then without the default τ and mask, then with
	 * the divisor alone); else its first words and "…" (mid-line: the numbers
	 * follow). */
	for (level = 0; level < 5; level++) {
		snprintf(left, sizeof left, level == 0 ? " qkv · %s" : level == 1 ? " %s" : "%s", title);
		bar_numbers(app, level, right, sizeof right);
		if (glyphs_columns(left) + glyphs_columns(right) <= l->width)
			break;
	}
	if (level == 5)
		draw_words_fitting(left, sizeof left, title, l->width - glyphs_columns(right) - 1);
	x = l->width - glyphs_columns(right);
	if (x < 0)
		x = 0;
	palette_apply(stdscr, palette_role(ROLE_STATUS));
	mvhline(0, 0, ' ', l->width);
	draw_put(0, 0, x, palette_role(ROLE_STATUS), left);
	draw_put(0, x, l->width - x, palette_role(ROLE_STATUS), right);
	/* The stage bar: where the lesson is, what is still withheld. With a banner
	 * that does not fit beside it, only the current stage keeps its name. */
	/* A multi-head problem has two stages more: 6 concat and 7 W_O. */
	for (int s = first; s <= last; s++) {
		snprintf(stages[s], sizeof stages[s], " %d %s ", s,
			 s <= QKV_STAGE_OUTPUT ? qkv_stage_name((enum qkv_stage)s)
			 : s == APP_STAGE_CONCAT ? "concat" : "W_O");
		bar += glyphs_columns(stages[s]) + 1;
	}
	if ((banner != NULL && bar + 1 + glyphs_columns(banner) > l->width) || bar > l->width)
		for (int s = first; s <= last; s++)
			if (s != app->stage)
				snprintf(stages[s], sizeof stages[s], " %d ", s);
	x = 1;
	draw_put(1, x, 6, palette_role(app->stage == APP_STAGE_LIVE ? ROLE_CURSOR : ROLE_DIM), " live ");
	x += 7;
	for (int s = first; s <= last; s++) {
		enum palette_role role = app->stage == s ? ROLE_CURSOR
					 : app_stage_visible(app, (enum qkv_stage)s) ? ROLE_NORMAL : ROLE_DIM;
		draw_put(1, x, l->width - x, palette_role(role), stages[s]);
		x += glyphs_columns(stages[s]) + 1;
	}
	if (banner != NULL)
		draw_put(1, x + 1, l->width - x - 1, palette_role(p->wrong != QKV_WRONG_NONE ? ROLE_ERROR : ROLE_DIM), banner);
}

/* Breaks text at spaces into lines of at most `width` columns (text_line),
 * drawing the first `lines` of them from y when draw is set; a text longer than
 * that (only on a screen too small for it) keeps whole words on its last line
 * and ends in "…". Returns the lines the whole text needs. */
static int wrap_text(int y, int x, int width, int lines, struct cell_style style, const char *text, bool draw)
{
	char drawn[TEXT_MAX];
	const char *s = glyphs_text(text, drawn, sizeof drawn); /* broken where it is drawn */
	int line = 0;

	if (width <= 0)
		return 0;
	for (; *s != '\0'; line++) {
		const char *rest;
		size_t length = qkv_text_line(s, width, &rest);

		if (draw && line < lines) {
			char chunk[TEXT_MAX];

			if (line == lines - 1 && *rest != '\0') {
				/* The last line shown, with more to come: whole words and "…". */
				char more[TEXT_MAX];

				snprintf(more, sizeof more, "%s", s);
				for (char *c = more; *c != '\0'; c++)
					if (*c == '\n')
						*c = ' ';
				draw_words_fitting(chunk, sizeof chunk, more, width);
			} else {
				if (length > sizeof chunk - 1)
					length = sizeof chunk - 1;
				memcpy(chunk, s, length);
				chunk[length] = '\0';
			}
			draw_put(y + line, x, width, style, chunk);
		}
		s = rest;
	}
	return line;
}

/* Writes text over `lines` lines from y, breaking at spaces. */
void draw_put_wrapped(int y, int x, int width, int lines, struct cell_style style, const char *text)
{
	wrap_text(y, x, width, lines, style, text, true);
}

/* Draws the last `lines` lines text breaks into at `width` columns from y: the
 * end of a derivation, with its result, when the screen cannot hold all of it
 * ("… " starts the first line drawn when lines before it are left out). */
static void put_tail(int y, int x, int width, int lines, struct cell_style style, const char *text)
{
	char drawn[TEXT_MAX], line[TEXT_MAX];
	const char *s = glyphs_text(text, drawn, sizeof drawn), *starts[64], *next;
	int count = 0, first;

	if (lines <= 0 || width <= 2)
		return;
	for (const char *at = s; *at != '\0' && count < 64; at = next) {
		qkv_text_line(at, width - 2, &next);
		starts[count++] = at;
	}
	first = count > lines ? count - lines : 0;
	for (int k = first; k < count; k++) {
		size_t length = qkv_text_line(starts[k], width - 2, &next);

		snprintf(line, sizeof line, "%s%.*s", k == first && first > 0 ? "… " : "", (int)length, starts[k]);
		draw_put(y + k - first, x, width, style, line);
	}
}

/* The formula line and the derivation in the lines the layout reserved for them
 * under the grids (all they need, unless the screen is too small: then the
 * formula's first line and the derivation's last ones, with its result),
 * aligned with the grids when they fit that way. */
void draw_info(const struct app *app, const struct layout *l)
{
	char formula[TEXT_MAX], text[TEXT_MAX];
	int x = l->width - l->left >= 100 ? l->left : 1, width = l->width - x - 1, formula_lines, derive_lines;

	text_info(app, l->decimals, draw_has_readout(l), formula, sizeof formula, text, sizeof text);
	if (text_lines(formula, width) + text_lines(text, width) > l->info_h) {
		x = 1;
		width = l->width - 2;
	}
	draw_blank(l->info_y, 0, l->info_h, l->width);
	formula_lines = text_lines(formula, width);
	derive_lines = text_lines(text, width);
	if (formula_lines + derive_lines > l->info_h) {
		/* Too little room: the formula whole and the derivation's end, with its
		 * result; failing that, the end of each. */
		int ending = derive_lines > 0 ? 1 : 0;

		if (formula_lines + ending <= l->info_h) {
			draw_put_wrapped(l->info_y, x, width, formula_lines, palette_role(ROLE_TITLE), formula);
			put_tail(l->info_y + formula_lines, x, width, l->info_h - formula_lines, palette_role(ROLE_NORMAL),
				 text);
		} else {
			put_tail(l->info_y, x, width, l->info_h - ending, palette_role(ROLE_TITLE), formula);
			put_tail(l->info_y + l->info_h - ending, x, width, ending, palette_role(ROLE_NORMAL), text);
		}
		return;
	}
	draw_put_wrapped(l->info_y, x, width, formula_lines, palette_role(ROLE_TITLE), formula);
	draw_put_wrapped(l->info_y + formula_lines, x, width, derive_lines, palette_role(ROLE_NORMAL), text);
}

/* Appends text to the string in buf (cut at the buffer's end). */
static void append(char *buf, size_t size, const char *text)
{
	size_t length = strlen(buf), add = strlen(text);

	if (length + add >= size)
		add = size - 1 - length;
	memcpy(buf + length, text, add);
	buf[length + add] = '\0';
}

/* The keys line in `width` columns: whole items (" · " between them) in their
 * order, dropping from the end those that do not fit but never the last one
 * ("q quit") nor "? help". */
static void keys_fitting(char *buf, size_t size, const char *keys, int width)
{
	char items[16][96];
	int count = 0, used;
	const char *s = keys;

	while (*s == ' ')
		s++;
	while (*s != '\0' && count < 16) {
		const char *end = strstr(s, " · ");
		size_t length = end != NULL ? (size_t)(end - s) : strlen(s);

		if (length >= sizeof items[0])
			length = sizeof items[0] - 1;
		memcpy(items[count], s, length);
		items[count++][length] = '\0';
		s = end != NULL ? end + strlen(" · ") : s + strlen(s);
	}
	snprintf(buf, size, "%s", keys);
	if (glyphs_columns(buf) <= width || count < 2)
		return;
	/* The last item and the way to help always stay. */
	used = 1 + glyphs_columns(items[count - 1]);
	for (int i = 0; i < count - 1; i++)
		if (items[i][0] == '?')
			used += glyphs_columns(items[i]) + 3;
	buf[0] = '\0';
	for (int i = 0; i < count - 1; i++) {
		int w = glyphs_columns(items[i]) + 3;

		if (items[i][0] != '?' && used + w > width)
			continue;
		if (items[i][0] != '?')
			used += w;
		append(buf, size, " ");
		append(buf, size, items[i]);
		append(buf, size, " ·");
	}
	append(buf, size, " ");
	append(buf, size, items[count - 1]);
}

/* The message line (or a question) and, under it, the keys in reach now. */
void draw_status(const struct app *app, const struct layout *l)
{
	char text[TEXT_MAX], keys[TEXT_MAX];
	const char *sentence;
	bool error;
	int y = l->status_y, lines = l->message_h;

	/* A long message takes the lines the layout gave it, ending on the status line. */
	draw_blank(y - lines + 1, 0, lines + 1, l->width);
	app_key_hints(app, keys, sizeof keys);
	keys_fitting(text, sizeof text, keys, l->width);
	draw_put(y + 1, 0, l->width, palette_role(ROLE_KEY), text);
	if (app->prompt == PROMPT_SAVE_AS) {
		snprintf(text, sizeof text, " %s: %s_", app->exporting ? "Export figure as (.svg .pdf .png)" : "Save as",
			 app->answer);
		draw_put(y, 0, l->width, palette_role(ROLE_STATUS), text);
		return;
	}
	/* A question or the message, whole. */
	sentence = text_status(app, text, sizeof text, &error);
	if (sentence != NULL && sentence[0] != '\0')
		draw_put_wrapped(y - lines + 1, 1, l->width - 2, lines, palette_role(error ? ROLE_ERROR : ROLE_STATUS),
			    sentence);
}
