#include "tp_config.h"

#include "discover.h"
#include "hostlist.h"
#include "tp_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

static tp_status nomem(tp_error *err, const char *what)
{
	return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", what);
}

/* ---- libibnetdisc ------------------------------------------------------ */

struct ptr_index {
	const ibnd_node_t *node;
	uint32_t index;
};

static int cmp_ptr(const void *a, const void *b)
{
	const struct ptr_index *x = a, *y = b;

	if (x->node == y->node)
		return 0;
	return (uintptr_t)x->node < (uintptr_t)y->node ? -1 : 1;
}

static uint8_t lanes_of(unsigned width_code)
{
	switch (width_code) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

static uint32_t lane_mbps_info(const uint8_t *info)
{
	unsigned ext =
	    mad_get_field((void *)info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	unsigned sp =
	    mad_get_field((void *)info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);

	switch (ext) {
	case 1:
		return 14062;
	case 2:
		return 25781;
	case 4:
		return 53125;
	case 8:
		return 106250;
	default:
		break;
	}
	switch (sp) {
	case 1:
		return 2500;
	case 2:
		return 5000;
	case 4:
		return 10000;
	default:
		return 0;
	}
}

/* Copy an ibnd fabric into a new tp_fabric and finish it. */
static tp_status from_ibnd(ibnd_fabric_t *in, const char *source,
                           const tp_fabric_name_map *map, tp_fabric **out,
                           tp_error *err)
{
	struct ptr_index *idx;
	size_t count = 0, k = 0;
	tp_fabric *f;
	tp_status rc;

	*out = NULL;
	for (ibnd_node_t *n = in->nodes; n != NULL; n = n->next)
		count++;
	if (count == 0)
		return tp_error_set(err, TP_ERR_PARSE, "%s: no nodes", source);
	if ((rc = tp_fabric_new(&f, source, true, err)) != TP_OK)
		return rc;
	idx = calloc(count, sizeof(*idx));
	if (idx == NULL) {
		tp_fabric_free(f);
		return nomem(err, source);
	}
	for (ibnd_node_t *n = in->nodes; n != NULL; n = n->next, k++) {
		tp_fabric_node_type type =
		    n->type == IB_NODE_SWITCH   ? TP_FABRIC_SWITCH
		    : n->type == IB_NODE_ROUTER ? TP_FABRIC_ROUTER
		                                : TP_FABRIC_CA;
		char desc[IB_SMP_DATA_SIZE + 1];
		int nports = n->numports < 0 ? 0 : n->numports;

		memcpy(desc, n->nodedesc, IB_SMP_DATA_SIZE);
		desc[IB_SMP_DATA_SIZE] = '\0';
		idx[k].node = n;
		if ((rc = tp_fabric_add_node(f, type, n->guid, (uint32_t)nports,
		                             desc, &idx[k].index, err)) !=
		    TP_OK)
			goto fail;
		for (int p = 1; p <= nports; p++) {
			const ibnd_port_t *port = n->ports[p];
			uint16_t lid;

			if (port == NULL)
				continue;
			lid = port->base_lid;
			if (type == TP_FABRIC_SWITCH && n->ports[0] != NULL)
				lid = n->ports[0]->base_lid;
			if ((rc = tp_fabric_set_port(
			         f, idx[k].index, (uint32_t)p, port->guid, lid,
			         port->lmc,
			         lanes_of(mad_get_field(
			             (void *)port->info, 0,
			             IB_PORT_LINK_WIDTH_ACTIVE_F)),
			         lane_mbps_info(port->info), err)) != TP_OK)
				goto fail;
		}
		if (type == TP_FABRIC_SWITCH && n->ports[0] != NULL &&
		    nports == 0) {
			/* a switch with no external ports: keep its LID */
			(void)0;
		}
	}
	qsort(idx, count, sizeof(*idx), cmp_ptr);
	for (ibnd_node_t *n = in->nodes; n != NULL; n = n->next) {
		struct ptr_index key = {n, 0}, *a, *b;

		a = bsearch(&key, idx, count, sizeof(key), cmp_ptr);
		for (int p = 1; a != NULL && p <= n->numports; p++) {
			const ibnd_port_t *port = n->ports[p], *peer;

			if (port == NULL || port->remoteport == NULL)
				continue;
			peer = port->remoteport;
			key.node = peer->node;
			b = bsearch(&key, idx, count, sizeof(key), cmp_ptr);
			if (b == NULL || peer->portnum < 1 ||
			    peer->portnum > peer->node->numports)
				continue;
			/* each cable once: from its lower (node, port) end */
			if (a->index > b->index ||
			    (a->index == b->index && p >= peer->portnum))
				continue;
			if ((rc = tp_fabric_link_ports(
			         f, a->index, (uint32_t)p, b->index,
			         (uint32_t)peer->portnum, err)) != TP_OK)
				goto fail;
		}
	}
	free(idx);
	if ((rc = tp_fabric_finish(f, map, err)) != TP_OK) {
		tp_fabric_free(f);
		return rc;
	}
	*out = f;
	return TP_OK;
fail:
	free(idx);
	tp_fabric_free(f);
	return rc;
}

tp_status tp_discover_live(const char *ca_name, int ca_port,
                           const char *cache_path,
                           const tp_fabric_name_map *map, tp_fabric **out,
                           tp_error *err)
{
	struct ibnd_config config;
	ibnd_fabric_t *in;
	char source[128];
	tp_status rc;

	*out = NULL;
	/* libibnetdisc's defaults, as ibnetdiscover uses them */
	memset(&config, 0, sizeof(config));
	snprintf(source, sizeof(source), "live discovery via %s port %d",
	         ca_name != NULL ? ca_name : "the first HCA", ca_port);
	in = ibnd_discover_fabric((char *)ca_name, ca_port, NULL, &config);
	if (in == NULL)
		return tp_error_set(err, TP_ERR_IO,
		                    "%s: sweep failed (no InfiniBand device, "
		                    "port down, or no subnet manager)",
		                    source);
	if (cache_path != NULL && ibnd_cache_fabric(in, cache_path, 0) != 0) {
		ibnd_destroy_fabric(in);
		return tp_error_set(err, TP_ERR_IO,
		                    "%s: cannot write the fabric cache "
		                    "(it must not exist yet)",
		                    cache_path);
	}
	rc = from_ibnd(in, source, map, out, err);
	ibnd_destroy_fabric(in);
	return rc;
}

/*
 * ibnetdiscover cache files (libibnetdisc's ibnetdisc_cache.c format,
 * version 1, little endian).  Read here rather than with
 * ibnd_load_fabric: that one trusts every count and port number in the
 * file (a bad port number writes past node->ports) and leaks hash entries,
 * while a cache is exactly what slurmctld reads on every reconfigure.
 */
#define CACHE_MAGIC      0x8FE7832Bu
#define CACHE_VERSION    1u
#define CACHE_HEADER_LEN 28u
#define CACHE_NODE_LEN   (15u + 3u * IB_SMP_DATA_SIZE)
#define CACHE_KEY_LEN    9u
#define CACHE_PORT_LEN   (31u + IB_SMP_DATA_SIZE)

struct cache_node {
	uint64_t guid;
	uint32_t index;
};

struct cache_port {
	uint64_t guid;
	uint32_t num;
	uint32_t node; /* fabric node index */
	uint64_t remote_guid;
	uint32_t remote_num;
	bool remote;
};

static uint64_t le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int cmp_cache_node(const void *a, const void *b)
{
	const struct cache_node *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int cmp_cache_port(const void *a, const void *b)
{
	const struct cache_port *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->num < y->num ? -1 : x->num > y->num;
}

/* An ibnetdiscover cache being read: the file, where, and what it gave. */
struct cache_reader {
	const uint8_t *b;
	size_t len, pos;
	const char *source; /* for messages: "ibnetdiscover cache FILE" */
	tp_fabric *f;
	struct cache_node *nodes; /* sorted by GUID after cache_read_nodes */
	uint32_t node_count;
	struct cache_port
	    *ports; /* the kept ones sorted after cache_read_ports */
	uint32_t port_count, kept;
};

/* The header: magic, version, and counts that fit the file. */
static tp_status cache_read_header(struct cache_reader *r, tp_error *err)
{
	const uint8_t *b = r->b;

	if (r->len < CACHE_HEADER_LEN || le(b, 4) != CACHE_MAGIC)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: not an ibnetdiscover cache (no magic "
		                    "number)",
		                    r->source);
	if (le(b + 4, 4) != CACHE_VERSION)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: cache version %u, only version 1 is "
		                    "known",
		                    r->source, (unsigned)le(b + 4, 4));
	r->node_count = (uint32_t)le(b + 8, 4);
	r->port_count = (uint32_t)le(b + 12, 4);
	r->pos = CACHE_HEADER_LEN;
	/* the counts must fit the file before anything is allocated */
	if ((uint64_t)r->node_count * CACHE_NODE_LEN +
	        (uint64_t)r->port_count * CACHE_PORT_LEN >
	    r->len - CACHE_HEADER_LEN)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: truncated (%zu bytes cannot hold "
		                    "%" PRIu32 " nodes and %" PRIu32 " ports)",
		                    r->source, r->len, r->node_count,
		                    r->port_count);
	if (r->node_count == 0)
		return tp_error_set(err, TP_ERR_PARSE, "%s: no nodes",
		                    r->source);
	return TP_OK;
}

/* Node record @i: added to the fabric, its GUID kept in r->nodes[i]. */
static tp_status cache_read_node(struct cache_reader *r, uint32_t i,
                                 tp_error *err)
{
	const uint8_t *n = r->b + r->pos;
	char desc[IB_SMP_DATA_SIZE + 1];
	unsigned type, nports, stored;

	if (r->len - r->pos < CACHE_NODE_LEN)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: truncated in node %" PRIu32, r->source,
		                    i + 1);
	/* smalid 2, smalmc 1, enhsp0 1, switchinfo 64, guid 8 ... */
	r->nodes[i].guid = le(n + 4 + IB_SMP_DATA_SIZE, 8);
	type = n[12 + IB_SMP_DATA_SIZE];
	nports = n[13 + IB_SMP_DATA_SIZE];
	memcpy(desc, n + 14 + 2 * IB_SMP_DATA_SIZE, IB_SMP_DATA_SIZE);
	desc[IB_SMP_DATA_SIZE] = '\0';
	stored = n[14 + 3 * IB_SMP_DATA_SIZE];
	if (type < IB_NODE_CA || type > IB_NODE_ROUTER)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: node %" PRIu32 " (0x%016" PRIx64
		                    "): node type %u is not CA, switch "
		                    "or router",
		                    r->source, i + 1, r->nodes[i].guid, type);
	r->pos += CACHE_NODE_LEN;
	if ((r->len - r->pos) / CACHE_KEY_LEN < stored)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: truncated in node %" PRIu32, r->source,
		                    i + 1);
	r->pos += (size_t)stored * CACHE_KEY_LEN;
	return tp_fabric_add_node(r->f,
	                          type == IB_NODE_SWITCH   ? TP_FABRIC_SWITCH
	                          : type == IB_NODE_ROUTER ? TP_FABRIC_ROUTER
	                                                   : TP_FABRIC_CA,
	                          r->nodes[i].guid, nports, desc,
	                          &r->nodes[i].index, err);
}

/* Every node record, then their GUIDs sorted and checked unique. */
static tp_status cache_read_nodes(struct cache_reader *r, tp_error *err)
{
	for (uint32_t i = 0; i < r->node_count; i++) {
		tp_status rc = cache_read_node(r, i, err);

		if (rc != TP_OK)
			return rc;
	}
	qsort(r->nodes, r->node_count, sizeof(*r->nodes), cmp_cache_node);
	for (uint32_t i = 1; i < r->node_count; i++)
		if (r->nodes[i].guid == r->nodes[i - 1].guid)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: node GUID 0x%016" PRIx64
			                    " appears twice",
			                    r->source, r->nodes[i].guid);
	return TP_OK;
}

/*
 * Port record @i (at r->pos): set on its node; kept in r->ports for the
 * cabling unless it is a switch's management port 0.
 */
static tp_status cache_read_port(struct cache_reader *r, uint32_t i,
                                 tp_error *err)
{
	const uint8_t *p = r->b + r->pos;
	uint8_t info[IB_SMP_DATA_SIZE];
	struct cache_node key, *owner;
	struct cache_port *cp = &r->ports[r->kept];
	const tp_fabric_node *fn;
	uint16_t lid = (uint16_t)le(p + 10, 2);
	tp_fabric *f = r->f;
	tp_status rc;

	cp->guid = le(p, 8);
	cp->num = p[8];
	memcpy(info, p + 13, IB_SMP_DATA_SIZE);
	key.guid = le(p + 13 + IB_SMP_DATA_SIZE, 8);
	cp->remote = p[21 + IB_SMP_DATA_SIZE] != 0;
	cp->remote_guid = le(p + 22 + IB_SMP_DATA_SIZE, 8);
	cp->remote_num = p[30 + IB_SMP_DATA_SIZE];
	owner =
	    bsearch(&key, r->nodes, r->node_count, sizeof(key), cmp_cache_node);
	if (owner == NULL)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: port %" PRIu32 " belongs to "
		                    "unknown node 0x%016" PRIx64,
		                    r->source, i + 1, key.guid);
	cp->node = owner->index;
	fn = tp_fabric_node_at(f, owner->index);
	if (cp->num > fn->port_count)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: port %" PRIu32 " of node "
		                    "0x%016" PRIx64 " has %" PRIu32 " ports",
		                    r->source, cp->num, key.guid,
		                    fn->port_count);
	if (cp->num == 0) {
		/* switch management port: its LID is the switch's */
		if (fn->type != TP_FABRIC_SWITCH || fn->port_count == 0)
			return TP_OK;
		return tp_fabric_set_port(
		    f, owner->index, 1,
		    tp_fabric_node_port(f, owner->index, 1)->guid, lid, p[12],
		    0, 0, err);
	}
	rc = tp_fabric_set_port(
	    f, owner->index, cp->num, cp->guid,
	    fn->type == TP_FABRIC_SWITCH ? fn->lid : lid, p[12],
	    lanes_of(mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F)),
	    lane_mbps_info(info), err);
	if (rc == TP_OK)
		r->kept++;
	return rc;
}

/* Every port record, the file ending with the last; kept ports unique. */
static tp_status cache_read_ports(struct cache_reader *r, tp_error *err)
{
	if (r->len - r->pos < (size_t)r->port_count * CACHE_PORT_LEN)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: truncated in the port records",
		                    r->source);
	for (uint32_t i = 0; i < r->port_count; i++, r->pos += CACHE_PORT_LEN) {
		tp_status rc = cache_read_port(r, i, err);

		if (rc != TP_OK)
			return rc;
	}
	if (r->pos != r->len)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: %zu bytes after the last port record",
		                    r->source, r->len - r->pos);
	qsort(r->ports, r->kept, sizeof(*r->ports), cmp_cache_port);
	for (uint32_t i = 1; i < r->kept; i++)
		if (cmp_cache_port(&r->ports[i], &r->ports[i - 1]) == 0)
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: port 0x%016" PRIx64 "[%" PRIu32
			                    "] appears twice",
			                    r->source, r->ports[i].guid,
			                    r->ports[i].num);
	return TP_OK;
}

/* The cables: each kept port joined to the remote port it names. */
static tp_status cache_link_ports(struct cache_reader *r, tp_error *err)
{
	for (uint32_t i = 0; i < r->kept; i++) {
		const struct cache_port *cp = &r->ports[i];
		struct cache_port key, *peer;
		tp_status rc;

		if (!cp->remote)
			continue;
		key.guid = cp->remote_guid;
		key.num = cp->remote_num;
		peer = bsearch(&key, r->ports, r->kept, sizeof(key),
		               cmp_cache_port);
		/* an incomplete sweep can name a port it never saved */
		if (peer == NULL)
			continue;
		/* each cable once, from its lower (node, port) end */
		if (peer->node < cp->node ||
		    (peer->node == cp->node && peer->num <= cp->num))
			continue;
		rc = tp_fabric_link_ports(r->f, cp->node, cp->num, peer->node,
		                          peer->num, err);
		if (rc != TP_OK) {
			tp_error_prefix(err, "%s: inconsistent cabling",
			                r->source);
			return rc;
		}
	}
	return TP_OK;
}

tp_status tp_discover_parse_cache(const void *data, size_t len,
                                  const char *origin,
                                  const tp_fabric_name_map *map,
                                  tp_fabric **out, tp_error *err)
{
	char source[512];
	struct cache_reader r = {.b = data, .len = len, .source = source};
	tp_status rc;

	*out = NULL;
	snprintf(source, sizeof(source), "ibnetdiscover cache %s", origin);
	rc = cache_read_header(&r, err);
	if (rc != TP_OK)
		return rc;
	r.nodes = calloc(r.node_count, sizeof(*r.nodes));
	r.ports = calloc((size_t)r.port_count + 1, sizeof(*r.ports));
	if (r.nodes == NULL || r.ports == NULL)
		rc = nomem(err, source);
	if (rc == TP_OK)
		rc = tp_fabric_new(&r.f, source, true, err);
	if (rc == TP_OK)
		rc = cache_read_nodes(&r, err);
	if (rc == TP_OK)
		rc = cache_read_ports(&r, err);
	if (rc == TP_OK)
		rc = cache_link_ports(&r, err);
	if (rc == TP_OK)
		rc = tp_fabric_finish(r.f, map, err);
	if (rc == TP_OK) {
		*out = r.f;
		r.f = NULL;
	}
	tp_fabric_free(r.f);
	free(r.nodes);
	free(r.ports);
	return rc;
}

tp_status tp_discover_load_cache(const char *path,
                                 const tp_fabric_name_map *map, tp_fabric **out,
                                 tp_error *err)
{
	char *data;
	size_t n;
	tp_status rc;

	*out = NULL;
	rc = tp_file_read(path, "ibnetdiscover cache", TP_CACHE_MAX_BYTES,
	                  &data, &n, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_discover_parse_cache(data, n, path, map, out, err);
	free(data);
	return rc;
}

/* ---- topology.conf ----------------------------------------------------- */

struct strvec {
	char **v;
	size_t n, cap;
};

static tp_status strvec_add(struct strvec *s, const char *name, tp_error *err)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 8;
		char **p = realloc(s->v, ncap * sizeof(*p));

		if (p == NULL)
			return nomem(err, "topology.conf");
		s->v = p;
		s->cap = ncap;
	}
	s->v[s->n] = strdup(name);
	if (s->v[s->n] == NULL)
		return nomem(err, "topology.conf");
	s->n++;
	return TP_OK;
}

static void strvec_free(struct strvec *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

struct conf_switch {
	char *name;
	unsigned line;
	struct strvec nodes, switches;
	uint32_t index; /* fabric node */
	uint32_t degree, next_port;
};

struct conf {
	const char *origin;
	struct conf_switch *sw;
	size_t n, cap;
	size_t names; /* all names so far, against the limit */
};

struct add_ctx {
	struct conf *conf;
	struct strvec *vec;
};

static tp_status add_name(void *vctx, const char *name, tp_error *err)
{
	struct add_ctx *c = vctx;

	if (++c->conf->names > TP_TOPOLOGY_CONF_MAX_NAMES)
		return tp_error_set(err, TP_ERR_LIMIT, "more than %u names",
		                    TP_TOPOLOGY_CONF_MAX_NAMES);
	return strvec_add(c->vec, name, err);
}

struct sw_sorted {
	const char *name;
	size_t i;
};

static int cmp_sw(const void *a, const void *b)
{
	return strcmp(((const struct sw_sorted *)a)->name,
	              ((const struct sw_sorted *)b)->name);
}

/* Parse one logical line (NUL-terminated, comments removed). */
static tp_status parse_line(struct conf *c, char *s, unsigned line,
                            tp_error *err)
{
	struct conf_switch sw;
	bool have_name = false;
	tp_status rc = TP_OK;
	char *save = NULL, *tok;

	memset(&sw, 0, sizeof(sw));
	sw.line = line;
	for (tok = strtok_r(s, " \t\r\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(tok, '='), *val;
		struct add_ctx ac = {c, NULL};

		if (eq == NULL) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: \"%s\" is not "
			                  "Key=Value",
			                  c->origin, line, tok);
			goto out;
		}
		*eq = '\0';
		val = eq + 1;
		if (!have_name && strcasecmp(tok, "SwitchName") != 0) {
			if (strcasecmp(tok, "BlockName") == 0)
				rc = tp_error_set(err, TP_ERR_UNSUPPORTED,
				                  "%s: line %u: BlockName "
				                  "(topology/block) is not a "
				                  "tree; only SwitchName lines "
				                  "are read",
				                  c->origin, line);
			else
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: a line must "
				                  "start with SwitchName=, not "
				                  "%s=",
				                  c->origin, line, tok);
			goto out;
		}
		if (*val == '\0') {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: %s= has no value",
			                  c->origin, line, tok);
			goto out;
		}
		if (strcasecmp(tok, "SwitchName") == 0) {
			if (have_name) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: SwitchName "
				                  "given twice",
				                  c->origin, line);
				goto out;
			}
			if (strpbrk(val, "[],") != NULL) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: SwitchName=%s "
				                  "must be one name",
				                  c->origin, line, val);
				goto out;
			}
			sw.name = strdup(val);
			if (sw.name == NULL) {
				rc = nomem(err, c->origin);
				goto out;
			}
			have_name = true;
			continue;
		}
		if (strcasecmp(tok, "Nodes") == 0)
			ac.vec = &sw.nodes;
		else if (strcasecmp(tok, "Switches") == 0)
			ac.vec = &sw.switches;
		else if (strcasecmp(tok, "LinkSpeed") == 0)
			continue; /* Slurm ignores it for placement too */
		else {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: unknown key \"%s\" "
			                  "(expected SwitchName, Switches, "
			                  "Nodes or LinkSpeed)",
			                  c->origin, line, tok);
			goto out;
		}
		if (ac.vec->n > 0) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: %s= given twice",
			                  c->origin, line, tok);
			goto out;
		}
		rc = tp_hostlist_expand(val, TP_TOPOLOGY_CONF_MAX_NAMES,
		                        add_name, &ac, err);
		if (rc != TP_OK) {
			tp_error_prefix(err, "%s: line %u: %s=%s", c->origin,
			                line, tok, val);
			goto out;
		}
	}
	if (!have_name)
		return TP_OK; /* blank line */
	if (sw.nodes.n == 0 && sw.switches.n == 0) {
		rc = tp_error_set(err, TP_ERR_PARSE,
		                  "%s: line %u: switch %s has neither Nodes= "
		                  "nor Switches=",
		                  c->origin, line, sw.name);
		goto out;
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		struct conf_switch *p = realloc(c->sw, ncap * sizeof(*p));

		if (p == NULL) {
			rc = nomem(err, c->origin);
			goto out;
		}
		c->sw = p;
		c->cap = ncap;
	}
	c->sw[c->n++] = sw;
	return TP_OK;
out:
	free(sw.name);
	strvec_free(&sw.nodes);
	strvec_free(&sw.switches);
	return rc;
}

static void conf_free(struct conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->sw[i].name);
		strvec_free(&c->sw[i].nodes);
		strvec_free(&c->sw[i].switches);
	}
	free(c->sw);
}

struct host_ref {
	const char *name;
	uint32_t degree, next_port, index;
};

static int cmp_host_ref(const void *a, const void *b)
{
	return strcmp(((const struct host_ref *)a)->name,
	              ((const struct host_ref *)b)->name);
}

/* Build the fabric from the parsed switches. */
static tp_status build_conf(struct conf *c, tp_fabric **out, tp_error *err)
{
	struct sw_sorted *by_name = NULL;
	struct host_ref *hosts = NULL;
	size_t nhosts = 0, total = 0, uniq = 0;
	tp_fabric *f = NULL;
	tp_status rc;
	char source[512];

	*out = NULL;
	if (c->n == 0)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: no SwitchName= line", c->origin);
	by_name = calloc(c->n, sizeof(*by_name));
	if (by_name == NULL)
		return nomem(err, c->origin);
	for (size_t i = 0; i < c->n; i++) {
		by_name[i].name = c->sw[i].name;
		by_name[i].i = i;
		total += c->sw[i].nodes.n;
	}
	qsort(by_name, c->n, sizeof(*by_name), cmp_sw);
	for (size_t i = 1; i < c->n; i++) {
		if (strcmp(by_name[i].name, by_name[i - 1].name) == 0) {
			size_t a = by_name[i - 1].i, b = by_name[i].i;

			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: switch %s already "
			                  "defined on line %u",
			                  c->origin, c->sw[a > b ? a : b].line,
			                  by_name[i].name,
			                  c->sw[a > b ? b : a].line);
			goto out;
		}
	}
	/* degrees: switch children + parents; hosts once per listing */
	for (size_t i = 0; i < c->n; i++) {
		c->sw[i].degree +=
		    (uint32_t)(c->sw[i].nodes.n + c->sw[i].switches.n);
		for (size_t k = 0; k < c->sw[i].switches.n; k++) {
			struct sw_sorted key = {c->sw[i].switches.v[k], 0},
			                 *hit;

			hit = bsearch(&key, by_name, c->n, sizeof(key), cmp_sw);
			if (hit == NULL) {
				rc =
				    tp_error_set(err, TP_ERR_PARSE,
				                 "%s: line %u: switch %s lists "
				                 "undefined switch %s",
				                 c->origin, c->sw[i].line,
				                 c->sw[i].name, key.name);
				goto out;
			}
			if (hit->i == i) {
				rc = tp_error_set(
				    err, TP_ERR_PARSE,
				    "%s: line %u: switch %s lists "
				    "itself",
				    c->origin, c->sw[i].line, c->sw[i].name);
				goto out;
			}
			c->sw[hit->i].degree++;
		}
	}
	hosts = calloc(total + 1, sizeof(*hosts));
	if (hosts == NULL) {
		rc = nomem(err, c->origin);
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->sw[i].nodes.n; k++)
			hosts[nhosts++].name = c->sw[i].nodes.v[k];
	qsort(hosts, nhosts, sizeof(*hosts), cmp_host_ref);
	for (size_t i = 0; i < nhosts; i++) {
		if (uniq > 0 &&
		    strcmp(hosts[uniq - 1].name, hosts[i].name) == 0)
			hosts[uniq - 1].degree++;
		else {
			hosts[uniq] = hosts[i];
			hosts[uniq++].degree = 1;
		}
	}
	for (size_t i = 0; i < uniq; i++) {
		struct sw_sorted key = {hosts[i].name, 0};

		if (bsearch(&key, by_name, c->n, sizeof(key), cmp_sw) != NULL) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: %s is both a switch and a node",
			                  c->origin, hosts[i].name);
			goto out;
		}
	}
	snprintf(source, sizeof(source), "topology.conf %s", c->origin);
	if ((rc = tp_fabric_new(&f, source, false, err)) != TP_OK)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		if ((rc = tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0,
		                             c->sw[i].degree, c->sw[i].name,
		                             &c->sw[i].index, err)) != TP_OK)
			goto out;
	}
	for (size_t i = 0; i < uniq; i++) {
		if ((rc = tp_fabric_add_node(f, TP_FABRIC_CA, 0,
		                             hosts[i].degree, hosts[i].name,
		                             &hosts[i].index, err)) != TP_OK)
			goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct conf_switch *s = &c->sw[i];

		for (size_t k = 0; k < s->nodes.n; k++) {
			struct host_ref key = {s->nodes.v[k], 0, 0, 0}, *h;

			h = bsearch(&key, hosts, uniq, sizeof(key),
			            cmp_host_ref);
			if (h == NULL) {
				rc = tp_error_set(err, TP_ERR_INTERNAL,
				                  "%s: host index", c->origin);
				goto out;
			}
			if ((rc = tp_fabric_link_ports(
			         f, s->index, ++s->next_port, h->index,
			         ++h->next_port, err)) != TP_OK)
				goto out;
		}
		for (size_t k = 0; k < s->switches.n; k++) {
			struct sw_sorted key = {s->switches.v[k], 0}, *hit;
			struct conf_switch *t;

			hit = bsearch(&key, by_name, c->n, sizeof(key), cmp_sw);
			t = &c->sw[hit->i];
			if ((rc = tp_fabric_link_ports(
			         f, s->index, ++s->next_port, t->index,
			         ++t->next_port, err)) != TP_OK)
				goto out;
		}
	}
	if ((rc = tp_fabric_finish(f, NULL, err)) != TP_OK)
		goto out;
	*out = f;
	f = NULL;
out:
	tp_fabric_free(f);
	free(by_name);
	free(hosts);
	return rc;
}

tp_status tp_discover_parse_topology_conf(const char *text, size_t len,
                                          const char *origin, tp_fabric **out,
                                          tp_error *err)
{
	struct conf c;
	char *logical = NULL;
	size_t cap = 0, used = 0, pos = 0;
	unsigned line = 0, start_line = 0;
	tp_status rc = TP_OK;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.origin = origin;
	if (len > TP_TOPOLOGY_CONF_MAX_BYTES)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: larger than %u bytes", origin,
		                    TP_TOPOLOGY_CONF_MAX_BYTES);
	while (pos < len && rc == TP_OK) {
		size_t end = pos, n;
		bool cont = false;
		const char *hash;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		n = end - pos;
		if (memchr(text + pos, '\0', n) != NULL) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: NUL byte (binary "
			                  "file?)",
			                  origin, line);
			break;
		}
		hash = memchr(text + pos, '#', n);
		if (hash != NULL)
			n = (size_t)(hash - (text + pos));
		while (n > 0 &&
		       (text[pos + n - 1] == '\r' || text[pos + n - 1] == ' ' ||
		        text[pos + n - 1] == '\t'))
			n--;
		if (hash == NULL && n > 0 && text[pos + n - 1] == '\\') {
			cont = true;
			n--;
		}
		if (used == 0)
			start_line = line;
		if (used + n + 2 > cap) {
			size_t ncap = cap ? cap : 256;
			char *p;

			while (ncap < used + n + 2)
				ncap *= 2;
			p = realloc(logical, ncap);
			if (p == NULL) {
				rc = nomem(err, origin);
				break;
			}
			logical = p;
			cap = ncap;
		}
		memcpy(logical + used, text + pos, n);
		used += n;
		logical[used++] = ' ';
		logical[used] = '\0';
		pos = end + 1;
		if (cont && pos < len)
			continue;
		rc = parse_line(&c, logical, start_line, err);
		used = 0;
	}
	free(logical);
	if (rc == TP_OK)
		rc = build_conf(&c, out, err);
	conf_free(&c);
	return rc;
}

tp_status tp_discover_load_topology_conf(const char *path, tp_fabric **out,
                                         tp_error *err)
{
	char *buf;
	size_t n;
	tp_status rc;

	*out = NULL;
	rc =
	    tp_file_read(path, NULL, TP_TOPOLOGY_CONF_MAX_BYTES, &buf, &n, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_discover_parse_topology_conf(buf, n, path, out, err);
	free(buf);
	return rc;
}
