/*
 * tp_slurm_core.c: configuration, fabric and profiles for the plugins.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "munge_auth.h"
#include "rankfile.h"
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

void tp_sc_decision_format(tp_placement placement, tp_jobclass job_class,
                           int has_profile, char *out, size_t size)
{
	snprintf(out, size, TP_SC_DECISION_PREFIX "placement=%s class=%s%s",
	         tp_placement_name(placement), tp_jobclass_name(job_class),
	         has_profile ? " (profile)" : "");
}

tp_status tp_sc_decision_parse(const char *text, tp_placement *placement,
                               tp_jobclass *job_class, int *has_profile,
                               tp_error *err)
{
	char policy[32], cls[32], rest[32];
	int n;
	tp_error ignored;

	if (!text ||
	    strncmp(text, TP_SC_DECISION_PREFIX, strlen(TP_SC_DECISION_PREFIX)))
		return tp_error_set(err, TP_ERR_PARSE,
		                    "SystemComment \"%.60s\": not a topoplace "
		                    "decision",
		                    text ? text : "");
	rest[0] = '\0';
	n = sscanf(text + strlen(TP_SC_DECISION_PREFIX),
	           "placement=%31[a-z_] class=%31[a-z_]%31[^\n]", policy, cls,
	           rest);
	if (n < 2 || (rest[0] && strcmp(rest, " (profile)")) ||
	    tp_placement_parse(policy, placement, &ignored) != TP_OK ||
	    tp_jobclass_parse(cls, job_class, &ignored) != TP_OK)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "SystemComment \"%.60s\": not a topoplace "
		                    "decision",
		                    text);
	*has_profile = rest[0] != '\0';
	return TP_OK;
}

tp_status tp_sc_remap(const tp_topo *topo, const tp_profile *profile,
                      const char *nodes, uint64_t seed, tp_remap_mapping *map,
                      tp_remap_stats *stats, tp_error *err)
{
	tp_traffic *traffic = NULL;
	tp_remap_host *hosts = NULL;
	uint32_t host_count = 0, slots;
	tp_status rc;

	rc = tp_profile_to_traffic(profile, &traffic, err);
	if (rc == TP_OK)
		rc = tp_remap_hosts_parse(topo, nodes, 1, &hosts, &host_count,
		                          err);
	if (rc == TP_OK) {
		/* Enough slots on every host for all ranks, spread evenly. */
		slots = (profile->header.ranks + host_count - 1) / host_count;
		for (uint32_t i = 0; i < host_count; i++)
			hosts[i].slots = slots ? slots : 1;
		rc = tp_remap_compute(topo, traffic, hosts, host_count, seed,
		                      NULL, map, stats, err);
		if (rc != TP_OK)
			tp_error_prefix(err, "remap");
	}
	free(hosts);
	tp_traffic_free(traffic);
	return rc;
}

void tp_sc_job_dir(const char *tmp_fs, unsigned long job_id, char *out,
                   size_t size)
{
	snprintf(out, size, "%s/topoplace.%lu",
	         tmp_fs && tmp_fs[0] ? tmp_fs : "/tmp", job_id);
}

static const char *const remap_files[] = {TP_SC_RANKFILE, TP_SC_MACHINEFILE,
                                          TP_SC_HOSTFILE};

tp_status tp_sc_remap_write(const char *dir, const tp_topo *topo,
                            const tp_remap_mapping *map, tp_error *err)
{
	static const tp_rankfile_format formats[] = {
	    TP_RANKFILE_OPENMPI, TP_RANKFILE_HYDRA, TP_RANKFILE_SLURM};
	struct stat st;
	char path[4096];

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot create: %s",
		                    dir, strerror(errno));
	/* An existing entry must be the caller's own private directory. */
	if (lstat(dir, &st) < 0)
		return tp_error_set(err, TP_ERR_IO, "%s: %s", dir,
		                    strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return tp_error_set(err, TP_ERR_IO,
		                    "%s: not a private directory of uid %u",
		                    dir, (unsigned)geteuid());
	for (size_t i = 0; i < sizeof(remap_files) / sizeof(remap_files[0]);
	     i++) {
		tp_status rc;

		snprintf(path, sizeof(path), "%s/%s", dir, remap_files[i]);
		rc = tp_rankfile_write(path, topo, formats[i], map->ranks,
		                       map->rank_host, map->rank_slot, err);
		if (rc != TP_OK)
			return rc;
	}
	return TP_OK;
}

int tp_sc_remap_remove(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	for (size_t i = 0; i < sizeof(remap_files) / sizeof(remap_files[0]);
	     i++)
		(void)unlinkat(fd, remap_files[i], 0);
	close(fd);
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -1;
	return 0;
}
