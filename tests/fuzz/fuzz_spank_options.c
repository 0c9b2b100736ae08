/*
 * fuzz_spank_options.c: user flag values as they arrive from sbatch/srun
 * and from a job's SPANK environment: no crash, overread or leak on any
 * bytes.
 *
 * Input: NUL-separated strings; the first is parsed as a --placement value,
 * all of them are searched as a SPANK environment.
 */
#include "tp_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
/* The lookup lives with the Slurm adapters but has no Slurm dependency. */
#include "../../slurm-plugin/spank_env.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *env[64];
	uint32_t count = 0;
	tp_placement placement;
	tp_error err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tp_placement_parse(text, &placement, &err) == TP_OK &&
	    strcmp(tp_placement_name(placement), text) != 0)
		abort(); /* a value that parses must be its own canonical name */
	for (size_t i = 0; i <= size && count < 64;) {
		env[count++] = text + i;
		i += strlen(text + i) + 1;
	}
	(void)tp_spank_job_option(env, count, "placement");
	(void)tp_spank_job_option(env, count, "comm-profile");
	free(text);
	return 0;
}
