/*
 * sweep.h: I/O-congestion sweeps, the measurements thresholds come from.
 *
 * A sweep is a set of per-request latency samples, each tagged with the
 * request size, the number of clients issuing requests together, the
 * interval each client kept between request starts, the client and the
 * start time.  The file format is topoplace-sweep(5):
 *
 *   # topoplace-sweep v1
 *   request_bytes,clients,interval_us,client,start_us,latency_us
 *   4194304,4,2000,0,0.000,812.500
 *
 * Version 2 adds a last column, kind: "io" for an I/O request as above,
 * "victim" for one message of the traffic the throttle protects (MPI)
 * measured while this point's I/O ran, "alone" for one such message with
 * the I/O clients idle (the no-I/O baseline of the group; interval_us 0).
 * For victim and alone rows, client is the victim process (any number
 * below TP_SWEEP_MAX_CLIENTS) and latency_us the message latency.  The
 * point with interval_us 0 is the unthrottled run: its I/O rows give the
 * clients' actual request interval and I/O time.  Version 1 files (no kind
 * column, every row an I/O request) still read.
 *
 * Version 3 adds a last column, run: which run of the measurement the row
 * belongs to (a repeat with another job id, seed or client placement; any
 * number below TP_SWEEP_MAX_RUNS).  A point measured in several runs is
 * summarised per run and then by its worst run (tp_sweep_points), so that
 * a window chosen from it meets its objective in every run, not on the
 * pooled mean.  Version 1 and 2 rows are all run 0.
 *
 * The reader treats its input as hostile: bounded line length and sample
 * count, strict numbers, and every error names file, line and column.
 */
#ifndef TP_SWEEP_H
#define TP_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tp_error.h"

#define TP_SWEEP_MAGIC "# topoplace-sweep v1"
#define TP_SWEEP_HEADER                                                        \
	"request_bytes,clients,interval_us,client,start_us,latency_us"
#define TP_SWEEP_MAGIC_V2 "# topoplace-sweep v2"
#define TP_SWEEP_HEADER_V2                                                     \
	"request_bytes,clients,interval_us,client,start_us,latency_us,kind"
#define TP_SWEEP_MAGIC_V3 "# topoplace-sweep v3"
#define TP_SWEEP_HEADER_V3                                                     \
	"request_bytes,clients,interval_us,client,start_us,latency_us,kind,run"
#define TP_SWEEP_MAX_CLIENTS     1000000
#define TP_SWEEP_MAX_RUNS        1000000
#define TP_SWEEP_MAX_INTERVAL_US 3600000000.0
#define TP_SWEEP_MAX_LATENCY_US  3600000000.0
#define TP_SWEEP_MAX_START_US    1.0e12
/* Default bound on the number of samples a reader accepts. */
#define TP_SWEEP_DEFAULT_MAX_SAMPLES 10000000

/* What a sample measured (version 2 kind column). */
typedef enum tp_sweep_kind {
	TP_SWEEP_IO = 0,       /* an I/O request of one of the clients */
	TP_SWEEP_VICTIM,       /* a victim message while the I/O ran */
	TP_SWEEP_VICTIM_ALONE, /* a victim message with the I/O idle */
} tp_sweep_kind;

typedef struct tp_sweep_sample {
	uint64_t request_bytes;
	uint32_t clients;
	uint32_t client;    /* io: 0 .. clients - 1; victims: process index */
	double interval_us; /* 0: back to back */
	double start_us;    /* from the start of the run of this point */
	double latency_us;  /* request start to completion */
	tp_sweep_kind kind; /* version 1 initialisers leave it io */
	uint32_t run;       /* last: version 1 and 2 initialisers leave 0 */
} tp_sweep_sample;

typedef struct tp_sweep {
	tp_sweep_sample *samples;
	size_t count, capacity;
} tp_sweep;

/*
 * The summary of one measured point: all samples of one (size, clients,
 * interval).  When the point was measured in several runs (version 3),
 * each run is summarised alone and the point holds the worst run's
 * figures: the victim mean (and its run's no-I/O baseline) of the run
 * whose victim mean is the highest over its baseline, the victim p99 (and
 * baseline) of the run whose p99 is, the highest victim median and I/O
 * latencies of any run, the fewest samples of any run, and the interval
 * that costs most: at interval 0 (unthrottled) the shortest a run
 * measured, else the longest.  Beside that bound it keeps the median run's
 * interval, which the expected cost is counted from: a bound set by the
 * fastest of N runs overstates what a typical run pays, and more so the
 * more runs are swept.
 */
typedef struct tp_sweep_point {
	uint64_t request_bytes;
	uint32_t clients;
	double interval_us;
	size_t samples; /* I/O requests */
	double median_us, mean_us, p95_us, p99_us;
	/* The clients' measured start-to-start interval (mean over clients
	 * of (last start - first start) / (requests - 1)); 0 when no client
	 * made two requests. */
	double io_interval_us;
	/* The median over the runs of each run's io_interval_us (the mean
	 * of the middle two for an even number of runs; runs that measured
	 * no interval left out); equal to io_interval_us for one run, 0
	 * when no run measured one. */
	double io_interval_median_us;
	/* The victim messages measured at this point (0 when none). */
	size_t victim_samples;
	double victim_mean_us, victim_median_us, victim_p99_us;
	/* The group's no-I/O victim baseline (alone rows; 0 when none). */
	size_t alone_samples;
	double alone_mean_us, alone_p99_us;
	/* The runs that measured this point (1 for version 1 and 2), and
	 * the run that set the victim mean (without victims: the I/O
	 * median): the one that decides a window. */
	size_t runs;
	uint32_t worst_run;
	/* Over the runs that measured victims over their own no-I/O
	 * baseline: how many, and the mean and sample standard deviation
	 * of each run's victim mean over its baseline (the slowdown), from
	 * which a prediction bound for a run not measured follows
	 * (prediction.h).  With fewer than 2 such runs the spread is
	 * unknown: slowdown_runs says so (sd 0). */
	size_t slowdown_runs;
	double slowdown_mean_x, slowdown_sd_x;
} tp_sweep_point;

/* A new empty sweep, or NULL when out of memory.  Free with tp_sweep_free. */
tp_sweep *tp_sweep_new(void);

/* Free @sweep and its samples (NULL-safe). */
void tp_sweep_free(tp_sweep *sweep);

/* Append a copy of @sample; validates it like the reader does. */
tp_status tp_sweep_add(tp_sweep *sweep, const tp_sweep_sample *sample,
                       tp_error *err);

/*
 * Parse the sweep text @text of @len bytes (need not be NUL-terminated);
 * @name names it in messages.  At most @max_samples samples (0: the
 * default).  On success *out is a new sweep the caller frees.  Errors:
 * TP_ERR_PARSE ("name: line L: column C: ..."), TP_ERR_LIMIT, TP_ERR_NOMEM.
 */
tp_status tp_sweep_parse(const char *name, const char *text, size_t len,
                         size_t max_samples, tp_sweep **out, tp_error *err);

/* Read and parse the file at @path (at most 1 GiB); as tp_sweep_parse plus
 * TP_ERR_IO naming the path. */
tp_status tp_sweep_read(const char *path, size_t max_samples, tp_sweep **out,
                        tp_error *err);

/* Format @sample as one version 1 CSV line (I/O rows only) with its
 * newline into @buf.  Returns the length, or -1 if @size is too small. */
int tp_sweep_format_sample(const tp_sweep_sample *sample, char *buf,
                           size_t size);

/* The same as one version 2 line (with the kind column): any kind. */
int tp_sweep_format_sample_v2(const tp_sweep_sample *sample, char *buf,
                              size_t size);

/* The same as one version 3 line (kind and run columns). */
int tp_sweep_format_sample_v3(const tp_sweep_sample *sample, char *buf,
                              size_t size);

/* The version a file of @sweep's samples needs: 3 when any sample is of a
 * run other than 0, else 2 when any is a victim or alone row, else 1 (the
 * oldest version that holds them, so older readers keep reading what
 * they can). */
int tp_sweep_version(const tp_sweep *sweep);

/*
 * Write @sweep to @out as a topoplace-sweep(5) file of tp_sweep_version:
 * the magic line (followed by a space and @comment unless it is NULL or
 * empty), the column header, one line per sample in order; @name names
 * the output in errors.  What it writes reads back (tp_sweep_parse) as the
 * same samples, to the 0.001 us the format keeps.  Errors: TP_ERR_IO.
 */
tp_status tp_sweep_write(FILE *out, const char *name, const tp_sweep *sweep,
                         const char *comment, tp_error *err);

/*
 * Summarise @sweep into points sorted by (request_bytes, clients,
 * interval_us): one per (size, clients, interval) with I/O or victim rows;
 * alone rows only fill the alone_* fields of their group's points (per
 * run: a run's baseline is its own alone rows, or the first run's of the
 * group that has some).  Several runs of one point give its worst run
 * (see tp_sweep_point).
 * *points is a new array the caller frees with free().
 */
tp_status tp_sweep_points(const tp_sweep *sweep, tp_sweep_point **points,
                          size_t *count, tp_error *err);

#endif /* TP_SWEEP_H */
