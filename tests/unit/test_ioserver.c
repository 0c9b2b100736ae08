/*
 * test_ioserver.c: I/O servers land where each policy says (spread: last
 * port of each leaf; isolated: packed on dedicated leaves; random: seeded),
 * for site-wide and per-job servers, off the leaves and, on 3-level trees,
 * out of the pods of comm_sensitive jobs while there is room elsewhere, and
 * the uplink load of n -> m traffic is exact.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ioserver.h"

static tp_topo *fattree(uint32_t pods, uint32_t leaves, uint32_t hosts)
{
	tp_topo *topo;
	tp_error err;

	assert_int_equal(tp_topo_new_fattree(&topo, pods, leaves, hosts, &err),
	                 TP_OK);
	return topo;
}

static void place(tp_topo *topo, tp_ioserver_request *rq, tp_ioserver_result *r)
{
	tp_error err;

	assert_int_equal(tp_ioserver_place(topo, rq, r, &err), TP_OK);
}

#define EXPECT_SERVERS(r, ...)                                                 \
	do {                                                                   \
		const uint32_t want_[] = {__VA_ARGS__};                        \
		assert_int_equal((r)->server_count,                            \
		                 sizeof(want_) / sizeof(want_[0]));            \
		for (size_t i_ = 0; i_ < sizeof(want_) / sizeof(want_[0]);     \
		     i_++)                                                     \
			assert_int_equal((r)->servers[i_], want_[i_]);         \
	} while (0)

static void
test_spread_site_puts_one_server_on_each_leafs_last_port(void **state)
{
	tp_topo *topo = fattree(1, 4, 4);
	tp_ioserver_request rq = {.servers = 4, .policy = TP_IOSERVER_SPREAD};
	tp_ioserver_result r;

	(void)state;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 7, 11, 15);
	assert_non_null(
	    strstr(r.reason, "spread: 4 servers site-wide on 4 leaves"));
	assert_non_null(strstr(r.reason, "n0004 (leaf001)"));
	tp_ioserver_result_free(&r);
	/* Two servers on four leaves: evenly spaced. */
	rq.servers = 2;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 11);
	tp_ioserver_result_free(&r);
	/* Six: a second round on the next-to-last ports. */
	rq.servers = 6;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 2, 3, 6, 7, 11, 15);
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void test_spread_skips_busy_last_port_for_last_usable(void **state)
{
	tp_topo *topo = fattree(1, 2, 4);
	tp_host_use use[8] = {0};
	tp_ioserver_request rq = {
	    .servers = 2, .policy = TP_IOSERVER_SPREAD, .use = use};
	tp_ioserver_result r;

	(void)state;
	use[3].state = TP_HOST_BUSY;
	use[3].job_id = 9;
	use[7].state = TP_HOST_DOWN;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 2, 6);
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void test_isolated_site_packs_servers_on_last_leaves(void **state)
{
	tp_topo *topo = fattree(1, 4, 4);
	tp_ioserver_request rq = {.servers = 6, .policy = TP_IOSERVER_ISOLATED};
	tp_ioserver_result r;

	(void)state;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 10, 11, 12, 13, 14, 15);
	assert_non_null(
	    strstr(r.reason, "isolated: 6 servers site-wide on 2 leaves"));
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void test_random_is_seeded_and_deterministic(void **state)
{
	tp_topo *topo = fattree(2, 4, 4);
	tp_ioserver_request rq = {
	    .servers = 5, .policy = TP_IOSERVER_RANDOM, .seed = 42};
	tp_ioserver_result a, b, c;
	bool differs = false;

	(void)state;
	place(topo, &rq, &a);
	place(topo, &rq, &b);
	rq.seed = 43;
	place(topo, &rq, &c);
	assert_int_equal(a.server_count, 5);
	assert_memory_equal(a.servers, b.servers, 5 * sizeof(uint32_t));
	for (uint32_t i = 0; i < 5; i++) {
		assert_true(a.servers[i] < 32);
		if (i)
			assert_true(a.servers[i] > a.servers[i - 1]);
		differs |= a.servers[i] != c.servers[i];
	}
	assert_true(differs);
	tp_ioserver_result_free(&a);
	tp_ioserver_result_free(&b);
	tp_ioserver_result_free(&c);
	tp_topo_free(topo);
}

static void test_per_job_among_uses_only_job_hosts(void **state)
{
	tp_topo *topo = fattree(1, 4, 4);
	const uint32_t job[] = {0, 1, 2, 3, 4, 5};
	tp_ioserver_request rq = {.servers = 2,
	                          .policy = TP_IOSERVER_SPREAD,
	                          .scope = TP_IOSERVER_AMONG,
	                          .job_hosts = job,
	                          .job_host_count = 6};
	tp_ioserver_result r;

	(void)state;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 5);
	tp_ioserver_result_free(&r);
	rq.policy = TP_IOSERVER_ISOLATED;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 2, 3);
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void
test_per_job_beside_spread_prefers_job_leaves_then_pods(void **state)
{
	tp_topo *topo = fattree(2, 2, 4);
	tp_host_use use[16] = {0};
	const uint32_t job[] = {0, 1, 2, 4, 5, 6};
	tp_ioserver_request rq = {.servers = 2,
	                          .policy = TP_IOSERVER_SPREAD,
	                          .scope = TP_IOSERVER_BESIDE,
	                          .job_hosts = job,
	                          .job_host_count = 6,
	                          .job_id = 5,
	                          .use = use};
	tp_ioserver_result r;

	(void)state;
	for (uint32_t i = 0; i < 6; i++) {
		use[job[i]].state = TP_HOST_BUSY;
		use[job[i]].job_id = 5;
	}
	/* n0004 and n0008 are the free last ports of the job's leaves. */
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 7);
	assert_non_null(strstr(r.reason, "2 on the job's own leaves"));
	tp_ioserver_result_free(&r);
	/* A third server goes to the job's pod?  pod01 is all job leaves, so
	 * the next tier is pod02: its first leaf's last port. */
	rq.servers = 3;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 7, 11);
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void test_per_job_beside_isolated_avoids_job_leaves(void **state)
{
	tp_topo *topo = fattree(2, 2, 4);
	const uint32_t job[] = {0, 1, 2, 3}; /* leaf001 */
	tp_ioserver_request rq = {.servers = 2,
	                          .policy = TP_IOSERVER_ISOLATED,
	                          .scope = TP_IOSERVER_BESIDE,
	                          .job_hosts = job,
	                          .job_host_count = 4};
	tp_ioserver_result r;

	(void)state;
	/* leaf002 is in the job's pod and has no job host: servers there. */
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 6, 7);
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void test_servers_avoid_leaves_of_comm_sensitive_jobs(void **state)
{
	tp_topo *topo = fattree(1, 4, 4);
	tp_host_use use[16] = {0};
	tp_ioserver_request rq = {
	    .servers = 3, .policy = TP_IOSERVER_SPREAD, .use = use};
	tp_ioserver_result r;

	(void)state;
	use[0].state = TP_HOST_BUSY;
	use[0].job_id = 9;
	use[0].job_class = TP_JOBCLASS_COMM_SENSITIVE;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 7, 11, 15);
	tp_ioserver_result_free(&r);
	/* Four servers: no room elsewhere, and the reason says so. */
	rq.servers = 4;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 7, 11, 15);
	assert_non_null(strstr(
	    r.reason, "1 on leaves and 3 more in pods of comm_sensitive jobs"));
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

/* Whether any server of @r is in pod @pod. */
static bool any_server_in_pod(const tp_topo *topo, const tp_ioserver_result *r,
                              uint32_t pod)
{
	for (uint32_t i = 0; i < r->server_count; i++)
		if (tp_topo_leaf_pod(
		        topo, tp_topo_host_leaf(topo, r->servers[i])) == pod)
			return true;
	return false;
}

/*
 * 3 pods x 2 leaves x 4 hosts; a comm_sensitive job on n0017 (leaf005, the
 * third pod).  Without it, isolated servers go to the last leaf (leaf006)
 * and 4 spread servers take leaf001, 002, 004 and 005; with it, both
 * leave the whole third pod, leaf006 included, which shares no leaf with
 * the job but its pod's uplinks.  Only when the other pods are full does a
 * server enter that pod, on leaf006 rather than the job's leaf, and the
 * reason says so.
 */
static void test_servers_leave_pods_of_comm_sensitive_jobs(void **state)
{
	tp_topo *topo = fattree(3, 2, 4);
	tp_host_use use[24] = {0};
	tp_ioserver_request rq = {
	    .servers = 2, .policy = TP_IOSERVER_ISOLATED, .use = use};
	tp_ioserver_result r;
	const uint32_t comm_pod = 2;

	(void)state;
	assert_int_equal(tp_topo_leaf_pod(topo, tp_topo_host_leaf(topo, 16)),
	                 comm_pod);
	/* Controls: with no comm_sensitive job, the third pod is chosen. */
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 22, 23);
	tp_ioserver_result_free(&r);
	rq.policy = TP_IOSERVER_SPREAD;
	rq.servers = 4;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 7, 15, 19);
	tp_ioserver_result_free(&r);

	use[16] = (tp_host_use){TP_HOST_BUSY, 9, TP_JOBCLASS_COMM_SENSITIVE};
	rq.policy = TP_IOSERVER_ISOLATED;
	rq.servers = 2;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 14, 15);
	assert_false(any_server_in_pod(topo, &r, comm_pod));
	tp_ioserver_result_free(&r);
	rq.policy = TP_IOSERVER_SPREAD;
	rq.servers = 4;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 3, 7, 11, 15);
	assert_false(any_server_in_pod(topo, &r, comm_pod));
	tp_ioserver_result_free(&r);

	/* The first two pods full (a quiet job): the third pod's other leaf. */
	for (uint32_t h = 0; h < 16; h++)
		use[h] = (tp_host_use){TP_HOST_BUSY, 5, TP_JOBCLASS_QUIET};
	rq.servers = 1;
	place(topo, &rq, &r);
	EXPECT_SERVERS(&r, 23);
	assert_non_null(strstr(
	    r.reason, "0 on leaves and 1 more in pods of comm_sensitive jobs"));
	tp_ioserver_result_free(&r);
	tp_topo_free(topo);
}

static void test_load_counts_only_traffic_leaving_a_leaf(void **state)
{
	tp_topo *topo = fattree(2, 2, 4);
	const uint32_t clients[] = {0, 1, 4, 8}; /* leaf1 x2, leaf2, leaf3 */
	const uint32_t spread[] = {3, 15};       /* leaf1, leaf4 */
	tp_io_load load;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_ioserver_load(topo, clients, 4, spread, 2, 100.0, &load, &err),
	    TP_OK);
	/* leaf001: its 2 clients send 50 each to n0016 off-leaf: 100 up;
	 * n0004 receives 50 from each of 2 off-leaf clients: 100 down. */
	assert_true(load.leaf_up_bytes[0] == 100.0);
	assert_true(load.leaf_down_bytes[0] == 100.0);
	assert_true(load.leaf_up_bytes[1] == 100.0);
	assert_true(load.leaf_down_bytes[1] == 0.0);
	assert_true(load.leaf_up_bytes[3] == 0.0);
	assert_true(load.leaf_down_bytes[3] == 200.0);
	assert_int_equal(load.max_leaf, 3);
	assert_true(load.max_leaf_down_bytes == 200.0);
	/* pod01 (3 clients, 1 server) sends 150 to pod02's server. */
	assert_true(load.pod_up_bytes[0] == 150.0);
	assert_true(load.pod_down_bytes[1] == 150.0);
	assert_int_equal(load.loaded_leaves, 4);
	tp_io_load_free(&load);
	tp_topo_free(topo);
}

static void test_bad_requests_are_refused(void **state)
{
	tp_topo *topo = fattree(1, 2, 2);
	const uint32_t bad_host[] = {9};
	tp_ioserver_request rq = {.servers = 0, .policy = TP_IOSERVER_SPREAD};
	tp_ioserver_result r;
	tp_io_load load;
	tp_error err;
	tp_ioserver_policy pol;
	bool is_auto;

	(void)state;
	assert_int_equal(tp_ioserver_place(topo, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message, "I/O servers: 0 servers requested");
	rq.servers = 5;
	assert_int_equal(tp_ioserver_place(topo, &rq, &r, &err),
	                 TP_ERR_UNSUPPORTED);
	assert_string_equal(
	    err.message,
	    "I/O servers site-wide: 5 wanted, only 4 usable hosts");
	rq.servers = 1;
	rq.scope = TP_IOSERVER_BESIDE;
	assert_int_equal(tp_ioserver_place(topo, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(
	    err.message,
	    "I/O servers beside the job's hosts: no job hosts given");
	rq.job_hosts = bad_host;
	rq.job_host_count = 1;
	assert_int_equal(tp_ioserver_place(topo, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "job host #0 is index 9"));
	rq.scope = TP_IOSERVER_SITE;
	rq.policy = (tp_ioserver_policy)7;
	assert_int_equal(tp_ioserver_place(topo, &rq, &r, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(
	    tp_ioserver_load(topo, bad_host, 1, bad_host, 1, 1.0, &load, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "client #0 is host index 9"));
	assert_int_equal(tp_ioserver_policy_parse("spreaded", &pol, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(
	    err.message,
	    "I/O server policy 'spreaded': expected spread|isolated|random|staggered");
	assert_int_equal(tp_ioserver_policy_parse("isolated", &pol, &err),
	                 TP_OK);
	assert_int_equal(pol, TP_IOSERVER_ISOLATED);
	/* The CLIs' --io-policy: auto too, and the message says so. */
	assert_int_equal(tp_ioserver_policy_parse_auto("auto", &pol, &is_auto,
	                                               &err),
	                 TP_OK);
	assert_true(is_auto);
	assert_int_equal(pol, TP_IOSERVER_ISOLATED); /* untouched */
	assert_int_equal(tp_ioserver_policy_parse_auto("staggered", &pol,
	                                               &is_auto, &err),
	                 TP_OK);
	assert_false(is_auto);
	assert_int_equal(pol, TP_IOSERVER_STAGGERED);
	assert_int_equal(tp_ioserver_policy_parse_auto("Auto", &pol, &is_auto,
	                                               &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "I/O server policy 'Auto': expected "
	                    "auto|spread|isolated|random|staggered");
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_spread_site_puts_one_server_on_each_leafs_last_port),
	    cmocka_unit_test(test_spread_skips_busy_last_port_for_last_usable),
	    cmocka_unit_test(test_isolated_site_packs_servers_on_last_leaves),
	    cmocka_unit_test(test_random_is_seeded_and_deterministic),
	    cmocka_unit_test(test_per_job_among_uses_only_job_hosts),
	    cmocka_unit_test(
	        test_per_job_beside_spread_prefers_job_leaves_then_pods),
	    cmocka_unit_test(test_per_job_beside_isolated_avoids_job_leaves),
	    cmocka_unit_test(test_servers_avoid_leaves_of_comm_sensitive_jobs),
	    cmocka_unit_test(test_servers_leave_pods_of_comm_sensitive_jobs),
	    cmocka_unit_test(test_load_counts_only_traffic_leaving_a_leaf),
	    cmocka_unit_test(test_bad_requests_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
