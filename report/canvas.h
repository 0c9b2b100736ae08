/*
 * canvas.h: one image file being drawn, PNG or SVG, through cairo.
 *
 * Every report (hop-class histograms, heatmaps, fabric views, I/O curves)
 * draws on a tp_canvas.  The canvas picks the surface from the file name's
 * extension, draws into a temporary file beside the target and renames it
 * into place on tp_canvas_close, so a failed or interrupted report never
 * leaves a half-written image under the name the user asked for.
 *
 * Colours: categories (jobs, hop classes) come from a palette that starts
 * with the colours that stay readable for common colour-vision deficiencies
 * (Okabe-Ito) and goes on with generated ones for many jobs; loads and
 * heat from a sequential scale, light to dark, so "more" always reads darker
 * in print as on screen.
 */
#ifndef TP_CANVAS_H
#define TP_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "tp_error.h"

typedef enum tp_canvas_format {
	TP_CANVAS_PNG = 0,
	TP_CANVAS_SVG,
} tp_canvas_format;

/* Largest side accepted, in pixels (PNG) or points (SVG). */
#define TP_CANVAS_MAX_SIDE 16384u

typedef struct tp_canvas tp_canvas;

typedef struct tp_rgb {
	double r, g, b; /* 0..1 */
} tp_rgb;

/*
 * The format named by @path's extension (".png" or ".svg", any case).
 * TP_ERR_INVALID naming the path otherwise.
 */
tp_status tp_canvas_format_of(const char *path, tp_canvas_format *format,
                              tp_error *err);

/*
 * Start drawing a @width x @height image that tp_canvas_close will write to
 * @path.  The canvas is cleared to white.  Fails with TP_ERR_INVALID (size 0
 * or above TP_CANVAS_MAX_SIDE, unknown extension), TP_ERR_IO (the temporary
 * file cannot be created: the message names it and says why), TP_ERR_NOMEM.
 */
tp_status tp_canvas_open(const char *path, uint32_t width, uint32_t height,
                         tp_canvas **canvas, tp_error *err);

/* The cairo context to draw with; owned by the canvas. */
cairo_t *tp_canvas_cairo(tp_canvas *canvas);

uint32_t tp_canvas_width(const tp_canvas *canvas);
uint32_t tp_canvas_height(const tp_canvas *canvas);
tp_canvas_format tp_canvas_format_get(const tp_canvas *canvas);

/*
 * Finish the image, check cairo's status, move it to its path and free the
 * canvas (also on failure: the temporary file is removed then).  TP_ERR_IO
 * names the path and cairo's or the system's reason.
 */
tp_status tp_canvas_close(tp_canvas *canvas, tp_error *err);

/* Free the canvas and remove its temporary file; the target is untouched. */
void tp_canvas_discard(tp_canvas *canvas);

/*
 * Drop cairo's font caches and static data.  For the end of a program
 * (the CLI, tests) when no canvas is open any more, so that leak checkers
 * see what cairo held as freed rather than lost.
 */
void tp_canvas_release_static(void);

/* Category colours that are all distinct (then they repeat). */
#define TP_CANVAS_CATEGORIES 64u

/*
 * Category colour @index: Okabe-Ito's first seven colours, then generated
 * ones of other hues and lightness; none is grey, and the first
 * TP_CANVAS_CATEGORIES are all distinct (then they wrap around).
 */
tp_rgb tp_canvas_category(uint32_t index);

/* Sequential colour for @t in [0, 1] (clamped): 0 light, 1 dark. */
tp_rgb tp_canvas_scale(double t);

void tp_canvas_set_rgb(tp_canvas *canvas, tp_rgb colour);

typedef enum tp_canvas_align {
	TP_ALIGN_LEFT = 0,
	TP_ALIGN_CENTER,
	TP_ALIGN_RIGHT,
} tp_canvas_align;

/*
 * Draw @text with its baseline at (@x, @y), @size points, in the current
 * colour, aligned on @x as @align says; rotated by @angle_rad around (@x, @y)
 * (0: horizontal).  Text uses a sans-serif face through cairo's toy API.
 */
void tp_canvas_text(tp_canvas *canvas, double x, double y, double size,
                    tp_canvas_align align, double angle_rad, const char *text);

/*
 * Chart helpers shared by the reports.
 */

/*
 * The binary unit that reads best for values up to @max_bytes: stores its
 * name ("B", "KiB", "MiB", "GiB", "TiB", "PiB") in @name and returns its
 * size in bytes.
 */
double tp_canvas_bytes_unit(double max_bytes, const char **name);

/*
 * @bytes as "1.50 MiB" into @buf of @size bytes: whole bytes below 1 KiB
 * ("1000 B"), else three significant digits in fixed point ("1.00 KiB",
 * "10.0 KiB", "1000 KiB", then "1.00 MiB"); never an exponent, however
 * large (past PiB the number just grows).  Non-finite values print "? B".
 */
void tp_canvas_format_bytes(double bytes, char *buf, size_t size);

/*
 * A "nice" tick step (1, 2 or 5 times a power of ten) dividing @range into
 * at most @max_ticks steps; 1 for an empty or non-finite range.
 */
double tp_canvas_nice_step(double range, unsigned max_ticks);

/* Fill the rectangle at (@x, @y) of @w x @h with @colour. */
void tp_canvas_fill_rect(tp_canvas *canvas, double x, double y, double w,
                         double h, tp_rgb colour);

/* A straight line of @width in @colour; @dash > 0 draws it dashed. */
void tp_canvas_line(tp_canvas *canvas, double x0, double y0, double x1,
                    double y1, double width, tp_rgb colour, double dash);

/*
 * tp_canvas_text, horizontal, at @size points or smaller so that it fits
 * in @max_width; below 6 points it is cut and ends in "...".
 */
void tp_canvas_text_fit(tp_canvas *canvas, double x, double y, double size,
                        double max_width, tp_canvas_align align,
                        const char *text);

/* Width of @text at @size points in the canvas's face. */
double tp_canvas_text_width(tp_canvas *canvas, double size, const char *text);

#endif /* TP_CANVAS_H */
