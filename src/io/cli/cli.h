/* cli.h — what qkv's command lines use (main.c's, and --train's in
 * train_cli.c): the one-line refusal, the parsers of the option values, and a
 * figure's options as the command line gives them. A parser returns 0 with the value stored, or CLI_USAGE after writing one
 * line "qkv: --OPTION needs …, not "TEXT"" on stderr. */
#ifndef QKV_IO_CLI_H
#define QKV_IO_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "io/figure/figure.h"
#include "io/report/print.h"
#include "qkv/problem.h"

#define CLI_USAGE 2 /* the exit status of bad usage or bad input */

/* Writes qkv --help to out; pace is the text of --pace's default (the app's). */
void cli_usage(FILE *out, const char *pace);

/* Writes "qkv: " and the message as one line on stderr; returns CLI_USAGE, for
 * `return cli_fail(...)`. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The room cli_quote needs. */
#define CLI_QUOTED 1024
/* text as a message quotes it (quote.h: control characters escaped), its first
 * 240 bytes at most, into out; returns out. */
const char *cli_quote(char out[CLI_QUOTED], const char *text);

/* A whole number in low..high, for --OPTION. */
int cli_parse_int(const char *option, const char *text, long low, long high, int *out);
/* A finite number in low..high, for --OPTION. */
int cli_parse_double(const char *option, const char *text, double low, double high,
		     double *out);
/* --seed: 0..2^53 − 1, so that the seed written in JSON reads back exactly in every
 * reader (JavaScript's numbers and jansson's integers included). */
int cli_parse_seed(const char *text, uint64_t *out);
/* --size WxH of a figure (figure_size_parse). */
int cli_parse_size(const char *text, double *width, double *height);
/* --background light or dark. */
int cli_parse_background(const char *text, bool *dark);
/* --color DEPTH: auto, truecolor, 256, 8 or mono. */
int cli_parse_color(const char *text);
/* --palette NAME, when a figure or a heatmap takes it (the interface checks its
 * own): viridis, projector, 8 or mono. */
int cli_check_palette(const char *name);
/* --OPTION (--size, --background) given without a figure format. */
int cli_figure_only(const char *option);
/* --palette for a figure: a continuous map (viridis, cividis, grey) or a screen
 * palette (projector, 8, mono); 0, or CLI_USAGE with the line written. */
int cli_check_figure_palette(const char *name);
/* A figure's palette and map from --palette NAME (NULL: viridis, continuous):
 * a map's name gives that map; a palette's, its steps (map -1). */
void cli_figure_palette(const char *name, int *palette, int *map);
/* "--heads-panels average,concat" (or one of them, or none) → FIGURE_HEADS_* bits;
 * 0, or CLI_USAGE with the line written. */
int cli_parse_heads_panels(const char *text, unsigned *panels);
/* --stage N: a number 0..5, a stage's name, or geometry (PRINT_STAGE_GEOMETRY). */
int cli_parse_stage(const char *text, int *stage);
/* --mask none or causal (a custom mask is drawn in the interface, never named). */
int cli_parse_mask(const char *text, enum qkv_mask *mask);
/* --wrong mask-after-softmax or column-softmax. */
int cli_parse_wrong(const char *text, enum qkv_wrong *wrong);
/* --range auto (given false) or MIN:MAX (given true, figure_range_parse). */
int cli_parse_range(const char *text, bool *given, double *low, double *high);
/* --numbers on, off or auto. */
int cli_parse_numbers(const char *text, enum figure_numbers *numbers);
/* A figure's options as a command line gives them. */
struct cli_figure {
	double size_w, size_h;       /* --size (0: the natural size) */
	bool dark;                   /* --background dark */
	int levels;                  /* --levels (0: continuous) */
	bool range_given;            /* --range MIN:MAX (not auto) */
	double range_low, range_high;
	enum figure_numbers numbers; /* --numbers */
	const char *title;           /* --title (NULL: the built-in one) */
	unsigned heads_panels;       /* --heads-panels: FIGURE_HEADS_* bits */
};
/* The figure's options (and a LaTeX heatmap's colours) into fo: the defaults,
 * then given's, palette's (cli_figure_palette; NULL: viridis), the report's stage
 * (the weights when it names none), and its decimals and cell only when given on
 * the command line. */
void cli_figure_options(const struct cli_figure *given, const char *palette, const struct print_options *options,
			bool decimals_given, bool cell_given, struct figure_options *fo);
/* A binary format (PDF, PNG) is not written to a terminal: refused unless
 * --output FILE is given or standard output is not a terminal. */
int cli_check_binary(enum print_format format, const char *output);

#endif
