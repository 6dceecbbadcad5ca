/* test_figure.c — the figure module in-process: --size parsing, the heat fill
 * against the published ramps, the layout's cells (one per value, side by side,
 * inside the figure), and every stage × format × palette × background drawn into
 * memory with masks, padding and the wrong ways (the sanitizer build runs these). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/figure/figure.h"
#include "io/figure/figure_canvas.h"
#include "qkv/attention.h"
#include "qkv/colour.h"
#include "qkv/geometry.h"
#include "qkv/heads.h"
#include "qkv/problem.h"

#include "tap_main.h"

static bool rgb_is(struct qkv_rgb c, unsigned hex)
{
	return c.r == (hex >> 16 & 0xff) && c.g == (hex >> 8 & 0xff) && c.b == (hex & 0xff);
}

START_TEST(test_size_parse)
{
	double w = 0, h = 0;

	ck_assert_int_eq(figure_size_parse("960x540", &w, &h), 0);
	ck_assert_double_eq(w, 960);
	ck_assert_double_eq(h, 540);
	ck_assert_int_eq(figure_size_parse("800\u00d7600.5", &w, &h), 0);
	ck_assert_double_eq(h, 600.5);
	ck_assert_int_eq(figure_size_parse("16x8192", &w, &h), 0);
	const char *bad[] = { "", "x", "100", "100x", "x100", "15x100", "100x8193", "-100x100", "1e3x100",
			      "100x100x", "abcxdef", " 100x100", "100 x 100", "nanxinf" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(figure_size_parse(bad[i], &w, &h) == -1, "\"%s\" was taken", bad[i]);
	ck_assert_int_eq(figure_size_parse(NULL, &w, &h), -1);
}
END_TEST

/* A palette's steps (no map) are the published ramps' values: viridis #440154 …
 * #fde725 stepped by the weight as shown; PuOr's ends at ±limit and its
 * near-white middle at 0. */
static struct qkv_rgb stepped(int palette, bool signed_values, double v, double limit, bool masked)
{
	const struct figure_scale s = { .palette = palette, .map = -1, .signed_values = signed_values,
					.low = -limit, .high = limit };

	return figure_heat_fill(&s, v, masked, (struct qkv_rgb){ 255, 255, 255 });
}

/* With a map: matplotlib's viridis entries (typed from _cm_listed.py: entry 0
 * (0.267004, 0.004874, 0.329415), entry 255 (0.993248, 0.906157, 0.143936),
 * entry 128 (0.127568, 0.566949, 0.550556)) at the value's place in the range;
 * signed values on Moreland's cool-warm, its neutral middle (0.865, 0.865, 0.865)
 * at 0; clamped beyond the range; --levels 2 gives the two ends only. */
START_TEST(test_heat_fill)
{
	struct figure_scale s = { .map = QKV_MAP_VIRIDIS, .low = 0.0, .high = 1.0 };
	struct qkv_rgb white = { 255, 255, 255 };

	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, false, 0.0, 1, false), 0x440154));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, false, 1.0, 1, false), 0xfde725));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, false, 0.1649, 1, false), 0x440154));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, false, 0.1651, 1, false), 0x414487));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, false, 0.4011, 1, false), 0x2a788e));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, true, -3.0, 3.0, false), 0x542788));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, true, 3.0, 3.0, false), 0xb35806));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, true, 0.0, 3.0, false), 0xf7f7f7));
	ck_assert(rgb_is(stepped(QKV_PALETTE_VIRIDIS, false, 0.5, 1, true), 0x585858));
	ck_assert(rgb_is(stepped(QKV_PALETTE_MONO, false, 0.5, 1, false), 0xffffff));
	ck_assert(rgb_is(stepped(QKV_PALETTE_PROJECTOR, false, 0.5, 1, false), 0x27ad81));

	ck_assert(rgb_is(figure_heat_fill(&s, 0.0, false, white), 0x440154));
	ck_assert(rgb_is(figure_heat_fill(&s, 1.0, false, white), 0xfde725));
	ck_assert(rgb_is(figure_heat_fill(&s, 128.0 / 255.0, false, white), 0x21918c));
	ck_assert(rgb_is(figure_heat_fill(&s, 0.5, true, white), 0x585858));
	s.high = 0.5; /* --range 0:0.5: 0.25 is the middle entry's neighbour, 0.9 clamps */
	ck_assert(rgb_is(figure_heat_fill(&s, 0.9, false, white), 0xfde725));
	ck_assert(rgb_is(figure_heat_fill(&s, 64.0 / 255.0, false, white), 0x21918c));
	s.levels = 2;
	ck_assert(rgb_is(figure_heat_fill(&s, 0.2, false, white), 0x440154));
	ck_assert(rgb_is(figure_heat_fill(&s, 0.3, false, white), 0xfde725));
	s = (struct figure_scale){ .map = QKV_MAP_VIRIDIS, .signed_values = true, .low = -3.0, .high = 3.0 };
	ck_assert_int_eq(figure_scale_map(&s), QKV_MAP_COOLWARM);
	ck_assert(rgb_is(figure_heat_fill(&s, 0.0, false, white), 0xdddddd));
	ck_assert(rgb_is(figure_heat_fill(&s, -3.0, false, white), 0x3b4cc0));
	ck_assert(rgb_is(figure_heat_fill(&s, 7.0, false, white), 0xb40426));
	s.map = QKV_MAP_GREY;
	ck_assert_int_eq(figure_scale_map(&s), QKV_MAP_GREY);
}
END_TEST

static void worked(struct qkv_problem *p, struct qkv_trace *t)
{
	qkv_problem_init(p);
	qkv_trace_init(t);
	ck_assert_int_eq(qkv_problem_worked_example(p), 0);
	ck_assert_int_eq(qkv_attention(p, t), 0);
}

/* The cap counts every panel's grid: the weights of n tokens are n², stage 5 is
 * A, V and O (n² + 2·n·d_v); exactly FIGURE_MAX_CELLS is taken, one more refused
 * with the count and the cap in words. */
START_TEST(test_size_cap)
{
	struct qkv_problem p;
	struct qkv_trace t;
	struct figure_options o;
	char err[256] = "";

	figure_options_default(&o);
	qkv_problem_init(&p);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_problem_random(&p, 500, 1, 1, 3u), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(figure_cells(&p, &t, &o), 500LL * 500);
	ck_assert_int_eq(figure_check_size(&p, &t, &o, err, sizeof err), 0);
	o.stage = QKV_STAGE_OUTPUT;
	ck_assert_int_eq(figure_cells(&p, &t, &o), 500LL * 500 + 2 * 500);
	ck_assert_int_eq(figure_check_size(&p, &t, &o, err, sizeof err), -1);
	ck_assert_str_eq(err, "the figure of stage 5 (output) would draw 251,000 cells; a figure draws at most 250,000");
	o.stage = QKV_STAGE_SCORES;
	ck_assert_int_eq(figure_check_size(&p, &t, &o, err, sizeof err), 0);
	qkv_problem_fini(&p);
	qkv_trace_fini(&t);

	qkv_problem_init(&p);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_problem_random(&p, 501, 1, 1, 3u), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	o.stage = QKV_STAGE_WEIGHTS;
	ck_assert_int_eq(figure_check_size(&p, &t, &o, err, sizeof err), -1);
	ck_assert_str_eq(err, "the figure of stage 3 (weights) would draw 251,001 cells; a figure draws at most 250,000");
	qkv_problem_fini(&p);
	qkv_trace_fini(&t);
}
END_TEST

/* A figure asked to stop draws nothing: figure_bytes says "stopped"; unasked, the
 * same figure is drawn. */
START_TEST(test_stop)
{
	struct qkv_problem p;
	struct qkv_trace t;
	struct figure_options o;
	atomic_bool stop;
	char err[256] = "";
	size_t length = 0;
	char *bytes;

	worked(&p, &t);
	figure_options_default(&o);
	atomic_init(&stop, true);
	o.stop = &stop;
	ck_assert_ptr_null(figure_bytes(FIGURE_SVG, &p, &t, &o, &length, err, sizeof err));
	ck_assert_str_eq(err, "stopped");
	atomic_store(&stop, false);
	bytes = figure_bytes(FIGURE_SVG, &p, &t, &o, &length, err, sizeof err);
	ck_assert_ptr_nonnull(bytes);
	ck_assert(length > 0 && strncmp(bytes, "<?xml", 5) == 0);
	free(bytes);
	qkv_problem_fini(&p);
	qkv_trace_fini(&t);
}
END_TEST

/* Cells tile each panel: same size, left to right and top to bottom, panels side
 * by side without overlap, everything inside the size asked for. */
START_TEST(test_cells_tile)
{
	struct qkv_problem p;
	struct qkv_trace t;
	struct figure_options o;
	int rows[FIGURE_MAX_PANELS], cols[FIGURE_MAX_PANELS], count;
	double right_edge = -1.0;

	worked(&p, &t);
	figure_options_default(&o);
	o.stage = QKV_STAGE_OUTPUT;
	o.width = 1000;
	o.height = 400;
	count = figure_panels(&p, &t, &o, rows, cols);
	ck_assert_int_eq(count, 3);
	ck_assert_int_eq(rows[0], 3);
	ck_assert_int_eq(cols[0], 3);
	ck_assert_int_eq(cols[2], 2);
	for (int k = 0; k < count; k++) {
		struct figure_cell first, cell;

		ck_assert_int_eq(figure_cell(&p, &t, &o, k, 0, 0, &first), 0);
		ck_assert_msg(first.x >= right_edge, "panel %d overlaps the one before", k);
		for (int r = 0; r < rows[k]; r++)
			for (int c = 0; c < cols[k]; c++) {
				ck_assert_int_eq(figure_cell(&p, &t, &o, k, r, c, &cell), 0);
				ck_assert_double_eq_tol(cell.x, first.x + c * first.w, 1e-9);
				ck_assert_double_eq_tol(cell.y, first.y + r * first.h, 1e-9);
				ck_assert(cell.x >= 0 && cell.y >= 0 && cell.x + cell.w <= 1000 && cell.y + cell.h <= 400);
				right_edge = cell.x + cell.w;
			}
	}
	ck_assert_int_eq(figure_cell(&p, &t, &o, 3, 0, 0, &(struct figure_cell){ 0 }), -1);
	ck_assert_int_eq(figure_cell(&p, &t, &o, 0, 3, 0, &(struct figure_cell){ 0 }), -1);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* A cell's text and fill: the worked example's weight A[t3,t3] = e^√2 / (2e^(1/√2) + e^√2)
 * = 0.5035 reads 0.50 and sits in viridis' fourth step (0.50 · 6 = 3). */
START_TEST(test_cell_text_and_fill)
{
	struct qkv_problem p;
	struct qkv_trace t;
	struct figure_options o;
	struct figure_cell cell;
	double e1 = exp(1.0 / sqrt(2.0)), e2 = exp(sqrt(2.0)), a33 = e2 / (2.0 * e1 + e2);

	worked(&p, &t);
	figure_options_default(&o);
	ck_assert_int_eq(figure_cell(&p, &t, &o, 0, 2, 2, &cell), 0);
	ck_assert_double_eq_tol(qkv_matrix_get(&t.weights, 2, 2), a33, 1e-15);
	ck_assert_str_eq(cell.text, "0.50");
	/* viridis at 0.50349, 128.39 entries in: between entries 128 (0.127568,
	 * 0.566949, 0.550556) and 129 (0.126453, 0.570633, 0.549841), (32.42, 144.94,
	 * 140.32) · 1/255: #20918c. */
	ck_assert(rgb_is(cell.fill, 0x20918c));
	o.decimals = 4;
	ck_assert_int_eq(figure_cell(&p, &t, &o, 0, 2, 2, &cell), 0);
	ck_assert_str_eq(cell.text, "0.5035");
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	ck_assert_int_eq(figure_cell(&p, &t, &o, 0, 0, 1, &cell), 0);
	ck_assert_str_eq(cell.text, "\u2014");
	ck_assert(rgb_is(cell.fill, 0x585858));
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

/* A formula's runs: a subscript is the letters and digits right after "_" (or a
 * "_{…}" group) and ends at punctuation or a space, so the comma after W_Q is
 * plain text again; a "_" before a space is an underscore. */
static void runs_are(const char *text, const char *const *want, const bool *want_sub, int count)
{
	int k = 0;

	while (*text != '\0') {
		const char *start;
		size_t length;
		bool sub;

		text = canvas_math_run(text, &start, &length, &sub);
		ck_assert_msg(k < count, "more runs than %d", count);
		ck_assert_msg(length == strlen(want[k]) && strncmp(start, want[k], length) == 0,
			      "run %d is \"%.*s\", not \"%s\"", k, (int)length, start, want[k]);
		ck_assert_msg(sub == want_sub[k], "run %d (\"%s\") subscript %d", k, want[k], sub);
		k++;
	}
	ck_assert_int_eq(k, count);
}

START_TEST(test_math_runs)
{
	const char *const qk[] = { "Q = X W", "Q", ", K = X W", "K" };
	const bool qk_sub[] = { false, true, false, true };
	const char *const mix[] = { "a", "ij", " \u00b7 v", "j", " for d", "k2", "; x", "_", " y" };
	const bool mix_sub[] = { false, true, false, true, false, true, false, false, false };

	runs_are("Q = X W_Q, K = X W_K", qk, qk_sub, 4);
	runs_are("a_{ij} \u00b7 v_j for d_k2; x_ y", mix, mix_sub, 9);
}
END_TEST

/* Widths are measured at the natural size and the text drawn scaled: a width
 * scales with the font's size (no advance rounded to a whole unit), or a run set
 * after a measured one overlaps it. */
START_TEST(test_text_width_scales)
{
	struct canvas cv;
	double w1, w2;

	ck_assert_int_eq(canvas_open(&cv), 0);
	w1 = canvas_text_width(&cv, "X W", 12.6, true);
	w2 = canvas_text_width(&cv, "X W", 25.2, true);
	ck_assert_double_eq_tol(w2, 2.0 * w1, 1e-6);
	w1 = canvas_math_width(&cv, "d_k = 2", 10.8, false);
	w2 = canvas_math_width(&cv, "d_k = 2", 3.0 * 10.8, false);
	ck_assert_double_eq_tol(w2, 3.0 * w1, 1e-6);
	canvas_close(&cv);
}
END_TEST

static bool box_inside(struct figure_box b, double width, double height)
{
	return b.x >= -1e-6 && b.y >= -1e-6 && b.x + b.w <= width + 1e-6 && b.y + b.h <= height + 1e-6;
}

static bool boxes_apart(struct figure_box a, struct figure_box b)
{
	return a.x + a.w <= b.x + 1e-6 || b.x + b.w <= a.x + 1e-6 || a.y + a.h <= b.y + 1e-6 ||
	       b.y + b.h <= a.y + 1e-6;
}

/* Multi-head figures' layout, h = 1 … 8 heads, with and without the average
 * and Concat panels, at the natural size and at 400×300: every panel (title,
 * labels, grid) inside the figure, no two panels overlapping, none overlapping
 * the colour bar (its ticks and clamp words included), one panel per head at
 * least; at 400×300 each heatmap's numbers either dropped or drawn at no less
 * than the auto rule's FIGURE_MIN_NUMBER_SIZE. */
START_TEST(test_heads_layout)
{
	for (int h = 1; h <= 8; h++)
		for (int extras = 0; extras < 2; extras++)
			for (int sized = 0; sized < 2; sized++) {
				struct qkv_problem p;
				struct qkv_heads_trace t;
				struct figure_options o;
				struct figure_layout l;
				int count;

				qkv_problem_init(&p);
				qkv_heads_trace_init(&t);
				ck_assert_int_eq(qkv_problem_random_heads(&p, 5, h, 2 * h, (uint64_t)h), 0);
				ck_assert_int_eq(qkv_heads_attention(&p, &t), 0);
				figure_options_default(&o);
				o.heads_panels = extras ? FIGURE_HEADS_AVERAGE | FIGURE_HEADS_CONCAT : 0;
				o.width = sized ? 400 : 0;
				o.height = sized ? 300 : 0;
				count = figure_heads_layout(&p, &t, &o, &l);
				ck_assert_int_ge(count, h + (extras ? 3 : 0));
				ck_assert(l.bar.w > 0.0 && box_inside(l.bar, l.width, l.height));
				for (int i = 0; i < count; i++) {
					ck_assert_msg(box_inside(l.panel[i], l.width, l.height),
						      "h %d extras %d sized %d: panel %d outside", h, extras, sized, i);
					ck_assert_msg(boxes_apart(l.panel[i], l.bar),
						      "h %d extras %d sized %d: panel %d on the bar", h, extras, sized, i);
					for (int k = i + 1; k < count; k++)
						ck_assert_msg(boxes_apart(l.panel[i], l.panel[k]),
							      "h %d extras %d sized %d: panels %d and %d overlap", h,
							      extras, sized, i, k);
					if (sized && i < h)
						ck_assert_msg(l.number_size[i] == 0.0 ||
							      l.number_size[i] >= FIGURE_MIN_NUMBER_SIZE - 1e-9,
							      "h %d extras %d: head %d's numbers at %g", h, extras, i,
							      l.number_size[i]);
				}
				qkv_heads_trace_fini(&t);
				qkv_problem_fini(&p);
			}
}
END_TEST

static void draw_all(struct qkv_problem *p, int first_stage)
{
	static const char *const magic[] = { "<?xml", "%PDF-", "\x89PNG" };
	struct qkv_trace t;
	struct figure_options o;
	char err[256];

	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_attention(p, &t), 0);
	figure_options_default(&o);
	o.cell_row = 1;
	o.cell_col = 1;
	/* Every palette in SVG; PDF and PNG (slower, the font is embedded or
	 * rasterised) with one palette each, a different one per stage. */
	for (int stage = first_stage; stage < QKV_STAGE_COUNT; stage++)
		for (int format = 0; format < 3; format++)
			for (int palette = 0; palette < QKV_PALETTE_COUNT; palette++) {
				size_t length = 0;
				char *bytes;

				if (format != FIGURE_SVG && palette != (stage + format) % QKV_PALETTE_COUNT)
					continue;

				o.stage = stage;
				o.palette = palette;
				o.dark = (stage + palette) % 2 == 1;
				o.width = format == FIGURE_PNG ? 320 : 0;
				o.height = format == FIGURE_PNG ? 200 : 0;
				bytes = figure_bytes((enum figure_format)format, p, &t, &o, &length, err, sizeof err);
				ck_assert_msg(bytes != NULL, "stage %d format %d palette %d: %s", stage, format, palette, err);
				ck_assert(length > 100 && memcmp(bytes, magic[format], strlen(magic[format])) == 0);
				free(bytes);
			}
	qkv_trace_fini(&t);
}

START_TEST(test_every_stage_format_palette)
{
	struct qkv_problem p;
	unsigned char padding[4] = { 0, 0, 0, 1 };

	qkv_problem_init(&p);
	ck_assert_int_eq(qkv_problem_random(&p, 4, 3, 2, 7), 0);
	draw_all(&p, QKV_STAGE_SCORES);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CAUSAL), 0);
	p.wrong = QKV_WRONG_MASK_AFTER_SOFTMAX;
	draw_all(&p, QKV_STAGE_SCORES);
	p.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	free(p.padding);
	p.padding = malloc(sizeof padding);
	ck_assert_ptr_nonnull(p.padding);
	memcpy(p.padding, padding, sizeof padding);
	draw_all(&p, QKV_STAGE_SCORES);
	qkv_problem_fini(&p);
}
END_TEST

/* Cross-attention: 2 queries over 5 keys. Stage 5's panels are A (2 × 5), V (5 × 2)
 * and O (2 × 2), the heatmap's rows the queries'; every stage, format and palette
 * draws, with a custom mask and the wrong ways (row and column sums of other
 * lengths). A cell's fill and text are its weight's. */
START_TEST(test_cross_figures)
{
	struct qkv_problem p;
	struct qkv_trace t;
	struct figure_options o;
	struct figure_cell cell;
	int rows[FIGURE_MAX_PANELS], cols[FIGURE_MAX_PANELS];
	char text[32];

	qkv_problem_init(&p);
	qkv_trace_init(&t);
	ck_assert_int_eq(qkv_problem_random_cross(&p, 2, 5, 3, 2, 7), 0);
	ck_assert_int_eq(qkv_attention(&p, &t), 0);
	figure_options_default(&o);
	o.stage = QKV_STAGE_OUTPUT;
	ck_assert_int_eq(figure_panels(&p, &t, &o, rows, cols), 3);
	ck_assert_int_eq(rows[0], 2);
	ck_assert_int_eq(cols[0], 5);
	ck_assert_int_eq(rows[1], 5);
	ck_assert_int_eq(rows[2], 2);
	ck_assert_int_eq(figure_cell(&p, &t, &o, 0, 1, 4, &cell), 0);
	snprintf(text, sizeof text, "%.2f", qkv_matrix_get(&t.weights, 1, 4));
	ck_assert_str_eq(cell.text, text);
	ck_assert_int_eq(figure_cell(&p, &t, &o, 0, 2, 0, &(struct figure_cell){ 0 }), -1);
	qkv_trace_fini(&t);
	draw_all(&p, QKV_STAGE_SCORES);
	ck_assert_int_eq(qkv_problem_set_mask(&p, QKV_MASK_CUSTOM), 0);
	p.wrong = QKV_WRONG_COLUMN_SOFTMAX;
	draw_all(&p, QKV_STAGE_SCORES);
	p.wrong = QKV_WRONG_MASK_AFTER_SOFTMAX;
	draw_all(&p, QKV_STAGE_SCORES);
	qkv_problem_fini(&p);
}
END_TEST

/* The geometry figure of the worked example, q_t3 selected: the wide arrow is
 * q_t3 = (1, 1), as far across as up (equal units), the line of q_t3 and the three
 * keys' projections onto it are dashed, every point is labelled, the sentence is
 * under the plot; PDF and PNG draw too. */
START_TEST(test_geometry_figure)
{
	static const char *const magic[] = { "<?xml", "%PDF-", "\x89PNG" };
	struct qkv_problem p;
	struct qkv_trace t;
	struct qkv_geometry g;
	struct figure_options o;
	const char *dot = "q_t3 · k_t1 = 1.00 = |q| |k| cos 45°; weight 0.25";
	char err[256], *svg = NULL;
	size_t length = 0;
	double x1, y1, x2, y2;
	int dashed = 0, wide = 0;

	worked(&p, &t);
	qkv_geometry_init(&g);
	ck_assert_int_eq(qkv_geometry_compute(&g, &t.q, &t.k), 0);
	figure_options_default(&o);
	for (int format = 0; format < 3; format++) {
		FILE *out = open_memstream(&svg, &length);

		ck_assert_ptr_nonnull(out);
		ck_assert_int_eq(figure_geometry_write(out, (enum figure_format)format, &p, &t, &g, 2, 0, dot,
						       "the plane is exact", &o, err, sizeof err), 0);
		fclose(out);
		ck_assert(length > 100 && memcmp(svg, magic[format], strlen(magic[format])) == 0);
		if (format != FIGURE_SVG) {
			free(svg);
			continue;
		}
		for (const char *at = svg; (at = strstr(at, "<line")) != NULL; at++) {
			char element[512];
			snprintf(element, sizeof element, "%.*s", (int)(strchr(at, '>') - at), at);
			if (strstr(element, "stroke-dasharray") != NULL)
				dashed++;
			if (strstr(element, "stroke-width=\"3.000\"") != NULL) {
				wide++;
				ck_assert_int_eq(sscanf(at, "<line x1=\"%lf\" y1=\"%lf\" x2=\"%lf\" y2=\"%lf\"", &x1, &y1, &x2,
							&y2), 4);
			}
		}
		ck_assert_int_eq(wide, 1);
		ck_assert_double_eq_tol(x2 - x1, y1 - y2, 1e-2);
		ck_assert(x2 > x1);
		ck_assert_int_eq(dashed, 4);
		for (int i = 1; i <= 3; i++) {
			char label[16];
			snprintf(label, sizeof label, ">q_t%d<", i);
			ck_assert_msg(strstr(svg, label) != NULL, "%s", label);
			snprintf(label, sizeof label, ">k_t%d<", i);
			ck_assert_msg(strstr(svg, label) != NULL, "%s", label);
		}
		ck_assert(strstr(svg, "q_t3 · k_t1 = 1.00 = |q| |k| cos 45°; weight 0.25") != NULL);
		free(svg);
	}
	qkv_geometry_fini(&g);
	qkv_trace_fini(&t);
	qkv_problem_fini(&p);
}
END_TEST

static Suite *figure_suite(void)
{
	Suite *s = suite_create("figure");
	TCase *tc = tcase_create("figure");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_size_parse);
	tcase_add_test(tc, test_math_runs);
	tcase_add_test(tc, test_text_width_scales);
	tcase_add_test(tc, test_size_cap);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_heat_fill);
	tcase_add_test(tc, test_cells_tile);
	tcase_add_test(tc, test_heads_layout);
	tcase_add_test(tc, test_cell_text_and_fill);
	tcase_add_test(tc, test_every_stage_format_palette);
	tcase_add_test(tc, test_cross_figures);
	tcase_add_test(tc, test_geometry_figure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_tap(figure_suite());
}
