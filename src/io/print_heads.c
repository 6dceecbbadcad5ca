/* print_heads.c — a multi-head problem on paper. Each head is reported by the
 * one-head printer (print_trace on the head's view), so every head reads as a
 * one-head report does; this file adds the section headings, the concatenation,
 * W_O and the output, and the JSON object {"h", "heads": [...], "concat", "W_O",
 * "output", "X", ...}. Every number comes from the multi-head trace. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "io/print_heads.h"
#include "qkv/format.h"

/* --- JSON ---------------------------------------------------------------------- */

static void json_text(FILE *out, const char *s)
{
	json_t *string = s != NULL ? json_string(s) : NULL;
	char *text = string != NULL ? json_dumps(string, JSON_ENCODE_ANY) : NULL;

	/* jansson refuses text that is not UTF-8: it is written as null then. */
	fputs(text != NULL ? text : "null", out);
	free(text);
	json_decref(string);
}

static void json_number(FILE *out, double value)
{
	fprintf(out, "%.17g", value);
}

/* A matrix as rows of numbers; masked (query, key) entries null when masked is set. */
static void json_matrix(FILE *out, const char *indent, const char *key,
			const struct qkv_matrix *m, const struct qkv_trace *masked, bool last)
{
	fprintf(out, "%s\"%s\": [", indent, key);
	for (int r = 0; r < m->rows && !ferror(out); r++) {
		fprintf(out, "%s\n%s  [", r > 0 ? "," : "", indent);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", out);
			if (masked != NULL && qkv_trace_is_masked(masked, r, c))
				fputs("null", out);
			else
				json_number(out, qkv_matrix_get(m, r, c));
		}
		fputc(']', out);
	}
	fprintf(out, "\n%s]%s\n", indent, last ? "" : ",");
}

static void json_head(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t, int i,
		      bool last)
{
	const char *in = "      ";

	fputs("    {\n", out);
	json_matrix(out, in, "W_Q", &p->heads[i].w_q, NULL, false);
	json_matrix(out, in, "W_K", &p->heads[i].w_k, NULL, false);
	json_matrix(out, in, "W_V", &p->heads[i].w_v, NULL, false);
	json_matrix(out, in, "Q", &t->q, NULL, false);
	json_matrix(out, in, "K", &t->k, NULL, false);
	json_matrix(out, in, "V", &t->v, NULL, false);
	json_matrix(out, in, "scores", &t->scores, t, false);
	json_matrix(out, in, "scaled", &t->scaled, t, false);
	json_matrix(out, in, "weights", &t->weights, NULL, false);
	json_matrix(out, in, "output", &t->output, NULL, false);
	fputs("      \"stats\": {\n        \"score_variance\": ", out);
	json_number(out, t->score_variance);
	fputs(",\n        \"rows\": [", out);
	for (int r = 0; r < t->n; r++) {
		const struct qkv_row_stats *s = &t->rows[r];

		fputs(r > 0 ? ",\n          {" : "\n          {", out);
		fputs("\"max_weight\": ", out);
		json_number(out, s->max_weight);
		fputs(", \"entropy\": ", out);
		json_number(out, s->entropy);
		fputs(", \"effective_tokens\": ", out);
		json_number(out, s->effective_tokens);
		fputs(", \"jacobian_norm\": ", out);
		json_number(out, s->jacobian_norm);
		fputc('}', out);
	}
	fprintf(out, "\n        ]\n      }\n    }%s\n", last ? "" : ",");
}

static void json_report(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t)
{
	const struct qkv_trace *first = &t->head[0];

	fputs("{\n  \"title\": ", out);
	json_text(out, p->title);
	fputs(",\n  \"tokens\": [", out);
	for (int i = 0; i < t->n; i++) {
		if (i > 0)
			fputs(", ", out);
		json_text(out, p->tokens[i]);
	}
	fprintf(out, "],\n  \"n\": %d,\n  \"h\": %d,\n  \"d_model\": %d,\n  \"d_k\": %d,\n"
		     "  \"d_v\": %d,\n  \"divisor\": ", t->n, t->h, t->d_model, first->d_k, t->d_v);
	json_number(out, first->divisor);
	fputs(",\n  \"scale\": ", out);
	if (p->scale == QKV_SCALE_CUSTOM)
		json_number(out, p->scale_value);
	else
		json_text(out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	fputs(",\n  \"temperature\": ", out);
	json_number(out, p->temperature);
	fprintf(out, ",\n  \"mask\": \"%s\",\n", qkv_mask_name(p->mask));
	json_matrix(out, "  ", "X", &p->x, NULL, false);
	fputs("  \"heads\": [\n", out);
	for (int i = 0; i < t->h; i++)
		json_head(out, p, &t->head[i], i, i == t->h - 1);
	fputs("  ],\n", out);
	json_matrix(out, "  ", "concat", &t->concat, NULL, false);
	json_matrix(out, "  ", "W_O", &p->w_o, NULL, false);
	json_matrix(out, "  ", "output", &t->output, NULL, true);
	fputs("}\n", out);
}

/* --- tables of the concatenation, W_O and the output ------------------------------ */

/* LaTeX's special characters escaped, for labels in running text. */
static void latex_text(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '\\': fputs("\\textbackslash{}", out); break;
		case '~': fputs("\\textasciitilde{}", out); break;
		case '^': fputs("\\textasciicircum{}", out); break;
		case '#': case '$': case '%': case '&': case '_': case '{': case '}':
			fputc('\\', out);
			fputc(*s, out);
			break;
		default: fputc(*s, out); break;
		}
	}
}

/* Markdown's table cells: '|' and '\' escaped. */
static void markdown_text(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* CSV's quoted field when it needs one; a label a spreadsheet would run as a
 * formula (starting with =, +, -, @, a tab or a carriage return) gets a ' first. */
static void csv_text(FILE *out, const char *s)
{
	if (strchr("=+-@\t\r", s[0]) != NULL && s[0] != '\0') {
		char guarded[QKV_MAX_LABEL * 2 + 32];

		snprintf(guarded, sizeof guarded, "'%s", s);
		if (strpbrk(guarded, ",\"\n\r") == NULL) {
			fputs(guarded, out);
			return;
		}
		s = guarded;
		fputc('"', out);
		for (; *s != '\0'; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
		return;
	}
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Row r's label: a token, or "hIdJ" for W_O's rows (head I's output column J). */
static void row_label(char *buf, size_t size, const struct qkv_problem *p, bool head_rows,
		      int d_v, int r)
{
	if (head_rows)
		snprintf(buf, size, "h%dd%d", r / d_v + 1, r % d_v + 1);
	else
		snprintf(buf, size, "%s", p->tokens[r]);
}

/* Column c's label: "hIdJ" for the concatenation's, "dJ" otherwise. */
static void col_label(char *buf, size_t size, bool head_cols, int d_v, int c)
{
	if (head_cols)
		snprintf(buf, size, "h%dd%d", c / d_v + 1, c % d_v + 1);
	else
		snprintf(buf, size, "d%d", c + 1);
}

struct heads_table {
	const char *name, *title;
	const struct qkv_matrix *m;
	bool head_rows, head_cols;
};

static void table(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
		  const struct heads_table *tb, const struct print_options *o)
{
	char label[QKV_MAX_LABEL * 2 + 16], number[64];
	int d_v = t->d_v, width = 2;

	switch (o->format) {
	case PRINT_CSV:
		for (int r = 0; r < tb->m->rows; r++)
			for (int c = 0; c < tb->m->cols; c++) {
				row_label(label, sizeof label, p, tb->head_rows, d_v, r);
				fprintf(out, ",%s,", tb->name);
				csv_text(out, label);
				col_label(label, sizeof label, tb->head_cols, d_v, c);
				fprintf(out, ",%s,%d,%d,%.17g\n", label, r + 1, c + 1,
					qkv_matrix_get(tb->m, r, c));
			}
		return;
	case PRINT_LATEX:
		fputs("\\paragraph{", out);
		latex_text(out, tb->title);
		fprintf(out, " (%d $\\times$ %d)}\n\\[\n", tb->m->rows, tb->m->cols);
		latex_text(out, tb->name);
		fputs(" = \\begin{pmatrix}\n", out);
		for (int r = 0; r < tb->m->rows; r++) {
			for (int c = 0; c < tb->m->cols; c++) {
				qkv_format_number(number, sizeof number, qkv_matrix_get(tb->m, r, c), o->decimals);
				fprintf(out, "%s%s", c > 0 ? " & " : "", number);
			}
			fputs(r + 1 < tb->m->rows ? " \\\\\n" : "\n", out);
		}
		fputs("\\end{pmatrix}\n\\]\n\n", out);
		return;
	case PRINT_MARKDOWN:
		fprintf(out, "## %s (%d × %d)\n\n|       |", tb->title, tb->m->rows, tb->m->cols);
		for (int c = 0; c < tb->m->cols; c++) {
			col_label(label, sizeof label, tb->head_cols, d_v, c);
			fprintf(out, " %s |", label);
		}
		fputs("\n|---|", out);
		for (int c = 0; c < tb->m->cols; c++)
			fputs("---:|", out);
		fputc('\n', out);
		for (int r = 0; r < tb->m->rows; r++) {
			row_label(label, sizeof label, p, tb->head_rows, d_v, r);
			fputs("| ", out);
			markdown_text(out, label);
			fputs(" |", out);
			for (int c = 0; c < tb->m->cols; c++) {
				qkv_format_number(number, sizeof number, qkv_matrix_get(tb->m, r, c), o->decimals);
				fprintf(out, " %s |", number);
			}
			fputc('\n', out);
		}
		fputc('\n', out);
		return;
	case PRINT_TEXT:
	default:
		for (int r = 0; r < tb->m->rows; r++)
			for (int c = 0; c < tb->m->cols; c++) {
				int w = qkv_format_number(number, sizeof number, qkv_matrix_get(tb->m, r, c),
							  o->decimals);
				if (w > width)
					width = w;
			}
		fprintf(out, "%s (%d × %d)\n%10s", tb->title, tb->m->rows, tb->m->cols, "");
		for (int c = 0; c < tb->m->cols; c++) {
			col_label(label, sizeof label, tb->head_cols, d_v, c);
			fprintf(out, "  %*s", width, label);
		}
		fputc('\n', out);
		for (int r = 0; r < tb->m->rows; r++) {
			row_label(label, sizeof label, p, tb->head_rows, d_v, r);
			fprintf(out, "  %-8.8s", label);
			for (int c = 0; c < tb->m->cols; c++) {
				qkv_format_number(number, sizeof number, qkv_matrix_get(tb->m, r, c), o->decimals);
				fprintf(out, "  %*s", width, number);
			}
			fputc('\n', out);
		}
		fputc('\n', out);
		return;
	}
}

/* A section heading in the format. */
static void heading(FILE *out, enum print_format format, const char *text)
{
	switch (format) {
	case PRINT_MARKDOWN: fprintf(out, "# %s\n\n", text); break;
	case PRINT_LATEX:
		fputs("\\section*{", out);
		latex_text(out, text);
		fputs("}\n\n", out);
		break;
	case PRINT_CSV: break;
	case PRINT_TEXT:
	default: fprintf(out, "════ %s ════\n\n", text); break;
	}
}

/* A sentence in the format. */
static void sentence(FILE *out, enum print_format format, const char *text)
{
	if (format == PRINT_CSV)
		return;
	if (format == PRINT_LATEX) {
		latex_text(out, text);
		fputs("\n\n", out);
	} else {
		fprintf(out, "%s\n\n", text);
	}
}

/* One head's one-head report; CSV rows get the head's number in a first column
 * (the header row once, with "head" in front). */
static int head_report(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
		       int i, const struct print_options *o)
{
	struct qkv_problem view;
	char *text = NULL;
	size_t length = 0;
	FILE *memory;
	int rc;

	qkv_problem_head_view(p, i, &view);
	if (o->format != PRINT_CSV)
		return print_trace(out, &view, &t->head[i], o);
	memory = open_memstream(&text, &length);
	if (memory == NULL)
		return -1;
	rc = print_trace(memory, &view, &t->head[i], o);
	if (fclose(memory) != 0)
		rc = -1;
	if (rc == 0) {
		char *line = text, *end;

		/* The header row: once, for the first head. */
		end = strchr(line, '\n');
		if (end != NULL && i == 0)
			fprintf(out, "head,%.*s", (int)(end - line + 1), line);
		line = end != NULL ? end + 1 : line + strlen(line);
		for (; *line != '\0'; line = end + 1) {
			end = strchr(line, '\n');
			if (end == NULL)
				end = line + strlen(line) - 1;
			fprintf(out, "%d,%.*s", i + 1, (int)(end - line + 1), line);
			if (end[1] == '\0')
				break;
		}
	}
	free(text);
	return rc;
}

int print_heads(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
		const struct print_options *o)
{
	char text[4096];
	const struct heads_table tables[3] = {
		{ "concat", "Concat — the heads' outputs side by side", &t->concat, false, true },
		{ "W_O", "W_O — the output projection", &p->w_o, true, false },
		{ "output", "Output — Concat · W_O", &t->output, false, false },
	};
	int row, col;

	if (t->h < 1 || t->n < 1)
		return -1;
	if (o->format == PRINT_JSON) {
		json_report(out, p, t);
		return fflush(out) != 0 || ferror(out) ? -1 : 0;
	}
	for (int i = 0; i < t->h; i++) {
		snprintf(text, sizeof text, "Head %d of %d", i + 1, t->h);
		heading(out, o->format, text);
		if (head_report(out, p, t, i, o) != 0)
			return -1;
		if (o->format != PRINT_CSV)
			fputc('\n', out);
	}
	heading(out, o->format, "The heads together: concatenation and output projection");
	for (int k = 0; k < 3; k++)
		table(out, p, t, &tables[k], o);
	row = o->cell_row < t->n ? o->cell_row : t->n - 1;
	col = o->cell_col < t->output.cols ? o->cell_col : t->output.cols - 1;
	if (qkv_heads_derive(text, sizeof text, p, t, 7, row, col, o->decimals) > 0)
		sentence(out, o->format, text);
	if (qkv_heads_cost_words(text, sizeof text, t) > 0)
		sentence(out, o->format, text);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
