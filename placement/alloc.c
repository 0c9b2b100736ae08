/*
 * alloc.c: leaf allocation policies (leaf, shared, pack, spread, off).
 *
 * One decision is a few linear passes: count what each leaf and pod can
 * give, pick pods, pick leaves inside them, pick hosts inside leaves.
 *
 * leaf picks its leaf set exactly (fit_leaves): a greedy cover (largest
 * first, then the tightest that holds the rest) misses exact fits such as
 * 3 + 3 for 6 hosts when a whole free leaf of 4 is there, and so used up
 * whole leaves and pods that big jobs need.  Usable hosts per leaf are at
 * most the hosts of a leaf, so a knapsack over the total of usable hosts
 * (at most need + hosts per leaf - 1) is small.  shared and pack still use
 * the greedy covers (cover_pods, cover_leaves): their leftover hosts stay
 * free for other jobs, so a loose fit costs them little.
 */
#include "tp_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"

/* Check the clock once per this many units of work (hosts, leaves). */
#define BUDGET_STRIDE 256
/* Names listed in the reason before "(+N more)". */
#define NAMES_LISTED 6

struct ctx {
	const tp_topo *topo;
	const tp_host_use *use;
	const tp_alloc_request *req;
	uint32_t host_count, leaf_count, pod_count;

	/* Per leaf: usable hosts, hosts of the leaf, whether the policy may
	 * use it, and how many hosts the decision takes from it. */
	uint32_t *leaf_free;
	uint8_t *leaf_foreign; /* another job has a host (busy or held) */
	uint8_t *leaf_held;    /* another job holds a leftover host here */
	uint8_t *leaf_class;   /* bit per class of other jobs on the leaf */
	uint8_t *leaf_ok;
	uint32_t *leaf_take;
	uint8_t *leaf_server; /* another job's or a site I/O server is here */
	uint32_t *leaf_not_ready; /* hosts back in a moment: not whole now */

	/* Per pod: what its eligible leaves can give, and the take. */
	uint32_t *pod_cap;
	uint8_t *pod_class; /* bit per class of other jobs in the pod */
	uint8_t *pod_ok;
	uint8_t *pod_whole_free;
	uint8_t *pod_used; /* pack: a leaf of the pod is taken */
	uint32_t *pod_take;
	uint8_t *pod_servers; /* another job's or a site I/O server is here */

	/* leaf under LeafRemainder=compatible: rem_take hosts (0: none) go
	 * on leaf rem_leaf, shared and not held; rem_packed: other jobs
	 * were there already. */
	uint32_t rem_leaf, rem_take;
	bool rem_packed;

	/* Adaptive routing, comm_sensitive: the job went into one pod with
	 * I/O rather than across pods (pod_exposed_first). */
	bool one_pod_exposed;
	/* The short "pod isolation given up" text (alloc.h), "" if none. */
	char *exposure;

	/* Occupancy totals, for reasons. */
	uint32_t usable, busy, held, down, not_ready;
	uint32_t servers;      /* I/O servers not of this job */
	uint32_t io_job_hosts; /* other io_heavy jobs' hosts (busy or held) */

	/* Budget. */
	uint64_t start_us;
	uint64_t work;
	bool over;

	char *reason;
	size_t reason_len;

	/* A failure inside a policy (no memory): decide returns it. */
	tp_status rc;
	tp_error *err;
};

static uint64_t monotonic_us(void *unused)
{
	struct timespec ts;

	(void)unused;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t now_us(const struct ctx *c)
{
	if (c->req->clock)
		return c->req->clock(c->req->clock_data);
	return monotonic_us(NULL);
}

/* True once the budget is spent; checks the clock now. */
static bool budget_check(struct ctx *c)
{
	if (c->over)
		return true;
	if (c->req->budget_us && now_us(c) - c->start_us > c->req->budget_us)
		c->over = true;
	return c->over;
}

/* Count @units of work; checks the clock every BUDGET_STRIDE units. */
static bool budget_tick(struct ctx *c, uint64_t units)
{
	uint64_t before = c->work / BUDGET_STRIDE;

	c->work += units;
	if (c->work / BUDGET_STRIDE != before)
		return budget_check(c);
	return c->over;
}

/* Append to @buf (@size bytes, *@len used); a cut text ends in "..." so
 * a reader sees it. */
static void text_vadd(char *buf, size_t size, size_t *len, const char *fmt,
                      va_list ap)
{
	int n;

	if (*len + 1 >= size)
		return;
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= size - *len) {
		*len = size - 1;
		memcpy(buf + size - 4, "...", 4);
		return;
	}
	*len += (size_t)n;
}

static void say(struct ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vadd(c->reason, TP_ALLOC_REASON_MAX, &c->reason_len, fmt, ap);
	va_end(ap);
}

static bool host_usable(const struct ctx *c, uint32_t h)
{
	const tp_host_use *u = &c->use[h];

	return u->state == TP_HOST_FREE ||
	       (u->state == TP_HOST_RESERVED && u->job_id == c->req->job_id);
}

/* A site-wide server is foreign to every job, even one with id 0. */
static bool host_foreign_server(const struct ctx *c, uint32_t h)
{
	const tp_host_use *u = &c->use[h];

	return u->state == TP_HOST_IOSERVER &&
	       (u->job_id == TP_ALLOC_SITE_JOB || u->job_id != c->req->job_id);
}

static bool host_foreign(const struct ctx *c, uint32_t h)
{
	const tp_host_use *u = &c->use[h];

	return ((u->state == TP_HOST_BUSY || u->state == TP_HOST_RESERVED) &&
	        u->job_id != c->req->job_id) ||
	       host_foreign_server(c, h);
}

static void ctx_free(struct ctx *c)
{
	free(c->leaf_free);
	free(c->leaf_foreign);
	free(c->leaf_held);
	free(c->leaf_class);
	free(c->leaf_ok);
	free(c->leaf_take);
	free(c->leaf_server);
	free(c->leaf_not_ready);
	free(c->pod_cap);
	free(c->pod_class);
	free(c->pod_ok);
	free(c->pod_whole_free);
	free(c->pod_used);
	free(c->pod_take);
	free(c->pod_servers);
}

static tp_status ctx_alloc(struct ctx *c, tp_error *err)
{
	size_t l = c->leaf_count, p = c->pod_count;

	c->leaf_free = calloc(l, sizeof(*c->leaf_free));
	c->leaf_foreign = calloc(l, 1);
	c->leaf_held = calloc(l, 1);
	c->leaf_class = calloc(l, 1);
	c->leaf_ok = calloc(l, 1);
	c->leaf_take = calloc(l, sizeof(*c->leaf_take));
	c->leaf_server = calloc(l, 1);
	c->leaf_not_ready = calloc(l, sizeof(*c->leaf_not_ready));
	c->pod_cap = calloc(p, sizeof(*c->pod_cap));
	c->pod_class = calloc(p, 1);
	c->pod_ok = calloc(p, 1);
	c->pod_whole_free = calloc(p, 1);
	c->pod_used = calloc(p, 1);
	c->pod_take = calloc(p, sizeof(*c->pod_take));
	c->pod_servers = calloc(p, 1);
	if (!c->leaf_free || !c->leaf_foreign || !c->leaf_held ||
	    !c->leaf_class || !c->leaf_ok || !c->leaf_take || !c->leaf_server ||
	    !c->leaf_not_ready ||
	    !c->pod_cap || !c->pod_class || !c->pod_ok || !c->pod_whole_free ||
	    !c->pod_used || !c->pod_take || !c->pod_servers)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "allocation: no memory for %u leaves",
		                    c->leaf_count);
	return TP_OK;
}

/* One pass over the hosts: validate and count per leaf and pod. */
static tp_status scan_occupancy(struct ctx *c, tp_error *err)
{
	for (uint32_t leaf = 0; leaf < c->leaf_count; leaf++) {
		uint32_t n, pod = tp_topo_leaf_pod(c->topo, leaf);
		const uint32_t *hosts = tp_topo_leaf_hosts(c->topo, leaf, &n);

		for (uint32_t i = 0; i < n; i++) {
			uint32_t h = hosts[i];
			const tp_host_use *u = &c->use[h];

			if ((unsigned)u->state > TP_HOST_NOT_READY)
				return tp_error_set(
				    err, TP_ERR_INVALID,
				    "occupancy: host %s: unknown state %d",
				    tp_topo_host_name(c->topo, h),
				    (int)u->state);
			if ((u->state == TP_HOST_BUSY ||
			     u->state == TP_HOST_RESERVED) &&
			    (unsigned)u->job_class > TP_JOBCLASS_COMM_SENSITIVE)
				return tp_error_set(
				    err, TP_ERR_INVALID,
				    "occupancy: host %s: unknown job class %d",
				    tp_topo_host_name(c->topo, h),
				    (int)u->job_class);
			if (host_usable(c, h)) {
				c->leaf_free[leaf]++;
				c->usable++;
			} else if (host_foreign_server(c, h)) {
				/* The I/O of its clients converges on it:
				 * its leaf and pod carry io_heavy traffic. */
				uint8_t bit =
				    (uint8_t)(1u << TP_JOBCLASS_IO_HEAVY);

				/* Static routing: the server's port has
				 * links of its own (see alloc.h). */
				if (c->req->routing != TP_ROUTING_STATIC) {
					c->leaf_foreign[leaf] = 1;
					c->leaf_class[leaf] |= bit;
				}
				c->leaf_server[leaf] = 1;
				c->pod_class[pod] |= bit;
				c->pod_servers[pod] = 1;
				c->servers++;
			} else if (host_foreign(c, h)) {
				uint8_t bit = (uint8_t)(1u << u->job_class);

				c->leaf_foreign[leaf] = 1;
				c->leaf_class[leaf] |= bit;
				c->pod_class[pod] |= bit;
				c->io_job_hosts +=
				    u->job_class == TP_JOBCLASS_IO_HEAVY;
				if (u->state == TP_HOST_RESERVED) {
					c->leaf_held[leaf] = 1;
					c->held++;
				} else {
					c->busy++;
				}
			} else if (u->state == TP_HOST_DOWN) {
				c->down++;
			} else if (u->state == TP_HOST_NOT_READY) {
				c->leaf_not_ready[leaf]++;
				c->not_ready++;
			}
		}
		if (budget_tick(c, n))
			return TP_ERR_BUDGET;
	}
	return TP_OK;
}

static bool leaf_whole_free(const struct ctx *c, uint32_t leaf)
{
	uint32_t n;

	tp_topo_leaf_hosts(c->topo, leaf, &n);
	return !c->leaf_foreign[leaf] && !c->leaf_not_ready[leaf] &&
	       c->leaf_free[leaf] == n;
}

/* Whether the leaf is wholly free once its hosts not ready are back. */
static bool leaf_whole_when_ready(const struct ctx *c, uint32_t leaf)
{
	uint32_t n;

	tp_topo_leaf_hosts(c->topo, leaf, &n);
	return !c->leaf_foreign[leaf] &&
	       c->leaf_free[leaf] + c->leaf_not_ready[leaf] == n;
}

/* Sum eligible leaf capacity per pod; note wholly free pods. */
static void sum_pods(struct ctx *c)
{
	for (uint32_t p = 0; p < c->pod_count; p++) {
		uint32_t n;
		const uint32_t *leaves = tp_topo_pod_leaves(c->topo, p, &n);
		bool whole = n > 0;

		c->pod_cap[p] = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (c->leaf_ok[leaves[i]])
				c->pod_cap[p] += c->leaf_free[leaves[i]];
			if (!leaf_whole_free(c, leaves[i]))
				whole = false;
		}
		c->pod_whole_free[p] = whole;
	}
}

/*
 * Greedy cover over pods with pod_ok set: fills pod_take, returns hosts
 * covered (== need unless capacity is short).  Best fit prefers a pod that
 * is not wholly free (keep whole pods for big jobs).
 */
static uint32_t cover_pods(struct ctx *c, uint32_t need)
{
	uint32_t covered = 0;

	while (covered < need) {
		uint32_t rest = need - covered, fit = TP_TOPO_NONE,
		         big = TP_TOPO_NONE;

		for (uint32_t p = 0; p < c->pod_count; p++) {
			uint32_t cap = c->pod_cap[p];

			if (!c->pod_ok[p] || c->pod_take[p] || cap == 0)
				continue;
			if (big == TP_TOPO_NONE || cap > c->pod_cap[big])
				big = p;
			if (cap < rest)
				continue;
			if (fit == TP_TOPO_NONE || cap < c->pod_cap[fit] ||
			    (cap == c->pod_cap[fit] && c->pod_whole_free[fit] &&
			     !c->pod_whole_free[p]))
				fit = p;
		}
		if (fit != TP_TOPO_NONE) {
			c->pod_take[fit] = rest;
			return need;
		}
		if (big == TP_TOPO_NONE)
			break;
		c->pod_take[big] = c->pod_cap[big];
		covered += c->pod_cap[big];
	}
	return covered;
}

/*
 * Greedy cover of @need hosts over eligible leaves (of pod @pod, or of every
 * pod when @pod is TP_TOPO_NONE): fills leaf_take.  Among equal leaves a
 * partly used one wins (whole free leaves stay for leaf jobs), then one in a
 * pod already used (pack), then the lower index.  Returns hosts covered.
 */
static uint32_t cover_leaves(struct ctx *c, uint32_t pod, uint32_t need)
{
	uint32_t covered = 0, n;
	const uint32_t *leaves;
	uint8_t *pod_used = c->pod_used;

	if (pod == TP_TOPO_NONE) {
		leaves = NULL;
		n = c->leaf_count;
	} else {
		leaves = tp_topo_pod_leaves(c->topo, pod, &n);
	}
	while (covered < need) {
		uint32_t rest = need - covered, fit = TP_TOPO_NONE,
		         big = TP_TOPO_NONE, pick;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t l = leaves ? leaves[i] : i, cap;

			if (!c->leaf_ok[l] || c->leaf_take[l])
				continue;
			cap = c->leaf_free[l];
			if (cap == 0)
				continue;
			if (big == TP_TOPO_NONE || cap > c->leaf_free[big] ||
			    (cap == c->leaf_free[big] && !leaves &&
			     pod_used[tp_topo_leaf_pod(c->topo, l)] &&
			     !pod_used[tp_topo_leaf_pod(c->topo, big)]))
				big = l;
			if (cap < rest)
				continue;
			if (fit == TP_TOPO_NONE || cap < c->leaf_free[fit]) {
				fit = l;
				continue;
			}
			if (cap != c->leaf_free[fit])
				continue;
			if (leaf_whole_free(c, fit) && !leaf_whole_free(c, l)) {
				fit = l;
				continue;
			}
			if (!leaves &&
			    leaf_whole_free(c, fit) == leaf_whole_free(c, l) &&
			    pod_used[tp_topo_leaf_pod(c->topo, l)] &&
			    !pod_used[tp_topo_leaf_pod(c->topo, fit)])
				fit = l;
		}
		if (budget_tick(c, n))
			return covered;
		if (fit == TP_TOPO_NONE && big == TP_TOPO_NONE)
			break;
		pick = fit != TP_TOPO_NONE ? fit : big;
		c->leaf_take[pick] =
		    fit != TP_TOPO_NONE ? rest : c->leaf_free[pick];
		covered += c->leaf_take[pick];
		if (!leaves)
			pod_used[tp_topo_leaf_pod(c->topo, pick)] = 1;
	}
	return covered;
}

/* Append up to NAMES_LISTED names of objects with marks[i] != 0, then
 * "(+N more)". */
static void say_names(struct ctx *c, uint32_t count,
                      const char *(*name)(const tp_topo *, uint32_t),
                      const uint32_t *marks)
{
	uint32_t listed = 0, total = 0;

	for (uint32_t i = 0; i < count; i++) {
		if (!marks[i])
			continue;
		if (listed < NAMES_LISTED) {
			say(c, "%s%s", listed ? " " : "", name(c->topo, i));
			listed++;
		}
		total++;
	}
	if (total > listed)
		say(c, " (+%u more)", total - listed);
	if (!total)
		say(c, "none");
}

static uint32_t count_marked(const uint32_t *v, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		k += v[i] != 0;
	return k;
}

/* ---- policies ------------------------------------------------------ */

static void say_occupancy(struct ctx *c)
{
	say(c, "%u usable hosts (%u busy, %u held for other jobs, %u down",
	    c->usable, c->busy, c->held, c->down);
	if (c->not_ready)
		say(c, ", %u not ready", c->not_ready);
	if (c->servers)
		say(c, ", %u I/O server%s", c->servers,
		    c->servers == 1 ? "" : "s");
	say(c, ")");
}

/* Bit mask of the job classes that must not neighbour this job. */
static uint8_t incompatible_classes(tp_jobclass mine)
{
	uint8_t bad = 0;

	for (int k = 0; k <= TP_JOBCLASS_COMM_SENSITIVE; k++)
		if (!tp_jobclass_compatible(mine, (tp_jobclass)k))
			bad |= (uint8_t)(1u << k);
	return bad;
}

/*
 * Adaptive routing on a 3-level tree: every aggregation link of a pod
 * with I/O traffic carries it, and a job spanning pods crosses the core,
 * where any pod's traffic may meet it (issue #15: one comm_sensitive job
 * spanning two pods, whole leaves: 13.5x MPI latency under adaptive
 * routing).  So a comm_sensitive job goes into one pod when one holds it,
 * a pod free of I/O first; only when none holds it alone does it span
 * pods.  Under static routing the leaf rules model the D-mod-K routes and
 * the pods are kept apart as before.
 */
static bool pod_exposed_first(const struct ctx *c)
{
	return c->req->routing == TP_ROUTING_ADAPTIVE &&
	       c->req->job_class == TP_JOBCLASS_COMM_SENSITIVE &&
	       c->pod_count > 1;
}

enum one_pod { ONE_POD_NONE = 0, ONE_POD_CLEAN, ONE_POD_EXPOSED };

/*
 * pod_ok = the pods that hold @need hosts alone (sum_pods done): those
 * without the @bad classes when one of them does (ONE_POD_CLEAN), else
 * all of them (ONE_POD_EXPOSED, one_pod_exposed set).  ONE_POD_NONE: no
 * pod holds the job, pod_ok untouched.  *clean_cap: the room in pods
 * without the @bad classes.
 */
static enum one_pod one_pod_mask(struct ctx *c, uint32_t need, uint8_t bad,
                                 uint32_t *clean_cap)
{
	bool clean_fits = false, any_fits = false;

	*clean_cap = 0;
	for (uint32_t p = 0; p < c->pod_count; p++) {
		bool clean = !(c->pod_class[p] & bad);

		*clean_cap += clean ? c->pod_cap[p] : 0;
		clean_fits |= clean && c->pod_cap[p] >= need;
		any_fits |= c->pod_cap[p] >= need;
	}
	if (!any_fits)
		return ONE_POD_NONE;
	for (uint32_t p = 0; p < c->pod_count; p++)
		c->pod_ok[p] = c->pod_cap[p] >= need &&
		               (!clean_fits || !(c->pod_class[p] & bad));
	c->one_pod_exposed = !clean_fits;
	return clean_fits ? ONE_POD_CLEAN : ONE_POD_EXPOSED;
}

/*
 * Pick pods for @need hosts (sum_pods done), keeping the job out of pods
 * where jobs of the @bad classes run when their capacity allows: on a
 * 3-level tree whole leaves alone left MPI 4.5x slower when I/O backed up
 * the aggregation and core switches (BACKGROUND.md section 2).  Returns the
 * number of pods with such jobs that had to be used; *clean_cap is the room
 * in the other pods.
 */
static uint32_t cover_pods_apart(struct ctx *c, uint32_t need, uint8_t bad,
                                 uint32_t *clean_cap)
{
	uint32_t got, intruded = 0;
	enum one_pod one = ONE_POD_NONE;

	if (pod_exposed_first(c))
		one = one_pod_mask(c, need, bad, clean_cap);
	if (one != ONE_POD_NONE) {
		cover_pods(c, need);
		return one == ONE_POD_EXPOSED;
	}
	*clean_cap = 0;
	for (uint32_t p = 0; p < c->pod_count; p++) {
		c->pod_ok[p] = !(c->pod_class[p] & bad) && c->pod_cap[p] > 0;
		*clean_cap += c->pod_ok[p] ? c->pod_cap[p] : 0;
	}
	if (*clean_cap >= need) {
		cover_pods(c, need);
		return 0;
	}
	got = cover_pods(c, *clean_cap);
	for (uint32_t p = 0; p < c->pod_count; p++)
		c->pod_ok[p] = (c->pod_class[p] & bad) && c->pod_cap[p] > 0;
	cover_pods(c, need - got);
	for (uint32_t p = 0; p < c->pod_count; p++)
		intruded += c->pod_ok[p] && c->pod_take[p];
	return intruded;
}

/*
 * What a job of class mine is kept away from: "comm_sensitive jobs" for an
 * io_heavy job; for a comm_sensitive one, io_heavy jobs and I/O servers, as
 * far as the occupancy has them.
 */
static const char *incompatible_words(const struct ctx *c)
{
	if (c->req->job_class == TP_JOBCLASS_IO_HEAVY)
		return "comm_sensitive jobs";
	if (c->servers && c->io_job_hosts)
		return "io_heavy jobs or I/O servers";
	if (c->servers)
		return "I/O servers";
	return "io_heavy jobs";
}

/* " (I/O servers n0015 n0016)": the foreign servers of pod @pod. */
static void say_pod_servers(struct ctx *c, uint32_t pod)
{
	uint32_t n, listed = 0, total = 0;
	const uint32_t *leaves = tp_topo_pod_leaves(c->topo, pod, &n);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t k;
		const uint32_t *hosts =
		    tp_topo_leaf_hosts(c->topo, leaves[i], &k);

		for (uint32_t j = 0; j < k; j++) {
			if (!host_foreign_server(c, hosts[j]))
				continue;
			if (listed < NAMES_LISTED / 2) {
				say(c, "%s%s", listed ? " " : " (I/O servers ",
				    tp_topo_host_name(c->topo, hosts[j]));
				listed++;
			}
			total++;
		}
	}
	if (total > listed)
		say(c, " (+%u more)", total - listed);
	if (total)
		say(c, ")");
}

/*
 * Say whether the job could be kept out of pods of incompatible jobs; say
 * nothing when no pod holds any (the rule kept it from nothing).
 */
static void say_pods_apart(struct ctx *c, uint8_t bad, uint32_t intruded,
                           uint32_t clean_cap)
{
	const char *other = incompatible_words(c);
	bool servers = bad & (1u << TP_JOBCLASS_IO_HEAVY);
	bool present = false;

	if (c->pod_count < 2 || !bad)
		return;
	for (uint32_t p = 0; p < c->pod_count && !present; p++)
		present = (c->pod_class[p] & bad) != 0;
	if (!present)
		return;
	if (!intruded) {
		say(c, "; kept out of pods with %s", other);
		return;
	}
	if (c->one_pod_exposed && clean_cap)
		say(c,
		    "; NOT possible to keep it out of pods with %s: no pod "
		    "without them holds it alone and across pods it would "
		    "share the core (adaptive routing), so it uses ",
		    other);
	else if (clean_cap)
		say(c,
		    "; NOT possible to keep it out of pods with %s: only %u "
		    "hosts in other pods, so it also uses ",
		    other, clean_cap);
	else
		say(c,
		    "; NOT possible to keep it out of pods with %s: every pod "
		    "with room has them, so it uses ",
		    other);
	for (uint32_t p = 0, k = 0; p < c->pod_count; p++) {
		if (!(c->pod_ok[p] && c->pod_take[p]))
			continue;
		say(c, "%s%s", k++ ? " " : "", tp_topo_pod_name(c->topo, p));
		if (servers && c->pod_servers[p])
			say_pod_servers(c, p);
	}
}

/* ---- pod exposure under adaptive routing ---------------------------- */

/* text_vadd for the exposure text. */
static void exposure_add(char *buf, size_t size, size_t *len, const char *fmt,
                         ...) __attribute__((format(printf, 4, 5)));

static void exposure_add(char *buf, size_t size, size_t *len, const char *fmt,
                         ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vadd(buf, size, len, fmt, ap);
	va_end(ap);
}

/*
 * The first host of pod @pod (leaf by leaf) whose traffic the job must
 * not meet: another job's or a site I/O server (when the @bad classes
 * include io_heavy), or a host of another job of the @bad classes (busy
 * or held).  TP_TOPO_NONE: none.
 */
static uint32_t pod_culprit(const struct ctx *c, uint32_t pod, uint8_t bad)
{
	uint32_t n;
	const uint32_t *leaves = tp_topo_pod_leaves(c->topo, pod, &n);
	bool servers = bad & (1u << TP_JOBCLASS_IO_HEAVY);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t k;
		const uint32_t *hosts =
		    tp_topo_leaf_hosts(c->topo, leaves[i], &k);

		for (uint32_t j = 0; j < k; j++) {
			const tp_host_use *u = &c->use[hosts[j]];

			if (u->state == TP_HOST_IOSERVER) {
				if (servers && host_foreign_server(c, hosts[j]))
					return hosts[j];
			} else if (host_foreign(c, hosts[j]) &&
			           (bad & (1u << u->job_class))) {
				return hosts[j];
			}
		}
	}
	return TP_TOPO_NONE;
}

/* "pod pod02 carries I/O of job 9" and the like, for pod @pod. */
static void exposure_pod(const struct ctx *c, uint32_t pod, uint8_t bad,
                         char *buf, size_t size, size_t *len)
{
	uint32_t h = pod_culprit(c, pod, bad);
	const char *name = tp_topo_pod_name(c->topo, pod);
	const tp_host_use *u;

	if (h == TP_TOPO_NONE)
		return;
	u = &c->use[h];
	if (*len)
		exposure_add(buf, size, len, "; ");
	if (u->state == TP_HOST_IOSERVER && u->job_id == TP_ALLOC_SITE_JOB)
		exposure_add(buf, size, len,
		             "pod %s carries I/O (site I/O server %s)", name,
		             tp_topo_host_name(c->topo, h));
	else if (u->state == TP_HOST_IOSERVER)
		exposure_add(buf, size, len,
		             "pod %s carries I/O of job %u (its I/O server %s)",
		             name, u->job_id, tp_topo_host_name(c->topo, h));
	else if (u->job_class == TP_JOBCLASS_IO_HEAVY)
		exposure_add(buf, size, len, "pod %s carries I/O of job %u",
		             name, u->job_id);
	else
		exposure_add(buf, size, len, "pod %s runs %s job %u", name,
		             tp_jobclass_name(u->job_class), u->job_id);
}

/*
 * Adaptive routing on a 3-level tree: what the job's pods (pod_take)
 * expose it to, into c->exposure (alloc.h: pod_exposure) and the reason.
 * A comm_sensitive job: the pods it spans, and each of its pods that
 * carries I/O; an io_heavy job: each of its pods where a comm_sensitive
 * job runs.  Nothing under static routing: the leaf rules model D-mod-K.
 */
static void say_pod_exposure(struct ctx *c)
{
	char why[TP_ALLOC_EXPOSURE_MAX];
	uint8_t bad = incompatible_classes(c->req->job_class);
	size_t len = 0;
	uint32_t listed = 0, exposed = 0;

	if (c->req->routing != TP_ROUTING_ADAPTIVE || c->pod_count < 2 || !bad)
		return;
	why[0] = '\0';
	if (c->req->job_class == TP_JOBCLASS_COMM_SENSITIVE &&
	    count_marked(c->pod_take, c->pod_count) > 1) {
		exposure_add(why, sizeof(why), &len, "spans pods");
		for (uint32_t p = 0; p < c->pod_count; p++)
			if (c->pod_take[p] && listed++ < NAMES_LISTED)
				exposure_add(why, sizeof(why), &len, "%s%s",
				             listed > 1 ? "," : " ",
				             tp_topo_pod_name(c->topo, p));
		if (listed > NAMES_LISTED)
			exposure_add(why, sizeof(why), &len, " (+%u more)",
			             listed - NAMES_LISTED);
	}
	for (uint32_t p = 0; p < c->pod_count; p++) {
		if (!c->pod_take[p] || !(c->pod_class[p] & bad))
			continue;
		if (exposed++ < NAMES_LISTED / 2)
			exposure_pod(c, p, bad, why, sizeof(why), &len);
	}
	if (exposed > NAMES_LISTED / 2)
		exposure_add(why, sizeof(why), &len, " (+%u more pods)",
		             exposed - NAMES_LISTED / 2);
	if (!len)
		return;
	snprintf(c->exposure, TP_ALLOC_EXPOSURE_MAX,
	         "pod isolation given up (adaptive routing): %s", why);
	say(c, "; %s", c->exposure);
}

/* ---- leaf: the exact best fit ---------------------------------------- */

/*
 * The cost of a leaf set is one mixed-radix number, so that costs add field
 * by field and compare in this order (most significant first): pods,
 * leaves, wholly free leaves used, wholly free pods touched, room (the
 * usable hosts of the pods touched: of two pods the tighter is used).  The
 * total of usable hosts on the leaves is the DP index and ranks between
 * leaves and wholly free leaves.  Costs stay below FIT_COST_MAX, so
 * FIT_NONE plus any two costs does not overflow.
 */
#define FIT_COST_MAX (UINT64_C(1) << 61)
#define FIT_NONE     (UINT64_C(1) << 62)

struct fit_units {
	uint64_t pod, leaf, whole_leaf, whole_pod, room;
};

/*
 * Leaves of one pod with the same usable hosts and wholeness are
 * interchangeable: one group.  A DP item is 1, 2, 4, ... of a group's
 * leaves (binary splitting), so a pod of 36 equal leaves is 6 items.
 */
struct fit_group {
	uint32_t cap, count, taken;
	bool whole;
};

struct fit_item {
	uint32_t group, count, weight;
	uint64_t cost;
	/* Live source totals low..high (see fit_windows) and where their
	 * records start. */
	uint32_t low, high;
	size_t record;
};

/* Whether an item improved an in_pod cell. */
enum { FIT_KEEP = 0, FIT_TAKEN };

/*
 * Past this many records (one byte each) the exact search gives way to the
 * greedy cover.  Records per item are at most min(need + hosts per leaf,
 * usable hosts - need): a 5,184-host fabric needs at most 144 x 2,592.
 */
#define FIT_MAX_RECORDS (UINT64_C(1) << 25)

struct fit {
	uint32_t need, sums; /* DP totals 0 .. sums - 1 */
	uint64_t *best, *in_pod;
	uint8_t *records; /* per item and live total: FIT_* */
	struct fit_group *groups;
	struct fit_item *items;
	uint32_t group_count, item_count;
	/* Candidate pods, ascending, with the end of their items, the
	 * usable hosts of the items from their first on (rest), and the
	 * live totals after them (pod_low .. pod_high, whose records start
	 * at pod_record). */
	uint32_t *pods, *item_end, *pod_low, *pod_high, pod_count;
	uint64_t *rest;
	size_t *pod_record;
	uint32_t *leaf_group; /* TP_TOPO_NONE: not a candidate */
	uint32_t *slot;       /* (cap, whole) -> group, one pod at a time */
	struct fit_units unit;
};

static void fit_free(struct fit *f)
{
	free(f->best);
	free(f->in_pod);
	free(f->records);
	free(f->groups);
	free(f->items);
	free(f->pods);
	free(f->item_end);
	free(f->pod_low);
	free(f->pod_high);
	free(f->rest);
	free(f->pod_record);
	free(f->leaf_group);
	free(f->slot);
}

/*
 * Units of the cost fields.  A fabric too big for all of them (about 2^61
 * / hosts / pods^2 / leaves^2) drops the least significant first.  Returns
 * false when not even pods and leaves fit (never on a real fabric).
 */
static bool fit_set_units(const struct ctx *c, struct fit_units *u)
{
	uint64_t pods = (uint64_t)c->pod_count + 1;
	uint64_t leaves = (uint64_t)c->leaf_count + 1;
	uint64_t hosts = (uint64_t)c->host_count + 1;
	uint64_t radix[4] = {hosts, pods, leaves, leaves};

	for (int dropped = 0; dropped <= 2; dropped++) {
		uint64_t unit = 1, *field[4] = {&u->room, &u->whole_pod,
		                                &u->whole_leaf, &u->leaf};
		bool fits = true;

		for (int i = 0; i < 4 && fits; i++) {
			if (i < dropped) {
				*field[i] = 0;
				continue;
			}
			*field[i] = unit;
			fits = unit <= FIT_COST_MAX / radix[i];
			unit *= fits ? radix[i] : 1;
		}
		if (fits && unit <= FIT_COST_MAX / pods) {
			u->pod = unit;
			return true;
		}
	}
	return false;
}

/* The cost of entering @pod: one pod, maybe a whole free one, its room. */
static uint64_t fit_enter(const struct ctx *c, const struct fit *f,
                          uint32_t pod)
{
	return f->unit.pod + (c->pod_whole_free[pod] ? f->unit.whole_pod : 0) +
	       c->pod_cap[pod] * f->unit.room;
}

/*
 * Groups and items of the eligible leaves of the pods in @mask, pod by
 * pod, groups in the order of their first leaf (so that ties go to lower
 * pods and leaves); *max_cap is the most usable hosts on one such leaf.
 * Returns false on no memory.
 */
static bool fit_build(struct ctx *c, struct fit *f, const uint8_t *mask,
                      uint32_t *max_cap)
{
	uint32_t l = c->leaf_count, p = c->pod_count;

	*max_cap = 0;
	for (uint32_t i = 0; i < l; i++)
		if (c->leaf_ok[i] && mask[tp_topo_leaf_pod(c->topo, i)] &&
		    c->leaf_free[i] > *max_cap)
			*max_cap = c->leaf_free[i];
	f->groups = malloc(sizeof(*f->groups) * l);
	f->items = malloc(sizeof(*f->items) * l);
	f->pods = malloc(sizeof(*f->pods) * p);
	f->item_end = malloc(sizeof(*f->item_end) * p);
	f->pod_low = malloc(sizeof(*f->pod_low) * p);
	f->pod_high = malloc(sizeof(*f->pod_high) * p);
	f->rest = malloc(sizeof(*f->rest) * p);
	f->pod_record = malloc(sizeof(*f->pod_record) * p);
	f->leaf_group = malloc(sizeof(*f->leaf_group) * l);
	f->slot = malloc(sizeof(*f->slot) * 2 * ((size_t)*max_cap + 1));
	if (!f->groups || !f->items || !f->pods || !f->item_end ||
	    !f->pod_low || !f->pod_high || !f->rest || !f->pod_record ||
	    !f->leaf_group || !f->slot)
		return false;
	for (uint32_t i = 0; i < 2 * (*max_cap + 1); i++)
		f->slot[i] = TP_TOPO_NONE;
	for (uint32_t pod = 0; pod < p; pod++) {
		uint32_t n, first = f->group_count;
		const uint32_t *leaves = tp_topo_pod_leaves(c->topo, pod, &n);

		for (uint32_t i = 0; i < n; i++)
			f->leaf_group[leaves[i]] = TP_TOPO_NONE;
		if (!mask[pod])
			continue;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t leaf = leaves[i], key;
			bool whole;

			if (!c->leaf_ok[leaf])
				continue;
			whole = leaf_whole_free(c, leaf);
			key = 2 * c->leaf_free[leaf] + whole;
			if (f->slot[key] == TP_TOPO_NONE) {
				f->slot[key] = f->group_count;
				f->groups[f->group_count++] =
				    (struct fit_group){c->leaf_free[leaf], 0, 0,
				                       whole};
			}
			f->groups[f->slot[key]].count++;
			f->leaf_group[leaf] = f->slot[key];
		}
		if (f->group_count == first)
			continue;
		for (uint32_t g = first; g < f->group_count; g++) {
			const struct fit_group *gr = &f->groups[g];
			uint64_t per_leaf =
			    f->unit.leaf + (gr->whole ? f->unit.whole_leaf : 0);

			f->slot[2 * gr->cap + gr->whole] = TP_TOPO_NONE;
			for (uint32_t rest = gr->count, m = 1; rest;
			     rest -= m, m *= 2) {
				if (m > rest)
					m = rest;
				f->items[f->item_count++] = (struct fit_item){
				    .group = g,
				    .count = m,
				    .weight = m * gr->cap,
				    .cost = m * per_leaf,
				};
			}
		}
		f->pods[f->pod_count] = pod;
		f->item_end[f->pod_count++] = f->item_count;
	}
	return true;
}

/*
 * The live totals of each item and pod, and where their records go.  A
 * total s is live before an item when the items from it on can still
 * bring s up to need (s >= need - rest) and s is reachable by the items
 * before it; totals past sums - 1 are never needed (see fit_leaves).  So an
 * item's window is at most usable hosts - need wide, and a big job on an
 * emptyish fabric costs little.  Returns the number of records.
 */
static uint64_t fit_windows(struct fit *f)
{
	uint64_t before = 0, records = 0, rest = 0;

	for (uint32_t i = 0; i < f->item_count; i++)
		rest += f->items[i].weight;
	for (uint32_t q = 0, i = 0; q < f->pod_count; q++) {
		f->rest[q] = rest;
		for (; i < f->item_end[q]; i++) {
			struct fit_item *it = &f->items[i];
			uint64_t high = before, low = 0;

			/* sources: reachable, within sums, live */
			if (it->weight <= f->sums - 1 &&
			    high > f->sums - 1 - it->weight)
				high = f->sums - 1 - it->weight;
			if (rest < f->need)
				low = f->need - rest;
			if (it->weight > f->sums - 1 || low > high) {
				it->low = 1; /* empty */
				it->high = 0;
			} else {
				it->low = (uint32_t)low;
				it->high = (uint32_t)high;
				it->record = (size_t)records;
				records += high - low + 1;
			}
			before += it->weight;
			rest -= it->weight;
		}
		f->pod_low[q] = rest < f->need ? (uint32_t)(f->need - rest) : 0;
		f->pod_high[q] =
		    before < f->sums - 1 ? (uint32_t)before : f->sums - 1;
		f->pod_record[q] = (size_t)records;
		if (f->pod_low[q] <= f->pod_high[q])
			records += f->pod_high[q] - f->pod_low[q] + 1;
	}
	return records;
}

/*
 * The knapsack: best[s] ends as the cheapest leaf set of exactly s usable
 * hosts (for live s).  Pods are added one at a time.  in_pod[s] is the
 * cheapest set that enters the pod being added: it starts as best[s] plus
 * the cost of entering (no leaf of the pod yet), so that each item needs one
 * transition only, and merges into best where it is cheaper (never with no
 * leaf of the pod: entering costs more than nothing).  The records say
 * which items improved which cells, for fit_trace.  Returns false past the
 * budget.
 */
static bool fit_run(struct ctx *c, struct fit *f)
{
	/* Locals: a store to the records (bytes) may alias anything, so
	 * f->in_pod and f->best would be read again on every total. */
	uint64_t *in_pod = f->in_pod, *best = f->best;

	for (uint32_t s = 0; s < f->sums; s++)
		best[s] = FIT_NONE;
	best[0] = 0;
	for (uint32_t q = 0; q < f->pod_count; q++) {
		uint32_t begin = q ? f->item_end[q - 1] : 0;
		uint64_t enter = fit_enter(c, f, f->pods[q]);
		uint64_t first =
		    f->rest[q] < f->need ? f->need - f->rest[q] : 0;
		uint8_t *rec = f->records + f->pod_record[q];

		for (uint64_t s = first; s <= f->pod_high[q]; s++)
			in_pod[s] = best[s] + enter;
		for (uint32_t i = begin; i < f->item_end[q]; i++) {
			const struct fit_item *it = &f->items[i];
			uint8_t *how = f->records + it->record - it->low;
			uint64_t *to = in_pod + it->weight;
			uint64_t cost = it->cost;
			uint32_t low = it->low;

			if (it->low > it->high)
				continue;
			/* Descending: in_pod[s] is still without this item
			 * when in_pod[s + weight] is decided. */
			for (uint32_t s = it->high + 1; s-- > low;) {
				uint64_t with = in_pod[s] + cost;
				bool taken = with < to[s];

				to[s] = taken ? with : to[s];
				how[s] = taken;
			}
			if (budget_tick(c, (uint64_t)it->high - it->low + 1))
				return false;
		}
		/* Ties keep the set without this pod: lower pods win. */
		for (uint32_t s = f->pod_low[q]; s <= f->pod_high[q]; s++) {
			bool won = in_pod[s] < best[s];

			if (won)
				best[s] = in_pod[s];
			rec[s - f->pod_low[q]] = won;
		}
	}
	return true;
}

/* How item @i reached in_pod[@s]. */
static uint8_t fit_how(const struct fit *f, uint32_t i, uint32_t s)
{
	const struct fit_item *it = &f->items[i];

	if (s < it->weight || s - it->weight < it->low ||
	    s - it->weight > it->high)
		return FIT_KEEP;
	return f->records[it->record + (s - it->weight - it->low)];
}

/* Walk the records back from total @s: groups[].taken. */
static void fit_trace(struct fit *f, uint32_t s)
{
	for (uint32_t q = f->pod_count; q-- > 0;) {
		uint32_t begin = q ? f->item_end[q - 1] : 0;

		if (s < f->pod_low[q] || s > f->pod_high[q] ||
		    !f->records[f->pod_record[q] + (s - f->pod_low[q])])
			continue;
		/* Back to where the pod was entered. */
		for (uint32_t i = f->item_end[q]; i-- > begin;) {
			if (fit_how(f, i, s) == FIT_KEEP)
				continue;
			f->groups[f->items[i].group].taken += f->items[i].count;
			s -= f->items[i].weight;
		}
	}
}

/*
 * The exact best fit for @need hosts over the eligible leaves of the pods
 * in @mask (their capacity holds @need): sets leaf_take of the chosen
 * leaves to all their usable hosts and *total to the sum.  Returns false
 * past the budget, on no memory (c->rc), or with *too_big when the search
 * would exceed FIT_MAX_RECORDS.
 *
 * Why totals stop at need + max_cap - 1: in the best set no leaf can be
 * dropped (a set with fewer pods or leaves would have won), so the total
 * minus its smallest leaf is below need; every partial sum of it is too.
 */
static bool fit_leaves(struct ctx *c, const uint8_t *mask, uint32_t need,
                       uint32_t *total, bool *too_big)
{
	struct fit f = {.need = need};
	uint32_t max_cap, pick = TP_TOPO_NONE;
	uint64_t cap = 0, widest, records;
	bool ok = false;

	*too_big = !fit_set_units(c, &f.unit);
	if (*too_big)
		return false;
	if (!fit_build(c, &f, mask, &max_cap))
		goto nomem;
	for (uint32_t g = 0; g < f.group_count; g++)
		cap += (uint64_t)f.groups[g].cap * f.groups[g].count;
	widest = (uint64_t)need - 1 + max_cap;
	f.sums = (uint32_t)(widest < cap ? widest : cap) + 1;
	records = fit_windows(&f);
	if (records > FIT_MAX_RECORDS) {
		*too_big = true;
		goto out;
	}
	f.best = malloc(sizeof(*f.best) * f.sums);
	f.in_pod = malloc(sizeof(*f.in_pod) * f.sums);
	f.records = malloc(records ? (size_t)records : 1);
	if (!f.best || !f.in_pod || !f.records)
		goto nomem;
	if (!fit_run(c, &f))
		goto out;
	/* Fewest pods and leaves, then the smallest total. */
	for (uint32_t s = need; s < f.sums; s++)
		if (f.best[s] < FIT_NONE &&
		    (pick == TP_TOPO_NONE ||
		     f.best[s] / f.unit.leaf < f.best[pick] / f.unit.leaf))
			pick = s;
	if (pick == TP_TOPO_NONE)
		goto out; /* not reached: the caller checked the capacity */
	fit_trace(&f, pick);
	/* Each group's lowest leaves. */
	for (uint32_t q = 0; q < f.pod_count; q++) {
		uint32_t n;
		const uint32_t *leaves =
		    tp_topo_pod_leaves(c->topo, f.pods[q], &n);

		for (uint32_t i = 0; i < n; i++) {
			uint32_t g = f.leaf_group[leaves[i]];

			if (g == TP_TOPO_NONE || !f.groups[g].taken)
				continue;
			f.groups[g].taken--;
			c->leaf_take[leaves[i]] = c->leaf_free[leaves[i]];
		}
	}
	*total = pick;
	ok = true;
	goto out;
nomem:
	c->rc = tp_error_set(c->err, TP_ERR_NOMEM,
	                     "allocation: no memory for the best fit of %u "
	                     "hosts over %u leaves",
	                     need, c->leaf_count);
out:
	fit_free(&f);
	return ok;
}

/*
 * Take back @leftover hosts from the leaves chosen in @mask's pods: from the
 * last leaf of the pod where the job has the fewest hosts (ties: the later
 * pod), so the job fills its bigger pods first.  The leftover is below
 * every chosen leaf's usable hosts (see fit_leaves).
 */
static void fit_trim(struct ctx *c, const uint8_t *mask, uint32_t leftover)
{
	uint32_t pod = TP_TOPO_NONE, n;
	const uint32_t *leaves;

	if (!leftover)
		return;
	for (uint32_t p = 0; p < c->pod_count; p++)
		if (mask[p] && c->pod_take[p] &&
		    (pod == TP_TOPO_NONE || c->pod_take[p] <= c->pod_take[pod]))
			pod = p;
	if (pod == TP_TOPO_NONE)
		return;
	leaves = tp_topo_pod_leaves(c->topo, pod, &n);
	for (uint32_t i = n; i-- > 0;) {
		if (c->leaf_take[leaves[i]] > leftover) {
			c->leaf_take[leaves[i]] -= leftover;
			c->pod_take[pod] -= leftover;
			return;
		}
	}
}

/*
 * leaf_pods_apart within one pod (one_pod_mask set pod_ok): the exact fit
 * over those pods takes one of them, the fewest pods coming first.
 * Returns 1 when that pod has I/O (@exposed), else 0, as leaf_pods_apart.
 */
static uint32_t leaf_one_pod(struct ctx *c, uint32_t need, bool exposed,
                             bool *greedy)
{
	uint32_t total = 0;

	if (!fit_leaves(c, c->pod_ok, need, &total, greedy)) {
		if (!*greedy)
			return 0;
		memset(c->leaf_take, 0, sizeof(*c->leaf_take) * c->leaf_count);
		cover_pods(c, need);
		for (uint32_t p = 0; p < c->pod_count; p++)
			if (c->pod_take[p])
				cover_leaves(c, p, c->pod_take[p]);
		return exposed;
	}
	for (uint32_t l = 0; l < c->leaf_count; l++)
		c->pod_take[tp_topo_leaf_pod(c->topo, l)] += c->leaf_take[l];
	fit_trim(c, c->pod_ok, total - need);
	return exposed;
}

/*
 * The leaves of policy leaf for @need hosts (sum_pods done).  Pods of the
 * @bad classes are avoided as under cover_pods_apart: when the other pods
 * hold the job, the exact fit is made there; else all of their eligible
 * leaves are taken and the exact fit covers the rest in the avoided pods.
 * Returns the number of avoided pods used (0 when the job fits apart);
 * *clean_cap is the room in the other pods; *greedy says the greedy cover
 * was used (the exact search too large).
 */
static uint32_t leaf_pods_apart(struct ctx *c, uint32_t need, uint8_t bad,
                                uint32_t *clean_cap, bool *greedy)
{
	uint32_t fit_need = need, total = 0, intruded = 0;
	enum one_pod one = ONE_POD_NONE;

	if (pod_exposed_first(c))
		one = one_pod_mask(c, need, bad, clean_cap);
	if (one != ONE_POD_NONE)
		return leaf_one_pod(c, need, one == ONE_POD_EXPOSED, greedy);
	*clean_cap = 0;
	for (uint32_t p = 0; p < c->pod_count; p++) {
		c->pod_ok[p] = !(c->pod_class[p] & bad) && c->pod_cap[p] > 0;
		*clean_cap += c->pod_ok[p] ? c->pod_cap[p] : 0;
	}
	if (*clean_cap < need) {
		for (uint32_t l = 0; l < c->leaf_count; l++)
			if (c->leaf_ok[l] &&
			    c->pod_ok[tp_topo_leaf_pod(c->topo, l)])
				c->leaf_take[l] = c->leaf_free[l];
		fit_need = need - *clean_cap;
		for (uint32_t p = 0; p < c->pod_count; p++)
			c->pod_ok[p] =
			    (c->pod_class[p] & bad) && c->pod_cap[p] > 0;
	}
	if (!fit_leaves(c, c->pod_ok, fit_need, &total, greedy)) {
		if (!*greedy)
			return 0;
		memset(c->leaf_take, 0, sizeof(*c->leaf_take) * c->leaf_count);
		intruded = cover_pods_apart(c, need, bad, clean_cap);
		for (uint32_t p = 0; p < c->pod_count; p++)
			if (c->pod_take[p])
				cover_leaves(c, p, c->pod_take[p]);
		return intruded;
	}
	for (uint32_t l = 0; l < c->leaf_count; l++)
		c->pod_take[tp_topo_leaf_pod(c->topo, l)] += c->leaf_take[l];
	fit_trim(c, c->pod_ok, total - fit_need);
	if (*clean_cap < need)
		for (uint32_t p = 0; p < c->pod_count; p++)
			intruded += c->pod_ok[p] && c->pod_take[p];
	return intruded;
}

/*
 * Static routing only: "; beside I/O servers on leaves leaf003 leaf004
 * (static routing: their ports' links are their own)" when the job takes
 * leaves that hold another job's or a site I/O server.
 */
static void say_server_leaves(struct ctx *c)
{
	uint32_t shared = 0;
	uint32_t *mark;

	if (c->req->routing != TP_ROUTING_STATIC || !c->servers)
		return;
	for (uint32_t l = 0; l < c->leaf_count; l++)
		shared += c->leaf_take[l] && c->leaf_server[l];
	if (!shared)
		return;
	mark = calloc(c->leaf_count, sizeof(*mark));
	if (!mark) {
		say(c, "; beside I/O servers on %u lea%s", shared,
		    shared == 1 ? "f" : "ves");
		return;
	}
	for (uint32_t l = 0; l < c->leaf_count; l++)
		mark[l] = c->leaf_take[l] && c->leaf_server[l];
	say(c, "; beside I/O servers on %u lea%s (", shared,
	    shared == 1 ? "f" : "ves");
	say_names(c, c->leaf_count, tp_topo_leaf_name, mark);
	say(c, "; static routing: their ports' links are their own)");
	free(mark);
}

/* ---- leaf: the remainder on a shared compatible leaf ------------------ */

/* The leaf size remainders are counted against: the most hosts on a leaf. */
static uint32_t leaf_size(const struct ctx *c)
{
	uint32_t size = 0, n;

	for (uint32_t l = 0; l < c->leaf_count; l++) {
		tp_topo_leaf_hosts(c->topo, l, &n);
		if (n > size)
			size = n;
	}
	return size;
}

/*
 * Whether leaf @l may take a remainder: no host another job holds, no I/O
 * server (whatever the routing: its clients' traffic converges there), no
 * job of the @bad classes and, unless the job is quiet, no io_heavy job.
 * A quiet remainder neither suffers from the I/O on its leaf nor adds to
 * it: keeping it off io_heavy leaves only stranded their free hosts (the
 * load benchmark's 1-host jobs waiting for a leaf, bench/RESULTS.md).
 */
static bool remainder_compatible(const struct ctx *c, uint32_t l, uint8_t bad)
{
	uint8_t refused = bad;

	if (c->req->job_class != TP_JOBCLASS_QUIET)
		refused |= (uint8_t)(1u << TP_JOBCLASS_IO_HEAVY);

	return !c->leaf_held[l] && !c->leaf_server[l] &&
	       !(c->leaf_class[l] & refused);
}

/* Of two leaves that can take a remainder, whether @l beats @best. */
static bool remainder_better(const struct ctx *c, uint32_t l, uint32_t best,
                             uint8_t bad)
{
	bool clean = !(c->pod_class[tp_topo_leaf_pod(c->topo, l)] & bad);
	bool best_clean =
	    !(c->pod_class[tp_topo_leaf_pod(c->topo, best)] & bad);

	if (clean != best_clean)
		return clean;
	/* Hosts back in a moment are room, not a tighter fit. */
	if (c->leaf_free[l] + c->leaf_not_ready[l] !=
	    c->leaf_free[best] + c->leaf_not_ready[best])
		return c->leaf_free[l] + c->leaf_not_ready[l] <
		       c->leaf_free[best] + c->leaf_not_ready[best];
	return leaf_whole_when_ready(c, best) && !leaf_whole_when_ready(c, l);
}

/*
 * The leaf for a remainder of @rest hosts (alloc.h): first among the
 * compatible leaves other jobs use (*packed), then among those with no
 * other job.  TP_TOPO_NONE: none has room.
 */
static uint32_t remainder_pick(const struct ctx *c, uint32_t rest, uint8_t bad,
                               bool *packed)
{
	for (int used = 1; used >= 0; used--) {
		uint32_t best = TP_TOPO_NONE;

		for (uint32_t l = 0; l < c->leaf_count; l++) {
			if (c->leaf_free[l] < rest ||
			    (bool)c->leaf_foreign[l] != (bool)used ||
			    !remainder_compatible(c, l, bad))
				continue;
			if (best == TP_TOPO_NONE ||
			    remainder_better(c, l, best, bad))
				best = l;
		}
		if (best != TP_TOPO_NONE) {
			*packed = used;
			return best;
		}
	}
	return TP_TOPO_NONE;
}

/*
 * Under LeafRemainder=compatible, set rem_leaf and rem_take when the job
 * has a remainder, a leaf can take it and the leaves with no other job
 * (that one left out) still hold the rest in whole leaves.
 */
static void remainder_plan(struct ctx *c, uint8_t bad)
{
	uint32_t need = c->req->nodes, size, rest, pick, cap = 0;
	bool packed = false;

	if (c->req->leaf_remainder != TP_LEAF_REMAINDER_COMPATIBLE)
		return;
	size = leaf_size(c);
	rest = size ? need % size : 0;
	if (!rest)
		return;
	pick = remainder_pick(c, rest, bad, &packed);
	if (pick == TP_TOPO_NONE)
		return;
	for (uint32_t l = 0; l < c->leaf_count; l++)
		if (!c->leaf_foreign[l] && !c->leaf_not_ready[l] && l != pick)
			cap += c->leaf_free[l];
	if (cap < need - rest)
		return;
	c->rem_leaf = pick;
	c->rem_take = rest;
	c->rem_packed = packed;
}

/* What the remainder's placement means, after the leaf named. */
static void say_remainder(struct ctx *c, uint8_t bad)
{
	uint32_t pod = tp_topo_leaf_pod(c->topo, c->rem_leaf);
	const char *leaf = tp_topo_leaf_name(c->topo, c->rem_leaf);

	if (c->rem_packed)
		say(c,
		    "; the remainder joins compatible jobs on %s (%s, no I/O "
		    "server, no other job's held hosts), the tightest such "
		    "leaf, so whole leaves stay whole; %s is not held",
		    leaf,
		    c->req->job_class == TP_JOBCLASS_QUIET
		        ? "quiet: io_heavy jobs cost it nothing"
		        : "no io_heavy job",
		    leaf);
	else
		say(c,
		    "; no leaf used by compatible jobs had room, so it goes "
		    "on %s, which has no other job: not held, later "
		    "remainders of compatible jobs may join it",
		    leaf);
	if (c->rem_packed && c->req->routing == TP_ROUTING_STATIC)
		say(c,
		    "; static routing: it shares %s's uplinks with the jobs "
		    "there only where their routes meet",
		    leaf);
	else if (c->rem_packed)
		say(c,
		    "; adaptive routing: it shares every uplink of %s with the "
		    "jobs there",
		    leaf);
	if (c->pod_count > 1 && bad && (c->pod_class[pod] & bad))
		say(c,
		    "; NOT possible to keep the remainder out of pods with "
		    "%s: %s is under %s",
		    incompatible_words(c), leaf, tp_topo_pod_name(c->topo, pod));
}

/* A job smaller than a leaf, all of it on the remainder's leaf. */
static bool leaf_remainder_only(struct ctx *c, uint8_t bad)
{
	uint32_t size = leaf_size(c);

	c->leaf_take[c->rem_leaf] = c->rem_take;
	c->pod_take[tp_topo_leaf_pod(c->topo, c->rem_leaf)] = c->rem_take;
	say(c,
	    "leaf: %u host%s on a shared compatible leaf (%s; "
	    "LeafRemainder=compatible): smaller than a leaf of %u hosts, so "
	    "no whole leaf is taken or held",
	    c->rem_take, c->rem_take == 1 ? "" : "s",
	    tp_topo_leaf_name(c->topo, c->rem_leaf), size);
	say_remainder(c, bad);
	say_pod_exposure(c);
	return true;
}

/* ---- leaf ------------------------------------------------------------ */

/* The whole leaves for the job, and its remainder's leaf if planned. */
static bool leaf_decide(struct ctx *c)
{
	uint32_t need, ok_leaves = 0, cap = 0, dirty = 0, unready = 0;
	uint32_t pods_used, leaves_used, whole_pods = 0, intruded, clean_cap;
	uint32_t held = 0, whole_used = 0, whole_left = 0, rem_pod;
	uint8_t bad = incompatible_classes(c->req->job_class);
	const char *others = c->servers && c->req->routing != TP_ROUTING_STATIC
	                         ? "other jobs' hosts or I/O servers"
	                         : "other jobs' hosts";
	bool greedy = false;

	rem_pod = tp_topo_leaf_pod(c->topo, c->rem_leaf);
	need = c->req->nodes - c->rem_take;
	if (c->rem_take && !need)
		return leaf_remainder_only(c, bad);
	for (uint32_t l = 0; l < c->leaf_count; l++) {
		c->leaf_ok[l] = !c->leaf_foreign[l] && !c->leaf_not_ready[l] &&
		                c->leaf_free[l] > 0 &&
		                !(c->rem_take && l == c->rem_leaf);
		ok_leaves += c->leaf_ok[l];
		cap += c->leaf_ok[l] ? c->leaf_free[l] : 0;
		dirty += c->leaf_foreign[l];
		unready += !c->leaf_foreign[l] && c->leaf_not_ready[l];
	}
	if (cap < need) {
		say(c,
		    "cannot be met now: leaf policy needs %u hosts on leaves "
		    "with no other job; %u such leaves hold %u usable hosts "
		    "(%u leaves have %s; ",
		    need, ok_leaves, cap, dirty, others);
		if (unready)
			say(c,
			    "%u wait for hosts not ready: not responding, "
			    "completing or rebooting; ",
			    unready);
		say_occupancy(c);
		say(c, ")");
		return false;
	}
	sum_pods(c);
	intruded = leaf_pods_apart(c, need, bad, &clean_cap, &greedy);
	if (c->over || c->rc != TP_OK)
		return false;
	for (uint32_t p = 0; p < c->pod_count; p++)
		whole_pods += c->pod_whole_free[p] && !c->pod_take[p] &&
		              !(c->rem_take && p == rem_pod);
	for (uint32_t l = 0; l < c->leaf_count; l++) {
		bool whole = c->leaf_ok[l] && leaf_whole_free(c, l);

		if (c->leaf_take[l]) {
			held += c->leaf_free[l] - c->leaf_take[l];
			whole_used += whole;
		} else {
			whole_left += whole;
		}
	}
	leaves_used = count_marked(c->leaf_take, c->leaf_count);
	say(c, "leaf: %u hosts on %u whole leaf switch%s (", c->req->nodes,
	    leaves_used, leaves_used == 1 ? "" : "es");
	say_names(c, c->leaf_count, tp_topo_leaf_name, c->leaf_take);
	if (c->rem_take)
		say(c,
		    ") + %u host%s on a shared compatible leaf (%s; "
		    "LeafRemainder=compatible",
		    c->rem_take, c->rem_take == 1 ? "" : "s",
		    tp_topo_leaf_name(c->topo, c->rem_leaf));
	/* The remainder's pod is named with the others, but only the whole
	 * leaves' pods count for keeping pods apart (said after). */
	if (c->rem_take)
		c->pod_take[rem_pod] += c->rem_take;
	pods_used = count_marked(c->pod_take, c->pod_count);
	say(c, ") under %u pod%s (", pods_used, pods_used == 1 ? "" : "s");
	say_names(c, c->pod_count, tp_topo_pod_name, c->pod_take);
	if (c->rem_take)
		c->pod_take[rem_pod] -= c->rem_take;
	say(c, "), the fewest %sleaves that hold the job",
	    c->pod_count > 1 ? "pods, then " : "");
	if (c->rem_take)
		say(c, "'s %u hosts in whole leaves", need);
	if (greedy)
		say(c, "; greedy cover (an exact fit this large would take too "
		       "long)");
	else
		say(c, "; of those the tightest fit");
	say(c,
	    ": %u free host%s left on them (held for the job), %u wholly "
	    "free lea%s used, %u left for bigger jobs",
	    held, held == 1 ? "" : "s", whole_used,
	    whole_used == 1 ? "f" : "ves", whole_left);
	if (c->pod_count > 1 && whole_pods)
		say(c, "; %u wholly free pod%s left whole for bigger jobs",
		    whole_pods, whole_pods == 1 ? "" : "s");
	say(c, "; %u leaves skipped for %s", dirty, others);
	if (unready)
		say(c, ", %u for hosts not ready", unready);
	say_server_leaves(c);
	say_pods_apart(c, bad, intruded, clean_cap);
	if (c->rem_take) {
		c->leaf_take[c->rem_leaf] = c->rem_take;
		c->pod_take[rem_pod] += c->rem_take;
		say_remainder(c, bad);
	}
	say_pod_exposure(c);
	return true;
}

/* Free hosts left on the leaves a decision took (held for the job). */
static uint32_t leaf_leftover(const struct ctx *c)
{
	uint32_t left = 0;

	for (uint32_t l = 0; l < c->leaf_count; l++)
		if (c->leaf_take[l])
			left += c->leaf_free[l] - c->leaf_take[l];
	return left;
}

/*
 * leaf, with the remainder rule: the whole-leaf decision when it leaves
 * no host over (an exact fit such as 3 + 3 on leaves with hosts down holds
 * nothing and keeps whole leaves whole: the remainder would take one),
 * else whole leaves for the rest and the remainder's leaf when planned.
 */
static bool policy_leaf(struct ctx *c)
{
	uint32_t rem_leaf, rem_take;
	bool rem_packed, met;

	remainder_plan(c, incompatible_classes(c->req->job_class));
	if (!c->rem_take)
		return leaf_decide(c);
	rem_leaf = c->rem_leaf;
	rem_take = c->rem_take;
	rem_packed = c->rem_packed;
	c->rem_take = 0;
	met = leaf_decide(c);
	if (c->over || c->rc != TP_OK || (met && !leaf_leftover(c)))
		return met;
	memset(c->leaf_take, 0, sizeof(*c->leaf_take) * c->leaf_count);
	memset(c->pod_take, 0, sizeof(*c->pod_take) * c->pod_count);
	c->reason_len = 0;
	c->reason[0] = '\0';
	c->exposure[0] = '\0';
	c->one_pod_exposed = false;
	c->rem_leaf = rem_leaf;
	c->rem_take = rem_take;
	c->rem_packed = rem_packed;
	return leaf_decide(c);
}

static bool policy_shared(struct ctx *c)
{
	tp_jobclass mine = c->req->job_class;
	uint8_t bad = incompatible_classes(mine);
	uint32_t need = c->req->nodes, cap = 0, refused = 0, clean_cap;
	uint32_t pods_used, leaves_used, intruded;
	for (uint32_t l = 0; l < c->leaf_count; l++) {
		bool compatible = !(c->leaf_class[l] & bad);

		c->leaf_ok[l] =
		    compatible && !c->leaf_held[l] && c->leaf_free[l] > 0;
		refused += !compatible && c->leaf_free[l] > 0;
		cap += c->leaf_ok[l] ? c->leaf_free[l] : 0;
	}
	if (cap < need) {
		say(c,
		    "cannot be met now: shared policy for a %s job needs %u "
		    "hosts on leaves without incompatible jobs; they hold %u "
		    "usable hosts (%u leaves with free hosts refused for "
		    "incompatible neighbours; ",
		    tp_jobclass_name(mine), need, cap, refused);
		say_occupancy(c);
		say(c, ")");
		return false;
	}
	sum_pods(c);
	intruded = cover_pods_apart(c, need, bad, &clean_cap);
	for (uint32_t p = 0; p < c->pod_count; p++)
		if (c->pod_take[p])
			cover_leaves(c, p, c->pod_take[p]);
	if (c->over)
		return false;
	pods_used = count_marked(c->pod_take, c->pod_count);
	leaves_used = count_marked(c->leaf_take, c->leaf_count);
	say(c, "shared: %s job, %u hosts on %u leaves (",
	    tp_jobclass_name(mine), need, leaves_used);
	say_names(c, c->leaf_count, tp_topo_leaf_name, c->leaf_take);
	say(c, ") under %u pod%s (", pods_used, pods_used == 1 ? "" : "s");
	say_names(c, c->pod_count, tp_topo_pod_name, c->pod_take);
	say(c, "); leaves shared only with compatible jobs");
	if (bad)
		say(c, " (%u leaves refused for %s neighbours)", refused,
		    mine == TP_JOBCLASS_IO_HEAVY ? "comm_sensitive"
		    : c->servers && c->req->routing != TP_ROUTING_STATIC
		        ? "io_heavy or I/O server"
		        : "io_heavy");
	say_server_leaves(c);
	say_pods_apart(c, bad, intruded, clean_cap);
	say_pod_exposure(c);
	return true;
}

static bool policy_pack(struct ctx *c)
{
	uint32_t need = c->req->nodes, leaves_used;

	for (uint32_t l = 0; l < c->leaf_count; l++)
		c->leaf_ok[l] = !c->leaf_held[l] && c->leaf_free[l] > 0;
	if (cover_leaves(c, TP_TOPO_NONE, need) < need) {
		if (c->over)
			return false;
		say(c, "cannot be met now: pack needs %u hosts; ", need);
		say_occupancy(c);
		return false;
	}
	for (uint32_t l = 0; l < c->leaf_count; l++)
		if (c->leaf_take[l])
			c->pod_take[tp_topo_leaf_pod(c->topo, l)] = 1;
	leaves_used = count_marked(c->leaf_take, c->leaf_count);
	say(c, "pack: %u hosts on %u leaves (", need, leaves_used);
	say_names(c, c->leaf_count, tp_topo_leaf_name, c->leaf_take);
	say(c,
	    "), the fewest leaves with free hosts that hold the job, under %u "
	    "pod%s (",
	    count_marked(c->pod_take, c->pod_count),
	    count_marked(c->pod_take, c->pod_count) == 1 ? "" : "s");
	say_names(c, c->pod_count, tp_topo_pod_name, c->pod_take);
	say(c, ")");
	return true;
}

static bool policy_spread(struct ctx *c)
{
	uint32_t need = c->req->nodes, got = 0, ok_leaves = 0, max_leaves = 0;

	for (uint32_t l = 0; l < c->leaf_count; l++) {
		c->leaf_ok[l] = !c->leaf_held[l] && c->leaf_free[l] > 0;
		ok_leaves += c->leaf_ok[l];
	}
	for (uint32_t p = 0; p < c->pod_count; p++) {
		uint32_t n;

		tp_topo_pod_leaves(c->topo, p, &n);
		if (n > max_leaves)
			max_leaves = n;
	}
	/* Rounds of one host per leaf, leaves interleaved across pods. */
	while (got < need) {
		uint32_t before = got;

		for (uint32_t i = 0; i < max_leaves && got < need; i++) {
			for (uint32_t p = 0; p < c->pod_count && got < need;
			     p++) {
				uint32_t n, l;
				const uint32_t *leaves =
				    tp_topo_pod_leaves(c->topo, p, &n);

				if (i >= n)
					continue;
				l = leaves[i];
				if (!c->leaf_ok[l] ||
				    c->leaf_take[l] >= c->leaf_free[l])
					continue;
				c->leaf_take[l]++;
				got++;
			}
			if (budget_tick(c, c->pod_count))
				return false;
		}
		if (got == before)
			break;
	}
	if (got < need) {
		say(c, "cannot be met now: spread needs %u hosts; ", need);
		say_occupancy(c);
		return false;
	}
	for (uint32_t l = 0; l < c->leaf_count; l++)
		if (c->leaf_take[l])
			c->pod_take[tp_topo_leaf_pod(c->topo, l)] = 1;
	say(c, "spread: %u hosts on %u leaves (", need,
	    count_marked(c->leaf_take, c->leaf_count));
	say_names(c, c->leaf_count, tp_topo_leaf_name, c->leaf_take);
	say(c, ") of %u with free hosts, round robin over %u pod%s (",
	    ok_leaves, count_marked(c->pod_take, c->pod_count),
	    count_marked(c->pod_take, c->pod_count) == 1 ? "" : "s");
	say_names(c, c->pod_count, tp_topo_pod_name, c->pod_take);
	say(c, ")");
	return true;
}

static bool policy_off(struct ctx *c)
{
	if (c->usable < c->req->nodes) {
		say(c, "cannot be met now: %u hosts wanted; ", c->req->nodes);
		say_occupancy(c);
		return false;
	}
	for (uint32_t l = 0; l < c->leaf_count; l++) {
		c->leaf_take[l] = c->leaf_free[l];
		if (c->leaf_free[l])
			c->pod_take[tp_topo_leaf_pod(c->topo, l)] = 1;
	}
	say(c,
	    "off: no narrowing: all %u usable hosts (%u wanted) left to the "
	    "scheduler",
	    c->usable, c->req->nodes);
	return true;
}

/* ---- output ---------------------------------------------------------- */

/* Which hosts of a leaf go to the result: first @take usable hosts. */
static tp_status fill_result(struct ctx *c, bool allowed, tp_alloc_result *r,
                             tp_error *err)
{
	uint32_t nh = 0, nr = 0, nl = 0, np = 0;
	tp_placement policy = c->req->policy;
	/* spread, allowed: one host per leaf keeps any pick on distinct
	 * leaves, as long as the job fits one host per leaf. */
	bool one_per_leaf =
	    allowed && policy == TP_PLACEMENT_SPREAD &&
	    c->req->nodes <= count_marked(c->leaf_take, c->leaf_count);

	r->hosts = malloc(sizeof(uint32_t) * (size_t)c->host_count);
	r->reserved = malloc(sizeof(uint32_t) * (size_t)c->host_count);
	r->leaves = malloc(sizeof(uint32_t) * (size_t)c->leaf_count);
	r->pods = malloc(sizeof(uint32_t) * (size_t)c->pod_count);
	if (!r->hosts || !r->reserved || !r->leaves || !r->pods)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "allocation: no memory for %u hosts",
		                    c->host_count);

	/* shared, allowed: every eligible leaf of the chosen pods. */
	if (allowed && policy == TP_PLACEMENT_SHARED)
		for (uint32_t l = 0; l < c->leaf_count; l++)
			if (c->leaf_ok[l] &&
			    c->pod_take[tp_topo_leaf_pod(c->topo, l)] &&
			    !c->leaf_take[l])
				c->leaf_take[l] = c->leaf_free[l];

	for (uint32_t l = 0; l < c->leaf_count; l++) {
		uint32_t n, taken = 0, take = c->leaf_take[l];
		const uint32_t *hosts = tp_topo_leaf_hosts(c->topo, l, &n);
		bool whole = allowed && (policy == TP_PLACEMENT_LEAF ||
		                         policy == TP_PLACEMENT_PACK ||
		                         policy == TP_PLACEMENT_SHARED);

		if (!take)
			continue;
		r->leaves[nl++] = l;
		if (one_per_leaf)
			take = 1;
		/* The remainder's leaf: its hosts only, nothing held. */
		if (c->rem_take && l == c->rem_leaf)
			whole = false;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t h = hosts[i];

			if (!host_usable(c, h))
				continue;
			if (taken < take || whole) {
				r->hosts[nh++] = h;
				taken++;
			} else if (policy == TP_PLACEMENT_LEAF &&
			           !(c->rem_take && l == c->rem_leaf)) {
				r->reserved[nr++] = h;
			}
		}
	}
	/* spread, allowed: one host on every eligible leaf not chosen. */
	if (one_per_leaf) {
		for (uint32_t l = 0; l < c->leaf_count; l++) {
			uint32_t n;
			const uint32_t *hosts;

			if (!c->leaf_ok[l] || c->leaf_take[l])
				continue;
			hosts = tp_topo_leaf_hosts(c->topo, l, &n);
			for (uint32_t i = 0; i < n; i++) {
				if (host_usable(c, hosts[i])) {
					r->hosts[nh++] = hosts[i];
					break;
				}
			}
		}
	}
	for (uint32_t p = 0; p < c->pod_count; p++)
		if (c->pod_take[p])
			r->pods[np++] = p;
	r->host_count = nh;
	r->reserved_count = allowed ? 0 : nr;
	r->remainder_hosts = c->rem_take;
	r->remainder_leaf = c->rem_take ? c->rem_leaf : TP_TOPO_NONE;
	r->leaf_count = nl;
	r->pod_count = np;
	return TP_OK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Hosts come out leaf by leaf, which is already ascending on fabrics
 * numbered leaf by leaf: sort only when needed. */
static void sort_hosts(uint32_t *hosts, uint32_t count)
{
	for (uint32_t i = 1; i < count; i++) {
		if (hosts[i - 1] > hosts[i]) {
			qsort(hosts, count, sizeof(uint32_t), cmp_u32);
			return;
		}
	}
}

static tp_status decide_once(const tp_topo *topo, const tp_host_use *use,
                             const tp_alloc_request *req, bool allowed,
                             tp_alloc_result *r, tp_error *err)
{
	struct ctx c = {0};
	tp_status rc;
	bool met = false;

	if (!r)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "allocation: NULL result");
	memset(r, 0, sizeof(*r));
	if (!topo || !use || !req)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "allocation: NULL fabric, occupancy or request");
	if (req->nodes == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "allocation request for job %u: 0 nodes",
		                    req->job_id);
	if (req->policy == TP_PLACEMENT_AUTO)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "allocation request for job %u: policy "
		                    "auto must be resolved by the caller",
		                    req->job_id);
	if ((unsigned)req->policy > TP_PLACEMENT_OFF)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "allocation request for job %u: unknown policy %d",
		    req->job_id, (int)req->policy);
	if ((unsigned)req->job_class > TP_JOBCLASS_COMM_SENSITIVE)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "allocation request for job %u: unknown job class %d",
		    req->job_id, (int)req->job_class);
	if ((unsigned)req->routing > TP_ROUTING_STATIC)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "allocation request for job %u: unknown routing %d",
		    req->job_id, (int)req->routing);
	if (req->nodes > tp_topo_host_count(topo))
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "allocation request for job %u: %u nodes, "
		                    "but the fabric has only %u hosts",
		                    req->job_id, req->nodes,
		                    tp_topo_host_count(topo));

	c.topo = topo;
	c.use = use;
	c.req = req;
	c.host_count = tp_topo_host_count(topo);
	c.leaf_count = tp_topo_leaf_count(topo);
	c.pod_count = tp_topo_pod_count(topo);
	c.reason = r->reason;
	c.exposure = r->pod_exposure;
	c.err = err;
	c.start_us = now_us(&c);

	rc = ctx_alloc(&c, err);
	if (rc == TP_OK)
		rc = scan_occupancy(&c, err);
	if (rc == TP_OK) {
		switch (req->policy) {
		case TP_PLACEMENT_LEAF:
			met = policy_leaf(&c);
			break;
		case TP_PLACEMENT_SHARED:
			met = policy_shared(&c);
			break;
		case TP_PLACEMENT_PACK:
			met = policy_pack(&c);
			break;
		case TP_PLACEMENT_SPREAD:
			met = policy_spread(&c);
			break;
		default:
			met = policy_off(&c);
			break;
		}
		if (c.rc != TP_OK)
			rc = c.rc;
		else if (met && !c.over)
			rc = fill_result(&c, allowed, r, err);
	}
	/* The clock is checked once more at the end so no decision that
	 * overran its budget is handed out. */
	if (rc == TP_OK && (c.over || budget_check(&c)))
		rc = TP_ERR_BUDGET;
	if (rc == TP_ERR_BUDGET) {
		tp_alloc_result_free(r);
		rc = tp_error_set(err, TP_ERR_BUDGET,
		                  "allocation for job %u (%s, %u nodes): time "
		                  "budget of %llu us spent: no opinion",
		                  req->job_id, tp_placement_name(req->policy),
		                  req->nodes,
		                  (unsigned long long)req->budget_us);
	} else if (rc == TP_OK) {
		r->met = met;
		if (met) {
			sort_hosts(r->hosts, r->host_count);
			sort_hosts(r->reserved, r->reserved_count);
		}
	} else {
		tp_alloc_result_free(r);
	}
	ctx_free(&c);
	return rc;
}

/* Seconds, for reasons: whole ones above 10 s, tenths below. */
static void say_seconds(char *buf, size_t size, uint64_t us)
{
	if (us >= 10000000u)
		snprintf(buf, size, "%llu s",
		         (unsigned long long)(us / 1000000u));
	else
		snprintf(buf, size, "%.1f s", (double)us / 1e6);
}

/* @out = the 7 parts one after another, cut at @size (a reason may be). */
static void reason_join(char *out, size_t size, const char *a, const char *b,
                        const char *c, const char *d, const char *e,
                        const char *f, const char *g)
{
	const char *parts[] = {a, b, c, d, e, f, g};
	size_t used = 0;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t n = strlen(parts[i]);

		if (n > size - 1 - used)
			n = size - 1 - used;
		memmove(out + used, parts[i], n);
		used += n;
	}
	out[used] = '\0';
}

/*
 * @r = the decision of @req again under @policy, within what is left of
 * @req's budget since @t0 (@r is freed first).
 */
static tp_status decide_as(const tp_topo *topo, const tp_host_use *use,
                           const tp_alloc_request *req, tp_placement policy,
                           uint64_t t0, bool allowed, tp_alloc_result *r,
                           tp_error *err)
{
	tp_alloc_clock clock = req->clock ? req->clock : monotonic_us;
	tp_alloc_request relaxed = *req;
	uint64_t spent;

	relaxed.policy = policy;
	if (req->budget_us) {
		spent = clock(req->clock_data) - t0;
		if (spent >= req->budget_us) {
			tp_alloc_result_free(r);
			return tp_error_set(
			    err, TP_ERR_BUDGET,
			    "allocation for job %u (%s past its wait bound, "
			    "%u nodes): time budget of %llu us spent: no "
			    "opinion",
			    req->job_id, tp_placement_name(req->policy),
			    req->nodes, (unsigned long long)req->budget_us);
		}
		relaxed.budget_us = req->budget_us - spent;
	}
	tp_alloc_result_free(r);
	return decide_once(topo, use, &relaxed, allowed, r, err);
}

/* "cannot be met now: X" -> "X", for a second clause. */
static const char *unmet_why(const char *reason)
{
	return strncmp(reason, "cannot be met now: ", 19) ? reason
	                                                  : reason + 19;
}

/*
 * A `leaf` job past its whole-leaf bound @bound_us (the lesser of
 * LeafWaitMax and IsolationWaitMax) that found no whole leaves: decided as
 * `shared`; the reason says so first, or, unmet, adds why.
 */
static tp_status leaf_gives_way(const tp_topo *topo, const tp_host_use *use,
                                const tp_alloc_request *req, uint64_t bound_us,
                                uint64_t t0, bool allowed, tp_alloc_result *r,
                                tp_error *err)
{
	char before[TP_ALLOC_REASON_MAX], waited[32], bound[32];
	tp_status rc;

	memcpy(before, r->reason, sizeof(before));
	rc =
	    decide_as(topo, use, req, TP_PLACEMENT_SHARED, t0, allowed, r, err);
	if (rc != TP_OK)
		return rc;
	say_seconds(waited, sizeof(waited), req->waited_us);
	say_seconds(bound, sizeof(bound), bound_us);
	if (r->met) {
		char shared_reason[TP_ALLOC_REASON_MAX];

		memcpy(shared_reason, r->reason, sizeof(shared_reason));
		r->leaf_wait_passed = true;
		reason_join(r->reason, sizeof(r->reason),
		            "leaf gave way to shared: waited ", waited,
		            " for whole leaves, its bound is ", bound, "; ",
		            shared_reason, "");
	} else {
		char shared_reason[TP_ALLOC_REASON_MAX];
		const char *why = unmet_why(r->reason);

		memmove(shared_reason, why, strlen(why) + 1);
		reason_join(r->reason, sizeof(r->reason), before,
		            "; past its whole-leaf wait bound (waited ", waited,
		            ", bound ", bound,
		            "), shared cannot be met either: ", shared_reason);
	}
	return TP_OK;
}

/*
 * A `leaf` or `shared` job past its isolation bound that its policy still
 * holds back: decided as `off` (every usable host, the scheduler's own
 * choice; hosts other jobs hold stay theirs).  Unmet as `off` too, the job
 * waits for hosts as it would under plain Slurm, with its policy's reason.
 */
static tp_status isolation_gives_way(const tp_topo *topo,
                                     const tp_host_use *use,
                                     const tp_alloc_request *req, uint64_t t0,
                                     bool allowed, tp_alloc_result *r,
                                     tp_error *err)
{
	char before[TP_ALLOC_REASON_MAX], waited[32], bound[32];
	tp_status rc;

	memcpy(before, r->reason, sizeof(before));
	rc = decide_as(topo, use, req, TP_PLACEMENT_OFF, t0, allowed, r, err);
	if (rc != TP_OK)
		return rc;
	if (!r->met) {
		memcpy(r->reason, before, sizeof(before));
		return TP_OK;
	}
	say_seconds(waited, sizeof(waited), req->waited_us);
	say_seconds(bound, sizeof(bound), req->isolation_wait_max_us);
	r->isolation_wait_passed = true;
	reason_join(r->reason, sizeof(r->reason), "isolation given up: waited ",
	            waited, ", its bound is ", bound,
	            ": placed by the scheduler's default, beside any class; ",
	            unmet_why(before), "");
	return TP_OK;
}

/*
 * One decision; for a `leaf` job past its whole-leaf bound that finds no
 * whole leaves, a second one as `shared`; for a `leaf` or `shared` job past
 * its isolation bound still not met, a last one as `off` (leaf -> shared ->
 * the scheduler's default), all within the one budget.
 */
static tp_status decide(const tp_topo *topo, const tp_host_use *use,
                        const tp_alloc_request *req, bool allowed,
                        tp_alloc_result *r, tp_error *err)
{
	uint64_t t0, leaf_bound;
	tp_status rc;

	if (!req)
		return decide_once(topo, use, req, allowed, r, err);
	t0 = (req->clock ? req->clock : monotonic_us)(req->clock_data);
	rc = decide_once(topo, use, req, allowed, r, err);
	if (rc != TP_OK || r->met)
		return rc;
	leaf_bound = tp_alloc_leaf_wait_bound(req->leaf_wait_max_us,
	                                      req->isolation_wait_max_us);
	if (req->policy == TP_PLACEMENT_LEAF && leaf_bound &&
	    req->waited_us >= leaf_bound) {
		rc = leaf_gives_way(topo, use, req, leaf_bound, t0, allowed, r,
		                    err);
		if (rc != TP_OK || r->met)
			return rc;
	}
	if ((req->policy == TP_PLACEMENT_LEAF ||
	     req->policy == TP_PLACEMENT_SHARED) &&
	    req->isolation_wait_max_us &&
	    req->waited_us >= req->isolation_wait_max_us)
		rc = isolation_gives_way(topo, use, req, t0, allowed, r, err);
	return rc;
}

uint64_t tp_alloc_leaf_wait_bound(uint64_t site_us, uint64_t job_us)
{
	if (!site_us)
		return job_us;
	if (!job_us)
		return site_us;
	return job_us < site_us ? job_us : site_us;
}

tp_status tp_alloc_choose(const tp_topo *topo, const tp_host_use *use,
                          const tp_alloc_request *request,
                          tp_alloc_result *result, tp_error *err)
{
	return decide(topo, use, request, false, result, err);
}

tp_status tp_alloc_allowed(const tp_topo *topo, const tp_host_use *use,
                           const tp_alloc_request *request,
                           tp_alloc_result *result, tp_error *err)
{
	return decide(topo, use, request, true, result, err);
}

void tp_alloc_remainder_summary(const tp_topo *topo,
                                const tp_alloc_result *result, char *buf,
                                size_t size)
{
	uint32_t whole, rest;

	if (!size)
		return;
	buf[0] = '\0';
	if (!topo || !result || !result->met || !result->remainder_hosts ||
	    result->remainder_leaf >= tp_topo_leaf_count(topo))
		return;
	whole = result->leaf_count ? result->leaf_count - 1 : 0;
	rest = result->remainder_hosts;
	if (whole)
		snprintf(buf, size,
		         "leaf: %u whole lea%s + %u host%s on a shared "
		         "compatible leaf (%s)",
		         whole, whole == 1 ? "f" : "ves", rest,
		         rest == 1 ? "" : "s",
		         tp_topo_leaf_name(topo, result->remainder_leaf));
	else
		snprintf(buf, size,
		         "leaf: %u host%s on a shared compatible leaf (%s), "
		         "no whole leaf",
		         rest, rest == 1 ? "" : "s",
		         tp_topo_leaf_name(topo, result->remainder_leaf));
}

void tp_alloc_result_free(tp_alloc_result *result)
{
	char reason[TP_ALLOC_REASON_MAX];

	if (!result)
		return;
	free(result->hosts);
	free(result->reserved);
	free(result->leaves);
	free(result->pods);
	/* Keep the reason: it says why a decision failed or what it was. */
	memcpy(reason, result->reason, sizeof(reason));
	memset(result, 0, sizeof(*result));
	memcpy(result->reason, reason, sizeof(reason));
}
