/*
 * tp_slurm_core.h: what the select and task plugins both need from the core
 * library, with no Slurm dependency (unit-testable alone).
 *
 *   - topoplace.conf beside slurm.conf, and the fabric model it names
 *     (topology.conf or an ibnetdiscover cache; never a live sweep);
 *   - a job's profile from the store, munge-verified;
 *   - the classifier's summary of a profile, and the I/O pattern the
 *     throttle window is decided from;
 *   - the select plugin's decision as recorded in a job's SystemComment;
 *   - the rank remapping of a job's nodes and its three files.
 */
#ifndef TP_SLURM_CORE_H
#define TP_SLURM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "batch_prep.h"
#include "exec_match.h"
#include "ioserver.h"
#include "jobclass.h"
#include "policy.h"
#include "profile.h"
#include "remap.h"
#include "store.h"
#include "summary.h"
#include "topo.h"
#include "topoplace_conf.h"
#include "tp_error.h"
#include "tp_profile_lookup.h"
#include "window.h"

/*
 * The path of topoplace.conf for slurm.conf at @slurm_conf (NULL: the
 * default /etc/slurm/slurm.conf) into @out of @size bytes.
 */
void tp_sc_conf_path(const char *slurm_conf, char *out, size_t size);

/*
 * Load topoplace.conf from @path.  A missing file is not an error: the
 * defaults (*@missing set to 1).  Anything else wrong: the parser's error
 * (file, line, key).
 */
tp_status tp_sc_load_config(const char *path, tp_config **config, int *missing,
                            tp_error *err);

/*
 * The last good topoplace.conf, kept by slurmctld in its StateSaveLocation
 * (<@state_dir>/topoplace.conf.last-good, mode 0600): Slurm 24.11's
 * slurmctld re-executes itself on `scontrol reconfigure`, so the previous
 * configuration is no longer in memory when the new file turns out bad.
 * tp_sc_conf_save_last_good reads @conf_path, checks that it parses, and
 * replaces the copy atomically (a missing file saves an empty one: the
 * defaults).  tp_sc_load_config_last_good parses the copy as if it were
 * @conf_path (relative paths in it resolve the same); TP_ERR_NOTFOUND when
 * there is none.  Errors name the file.
 */
#define TP_SC_LAST_GOOD_NAME "topoplace.conf.last-good"
tp_status tp_sc_conf_save_last_good(const char *conf_path,
                                    const char *state_dir, tp_error *err);
tp_status tp_sc_load_config_last_good(const char *conf_path,
                                      const char *state_dir, tp_config **config,
                                      tp_error *err);

/*
 * What slurmctld uses when topoplace.conf is bad: @parsed false when it
 * does not load, true when it loads but a file it names cannot be read
 * (the threshold table: every throttled job would fail later, one by one
 * in slurmd).  @at_start: slurmctld's start, with no configuration to
 * keep; @reexecuted: slurmctld re-executed itself for a reconfigure (Slurm
 * 24.11), so the previous configuration is gone from memory but its copy
 * is in StateSaveLocation (tp_sc_conf_save_last_good).
 *
 *   a file it names, at start  -> USE (placement needs no threshold
 *                                 table: load, and say so)
 *   re-executed                -> LAST_GOOD (that copy, the fabric read
 *                                 again)
 *   otherwise                  -> NONE (keep the previous configuration,
 *                                 none at start)
 */
typedef enum tp_sc_conf_fallback {
	TP_SC_CONF_NONE,
	TP_SC_CONF_LAST_GOOD,
	TP_SC_CONF_USE,
} tp_sc_conf_fallback;

tp_sc_conf_fallback tp_sc_conf_on_error(bool parsed, bool at_start,
                                        bool reexecuted);

/*
 * The fabric as a tp_topo, from the source @config names: topology.conf or
 * the cache (also for FabricSource=live: slurmctld and slurmstepd never
 * sweep; `topoplace fabric cache` refreshes the cache outside them).
 */
tp_status tp_sc_load_topo(const tp_config *config, tp_topo **topo,
                          tp_error *err);

/*
 * The munge socket named in Slurm's AuthInfo (`socket=PATH`), copied into
 * @out; "" when AuthInfo names none (munge's default).
 */
void tp_sc_munge_socket(const char *authinfo, char *out, size_t size);

/*
 * The key a job's profile is read and recorded by (tp_identity_resolve,
 * app_identity.h) in @config's store: the job's @profile
 * (tp_identity_job_profile) and the key of its batch script @script_key
 * ("" or NULL: none).  slurmd's batch work and slurmstepd's steps call it;
 * slurmctld's lookup (tp_sc_lookup_read) calls the same rule.
 */
tp_status tp_sc_identity(const tp_config *config, const char *munge_socket,
                         const char *user, const tp_identity_profile *profile,
                         const char *script_key, tp_identity_key *key,
                         tp_error *err);

/*
 * Read the newest run of profile @name of user @user from @config's store,
 * verified with munge at @munge_socket ("" or NULL: the default).
 * TP_ERR_NOTFOUND when the user has no such profile; other errors name the
 * file and the reason (store.h).
 */
tp_status tp_sc_read_profile(const tp_config *config, const char *munge_socket,
                             const char *user, const char *name,
                             const char *file, tp_profile **profile,
                             tp_error *err);

/*
 * The same, refusing a run larger than @max_file_bytes (0: the store's own
 * limit) from its size, before a byte is read (TP_ERR_LIMIT, naming the
 * file and both sizes).  @file: the run to read (tp_sc_profile_run.file),
 * NULL or "": the newest.
 */
tp_status tp_sc_read_profile_bounded(const tp_config *config,
                                     const char *munge_socket, const char *user,
                                     const char *name, const char *file,
                                     uint64_t max_file_bytes,
                                     tp_profile **profile, tp_error *err);

/* Which stored run of an application tp_sc_profile_totals read. */
typedef struct tp_sc_profile_run {
	char file[TP_STORE_FILE_MAX + 1]; /* "" when none was found */
	bool over_newest; /* an older run matched the job's task count */
	/* Runs of the scale view given to tp_sc_profile_totals, if any. */
	size_t scale_count;
} tp_sc_profile_run;

/*
 * The totals of the run of @user/@name for a job of @job_tasks tasks (0:
 * none given): the newest run with that many ranks among the newest
 * TP_IDENTITY_RUN_CANDIDATES_MAX, else the newest (tp_store_get_summary_for,
 * the rule slurmctld's lookup uses too, so the class and the remapping come
 * from one run).  From the summary the store keeps beside it (a few KiB,
 * credential verified) when it is fresh, else from the run itself, read
 * whole under @max_file_bytes as tp_sc_read_profile_bounded does.  For
 * readers that only classify or throttle, or must know the ranks before
 * deciding to read the matrix (then read @run->file, not the newest).
 * *@from_summary says which; @run (NULL: not wanted) which run.  With
 * @scale_runs (room for TP_IDENTITY_RUN_CANDIDATES_MAX; NULL: not
 * wanted) the scale view too, in [0, @run->scale_count), from the same
 * summary reads (tp_store_read_job_runs), for tp_sc_scaled_profile.
 * Errors as tp_sc_read_profile.
 */
tp_status tp_sc_profile_totals(const tp_config *config, const char *munge_socket,
                               const char *user, const char *name,
                               uint32_t job_tasks, uint64_t max_file_bytes,
                               tp_profile_summary *totals, bool *from_summary,
                               tp_sc_profile_run *run, tp_scale_run *scale_runs,
                               tp_error *err);

/*
 * A job of @job_tasks tasks whose profile @user/@name has another rank
 * count: the scale rule (scale_rule.h) over the runs' summaries: @runs
 * [0, @count) when the caller has them (tp_sc_profile_run's scale view),
 * else read (tp_store_scale_runs: no matrix read).  Scaled: TP_OK, *@scaled the
 * profile to remap from (tp_profile_free), @text "remapped from a
 * 64-rank profile scaled to 128 ranks (3-D periodic stencil seen at 16,
 * 64 ranks)".  Refused: TP_OK, *@scaled NULL, @text "not scaled: why".
 * An error reading the store or building the profile: its status, @err.
 */
tp_status tp_sc_scaled_profile(const tp_config *config,
                               const char *munge_socket, const char *user,
                               const char *name, uint32_t job_tasks,
                               const tp_scale_run *runs, size_t count,
                               tp_profile **scaled, char *text,
                               size_t text_size, tp_error *err);

/*
 * The largest profile run an interactive step reads in slurmstepd (which
 * has no child to bound it, unlike a batch job's): a third of RemapMemory
 * (decoding takes about three times the file, so the read stays within
 * the memory a batch job's remapping may use), and never more than
 * slurmctld's TP_LOOKUP_PROFILE_MAX_BYTES.  Documented with RemapMemory in
 * topoplace.conf(5).
 */
uint64_t tp_sc_step_profile_max_bytes(uint64_t remap_memory_bytes);

/* How long slurmstepd waits for a step's executable to be found and
 * hashed (tp_sc_step_exec_id) before it gives up on it. */
#define TP_SC_EXEC_HASH_TIMEOUT_MS 3000

/*
 * The most a step's work in slurmstepd may take (task/topoplace,
 * task_p_pre_setuid): preparing the user's namespace of the store for a
 * recording, finding the step's program and its runs (within it, the
 * hash's own TP_SC_EXEC_HASH_TIMEOUT_MS), reading a profile's totals for
 * the throttle window, placing I/O servers.  It runs in a child killed
 * past this: the step then starts without that work
 * (topoplace.conf(5), RemapMemory).
 */
#define TP_SC_STEP_WORK_TIMEOUT_MS 5000

/* Who a step runs as: its files are found and read with these. */
typedef struct tp_sc_step_user {
	uid_t uid;
	gid_t gid;
	const gid_t *gids; /* supplementary groups; NULL: none */
	size_t ngids;
} tp_sc_step_user;

/*
 * The executable a step's command @argv0 runs (tp_exec_resolve: @path_env
 * from the step's environment, @cwd its working directory) and its hash
 * (tp_exec_hash_path, the profiler's bound) into @id, found and read by a
 * child running as @user, so root never reads for a user a file the user
 * could not: a file the user cannot read is the user's error.  The child
 * is killed past TP_SC_EXEC_HASH_TIMEOUT_MS (TP_ERR_BUDGET) and waited
 * for at most a second more (one stuck in a hung file system's read is
 * left to the caller's own reaping).  Errors name
 * the command and why (TP_ERR_NOTFOUND: not on PATH).
 */
tp_status tp_sc_step_exec_id(const tp_sc_step_user *user, const char *argv0,
                             const char *path_env, const char *cwd,
                             tp_exec_id *id, tp_error *err);

/*
 * The application of @user's runs made by the command @exec, matched by
 * @rule, for a step of @tasks ranks (tp_exec_match_find, in @config's
 * store verified with munge at @munge_socket); *@summary (may be NULL)
 * the chosen run's.
 */
tp_status tp_sc_exec_match(const tp_config *config, const char *munge_socket,
                           const char *user, const tp_exec_id *exec,
                           tp_exec_match_rule rule, uint32_t tasks,
                           tp_exec_match *match,
                           tp_profile_summary *summary, tp_error *err);

/*
 * Link @user's batch script key @script_key to the application @target
 * (tp_store_put_link, in @config's store), left by job @job_id whose step
 * matched it by @rule; *@written says whether the store was written
 * (false: the same link was there).
 */
tp_status tp_sc_link_script(const tp_config *config, const char *munge_socket,
                            const char *user, const char *script_key,
                            const char *target, uint64_t job_id,
                            tp_store_link_rule rule, bool *written,
                            tp_error *err);

/* The classifier's view of @profile (jobclass.h). */
void tp_sc_profile_summary(const tp_profile *profile, tp_job_summary *summary);

/* The classifier's view of a run's stored totals (summary.h). */
void tp_sc_job_summary(const tp_profile_summary *totals,
                       tp_job_summary *summary);

/*
 * The I/O pattern the throttle window is decided from (window.h), from a
 * run's stored totals: its request size, its I/O clients, the requests
 * and mean start-to-start interval per client, and its class by
 * @thresholds (quiet when it cannot be classified).  False, @pattern
 * untouched, when the totals hold no I/O to pace (no requests, clients or
 * duration).  @pattern->job_class is a static name.
 */
bool tp_sc_io_pattern(const tp_profile_summary *totals,
                      const tp_jobclass_thresholds *thresholds,
                      tp_io_pattern *pattern);

/*
 * The lookup of job @job_id's profile @name of @user (@named: the user
 * named it with --comm-profile) as a self-contained request: the store
 * options of @config, @munge_socket and @thresholds are copied in.
 * TP_ERR_LIMIT when a path or name does not fit the request.
 */
tp_status tp_sc_lookup_request(const tp_config *config,
                               const char *munge_socket,
                               const tp_jobclass_thresholds *thresholds,
                               uint32_t job_id, const char *user,
                               const char *name, bool named,
                               tp_lookup_request *request, tp_error *err);

/*
 * A tp_lookup_reader: classify the profile of @request, the key
 * tp_identity_resolve gives (its script's key when that script ran
 * before, the application its key links to, else @request->name;
 * @result->source says which), from the
 * summary of its run (store.h), its credential verified with munge.  Without a
 * usable summary (missing, stale, bad; @result->note says which) it reads
 * the run itself, at most TP_LOOKUP_PROFILE_MAX_BYTES: in the quick pass
 * only a run of at most TP_LOOKUP_QUICK_MAX_BYTES, a larger one is left to
 * the full pass (needs_full_read).  The run chosen for the job's task
 * count and, for a job of another size, whether slurmd will scale one
 * (@result->scale) come from one tp_store_read_job_runs: at most
 * TP_IDENTITY_RUN_CANDIDATES_MAX summaries read, each once.  slurmctld
 * runs it on the lookup threads, never under its locks.  @ctx is unused.
 */
void tp_sc_lookup_read(const tp_lookup_request *request, tp_lookup_pass pass,
                       tp_lookup_result *result, void *ctx);

/* The prefix of every SystemComment topoplace writes (sched_state.h). */
#define TP_SC_DECISION_PREFIX "topoplace: "

/*
 * Map the ranks of @profile onto the hosts of the Slurm hostlist @nodes
 * ("n[0001-0004]") of the fabric @topo: as many slots per host as the
 * ranks need, laid out by the remapper with @seed and @search (the
 * partition's RemapSearch); its warnings (a candidate that failed, the
 * job mapped all the same) go to @log.  Fills @map (free with
 * tp_remap_mapping_free) and @stats.  Errors: a host not in the fabric, a
 * profile without traffic, the remapper's errors.
 */
tp_status tp_sc_remap(const tp_topo *topo, const tp_profile *profile,
                      const char *nodes, uint64_t seed, tp_remap_search search,
                      const tp_logger *log, tp_remap_mapping *map,
                      tp_remap_stats *stats, tp_error *err);

/* The three files tp_sc_remap_write writes into a job's directory, named
 * where slurmd's batch preparation names them (batch_prep.h). */
#define TP_SC_RANKFILE    TP_BATCH_PREP_RANKFILE    /* Open MPI rankfile */
#define TP_SC_MACHINEFILE TP_BATCH_PREP_MACHINEFILE /* MPICH/Hydra */
#define TP_SC_HOSTFILE    TP_BATCH_PREP_HOSTFILE    /* one line a rank */

/*
 * Write the rankfile, machinefile and hostfile of @map into @dir, made
 * mode 0700 if missing.  Run as the job's user: an existing @dir must be a
 * directory (not a link) owned by the caller's uid with no group or other
 * access, so nothing is ever written into a directory someone else
 * controls.  Errors name the directory or file.
 */
tp_status tp_sc_remap_write(const char *dir, const tp_topo *topo,
                            const tp_remap_mapping *map, tp_error *err);

/* ---- the job directory under a root-owned base ---------------------- */

/* The I/O server list task/topoplace writes beside the rank files. */
#define TP_SC_IOSERVERS TP_BATCH_PREP_IOSERVERS /* one host a line */

/*
 * The root-owned base of the job directories on a node,
 * <@tmp_fs>/topoplace (@tmp_fs NULL or "": /tmp), into @out.
 */
void tp_sc_job_base(const char *tmp_fs, char *out, size_t size);

/* A job's directory under that base: <@tmp_fs>/topoplace/<@job_id>. */
void tp_sc_job_dir_in_base(const char *tmp_fs, unsigned long job_id, char *out,
                           size_t size);

/*
 * Run as root (slurmd, slurmstepd), before anything of the job's user
 * runs.  Makes sure the base (tp_sc_job_base) is a directory owned by the
 * caller's euid (root) that neither group nor others may write (created
 * mode 0755 if missing), then creates the job's directory in it, owned by
 * @uid:@gid, mode 0700, and writes its path into @dir (@dir_size bytes).
 *
 * Nobody else can create or replace entries in such a base, so the job's
 * name cannot be taken in advance.  A base that is not trustworthy (a
 * link, not a directory, someone else's, group or other writable: e.g.
 * made first by a user in a world-writable /tmp) is renamed aside to
 * <base>.untrusted.<job_id>.<pid> and a fresh one made; @moved (NULL:
 * not wanted) then describes what was moved and where, for one log line,
 * and is "" otherwise.  A job directory left by an earlier job of the
 * same id is reused if it is @uid's and private, else its known files
 * are removed and it is replaced (renamed aside within the base if it
 * holds anything else).  Every path is opened without following links.
 * Errors (TP_ERR_IO) name the path and the reason.
 */
tp_status tp_sc_job_dir_prepare(const char *tmp_fs, unsigned long job_id,
                                unsigned uid, unsigned gid, char *dir,
                                size_t dir_size, char *moved, size_t moved_size,
                                tp_error *err);

/*
 * Remove what tp_sc_remap_write and task/topoplace wrote into @dir (the
 * rank files and TP_SC_IOSERVERS), then @dir if empty; only those names,
 * through a descriptor of @dir opened without following links.  Returns
 * 0 (also when @dir is missing), or -1 when @dir is left (errno set).
 */
int tp_sc_job_dir_remove(const char *dir);

/*
 * The end of job @job_id on a node (SPANK job epilog, as root): remove its
 * directory under the root-owned base and any private directory srun left
 * (<@tmp_fs>/topoplace.<@job_id>.XXXXXX, when srun was killed), their
 * files removed by name and nothing followed.  Needed because a batch
 * launch that fails after task/topoplace made the directory (a Prolog
 * failure, "Could not confirm batch launch") runs no slurmstepd and so no
 * task_p_post_step.  *@removed: how many directories went.  0, or -1 with
 * errno when one could not be removed.
 *
 * Finding srun's directories means reading @tmp_fs, which a busy node may
 * fill with anything: at most @max_entries of its entries are read (the
 * epilog runs at every job's end on every node), and *@scanned_all says
 * whether the reading reached the end.  A directory of srun's past the
 * bound stays for the site's TmpFS cleanup; the job's own directory under
 * the base is found by name, never by reading.
 */
#define TP_SC_SWEEP_ENTRIES_MAX 65536
int tp_sc_job_dirs_sweep(const char *tmp_fs, unsigned long job_id,
                         size_t max_entries, unsigned *removed,
                         bool *scanned_all);

/*
 * For srun, which runs as the user and has no root-made directory: a new
 * private directory <@tmp_fs>/topoplace.<@job_id>.XXXXXX (mkdtemp: an
 * unpredictable name, created mode 0700 by the caller, so no one can
 * claim it first) into @out.  TP_ERR_IO (naming the template) or
 * TP_ERR_LIMIT (path too long).
 */
tp_status tp_sc_private_dir_create(const char *tmp_fs, unsigned long job_id,
                                   char *out, size_t size, tp_error *err);

/* ---- I/O servers among a job's nodes --------------------------------- */

/*
 * Place @servers I/O servers by @policy among the hosts of the Slurm
 * hostlist @nodes of the fabric @topo (tp_ioserver_place, scope AMONG,
 * seeded with @job_id).  Fills @result (tp_ioserver_result_free).  Errors:
 * a host not in the fabric, fewer hosts than servers, the placer's.
 */
tp_status tp_sc_ioservers_place(const tp_topo *topo, const char *nodes,
                                uint32_t servers, tp_ioserver_policy policy,
                                uint32_t job_id, tp_ioserver_result *result,
                                tp_error *err);

/*
 * The names of @result's servers joined by @sep into @out of @size bytes.
 * TP_ERR_LIMIT when they do not fit.
 */
tp_status tp_sc_ioservers_format(const tp_topo *topo,
                                 const tp_ioserver_result *result, char sep,
                                 char *out, size_t size, tp_error *err);

/*
 * Write @result's servers, one host a line, into @dir/TP_SC_IOSERVERS,
 * replacing it atomically (run as the job's user, like
 * tp_sc_remap_write; @dir must be the caller's private directory).
 * Errors name the file.
 */
tp_status tp_sc_ioservers_write(const char *dir, const tp_topo *topo,
                                const tp_ioserver_result *result,
                                tp_error *err);

#endif /* TP_SLURM_CORE_H */
