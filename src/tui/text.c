/* text.c — the words under the grids and their line breaks (text.h). */
#include <stdio.h>
#include <string.h>

#include "qkv/describe.h"
#include "qkv/format.h"
#include "qkv/text.h"
#include "app/info.h"
#include "tui/glyphs.h"
#include "tui/text.h"

/* Plain words about the selected query's row of weights (equal values named
 * together), or, when softmax ran down the columns, the selected key's column. */
static void verdict(const struct app *app, int decimals, char *buf, size_t size)
{
	struct qkv_problem view;
	const struct qkv_problem *p = &app->problem;

	if (p->h > 0) {
		qkv_problem_head_view(p, app->head, &view);
		p = &view;
	}
	if (p->wrong == QKV_WRONG_COLUMN_SOFTMAX)
		qkv_describe_column(buf, size, p, &app->trace, app_key(app), decimals < 2 ? 2 : decimals);
	else
		qkv_describe_row(buf, size, p, &app->trace, app_query(app), decimals < 2 ? 2 : decimals, false);
}

void text_info(const struct app *app, int decimals, bool readout, char *formula, size_t formula_size,
	       char *derivation, size_t derivation_size)
{
	char words[512], variance[96];
	int row = app_query(app);

	/* The derivation, and the heads' formula lines, as a lesson's `expect info` reads them. */
	if (app_info_lines(app, decimals + 2, formula, formula_size, derivation, derivation_size))
		return;
	verdict(app, decimals, words, sizeof words);
	if (app->stage == APP_STAGE_LIVE && !readout) {
		/* The readout did not fit: its key figures come here instead. */
		char gradient[32], token[QKV_MAX_LABEL + 32];

		qkv_format_number(gradient, sizeof gradient, app->trace.rows[row].jacobian_norm, 3);
		qkv_describe_variance(variance, sizeof variance, &app->trace);
		qkv_query_words(token, sizeof token, &app->problem, row);
		snprintf(formula, formula_size, "%s · ‖J‖ of %s %s  ·  %s", variance, token, gradient, words);
	} else if (app->stage == APP_STAGE_LIVE) {
		snprintf(formula, formula_size, "softmax(Q Kᵀ / %s) V  ·  %s",
			 app->problem.scale == QKV_SCALE_NONE ? "1" : "√d_k", words);
	} else if (app->stage < QKV_STAGE_WEIGHTS) {
		/* Before stage 3 the weights are withheld, and so is what they say. */
		snprintf(formula, formula_size, "stage %d of %d · %s:  %s", app->stage, app_last_stage(app),
			 qkv_stage_name((enum qkv_stage)app->stage), qkv_stage_formula_of(&app->problem, (enum qkv_stage)app->stage, true));
	} else {
		snprintf(formula, formula_size, "stage %d of %d · %s:  %s  ·  %s", app->stage, app_last_stage(app),
			 qkv_stage_name((enum qkv_stage)app->stage), qkv_stage_formula_of(&app->problem, (enum qkv_stage)app->stage, true),
			 words);
	}
}

const char *text_status(const struct app *app, char *buf, size_t size, bool *error)
{
	*error = true;
	switch (app->prompt) {
	case PROMPT_QUIT:
		return "Unsaved changes. Quit anyway? y / n";
	case PROMPT_OVERWRITE:
		snprintf(buf, size, "%s exists. Overwrite it? y / n", app->answer);
		return buf;
	case PROMPT_CHANGED:
		snprintf(buf, size, "%s changed on disk since qkv read it. Save over it anyway? y / n", app->path);
		return buf;
	case PROMPT_RECOVER:
		snprintf(buf, size, "Unsaved changes from an earlier session are in %s. Open them? y / n", app->recovery);
		return buf;
	case PROMPT_SAVE_AS:
		return NULL;
	case PROMPT_NONE:
	default:
		*error = app->message_is_error;
		return app->message;
	}
}

int text_lines(const char *text, int width)
{
	char drawn[TEXT_NOTES_MAX];
	const char *s;
	int lines = 0;

	if (text == NULL || width <= 0)
		return 0;
	s = glyphs_text(text, drawn, sizeof drawn);
	while (*s != '\0') {
		qkv_text_line(s, width, &s);
		lines++;
	}
	return lines;
}

void text_items_fitting(char *buf, size_t size, const char *items, int width)
{
	const char *s = items;
	size_t used = 0;
	int columns = 0;
	bool first = true;

	if (size == 0)
		return;
	buf[0] = '\0';
	while (*s != '\0') {
		const char *end = strstr(s, " · ");
		size_t length = end != NULL ? (size_t)(end - s) : strlen(s);
		char item[TEXT_MAX];
		int w;

		snprintf(item, sizeof item, "%.*s", (int)length, s);
		w = glyphs_columns(item) + (first ? 0 : glyphs_columns(" · "));
		if ((first || columns + w <= width) && used + length + 8 < size) {
			used += (size_t)snprintf(buf + used, size - used, "%s%s", first ? "" : " · ", item);
			columns += w;
			first = false;
		}
		s = end != NULL ? end + strlen(" · ") : s + length;
	}
}
