/* print_csv.c — the printer's CSV format: one line per cell,
 * stage,row_token,col_label,row,col,value, with exact values and masked scores
 * left empty, for spreadsheets and scripts; labels never start a formula. */
#include <string.h>

#include "io/print_model.h"
#include "qkv/format.h"

/* Writes a label as a CSV field, quoted when it holds a comma, a quote or a line
 * break. A label that starts as a spreadsheet formula would (=, +, -, @, a tab or
 * a carriage return) gets a ' in front, so that opening the file never runs it. */
static void csv_field(FILE *out, const char *s)
{
	const char *formula = strchr("=+-@\t\r", s[0]) != NULL && s[0] != '\0' ? "'" : "";

	if (strpbrk(s, ",\"\r\n") == NULL) {
		fprintf(out, "%s%s", formula, s);
		return;
	}
	fprintf(out, "\"%s", formula);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
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

static void csv_header(struct printer *pr)
{
	fputs("stage,row_token,col_label,row,col,value\n", pr->out);
}

/* Every cell of a matrix or mix table, values exact, masked empty. */
static void csv_matrix(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	char label[CELL_SIZE], number[NUMBER_SIZE];

	if (tb->kind == TABLE_MIX)
		rows--;
	for (int r = 0; r < rows && !print_stopped(pr); r++) {
		for (int c = 0; c < cols; c++) {
			fputs(tb->name, pr->out);
			putc(',', pr->out);
			print_label(pr, tb->row_kind, r, label, sizeof label);
			csv_field(pr->out, label);
			fputc(',', pr->out);
			print_label(pr, tb->col_kind, c, label, sizeof label);
			csv_field(pr->out, label);
			csv_indexes(pr->out, r + 1, c + 1); /* ",r,c," without printf's parsing */
			if (!print_table_masked(pr, tb, r, c)) {
				qkv_format_exact(number, sizeof number,
						 print_table_value(pr, tb, r, c));
				fputs(number, pr->out);
			}
			fputc('\n', pr->out);
		}
	}
}

/* The per-query statistics as rows of stage "stats". */
static void csv_stats(struct printer *pr)
{
	static const char *const keys[] = {
		"max_weight", "entropy", "effective_tokens", "jacobian_norm",
	};
	char number[NUMBER_SIZE];

	for (int r = 0; r < pr->t->n && !print_stopped(pr); r++) {
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

static void csv_table(struct printer *pr, const struct table *tb)
{
	if (tb->kind == TABLE_STATS)
		csv_stats(pr);
	else
		csv_matrix(pr, tb);
}

/* Rows of stage "row_sum" and "col_sum", then one "wrong" row naming the mistake. */
static void csv_wrong_sums(struct printer *pr)
{
	char number[NUMBER_SIZE];

	for (int pass = 0; pass < 2; pass++) {
		bool rows = pass == 0;

		for (int i = 0; i < pr->t->n; i++) {
			qkv_format_exact(number, sizeof number, print_weight_sum(pr, rows, i));
			fprintf(pr->out, "%s,", rows ? "row_sum" : "col_sum");
			csv_field(pr->out, rows ? pr->p->tokens[i] : "");
			fputc(',', pr->out);
			csv_field(pr->out, rows ? "" : pr->p->tokens[i]);
			fprintf(pr->out, ",%d,%d,%s\n", rows ? i + 1 : 0, rows ? 0 : i + 1, number);
		}
	}
	fprintf(pr->out, "wrong,,%s,0,0,\n", qkv_wrong_name(pr->p->wrong));
}

static int csv_sweep(FILE *out, const struct sweep_report *s)
{
	char number[NUMBER_SIZE];
	double values[4];

	fputs("d_k", out);
	for (int c = 0; c < 8; c++)
		fprintf(out, ",%s_%s", c < 4 ? "scaled" : "unscaled", print_sweep_keys[c % 4]);
	fputc('\n', out);
	for (int r = 0; r < s->count; r++) {
		fprintf(out, "%d", s->points[r].d_k);
		for (int side = 0; side < 2; side++) {
			print_sweep_values(side == 0 ? &s->points[r].scaled : &s->points[r].unscaled,
					   values);
			for (int c = 0; c < 4; c++) {
				qkv_format_exact(number, sizeof number, values[c]);
				fprintf(out, ",%s", number);
			}
		}
		fputc('\n', out);
	}
	return 0;
}

const struct print_backend print_csv_backend = {
	.name = "csv",
	.header = csv_header,
	.table = csv_table,
	.wrong_sums = csv_wrong_sums,
	.sweep = csv_sweep,
};
