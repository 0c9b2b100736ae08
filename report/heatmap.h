/*
 * heatmap.h: who sends how much to whom, as a rank-by-rank or node-by-node
 * heatmap, for one or more mappings side by side on one colour scale.
 *
 * Rows are senders, columns receivers.  Ranks are ordered by where the
 * mapping puts them (leaf, then host, then rank), so a mapping that keeps
 * partners on one leaf shows its traffic in blocks on the diagonal and one
 * that scatters them does not: the same matrix looks different under block
 * and under topoplace's mapping.  Nodes are the hosts the mapping uses, in
 * the same leaf order.  Large matrices are binned (bin x bin items summed
 * into one cell) and the title says so.  Colour is log-scaled bytes, shared
 * by all panels, with a colour bar.
 *
 * Axes: as each panel orders its items by its own mapping, the axes are
 * labelled with the leaves, not with rank numbers: grey lines mark where
 * the leaf changes and the leaves are named along both axes.  With many
 * leaves only every n'th boundary is drawn (the panel's
 * title says which), so that lines stay at least TP_HEATMAP_LINE_GAP
 * points apart, and leaf names are ticked at the lines where they fit.
 */
#ifndef TP_HEATMAP_H
#define TP_HEATMAP_H

#include <stdint.h>

#include "canvas.h"
#include "hops.h"
#include "topo.h"
#include "tp_error.h"
#include "traffic.h"

typedef struct tp_heatmap {
	tp_report_unit unit;
	uint32_t items;  /* ranks, or hosts the mapping uses */
	uint32_t *order; /* items entries: rank or host at each position */
	uint32_t bin;    /* consecutive positions summed into one cell */
	uint32_t bins;   /* ceil(items / bin) */
	uint64_t *cells; /* bins x bins bytes, row = sender bin (owned) */
	/* Positions where the leaf changes (first position of each leaf
	 * but the first), leaf_breaks entries, ascending (owned). */
	uint32_t *leaf_starts;
	uint32_t leaf_breaks;
	/* The leaf of each run of positions (leaf_breaks + 1 names, in
	 * order; the array and the strings are owned). */
	char **leaf_names;
} tp_heatmap;

/* Least distance between two drawn leaf boundaries, points. */
#define TP_HEATMAP_LINE_GAP 28.0

/*
 * Bin the normalized @traffic (traffic->ranks ranks on hosts @rank_host of
 * @topo) into at most @max_bins x @max_bins cells (@max_bins >= 1), ordered
 * as described above.  Fills @map (free with tp_heatmap_free).
 * TP_ERR_INVALID naming the rank for a host outside @topo, or @max_bins 0;
 * TP_ERR_NOMEM.
 */
tp_status tp_heatmap_compute(const tp_topo *topo, const tp_traffic *traffic,
                             const uint32_t *rank_host, tp_report_unit unit,
                             uint32_t max_bins, tp_heatmap *map, tp_error *err);

/* Free the arrays of @map (not the struct; NULL-safe). */
void tp_heatmap_free(tp_heatmap *map);

/* The cells per side that stay visible on a @width x @height image. */
uint32_t tp_heatmap_max_bins(uint32_t width, uint32_t height, uint32_t panels);

typedef struct tp_heatmap_panel {
	const char *mapping;
	const tp_heatmap *map;
} tp_heatmap_panel;

/* What tp_heatmap_draw drew on each panel's axes. */
typedef struct tp_heatmap_stats {
	uint32_t leaf_stride[4]; /* every n'th leaf boundary drawn (1: all) */
	uint32_t leaf_lines[4];  /* boundaries drawn (each across and down) */
	uint32_t leaf_labels[4]; /* leaves named along each axis */
} tp_heatmap_stats;

/*
 * Colour of @bytes on the shared log scale from @lo to @hi bytes (0 < lo
 * <= hi): tp_canvas_scale of the log position.  Exposed so tests can find
 * a cell's colour in the SVG.
 */
tp_rgb tp_heatmap_colour(double bytes, double lo, double hi);

/*
 * Draw @count (1..4) panels side by side into @path, @width x @height,
 * titled with @profile.  Each non-zero cell is one filled rectangle; zero
 * cells stay white.  @stats (may be NULL) says what the axes got.  Errors
 * as tp_hops_draw.
 */
tp_status tp_heatmap_draw(const char *path, uint32_t width, uint32_t height,
                          const char *profile, const tp_heatmap_panel *panels,
                          uint32_t count, tp_heatmap_stats *stats,
                          tp_error *err);

#endif /* TP_HEATMAP_H */
