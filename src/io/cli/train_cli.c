/* train_cli.c — `qkv --train TASK …`: its options, their ranges, the defaults
 * that depend on the loss and optimiser, and the combinations that make sense.
 * Writes one line on stderr for bad usage; computes nothing. */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/cli/cli.h"
#include "io/figure/figure.h"
#include "io/cli/train_cli.h"
#include "qkv/error.h"


/* The most multiply-adds a printed training run may take, as --sweep's limit:
 * about a minute. */
#define TRAIN_MAX_WORK 1.2e11

enum train_opt {
	T_TRAIN, T_SWEEP, T_DK, T_DMODEL, T_TOKENS, T_NO_SCALE, T_LOSS, T_OPTIMIZER, T_LR,
	T_STEPS, T_SEED, T_SEEDS, T_LEARN, T_FORMAT, T_PRINT, T_PROJECTOR, T_PALETTE, T_COLOR,
	T_OUTPUT, T_SIZE, T_BACKGROUND, T_HELP, T_COUNT,
};

static const struct option options[] = {
	{ "train", required_argument, NULL, T_TRAIN },
	{ "train-sweep", no_argument, NULL, T_SWEEP },
	{ "dk", required_argument, NULL, T_DK },
	{ "dmodel", required_argument, NULL, T_DMODEL },
	{ "tokens", required_argument, NULL, T_TOKENS },
	{ "no-scale", no_argument, NULL, T_NO_SCALE },
	{ "loss", required_argument, NULL, T_LOSS },
	{ "optimizer", required_argument, NULL, T_OPTIMIZER },
	{ "lr", required_argument, NULL, T_LR },
	{ "steps", required_argument, NULL, T_STEPS },
	{ "seed", required_argument, NULL, T_SEED },
	{ "seeds", required_argument, NULL, T_SEEDS },
	{ "learn", required_argument, NULL, T_LEARN },
	{ "format", required_argument, NULL, T_FORMAT },
	{ "print", no_argument, NULL, T_PRINT },
	{ "projector", no_argument, NULL, T_PROJECTOR },
	{ "palette", required_argument, NULL, T_PALETTE },
	{ "color", required_argument, NULL, T_COLOR },
	{ "output", required_argument, NULL, T_OUTPUT },
	{ "size", required_argument, NULL, T_SIZE },
	{ "background", required_argument, NULL, T_BACKGROUND },
	{ "help", no_argument, NULL, T_HELP },
	{ NULL, 0, NULL, 0 },
};

bool train_cli_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--train") == 0 || strncmp(argv[i], "--train=", 8) == 0
		    || strcmp(argv[i], "--train-sweep") == 0)
			return true;
	}
	return false;
}

/* "W_Q,W_K" and the like: which projections learn (each at most once). */
static int parse_learn(const char *text, unsigned *learn)
{
	const char *at = text;
	char shown[CLI_QUOTED];

	*learn = 0;
	while (*at != '\0') {
		size_t length = strcspn(at, ",");
		int found = -1;

		for (int w = 0; w < QKV_WEIGHT_COUNT; w++)
			if (length == strlen(qkv_weight_name((enum qkv_weight)w))
			    && strncmp(at, qkv_weight_name((enum qkv_weight)w), length) == 0)
				found = w;
		if (found < 0 || (*learn & (1u << found)))
			return cli_fail("--learn needs W_Q, W_K and W_V separated by commas, each once, "
				    "not \"%s\"", cli_quote(shown, text));
		*learn |= 1u << found;
		at += length;
		if (*at == ',' && *++at == '\0')
			return cli_fail("--learn needs W_Q, W_K and W_V separated by commas, each once, "
				    "not \"%s\"", cli_quote(shown, text));
	}
	if (*learn == 0)
		return cli_fail("--learn needs at least one of W_Q, W_K and W_V");
	return 0;
}

/* The formats of --train: those that print a run, and the figures. */
static bool train_writes(enum print_format format)
{
	return print_format_trains(format) || print_format_kind(format) == PRINT_KIND_FIGURE;
}

static int take(struct train_cli *c, enum train_opt o, const char *arg, bool given[T_COUNT])
{
	char shown[CLI_QUOTED];
	int value;

	switch (o) {
	case T_TRAIN:
		value = qkv_task_parse(arg);
		if (value < 0)
			return cli_fail("--train needs lookup, previous or self, not \"%s\"", cli_quote(shown, arg));
		c->config.task = (enum qkv_task)value;
		return 0;
	case T_DK:
		return cli_parse_int("dk", arg, 1, QKV_MAX_DIM, &c->config.d_k);
	case T_DMODEL:
		return cli_parse_int("dmodel", arg, 1, QKV_MAX_DIM, &c->config.d_model);
	case T_TOKENS:
		return cli_parse_int("tokens", arg, 2, QKV_TRAIN_MAX_TOKENS, &c->config.tokens);
	case T_STEPS:
		return cli_parse_int("steps", arg, 1, QKV_TRAIN_MAX_STEPS, &c->config.steps);
	case T_SEEDS:
		return cli_parse_int("seeds", arg, 1, QKV_TRAIN_SWEEP_MAX_SEEDS, &c->seeds);
	case T_LOSS:
		value = qkv_loss_parse(arg);
		if (value < 0)
			return cli_fail("--loss needs mse or xent, not \"%s\"", cli_quote(shown, arg));
		c->config.loss = (enum qkv_loss)value;
		return 0;
	case T_OPTIMIZER:
		value = qkv_optimizer_parse(arg);
		if (value < 0)
			return cli_fail("--optimizer needs sgd or adam, not \"%s\"", cli_quote(shown, arg));
		c->config.optimizer = (enum qkv_optimizer)value;
		return 0;
	case T_LR: {
		char *end;
		double lr;

		errno = 0;
		lr = strtod(arg, &end);
		/* strtod says ERANGE for a number below the smallest normal double (a
		 * subnormal such as 4.9e-324, or one that rounds to 0): above 0, yet
		 * refused, and said so. */
		if (end != arg && *end == '\0' && errno == ERANGE && !signbit(lr) && lr < DBL_MIN)
			return cli_fail("--lr %s is too small: it needs a number from %.17g (the smallest "
					"normal double) to 1e6", cli_quote(shown, arg), DBL_MIN);
		if (end == arg || *end != '\0' || errno != 0 || !isfinite(lr) || lr <= 0.0 || lr > 1e6)
			return cli_fail("--lr needs a number from %.17g to 1e6, not \"%s\"", DBL_MIN, cli_quote(shown, arg));
		c->config.lr = lr;
		return 0;
	}
	case T_SEED:
		return cli_parse_seed(arg, &c->config.seed);
	case T_LEARN:
		return parse_learn(arg, &c->config.learn);
	case T_FORMAT: {
		enum figure_format figure;
		char names[128];

		if (print_format_parse(arg, &c->format) == 0) {
			if (print_format_figure(c->format, &figure) == 0) {
				c->figure = true;
				c->figure_format = (int)figure;
				return 0;
			}
			if (print_format_trains(c->format))
				return 0;
		}
		print_format_names(names, sizeof names, -1, train_writes);
		return cli_fail("--format with --train needs %s, not \"%s\"", names, cli_quote(shown, arg));
	}
	case T_OUTPUT:
		c->output = arg;
		return 0;
	case T_SIZE:
		return cli_parse_size(arg, &c->size_w, &c->size_h);
	case T_BACKGROUND:
		return cli_parse_background(arg, &c->dark);
	case T_NO_SCALE:
		c->config.scaled = false;
		return 0;
	case T_PALETTE:
		c->palette = arg;
		return 0;
	case T_PROJECTOR:
		c->projector = true;
		return 0;
	case T_COLOR:
		c->color = arg;
		return cli_parse_color(arg);
	default:
		(void)given;
		return 0;
	}
}

/* What does not go together; 0 or CLI_USAGE. */
static int check(struct train_cli *c, bool given[T_COUNT])
{
	static const enum train_opt not_with_sweep[] = {
		T_DK, T_NO_SCALE, T_PROJECTOR, T_PALETTE, T_COLOR,
	};
	int min_d_model;

	if (!given[T_TRAIN])
		return cli_fail("--train-sweep needs --train TASK (lookup, previous or self)");
	if (!c->figure && (given[T_SIZE] || given[T_BACKGROUND]))
		return cli_figure_only(options[given[T_SIZE] ? T_SIZE : T_BACKGROUND].name);
	if (cli_check_binary(c->format, c->output) != 0)
		return CLI_USAGE;
	/* A figure takes a palette: the two curves are the signed ramp's ends. */
	if (c->figure && given[T_PALETTE]) {
		if (cli_check_palette(c->palette) != 0)
			return CLI_USAGE;
		given[T_PALETTE] = false;
	}
	if (c->figure && !c->sweep && given[T_NO_SCALE])
		return cli_fail("--no-scale does not apply to a training figure: it draws the run scaled "
			    "and unscaled, side by side");
	if (c->sweep) {
		for (size_t i = 0; i < sizeof not_with_sweep / sizeof *not_with_sweep; i++)
			if (given[not_with_sweep[i]])
				return cli_fail("--%s does not apply to --train-sweep (it runs d_k = 4 … 256, "
					    "scaled and unscaled)", options[not_with_sweep[i]].name);
	} else if (given[T_SEEDS]) {
		return cli_fail("--seeds goes with --train-sweep");
	}
	if (c->print && (given[T_PROJECTOR] || given[T_PALETTE] || given[T_COLOR]))
		return cli_fail("--%s is for the interface; it does nothing with --format",
			    options[given[T_PROJECTOR] ? T_PROJECTOR
				    : given[T_PALETTE] ? T_PALETTE : T_COLOR].name);
	if (!given[T_DMODEL])
		c->config.d_model = qkv_train_default_d_model(c->config.task, c->config.tokens);
	min_d_model = qkv_train_min_d_model(c->config.task, c->config.tokens);
	if (c->config.d_model < min_d_model)
		return cli_fail("--dmodel %d is too small for %s with %d tokens: it needs at least %d "
			    "(%d value columns and a code part)", c->config.d_model,
			    qkv_task_name(c->config.task), c->config.tokens, min_d_model,
			    c->config.tokens);
	if (!c->print && qkv_train_step_work(&c->config) > QKV_TRAIN_LIVE_WORK) {
		char names[128];

		print_format_names(names, sizeof names, PRINT_KIND_REPORT, print_format_trains);
		return cli_fail("--train with %d tokens, d_model %d and d_k %d is too large to train live "
			    "in the interface; print the run with --format %s",
			    c->config.tokens, c->config.d_model, c->config.d_k, names);
	}
	if (!given[T_LR])
		c->config.lr = qkv_train_default_lr(c->config.loss, c->config.optimizer);
	if (!given[T_STEPS])
		c->config.steps = qkv_train_default_steps(c->config.loss, c->config.optimizer);
	if (c->print && !c->sweep && qkv_train_step_work(&c->config) * c->config.steps > TRAIN_MAX_WORK)
		return cli_fail("--train with %d steps of %d tokens, d_model %d and d_k %d is %.0f billion "
			    "multiply-adds (minutes to hours); at most %.0f billion: fewer --steps, "
			    "or a smaller --dk, --dmodel or --tokens", c->config.steps, c->config.tokens,
			    c->config.d_model, c->config.d_k,
			    qkv_train_step_work(&c->config) * c->config.steps / 1e9, TRAIN_MAX_WORK / 1e9);
	return 0;
}

int train_cli_parse(int argc, char **argv, struct train_cli *c)
{
	bool given[T_COUNT] = { false };
	char shown[CLI_QUOTED];
	int ch;

	memset(c, 0, sizeof *c);
	qkv_train_config_default(&c->config, QKV_TASK_LOOKUP);
	c->seeds = 5;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":ho:", options, NULL)) != -1) {
		if (ch == 'h')
			ch = T_HELP;
		else if (ch == 'o')
			ch = T_OUTPUT;
		if (ch == '?')
			return cli_fail("%s does not go with --train (qkv --help lists what does)",
				    cli_quote(shown, argv[optind - 1]));
		if (ch == ':')
			return cli_fail("%s needs a value (qkv --help)", cli_quote(shown, argv[optind - 1]));
		if (ch == T_HELP)
			return TRAIN_CLI_HELP;
		given[ch] = true;
		if (take(c, (enum train_opt)ch, optarg, given) != 0)
			return CLI_USAGE;
	}
	if (optind < argc)
		return cli_fail("--train makes its own problem; it reads no FILE (\"%s\")", argv[optind]);
	c->sweep = given[T_SWEEP];
	c->print = given[T_FORMAT] || given[T_PRINT] || c->sweep || given[T_OUTPUT];
	return check(c, given);
}
