/*
 * cli_cost.c: `topoplace cost`: compare mappings of one job side by side.
 *
 *   topoplace cost --matrix FILE --fabric PxLxH|FILE|live [--hosts LIST]
 *                  [--slots N] [--mapping block|cyclic|random|remap|FILE
 *                  [,...]]... [--params FILE] [--seed S]
 *                  [--routes dmodk|lft] [--ca DEV] [--port N] [--per-link]
 *                  [--json]
 *
 * --matrix FILE (or its synonym --profile) is a topoplace profile or a
 * communication matrix text; tp_cli_read_traffic tells them apart.
 *
 * A --mapping FILE is an imported mapping: an Open MPI rankfile
 * (`rank N=host slot=S`), a Hydra machinefile (`host:count`) or a
 * SLURM_HOSTFILE (one host per rank), as `topoplace remap` writes them.
 *
 * With a real fabric (an ibnetdiscover cache, a topology.conf, or `live`)
 * each mapping's traffic is also followed over the fabric's routes, read
 * from the switches (lft) or modelled (dmodk): the bytes on the busiest
 * switch link and which link it is, the bytes by link stage, and the
 * contention term from that busiest link instead of the leaf-uplink
 * estimate.  A PxLxH tree has no cables, so no routes.
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cost.h"
#include "discover.h"
#include "fabric.h"
#include "remap.h"
#include "route.h"
#include "topo.h"
#include "tp_json.h"
#include "traffic.h"

static const char cost_usage[] =
    "usage: topoplace cost --matrix FILE --fabric PODSxLEAVESxHOSTS|FILE|"
    "live\n"
    "                      [--hosts LIST] [--slots N] [--params FILE] "
    "[--seed S]\n"
    "                      [--mapping block|cyclic|random|remap|FILE"
    "[,...]]...\n"
    "                      [--routes dmodk|lft] [--ca DEV] [--port N] "
    "[--per-link]\n"
    "                      [--json]\n"
    "       topoplace cost --busy FILE --fabric FILE|PxLxHxSxC [--routing R] "
    "[--io-servers N]\n"
    "                      [--io-policy P]\n"
    "--matrix FILE (or --profile FILE): a topoplace profile or a matrix "
    "text file\n"
    "--fabric FILE (ibnetdiscover cache or topology.conf) or live also "
    "gives each\n"
    "mapping's link loads over the fabric's routes: dmodk (modelled; "
    "default for\n"
    "FILE) or lft (read from the switches; default for live).\n"
    "--busy FILE: predicted I/O link load and contention of the running "
    "jobs in FILE\n"
    "(topoplace-cost(1), RUNNING JOBS).\n";

#define MAX_MAPPINGS 16

/* How to get routes, for --fabric FILE|live. */
struct routes_opts {
	const char *ca; /* HCA for live discovery and lft; NULL: the first */
	int port;       /* its port; 0: the first active */
	int lft;        /* 1 lft, 0 dmodk, -1 not given */
	bool per_link;  /* print every loaded direction */
};

/*
 * The hierarchy of --fabric and, for a file or live, the fabric it comes
 * from (NULL for PxLxH).  Returns a TP_EXIT_* status; failures are printed.
 */
static int load_fabric(const char *what, const char *spec,
                       const struct routes_opts *o, tp_fabric **fabric,
                       tp_topo **topo)
{
	tp_error err;
	int rc;

	*fabric = NULL;
	*topo = NULL;
	if (tp_cli_is_tree_spec(spec))
		return tp_cli_load_topo(what, spec, topo);
	if (!strcmp(spec, "live")) {
		if (tp_discover_live(o->ca, o->port, NULL, NULL, fabric,
		                     &err) != TP_OK)
			return tp_cli_fail(what, &err);
	} else if ((rc = tp_cli_load_fabric(what, spec, NULL, fabric)) !=
	           TP_EXIT_OK) {
		return rc;
	}
	if (tp_fabric_to_topo(*fabric, topo, &err) != TP_OK) {
		tp_fabric_free(*fabric);
		*fabric = NULL;
		return tp_cli_fail(what, &err);
	}
	return TP_EXIT_OK;
}

/* The switches' tables (lft) or the D-mod-k model of @fabric. */
static tp_status load_routes(const tp_fabric *fabric,
                             const struct routes_opts *o, tp_routes **routes,
                             tp_error *err)
{
	tp_status st;

	if (o->lft != 1)
		return tp_routes_new_dmodk(fabric, routes, err);
	st = tp_routes_read_live(fabric, o->ca, o->port, routes, err);
	if (st != TP_OK)
		tp_error_prefix(err, "--routes lft");
	return st;
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

/* Whole bytes held in doubles (exact below 2^53), one column a mapping. */
static void print_row_bytes(const char *label, int n, const double *v)
{
	printf("%-22s", label);
	for (int i = 0; i < n; i++)
		printf(" %16.0f", v[i]);
	putchar('\n');
}

/* The table's rows of the routed link loads. */
static void print_link_rows(int nmap, const tp_link_load *links)
{
	static const char *const stage_row[TP_LINK_STAGES] = {
	    "link bytes host-leaf", "link bytes leaf-spine",
	    "link bytes spine-core", "link bytes other"};
	double d[MAX_MAPPINGS];

	for (int i = 0; i < nmap; i++)
		d[i] = links[i].max_fabric_bytes;
	print_row_bytes("max switch link bytes", nmap, d);
	for (int i = 0; i < nmap; i++)
		d[i] = links[i].loaded_dirs;
	print_row_bytes("loaded directions", nmap, d);
	for (int k = 0; k < TP_LINK_STAGES; k++) {
		for (int i = 0; i < nmap; i++)
			d[i] = links[i].stage[k].up_bytes +
			       links[i].stage[k].down_bytes;
		print_row_bytes(stage_row[k], nmap, d);
	}
}

/* The busiest switch link of each mapping by name, and with @per_link
 * every loaded direction as a key=value line. */
static void print_links(const tp_fabric *fabric, int nmap, char *const *names,
                        const tp_link_load *links, bool per_link)
{
	char text[256];

	printf("busiest switch link:\n");
	for (int i = 0; i < nmap; i++) {
		uint32_t port = links[i].max_fabric_port;

		tp_link_dir_name(fabric, port, text, sizeof(text));
		if (port == TP_FABRIC_NONE)
			printf("  %-16s -\n", tp_cli_base_name(names[i]));
		else
			printf("  %-16s %s %s, %.0f bytes\n",
			       tp_cli_base_name(names[i]), text,
			       tp_link_dir_is_up(fabric, port) ? "up" : "down",
			       links[i].max_fabric_bytes);
	}
	if (!per_link)
		return;
	for (int i = 0; i < nmap; i++) {
		for (uint32_t p = 0; p < links[i].port_count; p++) {
			if (links[i].port_bytes[p] <= 0)
				continue;
			printf("link: mapping=%s link=%s dir=%s bytes=%.0f\n",
			       tp_cli_base_name(names[i]),
			       tp_link_dir_name(fabric, p, text, sizeof(text)),
			       tp_link_dir_is_up(fabric, p) ? "up" : "down",
			       links[i].port_bytes[p]);
		}
	}
}

/* What one `topoplace cost` run compared, for the JSON form. */
struct cost_run {
	const char *matrix, *fabric;
	uint32_t ranks, hosts;
	uint64_t slots, seed;
	int nmap;
	char *const *names;
	const tp_cost_report *reports;
	const tp_link_load *links; /* NULL without routes */
	bool per_link;
	const tp_routes *routes;
};

static void json_link_dir(tp_json *j, const char *key, const tp_fabric *fab,
                          uint32_t port)
{
	char text[256];

	if (port == TP_FABRIC_NONE) {
		tp_json_null(j, key);
		return;
	}
	tp_json_begin_object(j, key);
	tp_json_string(j, "link",
	               tp_link_dir_name(fab, port, text, sizeof(text)));
	tp_json_string(j, "dir", tp_link_dir_is_up(fab, port) ? "up" : "down");
	tp_json_end_object(j);
}

/* The routed loads of one mapping (see tp_link_load). */
static void json_links(tp_json *j, const tp_fabric *fab, const tp_link_load *l,
                       bool per_link)
{
	static const char *const stage_key[TP_LINK_STAGES] = {
	    "host_leaf", "leaf_spine", "spine_core", "other"};
	char text[256];

	tp_json_begin_object(j, "links");
	tp_json_double(j, "max_switch_link_bytes", l->max_fabric_bytes);
	json_link_dir(j, "busiest_switch_link", fab, l->max_fabric_port);
	tp_json_uint(j, "loaded_directions", l->loaded_dirs);
	tp_json_begin_object(j, "stage_bytes");
	for (int k = 0; k < TP_LINK_STAGES; k++)
		tp_json_double(j, stage_key[k],
		               l->stage[k].up_bytes + l->stage[k].down_bytes);
	tp_json_end_object(j);
	if (per_link) {
		tp_json_begin_array(j, "per_link");
		for (uint32_t p = 0; p < l->port_count; p++) {
			if (l->port_bytes[p] <= 0)
				continue;
			tp_json_begin_object(j, NULL);
			tp_json_string(
			    j, "link",
			    tp_link_dir_name(fab, p, text, sizeof(text)));
			tp_json_string(j, "dir",
			               tp_link_dir_is_up(fab, p) ? "up"
			                                         : "down");
			tp_json_double(j, "bytes", l->port_bytes[p]);
			tp_json_end_object(j);
		}
		tp_json_end_array(j);
	}
	tp_json_end_object(j);
}

/*
 * The schema topoplace.cost version 1 (topoplace-json(7)): one object per
 * mapping with the rows of the text table.
 */
static tp_status print_json(const tp_fabric *fab, const tp_topo *topo,
                            const struct cost_run *run, tp_error *err)
{
	static const char *const class_key[TP_COST_CLASSES] = {
	    "on_node", "same_leaf", "same_pod", "other_pod"};
	const tp_cost_report *first = &run->reports[0];
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "cost", 1);
	tp_json_string(&j, "matrix", run->matrix);
	tp_json_uint(&j, "ranks", run->ranks);
	tp_json_string(&j, "fabric", run->fabric);
	tp_json_uint(&j, "hosts", run->hosts);
	tp_json_uint(&j, "slots", run->slots);
	tp_json_uint(&j, "seed", run->seed);
	if (run->routes)
		tp_json_string(&j, "routes",
		               tp_routes_kind_of(run->routes) == TP_ROUTES_LFT
		                   ? "lft"
		                   : "dmodk");
	else
		tp_json_null(&j, "routes");
	tp_json_begin_array(&j, "mappings");
	for (int i = 0; i < run->nmap; i++) {
		const tp_cost_report *r = &run->reports[i];

		tp_json_begin_object(&j, NULL);
		tp_json_string(&j, "mapping", tp_cli_base_name(run->names[i]));
		tp_json_uint(&j, "hop_bytes", r->hop_bytes);
		tp_json_double(&j, "ratio_to_first",
		               first->hop_bytes ? (double)r->hop_bytes /
		                                      (double)first->hop_bytes
		                                : 1.0);
		tp_json_begin_object(&j, "class_bytes");
		for (int k = 0; k < TP_COST_CLASSES; k++)
			tp_json_uint(&j, class_key[k], r->class_bytes[k]);
		tp_json_end_object(&j);
		tp_json_uint(&j, "max_leaf_up_bytes", r->max_leaf_up_bytes);
		tp_json_uint(&j, "max_leaf_down_bytes", r->max_leaf_down_bytes);
		tp_json_string(&j, "busiest_leaf",
		               r->max_leaf == TP_TOPO_NONE
		                   ? NULL
		                   : tp_topo_leaf_name(topo, r->max_leaf));
		if (run->links)
			json_links(&j, fab, &run->links[i], run->per_link);
		tp_json_begin_object(&j, "predicted_s");
		tp_json_double(&j, "total", r->predicted_s);
		tp_json_double(&j, "max_rate", r->maxrate_s);
		tp_json_double(&j, "queue_search", r->queue_s);
		tp_json_double(&j, "contention", r->contention_s);
		tp_json_end_object(&j);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_end_document(&j);
	return tp_json_finish(&j, err);
}

/* ---- options ------------------------------------------------------- */

/* The options of `topoplace cost`, as given (defaults filled in). */
struct cost_opts {
	tp_cli_job_opts job; /* --matrix, --fabric, --hosts, --slots, --seed */
	const char *params_path;
	char *names[MAX_MAPPINGS]; /* the mappings, "a,b" values split */
	int nmap;
	struct routes_opts ro;
	bool json, help;
};

/* One getopt_long answer @c into @o; --mapping values are kept whole in
 * @mapping_arg (split later). */
static int parse_cost_option(int c, char *arg, struct cost_opts *o,
                             char **mapping_arg, int *nargs)
{
	const char *what = "cost";
	uint64_t port;

	switch (c) {
	case 'p':
		o->params_path = arg;
		break;
	case 'M':
		if (*nargs == MAX_MAPPINGS)
			return tp_cli_usage_error(what,
			                          "too many --mapping options");
		mapping_arg[(*nargs)++] = arg;
		break;
	case 'r':
		if (!strcmp(arg, "lft"))
			o->ro.lft = 1;
		else if (!strcmp(arg, "dmodk"))
			o->ro.lft = 0;
		else
			return tp_cli_usage_error(
			    what, "--routes '%s': expected dmodk|lft", arg);
		break;
	case 'C':
		o->ro.ca = arg;
		break;
	case 'O':
		if (tp_cli_parse_u64(what, "--port", arg, 0, 254, &port))
			return TP_EXIT_USAGE;
		o->ro.port = (int)port;
		break;
	case 'L':
		o->ro.per_link = true;
		break;
	default: /* 'j' */
		o->json = true;
		break;
	}
	return TP_EXIT_OK;
}

/* The --mapping values split at commas into o->names (the strings stay in
 * argv); block, cyclic, random and remap when none was given. */
static int split_mappings(char **mapping_arg, int nargs, struct cost_opts *o)
{
	static char def[4][8] = {"block", "cyclic", "random", "remap"};

	for (int i = 0; i < nargs; i++) {
		char *save = NULL;

		for (char *tok = strtok_r(mapping_arg[i], ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (o->nmap == MAX_MAPPINGS)
				return tp_cli_usage_error(
				    "cost", "more than %d mappings",
				    MAX_MAPPINGS);
			o->names[o->nmap++] = tok;
		}
	}
	for (int i = 0; o->nmap == 0 && i < 4; i++)
		o->names[i] = def[i];
	if (o->nmap == 0)
		o->nmap = 4;
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_cost_opts(int argc, char **argv, struct cost_opts *o)
{
	static const struct option opts[] = {
	    {"matrix", required_argument, NULL, TP_CLI_OPT_TRAFFIC},
	    {"profile", required_argument, NULL, TP_CLI_OPT_TRAFFIC},
	    {"fabric", required_argument, NULL, TP_CLI_OPT_FABRIC},
	    {"hosts", required_argument, NULL, TP_CLI_OPT_HOSTS},
	    {"slots", required_argument, NULL, TP_CLI_OPT_SLOTS},
	    {"mapping", required_argument, NULL, 'M'},
	    {"params", required_argument, NULL, 'p'},
	    {"seed", required_argument, NULL, TP_CLI_OPT_SEED},
	    {"routes", required_argument, NULL, 'r'},
	    {"ca", required_argument, NULL, 'C'},
	    {"port", required_argument, NULL, 'O'},
	    {"per-link", no_argument, NULL, 'L'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "cost";
	char *mapping_arg[MAX_MAPPINGS];
	int nargs = 0, c, rc;

	*o = (struct cost_opts){.job = TP_CLI_JOB_OPTS_DEFAULT,
	                        .ro = {.lft = -1}};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (TP_CLI_IS_JOB_OPT(c))
			rc = tp_cli_parse_job_option(what, c, optarg, &o->job);
		else if (c != 0 && c < 256 && strchr("pMrCOLj", c))
			rc = parse_cost_option(c, optarg, o, mapping_arg,
			                       &nargs);
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
	if ((o->ro.lft != -1 || o->ro.per_link) &&
	    tp_cli_is_tree_spec(o->job.fabric))
		return tp_cli_usage_error(what,
		                          "--routes and --per-link need "
		                          "--fabric FILE or live (a PxLxH tree "
		                          "has no routes)");
	return split_mappings(mapping_arg, nargs, o);
}

/* ---- run ------------------------------------------------------------ */

/* What `cost` computed, one report per mapping; cost_work_free frees it. */
struct cost_work {
	tp_fabric *fab;    /* --fabric FILE|live, else NULL */
	tp_routes *routes; /* its routes; NULL for PxLxH */
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts;
	uint32_t nhosts;
	uint32_t *maps[MAX_MAPPINGS];
	tp_cost_report rep[MAX_MAPPINGS];
	tp_link_load links[MAX_MAPPINGS];
	tp_cost_params params;
};

static void cost_work_free(struct cost_work *w, int nmap)
{
	for (int i = 0; i < nmap; i++) {
		free(w->maps[i]);
		tp_link_load_free(&w->links[i]);
	}
	free(w->hosts);
	tp_traffic_free(w->t);
	tp_routes_free(w->routes);
	tp_fabric_free(w->fab);
	tp_topo_free(w->topo);
}

/* Mapping @i of @o computed and evaluated, and followed over the routes. */
static tp_status evaluate_mapping(const struct cost_opts *o,
                                  struct cost_work *w, int i, tp_error *err)
{
	const tp_traffic *t = w->t;
	tp_status st;

	w->maps[i] = malloc((size_t)t->ranks * sizeof(*w->maps[i]));
	if (!w->maps[i])
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	if ((st = tp_cli_make_mapping(w->topo, t, w->hosts, w->nhosts,
	                              o->names[i], o->job.seed, w->maps[i],
	                              err)) != TP_OK ||
	    (st = tp_cost_evaluate(w->topo, t, w->maps[i], &w->params,
	                           &w->rep[i], NULL, NULL, err)) != TP_OK)
		return st;
	if (!w->routes)
		return TP_OK;
	if (tp_cost_link_load(w->fab, w->routes, w->topo, t, w->maps[i],
	                      &w->links[i], err) != TP_OK)
		return tp_error_prefix(err, "mapping %s", o->names[i]);
	/* the routes say where the bytes go: no even-spread guess */
	tp_cost_link_contention(&w->rep[i], &w->params, &w->links[i]);
	return TP_OK;
}

/*
 * Read the inputs and evaluate every mapping.  Returns TP_EXIT_OK, or the
 * exit status of a failure already printed.
 */
static int run_cost(struct cost_opts *o, struct cost_work *w)
{
	const char *what = "cost";
	tp_error err = {0};
	int rc;

	w->params = tp_cost_default_params();
	if (o->params_path &&
	    tp_cost_params_read_file(o->params_path, &w->params, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	/* a live fabric's own tables are its real routes */
	if (o->ro.lft == -1)
		o->ro.lft = !strcmp(o->job.fabric, "live");
	rc = load_fabric(what, o->job.fabric, &o->ro, &w->fab, &w->topo);
	if (rc != TP_EXIT_OK)
		return rc;
	/* before any output, so that a fabric without tables fails cleanly */
	if ((w->fab &&
	     load_routes(w->fab, &o->ro, &w->routes, &err) != TP_OK) ||
	    tp_cli_read_traffic(o->job.traffic, &w->t, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	if ((o->job.hostlist
	         ? tp_remap_hosts_parse(w->topo, o->job.hostlist,
	                                (uint32_t)o->job.slots, &w->hosts,
	                                &w->nhosts, &err)
	         : tp_cli_first_hosts(w->topo, o->job.fabric, w->t->ranks,
	                              (uint32_t)o->job.slots, &w->hosts,
	                              &w->nhosts, &err)) != TP_OK)
		return tp_cli_fail(what, &err);
	for (int i = 0; i < o->nmap; i++)
		if (evaluate_mapping(o, w, i, &err) != TP_OK)
			return tp_cli_fail(what, &err);
	return TP_EXIT_OK;
}

/* ---- print ---------------------------------------------------------- */

/* The table's rows of @w's reports, one column a mapping. */
static void print_cost_rows(const struct cost_work *w, int nmap)
{
	static const char *const cls[TP_COST_CLASSES] = {
	    "bytes on-node", "bytes same-leaf", "bytes same-pod",
	    "bytes other-pod"};
	const tp_cost_report *rep = w->rep;
	uint64_t v[MAX_MAPPINGS];
	double d[MAX_MAPPINGS];

	for (int i = 0; i < nmap; i++)
		v[i] = rep[i].hop_bytes;
	print_row_u64("hop-bytes", nmap, v);
	for (int i = 0; i < nmap; i++)
		d[i] = rep[0].hop_bytes
		           ? (double)rep[i].hop_bytes / (double)rep[0].hop_bytes
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
		           : tp_topo_leaf_name(w->topo, rep[i].max_leaf));
	putchar('\n');
	if (w->routes)
		print_link_rows(nmap, w->links);
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

/* The comparison as a table: the job, the routes, the rows, the links. */
static void print_cost_text(const struct cost_opts *o,
                            const struct cost_work *w)
{
	printf("matrix %s: %u ranks, fabric %s, %u hosts x %llu slots, "
	       "seed %llu\n",
	       o->job.traffic, w->t->ranks, o->job.fabric, w->nhosts,
	       (unsigned long long)o->job.slots,
	       (unsigned long long)o->job.seed);
	if (w->routes)
		printf("routes: %s; contention from the busiest switch link\n",
		       tp_routes_kind_of(w->routes) == TP_ROUTES_LFT
		           ? "lft, read from the switches' forwarding tables"
		           : "dmodk, modelled (D-mod-k, not read from the "
		             "fabric)");
	printf("%-22s", "mapping");
	for (int i = 0; i < o->nmap; i++)
		printf(" %16.16s", tp_cli_base_name(o->names[i]));
	putchar('\n');
	print_cost_rows(w, o->nmap);
	if (w->routes)
		print_links(w->fab, o->nmap, o->names, w->links,
		            o->ro.per_link);
}

/* The comparison as text or JSON; the exit status. */
static int print_cost(const struct cost_opts *o, const struct cost_work *w)
{
	const struct cost_run run = {.matrix = o->job.traffic,
	                             .fabric = o->job.fabric,
	                             .ranks = w->t->ranks,
	                             .hosts = w->nhosts,
	                             .slots = o->job.slots,
	                             .seed = o->job.seed,
	                             .nmap = o->nmap,
	                             .names = o->names,
	                             .reports = w->rep,
	                             .links = w->routes ? w->links : NULL,
	                             .per_link = o->ro.per_link,
	                             .routes = w->routes};
	tp_error err = {0};

	if (!o->json) {
		print_cost_text(o, w);
		return TP_EXIT_OK;
	}
	if (print_json(w->fab, w->topo, &run, &err) != TP_OK)
		return tp_cli_fail("cost", &err);
	return TP_EXIT_OK;
}

int tp_cli_cost(int argc, char **argv)
{
	struct cost_opts o;
	struct cost_work w = {.nhosts = 0};
	int rc;

	/* --busy is another question (running jobs, not one job's
	 * mappings), with its own options: cli_cost_busy.c. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--busy") ||
		    !strncmp(argv[i], "--busy=", 7))
			return tp_cli_cost_busy(argc, argv);
	for (int i = 0; i < MAX_MAPPINGS; i++)
		w.links[i] = (tp_link_load){.port_bytes = NULL};
	if ((rc = parse_cost_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		fputs(cost_usage, stdout);
		return TP_EXIT_OK;
	}
	if ((rc = run_cost(&o, &w)) == TP_EXIT_OK)
		rc = print_cost(&o, &w);
	cost_work_free(&w, o.nmap);
	return rc;
}
