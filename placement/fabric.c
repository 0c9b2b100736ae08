/*
 * fabric.c: the fabric model (fabric.h): building it node by node and port
 * by port, its findings, and the queries every user of a finished fabric
 * makes.  Finishing (levels, leaves, pods, anomalies) is fabric_finish.c;
 * the outputs (tp_topo, topology.conf) fabric_output.c; the comparison of
 * two fabrics fabric_diff.c.
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

/* ---- small helpers ----------------------------------------------------- */

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
		return tp_fabric_nomem(err, "table");
	*array = p;
	*cap = ncap;
	return TP_OK;
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
			return tp_fabric_nomem(err, "finding");
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
		return tp_fabric_nomem(err, "finding");
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
		return tp_fabric_nomem(err, "fabric");
	f->source = strdup(source != NULL ? source : "fabric");
	if (f->source == NULL) {
		free(f);
		return tp_fabric_nomem(err, "fabric");
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
		return tp_fabric_nomem(err, "node description");
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
