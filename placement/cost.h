/*
 * cost.h: what a mapping of ranks to hosts costs on the fabric.
 *
 * Given a job's traffic, a tp_topo and rank -> host, this computes
 *   - hop-bytes: sum over pairs of bytes x hop distance (BACKGROUND.md §5);
 *   - bytes by hop class: on-node, same leaf, same pod, across pods
 *     (INTAP-MPI's classes);
 *   - per-leaf uplink bytes, up (leaving the leaf) and down (entering it),
 *     and the busiest leaf;
 *   - with a tp_fabric and its routes (read from the switches' forwarding
 *     tables or modelled D-mod-k, route.h): the bytes on every link
 *     direction, the busiest one, and sums by stage (host-leaf, leaf-spine,
 *     spine-core), see tp_cost_link_load;
 *   - a predicted communication time from the node-aware max-rate model
 *     with queue-search and contention terms (Bienz, Gropp, Olson;
 *     BACKGROUND.md §6), see tp_cost_params.
 *
 * The prediction, per rank i (the job takes as long as its slowest rank):
 *   T_i = sum over i's sends of
 *           on-node:  alpha + s / R_b
 *           off-node: alpha + ppn * s / min(R_N, ppn * R_b)
 *       + gamma * n_i^2 * rounds_i
 *   T   = max_i T_i + delta * l
 * with s = bytes / msgs of the pair (its mean message size, which also picks
 * the protocol: short, eager, rendezvous), ppn = ranks on the sender's host
 * that send off-node, n_i = distinct senders to i (messages outstanding in
 * one exchange), rounds_i = messages received by i / n_i (the matrices are
 * whole-run totals, so the quadratic queue term is charged per exchange,
 * not on the run's total), and l = the bytes crossing the busiest leaf
 * uplink (leaf up or down bytes / leaf_uplinks), an estimate that assumes
 * a leaf's traffic spreads evenly over its uplinks; when the routes are
 * known, tp_cost_link_contention puts the bytes of the busiest
 * switch-to-switch link direction in its place.  The paper's intra-socket
 * row is not used: a mapping to hosts does not say which socket a rank
 * gets, so on-node messages use the (slower) intra-node row.
 */
#ifndef TP_COST_H
#define TP_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "policy.h"
#include "route.h"
#include "topo.h"
#include "tp_error.h"
#include "traffic.h"

enum {
	TP_COST_ON_NODE = 0,
	TP_COST_SAME_LEAF,
	TP_COST_SAME_POD,
	TP_COST_OTHER_POD,
	TP_COST_CLASSES,
};

/* The hop class (TP_COST_ON_NODE ... TP_COST_OTHER_POD) between hosts @a
 * and @b of @topo: one definition for the cost model and the reports. */
unsigned tp_cost_hop_class(const tp_topo *topo, uint32_t a, uint32_t b);

enum { TP_COST_SHORT = 0, TP_COST_EAGER, TP_COST_REND, TP_COST_PROTOCOLS };

/* One protocol's row of the model for one locality. */
typedef struct tp_cost_rate {
	double alpha_s;       /* latency, seconds */
	double rate_Bps;      /* R_b, bytes/second of one process */
	double injection_Bps; /* R_N, bytes/second of a node (off-node only;
	                         INFINITY for no limit) */
} tp_cost_rate;

typedef struct tp_cost_params {
	uint64_t short_max_bytes; /* mean message size <= this: short */
	uint64_t eager_max_bytes; /* <= this: eager; above: rendezvous */
	tp_cost_rate node[TP_COST_PROTOCOLS]; /* on-node */
	tp_cost_rate net[TP_COST_PROTOCOLS];  /* off-node */
	double queue_gamma_s;                 /* gamma */
	double contention_delta_s_per_byte;   /* delta */
	uint32_t leaf_uplinks;                /* links sharing a leaf's load */
} tp_cost_params;

/*
 * Blue Waters (Bienz et al., Table 1 and eqs. 4, 6); protocol limits
 * 512 B / 8 KiB (Cray MPICH's defaults, an assumption: the paper does not
 * state them); leaf_uplinks 1.
 */
tp_cost_params tp_cost_default_params(void);

/*
 * Read a parameter file: `key = value` lines, `#` comments, blank lines.
 * Keys: short_max_bytes, eager_max_bytes, node.{short,eager,rend}.alpha_s,
 * node.{short,eager,rend}.rate_Bps, net.{short,eager,rend}.alpha_s,
 * net.{short,eager,rend}.rate_Bps, net.{short,eager,rend}.injection_Bps
 * (a number or "inf"), queue_gamma_s, contention_delta_s_per_byte,
 * leaf_uplinks.  Keys not given keep the defaults.  Errors (TP_ERR_PARSE,
 * TP_ERR_IO) name the file, the line and the key: unknown or repeated key,
 * value not a finite number, a rate or alpha <= 0, gamma or delta < 0,
 * short_max_bytes >= eager_max_bytes, leaf_uplinks 0.
 */
tp_status tp_cost_params_read_file(const char *path, tp_cost_params *params,
                                   tp_error *err);

/* The same on text in memory (@name labels errors). */
tp_status tp_cost_params_parse(const char *name, const char *text,
                               tp_cost_params *params, tp_error *err);

typedef struct tp_cost_report {
	uint64_t hop_bytes;
	uint64_t class_bytes[TP_COST_CLASSES];
	uint64_t class_msgs[TP_COST_CLASSES];
	uint64_t max_leaf_up_bytes;   /* busiest leaf, leaving it */
	uint64_t max_leaf_down_bytes; /* busiest leaf, entering it */
	uint32_t max_leaf;            /* leaf with max(up, down); NONE if 0 */
	double maxrate_s;             /* slowest rank's max-rate time */
	double queue_s;               /* that rank's queue search time */
	double contention_s;          /* delta x busiest link bytes (leaf
	                                 uplink estimate, or routed: see
	                                 tp_cost_link_contention) */
	double predicted_s;           /* maxrate_s + queue_s + contention_s */
} tp_cost_report;

/*
 * Hop-bytes of @rank_host (traffic->ranks host indices into @topo) for a
 * normalized @traffic: sum of bytes x tp_topo_distance, saturating at
 * UINT64_MAX (as every byte sum of the report does).  No checks: the
 * caller guarantees valid host indices.
 */
uint64_t tp_cost_hop_bytes(const tp_topo *topo, const tp_traffic *traffic,
                           const uint32_t *rank_host);

/*
 * Everything above for mapping @rank_host.  @params NULL = defaults.
 * @leaf_up_bytes / @leaf_down_bytes, if not NULL, receive
 * tp_topo_leaf_count(topo) per-leaf values.  Fails (TP_ERR_INVALID) on a
 * host index outside @topo, naming the rank; TP_ERR_NOMEM.
 */
tp_status tp_cost_evaluate(const tp_topo *topo, const tp_traffic *traffic,
                           const uint32_t *rank_host,
                           const tp_cost_params *params, tp_cost_report *report,
                           uint64_t *leaf_up_bytes, uint64_t *leaf_down_bytes,
                           tp_error *err);

/* ---- per-link load over the fabric's routes -------------------------- */

/*
 * Link stages, by the levels of a link's two ends (fabric.h levels: CA 0,
 * leaf 1, spine/aggregation 2, core 3): host-leaf, leaf-spine, spine-core;
 * "other" for links between switches of one level, of unlevelled switches
 * or above level 3.  Each stage has an up and a down direction.  Shared by
 * a job's MPI traffic (here) and its I/O (ioserver.h names these types
 * tp_io_stage, tp_io_link_load).
 */
typedef enum tp_link_stage {
	TP_LINK_STAGE_HOST_LEAF = 0,
	TP_LINK_STAGE_LEAF_SPINE,
	TP_LINK_STAGE_SPINE_CORE,
	TP_LINK_STAGE_OTHER,
	TP_LINK_STAGES
} tp_link_stage;

typedef struct tp_link_stage_load {
	double up_bytes, down_bytes; /* summed over the stage's links */
	uint32_t up_dirs, down_dirs; /* link directions carrying traffic */
	double max_bytes;            /* busiest direction of the stage */
	uint32_t max_port;           /* its port, or TP_FABRIC_NONE */
} tp_link_stage_load;

/*
 * Bytes per link direction.  A direction is named by the fabric port the
 * traffic leaves through (tp_fabric_port_at; its peer is the receiving
 * end), so the two directions of a cable are two ports.  port_bytes is
 * indexed by port and owned by the load (tp_link_load_free).  Of equally
 * busy directions the one with the lowest port index is named.  Bytes are
 * doubles because I/O is striped in fractions of a byte; whole bytes stay
 * exact up to 2^53 (8 PiB) per direction.
 */
typedef struct tp_link_load {
	tp_routes_kind kind; /* LFT: read from the switches; DMODK: modelled */
	double *port_bytes;
	uint32_t port_count;
	uint32_t max_port;        /* busiest direction, or TP_FABRIC_NONE */
	double max_bytes;         /* (host access links included) */
	uint32_t max_fabric_port; /* busiest switch-to-switch direction */
	double max_fabric_bytes;
	uint32_t loaded_dirs;  /* link directions carrying any traffic */
	uint32_t loaded_links; /* cables with traffic in either direction */
	double link_bytes;     /* sum over directions: the routed hop-bytes */
	double fabric_bytes;   /* the part on switch-to-switch links */
	tp_link_stage_load stage[TP_LINK_STAGES];
} tp_link_load;

/*
 * Building a load from paths, for callers with their own traffic pattern
 * (tp_cost_link_load and tp_ioserver_link_load use these):
 * tp_link_load_start empties @load and gives it a zeroed port_bytes for
 * @fabric (TP_ERR_NOMEM); tp_link_load_add_path adds @bytes to every
 * direction of the path from fabric host @src to @dst over @routes
 * (nothing when src == dst or bytes <= 0; errors are the routes', e.g.
 * TP_ERR_NOTFOUND for a pair without a route, for the caller to prefix);
 * tp_link_load_finish fills the busiest directions, counts and stages
 * from port_bytes.  @routes must belong to @fabric.
 */
tp_status tp_link_load_start(const tp_fabric *fabric, const tp_routes *routes,
                             tp_link_load *load, tp_error *err);
tp_status tp_link_load_add_path(tp_link_load *load, const tp_routes *routes,
                                uint32_t src, uint32_t dst, double bytes,
                                tp_error *err);
void tp_link_load_finish(const tp_fabric *fabric, tp_link_load *load);

/*
 * The path of tp_link_load_add_path under adaptive routing: the host
 * links are @routes', but between the leaves a packet may take any
 * up-link of a minimal up-down path, so at each climbing switch the bytes
 * split evenly over its up-links (and, going down, over the down-links
 * that reach the destination's leaf).  Under D-mod-K every pair to one
 * destination port climbs through one up-link; under adaptive routing the
 * same traffic spreads over all of them (bench/ioserver_sim_bench.sh:
 * servers on one port of every leaf move 37.5% of the dedicated leaves'
 * I/O under D-mod-K, 118% under adaptive routing).  Work per pair: the
 * minimal paths, bounded by TP_ROUTE_MAX_HOPS levels.  Errors: the
 * routes' (for the host links), TP_ERR_NOTFOUND when a switch has neither
 * an up-link nor a down-link toward the destination's leaf, TP_ERR_LIMIT
 * past TP_ROUTE_MAX_HOPS; on an error @load may hold part of the path.
 */
tp_status tp_link_load_add_spread_path(tp_link_load *load,
                                       const tp_fabric *fabric,
                                       const tp_routes *routes, uint32_t src,
                                       uint32_t dst, double bytes,
                                       tp_error *err);

/*
 * The path model of @routing: tp_link_load_add_spread_path under adaptive
 * routing, tp_link_load_add_path (the routes' own path) under static
 * routing; the same errors.  Every link-load figure that depends on the
 * site's routing (the I/O server comparison of `topoplace place`) adds
 * its pairs through here.
 */
tp_status tp_link_load_add_routed_path(tp_link_load *load,
                                       const tp_fabric *fabric,
                                       const tp_routes *routes,
                                       tp_routing routing, uint32_t src,
                                       uint32_t dst, double bytes,
                                       tp_error *err);

/* Frees port_bytes and empties @load (NULL-safe; idempotent). */
void tp_link_load_free(tp_link_load *load);

/* "host-leaf", "leaf-spine", "spine-core", "other". */
const char *tp_link_stage_name(tp_link_stage stage);

/*
 * The direction leaving through port index @port of @fabric as text in
 * the caller's @buf (@len bytes, truncated to fit): "leaf001[6]->
 * spine002[1]" (node[port] at each end), "-" for TP_FABRIC_NONE or a port
 * out of range, "leaf001[7]->?" for an uncabled port.  Returns @buf.
 */
const char *tp_link_dir_name(const tp_fabric *fabric, uint32_t port, char *buf,
                             size_t len);

/* True when the direction leaving through @port climbs (to a higher
 * level: host to leaf, leaf to spine, spine to core). */
bool tp_link_dir_is_up(const tp_fabric *fabric, uint32_t port);

/*
 * The bytes @traffic puts on every link direction of @fabric when rank r
 * runs on @topo host rank_host[r] and each pair of hosts talks over its
 * path in @routes (which must belong to @fabric).  @topo is the hierarchy
 * of @fabric or of the same hosts; hosts are matched by name.  Each byte
 * is counted once per link it crosses, so with minimal up-down routes
 * load->link_bytes equals the mapping's hop-bytes; on-node traffic loads
 * no link.  Errors: TP_ERR_INVALID (NULL argument, a rank on a host index
 * outside @topo: "cost links: rank 3 on host index 9, the hierarchy has 8
 * hosts"), TP_ERR_NOTFOUND for a host @fabric does not have ("cost links:
 * rank 3's host 'n0099' is not a host of <fabric source>"), the routes'
 * error for a pair without a route prefixed with the hosts ("cost links:
 * n0001 -> n0005: ..."), TP_ERR_NOMEM.  On failure @load is empty.  Free
 * with tp_link_load_free.
 */
tp_status tp_cost_link_load(const tp_fabric *fabric, const tp_routes *routes,
                            const tp_topo *topo, const tp_traffic *traffic,
                            const uint32_t *rank_host, tp_link_load *load,
                            tp_error *err);

/*
 * Replace @report's contention term by delta x the bytes of the busiest
 * switch-to-switch link direction of @links (the routed load of the same
 * mapping) and recompute predicted_s.  @params NULL = defaults;
 * leaf_uplinks plays no part: the routes say where the bytes go.
 */
void tp_cost_link_contention(tp_cost_report *report,
                             const tp_cost_params *params,
                             const tp_link_load *links);

#endif /* TP_COST_H */
