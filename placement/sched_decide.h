/*
 * sched_decide.h: what a scheduler adapter does with one pending job at one
 * scheduling test: narrow its candidates to the hosts its placement allows,
 * let it wait, or leave it to the scheduler's own choice (falling back).
 *
 * Input is plain data the adapter gathered (tp_sched_job_test): what it
 * knows of the job (failed earlier, profile lookup pending, resolved
 * policy and class, the scheduler's node counts, the hosts the user
 * required), the fabric model if any, and a way to get the occupancy
 * (sched_state.h plus what the scheduler does not offer).  Output is a
 * tp_sched_verdict: its kind, the hosts allowed, and the texts the adapter
 * writes where users and admins look (the job's SystemComment and the
 * scheduler's log), worded here so every adapter says the same.
 *
 * The rules, in the order they are applied:
 *
 *   no fabric model       -> FALLBACK (once: PLAIN when it failed before)
 *   failed before         -> PLAIN
 *   profile lookup pending-> WAIT_PROFILE (no policy resolved yet)
 *   policy off            -> PLAIN
 *   more nodes wanted than
 *   the fabric has
 *   scheduler nodes       -> FALLBACK (waiting would be forever)
 *   no occupancy (OOM)    -> FALLBACK
 *   allocator past its
 *   DecisionBudget, or
 *   any allocator error   -> FALLBACK
 *   not met now           -> WAIT (the allocator's reason)
 *   met, but a required
 *   host (-w) is outside
 *   the allowed hosts     -> FALLBACK (the user's explicit choice wins:
 *                            the scheduler would fail the job on every
 *                            pass and it would pend forever)
 *   met                   -> PLACE
 *
 * Every kind but WAIT, WAIT_PROFILE and PLACE leaves the job to the
 * scheduler's own choice, which must still keep off the nodes running
 * whole-leaf jobs hold (tp_sched_for_each_held): those leaves were
 * promised.  After a FALLBACK the adapter marks the job failed and passes
 * that on later tests (PLAIN), so each failure is said once.
 *
 * No state of its own: the same input gives the same verdict (up to the
 * allocator's time budget), and calls on distinct verdicts may run in
 * parallel.  Memory: the allocator's (O(hosts)), owned by the verdict.
 */
#ifndef TP_SCHED_DECIDE_H
#define TP_SCHED_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "jobclass.h"
#include "policy.h"
#include "sched_state.h"
#include "topo.h"
#include "tp_error.h"

typedef enum tp_sched_verdict_kind {
	TP_SCHED_PLACE, /* narrow the candidates to verdict->alloc.hosts */
	TP_SCHED_WAIT,  /* cannot be met now: the job waits */
	TP_SCHED_WAIT_PROFILE, /* its profile lookup has not answered yet */
	TP_SCHED_FALLBACK,     /* newly failed: the scheduler's own choice */
	TP_SCHED_PLAIN,        /* policy off, or failed before: likewise */
} tp_sched_verdict_kind;

/* A SystemComment a waiting job gets stays below this many bytes. */
#define TP_SCHED_COMMENT_MAX (64 + TP_SCHED_NOTE_MAX)
/* A log reason (an allocator error and its context) fits this. */
#define TP_SCHED_LOG_MAX (TP_ERROR_MESSAGE_MAX + 128)

/*
 * One scheduling test of one job.  Pointers are borrowed for the call.
 */
typedef struct tp_sched_job_test {
	/* The job, as far as the adapter knows it. */
	uint32_t job_id;
	bool failed;          /* fell back at an earlier test */
	bool profile_pending; /* its profile lookup has not answered */
	tp_placement policy;  /* resolved (not auto) unless failed/pending */
	tp_jobclass job_class;
	/* The --placement the user gave ("auto" when none, any spelling
	 * the user typed), for the no-model line. */
	const char *asked_placement;
	/* The scheduler's node counts (0: not given); max_nodes 0: none. */
	uint32_t min_nodes, max_nodes, req_nodes;
	/* Hosts the user required (-w), NULL: none.  An index that is no
	 * host of the fabric (UINT32_MAX for a node not on it) is never
	 * allowed. */
	const uint32_t *required_hosts;
	uint32_t required_count;
	/* The whole-leaf wait bound (tp_alloc_request, alloc.h). */
	uint64_t waited_us;
	uint64_t leaf_wait_max_us;
	/* The isolation wait bound: the partition's IsolationWaitMax (0:
	 * none; tp_alloc_request, alloc.h). */
	uint64_t isolation_wait_max_us;
	/* The partition's LeafRemainder (tp_alloc_request, alloc.h). */
	tp_leaf_remainder leaf_remainder;

	/* The site. */
	bool conf_loaded;    /* topoplace.conf loaded (false: not at all) */
	const tp_topo *topo; /* NULL: no fabric model */
	/* The job's partition's DefaultPlacement (conf_loaded only). */
	tp_placement default_placement;
	uint32_t mapped_count; /* hosts of @topo that are scheduler nodes */
	/*
	 * The occupancy, one entry per host of @topo (alloc.h), asked for
	 * at most once and only when the allocator runs: a job that falls
	 * back, waits for its profile or has policy off costs no O(hosts)
	 * copy.  NULL from it: it could not be built (out of memory,
	 * logged by the adapter).
	 */
	const tp_host_use *(*occupancy)(void *ctx);
	void *occupancy_ctx;
	uint64_t budget_us; /* DecisionBudget, 0: none */
	tp_routing routing;
	tp_alloc_clock clock; /* NULL: CLOCK_MONOTONIC (tests inject one) */
	void *clock_data;
} tp_sched_job_test;

/*
 * What to do with the job.  Texts are empty when they do not apply.
 *
 * @log_reason: for the scheduler's log.  FALLBACK: why, as in
 *   "<log_reason>: placed by plain cons_tres" (empty: nothing to log,
 *   e.g. a placement the user did not ask for, or an occupancy whose
 *   failure the adapter logged); PLAIN: "policy=off" or "fallback (see
 *   the error above)" for a debug line (empty: none).  WAIT logs
 *   alloc.reason (longer than this).
 * @note: FALLBACK: why the job is not placed as asked, for its recorded
 *   decision (tp_sched_record_format); PLACE past the isolation bound
 *   (alloc.isolation_wait_passed): "isolation given up after N s (bound
 *   M s): placed by Slurm's default beside any class", for the job's
 *   SystemComment and the scheduler's log when it starts.
 * @waiting_comment: WAIT: the job's SystemComment while it waits
 *   ("topoplace: placement=P class=C waits: ...", the reason cut to whole
 *   clauses).
 * @alloc: PLACE: the allowed hosts, their leaves, the allocator's reason
 *   and leaf_wait_passed; WAIT: its reason.  Owned by the verdict.
 * @nodes: the node count the job was decided for (Slurm's requested
 *   count, at least its minimum, at most its maximum, at least 1).
 * @leaf_waited_s, @leaf_wait_bound_s: PLACE: the job's whole-leaf wait
 *   and its bound, in seconds (meaningful with alloc.leaf_wait_passed).
 */
typedef struct tp_sched_verdict {
	tp_sched_verdict_kind kind;
	char log_reason[TP_SCHED_LOG_MAX];
	char note[TP_SCHED_NOTE_MAX];
	char waiting_comment[TP_SCHED_COMMENT_MAX];
	tp_alloc_result alloc;
	uint32_t nodes;
	uint32_t leaf_waited_s, leaf_wait_bound_s;
} tp_sched_verdict;

/*
 * The node count a job is decided for, from the scheduler's minimum,
 * maximum (0: none) and requested counts: the requested count, raised to
 * the minimum, cut to the maximum, at least 1.
 */
uint32_t tp_sched_nodes_wanted(uint32_t min_nodes, uint32_t max_nodes,
                               uint32_t req_nodes);

/*
 * Decide @test into @verdict (overwritten; call tp_sched_verdict_free on it
 * afterwards, whatever the kind).  Never fails: every error (the
 * allocator's, out of memory) is a FALLBACK saying why.
 */
void tp_sched_decide(const tp_sched_job_test *test, tp_sched_verdict *verdict);

/* Free what @verdict owns and reset it (NULL-safe). */
void tp_sched_verdict_free(tp_sched_verdict *verdict);

#endif /* TP_SCHED_DECIDE_H */
