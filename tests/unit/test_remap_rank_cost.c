/*
 * test_remap_rank_cost.c: the per-rank costs and bytes with colocated
 * ranks the refinement keeps (placement/remap_rank_cost.h) equal those
 * recomputed from scratch after any sequence of moves and swaps, on random
 * graphs and placements.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "remap_rank_cost.h"
#include "traffic.h"

enum { POSITIONS = 24, PER_LEAF = 4, LEAVES_PER_POD = 3 };

static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A fat tree's hops between positions: host 0, leaf 2, pod 4, else 6. */
static unsigned tree_distance(const void *ctx, uint32_t a, uint32_t b)
{
	(void)ctx;
	if (a == b)
		return 0;
	if (a / PER_LEAF == b / PER_LEAF)
		return 2;
	return a / (PER_LEAF * LEAVES_PER_POD) ==
	               b / (PER_LEAF * LEAVES_PER_POD)
	           ? 4
	           : 6;
}

/* @n ranks, each sending to @degree random others, random bytes. */
static tp_traffic_csr *random_graph(uint32_t n, unsigned degree,
                                    uint64_t *state)
{
	tp_traffic *t;
	tp_traffic_csr *g;
	tp_error err;

	assert_int_equal(tp_traffic_new(&t, n, &err), TP_OK);
	for (uint32_t r = 0; r < n; r++)
		for (unsigned d = 0; d < degree; d++)
			assert_int_equal(
			    tp_traffic_add(
			        t, r, (uint32_t)(rng_next(state) % n),
			        1 + rng_next(state) % 100000, 1, &err),
			    TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_traffic_csr_build(t, TP_TRAFFIC_CSR_UNDIRECTED, &g, &err),
	    TP_OK);
	tp_traffic_free(t);
	return g;
}

static void assert_costs_from_scratch(const tp_remap_rank_cost *rc,
                                      const tp_traffic_csr *g,
                                      const uint32_t *pos)
{
	for (uint32_t r = 0; r < g->ranks; r++) {
		int64_t sum = 0, colocated = 0;

		for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1];
		     e++) {
			sum += (int64_t)g->weight[e] *
			       tree_distance(NULL, pos[r], pos[g->col[e]]);
			if (pos[g->col[e]] == pos[r])
				colocated += (int64_t)g->weight[e];
		}
		assert_int_equal(rc->cost[r], sum);
		assert_int_equal(rc->colocated[r], colocated);
	}
}

static void test_costs_after_random_moves_equal_costs_from_scratch(void **st)
{
	uint64_t state = 16;
	uint32_t n = 60, pos[60];
	tp_traffic_csr *g = random_graph(n, 5, &state);
	tp_remap_rank_cost rc;
	tp_error err;

	(void)st;
	for (uint32_t r = 0; r < n; r++)
		pos[r] = (uint32_t)(rng_next(&state) % POSITIONS);
	assert_int_equal(
	    tp_remap_rank_cost_init(&rc, g, pos, tree_distance, NULL, &err),
	    TP_OK);
	assert_costs_from_scratch(&rc, g, pos);
	for (int step = 0; step < 500; step++) {
		uint32_t r = (uint32_t)(rng_next(&state) % n), from = pos[r];

		pos[r] = (uint32_t)(rng_next(&state) % POSITIONS);
		tp_remap_rank_cost_moved(&rc, r, from);
		assert_costs_from_scratch(&rc, g, pos);
	}
	tp_remap_rank_cost_free(&rc);
	tp_traffic_csr_free(g);
}

/* A swap of two neighbours too: the edge between them is counted once. */
static void test_costs_after_random_swaps_equal_costs_from_scratch(void **st)
{
	uint64_t state = 17;
	uint32_t n = 40, pos[40];
	tp_traffic_csr *g = random_graph(n, 8, &state);
	tp_remap_rank_cost rc;
	tp_error err;
	unsigned neighbour_swaps = 0;

	(void)st;
	for (uint32_t r = 0; r < n; r++)
		pos[r] = (uint32_t)(rng_next(&state) % POSITIONS);
	assert_int_equal(
	    tp_remap_rank_cost_init(&rc, g, pos, tree_distance, NULL, &err),
	    TP_OK);
	for (int step = 0; step < 500; step++) {
		uint32_t r = (uint32_t)(rng_next(&state) % n), s;
		uint32_t pr = pos[r], ps;

		/* Every other swap with one of r's neighbours. */
		if (step % 2 && g->row_start[r] < g->row_start[r + 1]) {
			s = g->col[g->row_start[r] +
			           rng_next(&state) %
			               (g->row_start[r + 1] - g->row_start[r])];
			neighbour_swaps++;
		} else {
			s = (uint32_t)(rng_next(&state) % n);
		}
		ps = pos[s];
		pos[r] = ps;
		tp_remap_rank_cost_moved(&rc, r, pr);
		pos[s] = pr;
		tp_remap_rank_cost_moved(&rc, s, ps);
		assert_costs_from_scratch(&rc, g, pos);
	}
	assert_true(neighbour_swaps > 100);
	tp_remap_rank_cost_free(&rc);
	tp_traffic_csr_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_costs_after_random_moves_equal_costs_from_scratch),
	    cmocka_unit_test(
	        test_costs_after_random_swaps_equal_costs_from_scratch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
