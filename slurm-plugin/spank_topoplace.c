/*
 * spank_topoplace.c: the user flags of topoplace, as a SPANK plugin.
 *
 * Enabled in plugstack.conf:
 *   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_topoplace.so
 *
 * Each flag is checked where the user typed it (sbatch, salloc, srun), so a
 * bad value is refused at submission with one line instead of surfacing as a
 * silent fallback in slurmctld.  Slurm then carries the value to slurmctld
 * and slurmstepd in the job's SPANK environment (see spank_env.h), where the
 * select and task plugins read it.
 *
 * In Slurm 22.05 sbatch/salloc ignore a static spank_options table, so the
 * options are registered with spank_option_register() in slurm_spank_init.
 *
 * In slurmstepd (remote context) Slurm hands the option to our callback and
 * then removes it from the step's environment; the plugin puts the checked
 * value back as TOPOPLACE_PLACEMENT before the tasks start, so task/topoplace
 * finds it and steps started inside a batch script inherit it.
 */
#include "config.h"

#include <slurm/spank.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "spank_env.h"

SPANK_PLUGIN(topoplace, 1);

static int _check_placement(int val, const char *optarg, int remote);

/* In slurmstepd: the checked --placement value of this step, or NULL. */
static char *step_placement = NULL;

static struct spank_option placement_option = {
	.name = TP_SPANK_OPT_PLACEMENT,
	.arginfo = TP_PLACEMENT_CHOICES,
	.usage = "topoplace: where the job goes on the fabric: whole leaf "
		 "switches (leaf), leaves shared only with compatible jobs "
		 "(shared), fewest (pack) or most (spread) leaves, Slurm's own "
		 "choice (off), or the site default (auto)",
	.has_arg = 1,
	.val = 0,
	.cb = _check_placement,
};

static int _check_placement(int val, const char *optarg, int remote)
{
	tp_placement placement;
	tp_error err;

	(void)val;
	if (tp_placement_parse(optarg, &placement, &err) != TP_OK) {
		/* Remote: the value was checked at submission; say it anyway. */
		slurm_error("topoplace: --%s: %s%s", TP_SPANK_OPT_PLACEMENT,
			    err.message, remote ? " (in slurmstepd)" : "");
		return -1;
	}
	if (remote) {
		free(step_placement);
		step_placement = strdup(tp_placement_name(placement));
		if (!step_placement) {
			slurm_error("topoplace: out of memory keeping --%s",
				    TP_SPANK_OPT_PLACEMENT);
			return -1;
		}
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
	if (spank_option_register(sp, &placement_option) != ESPANK_SUCCESS) {
		slurm_error("topoplace: cannot register --%s",
			    TP_SPANK_OPT_PLACEMENT);
		return -1;
	}
	return 0;
}

/* slurmstepd, before the tasks are forked: hand the value to the tasks. */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !step_placement)
		return 0;
	if (spank_setenv(sp, TP_ENV_PLACEMENT, step_placement, 1) !=
	    ESPANK_SUCCESS) {
		slurm_error("topoplace: cannot set %s", TP_ENV_PLACEMENT);
		return -1;
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	free(step_placement);
	step_placement = NULL;
	return 0;
}
