/*
 * exec_match.h: which application a step runs, from its executable: the
 * freshest run of the user whose recorded executable (exec_id.h) is the
 * same program as the step's, and the run of it the step's rank count
 * gets.
 *
 * In: the user's store, the step's executable as hashed by
 * tp_exec_hash_fd (the profiler's bound, so both hash alike) and its
 * rank count.  Out: the application's store name, its run, the run's
 * verified summary (its totals: the class and the throttle window) and
 * why, in the words users read: "by executable /usr/bin/ring (sha256
 * 0123456789ab...)".
 *
 * Bounded: the newest TP_EXEC_MATCH_SUMMARIES_MAX runs of the user's
 * namespace, across its applications, are weighed by their summaries
 * (tp_store_scan_summaries: a few KiB each, unverified); no run is read,
 * and only the chosen run's summary is verified (one credential check).
 * A run older than the store's max age is not weighed: every reader
 * would refuse it.
 *
 * The rank count is the existing rule, not a new one: among the
 * application's matching runs, the newest with the step's rank count,
 * else the newest (tp_identity_choose_run); .choice.matched says which,
 * and the reason says the sizes when they differ, so a run of another
 * size is never taken silently.
 *
 * Matching rules and limits: topoplace-profile(5), APPLICATION IDENTITY.
 * No Slurm inside.
 */
#ifndef TP_EXEC_MATCH_H
#define TP_EXEC_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "app_identity.h"
#include "exec_id.h"
#include "store.h"
#include "summary.h"
#include "tp_error.h"

/* At most this many summaries read per lookup (newest runs first). */
#define TP_EXEC_MATCH_SUMMARIES_MAX 256

typedef struct tp_exec_match {
	bool found;
	char name[TP_STORE_NAME_MAX + 1]; /* the application's store name */
	char file[TP_STORE_FILE_MAX + 1]; /* the chosen run */
	int64_t mtime_s;                  /* its file time */
	uint32_t ranks;                   /* its rank count */
	uint64_t job_id;                  /* the job that recorded it */
	tp_identity_run_choice choice;    /* among the matching runs */
	size_t runs;                      /* matching runs of the app */
	size_t read;                      /* summaries read */
	/* "by executable <path> (sha256 <12 hex>...)", then when found
	 * ": profile <name>, <n> ranks, recorded by JobId=<id>" and the
	 * sizes when they differ; when not found, what was searched. */
	char why[TP_EXEC_PATH_MAX + 320];
} tp_exec_match;

/*
 * Find the application of @user's store whose runs were made by the
 * program @exec (hashed: hash_method != NONE, else TP_ERR_INVALID) for a
 * step of @tasks ranks (0: unknown), as described at the top.  TP_OK with
 * @match->found false when none of the runs read matches; when found,
 * *@summary (may be NULL) is the chosen run's verified summary.  Errors:
 * the store's (a namespace that does not exist has no runs: TP_OK, not
 * found), and the chosen run's summary refused (TP_ERR_AUTH, ...,
 * naming it): then nothing is found.
 */
tp_status tp_exec_match_find(const tp_store_options *opt, const char *user,
                             const tp_exec_id *exec, uint32_t tasks,
                             tp_exec_match *match, tp_profile_summary *summary,
                             tp_error *err);

#endif /* TP_EXEC_MATCH_H */
