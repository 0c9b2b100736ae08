/*
 * cost.c: hop-bytes, hop classes, leaf uplink loads and the node-aware
 * max-rate prediction of a rank -> host mapping, and the per-link load of
 * traffic over a fabric's routes.
 */
#include "tp_config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

tp_cost_params tp_cost_default_params(void)
{
	/* Bienz et al., Table 1: intra-node and inter-node columns. */
	tp_cost_params p = {
	    .short_max_bytes = 512,
	    .eager_max_bytes = 8192,
	    .node =
	        {
	            [TP_COST_SHORT] = {8.3e-07, 4.8e08, INFINITY},
	            [TP_COST_EAGER] = {1.2e-06, 9.6e08, INFINITY},
	            [TP_COST_REND] = {2.5e-06, 6.2e09, INFINITY},
	        },
	    .net =
	        {
	            [TP_COST_SHORT] = {2.3e-06, 1.3e09, INFINITY},
	            [TP_COST_EAGER] = {7.0e-06, 7.5e08, INFINITY},
	            [TP_COST_REND] = {3.0e-06, 2.9e09, 6.6e09},
	        },
	    .queue_gamma_s = 8.4e-09,
	    .contention_delta_s_per_byte = 1.0e-10,
	    .leaf_uplinks = 1,
	};

	return p;
}

/* ---- parameter file ------------------------------------------------- */

enum key_kind {
	KEY_ALPHA,
	KEY_RATE,
	KEY_INJECTION,
	KEY_NONNEG,
	KEY_BYTES,
	KEY_COUNT
};

struct key {
	char name[40];
	enum key_kind kind;
	double *real;
	uint64_t *whole;
	uint32_t *small;
};

static const char *const proto_name[TP_COST_PROTOCOLS] = {"short", "eager",
                                                          "rend"};

/* The table of keys, pointing into @p; returns how many. */
static size_t key_table(tp_cost_params *p, struct key *keys)
{
	size_t n = 0;

	keys[n++] = (struct key){"short_max_bytes", KEY_BYTES, NULL,
	                         &p->short_max_bytes, NULL};
	keys[n++] = (struct key){"eager_max_bytes", KEY_BYTES, NULL,
	                         &p->eager_max_bytes, NULL};
	for (int k = 0; k < TP_COST_PROTOCOLS; k++) {
		struct key *x;

		x = &keys[n++];
		*x = (struct key){"", KEY_ALPHA, &p->node[k].alpha_s, NULL,
		                  NULL};
		snprintf(x->name, sizeof(x->name), "node.%s.alpha_s",
		         proto_name[k]);
		x = &keys[n++];
		*x = (struct key){"", KEY_RATE, &p->node[k].rate_Bps, NULL,
		                  NULL};
		snprintf(x->name, sizeof(x->name), "node.%s.rate_Bps",
		         proto_name[k]);
		x = &keys[n++];
		*x =
		    (struct key){"", KEY_ALPHA, &p->net[k].alpha_s, NULL, NULL};
		snprintf(x->name, sizeof(x->name), "net.%s.alpha_s",
		         proto_name[k]);
		x = &keys[n++];
		*x =
		    (struct key){"", KEY_RATE, &p->net[k].rate_Bps, NULL, NULL};
		snprintf(x->name, sizeof(x->name), "net.%s.rate_Bps",
		         proto_name[k]);
		x = &keys[n++];
		*x = (struct key){"", KEY_INJECTION, &p->net[k].injection_Bps,
		                  NULL, NULL};
		snprintf(x->name, sizeof(x->name), "net.%s.injection_Bps",
		         proto_name[k]);
	}
	keys[n++] = (struct key){"queue_gamma_s", KEY_NONNEG, &p->queue_gamma_s,
	                         NULL, NULL};
	keys[n++] = (struct key){"contention_delta_s_per_byte", KEY_NONNEG,
	                         &p->contention_delta_s_per_byte, NULL, NULL};
	keys[n++] = (struct key){"leaf_uplinks", KEY_COUNT, NULL, NULL,
	                         &p->leaf_uplinks};
	return n;
}

#define KEY_MAX 32

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static tp_status set_value(const char *name, size_t line, struct key *k,
                           const char *value, tp_error *err)
{
	char *end;

	if (k->kind == KEY_BYTES || k->kind == KEY_COUNT) {
		unsigned long long v;

		if (*value < '0' || *value > '9')
			goto bad_number;
		errno = 0;
		v = strtoull(value, &end, 10);
		if (errno || *end)
			goto bad_number;
		if (k->kind == KEY_COUNT) {
			if (v == 0 || v > UINT32_MAX)
				return tp_error_set(err, TP_ERR_PARSE,
				                    "%s: line %zu: %s must be "
				                    "1..%u",
				                    name, line, k->name,
				                    UINT32_MAX);
			*k->small = (uint32_t)v;
		} else {
			*k->whole = v;
		}
		return TP_OK;
	}
	if (k->kind == KEY_INJECTION &&
	    (!strcmp(value, "inf") || !strcmp(value, "infinity"))) {
		*k->real = INFINITY;
		return TP_OK;
	}
	errno = 0;
	double v = strtod(value, &end);

	if (errno || end == value || *end || !isfinite(v))
		goto bad_number;
	if (k->kind == KEY_NONNEG ? v < 0 : v <= 0)
		return tp_error_set(
		    err, TP_ERR_PARSE, "%s: line %zu: %s must be %s, got %s",
		    name, line, k->name, k->kind == KEY_NONNEG ? ">= 0" : "> 0",
		    value);
	*k->real = v;
	return TP_OK;
bad_number:
	return tp_error_set(
	    err, TP_ERR_PARSE, "%s: line %zu: %s: '%s' is not a %s", name, line,
	    k->name, value,
	    k->kind == KEY_BYTES || k->kind == KEY_COUNT ? "whole number"
	                                                 : "finite number");
}

tp_status tp_cost_params_parse(const char *name, const char *text,
                               tp_cost_params *params, tp_error *err)
{
	tp_cost_params p = tp_cost_default_params();
	struct key keys[KEY_MAX];
	size_t seen_line[KEY_MAX] = {0}; /* where each key was given, 0: not */
	size_t nkeys = key_table(&p, keys), line = 0, limits_line = 0;
	const char *cur = text;

	while (*cur) {
		const char *nl = strchr(cur, '\n');
		size_t len = nl ? (size_t)(nl - cur) : strlen(cur);
		char buf[256], *s, *eq, *key, *value;
		size_t k;

		line++;
		if (len >= sizeof(buf))
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: longer than %zu "
			                    "characters",
			                    name, line, sizeof(buf) - 1);
		memcpy(buf, cur, len);
		buf[len] = '\0';
		cur = nl ? nl + 1 : cur + len;
		s = strchr(buf, '#');
		if (s)
			*s = '\0';
		s = trim(buf);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: expected key = "
			                    "value",
			                    name, line);
		*eq = '\0';
		key = trim(s);
		value = trim(eq + 1);
		for (k = 0; k < nkeys; k++)
			if (!strcmp(keys[k].name, key))
				break;
		if (k == nkeys)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: unknown key '%s'",
			                    name, line, key);
		if (seen_line[k])
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: %s given twice",
			                    name, line, key);
		seen_line[k] = line;
		/* The protocol limits are checked as a pair after the last
		 * line: blame the later of them, the one that broke the order.
		 */
		if (keys[k].whole == &p.short_max_bytes ||
		    keys[k].whole == &p.eager_max_bytes)
			limits_line = line;
		if (!*value)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %zu: %s has no value",
			                    name, line, key);
		tp_status rc = set_value(name, line, &keys[k], value, err);

		if (rc != TP_OK)
			return rc;
	}
	/* The defaults are in order, so a broken order means a key was given
	 * and limits_line is its (the later one's) line. */
	if (p.short_max_bytes >= p.eager_max_bytes)
		return tp_error_set(
		    err, TP_ERR_PARSE,
		    "%s: line %zu: short_max_bytes %llu must be "
		    "below eager_max_bytes %llu",
		    name, limits_line, (unsigned long long)p.short_max_bytes,
		    (unsigned long long)p.eager_max_bytes);
	*params = p;
	return TP_OK;
}

tp_status tp_cost_params_read_file(const char *path, tp_cost_params *params,
                                   tp_error *err)
{
	/* A parameter file is a few dozen lines: refuse anything large. */
	enum { MAX_BYTES = 64 * 1024 };
	char *buf;
	size_t got;
	FILE *f;
	tp_status rc;

	f = fopen(path, "r");
	if (!f)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
		                    strerror(errno));
	buf = malloc(MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	}
	got = fread(buf, 1, MAX_BYTES + 1, f);
	if (ferror(f))
		rc = tp_error_set(err, TP_ERR_IO, "%s: read error", path);
	else if (got > MAX_BYTES)
		rc = tp_error_set(err, TP_ERR_LIMIT, "%s: larger than %d bytes",
		                  path, MAX_BYTES);
	else if (memchr(buf, '\0', got))
		rc = tp_error_set(err, TP_ERR_PARSE, "%s: NUL byte", path);
	else {
		buf[got] = '\0';
		rc = tp_cost_params_parse(path, buf, params, err);
	}
	fclose(f);
	free(buf);
	return rc;
}

/* ---- evaluation ----------------------------------------------------- */

/* Sums saturate at UINT64_MAX: a hostile matrix must not wrap to "cheap". */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

uint64_t tp_cost_hop_bytes(const tp_topo *topo, const tp_traffic *traffic,
                           const uint32_t *rank_host)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];

		sum = sat_add(
		    sum,
		    sat_mul(e->bytes, tp_topo_distance(topo, rank_host[e->src],
		                                       rank_host[e->dst])));
	}
	return sum;
}

unsigned tp_cost_hop_class(const tp_topo *topo, uint32_t a, uint32_t b)
{
	uint32_t la, lb;

	if (a == b)
		return TP_COST_ON_NODE;
	la = tp_topo_host_leaf(topo, a);
	lb = tp_topo_host_leaf(topo, b);
	if (la == lb)
		return TP_COST_SAME_LEAF;
	if (tp_topo_leaf_pod(topo, la) == tp_topo_leaf_pod(topo, lb))
		return TP_COST_SAME_POD;
	return TP_COST_OTHER_POD;
}

static int protocol(const tp_cost_params *p, double size_bytes)
{
	if (size_bytes <= (double)p->short_max_bytes)
		return TP_COST_SHORT;
	if (size_bytes <= (double)p->eager_max_bytes)
		return TP_COST_EAGER;
	return TP_COST_REND;
}

tp_status tp_cost_evaluate(const tp_topo *topo, const tp_traffic *traffic,
                           const uint32_t *rank_host,
                           const tp_cost_params *params, tp_cost_report *report,
                           uint64_t *leaf_up_bytes, uint64_t *leaf_down_bytes,
                           tp_error *err)
{
	tp_cost_params p = params ? *params : tp_cost_default_params();
	uint32_t hosts = tp_topo_host_count(topo);
	uint32_t leaves = tp_topo_leaf_count(topo);
	uint32_t n = traffic->ranks;
	uint64_t *up = NULL, *down = NULL, *recv_msgs = NULL;
	uint32_t *ppn = NULL, *senders = NULL, *last_sender = NULL;
	double *time_s = NULL;
	uint8_t *sends_off = NULL;
	tp_status rc = TP_OK;

	memset(report, 0, sizeof(*report));
	report->max_leaf = TP_TOPO_NONE;
	for (uint32_t r = 0; r < n; r++)
		if (rank_host[r] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "cost: rank %u on host index %u, "
			                    "fabric has %u hosts",
			                    r, rank_host[r], hosts);
	up = calloc(leaves, sizeof(*up));
	down = calloc(leaves, sizeof(*down));
	recv_msgs = calloc(n, sizeof(*recv_msgs));
	ppn = calloc(hosts, sizeof(*ppn));
	senders = calloc(n, sizeof(*senders));
	last_sender = malloc((size_t)n * sizeof(*last_sender));
	time_s = calloc(n, sizeof(*time_s));
	sends_off = calloc(n, sizeof(*sends_off));
	if (!up || !down || !recv_msgs || !ppn || !senders || !last_sender ||
	    !time_s || !sends_off) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "cost: out of memory for %u ranks", n);
		goto out;
	}
	for (uint32_t r = 0; r < n; r++)
		last_sender[r] = UINT32_MAX;

	/* Pass 1: classes, links, and who sends off-node (for ppn). */
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];
		uint32_t a = rank_host[e->src], b = rank_host[e->dst];
		int cls = (int)tp_cost_hop_class(topo, a, b);

		report->hop_bytes =
		    sat_add(report->hop_bytes,
		            sat_mul(e->bytes, tp_topo_distance(topo, a, b)));
		report->class_bytes[cls] =
		    sat_add(report->class_bytes[cls], e->bytes);
		report->class_msgs[cls] =
		    sat_add(report->class_msgs[cls], e->msgs);
		if (cls != TP_COST_ON_NODE)
			sends_off[e->src] = 1;
		if (cls >= TP_COST_SAME_POD) {
			uint32_t la = tp_topo_host_leaf(topo, a);
			uint32_t lb = tp_topo_host_leaf(topo, b);

			up[la] = sat_add(up[la], e->bytes);
			down[lb] = sat_add(down[lb], e->bytes);
		}
		recv_msgs[e->dst] =
		    sat_add(recv_msgs[e->dst], e->msgs ? e->msgs : 1);
		/* Entries are sorted by src, so a dst sees each src once. */
		if (last_sender[e->dst] != e->src) {
			last_sender[e->dst] = e->src;
			senders[e->dst]++;
		}
	}
	for (uint32_t r = 0; r < n; r++)
		ppn[rank_host[r]] += sends_off[r];

	/* Pass 2: max-rate time of each sender. */
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];
		uint32_t a = rank_host[e->src], b = rank_host[e->dst];
		double msgs = e->msgs ? (double)e->msgs : 1.0;
		double s = (double)e->bytes / msgs;
		const tp_cost_rate *rate;

		if (a == b) {
			rate = &p.node[protocol(&p, s)];
			time_s[e->src] +=
			    msgs * (rate->alpha_s + s / rate->rate_Bps);
		} else {
			double k = ppn[a] ? (double)ppn[a] : 1.0;
			double bw;

			rate = &p.net[protocol(&p, s)];
			bw = fmin(rate->injection_Bps, k * rate->rate_Bps);
			time_s[e->src] += msgs * (rate->alpha_s + k * s / bw);
		}
	}
	for (uint32_t r = 0; r < n; r++) {
		/* gamma * n^2 per exchange, rounds = received / n. */
		double q =
		    p.queue_gamma_s * (double)senders[r] * (double)recv_msgs[r];

		if (time_s[r] + q > report->maxrate_s + report->queue_s) {
			report->maxrate_s = time_s[r];
			report->queue_s = q;
		}
	}
	for (uint32_t l = 0; l < leaves; l++) {
		uint64_t m = up[l] > down[l] ? up[l] : down[l];

		if (up[l] > report->max_leaf_up_bytes)
			report->max_leaf_up_bytes = up[l];
		if (down[l] > report->max_leaf_down_bytes)
			report->max_leaf_down_bytes = down[l];
		if (m && (report->max_leaf == TP_TOPO_NONE ||
		          m > (up[report->max_leaf] > down[report->max_leaf]
		                   ? up[report->max_leaf]
		                   : down[report->max_leaf])))
			report->max_leaf = l;
	}
	{
		uint64_t busiest =
		    report->max_leaf_up_bytes > report->max_leaf_down_bytes
		        ? report->max_leaf_up_bytes
		        : report->max_leaf_down_bytes;

		report->contention_s = p.contention_delta_s_per_byte *
		                       (double)busiest / (double)p.leaf_uplinks;
	}
	report->predicted_s =
	    report->maxrate_s + report->queue_s + report->contention_s;
	if (leaf_up_bytes)
		memcpy(leaf_up_bytes, up, leaves * sizeof(*up));
	if (leaf_down_bytes)
		memcpy(leaf_down_bytes, down, leaves * sizeof(*down));
out:
	free(up);
	free(down);
	free(recv_msgs);
	free(ppn);
	free(senders);
	free(last_sender);
	free(time_s);
	free(sends_off);
	return rc;
}

/* ---- per-link load over the fabric's routes ------------------------- */

static const char *const stage_names[TP_LINK_STAGES] = {
    [TP_LINK_STAGE_HOST_LEAF] = "host-leaf",
    [TP_LINK_STAGE_LEAF_SPINE] = "leaf-spine",
    [TP_LINK_STAGE_SPINE_CORE] = "spine-core",
    [TP_LINK_STAGE_OTHER] = "other",
};

const char *tp_link_stage_name(tp_link_stage stage)
{
	if ((unsigned)stage < TP_LINK_STAGES)
		return stage_names[stage];
	return "unknown";
}

/* Stage of the direction leaving through @port, and whether it climbs. */
static tp_link_stage port_stage(const tp_fabric *f, uint32_t port, bool *up)
{
	const tp_fabric_port *p = tp_fabric_port_at(f, port);
	const tp_fabric_port *q = tp_fabric_peer(f, port);
	int a, b, lo;

	*up = false;
	if (!p || !q)
		return TP_LINK_STAGE_OTHER;
	a = tp_fabric_node_at(f, p->node)->level;
	b = tp_fabric_node_at(f, q->node)->level;
	*up = b > a;
	lo = a < b ? a : b;
	if (a < 0 || b < 0 || (a - b != 1 && b - a != 1) ||
	    lo >= (int)TP_LINK_STAGE_OTHER)
		return TP_LINK_STAGE_OTHER;
	return (tp_link_stage)lo;
}

const char *tp_link_dir_name(const tp_fabric *f, uint32_t port, char *buf,
                             size_t len)
{
	const tp_fabric_port *p, *q;

	if (!len)
		return buf;
	if (port == TP_FABRIC_NONE || port >= tp_fabric_port_count(f)) {
		snprintf(buf, len, "-");
		return buf;
	}
	p = tp_fabric_port_at(f, port);
	q = tp_fabric_peer(f, port);
	if (!q)
		snprintf(buf, len, "%s[%u]->?",
		         tp_fabric_node_at(f, p->node)->name, p->num);
	else
		snprintf(buf, len, "%s[%u]->%s[%u]",
		         tp_fabric_node_at(f, p->node)->name, p->num,
		         tp_fabric_node_at(f, q->node)->name, q->num);
	return buf;
}

bool tp_link_dir_is_up(const tp_fabric *f, uint32_t port)
{
	bool up;

	if (port == TP_FABRIC_NONE || port >= tp_fabric_port_count(f))
		return false;
	(void)port_stage(f, port, &up);
	return up;
}

static bool port_is_fabric(const tp_fabric *f, uint32_t port)
{
	const tp_fabric_port *p = tp_fabric_port_at(f, port);
	const tp_fabric_port *q = tp_fabric_peer(f, port);

	return p && q &&
	       tp_fabric_node_at(f, p->node)->type == TP_FABRIC_SWITCH &&
	       tp_fabric_node_at(f, q->node)->type == TP_FABRIC_SWITCH;
}

/* An empty load names no port (0 is a real port index). */
static void link_load_empty(tp_link_load *load)
{
	memset(load, 0, sizeof(*load));
	load->max_port = load->max_fabric_port = TP_FABRIC_NONE;
	for (int s = 0; s < TP_LINK_STAGES; s++)
		load->stage[s].max_port = TP_FABRIC_NONE;
}

tp_status tp_link_load_start(const tp_fabric *fabric, const tp_routes *routes,
                             tp_link_load *load, tp_error *err)
{
	link_load_empty(load);
	load->kind = tp_routes_kind_of(routes);
	load->port_count = tp_fabric_port_count(fabric);
	/* + 1: a fabric without ports still gets a valid pointer */
	load->port_bytes =
	    calloc((size_t)load->port_count + 1, sizeof(*load->port_bytes));
	if (!load->port_bytes)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "no memory for the loads of %u ports",
		                    load->port_count);
	return TP_OK;
}

/*
 * The routed path of @src -> @dst into @path (*n directions; 0 when there
 * is nothing to add: no bytes or src == dst).  Both path models start
 * here: the D-mod-K one adds every direction, the spread one only the
 * host links (and the routes' check that the pair has a route).
 */
static tp_status routed_path(const tp_routes *routes, uint32_t src,
                             uint32_t dst, double bytes, uint32_t *path,
                             size_t *n, tp_error *err)
{
	*n = 0;
	if (!(bytes > 0) || src == dst)
		return TP_OK;
	return tp_routes_path(routes, src, dst, path, TP_ROUTE_MAX_HOPS, n,
	                      err);
}

tp_status tp_link_load_add_path(tp_link_load *load, const tp_routes *routes,
                                uint32_t src, uint32_t dst, double bytes,
                                tp_error *err)
{
	uint32_t path[TP_ROUTE_MAX_HOPS];
	size_t n;
	tp_status rc = routed_path(routes, src, dst, bytes, path, &n, err);

	for (size_t k = 0; rc == TP_OK && k < n; k++)
		load->port_bytes[path[k]] += bytes;
	return rc;
}

/* Whether @node reaches leaf switch @leaf going only down. */
static bool reaches_leaf(const tp_fabric *f, uint32_t node, uint32_t leaf,
                         int depth)
{
	const tp_fabric_node *n = tp_fabric_node_at(f, node);

	if (node == leaf)
		return true;
	if (n->level <= 1 || depth <= 0)
		return false;
	for (uint32_t p = 0; p < n->port_count; p++) {
		const tp_fabric_port *peer =
		    tp_fabric_peer(f, n->first_port + p);

		if (peer &&
		    tp_fabric_node_at(f, peer->node)->type ==
		        TP_FABRIC_SWITCH &&
		    tp_fabric_node_at(f, peer->node)->level == n->level - 1 &&
		    reaches_leaf(f, peer->node, leaf, depth - 1))
			return true;
	}
	return false;
}

/* The ports of switch @node toward @leaf: down-links that reach it, or
 * else every up-link; their count. */
static uint32_t spread_next(const tp_fabric *f, uint32_t node, uint32_t leaf,
                            uint32_t *ports, int depth)
{
	const tp_fabric_node *n = tp_fabric_node_at(f, node);
	uint32_t down = 0, up = 0;

	for (int pass = 0; pass < 2 && down == 0; pass++) {
		for (uint32_t p = 0; p < n->port_count; p++) {
			const tp_fabric_port *peer =
			    tp_fabric_peer(f, n->first_port + p);
			const tp_fabric_node *c;

			if (!peer)
				continue;
			c = tp_fabric_node_at(f, peer->node);
			if (c->type != TP_FABRIC_SWITCH)
				continue;
			if (pass == 0 && c->level == n->level - 1 &&
			    reaches_leaf(f, peer->node, leaf, depth - 1))
				ports[down++] = n->first_port + p;
			else if (pass == 1 && c->level == n->level + 1)
				ports[up++] = n->first_port + p;
		}
	}
	return down ? down : up;
}

/* Spread @bytes from switch @node down to leaf switch @leaf. */
static tp_status spread_from(tp_link_load *load, const tp_fabric *f,
                             uint32_t node, uint32_t leaf, double bytes,
                             int depth, tp_error *err)
{
	uint32_t *ports, count;
	tp_status rc = TP_OK;

	if (node == leaf)
		return TP_OK;
	if (depth <= 0)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "spread path: more than %d hops",
		                    TP_ROUTE_MAX_HOPS);
	ports = malloc(tp_fabric_node_at(f, node)->port_count * sizeof(*ports));
	if (!ports)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "no memory for a spread path");
	count = spread_next(f, node, leaf, ports, depth);
	if (count == 0)
		rc = tp_error_set(err, TP_ERR_NOTFOUND,
		                  "spread path: %s has no link toward %s",
		                  tp_fabric_node_at(f, node)->name,
		                  tp_fabric_node_at(f, leaf)->name);
	for (uint32_t i = 0; rc == TP_OK && i < count; i++) {
		load->port_bytes[ports[i]] += bytes / count;
		rc = spread_from(load, f, tp_fabric_peer(f, ports[i])->node,
		                 leaf, bytes / count, depth - 1, err);
	}
	free(ports);
	return rc;
}

tp_status tp_link_load_add_spread_path(tp_link_load *load,
                                       const tp_fabric *fabric,
                                       const tp_routes *routes, uint32_t src,
                                       uint32_t dst, double bytes,
                                       tp_error *err)
{
	uint32_t path[TP_ROUTE_MAX_HOPS];
	size_t n;
	tp_status rc = routed_path(routes, src, dst, bytes, path, &n, err);

	if (rc != TP_OK || n == 0)
		return rc;
	load->port_bytes[path[0]] += bytes;
	if (n == 1)
		return TP_OK;
	load->port_bytes[path[n - 1]] += bytes;
	return spread_from(load, fabric, tp_fabric_peer(fabric, path[0])->node,
	                   tp_fabric_port_at(fabric, path[n - 1])->node, bytes,
	                   TP_ROUTE_MAX_HOPS, err);
}

tp_status tp_link_load_add_routed_path(
    tp_link_load *load, const tp_fabric *fabric, const tp_routes *routes,
    tp_routing routing, uint32_t src, uint32_t dst, double bytes, tp_error *err)
{
	if (routing == TP_ROUTING_ADAPTIVE)
		return tp_link_load_add_spread_path(load, fabric, routes, src,
		                                    dst, bytes, err);
	return tp_link_load_add_path(load, routes, src, dst, bytes, err);
}

void tp_link_load_finish(const tp_fabric *f, tp_link_load *load)
{
	const tp_fabric_port *port0 = tp_fabric_port_at(f, 0);

	load->max_port = load->max_fabric_port = TP_FABRIC_NONE;
	load->max_bytes = load->max_fabric_bytes = 0;
	load->loaded_dirs = load->loaded_links = 0;
	load->link_bytes = load->fabric_bytes = 0;
	memset(load->stage, 0, sizeof(load->stage));
	for (int s = 0; s < TP_LINK_STAGES; s++)
		load->stage[s].max_port = TP_FABRIC_NONE;
	for (uint32_t port = 0; port < load->port_count; port++) {
		double b = load->port_bytes[port];
		const tp_fabric_port *peer;
		tp_link_stage_load *st;
		bool up;

		if (b <= 0)
			continue;
		st = &load->stage[port_stage(f, port, &up)];
		load->loaded_dirs++;
		load->link_bytes += b;
		/* count a cable once: at its lower-indexed loaded port */
		peer = tp_fabric_peer(f, port);
		if (!peer || (uint32_t)(peer - port0) > port ||
		    load->port_bytes[peer - port0] <= 0)
			load->loaded_links++;
		if (up) {
			st->up_bytes += b;
			st->up_dirs++;
		} else {
			st->down_bytes += b;
			st->down_dirs++;
		}
		if (b > st->max_bytes) {
			st->max_bytes = b;
			st->max_port = port;
		}
		if (b > load->max_bytes) {
			load->max_bytes = b;
			load->max_port = port;
		}
		if (port_is_fabric(f, port)) {
			load->fabric_bytes += b;
			if (b > load->max_fabric_bytes) {
				load->max_fabric_bytes = b;
				load->max_fabric_port = port;
			}
		}
	}
}

void tp_link_load_free(tp_link_load *load)
{
	if (!load)
		return;
	free(load->port_bytes);
	link_load_empty(load);
}

/* The traffic between two fabric hosts, all ranks on them summed. */
struct host_pair {
	uint32_t src, dst;
	uint64_t bytes;
};

static int host_pair_cmp(const void *a, const void *b)
{
	const struct host_pair *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return 0;
}

/*
 * rank_host as fabric host indices into @fab_host (one per topo host,
 * resolved by name on first use: a job touches few of a fabric's hosts).
 */
static tp_status ranks_to_fabric(const tp_fabric *fabric, const tp_topo *topo,
                                 uint32_t ranks, const uint32_t *rank_host,
                                 uint32_t *fab_host, tp_error *err)
{
	uint32_t hosts = tp_topo_host_count(topo);

	for (uint32_t h = 0; h < hosts; h++)
		fab_host[h] = TP_FABRIC_NONE;
	for (uint32_t r = 0; r < ranks; r++) {
		uint32_t h = rank_host[r];
		const char *name;

		if (h >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "cost links: rank %u on host index "
			                    "%u, the hierarchy has %u hosts",
			                    r, h, hosts);
		if (fab_host[h] != TP_FABRIC_NONE)
			continue;
		name = tp_topo_host_name(topo, h);
		fab_host[h] = tp_fabric_find_host(fabric, name);
		if (fab_host[h] == TP_FABRIC_NONE)
			return tp_error_set(
			    err, TP_ERR_NOTFOUND,
			    "cost links: rank %u's host '%s' is "
			    "not a host of %s",
			    r, name, tp_fabric_source(fabric));
	}
	return TP_OK;
}

tp_status tp_cost_link_load(const tp_fabric *fabric, const tp_routes *routes,
                            const tp_topo *topo, const tp_traffic *traffic,
                            const uint32_t *rank_host, tp_link_load *load,
                            tp_error *err)
{
	uint32_t *fab_host = NULL;
	struct host_pair *pairs = NULL;
	size_t npairs = 0;
	tp_status rc;

	if (!load)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "cost links: NULL result");
	link_load_empty(load);
	if (!fabric || !routes || !topo || !traffic || !rank_host)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "cost links: NULL fabric, routes, "
		                    "hierarchy, traffic or mapping");
	fab_host =
	    malloc(((size_t)tp_topo_host_count(topo) + 1) * sizeof(*fab_host));
	pairs = malloc((traffic->count + 1) * sizeof(*pairs));
	if (!fab_host || !pairs) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "cost links: no memory for %zu traffic "
		                  "entries",
		                  traffic->count);
		goto out;
	}
	rc = ranks_to_fabric(fabric, topo, traffic->ranks, rank_host, fab_host,
	                     err);
	if (rc != TP_OK)
		goto out;
	/*
	 * Route each pair of hosts once, not each pair of ranks: with many
	 * ranks per host most entries share a path, and a path costs a walk
	 * through the switches.
	 */
	for (size_t i = 0; i < traffic->count; i++) {
		const tp_traffic_entry *e = &traffic->entries[i];
		uint32_t a = fab_host[rank_host[e->src]];
		uint32_t b = fab_host[rank_host[e->dst]];

		if (a != b && e->bytes)
			pairs[npairs++] = (struct host_pair){a, b, e->bytes};
	}
	qsort(pairs, npairs, sizeof(*pairs), host_pair_cmp);
	rc = tp_link_load_start(fabric, routes, load, err);
	if (rc != TP_OK)
		tp_error_prefix(err, "cost links");
	for (size_t i = 0; rc == TP_OK && i < npairs;) {
		uint64_t bytes = 0;
		size_t j = i;

		for (; j < npairs && !host_pair_cmp(&pairs[i], &pairs[j]); j++)
			bytes = sat_add(bytes, pairs[j].bytes);
		rc = tp_link_load_add_path(load, routes, pairs[i].src,
		                           pairs[i].dst, (double)bytes, err);
		if (rc != TP_OK)
			tp_error_prefix(
			    err, "cost links: %s -> %s",
			    tp_fabric_host_at(fabric, pairs[i].src)->name,
			    tp_fabric_host_at(fabric, pairs[i].dst)->name);
		i = j;
	}
	if (rc == TP_OK)
		tp_link_load_finish(fabric, load);
	else
		tp_link_load_free(load);
out:
	free(fab_host);
	free(pairs);
	return rc;
}

void tp_cost_link_contention(tp_cost_report *report,
                             const tp_cost_params *params,
                             const tp_link_load *links)
{
	tp_cost_params p = params ? *params : tp_cost_default_params();

	report->contention_s =
	    p.contention_delta_s_per_byte * links->max_fabric_bytes;
	report->predicted_s =
	    report->maxrate_s + report->queue_s + report->contention_s;
}
