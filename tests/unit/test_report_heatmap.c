/*
 * test_report_heatmap.c: ranks are ordered by the leaf and host each
 * mapping puts them on, large matrices are binned by summing, leaf
 * boundaries are where the leaf changes (thinned to every n'th when there
 * are many, the leaves named on the axes), the colour scale is shared and
 * logarithmic, one rectangle is drawn per non-zero cell and none for the
 * others, the colour bar is drawn (dark at the top, light at the bottom),
 * and the PNG has the asked size.
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

#include "heatmap.h"
#include "test_report_svg.h"

struct fixture {
	tp_topo *topo; /* 1 pod x 2 leaves x 2 hosts */
	tp_traffic *t; /* 4 ranks */
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	tp_error err;

	if (!f || tp_topo_new_fattree(&f->topo, 1, 2, 2, &err) != TP_OK ||
	    tp_traffic_new(&f->t, 4, &err) != TP_OK)
		return -1;
	tp_traffic_add(f->t, 0, 1, 10, 1, &err);
	tp_traffic_add(f->t, 1, 0, 1000, 1, &err);
	tp_traffic_add(f->t, 2, 3, 100000, 1, &err);
	tp_traffic_add(f->t, 3, 3, 7, 1, &err);
	tp_traffic_normalize(f->t);
	snprintf(f->dir, sizeof(f->dir), "/tmp/tp-heat-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd) != 0)
		return -1;
	tp_traffic_free(f->t);
	tp_topo_free(f->topo);
	free(f);
	return 0;
}

#define CELL(m, r, c) ((m).cells[(size_t)(r) * (m).bins + (c)])

static void test_ranks_ordered_by_leaf_of_their_host(void **state)
{
	struct fixture *f = *state;
	/* Ranks 0 and 2 on leaf 2 (hosts 2, 3), ranks 1 and 3 on leaf 1. */
	uint32_t map[4] = {2, 0, 3, 1};
	tp_heatmap m;
	tp_error err;

	assert_int_equal(tp_heatmap_compute(f->topo, f->t, map, TP_REPORT_RANKS,
	                                    64, &m, &err),
	                 TP_OK);
	assert_int_equal(m.items, 4);
	assert_int_equal(m.order[0], 1);
	assert_int_equal(m.order[1], 3);
	assert_int_equal(m.order[2], 0);
	assert_int_equal(m.order[3], 2);
	assert_int_equal(m.leaf_breaks, 1);
	assert_int_equal(m.leaf_starts[0], 2);
	assert_int_equal(m.bin, 1);
	/* rank 1 -> rank 0: row 0 (rank 1), column 2 (rank 0). */
	assert_int_equal(CELL(m, 0, 2), 1000);
	assert_int_equal(CELL(m, 3, 1), 100000); /* rank 2 -> rank 3 */
	assert_int_equal(CELL(m, 1, 1), 7);
	tp_heatmap_free(&m);
}

static void test_large_matrix_binned_by_summing(void **state)
{
	struct fixture *f = *state;
	uint32_t map[4] = {0, 1, 2, 3};
	tp_heatmap m;
	tp_error err;

	assert_int_equal(tp_heatmap_compute(f->topo, f->t, map, TP_REPORT_RANKS,
	                                    2, &m, &err),
	                 TP_OK);
	assert_int_equal(m.bin, 2);
	assert_int_equal(m.bins, 2);
	assert_int_equal(CELL(m, 0, 0), 1010);
	assert_int_equal(CELL(m, 1, 1), 100007);
	assert_int_equal(CELL(m, 0, 1), 0);
	tp_heatmap_free(&m);
}

static void test_nodes_sum_the_ranks_on_each_host(void **state)
{
	struct fixture *f = *state;
	uint32_t map[4] = {0, 0, 3, 3}; /* two hosts used */
	tp_heatmap m;
	tp_error err;

	assert_int_equal(tp_heatmap_compute(f->topo, f->t, map, TP_REPORT_NODES,
	                                    64, &m, &err),
	                 TP_OK);
	assert_int_equal(m.items, 2);
	assert_int_equal(m.order[0], 0);
	assert_int_equal(m.order[1], 3);
	assert_int_equal(CELL(m, 0, 0), 1010);
	assert_int_equal(CELL(m, 1, 1), 100007);
	tp_heatmap_free(&m);
	map[3] = 9;
	assert_int_equal(tp_heatmap_compute(f->topo, f->t, map, TP_REPORT_NODES,
	                                    64, &m, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "rank 3"));
}

static void test_log_scale_spans_light_to_dark(void **state)
{
	tp_rgb lo, mid, hi;

	(void)state;
	lo = tp_heatmap_colour(10, 10, 1000);
	mid = tp_heatmap_colour(100, 10, 1000);
	hi = tp_heatmap_colour(1000, 10, 1000);
	/* Halfway in log is halfway along the scale. */
	assert_true(same_colour(mid, tp_canvas_scale(0.12 + 0.88 * 0.5)));
	assert_true(same_colour(hi, tp_canvas_scale(1)));
	assert_true(lo.g > mid.g && mid.g > hi.g); /* darker with bytes */
}

static void test_svg_one_rect_per_nonzero_cell_same_colours(void **state)
{
	struct fixture *f = *state;
	uint32_t block[4] = {0, 1, 2, 3}, other[4] = {2, 0, 3, 1};
	tp_heatmap a, b;
	tp_heatmap_panel panels[2];
	struct svg_fill *fills;
	char path[128];
	tp_error err;
	size_t n, cells[4] = {0};
	const double values[4] = {7, 10, 1000, 100000};

	assert_int_equal(tp_heatmap_compute(f->topo, f->t, block,
	                                    TP_REPORT_RANKS, 64, &a, &err),
	                 TP_OK);
	assert_int_equal(tp_heatmap_compute(f->topo, f->t, other,
	                                    TP_REPORT_RANKS, 64, &b, &err),
	                 TP_OK);
	panels[0] = (tp_heatmap_panel){"block", &a};
	panels[1] = (tp_heatmap_panel){"other", &b};
	snprintf(path, sizeof(path), "%s/h.svg", f->dir);
	assert_int_equal(
	    tp_heatmap_draw(path, 800, 400, "test", panels, 2, NULL, &err), TP_OK);
	n = svg_fills(path, &fills);
	/* Each value's colour on the shared scale (7 .. 100000) appears
	 * once per panel, as a cell; the colour bar's 64 steps are thinner
	 * than a cell and are told apart by their width. */
	for (size_t i = 0; i < n; i++) {
		if (fills[i].x1 - fills[i].x0 < 20)
			continue;
		for (int v = 0; v < 4; v++)
			if (same_colour(
			        fills[i].colour,
			        tp_heatmap_colour(values[v], 7, 100000)))
				cells[v]++;
	}
	for (int v = 0; v < 4; v++)
		assert_int_equal(cells[v], 2);
	{
		/* As many filled cells (squares wider than the colour bar)
		 * as the two maps have non-zero cells, no more. */
		size_t nonzero = 0, squares = 0, steps = 0;
		double bar_x = -1, last_y = -INFINITY, last_lum = -1;
		bool monotonic = true;

		for (size_t i = 0; i < (size_t)a.bins * a.bins; i++)
			nonzero += a.cells[i] != 0;
		for (size_t i = 0; i < (size_t)b.bins * b.bins; i++)
			nonzero += b.cells[i] != 0;
		assert_int_equal(nonzero, 8);
		for (size_t i = 0; i < n; i++) {
			double w = fills[i].x1 - fills[i].x0;
			double h = fills[i].y1 - fills[i].y0;

			if (w > 14.5 && fabs(w - h) < 0.01)
				squares++;
		}
		assert_int_equal(squares, nonzero);
		/* The colour bar: 64 steps of 14 points, one column, top to
		 * bottom, each lighter than the one above. */
		for (size_t i = 0; i < n; i++) {
			const struct svg_fill *step = &fills[i];
			double lum;

			if (fabs(step->x1 - step->x0 - 14) > 0.01)
				continue;
			if (bar_x < 0)
				bar_x = step->x0;
			assert_true(fabs(step->x0 - bar_x) < 0.01);
			lum = 0.2126 * step->colour.r +
			      0.7152 * step->colour.g + 0.0722 * step->colour.b;
			monotonic &=
			    step->y0 > last_y && lum >= last_lum - 1e-3;
			last_y = step->y0;
			last_lum = lum;
			steps++;
		}
		assert_int_equal(steps, 64);
		assert_true(monotonic);
		assert_true(bar_x > 700); /* right of both panels */
	}
	free(fills);
	snprintf(path, sizeof(path), "%s/h.png", f->dir);
	assert_int_equal(
	    tp_heatmap_draw(path, 700, 350, "test", panels, 2, NULL, &err), TP_OK);
	{
		int w, h;

		png_size(path, &w, &h);
		assert_int_equal(w, 700);
		assert_int_equal(h, 350);
	}
	tp_heatmap_free(&a);
	tp_heatmap_free(&b);
}

/* Grey leaf-boundary strokes cairo wrote into the SVG at @path. */
static size_t leaf_line_strokes(const char *path)
{
	char *svg = slurp(path);
	size_t n = 0;

	assert_non_null(svg);
	for (const char *p = strstr(svg, "stroke-width:0.6;"); p;
	     p = strstr(p + 1, "stroke-width:0.6;")) {
		const char *end = strchr(p, '"');

		n += end != NULL &&
		     strstr(p, "stroke:rgb(55%,55%,55%)") != NULL &&
		     strstr(p, "stroke:rgb(55%,55%,55%)") < end;
	}
	free(svg);
	return n;
}

/*
 * 114 leaves on a 468-point side were 113 lines 4 points apart: graph
 * paper.  Every 10th boundary is drawn now (41 points apart), ticked and
 * named on both axes, and the panel title says so.
 */
static void test_many_leaves_thin_lines_and_name_leaves(void **state)
{
	struct fixture *f = *state;
	tp_topo *topo;
	tp_traffic *t;
	uint32_t map[228];
	tp_heatmap m;
	tp_heatmap_panel panels[2];
	tp_heatmap_stats st;
	char path[128];
	tp_error err;

	assert_int_equal(tp_topo_new_fattree(&topo, 1, 114, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 228, &err), TP_OK);
	for (uint32_t r = 0; r < 228; r++) {
		map[r] = r;
		tp_traffic_add(t, r, (r + 1) % 228, 1000, 1, &err);
	}
	tp_traffic_normalize(t);
	assert_int_equal(tp_heatmap_compute(topo, t, map, TP_REPORT_RANKS,
	                                    tp_heatmap_max_bins(1200, 600, 2),
	                                    &m, &err),
	                 TP_OK);
	assert_int_equal(m.bin, 1);
	assert_int_equal(m.leaf_breaks, 113);
	assert_string_equal(m.leaf_names[0], "leaf001");
	assert_string_equal(m.leaf_names[113], "leaf114");
	panels[0] = (tp_heatmap_panel){"block", &m};
	panels[1] = (tp_heatmap_panel){"again", &m};
	snprintf(path, sizeof(path), "%s/many.svg", f->dir);
	assert_int_equal(
	    tp_heatmap_draw(path, 1200, 600, "test", panels, 2, &st, &err),
	    TP_OK);
	for (int p = 0; p < 2; p++) {
		assert_int_equal(st.leaf_stride[p], 10);
		assert_int_equal(st.leaf_lines[p], 11); /* leaf 11, 21, .. */
		/* names fit at some of the 12 ticks, never at none */
		assert_true(st.leaf_labels[p] >= 4);
		assert_true(st.leaf_labels[p] <= 12);
	}
	/* each drawn boundary once across and once down, per panel */
	assert_int_equal(leaf_line_strokes(path), 2 * 2 * 11);
	tp_heatmap_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/* Few leaves: every boundary, and every leaf named at its middle. */
static void test_few_leaves_all_lines_all_names(void **state)
{
	struct fixture *f = *state;
	uint32_t map[4] = {0, 1, 2, 3};
	tp_heatmap m;
	tp_heatmap_panel panel;
	tp_heatmap_stats st;
	char path[128];
	tp_error err;

	assert_int_equal(tp_heatmap_compute(f->topo, f->t, map, TP_REPORT_RANKS,
	                                    64, &m, &err),
	                 TP_OK);
	panel = (tp_heatmap_panel){"block", &m};
	snprintf(path, sizeof(path), "%s/few.svg", f->dir);
	assert_int_equal(
	    tp_heatmap_draw(path, 800, 400, "test", &panel, 1, &st, &err),
	    TP_OK);
	assert_int_equal(st.leaf_stride[0], 1);
	assert_int_equal(st.leaf_lines[0], 1);
	assert_int_equal(st.leaf_labels[0], 2);
	assert_int_equal(leaf_line_strokes(path), 2);
	tp_heatmap_free(&m);
}

static void test_max_bins_bounded(void **state)
{
	(void)state;
	assert_int_equal(tp_heatmap_max_bins(16000, 16000, 1), 256);
	assert_true(tp_heatmap_max_bins(400, 300, 2) >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranks_ordered_by_leaf_of_their_host),
	    cmocka_unit_test(test_large_matrix_binned_by_summing),
	    cmocka_unit_test(test_nodes_sum_the_ranks_on_each_host),
	    cmocka_unit_test(test_log_scale_spans_light_to_dark),
	    cmocka_unit_test(test_svg_one_rect_per_nonzero_cell_same_colours),
	    cmocka_unit_test(test_many_leaves_thin_lines_and_name_leaves),
	    cmocka_unit_test(test_few_leaves_all_lines_all_names),
	    cmocka_unit_test(test_max_bins_bounded),
	};
	int failed;

	test_fonts_begin();
	failed = cmocka_run_group_tests(tests, setup, teardown);

	test_fonts_end();
	return failed;
}
