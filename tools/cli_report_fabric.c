/*
 * cli_report_fabric.c: `topoplace report fabric`: the fabric drawn by
 * levels, hosts coloured by job, links by the load the jobs' profiles put
 * on them (report/fabric_view.h).  See topoplace-report(1).
 *
 *   topoplace report fabric (--fabric FILE|PxLxH[xS[xC]] | --live)
 *       [--ca DEV] [--port N] [--node-name-map FILE]
 *       [--routes auto|tables|dmodk]
 *       [--job NAME=HOSTLIST[,profile=FILE][,mapping=block|ours|FILE]
 *                           [,slots=N]]...
 *       [--slots N] [--seed S] [--aggregate | --per-host] [--size WxH]
 *       [--title TEXT] [--progress | --no-progress] [--json]
 *       -o FILE.svg|FILE.png
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "discover.h"
#include "fabric.h"
#include "fabric_view.h"
#include "hostlist.h"
#include "remap.h"
#include "route.h"
#include "topo.h"
#include "tp_json.h"
#include "traffic.h"

#define WHAT "report fabric"

static const char usage_text[] =
    "usage: topoplace report fabric (--fabric FILE|PxLxH[xS[xC]] | --live)\n"
    "           [--ca DEV] [--port N] [--node-name-map FILE]\n"
    "           [--routes auto|tables|dmodk]\n"
    "           [--job NAME=HOSTLIST[,profile=FILE]"
    "[,mapping=M][,slots=N]]...\n"
    "           (M: block, cyclic, random, ours, or a rankfile, machinefile\n"
    "           or host-per-rank file)\n"
    "           [--slots N] [--seed S] [--aggregate | --per-host] "
    "[--size WxH]\n"
    "           [--title TEXT] [--progress | --no-progress] [--json] "
    "-o FILE.svg|FILE.png\n"
    "  --slots N, slots=N  ranks per host (default 1; a mapping file places\n"
    "                      ranks itself, checked against N only when given)"
    "\n"
    "  --json              print the summary as one JSON document "
    "(topoplace-json(7))\n";

/* One --job argument, split, and what it becomes. */
struct job {
	char *arg;                   /* the copy the pointers below point in */
	const char *name, *hostlist; /* hostlist rebuilt without the keys */
	const char *profile, *mapping;
	uint32_t slots;     /* ranks per host from slots=; 0: not given */
	char *hosts_buf;    /* the hostlist parts joined */
	tp_cli_hosts hosts; /* the hostlist expanded */
	tp_traffic *traffic;
	uint32_t *rank_host; /* rank -> index into hosts */
};

struct progress_state {
	bool tty;
	const char *stage;
	int last_pct;
	bool open; /* a \r line is on the terminal */
};

static void on_progress(void *ctx, const char *stage, uint64_t done,
                        uint64_t total)
{
	struct progress_state *p = ctx;
	int pct = total ? (int)(100 * done / total) : 100;

	if (p->stage == stage && (pct - p->last_pct < (p->tty ? 1 : 25)) &&
	    done != total)
		return;
	if (p->stage == stage && pct == p->last_pct)
		return;
	p->stage = stage;
	p->last_pct = pct;
	if (p->tty) {
		fprintf(stderr,
		        "\rtopoplace %s: %s %3d%% (%" PRIu64 "/%" PRIu64 ")",
		        WHAT, stage, pct, done, total);
		p->open = done != total;
		if (done == total)
			fputc('\n', stderr);
	} else {
		fprintf(stderr,
		        "topoplace %s: %s %d%% (%" PRIu64 "/%" PRIu64 ")\n",
		        WHAT, stage, pct, done, total);
	}
	fflush(stderr);
}

static void job_free(struct job *j)
{
	tp_cli_hosts_free(&j->hosts);
	free(j->hosts_buf);
	free(j->arg);
	free(j->rank_host);
	tp_traffic_free(j->traffic);
}

/*
 * NAME=HOSTLIST[,profile=FILE][,mapping=M][,slots=N]: the hostlist may hold
 * commas itself (n[01-04,07],m1), so the keys are the comma-separated parts
 * that start with "profile=", "mapping=" or "slots=", outside brackets.
 */
static int parse_job(const char *text, struct job *j)
{
	char *eq, *p, *part;
	size_t len = 0;
	int depth = 0;

	memset(j, 0, sizeof(*j));
	j->arg = strdup(text);
	j->hosts_buf = calloc(strlen(text) + 1, 1);
	if (j->arg == NULL || j->hosts_buf == NULL) {
		fprintf(stderr, "topoplace %s: out of memory\n", WHAT);
		return TP_EXIT_FAILURE;
	}
	eq = strchr(j->arg, '=');
	if (eq == NULL || eq == j->arg)
		return tp_cli_usage_error(WHAT,
		                          "--job '%s': expected NAME=HOSTLIST"
		                          "[,profile=FILE][,mapping=M]",
		                          text);
	*eq = '\0';
	j->name = j->arg;
	part = eq + 1;
	for (p = eq + 1;; p++) {
		bool last;

		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		if ((*p != ',' || depth > 0) && *p != '\0')
			continue;
		last = *p == '\0';
		*p = '\0';
		if (!strncmp(part, "profile=", 8)) {
			j->profile = part + 8;
		} else if (!strncmp(part, "mapping=", 8)) {
			j->mapping = part + 8;
		} else if (!strncmp(part, "slots=", 6)) {
			char opt[300];
			uint64_t v;

			snprintf(opt, sizeof(opt), "--job %s: slots", j->name);
			if (tp_cli_parse_u64(WHAT, opt, part + 6, 1,
			                     TP_CLI_MAX_SLOTS, &v))
				return TP_EXIT_USAGE;
			j->slots = (uint32_t)v;
		} else if (strchr(part, '=') != NULL) {
			return tp_cli_usage_error(
			    WHAT,
			    "--job %s: unknown key '%s' (profile=, "
			    "mapping=, slots=)",
			    j->name, part);
		} else if (*part != '\0') {
			if (len > 0)
				j->hosts_buf[len++] = ',';
			memcpy(j->hosts_buf + len, part, strlen(part));
			len += strlen(part);
		}
		if (last)
			break;
		part = p + 1;
	}
	j->hostlist = j->hosts_buf;
	if (len == 0)
		return tp_cli_usage_error(WHAT, "--job %s: no hosts", j->name);
	if ((j->profile && !*j->profile) || (j->mapping && !*j->mapping))
		return tp_cli_usage_error(WHAT,
		                          "--job %s: empty profile= or "
		                          "mapping=",
		                          j->name);
	if ((j->mapping || j->slots) && !j->profile)
		return tp_cli_usage_error(WHAT,
		                          "--job %s: mapping= and slots= need "
		                          "profile=",
		                          j->name);
	return TP_EXIT_OK;
}

/*
 * A mapping file that leaves ranks out: say how many of the profile's ranks
 * it places rather than only the first one missing.  @topo_rank was filled
 * with TP_TOPO_NONE before the file was read, so what is still NONE was not
 * placed.  Other errors are left as they are.
 */
static void explain_short_mapping(const struct job *j,
                                  const uint32_t *topo_rank, tp_error *err)
{
	uint32_t ranks = j->traffic->ranks, placed = 0;

	if (err->code != TP_ERR_PARSE ||
	    strstr(err->message, " is not placed") == NULL)
		return;
	for (uint32_t r = 0; r < ranks; r++)
		placed += topo_rank[r] != TP_TOPO_NONE;
	tp_error_set(err, TP_ERR_INVALID,
	             "mapping %s places %" PRIu32 " ranks, but profile %s has "
	             "%" PRIu32 " (ranks 0 to %" PRIu32 ")",
	             j->mapping, placed, j->profile, ranks, ranks - 1);
}

/*
 * With @slots given, no host may run more ranks than that: a mapping file
 * is checked against it (methods are given it to fill hosts by).
 */
static tp_status check_slots(const struct job *j, const tp_topo *topo,
                             const uint32_t *topo_rank, uint32_t slots,
                             tp_error *err)
{
	uint32_t *count =
	    calloc((size_t)tp_topo_host_count(topo) + 1, sizeof(*count));
	tp_status rc = TP_OK;

	if (count == NULL)
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	for (uint32_t r = 0; r < j->traffic->ranks && rc == TP_OK; r++)
		if (++count[topo_rank[r]] > slots)
			rc = tp_error_set(err, TP_ERR_INVALID,
			                  "mapping %s puts more than %" PRIu32
			                  " ranks on %s (%" PRIu32
			                  " slot%s per host)",
			                  j->mapping, slots,
			                  tp_topo_host_name(topo, topo_rank[r]),
			                  slots, slots == 1 ? "" : "s");
	free(count);
	return rc;
}

/*
 * Where the job's ranks run, at most @slots per host (0: not given; 1 for
 * methods, no limit for a mapping file): block (ranks fill the listed hosts
 * in order, @slots each), cyclic or random (tp_remap_baseline), ours or
 * remap (tp_remap_compute) or a mapping file (tp_cli_read_mapping).  Fills
 * j->rank_host with indices into j->hosts.  More ranks than the hosts have
 * slots is an error naming the three figures, never a silent
 * oversubscription.
 */
static tp_status map_job(struct job *j, const tp_topo *topo, uint64_t seed,
                         uint32_t slots, tp_error *err)
{
	uint32_t ranks = j->traffic->ranks, *to_job = NULL, *topo_rank = NULL;
	uint32_t per_host = slots ? slots : 1; /* for the methods */
	const char *m = j->mapping ? j->mapping : "block";
	tp_remap_host *hosts = NULL;
	tp_remap_mapping map = {0};
	tp_remap_method method = TP_REMAP_BLOCK;
	bool is_file = false;
	tp_status rc = TP_OK;

	j->rank_host = calloc((size_t)ranks + 1, sizeof(*j->rank_host));
	to_job =
	    malloc(((size_t)tp_topo_host_count(topo) + 1) * sizeof(*to_job));
	hosts = calloc((size_t)j->hosts.count + 1, sizeof(*hosts));
	if (j->rank_host == NULL || to_job == NULL || hosts == NULL) {
		rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (uint32_t h = 0; h < tp_topo_host_count(topo); h++)
		to_job[h] = TP_FABRIC_NONE;
	for (uint32_t i = 0; i < j->hosts.count; i++) {
		uint32_t h = tp_topo_find_host(topo, j->hosts.names[i]);

		if (h == TP_TOPO_NONE) {
			rc = tp_error_set(err, TP_ERR_NOTFOUND,
			                  "host %s is not in the fabric",
			                  j->hosts.names[i]);
			goto out;
		}
		if (to_job[h] != TP_FABRIC_NONE) {
			rc = tp_error_set(err, TP_ERR_INVALID,
			                  "host %s listed twice",
			                  j->hosts.names[i]);
			goto out;
		}
		to_job[h] = i;
		hosts[i] = (tp_remap_host){h, per_host};
	}
	if (!strcmp(m, "ours"))
		method = TP_REMAP_TOPO;
	else if (tp_remap_method_parse(m, &method, NULL) != TP_OK)
		is_file = true;
	if (!is_file && (uint64_t)j->hosts.count * per_host < ranks) {
		rc = tp_error_set(
		    err, TP_ERR_INVALID,
		    "profile %s has %" PRIu32 " ranks; %" PRIu32 " hosts x "
		    "%" PRIu32 " slot%s per host hold only %" PRIu64
		    " (give more hosts, or slots=N / --slots N)",
		    j->profile, ranks, j->hosts.count, per_host,
		    per_host > 1 ? "s" : "",
		    (uint64_t)j->hosts.count * per_host);
		goto out;
	}
	if (!is_file && method == TP_REMAP_TOPO) {
		if ((rc = tp_remap_compute(topo, j->traffic, hosts,
		                           j->hosts.count, seed, NULL, &map,
		                           NULL, err)) != TP_OK)
			goto out;
		topo_rank = map.rank_host;
	} else if (!is_file) {
		rc = tp_remap_baseline(topo, ranks, hosts, j->hosts.count,
		                       method, seed, &map, err);
		if (rc != TP_OK)
			goto out;
		topo_rank = map.rank_host;
	} else {
		topo_rank = malloc(((size_t)ranks + 1) * sizeof(*topo_rank));
		if (topo_rank == NULL) {
			rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (uint32_t r = 0; r < ranks; r++)
			topo_rank[r] = TP_TOPO_NONE;
		rc = tp_cli_read_mapping(topo, m, ranks, topo_rank, err);
		if (rc != TP_OK) {
			explain_short_mapping(j, topo_rank, err);
			if (strncmp(err->message, "mapping ", 8) != 0)
				tp_error_prefix(err, "mapping");
		} else if (slots) {
			rc = check_slots(j, topo, topo_rank, slots, err);
		}
		if (rc != TP_OK) {
			free(topo_rank);
			goto out;
		}
	}
	for (uint32_t r = 0; r < ranks; r++) {
		uint32_t k = to_job[topo_rank[r]];

		if (k == TP_FABRIC_NONE) {
			rc = tp_error_set(
			    err, TP_ERR_INVALID,
			    "mapping %s places rank %" PRIu32
			    " on %s, not one of the job's hosts",
			    m, r, tp_topo_host_name(topo, topo_rank[r]));
			break;
		}
		j->rank_host[r] = k;
	}
	if (topo_rank != map.rank_host)
		free(topo_rank);
out:
	tp_remap_mapping_free(&map);
	free(hosts);
	free(to_job);
	return rc;
}

/* The most ranks of job @j on one of its hosts; 0 when unknown. */
static uint32_t most_per_host(const struct job *j)
{
	uint32_t *per_host, most = 0;

	per_host = calloc((size_t)j->hosts.count + 1, sizeof(*per_host));
	for (uint32_t r = 0; per_host != NULL && r < j->traffic->ranks; r++)
		if (++per_host[j->rank_host[r]] > most)
			most = per_host[j->rank_host[r]];
	free(per_host);
	return most;
}

/* "job NAME: R ranks on H hosts, at most K per host (MAPPING)". */
static void print_job(const struct job *j)
{
	uint32_t most;

	if (j->traffic == NULL)
		return;
	most = most_per_host(j);
	printf("job %s: %" PRIu32 " ranks on %" PRIu32 " hosts", j->name,
	       j->traffic->ranks, j->hosts.count);
	if (most > 0)
		printf(", at most %" PRIu32 " per host", most);
	printf(" (mapping %s)\n", j->mapping ? j->mapping : "block");
}

/* A busiest link of the picture, or null when nothing loaded it. */
static void json_busiest(tp_json *j, const char *key, const char *link,
                         uint64_t bytes)
{
	if (link[0] == '\0') {
		tp_json_null(j, key);
		return;
	}
	tp_json_begin_object(j, key);
	tp_json_string(j, "link", link);
	tp_json_uint(j, "bytes", bytes);
	tp_json_end_object(j);
}

/*
 * The schema topoplace.report-fabric version 1 (topoplace-json(7)): the
 * figures of the text's summary, the jobs with a profile, and the busiest
 * links.
 */
static int print_json(const tp_fabric_view_options *vo,
                      const tp_fabric_view_stats *st, const tp_fabric *f,
                      const struct job *jobs, size_t njobs)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "report-fabric", 1);
	tp_json_string(&j, "output", vo->path);
	tp_json_uint(&j, "width", st->width);
	tp_json_uint(&j, "height", st->height);
	tp_json_uint(&j, "hosts", tp_fabric_host_count(f));
	tp_json_bool(&j, "aggregated", st->aggregated);
	tp_json_uint(&j, "link_strokes", st->link_elements);
	tp_json_string(&j, "routes", st->modelled_routes ? "modelled" : "real");
	tp_json_begin_array(&j, "jobs");
	for (size_t i = 0; i < njobs; i++) {
		const struct job *job = &jobs[i];
		uint32_t most;

		if (job->traffic == NULL)
			continue;
		most = most_per_host(job);
		tp_json_begin_object(&j, NULL);
		tp_json_string(&j, "name", job->name);
		tp_json_uint(&j, "ranks", job->traffic->ranks);
		tp_json_uint(&j, "hosts", job->hosts.count);
		if (most > 0)
			tp_json_uint(&j, "most_per_host", most);
		else
			tp_json_null(&j, "most_per_host");
		tp_json_string(&j, "mapping",
		               job->mapping ? job->mapping : "block");
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	json_busiest(&j, "busiest_link",
	             st->max_port != TP_FABRIC_NONE ? st->busiest : "",
	             st->max_bytes);
	json_busiest(&j, "busiest_switch_link",
	             st->max_port != TP_FABRIC_NONE ? st->busiest_switch : "",
	             st->max_switch_bytes);
	tp_json_end_document(&j);
	return tp_cli_json_finish(WHAT, &j, TP_EXIT_OK);
}

static int parse_size(const char *text, uint32_t *w, uint32_t *h)
{
	char buf[64], *x;
	uint64_t a, b;

	snprintf(buf, sizeof(buf), "%s", text);
	x = strchr(buf, 'x');
	if (x == NULL)
		return tp_cli_usage_error(WHAT,
		                          "--size '%s': expected WIDTHxHEIGHT "
		                          "(e.g. 2400x1200)",
		                          text);
	*x = '\0';
	if (tp_cli_parse_u64(WHAT, "--size width", buf, 200, TP_CANVAS_MAX_SIDE,
	                     &a) ||
	    tp_cli_parse_u64(WHAT, "--size height", x + 1, 150,
	                     TP_CANVAS_MAX_SIDE, &b))
		return TP_EXIT_USAGE;
	*w = (uint32_t)a;
	*h = (uint32_t)b;
	return TP_EXIT_OK;
}

/* ---- options ------------------------------------------------------- */

/* The options of `report fabric`, as given (defaults filled in). */
struct fabric_report_opts {
	const char *fabric_spec; /* --fabric; NULL with --live */
	const char *ca, *map_path;
	const char *routes_mode; /* auto, tables or dmodk */
	const char *job_args[TP_FABRIC_VIEW_MAX_JOBS];
	size_t njobs;
	uint64_t seed, port, slots; /* slots 0: not given */
	int progress;               /* 1 --progress, 0 --no-progress, -1 */
	bool live, json, help;
	tp_fabric_view_options vo; /* -o, --size, --title, --aggregate */
};

enum {
	O_FABRIC = 256,
	O_LIVE,
	O_CA,
	O_PORT,
	O_MAP,
	O_ROUTES,
	O_JOB,
	O_SLOTS,
	O_SEED,
	O_AGG,
	O_PERHOST,
	O_SIZE,
	O_TITLE,
	O_PROGRESS,
	O_NOPROGRESS,
	O_JSON,
};

/* What the picture looks like: options of one getopt_long answer @c. */
static int parse_view_option(int c, const char *arg,
                             struct fabric_report_opts *o)
{
	switch (c) {
	case O_AGG:
		o->vo.aggregate = TP_FABRIC_VIEW_AGGREGATE_ALWAYS;
		break;
	case O_PERHOST:
		o->vo.aggregate = TP_FABRIC_VIEW_AGGREGATE_NEVER;
		break;
	case O_SIZE:
		return parse_size(arg, &o->vo.width, &o->vo.height);
	case O_TITLE:
		o->vo.title = arg;
		break;
	case O_PROGRESS:
		o->progress = 1;
		break;
	case O_NOPROGRESS:
		o->progress = 0;
		break;
	case O_JSON:
		o->json = true;
		break;
	default: /* 'o' */
		o->vo.path = arg;
		break;
	}
	return TP_EXIT_OK;
}

/* Which fabric, routes and jobs: options of one getopt_long answer @c. */
static int parse_input_option(int c, const char *arg,
                              struct fabric_report_opts *o)
{
	switch (c) {
	case O_FABRIC:
		o->fabric_spec = arg;
		break;
	case O_LIVE:
		o->live = true;
		break;
	case O_CA:
		o->ca = arg;
		break;
	case O_PORT:
		return tp_cli_parse_u64(WHAT, "--port", arg, 1, 254, &o->port);
	case O_MAP:
		o->map_path = arg;
		break;
	case O_ROUTES:
		if (strcmp(arg, "auto") && strcmp(arg, "tables") &&
		    strcmp(arg, "dmodk"))
			return tp_cli_usage_error(WHAT,
			                          "--routes '%s': expected "
			                          "auto, tables or dmodk",
			                          arg);
		o->routes_mode = arg;
		break;
	case O_JOB:
		if (o->njobs == TP_FABRIC_VIEW_MAX_JOBS)
			return tp_cli_usage_error(WHAT,
			                          "more than %u --job options",
			                          TP_FABRIC_VIEW_MAX_JOBS);
		o->job_args[o->njobs++] = arg;
		break;
	case O_SLOTS:
		return tp_cli_parse_slots(WHAT, arg, &o->slots);
	default: /* O_SEED */
		return tp_cli_parse_seed(WHAT, arg, &o->seed);
	}
	return TP_EXIT_OK;
}

/* The rules between options, checked once all are read. */
static int check_fabric_report_opts(const struct fabric_report_opts *o)
{
	tp_canvas_format fmt;
	tp_error err;

	if ((o->fabric_spec == NULL) == !o->live)
		return tp_cli_usage_error(WHAT, "give one of --fabric "
		                                "FILE|PxLxH and --live");
	if (o->vo.path == NULL)
		return tp_cli_usage_error(WHAT, "-o FILE.svg|FILE.png is "
		                                "required");
	if (tp_canvas_format_of(o->vo.path, &fmt, &err) != TP_OK)
		return tp_cli_usage_error(WHAT, "-o %s", err.message);
	if (!o->live && (o->ca != NULL || o->port != 0) &&
	    strcmp(o->routes_mode, "tables") != 0)
		return tp_cli_usage_error(WHAT,
		                          "--ca and --port go with --live "
		                          "or --routes tables");
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_fabric_report_opts(int argc, char **argv,
                                    struct fabric_report_opts *o)
{
	static const struct option lo[] = {
	    {"fabric", required_argument, NULL, O_FABRIC},
	    {"live", no_argument, NULL, O_LIVE},
	    {"ca", required_argument, NULL, O_CA},
	    {"port", required_argument, NULL, O_PORT},
	    {"node-name-map", required_argument, NULL, O_MAP},
	    {"routes", required_argument, NULL, O_ROUTES},
	    {"job", required_argument, NULL, O_JOB},
	    {"slots", required_argument, NULL, O_SLOTS},
	    {"seed", required_argument, NULL, O_SEED},
	    {"aggregate", no_argument, NULL, O_AGG},
	    {"per-host", no_argument, NULL, O_PERHOST},
	    {"size", required_argument, NULL, O_SIZE},
	    {"title", required_argument, NULL, O_TITLE},
	    {"progress", no_argument, NULL, O_PROGRESS},
	    {"no-progress", no_argument, NULL, O_NOPROGRESS},
	    {"json", no_argument, NULL, O_JSON},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc;

	*o = (struct fabric_report_opts){
	    .routes_mode = "auto", .seed = 1, .progress = -1};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if ((c >= O_FABRIC && c <= O_SEED))
			rc = parse_input_option(c, optarg, o);
		else if ((c >= O_AGG && c <= O_JSON) || c == 'o')
			rc = parse_view_option(c, optarg, o);
		else
			return tp_cli_bad_option(WHAT, c, argv, "");
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(WHAT, "unexpected argument '%s'",
		                          argv[optind]);
	return check_fabric_report_opts(o);
}

/* ---- run ------------------------------------------------------------ */

/* What `report fabric` built; fabric_report_run_free frees it. */
struct fabric_report_run {
	struct job jobs[TP_FABRIC_VIEW_MAX_JOBS];
	size_t nparsed; /* jobs[0 .. nparsed - 1] hold something to free */
	tp_fabric_view_job views[TP_FABRIC_VIEW_MAX_JOBS];
	bool need_topo; /* a job has a profile: ranks go on hosts */
	tp_fabric *f;
	tp_topo *topo;
	tp_routes *routes; /* NULL: modelled D-mod-k */
	tp_fabric_view_stats st;
};

static void fabric_report_run_free(struct fabric_report_run *r)
{
	for (size_t i = 0; i < r->nparsed; i++)
		job_free(&r->jobs[i]);
	tp_routes_free(r->routes);
	tp_topo_free(r->topo);
	tp_fabric_free(r->f);
}

/* The --job arguments split (usage errors name the argument). */
static int parse_jobs(const struct fabric_report_opts *o,
                      struct fabric_report_run *r)
{
	int status;

	for (size_t i = 0; i < o->njobs; i++) {
		status = parse_job(o->job_args[i], &r->jobs[i]);
		if (status != TP_EXIT_OK) {
			job_free(&r->jobs[i]);
			return status;
		}
		r->nparsed++;
		r->need_topo |= r->jobs[i].profile != NULL;
	}
	return TP_EXIT_OK;
}

/* The fabric (live or --fabric) and its routes: the switches' tables with
 * --routes tables, or live with auto (else modelled, said on stderr). */
static int load_report_fabric(const struct fabric_report_opts *o,
                              struct fabric_report_run *r)
{
	tp_error err = {0};
	int status;

	if (o->live) {
		tp_fabric_name_map *map = NULL;

		if (o->map_path != NULL &&
		    tp_fabric_name_map_load(o->map_path, &map, &err) != TP_OK)
			return tp_cli_fail(WHAT, &err);
		if (tp_discover_live(o->ca, (int)o->port, NULL, map, &r->f,
		                     &err) != TP_OK) {
			tp_fabric_name_map_free(map);
			return tp_cli_fail(WHAT, &err);
		}
		tp_fabric_name_map_free(map);
	} else if ((status = tp_cli_load_fabric(WHAT, o->fabric_spec,
	                                        o->map_path, &r->f)) !=
	           TP_EXIT_OK) {
		return status;
	}
	if (!strcmp(o->routes_mode, "tables") ||
	    (!strcmp(o->routes_mode, "auto") && o->live)) {
		if (tp_routes_read_live(r->f, o->ca, (int)o->port, &r->routes,
		                        &err) != TP_OK) {
			if (strcmp(o->routes_mode, "auto"))
				return tp_cli_fail(WHAT, &err);
			fprintf(stderr,
			        "topoplace %s: no forwarding tables (%s); "
			        "drawing modelled D-mod-k routes\n",
			        WHAT, err.message);
			r->routes = NULL;
		}
	}
	return TP_EXIT_OK;
}

/* Job @j's hosts and, with a profile, its traffic and rank -> host. */
static tp_status load_job(const struct fabric_report_opts *o,
                          const tp_topo *topo, struct job *j, tp_error *err)
{
	if (tp_hostlist_expand(j->hostlist, 1u << 20, tp_cli_hosts_add,
	                       &j->hosts, err) != TP_OK)
		return tp_error_prefix(err, "--job %s: hosts %s", j->name,
		                       j->hostlist);
	if (j->profile == NULL)
		return TP_OK;
	if (tp_cli_read_traffic(j->profile, &j->traffic, err) != TP_OK)
		return tp_error_prefix(err, "--job %s", j->name);
	if (j->traffic->count == 0 || tp_traffic_total_bytes(j->traffic) == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "--job %s: profile %s is empty (no "
		                    "bytes between ranks)",
		                    j->name, j->profile);
	if (map_job(j, topo, o->seed, j->slots ? j->slots : (uint32_t)o->slots,
	            err) != TP_OK)
		return tp_error_prefix(err, "--job %s", j->name);
	return TP_OK;
}

/* Every job loaded into r->views, then the picture drawn into -o. */
static int render_report_fabric(const struct fabric_report_opts *o,
                                struct fabric_report_run *r)
{
	tp_fabric_view_options vo = o->vo;
	struct progress_state ps = {0};
	tp_error err = {0};

	if (r->need_topo && tp_fabric_to_topo(r->f, &r->topo, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	for (size_t i = 0; i < o->njobs; i++) {
		struct job *j = &r->jobs[i];

		if (load_job(o, r->topo, j, &err) != TP_OK)
			return tp_cli_fail(WHAT, &err);
		r->views[i] = (tp_fabric_view_job){
		    j->name,        (const char *const *)j->hosts.names,
		    j->hosts.count, j->traffic,
		    j->rank_host,   j->traffic ? j->traffic->ranks : 0,
		};
	}
	ps.tty = isatty(STDERR_FILENO);
	ps.last_pct = -1;
	if (o->progress == 1 || (o->progress == -1 && ps.tty)) {
		vo.progress = on_progress;
		vo.progress_ctx = &ps;
	}
	if (tp_fabric_view_render(r->f, r->routes, r->views, o->njobs, &vo,
	                          &r->st, &err) != TP_OK) {
		if (ps.open)
			fputc('\n', stderr);
		return tp_cli_fail(WHAT, &err);
	}
	return TP_EXIT_OK;
}

/* ---- print ---------------------------------------------------------- */

/* The summary as text: what was written, the routes, jobs, busiest links. */
static int print_report_fabric_text(const struct fabric_report_opts *o,
                                    const struct fabric_report_run *r)
{
	const tp_fabric_view_stats *st = &r->st;
	char max[64];

	printf("wrote %s: %" PRIu32 "x%" PRIu32 ", %" PRIu32
	       " hosts %s, %" PRIu32 " link strokes (2 per link)%s\n",
	       o->vo.path, st->width, st->height, tp_fabric_host_count(r->f),
	       st->aggregated ? "aggregated by leaf" : "one by one",
	       st->link_elements,
	       st->aggregated ? " + 2 per leaf for its host links" : "");
	printf("routes: %s\n",
	       st->modelled_routes
	           ? "modelled routes (D-mod-k, not read from the fabric)"
	           : "real routes (the switches' forwarding tables)");
	for (size_t i = 0; i < o->njobs; i++)
		print_job(&r->jobs[i]);
	if (st->max_port != TP_FABRIC_NONE) {
		snprintf(max, sizeof(max), "%" PRIu64, st->max_bytes);
		printf("busiest link: %s %s bytes\n", st->busiest, max);
		if (st->busiest_switch[0] != '\0') {
			snprintf(max, sizeof(max), "%" PRIu64,
			         st->max_switch_bytes);
			printf("busiest switch link: %s %s bytes\n",
			       st->busiest_switch, max);
		}
	} else {
		printf("busiest link: none (no traffic)\n");
	}
	return fflush(stdout) == 0 ? TP_EXIT_OK : TP_EXIT_FAILURE;
}

int tp_cli_report_fabric(int argc, char **argv)
{
	struct fabric_report_opts o;
	struct fabric_report_run r = {.nparsed = 0};
	int status;

	if ((status = parse_fabric_report_opts(argc, argv, &o)) != TP_EXIT_OK)
		return status;
	if (o.help) {
		fputs(usage_text, stdout);
		return TP_EXIT_OK;
	}
	if ((status = parse_jobs(&o, &r)) == TP_EXIT_OK &&
	    (status = load_report_fabric(&o, &r)) == TP_EXIT_OK &&
	    (status = render_report_fabric(&o, &r)) == TP_EXIT_OK)
		status = o.json ? print_json(&o.vo, &r.st, r.f, r.jobs, o.njobs)
		                : print_report_fabric_text(&o, &r);
	fabric_report_run_free(&r);
	return status;
}
