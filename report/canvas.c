/*
 * canvas.c: PNG and SVG files drawn with cairo, written atomically (or,
 * for a symbolic link, FIFO or device, in place: tp_file_write_in_place).
 */
#include "tp_config.h"

#include "canvas.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cairo-svg.h>

#include "tp_file.h"

struct tp_canvas {
	tp_canvas_format format;
	uint32_t width, height;
	cairo_surface_t *surface;
	cairo_t *cr;
	char *path;     /* the name the user asked for */
	char *tmp_path; /* where the image is drawn until close */
	bool in_place;  /* tmp_path is path (tp_file_write_in_place) */
};

tp_status tp_canvas_format_of(const char *path, tp_canvas_format *format,
                              tp_error *err)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (dot && !strcasecmp(dot, ".png")) {
		*format = TP_CANVAS_PNG;
		return TP_OK;
	}
	if (dot && !strcasecmp(dot, ".svg")) {
		*format = TP_CANVAS_SVG;
		return TP_OK;
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s: unknown image type (the name must end in "
	                    ".png or .svg)",
	                    path ? path : "(no file name)");
}

/*
 * Create an empty file beside @path that no one else uses.  O_EXCL with a
 * name made of the pid, the time and a counter: mkstemp would do, but its
 * 0600 mode would survive the rename and make the report unreadable to the
 * group that asked for it; this way the umask decides, as for any file.
 */
static tp_status make_tmp(tp_canvas *canvas, tp_error *err)
{
	size_t len = strlen(canvas->path) + 64;
	struct timespec now;

	canvas->in_place = tp_file_write_in_place(canvas->path);
	if (canvas->in_place)
		len = strlen(canvas->path) + 1;
	canvas->tmp_path = malloc(len);
	if (!canvas->tmp_path)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    canvas->path);
	if (canvas->in_place) { /* a link, FIFO or device: drawn into it */
		memcpy(canvas->tmp_path, canvas->path, len);
		return TP_OK;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		int fd;

		snprintf(canvas->tmp_path, len, "%s.tmp-%ld-%ld-%u",
		         canvas->path, (long)getpid(), (long)now.tv_nsec,
		         attempt);
		fd = open(canvas->tmp_path,
		          O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			return TP_OK;
		}
		if (errno != EEXIST)
			return tp_error_set(err, TP_ERR_IO,
			                    "%s: cannot create the image "
			                    "there: %s",
			                    canvas->path, strerror(errno));
	}
	return tp_error_set(err, TP_ERR_IO,
	                    "%s: no free temporary name beside it",
	                    canvas->path);
}

static void canvas_free(tp_canvas *canvas)
{
	if (!canvas)
		return;
	if (canvas->cr)
		cairo_destroy(canvas->cr);
	if (canvas->surface)
		cairo_surface_destroy(canvas->surface);
	free(canvas->path);
	free(canvas->tmp_path);
	free(canvas);
}

void tp_canvas_discard(tp_canvas *canvas)
{
	if (!canvas)
		return;
	if (canvas->cr) {
		cairo_destroy(canvas->cr);
		canvas->cr = NULL;
	}
	if (canvas->surface) {
		/* Finishing an SVG surface writes to the temporary file;
		 * remove it afterwards. */
		cairo_surface_finish(canvas->surface);
		cairo_surface_destroy(canvas->surface);
		canvas->surface = NULL;
	}
	if (canvas->tmp_path && !canvas->in_place)
		unlink(canvas->tmp_path);
	canvas_free(canvas);
}

tp_status tp_canvas_open(const char *path, uint32_t width, uint32_t height,
                         tp_canvas **canvas_out, tp_error *err)
{
	tp_canvas_format format;
	tp_canvas *canvas;
	tp_status rc;

	*canvas_out = NULL;
	rc = tp_canvas_format_of(path, &format, err);
	if (rc != TP_OK)
		return rc;
	if (width == 0 || height == 0 || width > TP_CANVAS_MAX_SIDE ||
	    height > TP_CANVAS_MAX_SIDE)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: image size %ux%u out of range "
		                    "(1..%u per side)",
		                    path, width, height, TP_CANVAS_MAX_SIDE);
	canvas = calloc(1, sizeof(*canvas));
	if (!canvas)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	canvas->format = format;
	canvas->width = width;
	canvas->height = height;
	canvas->path = strdup(path);
	if (!canvas->path) {
		canvas_free(canvas);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	}
	rc = make_tmp(canvas, err);
	if (rc != TP_OK) {
		canvas_free(canvas);
		return rc;
	}
	if (format == TP_CANVAS_SVG)
		canvas->surface =
		    cairo_svg_surface_create(canvas->tmp_path, width, height);
	else
		canvas->surface = cairo_image_surface_create(
		    CAIRO_FORMAT_RGB24, (int)width, (int)height);
	if (cairo_surface_status(canvas->surface) != CAIRO_STATUS_SUCCESS) {
		rc = tp_error_set(err, TP_ERR_IO, "%s: cannot start image: %s",
		                  path,
		                  cairo_status_to_string(
		                      cairo_surface_status(canvas->surface)));
		tp_canvas_discard(canvas);
		return rc;
	}
	canvas->cr = cairo_create(canvas->surface);
	if (cairo_status(canvas->cr) != CAIRO_STATUS_SUCCESS) {
		rc = tp_error_set(
		    err, TP_ERR_NOMEM, "%s: cannot draw: %s", path,
		    cairo_status_to_string(cairo_status(canvas->cr)));
		tp_canvas_discard(canvas);
		return rc;
	}
	cairo_set_source_rgb(canvas->cr, 1, 1, 1);
	cairo_paint(canvas->cr);
	cairo_set_source_rgb(canvas->cr, 0, 0, 0);
	*canvas_out = canvas;
	return TP_OK;
}

cairo_t *tp_canvas_cairo(tp_canvas *canvas)
{
	return canvas->cr;
}

uint32_t tp_canvas_width(const tp_canvas *canvas)
{
	return canvas->width;
}

uint32_t tp_canvas_height(const tp_canvas *canvas)
{
	return canvas->height;
}

tp_canvas_format tp_canvas_format_get(const tp_canvas *canvas)
{
	return canvas->format;
}

tp_status tp_canvas_close(tp_canvas *canvas, tp_error *err)
{
	cairo_status_t status = cairo_status(canvas->cr);
	tp_status rc = TP_OK;

	if (status != CAIRO_STATUS_SUCCESS) {
		rc = tp_error_set(err, TP_ERR_IO, "%s: drawing failed: %s",
		                  canvas->path, cairo_status_to_string(status));
		tp_canvas_discard(canvas);
		return rc;
	}
	cairo_destroy(canvas->cr);
	canvas->cr = NULL;
	if (canvas->format == TP_CANVAS_PNG)
		status = cairo_surface_write_to_png(canvas->surface,
		                                    canvas->tmp_path);
	cairo_surface_finish(canvas->surface);
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(canvas->surface);
	cairo_surface_destroy(canvas->surface);
	canvas->surface = NULL;
	if (status != CAIRO_STATUS_SUCCESS)
		rc = tp_error_set(err, TP_ERR_IO, "%s: cannot write: %s",
		                  canvas->path, cairo_status_to_string(status));
	else if (!canvas->in_place &&
	         rename(canvas->tmp_path, canvas->path) != 0)
		rc = tp_error_set(
		    err, TP_ERR_IO, "%s: cannot rename %s into place: %s",
		    canvas->path, canvas->tmp_path, strerror(errno));
	if (rc != TP_OK && !canvas->in_place)
		unlink(canvas->tmp_path);
	canvas_free(canvas);
	return rc;
}

void tp_canvas_release_static(void)
{
	cairo_debug_reset_static_data();
}

/* sRGB transfer function: linear light to the 0..1 value a pixel holds. */
static double srgb_encode(double linear)
{
	if (linear <= 0.0031308)
		return 12.92 * linear;
	return 1.055 * pow(linear, 1 / 2.4) - 0.055;
}

/*
 * The OKLab colour of lightness @L, chroma @C and hue @hue_rad in linear
 * sRGB (Ottosson's matrices); false when it falls outside the gamut.
 */
static bool oklch_to_linear(double L, double C, double hue_rad, double rgb[3])
{
	double a = C * cos(hue_rad), b = C * sin(hue_rad);
	double l = L + 0.3963377774 * a + 0.2158037573 * b;
	double m = L - 0.1055613458 * a - 0.0638541728 * b;
	double s = L - 0.0894841775 * a - 1.2914855480 * b;

	l = l * l * l;
	m = m * m * m;
	s = s * s * s;
	rgb[0] = 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s;
	rgb[1] = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s;
	rgb[2] = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s;
	for (int i = 0; i < 3; i++)
		if (rgb[i] < -1e-4 || rgb[i] > 1 + 1e-4)
			return false;
	return true;
}

tp_rgb tp_canvas_category(uint32_t index)
{
	/* Okabe & Ito's palette, without its black (kept for text) and its
	 * grey (too close to idle hosts and links). */
	static const tp_rgb okabe_ito[] = {
	    {0.902, 0.624, 0.000}, /* orange */
	    {0.337, 0.706, 0.914}, /* sky blue */
	    {0.000, 0.620, 0.451}, /* bluish green */
	    {0.941, 0.894, 0.259}, /* yellow */
	    {0.000, 0.447, 0.698}, /* blue */
	    {0.835, 0.369, 0.000}, /* vermillion */
	    {0.800, 0.475, 0.655}, /* reddish purple */
	};
	/* Past them, colours are generated in OKLCh, where equal steps look
	 * equal: hues a golden angle apart never repeat and keep neighbours
	 * far apart on the wheel, and four lightness bands separate hues that
	 * come round close again.  Chroma is as high as sRGB allows (never
	 * grey).  For the 64 categories this gives a CIELAB distance of at
	 * least 9.7 between any two and 33 from the light grey of idle hosts
	 * (tests/unit/test_canvas.c checks both). */
	static const double lightness[] = {0.70, 0.55, 0.82, 0.45};
	const uint32_t fixed = sizeof(okabe_ito) / sizeof(okabe_ito[0]);
	uint32_t k;
	double hue, chroma = 0.18, rgb[3];

	index %= TP_CANVAS_CATEGORIES;
	if (index < fixed)
		return okabe_ito[index];
	k = index - fixed;
	hue = fmod(330.0 + k * 137.50776405, 360.0) * M_PI / 180.0;
	while (chroma > 0.02 &&
	       !oklch_to_linear(lightness[k % 4], chroma, hue, rgb))
		chroma -= 0.005;
	oklch_to_linear(lightness[k % 4], chroma, hue, rgb);
	return (tp_rgb){srgb_encode(fmin(fmax(rgb[0], 0), 1)),
	                srgb_encode(fmin(fmax(rgb[1], 0), 1)),
	                srgb_encode(fmin(fmax(rgb[2], 0), 1))};
}

tp_rgb tp_canvas_scale(double t)
{
	/* Light yellow -> orange -> dark red: a sequential scale in the
	 * spirit of ColorBrewer's YlOrRd, interpolated linearly. */
	static const tp_rgb stops[] = {
	    {1.000, 1.000, 0.800},
	    {0.996, 0.698, 0.298},
	    {0.941, 0.231, 0.125},
	    {0.502, 0.000, 0.149},
	};
	const unsigned last = sizeof(stops) / sizeof(stops[0]) - 1;
	double pos, frac;
	unsigned i;
	tp_rgb c;

	if (!(t > 0.0))
		t = 0.0; /* also NaN */
	if (t > 1.0)
		t = 1.0;
	pos = t * last;
	i = (unsigned)pos;
	if (i >= last)
		return stops[last];
	frac = pos - i;
	c.r = stops[i].r + (stops[i + 1].r - stops[i].r) * frac;
	c.g = stops[i].g + (stops[i + 1].g - stops[i].g) * frac;
	c.b = stops[i].b + (stops[i + 1].b - stops[i].b) * frac;
	return c;
}

void tp_canvas_set_rgb(tp_canvas *canvas, tp_rgb colour)
{
	cairo_set_source_rgb(canvas->cr, colour.r, colour.g, colour.b);
}

void tp_canvas_text(tp_canvas *canvas, double x, double y, double size,
                    tp_canvas_align align, double angle_rad, const char *text)
{
	cairo_t *cr = canvas->cr;
	cairo_text_extents_t ext;
	double dx = 0;

	cairo_save(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, text, &ext);
	if (align == TP_ALIGN_CENTER)
		dx = -(ext.x_advance / 2);
	else if (align == TP_ALIGN_RIGHT)
		dx = -ext.x_advance;
	cairo_translate(cr, x, y);
	cairo_rotate(cr, angle_rad);
	cairo_move_to(cr, dx, 0);
	cairo_show_text(cr, text);
	cairo_restore(cr);
}

double tp_canvas_bytes_unit(double max_bytes, const char **name)
{
	static const char *const names[] = {"B",   "KiB", "MiB",
	                                    "GiB", "TiB", "PiB"};
	double unit = 1;
	unsigned i = 0;

	while (i + 1 < sizeof(names) / sizeof(names[0]) &&
	       max_bytes >= unit * 1024)
		unit *= 1024, i++;
	*name = names[i];
	return unit;
}

/* Decimals that give @v (>= 0, already rounded to them or not) three
 * significant digits in fixed point: 2 below 10, 1 below 100, else 0. */
static int fixed_decimals(double v)
{
	if (v < 9.995)
		return 2;
	if (v < 99.95)
		return 1;
	return 0;
}

void tp_canvas_format_bytes(double bytes, char *buf, size_t size)
{
	static const char *const names[] = {"B",   "KiB", "MiB",
	                                    "GiB", "TiB", "PiB"};
	const unsigned last = sizeof(names) / sizeof(names[0]) - 1;
	const char *sign = bytes < 0 ? "-" : "";
	double v = fabs(bytes);
	unsigned u = 0;
	int decimals;

	if (!isfinite(bytes)) {
		snprintf(buf, size, "? B");
		return;
	}
	/* Fixed point only, never "%g": "%.3g" of 1000..1023 is "1e+03".
	 * The unit is chosen on the value as printed, so 1023.9 KiB, which
	 * would round to "1024 KiB", reads "1.00 MiB". */
	while (u < last && v >= 1024.0)
		v /= 1024.0, u++;
	decimals = u == 0 ? 0 : fixed_decimals(v);
	if (u < last && v >= 1023.5) {
		v /= 1024.0, u++;
		decimals = fixed_decimals(v);
	}
	snprintf(buf, size, "%s%.*f %s", sign, decimals, v, names[u]);
}

double tp_canvas_nice_step(double range, unsigned max_ticks)
{
	double raw, mag, norm;

	if (!(range > 0) || !isfinite(range) || max_ticks == 0)
		return 1;
	raw = range / max_ticks;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	/* Round up so that range / step never exceeds max_ticks. */
	if (norm <= 1)
		return mag;
	if (norm <= 2)
		return 2 * mag;
	if (norm <= 5)
		return 5 * mag;
	return 10 * mag;
}

void tp_canvas_fill_rect(tp_canvas *canvas, double x, double y, double w,
                         double h, tp_rgb colour)
{
	tp_canvas_set_rgb(canvas, colour);
	cairo_rectangle(canvas->cr, x, y, w, h);
	cairo_fill(canvas->cr);
}

void tp_canvas_line(tp_canvas *canvas, double x0, double y0, double x1,
                    double y1, double width, tp_rgb colour, double dash)
{
	cairo_t *cr = canvas->cr;

	cairo_save(cr);
	tp_canvas_set_rgb(canvas, colour);
	cairo_set_line_width(cr, width);
	if (dash > 0)
		cairo_set_dash(cr, &dash, 1, 0);
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
	cairo_restore(cr);
}

double tp_canvas_text_width(tp_canvas *canvas, double size, const char *text)
{
	cairo_t *cr = canvas->cr;
	cairo_text_extents_t ext;

	cairo_save(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, text, &ext);
	cairo_restore(cr);
	return ext.x_advance;
}

void tp_canvas_text_fit(tp_canvas *canvas, double x, double y, double size,
                        double max_width, tp_canvas_align align,
                        const char *text)
{
	const double min_size = 6;
	double w = tp_canvas_text_width(canvas, size, text);
	char cut[512];
	size_t len;

	if (w <= max_width || w <= 0) {
		tp_canvas_text(canvas, x, y, size, align, 0, text);
		return;
	}
	if (size * max_width / w >= min_size) {
		tp_canvas_text(canvas, x, y, size * max_width / w, align, 0,
		               text);
		return;
	}
	/* Too long even small: keep what fits (whole bytes of ASCII text;
	 * the labels here are ASCII names and numbers). */
	len = strlen(text);
	if (len > sizeof(cut) - 4)
		len = sizeof(cut) - 4;
	while (len > 0) {
		snprintf(cut, sizeof(cut), "%.*s...", (int)len, text);
		if (tp_canvas_text_width(canvas, min_size, cut) <= max_width)
			break;
		len--;
	}
	if (len == 0)
		snprintf(cut, sizeof(cut), "...");
	tp_canvas_text(canvas, x, y, min_size, align, 0, cut);
}
