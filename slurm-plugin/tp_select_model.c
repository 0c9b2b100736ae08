/*
 * tp_select_model.c: the model select/topoplace_cons_tres places with
 * (tp_select_model.h): topoplace.conf, the fabric and Slurm's nodes on it.
 *
 * Why apart from the entry points: loading is file I/O and Slurm's node
 * table, done at init and reconfigure only, never in the scheduling path;
 * the rules it applies are the core's (tp_sc_load_config, tp_sc_load_topo,
 * tp_sc_conf_on_error), this file only reads Slurm's configuration into
 * them and logs.  Runs in slurmctld only.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/hostlist.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "tp_select_model.h"
#include "tp_slurm_compat.h"
#include "tp_slurm_core.h"

/*
 * The topoplace.conf that last failed to load, so that the reconfigures
 * Slurm makes on its own (right after start, partition updates, debug
 * flags) do not repeat its error: it is reported once per version of the
 * file.  Touched only by slurmctld's reconfigure and init, which Slurm
 * never runs at once.
 */
static bool tp_conf_failed = false;
static tp_file_sig tp_conf_failed_sig;

void tp_model_free(tp_model *m)
{
	if (!m)
		return;
	tp_config_free(m->config);
	tp_topo_free(m->topo);
	xfree(m->ioservers);
	xfree(m->node_host);
	xfree(m->host_node);
	xfree(m);
}

/* Map Slurm's nodes onto the topo by NodeName. */
void tp_model_map_nodes(tp_model *m)
{
	uint32_t hosts;

	xfree(m->node_host);
	xfree(m->host_node);
	m->node_count = 0;
	m->mapped_count = 0;
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
		if (h != TP_NONE && h < hosts) {
			m->host_node[h] = i;
			m->mapped_count++;
		} else {
			m->node_host[i] = TP_NONE;
		}
	}
}

/*
 * A fabric none of whose hosts is a Slurm node (topology.conf or a cache
 * naming other hosts, a NodeNameRule that maps nothing) cannot place any
 * job: every job asking for a placement would wait for hosts that never
 * come.  That is no usable fabric: said once, without DebugFlags, and
 * dropped, so every job goes to plain cons_tres.  Only once Slurm's
 * nodes are known (not at init(), which runs before slurm.conf is read).
 * Returns false when the fabric was dropped.
 */
bool tp_model_check_usable(tp_model *m, const char *why)
{
	if (!m || !m->topo || node_record_count <= 0 || m->mapped_count)
		return true;
	error("topoplace: %s: fabric: none of its %u hosts (%s, ...) is a "
	      "Slurm node (%s, ...): no usable fabric: jobs are placed by "
	      "plain cons_tres",
	      why, tp_topo_host_count(m->topo), tp_topo_host_name(m->topo, 0),
	      node_record_table_ptr[0] ? node_record_table_ptr[0]->name : "?");
	tp_topo_free(m->topo);
	m->topo = NULL;
	xfree(m->node_host);
	xfree(m->host_node);
	m->node_count = 0;
	xfree(m->ioservers);
	m->ioserver_count = 0;
	return false;
}

static void _file_sig(const char *path, tp_file_sig *sig)
{
	struct stat st;

	memset(sig, 0, sizeof(*sig));
	if (!path || stat(path, &st) < 0)
		return;
	sig->exists = true;
	sig->dev = st.st_dev;
	sig->ino = st.st_ino;
	sig->size = st.st_size;
	sig->mtime = st.st_mtim;
}

static bool _file_sig_equal(const tp_file_sig *a, const tp_file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* The fabric files @config names: the source and the node-name map. */
static void _fabric_sigs(const tp_config *config, tp_file_sig *fabric,
                         tp_file_sig *map)
{
	const tp_config_site *site = tp_config_site_settings(config);

	_file_sig(site->fabric_source == TP_FABRIC_SOURCE_TOPOLOGY
	              ? site->topology_conf
	              : site->fabric_cache,
	          fabric);
	_file_sig(site->node_name_rule == TP_NODE_NAME_MAP ? site->node_name_map
	                                                   : NULL,
	          map);
}

/*
 * True when topoplace.conf and the fabric files @m was read from are
 * unchanged on disk.  Slurm calls select_g_reconfigure not only for
 * `scontrol reconfigure` but for partition updates, debug flag changes and
 * dynamic nodes: re-reading an unchanged fabric there would be slow work
 * under the node write lock for nothing.
 */
bool tp_model_unchanged(const tp_model *m)
{
	char path[1024];
	tp_file_sig conf, fabric, map;

	if (!m || !m->config)
		return false;
	tp_sc_conf_path(slurm_conf.slurm_conf, path, sizeof(path));
	_file_sig(path, &conf);
	_fabric_sigs(m->config, &fabric, &map);
	return _file_sig_equal(&conf, &m->conf_sig) &&
	       _file_sig_equal(&fabric, &m->fabric_sig) &&
	       _file_sig_equal(&map, &m->map_sig);
}

/*
 * IoServerHosts as hosts of the fabric.  Site-wide servers are usually no
 * Slurm nodes (Lustre OSSes, burst-buffer hosts), but they are on the
 * fabric, and the traffic converging on them loads their leaves and pods.
 * A name not in the fabric is said once and skipped.
 */
static void _model_ioservers(tp_model *m, const char *why)
{
	const char *expr = tp_config_site_settings(m->config)->ioserver_hosts;
	struct hostlist *hl; /* hostlist_t: tp_slurm_compat.h */
	char *name;

	if (!expr || !m->topo)
		return;
	hl = hostlist_create(expr);
	if (!hl) {
		error("topoplace: %s: IoServerHosts=%s: not a host list", why,
		      expr);
		return;
	}
	m->ioservers = xcalloc(hostlist_count(hl) + 1, sizeof(uint32_t));
	while ((name = hostlist_shift(hl))) {
		uint32_t h = tp_topo_find_host(m->topo, name);

		if (h == TP_NONE || h >= tp_topo_host_count(m->topo))
			error("topoplace: %s: IoServerHosts: %s is not a host "
			      "of the fabric: ignored",
			      why, name);
		else
			m->ioservers[m->ioserver_count++] = h;
		free(name);
	}
	hostlist_destroy(hl);
	if (m->ioserver_count)
		info("topoplace: %s: %u site-wide I/O servers (IoServerHosts)",
		     why, m->ioserver_count);
}

/* True when @m's DebugFlags include @flag (NULL model: none). */
bool tp_model_debug(const tp_model *m, uint32_t flag)
{
	return m && m->config &&
	       (tp_config_site_settings(m->config)->debug_flags & flag);
}

/* DebugFlags=Fabric: where Slurm's nodes are on the fabric. */
void tp_model_log_nodes(const tp_model *m, const char *why)
{
	uint32_t hosts = tp_topo_host_count(m->topo), slurm_only = 0;
	uint32_t not_slurm = 0;
	struct hostlist *hl = hostlist_create(NULL);
	char *text;

	for (int i = 0; i < m->node_count; i++) {
		node_record_t *node = node_record_table_ptr[i];

		if (node && m->node_host[i] == TP_NONE) {
			hostlist_push_host(hl, node->name);
			slurm_only++;
		}
	}
	for (uint32_t h = 0; h < hosts; h++)
		if (m->host_node[h] == TP_NONE)
			not_slurm++;
	text = hostlist_ranged_string_xmalloc(hl);
	info("topoplace: Fabric: %s: %d Slurm nodes, %u on the fabric; not "
	     "on it: %s; %u hosts of the fabric are no Slurm node",
	     why, m->node_count, (uint32_t)m->node_count - slurm_only,
	     slurm_only ? text : "none", not_slurm);
	xfree(text);
	hostlist_destroy(hl);
}

/*
 * DebugFlags=Fabric: where the model came from, how Slurm's nodes map
 * onto its hosts and one line per leaf.  Only at a model load (init or a
 * reconfigure that re-reads), never in the scheduling path.
 */
static void _model_log_fabric(const tp_model *m, const char *why)
{
	const tp_config_site *site = tp_config_site_settings(m->config);
	struct hostlist *hl;
	char *text;

	info("topoplace: Fabric: %s: FabricSource=%s %s, NodeNameRule=%s%s%s",
	     why, tp_config_fabric_source_name(site->fabric_source),
	     site->fabric_source == TP_FABRIC_SOURCE_TOPOLOGY
	         ? site->topology_conf
	         : site->fabric_cache,
	     tp_node_name_rule_name(site->node_name_rule),
	     site->node_name_map ? " " : "",
	     site->node_name_map ? site->node_name_map : "");
	/* Before slurm.conf's nodes are read (init(), also 24.11's
	 * reconfigure) select_p_node_init says it once they are. */
	if (node_record_count > 0)
		tp_model_log_nodes(m, why);
	for (uint32_t l = 0; l < tp_topo_leaf_count(m->topo); l++) {
		uint32_t n = 0;
		const uint32_t *on = tp_topo_leaf_hosts(m->topo, l, &n);

		hl = hostlist_create(NULL);
		for (uint32_t x = 0; x < n; x++)
			hostlist_push_host(hl,
			                   tp_topo_host_name(m->topo, on[x]));
		text = hostlist_ranged_string_xmalloc(hl);
		info("topoplace: Fabric: %s: leaf %s in pod %s: %u hosts %s",
		     why, tp_topo_leaf_name(m->topo, l),
		     tp_topo_pod_name(m->topo, tp_topo_leaf_pod(m->topo, l)), n,
		     text);
		xfree(text);
		hostlist_destroy(hl);
	}
}

/*
 * The copy of the last good topoplace.conf kept in StateSaveLocation, in
 * place of the bad file (tp_sc_conf_on_error: LAST_GOOD).  False when
 * there is none (@say_missing: logged).
 */
static bool _model_last_good(tp_model *m, const char *path, bool say_missing)
{
	tp_error err;

	if (tp_sc_load_config_last_good(path, slurm_conf.state_save_location,
	                                &m->config, &err) != TP_OK) {
		if (say_missing)
			error("topoplace: reconfigure: no previous "
			      "configuration to keep: %s",
			      err.message);
		return false;
	}
	error("topoplace: reconfigure: keeping the previous configuration and "
	      "fabric (the configuration from its copy %s/" TP_SC_LAST_GOOD_NAME
	      ", the fabric read again)",
	      slurm_conf.state_save_location);
	m->from_last_good = true;
	return true;
}

/*
 * A bad topoplace.conf (@parsed: it loads but a file it names cannot be
 * read): said once per version of the file (tp_conf_failed), then what
 * tp_sc_conf_on_error says to use.  False: no configuration from it.
 */
static bool _model_conf_error(tp_model *m, const char *path, const char *why,
                              bool parsed, const tp_error *err)
{
	tp_sc_conf_fallback use = tp_sc_conf_on_error(
	    parsed, !strcmp(why, "init"), tp_slurmctld_reconfigured());

	if (use == TP_SC_CONF_USE) {
		error("topoplace: %s: %s: throttled jobs will get no window "
		      "from it",
		      why, err->message);
		return true;
	}
	error("topoplace: %s: %s", why, err->message);
	tp_conf_failed = true;
	tp_conf_failed_sig = m->conf_sig;
	tp_config_free(m->config);
	m->config = NULL;
	return use == TP_SC_CONF_LAST_GOOD &&
	       _model_last_good(m, path, !parsed);
}

/*
 * topoplace.conf at @path into @m->config (or its last good copy, see
 * _model_conf_error); a good one is kept as that copy.  False (logged):
 * no configuration.
 */
static bool _model_load_config(tp_model *m, const char *path, const char *why)
{
	tp_error err;
	int missing = 0;

	/* Signatures first: a file changed while it is read is re-read on
	 * the next reconfigure. */
	_file_sig(path, &m->conf_sig);
	if (tp_sc_load_config(path, &m->config, &missing, &err) != TP_OK) {
		if (!_model_conf_error(m, path, why, false, &err))
			return false;
	} else if (tp_sc_conf_save_last_good(
	               path, slurm_conf.state_save_location, &err) != TP_OK) {
		debug("topoplace: %s: last good copy not kept: %s", why,
		      err.message);
	}
	if (missing)
		info("topoplace: %s: %s not found: using defaults", why, path);
	if (!m->from_last_good &&
	    tp_config_check_files(m->config, &err) != TP_OK &&
	    !_model_conf_error(m, path, why, true, &err))
		return false;
	tp_conf_failed = m->from_last_good;
	return true;
}

/*
 * The fabric @m's configuration names, mapped onto Slurm's nodes, with
 * its I/O servers.  Without one (logged), @m->topo stays NULL: jobs then
 * go to plain cons_tres.
 */
static void _model_load_fabric(tp_model *m, const char *path, const char *why)
{
	tp_error err;

	/*
	 * topology/block (Slurm 23.11+) makes cons_tres pick block-aligned
	 * node sets; narrowed to whole leaves as well, a job could find no
	 * set both accept and wait forever.  Refused, plainly: every job is
	 * Slurm's (its SystemComment says so); task/topoplace still remaps.
	 */
	if (slurm_conf.topology_plugin &&
	    strstr(slurm_conf.topology_plugin, "topology/block")) {
		error("topoplace: %s: fabric: TopologyPlugin=%s is not "
		      "supported beside select/topoplace_cons_tres (topoplace "
		      "places on fat trees: use topology/tree or none): jobs "
		      "are placed by plain cons_tres",
		      why, slurm_conf.topology_plugin);
		return;
	}
	if (tp_sc_load_topo(m->config, &m->topo, &err) != TP_OK) {
		error("topoplace: %s: fabric: %s: jobs are placed by plain "
		      "cons_tres",
		      why, err.message);
		m->topo = NULL;
		return;
	}
	tp_model_map_nodes(m);
	if (!tp_model_check_usable(m, why))
		return;
	_model_ioservers(m, why);
	if (tp_model_debug(m, TP_DEBUG_FABRIC))
		_model_log_fabric(m, why);
	info("topoplace: %s: %s: fabric of %u hosts, %u leaves, %u pods", why,
	     path, tp_topo_host_count(m->topo), tp_topo_leaf_count(m->topo),
	     tp_topo_pod_count(m->topo));
}

/*
 * Read topoplace.conf and the fabric.  Returns NULL (error logged, one
 * line) when the config is bad; a model without topo when only the fabric
 * could not be loaded (jobs then go to plain cons_tres).
 */
tp_model *tp_model_load(const char *why)
{
	char path[1024];
	tp_model *m = xmalloc(sizeof(*m));

	m->why = why;
	tp_sc_conf_path(slurm_conf.slurm_conf, path, sizeof(path));
	if (!_model_load_config(m, path, why)) {
		xfree(m);
		return NULL;
	}
	tp_sc_munge_socket(slurm_conf.authinfo, m->munge_socket,
	                   sizeof(m->munge_socket));
	_fabric_sigs(m->config, &m->fabric_sig, &m->map_sig);
	_model_load_fabric(m, path, why);
	return m;
}

bool tp_model_conf_error_reported(char *path, size_t size)
{
	tp_file_sig conf;

	if (!tp_conf_failed)
		return false;
	tp_sc_conf_path(slurm_conf.slurm_conf, path, size);
	_file_sig(path, &conf);
	return _file_sig_equal(&conf, &tp_conf_failed_sig);
}
