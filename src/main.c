/* main.c — qkv's command line: options (getopt_long), then the problem (a file,
 * a random draw or the built-in worked example), then either the printer, the
 * d_k sweep, or the interface.
 * Bad usage and bad input end with one line on stderr and status 2; runtime
 * failures with status 1. It never computes or draws anything itself. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "present/lesson.h"
#include "present/lesson_check.h"
#include "io/cli/cli.h"
#include "io/problem/builtin.h"
#include "io/figure/figure.h"
#include "io/cli/train_run.h"
#include "io/report/latex_heatmap.h"
#include "io/report/latex_text.h"
#include "present/notes.h"
#include "tui/notes_screen.h"
#include "io/problem/load.h"
#include "io/report/print.h"
#include "io/report/print_heads.h"
#include "io/problem/save.h"
#include "io/report/print_train.h"
#include "io/report/print_cost.h"
#include "io/problem/quote.h"
#include "qkv/attention.h"
#include "qkv/error.h"
#include "qkv/heads.h"
#include "qkv/online.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"
#include "qkv/text.h"
#include "tui/tui.h"

#define EXIT_USAGE 2 /* bad usage or bad input */
#define STR(x) STR_(x) /* a number's macro as the text of the number */
#define STR_(x) #x
/* The largest multi-head problem the interface takes: about a fifth of a second a
 * change (computed beside the interface, as every long change is). */
#define HEADS_INTERFACE_COST 2e8
#define SWEEP_MAX_COST 1.2e11 /* multiply-adds of --sweep: about a minute */

/* Every option; the order is that of long_options below. */
enum opt {
	OPT_PRINT, OPT_FORMAT, OPT_STAGE, OPT_CELL, OPT_DECIMALS,
	OPT_RANDOM, OPT_TOKENS, OPT_QUERIES, OPT_DK, OPT_DV, OPT_SEED, OPT_DMODEL,
	OPT_SWEEP, OPT_TRIALS, OPT_DK_MAX,
	OPT_NO_SCALE, OPT_SCALE, OPT_TEMPERATURE, OPT_MASK, OPT_WRONG,
	OPT_PROJECTOR, OPT_PALETTE, OPT_COLOR, OPT_PACE,
	OPT_OUTPUT, OPT_SIZE, OPT_BACKGROUND, OPT_HEATMAP,
	OPT_LEVELS, OPT_RANGE, OPT_NUMBERS, OPT_TITLE, OPT_HEADS_PANELS,
	OPT_LESSON, OPT_CHECK_LESSON, OPT_NOTES, OPT_RECORD, OPT_FORCE, OPT_RECOVER,
	OPT_COST, OPT_HEADS,
	OPT_ALGORITHM, OPT_TILE,
	OPT_STANDALONE,
	OPT_HELP, OPT_VERSION,
	OPT_COUNT,
};

#define OPT_BASE 256 /* getopt_long values: OPT_BASE + enum opt */

static const struct option long_options[] = {
	{ "print", no_argument, NULL, OPT_BASE + OPT_PRINT },
	{ "format", required_argument, NULL, OPT_BASE + OPT_FORMAT },
	{ "stage", required_argument, NULL, OPT_BASE + OPT_STAGE },
	{ "cell", required_argument, NULL, OPT_BASE + OPT_CELL },
	{ "decimals", required_argument, NULL, OPT_BASE + OPT_DECIMALS },
	{ "random", no_argument, NULL, OPT_BASE + OPT_RANDOM },
	{ "tokens", required_argument, NULL, OPT_BASE + OPT_TOKENS },
	{ "queries", required_argument, NULL, OPT_BASE + OPT_QUERIES },
	{ "dk", required_argument, NULL, OPT_BASE + OPT_DK },
	{ "dv", required_argument, NULL, OPT_BASE + OPT_DV },
	{ "seed", required_argument, NULL, OPT_BASE + OPT_SEED },
	{ "dmodel", required_argument, NULL, OPT_BASE + OPT_DMODEL },
	{ "sweep", no_argument, NULL, OPT_BASE + OPT_SWEEP },
	{ "trials", required_argument, NULL, OPT_BASE + OPT_TRIALS },
	{ "dk-max", required_argument, NULL, OPT_BASE + OPT_DK_MAX },
	{ "no-scale", no_argument, NULL, OPT_BASE + OPT_NO_SCALE },
	{ "scale", required_argument, NULL, OPT_BASE + OPT_SCALE },
	{ "temperature", required_argument, NULL, OPT_BASE + OPT_TEMPERATURE },
	{ "mask", required_argument, NULL, OPT_BASE + OPT_MASK },
	{ "wrong", required_argument, NULL, OPT_BASE + OPT_WRONG },
	{ "projector", no_argument, NULL, OPT_BASE + OPT_PROJECTOR },
	{ "palette", required_argument, NULL, OPT_BASE + OPT_PALETTE },
	{ "color", required_argument, NULL, OPT_BASE + OPT_COLOR },
	{ "pace", required_argument, NULL, OPT_BASE + OPT_PACE },
	{ "output", required_argument, NULL, OPT_BASE + OPT_OUTPUT },
	{ "size", required_argument, NULL, OPT_BASE + OPT_SIZE },
	{ "background", required_argument, NULL, OPT_BASE + OPT_BACKGROUND },
	{ "heatmap", optional_argument, NULL, OPT_BASE + OPT_HEATMAP },
	{ "levels", required_argument, NULL, OPT_BASE + OPT_LEVELS },
	{ "range", required_argument, NULL, OPT_BASE + OPT_RANGE },
	{ "numbers", required_argument, NULL, OPT_BASE + OPT_NUMBERS },
	{ "title", required_argument, NULL, OPT_BASE + OPT_TITLE },
	{ "heads-panels", required_argument, NULL, OPT_BASE + OPT_HEADS_PANELS },
	{ "lesson", required_argument, NULL, OPT_BASE + OPT_LESSON },
	{ "check-lesson", required_argument, NULL, OPT_BASE + OPT_CHECK_LESSON },
	{ "notes", required_argument, NULL, OPT_BASE + OPT_NOTES },
	{ "record", required_argument, NULL, OPT_BASE + OPT_RECORD },
	{ "force", no_argument, NULL, OPT_BASE + OPT_FORCE },
	{ "recover", no_argument, NULL, OPT_BASE + OPT_RECOVER },
	{ "cost", no_argument, NULL, OPT_BASE + OPT_COST },
	{ "heads", required_argument, NULL, OPT_BASE + OPT_HEADS },
	{ "algorithm", required_argument, NULL, OPT_BASE + OPT_ALGORITHM },
	{ "tile", required_argument, NULL, OPT_BASE + OPT_TILE },
	{ "standalone", no_argument, NULL, OPT_BASE + OPT_STANDALONE },
	{ "help", no_argument, NULL, OPT_BASE + OPT_HELP },
	{ "version", no_argument, NULL, OPT_BASE + OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* What the command line asked for. */
struct cli {
	bool given[OPT_COUNT];
	const char *file;
	struct print_options print;
	int cell_i, cell_j; /* 1-based, as typed */
	int tokens, queries, d_k, d_v, trials, d_k_max, heads, d_model;
	uint64_t seed;
	double scale, temperature, pace;
	enum qkv_mask mask;
	enum qkv_wrong wrong;
	const char *palette, *color, *record;
	const char *lesson; /* --lesson, --check-lesson or --notes */
	bool figure;                 /* --format svg, pdf or png: a figure kind */
	const char *output;
	struct cli_figure fig;       /* --size, --background, --levels, --range, … */
	enum latex_heatmap_form heatmap;
	bool online; /* --algorithm online */
	unsigned cost_algorithms; /* what --cost measures: QKV_COST_MEASURE bits */
	int tile;    /* --tile */
};

/* "--name" of an option, for messages. */
static const char *opt_name(enum opt o)
{
	return long_options[o].name;
}

/* "--cell I,J": two whole numbers from 1 (the upper bounds are checked later). */
static int parse_cell(const char *text, struct cli *c)
{
	char *end, shown[CLI_QUOTED];
	long i, j;

	errno = 0;
	i = strtol(text, &end, 10);
	if (end != text && *end == ',') {
		const char *second = end + 1;
		j = strtol(second, &end, 10);
		if (end != second && *end == '\0' && errno == 0 && i >= 1 && j >= 1
		    && i <= QKV_MAX_TOKENS && j <= QKV_MAX_DIM) {
			c->cell_i = (int)i;
			c->cell_j = (int)j;
			return 0;
		}
	}
	return cli_fail("--cell needs I,J: a row and a column counted from 1, like 2,3; not \"%s\"",
		    cli_quote(shown, text));
}

/* Reads one option's argument into c; 0 or EXIT_USAGE. */
static int take_option(struct cli *c, enum opt o, const char *arg)
{
	char shown[CLI_QUOTED];

	switch (o) {
	case OPT_FORMAT:
		if (print_format_parse(arg, &c->print.format) != 0) {
			char reports[128], figures[128];

			print_format_names(reports, sizeof reports, PRINT_KIND_REPORT, NULL);
			print_format_names(figures, sizeof figures, PRINT_KIND_FIGURE, NULL);
			return cli_fail("--format needs %s (a report) or %s (a figure), not \"%s\"", reports,
				    figures, cli_quote(shown, arg));
		}
		c->figure = print_format_kind(c->print.format) == PRINT_KIND_FIGURE;
		return 0;
	case OPT_OUTPUT:
		c->output = arg;
		return 0;
	case OPT_SIZE:
		return cli_parse_size(arg, &c->fig.size_w, &c->fig.size_h);
	case OPT_HEATMAP:
		if (latex_heatmap_parse(arg, &c->heatmap) != 0)
			return cli_fail("--heatmap takes table or pgfplots (--heatmap=pgfplots), not \"%s\"",
					cli_quote(shown, arg));
		return 0;
	case OPT_BACKGROUND:
		return cli_parse_background(arg, &c->fig.dark);
	case OPT_LEVELS:
		return cli_parse_int(opt_name(o), arg, 2, FIGURE_MAX_LEVELS, &c->fig.levels);
	case OPT_RANGE:
		return cli_parse_range(arg, &c->fig.range_given, &c->fig.range_low, &c->fig.range_high);
	case OPT_NUMBERS:
		return cli_parse_numbers(arg, &c->fig.numbers);
	case OPT_TITLE:
		c->fig.title = arg;
		return 0;
	case OPT_HEADS_PANELS:
		return cli_parse_heads_panels(arg, &c->fig.heads_panels);
	case OPT_STAGE:
		return cli_parse_stage(arg, &c->print.stage);
	case OPT_CELL:
		return parse_cell(arg, c);
	case OPT_DECIMALS:
		return cli_parse_int(opt_name(o), arg, 0, 12, &c->print.decimals);
	case OPT_TOKENS:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_TOKENS, &c->tokens);
	case OPT_QUERIES:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_TOKENS, &c->queries);
	case OPT_DK:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_DIM, &c->d_k);
	case OPT_DV:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_DIM, &c->d_v);
	case OPT_SEED:
		return cli_parse_seed(arg, &c->seed);
	case OPT_DMODEL:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_DIM, &c->d_model);
	case OPT_TRIALS:
		return cli_parse_int(opt_name(o), arg, 1, 10000, &c->trials);
	case OPT_DK_MAX:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_DIM, &c->d_k_max);
	case OPT_SCALE:
		return cli_parse_double(opt_name(o), arg, QKV_MIN_TEMPERATURE, QKV_MAX_TEMPERATURE, &c->scale);
	case OPT_TEMPERATURE:
		return cli_parse_double(opt_name(o), arg, QKV_MIN_TEMPERATURE, QKV_MAX_TEMPERATURE,
				    &c->temperature);
	case OPT_MASK:
		return cli_parse_mask(arg, &c->mask);
	case OPT_WRONG:
		return cli_parse_wrong(arg, &c->wrong);
	case OPT_PALETTE:
		c->palette = arg;
		return 0;
	case OPT_COLOR:
		c->color = arg;
		return cli_parse_color(arg);
	case OPT_PACE:
		return cli_parse_double(opt_name(o), arg, 0.05, 3600, &c->pace);
	case OPT_RECORD:
		c->record = arg;
		return 0;
	case OPT_LESSON:
	case OPT_CHECK_LESSON:
	case OPT_NOTES:
		c->lesson = arg;
		return 0;
	case OPT_HEADS:
		return cli_parse_int(opt_name(o), arg, 1, QKV_COST_MAX_HEADS, &c->heads);
	case OPT_ALGORITHM:
		if (strcmp(arg, "standard") != 0 && strcmp(arg, "online") != 0 && strcmp(arg, "both") != 0)
			return cli_fail("--algorithm takes standard, online or both (with --cost), not \"%s\"",
					cli_quote(shown, arg));
		c->online = strcmp(arg, "online") == 0;
		c->cost_algorithms = strcmp(arg, "both") == 0 ? QKV_COST_BOTH
				   : QKV_COST_MEASURE(c->online ? QKV_COST_ONLINE : QKV_COST_STANDARD);
		return 0;
	case OPT_TILE:
		return cli_parse_int(opt_name(o), arg, 1, QKV_MAX_TOKENS, &c->tile);
	default:
		return 0;
	}
}

/* The first of `list` that was given, or -1. */
static int first_given(const struct cli *c, const enum opt *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (c->given[list[i]])
			return (int)list[i];
	return -1;
}

/* True when the stages are to be printed rather than shown: --print, or an
 * option that only the printer reads. */
static bool wants_print(const struct cli *c)
{
	return c->given[OPT_PRINT] || c->given[OPT_FORMAT] || c->given[OPT_STAGE]
		|| c->given[OPT_CELL] || c->given[OPT_DECIMALS] || c->given[OPT_OUTPUT]
		|| c->given[OPT_SIZE] || c->given[OPT_BACKGROUND] || c->given[OPT_HEATMAP]
		|| c->given[OPT_ALGORITHM] || c->given[OPT_TILE] || c->given[OPT_STANDALONE];
}

/* --algorithm online writes a report of its own: no stages, no cell, no figure;
 * --tile goes with it. 0 or EXIT_USAGE. */
static int check_online(const struct cli *c)
{
	static const enum opt not_online[] = { OPT_STAGE, OPT_CELL, OPT_HEATMAP };
	char names[128];
	int o;

	if (c->given[OPT_ALGORITHM] && c->cost_algorithms == QKV_COST_BOTH)
		return cli_fail("--algorithm both goes with --cost: the report of one problem is the standard's "
				"or the online's");
	if (c->given[OPT_TILE] && !c->online)
		return cli_fail("--tile goes with --algorithm online: it is how many keys it reads at a time");
	if (!c->online)
		return 0;
	o = first_given(c, not_online, sizeof not_online / sizeof *not_online);
	if (o >= 0)
		return cli_fail("--%s does not apply to --algorithm online: it never forms S, S' or A, "
				"so its report has no stages", opt_name((enum opt)o));
	if (!print_format_online(c->print.format)) {
		print_format_names(names, sizeof names, -1, print_format_online);
		return cli_fail("--algorithm online writes %s, not %s", names,
				print_format_name(c->print.format));
	}
	if (c->wrong == QKV_WRONG_COLUMN_SOFTMAX)
		return cli_fail("--algorithm online reads each query's keys in turn; the softmax down "
				"the columns (--wrong column-softmax) needs whole columns");
	return 0;
}

/* A lesson brings its own problems: only the interface's looks go with --lesson,
 * nothing with --check-lesson and --notes. 0 or EXIT_USAGE. */
static int lesson_combinations(const struct cli *c)
{
	static const enum opt lesson_opts[] = { OPT_LESSON, OPT_CHECK_LESSON, OPT_NOTES };
	char shown[CLI_QUOTED];
	int count = 0;

	for (size_t i = 0; i < 3; i++)
		count += c->given[lesson_opts[i]];
	if (count > 1)
		return cli_fail("--lesson, --check-lesson and --notes go one at a time");
	if (c->file != NULL)
		return cli_fail("a lesson opens its own problems; it reads no FILE (\"%s\")",
				cli_quote(shown, c->file));
	for (int o = 0; o < OPT_COUNT; o++) {
		bool look = o == OPT_PROJECTOR || o == OPT_PALETTE || o == OPT_COLOR || o == OPT_RECORD ||
			    o == OPT_FORCE;

		if (c->given[o] && o != OPT_LESSON && o != OPT_CHECK_LESSON && o != OPT_NOTES
		    && !(look && c->given[OPT_LESSON]))
			return cli_fail("--%s does not apply to --%s", opt_name((enum opt)o),
				    c->given[OPT_LESSON] ? "lesson" : c->given[OPT_NOTES] ? "notes" : "check-lesson");
	}
	return 0;
}

/* --cost takes --dk, --heads, --algorithm and --format (not LaTeX), and nothing else. */
static int check_cost(const struct cli *c)
{
	char shown[CLI_QUOTED];

	if (!c->given[OPT_COST])
		return cli_fail("--heads goes with --cost or --random");
	if (c->file != NULL)
		return cli_fail("--cost measures its own problems; it reads no FILE (\"%s\")",
				cli_quote(shown, c->file));
	for (int o = 0; o < OPT_COUNT; o++)
		if (c->given[o] && o != OPT_COST && o != OPT_HEADS && o != OPT_DK && o != OPT_FORMAT &&
		    o != OPT_ALGORITHM)
			return cli_fail("--%s does not apply to --cost", opt_name((enum opt)o));
	if (!print_format_costs(c->print.format)) {
		char names[128];

		print_format_names(names, sizeof names, -1, print_format_costs);
		return cli_fail("--cost writes %s, not %s", names, print_format_name(c->print.format));
	}
	return 0;
}

/* Measures the cost table and prints it; the exit status. */
static int run_cost(const struct cli *c)
{
	struct qkv_cost cost;
	int rc = print_cost_measure(&cost, c->given[OPT_DK] ? c->d_k : 64, c->heads, 3000.0, c->cost_algorithms);

	if (rc == 0 && print_cost(stdout, &cost, c->print.format) != 0)
		rc = cli_fail("cannot write the table: %s", strerror(errno));
	else if (rc < 0)
		rc = cli_fail("the measurement failed: %s", qkv_error_string(rc));
	qkv_cost_fini(&cost);
	return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Options that make sense together; 0 or EXIT_USAGE. */
static int check_combinations(const struct cli *c)
{
	static const enum opt not_with_sweep[] = {
		OPT_STAGE, OPT_CELL, OPT_DECIMALS, OPT_RANDOM, OPT_QUERIES, OPT_DK, OPT_DV, OPT_HEADS,
		OPT_DMODEL, OPT_NO_SCALE, OPT_SCALE, OPT_TEMPERATURE, OPT_MASK, OPT_WRONG,
		OPT_PROJECTOR, OPT_PALETTE, OPT_COLOR, OPT_PACE, OPT_HEATMAP, OPT_RECORD, OPT_FORCE,
		OPT_ALGORITHM, OPT_TILE,
	};
	static const enum opt sweep_only[] = { OPT_TRIALS, OPT_DK_MAX };
	static const enum opt drawn_only[] = { OPT_TOKENS, OPT_QUERIES, OPT_DK, OPT_DV, OPT_SEED,
					       OPT_HEADS, OPT_DMODEL };
	static const enum opt interface_only[] = { OPT_PROJECTOR, OPT_PALETTE, OPT_COLOR, OPT_PACE, OPT_RECORD,
						   OPT_FORCE, OPT_RECOVER };
	static const enum opt figure_only[] = { OPT_SIZE, OPT_BACKGROUND, OPT_LEVELS, OPT_RANGE, OPT_NUMBERS,
						OPT_TITLE, OPT_HEADS_PANELS };
	static const enum opt not_heatmap[] = { OPT_SIZE, OPT_BACKGROUND, OPT_NUMBERS, OPT_TITLE, OPT_HEADS_PANELS };
	static const enum opt heatmap_only[] = { OPT_LEVELS, OPT_RANGE, OPT_NUMBERS, OPT_TITLE, OPT_HEADS_PANELS };
	char shown[CLI_QUOTED];
	int o;

	if (c->given[OPT_FORCE] && !c->given[OPT_RECORD])
		return cli_fail("--force goes with --record: it lets the recording replace an existing file");
	if (c->lesson != NULL)
		return lesson_combinations(c);
	if (c->given[OPT_RECOVER] && (c->file == NULL || c->given[OPT_SWEEP] || c->given[OPT_COST]))
		return cli_fail("--recover goes with a FILE: it offers the unsaved changes to FILE an "
			    "abrupt end kept");
	o = first_given(c, figure_only, sizeof figure_only / sizeof *figure_only);
	/* --levels and --range colour a LaTeX heatmap too (the figures' map). */
	if (!c->figure && c->given[OPT_HEATMAP])
		o = first_given(c, not_heatmap, sizeof not_heatmap / sizeof *not_heatmap);
	if (!c->figure && o >= 0)
		return cli_figure_only(opt_name((enum opt)o));
	/* Levels and a range are of a continuous map's colours. */
	if ((c->figure || c->given[OPT_HEATMAP]) && (c->given[OPT_LEVELS] || c->given[OPT_RANGE]) &&
	    c->palette != NULL &&
	    qkv_colour_palette_find(c->palette) >= 0 && qkv_colour_map_find(c->palette) < 0)
		return cli_fail("--%s goes with a continuous map (--palette viridis, cividis or grey), not the "
				"steps of --palette %s", opt_name(c->given[OPT_LEVELS] ? OPT_LEVELS : OPT_RANGE),
				cli_quote(shown, c->palette));
	if (c->figure && (c->given[OPT_SWEEP] || c->print.stage == PRINT_STAGE_GEOMETRY)) {
		o = first_given(c, heatmap_only, sizeof heatmap_only / sizeof *heatmap_only);
		if (o >= 0)
			return cli_fail("--%s is a heatmap's; the %s figure has none", opt_name((enum opt)o),
					c->given[OPT_SWEEP] ? "--sweep" : "geometry");
	}
	if (cli_check_binary(c->print.format, c->output) != 0)
		return EXIT_USAGE;
	/* --standalone wraps LaTeX (a report, a heatmap, the sweep) in a document. */
	if (c->given[OPT_STANDALONE] && (c->given[OPT_COST] || c->figure ||
					 (c->print.format != PRINT_LATEX && !c->given[OPT_HEATMAP])))
		return cli_fail("--standalone goes with --format latex (or --heatmap): it makes the "
				"LaTeX a whole document");
	if (c->given[OPT_COST] || (c->given[OPT_HEADS] && !c->given[OPT_RANDOM]))
		return check_cost(c);
	if (c->given[OPT_SWEEP]) {
		if (c->file != NULL)
			return cli_fail("--sweep draws its own numbers; it reads no FILE (\"%s\")",
				    cli_quote(shown, c->file));
		o = first_given(c, not_with_sweep, sizeof not_with_sweep / sizeof *not_with_sweep);
		if (o == OPT_PALETTE && c->figure)   /* the sweep's figure takes a palette */
			o = first_given(c, (const enum opt[]){ OPT_COLOR, OPT_PACE, OPT_HEATMAP }, 3);
		if (o >= 0)
			return cli_fail("--%s does not apply to --sweep", opt_name((enum opt)o));
		if (c->given[OPT_PALETTE] && c->figure && cli_check_palette(c->palette) != 0)
			return EXIT_USAGE;
		if (c->tokens < 2)
			return cli_fail("--sweep needs at least 2 tokens (--tokens %d)", c->tokens);
		/* Each trial of d_k = 1, 2, 4, … costs tokens² · d_k multiply-adds, 2 · d_k_max in all. */
		double cost = (double)c->trials * c->tokens * c->tokens * 2.0 * c->d_k_max;
		if (cost > SWEEP_MAX_COST)
			return cli_fail("--sweep with %d trials of %d tokens up to d_k %d is %.0f billion "
				    "multiply-adds (minutes to hours); at most %.0f billion: fewer --trials "
				    "or --tokens, or a smaller --dk-max", c->trials, c->tokens, c->d_k_max,
				    cost / 1e9, SWEEP_MAX_COST / 1e9);
		return 0;
	}
	o = first_given(c, sweep_only, sizeof sweep_only / sizeof *sweep_only);
	if (o >= 0)
		return cli_fail("--%s goes with --sweep", opt_name((enum opt)o));
	if (!c->given[OPT_RANDOM] && (c->given[OPT_HEADS] || c->given[OPT_DMODEL]))
		return cli_fail("--%s goes with --random", c->given[OPT_HEADS] ? "heads" : "dmodel");
	if (!c->given[OPT_RANDOM]) {
		o = first_given(c, drawn_only, sizeof drawn_only / sizeof *drawn_only);
		if (o >= 0)
			return cli_fail("--%s goes with --random (or --sweep)", opt_name((enum opt)o));
	} else {
		if (c->file != NULL)
			return cli_fail("--random draws its own problem; it reads no FILE (\"%s\")",
				    cli_quote(shown, c->file));
		if (c->given[OPT_QUERIES] && !c->given[OPT_TOKENS])
			return cli_fail("--random --queries M needs --tokens N: the M queries attend to N "
				    "tokens");
		if (c->given[OPT_QUERIES] && c->given[OPT_MASK] && c->mask == QKV_MASK_CAUSAL &&
		    c->queries != c->tokens)
			return cli_fail("--mask causal needs as many queries as tokens (query i sees keys "
				    "1 to i); --queries %d and --tokens %d differ", c->queries, c->tokens);
		if (c->given[OPT_HEADS] || c->given[OPT_DMODEL]) {
			if (c->given[OPT_DK] || c->given[OPT_DV])
				return cli_fail("--%s does not go with --heads: each head's d_k and d_v "
					    "are --dmodel divided by --heads",
					    c->given[OPT_DK] ? "dk" : "dv");
			if (!c->given[OPT_TOKENS] || !c->given[OPT_HEADS] || !c->given[OPT_DMODEL])
				return cli_fail("--random --heads needs --tokens N, --heads H and "
					    "--dmodel D");
			if (c->heads > QKV_MAX_HEADS)
				return cli_fail("--random --heads %d: at most %d heads", c->heads,
					    QKV_MAX_HEADS);
			if (c->d_model % c->heads != 0)
				return cli_fail("--dmodel %d is not divisible by --heads %d: each of the %d "
					    "heads gets d_k = d_v = d_model / h, a whole number",
					    c->d_model, c->heads, c->heads);
			if ((long)(c->tokens > c->queries ? c->tokens : c->queries) * c->d_model >
			    4L * 1024 * 1024)
				return cli_fail("--random --heads with %d tokens and d_model %d is more "
					    "than 4194304 numbers of X; fewer --tokens or a smaller "
					    "--dmodel", c->tokens > c->queries ? c->tokens : c->queries,
					    c->d_model);
		} else if (!c->given[OPT_TOKENS] || !c->given[OPT_DK]) {
			return cli_fail("--random needs --tokens N and --dk D");
		}
	}
	if (c->given[OPT_HEATMAP] && (c->figure || (c->given[OPT_FORMAT] && c->print.format != PRINT_LATEX)))
		return cli_fail("--heatmap is a form of --format latex");
	if (c->given[OPT_HEATMAP] && c->print.stage == PRINT_STAGE_GEOMETRY)
		return cli_fail("--heatmap draws stage 1, 2 or 3 (scores, scaled, weights), not the geometry");
	if (c->given[OPT_HEATMAP] && c->print.stage >= 0 && c->print.stage != QKV_STAGE_SCORES &&
	    c->print.stage != QKV_STAGE_SCALED && c->print.stage != QKV_STAGE_WEIGHTS)
		return cli_fail("--heatmap draws stage 1, 2 or 3 (scores, scaled, weights), not stage %d", c->print.stage);
	if (c->figure && c->given[OPT_PALETTE] && cli_check_figure_palette(c->palette) != 0)
		return EXIT_USAGE;
	if (c->given[OPT_HEATMAP] && c->given[OPT_PALETTE] && cli_check_figure_palette(c->palette) != 0)
		return EXIT_USAGE;
	if (wants_print(c)) {
		o = first_given(c, interface_only, sizeof interface_only / sizeof *interface_only);
		if (o == OPT_PALETTE && (c->figure || c->given[OPT_HEATMAP]))
			o = first_given(c, interface_only + 2, 2);
		if (o >= 0)
			return cli_fail("--%s is for the interface; it does nothing with --print",
				    opt_name((enum opt)o));
	}
	/* JSON is always the whole object: a stage, any stage, is refused rather
	 * than ignored. */
	if (c->given[OPT_STAGE] && c->print.format == PRINT_JSON && c->print.stage != PRINT_STAGE_GEOMETRY)
		return cli_fail("--stage does not apply to --format json: the object is always whole "
				"(--stage geometry has an object of its own)");
	if (c->print.stage == PRINT_STAGE_GEOMETRY && !print_format_geometry(c->print.format)) {
		char names[128];

		print_format_names(names, sizeof names, -1, print_format_geometry);
		return cli_fail("--stage geometry is written as %s, not %s", names, print_format_name(c->print.format));
	}
	if (c->given[OPT_NO_SCALE] && c->given[OPT_SCALE])
		return cli_fail("--no-scale and --scale contradict each other; give one");
	return check_online(c);
}

/* The first length bytes of text (at most 64 of them), escaped for a message. */
static const char *quote_part(char out[CLI_QUOTED], const char *text, size_t length)
{
	quote_text(out, CLI_QUOTED, text, length, 64);
	return out;
}

/* The word a refused option was given as: "--name", "--name=value" or "-x…". Says
 * whether it is unknown, ambiguous (a prefix of several) or given a value it does
 * not take. */
static int unknown_option(const char *word)
{
	size_t length;
	const char *equals;
	char names[512] = "", shown[CLI_QUOTED];
	int matches = 0, exact = -1;

	if (strncmp(word, "--", 2) != 0) {
		unsigned char letter = (unsigned char)word[word[0] == '-' ? 1 : 0];

		if (optopt > 0 && optopt < 0x7f && optopt >= 0x20)
			letter = (unsigned char)optopt;
		if (letter >= 0x20 && letter < 0x7f)
			return cli_fail("unknown option -%c (qkv --help lists them)", letter);
		return cli_fail("unknown option (qkv --help lists them)");
	}
	equals = strchr(word, '=');
	length = equals != NULL ? (size_t)(equals - word) - 2 : strlen(word) - 2;
	for (int o = 0; o < OPT_COUNT; o++) {
		if (strncmp(long_options[o].name, word + 2, length) != 0)
			continue;
		if (strlen(long_options[o].name) == length)
			exact = o;
		if (matches++ < 8)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s--%s",
				 matches > 1 ? ", " : "", long_options[o].name);
	}
	if (exact >= 0 && equals != NULL && long_options[exact].has_arg == no_argument)
		return cli_fail("--%s takes no value (given \"%s\")", long_options[exact].name,
			    quote_part(shown, equals + 1, strlen(equals + 1)));
	if (matches > 1 && exact < 0)
		return cli_fail("--%s is ambiguous: %s (qkv --help)", quote_part(shown, word + 2, length), names);
	if (matches == 1 && equals != NULL)
		return cli_fail("%s takes no value (qkv --help)", quote_part(shown, word, (size_t)(equals - word)));
	return cli_fail("unknown option --%s (qkv --help lists them)", quote_part(shown, word + 2, length));
}

/* Reads argv into c; 0, EXIT_USAGE, or -1 when --help or --version was answered. */
static int parse_command_line(int argc, char **argv, struct cli *c)
{
	char shown[CLI_QUOTED], second[CLI_QUOTED];
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":phVo:", long_options, NULL)) != -1) {
		enum opt o;

		if (ch == 'p')
			ch = OPT_BASE + OPT_PRINT;
		else if (ch == 'h')
			ch = OPT_BASE + OPT_HELP;
		else if (ch == 'V')
			ch = OPT_BASE + OPT_VERSION;
		else if (ch == 'o')
			ch = OPT_BASE + OPT_OUTPUT;
		if (ch == '?')
			return unknown_option(argv[optind - 1]);
		if (ch == ':')
			return cli_fail("%s needs a value (qkv --help)", cli_quote(shown, argv[optind - 1]));
		o = (enum opt)(ch - OPT_BASE);
		if (o == OPT_HELP) {
			cli_usage(stdout, STR(APP_PACE_S));
			return -1;
		}
		if (o == OPT_VERSION) {
			puts("qkv " QKV_VERSION);
			return -1;
		}
		c->given[o] = true;
		if (take_option(c, o, optarg) != 0)
			return EXIT_USAGE;
	}
	if (optind < argc)
		c->file = argv[optind++];
	if (optind < argc)
		return cli_fail("one FILE at most (\"%s\" and \"%s\")", cli_quote(shown, c->file),
				cli_quote(second, argv[optind]));
	if (!c->given[OPT_DV])
		c->d_v = c->d_k;
	return check_combinations(c);
}

static int write_output(const struct cli *c, const struct qkv_problem *p, const struct qkv_trace *trace,
			const struct qkv_heads_trace *heads, const struct qkv_online *online,
			const struct print_options *options, const struct qkv_sweep_point *points, int count);

/* Runs the d_k sweep and prints it (or draws it); the exit status. */
static int run_sweep(const struct cli *c)
{
	struct qkv_sweep_point points[QKV_SWEEP_MAX_POINTS];
	int count = qkv_sweep(c->tokens, c->trials, c->seed, c->d_k_max, points);

	if (count < 0) {
		cli_fail("the sweep failed: %s", qkv_error_string(count));
		return count == QKV_EINVAL ? EXIT_USAGE : EXIT_FAILURE;
	}
	return write_output(c, NULL, NULL, NULL, NULL, &c->print, points, count);
}

/* Fills p from the file, a random draw or the built-in example; the exit status. */
static int make_problem(const struct cli *c, struct qkv_problem *p)
{
	char message[1024];
	int rc;

	if (c->file != NULL) {
		if (load_file(c->file, p, message, sizeof message) != 0) {
			fprintf(stderr, "%s\n", message);
			return EXIT_USAGE;
		}
		return EXIT_SUCCESS;
	}
	if (c->given[OPT_RANDOM]) {
		/* Cross-attention: the draw of max(M, N) tokens, cut to M queries and N keys. */
		int drawn = c->given[OPT_QUERIES] && c->queries > c->tokens ? c->queries : c->tokens;

		if (c->given[OPT_HEADS])
			rc = qkv_problem_random_heads(p, drawn, c->heads, c->d_model, c->seed);
		else
			rc = qkv_problem_random(p, drawn, c->d_k, c->d_v, c->seed);
		if (rc == 0 && c->given[OPT_QUERIES])
			rc = qkv_problem_cut_cross(p, c->queries, c->tokens);
		if (rc == 0) {
			/* The sizes and the seed change later; the header shows them live. */
			rc = qkv_problem_set_title(p, "Random N(0,1) problem");
		}
	} else {
		rc = builtin_worked_example(p);
	}
	if (rc != 0) {
		cli_fail("cannot make the problem: %s", qkv_error_string(rc));
		return rc == QKV_ENOMEM ? EXIT_FAILURE : EXIT_USAGE;
	}
	return EXIT_SUCCESS;
}

/* The options that change the computation, applied over what the problem says. */
static int apply_overrides(const struct cli *c, struct qkv_problem *p)
{
	if (c->given[OPT_NO_SCALE])
		p->scale = QKV_SCALE_NONE;
	if (c->given[OPT_SCALE]) {
		p->scale = QKV_SCALE_CUSTOM;
		p->scale_value = c->scale;
	}
	if (c->given[OPT_TEMPERATURE])
		p->temperature = c->temperature;
	if (c->given[OPT_WRONG])
		p->wrong = c->wrong;
	if (c->given[OPT_MASK] && c->mask == QKV_MASK_CAUSAL && p->m != p->n) {
		char shown[CLI_QUOTED];

		cli_fail("--mask causal needs as many queries as keys (query i sees keys 1 to i); %s has "
			 "%d quer%s and %d key%s", c->file != NULL ? cli_quote(shown, c->file) : "the problem",
			 p->m, p->m == 1 ? "y" : "ies", p->n, p->n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (c->given[OPT_MASK] && qkv_problem_set_mask(p, c->mask) != 0) {
		cli_fail("cannot set the mask: out of memory");
		return EXIT_FAILURE;
	}
	return 0;
}

/* Where the problem came from, for messages. */
static const char *problem_name(const struct cli *c, char shown[CLI_QUOTED])
{
	if (c->file != NULL)
		return cli_quote(shown, c->file);
	return c->given[OPT_RANDOM] ? "the random problem" : "the worked example";
}

/* --stage and --cell against the problem's sizes; 0 or EXIT_USAGE. */
static int check_against_problem(const struct cli *c, const struct qkv_problem *p)
{
	char shown[CLI_QUOTED];
	int d_k = qkv_problem_d_k(p), d_v = qkv_problem_d_v(p);
	int widest = p->n > d_k ? p->n : d_k;

	if (d_v > widest)
		widest = d_v;
	if (c->print.stage == QKV_STAGE_PROJECTIONS && p->form != QKV_FORM_PROJECTED)
		return cli_fail("--stage 0 (projections) needs a problem given as X, W_Q, W_K, W_V; "
			    "%s gives Q, K, V", problem_name(c, shown));
	if (c->cell_i > p->m && qkv_problem_is_cross(p))
		return cli_fail("--cell %d,%d: %s has %d quer%s", c->cell_i, c->cell_j,
			    problem_name(c, shown), p->m, p->m == 1 ? "y" : "ies");
	if (c->cell_i > p->n && !qkv_problem_is_cross(p))
		return cli_fail("--cell %d,%d: %s has %d tokens", c->cell_i, c->cell_j,
			    problem_name(c, shown), p->n);
	if (c->cell_j > widest)
		return cli_fail("--cell %d,%d: %s has no column %d (at most %d)", c->cell_i,
			    c->cell_j, problem_name(c, shown), c->cell_j, widest);
	return 0;
}

/* Writes the report or the figure of trace to the output: standard output, or
 * --output atomically (made in memory first). 0, or the exit status with one line
 * written: EXIT_USAGE when --output cannot be written, else EXIT_FAILURE. */
static int write_output(const struct cli *c, const struct qkv_problem *p, const struct qkv_trace *trace,
			const struct qkv_heads_trace *heads, const struct qkv_online *online,
			const struct print_options *options, const struct qkv_sweep_point *points, int count)
{
	struct figure_options fo;
	struct print_options o = *options;
	char err[1024] = "", *bytes = NULL;
	size_t length = 0;
	FILE *out = stdout;
	int rc;

	cli_figure_options(&c->fig, c->palette, options, c->given[OPT_DECIMALS], c->given[OPT_CELL], &fo);
	o.figure = &fo;
	o.err = err;
	o.err_size = sizeof err;
	/* Too large a figure is refused before any file is opened. */
	if (c->figure && points == NULL && options->stage != PRINT_STAGE_GEOMETRY &&
	    (heads != NULL ? figure_heads_check_size(p, heads, &fo, err, sizeof err)
			   : figure_check_size(p, trace, &fo, err, sizeof err)) != 0) {
		cli_fail("%s", err);
		return EXIT_USAGE;
	}
	if (c->output != NULL && (out = open_memstream(&bytes, &length)) == NULL) {
		cli_fail("cannot write the report: out of memory");
		return EXIT_FAILURE;
	}
	errno = 0;
	if (c->given[OPT_STANDALONE])
		latex_text_document_begin(out, c->given[OPT_HEATMAP] ? latex_heatmap_preamble(c->heatmap)
				: LATEX_REPORT_PREAMBLE);
	if (points != NULL)
		rc = print_sweep(out, points, count, c->tokens, c->trials, (unsigned long long)c->seed, &o);
	else if (c->given[OPT_HEATMAP])
		rc = latex_heatmap_write(out, p, trace, &fo, c->heatmap);
	else if (online != NULL)
		rc = print_online(out, p, online, &o);
	else if (heads != NULL) {
		enum figure_format format = FIGURE_SVG;

		print_format_figure(c->print.format, &format);
		rc = figure_heads_write(out, format, p, heads, &fo, err, sizeof err);
	}
	else
		rc = print_trace(out, p, trace, &o);
	if (rc == 0 && c->given[OPT_STANDALONE])
		latex_text_document_end(out);
	if (rc != 0 && err[0] == '\0') /* a figure says why itself */
		snprintf(err, sizeof err, "cannot write the %s: %s",
			 points != NULL ? "table" : c->given[OPT_HEATMAP] ? "heatmap" : "report",
			 errno != 0 ? strerror(errno) : "write error");
	if (c->output != NULL) {
		if (fclose(out) != 0 && rc == 0) {
			snprintf(err, sizeof err, "cannot write the report: out of memory");
			rc = -1;
		}
		if (rc == 0 && save_bytes(c->output, bytes, length, err, sizeof err) != 0)
			rc = EXIT_USAGE;
		free(bytes);
	}
	if (rc != 0)
		cli_fail("%s", err);
	return rc == 0 ? 0 : rc == EXIT_USAGE ? EXIT_USAGE : EXIT_FAILURE;
}

/* Computes the output the online way (--algorithm online) and prints it; the exit
 * status. */
static int run_online(const struct cli *c, const struct qkv_problem *p, const struct print_options *options)
{
	struct qkv_online online;
	int status, rc;

	qkv_online_init(&online);
	rc = qkv_online_attention(p, c->given[OPT_TILE] ? c->tile : QKV_ONLINE_DEFAULT_TILE, &online);
	if (rc != 0) {
		cli_fail("cannot compute the attention online: %s", qkv_error_string(rc));
		status = EXIT_FAILURE;
	} else {
		status = write_output(c, p, NULL, NULL, &online, options, NULL, 0);
	}
	qkv_online_fini(&online);
	return status;
}

/* Computes the trace and prints it; the exit status. */
static int run_print(const struct cli *c, const struct qkv_problem *p)
{
	struct qkv_trace trace;
	struct print_options options = c->print;
	int status = EXIT_SUCCESS;
	int rc;

	options.cell_row = c->cell_i - 1;
	options.cell_col = c->cell_j - 1;
	/* A large trace is megabytes of text: written 64 KiB at a time, not in stdio's
	 * 4 KiB (glibc keeps its own size unless it is given the buffer itself). */
	static char out_buffer[1 << 16];

	setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
	if (p->h > 0 && c->online) {
		char shown[CLI_QUOTED];

		return cli_fail("%s has %d heads: --algorithm online computes a single head's attention",
				problem_name(c, shown), p->h);
	}
	if (p->h > 0 && !c->figure && (!print_format_heads(options.format) || c->output != NULL)) {
		char names[128], figures[128], shown[CLI_QUOTED];

		print_format_names(names, sizeof names, -1, print_format_heads);
		print_format_names(figures, sizeof figures, PRINT_KIND_FIGURE, NULL);
		return cli_fail("%s has %d heads: its report goes to standard output as %s (--output only "
			    "with a figure, --format %s)", problem_name(c, shown), p->h, names, figures);
	}
	/* Each head has scores, scaled scores and weights of its own: a figure of
	 * one of them is a heatmap per head. */
	if (p->h > 0 && c->figure && options.stage >= 0 && options.stage != QKV_STAGE_SCORES &&
	    options.stage != QKV_STAGE_SCALED && options.stage != QKV_STAGE_WEIGHTS) {
		char shown[CLI_QUOTED];

		return cli_fail("%s has %d heads: a figure draws stage 1, 2 or 3 (scores, scaled, weights) of "
				"each head, not stage %d", problem_name(c, shown), p->h, options.stage);
	}
	if (p->h == 0 && c->given[OPT_HEADS_PANELS]) {
		char shown[CLI_QUOTED];

		return cli_fail("--heads-panels goes with a problem of several heads; %s has one",
				problem_name(c, shown));
	}
	/* The geometry is one head's queries and keys: refused for several heads. */
	if (p->h > 0 && options.stage == PRINT_STAGE_GEOMETRY) {
		char shown[CLI_QUOTED];

		return cli_fail("%s has %d heads: --stage geometry draws a single-head problem's queries and keys",
				problem_name(c, shown), p->h);
	}
	if (p->h > 0) {
		struct qkv_heads_trace heads;

		qkv_heads_trace_init(&heads);
		rc = qkv_heads_attention(p, &heads);
		if (rc != 0) {
			cli_fail("cannot compute the attention: %s", qkv_error_string(rc));
			status = EXIT_FAILURE;
		} else {
			errno = 0;
			if (c->given[OPT_STANDALONE])
				latex_text_document_begin(stdout, c->given[OPT_HEATMAP]
							  ? latex_heatmap_preamble(c->heatmap) : LATEX_REPORT_PREAMBLE);
			/* A figure of several heads: a heatmap per head, in a grid. */
			if (c->figure) {
				rc = write_output(c, p, &heads.head[0], &heads, NULL, &options, NULL, 0);
				qkv_heads_trace_fini(&heads);
				return rc;
			}
			/* A heatmap of several heads: one per head, each under its name. */
			if (c->given[OPT_HEATMAP]) {
				struct figure_options fo;

				cli_figure_options(&c->fig, c->palette, &options, c->given[OPT_DECIMALS],
						   c->given[OPT_CELL], &fo);
				rc = latex_heatmap_write_heads(stdout, p, &heads, &fo, c->heatmap);
			}
			else
				rc = print_heads(stdout, p, &heads, &options);
			if (rc == 0 && c->given[OPT_STANDALONE])
				latex_text_document_end(stdout);
			if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
				cli_fail("cannot write the report: %s",
				     errno != 0 ? strerror(errno) : "write error");
				status = EXIT_FAILURE;
			}
		}
		qkv_heads_trace_fini(&heads);
		return status;
	}
	if (c->online)
		return run_online(c, p, &options);
	qkv_trace_init(&trace);
	rc = qkv_attention(p, &trace);
	if (rc != 0) {
		cli_fail("cannot compute the attention: %s", qkv_error_string(rc));
		status = EXIT_FAILURE;
	} else {
		status = write_output(c, p, &trace, NULL, NULL, &options, NULL, 0);
	}
	qkv_trace_fini(&trace);
	return status;
}

/* --check-lesson, --lesson, --notes; the exit status. */
static int run_lesson(const struct cli *c)
{
	struct lesson lesson;
	char err[1200];
	int checked, failed, status;

	if (lesson_load(c->lesson, &lesson, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	/* Every step must replay, whatever is asked: a lesson that breaks in class is refused now. */
	if (c->given[OPT_CHECK_LESSON])
		failed = lesson_check_printing(&lesson, &checked, err, sizeof err);
	else
		failed = lesson_check_saying(&lesson, c->lesson, &checked, err, sizeof err);
	if (failed < 0) {
		fprintf(stderr, "%s\n", err);
		lesson_free(&lesson);
		return EXIT_USAGE;
	}
	if (c->given[OPT_CHECK_LESSON]) {
		printf("%s: %d step%s, expects holding: %d of %d\n", c->lesson, lesson.step_count,
		       lesson.step_count == 1 ? "" : "s", checked - failed, checked);
		lesson_free(&lesson);
		if (fflush(stdout) != 0 || ferror(stdout))
			return cli_fail("cannot write to standard output: %s", strerror(errno));
		return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (c->given[OPT_NOTES]) {
		status = notes_screen_follow(&lesson);
		lesson_free(&lesson);
		return status;
	}
	if (!isatty(STDOUT_FILENO)) {
		lesson_free(&lesson);
		return cli_fail("the interface needs a terminal; --check-lesson replays a lesson without one");
	}
	struct tui_options options = {
		.palette = c->palette, .color = c->color, .projector = c->given[OPT_PROJECTOR], .pace = c->pace,
		.lesson = &lesson, .record = c->record, .record_force = c->given[OPT_FORCE],
	};
	struct qkv_problem problem;

	qkv_problem_init(&problem);
	if (builtin_worked_example(&problem) != 0) {
		lesson_free(&lesson);
		return cli_fail("cannot start: out of memory");
	}
	status = tui_run(&problem, NULL, &options);
	lesson_free(&lesson);
	return status;
}

/* `qkv --train TASK …`: its own options; prints, or opens on the learning view. */
static int run_train(int argc, char **argv)
{
	struct train_cli t;
	struct qkv_problem problem;
	struct qkv_matrix target;
	int status = train_cli_parse(argc, argv, &t);

	if (status == TRAIN_CLI_HELP)
	{
		cli_usage(stdout, STR(APP_PACE_S));
		return fflush(stdout) != 0 || ferror(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	if (status != 0 || t.print)
		return status != 0 ? status : t.figure ? train_run_figure(&t) : train_run_print(stdout, &t);
	qkv_problem_init(&problem);
	qkv_matrix_init(&target);
	status = qkv_train_task(&t.config, &problem, &target);
	qkv_matrix_fini(&target);
	if (status != 0) {
		qkv_problem_fini(&problem);
		return cli_fail("cannot make the task: %s", qkv_error_string(status)) - 1;
	}
	struct tui_options options = { .palette = t.palette, .color = t.color,
				       .projector = t.projector, .pace = APP_PACE_S, .train = &t.config };
	return tui_run(&problem, NULL, &options);
}

int main(int argc, char **argv)
{
	struct cli c = {
		.cell_i = 1, .cell_j = 1, .tokens = QKV_SWEEP_TOKENS, .trials = QKV_SWEEP_TRIALS,
		.d_k_max = QKV_SWEEP_DK_MAX, .seed = QKV_SWEEP_SEED, .temperature = 1, .pace = APP_PACE_S, .heads = 1,
		.cost_algorithms = QKV_COST_BOTH,
	};
	struct qkv_problem problem;
	char shown[CLI_QUOTED];
	int status;

	if (train_cli_wanted(argc, argv))
		return run_train(argc, argv);
	print_options_default(&c.print);
	status = parse_command_line(argc, argv, &c);
	if (status < 0) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			cli_fail("cannot write to standard output: %s", strerror(errno));
			return EXIT_FAILURE;
		}
		return EXIT_SUCCESS;
	}
	if (status != 0)
		return status;
	if (c.given[OPT_SWEEP])
		return run_sweep(&c);
	if (c.lesson != NULL)
		return run_lesson(&c);
	if (c.given[OPT_COST])
		return run_cost(&c);

	qkv_problem_init(&problem);
	status = make_problem(&c, &problem);
	if (status == 0)
		status = apply_overrides(&c, &problem);
	if (status == 0) {
		int rc = qkv_problem_check(&problem);
		if (rc != 0)
			status = cli_fail("%s cannot be computed: %s", problem_name(&c, shown),
				      qkv_error_string(rc));
	}
	if (status == 0)
		status = check_against_problem(&c, &problem);
	if (status != 0) {
		qkv_problem_fini(&problem);
		return status;
	}
	if (wants_print(&c)) {
		status = run_print(&c, &problem);
		qkv_problem_fini(&problem);
		return status;
	}
	if (problem.h > 0 && qkv_heads_cost(&problem) > HEADS_INTERFACE_COST) {
		status = cli_fail("%s's %d heads take %.0f million multiply-adds a change, too many to "
			      "recompute between two keys (at most %.0f million): fewer tokens or a "
			      "smaller d_model", problem_name(&c, shown), problem.h,
			      qkv_heads_cost(&problem) / 1e6, HEADS_INTERFACE_COST / 1e6);
		qkv_problem_fini(&problem);
		return status;
	}
	if (!isatty(STDOUT_FILENO)) {
		qkv_problem_fini(&problem);
		return cli_fail("the interface needs a terminal; use --print to write the stages as text");
	}
	struct tui_options options = {
		.palette = c.palette, .color = c.color, .projector = c.given[OPT_PROJECTOR], .pace = c.pace,
		.record = c.record, .record_force = c.given[OPT_FORCE], .recover = c.given[OPT_RECOVER],
	};
	return tui_run(&problem, c.file, &options);
}
