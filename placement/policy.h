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

#endif /* TP_POLICY_H */
