/*
 * cli_cost_busy.c: `topoplace cost --busy`: what the cost model predicts
 * for a set of running jobs on one fabric (issue #15: the load benchmark's
 * per-placement predictions).
 *
 *   topoplace cost --busy FILE --fabric FILE [--routing adaptive|static]
 *                  [--io-servers N [--io-policy auto|POLICY]] [--json]
 *
 * FILE is the occupancy file of `topoplace place --busy` (cli_busy.c): a
 * line per host, "host jobid class", "host ioserver", ...  --fabric is a
 * file or a fat tree with real ports, PxLxH[xS[xC]] (tp_cli_load_fabric):
 * the links come from its cables, so a topology.conf (one link between two
 * switches) funnels every leaf's traffic into one uplink.
 *
 * The I/O traffic: every host of a running io_heavy job is an I/O client
 * that writes one unit (its host link's rate) striped evenly over the I/O
 * servers: the busy file's ioserver hosts, or --io-servers N placed
 * site-wide with --io-policy (auto: the policy for the routing,
 * tp_ioserver_policy_for_routing) on every host of the fabric, as if the
 * site's storage sat there.  tp_ioserver_link_load follows it over the
 * D-mod-K routes of the fabric as --routing takes them (cost.h,
 * tp_link_load_add_routed_path), so a link direction's load is in client
 * host links: above 1.0 the direction is oversubscribed.
 *
 * A comm_sensitive job of 2+ hosts sends to every other host of its own
 * (the uniform random-peer traffic of the measurements); its
 * contention is the largest I/O load on any link direction its traffic
 * uses (host links included), 0 when it shares none.  Jobs of other
 * classes, and 1-host jobs, send nothing over the fabric in this model.
 *
 * Everything is worked out before anything is printed, so an error leaves
 * stdout empty, in text and in JSON (topoplace.cost_busy, version 1).
 */
#include "tp_config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cli.h"
#include "cost.h"
#include "discover.h"
#include "fabric.h"
#include "ioserver.h"
#include "policy.h"
#include "route.h"
#include "topo.h"
#include "tp_json.h"

#define WHAT "cost"

static const char tp_cli_cost_busy_usage[] =
    "usage: topoplace cost --busy FILE --fabric FILE|PxLxH[xS[xC]] "
    "[--routing adaptive|static]\n"
    "                      [--io-servers N [--io-policy auto|"
    TP_IOSERVER_CHOICES "]]\n"
    "                      [--json]\n"
    "Predicted I/O link load and the contention of each comm_sensitive "
    "job of 2+\n"
    "hosts of the running jobs in FILE (the format of place --busy): "
    "io_heavy hosts\n"
    "each write one host link's rate over the I/O servers (FILE's "
    "ioserver hosts, or\n"
    "N placed site-wide); a job's contention is the largest I/O load on "
    "a link its\n"
    "traffic uses, in host links (above 1.0: oversubscribed).\n";

struct busy_opts {
	const char *busy, *fabric;
	tp_routing routing;
	uint32_t servers; /* --io-servers; 0: the busy file's */
	tp_ioserver_policy policy;
	bool policy_auto;
	bool json;
	bool help;
};

/* The prediction for one comm_sensitive job of 2+ hosts. */
struct busy_job {
	uint32_t job, hosts;
	double contention; /* largest I/O load on a direction it uses */
	uint32_t port;     /* that direction; TP_FABRIC_NONE: none */
};

/* The state of one prediction, freed by busy_work_free. */
struct busy_work {
	tp_fabric *fabric;
	tp_topo *topo;
	tp_routes *routes;
	tp_host_use *use;          /* by topo host */
	uint32_t *fabric_host;     /* topo host -> fabric host */
	uint32_t *servers, nservers; /* fabric hosts */
	uint32_t *server_hosts;      /* the same servers, topo hosts */
	bool servers_listed;         /* from the busy file, not placed */
	uint32_t *clients, nclients; /* fabric hosts */
	tp_io_link_load io;
	struct busy_job *jobs;
	uint32_t njobs;
};

static void busy_work_free(struct busy_work *w)
{
	tp_io_link_load_free(&w->io);
	free(w->jobs);
	free(w->clients);
	free(w->server_hosts);
	free(w->servers);
	free(w->fabric_host);
	free(w->use);
	tp_routes_free(w->routes);
	tp_topo_free(w->topo);
	tp_fabric_free(w->fabric);
}

static int parse_busy_opts(int argc, char **argv, struct busy_opts *o)
{
	static const struct option longopts[] = {
	    {"busy", required_argument, NULL, 'b'},
	    {"fabric", required_argument, NULL, 'f'},
	    {"routing", required_argument, NULL, 'R'},
	    {"io-servers", required_argument, NULL, 's'},
	    {"io-policy", required_argument, NULL, 'P'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	const char *policy = "auto";
	tp_error err;
	int c, rc = TP_EXIT_OK;

	*o = (struct busy_opts){.routing = TP_ROUTING_ADAPTIVE};
	optind = 1;
	opterr = 0;
	while (rc == TP_EXIT_OK &&
	       (c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->busy = optarg;
			break;
		case 'f':
			o->fabric = optarg;
			break;
		case 'R':
			if (tp_routing_parse(optarg, &o->routing, &err) != TP_OK)
				rc = tp_cli_usage_error(WHAT, "--routing: %s",
				                        err.message);
			break;
		case 's':
			rc = tp_cli_parse_u32(WHAT, "--io-servers", optarg, 1,
			                      UINT32_MAX, &o->servers);
			break;
		case 'P':
			policy = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			o->help = true;
			break;
		default:
			rc = tp_cli_bad_option(WHAT, c, argv, " (try --help)");
		}
	}
	if (rc != TP_EXIT_OK)
		return rc;
	if (o->help)
		return TP_EXIT_OK;
	if (optind < argc)
		return tp_cli_usage_error(WHAT, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->fabric || !strcmp(o->fabric, "live"))
		return tp_cli_usage_error(WHAT, "--busy needs --fabric FILE (a "
		                                "topology.conf or an "
		                                "ibnetdiscover cache) or "
		                                "PxLxH[xS[xC]]");
	if (tp_ioserver_policy_parse_auto(policy, &o->policy, &o->policy_auto,
	                                  &err) != TP_OK)
		return tp_cli_usage_error(WHAT, "--io-policy: %s", err.message);
	if (o->policy_auto)
		o->policy = tp_ioserver_policy_for_routing(o->routing);
	return TP_EXIT_OK;
}

/* The fabric, its hierarchy, routes and the busy file. */
static int load_state(const struct busy_opts *o, struct busy_work *w)
{
	uint32_t nhosts;
	uint32_t *all;
	tp_error err;
	tp_status st;
	int rc;

	if ((rc = tp_cli_load_fabric(WHAT, o->fabric, NULL, &w->fabric)) !=
	    TP_EXIT_OK)
		return rc;
	if (tp_fabric_to_topo(w->fabric, &w->topo, &err) != TP_OK ||
	    tp_routes_new_dmodk(w->fabric, &w->routes, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	nhosts = tp_topo_host_count(w->topo);
	w->use = calloc(nhosts + 1, sizeof(*w->use));
	w->fabric_host = calloc(nhosts + 1, sizeof(*w->fabric_host));
	all = calloc(nhosts + 1, sizeof(*all));
	if (!w->use || !w->fabric_host || !all) {
		free(all);
		tp_error_set(&err, TP_ERR_NOMEM, "no memory for %u hosts",
		             nhosts);
		return tp_cli_fail(WHAT, &err);
	}
	for (uint32_t h = 0; h < nhosts; h++)
		all[h] = h;
	st = tp_ioserver_fabric_hosts(w->topo, w->fabric, all, nhosts, "host",
	                              w->fabric_host, &err);
	free(all);
	if (st != TP_OK || tp_cli_read_busy(o->busy, w->topo, w->use, &err) !=
	                       TP_OK)
		return tp_cli_fail(WHAT, &err);
	return TP_EXIT_OK;
}

/* The busy file's ioserver hosts, or --io-servers N placed site-wide on
 * any host. */
static int choose_servers(const struct busy_opts *o, struct busy_work *w)
{
	uint32_t nhosts = tp_topo_host_count(w->topo), listed = 0;
	tp_ioserver_result placed = {0};
	tp_ioserver_request rq;
	tp_error err;

	for (uint32_t h = 0; h < nhosts; h++)
		listed += w->use[h].state == TP_HOST_IOSERVER;
	if (listed && o->servers)
		return tp_cli_usage_error(
		    WHAT, "%s lists %u I/O servers and --io-servers asks for "
		          "%u more: give them one way",
		    o->busy, listed, o->servers);
	if (!listed && !o->servers)
		return tp_cli_usage_error(WHAT, "%s lists no I/O server "
		                                "('host ioserver'): give "
		                                "--io-servers N",
		                          o->busy);
	w->servers = calloc(listed + o->servers + 1, sizeof(*w->servers));
	w->server_hosts =
	    calloc(listed + o->servers + 1, sizeof(*w->server_hosts));
	if (!w->servers || !w->server_hosts) {
		tp_error_set(&err, TP_ERR_NOMEM, "no memory for the servers");
		return tp_cli_fail(WHAT, &err);
	}
	if (listed) {
		w->servers_listed = true;
		for (uint32_t h = 0; h < nhosts; h++)
			if (w->use[h].state == TP_HOST_IOSERVER) {
				w->server_hosts[w->nservers] = h;
				w->servers[w->nservers++] = w->fabric_host[h];
			}
		return TP_EXIT_OK;
	}
	rq = (tp_ioserver_request){.servers = o->servers,
	                           .policy = o->policy,
	                           .scope = TP_IOSERVER_SITE,
	                           .job_id = TP_ALLOC_SITE_JOB,
	                           .seed = 1};
	if (tp_ioserver_place(w->topo, &rq, &placed, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	for (uint32_t i = 0; i < placed.server_count; i++) {
		w->server_hosts[w->nservers] = placed.servers[i];
		w->servers[w->nservers++] = w->fabric_host[placed.servers[i]];
	}
	tp_ioserver_result_free(&placed);
	return TP_EXIT_OK;
}

/* The hosts of running io_heavy jobs write one unit each to the servers. */
static int io_load(const struct busy_opts *o, struct busy_work *w)
{
	uint32_t nhosts = tp_topo_host_count(w->topo);
	tp_error err;

	w->clients = calloc(nhosts + 1, sizeof(*w->clients));
	if (!w->clients) {
		tp_error_set(&err, TP_ERR_NOMEM, "no memory for the clients");
		return tp_cli_fail(WHAT, &err);
	}
	for (uint32_t h = 0; h < nhosts; h++)
		if (w->use[h].state == TP_HOST_BUSY &&
		    w->use[h].job_class == TP_JOBCLASS_IO_HEAVY)
			w->clients[w->nclients++] = w->fabric_host[h];
	if (w->nclients == 0) {
		w->io.max_fabric_port = TP_FABRIC_NONE;
		return TP_EXIT_OK;
	}
	if (tp_ioserver_link_load(w->fabric, w->routes, o->routing, w->clients,
	                          w->nclients, w->servers, w->nservers, 1.0,
	                          0.0, &w->io, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	return TP_EXIT_OK;
}

/* The largest I/O load on a direction the MPI load @mpi uses; its port. */
static double shared_max(const tp_link_load *mpi, const tp_io_link_load *io,
                         uint32_t *port)
{
	double worst = 0;

	*port = TP_FABRIC_NONE;
	if (!io->port_bytes)
		return 0;
	for (uint32_t p = 0; p < mpi->port_count; p++)
		if (mpi->port_bytes[p] > 0 && io->port_bytes[p] > worst) {
			worst = io->port_bytes[p];
			*port = p;
		}
	return worst;
}

/* Job @job's hosts (fabric indices) into @hosts; their count. */
static uint32_t job_hosts(const struct busy_work *w, uint32_t job,
                          uint32_t *hosts)
{
	uint32_t n = 0;

	for (uint32_t h = 0; h < tp_topo_host_count(w->topo); h++)
		if (w->use[h].state == TP_HOST_BUSY && w->use[h].job_id == job)
			hosts[n++] = w->fabric_host[h];
	return n;
}

/* Comm_sensitive job @job: every host sends one byte to every other over
 * the routing's paths; the I/O load it shares, appended to w->jobs. */
static int job_contention(const struct busy_opts *o, struct busy_work *w,
                          uint32_t job, uint32_t *hosts)
{
	uint32_t n = job_hosts(w, job, hosts);
	struct busy_job *r;
	tp_link_load mpi;
	tp_status st;
	tp_error err;

	if (n < 2)
		return TP_EXIT_OK;
	st = tp_link_load_start(w->fabric, w->routes, &mpi, &err);
	for (uint32_t a = 0; st == TP_OK && a < n; a++)
		for (uint32_t b = 0; st == TP_OK && b < n; b++)
			st = tp_link_load_add_routed_path(
			    &mpi, w->fabric, w->routes, o->routing, hosts[a],
			    hosts[b], 1.0, &err);
	if (st != TP_OK) {
		tp_link_load_free(&mpi);
		tp_error_prefix(&err, "job %u", job);
		return tp_cli_fail(WHAT, &err);
	}
	r = &w->jobs[w->njobs++];
	r->job = job;
	r->hosts = n;
	r->contention = shared_max(&mpi, &w->io, &r->port);
	tp_link_load_free(&mpi);
	return TP_EXIT_OK;
}

/* Every comm_sensitive job once, in the order of its first host. */
static int all_contention(const struct busy_opts *o, struct busy_work *w)
{
	uint32_t nhosts = tp_topo_host_count(w->topo);
	uint32_t *hosts = calloc(nhosts + 1, sizeof(*hosts));
	int rc = TP_EXIT_OK;
	tp_error err;

	/* At most one job a host. */
	w->jobs = calloc(nhosts / 2 + 1, sizeof(*w->jobs));
	if (!hosts || !w->jobs) {
		tp_error_set(&err, TP_ERR_NOMEM, "no memory for a job's hosts");
		return tp_cli_fail(WHAT, &err);
	}
	for (uint32_t h = 0; rc == TP_EXIT_OK && h < nhosts; h++) {
		bool first = w->use[h].state == TP_HOST_BUSY &&
		             w->use[h].job_class == TP_JOBCLASS_COMM_SENSITIVE;

		for (uint32_t e = 0; first && e < h; e++)
			first = !(w->use[e].state == TP_HOST_BUSY &&
			          w->use[e].job_id == w->use[h].job_id);
		if (first)
			rc = job_contention(o, w, w->use[h].job_id, hosts);
	}
	free(hosts);
	return rc;
}

/* A link direction's name, "-" for none. */
static const char *dir_name(const struct busy_work *w, uint32_t port,
                            char *buf, size_t size)
{
	return port == TP_FABRIC_NONE
	           ? "-"
	           : tp_link_dir_name(w->fabric, port, buf, size);
}

static void print_text(const struct busy_opts *o, const struct busy_work *w)
{
	char name[128];

	if (w->servers_listed)
		printf("io-servers: %u from %s\n", w->nservers, o->busy);
	else {
		printf("io-servers: %u placed %s%s on any host:", w->nservers,
		       tp_ioserver_policy_name(o->policy),
		       o->policy_auto ? " (auto)" : "");
		for (uint32_t i = 0; i < w->nservers; i++)
			printf(" %s",
			       tp_topo_host_name(w->topo, w->server_hosts[i]));
		putchar('\n');
	}
	printf("io: routing=%s clients=%u servers=%u max_uplink=%.3f link=%s\n",
	       tp_routing_name(o->routing), w->nclients, w->nservers,
	       w->nclients ? w->io.max_fabric_bytes : 0.0,
	       dir_name(w, w->nclients ? w->io.max_fabric_port : TP_FABRIC_NONE,
	                name, sizeof(name)));
	for (uint32_t i = 0; i < w->njobs; i++)
		printf("job=%u hosts=%u contention=%.3f link=%s\n",
		       w->jobs[i].job, w->jobs[i].hosts, w->jobs[i].contention,
		       dir_name(w, w->jobs[i].port, name, sizeof(name)));
}

/* A link direction as JSON: its name, or null for none. */
static void json_dir(tp_json *j, const char *key, const struct busy_work *w,
                     uint32_t port)
{
	char name[128];

	tp_json_string(j, key,
	               port == TP_FABRIC_NONE
	                   ? NULL
	                   : dir_name(w, port, name, sizeof(name)));
}

static int print_json(const struct busy_opts *o, const struct busy_work *w)
{
	tp_json j;
	tp_error err;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "cost_busy", 1);
	tp_json_string(&j, "busy", o->busy);
	tp_json_string(&j, "fabric", o->fabric);
	tp_json_string(&j, "routing", tp_routing_name(o->routing));
	tp_json_begin_object(&j, "io_servers");
	tp_json_string(&j, "source", w->servers_listed ? "busy_file" : "placed");
	if (w->servers_listed)
		tp_json_null(&j, "policy");
	else
		tp_json_string(&j, "policy", tp_ioserver_policy_name(o->policy));
	tp_json_bool(&j, "policy_auto", !w->servers_listed && o->policy_auto);
	tp_json_begin_array(&j, "hosts");
	for (uint32_t i = 0; i < w->nservers; i++)
		tp_json_string(&j, NULL,
		               tp_topo_host_name(w->topo, w->server_hosts[i]));
	tp_json_end_array(&j);
	tp_json_end_object(&j);
	tp_json_begin_object(&j, "io");
	tp_json_uint(&j, "clients", w->nclients);
	tp_json_double(&j, "max_uplink",
	               w->nclients ? w->io.max_fabric_bytes : 0.0);
	json_dir(&j, "link", w,
	         w->nclients ? w->io.max_fabric_port : TP_FABRIC_NONE);
	tp_json_end_object(&j);
	tp_json_begin_array(&j, "jobs");
	for (uint32_t i = 0; i < w->njobs; i++) {
		tp_json_begin_object(&j, NULL);
		tp_json_uint(&j, "job", w->jobs[i].job);
		tp_json_uint(&j, "hosts", w->jobs[i].hosts);
		tp_json_double(&j, "contention", w->jobs[i].contention);
		json_dir(&j, "link", w, w->jobs[i].port);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_end_document(&j);
	if (tp_json_finish(&j, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	return TP_EXIT_OK;
}

int tp_cli_cost_busy(int argc, char **argv)
{
	struct busy_opts o;
	struct busy_work w = {.io = {.port_bytes = NULL}};
	int rc;

	if ((rc = parse_busy_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		fputs(tp_cli_cost_busy_usage, stdout);
		return TP_EXIT_OK;
	}
	if ((rc = load_state(&o, &w)) == TP_EXIT_OK &&
	    (rc = choose_servers(&o, &w)) == TP_EXIT_OK &&
	    (rc = io_load(&o, &w)) == TP_EXIT_OK &&
	    (rc = all_contention(&o, &w)) == TP_EXIT_OK) {
		if (o.json)
			rc = print_json(&o, &w);
		else
			print_text(&o, &w);
	}
	busy_work_free(&w);
	return rc;
}
