/*
 * cli.c: what the topoplace subcommands share: logging and error printing,
 * option values, and the fabrics, profiles, hosts and mappings they read.
 */
#include "tp_config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "alloc.h"
#include "convert.h"
#include "discover.h"
#include "fabric.h"
#include "ioserver.h"
#include "profile.h"
#include "remap.h"
#include "topo.h"
#include "tp_file.h"
#include "tp_json.h"
#include "traffic.h"

static void stderr_sink(void *sink_data, tp_log_level level,
			const char *message)
{
	(void)sink_data;
	fprintf(stderr, "topoplace: %s: %s\n", tp_log_level_name(level),
		message);
}

tp_logger tp_cli_logger(tp_log_level max_level)
{
	tp_logger logger = { stderr_sink, NULL, max_level };

	return logger;
}

int tp_cli_fail(const char *what, const tp_error *err)
{
	fprintf(stderr, "topoplace %s: %s\n", what,
		err && err->message[0] ? err->message : "failed");
	return TP_EXIT_FAILURE;
}

int tp_cli_usage_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "topoplace %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TP_EXIT_USAGE;
}

int tp_cli_bad_option(const char *what, int c, char *const argv[],
                      const char *hint)
{
	if (c == ':')
		return tp_cli_usage_error(what, "%s needs a value",
		                          argv[optind - 1]);
	return tp_cli_usage_error(what, "unknown option '%s'%s",
	                          argv[optind - 1], hint);
}

int tp_cli_json_finish(const char *what, struct tp_json *j, int rc)
{
	tp_error err = {0};

	if (tp_json_finish(j, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	return rc;
}

void tp_cli_json_names(struct tp_json *j, const char *key,
                       const struct tp_topo *topo, const uint32_t *idx,
                       uint32_t count,
                       const char *(*name)(const struct tp_topo *, uint32_t))
{
	tp_json_begin_array(j, key);
	for (uint32_t i = 0; i < count; i++)
		tp_json_string(j, NULL, name(topo, idx[i]));
	tp_json_end_array(j);
}

void tp_cli_json_alloc_sets(struct tp_json *j, const struct tp_topo *topo,
                            const struct tp_alloc_result *res)
{
	tp_cli_json_names(j, "hosts", topo, res->hosts, res->host_count,
	                  tp_topo_host_name);
	tp_cli_json_names(j, "leaves", topo, res->leaves, res->leaf_count,
	                  tp_topo_leaf_name);
	tp_cli_json_names(j, "pods", topo, res->pods, res->pod_count,
	                  tp_topo_pod_name);
	tp_cli_json_names(j, "reserved", topo, res->reserved,
	                  res->reserved_count, tp_topo_host_name);
}

int tp_cli_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("topoplace %s\n", PACKAGE_VERSION);
	return TP_EXIT_OK;
}

int tp_cli_parse_u64(const char *what, const char *opt, const char *text,
		     uint64_t min, uint64_t max, uint64_t *value)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)text[0]))
		goto bad;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*value = v;
	return TP_EXIT_OK;
bad:
	return tp_cli_usage_error(what,
				  "%s '%s': expected a whole number from "
				  "%llu to %llu",
				  opt, text, (unsigned long long)min,
				  (unsigned long long)max);
}

int tp_cli_parse_slots(const char *what, const char *text, uint64_t *slots)
{
	return tp_cli_parse_u64(what, "--slots", text, 1, TP_CLI_MAX_SLOTS,
	                        slots);
}

int tp_cli_parse_seed(const char *what, const char *text, uint64_t *seed)
{
	return tp_cli_parse_u64(what, "--seed", text, 0, UINT64_MAX, seed);
}

int tp_cli_parse_job_option(const char *what, int c, const char *arg,
                            tp_cli_job_opts *job)
{
	switch (c) {
	case TP_CLI_OPT_TRAFFIC:
		job->traffic = arg;
		return TP_EXIT_OK;
	case TP_CLI_OPT_FABRIC:
		job->fabric = arg;
		return TP_EXIT_OK;
	case TP_CLI_OPT_HOSTS:
		job->hostlist = arg;
		return TP_EXIT_OK;
	case TP_CLI_OPT_SLOTS:
		return tp_cli_parse_slots(what, arg, &job->slots);
	default: /* TP_CLI_OPT_SEED */
		return tp_cli_parse_seed(what, arg, &job->seed);
	}
}

const char *tp_cli_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int tp_cli_parse_u32(const char *what, const char *opt, const char *text,
                     uint32_t min, uint32_t max, uint32_t *value)
{
	uint64_t v;
	int rc = tp_cli_parse_u64(what, opt, text, min, max, &v);

	if (rc == TP_EXIT_OK)
		*value = (uint32_t)v;
	return rc;
}

int tp_cli_parse_io_where(const char *what, const char *text, bool site_allowed,
                          tp_ioserver_scope *scope)
{
	if (!strcmp(text, "among"))
		*scope = TP_IOSERVER_AMONG;
	else if (!strcmp(text, "beside"))
		*scope = TP_IOSERVER_BESIDE;
	else if (site_allowed && !strcmp(text, "site"))
		*scope = TP_IOSERVER_SITE;
	else
		return tp_cli_usage_error(what,
		                          "--io-where '%s': expected "
		                          "among|beside%s",
		                          text, site_allowed ? "|site" : "");
	return TP_EXIT_OK;
}

bool tp_cli_is_tree_spec(const char *spec)
{
	return !strchr(spec, '/') && !strchr(spec, '.') &&
	       spec[strspn(spec, "0123456789x")] == '\0';
}

/*
 * "PxLxH[xS[xC]]": 3 to 5 numbers 1..9999 separated by 'x'.  Returns how
 * many, or -1.
 */
static int parse_fabric_dims(const char *spec, uint32_t dims[5])
{
	const char *p = spec;
	int n = 0;

	for (;;) {
		unsigned long v;
		char *end;

		if (n == 5 || !isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v == 0 || v > 9999)
			return -1;
		dims[n++] = (uint32_t)v;
		if (*end == '\0')
			break;
		if (*end != 'x')
			return -1;
		p = end + 1;
	}
	return n >= 3 ? n : -1;
}

int tp_cli_load_topo(const char *what, const char *spec,
		     struct tp_topo **topo)
{
	tp_fabric *fabric = NULL;
	tp_error err;
	uint32_t dims[5];
	int rc;

	*topo = NULL;
	if (parse_fabric_dims(spec, dims) == 3) { /* PxLxH, nothing more */
		if (tp_topo_new_fattree(topo, dims[0], dims[1], dims[2],
					&err) != TP_OK)
			return tp_cli_usage_error(what, "--fabric %s: %s", spec,
						  err.message);
		return TP_EXIT_OK;
	}
	if (tp_cli_is_tree_spec(spec))
		return tp_cli_usage_error(what,
					  "--fabric '%s': expected PODSxLEAVESx"
					  "HOSTS (e.g. 2x18x18) or a file",
					  spec);
	/* A file (an ibnetdiscover cache, else a topology.conf): not a tree
	 * spec, so tp_cli_load_fabric reads it as a file too. */
	if ((rc = tp_cli_load_fabric(what, spec, NULL, &fabric)) != TP_EXIT_OK)
		return rc;
	if (tp_fabric_to_topo(fabric, topo, &err) != TP_OK) {
		tp_fabric_free(fabric);
		return tp_cli_fail(what, &err);
	}
	tp_fabric_free(fabric);
	return TP_EXIT_OK;
}

/* ---- fabrics, profiles and mappings for the report subcommands -------- */

/*
 * A fat tree with real ports, named as topoplace-fattree names it: P pods
 * of L leaves of H hosts; 2-level (P = 1) with S spines, every leaf cabled
 * to every spine; 3-level (P >= 2) with S aggregation switches per pod,
 * every leaf to every agg of its pod, and C cores in S groups, agg j of
 * each pod cabled to every core of group j.  S defaults to H, C to S.
 */
static tp_status build_fattree(const uint32_t d[5], int n, tp_fabric **out,
                               tp_error *err)
{
	uint32_t P = d[0], L = d[1], H = d[2], S = n > 3 ? d[3] : d[2];
	uint32_t C = n > 4 ? d[4] : S, leaves = P * L, hosts = P * L * H;
	uint32_t aggs = P > 1 ? P * S : S, group = P > 1 ? C / S : 0;
	uint32_t *leaf = NULL, *agg = NULL, *core = NULL;
	char source[128], name[32];
	tp_fabric *f = NULL;
	tp_status rc;

	*out = NULL;
	if (n > 4 && P == 1)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "a 2-level tree (1 pod) has no cores");
	if (hosts > 9999 || leaves > 999 || aggs > 999 || (P > 1 && C > 999) ||
	    P > 99)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "too large: at most 9999 hosts, 999 leaves, "
		                    "999 spines or cores, 99 pods");
	if (P > 1 && C % S != 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%" PRIu32 " cores do not split into %" PRIu32
		                    " equal groups",
		                    C, S);
	if (H + S > 254 || (P > 1 ? L + group : leaves) > 254 || P > 254)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "a switch would need more than 254 ports");
	snprintf(source, sizeof(source),
	         P > 1 ? "fat tree %" PRIu32 "x%" PRIu32 "x%" PRIu32
	                 " (%" PRIu32 " aggregation switches per pod, %" PRIu32
	                 " cores)"
	               : "fat tree %" PRIu32 "x%" PRIu32 "x%" PRIu32
	                 " (%" PRIu32 " spines)",
	         P, L, H, S, C);
	leaf = calloc(leaves, sizeof(*leaf));
	agg = calloc(aggs, sizeof(*agg));
	core = calloc(P > 1 ? C : 1, sizeof(*core));
	if (!leaf || !agg || !core) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = tp_fabric_new(&f, source, true, err)) != TP_OK)
		goto out;
	for (uint32_t k = 0; k < leaves; k++) {
		snprintf(name, sizeof(name), "leaf%03" PRIu32, k + 1);
		if ((rc = tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0, H + S,
		                             name, &leaf[k], err)) != TP_OK)
			goto out;
	}
	for (uint32_t a = 0; a < aggs; a++) {
		snprintf(name, sizeof(name),
		         P > 1 ? "agg%03" PRIu32 : "spine%03" PRIu32, a + 1);
		if ((rc = tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0,
		                             P > 1 ? L + group : leaves, name,
		                             &agg[a], err)) != TP_OK)
			goto out;
	}
	for (uint32_t c = 0; P > 1 && c < C; c++) {
		snprintf(name, sizeof(name), "core%03" PRIu32, c + 1);
		if ((rc = tp_fabric_add_node(f, TP_FABRIC_SWITCH, 0, P, name,
		                             &core[c], err)) != TP_OK)
			goto out;
	}
	for (uint32_t h = 0; h < hosts; h++) {
		uint32_t ca;

		snprintf(name, sizeof(name), "n%04" PRIu32 " HCA-1", h + 1);
		if ((rc = tp_fabric_add_node(f, TP_FABRIC_CA, 0, 1, name, &ca,
		                             err)) != TP_OK ||
		    (rc = tp_fabric_link_ports(f, leaf[h / H], h % H + 1, ca, 1,
		                               err)) != TP_OK)
			goto out;
	}
	for (uint32_t k = 0; k < leaves; k++) {
		uint32_t pod = k / L;

		for (uint32_t s = 0; s < S; s++) {
			uint32_t a = P > 1 ? pod * S + s : s;
			uint32_t down = P > 1 ? k % L + 1 : k + 1;

			if ((rc = tp_fabric_link_ports(f, leaf[k], H + s + 1,
			                               agg[a], down, err)) !=
			    TP_OK)
				goto out;
		}
	}
	for (uint32_t a = 0; P > 1 && a < aggs; a++) {
		uint32_t pod = a / S, j = a % S;

		for (uint32_t g = 0; g < group; g++)
			if ((rc = tp_fabric_link_ports(
			         f, agg[a], L + g + 1, core[j * group + g],
			         pod + 1, err)) != TP_OK)
				goto out;
	}
	rc = tp_fabric_finish(f, NULL, err);
out:
	free(leaf);
	free(agg);
	free(core);
	if (rc != TP_OK) {
		tp_fabric_free(f);
		return rc;
	}
	*out = f;
	return TP_OK;
}

int tp_cli_load_fabric(const char *what, const char *spec,
		       const char *name_map, struct tp_fabric **fabric)
{
	tp_fabric_name_map *map = NULL;
	tp_error err = {0}, conf_err = {0};
	uint32_t dims[5];
	int n;

	*fabric = NULL;
	if ((n = parse_fabric_dims(spec, dims)) > 0) {
		if (build_fattree(dims, n, fabric, &err) != TP_OK)
			return tp_cli_usage_error(what, "--fabric %s: %s", spec,
						  err.message);
		return TP_EXIT_OK;
	}
	if (tp_cli_is_tree_spec(spec))
		return tp_cli_usage_error(what,
					  "--fabric '%s': expected PODSxLEAVESx"
					  "HOSTS[xSPINES[xCORES]] (e.g. 1x36x18) "
					  "or a file",
					  spec);
	if (name_map != NULL &&
	    tp_fabric_name_map_load(name_map, &map, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	if (tp_discover_load_cache(spec, map, fabric, &err) != TP_OK) {
		if (err.code == TP_ERR_IO) {
			tp_fabric_name_map_free(map);
			return tp_cli_fail(what, &err);
		}
		if (tp_discover_load_topology_conf(spec, fabric, &conf_err) !=
		    TP_OK) {
			tp_fabric_name_map_free(map);
			fprintf(stderr,
				"topoplace %s: --fabric %s: neither an ibnetdiscover "
				"cache (%s) nor a topology.conf (%s)\n",
				what, spec, err.message, conf_err.message);
			return TP_EXIT_FAILURE;
		}
	}
	tp_fabric_name_map_free(map);
	return TP_EXIT_OK;
}

/*
 * Read all of @path once (a pipe such as <(...) or /dev/stdin cannot be
 * opened twice) into @buf (caller frees) and say whether it starts with a
 * topoplace profile's magic.  The bound is the larger of the two readers'
 * defaults; each parser then applies its own.
 */
static tp_status read_sniffed(const char *path, char **buf, size_t *len,
                              bool *is_profile, tp_error *err)
{
	size_t max_text = tp_traffic_default_limits().max_file_bytes;
	size_t max_profile = tp_profile_default_limits().max_file_bytes;
	tp_status rc;

	rc = tp_file_read(path, NULL,
	                  max_text > max_profile ? max_text : max_profile, buf,
	                  len, err);
	if (rc != TP_OK)
		return rc;
	*is_profile = *len >= TP_PROFILE_MAGIC_BYTES &&
	              memcmp(*buf, TP_PROFILE_MAGIC, TP_PROFILE_MAGIC_BYTES) == 0;
	return TP_OK;
}

tp_status tp_cli_read_traffic(const char *path, struct tp_traffic **traffic,
			      tp_error *err)
{
	tp_traffic_limits lim = tp_traffic_default_limits();
	tp_profile *profile = NULL;
	bool is_profile;
	char *buf;
	size_t len;
	tp_status rc;

	*traffic = NULL;
	if ((rc = read_sniffed(path, &buf, &len, &is_profile, err)) != TP_OK)
		return rc;
	if (!is_profile) {
		rc = tp_traffic_parse(path, buf, len, &lim, traffic, err);
		free(buf);
		return rc;
	}
	rc = tp_profile_decode(path, (const uint8_t *)buf, len, NULL, &profile,
			       err);
	free(buf);
	if (rc != TP_OK)
		return rc;
	rc = tp_profile_to_traffic(profile, traffic, err);
	tp_profile_free(profile);
	if (rc != TP_OK)
		tp_error_prefix(err, "%s", path);
	return rc;
}

tp_status tp_cli_read_profile(const char *path, struct tp_profile **profile,
                              tp_error *err)
{
	bool is_profile;
	char *buf;
	size_t len;
	tp_status rc;

	if ((rc = read_sniffed(path, &buf, &len, &is_profile, err)) != TP_OK)
		return rc;
	if (is_profile)
		rc = tp_profile_decode(path, (const uint8_t *)buf, len, NULL,
		                       profile, err);
	free(buf);
	if (is_profile)
		return rc;
	/* A matrix text is imported by name: its header line and the
	 * collectives in @path.coll beside it belong to the profile. */
	return tp_profile_import_matrix(path, NULL, NULL, profile, err);
}

tp_status tp_cli_first_hosts(const struct tp_topo *topo, const char *fabric,
                             uint32_t ranks, uint32_t slots,
                             struct tp_remap_host **hosts, uint32_t *count,
                             tp_error *err)
{
	uint64_t need = ((uint64_t)ranks + slots - 1) / slots;

	if (need > tp_topo_host_count(topo))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%u ranks at %u per host need %llu hosts, "
		                    "fabric %s has %u",
		                    ranks, slots, (unsigned long long)need,
		                    fabric, tp_topo_host_count(topo));
	*hosts = malloc(need * sizeof(**hosts));
	if (!*hosts)
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < need; i++)
		(*hosts)[i] = (tp_remap_host){i, slots};
	*count = (uint32_t)need;
	return TP_OK;
}

tp_status tp_cli_make_mapping(const struct tp_topo *topo,
                              const struct tp_traffic *traffic,
                              const struct tp_remap_host *hosts,
                              uint32_t nhosts, const char *name, uint64_t seed,
                              uint32_t *rank_host, tp_error *err)
{
	tp_remap_method method;
	tp_remap_mapping m = {0};
	tp_status rc;

	if (tp_remap_method_parse(name, &method, NULL) != TP_OK)
		return tp_cli_read_mapping(topo, name, traffic->ranks,
		                           rank_host, err);
	rc = method == TP_REMAP_TOPO
	         ? tp_remap_compute(topo, traffic, hosts, nhosts, seed, NULL,
	                            &m, NULL, err)
	         : tp_remap_baseline(topo, traffic->ranks, hosts, nhosts,
	                             method, seed, &m, err);
	if (rc == TP_OK)
		memcpy(rank_host, m.rank_host,
		       (size_t)traffic->ranks * sizeof(*rank_host));
	tp_remap_mapping_free(&m);
	return rc;
}

tp_status tp_cli_hosts_add(void *hosts, const char *name, tp_error *err)
{
	tp_cli_hosts *h = hosts;

	if (h->count == h->cap) {
		uint32_t cap = h->cap ? 2 * h->cap : 64;
		char **p = realloc(h->names, cap * sizeof(*p));

		if (p == NULL)
			return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
		h->names = p;
		h->cap = cap;
	}
	h->names[h->count] = strdup(name);
	if (h->names[h->count] == NULL)
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	h->count++;
	return TP_OK;
}

void tp_cli_hosts_free(tp_cli_hosts *hosts)
{
	if (hosts == NULL)
		return;
	for (uint32_t i = 0; i < hosts->count; i++)
		free(hosts->names[i]);
	free(hosts->names);
	*hosts = (tp_cli_hosts){0};
}

/*
 * An imported mapping (Open MPI rankfile, Hydra machinefile or one host per
 * rank); the same reader as `topoplace cost --mapping FILE`.
 */
tp_status tp_cli_read_mapping(const struct tp_topo *topo, const char *path,
                              uint32_t ranks, uint32_t *rank_host,
                              tp_error *err)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	uint32_t next = 0, lineno = 0;
	int format = 0; /* 1 rankfile, 2 host:count, 3 host per line */
	uint8_t *set;
	tp_status rc = TP_OK;

	if (!f)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
		                    strerror(errno));
	set = calloc(ranks, 1);
	if (!set) {
		fclose(f);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	}
	while (rc == TP_OK && fgets(line, sizeof(line), f)) {
		char *s = line, *hash = strchr(line, '#'), host[256];
		unsigned long r, count = 1;
		int kind, used = 0;
		uint32_t h;

		lineno++;
		if (hash)
			*hash = '\0';
		s += strspn(s, " \t\r\n");
		if (!*s)
			continue;
		s[strcspn(s, "\r\n")] = '\0';
		if (!strncmp(s, "rank ", 5)) {
			unsigned long slot;

			kind = 1;
			if (sscanf(s, "rank %lu=%255[^ \t] slot=%lu %n", &r,
			           host, &slot, &used) != 3 ||
			    s[used]) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: expected "
				                  "'rank N=host slot=S'",
				                  path, lineno);
				break;
			}
		} else if (strchr(s, ':')) {
			kind = 2;
			if (sscanf(s, "%255[^: \t]:%lu %n", host, &count,
			           &used) != 2 ||
			    s[used] || count == 0) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: expected "
				                  "'host:count'",
				                  path, lineno);
				break;
			}
		} else {
			kind = 3;
			if (sscanf(s, "%255s %n", host, &used) != 1 ||
			    s[used]) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: expected one "
				                  "host name",
				                  path, lineno);
				break;
			}
		}
		if (format && kind != format) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: mixes mapping formats",
			                  path, lineno);
			break;
		}
		format = kind;
		h = tp_topo_find_host(topo, host);
		if (h == TP_TOPO_NONE) {
			rc = tp_error_set(err, TP_ERR_NOTFOUND,
			                  "%s: line %u: host '%s' is not in "
			                  "the fabric",
			                  path, lineno, host);
			break;
		}
		if (kind != 1)
			r = next;
		if (r >= ranks || count > ranks - r) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: rank %lu beyond the "
			                  "matrix's %u ranks",
			                  path, lineno,
			                  kind == 1 ? r : r + count - 1, ranks);
			break;
		}
		for (unsigned long k = 0; k < count; k++) {
			if (set[r + k]) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: rank %lu "
				                  "placed twice",
				                  path, lineno, r + k);
				break;
			}
			set[r + k] = 1;
			rank_host[r + k] = h;
		}
		next = (uint32_t)(r + count);
	}
	if (rc == TP_OK && ferror(f))
		rc = tp_error_set(err, TP_ERR_IO, "%s: read error", path);
	for (uint32_t r = 0; rc == TP_OK && r < ranks; r++)
		if (!set[r])
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: rank %u is not placed", path, r);
	fclose(f);
	free(set);
	return rc;
}
