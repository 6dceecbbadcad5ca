/* print_model.h — what every printed format shares: the report's state, its tables
 * (labels, cell text, measuring), the divisor, mask and padding in words, and the
 * backend interface each format implements (docs/DESIGN.md, "Printer backends").
 * Private to src/io/print*.c; the rest of the program uses io/print.h. */
#ifndef QKV_IO_PRINT_MODEL_H
#define QKV_IO_PRINT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/report/print.h"
#include "qkv/attention.h"
#include "qkv/cost.h"
#include "qkv/geometry.h"
#include "qkv/heads.h"
#include "qkv/online.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"
#include "qkv/train.h"

#define NUMBER_SIZE 64   /* one formatted number */
#define DIVISOR_SIZE 256 /* how the divisor came about, in words */
#define SWEEP_DECIMALS 3 /* the sweep's tables for people */
#define STATS_COLUMNS 5  /* max weight, at key, entropy, effective tokens, ‖J‖ */
/* The most bytes an escape writes for one byte of text ("^" is LaTeX's
 * "\textasciicircum{}"): an escaped copy of n bytes fits in n · this + 1. */
#define QKV_ESCAPE_GROWTH 18
/* One cell's or label's text, escaped: a label of QKV_MAX_LABEL bytes, each of
 * which may escape to QKV_ESCAPE_GROWTH bytes, and room for the words around it. */
#define CELL_SIZE (QKV_MAX_LABEL * QKV_ESCAPE_GROWTH + 1024)

/* What labels a table's rows or columns: tokens, or numbered dimensions. */
enum label_kind {
	LABEL_TOKEN, /* the problem's token labels (the keys') */
	LABEL_QUERY, /* the queries' labels: the tokens' in self-attention */
	LABEL_DIM,   /* d1, d2, …: columns of Q, K, V, the output and the W's */
	LABEL_MODEL, /* m1, m2, …: columns of X, rows of the W's */
	LABEL_RUNNING, /* "m", "ℓ": the online softmax's running maximum and sum */
};

enum table_kind {
	TABLE_MATRIX, /* a matrix of the problem or the trace */
	TABLE_MIX,    /* stage 4 for one query: the terms a_ij · v_j, then their sum */
	TABLE_STATS,  /* per query: what the softmax made of the row */
};

struct table {
	enum table_kind kind;
	const char *name;     /* "Q", "scores", …: CSV's stage column */
	const char *tex_name; /* "Q", "S'", …: the left side of LaTeX's equation */
	const struct qkv_matrix *m;
	enum label_kind row_kind, col_kind;
	const char *row_role; /* "queries", "keys": said before the labels in LaTeX */
	const char *col_role;
	bool show_masked;     /* masked (query, key) entries are written as "—" */
	int query;            /* TABLE_MIX: whose terms */
};

struct printer;

/* One sweep table, as print_sweep received it. */
struct sweep_report {
	const struct print_backend *be;
	const struct qkv_sweep_point *points;
	int count, tokens, trials;
	unsigned long long seed;
	const struct figure_options *figure; /* figure formats: never NULL */
	char *err;                           /* figure formats: the reason of a failure */
	size_t err_size;
};

/* A multi-head report as print_heads received it (print_heads.c). */
struct heads_report {
	FILE *out;
	const struct qkv_problem *p;
	const struct qkv_heads_trace *t;
	const struct print_options *o;
	struct printer *pr; /* the report's printer state, for print_escaped */
};

/* One of a multi-head report's own tables: the concatenation, W_O, the output.
 * Rows are tokens, or head columns "hIdJ" (head_rows); columns "dJ", or head
 * columns (head_cols). */
struct heads_table {
	const char *name, *title;
	const struct qkv_matrix *m;
	bool head_rows, head_cols;
};

/* A training sweep as print_train_sweep received it (print_train.c). */
struct train_sweep_report {
	const struct qkv_train_config *c;
	int seeds;
	const struct qkv_train_sweep_point *points;   /* QKV_TRAIN_SWEEP_POINTS */
	const struct qkv_train_sweep_point *baseline; /* MSE + SGD to compare with, or NULL */
	const char *verdict;                          /* the sweep's sentence */
};

/* The geometry of the queries and keys as print_geometry received it
 * (print_geometry.c): the plane, the selected query and key, their sentence. */
struct geometry_report {
	FILE *out;
	const struct print_backend *be;
	const struct qkv_problem *p;
	const struct qkv_trace *t;
	const struct qkv_geometry *g;
	int query, key;
	int decimals;
	char dot[640];   /* "q_t3 · k_t1 = 1.00 = |q| |k| cos 45°; weight 0.25" */
	char plane[256]; /* qkv_geometry_plane_sentence */
	const struct figure_options *figure;
	char *err;
	size_t err_size;
};

/* One output format. The report is built by print.c from the hooks below, in
 * order: header; per input matrix heading, table, gap; per stage stage_title,
 * prose/captions, table, wrong_sums, derivation, gap, and after the weights the
 * statistics. A NULL hook writes nothing. A format that lays the report out
 * itself (JSON; a figure, whose bytes need not be text) sets `trace`, and the
 * parts are then not used. The other reports — a multi-head problem, --cost's
 * table, a training run or sweep — have hooks of their own below; a format
 * without one does not write that report, and the command line says which
 * formats do (print_format_names). Adding a format: one file defining a backend
 * (and its line in meson.build), one entry in print.c's table, one value in enum
 * print_format, one extern line below; --format, --help and the messages follow
 * from the table (the man page's SYNOPSIS and --format entry name them too, and a
 * test holds them to the table). */
struct print_backend {
	const char *name; /* --format's word */
	enum print_kind kind;
	int figure_format; /* PRINT_KIND_FIGURE: the enum figure_format drawn */
	bool binary;       /* the bytes are not text (never to a terminal) */
	/* The whole report at once; when set, every hook down to `sweep` is unused.
	 * 0, or -1 when the report failed for a reason of its own (a figure's
	 * surface that could not be made); write errors show on the stream. */
	int (*trace)(struct printer *pr);
	/* Before anything: title, notes, sizes, divisor, mask (CSV: its header row). */
	void (*header)(struct printer *pr);
	/* "Stage 1 — scores: S = Q Kᵀ". */
	void (*stage_title)(struct printer *pr, enum qkv_stage stage);
	/* A heading: level 1 the title, 2 an input matrix or the statistics. */
	void (*heading)(struct printer *pr, int level, const char *text);
	/* A sentence under a heading. */
	void (*prose)(struct printer *pr, const char *text);
	/* Closes a run of prose lines before a table or the next section. */
	void (*end_paragraph)(struct printer *pr);
	/* The blank line after a table or a section. */
	void (*gap)(struct printer *pr);
	/* A table of the model (a matrix, the mix of one query, the statistics). */
	void (*table)(struct printer *pr, const struct table *tb);
	/* Under the weights of a wrong-way demonstration: the row and column sums. */
	void (*wrong_sums)(struct printer *pr);
	/* The example cell's arithmetic (plain UTF-8 lines). */
	void (*derivation)(struct printer *pr, const char *text);
	/* Text escaped for the format (NULL: as is); dst always terminated, never
	 * cut inside a character or an escape. */
	void (*escape)(char *dst, size_t size, const char *src);
	/* A number's text as the format writes it in a table (NULL: escaped text). */
	void (*number)(char *dst, size_t size, const char *number);
	/* The table itself names its rows and columns (LaTeX's sentence before a
	 * pmatrix), so no "rows: queries, columns: keys" line is written before it. */
	bool table_names_axes;
	/* Columns of a table are at least this wide (Markdown's "---:"). */
	int min_width;
	/* The d_k sweep as a table (or a figure); 0 or -1, as trace. */
	int (*sweep)(FILE *out, const struct sweep_report *s);

	/* A multi-head report (print_heads.c lays it out: per head a heading and the
	 * head's one-head report, then a heading, the three heads_tables and two
	 * sentences). `heads`, when set, writes the whole report instead (JSON). */
	void (*heads)(const struct heads_report *h);
	void (*heads_heading)(const struct heads_report *h, const char *text);
	void (*heads_table)(const struct heads_report *h, const struct heads_table *tb);
	void (*heads_sentence)(const struct heads_report *h, const char *text);
	/* Each head's one-head report is rows of a table with the head's number in
	 * front (CSV): the header row once, and no blank line between heads. */
	bool heads_numbered_rows;
	/* --cost's table (NULL: the format does not write it). */
	void (*cost)(FILE *out, const struct qkv_cost *c);
	/* The online softmax's report (print_online): written whole by `online`
	 * (JSON), or laid out from the hooks above (header, heading, prose, table,
	 * gap) when online_from_hooks; neither: not written in this format. */
	int (*online)(struct printer *pr, const struct qkv_online *o);
	bool online_from_hooks;
	/* A training run and a training sweep (NULL: not written in this format). */
	void (*train_run)(FILE *out, const struct qkv_train *t);
	void (*train_sweep)(FILE *out, const struct train_sweep_report *s);
	/* --stage geometry: the queries and keys as points (NULL: not in this format). */
	int (*geometry)(const struct geometry_report *r);
};

extern const struct print_backend print_text_backend;
extern const struct print_backend print_markdown_backend;
extern const struct print_backend print_latex_backend;
extern const struct print_backend print_csv_backend;
extern const struct print_backend print_json_backend;
extern const struct print_backend print_svg_backend;
extern const struct print_backend print_pdf_backend;
extern const struct print_backend print_png_backend;

/* The geometry report of text, JSON and the figure formats (print_geometry.c). */
int print_geometry_text(const struct geometry_report *r);
int print_geometry_json(const struct geometry_report *r);
int print_geometry_figure(const struct geometry_report *r);

/* The backend of a format, or NULL when there is no such format. */
const struct print_backend *print_backend_of(enum print_format format);

/* The state of one report: where it goes, what it reads, the buffers it reuses. */
struct printer {
	FILE *out;
	const struct print_backend *be;
	const struct qkv_problem *p;
	const struct qkv_trace *t;
	int stage;    /* -1 = every stage */
	int decimals; /* 0..12 */
	int cell_row, cell_col;
	char *derivation;
	size_t derivation_size;
	const struct figure_options *figure; /* figure formats: never NULL */
	char *err;                           /* figure formats: the reason of a failure */
	size_t err_size;
	int *widths;  /* column widths of the table being written, label column first */
	int widths_capacity;
	bool out_of_memory;
};

int print_clamp(int value, int low, int high);
void print_spaces(FILE *out, int count);
/* True once the report cannot go on: a write failed or memory ran out. Loops over
 * rows ask it, so a full disk or a closed pipe stops the report at once. */
bool print_stopped(struct printer *pr);

/* Labels, numbers and cells of the model. */
void print_label(const struct printer *pr, enum label_kind kind, int index, char *buf,
		 size_t size);
void print_number(const struct printer *pr, double value, char *buf, size_t size);
int print_table_rows(const struct printer *pr, const struct table *tb);
int print_table_cols(const struct printer *pr, const struct table *tb);
bool print_table_masked(const struct printer *pr, const struct table *tb, int row, int col);
double print_table_value(const struct printer *pr, const struct table *tb, int row, int col);
/* The text of one cell for people: row -1 holds the column labels, col -1 the
 * row labels (the mix table's extra row is "Σ"). */
void print_table_text(const struct printer *pr, const struct table *tb, int row, int col,
		      char *buf, size_t size);
/* The same cell as the format writes it (escaped, or as the format's number). */
void print_table_cell(const struct printer *pr, const struct table *tb, int row, int col,
		      char *buf, size_t size);
/* Measures every column of tb (label column first) into pr->widths; 0 or -1. */
int print_measure_table(struct printer *pr, const struct table *tb);
/* Writes text escaped for the format, whatever its length. */
void print_escaped(struct printer *pr, const char *text);

/* The example cell's derivation for a stage (into pr->derivation), or NULL. */
const char *print_derivation(struct printer *pr, enum qkv_stage stage);
/* The numbers the divisor is told with, as text: itself (at the report's
 * decimals), τ and the custom scale (exact); plain when τ = 1. */
struct divisor_parts {
	char divisor[NUMBER_SIZE], tau[NUMBER_SIZE], custom[NUMBER_SIZE];
	int d_k;
	bool plain;
};
void print_divisor_parts(const struct printer *pr, struct divisor_parts *d);
/* How the divisor came about, e.g. "√2 = 1.4142" or "τ·√2 = 0.5·√2 = 0.7071". */
void print_divisor_text(const struct printer *pr, char *buf, size_t size);
/* The stage's title: "Stage 1 — scores: S = Q Kᵀ", the formula between quote. */
void print_stage_title_text(const struct printer *pr, enum qkv_stage stage,
			    const char *quote, char *buf, size_t size);
int print_masked_pairs(const struct qkv_trace *t);
const char *print_mask_text(const struct qkv_problem *p);
const char *print_wrong_text(const struct qkv_problem *p);
bool print_has_padding(const struct qkv_problem *p);
/* The padding tokens, comma-separated, escaped for the format. */
void print_padding(struct printer *pr);
/* The header's facts (sizes, divisor, mask, padding, mistake, legend), one per
 * line, each after `bullet`; `legend` is how a masked entry is explained. */
void print_facts(struct printer *pr, const char *bullet, const char *legend);
/* The sizes line: "n = 3 tokens, d_k = 2, d_v = 2" (with d_model in the projected
 * form), led by "m = 2 queries, " in cross-attention. */
void print_sizes(const struct printer *pr, char *buf, size_t size);
/* The labels of a catalogue dimension (qkv/grid.h): the queries', the tokens',
 * m1… for d_model, d1… for the others. */
enum label_kind print_label_of_dim(enum qkv_dim dim);
extern const char *const print_masked_legend;

/* The sum of the weights of row i (rows) or column i of the weights. */
double print_weight_sum(const struct printer *pr, bool rows, int i);
/* The wrong-way sums as two prose lines ("each row's sum …", "each column's
 * sum …") and end_paragraph: the text, Markdown and LaTeX backends' wrong_sums. */
void print_wrong_sums_prose(struct printer *pr);

/* The four figures of one side of a sweep point, in the order of every table. */
void print_sweep_values(const struct qkv_sweep_figures *f, double values[4]);
/* The text of sweep cell (row, col): col 0 is d_k, 1–4 scaled, 5–8 unscaled;
 * row -1 holds the headings. */
void print_sweep_cell(const struct qkv_sweep_point *points, int row, int col, char *buf,
		      size_t size);
extern const char *const print_sweep_keys[4];

/* --- the cost table (print_cost.c) --- */
#define COST_EXTRAPOLATED 2
extern const int print_cost_extrapolated_n[COST_EXTRAPOLATED]; /* 10,000 and 100,000 */
/* One measured row's texts for people: scores, flops (whole numbers with
 * thousands separated by commas), bytes in double and in 16-bit of S, S' and A,
 * and per algorithm the bytes held ("413 MB") and the time, the median with the
 * fastest and slowest run ("12.98 ms (12.8–14.1)"); "—" for an algorithm not
 * measured. */
struct cost_cells {
	char entries[32], f64[32], f16[32], flops[32];
	char bytes[QKV_COST_ALGORITHMS][32], ms[QKV_COST_ALGORITHMS][112];
};
void print_cost_cells(const struct qkv_cost_row *row, struct cost_cells *cells);
/* The headings of those columns: "standard bytes", "online time (min–max)". */
extern const char *const print_cost_bytes_heading[QKV_COST_ALGORITHMS];
extern const char *const print_cost_time_heading[QKV_COST_ALGORITHMS];
/* The two lines under the title: heads, d_k, what the bytes and flops count. */
void print_cost_intro(FILE *out, const struct qkv_cost *c, const char *lead);
/* The sentences under the table: the slope, the extrapolations (each after
 * `before`), and with several heads the comparison with one wide head. */
void print_cost_closing(FILE *out, const struct qkv_cost *c, const char *before);

/* --- training (print_train.c) --- */
/* Whether a text table shows step `step` of a run of last + 1 records. */
bool print_train_shown_step(int step, int last, int steps_to_90);
/* What the learning weights are: "W_Q, W_K". */
void print_train_learned(char *buf, size_t size, unsigned learn);
/* A sweep's median steps, right-aligned in width ("17", or ">500" past budget). */
void print_train_median(FILE *out, double median, int budget, int width);
/* A bar of steps on a log scale from 1 to budget + 1, `width` columns of glyph. */
void print_train_bar(FILE *out, double median, int budget, int width, const char *glyph);

/* --- multi-head reports (print_heads.c) --- */
/* Row r's label: a token, or "hIdJ" for W_O's rows (head I's output column J). */
void print_heads_row_label(char *buf, size_t size, const struct heads_report *h,
			   const struct heads_table *tb, int r);
/* Column c's label: "hIdJ" for the concatenation's, "dJ" otherwise. */
void print_heads_col_label(char *buf, size_t size, const struct heads_report *h,
			   const struct heads_table *tb, int c);

#endif
