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

/*
 * Where a `leaf` job puts the hosts that do not fill a whole leaf (its
 * host count modulo the leaf size; all of them for a job smaller than a
 * leaf), LeafRemainder in topoplace.conf (alloc.h says how):
 *   whole       on a whole leaf of its own, held: the free hosts left
 *               there wait for nothing (the rule before issue #15).
 *   compatible  on a leaf shared only with compatible jobs (no io_heavy
 *               job, no I/O server, no other job's held hosts), packed
 *               with other remainders; not held.  Whole leaves stay
 *               whole for the jobs that need them.
 */
typedef enum tp_leaf_remainder {
	TP_LEAF_REMAINDER_WHOLE = 0,
	TP_LEAF_REMAINDER_COMPATIBLE,
} tp_leaf_remainder;

#define TP_LEAF_REMAINDER_CHOICES "whole|compatible"

/* Parse "whole" or "compatible"; TP_ERR_INVALID names the text. */
tp_status tp_leaf_remainder_parse(const char *text,
				  tp_leaf_remainder *remainder, tp_error *err);

/* "whole", "compatible", or "invalid". */
const char *tp_leaf_remainder_name(tp_leaf_remainder remainder);

#endif /* TP_POLICY_H */
