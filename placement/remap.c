/*
 * remap.c: topology-aware rank placement (hierarchical METIS + hop-bytes
 * refinement), the simple baselines, and hostlist expansion.
 */
#include "tp_config.h"

#include <metis.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "hostlist.h"
#include "remap.h"
#include "remap_rank_cost.h"
#include "remap_scotch.h"
#include "tp_quiet.h"

#define NONE UINT32_MAX

void tp_remap_mapping_free(tp_remap_mapping *mapping)
{
	if (!mapping)
		return;
	free(mapping->rank_host);
	free(mapping->rank_slot);
	mapping->rank_host = NULL;
	mapping->rank_slot = NULL;
	mapping->ranks = 0;
}

static const char *const method_names[] = {
    [TP_REMAP_BLOCK] = "block",
    [TP_REMAP_CYCLIC] = "cyclic",
    [TP_REMAP_RANDOM] = "random",
    [TP_REMAP_TOPO] = "remap",
};

const char *tp_remap_method_name(tp_remap_method method)
{
	if ((unsigned)method >= sizeof(method_names) / sizeof(*method_names))
		return NULL;
	return method_names[method];
}

tp_status tp_remap_method_parse(const char *name, tp_remap_method *method,
                                tp_error *err)
{
	for (unsigned m = 0; m < sizeof(method_names) / sizeof(*method_names);
	     m++) {
		if (!strcmp(name, method_names[m])) {
			*method = (tp_remap_method)m;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "mapping method '%s': expected block, cyclic, "
	                    "random or remap",
	                    name);
}

/* splitmix64: small, seedable, the same on every platform. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *state, uint32_t bound)
{
	return (uint32_t)(rng_next(state) % bound);
}

/* ---- hostlists ------------------------------------------------------ */

#define HOSTS_MAX (1u << 20)

/* The hosts a hostlist names, collected by add_host as it expands. */
struct host_parse {
	const tp_topo *topo;
	uint32_t slots;
	uint8_t *seen; /* by host index: named already */
	tp_remap_host *hosts;
	uint32_t count, cap;
};

static tp_status add_host(void *ctx, const char *name, tp_error *err)
{
	struct host_parse *hp = ctx;
	uint32_t h = tp_topo_find_host(hp->topo, name);

	if (h == TP_TOPO_NONE)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "host '%s' is not in the fabric", name);
	if (hp->seen[h])
		return tp_error_set(err, TP_ERR_INVALID,
		                    "host '%s' listed twice", name);
	if (hp->count == hp->cap) {
		uint32_t ncap = hp->cap ? hp->cap * 2 : 16;
		tp_remap_host *n = realloc(hp->hosts, ncap * sizeof(*n));

		if (!n)
			return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
		hp->hosts = n;
		hp->cap = ncap;
	}
	hp->seen[h] = 1;
	hp->hosts[hp->count++] = (tp_remap_host){h, hp->slots};
	return TP_OK;
}

tp_status tp_remap_hosts_parse(const tp_topo *topo, const char *hostlist,
                               uint32_t slots, tp_remap_host **hosts,
                               uint32_t *host_count, tp_error *err)
{
	struct host_parse hp = {topo, slots, NULL, NULL, 0, 0};
	tp_status rc;

	*hosts = NULL;
	*host_count = 0;
	if (slots == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "hostlist '%s': 0 slots per host",
		                    hostlist);
	hp.seen = calloc(tp_topo_host_count(topo) + 1, 1);
	if (!hp.seen)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "hostlist: out of memory");
	rc = tp_hostlist_expand(hostlist, HOSTS_MAX, add_host, &hp, err);
	free(hp.seen);
	if (rc != TP_OK) {
		free(hp.hosts);
		/* A hostlist given here is the caller's argument, not a file:
		 * its syntax errors are bad arguments. */
		if (rc == TP_ERR_PARSE && err)
			err->code = TP_ERR_INVALID;
		tp_error_prefix(err, "hostlist '%s'", hostlist);
		return rc == TP_ERR_PARSE ? TP_ERR_INVALID : rc;
	}
	*hosts = hp.hosts;
	*host_count = hp.count;
	return TP_OK;
}

/* ---- common checks and helpers ------------------------------------- */

static tp_status check_hosts(const tp_topo *topo, uint32_t ranks,
                             const tp_remap_host *hosts, uint32_t host_count,
                             tp_error *err)
{
	uint32_t topo_hosts = tp_topo_host_count(topo);
	uint64_t slots = 0;
	uint8_t *seen;

	if (ranks == 0)
		return tp_error_set(err, TP_ERR_INVALID, "remap: 0 ranks");
	if (host_count == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "remap: no allocated host");
	seen = calloc(topo_hosts, 1);
	if (!seen)
		return tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
	for (uint32_t i = 0; i < host_count; i++) {
		uint32_t h = hosts[i].host;

		if (h >= topo_hosts) {
			free(seen);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "remap: allocated host #%u has "
			                    "index %u, fabric has %u hosts",
			                    i, h, topo_hosts);
		}
		if (seen[h]) {
			free(seen);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "remap: host %s allocated twice",
			                    tp_topo_host_name(topo, h));
		}
		seen[h] = 1;
		if (hosts[i].slots == 0) {
			free(seen);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "remap: host %s has 0 slots",
			                    tp_topo_host_name(topo, h));
		}
		slots += hosts[i].slots;
	}
	free(seen);
	if (ranks > slots)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "remap: %u ranks but only %llu slots on "
		                    "%u hosts",
		                    ranks, (unsigned long long)slots,
		                    host_count);
	return TP_OK;
}

static tp_status mapping_alloc(tp_remap_mapping *m, uint32_t ranks,
                               tp_error *err)
{
	m->ranks = ranks;
	m->rank_host = malloc((size_t)ranks * sizeof(*m->rank_host));
	m->rank_slot = malloc((size_t)ranks * sizeof(*m->rank_slot));
	if (!m->rank_host || !m->rank_slot) {
		tp_remap_mapping_free(m);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "remap: out of memory for %u ranks", ranks);
	}
	return TP_OK;
}

/*
 * From rank -> allocated-host position to the output: slots numbered in
 * rank order on each host, so a rankfile reads naturally.
 */
static tp_status finish_mapping(const tp_remap_host *hosts, uint32_t host_count,
                                const uint32_t *rank_hl, uint32_t ranks,
                                tp_remap_mapping *m, tp_error *err)
{
	uint32_t *next = calloc(host_count, sizeof(*next));
	tp_status rc;

	if (!next)
		return tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
	rc = mapping_alloc(m, ranks, err);
	if (rc != TP_OK) {
		free(next);
		return rc;
	}
	for (uint32_t r = 0; r < ranks; r++) {
		m->rank_host[r] = hosts[rank_hl[r]].host;
		m->rank_slot[r] = next[rank_hl[r]]++;
	}
	free(next);
	return TP_OK;
}

static void block_positions(const tp_remap_host *hosts, uint32_t ranks,
                            uint32_t *rank_hl)
{
	uint32_t h = 0, used = 0;

	for (uint32_t r = 0; r < ranks; r++) {
		if (used == hosts[h].slots) {
			h++;
			used = 0;
		}
		rank_hl[r] = h;
		used++;
	}
}

tp_status tp_remap_baseline(const tp_topo *topo, uint32_t ranks,
                            const tp_remap_host *hosts, uint32_t host_count,
                            tp_remap_method method, uint64_t seed,
                            tp_remap_mapping *mapping, tp_error *err)
{
	uint32_t *rank_hl = NULL, *used = NULL, *slot_host = NULL;
	uint64_t total = 0;
	tp_status rc;

	memset(mapping, 0, sizeof(*mapping));
	rc = check_hosts(topo, ranks, hosts, host_count, err);
	if (rc != TP_OK)
		return rc;
	if (method == TP_REMAP_TOPO)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "remap: 'remap' is not a baseline method");
	for (uint32_t i = 0; i < host_count; i++)
		total += hosts[i].slots;
	rank_hl = malloc((size_t)ranks * sizeof(*rank_hl));
	used = calloc(host_count, sizeof(*used));
	if (method == TP_REMAP_RANDOM)
		slot_host = malloc(total * sizeof(*slot_host));
	if (!rank_hl || !used || (method == TP_REMAP_RANDOM && !slot_host)) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
		goto out;
	}
	switch (method) {
	case TP_REMAP_CYCLIC: {
		uint32_t h = 0;

		for (uint32_t r = 0; r < ranks; r++) {
			while (used[h] == hosts[h].slots)
				h = (h + 1) % host_count;
			rank_hl[r] = h;
			used[h]++;
			h = (h + 1) % host_count;
		}
		break;
	}
	case TP_REMAP_RANDOM: {
		uint64_t state = seed, k = 0;

		for (uint32_t i = 0; i < host_count; i++)
			for (uint32_t s = 0; s < hosts[i].slots; s++)
				slot_host[k++] = i;
		/* Partial Fisher-Yates: the first @ranks slots. */
		for (uint32_t r = 0; r < ranks; r++) {
			uint64_t j = r + rng_next(&state) % (total - r);
			uint32_t t = slot_host[r];

			slot_host[r] = slot_host[j];
			slot_host[j] = t;
			rank_hl[r] = slot_host[r];
		}
		break;
	}
	default:
		block_positions(hosts, ranks, rank_hl);
		break;
	}
	rc = finish_mapping(hosts, host_count, rank_hl, ranks, mapping, err);
out:
	free(rank_hl);
	free(used);
	free(slot_host);
	return rc;
}

/* ---- the hierarchy of the allocation --------------------------------- */

/*
 * A tree of the allocated hosts: root -> pods -> leaves -> hosts, children
 * in order of first appearance in the allocation.  Leaves of the tree are
 * hosts (host >= 0 = position in the allocation).
 */
struct tnode {
	uint64_t cap;    /* slots below */
	uint32_t child0; /* first child in struct tree.child */
	uint32_t nchild;
	uint32_t host; /* allocation position, NONE for inner nodes */
};

struct tree {
	struct tnode *node;
	uint32_t *child; /* node indices, grouped per parent */
	uint32_t nnode;
};

static void tree_free(struct tree *t)
{
	free(t->node);
	free(t->child);
}

static tp_status tree_build(const tp_topo *topo, const tp_remap_host *hosts,
                            uint32_t host_count, struct tree *t, tp_error *err)
{
	uint32_t npods = tp_topo_pod_count(topo);
	uint32_t nleaves = tp_topo_leaf_count(topo);
	uint32_t *pod_node = malloc(npods * sizeof(*pod_node));
	uint32_t *leaf_node = malloc(nleaves * sizeof(*leaf_node));
	uint32_t *parent = NULL, *fill = NULL;
	uint32_t max_nodes = 1 + 2 * host_count + host_count;
	tp_status rc = TP_OK;

	memset(t, 0, sizeof(*t));
	t->node = calloc(max_nodes, sizeof(*t->node));
	t->child = malloc(max_nodes * sizeof(*t->child));
	parent = malloc(max_nodes * sizeof(*parent));
	fill = calloc(max_nodes, sizeof(*fill));
	if (!pod_node || !leaf_node || !t->node || !t->child || !parent ||
	    !fill) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < npods; i++)
		pod_node[i] = NONE;
	for (uint32_t i = 0; i < nleaves; i++)
		leaf_node[i] = NONE;
	/* Nodes in creation order; parents always precede children. */
	t->nnode = 1;
	t->node[0].host = NONE;
	parent[0] = NONE;
	for (uint32_t i = 0; i < host_count; i++) {
		uint32_t leaf = tp_topo_host_leaf(topo, hosts[i].host);
		uint32_t pod = tp_topo_leaf_pod(topo, leaf);
		uint32_t hn;

		if (pod_node[pod] == NONE) {
			pod_node[pod] = t->nnode;
			t->node[t->nnode].host = NONE;
			parent[t->nnode++] = 0;
		}
		if (leaf_node[leaf] == NONE) {
			leaf_node[leaf] = t->nnode;
			t->node[t->nnode].host = NONE;
			parent[t->nnode++] = pod_node[pod];
		}
		hn = t->nnode++;
		t->node[hn].host = i;
		t->node[hn].cap = hosts[i].slots;
		parent[hn] = leaf_node[leaf];
	}
	/* Capacities bottom-up: children were created after parents. */
	for (uint32_t v = t->nnode; v-- > 1;) {
		t->node[parent[v]].cap += t->node[v].cap;
		t->node[parent[v]].nchild++;
	}
	for (uint32_t v = 0, next = 0; v < t->nnode; v++) {
		t->node[v].child0 = next;
		next += t->node[v].nchild;
	}
	for (uint32_t v = 1; v < t->nnode; v++) {
		uint32_t p = parent[v];

		t->child[t->node[p].child0 + fill[p]++] = v;
	}
out:
	free(pod_node);
	free(leaf_node);
	free(parent);
	free(fill);
	if (rc != TP_OK)
		tree_free(t);
	return rc;
}

/*
 * The allocation without its leaves and pods: root -> hosts, in allocation
 * order.  Partitioned by bisection_partition it gives each host a compact
 * part of its own size, neighbouring parts to neighbouring hosts (in
 * allocation order, so mostly on one leaf); whole-host swaps then trade
 * hosts' parts between leaves, and the refinement moves single ranks (the
 * flat candidate, flat_wanted).
 */
static tp_status tree_flat(const tp_remap_host *hosts, uint32_t host_count,
                           struct tree *t, tp_error *err)
{
	memset(t, 0, sizeof(*t));
	t->node = calloc((size_t)host_count + 1, sizeof(*t->node));
	t->child = malloc(((size_t)host_count + 1) * sizeof(*t->child));
	if (!t->node || !t->child)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "remap: out of memory (%u hosts)",
		                    host_count);
	t->nnode = host_count + 1;
	t->node[0] = (struct tnode){.nchild = host_count, .host = NONE};
	for (uint32_t i = 0; i < host_count; i++) {
		t->node[i + 1] =
		    (struct tnode){.cap = hosts[i].slots, .host = i};
		t->node[0].cap += hosts[i].slots;
		t->child[i] = i + 1;
	}
	return TP_OK;
}

/* ---- hierarchical partitioning --------------------------------------- */

/* How a candidate partition is made. */
enum trial_kind {
	TRIAL_PACKED,    /* hierarchical_partition, packed targets */
	TRIAL_SPREAD,    /* hierarchical_partition, targets by slots */
	TRIAL_BISECTION, /* bisection_partition of the allocation's tree */
	TRIAL_SCOTCH,    /* tp_remap_scotch_map */
	TRIAL_FLAT,      /* bisection_partition of tree_flat */
};

/* Its name in the debug lines (and --verbose). */
static const char *const trial_kind_names[] = {
    [TRIAL_PACKED] = "packed",       [TRIAL_SPREAD] = "spread",
    [TRIAL_BISECTION] = "bisection", [TRIAL_SCOTCH] = "scotch",
    [TRIAL_FLAT] = "flat",
};

/* One candidate partition: how METIS is asked at every split. */
struct trial {
	enum trial_kind kind;
	uint64_t seed;
	int ncuts; /* METIS tries per split (Scotch's: 0) */
	bool rm;   /* METIS random-matching coarsening, else heavy-edge */
	/* METIS FM passes per uncoarsening level; 0: METIS's default (10) */
	int refine_passes;
};

struct part_ctx {
	const tp_traffic_csr *g;
	const tp_logger *log;
	uint64_t seed;
	int ncuts; /* METIS tries per split, best kept */
	/* METIS coarsens by random matching, not heavy-edge matching */
	bool random_matching;
	int refine_passes; /* METIS_OPTION_NITER; 0: METIS's default */
	/* scratch sized by ranks */
	uint32_t *local; /* rank -> position in the current segment */
	uint32_t *owner; /* rank -> tree node it currently belongs to */
	idx_t *xadj, *adjncy, *adjwgt, *part;
	uint32_t *tmp;
	/* scratch sized by max children */
	uint64_t *target;
	uint32_t *count;
	int64_t *conn;
	uint32_t *touched;
	uint64_t metis_work; /* metis_work_of each METIS call, summed */
};

/*
 * A deterministic measure of one METIS_PartGraphRecursive call: vertices
 * plus arcs, once per level of bisection (ceil(log2 k)).  The
 * remapper's search budget is counted in it (plan_trials), not in CPU
 * time, so the result never depends on the machine's load.
 */
static uint64_t metis_work_of(uint32_t nv, size_t arcs, uint32_t k)
{
	unsigned levels = 0;

	while ((1ull << levels) < k)
		levels++;
	return ((uint64_t)nv + arcs) * levels;
}

/*
 * Parts in rank order, @size[p] ranks each (sizes sum to at least @nv):
 * the split when there is nothing to cut or METIS failed.
 */
static void parts_in_order(idx_t *part, uint32_t nv, const uint64_t *size)
{
	for (uint32_t i = 0, p = 0, used = 0; i < nv; i++) {
		while (used == size[p]) {
			p++;
			used = 0;
		}
		part[i] = (idx_t)p;
		used++;
	}
}

/*
 * Stable counting sort of segment @seg (@nv ranks, starting at @base in
 * the order array) by @part: part p becomes tree node @child[p]'s segment
 * (seg_start, seg_len).  @count: k entries, @tmp: nv entries of scratch.
 */
static void sort_segment_by_part(uint32_t *seg, uint32_t nv, uint32_t base,
                                 const idx_t *part, uint32_t k,
                                 const uint32_t *child, uint32_t *seg_start,
                                 uint32_t *seg_len, uint32_t *count,
                                 uint32_t *tmp)
{
	uint32_t start = base;

	memset(count, 0, k * sizeof(*count));
	for (uint32_t i = 0; i < nv; i++)
		count[part[i]]++;
	for (uint32_t p = 0; p < k; p++) {
		seg_start[child[p]] = start;
		seg_len[child[p]] = count[p];
		start += count[p];
		count[p] = 0;
	}
	for (uint32_t i = 0; i < nv; i++) {
		uint32_t p = (uint32_t)part[i];

		tmp[seg_start[child[p]] - base + count[p]++] = seg[i];
	}
	memcpy(seg, tmp, (size_t)nv * sizeof(*seg));
}

struct cand {
	int64_t gain;
	uint32_t v;
	uint32_t to;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return 0;
}

/*
 * Make part sizes exactly ctx->target: move vertices out of over-full
 * parts to under-full ones, best connection gain first; whatever gain
 * ordering cannot place is then moved in order.
 */
static tp_status repair_sizes(struct part_ctx *c, uint32_t nv, uint32_t k,
                              tp_error *err)
{
	struct cand *cands = NULL;
	size_t nc = 0;
	uint32_t first_room = 0;
	bool over = false;

	memset(c->count, 0, k * sizeof(*c->count));
	for (uint32_t i = 0; i < nv; i++)
		c->count[c->part[i]]++;
	for (uint32_t p = 0; p < k; p++)
		if (c->count[p] > c->target[p])
			over = true;
	if (!over)
		return TP_OK;
	cands = malloc(nv * sizeof(*cands));
	if (!cands)
		return tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
	/*
	 * A part none of the vertex's neighbours is in gains -conn[p], less
	 * than any connected one: only connected parts are scanned, then the
	 * first part with room (k reaches 14,564 leaves at 262,144 hosts, so
	 * scanning all parts per vertex was most of the time).
	 */
	while (first_room < k && c->count[first_room] >= c->target[first_room])
		first_room++;
	for (uint32_t i = 0; i < nv; i++) {
		uint32_t p = (uint32_t)c->part[i], nt = 0, best = NONE;
		int64_t best_gain = INT64_MIN;

		if (c->count[p] <= c->target[p])
			continue;
		for (idx_t e = c->xadj[i]; e < c->xadj[i + 1]; e++) {
			uint32_t q = (uint32_t)c->part[c->adjncy[e]];

			if (!c->conn[q])
				c->touched[nt++] = q;
			c->conn[q] += c->adjwgt[e];
		}
		for (uint32_t t = 0; t < nt; t++) {
			uint32_t q = c->touched[t];
			int64_t g;

			if (c->count[q] >= c->target[q])
				continue;
			g = c->conn[q] - c->conn[p];
			if (g > best_gain || (g == best_gain && q < best)) {
				best_gain = g;
				best = q;
			}
		}
		if (best == NONE && first_room < k) {
			best = first_room;
			best_gain = -c->conn[p];
		}
		for (uint32_t t = 0; t < nt; t++)
			c->conn[c->touched[t]] = 0;
		if (best != NONE)
			cands[nc++] = (struct cand){best_gain, i, best};
	}
	qsort(cands, nc, sizeof(*cands), cand_cmp);
	for (size_t j = 0; j < nc; j++) {
		uint32_t v = cands[j].v, p = (uint32_t)c->part[v];
		uint32_t q = cands[j].to;

		if (c->count[p] <= c->target[p] || c->count[q] >= c->target[q])
			continue;
		c->part[v] = (idx_t)q;
		c->count[p]--;
		c->count[q]++;
	}
	free(cands);
	/* Whatever is left: first fit, in segment order. */
	for (uint32_t i = 0, q = 0; i < nv; i++) {
		uint32_t p = (uint32_t)c->part[i];

		if (c->count[p] <= c->target[p])
			continue;
		while (c->count[q] >= c->target[q])
			q++;
		c->part[i] = (idx_t)q;
		c->count[p]--;
		c->count[q]++;
	}
	return TP_OK;
}

/* Split segment @seg (@nv ranks) into @k parts of sizes ctx->target. */
static tp_status split_segment(struct part_ctx *c, const uint32_t *seg,
                               uint32_t nv, uint32_t k, uint32_t node,
                               tp_error *err)
{
	const tp_traffic_csr *g = c->g;
	uint64_t total_w = 0;
	size_t ne = 0;
	double scale;

	for (uint32_t i = 0; i < nv; i++)
		c->local[seg[i]] = i;
	c->xadj[0] = 0;
	for (uint32_t i = 0; i < nv; i++) {
		uint32_t r = seg[i];

		for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1];
		     e++) {
			if (c->owner[g->col[e]] != node)
				continue;
			total_w = g->weight[e] > UINT64_MAX - total_w
			              ? UINT64_MAX
			              : total_w + g->weight[e];
			c->adjncy[ne++] = (idx_t)c->local[g->col[e]];
		}
		c->xadj[i + 1] = (idx_t)ne;
	}
	if (ne == 0) {
		/* Nothing to cut: contiguous runs in rank order. */
		parts_in_order(c->part, nv, c->target);
		return TP_OK;
	}
	/* METIS sums weights in idx_t: keep the total below 2^29. */
	scale = total_w > (1ull << 29) ? (double)(1ull << 29) / (double)total_w
	                               : 1.0;
	ne = 0;
	for (uint32_t i = 0; i < nv; i++) {
		uint32_t r = seg[i];

		for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1];
		     e++) {
			double w;

			if (c->owner[g->col[e]] != node)
				continue;
			/* Clamped: the double may round above 2^29. */
			w = (double)g->weight[e] * scale;
			c->adjwgt[ne++] = w < 1.0                 ? 1
			                  : w > (double)(1 << 29) ? (1 << 29)
			                                          : (idx_t)w;
		}
	}
	{
		idx_t nvtxs = (idx_t)nv, ncon = 1, nparts = (idx_t)k, objval;
		idx_t options[METIS_NOPTIONS];
		real_t *tpw = malloc(k * sizeof(*tpw));
		real_t ub = 1.01f;
		int mrc;

		if (!tpw)
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "remap: out of memory");
		for (uint32_t p = 0; p < k; p++)
			tpw[p] = (real_t)((double)c->target[p] / nv);
		METIS_SetDefaultOptions(options);
		options[METIS_OPTION_SEED] = (idx_t)(c->seed & 0x7fffffff);
		options[METIS_OPTION_NUMBERING] = 0;
		options[METIS_OPTION_NCUTS] = (idx_t)c->ncuts;
		if (c->random_matching)
			options[METIS_OPTION_CTYPE] = METIS_CTYPE_RM;
		if (c->refine_passes)
			options[METIS_OPTION_NITER] = c->refine_passes;
		c->metis_work += metis_work_of(nv, ne, k) * (uint64_t)c->ncuts;
		mrc = METIS_PartGraphRecursive(
		    &nvtxs, &ncon, c->xadj, c->adjncy, NULL, NULL, c->adjwgt,
		    &nparts, tpw, &ub, options, &objval, c->part);
		free(tpw);
		if (mrc != METIS_OK) {
			tp_log(c->log, TP_LOG_WARNING,
			       "remap: METIS failed (%d) on %u ranks into %u "
			       "parts; using rank order there",
			       mrc, nv, k);
			parts_in_order(c->part, nv, c->target);
			return TP_OK;
		}
	}
	return repair_sizes(c, nv, k, err);
}

/*
 * Assign every rank an allocation position (rank_hl) by walking the tree
 * top-down; @order holds ranks grouped by tree node, one segment each.
 */
static tp_status hierarchical_partition(const struct tree *t,
                                        const tp_traffic_csr *g,
                                        const struct trial *tr,
                                        const tp_logger *log, uint32_t *rank_hl,
                                        uint64_t *metis_work, tp_error *err)
{
	uint32_t n = g->ranks, maxk = 1;
	bool spread = tr->kind == TRIAL_SPREAD;
	struct part_ctx c = {.g = g,
	                     .log = log,
	                     .seed = tr->seed,
	                     .ncuts = tr->ncuts,
	                     .random_matching = tr->rm,
	                     .refine_passes = tr->refine_passes};
	uint32_t *order = NULL, *seg_start = NULL, *seg_len = NULL;
	uint32_t *cidx = NULL;
	size_t arcs = g->row_start[n];
	tp_status rc = TP_OK;

	for (uint32_t v = 0; v < t->nnode; v++)
		if (t->node[v].nchild > maxk)
			maxk = t->node[v].nchild;
	order = malloc((size_t)n * sizeof(*order));
	seg_start = calloc(t->nnode, sizeof(*seg_start));
	seg_len = calloc(t->nnode, sizeof(*seg_len));
	cidx = malloc(maxk * sizeof(*cidx));
	c.local = malloc((size_t)n * sizeof(*c.local));
	c.owner = malloc((size_t)n * sizeof(*c.owner));
	c.xadj = malloc(((size_t)n + 1) * sizeof(*c.xadj));
	c.adjncy = malloc((arcs ? arcs : 1) * sizeof(*c.adjncy));
	c.adjwgt = malloc((arcs ? arcs : 1) * sizeof(*c.adjwgt));
	c.tmp = malloc((size_t)n * sizeof(*c.tmp));
	c.part = malloc((size_t)n * sizeof(*c.part));
	c.target = malloc(maxk * sizeof(*c.target));
	c.count = malloc(maxk * sizeof(*c.count));
	c.conn = calloc(maxk, sizeof(*c.conn));
	c.touched = malloc(maxk * sizeof(*c.touched));
	if (!order || !seg_start || !seg_len || !cidx || !c.local || !c.owner ||
	    !c.xadj || !c.adjncy || !c.adjwgt || !c.tmp || !c.part ||
	    !c.target || !c.count || !c.conn || !c.touched) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "remap: out of memory partitioning %u ranks",
		                  n);
		goto out;
	}
	for (uint32_t r = 0; r < n; r++) {
		order[r] = r;
		c.owner[r] = 0;
	}
	seg_start[0] = 0;
	seg_len[0] = n;
	/* Parents precede children in node order, so one forward sweep. */
	for (uint32_t v = 0; v < t->nnode; v++) {
		const struct tnode *tn = &t->node[v];
		uint32_t *seg = order + seg_start[v], nv = seg_len[v];
		uint32_t k = 0, used_children = 0;
		uint64_t left = nv;

		if (tn->host != NONE) {
			for (uint32_t i = 0; i < nv; i++)
				rank_hl[seg[i]] = tn->host;
			continue;
		}
		if (nv == 0)
			continue;
		/*
		 * Pack: the children with the most slots first (ties in
		 * allocation order), each filled, so the job spans as few
		 * pods, leaves and hosts as fit.  Spread (when slots stay
		 * idle): every child gets ranks in proportion to its slots,
		 * which cuts regular grids into equal pieces: 128 ranks on 8
		 * whole leaves of 18 are 8 x 16, not 7 x 18 + 2.
		 */
		for (uint32_t j = 0; j < tn->nchild; j++)
			cidx[j] = t->child[tn->child0 + j];
		for (uint32_t j = 1; j < tn->nchild; j++) {
			uint32_t x = cidx[j], i = j;

			while (i > 0 &&
			       t->node[cidx[i - 1]].cap < t->node[x].cap) {
				cidx[i] = cidx[i - 1];
				i--;
			}
			cidx[i] = x;
		}
		if (spread && nv < tn->cap) {
			/*
			 * floor(nv x cap / total) each, the rest one by one to
			 * the largest children with room; children left with
			 * none drop out (cidx compacted in order).
			 */
			for (uint32_t j = 0; j < tn->nchild; j++) {
				uint64_t share =
				    (uint64_t)((unsigned __int128)nv *
				               t->node[cidx[j]].cap / tn->cap);

				c.target[j] = share;
				left -= share;
			}
			for (uint32_t j = 0; left; j = (j + 1) % tn->nchild)
				if (c.target[j] < t->node[cidx[j]].cap) {
					c.target[j]++;
					left--;
				}
			for (uint32_t j = 0; j < tn->nchild; j++)
				if (c.target[j]) {
					c.target[used_children] = c.target[j];
					cidx[used_children++] = cidx[j];
				}
		} else {
			for (uint32_t j = 0; j < tn->nchild && left; j++) {
				uint64_t take = t->node[cidx[j]].cap < left
				                    ? t->node[cidx[j]].cap
				                    : left;

				c.target[used_children++] = take;
				left -= take;
			}
		}
		k = used_children;
		if (k == 1) {
			for (uint32_t i = 0; i < nv; i++)
				c.part[i] = 0;
		} else if (k == nv) {
			/*
			 * One rank per child: every split cuts every edge,
			 * so METIS has nothing to choose; refinement still
			 * sees the distances.
			 */
			for (uint32_t i = 0; i < nv; i++)
				c.part[i] = (idx_t)i;
		} else {
			rc = split_segment(&c, seg, nv, k, v, err);
			if (rc != TP_OK)
				goto out;
		}
		sort_segment_by_part(seg, nv, seg_start[v], c.part, k, cidx,
		                     seg_start, seg_len, c.count, c.tmp);
		for (uint32_t p = 0; p < k; p++)
			for (uint32_t i = 0; i < seg_len[cidx[p]]; i++)
				c.owner[order[seg_start[cidx[p]] + i]] =
				    cidx[p];
	}
	*metis_work = c.metis_work;
out:
	free(order);
	free(seg_start);
	free(seg_len);
	free(cidx);
	free(c.local);
	free(c.owner);
	free(c.xadj);
	free(c.adjncy);
	free(c.adjwgt);
	free(c.tmp);
	free(c.part);
	free(c.target);
	free(c.count);
	free(c.conn);
	free(c.touched);
	return rc;
}

/* ---- plain recursive bisection down the allocation's tree ------------ */

/*
 * The way a site would map by hand with METIS (bench/peer_bench's
 * metis-rb peer): at every node of the allocation's tree with several
 * children, one METIS_PartGraphRecursive call with target weights in
 * proportion to the children's slots, children in allocation order, one
 * try, METIS's default coarsening, edge weights scaled to sum to 2^28;
 * then a vertex of a part over its slots, in segment order, moves to the
 * part with room it is most bound to.  It differs from
 * hierarchical_partition in the order and sizes of the parts, and on
 * uneven allocations that difference is the shape of a lone host's share
 * (a compact block rather than a row of a grid): kept as a candidate, it
 * makes the result never worse than this simple method.
 */
struct bisect_ctx {
	const tp_traffic_csr *g;
	uint64_t seed;
	uint32_t *local; /* rank -> position in the segment, NONE outside */
	idx_t *xadj, *adjncy, *adjwgt, *part;
	uint64_t *cap;
	uint32_t *count;
	int64_t *conn;
	real_t *tpw;
	uint64_t metis_work; /* metis_work_of each METIS call, summed */
};

/* Split segment @seg (@nv ranks) among @k children of ctx->cap slots. */
static void bisect_split(struct bisect_ctx *c, const uint32_t *seg, uint32_t nv,
                         uint32_t k)
{
	const tp_traffic_csr *g = c->g;
	uint64_t capsum = 0, total_w = 0;
	size_t ne = 0;
	int mrc = METIS_ERROR;

	for (uint32_t i = 0; i < nv; i++)
		c->local[seg[i]] = i;
	for (uint32_t i = 0; i < nv; i++)
		for (uint64_t e = g->row_start[seg[i]];
		     e < g->row_start[seg[i] + 1]; e++)
			if (c->local[g->col[e]] != NONE)
				total_w = g->weight[e] > UINT64_MAX - total_w
				              ? UINT64_MAX
				              : total_w + g->weight[e];
	c->xadj[0] = 0;
	for (uint32_t i = 0; i < nv; i++) {
		for (uint64_t e = g->row_start[seg[i]];
		     e < g->row_start[seg[i] + 1]; e++) {
			double w;

			if (c->local[g->col[e]] == NONE)
				continue;
			w = (double)g->weight[e] * (double)(1 << 28) /
			    (double)total_w;
			c->adjncy[ne] = (idx_t)c->local[g->col[e]];
			c->adjwgt[ne++] = w < 1 ? 1 : (idx_t)w;
		}
		c->xadj[i + 1] = (idx_t)ne;
	}
	for (uint32_t p = 0; p < k; p++)
		capsum += c->cap[p];
	if (ne > 0 && nv > k) {
		idx_t nvtxs = (idx_t)nv, ncon = 1, nparts = (idx_t)k, objval;
		idx_t options[METIS_NOPTIONS];
		real_t ub = 1.01f;

		for (uint32_t p = 0; p < k; p++)
			c->tpw[p] =
			    (real_t)((double)c->cap[p] / (double)capsum);
		METIS_SetDefaultOptions(options);
		options[METIS_OPTION_SEED] = (idx_t)(c->seed & 0x7fffffff);
		c->metis_work += metis_work_of(nv, ne, k);
		mrc = METIS_PartGraphRecursive(
		    &nvtxs, &ncon, c->xadj, c->adjncy, NULL, NULL, c->adjwgt,
		    &nparts, c->tpw, &ub, options, &objval, c->part);
	}
	if (mrc != METIS_OK) /* nothing to cut, or METIS failed: in order */
		parts_in_order(c->part, nv, c->cap);
	memset(c->count, 0, k * sizeof(*c->count));
	for (uint32_t i = 0; i < nv; i++)
		c->count[c->part[i]]++;
	for (uint32_t i = 0; i < nv; i++) {
		uint32_t p = (uint32_t)c->part[i], best = NONE;

		if (c->count[p] <= c->cap[p])
			continue;
		for (idx_t e = c->xadj[i]; e < c->xadj[i + 1]; e++)
			c->conn[c->part[c->adjncy[e]]] += c->adjwgt[e];
		for (uint32_t q = 0; q < k; q++)
			if (c->count[q] < c->cap[q] &&
			    (best == NONE || c->conn[q] > c->conn[best]))
				best = q;
		for (idx_t e = c->xadj[i]; e < c->xadj[i + 1]; e++)
			c->conn[c->part[c->adjncy[e]]] = 0;
		c->part[i] = (idx_t)best;
		c->count[p]--;
		c->count[best]++;
	}
	for (uint32_t i = 0; i < nv; i++)
		c->local[seg[i]] = NONE;
}

static tp_status bisection_partition(const struct tree *t,
                                     const tp_traffic_csr *g, uint64_t seed,
                                     uint32_t *rank_hl, uint64_t *metis_work,
                                     tp_error *err)
{
	uint32_t n = g->ranks, maxk = 1;
	size_t arcs = g->row_start[n];
	struct bisect_ctx c = {.g = g, .seed = seed};
	uint32_t *order = NULL, *tmp = NULL, *seg_start = NULL, *seg_len = NULL;
	tp_status rc = TP_OK;

	for (uint32_t v = 0; v < t->nnode; v++)
		if (t->node[v].nchild > maxk)
			maxk = t->node[v].nchild;
	order = malloc((size_t)n * sizeof(*order));
	tmp = malloc((size_t)n * sizeof(*tmp));
	seg_start = calloc(t->nnode, sizeof(*seg_start));
	seg_len = calloc(t->nnode, sizeof(*seg_len));
	c.local = malloc((size_t)n * sizeof(*c.local));
	c.xadj = malloc(((size_t)n + 1) * sizeof(*c.xadj));
	c.adjncy = malloc((arcs ? arcs : 1) * sizeof(*c.adjncy));
	c.adjwgt = malloc((arcs ? arcs : 1) * sizeof(*c.adjwgt));
	c.part = malloc((size_t)n * sizeof(*c.part));
	c.cap = malloc(maxk * sizeof(*c.cap));
	c.count = malloc(maxk * sizeof(*c.count));
	c.conn = calloc(maxk, sizeof(*c.conn));
	c.tpw = malloc(maxk * sizeof(*c.tpw));
	if (!order || !tmp || !seg_start || !seg_len || !c.local || !c.xadj ||
	    !c.adjncy || !c.adjwgt || !c.part || !c.cap || !c.count ||
	    !c.conn || !c.tpw) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "remap: out of memory bisecting %u ranks", n);
		goto out;
	}
	for (uint32_t r = 0; r < n; r++) {
		order[r] = r;
		c.local[r] = NONE;
	}
	seg_len[0] = n;
	/* Parents precede children in node order: one forward sweep. */
	for (uint32_t v = 0; v < t->nnode; v++) {
		const struct tnode *tn = &t->node[v];
		uint32_t *seg = order + seg_start[v], nv = seg_len[v];
		uint32_t k = tn->nchild, start = seg_start[v];

		if (tn->host != NONE) {
			for (uint32_t i = 0; i < nv; i++)
				rank_hl[seg[i]] = tn->host;
			continue;
		}
		if (nv == 0)
			continue;
		if (k == 1) {
			seg_start[t->child[tn->child0]] = start;
			seg_len[t->child[tn->child0]] = nv;
			continue;
		}
		for (uint32_t j = 0; j < k; j++)
			c.cap[j] = t->node[t->child[tn->child0 + j]].cap;
		bisect_split(&c, seg, nv, k);
		sort_segment_by_part(seg, nv, start, c.part, k,
		                     &t->child[tn->child0], seg_start, seg_len,
		                     c.count, tmp);
	}
	*metis_work = c.metis_work;
out:
	free(order);
	free(tmp);
	free(seg_start);
	free(seg_len);
	free(c.local);
	free(c.xadj);
	free(c.adjncy);
	free(c.adjwgt);
	free(c.part);
	free(c.cap);
	free(c.count);
	free(c.conn);
	free(c.tpw);
	return rc;
}

/*
 * Largest job that gets partitions besides the bisection.  Above it the
 * packed partition, the only other one planned there, cost 0.8-0.9 times
 * metis-rb's CPU for nothing measurable: on bench/peer_bench's 270
 * family inputs of 6,000, 8,192 and 16,384 ranks (2- and 3-level, 1/4/16
 * ranks per host, contiguous and fragment seeds 1-2) the search without
 * it gave hop-bytes x1.00007 per input (geomean; 54 higher, worst +1.3%,
 * 29 lower, best -1.2%), 15 inputs above the Scotch peer instead of 24,
 * for 0.63 times the CPU (ours/metis-rb 2.26-2.29 -> 1.41-1.44;
 * bench/RESULTS.md, "The packed partition above 4,096 ranks").
 */
#define PARTITIONS_MAX_RANKS 4096
/* Largest job that gets the leaf-wide polish (one rank per host); above
 * it the refinement makes at most 4 passes (the 1 s goal at 65,536). */
#define POLISH_MAX_RANKS 16384
/* Small jobs: a larger search budget, leaf-wide swaps, more passes. */
#define SMALL_MAX_RANKS 2048
/* 4-try seeds in the plan (in practice the budget stops the search first). */
#define TRIAL_SEEDS 12
#define TRIALS_MAX  (7 + TRIAL_SEEDS)
/*
 * METIS work (metis_work_of) the candidates after the bisection may spend,
 * as a multiple of the bisection's own work.  The bisection is the work
 * of the metis-rb peer, so above SMALL_MAX_RANKS the METIS partitions
 * stay near 2x METIS-rb (Scotch's mapping, up to SCOTCH_MAX_RANKS, comes
 * on top).  Small jobs get 8: the packed partitions of 4 seeds and one
 * with 4 tries per split, what the quality tests of the small real
 * matrices need (tests/unit/test_remap_peers.c; bench/RESULTS.md, issue
 * 16: 6-8x METIS-rb's CPU there, against 18-30x before).
 */
#define SEARCH_BUDGET       1
#define SMALL_SEARCH_BUDGET 8
/*
 * METIS FM passes per level for the second candidate above SMALL_MAX_RANKS
 * (METIS's default is 10).  Our refinement follows every partition and
 * minimises hop-bytes, not METIS's edge cut, so METIS's own passes there
 * mostly polish what ours redoes: one pass made that candidate 13-45%
 * cheaper at 4,096-16,384 ranks and left ours at or below the best peer
 * on 116 of 120 family inputs, 115 with 10 (bench/RESULTS.md, issue 16).
 */
#define LARGE_FM_PASSES 1
/* Leaf-wide swaps beyond SMALL_MAX_RANKS: at most this many slots a leaf. */
#define WIDE_LEAF_SLOTS 64

/* ---- the allocation's leaves and their distances ------------------- */

/*
 * The leaves the allocation uses, numbered 0.. in order of first use, and
 * the hops between them: the refinement asks for a distance for every
 * neighbour of every rank it tries, and a table lookup is cheaper than the
 * fabric's (a call, its override check, the pods' comparison).  Built once
 * per search; the table only up to ALLOC_LEAF_TABLE_MAX leaves (1 MiB,
 * built with at most 2^20 fabric lookups: a job spanning that many leaves
 * has at least as many hosts, and its refinement asks far more often),
 * the fabric is asked above.
 */
#define ALLOC_LEAF_TABLE_MAX 1024

struct alloc_leaves {
	const tp_topo *topo;
	uint32_t count;
	uint32_t *of_position; /* allocation position -> allocation leaf */
	uint32_t *topo_leaf;   /* allocation leaf -> fabric leaf */
	/* count x count hops (same leaf: TP_HOPS_SAME_LEAF), or NULL */
	uint8_t *hops;
};

static void alloc_leaves_free(struct alloc_leaves *al)
{
	free(al->of_position);
	free(al->topo_leaf);
	free(al->hops);
}

static tp_status alloc_leaves_build(const tp_topo *topo,
                                    const tp_remap_host *hosts, uint32_t nhosts,
                                    struct alloc_leaves *al, tp_error *err)
{
	uint32_t nleaves_topo = tp_topo_leaf_count(topo);
	uint32_t *index = malloc(nleaves_topo * sizeof(*index));

	*al = (struct alloc_leaves){.topo = topo};
	al->of_position = malloc(nhosts * sizeof(*al->of_position));
	al->topo_leaf = malloc(nhosts * sizeof(*al->topo_leaf));
	if (!index || !al->of_position || !al->topo_leaf) {
		free(index);
		return tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
	}
	for (uint32_t l = 0; l < nleaves_topo; l++)
		index[l] = NONE;
	for (uint32_t i = 0; i < nhosts; i++) {
		uint32_t l = tp_topo_host_leaf(topo, hosts[i].host);

		if (index[l] == NONE) {
			index[l] = al->count;
			al->topo_leaf[al->count++] = l;
		}
		al->of_position[i] = index[l];
	}
	free(index);
	if (al->count > ALLOC_LEAF_TABLE_MAX)
		return TP_OK;
	al->hops = malloc((size_t)al->count * al->count);
	if (!al->hops)
		return tp_error_set(err, TP_ERR_NOMEM, "remap: out of memory");
	for (uint32_t a = 0; a < al->count; a++)
		for (uint32_t b = 0; b < al->count; b++)
			al->hops[(size_t)a * al->count + b] =
			    (uint8_t)(a == b ? TP_HOPS_SAME_LEAF
			                     : tp_topo_leaf_distance(
			                           topo, al->topo_leaf[a],
			                           al->topo_leaf[b]));
	return TP_OK;
}

/* Hops between allocation leaves @a and @b (TP_HOPS_SAME_LEAF if equal). */
static inline unsigned alloc_leaf_hops(const struct alloc_leaves *al,
                                       uint32_t a, uint32_t b)
{
	if (al->hops)
		return al->hops[(size_t)a * al->count + b];
	return a == b ? TP_HOPS_SAME_LEAF
	              : tp_topo_leaf_distance(al->topo, al->topo_leaf[a],
	                                      al->topo_leaf[b]);
}

/* ---- refinement --------------------------------------------------------- */

struct refine {
	const tp_topo *topo;
	const tp_remap_host *hosts;
	const tp_traffic_csr *g;
	const struct alloc_leaves *al;
	uint32_t nhosts, n;
	/*
	 * Leaves below are the allocation's (al), not the fabric's: arrays
	 * per leaf are al->count long.
	 */
	const uint32_t *leaf; /* allocation position -> allocation leaf */
	uint32_t *pos0;       /* first position of each host in `occ` */
	uint32_t *used;       /* ranks on each host */
	uint32_t *occ;        /* ranks by host, `used` of `slots` filled */
	uint32_t *where;      /* rank -> index into occ */
	uint32_t *rank_hl;    /* rank -> allocation position */
	uint32_t *leaf_free;  /* free slots per leaf */
	uint32_t *leaf_first; /* first allocation position on each leaf */
	uint32_t *leaf_next;  /* next allocation position on the same leaf */
	uint32_t *mark;       /* per allocation position: stamp */
	int64_t *cost;        /* per candidate */
	uint32_t *cands;
	uint32_t stamp;
	/* leaf-wide swaps only (NULL otherwise) */
	int64_t *w_to_r;     /* per rank: bytes with the rank being moved */
	uint32_t *leaf_mark; /* per leaf: stamp */
	uint32_t *lcands;    /* candidate leaves */
	int64_t *leaf_w;     /* per leaf: bytes of r with it */
	uint32_t lstamp;
	/*
	 * The neighbours of the rank being moved, gathered by host and by
	 * leaf (gather_neighbours), so that its cost at a host is a sum over
	 * its neighbours' leaves, not over its neighbours.
	 */
	int64_t *host_w;        /* per allocation position; 0 ungathered */
	int64_t *nb_leaf_w;     /* per leaf, valid where marked */
	uint32_t *nb_leaf_mark; /* per leaf: nb_stamp when gathered */
	uint32_t *nb_leaves;    /* the gathered leaves */
	uint32_t nb_leaf_count, nb_stamp;
	/*
	 * gathered_leaf_cost per leaf, valid where stamped with nb_stamp:
	 * the candidate hosts of one rank share few leaves (at one rank per
	 * host, every host of a neighbour's leaf is a candidate).
	 */
	int64_t *leaf_cost;
	uint32_t *leaf_cost_stamp;
	/* each rank's cost where it is, kept by occ_move and occ_swap */
	tp_remap_rank_cost costs;
};

/*
 * Hops between allocation positions @a and @b.  Always inlined: gcc -O2
 * otherwise calls it from every loop over neighbours, and the call cost
 * more than the table saved (callgrind, bench/RESULTS.md, issue 16).
 */
static inline __attribute__((always_inline)) unsigned
hl_distance(const struct refine *f, uint32_t a, uint32_t b)
{
	uint32_t la, lb;

	if (a == b)
		return 0;
	la = f->leaf[a];
	lb = f->leaf[b];
	/* The common cases first, with no call: this is the inner loop. */
	if (la == lb)
		return TP_HOPS_SAME_LEAF;
	if (f->al->hops)
		return f->al->hops[(size_t)la * f->al->count + lb];
	return tp_topo_leaf_distance(f->topo, f->al->topo_leaf[la],
	                             f->al->topo_leaf[lb]);
}

/* hl_distance for tp_remap_rank_cost (@ctx: the struct refine). */
static unsigned refine_distance(const void *ctx, uint32_t a, uint32_t b)
{
	return hl_distance(ctx, a, b);
}

/* Sum of w x d(host b, host of neighbour) over rank r's neighbours. */
static int64_t rank_cost_at(const struct refine *f, uint32_t r, uint32_t b)
{
	const tp_traffic_csr *g = f->g;
	int64_t sum = 0;

	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
		uint32_t nb = g->col[e];

		sum +=
		    (int64_t)g->weight[e] * hl_distance(f, b, f->rank_hl[nb]);
	}
	return sum;
}

/*
 * Gather rank r's bytes by the host and the leaf of its neighbours; undo
 * with scatter_neighbours before any rank moves.
 */
static void gather_neighbours(struct refine *f, uint32_t r)
{
	const tp_traffic_csr *g = f->g;

	if (++f->nb_stamp == 0) {
		memset(f->nb_leaf_mark, 0,
		       f->al->count * sizeof(*f->nb_leaf_mark));
		memset(f->leaf_cost_stamp, 0,
		       f->al->count * sizeof(*f->leaf_cost_stamp));
		f->nb_stamp = 1;
	}
	f->nb_leaf_count = 0;
	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
		uint32_t h = f->rank_hl[g->col[e]], l = f->leaf[h];
		int64_t w = (int64_t)g->weight[e];

		f->host_w[h] += w;
		if (f->nb_leaf_mark[l] != f->nb_stamp) {
			f->nb_leaf_mark[l] = f->nb_stamp;
			f->nb_leaf_w[l] = 0;
			f->nb_leaves[f->nb_leaf_count++] = l;
		}
		f->nb_leaf_w[l] += w;
	}
}

static void scatter_neighbours(struct refine *f, uint32_t r)
{
	const tp_traffic_csr *g = f->g;

	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++)
		f->host_w[f->rank_hl[g->col[e]]] = 0;
}

/*
 * The gathered rank's bytes x hops to a host of leaf @lb, counting its
 * neighbours on that host at 2 hops like the rest of the leaf.
 */
static int64_t gathered_leaf_cost(struct refine *f, uint32_t lb)
{
	int64_t sum = 0;

	if (f->leaf_cost_stamp[lb] == f->nb_stamp)
		return f->leaf_cost[lb];
	for (uint32_t i = 0; i < f->nb_leaf_count; i++) {
		uint32_t l = f->nb_leaves[i];

		sum += f->nb_leaf_w[l] * alloc_leaf_hops(f->al, lb, l);
	}
	f->leaf_cost[lb] = sum;
	f->leaf_cost_stamp[lb] = f->nb_stamp;
	return sum;
}

/*
 * rank_cost_at(f, r, b) for the gathered rank r, exactly: every neighbour
 * at its leaf's distance from b's leaf, less the 2 hops of those on b
 * itself (0 hops).  Work: r's neighbours' leaves, not r's neighbours.
 */
static int64_t gathered_cost_at(struct refine *f, uint32_t b)
{
	return gathered_leaf_cost(f, f->leaf[b]) -
	       f->host_w[b] * TP_HOPS_SAME_LEAF;
}

/*
 * Whether swapping the ranks of hosts @a and @b gains exactly 0 whatever
 * they are: two one-slot hosts of one leaf, where every other rank is as
 * far from either and the swapped pair's edge keeps its length.
 */
static bool swap_gains_nothing(const struct refine *f, uint32_t a, uint32_t b)
{
	return f->leaf[a] == f->leaf[b] && f->hosts[a].slots == 1 &&
	       f->hosts[b].slots == 1;
}

/*
 * At least the gain of swapping the rank being moved (costing @delta_r
 * more on the host of @s) with @s, from kept sums only: s's colocated
 * neighbours are at least TP_HOPS_SAME_LEAF hops from any other host, so
 * s costs at least that times its colocated bytes there.  Leaves out the
 * r-s edge's correction, which only lowers the gain.  A partner whose
 * bound is no better than the best gain so far is skipped unscanned: on
 * a good partition most partners are ranks bound to their own host.
 */
static int64_t swap_gain_bound(const struct refine *f, int64_t delta_r,
                               uint32_t s)
{
	return f->costs.cost[s] - TP_HOPS_SAME_LEAF * f->costs.colocated[s] -
	       delta_r;
}

static void occ_move(struct refine *f, uint32_t r, uint32_t b)
{
	uint32_t a = f->rank_hl[r];
	uint32_t last = f->occ[f->pos0[a] + f->used[a] - 1];

	/* Fill r's hole in a with a's last rank. */
	f->occ[f->where[r]] = last;
	f->where[last] = f->where[r];
	f->used[a]--;
	f->where[r] = f->pos0[b] + f->used[b];
	f->occ[f->where[r]] = r;
	f->used[b]++;
	f->leaf_free[f->leaf[a]]++;
	f->leaf_free[f->leaf[b]]--;
	f->rank_hl[r] = b;
	tp_remap_rank_cost_moved(&f->costs, r, a);
}

static void occ_swap(struct refine *f, uint32_t r, uint32_t s)
{
	uint32_t wr = f->where[r], ws = f->where[s];
	uint32_t hr = f->rank_hl[r], hs = f->rank_hl[s];

	f->occ[wr] = s;
	f->occ[ws] = r;
	f->where[r] = ws;
	f->where[s] = wr;
	/* One rank at a time, as tp_remap_rank_cost_moved expects. */
	f->rank_hl[r] = hs;
	tp_remap_rank_cost_moved(&f->costs, r, hr);
	f->rank_hl[s] = hr;
	tp_remap_rank_cost_moved(&f->costs, s, hs);
}

/*
 * One improving move of rank r, if any: to a host of one of its
 * neighbours (or a host with a free slot on a neighbour's leaf), alone
 * if a slot is free, else swapped with the rank there that gains most.
 * Returns the hop-bytes saved (0: nothing done).
 */
static int64_t improve_rank(struct refine *f, uint32_t r)
{
	const tp_traffic_csr *g = f->g;
	uint32_t a = f->rank_hl[r], nc = 0;
	int64_t here, best_gain = 0;
	uint32_t best_host = NONE, best_partner = NONE;
	enum { TRY_SWAPS = 3 };

	if (g->row_start[r] == g->row_start[r + 1])
		return 0;
	if (++f->stamp == 0) {
		memset(f->mark, 0, f->nhosts * sizeof(*f->mark));
		f->stamp = 1;
	}
	f->mark[a] = f->stamp;
	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
		uint32_t b = f->rank_hl[g->col[e]];

		if (f->mark[b] != f->stamp) {
			f->mark[b] = f->stamp;
			f->cands[nc++] = b;
		}
		/* A free slot near the neighbour is as good as its host. */
		if (f->leaf_free[f->leaf[b]] && f->used[b] == f->hosts[b].slots)
			for (uint32_t h = f->leaf_first[f->leaf[b]]; h != NONE;
			     h = f->leaf_next[h])
				if (f->used[h] < f->hosts[h].slots) {
					if (f->mark[h] != f->stamp) {
						f->mark[h] = f->stamp;
						f->cands[nc++] = h;
					}
					break;
				}
	}
	if (nc == 0)
		return 0;
	gather_neighbours(f, r);
	here = gathered_cost_at(f, a);
	for (uint32_t i = 0; i < nc; i++)
		f->cost[i] = gathered_cost_at(f, f->cands[i]) - here;
	scatter_neighbours(f, r);
	/* Free slots first: a move is cheaper to check than a swap. */
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t b = f->cands[i];

		if (f->used[b] < f->hosts[b].slots && -f->cost[i] > best_gain) {
			best_gain = -f->cost[i];
			best_host = b;
		}
	}
	/* Swaps on the few most attractive full hosts. */
	for (int t = 0; t < TRY_SWAPS; t++) {
		uint32_t bi = NONE;

		for (uint32_t i = 0; i < nc; i++)
			if (f->cost[i] < 0 &&
			    (bi == NONE || f->cost[i] < f->cost[bi]) &&
			    f->used[f->cands[i]] == f->hosts[f->cands[i]].slots)
				bi = i;
		if (bi == NONE)
			break;
		uint32_t b = f->cands[bi];
		int64_t delta_r = f->cost[bi];
		unsigned dab = hl_distance(f, a, b);

		f->cost[bi] = INT64_MAX; /* taken */
		/* Still one of the tries, so the hosts tried after it do not
		 * change. */
		if (swap_gains_nothing(f, a, b))
			continue;
		for (uint32_t k = 0; k < f->used[b]; k++) {
			uint32_t s = f->occ[f->pos0[b] + k];
			int64_t cost_s_at_a = 0, w_rs = 0, delta_s;

			if (swap_gain_bound(f, delta_r, s) <= best_gain)
				continue;
			for (uint64_t e = g->row_start[s];
			     e < g->row_start[s + 1]; e++) {
				uint32_t nb = g->col[e];
				int64_t w = (int64_t)g->weight[e];

				if (nb == r)
					w_rs = w;
				cost_s_at_a +=
				    w * hl_distance(f, a, f->rank_hl[nb]);
			}
			delta_s = cost_s_at_a - f->costs.cost[s];
			/* The r-s edge keeps its length: undo both counts. */
			int64_t gain =
			    -(delta_r + delta_s + 2 * w_rs * (int64_t)dab);

			if (gain > best_gain) {
				best_gain = gain;
				best_host = b;
				best_partner = s;
			}
		}
	}
	if (best_host == NONE)
		return 0;
	if (best_partner == NONE)
		occ_move(f, r, best_host);
	else
		occ_swap(f, r, best_partner);
	return best_gain;
}

/*
 * Like improve_rank, but the partner of a swap may be any rank on any host
 * of a leaf where r has a neighbour, not only on the neighbours' hosts: at
 * 1 rank per host the rank worth exchanging with r is seldom one of r's
 * own neighbours (it is one that belongs where r is).  Costs a scan of the
 * candidate leaves' ranks, so only small jobs get it.
 */
static int64_t improve_rank_wide(struct refine *f, uint32_t r)
{
	const tp_traffic_csr *g = f->g;
	uint32_t a = f->rank_hl[r], nl = 0;
	uint32_t best_host = NONE, best_partner = NONE;
	int64_t here, best_gain = 0;

	if (g->row_start[r] == g->row_start[r + 1])
		return 0;
	if (++f->lstamp == 0) {
		memset(f->leaf_mark, 0, f->al->count * sizeof(*f->leaf_mark));
		f->lstamp = 1;
	}
	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++) {
		uint32_t l = f->leaf[f->rank_hl[g->col[e]]];

		f->w_to_r[g->col[e]] = (int64_t)g->weight[e];
		if (f->leaf_mark[l] != f->lstamp) {
			f->leaf_mark[l] = f->lstamp;
			f->leaf_w[l] = 0;
			f->lcands[nl++] = l;
		}
		f->leaf_w[l] += (int64_t)g->weight[e];
	}
	/*
	 * Only leaves r is more bound to than to its own: elsewhere r's own
	 * share of a swap loses, and scanning them costs most of the time.
	 */
	{
		int64_t own = f->leaf_mark[f->leaf[a]] == f->lstamp
		                  ? f->leaf_w[f->leaf[a]]
		                  : 0;
		uint32_t kept = 0;

		for (uint32_t i = 0; i < nl; i++)
			if (f->lcands[i] == f->leaf[a] ||
			    f->leaf_w[f->lcands[i]] > own)
				f->lcands[kept++] = f->lcands[i];
		nl = kept;
	}
	gather_neighbours(f, r);
	here = gathered_cost_at(f, a);
	for (uint32_t i = 0; i < nl; i++) {
		/* r's cost on a host of this leaf, but for the host itself */
		int64_t leaf_cost = gathered_leaf_cost(f, f->lcands[i]);

		for (uint32_t h = f->leaf_first[f->lcands[i]]; h != NONE;
		     h = f->leaf_next[h]) {
			int64_t dr;
			unsigned dah;

			if (h == a)
				continue;
			dr =
			    leaf_cost - f->host_w[h] * TP_HOPS_SAME_LEAF - here;
			if (f->used[h] < f->hosts[h].slots && -dr > best_gain) {
				best_gain = -dr;
				best_host = h;
				best_partner = NONE;
			}
			if (swap_gains_nothing(f, a, h))
				continue;
			dah = hl_distance(f, a, h);
			for (uint32_t k = 0; k < f->used[h]; k++) {
				uint32_t s = f->occ[f->pos0[h] + k];
				int64_t ds;

				if (swap_gain_bound(f, dr, s) -
				        2 * f->w_to_r[s] * (int64_t)dah <=
				    best_gain)
					continue;
				ds = rank_cost_at(f, s, a) - f->costs.cost[s];
				/* The r-s edge keeps its length. */
				int64_t gain = -(
				    dr + ds + 2 * f->w_to_r[s] * (int64_t)dah);

				if (gain > best_gain) {
					best_gain = gain;
					best_host = h;
					best_partner = s;
				}
			}
		}
	}
	scatter_neighbours(f, r);
	for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1]; e++)
		f->w_to_r[g->col[e]] = 0;
	if (best_host == NONE)
		return 0;
	if (best_partner == NONE)
		occ_move(f, r, best_host);
	else
		occ_swap(f, r, best_partner);
	return best_gain;
}

static void refine_free(struct refine *f)
{
	free(f->w_to_r);
	free(f->leaf_mark);
	free(f->lcands);
	free(f->leaf_w);
	free(f->pos0);
	free(f->used);
	free(f->occ);
	free(f->where);
	free(f->leaf_free);
	free(f->leaf_first);
	free(f->leaf_next);
	free(f->mark);
	free(f->cost);
	free(f->cands);
	free(f->host_w);
	free(f->nb_leaf_w);
	free(f->nb_leaf_mark);
	free(f->leaf_cost);
	free(f->leaf_cost_stamp);
	free(f->nb_leaves);
	tp_remap_rank_cost_free(&f->costs);
}

/*
 * The hop-bytes of the mapping refine was given and of the one it leaves,
 * from its own exact sums, so the caller need not count them again over
 * the whole matrix.  Known only when no sum can overflow: at most 2^54
 * bytes in the matrix (both directions), hops of at most 255.
 */
struct refine_hop_bytes {
	bool known;
	uint64_t before, after;
};

static bool refine_sums_exact(const tp_traffic_csr *g)
{
	uint64_t total = 0, arcs = g->row_start[g->ranks];

	for (uint64_t e = 0; e < arcs; e++) {
		if (g->weight[e] > (1ull << 54) - total)
			return false;
		total += g->weight[e];
	}
	return true;
}

/*
 * Lower the hop-bytes of @rank_hl in place by passes over the ranks in a
 * seeded order until a pass saves less than 0.1% (at most 8 passes).
 * @wide: a rank that improve_rank cannot move also tries
 * improve_rank_wide.  Fills @hb (known false when the sums are too large).
 */
static tp_status refine(const tp_topo *topo, const tp_remap_host *hosts,
                        uint32_t nhosts, const struct alloc_leaves *al,
                        const tp_traffic_csr *g, uint64_t seed, bool wide,
                        uint32_t *rank_hl, uint64_t *moves,
                        struct refine_hop_bytes *hb, tp_error *err)
{
	struct refine f = {.topo = topo,
	                   .hosts = hosts,
	                   .g = g,
	                   .al = al,
	                   .leaf = al->of_position,
	                   .nhosts = nhosts,
	                   .n = g->ranks,
	                   .rank_hl = rank_hl};
	uint32_t nleaves = al->count, maxdeg = 0;
	uint32_t *perm = NULL;
	uint64_t total_slots = 0, state = seed ^ 0x5eedull;
	int64_t current = 0;
	int max_passes = 8;
	tp_status rc = TP_OK;

	/*
	 * Gains are signed 64-bit sums of bytes x hops (at most 6): with
	 * more than 2^58 bytes in the matrix they could overflow, so such a
	 * job keeps the unrefined mapping.
	 */
	hb->known = refine_sums_exact(g);
	{
		uint64_t total = 0, arcs = g->row_start[g->ranks];

		for (uint64_t e = 0; e < arcs; e++) {
			total += g->weight[e];
			if (total > (1ull << 58) || g->weight[e] > (1ull << 58))
				return TP_OK;
		}
	}
	for (uint32_t i = 0; i < nhosts; i++)
		total_slots += hosts[i].slots;
	for (uint32_t r = 0; r < f.n; r++) {
		uint64_t d = g->row_start[r + 1] - g->row_start[r];

		if (d > maxdeg)
			maxdeg = (uint32_t)d;
	}
	/* Each neighbour adds at most 2 candidates (its host, a free one). */
	f.pos0 = malloc(nhosts * sizeof(*f.pos0));
	f.used = calloc(nhosts, sizeof(*f.used));
	f.occ = malloc(total_slots * sizeof(*f.occ));
	f.where = malloc((size_t)f.n * sizeof(*f.where));
	f.leaf_free = calloc(nleaves, sizeof(*f.leaf_free));
	f.leaf_first = malloc(nleaves * sizeof(*f.leaf_first));
	f.leaf_next = malloc(nhosts * sizeof(*f.leaf_next));
	f.mark = calloc(nhosts, sizeof(*f.mark));
	f.cost = malloc((2 * (size_t)maxdeg + 1) * sizeof(*f.cost));
	f.cands = malloc((2 * (size_t)maxdeg + 1) * sizeof(*f.cands));
	perm = malloc((size_t)f.n * sizeof(*perm));
	f.host_w = calloc(nhosts, sizeof(*f.host_w));
	f.nb_leaf_w = malloc(nleaves * sizeof(*f.nb_leaf_w));
	f.nb_leaf_mark = calloc(nleaves, sizeof(*f.nb_leaf_mark));
	f.leaf_cost = malloc(nleaves * sizeof(*f.leaf_cost));
	f.leaf_cost_stamp = calloc(nleaves, sizeof(*f.leaf_cost_stamp));
	f.nb_leaves = malloc(((size_t)maxdeg + 1) * sizeof(*f.nb_leaves));
	if (wide) {
		f.w_to_r = calloc(f.n, sizeof(*f.w_to_r));
		f.leaf_mark = calloc(nleaves, sizeof(*f.leaf_mark));
		f.lcands = malloc(((size_t)maxdeg + 1) * sizeof(*f.lcands));
		f.leaf_w = calloc(nleaves, sizeof(*f.leaf_w));
	}
	if (!f.pos0 || !f.used || !f.occ || !f.where || !f.leaf_free ||
	    !f.leaf_first || !f.leaf_next || !f.mark || !f.cost || !f.cands ||
	    !perm || !f.host_w || !f.nb_leaf_w || !f.nb_leaf_mark ||
	    !f.leaf_cost || !f.leaf_cost_stamp || !f.nb_leaves ||
	    (wide && (!f.w_to_r || !f.leaf_mark || !f.lcands || !f.leaf_w))) {
		rc =
		    tp_error_set(err, TP_ERR_NOMEM,
		                 "remap: out of memory refining %u ranks", f.n);
		goto out;
	}
	for (uint32_t l = 0; l < nleaves; l++)
		f.leaf_first[l] = NONE;
	/* Backwards, so each leaf's list is in allocation order. */
	for (uint32_t i = nhosts; i-- > 0;) {
		f.leaf_next[i] = f.leaf_first[f.leaf[i]];
		f.leaf_first[f.leaf[i]] = i;
	}
	for (uint32_t i = 0, pos = 0; i < nhosts; i++) {
		f.pos0[i] = pos;
		pos += hosts[i].slots;
		f.leaf_free[f.leaf[i]] += hosts[i].slots;
	}
	for (uint32_t r = 0; r < f.n; r++) {
		uint32_t h = rank_hl[r];

		f.where[r] = f.pos0[h] + f.used[h];
		f.occ[f.where[r]] = r;
		f.used[h]++;
		f.leaf_free[f.leaf[h]]--;
	}
	rc = tp_remap_rank_cost_init(&f.costs, g, rank_hl, refine_distance, &f,
	                             err);
	if (rc != TP_OK)
		goto out;
	for (uint32_t r = 0; r < f.n; r++)
		current += f.costs.cost[r];
	current /= 2;
	hb->before = (uint64_t)current;
	if (wide && f.n > SMALL_MAX_RANKS)
		max_passes = 3;
	else if (f.n > POLISH_MAX_RANKS)
		max_passes = 4;
	for (uint32_t r = 0; r < f.n; r++)
		perm[r] = r;
	for (uint32_t r = f.n; r > 1; r--) {
		uint32_t j = rng_below(&state, r), t = perm[r - 1];

		perm[r - 1] = perm[j];
		perm[j] = t;
	}
	/*
	 * Leaf-wide passes cost more: 3 of them beyond small jobs.  Large
	 * jobs stop at 4 passes (the 5 s goal at 262,144 ranks): later
	 * passes there save well under 1% each.
	 */
	for (int pass = 0; pass < max_passes && current > 0; pass++) {
		int64_t saved = 0;

		for (uint32_t i = 0; i < f.n; i++) {
			int64_t g1 = improve_rank(&f, perm[i]);

			if (g1 == 0 && wide)
				g1 = improve_rank_wide(&f, perm[i]);

			if (g1 > 0) {
				saved += g1;
				(*moves)++;
			}
		}
		current -= saved;
		if (saved == 0 || saved < current / 1000)
			break;
	}
	hb->after = (uint64_t)current;
out:
	free(perm);
	refine_free(&f);
	return rc;
}

/* ---- whole-host swaps ------------------------------------------------------
 */

/*
 * Rank moves and swaps (refine) change one rank at a time, so a host's
 * whole share of a grid seldom crosses to another leaf: each single step
 * of that move loses.  On a scattered allocation the share a lone host got
 * may belong on another leaf, and swapping the two hosts' contents at once
 * is an exact, cheap step: a quadratic-assignment pass over hosts, with
 * each host's bytes to every other host summed once.
 *
 * Bounds: hosts x hosts + 2 x hosts x leaves 64-bit sums
 * (HOST_SWAP_MAX_HOSTS hosts: 0.5 MiB + 2 x 0.5 MiB); hosts x leaves^2 to
 * start, then per pass hosts^2 pairs at O(1) each plus hosts x leaves per
 * swap made, at most HOST_SWAP_PASSES passes.
 */
#define HOST_SWAP_MAX_HOSTS 256
#define HOST_SWAP_PASSES    4

struct host_swap {
	uint32_t nhosts, nleaves;
	uint32_t *pos;     /* content (original position) -> position */
	uint32_t *content; /* position -> content */
	uint32_t *lidx;    /* position -> leaf of the allocation, 0.. */
	uint32_t *used;    /* content -> ranks */
	int64_t *w;        /* content x content: bytes both ways */
	int64_t *wl;       /* content x leaf: bytes to the contents there */
	/*
	 * content x leaf: sum over leaves l of wl[c][l] x dist[L][l], the
	 * bytes x hops of content c were it on leaf L (its bytes to its own
	 * host counted at TP_HOPS_SAME_LEAF, which host_swap_delta undoes).
	 */
	int64_t *cl;
	unsigned *dist; /* leaf x leaf hops (same leaf: TP_HOPS_SAME_LEAF) */
};

static void host_swap_free(struct host_swap *hs)
{
	free(hs->pos);
	free(hs->content);
	free(hs->lidx);
	free(hs->used);
	free(hs->w);
	free(hs->wl);
	free(hs->cl);
	free(hs->dist);
}

/*
 * Change in hop-bytes (x2) if contents @u and @v trade places: the sum
 * over leaves l of (wl[u][l] - wl[v][l]) x (dist[lv][l] - dist[lu][l]),
 * which expands to the four cl terms below, exactly (integers), in O(1)
 * instead of a loop over the leaves for every pair (that loop was 18% of
 * ours' instructions at 256 ranks, one per host: bench/RESULTS.md,
 * issue 16, "Where remap's time goes at 64-2,048 ranks").
 */
static int64_t host_swap_delta(const struct host_swap *hs, uint32_t u,
                               uint32_t v)
{
	uint32_t nl = hs->nleaves;
	uint32_t lu = hs->lidx[hs->pos[u]], lv = hs->lidx[hs->pos[v]];
	const int64_t *cu = hs->cl + (size_t)u * nl,
	              *cv = hs->cl + (size_t)v * nl;
	int64_t sum = (cu[lv] - cu[lu]) + (cv[lu] - cv[lv]);

	/* The u-v edge keeps its length: take out what the sum gave it. */
	return sum + 2 * hs->w[(size_t)u * hs->nhosts + v] *
	                 ((int64_t)hs->dist[(size_t)lu * nl + lv] -
	                  TP_HOPS_SAME_LEAF);
}

static void host_swap_apply(struct host_swap *hs, uint32_t u, uint32_t v)
{
	uint32_t nh = hs->nhosts, nl = hs->nleaves;
	uint32_t pu = hs->pos[u], pv = hs->pos[v];
	uint32_t lu = hs->lidx[pu], lv = hs->lidx[pv];

	for (uint32_t c = 0; c < nh; c++) {
		int64_t d =
		    hs->w[(size_t)c * nh + v] - hs->w[(size_t)c * nh + u];
		int64_t *cc = hs->cl + (size_t)c * nl;

		if (d == 0)
			continue;
		hs->wl[(size_t)c * nl + lu] += d;
		hs->wl[(size_t)c * nl + lv] -= d;
		/* cl follows wl: d more bytes on leaf lu, d fewer on lv. */
		for (uint32_t l = 0; l < nl; l++)
			cc[l] += d * ((int64_t)hs->dist[(size_t)l * nl + lu] -
			              (int64_t)hs->dist[(size_t)l * nl + lv]);
	}
	hs->pos[u] = pv;
	hs->pos[v] = pu;
	hs->content[pu] = v;
	hs->content[pv] = u;
}

/*
 * Lower the hop-bytes of @rank_hl by swapping whole hosts' contents
 * between leaves (best partner per host, passes until none gains).
 * Allocations over HOST_SWAP_MAX_HOSTS hosts or on one leaf are left as
 * they are.  *@swaps counts the swaps made.
 */
static tp_status swap_host_contents(const tp_topo *topo,
                                    const tp_remap_host *hosts, uint32_t nhosts,
                                    const tp_traffic_csr *g, uint32_t *rank_hl,
                                    uint64_t *swaps, tp_error *err)
{
	struct host_swap hs = {.nhosts = nhosts};
	uint32_t nleaves_topo = tp_topo_leaf_count(topo), *leaf_of = NULL;
	uint32_t *leaf_topo = NULL; /* allocation leaf -> fabric leaf */
	uint32_t *nz_leaf = NULL;   /* leaves one content has bytes with */
	uint64_t total = 0, arcs = g->row_start[g->ranks];
	tp_status rc = TP_OK;

	if (nhosts < 2 || nhosts > HOST_SWAP_MAX_HOSTS)
		return TP_OK;
	/* As in refine: sums of bytes x hops must fit in 63 bits. */
	for (uint64_t e = 0; e < arcs; e++) {
		total += g->weight[e];
		if (total > (1ull << 58) || g->weight[e] > (1ull << 58))
			return TP_OK;
	}
	leaf_of = malloc(nleaves_topo * sizeof(*leaf_of));
	hs.pos = malloc(nhosts * sizeof(*hs.pos));
	hs.content = malloc(nhosts * sizeof(*hs.content));
	hs.lidx = malloc(nhosts * sizeof(*hs.lidx));
	hs.used = calloc(nhosts, sizeof(*hs.used));
	hs.w = calloc((size_t)nhosts * nhosts, sizeof(*hs.w));
	if (!leaf_of || !hs.pos || !hs.content || !hs.lidx || !hs.used || !hs.w)
		goto nomem;
	for (uint32_t l = 0; l < nleaves_topo; l++)
		leaf_of[l] = NONE;
	for (uint32_t i = 0; i < nhosts; i++) {
		uint32_t l = tp_topo_host_leaf(topo, hosts[i].host);

		if (leaf_of[l] == NONE)
			leaf_of[l] = hs.nleaves++;
		hs.lidx[i] = leaf_of[l];
		hs.pos[i] = hs.content[i] = i;
	}
	if (hs.nleaves < 2)
		goto out;
	hs.wl = calloc((size_t)nhosts * hs.nleaves, sizeof(*hs.wl));
	hs.cl = malloc((size_t)nhosts * hs.nleaves * sizeof(*hs.cl));
	hs.dist = malloc((size_t)hs.nleaves * hs.nleaves * sizeof(*hs.dist));
	leaf_topo = malloc(hs.nleaves * sizeof(*leaf_topo));
	nz_leaf = malloc(hs.nleaves * sizeof(*nz_leaf));
	if (!hs.wl || !hs.cl || !hs.dist || !leaf_topo || !nz_leaf)
		goto nomem;
	/*
	 * Leaf x leaf, from one fabric leaf per allocation leaf: every host
	 * pair would ask the fabric nhosts^2 times for nleaves^2 answers.
	 */
	for (uint32_t l = 0; l < nleaves_topo; l++)
		if (leaf_of[l] != NONE)
			leaf_topo[leaf_of[l]] = l;
	for (uint32_t li = 0; li < hs.nleaves; li++)
		for (uint32_t lj = 0; lj < hs.nleaves; lj++)
			hs.dist[(size_t)li * hs.nleaves + lj] =
			    li == lj ? TP_HOPS_SAME_LEAF
			             : tp_topo_leaf_distance(
			                   topo, leaf_topo[li], leaf_topo[lj]);
	for (uint32_t r = 0; r < g->ranks; r++) {
		uint32_t u = rank_hl[r];

		hs.used[u]++;
		for (uint64_t e = g->row_start[r]; e < g->row_start[r + 1];
		     e++) {
			uint32_t v = rank_hl[g->col[e]];

			if (v != u)
				hs.w[(size_t)u * nhosts + v] +=
				    (int64_t)g->weight[e];
		}
	}
	for (uint32_t u = 0; u < nhosts; u++)
		for (uint32_t v = 0; v < nhosts; v++)
			hs.wl[(size_t)u * hs.nleaves + hs.lidx[v]] +=
			    hs.w[(size_t)u * nhosts + v];
	/* Over the leaves a content has bytes with: few on a good mapping. */
	for (uint32_t u = 0; u < nhosts; u++) {
		const int64_t *wu = hs.wl + (size_t)u * hs.nleaves;
		uint32_t nz = 0;

		for (uint32_t l = 0; l < hs.nleaves; l++)
			if (wu[l])
				nz_leaf[nz++] = l;
		for (uint32_t lc = 0; lc < hs.nleaves; lc++) {
			const unsigned *d = hs.dist + (size_t)lc * hs.nleaves;
			int64_t sum = 0;

			for (uint32_t i = 0; i < nz; i++)
				sum += wu[nz_leaf[i]] * (int64_t)d[nz_leaf[i]];
			hs.cl[(size_t)u * hs.nleaves + lc] = sum;
		}
	}
	for (int pass = 0; pass < HOST_SWAP_PASSES; pass++) {
		uint64_t before = *swaps;

		for (uint32_t u = 0; u < nhosts; u++) {
			uint32_t best = NONE, pu = hs.pos[u];
			int64_t best_delta = 0;

			if (hs.used[u] == 0)
				continue;
			for (uint32_t v = 0; v < nhosts; v++) {
				uint32_t pv = hs.pos[v];
				int64_t d;

				if (hs.lidx[pu] == hs.lidx[pv] ||
				    hs.used[u] > hosts[pv].slots ||
				    hs.used[v] > hosts[pu].slots)
					continue;
				d = host_swap_delta(&hs, u, v);
				if (d < best_delta) {
					best_delta = d;
					best = v;
				}
			}
			if (best != NONE) {
				host_swap_apply(&hs, u, best);
				(*swaps)++;
			}
		}
		if (*swaps == before)
			break;
	}
	for (uint32_t r = 0; r < g->ranks; r++)
		rank_hl[r] = hs.pos[rank_hl[r]];
	goto out;
nomem:
	rc = tp_error_set(err, TP_ERR_NOMEM,
	                  "remap: out of memory swapping %u hosts", nhosts);
out:
	free(leaf_of);
	free(leaf_topo);
	free(nz_leaf);
	host_swap_free(&hs);
	return rc;
}

/* ---- the remapper -------------------------------------------------------- */

/* CPU time of the calling thread, for the debug log only: never decides. */
static uint64_t thread_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * FAST keeps the first two of plan_trials' candidates: the bisection and
 * the packed 1-try partition, the one most often best on whole leaves.
 */
#define FAST_TRIALS 2
/*
 * AUTO: jobs of at most TINY_MAX_RANKS ranks keep the same two (the
 * polish, refined block and host swaps stay), and Scotch's mapping after
 * them; larger ones get more.
 * On the 180 matrix inputs of 8 and 16 ranks in bench/peer_bench (2- and
 * 3-level, 1/4/16 ranks per host, contiguous and fragmented) no later
 * METIS candidate lowered the best refined partition at all, while they
 * cost 0.9-3.9 times metis-rb's CPU; at 27 ranks they lowered it by more
 * than 0.1% on 12 of 30 (peer_bench --trace on, its candidate wins table;
 * bench/RESULTS.md, issue 16).  Scotch's: on fragment seeds 4-9 three
 * 16-rank jobs on 16 hosts (one rank each) stayed above Scotch by up to
 * 0.69% without it, and with peer_bench's seed 2 an 8-rank job on 8 hosts
 * by 6.6%; none with it, for 0.04-0.15 ms more a job (4.4-14 times
 * metis-rb's CPU at these sizes; bench/RESULTS.md, "Scotch's mapping for
 * 16-rank jobs").
 */
#define TINY_MAX_RANKS 16
/*
 * AUTO: larger jobs on at most FEW_HOSTS_MAX hosts try the first
 * FEW_HOSTS_TRIALS candidates, without the last (the 4-try packed
 * partition, or the packed one of seed + 3 when slots are idle: 1.3-2.2
 * times metis-rb's CPU).  Over 2,256 bench/peer_bench inputs (the real matrices
 * and the five families at 27-512 ranks, 2- and 3-level, 1/4/16 ranks
 * per host, contiguous and fragmented, fragment seeds 1-9) it put no
 * input above the best of block, METIS-rb and Scotch that was not above
 * it with every candidate, and changed 6 mappings (up to 5.9% more
 * hop-bytes, one of them already above the best: +0.5%).  At 16 hosts
 * (256 ranks, 16 per host) a 5-candidate limit put one more family input
 * above the best peer, so the rule stops at 8 (peer_bench --candidates;
 * bench/RESULTS.md, issue 16, "Which candidates are needed").
 */
#define FEW_HOSTS_MAX    8
#define FEW_HOSTS_TRIALS 5
/*
 * AUTO, with Scotch in the build, on more than FEW_HOSTS_MAX hosts: the
 * bisection, the packed partition and Scotch's mapping, and the spread
 * partition after them when slots stay idle (on at most FEW_HOSTS_MAX
 * hosts Scotch's comes on top of the FEW_HOSTS_TRIALS).  Scotch's mapping
 * is bench/peer_bench's Scotch peer, so the result is never above block,
 * METIS-rb or Scotch.  Against the search before Scotch (every METIS
 * candidate the budget allowed) on peer_bench's 3,024 matrix and family
 * inputs: 201 of them above the best peer before, none of 17 ranks and
 * more now; hop-bytes geomean x0.999-1.005 per input set, 0.61-0.85x the
 * CPU at 64-2,048 ranks (1.08-1.17x at 27); keeping 4 or 5 candidates
 * instead cost 0.4-2.1 times metis-rb's CPU more for a geomean up to
 * 0.27% lower (bench/RESULTS.md, issue 16, "Scotch's mapping as a
 * candidate").
 */
#define SCOTCH_AUTO_TRIALS 3
/*
 * Scotch's mapping is a candidate up to SCOTCH_MAX_RANKS ranks.  At 4,096
 * ranks without it 13 of peer_bench's 150 family inputs stayed above the
 * Scotch peer (by up to 1.6%), none with it, for 5.1 instead of 2.2 times
 * metis-rb's CPU (about 70 ms more a job; 4.2-4.5 times, about 55 ms more,
 * since AUTO leaves the packed partition out there: search_partitions).  At
 * 16,384 ranks 2 of 60 were above it (by up to 0.55%) where Scotch costs 6.6
 * times metis-rb's CPU (about 0.6 s a job, against a RemapBudget of 2 s by
 * default): not there (bench/RESULTS.md, issue 16, "Scotch's mapping up to
 * 4,096 ranks").
 */
#define SCOTCH_MAX_RANKS 4096

/*
 * The candidates for a job of @n ranks on @slots slots, in the order they
 * pay; tp_remap_compute runs them while its METIS work budget lasts.
 *
 * 1. The plain bisection (bisection_partition), at every size; above
 *    PARTITIONS_MAX_RANKS the only one.
 * 2. Hierarchical, packed targets, one METIS try per split, @seed: always
 *    run after the bisection; on whole-leaf allocations (idle slots) it is
 *    the candidate most often best (46 of 102 matrix inputs).  Above
 *    SMALL_MAX_RANKS with LARGE_FM_PASSES METIS refinement passes.
 * 2b. With @scotch (the build has it, the caller did not leave it out),
 *    up to SCOTCH_MAX_RANKS ranks: Scotch's static mapping
 *    (remap_scotch.h), bench/peer_bench's Scotch peer: with it no result
 *    is above that peer.  Neither counted in nor stopped by the METIS
 *    budget; Scotch takes 2.0-3.3x METIS-rb's CPU at 27-4,096 ranks and
 *    4.4-14x at 8-16 (where AUTO keeps it beside two METIS partitions:
 *    TINY_MAX_RANKS).
 * 3. With 1/64 of the slots idle, spread targets with 4 tries per split:
 *    a grid on whole leaves gets an even box on each (8 x 16, not 7 x 18 +
 *    2), which packing never reaches.
 * 4. Packed, one try, seeds + 1 .. + 3, odd seeds coarsening by random
 *    matching: per unit of METIS work the seeds that most often lower the
 *    result (over peer_bench's 362 matrix and family inputs, 3 more seeds
 *    left 36 inputs above the best peer where two 4-try partitions, twice
 *    the work, left 37).
 * 5. Packed, 4 tries per split, seeds + 3, + 4, ..., random matching on
 *    odd seeds: on NPB-MG at 128 ranks, one per host, only a 4-try
 *    random-matching partition finds the cut along process-grid planes
 *    that Scotch finds (0.882 of block; 1-try seeds 0.888).
 *
 * The flat partition (flat_wanted) is not planned here: search_partitions
 * puts it after the bisection, the packed partition and Scotch's mapping.
 *
 * Dropped after measuring (bench/RESULTS.md, issue 16): METIS k-way (2.2x
 * the bisection's time; the only best on 2 of 128 matrix inputs) and the
 * 16 seeds of small jobs.  Returns the count written to @out (at most
 * TRIALS_MAX).
 */
static uint32_t plan_trials(uint32_t n, uint64_t slots, uint64_t seed,
                            bool scotch, struct trial *out)
{
	bool idle = (slots - n) * 64 >= slots;
	uint32_t k = 0;

	out[k++] =
	    (struct trial){.kind = TRIAL_BISECTION, .seed = seed, .ncuts = 1};
	if (n > PARTITIONS_MAX_RANKS)
		return k;
	out[k++] =
	    (struct trial){.kind = TRIAL_PACKED, .seed = seed, .ncuts = 1};
	if (n > SMALL_MAX_RANKS)
		out[k - 1].refine_passes = LARGE_FM_PASSES;
	if (scotch && n <= SCOTCH_MAX_RANKS)
		out[k++] = (struct trial){.kind = TRIAL_SCOTCH, .seed = seed};
	if (idle)
		out[k++] = (struct trial){
		    .kind = TRIAL_SPREAD, .seed = seed, .ncuts = 4};
	for (uint64_t j = 1; j <= 3; j++)
		out[k++] = (struct trial){.kind = TRIAL_PACKED,
		                          .seed = seed + j,
		                          .ncuts = 1,
		                          .rm = j % 2};
	for (uint64_t j = 3; k < TRIALS_MAX; j++)
		out[k++] = (struct trial){.kind = TRIAL_PACKED,
		                          .seed = seed + j,
		                          .ncuts = 4,
		                          .rm = j % 2};
	return k;
}

/* Leaves of the allocation: tree nodes whose children are hosts. */
static uint32_t count_leaves(const struct tree *t)
{
	uint32_t leaves = 0;

	for (uint32_t v = 0; v < t->nnode; v++)
		if (t->node[v].host == NONE && t->node[v].nchild &&
		    t->node[t->child[t->node[v].child0]].host != NONE)
			leaves++;
	return leaves ? leaves : 1;
}

/* Hop-bytes of positions @rank_hl, saturating like tp_cost_hop_bytes. */
static uint64_t hl_hop_bytes(const tp_topo *topo, const tp_traffic *traffic,
                             const tp_remap_host *hosts,
                             const uint32_t *rank_hl)
{
	uint64_t sum = 0, term;

	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];

		if (__builtin_mul_overflow(
		        e->bytes,
		        (uint64_t)tp_topo_distance(topo,
		                                   hosts[rank_hl[e->src]].host,
		                                   hosts[rank_hl[e->dst]].host),
		        &term) ||
		    sum > UINT64_MAX - term)
			return UINT64_MAX;
		sum += term;
	}
	return sum;
}

const char *const tp_remap_search_names[TP_REMAP_SEARCH_COUNT] = {
    [TP_REMAP_SEARCH_FULL] = "full",
    [TP_REMAP_SEARCH_FAST] = "fast",
    [TP_REMAP_SEARCH_AUTO] = "auto",
};

const char *tp_remap_search_name(tp_remap_search search)
{
	return (unsigned)search < TP_REMAP_SEARCH_COUNT
	           ? tp_remap_search_names[search]
	           : NULL;
}

tp_status tp_remap_search_parse(const char *name, tp_remap_search *search,
                                tp_error *err)
{
	for (unsigned i = 0; i < TP_REMAP_SEARCH_COUNT; i++)
		if (!strcmp(name, tp_remap_search_names[i])) {
			*search = (tp_remap_search)i;
			return TP_OK;
		}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "remap search '%s': expected auto, full or fast",
	                    name);
}

tp_status tp_remap_compute(const tp_topo *topo, const tp_traffic *traffic,
                           const tp_remap_host *hosts, uint32_t host_count,
                           uint64_t seed, const tp_logger *log,
                           tp_remap_mapping *mapping, tp_remap_stats *stats,
                           tp_error *err)
{
	return tp_remap_compute_search(topo, traffic, hosts, host_count, seed,
	                               TP_REMAP_SEARCH_AUTO, log, mapping,
	                               stats, err);
}

/*
 * One remap search: its inputs, the CSR graph and host tree built once,
 * the candidates' scratch and the best mapping so far.  The steps below
 * each read and update it; tp_remap_compute_search runs them in order.
 */
struct search {
	const tp_topo *topo;
	const tp_traffic *traffic;
	const tp_remap_host *hosts;
	uint32_t host_count, n;
	uint64_t seed;
	tp_remap_search mode;
	uint32_t max_partitions; /* tp_remap_options; 0: no limit */
	const tp_logger *log;
	bool scotch; /* the Scotch candidate (tp_remap_scotch_available) */
	tp_traffic_csr *g;
	struct tree t;
	struct alloc_leaves al;
	/* rank -> host-local position, n each */
	uint32_t *block, *part, *block_ref, *trial_hl, *unrefined;
	const uint32_t *best; /* one of the above */
	bool wide;            /* leaf-wide moves in refinements */
	uint64_t hb_block_ref;
	bool refine_sums_exact; /* refine knows hop-bytes (refine_sums_exact) */
	tp_remap_stats st;
};

static uint64_t search_hop_bytes(const struct search *s, const uint32_t *hl)
{
	return hl_hop_bytes(s->topo, s->traffic, s->hosts, hl);
}

/*
 * Refine @hl in place; *@before (may be NULL) and *@after: its hop-bytes
 * before and after, from refine's own sums when it has them
 * (search_hop_bytes is a pass over every traffic entry with a fabric
 * lookup each: 1-2% of a small job's time when every candidate was
 * counted twice), counted otherwise.
 */
static tp_status search_refine(struct search *s, uint64_t seed, bool wide,
                               uint32_t *hl, uint64_t *before, uint64_t *after,
                               tp_error *err)
{
	struct refine_hop_bytes hb;
	uint64_t counted_before = 0;
	tp_status rc;

	if (before && !s->refine_sums_exact)
		counted_before = search_hop_bytes(s, hl);
	rc = refine(s->topo, s->hosts, s->host_count, &s->al, s->g, seed, wide,
	            hl, &s->st.moves, &hb, err);
	if (rc != TP_OK)
		return rc;
	if (before)
		*before = hb.known ? hb.before : counted_before;
	*after = hb.known ? hb.after : search_hop_bytes(s, hl);
	return TP_OK;
}

/* Where METIS's work goes across the candidates (see search_partitions). */
struct search_work {
	uint64_t bisection, spent, per_try, budget;
	bool packed_without_metis;
};

/*
 * Whether the METIS work budget counts @tr's work and can stop it: the
 * hierarchical partitions after the bisection.  Scotch's mapping is not
 * METIS work (SCOTCH_MAX_RANKS bounds it), and the flat partition is
 * about one more bisection's (flat_wanted).
 */
static bool trial_in_budget(const struct trial *tr)
{
	return tr->kind == TRIAL_PACKED || tr->kind == TRIAL_SPREAD;
}

/*
 * Candidate @i (@tr): partitioned, refined, kept in s->part when it is the
 * best so far.
 */
static tp_status search_candidate(struct search *s, uint32_t i,
                                  const struct trial *tr, struct search_work *w,
                                  tp_error *err)
{
	uint32_t n = s->n;
	uint64_t hb_part, hb_ref, work = 0, t_us = thread_cpu_us(), t_part_us;
	tp_error scotch_err;
	char note[40]; /* METIS's FM passes, or the flat candidate's swaps */
	uint64_t swaps = 0; /* the flat candidate's whole-host swaps */
	tp_status rc;

	if (tr->kind == TRIAL_FLAT) {
		struct tree flat;

		rc = tree_flat(s->hosts, s->host_count, &flat, err);
		if (rc == TP_OK)
			rc = bisection_partition(&flat, s->g, tr->seed,
			                         s->trial_hl, &work, err);
		tree_free(&flat);
		/* Its parts sit on the hosts in allocation order: trade
		 * whole hosts' parts between leaves before refining (up to
		 * HOST_SWAP_MAX_HOSTS hosts; flat_wanted). */
		if (rc == TP_OK)
			rc =
			    swap_host_contents(s->topo, s->hosts, s->host_count,
			                       s->g, s->trial_hl, &swaps, err);
	} else if (tr->kind == TRIAL_BISECTION)
		rc = bisection_partition(&s->t, s->g, tr->seed, s->trial_hl,
		                         &work, err);
	else if (tr->kind == TRIAL_SCOTCH)
		rc = tp_remap_scotch_map(s->topo, s->hosts, s->host_count, s->g,
		                         tr->seed, s->trial_hl, &scotch_err);
	else
		rc = hierarchical_partition(&s->t, s->g, tr, s->log,
		                            s->trial_hl, &work, err);
	if (rc != TP_OK && tr->kind == TRIAL_SCOTCH) {
		/* One candidate fewer, the job's mapping all the same: the
		 * caller's error stays untouched, the search goes on. */
		tp_log(s->log, TP_LOG_WARNING, "%s; without that candidate",
		       scotch_err.message);
		return TP_OK;
	}
	if (rc != TP_OK)
		return rc;
	s->st.partitions++;
	t_part_us = thread_cpu_us() - t_us;
	if (tr->kind == TRIAL_BISECTION) {
		w->bisection = work;
	} else if (trial_in_budget(tr)) {
		w->spent += work;
		w->per_try = work / (uint64_t)tr->ncuts;
		if (tr->kind == TRIAL_PACKED && work == 0)
			w->packed_without_metis = true;
	}
	memcpy(s->unrefined, s->trial_hl, (size_t)n * sizeof(*s->unrefined));
	rc = search_refine(s, tr->seed, false, s->trial_hl, &hb_part, &hb_ref,
	                   err);
	if (rc != TP_OK)
		return rc;
	if (tr->refine_passes)
		snprintf(note, sizeof(note), " fm-passes %d",
		         tr->refine_passes);
	else if (tr->kind == TRIAL_FLAT)
		snprintf(note, sizeof(note), " host-swaps %llu",
		         (unsigned long long)swaps);
	else
		note[0] = '\0';
	tp_log(s->log, TP_LOG_DEBUG,
	       "remap: candidate %u: %s seed+%llu ncuts %d%s%s: METIS "
	       "work %llu, hop-bytes %llu, refined %llu, %llu us "
	       "(partition %llu us)",
	       i, trial_kind_names[tr->kind],
	       (unsigned long long)(tr->seed - s->seed), tr->ncuts,
	       tr->rm ? " rm" : "", note, (unsigned long long)work,
	       (unsigned long long)hb_part, (unsigned long long)hb_ref,
	       (unsigned long long)(thread_cpu_us() - t_us),
	       (unsigned long long)t_part_us);
	if (hb_ref > hb_part) {
		/*
		 * Refinement gains are exact, so this is a bug; the partition
		 * itself stays a candidate all the same.
		 */
		memcpy(s->trial_hl, s->unrefined,
		       (size_t)n * sizeof(*s->trial_hl));
		hb_ref = hb_part;
	}
	if (i == 0 || hb_ref < s->st.refined_hop_bytes) {
		s->st.partition_hop_bytes = hb_part;
		s->st.refined_hop_bytes = hb_ref;
		s->st.partition =
		    tr->kind == TRIAL_PACKED || tr->kind == TRIAL_SPREAD
		        ? "hierarchical"
		        : trial_kind_names[tr->kind];
		memcpy(s->part, s->trial_hl, (size_t)n * sizeof(*s->part));
	}
	return TP_OK;
}

/*
 * The flat candidate: bisection_partition of the allocation as root ->
 * hosts (tree_flat), so every host first gets a compact part of its own
 * size, the leaves counted only by the whole-host swaps and the refinement
 * that follow.  A recursive bisection along the tree splits leaves first,
 * and an uneven leaf's share (3 of 7 hosts) can come out as a strip that no
 * later host-level split undoes; cut into hosts first it comes out as
 * blocks (an 8x8x8 grid on 11 + 11 + 10 hosts: 6.4% lower,
 * test_remap_peers).  Jobs of more than TINY_MAX_RANKS ranks up to
 * SMALL_MAX_RANKS, on more than FEW_HOSTS_MAX hosts (on fewer the packed
 * seeds of FEW_HOSTS_TRIALS mostly find the same: below), with more ranks
 * than hosts (at one rank a host it lowered no input); not in FAST.  After
 * the bisection, the packed partition and Scotch's mapping; neither counted
 * in nor stopped by the METIS work budget (trial_in_budget).  In AUTO with
 * Scotch, on bench/peer_bench's 4,316 inputs of 17 to 2,048 ranks (the
 * matrices on fragment seeds 1-9, the families on 1-6, peer_bench seeds 1
 * and 2) it lowered 106 by up to 11.5% and raised 5 by at most 0.9% (the
 * leaf-wide polish of another winner), none above the best peer either way,
 * for 1.03-1.14 times the CPU; none of them lowered at one rank a host.
 * Tried on at most 8 hosts too (beside the packed seeds), it lowered 3 more
 * of 1,420 inputs (by up to 4%) and raised 2 (by 0.7%), for up to 1.09
 * times the CPU there; at 4,096 ranks (4 and 16 a host) it lowered none of
 * 80 inputs, for 1.24 times the CPU.  Its parts' whole-host swaps before
 * its refinement (search_candidate) then lowered 168 of the same 4,316 (by
 * up to 8.5%) and raised 26 (by at most 1.3%), the CPU the same within this
 * machine's noise (bench/RESULTS.md, "The flat candidate").
 */
static bool flat_wanted(const struct search *s)
{
	return s->mode != TP_REMAP_SEARCH_FAST && s->n > TINY_MAX_RANKS &&
	       s->n <= SMALL_MAX_RANKS && s->n > s->host_count &&
	       s->host_count > FEW_HOSTS_MAX;
}

/*
 * Candidate partitions, each refined, the best kept: the plain bisection
 * first, then the others in the order they pay while the METIS work spent
 * on them stays within the budget (SEARCH_BUDGET or SMALL_SEARCH_BUDGET
 * times the bisection's; the next one is predicted to cost the last one's
 * work per try times its tries: the same tree).  The first after the
 * bisection always runs.  Counted in METIS work, not CPU time, so the
 * result is the same on a loaded machine.  Which wins depends on the
 * pattern and the allocation (bench/RESULTS.md, issue 16).
 */
static tp_status search_partitions(struct search *s, tp_error *err)
{
	struct trial trials[TRIALS_MAX + 1]; /* and the flat candidate */
	struct search_work w = {
	    .budget =
	        s->n <= SMALL_MAX_RANKS ? SMALL_SEARCH_BUDGET : SEARCH_BUDGET,
	};
	uint32_t ntrial =
	    plan_trials(s->n, s->t.node[0].cap, s->seed, s->scotch, trials);
	bool with_scotch = false;

	/* AUTO's tiny jobs keep Scotch's mapping after the two
	 * (TINY_MAX_RANKS). */
	if ((s->mode == TP_REMAP_SEARCH_FAST ||
	     (s->mode == TP_REMAP_SEARCH_AUTO && s->n <= TINY_MAX_RANKS)) &&
	    ntrial > FAST_TRIALS)
		ntrial =
		    FAST_TRIALS + (s->mode == TP_REMAP_SEARCH_AUTO &&
		                   trials[FAST_TRIALS].kind == TRIAL_SCOTCH);
	for (uint32_t i = 0; i < ntrial; i++)
		with_scotch |= trials[i].kind == TRIAL_SCOTCH;
	if (s->mode == TP_REMAP_SEARCH_AUTO && s->host_count <= FEW_HOSTS_MAX &&
	    ntrial > FEW_HOSTS_TRIALS + (uint32_t)with_scotch)
		ntrial = FEW_HOSTS_TRIALS + (uint32_t)with_scotch;
	else if (s->mode == TP_REMAP_SEARCH_AUTO && with_scotch) {
		uint32_t keep = SCOTCH_AUTO_TRIALS;

		/* and the spread partition next to it, when slots stay idle */
		if (ntrial > keep && trials[keep].kind == TRIAL_SPREAD)
			keep++;
		if (ntrial > keep)
			ntrial = keep;
		/*
		 * Above SMALL_MAX_RANKS no packed partition (plan_trials'
		 * second candidate): the bisection, Scotch's mapping and, slots
		 * idle, the spread partition.  At 4,096 ranks, over 360
		 * peer_bench family inputs (fragment seeds 1-6, peer_bench
		 * seeds 1 and 2), none above the best peer either way,
		 * hop-bytes per input x0.9987-0.9995 (geomean; 35 higher, worst
		 * +1.2%, 41 lower), 0.84-0.87 times the CPU (bench/RESULTS.md,
		 * "Scotch's mapping up to 4,096 ranks").  Scotch's mapping is
		 * third, so ntrial >= 3 here.
		 */
		if (s->n > SMALL_MAX_RANKS) {
			memmove(&trials[1], &trials[2],
			        (ntrial - 2) * sizeof(*trials));
			ntrial--;
		}
	}
	if (flat_wanted(s)) {
		uint32_t at = 2 + (uint32_t)(ntrial > 2 &&
		                             trials[2].kind == TRIAL_SCOTCH);

		if (at > ntrial)
			at = ntrial;
		memmove(&trials[at + 1], &trials[at],
		        (ntrial - at) * sizeof(*trials));
		trials[at] = (struct trial){
		    .kind = TRIAL_FLAT, .seed = s->seed, .ncuts = 1};
		ntrial++;
	}
	if (s->max_partitions && ntrial > s->max_partitions)
		ntrial = s->max_partitions;
	for (uint32_t i = 0; i < ntrial; i++) {
		const struct trial *tr = &trials[i];
		tp_status rc;

		/*
		 * A packed partition that needed no METIS call (every split
		 * trivial: one child, or one rank per child) is the same for
		 * every seed and try count: the later packed ones would only
		 * repeat it.
		 */
		if (tr->kind == TRIAL_PACKED && w.packed_without_metis)
			continue;
		if (i >= 2 && trial_in_budget(tr) &&
		    w.spent + w.per_try * (uint64_t)tr->ncuts >
		        w.budget * w.bisection) {
			tp_log(s->log, TP_LOG_DEBUG,
			       "remap: %u of %u partitions tried: METIS work "
			       "%llu of a budget of %llu",
			       i, ntrial, (unsigned long long)w.spent,
			       (unsigned long long)(w.budget * w.bisection));
			break;
		}
		rc = search_candidate(s, i, tr, &w, err);
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

/*
 * The best partition polished with leaf-wide swaps where scanning a leaf
 * is cheap: small jobs, and jobs up to POLISH_MAX_RANKS with at most
 * WIDE_LEAF_SLOTS slots per leaf (1 rank per host); not in the FAST
 * search (nor leaf-wide moves in its later refinements), where it would
 * cost up to the bisection's time again.
 */
static tp_status search_polish_wide(struct search *s, tp_error *err)
{
	uint32_t n = s->n;
	uint64_t hb_wide, t_us = thread_cpu_us();
	tp_status rc;

	s->wide = s->mode != TP_REMAP_SEARCH_FAST &&
	          (n <= SMALL_MAX_RANKS ||
	           (n <= POLISH_MAX_RANKS &&
	            s->t.node[0].cap <=
	                (uint64_t)WIDE_LEAF_SLOTS * count_leaves(&s->t)));
	if (!s->wide)
		return TP_OK;
	memcpy(s->unrefined, s->part, (size_t)n * sizeof(*s->unrefined));
	rc = search_refine(s, s->seed, true, s->part, NULL, &hb_wide, err);
	if (rc != TP_OK)
		return rc;
	if (hb_wide <= s->st.refined_hop_bytes)
		s->st.refined_hop_bytes = hb_wide;
	else /* as in search_candidate: never happens, never worse either */
		memcpy(s->part, s->unrefined, (size_t)n * sizeof(*s->part));
	tp_log(s->log, TP_LOG_DEBUG,
	       "remap: leaf-wide polish: hop-bytes %llu, %llu us",
	       (unsigned long long)hb_wide,
	       (unsigned long long)(thread_cpu_us() - t_us));
	return TP_OK;
}

/*
 * Refining block pays when block is already good (ranks in a natural
 * order); when it is far behind the partition, local moves do not close
 * the gap: skipped there, at every size.  On a large job it costs seconds
 * (262,144 relabelled ranks: 5 s); at 256-1,024 ranks it cost 1.3-2.4
 * times the bisection's METIS time.  Over peer_bench's 362 matrix and
 * family inputs of 8-1,024 ranks (part and frag allocations) it won twice,
 * with block at 0.63 and 1.047 of the partition, and never when block was
 * over 17/16 of it (bench/RESULTS.md, issue 16).
 */
static tp_status search_refine_block(struct search *s, tp_error *err)
{
	uint64_t t_us;
	tp_status rc;

	memcpy(s->block_ref, s->block, (size_t)s->n * sizeof(*s->block));
	if (s->st.block_hop_bytes / 17 > s->st.refined_hop_bytes / 16) {
		s->hb_block_ref = s->st.block_hop_bytes;
		tp_log(s->log, TP_LOG_DEBUG,
		       "remap: block not refined: %llu hop-bytes, over 17/16 "
		       "of the partition's %llu",
		       (unsigned long long)s->st.block_hop_bytes,
		       (unsigned long long)s->st.refined_hop_bytes);
		return TP_OK;
	}
	t_us = thread_cpu_us();
	rc = search_refine(s, s->seed, s->wide, s->block_ref, NULL,
	                   &s->hb_block_ref, err);
	if (rc != TP_OK)
		return rc;
	tp_log(s->log, TP_LOG_DEBUG,
	       "remap: block refined: hop-bytes %llu, %llu us",
	       (unsigned long long)s->hb_block_ref,
	       (unsigned long long)(thread_cpu_us() - t_us));
	return TP_OK;
}

/* Block, refined block or the partition: the lowest hop-bytes. */
static void search_choose(struct search *s)
{
	/* Strictly better only: on a tie the job keeps its block mapping. */
	if (s->hb_block_ref < s->st.hop_bytes) {
		s->best = s->block_ref;
		s->st.hop_bytes = s->hb_block_ref;
		s->st.chosen = "block+refine";
	}
	if (s->st.refined_hop_bytes < s->st.hop_bytes ||
	    (s->st.refined_hop_bytes == s->st.hop_bytes &&
	     s->best != s->block)) {
		s->best = s->part;
		s->st.hop_bytes = s->st.refined_hop_bytes;
		s->st.chosen = "partition";
	}
}

/*
 * Whole hosts traded between leaves, then ranks polished again: kept only
 * when strictly lower (the steps are exact, so it never rises).
 */
static tp_status search_swap_hosts(struct search *s, tp_error *err)
{
	uint64_t swaps = 0, hb_swapped, t_us = thread_cpu_us();
	tp_status rc;

	memcpy(s->trial_hl, s->best, (size_t)s->n * sizeof(*s->trial_hl));
	rc = swap_host_contents(s->topo, s->hosts, s->host_count, s->g,
	                        s->trial_hl, &swaps, err);
	hb_swapped = s->st.hop_bytes;
	if (rc == TP_OK && swaps)
		rc = search_refine(s, s->seed, s->wide, s->trial_hl, NULL,
		                   &hb_swapped, err);
	if (rc != TP_OK)
		return rc;
	tp_log(s->log, TP_LOG_DEBUG,
	       "remap: whole-host swaps: %llu, hop-bytes %llu, %llu us",
	       (unsigned long long)swaps, (unsigned long long)hb_swapped,
	       (unsigned long long)(thread_cpu_us() - t_us));
	if (hb_swapped < s->st.hop_bytes) {
		s->best = s->trial_hl;
		s->st.hop_bytes = hb_swapped;
		s->st.host_swaps = swaps;
	}
	return TP_OK;
}

/* Block order, and its hop-bytes as the figure every candidate must beat. */
static tp_status search_start(struct search *s, tp_error *err)
{
	size_t bytes = (size_t)s->n * sizeof(uint32_t);

	s->block = malloc(bytes);
	s->part = malloc(bytes);
	s->block_ref = malloc(bytes);
	s->trial_hl = malloc(bytes);
	s->unrefined = malloc(bytes);
	if (!s->block || !s->part || !s->block_ref || !s->trial_hl ||
	    !s->unrefined)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "remap: out of memory for %u ranks", s->n);
	block_positions(s->hosts, s->n, s->block);
	s->st.block_hop_bytes = search_hop_bytes(s, s->block);
	s->best = s->block;
	s->st.chosen = "block";
	s->st.partition = "none";
	s->st.hop_bytes = s->st.block_hop_bytes;
	s->st.partition_hop_bytes = s->st.refined_hop_bytes =
	    s->st.block_hop_bytes;
	return TP_OK;
}

static void search_free(struct search *s)
{
	free(s->block);
	free(s->part);
	free(s->block_ref);
	free(s->trial_hl);
	free(s->unrefined);
	tp_traffic_csr_free(s->g);
	tree_free(&s->t);
	alloc_leaves_free(&s->al);
}

/* The steps after block: partitions, polish, refined block, host swaps. */
static tp_status search_run(struct search *s, tp_error *err)
{
	tp_status rc;

	rc = tp_traffic_csr_build(s->traffic, TP_TRAFFIC_CSR_UNDIRECTED, &s->g,
	                          err);
	if (rc == TP_OK)
		rc = tree_build(s->topo, s->hosts, s->host_count, &s->t, err);
	if (rc == TP_OK)
		s->refine_sums_exact = refine_sums_exact(s->g);
	if (rc == TP_OK)
		rc = alloc_leaves_build(s->topo, s->hosts, s->host_count,
		                        &s->al, err);
	if (rc == TP_OK)
		rc = search_partitions(s, err);
	if (rc == TP_OK)
		rc = search_polish_wide(s, err);
	if (rc == TP_OK)
		rc = search_refine_block(s, err);
	if (rc != TP_OK)
		return rc;
	search_choose(s);
	rc = search_swap_hosts(s, err);
	if (rc != TP_OK)
		return rc;
	tp_log(s->log, TP_LOG_DEBUG,
	       "remap: %u ranks on %u hosts: hop-bytes block %llu, "
	       "partition %llu, refined %llu, block+refine %llu: %s, "
	       "%llu whole-host swaps: %llu",
	       s->n, s->host_count, (unsigned long long)s->st.block_hop_bytes,
	       (unsigned long long)s->st.partition_hop_bytes,
	       (unsigned long long)s->st.refined_hop_bytes,
	       (unsigned long long)s->hb_block_ref, s->st.chosen,
	       (unsigned long long)s->st.host_swaps,
	       (unsigned long long)s->st.hop_bytes);
	return TP_OK;
}

tp_status tp_remap_compute_search(const tp_topo *topo,
                                  const tp_traffic *traffic,
                                  const tp_remap_host *hosts,
                                  uint32_t host_count, uint64_t seed,
                                  tp_remap_search search, const tp_logger *log,
                                  tp_remap_mapping *mapping,
                                  tp_remap_stats *stats, tp_error *err)
{
	const tp_remap_options options = {.search = search};

	return tp_remap_compute_options(topo, traffic, hosts, host_count, seed,
	                                &options, log, mapping, stats, err);
}

tp_status tp_remap_compute_options(const tp_topo *topo,
                                   const tp_traffic *traffic,
                                   const tp_remap_host *hosts,
                                   uint32_t host_count, uint64_t seed,
                                   const tp_remap_options *options,
                                   const tp_logger *log,
                                   tp_remap_mapping *mapping,
                                   tp_remap_stats *stats, tp_error *err)
{
	struct search s = {
	    .topo = topo,
	    .traffic = traffic,
	    .hosts = hosts,
	    .host_count = host_count,
	    .n = traffic->ranks,
	    .seed = seed,
	    .mode = options->search,
	    .max_partitions = options->max_partitions,
	    .scotch = !options->without_scotch && tp_remap_scotch_available(),
	    .log = log,
	};
	tp_quiet quiet;
	tp_status rc;

	memset(mapping, 0, sizeof(*mapping));
	rc = check_hosts(topo, s.n, hosts, host_count, err);
	if (rc != TP_OK)
		return rc;
	rc = search_start(&s, err);
	/* Nothing crosses a host: block is optimal.  METIS can print to
	 * stdout on scattered hosts and swallows SIGTERM (tp_quiet.h): not
	 * into the caller's stdout, and the signal kept for the caller. */
	if (rc == TP_OK && s.st.block_hop_bytes != 0 && s.n != 1) {
		tp_quiet_begin(&quiet);
		rc = search_run(&s, err);
		tp_quiet_end(&quiet);
	}
	if (rc == TP_OK)
		rc = finish_mapping(hosts, host_count, s.best, s.n, mapping,
		                    err);
	if (rc == TP_OK && stats)
		*stats = s.st;
	search_free(&s);
	return rc;
}
