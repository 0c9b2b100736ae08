/*
 * sched_decide.c: one scheduling test of one job (sched_decide.h).
 *
 * Why the texts are written here and not by the adapter: they are part of
 * the decision.  A user reads the note and the waiting comment to learn why
 * the job is not where it asked or not running yet, and the bed tests and
 * admins grep the log reasons; one wording per rule, beside the rule, keeps
 * them true when a rule changes.
 *
 * Why every failure falls back instead of erroring: the job must run
 * somewhere.  The scheduler's own choice is always a valid answer; only the
 * leaves running whole-leaf jobs hold stay off limits (the adapter applies
 * that for every kind but PLACE and the waits).
 */
#include "tp_config.h"

#include "sched_decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t tp_sched_nodes_wanted(uint32_t min_nodes, uint32_t max_nodes,
                               uint32_t req_nodes)
{
	uint32_t nodes = req_nodes > min_nodes ? req_nodes : min_nodes;

	if (max_nodes && nodes > max_nodes)
		nodes = max_nodes;
	return nodes ? nodes : 1;
}

static void text_set(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf whose cut (a long error message) is expected, not a bug. */
static void text_set(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(out, size, fmt, ap) < 0)
		out[0] = '\0';
	va_end(ap);
}

/* Whether the user asked for a placement, by flag or partition default. */
static bool placement_wanted(const tp_sched_job_test *test)
{
	const char *asked =
	    test->asked_placement ? test->asked_placement : "auto";

	if (!strcmp(asked, "off"))
		return false;
	if (strcmp(asked, "auto"))
		return true;
	return test->conf_loaded && test->default_placement != TP_PLACEMENT_OFF;
}

/*
 * No fabric model (or no topoplace.conf at all): the scheduler's choice,
 * said once per job, in the log only when it asked for a placement.
 */
static void decide_without_model(const tp_sched_job_test *test,
                                 tp_sched_verdict *v)
{
	if (test->failed) {
		v->kind = TP_SCHED_PLAIN;
		return;
	}
	v->kind = TP_SCHED_FALLBACK;
	text_set(v->note, sizeof(v->note), "%s: placed by Slurm's default",
	         test->conf_loaded ? "no usable fabric"
	                           : "topoplace.conf not loaded");
	if (placement_wanted(test))
		text_set(v->log_reason, sizeof(v->log_reason),
		         "placement=%s: %s",
		         test->asked_placement ? test->asked_placement : "auto",
		         test->conf_loaded
		             ? "no fabric model (see the 'topoplace: ... "
		               "fabric' error above)"
		             : "no topoplace.conf loaded (see the error "
		               "above)");
}

/* True when every required host is among @alloc's hosts (ascending). */
static bool required_allowed(const tp_sched_job_test *test,
                             const tp_alloc_result *alloc)
{
	for (uint32_t k = 0; k < test->required_count; k++) {
		uint32_t lo = 0, hi = alloc->host_count;
		uint32_t host = test->required_hosts[k];

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (alloc->hosts[mid] < host)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == alloc->host_count || alloc->hosts[lo] != host)
			return false;
	}
	return true;
}

/*
 * A job placed past its isolation bound: what its SystemComment and the
 * scheduler's log line say when it starts (placed otherwise than asked).
 */
static void isolation_texts(const tp_sched_job_test *test, tp_sched_verdict *v)
{
	uint32_t waited = (uint32_t)(test->waited_us / 1000000u);
	uint32_t bound = (uint32_t)(test->isolation_wait_max_us / 1000000u);

	text_set(v->note, sizeof(v->note),
	         "isolation given up after %u s (bound %u s): placed by "
	         "Slurm's default beside any class",
	         waited, bound);
}

/* The allocator's answer for a job with a policy, a fabric, an occupancy. */
static void decide_allowed(const tp_sched_job_test *test,
                           const tp_host_use *use, tp_sched_verdict *v)
{
	const char *policy = tp_placement_name(test->policy);
	tp_alloc_request req = {
	    .nodes = v->nodes,
	    .policy = test->policy,
	    /* One host: shares a leaf as quiet (jobclass.h). */
	    .job_class = tp_jobclass_on_fabric(test->job_class, v->nodes),
	    .job_id = test->job_id,
	    .budget_us = test->budget_us,
	    .routing = test->routing,
	    .clock = test->clock,
	    .clock_data = test->clock_data,
	    .waited_us = test->waited_us,
	    .leaf_wait_max_us = test->leaf_wait_max_us,
	    .isolation_wait_max_us = test->isolation_wait_max_us,
	    .leaf_remainder = test->leaf_remainder,
	};
	tp_error err;
	tp_status rc;

	tp_error_clear(&err);
	rc = tp_alloc_allowed(test->topo, use, &req, &v->alloc, &err);
	if (rc != TP_OK) {
		tp_alloc_result_free(&v->alloc);
		v->kind = TP_SCHED_FALLBACK;
		if (rc == TP_ERR_BUDGET) {
			text_set(v->log_reason, sizeof(v->log_reason), "%s",
			         err.message);
			text_set(v->note, sizeof(v->note),
			         "decision over its DecisionBudget: placed by "
			         "Slurm's default");
		} else {
			text_set(v->log_reason, sizeof(v->log_reason),
			         "placement %s: %s", policy, err.message);
			text_set(v->note, sizeof(v->note),
			         "placement %s cannot be met on this fabric: "
			         "placed by Slurm's default (see slurmctld's "
			         "log)",
			         policy);
		}
		return;
	}
	if (!v->alloc.met) {
		char why[TP_SCHED_NOTE_MAX];

		/*
		 * Slurm shows such a job as waiting for Resources: its
		 * comment says why, in whole clauses (the full reason goes
		 * to the log).
		 */
		v->kind = TP_SCHED_WAIT;
		text_set(
		    v->waiting_comment, sizeof(v->waiting_comment),
		    TP_SCHED_RECORD_PREFIX "placement=%s class=%s waits: %s",
		    policy, tp_jobclass_name(test->job_class),
		    tp_sched_reason_fit(v->alloc.reason, why, sizeof(why)));
		return;
	}
	if (test->required_hosts && !required_allowed(test, &v->alloc)) {
		tp_alloc_result_free(&v->alloc);
		v->kind = TP_SCHED_FALLBACK;
		text_set(v->log_reason, sizeof(v->log_reason),
		         "placement=%s: the required nodes (-w) are not among "
		         "the hosts the placement allows",
		         policy);
		text_set(v->note, sizeof(v->note),
		         "placement=%s does not allow the required nodes (-w): "
		         "placed where asked",
		         policy);
		return;
	}
	v->kind = TP_SCHED_PLACE;
	v->leaf_waited_s = (uint32_t)(test->waited_us / 1000000u);
	v->leaf_wait_bound_s = (uint32_t)(test->leaf_wait_max_us / 1000000u);
	if (v->alloc.isolation_wait_passed)
		isolation_texts(test, v);
}

void tp_sched_decide(const tp_sched_job_test *test, tp_sched_verdict *verdict)
{
	tp_sched_verdict *v = verdict;
	const tp_host_use *use;

	memset(v, 0, sizeof(*v));
	if (!test->topo) {
		decide_without_model(test, v);
		return;
	}
	if (test->failed) {
		v->kind = TP_SCHED_PLAIN;
		text_set(v->log_reason, sizeof(v->log_reason),
		         "fallback (see the error above)");
		return;
	}
	if (test->profile_pending) {
		v->kind = TP_SCHED_WAIT_PROFILE;
		return;
	}
	if (test->policy == TP_PLACEMENT_OFF) {
		v->kind = TP_SCHED_PLAIN;
		text_set(v->log_reason, sizeof(v->log_reason), "policy=off");
		return;
	}
	v->nodes = tp_sched_nodes_wanted(test->min_nodes, test->max_nodes,
	                                 test->req_nodes);
	/* No occupancy can ever meet it: waiting would be forever. */
	if (v->nodes > test->mapped_count) {
		v->kind = TP_SCHED_FALLBACK;
		text_set(v->log_reason, sizeof(v->log_reason),
		         "placement=%s: %u nodes wanted, %u Slurm nodes are on "
		         "the fabric",
		         tp_placement_name(test->policy), v->nodes,
		         test->mapped_count);
		text_set(v->note, sizeof(v->note),
		         "%u nodes wanted, %u on the fabric: placed by Slurm's "
		         "default",
		         v->nodes, test->mapped_count);
		return;
	}
	use = test->occupancy ? test->occupancy(test->occupancy_ctx) : NULL;
	if (!use) {
		v->kind = TP_SCHED_FALLBACK;
		text_set(v->note, sizeof(v->note),
		         "out of memory: placed by Slurm's default");
		return;
	}
	decide_allowed(test, use, v);
}

void tp_sched_verdict_free(tp_sched_verdict *verdict)
{
	if (!verdict)
		return;
	tp_alloc_result_free(&verdict->alloc);
	memset(verdict, 0, sizeof(*verdict));
}
