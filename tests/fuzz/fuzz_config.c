/*
 * fuzz_config: libFuzzer target for the topoplace.conf parser
 * (tp_config_parse), the lookups a Slurm plugin makes on its result and
 * the settings writer (to /dev/null).  No files are written; everything
 * allocated is freed.
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "topoplace_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keeps the reads above from being optimized away. */
static volatile size_t sink;

/* Touch every effective setting, so a bad pointer in it is found here. */
static size_t use_settings(const tp_config_settings *s)
{
	tp_throttle_policy policy;
	size_t sum = 0;

	tp_config_throttle_policy(s, &policy);
	for (size_t i = 0; i < policy.class_count; i++)
		sum += strlen(policy.classes[i]);
	if (s->threshold_table)
		sum += strlen(s->threshold_table);
	for (int p = TP_PLACEMENT_AUTO; p <= TP_PLACEMENT_OFF; p++)
		sum += (size_t)tp_config_resolve_placement(s, (tp_placement)p,
		                                           p & 1);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_config *cfg = NULL;
	tp_store_options opt = tp_store_default_options();
	const tp_config_site *site;
	char flags[128];
	tp_error err;
	size_t sum;
	FILE *null_out;

	if (tp_config_parse((const char *)data, size, "/etc/slurm/fuzz.conf",
	                    &cfg, &err) != TP_OK) {
		/* One line, always. */
		if (memchr(err.message, '\n', strlen(err.message)))
			__builtin_trap();
		return 0;
	}
	site = tp_config_site_settings(cfg);
	sum = strlen(site->fabric_cache) + strlen(site->topology_conf) +
	      strlen(site->profile_store);
	if (site->node_name_map)
		sum += strlen(site->node_name_map);
	if (site->tbf_hook)
		sum += strlen(site->tbf_hook);
	tp_config_debug_flags_format(site->debug_flags, flags, sizeof(flags));
	tp_config_store_options(cfg, &opt);
	sum += use_settings(tp_config_defaults(cfg));
	for (size_t i = 0; i < tp_config_partition_count(cfg); i++) {
		const char *name = tp_config_partition_name(cfg, i);

		sum += use_settings(tp_config_for_partition(cfg, name));
		sum += tp_config_partition_sets(cfg, name, "DefaultPlacement");
	}
	null_out = fopen("/dev/null", "w");
	if (null_out) {
		tp_config_write_settings(cfg, NULL, null_out, &err);
		for (size_t i = 0; i < tp_config_partition_count(cfg); i++)
			tp_config_write_settings(
			    cfg, tp_config_partition_name(cfg, i), null_out,
			    &err);
		fclose(null_out);
	}
	tp_config_free(cfg);
	sink = sum;
	return 0;
}
