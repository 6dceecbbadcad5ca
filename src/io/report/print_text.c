/* print_text.c — the printer's plain-text format: what a terminal or a handout
 * shows, with tables aligned on their columns (wide characters counted twice). */
#include <string.h>

#include "io/report/print_model.h"
#include "qkv/format.h"
#include "qkv/text.h"

static void text_heading(struct printer *pr, int level, const char *text)
{
	(void)level;
	fprintf(pr->out, "%s\n", text);
}

static void text_prose(struct printer *pr, const char *text)
{
	fprintf(pr->out, "  %s\n", text);
}

static void text_newline(struct printer *pr)
{
	fputc('\n', pr->out);
}

/* Title, notes, then the facts, one per line. */
static void text_header(struct printer *pr)
{
	const struct qkv_problem *p = pr->p;

	text_heading(pr, 1, p->title != NULL ? p->title : "(untitled)");
	if (p->notes != NULL && p->notes[0] != '\0')
		fprintf(pr->out, "%s\n", p->notes);
	fputc('\n', pr->out);
	print_facts(pr, "", print_masked_legend);
	fputc('\n', pr->out);
}

static void text_stage_title(struct printer *pr, enum qkv_stage stage)
{
	char title[CELL_SIZE];

	print_stage_title_text(pr, stage, "", title, sizeof title);
	fprintf(pr->out, "%s\n", title);
}

/* Labels on the left, numbers right-aligned under their labels. */
static void text_table(struct printer *pr, const struct table *tb)
{
	int rows = print_table_rows(pr, tb), cols = print_table_cols(pr, tb);
	char cell[CELL_SIZE];

	if (print_measure_table(pr, tb) != 0)
		return;
	for (int r = -1; r < rows && !print_stopped(pr); r++) {
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
		print_table_cell(pr, tb, r, -1, cell, sizeof cell);
		fputs(cell, pr->out);
		print_spaces(pr->out, pr->widths[0] - qkv_text_columns(cell));
		for (int c = 0; c < cols; c++) {
			print_table_cell(pr, tb, r, c, cell, sizeof cell);
			print_spaces(pr->out, 2 + pr->widths[c + 1] - qkv_text_columns(cell));
			fputs(cell, pr->out);
		}
		fputc('\n', pr->out);
	}
}

/* The arithmetic, indented under the table. */
static void text_derivation(struct printer *pr, const char *text)
{
	fputc('\n', pr->out);
	for (const char *line = text; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		fprintf(pr->out, "    %.*s\n", (int)length, line);
		line += length + (line[length] == '\n');
	}
}

static int text_sweep(FILE *out, const struct sweep_report *s)
{
	int widths[9];
	char cell[NUMBER_SIZE];

	fprintf(out, "d_k sweep: %d tokens, %d trials, seed %llu\n"
		"Q and K drawn i.i.d. N(0, 1); each figure is a mean over trials and query rows.\n"
		"variance: of the entries fed to softmax   max a: the largest weight\n"
		"H ratio: entropy / ln n (1 uniform, 0 one-hot)   ‖J‖_F: softmax Jacobian norm\n\n",
		s->tokens, s->trials, s->seed);
	for (int c = 0; c < 9; c++) {
		widths[c] = 0;
		for (int r = -1; r < s->count; r++) {
			print_sweep_cell(s->points, r, c, cell, sizeof cell);
			if (qkv_text_columns(cell) > widths[c])
				widths[c] = qkv_text_columns(cell);
		}
	}
	int scaled_width = 0;
	for (int c = 1; c <= 4; c++)
		scaled_width += 2 + widths[c];
	print_spaces(out, 2 + widths[0] + 2);
	fputs("scaled by √d_k", out);
	print_spaces(out, scaled_width - 2 - qkv_text_columns("scaled by √d_k") + 3);
	fputs("unscaled\n", out);
	for (int r = -1; r < s->count; r++) {
		fputs("  ", out);
		for (int c = 0; c < 9; c++) {
			print_sweep_cell(s->points, r, c, cell, sizeof cell);
			print_spaces(out, (c == 0 ? 0 : c == 5 ? 3 : 2) + widths[c]
				     - qkv_text_columns(cell));
			fputs(cell, out);
		}
		fputc('\n', out);
	}
	return 0;
}

/* The printf width that sets text right in `columns` columns (its UTF-8 bytes
 * beyond its columns added). */
static int cost_pad(const char *text, int columns)
{
	return columns + (int)strlen(text) - qkv_text_columns(text);
}

/* --cost: the table in aligned columns, the sentences under it. */
static void text_cost(FILE *out, const struct qkv_cost *c)
{
	struct cost_cells cells;

	print_cost_intro(out, c, "The price of n²: ");
	fprintf(out, "%6s %14s %16s", "n", "scores", "flops");
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
		if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
			fprintf(out, " %*s", cost_pad(print_cost_bytes_heading[a], 15),
				print_cost_bytes_heading[a]);
	for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
		if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
			fprintf(out, " %*s", cost_pad(print_cost_time_heading[a], 28),
				print_cost_time_heading[a]);
	fputc('\n', out);
	for (int i = 0; i < c->count; i++) {
		print_cost_cells(&c->rows[i], &cells);
		fprintf(out, "%6d %14s %16s", c->rows[i].n, cells.entries, cells.flops);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
			if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
				fprintf(out, " %*s", cost_pad(cells.bytes[a], 15), cells.bytes[a]);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++)
			if (qkv_cost_measures(c, (enum qkv_cost_algorithm)a))
				fprintf(out, " %*s", cost_pad(cells.ms[a], 28), cells.ms[a]);
		fputc('\n', out);
	}
	print_cost_closing(out, c, "");
}

/* A training run: the settings, a table of the shown steps, the weights at the end. */
static void text_train_run(FILE *out, const struct qkv_train *t)
{
	const struct qkv_train_config *c = &t->config;
	const struct qkv_trace *now = &t->now.trace;
	char learned[32], divisor[32];
	int last = t->count - 1;

	print_train_learned(learned, sizeof learned, c->learn);
	if (c->scaled)
		snprintf(divisor, sizeof divisor, "√%d = %.4f", c->d_k, now->divisor);
	else
		snprintf(divisor, sizeof divisor, "1 (no scaling)");
	fprintf(out, "Training one attention head on the task \"%s\"\n", qkv_task_name(c->task));
	fprintf(out, "n = %d tokens, d_model = %d, d_k = %d, d_v = %d; scores ÷ %s\n", c->tokens,
		c->d_model, c->d_k, t->target.cols, divisor);
	fprintf(out, "loss %s, optimizer %s, lr %g, seed %llu; learning: %s\n\n",
		qkv_loss_name(c->loss), qkv_optimizer_name(c->optimizer), c->lr,
		(unsigned long long)c->seed, learned);
	fputs("   step          loss  accuracy    ‖∇W_Q‖    ‖∇W_K‖    ‖∇W_V‖  mean ‖J‖\n", out);
	for (int s = 0; s <= last; s++) {
		const struct qkv_train_record *r = &t->history[s];

		if (!print_train_shown_step(s, last, t->steps_to_90))
			continue;
		fprintf(out, "%7d  %12.6g   %6.1f%%  %8.2e  %8.2e  %8.2e  %8.2e\n", r->step, r->loss,
			100.0 * r->accuracy, r->grad_norm[0], r->grad_norm[1], r->grad_norm[2],
			r->jacobian_norm);
	}
	if (t->steps_to_90 >= 0)
		fprintf(out, "\nsteps to 90%% accuracy: %d\n", t->steps_to_90);
	else
		fprintf(out, "\nsteps to 90%% accuracy: not reached in %d steps\n", last);
	fputs("\nweights after the last step (rows: queries, columns: keys)\n     ", out);
	for (int j = 0; j < now->n; j++)
		fprintf(out, " %6s", t->problem.tokens[j]);
	fputc('\n', out);
	for (int i = 0; i < now->n; i++) {
		fprintf(out, "%5s", t->problem.tokens[i]);
		for (int j = 0; j < now->n; j++)
			fprintf(out, " %6.3f", qkv_matrix_get(&now->weights, i, j));
		fputc('\n', out);
	}
}

/* A training sweep: the medians per d_k, their bars on a log scale, the verdict. */
static void text_train_sweep(FILE *out, const struct train_sweep_report *s)
{
	const struct qkv_train_config *c = s->c;
	const struct qkv_train_sweep_point *points = s->points;
	int seeds = s->seeds;

	fprintf(out, "Steps to 90%% accuracy, task \"%s\", %s + %s, lr %g: %d tokens, d_model %d,\n"
		     "median over seeds %llu … %llu; at most %d steps (\">%d\": half the seeds or more never got there)\n\n",
		qkv_task_name(c->task), qkv_loss_name(c->loss), qkv_optimizer_name(c->optimizer), c->lr,
		c->tokens, c->d_model, (unsigned long long)c->seed,
		(unsigned long long)c->seed + (unsigned long long)seeds - 1, c->steps, c->steps);
	fputs("   d_k   scaled  unscaled  unscaled/scaled  reached 90% (scaled, unscaled)\n", out);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		const struct qkv_train_sweep_point *p = &points[k];
		bool at_least;
		double gap = qkv_train_sweep_gap(p, c->steps, &at_least);
		char ratio[32];

		if (gap < 0.0)
			snprintf(ratio, sizeof ratio, "—");
		else
			qkv_train_gap_text(ratio, sizeof ratio, gap, at_least);
		fprintf(out, "%6d", p->d_k);
		print_train_median(out, p->scaled_median, c->steps, 9);
		print_train_median(out, p->unscaled_median, c->steps, 10);
		fprintf(out, "  %*s%s  %d/%d, %d/%d\n", 15 - qkv_text_columns(ratio), "", ratio,
			p->scaled_reached, seeds, p->unscaled_reached, seeds);
	}
	fprintf(out, "\nmedian steps, log scale from 1 to %d (█ scaled, ░ unscaled; "
		"\">%d\": censored, never reached within the budget)\n", c->steps + 1, c->steps);
	for (int k = 0; k < QKV_TRAIN_SWEEP_POINTS; k++) {
		fprintf(out, "%6d █", points[k].d_k);
		print_train_bar(out, points[k].scaled_median, c->steps, 50, "█");
		if (points[k].scaled_median > c->steps)
			fprintf(out, " >%d", c->steps);
		fputc('\n', out);
		fputs("       ░", out);
		print_train_bar(out, points[k].unscaled_median, c->steps, 50, "░");
		if (points[k].unscaled_median > c->steps)
			fprintf(out, " >%d", c->steps);
		fputc('\n', out);
	}
	fprintf(out, "\n%s\n", s->verdict);
}

/* --- multi-head reports --- */

static void text_heads_heading(const struct heads_report *h, const char *text)
{
	fprintf(h->out, "════ %s ════\n\n", text);
}

static void text_heads_sentence(const struct heads_report *h, const char *text)
{
	fprintf(h->out, "%s\n\n", text);
}

/* The title and size, then labels and numbers right-aligned in equal columns. */
static void text_heads_table(const struct heads_report *h, const struct heads_table *tb)
{
	const struct qkv_matrix *m = tb->m;
	char label[QKV_MAX_LABEL * 2 + 16], number[NUMBER_SIZE];
	int width = 2;
	FILE *out = h->out;

	for (int r = 0; r < m->rows; r++)
		for (int c = 0; c < m->cols; c++) {
			int w = qkv_format_number(number, sizeof number, qkv_matrix_get(m, r, c),
						  h->o->decimals);
			if (w > width)
				width = w;
		}
	fprintf(out, "%s (%d × %d)\n%10s", tb->title, m->rows, m->cols, "");
	for (int c = 0; c < m->cols; c++) {
		print_heads_col_label(label, sizeof label, h, tb, c);
		fprintf(out, "  %*s", width, label);
	}
	fputc('\n', out);
	for (int r = 0; r < m->rows; r++) {
		print_heads_row_label(label, sizeof label, h, tb, r);
		fprintf(out, "  %-8.8s", label);
		for (int c = 0; c < m->cols; c++) {
			qkv_format_number(number, sizeof number, qkv_matrix_get(m, r, c), h->o->decimals);
			fprintf(out, "  %*s", width, number);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

const struct print_backend print_text_backend = {
	.name = "text",
	.header = text_header,
	.stage_title = text_stage_title,
	.heading = text_heading,
	.prose = text_prose,
	.end_paragraph = text_newline,
	.gap = text_newline,
	.table = text_table,
	.wrong_sums = print_wrong_sums_prose,
	.derivation = text_derivation,
	.sweep = text_sweep,
	.cost = text_cost,
	.train_run = text_train_run,
	.train_sweep = text_train_sweep,
	.heads_heading = text_heads_heading,
	.heads_table = text_heads_table,
	.heads_sentence = text_heads_sentence,
	.online_from_hooks = true,
	.geometry = print_geometry_text,
};
