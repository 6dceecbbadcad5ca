/* latex_heatmap.c — a stage's heatmap as a coloured LaTeX tabular or a pgfplots
 * matrix plot (see latex_heatmap.h). */
#include "io/report/latex_heatmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/figure/figure.h"
#include "io/report/latex_text.h"
#include "qkv/heads.h"
#include "qkv/colour.h"
#include "qkv/format.h"

#define LABEL_SIZE 1536   /* a label of at most 64 bytes, each escaped to at most 20 */
#define PGF_LABEL_WIDTH 50.0 /* pt: the widest tick label before labels break */
#define PGF_LABEL_LENGTH 100.0 /* pt: an upright key label's box, when labels break */
#define PGF_SMALL 0.7      /* \scriptsize (7 pt) to 10 pt: the broken labels' type */
#define PGF_AXIS_WIDTH 150.0 /* pt: the least the axis takes (half a Beamer frame's line) */
/* pt: what a frame's text height keeps beside an axis under upright key labels:
 * the frame's title, "keys", the labels' gap and a line of slack */
#define PGF_RESERVE 70.0

static const struct qkv_rgb black = { 0, 0, 0 }, white = { 255, 255, 255 };

int latex_heatmap_parse(const char *name, enum latex_heatmap_form *form)
{
	if (name == NULL || strcmp(name, "table") == 0)
		*form = LATEX_HEATMAP_TABLE;
	else if (strcmp(name, "pgfplots") == 0)
		*form = LATEX_HEATMAP_PGFPLOTS;
	else
		return -1;
	return 0;
}

/* Text for LaTeX's text mode (latex_text_escape). */
static void escape(char *dst, size_t size, const char *src)
{
	latex_text_escape(dst, size, src);
}

/* True when a label is estimated wider than LATEX_LABEL_WIDTH: it is then set in
 * a box that wide and breaks between its characters. */
static bool label_breaks(const char *label)
{
	return latex_text_width(label) > LATEX_LABEL_WIDTH;
}

/* A label of the table: as it is, or, when it breaks, in a box LATEX_LABEL_WIDTH
 * wide, aligned as `align` says (\raggedleft, \centering), at the box's top line
 * (`position` t) or its bottom one (b). */
static void table_label(FILE *out, const char *label, char position, const char *align)
{
	char escaped[LABEL_SIZE];

	if (!label_breaks(label)) {
		escape(escaped, sizeof escaped, label);
		fputs(escaped, out);
		return;
	}
	fprintf(out, "\\parbox[%c]{%gpt}{%s ", position, LATEX_LABEL_WIDTH, align);
	latex_text_breakable(out, label);
	fputs("\\strut}", out);
}

static const struct qkv_matrix *stage_matrix(const struct qkv_trace *t, int stage)
{
	return stage == QKV_STAGE_SCORES ? &t->scores : stage == QKV_STAGE_SCALED ? &t->scaled : &t->weights;
}

/* The number as LaTeX math, "—" for a masked entry. */
static void number(char *buf, size_t size, double value, int decimals, bool masked)
{
	char text[64];

	if (masked) {
		snprintf(buf, size, "---");
		return;
	}
	qkv_format_number(text, sizeof text, value, decimals);
	snprintf(buf, size, "$%s$", text);
}

/* The figure's colours for one stage: its map (or palette's steps), levels and
 * range; the auto range is 0..1 for weights, ±limit for signed values. */
static struct figure_scale heat_scale(const struct figure_options *o, bool signed_values, double limit)
{
	struct figure_scale s = { .palette = o->palette, .map = o->map, .levels = o->levels,
				  .signed_values = signed_values, .low = signed_values ? -limit : 0.0,
				  .high = signed_values ? limit : 1.0 };

	if (o->map >= 0 && o->range_given) {
		s.low = o->range_low;
		s.high = o->range_high;
	}
	return s;
}

static void header(FILE *out, const struct qkv_problem *p, int stage, const struct figure_scale *s,
		   const char *needs)
{
	char title[LABEL_SIZE * 4], low[64], high[64];
	int map = figure_scale_map(s);

	escape(title, sizeof title, p->title != NULL ? p->title : "qkv");
	fprintf(out, "%% %s\n%% Stage %d, %s: %s. ", title, stage, qkv_stage_name((enum qkv_stage)stage),
		qkv_stage_formula_of(p, (enum qkv_stage)stage, false));
	if (map < 0) {
		fprintf(out, "Colours: qkv's %s palette.\n", qkv_colour_palette_name(s->palette));
	} else {
		qkv_format_number(low, sizeof low, s->low, 4);
		qkv_format_number(high, sizeof high, s->high, 4);
		fprintf(out, "Colours: %s from %s to %s", qkv_colour_map_name(map), low, high);
		if (s->levels >= 2)
			fprintf(out, " in %d levels", s->levels);
		fputs(", beyond them clamped.\n", out);
	}
	fprintf(out, "%% Needs %s\n", needs);
}

/* The tabular's columns (keys) in groups that fit the text width, each group a
 * tabular of its own under the one before, with the query labels again: the type
 * keeps its size. starts has room for t->n + 1 entries; returns the groups. */
static int table_groups(const struct qkv_problem *p, const struct qkv_trace *t, const struct qkv_matrix *m,
			int decimals, int *starts)
{
	double *widths = malloc(((size_t)t->n + 1) * sizeof *widths), labels = 60.0; /* queries \ keys */
	char text[96];
	int groups;

	if (widths == NULL) {
		starts[0] = 0;
		starts[1] = t->n;
		return 1;
	}
	for (int i = 0; i < t->m; i++) {
		double width = latex_text_width(qkv_problem_query_label(p, i));

		width = width > LATEX_LABEL_WIDTH ? LATEX_LABEL_WIDTH : width;
		labels = width > labels ? width : labels;
	}
	for (int j = 0; j < t->n; j++) {
		widths[j] = latex_text_width(p->tokens[j]);
		widths[j] = widths[j] > LATEX_LABEL_WIDTH ? LATEX_LABEL_WIDTH : widths[j];
		for (int i = 0; i < t->m; i++) {
			double width;

			qkv_format_number(text, sizeof text, qkv_matrix_get(m, i, j), decimals);
			width = latex_text_width(text);
			widths[j] = width > widths[j] ? width : widths[j];
		}
		widths[j] += 12.0; /* \tabcolsep on both sides */
	}
	groups = latex_text_groups(widths, t->n, labels + 12.0, starts);
	free(widths);
	return groups;
}

/* The lines a label of the table takes: one, or those of a label that breaks. */
static int label_lines(const char *label)
{
	return label_breaks(label) ? latex_text_label_lines(label) : 1;
}

/* The line that names a part of a split table: its queries (when the rows are
 * in runs), its keys (when the columns are in groups). */
static void part_line(FILE *out, bool first, int top, int bottom, int queries, int left, int right, int keys)
{
	fputs(first ? "" : "\\par\\smallskip\n", out);
	fputs("\\noindent ", out);
	if (top > 0 || bottom < queries)
		fprintf(out, "Queries %d--%d of %d%s", top + 1, bottom, queries, left > 0 || right < keys ? ", k" : "");
	else
		fputs("K", out);
	if (left > 0 || right < keys)
		fprintf(out, "eys %d--%d of %d", left + 1, right, keys);
	fputs(":\\par\\nopagebreak\n", out);
}

/* The heatmap as tabulars: its keys in groups that fit the text width and its
 * queries in runs of at most LATEX_FIT_LINES lines with the heading and the line
 * naming the part (latex_text_runs), each part a tabular of its own under that
 * line, with the query and key labels again, so that the type keeps its size and
 * a page or a Beamer frame can break between the parts. */
static void write_table(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
			const struct figure_scale *scale, int stage, int decimals, const char *title)
{
	const struct qkv_matrix *m = stage_matrix(t, stage);
	char text[96];
	int *starts = malloc(((size_t)t->n + 2) * sizeof *starts), groups;
	int *lines = malloc(((size_t)t->m + 1) * sizeof *lines), *tops = malloc(((size_t)t->m + 2) * sizeof *tops);

	if (starts == NULL || lines == NULL || tops == NULL) {
		free(starts);
		free(lines);
		free(tops);
		return;
	}
	header(out, p, stage, scale, "\\usepackage[table]{xcolor} (for \\cellcolor).");
	if (title != NULL)
		fprintf(out, "\\par\\medskip\\noindent\\textbf{%s}\\par\\nopagebreak\\smallskip\n", title);
	groups = table_groups(p, t, m, decimals, starts);
	for (int i = 0; i < t->m; i++)
		lines[i] = label_lines(qkv_problem_query_label(p, i));
	for (int g = 0; g < groups && !ferror(out); g++) {
		int first = starts[g], last = starts[g + 1], heading = 1, runs;

		/* the heading row is as tall as its tallest key label; the naming line one more */
		for (int j = first; j < last; j++)
			heading = label_lines(p->tokens[j]) > heading ? label_lines(p->tokens[j]) : heading;
		runs = latex_text_runs(lines, t->m, heading + 1, tops);
		for (int k = 0; k < runs && !ferror(out); k++) {
			if (groups > 1 || runs > 1)
				part_line(out, g == 0 && k == 0, tops[k], tops[k + 1], t->m, first, last, t->n);
			fprintf(out, "\\noindent" LATEX_NO_DEPTH "\\begin{tabular}{r*{%d}{c}}\n", last - first);
			fputs("\\textit{queries}\\,\\textbackslash\\,\\textit{keys}", out);
			for (int j = first; j < last; j++) {
				fputs(" & ", out);
				table_label(out, p->tokens[j], 'b', "\\centering");
			}
			fputs(" \\\\\n", out);
			for (int i = tops[k]; i < tops[k + 1] && !ferror(out); i++) {
				table_label(out, qkv_problem_query_label(p, i), 't', "\\raggedleft");
				for (int j = first; j < last; j++) {
					bool masked = qkv_trace_is_masked(t, i, j);
					double v = qkv_matrix_get(m, i, j);
					struct qkv_rgb fill = figure_heat_fill(scale, v, masked, white);
					struct qkv_rgb ink = qkv_colour_text_on(fill, black, white);

					number(text, sizeof text, v, decimals, masked);
					fprintf(out, " & \\cellcolor[RGB]{%d,%d,%d}\\textcolor[RGB]{%d,%d,%d}{%s}", fill.r,
						fill.g, fill.b, ink.r, ink.g, ink.b, text);
				}
				fputs(" \\\\\n", out);
			}
			fputs("\\end{tabular}}\n", out);
		}
	}
	free(starts);
	free(lines);
	free(tops);
}

/* The most colours a pgfplots colour map gets: a continuous map in this many
 * equal bins. */
#define PGF_BINS 256

/* pgfplots' colour map: `steps` colours, each cell's meta its step + 0.5 (so
 * that piecewise constant access picks that step's colour). A map: its --levels
 * bins (PGF_BINS when continuous), bin k the colour figure_heat_fill gives the
 * values in it; a palette: its steps, as the screen shows them. */
struct pgf_steps {
	struct qkv_rgb colours[PGF_BINS];
	int count;
};

static void pgf_steps_of(const struct figure_scale *s, struct pgf_steps *st)
{
	struct qkv_ramp ramp;

	if (figure_scale_map(s) >= 0) {
		struct figure_scale binned = *s;

		binned.levels = s->levels >= 2 ? s->levels : PGF_BINS;
		st->count = binned.levels;
		for (int k = 0; k < st->count; k++)
			st->colours[k] = figure_heat_fill(&binned, s->low + (k + 0.5) / st->count * (s->high - s->low),
							  false, white);
		return;
	}
	ramp = s->signed_values ? qkv_colour_signed((enum qkv_palette)s->palette)
				: qkv_colour_weights((enum qkv_palette)s->palette);
	st->count = ramp.count > 0 ? ramp.count : 2;
	for (int k = 0; k < st->count; k++)
		st->colours[k] = ramp.count > 0 ? ramp.steps[k] : white;
}

/* A value's step + 0.5 on the colour map of pgf_steps_of. */
static double pgf_step(const struct figure_scale *s, const struct pgf_steps *st, double v)
{
	struct qkv_ramp ramp;

	if (figure_scale_map(s) >= 0) {
		double bin = floor(qkv_colour_fraction(v, s->low, s->high) * st->count);

		return fmin(bin, st->count - 1) + 0.5;
	}
	ramp = s->signed_values ? qkv_colour_signed((enum qkv_palette)s->palette)
				: qkv_colour_weights((enum qkv_palette)s->palette);
	if (ramp.count == 0)
		return 0.5;
	if (s->signed_values)
		return qkv_colour_signed_step(v, s->high, ramp.count / 2) + 0.5;
	return qkv_colour_weight_step_of(v, ramp.count) + 0.5;
}

/* The colour map: (masked grey,) then the steps, as rgb255 entries. */
static void colormap(FILE *out, const struct pgf_steps *st, bool any_masked)
{
	struct qkv_rgb grey = qkv_colour_masked();

	fputs("  colormap={qkv}{", out);
	if (any_masked)
		fprintf(out, "rgb255=(%d,%d,%d) ", grey.r, grey.g, grey.b);
	for (int k = 0; k < st->count; k++)
		fprintf(out, "%srgb255=(%d,%d,%d)%s", k > 0 ? " " : "", st->colours[k].r, st->colours[k].g,
			st->colours[k].b, k % 8 == 7 && k + 1 < st->count ? "\n   " : "");
	fputs("},\n  colormap access=piecewise constant,\n", out);
}

/* A tick label of the plot: escaped, and free to break anywhere when `breaks`. */
static void pgf_label(FILE *out, const char *label, bool breaks)
{
	char escaped[LABEL_SIZE];

	if (breaks) {
		latex_text_breakable(out, label);
		return;
	}
	escape(escaped, sizeof escaped, label);
	fputs(escaped, out);
}

/* The colour bar's ticks: a map's range in quarters, a palette's step edges
 * (weights) or its ends and middle (signed values). */
static void pgf_ticks(FILE *out, const struct figure_scale *s, int steps)
{
	char text[64];
	bool quarters = figure_scale_map(s) >= 0;
	int count = quarters ? 5 : s->signed_values ? 3 : steps + 1;

	fputs("  colorbar,\n  colorbar style={ytick={", out);
	for (int k = 0; k < count; k++)
		fprintf(out, "%s%g", k > 0 ? "," : "", (double)k * steps / (count - 1));
	fputs("}, yticklabels={", out);
	for (int k = 0; k < count; k++) {
		double value = s->low + (s->high - s->low) * k / (count - 1);

		qkv_format_number(text, sizeof text, value, 2);
		fprintf(out, "%s$%s%s$", k > 0 ? "," : "", value > 0.0 && s->signed_values ? "+" : "", text);
	}
	fputs("}},\n", out);
}

/* pgfplots' inner sep on each side of a number near its coordinate, in em. */
#define PGF_NODE_SEP 0.3333

/* The font the numbers are written in: the largest of \normalsize (10 pt),
 * \scriptsize (7 pt) and \tiny (5 pt) at which the widest number, with its
 * node's inner sep, fits a cell of the narrowest axis (PGF_AXIS_WIDTH over the
 * keys); NULL when none does: the heatmap is then drawn without them (its colour
 * bar gives the values), "" for \normalsize. */
static const char *pgf_numbers_font(const struct qkv_trace *t, const struct qkv_matrix *m, int decimals)
{
	static const struct {
		double size;
		const char *font;
	} fonts[] = { { 10.0, "" }, { 7.0, "\\scriptsize" }, { 5.0, "\\tiny" } };
	double widest = 0.0;
	char text[96];

	for (int i = 0; i < t->m; i++)
		for (int j = 0; j < t->n; j++) {
			double width;

			if (qkv_trace_is_masked(t, i, j))
				snprintf(text, sizeof text, "---");
			else
				qkv_format_number(text, sizeof text, qkv_matrix_get(m, i, j), decimals);
			width = latex_text_width(text);
			widest = width > widest ? width : widest;
		}
	for (size_t k = 0; k < sizeof fonts / sizeof fonts[0]; k++)
		if ((widest + 2.0 * PGF_NODE_SEP * 10.0) * fonts[k].size / 10.0 <= PGF_AXIS_WIDTH / t->n)
			return fonts[k].font;
	return NULL;
}

static void write_pgfplots(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
			   const struct figure_scale *scale, int stage, int decimals, const char *title)
{
	const struct qkv_matrix *m = stage_matrix(t, stage);
	bool any_masked = false, long_labels = false, upright = false;
	const char *font;
	double length = 0.0;
	struct pgf_steps *st = malloc(sizeof *st);
	char text[96];

	if (st == NULL)
		return;
	pgf_steps_of(scale, st);
	for (int i = 0; i < t->m; i++)
		for (int j = 0; j < t->n; j++)
			any_masked |= qkv_trace_is_masked(t, i, j);
	header(out, p, stage, scale, "\\usepackage{pgfplots} and \\pgfplotsset{compat=1.16} or later.");
	fputs("% Each cell's colour is its step of the colour map (the meta column), so the\n"
	      "% colours are exactly qkv's figures' in steps; the colour bar's ticks are values.\n", out);
	/* The title above the picture, as the table form has it: the axis's own
	 * title would sit on the key labels and "keys", which are above the plot. */
	if (title != NULL)
		fprintf(out, "\\par\\medskip\\noindent\\textbf{%s}\\par\\nopagebreak\\smallskip\n", title);
	fputs("\\begin{tikzpicture}\n\\begin{axis}[\n", out);
	colormap(out, st, any_masked);
	fprintf(out, "  point meta min=%d, point meta max=%d,\n", any_masked ? -1 : 0, st->count);
	pgf_ticks(out, scale, st->count);
	fputs("  xtick={0,...,", out);
	fprintf(out, "%d}, ytick={0,...,%d},\n", t->n - 1, t->m - 1);
	/* Labels wider than PGF_LABEL_WIDTH break between their characters in
	 * boxes that wide, in small type, so the axis, its labels and the colour bar
	 * fit the line. The key labels stand upright above their columns, read from
	 * the bottom up, when one is wider than a column: side by side they would
	 * run into each other. The axis then gives up the height they take. */
	for (int i = 0; i < t->m + t->n; i++)
		long_labels |= latex_text_width(i < t->m ? qkv_problem_query_label(p, i) : p->tokens[i - t->m]) >
			       PGF_LABEL_WIDTH;
	for (int j = 0; j < t->n; j++) {
		double width = latex_text_width(p->tokens[j]) * (long_labels ? PGF_SMALL : 1.0);

		upright |= width > PGF_AXIS_WIDTH / t->n;
		length = width > length ? width : length;
	}
	length = long_labels ? PGF_LABEL_LENGTH : length;
	if (upright && long_labels)
		fprintf(out, "  xticklabel style={rotate=90, anchor=west, font=\\scriptsize, text width=%gpt, align=left},\n",
			PGF_LABEL_LENGTH);
	else if (upright)
		fputs("  xticklabel style={rotate=90, anchor=west},\n", out);
	if (upright)
		fprintf(out, "  height=\\textheight-%gpt,\n", PGF_RESERVE + ceil(length));
	if (long_labels)
		fprintf(out, "%s  yticklabel style={font=\\scriptsize, text width=%gpt, align=right},\n",
			upright ? "" : "  xticklabel style={font=\\scriptsize, text width=50pt, align=center},\n",
			PGF_LABEL_WIDTH);
	fputs("  xticklabels={", out);
	for (int j = 0; j < t->n; j++) {
		fputs(j > 0 ? ",{" : "{", out);
		pgf_label(out, p->tokens[j], long_labels);
		fputc('}', out);
	}
	fputs("},\n  yticklabels={", out);
	for (int i = 0; i < t->m; i++) {
		fputs(i > 0 ? ",{" : "{", out);
		pgf_label(out, qkv_problem_query_label(p, i), long_labels);
		fputc('}', out);
	}
	/* The axis takes half the line, so the labels and the colour bar fit beside it;
	 * the numbers get smaller as the cells do, and are left out when the widest
	 * would not fit its cell. */
	font = pgf_numbers_font(t, m, decimals);
	fprintf(out, "},\n  scale only axis, width=0.5\\linewidth,\n");
	if (font == NULL)
		fputs("  % no numbers: the widest is wider than a cell; the colour bar gives the values\n", out);
	if (font != NULL && font[0] != '\0')
		fprintf(out, "  nodes near coords style={font=%s},\n", font);
	fputs("  xlabel={keys}, ylabel={queries}, y dir=reverse, xticklabel pos=top,\n"
	      "  xlabel near ticks, enlargelimits=false, axis on top, axis equal image,\n"
	      "  major tick length=0pt,\n", out);
	if (font != NULL)
		fputs("  nodes near coords={\\qkvlabel},\n"
		      "  visualization depends on={value \\thisrow{label} \\as \\qkvlabel},\n"
		      "  visualization depends on={value \\thisrow{ink} \\as \\qkvink},\n"
		      "  every node near coord/.append style={anchor=center, text=\\qkvink},\n", out);
	fputs("]\n", out);
	fprintf(out, "\\addplot[matrix plot*, mesh/cols=%d, point meta=explicit] table[meta=step] {\n"
		     "x y step label ink\n", t->n);
	for (int i = 0; i < t->m && !ferror(out); i++)
		for (int j = 0; j < t->n; j++) {
			bool masked = qkv_trace_is_masked(t, i, j);
			double v = qkv_matrix_get(m, i, j);
			double step = masked ? -0.5 : pgf_step(scale, st, v);
			struct qkv_rgb fill = masked ? qkv_colour_masked() : st->colours[(int)step];
			struct qkv_rgb ink = qkv_colour_text_on(fill, black, white);

			if (masked)
				snprintf(text, sizeof text, "---");
			else
				qkv_format_number(text, sizeof text, v, decimals);
			fprintf(out, "%d %d %g {%s} %s\n", j, i, step, text,
				ink.r == 255 ? "white" : "black");
		}
	fputs("};\n\\end{axis}\n\\end{tikzpicture}\n", out);
	free(st);
}

const char *latex_heatmap_preamble(enum latex_heatmap_form form)
{
	return form == LATEX_HEATMAP_PGFPLOTS ? "\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.16}"
					      : "\\usepackage[table]{xcolor}";
}

/* One heatmap, under `title` when it is not NULL; limit: the signed values'
 * auto range ±limit. */
static int write_one(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
		     const struct figure_options *o, double limit, enum latex_heatmap_form form, const char *title)
{
	int stage = o->stage;
	struct figure_scale scale;

	if (stage != QKV_STAGE_SCORES && stage != QKV_STAGE_SCALED && stage != QKV_STAGE_WEIGHTS)
		return -1;
	scale = heat_scale(o, stage != QKV_STAGE_WEIGHTS, limit);
	if (scale.palette < 0 || scale.palette >= QKV_PALETTE_COUNT)
		scale.palette = QKV_PALETTE_VIRIDIS;
	if (form == LATEX_HEATMAP_PGFPLOTS)
		write_pgfplots(out, p, t, &scale, stage, o->decimals, title);
	else
		write_table(out, p, t, &scale, stage, o->decimals, title);
	return ferror(out) ? -1 : 0;
}

int latex_heatmap_write(FILE *out, const struct qkv_problem *p, const struct qkv_trace *t,
			const struct figure_options *o, enum latex_heatmap_form form)
{
	double limit = o->stage == QKV_STAGE_SCORES || o->stage == QKV_STAGE_SCALED
		       ? figure_signed_limit(t, stage_matrix(t, o->stage)) : 1.0;

	return write_one(out, p, t, o, limit, form, NULL);
}

int latex_heatmap_write_heads(FILE *out, const struct qkv_problem *p, const struct qkv_heads_trace *t,
			      const struct figure_options *o, enum latex_heatmap_form form)
{
	double limit = 0.0;
	char title[64];

	/* One range for every head, as the figure's one colour bar. */
	for (int i = 0; i < t->h; i++)
		if (o->stage == QKV_STAGE_SCORES || o->stage == QKV_STAGE_SCALED) {
			double head = figure_signed_limit(&t->head[i], stage_matrix(&t->head[i], o->stage));

			limit = head > limit ? head : limit;
		}
	for (int i = 0; i < t->h; i++) {
		struct qkv_problem view;

		qkv_problem_head_view(p, i, &view);
		snprintf(title, sizeof title, "Head %d of %d", i + 1, t->h);
		if (i > 0)
			fputs("\n\\par\\medskip\n", out);
		if (write_one(out, &view, &t->head[i], o, limit > 0.0 ? limit : 1.0, form, title) != 0)
			return -1;
	}
	return ferror(out) ? -1 : 0;
}
