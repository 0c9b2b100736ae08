/*
 * hops.h: bytes by hop class, per rank or per node, as stacked bars.
 *
 * INTAP-MPI showed a profile on a placement as a stacked histogram of the
 * bytes each process sends, split by how far they travel (BACKGROUND.md
 * section 4).  topoplace draws the same with its four hop classes (on-node,
 * same leaf, same pod, across pods: cost.h) for two or more mappings side by
 * side on one y scale, so a glance shows which one keeps traffic low in
 * the tree.  Bars of several ranks are drawn as the mean per rank (the
 * last bar may hold fewer), bars of one rank as its bytes.
 *
 * tp_hops_compute turns (traffic, mapping) into bars; tp_hops_draw draws
 * panels of bars into a PNG or SVG.  Many ranks are aggregated into bars of
 * consecutive ranks (or nodes) so that bars stay a few pixels wide; the
 * title says how many items one bar holds.
 */
#ifndef TP_HOPS_H
#define TP_HOPS_H

#include <stdint.h>

#include "cost.h"
#include "topo.h"
#include "tp_error.h"
#include "traffic.h"

/* What one bar (or heatmap row) stands for. */
typedef enum tp_report_unit {
	TP_REPORT_RANKS = 0,
	TP_REPORT_NODES,
} tp_report_unit;

/* "rank" / "node". */
const char *tp_report_unit_name(tp_report_unit unit);

typedef struct tp_hops_bars {
	tp_report_unit unit;
	uint32_t items;   /* ranks, or hosts the mapping uses */
	uint32_t per_bar; /* consecutive items summed into one bar */
	uint32_t bars;    /* ceil(items / per_bar) */
	/* bars x TP_COST_CLASSES bytes sent, bar-major (owned). */
	uint64_t *bytes;
	/* Nodes: the hosts used, ascending (items entries, owned); ranks:
	 * NULL. */
	uint32_t *hosts;
} tp_hops_bars;

/*
 * Bytes sent by each rank (or by the ranks on each host @rank_host uses),
 * split by the hop class of the destination, for a normalized @traffic
 * whose traffic->ranks ranks sit on hosts @rank_host of @topo.  At most
 * @max_bars bars (>= 1): consecutive items are summed.  Fills @bars (free
 * with tp_hops_bars_free).  TP_ERR_INVALID naming the rank for a host
 * index outside @topo or @max_bars 0; TP_ERR_NOMEM.
 */
tp_status tp_hops_compute(const tp_topo *topo, const tp_traffic *traffic,
                          const uint32_t *rank_host, tp_report_unit unit,
                          uint32_t max_bars, tp_hops_bars *bars, tp_error *err);

/* Free the arrays of @bars (not the struct; NULL-safe). */
void tp_hops_bars_free(tp_hops_bars *bars);

/* Hop class names for legends: "on-node", "same leaf", ... */
const char *tp_hops_class_name(unsigned hop_class);

/* One panel: the bars of one mapping, named @mapping in its heading. */
typedef struct tp_hops_panel {
	const char *mapping;
	const tp_hops_bars *bars;
	const tp_topo *topo; /* for host names when unit is nodes */
} tp_hops_panel;

/* Smallest image the charts are drawn on (labels need the room). */
#define TP_REPORT_MIN_WIDTH  400u
#define TP_REPORT_MIN_HEIGHT 300u

/*
 * The bars per panel that stay readable on a @width pixels wide image with
 * @panels panels (at least 1): pass it to tp_hops_compute as max_bars.
 */
uint32_t tp_hops_max_bars(uint32_t width, uint32_t panels);

/*
 * Draw @count (1..4) panels side by side on one y scale into @path (.png or
 * .svg, see canvas.h), @width x @height, titled with @profile's name.
 * Every bar segment of hop class k is one filled rectangle in
 * tp_canvas_category(k); zero segments are not drawn; the legend has one
 * swatch per class.  Errors: TP_ERR_INVALID (no panel, more than 4,
 * panels of different units, a size below TP_REPORT_MIN_WIDTH x
 * TP_REPORT_MIN_HEIGHT or above the canvas's limit), canvas errors.
 */
tp_status tp_hops_draw(const char *path, uint32_t width, uint32_t height,
                       const char *profile, const tp_hops_panel *panels,
                       uint32_t count, tp_error *err);

#endif /* TP_HOPS_H */
