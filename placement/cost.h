/*
 * cost.h: what a mapping of ranks to hosts costs on the fabric.
 *
 * Given a job's traffic, a tp_topo and rank -> host, this computes
 *   - hop-bytes: sum over pairs of bytes x hop distance (BACKGROUND.md §5);
 *   - bytes by hop class: on-node, same leaf, same pod, across pods
 *     (INTAP-MPI's classes);
 *   - per-leaf uplink bytes, up (leaving the leaf) and down (entering it),
 *     and the busiest leaf;
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
 * uplink (leaf up or down bytes / leaf_uplinks).  The paper's intra-socket
 * row is not used: a mapping to hosts does not say which socket a rank
 * gets, so on-node messages use the (slower) intra-node row.
 */
#ifndef TP_COST_H
#define TP_COST_H

#include <stdint.h>

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
	double contention_s;          /* delta x busiest link bytes */
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

#endif /* TP_COST_H */
