/*
 * test_report_iocurve.c: one (size, clients) curve is picked from a sweep
 * (or a clear error lists the curves there are), axes go logarithmic over a
 * decade, each measured interval is one median and one p95 point, the
 * threshold and the window are drawn as lines in their colours only when
 * known, and back-to-back-only curves are refused.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "iocurve.h"
#include "test_report_svg.h"

#define MIB (1024u * 1024u)

/* Group (4 MiB, 4 clients): plateau 1000 us above 2000 us, latency
 * rising as the interval shrinks below; then a flat (1 MiB, 2) group. */
static const double intervals[] = {250,  500,  1000, 1500,
                                   2000, 3000, 4000, 8000};

static size_t make_points(tp_sweep_point *p)
{
	size_t n = 0;

	for (size_t i = 0; i < 8; i++) {
		double iv = intervals[i],
		       lat = iv >= 2000 ? 1000 : 1000 * 2000 / iv;

		p[n++] =
		    (tp_sweep_point){4 * MIB, 4, iv, 40, lat, lat, lat * 1.3};
	}
	for (size_t i = 0; i < 8; i++)
		p[n++] =
		    (tp_sweep_point){MIB, 2, intervals[i], 40, 300, 300, 320};
	/* tp_sweep_points' order: by size, then clients, then interval. */
	for (size_t i = 0; i < 8; i++) {
		tp_sweep_point t = p[i];

		p[i] = p[8 + i];
		p[8 + i] = t;
	}
	return n;
}

static void test_select_named_or_first_group(void **state)
{
	tp_sweep_point p[16];
	size_t n = make_points(p), first, count;
	tp_error err;

	(void)state;
	assert_int_equal(tp_iocurve_select(p, n, 0, 0, &first, &count, &err),
	                 TP_OK);
	assert_int_equal(first, 0);
	assert_int_equal(count, 8);
	assert_int_equal(
	    tp_iocurve_select(p, n, 4 * MIB, 4, &first, &count, &err), TP_OK);
	assert_int_equal(first, 8);
	assert_int_equal(count, 8);
	assert_int_equal(
	    tp_iocurve_select(p, n, 4 * MIB, 8, &first, &count, &err),
	    TP_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, "4194304-byte requests from 8"));
	assert_non_null(strstr(err.message, "1048576/2, 4194304/4"));
	assert_int_equal(tp_iocurve_select(p, 0, 0, 0, &first, &count, &err),
	                 TP_ERR_INVALID);
}

static void test_log_axis_from_a_decade(void **state)
{
	(void)state;
	assert_true(tp_iocurve_log_axis(100, 1000));
	assert_false(tp_iocurve_log_axis(100, 999));
	assert_false(tp_iocurve_log_axis(0, 1000));
}

/* Stroked elements in @colour (cairo: stroke:rgb(...) or stroke="rgb"). */
static size_t strokes(const char *path, tp_rgb colour)
{
	char *text = slurp(path), *p;
	size_t n = 0;

	assert_non_null(text);
	for (p = strstr(text, "stroke"); p; p = strstr(p + 1, "stroke")) {
		double r, g, b;
		char *rgb = p + 6;

		if (*rgb == ':' || *rgb == '=')
			rgb++;
		if (*rgb == '"')
			rgb++;
		if (strncmp(rgb, "rgb(", 4) ||
		    sscanf(rgb + 4, "%lf%%, %lf%%, %lf%%", &r, &g, &b) != 3)
			continue;
		n += same_colour((tp_rgb){r / 100, g / 100, b / 100}, colour);
	}
	free(text);
	return n;
}

static size_t fills_of(const char *path, tp_rgb colour)
{
	struct svg_fill *fills;
	size_t n = svg_fills(path, &fills), count = 0;

	for (size_t i = 0; i < n; i++)
		count += same_colour(fills[i].colour, colour);
	free(fills);
	return count;
}

static void test_threshold_and_window_marked(void **state)
{
	tp_sweep_point p[16];
	size_t n = make_points(p);
	tp_threshold_params params;
	tp_iocurve c = {"test", p + 8, 8, false, {0}, NULL, 0, NULL};
	char dir[] = "/tmp/tp-io-XXXXXX", path[64];
	tp_error err;
	int w, h;

	(void)state;
	(void)n;
	assert_non_null(mkdtemp(dir));
	tp_threshold_params_default(&params);
	assert_int_equal(
	    tp_threshold_detect(c.points, 8, &params, &c.threshold, &err),
	    TP_OK);
	c.have_threshold = true;
	c.window_us = 2500;
	snprintf(path, sizeof(path), "%s/io.svg", dir);
	assert_int_equal(tp_iocurve_draw(path, 900, 560, &c, &err), TP_OK);
	/* One point per interval for the median and for the p95. */
	assert_int_equal(fills_of(path, tp_canvas_category(4)), 8);
	assert_int_equal(fills_of(path, tp_canvas_category(1)), 8);
	/* Threshold line + plateau line; window line; legend lines. */
	assert_int_equal(strokes(path, tp_canvas_category(5)), 2);
	assert_int_equal(strokes(path, tp_canvas_category(2)), 1);
	unlink(path);

	/* No knee: neither threshold nor window drawn. */
	c.points = p; /* the flat group */
	assert_int_equal(
	    tp_threshold_detect(c.points, 8, &params, &c.threshold, &err),
	    TP_ERR_NOTFOUND);
	c.have_threshold = false;
	c.no_threshold_why = err.message;
	c.window_us = 0;
	snprintf(path, sizeof(path), "%s/io.png", dir);
	assert_int_equal(tp_iocurve_draw(path, 640, 400, &c, &err), TP_OK);
	png_size(path, &w, &h);
	assert_int_equal(w, 640);
	assert_int_equal(h, 400);
	unlink(path);
	snprintf(path, sizeof(path), "%s/io.svg", dir);
	assert_int_equal(tp_iocurve_draw(path, 640, 400, &c, &err), TP_OK);
	assert_int_equal(strokes(path, tp_canvas_category(5)), 0);
	assert_int_equal(strokes(path, tp_canvas_category(2)), 0);
	unlink(path);
	rmdir(dir);
}

static void test_back_to_back_only_refused(void **state)
{
	tp_sweep_point p = {MIB, 1, 0, 10, 5, 5, 6};
	tp_iocurve c = {"b2b", &p, 1, false, {0}, NULL, 0, NULL};
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_iocurve_draw("/tmp/tp-never.png", 900, 560, &c, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "back to back"));
	assert_int_equal(access("/tmp/tp-never.png", F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_select_named_or_first_group),
	    cmocka_unit_test(test_log_axis_from_a_decade),
	    cmocka_unit_test(test_threshold_and_window_marked),
	    cmocka_unit_test(test_back_to_back_only_refused),
	};
	int failed;

	test_fonts_begin();
	failed = cmocka_run_group_tests(tests, NULL, NULL);

	test_fonts_end();
	return failed;
}
