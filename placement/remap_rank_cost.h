/*
 * remap_rank_cost.h: every rank's hop-bytes at the position it is on,
 * kept exact while the remapper's refinement moves ranks (remap.c).
 *
 * The refinement tries many swap partners for each rank it moves, and
 * the gain of a swap needs the partner's cost where it is and where it
 * would go: two scans of the partner's neighbours, the larger part of
 * the refinement's time at 128-2,048 ranks (bench/RESULTS.md, issue 16).
 * Ranks move seldom next to how often they are tried, so the cost where
 * each rank is is kept here instead, and its bytes with the ranks at its
 * own position (every one of them is at least 2 hops away from any other
 * position, so a partner's cost elsewhere has a lower bound without a
 * scan, and most partners are ruled out by it): a move updates the moved
 * rank and its neighbours, O(degree).
 *
 * Positions are the caller's (allocation positions, any uint32_t the
 * distance function takes); the caller owns the graph and the position
 * array, which this reads at every call and never writes.  Costs are
 * signed 64-bit sums of bytes x distance: the caller keeps them from
 * overflowing (remap.c refines only matrices of at most 2^58 bytes with
 * distances of at most 255).  Not shared between threads.
 */
#ifndef TP_REMAP_RANK_COST_H
#define TP_REMAP_RANK_COST_H

#include <stdint.h>

#include "tp_error.h"
#include "traffic.h"

/* Hops between positions @a and @b (0 when equal); must be symmetric. */
typedef unsigned (*tp_remap_distance_fn)(const void *ctx, uint32_t a,
                                         uint32_t b);

typedef struct tp_remap_rank_cost {
	const tp_traffic_csr *g;  /* undirected: each arc in both rows */
	const uint32_t *rank_pos; /* the caller's: rank -> position */
	tp_remap_distance_fn distance;
	const void *ctx;
	/* per rank: sum of weight x distance to each neighbour, exact */
	int64_t *cost;
	/* per rank: sum of weight to the neighbours at its position */
	int64_t *colocated;
} tp_remap_rank_cost;

/*
 * Every rank's cost at rank_pos[rank] over @g.  Keeps @g, @rank_pos,
 * @distance and @ctx (they must outlive @rc).  Free with
 * tp_remap_rank_cost_free.  Errors: TP_ERR_NOMEM.
 */
tp_status tp_remap_rank_cost_init(tp_remap_rank_cost *rc,
                                  const tp_traffic_csr *g,
                                  const uint32_t *rank_pos,
                                  tp_remap_distance_fn distance,
                                  const void *ctx, tp_error *err);

/*
 * Rank @r has just moved from position @from to rank_pos[r]; every other
 * rank is where it was at the last call (a swap is two calls, with the
 * position array updated for one rank before each).
 */
void tp_remap_rank_cost_moved(tp_remap_rank_cost *rc, uint32_t r,
                              uint32_t from);

/* Frees the arrays (not @rc; NULL-safe). */
void tp_remap_rank_cost_free(tp_remap_rank_cost *rc);

#endif /* TP_REMAP_RANK_COST_H */
