/*
 * iocurve.h: the latency-against-interval curve of an I/O calibration
 * sweep (topoplace-sweep(5)), with the congestion threshold the detector
 * found (threshold.h) and the throttle window chosen (window.h) marked.
 *
 * One curve is one (request size, clients) group of the sweep: median
 * latency per request interval, with the 95th percentile beside it.  Axes
 * are logarithmic when the values span a decade or more (intervals of 0,
 * back to back, cannot sit on a log axis: the x axis title says how many
 * were left out).  When detection finds no knee the chart says so instead of
 * marking a threshold.
 */
#ifndef TP_IOCURVE_H
#define TP_IOCURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweep.h"
#include "threshold.h"
#include "tp_error.h"

/*
 * The points of one (request size, clients) group of @points (sorted as
 * tp_sweep_points sorts them): the group of @request_bytes and @clients,
 * or the first group when @request_bytes is 0.  Sets *first and *count.
 * TP_ERR_NOTFOUND naming the size and clients (and the groups present, up
 * to a few) when the sweep has no such group; TP_ERR_INVALID for no point.
 */
tp_status tp_iocurve_select(const tp_sweep_point *points, size_t n,
                            uint64_t request_bytes, uint32_t clients,
                            size_t *first, size_t *count, tp_error *err);

typedef struct tp_iocurve {
	const char *name;             /* the sweep's name, for the title */
	const tp_sweep_point *points; /* one group, sorted by interval */
	size_t count;
	bool have_threshold;
	tp_threshold threshold;       /* when have_threshold */
	const char *no_threshold_why; /* otherwise: the detector's reason */
	double window_us;             /* chosen window; 0: none */
	const char *window_why;       /* one line on the window, may be NULL */
} tp_iocurve;

/* Whether values from @lo to @hi (> 0) deserve a log axis: a decade. */
bool tp_iocurve_log_axis(double lo, double hi);

/* The chart's words (see tp_iocurve_words). */
typedef struct tp_iocurve_text {
	char title[400];
	char subtitle[300]; /* the threshold, or why there is none */
	char note[400];     /* the window and why */
	char x_label[300];  /* with how many back-to-back points were left
	                     * out (they have no place on the interval axis) */
} tp_iocurve_text;

/*
 * The title, subtitle, note and x axis title tp_iocurve_draw gives
 * @curve (@x_log: the interval axis is logarithmic).  Times are all in
 * tp_units_format_us's style.
 */
void tp_iocurve_words(const tp_iocurve *curve, bool x_log,
                      tp_iocurve_text *text);

/*
 * Draw @curve into @path (@width x @height; see canvas.h).  The median
 * curve is one solid stroked line, each point one filled circle; the 95th
 * percentile one dashed, thinner line in another colour, each point one
 * filled square (and the legend shows one of each).  The window is a wide
 * solid vertical line, the threshold a dashed one drawn over it, so when
 * they coincide both show (and the window's label says "window =
 * threshold").  Errors: TP_ERR_INVALID (no point, size too small), canvas
 * errors.
 */
tp_status tp_iocurve_draw(const char *path, uint32_t width, uint32_t height,
                          const tp_iocurve *curve, tp_error *err);

/*
 * The trade-off of throttling one (request size, clients), from the
 * measured curve of a version 2 threshold table (threshold.h): against the
 * window, the victim's (MPI) mean latency over its no-I/O value, and the
 * clients' I/O time over the unthrottled one (1 + measured cost), both as
 * ratios on one axis; the chosen window and the site objective (its limit
 * as a horizontal line) marked.  The unthrottled point (window 0) has no
 * place on the log window axis: its values are in the subtitle.
 */
typedef struct tp_iocurve_tradeoff {
	const char *name;             /* the sweep's name, for the title */
	const tp_curve_point *points; /* one (size, clients), by window */
	size_t count;
	double window_us;      /* chosen window; 0: none */
	const char *objective; /* "mpi_slowdown<=1.1", or NULL: none */
	/* The objective's limit as a ratio on the chart's axis (slowdown X,
	 * or 1 + cost); 0: none. */
	double limit_ratio;
	const char *window_why; /* the decision's reason, may be NULL */
} tp_iocurve_tradeoff;

/* Title, subtitle (the unthrottled point), note (window, objective, why)
 * and x axis title of tp_iocurve_draw_tradeoff. */
void tp_iocurve_tradeoff_words(const tp_iocurve_tradeoff *chart,
                               tp_iocurve_text *text);

/*
 * Draw @chart into @path: the victim slowdown solid with discs, the I/O
 * time ratio dashed with squares, the window a wide vertical line, the
 * objective's limit a thin horizontal one.  TP_ERR_INVALID when no point
 * has both a window > 0 and a victim or I/O value; canvas errors.
 */
tp_status tp_iocurve_draw_tradeoff(const char *path, uint32_t width,
                                   uint32_t height,
                                   const tp_iocurve_tradeoff *chart,
                                   tp_error *err);

#endif /* TP_IOCURVE_H */
