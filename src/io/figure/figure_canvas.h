/* figure_canvas.h — what every figure draws with (private to src/io/figure*.c):
 * a picture laid out in natural units (points), scaled and centred into the size
 * asked for, and drawn from the same calls either through cairo (PDF, PNG) or as
 * SVG elements (rect, line, circle, text) whose text stays text. Text is measured
 * with cairo in both cases, so the layout is one. */
#ifndef QKV_IO_FIGURE_CANVAS_H
#define QKV_IO_FIGURE_CANVAS_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/figure/figure.h"
#include "qkv/colour.h"

#define CANVAS_FONT "DejaVu Sans"
#define CANVAS_STRIPS 256      /* an SVG gradient's rectangles, at most */
#define CANVAS_STRIP_MIN 0.5   /* and their height, at least (output units) */

enum canvas_anchor { ANCHOR_START, ANCHOR_MIDDLE, ANCHOR_END };
enum canvas_mark { MARK_DISC, MARK_CROSS };

struct canvas {
	cairo_surface_t *measure_surface;
	cairo_t *measure;
	double natural_w, natural_h;        /* the layout's size */
	double out_w, out_h, scale, off_x, off_y;
	cairo_t *cr;   /* while drawing a PDF or PNG (already scaled) */
	FILE *svg;     /* while writing an SVG */
	FILE *stream;  /* while cairo writes a PDF or PNG */
	int serial;    /* the SVG elements named so far */
	bool open;     /* counted among the canvases open (canvas_open) */
	int write_error; /* errno of the first failed write (0: none); nothing more
			    is written after it */
};

/* Makes the text measurer; 0, or -1 out of memory (or the process is ending).
 * canvas_close frees it. */
int canvas_open(struct canvas *cv);
/* The sentence for a canvas_open failure: "cannot draw the <what>: …". */
void canvas_open_error(const char *what, char *err, size_t err_size);
void canvas_close(struct canvas *cv);
double canvas_text_width(struct canvas *cv, const char *text, double size, bool bold);

/* The output size (width × height; 0: the natural size, within FIGURE_MAX_SIDE)
 * and the mapping of natural units into it. */
void canvas_place(struct canvas *cv, double width, double height);
/* Natural units to output units. */
double canvas_x(const struct canvas *cv, double x);
double canvas_y(const struct canvas *cv, double y);

/* Filled rectangle; svg_class (may be NULL) names its role in the SVG's id
 * ("cell-7"). */
void canvas_rect(struct canvas *cv, double x, double y, double w, double h, struct qkv_rgb fill,
		 const char *svg_class);
/* The whole output area in one colour. */
void canvas_background(struct canvas *cv, struct qkv_rgb fill);
/* Hatching: parallel lines "/" `spacing` apart (measured along the sides)
 * across the rectangle (x, y, w, h), all inside it (an SVG <path>; name, may be
 * NULL, gives its id). */
void canvas_hatch(struct canvas *cv, double x, double y, double w, double h, double spacing,
		  struct qkv_rgb colour, double width, const char *name);
/* A rectangle's outline, `width` wide, inside x, y, w, h. */
void canvas_outline(struct canvas *cv, double x, double y, double w, double h, struct qkv_rgb colour,
		    double width);
void canvas_line(struct canvas *cv, double x0, double y0, double x1, double y1, struct qkv_rgb colour,
		 double width, bool dashed);
/* A curve's marker of radius r at (x, y): a disc or a cross. */
void canvas_mark(struct canvas *cv, double x, double y, double r, struct qkv_rgb colour,
		 enum canvas_mark mark);
/* A curve as one element (an SVG <polyline>; name, may be NULL, gives its id),
 * through count points, count ≥ 2. */
void canvas_polyline(struct canvas *cv, const double *x, const double *y, int count, struct qkv_rgb colour,
		     double width, bool dashed, const char *name);
/* A filled disc, or a circle's outline `width` wide when width > 0 (an SVG
 * <circle>; name, may be NULL, gives its id). */
void canvas_circle(struct canvas *cv, double x, double y, double r, struct qkv_rgb colour, double width,
		   const char *name);
/* Text with its baseline at y, starting, centred or ending at x. */
void canvas_text(struct canvas *cv, double x, double y, const char *text, double size, bool bold,
		 struct qkv_rgb colour, enum canvas_anchor anchor, const char *svg_class);

/* Text set as mathematics: "_" starts a subscript, the letters and digits after
 * it (or "_{…}" for any run), drawn smaller and lowered (in SVG a <tspan> with
 * its own x and y per run). For formulas and titles, never for a token's label. */
void canvas_math(struct canvas *cv, double x, double y, const char *text, double size, bool bold,
		 struct qkv_rgb colour, enum canvas_anchor anchor, const char *svg_class);
double canvas_math_width(struct canvas *cv, const char *text, double size, bool bold);
/* The first run of the formula text (not empty): plain text up to the next "_",
 * or a subscript: the letters and digits right after a "_" (it ends at anything
 * else: punctuation, a space, a symbol), or the whole of "_{…}". A "_" followed
 * by none of these is plain. The run's bytes are *start, *length of them; *sub
 * says whether it is a subscript. Returns the text after the run. */
const char *canvas_math_run(const char *text, const char **start, size_t *length, bool *sub);
/* Text turned a quarter anticlockwise (read upwards), its baseline through x; y is
 * where it starts, is centred or ends, going up. */
void canvas_text_up(struct canvas *cv, double x, double y, const char *text, double size, struct qkv_rgb colour,
		    enum canvas_anchor anchor, const char *svg_class);
/* A rectangle filled with a vertical gradient through count ≥ 2 colours evenly
 * spaced, colours[0] at the bottom: cairo's linear gradient in PDF and PNG; in
 * SVG a <g> (its id from svg_class) of at most CANVAS_STRIPS thin <rect>s, one
 * per CANVAS_STRIP_MIN output units or more, each the colours interpolated at its
 * middle ("svg_class-strip-K", K from 0 at the bottom). */
void canvas_gradient(struct canvas *cv, double x, double y, double w, double h, const struct qkv_rgb *colours,
		     int count, const char *svg_class);
/* A filled polygon through count ≥ 3 points. */
void canvas_polygon(struct canvas *cv, const double *x, const double *y, int count, struct qkv_rgb fill,
		    const char *svg_class);

/* Draws with draw(cv, ctx) into out as format at the placed size, the SVG
 * titled `title`. 0, or -1 with one line in err. A write error stops the output
 * at once (no write is tried after the first that fails) and is the one reported,
 * "cannot write the figure: …". */
int canvas_write(FILE *out, enum figure_format format, struct canvas *cv, const char *title,
		 void (*draw)(struct canvas *cv, void *ctx), void *ctx, char *err, size_t err_size);
/* The same into memory (malloc'd), or NULL with err. */
char *canvas_bytes(enum figure_format format, struct canvas *cv, const char *title,
		   void (*draw)(struct canvas *cv, void *ctx), void *ctx, size_t *length, char *err,
		   size_t err_size);

void canvas_error(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
