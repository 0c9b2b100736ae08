/*
 * ioserver.c: I/O server placement (spread, isolated, random, staggered)
 * and the uplink load of n clients -> m servers traffic.
 *
 * Why staggered exists beside the thesis's spread: spread puts every server
 * on its leaf's last port, and destination-based fat-tree routing (D-mod-K,
 * OpenSM's ftree/updn on a regular tree) picks a leaf's uplink from the
 * destination's port.  All traffic from a client leaf to the servers then
 * leaves over one uplink: that confines I/O to a few spines (the thesis's
 * aim, good for MPI) but caps I/O bandwidth at one link per client leaf.
 * Staggering the servers' ports spreads the same traffic over as many
 * uplinks as there are servers, while no MPI host shares a server's port,
 * so under D-mod-K no link carries both (checked on OpenSM's real tables in
 * tests/integration/ioserver_routes.sh).
 */
#include "tp_config.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioserver.h"

#define NAMES_LISTED 8

struct place {
	const tp_topo *topo;
	const tp_ioserver_request *req;
	uint32_t host_count, leaf_count;
	uint8_t *job;                  /* host is the job's */
	uint8_t *cand;                 /* host may serve */
	uint8_t *taken;                /* host chosen */
	uint8_t *leaf_tier;            /* preference, lower first */
	uint8_t *comm_leaf, *comm_pod; /* a comm_sensitive job runs there */
	uint32_t *leaf_cand;
	uint32_t *order; /* leaves in preference order */
	uint32_t order_count;
	uint32_t *chosen;
	uint32_t chosen_count;
};

static void say(char *buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= TP_IOSERVER_REASON_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, TP_IOSERVER_REASON_MAX - *len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= TP_IOSERVER_REASON_MAX - *len) {
		*len = TP_IOSERVER_REASON_MAX - 1;
		memcpy(buf + TP_IOSERVER_REASON_MAX - 4, "...", 4);
		return;
	}
	*len += (size_t)n;
}

static bool host_usable(const tp_ioserver_request *req, uint32_t h)
{
	const tp_host_use *u;

	if (!req->use)
		return true;
	u = &req->use[h];
	return u->state == TP_HOST_FREE ||
	       (u->state == TP_HOST_RESERVED && u->job_id == req->job_id) ||
	       (u->state == TP_HOST_BUSY && u->job_id == req->job_id);
}

/* Candidates by scope, leaf tiers, and leaves in preference order. */
static void build_candidates(struct place *p)
{
	const tp_ioserver_request *req = p->req;
	uint32_t pod_count = tp_topo_pod_count(p->topo);
	uint8_t *job_pod = p->taken; /* borrowed, cleared below */
	uint8_t *job_leaf = p->leaf_tier;
	const uint8_t *comm_leaf = p->comm_leaf, *comm_pod = p->comm_pod;

	memset(job_pod, 0, pod_count);
	for (uint32_t i = 0; i < req->job_host_count; i++) {
		uint32_t leaf = tp_topo_host_leaf(p->topo, req->job_hosts[i]);

		p->job[req->job_hosts[i]] = 1;
		job_leaf[leaf] = 1;
	}
	for (uint32_t l = 0; l < p->leaf_count; l++)
		if (job_leaf[l])
			job_pod[tp_topo_leaf_pod(p->topo, l)] = 1;
	for (uint32_t h = 0; req->use && h < p->host_count; h++) {
		const tp_host_use *u = &req->use[h];
		uint32_t leaf = tp_topo_host_leaf(p->topo, h);

		if (u->state == TP_HOST_BUSY && u->job_id != req->job_id &&
		    u->job_class == TP_JOBCLASS_COMM_SENSITIVE) {
			p->comm_leaf[leaf] = 1;
			p->comm_pod[tp_topo_leaf_pod(p->topo, leaf)] = 1;
		}
	}
	for (uint32_t h = 0; h < p->host_count; h++) {
		switch (req->scope) {
		case TP_IOSERVER_AMONG:
			p->cand[h] =
			    p->job[h] &&
			    (!req->use || req->use[h].state != TP_HOST_DOWN);
			break;
		case TP_IOSERVER_BESIDE:
			p->cand[h] = !p->job[h] && host_usable(req, h);
			break;
		default:
			p->cand[h] = host_usable(req, h);
			break;
		}
		if (p->cand[h])
			p->leaf_cand[tp_topo_host_leaf(p->topo, h)]++;
	}
	/* Tiers.  BESIDE spread: the job's leaves (no uplink at all), its
	 * pods, the rest.  BESIDE isolated: leaves of the job's pods without
	 * its hosts, other leaves without its hosts, its own leaves last. */
	for (uint32_t l = 0; l < p->leaf_count; l++) {
		bool mine = job_leaf[l];
		bool my_pod = job_pod[tp_topo_leaf_pod(p->topo, l)];
		uint8_t tier = 0;

		if (req->scope == TP_IOSERVER_BESIDE) {
			if (req->policy == TP_IOSERVER_ISOLATED)
				tier = mine ? 2 : my_pod ? 0 : 1;
			else
				tier = mine ? 0 : my_pod ? 1 : 2;
		}
		/* Server ends of I/O converge on their leaf and pod: keep
		 * them off leaves, then pods, of comm_sensitive jobs. */
		if (comm_leaf[l])
			tier += 6;
		else if (comm_pod[tp_topo_leaf_pod(p->topo, l)])
			tier += 3;
		p->leaf_tier[l] = tier;
	}
	memset(job_pod, 0, pod_count);
	p->order_count = 0;
	for (uint8_t tier = 0; tier < 9; tier++)
		for (uint32_t l = 0; l < p->leaf_count; l++)
			if (p->leaf_tier[l] == tier && p->leaf_cand[l])
				p->order[p->order_count++] = l;
}

/* The last candidate host of @leaf not yet taken, or TP_TOPO_NONE. */
static uint32_t last_free_host(struct place *p, uint32_t leaf)
{
	uint32_t n;
	const uint32_t *hosts = tp_topo_leaf_hosts(p->topo, leaf, &n);

	for (uint32_t i = n; i-- > 0;)
		if (p->cand[hosts[i]] && !p->taken[hosts[i]])
			return hosts[i];
	return TP_TOPO_NONE;
}

/*
 * staggered: the k-th server (k = servers placed so far) prefers the host
 * k ports from its leaf's end (modulo the leaf's hosts), else the next
 * free candidate towards the leaf's start, wrapping round.
 */
static uint32_t staggered_free_host(struct place *p, uint32_t leaf)
{
	uint32_t n;
	const uint32_t *hosts = tp_topo_leaf_hosts(p->topo, leaf, &n);
	uint32_t first;

	if (n == 0)
		return TP_TOPO_NONE;
	first = n - 1 - p->chosen_count % n;
	for (uint32_t step = 0; step < n; step++) {
		uint32_t h = hosts[(first + n - step) % n];

		if (p->cand[h] && !p->taken[h])
			return h;
	}
	return TP_TOPO_NONE;
}

static uint32_t pick_on_leaf(struct place *p, uint32_t leaf)
{
	if (p->req->policy == TP_IOSERVER_STAGGERED)
		return staggered_free_host(p, leaf);
	return last_free_host(p, leaf);
}

static void take(struct place *p, uint32_t h)
{
	p->taken[h] = 1;
	p->chosen[p->chosen_count++] = h;
}

/* spread and staggered: the same leaves, a different host on each. */
static void place_spread(struct place *p)
{
	uint32_t m = p->req->servers;

	if (m < p->order_count) {
		/* Whole tiers while they fit, then evenly spaced over the
		 * tier where the servers run out, so site-wide servers
		 * cover every pod. */
		uint32_t a = 0;

		while (p->chosen_count < m) {
			uint32_t b = a, rest = m - p->chosen_count;

			while (b < p->order_count &&
			       p->leaf_tier[p->order[b]] ==
			           p->leaf_tier[p->order[a]])
				b++;
			if (b - a <= rest) {
				for (uint32_t i = a; i < b; i++)
					take(p, pick_on_leaf(p, p->order[i]));
			} else {
				for (uint32_t i = 0; i < rest; i++) {
					uint32_t leaf =
					    p->order[a + (uint64_t)i * (b - a) /
					                     rest];

					take(p, pick_on_leaf(p, leaf));
				}
			}
			a = b;
		}
		return;
	}
	while (p->chosen_count < m) {
		uint32_t before = p->chosen_count;

		for (uint32_t i = 0; i < p->order_count && p->chosen_count < m;
		     i++) {
			uint32_t h = pick_on_leaf(p, p->order[i]);

			if (h != TP_TOPO_NONE)
				take(p, h);
		}
		if (p->chosen_count == before)
			break;
	}
}

static void place_isolated(struct place *p)
{
	uint32_t m = p->req->servers;
	bool site = p->req->scope == TP_IOSERVER_SITE;

	while (p->chosen_count < m) {
		uint32_t best = TP_TOPO_NONE;

		/* Lowest tier, most candidates; ties: site-wide the last
		 * leaf (storage racks sit at the end), per job the first. */
		for (uint32_t i = 0; i < p->order_count; i++) {
			uint32_t l = p->order[i];

			if (!p->leaf_cand[l])
				continue;
			if (best == TP_TOPO_NONE ||
			    p->leaf_tier[l] < p->leaf_tier[best] ||
			    (p->leaf_tier[l] == p->leaf_tier[best] &&
			     (p->leaf_cand[l] > p->leaf_cand[best] ||
			      (p->leaf_cand[l] == p->leaf_cand[best] && site))))
				best = l;
		}
		if (best == TP_TOPO_NONE)
			break;
		while (p->chosen_count < m && p->leaf_cand[best]) {
			take(p, last_free_host(p, best));
			p->leaf_cand[best]--;
		}
		p->leaf_cand[best] = 0;
	}
}

/* splitmix64: small, seedable, same sequence on every platform. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static tp_status place_random(struct place *p, tp_error *err)
{
	uint32_t n = 0, m = p->req->servers;
	uint64_t state = p->req->seed;
	uint32_t *pool = malloc(sizeof(uint32_t) * (size_t)p->host_count);

	if (!pool)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "I/O servers: no memory for %u hosts",
		                    p->host_count);
	for (uint32_t h = 0; h < p->host_count; h++)
		if (p->cand[h])
			pool[n++] = h;
	for (uint32_t i = 0; i < m && i < n; i++) {
		uint32_t j = i + (uint32_t)(next_random(&state) % (n - i));
		uint32_t t = pool[i];

		pool[i] = pool[j];
		pool[j] = t;
		take(p, pool[i]);
	}
	free(pool);
	return TP_OK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static const char *const scope_words[] = {
    [TP_IOSERVER_SITE] = "site-wide",
    [TP_IOSERVER_AMONG] = "among the job's hosts",
    [TP_IOSERVER_BESIDE] = "beside the job's hosts",
};

static void explain(struct place *p, tp_ioserver_result *r)
{
	size_t len = 0;
	uint32_t leaves = 0, same_leaf = 0;
	uint8_t *seen = p->leaf_tier; /* reused: tiers are no longer needed */

	memset(seen, 0, p->leaf_count);
	for (uint32_t i = 0; i < r->server_count; i++) {
		uint32_t l = tp_topo_host_leaf(p->topo, r->servers[i]);

		leaves += !seen[l];
		seen[l] = 1;
	}
	if (p->req->scope == TP_IOSERVER_BESIDE)
		for (uint32_t i = 0; i < r->server_count; i++) {
			uint32_t l = tp_topo_host_leaf(p->topo, r->servers[i]);

			for (uint32_t k = 0; k < p->req->job_host_count; k++)
				if (tp_topo_host_leaf(
				        p->topo, p->req->job_hosts[k]) == l) {
					same_leaf++;
					break;
				}
		}
	say(r->reason, &len, "%s: %u server%s %s on %u lea%s",
	    tp_ioserver_policy_name(p->req->policy), r->server_count,
	    r->server_count == 1 ? "" : "s", scope_words[p->req->scope], leaves,
	    leaves == 1 ? "f" : "ves");
	switch (p->req->policy) {
	case TP_IOSERVER_SPREAD:
		say(r->reason, &len,
		    " (one per leaf on its last usable port: traffic to port k "
		    "rides spine k only)");
		break;
	case TP_IOSERVER_ISOLATED:
		say(r->reason, &len, " (packed on dedicated leaves)");
		break;
	case TP_IOSERVER_STAGGERED:
		say(r->reason, &len,
		    " (one per leaf, each on another port: under D-mod-K "
		    "routing their traffic uses as many uplinks as servers)");
		break;
	default:
		say(r->reason, &len, " (seed %llu)",
		    (unsigned long long)p->req->seed);
		break;
	}
	if (p->req->scope == TP_IOSERVER_BESIDE)
		say(r->reason, &len, ", %u on the job's own leaves", same_leaf);
	{
		uint32_t near_leaf = 0, near_pod = 0;

		for (uint32_t i = 0; i < r->server_count; i++) {
			uint32_t l = tp_topo_host_leaf(p->topo, r->servers[i]);

			near_leaf += p->comm_leaf[l];
			near_pod += !p->comm_leaf[l] &&
			            p->comm_pod[tp_topo_leaf_pod(p->topo, l)];
		}
		if (near_leaf || near_pod)
			say(r->reason, &len,
			    ", %u on leaves and %u more in pods of "
			    "comm_sensitive jobs (no room elsewhere or random)",
			    near_leaf, near_pod);
	}
	say(r->reason, &len, ":");
	for (uint32_t i = 0; i < r->server_count && i < NAMES_LISTED; i++) {
		uint32_t h = r->servers[i];

		say(r->reason, &len, " %s (%s)", tp_topo_host_name(p->topo, h),
		    tp_topo_leaf_name(p->topo, tp_topo_host_leaf(p->topo, h)));
	}
	if (r->server_count > NAMES_LISTED)
		say(r->reason, &len, " (+%u more)",
		    r->server_count - NAMES_LISTED);
}

static void place_free(struct place *p)
{
	free(p->job);
	free(p->cand);
	free(p->taken);
	free(p->leaf_tier);
	free(p->comm_leaf);
	free(p->comm_pod);
	free(p->leaf_cand);
	free(p->order);
	free(p->chosen);
}

static tp_status check_request(const tp_topo *topo,
                               const tp_ioserver_request *req, tp_error *err)
{
	uint32_t hosts = tp_topo_host_count(topo);

	if (req->servers == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O servers: 0 servers requested");
	if ((unsigned)req->policy >= TP_IOSERVER_POLICY_COUNT)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O servers: unknown policy %d",
		                    (int)req->policy);
	if ((unsigned)req->scope > TP_IOSERVER_BESIDE)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O servers: unknown scope %d",
		                    (int)req->scope);
	if (req->scope != TP_IOSERVER_SITE &&
	    (!req->job_hosts || !req->job_host_count))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O servers %s: no job hosts given",
		                    scope_words[req->scope]);
	for (uint32_t i = 0; i < req->job_host_count; i++)
		if (req->job_hosts[i] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "I/O servers: job host #%u is "
			                    "index %u, the fabric has %u hosts",
			                    i, req->job_hosts[i], hosts);
	return TP_OK;
}

tp_status tp_ioserver_place(const tp_topo *topo, const tp_ioserver_request *req,
                            tp_ioserver_result *r, tp_error *err)
{
	struct place p = {0};
	tp_status rc;
	uint32_t usable = 0;

	if (!r)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O servers: NULL result");
	memset(r, 0, sizeof(*r));
	if (!topo || !req)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O servers: NULL fabric or request");
	rc = check_request(topo, req, err);
	if (rc != TP_OK)
		return rc;
	p.topo = topo;
	p.req = req;
	p.host_count = tp_topo_host_count(topo);
	p.leaf_count = tp_topo_leaf_count(topo);
	p.job = calloc(p.host_count, 1);
	p.cand = calloc(p.host_count, 1);
	/* taken doubles as a per-pod scratch in build_candidates */
	p.taken = calloc(p.host_count > tp_topo_pod_count(topo)
	                     ? p.host_count
	                     : tp_topo_pod_count(topo),
	                 1);
	p.leaf_tier = calloc(p.leaf_count, 1);
	p.comm_leaf = calloc(p.leaf_count, 1);
	p.comm_pod = calloc(tp_topo_pod_count(topo), 1);
	p.leaf_cand = calloc(p.leaf_count, sizeof(uint32_t));
	p.order = calloc(p.leaf_count, sizeof(uint32_t));
	p.chosen = calloc(req->servers, sizeof(uint32_t));
	if (!p.job || !p.cand || !p.taken || !p.leaf_tier || !p.comm_leaf ||
	    !p.comm_pod || !p.leaf_cand || !p.order || !p.chosen) {
		place_free(&p);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "I/O servers: no memory for %u hosts",
		                    p.host_count);
	}
	build_candidates(&p);
	for (uint32_t l = 0; l < p.leaf_count; l++)
		usable += p.leaf_cand[l];
	if (usable < req->servers) {
		place_free(&p);
		return tp_error_set(
		    err, TP_ERR_UNSUPPORTED,
		    "I/O servers %s: %u wanted, only %u usable hosts",
		    scope_words[req->scope], req->servers, usable);
	}
	switch (req->policy) {
	case TP_IOSERVER_SPREAD:
	case TP_IOSERVER_STAGGERED:
		place_spread(&p);
		break;
	case TP_IOSERVER_ISOLATED:
		place_isolated(&p);
		break;
	default:
		rc = place_random(&p, err);
		break;
	}
	if (rc == TP_OK && p.chosen_count != req->servers)
		rc = tp_error_set(err, TP_ERR_INTERNAL,
		                  "I/O servers: placed %u of %u",
		                  p.chosen_count, req->servers);
	if (rc != TP_OK) {
		place_free(&p);
		return rc;
	}
	qsort(p.chosen, p.chosen_count, sizeof(uint32_t), cmp_u32);
	r->servers = p.chosen;
	r->server_count = p.chosen_count;
	p.chosen = NULL;
	explain(&p, r);
	place_free(&p);
	return TP_OK;
}

void tp_ioserver_result_free(tp_ioserver_result *result)
{
	if (!result)
		return;
	free(result->servers);
	result->servers = NULL;
	result->server_count = 0;
}

/* ---- load ------------------------------------------------------------ */

tp_status tp_ioserver_load(const tp_topo *topo, const uint32_t *clients,
                           uint32_t client_count, const uint32_t *servers,
                           uint32_t server_count, double bytes_per_client,
                           tp_io_load *load, tp_error *err)
{
	uint32_t hosts, leaves, pods;
	uint32_t *leaf_c = NULL, *leaf_s = NULL, *pod_c = NULL, *pod_s = NULL;
	double per_pair;
	tp_status rc = TP_OK;

	if (!load)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O load: NULL result");
	memset(load, 0, sizeof(*load));
	if (!topo || !clients || !servers || !client_count || !server_count)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O load: no clients or no servers");
	if (!isfinite(bytes_per_client) || bytes_per_client < 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O load: bytes per client %g is not >= 0",
		                    bytes_per_client);
	hosts = tp_topo_host_count(topo);
	leaves = tp_topo_leaf_count(topo);
	pods = tp_topo_pod_count(topo);
	for (uint32_t i = 0; i < client_count; i++)
		if (clients[i] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "I/O load: client #%u is host "
			                    "index %u, the fabric has %u hosts",
			                    i, clients[i], hosts);
	for (uint32_t i = 0; i < server_count; i++)
		if (servers[i] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "I/O load: server #%u is host "
			                    "index %u, the fabric has %u hosts",
			                    i, servers[i], hosts);
	leaf_c = calloc(leaves, sizeof(uint32_t));
	leaf_s = calloc(leaves, sizeof(uint32_t));
	pod_c = calloc(pods, sizeof(uint32_t));
	pod_s = calloc(pods, sizeof(uint32_t));
	load->leaf_up_bytes = calloc(leaves, sizeof(double));
	load->leaf_down_bytes = calloc(leaves, sizeof(double));
	load->pod_up_bytes = calloc(pods, sizeof(double));
	load->pod_down_bytes = calloc(pods, sizeof(double));
	if (!leaf_c || !leaf_s || !pod_c || !pod_s || !load->leaf_up_bytes ||
	    !load->leaf_down_bytes || !load->pod_up_bytes ||
	    !load->pod_down_bytes) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "I/O load: no memory for %u leaves", leaves);
		tp_io_load_free(load);
		goto out;
	}
	load->leaf_count = leaves;
	load->pod_count = pods;
	for (uint32_t i = 0; i < client_count; i++) {
		uint32_t l = tp_topo_host_leaf(topo, clients[i]);

		leaf_c[l]++;
		pod_c[tp_topo_leaf_pod(topo, l)]++;
	}
	for (uint32_t i = 0; i < server_count; i++) {
		uint32_t l = tp_topo_host_leaf(topo, servers[i]);

		leaf_s[l]++;
		pod_s[tp_topo_leaf_pod(topo, l)]++;
	}
	/* Each client sends bytes/m to each server; a pair crosses a leaf's
	 * uplink when exactly one end is on that leaf. */
	per_pair = bytes_per_client / server_count;
	for (uint32_t l = 0; l < leaves; l++) {
		double up = per_pair * leaf_c[l] * (server_count - leaf_s[l]);
		double down = per_pair * leaf_s[l] * (client_count - leaf_c[l]);

		load->leaf_up_bytes[l] = up;
		load->leaf_down_bytes[l] = down;
		load->total_leaf_uplink_bytes += up + down;
		load->loaded_leaves += up + down > 0;
		if (down > load->max_leaf_down_bytes) {
			load->max_leaf_down_bytes = down;
			load->max_leaf = l;
		}
	}
	for (uint32_t p = 0; p < pods; p++) {
		load->pod_up_bytes[p] =
		    per_pair * pod_c[p] * (server_count - pod_s[p]);
		load->pod_down_bytes[p] =
		    per_pair * pod_s[p] * (client_count - pod_c[p]);
		if (load->pod_down_bytes[p] > load->max_pod_down_bytes)
			load->max_pod_down_bytes = load->pod_down_bytes[p];
	}
out:
	free(leaf_c);
	free(leaf_s);
	free(pod_c);
	free(pod_s);
	return rc;
}

void tp_io_load_free(tp_io_load *load)
{
	if (!load)
		return;
	free(load->leaf_up_bytes);
	free(load->leaf_down_bytes);
	free(load->pod_up_bytes);
	free(load->pod_down_bytes);
	memset(load, 0, sizeof(*load));
}

/* ---- per-link load over routes -------------------------------------- */

const char *tp_io_stage_name(tp_io_stage stage)
{
	return tp_link_stage_name(stage);
}

/* Add @bytes to every direction of the path @src -> @dst. */
static tp_status add_path(const tp_fabric *f, const tp_routes *routes,
                          tp_routing routing, uint32_t src, uint32_t dst,
                          double bytes, const char *what, tp_io_link_load *load,
                          tp_error *err)
{
	tp_status rc = tp_link_load_add_routed_path(load, f, routes, routing,
	                                            src, dst, bytes, err);

	if (rc != TP_OK)
		tp_error_prefix(err, "I/O %s %s -> %s", what,
		                tp_fabric_host_at(f, src)->name,
		                tp_fabric_host_at(f, dst)->name);
	return rc;
}

tp_status tp_ioserver_link_load(const tp_fabric *fabric,
                                const tp_routes *routes, tp_routing routing,
                                const uint32_t *clients, uint32_t client_count,
                                const uint32_t *servers, uint32_t server_count,
                                double write_bytes_per_client,
                                double read_bytes_per_client,
                                tp_io_link_load *load, tp_error *err)
{
	uint32_t hosts;
	double write_pair, read_pair;
	tp_status rc;

	if (!load)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O link load: NULL result");
	memset(load, 0, sizeof(*load));
	load->max_port = load->max_fabric_port = TP_FABRIC_NONE;
	for (int s = 0; s < TP_IO_STAGES; s++)
		load->stage[s].max_port = TP_FABRIC_NONE;
	if (!fabric || !routes)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O link load: NULL fabric or routes");
	if (!clients || !servers || !client_count || !server_count)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O link load: no clients or no servers");
	if (!isfinite(write_bytes_per_client) || write_bytes_per_client < 0 ||
	    !isfinite(read_bytes_per_client) || read_bytes_per_client < 0)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "I/O link load: bytes per client (write %g, "
		    "read %g) must be >= 0",
		    write_bytes_per_client, read_bytes_per_client);
	hosts = tp_fabric_host_count(fabric);
	for (uint32_t i = 0; i < client_count; i++)
		if (clients[i] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "I/O link load: client #%u is host "
			                    "index %u, fabric %s has %u hosts",
			                    i, clients[i],
			                    tp_fabric_source(fabric), hosts);
	for (uint32_t i = 0; i < server_count; i++)
		if (servers[i] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "I/O link load: server #%u is host "
			                    "index %u, fabric %s has %u hosts",
			                    i, servers[i],
			                    tp_fabric_source(fabric), hosts);
	rc = tp_link_load_start(fabric, routes, load, err);
	if (rc != TP_OK) {
		tp_error_prefix(err, "I/O link load");
		return rc;
	}
	/* Striped evenly: every client sends (and gets) its share of each
	 * server, so each pair carries bytes / m each way asked for. */
	write_pair = write_bytes_per_client / server_count;
	read_pair = read_bytes_per_client / server_count;
	for (uint32_t i = 0; i < client_count; i++) {
		for (uint32_t j = 0; j < server_count; j++) {
			rc = add_path(fabric, routes, routing, clients[i],
			              servers[j], write_pair, "write", load,
			              err);
			if (rc == TP_OK)
				rc = add_path(fabric, routes, routing,
				              servers[j], clients[i], read_pair,
				              "read", load, err);
			if (rc != TP_OK) {
				tp_io_link_load_free(load);
				return rc;
			}
		}
	}
	tp_link_load_finish(fabric, load);
	return TP_OK;
}

void tp_io_link_load_free(tp_io_link_load *load)
{
	tp_link_load_free(load);
}

tp_status tp_ioserver_fabric_hosts(const tp_topo *topo, const tp_fabric *fabric,
                                   const uint32_t *topo_hosts, uint32_t count,
                                   const char *role, uint32_t *fabric_hosts,
                                   tp_error *err)
{
	uint32_t hosts;

	if (!topo || !fabric || (count && (!topo_hosts || !fabric_hosts)))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O %ss: NULL hierarchy, fabric or hosts",
		                    role);
	hosts = tp_topo_host_count(topo);
	for (uint32_t i = 0; i < count; i++) {
		const char *name;

		if (topo_hosts[i] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "I/O %s #%u is host index %u, the "
			                    "hierarchy has %u hosts",
			                    role, i, topo_hosts[i], hosts);
		name = tp_topo_host_name(topo, topo_hosts[i]);
		fabric_hosts[i] = tp_fabric_find_host(fabric, name);
		if (fabric_hosts[i] == TP_FABRIC_NONE)
			return tp_error_set(
			    err, TP_ERR_NOTFOUND,
			    "I/O %s #%u '%s' is not a host of %s", role, i,
			    name, tp_fabric_source(fabric));
	}
	return TP_OK;
}

tp_status tp_ioserver_fabric_hosts_by_name(const tp_fabric *fabric,
                                           const char *const *names,
                                           uint32_t count, const char *role,
                                           uint32_t *fabric_hosts,
                                           tp_error *err)
{
	if (!fabric || (count && (!names || !fabric_hosts)))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O %ss: NULL fabric or hosts", role);
	for (uint32_t i = 0; i < count; i++) {
		fabric_hosts[i] = names[i]
		                      ? tp_fabric_find_host(fabric, names[i])
		                      : TP_FABRIC_NONE;
		if (fabric_hosts[i] == TP_FABRIC_NONE)
			return tp_error_set(
			    err, TP_ERR_NOTFOUND,
			    "I/O %s #%u '%s' is not a host of %s", role, i,
			    names[i] ? names[i] : "", tp_fabric_source(fabric));
	}
	return TP_OK;
}

static bool loads_tie(double a, double b)
{
	return fabs(a - b) <= TP_IO_LOAD_TIE * fmax(a, b);
}

/*
 * The busiest direction first: every byte of the I/O crosses it, so its
 * load over the link rate bounds the time the I/O takes.  Under static
 * routing it alone orders the placements as the packet-level model
 * measured them (bench/RESULTS.md, "I/O server placements on the
 * packet-level model": spread's servers on one port funnel a client
 * leaf's I/O into one up-link, 8 units against 3, predicted and measured
 * 0.375 of the dedicated leaves' throughput; dedicated and staggered tie
 * on it and in throughput).
 *
 * Under adaptive routing the spread path ties the three placements on it
 * (each server's own link carries 3 units) where the measurement put
 * dedicated server leaves 15% lower: every spine-to-server-leaf link then
 * carries packets for all the leaf's servers, and with credit flow
 * control a packet waiting for one busy server link holds the packets
 * behind it in that switch input buffer, bound for idle ones (head-of-line
 * blocking), so the server links run below their rate.  A link-load model
 * does not see buffers; what it sees is where the load piles up before the
 * last hop: dedicated leaves put 3 units on each spine-to-leaf direction,
 * spread and staggered servers at most 1 (a server leaf gets its one
 * server's traffic from every spine).  So among equal bottlenecks the
 * busier switch-to-switch direction ranks lower.  Not under static
 * routing: D-mod-K sends all traffic to one port down one spine, so a
 * spine-to-leaf direction as busy as a server's link carries that one
 * server's packets and blocks nothing (dedicated leaves and staggered
 * servers on other leaves both have it, and moved the same bytes).
 */
int tp_io_link_load_order(const tp_io_link_load *a, const tp_io_link_load *b,
                          tp_routing routing)
{
	if (!loads_tie(a->max_bytes, b->max_bytes))
		return a->max_bytes < b->max_bytes ? -1 : 1;
	if (routing == TP_ROUTING_ADAPTIVE &&
	    !loads_tie(a->max_fabric_bytes, b->max_fabric_bytes))
		return a->max_fabric_bytes < b->max_fabric_bytes ? -1 : 1;
	return 0;
}

/* Each placed row's rank: 1 + the placed rows predicted faster. */
static void rank_rows(tp_io_link_comparison *cmp)
{
	for (int p = 0; p < TP_IOSERVER_POLICY_COUNT; p++) {
		tp_io_policy_links *row = &cmp->rows[p];

		row->rank = 0;
		if (row->status != TP_OK)
			continue;
		row->rank = 1;
		for (int q = 0; q < TP_IOSERVER_POLICY_COUNT; q++)
			if (cmp->rows[q].status == TP_OK &&
			    tp_io_link_load_order(&cmp->rows[q].load,
			                          &row->load, cmp->routing) < 0)
				row->rank++;
	}
}

tp_status tp_ioserver_compare_links(
    const tp_topo *topo, const tp_fabric *fabric, const tp_routes *routes,
    tp_routing routing, const tp_ioserver_request *request,
    const uint32_t *clients, uint32_t client_count,
    double write_bytes_per_client, double read_bytes_per_client,
    tp_io_link_comparison *cmp, tp_error *err)
{
	uint32_t *fclients = NULL, *fservers = NULL;
	tp_status rc;

	if (!cmp)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O link comparison: NULL result");
	memset(cmp, 0, sizeof(*cmp));
	for (int p = 0; p < TP_IOSERVER_POLICY_COUNT; p++)
		tp_io_link_load_free(&cmp->rows[p].load);
	if (!topo || !fabric || !routes || !request)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O link comparison: NULL hierarchy, "
		                    "fabric, routes or request");
	if (!clients || !client_count)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O link comparison: no clients");
	cmp->chosen = request->policy;
	cmp->kind = tp_routes_kind_of(routes);
	cmp->routing = routing;
	fclients = malloc(sizeof(*fclients) * (size_t)client_count);
	fservers = malloc(sizeof(*fservers) * ((size_t)request->servers + 1));
	if (!fclients || !fservers) {
		rc = tp_error_set(err, TP_ERR_NOMEM,
		                  "I/O link comparison: no memory for %u "
		                  "clients",
		                  client_count);
		goto out;
	}
	rc = tp_ioserver_fabric_hosts(topo, fabric, clients, client_count,
	                              "client", fclients, err);
	for (int p = 0; rc == TP_OK && p < TP_IOSERVER_POLICY_COUNT; p++) {
		tp_io_policy_links *row = &cmp->rows[p];
		tp_ioserver_request rq = *request;
		tp_error perr;

		row->policy = (tp_ioserver_policy)p;
		rq.policy = row->policy;
		row->status =
		    tp_ioserver_place(topo, &rq, &row->placement, &perr);
		if (row->status == TP_ERR_UNSUPPORTED) {
			snprintf(row->error, sizeof(row->error), "%s",
			         perr.message);
			continue;
		}
		if (row->status != TP_OK) {
			rc = row->status;
			if (err)
				*err = perr;
			break;
		}
		rc = tp_ioserver_fabric_hosts(
		    topo, fabric, row->placement.servers,
		    row->placement.server_count, "server", fservers, err);
		if (rc == TP_OK)
			rc = tp_ioserver_link_load(
			    fabric, routes, routing, fclients, client_count,
			    fservers, row->placement.server_count,
			    write_bytes_per_client, read_bytes_per_client,
			    &row->load, err);
		if (rc != TP_OK)
			tp_error_prefix(err, "%s",
			                tp_ioserver_policy_name(row->policy));
	}
	if (rc == TP_OK)
		rank_rows(cmp);
out:
	free(fclients);
	free(fservers);
	if (rc != TP_OK)
		tp_io_link_comparison_free(cmp);
	return rc;
}

void tp_io_link_comparison_free(tp_io_link_comparison *cmp)
{
	if (!cmp)
		return;
	for (int p = 0; p < TP_IOSERVER_POLICY_COUNT; p++) {
		tp_ioserver_result_free(&cmp->rows[p].placement);
		tp_io_link_load_free(&cmp->rows[p].load);
	}
}

static const char *const policy_names[] = {
    [TP_IOSERVER_SPREAD] = "spread",
    [TP_IOSERVER_ISOLATED] = "isolated",
    [TP_IOSERVER_RANDOM] = "random",
    [TP_IOSERVER_STAGGERED] = "staggered",
};

tp_status tp_ioserver_policy_parse(const char *text, tp_ioserver_policy *policy,
                                   tp_error *err)
{
	for (size_t i = 0; text && i < TP_IOSERVER_POLICY_COUNT; i++) {
		if (!strcmp(text, policy_names[i])) {
			*policy = (tp_ioserver_policy)i;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "I/O server policy '%s': expected %s",
	                    text ? text : "", TP_IOSERVER_CHOICES);
}

tp_status tp_ioserver_policy_parse_auto(const char *text,
                                        tp_ioserver_policy *policy,
                                        bool *is_auto, tp_error *err)
{
	*is_auto = text && !strcmp(text, "auto");
	if (*is_auto || tp_ioserver_policy_parse(text, policy, NULL) == TP_OK)
		return TP_OK;
	return tp_error_set(err, TP_ERR_INVALID,
	                    "I/O server policy '%s': expected auto|%s",
	                    text ? text : "", TP_IOSERVER_CHOICES);
}

const char *tp_ioserver_policy_name(tp_ioserver_policy policy)
{
	if ((unsigned)policy < TP_IOSERVER_POLICY_COUNT)
		return policy_names[policy];
	return "unknown";
}

tp_ioserver_policy tp_ioserver_policy_for_routing(tp_routing routing)
{
	return routing == TP_ROUTING_STATIC ? TP_IOSERVER_STAGGERED
	                                    : TP_IOSERVER_ISOLATED;
}

const char *tp_ioserver_policy_why(tp_routing routing)
{
	return routing == TP_ROUTING_STATIC
	           ? "static routing: servers on distinct ports spread their "
	             "traffic over the uplinks and no other host shares a "
	             "server's port"
	           : "adaptive routing: any uplink of a server's leaf may "
	             "carry its traffic, so servers get leaves of their own";
}
