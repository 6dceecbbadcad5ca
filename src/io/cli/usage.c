/* usage.c — qkv --help: the options in three parts around the entries that name
 * formats, which are written from the printer's table of formats. */
#include <stdio.h>

#include "io/cli/cli.h"
#include "io/report/print.h"
#include "qkv/online.h"
#include "qkv/sweep.h"
#include "qkv/text.h"

#define STR(x) STR_(x) /* a number's macro as the text of the number */
#define STR_(x) #x

/* --help, in three parts around the entries that name formats: those are
 * written from the printer's table of formats (usage()). */
static const char usage_top[] =
	"Usage: qkv [OPTION]... [FILE]\n"
	"Shows scaled dot-product attention, softmax(Q Kᵀ / √d_k) V, stage by stage.\n"
	"Without FILE: the course's three-token worked example. Keys: man qkv, or ?.\n"
	"\n"
	"  -p, --print           print the stages and exit, instead of the interface\n";
static const char usage_middle[] =
	"  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
	"      --size WxH        a figure's size in points (png: pixels), 16 to 8192\n"
	"      --background B    a figure's background: light (default) or dark\n"
	"      --levels N        a figure's (or --heatmap's) colours in N equal steps,\n"
	"                        2 to 256 (default: continuous)\n"
	"      --range R         a heatmap's colours' range (figure or --heatmap): auto\n"
	"                        (0:1 for weights, ±max |value| signed) or MIN:MAX\n"
	"      --numbers N       numbers in a figure's cells: on, off or auto (default:\n"
	"                        off when they would be drawn smaller than 7 pt)\n"
	"      --title TEXT      a figure's title, not the built-in lines; '': none\n"
	"      --heads-panels P  with several heads: average, concat or average,concat\n"
	"                        (the heads' mean weights; Concat and Concat · W_O)\n"
	"      --heatmap[=FORM]  LaTeX of stage 1, 2 or 3 (default 3) as a heatmap:\n"
	"                        table (\\cellcolor cells, default) or pgfplots;\n"
	"                        a figure's colours; several heads: one per head\n"
	"      --standalone      LaTeX as a whole document (pdflatex or lualatex)\n"
	"      --stage N         only stage N: 1 scores, 2 scaled, 3 weights, 4 mix,\n"
	"                        5 output, 0 projections (not with json: always whole);\n"
	"                        geometry: queries and keys as points in a plane\n"
	"      --cell I,J        the cell whose arithmetic is written out, from 1\n"
	"      --decimals D      digits after the point, 0 to 12 (default 4)\n"
	"      --random          random N(0,1) Q, K, V; needs --tokens and --dk\n"
	"      --tokens N        tokens for --random, or for --sweep (default " STR(QKV_SWEEP_TOKENS) ")\n"
	"      --queries M       with --random: cross-attention, M queries q1…qM attending\n"
	"                        to the N tokens t1…tN (the keys and values)\n"
	"      --dk D            d_k for --random, 1 to 4096\n"
	"      --dv D            d_v for --random (default: d_k)\n"
	"      --dmodel D        with --random --heads H: d_model, d_k = d_v = D/H;\n"
	"                        X is drawn N(0,1), every W N(0,1/D): S' has variance near 1\n"
	"      --seed S          seed of --random and --sweep (default " STR(QKV_SWEEP_SEED) ")\n"
	"      --sweep           print the d_k sweep: softmax with and without √d_k\n"
	"      --trials T        trials per d_k for --sweep (default " STR(QKV_SWEEP_TRIALS) ")\n"
	"      --dk-max D        largest d_k of --sweep, up to 4096 (default " STR(QKV_SWEEP_DK_MAX) ")\n"
	"      --no-scale        do not divide the scores by √d_k\n"
	"      --scale X         divide the scores by X instead of √d_k\n"
	"      --temperature T   divide the scores also by τ = T (default 1)\n"
	"      --mask M          none or causal (query i sees keys j ≤ i)\n"
	"      --wrong W         mask-after-softmax or column-softmax, on purpose\n"
	"      --projector       start the interface in projector mode\n"
	"      --palette NAME    colour palette (also of a figure): viridis (default),\n"
	"                        projector, 8, mono; a figure, --heatmap: cividis, grey\n"
	"                        (viridis, cividis, grey continuous; coolwarm signed)\n"
	"      --color DEPTH     auto (default), truecolor, 256, 8 or mono; NO_COLOR wins\n";
static const char usage_after_pace[] =
	"      --lesson FILE     present a lesson: PgDn and PgUp step it (lessons/)\n"
	"      --check-lesson FILE  replay a lesson without a terminal, check its expects\n"
	"      --notes FILE      presenter notes of the lesson running in another terminal\n"
	"      --record F.cast   record the interface as an asciicast v2 file (asciinema);\n"
	"                        a new file: an existing one only with --force, never\n"
	"                        the problem or the lesson; incomplete: exit status 1\n"
	"      --force           with --record: replace an existing F.cast\n"
	"      --recover         with FILE: offer the unsaved changes an abrupt end kept\n"
	"                        (without it qkv only says on the status line where they are)\n";
static const char usage_bottom[] =
	"      --heads H         with --cost: H heads of d_k against one of H·d_k;\n"
	"                        with --random: H heads (needs --dmodel; not --dk, --dv)\n"
	"  -h, --help            this text\n"
	"  -V, --version         the version\n"
	"\n"
	"--format, --stage, --cell, --decimals and --algorithm imply --print.\n"
	"Exit status: 0 done, 1 runtime failure, 2 bad usage or bad input.\n";

/* One entry of --help: the option in the first 24 columns, then text broken by
 * qkv_text_line to 79 columns, each further line indented to column 24. */
static void help_entry(FILE *out, const char *option, const char *text)
{
	enum { INDENT = 24, WIDTH = 79 };

	fprintf(out, "%-*s", INDENT, option);
	while (*text != '\0') {
		const char *next;
		size_t length = qkv_text_line(text, WIDTH - INDENT, &next);

		fprintf(out, "%.*s\n", (int)length, text);
		if (*next != '\0')
			fprintf(out, "%*s", INDENT, "");
		text = next;
	}
}

/* --help: the fixed parts, and the entries naming formats from the table. */
void cli_usage(FILE *out, const char *pace)
{
	char reports[128], figures[128], trains[128], costs[128], onlines[128], text[640];

	print_format_names(reports, sizeof reports, PRINT_KIND_REPORT, NULL);
	print_format_names(figures, sizeof figures, PRINT_KIND_FIGURE, NULL);
	print_format_names(trains, sizeof trains, PRINT_KIND_REPORT, print_format_trains);
	print_format_names(costs, sizeof costs, PRINT_KIND_REPORT, print_format_costs);
	fputs(usage_top, out);
	snprintf(text, sizeof text, "%s; or a figure of the stage (default weights; --sweep: its "
		 "charts; at most 250,000 cells): %s", reports, figures);
	help_entry(out, "      --format F", text);
	fputs(usage_middle, out);
	fprintf(out, "      --pace SECONDS    autoplay: seconds per step (default %s)\n", pace);
	fputs(usage_after_pace, out);
	snprintf(text, sizeof text, "train one head on lookup, previous or self: opens the learning "
		 "view, or prints the run with --format %s; with --dk, --dmodel, --tokens, "
		 "--no-scale, --loss mse|xent, --optimizer sgd|adam, --lr, --steps, --seed, --learn "
		 "W_Q,W_K,W_V (default W_Q,W_K)", trains);
	help_entry(out, "      --train TASK", text);
	snprintf(text, sizeof text, "with --train: steps to 90%% for d_k = 4 … 256, scaled against "
		 "unscaled (--seeds N, default 5); --format %s draws the run scaled against unscaled, "
		 "or the sweep's medians, seeds and lower bounds", figures);
	help_entry(out, "      --train-sweep", text);
	snprintf(text, sizeof text, "measure what n tokens cost here (n = 16 … 4096 and more), the "
		 "standard algorithm against the online softmax: scores, flops, bytes held, time (median, "
		 "min, max), slopes; --dk D (default 64), --heads H, --algorithm standard|online|both "
		 "(default both), --format %s", costs);
	help_entry(out, "      --cost", text);
	print_format_names(onlines, sizeof onlines, PRINT_KIND_REPORT, print_format_online);
	snprintf(text, sizeof text, "standard (default) or online: the online softmax, which never "
		 "forms S, S' or A; its report (--format %s) has the output and each query's m and ℓ",
		 onlines);
	help_entry(out, "      --algorithm A", text);
	help_entry(out, "      --tile B", "with --algorithm online: keys read at a time (default "
		   STR(QKV_ONLINE_DEFAULT_TILE) ")");
	fputs(usage_bottom, out);
}

