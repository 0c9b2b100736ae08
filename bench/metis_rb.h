/*
 * metis_rb.h: the METIS-rb peer of the remapping benchmarks and tests, the
 * way a site would map ranks by hand with METIS: recursive bisection down
 * the allocation's own tree (pods -> leaves -> hosts, children in
 * allocation order, a level with one child passed through), one
 * METIS_PartGraphRecursive call per node with target weights in proportion
 * to the children's slots, one try, METIS's default coarsening, edge
 * weights scaled to sum to 2^28; then a vertex of a part over its slots,
 * in segment order, moves to the part with room it is most bound to.
 *
 * One copy for bench/peer_bench (a peer in the tables of bench/RESULTS.md)
 * and tests/unit/test_remap_fragmented (the oracle the remapper must never
 * be above).  It is written from the method's description, not from
 * placement/remap.c, so the test does not check the remapper against
 * itself.
 */
#ifndef TP_BENCH_METIS_RB_H
#define TP_BENCH_METIS_RB_H

#include <stdint.h>

#include "remap.h"
#include "topo.h"
#include "tp_error.h"
#include "traffic.h"

/*
 * Map the ranks of @traffic onto @hosts (allocation order; a pod's and a
 * leaf's hosts adjacent, as Slurm lists them) with seed @seed.
 * @rank_host (@traffic->ranks entries, the caller's) receives topo host
 * indices.  Errors: TP_ERR_NOMEM, and those of tp_traffic_csr_build.
 */
tp_status metis_rb_map(const tp_topo *topo, const tp_traffic *traffic,
                       const tp_remap_host *hosts, uint32_t host_count,
                       uint64_t seed, uint32_t *rank_host, tp_error *err);

#endif /* TP_BENCH_METIS_RB_H */
