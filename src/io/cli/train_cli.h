/* train_cli.h — the command line of training: `qkv --train TASK [options]`,
 * read apart from the rest of qkv's options because they are a different set.
 * Bad values end in one line on stderr ("qkv: …") and exit status 2. */
#ifndef QKV_IO_TRAIN_CLI_H
#define QKV_IO_TRAIN_CLI_H

#include <stdbool.h>

#include "io/report/print.h"
#include "qkv/train.h"

struct train_cli {
	struct qkv_train_config config;
	bool sweep;              /* --train-sweep: steps to 90% over d_k = 4 … 256 */
	int seeds;               /* seeds per d_k in the sweep */
	bool print;              /* --format (or --print, or the sweep): no interface */
	enum print_format format; /* text, csv or json (the formats that write a run) */
	bool projector;          /* interface options */
	const char *palette;
	const char *color;       /* --color DEPTH: auto, truecolor, 256, 8 or mono */
	bool figure;             /* --format svg, pdf or png: the run's or sweep's charts */
	int figure_format;       /* enum figure_format */
	const char *output;      /* --output FILE (atomic), or NULL for standard output */
	double size_w, size_h;   /* --size WxH, or 0 */
	bool dark;               /* --background dark */
};

#define TRAIN_CLI_HELP (-1) /* --help was asked for */

/* True when argv asks for training (--train, --train=TASK or --train-sweep). */
bool train_cli_wanted(int argc, char **argv);
/* Reads argv into c. Returns 0, TRAIN_CLI_HELP, or 2 after writing one line. */
int train_cli_parse(int argc, char **argv, struct train_cli *c);

#endif
