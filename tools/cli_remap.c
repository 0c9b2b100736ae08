/*
 * cli_remap.c: `topoplace remap`: map a job's ranks onto its hosts and
 * write the launcher files.
 *
 *   topoplace remap --matrix FILE (--hosts LIST | --hostfile FILE)
 *                   [--slots N] --fabric PxLxH [--seed S]
 *                   [--search auto|full|fast]
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
    "                       [--search auto|full|fast]\n"
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

/* The options of `topoplace remap`, as given (defaults filled in). */
struct remap_opts {
	tp_cli_job_opts job; /* --matrix, --fabric, --hosts, --slots, --seed */
	const char *hostfile;
	const char *outputs[3]; /* --rankfile, --machinefile, --hostfile-out */
	tp_remap_search search; /* --search, default auto */
	bool verbose, json, help;
};

/* One getopt_long answer @c into @o. */
static int parse_remap_option(int c, const char *arg, struct remap_opts *o)
{
	tp_error err;

	switch (c) {
	case 'F':
		o->hostfile = arg;
		break;
	case 'S':
		if (tp_remap_search_parse(arg, &o->search, &err) != TP_OK)
			return tp_cli_usage_error("remap", "--search %s: %s",
			                          arg, err.message);
		break;
	case 'r':
		o->outputs[0] = arg;
		break;
	case 'M':
		o->outputs[1] = arg;
		break;
	case 'o':
		o->outputs[2] = arg;
		break;
	case 'v':
		o->verbose = true;
		break;
	default: /* 'j' */
		o->json = true;
		break;
	}
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_remap_opts(int argc, char **argv, struct remap_opts *o)
{
	static const struct option opts[] = {
	    {"matrix", required_argument, NULL, TP_CLI_OPT_TRAFFIC},
	    {"profile", required_argument, NULL, TP_CLI_OPT_TRAFFIC},
	    {"hosts", required_argument, NULL, TP_CLI_OPT_HOSTS},
	    {"hostfile", required_argument, NULL, 'F'},
	    {"slots", required_argument, NULL, TP_CLI_OPT_SLOTS},
	    {"fabric", required_argument, NULL, TP_CLI_OPT_FABRIC},
	    {"seed", required_argument, NULL, TP_CLI_OPT_SEED},
	    {"search", required_argument, NULL, 'S'},
	    {"rankfile", required_argument, NULL, 'r'},
	    {"machinefile", required_argument, NULL, 'M'},
	    {"hostfile-out", required_argument, NULL, 'o'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "remap";
	int c, rc;

	*o = (struct remap_opts){.job = TP_CLI_JOB_OPTS_DEFAULT,
	                         .search = TP_REMAP_SEARCH_AUTO};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (TP_CLI_IS_JOB_OPT(c))
			rc = tp_cli_parse_job_option(what, c, optarg, &o->job);
		else if (c != 0 && c < 256 && strchr("FrMovjS", c))
			rc = parse_remap_option(c, optarg, o);
		else
			return tp_cli_bad_option(what, c, argv, "");
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->job.traffic || !o->job.fabric)
		return tp_cli_usage_error(what, "--matrix and --fabric are "
		                                "required (see --help)");
	if (!o->job.hostlist == !o->hostfile)
		return tp_cli_usage_error(what, "give one of --hosts and "
		                                "--hostfile");
	return TP_EXIT_OK;
}

/* What `remap` read and computed; remap_work_free frees it. */
struct remap_work {
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts;
	uint32_t nhosts;
	tp_remap_mapping map;
	tp_remap_stats st;
};

static void remap_work_free(struct remap_work *w)
{
	tp_remap_mapping_free(&w->map);
	free(w->hosts);
	tp_traffic_free(w->t);
	tp_topo_free(w->topo);
}

/* The mapping written to each launcher file asked for. */
static tp_status write_launcher_files(const struct remap_opts *o,
                                      const struct remap_work *w, tp_error *err)
{
	static const tp_rankfile_format format[3] = {
	    TP_RANKFILE_OPENMPI, TP_RANKFILE_HYDRA, TP_RANKFILE_SLURM};
	const tp_remap_mapping *map = &w->map;
	tp_status st;

	for (int i = 0; i < 3; i++)
		if (o->outputs[i] &&
		    (st = tp_rankfile_write(o->outputs[i], w->topo, format[i],
		                            map->ranks, map->rank_host,
		                            map->rank_slot, err)) != TP_OK)
			return st;
	return TP_OK;
}

/*
 * Read the fabric, traffic and hosts, map the ranks and write the files.
 * Returns TP_EXIT_OK, or the exit status of a failure already printed.
 */
static int run_remap(const struct remap_opts *o, struct remap_work *w)
{
	tp_logger log;
	tp_error err = {0};
	int rc;

	if ((rc = tp_cli_load_topo("remap", o->job.fabric, &w->topo)) !=
	    TP_EXIT_OK)
		return rc;
	log = tp_cli_logger(o->verbose ? TP_LOG_DEBUG : TP_LOG_WARNING);
	if (tp_cli_read_traffic(o->job.traffic, &w->t, &err) != TP_OK ||
	    (o->job.hostlist
	         ? tp_remap_hosts_parse(w->topo, o->job.hostlist,
	                                (uint32_t)o->job.slots, &w->hosts,
	                                &w->nhosts, &err)
	         : read_hostfile(w->topo, o->hostfile, (uint32_t)o->job.slots,
	                         &w->hosts, &w->nhosts, &err)) != TP_OK ||
	    tp_remap_compute_search(w->topo, w->t, w->hosts, w->nhosts,
	                            o->job.seed, o->search, &log, &w->map,
	                            &w->st, &err) != TP_OK ||
	    write_launcher_files(o, w, &err) != TP_OK)
		return tp_cli_fail("remap", &err);
	return TP_EXIT_OK;
}

int tp_cli_remap(int argc, char **argv)
{
	struct remap_opts o;
	struct remap_work w = {.nhosts = 0};
	tp_error err = {0};
	int rc;

	if ((rc = parse_remap_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		fputs(remap_usage, stdout);
		return TP_EXIT_OK;
	}
	rc = run_remap(&o, &w);
	/* the summary after the files, so it never reports files not written */
	if (rc == TP_EXIT_OK && !o.json)
		print_text(w.t, w.nhosts, o.job.fabric, o.job.seed, &w.st);
	else if (rc == TP_EXIT_OK &&
	         print_json(w.topo, w.t, w.nhosts, o.job.fabric, o.job.seed,
	                    &w.st, &w.map, o.outputs, &err) != TP_OK)
		rc = tp_cli_fail("remap", &err);
	remap_work_free(&w);
	return rc;
}
