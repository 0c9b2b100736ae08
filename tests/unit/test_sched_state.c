/*
 * test_sched_state.c: running jobs, their recorded decisions and leaf
 * holds (placement/sched_state.h).
 *
 * The guarantee under test: a whole-leaf job's hold is recorded by node
 * name in its decision text, so it is recovered from that text alone,
 * with no fabric and no configuration, and stays right when a fabric
 * comes (or changes) later; it ends with the job.  The occupancy handed
 * to the allocator says the same.
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

#include "sched_state.h"

/* 16 Slurm nodes n0001..n0016 on 4 leaves of 4, plus login1 (no fabric). */
typedef struct fixture {
	tp_sched_state *state;
	tp_topo *topo;
} fixture;

static const char *const node_names[] = {
    "n0001", "n0002", "n0003", "n0004", "n0005", "n0006",
    "n0007", "n0008", "n0009", "n0010", "n0011", "n0012",
    "n0013", "n0014", "n0015", "n0016", "login1"};
#define NODES (sizeof(node_names) / sizeof(node_names[0]))

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof(*fx));
	tp_error err;

	assert_non_null(fx);
	assert_int_equal(tp_sched_state_new(&fx->state, &err), TP_OK);
	assert_int_equal(tp_topo_new_fattree(&fx->topo, 1, 4, 4, &err), TP_OK);
	assert_int_equal(tp_sched_set_nodes(fx->state, node_names, NODES, &err),
	                 TP_OK);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;

	tp_sched_state_free(fx->state);
	tp_topo_free(fx->topo);
	free(fx);
	return 0;
}

/* The held nodes, as a bitmask over the node table. */
static void mark(void *ctx, uint32_t node)
{
	*(uint32_t *)ctx |= 1u << node;
}

static uint32_t held_mask(const tp_sched_state *s, uint32_t except)
{
	uint32_t mask = 0;

	tp_sched_for_each_held(s, except, mark, &mask);
	return mask;
}

/* Node indices of n0005..n0008: leaf002. */
#define LEAF2 0x00f0u

static void test_record_round_trips_with_held_nodes_and_note(void **state)
{
	tp_sched_record rec = {TP_PLACEMENT_LEAF, TP_JOBCLASS_COMM_SENSITIVE,
	                       true, (char *)"n[0005-0008]", NULL};
	tp_sched_record back;
	tp_error err;
	char *text;

	(void)state;
	text = tp_sched_record_format(&rec, "profile has 16 ranks, the job "
	                                    "32 tasks: class only");
	assert_non_null(text);
	assert_string_equal(text, "topoplace: placement=leaf "
	                          "class=comm_sensitive (profile) "
	                          "held=n[0005-0008]: profile has 16 ranks, "
	                          "the job 32 tasks: class only");
	assert_int_equal(tp_sched_record_parse(text, &back, &err), TP_OK);
	assert_int_equal(back.policy, TP_PLACEMENT_LEAF);
	assert_int_equal(back.job_class, TP_JOBCLASS_COMM_SENSITIVE);
	assert_true(back.has_profile);
	assert_string_equal(back.held, "n[0005-0008]");
	tp_sched_record_clear(&back);
	free(text);
}

/* Every policy and class, with and without a profile, parses back. */
static void test_every_policy_and_class_round_trips(void **state)
{
	static const tp_placement policies[] = {
	    TP_PLACEMENT_AUTO, TP_PLACEMENT_LEAF,   TP_PLACEMENT_SHARED,
	    TP_PLACEMENT_PACK, TP_PLACEMENT_SPREAD, TP_PLACEMENT_OFF};
	static const tp_jobclass classes[] = {TP_JOBCLASS_QUIET,
	                                      TP_JOBCLASS_IO_HEAVY,
	                                      TP_JOBCLASS_COMM_SENSITIVE};

	(void)state;
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++)
		for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]);
		     c++)
			for (int prof = 0; prof < 2; prof++) {
				tp_sched_record rec = {policies[p], classes[c],
				                       prof != 0, NULL, NULL};
				tp_sched_record back;
				tp_error err;
				char *text = tp_sched_record_format(&rec, NULL);

				assert_non_null(text);
				assert_int_equal(
				    tp_sched_record_parse(text, &back, &err),
				    TP_OK);
				assert_int_equal(back.policy, policies[p]);
				assert_int_equal(back.job_class, classes[c]);
				assert_int_equal(back.has_profile, prof != 0);
				tp_sched_record_clear(&back);
				free(text);
			}
}

static void test_older_records_without_held_still_parse(void **state)
{
	tp_sched_record rec;
	tp_error err;

	(void)state;
	assert_int_equal(tp_sched_record_parse("topoplace: placement=shared "
	                                       "class=io_heavy (profile)",
	                                       &rec, &err),
	                 TP_OK);
	assert_int_equal(rec.policy, TP_PLACEMENT_SHARED);
	assert_int_equal(rec.job_class, TP_JOBCLASS_IO_HEAVY);
	assert_true(rec.has_profile);
	assert_null(rec.held);
	assert_int_equal(tp_sched_record_parse("topoplace: placement=off "
	                                       "class=quiet: profile "
	                                       "tpalice/nosuch not found",
	                                       &rec, &err),
	                 TP_OK);
	assert_int_equal(rec.policy, TP_PLACEMENT_OFF);
	assert_false(rec.has_profile);
	tp_sched_record_clear(&rec);
}

static void test_other_comments_are_refused_naming_the_text(void **state)
{
	static const char *const bad[] = {
	    "burst buffer: stage-in done",
	    "topoplace: placement=sideways class=quiet",
	    "topoplace: placement=leaf class=loud",
	    "topoplace: placement=leaf class=quiet held=",
	    "topoplace: placement=leaf class=quiet and more",
	    "topoplace: placement=leaf",
	    "",
	    "topoplace: placement=leaf class=quiet (profile) x",
	    "topoplace: class=quiet placement=leaf",
	};
	tp_sched_record rec;
	tp_error err;

	(void)state;
	assert_int_equal(tp_sched_record_parse(NULL, &rec, &err), TP_ERR_PARSE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tp_sched_record_parse(bad[i], &rec, &err),
		                 TP_ERR_PARSE);
		assert_non_null(
		    strstr(err.message, "not a topoplace decision"));
		assert_non_null(strstr(err.message, "SystemComment"));
		assert_null(rec.held);
	}
}

static void test_long_notes_end_with_a_whole_clause(void **state)
{
	char out[64];
	const char *text = "placement=leaf waits: cannot be met now: no 3 "
	                   "whole leaves free; leaf002 has a busy host; "
	                   "leaf003 has a reserved host";

	(void)state;
	tp_sched_reason_fit("short and whole", out, sizeof(out));
	assert_string_equal(out, "short and whole");
	tp_sched_reason_fit(text, out, sizeof(out));
	assert_true(strlen(out) < sizeof(out));
	assert_string_equal(out, "placement=leaf waits (cut; the rest is in "
	                         "the log)");
	/* No clause mark in reach: the last whole word. */
	tp_sched_reason_fit("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii "
	                    "jjjj kkkk llll mmmm nnnn oooo pppp",
	                    out, sizeof(out));
	assert_string_equal(out, "aaaa bbbb cccc dddd eeee ffff (cut; the rest "
	                         "is in the log)");
	/* Too small for the mark: whole words only. */
	tp_sched_reason_fit("aaaa bbbb cccc", out, 12);
	assert_string_equal(out, "aaaa bbbb");
	tp_sched_reason_fit("aaaaaaaaaaaaaaaa", out, 12);
	assert_string_equal(out, "");
}

static void test_leaf_job_holds_its_whole_leaf_and_records_it(void **state)
{
	fixture *fx = *state;
	tp_sched_record rec = {TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, false,
	                       NULL, NULL};
	const tp_sched_record *got;
	const tp_host_use *use;
	tp_error err;

	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(
	    tp_sched_job_add(fx->state, 7, &rec, "n[0005-0006]", &err), TP_OK);
	got = tp_sched_job_record(fx->state, 7);
	assert_non_null(got);
	assert_string_equal(got->held, "n[0005-0008]");
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	/* Its own hold does not keep the job itself off. */
	assert_int_equal(held_mask(fx->state, 7), 0);
	use = tp_sched_occupancy(fx->state, &err);
	assert_non_null(use);
	assert_int_equal(use[4].state, TP_HOST_BUSY);
	assert_int_equal(use[5].state, TP_HOST_BUSY);
	assert_int_equal(use[6].state, TP_HOST_RESERVED);
	assert_int_equal(use[6].job_id, 7);
	assert_int_equal(use[7].state, TP_HOST_RESERVED);
	assert_int_equal(use[3].state, TP_HOST_FREE);
	assert_int_equal(use[8].state, TP_HOST_FREE);
}

static void test_hold_recovers_from_text_without_fabric(void **state)
{
	fixture *fx = *state;
	tp_error err;

	/* A restart with topoplace.conf broken: no fabric at all. */
	assert_int_equal(
	    tp_sched_job_recover(fx->state, 7,
	                         "topoplace: placement=leaf class=quiet "
	                         "held=n[0005-0008]",
	                         "n[0005-0006]", &err),
	    TP_OK);
	assert_int_equal(tp_sched_job_count(fx->state), 1);
	assert_int_equal(tp_sched_unresolved_count(fx->state), 0);
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	assert_null(tp_sched_occupancy(fx->state, &err));
	/* The fabric comes with a good reconfigure: the same hold. */
	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	assert_int_equal(tp_sched_occupancy(fx->state, &err)[7].state,
	                 TP_HOST_RESERVED);
	/* The job ends: the hold is released. */
	tp_sched_job_drop(fx->state, 7);
	assert_int_equal(tp_sched_job_count(fx->state), 0);
	assert_int_equal(held_mask(fx->state, 0), 0);
	assert_int_equal(tp_sched_occupancy(fx->state, &err)[7].state,
	                 TP_HOST_FREE);
}

static void test_older_leaf_record_is_resolved_once_a_fabric_comes(void **state)
{
	fixture *fx = *state;
	tp_error err;

	assert_int_equal(tp_sched_job_recover(fx->state, 9,
	                                      "topoplace: placement=leaf "
	                                      "class=quiet",
	                                      "n[0009-0011]", &err),
	                 TP_OK);
	assert_int_equal(tp_sched_unresolved_count(fx->state), 1);
	assert_int_equal(held_mask(fx->state, 0), 0);
	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(tp_sched_unresolved_count(fx->state), 0);
	assert_string_equal(tp_sched_job_record(fx->state, 9)->held,
	                    "n[0009-0012]");
	assert_int_equal(held_mask(fx->state, 0), 0x0f00u);
}

static void test_a_new_fabric_changes_no_given_hold(void **state)
{
	fixture *fx = *state;
	tp_topo *other;
	tp_error err;

	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(
	    tp_sched_job_recover(fx->state, 7,
	                         "topoplace: placement=leaf class=quiet "
	                         "held=n[0005-0008]",
	                         "n0005", &err),
	    TP_OK);
	/* 2 leaves of 8: n0005 is now on leaf001 with n0001..n0008. */
	assert_int_equal(tp_topo_new_fattree(&other, 1, 2, 8, &err), TP_OK);
	assert_int_equal(tp_sched_set_topo(fx->state, other, &err), TP_OK);
	assert_string_equal(tp_sched_job_record(fx->state, 7)->held,
	                    "n[0005-0008]");
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	assert_int_equal(tp_sched_occupancy(fx->state, &err)[0].state,
	                 TP_HOST_FREE);
	assert_int_equal(tp_sched_set_topo(fx->state, NULL, &err), TP_OK);
	tp_topo_free(other);
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
}

static void test_jobs_of_other_policies_hold_nothing(void **state)
{
	fixture *fx = *state;
	tp_sched_record rec = {TP_PLACEMENT_SHARED, TP_JOBCLASS_IO_HEAVY, true,
	                       NULL, NULL};
	const tp_host_use *use;
	tp_error err;

	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(tp_sched_job_add(fx->state, 3, &rec, "n0001", &err),
	                 TP_OK);
	assert_null(tp_sched_job_record(fx->state, 3)->held);
	assert_int_equal(held_mask(fx->state, 0), 0);
	use = tp_sched_occupancy(fx->state, &err);
	assert_int_equal(use[0].state, TP_HOST_BUSY);
	assert_int_equal(use[0].job_class, TP_JOBCLASS_IO_HEAVY);
	assert_int_equal(use[1].state, TP_HOST_FREE);
}

static void test_the_occupancy_follows_begin_and_end(void **state)
{
	fixture *fx = *state;
	tp_sched_record leaf = {TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, false,
	                        NULL, NULL};
	tp_sched_record off = {TP_PLACEMENT_OFF, TP_JOBCLASS_QUIET, false, NULL,
	                       NULL};
	const tp_host_use *use;
	tp_error err;

	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(tp_sched_job_add(fx->state, 1, &leaf, "n0013", &err),
	                 TP_OK);
	assert_int_equal(tp_sched_job_add(fx->state, 2, &off, "n0002", &err),
	                 TP_OK);
	use = tp_sched_occupancy(fx->state, &err);
	assert_int_equal(use[13].state, TP_HOST_RESERVED);
	assert_int_equal(use[1].state, TP_HOST_BUSY);
	/* Same answer when nothing changed. */
	assert_ptr_equal(tp_sched_occupancy(fx->state, &err), use);
	tp_sched_job_drop(fx->state, 1);
	use = tp_sched_occupancy(fx->state, &err);
	assert_int_equal(use[12].state, TP_HOST_FREE);
	assert_int_equal(use[13].state, TP_HOST_FREE);
	assert_int_equal(use[1].state, TP_HOST_BUSY);
	/* A job started again under the same id replaces the old entry. */
	assert_int_equal(tp_sched_job_add(fx->state, 2, &off, "n0003", &err),
	                 TP_OK);
	assert_int_equal(tp_sched_job_count(fx->state), 1);
	use = tp_sched_occupancy(fx->state, &err);
	assert_int_equal(use[1].state, TP_HOST_FREE);
	assert_int_equal(use[2].state, TP_HOST_BUSY);
}

static void test_names_outside_the_table_are_skipped(void **state)
{
	fixture *fx = *state;
	tp_error err;

	/* login1 is a node but not on the fabric; x001 is neither. */
	assert_int_equal(tp_sched_job_recover(fx->state, 4,
	                                      "topoplace: placement=leaf "
	                                      "class=quiet held=x001,login1",
	                                      "x001", &err),
	                 TP_OK);
	assert_int_equal(held_mask(fx->state, 0), 1u << 16);
}

static void test_a_new_node_table_keeps_holds_by_name(void **state)
{
	fixture *fx = *state;
	const char *const reversed[] = {"n0008", "n0007", "n0006", "n0005"};
	tp_error err;

	assert_int_equal(
	    tp_sched_job_recover(fx->state, 7,
	                         "topoplace: placement=leaf class=quiet "
	                         "held=n[0005-0008]",
	                         "n0005", &err),
	    TP_OK);
	assert_int_equal(tp_sched_set_nodes(fx->state, reversed, 4, &err),
	                 TP_OK);
	assert_int_equal(held_mask(fx->state, 0), 0x0fu);
}

static void test_bad_input_is_one_clear_error(void **state)
{
	fixture *fx = *state;
	const char *const twice[] = {"n0001", "n0002", "n0001"};
	tp_sched_record rec = {TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, false,
	                       (char *)"n[0005-", NULL};
	tp_error err;

	assert_int_equal(tp_sched_set_nodes(fx->state, twice, 3, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "n0001 listed twice"));
	assert_int_equal(tp_sched_job_add(fx->state, 5, &rec, "n0005", &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "job 5"));
	assert_non_null(strstr(err.message, "held nodes \"n[0005-\""));
	assert_int_equal(tp_sched_job_count(fx->state), 0);
	/* The old table is still in use. */
	rec.held = NULL;
	assert_int_equal(tp_sched_job_add(fx->state, 5, &rec, "n0016", &err),
	                 TP_OK);
	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(held_mask(fx->state, 0), 0xf000u);
}

static void test_remainder_leaf_is_not_held_and_recovers(void **state)
{
	fixture *fx = *state;
	tp_sched_record rec = {TP_PLACEMENT_LEAF, TP_JOBCLASS_QUIET, false,
	                       NULL, (char *)"leaf003"};
	const tp_sched_record *got;
	tp_error err;
	char *text;

	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	/* 6 hosts: leaf002 whole, 2 on leaf003 shared with others. */
	assert_int_equal(
	    tp_sched_job_add(fx->state, 7, &rec, "n[0005-0010]", &err), TP_OK);
	got = tp_sched_job_record(fx->state, 7);
	assert_string_equal(got->held, "n[0005-0008]");
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	assert_int_equal(tp_sched_occupancy(fx->state, &err)[10].state,
	                 TP_HOST_FREE);
	/* A job on its remainder leaf alone holds nothing, and says so. */
	assert_int_equal(tp_sched_job_add(fx->state, 8, &rec, "n0011", &err),
	                 TP_OK);
	got = tp_sched_job_record(fx->state, 8);
	assert_string_equal(got->held, "");
	text = tp_sched_record_format(got, "leaf: 1 host on a shared "
	                                   "compatible leaf (leaf003), no "
	                                   "whole leaf");
	assert_non_null(text);
	assert_string_equal(text, "topoplace: placement=leaf class=quiet "
	                          "held=(none): leaf: 1 host on a shared "
	                          "compatible leaf (leaf003), no whole leaf");
	/* Restart: recovered from the text, no fabric needed, still
	 * holding nothing (not the leaf its host is on). */
	tp_sched_job_drop(fx->state, 8);
	assert_int_equal(tp_sched_set_topo(fx->state, NULL, &err), TP_OK);
	assert_int_equal(
	    tp_sched_job_recover(fx->state, 8, text, "n0011", &err), TP_OK);
	free(text);
	assert_int_equal(tp_sched_unresolved_count(fx->state), 0);
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	assert_int_equal(tp_sched_set_topo(fx->state, fx->topo, &err), TP_OK);
	assert_int_equal(held_mask(fx->state, 0), LEAF2);
	assert_int_equal(tp_sched_occupancy(fx->state, &err)[11].state,
	                 TP_HOST_FREE);
	assert_int_equal(tp_sched_occupancy(fx->state, &err)[10].state,
	                 TP_HOST_BUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record_round_trips_with_held_nodes_and_note),
	    cmocka_unit_test(test_every_policy_and_class_round_trips),
	    cmocka_unit_test(test_older_records_without_held_still_parse),
	    cmocka_unit_test(test_other_comments_are_refused_naming_the_text),
	    cmocka_unit_test(test_long_notes_end_with_a_whole_clause),
	    cmocka_unit_test_setup_teardown(
	        test_leaf_job_holds_its_whole_leaf_and_records_it, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_hold_recovers_from_text_without_fabric, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_older_leaf_record_is_resolved_once_a_fabric_comes, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_new_fabric_changes_no_given_hold, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_jobs_of_other_policies_hold_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_the_occupancy_follows_begin_and_end, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_names_outside_the_table_are_skipped, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_new_node_table_keeps_holds_by_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_input_is_one_clear_error,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_remainder_leaf_is_not_held_and_recovers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
