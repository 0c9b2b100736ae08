/*
 * remap.h: which rank runs on which allocated host and slot.
 *
 * Input: the job's traffic, the hosts Slurm allocated (indices into a
 * tp_topo, each with a slot count; slot counts may differ, leaves may be
 * used unevenly, ranks may be fewer than slots) and a seed.  Output:
 * rank -> (host, slot).
 *
 * tp_remap_compute partitions the ranks following the fabric (pods ->
 * leaves -> hosts) with METIS, each level's target part sizes coming from
 * the children's slot capacities, repairs part sizes exactly, then refines
 * by moves and swaps that directly lower hop-bytes, with gains from the CSR
 * neighbour lists.  Several partitions compete; the lowest hop-bytes wins.
 *
 * - At every size: the plain METIS recursive bisection of the
 *   allocation's own tree (children in allocation order, targets in
 *   proportion to their slots, one try: bench/peer_bench's metis-rb
 *   peer), kept unrefined and refined, so the result is never worse than
 *   that method on any allocation, contiguous or scattered.  Above 4,096
 *   ranks it is the only partition (the others paid nothing there).
 * - Up to 4,096 ranks, after it: hierarchical partitions with targets
 *   packed into as few children as fit (1 try per split, seed .. seed + 3;
 *   then 4 tries per split, seed + 3, + 4, ...) and, when at least 1/64 of
 *   the slots stay idle, spread in proportion to the children's slots (4
 *   tries).  They run in that order while their METIS work (vertices +
 *   arcs per bisection level and try: a count, not a clock, so the result
 *   does not depend on load) stays within 8 times the bisection's up to
 *   2,048 ranks and 1 time above; the first always runs.  The best is
 *   polished with swaps against any rank of a neighbour's leaf.  Jobs of
 *   at most 16 ranks try only the bisection and the first packed
 *   partition (and Scotch's mapping), larger jobs on at most 8 hosts the
 *   first 5 METIS candidates (tp_remap_search AUTO, below).
 * - Built with Scotch (remap_scotch.h), for jobs of up to 4,096 ranks:
 *   Scotch's static mapping onto the allocated slots, refined like the
 *   partitions.  It is bench/peer_bench's Scotch peer, so the result is
 *   never above that peer either; AUTO then keeps only the bisection,
 *   the first packed partition and Scotch's mapping (and the spread one
 *   when slots stay idle) on more than 8 hosts, and above 2,048 ranks no
 *   packed partition (below).
 * - The block mapping (ranks filling the hosts in the given order, the
 *   mapping the job would get anyway), as is and refined (only when it
 *   is within 17/16 of the partition's hop-bytes); ties
 *   go to block: the result is never worse than block.
 * - On allocations of 2..256 hosts over several leaves, the winner then
 *   trades whole hosts' contents between leaves (best partner per host,
 *   exact gains from host-to-host bytes), is refined again, and is kept
 *   only when strictly lower.
 *
 * Deterministic for a seed.  Time and memory near-linear in ranks +
 * nonzeros; nothing dense but the host swaps' table (at most 256 x 256).
 */
#ifndef TP_REMAP_H
#define TP_REMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "topo.h"
#include "tp_error.h"
#include "tp_log.h"
#include "traffic.h"

typedef struct tp_remap_host {
	uint32_t host;  /* index into the tp_topo */
	uint32_t slots; /* >= 1 */
} tp_remap_host;

/* A placement: two arrays of @ranks entries, owned by the struct. */
typedef struct tp_remap_mapping {
	uint32_t ranks;
	uint32_t *rank_host; /* tp_topo host index of each rank */
	uint32_t *rank_slot; /* 0 .. slots - 1 on that host */
} tp_remap_mapping;

/* Frees the arrays of @mapping (not the struct; NULL-safe). */
void tp_remap_mapping_free(tp_remap_mapping *mapping);

typedef enum tp_remap_method {
	TP_REMAP_BLOCK,  /* fill hosts in order */
	TP_REMAP_CYCLIC, /* round-robin over hosts with free slots */
	TP_REMAP_RANDOM, /* a seeded random permutation of the slots */
	TP_REMAP_TOPO,   /* tp_remap_compute */
} tp_remap_method;

/* "block", "cyclic", "random", "remap"; NULL for an unknown value. */
const char *tp_remap_method_name(tp_remap_method method);

/* Parse a method name; TP_ERR_INVALID names the bad value. */
tp_status tp_remap_method_parse(const char *name, tp_remap_method *method,
                                tp_error *err);

typedef struct tp_remap_stats {
	uint64_t block_hop_bytes;     /* the block mapping */
	uint64_t partition_hop_bytes; /* hierarchical METIS, before refining */
	uint64_t refined_hop_bytes;   /* hierarchical METIS + refinement */
	uint64_t hop_bytes;           /* the mapping returned */
	const char *chosen; /* "partition", "block+refine" or "block" */
	/* the candidate behind "partition": "bisection", "hierarchical",
	 * "scotch" (Scotch's mapping, remap_scotch.h) or "flat" (the
	 * bisection of the hosts alone, leaves and pods left out) */
	const char *partition;
	uint64_t moves; /* refinement moves and swaps applied */
	/* whole hosts' contents traded between leaves in the result */
	uint64_t host_swaps;
	/* candidate partitions made and refined, the bisection included
	 * (0: block only: nothing crosses a host, or one rank) */
	uint32_t partitions;
} tp_remap_stats;

/*
 * Expand a Slurm hostlist (`n[0001-0004,0007],m1`, tp_hostlist_expand)
 * into hosts of @topo with @slots slots each, in the list's order.  *hosts
 * is malloc'd (caller frees).  Errors start "hostlist '<expression>': " and
 * name the bad part: syntax (TP_ERR_INVALID), a host not in @topo
 * (TP_ERR_NOTFOUND), a repeated host, more than 1,048,576 hosts.
 */
tp_status tp_remap_hosts_parse(const tp_topo *topo, const char *hostlist,
                               uint32_t slots, tp_remap_host **hosts,
                               uint32_t *host_count, tp_error *err);

/*
 * A simple mapping of @ranks ranks onto @hosts (block, cyclic or random
 * with @seed); TP_REMAP_TOPO is refused here.  Fills @mapping (free with
 * tp_remap_mapping_free).  Errors: bad hosts (see tp_remap_compute), more
 * ranks than slots.
 */
tp_status tp_remap_baseline(const tp_topo *topo, uint32_t ranks,
                            const tp_remap_host *hosts, uint32_t host_count,
                            tp_remap_method method, uint64_t seed,
                            tp_remap_mapping *mapping, tp_error *err);

/*
 * The topology-aware mapping of @traffic (normalized) onto @hosts, see
 * above.  Fills @mapping (free with tp_remap_mapping_free) and, if not
 * NULL, @stats.  @log may be NULL.  Errors (TP_ERR_INVALID): no host, a
 * host index outside @topo, a host listed twice, 0 slots, more ranks than
 * slots; TP_ERR_NOMEM.  While it searches, file descriptor 1 points at
 * /dev/null (METIS prints to stdout on scattered hosts) and SIGTERM is
 * blocked in the calling thread (METIS would swallow it), delivered when
 * the search ends (common/tp_quiet.h): no other thread of the caller may
 * write stdout meanwhile; what the caller had buffered in stdout is
 * flushed first.
 */
tp_status tp_remap_compute(const tp_topo *topo, const tp_traffic *traffic,
                           const tp_remap_host *hosts, uint32_t host_count,
                           uint64_t seed, const tp_logger *log,
                           tp_remap_mapping *mapping, tp_remap_stats *stats,
                           tp_error *err);

/*
 * How far tp_remap_compute_search looks for a partition.  FULL: every
 * candidate within the METIS work budget, then leaf-wide swaps on small
 * jobs.  FAST: the plain bisection and the first packed partition only,
 * each refined, no leaf-wide swaps: about 2x METIS-rb's CPU below 4,096
 * ranks where FULL takes 5-11x, but above the best of METIS-rb and Scotch
 * on more inputs (bench/RESULTS.md, issue 16).  Above 4,096 ranks every
 * search has the bisection as its only partition.  AUTO (what
 * tp_remap_compute does): FAST's two partitions with FULL's leaf-wide
 * swaps for jobs of at most 16 ranks, where the other METIS candidates
 * never lowered the result on the bench inputs (and Scotch's mapping,
 * which did); FULL's first 5 METIS candidates
 * on at most 8 hosts, where the last one (the 4-try packed partition,
 * 1.3-2.2x METIS-rb's CPU) left no bench input above the best peer that
 * was not above it without; FULL above.  Built with Scotch, jobs of
 * up to 4,096 ranks add Scotch's mapping (not bounded by the METIS work
 * budget), and on more than 8 hosts AUTO keeps only the bisection, the
 * first packed partition, Scotch's mapping and (slots idle) the spread
 * partition (above 2,048 ranks without the packed partition: 0.84-0.87
 * times the CPU, the same counts against the peers): never above block,
 * METIS-rb or Scotch on any of
 * peer_bench's 3,924 inputs of 8-4,096 ranks, in 0.61-0.85 times the
 * CPU of the search without Scotch at 64-2,048 ranks, 1.08-1.17 at 27,
 * about 2 at 4,096 (bench/RESULTS.md, issue 16, "Scotch's mapping as a
 * candidate", "Scotch's mapping for 16-rank jobs" and "Scotch's mapping
 * up to 4,096 ranks").  All
 * never have more hop-bytes than block or the plain bisection.
 */
typedef enum tp_remap_search {
	TP_REMAP_SEARCH_FULL,
	TP_REMAP_SEARCH_FAST,
	TP_REMAP_SEARCH_AUTO,
} tp_remap_search;
#define TP_REMAP_SEARCH_COUNT 3

/* The searches' names by value: "full", "fast", "auto" (the --search
 * option's and topoplace.conf's RemapSearch's words). */
extern const char *const tp_remap_search_names[TP_REMAP_SEARCH_COUNT];

/* tp_remap_search_names[search]; NULL for an unknown value. */
const char *tp_remap_search_name(tp_remap_search search);

/* Parse a search name; TP_ERR_INVALID names the bad value. */
tp_status tp_remap_search_parse(const char *name, tp_remap_search *search,
                                tp_error *err);

/* tp_remap_compute with the search @search (same inputs, outputs, errors). */
tp_status tp_remap_compute_search(const tp_topo *topo,
                                  const tp_traffic *traffic,
                                  const tp_remap_host *hosts,
                                  uint32_t host_count, uint64_t seed,
                                  tp_remap_search search,
                                  const tp_logger *log,
                                  tp_remap_mapping *mapping,
                                  tp_remap_stats *stats, tp_error *err);

/*
 * How tp_remap_compute_options searches.  max_partitions, for measuring
 * which candidates pay (bench/peer_bench --candidates): at most that many
 * of the search's candidate partitions, in its order (the bisection is the
 * first); 0: as many as @search and the METIS work budget allow.  It never
 * adds candidates the search would not try.
 */
typedef struct tp_remap_options {
	tp_remap_search search;
	uint32_t max_partitions;
	/* leave out the Scotch candidate (bench/peer_bench --scotch-candidate
	 * off); without Scotch in the build it is always left out */
	bool without_scotch;
} tp_remap_options;

/* tp_remap_compute with @options (same inputs, outputs, errors). */
tp_status tp_remap_compute_options(const tp_topo *topo,
                                   const tp_traffic *traffic,
                                   const tp_remap_host *hosts,
                                   uint32_t host_count, uint64_t seed,
                                   const tp_remap_options *options,
                                   const tp_logger *log,
                                   tp_remap_mapping *mapping,
                                   tp_remap_stats *stats, tp_error *err);

#endif /* TP_REMAP_H */
