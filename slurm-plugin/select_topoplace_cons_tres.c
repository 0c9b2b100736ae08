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

#include <stdbool.h>
#include <string.h>

#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/select.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "spank_env.h"

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

extern int init(void)
{
	inner_context = plugin_context_create("select", "select/cons_tres",
					      (void **)&inner, select_syms,
					      sizeof(select_syms));
	if (!inner_context) {
		error("%s: cannot load select/cons_tres to wrap", plugin_type);
		return SLURM_ERROR;
	}
	debug("%s loaded (wrapping select/cons_tres)", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	int rc = SLURM_SUCCESS;

	if (inner_context)
		rc = plugin_context_destroy(inner_context);
	inner_context = NULL;
	memset(&inner, 0, sizeof(inner));
	return rc;
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

extern int select_p_state_save(char *dir_name)
{
	return (*inner.state_save)(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*inner.state_restore)(dir_name);
}

extern int select_p_job_init(List job_list)
{
	return (*inner.job_init)(job_list);
}

extern int select_p_node_init(void)
{
	return (*inner.node_init)();
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
	return (*inner.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes,
				 req_nodes, mode, preemptee_candidates,
				 preemptee_job_list, exc_core_bitmap);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*inner.job_begin)(job_ptr);
	/* job_ptr->nodes is set only after job_begin: name the bitmap. */
	char *nodes = job_ptr->node_bitmap ?
			      bitmap2node_name(job_ptr->node_bitmap) :
			      NULL;

	/* One line per started job: what was asked and where it went. */
	info("topoplace: %pJ placement=%s nodes=%s", job_ptr,
	     _requested_placement(job_ptr), nodes ? nodes : "(none)");
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

extern int select_p_reconfigure(void)
{
	return (*inner.reconfigure)();
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return (*inner.resv_test)(resv_desc_ptr, node_cnt, avail_bitmap,
				  core_bitmap);
}
