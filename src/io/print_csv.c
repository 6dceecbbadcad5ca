/* print_csv.c — the printer's CSV format: one line per cell,
 * stage,row_token,col_label,row,col,value, with exact values and masked scores
 * left empty, for spreadsheets and scripts; labels never start a formula. */
#include <math.h>
#include <string.h>

#include "io/json_write.h"
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

/* --cost: the measured rows, then the extrapolated ones; times exact, a time
 * that is not finite as an empty field. */
static void csv_cost(FILE *out, const struct qkv_cost *c)
{
	char number[NUMBER_SIZE];

	fputs("kind,n,entries,bytes_f64,bytes_f16,flops,ms\n", out);
	for (int i = 0; i < c->count + COST_EXTRAPOLATED; i++) {
		struct qkv_cost_row row;

		if (i < c->count)
			row = c->rows[i];
		else
			qkv_cost_extrapolate(c, print_cost_extrapolated_n[i - c->count], &row);
		fprintf(out, "%s,%d,%lld,%lld,%lld,%lld,", i < c->count ? "measured" : "extrapolated",
			row.n, (long long)row.entries, (long long)row.bytes_f64,
			(long long)row.bytes_f16, (long long)row.flops);
		if (isfinite(row.ms)) {
			qkv_format_exact(number, sizeof number, row.ms);
			fputs(number, out);
		}
		fputc('\n', out);
	}
}

/* A number as the training tables write it: %.17g, empty text never (null when
 * not finite, through the one JSON writer). */
static void number17(FILE *out, double value)
{
	json_write_number(out, value, JSON_17G);
}

/* A training run: one line per step, numbers exact. */
static void csv_train_run(FILE *out, const struct qkv_train *t)
{
	fputs("step,loss,accuracy,grad_norm_W_Q,grad_norm_W_K,grad_norm_W_V,jacobian_norm\n", out);
	for (int s = 0; s < t->count; s++) {
		const struct qkv_train_record *r = &t->history[s];

		fprintf(out, "%d,", r->step);
		number17(out, r->loss);
		fputc(',', out);
		number17(out, r->accuracy);
		for (int k = 0; k < QKV_WEIGHT_COUNT; k++) {
			fputc(',', out);
			number17(out, r->grad_norm[k]);
		}
		fputc(',', out);
		number17(out, r->jacobian_norm);
		fputc('\n', out);
	}
}

/* A training sweep: one line per d_k. */
static void csv_train_sweep(FILE *out, const struct train_sweep_report *s)
{
	const struct qkv_train_sweep_point *points = s->points;
	int seeds = s->seeds, budget = s->c->steps;

	fputs("d_k,scaled_median,unscaled_median,scaled_reached,unscaled_reached,seeds,budget\n", out);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		const struct qkv_train_sweep_point *p = &points[k];

		fprintf(out, "%d,", p->d_k);
		number17(out, p->scaled_median);
		fputc(',', out);
		number17(out, p->unscaled_median);
		fprintf(out, ",%d,%d,%d,%d\n", p->scaled_reached, p->unscaled_reached, seeds, budget);
	}
}

/* A multi-head report's own table: one line per cell, as a stage's, with the
 * table's name in the stage column, the head number column empty and the values
 * exact in the shortest form, as a one-head report writes them. */
static void csv_heads_table(const struct heads_report *h, const struct heads_table *tb)
{
	char label[QKV_MAX_LABEL * 2 + 16], number[NUMBER_SIZE];

	for (int r = 0; r < tb->m->rows; r++)
		for (int c = 0; c < tb->m->cols; c++) {
			print_heads_row_label(label, sizeof label, h, tb, r);
			fprintf(h->out, ",%s,", tb->name);
			csv_field(h->out, label);
			print_heads_col_label(label, sizeof label, h, tb, c);
			qkv_format_exact(number, sizeof number, qkv_matrix_get(tb->m, r, c));
			fprintf(h->out, ",%s,%d,%d,%s\n", label, r + 1, c + 1, number);
		}
}

const struct print_backend print_csv_backend = {
	.name = "csv",
	.header = csv_header,
	.table = csv_table,
	.wrong_sums = csv_wrong_sums,
	.sweep = csv_sweep,
	.cost = csv_cost,
	.train_run = csv_train_run,
	.train_sweep = csv_train_sweep,
	.heads_table = csv_heads_table,
	.heads_numbered_rows = true,
};
