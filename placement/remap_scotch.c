/*
 * remap_scotch.c: Scotch's static mapping as a remapper candidate (see
 * remap_scotch.h).
 */
#include "tp_config.h"

#include "remap_scotch.h"

#include <stdlib.h>

#ifdef HAVE_SCOTCH
#include <stdio.h> /* scotch.h needs FILE */
#include <scotch/scotch.h>
#endif

#ifndef HAVE_SCOTCH

bool tp_remap_scotch_available(void)
{
	return false;
}

tp_status tp_remap_scotch_map(const tp_topo *topo, const tp_remap_host *hosts,
                              uint32_t host_count, const tp_traffic_csr *g,
                              uint64_t seed, uint32_t *rank_hl, tp_error *err)
{
	(void)topo, (void)hosts, (void)host_count, (void)g, (void)seed;
	(void)rank_hl;
	return tp_error_set(err, TP_ERR_UNSUPPORTED,
	                    "remap: built without Scotch");
}

#else

bool tp_remap_scotch_available(void)
{
	return true;
}

/* Sums of load x distance (at most 60) must stay below 2^31. */
#define SCOTCH_TOTAL_LOAD (1u << 24)
/* Link costs: a switch level (one hop up and one down: 2 hops) and two
 * slots of one host; tleaf distances add them up the tree. */
#define SCOTCH_SWITCH_LINK 20
#define SCOTCH_SLOT_LINK   1

/* Index of @x in @list (@count entries), or @count. */
static uint32_t index_in(const uint32_t *list, uint32_t count, uint32_t x)
{
	uint32_t i = 0;

	while (i < count && list[i] != x)
		i++;
	return i;
}

/*
 * The tree-leaf target: levels top-down (pods only when the fabric has
 * more than one), each the largest fan-out of the fabric, and each
 * allocated slot's terminal number in it (@term, in allocation order:
 * position 0's slots first).  Returns the level count, 0 when the target
 * would have more than INT32_MAX terminals.
 */
static int tleaf_target(const tp_topo *topo, const tp_remap_host *hosts,
                        uint32_t host_count, SCOTCH_Num *size,
                        SCOTCH_Num *link, SCOTCH_Num *term)
{
	uint32_t npods = tp_topo_pod_count(topo), nleaves = tp_topo_leaf_count(topo);
	uint64_t max_leaves = 1, max_hosts = 1, max_slots = 1, terminals;
	uint32_t count;
	int n = 0;

	for (uint32_t p = 0; p < npods; p++) {
		tp_topo_pod_leaves(topo, p, &count);
		if (count > max_leaves)
			max_leaves = count;
	}
	for (uint32_t l = 0; l < nleaves; l++) {
		tp_topo_leaf_hosts(topo, l, &count);
		if (count > max_hosts)
			max_hosts = count;
	}
	for (uint32_t i = 0; i < host_count; i++)
		if (hosts[i].slots > max_slots)
			max_slots = hosts[i].slots;
	terminals = (uint64_t)npods * max_leaves * max_hosts * max_slots;
	if (terminals > INT32_MAX)
		return 0;
	if (npods > 1) {
		size[n] = (SCOTCH_Num)npods;
		link[n++] = SCOTCH_SWITCH_LINK;
	}
	size[n] = (SCOTCH_Num)max_leaves;
	link[n++] = SCOTCH_SWITCH_LINK;
	size[n] = (SCOTCH_Num)max_hosts;
	link[n++] = max_slots > 1 ? SCOTCH_SWITCH_LINK - SCOTCH_SLOT_LINK
	                          : SCOTCH_SWITCH_LINK;
	if (max_slots > 1) {
		size[n] = (SCOTCH_Num)max_slots;
		link[n++] = SCOTCH_SLOT_LINK;
	}
	for (uint32_t i = 0, k = 0; i < host_count; i++) {
		uint32_t host = hosts[i].host;
		uint32_t leaf = tp_topo_host_leaf(topo, host);
		uint32_t pod = tp_topo_leaf_pod(topo, leaf), nl, nh;
		const uint32_t *pod_leaves = tp_topo_pod_leaves(topo, pod, &nl);
		const uint32_t *leaf_hosts = tp_topo_leaf_hosts(topo, leaf, &nh);
		uint64_t base = (((uint64_t)pod * max_leaves +
		                  index_in(pod_leaves, nl, leaf)) *
		                     max_hosts +
		                 index_in(leaf_hosts, nh, host)) *
		                max_slots;

		for (uint32_t s = 0; s < hosts[i].slots; s++)
			term[k++] = (SCOTCH_Num)(base + s);
	}
	return n;
}

/* What Scotch's graph needs: every allocated slot a vertex (the ranks,
 * then idle slots without edges), loads scaled to SCOTCH_TOTAL_LOAD. */
struct scotch_graph {
	SCOTCH_Num *verttab, *edgetab, *edlotab;
};

static void scotch_graph_fill(const tp_traffic_csr *g, uint32_t nslots,
                              struct scotch_graph *sg)
{
	uint64_t arcs = g->row_start[g->ranks];
	double total = 0;

	for (uint64_t e = 0; e < arcs; e++)
		total += (double)g->weight[e];
	for (uint32_t v = 0; v <= nslots; v++)
		sg->verttab[v] =
		    (SCOTCH_Num)(v < g->ranks ? g->row_start[v] : arcs);
	for (uint64_t e = 0; e < arcs; e++) {
		/* No bytes at all (only empty entries): every arc weighs 1. */
		double w = total > 0
		               ? (double)g->weight[e] * SCOTCH_TOTAL_LOAD / total
		               : 1;

		sg->edgetab[e] = (SCOTCH_Num)g->col[e];
		sg->edlotab[e] = w < 1 ? 1 : (SCOTCH_Num)w;
	}
}

/* The mapping itself, once the arrays are filled; NULL or what failed. */
static const char *scotch_run(int levels, SCOTCH_Num *size, SCOTCH_Num *link,
                              uint32_t nslots, SCOTCH_Num *term,
                              const struct scotch_graph *sg, uint64_t arcs,
                              uint64_t seed, SCOTCH_Num *parttab)
{
	SCOTCH_Arch arch, sub;
	SCOTCH_Graph graph, bound;
	SCOTCH_Strat strat;
	SCOTCH_Context ctx;
	const char *why = NULL;

	SCOTCH_archInit(&arch);
	SCOTCH_archInit(&sub);
	SCOTCH_graphInit(&graph);
	SCOTCH_graphInit(&bound);
	SCOTCH_stratInit(&strat);
	SCOTCH_contextInit(&ctx);
	if (SCOTCH_archTleaf(&arch, levels, size, link) ||
	    SCOTCH_archSub(&sub, &arch, (SCOTCH_Num)nslots, term))
		why = "the tree-leaf target was refused";
	else if (SCOTCH_graphBuild(&graph, 0, (SCOTCH_Num)nslots, sg->verttab,
	                           sg->verttab + 1, NULL, NULL,
	                           (SCOTCH_Num)arcs, sg->edgetab, sg->edlotab))
		why = "the graph was refused";
	/*
	 * One thread: the remapper runs in a daemon's bounded child, whose
	 * CPU budget is one core's (Scotch would otherwise start a thread per
	 * core for every job); deterministic, with the caller's seed (gmap
	 * -Cd).
	 */
	else if (SCOTCH_contextThreadSpawn(&ctx, 1, NULL) ||
	         SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC,
	                                    1) ||
	         SCOTCH_contextOptionSetNum(
	             &ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) ||
	         (SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)seed),
	          SCOTCH_contextBindGraph(&ctx, &graph, &bound)))
		why = "the context was refused";
	/* Balance 0: one vertex per slot (gmap -b0). */
	else if (SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATDEFAULT,
	                                   (SCOTCH_Num)nslots, 0.0) ||
	         SCOTCH_graphMap(&bound, &sub, &strat, parttab))
		why = "SCOTCH_graphMap failed";
	SCOTCH_graphExit(&bound);
	SCOTCH_contextExit(&ctx);
	SCOTCH_stratExit(&strat);
	SCOTCH_graphExit(&graph);
	SCOTCH_archExit(&sub);
	SCOTCH_archExit(&arch);
	return why;
}

tp_status tp_remap_scotch_map(const tp_topo *topo, const tp_remap_host *hosts,
                              uint32_t host_count, const tp_traffic_csr *g,
                              uint64_t seed, uint32_t *rank_hl, tp_error *err)
{
	uint64_t nslots = 0, arcs = g->row_start[g->ranks];
	SCOTCH_Num size[4], link[4], *term = NULL, *parttab = NULL;
	uint32_t *term_pos = NULL;
	struct scotch_graph sg = {0};
	const char *why;
	tp_status rc = TP_OK;
	int levels;

	for (uint32_t i = 0; i < host_count; i++)
		nslots += hosts[i].slots;
	if (nslots < g->ranks || nslots > INT32_MAX || arcs > INT32_MAX)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "remap: Scotch: %u ranks on %llu slots, "
		                    "%llu arcs",
		                    g->ranks, (unsigned long long)nslots,
		                    (unsigned long long)arcs);
	term = malloc(nslots * sizeof(*term));
	term_pos = malloc(nslots * sizeof(*term_pos));
	parttab = malloc(nslots * sizeof(*parttab));
	sg.verttab = malloc((nslots + 1) * sizeof(*sg.verttab));
	sg.edgetab = malloc((arcs ? arcs : 1) * sizeof(*sg.edgetab));
	sg.edlotab = malloc((arcs ? arcs : 1) * sizeof(*sg.edlotab));
	if (!term || !term_pos || !parttab || !sg.verttab || !sg.edgetab ||
	    !sg.edlotab) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "remap: Scotch: out of "
		                                     "memory");
		goto out;
	}
	levels = tleaf_target(topo, hosts, host_count, size, link, term);
	if (levels == 0) {
		rc = tp_error_set(err, TP_ERR_LIMIT,
		                  "remap: Scotch: the fabric's tree-leaf target "
		                  "has more than 2^31 slots");
		goto out;
	}
	for (uint32_t i = 0, k = 0; i < host_count; i++)
		for (uint32_t s = 0; s < hosts[i].slots; s++)
			term_pos[k++] = i;
	scotch_graph_fill(g, (uint32_t)nslots, &sg);
	why = scotch_run(levels, size, link, (uint32_t)nslots, term, &sg, arcs,
	                 seed, parttab);
	if (why) {
		rc = tp_error_set(err, TP_ERR_INTERNAL, "remap: Scotch: %s",
		                  why);
		goto out;
	}
	for (uint32_t r = 0; r < g->ranks; r++) {
		if (parttab[r] < 0 || (uint64_t)parttab[r] >= nslots) {
			rc = tp_error_set(err, TP_ERR_INTERNAL,
			                  "remap: Scotch: rank %u mapped to "
			                  "terminal %lld of %llu",
			                  r, (long long)parttab[r],
			                  (unsigned long long)nslots);
			goto out;
		}
		rank_hl[r] = term_pos[parttab[r]];
	}
out:
	free(term);
	free(term_pos);
	free(parttab);
	free(sg.verttab);
	free(sg.edgetab);
	free(sg.edlotab);
	return rc;
}

#endif
