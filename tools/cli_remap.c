/*
 * cli_remap.c: `topoplace remap`: map a job's ranks onto its hosts and
 * write the launcher files.
 *
 *   topoplace remap --matrix FILE (--hosts LIST | --hostfile FILE)
 *                   [--slots N] --fabric PxLxH [--seed S]
 *                   [--rankfile OUT] [--machinefile OUT]
 *                   [--hostfile-out OUT] [--verbose]
 *
 * FILE (--matrix or its synonym --profile) is a topoplace profile or a
 * communication matrix text; tp_cli_read_traffic tells them apart.
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rankfile.h"
#include "remap.h"
#include "topo.h"
#include "tp_json.h"
#include "traffic.h"

static const char remap_usage[] =
    "usage: topoplace remap --matrix FILE (--hosts LIST | --hostfile FILE)\n"
    "                       [--slots N] --fabric PODSxLEAVESxHOSTS "
    "[--seed S]\n"
    "                       [--rankfile OUT] [--machinefile OUT] "
    "[--hostfile-out OUT]\n"
    "                       [--json] [--verbose]\n"
    "--matrix FILE (or --profile FILE): a topoplace profile or a matrix "
    "text file\n";

/*
 * A host file: one host per line, optionally `host:N` or `host slots=N`;
 * blank lines and # comments skipped.  Errors name file and line.
 */
static tp_status read_hostfile(const tp_topo *topo, const char *path,
                               uint32_t default_slots, tp_remap_host **hosts,
                               uint32_t *count, tp_error *err)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	uint32_t n = 0, cap = 0, lineno = 0;
	uint8_t *seen;
	tp_remap_host *h = NULL;
	tp_status rc = TP_OK;

	*hosts = NULL;
	*count = 0;
	if (!f)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
		                    strerror(errno));
	seen = calloc(tp_topo_host_count(topo), 1);
	if (!seen) {
		fclose(f);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *name, *rest;
		unsigned long slots = default_slots;
		uint32_t idx;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: longer than %zu "
			                  "characters",
			                  path, lineno, sizeof(line) - 2);
			break;
		}
		if ((rest = strchr(s, '#')))
			*rest = '\0';
		name = strtok(s, " \t\r\n");
		if (!name)
			continue;
		rest = strtok(NULL, " \t\r\n");
		{
			char *colon = strchr(name, ':');
			const char *num = NULL;
			char *end;

			if (colon) {
				*colon = '\0';
				num = colon + 1;
			} else if (rest && !strncmp(rest, "slots=", 6)) {
				num = rest + 6;
				rest = strtok(NULL, " \t\r\n");
			}
			if (rest) {
				rc = tp_error_set(err, TP_ERR_PARSE,
				                  "%s: line %u: unexpected "
				                  "'%s'",
				                  path, lineno, rest);
				break;
			}
			if (num) {
				errno = 0;
				slots = strtoul(num, &end, 10);
				if (errno || *end || end == num || !slots ||
				    slots > 1000000) {
					rc = tp_error_set(
					    err, TP_ERR_PARSE,
					    "%s: line %u: bad slot count "
					    "'%s'",
					    path, lineno, num);
					break;
				}
			}
		}
		idx = tp_topo_find_host(topo, name);
		if (idx == TP_TOPO_NONE) {
			rc = tp_error_set(err, TP_ERR_NOTFOUND,
			                  "%s: line %u: host '%s' is not in "
			                  "the fabric",
			                  path, lineno, name);
			break;
		}
		if (seen[idx]) {
			rc = tp_error_set(err, TP_ERR_PARSE,
			                  "%s: line %u: host '%s' listed "
			                  "twice",
			                  path, lineno, name);
			break;
		}
		seen[idx] = 1;
		if (n == cap) {
			tp_remap_host *g;

			cap = cap ? cap * 2 : 16;
			g = realloc(h, cap * sizeof(*h));
			if (!g) {
				rc = tp_error_set(err, TP_ERR_NOMEM,
				                  "%s: out of memory", path);
				break;
			}
			h = g;
		}
		h[n++] = (tp_remap_host){idx, (uint32_t)slots};
	}
	if (rc == TP_OK && ferror(f))
		rc = tp_error_set(err, TP_ERR_IO, "%s: read error", path);
	if (rc == TP_OK && n == 0)
		rc = tp_error_set(err, TP_ERR_PARSE, "%s: no host", path);
	fclose(f);
	free(seen);
	if (rc != TP_OK) {
		free(h);
		return rc;
	}
	*hosts = h;
	*count = n;
	return TP_OK;
}

static double ratio_to_block(const tp_remap_stats *st)
{
	return st->block_hop_bytes
	           ? (double)st->hop_bytes / (double)st->block_hop_bytes
	           : 1.0;
}

static void print_text(const tp_traffic *t, uint32_t nhosts, const char *fabric,
                       uint64_t seed, const tp_remap_stats *st)
{
	printf("ranks %u on %u hosts, fabric %s, seed %llu\n", t->ranks, nhosts,
	       fabric, (unsigned long long)seed);
	printf("hop-bytes before (block): %llu\n",
	       (unsigned long long)st->block_hop_bytes);
	printf("hop-bytes after (%s): %llu (%.3f of block)\n", st->chosen,
	       (unsigned long long)st->hop_bytes, ratio_to_block(st));
}

/*
 * The schema topoplace.remap version 1 (topoplace-json(7)): the same
 * summary as the text, the files written and the mapping itself, rank by
 * rank, so a script needs no rankfile parser.
 */
static tp_status print_json(const tp_topo *topo, const tp_traffic *t,
                            uint32_t nhosts, const char *fabric, uint64_t seed,
                            const tp_remap_stats *st,
                            const tp_remap_mapping *map,
                            const char *const outputs[3], tp_error *err)
{
	static const char *const output_keys[3] = {"rankfile", "machinefile",
	                                           "hostfile"};
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "remap", 1);
	tp_json_uint(&j, "ranks", t->ranks);
	tp_json_uint(&j, "hosts", nhosts);
	tp_json_string(&j, "fabric", fabric);
	tp_json_uint(&j, "seed", seed);
	tp_json_string(&j, "method", st->chosen);
	tp_json_uint(&j, "block_hop_bytes", st->block_hop_bytes);
	tp_json_uint(&j, "hop_bytes", st->hop_bytes);
	tp_json_double(&j, "ratio_to_block", ratio_to_block(st));
	tp_json_begin_object(&j, "files");
	for (int i = 0; i < 3; i++)
		tp_json_string(&j, output_keys[i], outputs[i]);
	tp_json_end_object(&j);
	tp_json_begin_array(&j, "mapping");
	for (uint32_t r = 0; r < map->ranks; r++) {
		tp_json_begin_object(&j, NULL);
		tp_json_uint(&j, "rank", r);
		tp_json_string(&j, "host",
		               tp_topo_host_name(topo, map->rank_host[r]));
		tp_json_uint(&j, "slot", map->rank_slot[r]);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_end_document(&j);
	return tp_json_finish(&j, err);
}

int tp_cli_remap(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"matrix", required_argument, NULL, 'm'},
	    {"profile", required_argument, NULL, 'm'},
	    {"hosts", required_argument, NULL, 'H'},
	    {"hostfile", required_argument, NULL, 'F'},
	    {"slots", required_argument, NULL, 'n'},
	    {"fabric", required_argument, NULL, 'f'},
	    {"seed", required_argument, NULL, 's'},
	    {"rankfile", required_argument, NULL, 'r'},
	    {"machinefile", required_argument, NULL, 'M'},
	    {"hostfile-out", required_argument, NULL, 'o'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "remap";
	const char *matrix = NULL, *hostlist = NULL, *hostfile = NULL;
	const char *fabric = NULL, *out_rankfile = NULL;
	const char *out_machinefile = NULL, *out_hostfile = NULL;
	uint64_t slots = 1, seed = 1;
	uint32_t nhosts = 0;
	int verbose = 0, json = 0, c, rc = TP_EXIT_FAILURE;
	tp_topo *topo = NULL;
	tp_traffic *t = NULL;
	tp_remap_host *hosts = NULL;
	tp_remap_mapping map = {0};
	tp_remap_stats st;
	tp_logger log;
	tp_error err = {0};

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			matrix = optarg;
			break;
		case 'H':
			hostlist = optarg;
			break;
		case 'F':
			hostfile = optarg;
			break;
		case 'f':
			fabric = optarg;
			break;
		case 'r':
			out_rankfile = optarg;
			break;
		case 'M':
			out_machinefile = optarg;
			break;
		case 'o':
			out_hostfile = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'n':
			if (tp_cli_parse_u64(what, "--slots", optarg, 1,
			                     1000000, &slots))
				return TP_EXIT_USAGE;
			break;
		case 's':
			if (tp_cli_parse_u64(what, "--seed", optarg, 0,
			                     UINT64_MAX, &seed))
				return TP_EXIT_USAGE;
			break;
		case 'h':
			fputs(remap_usage, stdout);
			return TP_EXIT_OK;
		default:
			return tp_cli_bad_option(what, c, argv, "");
		}
	}
	if (optind < argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!matrix || !fabric)
		return tp_cli_usage_error(what, "--matrix and --fabric are "
		                                "required (see --help)");
	if (!hostlist == !hostfile)
		return tp_cli_usage_error(what, "give one of --hosts and "
		                                "--hostfile");
	if ((rc = tp_cli_load_topo(what, fabric, &topo)) != TP_EXIT_OK)
		return rc;
	log = tp_cli_logger(verbose ? TP_LOG_DEBUG : TP_LOG_WARNING);
	if (tp_cli_read_traffic(matrix, &t, &err) != TP_OK)
		goto fail;
	if (hostlist ? tp_remap_hosts_parse(topo, hostlist, (uint32_t)slots,
	                                    &hosts, &nhosts, &err)
	             : read_hostfile(topo, hostfile, (uint32_t)slots, &hosts,
	                             &nhosts, &err))
		goto fail;
	if (tp_remap_compute(topo, t, hosts, nhosts, seed, &log, &map, &st,
	                     &err) != TP_OK)
		goto fail;
	if (out_rankfile &&
	    tp_rankfile_write(out_rankfile, topo, TP_RANKFILE_OPENMPI,
	                      map.ranks, map.rank_host, map.rank_slot,
	                      &err) != TP_OK)
		goto fail;
	if (out_machinefile &&
	    tp_rankfile_write(out_machinefile, topo, TP_RANKFILE_HYDRA,
	                      map.ranks, map.rank_host, map.rank_slot,
	                      &err) != TP_OK)
		goto fail;
	if (out_hostfile &&
	    tp_rankfile_write(out_hostfile, topo, TP_RANKFILE_SLURM, map.ranks,
	                      map.rank_host, map.rank_slot, &err) != TP_OK)
		goto fail;
	/* the summary after the files, so it never reports files not written */
	if (json) {
		const char *const outputs[3] = {out_rankfile, out_machinefile,
		                                out_hostfile};

		if (print_json(topo, t, nhosts, fabric, seed, &st, &map,
		               outputs, &err) != TP_OK)
			goto fail;
	} else {
		print_text(t, nhosts, fabric, seed, &st);
	}
	rc = TP_EXIT_OK;
	goto out;
fail:
	rc = tp_cli_fail(what, &err);
out:
	tp_remap_mapping_free(&map);
	free(hosts);
	tp_traffic_free(t);
	tp_topo_free(topo);
	return rc;
}
