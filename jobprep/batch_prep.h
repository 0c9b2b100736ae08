/*
 * batch_prep.h: what slurmd prepares for a batch job before its script
 * starts: rank remapping, I/O servers, the throttle window and the site's
 * recording, decided here once, with no Slurm inside.
 *
 * In: a tp_batch_prep_job (the job's id, user, task count, nodes, script,
 * flags, I/O server count and topoplace.conf) and the ports through which
 * the preparation reads the store and the fabric, computes the remapping
 * and has the job's files written (tp_batch_prep_ports: the task plugin
 * fills them with its Slurm-free helpers, tests with fakes).  Out: a
 * tp_batch_prep (variables for the batch script's environment and notes
 * for its stderr, in order) and log lines through the caller's sink,
 * each starting "JobId=<id>: " or "<Flag>: JobId=<id>: ".
 *
 * The rules it owns, each written once:
 *   - which profile key the job reads (tp_identity_job_profile, then
 *     tp_identity_resolve through ports->identity);
 *   - ranks are remapped only onto exactly as many tasks as the profile
 *     has ranks, or from the profile scaled to the job's count when the
 *     scale rule allows; any other count (or no -n) keeps Slurm's layout
 *     and the note says why;
 *   - the profile's matrix is read only to remap (the totals decide);
 *   - the job's files are written only when it is remapped or has I/O
 *     servers, and the variables naming them are set only once written;
 *   - the throttle window (prep_throttle.h);
 *   - whether the site records the job's MPI steps (ProfileRecord).
 *
 * The caller runs tp_batch_prep_run in a child bounded by RemapBudget and
 * RemapMemory (the work grows with the profile); tp_batch_prep_throttle
 * is the part that needs no profile, for when no child runs or the child
 * failed.
 */
#ifndef TP_BATCH_PREP_H
#define TP_BATCH_PREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app_identity.h"
#include "ioserver.h"
#include "jobclass.h"
#include "profile.h"
#include "remap.h"
#include "store.h"
#include "summary.h"
#include "topo.h"
#include "topoplace_conf.h"
#include "tp_error.h"
#include "tp_log.h"
#include "window.h"

/* What the batch job should be told, printed on its stderr by the task
 * plugin (task_p_pre_launch); notes are joined with "; ". */
#define TP_BATCH_PREP_NOTE_VAR "TOPOPLACE_NOTE"

/* The profile name the site records the job's steps as (ProfileRecord). */
#define TP_BATCH_PREP_RECORD_VAR "TOPOPLACE_RECORD"

/* The job's files in its directory, as the task plugin writes them
 * (tp_slurm_core.h names them by these) and the variables name them. */
#define TP_BATCH_PREP_RANKFILE    "rankfile"    /* Open MPI rankfile */
#define TP_BATCH_PREP_MACHINEFILE "machinefile" /* MPICH/Hydra */
#define TP_BATCH_PREP_HOSTFILE    "hostfile"    /* SLURM_HOSTFILE */
#define TP_BATCH_PREP_IOSERVERS   "ioservers"   /* one host a line */

/* The job, as slurmd's launch request and topoplace.conf describe it. */
typedef struct tp_batch_prep_job {
	uint32_t job_id;
	const char *user;   /* the job's user name (NULL: unknown) */
	uint32_t ntasks;    /* -n; 0: not given */
	const char *nodes;  /* Slurm hostlist; NULL: not known */
	const char *script; /* the batch script; NULL: none */
	size_t script_len;
	const char *job_name; /* NULL: none */
	/* The user's flags (tp_slurm_options.h). */
	const char *comm_profile; /* "" or NULL: not given */
	bool rank_remap;          /* false: --rank-remap=off */
	bool comm_record;         /* --comm-record (handled per step) */
	bool comm_record_off;     /* --comm-record=no */
	tp_throttle_request io_throttle;
	uint32_t io_servers; /* --io-servers, else the partition's
	                        IoServerCount; 0: none */
	const tp_config *config;
	const tp_config_settings *settings; /* the job's partition's */
	const char *pacing_lib; /* TOPOPLACE_PACING_LIB for a throttled job */
	int64_t now_s;          /* the time, for the age of the newest run */
} tp_batch_prep_job;

/* Which stored run the totals came from (tp_sc_profile_run). */
typedef struct tp_batch_prep_stored_run {
	char file[TP_STORE_FILE_MAX + 1]; /* "" when none was found */
	bool over_newest; /* an older run matched the job's task count */
} tp_batch_prep_stored_run;

/*
 * What the preparation reads and writes outside itself.  Each returns the
 * status of what it called, with @err naming the input; @ctx is
 * tp_batch_prep_ports.ctx.  Profiles are read as the user's @user/@name.
 */
typedef struct tp_batch_prep_ports {
	void *ctx;
	/* The profile key (tp_identity_resolve) in the store. */
	tp_status (*identity)(void *ctx, const char *user,
	                      const tp_identity_profile *profile,
	                      const char *script_key, tp_identity_key *key,
	                      tp_error *err);
	/* The totals of the run for @tasks tasks (TP_ERR_NOTFOUND: none). */
	tp_status (*totals)(void *ctx, const char *user, const char *name,
	                    uint32_t tasks, tp_profile_summary *totals,
	                    bool *from_summary, tp_batch_prep_stored_run *run,
	                    tp_error *err);
	/* The profile scaled to @tasks, or NULL and why in @text. */
	tp_status (*scaled)(void *ctx, const char *user, const char *name,
	                    uint32_t tasks, tp_profile **scaled, char *text,
	                    size_t text_size, tp_error *err);
	/* The run @file's whole profile (the matrix). */
	tp_status (*read_profile)(void *ctx, const char *user, const char *name,
	                          const char *file, tp_profile **profile,
	                          tp_error *err);
	/* The I/O pattern of a run's totals; false: no I/O in them. */
	bool (*io_pattern)(const tp_profile_summary *totals,
	                   const tp_jobclass_thresholds *thresholds,
	                   tp_io_pattern *pattern);
	/* The fabric topoplace.conf names. */
	tp_status (*load_topo)(void *ctx, tp_topo **topo, tp_error *err);
	/* The ranks of @profile mapped onto the hostlist @nodes, with the
	 * partition's RemapSearch; the remapper's warnings to @log. */
	tp_status (*remap)(const tp_topo *topo, const tp_profile *profile,
	                   const char *nodes, uint64_t seed,
	                   tp_remap_search search, const tp_logger *log,
	                   tp_remap_mapping *map, tp_remap_stats *stats,
	                   tp_error *err);
	/* @servers I/O servers among @nodes, and their names joined by ','. */
	tp_status (*ioservers_place)(const tp_topo *topo, const char *nodes,
	                             uint32_t servers,
	                             tp_ioserver_policy policy, uint32_t job_id,
	                             tp_ioserver_result *result, tp_error *err);
	tp_status (*ioservers_format)(const tp_topo *topo,
	                              const tp_ioserver_result *result,
	                              char sep, char *out, size_t size,
	                              tp_error *err);
	/*
	 * Make the job's directory and write into it, as the job's user,
	 * the rank files of @map and the server list of @io (NULL: not
	 * that part); its path into @dir.  False when anything failed: the
	 * port has logged why, and no variable names the files.
	 */
	bool (*write_files)(void *ctx, const tp_topo *topo,
	                    const tp_remap_mapping *map,
	                    const tp_ioserver_result *io, char *dir,
	                    size_t dir_size);
} tp_batch_prep_ports;

/* The preparation's answer, in the order it was decided. */
#define TP_BATCH_PREP_VARS_MAX  24
#define TP_BATCH_PREP_NOTES_MAX 12
typedef struct tp_batch_prep_var {
	const char *name; /* static */
	char *value;      /* owned */
} tp_batch_prep_var;

typedef struct tp_batch_prep {
	tp_batch_prep_var vars[TP_BATCH_PREP_VARS_MAX];
	size_t var_count;
	char *notes[TP_BATCH_PREP_NOTES_MAX]; /* owned, for the job's stderr */
	size_t note_count;
	bool out_of_memory; /* a variable or note could not be kept */
} tp_batch_prep;

/* An empty answer; free with tp_batch_prep_free (NULL-safe). */
void tp_batch_prep_init(tp_batch_prep *prep);
void tp_batch_prep_free(tp_batch_prep *prep);

/* The value of variable @name in @prep, NULL when not set. */
const char *tp_batch_prep_var_get(const tp_batch_prep *prep, const char *name);

/* True when the job needs the work that grows with a profile: a profile
 * to look up, or I/O servers among known nodes (else only
 * tp_batch_prep_throttle). */
bool tp_batch_prep_needs_work(const tp_batch_prep_job *job);

/* The profile the job reads (tp_identity_job_profile on its flags). */
tp_identity_profile tp_batch_prep_identity(const tp_batch_prep_job *job);

/*
 * All of the job's preparation (see the top) into @prep: identity,
 * profile totals, remapping or why not, I/O servers, the files through
 * @ports->write_files, the throttle window, the site's recording.  Each
 * part that fails is logged and left out; the rest goes on.
 */
void tp_batch_prep_run(const tp_batch_prep_job *job,
                       const tp_batch_prep_ports *ports, const tp_logger *log,
                       tp_batch_prep *prep);

/*
 * The throttle window alone, with no profile (the user's --io-throttle
 * within the site's bounds): when no child runs, or it failed.
 */
void tp_batch_prep_throttle(const tp_batch_prep_job *job, const tp_logger *log,
                            tp_batch_prep *prep);

#endif /* TP_BATCH_PREP_H */
