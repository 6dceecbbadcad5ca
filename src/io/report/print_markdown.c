/* print_markdown.c — the printer's Markdown format: headings, bullet facts, pipe
 * tables padded so that the source reads well too, fenced derivations. */
#include <string.h>

#include "io/report/print_model.h"
#include "qkv/format.h"
#include "qkv/text.h"

/* Copies src to dst escaped for Markdown text and table cells; never cuts a
 * character or an escape in two. */
static void md_escape(char *dst, size_t size, const char *src)
{
	size_t used = 0;

	while (*src != '\0') {
		size_t length = qkv_utf8_length(src);
		bool special = length == 1 && strchr("\\|*_`[]<>#", *src) != NULL;

		if (used + length + special + 1 > size)
			break;
		if (special)
			dst[used++] = '\\';
		memcpy(dst + used, src, length);
		used += length;
		src += length;
	}
	dst[used] = '\0';
}

static void md_heading(struct printer *pr, int level, const char *text)
{
	fputs(level == 1 ? "# " : "## ", pr->out);
	print_escaped(pr, text);
	fputs("\n\n", pr->out);
}

static void md_prose(struct printer *pr, const char *text)
{
	print_escaped(pr, text);
	fputs("\n\n", pr->out);
}

static void md_gap(struct printer *pr)
{
	fputc('\n', pr->out);
}

/* The title, the notes as a paragraph, then the facts as a list. */
static void md_header(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;

	md_heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0')
		md_prose(pr, p->notes);
	print_facts(pr, "- ", "— = masked: the key is hidden from that query; its score is "
		    "not used and its weight is 0");
	fputc('\n', pr->out);
}

static void md_stage_title(struct printer *pr, enum qkv_stage stage)
{
	char title[CELL_SIZE];

	print_stage_title_text(pr, stage, "`", title, sizeof title);
	fprintf(pr->out, "## %s\n\n", title);
}

/* A pipe table, labels left-aligned, numbers right-aligned. */
static void md_table(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (print_measure_table(pr, tb) != 0)
		return;
	for (int r = -1; r < rows && !print_stopped(pr); r++) {
		for (int c = -1; c < cols; c++) {
			print_table_cell(pr, tb, r, c, cell, sizeof cell);
			int pad = pr->widths[c + 1] - qkv_text_columns(cell);
			fputs("| ", pr->out);
			if (c < 0) {
				fputs(cell, pr->out);
				print_spaces(pr->out, pad);
			} else {
				print_spaces(pr->out, pad);
				fputs(cell, pr->out);
			}
			fputc(' ', pr->out);
		}
		fputs("|\n", pr->out);
		if (r == -1) {
			for (int c = -1; c < cols; c++) {
				fputs(c < 0 ? "| :" : "| ", pr->out);
				for (int i = c < 0 ? 1 : 0; i < pr->widths[c + 1] - (c < 0 ? 0 : 1); i++)
					fputc('-', pr->out);
				fputs(c < 0 ? " " : ": ", pr->out);
			}
			fputs("|\n", pr->out);
		}
	}
}

static void md_derivation(struct printer *pr, const char *text)
{
	fprintf(pr->out, "\n```text\n%s%s```\n", text,
		text[strlen(text) - 1] == '\n' ? "" : "\n");
}

static int md_sweep(FILE *out, const struct sweep_report *s)
{
	static const char *const names[] = {
		"variance", "max weight", "entropy ratio", "Jacobian norm",
	};
	char cell[NUMBER_SIZE];

	fprintf(out, "## d_k sweep: %d tokens, %d trials, seed %llu\n\n"
		"Q and K drawn i.i.d. N(0, 1); each figure is a mean over trials and query rows; "
		"entropy ratio = entropy / ln n (1 uniform, 0 one-hot).\n\n| d\\_k |",
		s->tokens, s->trials, s->seed);
	for (int c = 0; c < 8; c++)
		fprintf(out, " %s %s |", c < 4 ? "scaled" : "unscaled", names[c % 4]);
	fputs("\n|---:|", out);
	for (int c = 0; c < 8; c++)
		fputs("---:|", out);
	fputc('\n', out);
	for (int r = 0; r < s->count; r++) {
		fputc('|', out);
		for (int c = 0; c < 9; c++) {
			print_sweep_cell(s->points, r, c, cell, sizeof cell);
			fprintf(out, " %s |", cell);
		}
		fputc('\n', out);
	}
	return 0;
}

/* --cost: a heading, the table as a pipe table, the sentences as paragraphs. */
static void md_cost(FILE *out, const struct qkv_cost *c)
{
	struct cost_cells cells;

	fprintf(out, "## The price of n²\n\n");
	print_cost_intro(out, c, "");
	fprintf(out, "| n | scores | flops |");
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
		if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
			fprintf(out, " %s |", print_cost_bytes_heading[a]);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
		if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
			fprintf(out, " %s |", print_cost_time_heading[a]);
	fprintf(out, "\n|---:|---:|---:|");
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
		if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
			fprintf(out, "---:|---:|");
	fputc('\n', out);
	for (int i = 0; i < c->count; i++) {
		print_cost_cells(&c->rows[i], &cells);
		fprintf(out, "| %d | %s | %s |", c->rows[i].n, cells.entries, cells.flops);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
			if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
				fprintf(out, " %s |", cells.bytes[a]);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
			if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
				fprintf(out, " %s |", cells.ms[a]);
		fputc('\n', out);
	}
	print_cost_closing(out, c, "\n");
}

/* --- multi-head reports --- */

/* Headings, titles and sentences escaped as a one-head report's are (md_heading,
 * md_prose): W_O as W\_O, and a token's | or * in a sentence as text. */
static void md_heads_heading(const struct heads_report *h, const char *text)
{
	md_heading(h->pr, 1, text);
}

static void md_heads_sentence(const struct heads_report *h, const char *text)
{
	md_prose(h->pr, text);
}

/* A heading with the title and size, then a pipe table; row labels escaped. */
static void md_heads_table(const struct heads_report *h, const struct heads_table *tb)
{
	const struct qkv_matrix *m = tb->m;
	char label[QKV_MAX_LABEL * 2 + 16], cell[sizeof label * 2], number[NUMBER_SIZE];
	FILE *out = h->out;

	fputs("## ", out);
	print_escaped(h->pr, tb->title);
	fprintf(out, " (%d × %d)\n\n|       |", m->rows, m->cols);
	for (int c = 0; c < m->cols; c++) {
		print_heads_col_label(label, sizeof label, h, tb, c);
		fprintf(out, " %s |", label);
	}
	fputs("\n|---|", out);
	for (int c = 0; c < m->cols; c++)
		fputs("---:|", out);
	fputc('\n', out);
	for (int r = 0; r < m->rows; r++) {
		print_heads_row_label(label, sizeof label, h, tb, r);
		md_escape(cell, sizeof cell, label);
		fprintf(out, "| %s |", cell);
		for (int c = 0; c < m->cols; c++) {
			qkv_format_number(number, sizeof number, qkv_matrix_get(m, r, c), h->o->decimals);
			fprintf(out, " %s |", number);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

const struct print_backend print_markdown_backend = {
	.name = "markdown",
	.header = md_header,
	.stage_title = md_stage_title,
	.heading = md_heading,
	.prose = md_prose,
	.gap = md_gap,
	.table = md_table,
	.wrong_sums = print_wrong_sums_prose,
	.derivation = md_derivation,
	.escape = md_escape,
	.min_width = 3,
	.sweep = md_sweep,
	.cost = md_cost,
	.heads_heading = md_heads_heading,
	.heads_table = md_heads_table,
	.heads_sentence = md_heads_sentence,
	.online_from_hooks = true,
};
