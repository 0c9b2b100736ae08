/*
 * cli_cost.c: `topoplace cost`: compare mappings of one job side by side.
 *
 *   topoplace cost --matrix FILE --fabric PxLxH [--hosts LIST] [--slots N]
 *                  [--mapping block|cyclic|random|remap|FILE[,...]]...
 *                  [--params FILE] [--seed S]
 *
 * FILE is an imported mapping: an Open MPI rankfile (`rank N=host slot=S`),
 * a Hydra machinefile (`host:count`) or a SLURM_HOSTFILE (one host per
 * rank), as `topoplace remap` writes them.
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cost.h"
#include "remap.h"
#include "topo.h"
#include "traffic.h"

static const char cost_usage[] =
    "usage: topoplace cost --matrix FILE --fabric PODSxLEAVESxHOSTS\n"
    "                      [--hosts LIST] [--slots N] [--params FILE] "
    "[--seed S]\n"
    "                      [--mapping block|cyclic|random|remap|FILE"
    "[,...]]...\n";

#define MAX_MAPPINGS 16

/* An imported mapping: rank -> host (topo index); errors name file, line. */
static tp_status read_mapping(const tp_topo *topo, const char *path,
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

static void print_row_u64(const char *label, int n, const uint64_t *v)
{
	printf("%-22s", label);
	for (int i = 0; i < n; i++)
		printf(" %16llu", (unsigned long long)v[i]);
	putchar('\n');
}

/* @fixed: 3 decimals (ratios); otherwise 6 significant digits. */
static void print_row_double(const char *label, int n, const double *v,
                             int fixed)
{
	printf("%-22s", label);
	for (int i = 0; i < n; i++) {
		if (fixed)
			printf(" %16.3f", v[i]);
		else
			printf(" %16.6g", v[i]);
	}
	putchar('\n');
}

int tp_cli_cost(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"matrix", required_argument, NULL, 'm'},
	    {"fabric", required_argument, NULL, 'f'},
	    {"hosts", required_argument, NULL, 'H'},
	    {"slots", required_argument, NULL, 'n'},
	    {"mapping", required_argument, NULL, 'M'},
	    {"params", required_argument, NULL, 'p'},
	    {"seed", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "cost";
	const char *matrix = NULL, *fabric = NULL, *hostlist = NULL;
	const char *params_path = NULL;
	char *names[MAX_MAPPINGS], *mapping_arg[MAX_MAPPINGS];
	int nmap = 0, nargs = 0, c, rc = TP_EXIT_FAILURE;
	uint64_t slots = 1, seed = 1;
	uint32_t nhosts = 0;
	tp_topo *topo = NULL;
	tp_traffic *t = NULL;
	tp_remap_host *hosts = NULL;
	uint32_t *maps[MAX_MAPPINGS] = {NULL};
	tp_cost_report rep[MAX_MAPPINGS];
	tp_cost_params params = tp_cost_default_params();
	tp_error err = {0};

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			matrix = optarg;
			break;
		case 'f':
			fabric = optarg;
			break;
		case 'H':
			hostlist = optarg;
			break;
		case 'p':
			params_path = optarg;
			break;
		case 'M':
			if (nargs == MAX_MAPPINGS)
				return tp_cli_usage_error(
				    what, "too many --mapping options");
			mapping_arg[nargs++] = optarg;
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
			fputs(cost_usage, stdout);
			return TP_EXIT_OK;
		case ':':
			return tp_cli_usage_error(what, "%s needs a value",
			                          argv[optind - 1]);
		default:
			return tp_cli_usage_error(what, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!matrix || !fabric)
		return tp_cli_usage_error(what, "--matrix and --fabric are "
		                                "required (see --help)");
	/* Split "a,b" values; the strings stay in argv. */
	for (int i = 0; i < nargs; i++) {
		char *save = NULL;

		for (char *tok = strtok_r(mapping_arg[i], ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (nmap == MAX_MAPPINGS)
				return tp_cli_usage_error(
				    what, "more than %d mappings",
				    MAX_MAPPINGS);
			names[nmap++] = tok;
		}
	}
	if (nmap == 0) {
		static char def[4][8] = {"block", "cyclic", "random", "remap"};

		for (int i = 0; i < 4; i++)
			names[nmap++] = def[i];
	}
	if (params_path &&
	    tp_cost_params_read_file(params_path, &params, &err) != TP_OK)
		goto fail;
	if ((rc = tp_cli_load_topo(what, fabric, &topo)) != TP_EXIT_OK)
		goto out;
	if (tp_traffic_read_file(matrix, NULL, &t, &err) != TP_OK)
		goto fail;
	if (hostlist) {
		if (tp_remap_hosts_parse(topo, hostlist, (uint32_t)slots,
		                         &hosts, &nhosts, &err) != TP_OK)
			goto fail;
	} else {
		/* The first hosts of the fabric that hold the ranks. */
		uint64_t need = (t->ranks + slots - 1) / slots;

		if (need > tp_topo_host_count(topo)) {
			tp_error_set(&err, TP_ERR_INVALID,
			             "%u ranks at %llu per host need %llu "
			             "hosts, fabric %s has %u",
			             t->ranks, (unsigned long long)slots,
			             (unsigned long long)need, fabric,
			             tp_topo_host_count(topo));
			goto fail;
		}
		nhosts = (uint32_t)need;
		hosts = malloc(nhosts * sizeof(*hosts));
		if (!hosts) {
			tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
			goto fail;
		}
		for (uint32_t i = 0; i < nhosts; i++)
			hosts[i] = (tp_remap_host){i, (uint32_t)slots};
	}
	for (int i = 0; i < nmap; i++) {
		tp_remap_method method;
		tp_remap_mapping m = {0};
		tp_status st;

		maps[i] = malloc((size_t)t->ranks * sizeof(*maps[i]));
		if (!maps[i]) {
			tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if (tp_remap_method_parse(names[i], &method, NULL) != TP_OK) {
			if (read_mapping(topo, names[i], t->ranks, maps[i],
			                 &err) != TP_OK)
				goto fail;
		} else {
			st = method == TP_REMAP_TOPO
			         ? tp_remap_compute(topo, t, hosts, nhosts,
			                            seed, NULL, &m, NULL, &err)
			         : tp_remap_baseline(topo, t->ranks, hosts,
			                             nhosts, method, seed, &m,
			                             &err);
			if (st != TP_OK)
				goto fail;
			memcpy(maps[i], m.rank_host,
			       (size_t)t->ranks * sizeof(*maps[i]));
			tp_remap_mapping_free(&m);
		}
		if (tp_cost_evaluate(topo, t, maps[i], &params, &rep[i], NULL,
		                     NULL, &err) != TP_OK)
			goto fail;
	}
	printf("matrix %s: %u ranks, fabric %s, %u hosts x %llu slots, "
	       "seed %llu\n",
	       matrix, t->ranks, fabric, nhosts, (unsigned long long)slots,
	       (unsigned long long)seed);
	printf("%-22s", "mapping");
	for (int i = 0; i < nmap; i++) {
		const char *base = strrchr(names[i], '/');

		printf(" %16.16s", base ? base + 1 : names[i]);
	}
	putchar('\n');
	{
		uint64_t v[MAX_MAPPINGS];
		double d[MAX_MAPPINGS];
		static const char *const cls[TP_COST_CLASSES] = {
		    "bytes on-node", "bytes same-leaf", "bytes same-pod",
		    "bytes other-pod"};

		for (int i = 0; i < nmap; i++)
			v[i] = rep[i].hop_bytes;
		print_row_u64("hop-bytes", nmap, v);
		for (int i = 0; i < nmap; i++)
			d[i] = rep[0].hop_bytes ? (double)rep[i].hop_bytes /
			                              (double)rep[0].hop_bytes
			                        : 1.0;
		print_row_double("  ratio to first", nmap, d, 1);
		for (int k = 0; k < TP_COST_CLASSES; k++) {
			for (int i = 0; i < nmap; i++)
				v[i] = rep[i].class_bytes[k];
			print_row_u64(cls[k], nmap, v);
		}
		for (int i = 0; i < nmap; i++)
			v[i] = rep[i].max_leaf_up_bytes;
		print_row_u64("max leaf up bytes", nmap, v);
		for (int i = 0; i < nmap; i++)
			v[i] = rep[i].max_leaf_down_bytes;
		print_row_u64("max leaf down bytes", nmap, v);
		printf("%-22s", "busiest leaf");
		for (int i = 0; i < nmap; i++)
			printf(" %16s",
			       rep[i].max_leaf == TP_TOPO_NONE
			           ? "-"
			           : tp_topo_leaf_name(topo, rep[i].max_leaf));
		putchar('\n');
		for (int i = 0; i < nmap; i++)
			d[i] = rep[i].predicted_s;
		print_row_double("predicted time s", nmap, d, 0);
		for (int i = 0; i < nmap; i++)
			d[i] = rep[i].maxrate_s;
		print_row_double("  max-rate s", nmap, d, 0);
		for (int i = 0; i < nmap; i++)
			d[i] = rep[i].queue_s;
		print_row_double("  queue search s", nmap, d, 0);
		for (int i = 0; i < nmap; i++)
			d[i] = rep[i].contention_s;
		print_row_double("  contention s", nmap, d, 0);
	}
	rc = TP_EXIT_OK;
	goto out;
fail:
	rc = tp_cli_fail(what, &err);
out:
	for (int i = 0; i < nmap; i++)
		free(maps[i]);
	free(hosts);
	tp_traffic_free(t);
	tp_topo_free(topo);
	return rc;
}
