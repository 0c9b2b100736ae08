/*
 * tp_slurm_core.c: configuration, fabric and profiles for the plugins.
 */
#include <dirent.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "app_identity.h"
#include "munge_auth.h"
#include "rankfile.h"
#include "sched_state.h"
#include "tp_file.h"
#include "tp_slurm_core.h"
#include "tp_slurm_fabric.h"

void tp_sc_conf_path(const char *slurm_conf, char *out, size_t size)
{
	const char *slash;

	/*
	 * As Slurm finds slurm.conf when it was given none: SLURM_CONF, else
	 * the default.  24.11's slurmstepd gets its configuration from slurmd
	 * without the file's name, and runs with slurmd's environment.
	 */
	if (!slurm_conf || !slurm_conf[0])
		slurm_conf = getenv("SLURM_CONF");
	if (!slurm_conf || !slurm_conf[0])
		slurm_conf = TP_CONFIG_DEFAULT_CONF_DIR "/slurm.conf";
	slash = strrchr(slurm_conf, '/');
	if (!slash)
		snprintf(out, size, "topoplace.conf");
	else
		snprintf(out, size, "%.*s/topoplace.conf",
		         (int)(slash - slurm_conf), slurm_conf);
}

tp_status tp_sc_load_config(const char *path, tp_config **config, int *missing,
                            tp_error *err)
{
	struct stat st;

	*missing = 0;
	if (stat(path, &st) < 0 && errno == ENOENT) {
		*missing = 1;
		/* An empty file named @path: TopologyConf beside it. */
		return tp_config_parse("", 0, path, config, err);
	}
	return tp_config_load(path, config, err);
}

static int last_good_path(const char *state_dir, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/" TP_SC_LAST_GOOD_NAME,
	                 state_dir && state_dir[0] ? state_dir : ".");

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

tp_status tp_sc_conf_save_last_good(const char *conf_path,
                                    const char *state_dir, tp_error *err)
{
	char path[4096], tmp[4200];
	tp_config *config = NULL;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	tp_status rc;
	int fd;

	if (last_good_path(state_dir, path, sizeof(path)) < 0)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: StateSaveLocation path too long",
		                    state_dir);
	if (stat(conf_path, &st) < 0 && errno == ENOENT) {
		text = strdup("");
		if (!text)
			return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	} else {
		rc = tp_file_read(conf_path, "topoplace.conf",
		                  TP_CONFIG_MAX_BYTES, &text, &len, err);
		if (rc != TP_OK)
			return rc;
	}
	/* Only a file that parses is kept (it may have changed since). */
	rc = tp_config_parse(text, len, conf_path, &config, err);
	tp_config_free(config);
	if (rc != TP_OK) {
		free(text);
		return rc;
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	          0600);
	if (fd < 0) {
		rc = tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s", tmp,
		                  strerror(errno));
		free(text);
		return rc;
	}
	if (tp_file_write_all(fd, text, len) < 0 || fsync(fd) < 0) {
		rc = tp_error_set(err, TP_ERR_IO, "%s: cannot write: %s", tmp,
		                  strerror(errno));
		close(fd);
		unlink(tmp);
		free(text);
		return rc;
	}
	free(text);
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		rc = tp_error_set(err, TP_ERR_IO, "%s: cannot replace: %s",
		                  path, strerror(errno));
		unlink(tmp);
		return rc;
	}
	return TP_OK;
}

tp_status tp_sc_load_config_last_good(const char *conf_path,
                                      const char *state_dir, tp_config **config,
                                      tp_error *err)
{
	char path[4096];
	char *text = NULL;
	size_t len = 0;
	tp_status rc;

	if (last_good_path(state_dir, path, sizeof(path)) < 0)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: StateSaveLocation path too long",
		                    state_dir);
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "%s: no last good copy", path);
	rc = tp_file_read(path, "last good topoplace.conf", TP_CONFIG_MAX_BYTES,
	                  &text, &len, err);
	if (rc != TP_OK)
		return rc;
	rc = tp_config_parse(text, len, conf_path, config, err);
	if (rc != TP_OK)
		tp_error_prefix(err, "%s", path);
	free(text);
	return rc;
}

tp_status tp_sc_load_topo(const tp_config *config, tp_topo **topo,
                          tp_error *err)
{
	const tp_config_site *site = tp_config_site_settings(config);

	return tp_sf_load_topo(site->fabric_source == TP_FABRIC_SOURCE_TOPOLOGY,
	                       site->topology_conf, site->fabric_cache,
	                       site->node_name_rule == TP_NODE_NAME_MAP
	                           ? site->node_name_map
	                           : NULL,
	                       topo, err);
}

void tp_sc_munge_socket(const char *authinfo, char *out, size_t size)
{
	const char *p = authinfo ? strstr(authinfo, "socket=") : NULL;
	size_t n;

	out[0] = '\0';
	if (!p)
		return;
	p += strlen("socket=");
	n = strcspn(p, ",");
	if (n >= size)
		return;
	memcpy(out, p, n);
	out[n] = '\0';
}

tp_status tp_sc_read_profile(const tp_config *config, const char *munge_socket,
                             const char *user, const char *name,
                             const char *file, tp_profile **profile,
                             tp_error *err)
{
	return tp_sc_read_profile_bounded(config, munge_socket, user, name,
	                                  file, 0, profile, err);
}

/* @config's store options, verified with munge at @munge_socket ("" or
 * NULL: the default) through @munge and @auth, which must outlive @opt. */
static void store_options(const tp_config *config, const char *munge_socket,
                          tp_munge_config *munge, tp_store_auth *auth,
                          tp_store_options *opt)
{
	munge->socket = munge_socket && munge_socket[0] ? munge_socket : NULL;
	munge->ttl_s = 0;
	tp_munge_auth_init(auth, munge);
	*opt = tp_store_default_options();
	tp_config_store_options(config, opt);
	opt->auth = auth;
}

tp_status tp_sc_identity(const tp_config *config, const char *munge_socket,
                         const char *user, const tp_identity_profile *profile,
                         const char *script_key, tp_identity_key *key,
                         tp_error *err)
{
	tp_munge_config munge;
	tp_store_options opt;
	tp_store_auth auth;

	store_options(config, munge_socket, &munge, &auth, &opt);
	return tp_identity_resolve(&opt, user, profile, script_key, key, err);
}

tp_status tp_sc_read_profile_bounded(const tp_config *config,
                                     const char *munge_socket, const char *user,
                                     const char *name, const char *file,
                                     uint64_t max_file_bytes,
                                     tp_profile **profile, tp_error *err)
{
	tp_munge_config munge;
	tp_store_options opt;
	tp_store_auth auth;

	store_options(config, munge_socket, &munge, &auth, &opt);
	/* The store refuses a larger run from its size, before reading. */
	if (max_file_bytes && opt.limits.max_file_bytes > max_file_bytes)
		opt.limits.max_file_bytes = (size_t)max_file_bytes;
	return tp_store_get(&opt, user, name, file && file[0] ? file : NULL,
	                    profile, err);
}

tp_status tp_sc_profile_totals(const tp_config *config, const char *munge_socket,
                               const char *user, const char *name,
                               uint32_t job_tasks, uint64_t max_file_bytes,
                               tp_profile_summary *totals, bool *from_summary,
                               tp_sc_profile_run *run, tp_scale_run *scale_runs,
                               tp_error *err)
{
	tp_munge_config munge;
	tp_store_options opt;
	tp_store_auth auth;
	tp_store_job_runs found;
	tp_profile *profile = NULL;
	tp_status rc;

	*from_summary = false;
	memset(&found, 0, sizeof(found));
	if (run)
		memset(run, 0, sizeof(*run));
	store_options(config, munge_socket, &munge, &auth, &opt);
	rc = tp_store_read_job_runs(&opt, user, name, job_tasks, totals,
	                            run ? scale_runs : NULL, &found, err);
	if (run) {
		snprintf(run->file, sizeof(run->file), "%s", found.run.file);
		run->over_newest = found.choice.over_newest;
		run->scale_count = found.scale_count;
	}
	if (rc == TP_OK) {
		*from_summary = true;
		return TP_OK;
	}
	if (!found.fallback)
		return rc;
	/* No usable summary (an older store, a stale one): the run. */
	rc = tp_sc_read_profile_bounded(config, munge_socket, user, name,
	                                found.run.file, max_file_bytes,
	                                &profile, err);
	if (rc == TP_OK)
		rc = tp_summary_of_profile(profile, totals, err);
	tp_profile_free(profile);
	return rc;
}

tp_status tp_sc_scaled_profile(const tp_config *config,
                               const char *munge_socket, const char *user,
                               const char *name, uint32_t job_tasks,
                               const tp_scale_run *given, size_t given_count,
                               tp_profile **scaled, char *text,
                               size_t text_size, tp_error *err)
{
	tp_scale_run read[TP_IDENTITY_RUN_CANDIDATES_MAX];
	const tp_scale_run *runs = given;
	tp_munge_config munge;
	tp_store_options opt;
	tp_store_auth auth;
	tp_scale_verdict verdict;
	size_t count = given_count;
	tp_status rc;

	*scaled = NULL;
	if (!given || !given_count) {
		store_options(config, munge_socket, &munge, &auth, &opt);
		rc = tp_store_scale_runs(&opt, user, name, read, &count, err);
		if (rc != TP_OK)
			return rc;
		runs = read;
	}
	verdict = tp_scale_decide(runs, count, job_tasks);
	if (!verdict.scaled) {
		snprintf(text, text_size, "not scaled: %s", verdict.text);
		return TP_OK;
	}
	rc = tp_scale_build(runs, count, &verdict, job_tasks, scaled, NULL,
	                    err);
	if (rc == TP_OK)
		snprintf(text, text_size,
		         "remapped from a %u-rank profile scaled to %u ranks "
		         "(%s)",
		         runs[verdict.source].ranks, job_tasks, verdict.text);
	return rc;
}

/* What the hashing child sends back: its status, the identity, why. */
struct exec_reply {
	tp_status status;
	tp_exec_id id;
	char message[TP_ERROR_MESSAGE_MAX];
};

/* In the child: become @user, find and hash the command; never returns. */
static void exec_id_child(int fd, const tp_sc_step_user *user,
                          const char *argv0, const char *path_env,
                          const char *cwd)
{
	struct exec_reply reply;
	char path[TP_EXEC_PATH_MAX + 1];
	const char *p = (const char *)&reply;
	size_t left = sizeof(reply);
	tp_error err;

	memset(&reply, 0, sizeof(reply));
	if (geteuid() == 0 && (setgroups(user->ngids, user->gids) ||
	                       setgid(user->gid) || setuid(user->uid)))
		reply.status =
		    tp_error_set(&err, TP_ERR_IO, "cannot become uid %u: %s",
		                 (unsigned)user->uid, strerror(errno));
	else if ((reply.status = tp_exec_resolve(argv0, path_env, cwd, path,
	                                         sizeof(path), &err)) == TP_OK)
		reply.status = tp_exec_hash_path(path, &reply.id, &err);
	if (reply.status != TP_OK)
		snprintf(reply.message, sizeof(reply.message), "%s",
		         err.message);
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
	_exit(0);
}

/* Read the child's reply from @fd within @deadline_ms; 0 or -1. */
static int exec_id_read(int fd, struct exec_reply *reply, int timeout_ms)
{
	char *p = (char *)reply;
	size_t got = 0;
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (got < sizeof(*reply)) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		long used_ms;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		used_ms = (now.tv_sec - start.tv_sec) * 1000 +
		          (now.tv_nsec - start.tv_nsec) / 1000000;
		if (used_ms >= timeout_ms ||
		    poll(&pfd, 1, (int)(timeout_ms - used_ms)) == 0)
			return -1;
		n = read(fd, p + got, sizeof(*reply) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/*
 * Kill the child @pid and reap it, waiting at most a second: a child
 * stuck in an uninterruptible read (a hung file system) dies only when
 * the read returns, and the step must not wait for that; slurmstepd's
 * own wait for its children reaps it then.
 */
static void reap_killed(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	for (int i = 0; i < 100; i++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid || (got < 0 && errno != EINTR))
			return;
		usleep(10000);
	}
}

tp_status tp_sc_step_exec_id(const tp_sc_step_user *user, const char *argv0,
                             const char *path_env, const char *cwd,
                             tp_exec_id *id, tp_error *err)
{
	struct exec_reply *reply = calloc(1, sizeof(*reply));
	int fds[2], status, ok;
	tp_status st;
	pid_t pid;

	memset(id, 0, sizeof(*id));
	if (!reply)
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	if (pipe(fds)) {
		free(reply);
		return tp_error_set(err, TP_ERR_IO, "command %.80s: pipe: %s",
		                    argv0 ? argv0 : "", strerror(errno));
	}
	/* Neither end may leak into the step's tasks. */
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		exec_id_child(fds[1], user, argv0, path_env, cwd);
	}
	close(fds[1]);
	ok =
	    pid > 0 && !exec_id_read(fds[0], reply, TP_SC_EXEC_HASH_TIMEOUT_MS);
	close(fds[0]);
	if (pid > 0 && ok)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	else if (pid > 0)
		reap_killed(pid);
	if (pid < 0)
		st = tp_error_set(err, TP_ERR_IO, "command %.80s: fork: %s",
		                  argv0 ? argv0 : "", strerror(errno));
	else if (!ok)
		st = tp_error_set(err, TP_ERR_BUDGET,
		                  "command %.80s: not found and hashed within "
		                  "%d ms: not identified",
		                  argv0 ? argv0 : "",
		                  TP_SC_EXEC_HASH_TIMEOUT_MS);
	else if ((st = reply->status) != TP_OK)
		tp_error_set(err, st, "%s", reply->message);
	else
		*id = reply->id;
	free(reply);
	return st;
}

tp_status tp_sc_exec_match(const tp_config *config, const char *munge_socket,
                           const char *user, const tp_exec_id *exec,
                           tp_exec_match_rule rule, uint32_t tasks,
                           tp_exec_match *match,
                           tp_profile_summary *summary, tp_error *err)
{
	tp_munge_config munge;
	tp_store_options opt;
	tp_store_auth auth;

	store_options(config, munge_socket, &munge, &auth, &opt);
	return tp_exec_match_find(&opt, user, exec, rule, tasks, match, summary,
	                          err);
}

tp_status tp_sc_link_script(const tp_config *config, const char *munge_socket,
                            const char *user, const char *script_key,
                            const char *target, uint64_t job_id,
                            tp_store_link_rule rule, bool *written,
                            tp_error *err)
{
	tp_munge_config munge;
	tp_store_options opt;
	tp_store_auth auth;

	store_options(config, munge_socket, &munge, &auth, &opt);
	return tp_store_put_link(&opt, user, script_key, target, job_id, rule,
	                         written, err);
}

uint64_t tp_sc_step_profile_max_bytes(uint64_t remap_memory_bytes)
{
	uint64_t cap = remap_memory_bytes / 3;

	return cap < TP_LOOKUP_PROFILE_MAX_BYTES ? cap
	                                         : TP_LOOKUP_PROFILE_MAX_BYTES;
}

tp_status tp_sc_lookup_request(const tp_config *config,
                               const char *munge_socket,
                               const tp_jobclass_thresholds *thresholds,
                               uint32_t job_id, const char *user,
                               const char *name, bool named,
                               tp_lookup_request *request, tp_error *err)
{
	tp_store_options opt = tp_store_default_options();
	int n1, n2, n3, n4;

	memset(request, 0, sizeof(*request));
	tp_config_store_options(config, &opt);
	request->job_id = job_id;
	request->named = named;
	request->keep = opt.keep;
	request->max_age_s = opt.max_age_s;
	request->thresholds = *thresholds;
	n1 = snprintf(request->user, sizeof(request->user), "%s", user);
	n2 = snprintf(request->name, sizeof(request->name), "%s", name);
	n3 = snprintf(request->store, sizeof(request->store), "%s",
	              opt.root ? opt.root : "");
	n4 = snprintf(request->munge_socket, sizeof(request->munge_socket),
	              "%s", munge_socket ? munge_socket : "");
	if (n1 < 0 || (size_t)n1 >= sizeof(request->user) || n2 < 0 ||
	    (size_t)n2 >= sizeof(request->name) || n3 < 0 ||
	    (size_t)n3 >= sizeof(request->store) || n4 < 0 ||
	    (size_t)n4 >= sizeof(request->munge_socket))
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "profile %.64s/%.64s: user, name, store "
		                    "path or munge socket too long",
		                    user, name);
	return TP_OK;
}

/* The classifier's view of a run's totals (jobclass.h). */
void tp_sc_job_summary(const tp_profile_summary *totals,
                       tp_job_summary *summary)
{
	double seconds = (double)totals->duration_us / 1e6;

	memset(summary, 0, sizeof(*summary));
	summary->ranks = totals->ranks;
	summary->io_bytes = totals->io_read_bytes + totals->io_write_bytes;
	summary->io_clients = totals->io_clients;
	summary->io_request_bytes = totals->io_request_bytes;
	if (seconds > 0) {
		if (totals->io_clients)
			summary->io_requests_per_s =
			    (double)totals->io_requests /
			    (double)totals->io_clients / seconds;
		summary->net_bytes_per_s = (double)totals->net_bytes / seconds;
	}
	if (totals->net_msgs)
		summary->mean_message_bytes =
		    totals->net_bytes / totals->net_msgs;
}

bool tp_sc_io_pattern(const tp_profile_summary *totals,
                      const tp_jobclass_thresholds *thresholds,
                      tp_io_pattern *pattern)
{
	tp_job_summary summary;
	tp_jobclass_result cls;
	tp_error err;
	uint64_t per_client;

	if (!totals->io_requests || !totals->io_clients || !totals->duration_us)
		return false;
	per_client = totals->io_requests / totals->io_clients;
	tp_sc_job_summary(totals, &summary);
	if (tp_jobclass_classify(&summary, thresholds, &cls, &err) != TP_OK)
		cls.job_class = TP_JOBCLASS_QUIET;
	memset(pattern, 0, sizeof(*pattern));
	pattern->request_bytes = summary.io_request_bytes;
	pattern->clients = totals->io_clients;
	pattern->requests_per_client = per_client;
	pattern->mean_interval_us =
	    per_client ? (double)totals->duration_us / (double)per_client : 0;
	pattern->job_class = tp_jobclass_name(cls.job_class);
	return true;
}

void tp_sc_profile_summary(const tp_profile *profile, tp_job_summary *summary)
{
	tp_profile_summary totals;

	/* Only the credential can make this fail, and it is not used. */
	if (tp_summary_of_profile(profile, &totals, NULL) != TP_OK) {
		tp_profile_summary bare = {0};

		bare.ranks = profile->header.ranks;
		totals = bare;
	}
	tp_sc_job_summary(&totals, summary);
}

/* Classify @totals into @result, as the lookup reports it. */
static void lookup_classify(const tp_lookup_request *request,
                            const tp_profile_summary *totals,
                            tp_lookup_result *result)
{
	tp_job_summary summary;
	tp_jobclass_result cls;
	tp_error err;

	tp_sc_job_summary(totals, &summary);
	result->recorded_job_id = totals->job_id;
	snprintf(result->app, sizeof(result->app), "%s", totals->app);
	result->status =
	    tp_jobclass_classify(&summary, &request->thresholds, &cls, &err);
	if (result->status != TP_OK) {
		snprintf(result->error, sizeof(result->error), "%s",
		         err.message);
		return;
	}
	result->job_class = cls.job_class;
	result->ranks = summary.ranks;
	snprintf(result->reason, sizeof(result->reason), "%s", cls.reason);
}

/*
 * A job whose task count is not the profile's ranks: whether slurmd will
 * remap it from a scaled run, by the rule slurmd applies
 * (tp_sc_scaled_profile), so that the SystemComment says what happens at
 * launch instead of "class only".  From the scale view the run choice
 * read (@runs, @count: tp_store_read_job_runs), so no summary is read
 * twice; no view (a run has the job's task count, or the newest run's
 * summary was not usable and the rule would refuse) leaves the class-only
 * answer, as does a refusal (slurmd's own read decides then).
 */
static void lookup_scale(const tp_lookup_request *request,
                         const tp_scale_run *runs, size_t count,
                         tp_lookup_result *result)
{
	tp_scale_verdict verdict;

	if (!request->job_tasks || !result->ranks ||
	    result->ranks == request->job_tasks || !runs || !count)
		return;
	verdict = tp_scale_decide(runs, count, request->job_tasks);
	if (verdict.scaled)
		snprintf(result->scale, sizeof(result->scale),
		         "a %u-rank run scaled to %u ranks (%.160s)",
		         runs[verdict.source].ranks, request->job_tasks,
		         verdict.text);
}

/*
 * The job is placed with a run of @name: record the use beside it
 * (tp_store_note_use: one small write a minute per application at most),
 * for listings and the site's cleanup.  A failure only goes to the log.
 */
static void note_use(const tp_store_options *opt,
                     const tp_lookup_request *request, const char *name,
                     tp_lookup_result *result)
{
	tp_error err;

	if (tp_store_note_use(opt, request->user, name, (int64_t)time(NULL),
	                      request->job_id, NULL, &err) != TP_OK)
		snprintf(result->use_error, sizeof(result->use_error), "%s",
		         err.message);
}

void tp_sc_lookup_read(const tp_lookup_request *request, tp_lookup_pass pass,
                       tp_lookup_result *result, void *ctx)
{
	tp_munge_config munge = {NULL, 0};
	tp_store_options opt = tp_store_default_options();
	tp_store_auth auth;
	tp_profile *profile = NULL;
	tp_profile_summary *totals;
	tp_scale_run *scale = NULL;
	tp_store_job_runs found;
	tp_identity_profile job = {request->name, request->named, true,
	                           request->skip_link,
	                           request->link_by_command};
	tp_identity_key key;
	char script_key[TP_IDENTITY_SCRIPT_KEY_SIZE] = "";
	const char *name = request->name;
	tp_error err;

	(void)ctx;
	memset(&found, 0, sizeof(found));
	/* A summary carries a credential of up to 8 KiB: off the stack of a
	 * thread slurmctld did not size for it. */
	totals = malloc(sizeof(*totals));
	if (!totals) {
		result->status = TP_ERR_NOMEM;
		snprintf(result->error, sizeof(result->error),
		         "profile %.64s/%.64s: out of memory", request->user,
		         request->name);
		return;
	}
	if (request->munge_socket[0])
		munge.socket = request->munge_socket;
	tp_munge_auth_init(&auth, &munge);
	opt.root = request->store;
	opt.keep = request->keep;
	opt.max_age_s = request->max_age_s;
	opt.auth = &auth;
	/* The job's batch script (slurmctld's copy); none (an interactive
	 * job) or one that cannot be read: the job is known by its name. */
	if (request->script_path[0] &&
	    tp_identity_script_key_file(request->script_path, script_key,
	                                &err) != TP_OK)
		script_key[0] = '\0';
	/* Which key: the one rule slurmd and slurmstepd apply too. */
	result->status = tp_identity_resolve(&opt, request->user, &job,
	                                     script_key, &key, &err);
	if (result->status == TP_OK && !key.name)
		result->status =
		    tp_error_set(&err, TP_ERR_NOTFOUND, "profile %s/%s: %s",
		                 request->user, request->name, key.why);
	if (result->status != TP_OK) {
		snprintf(result->error, sizeof(result->error), "%s",
		         err.message);
		goto out;
	}
	name = key.name;
	result->source = key.source;
	/* The scale view, for a job of another size, from the same reads
	 * (16 runs of 300 bytes each: off this thread's stack, see above);
	 * without it the job is only not told of a scaled remapping. */
	if (request->job_tasks)
		scale = calloc(TP_IDENTITY_RUN_CANDIDATES_MAX, sizeof(*scale));
	result->status = tp_store_read_job_runs(&opt, request->user, name,
	                                        request->job_tasks, totals,
	                                        scale, &found, &err);
	result->over_newest = found.choice.over_newest;
	if (result->status == TP_OK) {
		lookup_classify(request, totals, result);
		goto out;
	}
	if (!found.fallback) {
		snprintf(result->error, sizeof(result->error), "%s",
		         err.message);
		goto out;
	}
	snprintf(result->note, sizeof(result->note),
	         "%.440s: read the whole run (%llu bytes) instead", err.message,
	         (unsigned long long)found.run.size_bytes);
	/* A large run is read in the full lane, so small lookups never
	 * wait behind it (tp_profile_lookup.h). */
	if (pass == TP_LOOKUP_QUICK &&
	    found.run.size_bytes > TP_LOOKUP_QUICK_MAX_BYTES) {
		result->needs_full_read = true;
		goto out;
	}
	/* Bounded before a byte is read: see TP_LOOKUP_PROFILE_MAX_BYTES. */
	if (opt.limits.max_file_bytes > TP_LOOKUP_PROFILE_MAX_BYTES)
		opt.limits.max_file_bytes = TP_LOOKUP_PROFILE_MAX_BYTES;
	result->status = tp_store_get(&opt, request->user, name, found.run.file,
	                              &profile, &err);
	if (result->status == TP_ERR_LIMIT)
		tp_error_prefix(
		    &err,
		    "profile %s/%s: over slurmctld's lookup limit of "
		    "%u MiB, placed without it",
		    request->user, name,
		    TP_LOOKUP_PROFILE_MAX_BYTES >> 20);
	if (result->status == TP_OK)
		result->status = tp_summary_of_profile(profile, totals, &err);
	tp_profile_free(profile);
	if (result->status != TP_OK) {
		snprintf(result->error, sizeof(result->error), "%s",
		         err.message);
		goto out;
	}
	lookup_classify(request, totals, result);
out:
	if (result->status == TP_OK && !result->needs_full_read) {
		lookup_scale(request, scale, found.scale_count, result);
		note_use(&opt, request, name, result);
	}
	free(scale);
	free(totals);
}

tp_sc_conf_fallback tp_sc_conf_on_error(bool parsed, bool at_start,
                                        bool reexecuted)
{
	if (parsed && at_start)
		return TP_SC_CONF_USE;
	return reexecuted ? TP_SC_CONF_LAST_GOOD : TP_SC_CONF_NONE;
}

tp_status tp_sc_remap(const tp_topo *topo, const tp_profile *profile,
                      const char *nodes, uint64_t seed, tp_remap_search search,
                      const tp_logger *log, tp_remap_mapping *map,
                      tp_remap_stats *stats, tp_error *err)
{
	const tp_remap_options options = {.search = search};
	tp_traffic *traffic = NULL;
	tp_remap_host *hosts = NULL;
	uint32_t host_count = 0, slots;
	tp_status rc;

	rc = tp_profile_to_traffic(profile, &traffic, err);
	if (rc == TP_OK)
		rc = tp_remap_hosts_parse(topo, nodes, 1, &hosts, &host_count,
		                          err);
	if (rc == TP_OK) {
		/* Enough slots on every host for all ranks, spread evenly. */
		slots = (profile->header.ranks + host_count - 1) / host_count;
		for (uint32_t i = 0; i < host_count; i++)
			hosts[i].slots = slots ? slots : 1;
		rc = tp_remap_compute_options(topo, traffic, hosts, host_count,
		                              seed, &options, log, map, stats,
		                              err);
		if (rc != TP_OK)
			tp_error_prefix(err, "remap");
	}
	free(hosts);
	tp_traffic_free(traffic);
	return rc;
}

static const char *const remap_files[] = {TP_SC_RANKFILE, TP_SC_MACHINEFILE,
                                          TP_SC_HOSTFILE};

tp_status tp_sc_remap_write(const char *dir, const tp_topo *topo,
                            const tp_remap_mapping *map, tp_error *err)
{
	static const tp_rankfile_format formats[] = {
	    TP_RANKFILE_OPENMPI, TP_RANKFILE_HYDRA, TP_RANKFILE_SLURM};
	struct stat st;
	char path[4096];

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s",
		                    dir, strerror(errno));
	/* An existing entry must be the caller's own private directory. */
	if (lstat(dir, &st) < 0)
		return tp_error_set(err, TP_ERR_IO, "%s: %s", dir,
		                    strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return tp_error_set(err, TP_ERR_IO,
		                    "%s: not a private directory of uid %u",
		                    dir, (unsigned)geteuid());
	for (size_t i = 0; i < sizeof(remap_files) / sizeof(remap_files[0]);
	     i++) {
		tp_status rc;

		snprintf(path, sizeof(path), "%s/%s", dir, remap_files[i]);
		rc = tp_rankfile_write(path, topo, formats[i], map->ranks,
		                       map->rank_host, map->rank_slot, err);
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

/* ---- the job directory under a root-owned base ---------------------- */

void tp_sc_job_base(const char *tmp_fs, char *out, size_t size)
{
	snprintf(out, size, "%s/topoplace",
	         tmp_fs && tmp_fs[0] ? tmp_fs : "/tmp");
}

void tp_sc_job_dir_in_base(const char *tmp_fs, unsigned long job_id, char *out,
                           size_t size)
{
	snprintf(out, size, "%s/topoplace/%lu",
	         tmp_fs && tmp_fs[0] ? tmp_fs : "/tmp", job_id);
}

/* Everything task/topoplace and srun write into a job directory. */
static const char *const job_files[] = {TP_SC_RANKFILE, TP_SC_MACHINEFILE,
                                        TP_SC_HOSTFILE, TP_SC_IOSERVERS};

/* Only the caller (root) may create or rename entries in it. */
static int base_trusted(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	       !(st->st_mode & 022);
}

/* The base, opened without following links; -1 when missing or unusable. */
static int base_open(const char *base, struct stat *st)
{
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && fstat(fd, st) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Create the base if missing (mode 0755 whatever the umask: the job's user
 * must reach its directory in it) and open it.
 */
static int base_create(const char *base, struct stat *st)
{
	int created = mkdir(base, 0755) == 0, fd;

	if (!created && errno != EEXIST)
		return -1;
	fd = base_open(base, st);
	if (fd >= 0 && created && base_trusted(st) && fchmod(fd, 0755) == 0)
		st->st_mode = (st->st_mode & ~(mode_t)07777) | 0755;
	return fd;
}

/* Remove the job files in @name of @base_fd, then @name if now empty. */
static int job_dir_clear(int base_fd, const char *name)
{
	int fd = openat(base_fd, name,
	                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return unlinkat(base_fd, name, 0); /* not a directory */
	for (size_t i = 0; i < sizeof(job_files) / sizeof(job_files[0]); i++)
		(void)unlinkat(fd, job_files[i], 0);
	close(fd);
	return unlinkat(base_fd, name, AT_REMOVEDIR);
}

tp_status tp_sc_job_dir_prepare(const char *tmp_fs, unsigned long job_id,
                                unsigned uid, unsigned gid, char *dir,
                                size_t dir_size, char *moved, size_t moved_size,
                                tp_error *err)
{
	char base[4096], aside[4200], name[32];
	struct stat st;
	int base_fd, fd, n;
	tp_status rc = TP_OK;

	if (moved && moved_size)
		moved[0] = '\0';
	tp_sc_job_base(tmp_fs, base, sizeof(base));
	snprintf(name, sizeof(name), "%lu", job_id);
	n = snprintf(dir, dir_size, "%s/%s", base, name);
	if (n < 0 || (size_t)n >= dir_size)
		return tp_error_set(err, TP_ERR_LIMIT, "%s/%s: path too long",
		                    base, name);
	base_fd = base_create(base, &st);
	if (base_fd < 0 || !base_trusted(&st)) {
		struct stat seen;
		int saved = errno;

		if (base_fd >= 0)
			close(base_fd);
		if (lstat(base, &seen) < 0)
			return tp_error_set(err, TP_ERR_IO,
			                    "%s: cannot create: %s", base,
			                    strerror(saved));
		/* Someone else's: move it out of the way, never into it. */
		snprintf(aside, sizeof(aside), "%s.untrusted.%lu.%ld", base,
		         job_id, (long)getpid());
		if (rename(base, aside) < 0)
			return tp_error_set(
			    err, TP_ERR_IO,
			    "%s: owned by uid %u, mode %04o, not "
			    "a private directory of uid %u, and "
			    "cannot be moved aside: %s",
			    base, (unsigned)seen.st_uid,
			    (unsigned)(seen.st_mode & 07777),
			    (unsigned)geteuid(), strerror(errno));
		if (moved && moved_size)
			snprintf(moved, moved_size,
			         "%s was %s of uid %u, mode %04o, not uid "
			         "%u's: moved aside to %s",
			         base,
			         S_ISDIR(seen.st_mode)   ? "a directory"
			         : S_ISLNK(seen.st_mode) ? "a symbolic link"
			                                 : "a file",
			         (unsigned)seen.st_uid,
			         (unsigned)(seen.st_mode & 07777),
			         (unsigned)geteuid(), aside);
		base_fd = base_create(base, &st);
		if (base_fd < 0 || !base_trusted(&st)) {
			if (base_fd >= 0)
				close(base_fd);
			return tp_error_set(
			    err, TP_ERR_IO,
			    "%s: not a private directory of uid "
			    "%u even after moving the old one "
			    "aside",
			    base, (unsigned)geteuid());
		}
	}
	if (mkdirat(base_fd, name, 0700) < 0) {
		if (errno != EEXIST) {
			rc = tp_error_set(err, TP_ERR_IO,
			                  "%s: cannot create: %s", dir,
			                  strerror(errno));
			goto out;
		}
		/* Left by an earlier job of this id (only root writes here). */
		if (fstatat(base_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode) && st.st_uid == uid &&
		    st.st_gid == gid && (st.st_mode & 07777) == 0700)
			goto out;
		if (job_dir_clear(base_fd, name) < 0) {
			snprintf(aside, sizeof(aside), "%s.stale.%ld", name,
			         (long)getpid());
			(void)renameat(base_fd, name, base_fd, aside);
		}
		if (mkdirat(base_fd, name, 0700) < 0) {
			rc = tp_error_set(err, TP_ERR_IO,
			                  "%s: left by an earlier job and "
			                  "cannot be replaced: %s",
			                  dir, strerror(errno));
			goto out;
		}
	}
	fd = openat(base_fd, name,
	            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchown(fd, (uid_t)uid, (gid_t)gid) < 0 ||
	    fchmod(fd, 0700) < 0)
		rc = tp_error_set(err, TP_ERR_IO,
		                  "%s: cannot give it to uid %u: %s", dir, uid,
		                  strerror(errno));
	if (fd >= 0)
		close(fd);
out:
	close(base_fd);
	return rc;
}

int tp_sc_job_dir_remove(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	for (size_t i = 0; i < sizeof(job_files) / sizeof(job_files[0]); i++)
		(void)unlinkat(fd, job_files[i], 0);
	close(fd);
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

int tp_sc_job_dirs_sweep(const char *tmp_fs, unsigned long job_id,
                         size_t max_entries, unsigned *removed,
                         bool *scanned_all)
{
	char base[4096], name[32], prefix[48];
	const char *area = tmp_fs && tmp_fs[0] ? tmp_fs : "/tmp";
	struct stat st;
	struct dirent *entry;
	size_t prefix_len;
	int fd, rc = 0;
	DIR *dir;

	size_t read_entries = 0;

	*removed = 0;
	*scanned_all = true;
	/* task/topoplace's, under the root-owned base. */
	tp_sc_job_base(tmp_fs, base, sizeof(base));
	snprintf(name, sizeof(name), "%lu", job_id);
	fd = base_open(base, &st);
	if (fd >= 0) {
		if (base_trusted(&st) &&
		    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (job_dir_clear(fd, name) == 0)
				(*removed)++;
			else if (errno != ENOENT) /* gone meanwhile */
				rc = -1;
		}
		close(fd);
	}
	/*
	 * srun's, <area>/topoplace.<id>.XXXXXX (mkdtemp), left when srun was
	 * killed before its exit callback.  Only directories of that exact
	 * shape; their files are removed by name, never followed.
	 */
	fd = open(area, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rc;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -1;
	}
	prefix_len = (size_t)snprintf(prefix, sizeof(prefix), "topoplace.%lu.",
	                              job_id);
	while ((entry = readdir(dir))) {
		int sub;

		if (read_entries++ == max_entries) {
			*scanned_all = false;
			break;
		}
		if (strncmp(entry->d_name, prefix, prefix_len) ||
		    strlen(entry->d_name) != prefix_len + 6)
			continue;
		sub = openat(fd, entry->d_name,
		             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* not a directory: not srun's */
		for (size_t i = 0; i < sizeof(job_files) / sizeof(job_files[0]);
		     i++)
			(void)unlinkat(sub, job_files[i], 0);
		close(sub);
		if (unlinkat(fd, entry->d_name, AT_REMOVEDIR) == 0)
			(*removed)++;
		else if (errno != ENOENT)
			rc = -1;
	}
	closedir(dir);
	return rc;
}

tp_status tp_sc_private_dir_create(const char *tmp_fs, unsigned long job_id,
                                   char *out, size_t size, tp_error *err)
{
	int n = snprintf(out, size, "%s/topoplace.%lu.XXXXXX",
	                 tmp_fs && tmp_fs[0] ? tmp_fs : "/tmp", job_id);

	if (n < 0 || (size_t)n >= size)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: TmpFS path too long", tmp_fs);
	if (!mkdtemp(out))
		return tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s",
		                    out, strerror(errno));
	return TP_OK;
}

/* ---- I/O servers among a job's nodes --------------------------------- */

tp_status tp_sc_ioservers_place(const tp_topo *topo, const char *nodes,
                                uint32_t servers, tp_ioserver_policy policy,
                                uint32_t job_id, tp_ioserver_result *result,
                                tp_error *err)
{
	tp_ioserver_request request;
	tp_remap_host *hosts = NULL;
	uint32_t *job_hosts = NULL, count = 0;
	tp_status rc;

	memset(result, 0, sizeof(*result));
	rc = tp_remap_hosts_parse(topo, nodes, 1, &hosts, &count, err);
	if (rc != TP_OK)
		return rc;
	job_hosts = calloc(count ? count : 1, sizeof(*job_hosts));
	if (!job_hosts) {
		free(hosts);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "I/O servers: out of "
		                    "memory");
	}
	for (uint32_t i = 0; i < count; i++)
		job_hosts[i] = hosts[i].host;
	memset(&request, 0, sizeof(request));
	request.servers = servers;
	request.policy = policy;
	request.scope = TP_IOSERVER_AMONG;
	request.job_hosts = job_hosts;
	request.job_host_count = count;
	request.job_id = job_id;
	request.use = NULL;
	request.seed = job_id;
	rc = tp_ioserver_place(topo, &request, result, err);
	free(job_hosts);
	free(hosts);
	return rc;
}

tp_status tp_sc_ioservers_format(const tp_topo *topo,
                                 const tp_ioserver_result *result, char sep,
                                 char *out, size_t size, tp_error *err)
{
	size_t len = 0;

	if (size)
		out[0] = '\0';
	for (uint32_t i = 0; i < result->server_count; i++) {
		const char *host = tp_topo_host_name(topo, result->servers[i]);
		char between[2] = {sep, '\0'};
		int n = snprintf(out + len, size - len, "%s%s",
		                 i ? between : "", host);

		if (n < 0 || (size_t)n >= size - len)
			return tp_error_set(err, TP_ERR_LIMIT,
			                    "I/O servers: %u host names do not "
			                    "fit in %zu bytes",
			                    result->server_count, size);
		len += (size_t)n;
	}
	return TP_OK;
}

tp_status tp_sc_ioservers_write(const char *dir, const tp_topo *topo,
                                const tp_ioserver_result *result, tp_error *err)
{
	char path[4096], tmp[4200], *text;
	size_t size = (size_t)result->server_count * 256 + 2;
	tp_status rc;
	int fd;

	text = malloc(size);
	if (!text)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "%s/" TP_SC_IOSERVERS ": out of memory",
		                    dir);
	rc = tp_sc_ioservers_format(topo, result, '\n', text, size - 1, err);
	if (rc != TP_OK) {
		free(text);
		return rc;
	}
	strcat(text, "\n");
	snprintf(path, sizeof(path), "%s/" TP_SC_IOSERVERS, dir);
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	          0644);
	if (fd < 0) {
		rc = tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s", tmp,
		                  strerror(errno));
	} else {
		int failed = tp_file_write_all(fd, text, strlen(text)) < 0 ||
		             fsync(fd) < 0;

		failed = close(fd) < 0 || failed;
		if (failed || rename(tmp, path) < 0) {
			rc =
			    tp_error_set(err, TP_ERR_IO, "%s: cannot write: %s",
			                 path, strerror(errno));
			(void)unlink(tmp);
		}
	}
	free(text);
	return rc;
}
