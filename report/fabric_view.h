/*
 * fabric_view.h: a fabric drawn by levels with the link loads a placement
 * predicts (`topoplace report fabric`, issue 8; after Boxfish's pictures of
 * traffic on a fat tree's links).
 *
 * The picture: switches in rows by level (cores on top, then spines or
 * aggregation switches, then leaves), hosts at the bottom under their leaf,
 * coloured by the job they run (idle hosts light grey, "idle (no job)" in the
 * legend, which names the jobs, or as many as fit and "+N more"), each row
 * labelled with its level.
 * Every link is drawn as two thin parallel strokes, one per direction, each
 * coloured by the bytes that direction carries on a sequential scale (a
 * colour bar gives the scale in bytes; links that carry nothing are light
 * grey; a note in the legend says which stroke is which direction, beside
 * the colour bar or, where the picture is too narrow for that, wrapped
 * under it).  The two strokes of a link are always at least
 * TP_FABRIC_VIEW_PAIR_GAP stroke widths apart, centre to centre, so they
 * never merge: where links crowd a box the strokes are drawn thinner, and
 * an image of automatic size is widened (up to a limit) until they fit.  The
 * loads come from each job's traffic matrix and rank -> host mapping routed
 * over the given routes (the switches' forwarding tables when known) or,
 * without routes, over modelled D-mod-k routes, which the caption then says.
 * The caption also names the fabric, the routes' source and the busiest link
 * direction.
 *
 * Large fabrics (more than TP_FABRIC_VIEW_AGGREGATE_HOSTS hosts, or on
 * request) are aggregated by leaf: one box per leaf instead of its hosts,
 * split by the jobs' shares of its hosts, and one pair of strokes for all
 * its host links (coloured by the busiest of them); every switch-to-switch
 * link is still drawn on its own.
 *
 * Identifying elements in an SVG (tests, scripts): a link direction is a
 * stroke of width TP_FABRIC_VIEW_LINK_STROKE or, where links are dense,
 * TP_FABRIC_VIEW_LINK_STROKE_THIN; an aggregated host-link bundle direction
 * one of width TP_FABRIC_VIEW_BUNDLE_STROKE; no other element uses these
 * widths.  The two strokes of one link are parallel segments of the same
 * length, shifted against each other at right angles to their direction.
 * Host boxes are filled rectangles in the job colour
 * (tp_canvas_category(job index)) or TP_FABRIC_VIEW_IDLE_HOST.
 */
#ifndef TP_FABRIC_VIEW_H
#define TP_FABRIC_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "canvas.h"
#include "fabric.h"
#include "route.h"
#include "tp_error.h"
#include "traffic.h"

/* Stroke widths (points) that mark link elements; used for nothing else. */
#define TP_FABRIC_VIEW_LINK_STROKE      1.25
#define TP_FABRIC_VIEW_LINK_STROKE_THIN 0.5
#define TP_FABRIC_VIEW_BUNDLE_STROKE    2.75

/* Least distance between the centre lines of a link's two strokes, in
 * stroke widths (1 would make them touch). */
#define TP_FABRIC_VIEW_PAIR_GAP 1.6

/* Fabrics with more hosts than this are aggregated by leaf by default. */
#define TP_FABRIC_VIEW_AGGREGATE_HOSTS 1000u

/* Colours of an idle host and of a link direction that carries nothing. */
#define TP_FABRIC_VIEW_IDLE_HOST ((tp_rgb){0.90, 0.90, 0.90})
#define TP_FABRIC_VIEW_IDLE_LINK ((tp_rgb){0.86, 0.86, 0.86})

/* Most jobs one picture shows. */
#define TP_FABRIC_VIEW_MAX_JOBS 64u

/*
 * One job: its name, its hosts (tp_fabric host names) and, optionally, its
 * traffic and where each rank runs.  With @traffic, @rank_host must hold
 * @rank_count == traffic->ranks entries, each an index into @hosts.
 * Everything stays the caller's.
 */
typedef struct tp_fabric_view_job {
	const char *name;
	const char *const *hosts;
	uint32_t host_count;
	const tp_traffic *traffic; /* NULL: hosts coloured, no link load */
	const uint32_t *rank_host; /* rank -> index into hosts */
	uint32_t rank_count;
} tp_fabric_view_job;

typedef enum tp_fabric_view_aggregate {
	TP_FABRIC_VIEW_AGGREGATE_AUTO = 0, /* above ..._AGGREGATE_HOSTS hosts */
	TP_FABRIC_VIEW_AGGREGATE_ALWAYS,
	TP_FABRIC_VIEW_AGGREGATE_NEVER,
} tp_fabric_view_aggregate;

/*
 * Progress of long work: @stage ("routing", "drawing"), @done of @total
 * units.  Called from the rendering thread; may be NULL.
 */
typedef void (*tp_fabric_view_progress_fn)(void *ctx, const char *stage,
                                           uint64_t done, uint64_t total);

typedef struct tp_fabric_view_options {
	const char *path;       /* .png or .svg (required) */
	uint32_t width, height; /* 0: chosen from the fabric's size */
	tp_fabric_view_aggregate aggregate;
	const char *title; /* NULL: "Fabric <source>" */
	tp_fabric_view_progress_fn progress;
	void *progress_ctx;
} tp_fabric_view_options;

/* What was drawn (filled by tp_fabric_view_render on success). */
typedef struct tp_fabric_view_stats {
	uint32_t width, height;     /* of the image */
	bool aggregated;            /* hosts drawn by leaf */
	bool modelled_routes;       /* D-mod-k, not the switches' tables */
	uint32_t link_elements;     /* strokes drawn for links (2 per link) */
	uint32_t thin_elements;     /* of them, drawn thin (crowded boxes) */
	uint32_t bundle_elements;   /* strokes drawn for host bundles */
	uint32_t legend_jobs;       /* jobs named in the legend ("+N more") */
	uint32_t level_labels;      /* rows labelled with their level */
	uint32_t note_lines;        /* lines of the note on directions */
	bool note_below;            /* that note under the colour bar */
	double note_right;          /* where its text ends (x, pixels) */
	uint32_t loaded_directions; /* link directions with bytes > 0 */
	uint32_t load_bars;         /* colour bars (switch, host links) */
	uint64_t max_bytes;         /* busiest link direction, bytes */
	uint32_t max_port;          /* its port (leaves from); NONE when idle */
	char busiest[160];          /* "spine001[3] -> leaf002[19]" or "" */
	uint64_t max_switch_bytes;  /* busiest switch-to-switch direction */
	char busiest_switch[160];   /* it, named as busiest; "" when idle */
	uint64_t max_host_bytes;    /* busiest host-link direction */
	char caption[512];          /* the caption's line on routes and loads */
} tp_fabric_view_stats;

/*
 * The name the legend gives job @job, into @buf of @size bytes: its own,
 * or "job idle" for a job named "idle" (or "idle (no job)", the legend's
 * entry for idle hosts), so that a job and the hosts no job runs on never
 * go by one name.
 */
void tp_fabric_view_legend_name(const char *job, char *buf, size_t size);

/*
 * Draw @fabric with @jobs (@job_count <= TP_FABRIC_VIEW_MAX_JOBS, may be 0)
 * into @opts->path.  @routes: the routes to load links with (NULL: D-mod-k
 * routes are modelled here); they must belong to @fabric.  Everything is
 * checked before the image is started, and on any error no file is left
 * at the path.  @stats may be NULL.
 *
 * Errors, each one line naming the job and what is wrong: TP_ERR_INVALID
 * (no path or an unknown image type, a job without name or hosts, a host
 * in two jobs, a traffic matrix without mapping, a profile whose rank
 * count differs from the mapping's, an empty profile, a rank mapped
 * outside the job's hosts, too many jobs, a bad size); TP_ERR_NOTFOUND (a
 * job host the fabric does not have); routing errors (a pair the routes
 * cannot route, prefixed with the job); TP_ERR_IO (writing the image);
 * TP_ERR_NOMEM.
 */
tp_status tp_fabric_view_render(const tp_fabric *fabric,
                                const tp_routes *routes,
                                const tp_fabric_view_job *jobs,
                                size_t job_count,
                                const tp_fabric_view_options *opts,
                                tp_fabric_view_stats *stats, tp_error *err);

#endif /* TP_FABRIC_VIEW_H */
