/*
 * route.h: the paths traffic takes through a tp_fabric.
 *
 * Routes come from the switches' linear forwarding tables (LFTs) as the
 * subnet manager programmed them, read with libibmad SMP queries, or, where
 * no tables are available (a topology.conf fabric, no SM access), from the
 * fat-tree D-mod-k model: go up through uplink (destination mod uplinks)
 * until a switch above the destination's leaf, then down.  Which one a
 * tp_routes holds is said by tp_routes_kind; modelled routes are an
 * estimate, not what the fabric does.
 *
 * A path is the list of ports the traffic leaves through (port indices of
 * the fabric: tp_fabric_port_at), from the source host's CA port to the
 * last switch port before the destination's CA.  From paths: the bytes
 * each link direction carries under a traffic matrix (tp_routes_load).
 */
#ifndef TP_ROUTE_H
#define TP_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "tp_error.h"

typedef struct tp_routes tp_routes;

typedef enum tp_routes_kind {
	TP_ROUTES_LFT = 1,   /* read from the switches (or set by a caller) */
	TP_ROUTES_DMODK = 2, /* modelled: D-mod-k over the fat tree */
} tp_routes_kind;

/* Longest path followed before a routing loop is declared. */
#define TP_ROUTE_MAX_HOPS 64

/*
 * Routes for @fabric (which must outlive them) with empty tables: fill them
 * with tp_routes_set_lft.  Kind TP_ROUTES_LFT.
 */
tp_status tp_routes_new(const tp_fabric *fabric, tp_routes **routes,
                        tp_error *err);

/* D-mod-k routes for @fabric (no tables needed).  Kind TP_ROUTES_DMODK. */
tp_status tp_routes_new_dmodk(const tp_fabric *fabric, tp_routes **routes,
                              tp_error *err);

/*
 * Read every switch's LFT from the live fabric through HCA @ca_name port
 * @ca_port (NULL, 0: the first) with SMP queries addressed by LID.  Needs
 * a fabric discovered live or from a cache of the same, LID-assigned
 * fabric.  Errors: TP_ERR_IO naming the switch whose table could not be
 * read (e.g. no SM ran: switches without LIDs).
 */
tp_status tp_routes_read_live(const tp_fabric *fabric, const char *ca_name,
                              int ca_port, tp_routes **routes, tp_error *err);

/* Set switch @node's LFT: @ports[lid] = output port (0 or 255: none). */
tp_status tp_routes_set_lft(tp_routes *routes, uint32_t node,
                            const uint8_t *ports, uint32_t lid_count,
                            tp_error *err);

void tp_routes_free(tp_routes *routes);
tp_routes_kind tp_routes_kind_of(const tp_routes *routes);

/*
 * The path from host @src to host @dst (tp_fabric host indices): the ports
 * it leaves through, in order, stored in @ports (capacity @max, at least
 * TP_ROUTE_MAX_HOPS is always enough), their number in @count (0 when src
 * == dst).  Errors: TP_ERR_NOTFOUND (no table entry / no LID: message names
 * the switch and LID), TP_ERR_INTERNAL never; TP_ERR_LIMIT on a loop.
 */
tp_status tp_routes_path(const tp_routes *routes, uint32_t src, uint32_t dst,
                         uint32_t *ports, size_t max, size_t *count,
                         tp_error *err);

/*
 * True when the switches of @ports (a path) climb strictly in level and
 * then descend strictly: the shape of a deadlock-free fat-tree route.
 */
bool tp_routes_path_is_updown(const tp_fabric *fabric, const uint32_t *ports,
                              size_t count);

/* One entry of a traffic matrix. */
typedef struct tp_route_flow {
	const char *src; /* host names (tp_fabric hosts) */
	const char *dst;
	uint64_t bytes;
} tp_route_flow;

/*
 * Add the bytes of each flow to every port its path leaves through:
 * @port_bytes has tp_fabric_port_count entries (the caller's, not zeroed
 * here).  Errors: an unknown host name (TP_ERR_NOTFOUND naming it and the
 * flow's position), an unroutable pair.
 */
tp_status tp_routes_load(const tp_routes *routes, const tp_route_flow *flows,
                         size_t count, uint64_t *port_bytes, tp_error *err);

#endif /* TP_ROUTE_H */
