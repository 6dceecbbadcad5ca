/* print_latex.c — the printer's LaTeX format: paragraphs to paste into course
 * notes or a Beamer frame, each matrix a pmatrix after a sentence naming its rows
 * and columns, numbers in math ("1.5 \times 10^{7}"), sentences and derivations
 * with their formulas as math (latex_text.c). Nothing runs into the margin: a
 * matrix or table wider than a page is written in column groups that fit one
 * (the type keeps its size), a derivation wraps at its spaces. It compiles with
 * pdflatex or lualatex and \usepackage{amsmath} alone, and with --standalone
 * it is a whole document (latex_document_begin). */
#include <stdlib.h>
#include <string.h>

#include "io/report/latex_text.h"
#include "io/report/print_model.h"
#include "qkv/format.h"
#include "qkv/text.h"

static void latex_escape(char *dst, size_t size, const char *src)
{
	latex_text_escape(dst, size, src);
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

/* The title, bold and large; written without \subsection or \paragraph, which a
 * Beamer frame does not have. */
static void latex_title(FILE *out, struct printer *pr, const char *text)
{
	fputs("\\par\\bigskip\\noindent{\\large\\bfseries ", out);
	print_escaped(pr, text);
	fputs("\\par}\\nopagebreak\\medskip\n", out);
}

/* A run-in bold heading (its formulas as math), the paragraph going on after it. */
static void latex_run_in(FILE *out, const struct qkv_problem *p, const char *text)
{
	fputs("\\par\\medskip\\noindent\\textbf{", out);
	latex_text_math(out, text, p);
	fputs("}\\quad\n", out);
}

static void latex_heading(struct printer *pr, int level, const char *text)
{
	if (level == 1)
		latex_title(pr->out, pr, text);
	else
		latex_run_in(pr->out, pr->p, text);
}

static void latex_prose(struct printer *pr, const char *text)
{
	latex_text_math(pr->out, text, pr->p);
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
		fprintf(pr->out, "%s\\texttt{", i > 0 ? ", " : "");
		/* A long label may break anywhere: typewriter type is not hyphenated. */
		if (strlen(raw) > LATEX_LONG_LABEL) {
			latex_text_breakable(pr->out, raw);
		} else {
			latex_escape(cell, sizeof cell, raw);
			fputs(cell, pr->out);
		}
		fputc('}', pr->out);
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
	      "% (UTF-8): a script other than Latin needs XeLaTeX, LuaLaTeX or a package for it.\n"
	      "% Its matrices and tables are at most 270 pt wide at 10 pt type (297 pt at 11 pt), so it\n"
	      "% fits an article's text width (345 pt) or a Beamer frame's (307 pt; a report longer\n"
	      "% than a frame: \\begin{frame}[allowframebreaks]).\n",
	      pr->out);
	latex_heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0') {
		print_escaped(pr, p->notes);
		fputs("\n\n", pr->out);
	}
	latex_divisor(pr, divisor, sizeof divisor);
	if (qkv_problem_is_cross(p)) {
		fprintf(pr->out, "{\\raggedright $m = %d$ quer%s (", pr->t->m, pr->t->m == 1 ? "y" : "ies");
		latex_labels(pr, LABEL_QUERY, pr->t->m);
		fputs(") attending to ", pr->out);
	}
	fprintf(pr->out, "%s$n = %d$ tokens (", qkv_problem_is_cross(p) ? "" : "{\\raggedright ", pr->t->n);
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
	fputs(".\\par}\n", pr->out);
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

/* A run-in heading with the stage's formula in math. */
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

	fprintf(pr->out, "\\par\\medskip\\noindent\\textbf{Stage %d --- %s}\\quad $%s$", (int)stage,
		qkv_stage_name(stage), formulas[stage]);
	if (stage == QKV_STAGE_SCALED) {
		latex_divisor(pr, divisor, sizeof divisor);
		fprintf(pr->out, ", with $d = %s$", divisor);
	}
	fputs(".\n", pr->out);
}

/* The LaTeX of cell (r, c) of a pmatrix. */
typedef void (*latex_cell)(const void *data, int r, int c, char *buf, size_t size);

/* name = a pmatrix of rows × cols cells, in display math; `after` (text, may be
 * empty) follows it. A matrix wider than the page is written in column groups
 * that fit, and one of more than LATEX_FIT_LINES − 2 rows in runs of that many
 * rows (latex_text_runs: so that a page or a Beamer frame can break between them), each part after
 * a line saying which rows and columns of which matrix it holds. */
static void latex_pmatrix(struct printer *pr, const char *name, const char *after, double fixed, int rows,
			  int cols, latex_cell cell, const void *data)
{
	FILE *out = pr->out;
	double *widths = calloc((size_t)cols + 1, sizeof *widths);
	int *starts = malloc(((size_t)cols + 2) * sizeof *starts);
	int *lines = malloc(((size_t)rows + 1) * sizeof *lines), *tops = malloc(((size_t)rows + 2) * sizeof *tops);
	char text[CELL_SIZE];
	int groups, runs;

	if (widths == NULL || starts == NULL || lines == NULL || tops == NULL) {
		free(widths);
		free(starts);
		free(lines);
		free(tops);
		pr->out_of_memory = true;
		return;
	}
	/* a line a row; the line before and the display's skips take two */
	for (int r = 0; r < rows; r++)
		lines[r] = 1;
	runs = latex_text_runs(lines, rows, 2, tops);
	for (int c = 0; c < cols; c++) {
		for (int r = 0; r < rows; r++) {
			double width;

			cell(data, r, c, text, sizeof text);
			width = strcmp(text, "\\text{---}") == 0 ? 10.0 : latex_text_width(text);
			if (width > widths[c])
				widths[c] = width;
		}
		widths[c] += 10.0; /* \arraycolsep on both sides */
	}
	groups = latex_text_groups(widths, cols, fixed, starts);
	for (int g = 0; g < groups && !print_stopped(pr); g++) {
		int first = starts[g], last = starts[g + 1];
		bool whole = groups == 1 && runs <= 1;

		for (int k = 0; k < runs && !print_stopped(pr); k++) {
			int top = tops[k], bottom = tops[k + 1];

			if (runs > 1)
				fprintf(out, "\\noindent Rows %d--%d of %d%s", top + 1, bottom, rows,
					groups > 1 ? ", c" : " of ");
			else if (groups > 1)
				fputs("\\noindent C", out);
			if (groups > 1)
				fprintf(out, "olumns %d--%d of %d of ", first + 1, last, cols);
			if (!whole)
				fprintf(out, "$%s$%s%s:\n", name, after[0] != '\0' ? " " : "", after);
			if (last - first > 10)
				fprintf(out, "\\setcounter{MaxMatrixCols}{%d}\n", last - first);
			fprintf(out, "\\[\n" LATEX_NO_DEPTH "$\\displaystyle\n%s%s\\begin{pmatrix}\n", whole ? name : "",
				whole ? " = " : "");
			for (int r = top; r < bottom && !print_stopped(pr); r++) {
				for (int c = first; c < last; c++) {
					cell(data, r, c, text, sizeof text);
					fprintf(out, "%s%s", c > first ? " & " : "", text);
				}
				fputs(r + 1 < bottom ? " \\\\\n" : "\n", out);
			}
			fprintf(out, "\\end{pmatrix}%s%s$}\n\\]\n", whole && after[0] != '\0' ? "\\quad " : "",
				whole ? after : "");
		}
	}
	free(widths);
	free(starts);
	free(lines);
	free(tops);
}

/* A model table's cell (the mix table's sum row is row `offset` of the table). */
struct table_cells {
	struct printer *pr;
	const struct table *tb;
	int offset;
};

static void table_cell(const void *data, int r, int c, char *buf, size_t size)
{
	const struct table_cells *t = data;

	if (t->offset == 0 && print_table_masked(t->pr, t->tb, r, c))
		snprintf(buf, size, "\\text{---}");
	else
		print_table_cell(t->pr, t->tb, r + t->offset, c, buf, size);
}

/* A matrix: a sentence naming rows and columns, then a pmatrix (the mix table's
 * sum row as a second equation). */
static void latex_matrix(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	struct table_cells cells = { pr, tb, 0 };

	if (tb->kind == TABLE_MIX)
		rows--;
	/* Ragged right: a long label breaks anywhere, and a justified line could not stretch. */
	fprintf(pr->out, "{\\raggedright Rows: %s%s", tb->row_role != NULL ? tb->row_role : "",
		tb->row_role != NULL ? " " : "");
	latex_labels(pr, tb->row_kind, rows);
	fprintf(pr->out, "; columns: %s%s", tb->col_role != NULL ? tb->col_role : "",
		tb->col_role != NULL ? " " : "");
	latex_labels(pr, tb->col_kind, cols);
	fputs(".\\par}\n", pr->out);
	/* the name and " = (": 50 pt; the mix's "Σ_j a_ij v_j = (" and its note: 140 */
	latex_pmatrix(pr, tb->tex_name, "", 50.0, rows, cols, table_cell, &cells);
	if (tb->kind == TABLE_MIX) {
		char raw[CELL_SIZE], query[CELL_SIZE], after[CELL_SIZE + 64];

		bool long_label;

		print_label(pr, LABEL_QUERY, tb->query, raw, sizeof raw);
		long_label = strlen(raw) > LATEX_LONG_LABEL;
		latex_escape(query, sizeof query, raw);
		/* a long label cannot break in display math: it is named in a line of text before */
		if (long_label) {
			fputs("{\\raggedright The sum, output row \\texttt{", pr->out);
			latex_text_breakable(pr->out, raw);
			fputs("}:\\par}\n", pr->out);
		}
		after[0] = '\0';
		if (!long_label)
			snprintf(after, sizeof after, "\\text{(output row \\texttt{%s})}", query);
		cells.offset = rows;
		latex_pmatrix(pr, "\\textstyle\\sum_j a_{ij}\\, v_j", after,
			      140.0 + (long_label ? 0.0 : latex_text_width(raw)), 1, cols, table_cell, &cells);
	}
}

/* A statistics heading in two lines ("max" over "weight"), so the table is narrow. */
static void stats_heading(FILE *out, const char *heading)
{
	const char *space = strchr(heading, ' ');

	if (space == NULL) {
		fputs(heading, out);
		return;
	}
	fprintf(out, "\\begin{tabular}[b]{@{}c@{}}%.*s\\\\%s\\end{tabular}", (int)(space - heading), heading,
		space + 1);
}

/* A statistics cell: a label in a column of labels too wide for the page breaks
 * between its characters, ragged right in a box LATEX_LABEL_WIDTH wide; anything
 * else as the model writes it. */
static void stats_cell(struct printer *pr, const struct table *tb, int row, int col, bool breaks)
{
	char cell[CELL_SIZE];

	if (breaks && row >= 0) {
		print_table_text(pr, tb, row, col, cell, sizeof cell);
		fprintf(pr->out, "\\parbox[t]{%gpt}{\\raggedright ", LATEX_LABEL_WIDTH);
		latex_text_breakable(pr->out, cell);
		fputs("\\strut}", pr->out);
		return;
	}
	print_table_cell(pr, tb, row, col, cell, sizeof cell);
	if (row < 0)
		stats_heading(pr->out, cell);
	else
		fputs(cell, pr->out);
}

/* The lines statistics row r takes: one, or those of a label that breaks
 * (latex_text_label_lines). */
static int stats_row_lines(struct printer *pr, const struct table *tb, int row, bool labels_break,
			   bool keys_break)
{
	char cell[CELL_SIZE];
	int lines = 1;

	for (int c = -1; c <= 1; c += 2) {
		if (c < 0 ? !labels_break : !keys_break)
			continue;
		print_table_text(pr, tb, row, c, cell, sizeof cell);
		int label = latex_text_label_lines(cell);

		lines = label > lines ? label : lines;
	}
	return lines;
}

/* The statistics: tabulars with one line per query, its columns in groups that
 * fit the page (each group after the query column) and its rows in runs of at
 * most LATEX_FIT_LINES lines with the heading (each a tabular of its own, so
 * that a page or a Beamer frame can break between them). A column of labels (the
 * queries, the key of the largest weight) is at most LATEX_LABEL_WIDTH wide: a
 * wider label breaks in a box that wide. */
static void latex_stats(struct printer *pr, const struct table *tb)
{
	double widths[STATS_COLUMNS] = { 0 }, labels = 0.0;
	int starts[STATS_COLUMNS + 1], groups, count;
	int *runs = malloc(((size_t)pr->t->m + 2) * sizeof *runs), *lines = malloc(((size_t)pr->t->m + 1) * sizeof *lines);
	bool labels_break, keys_break;
	char cell[CELL_SIZE];

	if (runs == NULL || lines == NULL) {
		free(runs);
		free(lines);
		pr->out_of_memory = true;
		return;
	}
	for (int r = -1; r < pr->t->m; r++) {
		for (int c = -1; c < STATS_COLUMNS; c++) {
			double width;

			print_table_text(pr, tb, r, c, cell, sizeof cell);
			if (r < 0 && strchr(cell, ' ') != NULL) {
				/* the longer of the heading's two lines */
				const char *space = strchr(cell, ' ');
				double top = 6.0 * (double)(space - cell), bottom = 6.0 * (double)strlen(space + 1);

				width = top > bottom ? top : bottom;
			} else {
				width = latex_text_width(cell);
			}
			if (c < 0 && width > labels)
				labels = width;
			else if (c >= 0 && width > widths[c])
				widths[c] = width;
		}
	}
	labels_break = labels > LATEX_LABEL_WIDTH;
	keys_break = widths[1] > LATEX_LABEL_WIDTH;
	labels = labels_break ? LATEX_LABEL_WIDTH : labels;
	widths[1] = keys_break ? LATEX_LABEL_WIDTH : widths[1];
	for (int c = 0; c < STATS_COLUMNS; c++)
		widths[c] += 12.0; /* \tabcolsep on both sides */
	groups = latex_text_groups(widths, STATS_COLUMNS, labels + 12.0, starts);
	/* runs[k] is the first row of run k; the heading takes two lines */
	for (int r = 0; r < pr->t->m; r++)
		lines[r] = stats_row_lines(pr, tb, r, labels_break, keys_break);
	count = latex_text_runs(lines, pr->t->m, 2, runs);
	for (int g = 0; g < groups && !print_stopped(pr); g++) {
		for (int k = 0; k < count && !print_stopped(pr); k++) {
			fputs("\n\\noindent" LATEX_NO_DEPTH "\\begin{tabular}{l", pr->out);
			for (int c = starts[g]; c < starts[g + 1]; c++)
				fputc(c == 1 ? 'l' : 'r', pr->out);
			fputs("}\n", pr->out);
			for (int r = -1; r < runs[k + 1] && !print_stopped(pr); r = r < 0 ? runs[k] : r + 1) {
				for (int c = -1; c < STATS_COLUMNS; c++) {
					if (c >= 0 && (c < starts[g] || c >= starts[g + 1]))
						continue;
					if (c >= 0)
						fputs(" & ", pr->out);
					stats_cell(pr, tb, r, c, c < 0 ? labels_break : c == 1 && keys_break);
				}
				fputs(r < 0 ? " \\\\ \\hline\n" : " \\\\\n", pr->out);
			}
			fputs("\\end{tabular}}\n", pr->out);
		}
	}
	free(runs);
	free(lines);
}

static void latex_table(struct printer *pr, const struct table *tb)
{
	if (tb->kind == TABLE_STATS)
		latex_stats(pr, tb);
	else
		latex_matrix(pr, tb);
}

/* The derivation, a paragraph a line, ragged right, its formulas as math
 * (latex_text_math): a long line wraps at its spaces, operators and relations. */
static void latex_derivation(struct printer *pr, const char *text)
{
	char *line = malloc(strlen(text) + 1);

	if (line == NULL) {
		pr->out_of_memory = true;
		return;
	}
	fputs("\\begin{flushleft}\n", pr->out);
	for (const char *at = text; *at != '\0';) {
		size_t length = strcspn(at, "\n");

		memcpy(line, at, length);
		line[length] = '\0';
		latex_text_math(pr->out, line, pr->p);
		fputs("\\par\n", pr->out);
		at += length + (at[length] == '\n');
	}
	fputs("\\end{flushleft}\n", pr->out);
	free(line);
}

/* The d_k sweep: one tabular for the scaled scores and one for the unscaled, each
 * with the d_k column (nine columns side by side are wider than a page). Neither
 * is split in runs of rows: at the largest --dk-max (4096) a tabular is 13 rows
 * under 2 heading lines, 204 pt at 11 pt, which a Beamer frame's 245 pt under
 * its title hold (check_latex.sh compiles it in one). */
static int latex_sweep(FILE *out, const struct sweep_report *s)
{
	char cell[NUMBER_SIZE], tex[NUMBER_SIZE * 2];

	fprintf(out, "%% Written by qkv: d_k sweep, %d tokens, %d trials, seed %llu.\n", s->tokens, s->trials,
		s->seed);
	for (int half = 0; half < 2; half++) {
		fprintf(out, "%s\\noindent" LATEX_NO_DEPTH "\\begin{tabular}{r|rrrr}\n"
			" & \\multicolumn{4}{c}{%s} \\\\\n"
			"$d_k$ & variance & max $a$ & $H / \\ln n$ & $\\|J\\|_F$ \\\\ \\hline\n",
			half > 0 ? "\n\\medskip\n" : "", half == 0 ? "scaled by $\\sqrt{d_k}$" : "unscaled");
		for (int r = 0; r < s->count; r++) {
			for (int c = 0; c < 5; c++) {
				print_sweep_cell(s->points, r, c == 0 ? 0 : c + 4 * half, cell, sizeof cell);
				latex_number(tex, sizeof tex, cell);
				fprintf(out, "%s$%s$", c > 0 ? " & " : "", tex);
			}
			fputs(" \\\\\n", out);
		}
		fputs("\\end{tabular}}\n", out);
	}
	return 0;
}

/* --- multi-head reports --- */

static void latex_heads_heading(const struct heads_report *h, const char *text)
{
	latex_title(h->out, h->pr, text);
	fputc('\n', h->out);
}

static void latex_heads_sentence(const struct heads_report *h, const char *text)
{
	latex_text_math(h->out, text, h->p);
	fputs("\n\n", h->out);
}

struct heads_cells {
	const struct qkv_matrix *m;
	int decimals;
};

static void heads_cell(const void *data, int r, int c, char *buf, size_t size)
{
	const struct heads_cells *t = data;

	qkv_format_number(buf, size, qkv_matrix_get(t->m, r, c), t->decimals);
}

/* A run-in heading with the title and size, then the matrix as a pmatrix. */
static void latex_heads_table(const struct heads_report *h, const struct heads_table *tb)
{
	const struct qkv_matrix *m = tb->m;
	struct heads_cells cells = { m, h->o->decimals };
	char title[CELL_SIZE], name[64];

	snprintf(title, sizeof title, "%s (%d × %d)", tb->title, m->rows, m->cols);
	latex_run_in(h->out, h->p, title);
	fputc('\n', h->out);
	/* concat and output by their names in the title, W_O as itself */
	if (strcmp(tb->name, "concat") == 0 || strcmp(tb->name, "output") == 0)
		snprintf(name, sizeof name, "\\mathrm{%s}", strcmp(tb->name, "concat") == 0 ? "Concat" : "Output");
	else
		snprintf(name, sizeof name, "%s", tb->name);
	latex_pmatrix(h->pr, name, "", 70.0, m->rows, m->cols, heads_cell, &cells);
	fputc('\n', h->out);
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
