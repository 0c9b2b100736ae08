/*
 * pareto_graph.c: bench/peer_bench's "pareto" family (pareto_graph.h).
 */
#include "tp_config.h"

#include "pareto_graph.h"

#include <math.h>

/* splitmix64, as peer_bench draws everything else. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

tp_status pareto_graph(uint32_t ranks, uint64_t seed, tp_traffic **out,
                       tp_error *err)
{
	uint64_t st = seed * 7919 + ranks;
	tp_traffic *t;
	tp_status rc;

	if ((rc = tp_traffic_new(&t, ranks, err)) != TP_OK)
		return rc;
	for (uint32_t r = 0; r < ranks && ranks > 1; r++)
		for (int d = 0; d < 4; d++) {
			uint32_t o = (uint32_t)(rng_next(&st) % ranks);
			double u =
			    ((double)(rng_next(&st) >> 11) + 1.0) * 0x1.0p-53;
			double w = 10000.0 * pow(u, -1.0 / 1.2);

			if (o == r)
				continue;
			if (w > 1e12)
				w = 1e12;
			if ((rc = tp_traffic_add(t, r, o, (uint64_t)w, 1,
			                         err)) != TP_OK ||
			    (rc = tp_traffic_add(t, o, r, (uint64_t)w, 1,
			                         err)) != TP_OK) {
				tp_traffic_free(t);
				return rc;
			}
		}
	tp_traffic_normalize(t);
	*out = t;
	return TP_OK;
}
