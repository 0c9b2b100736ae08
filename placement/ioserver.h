/*
 * ioserver.h: where I/O servers go, and what their traffic does to leaf
 * uplinks.
 *
 * BACKGROUND.md section 2: of "isolated-target" (servers packed on a few
 * dedicated leaves), "spread-target" (one server per leaf, on the leaf's
 * last port) and "random-target", spread was best for both MPI and I/O:
 * with standard fat-tree routing, traffic to port k of every leaf rides the
 * k-th spine of the destination pod, so I/O is confined to a few spines.
 *
 * Scopes: site-wide servers (any usable host of the fabric), or a job's
 * on-demand servers among its own hosts or beside them (free hosts, the
 * job's own leaves first, then its pods, then the rest).
 *
 * Two load models: tp_ioserver_load computes per-leaf-uplink and
 * per-pod-uplink bytes of an n clients -> m servers pattern on the tp_topo
 * hierarchy alone; tp_ioserver_link_load follows the routes of a tp_fabric
 * (read from the switches' forwarding tables, or modelled D-mod-k: see
 * route.h) and gives the bytes on every link direction, so the choices can
 * be compared link by link (tp_ioserver_compare_links).
 */
#ifndef TP_IOSERVER_H
#define TP_IOSERVER_H

#include <stdint.h>

#include "alloc.h"
#include "cost.h"
#include "fabric.h"
#include "policy.h"
#include "route.h"
#include "topo.h"
#include "tp_error.h"

typedef enum tp_ioserver_policy {
	TP_IOSERVER_SPREAD = 0,
	TP_IOSERVER_ISOLATED,
	TP_IOSERVER_RANDOM,
	TP_IOSERVER_STAGGERED,
	TP_IOSERVER_POLICY_COUNT /* not a policy: the number of them */
} tp_ioserver_policy;

#define TP_IOSERVER_CHOICES "spread|isolated|random|staggered"

typedef enum tp_ioserver_scope {
	TP_IOSERVER_SITE = 0, /* anywhere on the fabric */
	TP_IOSERVER_AMONG,    /* on the job's own hosts */
	TP_IOSERVER_BESIDE,   /* on usable hosts that are not the job's */
} tp_ioserver_scope;

typedef struct tp_ioserver_request {
	uint32_t servers; /* >= 1 */
	tp_ioserver_policy policy;
	tp_ioserver_scope scope;
	const uint32_t *job_hosts; /* AMONG and BESIDE: the job's hosts */
	uint32_t job_host_count;
	uint32_t job_id;        /* hosts RESERVED for it count as usable */
	const tp_host_use *use; /* NULL: every host usable */
	uint64_t seed;          /* random */
} tp_ioserver_request;

#define TP_IOSERVER_REASON_MAX 1024

/* Servers chosen (ascending host indices), owned by the result. */
typedef struct tp_ioserver_result {
	uint32_t *servers;
	uint32_t server_count;
	char reason[TP_IOSERVER_REASON_MAX];
} tp_ioserver_result;

/*
 * Place request->servers I/O servers.  spread: one per leaf on the leaf's
 * last usable host (leaves evenly spaced when there are more leaves than
 * servers; further rounds take the next-to-last host); isolated: packed on
 * the fewest leaves, taking hosts from the last port down, leaves with the
 * most usable hosts first (site-wide: the last leaves of the fabric, the
 * usual place of storage racks; beside a job: leaves without the job's hosts
 * in the job's pods first); random: a seeded uniform draw; staggered: the
 * leaves of spread, but the k-th server (in placement order) on the port k
 * places from its leaf's end (counting modulo the leaf's hosts), so that
 * under destination-based routing (D-mod-K: the destination's port picks
 * the uplink) traffic to the servers leaves every client leaf over as many
 * different uplinks as there are servers instead of one.  Deterministic
 * for a given seed.  Fails with TP_ERR_INVALID (0 servers, unknown policy or
 * scope, a job host out of range, no job hosts for AMONG/BESIDE),
 * TP_ERR_UNSUPPORTED when fewer usable hosts than servers exist (the message
 * says how many), TP_ERR_NOMEM.  Free with tp_ioserver_result_free.
 */
tp_status tp_ioserver_place(const tp_topo *topo,
                            const tp_ioserver_request *request,
                            tp_ioserver_result *result, tp_error *err);

void tp_ioserver_result_free(tp_ioserver_result *result);

/*
 * Bytes on leaf and pod uplinks when each of @client_count clients writes
 * @bytes_per_client striped evenly over @server_count servers (reads: swap
 * up and down).  Traffic between hosts of one leaf never leaves it; traffic
 * between leaves of one pod stays below the pod's top.  Arrays are indexed
 * by leaf / pod and owned by @load (tp_io_load_free).
 */
typedef struct tp_io_load {
	double *leaf_up_bytes, *leaf_down_bytes;
	uint32_t leaf_count;
	double *pod_up_bytes, *pod_down_bytes;
	uint32_t pod_count;
	double max_leaf_down_bytes; /* the busiest leaf toward servers */
	uint32_t max_leaf;
	double max_pod_down_bytes;
	uint32_t loaded_leaves;         /* leaves with any uplink traffic */
	double total_leaf_uplink_bytes; /* up + down over all leaves */
} tp_io_load;

/* Fails with TP_ERR_INVALID on no clients/servers or an index out of range. */
tp_status tp_ioserver_load(const tp_topo *topo, const uint32_t *clients,
                           uint32_t client_count, const uint32_t *servers,
                           uint32_t server_count, double bytes_per_client,
                           tp_io_load *load, tp_error *err);

void tp_io_load_free(tp_io_load *load);

/* ---- per-link load over the fabric's routes -------------------------- */

/*
 * The per-link load types are shared with the load of a job's MPI traffic
 * (cost.h: tp_link_load, tp_link_stage); these are their names for I/O.
 */
typedef tp_link_stage tp_io_stage;
#define TP_IO_STAGE_HOST_LEAF  TP_LINK_STAGE_HOST_LEAF
#define TP_IO_STAGE_LEAF_SPINE TP_LINK_STAGE_LEAF_SPINE
#define TP_IO_STAGE_SPINE_CORE TP_LINK_STAGE_SPINE_CORE
#define TP_IO_STAGE_OTHER      TP_LINK_STAGE_OTHER
#define TP_IO_STAGES           TP_LINK_STAGES
typedef tp_link_stage_load tp_io_stage_load;
typedef tp_link_load tp_io_link_load;

/*
 * Per-link load when each of @client_count clients writes
 * @write_bytes_per_client striped evenly over the @server_count servers
 * (client -> server paths) and reads @read_bytes_per_client the same way
 * (server -> client paths), following @routes of @fabric (the routes must
 * belong to that fabric) as @routing takes them (cost.h,
 * tp_link_load_add_routed_path): the routes' paths under static routing;
 * under adaptive routing the routes' host links, and between the leaves
 * each pair's bytes split evenly over the up-links of its minimal paths.  Hosts
 * are tp_fabric host indices (see tp_ioserver_fabric_hosts); a client that is
 * also a server sends its own share nowhere.  Errors: TP_ERR_INVALID (no
 * clients or servers, an index out of range, bytes not finite or negative), the
 * routes' error for a pair that has no route, prefixed with the direction ("I/O
 * write n0001 -> n0016: ..."), TP_ERR_NOMEM.  Free with tp_io_link_load_free.
 */
tp_status tp_ioserver_link_load(const tp_fabric *fabric,
                                const tp_routes *routes, tp_routing routing,
                                const uint32_t *clients, uint32_t client_count,
                                const uint32_t *servers, uint32_t server_count,
                                double write_bytes_per_client,
                                double read_bytes_per_client,
                                tp_io_link_load *load, tp_error *err);

/* tp_link_load_free. */
void tp_io_link_load_free(tp_io_link_load *load);

/* tp_link_stage_name: "host-leaf", "leaf-spine", "spine-core", "other". */
const char *tp_io_stage_name(tp_io_stage stage);

/*
 * Translate @count host indices of @topo into the indices of the same
 * hosts (by name) in @fabric, into the caller's @fabric_hosts.  @role
 * names them in errors ("client", "server").  Fails with TP_ERR_INVALID on
 * an index out of range of @topo, TP_ERR_NOTFOUND naming the host when
 * @fabric has no host of that name.
 */
tp_status tp_ioserver_fabric_hosts(const tp_topo *topo, const tp_fabric *fabric,
                                   const uint32_t *topo_hosts, uint32_t count,
                                   const char *role, uint32_t *fabric_hosts,
                                   tp_error *err);

/*
 * Like tp_ioserver_fabric_hosts from host names: TP_ERR_NOTFOUND names the
 * unknown name and its position ("server #2 'n0099' is not a host of
 * <fabric source>").
 */
tp_status tp_ioserver_fabric_hosts_by_name(const tp_fabric *fabric,
                                           const char *const *names,
                                           uint32_t count, const char *role,
                                           uint32_t *fabric_hosts,
                                           tp_error *err);

/*
 * Which of two I/O loads is predicted to move the I/O faster under
 * @routing: negative when @a, positive when @b, 0 when they tie.  First
 * the busiest direction (host links included: the bottleneck sets the
 * rate); under adaptive routing, between bottlenecks within TP_IO_LOAD_TIE
 * of each other, then the busiest switch-to-switch direction (where one
 * switch input buffer queues packets for many servers; ioserver.c says
 * why that decides there and not under static routing).
 */
int tp_io_link_load_order(const tp_io_link_load *a, const tp_io_link_load *b,
                          tp_routing routing);

/* Relative difference under which two busiest-direction loads tie (the
 * measurements rank within 2%). */
#define TP_IO_LOAD_TIE 0.01

/* One policy of a comparison. */
typedef struct tp_io_policy_links {
	tp_ioserver_policy policy;
	tp_status status; /* TP_OK, or why the policy cannot place servers */
	char error[TP_ERROR_MESSAGE_MAX];
	tp_ioserver_result placement; /* servers as @topo host indices */
	tp_io_link_load load;         /* when status is TP_OK */
	/* 1 for the policies predicted fastest (tp_io_link_load_order),
	 * 1 + the number of placed policies predicted faster otherwise
	 * (ties share a rank); 0 when status is not TP_OK. */
	uint32_t rank;
} tp_io_policy_links;

typedef struct tp_io_link_comparison {
	tp_io_policy_links rows[TP_IOSERVER_POLICY_COUNT]; /* by policy */
	tp_ioserver_policy chosen; /* the request's policy */
	tp_routes_kind kind;
	tp_routing routing; /* the path model the loads were added with */
} tp_io_link_comparison;

/*
 * Place the servers of @request under each policy (spread, isolated,
 * random, staggered; the request's policy is the one marked chosen) on @topo,
 * and give the per-link load of @clients' I/O (@topo host indices) to them over
 * @routes of @fabric as @routing takes them (tp_ioserver_link_load), @fabric
 * being the hierarchy @topo was made from (hosts are matched by name), and
 * each policy's rank by tp_io_link_load_order.  A policy that cannot place the
 * servers (TP_ERR_UNSUPPORTED) keeps its error in its row; any other failure
 * (bad request or clients, a host not in
 * @fabric, no route) fails the whole comparison.  Free with
 * tp_io_link_comparison_free.
 */
tp_status tp_ioserver_compare_links(
    const tp_topo *topo, const tp_fabric *fabric, const tp_routes *routes,
    tp_routing routing, const tp_ioserver_request *request,
    const uint32_t *clients, uint32_t client_count,
    double write_bytes_per_client, double read_bytes_per_client,
    tp_io_link_comparison *cmp, tp_error *err);

void tp_io_link_comparison_free(tp_io_link_comparison *cmp);

tp_status tp_ioserver_policy_parse(const char *text, tp_ioserver_policy *policy,
                                   tp_error *err);

/*
 * As tp_ioserver_policy_parse, and "auto" too (*@is_auto set, @policy
 * untouched: the caller resolves it from the routing with
 * tp_ioserver_policy_for_routing), as the CLIs' --io-policy takes it.
 */
tp_status tp_ioserver_policy_parse_auto(const char *text,
                                        tp_ioserver_policy *policy,
                                        bool *is_auto, tp_error *err);

/*
 * The server policy that keeps I/O bandwidth and MPI isolation under
 * @routing (issue #15): static destination-based routing, staggered (the
 * servers' traffic spreads over the uplinks and no other host shares a
 * server's port); adaptive routing, isolated (any uplink of a server's
 * leaf may carry its traffic, so servers get leaves of their own).
 */
tp_ioserver_policy tp_ioserver_policy_for_routing(tp_routing routing);

/*
 * Why tp_ioserver_policy_for_routing chose its policy for @routing, one
 * clause for where users look (IoServerPolicy=auto, `topoplace place`):
 * "adaptive routing: any uplink of a server's leaf may carry its
 * traffic, so servers get leaves of their own".
 */
const char *tp_ioserver_policy_why(tp_routing routing);

const char *tp_ioserver_policy_name(tp_ioserver_policy policy);

#endif /* TP_IOSERVER_H */
