/*
 * test_report_svg.h: read back what cairo's SVG surface wrote, for the
 * report tests: every filled <path> with its fill colour and bounding box
 * (cairo writes one element per fill), and the size of a PNG.
 */
#ifndef TEST_REPORT_SVG_H
#define TEST_REPORT_SVG_H

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canvas.h"

struct svg_fill {
	tp_rgb colour;
	double x0, y0, x1, y1; /* bounding box of the path's points */
};

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Every <path> with an rgb() fill (cairo 1.16 writes it in style=, later
 * versions as a fill= attribute; both read as "rgb(R%, G%, B%)").
 * Returns the count; *fills is malloc'd.
 */
static inline size_t svg_fills(const char *path, struct svg_fill **fills)
{
	char *text = slurp(path), *p;
	size_t n = 0, cap = 0;

	*fills = NULL;
	if (!text)
		return 0;
	for (p = strstr(text, "<path"); p; p = strstr(p + 1, "<path")) {
		char *end = strchr(p, '>'), *rgb, *d;
		struct svg_fill f = {
		    {0, 0, 0}, INFINITY, INFINITY, -INFINITY, -INFINITY};
		double r, g, b;

		if (!end)
			break;
		rgb = strstr(p, "fill:rgb(");
		if (!rgb || rgb > end)
			rgb = strstr(p, "fill=\"rgb(");
		d = strstr(p, " d=\"");
		if (!rgb || rgb > end || !d || d > end)
			continue;
		if (sscanf(strchr(rgb, '(') + 1, "%lf%%, %lf%%, %lf%%", &r, &g,
		           &b) != 3)
			continue;
		f.colour = (tp_rgb){r / 100, g / 100, b / 100};
		for (char *s = d + 4; s < end && *s != '"';) {
			double x, y;
			int used = 0;

			if (*s == 'M' || *s == 'L') {
				if (sscanf(s + 1, "%lf %lf%n", &x, &y, &used) ==
				    2) {
					f.x0 = fmin(f.x0, x);
					f.x1 = fmax(f.x1, x);
					f.y0 = fmin(f.y0, y);
					f.y1 = fmax(f.y1, y);
				}
				s += 1 + used;
			} else {
				s++;
			}
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*fills = realloc(*fills, cap * sizeof(**fills));
		}
		(*fills)[n++] = f;
	}
	free(text);
	return n;
}

/* cairo's SVG writer rounds colours to 0.1 %. */
static inline int same_colour(tp_rgb a, tp_rgb b)
{
	return fabs(a.r - b.r) < 0.002 && fabs(a.g - b.g) < 0.002 &&
	       fabs(a.b - b.b) < 0.002;
}

/*
 * CIELAB (D65) distance between two sRGB colours (CIE76 delta E): about 2.3
 * is just noticeable side by side; 10 and more reads as another colour.
 */
static inline double srgb_linear(double c)
{
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static inline void rgb_to_lab(tp_rgb c, double lab[3])
{
	double r = srgb_linear(c.r), g = srgb_linear(c.g), b = srgb_linear(c.b);
	double xyz[3] = {
	    (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
	    0.2126 * r + 0.7152 * g + 0.0722 * b,
	    (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
	};

	for (int i = 0; i < 3; i++)
		xyz[i] = xyz[i] > 0.008856 ? cbrt(xyz[i])
		                           : 7.787 * xyz[i] + 16.0 / 116;
	lab[0] = 116 * xyz[1] - 16;
	lab[1] = 500 * (xyz[0] - xyz[1]);
	lab[2] = 200 * (xyz[1] - xyz[2]);
}

static inline double colour_distance(tp_rgb a, tp_rgb b)
{
	double la[3], lb[3];

	rgb_to_lab(a, la);
	rgb_to_lab(b, lb);
	return sqrt((la[0] - lb[0]) * (la[0] - lb[0]) +
	            (la[1] - lb[1]) * (la[1] - lb[1]) +
	            (la[2] - lb[2]) * (la[2] - lb[2]));
}

/* CIELAB chroma: 0 for greys. */
static inline double colour_chroma(tp_rgb c)
{
	double lab[3];

	rgb_to_lab(c, lab);
	return hypot(lab[1], lab[2]);
}

/* Width and height of the PNG at @path (0 x 0 when unreadable). */
static inline void png_size(const char *path, int *w, int *h)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(path);

	*w = *h = 0;
	if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
		*w = cairo_image_surface_get_width(s);
		*h = cairo_image_surface_get_height(s);
	}
	cairo_surface_destroy(s);
}

/*
 * The system's fonts.conf makes fontconfig lose a block while parsing it
 * (seen with fontconfig 2.14 under valgrind); a minimal configuration that
 * only lists the font directory keeps leak checkers quiet.  Not when the
 * caller chose a FONTCONFIG_FILE.
 */
static char test_fonts_dir[64];

static inline void test_fonts_begin(void)
{
	char path[128];
	FILE *out;

	if (getenv("FONTCONFIG_FILE"))
		return;
	snprintf(test_fonts_dir, sizeof(test_fonts_dir),
	         "/tmp/tp-report-fonts-XXXXXX");
	if (!mkdtemp(test_fonts_dir)) {
		test_fonts_dir[0] = '\0';
		return;
	}
	snprintf(path, sizeof(path), "%s/fonts.conf", test_fonts_dir);
	out = fopen(path, "w");
	if (!out)
		return;
	fputs("<?xml version=\"1.0\"?>\n<fontconfig>\n"
	      "  <dir>/usr/share/fonts</dir>\n</fontconfig>\n",
	      out);
	if (fclose(out) == 0)
		setenv("FONTCONFIG_FILE", path, 1);
}

/* Drop cairo's caches (leak checkers) and the configuration above. */
static inline void test_fonts_end(void)
{
	char path[128];

	cairo_debug_reset_static_data();
	if (!test_fonts_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/fonts.conf", test_fonts_dir);
	unlink(path);
	rmdir(test_fonts_dir);
}

#endif /* TEST_REPORT_SVG_H */
