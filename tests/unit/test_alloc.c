/*
 * test_alloc.c: exact host choices of the leaf, shared, pack, spread and off
 * policies on small fat trees, the allowed candidate sets, "cannot be met
 * now" reasons, the time budget, and refusal of bad requests.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_leaf_four_nodes_on_4x4_get_exactly_one_whole_leaf),
	    cmocka_unit_test(test_leaf_with_one_busy_host_is_never_chosen),
	    cmocka_unit_test(test_leaf_cannot_be_met_says_why),
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
	        test_shared_never_puts_io_heavy_beside_comm_sensitive),
	    cmocka_unit_test(
	        test_shared_prefers_partly_used_leaf_over_whole_free_one),
	    cmocka_unit_test(
	        test_shared_3level_keeps_io_heavy_out_of_comm_sensitive_pods),
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
