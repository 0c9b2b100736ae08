/*
 * policy.h: the placement policies a job can ask for or an admin can set.
 *
 *   auto    let the site default (topoplace.conf) decide
 *   leaf    whole leaf switches for the job
 *   shared  leaves shared only with compatible jobs
 *   pack    fewest leaves
 *   spread  most leaves
 *   off     plain Slurm placement
 */
#ifndef TP_POLICY_H
#define TP_POLICY_H

#include "tp_error.h"

typedef enum tp_placement {
	TP_PLACEMENT_AUTO = 0,
	TP_PLACEMENT_LEAF,
	TP_PLACEMENT_SHARED,
	TP_PLACEMENT_PACK,
	TP_PLACEMENT_SPREAD,
	TP_PLACEMENT_OFF,
} tp_placement;

/* The accepted spellings, for help texts: "auto|leaf|shared|pack|spread|off". */
#define TP_PLACEMENT_CHOICES "auto|leaf|shared|pack|spread|off"

/*
 * Parse a placement policy name (exact, lower case).  On failure returns
 * TP_ERR_INVALID and says which text was refused and what is accepted.
 */
tp_status tp_placement_parse(const char *text, tp_placement *placement,
			     tp_error *err);

/* The canonical name of @placement ("leaf", ...). */
const char *tp_placement_name(tp_placement placement);

/*
 * How the fabric routes, as far as placement cares (issue #15):
 *   adaptive  switches may send any packet up any uplink: every job with
 *             traffic on a leaf (an I/O server's included) shares its
 *             uplinks.  Also the safe assumption when nobody says.
 *   static    destination-based tables (OpenSM ftree/updn on a fat tree,
 *             D-mod-K): a destination's port picks the links towards it,
 *             so the links of an I/O server's port carry its traffic only
 *             and a job on the rest of its leaf shares none of them.
 */
typedef enum tp_routing {
	TP_ROUTING_ADAPTIVE = 0,
	TP_ROUTING_STATIC,
} tp_routing;

#define TP_ROUTING_CHOICES "adaptive|static"

/* Parse "adaptive" or "static"; TP_ERR_INVALID names the text. */
tp_status tp_routing_parse(const char *text, tp_routing *routing,
			   tp_error *err);

/* "adaptive", "static", or "invalid". */
const char *tp_routing_name(tp_routing routing);

#endif /* TP_POLICY_H */
