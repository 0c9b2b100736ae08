/*
 * cli_fabric.c: `topoplace fabric show|cache|topology|diff|route`.
 *
 * The fabric comes from live libibnetdisc discovery (default), an
 * ibnetdiscover cache (--cache FILE) or Slurm's topology.conf
 * (--topology-conf FILE).  See topoplace-fabric(1).
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "discover.h"
#include "fabric.h"
#include "hostlist.h"
#include "route.h"
#include "tp_json.h"

#define WHAT "fabric"

struct opts {
	const char *cache, *conf, *map, *ca, *output;
	const char *before_cache, *before_conf;
	const char *matrix, *hosts;
	int port;
	bool dmodk, all_leaves, print_paths, json;
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: topoplace fabric show     [SOURCE] [--json]\n"
	        "       topoplace fabric cache    [--ca DEV] [--port N] FILE\n"
	        "       topoplace fabric topology [SOURCE] [-o FILE]\n"
	        "       topoplace fabric diff     [SOURCE] (--before-cache F | "
	        "--before-topology-conf F) [--json]\n"
	        "       topoplace fabric route    [SOURCE] [--dmodk] (SRC DST "
	        "| --all-leaves [--print-paths])\n"
	        "                                 [--json]\n"
	        "       topoplace fabric load     [SOURCE] [--dmodk] --matrix "
	        "FILE [--hosts LIST]\n"
	        "                                 [--json]\n"
	        "SOURCE: live discovery (default; --ca DEV --port N), --cache "
	        "FILE,\n"
	        "        --topology-conf FILE; --node-name-map FILE maps GUIDs "
	        "to names.\n");
}

static int load(const struct opts *o, tp_fabric **f)
{
	tp_fabric_name_map *map = NULL;
	tp_error err = {0};
	tp_status rc;

	*f = NULL;
	if (o->map != NULL &&
	    tp_fabric_name_map_load(o->map, &map, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (o->conf != NULL)
		rc = tp_discover_load_topology_conf(o->conf, f, &err);
	else if (o->cache != NULL)
		rc = tp_discover_load_cache(o->cache, map, f, &err);
	else
		rc = tp_discover_live(o->ca, o->port, NULL, map, f, &err);
	tp_fabric_name_map_free(map);
	if (rc != TP_OK)
		return tp_cli_fail(WHAT, &err);
	return TP_EXIT_OK;
}

static void print_findings(const tp_fabric_findings *fs, const char *tag)
{
	for (size_t i = 0; i < fs->count; i++)
		printf("%s: %s\n", tag, fs->items[i].text);
}

static void json_findings(tp_json *j, const char *key,
                          const tp_fabric_findings *fs)
{
	tp_json_begin_array(j, key);
	for (size_t i = 0; i < fs->count; i++) {
		tp_json_begin_object(j, NULL);
		tp_json_string(j, "kind",
		               tp_fabric_finding_kind_name(fs->items[i].kind));
		tp_json_string(j, "text", fs->items[i].text);
		tp_json_end_object(j);
	}
	tp_json_end_array(j);
}

/*
 * The schema topoplace.fabric-show version 1 (topoplace-json(7)): the
 * same summary, leaves with their pods and hosts, and findings as the text.
 */
static int show_json(tp_fabric *f, uint32_t switches, uint32_t cas,
                     uint32_t unmapped)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "fabric-show", 1);
	tp_json_string(&j, "source", tp_fabric_source(f));
	tp_json_begin_object(&j, "summary");
	tp_json_uint(&j, "switches", switches);
	tp_json_uint(&j, "cas", cas);
	tp_json_uint(&j, "hosts", tp_fabric_host_count(f));
	tp_json_uint(&j, "unmapped", unmapped);
	tp_json_uint(&j, "leaves", tp_fabric_leaf_count(f));
	tp_json_uint(&j, "pods", tp_fabric_pod_count(f));
	tp_json_int(&j, "levels", tp_fabric_max_level(f));
	tp_json_uint(&j, "links", tp_fabric_link_count(f));
	tp_json_end_object(&j);
	tp_json_begin_array(&j, "switches_per_level");
	for (int l = 1; l <= tp_fabric_max_level(f); l++)
		tp_json_uint(&j, NULL, tp_fabric_switches_at(f, l));
	tp_json_end_array(&j);
	tp_json_begin_array(&j, "leaves");
	for (uint32_t k = 0; k < tp_fabric_leaf_count(f); k++) {
		uint32_t n;
		const uint32_t *hosts = tp_fabric_leaf_hosts(f, k, &n);

		tp_json_begin_object(&j, NULL);
		tp_json_string(
		    &j, "name",
		    tp_fabric_node_at(f, tp_fabric_leaf_node(f, k))->name);
		tp_json_string(&j, "pod",
		               tp_fabric_pod_name(f, tp_fabric_leaf_pod(f, k)));
		tp_json_begin_array(&j, "hosts");
		for (uint32_t i = 0; i < n; i++) {
			const tp_fabric_host *h =
			    tp_fabric_host_at(f, hosts[i]);

			tp_json_begin_object(&j, NULL);
			tp_json_string(&j, "name", h->name);
			tp_json_bool(&j, "mapped", h->mapped);
			tp_json_end_object(&j);
		}
		tp_json_end_array(&j);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	json_findings(&j, "findings", tp_fabric_anomalies(f));
	tp_json_end_document(&j);
	return tp_cli_json_finish(WHAT " show", &j, TP_EXIT_OK);
}

static int cmd_show(tp_fabric *f, bool json)
{
	uint32_t switches = 0, cas = 0, unmapped = 0;

	for (uint32_t i = 0; i < tp_fabric_node_count(f); i++) {
		const tp_fabric_node *n = tp_fabric_node_at(f, i);

		switches += n->type == TP_FABRIC_SWITCH;
		cas += n->type == TP_FABRIC_CA;
	}
	for (uint32_t h = 0; h < tp_fabric_host_count(f); h++)
		unmapped += !tp_fabric_host_at(f, h)->mapped;
	if (json)
		return show_json(f, switches, cas, unmapped);
	printf("source: %s\n", tp_fabric_source(f));
	printf("summary: switches=%" PRIu32 " cas=%" PRIu32 " hosts=%" PRIu32
	       " unmapped=%" PRIu32 " leaves=%" PRIu32 " pods=%" PRIu32
	       " levels=%d links=%" PRIu32 "\n",
	       switches, cas, tp_fabric_host_count(f), unmapped,
	       tp_fabric_leaf_count(f), tp_fabric_pod_count(f),
	       tp_fabric_max_level(f), tp_fabric_link_count(f));
	for (int l = 1; l <= tp_fabric_max_level(f); l++)
		printf("level %d: %" PRIu32 " switches\n", l,
		       tp_fabric_switches_at(f, l));
	for (uint32_t p = 0; p < tp_fabric_pod_count(f); p++) {
		printf("pod %s:", tp_fabric_pod_name(f, p));
		for (uint32_t k = 0; k < tp_fabric_leaf_count(f); k++)
			if (tp_fabric_leaf_pod(f, k) == p)
				printf(" %s", tp_fabric_node_at(
				                  f, tp_fabric_leaf_node(f, k))
				                  ->name);
		printf("\n");
	}
	for (uint32_t k = 0; k < tp_fabric_leaf_count(f); k++) {
		uint32_t n;
		const uint32_t *hosts = tp_fabric_leaf_hosts(f, k, &n);

		printf("leaf %s %s hosts=%" PRIu32 ":",
		       tp_fabric_node_at(f, tp_fabric_leaf_node(f, k))->name,
		       tp_fabric_pod_name(f, tp_fabric_leaf_pod(f, k)), n);
		for (uint32_t i = 0; i < n; i++)
			printf(" %s%s", tp_fabric_host_at(f, hosts[i])->name,
			       tp_fabric_host_at(f, hosts[i])->mapped
			           ? ""
			           : "(unmapped)");
		printf("\n");
	}
	print_findings(tp_fabric_anomalies(f), "finding");
	if (tp_fabric_anomalies(f)->count == 0)
		printf("finding: none\n");
	return fflush(stdout) == 0 ? TP_EXIT_OK : TP_EXIT_FAILURE;
}

static int cmd_cache(const struct opts *o, const char *file)
{
	tp_fabric *f;
	tp_error err = {0};

	if (tp_discover_live(o->ca, o->port, file, NULL, &f, &err) != TP_OK)
		return tp_cli_fail(WHAT " cache", &err);
	printf("wrote %s: %" PRIu32 " nodes, %" PRIu32 " hosts, %" PRIu32
	       " leaves\n",
	       file, tp_fabric_node_count(f), tp_fabric_host_count(f),
	       tp_fabric_leaf_count(f));
	tp_fabric_free(f);
	return TP_EXIT_OK;
}

static int cmd_topology(tp_fabric *f, const char *output)
{
	tp_error err = {0};
	FILE *out = stdout;
	int status = TP_EXIT_OK;

	if (output != NULL) {
		out = fopen(output, "w");
		if (out == NULL) {
			tp_error_set(&err, TP_ERR_IO, "%s: cannot create: %s",
			             output, strerror(errno));
			return tp_cli_fail(WHAT " topology", &err);
		}
	}
	if (tp_fabric_write_topology_conf(
	        f, out, output ? output : "standard output", &err) != TP_OK)
		status = tp_cli_fail(WHAT " topology", &err);
	if (output != NULL && fclose(out) != 0 && status == TP_EXIT_OK) {
		tp_error_set(&err, TP_ERR_IO, "%s: write error: %s", output,
		             strerror(errno));
		status = tp_cli_fail(WHAT " topology", &err);
	}
	return status;
}

static int cmd_diff(const struct opts *o, tp_fabric *f)
{
	struct opts before = {0};
	tp_fabric *old;
	tp_fabric_findings fs = {0};
	tp_error err = {0};
	int status;

	before.cache = o->before_cache;
	before.conf = o->before_conf;
	before.map = o->map;
	if ((status = load(&before, &old)) != TP_EXIT_OK)
		return status;
	if (tp_fabric_diff(old, f, &fs, &err) != TP_OK) {
		tp_fabric_free(old);
		return tp_cli_fail(WHAT " diff", &err);
	}
	if (o->json) {
		tp_json j;

		/* schema topoplace.fabric-diff version 1 */
		tp_json_init(&j, stdout);
		tp_json_begin_document(&j, "fabric-diff", 1);
		tp_json_string(&j, "before", tp_fabric_source(old));
		tp_json_string(&j, "after", tp_fabric_source(f));
		tp_json_uint(&j, "differences", fs.count);
		json_findings(&j, "findings", &fs);
		tp_json_end_document(&j);
		status = tp_cli_json_finish(WHAT " diff", &j, TP_EXIT_OK);
	} else {
		printf("before: %s\nafter: %s\n", tp_fabric_source(old),
		       tp_fabric_source(f));
		print_findings(&fs, "diff");
		printf("differences: %zu\n", fs.count);
	}
	tp_fabric_findings_free(&fs);
	tp_fabric_free(old);
	return status;
}

/* Where `fabric route` reports: text lines, or the document @json. */
struct route_out {
	const tp_fabric *f;
	tp_json *json;    /* NULL: text */
	bool print_paths; /* --all-leaves text: every path, not only bad ones */
};

static void print_path(const tp_fabric *f, const uint32_t *path, size_t n,
                       uint32_t dst)
{
	for (size_t i = 0; i < n; i++) {
		const tp_fabric_port *p = tp_fabric_port_at(f, path[i]);

		printf("%s[%" PRIu32 "] -> ",
		       tp_fabric_node_at(f, p->node)->name, p->num);
	}
	printf("%s\n", tp_fabric_host_at(f, dst)->name);
}

/* One route as an element of the document's "routes_checked" array (schema
 * topoplace.fabric-route version 1, topoplace-json(7)). */
static void route_json(tp_json *j, const tp_fabric *f, uint32_t s, uint32_t d,
                       const uint32_t *path, size_t n)
{
	tp_json_begin_object(j, NULL);
	tp_json_string(j, "src", tp_fabric_host_at(f, s)->name);
	tp_json_string(j, "dst", tp_fabric_host_at(f, d)->name);
	tp_json_begin_array(j, "path");
	for (size_t i = 0; i < n; i++) {
		const tp_fabric_port *p = tp_fabric_port_at(f, path[i]);

		tp_json_begin_object(j, NULL);
		tp_json_string(j, "node", tp_fabric_node_at(f, p->node)->name);
		tp_json_uint(j, "port", p->num);
		tp_json_end_object(j);
	}
	tp_json_end_array(j);
	if (n > 0) {
		tp_json_uint(j, "src_lid", tp_fabric_port_at(f, path[0])->lid);
		tp_json_uint(j, "dst_lid", tp_fabric_peer(f, path[n - 1])->lid);
	} else {
		tp_json_null(j, "src_lid");
		tp_json_null(j, "dst_lid");
	}
	tp_json_uint(j, "hops", tp_fabric_host_distance(f, s, d));
	tp_json_bool(j, "up_down", tp_routes_path_is_updown(f, path, n));
	tp_json_end_object(j);
}

/* A route @r cannot give, in the text or as a "routes_checked" element. */
static void route_error(const struct route_out *ro, uint32_t s, uint32_t d,
                        const tp_error *err)
{
	if (ro->json == NULL) {
		printf("error: %s\n", err->message);
		return;
	}
	tp_json_begin_object(ro->json, NULL);
	tp_json_string(ro->json, "src", tp_fabric_host_at(ro->f, s)->name);
	tp_json_string(ro->json, "dst", tp_fabric_host_at(ro->f, d)->name);
	tp_json_string(ro->json, "error", err->message);
	tp_json_end_object(ro->json);
}

/*
 * The route between the first hosts of every ordered pair of leaves:
 * whether each goes up then down.  Returns TP_EXIT_FAILURE when one does
 * not (or cannot be read).
 */
static int route_all_leaves(const struct route_out *ro, tp_routes *r)
{
	const tp_fabric *f = ro->f;
	uint32_t L = tp_fabric_leaf_count(f), pairs = 0, updown = 0;
	uint32_t path[TP_ROUTE_MAX_HOPS];
	tp_error err = {0};
	size_t n;

	for (uint32_t a = 0; a < L; a++) {
		uint32_t na, nb;
		const uint32_t *ha = tp_fabric_leaf_hosts(f, a, &na);

		for (uint32_t b = 0; b < L && na > 0; b++) {
			const uint32_t *hb = tp_fabric_leaf_hosts(f, b, &nb);
			bool good;

			if (a == b || nb == 0)
				continue;
			pairs++;
			if (tp_routes_path(r, ha[0], hb[0], path,
			                   TP_ROUTE_MAX_HOPS, &n,
			                   &err) != TP_OK) {
				route_error(ro, ha[0], hb[0], &err);
				continue;
			}
			good = tp_routes_path_is_updown(f, path, n);
			updown += good;
			if (ro->json != NULL) {
				route_json(ro->json, f, ha[0], hb[0], path, n);
				continue;
			}
			if (!good || ro->print_paths) {
				printf(good ? "path: " : "not up-down: ");
				print_path(f, path, n, hb[0]);
			}
		}
	}
	if (ro->json != NULL) {
		tp_json_end_array(ro->json);
		tp_json_uint(ro->json, "leaf_pairs", pairs);
		tp_json_uint(ro->json, "up_down", updown);
	} else
		printf("leaf pairs: %" PRIu32 " up-down: %" PRIu32 "\n", pairs,
		       updown);
	return updown == pairs ? TP_EXIT_OK : TP_EXIT_FAILURE;
}

/* One route: its end hosts and the output ports it leaves through. */
struct route_pair {
	uint32_t src, dst;
	uint32_t path[TP_ROUTE_MAX_HOPS];
	size_t hops;
};

/* The route from host @src_name to host @dst_name into @rp, or one error
 * line (before any output, so that --json prints no partial document). */
static int route_find(const tp_fabric *f, tp_routes *r, const char *src_name,
                      const char *dst_name, struct route_pair *rp)
{
	tp_error err = {0};

	rp->src = tp_fabric_find_host(f, src_name);
	rp->dst = tp_fabric_find_host(f, dst_name);
	if (rp->src == TP_FABRIC_NONE || rp->dst == TP_FABRIC_NONE) {
		tp_error_set(&err, TP_ERR_NOTFOUND,
		             "%s: no host %s in the fabric",
		             tp_fabric_source(f),
		             rp->src == TP_FABRIC_NONE ? src_name : dst_name);
		return tp_cli_fail(WHAT " route", &err);
	}
	if (tp_routes_path(r, rp->src, rp->dst, rp->path, TP_ROUTE_MAX_HOPS,
	                   &rp->hops, &err) != TP_OK)
		return tp_cli_fail(WHAT " route", &err);
	return TP_EXIT_OK;
}

/* The route @rp, in the text or as the document's only "routes_checked". */
static int route_one(const struct route_out *ro, const struct route_pair *rp)
{
	const tp_fabric *f = ro->f;
	size_t n = rp->hops;

	if (ro->json != NULL) {
		route_json(ro->json, f, rp->src, rp->dst, rp->path, n);
		tp_json_end_array(ro->json);
		return TP_EXIT_OK;
	}
	printf("path: ");
	print_path(f, rp->path, n, rp->dst);
	if (n > 0)
		printf("lids: %u %u\n", tp_fabric_port_at(f, rp->path[0])->lid,
		       tp_fabric_peer(f, rp->path[n - 1])->lid);
	printf("hops: %u\nup-down: %s\n",
	       tp_fabric_host_distance(f, rp->src, rp->dst),
	       tp_routes_path_is_updown(f, rp->path, n) ? "yes" : "no");
	return TP_EXIT_OK;
}

/* The switches' forwarding tables, else (or with --dmodk) the model. */
static tp_status route_tables(const struct opts *o, tp_fabric *f, tp_routes **r,
                              tp_error *err)
{
	*r = NULL;
	if (!o->dmodk &&
	    tp_routes_read_live(f, o->ca, o->port, r, err) != TP_OK) {
		fprintf(stderr,
		        "topoplace fabric route: no forwarding tables (%s); "
		        "using the D-mod-k model\n",
		        err->message);
		*r = NULL;
		*err = (tp_error){0};
	}
	return *r != NULL ? TP_OK : tp_routes_new_dmodk(f, r, err);
}

static int cmd_route(const struct opts *o, tp_fabric *f, int argc, char **argv)
{
	struct route_out ro = {.f = f, .print_paths = o->print_paths};
	struct route_pair rp;
	tp_routes *r = NULL;
	tp_error err = {0};
	tp_json j;
	bool lft;
	int status;

	if (!o->all_leaves && argc != 2)
		return tp_cli_usage_error(WHAT " route",
		                          "need SRC and DST host names (or "
		                          "--all-leaves)");
	if (route_tables(o, f, &r, &err) != TP_OK)
		return tp_cli_fail(WHAT " route", &err);
	if (!o->all_leaves &&
	    (status = route_find(f, r, argv[0], argv[1], &rp)) != TP_EXIT_OK) {
		tp_routes_free(r);
		return status;
	}
	lft = tp_routes_kind_of(r) == TP_ROUTES_LFT;
	if (o->json) {
		ro.json = &j;
		tp_json_init(&j, stdout);
		tp_json_begin_document(&j, "fabric-route", 1);
		tp_json_string(&j, "source", tp_fabric_source(f));
		tp_json_string(&j, "routes", lft ? "lft" : "dmodk");
		tp_json_begin_array(&j, "routes_checked");
	} else
		printf("routes: %s\n",
		       lft ? "forwarding tables read from the switches"
		           : "D-mod-k model (not read from the fabric)");
	status = o->all_leaves ? route_all_leaves(&ro, r) : route_one(&ro, &rp);
	tp_routes_free(r);
	if (o->json) {
		tp_json_end_document(&j);
		status = tp_cli_json_finish(WHAT " route", &j, status);
	}
	return status;
}

/*
 * Read a communication matrix (tests/data/matrices format: '#' lines, then
 * "src dst bytes msgs" per line) into flows between the hosts rank r runs
 * on (@hosts->names[r]).
 */
static tp_status read_matrix(const char *path, const tp_cli_hosts *hosts,
                             tp_route_flow **flows, size_t *count,
                             tp_error *err)
{
	FILE *in = fopen(path, "r");
	char line[256];
	unsigned lineno = 0;
	size_t n = 0, cap = 0;
	tp_route_flow *v = NULL;

	*flows = NULL;
	*count = 0;
	if (in == NULL)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
		                    strerror(errno));
	while (fgets(line, sizeof(line), in) != NULL) {
		unsigned long src, dst;
		unsigned long long bytes, msgs;
		char extra;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%lu %lu %llu %llu %c", &src, &dst, &bytes,
		           &msgs, &extra) != 4) {
			free(v);
			fclose(in);
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %u: expected \"src dst "
			                    "bytes msgs\"",
			                    path, lineno);
		}
		if (src >= hosts->count || dst >= hosts->count) {
			free(v);
			fclose(in);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: line %u: rank %lu has no host "
			                    "(%zu hosts)",
			                    path, lineno,
			                    src >= hosts->count ? src : dst,
			                    (size_t)hosts->count);
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			tp_route_flow *p = realloc(v, ncap * sizeof(*p));

			if (p == NULL) {
				free(v);
				fclose(in);
				return tp_error_set(err, TP_ERR_NOMEM,
				                    "out of memory");
			}
			v = p;
			cap = ncap;
		}
		v[n].src = hosts->names[src];
		v[n].dst = hosts->names[dst];
		v[n].bytes = bytes;
		n++;
	}
	fclose(in);
	*flows = v;
	*count = n;
	return TP_OK;
}

/* The schema topoplace.fabric-load version 1 (topoplace-json(7)). */
static int load_json(const tp_fabric *f, const tp_routes *r, size_t nflows,
                     uint64_t total, uint64_t hop_bytes, uint32_t loaded,
                     uint32_t max_port, uint64_t max)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "fabric-load", 1);
	tp_json_string(&j, "routes",
	               tp_routes_kind_of(r) == TP_ROUTES_LFT ? "lft" : "dmodk");
	tp_json_uint(&j, "flows", nflows);
	tp_json_uint(&j, "bytes", total);
	tp_json_uint(&j, "hop_bytes", hop_bytes);
	tp_json_uint(&j, "loaded_directions", loaded);
	if (max_port != TP_FABRIC_NONE) {
		const tp_fabric_port *p = tp_fabric_port_at(f, max_port);
		const tp_fabric_port *q = tp_fabric_peer(f, max_port);

		tp_json_begin_object(&j, "max_link");
		tp_json_uint(&j, "bytes", max);
		tp_json_string(&j, "from", tp_fabric_node_at(f, p->node)->name);
		tp_json_uint(&j, "from_port", p->num);
		tp_json_string(&j, "to", tp_fabric_node_at(f, q->node)->name);
		tp_json_uint(&j, "to_port", q->num);
		tp_json_end_object(&j);
	} else {
		tp_json_null(&j, "max_link");
	}
	tp_json_end_document(&j);
	return tp_cli_json_finish(WHAT " load", &j, TP_EXIT_OK);
}

static int cmd_load(const struct opts *o, tp_fabric *f)
{
	tp_cli_hosts hosts = {0};
	tp_route_flow *flows = NULL;
	size_t nflows = 0;
	uint64_t *bytes = NULL, total = 0, hop_bytes = 0, max = 0;
	uint32_t max_port = TP_FABRIC_NONE, loaded = 0;
	tp_routes *r = NULL;
	tp_error err = {0};
	int status = TP_EXIT_OK;
	const char *matrix = o->matrix;

	if (matrix == NULL)
		return tp_cli_usage_error(WHAT " load", "need --matrix FILE");
	if (o->hosts != NULL) {
		if (tp_hostlist_expand(o->hosts, 1u << 20, tp_cli_hosts_add,
		                       &hosts, &err) != TP_OK) {
			tp_error_prefix(&err, "--hosts %s", o->hosts);
			status = tp_cli_fail(WHAT " load", &err);
			goto out;
		}
	} else {
		for (uint32_t h = 0; h < tp_fabric_host_count(f); h++)
			if (tp_fabric_host_at(f, h)->mapped &&
			    tp_cli_hosts_add(&hosts,
			                     tp_fabric_host_at(f, h)->name,
			                     &err) != TP_OK) {
				status = tp_cli_fail(WHAT " load", &err);
				goto out;
			}
	}
	if (read_matrix(matrix, &hosts, &flows, &nflows, &err) != TP_OK) {
		status = tp_cli_fail(WHAT " load", &err);
		goto out;
	}
	if (!o->dmodk &&
	    tp_routes_read_live(f, o->ca, o->port, &r, &err) != TP_OK) {
		fprintf(stderr,
		        "topoplace fabric load: no forwarding tables (%s); "
		        "using the D-mod-k model\n",
		        err.message);
		r = NULL;
	}
	if (r == NULL && tp_routes_new_dmodk(f, &r, &err) != TP_OK) {
		status = tp_cli_fail(WHAT " load", &err);
		goto out;
	}
	bytes = calloc((size_t)tp_fabric_port_count(f) + 1, sizeof(*bytes));
	if (bytes == NULL) {
		tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
		status = tp_cli_fail(WHAT " load", &err);
		goto out;
	}
	if (tp_routes_load(r, flows, nflows, bytes, &err) != TP_OK) {
		tp_error_prefix(&err, "%s", matrix);
		status = tp_cli_fail(WHAT " load", &err);
		goto out;
	}
	for (size_t i = 0; i < nflows; i++)
		total += flows[i].bytes;
	for (uint32_t p = 0; p < tp_fabric_port_count(f); p++) {
		hop_bytes += bytes[p];
		loaded += bytes[p] > 0;
		if (bytes[p] > max) {
			max = bytes[p];
			max_port = p;
		}
	}
	if (o->json) {
		status = load_json(f, r, nflows, total, hop_bytes, loaded,
		                   max_port, max);
		goto out;
	}
	printf("routes: %s\n",
	       tp_routes_kind_of(r) == TP_ROUTES_LFT
	           ? "forwarding tables read from the switches"
	           : "D-mod-k model (not read from the fabric)");
	printf("traffic: %zu flows, %" PRIu64 " bytes, hop-bytes %" PRIu64 "\n",
	       nflows, total, hop_bytes);
	printf("link directions loaded: %" PRIu32 "\n", loaded);
	if (max_port != TP_FABRIC_NONE) {
		const tp_fabric_port *p = tp_fabric_port_at(f, max_port);
		const tp_fabric_port *q = tp_fabric_peer(f, max_port);

		printf("max link load: %" PRIu64 " bytes %s[%" PRIu32
		       "] -> %s[%" PRIu32 "]\n",
		       max, tp_fabric_node_at(f, p->node)->name, p->num,
		       tp_fabric_node_at(f, q->node)->name, q->num);
	}
out:
	tp_cli_hosts_free(&hosts);
	free(flows);
	free(bytes);
	tp_routes_free(r);
	return status;
}

enum {
	O_CACHE = 256,
	O_CONF,
	O_MAP,
	O_CA,
	O_PORT,
	O_BCACHE,
	O_BCONF,
	O_DMODK,
	O_ALL,
	O_PATHS,
	O_MATRIX,
	O_HOSTS,
	O_JSON
};

/* One getopt_long answer @c into @o. */
static int parse_fabric_option(int c, const char *arg, struct opts *o)
{
	char *end;

	switch (c) {
	case O_CACHE:
		o->cache = arg;
		break;
	case O_CONF:
		o->conf = arg;
		break;
	case O_MAP:
		o->map = arg;
		break;
	case O_CA:
		o->ca = arg;
		break;
	case O_PORT:
		errno = 0;
		o->port = (int)strtol(arg, &end, 10);
		if (errno || *end || o->port < 0 || o->port > 254)
			return tp_cli_usage_error(
			    WHAT, "--port '%s' is not a port number", arg);
		break;
	case O_BCACHE:
		o->before_cache = arg;
		break;
	case O_BCONF:
		o->before_conf = arg;
		break;
	case O_DMODK:
		o->dmodk = true;
		break;
	case O_ALL:
		o->all_leaves = true;
		break;
	case O_PATHS:
		o->print_paths = true;
		break;
	case O_MATRIX:
		o->matrix = arg;
		break;
	case O_HOSTS:
		o->hosts = arg;
		break;
	case O_JSON:
		o->json = true;
		break;
	default: /* 'o' */
		o->output = arg;
		break;
	}
	return TP_EXIT_OK;
}

/*
 * The options after the action into @o; argv[optind..] are the operands
 * left.  Returns TP_EXIT_OK, -1 for --help, or TP_EXIT_USAGE after one
 * line naming the option.
 */
static int parse_fabric_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	    {"cache", required_argument, NULL, O_CACHE},
	    {"topology-conf", required_argument, NULL, O_CONF},
	    {"node-name-map", required_argument, NULL, O_MAP},
	    {"ca", required_argument, NULL, O_CA},
	    {"port", required_argument, NULL, O_PORT},
	    {"before-cache", required_argument, NULL, O_BCACHE},
	    {"before-topology-conf", required_argument, NULL, O_BCONF},
	    {"dmodk", no_argument, NULL, O_DMODK},
	    {"all-leaves", no_argument, NULL, O_ALL},
	    {"print-paths", no_argument, NULL, O_PATHS},
	    {"matrix", required_argument, NULL, O_MATRIX},
	    {"hosts", required_argument, NULL, O_HOSTS},
	    {"json", no_argument, NULL, O_JSON},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc;

	*o = (struct opts){0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		if (c == 'h')
			return -1;
		if (c != 'o' && (c < O_CACHE || c > O_JSON))
			return tp_cli_bad_option(WHAT, c, argv, "");
		if ((rc = parse_fabric_option(c, optarg, o)) != TP_EXIT_OK)
			return rc;
	}
	if (o->cache != NULL && o->conf != NULL)
		return tp_cli_usage_error(WHAT, "--cache and --topology-conf "
		                                "are two sources: give one");
	return TP_EXIT_OK;
}

/* What action @sub needs of the options and operands (cache's one FILE is
 * checked by the caller). */
static int check_fabric_action(const char *sub, const struct opts *o, int argc,
                               char **argv)
{
	if (o->json && (!strcmp(sub, "cache") || !strcmp(sub, "topology")))
		return tp_cli_usage_error(WHAT,
		                          "--json: for show, diff, route and "
		                          "load (%s writes a file)",
		                          sub);
	if (o->json && o->print_paths)
		return tp_cli_usage_error(WHAT " route",
		                          "--print-paths: the --json document "
		                          "has every path already");
	if (!strcmp(sub, "cache"))
		return argc - optind != 1
		           ? tp_cli_usage_error(WHAT " cache",
		                                "need one output FILE")
		           : TP_EXIT_OK;
	if (!strcmp(sub, "diff") &&
	    (o->before_cache == NULL) == (o->before_conf == NULL))
		return tp_cli_usage_error(WHAT " diff",
		                          "need one of --before-cache FILE, "
		                          "--before-topology-conf FILE");
	if (!strcmp(sub, "load") && o->matrix == NULL)
		return tp_cli_usage_error(WHAT " load", "need --matrix FILE");
	if (strcmp(sub, "route") && optind != argc)
		return tp_cli_usage_error(WHAT, "unexpected argument '%s'",
		                          argv[optind]);
	return TP_EXIT_OK;
}

/* Action @sub on the fabric of @o (cache discovers and writes one). */
static int run_fabric_action(const char *sub, const struct opts *o, int argc,
                             char **argv)
{
	tp_fabric *f = NULL;
	int status;

	if (!strcmp(sub, "cache"))
		return cmd_cache(o, argv[optind]);
	if ((status = load(o, &f)) != TP_EXIT_OK)
		return status;
	if (!strcmp(sub, "show"))
		status = cmd_show(f, o->json);
	else if (!strcmp(sub, "topology"))
		status = cmd_topology(f, o->output);
	else if (!strcmp(sub, "diff"))
		status = cmd_diff(o, f);
	else if (!strcmp(sub, "load"))
		status = cmd_load(o, f);
	else
		status = cmd_route(o, f, argc - optind, argv + optind);
	tp_fabric_free(f);
	return status;
}

int tp_cli_fabric(int argc, char **argv)
{
	struct opts o;
	const char *sub;
	int status;

	if (argc < 2) {
		usage(stderr);
		return TP_EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    !strcmp(sub, "help")) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	if (strcmp(sub, "show") && strcmp(sub, "cache") &&
	    strcmp(sub, "topology") && strcmp(sub, "diff") &&
	    strcmp(sub, "route") && strcmp(sub, "load"))
		return tp_cli_usage_error(WHAT,
		                          "unknown action '%s' (show, cache, "
		                          "topology, diff, route, load)",
		                          sub);
	argc--;
	argv++;
	status = parse_fabric_opts(argc, argv, &o);
	if (status == -1) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	if (status != TP_EXIT_OK ||
	    (status = check_fabric_action(sub, &o, argc, argv)) != TP_EXIT_OK)
		return status;
	return run_fabric_action(sub, &o, argc, argv);
}
