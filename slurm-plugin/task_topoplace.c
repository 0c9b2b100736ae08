/*
 * task_topoplace.c: task/topoplace, run by slurmd and slurmstepd around
 * each job and step.
 *
 * Stacks after the site's task plugins:
 *   TaskPlugin=task/affinity,task/topoplace
 *
 * Batch jobs.  task_p_slurmd_batch_request runs in slurmd, as root, once
 * per batch job, before slurmstepd is forked with the launch request: the
 * one place that runs once per job and knows the job's nodes (req->nodes;
 * slurmstepd's batch step record does not keep them).  slurmd answers
 * slurmctld's launch request only after it returns, so everything that
 * grows with the profile runs in a child of slurmd bounded by RemapBudget
 * and RemapMemory and killed past them (the job then runs in Slurm's
 * order, see task_p_slurmd_batch_request).  What the child does is
 * decided in the Slurm-free core (jobprep/batch_prep.h: this file reads
 * the launch request into its job, fills its ports and applies its
 * answer); the child
 *   - reads the job's profile and, when the job's task count equals the
 *     profile's ranks (the job's own count always wins), computes the
 *     rank remapping for its actual nodes; places the job's I/O servers
 *     among them (--io-servers, IoServerCount, IoServerPolicy);
 *   - makes the job's directory <TmpFS>/topoplace/<jobid>: the base is
 *     root's and no one else may write it, so the name cannot be claimed
 *     in advance; the job directory is the user's, mode 0700
 *     (tp_sc_job_dir_prepare);
 *   - has a child running as the job's user write the Open MPI rankfile,
 *     MPICH machinefile, SLURM_HOSTFILE and the I/O server list into it
 *     (root never writes into a directory the user controls);
 *   - adds TOPOPLACE_RANKFILE, TOPOPLACE_MACHINEFILE, SLURM_HOSTFILE and
 *     SLURM_DISTRIBUTION=arbitrary, TOPOPLACE_IO_SERVER_HOSTS and
 *     TOPOPLACE_IO_SERVER_FILE, and the I/O throttle window to the batch
 *     script's environment.  Steps started by the script inherit them: a
 *     plain `srun ./app` lays its tasks out as the hostfile says;
 *   - hands these variables, and notes for the job (TOPOPLACE_NOTE, which
 *     task_p_pre_launch prints on the batch script's stderr), back to
 *     slurmd through a pipe; slurmd applies them only if the child
 *     finished within its budget.
 *
 * Every other step (srun in an allocation of salloc or of its own, or in
 * a batch script).  task_p_pre_setuid runs in slurmstepd, as root, once
 * per step and node, after the SPANK plugin has put the step's flags into
 * its environment (TOPOPLACE_*, the job's and srun's own).  What the batch
 * script did not already hand down it adds to the step's environment: the
 * throttle window (so `srun --io-throttle=2ms` and salloc + srun are paced
 * too), the I/O server list for interactive jobs (environment only: their
 * rank files are written by srun, see spank_topoplace.c) and, for
 * --comm-record, what the profiler needs.  The first node of the step
 * logs; the others decide the same quietly.  That work reads the profile
 * store and the step's program, often on shared file systems, so it runs
 * in a child of slurmstepd bounded by TP_SC_STEP_WORK_TIMEOUT_MS and
 * RemapMemory, which hands back what it changed in the step's environment
 * (_step_run_bounded); past a bound the step starts without it.
 *
 * task_p_pre_launch runs in each task, as the user, just before exec, and
 * preloads the pacing library and the profiler into the tasks of steps
 * (never into the batch script's shell).
 *
 * Any failure is one log line with the job or step id and leaves the job
 * as Slurm would run it.
 */
#define _GNU_SOURCE /* pipe2 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <signal.h>
#include <stdarg.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm_errno.h"
#include "src/common/env.h"
#include "src/common/read_config.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "convert.h"
#include "app_identity.h"
#include "ioserver.h"
#include "munge_auth.h"
#include "policy.h"
#include "rankfile.h"
#include "record_policy.h"
#include "remap.h"
#include "threshold.h"
#include "units.h"
#include "window.h"
#include "batch_prep.h"
#include "child_records.h"
#include "prep_throttle.h"
#include "spank_env.h"
#include "tp_slurm_compat.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

const char plugin_name[] = "topoplace task plugin";
const char plugin_type[] = "task/topoplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* What the batch job should be told, printed on its stderr (_note). */
#define TP_ENV_NOTE TP_BATCH_PREP_NOTE_VAR

/* The same for a step, printed by its rank 0 and not passed on. */
#define TP_ENV_STEP_NOTE "TOPOPLACE_STEP_NOTE"

/* Why the profiler stands aside in a step (profiler.c skip_recording). */
#define TP_ENV_PROFILE_SKIP "TOPOPLACE_PROFILE_SKIP"

/* Where task_p_pre_launch finds the profiler a step should preload. */
#define TP_ENV_PROFILER_LIB "TOPOPLACE_PROFILER_LIB"

/* The profile name the site records the batch job's steps as
 * (ProfileRecord; decided once per job by batch_prep.h). */
#define TP_ENV_RECORD TP_BATCH_PREP_RECORD_VAR

/* An error on the step's first node, a debug line on the others. */
#define _loud_error(loud, ...)                                                 \
	do {                                                                   \
		if (loud)                                                      \
			error(__VA_ARGS__);                                    \
		else                                                           \
			debug(__VA_ARGS__);                                    \
	} while (0)
#define _loud_info(loud, ...)                                                  \
	do {                                                                   \
		if (loud)                                                      \
			info(__VA_ARGS__);                                     \
		else                                                           \
			debug(__VA_ARGS__);                                    \
	} while (0)

extern int init(void)
{
	debug("%s loaded", plugin_name);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	return SLURM_SUCCESS;
}

/* "NAME=value" lookup in a Slurm environment array of @count entries. */
static const char *_env_get(char **env, uint32_t count, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; env && i < count; i++)
		if (env[i] && !strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/*
 * Where the preload library @lib is: the first directory of the
 * colon-separated $TOPOPLACE_LIBDIR (slurmd's environment: test beds run
 * the libraries where the build made them, e.g. profiles/.libs and
 * throttle/.libs) that holds it, else pkglibdir.
 */
static void _lib_path(const char *lib, char *out, size_t size)
{
	const char *dirs = getenv("TOPOPLACE_LIBDIR");

	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":");

		if (n) {
			snprintf(out, size, "%.*s/%s", (int)n, dirs, lib);
			if (!access(out, F_OK))
				return;
		}
		dirs += n + (dirs[n] == ':');
	}
	snprintf(out, size, "%s/%s", TP_PKGLIBDIR, lib);
}

/* The flags of a job from its SPANK environment; bad values are logged. */
static void _opts_from_spank(char **spank_env, uint32_t count, uint32_t job_id,
                             tp_opt_values *opts)
{
	tp_error err;

	tp_opt_values_init(opts);
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);
		const char *value =
		    tp_spank_job_option(spank_env, count, info->name);

		if (value && tp_opt_values_set(opts, (tp_opt_id)i, value, &err))
			error("%s: JobId=%u: %s: ignored", plugin_type, job_id,
			      err.message);
	}
}

/*
 * Slurm's log for the core's lines (tp_log.h), each after the plugin's
 * type, as the plugin's own lines are.
 */
static void _log_sink(void *data, tp_log_level level, const char *message)
{
	switch (level) {
	case TP_LOG_ERROR:
	case TP_LOG_WARNING:
		error("%s: %s", plugin_type, message);
		break;
	case TP_LOG_INFO:
		info("%s: %s", plugin_type, message);
		break;
	default:
		debug("%s: %s", plugin_type, message);
	}
}

static const tp_logger _slurm_log = {
    .sink = _log_sink, .max_level = TP_LOG_DEBUG};

/*
 * The I/O throttle window (prep_throttle.h decides): from the profile's
 * I/O pattern (@totals, NULL: none) and the partition's policy, with the
 * user's --io-throttle on top.  Returns true and fills @window_us and
 * @reason when the job is to be throttled.  @who names the job or step in
 * log lines ("JobId=5", "StepId=5.0"); @loud: errors as errors, else as
 * debug lines; @dbg (DebugFlags=Throttle): the inputs and the decision as
 * "Throttle:" lines.
 */
static bool _throttle_decide(const char *who, bool loud, bool dbg,
                             const tp_config_settings *settings,
                             const tp_profile_summary *totals,
                             const tp_opt_values *opts, uint64_t *window_us,
                             char *reason, size_t reason_size)
{
	tp_prep_throttle_who decider = {
	    .who = who, .loud = loud, .dbg = dbg, .log = &_slurm_log};
	tp_io_pattern pattern;
	bool io = totals &&
	          tp_sc_io_pattern(totals, &settings->thresholds, &pattern);

	return tp_prep_throttle_decide(&decider, settings, io ? &pattern : NULL,
	                               &opts->io_throttle, window_us, reason,
	                               reason_size);
}

/* True when the site changed the window the user asked for. */
static bool _user_window_changed(const tp_opt_values *opts, uint64_t window_us)
{
	return tp_prep_throttle_user_window_changed(&opts->io_throttle,
	                                            window_us);
}

/* The I/O servers of the job's @nodes; one log line on failure. */
static bool _ioservers_place(const char *who, bool loud, const tp_topo *topo,
                             const char *nodes, uint32_t servers,
                             const tp_config_settings *settings,
                             uint32_t job_id, tp_ioserver_result *result,
                             char *hosts, size_t hosts_size)
{
	tp_error err;

	if (tp_sc_ioservers_place(topo, nodes, servers,
	                          settings->ioserver_policy, job_id, result,
	                          &err) != TP_OK ||
	    tp_sc_ioservers_format(topo, result, ',', hosts, hosts_size,
	                           &err) != TP_OK) {
		_loud_error(loud, "%s: %s: %u I/O servers: %s: none placed",
		            plugin_type, who, servers, err.message);
		tp_ioserver_result_free(result);
		return false;
	}
	return true;
}

/* True when @config's DebugFlags include @flag. */
static bool _debug(const tp_config *config, uint32_t flag)
{
	return config && (tp_config_site_settings(config)->debug_flags & flag);
}

/* ---- batch jobs, in slurmd ------------------------------------------ */

/*
 * The job's files, written by a child as the job's user into the
 * directory root made for it (see the top): @map (NULL: none) and @io
 * (NULL: none).  0, or the step that failed.
 */
static int _write_files_as_user(const tp_batch_identity *id, const char *dir,
                                const tp_topo *topo,
                                const tp_remap_mapping *map,
                                const tp_ioserver_result *io)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		tp_error err;

		if (setgroups(0, NULL) || setgid(id->gid) || setuid(id->uid))
			_exit(3);
		if (map && tp_sc_remap_write(dir, topo, map, &err) != TP_OK)
			_exit(6);
		if (io && tp_sc_ioservers_write(dir, topo, io, &err) != TP_OK)
			_exit(7);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Where the batch job's variables and notes go: straight into the launch
 * request (@fd < 0), or, from the child that does the job's work (see
 * task_p_slurmd_batch_request), as records on @fd for slurmd to apply
 * once the child has finished within its budget (jobprep/child_records.h:
 * "E NAME=value", "N note", and a last "D" once all is sent).
 */
struct batch_out {
	batch_job_launch_msg_t *req;
	int fd;
};

/* Write all of @text to @fd; false when the reader is gone. */
static bool _write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		text += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * In the child: one record on @fd.  One that cannot be a line (a newline
 * in a variable's value) is not sent, and the log says which.
 */
static void _record_send(int fd, tp_child_record_kind kind, const char *name,
                         const char *value)
{
	tp_strbuf line = TP_STRBUF_INIT(0);
	tp_error err;

	if (tp_child_record_add(&line, kind, name, value, &err) != TP_OK)
		error("%s: %s", plugin_type, err.message);
	else
		(void)_write_all(fd, line.s, line.len);
	tp_strbuf_free(&line);
}

static void _env_put(struct batch_out *out, const char *name, const char *value)
{
	if (out->fd < 0) {
		env_array_overwrite(&out->req->environment, name, value);
		out->req->envc = envcount(out->req->environment);
		return;
	}
	_record_send(out->fd, TP_CHILD_RECORD_SET, name, value);
}

/*
 * A note for the job's output: collected in TOPOPLACE_NOTE ("; " between
 * notes), which task_p_pre_launch prints on the batch script's stderr.
 */
static void _note(struct batch_out *out, const char *text)
{
	const char *old;
	char *line = NULL;

	if (out->fd >= 0) {
		_record_send(out->fd, TP_CHILD_RECORD_NOTE, NULL, text);
		return;
	}
	old = _env_get(out->req->environment, out->req->envc, TP_ENV_NOTE);
	if (old && old[0])
		xstrfmtcat(line, "%s; %s", old, text);
	else
		line = xstrdup(text);
	_env_put(out, TP_ENV_NOTE, line);
	xfree(line);
}

/* The core's answer (batch_prep.h), variables first, then notes. */
static void _apply_prep(struct batch_out *out, const tp_batch_prep *prep)
{
	for (size_t i = 0; i < prep->var_count; i++)
		_env_put(out, prep->vars[i].name, prep->vars[i].value);
	for (size_t i = 0; i < prep->note_count; i++)
		_note(out, prep->notes[i]);
	if (prep->out_of_memory)
		error("%s: JobId=%u: out of memory: some of topoplace's "
		      "variables or notes left out",
		      plugin_type, out->req->job_id);
}

/* ---- the core's ports (batch_prep.h): the store, fabric and files --- */

/* What the ports need besides their arguments. */
struct prep_ctx {
	const tp_config *config;
	const char *munge_socket;
	const tp_batch_identity *id; /* the job's user (tp_slurm_compat.h) */
	uint32_t job_id;
	/* The scale view _port_totals read with the run's totals (room for
	 * TP_IDENTITY_RUN_CANDIDATES_MAX, or NULL), for _port_scaled: the
	 * store's summaries are read once per job. */
	tp_scale_run *scale_runs;
	size_t scale_count;
	char scale_name[TP_STORE_NAME_MAX + 1]; /* whose runs they are */
};

static tp_status _port_identity(void *ctx, const char *user,
                                const tp_identity_profile *profile,
                                const char *script_key, tp_identity_key *key,
                                tp_error *err)
{
	struct prep_ctx *c = ctx;

	return tp_sc_identity(c->config, c->munge_socket, user, profile,
	                      script_key, key, err);
}

static tp_status _port_totals(void *ctx, const char *user, const char *name,
                              uint32_t tasks, tp_profile_summary *totals,
                              bool *from_summary, tp_batch_prep_stored_run *run,
                              tp_error *err)
{
	struct prep_ctx *c = ctx;
	tp_sc_profile_run found;
	tp_status rc;

	rc = tp_sc_profile_totals(c->config, c->munge_socket, user, name, tasks,
	                          0, totals, from_summary, &found,
	                          c->scale_runs, err);
	snprintf(run->file, sizeof(run->file), "%s", found.file);
	run->over_newest = found.over_newest;
	c->scale_count = c->scale_runs ? found.scale_count : 0;
	snprintf(c->scale_name, sizeof(c->scale_name), "%s", name);
	return rc;
}

static tp_status _port_scaled(void *ctx, const char *user, const char *name,
                              uint32_t tasks, tp_profile **scaled, char *text,
                              size_t text_size, tp_error *err)
{
	struct prep_ctx *c = ctx;
	bool have = c->scale_count && !strcmp(c->scale_name, name);

	return tp_sc_scaled_profile(c->config, c->munge_socket, user, name,
	                            tasks, have ? c->scale_runs : NULL,
	                            have ? c->scale_count : 0, scaled, text,
	                            text_size, err);
}

static tp_status _port_read_profile(void *ctx, const char *user,
                                    const char *name, const char *file,
                                    tp_profile **profile, tp_error *err)
{
	struct prep_ctx *c = ctx;

	return tp_sc_read_profile(c->config, c->munge_socket, user, name, file,
	                          profile, err);
}

static tp_status _port_load_topo(void *ctx, tp_topo **topo, tp_error *err)
{
	return tp_sc_load_topo(((struct prep_ctx *)ctx)->config, topo, err);
}

/*
 * The job's directory, made by root (tp_sc_job_dir_prepare), and its
 * files written into it as the job's user; each failure one log line.
 */
static bool _port_write_files(void *ctx, const tp_topo *topo,
                              const tp_remap_mapping *map,
                              const tp_ioserver_result *io, char *dir,
                              size_t dir_size)
{
	struct prep_ctx *c = ctx;
	char moved[4600];
	tp_error err;
	int rc;

	if (tp_sc_job_dir_prepare(slurm_conf.tmp_fs, c->job_id, c->id->uid,
	                          c->id->gid, dir, dir_size, moved,
	                          sizeof(moved), &err) != TP_OK) {
		error("%s: JobId=%u: %s: no rank files%s", plugin_type,
		      c->job_id, err.message, io ? " or I/O server list" : "");
		return false;
	}
	if (moved[0])
		error("%s: JobId=%u: %s", plugin_type, c->job_id, moved);
	rc = _write_files_as_user(c->id, dir, topo, map, io);
	if (rc)
		error("%s: JobId=%u: cannot write the job's files in %s (step "
		      "%d): no rank remapping%s",
		      plugin_type, c->job_id, dir, rc,
		      io ? "; I/O servers in the environment only" : "");
	return rc == 0;
}

/* The launch request and the job's flags as the core's plain job. */
static void _prep_job(const batch_job_launch_msg_t *req,
                      const tp_batch_identity *id, const tp_opt_values *opts,
                      const tp_config *config,
                      const tp_config_settings *settings, char *pacing_lib,
                      size_t pacing_lib_size, tp_batch_prep_job *job)
{
	_lib_path("libtopoplace_pacing.so", pacing_lib, pacing_lib_size);
	*job = (tp_batch_prep_job){
	    .job_id = req->job_id,
	    .user = id->user_name,
	    .ntasks = req->ntasks,
	    .nodes = req->nodes,
	    .script = req->script,
	    .script_len = req->script ? strlen(req->script) : 0,
	    .job_name = _env_get(req->environment, req->envc, "SLURM_JOB_NAME"),
	    .comm_profile = opts->comm_profile,
	    .rank_remap = opts->rank_remap,
	    .comm_record = opts->comm_record,
	    .comm_record_off = opts->comm_record_off,
	    .io_throttle = opts->io_throttle,
	    .io_servers = opts->io_servers ? opts->io_servers
	                                   : settings->ioserver_count,
	    .config = config,
	    .settings = settings,
	    .pacing_lib = pacing_lib,
	    .now_s = (int64_t)time(NULL),
	};
}

/*
 * The job's work, in the child (see task_p_slurmd_batch_request): the
 * core decides and reads through the ports; variables and notes go to
 * @out's descriptor.
 */
static void _batch_work(struct batch_out *out, const tp_batch_prep_job *job,
                        const tp_batch_identity *id)
{
	char socket[256] = "";
	struct prep_ctx ctx = {.config = job->config,
	                       .munge_socket = socket,
	                       .id = id,
	                       .job_id = job->job_id};
	tp_batch_prep_ports ports = {
	    .ctx = &ctx,
	    .identity = _port_identity,
	    .totals = _port_totals,
	    .scaled = _port_scaled,
	    .read_profile = _port_read_profile,
	    .io_pattern = tp_sc_io_pattern,
	    .load_topo = _port_load_topo,
	    .remap = tp_sc_remap,
	    .ioservers_place = tp_sc_ioservers_place,
	    .ioservers_format = tp_sc_ioservers_format,
	    .write_files = _port_write_files,
	};
	tp_batch_prep prep;

	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	/* 16 runs of 300 bytes: off the stack; without it the runs are read
	 * again if the job needs them scaled. */
	ctx.scale_runs =
	    calloc(TP_IDENTITY_RUN_CANDIDATES_MAX, sizeof(*ctx.scale_runs));
	tp_batch_prep_init(&prep);
	tp_batch_prep_run(job, &ports, &_slurm_log, &prep);
	_apply_prep(out, &prep);
	tp_batch_prep_free(&prep);
	free(ctx.scale_runs);
}

/* The throttle window alone (no profile), straight into the request. */
static void _throttle_only(struct batch_out *out, const tp_batch_prep_job *job)
{
	tp_batch_prep prep;

	tp_batch_prep_init(&prep);
	tp_batch_prep_throttle(job, &_slurm_log, &prep);
	_apply_prep(out, &prep);
	tp_batch_prep_free(&prep);
}

/* Field @field (0: size, 1: resident) of /proc/@pid/statm, in bytes; 0 if
 * unknown. */
static uint64_t _statm_bytes(pid_t pid, int field)
{
	char path[64];
	unsigned long value[2] = {0, 0};
	FILE *statm;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if (!(statm = fopen(path, "r")))
		return 0;
	if (fscanf(statm, "%lu %lu", &value[0], &value[1]) != 2)
		value[0] = value[1] = 0;
	fclose(statm);
	return (uint64_t)value[field] * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * In the child: no more memory than RemapMemory over what slurmd already
 * maps, a CPU limit just over the budget, and signals as for a fresh
 * process (slurmd's thread blocks some).  It keeps slurmd's priority:
 * slurmd's launch RPC waits for it, and at a lower one a busy node
 * starved it past its budget even with nothing to remap (a 2,000-job
 * stream at load 16: jobs ran in Slurm's order, and launches queued
 * behind the wait until slurmctld gave up on them).
 */
static void _limit_child(const tp_config_settings *settings, uint64_t budget_us)
{
	struct rlimit as, cpu;
	sigset_t none;

	/* A backstop for new mappings; what slurmd's heap arenas already
	 * reserve is not counted here, so _supervise watches the child's
	 * resident memory as well. */
	as.rlim_cur = as.rlim_max = (rlim_t)_statm_bytes(getpid(), 0) +
	                            (rlim_t)settings->remap_memory_bytes;
	(void)setrlimit(RLIMIT_AS, &as);
	cpu.rlim_cur = (rlim_t)(budget_us / 1000000 + 1);
	cpu.rlim_max = cpu.rlim_cur + 1;
	(void)setrlimit(RLIMIT_CPU, &cpu);
	sigemptyset(&none);
	(void)pthread_sigmask(SIG_SETMASK, &none, NULL);
}

/* At most this much from the child: a runaway child cannot grow slurmd. */
#define TP_BATCH_RECORDS_MAX (64 * 1024)

/* What the child sent and how it ended. */
struct batch_child {
	char *records; /* xmalloc'd, NUL-terminated */
	size_t len;
	bool over_time, over_records, over_memory;
	int status; /* waitpid status, valid unless over_time */
};

static uint64_t _now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * Read @fd until the child @pid has exited and sent everything, at most
 * until @budget_us from now and TP_BATCH_RECORDS_MAX bytes, with at most
 * @memory_bytes resident over @base_bytes (slurmd's own, which the child
 * shares at first), looked at every 20 ms; past any of them,
 * kill the child's process group (it and the writer it forked as the
 * job's user).  The child's exit is watched too, not only the end of the
 * pipe, in case another process holds the pipe open.  The child is
 * always reaped.
 */
static void _supervise(pid_t pid, int fd, uint64_t budget_us,
                       uint64_t base_bytes, uint64_t memory_bytes,
                       struct batch_child *child)
{
	uint64_t deadline = _now_us() + budget_us;
	size_t cap = 4096;
	bool eof = false, reaped = false;

	child->records = xmalloc(cap);
	child->len = 0;
	for (;;) {
		uint64_t now = _now_us(), wait_ms;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ready = 0;

		if (now >= deadline) {
			child->over_time = true;
			break;
		}
		wait_ms = (deadline - now + 999) / 1000;
		if (!eof) {
			ready = poll(&pfd, 1, wait_ms < 20 ? (int)wait_ms : 20);
			if (ready < 0 && errno != EINTR)
				eof = true;
		} else
			usleep(1000);
		if (ready > 0) {
			ssize_t n;

			if (child->len + 1 >= cap) {
				if (cap >= TP_BATCH_RECORDS_MAX) {
					child->over_records = true;
					break;
				}
				cap *= 2;
				xrealloc(child->records, cap);
			}
			n = read(fd, child->records + child->len,
			         cap - 1 - child->len);
			if (n > 0)
				child->len += (size_t)n;
			else if (n == 0 || errno != EINTR)
				eof = true;
		}
		if (!reaped) {
			pid_t done = waitpid(pid, &child->status, WNOHANG);

			/* ECHILD: reaped by someone else; its records
			 * still say whether it finished. */
			if (done == pid || (done < 0 && errno == ECHILD)) {
				if (done < 0)
					child->status = 0;
				reaped = true;
			}
		}
		if (!reaped &&
		    _statm_bytes(pid, 1) > base_bytes + memory_bytes) {
			child->over_memory = true;
			break;
		}
		/* Exited, and nothing more waiting in the pipe. */
		if (reaped && (eof || ready == 0))
			break;
	}
	child->records[child->len] = '\0';
	if (reaped)
		return;
	(void)kill(-pid, SIGKILL);
	(void)kill(pid, SIGKILL);
	/* At most a second more: a child stuck in a hung file system
	 * (state D) dies only when the file system answers, and the daemon
	 * must not wait for that.  Its status is not needed: every way
	 * here is over a bound. */
	for (int i = 0; i < 100; i++) {
		pid_t done = waitpid(pid, &child->status, WNOHANG);

		if (done == pid || (done < 0 && errno != EINTR))
			break;
		usleep(10000);
	}
}

/* One record of slurmd's child, applied to the batch job (@ctx: its
 * batch_out).  The child sets and notes; it has nothing to unset. */
static void _batch_record_apply(tp_child_record_kind kind, const char *name,
                                const char *value, void *ctx)
{
	struct batch_out *out = ctx;

	if (kind == TP_CHILD_RECORD_NOTE)
		_note(out, value);
	else if (kind == TP_CHILD_RECORD_SET)
		_env_put(out, name, value);
	else
		error("%s: JobId=%u: the batch work's child unset %s: ignored",
		      plugin_type, out->req->job_id, name);
}

/* Apply the records of a child that finished (@records: all it sent). */
static void _records_apply(char *records, tp_child_record_fn fn, void *ctx,
                           const char *who)
{
	size_t skipped = tp_child_records_each(records, fn, ctx);

	if (skipped)
		error("%s: %s: %zu line(s) from the child were no record: "
		      "ignored",
		      plugin_type, who, skipped);
}

/*
 * The work's budget: RemapBudget, and never more than half of Slurm's
 * MessageTimeout (slurmctld stops waiting for slurmd's answer after it
 * and requeues the job).
 */
static uint64_t _budget_us(const tp_config_settings *settings)
{
	uint64_t half_timeout_us =
	    (uint64_t)(slurm_conf.msg_timeout ? slurm_conf.msg_timeout : 10) *
	    500000;

	return settings->remap_budget_us < half_timeout_us
	           ? settings->remap_budget_us
	           : half_timeout_us;
}

/*
 * Why a bounded child's work was dropped, for the log and the user's
 * stderr: "@what <what happened>: @outcome".  @within says the time bound
 * ("within its budget of 2 s (RemapBudget)"), @limits both bounds for a
 * child stopped by a signal (RLIMIT_CPU, RLIMIT_AS).
 */
static void _failure_note(const struct batch_child *child,
                          const tp_config_settings *settings,
                          const char *what, const char *within,
                          const char *limits, const char *outcome,
                          char *note, size_t size)
{
	if (child->over_time)
		snprintf(note, size, "%s did not finish %s: %s", what, within,
		         outcome);
	else if (child->over_memory)
		snprintf(note, size,
		         "%s needed more than %" PRIu64 " MiB (RemapMemory): %s",
		         what, settings->remap_memory_bytes >> 20, outcome);
	else if (child->over_records)
		snprintf(note, size, "%s said more than %d bytes: %s", what,
		         TP_BATCH_RECORDS_MAX, outcome);
	else if (WIFSIGNALED(child->status))
		snprintf(note, size,
		         "%s was stopped by signal %d (%s, RemapMemory %" PRIu64
		         " MiB): %s",
		         what, WTERMSIG(child->status), limits,
		         settings->remap_memory_bytes >> 20, outcome);
	else
		snprintf(note, size, "%s did not finish (exit status %d): %s",
		         what,
		         WIFEXITED(child->status) ? WEXITSTATUS(child->status)
		                                  : -1,
		         outcome);
}

/* Why slurmd's child for a batch job was dropped.  It names all of the
 * work: a hung store shows here as much as a large remapping. */
static void _child_failure_note(const struct batch_child *child,
                                const tp_config_settings *settings,
                                uint64_t budget_us, char *note, size_t size)
{
	char budget[32], within[96], limits[64];

	tp_units_format_us((double)budget_us, budget, sizeof(budget));
	snprintf(within, sizeof(within),
	         "within its budget of %s (RemapBudget)", budget);
	snprintf(limits, sizeof(limits), "RemapBudget %s", budget);
	_failure_note(child, settings,
	              "topoplace's work for the job (profile, rank remapping, "
	              "I/O servers)",
	              within, limits, "the job runs in Slurm's order", note,
	              size);
}

/* The work a bounded child does: its records go to @fd. */
typedef void (*bounded_work)(int fd, void *ctx);

/*
 * Run @work(fd, @ctx) in a child of the daemon in its own process group,
 * bounded by @budget_us and RemapMemory (_limit_child, _supervise), and
 * collect what it sent into @child.  True when the child finished within
 * every bound and sent its last record (TP_CHILD_RECORD_DONE); false otherwise,
 * with @child->records NULL when no child could be made (pipe or fork:
 * errno says why).
 */
static bool _run_child_bounded(const tp_config_settings *settings,
                               uint64_t budget_us, bounded_work work,
                               void *ctx, struct batch_child *child)
{
	uint64_t base_bytes = _statm_bytes(getpid(), 1);
	int pipe_fd[2];
	pid_t pid;

	memset(child, 0, sizeof(*child)); /* records NULL: no child */
	/* Close-on-exec at once: slurmstepd, forked by other threads,
	 * must not hold the write end open. */
	if (pipe2(pipe_fd, O_CLOEXEC))
		return false;
	pid = fork();
	if (pid == 0) {
		(void)setpgid(0, 0);
		close(pipe_fd[0]);
		_limit_child(settings, budget_us);
		work(pipe_fd[1], ctx);
		(void)_write_all(pipe_fd[1], TP_CHILD_RECORD_DONE,
		                 strlen(TP_CHILD_RECORD_DONE));
		_exit(0);
	}
	close(pipe_fd[1]);
	if (pid < 0) {
		int saved = errno;

		close(pipe_fd[0]);
		errno = saved;
		return false;
	}
	(void)setpgid(pid, pid); /* whichever of the two runs first */
	_supervise(pid, pipe_fd[0], budget_us, base_bytes,
	           settings->remap_memory_bytes, child);
	close(pipe_fd[0]);
	return !child->over_time && !child->over_records &&
	       !child->over_memory && WIFEXITED(child->status) &&
	       WEXITSTATUS(child->status) == 0 &&
	       tp_child_records_done(child->records, child->len);
}

/* What _batch_work needs in the child. */
struct batch_work_ctx {
	batch_job_launch_msg_t *req;
	const tp_batch_prep_job *job;
	const tp_batch_identity *id;
};

static void _batch_work_on(int fd, void *ctx)
{
	struct batch_work_ctx *c = ctx;
	struct batch_out to_parent = {.req = c->req, .fd = fd};

	_batch_work(&to_parent, c->job, c->id);
}

/*
 * Run _batch_work for @job in a child bounded by RemapBudget and
 * RemapMemory and apply what it sent.  Past a bound, or when the child
 * dies, nothing of its work is kept: one log line, one note on the job's
 * stderr, the job's directory removed, and the window of the user's own
 * (--io-throttle) still applied.
 */
static void _run_bounded(struct batch_out *out, const tp_batch_prep_job *job,
                         const tp_batch_identity *id)
{
	const tp_config_settings *settings = job->settings;
	uint64_t budget_us = _budget_us(settings);
	struct batch_work_ctx ctx = {out->req, job, id};
	struct batch_child child;
	char note[512], dir[1024];

	if (_run_child_bounded(settings, budget_us, _batch_work_on, &ctx,
	                       &child)) {
		char who[32];

		snprintf(who, sizeof(who), "JobId=%u", job->job_id);
		_records_apply(child.records, _batch_record_apply, out, who);
		xfree(child.records);
		return;
	}
	if (!child.records) {
		error("%s: JobId=%u: no child for the work: %m: no remapping "
		      "or I/O servers",
		      plugin_type, job->job_id);
		_throttle_only(out, job);
		return;
	}
	xfree(child.records);
	_child_failure_note(&child, settings, budget_us, note, sizeof(note));
	error("%s: JobId=%u: %s", plugin_type, job->job_id, note);
	_note(out, note);
	tp_sc_job_dir_in_base(slurm_conf.tmp_fs, job->job_id, dir, sizeof(dir));
	if (tp_sc_job_dir_remove(dir) && errno != ENOENT)
		debug("%s: JobId=%u: %s left: %m", plugin_type, job->job_id,
		      dir);
	_throttle_only(out, job);
}

/*
 * Once per batch job, in slurmd (see the top): rank remapping, I/O
 * servers and the throttle window, decided by the core (batch_prep.h).
 *
 * slurmd runs this in its batch launch RPC handler and answers
 * slurmctld only afterwards, so the work that grows with the profile
 * (reading and verifying it, the remapping, the files) runs in a child
 * with RemapMemory of address space and RemapBudget of time, killed past
 * either (_run_bounded).  Every other failure is one log line with the
 * job id and leaves the job as Slurm would run it.
 */
extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
	char conf_path[1024], pacing_lib[1024];
	tp_batch_identity id;
	struct batch_out out = {.req = req, .fd = -1};
	tp_batch_prep_job job;
	tp_config *config = NULL;
	tp_opt_values opts;
	tp_error err;
	int missing;

	if (tp_batch_identity_get(req, &id)) {
		error("%s: JobId=%u: the launch request names no user: no "
		      "remapping, I/O servers or throttling",
		      plugin_type, req->job_id);
		return SLURM_SUCCESS;
	}
	_opts_from_spank(req->spank_job_env, req->spank_job_env_size,
	                 req->job_id, &opts);
	tp_sc_conf_path(slurm_conf.slurm_conf, conf_path, sizeof(conf_path));
	if (tp_sc_load_config(conf_path, &config, &missing, &err) != TP_OK) {
		char *why = NULL;

		error("%s: JobId=%u: %s: no remapping, I/O servers or "
		      "throttling",
		      plugin_type, req->job_id, err.message);
		/* The user looks at the job's output, not slurmd's log: a
		 * job with a profile that runs in Slurm's order says why. */
		xstrfmtcat(why,
		           "topoplace.conf not loaded (%s): no rank remapping, "
		           "I/O servers or throttling: the job runs in Slurm's "
		           "order",
		           err.message);
		_note(&out, why);
		xfree(why);
		return SLURM_SUCCESS;
	}
	_prep_job(req, &id, &opts, config,
	          tp_config_for_partition(config, req->partition), pacing_lib,
	          sizeof(pacing_lib), &job);
	if (tp_batch_prep_needs_work(&job))
		_run_bounded(&out, &job, &id);
	else /* nothing that grows with a profile: decided right here */
		_throttle_only(&out, &job);
	tp_config_free(config);
	return SLURM_SUCCESS;
}

extern int task_p_slurmd_launch_request(launch_tasks_request_msg_t *req,
                                        uint32_t node_id, char **err_msg)
{
	return SLURM_SUCCESS;
}

extern int task_p_slurmd_suspend_job(uint32_t job_id)
{
	return SLURM_SUCCESS;
}

extern int task_p_slurmd_resume_job(uint32_t job_id)
{
	return SLURM_SUCCESS;
}

/* ---- other steps, in slurmstepd -------------------------------------- */

/* The step's flags, from the TOPOPLACE_* the SPANK plugin set. */
static void _opts_from_step(stepd_step_rec_t *job, const char *who, bool loud,
                            tp_opt_values *opts)
{
	tp_error err;

	tp_opt_values_init(opts);
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);
		const char *value = getenvp(job->env, info->env);

		if (value && tp_opt_values_set(opts, (tp_opt_id)i, value, &err))
			_loud_error(loud, "%s: %s: %s: %s: ignored",
			            plugin_type, who, info->env, err.message);
	}
}

/*
 * --comm-record: what the profiler (profiles/profiler.c; its contract:
 * TOPOPLACE_PROFILE_STORE, _NAME, TOPOPLACE_MUNGE_SOCKET) needs, and the
 * library for task_p_pre_launch to preload, so the profile lands in the
 * store signed by the job's user (the tasks run as that user).
 */
static void _comm_record(stepd_step_rec_t *job, const tp_config *config,
                         const tp_opt_values *opts, const char *site_name)
{
	char socket[256], lib[1024];
	const char *name = opts->comm_record_name[0] ? opts->comm_record_name
	                   : site_name ? site_name
	                               : getenvp(job->env, "SLURM_JOB_NAME");
	const tp_config_site *site = tp_config_site_settings(config);
	const char *store = site->profile_store;
	tp_error err;

	/* Only root makes a user's namespace (store.h); if that fails the
	 * profiler's own error reaches the job's output at MPI_Finalize. */
	if (tp_store_prepare_user(store, job->uid, job->gid, &err) != TP_OK)
		error(
		    "%s: StepId=%u.%u: --comm-record: %s: recording will fail",
		    plugin_type, job->step_id.job_id, job->step_id.step_id,
		    err.message);
	_lib_path("libtopoplace_profiler.so", lib, sizeof(lib));
	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	setenvf(&job->env, "TOPOPLACE_PROFILE_STORE", "%s", store);
	/* The profiler prunes the application it stores into: by the
	 * site's ProfileKeep and ProfileMaxAge, not its own defaults. */
	setenvf(&job->env, "TOPOPLACE_PROFILE_KEEP", "%u", site->profile_keep);
	setenvf(&job->env, "TOPOPLACE_PROFILE_MAX_AGE", "%lld",
	        (long long)site->profile_max_age_s);
	if (name && tp_store_valid_name(name))
		setenvf(&job->env, "TOPOPLACE_PROFILE_NAME", "%s", name);
	if (socket[0])
		setenvf(&job->env, "TOPOPLACE_MUNGE_SOCKET", "%s", socket);
	setenvf(&job->env, TP_ENV_PROFILER_LIB, "%s", lib);
}

/* Add @fmt to what the step's rank 0 is told (TP_ENV_STEP_NOTE). */
static void _step_note_add(stepd_step_rec_t *job, const char *fmt, ...)
{
	const char *old = getenvp(job->env, TP_ENV_STEP_NOTE);
	char note[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	/* One line for rank 0's stderr, and one record from the step's
	 * child: a path in it may hold a newline. */
	for (char *nl = strchr(note, '\n'); nl; nl = strchr(nl, '\n'))
		*nl = ' ';
	if (old && old[0])
		setenvf(&job->env, TP_ENV_STEP_NOTE, "%s; %s", old, note);
	else
		setenvf(&job->env, TP_ENV_STEP_NOTE, "%s", note);
}

/*
 * What the step's executable says (exec_match.h), found at most once per
 * step and node for the recording and the throttle window: its command
 * found and hashed as the user would (tp_sc_step_exec_id, bounded), its
 * arguments digested, then the user's runs of the same command (or, under
 * ProfileByExecutable=program, of the same program).
 */
struct step_exec {
	bool tried;
	bool linked; /* _step_link_script was done */
	tp_exec_match_rule rule; /* how match was found */
	tp_status rc; /* of finding, hashing or looking up */
	tp_error err;
	tp_exec_match match;
	tp_profile_summary *summary; /* the chosen run's, when found */
};

static void _step_exec_find(stepd_step_rec_t *job, const tp_config *config,
                            const tp_config_settings *settings,
                            struct step_exec *se)
{
	tp_sc_step_user user = {job->uid, job->gid, job->gids,
	                        job->ngids > 0 ? (size_t)job->ngids : 0};
	char socket[256];
	tp_exec_id exec;
	size_t args = 0;

	if (se->tried)
		return;
	se->tried = true;
	if (!job->argv || !job->argv[0]) {
		se->rc = tp_error_set(&se->err, TP_ERR_INVALID,
		                      "the step has no command");
		return;
	}
	se->rc =
	    tp_sc_step_exec_id(&user, job->argv[0], getenvp(job->env, "PATH"),
	                       job->cwd, &exec, &se->err);
	if (se->rc != TP_OK)
		return;
	/* `python app.py`: the interpreter says nothing of the program. */
	if (tp_exec_is_interpreter(exec.path)) {
		snprintf(se->match.why, sizeof(se->match.why),
		         "by executable: %s is an interpreter or launcher, not "
		         "an application's own program",
		         exec.path);
		return;
	}
	/* The arguments, argv[1..], as the profiler digests its own
	 * (exec_id.h): one solver run with other inputs is another
	 * application under ProfileByExecutable=command. */
	while (args + 1 < job->argc && job->argv[args + 1])
		args++;
	tp_exec_args_digest((const char *const *)job->argv + 1, args, &exec);
	/* A credential of up to 8 KiB: not on the stack. */
	if (!(se->summary = malloc(sizeof(*se->summary)))) {
		se->rc = tp_error_set(&se->err, TP_ERR_NOMEM, "out of memory");
		return;
	}
	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	se->rule = settings->profile_by_exec;
	se->rc =
	    tp_sc_exec_match(config, socket, job->user_name, &exec,
	                     settings->profile_by_exec, job->ntasks, &se->match,
	                     se->summary, &se->err);
}

/*
 * A step of a batch job whose script's key has no profile, found by its
 * executable: link the script's key to that application (store.h,
 * TP_STORE_LINK_FILE), so that slurmctld places the script's next jobs
 * with it and slurmd remaps them (tp_identity_resolve follows the link).
 * Without it a script that runs a program recorded under another script
 * never gets a placement profile: slurmctld looks up by script and job
 * name at submission and cannot hash the program.  At most once per step;
 * the same link again costs no write; a failure is one line and changes
 * nothing else.
 */
static void _step_link_script(stepd_step_rec_t *job, const char *who,
                              bool loud, const tp_config *config,
                              struct step_exec *se)
{
	const char *script_key =
	    getenvp(job->env, "TOPOPLACE_PROFILE_SCRIPT_KEY");
	char socket[256];
	bool written = false;
	tp_error err;

	if (se->linked || !se->match.found || !script_key ||
	    !tp_identity_is_script_key(script_key) ||
	    !strcmp(script_key, se->match.name))
		return;
	se->linked = true;
	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	if (tp_sc_link_script(config, socket, job->user_name, script_key,
	                      se->match.name, job->step_id.job_id,
	                      se->rule == TP_EXEC_MATCH_COMMAND
	                          ? TP_STORE_LINK_COMMAND
	                          : TP_STORE_LINK_PROGRAM,
	                      &written, &err) != TP_OK) {
		_loud_error(loud,
		            "%s: %s: batch script %s not linked to profile "
		            "%s/%s: %s",
		            plugin_type, who, script_key, job->user_name,
		            se->match.name, err.message);
		return;
	}
	if (!written)
		return;
	_loud_info(loud,
	           "%s: %s: batch script %s linked to profile %s/%s (found %s): "
	           "its next jobs are placed with it",
	           plugin_type, who, script_key, job->user_name,
	           se->match.name, se->match.why);
	_step_note_add(job,
	               "this batch script's next jobs are placed with profile "
	               "%s/%s, found by its executable",
	               job->user_name, se->match.name);
}

/*
 * A step of a batch job the site records (TP_ENV_RECORD, decided by
 * slurmd from the job's script and name) under ProfileRecord=first,
 * sample or stale: when a run of the user has the step's executable, the
 * policy is asked again with that run as the application's newest
 * (tp_record_decide), so a program recorded under another job name or
 * script is not recorded again under first; stale weighs that run's age,
 * sample the job id.  Not recorded: the profiler is still preloaded on
 * every node but stands aside (TOPOPLACE_PROFILE_SKIP; rank 0's word
 * holds for every rank, profiler.c), since nodes decide apart.  Anything
 * that keeps the executable from being identified is one line, and the
 * step is recorded as the job decided.
 */
static void _record_by_exec(stepd_step_rec_t *job, const char *who, bool loud,
                            const tp_config *config,
                            const tp_config_settings *settings, const char *app,
                            const tp_opt_values *opts, struct step_exec *se)
{
	tp_record_job rec = {.app = app, .job_id = job->step_id.job_id};
	tp_record_policy policy;
	char reason[320];

	unsetenvp(job->env, TP_ENV_PROFILE_SKIP);
	tp_config_record_policy(config, settings, &policy);
	if ((policy.mode != TP_RECORD_FIRST &&
	     policy.mode != TP_RECORD_SAMPLE &&
	     policy.mode != TP_RECORD_STALE) ||
	    settings->profile_by_exec == TP_EXEC_MATCH_NO)
		return;
	_step_exec_find(job, config, settings, se);
	if (se->rc != TP_OK) {
		_loud_error(loud,
		            "%s: %s: ProfileRecord: executable not identified "
		            "(%s): recorded as decided for the job",
		            plugin_type, who, se->err.message);
		return;
	}
	if (!se->match.found) {
		_loud_info(loud && _debug(config, TP_DEBUG_PROFILE),
		           "%s: Profile: %s: no profile %s: recorded",
		           plugin_type, who, se->match.why);
		return;
	}
	rec.user =
	    opts->comm_record_off ? TP_RECORD_USER_NO : TP_RECORD_USER_UNSET;
	rec.has_profile = true;
	rec.newest_age_s = (int64_t)time(NULL) - se->match.mtime_s;
	rec.runs_of = "its executable";
	if (tp_record_decide(&policy, &rec, reason, sizeof(reason))) {
		_loud_info(loud,
		           "%s: %s: recorded as profile %s/%s: %s (profile "
		           "found %s)",
		           plugin_type, who, job->user_name, app, reason,
		           se->match.why);
		return;
	}
	setenvf(&job->env, TP_ENV_PROFILE_SKIP, "%s", reason);
	_step_note_add(job, "not recorded again: profile found %s (%s)",
	               se->match.why, reason);
	_step_link_script(job, who, loud, config, se);
	_loud_info(loud, "%s: %s: not recorded: profile found %s (%s)",
	           plugin_type, who, se->match.why, reason);
}

/*
 * An interactive step's profile totals, read in slurmstepd before its
 * tasks start (no child bounds it there, as one does a batch job's): the
 * summary beside the run (a few KiB) when the store has a fresh one; else
 * the run itself, and then a run over tp_sc_step_profile_max_bytes
 * (RemapMemory/3, at most 64 MiB) is refused from its size before anything
 * is read, and the step's rank 0 is told why on its stderr.
 */
static int _step_read_totals(stepd_step_rec_t *job, const tp_config *config,
                             const tp_config_settings *settings,
                             const char *socket, const char *name,
                             tp_profile_summary *totals, bool *from_summary,
                             tp_error *err)
{
	uint64_t cap =
	    tp_sc_step_profile_max_bytes(settings->remap_memory_bytes);
	int rc = tp_sc_profile_totals(config, socket, job->user_name, name,
	                              job->ntasks, cap, totals, from_summary,
	                              NULL, NULL, err);

	if (rc == TP_ERR_LIMIT) {
		tp_error_prefix(err,
		                "no summary and over a step's profile limit of "
		                "%" PRIu64 " MiB (RemapMemory/3, at most %u MiB)",
		                cap >> 20, TP_LOOKUP_PROFILE_MAX_BYTES >> 20);
		_step_note_add(job,
		               "profile %s/%s not used (%.300s): no I/O "
		               "throttling from it",
		               job->user_name, name, err->message);
	}
	return rc;
}

/*
 * A step with no profile by the job's keys: the run found by its
 * executable (_step_exec_find) gives its totals, into @totals.
 */
static bool _step_totals_by_exec(stepd_step_rec_t *job, const char *who,
                                 bool loud, const tp_config *config,
                                 const tp_config_settings *settings,
                                 struct step_exec *se,
                                 tp_profile_summary *totals)
{
	/* salloc's shell: neither paced nor profiled (task_p_pre_launch). */
	if (job->step_id.step_id == SLURM_INTERACTIVE_STEP)
		return false;
	_step_exec_find(job, config, settings, se);
	if (se->rc != TP_OK) {
		_loud_info(loud && _debug(config, TP_DEBUG_PROFILE),
		           "%s: Profile: %s: executable not identified (%s)",
		           plugin_type, who, se->err.message);
		return false;
	}
	if (!se->match.found || !se->summary)
		return false;
	*totals = *se->summary;
	_loud_info(loud, "%s: %s: profile found %s", plugin_type, who,
	           se->match.why);
	_step_link_script(job, who, loud, config, se);
	return true;
}

/* The step's window from @totals (NULL: no profile), into its environment. */
static void _step_set_window(stepd_step_rec_t *job, const char *who, bool loud,
                             const tp_config *config,
                             const tp_config_settings *settings,
                             const tp_opt_values *opts,
                             const tp_profile_summary *totals)
{
	char lib[1024], reason[256];
	uint64_t window_us = 0;

	if (!_throttle_decide(who, loud,
	                      loud && _debug(config, TP_DEBUG_THROTTLE),
	                      settings, totals, opts, &window_us, reason,
	                      sizeof(reason)))
		return;
	_lib_path("libtopoplace_pacing.so", lib, sizeof(lib));
	setenvf(&job->env, "TOPOPLACE_IO_WINDOW_US", "%" PRIu64, window_us);
	setenvf(&job->env, "TOPOPLACE_PACING_LIB", "%s", lib);
	if (_user_window_changed(opts, window_us))
		_step_note_add(job, "--io-throttle: %s", reason);
	_loud_info(loud, "%s: %s: I/O throttle window %" PRIu64 " us: %s",
	           plugin_type, who, window_us, reason);
}

/* The throttle window of a step the batch script did not decide for. */
static void _step_throttle(stepd_step_rec_t *job, const char *who, bool loud,
                           const tp_config *config,
                           const tp_config_settings *settings,
                           const tp_opt_values *opts, struct step_exec *se)
{
	char socket[256];
	tp_identity_profile profile = tp_identity_job_profile(
	    opts->comm_profile, getenvp(job->env, "SLURM_JOB_NAME"),
	    job->user_name);
	/* A step of a batch job: its script's key, which slurmd put in the
	 * batch script's environment (_identity); the same rule picks the
	 * key (tp_sc_identity), so the step reads the job's profile. */
	const char *script_key =
	    getenvp(job->env, "TOPOPLACE_PROFILE_SCRIPT_KEY");
	const char *name = NULL;
	tp_identity_key key;
	tp_profile_summary *totals = NULL;
	bool from_summary = false, have = false;
	tp_error err;
	int rc;

	profile.skip_link = settings->profile_by_exec == TP_EXEC_MATCH_NO;
	profile.link_by_command =
	    settings->profile_by_exec == TP_EXEC_MATCH_COMMAND;
	/* Without classes to throttle only a user window can apply. */
	if (opts->io_throttle.mode != TP_THROTTLE_FIXED &&
	    !settings->throttle_class_count)
		return;
	if (!tp_identity_is_script_key(script_key))
		script_key = NULL;
	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	/* No store name: not looked up, as slurmctld and slurmd do. */
	if (profile.lookup) {
		if (tp_sc_identity(config, socket, job->user_name, &profile,
		                   script_key, &key, &err) != TP_OK)
			_loud_error(loud,
			            "%s: %s: profile: %s: throttled without it",
			            plugin_type, who, err.message);
		else
			name = key.name;
	}
	/* The totals only (the summary, else the run bounded): a step
	 * needs no matrix.  A credential of up to 8 KiB: not on the stack. */
	if (name && (totals = malloc(sizeof(*totals)))) {
		rc = _step_read_totals(job, config, settings, socket, name,
		                       totals, &from_summary, &err);
		if (rc != TP_OK && rc != TP_ERR_NOTFOUND)
			_loud_error(loud,
			            "%s: %s: profile: %s: throttled "
			            "without it",
			            plugin_type, who, err.message);
		else if (loud && _debug(config, TP_DEBUG_PROFILE))
			info("%s: Profile: %s: %s/%s by %s: %s", plugin_type,
			     who, job->user_name, name,
			     tp_identity_source_name(key.source),
			     rc != TP_OK    ? "not in the store"
			     : from_summary ? "read (its summary)"
			                    : "read (the whole run)");
		have = rc == TP_OK;
	}
	/* No profile by the other keys: what the step runs may have one. */
	if (!have && !opts->comm_profile[0] &&
	    settings->profile_by_exec != TP_EXEC_MATCH_NO &&
	    (totals || (totals = malloc(sizeof(*totals)))))
		have = _step_totals_by_exec(job, who, loud, config, settings,
		                            se, totals);
	_step_set_window(job, who, loud, config, settings, opts,
	                 have ? totals : NULL);
	free(totals);
}

/* The I/O servers of an interactive job, into the step's environment. */
static void _step_ioservers(stepd_step_rec_t *job, const char *who, bool loud,
                            const tp_config *config,
                            const tp_config_settings *settings,
                            uint32_t servers)
{
	const char *nodes = getenvp(job->env, "SLURM_JOB_NODELIST");
	char hosts[8192];
	tp_ioserver_result io = {0};
	tp_topo *topo = NULL;
	tp_error err;

	if (!nodes) {
		_loud_error(loud,
		            "%s: %s: no SLURM_JOB_NODELIST: no I/O "
		            "servers",
		            plugin_type, who);
		return;
	}
	if (tp_sc_load_topo(config, &topo, &err) != TP_OK) {
		_loud_error(loud, "%s: %s: %s: no I/O servers", plugin_type,
		            who, err.message);
		return;
	}
	if (loud && _debug(config, TP_DEBUG_FABRIC))
		info("%s: Fabric: %s: fabric of %u hosts, %u leaves, %u pods "
		     "loaded for nodes %s",
		     plugin_type, who, tp_topo_host_count(topo),
		     tp_topo_leaf_count(topo), tp_topo_pod_count(topo), nodes);
	if (_ioservers_place(who, loud, topo, nodes, servers, settings,
	                     job->step_id.job_id, &io, hosts, sizeof(hosts))) {
		setenvf(&job->env, "TOPOPLACE_IO_SERVER_HOSTS", "%s", hosts);
		_loud_info(loud, "%s: %s: I/O servers %s: %s", plugin_type, who,
		           hosts, io.reason);
	}
	tp_ioserver_result_free(&io);
	tp_topo_free(topo);
}

/* What a step's bounded work is asked to do (task_p_pre_setuid). */
struct step_work {
	bool record, throttle, ioservers;
	const char *site_name; /* the batch job's recording, or NULL */
	uint32_t servers;
	const tp_opt_values *opts;
};

/* The step's recording, throttle window and I/O servers, into its
 * environment: the work that reads the store and the step's program. */
static void _step_work(stepd_step_rec_t *job, const char *who, bool loud,
                       const tp_config *config,
                       const tp_config_settings *settings,
                       const struct step_work *w)
{
	struct step_exec se = {0};

	if (w->record) {
		_comm_record(job, config, w->opts, w->site_name);
		if (!w->opts->comm_record && w->site_name && w->site_name[0])
			_record_by_exec(job, who, loud, config, settings,
			                w->site_name, w->opts, &se);
	}
	if (w->throttle)
		_step_throttle(job, who, loud, config, settings, w->opts, &se);
	if (w->ioservers && w->servers)
		_step_ioservers(job, who, loud, config, settings, w->servers);
	free(se.summary);
}

/* Whether @env holds exactly the entry @entry ("NAME=value"). */
static bool _env_has_entry(char **env, const char *entry)
{
	for (char **e = env; e && *e; e++)
		if (!strcmp(*e, entry))
			return true;
	return false;
}

/*
 * In the child: what the step's environment gained or changed since
 * @before (set records) and what it lost (unset records), on @fd.  An
 * entry that cannot be one record is left out, and the log says which
 * (_record_send).
 */
static void _env_changes_send(int fd, char **before, char **after)
{
	for (char **e = after; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;

		if (!eq || _env_has_entry(before, *e))
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		_record_send(fd, TP_CHILD_RECORD_SET, name, eq + 1);
		xfree(name);
	}
	for (char **b = before; b && *b; b++) {
		const char *eq = strchr(*b, '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(*b, (size_t)(eq - *b));
		if (!getenvp(after, name))
			_record_send(fd, TP_CHILD_RECORD_UNSET, name, NULL);
		xfree(name);
	}
}

/* One record of slurmstepd's child, applied to the step's environment
 * (@ctx: the step).  The child sends no notes: it adds them to the
 * step's environment like any variable. */
static void _step_record_apply(tp_child_record_kind kind, const char *name,
                               const char *value, void *ctx)
{
	stepd_step_rec_t *job = ctx;

	if (kind == TP_CHILD_RECORD_UNSET)
		unsetenvp(job->env, name);
	else if (kind == TP_CHILD_RECORD_SET)
		setenvf(&job->env, name, "%s", value);
}

/* Why slurmstepd's child for a step was dropped. */
static void _step_failure_note(const struct batch_child *child,
                               const tp_config_settings *settings, char *note,
                               size_t size)
{
	char within[32];

	snprintf(within, sizeof(within), "within %d ms",
	         TP_SC_STEP_WORK_TIMEOUT_MS);
	_failure_note(child, settings,
	              "topoplace's work for the step (profile store, program "
	              "hash, I/O servers)",
	              within, within + strlen("within "),
	              "the step runs without its recording, throttle window "
	              "or I/O servers",
	              note, size);
}

/* What _step_work needs in the child. */
struct step_work_ctx {
	stepd_step_rec_t *job;
	const char *who;
	bool loud;
	const tp_config *config;
	const tp_config_settings *settings;
	const struct step_work *work;
};

/* In the child: the step's work, then what it changed in the step's
 * environment, as records on @fd. */
static void _step_work_on(int fd, void *ctx)
{
	struct step_work_ctx *c = ctx;
	char **before = env_array_copy((const char **)c->job->env);

	_step_work(c->job, c->who, c->loud, c->config, c->settings, c->work);
	_env_changes_send(fd, before, c->job->env);
}

/*
 * Run _step_work in a child of slurmstepd bounded by
 * TP_SC_STEP_WORK_TIMEOUT_MS and RemapMemory, and apply what it changed in
 * the step's environment.  The store is often on a shared file system and
 * the step's program may be too: a hung one, or a munged that does not
 * answer, must cost the step that bound, not its start.  Past a bound
 * nothing of the child's work is kept: one log line, one line on rank 0's
 * stderr, and only a window the user gave (--io-throttle) still applies.
 */
static void _step_run_bounded(stepd_step_rec_t *job, const char *who,
                              bool loud, const tp_config *config,
                              const tp_config_settings *settings,
                              const struct step_work *w)
{
	struct step_work_ctx ctx = {job, who, loud, config, settings, w};
	struct batch_child child;
	char note[512];

	if (_run_child_bounded(settings,
	                       (uint64_t)TP_SC_STEP_WORK_TIMEOUT_MS * 1000,
	                       _step_work_on, &ctx, &child)) {
		_records_apply(child.records, _step_record_apply, job, who);
		xfree(child.records);
		return;
	}
	if (!child.records) {
		_loud_error(loud, "%s: %s: no child for the step's work: %m: "
		                  "no recording, throttle window or I/O servers",
		            plugin_type, who);
		return;
	}
	xfree(child.records);
	_step_failure_note(&child, settings, note, sizeof(note));
	_loud_error(loud, "%s: %s: %s", plugin_type, who, note);
	_step_note_add(job, "%s", note);
	if (w->throttle && w->opts->io_throttle.mode == TP_THROTTLE_FIXED)
		_step_set_window(job, who, loud, config, settings, w->opts,
		                 NULL);
}

/*
 * Once per step and node, as root, before the tasks fork (see the top).
 * A step of a batch job inherits what slurmd decided for the job; only a
 * window the step asks for itself (srun --io-throttle=<window>) and
 * --comm-record are added.  Steps of salloc or srun allocations get the
 * window and the I/O servers here.
 */
extern int task_p_pre_setuid(stepd_step_rec_t *job)
{
	const char *env_batch = getenvp(job->env, "ENVIRONMENT");
	bool in_batch = env_batch && !strcmp(env_batch, "BATCH");
	bool loud = job->nodeid == 0;
	bool record, throttle, ioservers;
	const char *site_name = getenvp(job->env, TP_ENV_RECORD);
	char who[64], conf_path[1024], partition_buf[256];
	const char *partition;
	const tp_config_settings *settings;
	struct step_work work;
	tp_config *config = NULL;
	tp_opt_values opts;
	tp_error err;
	int missing;

	if (job->batch || job->step_id.step_id == SLURM_EXTERN_CONT)
		return SLURM_SUCCESS;
	snprintf(who, sizeof(who), "StepId=%u.%u", job->step_id.job_id,
	         job->step_id.step_id);
	_opts_from_step(job, who, loud, &opts);
	/* site_name: the batch job is recorded by ProfileRecord. */
	record = (opts.comm_record || (site_name && site_name[0])) &&
	         !getenvp(job->env, "TOPOPLACE_PROFILE_STORE");
	throttle = !getenvp(job->env, "TOPOPLACE_IO_WINDOW_US") &&
	           opts.io_throttle.mode != TP_THROTTLE_OFF &&
	           (!in_batch || opts.io_throttle.mode == TP_THROTTLE_FIXED);
	ioservers =
	    !in_batch && !getenvp(job->env, "TOPOPLACE_IO_SERVER_HOSTS");
	if (!record && !throttle && !ioservers)
		return SLURM_SUCCESS;
	tp_sc_conf_path(slurm_conf.slurm_conf, conf_path, sizeof(conf_path));
	if (tp_sc_load_config(conf_path, &config, &missing, &err) != TP_OK) {
		/* A batch job's own line came from slurmd already. */
		_loud_error(loud && (!in_batch || record),
		            "%s: %s: %s: no throttling, I/O servers or "
		            "recording",
		            plugin_type, who, err.message);
		return SLURM_SUCCESS;
	}
	partition = tp_launch_partition(job->msg, partition_buf,
	                                sizeof(partition_buf));
	settings = tp_config_for_partition(
	    config,
	    partition ? partition : getenvp(job->env, "SLURM_JOB_PARTITION"));
	/* A step of a recorded job may still opt out where allowed. */
	if (record && !opts.comm_record && opts.comm_record_off &&
	    settings->record.allow_user_off) {
		_loud_info(loud, "%s: %s: --comm-record=no: not recorded",
		           plugin_type, who);
		record = false;
	}
	work.record = record;
	/* Without classes to throttle only a user window can apply: no
	 * store to read, and no child to pay for (_step_throttle). */
	work.throttle = throttle &&
	                (opts.io_throttle.mode == TP_THROTTLE_FIXED ||
	                 settings->throttle_class_count);
	work.ioservers = ioservers;
	work.site_name = site_name;
	work.servers =
	    opts.io_servers ? opts.io_servers : settings->ioserver_count;
	work.opts = &opts;
	if (work.record || work.throttle || (ioservers && work.servers))
		_step_run_bounded(job, who, loud, config, settings, &work);
	tp_config_free(config);
	return SLURM_SUCCESS;
}

/* Put @lib in front of the task's LD_PRELOAD. */
static void _preload(stepd_step_rec_t *job, const char *lib)
{
	const char *old = getenvp(job->env, "LD_PRELOAD");

	if (old && old[0])
		setenvf(&job->env, "LD_PRELOAD", "%s:%s", lib, old);
	else
		setenvf(&job->env, "LD_PRELOAD", "%s", lib);
}

/*
 * Export TOPOPLACE_PLACEMENT, the policy the task runs under: the value the
 * SPANK plugin checked and left in the step's environment, "auto" when the
 * job gave none.  The environment can also be set by hand: an invalid value
 * is logged and replaced by "auto" rather than failing the task.
 *
 * The batch script's shell prints what task/topoplace has to tell the
 * job (TOPOPLACE_NOTE: the remapping skipped and why) on its stderr.
 *
 * Tasks of steps (not the batch script itself, nor salloc's interactive
 * step, whose shells must not be paced or profiled) get the pacing library
 * when the step has a throttle window, and the profiler under
 * --comm-record.  Runs as the user: a profiler the user cannot read is
 * said once, by rank 0 (the rank that writes the profile), and the step
 * runs unrecorded.
 */
extern int task_p_pre_launch(stepd_step_rec_t *job)
{
	const char *requested = getenvp(job->env, TP_ENV_PLACEMENT);
	const char *window = getenvp(job->env, "TOPOPLACE_IO_WINDOW_US");
	const char *pacing = getenvp(job->env, "TOPOPLACE_PACING_LIB");
	const char *profiler = getenvp(job->env, TP_ENV_PROFILER_LIB);
	const char *procid = getenvp(job->env, "SLURM_PROCID");
	tp_placement placement = TP_PLACEMENT_AUTO;
	tp_error err;

	if (requested &&
	    tp_placement_parse(requested, &placement, &err) != TP_OK) {
		error("%s: %ps: %s: %s: using auto", plugin_type, &job->step_id,
		      TP_ENV_PLACEMENT, err.message);
		placement = TP_PLACEMENT_AUTO;
	}
	if (setenvf(&job->env, TP_ENV_PLACEMENT, "%s",
	            tp_placement_name(placement)))
		error("%s: %ps: cannot set %s", plugin_type, &job->step_id,
		      TP_ENV_PLACEMENT);
	if (job->batch) {
		const char *note = getenvp(job->env, TP_ENV_NOTE);

		/* stdout and stderr are the job's files by now. */
		if (note && note[0])
			dprintf(STDERR_FILENO, "topoplace: %s\n", note);
		return SLURM_SUCCESS;
	}
	if (getenvp(job->env, TP_ENV_STEP_NOTE)) {
		if (procid && !strcmp(procid, "0"))
			dprintf(STDERR_FILENO, "topoplace: %s\n",
			        getenvp(job->env, TP_ENV_STEP_NOTE));
		unsetenvp(job->env, TP_ENV_STEP_NOTE);
	}
	if (job->step_id.step_id == SLURM_INTERACTIVE_STEP)
		return SLURM_SUCCESS;
	if (window && pacing && pacing[0])
		_preload(job, pacing);
	if (profiler && profiler[0]) {
		if (!access(profiler, R_OK))
			_preload(job, profiler);
		else if (procid && !strcmp(procid, "0"))
			error("%s: %ps: --comm-record: profiler %s: %m: not "
			      "recorded",
			      plugin_type, &job->step_id, profiler);
	}
	return SLURM_SUCCESS;
}

extern int task_p_pre_set_affinity(stepd_step_rec_t *job, uint32_t node_tid)
{
	return SLURM_SUCCESS;
}

extern int task_p_set_affinity(stepd_step_rec_t *job, uint32_t node_tid)
{
	return SLURM_SUCCESS;
}

extern int task_p_post_set_affinity(stepd_step_rec_t *job, uint32_t node_tid)
{
	return SLURM_SUCCESS;
}

extern int task_p_post_term(stepd_step_rec_t *job, stepd_step_task_info_t *task)
{
	return SLURM_SUCCESS;
}

/*
 * The batch step ends: remove the job directory's files, as root.  Only
 * the names task/topoplace wrote, through a descriptor of the directory
 * opened without following links, so nothing outside it can be touched.
 */
extern int task_p_post_step(stepd_step_rec_t *job)
{
	char dir[1024];

	if (!job->batch)
		return SLURM_SUCCESS;
	tp_sc_job_dir_in_base(slurm_conf.tmp_fs, job->step_id.job_id, dir,
	                      sizeof(dir));
	if (tp_sc_job_dir_remove(dir))
		debug("%s: %ps: %s left: %m", plugin_type, &job->step_id, dir);
	return SLURM_SUCCESS;
}

extern int task_p_add_pid(pid_t pid)
{
	return SLURM_SUCCESS;
}

/*
 * Required by Slurm 24.11 (between fork and exec, as root); unused by
 * 22.05, to which it is one more exported symbol it never looks up.
 */
extern int task_p_pre_launch_priv(stepd_step_rec_t *job, uint32_t node_tid,
                                  uint32_t global_tid)
{
	return SLURM_SUCCESS;
}
