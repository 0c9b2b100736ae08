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
 * that reservations by CoreCnt are refused (state_control tests the id).
 *
 * This file is loaded by clients (srun, squeue, sinfo...) too, so it must not
 * reference slurmctld-only symbols; it only touches job_record_t fields
 * passed in by the caller.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/select.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/common/run_in_daemon.h"
#include "src/common/uid.h"

#include "alloc.h"
#include "spank_env.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

const char plugin_name[] = "topoplace fabric-aware placement over cons_tres";
const char plugin_type[] = "select/topoplace_cons_tres";
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Must list the symbols in the order of slurm_select_ops_t (select.h). */
static const char *select_syms[] = {
    "plugin_id",
    "select_p_state_save",
    "select_p_state_restore",
    "select_p_job_init",
    "select_p_node_init",
    "select_p_job_test",
    "select_p_job_begin",
    "select_p_job_ready",
    "select_p_job_expand",
    "select_p_job_resized",
    "select_p_job_signal",
    "select_p_job_fini",
    "select_p_job_suspend",
    "select_p_job_resume",
    "select_p_step_pick_nodes",
    "select_p_step_start",
    "select_p_step_finish",
    "select_p_select_nodeinfo_pack",
    "select_p_select_nodeinfo_unpack",
    "select_p_select_nodeinfo_alloc",
    "select_p_select_nodeinfo_free",
    "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set",
    "select_p_select_nodeinfo_get",
    "select_p_select_jobinfo_alloc",
    "select_p_select_jobinfo_free",
    "select_p_select_jobinfo_set",
    "select_p_select_jobinfo_get",
    "select_p_select_jobinfo_copy",
    "select_p_select_jobinfo_pack",
    "select_p_select_jobinfo_unpack",
    "select_p_select_jobinfo_sprint",
    "select_p_select_jobinfo_xstrdup",
    "select_p_get_info_from_plugin",
    "select_p_update_node_config",
    "select_p_reconfigure",
    "select_p_resv_test",
};

/* The wrapped plugin; set in init(), cleared in fini(). */
static slurm_select_ops_t inner;
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
 * The loaded model: topoplace.conf, the fabric as a tp_topo and the map
 * between Slurm's node index and the topo's host index.  Loaded at init
 * and on reconfigure (never in the scheduling path); a failed reload keeps
 * the previous one.
 */
typedef struct tp_model {
	tp_config *config;
	tp_topo *topo;       /* NULL: no fabric, plain cons_tres */
	uint32_t *node_host; /* Slurm node index -> topo host / NONE */
	uint32_t *host_node; /* topo host -> Slurm node index / NONE */
	int node_count;      /* entries of node_host */
	char munge_socket[256];
} tp_model;

#define TP_NONE UINT32_MAX

/* A running job: what it was placed as and where (topo host indices). */
typedef struct tp_running {
	uint32_t job_id;
	tp_placement policy;
	tp_jobclass job_class;
	uint32_t *hosts;
	uint32_t host_count;
} tp_running;

/* What job_test decided for a pending job: kept until begin/fini. */
typedef struct tp_decision {
	uint32_t job_id;
	bool profile_read; /* profile looked up (found or not) */
	bool has_profile;
	bool failed;         /* error logged once: plain cons_tres */
	bool waiting_logged; /* "cannot be met now" logged once */
	bool decided_logged; /* the narrowing logged once */
	tp_jobclass job_class;
	tp_placement policy;
	char class_reason[TP_JOBCLASS_REASON_MAX];
} tp_decision;

/* Decisions of pending jobs cached at most (jobs that never start). */
#define TP_DECISIONS_MAX 8192

static pthread_mutex_t tp_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tp_active = false; /* running in slurmctld */
static tp_model *tp_cur = NULL;
static tp_running *tp_run = NULL;
static size_t tp_run_count = 0, tp_run_cap = 0;
/*
 * Decisions by job id: open addressing with linear probing (job id 0 marks
 * an empty slot; Slurm never uses it), at most half full.  job_test looks
 * a job up on every scheduling pass, so the lookup must not grow with the
 * number of pending jobs.
 */
static tp_decision *tp_dec = NULL;
static size_t tp_dec_count = 0, tp_dec_cap = 0; /* cap: power of two */
static tp_host_use *tp_use = NULL;              /* scratch, one per topo host */
static uint32_t tp_use_cap = 0;

static void _model_free(tp_model *m)
{
	if (!m)
		return;
	tp_config_free(m->config);
	tp_topo_free(m->topo);
	xfree(m->node_host);
	xfree(m->host_node);
	xfree(m);
}

/* Map Slurm's nodes onto the topo by NodeName. */
static void _model_map_nodes(tp_model *m)
{
	uint32_t hosts;

	xfree(m->node_host);
	xfree(m->host_node);
	m->node_count = 0;
	if (!m->topo)
		return;
	hosts = tp_topo_host_count(m->topo);
	m->node_count = node_record_count;
	m->node_host = xcalloc(node_record_count + 1, sizeof(uint32_t));
	m->host_node = xcalloc(hosts + 1, sizeof(uint32_t));
	for (uint32_t h = 0; h < hosts; h++)
		m->host_node[h] = TP_NONE;
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node = node_record_table_ptr[i];
		uint32_t h =
		    node ? tp_topo_find_host(m->topo, node->name) : TP_NONE;

		m->node_host[i] = h;
		if (h != TP_NONE && h < hosts)
			m->host_node[h] = i;
		else
			m->node_host[i] = TP_NONE;
	}
}

/*
 * Read topoplace.conf and the fabric.  Returns NULL (error logged, one
 * line) when the config is bad; a model without topo when only the fabric
 * could not be loaded (jobs then go to plain cons_tres).
 */
static tp_model *_model_load(const char *why)
{
	char path[1024];
	tp_model *m = xmalloc(sizeof(*m));
	tp_error err;
	int missing = 0;

	tp_sc_conf_path(slurm_conf.slurm_conf, path, sizeof(path));
	if (tp_sc_load_config(path, &m->config, &missing, &err) != TP_OK) {
		error("topoplace: %s: %s", why, err.message);
		xfree(m);
		return NULL;
	}
	if (missing)
		info("topoplace: %s: %s not found: using defaults", why, path);
	tp_sc_munge_socket(slurm_conf.authinfo, m->munge_socket,
	                   sizeof(m->munge_socket));
	if (tp_sc_load_topo(m->config, &m->topo, &err) != TP_OK) {
		error("topoplace: %s: fabric: %s: jobs are placed by plain "
		      "cons_tres",
		      why, err.message);
		m->topo = NULL;
		return m;
	}
	_model_map_nodes(m);
	info("topoplace: %s: %s: fabric of %u hosts, %u leaves, %u pods", why,
	     path, tp_topo_host_count(m->topo), tp_topo_leaf_count(m->topo),
	     tp_topo_pod_count(m->topo));
	return m;
}

static size_t _decision_slot(uint32_t job_id)
{
	return (job_id * 2654435761u) & (tp_dec_cap - 1); /* Knuth */
}

static tp_decision *_decision_find(uint32_t job_id)
{
	if (!tp_dec_cap)
		return NULL;
	for (size_t i = _decision_slot(job_id); tp_dec[i].job_id;
	     i = (i + 1) & (tp_dec_cap - 1))
		if (tp_dec[i].job_id == job_id)
			return &tp_dec[i];
	return NULL;
}

/* Forget every cached decision (they are re-made on the next job test). */
static void _decision_clear(void)
{
	if (tp_dec_cap)
		memset(tp_dec, 0, tp_dec_cap * sizeof(*tp_dec));
	tp_dec_count = 0;
}

static tp_decision *_decision_insert(uint32_t job_id)
{
	size_t i = _decision_slot(job_id);

	while (tp_dec[i].job_id)
		i = (i + 1) & (tp_dec_cap - 1);
	memset(&tp_dec[i], 0, sizeof(tp_dec[i]));
	tp_dec[i].job_id = job_id;
	tp_dec_count++;
	return &tp_dec[i];
}

static tp_decision *_decision_get(uint32_t job_id)
{
	tp_decision *d = _decision_find(job_id);

	if (d)
		return d;
	if (tp_dec_count >= TP_DECISIONS_MAX)
		_decision_clear(); /* jobs that never start: re-read as needed
		                    */
	if (2 * (tp_dec_count + 1) > tp_dec_cap) {
		tp_decision *old = tp_dec;
		size_t old_cap = tp_dec_cap;

		tp_dec_cap = tp_dec_cap ? tp_dec_cap * 2 : 128;
		tp_dec = xcalloc(tp_dec_cap, sizeof(*tp_dec));
		tp_dec_count = 0;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].job_id)
				*_decision_insert(old[k].job_id) = old[k];
		xfree(old);
	}
	return _decision_insert(job_id);
}

/* Remove a decision, shifting back the probe chain behind it. */
static void _decision_drop(uint32_t job_id)
{
	tp_decision *d = _decision_find(job_id);
	size_t mask = tp_dec_cap - 1, hole, j;

	if (!d)
		return;
	hole = (size_t)(d - tp_dec);
	for (j = (hole + 1) & mask; tp_dec[j].job_id; j = (j + 1) & mask) {
		size_t home = _decision_slot(tp_dec[j].job_id);

		/* Move j into the hole unless its home lies in (hole, j]. */
		if ((hole < j) ? (home <= hole || home > j)
		               : (home <= hole && home > j)) {
			tp_dec[hole] = tp_dec[j];
			hole = j;
		}
	}
	memset(&tp_dec[hole], 0, sizeof(tp_dec[hole]));
	tp_dec_count--;
}

static void _running_drop(uint32_t job_id)
{
	for (size_t i = 0; i < tp_run_count; i++) {
		if (tp_run[i].job_id != job_id)
			continue;
		xfree(tp_run[i].hosts);
		tp_run[i] = tp_run[--tp_run_count];
		return;
	}
}

static void _running_add(tp_model *m, job_record_t *job_ptr,
                         tp_placement policy, tp_jobclass job_class)
{
	tp_running *r;

	_running_drop(job_ptr->job_id);
	if (!m || !m->topo || (!job_ptr->node_bitmap && !job_ptr->nodes))
		return;
	if (tp_run_count == tp_run_cap) {
		tp_run_cap = tp_run_cap ? tp_run_cap * 2 : 64;
		xrecalloc(tp_run, tp_run_cap, sizeof(*tp_run));
	}
	r = &tp_run[tp_run_count++];
	memset(r, 0, sizeof(*r));
	r->job_id = job_ptr->job_id;
	r->policy = policy;
	r->job_class = job_class;
	if (!job_ptr->node_bitmap) {
		/*
		 * slurmctld restart: select_g_job_init runs before
		 * _sync_jobs_to_conf builds the recovered jobs' node bitmaps
		 * (read_config.c), so go by the saved node names.
		 */
		hostlist_t hl = hostlist_create(job_ptr->nodes);
		char *name;

		r->hosts = xcalloc(hostlist_count(hl) + 1, sizeof(uint32_t));
		while ((name = hostlist_shift(hl))) {
			uint32_t h = tp_topo_find_host(m->topo, name);

			if (h != TP_NONE && h < tp_topo_host_count(m->topo))
				r->hosts[r->host_count++] = h;
			free(name);
		}
		hostlist_destroy(hl);
		return;
	}
	r->hosts =
	    xcalloc(bit_set_count(job_ptr->node_bitmap) + 1, sizeof(uint32_t));
	for (int i = 0; i < m->node_count; i++) {
		if (i < bit_size(job_ptr->node_bitmap) &&
		    bit_test(job_ptr->node_bitmap, i) &&
		    m->node_host[i] != TP_NONE)
			r->hosts[r->host_count++] = m->node_host[i];
	}
}

/*
 * The occupancy the core sees: running jobs' hosts BUSY, the free hosts on
 * running whole-leaf jobs' leaves RESERVED for them, hosts Slurm does not
 * offer (@avail) or that are no Slurm node DOWN.  O(hosts + running jobs'
 * hosts).
 */
static tp_host_use *_occupancy(tp_model *m, bitstr_t *avail)
{
	uint32_t hosts = tp_topo_host_count(m->topo);

	if (tp_use_cap < hosts) {
		xrecalloc(tp_use, hosts, sizeof(*tp_use));
		tp_use_cap = hosts;
	}
	memset(tp_use, 0, hosts * sizeof(*tp_use));
	for (size_t j = 0; j < tp_run_count; j++) {
		for (uint32_t k = 0; k < tp_run[j].host_count; k++) {
			tp_host_use *u = &tp_use[tp_run[j].hosts[k]];

			u->state = TP_HOST_BUSY;
			u->job_id = tp_run[j].job_id;
			u->job_class = tp_run[j].job_class;
		}
	}
	for (size_t j = 0; j < tp_run_count; j++) {
		if (tp_run[j].policy != TP_PLACEMENT_LEAF)
			continue;
		for (uint32_t k = 0; k < tp_run[j].host_count; k++) {
			uint32_t leaf =
			    tp_topo_host_leaf(m->topo, tp_run[j].hosts[k]);
			uint32_t n = 0;
			const uint32_t *on =
			    tp_topo_leaf_hosts(m->topo, leaf, &n);

			for (uint32_t x = 0; x < n; x++) {
				tp_host_use *u = &tp_use[on[x]];

				if (u->state != TP_HOST_FREE)
					continue;
				u->state = TP_HOST_RESERVED;
				u->job_id = tp_run[j].job_id;
				u->job_class = tp_run[j].job_class;
			}
		}
	}
	for (uint32_t h = 0; h < hosts; h++) {
		uint32_t node = m->host_node[h];

		if (tp_use[h].state != TP_HOST_FREE)
			continue;
		if (node == TP_NONE || !bit_test(avail, node))
			tp_use[h].state = TP_HOST_DOWN;
	}
	return tp_use;
}

/*
 * Slurm nodes a job under `off` may not use: every host of a running
 * whole-leaf job's leaves (its own and its held ones: cons_tres would
 * otherwise share the job's nodes core by core).  O(those leaves' hosts).
 */
static void _clear_reserved(tp_model *m, bitstr_t *node_bitmap, uint32_t job_id)
{
	for (size_t j = 0; j < tp_run_count; j++) {
		if (tp_run[j].policy != TP_PLACEMENT_LEAF ||
		    tp_run[j].job_id == job_id)
			continue;
		for (uint32_t k = 0; k < tp_run[j].host_count; k++) {
			uint32_t leaf =
			    tp_topo_host_leaf(m->topo, tp_run[j].hosts[k]);
			uint32_t n = 0;
			const uint32_t *on =
			    tp_topo_leaf_hosts(m->topo, leaf, &n);

			for (uint32_t x = 0; x < n; x++) {
				uint32_t node = m->host_node[on[x]];

				if (node != TP_NONE &&
				    node < bit_size(node_bitmap))
					bit_clear(node_bitmap, node);
			}
		}
	}
}

/*
 * The job's flags, its profile's class (read once per job: the store read
 * and munge verification are the slow part) and the resolved policy.
 */
static void _decide_policy(tp_model *m, job_record_t *job_ptr, tp_decision *d)
{
	const tp_config_settings *settings;
	tp_opt_values opts;
	tp_error err;
	const char *value;
	const char *part = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;

	tp_opt_values_init(&opts);
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);

		value = tp_spank_job_option(job_ptr->spank_job_env,
		                            job_ptr->spank_job_env_size,
		                            info->name);
		if (value && tp_opt_values_set(&opts, (tp_opt_id)i, value,
		                               &err) != TP_OK) {
			/* Set by hand past the SPANK check. */
			error("topoplace: %pJ: %s: placed by plain cons_tres",
			      job_ptr, err.message);
			d->failed = true;
			return;
		}
	}
	settings = tp_config_for_partition(m->config, part);
	if (!d->profile_read && opts.placement != TP_PLACEMENT_OFF) {
		const char *name =
		    opts.comm_profile[0] ? opts.comm_profile : job_ptr->name;
		char *user = uid_to_string_cached(job_ptr->user_id);
		tp_profile *profile = NULL;
		tp_status rc = TP_ERR_NOTFOUND;

		d->profile_read = true;
		if (name && tp_store_valid_name(name) && user &&
		    tp_store_valid_name(user))
			rc = tp_sc_read_profile(m->config, m->munge_socket,
			                        user, name, &profile, &err);
		if (rc == TP_OK) {
			tp_job_summary summary;
			tp_jobclass_result cls;

			tp_sc_profile_summary(profile, &summary);
			tp_profile_free(profile);
			if (tp_jobclass_classify(&summary,
			                         &settings->thresholds, &cls,
			                         &err) != TP_OK) {
				error("topoplace: %pJ: profile %s/%s: %s: "
				      "placed by plain cons_tres",
				      job_ptr, user, name, err.message);
				d->failed = true;
				return;
			}
			d->has_profile = true;
			d->job_class = cls.job_class;
			snprintf(d->class_reason, sizeof(d->class_reason), "%s",
			         cls.reason);
		} else if (rc != TP_ERR_NOTFOUND) {
			error("topoplace: %pJ: profile: %s: placed by plain "
			      "cons_tres",
			      job_ptr, err.message);
			d->failed = true;
			return;
		} else if (opts.comm_profile[0]) {
			/* Named explicitly: the user expects it to exist. */
			error("topoplace: %pJ: --comm-profile=%s: %s", job_ptr,
			      opts.comm_profile, err.message);
		}
	}
	d->policy = tp_config_resolve_placement(settings, opts.placement,
	                                        d->has_profile);
}

/* Microseconds, for the decision's own log line. */
static uint64_t _now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * Narrow @node_bitmap for the job, in RUN_NOW mode.  Returns SLURM_SUCCESS
 * to forward (narrowed or not), SLURM_ERROR when the policy cannot be met
 * now (the job waits).
 */
static int _narrow(job_record_t *job_ptr, bitstr_t *node_bitmap,
                   uint32_t min_nodes, uint32_t max_nodes, uint32_t req_nodes)
{
	tp_model *m = tp_cur;
	tp_decision *d;
	tp_alloc_request req = {0};
	tp_alloc_result res = {0};
	const tp_config_settings *settings;
	tp_error err;
	tp_status rc;
	uint64_t t0 = _now_us();
	int out = SLURM_SUCCESS;

	if (!m || !m->topo)
		return SLURM_SUCCESS;
	d = _decision_get(job_ptr->job_id);
	if (d->failed)
		return SLURM_SUCCESS;
	_decide_policy(m, job_ptr, d);
	if (d->failed)
		return SLURM_SUCCESS;
	(void)_occupancy(m, node_bitmap);
	if (d->policy == TP_PLACEMENT_OFF) {
		_clear_reserved(m, node_bitmap, job_ptr->job_id);
		return SLURM_SUCCESS;
	}
	settings = tp_config_for_partition(
	    m->config, job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL);
	req.nodes = req_nodes > min_nodes ? req_nodes : min_nodes;
	if (max_nodes && req.nodes > max_nodes)
		req.nodes = max_nodes;
	if (!req.nodes)
		req.nodes = 1;
	req.policy = d->policy;
	req.job_class = d->job_class;
	req.job_id = job_ptr->job_id;
	req.budget_us = settings->decision_budget_us;
	rc = tp_alloc_allowed(m->topo, tp_use, &req, &res, &err);
	if (rc == TP_ERR_BUDGET) {
		error("topoplace: %pJ: %s: placed by plain cons_tres", job_ptr,
		      err.message);
		d->failed = true;
		_clear_reserved(m, node_bitmap, job_ptr->job_id);
	} else if (rc != TP_OK) {
		error("topoplace: %pJ: placement %s: %s: placed by plain "
		      "cons_tres",
		      job_ptr, tp_placement_name(d->policy), err.message);
		d->failed = true;
		_clear_reserved(m, node_bitmap, job_ptr->job_id);
	} else if (!res.met) {
		if (!d->waiting_logged)
			info("topoplace: %pJ: placement=%s class=%s: waits: %s",
			     job_ptr, tp_placement_name(d->policy),
			     tp_jobclass_name(d->job_class), res.reason);
		d->waiting_logged = true;
		out = SLURM_ERROR;
	} else {
		bitstr_t *allowed = bit_alloc(bit_size(node_bitmap));
		char leaves[256] = "";
		size_t used = 0;
		/* A job cons_tres cannot start yet is tested every pass. */
		bool first = !d->decided_logged;
		char msg[1024];

		for (uint32_t k = 0; k < res.host_count; k++) {
			uint32_t node = m->host_node[res.hosts[k]];

			if (node != TP_NONE)
				bit_set(allowed, node);
		}
		bit_and(node_bitmap, allowed);
		FREE_NULL_BITMAP(allowed);
		for (uint32_t k = 0; k < res.leaf_count && used < 200; k++)
			used +=
			    snprintf(leaves + used, sizeof(leaves) - used,
			             "%s%s", k ? "," : "",
			             tp_topo_leaf_name(m->topo, res.leaves[k]));
		/* A reason too long for one log line is cut. */
		if (snprintf(
		        msg, sizeof(msg),
		        "topoplace: JobId=%u: placement=%s class=%s allowed=%u "
		        "hosts on leaves %s (%" PRIu64 " us): %s%s%s",
		        job_ptr->job_id, tp_placement_name(d->policy),
		        tp_jobclass_name(d->job_class), res.host_count, leaves,
		        _now_us() - t0, res.reason,
		        d->has_profile ? "; class: " : "",
		        d->has_profile ? d->class_reason : "") < 0)
			msg[0] = '\0';
		if (first)
			info("%s", msg);
		else
			debug("%s", msg);
		d->decided_logged = true;
	}
	tp_alloc_result_free(&res);
	return out;
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

extern int init(void)
{
	inner_context =
	    plugin_context_create("select", "select/cons_tres", (void **)&inner,
	                          select_syms, sizeof(select_syms));
	if (!inner_context) {
		error("%s: cannot load select/cons_tres to wrap", plugin_type);
		return SLURM_ERROR;
	}
	debug("%s loaded (wrapping select/cons_tres)", plugin_type);
	/* Clients load this plugin too: they only forward. */
	if (running_in_slurmctld()) {
		tp_active = true;
		tp_cur = _model_load("init");
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
		slurm_mutex_lock(&tp_lock);
		_model_free(tp_cur);
		tp_cur = NULL;
		while (tp_run_count)
			_running_drop(tp_run[0].job_id);
		xfree(tp_run);
		tp_run_cap = 0;
		xfree(tp_dec);
		tp_dec_count = tp_dec_cap = 0;
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
 * needed.  A job whose SystemComment is not ours (another component or an
 * admin replaced it) gets the policy of its flags and partition and class
 * quiet, said in one line.
 */
extern int select_p_job_init(List job_list)
{
	int rc = (*inner.job_init)(job_list);
	static bool started = false; /* first call: slurmctld (re)start */

	if (tp_active && job_list) {
		ListIterator it = list_iterator_create(job_list);
		job_record_t *job_ptr;

		slurm_mutex_lock(&tp_lock);
		while ((job_ptr = list_next(it))) {
			tp_decision d = {0};
			tp_placement policy;
			tp_jobclass job_class;
			int has_profile;
			tp_error err;

			if (!IS_JOB_RUNNING(job_ptr) &&
			    !IS_JOB_SUSPENDED(job_ptr))
				continue;
			if (!tp_cur)
				break;
			if (tp_sc_decision_parse(job_ptr->system_comment,
			                         &policy, &job_class,
			                         &has_profile, &err) == TP_OK) {
				if (started)
					debug("topoplace: JobId=%u: kept "
					      "placement=%s class=%s",
					      job_ptr->job_id,
					      tp_placement_name(policy),
					      tp_jobclass_name(job_class));
				else
					info("topoplace: JobId=%u: recovered "
					     "placement=%s class=%s%s from its "
					     "SystemComment",
					     job_ptr->job_id,
					     tp_placement_name(policy),
					     tp_jobclass_name(job_class),
					     has_profile ? " (profile)" : "");
				_running_add(tp_cur, job_ptr, policy,
				             job_class);
				continue;
			}
			d.profile_read = true;
			_decide_policy(tp_cur, job_ptr, &d);
			policy = d.failed ? TP_PLACEMENT_OFF : d.policy;
			error("topoplace: JobId=%u: %s: placement=%s class=%s "
			      "from its flags",
			      job_ptr->job_id, err.message,
			      tp_placement_name(policy),
			      tp_jobclass_name(d.job_class));
			_running_add(tp_cur, job_ptr, policy, d.job_class);
		}
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
		if (tp_cur)
			_model_map_nodes(tp_cur);
		slurm_mutex_unlock(&tp_lock);
	}
	return rc;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
                             uint32_t min_nodes, uint32_t max_nodes,
                             uint32_t req_nodes, uint16_t mode,
                             List preemptee_candidates,
                             List *preemptee_job_list,
                             bitstr_t *exc_core_bitmap)
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
		    preemptee_candidates, preemptee_job_list, exc_core_bitmap);
		t2 = _now_us();
		info("topoplace: %pJ: job_test timing: topoplace %" PRIu64
		     " us, cons_tres %" PRIu64 " us",
		     job_ptr, t1 - t0, t2 - t1);
		return rc;
	}
forward:
	return (*inner.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes,
	                         req_nodes, mode, preemptee_candidates,
	                         preemptee_job_list, exc_core_bitmap);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*inner.job_begin)(job_ptr);
	/* job_ptr->nodes is set only after job_begin: name the bitmap. */
	char *nodes = job_ptr->node_bitmap
	                  ? bitmap2node_name(job_ptr->node_bitmap)
	                  : NULL;

	tp_placement policy = TP_PLACEMENT_OFF;
	tp_jobclass job_class = TP_JOBCLASS_QUIET;
	bool has_profile = false;

	if (tp_active && rc == SLURM_SUCCESS) {
		tp_decision *d;

		slurm_mutex_lock(&tp_lock);
		d = _decision_find(job_ptr->job_id);
		/*
		 * An array task was tested as its array's pending record
		 * (job_id = array_job_id) and starts under its own id.
		 */
		if (!d && job_ptr->array_task_id != NO_VAL)
			d = _decision_find(job_ptr->array_job_id);
		if (d && !d->failed) {
			policy = d->policy;
			job_class = d->job_class;
			has_profile = d->has_profile;
		}
		_running_add(tp_cur, job_ptr, policy, job_class);
		_decision_drop(job_ptr->job_id);
		slurm_mutex_unlock(&tp_lock);
		/*
		 * The short form for users (scontrol show job: SystemComment),
		 * set here under slurmctld's job write lock; saved with the
		 * job state, it is also what select_p_job_init recovers the
		 * decision from after a restart.  Never over another
		 * component's comment (burst buffers use it too).
		 */
		if (!job_ptr->system_comment ||
		    !strncmp(job_ptr->system_comment, TP_SC_DECISION_PREFIX,
		             strlen(TP_SC_DECISION_PREFIX))) {
			char text[128];

			tp_sc_decision_format(policy, job_class, has_profile,
			                      text, sizeof(text));
			xfree(job_ptr->system_comment);
			job_ptr->system_comment = xstrdup(text);
		}
	}
	/* One line per started job: what was asked and where it went. */
	info("topoplace: %pJ placement=%s nodes=%s policy=%s class=%s", job_ptr,
	     _requested_placement(job_ptr), nodes ? nodes : "(none)",
	     tp_placement_name(policy), tp_jobclass_name(job_class));
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

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*inner.job_signal)(job_ptr, signal);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	if (tp_active) {
		slurm_mutex_lock(&tp_lock);
		_running_drop(job_ptr->job_id);
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

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
                                         job_record_t *job_ptr, void *data)
{
	return (*inner.get_info_from_plugin)(dinfo, job_ptr, data);
}

extern int select_p_update_node_config(int index)
{
	return (*inner.update_node_config)(index);
}

/*
 * scontrol reconfigure: re-read topoplace.conf and the fabric.  A bad file
 * keeps the previous good model (logged once, by _model_load).  A model
 * whose fabric failed to load replaces the old one only if the old one had
 * no fabric either.
 */
extern int select_p_reconfigure(void)
{
	if (tp_active) {
		tp_model *m = _model_load("reconfigure");

		slurm_mutex_lock(&tp_lock);
		if (!m) {
			error("topoplace: reconfigure: keeping the previous "
			      "configuration%s",
			      tp_cur && tp_cur->topo ? " and fabric" : "");
		} else if (!m->topo && tp_cur && tp_cur->topo) {
			error("topoplace: reconfigure: keeping the previous "
			      "configuration and fabric");
			_model_free(m);
		} else {
			_model_free(tp_cur);
			tp_cur = m;
			_decision_clear(); /* policies may have changed */
		}
		slurm_mutex_unlock(&tp_lock);
	}
	return (*inner.reconfigure)();
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
                                    uint32_t node_cnt, bitstr_t *avail_bitmap,
                                    bitstr_t **core_bitmap)
{
	return (*inner.resv_test)(resv_desc_ptr, node_cnt, avail_bitmap,
	                          core_bitmap);
}
