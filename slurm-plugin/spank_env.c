/*
 * spank_env.c: finding topoplace's options in a job's SPANK environment.
 */

#include <ctype.h>
#include <string.h>

#include "spank_env.h"

const char *tp_spank_job_option(char **env, uint32_t env_size,
                                const char *option)
{
	const size_t prefix_len = strlen(TP_SPANK_ENV_PREFIX);
	const size_t option_len = strlen(option);

	if (!env)
		return NULL;
	for (uint32_t i = 0; i < env_size; i++) {
		const char *entry = env[i];
		size_t k;

		if (!entry || strncmp(entry, TP_SPANK_ENV_PREFIX, prefix_len))
			continue;
		entry += prefix_len;
		for (k = 0; k < option_len; k++) {
			char want = option[k];

			if (!isalnum((unsigned char)want))
				want = '_';
			if (entry[k] != want)
				break;
		}
		if (k == option_len && entry[k] == '=')
			return entry + k + 1;
	}
	return NULL;
}
