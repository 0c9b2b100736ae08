/*
 * test_report_hops.c: the hop-class histogram counts each byte in the class
 * of its hop, sums many ranks into fewer bars, draws one rectangle per
 * non-zero (bar, class) in the class's colour plus one legend swatch per
 * class, draws every panel on the same y scale, and writes PNGs of the
 * asked size.
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

#include "hops.h"
#include "test_report_svg.h"

/* 2 pods x 2 leaves x 2 hosts; ranks 0..7 on hosts 0..7 (block). */
struct fixture {
	tp_topo *topo;
	tp_traffic *t, *t2;
	uint32_t rank_host[8];
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	tp_error err;

	if (!f || tp_topo_new_fattree(&f->topo, 2, 2, 2, &err) != TP_OK ||
	    tp_traffic_new(&f->t, 8, &err) != TP_OK ||
	    tp_traffic_new(&f->t2, 8, &err) != TP_OK)
		return -1;
	for (uint32_t r = 0; r < 8; r++)
		f->rank_host[r] = r;
	/* rank 0: 100 B on-node, 200 same leaf, 400 same pod, 800 across. */
	tp_traffic_add(f->t, 0, 0, 100, 1, &err);
	tp_traffic_add(f->t, 0, 1, 200, 1, &err);
	tp_traffic_add(f->t, 0, 2, 400, 1, &err);
	tp_traffic_add(f->t, 0, 4, 800, 1, &err);
	/* rank 5: 1000 B same leaf (host 4), rank 7: 50 B across pods. */
	tp_traffic_add(f->t, 5, 4, 1000, 1, &err);
	tp_traffic_add(f->t, 7, 0, 50, 1, &err);
	tp_traffic_normalize(f->t);
	/* t2 = t with every byte doubled. */
	for (size_t i = 0; i < f->t->count; i++)
		tp_traffic_add(f->t2, f->t->entries[i].src,
		               f->t->entries[i].dst, 2 * f->t->entries[i].bytes,
		               1, &err);
	tp_traffic_normalize(f->t2);
	snprintf(f->dir, sizeof(f->dir), "/tmp/tp-hops-XXXXXX");
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
	tp_traffic_free(f->t2);
	tp_topo_free(f->topo);
	free(f);
	return 0;
}

#define BYTES(b, bar, k) ((b).bytes[(size_t)(bar)*TP_COST_CLASSES + (k)])

static void test_bytes_land_in_their_hop_class(void **state)
{
	struct fixture *f = *state;
	tp_hops_bars b;
	tp_error err;

	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_RANKS, 100, &b, &err),
	                 TP_OK);
	assert_int_equal(b.bars, 8);
	assert_int_equal(b.per_bar, 1);
	assert_int_equal(BYTES(b, 0, TP_COST_ON_NODE), 100);
	assert_int_equal(BYTES(b, 0, TP_COST_SAME_LEAF), 200);
	assert_int_equal(BYTES(b, 0, TP_COST_SAME_POD), 400);
	assert_int_equal(BYTES(b, 0, TP_COST_OTHER_POD), 800);
	assert_int_equal(BYTES(b, 5, TP_COST_SAME_LEAF), 1000);
	assert_int_equal(BYTES(b, 7, TP_COST_OTHER_POD), 50);
	assert_int_equal(BYTES(b, 3, TP_COST_ON_NODE), 0);
	tp_hops_bars_free(&b);
}

static void test_many_ranks_summed_into_fewer_bars(void **state)
{
	struct fixture *f = *state;
	tp_hops_bars b;
	tp_error err;

	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_RANKS, 3, &b, &err),
	                 TP_OK);
	assert_int_equal(b.per_bar, 3); /* ceil(8 / 3) */
	assert_int_equal(b.bars, 3);
	assert_int_equal(BYTES(b, 0, TP_COST_OTHER_POD), 800);
	assert_int_equal(BYTES(b, 1, TP_COST_SAME_LEAF), 1000); /* rank 5 */
	assert_int_equal(BYTES(b, 2, TP_COST_OTHER_POD), 50);   /* rank 7 */
	tp_hops_bars_free(&b);
}

static void test_per_node_bars_follow_the_mapping(void **state)
{
	struct fixture *f = *state;
	/* Ranks 0 and 4 share host 0: 800 B become on-node. */
	uint32_t map[8] = {0, 1, 2, 3, 0, 5, 6, 7};
	tp_hops_bars b;
	tp_error err;

	assert_int_equal(
	    tp_hops_compute(f->topo, f->t, map, TP_REPORT_NODES, 100, &b, &err),
	    TP_OK);
	assert_int_equal(b.items, 7); /* host 4 unused */
	assert_int_equal(b.hosts[4], 5);
	assert_int_equal(BYTES(b, 0, TP_COST_ON_NODE), 900);
	/* rank 5 (host 5) -> rank 4 (host 0): across pods now. */
	assert_int_equal(BYTES(b, 4, TP_COST_OTHER_POD), 1000);
	tp_hops_bars_free(&b);
}

static void test_host_outside_fabric_refused_naming_rank(void **state)
{
	struct fixture *f = *state;
	uint32_t map[8] = {0, 1, 2, 3, 4, 5, 6, 99};
	tp_hops_bars b;
	tp_error err;

	assert_int_equal(
	    tp_hops_compute(f->topo, f->t, map, TP_REPORT_RANKS, 10, &b, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "rank 7"));
	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_RANKS, 0, &b, &err),
	                 TP_ERR_INVALID);
}

/* Filled rectangles of class @k inside the plots (below the legend). */
static size_t class_rects(const struct svg_fill *fills, size_t n, unsigned k,
                          int legend, double *heights, double split_x,
                          int right)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		int in_legend = fills[i].y1 <= 80;

		if (!same_colour(fills[i].colour, tp_canvas_category(k)) ||
		    in_legend != legend)
			continue;
		if (!legend && (fills[i].x0 >= split_x) != right)
			continue;
		if (heights)
			heights[count] = fills[i].y1 - fills[i].y0;
		count++;
	}
	return count;
}

static void test_svg_one_rect_per_bar_and_class(void **state)
{
	struct fixture *f = *state;
	tp_hops_bars b;
	tp_hops_panel panels[2];
	struct svg_fill *fills;
	char path[128];
	tp_error err;
	size_t n;

	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_RANKS, 100, &b, &err),
	                 TP_OK);
	panels[0] = (tp_hops_panel){"block", &b, f->topo};
	panels[1] = (tp_hops_panel){"copy", &b, f->topo};
	snprintf(path, sizeof(path), "%s/h.svg", f->dir);
	assert_int_equal(tp_hops_draw(path, 800, 400, "test", panels, 2, &err),
	                 TP_OK);
	n = svg_fills(path, &fills);
	for (unsigned k = 0; k < TP_COST_CLASSES; k++) {
		size_t nonzero = 0;

		for (uint32_t i = 0; i < b.bars; i++)
			nonzero += BYTES(b, i, k) != 0;
		assert_int_equal(class_rects(fills, n, k, 0, NULL, 400, 0),
		                 nonzero);
		assert_int_equal(class_rects(fills, n, k, 0, NULL, 400, 1),
		                 nonzero);
		assert_int_equal(class_rects(fills, n, k, 1, NULL, 400, 0), 1);
	}
	free(fills);
	tp_hops_bars_free(&b);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void test_panels_share_one_y_scale(void **state)
{
	struct fixture *f = *state;
	tp_hops_bars b1, b2;
	tp_hops_panel panels[2];
	struct svg_fill *fills;
	double left[8], right[8];
	char path[128];
	tp_error err;
	size_t n;

	/* The right panel carries twice the bytes: on one scale its
	 * rectangles are exactly twice as tall. */
	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_RANKS, 100, &b1, &err),
	                 TP_OK);
	assert_int_equal(tp_hops_compute(f->topo, f->t2, f->rank_host,
	                                 TP_REPORT_RANKS, 100, &b2, &err),
	                 TP_OK);
	panels[0] = (tp_hops_panel){"once", &b1, f->topo};
	panels[1] = (tp_hops_panel){"twice", &b2, f->topo};
	snprintf(path, sizeof(path), "%s/s.svg", f->dir);
	assert_int_equal(tp_hops_draw(path, 800, 400, "test", panels, 2, &err),
	                 TP_OK);
	n = svg_fills(path, &fills);
	for (unsigned k = 0; k < TP_COST_CLASSES; k++) {
		size_t a = class_rects(fills, n, k, 0, left, 400, 0);
		size_t c = class_rects(fills, n, k, 0, right, 400, 1);

		assert_int_equal(a, c);
		qsort(left, a, sizeof(double), cmp_double);
		qsort(right, c, sizeof(double), cmp_double);
		for (size_t i = 0; i < a; i++)
			assert_true(fabs(right[i] - 2 * left[i]) < 0.01);
	}
	free(fills);
	tp_hops_bars_free(&b1);
	tp_hops_bars_free(&b2);
}

static void test_aggregated_bars_drawn_as_mean_per_rank(void **state)
{
	struct fixture *f = *state;
	tp_hops_bars b;
	tp_hops_panel panel;
	struct svg_fill *fills;
	double h[4];
	char path[128];
	tp_error err;
	size_t n, count;

	/* 3 ranks per bar: bar 0 (ranks 0-2) sends 800 B across pods, the
	 * last bar (ranks 6, 7) 50 B: drawn as 800 / 3 and 50 / 2. */
	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_RANKS, 3, &b, &err),
	                 TP_OK);
	panel = (tp_hops_panel){"block", &b, f->topo};
	snprintf(path, sizeof(path), "%s/m.svg", f->dir);
	assert_int_equal(tp_hops_draw(path, 800, 400, "t", &panel, 1, &err),
	                 TP_OK);
	n = svg_fills(path, &fills);
	count = class_rects(fills, n, TP_COST_OTHER_POD, 0, h, 1e9, 0);
	assert_int_equal(count, 2);
	qsort(h, count, sizeof(double), cmp_double);
	assert_true(fabs(h[0] / h[1] - (50.0 / 2) / (800.0 / 3)) < 0.001);
	free(fills);
	tp_hops_bars_free(&b);
}

static void test_png_of_requested_size_and_small_size_refused(void **state)
{
	struct fixture *f = *state;
	tp_hops_bars b;
	tp_hops_panel panel;
	char path[128];
	tp_error err;
	int w, h;

	assert_int_equal(tp_hops_compute(f->topo, f->t, f->rank_host,
	                                 TP_REPORT_NODES, 100, &b, &err),
	                 TP_OK);
	panel = (tp_hops_panel){"block", &b, f->topo};
	snprintf(path, sizeof(path), "%s/h.png", f->dir);
	assert_int_equal(tp_hops_draw(path, 640, 480, "t", &panel, 1, &err),
	                 TP_OK);
	png_size(path, &w, &h);
	assert_int_equal(w, 640);
	assert_int_equal(h, 480);
	snprintf(path, sizeof(path), "%s/small.png", f->dir);
	assert_int_equal(tp_hops_draw(path, 399, 480, "t", &panel, 1, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "399x480 too small"));
	assert_int_equal(access(path, F_OK), -1);
	tp_hops_bars_free(&b);
}

static void test_max_bars_keeps_bars_visible(void **state)
{
	(void)state;
	/* 1200 px, 2 panels: about (600 - 78) / 5 bars each. */
	assert_int_equal(tp_hops_max_bars(1200, 2), 104);
	assert_int_equal(tp_hops_max_bars(10, 4), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bytes_land_in_their_hop_class),
	    cmocka_unit_test(test_many_ranks_summed_into_fewer_bars),
	    cmocka_unit_test(test_per_node_bars_follow_the_mapping),
	    cmocka_unit_test(test_host_outside_fabric_refused_naming_rank),
	    cmocka_unit_test(test_svg_one_rect_per_bar_and_class),
	    cmocka_unit_test(test_panels_share_one_y_scale),
	    cmocka_unit_test(test_aggregated_bars_drawn_as_mean_per_rank),
	    cmocka_unit_test(test_png_of_requested_size_and_small_size_refused),
	    cmocka_unit_test(test_max_bars_keeps_bars_visible),
	};
	int failed;

	test_fonts_begin();
	failed = cmocka_run_group_tests(tests, setup, teardown);

	test_fonts_end();
	return failed;
}
