/*
 * pareto_graph.h: bench/peer_bench's "pareto" family, one copy for the
 * benchmark and for the tests that pin its inputs
 * (tests/unit/test_remap_fragmented.c): each rank sends to 4 random ranks
 * (and they back), Pareto(1.2) bytes from 10,000 up (capped at 10^12),
 * drawn from a seed.
 */
#ifndef TP_BENCH_PARETO_GRAPH_H
#define TP_BENCH_PARETO_GRAPH_H

#include <stdint.h>

#include "tp_error.h"
#include "traffic.h"

/* The pareto graph of @ranks ranks drawn from @seed, into *@out. */
tp_status pareto_graph(uint32_t ranks, uint64_t seed, tp_traffic **out,
                       tp_error *err);

#endif /* TP_BENCH_PARETO_GRAPH_H */
