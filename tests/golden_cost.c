/* golden_cost.c — `qkv --cost`'s printer on tables of known times, for the golden
 * comparison (check_golden.sh): the clock of a real measurement differs from run
 * to run, so the tables here are made with fixed times instead.
 * Usage: golden_cost FORMAT; writes, for one head, four heads and a table too
 * short to fit a slope, the printer's output and its status. */
#include <stdio.h>
#include <stdlib.h>

#include "io/report/print.h"
#include "io/report/print_cost.h"

/* n = 16 … last for d_k and heads, both algorithms, medians 1 ms below n = 256,
 * then growing as n^2.1 (not exactly quadratic, so the slope's digits show),
 * the online's 1.3 times the standard's, the runs 0.8 to 1.25 times the median;
 * a peak resident memory of 5% over the most held. */
static int known_table(struct qkv_cost *c, int d_k, int heads, int last)
{
	if (qkv_cost_init(c, d_k, heads, 8192, 1000.0, QKV_COST_BOTH) != 0)
		return -1;
	for (int n = 16; n <= last; n *= 2) {
		struct qkv_cost_row *row = &c->rows[c->count++];
		double ms = n < 256 ? 1.0 + n / 1000.0 : 3.7e-5 * (double)n * n * heads * (1 + n / 65536.0);

		qkv_cost_row_of(n, d_k, heads, row);
		for (int a = 0; a < QKV_COST_ALGORITHMS; a++) {
			double median = a == QKV_COST_ONLINE ? 1.3 * ms : ms;

			row->time[a] = (struct qkv_cost_time){ median, 0.8 * median, 1.25 * median, 5,
							       row->time[a].bytes };
		}
		c->peak_resident_bytes = row->time[QKV_COST_STANDARD].bytes / 20 * 21;
	}
	c->done = true;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { int d_k, heads, last; } tables[] = {
		{ 64, 1, 4096 }, { 16, 4, 2048 }, { 8, 1, 16 },
	};
	enum print_format format;

	if (argc != 2 || print_format_parse(argv[1], &format) != 0) {
		fputs("usage: golden_cost FORMAT\n", stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		struct qkv_cost c;
		int rc;

		if (known_table(&c, tables[i].d_k, tables[i].heads, tables[i].last) != 0)
			return 1;
		printf("$ cost d_k %d, %d head(s), n up to %d\n", tables[i].d_k, tables[i].heads,
		       tables[i].last);
		rc = print_cost(stdout, &c, format);
		printf("[status %d]\n", rc);
		qkv_cost_fini(&c);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
