/*
 * test_fabric_view.c: the fabric view draws one stroke per link direction,
 * the two strokes of a link apart even in a dense 4x18x18 tree, colours
 * hosts by job (a distinct colour per job, "+N more" in a full legend) and
 * loaded link directions darker by their bytes, aggregates large fabrics by
 * leaf keeping every switch-to-switch link and labelling the levels, writes
 * PNGs of the asked size, and refuses bad jobs with one clear error and no
 * file.
 */
#include "tp_config.h"

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "discover.h"
#include "fabric.h"
#include "fabric_view.h"
#include "traffic.h"

#ifndef TP_TOP_SRCDIR
#define TP_TOP_SRCDIR "."
#endif

static tp_fabric *load(const char *name)
{
	char path[4096];
	const char *top = getenv("abs_top_srcdir");
	tp_fabric *f = NULL;
	tp_error err = {0};

	snprintf(path, sizeof(path), "%s/tests/data/fabric/%s",
	         top != NULL ? top : TP_TOP_SRCDIR, name);
	if (tp_discover_load_cache(path, NULL, &f, &err) != TP_OK)
		fail_msg("%s", err.message);
	return f;
}

/* A scratch directory per test, removed with what is left in it. */
struct scratch {
	char dir[64];
	char path[128];
};

static void scratch_open(struct scratch *s, const char *file)
{
	snprintf(s->dir, sizeof(s->dir), "/tmp/test_fabric_view.XXXXXX");
	if (mkdtemp(s->dir) == NULL)
		fail_msg("mkdtemp failed");
	snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, file);
}

static unsigned scratch_entries(const struct scratch *s)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void scratch_close(struct scratch *s)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;
	char p[400];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", s->dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(s->dir);
}

static char *slurp(const char *path)
{
	FILE *in = fopen(path, "rb");
	char *buf;
	long len;

	assert_non_null(in);
	assert_int_equal(fseek(in, 0, SEEK_END), 0);
	len = ftell(in);
	assert_true(len > 0);
	rewind(in);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, in), (size_t)len);
	buf[len] = '\0';
	fclose(in);
	return buf;
}

/* ---- reading cairo's SVG back ----------------------------------------- */

/* One <path> with its own style: stroke width and colour, fill colour. */
struct elem {
	double stroke_width; /* 0: no stroke */
	bool has_stroke, has_fill;
	tp_rgb stroke, fill;
	bool segment;          /* its path is one straight "M x y L x y" */
	double x1, y1, x2, y2; /* that segment */
};

static bool parse_rgb(const char *s, tp_rgb *c)
{
	double r, g, b;

	if (sscanf(s, "rgb(%lf%%,%lf%%,%lf%%)", &r, &g, &b) != 3)
		return false;
	c->r = r / 100;
	c->g = g / 100;
	c->b = b / 100;
	return true;
}

static size_t svg_elements(const char *svg, struct elem **out)
{
	size_t n = 0, cap = 0;
	struct elem *v = NULL;

	for (const char *p = strstr(svg, "<path"); p != NULL;
	     p = strstr(p + 1, "<path")) {
		const char *end = strchr(p, '>'), *style, *q;
		struct elem e = {0};
		char buf[512];
		size_t len;

		assert_non_null(end);
		style = strstr(p, "style=\"");
		if (style == NULL || style > end)
			continue;
		style += 7;
		q = strchr(style, '"');
		len = (size_t)(q - style) < sizeof(buf) - 1
		          ? (size_t)(q - style)
		          : sizeof(buf) - 1;
		memcpy(buf, style, len);
		buf[len] = '\0';
		if ((q = strstr(buf, "stroke-width:")) != NULL)
			e.stroke_width = strtod(q + 13, NULL);
		for (q = strstr(buf, "stroke:rgb("); q; q = NULL)
			e.has_stroke = parse_rgb(q + 7, &e.stroke);
		for (q = strstr(buf, "fill:rgb("); q; q = NULL)
			e.has_fill = parse_rgb(q + 5, &e.fill);
		q = strstr(p, " d=\"");
		if (q != NULL && q < end) {
			char tail[8] = "";

			e.segment =
			    sscanf(q + 4, "M %lf %lf L %lf %lf %7s", &e.x1,
			           &e.y1, &e.x2, &e.y2, tail) == 5 &&
			    tail[0] == '"';
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[n++] = e;
	}
	*out = v;
	return n;
}

static bool same_rgb(tp_rgb a, tp_rgb b)
{
	return fabs(a.r - b.r) < 0.005 && fabs(a.g - b.g) < 0.005 &&
	       fabs(a.b - b.b) < 0.005;
}

static double luminance(tp_rgb c)
{
	return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

static size_t count_strokes(const struct elem *v, size_t n, double width)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i].has_stroke && fabs(v[i].stroke_width - width) < 1e-6;
	return k;
}

static size_t count_strokes_rgb(const struct elem *v, size_t n, double width,
                                tp_rgb c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i].has_stroke &&
		     fabs(v[i].stroke_width - width) < 1e-6 &&
		     same_rgb(v[i].stroke, c);
	return k;
}

static size_t count_fills(const struct elem *v, size_t n, tp_rgb c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i].has_fill && same_rgb(v[i].fill, c);
	return k;
}

static tp_traffic *traffic_of(uint32_t ranks, const uint32_t (*e)[3],
                              size_t count)
{
	tp_traffic *t;
	tp_error err = {0};

	assert_int_equal(tp_traffic_new(&t, ranks, &err), TP_OK);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(
		    tp_traffic_add(t, e[i][0], e[i][1], e[i][2], 1, &err),
		    TP_OK);
	tp_traffic_normalize(t);
	return t;
}

/* ---- tests ------------------------------------------------------------ */

static void test_svg_has_two_strokes_per_link_one_per_direction(void **state)
{
	static const char *const caches[] = {
	    "fat-4x4.cache", "fat3-2x2x2.cache", "irregular.cache"};

	(void)state;
	for (size_t c = 0; c < 3; c++) {
		tp_fabric *f = load(caches[c]);
		tp_fabric_view_options o = {0};
		tp_fabric_view_stats st;
		tp_error err = {0};
		struct scratch s;
		struct elem *el;
		char *svg;
		size_t n;

		scratch_open(&s, "fabric.svg");
		o.path = s.path;
		assert_int_equal(
		    tp_fabric_view_render(f, NULL, NULL, 0, &o, &st, &err),
		    TP_OK);
		svg = slurp(s.path);
		n = svg_elements(svg, &el);
		assert_int_equal(
		    count_strokes(el, n, TP_FABRIC_VIEW_LINK_STROKE),
		    2 * tp_fabric_link_count(f));
		assert_int_equal(st.link_elements, 2 * tp_fabric_link_count(f));
		/* idle: every one of them light grey */
		assert_int_equal(count_strokes_rgb(el, n,
		                                   TP_FABRIC_VIEW_LINK_STROKE,
		                                   TP_FABRIC_VIEW_IDLE_LINK),
		                 2 * tp_fabric_link_count(f));
		assert_int_equal(
		    count_strokes(el, n, TP_FABRIC_VIEW_BUNDLE_STROKE), 0);
		assert_false(st.aggregated);
		assert_true(st.modelled_routes);
		assert_non_null(strstr(svg, "<svg"));
		free(el);
		free(svg);
		scratch_close(&s);
		tp_fabric_free(f);
	}
}

static void test_hosts_are_filled_with_their_jobs_colour(void **state)
{
	static const char *const a[] = {"n0001", "n0002", "n0003", "n0004"};
	static const char *const b[] = {"n0009", "n0010"};
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_job jobs[2] = {{"alpha", a, 4, NULL, NULL, 0},
	                              {"beta", b, 2, NULL, NULL, 0}};
	tp_fabric_view_options o = {0};
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	char *svg;
	size_t n;

	(void)state;
	scratch_open(&s, "jobs.svg");
	o.path = s.path;
	assert_int_equal(
	    tp_fabric_view_render(f, NULL, jobs, 2, &o, NULL, &err), TP_OK);
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	/* each host box, plus the job's legend swatch */
	assert_int_equal(count_fills(el, n, tp_canvas_category(0)), 4 + 1);
	assert_int_equal(count_fills(el, n, tp_canvas_category(1)), 2 + 1);
	assert_int_equal(count_fills(el, n, TP_FABRIC_VIEW_IDLE_HOST),
	                 16 - 6 + 1);
	free(el);
	free(svg);
	scratch_close(&s);
	tp_fabric_free(f);
}

static void test_loaded_directions_are_darker_by_their_bytes(void **state)
{
	/* rank 0 on n0001 sends 1 MB to rank 1 on n0005 (another leaf:
	 * host up, leaf up, spine down, host down); rank 2 on n0002 sends
	 * half as much to rank 3 on n0003 (same leaf: host up, host down). */
	static const char *const hosts[] = {"n0001", "n0005", "n0002", "n0003"};
	static const uint32_t e[][3] = {{0, 1, 1000000}, {2, 3, 500000}};
	static const uint32_t rank_host[] = {0, 1, 2, 3};
	tp_fabric *f = load("fat-4x4.cache");
	tp_traffic *t = traffic_of(4, e, 2);
	tp_fabric_view_job job = {"stencil", hosts, 4, t, rank_host, 4};
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	char *svg;
	size_t n, loaded = 0;

	(void)state;
	scratch_open(&s, "load.svg");
	o.path = s.path;
	assert_int_equal(tp_fabric_view_render(f, NULL, &job, 1, &o, &st, &err),
	                 TP_OK);
	assert_int_equal(st.loaded_directions, 6);
	assert_int_equal(st.max_bytes, 1000000);
	assert_true(st.modelled_routes);
	assert_true(st.busiest[0] != '\0');
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	assert_int_equal(count_strokes_rgb(el, n, TP_FABRIC_VIEW_LINK_STROKE,
	                                   tp_canvas_scale(1.0)),
	                 4);
	assert_int_equal(count_strokes_rgb(el, n, TP_FABRIC_VIEW_LINK_STROKE,
	                                   tp_canvas_scale(0.6)),
	                 2);
	for (size_t i = 0; i < n; i++) {
		if (!el[i].has_stroke ||
		    fabs(el[i].stroke_width - TP_FABRIC_VIEW_LINK_STROKE) >
		        1e-6 ||
		    same_rgb(el[i].stroke, TP_FABRIC_VIEW_IDLE_LINK))
			continue;
		loaded++;
		assert_true(luminance(el[i].stroke) <
		            luminance(TP_FABRIC_VIEW_IDLE_LINK));
	}
	assert_int_equal(loaded, 6);
	assert_int_equal(count_strokes(el, n, TP_FABRIC_VIEW_LINK_STROKE),
	                 2 * tp_fabric_link_count(f));
	/* the caption names the routes' source */
	assert_non_null(strstr(svg, "<svg"));
	free(el);
	free(svg);
	scratch_close(&s);
	tp_traffic_free(t);
	tp_fabric_free(f);
}

/*
 * A host link carries all of its host's traffic, so on one scale the
 * switch links sat in its pale end.  Here n0001 sends 1 MB to n0002 on its
 * own leaf and n0003 1 kB to n0005 on another: the busiest switch link
 * (1 kB) is as dark as the busiest host link (1 MB), each on its own scale,
 * and the legend draws both scales.
 */
static void test_switch_and_host_links_have_scales_of_their_own(void **state)
{
	static const char *const hosts[] = {"n0001", "n0002", "n0003",
	                                    "n0005"};
	static const uint32_t e[][3] = {{0, 1, 1000000}, {2, 3, 1000}};
	static const uint32_t rank_host[] = {0, 1, 2, 3};
	tp_fabric *f = load("fat-4x4.cache");
	tp_traffic *t = traffic_of(4, e, 2);
	tp_fabric_view_job job = {"mixed", hosts, 4, t, rank_host, 4};
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	char *svg;
	size_t n;

	(void)state;
	scratch_open(&s, "scales.svg");
	o.path = s.path;
	assert_int_equal(tp_fabric_view_render(f, NULL, &job, 1, &o, &st, &err),
	                 TP_OK);
	assert_int_equal(st.max_bytes, 1000000);
	assert_int_equal(st.max_host_bytes, 1000000);
	assert_int_equal(st.max_switch_bytes, 1000);
	assert_non_null(strstr(st.busiest_switch, "leaf"));
	assert_non_null(strstr(st.busiest_switch, "spine"));
	assert_non_null(strstr(st.caption, "busiest switch link: "));
	assert_int_equal(st.load_bars, 2);
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	/* darkest: n0001 up, leaf down to n0002 (1 MB of host links) and
	 * leaf up, spine down (1 kB, all the switch links carry) */
	assert_int_equal(count_strokes_rgb(el, n, TP_FABRIC_VIEW_LINK_STROKE,
	                                   tp_canvas_scale(1.0)),
	                 4);
	/* n0003's and n0005's host links: 1 kB of the host scale's 1 MB */
	assert_int_equal(count_strokes_rgb(el, n, TP_FABRIC_VIEW_LINK_STROKE,
	                                   tp_canvas_scale(0.2 + 0.8 * 1e-3)),
	                 2);
	free(el);
	free(svg);
	scratch_close(&s);
	tp_traffic_free(t);
	tp_fabric_free(f);
}

/*
 * Drawn host by host, the host links (a pair per host, side by side) read
 * as a slab as tall as the switch links above: their band is now under
 * half as tall as the leaf-to-spine links.
 */
static void test_per_host_band_shorter_than_switch_links(void **state)
{
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_options o = {0};
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	double bottom = -INFINITY, host_len = 0, switch_len = INFINITY;
	size_t n, hosts = 0, switches = 0;
	char *svg;

	(void)state;
	scratch_open(&s, "band.svg");
	o.path = s.path;
	o.aggregate = TP_FABRIC_VIEW_AGGREGATE_NEVER;
	assert_int_equal(
	    tp_fabric_view_render(f, NULL, NULL, 0, &o, NULL, &err), TP_OK);
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	for (size_t i = 0; i < n; i++)
		if (el[i].segment &&
		    fabs(el[i].stroke_width - TP_FABRIC_VIEW_LINK_STROKE) < 1e-6)
			bottom = fmax(bottom, fmax(el[i].y1, el[i].y2));
	for (size_t i = 0; i < n; i++) {
		double len = fabs(el[i].y2 - el[i].y1);

		if (!el[i].segment ||
		    fabs(el[i].stroke_width - TP_FABRIC_VIEW_LINK_STROKE) > 1e-6)
			continue;
		if (fabs(fmax(el[i].y1, el[i].y2) - bottom) < 0.5) {
			host_len = fmax(host_len, len);
			hosts++;
		} else {
			switch_len = fmin(switch_len, len);
			switches++;
		}
	}
	assert_int_equal(hosts, 2 * 16);
	assert_int_equal(switches, 2 * 8);
	if (!(host_len < 0.5 * switch_len))
		fail_msg("host links %.1f points tall, switch links %.1f",
		         host_len, switch_len);
	free(el);
	free(svg);
	scratch_close(&s);
	tp_fabric_free(f);
}

static void test_busiest_direction_is_the_one_the_route_uses(void **state)
{
	static const char *const hosts[] = {"n0001", "n0002"};
	static const uint32_t e[][3] = {{0, 1, 4096}};
	static const uint32_t rank_host[] = {0, 1};
	tp_fabric *f = load("fat-4x4.cache");
	tp_traffic *t = traffic_of(2, e, 1);
	tp_fabric_view_job job = {"pair", hosts, 2, t, rank_host, 2};
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	const tp_fabric_port *p;

	(void)state;
	scratch_open(&s, "pair.png");
	o.path = s.path;
	assert_int_equal(tp_fabric_view_render(f, NULL, &job, 1, &o, &st, &err),
	                 TP_OK);
	/* same leaf: n0001's link up, then leaf001's port down to n0002 */
	assert_int_equal(st.loaded_directions, 2);
	assert_int_equal(st.max_bytes, 4096);
	p = tp_fabric_port_at(f, st.max_port);
	assert_true(!strcmp(tp_fabric_node_at(f, p->node)->name, "n0001") ||
	            !strcmp(tp_fabric_node_at(f, p->node)->name, "leaf001"));
	scratch_close(&s);
	tp_traffic_free(t);
	tp_fabric_free(f);
}

static void test_png_has_the_requested_size(void **state)
{
	tp_fabric *f = load("fat3-2x2x2.cache");
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	cairo_surface_t *img;

	(void)state;
	scratch_open(&s, "fabric.png");
	o.path = s.path;
	o.width = 640;
	o.height = 400;
	assert_int_equal(tp_fabric_view_render(f, NULL, NULL, 0, &o, &st, &err),
	                 TP_OK);
	assert_int_equal(st.width, 640);
	assert_int_equal(st.height, 400);
	img = cairo_image_surface_create_from_png(s.path);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(img), 640);
	assert_int_equal(cairo_image_surface_get_height(img), 400);
	cairo_surface_destroy(img);
	assert_int_equal(scratch_entries(&s), 1); /* no temporary left */
	scratch_close(&s);
	tp_fabric_free(f);
}

static void test_aggregated_view_keeps_switch_links_bundles_hosts(void **state)
{
	static const char *const a[] = {"n0001", "n0002", "n0003"};
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_job job = {"alpha", a, 3, NULL, NULL, 0};
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	uint32_t switch_links = 0;
	char *svg;
	size_t n;

	(void)state;
	for (uint32_t l = 0; l < tp_fabric_link_count(f); l++) {
		const tp_fabric_link *k = tp_fabric_link_at(f, l);

		switch_links +=
		    tp_fabric_node_at(f, k->node[0])->type != TP_FABRIC_CA &&
		    tp_fabric_node_at(f, k->node[1])->type != TP_FABRIC_CA;
	}
	assert_int_equal(switch_links, 8);
	scratch_open(&s, "agg.svg");
	o.path = s.path;
	o.aggregate = TP_FABRIC_VIEW_AGGREGATE_ALWAYS;
	assert_int_equal(tp_fabric_view_render(f, NULL, &job, 1, &o, &st, &err),
	                 TP_OK);
	assert_true(st.aggregated);
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	assert_int_equal(count_strokes(el, n, TP_FABRIC_VIEW_LINK_STROKE),
	                 2 * switch_links);
	assert_int_equal(count_strokes(el, n, TP_FABRIC_VIEW_BUNDLE_STROKE),
	                 2 * tp_fabric_leaf_count(f));
	/* leaf001's box: 3/4 alpha, 1/4 idle; legend swatches */
	assert_int_equal(count_fills(el, n, tp_canvas_category(0)), 1 + 1);
	free(el);
	free(svg);
	scratch_close(&s);
	tp_fabric_free(f);
}

/* A 2-level topology.conf: @leaves leaves of @hosts hosts under "root". */
static tp_fabric *conf_fabric(unsigned leaves, unsigned hosts)
{
	size_t cap = 64 + (size_t)leaves * 64, len = 0;
	char *text = malloc(cap);
	tp_fabric *f = NULL;
	tp_error err = {0};

	assert_non_null(text);
	for (unsigned k = 0; k < leaves; k++)
		len +=
		    (size_t)snprintf(text + len, cap - len,
		                     "SwitchName=leaf%03u Nodes=n[%04u-%04u]\n",
		                     k + 1, k * hosts + 1, (k + 1) * hosts);
	len += (size_t)snprintf(text + len, cap - len,
	                        "SwitchName=root Switches=leaf[001-%03u]\n",
	                        leaves);
	if (tp_discover_parse_topology_conf(text, len, "test.conf", &f, &err) !=
	    TP_OK)
		fail_msg("%s", err.message);
	free(text);
	return f;
}

static void test_1296_host_fabric_renders_aggregated(void **state)
{
	tp_fabric *f = conf_fabric(72, 18);
	static const uint32_t e[][3] = {{0, 1, 100}, {1, 0, 100}};
	static const uint32_t rank_host[] = {0, 1};
	static const char *const hosts[] = {"n0001", "n1296"};
	tp_traffic *t = traffic_of(2, e, 2);
	tp_fabric_view_job job = {"far", hosts, 2, t, rank_host, 2};
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;

	(void)state;
	assert_int_equal(tp_fabric_host_count(f), 1296);
	scratch_open(&s, "big.svg");
	o.path = s.path;
	assert_int_equal(tp_fabric_view_render(f, NULL, &job, 1, &o, &st, &err),
	                 TP_OK);
	assert_true(st.aggregated);
	assert_int_equal(st.link_elements, 2 * 72);
	assert_int_equal(st.bundle_elements, 2 * 72);
	/* n0001 up, leaf001 up, root down to leaf072, n1296 down; and back */
	assert_int_equal(st.loaded_directions, 8);
	scratch_close(&s);
	tp_traffic_free(t);
	tp_fabric_free(f);
}

/*
 * The fat tree `topoplace report fabric --fabric PxLxH` draws (tools/cli.c
 * builds the same one): P pods of L leaves of H hosts, H aggregation
 * switches per pod cabled to every leaf of the pod, H cores, aggregation
 * switch j of every pod cabled to core j.
 */
static tp_fabric *fattree3(uint32_t P, uint32_t L, uint32_t H)
{
	uint32_t leaves = P * L, aggs = P * H, ca, *leaf, *agg, *core;
	tp_fabric *f = NULL;
	tp_error err = {0};
	char name[32];

	leaf = calloc(leaves, sizeof(*leaf));
	agg = calloc(aggs, sizeof(*agg));
	core = calloc(H, sizeof(*core));
	assert_true(leaf && agg && core);
	assert_int_equal(tp_fabric_new(&f, "test fat tree", true, &err), TP_OK);
	for (uint32_t k = 0; k < leaves; k++) {
		snprintf(name, sizeof(name), "leaf%03u", k + 1);
		assert_int_equal(tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0,
		                                    2 * H, name, &leaf[k],
		                                    &err),
		                 TP_OK);
	}
	for (uint32_t a = 0; a < aggs; a++) {
		snprintf(name, sizeof(name), "agg%03u", a + 1);
		assert_int_equal(tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0,
		                                    L + 1, name, &agg[a], &err),
		                 TP_OK);
	}
	for (uint32_t c = 0; c < H; c++) {
		snprintf(name, sizeof(name), "core%03u", c + 1);
		assert_int_equal(tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0, P,
		                                    name, &core[c], &err),
		                 TP_OK);
	}
	for (uint32_t h = 0; h < leaves * H; h++) {
		snprintf(name, sizeof(name), "n%04u HCA-1", h + 1);
		assert_int_equal(
		    tp_fabric_add_node(f, TP_FABRIC_CA, 0, 1, name, &ca, &err),
		    TP_OK);
		assert_int_equal(tp_fabric_link_ports(f, leaf[h / H], h % H + 1,
		                                      ca, 1, &err),
		                 TP_OK);
	}
	for (uint32_t k = 0; k < leaves; k++)
		for (uint32_t j = 0; j < H; j++)
			assert_int_equal(
			    tp_fabric_link_ports(f, leaf[k], H + j + 1,
			                         agg[k / L * H + j], k % L + 1,
			                         &err),
			    TP_OK);
	for (uint32_t a = 0; a < aggs; a++)
		assert_int_equal(tp_fabric_link_ports(f, agg[a], L + 1,
		                                      core[a % H], a / H + 1,
		                                      &err),
		                 TP_OK);
	assert_int_equal(tp_fabric_finish(f, NULL, &err), TP_OK);
	free(leaf);
	free(agg);
	free(core);
	return f;
}

static bool is_link_width(double w)
{
	return fabs(w - TP_FABRIC_VIEW_LINK_STROKE) < 1e-6 ||
	       fabs(w - TP_FABRIC_VIEW_LINK_STROKE_THIN) < 1e-6 ||
	       fabs(w - TP_FABRIC_VIEW_BUNDLE_STROKE) < 1e-6;
}

/*
 * Pair up the direction strokes in @svg and check each pair stays apart:
 * the partner of a stroke is the parallel stroke of the same width and
 * length whose ends are shifted from it at right angles only (what the two
 * directions of one link are); the distance of their centre lines must be
 * at least 1.5 stroke widths, else the two read as one line.  Returns the
 * strokes checked; *worst gets the smallest distance / width seen.
 */
static size_t check_stroke_pairs(const char *svg, double *worst)
{
	struct elem *el;
	size_t n = svg_elements(svg, &el), checked = 0;

	*worst = INFINITY;
	for (size_t i = 0; i < n; i++) {
		double dx, dy, len, best = INFINITY;

		if (!el[i].has_stroke || !is_link_width(el[i].stroke_width))
			continue;
		if (!el[i].segment)
			fail_msg("link stroke %zu is not one straight segment",
			         i);
		dx = el[i].x2 - el[i].x1;
		dy = el[i].y2 - el[i].y1;
		len = hypot(dx, dy);
		assert_true(len > 0);
		for (size_t j = 0; j < n; j++) {
			double ox, oy, along, across;

			if (j == i || !el[j].segment ||
			    fabs(el[j].stroke_width - el[i].stroke_width) >
			        1e-6 ||
			    fabs(el[j].x2 - el[j].x1 - dx) > 0.01 ||
			    fabs(el[j].y2 - el[j].y1 - dy) > 0.01)
				continue;
			ox = el[j].x1 - el[i].x1;
			oy = el[j].y1 - el[i].y1;
			along = (ox * dx + oy * dy) / len;
			across = fabs(ox * dy - oy * dx) / len;
			if (fabs(along) < 0.01)
				best = fmin(best, across);
		}
		if (!isfinite(best))
			fail_msg("stroke %zu (%.2f,%.2f)-(%.2f,%.2f) has no "
			         "partner for the other direction",
			         i, el[i].x1, el[i].y1, el[i].x2, el[i].y2);
		if (best < 1.5 * el[i].stroke_width)
			fail_msg("strokes of one link overlap: centre lines "
			         "%.3f apart, stroke width %.3f, at "
			         "(%.2f,%.2f)-(%.2f,%.2f)",
			         best, el[i].stroke_width, el[i].x1, el[i].y1,
			         el[i].x2, el[i].y2);
		*worst = fmin(*worst, best / el[i].stroke_width);
		checked++;
	}
	free(el);
	return checked;
}

static void test_dense_4x18x18_keeps_both_directions_apart(void **state)
{
	/* The automatic size, and a size asked for that is too small to
	 * widen: 1,296 hosts aggregated by leaf, 18 aggregation links per
	 * leaf box. */
	static const uint32_t sizes[][2] = {{0, 0}, {1600, 900}};
	tp_fabric *f = fattree3(4, 18, 18);

	(void)state;
	assert_int_equal(tp_fabric_host_count(f), 1296);
	for (size_t k = 0; k < 2; k++) {
		tp_fabric_view_options o = {0};
		tp_fabric_view_stats st;
		tp_error err = {0};
		struct scratch s;
		double worst;
		size_t checked;
		char *svg;

		scratch_open(&s, "dense.svg");
		o.path = s.path;
		o.width = sizes[k][0];
		o.height = sizes[k][1];
		assert_int_equal(
		    tp_fabric_view_render(f, NULL, NULL, 0, &o, &st, &err),
		    TP_OK);
		assert_true(st.aggregated);
		/* 72 x 18 leaf links and 72 core links, 72 host bundles */
		assert_int_equal(st.link_elements, 2 * (72 * 18 + 72));
		assert_int_equal(st.bundle_elements, 2 * 72);
		svg = slurp(s.path);
		checked = check_stroke_pairs(svg, &worst);
		assert_int_equal(checked,
		                 st.link_elements + st.bundle_elements);
		print_message("%ux%u: %u of %u link strokes thin; closest "
		              "pair %.2f stroke widths apart\n",
		              st.width, st.height, st.thin_elements,
		              st.link_elements, worst);
		free(svg);
		scratch_close(&s);
	}
	tp_fabric_free(f);
}

/* Render that must fail: the code, a message with @want, no file at all. */
static void expect_error(const tp_fabric *f, const tp_fabric_view_job *jobs,
                         size_t count, const char *file, tp_status code,
                         const char *want1, const char *want2)
{
	tp_fabric_view_options o = {0};
	tp_error err = {0};
	struct scratch s;

	scratch_open(&s, file);
	o.path = s.path;
	assert_int_equal(
	    tp_fabric_view_render(f, NULL, jobs, count, &o, NULL, &err), code);
	if (strstr(err.message, want1) == NULL ||
	    strstr(err.message, want2) == NULL)
		fail_msg("message '%s' lacks '%s' or '%s'", err.message, want1,
		         want2);
	assert_null(strchr(err.message, '\n'));
	assert_int_equal(scratch_entries(&s), 0);
	scratch_close(&s);
}

static void test_twelve_jobs_get_twelve_colours_none_idle(void **state)
{
	static const char *const names[] = {"n0001", "n0002", "n0003", "n0004",
	                                    "n0005", "n0006", "n0007", "n0008",
	                                    "n0009", "n0010", "n0011", "n0012"};
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_job jobs[12];
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	char job_names[12][8];
	char *svg;
	size_t n;

	(void)state;
	for (int j = 0; j < 12; j++) {
		snprintf(job_names[j], sizeof(job_names[j]), "j%d", j + 1);
		jobs[j] = (tp_fabric_view_job){job_names[j], &names[j], 1,
		                               NULL,         NULL,      0};
	}
	scratch_open(&s, "twelve.svg");
	o.path = s.path;
	assert_int_equal(
	    tp_fabric_view_render(f, NULL, jobs, 12, &o, &st, &err), TP_OK);
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	for (int j = 0; j < 12; j++) {
		tp_rgb c = tp_canvas_category((uint32_t)j);

		/* its host's box, and its swatch when the legend names it */
		assert_int_equal(count_fills(el, n, c),
		                 1 + (j < (int)st.legend_jobs));
		assert_false(same_rgb(c, TP_FABRIC_VIEW_IDLE_HOST));
		for (int k = 0; k < j; k++)
			if (same_rgb(c, tp_canvas_category((uint32_t)k)))
				fail_msg("jobs %d and %d share a colour", k + 1,
				         j + 1);
	}
	/* the 4 idle hosts and the idle swatch */
	assert_int_equal(count_fills(el, n, TP_FABRIC_VIEW_IDLE_HOST), 4 + 1);
	assert_int_equal(st.legend_jobs, 12); /* short names: all fit */
	free(el);
	free(svg);
	scratch_close(&s);
	tp_fabric_free(f);
}

static void test_full_legend_names_what_fits_and_counts_the_rest(void **state)
{
	tp_fabric *f = conf_fabric(8, 8); /* 64 hosts */
	tp_fabric_view_job jobs[TP_FABRIC_VIEW_MAX_JOBS];
	char names[TP_FABRIC_VIEW_MAX_JOBS][48];
	const char *hosts[TP_FABRIC_VIEW_MAX_JOBS];
	char host_names[TP_FABRIC_VIEW_MAX_JOBS][8];
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	struct elem *el;
	size_t n, swatches = 0;
	char *svg;

	(void)state;
	for (uint32_t j = 0; j < TP_FABRIC_VIEW_MAX_JOBS; j++) {
		snprintf(names[j], sizeof(names[j]),
		         "a-job-with-a-rather-long-name-%02u", j + 1);
		snprintf(host_names[j], sizeof(host_names[j]), "n%04u", j + 1);
		hosts[j] = host_names[j];
		jobs[j] =
		    (tp_fabric_view_job){names[j], &hosts[j], 1, NULL, NULL, 0};
	}
	scratch_open(&s, "legend.svg");
	o.path = s.path;
	o.width = 1000;
	o.height = 600;
	assert_int_equal(tp_fabric_view_render(f, NULL, jobs,
	                                       TP_FABRIC_VIEW_MAX_JOBS, &o, &st,
	                                       &err),
	                 TP_OK);
	assert_true(st.legend_jobs > 0);
	assert_true(st.legend_jobs < TP_FABRIC_VIEW_MAX_JOBS);
	svg = slurp(s.path);
	n = svg_elements(svg, &el);
	/* every job's host box in its own colour; swatches for the named */
	for (uint32_t j = 0; j < TP_FABRIC_VIEW_MAX_JOBS; j++) {
		size_t k = count_fills(el, n, tp_canvas_category(j));

		assert_true(k >= 1);
		swatches += k - 1;
	}
	assert_int_equal(swatches, st.legend_jobs);
	free(el);
	free(svg);
	scratch_close(&s);
	tp_fabric_free(f);
}

/*
 * Where cairo placed each glyph of the picture's text (an SVG <use> of a
 * glyph at x, y): the count, and the extremes of x in @min_x, @max_x.
 */
static size_t svg_glyph_span(const char *svg, double *min_x, double *max_x)
{
	size_t n = 0;

	*min_x = INFINITY;
	*max_x = -INFINITY;
	for (const char *p = strstr(svg, "<use xlink:href=\"#glyph"); p;
	     p = strstr(p + 1, "<use xlink:href=\"#glyph")) {
		const char *x = strstr(p, " x=\""), *end = strchr(p, '>');

		assert_non_null(end);
		if (x == NULL || x > end)
			continue;
		*min_x = fmin(*min_x, strtod(x + 4, NULL));
		*max_x = fmax(*max_x, strtod(x + 4, NULL));
		n++;
	}
	return n;
}

/*
 * The note saying which stroke is which direction was cut at the right
 * edge of a 700-pixel picture and left out of narrower ones: it goes
 * beside the colour bar where it fits, else wrapped under it, and every
 * glyph of the picture stays inside it.
 */
static void test_direction_note_always_drawn_inside_the_picture(void **state)
{
	static const uint32_t widths[] = {1400, 700, 500, 300, 200};
	tp_fabric *f = conf_fabric(36, 18); /* 648 hosts */

	(void)state;
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		tp_fabric_view_options o = {0};
		tp_fabric_view_stats st;
		tp_error err = {0};
		struct scratch s;
		double lo, hi;
		char *svg;

		scratch_open(&s, "note.svg");
		o.path = s.path;
		o.width = widths[i];
		o.height = 500;
		o.aggregate = i % 2 ? TP_FABRIC_VIEW_AGGREGATE_ALWAYS
		                    : TP_FABRIC_VIEW_AGGREGATE_AUTO;
		assert_int_equal(
		    tp_fabric_view_render(f, NULL, NULL, 0, &o, &st, &err),
		    TP_OK);
		assert_true(st.note_lines >= 1);
		if (widths[i] >= 1400) {
			assert_false(st.note_below);
			assert_int_equal(st.note_lines, 1);
		} else {
			assert_true(st.note_below);
		}
		if (!(st.note_right > 0 && st.note_right <= widths[i]))
			fail_msg("%u pixels wide: the note ends at x = %.1f",
			         widths[i], st.note_right);
		svg = slurp(s.path);
		assert_true(svg_glyph_span(svg, &lo, &hi) > 0);
		if (lo < 0 || hi >= widths[i])
			fail_msg("%u pixels wide: glyphs from x = %.1f to %.1f",
			         widths[i], lo, hi);
		free(svg);
		scratch_close(&s);
	}
	tp_fabric_free(f);
}

/* A job named "idle" and the legend's entry for idle hosts never go by
 * one name. */
static void test_job_named_idle_is_told_from_idle_hosts(void **state)
{
	static const char *const a[] = {"n0001"};
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_job job = {"idle", a, 1, NULL, NULL, 0};
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;
	char buf[64];

	(void)state;
	tp_fabric_view_legend_name("idle", buf, sizeof(buf));
	assert_string_equal(buf, "job idle");
	tp_fabric_view_legend_name("IDLE", buf, sizeof(buf));
	assert_string_equal(buf, "job IDLE");
	tp_fabric_view_legend_name("idle (no job)", buf, sizeof(buf));
	assert_string_equal(buf, "job idle (no job)");
	tp_fabric_view_legend_name("idler", buf, sizeof(buf));
	assert_string_equal(buf, "idler");
	tp_fabric_view_legend_name("comd", buf, sizeof(buf));
	assert_string_equal(buf, "comd");
	scratch_open(&s, "idle.svg");
	o.path = s.path;
	assert_int_equal(tp_fabric_view_render(f, NULL, &job, 1, &o, &st, &err),
	                 TP_OK);
	assert_int_equal(st.legend_jobs, 1);
	scratch_close(&s);
	tp_fabric_free(f);
}

static void test_levels_labelled_and_caption_worded(void **state)
{
	tp_fabric *f = load("fat3-2x2x2.cache");
	tp_fabric_view_options o = {0};
	tp_fabric_view_stats st;
	tp_error err = {0};
	struct scratch s;

	(void)state;
	scratch_open(&s, "levels.svg");
	o.path = s.path;
	o.aggregate = TP_FABRIC_VIEW_AGGREGATE_ALWAYS;
	assert_int_equal(tp_fabric_view_render(f, NULL, NULL, 0, &o, &st, &err),
	                 TP_OK);
	/* cores, aggregation, leaves, hosts by leaf */
	assert_int_equal(st.level_labels, 4);
	assert_string_equal(st.caption, "no traffic given: every link idle; "
	                                "routes: modelled (D-mod-k, not read "
	                                "from the fabric)");
	o.aggregate = TP_FABRIC_VIEW_AGGREGATE_NEVER;
	assert_int_equal(tp_fabric_view_render(f, NULL, NULL, 0, &o, &st, &err),
	                 TP_OK);
	assert_int_equal(st.level_labels, 4);
	scratch_close(&s);
	tp_fabric_free(f);
}

static void test_job_host_not_in_fabric_is_named(void **state)
{
	static const char *const hosts[] = {"n0001", "n9999"};
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_job job = {"alpha", hosts, 2, NULL, NULL, 0};

	(void)state;
	expect_error(f, &job, 1, "x.svg", TP_ERR_NOTFOUND, "job alpha",
	             "host n9999 is not in the fabric");
	tp_fabric_free(f);
}

static void test_profile_ranks_differing_from_mapping_is_refused(void **state)
{
	static const char *const hosts[] = {"n0001", "n0002"};
	static const uint32_t e[][3] = {{0, 2, 10}};
	static const uint32_t rank_host[] = {0, 1};
	tp_fabric *f = load("fat-4x4.cache");
	tp_traffic *t = traffic_of(3, e, 1);
	tp_fabric_view_job job = {"alpha", hosts, 2, t, rank_host, 2};

	(void)state;
	expect_error(f, &job, 1, "x.png", TP_ERR_INVALID, "job alpha",
	             "the profile has 3 ranks but the mapping places 2");
	tp_traffic_free(t);
	tp_fabric_free(f);
}

static void test_empty_profile_is_refused(void **state)
{
	static const char *const hosts[] = {"n0001", "n0002"};
	static const uint32_t rank_host[] = {0, 1};
	tp_fabric *f = load("fat-4x4.cache");
	tp_traffic *t = traffic_of(2, NULL, 0);
	tp_fabric_view_job job = {"beta", hosts, 2, t, rank_host, 2};

	(void)state;
	expect_error(f, &job, 1, "x.svg", TP_ERR_INVALID, "job beta",
	             "the profile is empty");
	tp_traffic_free(t);
	tp_fabric_free(f);
}

static void test_unknown_image_type_is_refused(void **state)
{
	tp_fabric *f = load("fat-4x4.cache");

	(void)state;
	expect_error(f, NULL, 0, "x.jpg", TP_ERR_INVALID, "x.jpg",
	             "unknown image type");
	tp_fabric_free(f);
}

static void test_host_in_two_jobs_is_refused(void **state)
{
	static const char *const a[] = {"n0001", "n0002"};
	static const char *const b[] = {"n0002"};
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_job jobs[2] = {{"alpha", a, 2, NULL, NULL, 0},
	                              {"beta", b, 1, NULL, NULL, 0}};

	(void)state;
	expect_error(f, jobs, 2, "x.svg", TP_ERR_INVALID, "host n0002",
	             "jobs alpha and beta");
	tp_fabric_free(f);
}

static void test_rank_mapped_outside_the_job_is_refused(void **state)
{
	static const char *const hosts[] = {"n0001", "n0002"};
	static const uint32_t e[][3] = {{0, 1, 10}};
	static const uint32_t rank_host[] = {0, 2};
	tp_fabric *f = load("fat-4x4.cache");
	tp_traffic *t = traffic_of(2, e, 1);
	tp_fabric_view_job job = {"alpha", hosts, 2, t, rank_host, 2};

	(void)state;
	expect_error(f, &job, 1, "x.svg", TP_ERR_INVALID, "job alpha",
	             "rank 1 is mapped to host #2");
	tp_traffic_free(t);
	tp_fabric_free(f);
}

struct progress_log {
	unsigned calls;
	uint64_t last_done, last_total;
};

static void on_progress(void *ctx, const char *stage, uint64_t done,
                        uint64_t total)
{
	struct progress_log *p = ctx;

	assert_non_null(stage);
	assert_true(done <= total);
	p->calls++;
	p->last_done = done;
	p->last_total = total;
}

static void test_progress_reaches_its_total(void **state)
{
	tp_fabric *f = load("fat-4x4.cache");
	tp_fabric_view_options o = {0};
	struct progress_log log = {0};
	tp_error err = {0};
	struct scratch s;

	(void)state;
	scratch_open(&s, "p.svg");
	o.path = s.path;
	o.progress = on_progress;
	o.progress_ctx = &log;
	assert_int_equal(
	    tp_fabric_view_render(f, NULL, NULL, 0, &o, NULL, &err), TP_OK);
	assert_true(log.calls > 0);
	assert_int_equal(log.last_done, log.last_total);
	assert_int_equal(log.last_total, 2 * tp_fabric_link_count(f));
	scratch_close(&s);
	tp_fabric_free(f);
}

/*
 * Fontconfig 2.14 loses a block while parsing the system's configuration
 * (/etc/fonts/conf.d), which valgrind counts as a definite leak of this
 * test.  A minimal configuration (the system's fonts, no rules) keeps the
 * test hermetic and leak-free; a caller's FONTCONFIG_FILE wins.
 */
static char fonts_dir[64];

static void minimal_fontconfig(void)
{
	char path[128];
	FILE *out;

	if (getenv("FONTCONFIG_FILE") != NULL)
		return;
	snprintf(fonts_dir, sizeof(fonts_dir), "/tmp/test_fabric_view.XXXXXX");
	if (mkdtemp(fonts_dir) == NULL) {
		fonts_dir[0] = '\0';
		return;
	}
	snprintf(path, sizeof(path), "%s/fonts.conf", fonts_dir);
	out = fopen(path, "w");
	if (out == NULL)
		return;
	fputs("<?xml version=\"1.0\"?>\n<fontconfig>\n"
	      "  <dir>/usr/share/fonts</dir>\n</fontconfig>\n",
	      out);
	if (fclose(out) == 0)
		setenv("FONTCONFIG_FILE", path, 1);
}

static void minimal_fontconfig_remove(void)
{
	char path[128];

	if (fonts_dir[0] == '\0')
		return;
	snprintf(path, sizeof(path), "%s/fonts.conf", fonts_dir);
	unlink(path);
	rmdir(fonts_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_svg_has_two_strokes_per_link_one_per_direction),
	    cmocka_unit_test(test_hosts_are_filled_with_their_jobs_colour),
	    cmocka_unit_test(test_loaded_directions_are_darker_by_their_bytes),
	    cmocka_unit_test(test_busiest_direction_is_the_one_the_route_uses),
	    cmocka_unit_test(
	        test_switch_and_host_links_have_scales_of_their_own),
	    cmocka_unit_test(test_per_host_band_shorter_than_switch_links),
	    cmocka_unit_test(test_png_has_the_requested_size),
	    cmocka_unit_test(
	        test_aggregated_view_keeps_switch_links_bundles_hosts),
	    cmocka_unit_test(test_1296_host_fabric_renders_aggregated),
	    cmocka_unit_test(test_dense_4x18x18_keeps_both_directions_apart),
	    cmocka_unit_test(test_twelve_jobs_get_twelve_colours_none_idle),
	    cmocka_unit_test(
	        test_full_legend_names_what_fits_and_counts_the_rest),
	    cmocka_unit_test(test_levels_labelled_and_caption_worded),
	    cmocka_unit_test(test_job_named_idle_is_told_from_idle_hosts),
	    cmocka_unit_test(
	        test_direction_note_always_drawn_inside_the_picture),
	    cmocka_unit_test(test_job_host_not_in_fabric_is_named),
	    cmocka_unit_test(
	        test_profile_ranks_differing_from_mapping_is_refused),
	    cmocka_unit_test(test_empty_profile_is_refused),
	    cmocka_unit_test(test_unknown_image_type_is_refused),
	    cmocka_unit_test(test_host_in_two_jobs_is_refused),
	    cmocka_unit_test(test_rank_mapped_outside_the_job_is_refused),
	    cmocka_unit_test(test_progress_reaches_its_total),
	};
	int failed;

	minimal_fontconfig();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	/* cairo keeps font caches; free them so leak checkers see none */
	cairo_debug_reset_static_data();
	minimal_fontconfig_remove();
	return failed;
}
