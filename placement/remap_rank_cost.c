/*
 * remap_rank_cost.c: per-rank costs kept up to date by moves, so that a
 * rank's cost where it is never needs a scan of its neighbours.
 */
#include "tp_config.h"

#include <stdlib.h>

#include "remap_rank_cost.h"

tp_status tp_remap_rank_cost_init(tp_remap_rank_cost *rc,
                                  const tp_traffic_csr *g,
                                  const uint32_t *rank_pos,
                                  tp_remap_distance_fn distance,
                                  const void *ctx, tp_error *err)
{
	*rc = (tp_remap_rank_cost){g, rank_pos, distance, ctx, NULL, NULL};
	rc->cost = malloc(((size_t)g->ranks + 1) * sizeof(*rc->cost));
	rc->colocated = malloc(((size_t)g->ranks + 1) * sizeof(*rc->colocated));
	if (!rc->cost || !rc->colocated) {
		tp_remap_rank_cost_free(rc);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "remap: out of memory for the costs of %u "
		                    "ranks",
		                    g->ranks);
	}
	for (uint32_t r = 0; r < g->ranks; r++) {
		int64_t sum = 0, colocated = 0;

		for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1];
		     e++) {
			uint32_t nb_pos = rank_pos[g->col[e]];

			sum += (int64_t)g->weight[e] *
			       distance(ctx, rank_pos[r], nb_pos);
			if (nb_pos == rank_pos[r])
				colocated += (int64_t)g->weight[e];
		}
		rc->cost[r] = sum;
		rc->colocated[r] = colocated;
	}
	return TP_OK;
}

/*
 * Each arc of r changes length by the same amount at both ends, so r's
 * cost changes by the sum of its neighbours' changes; an arc joins or
 * leaves both ends' colocated bytes at once.
 */
void tp_remap_rank_cost_moved(tp_remap_rank_cost *rc, uint32_t r, uint32_t from)
{
	const tp_traffic_csr *g = rc->g;
	uint32_t to = rc->rank_pos[r];
	int64_t total = 0;

	if (to == from)
		return;
	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
		uint32_t nb = g->col[e], nb_pos = rc->rank_pos[nb];
		int64_t w = (int64_t)g->weight[e];
		int64_t change =
		    w * ((int64_t)rc->distance(rc->ctx, to, nb_pos) -
		         (int64_t)rc->distance(rc->ctx, from, nb_pos));

		rc->cost[nb] += change;
		total += change;
		if (nb_pos == from) {
			rc->colocated[nb] -= w;
			rc->colocated[r] -= w;
		} else if (nb_pos == to) {
			rc->colocated[nb] += w;
			rc->colocated[r] += w;
		}
	}
	rc->cost[r] += total;
}

void tp_remap_rank_cost_free(tp_remap_rank_cost *rc)
{
	if (!rc)
		return;
	free(rc->cost);
	free(rc->colocated);
	rc->cost = NULL;
	rc->colocated = NULL;
}
