/* print.c — the printer: a trace written as a report (text, Markdown, LaTeX, CSV,
 * JSON) and the d_k sweep as a table, for handouts and for scripts.
 * Every number is read from the trace or the sweep and becomes text through
 * qkv/format.h, so a report and the screen agree digit for digit; the JSON follows
 * DESIGN.md's contract key for key. It never computes attention itself, never
 * changes the problem, never exits. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/print.h"
#include "qkv/derive.h"
#include "qkv/format.h"

#define CELL_SIZE 1024   /* one cell's text, escaped (labels are at most 64 bytes) */
#define NUMBER_SIZE 64   /* one formatted number */
#define DIVISOR_SIZE 256 /* how the divisor came about, in words */
#define SWEEP_DECIMALS 3 /* the sweep's tables for people */

/* What labels a table's rows or columns: tokens, or numbered dimensions. */
enum label_kind {
	LABEL_TOKEN, /* the problem's token labels */
	LABEL_DIM,   /* d1, d2, …: columns of Q, K, V, the output and the W's */
	LABEL_MODEL, /* m1, m2, …: columns of X, rows of the W's */
};

enum table_kind {
	TABLE_MATRIX, /* a matrix of the problem or the trace */
	TABLE_MIX,    /* stage 4 for one query: the terms a_ij · v_j, then their sum */
	TABLE_STATS,  /* per query: what the softmax made of the row */
};

struct table {
	enum table_kind kind;
	const char *name;     /* "Q", "scores", …: CSV's stage column and LaTeX's left side */
	const struct qkv_matrix *m;
	enum label_kind row_kind, col_kind;
	const char *row_role; /* "queries", "keys": said before the labels in LaTeX */
	const char *col_role;
	bool show_masked;     /* masked (query, key) entries are written as "—" */
	int query;            /* TABLE_MIX: whose terms */
};

/* The state of one report: where it goes, what it reads, the buffers it reuses. */
struct printer {
	FILE *out;
	const struct qkv_problem *p;
	const struct qkv_trace *t;
	enum print_format format;
	int stage;    /* -1 = every stage */
	int decimals; /* 0..12 */
	int cell_row, cell_col;
	char *derivation;
	size_t derivation_size;
	int *widths;  /* column widths of the table being written, label column first */
	int widths_capacity;
	bool out_of_memory;
};

static const char *const stats_headings[] = {
	"max weight", "at key", "entropy (nats)", "effective tokens", "Jacobian norm",
};
#define STATS_COLUMNS 5

int print_format_parse(const char *name, enum print_format *format)
{
	static const char *const names[] = { "text", "markdown", "latex", "csv", "json" };

	for (int i = 0; i < 5; i++) {
		if (strcmp(name, names[i]) == 0) {
			*format = (enum print_format)i;
			return 0;
		}
	}
	return -1;
}

void print_options_default(struct print_options *o)
{
	o->format = PRINT_TEXT;
	o->stage = -1;
	o->cell_row = 0;
	o->cell_col = 0;
	o->decimals = 4;
}

static void put_spaces(FILE *out, int count)
{
	for (int i = 0; i < count; i++)
		fputc(' ', out);
}

static int clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

/* Copies src to dst escaped for Markdown text and table cells. */
static void escape_markdown(char *dst, size_t size, const char *src)
{
	size_t used = 0;

	for (; *src != '\0' && used + 3 < size; src++) {
		if (strchr("\\|*_`[]<>#", *src) != NULL)
			dst[used++] = '\\';
		dst[used++] = *src;
	}
	dst[used] = '\0';
}

/* The printer's own glyphs in LaTeX text, so a handout compiles with pdflatex too. */
static const char *const latex_glyphs[][2] = {
	{ "—", "---" }, { "×", "$\\times$" }, { "·", "$\\cdot$" }, { "Σ", "$\\Sigma$" },
	{ "√", "$\\surd$" }, { "÷", "$\\div$" }, { "≤", "$\\le$" }, { "τ", "$\\tau$" },
	{ "ᵀ", "$^\\top$" },
};

/* Copies src to dst escaped for LaTeX text mode: the ten special characters and
 * the glyphs above. */
static void escape_latex(char *dst, size_t size, const char *src)
{
	size_t used = 0;

	dst[0] = '\0';
	while (*src != '\0') {
		const char *with = NULL;
		char plain[3] = { '\0', '\0', '\0' };
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
			case '&': case '%': case '$': case '#': case '_': case '{': case '}':
				plain[0] = '\\';
				plain[1] = *src;
				with = plain;
				break;
			default:
				plain[0] = *src;
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

/* Writes a CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
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

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one (overlong
 * forms and surrogates included). */
static int utf8_sequence(const unsigned char *s)
{
	int length;
	unsigned char low = 0x80, high = 0xBF;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		length = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		length = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		length = 4;
	else
		return 0;
	if (s[0] == 0xE0)
		low = 0xA0;
	else if (s[0] == 0xED)
		high = 0x9F;
	else if (s[0] == 0xF0)
		low = 0x90;
	else if (s[0] == 0xF4)
		high = 0x8F;
	if (s[1] < low || s[1] > high)
		return 0;
	for (int i = 2; i < length; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return length;
}

/* Writes s as a JSON string; bytes that are not UTF-8 become U+FFFD, so the
 * output is valid JSON whatever a label holds. NULL is written as null. */
static void json_string(FILE *out, const char *s)
{
	if (s == NULL) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c != '\0';) {
		int length = utf8_sequence(c);

		if (length == 0) {
			fputs("\\ufffd", out);
			c++;
		} else if (*c == '"' || *c == '\\') {
			fprintf(out, "\\%c", *c);
			c++;
		} else if (*c == '\n') {
			fputs("\\n", out);
			c++;
		} else if (*c == '\t') {
			fputs("\\t", out);
			c++;
		} else if (*c < 0x20) {
			fprintf(out, "\\u%04x", *c);
			c++;
		} else {
			fwrite(c, 1, (size_t)length, out);
			c += length;
		}
	}
	fputc('"', out);
}

/* Writes a number that reads back to the same double; null if not finite. */
static void json_number(FILE *out, double value)
{
	char number[NUMBER_SIZE];

	if (!isfinite(value)) {
		fputs("null", out);
		return;
	}
	/* %.17g, as DESIGN.md's contract says: reads back to the same double (the
	 * core's fast writer of it: a 1024-token trace is millions of numbers). */
	qkv_format_17g(number, sizeof number, value);
	fputs(number, out);
}

static void label_text(const struct printer *pr, enum label_kind kind, int index,
		       char *buf, size_t size)
{
	switch (kind) {
	case LABEL_TOKEN:
		snprintf(buf, size, "%s", pr->p->tokens[index]);
		break;
	case LABEL_DIM:
		snprintf(buf, size, "d%d", index + 1);
		break;
	case LABEL_MODEL:
		snprintf(buf, size, "m%d", index + 1);
		break;
	}
}

static void number_text(const struct printer *pr, double value, char *buf, size_t size)
{
	qkv_format_number(buf, size, value, pr->decimals);
}

static int table_rows(const struct printer *pr, const struct table *tb)
{
	switch (tb->kind) {
	case TABLE_MATRIX:
		return tb->m->rows;
	case TABLE_MIX:
		return pr->t->n + 1;
	case TABLE_STATS:
		return pr->t->n;
	}
	return 0;
}

static int table_cols(const struct printer *pr, const struct table *tb)
{
	switch (tb->kind) {
	case TABLE_MATRIX:
		return tb->m->cols;
	case TABLE_MIX:
		return pr->t->d_v;
	case TABLE_STATS:
		return STATS_COLUMNS;
	}
	return 0;
}

static bool table_is_masked(const struct printer *pr, const struct table *tb, int row, int col)
{
	return tb->show_masked && qkv_trace_is_masked(pr->t, row, col);
}

/* The value of a matrix or mix cell; the mix table's last row is the output row. */
static double table_value(const struct printer *pr, const struct table *tb, int row, int col)
{
	if (tb->kind == TABLE_MIX) {
		if (row < pr->t->n)
			return qkv_trace_mix(pr->t, tb->query, row, col);
		return qkv_matrix_get(&pr->t->output, tb->query, col);
	}
	return qkv_matrix_get(tb->m, row, col);
}

/* The text of a statistics cell (column 1 names the key with the largest weight). */
static void stats_text(const struct printer *pr, int row, int col, char *buf, size_t size)
{
	const struct qkv_row_stats *s = &pr->t->rows[row];

	switch (col) {
	case 0:
		number_text(pr, s->max_weight, buf, size);
		break;
	case 1:
		if (s->argmax < 0)
			snprintf(buf, size, "—");
		else
			label_text(pr, LABEL_TOKEN, s->argmax, buf, size);
		break;
	case 2:
		number_text(pr, s->entropy, buf, size);
		break;
	case 3:
		number_text(pr, s->effective_tokens, buf, size);
		break;
	default:
		number_text(pr, s->jacobian_norm, buf, size);
		break;
	}
}

/* The text of one cell for people: row -1 holds the column labels, col -1 the
 * row labels (the mix table's extra row is "Σ"). */
static void table_text(const struct printer *pr, const struct table *tb, int row, int col,
		       char *buf, size_t size)
{
	if (row < 0 && col < 0) {
		snprintf(buf, size, "%s", tb->kind == TABLE_STATS ? "query" : "");
	} else if (row < 0) {
		if (tb->kind == TABLE_STATS)
			snprintf(buf, size, "%s", stats_headings[col]);
		else
			label_text(pr, tb->col_kind, col, buf, size);
	} else if (col < 0) {
		if (tb->kind == TABLE_MIX && row == pr->t->n)
			snprintf(buf, size, "Σ");
		else
			label_text(pr, tb->row_kind, row, buf, size);
	} else if (tb->kind == TABLE_STATS) {
		stats_text(pr, row, col, buf, size);
	} else if (table_is_masked(pr, tb, row, col)) {
		snprintf(buf, size, "—");
	} else {
		number_text(pr, table_value(pr, tb, row, col), buf, size);
	}
}

/* The text of one cell as the current format writes it (escaped). */
static void table_cell(const struct printer *pr, const struct table *tb, int row, int col,
		       char *buf, size_t size)
{
	char raw[CELL_SIZE];

	if (pr->format == PRINT_MARKDOWN) {
		table_text(pr, tb, row, col, raw, sizeof raw);
		escape_markdown(buf, size, raw);
	} else if (pr->format == PRINT_LATEX) {
		table_text(pr, tb, row, col, raw, sizeof raw);
		if (row >= 0 && col >= 0 && tb->kind != TABLE_STATS
		    && !table_is_masked(pr, tb, row, col))
			latex_number(buf, size, raw);
		else
			escape_latex(buf, size, raw);
	} else {
		table_text(pr, tb, row, col, buf, size);
	}
}

/* Measures every column of tb (label column first) into pr->widths. */
static int measure_table(struct printer *pr, const struct table *tb)
{
	int rows = table_rows(pr, tb), cols = table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (cols + 1 > pr->widths_capacity) {
		int *widths = realloc(pr->widths, (size_t)(cols + 1) * sizeof *widths);

		if (widths == NULL) {
			pr->out_of_memory = true;
			return -1;
		}
		pr->widths = widths;
		pr->widths_capacity = cols + 1;
	}
	for (int c = -1; c < cols; c++)
		pr->widths[c + 1] = pr->format == PRINT_MARKDOWN ? 3 : 0;
	for (int r = -1; r < rows; r++) {
		for (int c = -1; c < cols; c++) {
			table_cell(pr, tb, r, c, cell, sizeof cell);
			int width = qkv_text_columns(cell);
			if (width > pr->widths[c + 1])
				pr->widths[c + 1] = width;
		}
	}
	return 0;
}

/* A table in text: labels on the left, numbers right-aligned under their labels. */
static void text_table(struct printer *pr, const struct table *tb)
{
	int rows = table_rows(pr, tb), cols = table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (measure_table(pr, tb) != 0)
		return;
	for (int r = -1; r < rows; r++) {
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
		table_cell(pr, tb, r, -1, cell, sizeof cell);
		fputs(cell, pr->out);
		put_spaces(pr->out, pr->widths[0] - qkv_text_columns(cell));
		for (int c = 0; c < cols; c++) {
			table_cell(pr, tb, r, c, cell, sizeof cell);
			put_spaces(pr->out, 2 + pr->widths[c + 1] - qkv_text_columns(cell));
			fputs(cell, pr->out);
		}
		fputc('\n', pr->out);
	}
}

/* A table in Markdown: a pipe table, padded so that the source reads well too. */
static void markdown_table(struct printer *pr, const struct table *tb)
{
	int rows = table_rows(pr, tb), cols = table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (measure_table(pr, tb) != 0)
		return;
	for (int r = -1; r < rows; r++) {
		for (int c = -1; c < cols; c++) {
			table_cell(pr, tb, r, c, cell, sizeof cell);
			int pad = pr->widths[c + 1] - qkv_text_columns(cell);
			fputs("| ", pr->out);
			if (c < 0) {
				fputs(cell, pr->out);
				put_spaces(pr->out, pad);
			} else {
				put_spaces(pr->out, pad);
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

/* Comma-separated labels of a table's rows or columns, escaped for LaTeX. */
static void latex_labels(struct printer *pr, enum label_kind kind, int count)
{
	char raw[CELL_SIZE], cell[CELL_SIZE];

	for (int i = 0; i < count; i++) {
		label_text(pr, kind, i, raw, sizeof raw);
		escape_latex(cell, sizeof cell, raw);
		fprintf(pr->out, "%s\\texttt{%s}", i > 0 ? ", " : "", cell);
	}
}

/* A matrix in LaTeX: a sentence naming rows and columns, then a pmatrix. */
static void latex_matrix(struct printer *pr, const struct table *tb, const char *tex_name)
{
	int rows = table_rows(pr, tb), cols = table_cols(pr, tb);
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
	fprintf(pr->out, "\\[\n%s = \\begin{pmatrix}\n", tex_name);
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c < cols; c++) {
			if (table_is_masked(pr, tb, r, c)) {
				fputs(c > 0 ? " & \\text{---}" : "\\text{---}", pr->out);
				continue;
			}
			table_cell(pr, tb, r, c, cell, sizeof cell);
			fprintf(pr->out, "%s%s", c > 0 ? " & " : "", cell);
		}
		fputs(r + 1 < rows ? " \\\\\n" : "\n", pr->out);
	}
	fputs("\\end{pmatrix}\n\\]\n", pr->out);
	if (tb->kind == TABLE_MIX) {
		char query[CELL_SIZE];

		label_text(pr, LABEL_TOKEN, tb->query, cell, sizeof cell);
		escape_latex(query, sizeof query, cell);
		fputs("\\[\n\\textstyle\\sum_j a_{ij}\\, v_j = \\begin{pmatrix}", pr->out);
		for (int c = 0; c < cols; c++) {
			table_cell(pr, tb, rows, c, cell, sizeof cell);
			fprintf(pr->out, "%s%s", c > 0 ? " & " : " ", cell);
		}
		fprintf(pr->out, " \\end{pmatrix} \\quad\\text{(output row \\texttt{%s})}\n\\]\n",
			query);
	}
}

/* The statistics table in LaTeX: a tabular with one line per query. */
static void latex_stats(struct printer *pr, const struct table *tb)
{
	char cell[CELL_SIZE];

	fputs("\\begin{tabular}{lrlrrr}\n", pr->out);
	for (int r = -1; r < pr->t->n; r++) {
		for (int c = -1; c < STATS_COLUMNS; c++) {
			table_cell(pr, tb, r, c, cell, sizeof cell);
			fprintf(pr->out, "%s%s", c >= 0 ? " & " : "", cell);
		}
		fputs(r < 0 ? " \\\\ \\hline\n" : " \\\\\n", pr->out);
	}
	fputs("\\end{tabular}\n", pr->out);
}

/* Writes ",row,col," (both from 1); a trace is tens of thousands of CSV lines. */
static void csv_indexes(FILE *out, int row, int col)
{
	char text[32];
	int length = 0, values[2] = { row, col };

	text[length++] = ',';
	for (int v = 0; v < 2; v++) {
		char digits[12];
		int count = 0;

		for (int x = values[v]; count == 0 || x > 0; x /= 10)
			digits[count++] = (char)('0' + x % 10);
		while (count > 0)
			text[length++] = digits[--count];
		text[length++] = ',';
	}
	fwrite(text, 1, (size_t)length, out);
}

/* Every cell of a matrix or mix table as CSV rows, values exact, masked empty. */
static void csv_table(struct printer *pr, const struct table *tb)
{
	int rows = table_rows(pr, tb), cols = table_cols(pr, tb);
	char label[CELL_SIZE], number[NUMBER_SIZE];

	if (tb->kind == TABLE_MIX)
		rows--;
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c < cols; c++) {
			fputs(tb->name, pr->out);
			putc(',', pr->out);
			label_text(pr, tb->row_kind, r, label, sizeof label);
			csv_field(pr->out, label);
			fputc(',', pr->out);
			label_text(pr, tb->col_kind, c, label, sizeof label);
			csv_field(pr->out, label);
			csv_indexes(pr->out, r + 1, c + 1); /* ",r,c," without printf's parsing */
			if (!table_is_masked(pr, tb, r, c)) {
				qkv_format_exact(number, sizeof number, table_value(pr, tb, r, c));
				fputs(number, pr->out);
			}
			fputc('\n', pr->out);
		}
	}
}

/* The per-query statistics as CSV rows of stage "stats". */
static void csv_stats(struct printer *pr)
{
	static const char *const keys[] = {
		"max_weight", "entropy", "effective_tokens", "jacobian_norm",
	};
	char number[NUMBER_SIZE];

	for (int r = 0; r < pr->t->n; r++) {
		const struct qkv_row_stats *s = &pr->t->rows[r];
		const double values[] = {
			s->max_weight, s->entropy, s->effective_tokens, s->jacobian_norm,
		};

		for (int c = 0; c < 4; c++) {
			fputs("stats,", pr->out);
			csv_field(pr->out, pr->p->tokens[r]);
			qkv_format_exact(number, sizeof number, values[c]);
			fprintf(pr->out, ",%s,%d,%d,%s\n", keys[c], r + 1, c + 1, number);
		}
	}
}

/* Writes text as the format needs it: as is, or escaped for Markdown or LaTeX
 * (whatever its length: the escaped copy is sized for the worst case). */
static void put_escaped(struct printer *pr, const char *text)
{
	size_t size = strlen(text) * 17 + 1; /* "\\" → "\\textbackslash{}" is the longest */
	char *escaped;

	if (pr->format != PRINT_MARKDOWN && pr->format != PRINT_LATEX) {
		fputs(text, pr->out);
		return;
	}
	escaped = malloc(size);
	if (escaped == NULL) {
		pr->out_of_memory = true;
		return;
	}
	if (pr->format == PRINT_MARKDOWN)
		escape_markdown(escaped, size, text);
	else
		escape_latex(escaped, size, text);
	fputs(escaped, pr->out);
	free(escaped);
}

/* A heading in the current format (level 1 = the title, 2 = a stage or input). */
static void heading(struct printer *pr, int level, const char *text)
{
	switch (pr->format) {
	case PRINT_TEXT:
		fprintf(pr->out, "%s\n", text);
		break;
	case PRINT_MARKDOWN:
		fputs(level == 1 ? "# " : "## ", pr->out);
		put_escaped(pr, text);
		fputs("\n\n", pr->out);
		break;
	case PRINT_LATEX:
		fprintf(pr->out, "\\%s{", level == 1 ? "subsection*" : "paragraph");
		put_escaped(pr, text);
		fputs("}\n", pr->out);
		break;
	case PRINT_CSV:
	case PRINT_JSON:
		break;
	}
}

/* A line of prose under a heading: indented in text, a paragraph elsewhere. */
static void prose(struct printer *pr, const char *text)
{
	switch (pr->format) {
	case PRINT_TEXT:
		fprintf(pr->out, "  %s\n", text);
		break;
	case PRINT_MARKDOWN:
	case PRINT_LATEX:
		put_escaped(pr, text);
		fputs("\n\n", pr->out);
		break;
	case PRINT_CSV:
	case PRINT_JSON:
		break;
	}
}

/* Under the weights of a wrong-way demonstration: what gives it away, each row's
 * and each column's sum (a right softmax makes every row sum to 1). In CSV, rows of
 * stage "row_sum" and "col_sum", and one "wrong" row naming the mistake. */
static void write_wrong_sums(struct printer *pr)
{
	const struct qkv_trace *t = pr->t;
	char line[CELL_SIZE * 4], number[NUMBER_SIZE];

	for (int pass = 0; pass < 2; pass++) {
		bool rows = pass == 0;
		size_t length = (size_t)snprintf(line, sizeof line, "%s",
			rows ? "WRONG WAY: each row's sum (softmax by rows makes them all 1):"
			     : "each column's sum:");

		for (int i = 0; i < t->n; i++) {
			double sum = 0.0;

			for (int k = 0; k < t->n; k++)
				sum += qkv_matrix_get(&t->weights, rows ? i : k, rows ? k : i);
			if (pr->format == PRINT_CSV) {
				qkv_format_exact(number, sizeof number, sum);
				fprintf(pr->out, "%s,", rows ? "row_sum" : "col_sum");
				csv_field(pr->out, rows ? pr->p->tokens[i] : "");
				fputc(',', pr->out);
				csv_field(pr->out, rows ? "" : pr->p->tokens[i]);
				fprintf(pr->out, ",%d,%d,%s\n", rows ? i + 1 : 0, rows ? 0 : i + 1, number);
				continue;
			}
			number_text(pr, sum, number, sizeof number);
			if (length < sizeof line)
				length += (size_t)snprintf(line + length, sizeof line - length, " %s %s",
							   pr->p->tokens[i], number);
		}
		if (pr->format != PRINT_CSV)
			prose(pr, line);
	}
	if (pr->format == PRINT_CSV)
		fprintf(pr->out, "wrong,,%s,0,0,\n", pr->p->wrong == QKV_WRONG_MASK_AFTER_SOFTMAX
						      ? "mask-after-softmax" : "column-softmax");
	else if (pr->format == PRINT_TEXT)
		fputc('\n', pr->out);
}

/* The width of a stage's example cell: its columns. */
static int stage_width(const struct qkv_trace *t, enum qkv_stage stage)
{
	switch (stage) {
	case QKV_STAGE_PROJECTIONS:
		return t->d_k;
	case QKV_STAGE_MIX:
	case QKV_STAGE_OUTPUT:
		return t->d_v;
	default:
		return t->n;
	}
}

/* The derivation of the example cell of `stage` (into pr->derivation), or NULL. */
static const char *derivation(struct printer *pr, enum qkv_stage stage)
{
	int row = clamp(pr->cell_row, 0, pr->t->n - 1);
	int col = clamp(pr->cell_col, 0, stage_width(pr->t, stage) - 1);

	for (int attempt = 0; attempt < 2; attempt++) {
		int need = qkv_derive(pr->derivation, pr->derivation_size, pr->p, pr->t, stage,
				      row, col, pr->decimals);
		if (need < 0)
			return NULL;
		if ((size_t)need < pr->derivation_size)
			return pr->derivation;
		char *grown = realloc(pr->derivation, (size_t)need + 1);
		if (grown == NULL) {
			pr->out_of_memory = true;
			return NULL;
		}
		pr->derivation = grown;
		pr->derivation_size = (size_t)need + 1;
	}
	return NULL;
}

/* The example cell's arithmetic under a stage: indented text, a fenced block in
 * Markdown, a verbatim block in LaTeX. */
static void write_derivation(struct printer *pr, enum qkv_stage stage)
{
	const char *text = derivation(pr, stage);

	if (text == NULL || text[0] == '\0')
		return;
	switch (pr->format) {
	case PRINT_TEXT:
		fputc('\n', pr->out);
		for (const char *line = text; *line != '\0';) {
			size_t length = strcspn(line, "\n");
			fprintf(pr->out, "    %.*s\n", (int)length, line);
			line += length + (line[length] == '\n');
		}
		break;
	case PRINT_MARKDOWN:
		fprintf(pr->out, "\n```text\n%s%s```\n", text,
			text[strlen(text) - 1] == '\n' ? "" : "\n");
		break;
	case PRINT_LATEX:
		fprintf(pr->out, "\\begin{verbatim}\n%s%s\\end{verbatim}\n", text,
			text[strlen(text) - 1] == '\n' ? "" : "\n");
		break;
	case PRINT_CSV:
	case PRINT_JSON:
		break;
	}
}

/* One matrix or table in the current format, followed by a blank line. */
static void write_table(struct printer *pr, const struct table *tb, const char *tex_name)
{
	switch (pr->format) {
	case PRINT_TEXT:
		text_table(pr, tb);
		break;
	case PRINT_MARKDOWN:
		markdown_table(pr, tb);
		break;
	case PRINT_LATEX:
		if (tb->kind == TABLE_STATS)
			latex_stats(pr, tb);
		else
			latex_matrix(pr, tb, tex_name);
		break;
	case PRINT_CSV:
		if (tb->kind != TABLE_STATS)
			csv_table(pr, tb);
		else
			csv_stats(pr);
		return;
	case PRINT_JSON:
		return;
	}
}

/* How the divisor came about, e.g. "√2 = 1.4142" or "τ·√2 = 0.5·√2 = 0.7071". */
static void divisor_text(const struct printer *pr, char *buf, size_t size)
{
	char divisor[NUMBER_SIZE], tau[NUMBER_SIZE], custom[NUMBER_SIZE];
	int d_k = pr->t->d_k;
	bool plain = pr->p->temperature == 1.0;

	number_text(pr, pr->t->divisor, divisor, sizeof divisor);
	qkv_format_exact(tau, sizeof tau, pr->p->temperature);
	qkv_format_exact(custom, sizeof custom, pr->p->scale_value);
	switch (pr->p->scale) {
	case QKV_SCALE_SQRT_DK:
		if (plain)
			snprintf(buf, size, "√%d = %s", d_k, divisor);
		else
			snprintf(buf, size, "τ·√%d = %s·√%d = %s", d_k, tau, d_k, divisor);
		break;
	case QKV_SCALE_NONE:
		if (plain)
			snprintf(buf, size, "1 (no scaling)");
		else
			snprintf(buf, size, "τ = %s (no √d_k scaling)", divisor);
		break;
	case QKV_SCALE_CUSTOM:
		if (plain)
			snprintf(buf, size, "%s (a custom scale instead of √%d)", divisor, d_k);
		else
			snprintf(buf, size, "τ·c = %s·%s = %s (a custom scale c instead of √%d)",
				 tau, custom, divisor, d_k);
		break;
	}
}

/* The divisor as LaTeX math, e.g. "\sqrt{2} \approx 1.4142". */
static void latex_divisor(const struct printer *pr, char *buf, size_t size)
{
	char divisor[NUMBER_SIZE], tau[NUMBER_SIZE], custom[NUMBER_SIZE];
	bool plain = pr->p->temperature == 1.0;

	number_text(pr, pr->t->divisor, divisor, sizeof divisor);
	qkv_format_exact(tau, sizeof tau, pr->p->temperature);
	qkv_format_exact(custom, sizeof custom, pr->p->scale_value);
	switch (pr->p->scale) {
	case QKV_SCALE_SQRT_DK:
		if (plain)
			snprintf(buf, size, "\\sqrt{d_k} = \\sqrt{%d} \\approx %s", pr->t->d_k, divisor);
		else
			snprintf(buf, size, "\\tau\\sqrt{d_k} = %s\\sqrt{%d} \\approx %s",
				 tau, pr->t->d_k, divisor);
		break;
	case QKV_SCALE_NONE:
		snprintf(buf, size, "%s = %s", plain ? "1" : "\\tau", plain ? "1" : divisor);
		break;
	case QKV_SCALE_CUSTOM:
		if (plain)
			snprintf(buf, size, "c = %s", divisor);
		else
			snprintf(buf, size, "\\tau c = %s \\cdot %s \\approx %s", tau, custom, divisor);
		break;
	}
}

static int masked_pairs(const struct qkv_trace *t)
{
	int count = 0;

	for (int i = 0; i < t->n; i++)
		for (int j = 0; j < t->n; j++)
			count += qkv_trace_is_masked(t, i, j);
	return count;
}

static const char *mask_text(const struct qkv_problem *p)
{
	switch (p->mask) {
	case QKV_MASK_NONE:
		return "none";
	case QKV_MASK_CAUSAL:
		return "causal: query i sees keys j ≤ i";
	case QKV_MASK_CUSTOM:
		return "custom: the pairs chosen by hand";
	}
	return "?";
}

static const char *wrong_text(const struct qkv_problem *p)
{
	switch (p->wrong) {
	case QKV_WRONG_MASK_AFTER_SOFTMAX:
		return "the wrong way on purpose: mask applied after the softmax";
	case QKV_WRONG_COLUMN_SOFTMAX:
		return "the wrong way on purpose: softmax down each column, not each row";
	case QKV_WRONG_NONE:
		break;
	}
	return NULL;
}

/* The padding tokens, comma-separated (escaped for the format). */
static void write_padding(struct printer *pr)
{
	char label[CELL_SIZE];
	bool any = false;

	for (int i = 0; pr->p->padding != NULL && i < pr->t->n; i++) {
		if (!pr->p->padding[i])
			continue;
		if (pr->format == PRINT_LATEX)
			escape_latex(label, sizeof label, pr->p->tokens[i]);
		else if (pr->format == PRINT_MARKDOWN)
			escape_markdown(label, sizeof label, pr->p->tokens[i]);
		else
			snprintf(label, sizeof label, "%s", pr->p->tokens[i]);
		fprintf(pr->out, "%s%s", any ? ", " : "", label);
		any = true;
	}
}

static bool has_padding(const struct qkv_problem *p)
{
	for (int i = 0; p->padding != NULL && i < p->n; i++)
		if (p->padding[i])
			return true;
	return false;
}

static const char *const masked_legend =
	"— masked: the key is hidden from that query; its score is not used and its weight is 0";

/* The header in text or Markdown: title, notes, sizes, divisor, mask, legend. */
static void header_plain(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	char line[CELL_SIZE * 2], divisor[DIVISOR_SIZE];
	bool md = pr->format == PRINT_MARKDOWN;
	const char *bullet = md ? "- " : "";

	heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0') {
		if (md)
			prose(pr, p->notes);
		else
			fprintf(pr->out, "%s\n", p->notes);
	}
	if (!md)
		fputc('\n', pr->out);
	divisor_text(pr, divisor, sizeof divisor);
	if (p->form == QKV_FORM_PROJECTED)
		snprintf(line, sizeof line, "n = %d tokens, d_model = %d, d_k = %d, d_v = %d",
			 pr->t->n, qkv_problem_d_model(p), pr->t->d_k, pr->t->d_v);
	else
		snprintf(line, sizeof line, "n = %d tokens, d_k = %d, d_v = %d",
			 pr->t->n, pr->t->d_k, pr->t->d_v);
	fprintf(pr->out, "%s%s\n", bullet, line);
	fprintf(pr->out, "%sscores ÷ %s\n", bullet, divisor);
	fprintf(pr->out, "%smask: %s\n", bullet, mask_text(p));
	if (has_padding(p)) {
		fprintf(pr->out, "%spadding: ", bullet);
		write_padding(pr);
		fputs(" (hidden as keys from every query)\n", pr->out);
	}
	if (wrong_text(p) != NULL)
		fprintf(pr->out, "%s%s\n", bullet, wrong_text(p));
	if (masked_pairs(pr->t) > 0)
		fprintf(pr->out, "%s%s%s\n", bullet, md ? "— = " : "", md ? masked_legend + 4 :
			masked_legend);
	fputc('\n', pr->out);
}

/* The header in LaTeX: a comment for whoever pastes it, then a short paragraph. */
static void header_latex(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	char divisor[DIVISOR_SIZE];

	fputs("% Written by qkv. Needs \\usepackage{amsmath}. The derivations are UTF-8:\n"
	      "% XeLaTeX or LuaLaTeX, or pdflatex with \\DeclareUnicodeCharacter for\n"
	      "% the dot, times, minus, Sigma, root and ellipsis signs they use.\n", pr->out);
	heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0')
		prose(pr, p->notes);
	latex_divisor(pr, divisor, sizeof divisor);
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
		put_escaped(pr, mask_text(p));
	fputs(".\n", pr->out);
	if (has_padding(p)) {
		fputs("Padding, hidden as keys from every query: ", pr->out);
		write_padding(pr);
		fputs(".\n", pr->out);
	}
	if (wrong_text(p) != NULL) {
		fputs("Note: ", pr->out);
		put_escaped(pr, wrong_text(p));
		fputs(".\n", pr->out);
	}
	if (masked_pairs(pr->t) > 0)
		fputs("A dash (---) marks a masked entry: the key is hidden from that query; "
		      "its score is not used and its weight is 0.\n", pr->out);
	fputc('\n', pr->out);
}

/* The title of a stage: "Stage 1 — scores: S = Q Kᵀ" (Markdown and text), or a
 * \paragraph with the formula in math (LaTeX). */
static void stage_title(struct printer *pr, enum qkv_stage stage)
{
	char title[CELL_SIZE], divisor[DIVISOR_SIZE];

	if (pr->format == PRINT_LATEX) {
		static const char *const formulas[QKV_STAGE_COUNT] = {
			"Q = X W_Q,\\quad K = X W_K,\\quad V = X W_V",
			"S = Q K^\\top",
			"S' = S / d",
			"A = \\operatorname{softmax}(S') \\text{ by rows}",
			"a_{ij}\\, v_j",
			"O = A V",
		};
		fprintf(pr->out, "\\paragraph{Stage %d --- %s} $%s$", (int)stage,
			qkv_stage_name(stage), formulas[stage]);
		if (stage == QKV_STAGE_SCALED) {
			latex_divisor(pr, divisor, sizeof divisor);
			fprintf(pr->out, ", with $d = %s$", divisor);
		}
		fputs(".\n", pr->out);
		return;
	}
	snprintf(title, sizeof title, pr->format == PRINT_MARKDOWN ? "Stage %d — %s: `%s`"
		 : "Stage %d — %s: %s", (int)stage, qkv_stage_name(stage), qkv_stage_formula(stage));
	if (stage == QKV_STAGE_SCALED) {
		size_t used = strlen(title);
		divisor_text(pr, divisor, sizeof divisor);
		snprintf(title + used, sizeof title - used, ", with d = %s", divisor);
	}
	if (pr->format == PRINT_MARKDOWN)
		fprintf(pr->out, "## %s\n\n", title);
	else
		fprintf(pr->out, "%s\n", title);
}

static void blank_line(struct printer *pr)
{
	if (pr->format != PRINT_CSV)
		fputc('\n', pr->out);
}

/* An input matrix (Q, K, V, X, W_*) under a heading of its own. */
static void write_input(struct printer *pr, enum qkv_input which, const struct qkv_matrix *m)
{
	static const char *const roles[QKV_INPUT_COUNT] = {
		"queries", "keys", "values", "token vectors",
		"query projection", "key projection", "value projection",
	};
	static const char *const tex_names[QKV_INPUT_COUNT] = {
		"Q", "K", "V", "X", "W_Q", "W_K", "W_V",
	};
	bool weight = which == QKV_INPUT_W_Q || which == QKV_INPUT_W_K || which == QKV_INPUT_W_V;
	struct table tb = {
		.kind = TABLE_MATRIX,
		.name = qkv_input_name(which),
		.m = m,
		.row_kind = weight ? LABEL_MODEL : LABEL_TOKEN,
		.col_kind = which == QKV_INPUT_X ? LABEL_MODEL : LABEL_DIM,
	};
	char title[CELL_SIZE];

	snprintf(title, sizeof title, "%s — %s (%d × %d)", qkv_input_name(which), roles[which],
		 m->rows, m->cols);
	heading(pr, 2, title);
	write_table(pr, &tb, tex_names[which]);
	blank_line(pr);
}

/* One stage: its title, its matrix (or matrices), the example cell's arithmetic,
 * and after the weights the statistics of each row. */
static void write_stage(struct printer *pr, enum qkv_stage stage)
{
	const struct qkv_trace *t = pr->t;
	struct table tb = { .kind = TABLE_MATRIX, .name = qkv_stage_name(stage),
			    .row_kind = LABEL_TOKEN, .col_kind = LABEL_TOKEN };
	char line[CELL_SIZE * 2], number[NUMBER_SIZE];

	if (pr->format != PRINT_CSV)
		stage_title(pr, stage);
	switch (stage) {
	case QKV_STAGE_PROJECTIONS:
		tb.col_kind = LABEL_DIM;
		tb.name = "Q";
		tb.m = &t->q;
		prose(pr, "Q = X W_Q, the queries");
		write_table(pr, &tb, "Q");
		blank_line(pr);
		tb.name = "K";
		tb.m = &t->k;
		prose(pr, "K = X W_K, the keys");
		write_table(pr, &tb, "K");
		blank_line(pr);
		tb.name = "V";
		tb.m = &t->v;
		prose(pr, "V = X W_V, the values");
		write_table(pr, &tb, "V");
		break;
	case QKV_STAGE_SCORES:
	case QKV_STAGE_SCALED:
	case QKV_STAGE_WEIGHTS:
		if (pr->format != PRINT_LATEX)
			prose(pr, "rows: queries, columns: keys");
		if (pr->format == PRINT_TEXT)
			fputc('\n', pr->out);
		tb.row_role = "queries";
		tb.col_role = "keys";
		tb.m = stage == QKV_STAGE_SCORES ? &t->scores
			: stage == QKV_STAGE_SCALED ? &t->scaled : &t->weights;
		tb.show_masked = stage != QKV_STAGE_WEIGHTS;
		write_table(pr, &tb, stage == QKV_STAGE_SCORES ? "S"
			    : stage == QKV_STAGE_SCALED ? "S'" : "A");
		if (stage == QKV_STAGE_WEIGHTS && pr->p->wrong != QKV_WRONG_NONE)
			write_wrong_sums(pr);
		break;
	case QKV_STAGE_MIX:
		tb.kind = TABLE_MIX;
		tb.col_kind = LABEL_DIM;
		tb.query = clamp(pr->cell_row, 0, t->n - 1);
		tb.row_role = "keys";
		snprintf(line, sizeof line, "query %s: row j holds a_ij · v_j for key j; "
			 "their sum Σ is output row %s", pr->p->tokens[tb.query],
			 pr->p->tokens[tb.query]);
		prose(pr, line);
		if (pr->format == PRINT_TEXT)
			fputc('\n', pr->out);
		write_table(pr, &tb, "a_{ij}\\, v_j");
		break;
	case QKV_STAGE_OUTPUT:
		tb.col_kind = LABEL_DIM;
		tb.m = &t->output;
		write_table(pr, &tb, "O");
		break;
	}
	write_derivation(pr, stage);
	blank_line(pr);
	if (stage != QKV_STAGE_WEIGHTS)
		return;
	struct table stats = { .kind = TABLE_STATS, .name = "stats", .row_kind = LABEL_TOKEN };
	if (pr->format != PRINT_CSV) {
		heading(pr, 2, "Statistics of the weights, per query");
		if (pr->format == PRINT_LATEX)
			fputc('\n', pr->out);
	}
	write_table(pr, &stats, NULL);
	if (pr->format == PRINT_CSV)
		return;
	blank_line(pr);
	number_text(pr, t->score_variance, number, sizeof number);
	snprintf(line, sizeof line, "score variance (of the entries fed to softmax): %s", number);
	prose(pr, line);
	number_text(pr, log((double)t->n), number, sizeof number);
	snprintf(line, sizeof line, "entropy of a uniform row: ln %d = %s nats", t->n, number);
	prose(pr, line);
	if (pr->format == PRINT_TEXT)
		fputc('\n', pr->out);
}

/* A matrix as a JSON array of rows (masked entries null when show_masked). */
static void json_matrix(struct printer *pr, const char *key, const struct qkv_matrix *m,
			bool show_masked)
{
	fprintf(pr->out, "  \"%s\": [", key);
	for (int r = 0; r < m->rows; r++) {
		fputs(r > 0 ? ",\n    [" : "\n    [", pr->out);
		for (int c = 0; c < m->cols; c++) {
			if (c > 0)
				fputs(", ", pr->out);
			if (show_masked && qkv_trace_is_masked(pr->t, r, c))
				fputs("null", pr->out);
			else
				json_number(pr->out, qkv_matrix_get(m, r, c));
		}
		fputc(']', pr->out);
	}
	fputs("\n  ],\n", pr->out);
}

/* DESIGN.md's "Machine-readable output" object, plus "scale" and "temperature"
 * (and "wrong" while a deliberate mistake is on). */
static void print_json(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;
	const struct qkv_trace *t = pr->t;
	static const char *const masks[] = { "none", "causal", "custom" };
	static const char *const wrongs[] = { NULL, "mask-after-softmax", "column-softmax" };

	fputs("{\n  \"title\": ", pr->out);
	json_string(pr->out, p->title);
	fputs(",\n  \"tokens\": [", pr->out);
	for (int i = 0; i < t->n; i++) {
		if (i > 0)
			fputs(", ", pr->out);
		json_string(pr->out, p->tokens[i]);
	}
	fprintf(pr->out, "],\n  \"n\": %d,\n  \"d_k\": %d,\n  \"d_v\": %d,\n  \"divisor\": ",
		t->n, t->d_k, t->d_v);
	json_number(pr->out, t->divisor);
	fputs(",\n  \"scale\": ", pr->out);
	if (p->scale == QKV_SCALE_CUSTOM)
		json_number(pr->out, p->scale_value);
	else
		json_string(pr->out, p->scale == QKV_SCALE_NONE ? "none" : "sqrt_dk");
	fputs(",\n  \"temperature\": ", pr->out);
	json_number(pr->out, p->temperature);
	/* The mask as a problem file writes it: a name, or the custom boolean matrix. */
	if (p->mask == QKV_MASK_CUSTOM && p->mask_bits != NULL) {
		fputs(",\n  \"mask\": [", pr->out);
		for (int i = 0; i < t->n; i++) {
			fputs(i > 0 ? ", [" : "[", pr->out);
			for (int j = 0; j < t->n; j++)
				fprintf(pr->out, "%s%s", j > 0 ? ", " : "",
					p->mask_bits[(size_t)i * (size_t)t->n + (size_t)j] ? "true" : "false");
			fputc(']', pr->out);
		}
		fputs("],\n", pr->out);
	} else {
		fprintf(pr->out, ",\n  \"mask\": \"%s\",\n", masks[p->mask]);
	}
	if (has_padding(p)) {
		bool first = true;

		fputs("  \"padding\": [", pr->out);
		for (int i = 0; i < t->n; i++)
			if (p->padding[i]) {
				fprintf(pr->out, "%s%d", first ? "" : ", ", i);
				first = false;
			}
		fputs("],\n", pr->out);
	}
	if (p->wrong != QKV_WRONG_NONE)
		fprintf(pr->out, "  \"wrong\": \"%s\",\n", wrongs[p->wrong]);
	json_matrix(pr, "Q", &t->q, false);
	json_matrix(pr, "K", &t->k, false);
	json_matrix(pr, "V", &t->v, false);
	json_matrix(pr, "scores", &t->scores, true);
	json_matrix(pr, "scaled", &t->scaled, true);
	json_matrix(pr, "weights", &t->weights, false);
	json_matrix(pr, "output", &t->output, false);
	fputs("  \"stats\": {\n    \"score_variance\": ", pr->out);
	json_number(pr->out, t->score_variance);
	fputs(",\n    \"rows\": [", pr->out);
	for (int r = 0; r < t->n; r++) {
		const struct qkv_row_stats *s = &t->rows[r];

		fputs(r > 0 ? ",\n      {" : "\n      {", pr->out);
		fputs("\"max_weight\": ", pr->out);
		json_number(pr->out, s->max_weight);
		fputs(", \"entropy\": ", pr->out);
		json_number(pr->out, s->entropy);
		fputs(", \"effective_tokens\": ", pr->out);
		json_number(pr->out, s->effective_tokens);
		fputs(", \"jacobian_norm\": ", pr->out);
		json_number(pr->out, s->jacobian_norm);
		fputc('}', pr->out);
	}
	fputs("\n    ]\n  }\n}\n", pr->out);
}

/* Whether the report shows stage s (the projections exist only in the projected form). */
static bool shows_stage(const struct printer *pr, enum qkv_stage s)
{
	if (s == QKV_STAGE_PROJECTIONS && pr->p->form != QKV_FORM_PROJECTED)
		return false;
	return pr->stage < 0 || pr->stage == (int)s;
}

int print_trace(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		const struct print_options *o)
{
	struct printer pr = {
		.out = out, .p = p, .t = t, .format = o->format, .stage = o->stage,
		.decimals = clamp(o->decimals, 0, 12),
		.cell_row = o->cell_row, .cell_col = o->cell_col,
	};

	if (t->n <= 0 || o->stage < -1 || o->stage >= QKV_STAGE_COUNT)
		return -1;
	pr.derivation_size = 4096;
	pr.derivation = malloc(pr.derivation_size);
	if (pr.derivation == NULL)
		return -1;
	if (pr.format == PRINT_JSON) {
		print_json(&pr);
	} else {
		if (pr.format == PRINT_CSV)
			fputs("stage,row_token,col_label,row,col,value\n", out);
		else if (pr.format == PRINT_LATEX)
			header_latex(&pr);
		else
			header_plain(&pr);
		if (pr.stage < 0) {
			if (p->form == QKV_FORM_PROJECTED) {
				write_input(&pr, QKV_INPUT_X, &p->x);
				write_input(&pr, QKV_INPUT_W_Q, &p->w_q);
				write_input(&pr, QKV_INPUT_W_K, &p->w_k);
				write_input(&pr, QKV_INPUT_W_V, &p->w_v);
			} else {
				write_input(&pr, QKV_INPUT_Q, &t->q);
				write_input(&pr, QKV_INPUT_K, &t->k);
				write_input(&pr, QKV_INPUT_V, &t->v);
			}
		}
		for (int s = 0; s < QKV_STAGE_COUNT; s++)
			if (shows_stage(&pr, (enum qkv_stage)s))
				write_stage(&pr, (enum qkv_stage)s);
	}
	free(pr.derivation);
	free(pr.widths);
	if (pr.out_of_memory || fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

/* The four figures of one side of a sweep point, in the order of every table. */
static void sweep_values(const struct qkv_sweep_figures *f, double values[4])
{
	values[0] = f->score_variance;
	values[1] = f->max_weight;
	values[2] = f->entropy_ratio;
	values[3] = f->jacobian_norm;
}

/* The text of sweep cell (row, col): col 0 is d_k, 1–4 scaled, 5–8 unscaled;
 * row -1 holds the headings. */
static void sweep_cell(const struct qkv_sweep_point *points, int row, int col,
		       char *buf, size_t size)
{
	static const char *const headings[] = { "variance", "max a", "H ratio", "‖J‖_F" };
	double values[4];

	if (row < 0) {
		snprintf(buf, size, "%s", col == 0 ? "d_k" : headings[(col - 1) % 4]);
		return;
	}
	if (col == 0) {
		snprintf(buf, size, "%d", points[row].d_k);
		return;
	}
	sweep_values(col <= 4 ? &points[row].scaled : &points[row].unscaled, values);
	qkv_format_number(buf, size, values[(col - 1) % 4], SWEEP_DECIMALS);
}

static const char *const sweep_keys[] = {
	"score_variance", "max_weight", "entropy_ratio", "jacobian_norm",
};

static void sweep_text(FILE *out, const struct qkv_sweep_point *points, int count,
		       int tokens, int trials, unsigned long long seed)
{
	int widths[9];
	char cell[NUMBER_SIZE];

	fprintf(out, "d_k sweep: %d tokens, %d trials, seed %llu\n"
		"Q and K drawn i.i.d. N(0, 1); each figure is a mean over trials and query rows.\n"
		"variance: of the entries fed to softmax   max a: the largest weight\n"
		"H ratio: entropy / ln n (1 uniform, 0 one-hot)   ‖J‖_F: softmax Jacobian norm\n\n",
		tokens, trials, seed);
	for (int c = 0; c < 9; c++) {
		widths[c] = 0;
		for (int r = -1; r < count; r++) {
			sweep_cell(points, r, c, cell, sizeof cell);
			if (qkv_text_columns(cell) > widths[c])
				widths[c] = qkv_text_columns(cell);
		}
	}
	int scaled_width = 0;
	for (int c = 1; c <= 4; c++)
		scaled_width += 2 + widths[c];
	put_spaces(out, 2 + widths[0] + 2);
	fputs("scaled by √d_k", out);
	put_spaces(out, scaled_width - 2 - qkv_text_columns("scaled by √d_k") + 3);
	fputs("unscaled\n", out);
	for (int r = -1; r < count; r++) {
		fputs("  ", out);
		for (int c = 0; c < 9; c++) {
			sweep_cell(points, r, c, cell, sizeof cell);
			put_spaces(out, (c == 0 ? 0 : c == 5 ? 3 : 2) + widths[c] - qkv_text_columns(cell));
			fputs(cell, out);
		}
		fputc('\n', out);
	}
}

static void sweep_markdown(FILE *out, const struct qkv_sweep_point *points, int count,
			   int tokens, int trials, unsigned long long seed)
{
	static const char *const names[] = {
		"variance", "max weight", "entropy ratio", "Jacobian norm",
	};
	char cell[NUMBER_SIZE];

	fprintf(out, "## d_k sweep: %d tokens, %d trials, seed %llu\n\n"
		"Q and K drawn i.i.d. N(0, 1); each figure is a mean over trials and query rows; "
		"entropy ratio = entropy / ln n (1 uniform, 0 one-hot).\n\n| d\\_k |",
		tokens, trials, seed);
	for (int c = 0; c < 8; c++)
		fprintf(out, " %s %s |", c < 4 ? "scaled" : "unscaled", names[c % 4]);
	fputs("\n|---:|", out);
	for (int c = 0; c < 8; c++)
		fputs("---:|", out);
	fputc('\n', out);
	for (int r = 0; r < count; r++) {
		fputc('|', out);
		for (int c = 0; c < 9; c++) {
			sweep_cell(points, r, c, cell, sizeof cell);
			fprintf(out, " %s |", cell);
		}
		fputc('\n', out);
	}
}

static void sweep_latex(FILE *out, const struct qkv_sweep_point *points, int count,
			int tokens, int trials, unsigned long long seed)
{
	char cell[NUMBER_SIZE], tex[NUMBER_SIZE * 2];

	fprintf(out, "%% Written by qkv: d_k sweep, %d tokens, %d trials, seed %llu.\n"
		"\\begin{tabular}{r|rrrr|rrrr}\n"
		" & \\multicolumn{4}{c|}{scaled by $\\sqrt{d_k}$} & \\multicolumn{4}{c}{unscaled} \\\\\n"
		"$d_k$ & variance & max $a$ & $H / \\ln n$ & $\\|J\\|_F$"
		" & variance & max $a$ & $H / \\ln n$ & $\\|J\\|_F$ \\\\ \\hline\n",
		tokens, trials, seed);
	for (int r = 0; r < count; r++) {
		for (int c = 0; c < 9; c++) {
			sweep_cell(points, r, c, cell, sizeof cell);
			latex_number(tex, sizeof tex, cell);
			fprintf(out, "%s$%s$", c > 0 ? " & " : "", tex);
		}
		fputs(" \\\\\n", out);
	}
	fputs("\\end{tabular}\n", out);
}

static void sweep_csv(FILE *out, const struct qkv_sweep_point *points, int count)
{
	char number[NUMBER_SIZE];
	double values[4];

	fputs("d_k", out);
	for (int c = 0; c < 8; c++)
		fprintf(out, ",%s_%s", c < 4 ? "scaled" : "unscaled", sweep_keys[c % 4]);
	fputc('\n', out);
	for (int r = 0; r < count; r++) {
		fprintf(out, "%d", points[r].d_k);
		for (int side = 0; side < 2; side++) {
			sweep_values(side == 0 ? &points[r].scaled : &points[r].unscaled, values);
			for (int c = 0; c < 4; c++) {
				qkv_format_exact(number, sizeof number, values[c]);
				fprintf(out, ",%s", number);
			}
		}
		fputc('\n', out);
	}
}

/* DESIGN.md's sweep object. */
static void sweep_json(FILE *out, const struct qkv_sweep_point *points, int count,
		       int tokens, int trials, unsigned long long seed)
{
	double values[4];

	fprintf(out, "{\n  \"tokens\": %d,\n  \"trials\": %d,\n  \"seed\": %llu,\n  \"rows\": [",
		tokens, trials, seed);
	for (int r = 0; r < count; r++) {
		fprintf(out, "%s\n    { \"d_k\": %d", r > 0 ? "," : "", points[r].d_k);
		for (int side = 0; side < 2; side++) {
			sweep_values(side == 0 ? &points[r].scaled : &points[r].unscaled, values);
			fprintf(out, ",\n      \"%s\": { ", side == 0 ? "scaled" : "unscaled");
			for (int c = 0; c < 4; c++) {
				fprintf(out, "%s\"%s\": ", c > 0 ? ", " : "", sweep_keys[c]);
				json_number(out, values[c]);
			}
			fputs(" }", out);
		}
		fputs(" }", out);
	}
	fputs("\n  ]\n}\n", out);
}

int print_sweep(FILE *out, const struct qkv_sweep_point *points, int count, int tokens,
		int trials, unsigned long long seed, enum print_format format)
{
	if (count < 0)
		return -1;
	switch (format) {
	case PRINT_TEXT:
		sweep_text(out, points, count, tokens, trials, seed);
		break;
	case PRINT_MARKDOWN:
		sweep_markdown(out, points, count, tokens, trials, seed);
		break;
	case PRINT_LATEX:
		sweep_latex(out, points, count, tokens, trials, seed);
		break;
	case PRINT_CSV:
		sweep_csv(out, points, count);
		break;
	case PRINT_JSON:
		sweep_json(out, points, count, tokens, trials, seed);
		break;
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
