/*
 * tp_select_ops_22_05.h: Slurm 22.05's select interface (see
 * tp_select_ops.h).  slurm_select_ops_t is public in src/common/select.h;
 * the symbol names are node_select_syms of src/common/select.c, 37 of
 * them.
 */
#ifndef TP_SELECT_OPS_22_05_H
#define TP_SELECT_OPS_22_05_H

#include "src/common/select.h"

typedef slurm_select_ops_t tp_select_ops_t;

static const char *tp_select_syms[] = {
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

/* The five entry points 24.11 dropped; the wrapper forwards them here. */
#define TP_SELECT_HAS_22_05_ONLY_CALLS 1

#endif
