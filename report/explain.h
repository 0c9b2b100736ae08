/*
 * explain.h: a one-page text explanation of a placement decision.
 *
 * What an admin or a user asks after `topoplace place` or a scheduled job:
 * which policy, which job class and why (the figures against the
 * thresholds), which leaves and pods and why (tp_alloc's reason), what the
 * placement is predicted to cost in hop-bytes and communication time
 * against the default (the first free hosts in index order, as cons_tres
 * would hand them out, with ranks in block order), and the I/O servers if
 * any.  The text is built from the same core calls the scheduler makes, so
 * it explains the decision rather than a re-implementation of it.  Lines
 * are at most TP_EXPLAIN_COLUMNS wide (longer ones are broken at spaces and
 * indented under their label), so the page reads in a terminal or a mail.
 */
#ifndef TP_EXPLAIN_H
#define TP_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "cost.h"
#include "ioserver.h"
#include "jobclass.h"
#include "topo.h"
#include "tp_error.h"
#include "traffic.h"

/* Widest line of the text (a word longer than that stays whole). */
#define TP_EXPLAIN_COLUMNS 78u

typedef struct tp_explain_input {
	const tp_topo *topo;
	const tp_host_use *use; /* one per host; NULL: every host free */
	const char *job;        /* name for the heading (profile, job) */
	uint32_t job_id;
	uint32_t nodes; /* hosts wanted, >= 1 */
	tp_placement policy;
	/* Where the policy, the class thresholds and the I/O servers came
	 * from, said beside them ("DefaultPlacement=auto in
	 * /etc/slurm/topoplace.conf"); NULL: not said. */
	const char *policy_source;
	const char *thresholds_source;
	const char *io_source;
	/* The class: from @summary when given (classified under
	 * @thresholds, NULL: defaults), else @job_class as given. */
	const tp_job_summary *summary;
	const tp_jobclass_thresholds *thresholds;
	tp_jobclass job_class;
	/* Communication (may be NULL: no hop-bytes or time then). */
	const tp_traffic *traffic;
	uint32_t slots; /* ranks per host, >= 1 when @traffic is given */
	const tp_cost_params *params; /* NULL: defaults */
	uint64_t seed;                /* of the mapping and random I/O */
	/* I/O servers: none when 0. */
	uint32_t io_servers;
	tp_ioserver_policy io_policy;
	tp_ioserver_scope io_scope;
} tp_explain_input;

/*
 * Decide as the scheduler would and explain it: *text is a new
 * NUL-terminated string the caller frees.  A request that cannot be met
 * now is explained too (the text says why; no figures).  Errors:
 * TP_ERR_INVALID / TP_ERR_LIMIT from the classifier, the allocator or the
 * mapping (e.g. more ranks than @nodes x @slots: the message says so),
 * TP_ERR_NOMEM.
 */
tp_status tp_explain_placement(const tp_explain_input *in, char **text,
                               tp_error *err);

#endif /* TP_EXPLAIN_H */
