/*
 * exec_match.h: which application a step runs, from its executable: the
 * freshest run of the user whose recorded executable (exec_id.h) is the
 * same command as the step's (the same program with the same arguments:
 * tp_exec_id_same_command) or, under TP_EXEC_MATCH_PROGRAM, the same
 * program whatever its arguments, and the run of it the step's rank
 * count gets.
 *
 * Why the arguments by default: one site-installed solver run by many
 * scripts with other inputs is many applications whose traffic differs;
 * by the program alone each would get the first one's profile.  A run
 * whose arguments are unknown (recorded before format 1.2, or over the
 * 1 MiB bound) is never the same command: an old store hands out no
 * profile by command rather than a wrong one.
 *
 * In: the user's store, the step's executable as hashed by
 * tp_exec_hash_fd (the profiler's bound, so both hash alike) and its
 * rank count.  Out: the application's store name, its run, the run's
 * verified summary (its totals: the class and the throttle window) and
 * why, in the words users read: "by executable /usr/bin/ring (sha256
 * 0123456789ab...) and arguments (2, sha256 abcdef012345...)".
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

/*
 * What makes a step's program the same application as a recorded run
 * (ProfileByExecutable in topoplace.conf(5)).
 */
typedef enum tp_exec_match_rule {
	TP_EXEC_MATCH_COMMAND = 0, /* the program with the same arguments */
	TP_EXEC_MATCH_PROGRAM = 1, /* the program, whatever its arguments */
	TP_EXEC_MATCH_NO = 2,      /* no application by executable at all */
} tp_exec_match_rule;

#define TP_EXEC_MATCH_RULE_CHOICES "command|program|no"

/* "command", "program", "no" ("invalid" otherwise). */
const char *tp_exec_match_rule_name(tp_exec_match_rule rule);

/*
 * @text as a rule, case-insensitive: command, program, no, and the yes
 * and no words of a boolean (yes, true, on, 1: program, the rule "yes"
 * meant before arguments were compared; no, false, off, 0: no).
 * TP_ERR_INVALID naming the value and the choices.
 */
tp_status tp_exec_match_rule_parse(const char *text, tp_exec_match_rule *rule,
                                   tp_error *err);

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
	/* Runs of the same program whose arguments differ or are unknown
	 * (TP_EXEC_MATCH_COMMAND only): said in .why when none matched. */
	size_t other_args;
	/* "by executable <path> (sha256 <12 hex>...)", under COMMAND
	 * " and arguments (<n>, sha256 <12 hex>...)", then when found
	 * ": profile <name>, <n> ranks, recorded by JobId=<id>" and the
	 * sizes when they differ; when not found, what was searched. */
	char why[TP_EXEC_PATH_MAX + 400];
} tp_exec_match;

/*
 * Find the application of @user's store whose runs were made by the
 * command @exec (hashed: hash_method != NONE, else TP_ERR_INVALID), by
 * @rule (COMMAND or PROGRAM; NO is TP_ERR_INVALID), for a step of @tasks
 * ranks (0: unknown), as described at the top.  TP_OK with
 * @match->found false when none of the runs read matches (under COMMAND
 * also when @exec's arguments are unknown: nothing is read then); when
 * found,
 * *@summary (may be NULL) is the chosen run's verified summary.  Errors:
 * the store's (a namespace that does not exist has no runs: TP_OK, not
 * found), and the chosen run's summary refused (TP_ERR_AUTH, ...,
 * naming it): then nothing is found.
 */
tp_status tp_exec_match_find(const tp_store_options *opt, const char *user,
                             const tp_exec_id *exec, tp_exec_match_rule rule,
                             uint32_t tasks,
                             tp_exec_match *match, tp_profile_summary *summary,
                             tp_error *err);

#endif /* TP_EXEC_MATCH_H */
