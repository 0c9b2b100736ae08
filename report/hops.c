/*
 * hops.c: stacked hop-class histograms (bytes by hop class per rank/node).
 */
#include "tp_config.h"

#include "hops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "chart.h"

const char *tp_report_unit_name(tp_report_unit unit)
{
	return unit == TP_REPORT_NODES ? "node" : "rank";
}

const char *tp_hops_class_name(unsigned hop_class)
{
	static const char *const names[TP_COST_CLASSES] = {
	    "on-node", "same leaf", "same pod", "across pods"};

	return hop_class < TP_COST_CLASSES ? names[hop_class] : "?";
}

void tp_hops_bars_free(tp_hops_bars *bars)
{
	if (!bars)
		return;
	free(bars->bytes);
	free(bars->hosts);
	bars->bytes = NULL;
	bars->hosts = NULL;
}

tp_status tp_hops_compute(const tp_topo *topo, const tp_traffic *traffic,
                          const uint32_t *rank_host, tp_report_unit unit,
                          uint32_t max_bars, tp_hops_bars *bars, tp_error *err)
{
	uint32_t nhosts = tp_topo_host_count(topo);
	uint32_t *pos = NULL; /* host -> position among used hosts */

	memset(bars, 0, sizeof(*bars));
	bars->unit = unit;
	if (max_bars == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "hop histogram: at most 0 bars asked");
	for (uint32_t r = 0; r < traffic->ranks; r++)
		if (rank_host[r] >= nhosts)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "hop histogram: rank %u on host %u, "
			    "the fabric has %u hosts",
			    r, rank_host[r], nhosts);
	if (unit == TP_REPORT_NODES) {
		pos = calloc(nhosts, sizeof(*pos));
		if (!pos)
			goto nomem;
		for (uint32_t r = 0; r < traffic->ranks; r++)
			pos[rank_host[r]] = 1;
		for (uint32_t h = 0; h < nhosts; h++)
			bars->items += pos[h] != 0;
		bars->hosts = malloc(bars->items * sizeof(*bars->hosts));
		if (!bars->hosts)
			goto nomem;
		for (uint32_t h = 0, i = 0; h < nhosts; h++)
			if (pos[h]) {
				bars->hosts[i] = h;
				pos[h] = i++;
			}
	} else {
		bars->items = traffic->ranks;
	}
	bars->per_bar = (bars->items + max_bars - 1) / max_bars;
	if (bars->per_bar == 0)
		bars->per_bar = 1;
	bars->bars = (bars->items + bars->per_bar - 1) / bars->per_bar;
	bars->bytes =
	    calloc((size_t)bars->bars * TP_COST_CLASSES, sizeof(*bars->bytes));
	if (!bars->bytes)
		goto nomem;
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];
		uint32_t a = rank_host[e->src], b = rank_host[e->dst];
		uint32_t item = unit == TP_REPORT_NODES ? pos[a] : e->src;
		uint64_t *cell = &bars->bytes[(size_t)(item / bars->per_bar) *
		                                  TP_COST_CLASSES +
		                              tp_cost_hop_class(topo, a, b)];

		*cell = *cell > UINT64_MAX - e->bytes ? UINT64_MAX
		                                      : *cell + e->bytes;
	}
	free(pos);
	return TP_OK;
nomem:
	free(pos);
	tp_hops_bars_free(bars);
	return tp_error_set(err, TP_ERR_NOMEM,
	                    "hop histogram: out of memory for %u ranks",
	                    traffic->ranks);
}

/* Bars narrower than this are merged (5 px: a visible bar and a gap). */
#define MIN_BAR_PITCH 5.0
#define LEFT_MARGIN   64.0
#define RIGHT_MARGIN  14.0

uint32_t tp_hops_max_bars(uint32_t width, uint32_t panels)
{
	double plot;

	if (panels == 0)
		panels = 1;
	plot = (double)width / panels - LEFT_MARGIN - RIGHT_MARGIN;
	return plot < MIN_BAR_PITCH ? 1 : (uint32_t)(plot / MIN_BAR_PITCH);
}

/*
 * Items summed in bar @bar: per_bar, fewer in the last one.  Bars of
 * several items are drawn as the mean per item, so the short last bar
 * reads like the others.
 */
static double bar_items(const tp_hops_bars *b, uint32_t bar)
{
	uint32_t left = b->items - bar * b->per_bar;

	return left < b->per_bar ? left : b->per_bar;
}

static double bar_total(const tp_hops_bars *b, uint32_t bar)
{
	double sum = 0;

	for (unsigned k = 0; k < TP_COST_CLASSES; k++)
		sum += (double)b->bytes[(size_t)bar * TP_COST_CLASSES + k];
	return sum / bar_items(b, bar);
}

/* Label every @step-th bar: 1, 2, 5, 10, ... so labels do not overlap. */
static uint32_t label_step(double pitch, double label_px)
{
	static const uint32_t mult[] = {1, 2, 5};
	uint64_t scale = 1;

	for (;;) {
		for (unsigned i = 0; i < 3; i++) {
			uint64_t s = mult[i] * scale;

			if (s * pitch >= label_px || s > UINT32_MAX / 10)
				return (uint32_t)s;
		}
		scale *= 10;
	}
}

static const tp_rgb ink = {0, 0, 0};
static const tp_rgb grid = {0.85, 0.85, 0.85};

static void draw_panel(tp_canvas *cv, const tp_hops_panel *p, double x0,
                       double x1, double top, double bottom, double ymax,
                       double unit, double step)
{
	const tp_hops_bars *b = p->bars;
	double pitch = (x1 - x0) / b->bars, width = pitch * 0.8;
	double scale = (bottom - top) / ymax, leave = 0, total = 0;
	char label[160], num[32];

	/* Grid and y tick labels. */
	for (double v = 0; v <= ymax / unit + step * 1e-9; v += step) {
		double y = bottom - v * unit * scale;

		tp_canvas_line(cv, x0, y, x1, y, 0.6, grid, 0);
		snprintf(num, sizeof(num), "%g", v);
		tp_canvas_set_rgb(cv, ink);
		tp_canvas_text(cv, x0 - 5, y + 3.5, 10, TP_ALIGN_RIGHT, 0, num);
	}
	if (pitch < 2.5)
		width = pitch; /* thin bars: no gap rather than no bar */
	for (uint32_t i = 0; i < b->bars; i++) {
		double y = bottom, x = x0 + i * pitch + (pitch - width) / 2;

		for (unsigned k = 0; k < TP_COST_CLASSES; k++) {
			double raw =
			    (double)b->bytes[(size_t)i * TP_COST_CLASSES + k];
			double v = raw / bar_items(b, i), h = v * scale;

			total += raw;
			if (k >= TP_COST_SAME_POD)
				leave += raw;
			if (v <= 0)
				continue;
			tp_canvas_fill_rect(cv, x, y - h, width, h,
			                    tp_canvas_category(k));
			y -= h;
		}
	}
	tp_canvas_line(cv, x0, bottom, x1, bottom, 1, ink, 0);
	tp_canvas_line(cv, x0, top, x0, bottom, 1, ink, 0);
	/* x tick labels: the first item of the labelled bars. */
	tp_canvas_set_rgb(cv, ink);
	if (b->unit == TP_REPORT_NODES) {
		uint32_t s = label_step(pitch, 13);

		for (uint32_t i = 0; i < b->bars; i += s) {
			double x = x0 + (i + 0.5) * pitch;

			tp_canvas_text(cv, x + 3.5, bottom + 5, 9,
			               TP_ALIGN_RIGHT, -M_PI / 2,
			               tp_topo_host_name(
			                   p->topo, b->hosts[i * b->per_bar]));
		}
	} else {
		double w;
		uint32_t s;

		snprintf(num, sizeof(num), "%u", b->items);
		w = tp_canvas_text_width(cv, 10, num) + 8;
		s = label_step(pitch, w);
		for (uint32_t i = 0; i < b->bars; i += s) {
			snprintf(num, sizeof(num), "%llu",
			         (unsigned long long)i * b->per_bar);
			tp_canvas_text(cv, x0 + (i + 0.5) * pitch, bottom + 15,
			               10, TP_ALIGN_CENTER, 0, num);
		}
	}
	snprintf(label, sizeof(label), "%s: %.0f%% of bytes leave the leaf",
	         p->mapping, total > 0 ? 100.0 * leave / total : 0.0);
	tp_canvas_text_fit(cv, (x0 + x1) / 2, top - 8, 12, x1 - x0,
	                   TP_ALIGN_CENTER, label);
}

tp_status tp_hops_draw(const char *path, uint32_t width, uint32_t height,
                       const char *profile, const tp_hops_panel *panels,
                       uint32_t count, tp_error *err)
{
	tp_canvas *cv;
	tp_status rc;
	double ymax = 0, unit, step, top = 104, bottom, legend_w = 0, x;
	const char *unit_name, *what, *mappings[4];
	char title[512], label[128];
	uint32_t per_bar = 1;

	if (count == 0 || count > 4)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: hop histogram: %u panels (1 to 4)",
		                    path, count);
	if ((rc = tp_chart_check_size(path, width, height, err)) != TP_OK)
		return rc;
	for (uint32_t p = 0; p < count; p++) {
		mappings[p] = panels[p].mapping;
		if (panels[p].bars->unit != panels[0].bars->unit)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "%s: hop histogram: panels mix ranks "
			    "and nodes",
			    path);
		if (panels[p].bars->per_bar > per_bar)
			per_bar = panels[p].bars->per_bar;
		for (uint32_t i = 0; i < panels[p].bars->bars; i++)
			ymax = fmax(ymax, bar_total(panels[p].bars, i));
	}
	rc = tp_canvas_open(path, width, height, &cv, err);
	if (rc != TP_OK)
		return rc;
	what = tp_report_unit_name(panels[0].bars->unit);
	if (ymax <= 0)
		ymax = 1;
	unit = tp_canvas_bytes_unit(ymax, &unit_name);
	step = tp_canvas_nice_step(ymax / unit, 6);
	ymax = ceil(ymax / unit / step - 1e-9) * step * unit;
	bottom = height - (panels[0].bars->unit == TP_REPORT_NODES ? 78 : 46);

	/* Title: the profile, the mappings, the aggregation. */
	tp_chart_title(title, sizeof(title), mappings, count,
	               "%s: bytes sent by hop class per %s, ", profile, what);
	if (per_bar > 1)
		snprintf(label, sizeof(label),
		         "each bar: the mean of %u consecutive %ss; same y "
		         "scale in "
		         "every panel",
		         per_bar, what);
	else
		snprintf(label, sizeof(label),
		         "one bar per %s; same y scale in every panel", what);
	tp_chart_heading(cv, title, label, NULL);

	/* Legend: one swatch per hop class, centred. */
	for (unsigned k = 0; k < TP_COST_CLASSES; k++)
		legend_w +=
		    18 + tp_canvas_text_width(cv, 11, tp_hops_class_name(k)) +
		    16;
	x = (width - legend_w) / 2;
	for (unsigned k = 0; k < TP_COST_CLASSES; k++) {
		tp_canvas_fill_rect(cv, x, 58, 12, 12, tp_canvas_category(k));
		tp_canvas_set_rgb(cv, ink);
		tp_canvas_text(cv, x + 18, 68, 11, TP_ALIGN_LEFT, 0,
		               tp_hops_class_name(k));
		x += 18 + tp_canvas_text_width(cv, 11, tp_hops_class_name(k)) +
		     16;
	}

	for (uint32_t p = 0; p < count; p++) {
		double px = (double)width * p / count;
		double pw = (double)width / count;

		draw_panel(cv, &panels[p], px + LEFT_MARGIN,
		           px + pw - RIGHT_MARGIN, top, bottom, ymax, unit,
		           step);
		snprintf(label, sizeof(label), "%s (%s)",
		         per_bar > 1 ? "mean bytes sent" : "bytes sent",
		         unit_name);
		tp_canvas_set_rgb(cv, ink);
		tp_canvas_text(cv, px + 16, (top + bottom) / 2, 11,
		               TP_ALIGN_CENTER, -M_PI / 2, label);
		snprintf(label, sizeof(label), "%s%s", what,
		         per_bar > 1 ? " (first of each bar)" : "");
		tp_canvas_text_fit(
		    cv,
		    px + LEFT_MARGIN + (pw - LEFT_MARGIN - RIGHT_MARGIN) / 2,
		    height - 10, 11, pw - LEFT_MARGIN - RIGHT_MARGIN,
		    TP_ALIGN_CENTER, label);
	}
	return tp_canvas_close(cv, err);
}
