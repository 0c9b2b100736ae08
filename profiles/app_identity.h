/*
 * app_identity.h: which application a job runs: the profile it names
 * (--comm-profile, else its job name: tp_identity_job_profile), and
 * beyond its job name, its batch script.
 *
 * A batch script is the most stable thing known of a job at submission:
 * users rename jobs, but resubmit the same script.  Its identity here is
 * the script key "s-" + the first 32 hex digits (128 bits) of the SHA-256
 * of the script text up to its first NUL: a valid store name
 * (store.h), so runs recorded from a script are also stored under its key
 * and found through the store's own checks (owner, munge credential), with
 * no index file of their own.
 *
 * Who computes it: slurmd from the batch launch request's script (the job
 * is recorded under its name and its key), slurmctld's lookup thread from
 * the copy of the script in StateSaveLocation (read off slurmctld's locks,
 * bounded by TP_IDENTITY_SCRIPT_MAX_BYTES).  Both hash the same text: Slurm
 * stores the script with a trailing NUL and sends it without.
 *
 * Which key a job's profile is read and recorded by is one rule here
 * (tp_identity_resolve), most specific first: --comm-profile, the script
 * key when that exact script ran before, the job name; every daemon calls
 * it, so slurmctld's class, slurmd's remapping and recording and a step's
 * throttling can never be taken from different applications.
 *
 * Matching rules and limits are in topoplace-profile(5), APPLICATION
 * IDENTITY.  No Slurm inside.
 */
#ifndef TP_APP_IDENTITY_H
#define TP_APP_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_error.h"
#include "tp_identity_source.h" /* which key chose it, and its words */

/* "s-" + 32 hex digits + NUL. */
#define TP_IDENTITY_SCRIPT_KEY_SIZE 35

/* Slurm's own default max_script_size (4 MB) and the trailing NUL. */
#define TP_IDENTITY_SCRIPT_MAX_BYTES ((4u << 20) + 1u)

/* The script key of @script (@len bytes, hashed up to the first NUL). */
void tp_identity_script_key(const char *script, size_t len,
                            char key[TP_IDENTITY_SCRIPT_KEY_SIZE]);

/*
 * The script key of the file @path (at most TP_IDENTITY_SCRIPT_MAX_BYTES).
 * TP_ERR_IO naming the file and why (TP_ERR_NOTFOUND when it does not
 * exist), TP_ERR_LIMIT when it is larger.
 */
tp_status tp_identity_script_key_file(const char *path,
                                      char key[TP_IDENTITY_SCRIPT_KEY_SIZE],
                                      tp_error *err);

/* Whether profile name @name is a script key (not a name users chose). */
bool tp_identity_is_script_key(const char *name);

/*
 * The profile a job's placement, rank remapping and throttling read (one
 * rule for slurmctld, slurmd and slurmstepd): the one the user named with
 * --comm-profile, else the one named like the job.
 */
typedef struct tp_identity_profile {
	const char *name; /* --comm-profile's, else the job name; NULL: none */
	bool named;       /* it is --comm-profile's: the user expects it */
	bool lookup;      /* name and user are store names: ask the store */
	/* ProfileByExecutable=no (topoplace.conf(5)): a script key's link
	 * is not followed (rule 2b of tp_identity_resolve). */
	bool skip_link;
	/* ProfileByExecutable=command: only a link a step made by command
	 * (program and arguments) is followed, not one made by the program
	 * alone (ProfileByExecutable=program, or any version 1 link). */
	bool link_by_command;
} tp_identity_profile;

/*
 * The profile of a job with --comm-profile @comm_profile (NULL or "": not
 * given), job name @job_name (NULL: none), run by @user (NULL: unknown).
 * .name points into one of the arguments (for messages even when it is
 * no store name); .lookup is false when .name or @user is no store name
 * (tp_store_valid_name): there is nothing to look up then.
 */
tp_identity_profile tp_identity_job_profile(const char *comm_profile,
                                            const char *job_name,
                                            const char *user);

struct tp_store_options; /* store.h, which includes this header */

/* TP_STORE_NAME_MAX, which store.h cannot give this header. */
#define TP_IDENTITY_NAME_MAX 64

/* The profile key a job reads and records against (tp_identity_resolve). */
typedef struct tp_identity_key {
	tp_identity_source source;
	/* The store name to read (borrowed from the job profile's name or
	 * the script key passed in); NULL when source is NONE. */
	const char *name;
	/*
	 * Runs of the job's application already in the store, for the
	 * recording policy (record_policy.h): the runs of @name, except
	 * that a job with a script whose key has no runs is a new
	 * application (0) even when its job name has runs: the name may be
	 * shared by other scripts, and ProfileRecord=first must record it.
	 */
	size_t app_runs;
	int64_t newest_mtime_s; /* the newest of those runs; 0: none */
	/* Why this key, for logs: "the script s-... has 2 runs", ... */
	char why[224];
	/* TP_IDENTITY_SCRIPT_LINK: the application the script's link names
	 * (@name points here: a key is not copied by value) and the job
	 * that left the link. */
	char linked[TP_IDENTITY_NAME_MAX + 1];
	uint64_t link_job_id;
} tp_identity_key;

/*
 * The one identity rule of slurmctld's lookup, slurmd's remapping,
 * throttling and recording, and slurmstepd's step lookups:
 *   1. --comm-profile when given (@profile->named): the user's word;
 *   2. else the script key @script_key (NULL or "": the job has no
 *      script, or it could not be read) when the store has runs of it in
 *      the user's namespace: the exact script ran before, whatever it was
 *      called then;
 *   2b. else the application the script key's link names
 *      (TP_STORE_LINK_FILE, store.h), when that application has runs: an
 *      earlier job of the script ran a program the user recorded under
 *      another name (slurmstepd found it by its executable and left the
 *      link); one hop, never a chain, and a link that cannot be read is
 *      ignored (the job falls to 3); not with @profile->skip_link, and
 *      with @profile->link_by_command only a link made by command;
 *   3. else the job name (@profile->name, when @profile->lookup).
 * @profile is tp_identity_job_profile's answer.  Only names are listed
 * (tp_store_list_runs: one directory each, nothing read or verified):
 * the caller reads the chosen key's run as before, and a run that does
 * not verify is that key's error, never a reason to use another key.
 * A store that does not exist yet has no runs.  Errors: listing errors
 * (TP_ERR_IO, TP_ERR_AUTH on a bad store), with the key named.
 */
tp_status tp_identity_resolve(const struct tp_store_options *opt,
                              const char *user,
                              const tp_identity_profile *profile,
                              const char *script_key, tp_identity_key *key,
                              tp_error *err);

/*
 * How many of an application's newest runs a lookup weighs when choosing
 * one by rank count: each costs slurmctld's lookup thread one summary read
 * (a few KiB), so at most this many, whatever ProfileKeep is.
 */
#define TP_IDENTITY_RUN_CANDIDATES_MAX 16

/* Which run of an application a job gets (tp_identity_choose_run). */
typedef struct tp_identity_run_choice {
	size_t index;     /* into the candidates */
	bool matched;     /* its ranks are the job's task count */
	bool over_newest; /* an older run was preferred to the newest */
} tp_identity_run_choice;

/*
 * The run of an application a job with @job_tasks tasks (0: the job gave
 * no task count) is placed with, among @count >= 1 candidates whose rank
 * counts are @run_ranks, oldest first (0: a run whose summary could not be
 * read: never matched): the newest run with the job's task count, else the
 * newest run.  A profile of another rank count still gives the job its
 * class; its ranks are remapped only when the counts are equal
 * (topoplace-profile(5), APPLICATION IDENTITY).
 */
tp_identity_run_choice tp_identity_choose_run(const uint32_t *run_ranks,
                                              size_t count, uint32_t job_tasks);

#endif /* TP_APP_IDENTITY_H */
