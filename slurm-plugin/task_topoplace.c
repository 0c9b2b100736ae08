/*
 * task_topoplace.c: task/topoplace, run by slurmstepd around each task.
 *
 * Stacks after the site's task plugins:
 *   TaskPlugin=task/affinity,task/topoplace
 *
 * task_p_pre_launch runs in the task just before exec and adds to its
 * environment what topoplace decided for the job, so that MPI launchers and
 * the application can use it without any change to the user's script.
 *
 * task_p_slurmd_batch_request runs in slurmd, as root, once per batch job,
 * before slurmstepd is forked with the launch request: the one place that
 * runs once per job and knows the job's nodes (req->nodes; slurmstepd's
 * batch step record does not keep them).  There it computes the rank
 * remapping from the job's profile for its actual nodes, has a child
 * running as the job's user write the Open MPI rankfile, MPICH machinefile
 * and SLURM_HOSTFILE into <TmpFS>/topoplace.<jobid> (mode 0700, so owned by
 * the user without root ever writing into a user-controlled directory) and
 * adds TOPOPLACE_RANKFILE, TOPOPLACE_MACHINEFILE, SLURM_HOSTFILE and
 * SLURM_DISTRIBUTION=arbitrary to the batch script's environment.  Steps
 * started by the script inherit them: a plain `srun ./app` then lays its
 * tasks out as the hostfile says.
 *
 * Every other entry point leaves Slurm's behaviour untouched.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <signal.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm/slurm_errno.h"
#include "src/common/env.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "convert.h"
#include "policy.h"
#include "rankfile.h"
#include "remap.h"
#include "threshold.h"
#include "window.h"
#include "spank_env.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

const char plugin_name[] = "topoplace task plugin";
const char plugin_type[] = "task/topoplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

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
 * Where the preload libraries are: pkglibdir, or $TOPOPLACE_LIBDIR in
 * slurmd's environment (test beds running from a build tree).
 */
static void _lib_path(const char *lib, char *out, size_t size)
{
	const char *dir = getenv("TOPOPLACE_LIBDIR");

	snprintf(out, size, "%s/%s", dir && dir[0] ? dir : TP_PKGLIBDIR, lib);
}

/*
 * The three files, written by a child as the job's user (see the top):
 * root never writes into a directory the user controls.
 */
static int _write_files_as_user(batch_job_launch_msg_t *req, const char *dir,
                                const tp_topo *topo,
                                const tp_remap_mapping *map)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		tp_error err;

		if (setgroups(0, NULL) || setgid(req->gid) || setuid(req->uid))
			_exit(3);
		_exit(tp_sc_remap_write(dir, topo, map, &err) == TP_OK ? 0 : 6);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void _env_put(batch_job_launch_msg_t *req, const char *name,
                     const char *value)
{
	env_array_overwrite(&req->environment, name, value);
	req->envc = envcount(req->environment);
}

/* The job directory: <TmpFS>/topoplace.<jobid>. */
static void _job_dir(uint32_t job_id, char *out, size_t size)
{
	tp_sc_job_dir(slurm_conf.tmp_fs, job_id, out, size);
}

/* Rank remapping for the job's nodes; one log line on any failure. */
static void _remap(batch_job_launch_msg_t *req, const tp_config *config,
                   const tp_profile *profile, const char *name)
{
	char dir[1024], path[1100];
	tp_topo *topo = NULL;
	tp_remap_mapping map = {0};
	tp_remap_stats stats;
	tp_error err;
	int rc;

	if (tp_sc_load_topo(config, &topo, &err) != TP_OK ||
	    tp_sc_remap(topo, profile, req->nodes, req->job_id, &map, &stats,
	                &err) != TP_OK) {
		error("%s: JobId=%u: %s: no rank remapping", plugin_type,
		      req->job_id, err.message);
		goto out;
	}
	_job_dir(req->job_id, dir, sizeof(dir));
	rc = _write_files_as_user(req, dir, topo, &map);
	if (rc) {
		error("%s: JobId=%u: cannot write the rank files in %s "
		      "(step %d): no rank remapping",
		      plugin_type, req->job_id, dir, rc);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/" TP_SC_RANKFILE, dir);
	_env_put(req, "TOPOPLACE_RANKFILE", path);
	snprintf(path, sizeof(path), "%s/" TP_SC_MACHINEFILE, dir);
	_env_put(req, "TOPOPLACE_MACHINEFILE", path);
	snprintf(path, sizeof(path), "%s/" TP_SC_HOSTFILE, dir);
	_env_put(req, "SLURM_HOSTFILE", path);
	_env_put(req, "SLURM_DISTRIBUTION", "arbitrary");
	snprintf(path, sizeof(path), "%u", map.ranks);
	_env_put(req, "TOPOPLACE_RANKS", path);
	info("%s: JobId=%u: profile %s/%s: %u ranks on %s remapped (%s): "
	     "hop-bytes %" PRIu64 " (block order: %" PRIu64 ") -> %s",
	     plugin_type, req->job_id, req->user_name, name, map.ranks,
	     req->nodes, stats.chosen, stats.hop_bytes, stats.block_hop_bytes,
	     dir);
out:
	tp_remap_mapping_free(&map);
	tp_topo_free(topo);
}

/*
 * The I/O throttle window: from the profile's I/O pattern, the threshold
 * table and the partition's policy, with the user's --io-throttle on top;
 * a fixed user window applies without a profile too.  Exported as
 * TOPOPLACE_IO_WINDOW_US (throttle/pacing.c's contract); task_p_pre_launch
 * preloads the pacing library into the steps' tasks.
 */
static void _throttle(batch_job_launch_msg_t *req,
                      const tp_config_settings *settings,
                      const tp_profile *profile, const tp_opt_values *opts)
{
	tp_throttle_policy policy;
	tp_window_decision dec;
	tp_threshold_table *table = NULL;
	char lib[1024], value[32];
	const char *reason = "fixed by --io-throttle";
	uint64_t window_us = 0;
	tp_error err;

	if (settings->throttle_mode == TP_THROTTLE_ENFORCE_OFF ||
	    settings->throttle_mode == TP_THROTTLE_ENFORCE_TBF) {
		if (opts->io_throttle.mode == TP_THROTTLE_FIXED)
			info("%s: JobId=%u: --io-throttle ignored: "
			     "ThrottleMode=%s",
			     plugin_type, req->job_id,
			     tp_throttle_enforce_name(settings->throttle_mode));
		return;
	}
	tp_config_throttle_policy(settings, &policy);
	if (profile && profile->io.requests && profile->io.client_count &&
	    profile->header.duration_us) {
		tp_job_summary summary;
		tp_jobclass_result cls;
		tp_io_pattern pattern = {0};
		uint64_t per_client =
		    profile->io.requests / profile->io.client_count;

		tp_sc_profile_summary(profile, &summary);
		if (tp_jobclass_classify(&summary, &settings->thresholds, &cls,
		                         &err) != TP_OK)
			cls.job_class = TP_JOBCLASS_QUIET;
		pattern.request_bytes = summary.io_request_bytes;
		pattern.clients = (uint32_t)profile->io.client_count;
		pattern.requests_per_client = per_client;
		pattern.mean_interval_us =
		    per_client ? (double)profile->header.duration_us /
		                     (double)per_client
		               : 0;
		pattern.job_class = tp_jobclass_name(cls.job_class);
		if (settings->threshold_table &&
		    tp_threshold_table_read(settings->threshold_table, &table,
		                            &err) != TP_OK) {
			error("%s: JobId=%u: %s: no automatic throttling",
			      plugin_type, req->job_id, err.message);
			table = NULL;
		}
		if (tp_window_decide(&pattern, table, &policy,
		                     &opts->io_throttle, &dec, &err) != TP_OK) {
			error("%s: JobId=%u: throttle: %s: not throttled",
			      plugin_type, req->job_id, err.message);
			tp_threshold_table_free(table);
			return;
		}
		tp_threshold_table_free(table);
		if (!dec.throttle) {
			debug("%s: JobId=%u: not throttled: %s", plugin_type,
			      req->job_id, dec.reason);
			return;
		}
		window_us = dec.window_us;
		reason = dec.reason;
	} else if (opts->io_throttle.mode == TP_THROTTLE_FIXED) {
		window_us = opts->io_throttle.window_us;
		if (policy.min_window_us && window_us < policy.min_window_us)
			window_us = policy.min_window_us;
		if (policy.max_window_us && window_us > policy.max_window_us)
			window_us = policy.max_window_us;
	} else {
		return;
	}
	snprintf(value, sizeof(value), "%" PRIu64, window_us);
	_env_put(req, "TOPOPLACE_IO_WINDOW_US", value);
	_lib_path("libtopoplace_pacing.so", lib, sizeof(lib));
	_env_put(req, "TOPOPLACE_PACING_LIB", lib);
	info("%s: JobId=%u: I/O throttle window %" PRIu64 " us: %s",
	     plugin_type, req->job_id, window_us, reason);
}

/*
 * Once per batch job, in slurmd (see the top): rank remapping and the
 * throttle window.  Every failure is one log line with the job id and
 * leaves the job as Slurm would run it.
 */
extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
	char conf_path[1024], socket[256];
	const char *name, *value;
	const tp_config_settings *settings;
	tp_config *config = NULL;
	tp_profile *profile = NULL;
	tp_opt_values opts;
	tp_error err;
	int missing, rc;

	tp_opt_values_init(&opts);
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);

		value = tp_spank_job_option(
		    req->spank_job_env, req->spank_job_env_size, info->name);
		if (value &&
		    tp_opt_values_set(&opts, (tp_opt_id)i, value, &err))
			error("%s: JobId=%u: %s: ignored", plugin_type,
			      req->job_id, err.message);
	}
	tp_sc_conf_path(slurm_conf.slurm_conf, conf_path, sizeof(conf_path));
	if (tp_sc_load_config(conf_path, &config, &missing, &err) != TP_OK) {
		error("%s: JobId=%u: %s: no remapping or throttling",
		      plugin_type, req->job_id, err.message);
		return SLURM_SUCCESS;
	}
	settings = tp_config_for_partition(config, req->partition);
	name = opts.comm_profile[0]
	           ? opts.comm_profile
	           : _env_get(req->environment, req->envc, "SLURM_JOB_NAME");
	if (name && tp_store_valid_name(name) && req->user_name &&
	    tp_store_valid_name(req->user_name)) {
		tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
		rc = tp_sc_read_profile(config, socket, req->user_name, name,
		                        &profile, &err);
		if (rc == TP_ERR_NOTFOUND) {
			debug("%s: JobId=%u: no profile %s/%s", plugin_type,
			      req->job_id, req->user_name, name);
		} else if (rc != TP_OK) {
			error("%s: JobId=%u: profile: %s: no remapping or "
			      "throttling",
			      plugin_type, req->job_id, err.message);
			profile = NULL;
			goto out;
		}
	}
	if (profile && req->nodes && opts.rank_remap &&
	    settings->rank_remap == TP_RANK_REMAP_AUTO)
		_remap(req, config, profile, name);
	_throttle(req, settings, profile, &opts);
out:
	tp_profile_free(profile);
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

extern int task_p_pre_setuid(stepd_step_rec_t *job)
{
	return SLURM_SUCCESS;
}

/*
 * Export TOPOPLACE_PLACEMENT, the policy the task runs under: the value the
 * SPANK plugin checked and left in the step's environment, "auto" when the
 * job gave none.  The environment can also be set by hand: an invalid value
 * is logged and replaced by "auto" rather than failing the task.
 */
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
 * --comm-record: preload the profiler (profiles/profiler.c, its env
 * contract: TOPOPLACE_PROFILE_STORE, _NAME, TOPOPLACE_MUNGE_SOCKET) so the
 * profile lands in the store signed by the job's user (the task runs as
 * that user).  A missing library is logged and the task runs unrecorded.
 */
static void _comm_record(stepd_step_rec_t *job, const char *record)
{
	char conf_path[1024], socket[256], lib[1024];
	const char *name =
	    record[0] ? record : getenvp(job->env, "SLURM_JOB_NAME");
	tp_config *config = NULL;
	tp_error err;
	int missing;

	_lib_path("libtopoplace_profiler.so", lib, sizeof(lib));
	if (access(lib, R_OK)) {
		error("%s: %ps: --comm-record: no profiler at %s: not "
		      "recorded",
		      plugin_type, &job->step_id, lib);
		return;
	}
	tp_sc_conf_path(slurm_conf.slurm_conf, conf_path, sizeof(conf_path));
	if (tp_sc_load_config(conf_path, &config, &missing, &err) != TP_OK) {
		error("%s: %ps: --comm-record: %s: not recorded", plugin_type,
		      &job->step_id, err.message);
		return;
	}
	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	setenvf(&job->env, "TOPOPLACE_PROFILE_STORE", "%s",
	        tp_config_site_settings(config)->profile_store);
	if (name && tp_store_valid_name(name))
		setenvf(&job->env, "TOPOPLACE_PROFILE_NAME", "%s", name);
	if (socket[0])
		setenvf(&job->env, "TOPOPLACE_MUNGE_SOCKET", "%s", socket);
	_preload(job, lib);
	tp_config_free(config);
}

/*
 * Export TOPOPLACE_PLACEMENT, the policy the task runs under: the value the
 * SPANK plugin checked and left in the step's environment, "auto" when the
 * job gave none.  The environment can also be set by hand: an invalid value
 * is logged and replaced by "auto" rather than failing the task.
 *
 * Tasks of steps (not the batch script itself, whose shell must not be
 * paced or profiled) get the pacing library when the job has a throttle
 * window and the profiler under --comm-record.
 */
extern int task_p_pre_launch(stepd_step_rec_t *job)
{
	const char *requested = getenvp(job->env, TP_ENV_PLACEMENT);
	const char *window = getenvp(job->env, "TOPOPLACE_IO_WINDOW_US");
	const char *pacing = getenvp(job->env, "TOPOPLACE_PACING_LIB");
	const char *record = getenvp(job->env, "TOPOPLACE_COMM_RECORD");
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
	if (job->batch)
		return SLURM_SUCCESS;
	if (window && pacing && pacing[0])
		_preload(job, pacing);
	if (record && !getenvp(job->env, "TOPOPLACE_PROFILE_STORE"))
		_comm_record(job, record);
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
 * The batch step ends: remove the job directory's files.  Only the names
 * task/topoplace wrote, through a descriptor of the directory opened
 * without following links, so nothing outside it can be touched.
 */
extern int task_p_post_step(stepd_step_rec_t *job)
{
	char dir[1024];

	if (!job->batch)
		return SLURM_SUCCESS;
	_job_dir(job->step_id.job_id, dir, sizeof(dir));
	if (tp_sc_remap_remove(dir))
		debug("%s: %ps: %s left: %m", plugin_type, &job->step_id, dir);
	return SLURM_SUCCESS;
}

extern int task_p_add_pid(pid_t pid)
{
	return SLURM_SUCCESS;
}
