/*
 * metis_rb.c: the METIS-rb peer (see metis_rb.h).  Scratch sized by ranks
 * and arcs is allocated once and shared by every split: a node's split is
 * finished (its ranks sorted by child) before its children are split.
 */
#include "tp_config.h"

#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "metis_rb.h"

struct rb {
	const tp_topo *topo;
	const tp_remap_host *hosts;
	const tp_traffic_csr *g;
	uint64_t seed;
	int32_t *local; /* rank -> position in the current set, -1 outside */
	idx_t *xadj, *adj, *wgt, *part;
	uint32_t *tmp;      /* the set sorted by part */
	uint32_t *rank_pos; /* rank -> allocation position */
};

/*
 * Split @set (@nv ranks) among @k children of @cap slots into rb->part
 * (0 .. k-1).  @count and @conn: k entries of scratch.
 */
static tp_status rb_split(struct rb *rb, const uint32_t *set, uint32_t nv,
                          const uint64_t *cap, uint32_t k, uint32_t *count,
                          int64_t *conn, tp_error *err)
{
	const tp_traffic_csr *g = rb->g;
	uint64_t capsum = 0, total_w = 0;
	idx_t *part = rb->part;
	size_t ne = 0;
	int rc = METIS_ERROR;

	for (uint32_t i = 0; i < nv; i++)
		rb->local[set[i]] = (int32_t)i;
	for (uint32_t i = 0; i < nv; i++)
		for (uint64_t e = g->row_start[set[i]];
		     e < g->row_start[set[i] + 1]; e++)
			if (rb->local[g->col[e]] >= 0)
				total_w += g->weight[e];
	rb->xadj[0] = 0;
	for (uint32_t i = 0; i < nv; i++) {
		for (uint64_t e = g->row_start[set[i]];
		     e < g->row_start[set[i] + 1]; e++) {
			double w;

			if (rb->local[g->col[e]] < 0)
				continue;
			w = (double)g->weight[e] * (double)(1 << 28) /
			    (double)total_w;
			rb->adj[ne] = rb->local[g->col[e]];
			rb->wgt[ne++] = w < 1 ? 1 : (idx_t)w;
		}
		rb->xadj[i + 1] = (idx_t)ne;
	}
	for (uint32_t p = 0; p < k; p++)
		capsum += cap[p];
	if (ne > 0 && nv > k) {
		idx_t nvtxs = (idx_t)nv, ncon = 1, nparts = (idx_t)k, obj;
		idx_t opt[METIS_NOPTIONS];
		real_t *tpw = malloc(k * sizeof(*tpw));
		real_t ub = 1.01f;

		if (!tpw)
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "metis-rb: out of memory");
		for (uint32_t p = 0; p < k; p++)
			tpw[p] = (real_t)((double)cap[p] / (double)capsum);
		METIS_SetDefaultOptions(opt);
		opt[METIS_OPTION_SEED] = (idx_t)(rb->seed & 0x7fffffff);
		rc = METIS_PartGraphRecursive(&nvtxs, &ncon, rb->xadj, rb->adj,
		                              NULL, NULL, rb->wgt, &nparts, tpw,
		                              &ub, opt, &obj, part);
		free(tpw);
	}
	if (rc != METIS_OK) /* nothing to cut, or METIS failed: in order */
		for (uint32_t i = 0, p = 0, used = 0; i < nv; i++) {
			while (used == cap[p]) {
				p++;
				used = 0;
			}
			part[i] = (idx_t)p;
			used++;
		}
	/* Capacity repair, in segment order. */
	memset(count, 0, k * sizeof(*count));
	memset(conn, 0, k * sizeof(*conn));
	for (uint32_t i = 0; i < nv; i++)
		count[part[i]]++;
	for (uint32_t i = 0; i < nv; i++) {
		uint32_t p = (uint32_t)part[i], best = UINT32_MAX;

		if (count[p] <= cap[p])
			continue;
		for (idx_t e = rb->xadj[i]; e < rb->xadj[i + 1]; e++)
			conn[part[rb->adj[e]]] += rb->wgt[e];
		for (uint32_t q = 0; q < k; q++)
			if (count[q] < cap[q] &&
			    (best == UINT32_MAX || conn[q] > conn[best]))
				best = q;
		for (idx_t e = rb->xadj[i]; e < rb->xadj[i + 1]; e++)
			conn[part[rb->adj[e]]] = 0;
		part[i] = (idx_t)best;
		count[p]--;
		count[best]++;
	}
	for (uint32_t i = 0; i < nv; i++)
		rb->local[set[i]] = -1;
	return TP_OK;
}

/* Group key of allocation position @pos at @level: 0 pod, 1 leaf, 2 host. */
static uint32_t rb_key(const struct rb *rb, uint32_t pos, int level)
{
	uint32_t leaf = tp_topo_host_leaf(rb->topo, rb->hosts[pos].host);

	return level == 0   ? tp_topo_leaf_pod(rb->topo, leaf)
	       : level == 1 ? leaf
	                    : pos;
}

/*
 * Map @set (@nv ranks) onto hosts @hp (@nh allocation positions) from tree
 * level @level down; @set is reordered.
 */
static tp_status rb_rec(struct rb *rb, uint32_t *set, uint32_t nv,
                        const uint32_t *hp, uint32_t nh, int level,
                        tp_error *err)
{
	uint32_t k = 0, *key = NULL, *first = NULL, *start = NULL;
	uint32_t *count = NULL;
	uint64_t *cap = NULL;
	int64_t *conn = NULL;
	tp_status rc = TP_OK;

	if (nv == 0)
		return TP_OK;
	if (nh == 1) {
		for (uint32_t i = 0; i < nv; i++)
			rb->rank_pos[set[i]] = hp[0];
		return TP_OK;
	}
	key = malloc(nh * sizeof(*key));
	first = malloc(((size_t)nh + 1) * sizeof(*first));
	start = calloc((size_t)nh + 1, sizeof(*start));
	count = malloc(nh * sizeof(*count));
	cap = calloc(nh, sizeof(*cap));
	conn = malloc(nh * sizeof(*conn));
	if (!key || !first || !start || !count || !cap || !conn) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "metis-rb: out of memory");
		goto out;
	}
	/* Children: keys in order of first appearance (hosts adjacent). */
	for (uint32_t i = 0; i < nh; i++) {
		uint32_t kk = rb_key(rb, hp[i], level);

		if (k == 0 || key[k - 1] != kk) {
			first[k] = i;
			key[k++] = kk;
		}
		cap[k - 1] += rb->hosts[hp[i]].slots;
	}
	first[k] = nh;
	if (k == 1) {
		rc = rb_rec(rb, set, nv, hp, nh, level + 1, err);
		goto out;
	}
	rc = rb_split(rb, set, nv, cap, k, count, conn, err);
	if (rc != TP_OK)
		goto out;
	/* Stable counting sort of the set by part. */
	for (uint32_t i = 0; i < nv; i++)
		start[rb->part[i] + 1]++;
	for (uint32_t c = 0; c < k; c++)
		start[c + 1] += start[c];
	memcpy(count, start, k * sizeof(*count));
	for (uint32_t i = 0; i < nv; i++)
		rb->tmp[count[rb->part[i]]++] = set[i];
	memcpy(set, rb->tmp, nv * sizeof(*set));
	for (uint32_t c = 0; c < k && rc == TP_OK; c++)
		rc = rb_rec(rb, set + start[c], start[c + 1] - start[c],
		            hp + first[c], first[c + 1] - first[c], level + 1,
		            err);
out:
	free(key);
	free(first);
	free(start);
	free(count);
	free(cap);
	free(conn);
	return rc;
}

tp_status metis_rb_map(const tp_topo *topo, const tp_traffic *traffic,
                       const tp_remap_host *hosts, uint32_t host_count,
                       uint64_t seed, uint32_t *rank_host, tp_error *err)
{
	uint32_t n = traffic->ranks;
	struct rb rb = {.topo = topo, .hosts = hosts, .seed = seed};
	tp_traffic_csr *g = NULL;
	uint32_t *set = NULL, *hp = NULL;
	size_t arcs;
	tp_status rc;

	rc = tp_traffic_csr_build(traffic, TP_TRAFFIC_CSR_UNDIRECTED, &g, err);
	if (rc != TP_OK)
		return rc;
	rb.g = g;
	arcs = g->row_start[n];
	set = malloc((size_t)n * sizeof(*set));
	hp = malloc(host_count * sizeof(*hp));
	rb.local = malloc((size_t)n * sizeof(*rb.local));
	rb.xadj = malloc(((size_t)n + 1) * sizeof(*rb.xadj));
	rb.adj = malloc((arcs + 1) * sizeof(*rb.adj));
	rb.wgt = malloc((arcs + 1) * sizeof(*rb.wgt));
	rb.part = malloc((size_t)n * sizeof(*rb.part));
	rb.tmp = malloc((size_t)n * sizeof(*rb.tmp));
	rb.rank_pos = rank_host;
	if (!set || !hp || !rb.local || !rb.xadj || !rb.adj || !rb.wgt ||
	    !rb.part || !rb.tmp) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "metis-rb: out of memory for %u ranks", n);
		goto out;
	}
	for (uint32_t r = 0; r < n; r++) {
		set[r] = r;
		rb.local[r] = -1;
	}
	for (uint32_t i = 0; i < host_count; i++)
		hp[i] = i;
	rc = rb_rec(&rb, set, n, hp, host_count, 0, err);
	if (rc == TP_OK)
		for (uint32_t r = 0; r < n; r++)
			rank_host[r] = hosts[rank_host[r]].host;
out:
	tp_traffic_csr_free(g);
	free(set);
	free(hp);
	free(rb.local);
	free(rb.xadj);
	free(rb.adj);
	free(rb.wgt);
	free(rb.part);
	free(rb.tmp);
	return rc;
}
