#include "tp_config.h"

#include "fabric.h"
#include "hostlist.h"
#include "tp_strbuf.h"
#include "tp_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many individual items are named in one finding. */
#define LIST_MAX 8

struct tp_fabric {
	char *source;
	bool has_ports;
	bool finished;

	tp_fabric_node *nodes;
	uint32_t node_count, node_cap;
	tp_fabric_port *ports;
	uint32_t port_count, port_cap;
	tp_fabric_link *links;
	uint32_t link_count, link_cap;

	/* after finish */
	uint32_t *name_order;  /* node indices sorted by name */
	tp_fabric_host *hosts; /* sorted by name */
	uint32_t host_count;
	uint32_t *leaves; /* leaf index -> node index, sorted by name */
	uint32_t leaf_count;
	uint32_t *leaf_pod;
	uint32_t *leaf_host_start; /* leaf_count + 1 offsets */
	uint32_t *leaf_host_list;
	uint32_t pod_count;
	char (*pod_names)[16];
	uint8_t *leaf_dist; /* leaf_count x leaf_count hops */
	int max_level;
	tp_fabric_findings anomalies;
};

/* ---- small helpers ----------------------------------------------------- */

static tp_status nomem(tp_error *err, const char *what)
{
	return tp_error_set(err, TP_ERR_NOMEM, "fabric: out of memory (%s)",
	                    what);
}

static tp_status grow(void **array, uint32_t *cap, uint32_t need, size_t size,
                      tp_error *err)
{
	uint32_t ncap;
	void *p;

	if (need <= *cap)
		return TP_OK;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > UINT32_MAX / 2)
			return tp_error_set(err, TP_ERR_LIMIT,
			                    "fabric: too many elements");
		ncap *= 2;
	}
	p = realloc(*array, (size_t)ncap * size);
	if (p == NULL)
		return nomem(err, "table");
	*array = p;
	*cap = ncap;
	return TP_OK;
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

tp_status tp_fabric_findings_add(tp_fabric_findings *findings,
                                 tp_fabric_finding_kind kind, tp_error *err,
                                 const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	if (findings->count == findings->cap) {
		size_t ncap = findings->cap ? findings->cap * 2 : 8;
		tp_fabric_finding *p =
		    realloc(findings->items, ncap * sizeof(*p));

		if (p == NULL)
			return nomem(err, "finding");
		findings->items = p;
		findings->cap = ncap;
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return tp_error_set(err, TP_ERR_INTERNAL, "fabric: bad format");
	text = malloc((size_t)n + 1);
	if (text == NULL)
		return nomem(err, "finding");
	va_start(ap, fmt);
	vsnprintf(text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	findings->items[findings->count].kind = kind;
	findings->items[findings->count].text = text;
	findings->count++;
	return TP_OK;
}

const char *tp_fabric_finding_kind_name(tp_fabric_finding_kind kind)
{
	switch (kind) {
	case TP_FINDING_HOST_ON_LEAVES:
		return "host_on_leaves";
	case TP_FINDING_UNMAPPED:
		return "unmapped";
	case TP_FINDING_UNEVEN_LEAVES:
		return "uneven_leaves";
	case TP_FINDING_MISSING_UPLINK:
		return "missing_uplink";
	case TP_FINDING_UNLEVELLED:
		return "unlevelled";
	case TP_FINDING_DUPLICATE_NAME:
		return "duplicate_name";
	case TP_FINDING_DISTANCE:
		return "distance";
	case TP_FINDING_NO_LEAF:
		return "no_leaf";
	case TP_FINDING_SWITCH_GONE:
		return "switch_gone";
	case TP_FINDING_SWITCH_NEW:
		return "switch_new";
	case TP_FINDING_HOST_GONE:
		return "host_gone";
	case TP_FINDING_HOST_NEW:
		return "host_new";
	case TP_FINDING_HOST_MOVED:
		return "host_moved";
	case TP_FINDING_POD_CHANGED:
		return "pod_changed";
	case TP_FINDING_LINK_GONE:
		return "link_gone";
	case TP_FINDING_LINK_NEW:
		return "link_new";
	case TP_FINDING_LINK_COUNT:
		return "link_count";
	}
	return "unknown";
}

void tp_fabric_findings_free(tp_fabric_findings *findings)
{
	if (findings == NULL)
		return;
	for (size_t i = 0; i < findings->count; i++)
		free(findings->items[i].text);
	free(findings->items);
	findings->items = NULL;
	findings->count = findings->cap = 0;
}

/* ---- building ---------------------------------------------------------- */

tp_status tp_fabric_new(tp_fabric **fabric, const char *source, bool has_ports,
                        tp_error *err)
{
	tp_fabric *f;

	*fabric = NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return nomem(err, "fabric");
	f->source = strdup(source != NULL ? source : "fabric");
	if (f->source == NULL) {
		free(f);
		return nomem(err, "fabric");
	}
	f->has_ports = has_ports;
	f->max_level = 0;
	*fabric = f;
	return TP_OK;
}

void tp_fabric_free(tp_fabric *f)
{
	if (f == NULL)
		return;
	for (uint32_t i = 0; i < f->node_count; i++) {
		free(f->nodes[i].desc);
		free(f->nodes[i].name);
	}
	for (uint32_t i = 0; i < f->host_count; i++)
		free(f->hosts[i].name);
	free(f->nodes);
	free(f->ports);
	free(f->links);
	free(f->name_order);
	free(f->hosts);
	free(f->leaves);
	free(f->leaf_pod);
	free(f->leaf_host_start);
	free(f->leaf_host_list);
	free(f->pod_names);
	free(f->leaf_dist);
	tp_fabric_findings_free(&f->anomalies);
	free(f->source);
	free(f);
}

tp_status tp_fabric_add_node(tp_fabric *f, tp_fabric_node_type type,
                             uint64_t guid, uint32_t port_count,
                             const char *desc, uint32_t *index, tp_error *err)
{
	tp_fabric_node *n;
	tp_status rc;

	if (f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: node added after finish", f->source);
	if (type != TP_FABRIC_CA && type != TP_FABRIC_SWITCH &&
	    type != TP_FABRIC_ROUTER)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: node type %d unknown", f->source,
		                    (int)type);
	if (port_count > 4096 || f->port_count > UINT32_MAX - port_count)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: node with %" PRIu32 " ports",
		                    f->source, port_count);
	if ((rc = grow((void **)&f->nodes, &f->node_cap, f->node_count + 1,
	               sizeof(*f->nodes), err)) != TP_OK)
		return rc;
	if ((rc = grow((void **)&f->ports, &f->port_cap,
	               f->port_count + port_count, sizeof(*f->ports), err)) !=
	    TP_OK)
		return rc;
	n = &f->nodes[f->node_count];
	memset(n, 0, sizeof(*n));
	n->desc = strdup(desc != NULL ? desc : "");
	if (n->desc == NULL)
		return nomem(err, "node description");
	n->type = type;
	n->guid = guid;
	n->port_count = port_count;
	n->first_port = f->port_count;
	n->level = -1;
	n->pod = n->host = n->leaf = TP_FABRIC_NONE;
	for (uint32_t p = 0; p < port_count; p++) {
		tp_fabric_port *port = &f->ports[f->port_count + p];

		memset(port, 0, sizeof(*port));
		port->node = f->node_count;
		port->num = p + 1;
		port->link = TP_FABRIC_NONE;
	}
	f->port_count += port_count;
	if (index != NULL)
		*index = f->node_count;
	f->node_count++;
	return TP_OK;
}

static tp_fabric_port *port_of(tp_fabric *f, uint32_t node, uint32_t num)
{
	if (node >= f->node_count || num < 1 || num > f->nodes[node].port_count)
		return NULL;
	return &f->ports[f->nodes[node].first_port + num - 1];
}

tp_status tp_fabric_set_port(tp_fabric *f, uint32_t node, uint32_t num,
                             uint64_t guid, uint16_t lid, uint8_t lmc,
                             uint8_t width_lanes, uint32_t lane_mbps,
                             tp_error *err)
{
	tp_fabric_port *p = port_of(f, node, num);

	if (p == NULL || f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: no port %" PRIu32 " on node %" PRIu32,
		                    f->source, num, node);
	p->guid = guid;
	p->lid = lid;
	p->lmc = lmc;
	p->width_lanes = width_lanes;
	p->lane_mbps = lane_mbps;
	if (lid != 0 && (f->nodes[node].lid == 0))
		f->nodes[node].lid = lid;
	return TP_OK;
}

tp_status tp_fabric_link_ports(tp_fabric *f, uint32_t a, uint32_t pa,
                               uint32_t b, uint32_t pb, tp_error *err)
{
	tp_fabric_port *x = port_of(f, a, pa), *y = port_of(f, b, pb);
	tp_status rc;

	if (f->finished || x == NULL || y == NULL)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: link %" PRIu32 "[%" PRIu32
		                    "] - %" PRIu32 "[%" PRIu32
		                    "]: no such port",
		                    f->source, a, pa, b, pb);
	if (x == y || x->link != TP_FABRIC_NONE || y->link != TP_FABRIC_NONE)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: link %s[%" PRIu32 "] - %s[%" PRIu32
		                    "]: port already cabled",
		                    f->source, f->nodes[a].desc, pa,
		                    f->nodes[b].desc, pb);
	if ((rc = grow((void **)&f->links, &f->link_cap, f->link_count + 1,
	               sizeof(*f->links), err)) != TP_OK)
		return rc;
	f->links[f->link_count].port[0] = (uint32_t)(x - f->ports);
	f->links[f->link_count].port[1] = (uint32_t)(y - f->ports);
	f->links[f->link_count].node[0] = a;
	f->links[f->link_count].node[1] = b;
	x->link = y->link = f->link_count;
	f->link_count++;
	return TP_OK;
}

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
			n->name = dup_n(n->desc + skip, w);
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
			return nomem(err, "node name");
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
			return nomem(err, "node name");
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
		return nomem(err, "levels");
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
		return nomem(err, "leaves");
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
		tp_strbuf_printf(b, "%s%s", k ? ", " : "", f->nodes[leaf_nodes[k]].name);
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
		rc = nomem(err, "hosts");
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
			rc = nomem(err, "hosts");
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
				rc = nomem(err, "hosts");
				goto out;
			}
			for (uint32_t t = 0; t < ntouched; t++)
				nodes_of[t] = f->leaves[touched[t]];
			sort_by_name(f, nodes_of, ntouched);
			list_names(f, nodes_of, ntouched, &b);
			free(nodes_of);
			if (tp_strbuf_failed(&b)) {
				tp_strbuf_free(&b);
				rc = nomem(err, "finding");
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
		rc = nomem(err, "hosts");
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
		return nomem(err, "pods");
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
		return nomem(err, "pods");
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
		return nomem(err, "leaf distances");
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

/* Hops the host -> leaf -> pod hierarchy assumes between two leaves. */
static unsigned tree_distance(const tp_fabric *f, uint32_t a, uint32_t b)
{
	if (a == b)
		return TP_HOPS_SAME_LEAF;
	return f->leaf_pod[a] == f->leaf_pod[b] ? TP_HOPS_SAME_POD
	                                        : TP_HOPS_OTHER_POD;
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
			tp_strbuf_printf(&b, "%s%s (0x%016" PRIx64 ")", n ? ", " : "",
			       c->name, c->guid);
		n++;
	}
	if (n == 0)
		return TP_OK;
	if (n > LIST_MAX)
		tp_strbuf_printf(&b, " and %" PRIu32 " more", n - LIST_MAX);
	if (tp_strbuf_failed(&b)) {
		tp_strbuf_free(&b);
		return nomem(err, "finding");
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
			tp_strbuf_printf(&b, "%s%s has %" PRIu32, odd ? ", " : "",
			       f->nodes[f->leaves[k]].name, c);
		odd++;
	}
	if (odd == 0)
		return TP_OK;
	if (odd > LIST_MAX)
		tp_strbuf_printf(&b, " and %" PRIu32 " more", odd - LIST_MAX);
	if (tp_strbuf_failed(&b)) {
		tp_strbuf_free(&b);
		return nomem(err, "finding");
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
		rc = nomem(err, "uplinks");
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
					tp_strbuf_printf(&b, "%s%s", missing ? ", " : "",
					       s->name);
				missing++;
			}
			if (missing > LIST_MAX)
				tp_strbuf_printf(&b, " and %" PRIu32 " more",
				       missing - LIST_MAX);
			if (tp_strbuf_failed(&b)) {
				tp_strbuf_free(&b);
				rc = nomem(err, "finding");
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
			unsigned t = tree_distance(f, a, b);

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
		return nomem(err, "names");
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

/* ---- queries ----------------------------------------------------------- */

const char *tp_fabric_source(const tp_fabric *f)
{
	return f->source;
}

bool tp_fabric_has_ports(const tp_fabric *f)
{
	return f->has_ports;
}

uint32_t tp_fabric_node_count(const tp_fabric *f)
{
	return f->node_count;
}

const tp_fabric_node *tp_fabric_node_at(const tp_fabric *f, uint32_t i)
{
	return i < f->node_count ? &f->nodes[i] : NULL;
}

uint32_t tp_fabric_port_count(const tp_fabric *f)
{
	return f->port_count;
}

const tp_fabric_port *tp_fabric_port_at(const tp_fabric *f, uint32_t i)
{
	return i < f->port_count ? &f->ports[i] : NULL;
}

const tp_fabric_port *tp_fabric_node_port(const tp_fabric *f, uint32_t node,
                                          uint32_t num)
{
	return port_of((tp_fabric *)f, node, num);
}

uint32_t tp_fabric_link_count(const tp_fabric *f)
{
	return f->link_count;
}

const tp_fabric_link *tp_fabric_link_at(const tp_fabric *f, uint32_t i)
{
	return i < f->link_count ? &f->links[i] : NULL;
}

const tp_fabric_port *tp_fabric_peer(const tp_fabric *f, uint32_t port)
{
	const tp_fabric_link *l;

	if (port >= f->port_count || f->ports[port].link == TP_FABRIC_NONE)
		return NULL;
	l = &f->links[f->ports[port].link];
	return &f->ports[l->port[0] == port ? l->port[1] : l->port[0]];
}

int tp_fabric_max_level(const tp_fabric *f)
{
	return f->max_level;
}

uint32_t tp_fabric_switches_at(const tp_fabric *f, int level)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->node_count; i++)
		if (f->nodes[i].type == TP_FABRIC_SWITCH &&
		    f->nodes[i].level == level)
			n++;
	return n;
}

uint32_t tp_fabric_host_count(const tp_fabric *f)
{
	return f->host_count;
}

const tp_fabric_host *tp_fabric_host_at(const tp_fabric *f, uint32_t i)
{
	return i < f->host_count ? &f->hosts[i] : NULL;
}

uint32_t tp_fabric_find_host(const tp_fabric *f, const char *name)
{
	uint32_t lo = 0, hi = f->host_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(f->hosts[mid].name, name);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return TP_FABRIC_NONE;
}

uint32_t tp_fabric_find_node(const tp_fabric *f, const char *name)
{
	uint32_t lo = 0, hi = f->finished ? f->node_count : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(f->nodes[f->name_order[mid]].name, name);

		if (c == 0) {
			/* the first of equal names (switch before CA is not
			 * guaranteed; prefer a switch) */
			uint32_t k = mid;

			while (k > 0 &&
			       strcmp(f->nodes[f->name_order[k - 1]].name,
			              name) == 0)
				k--;
			for (uint32_t j = k;
			     j < f->node_count &&
			     strcmp(f->nodes[f->name_order[j]].name, name) == 0;
			     j++)
				if (f->nodes[f->name_order[j]].type ==
				    TP_FABRIC_SWITCH)
					return f->name_order[j];
			return f->name_order[k];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return TP_FABRIC_NONE;
}

uint32_t tp_fabric_leaf_count(const tp_fabric *f)
{
	return f->leaf_count;
}

uint32_t tp_fabric_leaf_node(const tp_fabric *f, uint32_t leaf)
{
	return leaf < f->leaf_count ? f->leaves[leaf] : TP_FABRIC_NONE;
}

uint32_t tp_fabric_leaf_pod(const tp_fabric *f, uint32_t leaf)
{
	return leaf < f->leaf_count ? f->leaf_pod[leaf] : TP_FABRIC_NONE;
}

const uint32_t *tp_fabric_leaf_hosts(const tp_fabric *f, uint32_t leaf,
                                     uint32_t *count)
{
	if (leaf >= f->leaf_count) {
		*count = 0;
		return NULL;
	}
	*count = f->leaf_host_start[leaf + 1] - f->leaf_host_start[leaf];
	return f->leaf_host_list + f->leaf_host_start[leaf];
}

uint32_t tp_fabric_pod_count(const tp_fabric *f)
{
	return f->pod_count;
}

const char *tp_fabric_pod_name(const tp_fabric *f, uint32_t pod)
{
	return pod < f->pod_count ? f->pod_names[pod] : NULL;
}

unsigned tp_fabric_leaf_distance(const tp_fabric *f, uint32_t a, uint32_t b)
{
	if (a >= f->leaf_count || b >= f->leaf_count)
		return TP_FABRIC_UNREACHABLE;
	if (a == b)
		return TP_HOPS_SAME_LEAF;
	return f->leaf_dist[(size_t)a * f->leaf_count + b];
}

unsigned tp_fabric_host_distance(const tp_fabric *f, uint32_t a, uint32_t b)
{
	if (a == b)
		return TP_HOPS_SAME_HOST;
	if (a >= f->host_count || b >= f->host_count)
		return TP_FABRIC_UNREACHABLE;
	return tp_fabric_leaf_distance(f, f->hosts[a].leaf, f->hosts[b].leaf);
}

const tp_fabric_findings *tp_fabric_anomalies(const tp_fabric *f)
{
	return &f->anomalies;
}

/* ---- outputs ----------------------------------------------------------- */

tp_status tp_fabric_to_topo(const tp_fabric *f, tp_topo **out, tp_error *err)
{
	tp_topo *topo;
	tp_status rc;
	uint32_t placed = 0;

	*out = NULL;
	if (!f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: fabric not finished", f->source);
	for (uint32_t h = 0; h < f->host_count; h++)
		if (f->hosts[h].mapped && f->hosts[h].leaf != TP_FABRIC_NONE)
			placed++;
	if (placed == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: no host with a NodeName is cabled to "
		                    "a leaf switch",
		                    f->source);
	if ((rc = tp_topo_new(&topo, err)) != TP_OK)
		return rc;
	for (uint32_t p = 0; p < f->pod_count && rc == TP_OK; p++)
		rc = tp_topo_add_pod(topo, f->pod_names[p], NULL, err);
	for (uint32_t k = 0; k < f->leaf_count && rc == TP_OK; k++)
		rc = tp_topo_add_leaf(topo, f->nodes[f->leaves[k]].name,
		                      f->leaf_pod[k], NULL, err);
	for (uint32_t k = 0; k < f->leaf_count && rc == TP_OK; k++) {
		for (uint32_t j = f->leaf_host_start[k];
		     j < f->leaf_host_start[k + 1] && rc == TP_OK; j++) {
			const tp_fabric_host *h =
			    &f->hosts[f->leaf_host_list[j]];

			if (h->mapped)
				rc = tp_topo_add_host(topo, h->name, k, NULL,
				                      err);
		}
	}
	for (uint32_t a = 0; a < f->leaf_count && rc == TP_OK; a++) {
		for (uint32_t b = a + 1; b < f->leaf_count && rc == TP_OK;
		     b++) {
			unsigned d =
			    f->leaf_dist[(size_t)a * f->leaf_count + b];

			if (d != tree_distance(f, a, b))
				rc = tp_topo_set_leaf_distance(topo, a, b, d,
				                               err);
		}
	}
	if (rc == TP_OK)
		rc = tp_topo_finish(topo, err);
	if (rc != TP_OK) {
		tp_topo_free(topo);
		return tp_error_prefix(err, "%s", f->source);
	}
	*out = topo;
	return TP_OK;
}

tp_status tp_fabric_write_topology_conf(const tp_fabric *f, FILE *out,
                                        const char *what, tp_error *err)
{
	const char **names;
	bool *has_hosts;
	char *list = NULL;
	tp_status rc = TP_OK;
	uint32_t top_count = 0;

	if (!f->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: fabric not finished", f->source);
	names = calloc((size_t)f->host_count + f->leaf_count + f->pod_count + 1,
	               sizeof(*names));
	has_hosts = calloc((size_t)f->leaf_count + f->pod_count + 1,
	                   sizeof(*has_hosts));
	if (names == NULL || has_hosts == NULL) {
		free(names);
		free(has_hosts);
		return nomem(err, "topology.conf");
	}
	fprintf(out,
	        "# topology.conf written by topoplace fabric from %s\n"
	        "# %" PRIu32 " hosts, %" PRIu32 " leaves, %" PRIu32
	        " pod(s), %d switch level(s); switches above the leaves are\n"
	        "# collapsed into one switch per pod and one root, so the "
	        "file forms one tree.\n",
	        f->source, f->host_count, f->leaf_count, f->pod_count,
	        f->max_level);
	for (uint32_t k = 0; k < f->leaf_count && rc == TP_OK; k++) {
		size_t n = 0;

		for (uint32_t j = f->leaf_host_start[k];
		     j < f->leaf_host_start[k + 1]; j++)
			if (f->hosts[f->leaf_host_list[j]].mapped)
				names[n++] =
				    f->hosts[f->leaf_host_list[j]].name;
		if (n == 0)
			continue;
		has_hosts[k] = true;
		has_hosts[f->leaf_count + f->leaf_pod[k]] = true;
		if ((rc = tp_hostlist_compress(names, n, &list, err)) != TP_OK)
			break;
		fprintf(out, "SwitchName=%s Nodes=%s\n",
		        f->nodes[f->leaves[k]].name, list);
		free(list);
		list = NULL;
	}
	if (rc == TP_OK && f->pod_count > 1) {
		for (uint32_t p = 0; p < f->pod_count && rc == TP_OK; p++) {
			size_t n = 0;

			if (!has_hosts[f->leaf_count + p])
				continue;
			for (uint32_t k = 0; k < f->leaf_count; k++)
				if (f->leaf_pod[k] == p && has_hosts[k])
					names[n++] =
					    f->nodes[f->leaves[k]].name;
			if ((rc = tp_hostlist_compress(names, n, &list, err)) !=
			    TP_OK)
				break;
			fprintf(out, "SwitchName=%s Switches=%s\n",
			        f->pod_names[p], list);
			free(list);
			list = NULL;
			top_count++;
		}
		if (rc == TP_OK && top_count > 1) {
			size_t n = 0;

			for (uint32_t p = 0; p < f->pod_count; p++)
				if (has_hosts[f->leaf_count + p])
					names[n++] = f->pod_names[p];
			rc = tp_hostlist_compress(names, n, &list, err);
			if (rc == TP_OK)
				fprintf(out, "SwitchName=root Switches=%s\n",
				        list);
		}
	} else if (rc == TP_OK) {
		size_t n = 0;

		for (uint32_t k = 0; k < f->leaf_count; k++)
			if (has_hosts[k])
				names[n++] = f->nodes[f->leaves[k]].name;
		if (n > 1) {
			rc = tp_hostlist_compress(names, n, &list, err);
			if (rc == TP_OK)
				fprintf(out, "SwitchName=root Switches=%s\n",
				        list);
		}
	}
	free(list);
	free(names);
	free(has_hosts);
	if (rc == TP_OK && (fflush(out) != 0 || ferror(out)))
		rc = tp_error_set(err, TP_ERR_IO, "%s: write error: %s", what,
		                  strerror(errno));
	return rc;
}

/* ---- diff -------------------------------------------------------------- */

struct pair {
	const char *a, *b; /* a <= b */
	uint32_t count;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;
	int c = strcmp(p->a, q->a);

	return c != 0 ? c : strcmp(p->b, q->b);
}

/* Cables between named nodes, counted per unordered name pair. */
static tp_status cable_pairs(const tp_fabric *f, struct pair **out,
                             size_t *count, tp_error *err)
{
	struct pair *v = calloc((size_t)f->link_count + 1, sizeof(*v));
	size_t n = 0;

	*out = NULL;
	*count = 0;
	if (v == NULL)
		return nomem(err, "diff");
	for (uint32_t l = 0; l < f->link_count; l++) {
		const char *a = f->nodes[f->links[l].node[0]].name;
		const char *b = f->nodes[f->links[l].node[1]].name;

		if (strcmp(a, b) > 0) {
			const char *t = a;

			a = b;
			b = t;
		}
		v[l].a = a;
		v[l].b = b;
		v[l].count = 1;
	}
	qsort(v, f->link_count, sizeof(*v), cmp_pair);
	for (uint32_t l = 0; l < f->link_count; l++) {
		if (n > 0 && cmp_pair(&v[n - 1], &v[l]) == 0)
			v[n - 1].count++;
		else
			v[n++] = v[l];
	}
	*out = v;
	*count = n;
	return TP_OK;
}

static const char *leaf_name_of(const tp_fabric *f, const tp_fabric_host *h)
{
	return h->leaf == TP_FABRIC_NONE ? "no leaf"
	                                 : f->nodes[f->leaves[h->leaf]].name;
}

static bool node_kept(const tp_fabric *f, const char *name)
{
	return tp_fabric_find_node(f, name) != TP_FABRIC_NONE;
}

static tp_status diff_switches(const tp_fabric *x, const tp_fabric *y,
                               bool leaves_only, tp_fabric_finding_kind kind,
                               const char *verb, tp_fabric_findings *out,
                               tp_error *err)
{
	tp_status rc;

	for (uint32_t k = 0; k < x->node_count; k++) {
		const tp_fabric_node *n = &x->nodes[x->name_order[k]];
		uint32_t m;

		if (n->type != TP_FABRIC_SWITCH ||
		    (leaves_only && n->level != 1))
			continue;
		m = tp_fabric_find_node(y, n->name);
		if (m != TP_FABRIC_NONE &&
		    y->nodes[m].type == TP_FABRIC_SWITCH &&
		    (!leaves_only || y->nodes[m].level == 1))
			continue;
		if (n->level == 1) {
			uint32_t c = x->leaf_host_start[n->leaf + 1] -
			             x->leaf_host_start[n->leaf];

			rc = tp_fabric_findings_add(
			    out, kind, err, "%s leaf %s (%" PRIu32 " host%s)",
			    verb, n->name, c, c == 1 ? "" : "s");
		} else {
			rc = tp_fabric_findings_add(out, kind, err,
			                            "%s switch %s (level %d)",
			                            verb, n->name, n->level);
		}
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

tp_status tp_fabric_diff(const tp_fabric *x, const tp_fabric *y,
                         tp_fabric_findings *out, tp_error *err)
{
	bool ports = x->has_ports && y->has_ports;
	tp_status rc;
	struct pair *px = NULL, *py = NULL;
	size_t nx = 0, ny = 0;
	uint32_t pod_changes = 0;

	if (!x->finished || !y->finished)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "fabric diff: fabric not finished");
	if ((rc = diff_switches(x, y, !ports, TP_FINDING_SWITCH_GONE,
	                        "gone:", out, err)) != TP_OK ||
	    (rc = diff_switches(y, x, !ports, TP_FINDING_SWITCH_NEW,
	                        "new:", out, err)) != TP_OK)
		return rc;
	for (uint32_t h = 0; h < x->host_count; h++) {
		const tp_fabric_host *a = &x->hosts[h];
		uint32_t m = tp_fabric_find_host(y, a->name);

		if (m == TP_FABRIC_NONE)
			rc = tp_fabric_findings_add(
			    out, TP_FINDING_HOST_GONE, err,
			    "gone: host %s (was on %s)", a->name,
			    leaf_name_of(x, a));
		else if (strcmp(leaf_name_of(x, a),
		                leaf_name_of(y, &y->hosts[m])) != 0)
			rc = tp_fabric_findings_add(
			    out, TP_FINDING_HOST_MOVED, err,
			    "moved: host %s from %s to %s", a->name,
			    leaf_name_of(x, a), leaf_name_of(y, &y->hosts[m]));
		if (rc != TP_OK)
			return rc;
	}
	for (uint32_t h = 0; h < y->host_count; h++) {
		const tp_fabric_host *b = &y->hosts[h];

		if (tp_fabric_find_host(x, b->name) == TP_FABRIC_NONE &&
		    (rc = tp_fabric_findings_add(out, TP_FINDING_HOST_NEW, err,
		                                 "new: host %s on %s", b->name,
		                                 leaf_name_of(y, b))) != TP_OK)
			return rc;
	}
	/* pod grouping of the leaves both know */
	for (uint32_t a = 0; a < x->leaf_count; a++) {
		const char *an = x->nodes[x->leaves[a]].name;
		uint32_t ya = tp_fabric_find_node(y, an);

		if (ya == TP_FABRIC_NONE || y->nodes[ya].leaf == TP_FABRIC_NONE)
			continue;
		for (uint32_t b = a + 1; b < x->leaf_count; b++) {
			const char *bn = x->nodes[x->leaves[b]].name;
			uint32_t yb = tp_fabric_find_node(y, bn);
			bool before, after;

			if (yb == TP_FABRIC_NONE ||
			    y->nodes[yb].leaf == TP_FABRIC_NONE)
				continue;
			before = x->leaf_pod[a] == x->leaf_pod[b];
			after = y->leaf_pod[y->nodes[ya].leaf] ==
			        y->leaf_pod[y->nodes[yb].leaf];
			if (before == after)
				continue;
			if (pod_changes++ < LIST_MAX &&
			    (rc = tp_fabric_findings_add(
			         out, TP_FINDING_POD_CHANGED, err,
			         "pods: leaves %s and %s %s", an, bn,
			         before ? "were in one pod, now are not"
			                : "were in different pods, now "
			                  "share one")) != TP_OK)
				return rc;
		}
	}
	if (pod_changes > LIST_MAX &&
	    (rc = tp_fabric_findings_add(out, TP_FINDING_POD_CHANGED, err,
	                                 "pods: ... and %" PRIu32
	                                 " more leaf pairs regrouped",
	                                 pod_changes - LIST_MAX)) != TP_OK)
		return rc;
	if (!ports)
		return TP_OK;
	if ((rc = cable_pairs(x, &px, &nx, err)) != TP_OK ||
	    (rc = cable_pairs(y, &py, &ny, err)) != TP_OK)
		goto out;
	for (size_t i = 0, j = 0; i < nx || j < ny;) {
		int c = i == nx ? 1 : j == ny ? -1 : cmp_pair(&px[i], &py[j]);

		if (c < 0) {
			/* links of a vanished node were reported with it */
			if (node_kept(y, px[i].a) && node_kept(y, px[i].b))
				rc = tp_fabric_findings_add(
				    out, TP_FINDING_LINK_GONE, err,
				    "gone: %" PRIu32 " cable%s %s - %s",
				    px[i].count, px[i].count == 1 ? "" : "s",
				    px[i].a, px[i].b);
			i++;
		} else if (c > 0) {
			if (node_kept(x, py[j].a) && node_kept(x, py[j].b))
				rc = tp_fabric_findings_add(
				    out, TP_FINDING_LINK_NEW, err,
				    "new: %" PRIu32 " cable%s %s - %s",
				    py[j].count, py[j].count == 1 ? "" : "s",
				    py[j].a, py[j].b);
			j++;
		} else {
			if (px[i].count != py[j].count)
				rc = tp_fabric_findings_add(
				    out, TP_FINDING_LINK_COUNT, err,
				    "cables %s - %s: %" PRIu32 " -> %" PRIu32,
				    px[i].a, px[i].b, px[i].count, py[j].count);
			i++;
			j++;
		}
		if (rc != TP_OK)
			goto out;
	}
out:
	free(px);
	free(py);
	return rc;
}

const char *tp_fabric_port_rate(const tp_fabric_port *port, char *buf,
                                size_t len)
{
	static const struct {
		uint32_t mbps;
		const char *name;
	} speeds[] = {
	    {2500, "SDR"},    {5000, "DDR"},   {10000, "QDR"},
	    {10312, "FDR10"}, {14062, "FDR"},  {25781, "EDR"},
	    {53125, "HDR"},   {106250, "NDR"}, {212500, "XDR"},
	};
	const char *s = NULL;

	if (len == 0)
		return "";
	buf[0] = '\0';
	if (port == NULL || port->width_lanes == 0 || port->lane_mbps == 0)
		return buf;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].mbps == port->lane_mbps)
			s = speeds[i].name;
	if (s != NULL)
		snprintf(buf, len, "%ux%s", port->width_lanes, s);
	else
		snprintf(buf, len, "%ux%" PRIu32 "Mb/s", port->width_lanes,
		         port->lane_mbps);
	return buf;
}
