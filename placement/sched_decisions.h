/*
 * sched_decisions.h: what a scheduler adapter decided for each pending job,
 * kept between job tests until the job begins or ends.
 *
 * Why a table of its own: a scheduler tests every pending job on every
 * pass (Slurm: select_p_job_test, several times a second at load), so the
 * lookup by job id must not grow with the number of pending jobs.  It is
 * open addressing with linear probing (job id 0 marks an empty slot: no
 * scheduler uses it), at most half full, deletions by backward shift.
 *
 * Bounded: at most @max decisions.  Full, it drops the decisions no job
 * test has looked at for @stale_s seconds (jobs cancelled or held while
 * pending, which never reach the adapter's job end); only if that frees
 * nothing, it drops them all (they are made again as the jobs are tested).
 * Memory: at most 4 * @max slots of sizeof(tp_decision).
 *
 * Not thread-safe: the caller serialises (slurmctld's locks).
 */
#ifndef TP_SCHED_DECISIONS_H
#define TP_SCHED_DECISIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobclass.h"
#include "policy.h"
#include "sched_decide.h"
#include "sched_state.h"
#include "topo.h"
#include "tp_error.h"

/* What the adapter decided for one pending job. */
typedef struct tp_decision {
	uint32_t job_id;
	bool profile_read; /* profile looked up (found or not) */
	bool has_profile;
	bool failed;         /* error logged once: the scheduler's own choice */
	bool waiting_logged; /* "cannot be met now" logged once */
	bool decided_logged; /* the narrowing logged once */
	/* The profile lookup on the adapter's lookup thread. */
	bool lookup_sent;
	uint32_t lookup_ticket;
	uint64_t lookup_since_us;
	int64_t last_seen; /* seconds: the last job test (eviction) */
	tp_jobclass job_class;
	tp_placement policy;
	char class_reason[TP_JOBCLASS_REASON_MAX];
	/* Why the job is not placed as asked, for its SystemComment. */
	char note[TP_SCHED_NOTE_MAX];
	/* The last allowed set was `shared` for a `leaf` job past its wait
	 * bound (alloc.h): what it waited and its bound, in seconds. */
	bool leaf_wait_passed;
	uint32_t leaf_waited_s, leaf_wait_bound_s;
	/* The last allowed set was the scheduler's default for a job past
	 * its isolation bound: the verdict's note (sched_decide.h). */
	bool isolation_wait_passed;
	char isolation_note[TP_SCHED_NOTE_MAX];
	/* The last allowed set put a `leaf` job's remainder on a shared
	 * leaf (alloc.h, LeafRemainder): that leaf's fabric name (its hold
	 * leaves it out) and the short form for SystemComment.  "": none. */
	char remainder_leaf[128];
	char remainder_summary[TP_SCHED_NOTE_MAX];
	/* The last allowed set gave pod isolation up under adaptive
	 * routing (alloc.h: pod_exposure), for SystemComment.  "": none. */
	char pod_exposure[TP_ALLOC_EXPOSURE_MAX];
} tp_decision;

typedef struct tp_decisions tp_decisions;

/*
 * Called for each decision as it leaves the table (dropped, evicted,
 * cleared), before its slot is reused: the adapter forgets the job's
 * outstanding profile lookup there.
 */
typedef void (*tp_decision_drop_fn)(tp_decision *decision, void *ctx);

/* What one tp_decisions_get did to make room, for the caller's log. */
typedef struct tp_decisions_eviction {
	size_t stale_dropped; /* decisions not tested for stale_s */
	bool all_dropped;     /* none was stale: all were dropped */
} tp_decisions_eviction;

/*
 * An empty table of at most @max (>= 1) decisions.  @on_drop (NULL: none)
 * is called with @ctx.  NULL when out of memory or @max is 0 (@err).
 */
tp_decisions *tp_decisions_new(size_t max, int64_t stale_s,
                               tp_decision_drop_fn on_drop, void *ctx,
                               tp_error *err);

/* Frees the table (NULL-safe); @on_drop is not called. */
void tp_decisions_free(tp_decisions *table);

/* The decision of @job_id (not 0), or NULL. */
tp_decision *tp_decisions_find(tp_decisions *table, uint32_t job_id);

/*
 * The decision of @job_id (not 0), made (zeroed but for job_id) when the
 * table has none; full, room is made first (see the top) and *@eviction
 * says how (zeroed when nothing was dropped).  The pointer is valid until
 * the next get, drop or clear.  NULL when out of memory or @job_id is 0
 * (@err); the table is unchanged then.
 */
tp_decision *tp_decisions_get(tp_decisions *table, uint32_t job_id, int64_t now,
                              tp_decisions_eviction *eviction, tp_error *err);

/* Drop @job_id's decision, if any. */
void tp_decisions_drop(tp_decisions *table, uint32_t job_id);

/* Drop every decision (policies changed: a reconfigure). */
void tp_decisions_clear(tp_decisions *table);

/* Decisions in the table. */
size_t tp_decisions_count(const tp_decisions *table);

/*
 * What a job test's verdict @verdict (sched_decide.h) leaves in the job's
 * decision @decision, for its later tests and its start: a FALLBACK fails
 * it with the verdict's note (later tests pass it on as PLAIN); a PLACE
 * keeps whether `leaf` gave way to `shared` past its wait bound, and the
 * leaf a `leaf` job's remainder shares (its fabric name, from @topo, the
 * fabric @verdict was decided on: that leaf is not held) with the short
 * form users see, and why pod isolation was given up (alloc.h:
 * pod_exposure).  Other kinds change nothing.
 */
void tp_decision_verdict(tp_decision *decision, const tp_topo *topo,
                         const tp_sched_verdict *verdict);

/*
 * The job of @decision (NULL: none was made, e.g. a job Slurm started
 * without a test) starts: what it runs as, into @rec (policy, class,
 * profile, the shared leaf; off/quiet for a failed or absent decision,
 * `shared` for a `leaf` job that gave way), and the decision's note
 * completed with how it was placed otherwise than asked (isolation given
 * up, the leaf wait given way, the remainder on a shared leaf, pod
 * isolation given up under adaptive routing), cut to whole clauses.
 * @rec->shared_leaf points into @decision.  Returns how the job starts
 * when not as decided, for the adapter's log line: as `shared` because its
 * whole-leaf wait passed, or as `off` (where Slurm's default put it,
 * nothing held) because its isolation wait passed.
 */
typedef enum tp_decision_start {
	TP_STARTED_AS_DECIDED = 0,
	TP_STARTED_LEAF_GAVE_WAY,      /* leaf -> shared past LeafWaitMax */
	TP_STARTED_ISOLATION_GIVEN_UP, /* -> Slurm's default past
	                                * IsolationWaitMax */
} tp_decision_start;

tp_decision_start tp_decision_started(tp_decision *decision,
                                      tp_sched_record *rec);

#endif /* TP_SCHED_DECISIONS_H */
