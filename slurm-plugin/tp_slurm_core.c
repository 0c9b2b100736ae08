/*
 * tp_slurm_core.c: configuration, fabric and profiles for the plugins.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "munge_auth.h"
#include "tp_slurm_core.h"
#include "tp_slurm_fabric.h"

void tp_sc_conf_path(const char *slurm_conf, char *out, size_t size)
{
	const char *slash;

	if (!slurm_conf || !slurm_conf[0])
		slurm_conf = TP_CONFIG_DEFAULT_CONF_DIR "/slurm.conf";
	slash = strrchr(slurm_conf, '/');
	if (!slash)
		snprintf(out, size, "topoplace.conf");
	else
		snprintf(out, size, "%.*s/topoplace.conf",
		         (int)(slash - slurm_conf), slurm_conf);
}

tp_status tp_sc_load_config(const char *path, tp_config **config, int *missing,
                            tp_error *err)
{
	struct stat st;

	*missing = 0;
	if (stat(path, &st) < 0 && errno == ENOENT) {
		*missing = 1;
		/* An empty file named @path: TopologyConf beside it. */
		return tp_config_parse("", 0, path, config, err);
	}
	return tp_config_load(path, config, err);
}

tp_status tp_sc_load_topo(const tp_config *config, tp_topo **topo,
                          tp_error *err)
{
	const tp_config_site *site = tp_config_site_settings(config);

	return tp_sf_load_topo(site->fabric_source == TP_FABRIC_SOURCE_TOPOLOGY,
	                       site->topology_conf, site->fabric_cache,
	                       site->node_name_rule == TP_NODE_NAME_MAP
	                           ? site->node_name_map
	                           : NULL,
	                       topo, err);
}

void tp_sc_munge_socket(const char *authinfo, char *out, size_t size)
{
	const char *p = authinfo ? strstr(authinfo, "socket=") : NULL;
	size_t n;

	out[0] = '\0';
	if (!p)
		return;
	p += strlen("socket=");
	n = strcspn(p, ",");
	if (n >= size)
		return;
	memcpy(out, p, n);
	out[n] = '\0';
}

tp_status tp_sc_read_profile(const tp_config *config, const char *munge_socket,
                             const char *user, const char *name,
                             tp_profile **profile, tp_error *err)
{
	tp_munge_config munge = {NULL, 0};
	tp_store_options opt = tp_store_default_options();
	tp_store_auth auth;

	if (munge_socket && munge_socket[0])
		munge.socket = munge_socket;
	tp_munge_auth_init(&auth, &munge);
	tp_config_store_options(config, &opt);
	opt.auth = &auth;
	return tp_store_get(&opt, user, name, NULL, profile, err);
}

/* Typical request size: the lower bound of the histogram's median bucket. */
static uint64_t median_request_bytes(const tp_profile_io *io)
{
	uint64_t seen = 0;

	if (!io->requests)
		return 0;
	for (int i = 0; i < TP_PROFILE_IO_BUCKETS; i++) {
		seen += io->size_hist[i];
		if (seen * 2 >= io->requests)
			return i == 0 ? 1 : (uint64_t)1 << i;
	}
	return (uint64_t)1 << (TP_PROFILE_IO_BUCKETS - 1);
}

void tp_sc_profile_summary(const tp_profile *profile, tp_job_summary *summary)
{
	double seconds = (double)profile->header.duration_us / 1e6;
	uint64_t bytes = tp_profile_total_bytes(profile);
	uint64_t msgs = tp_profile_total_msgs(profile);
	size_t clients = profile->io.client_count;

	memset(summary, 0, sizeof(*summary));
	summary->ranks = profile->header.ranks;
	summary->io_bytes = profile->io.read_bytes + profile->io.write_bytes;
	summary->io_clients = (uint32_t)clients;
	summary->io_request_bytes = median_request_bytes(&profile->io);
	if (seconds > 0) {
		if (clients)
			summary->io_requests_per_s =
			    (double)profile->io.requests / (double)clients /
			    seconds;
		summary->net_bytes_per_s = (double)bytes / seconds;
	}
	if (msgs)
		summary->mean_message_bytes = bytes / msgs;
}
