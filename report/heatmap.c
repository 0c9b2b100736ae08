/*
 * heatmap.c: rank-by-rank / node-by-node traffic heatmaps.
 */
#include "tp_config.h"

#include "heatmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "chart.h"

void tp_heatmap_free(tp_heatmap *map)
{
	if (!map)
		return;
	free(map->order);
	free(map->cells);
	free(map->leaf_starts);
	if (map->leaf_names)
		for (uint32_t i = 0; i <= map->leaf_breaks; i++)
			free(map->leaf_names[i]);
	free(map->leaf_names);
	map->order = map->leaf_starts = NULL;
	map->cells = NULL;
	map->leaf_names = NULL;
}

/* A copy of leaf @leaf's name ("leaf N" when it has none); NULL: no
 * memory. */
static char *leaf_name(const tp_topo *topo, uint32_t leaf)
{
	const char *name = tp_topo_leaf_name(topo, leaf);
	char buf[32];

	if (name == NULL || name[0] == '\0') {
		snprintf(buf, sizeof(buf), "leaf %u", leaf + 1);
		name = buf;
	}
	return strdup(name);
}

struct place {
	uint32_t leaf, host, rank;
};

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

tp_status tp_heatmap_compute(const tp_topo *topo, const tp_traffic *traffic,
                             const uint32_t *rank_host, tp_report_unit unit,
                             uint32_t max_bins, tp_heatmap *map, tp_error *err)
{
	uint32_t nhosts = tp_topo_host_count(topo), n = 0;
	uint32_t *pos = NULL, prev_leaf = TP_TOPO_NONE;
	struct place *pl = NULL;

	memset(map, 0, sizeof(*map));
	map->unit = unit;
	if (max_bins == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "heatmap: at most 0 cells asked");
	for (uint32_t r = 0; r < traffic->ranks; r++)
		if (rank_host[r] >= nhosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "heatmap: rank %u on host %u, the "
			                    "fabric has %u hosts",
			                    r, rank_host[r], nhosts);
	pos = calloc(unit == TP_REPORT_NODES ? nhosts : traffic->ranks,
	             sizeof(*pos));
	pl = malloc(traffic->ranks * sizeof(*pl));
	if (!pos || !pl)
		goto nomem;
	if (unit == TP_REPORT_NODES) {
		/* pos[] marks used hosts first, then holds positions. */
		for (uint32_t r = 0; r < traffic->ranks; r++)
			pos[rank_host[r]] = 1;
		for (uint32_t h = 0; h < nhosts; h++)
			if (pos[h])
				pl[n++] = (struct place){
				    tp_topo_host_leaf(topo, h), h, 0};
	} else {
		for (uint32_t r = 0; r < traffic->ranks; r++)
			pl[n++] = (struct place){
			    tp_topo_host_leaf(topo, rank_host[r]), rank_host[r],
			    r};
	}
	qsort(pl, n, sizeof(*pl), cmp_place);
	map->items = n;
	map->order = malloc(n * sizeof(*map->order));
	map->leaf_starts = malloc((n + 1) * sizeof(*map->leaf_starts));
	map->leaf_names = calloc(n + 1, sizeof(*map->leaf_names));
	if (!map->order || !map->leaf_starts || !map->leaf_names)
		goto nomem;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t item =
		    unit == TP_REPORT_NODES ? pl[i].host : pl[i].rank;

		map->order[i] = item;
		pos[item] = i;
		if (i > 0 && pl[i].leaf != prev_leaf)
			map->leaf_starts[map->leaf_breaks++] = i;
		if (i == 0 || pl[i].leaf != prev_leaf) {
			map->leaf_names[map->leaf_breaks] =
			    leaf_name(topo, pl[i].leaf);
			if (!map->leaf_names[map->leaf_breaks])
				goto nomem;
		}
		prev_leaf = pl[i].leaf;
	}
	map->bin = (n + max_bins - 1) / max_bins;
	if (map->bin == 0)
		map->bin = 1;
	map->bins = (n + map->bin - 1) / map->bin;
	map->cells = calloc((size_t)map->bins * map->bins, sizeof(*map->cells));
	if (!map->cells)
		goto nomem;
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];
		uint32_t a =
		    unit == TP_REPORT_NODES ? rank_host[e->src] : e->src;
		uint32_t b =
		    unit == TP_REPORT_NODES ? rank_host[e->dst] : e->dst;
		uint64_t *cell =
		    &map->cells[(size_t)(pos[a] / map->bin) * map->bins +
		                pos[b] / map->bin];

		*cell = sat_add(*cell, e->bytes);
	}
	free(pos);
	free(pl);
	return TP_OK;
nomem:
	free(pos);
	free(pl);
	tp_heatmap_free(map);
	return tp_error_set(err, TP_ERR_NOMEM,
	                    "heatmap: out of memory for %u ranks",
	                    traffic->ranks);
}

#define TOP_MARGIN    92.0
#define BOTTOM_MARGIN 40.0
#define LEFT_MARGIN   40.0
#define SCALE_WIDTH   96.0

static double plot_side(uint32_t width, uint32_t height, uint32_t panels)
{
	double pw = (width - SCALE_WIDTH) / (panels ? panels : 1);
	double s =
	    fmin(pw - LEFT_MARGIN - 14, height - TOP_MARGIN - BOTTOM_MARGIN);

	return s > 1 ? s : 1;
}

uint32_t tp_heatmap_max_bins(uint32_t width, uint32_t height, uint32_t panels)
{
	/* Cells of 2 px at least, at most 256 a side: beyond that the file
	 * grows and the eye gains nothing. */
	double cells = plot_side(width, height, panels) / 2;

	return cells < 1 ? 1 : cells > 256 ? 256 : (uint32_t)cells;
}

tp_rgb tp_heatmap_colour(double bytes, double lo, double hi)
{
	double t = hi > lo ? (log(bytes) - log(lo)) / (log(hi) - log(lo)) : 1.0;

	/* Start a little above the lightest colour: the smallest non-zero
	 * cell must not vanish into the white of empty ones. */
	return tp_canvas_scale(0.12 + 0.88 * t);
}

static const tp_rgb ink = {0, 0, 0};
static const tp_rgb leaf_line = {0.55, 0.55, 0.55};

/*
 * Every @stride'th leaf boundary is drawn: the smallest of 1, 2, 5, 10,
 * 20, 50, ... that puts lines TP_HEATMAP_LINE_GAP apart on average over a
 * side of @side points holding @runs leaves.
 */
static uint32_t leaf_stride(double side, uint32_t runs)
{
	static const uint32_t steps[] = {1, 2, 5};
	double pitch = side / (runs ? runs : 1);

	for (uint32_t mag = 1; mag < UINT32_MAX / 10; mag *= 10)
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			if (steps[i] * mag * pitch >= TP_HEATMAP_LINE_GAP ||
			    steps[i] * mag >= runs)
				return steps[i] * mag;
	return runs;
}

/* Where run @r of @m starts along a side, in points from the corner. */
static double run_at(const tp_heatmap *m, uint32_t r, double cw)
{
	if (r == 0)
		return 0;
	if (r > m->leaf_breaks)
		return (double)m->items / m->bin * cw;
	return (double)m->leaf_starts[r - 1] / m->bin * cw;
}

/*
 * One leaf name along both axes, centred at @at points along them: under
 * the panel (horizontal) and left of it (rotated like the axis title).
 */
static void axis_label(tp_canvas *cv, double x0, double y0, double side,
                       double at, double size, const char *name)
{
	tp_canvas_set_rgb(cv, ink);
	tp_canvas_text(cv, x0 + at, y0 + side + 4 + size, size,
	               TP_ALIGN_CENTER, 0, name);
	tp_canvas_text(cv, x0 - 4, y0 + at, size, TP_ALIGN_CENTER, -M_PI / 2,
	               name);
}

/*
 * Leaf boundaries and leaf names on the axes of panel @p.  With stride 1
 * every boundary is drawn and each name is centred on its leaf's span;
 * with a larger stride the drawn boundaries are ticked on the axes and a
 * name says which leaf starts there.  Names that would run into the one
 * before (or out of the side) are left out.  Returns the stride; counts
 * the lines and names in @lines and @labels.
 */
static uint32_t draw_leaf_axes(tp_canvas *cv, const tp_heatmap *m, double x0,
                               double y0, double side, uint32_t *lines,
                               uint32_t *labels)
{
	const double size = 9, tick = 4;
	double cw = side / m->bins, last_end = -INFINITY, last_line = 0;
	uint32_t runs = m->leaf_breaks + 1, stride = leaf_stride(side, runs);

	*lines = *labels = 0;
	for (uint32_t r = 0; r < runs; r += stride) {
		double a = run_at(m, r, cw), at = a, w;

		if (r > 0) {
			/* a short leaf can bring two strided lines close */
			if (a - last_line < TP_HEATMAP_LINE_GAP / 2)
				continue;
			tp_canvas_line(cv, x0 + a, y0, x0 + a, y0 + side, 0.6,
			               leaf_line, 0);
			tp_canvas_line(cv, x0, y0 + a, x0 + side, y0 + a, 0.6,
			               leaf_line, 0);
			last_line = a;
			(*lines)++;
		}
		if (stride == 1) {
			at = (a + run_at(m, r + 1, cw)) / 2;
		} else {
			tp_canvas_line(cv, x0 + a, y0 + side, x0 + a,
			               y0 + side + tick, 0.8, ink, 0);
			tp_canvas_line(cv, x0 - tick, y0 + a, x0, y0 + a, 0.8,
			               ink, 0);
		}
		w = tp_canvas_text_width(cv, size, m->leaf_names[r]);
		if (stride > 1 && r == 0)
			at = w / 2; /* the corner's tick: start the name there */
		if (at - w / 2 < last_end + 4 || at + w / 2 > side + 2)
			continue;
		axis_label(cv, x0, y0, side, at, size, m->leaf_names[r]);
		last_end = at + w / 2;
		(*labels)++;
	}
	return stride;
}

static void draw_panel(tp_canvas *cv, const tp_heatmap_panel *p, double x0,
                       double y0, double side, double lo, double hi,
                       tp_heatmap_stats *st, uint32_t index)
{
	const tp_heatmap *m = p->map;
	double cw = side / m->bins;
	const char *what = tp_report_unit_name(m->unit);
	uint32_t stride, lines, labels;
	char label[160];

	for (uint32_t r = 0; r < m->bins; r++)
		for (uint32_t c = 0; c < m->bins; c++) {
			uint64_t v = m->cells[(size_t)r * m->bins + c];

			if (!v)
				continue;
			tp_canvas_fill_rect(
			    cv, x0 + c * cw, y0 + r * cw, cw, cw,
			    tp_heatmap_colour((double)v, lo, hi));
		}
	stride = draw_leaf_axes(cv, m, x0, y0, side, &lines, &labels);
	st->leaf_stride[index] = stride;
	st->leaf_lines[index] = lines;
	st->leaf_labels[index] = labels;
	cairo_rectangle(tp_canvas_cairo(cv), x0, y0, side, side);
	tp_canvas_set_rgb(cv, ink);
	cairo_set_line_width(tp_canvas_cairo(cv), 1);
	cairo_stroke(tp_canvas_cairo(cv));

	if (stride > 1)
		snprintf(label, sizeof(label),
		         "%s: %u leaves (a line every %u)", p->mapping,
		         m->leaf_breaks + 1, stride);
	else
		snprintf(label, sizeof(label), "%s: %u leaves", p->mapping,
		         m->leaf_breaks + 1);
	tp_canvas_text_fit(cv, x0 + side / 2, y0 - 8, 12, side + 30,
	                   TP_ALIGN_CENTER, label);
	snprintf(label, sizeof(label), "receiver %ss by leaf (%u)", what,
	         m->items);
	tp_canvas_text_fit(cv, x0 + side / 2, y0 + side + 30, 11, side + 30,
	                   TP_ALIGN_CENTER, label);
	snprintf(label, sizeof(label), "sender %ss by leaf", what);
	tp_canvas_text(cv, x0 - 20, y0 + side / 2, 11, TP_ALIGN_CENTER,
	               -M_PI / 2, label);
}

static void draw_scale(tp_canvas *cv, double x, double y0, double h, double lo,
                       double hi)
{
	const int steps = 64;
	char num[32];

	for (int i = 0; i < steps; i++) {
		/* Top = most bytes. */
		double t = 1 - (i + 0.5) / steps;
		double v = exp(log(lo) + t * (log(hi) - log(lo)));

		tp_canvas_fill_rect(cv, x, y0 + h * i / steps, 14,
		                    h / steps + 0.5,
		                    tp_heatmap_colour(v, lo, hi));
	}
	tp_canvas_set_rgb(cv, ink);
	for (int k = 0; k <= 4; k++) {
		double t = k / 4.0, y = y0 + h * (1 - t);
		double v = exp(log(lo) + t * (log(hi) - log(lo)));

		if (hi <= lo && k > 0)
			break;
		tp_canvas_format_bytes(v, num, sizeof(num));
		tp_canvas_line(cv, x + 14, y, x + 18, y, 1, ink, 0);
		tp_canvas_text(cv, x + 21, y + 3.5, 10, TP_ALIGN_LEFT, 0, num);
	}
	tp_canvas_text(cv, x, y0 - 8, 10, TP_ALIGN_LEFT, 0, "bytes (log)");
}

tp_status tp_heatmap_draw(const char *path, uint32_t width, uint32_t height,
                          const char *profile, const tp_heatmap_panel *panels,
                          uint32_t count, tp_heatmap_stats *stats,
                          tp_error *err)
{
	tp_heatmap_stats st;
	double lo = INFINITY, hi = 0, side, pw;
	uint32_t bin = 1;
	const char *what, *mappings[4];
	char title[512], label[256];
	tp_canvas *cv;
	tp_status rc;

	memset(&st, 0, sizeof(st));
	if (count == 0 || count > 4)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: heatmap: %u panels (1 to 4)", path,
		                    count);
	if ((rc = tp_chart_check_size(path, width, height, err)) != TP_OK)
		return rc;
	for (uint32_t p = 0; p < count; p++) {
		const tp_heatmap *m = panels[p].map;

		mappings[p] = panels[p].mapping;

		if (m->unit != panels[0].map->unit)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: heatmap: panels mix ranks and "
			                    "nodes",
			                    path);
		if (m->bin > bin)
			bin = m->bin;
		for (size_t i = 0; i < (size_t)m->bins * m->bins; i++)
			if (m->cells[i]) {
				lo = fmin(lo, (double)m->cells[i]);
				hi = fmax(hi, (double)m->cells[i]);
			}
	}
	if (hi <= 0)
		lo = hi = 1;
	rc = tp_canvas_open(path, width, height, &cv, err);
	if (rc != TP_OK)
		return rc;
	what = tp_report_unit_name(panels[0].map->unit);
	tp_chart_title(title, sizeof(title), mappings, count,
	               "%s: bytes from %s (row) to %s (column), ", profile,
	               what, what);
	if (bin > 1)
		snprintf(label, sizeof(label),
		         "%ss ordered by leaf, then host, under each mapping "
		         "(axes name the leaves); cells of %ux%u %ss; grey "
		         "lines: leaf boundaries",
		         what, bin, bin, what);
	else
		snprintf(label, sizeof(label),
		         "%ss ordered by leaf, then host, under each mapping "
		         "(axes name the leaves); one cell per pair; grey "
		         "lines: leaf boundaries",
		         what);
	tp_chart_heading(cv, title, label,
	                 "one logarithmic colour scale for all panels; "
	                 "white: no traffic");

	side = plot_side(width, height, count);
	pw = (width - SCALE_WIDTH) / count;
	for (uint32_t p = 0; p < count; p++) {
		double x0 =
		    pw * p + LEFT_MARGIN + (pw - LEFT_MARGIN - side) / 2;

		draw_panel(cv, &panels[p], x0, TOP_MARGIN, side, lo, hi, &st,
		           p);
	}
	draw_scale(cv, width - SCALE_WIDTH + 12, TOP_MARGIN, side, lo, hi);
	rc = tp_canvas_close(cv, err);
	if (rc == TP_OK && stats != NULL)
		*stats = st;
	return rc;
}
