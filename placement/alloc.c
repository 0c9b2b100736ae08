/*
 * alloc.c: leaf allocation policies (leaf, shared, pack, spread, off).
 *
 * One decision is a few linear passes: count what each leaf and pod can
 * give, pick pods, pick leaves inside them, pick hosts inside leaves.  Pod
 * and leaf picks are greedy covers: while the rest of the job does not fit
 * in one candidate, take the largest (that gives the fewest pods or leaves);
 * once it fits, take the tightest candidate that holds it (best fit, which
 * keeps larger free blocks for larger jobs).
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

	/* Per pod: what its eligible leaves can give, and the take. */
	uint32_t *pod_cap;
	uint8_t *pod_class; /* bit per class of other jobs in the pod */
	uint8_t *pod_ok;
	uint8_t *pod_whole_free;
	uint8_t *pod_used; /* pack: a leaf of the pod is taken */
	uint32_t *pod_take;

	/* Occupancy totals, for reasons. */
	uint32_t usable, busy, held, down;

	/* Budget. */
	uint64_t start_us;
	uint64_t work;
	bool over;

	char *reason;
	size_t reason_len;
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

static void say(struct ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->reason_len + 1 >= TP_ALLOC_REASON_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(c->reason + c->reason_len,
	              TP_ALLOC_REASON_MAX - c->reason_len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= TP_ALLOC_REASON_MAX - c->reason_len) {
		/* Truncated: end in "..." so a reader sees it. */
		c->reason_len = TP_ALLOC_REASON_MAX - 1;
		memcpy(c->reason + TP_ALLOC_REASON_MAX - 4, "...", 4);
		return;
	}
	c->reason_len += (size_t)n;
}

static bool host_usable(const struct ctx *c, uint32_t h)
{
	const tp_host_use *u = &c->use[h];

	return u->state == TP_HOST_FREE ||
	       (u->state == TP_HOST_RESERVED && u->job_id == c->req->job_id);
}

static bool host_foreign(const struct ctx *c, uint32_t h)
{
	const tp_host_use *u = &c->use[h];

	return (u->state == TP_HOST_BUSY || u->state == TP_HOST_RESERVED) &&
	       u->job_id != c->req->job_id;
}

static void ctx_free(struct ctx *c)
{
	free(c->leaf_free);
	free(c->leaf_foreign);
	free(c->leaf_held);
	free(c->leaf_class);
	free(c->leaf_ok);
	free(c->leaf_take);
	free(c->pod_cap);
	free(c->pod_class);
	free(c->pod_ok);
	free(c->pod_whole_free);
	free(c->pod_used);
	free(c->pod_take);
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
	c->pod_cap = calloc(p, sizeof(*c->pod_cap));
	c->pod_class = calloc(p, 1);
	c->pod_ok = calloc(p, 1);
	c->pod_whole_free = calloc(p, 1);
	c->pod_used = calloc(p, 1);
	c->pod_take = calloc(p, sizeof(*c->pod_take));
	if (!c->leaf_free || !c->leaf_foreign || !c->leaf_held ||
	    !c->leaf_class || !c->leaf_ok || !c->leaf_take || !c->pod_cap ||
	    !c->pod_class || !c->pod_ok || !c->pod_whole_free || !c->pod_used ||
	    !c->pod_take)
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

			if ((unsigned)u->state > TP_HOST_DOWN)
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
			} else if (host_foreign(c, h)) {
				uint8_t bit = (uint8_t)(1u << u->job_class);

				c->leaf_foreign[leaf] = 1;
				c->leaf_class[leaf] |= bit;
				c->pod_class[pod] |= bit;
				if (u->state == TP_HOST_RESERVED) {
					c->leaf_held[leaf] = 1;
					c->held++;
				} else {
					c->busy++;
				}
			} else if (u->state == TP_HOST_DOWN) {
				c->down++;
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
	return !c->leaf_foreign[leaf] && c->leaf_free[leaf] == n;
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
	say(c, "%u usable hosts (%u busy, %u held for other jobs, %u down)",
	    c->usable, c->busy, c->held, c->down);
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

/* Say whether the job could be kept out of pods of incompatible jobs. */
static void say_pods_apart(struct ctx *c, uint8_t bad, uint32_t intruded,
                           uint32_t clean_cap)
{
	const char *other = c->req->job_class == TP_JOBCLASS_IO_HEAVY
	                        ? "comm_sensitive"
	                        : "io_heavy";

	if (c->pod_count < 2 || !bad)
		return;
	if (!intruded) {
		say(c, "; kept out of pods with %s jobs", other);
		return;
	}
	say(c,
	    "; NOT possible to keep it out of pods with %s jobs: only %u hosts "
	    "in other pods, so it also uses ",
	    other, clean_cap);
	for (uint32_t p = 0, k = 0; p < c->pod_count; p++) {
		if (!(c->pod_ok[p] && c->pod_take[p]))
			continue;
		say(c, "%s%s", k++ ? " " : "", tp_topo_pod_name(c->topo, p));
	}
}

static bool policy_leaf(struct ctx *c)
{
	uint32_t need = c->req->nodes, ok_leaves = 0, cap = 0, dirty = 0;
	uint32_t pods_used, leaves_used, whole_pods = 0, intruded, clean_cap;
	uint8_t bad = incompatible_classes(c->req->job_class);

	for (uint32_t l = 0; l < c->leaf_count; l++) {
		c->leaf_ok[l] = !c->leaf_foreign[l] && c->leaf_free[l] > 0;
		ok_leaves += c->leaf_ok[l];
		cap += c->leaf_ok[l] ? c->leaf_free[l] : 0;
		dirty += c->leaf_foreign[l];
	}
	if (cap < need) {
		say(c,
		    "cannot be met now: leaf policy needs %u hosts on leaves "
		    "with no other job; %u such leaves hold %u usable hosts "
		    "(%u leaves have other jobs' hosts; ",
		    need, ok_leaves, cap, dirty);
		say_occupancy(c);
		say(c, ")");
		return false;
	}
	sum_pods(c);
	intruded = cover_pods_apart(c, need, bad, &clean_cap);
	for (uint32_t p = 0; p < c->pod_count; p++)
		whole_pods += c->pod_whole_free[p] && !c->pod_take[p];
	for (uint32_t p = 0; p < c->pod_count; p++)
		if (c->pod_take[p])
			cover_leaves(c, p, c->pod_take[p]);
	if (c->over)
		return false;
	pods_used = count_marked(c->pod_take, c->pod_count);
	leaves_used = count_marked(c->leaf_take, c->leaf_count);
	say(c, "leaf: %u hosts on %u whole leaf switch%s (", need, leaves_used,
	    leaves_used == 1 ? "" : "es");
	say_names(c, c->leaf_count, tp_topo_leaf_name, c->leaf_take);
	say(c, ") under %u pod%s (", pods_used, pods_used == 1 ? "" : "s");
	say_names(c, c->pod_count, tp_topo_pod_name, c->pod_take);
	say(c, "), the fewest that hold the job");
	if (c->pod_count > 1) {
		say(c, "; pods by tightest fit of their free whole leaves");
		if (whole_pods)
			say(c,
			    ", %u wholly free pod%s left whole for bigger jobs",
			    whole_pods, whole_pods == 1 ? "" : "s");
	}
	say(c, "; %u leaves skipped for other jobs' hosts", dirty);
	say_pods_apart(c, bad, intruded, clean_cap);
	return true;
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
		                                 : "io_heavy");
	say_pods_apart(c, bad, intruded, clean_cap);
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
		for (uint32_t i = 0; i < n; i++) {
			uint32_t h = hosts[i];

			if (!host_usable(c, h))
				continue;
			if (taken < take || whole) {
				r->hosts[nh++] = h;
				taken++;
			} else if (policy == TP_PLACEMENT_LEAF) {
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

static tp_status decide(const tp_topo *topo, const tp_host_use *use,
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
		if (met && !c.over)
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
