/* cli.h — what qkv's two command lines share (main.c's, and --train's in
 * train_cli.c): the one-line refusal and the parsers of the option values both
 * take. A parser returns 0 with the value stored, or CLI_USAGE after writing one
 * line "qkv: --OPTION needs …, not "TEXT"" on stderr. */
#ifndef QKV_IO_CLI_H
#define QKV_IO_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "io/report/print.h"

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
/* A binary format (PDF, PNG) is not written to a terminal: refused unless
 * --output FILE is given or standard output is not a terminal. */
int cli_check_binary(enum print_format format, const char *output);

#endif
