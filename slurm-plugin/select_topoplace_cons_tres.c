/*
 * select_topoplace_cons_tres.c: select/topoplace_cons_tres, a select plugin
 * that wraps select/cons_tres.
 *
 * cons_tres keeps doing what it does (cores, memory, GRES, backfill,
 * reservations); this plugin only narrows the node set it may choose from
 * and records why.  Every entry point is forwarded to cons_tres through a
 * plugin context created in init(), so anything topoplace does not change
 * behaves exactly as SelectType=select/cons_tres.
 *
 * Why the name contains "cons_tres": slurmctld and slurmd test SelectType for
 * the substring "cons_tres" to enable heterogeneous GRES, shared GRES and
 * dynamic nodes; a wrapper without it would silently switch those off.
 *
 * Why plugin_id is our own (not SELECT_PLUGIN_CONS_TRES): every select_*.so in
 * PluginDir is loaded by slurmctld and by clients, and two plugins with one
 * plugin_id make every Slurm command fatal.  The one visible consequence is
 * that on 22.05 reservations by CoreCnt are refused (state_control tests
 * the id); 24.11's slurmctld asks get_info_from_plugin, forwarded here.
 *
 * This file is loaded by clients (srun, squeue, sinfo...) too, so it must not
 * reference slurmctld-only symbols; it only touches job_record_t fields
 * passed in by the caller.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/common/run_in_daemon.h"
#include "src/common/uid.h"

#include "alloc.h"
#include "app_identity.h"
#include "sched_decide.h"
#include "sched_decisions.h"
#include "sched_policy.h"
#include "sched_state.h"
#include "spank_env.h"
#include "tp_profile_lookup.h"
#include "tp_select_model.h"
#include "tp_select_ops.h"
#include "tp_slurm_acct.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

const char plugin_name[] = "topoplace fabric-aware placement over cons_tres";
const char plugin_type[] = "select/topoplace_cons_tres";
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The wrapped plugin; set in init(), cleared in fini(). */
static tp_select_ops_t inner; /* tp_select_ops.h: per Slurm version */
static plugin_context_t *inner_context = NULL;

/*
 * ---- topoplace state (slurmctld only) --------------------------------------
 *
 * Everything below is touched only when running_in_slurmctld(): clients
 * load this plugin too and must get plain forwarding.  Entry points that
 * read or change it are called by slurmctld with its job and node locks
 * held; the mutex only protects against the rare entry point that is not
 * (and costs nothing uncontended).
 *
 * The loaded model (tp_select_model.h): topoplace.conf, the fabric and
 * Slurm's nodes on it; a failed reload keeps the previous one (tp_cur).
 */

/* Decisions of pending jobs cached at most (jobs that never start). */
#define TP_DECISIONS_MAX 16384
/* A decision not looked at for this long is evicted first when full. */
#define TP_DECISION_STALE_S 600
/* Profile lookups queued or unclaimed at most. */
#define TP_LOOKUPS_MAX 4096
/*
 * A job test may wait this long for the job's own lookup when nothing is
 * queued before it: a profile on a healthy store is then used in the same
 * pass; a stuck store costs one such wait, not one per job.
 */
#define TP_LOOKUP_WAIT_US 20000

typedef enum tp_verdict {
	TP_VERDICT_DECIDED, /* policy (and class) known, or d->failed */
	TP_VERDICT_PENDING, /* the profile lookup has not answered yet */
} tp_verdict;

static pthread_mutex_t tp_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tp_active = false; /* running in slurmctld */
static tp_model *tp_cur = NULL;
/*
 * Running jobs and leaf holds (placement/sched_state.h): kept apart from
 * the model, so a topoplace.conf that does not load (at start or on a
 * reconfigure) never loses a hold already given.
 */
static tp_sched_state *tp_sched = NULL;
/* Decisions of pending jobs by job id (placement/sched_decisions.h). */
static tp_decisions *tp_decs = NULL;
static tp_host_use *tp_use = NULL;              /* scratch, one per topo host */
static uint32_t tp_use_cap = 0;
/* The lookup thread (slurmctld only) and slurmctld's "schedule soon". */
static tp_lookup *tp_lookups = NULL;
static void (*tp_queue_job_scheduler)(void) = NULL;

static tp_decision *_decision_find(uint32_t job_id)
{
	return tp_decs ? tp_decisions_find(tp_decs, job_id) : NULL;
}

/* A decision leaves the table: a lookup still outstanding for it is of
 * no use any more. */
static void _decision_forget_lookup(tp_decision *d, void *ctx)
{
	(void)ctx;
	if (d->lookup_sent && !d->profile_read)
		tp_lookup_forget(tp_lookups, d->job_id, d->lookup_ticket);
	d->lookup_sent = false;
}

static void _decision_clear(void)
{
	if (tp_decs)
		tp_decisions_clear(tp_decs);
}

static void _decision_drop(uint32_t job_id)
{
	if (tp_decs)
		tp_decisions_drop(tp_decs, job_id);
}

/*
 * The job's decision, made when it has none.  NULL (logged) only without
 * a table or memory: the job is then Slurm's.
 */
static tp_decision *_decision_get(job_record_t *job_ptr)
{
	tp_decisions_eviction ev;
	tp_decision *d;
	tp_error err;

	if (!tp_decs) {
		tp_error_set(&err, TP_ERR_INTERNAL, "no decision table");
		d = NULL;
	} else {
		d = tp_decisions_get(tp_decs, job_ptr->job_id, time(NULL), &ev,
		                     &err);
	}
	if (!d) {
		error("topoplace: %pJ: %s: placed by plain cons_tres", job_ptr,
		      err.message);
		return NULL;
	}
	if (ev.all_dropped)
		info("topoplace: all %d decisions of pending jobs dropped "
		     "(none was stale): they are made again as the jobs are "
		     "tested",
		     TP_DECISIONS_MAX);
	else if (ev.stale_dropped)
		info("topoplace: %zu decisions of pending jobs not tested for "
		     "%d s dropped (at most %d are kept)",
		     ev.stale_dropped, TP_DECISION_STALE_S, TP_DECISIONS_MAX);
	return d;
}

/* Slurm's node table into the scheduler state (names by node index). */
static void _sched_set_nodes(void)
{
	const char **names = xcalloc(node_record_count + 1, sizeof(*names));
	tp_error err;

	for (int i = 0; i < node_record_count; i++)
		names[i] = node_record_table_ptr[i]
		               ? node_record_table_ptr[i]->name
		               : NULL;
	if (tp_sched_set_nodes(tp_sched, names, (uint32_t)node_record_count,
	                       &err) != TP_OK)
		error("topoplace: node table: %s", err.message);
	xfree(names);
}

/* The current model's fabric into the scheduler state (NULL: none). */
static void _sched_set_topo(const tp_model *m)
{
	tp_error err;

	if (tp_sched_set_topo(tp_sched, m ? m->topo : NULL, &err) != TP_OK)
		error("topoplace: running jobs on the fabric: %s", err.message);
}

/*
 * Record job @job_ptr as running, placed as @rec, on its nodes (by the
 * bitmap once Slurm has built it, else by the saved names: at a restart,
 * select_g_job_init runs before _sync_jobs_to_conf builds the recovered
 * jobs' node bitmaps, read_config.c).
 */
static void _sched_add(job_record_t *job_ptr, const tp_sched_record *rec)
{
	char *nodes = job_ptr->node_bitmap
	                  ? bitmap2node_name(job_ptr->node_bitmap)
	                  : xstrdup(job_ptr->nodes);
	tp_error err;

	if (tp_sched_job_add(tp_sched, job_ptr->job_id, rec, nodes, &err) !=
	    TP_OK)
		error("topoplace: %pJ: not recorded as running: %s", job_ptr,
		      err.message);
	xfree(nodes);
}

static void _bit_clear_node(void *ctx, uint32_t node)
{
	bitstr_t *node_bitmap = ctx;

	if (node < bit_size(node_bitmap))
		bit_clear(node_bitmap, node);
}

/*
 * Slurm nodes a job placed by plain cons_tres may not use: every node a
 * running whole-leaf job holds (its own and its leaves' free ones:
 * cons_tres would otherwise share the job's nodes core by core).  Needs
 * neither topoplace.conf nor a fabric: the holds are kept by name.
 */
static void _clear_held(bitstr_t *node_bitmap, uint32_t job_id)
{
	tp_sched_for_each_held(tp_sched, job_id, _bit_clear_node, node_bitmap);
}

/*
 * Whether Slurm node @node, not offered now, is back in a moment: it has
 * not registered since slurmctld started (state UNKNOWN: after a restart,
 * and after every Slurm 24.11 reconfigure, which restarts slurmctld and
 * all slurmd; they register one by one, seconds apart under load), its
 * slurmd is not answering but the node is not (yet) down, or it is
 * completing a job, powering up or rebooting.  Slurm marks a node that
 * stays away DOWN after SlurmdTimeout, so the wait is bounded.  Only
 * nodes of the job's partition (@part, NULL: any): the others are never
 * the job's.  Down, failed and drained nodes are not.
 */
static bool _node_not_ready(uint32_t node, bitstr_t *part)
{
	node_record_t *n = node < (uint32_t)node_record_count
	                       ? node_record_table_ptr[node]
	                       : NULL;

	if (!n || (part && (node >= (uint32_t)bit_size(part) ||
	                    !bit_test(part, node))))
		return false;
	if (IS_NODE_DOWN(n) || IS_NODE_FAIL(n) || IS_NODE_DRAIN(n))
		return false;
	return IS_NODE_UNKNOWN(n) || IS_NODE_NO_RESPOND(n) ||
	       IS_NODE_COMPLETING(n) || IS_NODE_POWERING_UP(n) ||
	       IS_NODE_REBOOT_ISSUED(n);
}

/*
 * The occupancy the core sees: the running jobs' hosts and holds (kept up
 * to date at job begin and end by the scheduler state), hosts Slurm does
 * not offer (@avail) NOT_READY when they are back in a moment
 * (_node_not_ready), else DOWN, as are hosts that are no Slurm node;
 * IoServerHosts IOSERVER.  O(hosts).  NULL when out of memory (logged).
 */
static tp_host_use *_occupancy(tp_model *m, bitstr_t *avail, bitstr_t *part)
{
	uint32_t hosts = tp_topo_host_count(m->topo);
	const tp_host_use *running;
	tp_error err;

	running = tp_sched_occupancy(tp_sched, &err);
	if (!running) {
		error("topoplace: %s", err.message);
		return NULL;
	}
	if (tp_use_cap < hosts) {
		xrecalloc(tp_use, hosts, sizeof(*tp_use));
		tp_use_cap = hosts;
	}
	memcpy(tp_use, running, hosts * sizeof(*tp_use));
	for (uint32_t h = 0; h < hosts; h++) {
		uint32_t node = m->host_node[h];

		if (tp_use[h].state != TP_HOST_FREE)
			continue;
		if (node == TP_NONE)
			tp_use[h].state = TP_HOST_DOWN;
		else if (!bit_test(avail, node))
			tp_use[h].state = _node_not_ready(node, part)
			                      ? TP_HOST_NOT_READY
			                      : TP_HOST_DOWN;
	}
	/* Whatever else they are, the site's I/O servers carry its I/O. */
	for (uint32_t k = 0; k < m->ioserver_count; k++) {
		tp_host_use *u = &tp_use[m->ioservers[k]];

		u->state = TP_HOST_IOSERVER;
		u->job_id = TP_ALLOC_SITE_JOB;
		u->job_class = TP_JOBCLASS_IO_HEAVY;
	}
	return tp_use;
}

/* Microseconds, for the decision's own log line. */
static uint64_t _now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * Where slurmctld keeps the job's batch script (StateSaveLocation/
 * hash.<id % 10>/job.<id>/script, Slurm's own layout; array tasks share
 * their array's), for the lookup thread to identify the application by
 * before its job name (tp_identity_resolve).  Not for a named profile,
 * nor for jobs without a script.
 */
static void _script_path(job_record_t *job_ptr, bool named,
                         tp_lookup_request *rq)
{
	uint32_t id = job_ptr->array_job_id ? job_ptr->array_job_id
	                                    : job_ptr->job_id;

	if (named || !job_ptr->batch_flag || !slurm_conf.state_save_location)
		return;
	snprintf(rq->script_path, sizeof(rq->script_path),
	         "%s/hash.%u/job.%u/script", slurm_conf.state_save_location,
	         id % 10, id);
}

/*
 * The whole-leaf wait bound of @job_ptr into @test (alloc.h): the
 * partition's LeafWaitMax, or the time of the job's --switches=N@time when
 * shorter (Slurm has already capped it at max_switch_wait), and how long
 * the job has been eligible.
 */
static void _leaf_wait(job_record_t *job_ptr,
                       const tp_config_settings *settings,
                       tp_sched_job_test *test)
{
	uint64_t job_us = 0;
	time_t since =
	    job_ptr->details &&
	            job_ptr->details->begin_time > job_ptr->details->submit_time
	        ? job_ptr->details->begin_time
	        : (job_ptr->details ? job_ptr->details->submit_time : 0);
	time_t now = time(NULL);

	if (job_ptr->req_switch && job_ptr->wait4switch &&
	    job_ptr->wait4switch != INFINITE && job_ptr->wait4switch != NO_VAL)
		job_us = (uint64_t)job_ptr->wait4switch * 1000000u;
	test->leaf_wait_max_us =
	    tp_alloc_leaf_wait_bound(settings->leaf_wait_max_us, job_us);
	test->waited_us =
	    since && now > since ? (uint64_t)(now - since) * 1000000u : 0;
}

/*
 * The job's topoplace flags and profile, for the core's policy steps
 * (placement/sched_policy.h); @opts holds the strings @job points into.
 * A flag whose value does not parse (set by hand past the SPANK check) is
 * logged here and named to the core.  The profile (and the user name it
 * needs) only while it is not settled: the job is tested on every pass.
 */
static void _policy_job(job_record_t *job_ptr, const tp_decision *d,
                        tp_opt_values *opts, tp_sched_policy_job *job)
{
	tp_identity_profile profile;
	tp_error err;

	memset(job, 0, sizeof(*job));
	tp_opt_values_init(opts);
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);
		const char *value = tp_spank_job_option(
		    job_ptr->spank_job_env, job_ptr->spank_job_env_size,
		    info->name);

		if (value && tp_opt_values_set(opts, (tp_opt_id)i, value,
		                               &err) != TP_OK) {
			error("topoplace: %pJ: %s: placed by plain cons_tres",
			      job_ptr, err.message);
			job->bad_option = info->name;
			return;
		}
	}
	job->placement = opts->placement;
	if (job_ptr->details && job_ptr->details->num_tasks != NO_VAL)
		job->job_tasks = job_ptr->details->num_tasks;
	if (d->profile_read || opts->placement == TP_PLACEMENT_OFF)
		return;
	job->user = uid_to_string_cached(job_ptr->user_id);
	profile = tp_identity_job_profile(opts->comm_profile, job_ptr->name,
	                                  job->user);
	job->profile = profile.name;
	job->named = profile.named;
	job->lookup = profile.lookup;
}

/*
 * Queue the job's profile lookup on the lookup thread (never read here:
 * slurmctld holds its locks), then give it TP_LOOKUP_WAIT_US to answer in
 * this pass.  A lookup that cannot be queued fails the decision.
 */
static void _policy_lookup(tp_model *m, job_record_t *job_ptr, tp_decision *d,
                           const tp_sched_policy_job *job,
                           const tp_config_settings *settings)
{
	/* Before the submission: the worker may start at once. */
	uint64_t sent_us = _now_us();
	tp_lookup_request rq;
	uint32_t ticket = 0;
	tp_status queued;
	tp_error err;

	if (!tp_lookups) {
		error("topoplace: %pJ: no profile lookup thread: placed by "
		      "plain cons_tres",
		      job_ptr);
		tp_sched_policy_refused(job, d, true);
		return;
	}
	queued = tp_sc_lookup_request(m->config, m->munge_socket,
	                              &settings->thresholds, job_ptr->job_id,
	                              job->user, job->profile, job->named,
	                              &rq, &err);
	if (queued == TP_OK) {
		_script_path(job_ptr, job->named, &rq);
		/* The run slurmd remaps with: chosen by the same task count
		 * (tp_sc_profile_totals). */
		rq.job_tasks = job->job_tasks;
		rq.skip_link = settings->profile_by_exec == TP_EXEC_MATCH_NO;
		rq.link_by_command =
		    settings->profile_by_exec == TP_EXEC_MATCH_COMMAND;
		queued = tp_lookup_submit(tp_lookups, &rq, &ticket, &err);
	}
	if (queued != TP_OK) {
		error("topoplace: %pJ: %s: placed by plain cons_tres", job_ptr,
		      err.message);
		tp_sched_policy_refused(job, d, false);
		return;
	}
	tp_sched_policy_queued(d, ticket, sent_us);
	if (tp_model_debug(m, TP_DEBUG_PROFILE))
		info("topoplace: Profile: %pJ: lookup of %s/%s (%s) queued in "
		     "%s",
		     job_ptr, job->user, job->profile,
		     job->named ? "--comm-profile" : "job name",
		     tp_config_site_settings(m->config)->profile_store);
	(void)tp_lookup_wait(tp_lookups, job_ptr->job_id, ticket,
	                     TP_LOOKUP_WAIT_US);
}

/*
 * What the lookup thread said beside its answer: that the summary was not
 * used and the last use not recorded (once, for this lookup, without
 * DebugFlags: the fix is `topoplace profile summarize`), and with
 * DebugFlags=Profile how long it took.
 */
static void _lookup_log(tp_model *m, job_record_t *job_ptr,
                        const tp_decision *d, const tp_sched_policy_job *job,
                        const tp_lookup_result *res)
{
	bool dbg = tp_model_debug(m, TP_DEBUG_PROFILE);

	if (res->note[0])
		info("topoplace: %pJ: profile %s/%s: %s", job_ptr, job->user,
		     job->profile, res->note);
	if (res->use_error[0])
		info("topoplace: %pJ: profile %s/%s: last use not recorded: %s",
		     job_ptr, job->user, job->profile, res->use_error);
	if (dbg && res->status == TP_OK)
		info("topoplace: Profile: %pJ: %s/%s read in %" PRIu64
		     " us, answer after %" PRIu64 " us: class %s: %s",
		     job_ptr, job->user, job->profile, res->elapsed_us,
		     _now_us() - d->lookup_since_us,
		     tp_jobclass_name(res->job_class), res->reason);
	else if (dbg && res->status == TP_ERR_NOTFOUND)
		info("topoplace: Profile: %pJ: %s/%s: not in the store (%" PRIu64
		     " us): no profile",
		     job_ptr, job->user, job->profile, res->elapsed_us);
}

/*
 * Claim the answer of the job's queued lookup and have the core use it
 * (the class, the note), logging what the core's answer calls for.  False
 * while the job waits for it; past ProfileLookupTimeout the decision
 * fails and the lookup is forgotten.
 */
static bool _policy_claim(tp_model *m, job_record_t *job_ptr, tp_decision *d,
                          const tp_sched_policy_job *job)
{
	uint64_t timeout_us =
	    tp_config_site_settings(m->config)->profile_lookup_timeout_us;
	tp_sched_profile_answer answer;
	tp_lookup_result res;

	if (!tp_lookup_take(tp_lookups, job_ptr->job_id, d->lookup_ticket,
	                    &res)) {
		if (!tp_sched_policy_timed_out(job, d, _now_us(), timeout_us))
			return false;
		error("topoplace: %pJ: profile %s/%s: no answer from the store "
		      "after %.1f s (ProfileLookupTimeout): placed by plain "
		      "cons_tres",
		      job_ptr, job->user, job->profile, timeout_us / 1e6);
		_decision_forget_lookup(d, NULL);
		return true;
	}
	_lookup_log(m, job_ptr, d, job, &res);
	answer = (tp_sched_profile_answer){
	    .status = res.status,
	    .job_class = res.job_class,
	    .class_reason = res.reason,
	    .ranks = res.ranks,
	    .recorded_job_id = res.recorded_job_id,
	    .source = res.source,
	    .app = res.app,
	    .over_newest = res.over_newest,
	    .scale = res.scale,
	};
	switch (tp_sched_policy_answer(job, d, &answer)) {
	case TP_SCHED_PROFILE_USED:
	case TP_SCHED_PROFILE_CLASS_ONLY:
		if (res.elapsed_us > 1000000)
			info("topoplace: %pJ: profile %s/%s read in %.1f s",
			     job_ptr, job->user, job->profile,
			     res.elapsed_us / 1e6);
		break;
	case TP_SCHED_PROFILE_UNUSABLE:
		/* The store's message names the file or directory. */
		error("topoplace: %pJ: profile: %s: placed by plain cons_tres",
		      job_ptr, res.error);
		break;
	case TP_SCHED_PROFILE_NAMED_ABSENT:
		error("topoplace: %pJ: --comm-profile=%s: %s", job_ptr,
		      job->profile, res.error);
		break;
	case TP_SCHED_PROFILE_NONE:
		break;
	}
	return true;
}

/*
 * The job's flags, its profile's class and the resolved policy, the core
 * deciding each step (placement/sched_policy.h): the first test queues
 * the profile lookup and the job waits (TP_VERDICT_PENDING) until a later
 * test finds the answer, or until ProfileLookupTimeout, after which it is
 * placed by plain cons_tres.
 */
static tp_verdict _decide_policy(tp_model *m, job_record_t *job_ptr,
                                 tp_decision *d)
{
	const char *part = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;
	const tp_config_settings *settings =
	    tp_config_for_partition(m->config, part);
	tp_sched_policy_job job;
	tp_opt_values opts;

	_policy_job(job_ptr, d, &opts, &job);
	switch (tp_sched_policy_next(&job, d)) {
	case TP_SCHED_POLICY_FAILED:
		return TP_VERDICT_DECIDED;
	case TP_SCHED_POLICY_NO_STORE_NAME:
		if (job.named)
			error("topoplace: %pJ: --comm-profile=%s: not a "
			      "profile name",
			      job_ptr, job.profile);
		else if (tp_model_debug(m, TP_DEBUG_PROFILE))
			info("topoplace: Profile: %pJ: no lookup: job name %s "
			     "or user %s is no store name",
			     job_ptr, job.profile ? job.profile : "(none)",
			     job.user ? job.user : "(none)");
		break;
	case TP_SCHED_POLICY_LOOKUP:
	case TP_SCHED_POLICY_CLAIM:
		/* A lookup just queued may have answered already. */
		if (!d->lookup_sent)
			_policy_lookup(m, job_ptr, d, &job, settings);
		if (d->failed)
			return TP_VERDICT_DECIDED;
		if (!_policy_claim(m, job_ptr, d, &job))
			return TP_VERDICT_PENDING;
		if (d->failed)
			return TP_VERDICT_DECIDED;
		break;
	case TP_SCHED_POLICY_RESOLVE:
		break;
	}
	d->policy = tp_config_resolve_placement(settings, opts.placement,
	                                        d->has_profile);
	if (tp_model_debug(m, TP_DEBUG_PLACEMENT))
		info(
		    "topoplace: Placement: %pJ: policy=%s from --placement=%s, "
		    "DefaultPlacement=%s (partition %s), %s",
		    job_ptr, tp_placement_name(d->policy),
		    tp_placement_name(opts.placement),
		    tp_placement_name(settings->default_placement),
		    part ? part : "(none)",
		    d->has_profile ? "a profile" : "no profile");
	return TP_VERDICT_DECIDED;
}
/*
 * The placement the user asked for, as the SPANK plugin left it in the job's
 * SPANK environment; "auto" when the flag was not given.
 */
static const char *_requested_placement(job_record_t *job_ptr)
{
	const char *value = tp_spank_job_option(job_ptr->spank_job_env,
	                                        job_ptr->spank_job_env_size,
	                                        TP_SPANK_OPT_PLACEMENT);
	return value ? value : "auto";
}

/*
 * Set the job's SystemComment to @text unless another component owns it
 * (burst buffers use it too).  Called under slurmctld's job write lock.
 */
static void _system_comment_set(job_record_t *job_ptr, const char *text)
{
	if (job_ptr->system_comment &&
	    strncmp(job_ptr->system_comment, TP_SC_DECISION_PREFIX,
	            strlen(TP_SC_DECISION_PREFIX)))
		return;
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = xstrdup(text);
}

/*
 * A placement verdict: narrow @node_bitmap to the allowed hosts that are
 * Slurm nodes and log the decision (info on the job's first, debug on the
 * next: a job cons_tres cannot start yet is tested every pass).
 */
static void _narrow_apply(tp_model *m, job_record_t *job_ptr, tp_decision *d,
                          const tp_sched_verdict *v, bitstr_t *node_bitmap,
                          uint64_t t0, bool dbg)
{
	const tp_alloc_result *res = &v->alloc;
	bitstr_t *allowed = bit_alloc(bit_size(node_bitmap));
	char leaves[256] = "";
	size_t used = 0;
	bool first = !d->decided_logged;
	char msg[1024];

	for (uint32_t k = 0; k < res->host_count; k++) {
		uint32_t node = m->host_node[res->hosts[k]];

		if (node != TP_NONE)
			bit_set(allowed, node);
	}
	bit_and(node_bitmap, allowed);
	FREE_NULL_BITMAP(allowed);
	tp_decision_verdict(d, m->topo, v);
	for (uint32_t k = 0; k < res->leaf_count && used < 200; k++)
		used += snprintf(leaves + used, sizeof(leaves) - used, "%s%s",
		                 k ? "," : "",
		                 tp_topo_leaf_name(m->topo, res->leaves[k]));
	/* A reason too long for one log line is cut. */
	if (snprintf(msg, sizeof(msg),
	             "topoplace: JobId=%u: placement=%s class=%s allowed=%u "
	             "hosts on leaves %s (%" PRIu64 " us): %s%s%s",
	             job_ptr->job_id, tp_placement_name(d->policy),
	             tp_jobclass_name(d->job_class), res->host_count, leaves,
	             _now_us() - t0, res->reason,
	             d->has_profile ? "; class: " : "",
	             d->has_profile ? d->class_reason : "") < 0)
		msg[0] = '\0';
	if (first)
		info("%s", msg);
	else
		debug("%s", msg);
	/* Every decision, not only the first of the job. */
	if (dbg)
		info("topoplace: Placement: %s (cons_tres may choose from %d "
		     "nodes)",
		     msg + strlen("topoplace: "), bit_set_count(node_bitmap));
	d->decided_logged = true;
}

/*
 * The hosts of the fabric the user required (-w), for the core: a node not
 * on the fabric as TP_NONE (never allowed).  NULL when the job requires
 * none or its bitmap is not of this node table; xfree the result.
 */
static uint32_t *_required_hosts(const tp_model *m, job_record_t *job_ptr,
                                 bitstr_t *node_bitmap, uint32_t *count)
{
	bitstr_t *required =
	    job_ptr->details ? job_ptr->details->req_node_bitmap : NULL;
	uint32_t *hosts;
	int64_t first, last;

	*count = 0;
	if (!required || bit_size(required) != bit_size(node_bitmap))
		return NULL;
	hosts = xcalloc(bit_set_count(required) + 1, sizeof(*hosts));
	first = bit_ffs(required);
	last = bit_fls(required);
	for (int64_t node = first; first >= 0 && node <= last; node++)
		if (bit_test(required, node))
			hosts[(*count)++] =
			    node < m->node_count ? m->node_host[node] : TP_NONE;
	return hosts;
}

/* The model, the candidates and the job's partition's nodes (NULL:
 * unknown), for the core's occupancy callback. */
typedef struct tp_occupancy_ctx {
	tp_model *m;
	bitstr_t *avail;
	bitstr_t *part;
} tp_occupancy_ctx;

static const tp_host_use *_occupancy_for_core(void *ctx)
{
	tp_occupancy_ctx *c = ctx;

	return _occupancy(c->m, c->avail, c->part);
}

/*
 * The job as the core decides it (placement/sched_decide.h), but for its
 * node counts and -w: what the decision cache knows, its flags and
 * profile (read by _decide_policy on its first test), the model, the
 * partition's settings and the job's whole-leaf wait.
 */
static void _job_test_fill(tp_model *m, job_record_t *job_ptr, tp_decision *d,
                           tp_occupancy_ctx *occupancy, tp_sched_job_test *t)
{
	const tp_config_settings *settings =
	    m ? tp_config_for_partition(m->config, job_ptr->part_ptr
	                                               ? job_ptr->part_ptr->name
	                                               : NULL)
	      : NULL;

	t->job_id = job_ptr->job_id;
	t->asked_placement = _requested_placement(job_ptr);
	t->conf_loaded = m != NULL;
	t->topo = m ? m->topo : NULL;
	if (t->topo && !d->failed)
		t->profile_pending =
		    _decide_policy(m, job_ptr, d) == TP_VERDICT_PENDING;
	t->failed = d->failed;
	t->policy = d->policy;
	t->job_class = d->job_class;
	if (!settings)
		return;
	t->default_placement = settings->default_placement;
	if (!t->topo)
		return;
	t->mapped_count = m->mapped_count;
	t->budget_us = settings->decision_budget_us;
	t->routing = tp_config_site_settings(m->config)->routing;
	t->leaf_remainder = settings->leaf_remainder;
	_leaf_wait(job_ptr, settings, t);
	t->isolation_wait_max_us = settings->isolation_wait_max_us;
	t->occupancy = _occupancy_for_core;
	t->occupancy_ctx = occupancy;
}

/*
 * Plain cons_tres (policy off, or any failure) still keeps off the leaves
 * running whole-leaf jobs hold: those leaves were promised.  Holds
 * already given stand without a model.
 */
static void _narrow_plain(job_record_t *job_ptr, const tp_sched_verdict *v,
                          bitstr_t *node_bitmap, bool dbg)
{
	int before;

	dbg = dbg && v->log_reason[0];
	before = dbg ? bit_set_count(node_bitmap) : 0;
	_clear_held(node_bitmap, job_ptr->job_id);
	if (dbg)
		info("topoplace: Placement: %pJ: %s: plain cons_tres on %d of "
		     "%d candidate nodes (the rest on leaves whole-leaf jobs "
		     "hold)",
		     job_ptr, v->log_reason, bit_set_count(node_bitmap),
		     before);
}

/*
 * The job waits (cons_tres is not called): said once in the log and in
 * its SystemComment, on every test with DebugFlags=Placement.
 */
static void _narrow_wait(job_record_t *job_ptr, tp_decision *d,
                         const tp_sched_verdict *v, bool dbg)
{
	const char *policy = tp_placement_name(d->policy);

	if (dbg)
		info("topoplace: Placement: %pJ: placement=%s class=%s: waits: "
		     "%s",
		     job_ptr, policy, tp_jobclass_name(d->job_class),
		     v->alloc.reason);
	if (!d->waiting_logged) {
		info("topoplace: %pJ: placement=%s class=%s: waits: %s",
		     job_ptr, policy, tp_jobclass_name(d->job_class),
		     v->alloc.reason);
		/* Slurm clears state_desc after a failed test, and job_begin
		 * replaces this comment. */
		_system_comment_set(job_ptr, v->waiting_comment);
	}
	d->waiting_logged = true;
}

/*
 * Narrow @node_bitmap for the job, in RUN_NOW mode: the core decides
 * (tp_sched_decide), this applies the verdict: candidates narrowed to the
 * allowed hosts, or kept off the held leaves on a fallback; the
 * SystemComment of a waiting job; the log lines.  Returns SLURM_SUCCESS
 * to forward (narrowed or not), SLURM_ERROR when the job waits.
 */
static int _narrow(job_record_t *job_ptr, bitstr_t *node_bitmap,
                   uint32_t min_nodes, uint32_t max_nodes, uint32_t req_nodes)
{
	tp_model *m = tp_cur;
	tp_decision *d = _decision_get(job_ptr);
	tp_occupancy_ctx occupancy = {
	    m, node_bitmap,
	    job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL};
	tp_sched_job_test test = {0};
	tp_sched_verdict v;
	uint32_t *required = NULL;
	uint64_t t0 = _now_us();
	int out = SLURM_SUCCESS;
	bool dbg = tp_model_debug(m, TP_DEBUG_PLACEMENT);

	if (!d) {
		_clear_held(node_bitmap, job_ptr->job_id);
		return SLURM_SUCCESS;
	}
	d->last_seen = time(NULL);
	_job_test_fill(m, job_ptr, d, &occupancy, &test);
	test.min_nodes = min_nodes;
	test.max_nodes = max_nodes;
	test.req_nodes = req_nodes;
	if (m && m->topo)
		required = _required_hosts(m, job_ptr, node_bitmap,
		                           &test.required_count);
	test.required_hosts = required;
	tp_sched_decide(&test, &v);
	xfree(required);

	switch (v.kind) {
	case TP_SCHED_WAIT_PROFILE:
		if (dbg)
			info("topoplace: Placement: %pJ: waits for its profile "
			     "lookup",
			     job_ptr);
		else
			debug2("topoplace: %pJ: waits for its profile lookup",
			       job_ptr);
		out = SLURM_ERROR;
		break;
	case TP_SCHED_PLAIN:
		_narrow_plain(job_ptr, &v, node_bitmap, dbg);
		break;
	case TP_SCHED_FALLBACK:
		if (v.log_reason[0])
			error("topoplace: %pJ: %s: placed by plain cons_tres",
			      job_ptr, v.log_reason);
		tp_decision_verdict(d, NULL, &v);
		_clear_held(node_bitmap, job_ptr->job_id);
		break;
	case TP_SCHED_WAIT:
		_narrow_wait(job_ptr, d, &v, dbg);
		out = SLURM_ERROR;
		break;
	case TP_SCHED_PLACE:
		_narrow_apply(m, job_ptr, d, &v, node_bitmap, t0, dbg);
		break;
	}
	tp_sched_verdict_free(&v);
	return out;
}

/*
 * The lookup thread has an answer: ask slurmctld for a scheduling pass, so
 * the waiting job does not wait for the next periodic one.
 */
static void _lookup_done(void *ctx)
{
	(void)ctx;
	if (tp_queue_job_scheduler)
		tp_queue_job_scheduler();
}

extern int init(void)
{
	inner_context =
	    plugin_context_create("select", "select/cons_tres", (void **)&inner,
	                          tp_select_syms, sizeof(tp_select_syms));
	if (!inner_context) {
		error("%s: cannot load select/cons_tres to wrap", plugin_type);
		return SLURM_ERROR;
	}
	debug("%s loaded (wrapping select/cons_tres)", plugin_type);
	/* Clients load this plugin too: they only forward. */
	if (running_in_slurmctld()) {
		tp_error err;

		tp_active = true;
		tp_decs = tp_decisions_new(TP_DECISIONS_MAX,
		                           TP_DECISION_STALE_S,
		                           _decision_forget_lookup, NULL, &err);
		if (!tp_decs || tp_sched_state_new(&tp_sched, &err) != TP_OK) {
			error("topoplace: init: %s: every job is placed by "
			      "plain cons_tres",
			      err.message);
			tp_decisions_free(tp_decs);
			tp_decs = NULL;
			tp_active = false;
			return SLURM_SUCCESS;
		}
		tp_cur = tp_model_load(tp_slurmctld_reconfigured() ? "reconfigure"
		                                                 : "init");
		_sched_set_topo(tp_cur);
		/*
		 * slurmctld exports its symbols to its plugins; resolved at
		 * run time because clients load this file too.
		 */
		tp_queue_job_scheduler =
		    (void (*)(void))dlsym(RTLD_DEFAULT, "queue_job_scheduler");
		if (tp_lookup_start(tp_sc_lookup_read, _lookup_done, NULL,
		                    TP_LOOKUPS_MAX, &tp_lookups, &err) != TP_OK)
			error("topoplace: init: %s: jobs that need a profile "
			      "are placed by plain cons_tres",
			      err.message);
		tp_acct_start();
	}
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	int rc = SLURM_SUCCESS;

	if (inner_context)
		rc = plugin_context_destroy(inner_context);
	inner_context = NULL;
	memset(&inner, 0, sizeof(inner));
	if (tp_active) {
		/* First: the threads must not outlive what they report to. */
		tp_acct_stop();
		tp_lookup_stop(tp_lookups);
		slurm_mutex_lock(&tp_lock);
		tp_lookups = NULL;
		tp_model_free(tp_cur);
		tp_cur = NULL;
		tp_sched_state_free(tp_sched);
		tp_sched = NULL;
		tp_decisions_free(tp_decs);
		tp_decs = NULL;
		xfree(tp_use);
		tp_use_cap = 0;
		slurm_mutex_unlock(&tp_lock);
	}
	return rc;
}

extern int select_p_state_save(char *dir_name)
{
	return (*inner.state_save)(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*inner.state_restore)(dir_name);
}

/*
 * What a job whose SystemComment is no decision runs as, from its flags:
 * the policy they resolve to now (without reading its profile: the
 * class stays quiet), or without topoplace.conf the --placement it gave
 * (off when none).
 */
static void _recover_from_flags(job_record_t *job_ptr, tp_sched_record *rec)
{
	tp_decision d = {0};
	tp_placement flag;
	tp_error err;

	if (tp_cur) {
		d.profile_read = true;
		_decide_policy(tp_cur, job_ptr, &d);
		rec->policy = d.failed ? TP_PLACEMENT_OFF : d.policy;
		rec->job_class = d.job_class;
	} else if (tp_placement_parse(_requested_placement(job_ptr), &flag,
	                              &err) == TP_OK &&
	           flag != TP_PLACEMENT_AUTO) {
		rec->policy = flag;
	}
}

/*
 * slurmctld start, restart and every reconfigure (read_slurm_conf calls
 * select_g_job_init(job_list) after loading the job state): re-learn the
 * running jobs, so whole-leaf jobs keep their leaves and classes keep
 * apart after slurmctld comes back.
 *
 * The decision is not re-made here: re-reading and munge-verifying each
 * running job's profile is slow I/O under slurmctld's locks, and the
 * profile may have changed since the job started.  It is parsed back from
 * the job's SystemComment, which select_p_job_begin wrote and Slurm saves
 * with the job state (StateSaveLocation), so no state file of our own is
 * needed.  That needs neither topoplace.conf nor the fabric: a whole-leaf
 * job's record names the nodes it holds, so the hold stands even when
 * slurmctld comes back with a topoplace.conf that does not parse.  A job
 * whose SystemComment is not ours (another component or an admin replaced
 * it) gets the policy of its flags and partition (with no configuration:
 * its --placement flag, else off) and class quiet, said in one line.
 */
static void _recover_job(job_record_t *job_ptr, bool started)
{
	tp_sched_record rec = {TP_PLACEMENT_OFF, TP_JOBCLASS_QUIET, false,
	                       NULL, NULL};
	const tp_sched_record *got;
	tp_error err;
	tp_status rc;

	rc =
	    tp_sched_job_recover(tp_sched, job_ptr->job_id,
	                         job_ptr->system_comment, job_ptr->nodes, &err);
	if (rc == TP_OK) {
		got = tp_sched_job_record(tp_sched, job_ptr->job_id);
		if (started)
			debug("topoplace: JobId=%u: kept placement=%s class=%s",
			      job_ptr->job_id, tp_placement_name(got->policy),
			      tp_jobclass_name(got->job_class));
		else
			info("topoplace: JobId=%u: recovered placement=%s "
			     "class=%s%s from its SystemComment%s%s",
			     job_ptr->job_id, tp_placement_name(got->policy),
			     tp_jobclass_name(got->job_class),
			     got->has_profile ? " (profile)" : "",
			     got->held && got->held[0] ? ", holding " : "",
			     got->held && got->held[0] ? got->held : "");
		return;
	}
	if (rc != TP_ERR_PARSE) {
		error("topoplace: JobId=%u: %s", job_ptr->job_id, err.message);
		return;
	}
	/* Known already (an earlier pass): keep what it was placed as. */
	if (tp_sched_job_record(tp_sched, job_ptr->job_id))
		return;
	_recover_from_flags(job_ptr, &rec);
	error("topoplace: JobId=%u: %s: placement=%s class=%s from its "
	      "flags%s",
	      job_ptr->job_id, err.message, tp_placement_name(rec.policy),
	      tp_jobclass_name(rec.job_class),
	      tp_cur ? "" : " (no topoplace.conf loaded)");
	_sched_add(job_ptr, &rec);
}

extern int select_p_job_init(list_t *job_list)
{
	int rc = (*inner.job_init)(job_list);
	static bool started = false; /* first call: slurmctld (re)start */

	if (tp_active && job_list) {
		list_itr_t *it = list_iterator_create(job_list);
		job_record_t *job_ptr;
		size_t unresolved;

		slurm_mutex_lock(&tp_lock);
		while ((job_ptr = list_next(it))) {
			if (IS_JOB_RUNNING(job_ptr) ||
			    IS_JOB_SUSPENDED(job_ptr))
				_recover_job(job_ptr, started);
		}
		unresolved = tp_sched_unresolved_count(tp_sched);
		if (unresolved && !(tp_cur && tp_cur->topo))
			error("topoplace: %zu running whole-leaf jobs recorded "
			      "no held nodes and there is no fabric: their "
			      "leaves are held again once one is loaded",
			      unresolved);
		started = true;
		slurm_mutex_unlock(&tp_lock);
		list_iterator_destroy(it);
	}
	return rc;
}

extern int select_p_node_init(void)
{
	int rc = (*inner.node_init)();

	if (tp_active) {
		slurm_mutex_lock(&tp_lock);
		if (tp_cur) {
			tp_model_map_nodes(tp_cur);
			if (tp_cur->topo &&
			    tp_model_debug(tp_cur, TP_DEBUG_FABRIC))
				tp_model_log_nodes(tp_cur, tp_cur->why);
			if (!tp_model_check_usable(tp_cur, "nodes"))
				_decision_clear();
		}
		_sched_set_nodes();
		_sched_set_topo(tp_cur);
		slurm_mutex_unlock(&tp_lock);
	}
	return rc;
}

/* Start the job's profile lookup if nothing about it is known yet. */
static void _prefetch(job_record_t *job_ptr)
{
	tp_decision *d;

	if (!tp_cur || !tp_cur->topo)
		return;
	d = _decision_get(job_ptr);
	if (!d)
		return;
	d->last_seen = time(NULL);
	if (!d->failed && !d->profile_read && !d->lookup_sent)
		(void)_decide_policy(tp_cur, job_ptr, d);
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
                             uint32_t min_nodes, uint32_t max_nodes,
                             uint32_t req_nodes, uint16_t mode,
                             list_t *preemptee_candidates,
                             list_t **preemptee_job_list,
                             TP_JOB_TEST_EXCLUSION_PARAMS)
{
	debug2("%s: %pJ placement=%s mode=%u: forwarding to cons_tres",
	       plugin_type, job_ptr, _requested_placement(job_ptr), mode);
	/*
	 * Only RUN_NOW is narrowed.  TEST_ONLY (can the job ever run?) and
	 * WILL_RUN (backfill's start-time estimate) are forwarded unchanged:
	 * narrowing them by today's occupancy could reject a job that will
	 * run once a leaf frees up, and an estimate made without the
	 * narrowing is at worst early; the real start always goes through
	 * RUN_NOW, where the policy is enforced.
	 */
	if (tp_active && job_ptr &&
	    (mode & SELECT_MODE_BASE) != SELECT_MODE_RUN_NOW) {
		/*
		 * Submission and backfill test the job before it may run: a
		 * good moment to start its profile lookup, so the answer is
		 * in when it is first tested to run now.
		 */
		slurm_mutex_lock(&tp_lock);
		_prefetch(job_ptr);
		slurm_mutex_unlock(&tp_lock);
	}
	if (tp_active && job_ptr && node_bitmap &&
	    (mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW) {
		uint64_t t0 = _now_us(), t1, t2;
		bool timing;
		int rc;

		slurm_mutex_lock(&tp_lock);
		rc = _narrow(job_ptr, node_bitmap, min_nodes, max_nodes,
		             req_nodes);
		timing = tp_cur &&
		         (tp_config_site_settings(tp_cur->config)->debug_flags &
		          TP_DEBUG_BUDGET);
		slurm_mutex_unlock(&tp_lock);
		if (rc != SLURM_SUCCESS)
			return rc;
		if (!timing)
			goto forward;
		/* DebugFlags=Budget: what the wrapper adds to cons_tres. */
		t1 = _now_us();
		rc = (*inner.job_test)(
		    job_ptr, node_bitmap, min_nodes, max_nodes, req_nodes, mode,
		    preemptee_candidates, preemptee_job_list,
		    TP_JOB_TEST_EXCLUSION_ARGS);
		t2 = _now_us();
		info("topoplace: Budget: %pJ: job_test timing: topoplace "
		     "%" PRIu64 " us, cons_tres %" PRIu64 " us",
		     job_ptr, t1 - t0, t2 - t1);
		return rc;
	}
forward:
	return (*inner.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes,
	                         req_nodes, mode, preemptee_candidates,
	                         preemptee_job_list,
	                         TP_JOB_TEST_EXCLUSION_ARGS);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*inner.job_begin)(job_ptr);
	/* job_ptr->nodes is set only after job_begin: name the bitmap. */
	char *nodes = job_ptr->node_bitmap
	                  ? bitmap2node_name(job_ptr->node_bitmap)
	                  : NULL;
	tp_sched_record rec = {TP_PLACEMENT_OFF, TP_JOBCLASS_QUIET, false,
	                       NULL, NULL};
	const tp_sched_record *got = NULL;

	if (tp_active && rc == SLURM_SUCCESS) {
		tp_decision_start start;
		tp_decision *d;
		char *text;

		slurm_mutex_lock(&tp_lock);
		d = _decision_find(job_ptr->job_id);
		/*
		 * An array task was tested as its array's pending record
		 * (job_id = array_job_id) and starts under its own id.
		 */
		if (!d && job_ptr->array_task_id != NO_VAL)
			d = _decision_find(job_ptr->array_job_id);
		start = tp_decision_started(d, &rec);
		if (start == TP_STARTED_ISOLATION_GIVEN_UP)
			info("topoplace: %pJ: placement=%s: %s", job_ptr,
			     tp_placement_name(d->policy), d->isolation_note);
		else if (start == TP_STARTED_LEAF_GAVE_WAY)
			info("topoplace: %pJ: placement=leaf: waited %u s for "
			     "whole leaves, bound %u s: starts as shared with "
			     "compatible jobs",
			     job_ptr, d->leaf_waited_s, d->leaf_wait_bound_s);
		_sched_add(job_ptr, &rec);
		got = tp_sched_job_record(tp_sched, job_ptr->job_id);
		/*
		 * The short form for users (scontrol show job: SystemComment),
		 * set here under slurmctld's job write lock; saved with the
		 * job state, it is also what select_p_job_init recovers the
		 * decision and the held nodes from after a restart.  Never
		 * over another component's comment (burst buffers use it
		 * too).
		 */
		text = tp_sched_record_format(got ? got : &rec,
		                              d ? d->note : NULL);
		if (text)
			_system_comment_set(job_ptr, text);
		else
			error("topoplace: %pJ: SystemComment: out of memory",
			      job_ptr);
		free(text);
		_decision_drop(job_ptr->job_id);
		slurm_mutex_unlock(&tp_lock);
	}
	/* One line per started job: what was asked and where it went. */
	info("topoplace: %pJ placement=%s nodes=%s policy=%s class=%s%s%s",
	     job_ptr, _requested_placement(job_ptr), nodes ? nodes : "(none)",
	     tp_placement_name(rec.policy), tp_jobclass_name(rec.job_class),
	     got && got->held ? " held=" : "",
	     got && got->held ? (got->held[0] ? got->held : "(none)") : "");
	xfree(nodes);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*inner.job_ready)(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
                               job_record_t *to_job_ptr)
{
	return (*inner.job_expand)(from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	return (*inner.job_resized)(job_ptr, node_ptr);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	if (tp_active) {
		/* slurmdbd never gets SystemComment from slurmctld itself. */
		tp_acct_record(job_ptr->job_id, job_ptr->system_comment);
		slurm_mutex_lock(&tp_lock);
		tp_sched_job_drop(tp_sched, job_ptr->job_id);
		_decision_drop(job_ptr->job_id);
		slurm_mutex_unlock(&tp_lock);
	}
	return (*inner.job_fini)(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return (*inner.job_suspend)(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return (*inner.job_resume)(job_ptr, indf_susp);
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
                                          select_jobinfo_t *jobinfo,
                                          uint32_t node_count,
                                          bitstr_t **avail_nodes)
{
	return (*inner.step_pick_nodes)(job_ptr, jobinfo, node_count,
	                                avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*inner.step_start)(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*inner.step_finish)(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
                                         buf_t *buffer,
                                         uint16_t protocol_version)
{
	return (*inner.nodeinfo_pack)(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
                                           buf_t *buffer,
                                           uint16_t protocol_version)
{
	return (*inner.nodeinfo_unpack)(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*inner.nodeinfo_alloc)();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*inner.nodeinfo_free)(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*inner.nodeinfo_set_all)();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*inner.nodeinfo_set)(job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
                                        enum select_nodedata_type dinfo,
                                        enum node_states state, void *data)
{
	return (*inner.nodeinfo_get)(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*inner.jobinfo_alloc)();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*inner.jobinfo_free)(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
                                       enum select_jobdata_type data_type,
                                       void *data)
{
	return (*inner.jobinfo_set)(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
                                       enum select_jobdata_type data_type,
                                       void *data)
{
	return (*inner.jobinfo_get)(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	return (*inner.jobinfo_copy)(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
                                        buf_t *buffer,
                                        uint16_t protocol_version)
{
	return (*inner.jobinfo_pack)(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
                                          buf_t *buffer,
                                          uint16_t protocol_version)
{
	return (*inner.jobinfo_unpack)(jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
                                         job_record_t *job_ptr, void *data)
{
	return (*inner.get_info_from_plugin)(dinfo, job_ptr, data);
}

/*
 * scontrol reconfigure: re-read topoplace.conf and the fabric.  A bad file
 * keeps the previous good model (logged once, by _model_load).  A model
 * whose fabric failed to load replaces the old one only if the old one had
 * no fabric either.
 *
 * The new model is built with no lock of ours held (job tests racing it
 * would use the old one; only the swap takes tp_lock), but slurmctld calls
 * this under its own configuration, job, node and partition write locks
 * (read_slurm_conf), so the reading stalls scheduling while it lasts: 10-20
 * ms of CPU for a 5,184-host topology.conf, and only when a file changed
 * (_model_unchanged).  It is not moved to a thread of its own: mapping
 * Slurm's nodes onto the fabric (_model_map_nodes) reads the node table,
 * which needs those very locks, and a model swapped in after `scontrol
 * reconfigure` returned would let jobs be placed under the configuration
 * the admin just replaced, with no line saying when the new one applies.
 */
extern int select_p_reconfigure(void)
{
	if (tp_active) {
		char path[1024];
		tp_model *m;
		bool unchanged;

		slurm_mutex_lock(&tp_lock);
		unchanged = tp_model_unchanged(tp_cur);
		slurm_mutex_unlock(&tp_lock);
		if (unchanged) {
			debug("topoplace: reconfigure: topoplace.conf and the "
			      "fabric are unchanged: kept");
			return (*inner.reconfigure)();
		}
		if (tp_model_conf_error_reported(path, sizeof(path))) {
			debug("topoplace: reconfigure: %s unchanged since its "
			      "error was reported: not re-read",
			      path);
			return (*inner.reconfigure)();
		}
		m = tp_model_load("reconfigure");

		slurm_mutex_lock(&tp_lock);
		if (!m) {
			error("topoplace: reconfigure: keeping the previous "
			      "configuration%s",
			      tp_cur && tp_cur->topo ? " and fabric" : "");
		} else if (!m->topo && tp_cur && tp_cur->topo) {
			error("topoplace: reconfigure: keeping the previous "
			      "configuration and fabric");
			tp_model_free(m);
		} else {
			/* Holds are kept by name: a new fabric keeps them. */
			_sched_set_topo(m);
			tp_model_free(tp_cur);
			tp_cur = m;
			_decision_clear(); /* policies may have changed */
		}
		slurm_mutex_unlock(&tp_lock);
	}
	return (*inner.reconfigure)();
}

#if TP_SELECT_HAS_22_05_ONLY_CALLS
/* Entry points of 22.05 that 24.11 no longer has (tp_select_ops.h). */

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*inner.job_signal)(job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
                                            char *buf, size_t size, int mode)
{
	return (*inner.jobinfo_sprint)(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
                                             int mode)
{
	return (*inner.jobinfo_xstrdup)(jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	return (*inner.update_node_config)(index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
                                    uint32_t node_cnt, bitstr_t *avail_bitmap,
                                    bitstr_t **core_bitmap)
{
	return (*inner.resv_test)(resv_desc_ptr, node_cnt, avail_bitmap,
	                          core_bitmap);
}
#endif
