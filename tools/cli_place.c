/*
 * cli_place.c: `topoplace place`: which hosts (and I/O servers) a job would
 * get on a fat tree with a given occupancy, and why.
 *
 *   topoplace place --fabric PxLxH --nodes N [--policy leaf] [--class quiet]
 *                   [--busy FILE] [--job-id ID] [--budget-us US] [--allowed]
 *                   [--routing adaptive|static]
 *                   [--leaf-remainder compatible|whole]
 *                   [--io-servers N [--io-policy auto]
 *                    [--io-where beside|among|site]
 *                    [--seed S] [--io-write-bytes B] [--io-read-bytes B]
 *                    [--io-routes dmodk|lft [--ca DEV] [--port N]]
 *                    [--io-kv]]
 *
 * --io-policy auto (the default, as IoServerPolicy) is the policy for
 * --routing (tp_ioserver_policy_for_routing); the output says which and
 * why, and marks it among the policies compared.
 *
 * With I/O servers and a real fabric (--fabric FILE or live), the server
 * policies are also compared by the per-link load of the job's I/O over
 * the fabric's routes: read from the switches (lft) or modelled (dmodk),
 * taken as --routing takes them (static: each pair on its route;
 * adaptive: spread over its minimal paths' up-links), and ranked by
 * tp_io_link_load_order; the output says which.
 *
 * Site-wide servers (--io-where site) are there before any job: they are
 * placed over the occupancy first and the job is placed around them.
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
#include "discover.h"
#include "fabric.h"
#include "hostlist.h"
#include "ioserver.h"
#include "route.h"
#include "tp_json.h"

#define WHAT "place"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: topoplace place --fabric PxLxH|FILE|live --nodes N "
	    "[options]\n"
	    "  --fabric PxLxH      pods x leaves per pod x hosts per leaf "
	    "(1xLxH: 2-level)\n"
	    "  --nodes N           hosts wanted\n"
	    "  --policy P          %s (default leaf; auto is resolved by the "
	    "site)\n"
	    "  --class C           %s (default quiet)\n"
	    "  --busy FILE         occupancy: lines 'host jobid class', 'host "
	    "down',\n"
	    "                      'host notready' (back in a moment), 'host "
	    "reserved\n"
	    "                      jobid class', 'host ioserver [jobid]';\n"
	    "                      '#' comments; each host at most once\n"
	    "  --job-id ID         this job's id, from 1 (default 1)\n"
	    "  --budget-us US      time budget per decision (default 0: none;"
	    "\n"
	    "                      past it: no opinion, exit 3)\n"
	    "  --allowed           print the candidate set a scheduler may "
	    "pick from\n"
	    "  --routing R         %s: how the fabric routes (default "
	    "adaptive;\n"
	    "                      static opens I/O servers' leaves to "
	    "others)\n"
	    "  --leaf-remainder R  %s: where a leaf job's hosts that fill\n"
	    "                      no whole leaf go (default compatible, as "
	    "LeafRemainder)\n"
	    "  --io-servers N      also place N I/O servers for the job\n"
	    "  --io-policy P       auto|%s (default auto:\n"
	    "                      the policy for --routing, as "
	    "IoServerPolicy)\n"
	    "  --io-where W        beside|among the job's hosts, or site: "
	    "site-wide,\n"
	    "                      placed before the job (default beside)\n"
	    "  --seed S            seed of the random I/O policy (default 1)\n"
	    "  --io-write-bytes B  bytes each job host writes (default "
	    "1073741824)\n"
	    "  --io-read-bytes B   bytes each job host reads (default 0)\n"
	    "  --io-routes R       dmodk (modelled) or lft (read from the "
	    "switches);\n"
	    "                      default lft with --fabric live, else dmodk\n"
	    "  --ca DEV, --port N  HCA port for --fabric live / --io-routes "
	    "lft\n"
	    "  --io-kv             per-link loads as key=value lines\n"
	    "  --json              the decision as JSON (topoplace-json(7))\n"
	    "--fabric FILE|live compares the I/O policies link by link over "
	    "the "
	    "fabric's\nroutes (FILE: ibnetdiscover cache or topology.conf; "
	    "live: discovered now).\n",
	    TP_PLACEMENT_CHOICES, TP_JOBCLASS_CHOICES, TP_ROUTING_CHOICES,
	    TP_LEAF_REMAINDER_CHOICES, TP_IOSERVER_CHOICES);
}

/* Print names as a Slurm hostlist (tp_hostlist_compress, so sorted):
 * io01,n[0001-0004,0009]. */
static void print_hostlist(const tp_topo *topo, const uint32_t *hosts,
                           uint32_t count)
{
	const char **names;
	char *list = NULL;

	if (!count) {
		printf("(none)");
		return;
	}
	names = malloc(count * sizeof(*names));
	if (names) {
		for (uint32_t i = 0; i < count; i++)
			names[i] = tp_topo_host_name(topo, hosts[i]);
		(void)tp_hostlist_compress(names, count, &list, NULL);
	}
	free(names);
	if (list) {
		fputs(list, stdout);
	} else {
		/* Out of memory: the names one by one are a hostlist too. */
		for (uint32_t i = 0; i < count; i++)
			printf("%s%s", i ? "," : "",
			       tp_topo_host_name(topo, hosts[i]));
	}
	free(list);
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

/*
 * Uplink load of the job's I/O under each server policy, for comparison:
 * as text, or as the "io_loads" array of @j when it is not NULL.
 */
static int compare_io_loads(const tp_topo *topo, tp_ioserver_request rq,
                            const tp_alloc_result *job, tp_json *j)
{
	tp_ioserver_policy chosen = rq.policy;

	if (j)
		tp_json_begin_array(j, "io_loads");
	else
		printf("io-load: each job host writes 1 unit striped over %u "
		       "servers; busiest leaf downlink / pod downlink / "
		       "leaves with uplink traffic:\n",
		       rq.servers);
	for (int p = TP_IOSERVER_SPREAD; p < TP_IOSERVER_POLICY_COUNT; p++) {
		tp_ioserver_result r;
		tp_io_load load;
		tp_error err;
		const char *name;

		rq.policy = (tp_ioserver_policy)p;
		name = tp_ioserver_policy_name(rq.policy);
		if (tp_ioserver_place(topo, &rq, &r, &err) != TP_OK) {
			if (!j) {
				printf("  %-9s  not possible: %s\n", name,
				       err.message);
				continue;
			}
			tp_json_begin_object(j, NULL);
			tp_json_string(j, "policy", name);
			tp_json_string(j, "error", err.message);
			tp_json_end_object(j);
			continue;
		}
		if (tp_ioserver_load(topo, job->hosts, job->host_count,
		                     r.servers, r.server_count, 1.0, &load,
		                     &err) != TP_OK) {
			tp_ioserver_result_free(&r);
			return tp_cli_fail(WHAT, &err);
		}
		if (j) {
			tp_json_begin_object(j, NULL);
			tp_json_string(j, "policy", name);
			tp_json_double(j, "max_leaf_down",
			               load.max_leaf_down_bytes);
			tp_json_string(j, "max_leaf",
			               tp_topo_leaf_name(topo, load.max_leaf));
			tp_json_double(j, "max_pod_down",
			               load.max_pod_down_bytes);
			tp_json_uint(j, "loaded_leaves", load.loaded_leaves);
			tp_json_end_object(j);
		} else {
			printf("  %-9s  %.2f (%s) / %.2f / %u%s\n", name,
			       load.max_leaf_down_bytes,
			       tp_topo_leaf_name(topo, load.max_leaf),
			       load.max_pod_down_bytes, load.loaded_leaves,
			       p == (int)chosen ? "  (chosen)" : "");
		}
		tp_io_load_free(&load);
		tp_ioserver_result_free(&r);
	}
	if (j)
		tp_json_end_array(j);
	return TP_EXIT_OK;
}

/*
 * The decision as the schema topoplace.place version 1 (topoplace-json(7)):
 * "outcome" is placed, not_met (@res->reason says why) or no_opinion (the
 * budget ran out).  The caller adds the I/O servers and the policy
 * comparison (place_job_servers) and closes the document.
 */
static void json_decision(tp_json *j, const tp_topo *topo,
                          const tp_alloc_request *rq, bool allowed,
                          const char *outcome, const tp_alloc_result *res)
{
	tp_json_begin_document(j, "place", 1);
	tp_json_string(j, "outcome", outcome);
	tp_json_string(j, "policy", tp_placement_name(rq->policy));
	tp_json_string(j, "class", tp_jobclass_name(rq->job_class));
	tp_json_string(j, "routing", tp_routing_name(rq->routing));
	tp_json_string(j, "leaf_remainder",
	               tp_leaf_remainder_name(rq->leaf_remainder));
	tp_json_uint(j, "nodes", rq->nodes);
	tp_json_uint(j, "job_id", rq->job_id);
	tp_json_bool(j, "allowed_set", allowed);
	if (!res) {
		tp_json_null(j, "reason");
		return;
	}
	tp_json_string(j, "reason", res->reason);
	if (!res->met)
		return;
	tp_cli_json_alloc_sets(j, topo, res);
	if (res->remainder_hosts) {
		char summary[256];

		tp_alloc_remainder_summary(topo, res, summary, sizeof(summary));
		tp_json_string(j, "remainder", summary);
	} else {
		tp_json_null(j, "remainder");
	}
}

/* ---- per-link load over the fabric's routes ------------------------- */

struct io_links_opts {
	const char *ca;
	int port;
	bool lft; /* read the forwarding tables */
	bool kv;  /* key=value output */
	uint64_t write_bytes, read_bytes;
};

/* "leaf001[6]->spine002[1]" for the direction leaving through @port. */
static void port_text(const tp_fabric *f, uint32_t port, char *buf, size_t len)
{
	const tp_fabric_port *p, *q;

	if (port == TP_FABRIC_NONE) {
		snprintf(buf, len, "-");
		return;
	}
	p = tp_fabric_port_at(f, port);
	q = tp_fabric_peer(f, port);
	snprintf(buf, len, "%s[%" PRIu32 "]->%s[%" PRIu32 "]",
	         tp_fabric_node_at(f, p->node)->name, p->num,
	         tp_fabric_node_at(f, q->node)->name, q->num);
}

static const char *port_dir(const tp_fabric *f, uint32_t port)
{
	const tp_fabric_port *p, *q;

	if (port == TP_FABRIC_NONE)
		return "-";
	p = tp_fabric_port_at(f, port);
	q = tp_fabric_peer(f, port);
	return tp_fabric_node_at(f, q->node)->level >
	               tp_fabric_node_at(f, p->node)->level
	           ? "up"
	           : "down";
}

/* Bytes in binary units for the table ("3.0 GiB"). */
static const char *human(double bytes, char *buf, size_t len)
{
	static const char *const unit[] = {"B",   "KiB", "MiB",
	                                   "GiB", "TiB", "PiB"};
	int u = 0;

	while (bytes >= 1024 && u < 5) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.1f %s", bytes, unit[u]);
	return buf;
}

static void print_servers_plain(const tp_topo *topo, const uint32_t *hosts,
                                uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		printf("%s%s", i ? "," : "", tp_topo_host_name(topo, hosts[i]));
}

/* tp_io_stage_name as key=value keys */
static const char *const stage_keys[TP_IO_STAGES] = {"host_leaf", "leaf_spine",
                                                     "spine_core", "other"};

static void print_row_kv(const tp_topo *topo, const tp_fabric *f,
                         const tp_io_link_comparison *cmp,
                         const tp_io_policy_links *row)
{
	const tp_io_link_load *l = &row->load;
	char a[256], b[256];

	printf("io-link-policy: policy=%s chosen=%d routes=%s routing=%s",
	       tp_ioserver_policy_name(row->policy), row->policy == cmp->chosen,
	       cmp->kind == TP_ROUTES_LFT ? "lft" : "dmodk",
	       tp_routing_name(cmp->routing));
	if (row->status != TP_OK) {
		printf(" error=\"%s\"\n", row->error);
		return;
	}
	printf(" rank=%" PRIu32 " servers=", row->rank);
	print_servers_plain(topo, row->placement.servers,
	                    row->placement.server_count);
	port_text(f, l->max_fabric_port, a, sizeof(a));
	port_text(f, l->max_port, b, sizeof(b));
	printf(" max_link=%s max_link_dir=%s max_link_bytes=%.0f "
	       "max_any=%s max_any_bytes=%.0f links=%" PRIu32
	       " link_dirs=%" PRIu32 " link_bytes=%.0f fabric_bytes=%.0f",
	       a, port_dir(f, l->max_fabric_port), l->max_fabric_bytes, b,
	       l->max_bytes, l->loaded_links, l->loaded_dirs, l->link_bytes,
	       l->fabric_bytes);
	for (int s = 0; s < TP_IO_STAGES; s++)
		printf(" %s_up=%.0f %s_down=%.0f", stage_keys[s],
		       l->stage[s].up_bytes, stage_keys[s],
		       l->stage[s].down_bytes);
	printf("\n");
	for (uint32_t p = 0; p < l->port_count; p++) {
		bool up;

		if (l->port_bytes[p] <= 0)
			continue;
		port_text(f, p, a, sizeof(a));
		up = !strcmp(port_dir(f, p), "up");
		printf("io-link: policy=%s link=%s dir=%s bytes=%.0f\n",
		       tp_ioserver_policy_name(row->policy), a,
		       up ? "up" : "down", l->port_bytes[p]);
	}
}

static void print_row_table(const tp_topo *topo, const tp_fabric *f,
                            const tp_io_link_comparison *cmp,
                            const tp_io_policy_links *row)
{
	const tp_io_link_load *l = &row->load;
	const tp_io_stage_load *ls = &l->stage[TP_IO_STAGE_LEAF_SPINE];
	const tp_io_stage_load *sc = &l->stage[TP_IO_STAGE_SPINE_CORE];
	char link[256], h1[32], h2[32], h3[32], h4[32];

	printf("%c %-9s  ", row->policy == cmp->chosen ? '*' : ' ',
	       tp_ioserver_policy_name(row->policy));
	if (row->status != TP_OK) {
		printf("not possible: %s\n", row->error);
		return;
	}
	port_text(f, l->max_fabric_port, link, sizeof(link));
	if (l->max_fabric_port != TP_FABRIC_NONE) {
		size_t n = strlen(link);

		snprintf(link + n, sizeof(link) - n, " %s",
		         port_dir(f, l->max_fabric_port));
	}
	printf("%4" PRIu32 " %10s %-32s %10s %5" PRIu32 " %10s %10s  ",
	       row->rank, human(l->max_bytes, h4, sizeof(h4)), link,
	       human(l->max_fabric_bytes, h1, sizeof(h1)), l->loaded_links,
	       human(ls->up_bytes + ls->down_bytes, h2, sizeof(h2)),
	       human(sc->up_bytes + sc->down_bytes, h3, sizeof(h3)));
	print_hostlist(topo, row->placement.servers,
	               row->placement.server_count);
	printf("\n");
}

/* The fabric of --fabric FILE|live, or NULL for PxLxH (no routes). */
static int load_fabric(const char *spec, const struct io_links_opts *o,
                       tp_fabric **fabric)
{
	tp_error err, conf_err;

	*fabric = NULL;
	if (!strcmp(spec, "live")) {
		if (tp_discover_live(o->ca, o->port, NULL, NULL, fabric,
		                     &err) != TP_OK)
			return tp_cli_fail(WHAT, &err);
		return TP_EXIT_OK;
	}
	if (tp_cli_is_tree_spec(spec))
		return TP_EXIT_OK;
	/* tp_cli_load_topo read this file already: same order, same text */
	if (tp_discover_load_cache(spec, NULL, fabric, &err) == TP_OK)
		return TP_EXIT_OK;
	if (err.code == TP_ERR_IO)
		return tp_cli_fail(WHAT, &err);
	if (tp_discover_load_topology_conf(spec, fabric, &conf_err) == TP_OK)
		return TP_EXIT_OK;
	return tp_cli_fail(WHAT, &conf_err);
}

/* Real routes (the switches' tables) or the D-mod-k model, before any
 * output so that a fabric without tables fails cleanly. */
static int load_routes(const tp_fabric *fabric, const struct io_links_opts *o,
                       tp_routes **routes)
{
	tp_error err;

	if (o->lft) {
		if (tp_routes_read_live(fabric, o->ca, o->port, routes, &err) !=
		    TP_OK) {
			tp_error_prefix(&err, "--io-routes lft");
			return tp_cli_fail(WHAT, &err);
		}
	} else if (tp_routes_new_dmodk(fabric, routes, &err) != TP_OK) {
		return tp_cli_fail(WHAT, &err);
	}
	return TP_EXIT_OK;
}

/* The three server policies compared link by link over @fabric's routes. */
static int compare_io_links(const tp_topo *topo, const tp_fabric *fabric,
                            const tp_routes *routes, tp_routing routing,
                            const struct io_links_opts *o,
                            const tp_ioserver_request *rq,
                            const tp_alloc_result *job)
{
	tp_io_link_comparison cmp;
	tp_error err;
	char w[32], r[32];

	if (tp_ioserver_compare_links(
	        topo, fabric, routes, routing, rq, job->hosts, job->host_count,
	        (double)o->write_bytes, (double)o->read_bytes, &cmp,
	        &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (o->kv) {
		printf("io-link-traffic: clients=%" PRIu32
		       " write_bytes=%" PRIu64 " read_bytes=%" PRIu64
		       " servers=%" PRIu32 "\n",
		       job->host_count, o->write_bytes, o->read_bytes,
		       rq->servers);
		for (int p = TP_IOSERVER_SPREAD; p < TP_IOSERVER_POLICY_COUNT;
		     p++)
			print_row_kv(topo, fabric, &cmp, &cmp.rows[p]);
	} else {
		printf("io-links: routes %s; %s; %" PRIu32
		       " job hosts each write %s and read %s striped over "
		       "%" PRIu32 " servers (* = --io-policy; rank 1 = "
		       "predicted fastest: busiest link, then busiest switch "
		       "link):\n",
		       cmp.kind == TP_ROUTES_LFT
		           ? "read from the switches' forwarding tables"
		           : "modelled (D-mod-k, not read from the fabric)",
		       cmp.routing == TP_ROUTING_ADAPTIVE
		           ? "adaptive routing: between the leaves each pair "
		             "spread over its minimal paths' up-links"
		           : "static routing: each pair on its route",
		       job->host_count,
		       human((double)o->write_bytes, w, sizeof(w)),
		       human((double)o->read_bytes, r, sizeof(r)), rq->servers);
		printf("  %-9s  %4s %10s %-32s %10s %5s %10s %10s  %s\n",
		       "policy", "rank", "busiest", "busiest switch link",
		       "bytes", "links", "leaf-spine", "spine-core", "servers");
		for (int p = TP_IOSERVER_SPREAD; p < TP_IOSERVER_POLICY_COUNT;
		     p++)
			print_row_table(topo, fabric, &cmp, &cmp.rows[p]);
	}
	tp_io_link_comparison_free(&cmp);
	return TP_EXIT_OK;
}

/*
 * Site-wide servers are there before any job: place them over the
 * occupancy @use and mark them TP_HOST_IOSERVER in it, so that the job is
 * placed around them (a comm_sensitive job keeps out of their pods).
 * *before (caller frees) keeps the occupancy without them, for the
 * comparison of the policies (see compare_site_policies); @io is set up for
 * it.
 */
static int place_site_servers(const tp_topo *topo, tp_host_use *use,
                              tp_ioserver_request *io, tp_host_use **before,
                              tp_ioserver_result *placed)
{
	size_t bytes = sizeof(*use) * tp_topo_host_count(topo);
	tp_error err;

	*before = malloc(bytes);
	if (!*before) {
		tp_error_set(&err, TP_ERR_NOMEM,
		             "no memory for the occupancy of %u hosts",
		             tp_topo_host_count(topo));
		return tp_cli_fail(WHAT, &err);
	}
	memcpy(*before, use, bytes);
	io->job_id = TP_ALLOC_SITE_JOB;
	io->use = *before;
	if (tp_ioserver_place(topo, io, placed, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	for (uint32_t i = 0; i < placed->server_count; i++)
		use[placed->servers[i]] = (tp_host_use){
		    .state = TP_HOST_IOSERVER, .job_id = TP_ALLOC_SITE_JOB};
	return TP_EXIT_OK;
}

/* ---- options ------------------------------------------------------- */

/* The options of `topoplace place`, as given (defaults filled in). */
struct place_opts {
	const char *fabric, *busy;
	tp_alloc_request rq;    /* policy .. budget_us, as asked */
	tp_ioserver_request io; /* policy, scope, servers, seed */
	struct io_links_opts links;
	bool io_auto; /* --io-policy auto: io.policy from --routing */
	bool have_nodes;
	bool allowed;      /* --allowed: the candidate set, not a choice */
	bool routes_given; /* --io-routes */
	bool link_opts;    /* an option of the per-link comparison */
	bool json;
	bool help;
};

/* --port N: 0 (the first active) .. 254. */
static int parse_port(const char *text, int *port)
{
	uint32_t v = 0;
	int rc = tp_cli_parse_u32(WHAT, "--port", text, 0, UINT32_MAX, &v);

	if (rc == TP_EXIT_OK && v > 254)
		rc = tp_cli_usage_error(
		    WHAT, "--port '%s' is not a port number", text);
	*port = (int)v;
	return rc;
}

/* The I/O server and per-link options of one getopt_long answer @opt. */
static int parse_io_option(int opt, const char *arg, struct place_opts *o)
{
	tp_error err;

	switch (opt) {
	case 's':
		return tp_cli_parse_u32(WHAT, "--io-servers", arg, 1,
		                        UINT32_MAX, &o->io.servers);
	case 'P':
		if (tp_ioserver_policy_parse_auto(arg, &o->io.policy,
		                                  &o->io_auto, &err))
			return tp_cli_usage_error(WHAT, "--io-policy: %s",
			                          err.message);
		return TP_EXIT_OK;
	case 'w':
		return tp_cli_parse_io_where(WHAT, arg, true, &o->io.scope);
	case 'S':
		return tp_cli_parse_u64(WHAT, "--seed", arg, 0, UINT32_MAX,
		                        &o->io.seed);
	case 'W':
	case 'R':
		o->link_opts = true;
		/* doubles hold whole bytes exactly up to 2^53 */
		return tp_cli_parse_u64(
		    WHAT, opt == 'W' ? "--io-write-bytes" : "--io-read-bytes",
		    arg, 0, 1ull << 50,
		    opt == 'W' ? &o->links.write_bytes : &o->links.read_bytes);
	case 'r':
		o->routes_given = o->link_opts = true;
		if (!strcmp(arg, "lft"))
			o->links.lft = true;
		else if (strcmp(arg, "dmodk"))
			return tp_cli_usage_error(
			    WHAT, "--io-routes '%s': expected dmodk|lft", arg);
		return TP_EXIT_OK;
	case 'C':
		o->links.ca = arg;
		return TP_EXIT_OK;
	case 'O':
		return parse_port(arg, &o->links.port);
	default: /* 'k' */
		o->links.kv = o->link_opts = true;
		return TP_EXIT_OK;
	}
}

/* The job's options of one getopt_long answer @opt. */
static int parse_job_option(int opt, const char *arg, struct place_opts *o)
{
	tp_alloc_request *rq = &o->rq;
	tp_error err;

	switch (opt) {
	case 'n':
		o->have_nodes = true;
		return tp_cli_parse_u32(WHAT, "--nodes", arg, 1, UINT32_MAX,
		                        &rq->nodes);
	case 'p':
		if (tp_placement_parse(arg, &rq->policy, &err))
			return tp_cli_usage_error(WHAT, "--policy: %s",
			                          err.message);
		return TP_EXIT_OK;
	case 'c':
		if (tp_jobclass_parse(arg, &rq->job_class, &err))
			return tp_cli_usage_error(WHAT, "--class: %s",
			                          err.message);
		return TP_EXIT_OK;
	case 'g':
		if (tp_routing_parse(arg, &rq->routing, &err))
			return tp_cli_usage_error(WHAT, "--routing: %s",
			                          err.message);
		return TP_EXIT_OK;
	case 'L':
		if (tp_leaf_remainder_parse(arg, &rq->leaf_remainder, &err))
			return tp_cli_usage_error(WHAT, "--leaf-remainder: %s",
			                          err.message);
		return TP_EXIT_OK;
	case 'j':
		/* 0 marks site-wide I/O servers in occupancies */
		return tp_cli_parse_u32(WHAT, "--job-id", arg, 1, UINT32_MAX,
		                        &rq->job_id);
	default: /* 'B' */
		return tp_cli_parse_u64(WHAT, "--budget-us", arg, 0, UINT32_MAX,
		                        &rq->budget_us);
	}
}

/* The rules between options, checked once all are read. */
static int check_place_opts(const struct place_opts *o)
{
	if (!o->fabric)
		return tp_cli_usage_error(WHAT, "--fabric PxLxH is required");
	if (!o->have_nodes)
		return tp_cli_usage_error(WHAT, "--nodes N is required");
	if (o->rq.policy == TP_PLACEMENT_AUTO)
		return tp_cli_usage_error(
		    WHAT, "--policy auto is resolved from topoplace.conf; give "
		          "leaf|shared|pack|spread|off");
	if (o->link_opts && !o->io.servers)
		return tp_cli_usage_error(WHAT,
		                          "--io-write-bytes, "
		                          "--io-read-bytes, --io-routes and "
		                          "--io-kv need --io-servers N");
	if (o->json && o->io.servers && !tp_cli_is_tree_spec(o->fabric))
		return tp_cli_usage_error(WHAT,
		                          "--json with --io-servers compares "
		                          "the policies on a PxLxH tree only; "
		                          "for per-link loads over a fabric's "
		                          "routes use --io-kv");
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_place_opts(int argc, char **argv, struct place_opts *o)
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
	    {"io-write-bytes", required_argument, NULL, 'W'},
	    {"io-read-bytes", required_argument, NULL, 'R'},
	    {"io-routes", required_argument, NULL, 'r'},
	    {"ca", required_argument, NULL, 'C'},
	    {"port", required_argument, NULL, 'O'},
	    {"io-kv", no_argument, NULL, 'k'},
	    {"routing", required_argument, NULL, 'g'},
	    {"json", no_argument, NULL, 'J'},
	    {"leaf-remainder", required_argument, NULL, 'L'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, rc = TP_EXIT_OK;

	*o = (struct place_opts){
	    .rq = {.policy = TP_PLACEMENT_LEAF,
	           .job_id = 1,
	           .leaf_remainder = TP_LEAF_REMAINDER_COMPATIBLE},
	    .io = {.policy = TP_IOSERVER_SPREAD,
	           .scope = TP_IOSERVER_BESIDE,
	           .seed = 1},
	    .links = {.write_bytes = 1ull << 30},
	    .io_auto = true,
	};
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (opt == 'f')
			o->fabric = optarg;
		else if (opt == 'b')
			o->busy = optarg;
		else if (opt == 'a')
			o->allowed = true;
		else if (opt == 'J')
			o->json = true;
		else if (strchr("npcgLjB", opt))
			rc = parse_job_option(opt, optarg, o);
		else if (strchr("sPwSWRrCOk", opt))
			rc = parse_io_option(opt, optarg, o);
		else
			return tp_cli_usage_error(WHAT,
			                          "unknown option or missing "
			                          "value: '%s' (try --help)",
			                          argv[optind - 1]);
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(WHAT, "unexpected argument '%s'",
		                          argv[optind]);
	/* --routing may follow --io-policy: resolved once all are read. */
	if (o->io_auto)
		o->io.policy = tp_ioserver_policy_for_routing(o->rq.routing);
	return check_place_opts(o);
}

/* ---- run ------------------------------------------------------------ */

/* What `place` computed; the print step reads it, place_run_free frees it. */
struct place_run {
	tp_fabric *fab;    /* --fabric FILE|live with servers, else NULL */
	tp_routes *routes; /* its routes, for the per-link comparison */
	tp_topo *topo;
	tp_host_use *use;            /* the occupancy (with site servers) */
	tp_host_use *before_servers; /* --io-where site: without them */
	tp_alloc_result res;
	tp_status decided; /* what tp_alloc_choose/_allowed returned */
	tp_error err;      /* why, when decided is not TP_OK */
	tp_ioserver_result io_res;
	int io_rc; /* the job's servers: TP_EXIT_OK or failure */
	tp_error io_err;
};

static void place_run_free(struct place_run *r)
{
	tp_routes_free(r->routes);
	tp_fabric_free(r->fab);
	tp_alloc_result_free(&r->res);
	tp_ioserver_result_free(&r->io_res);
	free(r->before_servers);
	free(r->use);
	tp_topo_free(r->topo);
}

/* The hierarchy of --fabric and, where the I/O comparison follows routes,
 * the fabric and its routes. */
static int load_place_fabric(struct place_opts *o, struct place_run *r)
{
	int rc = TP_EXIT_OK;

	if (!strcmp(o->fabric, "live")) {
		/* discovered now: its forwarding tables are the real routes */
		if (!o->routes_given)
			o->links.lft = true;
		rc = load_fabric(o->fabric, &o->links, &r->fab);
		if (rc != TP_EXIT_OK)
			return rc;
		if (tp_fabric_to_topo(r->fab, &r->topo, &r->err) != TP_OK)
			return tp_cli_fail(WHAT, &r->err);
	} else {
		rc = tp_cli_load_topo(WHAT, o->fabric, &r->topo);
		if (rc == TP_EXIT_OK && o->io.servers)
			rc = load_fabric(o->fabric, &o->links, &r->fab);
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (o->routes_given && !r->fab)
		return tp_cli_usage_error(WHAT,
		                          "--io-routes needs --fabric FILE or "
		                          "live (a PxLxH tree has no routes)");
	if (r->fab && o->io.servers)
		return load_routes(r->fab, &o->links, &r->routes);
	return TP_EXIT_OK;
}

/* The occupancy of --busy (all free without it). */
static int load_place_use(const struct place_opts *o, struct place_run *r)
{
	r->use = calloc(tp_topo_host_count(r->topo), sizeof(*r->use));
	if (!r->use) {
		tp_error_set(&r->err, TP_ERR_NOMEM, "no memory for occupancy");
		return tp_cli_fail(WHAT, &r->err);
	}
	if (o->busy &&
	    tp_cli_read_busy(o->busy, r->topo, r->use, &r->err) != TP_OK)
		return tp_cli_fail(WHAT, &r->err);
	return TP_EXIT_OK;
}

/*
 * The job's I/O servers (already placed for --io-where site) into
 * r->io_res, or the failure in r->io_rc/io_err: it is reported after the
 * job's hosts are printed.  @io gets the job.
 */
static void place_job_servers(const tp_alloc_request *rq,
                              tp_ioserver_request *io, struct place_run *r)
{
	const tp_alloc_result *res = &r->res;

	r->io_rc = TP_EXIT_OK;
	if (io->scope == TP_IOSERVER_SITE) {
		/* Every policy is compared over the occupancy the chosen one
		 * was placed on, plus the job: a site server never shares a
		 * host with it. */
		for (uint32_t i = 0; i < res->host_count; i++)
			r->before_servers[res->hosts[i]] = (tp_host_use){
			    TP_HOST_BUSY, rq->job_id, rq->job_class};
		return;
	}
	io->job_hosts = res->hosts;
	io->job_host_count = res->host_count;
	io->job_id = rq->job_id;
	io->use = r->use;
	if (tp_ioserver_place(r->topo, io, &r->io_res, &r->io_err) != TP_OK)
		r->io_rc = TP_EXIT_FAILURE;
}

/*
 * Load the fabric and occupancy, place site-wide servers, decide for the
 * job and place its servers.  Returns TP_EXIT_OK when there is a decision
 * to print (r->decided says which), else the exit status of a failure
 * already printed.
 */
static int run_place(struct place_opts *o, struct place_run *r)
{
	int rc;

	if ((rc = load_place_fabric(o, r)) != TP_EXIT_OK ||
	    (rc = load_place_use(o, r)) != TP_EXIT_OK)
		return rc;
	if (o->io.servers && o->io.scope == TP_IOSERVER_SITE) {
		rc = place_site_servers(r->topo, r->use, &o->io,
		                        &r->before_servers, &r->io_res);
		if (rc != TP_EXIT_OK)
			return rc;
	}
	r->decided =
	    o->allowed
	        ? tp_alloc_allowed(r->topo, r->use, &o->rq, &r->res, &r->err)
	        : tp_alloc_choose(r->topo, r->use, &o->rq, &r->res, &r->err);
	if (r->decided == TP_OK && r->res.met && o->io.servers)
		place_job_servers(&o->rq, &o->io, r);
	return TP_EXIT_OK;
}

/* ---- print ---------------------------------------------------------- */

/* The job's servers as text or into @j, then the policies compared. */
static int print_job_servers(const struct place_opts *o,
                             const struct place_run *r, tp_json *j)
{
	const tp_ioserver_result *io_res = &r->io_res;

	if (r->io_rc != TP_EXIT_OK)
		return tp_cli_fail(WHAT, &r->io_err);
	if (j) {
		tp_json_begin_object(j, "io_servers");
		tp_json_string(j, "policy",
		               tp_ioserver_policy_name(o->io.policy));
		tp_json_string(j, "chosen_by", o->io_auto ? "auto" : "option");
		if (o->io_auto)
			tp_json_string(j, "why",
			               tp_ioserver_policy_why(o->rq.routing));
		else
			tp_json_null(j, "why");
		tp_cli_json_names(j, "hosts", r->topo, io_res->servers,
		                  io_res->server_count, tp_topo_host_name);
		tp_json_string(j, "reason", io_res->reason);
		tp_json_end_object(j);
	} else {
		printf("io-servers: ");
		print_hostlist(r->topo, io_res->servers, io_res->server_count);
		printf("\nio-reason: %s\n", io_res->reason);
		if (o->io_auto)
			printf("io-policy: %s, chosen by auto: %s\n",
			       tp_ioserver_policy_name(o->io.policy),
			       tp_ioserver_policy_why(o->rq.routing));
		else
			printf("io-policy: %s (--io-policy)\n",
			       tp_ioserver_policy_name(o->io.policy));
	}
	return compare_io_loads(r->topo, o->io, &r->res, j);
}

/* The decision as the topoplace.place document (topoplace-json(7)). */
static int print_place_json(const struct place_opts *o,
                            const struct place_run *r)
{
	bool budget = r->decided == TP_ERR_BUDGET;
	int rc = budget       ? TP_EXIT_NO_OPINION
	         : r->res.met ? TP_EXIT_OK
	                      : TP_EXIT_FAILURE;
	tp_json j;

	tp_json_init(&j, stdout);
	json_decision(&j, r->topo, &o->rq, o->allowed,
	              budget       ? "no_opinion"
	              : r->res.met ? "placed"
	                           : "not_met",
	              budget ? NULL : &r->res);
	if (!budget && r->res.met && o->io.servers)
		rc = print_job_servers(o, r, &j);
	tp_json_end_document(&j);
	return tp_cli_json_finish(WHAT, &j, rc);
}

/* The decision as text: hosts, leaves, pods, why; then the servers. */
static int print_place_text(const struct place_opts *o,
                            const struct place_run *r)
{
	const tp_alloc_result *res = &r->res;
	int rc = TP_EXIT_OK;

	if (!res->met) {
		fprintf(stderr, "topoplace %s: %s\n", WHAT, res->reason);
		return TP_EXIT_FAILURE;
	}
	printf("%s: ", o->allowed ? "allowed" : "hosts");
	print_hostlist(r->topo, res->hosts, res->host_count);
	printf("\nleaves: ");
	print_names(r->topo, res->leaves, res->leaf_count, tp_topo_leaf_name);
	printf("\npods: ");
	print_names(r->topo, res->pods, res->pod_count, tp_topo_pod_name);
	if (res->reserved_count) {
		printf("\nreserved: ");
		print_hostlist(r->topo, res->reserved, res->reserved_count);
	}
	if (res->remainder_hosts) {
		char summary[256];

		/* What the job's SystemComment says under Slurm. */
		tp_alloc_remainder_summary(r->topo, res, summary,
		                           sizeof(summary));
		printf("\nremainder: %s", summary);
	}
	printf("\nreason: %s\n", res->reason);
	if (o->io.servers) {
		rc = print_job_servers(o, r, NULL);
		if (rc == TP_EXIT_OK && r->fab)
			rc = compare_io_links(r->topo, r->fab, r->routes,
			                      o->rq.routing, &o->links, &o->io,
			                      res);
	}
	return rc;
}

/* The exit status of the decision, after printing it. */
static int print_place(const struct place_opts *o, const struct place_run *r)
{
	if (r->decided == TP_ERR_INVALID || r->decided == TP_ERR_LIMIT)
		return tp_cli_usage_error(WHAT, "%s", r->err.message);
	if (r->decided == TP_ERR_BUDGET) {
		/* no opinion: a caller falls back, it does not wait */
		tp_cli_fail(WHAT, &r->err);
		return o->json ? print_place_json(o, r) : TP_EXIT_NO_OPINION;
	}
	if (r->decided != TP_OK)
		return tp_cli_fail(WHAT, &r->err);
	return o->json ? print_place_json(o, r) : print_place_text(o, r);
}

int tp_cli_place(int argc, char **argv)
{
	struct place_opts o;
	struct place_run r = {0};
	int rc;

	if ((rc = parse_place_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	rc = run_place(&o, &r);
	if (rc == TP_EXIT_OK)
		rc = print_place(&o, &r);
	place_run_free(&r);
	return rc;
}
