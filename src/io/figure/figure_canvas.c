/* figure_canvas.c — one set of drawing calls for cairo (PDF, PNG) and for SVG
 * elements (see figure_canvas.h). */
#include "io/figure/figure_canvas.h"

#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Figures are drawn on threads beside the interface too: the canvases open are
 * counted under `canvases`, so that the clean-up at exit (registered once, with
 * the first canvas) never frees cairo's caches under a figure still drawn. */
static pthread_once_t clean_up_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t canvases = PTHREAD_MUTEX_INITIALIZER;
static int canvases_open;
static bool released;

static void release_fonts(void);

static void register_clean_up(void)
{
	atexit(release_fonts);
}

void canvas_error(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err_size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
}

void canvas_open_error(const char *what, char *err, size_t err_size)
{
	canvas_error(err, err_size, "cannot draw the %s: out of memory", what);
}

/* At exit, when no cairo object is left: cairo's font caches, then fontconfig's
 * configuration, are freed, so figures leave nothing for a leak checker. Once per
 * process: loading fontconfig's configuration again for every figure is slow. A
 * figure still drawn on a thread (a cancelled export) keeps them: the process
 * ends with them. */
static void release_fonts(void)
{
	pthread_mutex_lock(&canvases);
	if (canvases_open == 0) {
		released = true;
		cairo_debug_reset_static_data();
		FcFini();
	}
	pthread_mutex_unlock(&canvases);
}

/* Text laid out at natural size is drawn scaled: glyph advances must not be
 * rounded to whole pixels (hinted metrics) at either size, or a run placed after
 * a measured run lands inside it. */
static void unhinted(cairo_t *cr)
{
	cairo_font_options_t *options = cairo_font_options_create();

	cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
	cairo_set_font_options(cr, options);
	cairo_font_options_destroy(options);
}

int canvas_open(struct canvas *cv)
{
	bool open;

	memset(cv, 0, sizeof *cv);
	pthread_once(&clean_up_once, register_clean_up);
	pthread_mutex_lock(&canvases);
	open = !released;
	if (open)
		canvases_open++;
	pthread_mutex_unlock(&canvases);
	if (!open)
		return -1; /* the process is ending */
	cv->open = true;
	cv->measure_surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cv->measure = cairo_create(cv->measure_surface);
	if (cairo_status(cv->measure) != CAIRO_STATUS_SUCCESS) {
		canvas_close(cv);
		return -1;
	}
	unhinted(cv->measure);
	cv->scale = 1.0;
	return 0;
}

void canvas_close(struct canvas *cv)
{
	if (cv->measure != NULL)
		cairo_destroy(cv->measure);
	if (cv->measure_surface != NULL)
		cairo_surface_destroy(cv->measure_surface);
	cv->measure = NULL;
	cv->measure_surface = NULL;
	if (cv->open) {
		pthread_mutex_lock(&canvases);
		canvases_open--;
		pthread_mutex_unlock(&canvases);
		cv->open = false;
	}
}

static void font(cairo_t *cr, double size, bool bold)
{
	cairo_select_font_face(cr, CANVAS_FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

double canvas_text_width(struct canvas *cv, const char *text, double size, bool bold)
{
	cairo_text_extents_t e;

	font(cv->measure, size, bold);
	cairo_text_extents(cv->measure, text, &e);
	return e.x_advance;
}

void canvas_place(struct canvas *cv, double width, double height)
{
	if (!(width > 0.0 && height > 0.0)) {
		double fit = fmin(1.0, fmin(FIGURE_MAX_SIDE / cv->natural_w, FIGURE_MAX_SIDE / cv->natural_h));

		width = cv->natural_w * fit;
		height = cv->natural_h * fit;
	}
	cv->out_w = width;
	cv->out_h = height;
	cv->scale = fmin(width / cv->natural_w, height / cv->natural_h);
	cv->off_x = (width - cv->natural_w * cv->scale) / 2.0;
	cv->off_y = (height - cv->natural_h * cv->scale) / 2.0;
}

double canvas_x(const struct canvas *cv, double x)
{
	return cv->off_x + cv->scale * x;
}

double canvas_y(const struct canvas *cv, double y)
{
	return cv->off_y + cv->scale * y;
}

static void svg_escaped(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, out);
			break;
		}
	}
}

/* An element's role as its id: "cell-12", "value-13", … (numbered in drawing
 * order). Not a class attribute: ImageMagick's own SVG renderer nests a level per
 * class and gives up on a figure of a few hundred cells. */
static void svg_id(struct canvas *cv, const char *name)
{
	if (name != NULL)
		fprintf(cv->svg, " id=\"%s-%d\"", name, ++cv->serial);
}

/* Whether the SVG has met a write error, its errno kept the first time: from then
 * on the elements write nothing (a full disk would otherwise be tried again for
 * each of thousands). Called before an element, to skip it, and after, to keep
 * the errno of the write that failed. */
static bool svg_stopped(struct canvas *cv)
{
	if (cv->write_error == 0 && ferror(cv->svg))
		cv->write_error = errno != 0 ? errno : EIO;
	return cv->write_error != 0;
}

static void set_rgb(cairo_t *cr, struct qkv_rgb c)
{
	cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void canvas_rect(struct canvas *cv, double x, double y, double w, double h, struct qkv_rgb fill,
		 const char *name)
{
	if (cv->cr != NULL) {
		cairo_rectangle(cv->cr, x, y, w, h);
		set_rgb(cv->cr, fill);
		cairo_fill(cv->cr);
		return;
	}
	if (svg_stopped(cv))
		return;
	fputs("<rect", cv->svg);
	svg_id(cv, name);
	fprintf(cv->svg, " x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"#%02x%02x%02x\"/>\n",
		canvas_x(cv, x), canvas_y(cv, y), w * cv->scale, h * cv->scale, fill.r, fill.g, fill.b);
	svg_stopped(cv);
}

void canvas_background(struct canvas *cv, struct qkv_rgb fill)
{
	canvas_rect(cv, -cv->off_x / cv->scale, -cv->off_y / cv->scale, cv->out_w / cv->scale,
		    cv->out_h / cv->scale, fill, "background");
}

void canvas_outline(struct canvas *cv, double x, double y, double w, double h, struct qkv_rgb colour,
		    double width)
{
	x += width / 2.0;
	y += width / 2.0;
	w -= width;
	h -= width;
	if (cv->cr != NULL) {
		cairo_rectangle(cv->cr, x, y, w, h);
		set_rgb(cv->cr, colour);
		cairo_set_line_width(cv->cr, width);
		cairo_stroke(cv->cr);
		return;
	}
	if (svg_stopped(cv))
		return;
	fprintf(cv->svg, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"none\" "
		"stroke=\"#%02x%02x%02x\" stroke-width=\"%.3f\"/>\n",
		canvas_x(cv, x), canvas_y(cv, y), w * cv->scale, h * cv->scale, colour.r, colour.g, colour.b,
		width * cv->scale);
	svg_stopped(cv);
}

/* Lines "/" every `spacing` across the rectangle, each ending inside it (the
 * rectangle inset by half the line's width, so a butt end's corner stays in). */
void canvas_hatch(struct canvas *cv, double x, double y, double w, double h, double spacing,
		  struct qkv_rgb colour, double width, const char *name)
{
	double in = width / 2.0, u_max = w - 2.0 * in, v_max = h - 2.0 * in;

	if (!(u_max > 0.0 && v_max > 0.0 && spacing > 0.0))
		return;
	if (cv->cr == NULL) {
		if (svg_stopped(cv))
			return;
		fputs("<path", cv->svg);
		svg_id(cv, name);
		fputs(" d=\"", cv->svg);
	}
	/* The line u + v = c in the inset rectangle's own coordinates (v down). */
	for (double c = spacing / 2.0; c < u_max + v_max; c += spacing) {
		double u0 = fmax(0.0, c - v_max), u1 = fmin(u_max, c);
		double x0 = x + in + u0, y0 = y + in + (c - u0), x1 = x + in + u1, y1 = y + in + (c - u1);

		if (cv->cr != NULL) {
			cairo_move_to(cv->cr, x0, y0);
			cairo_line_to(cv->cr, x1, y1);
		} else {
			fprintf(cv->svg, "M%.3f %.3fL%.3f %.3f", canvas_x(cv, x0), canvas_y(cv, y0), canvas_x(cv, x1),
				canvas_y(cv, y1));
		}
	}
	if (cv->cr != NULL) {
		set_rgb(cv->cr, colour);
		cairo_set_line_width(cv->cr, width);
		cairo_set_line_cap(cv->cr, CAIRO_LINE_CAP_BUTT);
		cairo_stroke(cv->cr);
		return;
	}
	fprintf(cv->svg, "\" fill=\"none\" stroke=\"#%02x%02x%02x\" stroke-width=\"%.3f\"/>\n", colour.r, colour.g,
		colour.b, width * cv->scale);
	svg_stopped(cv);
}

void canvas_line(struct canvas *cv, double x0, double y0, double x1, double y1, struct qkv_rgb colour,
		 double width, bool dashed)
{
	if (cv->cr != NULL) {
		double dash = 3.0 * width;

		cairo_move_to(cv->cr, x0, y0);
		cairo_line_to(cv->cr, x1, y1);
		set_rgb(cv->cr, colour);
		cairo_set_line_width(cv->cr, width);
		cairo_set_dash(cv->cr, &dash, dashed ? 1 : 0, 0.0);
		cairo_stroke(cv->cr);
		cairo_set_dash(cv->cr, NULL, 0, 0.0);
		return;
	}
	if (svg_stopped(cv))
		return;
	fprintf(cv->svg, "<line x1=\"%.3f\" y1=\"%.3f\" x2=\"%.3f\" y2=\"%.3f\" stroke=\"#%02x%02x%02x\" "
		"stroke-width=\"%.3f\"",
		canvas_x(cv, x0), canvas_y(cv, y0), canvas_x(cv, x1), canvas_y(cv, y1), colour.r, colour.g, colour.b,
		width * cv->scale);
	if (dashed)
		fprintf(cv->svg, " stroke-dasharray=\"%.3f\"", 3.0 * width * cv->scale);
	fputs("/>\n", cv->svg);
	svg_stopped(cv);
}

void canvas_mark(struct canvas *cv, double x, double y, double r, struct qkv_rgb colour, enum canvas_mark mark)
{
	if (mark == MARK_CROSS) {
		canvas_line(cv, x - r, y - r, x + r, y + r, colour, r * 0.55, false);
		canvas_line(cv, x - r, y + r, x + r, y - r, colour, r * 0.55, false);
		return;
	}
	if (cv->cr != NULL) {
		cairo_new_sub_path(cv->cr);
		cairo_arc(cv->cr, x, y, r, 0.0, 6.283185307179586);
		set_rgb(cv->cr, colour);
		cairo_fill(cv->cr);
		return;
	}
	if (svg_stopped(cv))
		return;
	fprintf(cv->svg, "<circle cx=\"%.3f\" cy=\"%.3f\" r=\"%.3f\" fill=\"#%02x%02x%02x\"/>\n", canvas_x(cv, x),
		canvas_y(cv, y), r * cv->scale, colour.r, colour.g, colour.b);
	svg_stopped(cv);
}

void canvas_text(struct canvas *cv, double x, double y, const char *text, double size, bool bold,
		 struct qkv_rgb colour, enum canvas_anchor anchor, const char *name)
{
	static const char *const anchors[] = { "start", "middle", "end" };

	if (cv->cr != NULL) {
		double w = canvas_text_width(cv, text, size, bold);

		font(cv->cr, size, bold);
		set_rgb(cv->cr, colour);
		cairo_move_to(cv->cr, anchor == ANCHOR_START ? x : anchor == ANCHOR_MIDDLE ? x - w / 2.0 : x - w, y);
		cairo_show_text(cv->cr, text);
		return;
	}
	if (svg_stopped(cv))
		return;
	fputs("<text", cv->svg);
	svg_id(cv, name);
	fprintf(cv->svg, " x=\"%.3f\" y=\"%.3f\" font-family=\"DejaVu Sans\" "
		"font-size=\"%.3f\"%s fill=\"#%02x%02x%02x\" text-anchor=\"%s\">",
		canvas_x(cv, x), canvas_y(cv, y), size * cv->scale, bold ? " font-weight=\"bold\"" : "",
		colour.r, colour.g, colour.b, anchors[anchor]);
	svg_escaped(cv->svg, text);
	fputs("</text>\n", cv->svg);
	svg_stopped(cv);
}

/* cairo's writer (closure: the canvas): the first failure's errno is kept, and
 * every later call fails without writing. */
static cairo_status_t write_stream(void *closure, const unsigned char *data, unsigned int length)
{
	struct canvas *cv = closure;

	if (cv->write_error != 0)
		return CAIRO_STATUS_WRITE_ERROR;
	if (fwrite(data, 1, length, cv->stream) == length)
		return CAIRO_STATUS_SUCCESS;
	cv->write_error = errno != 0 ? errno : EIO;
	return CAIRO_STATUS_WRITE_ERROR;
}

static void write_svg(FILE *out, struct canvas *cv, const char *title, void (*draw)(struct canvas *, void *),
		      void *ctx)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" stroke=\"none\" width=\"%.3fpt\" height=\"%.3fpt\" "
		"viewBox=\"0 0 %.3f %.3f\">\n<title>", cv->out_w, cv->out_h, cv->out_w, cv->out_h);
	svg_escaped(out, title);
	/* Text is placed by DejaVu Sans' widths (cairo's measure): each <text> names
	 * that one family (a renderer that reads one name, like ImageMagick's own,
	 * takes it); the stylesheet adds the fall-backs for one without the font. */
	fputs("</title>\n<style>text { font-family: \"DejaVu Sans\", Verdana, sans-serif }</style>\n", out);
	cv->svg = out;
	svg_stopped(cv);
	draw(cv, ctx);
	if (!svg_stopped(cv)) {
		fputs("</svg>\n", out);
		svg_stopped(cv);
	}
	cv->svg = NULL;
}

static int write_cairo(FILE *out, enum figure_format format, struct canvas *cv,
		       void (*draw)(struct canvas *, void *), void *ctx, char *err, size_t err_size)
{
	cairo_surface_t *surface;
	cairo_status_t status;

	cv->stream = out;
	if (format == FIGURE_PDF)
		surface = cairo_pdf_surface_create_for_stream(write_stream, cv, cv->out_w, cv->out_h);
	else
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(cv->out_w), (int)ceil(cv->out_h));
	cv->cr = cairo_create(surface);
	unhinted(cv->cr);
	cairo_translate(cv->cr, cv->off_x, cv->off_y);
	cairo_scale(cv->cr, cv->scale, cv->scale);
	draw(cv, ctx);
	status = cairo_status(cv->cr);
	cairo_destroy(cv->cr);
	cv->cr = NULL;
	if (status == CAIRO_STATUS_SUCCESS && format == FIGURE_PNG)
		status = cairo_surface_write_to_png_stream(surface, write_stream, cv);
	cairo_surface_finish(surface);
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	cv->stream = NULL;
	/* A write error is canvas_write's to report. */
	if (status != CAIRO_STATUS_SUCCESS && cv->write_error == 0) {
		canvas_error(err, err_size, "cannot draw the figure: %s", cairo_status_to_string(status));
		return -1;
	}
	return 0;
}

int canvas_write(FILE *out, enum figure_format format, struct canvas *cv, const char *title,
		 void (*draw)(struct canvas *cv, void *ctx), void *ctx, char *err, size_t err_size)
{
	int rc = 0;

	cv->write_error = 0;
	if (format == FIGURE_SVG)
		write_svg(out, cv, title, draw, ctx);
	else
		rc = write_cairo(out, format, cv, draw, ctx, err, err_size);
	/* The buffer is flushed only when nothing has failed yet: after a failure,
	 * flushing would be one more write to a full disk. */
	if (rc == 0 && cv->write_error == 0 && (fflush(out) != 0 || ferror(out)))
		cv->write_error = errno != 0 ? errno : EIO;
	if (rc == 0 && cv->write_error != 0) {
		canvas_error(err, err_size, "cannot write the figure: %s", strerror(cv->write_error));
		return -1;
	}
	return rc;
}

char *canvas_bytes(enum figure_format format, struct canvas *cv, const char *title,
		   void (*draw)(struct canvas *cv, void *ctx), void *ctx, size_t *length, char *err,
		   size_t err_size)
{
	char *bytes = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&bytes, &size);
	int rc;

	if (out == NULL) {
		canvas_error(err, err_size, "cannot draw the figure: out of memory");
		return NULL;
	}
	rc = canvas_write(out, format, cv, title, draw, ctx, err, err_size);
	if (fclose(out) != 0 && rc == 0) {
		canvas_error(err, err_size, "cannot draw the figure: out of memory");
		rc = -1;
	}
	if (rc != 0) {
		free(bytes);
		return NULL;
	}
	*length = size;
	return bytes;
}

void canvas_polyline(struct canvas *cv, const double *x, const double *y, int count, struct qkv_rgb colour,
		     double width, bool dashed, const char *name)
{
	if (count < 2)
		return;
	if (cv->cr != NULL) {
		double dash = 3.0 * width;

		cairo_move_to(cv->cr, x[0], y[0]);
		for (int i = 1; i < count; i++)
			cairo_line_to(cv->cr, x[i], y[i]);
		set_rgb(cv->cr, colour);
		cairo_set_line_width(cv->cr, width);
		cairo_set_line_join(cv->cr, CAIRO_LINE_JOIN_ROUND);
		cairo_set_dash(cv->cr, &dash, dashed ? 1 : 0, 0.0);
		cairo_stroke(cv->cr);
		cairo_set_dash(cv->cr, NULL, 0, 0.0);
		cairo_set_line_join(cv->cr, CAIRO_LINE_JOIN_MITER);
		return;
	}
	if (svg_stopped(cv))
		return;
	fputs("<polyline", cv->svg);
	svg_id(cv, name);
	fputs(" points=\"", cv->svg);
	for (int i = 0; i < count; i++)
		fprintf(cv->svg, "%s%.3f,%.3f", i > 0 ? " " : "", canvas_x(cv, x[i]), canvas_y(cv, y[i]));
	fprintf(cv->svg, "\" fill=\"none\" stroke=\"#%02x%02x%02x\" stroke-width=\"%.3f\" stroke-linejoin=\"round\"",
		colour.r, colour.g, colour.b, width * cv->scale);
	if (dashed)
		fprintf(cv->svg, " stroke-dasharray=\"%.3f\"", 3.0 * width * cv->scale);
	fputs("/>\n", cv->svg);
	svg_stopped(cv);
}

void canvas_circle(struct canvas *cv, double x, double y, double r, struct qkv_rgb colour, double width,
		   const char *name)
{
	if (cv->cr != NULL) {
		cairo_new_sub_path(cv->cr);
		cairo_arc(cv->cr, x, y, r, 0.0, 6.283185307179586);
		set_rgb(cv->cr, colour);
		if (width > 0.0) {
			cairo_set_line_width(cv->cr, width);
			cairo_stroke(cv->cr);
		} else {
			cairo_fill(cv->cr);
		}
		return;
	}
	if (svg_stopped(cv))
		return;
	fputs("<circle", cv->svg);
	svg_id(cv, name);
	if (width > 0.0)
		fprintf(cv->svg, " cx=\"%.3f\" cy=\"%.3f\" r=\"%.3f\" fill=\"none\" stroke=\"#%02x%02x%02x\" "
			"stroke-width=\"%.3f\"/>\n", canvas_x(cv, x), canvas_y(cv, y), r * cv->scale, colour.r, colour.g,
			colour.b, width * cv->scale);
	else
		fprintf(cv->svg, " cx=\"%.3f\" cy=\"%.3f\" r=\"%.3f\" fill=\"#%02x%02x%02x\"/>\n", canvas_x(cv, x),
			canvas_y(cv, y), r * cv->scale, colour.r, colour.g, colour.b);
	svg_stopped(cv);
}

const char *canvas_math_run(const char *text, const char **start, size_t *length, bool *sub)
{
	*sub = text[0] == '_' && text[1] != '\0';
	if (*sub && text[1] == '{') {
		const char *end = strchr(text + 2, '}');

		*start = text + 2;
		*length = end != NULL ? (size_t)(end - *start) : strlen(*start);
		return end != NULL ? end + 1 : *start + *length;
	}
	if (*sub) {
		size_t n = 1;

		while ((text[n] >= 'a' && text[n] <= 'z') || (text[n] >= 'A' && text[n] <= 'Z') ||
		       (text[n] >= '0' && text[n] <= '9'))
			n++;
		if (n == 1) { /* "_" before punctuation or a space is an underscore */
			*sub = false;
			*start = text;
			*length = 1;
			return text + 1;
		}
		*start = text + 1;
		*length = n - 1;
		return text + n;
	}
	*start = text;
	*length = text[0] == '_' ? 1 : strcspn(text + 1, "_") + 1;
	return text + *length;
}

#define MATH_SUB_SIZE 0.7   /* a subscript's size, of the text's */
#define MATH_SUB_DROP 0.22  /* how far it is lowered, of the text's size */

double canvas_math_width(struct canvas *cv, const char *text, double size, bool bold)
{
	double width = 0.0;
	char run[256];

	while (*text != '\0') {
		const char *start;
		size_t length;
		bool sub;

		text = canvas_math_run(text, &start, &length, &sub);
		snprintf(run, sizeof run, "%.*s", (int)length, start);
		width += canvas_text_width(cv, run, sub ? size * MATH_SUB_SIZE : size, bold);
	}
	return width;
}

static bool has_subscript(const char *text)
{
	while (*text != '\0') {
		const char *start;
		size_t length;
		bool sub;

		text = canvas_math_run(text, &start, &length, &sub);
		if (sub)
			return true;
	}
	return false;
}

/* A formula: its runs one after the other from the measured widths, each
 * subscript smaller and lowered. In SVG each run is a <tspan> with its own x and
 * y, so that a viewer which does not carry the pen from one <tspan> to the next
 * (ImageMagick's own renderer) still sets them side by side and the text after a
 * subscript back on the baseline. */
void canvas_math(struct canvas *cv, double x, double y, const char *text, double size, bool bold,
		 struct qkv_rgb colour, enum canvas_anchor anchor, const char *name)
{
	double w = canvas_math_width(cv, text, size, bold);
	double at = anchor == ANCHOR_START ? x : anchor == ANCHOR_MIDDLE ? x - w / 2.0 : x - w;
	char run[256];

	if (cv->cr == NULL && !has_subscript(text)) {
		canvas_text(cv, x, y, text, size, bold, colour, anchor, name);
		return;
	}
	if (cv->cr != NULL) {
		set_rgb(cv->cr, colour);
	} else {
		if (svg_stopped(cv))
			return;
		fputs("<text", cv->svg);
		svg_id(cv, name);
		fprintf(cv->svg, " x=\"%.3f\" y=\"%.3f\" font-family=\"DejaVu Sans\" "
			"font-size=\"%.3f\"%s fill=\"#%02x%02x%02x\">", canvas_x(cv, at), canvas_y(cv, y),
			size * cv->scale, bold ? " font-weight=\"bold\"" : "", colour.r, colour.g, colour.b);
	}
	while (*text != '\0') {
		const char *start;
		size_t length;
		bool sub;
		double run_size, run_y;

		text = canvas_math_run(text, &start, &length, &sub);
		snprintf(run, sizeof run, "%.*s", (int)length, start);
		run_size = sub ? size * MATH_SUB_SIZE : size;
		run_y = y + (sub ? MATH_SUB_DROP * size : 0.0);
		if (cv->cr != NULL) {
			font(cv->cr, run_size, bold);
			cairo_move_to(cv->cr, at, run_y);
			cairo_show_text(cv->cr, run);
		} else {
			fprintf(cv->svg, "<tspan x=\"%.3f\" y=\"%.3f\"", canvas_x(cv, at), canvas_y(cv, run_y));
			if (sub)
				fprintf(cv->svg, " font-size=\"%.3f\"", run_size * cv->scale);
			fputc('>', cv->svg);
			svg_escaped(cv->svg, run);
			fputs("</tspan>", cv->svg);
		}
		at += canvas_text_width(cv, run, run_size, bold);
	}
	if (cv->cr == NULL) {
		fputs("</text>\n", cv->svg);
		svg_stopped(cv);
	}
}

void canvas_text_up(struct canvas *cv, double x, double y, const char *text, double size, struct qkv_rgb colour,
		    enum canvas_anchor anchor, const char *name)
{
	static const char *const anchors[] = { "start", "middle", "end" };

	if (cv->cr != NULL) {
		double w = canvas_text_width(cv, text, size, false);

		cairo_save(cv->cr);
		cairo_translate(cv->cr, x, y);
		cairo_rotate(cv->cr, -1.5707963267948966); /* a quarter turn */
		font(cv->cr, size, false);
		set_rgb(cv->cr, colour);
		cairo_move_to(cv->cr, anchor == ANCHOR_START ? 0.0 : anchor == ANCHOR_MIDDLE ? -w / 2.0 : -w, 0.0);
		cairo_show_text(cv->cr, text);
		cairo_restore(cv->cr);
		return;
	}
	if (svg_stopped(cv))
		return;
	fputs("<text", cv->svg);
	svg_id(cv, name);
	fprintf(cv->svg, " x=\"%.3f\" y=\"%.3f\" transform=\"rotate(-90 %.3f %.3f)\" "
		"font-family=\"DejaVu Sans\" font-size=\"%.3f\" fill=\"#%02x%02x%02x\" "
		"text-anchor=\"%s\">", canvas_x(cv, x), canvas_y(cv, y), canvas_x(cv, x), canvas_y(cv, y),
		size * cv->scale, colour.r, colour.g, colour.b, anchors[anchor]);
	svg_escaped(cv->svg, text);
	fputs("</text>\n", cv->svg);
	svg_stopped(cv);
}

void canvas_gradient(struct canvas *cv, double x, double y, double w, double h, const struct qkv_rgb *colours,
		     int count, const char *name)
{
	if (count < 2)
		return;
	if (cv->cr != NULL) {
		cairo_pattern_t *gradient = cairo_pattern_create_linear(0.0, y + h, 0.0, y);

		for (int i = 0; i < count; i++)
			cairo_pattern_add_color_stop_rgb(gradient, (double)i / (count - 1), colours[i].r / 255.0,
							 colours[i].g / 255.0, colours[i].b / 255.0);
		cairo_rectangle(cv->cr, x, y, w, h);
		cairo_set_source(cv->cr, gradient);
		cairo_fill(cv->cr);
		cairo_pattern_destroy(gradient);
		return;
	}
	if (svg_stopped(cv))
		return;
	/* SVG: a stack of thin rectangles, one per colour step the bar's height can
	 * show (CANVAS_STRIP_MIN output units each, at most CANVAS_STRIPS), each the
	 * colours' linear interpolation at its middle and reaching a hair into the
	 * one above it, drawn after it: every renderer draws rectangles, not every
	 * one a gradient. */
	{
		double out_h = h * cv->scale, hair;
		int strips = (int)fmin(CANVAS_STRIPS, fmax(1.0, floor(out_h / CANVAS_STRIP_MIN)));
		double step = out_h / strips, left = canvas_x(cv, x), bottom = canvas_y(cv, y + h);

		hair = fmin(0.3, 0.5 * step);
		cv->serial++;
		fprintf(cv->svg, "<g id=\"%s-%d\">\n", name != NULL ? name : "gradient", cv->serial);
		for (int k = 0; k < strips; k++) {
			double at = (k + 0.5) / strips * (count - 1), part = at - floor(at);
			int i = (int)floor(at), j = i + 1 < count ? i + 1 : i;
			struct qkv_rgb c = {
				(unsigned char)lround(colours[i].r + part * (colours[j].r - colours[i].r)),
				(unsigned char)lround(colours[i].g + part * (colours[j].g - colours[i].g)),
				(unsigned char)lround(colours[i].b + part * (colours[j].b - colours[i].b)),
			};
			double over = k + 1 < strips ? hair : 0.0;

			fprintf(cv->svg, "<rect id=\"%s-strip-%d\" x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" "
				"height=\"%.3f\" fill=\"#%02x%02x%02x\"/>\n", name != NULL ? name : "gradient", k, left,
				bottom - (k + 1) * step - over, w * cv->scale, step + over, c.r, c.g, c.b);
		}
		fputs("</g>\n", cv->svg);
	}
	svg_stopped(cv);
}

void canvas_polygon(struct canvas *cv, const double *x, const double *y, int count, struct qkv_rgb fill,
		    const char *name)
{
	if (count < 3)
		return;
	if (cv->cr != NULL) {
		cairo_move_to(cv->cr, x[0], y[0]);
		for (int i = 1; i < count; i++)
			cairo_line_to(cv->cr, x[i], y[i]);
		cairo_close_path(cv->cr);
		set_rgb(cv->cr, fill);
		cairo_fill(cv->cr);
		return;
	}
	if (svg_stopped(cv))
		return;
	fputs("<polygon", cv->svg);
	svg_id(cv, name);
	fputs(" points=\"", cv->svg);
	for (int i = 0; i < count; i++)
		fprintf(cv->svg, "%s%.3f,%.3f", i > 0 ? " " : "", canvas_x(cv, x[i]), canvas_y(cv, y[i]));
	fprintf(cv->svg, "\" fill=\"#%02x%02x%02x\"/>\n", fill.r, fill.g, fill.b);
	svg_stopped(cv);
}
