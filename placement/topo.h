/*
 * topo.h: the host hierarchy that placement decisions are made on.
 *
 * A tp_topo is the fat tree seen from the hosts: every host hangs off one
 * leaf switch, every leaf belongs to one pod (the leaves that share a set of
 * aggregation switches; a 2-level tree is one pod), and pods meet at the
 * core.  The hop distance between two hosts follows from that:
 *
 *   0  same host        2  same leaf        4  same pod        6  other pod
 *
 * unless the builder recorded a measured leaf-to-leaf distance for an
 * irregular fabric (a missing uplink makes two leaves of a pod 6 hops apart).
 *
 * Who builds it: the fabric model (discovered fabric, ibnetdiscover cache,
 * Slurm's topology.conf) and tests/benchmarks (tp_topo_new_fattree).  Who
 * reads it: leaf allocation, I/O server placement, rank remapping, the cost
 * model.  It holds no occupancy: that is per-decision input.
 *
 * Building: tp_topo_new, then add pods, leaves and hosts in any order of
 * pods before their leaves and leaves before their hosts, then
 * tp_topo_finish.  Queries are valid only after tp_topo_finish and are O(1)
 * (name lookup: expected O(1), hashed).  A finished tp_topo is read-only and
 * may be shared between threads.
 */
#ifndef TP_TOPO_H
#define TP_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "tp_error.h"

typedef struct tp_topo tp_topo;

#define TP_TOPO_NONE UINT32_MAX

/* Hop distances of the hierarchy (see above). */
enum {
	TP_HOPS_SAME_HOST = 0,
	TP_HOPS_SAME_LEAF = 2,
	TP_HOPS_SAME_POD = 4,
	TP_HOPS_OTHER_POD = 6,
};

/* A new, empty hierarchy; free with tp_topo_free. */
tp_status tp_topo_new(tp_topo **topo, tp_error *err);

/* Frees @topo and every name it holds (NULL-safe). */
void tp_topo_free(tp_topo *topo);

/*
 * Add a pod, a leaf under pod @pod, a host under leaf @leaf.  Names are
 * copied; host names must be unique (they are Slurm NodeNames).  The new
 * object's index is stored in @index (may be NULL).  Indices are dense and
 * in order of addition.  Fails with TP_ERR_INVALID after tp_topo_finish, on
 * an unknown parent or a duplicate host name.
 */
tp_status tp_topo_add_pod(tp_topo *topo, const char *name, uint32_t *index,
			  tp_error *err);
tp_status tp_topo_add_leaf(tp_topo *topo, const char *name, uint32_t pod,
			   uint32_t *index, tp_error *err);
tp_status tp_topo_add_host(tp_topo *topo, const char *name, uint32_t leaf,
			   uint32_t *index, tp_error *err);

/*
 * Record that leaves @a and @b are @hops apart (measured on an irregular
 * fabric), overriding the hierarchy's 2/4/6.  Only before tp_topo_finish.
 */
tp_status tp_topo_set_leaf_distance(tp_topo *topo, uint32_t a, uint32_t b,
				    unsigned hops, tp_error *err);

/* Index the hierarchy for queries.  A topo with no host is refused. */
tp_status tp_topo_finish(tp_topo *topo, tp_error *err);

/*
 * A regular fat tree for tests and benchmarks: @pods pods of
 * @leaves_per_pod leaves of @hosts_per_leaf hosts, named as
 * topoplace-fattree names them (hosts n0001..., leaves leaf001...,
 * pods pod01...; hosts numbered leaf by leaf).  @pods == 1 is a 2-level tree.
 */
tp_status tp_topo_new_fattree(tp_topo **topo, uint32_t pods,
			      uint32_t leaves_per_pod, uint32_t hosts_per_leaf,
			      tp_error *err);

uint32_t tp_topo_host_count(const tp_topo *topo);
uint32_t tp_topo_leaf_count(const tp_topo *topo);
uint32_t tp_topo_pod_count(const tp_topo *topo);

const char *tp_topo_host_name(const tp_topo *topo, uint32_t host);
const char *tp_topo_leaf_name(const tp_topo *topo, uint32_t leaf);
const char *tp_topo_pod_name(const tp_topo *topo, uint32_t pod);

uint32_t tp_topo_host_leaf(const tp_topo *topo, uint32_t host);
uint32_t tp_topo_leaf_pod(const tp_topo *topo, uint32_t leaf);

/*
 * The hosts of leaf @leaf (in order of addition) / the leaves of pod @pod;
 * the count is stored in @count.  The array belongs to @topo.
 */
const uint32_t *tp_topo_leaf_hosts(const tp_topo *topo, uint32_t leaf,
				   uint32_t *count);
const uint32_t *tp_topo_pod_leaves(const tp_topo *topo, uint32_t pod,
				   uint32_t *count);

/* Host index of NodeName @name, or TP_TOPO_NONE. */
uint32_t tp_topo_find_host(const tp_topo *topo, const char *name);
/* Leaf index of switch @name, or TP_TOPO_NONE. */
uint32_t tp_topo_find_leaf(const tp_topo *topo, const char *name);

/* Hop distance between hosts @a and @b (see the table above). */
unsigned tp_topo_distance(const tp_topo *topo, uint32_t a, uint32_t b);

/* Hop distance between a host on leaf @a and a host on leaf @b (a != b: 2+). */
unsigned tp_topo_leaf_distance(const tp_topo *topo, uint32_t a, uint32_t b);

#endif /* TP_TOPO_H */
