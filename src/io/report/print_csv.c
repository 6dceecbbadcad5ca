/* print_csv.c — the printer's CSV format: one line per cell,
 * stage,row_token,col_label,row,col,value, with exact values and masked scores
 * left empty, for spreadsheets and scripts; labels never start a formula. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/problem/json_write.h"
#include "io/report/print_model.h"
#include "qkv/format.h"

/* A label as a CSV field (see csv_field) into buf, at least 2·strlen(s) + 4
 * bytes; its length. */
static size_t csv_field_text(char *buf, const char *s)
{
	bool formula = strchr("=+-@\t\r", s[0]) != NULL && s[0] != '\0';
	bool quoted = strpbrk(s, ",\"\r\n") != NULL;
	size_t used = 0;

	if (quoted)
		buf[used++] = '"';
	if (formula)
		buf[used++] = '\'';
	for (; *s != '\0'; s++) {
		if (quoted && *s == '"')
			buf[used++] = '"';
		buf[used++] = *s;
	}
	if (quoted)
		buf[used++] = '"';
	buf[used] = '\0';
	return used;
}

/* Writes a label as a CSV field, quoted when it holds a comma, a quote or a line
 * break. A label that starts as a spreadsheet formula would (=, +, -, @, a tab or
 * a carriage return) gets a ' in front, so that opening the file never runs it. */
static void csv_field(FILE *out, const char *s)
{
	char field[2 * CELL_SIZE + 4];

	/* Every label is shorter than a cell (QKV_MAX_LABEL bytes). */
	if (strlen(s) < CELL_SIZE) {
		csv_field_text(field, s);
		fputs(field, out);
	}
}

/* Writes ",row,col," (both from 1) into text; its length. */
static size_t csv_indexes(char *text, int row, int col)
{
	size_t length = 0;
	int values[2] = { row, col };

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
	return length;
}

static void csv_header(struct printer *pr)
{
	fputs("stage,row_token,col_label,row,col,value\n", pr->out);
}

static void free_fields(char **fields, int count)
{
	for (int i = 0; fields != NULL && i < count; i++)
		free(fields[i]);
	free(fields);
}

/* The CSV fields of count labels of a kind, made once (a trace is tens of
 * thousands of lines, each naming its row and its column); the longest length in
 * *longest. NULL out of memory. */
static char **csv_fields(struct printer *pr, enum label_kind kind, int count, size_t *longest)
{
	char **fields = calloc((size_t)count, sizeof *fields);
	char label[CELL_SIZE], field[2 * CELL_SIZE + 4];

	*longest = 0;
	for (int i = 0; fields != NULL && i < count; i++) {
		size_t length;

		print_label(pr, kind, i, label, sizeof label);
		length = csv_field_text(field, label);
		fields[i] = malloc(length + 1);
		if (fields[i] == NULL) {
			free_fields(fields, i);
			return NULL;
		}
		memcpy(fields[i], field, length + 1);
		*longest = length > *longest ? length : *longest;
	}
	return fields;
}

/* Every cell of a matrix or mix table, values exact, masked empty: each row's
 * lines are made in memory and written at once, from the parts each row and each
 * column share, made once ("name,row," and ",r," per row; the column's field and
 * "c," per column). */
static void csv_matrix(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	size_t name_length = strlen(tb->name), row_longest = 0, col_longest = 0;
	char **row_fields, **col_fields, *lines = NULL, *col_parts = NULL;
	size_t *col_lengths = NULL, capacity = 0;

	if (tb->kind == TABLE_MIX)
		rows--;
	row_fields = csv_fields(pr, tb->row_kind, rows, &row_longest);
	col_fields = csv_fields(pr, tb->col_kind, cols, &col_longest);
	/* Per column: its field, then ",r," goes between, then "c," (at most 12). */
	if (row_fields != NULL && col_fields != NULL) {
		col_parts = malloc((size_t)cols * (col_longest + 12));
		col_lengths = malloc((size_t)cols * 2 * sizeof *col_lengths);
		/* A line: name, row field, column field, ",r,c," (24), a number (24), "\n". */
		capacity = (size_t)cols * (name_length + row_longest + col_longest + 64);
		lines = malloc(capacity);
	}
	if (lines == NULL || col_parts == NULL || col_lengths == NULL) {
		pr->out_of_memory = true;
	} else {
		for (int c = 0; c < cols; c++) {
			char *part = col_parts + (size_t)c * (col_longest + 12), index[16];

			col_lengths[2 * c] = strlen(col_fields[c]);
			memcpy(part, col_fields[c], col_lengths[2 * c]);
			/* csv_indexes gives ",0,c,"; the column's share is "c,". */
			col_lengths[2 * c + 1] = csv_indexes(index, 0, c + 1) - 3;
			memcpy(part + col_lengths[2 * c], index + 3, col_lengths[2 * c + 1]);
		}
		for (int r = 0; r < rows && !print_stopped(pr); r++) {
			char prefix[2 * CELL_SIZE + 64], index[32];
			size_t used = 0, prefix_length = 0, index_length;

			memcpy(prefix, tb->name, name_length);
			prefix_length = name_length;
			prefix[prefix_length++] = ',';
			prefix_length += (size_t)(stpcpy(prefix + prefix_length, row_fields[r]) - (prefix + prefix_length));
			prefix[prefix_length++] = ',';
			/* ",r," of csv_indexes's ",r,c,". */
			index_length = csv_indexes(index, r + 1, 1) - 2;
			for (int c = 0; c < cols; c++) {
				const char *part = col_parts + (size_t)c * (col_longest + 12);

				memcpy(lines + used, prefix, prefix_length);
				used += prefix_length;
				memcpy(lines + used, part, col_lengths[2 * c]);
				used += col_lengths[2 * c];
				memcpy(lines + used, index, index_length);
				used += index_length;
				memcpy(lines + used, part + col_lengths[2 * c], col_lengths[2 * c + 1]);
				used += col_lengths[2 * c + 1];
				if (!print_table_masked(pr, tb, r, c))
					used += (size_t)qkv_format_exact(lines + used, capacity - used,
									 print_table_value(pr, tb, r, c));
				lines[used++] = '\n';
			}
			fwrite(lines, 1, used, pr->out);
		}
	}
	free(lines);
	free(col_parts);
	free(col_lengths);
	free_fields(row_fields, rows);
	free_fields(col_fields, cols);
}

/* The per-query statistics as rows of stage "stats". */
static void csv_stats(struct printer *pr)
{
	static const char *const keys[] = {
		"max_weight", "entropy", "effective_tokens", "jacobian_norm",
	};
	char number[NUMBER_SIZE];

	for (int r = 0; r < pr->t->m && !print_stopped(pr); r++) {
		const struct qkv_row_stats *s = &pr->t->rows[r];
		const double values[] = {
			s->max_weight, s->entropy, s->effective_tokens, s->jacobian_norm,
		};

		for (int c = 0; c < 4; c++) {
			fputs("stats,", pr->out);
			csv_field(pr->out, qkv_problem_query_label(pr->p, r));
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

		for (int i = 0; i < (rows ? pr->t->m : pr->t->n); i++) {
			qkv_format_exact(number, sizeof number, print_weight_sum(pr, rows, i));
			fprintf(pr->out, "%s,", rows ? "row_sum" : "col_sum");
			csv_field(pr->out, rows ? qkv_problem_query_label(pr->p, i) : "");
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

/* --cost: the measured rows, then the extrapolated ones, a line per algorithm
 * measured; times exact, a time that is not finite as an empty field. */
static void csv_cost(FILE *out, const struct qkv_cost *c)
{
	char number[NUMBER_SIZE];

	fputs("kind,n,algorithm,entries,bytes_f64,bytes_f16,flops,bytes,ms,ms_min,ms_max\n", out);
	for (int i = 0; i < c->count + COST_EXTRAPOLATED; i++) {
		struct qkv_cost_row row;

		if (i < c->count)
			row = c->rows[i];
		else
			qkv_cost_extrapolate(c, print_cost_extrapolated_n[i - c->count], &row);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
			const struct qkv_cost_time *t = &row.time[a];
			double times[3] = { t->ms, t->ms_min, t->ms_max };

			if (!qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
				continue;
			fprintf(out, "%s,%d,%s,%lld,", i < c->count ? "measured" : "extrapolated", row.n,
				qkv_cost_algorithm_name((enum qkv_cost_algorithm)a), (long long)row.entries);
			/* S, S' and A in double and in 16-bit: the standard's; empty for the online. */
			if (a == QKV_COST_STANDARD)
				fprintf(out, "%lld,%lld", (long long)row.bytes_f64, (long long)row.bytes_f16);
			else
				fputc(',', out);
			fprintf(out, ",%lld,%lld", (long long)row.flops, (long long)t->bytes);
			for (int k = 0; k < 3; k++) {
				fputc(',', out);
				if (isfinite(times[k])) {
					qkv_format_exact(number, sizeof number, times[k]);
					fputs(number, out);
				}
			}
			fputc('\n', out);
		}
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

	/* A median is censored when its middle run (or one of the two) never reached
	 * 90%: only known to be at least what the budget + 1 gives. Its field is empty
	 * and its flag 1, never a number that reads as measured. */
	fputs("d_k,scaled_median,scaled_censored,unscaled_median,unscaled_censored,"
	      "scaled_reached,unscaled_reached,seeds,budget\n", out);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		const struct qkv_train_sweep_point *p = &points[k];

		fprintf(out, "%d", p->d_k);
		for (int side = 0; side < 2; side++) {
			bool censored = qkv_train_median_censored(side == 0 ? p->scaled_reached
								   : p->unscaled_reached, seeds);

			fputc(',', out);
			if (!censored)
				number17(out, side == 0 ? p->scaled_median : p->unscaled_median);
			fprintf(out, ",%d", censored ? 1 : 0);
		}
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
	.online_from_hooks = true,
};
