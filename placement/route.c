#include "tp_config.h"

#include "route.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

struct lft {
	uint8_t *ports; /* indexed by LID */
	uint32_t count;
};

struct tp_routes {
	const tp_fabric *fabric;
	tp_routes_kind kind;
	struct lft *lfts; /* per node */
	/* D-mod-k: per switch node, a bitset of leaves reachable downward */
	uint64_t *down;
	size_t words;        /* per switch */
	uint32_t *host_port; /* per host: its CA port on its leaf, or NONE */
};

static tp_status nomem(tp_error *err)
{
	return tp_error_set(err, TP_ERR_NOMEM, "routes: out of memory");
}

static tp_status routes_alloc(const tp_fabric *f, tp_routes_kind kind,
                              tp_routes **out, tp_error *err)
{
	tp_routes *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (r == NULL)
		return nomem(err);
	r->fabric = f;
	r->kind = kind;
	r->lfts = calloc((size_t)tp_fabric_node_count(f) + 1, sizeof(*r->lfts));
	r->host_port = malloc(((size_t)tp_fabric_host_count(f) + 1) *
	                      sizeof(*r->host_port));
	if (r->lfts == NULL || r->host_port == NULL) {
		free(r->lfts);
		free(r->host_port);
		free(r);
		return nomem(err);
	}
	/* each host's port: of a CA cabled to the host's leaf, else any */
	for (uint32_t h = 0; h < tp_fabric_host_count(f); h++)
		r->host_port[h] = TP_FABRIC_NONE;
	for (uint32_t i = 0; i < tp_fabric_node_count(f); i++) {
		const tp_fabric_node *n = tp_fabric_node_at(f, i);
		uint32_t leaf;

		if (n->type != TP_FABRIC_CA || n->host == TP_FABRIC_NONE)
			continue;
		leaf = tp_fabric_host_at(f, n->host)->leaf;
		for (uint32_t p = 0; p < n->port_count; p++) {
			const tp_fabric_port *peer =
			    tp_fabric_peer(f, n->first_port + p);
			uint32_t *slot = &r->host_port[n->host];
			bool on_leaf;

			if (peer == NULL)
				continue;
			on_leaf =
			    tp_fabric_node_at(f, peer->node)->leaf == leaf;
			if (*slot == TP_FABRIC_NONE ||
			    (on_leaf && tp_fabric_node_at(
			                    f, tp_fabric_peer(f, *slot)->node)
			                        ->leaf != leaf))
				*slot = n->first_port + p;
		}
	}
	*out = r;
	return TP_OK;
}

tp_status tp_routes_new(const tp_fabric *f, tp_routes **out, tp_error *err)
{
	return routes_alloc(f, TP_ROUTES_LFT, out, err);
}

void tp_routes_free(tp_routes *r)
{
	if (r == NULL)
		return;
	for (uint32_t i = 0; i < tp_fabric_node_count(r->fabric); i++)
		free(r->lfts[i].ports);
	free(r->lfts);
	free(r->down);
	free(r->host_port);
	free(r);
}

tp_routes_kind tp_routes_kind_of(const tp_routes *r)
{
	return r->kind;
}

tp_status tp_routes_set_lft(tp_routes *r, uint32_t node, const uint8_t *ports,
                            uint32_t lid_count, tp_error *err)
{
	const tp_fabric_node *n = tp_fabric_node_at(r->fabric, node);
	uint8_t *copy;

	if (n == NULL || n->type != TP_FABRIC_SWITCH)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "routes: node %" PRIu32 " is not a switch",
		                    node);
	if (lid_count > 0xC000)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "routes: switch %s: LFT of %" PRIu32
		                    " LIDs exceeds the unicast range",
		                    n->name, lid_count);
	copy = malloc((size_t)lid_count + 1);
	if (copy == NULL)
		return nomem(err);
	memcpy(copy, ports, lid_count);
	free(r->lfts[node].ports);
	r->lfts[node].ports = copy;
	r->lfts[node].count = lid_count;
	return TP_OK;
}

/* Switch levels known to be set: leaves by BFS from hosts. */
tp_status tp_routes_new_dmodk(const tp_fabric *f, tp_routes **out,
                              tp_error *err)
{
	uint32_t nodes = tp_fabric_node_count(f),
	         leaves = tp_fabric_leaf_count(f);
	int max_level = tp_fabric_max_level(f);
	tp_routes *r;
	tp_status rc;

	if ((rc = routes_alloc(f, TP_ROUTES_DMODK, &r, err)) != TP_OK)
		return rc;
	r->words = ((size_t)leaves + 63) / 64;
	if (r->words == 0)
		r->words = 1;
	r->down = calloc((size_t)nodes * r->words + 1, sizeof(*r->down));
	if (r->down == NULL) {
		tp_routes_free(r);
		return nomem(err);
	}
	for (uint32_t k = 0; k < leaves; k++) {
		uint32_t node = tp_fabric_leaf_node(f, k);

		r->down[(size_t)node * r->words + k / 64] |= 1ull << (k % 64);
	}
	/* a switch reaches downward what its children one level down reach */
	for (int level = 2; level <= max_level; level++) {
		for (uint32_t i = 0; i < nodes; i++) {
			const tp_fabric_node *n = tp_fabric_node_at(f, i);

			if (n->type != TP_FABRIC_SWITCH || n->level != level)
				continue;
			for (uint32_t p = 0; p < n->port_count; p++) {
				const tp_fabric_port *peer =
				    tp_fabric_peer(f, n->first_port + p);
				const tp_fabric_node *c;

				if (peer == NULL)
					continue;
				c = tp_fabric_node_at(f, peer->node);
				if (c->type != TP_FABRIC_SWITCH ||
				    c->level != level - 1)
					continue;
				for (size_t w = 0; w < r->words; w++)
					r->down[(size_t)i * r->words + w] |=
					    r->down[(size_t)peer->node *
					                r->words +
					            w];
			}
		}
	}
	*out = r;
	return TP_OK;
}

tp_status tp_routes_read_live(const tp_fabric *f, const char *ca_name,
                              int ca_port, tp_routes **out, tp_error *err)
{
	int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
	struct ibmad_port *port;
	tp_routes *r;
	tp_status rc;

	*out = NULL;
	if (!tp_fabric_has_ports(f))
		return tp_error_set(err, TP_ERR_UNSUPPORTED,
		                    "%s: has no LIDs: routes cannot be read",
		                    tp_fabric_source(f));
	if ((rc = routes_alloc(f, TP_ROUTES_LFT, &r, err)) != TP_OK)
		return rc;
	port = mad_rpc_open_port((char *)ca_name, ca_port, classes, 2);
	if (port == NULL) {
		tp_routes_free(r);
		return tp_error_set(err, TP_ERR_IO,
		                    "routes: cannot open %s port %d for SMP "
		                    "queries (no InfiniBand device?)",
		                    ca_name != NULL ? ca_name : "the first HCA",
		                    ca_port);
	}
	for (uint32_t i = 0; i < tp_fabric_node_count(f); i++) {
		const tp_fabric_node *n = tp_fabric_node_at(f, i);
		uint8_t info[IB_SMP_DATA_SIZE] = {0};
		ib_portid_t id;
		unsigned top = 0;
		uint8_t *table;

		if (n->type != TP_FABRIC_SWITCH)
			continue;
		if (n->lid == 0) {
			rc = tp_error_set(err, TP_ERR_NOTFOUND,
			                  "routes: switch %s has no LID "
			                  "(has a subnet manager run?)",
			                  n->name);
			break;
		}
		memset(&id, 0, sizeof(id));
		ib_portid_set(&id, n->lid, 0, 0);
		if (smp_query_via(info, &id, IB_ATTR_SWITCH_INFO, 0, 0, port) ==
		    NULL) {
			rc = tp_error_set(err, TP_ERR_IO,
			                  "routes: switch %s (LID %u): "
			                  "SwitchInfo query failed",
			                  n->name, n->lid);
			break;
		}
		mad_decode_field(info, IB_SW_LINEAR_FDB_TOP_F, &top);
		if (top >= 0xC000)
			top = 0xBFFF;
		table = calloc((size_t)top + 65, 1);
		if (table == NULL) {
			rc = nomem(err);
			break;
		}
		for (unsigned block = 0; block <= top / 64; block++) {
			if (smp_query_via(table + block * 64, &id,
			                  IB_ATTR_LINEARFORWTBL, block, 0,
			                  port) == NULL) {
				rc = tp_error_set(err, TP_ERR_IO,
				                  "routes: switch %s (LID %u): "
				                  "LFT block %u query failed",
				                  n->name, n->lid, block);
				break;
			}
		}
		if (rc == TP_OK)
			rc = tp_routes_set_lft(r, i, table, top + 1, err);
		free(table);
		if (rc != TP_OK)
			break;
	}
	mad_rpc_close_port(port);
	if (rc != TP_OK) {
		tp_routes_free(r);
		return rc;
	}
	*out = r;
	return TP_OK;
}

static bool reaches_down(const tp_routes *r, uint32_t node, uint32_t leaf)
{
	return (r->down[(size_t)node * r->words + leaf / 64] >> (leaf % 64)) &
	       1u;
}

/* D-mod-k next port at switch @node towards host @dst (CA port @dport). */
static uint32_t dmodk_next(const tp_routes *r, uint32_t node, uint32_t dst,
                           uint32_t dport)
{
	const tp_fabric *f = r->fabric;
	const tp_fabric_node *n = tp_fabric_node_at(f, node);
	uint32_t dleaf = tp_fabric_host_at(f, dst)->leaf;
	uint32_t cand[256], nc = 0;
	bool down;

	if (n->leaf != TP_FABRIC_NONE && n->leaf == dleaf) {
		for (uint32_t p = 0; p < n->port_count; p++) {
			const tp_fabric_port *peer =
			    tp_fabric_peer(f, n->first_port + p);

			if (peer != NULL &&
			    (uint32_t)(peer - tp_fabric_port_at(f, 0)) == dport)
				return n->first_port + p;
		}
		return TP_FABRIC_NONE;
	}
	down = dleaf != TP_FABRIC_NONE && reaches_down(r, node, dleaf);
	for (uint32_t p = 0; p < n->port_count && nc < 256; p++) {
		const tp_fabric_port *peer =
		    tp_fabric_peer(f, n->first_port + p);
		const tp_fabric_node *c;

		if (peer == NULL)
			continue;
		c = tp_fabric_node_at(f, peer->node);
		if (c->type != TP_FABRIC_SWITCH)
			continue;
		if (down ? (c->level == n->level - 1 &&
		            reaches_down(r, peer->node, dleaf))
		         : c->level == n->level + 1)
			cand[nc++] = n->first_port + p;
	}
	return nc == 0 ? TP_FABRIC_NONE : cand[dst % nc];
}

tp_status tp_routes_path(const tp_routes *r, uint32_t src, uint32_t dst,
                         uint32_t *ports, size_t max, size_t *count,
                         tp_error *err)
{
	const tp_fabric *f = r->fabric;
	uint32_t sport, dport, node, dnode;
	const tp_fabric_port *dp;
	size_t n = 0;

	*count = 0;
	if (src >= tp_fabric_host_count(f) || dst >= tp_fabric_host_count(f))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "routes: host index out of range");
	if (src == dst)
		return TP_OK;
	sport = r->host_port[src];
	dport = r->host_port[dst];
	if (sport == TP_FABRIC_NONE || dport == TP_FABRIC_NONE)
		return tp_error_set(
		    err, TP_ERR_NOTFOUND, "routes: host %s is not cabled",
		    tp_fabric_host_at(f, sport == TP_FABRIC_NONE ? src : dst)
		        ->name);
	dp = tp_fabric_port_at(f, dport);
	dnode = dp->node;
	if (r->kind == TP_ROUTES_LFT && dp->lid == 0)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "routes: host %s has no LID",
		                    tp_fabric_host_at(f, dst)->name);
	for (uint32_t out = sport;;) {
		const tp_fabric_port *peer;
		const tp_fabric_node *sw;

		if (n >= max || n >= TP_ROUTE_MAX_HOPS)
			return tp_error_set(err, TP_ERR_LIMIT,
			                    "routes: %s -> %s: no end after "
			                    "%zu hops (routing loop?)",
			                    tp_fabric_host_at(f, src)->name,
			                    tp_fabric_host_at(f, dst)->name, n);
		ports[n++] = out;
		peer = tp_fabric_peer(f, out);
		node = peer->node;
		if (node == dnode)
			break;
		sw = tp_fabric_node_at(f, node);
		if (sw->type != TP_FABRIC_SWITCH)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "routes: %s -> %s: reached %s, "
			                    "not the destination",
			                    tp_fabric_host_at(f, src)->name,
			                    tp_fabric_host_at(f, dst)->name,
			                    sw->name);
		if (r->kind == TP_ROUTES_DMODK) {
			out = dmodk_next(r, node, dst, dport);
		} else {
			const struct lft *t = &r->lfts[node];
			uint8_t pn = dp->lid < t->count ? t->ports[dp->lid] : 0;
			const tp_fabric_port *op =
			    pn == 0 || pn == 255
			        ? NULL
			        : tp_fabric_node_port(f, node, pn);

			out = op == NULL || op->link == TP_FABRIC_NONE
			          ? TP_FABRIC_NONE
			          : (uint32_t)(op - tp_fabric_port_at(f, 0));
		}
		if (out == TP_FABRIC_NONE)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "routes: %s -> %s: switch %s has "
			                    "no usable route to LID %u",
			                    tp_fabric_host_at(f, src)->name,
			                    tp_fabric_host_at(f, dst)->name,
			                    sw->name, dp->lid);
	}
	*count = n;
	return TP_OK;
}

bool tp_routes_path_is_updown(const tp_fabric *f, const uint32_t *ports,
                              size_t count)
{
	bool going_down = false;
	int prev = 0; /* the source CA */

	/* the switch each port belongs to, after the first (a CA port) */
	for (size_t i = 1; i < count; i++) {
		int level =
		    tp_fabric_node_at(f, tp_fabric_port_at(f, ports[i])->node)
		        ->level;

		if (level > prev) {
			if (going_down)
				return false;
		} else if (level < prev) {
			going_down = true;
		} else {
			return false;
		}
		prev = level;
	}
	return true;
}

tp_status tp_routes_load(const tp_routes *r, const tp_route_flow *flows,
                         size_t count, uint64_t *port_bytes, tp_error *err)
{
	const tp_fabric *f = r->fabric;
	uint32_t path[TP_ROUTE_MAX_HOPS];

	for (size_t i = 0; i < count; i++) {
		uint32_t s = tp_fabric_find_host(f, flows[i].src);
		uint32_t d = tp_fabric_find_host(f, flows[i].dst);
		size_t n;
		tp_status rc;

		if (s == TP_FABRIC_NONE || d == TP_FABRIC_NONE)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "traffic entry %zu: unknown host "
			                    "%s",
			                    i + 1,
			                    s == TP_FABRIC_NONE ? flows[i].src
			                                        : flows[i].dst);
		rc = tp_routes_path(r, s, d, path, TP_ROUTE_MAX_HOPS, &n, err);
		if (rc != TP_OK)
			return tp_error_prefix(err, "traffic entry %zu", i + 1);
		for (size_t k = 0; k < n; k++)
			port_bytes[path[k]] += flows[i].bytes;
	}
	return TP_OK;
}
