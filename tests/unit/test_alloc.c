/*
 * test_alloc.c: exact host choices of the leaf, shared, pack, spread and off
 * policies on small fat trees, the allowed candidate sets, "cannot be met
 * now" reasons, the time budget, and refusal of bad requests; the leaf
 * policy's best fit against brute force and against the greedy cover it
 * replaced on random occupancies; I/O servers in the occupancy; pods kept
 * apart from incompatible jobs, said only when there are such jobs; a leaf
 * job's remainder on a shared compatible leaf (LeafRemainder).
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc.h"

struct fixture {
	tp_topo *topo;
	tp_host_use *use;
};

static void fx_new(struct fixture *fx, uint32_t pods, uint32_t leaves,
                   uint32_t hosts)
{
	tp_error err;

	assert_int_equal(
	    tp_topo_new_fattree(&fx->topo, pods, leaves, hosts, &err), TP_OK);
	fx->use = calloc(tp_topo_host_count(fx->topo), sizeof(*fx->use));
	assert_non_null(fx->use);
}

static void fx_free(struct fixture *fx)
{
	tp_topo_free(fx->topo);
	free(fx->use);
}

static void busy(struct fixture *fx, uint32_t host, uint32_t job,
                 tp_jobclass job_class)
{
	fx->use[host].state = TP_HOST_BUSY;
	fx->use[host].job_id = job;
	fx->use[host].job_class = job_class;
}

static tp_alloc_request req(tp_placement policy, tp_jobclass job_class,
                            uint32_t nodes)
{
	tp_alloc_request r = {.nodes = nodes,
	                      .policy = policy,
	                      .job_class = job_class,
	                      .job_id = 100};

	return r;
}

static void choose(struct fixture *fx, tp_alloc_request rq, tp_alloc_result *r)
{
	tp_error err;

	assert_int_equal(tp_alloc_choose(fx->topo, fx->use, &rq, r, &err),
	                 TP_OK);
}

static void allowed(struct fixture *fx, tp_alloc_request rq, tp_alloc_result *r)
{
	tp_error err;

	assert_int_equal(tp_alloc_allowed(fx->topo, fx->use, &rq, r, &err),
	                 TP_OK);
}

static void expect_list(const uint32_t *got, uint32_t got_count,
                        const uint32_t *want, uint32_t want_count)
{
	assert_int_equal(got_count, want_count);
	for (uint32_t i = 0; i < want_count; i++)
		assert_int_equal(got[i], want[i]);
}

#define EXPECT_HOSTS(r, ...)                                                   \
	do {                                                                   \
		const uint32_t want_[] = {__VA_ARGS__};                        \
		assert_true((r)->met);                                         \
		expect_list((r)->hosts, (r)->host_count, want_,                \
		            sizeof(want_) / sizeof(want_[0]));                 \
	} while (0)

#define EXPECT_LIST(got, n, ...)                                               \
	do {                                                                   \
		const uint32_t want_[] = {__VA_ARGS__};                        \
		expect_list(got, n, want_, sizeof(want_) / sizeof(want_[0]));  \
	} while (0)

/* ---- leaf ------------------------------------------------------------ */

static void test_leaf_four_nodes_on_4x4_get_exactly_one_whole_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3);
	EXPECT_LIST(r.leaves, r.leaf_count, 0);
	EXPECT_LIST(r.pods, r.pod_count, 0);
	assert_int_equal(r.reserved_count, 0);
	assert_non_null(
	    strstr(r.reason, "leaf: 4 hosts on 1 whole leaf switch (leaf001)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_with_one_busy_host_is_never_chosen(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);  /* leaf001 */
	busy(&fx, 5, 8, TP_JOBCLASS_QUIET);  /* leaf002 */
	busy(&fx, 11, 9, TP_JOBCLASS_QUIET); /* leaf003 */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	EXPECT_HOSTS(&r, 12, 13, 14, 15);
	tp_alloc_result_free(&r);
	/* Two hosts: still the one clean leaf, the rest held for the job. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 2), &r);
	EXPECT_HOSTS(&r, 12, 13);
	EXPECT_LIST(r.reserved, r.reserved_count, 14, 15);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_cannot_be_met_says_why(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);
	busy(&fx, 5, 8, TP_JOBCLASS_QUIET);
	busy(&fx, 11, 9, TP_JOBCLASS_QUIET);
	fx.use[15].state = TP_HOST_DOWN;
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	assert_false(r.met);
	assert_null(r.hosts);
	assert_string_equal(
	    r.reason, "cannot be met now: leaf policy needs 4 hosts on leaves "
	              "with no other job; 1 such leaves hold 3 usable hosts (3 "
	              "leaves have other jobs' hosts; 12 usable hosts (3 busy, "
	              "0 held for other jobs, 1 down))");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/*
 * Hosts back in a moment (Slurm 24.11's reconfigure restarts every slurmd:
 * they answer one by one) are not a leaf's lost capacity: the 3-node
 * `leaf` job does not spread over three leaves that each show one ready
 * host, it waits; with one leaf all ready it takes that one.
 */
static void test_leaf_waits_for_hosts_not_ready(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	const uint32_t ready[] = {2, 6, 9, 15};

	(void)state;
	fx_new(&fx, 1, 4, 4);
	for (uint32_t h = 0; h < 16; h++)
		fx.use[h].state = TP_HOST_NOT_READY;
	for (size_t i = 0; i < sizeof(ready) / sizeof(*ready); i++)
		fx.use[ready[i]].state = TP_HOST_FREE;
	busy(&fx, 15, 7, TP_JOBCLASS_QUIET);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 3), &r);
	assert_false(r.met);
	assert_null(r.hosts);
	assert_string_equal(
	    r.reason, "cannot be met now: leaf policy needs 3 hosts on leaves "
	              "with no other job; 0 such leaves hold 0 usable hosts (1 "
	              "leaves have other jobs' hosts; 3 wait for hosts not "
	              "ready: not responding, completing or rebooting; 3 "
	              "usable hosts (1 busy, 0 held for other jobs, 0 down, 12 "
	              "not ready))");
	tp_alloc_result_free(&r);

	/* The same hosts down: the leaves are what is left of them. */
	for (uint32_t h = 0; h < 15; h++)
		if (fx.use[h].state == TP_HOST_NOT_READY)
			fx.use[h].state = TP_HOST_DOWN;
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 3), &r);
	assert_true(r.met);
	EXPECT_HOSTS(&r, 2, 6, 9);
	tp_alloc_result_free(&r);

	/* leaf003 all back: the job takes it, and the reason counts the
	 * leaves still waiting apart from those with other jobs. */
	for (uint32_t h = 8; h < 12; h++)
		fx.use[h].state = TP_HOST_FREE;
	fx.use[1].state = TP_HOST_NOT_READY;
	fx.use[5].state = TP_HOST_NOT_READY;
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 3), &r);
	assert_true(r.met);
	EXPECT_HOSTS(&r, 8, 9, 10);
	EXPECT_LIST(r.leaves, r.leaf_count, 2);
	assert_non_null(strstr(r.reason, "; 1 leaves skipped for other jobs' "
	                                 "hosts, 2 for hosts not ready"));
	tp_alloc_result_free(&r);

	/* `shared` and `pack` use the ready hosts, not the others. */
	choose(&fx, req(TP_PLACEMENT_PACK, TP_JOBCLASS_QUIET, 6), &r);
	assert_true(r.met);
	for (uint32_t i = 0; i < r.host_count; i++)
		assert_int_equal(fx.use[r.hosts[i]].state, TP_HOST_FREE);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_leaf_leftover_on_last_leaf_is_reserved_for_the_job(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3, 4, 5);
	EXPECT_LIST(r.reserved, r.reserved_count, 6, 7);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 1);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_last_part_goes_to_the_tightest_clean_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf004 is clean but has two hosts down: 2 usable. */
	fx.use[12].state = TP_HOST_DOWN;
	fx.use[13].state = TP_HOST_DOWN;
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3, 14, 15);
	assert_int_equal(r.reserved_count, 0);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_leaf_hosts_reserved_for_another_job_block_the_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4);

	(void)state;
	fx_new(&fx, 1, 2, 4);
	fx.use[3].state = TP_HOST_RESERVED;
	fx.use[3].job_id = 55;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7);
	tp_alloc_result_free(&r);
	/* ... but job 55 itself may use its held host. */
	rq.job_id = 55;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_3level_stays_in_fewest_pods_by_tightest_fit(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	/* 3 pods x 2 leaves x 4 hosts: pod01 and pod03 have one clean leaf
	 * each, pod02 is wholly free. */
	fx_new(&fx, 3, 2, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);  /* leaf001, pod01 */
	busy(&fx, 20, 8, TP_JOBCLASS_QUIET); /* leaf006, pod03 */
	/* 4 hosts: the tightest pod is pod01 (one free leaf), not pod02. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7);
	EXPECT_LIST(r.pods, r.pod_count, 0);
	tp_alloc_result_free(&r);
	/* 8 hosts: only pod02 holds it in one pod. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 8), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11, 12, 13, 14, 15);
	EXPECT_LIST(r.pods, r.pod_count, 1);
	tp_alloc_result_free(&r);
	/* 10 hosts: two pods (the fewest), pod02 whole plus the tightest. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 10), &r);
	EXPECT_HOSTS(&r, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15);
	EXPECT_LIST(r.pods, r.pod_count, 0, 1);
	EXPECT_LIST(r.reserved, r.reserved_count, 6, 7);
	assert_non_null(strstr(r.reason, "under 2 pods (pod01 pod02)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_leaf_3level_keeps_io_heavy_out_of_comm_sensitive_pods(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_COMM_SENSITIVE); /* leaf001, pod01 */
	/* A quiet job takes the tightest pod, pod01 ... */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7);
	tp_alloc_result_free(&r);
	/* ... an io_heavy one goes to pod02 instead. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_IO_HEAVY, 4), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11);
	assert_non_null(
	    strstr(r.reason, "kept out of pods with comm_sensitive jobs"));
	tp_alloc_result_free(&r);
	/* 12 hosts cannot avoid pod01, and the reason says so. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_IO_HEAVY, 12), &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	assert_non_null(strstr(r.reason, "NOT possible to keep it out of pods "
	                                 "with comm_sensitive jobs: only 8 "
	                                 "hosts in other pods, so it also uses "
	                                 "pod01"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* ---- leaf: the exact best fit ------------------------------------------ */

static void down(struct fixture *fx, uint32_t host)
{
	fx->use[host].state = TP_HOST_DOWN;
}

static void
test_leaf_takes_two_partly_used_leaves_that_fit_exactly(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	/* The case: n0012 and n0016 down, 6 hosts.  The greedy cover
	 * took leaf001 (4) + leaf003 (3): n0011 idle and a whole free leaf
	 * gone.  leaf003 + leaf004 (3 + 3) fit exactly. */
	fx_new(&fx, 1, 4, 4);
	down(&fx, 11);
	down(&fx, 15);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 12, 13, 14);
	EXPECT_LIST(r.leaves, r.leaf_count, 2, 3);
	assert_int_equal(r.reserved_count, 0);
	assert_non_null(strstr(r.reason,
	                       "of those the tightest fit: 0 free hosts left "
	                       "on them (held for the job), 0 wholly free "
	                       "leaves used, 2 left for bigger jobs"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_prefers_partly_used_leaves_at_the_same_total(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	/* 3 + 3 (leaf001, leaf002 with a host down each) and 4 + 2 (whole
	 * leaf003, leaf004 with two down) both hold 6 exactly: the partly
	 * used pair goes, leaf003 stays whole. */
	fx_new(&fx, 1, 4, 4);
	down(&fx, 3);
	down(&fx, 7);
	down(&fx, 14);
	down(&fx, 15);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 4, 5, 6);
	assert_int_equal(r.reserved_count, 0);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_3level_fits_pods_exactly_keeping_a_whole_pod(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	/* 3 pods x 2 leaves x 4 hosts; pod02 and pod03 have one host down on
	 * each leaf (6 usable each), pod01 is wholly free (8).  12 hosts take
	 * two pods either way; the greedy cover took pod01 whole plus 4 of
	 * pod02 (2 left over), the exact fit pod02 + pod03 (none left over)
	 * and pod01 stays whole for a big job. */
	fx_new(&fx, 3, 2, 4);
	down(&fx, 11);
	down(&fx, 15);
	down(&fx, 19);
	down(&fx, 23);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 12), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22);
	EXPECT_LIST(r.pods, r.pod_count, 1, 2);
	assert_int_equal(r.reserved_count, 0);
	assert_non_null(strstr(r.reason, "under 2 pods (pod02 pod03)"));
	assert_non_null(
	    strstr(r.reason, "1 wholly free pod left whole for bigger jobs"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_3level_one_leaf_goes_to_the_tightest_pod(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	/* pod01 has two clean leaves, pod02 one: a 4-host job takes pod02's
	 * and leaves pod01's two side by side. */
	fx_new(&fx, 2, 3, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);  /* leaf001 */
	busy(&fx, 12, 8, TP_JOBCLASS_QUIET); /* leaf004 */
	busy(&fx, 16, 9, TP_JOBCLASS_QUIET); /* leaf005 */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	EXPECT_HOSTS(&r, 20, 21, 22, 23);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/*
 * Random occupancies: leaves free, partly down, held for this job, with
 * another job's hosts, or with an I/O server; pods mixed.  splitmix64, so
 * every run draws the same cases.
 */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void random_occupancy(struct fixture *fx, uint64_t *rng)
{
	uint32_t leaves = tp_topo_leaf_count(fx->topo);

	memset(fx->use, 0, sizeof(*fx->use) * tp_topo_host_count(fx->topo));
	for (uint32_t l = 0; l < leaves; l++) {
		uint32_t n, kind = (uint32_t)(next_random(rng) % 8);
		const uint32_t *hosts = tp_topo_leaf_hosts(fx->topo, l, &n);

		for (uint32_t i = 0; i < n; i++) {
			uint32_t h = hosts[i], dice = next_random(rng) % 4;
			tp_host_use *u = &fx->use[h];

			if (kind <= 2) /* free, a host down here and there */
				u->state = dice ? TP_HOST_FREE : TP_HOST_DOWN;
			else if (kind == 3 && dice == 0)
				*u = (tp_host_use){TP_HOST_RESERVED, 100,
				                   TP_JOBCLASS_QUIET};
			else if (kind == 4 && dice == 0)
				*u = (tp_host_use){
				    TP_HOST_BUSY, 7 + l % 3,
				    (tp_jobclass)(next_random(rng) % 3)};
			else if (kind == 5 && i == n - 1)
				*u = (tp_host_use){TP_HOST_IOSERVER,
				                   TP_ALLOC_SITE_JOB,
				                   TP_JOBCLASS_QUIET};
		}
	}
}

/* What a leaf offers policy leaf for job 100, computed from scratch. */
struct leaf_view {
	uint32_t cap, pod;
	bool ok, whole;
	uint8_t classes; /* bit per class of other jobs (servers: io_heavy) */
};

static void view_leaves(const struct fixture *fx, struct leaf_view *v)
{
	for (uint32_t l = 0; l < tp_topo_leaf_count(fx->topo); l++) {
		uint32_t n, cap = 0;
		const uint32_t *hosts = tp_topo_leaf_hosts(fx->topo, l, &n);
		bool foreign = false;

		v[l].classes = 0;
		for (uint32_t i = 0; i < n; i++) {
			const tp_host_use *u = &fx->use[hosts[i]];

			if (u->state == TP_HOST_FREE ||
			    (u->state == TP_HOST_RESERVED && u->job_id == 100))
				cap++;
			else if (u->state == TP_HOST_BUSY ||
			         u->state == TP_HOST_RESERVED) {
				foreign = true;
				v[l].classes |= (uint8_t)(1u << u->job_class);
			} else if (u->state == TP_HOST_IOSERVER) {
				foreign = true;
				v[l].classes |= 1u << TP_JOBCLASS_IO_HEAVY;
			}
		}
		v[l].cap = cap;
		v[l].pod = tp_topo_leaf_pod(fx->topo, l);
		v[l].ok = !foreign && cap > 0;
		v[l].whole = !foreign && cap == n;
	}
}

static uint8_t bad_classes(tp_jobclass mine)
{
	if (mine == TP_JOBCLASS_IO_HEAVY)
		return 1u << TP_JOBCLASS_COMM_SENSITIVE;
	if (mine == TP_JOBCLASS_COMM_SENSITIVE)
		return 1u << TP_JOBCLASS_IO_HEAVY;
	return 0;
}

/* Per pod: capacity of eligible leaves, all leaves whole, class bits. */
struct pod_view {
	uint32_t cap;
	bool whole;
	uint8_t classes;
};

static void view_pods(const struct fixture *fx, const struct leaf_view *v,
                      struct pod_view *pv)
{
	uint32_t pods = tp_topo_pod_count(fx->topo);

	for (uint32_t p = 0; p < pods; p++)
		pv[p] = (struct pod_view){0, true, 0};
	for (uint32_t l = 0; l < tp_topo_leaf_count(fx->topo); l++) {
		pv[v[l].pod].cap += v[l].ok ? v[l].cap : 0;
		pv[v[l].pod].whole &= v[l].whole;
		pv[v[l].pod].classes |= v[l].classes;
	}
}

/* The quality of a leaf set, in the order the allocator ranks them. */
struct quality {
	uint32_t pods, leaves, total, whole_leaves, whole_pods, room;
};

static int quality_cmp(const struct quality *a, const struct quality *b)
{
	const uint32_t x[] = {a->pods,         a->leaves,     a->total,
	                      a->whole_leaves, a->whole_pods, a->room};
	const uint32_t y[] = {b->pods,         b->leaves,     b->total,
	                      b->whole_leaves, b->whole_pods, b->room};

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static struct quality quality_of(const struct fixture *fx,
                                 const struct leaf_view *v,
                                 const struct pod_view *pv,
                                 const uint8_t *chosen)
{
	struct quality q = {0};
	uint32_t pods = tp_topo_pod_count(fx->topo);
	uint8_t touched[16] = {0};

	assert_true(pods <= 16);
	for (uint32_t l = 0; l < tp_topo_leaf_count(fx->topo); l++) {
		if (!chosen[l])
			continue;
		q.leaves++;
		q.total += v[l].cap;
		q.whole_leaves += v[l].whole;
		touched[v[l].pod] = 1;
	}
	for (uint32_t p = 0; p < pods; p++) {
		if (!touched[p])
			continue;
		q.pods++;
		q.whole_pods += pv[p].whole;
		q.room += pv[p].cap;
	}
	return q;
}

/*
 * The pods a comm_sensitive job under adaptive routing is kept to
 * (alloc.h): those that hold it alone, clean ones when one of them does.
 * False when no pod holds it alone (the pods are kept apart as before).
 */
static bool one_pod_pods(const struct fixture *fx, const struct pod_view *pv,
                         uint8_t bad, uint32_t need, uint8_t *mask)
{
	uint32_t pods = tp_topo_pod_count(fx->topo);
	bool clean_fits = false, any = false;

	for (uint32_t p = 0; p < pods; p++)
		clean_fits |= pv[p].cap >= need && !(pv[p].classes & bad);
	for (uint32_t p = 0; p < pods; p++) {
		mask[p] = pv[p].cap >= need &&
		          (!clean_fits || !(pv[p].classes & bad));
		any |= mask[p];
	}
	return any;
}

/*
 * The best leaf set by brute force, as the allocator defines it: for a
 * comm_sensitive job on several pods (adaptive routing) one pod when one
 * holds it, a clean one first; else the pods without incompatible jobs
 * first (all of their leaves when they cannot hold the job); then the
 * best quality.
 */
static struct quality brute_force(const struct fixture *fx,
                                  const struct leaf_view *v,
                                  const struct pod_view *pv, uint8_t bad,
                                  bool one_pod_first, uint32_t need)
{
	uint32_t leaves = tp_topo_leaf_count(fx->topo), clean_cap = 0;
	uint32_t cand[32], ncand = 0;
	uint8_t chosen[32] = {0}, forced[32] = {0}, one_pod[16] = {0};
	struct quality best = {UINT32_MAX, 0, 0, 0, 0, 0};
	bool in_one_pod;

	assert_true(leaves <= 32 && tp_topo_pod_count(fx->topo) <= 16);
	in_one_pod = one_pod_first && tp_topo_pod_count(fx->topo) > 1 &&
	             one_pod_pods(fx, pv, bad, need, one_pod);
	for (uint32_t l = 0; l < leaves; l++)
		if (v[l].ok && !(pv[v[l].pod].classes & bad))
			clean_cap += v[l].cap;
	if (in_one_pod)
		clean_cap = need; /* candidates only, nothing forced */
	for (uint32_t l = 0; l < leaves; l++) {
		bool clean = in_one_pod ? one_pod[v[l].pod]
		                        : !(pv[v[l].pod].classes & bad);

		if (!v[l].ok)
			continue;
		if (clean_cap >= need ? clean : !clean)
			cand[ncand++] = l;
		else if (clean)
			forced[l] = 1;
	}
	assert_true(ncand <= 16);
	for (uint32_t set = 1; set < (1u << ncand); set++) {
		uint32_t sum = clean_cap >= need ? 0 : clean_cap;
		struct quality q;

		memcpy(chosen, forced, sizeof(chosen));
		for (uint32_t i = 0; i < ncand; i++)
			if (set & (1u << i)) {
				chosen[cand[i]] = 1;
				sum += v[cand[i]].cap;
			}
		if (sum < need)
			continue;
		q = quality_of(fx, v, pv, chosen);
		if (quality_cmp(&q, &best) < 0)
			best = q;
	}
	return best;
}

/*
 * The greedy cover this allocator used before (alloc.c up to issue 5's
 * audit), for policy leaf: pods, then leaves in each pod, each by taking the
 * largest while the rest does not fit one and then the tightest that holds
 * it (a partly used one on ties).  Only its quality is needed.
 */
static uint32_t greedy_pick(const uint32_t *cap, const bool *ok,
                            const bool *whole, uint32_t count, uint32_t *take,
                            uint32_t need)
{
	uint32_t covered = 0;

	while (covered < need) {
		uint32_t rest = need - covered, fit = UINT32_MAX,
		         big = UINT32_MAX;

		for (uint32_t i = 0; i < count; i++) {
			if (!ok[i] || take[i] || cap[i] == 0)
				continue;
			if (big == UINT32_MAX || cap[i] > cap[big])
				big = i;
			if (cap[i] < rest)
				continue;
			if (fit == UINT32_MAX || cap[i] < cap[fit] ||
			    (cap[i] == cap[fit] && whole[fit] && !whole[i]))
				fit = i;
		}
		if (fit != UINT32_MAX) {
			take[fit] = rest;
			return need;
		}
		if (big == UINT32_MAX)
			break;
		take[big] = cap[big];
		covered += cap[big];
	}
	return covered;
}

static struct quality greedy_before(const struct fixture *fx,
                                    const struct leaf_view *v,
                                    const struct pod_view *pv, uint8_t bad,
                                    uint32_t need)
{
	uint32_t pods = tp_topo_pod_count(fx->topo), clean_cap = 0;
	uint32_t pod_cap[16], pod_take[16] = {0};
	bool pod_ok[16], pod_whole[16];
	uint8_t chosen[64] = {0};

	assert_true(pods <= 16 && tp_topo_leaf_count(fx->topo) <= 64);
	for (uint32_t p = 0; p < pods; p++) {
		pod_cap[p] = pv[p].cap;
		pod_whole[p] = pv[p].whole;
		pod_ok[p] = !(pv[p].classes & bad) && pv[p].cap > 0;
		clean_cap += pod_ok[p] ? pv[p].cap : 0;
	}
	if (clean_cap >= need) {
		greedy_pick(pod_cap, pod_ok, pod_whole, pods, pod_take, need);
	} else {
		uint32_t got = greedy_pick(pod_cap, pod_ok, pod_whole, pods,
		                           pod_take, clean_cap);

		for (uint32_t p = 0; p < pods; p++)
			pod_ok[p] = (pv[p].classes & bad) && pv[p].cap > 0;
		greedy_pick(pod_cap, pod_ok, pod_whole, pods, pod_take,
		            need - got);
	}
	for (uint32_t p = 0; p < pods; p++) {
		uint32_t n, cap[64], take[64] = {0};
		bool ok[64], whole[64];
		const uint32_t *leaves = tp_topo_pod_leaves(fx->topo, p, &n);

		if (!pod_take[p])
			continue;
		for (uint32_t i = 0; i < n; i++) {
			cap[i] = v[leaves[i]].cap;
			ok[i] = v[leaves[i]].ok;
			whole[i] = v[leaves[i]].whole;
		}
		greedy_pick(cap, ok, whole, n, take, pod_take[p]);
		for (uint32_t i = 0; i < n; i++)
			chosen[leaves[i]] = take[i] != 0;
	}
	return quality_of(fx, v, pv, chosen);
}

/* The quality of a decision, and checks that it is a valid leaf choice. */
static struct quality quality_of_result(const struct fixture *fx,
                                        const struct leaf_view *v,
                                        const struct pod_view *pv,
                                        const tp_alloc_result *r, uint32_t need)
{
	uint8_t chosen[64] = {0};
	uint32_t usable = 0;

	assert_true(r->met);
	assert_int_equal(r->host_count, need);
	for (uint32_t i = 0; i < r->leaf_count; i++) {
		assert_true(v[r->leaves[i]].ok);
		chosen[r->leaves[i]] = 1;
		usable += v[r->leaves[i]].cap;
	}
	for (uint32_t i = 0; i < r->host_count; i++) {
		uint32_t h = r->hosts[i];

		assert_true(chosen[tp_topo_host_leaf(fx->topo, h)]);
		assert_true(fx->use[h].state == TP_HOST_FREE ||
		            fx->use[h].state == TP_HOST_RESERVED);
	}
	/* The rest of the chosen leaves is held for the job. */
	assert_int_equal(r->reserved_count, usable - need);
	return quality_of(fx, v, pv, chosen);
}

static void test_leaf_best_fit_is_exact_on_random_occupancies(void **state)
{
	static const uint32_t shapes[][3] = {
	    {1, 6, 4}, {2, 3, 5}, {3, 3, 4}, {4, 3, 3}, {2, 6, 6}, {3, 4, 3},
	};
	uint64_t rng = 5;
	uint32_t decided = 0;

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct fixture fx;

		fx_new(&fx, shapes[s][0], shapes[s][1], shapes[s][2]);
		for (int trial = 0; trial < 150; trial++) {
			struct leaf_view v[32];
			struct pod_view pv[16];
			tp_jobclass mine = (tp_jobclass)(next_random(&rng) % 3);
			uint32_t cap = 0, need;
			struct quality want, got;
			tp_alloc_result r;

			random_occupancy(&fx, &rng);
			view_leaves(&fx, v);
			view_pods(&fx, v, pv);
			for (uint32_t p = 0; p < tp_topo_pod_count(fx.topo);
			     p++)
				cap += pv[p].cap;
			if (!cap)
				continue;
			need = 1 + (uint32_t)(next_random(&rng) % cap);
			choose(&fx, req(TP_PLACEMENT_LEAF, mine, need), &r);
			got = quality_of_result(&fx, v, pv, &r, need);
			want = brute_force(&fx, v, pv, bad_classes(mine),
			                   mine == TP_JOBCLASS_COMM_SENSITIVE,
			                   need);
			assert_int_equal(quality_cmp(&got, &want), 0);
			tp_alloc_result_free(&r);
			decided++;
		}
		fx_free(&fx);
	}
	assert_true(decided > 500);
}

static void test_leaf_best_fit_never_worse_than_the_greedy_cover(void **state)
{
	static const uint32_t shapes[][3] = {
	    {1, 16, 8}, {4, 8, 8}, {3, 6, 18}, {8, 4, 6}, {2, 12, 36},
	};
	uint64_t rng = 11;
	uint32_t decided = 0, better = 0, fewer_leaves = 0;

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct fixture fx;

		fx_new(&fx, shapes[s][0], shapes[s][1], shapes[s][2]);
		for (int trial = 0; trial < 200; trial++) {
			struct leaf_view v[64];
			struct pod_view pv[16];
			tp_jobclass mine = (tp_jobclass)(next_random(&rng) % 3);
			uint32_t cap = 0, need;
			struct quality before, now;
			tp_alloc_result r, again;

			random_occupancy(&fx, &rng);
			view_leaves(&fx, v);
			view_pods(&fx, v, pv);
			for (uint32_t p = 0; p < tp_topo_pod_count(fx.topo);
			     p++)
				cap += pv[p].cap;
			if (!cap)
				continue;
			need = 1 + (uint32_t)(next_random(&rng) % cap);
			choose(&fx, req(TP_PLACEMENT_LEAF, mine, need), &r);
			now = quality_of_result(&fx, v, pv, &r, need);
			before =
			    greedy_before(&fx, v, pv, bad_classes(mine), need);
			/* Pods, then leaves, then hosts left over (the
			 * total): never worse, lexicographically. */
			assert_true(now.pods <= before.pods);
			if (now.pods == before.pods) {
				assert_true(now.leaves <= before.leaves);
				if (now.leaves == before.leaves)
					assert_true(now.total <= before.total);
			}
			better += now.pods < before.pods ||
			          (now.pods == before.pods &&
			           (now.leaves < before.leaves ||
			            (now.leaves == before.leaves &&
			             now.total < before.total)));
			fewer_leaves += now.leaves < before.leaves;
			/* Deterministic. */
			choose(&fx, req(TP_PLACEMENT_LEAF, mine, need), &again);
			assert_int_equal(again.host_count, r.host_count);
			assert_memory_equal(again.hosts, r.hosts,
			                    r.host_count * sizeof(uint32_t));
			assert_string_equal(again.reason, r.reason);
			tp_alloc_result_free(&again);
			tp_alloc_result_free(&r);
			decided++;
		}
		fx_free(&fx);
	}
	assert_true(decided > 500);
	/* The cases the greedy cover got wrong are common, not contrived. */
	assert_true(better > decided / 20);
	assert_true(fewer_leaves > 0);
}

static void
test_leaf_best_fit_too_large_falls_back_to_greedy_and_says_so(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_error err;
	char name[32];
	uint32_t leaves, usable = 0, need;

	(void)state;
	/* 172,800 hosts (past what tp_topo_new_fattree builds), every leaf
	 * with 0 to 35 hosts down (36 sizes per pod): half of them is far
	 * past what the exact search may hold. */
	assert_int_equal(tp_topo_new(&fx.topo, &err), TP_OK);
	for (uint32_t p = 0; p < 16; p++) {
		snprintf(name, sizeof(name), "pod%u", p);
		assert_int_equal(tp_topo_add_pod(fx.topo, name, NULL, &err),
		                 TP_OK);
		for (uint32_t l = 0; l < 300; l++) {
			uint32_t leaf;

			snprintf(name, sizeof(name), "leaf%u", p * 300 + l);
			assert_int_equal(
			    tp_topo_add_leaf(fx.topo, name, p, &leaf, &err),
			    TP_OK);
			for (uint32_t h = 0; h < 36; h++) {
				snprintf(name, sizeof(name), "h%u",
				         leaf * 36 + h);
				assert_int_equal(tp_topo_add_host(fx.topo, name,
				                                  leaf, NULL,
				                                  &err),
				                 TP_OK);
			}
		}
	}
	assert_int_equal(tp_topo_finish(fx.topo, &err), TP_OK);
	fx.use = calloc(tp_topo_host_count(fx.topo), sizeof(*fx.use));
	assert_non_null(fx.use);
	leaves = tp_topo_leaf_count(fx.topo);
	for (uint32_t l = 0; l < leaves; l++) {
		uint32_t n;
		const uint32_t *hosts = tp_topo_leaf_hosts(fx.topo, l, &n);

		for (uint32_t i = 0; i < l % 36; i++)
			down(&fx, hosts[i]);
		usable += n - l % 36;
	}
	need = usable / 2;
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, need), &r);
	assert_true(r.met);
	assert_int_equal(r.host_count, need);
	assert_non_null(strstr(r.reason, "; greedy cover (an exact fit this "
	                                 "large would take too long)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* ---- I/O servers in the occupancy ------------------------------------ */

static void server(struct fixture *fx, uint32_t host, uint32_t job)
{
	fx->use[host] = (tp_host_use){TP_HOST_IOSERVER, job, TP_JOBCLASS_QUIET};
}

static void test_io_server_leaf_is_no_whole_leaf_for_others(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4);

	(void)state;
	fx_new(&fx, 1, 2, 4);
	server(&fx, 3, TP_ALLOC_SITE_JOB); /* leaf001 */
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7);
	assert_non_null(strstr(r.reason, "1 leaves skipped for other jobs' "
	                                 "hosts or I/O servers"));
	tp_alloc_result_free(&r);
	/* Job id 0 does not make a site-wide server its own. */
	rq.job_id = 0;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7);
	tp_alloc_result_free(&r);
	/* A job's own server: its leaf is the job's, 3 hosts fit exactly. */
	server(&fx, 3, 100);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 3), &r);
	EXPECT_HOSTS(&r, 0, 1, 2);
	tp_alloc_result_free(&r);
	/* ... and another job's server bars the leaf. */
	server(&fx, 3, 55);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 3), &r);
	EXPECT_HOSTS(&r, 4, 5, 6);
	tp_alloc_result_free(&r);
	/* Counted in the occupancy of a refusal. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 5), &r);
	assert_false(r.met);
	assert_non_null(strstr(r.reason, "(0 busy, 0 held for other jobs, 0 "
	                                 "down, 1 I/O server)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_shared_comm_sensitive_never_shares_a_leaf_with_a_server(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 2, 4);
	server(&fx, 7, TP_ALLOC_SITE_JOB);  /* leaf002 */
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET); /* leaf001: 3 free */
	/* An io_heavy job may sit beside the server ... */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 3), &r);
	EXPECT_HOSTS(&r, 1, 2, 3);
	tp_alloc_result_free(&r);
	busy(&fx, 1, 7, TP_JOBCLASS_QUIET); /* leaf001: 2 free */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 3), &r);
	EXPECT_HOSTS(&r, 4, 5, 6);
	tp_alloc_result_free(&r);
	/* ... a comm_sensitive one may not. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 3),
	       &r);
	assert_false(r.met);
	assert_non_null(strstr(r.reason, "1 leaves with free hosts refused"));
	tp_alloc_result_free(&r);
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 2),
	       &r);
	EXPECT_HOSTS(&r, 2, 3);
	assert_non_null(strstr(r.reason,
	                       "(1 leaves refused for io_heavy or I/O server "
	                       "neighbours)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/*
 * Issue #15: under static destination-based routing a server's port has
 * links of its own, so the rest of its leaf is usable.  1 pod x 2 leaves x
 * 4 hosts; a site server on leaf001's last port.
 */
static void test_static_routing_opens_server_leaves(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 3);
	tp_alloc_request cs =
	    req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 3);

	(void)state;
	fx_new(&fx, 1, 2, 4);
	server(&fx, 3, TP_ALLOC_SITE_JOB); /* leaf001 */
	for (uint32_t h = 4; h < 8; h++)   /* leaf002: job 7's */
		busy(&fx, h, 7, TP_JOBCLASS_QUIET);
	/* Adaptive (the default): no whole leaf is left for 3 hosts. */
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_non_null(strstr(r.reason, "other jobs' hosts or I/O servers"));
	tp_alloc_result_free(&r);
	/* Static: leaf001's 3 other hosts, and the reason says why. */
	rq.routing = TP_ROUTING_STATIC;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 0, 1, 2);
	assert_non_null(strstr(r.reason,
	                       "beside I/O servers on 1 leaf (leaf001; static "
	                       "routing: their ports' links are their own)"));
	assert_null(strstr(r.reason, "or I/O servers"));
	tp_alloc_result_free(&r);
	/* shared comm_sensitive: refused beside the server unless static. */
	choose(&fx, cs, &r);
	assert_false(r.met);
	tp_alloc_result_free(&r);
	cs.routing = TP_ROUTING_STATIC;
	choose(&fx, cs, &r);
	EXPECT_HOSTS(&r, 0, 1, 2);
	assert_non_null(strstr(r.reason, "beside I/O servers on 1 leaf"));
	tp_alloc_result_free(&r);
	/* An io_heavy job's hosts still keep comm_sensitive away. */
	busy(&fx, 0, 8, TP_JOBCLASS_IO_HEAVY);
	cs.nodes = 2;
	choose(&fx, cs, &r);
	assert_false(r.met);
	tp_alloc_result_free(&r);
	/* A routing the library does not know is refused, naming the job. */
	rq.routing = (tp_routing)7;
	{
		tp_error err;

		assert_int_equal(
		    tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
		    TP_ERR_INVALID);
		assert_string_equal(err.message,
		                    "allocation request for job 100: unknown "
		                    "routing 7");
		tp_alloc_result_free(&r);
	}
	fx_free(&fx);
}

static void
test_leaf_comm_sensitive_keeps_out_of_the_server_pod_when_it_can(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 4);
	server(&fx, 15, TP_ALLOC_SITE_JOB); /* leaf004, pod02 */
	/* A quiet job takes pod02's free leaf, keeping pod01 whole ... */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11);
	tp_alloc_result_free(&r);
	/* ... a comm_sensitive one stays out of the server's pod. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 4), &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3);
	EXPECT_LIST(r.pods, r.pod_count, 0);
	assert_non_null(strstr(r.reason, "; kept out of pods with I/O "
	                                 "servers"));
	tp_alloc_result_free(&r);
	/* 12 hosts cannot: the reason names the pod and its server. */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 12), &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
	assert_non_null(strstr(r.reason,
	                       "; NOT possible to keep it out of pods with "
	                       "I/O servers: only 8 hosts in other pods, so "
	                       "it also uses pod02 (I/O servers n0016)"));
	tp_alloc_result_free(&r);
	/* With an io_heavy job in pod01 as well, both are named, and a
	 * server in every pod leaves no choice. */
	server(&fx, 7, TP_ALLOC_SITE_JOB); /* leaf002, pod01 */
	busy(&fx, 0, 9, TP_JOBCLASS_IO_HEAVY);
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 4), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11);
	assert_non_null(strstr(
	    r.reason, "; NOT possible to keep it out of pods with io_heavy "
	              "jobs or I/O servers: every pod with room has them, so "
	              "it uses pod02 (I/O servers n0016)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_shared_3level_comm_sensitive_avoids_the_server_pod(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 4);
	server(&fx, 3, TP_ALLOC_SITE_JOB); /* leaf001, pod01 */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 4),
	       &r);
	EXPECT_LIST(r.pods, r.pod_count, 1);
	assert_non_null(strstr(r.reason, "kept out of pods with I/O servers"));
	tp_alloc_result_free(&r);
	/* An io_heavy job is free to go next to the server. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 3), &r);
	EXPECT_HOSTS(&r, 0, 1, 2);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* ---- shared ---------------------------------------------------------- */

static void test_shared_never_puts_io_heavy_beside_comm_sensitive(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_COMM_SENSITIVE); /* leaf001 */
	busy(&fx, 4, 8, TP_JOBCLASS_IO_HEAVY);       /* leaf002 */
	for (uint32_t h = 8; h < 16; h++)            /* leaf003-004 full */
		busy(&fx, h, 9, TP_JOBCLASS_QUIET);
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 3), &r);
	EXPECT_HOSTS(&r, 5, 6, 7);
	tp_alloc_result_free(&r);
	/* A comm_sensitive job gets leaf001, never leaf002. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 3),
	       &r);
	EXPECT_HOSTS(&r, 1, 2, 3);
	tp_alloc_result_free(&r);
	/* Four io_heavy hosts would need leaf001: refused, with the reason. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 4), &r);
	assert_false(r.met);
	assert_non_null(strstr(
	    r.reason, "cannot be met now: shared policy for a io_heavy job "
	              "needs 4 hosts on leaves without incompatible jobs; they "
	              "hold 3 usable hosts (1 leaves with free hosts refused"));
	tp_alloc_result_free(&r);
	/* A quiet job may go anywhere: the tightest leaf first. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 1, 2, 3, 5, 6, 7);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_shared_prefers_partly_used_leaf_over_whole_free_one(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 9, 7, TP_JOBCLASS_QUIET); /* leaf003: 3 free */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_QUIET, 2), &r);
	EXPECT_HOSTS(&r, 8, 10);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_shared_3level_keeps_io_heavy_out_of_comm_sensitive_pods(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_COMM_SENSITIVE); /* leaf001, pod01 */
	/* leaf002 in pod01 is free and compatible, but pod01 is avoided. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 4), &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11);
	EXPECT_LIST(r.pods, r.pod_count, 1);
	assert_non_null(
	    strstr(r.reason, "kept out of pods with comm_sensitive jobs"));
	tp_alloc_result_free(&r);
	/* 10 hosts do not fit pod02: pod01's compatible leaf is used and the
	 * reason says it was not possible. */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 10), &r);
	EXPECT_HOSTS(&r, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15);
	assert_non_null(
	    strstr(r.reason,
	           "NOT possible to keep it out of pods with comm_sensitive "
	           "jobs: only 8 hosts in other pods, so it also uses pod01"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/*
 * "kept out of pods with ..." is said only when some pod holds a job the
 * request must avoid: not on an empty fabric, not next to a compatible
 * (quiet) job, and then when an io_heavy job does run in pod02.
 */
static void test_pods_apart_is_said_only_when_applied(void **state)
{
	static const tp_placement policies[] = {TP_PLACEMENT_LEAF,
	                                        TP_PLACEMENT_SHARED};
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 4);
	for (size_t i = 0; i < 2; i++) {
		choose(&fx, req(policies[i], TP_JOBCLASS_COMM_SENSITIVE, 4),
		       &r);
		assert_null(strstr(r.reason, "out of pods"));
		tp_alloc_result_free(&r);
		choose(&fx, req(policies[i], TP_JOBCLASS_IO_HEAVY, 4), &r);
		assert_null(strstr(r.reason, "out of pods"));
		tp_alloc_result_free(&r);
	}
	busy(&fx, 12, 7, TP_JOBCLASS_QUIET); /* leaf004, pod02 */
	choose(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 4), &r);
	assert_null(strstr(r.reason, "out of pods"));
	tp_alloc_result_free(&r);
	busy(&fx, 13, 8, TP_JOBCLASS_IO_HEAVY); /* leaf004, pod02 */
	for (size_t i = 0; i < 2; i++) {
		choose(&fx, req(policies[i], TP_JOBCLASS_COMM_SENSITIVE, 4),
		       &r);
		EXPECT_LIST(r.pods, r.pod_count, 0);
		assert_non_null(
		    strstr(r.reason, "; kept out of pods with io_heavy jobs"));
		tp_alloc_result_free(&r);
	}
	fx_free(&fx);
}

/* ---- pack, spread, off ------------------------------------------------ */

static void test_pack_uses_fewest_leaves(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);
	busy(&fx, 1, 7, TP_JOBCLASS_QUIET); /* leaf001: 2 free */
	busy(&fx, 4, 8, TP_JOBCLASS_QUIET); /* leaf002: 3 free */
	choose(&fx, req(TP_PLACEMENT_PACK, TP_JOBCLASS_QUIET, 5), &r);
	EXPECT_HOSTS(&r, 2, 8, 9, 10, 11);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 2);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_spread_uses_most_leaves_round_robin_over_pods(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 4);
	choose(&fx, req(TP_PLACEMENT_SPREAD, TP_JOBCLASS_QUIET, 2), &r);
	EXPECT_HOSTS(&r, 0, 8);
	tp_alloc_result_free(&r);
	choose(&fx, req(TP_PLACEMENT_SPREAD, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 0, 1, 4, 8, 9, 12);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 1, 2, 3);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_off_returns_usable_hosts_unchanged(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 2, 2);
	busy(&fx, 1, 7, TP_JOBCLASS_IO_HEAVY);
	fx.use[2].state = TP_HOST_DOWN;
	choose(&fx, req(TP_PLACEMENT_OFF, TP_JOBCLASS_QUIET, 1), &r);
	EXPECT_HOSTS(&r, 0, 3);
	assert_non_null(strstr(r.reason, "no narrowing"));
	tp_alloc_result_free(&r);
	choose(&fx, req(TP_PLACEMENT_OFF, TP_JOBCLASS_QUIET, 3), &r);
	assert_false(r.met);
	assert_non_null(
	    strstr(r.reason, "cannot be met now: 3 hosts wanted; 2 usable "
	                     "hosts (1 busy, 0 held for other jobs, 1 down)"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* ---- allowed sets ----------------------------------------------------- */

static void test_allowed_leaf_is_exactly_the_chosen_whole_leaves(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);
	allowed(&fx, req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 6), &r);
	EXPECT_HOSTS(&r, 4, 5, 6, 7, 8, 9, 10, 11);
	assert_int_equal(r.reserved_count, 0);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_allowed_spread_is_one_host_per_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 4, 7, TP_JOBCLASS_QUIET);
	allowed(&fx, req(TP_PLACEMENT_SPREAD, TP_JOBCLASS_QUIET, 2), &r);
	EXPECT_HOSTS(&r, 0, 5, 8, 12);
	tp_alloc_result_free(&r);
	/* More hosts than leaves: the exact choice. */
	allowed(&fx, req(TP_PLACEMENT_SPREAD, TP_JOBCLASS_QUIET, 5), &r);
	EXPECT_HOSTS(&r, 0, 1, 5, 8, 12);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_allowed_shared_is_compatible_leaves_of_chosen_pods(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 2, 2, 2);
	busy(&fx, 0, 7, TP_JOBCLASS_COMM_SENSITIVE); /* leaf001 pod01 */
	busy(&fx, 4, 8, TP_JOBCLASS_COMM_SENSITIVE); /* leaf003 pod02 */
	/* io_heavy, 1 host: both pods hold comm_sensitive jobs, so pod
	 * separation is impossible; only compatible leaves are allowed. */
	allowed(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 1), &r);
	EXPECT_HOSTS(&r, 2, 3);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void
test_allowed_pack_is_every_usable_host_of_the_chosen_leaves(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);
	busy(&fx, 1, 7, TP_JOBCLASS_QUIET); /* leaf001: 2 free */
	/* 5 hosts: a whole leaf (leaf002) plus the tightest, leaf001. */
	allowed(&fx, req(TP_PLACEMENT_PACK, TP_JOBCLASS_QUIET, 5), &r);
	EXPECT_HOSTS(&r, 2, 3, 4, 5, 6, 7);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 1);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_same_request_gives_same_answer(void **state)
{
	struct fixture fx;
	tp_alloc_result a, b;

	(void)state;
	fx_new(&fx, 3, 4, 6);
	for (uint32_t h = 0; h < 72; h += 5)
		busy(&fx, h, h, (tp_jobclass)(h % 3));
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 20), &a);
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 20), &b);
	assert_true(a.met);
	assert_int_equal(a.host_count, 20);
	assert_int_equal(b.host_count, 20);
	assert_memory_equal(a.hosts, b.hosts, 20 * sizeof(uint32_t));
	assert_string_equal(a.reason, b.reason);
	/* and never a leaf with a comm_sensitive host */
	for (uint32_t i = 0; i < a.host_count; i++) {
		uint32_t n, leaf = tp_topo_host_leaf(fx.topo, a.hosts[i]);
		const uint32_t *hosts = tp_topo_leaf_hosts(fx.topo, leaf, &n);

		for (uint32_t k = 0; k < n; k++)
			assert_false(fx.use[hosts[k]].state == TP_HOST_BUSY &&
			             fx.use[hosts[k]].job_class ==
			                 TP_JOBCLASS_COMM_SENSITIVE);
	}
	tp_alloc_result_free(&a);
	tp_alloc_result_free(&b);
	fx_free(&fx);
}

/* ---- budget and bad input --------------------------------------------- */

static uint64_t fake_clock(void *data)
{
	uint64_t *t = data;

	*t += 1000;
	return *t;
}

static void test_budget_exhausted_gives_no_opinion(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_error err;
	uint64_t t = 0;
	tp_alloc_request rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 4);

	(void)state;
	fx_new(&fx, 1, 4, 4);
	rq.budget_us = 1;
	rq.clock = fake_clock;
	rq.clock_data = &t;
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_BUDGET);
	assert_null(r.hosts);
	assert_non_null(
	    strstr(err.message, "time budget of 1 us spent: no opinion"));
	tp_alloc_result_free(&r);
	/* The same request with room in the budget is decided. */
	rq.budget_us = 1000000;
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_OK);
	assert_true(r.met);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_tiny_budget_on_big_fabric_runs_out_on_real_clock(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_error err;
	tp_placement policies[] = {TP_PLACEMENT_LEAF, TP_PLACEMENT_SHARED,
	                           TP_PLACEMENT_PACK, TP_PLACEMENT_SPREAD};

	(void)state;
	fx_new(&fx, 8, 34, 36); /* 9,792 hosts */
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		tp_alloc_request rq = req(policies[i], TP_JOBCLASS_QUIET, 9000);

		rq.budget_us = 1;
		assert_int_equal(
		    tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
		    TP_ERR_BUDGET);
		tp_alloc_result_free(&r);
	}
	fx_free(&fx);
}

/* ---- whole-leaf wait bound (issue #15) --------------------------------- */

/*
 * 1 pod x 3 leaves x 4 hosts: leaf001 half used by a quiet job, leaf002
 * half used by an io_heavy job, leaf003 by a comm_sensitive job on 1 host.
 * No whole leaf is free, so a 2-host `leaf` job waits until its bound.
 */
static void wait_bound_fixture(struct fixture *fx)
{
	fx_new(fx, 1, 3, 4);
	busy(fx, 0, 7, TP_JOBCLASS_QUIET);
	busy(fx, 1, 7, TP_JOBCLASS_QUIET);
	busy(fx, 4, 8, TP_JOBCLASS_IO_HEAVY);
	busy(fx, 5, 8, TP_JOBCLASS_IO_HEAVY);
	busy(fx, 8, 9, TP_JOBCLASS_COMM_SENSITIVE);
}

static void test_leaf_waits_until_its_bound_then_shares(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 2);

	(void)state;
	wait_bound_fixture(&fx);
	/* No bound: it waits, whatever it has waited. */
	rq.waited_us = 3600000000u;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.leaf_wait_passed);
	assert_non_null(strstr(r.reason, "cannot be met now: leaf policy"));
	tp_alloc_result_free(&r);
	/* Below its bound: still waits. */
	rq.leaf_wait_max_us = 300000000u;
	rq.waited_us = 299999999u;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.leaf_wait_passed);
	tp_alloc_result_free(&r);
	/* At its bound: shared, on the tightest compatible leaf (leaf001
	 * beside the quiet job, not leaf002 beside the io_heavy one), no
	 * leftover held, and the reason says why first. */
	rq.waited_us = 300000000u;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 2, 3);
	assert_true(r.leaf_wait_passed);
	assert_int_equal(r.reserved_count, 0);
	assert_string_equal(strstr(r.reason, "leaf gave way"), r.reason);
	assert_non_null(strstr(r.reason,
	                       "leaf gave way to shared: waited 300 s for "
	                       "whole leaves, its bound is 300 s; shared: "
	                       "comm_sensitive job, 2 hosts"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_past_its_bound_never_shares_with_io_heavy(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 3);

	(void)state;
	wait_bound_fixture(&fx);
	rq.leaf_wait_max_us = 1000000u;
	rq.waited_us = 5000000u;
	/* 3 hosts: leaf003's 3 free hosts beside another comm_sensitive job,
	 * never leaf002 beside the io_heavy one. */
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 9, 10, 11);
	assert_true(r.leaf_wait_passed);
	tp_alloc_result_free(&r);
	/* 6 hosts would need leaf002: it waits, saying both reasons. */
	rq.nodes = 6;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.leaf_wait_passed);
	assert_non_null(strstr(r.reason, "cannot be met now: leaf policy"));
	assert_non_null(strstr(r.reason,
	                       "past its whole-leaf wait bound (waited 5.0 s, "
	                       "bound 1.0 s), shared cannot be met either: "
	                       "shared policy for a comm_sensitive job"));
	tp_alloc_result_free(&r);
	/* An io_heavy job past its bound keeps off the comm_sensitive leaf. */
	rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_IO_HEAVY, 2);
	rq.leaf_wait_max_us = 1000000u;
	rq.waited_us = 1000000u;
	choose(&fx, rq, &r);
	assert_true(r.leaf_wait_passed);
	for (uint32_t i = 0; i < r.host_count; i++)
		assert_true(r.hosts[i] < 8);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_past_its_bound_avoids_servers_unless_static(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 3);

	(void)state;
	fx_new(&fx, 1, 2, 4);
	server(&fx, 3, TP_ALLOC_SITE_JOB);  /* leaf001 */
	busy(&fx, 4, 7, TP_JOBCLASS_QUIET); /* leaf002: 3 free */
	busy(&fx, 5, 7, TP_JOBCLASS_QUIET); /* leaf002: 2 free */
	rq.leaf_wait_max_us = 1000000u;
	rq.waited_us = 2000000u;
	/* Adaptive: leaf001's server leaf is refused, 3 hosts do not fit. */
	choose(&fx, rq, &r);
	assert_false(r.met);
	tp_alloc_result_free(&r);
	/* Static: the server's port has its own links; leaf001 is whole
	 * apart from the server, so `leaf` itself is met: no relaxing. */
	rq.routing = TP_ROUTING_STATIC;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 0, 1, 2);
	assert_false(r.leaf_wait_passed);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_wait_bound_keeps_other_jobs_held_leaves(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 2);

	(void)state;
	fx_new(&fx, 1, 2, 4);
	/* leaf001: job 7 (leaf) runs on 2 hosts and holds the other 2. */
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);
	busy(&fx, 1, 7, TP_JOBCLASS_QUIET);
	fx.use[2] = (tp_host_use){TP_HOST_RESERVED, 7, TP_JOBCLASS_QUIET};
	fx.use[3] = (tp_host_use){TP_HOST_RESERVED, 7, TP_JOBCLASS_QUIET};
	busy(&fx, 4, 8, TP_JOBCLASS_QUIET); /* leaf002: 3 free */
	busy(&fx, 5, 8, TP_JOBCLASS_QUIET);
	busy(&fx, 6, 8, TP_JOBCLASS_QUIET);
	rq.leaf_wait_max_us = 1;
	rq.waited_us = 1;
	choose(&fx, rq, &r);
	assert_false(r.met);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_leaf_wait_bound_of_a_job_is_at_most_the_sites(void **state)
{
	(void)state;
	assert_int_equal(tp_alloc_leaf_wait_bound(0, 0), 0);
	assert_int_equal(tp_alloc_leaf_wait_bound(300, 0), 300);
	assert_int_equal(tp_alloc_leaf_wait_bound(0, 60), 60);
	assert_int_equal(tp_alloc_leaf_wait_bound(300, 60), 60);
	assert_int_equal(tp_alloc_leaf_wait_bound(300, 900), 300);
}

static void test_leaf_wait_bound_shares_the_budget(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_error err;
	uint64_t t = 0;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 2);

	(void)state;
	wait_bound_fixture(&fx);
	rq.leaf_wait_max_us = 1;
	rq.waited_us = 1;
	rq.clock = fake_clock; /* +1 ms a reading */
	rq.clock_data = &t;
	/* Enough for the first decision, not for both. */
	rq.budget_us = 3500;
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_BUDGET);
	assert_null(r.hosts);
	tp_alloc_result_free(&r);
	rq.budget_us = 1000000;
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_OK);
	assert_true(r.leaf_wait_passed);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* leaf001: 2 free beside quiet; leaf002: 2 beside io_heavy; leaf003: 3
 * beside comm_sensitive (wait_bound_fixture): 7 free, 5 of them apart
 * from io_heavy. */
static void
test_shared_waits_until_its_isolation_bound_then_default(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 6);

	(void)state;
	wait_bound_fixture(&fx);
	/* No bound: it waits for leaves apart from io_heavy, however long. */
	rq.waited_us = 3600000000u;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.isolation_wait_passed);
	tp_alloc_result_free(&r);
	/* Below its bound: still waits. */
	rq.isolation_wait_max_us = 60000000u;
	rq.waited_us = 59999999u;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.isolation_wait_passed);
	assert_string_equal(strstr(r.reason, "cannot be met now: shared"),
	                    r.reason);
	tp_alloc_result_free(&r);
	/* At its bound: every free host, leaf002 beside io_heavy too, and
	 * the reason says so first. */
	rq.waited_us = 60000000u;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 2, 3, 6, 7, 9, 10, 11);
	assert_true(r.isolation_wait_passed);
	assert_false(r.leaf_wait_passed);
	assert_int_equal(r.reserved_count, 0);
	assert_string_equal(strstr(r.reason, "isolation given up: waited "
	                                     "60 s, its bound is 60 s: "
	                                     "placed by the scheduler's "
	                                     "default, beside any class; "
	                                     "shared policy"),
	                    r.reason);
	tp_alloc_result_free(&r);
	/* A job that fits apart from io_heavy never gives isolation up. */
	rq.nodes = 5;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 2, 3, 9, 10, 11);
	assert_false(r.isolation_wait_passed);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_isolation_bound_composes_with_the_leaf_bound(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 6);

	(void)state;
	wait_bound_fixture(&fx);
	rq.leaf_wait_max_us = 10000000u;
	rq.isolation_wait_max_us = 60000000u;
	/* Past the leaf bound only: shared is tried, cannot be met. */
	rq.waited_us = 30000000u;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.isolation_wait_passed);
	assert_non_null(strstr(r.reason, "shared cannot be met either"));
	tp_alloc_result_free(&r);
	/* Past both: leaf -> shared -> the scheduler's default. */
	rq.waited_us = 60000000u;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 2, 3, 6, 7, 9, 10, 11);
	assert_true(r.isolation_wait_passed);
	assert_false(r.leaf_wait_passed);
	assert_non_null(strstr(r.reason, "isolation given up"));
	assert_non_null(strstr(r.reason, "shared cannot be met either"));
	tp_alloc_result_free(&r);
	/* No leaf bound: the isolation bound is the leaf bound too, and
	 * a compatible shared placement comes first when there is one. */
	rq.leaf_wait_max_us = 0;
	rq.nodes = 2;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 2, 3);
	assert_true(r.leaf_wait_passed);
	assert_false(r.isolation_wait_passed);
	assert_non_null(strstr(r.reason, "its bound is 60 s"));
	tp_alloc_result_free(&r);
	/* Only `leaf` and `shared` hold jobs back for isolation. */
	rq = req(TP_PLACEMENT_PACK, TP_JOBCLASS_COMM_SENSITIVE, 8);
	rq.isolation_wait_max_us = 1000000u;
	rq.waited_us = 60000000u;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.isolation_wait_passed);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_isolation_bound_keeps_held_hosts_and_needs_room(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 3);

	(void)state;
	fx_new(&fx, 1, 2, 4);
	/* leaf001: job 7 (leaf) runs on 2 hosts and holds the other 2;
	 * leaf002: an io_heavy job on one host, 3 free. */
	busy(&fx, 0, 7, TP_JOBCLASS_QUIET);
	busy(&fx, 1, 7, TP_JOBCLASS_QUIET);
	fx.use[2] = (tp_host_use){TP_HOST_RESERVED, 7, TP_JOBCLASS_QUIET};
	fx.use[3] = (tp_host_use){TP_HOST_RESERVED, 7, TP_JOBCLASS_QUIET};
	busy(&fx, 4, 8, TP_JOBCLASS_IO_HEAVY);
	rq.isolation_wait_max_us = 1000000u;
	rq.waited_us = 1000000u;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 5, 6, 7);
	assert_true(r.isolation_wait_passed);
	tp_alloc_result_free(&r);
	/* 4 hosts: only 3 are not held or busy: it waits, as under plain
	 * Slurm, with shared's reason. */
	rq.nodes = 4;
	choose(&fx, rq, &r);
	assert_false(r.met);
	assert_false(r.isolation_wait_passed);
	assert_string_equal(strstr(r.reason, "cannot be met now: shared"),
	                    r.reason);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_bad_requests_are_refused_with_one_line(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_error err;
	tp_alloc_request rq;

	(void)state;
	fx_new(&fx, 1, 2, 2);
	rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 0);
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "allocation request for job 100: 0 nodes");
	rq = req(TP_PLACEMENT_AUTO, TP_JOBCLASS_QUIET, 1);
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(
	    strstr(err.message, "policy auto must be resolved by the caller"));
	rq = req((tp_placement)42, TP_JOBCLASS_QUIET, 1);
	assert_int_equal(tp_alloc_allowed(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "unknown policy 42"));
	rq = req(TP_PLACEMENT_LEAF, (tp_jobclass)9, 1);
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "unknown job class 9"));
	rq = req(TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, 5);
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_LIMIT);
	assert_string_equal(err.message,
	                    "allocation request for job 100: 5 nodes, but the "
	                    "fabric has only 4 hosts");
	fx.use[3].state = (tp_host_state)9;
	rq = req(TP_PLACEMENT_PACK, TP_JOBCLASS_QUIET, 1);
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "occupancy: host n0004: unknown state 9");
	fx.use[3].state = TP_HOST_BUSY;
	fx.use[3].job_class = (tp_jobclass)5;
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "occupancy: host n0004: unknown job class 5");
	assert_int_equal(tp_alloc_choose(NULL, fx.use, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_alloc_choose(fx.topo, fx.use, &rq, NULL, &err),
	                 TP_ERR_INVALID);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* ---- leaf: the remainder on a shared compatible leaf ----------------- */

/*
 * LeafRemainder=compatible (alloc.h) on 1 pod of 4 leaves of 4 hosts
 * (leaf001 = hosts 0-3, leaf002 = 4-7, leaf003 = 8-11, leaf004 = 12-15).
 */
static void set_use(struct fixture *fx, uint32_t host, tp_host_state state,
                    uint32_t job, tp_jobclass job_class)
{
	fx->use[host].state = state;
	fx->use[host].job_id = job;
	fx->use[host].job_class = job_class;
}

static tp_alloc_request remainder_req(uint32_t nodes, tp_jobclass job_class)
{
	tp_alloc_request r = req(TP_PLACEMENT_LEAF, job_class, nodes);

	r.leaf_remainder = TP_LEAF_REMAINDER_COMPATIBLE;
	return r;
}

#define EXPECT_IN(text, part)                                                  \
	do {                                                                   \
		if (!strstr(text, part))                                       \
			fail_msg("missing \"%s\" in \"%s\"", part, text);      \
	} while (0)

static void test_one_host_job_takes_no_whole_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request whole = remainder_req(1, TP_JOBCLASS_COMM_SENSITIVE);
	char summary[200];

	(void)state;
	fx_new(&fx, 1, 4, 4);
	choose(&fx, remainder_req(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	assert_true(r.met);
	EXPECT_LIST(r.hosts, r.host_count, 0);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_hosts, 1);
	assert_int_equal(r.remainder_leaf, 0);
	EXPECT_IN(r.reason, "leaf: 1 host on a shared compatible leaf "
	                    "(leaf001; LeafRemainder=compatible): smaller "
	                    "than a leaf of 4 hosts");
	EXPECT_IN(r.reason, "no leaf used by compatible jobs had room");
	tp_alloc_remainder_summary(fx.topo, &r, summary, sizeof(summary));
	assert_string_equal(summary, "leaf: 1 host on a shared compatible "
	                             "leaf (leaf001), no whole leaf");
	tp_alloc_result_free(&r);
	/* LeafRemainder=whole: the leaf is the job's, its rest held. */
	whole.leaf_remainder = TP_LEAF_REMAINDER_WHOLE;
	choose(&fx, whole, &r);
	EXPECT_LIST(r.hosts, r.host_count, 0);
	EXPECT_LIST(r.reserved, r.reserved_count, 1, 2, 3);
	assert_int_equal(r.remainder_hosts, 0);
	tp_alloc_remainder_summary(fx.topo, &r, summary, sizeof(summary));
	assert_string_equal(summary, "");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_small_jobs_pack_on_one_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* A first 1-host leaf job runs on leaf003 (not held). */
	set_use(&fx, 8, TP_HOST_BUSY, 7, TP_JOBCLASS_COMM_SENSITIVE);
	choose(&fx, remainder_req(2, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 9, 10);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_leaf, 2);
	EXPECT_LIST(r.leaves, r.leaf_count, 2);
	EXPECT_IN(r.reason, "the remainder joins compatible jobs on leaf003");
	EXPECT_IN(r.reason, "adaptive routing: it shares every uplink of "
	                    "leaf003 with the jobs there");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_multiple_of_the_leaf_size_is_whole_leaves_only(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	set_use(&fx, 8, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(8, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 0, 1, 2, 3, 4, 5, 6, 7);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 1);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_hosts, 0);
	EXPECT_IN(r.reason, "leaf: 8 hosts on 2 whole leaf switches "
	                    "(leaf001 leaf002)");
	assert_null(strstr(r.reason, "shared compatible"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_whole_leaves_plus_remainder_on_a_shared_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_error err;
	tp_alloc_request a = remainder_req(6, TP_JOBCLASS_QUIET);
	char summary[200];

	(void)state;
	fx_new(&fx, 1, 4, 4);
	set_use(&fx, 12, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET); /* leaf004 */
	choose(&fx, a, &r);
	EXPECT_LIST(r.hosts, r.host_count, 0, 1, 2, 3, 13, 14);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 3);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_hosts, 2);
	assert_int_equal(r.remainder_leaf, 3);
	EXPECT_IN(r.reason, "leaf: 6 hosts on 1 whole leaf switch (leaf001) "
	                    "+ 2 hosts on a shared compatible leaf (leaf004; "
	                    "LeafRemainder=compatible)");
	EXPECT_IN(r.reason, "1 wholly free leaf used, 2 left for bigger jobs");
	tp_alloc_remainder_summary(fx.topo, &r, summary, sizeof(summary));
	assert_string_equal(summary, "leaf: 1 whole leaf + 2 hosts on a "
	                             "shared compatible leaf (leaf004)");
	tp_alloc_result_free(&r);
	/* The allowed set: all of the whole leaf, 2 hosts of leaf004. */
	assert_int_equal(tp_alloc_allowed(fx.topo, fx.use, &a, &r, &err),
	                 TP_OK);
	EXPECT_LIST(r.hosts, r.host_count, 0, 1, 2, 3, 13, 14);
	assert_int_equal(r.remainder_hosts, 2);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_no_room_beside_whole_leaves_falls_back_to_whole(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf001: io_heavy; leaf002: another job's held leaf; leaf003
	 * and leaf004 have one host down each: 3 + 3 usable. */
	set_use(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_IO_HEAVY);
	set_use(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	set_use(&fx, 5, TP_HOST_RESERVED, 8, TP_JOBCLASS_QUIET);
	set_use(&fx, 11, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	set_use(&fx, 15, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	/* 5 = 4 + 1: a remainder leaf leaves 3 hosts for 4 in whole
	 * leaves, so the whole-leaf rule decides: held leftover.  (A
	 * comm_sensitive job: a quiet one's remainder may join leaf001.) */
	choose(&fx, remainder_req(5, TP_JOBCLASS_COMM_SENSITIVE), &r);
	assert_true(r.met);
	EXPECT_LIST(r.hosts, r.host_count, 8, 9, 10, 12, 13);
	EXPECT_LIST(r.reserved, r.reserved_count, 14);
	assert_int_equal(r.remainder_hosts, 0);
	assert_null(strstr(r.reason, "shared compatible"));
	tp_alloc_result_free(&r);
	/* 3 hosts fill leaf003 exactly: a whole leaf with nothing over
	 * beats a remainder leaf. */
	choose(&fx, remainder_req(3, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 8, 9, 10);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_hosts, 0);
	assert_null(strstr(r.reason, "shared compatible"));
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_exact_whole_fit_beats_a_remainder_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* topoplace-place(1)'s example: n0012 and n0016 down, 6 hosts
	 * take leaf003 and leaf004 (3 + 3), nothing held, two leaves left
	 * whole; a remainder would use up leaf001 for 4 + 2. */
	set_use(&fx, 11, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	set_use(&fx, 15, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(6, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 8, 9, 10, 12, 13, 14);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_hosts, 0);
	tp_alloc_result_free(&r);
	/* 5 hosts: 3 + 3 would hold one; 4 + 1 on leaf003 holds none. */
	choose(&fx, remainder_req(5, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 0, 1, 2, 3, 8);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_leaf, 2);
	EXPECT_IN(r.reason, "no leaf used by compatible jobs had room, so it "
	                    "goes on leaf003, which has no other job");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_nothing_free_waits(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	for (uint32_t h = 0; h < 16; h += 4)
		set_use(&fx, h, TP_HOST_BUSY, 7, TP_JOBCLASS_IO_HEAVY);
	choose(&fx, remainder_req(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	assert_false(r.met);
	EXPECT_IN(r.reason, "cannot be met now: leaf policy needs 1 hosts");
	tp_alloc_result_free(&r);
	/* A quiet job is harmed by no I/O: it joins an io_heavy leaf. */
	choose(&fx, remainder_req(1, TP_JOBCLASS_QUIET), &r);
	assert_true(r.met);
	EXPECT_LIST(r.hosts, r.host_count, 1);
	EXPECT_IN(r.reason, "quiet: io_heavy jobs cost it nothing");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_io_heavy_neighbour_keeps_the_remainder_off(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf001: the tightest, but an io_heavy job runs there. */
	set_use(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set_use(&fx, 1, TP_HOST_BUSY, 9, TP_JOBCLASS_IO_HEAVY);
	set_use(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 5);
	assert_int_equal(r.remainder_leaf, 1);
	EXPECT_IN(r.reason, "(no io_heavy job, no I/O server");
	tp_alloc_result_free(&r);
	/* A quiet remainder takes the tightest leaf, io_heavy or not. */
	choose(&fx, remainder_req(1, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 2);
	assert_int_equal(r.remainder_leaf, 0);
	tp_alloc_result_free(&r);
	/* An io_heavy job's remainder stays off comm_sensitive jobs. */
	set_use(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_COMM_SENSITIVE);
	set_use(&fx, 8, TP_HOST_BUSY, 10, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(1, TP_JOBCLASS_IO_HEAVY), &r);
	EXPECT_LIST(r.hosts, r.host_count, 9);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_io_server_leaf_is_never_a_remainder_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request a = remainder_req(1, TP_JOBCLASS_QUIET);

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf001: a site server and a quiet job, 2 free (the tightest);
	 * leaf002: a quiet job, 3 free. */
	set_use(&fx, 0, TP_HOST_IOSERVER, TP_ALLOC_SITE_JOB, TP_JOBCLASS_QUIET);
	set_use(&fx, 1, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set_use(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	choose(&fx, a, &r);
	EXPECT_LIST(r.hosts, r.host_count, 5);
	tp_alloc_result_free(&r);
	/* Static routing opens a server's leaf to whole-leaf jobs, not to
	 * remainders: its clients' traffic still converges there. */
	a.routing = TP_ROUTING_STATIC;
	choose(&fx, a, &r);
	EXPECT_LIST(r.hosts, r.host_count, 5);
	EXPECT_IN(r.reason, "static routing: it shares leaf002's uplinks "
	                    "with the jobs there only where their routes "
	                    "meet");
	tp_alloc_result_free(&r);
	/* A job's own server counts too (another job's). */
	set_use(&fx, 0, TP_HOST_IOSERVER, 9, TP_JOBCLASS_QUIET);
	a.routing = TP_ROUTING_ADAPTIVE;
	choose(&fx, a, &r);
	EXPECT_LIST(r.hosts, r.host_count, 5);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_held_leaf_is_never_a_remainder_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf001: a whole-leaf job with one host held; leaf002 free. */
	set_use(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set_use(&fx, 1, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set_use(&fx, 2, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set_use(&fx, 3, TP_HOST_RESERVED, 7, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(1, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 4);
	assert_int_equal(r.remainder_leaf, 1);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_remainders_pack_tightest_first(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf001: 3 free; leaf002: 2 free; leaf003 and leaf004 free. */
	set_use(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set_use(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_COMM_SENSITIVE);
	set_use(&fx, 5, TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(2, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 6, 7);
	tp_alloc_result_free(&r);
	/* 3 hosts: only leaf001 of the used ones has room; whole free
	 * leaves stay whole. */
	choose(&fx, remainder_req(3, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 1, 2, 3);
	tp_alloc_result_free(&r);
	/* 7 = 4 + 3: the whole leaf is leaf003, the remainder leaf001. */
	choose(&fx, remainder_req(7, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 1, 2, 3, 8, 9, 10, 11);
	EXPECT_LIST(r.leaves, r.leaf_count, 0, 2);
	assert_int_equal(r.remainder_leaf, 0);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_remainder_prefers_pods_without_io_traffic(void **state)
{
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	/* 2 pods of 2 leaves of 4: pod001 = leaf001-002 (hosts 0-7). */
	fx_new(&fx, 2, 2, 4);
	set_use(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_IO_HEAVY);
	set_use(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET); /* tighter ... */
	set_use(&fx, 5, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	set_use(&fx, 8, TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET); /* ... clean pod */
	choose(&fx, remainder_req(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 9);
	assert_null(strstr(r.reason, "NOT possible"));
	tp_alloc_result_free(&r);
	/* With no room in the clean pod, it says so. */
	for (uint32_t h = 9; h < 16; h++)
		set_use(&fx, h, TP_HOST_BUSY, 10, TP_JOBCLASS_QUIET);
	choose(&fx, remainder_req(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 6);
	EXPECT_IN(r.reason, "NOT possible to keep the remainder out of pods "
	                    "with io_heavy jobs: leaf002 is under pod01");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/* ---- pod exposure under adaptive routing (issue #15) ----------------- */

/*
 * 3 pods x 3 leaves x 4 hosts: pod01 and pod02 have one free leaf each
 * (quiet jobs on the others), pod03 has two free leaves beside an io_heavy
 * job.  8 comm_sensitive hosts fit the two clean pods together or pod03
 * alone.
 */
static void fx_span_or_io_pod(struct fixture *fx)
{
	fx_new(fx, 3, 3, 4);
	for (uint32_t h = 0; h < 8; h++) /* leaf001-002, pod01 */
		busy(fx, h, 5, TP_JOBCLASS_QUIET);
	for (uint32_t h = 12; h < 20; h++) /* leaf004-005, pod02 */
		busy(fx, h, 6, TP_JOBCLASS_QUIET);
	for (uint32_t h = 24; h < 28; h++) /* leaf007, pod03 */
		busy(fx, h, 9, TP_JOBCLASS_IO_HEAVY);
}

static void
test_adaptive_comm_sensitive_takes_one_pod_over_a_two_pod_span(void **state)
{
	static const tp_placement policies[] = {TP_PLACEMENT_LEAF,
	                                        TP_PLACEMENT_SHARED};
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_span_or_io_pod(&fx);
	for (size_t i = 0; i < 2; i++) {
		choose(&fx, req(policies[i], TP_JOBCLASS_COMM_SENSITIVE, 8),
		       &r);
		EXPECT_HOSTS(&r, 28, 29, 30, 31, 32, 33, 34, 35);
		EXPECT_LIST(r.pods, r.pod_count, 2);
		assert_string_equal(r.pod_exposure,
		                    "pod isolation given up (adaptive "
		                    "routing): pod pod03 carries I/O of job 9");
		assert_non_null(
		    strstr(r.reason,
		           "; NOT possible to keep it out of pods with "
		           "io_heavy jobs: no pod without them holds it "
		           "alone and across pods it would share the core "
		           "(adaptive routing), so it uses pod03; pod "
		           "isolation given up (adaptive routing): pod pod03 "
		           "carries I/O of job 9"));
		tp_alloc_result_free(&r);
	}
	fx_free(&fx);
}

/* Static routing: the pods are kept apart as before, nothing is said of
 * pod exposure. */
static void test_static_routing_keeps_pods_apart_as_before(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 8);

	(void)state;
	fx_span_or_io_pod(&fx);
	rq.routing = TP_ROUTING_STATIC;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11, 20, 21, 22, 23);
	EXPECT_LIST(r.pods, r.pod_count, 0, 1);
	assert_string_equal(r.pod_exposure, "");
	assert_null(strstr(r.reason, "pod isolation given up"));
	assert_non_null(strstr(r.reason, "; kept out of pods with io_heavy"));
	tp_alloc_result_free(&r);
	rq.policy = TP_PLACEMENT_SHARED;
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 8, 9, 10, 11, 20, 21, 22, 23);
	assert_string_equal(r.pod_exposure, "");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

/*
 * A pod with I/O (an I/O server) is avoided when a clean pod holds the
 * job, even when the I/O pod is the tighter fit; nothing is given up.
 */
static void test_adaptive_io_pod_avoided_when_a_clean_pod_fits(void **state)
{
	static const tp_placement policies[] = {TP_PLACEMENT_LEAF,
	                                        TP_PLACEMENT_SHARED};
	struct fixture fx;
	tp_alloc_result r;

	(void)state;
	fx_new(&fx, 3, 3, 4);
	server(&fx, 0, TP_ALLOC_SITE_JOB); /* leaf001, pod01: 8 hosts left */
	for (uint32_t h = 24; h < 28; h++) /* leaf007, pod03: 8 left */
		busy(&fx, h, 9, TP_JOBCLASS_IO_HEAVY);
	for (size_t i = 0; i < 2; i++) {
		choose(&fx, req(policies[i], TP_JOBCLASS_COMM_SENSITIVE, 8),
		       &r);
		EXPECT_LIST(r.pods, r.pod_count, 1);
		assert_string_equal(r.pod_exposure, "");
		assert_non_null(strstr(r.reason,
		                       "; kept out of pods with "
		                       "io_heavy jobs or I/O servers"));
		tp_alloc_result_free(&r);
	}
	fx_free(&fx);
}

/*
 * No clean choice: 12 hosts fit no pod alone, so the job spans pods, one
 * of them with a site I/O server; the short text says both.  An io_heavy
 * `shared` job that has to enter a pod of comm_sensitive jobs says so.
 */
static void test_adaptive_exposure_names_span_and_io_pods(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request rq =
	    req(TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE, 12);

	(void)state;
	fx_new(&fx, 2, 2, 4);
	server(&fx, 15, TP_ALLOC_SITE_JOB); /* leaf004, pod02 */
	choose(&fx, rq, &r);
	EXPECT_HOSTS(&r, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
	assert_string_equal(r.pod_exposure,
	                    "pod isolation given up (adaptive routing): "
	                    "spans pods pod01,pod02; pod pod02 carries I/O "
	                    "(site I/O server n0016)");
	assert_non_null(strstr(r.reason, r.pod_exposure));
	tp_alloc_result_free(&r);
	/* The allowed set decides the same pods and says the same. */
	allowed(&fx, rq, &r);
	assert_string_equal(r.pod_exposure,
	                    "pod isolation given up (adaptive routing): "
	                    "spans pods pod01,pod02; pod pod02 carries I/O "
	                    "(site I/O server n0016)");
	tp_alloc_result_free(&r);
	/* Under static routing the same decision says nothing of pods. */
	rq.routing = TP_ROUTING_STATIC;
	choose(&fx, rq, &r);
	assert_true(r.met);
	assert_string_equal(r.pod_exposure, "");
	tp_alloc_result_free(&r);
	/* io_heavy, shared: 10 hosts need pod01, where job 7 runs. */
	fx_free(&fx);
	fx_new(&fx, 2, 2, 4);
	busy(&fx, 0, 7, TP_JOBCLASS_COMM_SENSITIVE); /* leaf001, pod01 */
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, 10), &r);
	assert_true(r.met);
	assert_string_equal(r.pod_exposure,
	                    "pod isolation given up (adaptive routing): pod "
	                    "pod01 runs comm_sensitive job 7");
	tp_alloc_result_free(&r);
	/* Spanning two clean pods is exposure too; a quiet job never is. */
	fx_free(&fx);
	fx_new(&fx, 2, 2, 4);
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_COMM_SENSITIVE, 10),
	       &r);
	assert_string_equal(r.pod_exposure,
	                    "pod isolation given up (adaptive routing): "
	                    "spans pods pod01,pod02");
	tp_alloc_result_free(&r);
	choose(&fx, req(TP_PLACEMENT_SHARED, TP_JOBCLASS_QUIET, 10), &r);
	assert_string_equal(r.pod_exposure, "");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_leaf_four_nodes_on_4x4_get_exactly_one_whole_leaf),
	    cmocka_unit_test(test_leaf_with_one_busy_host_is_never_chosen),
	    cmocka_unit_test(test_leaf_cannot_be_met_says_why),
	    cmocka_unit_test(test_leaf_waits_for_hosts_not_ready),
	    cmocka_unit_test(
	        test_leaf_leftover_on_last_leaf_is_reserved_for_the_job),
	    cmocka_unit_test(
	        test_leaf_last_part_goes_to_the_tightest_clean_leaf),
	    cmocka_unit_test(
	        test_leaf_hosts_reserved_for_another_job_block_the_leaf),
	    cmocka_unit_test(
	        test_leaf_3level_stays_in_fewest_pods_by_tightest_fit),
	    cmocka_unit_test(
	        test_leaf_3level_keeps_io_heavy_out_of_comm_sensitive_pods),
	    cmocka_unit_test(
	        test_leaf_takes_two_partly_used_leaves_that_fit_exactly),
	    cmocka_unit_test(
	        test_leaf_prefers_partly_used_leaves_at_the_same_total),
	    cmocka_unit_test(
	        test_leaf_3level_fits_pods_exactly_keeping_a_whole_pod),
	    cmocka_unit_test(
	        test_leaf_3level_one_leaf_goes_to_the_tightest_pod),
	    cmocka_unit_test(test_leaf_best_fit_is_exact_on_random_occupancies),
	    cmocka_unit_test(
	        test_leaf_best_fit_never_worse_than_the_greedy_cover),
	    cmocka_unit_test(
	        test_leaf_best_fit_too_large_falls_back_to_greedy_and_says_so),
	    cmocka_unit_test(test_io_server_leaf_is_no_whole_leaf_for_others),
	    cmocka_unit_test(
	        test_shared_comm_sensitive_never_shares_a_leaf_with_a_server),
	    cmocka_unit_test(test_static_routing_opens_server_leaves),
	    cmocka_unit_test(
	        test_leaf_comm_sensitive_keeps_out_of_the_server_pod_when_it_can),
	    cmocka_unit_test(
	        test_shared_3level_comm_sensitive_avoids_the_server_pod),
	    cmocka_unit_test(
	        test_shared_never_puts_io_heavy_beside_comm_sensitive),
	    cmocka_unit_test(
	        test_shared_prefers_partly_used_leaf_over_whole_free_one),
	    cmocka_unit_test(
	        test_shared_3level_keeps_io_heavy_out_of_comm_sensitive_pods),
	    cmocka_unit_test(test_pods_apart_is_said_only_when_applied),
	    cmocka_unit_test(test_pack_uses_fewest_leaves),
	    cmocka_unit_test(
	        test_spread_uses_most_leaves_round_robin_over_pods),
	    cmocka_unit_test(test_off_returns_usable_hosts_unchanged),
	    cmocka_unit_test(
	        test_allowed_leaf_is_exactly_the_chosen_whole_leaves),
	    cmocka_unit_test(test_allowed_spread_is_one_host_per_leaf),
	    cmocka_unit_test(
	        test_allowed_shared_is_compatible_leaves_of_chosen_pods),
	    cmocka_unit_test(
	        test_allowed_pack_is_every_usable_host_of_the_chosen_leaves),
	    cmocka_unit_test(test_same_request_gives_same_answer),
	    cmocka_unit_test(test_budget_exhausted_gives_no_opinion),
	    cmocka_unit_test(
	        test_tiny_budget_on_big_fabric_runs_out_on_real_clock),
	    cmocka_unit_test(test_bad_requests_are_refused_with_one_line),
	    cmocka_unit_test(test_leaf_waits_until_its_bound_then_shares),
	    cmocka_unit_test(
	        test_leaf_past_its_bound_never_shares_with_io_heavy),
	    cmocka_unit_test(
	        test_leaf_past_its_bound_avoids_servers_unless_static),
	    cmocka_unit_test(test_leaf_wait_bound_keeps_other_jobs_held_leaves),
	    cmocka_unit_test(
	        test_leaf_wait_bound_of_a_job_is_at_most_the_sites),
	    cmocka_unit_test(test_leaf_wait_bound_shares_the_budget),
	    cmocka_unit_test(
	        test_shared_waits_until_its_isolation_bound_then_default),
	    cmocka_unit_test(test_isolation_bound_composes_with_the_leaf_bound),
	    cmocka_unit_test(
	        test_isolation_bound_keeps_held_hosts_and_needs_room),
	    cmocka_unit_test(test_one_host_job_takes_no_whole_leaf),
	    cmocka_unit_test(test_small_jobs_pack_on_one_leaf),
	    cmocka_unit_test(
	        test_multiple_of_the_leaf_size_is_whole_leaves_only),
	    cmocka_unit_test(test_whole_leaves_plus_remainder_on_a_shared_leaf),
	    cmocka_unit_test(
	        test_no_room_beside_whole_leaves_falls_back_to_whole),
	    cmocka_unit_test(test_exact_whole_fit_beats_a_remainder_leaf),
	    cmocka_unit_test(test_nothing_free_waits),
	    cmocka_unit_test(test_io_heavy_neighbour_keeps_the_remainder_off),
	    cmocka_unit_test(test_io_server_leaf_is_never_a_remainder_leaf),
	    cmocka_unit_test(test_held_leaf_is_never_a_remainder_leaf),
	    cmocka_unit_test(test_remainders_pack_tightest_first),
	    cmocka_unit_test(test_remainder_prefers_pods_without_io_traffic),
	    cmocka_unit_test(
	        test_adaptive_comm_sensitive_takes_one_pod_over_a_two_pod_span),
	    cmocka_unit_test(test_static_routing_keeps_pods_apart_as_before),
	    cmocka_unit_test(
	        test_adaptive_io_pod_avoided_when_a_clean_pod_fits),
	    cmocka_unit_test(test_adaptive_exposure_names_span_and_io_pods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
