/* print_figure.c — the figure formats as printer backends: svg, pdf and png draw
 * a stage of the trace, or the d_k sweep's charts, with figure.c (which lays out
 * and draws; see figure.h). Their bytes need not be text, so each lays out the
 * whole report itself (`trace`) and none writes the other reports. */
#include "io/figure/figure.h"
#include "io/report/print_model.h"

/* A figure's reason when it cannot be drawn, written where the caller asked. */
static int figure_report(struct printer *pr)
{
	char scratch[256];
	char *err = pr->err_size > 0 ? pr->err : scratch;
	size_t err_size = pr->err_size > 0 ? pr->err_size : sizeof scratch;

	return figure_write(pr->out, (enum figure_format)pr->be->figure_format, pr->p, pr->t,
			    pr->figure, err, err_size);
}

/* The sweep's four charts: figure_sweep.c. */
static int figure_sweep(FILE *out, const struct sweep_report *s)
{
	char scratch[256];
	char *err = s->err_size > 0 ? s->err : scratch;
	size_t err_size = s->err_size > 0 ? s->err_size : sizeof scratch;

	return figure_sweep_write(out, (enum figure_format)s->be->figure_format, s->points, s->count,
				  s->tokens, s->trials, s->seed, s->figure, err, err_size);
}

const struct print_backend print_svg_backend = {
	.name = "svg", .kind = PRINT_KIND_FIGURE, .figure_format = FIGURE_SVG,
	.trace = figure_report, .sweep = figure_sweep, .geometry = print_geometry_figure,
};

const struct print_backend print_pdf_backend = {
	.name = "pdf", .kind = PRINT_KIND_FIGURE, .figure_format = FIGURE_PDF, .binary = true,
	.trace = figure_report, .sweep = figure_sweep, .geometry = print_geometry_figure,
};

const struct print_backend print_png_backend = {
	.name = "png", .kind = PRINT_KIND_FIGURE, .figure_format = FIGURE_PNG, .binary = true,
	.trace = figure_report, .sweep = figure_sweep, .geometry = print_geometry_figure,
};

int print_figure_format_parse(const char *name, enum figure_format *format)
{
	enum print_format f;

	/* The words are the printer's table's (io/print.h): one list of formats. */
	if (name == NULL || print_format_parse(name, &f) != 0)
		return -1;
	return print_format_figure(f, format);
}
