/*
 * sched_policy.h: how a scheduler adapter settles a pending job's profile
 * before its placement policy is resolved, one step per job test.
 *
 * Input is plain data the adapter gathered (tp_sched_policy_job): whether
 * every topoplace flag of the job parsed, its --placement, and which
 * profile it reads (profiles/app_identity.h decides that; this module is
 * told the answer).  State is the job's tp_decision (sched_decisions.h):
 * each call advances it and writes the note users see in the job's
 * SystemComment, worded here so every adapter says the same.
 *
 * Why steps and not one call: the profile is read on a lookup thread the
 * adapter owns (a scheduler holds its locks during a job test and must
 * not wait on a store), so a job's first test queues the lookup and a
 * later test claims the answer.  The adapter asks tp_sched_policy_next what
 * to do, does it (queue, claim), and reports back:
 *
 *   a flag did not parse     -> FAILED  (note: bad --FLAG value)
 *   --placement=off, or the
 *   profile already settled  -> RESOLVE
 *   no store name to look up -> NO_STORE_NAME, then RESOLVE (note when the
 *                               user named it with --comm-profile)
 *   lookup not queued yet    -> LOOKUP: the adapter queues it, then calls
 *                               tp_sched_policy_queued or _refused
 *   lookup queued            -> CLAIM: the adapter claims the answer
 *                               (tp_sched_policy_answer), or asks
 *                               tp_sched_policy_timed_out whether the job
 *                               has waited past ProfileLookupTimeout; if
 *                               neither, the job waits for its profile
 *
 * Every failure sets decision->failed: the job is then the scheduler's own
 * choice (sched_decide.h, PLAIN).  No state of its own, no allocation.
 */
#ifndef TP_SCHED_POLICY_H
#define TP_SCHED_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "jobclass.h"
#include "policy.h"
#include "sched_decisions.h"
#include "tp_error.h"
#include "tp_identity_source.h"

/* The job, as far as settling its profile goes.  Pointers are borrowed. */
typedef struct tp_sched_policy_job {
	/* The name of a flag whose value did not parse (set by hand past
	 * the submission check); NULL: every flag parsed. */
	const char *bad_option;
	tp_placement placement; /* --placement; AUTO when not given */
	/* The job's profile (tp_identity_job_profile): its owner and name
	 * (either may be NULL), whether --comm-profile named it, whether
	 * both are store names (false: nothing to look up). */
	const char *user;
	const char *profile;
	bool named;
	bool lookup;
	uint32_t job_tasks; /* the job's task count; 0: not given */
} tp_sched_policy_job;

typedef enum tp_sched_policy_step {
	TP_SCHED_POLICY_RESOLVE,       /* resolve the policy now */
	TP_SCHED_POLICY_FAILED,        /* decision->failed (note set) */
	TP_SCHED_POLICY_NO_STORE_NAME, /* nothing to look up: resolve */
	TP_SCHED_POLICY_LOOKUP,        /* queue the profile lookup */
	TP_SCHED_POLICY_CLAIM,         /* claim the queued lookup's answer */
} tp_sched_policy_step;

/*
 * The next step for @job with decision @decision (updated: the FAILED and
 * NO_STORE_NAME steps are taken here, the others by the adapter).
 */
tp_sched_policy_step tp_sched_policy_next(const tp_sched_policy_job *job,
                                          tp_decision *decision);

/* The lookup was queued as @ticket at @now_us (monotonic microseconds). */
void tp_sched_policy_queued(tp_decision *decision, uint32_t ticket,
                            uint64_t now_us);

/*
 * The lookup could not be queued: @no_service when the adapter has no
 * lookup service at all (it failed to start), else the queue refused it
 * (full, or a request it could not build; the adapter logs why).  Marks
 * the decision failed.
 */
void tp_sched_policy_refused(const tp_sched_policy_job *job,
                             tp_decision *decision, bool no_service);

/*
 * Whether the job has waited for its lookup (queued at
 * decision->lookup_since_us) longer than @timeout_us at @now_us; if so the
 * decision is failed, with a note saying so.
 */
bool tp_sched_policy_timed_out(const tp_sched_policy_job *job,
                               tp_decision *decision, uint64_t now_us,
                               uint64_t timeout_us);

/* What the profile store answered, as far as the rules need it. */
typedef struct tp_sched_profile_answer {
	/* TP_OK: found and classified; TP_ERR_NOTFOUND: no such profile;
	 * anything else: the lookup failed (the adapter logs why). */
	tp_status status;
	tp_jobclass job_class;
	const char *class_reason; /* why that class (NULL: none) */
	uint32_t ranks;           /* the profile's rank count; 0: unknown */
	uint64_t recorded_job_id; /* the job that recorded it; 0: imported */
	/* Which key found it: TP_IDENTITY_SCRIPT or TP_IDENTITY_SCRIPT_LINK
	 * (the profile is @app's), else the job's own (--comm-profile or
	 * job name, as the job says). */
	tp_identity_source source;
	const char *app; /* by the script or its link: the application */
	bool over_newest; /* an older run than the newest, for its ranks */
	/* Other ranks than the job's tasks, but slurmd remaps from a run
	 * scaled to them: what ("a 16-rank run scaled to 32 ranks (...)");
	 * NULL or "": the profile gives the class only. */
	const char *scale;
} tp_sched_profile_answer;

typedef enum tp_sched_profile_use {
	TP_SCHED_PROFILE_USED,         /* class (and maybe layout) from it,
	                                  or from a run scaled to the job */
	TP_SCHED_PROFILE_CLASS_ONLY,   /* ranks differ: class only */
	TP_SCHED_PROFILE_NONE,         /* not found: as a job without one */
	TP_SCHED_PROFILE_NAMED_ABSENT, /* --comm-profile names none: noted */
	TP_SCHED_PROFILE_UNUSABLE,     /* the read failed: decision failed */
} tp_sched_profile_use;

/*
 * Use @answer for the job: the profile settled (decision->profile_read),
 * its class and why, and the note users see: where the profile came from
 * ("profile alice/ring by job name, recorded by JobId=12"), that the
 * job's task count differs from the profile's ranks (the task count wins:
 * Slurm's layout, the class still from the profile; or, when
 * @answer->scale says so, the layout of a run scaled to the job's tasks,
 * which slurmd remaps from), that the profile the
 * user named does not exist, or that it cannot be used.  Returns which of
 * these it was, for the adapter's log.
 */
tp_sched_profile_use
tp_sched_policy_answer(const tp_sched_policy_job *job, tp_decision *decision,
                       const tp_sched_profile_answer *answer);

#endif /* TP_SCHED_POLICY_H */
