/*
 * spank_env.h: where topoplace's user flags travel inside Slurm.
 *
 * The SPANK plugin "topoplace" registers the user flags.  Slurm carries each
 * option given to sbatch/salloc/srun to slurmctld (job_ptr->spank_job_env)
 * and to slurmstepd (the step's environment) as
 *   _SLURM_SPANK_OPTION_topoplace_<option>=<value>
 * with every non-alphanumeric character of the option name turned into '_'.
 * This header names those variables and finds them; it has no Slurm
 * dependency so it can be unit tested alone.
 */
#ifndef TP_SPANK_ENV_H
#define TP_SPANK_ENV_H

#include <stddef.h>
#include <stdint.h>

/* The SPANK plugin's name: part of every variable below. */
#define TP_SPANK_PLUGIN_NAME "topoplace"

#define TP_SPANK_ENV_PREFIX "_SLURM_SPANK_OPTION_" TP_SPANK_PLUGIN_NAME "_"

/* Option names as registered (and as seen by users with a leading "--"). */
#define TP_SPANK_OPT_PLACEMENT "placement"

/*
 * The step environment variable through which the SPANK plugin (remote side)
 * hands the checked --placement value to task/topoplace, and which every
 * task finally sees.
 */
#define TP_ENV_PLACEMENT "TOPOPLACE_PLACEMENT"

/*
 * Find the value of option @option (e.g. "placement") in @env, an array of
 * @env_size "NAME=value" strings (NULL entries are skipped).  Returns a
 * pointer into @env, or NULL when the option was not given.  Option names
 * with characters other than [A-Za-z0-9] are matched in their canonical
 * form ('_' for each such character), as Slurm writes them.
 */
const char *tp_spank_job_option(char **env, uint32_t env_size,
                                const char *option);

#endif /* TP_SPANK_ENV_H */
