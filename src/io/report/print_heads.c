/* print_heads.c — a multi-head problem on paper. Each head is reported by the
 * one-head printer (print_trace on the head's view), so every head reads as a
 * one-head report does; this file adds the order around them — per head a
 * heading, then the concatenation, W_O and the output with the example cell's
 * shares — and the tables' labels. Each format's parts are its backend's heads_*
 * hooks (print_<format>.c); JSON writes the whole object itself. Every number
 * comes from the multi-head trace. */
#include <stdlib.h>
#include <string.h>

#include "io/report/print_heads.h"
#include "io/report/print_model.h"

/* "hIdJ": head I's output column J, for column or row i of d_v columns a head. */
static void head_column(char *buf, size_t size, int d_v, int i)
{
	snprintf(buf, size, "h%dd%d", i / d_v + 1, i % d_v + 1);
}

void print_heads_row_label(char *buf, size_t size, const struct heads_report *h,
			   const struct heads_table *tb, int r)
{
	if (tb->head_rows)
		head_column(buf, size, h->t->d_v, r);
	else
		snprintf(buf, size, "%s", qkv_problem_query_label(h->p, r));
}

void print_heads_col_label(char *buf, size_t size, const struct heads_report *h,
			   const struct heads_table *tb, int c)
{
	if (tb->head_cols)
		head_column(buf, size, h->t->d_v, c);
	else
		snprintf(buf, size, "d%d", c + 1);
}

/* One head's one-head report; with numbered rows (CSV) every row gets the head's
 * number in a first column, and the header row comes once, with "head" in front. */
static int head_report(const struct heads_report *h, const struct print_backend *be, int i)
{
	struct qkv_problem view;
	char *text = NULL;
	size_t length = 0;
	FILE *memory;
	int rc;

	qkv_problem_head_view(h->p, i, &view);
	if (!be->heads_numbered_rows)
		return print_trace(h->out, &view, &h->t->head[i], h->o);
	memory = open_memstream(&text, &length);
	if (memory == NULL)
		return -1;
	rc = print_trace(memory, &view, &h->t->head[i], h->o);
	if (fclose(memory) != 0)
		rc = -1;
	if (rc == 0) {
		char *line = text, *end;

		end = strchr(line, '\n');
		if (end != NULL && i == 0)
			fprintf(h->out, "head,%.*s", (int)(end - line + 1), line);
		line = end != NULL ? end + 1 : line + strlen(line);
		for (; *line != '\0'; line = end + 1) {
			end = strchr(line, '\n');
			if (end == NULL)
				end = line + strlen(line) - 1;
			fprintf(h->out, "%d,%.*s", i + 1, (int)(end - line + 1), line);
			if (end[1] == '\0')
				break;
		}
	}
	free(text);
	return rc;
}

static void heading(const struct heads_report *h, const char *text)
{
	if (h->pr->be->heads_heading != NULL)
		h->pr->be->heads_heading(h, text);
}

static void sentence(const struct heads_report *h, const char *text)
{
	if (h->pr->be->heads_sentence != NULL)
		h->pr->be->heads_sentence(h, text);
}

int print_heads(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
		const struct print_options *o)
{
	const struct print_backend *be = print_backend_of(o->format);
	struct printer pr = { .out = out, .be = be, .p = p, .decimals = o->decimals };
	const struct heads_report h = { .out = out, .p = p, .t = t, .o = o, .pr = &pr };
	const struct heads_table tables[3] = {
		{ "concat", "Concat — the heads' outputs side by side", &t->concat, false, true },
		{ "W_O", "W_O — the output projection", &p->w_o, true, false },
		{ "output", "Output — Concat · W_O", &t->output, false, false },
	};
	char text[4096];
	int row, col;

	if (t->h < 1 || t->m < 1 || !print_format_heads(o->format))
		return -1;
	if (be->heads != NULL) {
		be->heads(&h);
		return fflush(out) != 0 || ferror(out) ? -1 : 0;
	}
	for (int i = 0; i < t->h; i++) {
		snprintf(text, sizeof text, "Head %d of %d", i + 1, t->h);
		heading(&h, text);
		if (head_report(&h, be, i) != 0)
			return -1;
		if (!be->heads_numbered_rows)
			fputc('\n', out);
	}
	heading(&h, "The heads together: concatenation and output projection");
	for (int k = 0; k < 3 && be->heads_table != NULL; k++)
		be->heads_table(&h, &tables[k]);
	row = o->cell_row < t->m ? o->cell_row : t->m - 1;
	col = o->cell_col < t->output.cols ? o->cell_col : t->output.cols - 1;
	if (qkv_heads_derive(text, sizeof text, p, t, 7, row, col, o->decimals) > 0)
		sentence(&h, text);
	if (qkv_heads_cost_words(text, sizeof text, t) > 0)
		sentence(&h, text);
	return pr.out_of_memory || fflush(out) != 0 || ferror(out) ? -1 : 0;
}
