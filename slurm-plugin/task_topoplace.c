/*
 * task_topoplace.c: task/topoplace, run by slurmstepd around each task.
 *
 * Stacks after the site's task plugins:
 *   TaskPlugin=task/affinity,task/topoplace
 *
 * task_p_pre_launch runs in the task just before exec and adds to its
 * environment what topoplace decided for the job, so that MPI launchers and
 * the application can use it without any change to the user's script.
 * Every other entry point leaves Slurm's behaviour untouched.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <signal.h>
#include <sys/types.h>

#include "slurm/slurm_errno.h"
#include "src/common/env.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "policy.h"
#include "spank_env.h"

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

extern int task_p_slurmd_batch_request(batch_job_launch_msg_t *req)
{
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
extern int task_p_pre_launch(stepd_step_rec_t *job)
{
	const char *requested = getenvp(job->env, TP_ENV_PLACEMENT);
	tp_placement placement = TP_PLACEMENT_AUTO;
	tp_error err;

	if (requested &&
	    tp_placement_parse(requested, &placement, &err) != TP_OK) {
		error("%s: %ps: %s: %s: using auto", plugin_type,
		      &job->step_id, TP_ENV_PLACEMENT, err.message);
		placement = TP_PLACEMENT_AUTO;
	}
	if (setenvf(&job->env, TP_ENV_PLACEMENT, "%s",
		    tp_placement_name(placement)))
		error("%s: %ps: cannot set %s", plugin_type, &job->step_id,
		      TP_ENV_PLACEMENT);
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

extern int task_p_post_term(stepd_step_rec_t *job,
			    stepd_step_task_info_t *task)
{
	return SLURM_SUCCESS;
}

extern int task_p_post_step(stepd_step_rec_t *job)
{
	return SLURM_SUCCESS;
}

extern int task_p_add_pid(pid_t pid)
{
	return SLURM_SUCCESS;
}
