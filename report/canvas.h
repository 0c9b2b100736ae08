/*
 * canvas.h: one image file being drawn, PNG or SVG, through cairo.
 *
 * Every report (hop-class histograms, heatmaps, fabric views, I/O curves)
 * draws on a tp_canvas.  The canvas picks the surface from the file name's
 * extension, draws into a temporary file beside the target and renames it
 * into place on tp_canvas_close, so a failed or interrupted report never
 * leaves a half-written image under the name the user asked for.
 *
 * Colours: categories (jobs, hop classes) come from a fixed palette that
 * stays readable for common colour-vision deficiencies (Okabe-Ito); loads and
 * heat from a sequential scale, light to dark, so "more" always reads darker
 * in print as on screen.
 */
#ifndef TP_CANVAS_H
#define TP_CANVAS_H

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

/* Category colour @index (wraps around after 8 colours). */
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

#endif /* TP_CANVAS_H */
