/*
 * fabric_finish.c: tp_fabric_finish: names, levels, leaves and their hosts,
 * pods, leaf distances, and the anomalies a site should hear of (unmapped
 * hosts, uneven leaves, missing uplinks, distances the tree does not
 * explain).  Runs once per model build, O(nodes + links) apart from the
 * leaf distance table (leaves^2 bytes).
 */
#include "tp_config.h"

#include "fabric_internal.h"
#include "hostlist.h"
#include "tp_strbuf.h"
#include "tp_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- finishing --------------------------------------------------------- */

/* Compare node indices by name (qsort_r; @ctx is the node table). */
static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const tp_fabric_node *nodes = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(nodes[x].name, nodes[y].name);

	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

static void sort_by_name(const tp_fabric *f, uint32_t *idx, uint32_t n)
{
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_by_name, f->nodes);
}

static tp_status assign_names(tp_fabric *f, const tp_fabric_name_map *map,
                              tp_error *err)
{
	for (uint32_t i = 0; i < f->node_count; i++) {
		tp_fabric_node *n = &f->nodes[i];
		const char *m = tp_fabric_name_map_lookup(map, n->guid);
		size_t skip = strspn(n->desc, " \t");
		size_t w = strcspn(n->desc + skip, " \t\r\n");

		free(n->name);
		if (m != NULL) {
			n->name = strdup(m);
		} else if (w > 0) {
			n->name = tp_fabric_dup_n(n->desc + skip, w);
		} else {
			char buf[32];

			if (n->guid != 0)
				snprintf(buf, sizeof(buf), "0x%016" PRIx64,
				         n->guid);
			else
				snprintf(buf, sizeof(buf), "node%" PRIu32, i);
			n->name = strdup(buf);
		}
		if (n->name == NULL)
			return tp_fabric_nomem(err, "node name");
		n->mapped = n->type == TP_FABRIC_CA &&
		            (m != NULL || (map == NULL && w > 0));
	}
	return TP_OK;
}

/* Rename switches that share a name (with each other or a CA). */
static tp_status dedupe_switch_names(tp_fabric *f, tp_error *err)
{
	tp_status rc;

	for (uint32_t k = 1; k < f->node_count; k++) {
		uint32_t a = f->name_order[k - 1], b = f->name_order[k];
		tp_fabric_node *n;
		char *nn;
		size_t len;

		if (strcmp(f->nodes[a].name, f->nodes[b].name) != 0)
			continue;
		if (f->nodes[b].type != TP_FABRIC_SWITCH) {
			if (f->nodes[a].type != TP_FABRIC_SWITCH)
				continue; /* two CAs of one host: fine */
			b = a;
		}
		n = &f->nodes[b];
		len = strlen(n->name) + 32;
		nn = malloc(len);
		if (nn == NULL)
			return tp_fabric_nomem(err, "node name");
		snprintf(nn, len, "%s#0x%016" PRIx64, n->name, n->guid);
		if ((rc = tp_fabric_findings_add(
		         &f->anomalies, TP_FINDING_DUPLICATE_NAME, err,
		         "switch 0x%016" PRIx64 " is also named \"%s\"; "
		         "called \"%s\" here",
		         n->guid, n->name, nn)) != TP_OK) {
			free(nn);
			return rc;
		}
		free(n->name);
		n->name = nn;
	}
	return TP_OK;
}

/* The node at the far end of link @l seen from @node. */
static uint32_t other_end(const tp_fabric *f, uint32_t l, uint32_t node)
{
	const tp_fabric_link *k = &f->links[l];

	return k->node[0] == node ? k->node[1] : k->node[0];
}

static tp_status level_nodes(tp_fabric *f, tp_error *err)
{
	uint32_t *queue, head = 0, tail = 0;

	queue = malloc(((size_t)f->node_count + 1) * sizeof(*queue));
	if (queue == NULL)
		return tp_fabric_nomem(err, "levels");
	for (uint32_t i = 0; i < f->node_count; i++) {
		if (f->nodes[i].type == TP_FABRIC_CA) {
			f->nodes[i].level = 0;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		uint32_t cur = queue[head++];
		const tp_fabric_node *n = &f->nodes[cur];

		for (uint32_t p = 0; p < n->port_count; p++) {
			uint32_t l = f->ports[n->first_port + p].link, peer;

			if (l == TP_FABRIC_NONE)
				continue;
			peer = other_end(f, l, cur);
			if (f->nodes[peer].type != TP_FABRIC_SWITCH ||
			    f->nodes[peer].level >= 0)
				continue;
			f->nodes[peer].level = n->level + 1;
			if (f->nodes[peer].level > f->max_level)
				f->max_level = f->nodes[peer].level;
			queue[tail++] = peer;
		}
	}
	free(queue);
	return TP_OK;
}

static tp_status find_leaves(tp_fabric *f, tp_error *err)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->node_count; i++)
		if (f->nodes[i].type == TP_FABRIC_SWITCH &&
		    f->nodes[i].level == 1)
			n++;
	if (n > TP_FABRIC_MAX_LEAVES)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: %" PRIu32 " leaf switches, more than "
		                    "the %u the model measures",
		                    f->source, n, TP_FABRIC_MAX_LEAVES);
	f->leaves = malloc(((size_t)n + 1) * sizeof(*f->leaves));
	if (f->leaves == NULL)
		return tp_fabric_nomem(err, "leaves");
	for (uint32_t i = 0; i < f->node_count; i++)
		if (f->nodes[i].type == TP_FABRIC_SWITCH &&
		    f->nodes[i].level == 1)
			f->leaves[f->leaf_count++] = i;
	sort_by_name(f, f->leaves, f->leaf_count);
	for (uint32_t k = 0; k < f->leaf_count; k++)
		f->nodes[f->leaves[k]].leaf = k;
	return TP_OK;
}

static tp_status list_names(const tp_fabric *f, const uint32_t *leaf_nodes,
                            uint32_t count, tp_strbuf *b)
{
	for (uint32_t k = 0; k < count && k < LIST_MAX; k++)
		tp_strbuf_printf(b, "%s%s", k ? ", " : "",
		                 f->nodes[leaf_nodes[k]].name);
	if (count > LIST_MAX)
		tp_strbuf_printf(b, " and %" PRIu32 " more", count - LIST_MAX);
	return TP_OK;
}

static tp_status group_hosts(tp_fabric *f, tp_error *err)
{
	uint32_t *cas, nca = 0, *seen_leaf = NULL, *leaf_links = NULL;
	uint32_t *touched = NULL;
	tp_status rc = TP_OK;

	cas = malloc(((size_t)f->node_count + 1) * sizeof(*cas));
	f->hosts = calloc((size_t)f->node_count + 1, sizeof(*f->hosts));
	seen_leaf = calloc((size_t)f->leaf_count + 1, sizeof(*seen_leaf));
	leaf_links = calloc((size_t)f->leaf_count + 1, sizeof(*leaf_links));
	touched = malloc(((size_t)f->leaf_count + 1) * sizeof(*touched));
	if (cas == NULL || f->hosts == NULL || seen_leaf == NULL ||
	    leaf_links == NULL || touched == NULL) {
		rc = tp_fabric_nomem(err, "hosts");
		goto out;
	}
	for (uint32_t i = 0; i < f->node_count; i++)
		if (f->nodes[i].type == TP_FABRIC_CA)
			cas[nca++] = i;
	sort_by_name(f, cas, nca);
	for (uint32_t k = 0; k < nca;) {
		uint32_t end = k, ntouched = 0, best = TP_FABRIC_NONE;
		tp_fabric_host *h = &f->hosts[f->host_count];

		while (end < nca && strcmp(f->nodes[cas[end]].name,
		                           f->nodes[cas[k]].name) == 0)
			end++;
		h->name = strdup(f->nodes[cas[k]].name);
		if (h->name == NULL) {
			rc = tp_fabric_nomem(err, "hosts");
			goto out;
		}
		h->ca_count = end - k;
		h->mapped = false;
		for (uint32_t c = k; c < end; c++) {
			const tp_fabric_node *n = &f->nodes[cas[c]];

			f->nodes[cas[c]].host = f->host_count;
			h->mapped = h->mapped || n->mapped;
			for (uint32_t p = 0; p < n->port_count; p++) {
				uint32_t l = f->ports[n->first_port + p].link;
				uint32_t peer, leaf;

				if (l == TP_FABRIC_NONE)
					continue;
				peer = other_end(f, l, cas[c]);
				leaf = f->nodes[peer].leaf;
				if (leaf == TP_FABRIC_NONE)
					continue;
				if (leaf_links[leaf]++ == 0)
					touched[ntouched++] = leaf;
			}
		}
		for (uint32_t t = 0; t < ntouched; t++) {
			uint32_t leaf = touched[t];

			if (best == TP_FABRIC_NONE ||
			    leaf_links[leaf] > leaf_links[best] ||
			    (leaf_links[leaf] == leaf_links[best] &&
			     leaf < best))
				best = leaf;
		}
		h->leaf = best;
		h->leaf_count = ntouched;
		if (ntouched > 1) {
			tp_strbuf b = TP_STRBUF_INIT(0);
			uint32_t *nodes_of =
			    malloc(ntouched * sizeof(*nodes_of));

			if (nodes_of == NULL) {
				rc = tp_fabric_nomem(err, "hosts");
				goto out;
			}
			for (uint32_t t = 0; t < ntouched; t++)
				nodes_of[t] = f->leaves[touched[t]];
			sort_by_name(f, nodes_of, ntouched);
			list_names(f, nodes_of, ntouched, &b);
			free(nodes_of);
			if (tp_strbuf_failed(&b)) {
				tp_strbuf_free(&b);
				rc = tp_fabric_nomem(err, "finding");
				goto out;
			}
			rc = tp_fabric_findings_add(
			    &f->anomalies, TP_FINDING_HOST_ON_LEAVES, err,
			    "host %s is cabled to %" PRIu32
			    " leaves (%s); placement uses %s",
			    h->name, ntouched, b.s,
			    f->nodes[f->leaves[best]].name);
			tp_strbuf_free(&b);
			if (rc != TP_OK)
				goto out;
		} else if (ntouched == 0) {
			rc = tp_fabric_findings_add(
			    &f->anomalies, TP_FINDING_NO_LEAF, err,
			    "host %s is cabled to no leaf switch", h->name);
			if (rc != TP_OK)
				goto out;
		}
		for (uint32_t t = 0; t < ntouched; t++)
			leaf_links[touched[t]] = 0;
		f->host_count++;
		k = end;
	}
	/* leaf -> hosts, hosts in name order */
	f->leaf_host_start =
	    calloc((size_t)f->leaf_count + 2, sizeof(*f->leaf_host_start));
	f->leaf_host_list =
	    malloc(((size_t)f->host_count + 1) * sizeof(*f->leaf_host_list));
	if (f->leaf_host_start == NULL || f->leaf_host_list == NULL) {
		rc = tp_fabric_nomem(err, "hosts");
		goto out;
	}
	for (uint32_t h = 0; h < f->host_count; h++)
		if (f->hosts[h].leaf != TP_FABRIC_NONE)
			f->leaf_host_start[f->hosts[h].leaf + 2]++;
	for (uint32_t k = 2; k < f->leaf_count + 2; k++)
		f->leaf_host_start[k] += f->leaf_host_start[k - 1];
	for (uint32_t h = 0; h < f->host_count; h++)
		if (f->hosts[h].leaf != TP_FABRIC_NONE)
			f->leaf_host_list[f->leaf_host_start[f->hosts[h].leaf +
			                                     1]++] = h;
out:
	(void)seen_leaf;
	free(cas);
	free(seen_leaf);
	free(leaf_links);
	free(touched);
	return rc;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static bool in_pod_layer(const tp_fabric_node *n)
{
	return n->type == TP_FABRIC_SWITCH && (n->level == 1 || n->level == 2);
}

static tp_status group_pods(tp_fabric *f, tp_error *err)
{
	uint32_t *parent, *pod_of_root;

	parent = malloc(((size_t)f->node_count + 1) * sizeof(*parent));
	pod_of_root =
	    malloc(((size_t)f->node_count + 1) * sizeof(*pod_of_root));
	f->leaf_pod =
	    malloc(((size_t)f->leaf_count + 1) * sizeof(*f->leaf_pod));
	if (parent == NULL || pod_of_root == NULL || f->leaf_pod == NULL) {
		free(parent);
		free(pod_of_root);
		return tp_fabric_nomem(err, "pods");
	}
	for (uint32_t i = 0; i < f->node_count; i++) {
		parent[i] = i;
		pod_of_root[i] = TP_FABRIC_NONE;
	}
	for (uint32_t l = 0; l < f->link_count; l++) {
		uint32_t a = f->links[l].node[0], b = f->links[l].node[1];

		if (in_pod_layer(&f->nodes[a]) && in_pod_layer(&f->nodes[b])) {
			a = uf_find(parent, a);
			b = uf_find(parent, b);
			if (a != b)
				parent[a < b ? b : a] = a < b ? a : b;
		}
	}
	for (uint32_t k = 0; k < f->leaf_count; k++) {
		uint32_t r = uf_find(parent, f->leaves[k]);

		if (pod_of_root[r] == TP_FABRIC_NONE)
			pod_of_root[r] = f->pod_count++;
		f->leaf_pod[k] = pod_of_root[r];
		f->nodes[f->leaves[k]].pod = pod_of_root[r];
	}
	for (uint32_t i = 0; i < f->node_count; i++)
		if (in_pod_layer(&f->nodes[i]) && f->nodes[i].level == 2)
			f->nodes[i].pod = pod_of_root[uf_find(parent, i)];
	free(parent);
	free(pod_of_root);
	f->pod_names = calloc((size_t)f->pod_count + 1, sizeof(*f->pod_names));
	if (f->pod_names == NULL)
		return tp_fabric_nomem(err, "pods");
	for (uint32_t p = 0; p < f->pod_count; p++)
		snprintf(f->pod_names[p], sizeof(f->pod_names[p]),
		         "pod%02" PRIu32, p + 1);
	return TP_OK;
}

static tp_status measure_leaves(tp_fabric *f, tp_error *err)
{
	size_t L = f->leaf_count;
	uint32_t *dist, *queue;

	f->leaf_dist = malloc(L * L + 1);
	dist = malloc(((size_t)f->node_count + 1) * sizeof(*dist));
	queue = malloc(((size_t)f->node_count + 1) * sizeof(*queue));
	if (f->leaf_dist == NULL || dist == NULL || queue == NULL) {
		free(dist);
		free(queue);
		return tp_fabric_nomem(err, "leaf distances");
	}
	for (size_t a = 0; a < L; a++) {
		uint32_t head = 0, tail = 0;

		/* only switches are ever reached: after the first search,
		 * reset just what the last one touched (L x switches, not
		 * L x all nodes) */
		if (a == 0)
			for (uint32_t i = 0; i < f->node_count; i++)
				dist[i] = UINT32_MAX;
		dist[f->leaves[a]] = 0;
		queue[tail++] = f->leaves[a];
		while (head < tail) {
			uint32_t cur = queue[head++];
			const tp_fabric_node *n = &f->nodes[cur];

			for (uint32_t p = 0; p < n->port_count; p++) {
				uint32_t l = f->ports[n->first_port + p].link;
				uint32_t peer;

				if (l == TP_FABRIC_NONE)
					continue;
				peer = other_end(f, l, cur);
				if (f->nodes[peer].type != TP_FABRIC_SWITCH ||
				    dist[peer] != UINT32_MAX)
					continue;
				dist[peer] = dist[cur] + 1;
				queue[tail++] = peer;
			}
		}
		for (size_t b = 0; b < L; b++) {
			uint32_t d = dist[f->leaves[b]];

			f->leaf_dist[a * L + b] =
			    d >= TP_FABRIC_UNREACHABLE - 2
			        ? (uint8_t)TP_FABRIC_UNREACHABLE
			        : (uint8_t)(d + 2);
		}
		for (uint32_t q = 0; q < tail; q++)
			dist[queue[q]] = UINT32_MAX;
	}
	free(dist);
	free(queue);
	return TP_OK;
}

static tp_status note_unmapped(tp_fabric *f, tp_error *err)
{
	tp_strbuf b = TP_STRBUF_INIT(0);
	uint32_t n = 0;
	tp_status rc;

	for (uint32_t i = 0; i < f->node_count; i++) {
		const tp_fabric_node *c = &f->nodes[i];

		if (c->type != TP_FABRIC_CA || c->mapped)
			continue;
		if (n < LIST_MAX)
			tp_strbuf_printf(&b, "%s%s (0x%016" PRIx64 ")",
			                 n ? ", " : "", c->name, c->guid);
		n++;
	}
	if (n == 0)
		return TP_OK;
	if (n > LIST_MAX)
		tp_strbuf_printf(&b, " and %" PRIu32 " more", n - LIST_MAX);
	if (tp_strbuf_failed(&b)) {
		tp_strbuf_free(&b);
		return tp_fabric_nomem(err, "finding");
	}
	rc = tp_fabric_findings_add(&f->anomalies, TP_FINDING_UNMAPPED, err,
	                            "%" PRIu32 " CA%s map%s to no NodeName "
	                            "(kept, never placed): %s",
	                            n, n == 1 ? "" : "s", n == 1 ? "s" : "",
	                            b.s);
	tp_strbuf_free(&b);
	return rc;
}

static tp_status note_uneven(tp_fabric *f, tp_error *err)
{
	uint32_t common = 0, common_n = 0, odd = 0;
	tp_strbuf b = TP_STRBUF_INIT(0);
	tp_status rc;

	/* most frequent host count (Boyer-Moore is not exact; count) */
	for (uint32_t k = 0; k < f->leaf_count; k++) {
		uint32_t c = f->leaf_host_start[k + 1] - f->leaf_host_start[k];
		uint32_t same = 0;

		for (uint32_t j = 0; j < f->leaf_count; j++)
			if (f->leaf_host_start[j + 1] - f->leaf_host_start[j] ==
			    c)
				same++;
		if (same > common_n || (same == common_n && c > common)) {
			common = c;
			common_n = same;
		}
		if (common_n * 2 > f->leaf_count)
			break;
	}
	for (uint32_t k = 0; k < f->leaf_count; k++) {
		uint32_t c = f->leaf_host_start[k + 1] - f->leaf_host_start[k];

		if (c == common)
			continue;
		if (odd < LIST_MAX)
			tp_strbuf_printf(&b, "%s%s has %" PRIu32,
			                 odd ? ", " : "",
			                 f->nodes[f->leaves[k]].name, c);
		odd++;
	}
	if (odd == 0)
		return TP_OK;
	if (odd > LIST_MAX)
		tp_strbuf_printf(&b, " and %" PRIu32 " more", odd - LIST_MAX);
	if (tp_strbuf_failed(&b)) {
		tp_strbuf_free(&b);
		return tp_fabric_nomem(err, "finding");
	}
	rc = tp_fabric_findings_add(
	    &f->anomalies, TP_FINDING_UNEVEN_LEAVES, err,
	    "leaves have different host counts: %" PRIu32 " of %" PRIu32
	    " leaves have %" PRIu32 " hosts; %s",
	    common_n, f->leaf_count, common, b.s);
	tp_strbuf_free(&b);
	return rc;
}

/*
 * Uplinks: a leaf should reach every level-2 switch of its pod with as many
 * cables as its best-cabled peer; a level-2 switch as many level-3
 * switches/cables as the best level-2 switch.
 */
static tp_status note_uplinks(tp_fabric *f, tp_error *err)
{
	uint32_t *distinct, *cables, *stamp, *pod_up, *pod_max_cables;
	uint32_t max2_distinct = 0, max2_cables = 0;
	tp_status rc = TP_OK;

	distinct = calloc((size_t)f->node_count + 1, sizeof(*distinct));
	cables = calloc((size_t)f->node_count + 1, sizeof(*cables));
	stamp = malloc(((size_t)f->node_count + 1) * sizeof(*stamp));
	pod_up = calloc((size_t)f->pod_count + 1, sizeof(*pod_up));
	pod_max_cables =
	    calloc((size_t)f->pod_count + 1, sizeof(*pod_max_cables));
	if (distinct == NULL || cables == NULL || stamp == NULL ||
	    pod_up == NULL || pod_max_cables == NULL) {
		rc = tp_fabric_nomem(err, "uplinks");
		goto out;
	}
	for (uint32_t i = 0; i < f->node_count; i++)
		stamp[i] = TP_FABRIC_NONE;
	for (uint32_t i = 0; i < f->node_count; i++) {
		const tp_fabric_node *n = &f->nodes[i];

		if (n->type != TP_FABRIC_SWITCH || n->level < 1)
			continue;
		if (n->level == 2 && n->pod != TP_FABRIC_NONE)
			pod_up[n->pod]++;
		for (uint32_t p = 0; p < n->port_count; p++) {
			uint32_t l = f->ports[n->first_port + p].link, peer;

			if (l == TP_FABRIC_NONE)
				continue;
			peer = other_end(f, l, i);
			if (f->nodes[peer].type != TP_FABRIC_SWITCH ||
			    f->nodes[peer].level != n->level + 1)
				continue;
			cables[i]++;
			if (stamp[peer] != i) {
				stamp[peer] = i;
				distinct[i]++;
			}
		}
		if (n->level == 1 && cables[i] > pod_max_cables[n->pod])
			pod_max_cables[n->pod] = cables[i];
		if (n->level == 2) {
			if (distinct[i] > max2_distinct)
				max2_distinct = distinct[i];
			if (cables[i] > max2_cables)
				max2_cables = cables[i];
		}
	}
	for (uint32_t k = 0; k < f->leaf_count && f->max_level >= 2; k++) {
		uint32_t i = f->leaves[k], pod = f->leaf_pod[k];
		const tp_fabric_node *n = &f->nodes[i];

		if (distinct[i] < pod_up[pod]) {
			tp_strbuf b = TP_STRBUF_INIT(0);
			uint32_t missing = 0;

			/* stamp this leaf's up-neighbours, then list the rest
			 */
			for (uint32_t p = 0; p < n->port_count; p++) {
				uint32_t l = f->ports[n->first_port + p].link;

				if (l != TP_FABRIC_NONE)
					stamp[other_end(f, l, i)] = i;
			}
			for (uint32_t j = 0; j < f->node_count; j++) {
				const tp_fabric_node *s = &f->nodes[j];

				if (s->type != TP_FABRIC_SWITCH ||
				    s->level != 2 || s->pod != pod ||
				    stamp[j] == i)
					continue;
				if (missing < LIST_MAX)
					tp_strbuf_printf(&b, "%s%s",
					                 missing ? ", " : "",
					                 s->name);
				missing++;
			}
			if (missing > LIST_MAX)
				tp_strbuf_printf(&b, " and %" PRIu32 " more",
				                 missing - LIST_MAX);
			if (tp_strbuf_failed(&b)) {
				tp_strbuf_free(&b);
				rc = tp_fabric_nomem(err, "finding");
				goto out;
			}
			rc = tp_fabric_findings_add(
			    &f->anomalies, TP_FINDING_MISSING_UPLINK, err,
			    "leaf %s (%s) has no uplink to %s "
			    "(%" PRIu32 " of %" PRIu32
			    " level-2 switches of its pod)",
			    n->name, f->pod_names[pod], b.s, distinct[i],
			    pod_up[pod]);
			tp_strbuf_free(&b);
		} else if (cables[i] < pod_max_cables[pod]) {
			rc = tp_fabric_findings_add(
			    &f->anomalies, TP_FINDING_MISSING_UPLINK, err,
			    "leaf %s (%s) has %" PRIu32
			    " uplink cables, other leaves of its pod up "
			    "to %" PRIu32,
			    n->name, f->pod_names[pod], cables[i],
			    pod_max_cables[pod]);
		}
		if (rc != TP_OK)
			goto out;
	}
	for (uint32_t i = 0; i < f->node_count && f->max_level >= 3; i++) {
		const tp_fabric_node *n = &f->nodes[i];

		if (n->type != TP_FABRIC_SWITCH || n->level != 2)
			continue;
		if (distinct[i] < max2_distinct || cables[i] < max2_cables)
			rc = tp_fabric_findings_add(
			    &f->anomalies, TP_FINDING_MISSING_UPLINK, err,
			    "switch %s (level 2) has %" PRIu32
			    " uplink cables to %" PRIu32
			    " level-3 switches, others up to %" PRIu32
			    " cables to %" PRIu32,
			    n->name, cables[i], distinct[i], max2_cables,
			    max2_distinct);
		if (rc != TP_OK)
			goto out;
	}
out:
	free(distinct);
	free(cables);
	free(stamp);
	free(pod_up);
	free(pod_max_cables);
	return rc;
}

static tp_status note_levels_and_distances(tp_fabric *f, tp_error *err)
{
	uint32_t far = 0, unreachable = 0;
	tp_status rc;

	for (uint32_t i = 0; i < f->node_count; i++) {
		const tp_fabric_node *n = &f->nodes[i];

		if (n->type == TP_FABRIC_SWITCH && n->level < 0 &&
		    (rc = tp_fabric_findings_add(
		         &f->anomalies, TP_FINDING_UNLEVELLED, err,
		         "switch %s is reached by no host (level unknown)",
		         n->name)) != TP_OK)
			return rc;
	}
	for (uint32_t a = 0; a < f->leaf_count; a++) {
		for (uint32_t b = a + 1; b < f->leaf_count; b++) {
			unsigned d =
			    f->leaf_dist[(size_t)a * f->leaf_count + b];
			unsigned t = tp_fabric_tree_distance(f, a, b);

			if (d <= t)
				continue;
			if (d == TP_FABRIC_UNREACHABLE) {
				if (unreachable++ < LIST_MAX &&
				    (rc = tp_fabric_findings_add(
				         &f->anomalies, TP_FINDING_DISTANCE,
				         err,
				         "leaves %s and %s cannot reach "
				         "each other",
				         f->nodes[f->leaves[a]].name,
				         f->nodes[f->leaves[b]].name)) != TP_OK)
					return rc;
			} else if (far++ < LIST_MAX &&
			           (rc = tp_fabric_findings_add(
			                &f->anomalies, TP_FINDING_DISTANCE, err,
			                "hosts of leaves %s and %s are %u "
			                "hops apart, not %u",
			                f->nodes[f->leaves[a]].name,
			                f->nodes[f->leaves[b]].name, d, t)) !=
			               TP_OK) {
				return rc;
			}
		}
	}
	if (far > LIST_MAX &&
	    (rc = tp_fabric_findings_add(
	         &f->anomalies, TP_FINDING_DISTANCE, err,
	         "... and %" PRIu32 " more leaf pairs farther apart than "
	         "the tree says",
	         far - LIST_MAX)) != TP_OK)
		return rc;
	if (unreachable > LIST_MAX &&
	    (rc = tp_fabric_findings_add(
	         &f->anomalies, TP_FINDING_DISTANCE, err,
	         "... and %" PRIu32 " more leaf pairs that cannot reach "
	         "each other",
	         unreachable - LIST_MAX)) != TP_OK)
		return rc;
	return TP_OK;
}

tp_status tp_fabric_finish(tp_fabric *f, const tp_fabric_name_map *map,
                           tp_error *err)
{
	tp_status rc;

	if (f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: fabric finished twice", f->source);
	if ((rc = assign_names(f, map, err)) != TP_OK)
		return rc;
	f->name_order =
	    malloc(((size_t)f->node_count + 1) * sizeof(*f->name_order));
	if (f->name_order == NULL)
		return tp_fabric_nomem(err, "names");
	for (uint32_t i = 0; i < f->node_count; i++)
		f->name_order[i] = i;
	sort_by_name(f, f->name_order, f->node_count);
	if ((rc = dedupe_switch_names(f, err)) != TP_OK)
		return rc;
	sort_by_name(f, f->name_order, f->node_count);
	if ((rc = level_nodes(f, err)) != TP_OK ||
	    (rc = find_leaves(f, err)) != TP_OK ||
	    (rc = group_hosts(f, err)) != TP_OK ||
	    (rc = group_pods(f, err)) != TP_OK ||
	    (rc = measure_leaves(f, err)) != TP_OK ||
	    (rc = note_unmapped(f, err)) != TP_OK ||
	    (rc = note_uneven(f, err)) != TP_OK ||
	    (rc = note_uplinks(f, err)) != TP_OK ||
	    (rc = note_levels_and_distances(f, err)) != TP_OK)
		return rc;
	f->finished = true;
	return TP_OK;
}
