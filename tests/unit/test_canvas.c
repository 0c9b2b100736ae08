/*
 * test_canvas.c: the canvas writes PNG and SVG by extension, refuses bad
 * extensions and sizes, names the path when the directory is unusable, and
 * leaves nothing behind (and the target untouched) when drawing fails;
 * category colours are distinct for every job a picture holds, none grey.
 */
#include "tp_config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "canvas.h"
#include "test_report_svg.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tp-canvas-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

/* Entries in the test directory (a failed report must leave none). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_png_has_requested_size(void **state)
{
	char path[128];
	tp_canvas *cv;
	tp_error err = {0};
	int w, h;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.png", dir);
	assert_int_equal(tp_canvas_open(path, 321, 123, &cv, &err), TP_OK);
	assert_int_equal(tp_canvas_format_get(cv), TP_CANVAS_PNG);
	tp_canvas_fill_rect(cv, 10, 10, 20, 20, tp_canvas_category(0));
	tp_canvas_text(cv, 50, 50, 12, TP_ALIGN_LEFT, 0, "text");
	assert_int_equal(tp_canvas_close(cv, &err), TP_OK);
	png_size(path, &w, &h);
	assert_int_equal(w, 321);
	assert_int_equal(h, 123);
	assert_int_equal(entries(), 1); /* no temporary file left */
}

static void test_svg_by_extension_any_case(void **state)
{
	char path[128], *text;
	tp_canvas *cv;
	tp_error err = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/a.SVG", dir);
	assert_int_equal(tp_canvas_open(path, 200, 100, &cv, &err), TP_OK);
	assert_int_equal(tp_canvas_format_get(cv), TP_CANVAS_SVG);
	assert_int_equal(tp_canvas_close(cv, &err), TP_OK);
	text = slurp(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "<svg"));
	assert_non_null(strstr(text, "width=\"200"));
	free(text);
}

static void test_unknown_extension_refused_naming_the_path(void **state)
{
	char path[128];
	tp_canvas *cv = (tp_canvas *)&cv;
	tp_error err = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/a.jpg", dir);
	assert_int_equal(tp_canvas_open(path, 10, 10, &cv, &err),
	                 TP_ERR_INVALID);
	assert_null(cv);
	assert_non_null(strstr(err.message, path));
	assert_non_null(strstr(err.message, ".png or .svg"));
	assert_int_equal(tp_canvas_open(NULL, 10, 10, &cv, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(entries(), 0);
}

static void test_size_limits(void **state)
{
	char path[128];
	tp_canvas *cv;
	tp_error err = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/a.png", dir);
	assert_int_equal(tp_canvas_open(path, 0, 10, &cv, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "0x10 out of range"));
	assert_int_equal(
	    tp_canvas_open(path, 10, TP_CANVAS_MAX_SIDE + 1, &cv, &err),
	    TP_ERR_INVALID);
	assert_int_equal(entries(), 0);
	/* The limit itself is accepted (SVG: no pixel buffer to pay). */
	snprintf(path, sizeof(path), "%s/big.svg", dir);
	assert_int_equal(tp_canvas_open(path, TP_CANVAS_MAX_SIDE,
	                                TP_CANVAS_MAX_SIDE, &cv, &err),
	                 TP_OK);
	tp_canvas_discard(cv);
	assert_int_equal(entries(), 0);
}

static void test_missing_directory_named_in_error(void **state)
{
	char path[160];
	tp_canvas *cv;
	tp_error err = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/dir/a.png", dir);
	assert_int_equal(tp_canvas_open(path, 10, 10, &cv, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, "/no/such/dir/a.png"));
	assert_non_null(strstr(err.message, "No such file"));
	assert_int_equal(entries(), 0);
}

static void test_discard_leaves_nothing(void **state)
{
	char path[128];
	tp_canvas *cv;
	tp_error err = {0};

	(void)state;
	snprintf(path, sizeof(path), "%s/a.svg", dir);
	assert_int_equal(tp_canvas_open(path, 50, 50, &cv, &err), TP_OK);
	assert_int_equal(entries(), 1); /* the temporary file */
	tp_canvas_discard(cv);
	assert_int_equal(entries(), 0);
}

static void test_failed_drawing_keeps_old_target(void **state)
{
	char path[128], *text;
	tp_canvas *cv;
	tp_error err = {0};
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/old.png", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("previous report", f);
	fclose(f);
	assert_int_equal(tp_canvas_open(path, 50, 50, &cv, &err), TP_OK);
	/* A restore without a save puts the context in an error state. */
	cairo_restore(tp_canvas_cairo(cv));
	assert_int_equal(tp_canvas_close(cv, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, path));
	assert_int_equal(entries(), 1);
	text = slurp(path);
	assert_string_equal(text, "previous report");
	free(text);
}

static void test_helpers(void **state)
{
	const char *name;
	char buf[32];

	(void)state;
	assert_true(tp_canvas_bytes_unit(1023, &name) == 1);
	assert_string_equal(name, "B");
	assert_true(tp_canvas_bytes_unit(5 << 20, &name) == 1 << 20);
	assert_string_equal(name, "MiB");
	tp_canvas_format_bytes(1536, buf, sizeof(buf));
	assert_string_equal(buf, "1.50 KiB");
	assert_true(tp_canvas_nice_step(47, 5) == 10);
	assert_true(tp_canvas_nice_step(6, 6) == 1);
	assert_true(tp_canvas_nice_step(0, 5) == 1);
}

/* Colour bars and explanations once read "1e+03 KiB": byte values are
 * fixed point on every edge of a unit, however large. */
static void test_format_bytes_fixed_point_on_unit_edges(void **state)
{
	static const struct {
		double bytes;
		const char *text;
	} cases[] = {
	    {0, "0 B"},
	    {999, "999 B"},
	    {1000, "1000 B"},
	    {1023, "1023 B"},
	    {1023.4, "1023 B"},
	    {1023.6, "1.00 KiB"}, /* would print as "1024 B" */
	    {1024, "1.00 KiB"},
	    {1536, "1.50 KiB"},
	    {10 * 1024, "10.0 KiB"},
	    {1000 * 1024, "1000 KiB"},
	    {1023 * 1024, "1023 KiB"},
	    {1023.9 * 1024, "1.00 MiB"}, /* would print as "1024 KiB" */
	    {9.999 * 1024, "10.0 KiB"},  /* not "10.00 KiB" */
	    {99.99 * 1024, "100 KiB"},   /* not "100.0 KiB" */
	    {1000.0 * 1048576, "1000 MiB"},
	    {1023.0 * 1073741824.0, "1023 GiB"},
	    {1125899906842624.0, "1.00 PiB"},
	    {1000 * 1125899906842624.0, "1000 PiB"},
	    {5e20, "444089 PiB"}, /* past the last unit the number grows */
	    {-2048, "-2.00 KiB"},
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tp_canvas_format_bytes(cases[i].bytes, buf, sizeof(buf));
		if (strcmp(buf, cases[i].text) != 0)
			fail_msg("%.17g bytes: \"%s\", expected \"%s\"",
			         cases[i].bytes, buf, cases[i].text);
	}
	/* Never an exponent, from 0 to far past PiB. */
	for (double b = 0; b < 1e24; b = b * 1.37 + 1) {
		tp_canvas_format_bytes(b, buf, sizeof(buf));
		if (strpbrk(buf, "eE+") != NULL)
			fail_msg("%.17g bytes printed as \"%s\"", b, buf);
	}
	tp_canvas_format_bytes(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "? B");
	tp_canvas_format_bytes(INFINITY, buf, sizeof(buf));
	assert_string_equal(buf, "? B");
}

/* Job colours: 64 jobs in one picture must each get their own, none grey. */
static void test_categories_distinct_and_never_grey(void **state)
{
	const tp_rgb idle = {0.90, 0.90, 0.90}, white = {1, 1, 1};
	double closest = INFINITY;

	(void)state;
	for (uint32_t i = 0; i < TP_CANVAS_CATEGORIES; i++) {
		tp_rgb c = tp_canvas_category(i);

		assert_true(c.r >= 0 && c.r <= 1 && c.g >= 0 && c.g <= 1 &&
		            c.b >= 0 && c.b <= 1);
		if (colour_chroma(c) < 20)
			fail_msg("category %u (%.3f %.3f %.3f) is nearly grey",
			         i, c.r, c.g, c.b);
		if (colour_distance(c, idle) < 25 ||
		    colour_distance(c, white) < 25)
			fail_msg("category %u is close to idle grey or white",
			         i);
		for (uint32_t j = 0; j < i; j++) {
			double d = colour_distance(c, tp_canvas_category(j));

			if (d < 9)
				fail_msg("categories %u and %u look alike "
				         "(delta E %.1f)",
				         j, i, d);
			closest = fmin(closest, d);
		}
	}
	print_message("closest two of %u categories: delta E %.1f\n",
	              TP_CANVAS_CATEGORIES, closest);
	/* The first colours stay the colour-blind-safe Okabe-Ito ones. */
	assert_true(
	    same_colour(tp_canvas_category(0), (tp_rgb){0.902, 0.624, 0.000}));
	assert_true(
	    same_colour(tp_canvas_category(4), (tp_rgb){0.000, 0.447, 0.698}));
	/* Past the distinct ones they repeat. */
	assert_true(same_colour(tp_canvas_category(TP_CANVAS_CATEGORIES + 9),
	                        tp_canvas_category(9)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_png_has_requested_size, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_svg_by_extension_any_case,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_unknown_extension_refused_naming_the_path, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_size_limits, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_missing_directory_named_in_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_discard_leaves_nothing, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(
	        test_failed_drawing_keeps_old_target, setup, teardown),
	    cmocka_unit_test(test_helpers),
	    cmocka_unit_test(test_format_bytes_fixed_point_on_unit_edges),
	    cmocka_unit_test(test_categories_distinct_and_never_grey),
	};
	int failed;

	test_fonts_begin();
	failed = cmocka_run_group_tests(tests, NULL, NULL);

	test_fonts_end();
	return failed;
}
