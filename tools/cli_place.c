/*
 * cli_place.c: `topoplace place`: which hosts (and I/O servers) a job would
 * get on a fat tree with a given occupancy, and why.
 *
 *   topoplace place --fabric PxLxH --nodes N [--policy leaf] [--class quiet]
 *                   [--busy FILE] [--job-id ID] [--budget-us US] [--allowed]
 *                   [--io-servers N [--io-policy spread] [--io-where beside]
 *                    [--seed S]]
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cli.h"
#include "ioserver.h"

#define WHAT "place"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: topoplace place --fabric PxLxH --nodes N [options]\n"
	    "  --fabric PxLxH      pods x leaves per pod x hosts per leaf "
	    "(1xLxH: 2-level)\n"
	    "  --nodes N           hosts wanted\n"
	    "  --policy P          %s (default leaf; auto is resolved by the "
	    "site)\n"
	    "  --class C           %s (default quiet)\n"
	    "  --busy FILE         occupancy: lines 'host jobid class', 'host "
	    "down',\n"
	    "                      'host reserved jobid class'; '#' comments\n"
	    "  --job-id ID         this job's id (default 1)\n"
	    "  --budget-us US      time budget per decision (default 0: none)\n"
	    "  --allowed           print the candidate set a scheduler may "
	    "pick from\n"
	    "  --io-servers N      also place N I/O servers for the job\n"
	    "  --io-policy P       %s (default spread)\n"
	    "  --io-where W        among|beside the job's hosts (default "
	    "beside)\n"
	    "  --seed S            seed of the random I/O policy (default 1)\n",
	    TP_PLACEMENT_CHOICES, TP_JOBCLASS_CHOICES, TP_IOSERVER_CHOICES);
}

static int parse_u32(const char *opt, const char *text, uint32_t min,
                     uint32_t *value)
{
	uint64_t v;
	int rc = tp_cli_parse_u64(WHAT, opt, text, min, UINT32_MAX, &v);

	if (rc == TP_EXIT_OK)
		*value = (uint32_t)v;
	return rc;
}

/* One occupancy line: "host jobid class" | "host down" |
 * "host reserved jobid class". */
static int read_busy(const char *path, const tp_topo *topo, tp_host_use *use)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned lineno = 0;
	int rc = TP_EXIT_OK;

	if (!f)
		return tp_cli_usage_error(WHAT, "--busy %s: %s", path,
		                          strerror(errno));
	while (rc == TP_EXIT_OK && fgets(line, sizeof(line), f)) {
		char *tok[5], *save = NULL, *s = line, *hash;
		int n = 0;
		uint32_t host, job;
		tp_host_use u = {0};
		tp_jobclass k;
		tp_error err;
		int at;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = tp_cli_usage_error(WHAT, "%s:%u: line too long",
			                        path, lineno);
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		while (n < 5 && (tok[n] = strtok_r(s, " \t\r\n", &save))) {
			s = NULL;
			n++;
		}
		if (n == 0)
			continue;
		host = tp_topo_find_host(topo, tok[0]);
		if (host == TP_TOPO_NONE) {
			rc = tp_cli_usage_error(
			    WHAT,
			    "%s:%u: unknown host '%s' (not in the fabric)",
			    path, lineno, tok[0]);
			break;
		}
		if (n == 2 && !strcmp(tok[1], "down")) {
			use[host].state = TP_HOST_DOWN;
			continue;
		}
		at = n >= 2 && !strcmp(tok[1], "reserved") ? 2 : 1;
		if (n != at + 2) {
			rc = tp_cli_usage_error(
			    WHAT,
			    "%s:%u: expected 'host jobid class', 'host down' "
			    "or 'host reserved jobid class'",
			    path, lineno);
			break;
		}
		{
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(tok[at], &end, 10);
			if (errno || *end || tok[at][0] == '-' ||
			    v > UINT32_MAX) {
				rc = tp_cli_usage_error(
				    WHAT, "%s:%u: job id '%s' is not a number",
				    path, lineno, tok[at]);
				break;
			}
			job = (uint32_t)v;
		}
		if (tp_jobclass_parse(tok[at + 1], &k, &err) != TP_OK) {
			rc = tp_cli_usage_error(WHAT, "%s:%u: %s", path, lineno,
			                        err.message);
			break;
		}
		u.state = at == 2 ? TP_HOST_RESERVED : TP_HOST_BUSY;
		u.job_id = job;
		u.job_class = k;
		use[host] = u;
	}
	if (rc == TP_EXIT_OK && ferror(f))
		rc = tp_cli_usage_error(WHAT, "--busy %s: read error", path);
	fclose(f);
	return rc;
}

/* Trailing digits of @name (at most 9, so the number fits a long). */
static size_t suffix_digits(const char *name, size_t len)
{
	size_t digits = 0;

	while (digits < len && digits < 9 && name[len - 1 - digits] >= '0' &&
	       name[len - 1 - digits] <= '9')
		digits++;
	return digits;
}

/* Print names as a Slurm hostlist: n[0001-0004,0009],io01. */
static void print_hostlist(const tp_topo *topo, const uint32_t *hosts,
                           uint32_t count)
{
	uint32_t i = 0, j;

	if (!count) {
		printf("(none)");
		return;
	}
	while (i < count) {
		const char *name = tp_topo_host_name(topo, hosts[i]);
		size_t len = strlen(name), digits = suffix_digits(name, len);
		size_t plen = len - digits;

		if (i)
			putchar(',');
		if (!digits) {
			fputs(name, stdout);
			i++;
			continue;
		}
		/* One bracket per run of names with this prefix and width. */
		for (j = i + 1; j < count; j++) {
			const char *nj = tp_topo_host_name(topo, hosts[j]);
			size_t lj = strlen(nj);

			if (lj != len || strncmp(nj, name, plen) ||
			    suffix_digits(nj, lj) != digits)
				break;
		}
		printf("%.*s%s", (int)plen, name, j - i > 1 ? "[" : "");
		for (uint32_t k = i; k < j;) {
			unsigned long first = strtoul(
			    tp_topo_host_name(topo, hosts[k]) + plen, NULL, 10);
			unsigned long last = first;
			uint32_t m = k + 1;

			while (m < j) {
				unsigned long v = strtoul(
				    tp_topo_host_name(topo, hosts[m]) + plen,
				    NULL, 10);

				if (v != last + 1)
					break;
				last = v;
				m++;
			}
			printf("%s%0*lu", k > i ? "," : "", (int)digits, first);
			if (last != first)
				printf("-%0*lu", (int)digits, last);
			k = m;
		}
		if (j - i > 1)
			putchar(']');
		i = j;
	}
}

static void print_names(const tp_topo *topo, const uint32_t *idx,
                        uint32_t count,
                        const char *(*name)(const tp_topo *, uint32_t))
{
	for (uint32_t i = 0; i < count; i++)
		printf("%s%s", i ? " " : "", name(topo, idx[i]));
	if (!count)
		printf("(none)");
}

/* Uplink load of the job's I/O under each server policy, for comparison. */
static int compare_io_loads(const tp_topo *topo, tp_ioserver_request rq,
                            const tp_alloc_result *job)
{
	printf("io-load: each job host writes 1 unit striped over %u servers; "
	       "busiest leaf downlink / pod downlink / leaves with uplink "
	       "traffic:\n",
	       rq.servers);
	for (int p = TP_IOSERVER_SPREAD; p <= TP_IOSERVER_RANDOM; p++) {
		tp_ioserver_result r;
		tp_io_load load;
		tp_error err;

		rq.policy = (tp_ioserver_policy)p;
		if (tp_ioserver_place(topo, &rq, &r, &err) != TP_OK) {
			printf("  %-8s  not possible: %s\n",
			       tp_ioserver_policy_name(rq.policy), err.message);
			continue;
		}
		if (tp_ioserver_load(topo, job->hosts, job->host_count,
		                     r.servers, r.server_count, 1.0, &load,
		                     &err) != TP_OK) {
			tp_ioserver_result_free(&r);
			return tp_cli_fail(WHAT, &err);
		}
		printf("  %-8s  %.2f (%s) / %.2f / %u\n",
		       tp_ioserver_policy_name(rq.policy),
		       load.max_leaf_down_bytes,
		       tp_topo_leaf_name(topo, load.max_leaf),
		       load.max_pod_down_bytes, load.loaded_leaves);
		tp_io_load_free(&load);
		tp_ioserver_result_free(&r);
	}
	return TP_EXIT_OK;
}

int tp_cli_place(int argc, char **argv)
{
	static const struct option options[] = {
	    {"fabric", required_argument, NULL, 'f'},
	    {"nodes", required_argument, NULL, 'n'},
	    {"policy", required_argument, NULL, 'p'},
	    {"class", required_argument, NULL, 'c'},
	    {"busy", required_argument, NULL, 'b'},
	    {"job-id", required_argument, NULL, 'j'},
	    {"budget-us", required_argument, NULL, 'B'},
	    {"allowed", no_argument, NULL, 'a'},
	    {"io-servers", required_argument, NULL, 's'},
	    {"io-policy", required_argument, NULL, 'P'},
	    {"io-where", required_argument, NULL, 'w'},
	    {"seed", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *fabric = NULL, *busy = NULL;
	uint32_t nodes = 0, budget = 0, servers = 0, seed = 1;
	tp_alloc_request rq = {.policy = TP_PLACEMENT_LEAF, .job_id = 1};
	tp_ioserver_request io = {.policy = TP_IOSERVER_SPREAD,
	                          .scope = TP_IOSERVER_BESIDE};
	bool want_allowed = false, have_nodes = false;
	tp_topo *topo = NULL;
	tp_host_use *use = NULL;
	tp_alloc_result res = {0};
	tp_error err;
	tp_status st;
	int opt, rc = TP_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			fabric = optarg;
			break;
		case 'n':
			rc = parse_u32("--nodes", optarg, 1, &nodes);
			have_nodes = true;
			break;
		case 'p':
			if (tp_placement_parse(optarg, &rq.policy, &err))
				rc = tp_cli_usage_error(WHAT, "--policy: %s",
				                        err.message);
			break;
		case 'c':
			if (tp_jobclass_parse(optarg, &rq.job_class, &err))
				rc = tp_cli_usage_error(WHAT, "--class: %s",
				                        err.message);
			break;
		case 'b':
			busy = optarg;
			break;
		case 'j':
			rc = parse_u32("--job-id", optarg, 0, &rq.job_id);
			break;
		case 'B':
			rc = parse_u32("--budget-us", optarg, 0, &budget);
			break;
		case 'a':
			want_allowed = true;
			break;
		case 's':
			rc = parse_u32("--io-servers", optarg, 1, &servers);
			break;
		case 'P':
			if (tp_ioserver_policy_parse(optarg, &io.policy, &err))
				rc = tp_cli_usage_error(WHAT, "--io-policy: %s",
				                        err.message);
			break;
		case 'w':
			if (!strcmp(optarg, "among"))
				io.scope = TP_IOSERVER_AMONG;
			else if (!strcmp(optarg, "beside"))
				io.scope = TP_IOSERVER_BESIDE;
			else
				rc = tp_cli_usage_error(
				    WHAT,
				    "--io-where '%s': expected among|beside",
				    optarg);
			break;
		case 'S':
			rc = parse_u32("--seed", optarg, 0, &seed);
			break;
		case 'h':
			usage(stdout);
			return TP_EXIT_OK;
		default:
			return tp_cli_usage_error(WHAT,
			                          "unknown option or missing "
			                          "value: '%s' (try --help)",
			                          argv[optind - 1]);
		}
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(WHAT, "unexpected argument '%s'",
		                          argv[optind]);
	if (!fabric)
		return tp_cli_usage_error(WHAT, "--fabric PxLxH is required");
	if (!have_nodes)
		return tp_cli_usage_error(WHAT, "--nodes N is required");
	if (rq.policy == TP_PLACEMENT_AUTO)
		return tp_cli_usage_error(
		    WHAT, "--policy auto is resolved from topoplace.conf; give "
		          "leaf|shared|pack|spread|off");
	rc = tp_cli_load_topo(WHAT, fabric, &topo);
	if (rc != TP_EXIT_OK)
		return rc;
	use = calloc(tp_topo_host_count(topo), sizeof(*use));
	if (!use) {
		tp_topo_free(topo);
		tp_error_set(&err, TP_ERR_NOMEM, "no memory for occupancy");
		return tp_cli_fail(WHAT, &err);
	}
	if (busy)
		rc = read_busy(busy, topo, use);
	if (rc != TP_EXIT_OK)
		goto out;

	rq.nodes = nodes;
	rq.budget_us = budget;
	st = want_allowed ? tp_alloc_allowed(topo, use, &rq, &res, &err)
	                  : tp_alloc_choose(topo, use, &rq, &res, &err);
	if (st == TP_ERR_INVALID || st == TP_ERR_LIMIT) {
		rc = tp_cli_usage_error(WHAT, "%s", err.message);
		goto out;
	}
	if (st != TP_OK) {
		rc = tp_cli_fail(WHAT, &err);
		goto out;
	}
	if (!res.met) {
		fprintf(stderr, "topoplace %s: %s\n", WHAT, res.reason);
		rc = TP_EXIT_FAILURE;
		goto out;
	}
	printf("%s: ", want_allowed ? "allowed" : "hosts");
	print_hostlist(topo, res.hosts, res.host_count);
	printf("\nleaves: ");
	print_names(topo, res.leaves, res.leaf_count, tp_topo_leaf_name);
	printf("\npods: ");
	print_names(topo, res.pods, res.pod_count, tp_topo_pod_name);
	if (res.reserved_count) {
		printf("\nreserved: ");
		print_hostlist(topo, res.reserved, res.reserved_count);
	}
	printf("\nreason: %s\n", res.reason);

	if (servers) {
		tp_ioserver_result io_res;

		io.servers = servers;
		io.seed = seed;
		io.job_hosts = res.hosts;
		io.job_host_count = res.host_count;
		io.job_id = rq.job_id;
		io.use = use;
		if (tp_ioserver_place(topo, &io, &io_res, &err) != TP_OK) {
			rc = tp_cli_fail(WHAT, &err);
			goto out;
		}
		printf("io-servers: ");
		print_hostlist(topo, io_res.servers, io_res.server_count);
		printf("\nio-reason: %s\n", io_res.reason);
		tp_ioserver_result_free(&io_res);
		rc = compare_io_loads(topo, io, &res);
	}
out:
	tp_alloc_result_free(&res);
	free(use);
	tp_topo_free(topo);
	return rc;
}
