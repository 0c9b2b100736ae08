/*
 * test_sched_decide.c: one scheduling test of one job
 * (placement/sched_decide.h).
 *
 * Every rule of the table in sched_decide.h once: what the job is told
 * (kind, note, waiting comment, log reason, worded as slurmctld's log and
 * the bed tests expect), and that a job which cannot use the allocator
 * never costs an occupancy copy.
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

#include "sched_decide.h"

/* 16 hosts n0001..n0016 on 4 leaves of 4 (hosts numbered leaf by leaf). */
#define HOSTS 16u

typedef struct fixture {
	tp_topo *topo;
	tp_host_use use[HOSTS];
	unsigned occupancy_calls;
	bool occupancy_fails;
} fixture;

static const tp_host_use *occupancy(void *ctx)
{
	fixture *fx = ctx;

	fx->occupancy_calls++;
	return fx->occupancy_fails ? NULL : fx->use;
}

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof(*fx));
	tp_error err;

	assert_non_null(fx);
	assert_int_equal(tp_topo_new_fattree(&fx->topo, 1, 4, 4, &err), TP_OK);
	assert_int_equal(tp_topo_host_count(fx->topo), HOSTS);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;

	tp_topo_free(fx->topo);
	free(fx);
	return 0;
}

/* A `leaf` job 7 of 4 nodes, class quiet, on the whole fabric. */
static tp_sched_job_test job_test(fixture *fx)
{
	tp_sched_job_test t = {
	    .job_id = 7,
	    .policy = TP_PLACEMENT_LEAF,
	    .job_class = TP_JOBCLASS_QUIET,
	    .asked_placement = "leaf",
	    .min_nodes = 4,
	    .req_nodes = 4,
	    .conf_loaded = true,
	    .topo = fx->topo,
	    .default_placement = TP_PLACEMENT_OFF,
	    .mapped_count = HOSTS,
	    .occupancy = occupancy,
	    .occupancy_ctx = fx,
	};
	return t;
}

/* Host @host runs job @job_id (class quiet). */
static void busy(fixture *fx, uint32_t host, uint32_t job_id)
{
	fx->use[host].state = TP_HOST_BUSY;
	fx->use[host].job_id = job_id;
	fx->use[host].job_class = TP_JOBCLASS_QUIET;
}

static void test_nodes_wanted_is_the_request_within_min_and_max(void **state)
{
	(void)state;
	assert_int_equal(tp_sched_nodes_wanted(0, 0, 0), 1);
	assert_int_equal(tp_sched_nodes_wanted(1, 0, 0), 1);
	assert_int_equal(tp_sched_nodes_wanted(3, 0, 2), 3);
	assert_int_equal(tp_sched_nodes_wanted(2, 0, 5), 5);
	assert_int_equal(tp_sched_nodes_wanted(2, 4, 6), 4);
	assert_int_equal(tp_sched_nodes_wanted(6, 4, 0), 4);
}

static void
test_no_topoplace_conf_falls_back_and_logs_an_asked_placement(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	t.conf_loaded = false;
	t.topo = NULL;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.note,
	                    "topoplace.conf not loaded: placed by Slurm's "
	                    "default");
	assert_string_equal(v.log_reason,
	                    "placement=leaf: no topoplace.conf loaded (see the "
	                    "error above)");
	tp_sched_verdict_free(&v);

	/* Without a flag (and no file for a default): nothing to log. */
	t.asked_placement = NULL;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.log_reason, "");
	assert_string_equal(v.note,
	                    "topoplace.conf not loaded: placed by Slurm's "
	                    "default");
	tp_sched_verdict_free(&v);
	assert_int_equal(fx->occupancy_calls, 0);
}

static void
test_no_fabric_logs_when_flag_or_partition_default_places(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	t.topo = NULL;
	t.asked_placement = "auto";
	t.default_placement = TP_PLACEMENT_LEAF;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.note, "no usable fabric: placed by Slurm's "
	                            "default");
	assert_string_equal(v.log_reason,
	                    "placement=auto: no fabric model (see the "
	                    "'topoplace: ... fabric' error above)");
	tp_sched_verdict_free(&v);

	/* The default is off: the job asked for nothing. */
	t.default_placement = TP_PLACEMENT_OFF;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.log_reason, "");
	tp_sched_verdict_free(&v);

	/* --placement=off wins over a placing default. */
	t.asked_placement = "off";
	t.default_placement = TP_PLACEMENT_LEAF;
	tp_sched_decide(&t, &v);
	assert_string_equal(v.log_reason, "");
	tp_sched_verdict_free(&v);

	/* A spelling the SPANK check did not see is still a request. */
	t.asked_placement = "Leaf";
	tp_sched_decide(&t, &v);
	assert_string_equal(v.log_reason,
	                    "placement=Leaf: no fabric model (see the "
	                    "'topoplace: ... fabric' error above)");
	tp_sched_verdict_free(&v);
}

static void test_no_model_after_a_failure_says_nothing_again(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	t.topo = NULL;
	t.failed = true;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLAIN);
	assert_string_equal(v.log_reason, "");
	assert_string_equal(v.note, "");
	tp_sched_verdict_free(&v);
}

static void test_failed_job_stays_plain_without_an_occupancy(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	t.failed = true;
	t.profile_pending = true; /* never both; failed decides */
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLAIN);
	assert_string_equal(v.log_reason, "fallback (see the error above)");
	assert_string_equal(v.note, "");
	assert_int_equal(fx->occupancy_calls, 0);
	tp_sched_verdict_free(&v);
}

static void test_pending_profile_waits_before_its_policy_is_read(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	/* The policy is not resolved yet: whatever it holds is not used. */
	t.profile_pending = true;
	t.policy = TP_PLACEMENT_OFF;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_WAIT_PROFILE);
	assert_string_equal(v.waiting_comment, "");
	assert_int_equal(fx->occupancy_calls, 0);
	tp_sched_verdict_free(&v);
}

static void test_policy_off_is_plain(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	t.policy = TP_PLACEMENT_OFF;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLAIN);
	assert_string_equal(v.log_reason, "policy=off");
	assert_string_equal(v.note, "");
	assert_int_equal(fx->occupancy_calls, 0);
	tp_sched_verdict_free(&v);
}

static void
test_more_nodes_than_scheduler_nodes_on_fabric_falls_back(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	/* 16 hosts, 12 of them Slurm nodes: 13 can never be met. */
	t.mapped_count = 12;
	t.min_nodes = 13;
	t.req_nodes = 0;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_int_equal(v.nodes, 13);
	assert_string_equal(v.log_reason,
	                    "placement=leaf: 13 nodes wanted, 12 Slurm nodes "
	                    "are on the fabric");
	assert_string_equal(v.note, "13 nodes wanted, 12 on the fabric: placed "
	                            "by Slurm's default");
	assert_int_equal(fx->occupancy_calls, 0);
	tp_sched_verdict_free(&v);

	/* The maximum decides: 12 fit. */
	t.max_nodes = 12;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.nodes, 12);
	assert_int_equal(v.kind, TP_SCHED_PLACE);
	tp_sched_verdict_free(&v);
}

static void test_no_occupancy_falls_back_out_of_memory(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	fx->occupancy_fails = true;
	tp_sched_decide(&t, &v);
	assert_int_equal(fx->occupancy_calls, 1);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.note, "out of memory: placed by Slurm's default");
	/* The adapter logged why it could not build it. */
	assert_string_equal(v.log_reason, "");
	assert_null(v.alloc.hosts);
	tp_sched_verdict_free(&v);

	/* Without a way to build one: the same. */
	t.occupancy = NULL;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.note, "out of memory: placed by Slurm's default");
	tp_sched_verdict_free(&v);
}

static uint64_t slow_clock(void *data)
{
	uint64_t *now_us = data;

	*now_us += 1000;
	return *now_us;
}

static void test_decision_past_its_budget_falls_back(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;
	uint64_t now_us = 0;

	t.budget_us = 1;
	t.clock = slow_clock;
	t.clock_data = &now_us;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_non_null(
	    strstr(v.log_reason, "time budget of 1 us spent: no opinion"));
	assert_string_equal(v.note, "decision over its DecisionBudget: placed "
	                            "by Slurm's default");
	assert_null(v.alloc.hosts);
	tp_sched_verdict_free(&v);
}

static void test_allocator_error_falls_back_naming_the_policy(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	/* An adapter that forgot to resolve auto: the allocator refuses. */
	t.policy = TP_PLACEMENT_AUTO;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_FALLBACK);
	assert_string_equal(v.log_reason,
	                    "placement auto: allocation request for job 7: "
	                    "policy auto must be resolved by the caller");
	assert_string_equal(v.note,
	                    "placement auto cannot be met on this fabric: "
	                    "placed by Slurm's default (see slurmctld's log)");
	tp_sched_verdict_free(&v);
}

static void
test_no_whole_leaf_free_waits_with_a_comment_in_clauses(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;
	char why[TP_SCHED_NOTE_MAX];
	char expected[TP_SCHED_COMMENT_MAX];

	for (uint32_t leaf = 0; leaf < 4; leaf++)
		busy(fx, leaf * 4, 99);
	/* Waited less than its bound: still whole leaves only. */
	t.waited_us = 10000000;
	t.leaf_wait_max_us = 60000000;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_WAIT);
	assert_false(v.alloc.met);
	assert_non_null(strstr(v.alloc.reason, "cannot be met now"));
	snprintf(expected, sizeof(expected),
	         "topoplace: placement=leaf class=quiet waits: %s",
	         tp_sched_reason_fit(v.alloc.reason, why, sizeof(why)));
	assert_string_equal(v.waiting_comment, expected);
	assert_string_equal(v.note, "");
	tp_sched_verdict_free(&v);
}

static void test_free_leaf_is_allowed_and_busy_ones_are_not(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	/* Leaves 1-3 each run a host of job 99: leaf 4 is the only one. */
	for (uint32_t leaf = 0; leaf < 3; leaf++)
		busy(fx, leaf * 4, 99);
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLACE);
	assert_int_equal(fx->occupancy_calls, 1);
	assert_int_equal(v.alloc.host_count, 4);
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(v.alloc.hosts[k], 12 + k);
	assert_int_equal(v.alloc.leaf_count, 1);
	assert_int_equal(v.alloc.leaves[0], 3);
	assert_false(v.alloc.leaf_wait_passed);
	assert_string_equal(v.note, "");
	assert_string_equal(v.log_reason, "");
	tp_sched_verdict_free(&v);
	assert_null(v.alloc.hosts);
}

static void test_required_hosts_inside_the_allowed_set_are_placed(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;
	const uint32_t required[] = {13, 15};

	for (uint32_t leaf = 0; leaf < 3; leaf++)
		busy(fx, leaf * 4, 99);
	t.required_hosts = required;
	t.required_count = 2;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLACE);
	tp_sched_verdict_free(&v);
}

static void test_required_host_outside_falls_back_to_where_asked(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;
	/* 1: on a leaf job 99 uses; UINT32_MAX: a node not on the fabric. */
	const uint32_t outside[][2] = {{13, 1}, {12, UINT32_MAX}};

	for (uint32_t leaf = 0; leaf < 3; leaf++)
		busy(fx, leaf * 4, 99);
	for (size_t i = 0; i < 2; i++) {
		t.required_hosts = outside[i];
		t.required_count = 2;
		tp_sched_decide(&t, &v);
		assert_int_equal(v.kind, TP_SCHED_FALLBACK);
		assert_string_equal(v.log_reason,
		                    "placement=leaf: the required nodes (-w) "
		                    "are not among the hosts the placement "
		                    "allows");
		assert_string_equal(
		    v.note, "placement=leaf does not allow the required "
		            "nodes (-w): placed where asked");
		assert_null(v.alloc.hosts);
		tp_sched_verdict_free(&v);
	}
}

static void test_leaf_job_past_its_wait_bound_is_placed_as_shared(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	for (uint32_t leaf = 0; leaf < 4; leaf++)
		busy(fx, leaf * 4, 99);
	t.waited_us = 125500000; /* 125.5 s */
	t.leaf_wait_max_us = 60000000;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLACE);
	assert_true(v.alloc.leaf_wait_passed);
	assert_int_equal(v.leaf_waited_s, 125);
	assert_int_equal(v.leaf_wait_bound_s, 60);
	/* Shared's rules: no busy host is among the allowed ones. */
	for (uint32_t k = 0; k < v.alloc.host_count; k++)
		assert_int_not_equal(v.alloc.hosts[k] % 4, 0);
	tp_sched_verdict_free(&v);
}

static void
test_shared_job_past_its_isolation_bound_is_placed_by_default(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	/* Every leaf has an io_heavy host: a comm_sensitive `shared` job
	 * finds no compatible leaf. */
	for (uint32_t leaf = 0; leaf < 4; leaf++) {
		busy(fx, leaf * 4, 99);
		fx->use[leaf * 4].job_class = TP_JOBCLASS_IO_HEAVY;
	}
	t.policy = TP_PLACEMENT_SHARED;
	t.job_class = TP_JOBCLASS_COMM_SENSITIVE;
	t.waited_us = 45500000; /* 45.5 s */
	t.isolation_wait_max_us = 60000000;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_WAIT);
	assert_string_equal(v.note, "");
	tp_sched_verdict_free(&v);
	t.waited_us = 75500000; /* 75.5 s */
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLACE);
	assert_true(v.alloc.isolation_wait_passed);
	assert_int_equal(v.alloc.host_count, 12);
	assert_string_equal(v.note, "isolation given up after 75 s (bound "
	                            "60 s): placed by Slurm's default beside "
	                            "any class");
	tp_sched_verdict_free(&v);
}

static void test_one_host_comm_sensitive_job_shares_as_quiet(void **state)
{
	fixture *fx = *state;
	tp_sched_job_test t = job_test(fx);
	tp_sched_verdict v;

	assert_int_equal(tp_jobclass_on_fabric(TP_JOBCLASS_COMM_SENSITIVE, 1),
	                 TP_JOBCLASS_QUIET);
	assert_int_equal(tp_jobclass_on_fabric(TP_JOBCLASS_COMM_SENSITIVE, 2),
	                 TP_JOBCLASS_COMM_SENSITIVE);
	assert_int_equal(tp_jobclass_on_fabric(TP_JOBCLASS_IO_HEAVY, 1),
	                 TP_JOBCLASS_IO_HEAVY);
	for (uint32_t leaf = 0; leaf < 4; leaf++) {
		busy(fx, leaf * 4, 99);
		fx->use[leaf * 4].job_class = TP_JOBCLASS_IO_HEAVY;
	}
	t.policy = TP_PLACEMENT_SHARED;
	t.job_class = TP_JOBCLASS_COMM_SENSITIVE;
	/* 1 host: its messages never leave the host, it starts now. */
	t.min_nodes = t.req_nodes = 1;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_PLACE);
	tp_sched_verdict_free(&v);
	/* 2 hosts: it waits for a leaf apart from io_heavy. */
	t.min_nodes = t.req_nodes = 2;
	tp_sched_decide(&t, &v);
	assert_int_equal(v.kind, TP_SCHED_WAIT);
	assert_non_null(strstr(v.waiting_comment, "class=comm_sensitive"));
	tp_sched_verdict_free(&v);
}

static void test_verdict_free_is_null_safe(void **state)
{
	(void)state;
	tp_sched_verdict_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_nodes_wanted_is_the_request_within_min_and_max),
	    cmocka_unit_test_setup_teardown(
	        test_no_topoplace_conf_falls_back_and_logs_an_asked_placement,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_no_fabric_logs_when_flag_or_partition_default_places,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_no_model_after_a_failure_says_nothing_again, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_failed_job_stays_plain_without_an_occupancy, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_pending_profile_waits_before_its_policy_is_read, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_policy_off_is_plain, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(
	        test_more_nodes_than_scheduler_nodes_on_fabric_falls_back,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_no_occupancy_falls_back_out_of_memory, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_decision_past_its_budget_falls_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_allocator_error_falls_back_naming_the_policy, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_no_whole_leaf_free_waits_with_a_comment_in_clauses, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_free_leaf_is_allowed_and_busy_ones_are_not, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_required_hosts_inside_the_allowed_set_are_placed, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_required_host_outside_falls_back_to_where_asked, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_leaf_job_past_its_wait_bound_is_placed_as_shared, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_shared_job_past_its_isolation_bound_is_placed_by_default,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_one_host_comm_sensitive_job_shares_as_quiet, setup,
	        teardown),
	    cmocka_unit_test(test_verdict_free_is_null_safe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
