/*
 * scotch_peer.h: the Scotch peer of the remapping benchmarks and tests, the
 * way a site would map ranks with Scotch's gmap: the job's graph (loads
 * scaled to sum to 2^24) mapped by SCOTCH_graphMap with the default
 * strategy, one thread, deterministic (gmap -Cd) with the given seed,
 * balance 0, onto the allocated slots (SCOTCH_archSub) of a tree-leaf
 * target of the whole fat tree: pods (3-level only), leaves per pod, hosts
 * per leaf, slots per host, link costs 20, 20, 20 (19 when slots follow)
 * and 1, so that the target's distances are the fabric's hops x 10.
 *
 * One copy for bench/peer_bench (a peer in the tables of bench/RESULTS.md)
 * and tests/unit/test_remap_fragmented (an oracle the remapper must never
 * be above).  Written from Scotch's manual, not from
 * placement/remap_scotch.c, the remapper's own Scotch candidate.
 */
#ifndef TP_BENCH_SCOTCH_PEER_H
#define TP_BENCH_SCOTCH_PEER_H

#include <stdint.h>
#include <stdio.h> /* scotch.h needs FILE */

#include <scotch/scotch.h>

#include "remap.h"
#include "traffic.h"

/* A regular fat tree whose hosts are numbered pod by pod, leaf by leaf. */
struct scotch_peer_tree {
	int levels; /* 2 or 3 */
	uint32_t pods, leaves_per_pod, hosts_per_leaf, rpn;
};

/*
 * The target's levels, top-down: their arity in @size and link cost in
 * @link (4 entries each); returns the level count.  bench/peer_bench's
 * TreeMatch peer builds its tree from them too.
 */
int scotch_peer_levels(const struct scotch_peer_tree *tree, SCOTCH_Num *size,
                       SCOTCH_Num *link);

/*
 * Map the ranks of @t onto @hosts (@nhosts, each with tree->rpn slots),
 * seed @seed: @rank_host (t->ranks entries) receives host indices.
 * Returns 0, or -1 with what failed in *@why.
 */
int scotch_peer_map(const struct scotch_peer_tree *tree,
                    const tp_remap_host *hosts, uint32_t nhosts,
                    const tp_traffic *t, uint64_t seed, uint32_t *rank_host,
                    const char **why);

#endif /* TP_BENCH_SCOTCH_PEER_H */
