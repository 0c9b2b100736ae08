/*
 * sched_policy.c: settling a pending job's profile, step by step
 * (sched_policy.h).
 *
 * Why the notes are written here and not by the adapter: they are part of
 * the decision (sched_decide.c says the same of its texts).  A user who
 * gave no flag reads in SystemComment which profile placed the job and why
 * it was chosen; one who named a profile reads why it was not used.  The
 * log lines stay with the adapter: they carry the lookup service's and the
 * store's own messages, which only it has.
 */
#include "tp_config.h"

#include "sched_policy.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tp_identity_source.h"

static void note_set(tp_decision *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The note, cut to its buffer (a long name is expected, not a bug). */
static void note_set(tp_decision *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(d->note, sizeof(d->note), fmt, ap) < 0)
		d->note[0] = '\0';
	va_end(ap);
}

/* A name for a note: "(none)" rather than a NULL passed to printf. */
static const char *shown(const char *name)
{
	return name ? name : "(none)";
}

tp_sched_policy_step tp_sched_policy_next(const tp_sched_policy_job *job,
                                          tp_decision *decision)
{
	if (job->bad_option) {
		note_set(decision, "bad --%s value: placed by Slurm's default",
		         job->bad_option);
		decision->failed = true;
		return TP_SCHED_POLICY_FAILED;
	}
	if (decision->profile_read || job->placement == TP_PLACEMENT_OFF)
		return TP_SCHED_POLICY_RESOLVE;
	if (!job->lookup) {
		decision->profile_read = true;
		if (job->named)
			note_set(decision,
			         "--comm-profile=%.64s is not a profile name",
			         shown(job->profile));
		return TP_SCHED_POLICY_NO_STORE_NAME;
	}
	return decision->lookup_sent ? TP_SCHED_POLICY_CLAIM
	                             : TP_SCHED_POLICY_LOOKUP;
}

void tp_sched_policy_queued(tp_decision *decision, uint32_t ticket,
                            uint64_t now_us)
{
	decision->lookup_sent = true;
	decision->lookup_ticket = ticket;
	decision->lookup_since_us = now_us;
}

void tp_sched_policy_refused(const tp_sched_policy_job *job,
                             tp_decision *decision, bool no_service)
{
	if (no_service)
		note_set(decision, "profiles cannot be read (see slurmctld's "
		                   "log): placed by Slurm's default");
	else
		note_set(decision,
		         "profile %.48s/%.48s cannot be looked up (see "
		         "slurmctld's log): placed by Slurm's default",
		         shown(job->user), shown(job->profile));
	decision->failed = true;
}

bool tp_sched_policy_timed_out(const tp_sched_policy_job *job,
                               tp_decision *decision, uint64_t now_us,
                               uint64_t timeout_us)
{
	/* A clock that went backwards waits: it is no answer either way. */
	if (now_us < decision->lookup_since_us ||
	    now_us - decision->lookup_since_us <= timeout_us)
		return false;
	note_set(decision,
	         "profile %.64s/%.64s: no answer from the store in %.1f s: "
	         "placed by Slurm's default",
	         shown(job->user), shown(job->profile), timeout_us / 1e6);
	decision->failed = true;
	return true;
}

/* Whether the profile was found by the job's script (or its link), so
 * it is another application's name than the job's. */
static bool found_by_script(const tp_sched_profile_answer *answer)
{
	return answer->source == TP_IDENTITY_SCRIPT ||
	       answer->source == TP_IDENTITY_SCRIPT_LINK;
}

/* The profile found: its application's name (by script hash) or the
 * job's, and how it was found. */
static const char *found_name(const tp_sched_policy_job *job,
                              const tp_sched_profile_answer *answer)
{
	return shown(found_by_script(answer) ? answer->app : job->profile);
}

static const char *found_by(const tp_sched_policy_job *job,
                            const tp_sched_profile_answer *answer)
{
	return tp_identity_source_name(found_by_script(answer) ? answer->source
	                               : job->named ? TP_IDENTITY_COMM_PROFILE
	                                            : TP_IDENTITY_JOB_NAME);
}

/* "recorded by JobId=N" or "imported" into @from. */
static void found_from(const tp_sched_profile_answer *answer, char from[48])
{
	if (answer->recorded_job_id)
		snprintf(from, 48, "recorded by JobId=%" PRIu64,
		         answer->recorded_job_id);
	else
		snprintf(from, 48, "imported");
}

/*
 * Which profile placed the job and why it was chosen: by the script's
 * hash (its application's name) or by the job's name or --comm-profile,
 * recorded by which job or imported.
 */
static void profile_note(const tp_sched_policy_job *job, tp_decision *d,
                         const tp_sched_profile_answer *answer)
{
	const char *older = answer->over_newest
	                        ? " (an older run, of the job's task count)"
	                        : "";
	char from[48];

	found_from(answer, from);
	note_set(d, "profile %.48s/%.48s by %s, %s%s", shown(job->user),
	         found_name(job, answer), found_by(job, answer), from, older);
}

/* Found: the class is the profile's; the note says where it came from,
 * or that the job's task count wins over the profile's ranks. */
static tp_sched_profile_use use_found(const tp_sched_policy_job *job,
                                      tp_decision *d,
                                      const tp_sched_profile_answer *answer)
{
	char tasks[32] = "gave no task count", from[48];

	d->has_profile = true;
	d->job_class = answer->job_class;
	snprintf(d->class_reason, sizeof(d->class_reason), "%s",
	         answer->class_reason ? answer->class_reason : "");
	if (!answer->ranks || job->job_tasks == answer->ranks) {
		profile_note(job, d, answer);
		return TP_SCHED_PROFILE_USED;
	}
	if (job->job_tasks)
		snprintf(tasks, sizeof(tasks), "%u tasks", job->job_tasks);
	found_from(answer, from);
	if (answer->scale && answer->scale[0]) {
		note_set(d,
		         "profile %.48s/%.48s has %u ranks, the job %s: %s (by "
		         "%s, %s)",
		         shown(job->user), found_name(job, answer),
		         answer->ranks, tasks, answer->scale,
		         found_by(job, answer), from);
		return TP_SCHED_PROFILE_USED;
	}
	note_set(d,
	         "profile %.48s/%.48s has %u ranks, the job %s: class only, "
	         "Slurm's layout (by %s, %s)",
	         shown(job->user), found_name(job, answer), answer->ranks,
	         tasks, found_by(job, answer), from);
	return TP_SCHED_PROFILE_CLASS_ONLY;
}

tp_sched_profile_use
tp_sched_policy_answer(const tp_sched_policy_job *job, tp_decision *decision,
                       const tp_sched_profile_answer *answer)
{
	decision->profile_read = true;
	if (answer->status == TP_OK)
		return use_found(job, decision, answer);
	if (answer->status != TP_ERR_NOTFOUND) {
		note_set(decision,
		         "profile %.48s/%.48s cannot be used (see slurmctld's "
		         "log): placed by Slurm's default",
		         shown(job->user), shown(job->profile));
		decision->failed = true;
		return TP_SCHED_PROFILE_UNUSABLE;
	}
	if (!job->named)
		return TP_SCHED_PROFILE_NONE;
	/* Named explicitly: the user expects it to exist. */
	note_set(decision, "profile %.64s/%.64s not found", shown(job->user),
	         shown(job->profile));
	return TP_SCHED_PROFILE_NAMED_ABSENT;
}
