/*
 * store.h: the profile store, a directory of munge-signed profiles with one
 * namespace per user.
 *
 *   <root>/<namespace>/<name>/<stamp>.tpp
 *
 * <namespace> is a user name (owned by that user) or "site" (owned by
 * root: site-wide profiles only root may publish).  Ownership and modes:
 *
 *   <root>                      root, 0755 or 0711 (never writable by others)
 *   <root>/<user>               the user, 0700, made only by root
 *                               (tp_store_prepare_user)
 *   <root>/<user>/<name>        the user, 0700
 *   <root>/<user>/<name>/<stamp>.tpp  the user, 0600
 *   <root>/<user>/<name>/<stamp>.sum  the user, 0600: the run's summary
 *   <root>/<user>/<name>/last-use     the user, 0600: when slurmctld last
 *                                     chose a run of <name> for a job
 *
 * so no user can create, block or read another's namespace, and readers
 * that must see every profile (slurmctld, slurmd) run as root.  <name> names an
 * application profile ("lulesh", or a batch script's key): each put adds
 * one run, then prunes that application alone (tp_store_prune): the newest
 * @keep runs are kept, and runs older than @max_age_s are dropped (every
 * reader would refuse them).  <stamp> is time-ns-pid-random in hex, so
 * names sort by write time and never collide.
 *
 * Writes are atomic: a temporary file in the name directory, fsync, rename,
 * fsync of the directory.  Readers never see a torn file.
 *
 * Readers (slurmctld among them) treat the store as hostile: every path
 * step below the root is opened with openat(O_NOFOLLOW), so no symlink
 * leads out of the store; directories and files must be owned by the
 * namespace's owner and not writable by others; files must be regular,
 * with one link, smaller than the limit; the profile must decode (digest
 * included) and its munge credential must verify: made by the namespace's
 * owner, signing this digest, this namespace and this name, and not
 * expired.  Each refusal is TP_ERR_AUTH (credential) or TP_ERR_IO /
 * TP_ERR_PARSE / TP_ERR_LIMIT with a message naming the file and reason.
 *
 * The credential backend is pluggable (tp_store_auth) so the policy can be
 * unit-tested; tp_munge_auth (munge_auth.h) is the real one.
 */
#ifndef TP_STORE_H
#define TP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "app_identity.h"
#include "profile.h"
#include "scale_rule.h"
#include "summary.h"
#include "tp_error.h"
#include "tp_log.h"

#define TP_STORE_SITE_NAMESPACE "site"
#define TP_STORE_NAME_MAX       64
#define TP_STORE_FILE_MAX       64
#define TP_STORE_DEFAULT_KEEP   8
/* 30 days: a profile describes an application, not one run. */
#define TP_STORE_DEFAULT_MAX_AGE_S (30 * 24 * 3600)

/*
 * The last-use record of an application: TP_STORE_LAST_USE_FILE in its
 * directory, one line "topoplace-last-use 1 <unix seconds> <job id>\n",
 * at most TP_STORE_LAST_USE_MAX_BYTES.  Written at most once per
 * TP_STORE_LAST_USE_RESOLUTION_S per application, so a stream of jobs of
 * one application costs the store one small write a minute, not one per
 * job.
 */
#define TP_STORE_LAST_USE_FILE         "last-use"
#define TP_STORE_LAST_USE_MAX_BYTES    128
#define TP_STORE_LAST_USE_RESOLUTION_S 60

/*
 * The link record of a name that has no runs of its own: TP_STORE_LINK_FILE
 * in its directory, one line "topoplace-link 2 <name> <job id> <rule>\n"
 * naming another application of the same namespace, at most
 * TP_STORE_LINK_MAX_BYTES.  slurmstepd leaves one under a batch script's
 * key when the step's program is one the user recorded under another name
 * (exec_match.h): the script's next jobs are then looked up by that
 * application (tp_identity_resolve).  <rule> is how the step matched:
 * "command" (the same program and arguments) or "program" (the program
 * alone, ProfileByExecutable=program).  A version 1 record
 * ("topoplace-link 1 <name> <job id>\n") was written before arguments
 * were compared: it reads as "program", so that a site's old links do not
 * steer scripts under the stricter rule.  Like the last-use record it is
 * not signed: it only points within the owner's own namespace, and the
 * runs it leads to are verified as any others.
 */
#define TP_STORE_LINK_FILE      "link"
#define TP_STORE_LINK_MAX_BYTES (48 + TP_STORE_NAME_MAX + 24)

/* How the step that left a link matched the linked application. */
typedef enum tp_store_link_rule {
	TP_STORE_LINK_PROGRAM = 0, /* the program alone (and every v1 link) */
	TP_STORE_LINK_COMMAND = 1, /* the program and its arguments */
} tp_store_link_rule;

/* "program" or "command". */
const char *tp_store_link_rule_name(tp_store_link_rule rule);

/* What a credential backend says about one credential. */
typedef struct tp_store_cred {
	uid_t uid;           /* who made it */
	int64_t encoded_s;   /* when (seconds since the epoch) */
	int64_t ttl_s;       /* the backend's own lifetime */
	int backend_expired; /* the backend's TTL has passed */
	int rewound;         /* encoded in the future */
	char *payload;       /* NUL-terminated, owned (free) */
} tp_store_cred;

/*
 * A credential backend.  sign makes a credential over @payload as the
 * calling user (*cred is malloc'd, caller frees).  verify checks @cred;
 * it returns TP_OK and fills @out when the credential is authentic (even if
 * expired: the store decides), TP_ERR_AUTH with the reason when it is not
 * (forged, corrupt, another key), TP_ERR_IO when the daemon is unreachable.
 */
typedef struct tp_store_auth {
	tp_status (*sign)(void *data, const char *payload, char **cred,
	                  tp_error *err);
	tp_status (*verify)(void *data, const char *cred, tp_store_cred *out,
	                    tp_error *err);
	void *data;
} tp_store_auth;

typedef struct tp_store_options {
	const char *root;          /* the store directory (trusted path) */
	const tp_store_auth *auth; /* required */
	unsigned keep;             /* runs kept per application (>= 1) */
	/*
	 * Age bound on credentials.  0: the backend's TTL (munge's, at most
	 * munged's --max-ttl) is enforced strictly.  > 0: a credential is
	 * accepted up to max_age_s after it was encoded, even past the
	 * backend's TTL (stored profiles outlive munge TTLs by design), and
	 * tp_store_prune drops runs older than that.
	 */
	int64_t max_age_s;
	tp_profile_limits limits;
	const tp_logger *logger; /* may be NULL */
} tp_store_options;

/* Defaults: keep TP_STORE_DEFAULT_KEEP, max_age TP_STORE_DEFAULT_MAX_AGE_S,
 * default limits; root and auth left NULL for the caller. */
tp_store_options tp_store_default_options(void);

/* One stored run. */
typedef struct tp_store_entry {
	char ns[TP_STORE_NAME_MAX + 1];
	char name[TP_STORE_NAME_MAX + 1];
	char file[TP_STORE_FILE_MAX + 1];
	uint64_t size_bytes;
	int64_t mtime_s;
} tp_store_entry;

typedef struct tp_store_list {
	size_t count;
	tp_store_entry *entries; /* owned; sorted by ns, name, file */
} tp_store_list;

/* A namespace or profile name: [A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}. */
int tp_store_valid_name(const char *name);

/*
 * The uid owning namespace @ns: 0 for "site", else the user named @ns.
 * TP_ERR_NOTFOUND if no such user, TP_ERR_INVALID for a bad name.
 */
tp_status tp_store_namespace_owner(const char *ns, uid_t *uid, tp_error *err);

/*
 * Sign @profile (finished) for @ns/@name with opt->auth as the calling
 * user and store it atomically; then prune @ns/@name (tp_store_prune,
 * failures logged on opt->logger: the run is stored either way).  The
 * caller must own @ns (TP_ERR_AUTH otherwise: the readers would refuse
 * it).  The store root must not be writable by group or others
 * (TP_ERR_AUTH).  The namespace must exist unless the caller may create it
 * (a store of its own); the name directory is created 0700, the file
 * 0600.  On success the stored file's name
 * is copied to @file (may be NULL).  @profile->credential is replaced.
 */
tp_status tp_store_put(const tp_store_options *opt, const char *ns,
                       const char *name, tp_profile *profile,
                       char file[TP_STORE_FILE_MAX + 1], tp_error *err);

/*
 * Make @uid's namespace (its user name) in the store at @root, owned by
 * @uid:@gid, mode 0700, as root (the task plugin at a --comm-record step,
 * `topoplace profile prepare`).  An existing namespace of @uid is set to
 * 0700; one owned by anyone else, a symlink or a non-directory is refused
 * (TP_ERR_AUTH / TP_ERR_IO) and left alone, as is a root writable by group
 * or others.  Needs euid 0 (or euid @uid, for a store of its own).
 * Errors name the path and the reason.
 */
tp_status tp_store_prepare_user(const char *root, uid_t uid, gid_t gid,
                                tp_error *err);

/*
 * Read and verify one run: @file, or the newest when @file is NULL.  The
 * caller frees *@profile.  Errors as described at the top.
 */
tp_status tp_store_get(const tp_store_options *opt, const char *ns,
                       const char *name, const char *file, tp_profile **profile,
                       tp_error *err);

/*
 * The merged view of all kept runs of @ns/@name: each matrix entry,
 * collective and I/O total is the mean over the runs (sum / runs, rounded
 * down), so the merged profile has the scale of one run; the header, what
 * it ran (exec), the I/O clients and the credential are the newest run's.  Runs that do not
 * verify, or whose rank count differs from the newest, are skipped with a
 * warning on opt->logger.  *@runs gets the number of runs merged.
 */
tp_status tp_store_merged(const tp_store_options *opt, const char *ns,
                          const char *name, tp_profile **profile,
                          unsigned *runs, tp_error *err);

/*
 * List stored runs (without verifying them): all namespaces when @ns is
 * NULL, all names when @name is NULL.  Entries that are not directories or
 * .tpp files, or are symlinks, are skipped.  Free with tp_store_list_free.
 */
tp_status tp_store_list_runs(const tp_store_options *opt, const char *ns,
                             const char *name, tp_store_list *list,
                             tp_error *err);

/*
 * List the link records (TP_STORE_LINK_FILE) of namespace @ns (all when
 * NULL), as tp_store_list_runs lists runs: .name is the name that links,
 * .file TP_STORE_LINK_FILE; nothing is read (tp_store_read_link reads
 * one).  Free with tp_store_list_free.
 */
tp_status tp_store_list_links(const tp_store_options *opt, const char *ns,
                              tp_store_list *list, tp_error *err);

/* Frees the entries of @list (NULL-safe). */
void tp_store_list_free(tp_store_list *list);

/*
 * The exact credential payload for a profile with digest @digest stored as
 * @ns/@name, written to @out (at most @out_size bytes with the NUL):
 * "topoplace-profile-v1 <sha256 hex> <ns> <name>".
 */
void tp_store_payload(const uint8_t digest[TP_SHA256_BYTES], const char *ns,
                      const char *name, char *out, size_t out_size);

/*
 * Verify @profile's credential as if it were stored at @ns/@name (the
 * check tp_store_get does after decoding).  Fills @cred_uid (may be NULL).
 */
tp_status tp_store_verify_profile(const tp_store_options *opt, const char *ns,
                                  const char *name, const tp_profile *profile,
                                  uid_t *cred_uid, tp_error *err);

/*
 * The summary of the newest run of @ns/@name (summary.h), without reading
 * the run: for slurmctld, which only classifies.  TP_OK: @summary is the
 * run's, fresh and its credential verified.  Otherwise *@fallback says
 * whether the run itself may still be read: true when the summary is
 * missing, stale, refused or bad (@err says which; @run names the newest
 * run and its size, so the caller can bound that read), false when the
 * lookup itself failed (no such profile: TP_ERR_NOTFOUND; munged
 * unreachable: TP_ERR_IO; a bad name or store).
 */
tp_status tp_store_get_summary(const tp_store_options *opt, const char *ns,
                               const char *name, tp_profile_summary *summary,
                               tp_store_entry *run, bool *fallback,
                               tp_error *err);

/*
 * What one store call read: for callers that bound or report their work,
 * and for the tests that hold them to it.
 */
typedef struct tp_store_stats {
	size_t summaries_read;      /* summary files opened */
	size_t credentials_checked; /* credentials given to the backend */
} tp_store_stats;

/* Which run of an application a job gets, and what finding it read. */
typedef struct tp_store_job_runs {
	/* The chosen run: a caller that falls back reads this one. */
	tp_store_entry run;
	tp_identity_run_choice choice;
	bool fallback; /* as tp_store_get_summary's */
	/* Runs in the caller's scale view, oldest first; 0: none given. */
	size_t scale_count;
	tp_store_stats stats;
} tp_store_job_runs;

/*
 * A job's lookup of @ns/@name, each summary read once: the run the job
 * gets and its verified summary, and, when @scale_runs is not NULL (room
 * for TP_IDENTITY_RUN_CANDIDATES_MAX), the runs as the scale rule weighs
 * them (scale_rule.h), so that a job of another size is judged from the
 * same reads.
 *
 * The run: for a job of @job_tasks tasks (0: none given), the one
 * tp_identity_choose_run (app_identity.h) gives among the newest
 * TP_IDENTITY_RUN_CANDIDATES_MAX, weighed by their summaries' rank counts.
 * Summaries are read newest first and only until the rule has its answer
 * (the first with the job's task count; with no task count, the newest),
 * unverified (owner, mode and freshness checked): only the chosen run's
 * credential is verified.  TP_OK: @summary is the chosen run's; else
 * @out->fallback as tp_store_get_summary's, with @out->run naming the
 * chosen run and its size.
 *
 * The scale view, in @scale_runs[0 .. @out->scale_count): given when the
 * job has a task count, the chosen run's summary is usable (TP_OK) and no
 * run has the job's task count; otherwise the rule has nothing to decide
 * (a run fits the job as it is) or would refuse (the newest run, which it
 * weighs, has no usable summary), and @out->scale_count is 0.  Each run
 * as tp_store_scale_runs gives it: its summary's credential verified (the
 * chosen run's once), ranks 0 when it cannot be used.
 *
 * Bounded: at most TP_IDENTITY_RUN_CANDIDATES_MAX summaries read, each
 * once; one credential check, or one per run for the scale view.
 * @out->stats counts both.  Errors as tp_store_get_summary's.
 */
tp_status tp_store_read_job_runs(const tp_store_options *opt, const char *ns,
                                 const char *name, uint32_t job_tasks,
                                 tp_profile_summary *summary,
                                 tp_scale_run *scale_runs,
                                 tp_store_job_runs *out, tp_error *err);

/*
 * tp_store_read_job_runs without the scale view: the run for a job of
 * @job_tasks tasks, *@choice which and whether an older run was preferred
 * to the newest.  slurmd's and srun's readers (tp_sc_profile_totals) call
 * it with the job's task count, and slurmctld's lookup calls
 * tp_store_read_job_runs, so the class and the remapping come from one
 * run.
 */
tp_status tp_store_get_summary_for(const tp_store_options *opt, const char *ns,
                                   const char *name, uint32_t job_tasks,
                                   tp_profile_summary *summary,
                                   tp_store_entry *run,
                                   tp_identity_run_choice *choice,
                                   bool *fallback, tp_error *err);

/*
 * The scale view alone: the newest TP_IDENTITY_RUN_CANDIDATES_MAX runs of
 * @ns/@name as the scale rule weighs them, oldest first, into @runs (room
 * for TP_IDENTITY_RUN_CANDIDATES_MAX) and *@count: from their summaries,
 * each checked as tp_store_get_summary checks the newest's (owner, mode,
 * freshness, credential); a run whose summary is missing, stale or
 * refused has ranks 0 (the rule refuses it).  Reads no run: at most
 * TP_IDENTITY_RUN_CANDIDATES_MAX summaries of TP_SUMMARY_MAX_BYTES and as
 * many credential checks.  For slurmd's remapping (tp_sc_scaled_profile),
 * which asks after its run's totals; a caller that also chooses the run
 * calls tp_store_read_job_runs instead, which reads each summary once.
 * TP_ERR_NOTFOUND: no run; errors as tp_store_get_summary's lookup.
 */
tp_status tp_store_scale_runs(const tp_store_options *opt, const char *ns,
                              const char *name, tp_scale_run *runs,
                              size_t *count, tp_error *err);

/*
 * The verified summary of run @file of @ns/@name: checked as
 * tp_store_get_summary checks the newest's (owner, mode, freshness
 * against the run, credential).  Errors name the file and why
 * (TP_ERR_NOTFOUND: no such run or summary).
 */
tp_status tp_store_run_summary(const tp_store_options *opt, const char *ns,
                               const char *name, const char *file,
                               tp_profile_summary *summary, tp_error *err);

/*
 * A namespace's runs may be listed by tp_store_scan_summaries up to this
 * many (names and file times only: one readdir and one stat each); a
 * namespace with more is TP_ERR_LIMIT.  ProfileKeep runs of 8,000
 * applications.
 */
#define TP_STORE_SCAN_LIST_MAX 65536

/* Called by tp_store_scan_summaries for each summary read; false stops. */
typedef bool (*tp_store_summary_visit)(void *ctx, const tp_store_entry *run,
                                       const tp_profile_summary *summary);

/*
 * Visit the summaries of the newest @max_runs runs of namespace @ns,
 * across all its applications, newest first by the runs' file times.
 * Bounded: the namespace is listed (at most TP_STORE_SCAN_LIST_MAX runs,
 * else TP_ERR_LIMIT), then at most @max_runs summaries of at most
 * TP_SUMMARY_MAX_BYTES are read; no run is read.  A summary is checked
 * for owner, mode and staleness as every reader checks it, but its
 * credential is not verified (the caller verifies the one it uses:
 * tp_store_run_summary); a run whose summary cannot be used, and an
 * application directory that is not the owner's, are skipped.  *@read
 * (may be NULL) gets the number of summaries visited.  TP_ERR_NOTFOUND:
 * no such namespace; other errors as tp_store_list_runs's.
 */
tp_status tp_store_scan_summaries(const tp_store_options *opt, const char *ns,
                                  size_t max_runs, tp_store_summary_visit visit,
                                  void *ctx, size_t *read, tp_error *err);

/*
 * Write the summary of run @file of @ns/@name (for stores written before
 * summaries existed; tp_store_put writes one for each new run).  The run
 * is read and verified first.  The caller is the namespace's owner or
 * root (the summary is then given to the owner).
 */
tp_status tp_store_summarize(const tp_store_options *opt, const char *ns,
                             const char *name, const char *file, tp_error *err);

/*
 * Prune application @ns/@name at time @now_s: drop the runs (and their
 * summaries) beyond the newest opt->keep, and, when opt->max_age_s > 0,
 * the runs whose file time is more than opt->max_age_s before @now_s, the
 * newest included: readers refuse a credential that old, so such a run
 * can never be used again.  The newest run is dropped by age only, never
 * by count.  When no run is left, the last-use record goes too.  Runs are
 * not read or verified.  The caller is the namespace's owner or root.
 * *@removed (may be NULL) gets the number of runs dropped.  Races with
 * other pruners are harmless.  TP_ERR_NOTFOUND: no such application.
 */
tp_status tp_store_prune(const tp_store_options *opt, const char *ns,
                         const char *name, int64_t now_s, unsigned *removed,
                         tp_error *err);

/*
 * Record that a run of @ns/@name was chosen at @now_s for job @job_id:
 * replace the application's last-use record atomically (a temporary file,
 * fsync, rename), owned by the namespace's owner, mode 0600.  Skipped
 * (*@written false, TP_OK) when the record already says a use less than
 * TP_STORE_LAST_USE_RESOLUTION_S before @now_s.  A bad record in place is
 * replaced (and said on opt->logger).  The caller is the owner or root
 * (slurmctld); anyone else gets TP_ERR_IO from the directory's mode.
 * Callers on a job's path log a failure and carry on: the record only
 * informs listings, never a placement.  @written may be NULL.
 */
tp_status tp_store_note_use(const tp_store_options *opt, const char *ns,
                            const char *name, int64_t now_s, uint64_t job_id,
                            bool *written, tp_error *err);

/*
 * Read the last-use record of @ns/@name into *@used_s and *@job_id (either
 * may be NULL).  TP_ERR_NOTFOUND: never recorded.  The record is not
 * signed (it steers no placement and only lists the owner's own runs),
 * but it must be a regular file with one link, owned by the namespace's
 * owner and writable by nobody else (TP_ERR_AUTH otherwise: another user
 * cannot plant one), at most TP_STORE_LAST_USE_MAX_BYTES (TP_ERR_LIMIT),
 * in the format above (TP_ERR_PARSE).  Each error names the file and why;
 * callers ignore the record then.
 */
tp_status tp_store_last_use(const tp_store_options *opt, const char *ns,
                            const char *name, int64_t *used_s, uint64_t *job_id,
                            tp_error *err);

/*
 * Link @ns/@name to the application @ns/@target (see TP_STORE_LINK_FILE),
 * left by job @job_id: the directory of @name is made when missing (0700,
 * for the namespace's owner, also when the caller is root); the namespace
 * must exist.  The same link (target and rule) again is not rewritten
 * (*@written false); another is replaced.  Errors name the path and why: TP_ERR_INVALID for a
 * link to itself, TP_ERR_AUTH for a directory or record of another owner.
 */
tp_status tp_store_put_link(const tp_store_options *opt, const char *ns,
                            const char *name, const char *target,
                            uint64_t job_id, tp_store_link_rule rule,
                            bool *written, tp_error *err);

/*
 * Read the link record of @ns/@name into @target, *@job_id and *@rule
 * (both may be NULL).  TP_ERR_NOTFOUND: no link (or no such name); checked as the
 * last-use record is (TP_ERR_AUTH, TP_ERR_LIMIT), and TP_ERR_PARSE for a
 * record that is not one, names no profile, or names @name itself.  Each
 * error names the file and why; callers ignore the link then.  Whether
 * @target has runs is the caller's question.
 */
tp_status tp_store_read_link(const tp_store_options *opt, const char *ns,
                             const char *name,
                             char target[TP_STORE_NAME_MAX + 1],
                             uint64_t *job_id, tp_store_link_rule *rule,
                             tp_error *err);

#endif /* TP_STORE_H */
