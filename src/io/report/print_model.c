/* print_model.c — what every printed format shares: labels, cell text and table
 * measuring, the divisor, mask and padding in words, the wrong-way sums and the
 * sweep's cells. Every number is read from the trace or the sweep and becomes
 * text through qkv/format.h, so a report and the screen agree digit for digit.
 * Nothing here knows a format: escaping and layout go through the backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/report/print_model.h"
#include "qkv/derive.h"
#include "qkv/format.h"
#include "qkv/text.h"

static const char *const stats_headings[STATS_COLUMNS] = {
	"max weight", "at key", "entropy (nats)", "effective tokens", "Jacobian norm",
};

const char *const print_masked_legend =
	"— masked: the key is hidden from that query; its score is not used and its weight is 0";

const char *const print_sweep_keys[4] = {
	"score_variance", "max_weight", "entropy_ratio", "jacobian_norm",
};

int print_clamp(int value, int low, int high)
{
	return value < low ? low : value > high ? high : value;
}

void print_spaces(FILE *out, int count)
{
	static const char spaces[] = "                                ";

	for (; count > 0; count -= (int)sizeof spaces - 1)
		fwrite(spaces, 1, count < (int)sizeof spaces - 1 ? (size_t)count : sizeof spaces - 1, out);
}

bool print_stopped(struct printer *pr)
{
	return pr->out_of_memory || ferror(pr->out);
}

void print_label(const struct printer *pr, enum label_kind kind, int index, char *buf,
		 size_t size)
{
	switch (kind) {
	case LABEL_TOKEN:
		snprintf(buf, size, "%s", pr->p->tokens[index]);
		break;
	case LABEL_QUERY:
		snprintf(buf, size, "%s", qkv_problem_query_label(pr->p, index));
		break;
	case LABEL_DIM:
		snprintf(buf, size, "d%d", index + 1);
		break;
	case LABEL_MODEL:
		snprintf(buf, size, "m%d", index + 1);
		break;
	case LABEL_RUNNING:
		snprintf(buf, size, "%s", index == 0 ? "m" : "ℓ");
		break;
	}
}

void print_number(const struct printer *pr, double value, char *buf, size_t size)
{
	qkv_format_number(buf, size, value, pr->decimals);
}

int print_table_rows(const struct printer *pr, const struct table *tb)
{
	switch (tb->kind) {
	case TABLE_MATRIX:
		return tb->m->rows;
	case TABLE_MIX:
		return pr->t->n + 1;
	case TABLE_STATS:
		return pr->t->m;
	}
	return 0;
}

int print_table_cols(const struct printer *pr, const struct table *tb)
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

bool print_table_masked(const struct printer *pr, const struct table *tb, int row, int col)
{
	return tb->show_masked && qkv_trace_is_masked(pr->t, row, col);
}

/* The value of a matrix or mix cell; the mix table's last row is the output row. */
double print_table_value(const struct printer *pr, const struct table *tb, int row, int col)
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
		print_number(pr, s->max_weight, buf, size);
		break;
	case 1:
		if (s->argmax < 0)
			snprintf(buf, size, "—");
		else
			print_label(pr, LABEL_TOKEN, s->argmax, buf, size);
		break;
	case 2:
		print_number(pr, s->entropy, buf, size);
		break;
	case 3:
		print_number(pr, s->effective_tokens, buf, size);
		break;
	default:
		print_number(pr, s->jacobian_norm, buf, size);
		break;
	}
}

/* The mix's Σ row: "Σ", or "Σ ≈" when in some column the terms, each rounded as
 * written, add up to something else than the rounded sum under them. */
static const char *mix_sum_label(const struct printer *pr, const struct table *tb)
{
	for (int c = 0; c < pr->t->d_v; c++)
		if (!qkv_trace_mix_adds_up(pr->t, tb->query, c, pr->decimals))
			return "Σ ≈";
	return "Σ";
}

void print_table_text(const struct printer *pr, const struct table *tb, int row, int col,
		      char *buf, size_t size)
{
	if (row < 0 && col < 0) {
		snprintf(buf, size, "%s", tb->kind == TABLE_STATS ? "query" : "");
	} else if (row < 0) {
		if (tb->kind == TABLE_STATS)
			snprintf(buf, size, "%s", stats_headings[col]);
		else
			print_label(pr, tb->col_kind, col, buf, size);
	} else if (col < 0) {
		if (tb->kind == TABLE_MIX && row == pr->t->n)
			snprintf(buf, size, "%s", mix_sum_label(pr, tb));
		else
			print_label(pr, tb->row_kind, row, buf, size);
	} else if (tb->kind == TABLE_STATS) {
		stats_text(pr, row, col, buf, size);
	} else if (print_table_masked(pr, tb, row, col)) {
		snprintf(buf, size, "—");
	} else {
		print_number(pr, print_table_value(pr, tb, row, col), buf, size);
	}
}

void print_table_cell(const struct printer *pr, const struct table *tb, int row, int col,
		      char *buf, size_t size)
{
	char raw[CELL_SIZE];
	bool number = row >= 0 && col >= 0 && tb->kind != TABLE_STATS
		      && !print_table_masked(pr, tb, row, col);

	if (pr->be->escape == NULL && (!number || pr->be->number == NULL)) {
		print_table_text(pr, tb, row, col, buf, size);
		return;
	}
	print_table_text(pr, tb, row, col, raw, sizeof raw);
	if (number && pr->be->number != NULL)
		pr->be->number(buf, size, raw);
	else
		pr->be->escape(buf, size, raw);
}

int print_measure_table(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
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
		pr->widths[c + 1] = pr->be->min_width;
	for (int r = -1; r < rows; r++) {
		for (int c = -1; c < cols; c++) {
			print_table_cell(pr, tb, r, c, cell, sizeof cell);
			int width = qkv_text_columns(cell);
			if (width > pr->widths[c + 1])
				pr->widths[c + 1] = width;
		}
	}
	return 0;
}

void print_escaped(struct printer *pr, const char *text)
{
	size_t size = strlen(text) * QKV_ESCAPE_GROWTH + 1;
	char *escaped;

	if (pr->be->escape == NULL) {
		fputs(text, pr->out);
		return;
	}
	escaped = malloc(size);
	if (escaped == NULL) {
		pr->out_of_memory = true;
		return;
	}
	pr->be->escape(escaped, size, text);
	fputs(escaped, pr->out);
	free(escaped);
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

const char *print_derivation(struct printer *pr, enum qkv_stage stage)
{
	int row = print_clamp(pr->cell_row, 0, pr->t->m - 1);
	int col = print_clamp(pr->cell_col, 0, stage_width(pr->t, stage) - 1);

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

void print_divisor_parts(const struct printer *pr, struct divisor_parts *d)
{
	print_number(pr, pr->t->divisor, d->divisor, sizeof d->divisor);
	qkv_format_exact(d->tau, sizeof d->tau, pr->p->temperature);
	qkv_format_exact(d->custom, sizeof d->custom, pr->p->scale_value);
	d->d_k = pr->t->d_k;
	d->plain = pr->p->temperature == 1.0;
}

void print_divisor_text(const struct printer *pr, char *buf, size_t size)
{
	struct divisor_parts d;
	const char *divisor = d.divisor, *tau = d.tau, *custom = d.custom;
	int d_k;
	bool plain;

	print_divisor_parts(pr, &d);
	d_k = d.d_k;
	plain = d.plain;
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

void print_stage_title_text(const struct printer *pr, enum qkv_stage stage,
			    const char *quote, char *buf, size_t size)
{
	char divisor[DIVISOR_SIZE];

	snprintf(buf, size, "Stage %d — %s: %s%s%s", (int)stage, qkv_stage_name(stage), quote,
		 qkv_stage_formula_of(pr->p, stage, false), quote);
	if (stage == QKV_STAGE_SCALED) {
		size_t used = strlen(buf);
		print_divisor_text(pr, divisor, sizeof divisor);
		snprintf(buf + used, size - used, ", with d = %s", divisor);
	}
}

int print_masked_pairs(const struct qkv_trace *t)
{
	int count = 0;

	/* The online softmax's report holds no n × n matrix to mark. */
	if (t->masked == NULL)
		return 0;
	for (int i = 0; i < t->m; i++)
		for (int j = 0; j < t->n; j++)
			count += qkv_trace_is_masked(t, i, j);
	return count;
}

const char *print_mask_text(const struct qkv_problem *p)
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

const char *print_wrong_text(const struct qkv_problem *p)
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

bool print_has_padding(const struct qkv_problem *p)
{
	for (int i = 0; p->padding != NULL && i < p->n; i++)
		if (p->padding[i])
			return true;
	return false;
}

void print_padding(struct printer *pr)
{
	bool any = false;

	for (int i = 0; pr->p->padding != NULL && i < pr->t->n; i++) {
		if (!pr->p->padding[i])
			continue;
		if (any)
			fputs(", ", pr->out);
		print_escaped(pr, pr->p->tokens[i]);
		any = true;
	}
}

enum label_kind print_label_of_dim(enum qkv_dim dim)
{
	switch (dim) {
	case QKV_DIM_QUERIES: return LABEL_QUERY;
	case QKV_DIM_KEYS: return LABEL_TOKEN;
	case QKV_DIM_MODEL: return LABEL_MODEL;
	default: return LABEL_DIM;
	}
}

void print_sizes(const struct printer *pr, char *buf, size_t size)
{
	const struct qkv_problem *p = pr->p;
	char queries[48] = "";
	/* Self-attention's line is as it always was ("n = 1 tokens" too). */
	const char *tokens = qkv_problem_is_cross(p) && pr->t->n == 1 ? "token" : "tokens";

	if (qkv_problem_is_cross(p))
		snprintf(queries, sizeof queries, "m = %d quer%s, ", pr->t->m, pr->t->m == 1 ? "y" : "ies");
	if (p->form == QKV_FORM_PROJECTED)
		snprintf(buf, size, "%sn = %d %s, d_model = %d, d_k = %d, d_v = %d", queries,
			 pr->t->n, tokens, qkv_problem_d_model(p), pr->t->d_k, pr->t->d_v);
	else
		snprintf(buf, size, "%sn = %d %s, d_k = %d, d_v = %d", queries,
			 pr->t->n, tokens, pr->t->d_k, pr->t->d_v);
}

void print_facts(struct printer *pr, const char *bullet, const char *legend)
{
	const struct qkv_problem *p = pr->p;
	char line[CELL_SIZE * 2], divisor[DIVISOR_SIZE];

	print_divisor_text(pr, divisor, sizeof divisor);
	print_sizes(pr, line, sizeof line);
	fprintf(pr->out, "%s%s\n", bullet, line);
	fprintf(pr->out, "%sscores ÷ %s\n", bullet, divisor);
	fprintf(pr->out, "%smask: %s\n", bullet, print_mask_text(p));
	if (print_has_padding(p)) {
		fprintf(pr->out, "%spadding: ", bullet);
		print_padding(pr);
		fputs(" (hidden as keys from every query)\n", pr->out);
	}
	if (print_wrong_text(p) != NULL)
		fprintf(pr->out, "%s%s\n", bullet, print_wrong_text(p));
	if (print_masked_pairs(pr->t) > 0)
		fprintf(pr->out, "%s%s\n", bullet, legend);
}

double print_weight_sum(const struct printer *pr, bool rows, int i)
{
	const struct qkv_trace *t = pr->t;

	/* A row's sum is the trace's own (over the keys the query sees; the others
	 * hold exactly 0); a column's is the core's. */
	return rows ? t->rows[i].weight_sum : qkv_trace_column_sum(t, i);
}

void print_wrong_sums_prose(struct printer *pr)
{
	const struct qkv_trace *t = pr->t;
	char number[NUMBER_SIZE];

	for (int pass = 0; pass < 2 && !print_stopped(pr); pass++) {
		bool rows = pass == 0;
		char *line = NULL;
		size_t length = 0;
		FILE *text = open_memstream(&line, &length);

		/* One line of any length: n tokens of up to 64 bytes and their sums. */
		if (text == NULL) {
			pr->out_of_memory = true;
			return;
		}
		fputs(rows ? "WRONG WAY: each row's sum (softmax by rows makes them all 1):"
			   : "each column's sum:", text);
		for (int i = 0; i < (rows ? t->m : t->n); i++) {
			print_number(pr, print_weight_sum(pr, rows, i), number, sizeof number);
			fprintf(text, " %s %s", rows ? qkv_problem_query_label(pr->p, i) : pr->p->tokens[i],
				number);
		}
		if (fclose(text) != 0 || line == NULL) {
			free(line);
			pr->out_of_memory = true;
			return;
		}
		if (pr->be->prose != NULL)
			pr->be->prose(pr, line);
		free(line);
	}
	if (pr->be->end_paragraph != NULL)
		pr->be->end_paragraph(pr);
}

void print_sweep_values(const struct qkv_sweep_figures *f, double values[4])
{
	values[0] = f->score_variance;
	values[1] = f->max_weight;
	values[2] = f->entropy_ratio;
	values[3] = f->jacobian_norm;
}

void print_sweep_cell(const struct qkv_sweep_point *points, int row, int col, char *buf,
		      size_t size)
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
	print_sweep_values(col <= 4 ? &points[row].scaled : &points[row].unscaled, values);
	qkv_format_number(buf, size, values[(col - 1) % 4], SWEEP_DECIMALS);
}
