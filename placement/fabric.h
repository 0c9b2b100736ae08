/*
 * fabric.h: the InfiniBand fabric as discovered, before it is reduced to the
 * host -> leaf -> pod hierarchy (topo.h) that placement works on.
 *
 * A tp_fabric holds nodes (switches, channel adapters), their ports and the
 * links between ports (parallel links are separate links), with GUIDs, LIDs,
 * node descriptions and link width/speed where the source knows them.  It
 * is filled by a source (discover.h: libibnetdisc, an ibnetdiscover cache,
 * Slurm's topology.conf) through the builder calls below, then finished:
 *
 *   - names: a node's name is its GUID's entry in a name map (ib2slurm's
 *     --node-name-map format) or else the first word of its description;
 *     a CA whose GUID is missing from a given map, or whose description is
 *     empty, is kept but marked unmapped (not a Slurm node);
 *   - levels: breadth-first from the CAs (CA 0, leaf 1, spine/aggregation 2,
 *     core 3); switches no CA reaches stay at level -1;
 *   - hosts: CAs grouped by name (a dual-rail host has two CAs), each on the
 *     leaf it has most links to;
 *   - pods: the connected groups of leaves and level-2 switches;
 *   - leaf-to-leaf hop distances measured over the switch graph, so the
 *     host-to-host distance is O(1) afterwards;
 *   - findings: human-readable notes on what is irregular (host on two
 *     leaves, leaves with different host counts, missing uplinks, unmapped
 *     CAs, unreachable switches) - the model says what it found instead of
 *     failing.
 *
 * A finished tp_fabric is read-only and may be shared between threads.
 */
#ifndef TP_FABRIC_H
#define TP_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topo.h"
#include "tp_error.h"

typedef struct tp_fabric tp_fabric;

#define TP_FABRIC_NONE UINT32_MAX
/* Most leaf switches a fabric may have (the model keeps leaf x leaf hops). */
#define TP_FABRIC_MAX_LEAVES 8192u
/* Hop count recorded for leaves that cannot reach each other. */
#define TP_FABRIC_UNREACHABLE 255u

typedef enum tp_fabric_node_type {
	TP_FABRIC_CA = 1,
	TP_FABRIC_SWITCH = 2,
	TP_FABRIC_ROUTER = 3,
} tp_fabric_node_type;

typedef struct tp_fabric_node {
	tp_fabric_node_type type;
	uint64_t guid; /* node GUID; 0 when the source has none */
	char *desc;    /* node description as read */
	char *name;    /* mapped name (valid after finish) */
	uint16_t lid;  /* switch port 0 / first CA port base LID; 0 unknown */
	uint32_t port_count; /* ports 1..port_count */
	uint32_t first_port; /* index of port 1 in the port table */
	int level;           /* CA 0, switches by BFS, -1 unreached */
	uint32_t pod;        /* pod of a leaf or level-2 switch, else NONE */
	uint32_t host;       /* CA: its host, else NONE */
	uint32_t leaf;       /* leaf switch: its leaf index, else NONE */
	bool mapped;         /* CA: name is a NodeName (see above) */
} tp_fabric_node;

typedef struct tp_fabric_port {
	uint32_t node;
	uint32_t num;  /* port number, 1-based */
	uint64_t guid; /* 0 unknown */
	uint16_t lid;  /* base LID, 0 unknown */
	uint8_t lmc;
	uint8_t width_lanes; /* 1, 2, 4, 8, 12; 0 unknown */
	uint32_t lane_mbps;  /* signalling rate per lane, 0 unknown */
	uint32_t link;       /* index of its link, or NONE */
} tp_fabric_port;

typedef struct tp_fabric_link {
	uint32_t port[2]; /* port indices, port[0] added first */
	uint32_t node[2];
} tp_fabric_link;

typedef struct tp_fabric_host {
	char *name;
	bool mapped;
	uint32_t leaf;       /* leaf index, or NONE (no link to a leaf) */
	uint32_t leaf_count; /* distinct leaves its CAs link to */
	uint32_t ca_count;
} tp_fabric_host;

typedef enum tp_fabric_finding_kind {
	/* from tp_fabric_finish */
	TP_FINDING_HOST_ON_LEAVES = 1, /* host cabled to several leaves */
	TP_FINDING_UNMAPPED,           /* CA that maps to no NodeName */
	TP_FINDING_UNEVEN_LEAVES,      /* leaves with different host counts */
	TP_FINDING_MISSING_UPLINK,     /* fewer uplinks than its peers */
	TP_FINDING_UNLEVELLED,         /* switch no host reaches */
	TP_FINDING_DUPLICATE_NAME,     /* two switches with one name */
	TP_FINDING_DISTANCE, /* leaves farther apart than the tree says */
	TP_FINDING_NO_LEAF,  /* host not cabled to a leaf */
	/* from tp_fabric_diff: "before" -> "after" */
	TP_FINDING_SWITCH_GONE,
	TP_FINDING_SWITCH_NEW,
	TP_FINDING_HOST_GONE,
	TP_FINDING_HOST_NEW,
	TP_FINDING_HOST_MOVED,
	TP_FINDING_POD_CHANGED,
	TP_FINDING_LINK_GONE,
	TP_FINDING_LINK_NEW,
	TP_FINDING_LINK_COUNT,
} tp_fabric_finding_kind;

typedef struct tp_fabric_finding {
	tp_fabric_finding_kind kind;
	char *text; /* one line, no trailing newline */
} tp_fabric_finding;

/* A list of findings (the diff's result); free with tp_fabric_findings_free. */
typedef struct tp_fabric_findings {
	tp_fabric_finding *items;
	size_t count;
	size_t cap;
} tp_fabric_findings;

/* A GUID -> name map (ib2slurm / ibnetdiscover --node-name-map format). */
typedef struct tp_fabric_name_map tp_fabric_name_map;

/* ---- building -------------------------------------------------------- */

/*
 * A new, empty fabric read from @source (copied; used in messages, e.g.
 * "ibnetdiscover cache /var/lib/x.cache").  @has_ports: the source knows
 * real ports, LIDs and parallel links (false for topology.conf).
 */
tp_status tp_fabric_new(tp_fabric **fabric, const char *source, bool has_ports,
                        tp_error *err);

/* Frees @fabric (NULL-safe). */
void tp_fabric_free(tp_fabric *fabric);

/* Add a node with ports 1..@port_count; @desc copied.  Index in @index. */
tp_status tp_fabric_add_node(tp_fabric *fabric, tp_fabric_node_type type,
                             uint64_t guid, uint32_t port_count,
                             const char *desc, uint32_t *index, tp_error *err);

/* Set what is known about port @num of @node (any value may be 0). */
tp_status tp_fabric_set_port(tp_fabric *fabric, uint32_t node, uint32_t num,
                             uint64_t guid, uint16_t lid, uint8_t lmc,
                             uint8_t width_lanes, uint32_t lane_mbps,
                             tp_error *err);

/*
 * Cable port @pa of node @a to port @pb of node @b.  A port has at most one
 * link; linking a port twice or a port to itself is TP_ERR_INVALID.
 */
tp_status tp_fabric_link_ports(tp_fabric *fabric, uint32_t a, uint32_t pa,
                               uint32_t b, uint32_t pb, tp_error *err);

/*
 * Name, level, group and measure the fabric (see the header comment).
 * @map may be NULL (first word of the description).  Fails on allocation
 * failure, more than TP_FABRIC_MAX_LEAVES leaves (TP_ERR_LIMIT), or when
 * called twice.
 */
tp_status tp_fabric_finish(tp_fabric *fabric, const tp_fabric_name_map *map,
                           tp_error *err);

/* ---- name maps ------------------------------------------------------- */

/*
 * Parse a node-name map: lines `0xGUID "name"` or `0xGUID name`, '#'
 * comments, blank lines.  @origin names the input in errors ("file:line:
 * what").  The result is freed with tp_fabric_name_map_free.
 */
tp_status tp_fabric_name_map_parse(const char *text, size_t len,
                                   const char *origin, tp_fabric_name_map **map,
                                   tp_error *err);
tp_status tp_fabric_name_map_load(const char *path, tp_fabric_name_map **map,
                                  tp_error *err);
void tp_fabric_name_map_free(tp_fabric_name_map *map);
/* The name of @guid, or NULL. */
const char *tp_fabric_name_map_lookup(const tp_fabric_name_map *map,
                                      uint64_t guid);

/* ---- queries (after finish unless said otherwise) --------------------- */

const char *tp_fabric_source(const tp_fabric *fabric);
bool tp_fabric_has_ports(const tp_fabric *fabric);

uint32_t tp_fabric_node_count(const tp_fabric *fabric);
const tp_fabric_node *tp_fabric_node_at(const tp_fabric *fabric, uint32_t i);
uint32_t tp_fabric_port_count(const tp_fabric *fabric);
const tp_fabric_port *tp_fabric_port_at(const tp_fabric *fabric, uint32_t i);
/* Port @num of node @node, or NULL. */
const tp_fabric_port *tp_fabric_node_port(const tp_fabric *fabric,
                                          uint32_t node, uint32_t num);
uint32_t tp_fabric_link_count(const tp_fabric *fabric);
const tp_fabric_link *tp_fabric_link_at(const tp_fabric *fabric, uint32_t i);
/* The port at the other end of port index @port, or NULL. */
const tp_fabric_port *tp_fabric_peer(const tp_fabric *fabric, uint32_t port);

/* Highest switch level (1: single-level; 2: leaf-spine; 3: with core). */
int tp_fabric_max_level(const tp_fabric *fabric);
/* Switches at @level. */
uint32_t tp_fabric_switches_at(const tp_fabric *fabric, int level);

uint32_t tp_fabric_host_count(const tp_fabric *fabric);
const tp_fabric_host *tp_fabric_host_at(const tp_fabric *fabric, uint32_t i);
/* Host index of @name, or TP_FABRIC_NONE (binary search). */
uint32_t tp_fabric_find_host(const tp_fabric *fabric, const char *name);
/* Node index of the switch or CA named @name, or TP_FABRIC_NONE. */
uint32_t tp_fabric_find_node(const tp_fabric *fabric, const char *name);

/* Leaves (level-1 switches), sorted by name. */
uint32_t tp_fabric_leaf_count(const tp_fabric *fabric);
uint32_t tp_fabric_leaf_node(const tp_fabric *fabric, uint32_t leaf);
uint32_t tp_fabric_leaf_pod(const tp_fabric *fabric, uint32_t leaf);
/* Hosts whose leaf is @leaf, by name; the array belongs to @fabric. */
const uint32_t *tp_fabric_leaf_hosts(const tp_fabric *fabric, uint32_t leaf,
                                     uint32_t *count);
uint32_t tp_fabric_pod_count(const tp_fabric *fabric);
/* "pod01", ... */
const char *tp_fabric_pod_name(const tp_fabric *fabric, uint32_t pod);

/* Measured hops between hosts on leaves @a and @b (2 when a == b). */
unsigned tp_fabric_leaf_distance(const tp_fabric *fabric, uint32_t a,
                                 uint32_t b);
/* Hops between hosts @a and @b: 0 same, 2 same leaf, 4, 6...; O(1). */
unsigned tp_fabric_host_distance(const tp_fabric *fabric, uint32_t a,
                                 uint32_t b);

/* Findings of tp_fabric_finish; the list belongs to @fabric. */
const tp_fabric_findings *tp_fabric_anomalies(const tp_fabric *fabric);

/* ---- outputs --------------------------------------------------------- */

/*
 * The hierarchy for placement: one pod per fabric pod, its leaves, and the
 * mapped hosts on their leaves; measured leaf distances that differ from
 * the 2/4/6 of the hierarchy are recorded with tp_topo_set_leaf_distance.
 * The result is finished; free with tp_topo_free.  A fabric without mapped
 * hosts is refused (TP_ERR_INVALID).
 */
tp_status tp_fabric_to_topo(const tp_fabric *fabric, tp_topo **topo,
                            tp_error *err);

/*
 * Write a Slurm topology.conf that forms one tree: each leaf with its
 * mapped hosts (hostlist ranges), one switch "podNN" per pod over its
 * leaves when there are several pods, and one "root" over the pods or
 * leaves.  Errors: TP_ERR_IO naming @what (e.g. the file name).
 */
tp_status tp_fabric_write_topology_conf(const tp_fabric *fabric, FILE *out,
                                        const char *what, tp_error *err);


/*
 * What differs between fabric @before and fabric @after, appended to
 * @findings: switches and hosts gone or new, hosts on another leaf, leaves
 * regrouped into other pods, and, when both know real ports, cables between
 * switches gone, new or fewer/more (links of a vanished node are not listed
 * again).  Empty when they agree.
 */
tp_status tp_fabric_diff(const tp_fabric *before, const tp_fabric *after,
                         tp_fabric_findings *findings, tp_error *err);

/* Append a finding (printf-style text) to @findings. */
tp_status tp_fabric_findings_add(tp_fabric_findings *findings,
                                 tp_fabric_finding_kind kind, tp_error *err,
                                 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Frees the items of @findings and empties it (the struct is the caller's). */
void tp_fabric_findings_free(tp_fabric_findings *findings);

/* A stable snake_case name for @kind ("host_moved"), for machine output. */
const char *tp_fabric_finding_kind_name(tp_fabric_finding_kind kind);

/* "4xQDR", "4xHDR", ... for a port, or "" when unknown (static string). */
const char *tp_fabric_port_rate(const tp_fabric_port *port, char *buf,
                                size_t len);

#endif /* TP_FABRIC_H */
