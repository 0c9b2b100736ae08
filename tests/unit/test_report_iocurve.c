/*
 * test_report_iocurve.c: one (size, clients) curve is picked from a sweep
 * (or a clear error lists the curves there are), axes go logarithmic over a
 * decade, each measured interval is one median and one p95 point, the two
 * curves differ in colour, line (solid / dashed) and point shape, the
 * threshold and the window are drawn as lines in their colours only when
 * known, the threshold over a wider window line so both show when they
 * coincide, and back-to-back-only curves are refused; times are written
 * in one fixed-point style (also in the reasons shown), and the axis title
 * counts the back-to-back points left out.
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
/* A point with the version 1 summary fields; the others are 0. */
#define POINT(bytes, clients_, interval, n, median, mean, p95)                 \
	((tp_sweep_point){.request_bytes = (bytes),                            \
	                  .clients = (clients_),                               \
	                  .interval_us = (interval),                           \
	                  .samples = (n),                                      \
	                  .median_us = (median),                               \
	                  .mean_us = (mean),                                   \
	                  .p95_us = (p95)})

static const double intervals[] = {250,  500,  1000, 1500,
                                   2000, 3000, 4000, 8000};

static size_t make_points(tp_sweep_point *p)
{
	size_t n = 0;

	for (size_t i = 0; i < 8; i++) {
		double iv = intervals[i],
		       lat = iv >= 2000 ? 1000 : 1000 * 2000 / iv;

		p[n++] = POINT(4 * MIB, 4, iv, 40, lat, lat, lat * 1.3);
	}
	for (size_t i = 0; i < 8; i++)
		p[n++] = POINT(MIB, 2, intervals[i], 40, 300, 300, 320);
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

/* A stroked element: colour, width, dashed or not, where in the file. */
struct stroke {
	tp_rgb colour;
	double width;
	bool dashed;
	size_t offset;
};

/* Every stroked <path> of @path in file order; *out is malloc'd. */
static size_t stroked_paths(const char *path, struct stroke **out)
{
	char *text = slurp(path), *p;
	size_t n = 0, cap = 0;

	assert_non_null(text);
	*out = NULL;
	for (p = strstr(text, "<path"); p; p = strstr(p + 1, "<path")) {
		char *end = strchr(p, '>'), *q;
		struct stroke st = {{0, 0, 0}, 0, false, (size_t)(p - text)};
		double r, g, b;

		assert_non_null(end);
		q = strstr(p, "stroke:rgb(");
		if (!q || q > end ||
		    sscanf(q + 11, "%lf%%,%lf%%,%lf%%", &r, &g, &b) != 3)
			continue;
		st.colour = (tp_rgb){r / 100, g / 100, b / 100};
		q = strstr(p, "stroke-width:");
		if (q && q < end)
			st.width = strtod(q + 13, NULL);
		q = strstr(p, "stroke-dasharray:");
		st.dashed = q && q < end && strncmp(q + 17, "none", 4);
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			*out = realloc(*out, cap * sizeof(**out));
			assert_non_null(*out);
		}
		(*out)[n++] = st;
	}
	free(text);
	return n;
}

/* Stroked elements in @colour: *solid and *dashed of them. */
static void stroke_kinds(const char *path, tp_rgb colour, size_t *solid,
                         size_t *dashed)
{
	struct stroke *st;
	size_t n = stroked_paths(path, &st);

	*solid = *dashed = 0;
	for (size_t i = 0; i < n; i++)
		if (same_colour(st[i].colour, colour))
			*(st[i].dashed ? dashed : solid) += 1;
	free(st);
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
	/* One point per interval for the median and for the p95, and one
	 * in the legend for each. */
	assert_int_equal(fills_of(path, tp_canvas_category(4)), 8 + 1);
	assert_int_equal(fills_of(path, tp_canvas_category(6)), 8 + 1);
	{
		/* p95 points are squares (the median's are discs) */
		struct svg_fill *fills;
		size_t count = svg_fills(path, &fills), squares = 0;

		for (size_t i = 0; i < count; i++)
			squares +=
			    same_colour(fills[i].colour,
			                tp_canvas_category(6)) &&
			    fabs(fills[i].x1 - fills[i].x0 - 5.5) < 0.01 &&
			    fabs(fills[i].y1 - fills[i].y0 - 5.5) < 0.01;
		assert_int_equal(squares, 8 + 1);
		free(fills);
	}
	/* Threshold line + plateau line; window line. */
	assert_int_equal(strokes(path, tp_canvas_category(5)), 2);
	assert_int_equal(strokes(path, tp_canvas_category(2)), 1);
	{
		/* the curve and its legend line: median solid, p95 dashed */
		size_t solid, dashed;

		stroke_kinds(path, tp_canvas_category(4), &solid, &dashed);
		assert_int_equal(solid, 2);
		assert_int_equal(dashed, 0);
		stroke_kinds(path, tp_canvas_category(6), &solid, &dashed);
		assert_int_equal(solid, 0);
		assert_int_equal(dashed, 2);
	}
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

static void test_window_at_threshold_both_visible(void **state)
{
	tp_sweep_point p[16];
	tp_threshold_params params;
	tp_iocurve c = {"test", NULL, 8, false, {0}, NULL, 0, NULL};
	char dir[] = "/tmp/tp-io-XXXXXX", path[64];
	struct stroke *st;
	const struct stroke *win = NULL, *thr = NULL;
	size_t n;
	tp_error err;

	(void)state;
	make_points(p);
	c.points = p + 8;
	assert_non_null(mkdtemp(dir));
	tp_threshold_params_default(&params);
	assert_int_equal(
	    tp_threshold_detect(c.points, 8, &params, &c.threshold, &err),
	    TP_OK);
	c.have_threshold = true;
	c.window_us = c.threshold.threshold_us; /* the same line */
	snprintf(path, sizeof(path), "%s/same.svg", dir);
	assert_int_equal(tp_iocurve_draw(path, 900, 560, &c, &err), TP_OK);
	n = stroked_paths(path, &st);
	for (size_t i = 0; i < n; i++) {
		if (same_colour(st[i].colour, tp_canvas_category(2)))
			win = &st[i];
		/* the threshold's vertical line: dashed, the wider one */
		if (same_colour(st[i].colour, tp_canvas_category(5)) &&
		    st[i].dashed && (!thr || st[i].width > thr->width))
			thr = &st[i];
	}
	assert_non_null(win);
	assert_non_null(thr);
	/* The dashed threshold is drawn after (over) the solid window, which
	 * is wider, so the window shows beside and between the dashes. */
	assert_false(win->dashed);
	assert_true(thr->offset > win->offset);
	assert_true(win->width > thr->width + 1);
	free(st);
	unlink(path);
	rmdir(dir);
}

static void test_back_to_back_only_refused(void **state)
{
	tp_sweep_point p = POINT(MIB, 1, 0, 10, 5, 5, 6);
	tp_iocurve c = {"b2b", &p, 1, false, {0}, NULL, 0, NULL};
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_iocurve_draw("/tmp/tp-never.png", 900, 560, &c, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "back to back"));
	assert_int_equal(access("/tmp/tp-never.png", F_OK), -1);
}

/*
 * Back-to-back points (interval 0) have no place on the interval axis;
 * iocurve.h promises the chart says how many were left out.  And the
 * window's reason (worded by tp_units_format_us, as the subtitle is) is
 * shown as it is.
 */
static void test_words_count_points_left_out_one_unit_style(void **state)
{
	tp_sweep_point p[11];
	tp_iocurve_text t;
	tp_iocurve c = {"s", p, 0, true, {0}, NULL, 1633.0, NULL};

	(void)state;
	for (size_t i = 0; i < 3; i++)
		p[i] = POINT(4 * MIB, 4, 0, 40, 9000, 9000, 9100);
	for (size_t i = 0; i < 8; i++)
		p[3 + i] =
		    POINT(4 * MIB, 4, intervals[i], 40, 1000, 1000, 1300);
	c.threshold.threshold_us = 1633.0;
	c.threshold.plateau_us = 1000;
	c.threshold.confidence = 1;
	c.window_why = "mean interval 800 us is below the threshold 1.63 ms";
	c.points = p;
	c.count = 11;
	tp_iocurve_words(&c, true, &t);
	assert_non_null(strstr(
	    t.x_label, "; 3 back-to-back points (interval 0) not shown"));
	assert_non_null(strstr(t.subtitle, "threshold 1.63 ms"));
	assert_non_null(strstr(t.subtitle, "plateau 1 ms"));
	assert_string_equal(t.note, "throttle window 1.63 ms: mean interval "
	                            "800 us is below the threshold 1.63 ms");
	assert_null(strstr(t.note, "1633"));
	c.points = p + 2; /* one back-to-back point */
	c.count = 9;
	tp_iocurve_words(&c, true, &t);
	assert_non_null(strstr(t.x_label, "; 1 back-to-back point (interval "
	                                  "0) not shown"));
	c.points = p + 3; /* none */
	c.count = 8;
	tp_iocurve_words(&c, false, &t);
	assert_string_equal(t.x_label,
	                    "mean interval between a client's request starts");
}

/* The trade-off chart: both curves against the window, the window and
 * the objective in its words, the unthrottled point in the subtitle; and
 * a curve with nothing to draw is refused. */
static void test_tradeoff_words_name_window_objective_and_unthrottled(
    void **state)
{
	const tp_curve_point p[] = {
	    {4 * MIB, 87, 0, 3500, 4.6, 54, 1, 0, 0, 0, 0},
	    {4 * MIB, 87, 4000, 4060, 1.72, 20, 1, 0, 0, 0, 0},
	    {4 * MIB, 87, 6250, 6265, 1.1, 4.9, 1, 0, 0, 0, 0},
	    {4 * MIB, 87, 10000, 9975, 1.03, 1.1, 1, 0, 0, 0, 0}};
	tp_iocurve_tradeoff c = {"sim.csv",
	                         p,
	                         4,
	                         6250,
	                         "mpi_slowdown<=1.1",
	                         1.1,
	                         "window 6.25 ms set by the objective"};
	tp_iocurve_text t;
	char path[] = "/tmp/tp-tradeoff-XXXXXX.svg";
	int fd = mkstemps(path, 4);
	tp_error err;

	(void)state;
	tp_iocurve_tradeoff_words(&c, &t);
	assert_non_null(strstr(t.title, "victim latency and I/O time"));
	assert_non_null(strstr(t.subtitle, "every 3.5 ms (measured), victim "
	                                   "at 4.60x"));
	assert_non_null(strstr(t.note, "window 6.25 ms, objective "
	                               "mpi_slowdown<=1.1"));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tp_iocurve_draw_tradeoff(path, 900, 560, &c, &err),
	                 TP_OK);
	unlink(path);
	c.count = 1; /* the unthrottled point alone: nothing on a log axis */
	assert_int_equal(tp_iocurve_draw_tradeoff(path, 900, 560, &c, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "no measured window"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_select_named_or_first_group),
	    cmocka_unit_test(test_log_axis_from_a_decade),
	    cmocka_unit_test(test_threshold_and_window_marked),
	    cmocka_unit_test(test_window_at_threshold_both_visible),
	    cmocka_unit_test(test_back_to_back_only_refused),
	    cmocka_unit_test(test_words_count_points_left_out_one_unit_style),
	    cmocka_unit_test(
	        test_tradeoff_words_name_window_objective_and_unthrottled),
	};
	int failed;

	test_fonts_begin();
	failed = cmocka_run_group_tests(tests, NULL, NULL);

	test_fonts_end();
	return failed;
}
