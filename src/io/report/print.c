/* print.c — the printer: a trace written as a report (text, Markdown, LaTeX, CSV,
 * JSON) or drawn (SVG, PDF, PNG), and the d_k sweep, for handouts, slides and
 * scripts.
 * This file knows the report's order (header, inputs, stages, statistics) and the
 * formats' table; each format is a backend in its own file (print_<format>.c)
 * and what they share is print_model.c (docs/DESIGN.md, "Printer backends"). It
 * never computes attention itself, never changes the problem, never exits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/report/print_model.h"
#include "qkv/format.h"

/* Every format, in the order of enum print_format. */
static const struct print_backend *const backends[] = {
	[PRINT_TEXT] = &print_text_backend,
	[PRINT_MARKDOWN] = &print_markdown_backend,
	[PRINT_LATEX] = &print_latex_backend,
	[PRINT_CSV] = &print_csv_backend,
	[PRINT_JSON] = &print_json_backend,
	[PRINT_SVG] = &print_svg_backend,
	[PRINT_PDF] = &print_pdf_backend,
	[PRINT_PNG] = &print_png_backend,
};
_Static_assert(sizeof backends / sizeof *backends == PRINT_FORMAT_COUNT,
	       "one backend per print format");

const struct print_backend *print_backend_of(enum print_format format)
{
	return format >= 0 && format < PRINT_FORMAT_COUNT ? backends[format] : NULL;
}

int print_format_parse(const char *name, enum print_format *format)
{
	for (int i = 0; i < PRINT_FORMAT_COUNT; i++) {
		if (strcmp(name, backends[i]->name) == 0) {
			*format = (enum print_format)i;
			return 0;
		}
	}
	return -1;
}

const char *print_format_name(enum print_format format)
{
	return format >= 0 && format < PRINT_FORMAT_COUNT ? backends[format]->name : "?";
}

enum print_kind print_format_kind(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL ? be->kind : PRINT_KIND_REPORT;
}

int print_format_figure(enum print_format format, enum figure_format *figure)
{
	const struct print_backend *be = print_backend_of(format);

	if (be == NULL || be->kind != PRINT_KIND_FIGURE)
		return -1;
	*figure = (enum figure_format)be->figure_format;
	return 0;
}

bool print_format_binary(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL && be->binary;
}

bool print_format_trains(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL && be->train_run != NULL && be->train_sweep != NULL;
}

bool print_format_heads(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL && (be->heads != NULL || be->heads_table != NULL);
}

bool print_format_geometry(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL && be->geometry != NULL;
}

bool print_format_costs(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL && be->cost != NULL;
}

bool print_format_online(enum print_format format)
{
	const struct print_backend *be = print_backend_of(format);

	return be != NULL && (be->online != NULL || be->online_from_hooks);
}

void print_format_names(char *buf, size_t size, int kind, bool (*fits)(enum print_format))
{
	int chosen[PRINT_FORMAT_COUNT], count = 0;
	size_t used = 0;

	for (int i = 0; i < PRINT_FORMAT_COUNT; i++)
		if ((kind < 0 || (int)backends[i]->kind == kind)
		    && (fits == NULL || fits((enum print_format)i)))
			chosen[count++] = i;
	if (size > 0)
		buf[0] = '\0';
	for (int k = 0; k < count && used < size; k++) {
		const char *between = k == 0 ? "" : k == count - 1 ? " or " : ", ";
		int wrote = snprintf(buf + used, size - used, "%s%s", between, backends[chosen[k]]->name);

		if (wrote < 0)
			break;
		used += (size_t)wrote;
	}
}

void print_options_default(struct print_options *o)
{
	*o = (struct print_options){ 0 };
	o->format = PRINT_TEXT;
	o->stage = -1;
	o->cell_row = 0;
	o->cell_col = 0;
	o->decimals = 4;
}

static void heading(struct printer *pr, int level, const char *text)
{
	if (pr->be->heading != NULL)
		pr->be->heading(pr, level, text);
}

static void prose(struct printer *pr, const char *text)
{
	if (pr->be->prose != NULL)
		pr->be->prose(pr, text);
}

static void end_paragraph(struct printer *pr)
{
	if (pr->be->end_paragraph != NULL)
		pr->be->end_paragraph(pr);
}

static void gap(struct printer *pr)
{
	if (pr->be->gap != NULL)
		pr->be->gap(pr);
}

static void table(struct printer *pr, const struct table *tb)
{
	if (pr->be->table != NULL && !print_stopped(pr))
		pr->be->table(pr, tb);
}

/* An input matrix (Q, K, V, X, W_*) under a heading of its own. */
static void write_input(struct printer *pr, enum qkv_grid which)
{
	const struct qkv_grid_info *info = &qkv_grid_info[which];
	const struct qkv_matrix *m = info->form == QKV_FORM_DIRECT
		? (which == QKV_GRID_Q ? &pr->t->q : which == QKV_GRID_K ? &pr->t->k : &pr->t->v)
		: qkv_problem_input_const(pr->p, which);
	struct table tb = {
		.kind = TABLE_MATRIX,
		.name = info->name,
		.tex_name = info->tex_name,
		.m = m,
		.row_kind = print_label_of_dim(info->rows),
		.col_kind = print_label_of_dim(info->cols),
	};
	char title[CELL_SIZE];

	snprintf(title, sizeof title, "%s — %s (%d × %d)", info->name, info->role, m->rows,
		 m->cols);
	heading(pr, 2, title);
	table(pr, &tb);
	gap(pr);
}

/* Stage 0: Q, K and V as the projections made them. */
static void write_projections(struct printer *pr)
{
	static const char *const captions[] = {
		"Q = X W_Q, the queries", "K = X W_K, the keys", "V = X W_V, the values",
	};
	const struct qkv_matrix *made[] = { &pr->t->q, &pr->t->k, &pr->t->v };

	for (int i = 0; i < 3; i++) {
		const struct qkv_grid_info *info = &qkv_grid_info[QKV_GRID_Q + i];
		struct table tb = { .kind = TABLE_MATRIX, .name = info->name,
				    .tex_name = info->tex_name, .m = made[i],
				    .row_kind = print_label_of_dim(info->rows), .col_kind = LABEL_DIM };

		if (i > 0)
			gap(pr);
		/* Cross-attention's queries come from their own sequence. */
		prose(pr, i == 0 && qkv_problem_is_cross(pr->p) ? "Q = X_q W_Q, the queries" : captions[i]);
		table(pr, &tb);
	}
}

/* Under the weights: each query's statistics, the score variance, ln n. */
static void write_statistics(struct printer *pr)
{
	const struct qkv_trace *t = pr->t;
	struct table stats = { .kind = TABLE_STATS, .name = "stats", .row_kind = LABEL_QUERY };
	char line[CELL_SIZE], number[NUMBER_SIZE];

	heading(pr, 2, "Statistics of the weights, per query");
	table(pr, &stats);
	if (pr->be->prose == NULL)
		return;
	gap(pr);
	print_number(pr, t->score_variance, number, sizeof number);
	snprintf(line, sizeof line, "score variance (of the entries fed to softmax): %s", number);
	prose(pr, line);
	print_number(pr, log((double)t->n), number, sizeof number);
	snprintf(line, sizeof line, "entropy of a uniform row: ln %d = %s nats", t->n, number);
	prose(pr, line);
	end_paragraph(pr);
}

/* One stage: its title, its matrix (or matrices), the example cell's arithmetic,
 * and after the weights the statistics of each row. */
static void write_stage(struct printer *pr, enum qkv_stage stage)
{
	const struct qkv_trace *t = pr->t;
	enum qkv_grid grid;
	struct table tb = { .kind = TABLE_MATRIX, .name = qkv_stage_name(stage),
			    .tex_name = qkv_grid_of_stage(stage, &grid) == 0 ? qkv_grid_info[grid].tex_name
			    : stage == QKV_STAGE_MIX ? "a_{ij}\\, v_j" : NULL,
			    .row_kind = LABEL_QUERY, .col_kind = LABEL_TOKEN };
	char line[CELL_SIZE * 2];

	if (pr->be->stage_title != NULL)
		pr->be->stage_title(pr, stage);
	switch (stage) {
	case QKV_STAGE_PROJECTIONS:
		write_projections(pr);
		break;
	case QKV_STAGE_SCORES:
	case QKV_STAGE_SCALED:
	case QKV_STAGE_WEIGHTS:
		if (!pr->be->table_names_axes) {
			prose(pr, "rows: queries, columns: keys");
			end_paragraph(pr);
		}
		tb.row_role = "queries";
		tb.col_role = "keys";
		tb.m = stage == QKV_STAGE_SCORES ? &t->scores
			: stage == QKV_STAGE_SCALED ? &t->scaled : &t->weights;
		tb.show_masked = stage != QKV_STAGE_WEIGHTS;
		table(pr, &tb);
		if (stage == QKV_STAGE_WEIGHTS && pr->p->wrong != QKV_WRONG_NONE
		    && pr->be->wrong_sums != NULL && !print_stopped(pr))
			pr->be->wrong_sums(pr);
		break;
	case QKV_STAGE_MIX:
		tb.kind = TABLE_MIX;
		tb.row_kind = LABEL_TOKEN;
		tb.col_kind = LABEL_DIM;
		tb.query = print_clamp(pr->cell_row, 0, t->m - 1);
		tb.row_role = "keys";
		snprintf(line, sizeof line, "query %s: row j holds a_ij · v_j for key j; "
			 "their sum Σ is output row %s", qkv_problem_query_label(pr->p, tb.query),
			 qkv_problem_query_label(pr->p, tb.query));
		prose(pr, line);
		end_paragraph(pr);
		table(pr, &tb);
		break;
	case QKV_STAGE_OUTPUT:
		tb.col_kind = LABEL_DIM;
		tb.m = &t->output;
		table(pr, &tb);
		break;
	}
	if (pr->be->derivation != NULL) {
		const char *text = print_derivation(pr, stage);

		if (text != NULL && text[0] != '\0')
			pr->be->derivation(pr, text);
	}
	gap(pr);
	if (stage == QKV_STAGE_WEIGHTS)
		write_statistics(pr);
}

/* Whether the report shows stage s (the projections exist only in the projected form). */
static bool shows_stage(const struct printer *pr, enum qkv_stage s)
{
	if (s == QKV_STAGE_PROJECTIONS && pr->p->form != QKV_FORM_PROJECTED)
		return false;
	return pr->stage < 0 || pr->stage == (int)s;
}

/* The report from the backend's parts: header, inputs, stages. */
static void write_report(struct printer *pr)
{
	if (pr->be->header != NULL)
		pr->be->header(pr);
	if (pr->stage < 0) {
		for (int i = 0; i < QKV_GRID_INPUTS; i++)
			if (qkv_grid_info[i].form == pr->p->form &&
			    qkv_problem_input_const(pr->p, (enum qkv_grid)i) != NULL)
				write_input(pr, (enum qkv_grid)i);
	}
	for (int s = 0; s < QKV_STAGE_COUNT && !print_stopped(pr); s++)
		if (shows_stage(pr, (enum qkv_stage)s))
			write_stage(pr, (enum qkv_stage)s);
}

int print_trace(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		const struct print_options *o)
{
	struct figure_options figure;
	struct printer pr = {
		.out = out, .p = p, .t = t, .stage = o->stage,
		.figure = o->figure != NULL ? o->figure : &figure, .err = o->err,
		.err_size = o->err != NULL ? o->err_size : 0,
		.decimals = print_clamp(o->decimals, 0, 12),
		.cell_row = o->cell_row, .cell_col = o->cell_col,
	};

	figure_options_default(&figure);
	if (o->stage == PRINT_STAGE_GEOMETRY)
		return print_geometry(out, p, t, o);
	if (t->n <= 0 || t->m <= 0 || o->stage < -1 || o->stage >= QKV_STAGE_COUNT
	    || o->format < 0 || o->format >= PRINT_FORMAT_COUNT)
		return -1;
	pr.be = backends[o->format];
	pr.derivation_size = 4096;
	pr.derivation = malloc(pr.derivation_size);
	if (pr.derivation == NULL)
		return -1;
	if (pr.be->trace != NULL) {
		if (pr.be->trace(&pr) != 0)
			pr.out_of_memory = true;
	} else {
		write_report(&pr);
	}
	free(pr.derivation);
	free(pr.widths);
	if (pr.out_of_memory || fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

/* The online softmax's report from the backend's parts: the header and the inputs
 * as in a trace's report, then what the algorithm kept and the output. */
static void write_online(struct printer *pr, const struct qkv_online *o)
{
	struct qkv_matrix running;
	struct table tb = { .kind = TABLE_MATRIX, .name = "running", .tex_name = NULL,
			    .m = &running, .row_kind = LABEL_QUERY, .col_kind = LABEL_RUNNING };
	char line[CELL_SIZE], bytes[NUMBER_SIZE], matrices[NUMBER_SIZE];
	double *values = malloc((size_t)o->queries * 2 * sizeof *values);

	if (values == NULL) {
		pr->out_of_memory = true;
		return;
	}

	if (pr->be->header != NULL)
		pr->be->header(pr);
	for (int i = 0; i < QKV_GRID_INPUTS; i++)
		if (qkv_grid_info[i].form == pr->p->form && qkv_problem_input_const(pr->p, (enum qkv_grid)i) != NULL)
			write_input(pr, (enum qkv_grid)i);
	snprintf(line, sizeof line, "Online softmax, tiles of %d key%s", o->tile, o->tile == 1 ? "" : "s");
	heading(pr, 2, line);
	/* A sentence a line: the text format does not break lines. */
	prose(pr, "S, S' and A are never formed: each query reads its keys a tile at a time.");
	prose(pr, "It keeps m, the largest scaled score s' so far, and ℓ = Σe^(s'−m).");
	prose(pr, "It also keeps o = Σe^(s'−m)·v, the output row before the division by ℓ.");
	prose(pr, "A tile that raises m multiplies ℓ and o by e^(m_old−m_new).");
	prose(pr, "So o / ℓ is softmax(S')·V's row: exact, up to the rounding of doubles.");
	qkv_format_grouped(bytes, sizeof bytes, (long long)o->bytes);
	qkv_format_grouped(matrices, sizeof matrices,
			   (long long)(3 * sizeof(double) * (size_t)o->queries * (size_t)o->keys));
	snprintf(line, sizeof line, "Held: %s bytes: Q, K and V as used, O, m, ℓ, a tile's scores and o.",
		 bytes);
	prose(pr, line);
	snprintf(line, sizeof line, "S, S' and A would take %s bytes more.", matrices);
	prose(pr, line);
	end_paragraph(pr);
	for (int i = 0; i < o->queries; i++) {
		values[2 * i] = o->max[i];
		values[2 * i + 1] = o->sum[i];
	}
	running = (struct qkv_matrix){ .rows = o->queries, .cols = 2, .values = values };
	heading(pr, 2, "m and ℓ at the end, per query");
	table(pr, &tb);
	gap(pr);
	free(values);
	snprintf(line, sizeof line, "O — output (%d × %d)", o->output.rows, o->output.cols);
	heading(pr, 2, line);
	tb = (struct table){ .kind = TABLE_MATRIX, .name = "output", .tex_name = "O", .m = &o->output,
			     .row_kind = LABEL_QUERY, .col_kind = LABEL_DIM };
	table(pr, &tb);
	gap(pr);
}

int print_online(FILE *out, const struct qkv_problem *p, const struct qkv_online *online,
		 const struct print_options *o)
{
	/* The printer's model reads a trace: this one has the sizes, the divisor and
	 * Q, K, V and O (borrowed from the online result), and no n × n matrix. */
	struct qkv_trace t = {
		.m = online->queries, .n = online->keys, .d_k = online->d_k, .d_v = online->d_v,
		.divisor = online->divisor, .q = online->q, .k = online->k, .v = online->v,
		.output = online->output,
	};
	struct printer pr = {
		.out = out, .p = p, .t = &t, .stage = -1,
		.decimals = print_clamp(o->decimals, 0, 12),
	};

	if (online->queries <= 0 || !print_format_online(o->format))
		return -1;
	pr.be = backends[o->format];
	if (pr.be->online != NULL) {
		if (pr.be->online(&pr, online) != 0)
			pr.out_of_memory = true;
	} else {
		write_online(&pr, online);
	}
	free(pr.widths);
	if (pr.out_of_memory || fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

int print_sweep(FILE *out, const struct qkv_sweep_point *points, int count, int tokens,
		int trials, unsigned long long seed, const struct print_options *o)
{
	const struct print_backend *be = print_backend_of(o->format);
	struct figure_options figure;
	struct sweep_report s = {
		.be = be, .points = points, .count = count, .tokens = tokens, .trials = trials, .seed = seed,
		.figure = o->figure != NULL ? o->figure : &figure, .err = o->err,
		.err_size = o->err != NULL ? o->err_size : 0,
	};

	figure_options_default(&figure);
	if (count < 0 || be == NULL || be->sweep == NULL)
		return -1;
	if (be->sweep(out, &s) != 0 || fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
