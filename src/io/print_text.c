/* print_text.c — the printer's plain-text format: what a terminal or a handout
 * shows, with tables aligned on their columns (wide characters counted twice). */
#include <string.h>

#include "io/print_model.h"
#include "qkv/format.h"

static void text_heading(struct printer *pr, int level, const char *text)
{
	(void)level;
	fprintf(pr->out, "%s\n", text);
}

static void text_prose(struct printer *pr, const char *text)
{
	fprintf(pr->out, "  %s\n", text);
}

static void text_newline(struct printer *pr)
{
	fputc('\n', pr->out);
}

/* Title, notes, then the facts, one per line. */
static void text_header(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;

	text_heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0')
		fprintf(pr->out, "%s\n", p->notes);
	fputc('\n', pr->out);
	print_facts(pr, "", print_masked_legend);
	fputc('\n', pr->out);
}

static void text_stage_title(struct printer *pr, enum qkv_stage stage)
{
	char title[CELL_SIZE];

	print_stage_title_text(pr, stage, "", title, sizeof title);
	fprintf(pr->out, "%s\n", title);
}

/* Labels on the left, numbers right-aligned under their labels. */
static void text_table(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (print_measure_table(pr, tb) != 0)
		return;
	for (int r = -1; r < rows && !print_stopped(pr); r++) {
		if (tb->kind == TABLE_MIX && r == pr->t->n) {
			int total = pr->widths[0];
			for (int c = 0; c < cols; c++)
				total += 2 + pr->widths[c + 1];
			fputs("  ", pr->out);
			for (int i = 0; i < total; i++)
				fputs("─", pr->out);
			fputc('\n', pr->out);
		}
		fputs("  ", pr->out);
		print_table_cell(pr, tb, r, -1, cell, sizeof cell);
		fputs(cell, pr->out);
		print_spaces(pr->out, pr->widths[0] - qkv_text_columns(cell));
		for (int c = 0; c < cols; c++) {
			print_table_cell(pr, tb, r, c, cell, sizeof cell);
			print_spaces(pr->out, 2 + pr->widths[c + 1] - qkv_text_columns(cell));
			fputs(cell, pr->out);
		}
		fputc('\n', pr->out);
	}
}

/* The arithmetic, indented under the table. */
static void text_derivation(struct printer *pr, const char *text)
{
	fputc('\n', pr->out);
	for (const char *line = text; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		fprintf(pr->out, "    %.*s\n", (int)length, line);
		line += length + (line[length] == '\n');
	}
}

static int text_sweep(FILE *out, const struct sweep_report *s)
{
	int widths[9];
	char cell[NUMBER_SIZE];

	fprintf(out, "d_k sweep: %d tokens, %d trials, seed %llu\n"
		"Q and K drawn i.i.d. N(0, 1); each figure is a mean over trials and query rows.\n"
		"variance: of the entries fed to softmax   max a: the largest weight\n"
		"H ratio: entropy / ln n (1 uniform, 0 one-hot)   ‖J‖_F: softmax Jacobian norm\n\n",
		s->tokens, s->trials, s->seed);
	for (int c = 0; c < 9; c++) {
		widths[c] = 0;
		for (int r = -1; r < s->count; r++) {
			print_sweep_cell(s->points, r, c, cell, sizeof cell);
			if (qkv_text_columns(cell) > widths[c])
				widths[c] = qkv_text_columns(cell);
		}
	}
	int scaled_width = 0;
	for (int c = 1; c <= 4; c++)
		scaled_width += 2 + widths[c];
	print_spaces(out, 2 + widths[0] + 2);
	fputs("scaled by √d_k", out);
	print_spaces(out, scaled_width - 2 - qkv_text_columns("scaled by √d_k") + 3);
	fputs("unscaled\n", out);
	for (int r = -1; r < s->count; r++) {
		fputs("  ", out);
		for (int c = 0; c < 9; c++) {
			print_sweep_cell(s->points, r, c, cell, sizeof cell);
			print_spaces(out, (c == 0 ? 0 : c == 5 ? 3 : 2) + widths[c]
				     - qkv_text_columns(cell));
			fputs(cell, out);
		}
		fputc('\n', out);
	}
	return 0;
}

const struct print_backend print_text_backend = {
	.name = "text",
	.header = text_header,
	.stage_title = text_stage_title,
	.heading = text_heading,
	.prose = text_prose,
	.end_paragraph = text_newline,
	.gap = text_newline,
	.table = text_table,
	.wrong_sums = print_wrong_sums_prose,
	.derivation = text_derivation,
	.sweep = text_sweep,
};
