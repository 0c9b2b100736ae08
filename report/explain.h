/*
 * explain.h: the explanation of a placement decision, as figures and as a
 * one-page text.
 *
 * What an admin or a user asks after `topoplace place` or a scheduled job:
 * which policy, which job class and why (the figures against the
 * thresholds), which leaves and pods and why (tp_alloc's reason), what the
 * placement is predicted to cost in hop-bytes and communication time
 * against the default (the first free hosts in index order, as cons_tres
 * would hand them out, with ranks in block order), and the I/O servers if
 * any.  tp_explain_compute decides with the same core calls the scheduler
 * makes, so it explains the decision rather than a re-implementation of
 * it, and fills a plain struct; tp_explain_text renders that struct as the
 * page and `topoplace report explain --json` writes it as a document, so
 * the two forms cannot disagree.  Lines of the page are at most
 * TP_EXPLAIN_COLUMNS wide (longer ones are broken at spaces and indented
 * under their label), so it reads in a terminal or a mail.
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
	/* Where a `leaf` job's hosts that fill no whole leaf go (policy.h,
	 * alloc.h; 0: whole). */
	tp_leaf_remainder leaf_remainder;
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
	/* How the fabric routes (0: adaptive), as the scheduler decides
	 * under the site's Routing. */
	tp_routing routing;
	/* I/O servers: none when 0. */
	uint32_t io_servers;
	tp_ioserver_policy io_policy;
	tp_ioserver_scope io_scope;
} tp_explain_input;

/*
 * The explanation.  Pointers marked "borrowed" point into the
 * tp_explain_input it was computed from (or at static strings) and are
 * valid while that input is; arrays marked "owned" are freed by
 * tp_explain_free.  Host, leaf and pod figures are indices into @topo.
 */
typedef struct tp_explain {
	const tp_topo *topo; /* borrowed */
	const char *job;     /* borrowed; "job" when the input named none */
	uint32_t job_id;
	uint32_t nodes;            /* hosts wanted */
	tp_placement policy;       /* as given: resolved, never auto */
	const char *policy_source; /* borrowed; NULL: not said */

	/* The class: classified from the input's summary (@classified, with
	 * tp_jobclass's one-line @class_reason under @thresholds, which came
	 * from @thresholds_source: the input's, else "given by the caller"
	 * or "topoplace's defaults"), or else taken as given. */
	tp_jobclass job_class;
	bool classified;
	char class_reason[TP_JOBCLASS_REASON_MAX]; /* "" when given */
	tp_jobclass_thresholds thresholds;
	const char *thresholds_source; /* borrowed; NULL when given */

	/* The decision: tp_alloc_choose's result (owned).  When !@alloc.met
	 * the job waits (@alloc.reason says why) and nothing below is
	 * computed: every count is 0, every array NULL. */
	tp_alloc_result alloc;

	/* The default: the first usable hosts in index order, at most
	 * @nodes; when there are that many (@default_possible), the leaves
	 * and pods they span (ascending).  All three arrays owned. */
	bool default_possible;
	uint32_t *default_hosts;
	uint32_t default_host_count;
	uint32_t *default_leaves;
	uint32_t default_leaf_count;
	uint32_t *default_pods;
	uint32_t default_pod_count;

	/* Communication: with a profile (@has_traffic: @ranks ranks, @slots
	 * per host); when the job is placed and the default is possible, the
	 * costs (@has_costs): the default (block order on the default hosts)
	 * against topoplace's mapping on the chosen hosts, named by the
	 * remapper's winning candidate (@mapping, static).  The ratios are
	 * topoplace's figure over the default's, NAN when the default's is
	 * 0. */
	bool has_traffic;
	uint32_t ranks;
	uint32_t slots;
	bool has_costs;
	tp_cost_report default_cost;
	tp_cost_report topoplace_cost;
	const char *mapping;
	double hop_bytes_ratio;
	double predicted_ratio;

	/* I/O servers: @io_servers_requested (0: none); placed beside or
	 * among the chosen hosts when the job is placed (@io.servers owned,
	 * @io.server_count of them, @io.reason). */
	uint32_t io_servers_requested;
	tp_ioserver_policy io_policy;
	tp_ioserver_scope io_scope;
	tp_ioserver_result io;
	const char *io_source; /* borrowed; NULL: not said */
} tp_explain;

/*
 * Decide as the scheduler would and fill *@ex (the caller frees it with
 * tp_explain_free whatever the status).  A request that cannot be met now
 * is an explanation too (@ex->alloc.met false).  Errors: TP_ERR_INVALID /
 * TP_ERR_LIMIT from the classifier, the allocator or the mapping (e.g. more
 * ranks than @nodes x @slots: the message says so), TP_ERR_NOMEM.
 */
tp_status tp_explain_compute(const tp_explain_input *in, tp_explain *ex,
                             tp_error *err);

/* Free what tp_explain_compute allocated in @ex (NULL-safe; @ex may be
 * zeroed or partly filled). */
void tp_explain_free(tp_explain *ex);

/*
 * The page for @ex: *text is a new NUL-terminated string the caller frees.
 * Errors: TP_ERR_NOMEM.
 */
tp_status tp_explain_text(const tp_explain *ex, char **text, tp_error *err);

/*
 * tp_explain_compute then tp_explain_text: the page for @in.  Same errors;
 * *text is NULL on failure.
 */
tp_status tp_explain_placement(const tp_explain_input *in, char **text,
                               tp_error *err);

#endif /* TP_EXPLAIN_H */
