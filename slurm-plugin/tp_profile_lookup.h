/*
 * tp_profile_lookup.h: profile lookups for slurmctld, off its locks.
 *
 * Reading a job's profile means listing the user's store directory (often
 * on a shared file system), reading up to the store's size limit, hashing
 * it and asking munged to verify the credential.  None of that may happen
 * in select_p_job_test, which slurmctld calls with its job and node locks
 * held: a slow file system or a stuck munged would stall all scheduling.
 *
 * So the select plugin hands each job's lookup to worker threads and
 * keeps scheduling; the job waits for its result (or falls back to plain
 * cons_tres when the lookup takes too long).  The workers call a reader
 * the caller supplies (the plugin: store + munge + classifier; tests: a
 * fake), and a notifier after each result (the plugin: ask slurmctld for a
 * scheduling pass, so the job does not wait for the next periodic one).
 *
 * Two lanes, each with its own thread and FIFO, so a small lookup is
 * never queued behind a big one: every request is first read in the
 * quick lane (TP_LOOKUP_QUICK: the profile's summary, or a small profile
 * whole); a reader that finds it needs the whole of a large profile says
 * so (needs_full_read) and the request moves to the full lane
 * (TP_LOOKUP_FULL), where only such reads wait for each other.
 *
 * No Slurm inside: unit-tested alone (tests/unit/test_profile_lookup.c).
 * Thread-safe: every function may be called from any thread, except
 * tp_lookup_stop, which must be the last call.
 */
#ifndef TP_PROFILE_LOOKUP_H
#define TP_PROFILE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobclass.h"
#include "tp_identity_source.h"
#include "tp_error.h"

#define TP_LOOKUP_TEXT_MAX 256
#define TP_LOOKUP_PATH_MAX 1024

/*
 * The largest profile file slurmctld reads to classify a job.  A profile
 * is decoded whole (file plus matrix, about three times the file), so a
 * 200 MB profile made slurmctld grow by 400 MB; past this bound the lookup
 * fails with TP_ERR_LIMIT before anything is read, and the job is placed
 * without its profile (the plugin logs why).  topoplace.conf(5) documents
 * it.
 */
#define TP_LOOKUP_PROFILE_MAX_BYTES (64u << 20)

/*
 * The largest run read whole in the quick lane when it has no usable
 * summary: reading 1 MiB takes milliseconds, so small profiles written
 * before summaries existed do not queue behind a large one in the full
 * lane either.
 */
#define TP_LOOKUP_QUICK_MAX_BYTES (1u << 20)

/*
 * One job's lookup: everything the reader needs, copied, so that a
 * reconfigure that frees the plugin's configuration cannot pull it from
 * under the worker.
 */
typedef struct tp_lookup_request {
	uint32_t job_id;
	char user[TP_LOOKUP_TEXT_MAX];
	char name[TP_LOOKUP_TEXT_MAX];
	bool named; /* --comm-profile given (a missing profile is an error) */
	char store[TP_LOOKUP_PATH_MAX];
	unsigned keep;
	int64_t max_age_s;
	char munge_socket[TP_LOOKUP_PATH_MAX];
	tp_jobclass_thresholds thresholds;
	/* The job's batch script (slurmctld's copy): when its script key
	 * has runs they are the job's, before @name's (tp_identity_resolve,
	 * app_identity.h).  "": none, or the profile was named. */
	char script_path[TP_LOOKUP_PATH_MAX];
	/* The job's task count (0: none given): of several runs, the newest
	 * with that many ranks is the job's (tp_sc_profile_totals). */
	uint32_t job_tasks;
	/* ProfileByExecutable=no: the script key's link is not followed;
	 * =command: only a link made by command is (tp_identity_profile). */
	bool skip_link;
	bool link_by_command;
} tp_lookup_request;

typedef struct tp_lookup_result {
	uint32_t job_id;
	/* TP_OK: found and classified; TP_ERR_NOTFOUND: no such profile;
	 * anything else: the lookup failed, @error says why. */
	tp_status status;
	tp_jobclass job_class;
	char reason[TP_JOBCLASS_REASON_MAX];
	char error[TP_ERROR_MESSAGE_MAX];
	uint64_t elapsed_us; /* time the reader took, both lanes */
	uint32_t ranks;      /* TP_OK: the profile's rank count */
	/* Quick pass only: set with any status to have the request read
	 * again in the full lane (the rest of @result is then discarded). */
	bool needs_full_read;
	/* Why the whole profile was read (no or a stale summary), for one
	 * log line; empty when the summary answered. */
	char note[TP_ERROR_MESSAGE_MAX];
	uint64_t recorded_job_id; /* TP_OK: the job that recorded the
	                             profile; 0: imported */
	/* TP_OK: which key found it (by the script key, or its link: the
	 * profile's application is @app; else the job's own name). */
	tp_identity_source source;
	char app[TP_LOOKUP_TEXT_MAX];  /* TP_OK: the profile's application */
	/* TP_OK: why the use of the profile could not be recorded
	 * (tp_store_note_use), for one log line; "" when it was, or needed
	 * not be.  Never a reason to place the job otherwise. */
	char use_error[TP_ERROR_MESSAGE_MAX];
	/* TP_OK: an older run than the newest was chosen, for its ranks. */
	bool over_newest;
	/* TP_OK, the job's task count not the profile's ranks, and the
	 * application's runs pass the scale rule (scale_rule.h): slurmd will
	 * remap from a run scaled to the job's tasks, as @scale says ("a
	 * 16-rank run scaled to 32 ranks (3-D periodic stencil seen at 16, 64
	 * ranks)"); else "" and the profile gives the class only. */
	char scale[TP_LOOKUP_TEXT_MAX];
} tp_lookup_result;

typedef enum tp_lookup_pass {
	TP_LOOKUP_QUICK = 0, /* cheap reads only; may ask for a full read */
	TP_LOOKUP_FULL,      /* the whole profile, within the caller's cap */
} tp_lookup_pass;

/* Fills @result (job_id and elapsed_us are set by the service). */
typedef void (*tp_lookup_reader)(const tp_lookup_request *request,
                                 tp_lookup_pass pass, tp_lookup_result *result,
                                 void *ctx);
/* Called by the worker after each result is stored, without the
 * service's lock held. */
typedef void (*tp_lookup_notify)(void *ctx);

typedef struct tp_lookup tp_lookup;

/*
 * Start the two workers.  At most @max_pending lookups wait or sit unclaimed at
 * once (tp_lookup_submit refuses more).  @notify may be NULL.  Errors:
 * TP_ERR_INVALID, TP_ERR_NOMEM, TP_ERR_INTERNAL (no thread).
 */
tp_status tp_lookup_start(tp_lookup_reader reader, tp_lookup_notify notify,
                          void *ctx, size_t max_pending, tp_lookup **lookup,
                          tp_error *err);

/*
 * Queue @request; *@ticket names it in the calls below (O(1) lookups, so
 * a scheduling pass over thousands of pending jobs stays cheap).
 * TP_ERR_LIMIT when @max_pending lookups are outstanding.
 */
tp_status tp_lookup_submit(tp_lookup *lookup, const tp_lookup_request *request,
                           uint32_t *ticket, tp_error *err);

/*
 * Wait up to @wait_us for the result of (@job_id, @ticket), but only while
 * its lane has nothing queued before it: a stuck reader then costs the
 * caller at most @wait_us once, not once per queued job.  Returns true
 * when the result is ready (it stays until claimed).
 */
bool tp_lookup_wait(tp_lookup *lookup, uint32_t job_id, uint32_t ticket,
                    uint64_t wait_us);

/* Claim the result of (@job_id, @ticket) into @result: true if it was
 * ready; false also for a ticket that is not (or no longer) this job's. */
bool tp_lookup_take(tp_lookup *lookup, uint32_t job_id, uint32_t ticket,
                    tp_lookup_result *result);

/* Forget (@job_id, @ticket): a queued request or an unclaimed result is
 * dropped, a read in progress is discarded when it ends. */
void tp_lookup_forget(tp_lookup *lookup, uint32_t job_id, uint32_t ticket);

/* Requests queued or being read, and unclaimed results. */
size_t tp_lookup_outstanding(tp_lookup *lookup);

/*
 * Stop the workers: queued requests are dropped, reads in progress are
 * waited for (the reader cannot be interrupted safely), then everything is
 * freed.  NULL is accepted.
 */
void tp_lookup_stop(tp_lookup *lookup);

#endif /* TP_PROFILE_LOOKUP_H */
