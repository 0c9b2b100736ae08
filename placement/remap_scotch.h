/*
 * remap_scotch.h: one of the remapper's candidates, Scotch's static mapping
 * of the job's graph onto the allocated slots (issue 16).
 *
 * Scotch (libscotch) maps a graph onto a target architecture by dual
 * recursive bipartitioning; on scattered allocations of 16-4,096 ranks at
 * 1 and 4 ranks per host it found lower hop-bytes than every METIS
 * partition of the remapper on some inputs (bench/RESULTS.md, issue 16).
 * The target is a tree-leaf architecture built from the fabric (pods,
 * leaves per pod, hosts per leaf, slots per host: the largest of each, so
 * an uneven fabric fits), restricted to the allocated slots; link costs
 * 20 per switch level and 1 between the slots of one host, so Scotch's
 * distances follow the hops of tp_topo_distance (2, 4, 6) x 10.  This is
 * the call bench/peer_bench makes for its Scotch peer, so on its fabrics
 * the candidate is that peer's mapping.
 *
 * Built only with Scotch (configure finds libscotch-dev; --without-scotch
 * leaves it out): tp_remap_scotch_available says whether it is.
 */
#ifndef TP_REMAP_SCOTCH_H
#define TP_REMAP_SCOTCH_H

#include <stdbool.h>
#include <stdint.h>

#include "remap.h"
#include "topo.h"
#include "tp_error.h"
#include "traffic.h"

/* Whether this build has Scotch (else tp_remap_scotch_map refuses). */
bool tp_remap_scotch_available(void);

/*
 * Map the ranks of @g (undirected CSR, g->ranks <= the allocation's slots)
 * onto @hosts: rank_hl[r] = allocation position.  Deterministic for
 * @seed.  TP_ERR_UNSUPPORTED without Scotch; TP_ERR_INTERNAL, with what
 * Scotch refused, when it fails (the caller keeps its other candidates).
 */
tp_status tp_remap_scotch_map(const tp_topo *topo, const tp_remap_host *hosts,
                              uint32_t host_count, const tp_traffic_csr *g,
                              uint64_t seed, uint32_t *rank_hl, tp_error *err);

#endif
