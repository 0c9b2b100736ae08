/*
 * fuzz_spank_options.c: the user flags' checker (slurm-plugin/
 * tp_slurm_options.c) and the SPANK environment lookup on arbitrary bytes.
 * Input: one byte choosing the flag, then the value (cut at the first NUL).
 *
 * fuzz-sources: slurm-plugin/tp_slurm_options.c slurm-plugin/spank_env.c
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icommon -Iplacement -Iprofiles \
 *     -Ithrottle -Iconfig -Islurm-plugin -I<build> tests/fuzz/fuzz_spank_options.c \
 *     slurm-plugin/tp_slurm_options.c slurm-plugin/spank_env.c \
 *     placement/policy.c common/tp_error.c profiles/store.c ... \
 *     throttle/window.c common/units.c ...
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spank_env.h"
#include "tp_slurm_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char canon[TP_OPT_VALUE_MAX], *value, *entry;
	tp_opt_values values;
	tp_error err;
	tp_opt_id id;
	const tp_opt_info *info;

	if (size < 1)
		return 0;
	id = (tp_opt_id)(data[0] % TP_OPT_COUNT);
	value = malloc(size);
	if (!value)
		return 0;
	memcpy(value, data + 1, size - 1);
	value[size - 1] = '\0';
	(void)tp_opt_check(id, value, canon, &err);
	(void)tp_opt_check(id, NULL, canon, &err);
	tp_opt_values_init(&values);
	(void)tp_opt_values_set(&values, id, value, &err);
	/* The same bytes as a SPANK environment entry. */
	info = tp_opt_info_get(id);
	entry = malloc(strlen(TP_SPANK_ENV_PREFIX) + strlen(info->name) +
	               strlen(value) + 2);
	if (entry) {
		char *env[2] = {entry, value};

		strcpy(entry, TP_SPANK_ENV_PREFIX);
		strcat(entry, info->name);
		strcat(entry, "=");
		strcat(entry, value);
		(void)tp_spank_job_option(env, 2, info->name);
		free(entry);
	}
	free(value);
	return 0;
}
