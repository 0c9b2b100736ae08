/*
 * spank_topoplace.c: the user flags of topoplace, as a SPANK plugin.
 *
 * Enabled in plugstack.conf:
 *   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_topoplace.so
 *
 *   --placement=auto|leaf|shared|pack|spread|off   --comm-profile=NAME
 *   --comm-record[=NAME]   --rank-remap=auto|off   --io-servers=N
 *   --io-throttle=auto|off|<window>
 *
 * Each flag is checked where the user typed it (sbatch, salloc, srun) by
 * tp_slurm_options.c, so a bad value is refused at submission with one line
 * instead of surfacing as a silent fallback in slurmctld.  Slurm then
 * carries the value to slurmctld (job_ptr->spank_job_env, read by the
 * select plugin) and to slurmstepd, in the job's SPANK environment (see
 * spank_env.h).
 *
 * In Slurm 22.05 sbatch/salloc ignore a static spank_options table, so the
 * options are registered with spank_option_register() in slurm_spank_init.
 *
 * In slurmstepd (remote context) Slurm hands each option to our callback
 * and then removes it from the step's environment (plugstack.c,
 * spank_stack_post_opt); slurm_spank_init_post_opt, which runs right after,
 * puts the checked values back as TOPOPLACE_<FLAG> variables.  That is
 * before task_p_pre_setuid, so task/topoplace finds them there, and steps
 * started inside a batch script inherit them.
 */
#include "config.h"

#include <slurm/spank.h>
#include <stdlib.h>
#include <string.h>

#include "spank_env.h"
#include "tp_slurm_options.h"

SPANK_PLUGIN(topoplace, 1);

/* In slurmstepd: the checked values of this step ("" given without one). */
static char step_value[TP_OPT_COUNT][TP_OPT_VALUE_MAX];
static int step_given[TP_OPT_COUNT];

static int _check_option(int val, const char *optarg, int remote)
{
	char canon[TP_OPT_VALUE_MAX];
	tp_error err;

	if (val < 0 || val >= TP_OPT_COUNT)
		return -1;
	if (tp_opt_check((tp_opt_id)val, optarg, canon, &err) != TP_OK) {
		/* Remote: the value was checked at submission; say it anyway.
		 */
		slurm_error("topoplace: %s%s", err.message,
		            remote ? " (in slurmstepd)" : "");
		return -1;
	}
	if (remote) {
		memcpy(step_value[val], canon, sizeof(canon));
		step_given[val] = 1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t context = spank_context();

	(void)ac;
	(void)av;
	/* slurmd and prolog/epilog contexts have no user options. */
	if (context != S_CTX_LOCAL && context != S_CTX_ALLOCATOR &&
	    context != S_CTX_REMOTE)
		return 0;
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);
		/* SPANK keeps the pointer: the table must outlive the call. */
		static struct spank_option opts[TP_OPT_COUNT];

		opts[i].name = (char *)info->name;
		opts[i].arginfo = (char *)info->arginfo;
		opts[i].usage = (char *)info->usage;
		opts[i].has_arg = info->has_arg;
		opts[i].val = i;
		opts[i].cb = _check_option;
		if (spank_option_register(sp, &opts[i]) != ESPANK_SUCCESS) {
			slurm_error("topoplace: cannot register --%s",
			            info->name);
			return -1;
		}
	}
	return 0;
}

/* slurmstepd, options processed: hand the values to task/topoplace. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return 0;
	for (int i = 0; i < TP_OPT_COUNT; i++) {
		const tp_opt_info *info = tp_opt_info_get((tp_opt_id)i);

		if (!step_given[i])
			continue;
		if (spank_setenv(sp, info->env, step_value[i], 1) !=
		    ESPANK_SUCCESS) {
			slurm_error("topoplace: cannot set %s", info->env);
			return -1;
		}
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	memset(step_given, 0, sizeof(step_given));
	return 0;
}
