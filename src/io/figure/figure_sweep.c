/* figure_sweep.c — the dₖ sweep as a figure: the saturation view's four charts
 * (mean max weight, entropy / ln n, the softmax Jacobian's norm, the variance of
 * what softmax sees on a log axis) over a log₂ dₖ axis, each with two curves told
 * apart by their marks (● scaled, × unscaled) as well as by colour (the charts'
 * blue and vermilion, figure_chart.h), and a legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/figure/figure.h"
#include "io/figure/figure_chart.h"

int figure_sweep_write(FILE *out, enum figure_format format, const struct qkv_sweep_point *points, int count,
		       int tokens, int trials, unsigned long long seed, const struct figure_options *o, char *err,
		       size_t err_size)
{
	static const char *const titles[4] = {
		"mean max weight (1 = one-hot)", "entropy / ln n (1 = uniform)",
		"gradient flow \u2016J\u2016 (softmax Jacobian)", "variance of what softmax sees (log)",
	};
	double x[QKV_SWEEP_MAX_POINTS], y[4][2][QKV_SWEEP_MAX_POINTS], highest = 0.0;
	char facts[256];
	struct chart_page page;

	if (count < 1 || count > QKV_SWEEP_MAX_POINTS) {
		canvas_error(err, err_size, "cannot draw the sweep: no points");
		return -1;
	}
	for (int i = 0; i < count; i++) {
		const struct qkv_sweep_figures *side[2] = { &points[i].scaled, &points[i].unscaled };

		x[i] = points[i].d_k;
		for (int s = 0; s < 2; s++) {
			y[0][s][i] = side[s]->max_weight;
			y[1][s][i] = side[s]->entropy_ratio;
			y[2][s][i] = side[s]->jacobian_norm;
			y[3][s][i] = side[s]->score_variance;
			highest = fmax(highest, side[s]->jacobian_norm);
		}
	}
	snprintf(facts, sizeof facts, "Q, K ~ N(0,1) \u00b7 %d tokens \u00b7 %d trials \u00b7 seed %llu "
		 "\u00b7 d\u2096 1\u2026%d \u00b7 means over trials and query rows", tokens, trials, seed,
		 points[count - 1].d_k);
	memset(&page, 0, sizeof page);
	page.title = "Saturation: softmax with and without \u221ad\u2096";
	page.facts = facts;
	page.legend[0] = "scaled (\u00f7\u221ad\u2096)";
	page.legend[1] = "unscaled";
	page.count = 4;
	for (int k = 0; k < 4; k++) {
		struct chart_spec *c = &page.charts[k];

		c->title = titles[k];
		c->x = (struct chart_axis){ .log = true, .label = "d\u2096 (log\u2082 axis)" };
		c->y = (struct chart_axis){ .log = k == 3, .low = 0.0, .high = 1.0 };
		if (k == 2)
			c->y.high = highest > 0.0 ? ceil(highest * 10.0) / 10.0 : 0.5;
		c->count = 2;
		for (int s = 0; s < 2; s++)
			c->series[s] = (struct chart_series){ s == 0 ? "scaled" : "unscaled", x, y[k][s], count, s, false,
							      NULL };
	}
	return chart_page_write(out, format, &page, o, err, err_size);
}
