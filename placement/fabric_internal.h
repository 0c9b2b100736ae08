/*
 * fabric_internal.h: the fabric model's representation, shared by the
 * files that build it (fabric.c), finish it (fabric_finish.c), write it out
 * (fabric_output.c) and compare two (fabric_diff.c).  Not installed, not
 * included outside placement/fabric*.c: everyone else reads a fabric
 * through fabric.h.
 */
#ifndef TP_FABRIC_INTERNAL_H
#define TP_FABRIC_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "fabric.h"

/* At most this many individual items are named in one finding. */
#define LIST_MAX 8

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

static inline tp_status tp_fabric_nomem(tp_error *err, const char *what)
{
	return tp_error_set(err, TP_ERR_NOMEM, "fabric: out of memory (%s)",
	                    what);
}

/* A NUL-terminated copy of the @n bytes at @s; NULL when out of memory. */
static inline char *tp_fabric_dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Hops the host -> leaf -> pod hierarchy assumes between two leaves. */
static inline unsigned tp_fabric_tree_distance(const tp_fabric *f, uint32_t a,
                                               uint32_t b)
{
	if (a == b)
		return TP_HOPS_SAME_LEAF;
	return f->leaf_pod[a] == f->leaf_pod[b] ? TP_HOPS_SAME_POD
	                                        : TP_HOPS_OTHER_POD;
}

#endif /* TP_FABRIC_INTERNAL_H */
