/*
 * threshold.h: I/O-congestion thresholds from a sweep, and a table of them
 * that interpolates across request sizes and client counts.
 *
 * Method (documented for users in topoplace-throttle(1)), per (request
 * size, clients), over the intervals measured with enough samples, on the
 * victim latency when every point measured the victim traffic (sweep
 * version 2), else on the I/O latency; first on the median, then, when the
 * median shows no knee, on the p99 (interference in the tail only).
 * "The median" below stands for the statistic in use:
 *   1. plateau = median of the median latencies of the longest
 *      @plateau_intervals intervals (the low-load level);
 *   2. an interval is congested when its median latency exceeds
 *      plateau x (1 + @rise);
 *   3. walking from the longest interval down, the knee is the first
 *      interval that is congested together with the @consecutive - 1 next
 *      shorter ones (one noisy point is not a knee);
 *   4. threshold_us = where the median-latency curve, linear in log-log
 *      between the knee and the next longer (uncongested) interval, crosses
 *      plateau x (1 + rise).  Requests issued at shorter mean intervals
 *      congest.
 * Confidence in [0, 1] = (fraction of intervals at and below the knee that
 * are congested: monotonicity) x (plateau flatness: 1 - spread of the
 * plateau medians relative to the plateau, floored at 0) x (min(1, samples
 * at the two bracketing intervals / 20)).
 * Refusals: fewer than @min_intervals usable intervals ("too few points"),
 * no congested run on the median nor on the p99 ("no knee", giving both),
 * or a knee inside the plateau intervals ("no knee: latency never
 * settles").
 */
#ifndef TP_THRESHOLD_H
#define TP_THRESHOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweep.h"
#include "tp_error.h"
#include "tp_log.h"

#define TP_THRESHOLD_MAGIC "# topoplace-thresholds v1"
#define TP_THRESHOLD_HEADER                                                    \
	"request_bytes,clients,threshold_us,plateau_us,confidence"
/* Version 2: one line per measured window of each entry (the curve). */
#define TP_THRESHOLD_MAGIC_V2 "# topoplace-thresholds v2"
#define TP_THRESHOLD_HEADER_V2                                                 \
	"request_bytes,clients,threshold_us,plateau_us,confidence,window_us,"  \
	"io_interval_us,victim_mean_x,victim_p99_x"
/* Version 3: the curve of a sweep of several runs (topoplace-sweep(5)
 * version 3), each window the worst run's, with how many runs measured it
 * and which run was the worst. */
#define TP_THRESHOLD_MAGIC_V3  "# topoplace-thresholds v3"
#define TP_THRESHOLD_HEADER_V3 TP_THRESHOLD_HEADER_V2 ",runs,worst_run"
/* Version 4: version 3 plus the median run's measured interval per
 * window, so the expected cost of a window is counted from the median
 * run and the worst run's interval stays its bound. */
#define TP_THRESHOLD_MAGIC_V4  "# topoplace-thresholds v4"
#define TP_THRESHOLD_HEADER_V4 TP_THRESHOLD_HEADER_V3 ",io_interval_median_us"
/* Version 5: version 4 plus, per window, the mean and the sample standard
 * deviation over the runs of each run's victim slowdown, from which the
 * chooser bounds a run the sweep did not measure (prediction.h). */
#define TP_THRESHOLD_MAGIC_V5 "# topoplace-thresholds v5"
#define TP_THRESHOLD_HEADER_V5                                                 \
	TP_THRESHOLD_HEADER_V4 ",victim_mean_x_mean,victim_mean_x_sd"
/* Bound on the curve points of a table (all entries together). */
#define TP_THRESHOLD_MAX_CURVE_POINTS 100000

typedef struct tp_threshold_params {
	double rise;              /* k: congested above plateau x (1 + k) */
	size_t min_intervals;     /* usable intervals needed */
	size_t min_samples;       /* samples for an interval to be usable */
	size_t plateau_intervals; /* longest intervals forming the plateau */
	size_t consecutive;       /* congested points in a row for a knee */
} tp_threshold_params;

typedef struct tp_threshold {
	uint64_t request_bytes;
	uint32_t clients;
	double threshold_us; /* mean intervals below this congest */
	double plateau_us;   /* low-load median latency */
	double confidence;   /* 0 .. 1 */
	double knee_us;      /* longest congested interval measured */
	double safe_us;      /* shortest uncongested interval above it */
	/* The latency the knee was found on: "median I/O", "p99 I/O",
	 * "median victim", "p99 victim" (static); NULL from a table file. */
	const char *statistic;
} tp_threshold;

/*
 * One measured window of a (size, clients): what it cost the I/O and what
 * it bought the victim traffic, as the sweep measured them.
 */
typedef struct tp_curve_point {
	uint64_t request_bytes;
	uint32_t clients;
	double window_us; /* the sweep's interval; 0: unthrottled */
	/* The clients' measured start-to-start interval; 0: not measured.
	 * At window 0 it is the actual unthrottled interval T0, and
	 * io_interval_us(W) / T0 - 1 is the measured I/O cost of W.  Of
	 * several runs, the one that bounds every run's cost: at window 0
	 * the fastest run's, else the slowest's (tp_sweep_point). */
	double io_interval_us;
	/* Victim mean and p99 latency over the no-I/O ones (the sweep's
	 * alone rows, else its longest window); 0: no victim measured. */
	double victim_mean_x, victim_p99_x;
	/* The runs that measured this window (1 from a sweep of one run or a
	 * version 2 table) and the worst of them, whose figures these are
	 * (tp_sweep_point). */
	uint32_t runs, worst_run;
	/* The median run's interval at this window (version 4; equal to
	 * io_interval_us for one run), which the expected cost is counted
	 * from; 0 when not given (tables before version 4: the expected
	 * cost is then counted from io_interval_us). */
	double io_interval_median_us;
	/* Over the runs (version 5): the mean and sample standard
	 * deviation of each run's victim mean over its no-I/O baseline; the
	 * mean is 0 when not given (one run, a table before version 5, or
	 * a window some run measured no victim at). */
	double victim_mean_x_mean, victim_mean_x_sd;
} tp_curve_point;

/* A table of thresholds, sorted by (request_bytes, clients), with the
 * measured curves (version 2), sorted by (request_bytes, clients,
 * window_us). */
typedef struct tp_threshold_table {
	tp_threshold *entries;
	size_t count;
	tp_curve_point *curve;
	size_t curve_count;
} tp_threshold_table;

typedef struct tp_threshold_estimate {
	double threshold_us;
	bool exact;        /* a measured (size, clients) */
	bool extrapolated; /* outside the measured sizes or client counts */
} tp_threshold_estimate;

/* rise 0.5, min_intervals 5, min_samples 5, plateau_intervals 2,
 * consecutive 2. */
void tp_threshold_params_default(tp_threshold_params *params);

/*
 * Detect the threshold of one (request size, clients) from @points[@count]
 * (all of that size and client count, any order).  Errors: TP_ERR_INVALID
 * "too few points ...", TP_ERR_NOTFOUND "no knee ...", each naming the size
 * and clients.
 */
tp_status tp_threshold_detect(const tp_sweep_point *points, size_t count,
                              const tp_threshold_params *params,
                              tp_threshold *out, tp_error *err);

/*
 * Detect every (size, clients) of @sweep, each with its measured curve
 * (every usable interval of the group).  Groups refused (too few points,
 * no knee) are logged at warning level through @logger and left out.
 * *table is new (free with tp_threshold_table_free); TP_ERR_NOTFOUND when no
 * group yields a threshold (the message gives the first refusal).
 */
tp_status tp_threshold_table_from_sweep(const tp_sweep *sweep,
                                        const tp_threshold_params *params,
                                        const tp_logger *logger,
                                        tp_threshold_table **table,
                                        tp_error *err);

void tp_threshold_table_free(tp_threshold_table *table);

/*
 * Add @entry (copied), keeping the order.  A second entry for the same
 * (size, clients) is TP_ERR_INVALID.
 */
tp_status tp_threshold_table_add(tp_threshold_table *table,
                                 const tp_threshold *entry, tp_error *err);

/* Add @point (copied) to the curves, keeping the order; a second point for
 * the same (size, clients, window) is TP_ERR_INVALID, more than
 * TP_THRESHOLD_MAX_CURVE_POINTS TP_ERR_LIMIT. */
tp_status tp_threshold_table_add_curve(tp_threshold_table *table,
                                       const tp_curve_point *point,
                                       tp_error *err);

/*
 * The measured curve for @request_bytes and @clients: the exact entry's
 * when it has one (*exact true), else the curve of the nearest measured
 * (size, clients) in log-log distance.  Sets *points / *count (points into
 * the table, by window), or returns false when the table has no curve.
 */
bool tp_threshold_curve(const tp_threshold_table *table, uint64_t request_bytes,
                        uint32_t clients, const tp_curve_point **points,
                        size_t *count, bool *exact);

/* Parse / read a threshold table file (topoplace-sweep(5) describes both
 * formats); errors name file, line and column. *table is new. */
tp_status tp_threshold_table_parse(const char *name, const char *text,
                                   size_t len, tp_threshold_table **table,
                                   tp_error *err);
tp_status tp_threshold_table_read(const char *path, tp_threshold_table **table,
                                  tp_error *err);

/* One version 1 table line (with newline) for @entry into @buf; length or
 * -1. */
int tp_threshold_format(const tp_threshold *entry, char *buf, size_t size);

/* One version 2 line: @entry with its curve point @point. */
int tp_threshold_format_v2(const tp_threshold *entry,
                           const tp_curve_point *point, char *buf, size_t size);

/* One version 3 line: as version 2 plus the point's runs and worst run. */
int tp_threshold_format_v3(const tp_threshold *entry,
                           const tp_curve_point *point, char *buf, size_t size);

/* One version 4 line: as version 3 plus the point's median-run
 * interval. */
int tp_threshold_format_v4(const tp_threshold *entry,
                           const tp_curve_point *point, char *buf, size_t size);

/* One version 5 line: as version 4 plus the point's victim slowdown
 * mean and standard deviation over its runs. */
int tp_threshold_format_v5(const tp_threshold *entry,
                           const tp_curve_point *point, char *buf, size_t size);

/* The table version @table needs: 5 when a curve point of more than one
 * run has the spread of its victim slowdown, 4 when it has the median
 * run's interval (its median run and its worst differ), 3 when such
 * points have neither (a version 3 table read back), 2 with a curve,
 * else 1. */
int tp_threshold_table_version(const tp_threshold_table *table);

/* The magic line and the column header of table version @version (1..5;
 * any other gives version 1's), for the reader and the writer alike. */
const char *tp_threshold_magic(int version);
const char *tp_threshold_header(int version);

/*
 * The threshold for @request_bytes and @clients: exact if measured, else
 * interpolated linearly in log-log, first across sizes for each measured
 * client count, then across client counts.  Outside the measured range it
 * extrapolates with the nearest two points' log-log slope (slope 1 when only
 * one point: threshold proportional to bytes and to clients, the offered
 * load) and sets extrapolated.  TP_ERR_NOTFOUND on an empty table.
 */
tp_status tp_threshold_lookup(const tp_threshold_table *table,
                              uint64_t request_bytes, uint32_t clients,
                              tp_threshold_estimate *estimate, tp_error *err);

#endif /* TP_THRESHOLD_H */
