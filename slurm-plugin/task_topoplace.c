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
 * order, see task_p_slurmd_batch_request).  The child
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
 * logs; the others decide the same quietly.
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
#include "spank_env.h"
#include "tp_slurm_compat.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

const char plugin_name[] = "topoplace task plugin";
const char plugin_type[] = "task/topoplace";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* What the batch job should be told, printed on its stderr (_note). */
#define TP_ENV_NOTE "TOPOPLACE_NOTE"

/* The same for a step, printed by its rank 0 and not passed on. */
#define TP_ENV_STEP_NOTE "TOPOPLACE_STEP_NOTE"

/* Where task_p_pre_launch finds the profiler a step should preload. */
#define TP_ENV_PROFILER_LIB "TOPOPLACE_PROFILER_LIB"

/* The profile name the site records the batch job's steps as
 * (ProfileRecord; set once per job by _site_record). */
#define TP_ENV_RECORD "TOPOPLACE_RECORD"

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
 * The I/O throttle window: from the profile's I/O pattern, the threshold
 * table and the partition's policy, with the user's --io-throttle on top;
 * a fixed user window applies without a profile too.  Returns true and
 * fills @window_us and @reason when the job is to be throttled.  @who
 * names the job or step in log lines ("JobId=5", "StepId=5.0"); @loud:
 * errors as errors, else as debug lines; @dbg (DebugFlags=Throttle): the
 * inputs and the decision as "Throttle:" lines.
 */
static bool _throttle_decide(const char *who, bool loud, bool dbg,
                             const tp_config_settings *settings,
                             const tp_profile_summary *totals,
                             const tp_opt_values *opts, uint64_t *window_us,
                             char *reason, size_t reason_size)
{
	tp_throttle_policy policy;
	tp_window_decision dec;
	tp_io_pattern pattern;
	tp_threshold_table *table = NULL;
	tp_error err;

	if (settings->throttle_mode == TP_THROTTLE_ENFORCE_OFF ||
	    settings->throttle_mode == TP_THROTTLE_ENFORCE_TBF) {
		if (opts->io_throttle.mode == TP_THROTTLE_FIXED)
			_loud_info(
			    loud,
			    "%s: %s: --io-throttle ignored: "
			    "ThrottleMode=%s",
			    plugin_type, who,
			    tp_throttle_enforce_name(settings->throttle_mode));
		else if (dbg)
			info("%s: Throttle: %s: ThrottleMode=%s: no window",
			     plugin_type, who,
			     tp_throttle_enforce_name(settings->throttle_mode));
		return false;
	}
	tp_config_throttle_policy(settings, &policy);
	if (totals &&
	    tp_sc_io_pattern(totals, &settings->thresholds, &pattern)) {
		if (dbg)
			info("%s: Throttle: %s: profile I/O: class %s, %" PRIu64
			     " B requests, %u clients, %" PRIu64
			     " requests per client every %.0f us; "
			     "ThresholdTable=%s",
			     plugin_type, who, pattern.job_class,
			     pattern.request_bytes, pattern.clients,
			     pattern.requests_per_client,
			     pattern.mean_interval_us,
			     settings->threshold_table
			         ? settings->threshold_table
			         : "none");
		if (settings->threshold_table &&
		    tp_threshold_table_read(settings->threshold_table, &table,
		                            &err) != TP_OK) {
			_loud_error(loud, "%s: %s: %s: no automatic throttling",
			            plugin_type, who, err.message);
			table = NULL;
		}
		if (tp_window_decide(&pattern, table, &policy,
		                     &opts->io_throttle, &dec, &err) != TP_OK) {
			_loud_error(loud, "%s: %s: throttle: %s: not throttled",
			            plugin_type, who, err.message);
			tp_threshold_table_free(table);
			return false;
		}
		tp_threshold_table_free(table);
		if (!dec.throttle) {
			if (dbg)
				info("%s: Throttle: %s: not throttled: %s",
				     plugin_type, who, dec.reason);
			else
				debug("%s: %s: not throttled: %s", plugin_type,
				      who, dec.reason);
			return false;
		}
		if (dbg)
			info("%s: Throttle: %s: window %" PRIu64 " us "
			     "(threshold %.0f us%s): interval %.0f -> %.0f us, "
			     "load %.2f -> %.2f, I/O phase up to %.0f%% longer",
			     plugin_type, who, dec.window_us, dec.threshold_us,
			     dec.threshold_extrapolated ? ", extrapolated" : "",
			     dec.interval_before_us, dec.interval_after_us,
			     dec.load_before, dec.load_after,
			     100.0 * dec.cost_fraction);
		*window_us = dec.window_us;
		snprintf(reason, reason_size, "%s", dec.reason);
		return true;
	}
	if (opts->io_throttle.mode != TP_THROTTLE_FIXED) {
		if (dbg)
			info("%s: Throttle: %s: no I/O in a profile and no "
			     "--io-throttle window: not throttled",
			     plugin_type, who);
		return false;
	}
	/* No profile: the policy's bounds alone (window.c owns them). */
	if (tp_window_decide(NULL, NULL, &policy, &opts->io_throttle, &dec,
	                     &err) != TP_OK) {
		_loud_error(loud, "%s: %s: throttle: %s: not throttled",
		            plugin_type, who, err.message);
		return false;
	}
	*window_us = dec.window_us;
	snprintf(reason, reason_size, "%s", dec.reason);
	if (dbg)
		info("%s: Throttle: %s: --io-throttle %" PRIu64 " us, bounded "
		     "by ThrottleMinWindow/ThrottleMaxWindow: window %" PRIu64
		     " us",
		     plugin_type, who, opts->io_throttle.window_us, *window_us);
	return true;
}

/* True when the site changed the window the user asked for. */
static bool _user_window_changed(const tp_opt_values *opts, uint64_t window_us)
{
	return opts->io_throttle.mode == TP_THROTTLE_FIXED &&
	       opts->io_throttle.window_us != window_us;
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

/*
 * DebugFlags=Remap: the job's ranks by node, in the order of @nodes, and
 * the hop-bytes of each candidate mapping.  O(nodes x ranks), only with
 * the flag.
 */
static void _log_remap(const char *who, const tp_topo *topo, const char *nodes,
                       const tp_remap_mapping *map, const tp_remap_stats *stats)
{
	struct hostlist *hl = hostlist_create(nodes); /* tp_slurm_compat.h */
	char *name;

	info("%s: Remap: %s: %u ranks: block order %" PRIu64 " hop-bytes, "
	     "partition %" PRIu64 ", refined %" PRIu64 " (%" PRIu64
	     " moves): chosen %s, %" PRIu64,
	     plugin_type, who, map->ranks, stats->block_hop_bytes,
	     stats->partition_hop_bytes, stats->refined_hop_bytes, stats->moves,
	     stats->chosen, stats->hop_bytes);
	while (hl && (name = hostlist_shift(hl))) {
		uint32_t h = tp_topo_find_host(topo, name);
		char ranks[1024];
		size_t used = 0;
		uint32_t count = 0;

		ranks[0] = '\0';
		for (uint32_t r = 0; r < map->ranks; r++) {
			if (map->rank_host[r] != h)
				continue;
			if (used < sizeof(ranks) - 16)
				used +=
				    snprintf(ranks + used, sizeof(ranks) - used,
				             "%s%u", count ? "," : "", r);
			else if (used < sizeof(ranks) - 1)
				used += snprintf(ranks + used,
				                 sizeof(ranks) - used, "...");
			count++;
		}
		info("%s: Remap: %s: %s: %u ranks: %s", plugin_type, who, name,
		     count, count ? ranks : "none");
		free(name);
	}
	if (hl)
		hostlist_destroy(hl);
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
 * _batch_work), as records on @fd for slurmd to apply once the child has
 * finished within its budget.  A record is one line: "E NAME=value" or
 * "N note", and a last "D" once all is sent; values never hold a newline
 * (paths, host lists, numbers).
 */
struct batch_out {
	batch_job_launch_msg_t *req;
	const tp_batch_identity *id; /* the job's user (tp_slurm_compat.h) */
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

static void _env_put(struct batch_out *out, const char *name, const char *value)
{
	char *line = NULL;

	if (out->fd < 0) {
		env_array_overwrite(&out->req->environment, name, value);
		out->req->envc = envcount(out->req->environment);
		return;
	}
	xstrfmtcat(line, "E %s=%s\n", name, value);
	(void)_write_all(out->fd, line, strlen(line));
	xfree(line);
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
		xstrfmtcat(line, "N %s\n", text);
		(void)_write_all(out->fd, line, strlen(line));
		xfree(line);
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

/*
 * Rank remapping (@profile, NULL: none) and @servers I/O servers (0: none)
 * for the job's nodes, their files in the job's directory and their
 * variables in the batch script's environment.  Each part that fails is
 * one log line and is left out.
 */
static void _job_files(struct batch_out *out, const tp_config *config,
                       const tp_config_settings *settings,
                       const tp_profile *profile, const char *name,
                       uint32_t servers)
{
	batch_job_launch_msg_t *req = out->req;
	char who[32], dir[1024], path[1100], moved[4600], hosts[8192];
	tp_topo *topo = NULL;
	tp_remap_mapping map = {0};
	tp_remap_stats stats;
	tp_ioserver_result io = {0};
	bool remapped = false, placed = false;
	tp_error err;
	int rc;

	snprintf(who, sizeof(who), "JobId=%u", req->job_id);
	if (tp_sc_load_topo(config, &topo, &err) != TP_OK) {
		error("%s: %s: %s: no rank remapping%s", plugin_type, who,
		      err.message, servers ? " or I/O servers" : "");
		return;
	}
	if (_debug(config, TP_DEBUG_FABRIC))
		info("%s: Fabric: %s: fabric of %u hosts, %u leaves, %u pods "
		     "loaded for nodes %s",
		     plugin_type, who, tp_topo_host_count(topo),
		     tp_topo_leaf_count(topo), tp_topo_pod_count(topo),
		     req->nodes);
	if (profile) {
		if (tp_sc_remap(topo, profile, req->nodes, req->job_id, &map,
		                &stats, &err) == TP_OK) {
			remapped = true;
			if (_debug(config, TP_DEBUG_REMAP))
				_log_remap(who, topo, req->nodes, &map, &stats);
		} else
			error("%s: %s: %s: no rank remapping", plugin_type, who,
			      err.message);
	}
	if (servers)
		placed = _ioservers_place(who, true, topo, req->nodes, servers,
		                          settings, req->job_id, &io, hosts,
		                          sizeof(hosts));
	if (!remapped && !placed)
		goto out;
	if (placed) /* usable without the file */
		_env_put(out, "TOPOPLACE_IO_SERVER_HOSTS", hosts);
	if (tp_sc_job_dir_prepare(slurm_conf.tmp_fs, req->job_id, out->id->uid,
	                          out->id->gid, dir, sizeof(dir), moved,
	                          sizeof(moved), &err) != TP_OK) {
		error("%s: %s: %s: no rank files%s", plugin_type, who,
		      err.message, placed ? " or I/O server list" : "");
		remapped = false;
		goto log_io;
	}
	if (moved[0])
		error("%s: %s: %s", plugin_type, who, moved);
	rc = _write_files_as_user(out->id, dir, topo, remapped ? &map : NULL,
	                          placed ? &io : NULL);
	if (rc) {
		error("%s: %s: cannot write the job's files in %s (step %d): "
		      "no rank remapping%s",
		      plugin_type, who, dir, rc,
		      placed ? "; I/O servers in the environment only" : "");
		remapped = false;
		goto log_io;
	}
	if (remapped) {
		snprintf(path, sizeof(path), "%s/" TP_SC_RANKFILE, dir);
		_env_put(out, "TOPOPLACE_RANKFILE", path);
		snprintf(path, sizeof(path), "%s/" TP_SC_MACHINEFILE, dir);
		_env_put(out, "TOPOPLACE_MACHINEFILE", path);
		snprintf(path, sizeof(path), "%s/" TP_SC_HOSTFILE, dir);
		_env_put(out, "SLURM_HOSTFILE", path);
		_env_put(out, "SLURM_DISTRIBUTION", "arbitrary");
		snprintf(path, sizeof(path), "%u", map.ranks);
		_env_put(out, "TOPOPLACE_RANKS", path);
		info("%s: %s: profile %s/%s: %u ranks on %s remapped (%s): "
		     "hop-bytes %" PRIu64 " (block order: %" PRIu64 ") -> %s",
		     plugin_type, who, out->id->user_name, name, map.ranks,
		     req->nodes, stats.chosen, stats.hop_bytes,
		     stats.block_hop_bytes, dir);
	}
	if (placed) {
		snprintf(path, sizeof(path), "%s/" TP_SC_IOSERVERS, dir);
		_env_put(out, "TOPOPLACE_IO_SERVER_FILE", path);
	}
log_io:
	if (placed)
		info("%s: %s: I/O servers %s: %s", plugin_type, who, hosts,
		     io.reason);
out:
	tp_ioserver_result_free(&io);
	tp_remap_mapping_free(&map);
	tp_topo_free(topo);
}

/* The throttle window into the batch script's environment. */
static void _throttle(struct batch_out *out, const tp_config *config,
                      const tp_config_settings *settings,
                      const tp_profile_summary *totals,
                      const tp_opt_values *opts)
{
	batch_job_launch_msg_t *req = out->req;
	char who[32], lib[1024], value[32], reason[256];
	uint64_t window_us = 0;

	snprintf(who, sizeof(who), "JobId=%u", req->job_id);
	if (!_throttle_decide(who, true, _debug(config, TP_DEBUG_THROTTLE),
	                      settings, totals, opts, &window_us, reason,
	                      sizeof(reason)))
		return;
	if (_user_window_changed(opts, window_us)) {
		char note[300];

		snprintf(note, sizeof(note), "--io-throttle: %s", reason);
		_note(out, note);
	}
	snprintf(value, sizeof(value), "%" PRIu64, window_us);
	_env_put(out, "TOPOPLACE_IO_WINDOW_US", value);
	_lib_path("libtopoplace_pacing.so", lib, sizeof(lib));
	_env_put(out, "TOPOPLACE_PACING_LIB", lib);
	info("%s: %s: I/O throttle window %" PRIu64 " us: %s", plugin_type, who,
	     window_us, reason);
}

/*
 * ProfileRecord: whether the site records this batch job's MPI steps
 * though the user did not ask (record_policy.h), from the runs of the
 * job's application already in the store as the identity rule counts them
 * (@key, tp_identity_resolve: a script's own runs, not those of a job name
 * it may share with other scripts).  Decided once per job, here, and
 * handed to every step through the batch script's environment
 * (TP_ENV_RECORD), so all nodes of a step agree: the profiler gathers at
 * MPI_Finalize and needs every rank or none.  The job is told on its
 * stderr.  @name is what the job is recorded as (its job name).
 */
static void _site_record(struct batch_out *out, const tp_config *config,
                         const tp_config_settings *settings,
                         const tp_opt_values *opts, const char *name,
                         const tp_identity_key *key, const char *script_key)
{
	batch_job_launch_msg_t *req = out->req;
	tp_record_job job = {.app = name, .job_id = req->job_id};
	tp_record_policy policy;
	char reason[320], note[640];

	tp_config_record_policy(config, settings, &policy);
	/* --comm-record itself is handled per step (_comm_record). */
	if (opts->comm_record || policy.mode == TP_RECORD_OFF)
		return;
	job.user = opts->comm_record_off ? TP_RECORD_USER_NO
	                                 : TP_RECORD_USER_UNSET;
	/* A batch job's runs are its script's (tp_identity_resolve): the
	 * reason says so, not the job name, which may have runs. */
	if (key->source != TP_IDENTITY_COMM_PROFILE && script_key[0])
		job.runs_of = "this batch script";
	job.has_profile = key->app_runs > 0;
	job.newest_age_s =
	    job.has_profile ? (int64_t)time(NULL) - key->newest_mtime_s : 0;
	if (!tp_record_decide(&policy, &job, reason, sizeof(reason))) {
		debug("%s: JobId=%u: not recorded: %s", plugin_type,
		      req->job_id, reason);
		return;
	}
	_env_put(out, TP_ENV_RECORD, name);
	info("%s: JobId=%u: MPI steps recorded as profile %s/%s: %s",
	     plugin_type, req->job_id, out->id->user_name, name, reason);
	snprintf(note, sizeof(note),
	         "this job's MPI steps are recorded as profile %s/%.64s: %s",
	         out->id->user_name, name, reason);
	_note(out, note);
}

/*
 * The profile scaled to the job's task count, when the scale rule allows
 * (tp_sc_scaled_profile, from the runs' summaries); the job is told.  NULL
 * otherwise, with why in @text for the caller's note.
 */
static tp_profile *_scaled(struct batch_out *out, const tp_config *config,
                          const char *socket, const char *name,
                          uint32_t ranks, char *text, size_t size)
{
	batch_job_launch_msg_t *req = out->req;
	tp_profile *scaled = NULL;
	char note[512];
	tp_error err;

	if (tp_sc_scaled_profile(config, socket, out->id->user_name, name,
	                         req->ntasks, &scaled, text, size,
	                         &err) != TP_OK) {
		error("%s: JobId=%u: profile %s/%s: scaling: %s", plugin_type,
		      req->job_id, out->id->user_name, name, err.message);
		snprintf(text, size, "not scaled: %.200s", err.message);
		return NULL;
	}
	info("%s: JobId=%u: profile %s/%s has %u ranks, the job %u tasks: %s",
	     plugin_type, req->job_id, out->id->user_name, name, ranks,
	     req->ntasks, text);
	if (!scaled)
		return NULL;
	if (snprintf(note, sizeof(note), "profile %s/%s: ranks %.400s",
	             out->id->user_name, name, text) < 0)
		note[0] = '\0';
	_note(out, note);
	return scaled;
}

/*
 * Which profile key the job reads and records against (tp_sc_identity:
 * the one rule of slurmctld, slurmd and slurmstepd), into @key; the
 * script's key goes to the batch script's environment, for the profiler
 * (stored under it too) and the job's steps.  A store that cannot be
 * listed, or a job that is not looked up (no store name), leaves @key
 * empty: no profile, and no recording.
 */
static bool _identity(struct batch_out *out, const tp_config *config,
                      const tp_opt_values *opts,
                      const tp_identity_profile *profile, const char *socket,
                      char script_key[TP_IDENTITY_SCRIPT_KEY_SIZE],
                      tp_identity_key *key)
{
	batch_job_launch_msg_t *req = out->req;
	tp_error err;

	if (req->script && !opts->comm_profile[0]) {
		tp_identity_script_key(req->script, strlen(req->script),
		                       script_key);
		_env_put(out, "TOPOPLACE_PROFILE_SCRIPT_KEY", script_key);
	}
	/* As slurmctld: a job whose name (or user) is no store name is not
	 * looked up at all, so the two never disagree on its profile. */
	if (!profile->lookup)
		return false;
	if (tp_sc_identity(config, socket, out->id->user_name, profile,
	                   script_key, key, &err) != TP_OK) {
		error("%s: JobId=%u: %s: no profile, not recorded", plugin_type,
		      req->job_id, err.message);
		memset(key, 0, sizeof(*key));
		return false;
	}
	if (_debug(config, TP_DEBUG_PROFILE))
		info("%s: Profile: JobId=%u: by %s: %s", plugin_type,
		     req->job_id, tp_identity_source_name(key->source),
		     key->why);
	return true;
}

/*
 * Which key chose the profile, on the job's output when it matters: by
 * the script's hash (the job name did not choose it), or by a job name
 * whose run another job recorded while the job's own script never ran
 * (the name may be shared by other scripts).  A profile imported under
 * the job's name is the user's own word: nothing to say.
 */
static void _identity_note(struct batch_out *out, const tp_identity_key *key,
                           const tp_profile_summary *totals,
                           const char *script_key)
{
	char note[512], from[48] = "imported";

	if (totals->job_id)
		snprintf(from, sizeof(from), "recorded by JobId=%" PRIu64,
		         totals->job_id);
	if (key->source == TP_IDENTITY_SCRIPT)
		snprintf(note, sizeof(note),
		         "profile %s/%.64s by script hash (%s), %s",
		         out->id->user_name,
		         totals->app[0] ? totals->app : key->name, key->name,
		         from);
	else if (key->source == TP_IDENTITY_JOB_NAME && script_key[0] &&
	         totals->job_id)
		snprintf(note, sizeof(note),
		         "profile %s/%.64s by job name, %s (this batch script "
		         "never ran before)",
		         out->id->user_name, key->name, from);
	else
		return;
	_note(out, note);
}

/*
 * The job's work, in the child (see task_p_slurmd_batch_request): which
 * profile is the job's (_identity), read it, remap the ranks when the
 * job's task count matches the profile's, place the I/O servers, write
 * the job's files, decide the throttle window and whether the site
 * records the job; variables and notes go to @out's descriptor.
 */
static void _batch_work(struct batch_out *out, const tp_config *config,
                        const tp_config_settings *settings,
                        const tp_opt_values *opts,
                        const tp_identity_profile *identity, uint32_t servers)
{
	batch_job_launch_msg_t *req = out->req;
	/* What the job is recorded as: its job name (or --comm-profile). */
	const char *app = identity->lookup ? identity->name : NULL;
	const char *name = NULL;  /* the key read from the store */
	const char *shown = NULL; /* what logs and notes call it */
	char script_key[TP_IDENTITY_SCRIPT_KEY_SIZE] = "";
	tp_identity_key key = {0};
	bool remap =
	    opts->rank_remap && settings->rank_remap == TP_RANK_REMAP_AUTO;
	bool from_summary = false, have = false, known;
	char socket[256] = "", note[512], scale_text[TP_SCALE_TEXT_MAX + 64];
	tp_sc_profile_run run = {{0}};
	tp_profile_summary *totals = NULL;
	tp_profile *profile = NULL;
	tp_error err;
	int rc;

	tp_sc_munge_socket(slurm_conf.authinfo, socket, sizeof(socket));
	known =
	    _identity(out, config, opts, identity, socket, script_key, &key);
	name = shown = key.name;
	/* A summary carries a credential of up to 8 KiB: not on the stack. */
	if (name && !(totals = malloc(sizeof(*totals))))
		error("%s: JobId=%u: profile %s/%s: out of memory: no "
		      "remapping or throttling",
		      plugin_type, req->job_id, out->id->user_name, name);
	/*
	 * First the profile's totals, from the summary beside it when the
	 * store has one: its ranks decide whether the matrix is needed at
	 * all, and throttling needs only the totals.  So a job whose task
	 * count differs from the profile's ranks never reads the matrix.
	 */
	if (totals) {
		rc = tp_sc_profile_totals(config, socket, out->id->user_name,
		                          name, req->ntasks, 0, totals,
		                          &from_summary, &run, &err);
		if (rc == TP_OK) {
			/* A script's runs by the application they were
			 * recorded as, not by the hash. */
			if (key.source == TP_IDENTITY_SCRIPT && totals->app[0])
				shown = totals->app;
			info("%s: JobId=%u: profile %s/%s by %s (%s)",
			     plugin_type, req->job_id, out->id->user_name,
			     shown, tp_identity_source_name(key.source),
			     key.why);
			_identity_note(out, &key, totals, script_key);
		}
		if (rc == TP_ERR_NOTFOUND) {
			if (_debug(config, TP_DEBUG_PROFILE))
				info("%s: Profile: JobId=%u: %s/%s: not in the "
				     "store %s: no profile",
				     plugin_type, req->job_id, out->id->user_name,
				     name,
				     tp_config_site_settings(config)
				         ->profile_store);
			else
				debug("%s: JobId=%u: no profile %s/%s",
				      plugin_type, req->job_id, out->id->user_name,
				      name);
		} else if (rc == TP_OK && _debug(config, TP_DEBUG_PROFILE)) {
			char from[48] = "imported, no job";

			if (totals->job_id)
				snprintf(from, sizeof(from),
				         "recorded by JobId=%" PRIu64,
				         totals->job_id);
			info("%s: Profile: JobId=%u: %s/%s read from %s (%s): "
			     "%u ranks, %s",
			     plugin_type, req->job_id, out->id->user_name, name,
			     tp_config_site_settings(config)->profile_store,
			     from_summary ? "its summary" : "the whole run",
			     totals->ranks, from);
		} else if (rc != TP_OK) {
			error("%s: JobId=%u: profile: %s: no remapping or "
			      "throttling",
			      plugin_type, req->job_id, err.message);
			/* A long message is cut; the log has all of it. */
			if (snprintf(note, sizeof(note),
			             "profile %s/%s not used (%.300s): no rank "
			             "remapping or I/O throttling from it",
			             out->id->user_name, name, err.message) < 0)
				note[0] = '\0';
			_note(out, note);
		}
		have = rc == TP_OK;
		if (have && run.over_newest)
			info("%s: JobId=%u: profile %s/%s: run %s, of the "
			     "job's %u tasks, over the newest",
			     plugin_type, req->job_id, out->id->user_name, name,
			     run.file, req->ntasks);
	}
	/*
	 * The job's own task count wins: ranks are remapped only onto
	 * exactly as many tasks as the profile has ranks, or onto the job's
	 * count from the profile scaled to it when the scale rule allows
	 * (scale_rule.h).  Any other count would change what srun runs (the
	 * hostfile sets the tasks), so the job keeps Slurm's layout and is
	 * told why.
	 */
	scale_text[0] = '\0';
	if (have && remap && req->ntasks && totals->ranks != req->ntasks)
		profile = _scaled(out, config, socket, name, totals->ranks,
		                  scale_text, sizeof(scale_text));
	if (have && remap && totals->ranks != req->ntasks && !profile) {
		char tasks[48];

		if (req->ntasks)
			snprintf(tasks, sizeof(tasks), "the job has %u tasks",
			         req->ntasks);
		else
			snprintf(tasks, sizeof(tasks),
			         "the job gave no task count (-n)");
		info("%s: JobId=%u: profile %s/%s has %u ranks, %s: no rank "
		     "remapping",
		     plugin_type, req->job_id, out->id->user_name, shown,
		     totals->ranks, tasks);
		if (snprintf(note, sizeof(note),
		             "profile %s/%s has %u ranks but %s: ranks not "
		             "remapped, Slurm's task layout kept%s%.300s%s",
		             out->id->user_name, shown, totals->ranks, tasks,
		             scale_text[0] ? " (" : "", scale_text,
		             scale_text[0] ? ")" : "") < 0)
			note[0] = '\0';
		_note(out, note);
		remap = false;
	}
	/* The matrix, only to remap. */
	if (have && remap && !profile && req->nodes) {
		rc = tp_sc_read_profile(config, socket, out->id->user_name,
		                        name, run.file, &profile, &err);
		if (rc != TP_OK) {
			error("%s: JobId=%u: profile: %s: no remapping",
			      plugin_type, req->job_id, err.message);
			if (snprintf(note, sizeof(note),
			             "profile %s/%s not used for the rank "
			             "remapping (%.300s): Slurm's task layout "
			             "kept",
			             out->id->user_name, name, err.message) < 0)
				note[0] = '\0';
			_note(out, note);
			profile = NULL;
		}
	}
	if (req->nodes && (profile || servers))
		_job_files(out, config, settings, profile, shown, servers);
	_throttle(out, config, settings, have ? totals : NULL, opts);
	tp_profile_free(profile);
	free(totals);
	if (app && known)
		_site_record(out, config, settings, opts, app, &key,
		             script_key);
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

/* The child's last record: everything before it is complete. */
#define TP_BATCH_DONE "D"

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
	while (waitpid(pid, &child->status, 0) < 0 && errno == EINTR)
		;
}

/* Whether @records (@len bytes) end with the child's TP_BATCH_DONE line. */
static bool _records_done(const char *records, size_t len)
{
	size_t n = strlen(TP_BATCH_DONE "\n");

	return len >= n && !strcmp(records + len - n, TP_BATCH_DONE "\n") &&
	       (len == n || records[len - n - 1] == '\n');
}

/* Apply the child's records ("E NAME=value", "N note") to @out. */
static void _apply_records(struct batch_out *out, char *records)
{
	char *save = NULL;

	for (char *line = strtok_r(records, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq;

		if (line[0] == 'N' && line[1] == ' ')
			_note(out, line + 2);
		else if (line[0] == 'E' && line[1] == ' ' &&
		         (eq = strchr(line + 2, '=')) && eq > line + 2) {
			*eq = '\0';
			_env_put(out, line + 2, eq + 1);
		}
	}
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
 * Once per batch job, in slurmd (see the top): rank remapping, I/O
 * servers and the throttle window.
 *
 * slurmd runs this in its batch launch RPC handler and answers
 * slurmctld only afterwards, so the work that grows with the profile
 * (reading and verifying it, the remapping, the files) runs in a child
 * with RemapMemory of address space and RemapBudget of time, killed past
 * either.  Past the budget the job runs in Slurm's order: one log line,
 * one note on the job's stderr, the job's directory removed, and only a
 * window of the user's own (--io-throttle) still applied.  Every other
 * failure is one log line with the job id and leaves the job as Slurm
 * would run it.
 */
extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
	char conf_path[1024], note[512], budget[32], dir[1024];
	bool lookup;
	tp_identity_profile profile;
	const tp_config_settings *settings;
	tp_batch_identity id;
	struct batch_out out = {.req = req, .id = &id, .fd = -1};
	struct batch_child child = {0};
	tp_config *config = NULL;
	tp_opt_values opts;
	tp_error err;
	uint64_t budget_us, base_bytes;
	uint32_t servers;
	int missing, pipe_fd[2];
	pid_t pid;

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
		error("%s: JobId=%u: %s: no remapping, I/O servers or "
		      "throttling",
		      plugin_type, req->job_id, err.message);
		char *why = NULL;

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
	settings = tp_config_for_partition(config, req->partition);
	profile = tp_identity_job_profile(
	    opts.comm_profile,
	    _env_get(req->environment, req->envc, "SLURM_JOB_NAME"),
	    id.user_name);
	lookup = profile.lookup;
	servers = opts.io_servers ? opts.io_servers : settings->ioserver_count;
	if (!lookup && !(servers && req->nodes)) {
		/* Nothing that grows with a profile: decided right here. */
		_throttle(&out, config, settings, NULL, &opts);
		goto out;
	}
	budget_us = _budget_us(settings);
	base_bytes = _statm_bytes(getpid(), 1);
	/* Close-on-exec at once: slurmstepd, forked by other threads,
	 * must not hold the write end open. */
	if (pipe2(pipe_fd, O_CLOEXEC)) {
		error("%s: JobId=%u: pipe: %m: no remapping or I/O servers",
		      plugin_type, req->job_id);
		_throttle(&out, config, settings, NULL, &opts);
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		struct batch_out to_parent = {
		    .req = req, .id = &id, .fd = pipe_fd[1]};

		(void)setpgid(0, 0);
		close(pipe_fd[0]);
		_limit_child(settings, budget_us);
		_batch_work(&to_parent, config, settings, &opts, &profile,
		            servers);
		(void)_write_all(pipe_fd[1], TP_BATCH_DONE "\n",
		                 strlen(TP_BATCH_DONE) + 1);
		_exit(0);
	}
	close(pipe_fd[1]);
	if (pid < 0) {
		error("%s: JobId=%u: fork: %m: no remapping or I/O servers",
		      plugin_type, req->job_id);
		close(pipe_fd[0]);
		_throttle(&out, config, settings, NULL, &opts);
		goto out;
	}
	(void)setpgid(pid, pid); /* whichever of the two runs first */
	_supervise(pid, pipe_fd[0], budget_us, base_bytes,
	           settings->remap_memory_bytes, &child);
	close(pipe_fd[0]);
	if (!child.over_time && !child.over_records && !child.over_memory &&
	    WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0 &&
	    _records_done(child.records, child.len)) {
		_apply_records(&out, child.records);
		goto out;
	}
	/* Over budget, or the child died: nothing of its work is kept. */
	tp_units_format_us((double)budget_us, budget, sizeof(budget));
	if (child.over_time)
		snprintf(note, sizeof(note),
		         "the rank remapping did not finish within its budget "
		         "of %s (RemapBudget): the job runs in Slurm's order",
		         budget);
	else if (child.over_memory)
		snprintf(note, sizeof(note),
		         "the rank remapping needed more than %" PRIu64
		         " MiB (RemapMemory): the job runs in Slurm's order",
		         settings->remap_memory_bytes >> 20);
	else if (child.over_records)
		snprintf(note, sizeof(note),
		         "the rank remapping said more than %d bytes: the job "
		         "runs in Slurm's order",
		         TP_BATCH_RECORDS_MAX);
	else if (WIFSIGNALED(child.status))
		snprintf(note, sizeof(note),
		         "the rank remapping was stopped by signal %d "
		         "(RemapBudget %s, RemapMemory %" PRIu64 " MiB): the "
		         "job runs in Slurm's order",
		         WTERMSIG(child.status), budget,
		         settings->remap_memory_bytes >> 20);
	else
		snprintf(note, sizeof(note),
		         "the rank remapping did not finish (exit status %d): "
		         "the job runs in Slurm's order",
		         WIFEXITED(child.status) ? WEXITSTATUS(child.status)
		                                 : -1);
	error("%s: JobId=%u: %s", plugin_type, req->job_id, note);
	_note(&out, note);
	tp_sc_job_dir_in_base(slurm_conf.tmp_fs, req->job_id, dir, sizeof(dir));
	if (tp_sc_job_dir_remove(dir) && errno != ENOENT)
		debug("%s: JobId=%u: %s left: %m", plugin_type, req->job_id,
		      dir);
	_throttle(&out, config, settings, NULL, &opts);
out:
	xfree(child.records);
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
	                              NULL, err);

	if (rc == TP_ERR_LIMIT) {
		tp_error_prefix(err,
		                "no summary and over a step's profile limit of "
		                "%" PRIu64 " MiB (RemapMemory/3, at most %u MiB)",
		                cap >> 20, TP_LOOKUP_PROFILE_MAX_BYTES >> 20);
		setenvf(&job->env, TP_ENV_STEP_NOTE,
		        "profile %s/%s not used (%.300s): no I/O throttling "
		        "from it",
		        job->user_name, name, err->message);
	}
	return rc;
}

/* The throttle window of a step the batch script did not decide for. */
static void _step_throttle(stepd_step_rec_t *job, const char *who, bool loud,
                           const tp_config *config,
                           const tp_config_settings *settings,
                           const tp_opt_values *opts)
{
	char socket[256], lib[1024], reason[256];
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
	uint64_t window_us = 0;
	bool from_summary = false, have = false;
	tp_error err;
	int rc;

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
	if (_throttle_decide(
	        who, loud, loud && _debug(config, TP_DEBUG_THROTTLE), settings,
	        have ? totals : NULL, opts, &window_us, reason,
	        sizeof(reason))) {
		_lib_path("libtopoplace_pacing.so", lib, sizeof(lib));
		setenvf(&job->env, "TOPOPLACE_IO_WINDOW_US", "%" PRIu64,
		        window_us);
		setenvf(&job->env, "TOPOPLACE_PACING_LIB", "%s", lib);
		if (_user_window_changed(opts, window_us))
			setenvf(&job->env, TP_ENV_STEP_NOTE,
			        "--io-throttle: %s", reason);
		_loud_info(loud,
		           "%s: %s: I/O throttle window %" PRIu64 " us: %s",
		           plugin_type, who, window_us, reason);
	}
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
	tp_config *config = NULL;
	tp_opt_values opts;
	uint32_t servers;
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
	if (record)
		_comm_record(job, config, &opts, site_name);
	if (throttle)
		_step_throttle(job, who, loud, config, settings, &opts);
	servers = opts.io_servers ? opts.io_servers : settings->ioserver_count;
	if (ioservers && servers)
		_step_ioservers(job, who, loud, config, settings, servers);
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
