/* print_latex.c — the printer's LaTeX format: paragraphs to paste into course
 * notes, each matrix a pmatrix after a sentence naming its rows and columns,
 * numbers in math ("1.5 \times 10^{7}"), derivations in typewriter type; it
 * compiles with pdflatex and \usepackage{amsmath} alone. */
#include <stdlib.h>
#include <string.h>

#include "io/report/print_model.h"
#include "qkv/format.h"
#include "qkv/text.h"

/* The printer's own glyphs (and the derivations') in LaTeX text, so a handout
 * compiles with pdflatex and amsmath alone. */
static const char *const latex_glyphs[][2] = {
	{ "—", "---" }, { "×", "$\\times$" }, { "·", "$\\cdot$" }, { "Σ", "$\\Sigma$" },
	{ "√", "$\\surd$" }, { "÷", "$\\div$" }, { "≤", "$\\le$" }, { "τ", "$\\tau$" },
	{ "ᵀ", "$^\\top$" }, { "−", "$-$" }, { "≈", "$\\approx$" }, { "…", "\\ldots{}" },
	{ "∞", "$\\infty$" }, { "→", "$\\to$" },
};

/* Copies src to dst escaped for LaTeX text mode: the ten special characters,
 * < > | (the default font encoding has no glyphs for them) and the glyphs above;
 * never cuts a character or an escape in two. */
static void latex_escape(char *dst, size_t size, const char *src)
{
	size_t used = 0;

	dst[0] = '\0';
	while (*src != '\0') {
		const char *with = NULL;
		char plain[5] = { '\0' };
		size_t consumed = 1;

		for (size_t g = 0; g < sizeof latex_glyphs / sizeof *latex_glyphs; g++) {
			size_t glyph = strlen(latex_glyphs[g][0]);
			if (strncmp(src, latex_glyphs[g][0], glyph) == 0) {
				with = latex_glyphs[g][1];
				consumed = glyph;
				break;
			}
		}
		if (with == NULL) {
			switch (*src) {
			case '\\': with = "\\textbackslash{}"; break;
			case '~': with = "\\textasciitilde{}"; break;
			case '^': with = "\\textasciicircum{}"; break;
			case '<': with = "\\textless{}"; break;
			case '>': with = "\\textgreater{}"; break;
			case '|': with = "\\textbar{}"; break;
			case '&': case '%': case '$': case '#': case '_': case '{': case '}':
				plain[0] = '\\';
				plain[1] = *src;
				with = plain;
				break;
			default:
				consumed = qkv_utf8_length(src);
				memcpy(plain, src, consumed);
				with = plain;
				break;
			}
		}
		size_t length = strlen(with);
		if (used + length + 1 > size)
			break;
		memcpy(dst + used, with, length + 1);
		used += length;
		src += consumed;
	}
}

/* A number in LaTeX math: "1.5e+07" becomes "1.5 \times 10^{7}". */
static void latex_number(char *dst, size_t size, const char *number)
{
	const char *e = strchr(number, 'e');

	if (e == NULL) {
		snprintf(dst, size, "%s", number);
		return;
	}
	long exponent = strtol(e + 1, NULL, 10);
	snprintf(dst, size, "%.*s \\times 10^{%ld}", (int)(e - number), number, exponent);
}

static void latex_heading(struct printer *pr, int level, const char *text)
{
	fprintf(pr->out, "\\%s{", level == 1 ? "subsection*" : "paragraph");
	print_escaped(pr, text);
	fputs("}\n", pr->out);
}

static void latex_prose(struct printer *pr, const char *text)
{
	print_escaped(pr, text);
	fputs("\n\n", pr->out);
}

static void latex_gap(struct printer *pr)
{
	fputc('\n', pr->out);
}

/* Comma-separated labels of a table's rows or columns, escaped for LaTeX. */
static void latex_labels(struct printer *pr, enum label_kind kind, int count)
{
	char raw[CELL_SIZE], cell[CELL_SIZE];

	for (int i = 0; i < count; i++) {
		print_label(pr, kind, i, raw, sizeof raw);
		latex_escape(cell, sizeof cell, raw);
		fprintf(pr->out, "%s\\texttt{%s}", i > 0 ? ", " : "", cell);
	}
}

/* The divisor as LaTeX math, e.g. "\sqrt{2} \approx 1.4142". */
static void latex_divisor(const struct printer *pr, char *buf, size_t size)
{
	struct divisor_parts d;
	const char *divisor = d.divisor, *tau = d.tau, *custom = d.custom;

	print_divisor_parts(pr, &d);
	switch (pr->p->scale) {
	case QKV_SCALE_SQRT_DK:
		if (d.plain)
			snprintf(buf, size, "\\sqrt{d_k} = \\sqrt{%d} \\approx %s", d.d_k, divisor);
		else
			snprintf(buf, size, "\\tau\\sqrt{d_k} = %s\\sqrt{%d} \\approx %s",
				 tau, d.d_k, divisor);
		break;
	case QKV_SCALE_NONE:
		snprintf(buf, size, "%s = %s", d.plain ? "1" : "\\tau", d.plain ? "1" : divisor);
		break;
	case QKV_SCALE_CUSTOM:
		if (d.plain)
			snprintf(buf, size, "c = %s", divisor);
		else
			snprintf(buf, size, "\\tau c = %s \\cdot %s \\approx %s", tau, custom, divisor);
		break;
	}
}

/* A comment for whoever pastes it, then a short paragraph of facts. */
static void latex_header(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	char divisor[DIVISOR_SIZE];

	fputs("% Written by qkv. Needs \\usepackage{amsmath}. Titles and labels are as written\n"
	      "% (UTF-8): a script other than Latin needs XeLaTeX, LuaLaTeX or a package for it.\n",
	      pr->out);
	latex_heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0')
		latex_prose(pr, p->notes);
	latex_divisor(pr, divisor, sizeof divisor);
	if (qkv_problem_is_cross(p)) {
		fprintf(pr->out, "$m = %d$ quer%s (", pr->t->m, pr->t->m == 1 ? "y" : "ies");
		latex_labels(pr, LABEL_QUERY, pr->t->m);
		fputs(") attending to ", pr->out);
	}
	fprintf(pr->out, "$n = %d$ tokens (", pr->t->n);
	latex_labels(pr, LABEL_TOKEN, pr->t->n);
	if (p->form == QKV_FORM_PROJECTED)
		fprintf(pr->out, "), $d_{\\text{model}} = %d$", qkv_problem_d_model(p));
	else
		fputs(")", pr->out);
	fprintf(pr->out, ", $d_k = %d$, $d_v = %d$; the scores are divided by $%s$; mask: ",
		pr->t->d_k, pr->t->d_v, divisor);
	if (p->mask == QKV_MASK_CAUSAL)
		fputs("causal (query $i$ sees keys $j \\le i$)", pr->out);
	else
		print_escaped(pr, print_mask_text(p));
	fputs(".\n", pr->out);
	if (print_has_padding(p)) {
		fputs("Padding, hidden as keys from every query: ", pr->out);
		print_padding(pr);
		fputs(".\n", pr->out);
	}
	if (print_wrong_text(p) != NULL) {
		fputs("Note: ", pr->out);
		print_escaped(pr, print_wrong_text(p));
		fputs(".\n", pr->out);
	}
	if (print_masked_pairs(pr->t) > 0)
		fputs("A dash (---) marks a masked entry: the key is hidden from that query; "
		      "its score is not used and its weight is 0.\n", pr->out);
	fputc('\n', pr->out);
}

/* A \paragraph with the stage's formula in math. */
static void latex_stage_title(struct printer *pr, enum qkv_stage stage)
{
	static const char *const formulas[QKV_STAGE_COUNT] = {
		"Q = X W_Q,\\quad K = X W_K,\\quad V = X W_V",
		"S = Q K^\\top",
		"S' = S / d",
		"A = \\operatorname{softmax}(S') \\text{ by rows}",
		"a_{ij}\\, v_j",
		"O = A V",
	};
	char divisor[DIVISOR_SIZE];

	fprintf(pr->out, "\\paragraph{Stage %d --- %s} $%s$", (int)stage,
		qkv_stage_name(stage), formulas[stage]);
	if (stage == QKV_STAGE_SCALED) {
		latex_divisor(pr, divisor, sizeof divisor);
		fprintf(pr->out, ", with $d = %s$", divisor);
	}
	fputs(".\n", pr->out);
}

/* A matrix: a sentence naming rows and columns, then a pmatrix (the mix table's
 * sum row as a second equation). */
static void latex_matrix(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (tb->kind == TABLE_MIX)
		rows--;
	fprintf(pr->out, "Rows: %s%s", tb->row_role != NULL ? tb->row_role : "",
		tb->row_role != NULL ? " " : "");
	latex_labels(pr, tb->row_kind, rows);
	fprintf(pr->out, "; columns: %s%s", tb->col_role != NULL ? tb->col_role : "",
		tb->col_role != NULL ? " " : "");
	latex_labels(pr, tb->col_kind, cols);
	fputs(".\n", pr->out);
	if (cols > 10)
		fprintf(pr->out, "\\setcounter{MaxMatrixCols}{%d}\n", cols);
	fprintf(pr->out, "\\[\n%s = \\begin{pmatrix}\n", tb->tex_name);
	for (int r = 0; r < rows && !print_stopped(pr); r++) {
		for (int c = 0; c < cols; c++) {
			if (print_table_masked(pr, tb, r, c)) {
				fputs(c > 0 ? " & \\text{---}" : "\\text{---}", pr->out);
				continue;
			}
			print_table_cell(pr, tb, r, c, cell, sizeof cell);
			fprintf(pr->out, "%s%s", c > 0 ? " & " : "", cell);
		}
		fputs(r + 1 < rows ? " \\\\\n" : "\n", pr->out);
	}
	fputs("\\end{pmatrix}\n\\]\n", pr->out);
	if (tb->kind == TABLE_MIX) {
		char query[CELL_SIZE];

		print_label(pr, LABEL_QUERY, tb->query, cell, sizeof cell);
		latex_escape(query, sizeof query, cell);
		fputs("\\[\n\\textstyle\\sum_j a_{ij}\\, v_j = \\begin{pmatrix}", pr->out);
		for (int c = 0; c < cols; c++) {
			print_table_cell(pr, tb, rows, c, cell, sizeof cell);
			fprintf(pr->out, "%s%s", c > 0 ? " & " : " ", cell);
		}
		fprintf(pr->out, " \\end{pmatrix} \\quad\\text{(output row \\texttt{%s})}\n\\]\n",
			query);
	}
}

/* The statistics: a tabular with one line per query. */
static void latex_stats(struct printer *pr, const struct table *tb)
{
	char cell[CELL_SIZE];

	fputs("\n\\begin{tabular}{lrlrrr}\n", pr->out);
	for (int r = -1; r < pr->t->m && !print_stopped(pr); r++) {
		for (int c = -1; c < STATS_COLUMNS; c++) {
			print_table_cell(pr, tb, r, c, cell, sizeof cell);
			fprintf(pr->out, "%s%s", c >= 0 ? " & " : "", cell);
		}
		fputs(r < 0 ? " \\\\ \\hline\n" : " \\\\\n", pr->out);
	}
	fputs("\\end{tabular}\n", pr->out);
}

static void latex_table(struct printer *pr, const struct table *tb)
{
	if (tb->kind == TABLE_STATS)
		latex_stats(pr, tb);
	else
		latex_matrix(pr, tb);
}

/* The derivation in typewriter type, a paragraph a line, escaped like the prose
 * (not verbatim: its signs would need a preamble of their own for pdflatex, and a
 * long line now wraps at its spaces instead of running off the page). */
static void latex_derivation(struct printer *pr, const char *text)
{
	size_t longest = 0;
	char *line, *escaped;

	for (const char *at = text; *at != '\0';) {
		size_t length = strcspn(at, "\n");
		if (length > longest)
			longest = length;
		at += length + (at[length] == '\n');
	}
	/* An escape is at most 18 bytes ("\textasciicircum{}") for each byte. */
	line = malloc(longest + 1);
	escaped = malloc(18 * longest + 1);
	if (line == NULL || escaped == NULL) {
		free(line);
		free(escaped);
		pr->out_of_memory = true;
		return;
	}
	fputs("\\begin{flushleft}\\ttfamily\n", pr->out);
	for (const char *at = text; *at != '\0';) {
		size_t length = strcspn(at, "\n");
		memcpy(line, at, length);
		line[length] = '\0';
		latex_escape(escaped, 18 * longest + 1, line);
		fprintf(pr->out, "%s\\par\n", escaped);
		at += length + (at[length] == '\n');
	}
	fputs("\\end{flushleft}\n", pr->out);
	free(line);
	free(escaped);
}

static int latex_sweep(FILE *out, const struct sweep_report *s)
{
	char cell[NUMBER_SIZE], tex[NUMBER_SIZE * 2];

	fprintf(out, "%% Written by qkv: d_k sweep, %d tokens, %d trials, seed %llu.\n"
		"\\begin{tabular}{r|rrrr|rrrr}\n"
		" & \\multicolumn{4}{c|}{scaled by $\\sqrt{d_k}$} & \\multicolumn{4}{c}{unscaled} \\\\\n"
		"$d_k$ & variance & max $a$ & $H / \\ln n$ & $\\|J\\|_F$"
		" & variance & max $a$ & $H / \\ln n$ & $\\|J\\|_F$ \\\\ \\hline\n",
		s->tokens, s->trials, s->seed);
	for (int r = 0; r < s->count; r++) {
		for (int c = 0; c < 9; c++) {
			print_sweep_cell(s->points, r, c, cell, sizeof cell);
			latex_number(tex, sizeof tex, cell);
			fprintf(out, "%s$%s$", c > 0 ? " & " : "", tex);
		}
		fputs(" \\\\\n", out);
	}
	fputs("\\end{tabular}\n", out);
	return 0;
}

/* --- multi-head reports --- */

static void latex_heads_heading(const struct heads_report *h, const char *text)
{
	fputs("\\section*{", h->out);
	print_escaped(h->pr, text);
	fputs("}\n\n", h->out);
}

static void latex_heads_sentence(const struct heads_report *h, const char *text)
{
	print_escaped(h->pr, text);
	fputs("\n\n", h->out);
}

/* A paragraph heading with the title and size, then the matrix as a pmatrix. */
static void latex_heads_table(const struct heads_report *h, const struct heads_table *tb)
{
	const struct qkv_matrix *m = tb->m;
	char number[NUMBER_SIZE];
	FILE *out = h->out;

	fputs("\\paragraph{", out);
	print_escaped(h->pr, tb->title);
	fprintf(out, " (%d $\\times$ %d)}\n\\[\n", m->rows, m->cols);
	print_escaped(h->pr, tb->name);
	fputs(" = \\begin{pmatrix}\n", out);
	for (int r = 0; r < m->rows; r++) {
		for (int c = 0; c < m->cols; c++) {
			qkv_format_number(number, sizeof number, qkv_matrix_get(m, r, c), h->o->decimals);
			fprintf(out, "%s%s", c > 0 ? " & " : "", number);
		}
		fputs(r + 1 < m->rows ? " \\\\\n" : "\n", out);
	}
	fputs("\\end{pmatrix}\n\\]\n\n", out);
}

const struct print_backend print_latex_backend = {
	.name = "latex",
	.header = latex_header,
	.stage_title = latex_stage_title,
	.heading = latex_heading,
	.prose = latex_prose,
	.gap = latex_gap,
	.table = latex_table,
	.wrong_sums = print_wrong_sums_prose,
	.derivation = latex_derivation,
	.escape = latex_escape,
	.number = latex_number,
	.table_names_axes = true,
	.min_width = 0,
	.sweep = latex_sweep,
	.heads_heading = latex_heads_heading,
	.heads_table = latex_heads_table,
	.heads_sentence = latex_heads_sentence,
};
