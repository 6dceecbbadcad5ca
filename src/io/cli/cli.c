/* cli.c — the refusal, the option value parsers of the command lines and a
 * figure's options from them (see cli.h). Writes only to stderr, and only one line. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/cli/cli.h"
#include "io/figure/figure.h"
#include "io/problem/quote.h"
#include "qkv/colour.h"
#include "qkv/problem.h"

int cli_fail(const char *fmt, ...)
{
	va_list args;

	fputs("qkv: ", stderr);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	return CLI_USAGE;
}

const char *cli_quote(char out[CLI_QUOTED], const char *text)
{
	quote_text(out, CLI_QUOTED, text, strlen(text), 240);
	return out;
}

int cli_parse_int(const char *option, const char *text, long low, long high, int *out)
{
	char *end, shown[CLI_QUOTED];
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (end == text || *end != '\0' || errno != 0 || value < low || value > high)
		return cli_fail("--%s needs a whole number from %ld to %ld, not \"%s\"", option, low,
				high, cli_quote(shown, text));
	*out = (int)value;
	return 0;
}

int cli_parse_double(const char *option, const char *text, double low, double high,
		     double *out)
{
	char *end, shown[CLI_QUOTED];
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || *end != '\0' || errno != 0 || !isfinite(value) || value < low
	    || value > high)
		return cli_fail("--%s needs a number from %g to %g, not \"%s\"", option, low, high,
				cli_quote(shown, text));
	*out = value;
	return 0;
}

int cli_parse_seed(const char *text, uint64_t *out)
{
	char *end, shown[CLI_QUOTED];
	unsigned long long value;

	errno = 0;
	value = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || value > QKV_MAX_SEED)
		return cli_fail("--seed needs a whole number from 0 to %llu, not \"%s\"",
				QKV_MAX_SEED, cli_quote(shown, text));
	*out = (uint64_t)value;
	return 0;
}

int cli_parse_size(const char *text, double *width, double *height)
{
	char shown[CLI_QUOTED];

	if (figure_size_parse(text, width, height) != 0)
		return cli_fail("--size needs WxH, two numbers from %g to %g (points; png: pixels), "
				"like 960x540, not \"%s\"", FIGURE_MIN_SIDE, FIGURE_MAX_SIDE, cli_quote(shown, text));
	return 0;
}

int cli_parse_background(const char *text, bool *dark)
{
	char shown[CLI_QUOTED];

	if (strcmp(text, "light") != 0 && strcmp(text, "dark") != 0)
		return cli_fail("--background needs light or dark, not \"%s\"", cli_quote(shown, text));
	*dark = strcmp(text, "dark") == 0;
	return 0;
}

int cli_parse_color(const char *text)
{
	static const char *const depths[] = { "auto", "truecolor", "256", "8", "mono" };
	char shown[CLI_QUOTED];

	for (size_t i = 0; i < sizeof depths / sizeof *depths; i++)
		if (strcmp(text, depths[i]) == 0)
			return 0;
	return cli_fail("--color %s: expected auto, truecolor, 256, 8 or mono", cli_quote(shown, text));
}

int cli_check_palette(const char *name)
{
	char shown[CLI_QUOTED];

	if (qkv_colour_palette_find(name) < 0)
		return cli_fail("--palette needs viridis, projector, 8 or mono, not \"%s\"", cli_quote(shown, name));
	return 0;
}

int cli_check_figure_palette(const char *name)
{
	char shown[CLI_QUOTED];
	int map = qkv_colour_map_find(name);

	if ((map >= 0 && map != QKV_MAP_COOLWARM) || qkv_colour_palette_find(name) >= 0)
		return 0;
	return cli_fail("--palette needs viridis, cividis, grey (continuous maps) or projector, 8, mono (the "
			"screen's steps) for a figure, not \"%s\"", cli_quote(shown, name));
}

void cli_figure_palette(const char *name, int *palette, int *map)
{
	int m = name != NULL ? qkv_colour_map_find(name) : QKV_MAP_VIRIDIS;

	if (m >= 0 && m != QKV_MAP_COOLWARM) {
		*palette = QKV_PALETTE_VIRIDIS;
		*map = m;
	} else {
		*palette = qkv_colour_palette_find(name);
		*map = -1;
	}
}

int cli_parse_heads_panels(const char *text, unsigned *panels)
{
	char shown[CLI_QUOTED];
	const char *at = text;

	*panels = 0;
	for (;;) {
		size_t length = strcspn(at, ",");

		if (length == 7 && strncmp(at, "average", 7) == 0)
			*panels |= FIGURE_HEADS_AVERAGE;
		else if (length == 6 && strncmp(at, "concat", 6) == 0)
			*panels |= FIGURE_HEADS_CONCAT;
		else if (!(length == 4 && strncmp(at, "none", 4) == 0))
			return cli_fail("--heads-panels needs average, concat, both (average,concat) or none, not "
					"\"%s\"", cli_quote(shown, text));
		if (at[length] == '\0')
			return 0;
		at += length + 1;
	}
}

int cli_figure_only(const char *option)
{
	char figures[128];

	print_format_names(figures, sizeof figures, PRINT_KIND_FIGURE, NULL);
	return cli_fail("--%s goes with --format %s", option, figures);
}

int cli_check_binary(enum print_format format, const char *output)
{
	if (print_format_binary(format) && output == NULL && isatty(STDOUT_FILENO))
		return cli_fail("--format %s writes binary data, not for a terminal: give --output FILE",
				print_format_name(format));
	return 0;
}

/* "--stage N": a number 0..5 or a stage's name, or "geometry". */
int cli_parse_stage(const char *text, int *stage)
{
	char shown[CLI_QUOTED];

	if (strcmp(text, "geometry") == 0) {
		*stage = PRINT_STAGE_GEOMETRY;
		return 0;
	}
	for (int s = 0; s < QKV_STAGE_COUNT; s++) {
		char number[4];

		snprintf(number, sizeof number, "%d", s);
		if (strcmp(text, number) == 0 || strcmp(text, qkv_stage_name((enum qkv_stage)s)) == 0) {
			*stage = s;
			return 0;
		}
	}
	return cli_fail("--stage needs 1 to 5 (or 0 in the projected form), a stage's name or geometry, "
		    "not \"%s\"", cli_quote(shown, text));
}

int cli_parse_mask(const char *text, enum qkv_mask *mask)
{
	char shown[CLI_QUOTED];

	/* A custom mask is drawn by hand in the interface, never named. */
	if (qkv_mask_parse(text, mask) != 0 || *mask == QKV_MASK_CUSTOM)
		return cli_fail("--mask needs none or causal, not \"%s\"", cli_quote(shown, text));
	return 0;
}

int cli_parse_wrong(const char *text, enum qkv_wrong *wrong)
{
	char shown[CLI_QUOTED];

	if (qkv_wrong_parse(text, wrong) != 0)
		return cli_fail("--wrong needs mask-after-softmax or column-softmax, not \"%s\"",
				cli_quote(shown, text));
	return 0;
}

int cli_parse_range(const char *text, bool *given, double *low, double *high)
{
	char shown[CLI_QUOTED];

	*given = strcmp(text, "auto") != 0;
	if (*given && figure_range_parse(text, low, high) != 0)
		return cli_fail("--range needs auto or MIN:MAX, two numbers with MIN < MAX, like 0:0.5; "
				"not \"%s\"", cli_quote(shown, text));
	return 0;
}

int cli_parse_numbers(const char *text, enum figure_numbers *numbers)
{
	char shown[CLI_QUOTED];

	if (strcmp(text, "auto") == 0 || strcmp(text, "on") == 0 || strcmp(text, "off") == 0) {
		*numbers = text[0] == 'a' ? FIGURE_NUMBERS_AUTO : text[1] == 'n' ? FIGURE_NUMBERS_ON
										  : FIGURE_NUMBERS_OFF;
		return 0;
	}
	return cli_fail("--numbers needs on, off or auto, not \"%s\"", cli_quote(shown, text));
}

/* The figure's options (and a LaTeX heatmap's colours) as the command line gives
 * them. */
void cli_figure_options(const struct cli_figure *given, const char *palette, const struct print_options *options,
			bool decimals_given, bool cell_given, struct figure_options *fo)
{
	figure_options_default(fo);
	fo->stage = options->stage >= 0 ? options->stage : QKV_STAGE_WEIGHTS;
	cli_figure_palette(palette, &fo->palette, &fo->map);
	if (fo->palette < 0)
		fo->palette = QKV_PALETTE_VIRIDIS;
	fo->levels = given->levels;
	fo->range_given = given->range_given;
	fo->range_low = given->range_low;
	fo->range_high = given->range_high;
	fo->numbers = given->numbers;
	fo->title = given->title;
	fo->heads_panels = given->heads_panels;
	fo->dark = given->dark;
	fo->decimals = decimals_given ? options->decimals : 2;
	fo->cell_row = cell_given ? options->cell_row : -1;
	fo->cell_col = cell_given ? options->cell_col : -1;
	fo->width = given->size_w;
	fo->height = given->size_h;
}
