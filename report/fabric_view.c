/*
 * fabric_view.c: the fabric by levels with predicted link loads (see
 * fabric_view.h).
 *
 * Layout.  The leaves set the horizontal scale: each leaf gets as many
 * units as it has hosts (one unit when aggregated), with a small gap between
 * leaves and a larger one between pods, so a leaf is drawn as a bar right
 * above its hosts and its host links are short vertical strokes.  Level-2
 * switches spread over the width of their pod, higher levels (and switches
 * no host reaches) over the whole width.  Where a link meets a box, the
 * links of that side are spread along the box in the order of their other
 * ends, which keeps the strokes from piling up in the box's middle and
 * avoids most crossings.
 *
 * Directions.  A link is two parallel thin strokes a few points apart: the
 * one on the left (looking up the tree) carries the upward direction (from
 * the lower-level end towards the cores), the one on the right the downward
 * direction, each coloured by its own bytes.  We chose parallel strokes over
 * split halves because a half-coloured line reads as one link whose load
 * changes along it; two strokes read as two channels, which a link is, and
 * each keeps the link's whole length for its colour.  The legend says which
 * side is which.
 *
 * Dense fabrics.  Two strokes closer than their width merge into one line
 * and the directions are lost, so the gap between a link's strokes never
 * drops below TP_FABRIC_VIEW_PAIR_GAP widths.  What a link has room for is
 * its pitch: the spacing of the links along the more crowded of its two
 * boxes.  Where the pitch is too small for two full strokes (a leaf of a
 * 4x18x18 tree has 18 aggregation links on a box some 20 points wide) the
 * link is drawn with thin strokes instead; and a picture whose size we
 * choose is first widened until every link has at least DENSE_PITCH, up to
 * AUTO_MAX_WIDTH.  Neighbouring links may still touch at a crowded box; they
 * part within a few points, as they fan out to different switches.
 */
#include "tp_config.h"

#include "fabric_view.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Other stroke widths of the picture; never equal to the link widths. */
#define BOX_STROKE    0.6
#define LEGEND_STROKE 0.4

/* Pitch (points between neighbouring links on a box) from which a link is
 * drawn with full-width strokes: two strokes and their gap fit in it. */
#define FULL_PITCH                                                             \
	((1.0 + TP_FABRIC_VIEW_PAIR_GAP) * TP_FABRIC_VIEW_LINK_STROKE)

/* Pitch an automatically sized picture is widened to give every link, and
 * how wide it may grow for that (points). */
#define DENSE_PITCH    2.0

/* From the leaves' row to the hosts' row, in switch rows. */
#define HOST_DROP_PER_HOST   0.4
#define HOST_DROP_AGGREGATED 0.85
#define AUTO_MAX_WIDTH 6000u
#define AUTO_MIN_WIDTH 1000u

/* How often (items) to report progress. */
#define PROGRESS_EVERY 4096u

/* Most lines the legend's note on directions is wrapped into. */
#define NOTE_LINES 8

struct attach {
	uint32_t node;
	uint32_t link;
	int end;      /* 0 or 1: which end of the link */
	int side;     /* 0 bottom of the box, 1 top */
	double other; /* x of the other end's box, to order by */
};

struct view {
	const tp_fabric *f;
	const tp_fabric_view_options *o;
	tp_canvas *canvas;
	cairo_t *cr;
	bool agg;
	uint32_t nodes, hosts, leaves, links, ports;
	int *host_job;        /* per fabric host: job index, -1 idle */
	uint64_t *port_bytes; /* per port: bytes leaving through it */
	/* Busiest direction of a switch-to-switch link and of a host link:
	 * each kind has its own colour scale (see load_colour). */
	uint64_t max_switch_bytes, max_host_bytes;
	/* geometry, pixels */
	double W, H, fs;
	double plot_l, plot_r, plot_t, plot_b;
	int rows;        /* switch rows, then the host row */
	int max_level;   /* of the switches, at least 1 */
	bool unlevelled; /* a row on top for switches without a level */
	double row_gap;
	double *nx, *nw, *ny, *nh; /* per node: box centre, size */
	double *hx, *hw;           /* per host (per-host mode) */
	double *lx, *lw;           /* per leaf: box centre x, width */
	double host_y, host_h;
	/* per link: the attach x at each end and the spacing there */
	double *ax[2], *asp[2];
	int *lower; /* per link: which end is lower in the tree (0 or 1) */
	bool drawn_links; /* links drawn one by one (not via CAs when agg) */
	uint32_t link_elements, thin_elements, bundle_elements, loaded;
	uint32_t legend_jobs, level_labels, load_bars;
	uint64_t progress_done, progress_total;
	/* The legend's note on directions, laid out with the picture: one
	 * line beside the colour bar when it fits there, else wrapped into
	 * note_count lines under it, for which the legend grows upwards. */
	bool note_below;
	int note_count;
	char note[NOTE_LINES][128];
	double note_size;    /* points */
	double legend_right; /* right end of the legend's text, as drawn */
};

static tp_status nomem(tp_error *err)
{
	return tp_error_set(err, TP_ERR_NOMEM, "fabric view: out of memory");
}

static void progress(struct view *v, const char *stage, uint64_t done,
                     uint64_t total)
{
	if (v->o->progress != NULL)
		v->o->progress(v->o->progress_ctx, stage, done, total);
}

static int node_level(const tp_fabric_node *n)
{
	if (n->type == TP_FABRIC_CA)
		return 0;
	return n->level;
}

/* ---- checking the jobs and loading the links --------------------------- */

static tp_status check_jobs(struct view *v, const tp_fabric_view_job *jobs,
                            size_t job_count, tp_error *err)
{
	if (job_count > TP_FABRIC_VIEW_MAX_JOBS)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "fabric view: %zu jobs; at most %u fit in "
		                    "one picture",
		                    job_count, TP_FABRIC_VIEW_MAX_JOBS);
	for (size_t j = 0; j < job_count; j++) {
		const tp_fabric_view_job *job = &jobs[j];

		if (job->name == NULL || job->name[0] == '\0')
			return tp_error_set(err, TP_ERR_INVALID,
			                    "job %zu: no name", j + 1);
		if (job->host_count == 0 || job->hosts == NULL)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "job %s: no hosts", job->name);
		for (uint32_t i = 0; i < job->host_count; i++) {
			const char *name = job->hosts[i];
			uint32_t h = name ? tp_fabric_find_host(v->f, name)
			                  : TP_FABRIC_NONE;

			if (h == TP_FABRIC_NONE)
				return tp_error_set(
				    err, TP_ERR_NOTFOUND,
				    "job %s: host %s is not in the fabric "
				    "(%s)",
				    job->name, name ? name : "(null)",
				    tp_fabric_source(v->f));
			if (v->host_job[h] == (int)j)
				return tp_error_set(err, TP_ERR_INVALID,
				                    "job %s: host %s listed "
				                    "twice",
				                    job->name, name);
			if (v->host_job[h] >= 0)
				return tp_error_set(
				    err, TP_ERR_INVALID,
				    "host %s is in jobs %s and %s (one job "
				    "per host in the picture)",
				    name, jobs[v->host_job[h]].name, job->name);
			v->host_job[h] = (int)j;
		}
		if (job->traffic == NULL)
			continue;
		if (job->rank_host == NULL)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "job %s: the profile needs a mapping "
			    "of its ranks to hosts",
			    job->name);
		if (job->traffic->ranks != job->rank_count)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "job %s: the profile has %" PRIu32
			                    " ranks but the mapping places "
			                    "%" PRIu32,
			                    job->name, job->traffic->ranks,
			                    job->rank_count);
		if (job->traffic->count == 0 ||
		    tp_traffic_total_bytes(job->traffic) == 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "job %s: the profile is empty (no "
			                    "bytes between ranks)",
			                    job->name);
		for (uint32_t r = 0; r < job->rank_count; r++)
			if (job->rank_host[r] >= job->host_count)
				return tp_error_set(
				    err, TP_ERR_INVALID,
				    "job %s: rank %" PRIu32 " is mapped to "
				    "host #%" PRIu32 "; the job has %" PRIu32
				    " hosts",
				    job->name, r, job->rank_host[r],
				    job->host_count);
		for (size_t e = 0; e < job->traffic->count; e++) {
			const tp_traffic_entry *t = &job->traffic->entries[e];

			if (t->src >= job->rank_count ||
			    t->dst >= job->rank_count)
				return tp_error_set(
				    err, TP_ERR_INVALID,
				    "job %s: profile entry %zu names rank "
				    "%" PRIu32 " of %" PRIu32,
				    job->name, e,
				    t->src >= job->rank_count ? t->src : t->dst,
				    job->rank_count);
		}
	}
	return TP_OK;
}

/* Route every job's traffic and add it to v->port_bytes. */
static tp_status load_links(struct view *v, const tp_routes *routes,
                            const tp_fabric_view_job *jobs, size_t job_count,
                            tp_error *err)
{
	uint64_t total = 0, done = 0;
	tp_route_flow *flows = NULL;
	size_t cap = 0;

	for (size_t j = 0; j < job_count; j++)
		if (jobs[j].traffic != NULL)
			total += jobs[j].traffic->count;
	for (size_t j = 0; j < job_count; j++) {
		const tp_fabric_view_job *job = &jobs[j];
		const tp_traffic *t = job->traffic;
		size_t n = 0;

		if (t == NULL)
			continue;
		if (t->count > cap) {
			tp_route_flow *p =
			    realloc(flows, t->count * sizeof(*p));

			if (p == NULL) {
				free(flows);
				return nomem(err);
			}
			flows = p;
			cap = t->count;
		}
		for (size_t e = 0; e < t->count; e++) {
			uint32_t a = job->rank_host[t->entries[e].src];
			uint32_t b = job->rank_host[t->entries[e].dst];

			if (a == b || t->entries[e].bytes == 0)
				continue; /* stays on the node */
			flows[n].src = job->hosts[a];
			flows[n].dst = job->hosts[b];
			flows[n].bytes = t->entries[e].bytes;
			n++;
		}
		/* In chunks, so a large profile shows progress. */
		for (size_t i = 0; i < n; i += PROGRESS_EVERY) {
			size_t k =
			    n - i < PROGRESS_EVERY ? n - i : PROGRESS_EVERY;

			if (tp_routes_load(routes, flows + i, k, v->port_bytes,
			                   err) != TP_OK) {
				free(flows);
				return tp_error_prefix(err, "job %s",
				                       job->name);
			}
			progress(v, "routing", done + i + k, total);
		}
		done += t->count;
		progress(v, "routing", done, total);
	}
	free(flows);
	return TP_OK;
}

/* ---- layout ----------------------------------------------------------- */

struct leaf_order {
	uint32_t leaf, pod;
};

static int cmp_leaf_order(const void *a, const void *b)
{
	const struct leaf_order *x = a, *y = b;

	if (x->pod != y->pod)
		return x->pod < y->pod ? -1 : 1;
	return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

struct sw_order {
	int row;
	uint32_t group; /* pod, or NONE: the whole width */
	const char *name;
	uint32_t node;
};

static int cmp_sw_order(const void *a, const void *b)
{
	const struct sw_order *x = a, *y = b;
	int c;

	if (x->row != y->row)
		return x->row - y->row;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	if (c)
		return c;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_attach(const void *a, const void *b)
{
	const struct attach *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->side != y->side)
		return x->side - y->side;
	if (x->other != y->other)
		return x->other < y->other ? -1 : 1;
	return x->link < y->link ? -1 : x->link > y->link;
}

static bool link_touches_ca(const struct view *v, uint32_t l)
{
	const tp_fabric_link *k = tp_fabric_link_at(v->f, l);

	return tp_fabric_node_at(v->f, k->node[0])->type == TP_FABRIC_CA ||
	       tp_fabric_node_at(v->f, k->node[1])->type == TP_FABRIC_CA;
}

static bool link_drawn(const struct view *v, uint32_t l)
{
	return !v->agg || !link_touches_ca(v, l);
}

/* The rows: one per switch level, cores on top, and the hosts. */
static void count_rows(struct view *v)
{
	v->max_level = tp_fabric_max_level(v->f);
	if (v->max_level < 1)
		v->max_level = 1;
	v->unlevelled = false;
	for (uint32_t i = 0; i < v->nodes; i++) {
		const tp_fabric_node *n = tp_fabric_node_at(v->f, i);

		if (n->type != TP_FABRIC_CA && n->level < 1)
			v->unlevelled = true;
	}
	v->rows = (v->unlevelled ? 1 : 0) + v->max_level + 1;
}

/* The row a switch of @level is drawn in. */
static int switch_row(const struct view *v, int level)
{
	if (level < 1)
		return 0;
	return (v->unlevelled ? 1 : 0) + (v->max_level - level);
}

/*
 * What row @row holds, as the row's label says it: the names a fat tree's
 * levels go by ("spines" in a 2-level tree, "aggregation" and "cores" in a
 * 3-level one), the level number in deeper trees.  @buf holds the latter.
 */
static const char *row_label(const struct view *v, int row, char *buf,
                             size_t len)
{
	int level;

	if (row == v->rows - 1)
		return v->agg ? "hosts by leaf" : "hosts";
	if (v->unlevelled && row == 0)
		return "other switches";
	level = v->max_level - (row - (v->unlevelled ? 1 : 0));
	if (level == 1)
		return "leaves";
	if (v->max_level == 2)
		return "spines";
	if (level == v->max_level)
		return "cores";
	if (level == 2)
		return "aggregation";
	snprintf(buf, len, "level %d", level);
	return buf;
}

/*
 * Horizontal units of the leaves (and, per host, of the hosts), then
 * pixels.  Returns the unit count.
 */
static double layout_units(struct view *v, struct leaf_order *order,
                           double *leaf_u0, double *leaf_u1, double *host_u)
{
	const double leaf_gap = v->agg ? 0.3 : 0.8,
	             pod_gap = v->agg ? 1.0 : 2.5;
	double u = 0;
	uint32_t prev_pod = TP_FABRIC_NONE;

	for (uint32_t i = 0; i < v->leaves; i++) {
		order[i].leaf = i;
		order[i].pod = tp_fabric_leaf_pod(v->f, i);
	}
	qsort(order, v->leaves, sizeof(*order), cmp_leaf_order);
	for (uint32_t i = 0; i < v->leaves; i++) {
		uint32_t leaf = order[i].leaf, n;
		const uint32_t *hs = tp_fabric_leaf_hosts(v->f, leaf, &n);

		if (i > 0)
			u += order[i].pod != prev_pod ? pod_gap : leaf_gap;
		prev_pod = order[i].pod;
		leaf_u0[leaf] = u;
		if (v->agg || n == 0) {
			u += 1;
		} else {
			for (uint32_t k = 0; k < n; k++)
				host_u[hs[k]] = u + k + 0.5;
			u += n;
		}
		leaf_u1[leaf] = u;
	}
	if (!v->agg) {
		bool gap = false;

		for (uint32_t h = 0; h < v->hosts; h++) {
			if (tp_fabric_host_at(v->f, h)->leaf != TP_FABRIC_NONE)
				continue;
			if (!gap && u > 0)
				u += pod_gap;
			gap = true;
			host_u[h] = u + 0.5;
			u += 1;
		}
	}
	return u > 0 ? u : 1;
}

static tp_status layout(struct view *v, tp_error *err)
{
	const tp_fabric *f = v->f;
	struct leaf_order *order = NULL;
	double *leaf_u0 = NULL, *leaf_u1 = NULL, *host_u = NULL;
	double *pod_l = NULL, *pod_r = NULL;
	struct sw_order *sw = NULL;
	struct attach *at = NULL;
	uint32_t nsw = 0, npods = tp_fabric_pod_count(f), nat = 0;
	double units, px, switch_h, host_drop;
	tp_status rc = TP_OK;

	order = calloc(v->leaves + 1, sizeof(*order));
	leaf_u0 = calloc(v->leaves + 1, sizeof(double));
	leaf_u1 = calloc(v->leaves + 1, sizeof(double));
	host_u = calloc(v->hosts + 1, sizeof(double));
	pod_l = calloc(npods + 1, sizeof(double));
	pod_r = calloc(npods + 1, sizeof(double));
	sw = calloc(v->nodes + 1, sizeof(*sw));
	at = calloc(2 * (size_t)v->links + 1, sizeof(*at));
	if (!order || !leaf_u0 || !leaf_u1 || !host_u || !pod_l || !pod_r ||
	    !sw || !at) {
		rc = nomem(err);
		goto out;
	}
	units = layout_units(v, order, leaf_u0, leaf_u1, host_u);
	px = (v->plot_r - v->plot_l) / units;
	/* The host row sits closer to the leaves than the switch rows to
	 * each other: host links are short and many, and a long band of
	 * them would take the eye from the switch links.  Drawn one by one
	 * (a pair of strokes per host, hundreds side by side) they read as
	 * a solid slab, so the band is shorter still: under half a row. */
	host_drop = v->agg ? HOST_DROP_AGGREGATED : HOST_DROP_PER_HOST;
	v->row_gap =
	    (v->plot_b - v->plot_t) / (v->rows - 2 + 0.5 + host_drop + 0.25);
	switch_h = fmin(fmax(0.22 * v->row_gap, 6.0), 2.2 * v->fs);
	v->host_h = fmin(fmax(0.25 * v->row_gap, 6.0), 4.0 * v->fs);
	v->host_y = v->plot_t + (v->rows - 2 + 0.5 + host_drop) * v->row_gap;

	/* leaves and hosts */
	for (uint32_t p = 0; p <= npods; p++) {
		pod_l[p] = v->plot_r;
		pod_r[p] = v->plot_l;
	}
	for (uint32_t k = 0; k < v->leaves; k++) {
		uint32_t node = tp_fabric_leaf_node(f, k);
		uint32_t pod = tp_fabric_leaf_pod(f, k);
		double a = v->plot_l + leaf_u0[k] * px;
		double b = v->plot_l + leaf_u1[k] * px;
		double w = (b - a) - (v->agg ? 0.1 * px : 0.15 * px);

		v->lx[k] = (a + b) / 2;
		v->lw[k] = fmax(w, 1.0);
		v->nx[node] = v->lx[k];
		v->nw[node] = v->lw[k];
		if (pod < npods) {
			pod_l[pod] = fmin(pod_l[pod], a);
			pod_r[pod] = fmax(pod_r[pod], b);
		}
	}
	for (uint32_t h = 0; h < v->hosts && !v->agg; h++) {
		v->hx[h] = v->plot_l + host_u[h] * px;
		v->hw[h] = px >= 3 ? 0.8 * px : px;
	}
	/* switches above the leaves: rows, groups, evenly spread */
	for (uint32_t i = 0; i < v->nodes; i++) {
		const tp_fabric_node *n = tp_fabric_node_at(f, i);
		int level = n->level;

		if (n->type == TP_FABRIC_CA) {
			v->ny[i] = v->host_y;
			v->nh[i] = v->host_h;
			if (n->host != TP_FABRIC_NONE && !v->agg) {
				v->nx[i] = v->hx[n->host];
				v->nw[i] = v->hw[n->host];
			} else {
				v->nx[i] = v->plot_r;
				v->nw[i] = 1;
			}
			continue;
		}
		sw[nsw].row = switch_row(v, level);
		v->ny[i] = v->plot_t + (sw[nsw].row + 0.5) * v->row_gap;
		v->nh[i] = switch_h;
		if (n->leaf != TP_FABRIC_NONE)
			continue; /* placed above */
		sw[nsw].group = level == 2 && npods > 1 && n->pod < npods
		                    ? n->pod
		                    : TP_FABRIC_NONE;
		sw[nsw].name = n->name;
		sw[nsw].node = i;
		nsw++;
	}
	qsort(sw, nsw, sizeof(*sw), cmp_sw_order);
	for (uint32_t i = 0; i < nsw;) {
		uint32_t j = i;
		double a = v->plot_l, b = v->plot_r, spacing;

		while (j < nsw && sw[j].row == sw[i].row &&
		       sw[j].group == sw[i].group)
			j++;
		if (sw[i].group != TP_FABRIC_NONE &&
		    pod_r[sw[i].group] > pod_l[sw[i].group]) {
			a = pod_l[sw[i].group];
			b = pod_r[sw[i].group];
		}
		spacing = (b - a) / (j - i);
		for (uint32_t k = i; k < j; k++) {
			v->nx[sw[k].node] = a + (k - i + 0.5) * spacing;
			v->nw[sw[k].node] =
			    fmax(fmin(0.85 * spacing, 14 * v->fs), 1.0);
		}
		i = j;
	}
	/* where each link meets its boxes */
	for (uint32_t l = 0; l < v->links; l++) {
		const tp_fabric_link *k = tp_fabric_link_at(f, l);
		int la = node_level(tp_fabric_node_at(f, k->node[0]));
		int lb = node_level(tp_fabric_node_at(f, k->node[1]));

		/* unlevelled switches (-1) sit above everything */
		if (la < 0)
			la = 1000;
		if (lb < 0)
			lb = 1000;
		v->lower[l] = lb < la ? 1 : 0;
		if (!link_drawn(v, l))
			continue;
		for (int e = 0; e < 2; e++) {
			at[nat].node = k->node[e];
			at[nat].link = l;
			at[nat].end = e;
			at[nat].side = e == v->lower[l] ? 1 : 0;
			at[nat].other = v->nx[k->node[1 - e]];
			nat++;
		}
	}
	qsort(at, nat, sizeof(*at), cmp_attach);
	for (uint32_t i = 0; i < nat;) {
		uint32_t j = i;
		double left, w;

		while (j < nat && at[j].node == at[i].node &&
		       at[j].side == at[i].side)
			j++;
		w = v->nw[at[i].node];
		left = v->nx[at[i].node] - w / 2;
		for (uint32_t k = i; k < j; k++) {
			v->ax[at[k].end][at[k].link] =
			    left + (k - i + 0.5) * w / (j - i);
			v->asp[at[k].end][at[k].link] = w / (j - i);
		}
		i = j;
	}
out:
	free(order);
	free(leaf_u0);
	free(leaf_u1);
	free(host_u);
	free(pod_l);
	free(pod_r);
	free(sw);
	free(at);
	return rc;
}

/* ---- drawing ---------------------------------------------------------- */

/*
 * The colour of a link direction carrying @bytes.  Switch links and host
 * links are on scales of their own: a host link carries all its host's
 * traffic, so the busiest link is nearly always one, and on a shared scale
 * the switch links, where placement shows, would all sit in the pale end.
 */
static tp_rgb load_colour(const struct view *v, uint64_t bytes,
                          bool host_link)
{
	uint64_t max = host_link ? v->max_host_bytes : v->max_switch_bytes;

	if (bytes == 0 || max == 0)
		return TP_FABRIC_VIEW_IDLE_LINK;
	/* From 0.2 up: the lightest scale colours would vanish on white. */
	return tp_canvas_scale(0.2 + 0.8 * ((double)bytes / max));
}

/*
 * One direction of a link from (x1, y1) (lower end) to (x2, y2): offset to
 * the left of the upward line by @off (up) or to its right (down).
 */
static void stroke_direction(struct view *v, double x1, double y1, double x2,
                             double y2, double off, bool up, uint64_t bytes,
                             bool host_link, double width)
{
	double dx = x2 - x1, dy = y2 - y1, len = hypot(dx, dy);
	double nx = -1, ny = 0, s = up ? 1 : -1;

	if (len > 0) {
		nx = dy / len; /* left of the direction of travel, y down */
		ny = -dx / len;
	}
	tp_canvas_set_rgb(v->canvas, load_colour(v, bytes, host_link));
	cairo_set_line_width(v->cr, width);
	cairo_new_path(v->cr);
	cairo_move_to(v->cr, x1 + s * nx * off, y1 + s * ny * off);
	cairo_line_to(v->cr, x2 + s * nx * off, y2 + s * ny * off);
	cairo_stroke(v->cr);
}

struct dir {
	uint64_t bytes;
	uint32_t link;
	bool up;
};

static int cmp_dir(const void *a, const void *b)
{
	const struct dir *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (int)x->up - (int)y->up;
}

static void link_ends(const struct view *v, uint32_t l, double *x1, double *y1,
                      double *x2, double *y2)
{
	const tp_fabric_link *k = tp_fabric_link_at(v->f, l);
	int lo = v->lower[l], hi = 1 - lo;

	*x1 = v->ax[lo][l];
	*y1 = v->ny[k->node[lo]] - v->nh[k->node[lo]] / 2;
	*x2 = v->ax[hi][l];
	*y2 = v->ny[k->node[hi]] + v->nh[k->node[hi]] / 2;
}

static uint64_t dir_bytes(const struct view *v, uint32_t l, bool up)
{
	const tp_fabric_link *k = tp_fabric_link_at(v->f, l);
	int from = up ? v->lower[l] : 1 - v->lower[l];

	return v->port_bytes[k->port[from]];
}

/*
 * The stroke width of link @l and the distance between the centre lines of
 * its two strokes, from its pitch: full width when two full strokes and
 * their gap fit, thin otherwise; the distance grows with the room there is
 * but never falls below TP_FABRIC_VIEW_PAIR_GAP widths.
 */
static void link_stroke(const struct view *v, uint32_t l, double *width,
                        double *separation)
{
	double pitch = fmin(v->asp[0][l], v->asp[1][l]);
	double w = pitch >= FULL_PITCH ? TP_FABRIC_VIEW_LINK_STROKE
	                               : TP_FABRIC_VIEW_LINK_STROKE_THIN;

	*width = w;
	*separation = fmin(fmax(0.6 * pitch, TP_FABRIC_VIEW_PAIR_GAP * w), 4.0);
}

/*
 * Every drawn link direction as its own stroke: the idle ones first, then
 * the loaded ones from light to dark, so the busiest stay on top where
 * strokes cross.
 */
static tp_status draw_links(struct view *v, tp_error *err)
{
	struct dir *d = calloc(2 * (size_t)v->links + 1, sizeof(*d));
	size_t n = 0;

	if (d == NULL)
		return nomem(err);
	for (uint32_t l = 0; l < v->links; l++) {
		if (!link_drawn(v, l))
			continue;
		for (int up = 1; up >= 0; up--) {
			d[n].link = l;
			d[n].up = up;
			d[n].bytes = dir_bytes(v, l, up);
			n++;
		}
	}
	qsort(d, n, sizeof(*d), cmp_dir);
	cairo_set_line_cap(v->cr, CAIRO_LINE_CAP_BUTT);
	for (size_t i = 0; i < n; i++) {
		uint32_t l = d[i].link;
		double x1, y1, x2, y2, width, separation;

		link_ends(v, l, &x1, &y1, &x2, &y2);
		link_stroke(v, l, &width, &separation);
		stroke_direction(v, x1, y1, x2, y2, separation / 2, d[i].up,
		                 d[i].bytes, link_touches_ca(v, l), width);
		v->link_elements++;
		v->thin_elements += width < TP_FABRIC_VIEW_LINK_STROKE;
		v->loaded += d[i].bytes > 0;
		if ((i + 1) % PROGRESS_EVERY == 0 || i + 1 == n)
			progress(v, "drawing", i + 1, n);
	}
	free(d);
	return TP_OK;
}

/*
 * Aggregated: per leaf, one stroke per direction for all its host links,
 * coloured by the busiest of them (the scale is per link direction).
 */
static tp_status draw_bundles(struct view *v, tp_error *err)
{
	uint64_t *up = calloc(v->leaves + 1, sizeof(*up));
	uint64_t *down = calloc(v->leaves + 1, sizeof(*down));

	if (up == NULL || down == NULL) {
		free(up);
		free(down);
		return nomem(err);
	}
	for (uint32_t l = 0; l < v->links; l++) {
		const tp_fabric_link *k = tp_fabric_link_at(v->f, l);
		const tp_fabric_node *a;
		uint32_t leaf = TP_FABRIC_NONE;
		uint64_t bu = dir_bytes(v, l, true),
		         bd = dir_bytes(v, l, false);

		if (!link_touches_ca(v, l))
			continue;
		a = tp_fabric_node_at(v->f, k->node[v->lower[l]]);
		if (a->type == TP_FABRIC_CA && a->host != TP_FABRIC_NONE)
			leaf = tp_fabric_host_at(v->f, a->host)->leaf;
		if (leaf == TP_FABRIC_NONE)
			continue;
		up[leaf] = bu > up[leaf] ? bu : up[leaf];
		down[leaf] = bd > down[leaf] ? bd : down[leaf];
		v->loaded += (bu > 0) + (bd > 0);
	}
	for (uint32_t k = 0; k < v->leaves; k++) {
		uint32_t n, node = tp_fabric_leaf_node(v->f, k);
		double x = v->lx[k], y1 = v->host_y - v->host_h / 2;
		double y2 = v->ny[node] + v->nh[node] / 2;
		/* half the distance between the two strokes' centres */
		double off = fmin(
		    fmax(0.15 * v->lw[k], TP_FABRIC_VIEW_PAIR_GAP / 2 *
		                              TP_FABRIC_VIEW_BUNDLE_STROKE),
		    4.0);

		tp_fabric_leaf_hosts(v->f, k, &n);
		if (n == 0)
			continue;
		stroke_direction(v, x, y1, x, y2, off, true, up[k], true,
		                 TP_FABRIC_VIEW_BUNDLE_STROKE);
		stroke_direction(v, x, y1, x, y2, off, false, down[k], true,
		                 TP_FABRIC_VIEW_BUNDLE_STROKE);
		v->bundle_elements += 2;
	}
	free(up);
	free(down);
	return TP_OK;
}

static void fill_rect(struct view *v, double x, double y, double w, double h,
                      tp_rgb c)
{
	tp_canvas_set_rgb(v->canvas, c);
	cairo_new_path(v->cr);
	cairo_rectangle(v->cr, x, y, w, h);
	cairo_fill(v->cr);
}

static double text_width(struct view *v, double size, const char *text)
{
	cairo_text_extents_t ext;

	cairo_save(v->cr);
	cairo_select_font_face(v->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(v->cr, size);
	cairo_text_extents(v->cr, text, &ext);
	cairo_restore(v->cr);
	return ext.x_advance;
}

static void draw_switches(struct view *v)
{
	const tp_rgb fill = {0.84, 0.87, 0.92}, line = {0.25, 0.30, 0.40};
	const tp_rgb ink = {0, 0, 0};

	for (uint32_t i = 0; i < v->nodes; i++) {
		const tp_fabric_node *n = tp_fabric_node_at(v->f, i);
		double x, y, w = v->nw[i], h = v->nh[i], size;

		if (n->type == TP_FABRIC_CA)
			continue;
		x = v->nx[i] - w / 2;
		y = v->ny[i] - h / 2;
		fill_rect(v, x, y, w, h, fill);
		if (w >= 3) {
			tp_canvas_set_rgb(v->canvas, line);
			cairo_set_line_width(v->cr, BOX_STROKE);
			cairo_new_path(v->cr);
			cairo_rectangle(v->cr, x, y, w, h);
			cairo_stroke(v->cr);
		}
		size = fmin(0.75 * h, v->fs);
		if (n->name != NULL && size >= 6) {
			/* shrink the name to fit its box, down to 6 points */
			double tw = text_width(v, size, n->name);

			if (tw > w - 2)
				size *= (w - 2) / tw;
		}
		if (n->name != NULL && size >= 6) {
			tp_canvas_set_rgb(v->canvas, ink);
			tp_canvas_text(v->canvas, v->nx[i],
			               v->ny[i] + 0.35 * size, size,
			               TP_ALIGN_CENTER, 0, n->name);
		}
	}
}

static tp_rgb job_colour(int job)
{
	return job < 0 ? TP_FABRIC_VIEW_IDLE_HOST
	               : tp_canvas_category((uint32_t)job);
}

/* Hosts (or leaf boxes split by job share) and their labels. */
static tp_status draw_hosts(struct view *v, size_t job_count, tp_error *err)
{
	const tp_rgb ink = {0.15, 0.15, 0.15};
	double y = v->host_y - v->host_h / 2,
	       label_y = y + v->host_h + 0.4 * v->fs;
	double size = 0.8 * v->fs;
	uint32_t *count;

	if (v->agg) {
		count = calloc(job_count + 1, sizeof(*count));
		if (count == NULL)
			return nomem(err);
		for (uint32_t k = 0; k < v->leaves; k++) {
			uint32_t n, idle;
			const uint32_t *hs = tp_fabric_leaf_hosts(v->f, k, &n);
			double x = v->lx[k] - v->lw[k] / 2, w = v->lw[k];
			const char *name =
			    tp_fabric_node_at(v->f,
			                      tp_fabric_leaf_node(v->f, k))
			        ->name;

			if (n == 0)
				continue;
			memset(count, 0, (job_count + 1) * sizeof(*count));
			for (uint32_t i = 0; i < n; i++)
				if (v->host_job[hs[i]] >= 0)
					count[v->host_job[hs[i]]]++;
			idle = n;
			for (size_t j = 0; j < job_count; j++) {
				double s = w * count[j] / n;

				if (count[j] == 0)
					continue;
				fill_rect(v, x, y, s, v->host_h,
				          job_colour((int)j));
				x += s;
				idle -= count[j];
			}
			if (idle > 0)
				fill_rect(v, x, y, w * idle / n, v->host_h,
				          TP_FABRIC_VIEW_IDLE_HOST);
			if (name && v->lw[k] >= 0.9 * size) {
				tp_canvas_set_rgb(v->canvas, ink);
				tp_canvas_text(
				    v->canvas, v->lx[k] + 0.35 * size, label_y,
				    size, TP_ALIGN_RIGHT, -M_PI / 2, name);
			}
		}
		free(count);
		return TP_OK;
	}
	for (uint32_t h = 0; h < v->hosts; h++) {
		const char *name = tp_fabric_host_at(v->f, h)->name;

		fill_rect(v, v->hx[h] - v->hw[h] / 2, y, v->hw[h], v->host_h,
		          job_colour(v->host_job[h]));
		if (name && v->hw[h] >= 0.9 * size) {
			tp_canvas_set_rgb(v->canvas, ink);
			tp_canvas_text(v->canvas, v->hx[h] + 0.35 * size,
			               label_y, size, TP_ALIGN_RIGHT, -M_PI / 2,
			               name);
		}
	}
	/* Hosts too narrow to name: name the leaves under their hosts. */
	for (uint32_t k = 0; k < v->leaves; k++) {
		uint32_t n, node = tp_fabric_leaf_node(v->f, k);
		const char *name = tp_fabric_node_at(v->f, node)->name;

		tp_fabric_leaf_hosts(v->f, k, &n);
		if (n == 0 || name == NULL ||
		    v->hw[tp_fabric_leaf_hosts(v->f, k, &n)[0]] >= 0.9 * size)
			continue;
		tp_canvas_set_rgb(v->canvas, ink);
		if (text_width(v, size, name) <= v->lw[k])
			tp_canvas_text(v->canvas, v->lx[k], label_y + size,
			               size, TP_ALIGN_CENTER, 0, name);
		else if (v->lw[k] >= 0.9 * size)
			tp_canvas_text(v->canvas, v->lx[k] + 0.35 * size,
			               label_y, size, TP_ALIGN_RIGHT, -M_PI / 2,
			               name);
	}
	return TP_OK;
}

/* The size of the row labels, and the width of the margin they sit in. */
static double level_label_size(const struct view *v)
{
	return 0.85 * v->fs;
}

static double level_gutter(struct view *v)
{
	double widest = 0;
	char buf[32];

	for (int row = 0; row < v->rows; row++)
		widest = fmax(widest,
		              text_width(v, level_label_size(v),
		                         row_label(v, row, buf, sizeof(buf))));
	return widest + 0.8 * v->fs;
}

/* Each row's level in the left margin ("cores", "aggregation", ...). */
static void draw_levels(struct view *v)
{
	const tp_rgb ink = {0.35, 0.35, 0.35};
	double size = level_label_size(v);
	bool *used = calloc((size_t)v->rows + 1, sizeof(*used));
	char buf[32];

	/* Rows without a switch (a level the fabric skips) stay unnamed;
	 * without memory for the check every row is named. */
	for (uint32_t i = 0; used != NULL && i < v->nodes; i++) {
		const tp_fabric_node *n = tp_fabric_node_at(v->f, i);

		if (n->type != TP_FABRIC_CA)
			used[switch_row(v, n->level)] = true;
	}
	for (int row = 0; row < v->rows; row++) {
		double y = row == v->rows - 1
		               ? v->host_y
		               : v->plot_t + (row + 0.5) * v->row_gap;

		if (used != NULL && row < v->rows - 1 && !used[row])
			continue;
		tp_canvas_set_rgb(v->canvas, ink);
		tp_canvas_text(v->canvas, v->fs, y + 0.35 * size, size,
		               TP_ALIGN_LEFT, 0,
		               row_label(v, row, buf, sizeof(buf)));
		v->level_labels++;
	}
	free(used);
}

/* ---- the legend --------------------------------------------------------- */

/* The legend's entry for hosts no job runs on. */
#define IDLE_LABEL "idle (no job)"

/* The two load scales' labels: switch links, then host links. */
#define SWITCH_LOAD_LABEL "switch-link load (bytes per direction):"
#define HOST_LOAD_LABEL   "host-link load (a scale of its own):"

/* Where the load colour bars start and how wide they are (after the
 * longer label and the idle swatch); both bars are aligned. */
static void legend_bar(struct view *v, double *bar_x, double *bar_w)
{
	*bar_x = v->fs +
	         fmax(text_width(v, v->fs, SWITCH_LOAD_LABEL),
	              text_width(v, v->fs, HOST_LOAD_LABEL)) +
	         2.8 * v->fs;
	*bar_w = fmin(22 * v->fs, fmax(6 * v->fs, v->W * 0.3));
}

static const char *direction_note(const struct view *v)
{
	return v->agg ? "each link: two strokes, left = up (towards the "
	                "cores), right = down; hosts grouped by leaf"
	              : "each link: two strokes, left = up (towards the "
	                "cores), right = down";
}

/* Height the note's own lines add to the legend (0 beside the bar). */
static double legend_growth(const struct view *v)
{
	return v->note_below ? v->note_count * 1.3 * v->fs : 0;
}

/*
 * Where the note on directions goes: on the colour bar's line when it fits
 * between the bar and the right margin; else under it, wrapped at spaces
 * into lines as wide as the picture's margins allow (a word wider than
 * that is shrunk, or cut, by tp_canvas_text_fit when drawn).  The note is
 * never left out: without it nobody can tell the two strokes apart.
 */
static void layout_note(struct view *v)
{
	const char *text = direction_note(v), *p = text;
	double bar_x, bar_w, avail = v->W - 2 * v->fs;

	legend_bar(v, &bar_x, &bar_w);
	v->note_size = v->fs;
	v->note_count = 1;
	v->note_below = false;
	snprintf(v->note[0], sizeof(v->note[0]), "%s", text);
	if (bar_x + bar_w + 2 * v->fs + text_width(v, v->fs, text) <=
	    v->W - v->fs)
		return;
	v->note_below = true;
	v->note_count = 0;
	while (*p != '\0' && v->note_count < NOTE_LINES) {
		char *line = v->note[v->note_count++];
		size_t len = 0, fit = 0;

		/* the longest run of whole words that fits; at least one */
		for (;;) {
			const char *space = strchr(p + len + 1, ' ');
			size_t next = space ? (size_t)(space - p) : strlen(p);

			if (next >= sizeof(v->note[0]))
				break;
			snprintf(line, sizeof(v->note[0]), "%.*s", (int)next,
			         p);
			if (fit > 0 && text_width(v, v->fs, line) > avail)
				break;
			fit = len = next;
			if (p[len] == '\0')
				break;
		}
		if (fit == 0) /* one word longer than a line can hold */
			fit = strlen(p) < sizeof(v->note[0]) - 1
			          ? strlen(p)
			          : sizeof(v->note[0]) - 1;
		snprintf(line, sizeof(v->note[0]), "%.*s", (int)fit, p);
		p += fit;
		while (*p == ' ')
			p++;
		/* what the last line cannot take is cut by text_fit */
		if (v->note_count == NOTE_LINES && *p != '\0') {
			size_t used = strlen(line);

			snprintf(line + used, sizeof(v->note[0]) - used, " %s",
			         p);
			p += strlen(p);
		}
	}
}

/* The note on directions (see layout_note); the colour bar's top at
 * @bar_y. */
static void draw_note(struct view *v, double bar_y)
{
	const tp_rgb ink = {0, 0, 0};
	double bar_x, bar_w, fs = v->fs, avail = v->W - 2 * fs;

	legend_bar(v, &bar_x, &bar_w);
	tp_canvas_set_rgb(v->canvas, ink);
	if (!v->note_below) {
		double x = bar_x + bar_w + 2 * fs;

		tp_canvas_text(v->canvas, x, bar_y + 0.7 * fs, v->note_size,
		               TP_ALIGN_LEFT, 0, v->note[0]);
		v->legend_right =
		    fmax(v->legend_right,
		         x + text_width(v, v->note_size, v->note[0]));
		return;
	}
	for (int i = 0; i < v->note_count; i++) {
		double y = bar_y + 0.8 * fs + (i + 1) * 1.3 * fs - 0.3 * fs;
		double w = text_width(v, v->note_size, v->note[i]);

		tp_canvas_text_fit(v->canvas, fs, y, v->note_size, avail,
		                   TP_ALIGN_LEFT, v->note[i]);
		v->legend_right = fmax(v->legend_right, fs + fmin(w, avail));
	}
}

/* A legend swatch and its name at (@x, baseline @y), and their width. */
static double legend_item_width(struct view *v, const char *name)
{
	return v->fs + 0.3 * v->fs + text_width(v, v->fs, name) + 1.2 * v->fs;
}

static void legend_item(struct view *v, double x, double y, tp_rgb colour,
                        const char *name)
{
	const tp_rgb ink = {0, 0, 0};

	fill_rect(v, x, y - 0.8 * v->fs, v->fs, 0.8 * v->fs, colour);
	tp_canvas_set_rgb(v->canvas, ink);
	tp_canvas_text(v->canvas, x + 1.3 * v->fs, y, v->fs, TP_ALIGN_LEFT, 0,
	               name);
}

/*
 * One load scale at @bar_y (its top): @label, an idle swatch, then 0.2..1
 * of the sequential scale, ticked in bytes up to @max (no ticks when
 * nothing of the kind carries traffic).
 */
static void draw_load_bar(struct view *v, double bar_y, const char *label,
                          uint64_t max)
{
	const tp_rgb ink = {0, 0, 0}, frame = {0.3, 0.3, 0.3};
	double fs = v->fs, bar_h = 0.8 * fs, bar_x, bar_w, x;
	cairo_pattern_t *grad;
	unsigned ticks = 4;
	char buf[64];

	legend_bar(v, &bar_x, &bar_w);
	tp_canvas_set_rgb(v->canvas, ink);
	tp_canvas_text(v->canvas, fs, bar_y + 0.7 * fs, fs, TP_ALIGN_LEFT, 0,
	               label);
	x = bar_x - 2.2 * fs;
	fill_rect(v, x, bar_y, 1.5 * fs, bar_h, TP_FABRIC_VIEW_IDLE_LINK);
	tp_canvas_set_rgb(v->canvas, ink);
	tp_canvas_text(v->canvas, x + 0.75 * fs, bar_y - 0.25 * fs, 0.8 * fs,
	               TP_ALIGN_CENTER, 0, "idle");
	grad = cairo_pattern_create_linear(bar_x, 0, bar_x + bar_w, 0);
	for (int i = 0; i <= 8; i++) {
		tp_rgb c = tp_canvas_scale(0.2 + 0.8 * i / 8.0);

		cairo_pattern_add_color_stop_rgb(grad, i / 8.0, c.r, c.g, c.b);
	}
	cairo_new_path(v->cr);
	cairo_rectangle(v->cr, bar_x, bar_y, bar_w, bar_h);
	cairo_set_source(v->cr, grad);
	cairo_fill(v->cr);
	cairo_pattern_destroy(grad);
	tp_canvas_set_rgb(v->canvas, frame);
	cairo_set_line_width(v->cr, LEGEND_STROKE);
	cairo_new_path(v->cr);
	cairo_rectangle(v->cr, bar_x, bar_y, bar_w, bar_h);
	cairo_stroke(v->cr);
	v->load_bars++;
	if (max == 0)
		return;
	/* ticks at the loads the colours stand for, as many as fit without
	 * their labels running into each other */
	tp_canvas_set_rgb(v->canvas, ink);
	tp_canvas_format_bytes((double)max, buf, sizeof(buf));
	while (ticks > 1 &&
	       bar_w / ticks < 1.5 * text_width(v, 0.8 * fs, buf) + fs)
		ticks /= 2;
	for (unsigned i = 1; i <= ticks; i++) {
		double t = (double)i / ticks;

		tp_canvas_format_bytes(t * (double)max, buf, sizeof(buf));
		tp_canvas_text(v->canvas, bar_x + t * bar_w, bar_y - 0.25 * fs,
		               0.8 * fs,
		               i == ticks ? TP_ALIGN_RIGHT : TP_ALIGN_CENTER, 0,
		               buf);
	}
}

void tp_fabric_view_legend_name(const char *job, char *buf, size_t size)
{
	/* "idle" is the name a reader gives the grey swatch, whatever it
	 * says: a job of that name is marked as a job. */
	if (!strcasecmp(job, "idle") || !strcasecmp(job, IDLE_LABEL))
		snprintf(buf, size, "job %s", job);
	else
		snprintf(buf, size, "%s", job);
}

static void draw_legend(struct view *v, const tp_fabric_view_job *jobs,
                        size_t job_count)
{
	const tp_rgb ink = {0, 0, 0};
	double fs = v->fs, x = v->fs, y = v->H - 5.2 * fs - legend_growth(v);
	double bar_y = v->H - 1.9 * fs - legend_growth(v);
	char buf[64];

	/* Jobs while they fit, keeping room for "+N more" and idle: a job
	 * left out unnoticed would read as a colour nobody explains. */
	for (size_t j = 0; j < job_count; j++) {
		char name[160];
		double w, need;

		tp_fabric_view_legend_name(jobs[j].name, name, sizeof(name));
		w = legend_item_width(v, name);
		need = w + legend_item_width(v, IDLE_LABEL);

		if (j + 1 < job_count) {
			snprintf(buf, sizeof(buf), "+%zu more",
			         job_count - j - 1);
			need += text_width(v, fs, buf) + 1.2 * fs;
		}
		if (x + need > v->W - fs)
			break;
		legend_item(v, x, y, job_colour((int)j), name);
		x += w;
		v->legend_jobs++;
	}
	if (v->legend_jobs < job_count) {
		snprintf(buf, sizeof(buf), "+%zu more",
		         job_count - v->legend_jobs);
		tp_canvas_set_rgb(v->canvas, ink);
		tp_canvas_text(v->canvas, x, y, fs, TP_ALIGN_LEFT, 0, buf);
		x += text_width(v, fs, buf) + 1.2 * fs;
	}
	legend_item(v, x, y, TP_FABRIC_VIEW_IDLE_HOST, IDLE_LABEL);
	draw_load_bar(v, bar_y - 1.8 * fs, SWITCH_LOAD_LABEL,
	              v->max_switch_bytes);
	draw_load_bar(v, bar_y, HOST_LOAD_LABEL, v->max_host_bytes);
	draw_note(v, bar_y);
}

static void draw_titles(struct view *v, tp_fabric_view_stats *st,
                        const tp_fabric_view_job *jobs, size_t job_count)
{
	const tp_rgb ink = {0, 0, 0};
	char line[1024], max[64];
	bool traffic = false;

	for (size_t j = 0; j < job_count; j++)
		traffic |= jobs[j].traffic != NULL;
	tp_canvas_set_rgb(v->canvas, ink);
	if (v->o->title != NULL)
		snprintf(line, sizeof(line), "%s", v->o->title);
	else
		snprintf(line, sizeof(line), "Fabric %s",
		         tp_fabric_source(v->f));
	tp_canvas_text_fit(v->canvas, v->fs, 1.5 * v->fs, 1.3 * v->fs,
	                   v->W - 2 * v->fs, TP_ALIGN_LEFT, line);
	snprintf(line, sizeof(line),
	         "%" PRIu32 " hosts, %" PRIu32 " leaves, %d switch levels, "
	         "%" PRIu32 " links; %zu job%s%s",
	         v->hosts, v->leaves, tp_fabric_max_level(v->f), v->links,
	         job_count, job_count == 1 ? "" : "s",
	         v->agg ? "; hosts aggregated by leaf" : "");
	tp_canvas_text_fit(v->canvas, v->fs, 2.9 * v->fs, v->fs,
	                   v->W - 2 * v->fs, TP_ALIGN_LEFT, line);
	if (!traffic) {
		snprintf(st->caption, sizeof(st->caption),
		         "no traffic given: every link idle; routes: %s",
		         st->modelled_routes
		             ? "modelled (D-mod-k, not read from the fabric)"
		             : "real (the switches' forwarding tables)");
	} else {
		char host_max[64];

		tp_canvas_format_bytes((double)st->max_switch_bytes, max,
		                       sizeof(max));
		tp_canvas_format_bytes((double)st->max_host_bytes, host_max,
		                       sizeof(host_max));
		snprintf(st->caption, sizeof(st->caption),
		         "link loads predicted over %s; busiest switch link: "
		         "%s (%s); busiest host link: %s",
		         st->modelled_routes
		             ? "modelled routes (D-mod-k, not read from the "
		               "fabric)"
		             : "real routes (the switches' forwarding tables)",
		         st->busiest_switch[0] ? st->busiest_switch
		                               : "none, all idle",
		         max, host_max);
	}
	tp_canvas_text_fit(v->canvas, v->fs, 4.2 * v->fs, v->fs,
	                   v->W - 2 * v->fs, TP_ALIGN_LEFT, st->caption);
}

/* ---- the entry point -------------------------------------------------- */

static void view_free(struct view *v)
{
	free(v->host_job);
	free(v->port_bytes);
	free(v->nx);
	free(v->nw);
	free(v->ny);
	free(v->nh);
	free(v->hx);
	free(v->hw);
	free(v->lx);
	free(v->lw);
	for (int e = 0; e < 2; e++) {
		free(v->ax[e]);
		free(v->asp[e]);
	}
	free(v->lower);
}

static tp_status view_alloc(struct view *v, tp_error *err)
{
	size_t n = (size_t)v->nodes + 1, h = (size_t)v->hosts + 1;
	size_t l = (size_t)v->links + 1, k = (size_t)v->leaves + 1;

	v->host_job = malloc(h * sizeof(*v->host_job));
	v->port_bytes = calloc((size_t)v->ports + 1, sizeof(uint64_t));
	v->nx = calloc(n, sizeof(double));
	v->nw = calloc(n, sizeof(double));
	v->ny = calloc(n, sizeof(double));
	v->nh = calloc(n, sizeof(double));
	v->hx = calloc(h, sizeof(double));
	v->hw = calloc(h, sizeof(double));
	v->lx = calloc(k, sizeof(double));
	v->lw = calloc(k, sizeof(double));
	v->lower = calloc(l, sizeof(int));
	for (int e = 0; e < 2; e++) {
		v->ax[e] = calloc(l, sizeof(double));
		v->asp[e] = calloc(l, sizeof(double));
	}
	if (!v->host_job || !v->port_bytes || !v->nx || !v->nw || !v->ny ||
	    !v->nh || !v->hx || !v->hw || !v->lx || !v->lw || !v->lower ||
	    !v->ax[0] || !v->ax[1] || !v->asp[0] || !v->asp[1])
		return nomem(err);
	for (uint32_t i = 0; i < v->hosts; i++)
		v->host_job[i] = -1;
	return TP_OK;
}

/* The height that goes with an automatic width @w. */
static uint32_t auto_height(uint32_t w)
{
	return (uint32_t)fmin(fmax(w * 0.45, 700), 1800);
}

/* The image size for the fabric when the caller leaves it to us. */
static void auto_size(const struct view *v, uint32_t *w, uint32_t *h)
{
	uint32_t top = 0;
	double units = 0;

	for (int l = 2; l <= tp_fabric_max_level(v->f); l++)
		if (tp_fabric_switches_at(v->f, l) > top)
			top = tp_fabric_switches_at(v->f, l);
	if (v->agg)
		units = 22.0 * v->leaves;
	else
		units = 4.0 * (v->hosts + v->leaves);
	units = fmax(units, 9.0 * top);
	*w = (uint32_t)fmin(fmax(240 + units, AUTO_MIN_WIDTH), AUTO_MAX_WIDTH);
	*h = auto_height(*w);
}

/* Font size, margins and the layout of a @w x @h picture. */
static tp_status place(struct view *v, uint32_t w, uint32_t h, tp_error *err)
{
	v->W = w;
	v->H = h;
	v->fs = fmin(fmax(fmin(v->W / 140.0, v->H / 45.0), 9.0), 20.0);
	v->plot_l = v->fs + level_gutter(v);
	v->plot_r = v->W - 2 * v->fs;
	v->plot_t = 5.2 * v->fs;
	layout_note(v);
	v->plot_b = v->H - 6.8 * v->fs - 4.5 * v->fs - legend_growth(v);
	if (v->plot_b - v->plot_t < 40)
		v->plot_b = v->plot_t + 40;
	if (v->plot_r - v->plot_l < 40)
		v->plot_l = v->plot_r - 40;
	return layout(v, err);
}

/* The smallest pitch of any drawn link (see link_stroke). */
static double tightest_pitch(const struct view *v)
{
	double pitch = INFINITY;

	for (uint32_t l = 0; l < v->links; l++)
		if (link_drawn(v, l))
			pitch = fmin(pitch, fmin(v->asp[0][l], v->asp[1][l]));
	return pitch;
}

/*
 * The picture's size: the caller's, or ours, widened while some link has
 * less than DENSE_PITCH (a few rounds: the margins do not scale, so one
 * estimate falls a little short).
 */
static tp_status size_picture(struct view *v, uint32_t *w_out, uint32_t *h_out,
                              tp_error *err)
{
	uint32_t w, h;
	tp_status rc;

	auto_size(v, &w, &h);
	w = v->o->width ? v->o->width : w;
	h = v->o->height ? v->o->height : h;
	if ((rc = place(v, w, h, err)) != TP_OK)
		return rc;
	for (int round = 0; round < 4 && v->o->width == 0; round++) {
		double pitch = tightest_pitch(v), grown;

		if (!(pitch < DENSE_PITCH) || w >= AUTO_MAX_WIDTH)
			break;
		grown = ceil(w * 1.02 * DENSE_PITCH / fmax(pitch, 0.05));
		w = (uint32_t)fmin(grown, AUTO_MAX_WIDTH);
		if (v->o->height == 0)
			h = auto_height(w);
		if ((rc = place(v, w, h, err)) != TP_OK)
			return rc;
	}
	*w_out = w;
	*h_out = h;
	return TP_OK;
}

/* "leaf001[3] -> spine002[1]": the direction leaving port @p. */
static void name_direction(const struct view *v, uint32_t p, char *buf,
                           size_t len)
{
	const tp_fabric_port *port = tp_fabric_port_at(v->f, p);
	const tp_fabric_port *peer = tp_fabric_peer(v->f, p);

	snprintf(buf, len, "%s[%" PRIu32 "] -> %s[%" PRIu32 "]",
	         tp_fabric_node_at(v->f, port->node)->name, port->num,
	         peer ? tp_fabric_node_at(v->f, peer->node)->name : "?",
	         peer ? peer->num : 0);
}

/* The busiest direction of all, and of switch links and host links. */
static void find_busiest(struct view *v, tp_fabric_view_stats *st)
{
	uint32_t switch_port = TP_FABRIC_NONE;

	st->max_port = TP_FABRIC_NONE;
	for (uint32_t p = 0; p < v->ports; p++) {
		const tp_fabric_port *port = tp_fabric_port_at(v->f, p);
		uint64_t bytes = v->port_bytes[p];

		if (port->link == TP_FABRIC_NONE || bytes == 0)
			continue;
		if (bytes > st->max_bytes) {
			st->max_bytes = bytes;
			st->max_port = p;
		}
		if (link_touches_ca(v, port->link)) {
			if (bytes > st->max_host_bytes)
				st->max_host_bytes = bytes;
		} else if (bytes > st->max_switch_bytes) {
			st->max_switch_bytes = bytes;
			switch_port = p;
		}
	}
	if (st->max_port != TP_FABRIC_NONE)
		name_direction(v, st->max_port, st->busiest,
		               sizeof(st->busiest));
	if (switch_port != TP_FABRIC_NONE)
		name_direction(v, switch_port, st->busiest_switch,
		               sizeof(st->busiest_switch));
	v->max_switch_bytes = st->max_switch_bytes;
	v->max_host_bytes = st->max_host_bytes;
}

tp_status tp_fabric_view_render(const tp_fabric *fabric,
                                const tp_routes *routes,
                                const tp_fabric_view_job *jobs,
                                size_t job_count,
                                const tp_fabric_view_options *opts,
                                tp_fabric_view_stats *stats, tp_error *err)
{
	struct view v = {0};
	tp_fabric_view_stats st = {0};
	tp_routes *own = NULL;
	cairo_surface_t *scratch = NULL;
	tp_canvas_format format;
	uint32_t w, h;
	tp_status rc;

	if (fabric == NULL || opts == NULL || opts->path == NULL)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "fabric view: no fabric or no image path");
	if ((rc = tp_canvas_format_of(opts->path, &format, err)) != TP_OK)
		return rc;
	if (opts->width > TP_CANVAS_MAX_SIDE ||
	    opts->height > TP_CANVAS_MAX_SIDE ||
	    (opts->width != 0 && opts->width < 200) ||
	    (opts->height != 0 && opts->height < 150))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: image size %" PRIu32 "x%" PRIu32
		                    " out of range (200x150 to %ux%u)",
		                    opts->path, opts->width, opts->height,
		                    TP_CANVAS_MAX_SIDE, TP_CANVAS_MAX_SIDE);
	v.f = fabric;
	v.o = opts;
	v.nodes = tp_fabric_node_count(fabric);
	v.hosts = tp_fabric_host_count(fabric);
	v.leaves = tp_fabric_leaf_count(fabric);
	v.links = tp_fabric_link_count(fabric);
	v.ports = tp_fabric_port_count(fabric);
	v.agg = opts->aggregate == TP_FABRIC_VIEW_AGGREGATE_ALWAYS ||
	        (opts->aggregate == TP_FABRIC_VIEW_AGGREGATE_AUTO &&
	         v.hosts > TP_FABRIC_VIEW_AGGREGATE_HOSTS);
	if ((rc = view_alloc(&v, err)) != TP_OK)
		goto out;
	if ((rc = check_jobs(&v, jobs, job_count, err)) != TP_OK)
		goto out;
	if (routes == NULL) {
		if ((rc = tp_routes_new_dmodk(fabric, &own, err)) != TP_OK)
			goto out;
		routes = own;
	}
	st.modelled_routes = tp_routes_kind_of(routes) == TP_ROUTES_DMODK;
	if ((rc = load_links(&v, routes, jobs, job_count, err)) != TP_OK)
		goto out;
	find_busiest(&v, &st);

	/* Text is measured while laying out, before the image exists: a
	 * scratch context with the same font stands in for it. */
	scratch = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
	v.cr = cairo_create(scratch);
	if (cairo_status(v.cr) != CAIRO_STATUS_SUCCESS) {
		rc = nomem(err);
		goto out;
	}
	count_rows(&v);
	if ((rc = size_picture(&v, &w, &h, err)) != TP_OK)
		goto out;
	cairo_destroy(v.cr);
	v.cr = NULL;

	if ((rc = tp_canvas_open(opts->path, w, h, &v.canvas, err)) != TP_OK)
		goto out;
	v.cr = tp_canvas_cairo(v.canvas);
	if ((rc = draw_links(&v, err)) != TP_OK)
		goto out;
	if (v.agg && (rc = draw_bundles(&v, err)) != TP_OK)
		goto out;
	draw_switches(&v);
	if ((rc = draw_hosts(&v, job_count, err)) != TP_OK)
		goto out;
	draw_levels(&v);
	draw_legend(&v, jobs, job_count);
	draw_titles(&v, &st, jobs, job_count);
	rc = tp_canvas_close(v.canvas, err);
	v.canvas = NULL;
	v.cr = NULL;
	if (rc != TP_OK)
		goto out;
	st.width = w;
	st.height = h;
	st.aggregated = v.agg;
	st.link_elements = v.link_elements;
	st.thin_elements = v.thin_elements;
	st.bundle_elements = v.bundle_elements;
	st.loaded_directions = v.loaded;
	st.legend_jobs = v.legend_jobs;
	st.level_labels = v.level_labels;
	st.load_bars = v.load_bars;
	st.note_lines = (uint32_t)v.note_count;
	st.note_below = v.note_below;
	st.note_right = v.legend_right;
	if (stats != NULL)
		*stats = st;
out:
	if (v.canvas != NULL)
		tp_canvas_discard(v.canvas);
	else if (v.cr != NULL)
		cairo_destroy(v.cr);
	if (scratch != NULL)
		cairo_surface_destroy(scratch);
	tp_routes_free(own);
	view_free(&v);
	return rc;
}
