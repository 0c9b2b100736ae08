/*
 * scotch_peer.c: the Scotch peer (see scotch_peer.h).
 */
#include "tp_config.h"

#include <stdlib.h>

#include "scotch_peer.h"

int scotch_peer_levels(const struct scotch_peer_tree *tree, SCOTCH_Num *size,
                       SCOTCH_Num *link)
{
	int n = 0;

	if (tree->levels == 3) {
		size[n] = (SCOTCH_Num)tree->pods;
		link[n++] = 20;
	}
	size[n] = (SCOTCH_Num)tree->leaves_per_pod;
	link[n++] = 20;
	size[n] = (SCOTCH_Num)tree->hosts_per_leaf;
	link[n++] = tree->rpn > 1 ? 19 : 20;
	if (tree->rpn > 1) {
		size[n] = (SCOTCH_Num)tree->rpn;
		link[n++] = 1;
	}
	return n;
}

int scotch_peer_map(const struct scotch_peer_tree *tree,
                    const tp_remap_host *hosts, uint32_t nhosts,
                    const tp_traffic *t, uint64_t seed, uint32_t *rank_host,
                    const char **why)
{
	tp_traffic_csr *g;
	tp_error err;
	uint32_t nslots = nhosts * tree->rpn;
	SCOTCH_Num size[4], link[4], *verttab = NULL, *edgetab = NULL,
	    *edlotab = NULL, *vnum = NULL, *parttab = NULL;
	double total_w = 0;
	SCOTCH_Arch arch, sub;
	SCOTCH_Graph graph, cgraph;
	SCOTCH_Strat strat;
	SCOTCH_Context ctx;
	int nlev = scotch_peer_levels(tree, size, link), rc = -1;
	uint64_t arcs;

	if (tp_traffic_csr_build(t, TP_TRAFFIC_CSR_UNDIRECTED, &g, &err) !=
	    TP_OK) {
		*why = "CSR graph not built";
		return -1;
	}
	arcs = g->row_start[g->ranks];
	verttab = malloc((nslots + 1) * sizeof(*verttab));
	edgetab = malloc((arcs ? arcs : 1) * sizeof(*edgetab));
	edlotab = malloc((arcs ? arcs : 1) * sizeof(*edlotab));
	vnum = malloc(nslots * sizeof(*vnum));
	parttab = malloc(nslots * sizeof(*parttab));
	SCOTCH_archInit(&arch);
	SCOTCH_archInit(&sub);
	SCOTCH_graphInit(&graph);
	SCOTCH_stratInit(&strat);
	SCOTCH_contextInit(&ctx);
	if (!verttab || !edgetab || !edlotab || !vnum || !parttab) {
		*why = "out of memory";
		goto out;
	}
	for (uint64_t e = 0; e < arcs; e++)
		total_w += (double)g->weight[e];
	/* Sums of load x distance (<= 60) must stay below 2^31. */
	for (uint32_t v = 0; v <= nslots; v++)
		verttab[v] =
		    (SCOTCH_Num)(v < t->ranks ? g->row_start[v] : arcs);
	for (uint64_t e = 0; e < arcs; e++) {
		double w = (double)g->weight[e] * (double)(1 << 24) / total_w;

		edgetab[e] = (SCOTCH_Num)g->col[e];
		edlotab[e] = w < 1 ? 1 : (SCOTCH_Num)w;
	}
	/*
	 * The allocated slots, by allocation position; the sub-architecture
	 * numbers its terminals by their index here.
	 */
	for (uint32_t i = 0; i < nslots; i++)
		vnum[i] = (SCOTCH_Num)hosts[i / tree->rpn].host * tree->rpn +
		          i % tree->rpn;
	if (SCOTCH_archTleaf(&arch, nlev, size, link) ||
	    SCOTCH_archSub(&sub, &arch, (SCOTCH_Num)nslots, vnum)) {
		*why = "tleaf/sub architecture refused";
		goto out;
	}
	if (SCOTCH_graphBuild(&graph, 0, (SCOTCH_Num)nslots, verttab,
	                      verttab + 1, NULL, NULL, (SCOTCH_Num)arcs,
	                      edgetab, edlotab)) {
		*why = "graph refused";
		goto out;
	}
	/* One thread, as the remapper's candidate runs (gmap -c1 would be the
	 * command line); gmap -Cd: deterministic, fixed seed. */
	if (SCOTCH_contextThreadSpawn(&ctx, 1, NULL)) {
		*why = "threads refused";
		goto out;
	}
	SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
	SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
	SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)seed);
	SCOTCH_graphInit(&cgraph);
	if (SCOTCH_contextBindGraph(&ctx, &graph, &cgraph)) {
		*why = "context refused";
		goto out;
	}
	/* gmap -b0: balance 0, one vertex per slot. */
	SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATDEFAULT,
	                          (SCOTCH_Num)nslots, 0.0);
	if (SCOTCH_graphMap(&cgraph, &sub, &strat, parttab)) {
		*why = "SCOTCH_graphMap failed";
		SCOTCH_graphExit(&cgraph);
		goto out;
	}
	SCOTCH_graphExit(&cgraph);
	for (uint32_t r = 0; r < t->ranks; r++) {
		if (parttab[r] < 0 || (uint32_t)parttab[r] >= nslots) {
			*why = "terminal outside the allocated slots";
			goto out;
		}
		rank_host[r] = hosts[(uint32_t)parttab[r] / tree->rpn].host;
	}
	rc = 0;
out:
	SCOTCH_contextExit(&ctx);
	SCOTCH_stratExit(&strat);
	SCOTCH_graphExit(&graph);
	SCOTCH_archExit(&sub);
	SCOTCH_archExit(&arch);
	free(verttab);
	free(edgetab);
	free(edlotab);
	free(vnum);
	free(parttab);
	tp_traffic_csr_free(g);
	return rc;
}
