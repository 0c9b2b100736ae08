/*
 * test_alloc_remainder.c: `leaf` under LeafRemainder=compatible (alloc.h):
 * whole leaves for a multiple of the leaf size, the remainder on a leaf
 * shared only with compatible jobs (packed, tightest first), never beside
 * io_heavy jobs, I/O servers or other jobs' held hosts; the fall back to
 * the whole-leaf rule, waiting when nothing is free, the allowed set, the
 * reason and the short summary.  Fabric: 1 pod of 4 leaves of 4 hosts
 * (leaf001 = hosts 0-3, leaf002 = 4-7, leaf003 = 8-11, leaf004 = 12-15).
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

static void set(struct fixture *fx, uint32_t host, tp_host_state state,
                uint32_t job, tp_jobclass job_class)
{
	fx->use[host].state = state;
	fx->use[host].job_id = job;
	fx->use[host].job_class = job_class;
}

static tp_alloc_request rq(uint32_t nodes, tp_jobclass job_class)
{
	tp_alloc_request r = {.nodes = nodes,
	                      .policy = TP_PLACEMENT_LEAF,
	                      .job_class = job_class,
	                      .job_id = 100,
	                      .leaf_remainder = TP_LEAF_REMAINDER_COMPATIBLE};

	return r;
}

static void choose(struct fixture *fx, tp_alloc_request r,
                   tp_alloc_result *res)
{
	tp_error err;

	assert_int_equal(tp_alloc_choose(fx->topo, fx->use, &r, res, &err),
	                 TP_OK);
}

static void expect_list(const uint32_t *got, uint32_t got_count,
                        const uint32_t *want, uint32_t want_count)
{
	assert_int_equal(got_count, want_count);
	for (uint32_t i = 0; i < want_count; i++)
		assert_int_equal(got[i], want[i]);
}

#define EXPECT_LIST(got, n, ...)                                               \
	do {                                                                   \
		const uint32_t want_[] = {__VA_ARGS__};                        \
		expect_list(got, n, want_, sizeof(want_) / sizeof(want_[0]));  \
	} while (0)

#define EXPECT_IN(text, part)                                                  \
	do {                                                                   \
		if (!strstr(text, part))                                       \
			fail_msg("missing \"%s\" in \"%s\"", part, text);      \
	} while (0)

static void test_one_host_job_takes_no_whole_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request whole = rq(1, TP_JOBCLASS_COMM_SENSITIVE);
	char summary[200];

	(void)state;
	fx_new(&fx, 1, 4, 4);
	choose(&fx, rq(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
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
	set(&fx, 8, TP_HOST_BUSY, 7, TP_JOBCLASS_COMM_SENSITIVE);
	choose(&fx, rq(2, TP_JOBCLASS_COMM_SENSITIVE), &r);
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
	set(&fx, 8, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	choose(&fx, rq(8, TP_JOBCLASS_QUIET), &r);
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
	tp_alloc_request a = rq(6, TP_JOBCLASS_QUIET);
	char summary[200];

	(void)state;
	fx_new(&fx, 1, 4, 4);
	set(&fx, 12, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET); /* leaf004 */
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
	set(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_IO_HEAVY);
	set(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	set(&fx, 5, TP_HOST_RESERVED, 8, TP_JOBCLASS_QUIET);
	set(&fx, 11, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	set(&fx, 15, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	/* 5 = 4 + 1: a remainder leaf leaves 3 hosts for 4 in whole
	 * leaves, so the whole-leaf rule decides: held leftover. */
	choose(&fx, rq(5, TP_JOBCLASS_QUIET), &r);
	assert_true(r.met);
	EXPECT_LIST(r.hosts, r.host_count, 8, 9, 10, 12, 13);
	EXPECT_LIST(r.reserved, r.reserved_count, 14);
	assert_int_equal(r.remainder_hosts, 0);
	assert_null(strstr(r.reason, "shared compatible"));
	tp_alloc_result_free(&r);
	/* 3 hosts fill leaf003 exactly: a whole leaf with nothing over
	 * beats a remainder leaf. */
	choose(&fx, rq(3, TP_JOBCLASS_QUIET), &r);
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
	set(&fx, 11, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	set(&fx, 15, TP_HOST_DOWN, 0, TP_JOBCLASS_QUIET);
	choose(&fx, rq(6, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 8, 9, 10, 12, 13, 14);
	assert_int_equal(r.reserved_count, 0);
	assert_int_equal(r.remainder_hosts, 0);
	tp_alloc_result_free(&r);
	/* 5 hosts: 3 + 3 would hold one; 4 + 1 on leaf003 holds none. */
	choose(&fx, rq(5, TP_JOBCLASS_QUIET), &r);
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
		set(&fx, h, TP_HOST_BUSY, 7, TP_JOBCLASS_IO_HEAVY);
	choose(&fx, rq(1, TP_JOBCLASS_QUIET), &r);
	assert_false(r.met);
	EXPECT_IN(r.reason, "cannot be met now: leaf policy needs 1 hosts");
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
	set(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set(&fx, 1, TP_HOST_BUSY, 9, TP_JOBCLASS_IO_HEAVY);
	set(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	choose(&fx, rq(1, TP_JOBCLASS_QUIET), &r);
	EXPECT_LIST(r.hosts, r.host_count, 5);
	assert_int_equal(r.remainder_leaf, 1);
	tp_alloc_result_free(&r);
	/* An io_heavy job's remainder stays off comm_sensitive jobs. */
	set(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_COMM_SENSITIVE);
	set(&fx, 8, TP_HOST_BUSY, 10, TP_JOBCLASS_QUIET);
	choose(&fx, rq(1, TP_JOBCLASS_IO_HEAVY), &r);
	EXPECT_LIST(r.hosts, r.host_count, 9);
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

static void test_io_server_leaf_is_never_a_remainder_leaf(void **state)
{
	struct fixture fx;
	tp_alloc_result r;
	tp_alloc_request a = rq(1, TP_JOBCLASS_QUIET);

	(void)state;
	fx_new(&fx, 1, 4, 4);
	/* leaf001: a site server and a quiet job, 2 free (the tightest);
	 * leaf002: a quiet job, 3 free. */
	set(&fx, 0, TP_HOST_IOSERVER, TP_ALLOC_SITE_JOB, TP_JOBCLASS_QUIET);
	set(&fx, 1, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
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
	set(&fx, 0, TP_HOST_IOSERVER, 9, TP_JOBCLASS_QUIET);
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
	set(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set(&fx, 1, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set(&fx, 2, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set(&fx, 3, TP_HOST_RESERVED, 7, TP_JOBCLASS_QUIET);
	choose(&fx, rq(1, TP_JOBCLASS_QUIET), &r);
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
	set(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_QUIET);
	set(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_COMM_SENSITIVE);
	set(&fx, 5, TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET);
	choose(&fx, rq(2, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 6, 7);
	tp_alloc_result_free(&r);
	/* 3 hosts: only leaf001 of the used ones has room; whole free
	 * leaves stay whole. */
	choose(&fx, rq(3, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 1, 2, 3);
	tp_alloc_result_free(&r);
	/* 7 = 4 + 3: the whole leaf is leaf003, the remainder leaf001. */
	choose(&fx, rq(7, TP_JOBCLASS_COMM_SENSITIVE), &r);
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
	set(&fx, 0, TP_HOST_BUSY, 7, TP_JOBCLASS_IO_HEAVY);
	set(&fx, 4, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET); /* tighter ... */
	set(&fx, 5, TP_HOST_BUSY, 8, TP_JOBCLASS_QUIET);
	set(&fx, 8, TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET); /* ... clean pod */
	choose(&fx, rq(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 9);
	assert_null(strstr(r.reason, "NOT possible"));
	tp_alloc_result_free(&r);
	/* With no room in the clean pod, it says so. */
	for (uint32_t h = 9; h < 16; h++)
		set(&fx, h, TP_HOST_BUSY, 10, TP_JOBCLASS_QUIET);
	choose(&fx, rq(1, TP_JOBCLASS_COMM_SENSITIVE), &r);
	EXPECT_LIST(r.hosts, r.host_count, 6);
	EXPECT_IN(r.reason, "NOT possible to keep the remainder out of pods "
	                    "with io_heavy jobs: leaf002 is under pod01");
	tp_alloc_result_free(&r);
	fx_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
