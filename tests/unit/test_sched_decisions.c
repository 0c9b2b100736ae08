/*
 * test_sched_decisions.c: the pending jobs' decisions by job id
 * (placement/sched_decisions.h): found again on every test, kept through
 * the table's growth, dropped with their probe chains intact (checked
 * against a plain array over thousands of random gets and drops), and
 * bounded: a full table drops the stale decisions first, all of them only
 * when none is stale, and says which; every decision that leaves is
 * handed to the drop callback once.  What a verdict leaves in a decision
 * and what a decision starts the job as (the leaf wait given way, the
 * remainder's shared leaf, and the notes users read).
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

#include "sched_decisions.h"

/* The ids handed to the drop callback, in order. */
typedef struct drops {
	uint32_t id[64];
	size_t n;
} drops;

static void record_drop(tp_decision *d, void *ctx)
{
	drops *seen = ctx;

	if (seen->n < sizeof(seen->id) / sizeof(seen->id[0]))
		seen->id[seen->n] = d->job_id;
	seen->n++;
}

static tp_decision *get(tp_decisions *t, uint32_t id, int64_t now,
                        tp_decisions_eviction *ev)
{
	tp_error err;
	tp_decision *d = tp_decisions_get(t, id, now, ev, &err);

	assert_non_null(d);
	assert_int_equal(d->job_id, id);
	return d;
}

static bool dropped(const drops *seen, uint32_t id)
{
	for (size_t i = 0; i < seen->n && i < 64; i++)
		if (seen->id[i] == id)
			return true;
	return false;
}

static void test_get_makes_then_finds_the_same_decision(void **state)
{
	tp_decisions_eviction ev;
	tp_error err;
	tp_decisions *t = tp_decisions_new(16, 600, NULL, NULL, &err);
	tp_decision *d;

	(void)state;
	assert_non_null(t);
	assert_null(tp_decisions_find(t, 7));
	d = get(t, 7, 100, &ev);
	assert_false(d->profile_read);
	assert_int_equal(d->note[0], '\0');
	assert_int_equal(ev.stale_dropped, 0);
	assert_false(ev.all_dropped);
	d->has_profile = true;
	d->job_class = TP_JOBCLASS_COMM_SENSITIVE;
	snprintf(d->note, sizeof(d->note), "kept");
	assert_ptr_equal(get(t, 7, 101, &ev), d);
	assert_ptr_equal(tp_decisions_find(t, 7), d);
	assert_true(tp_decisions_find(t, 7)->has_profile);
	assert_string_equal(tp_decisions_find(t, 7)->note, "kept");
	assert_int_equal(tp_decisions_count(t), 1);
	tp_decisions_drop(t, 7);
	assert_null(tp_decisions_find(t, 7));
	assert_int_equal(tp_decisions_count(t), 0);
	tp_decisions_drop(t, 7); /* no such decision: nothing happens */
	assert_int_equal(tp_decisions_count(t), 0);
	tp_decisions_free(t);
}

static void test_bad_arguments_are_refused(void **state)
{
	tp_decisions_eviction ev;
	tp_error err;
	tp_decisions *t;

	(void)state;
	assert_null(tp_decisions_new(0, 600, NULL, NULL, &err));
	assert_int_equal(err.code, TP_ERR_INVALID);
	assert_string_equal(err.message, "decision table: at most 0 decisions");
	t = tp_decisions_new(4, 600, NULL, NULL, &err);
	assert_non_null(t);
	assert_null(tp_decisions_get(t, 0, 1, &ev, &err));
	assert_int_equal(err.code, TP_ERR_INVALID);
	assert_string_equal(err.message, "decision table: job id 0");
	assert_null(tp_decisions_find(t, 0));
	assert_int_equal(tp_decisions_count(t), 0);
	tp_decisions_free(t);
	tp_decisions_free(NULL);
}

/*
 * Thousands of gets and drops in a seeded random order, against a plain
 * array of which ids are in: every id in is found with its own data (so
 * growth and the backward shift of drops keep every probe chain whole),
 * every id out is not.  Ids in a narrow range collide often.
 */
static void test_random_gets_and_drops_match_a_plain_array(void **state)
{
	enum { IDS = 3000, STEPS = 40000 };
	static bool in[IDS + 1];
	tp_decisions_eviction ev;
	tp_error err;
	tp_decisions *t = tp_decisions_new(IDS, 600, NULL, NULL, &err);
	uint64_t x = 88172645463325252u;
	size_t count = 0;

	(void)state;
	assert_non_null(t);
	memset(in, 0, sizeof(in));
	for (int step = 0; step < STEPS; step++) {
		uint32_t id;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		id = (uint32_t)(x % IDS) + 1;
		if (x & (1u << 20)) {
			tp_decision *d = get(t, id, 1, &ev);

			assert_int_equal(ev.stale_dropped, 0);
			if (!in[id]) {
				d->lookup_ticket = id * 3u;
				in[id] = true;
				count++;
			}
		} else {
			tp_decisions_drop(t, id);
			count -= in[id];
			in[id] = false;
		}
		assert_int_equal(tp_decisions_count(t), count);
	}
	for (uint32_t id = 1; id <= IDS; id++) {
		tp_decision *d = tp_decisions_find(t, id);

		if (in[id]) {
			assert_non_null(d);
			assert_int_equal(d->lookup_ticket, id * 3u);
		} else {
			assert_null(d);
		}
	}
	tp_decisions_free(t);
}

static void test_full_table_drops_stale_decisions_first(void **state)
{
	drops seen = {{0}, 0};
	tp_decisions_eviction ev;
	tp_error err;
	tp_decisions *t = tp_decisions_new(4, 600, record_drop, &seen, &err);

	(void)state;
	assert_non_null(t);
	get(t, 11, 0, &ev)->last_seen = 1000; /* stale at 2000 */
	get(t, 12, 0, &ev)->last_seen = 1900; /* fresh */
	get(t, 13, 0, &ev)->last_seen = 1300; /* stale */
	get(t, 14, 0, &ev)->last_seen = 1500; /* fresh: 500 s is not 600 */
	assert_int_equal(seen.n, 0);
	get(t, 15, 2000, &ev);
	assert_int_equal(ev.stale_dropped, 2);
	assert_false(ev.all_dropped);
	assert_int_equal(seen.n, 2);
	assert_true(dropped(&seen, 11));
	assert_true(dropped(&seen, 13));
	assert_int_equal(tp_decisions_count(t), 3);
	assert_null(tp_decisions_find(t, 11));
	assert_null(tp_decisions_find(t, 13));
	assert_int_equal(tp_decisions_find(t, 12)->last_seen, 1900);
	assert_int_equal(tp_decisions_find(t, 14)->last_seen, 1500);
	assert_non_null(tp_decisions_find(t, 15));
	/* A job already in never makes room. */
	get(t, 12, 99999, &ev);
	assert_int_equal(ev.stale_dropped, 0);
	assert_int_equal(seen.n, 2);
	tp_decisions_free(t);
}

static void test_full_table_with_none_stale_drops_all(void **state)
{
	drops seen = {{0}, 0};
	tp_decisions_eviction ev;
	tp_error err;
	tp_decisions *t = tp_decisions_new(3, 600, record_drop, &seen, &err);

	(void)state;
	assert_non_null(t);
	for (uint32_t id = 21; id <= 23; id++)
		get(t, id, 0, &ev)->last_seen = 100;
	get(t, 24, 200, &ev);
	assert_int_equal(ev.stale_dropped, 0);
	assert_true(ev.all_dropped);
	assert_int_equal(seen.n, 3);
	for (uint32_t id = 21; id <= 23; id++) {
		assert_true(dropped(&seen, id));
		assert_null(tp_decisions_find(t, id));
	}
	assert_int_equal(tp_decisions_count(t), 1);
	assert_non_null(tp_decisions_find(t, 24));
	tp_decisions_free(t);
}

static void test_clear_hands_each_decision_to_the_callback(void **state)
{
	drops seen = {{0}, 0};
	tp_decisions_eviction ev;
	tp_error err;
	tp_decisions *t = tp_decisions_new(100, 600, record_drop, &seen, &err);

	(void)state;
	assert_non_null(t);
	tp_decisions_clear(t); /* empty, never grown: nothing to hand */
	assert_int_equal(seen.n, 0);
	for (uint32_t id = 1; id <= 40; id++)
		get(t, id, 0, &ev);
	tp_decisions_drop(t, 5);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.id[0], 5);
	tp_decisions_clear(t);
	assert_int_equal(seen.n, 40);
	assert_int_equal(tp_decisions_count(t), 0);
	for (uint32_t id = 1; id <= 40; id++)
		assert_null(tp_decisions_find(t, id));
	/* The table is usable after a clear; free hands nothing. */
	get(t, 9, 0, &ev);
	tp_decisions_free(t);
	assert_int_equal(seen.n, 40);
}

/* A PLACE verdict of a `leaf` job: 1 whole leaf + 2 hosts on leaf 2. */
static void remainder_verdict(tp_sched_verdict *v)
{
	static uint32_t leaves[] = {0, 2};

	memset(v, 0, sizeof(*v));
	v->kind = TP_SCHED_PLACE;
	v->alloc.met = true;
	v->alloc.leaves = leaves;
	v->alloc.leaf_count = 2;
	v->alloc.remainder_hosts = 2;
	v->alloc.remainder_leaf = 2;
}

static void test_fallback_verdict_fails_the_decision_with_its_note(void **state)
{
	tp_decision d = {.job_id = 4, .policy = TP_PLACEMENT_LEAF};
	tp_sched_verdict v;

	(void)state;
	memset(&v, 0, sizeof(v));
	v.kind = TP_SCHED_FALLBACK;
	snprintf(v.note, sizeof(v.note), "9 nodes wanted, 8 on the fabric");
	tp_decision_verdict(&d, NULL, &v);
	assert_true(d.failed);
	assert_string_equal(d.note, "9 nodes wanted, 8 on the fabric");
	/* A wait changes nothing. */
	v.kind = TP_SCHED_WAIT;
	d.failed = false;
	tp_decision_verdict(&d, NULL, &v);
	assert_false(d.failed);
}

/* A verdict past the isolation bound keeps its note for the job's start,
 * which then runs off and says so. */
static void test_place_verdict_keeps_isolation_given_up(void **state)
{
	tp_decision d = {.job_id = 4,
	                 .policy = TP_PLACEMENT_SHARED,
	                 .job_class = TP_JOBCLASS_IO_HEAVY};
	tp_sched_verdict v;
	tp_sched_record rec;
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 4, 4, &err), TP_OK);
	memset(&v, 0, sizeof(v));
	v.kind = TP_SCHED_PLACE;
	v.alloc.met = true;
	snprintf(v.note, sizeof(v.note), "not this one");
	tp_decision_verdict(&d, topo, &v);
	assert_false(d.isolation_wait_passed);
	assert_string_equal(d.isolation_note, "");
	v.alloc.isolation_wait_passed = true;
	snprintf(v.note, sizeof(v.note),
	         "isolation given up after 3 s (bound 2 s): placed by Slurm's "
	         "default beside any class");
	tp_decision_verdict(&d, topo, &v);
	assert_true(d.isolation_wait_passed);
	assert_int_equal(tp_decision_started(&d, &rec),
	                 TP_STARTED_ISOLATION_GIVEN_UP);
	assert_int_equal(rec.policy, TP_PLACEMENT_OFF);
	assert_string_equal(d.note, "isolation given up after 3 s (bound 2 s): "
	                            "placed by Slurm's default beside any "
	                            "class");
	tp_topo_free(topo);
}

static void test_place_verdict_keeps_remainder_and_leaf_wait(void **state)
{
	tp_decision d = {.job_id = 4, .policy = TP_PLACEMENT_LEAF};
	tp_sched_verdict v;
	tp_topo *topo;
	tp_error err;
	char want[160];

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 4, 4, &err), TP_OK);
	remainder_verdict(&v);
	v.alloc.leaf_wait_passed = true;
	v.leaf_waited_s = 30;
	v.leaf_wait_bound_s = 20;
	tp_decision_verdict(&d, topo, &v);
	assert_false(d.failed);
	assert_true(d.leaf_wait_passed);
	assert_int_equal(d.leaf_waited_s, 30);
	assert_int_equal(d.leaf_wait_bound_s, 20);
	assert_string_equal(d.remainder_leaf, tp_topo_leaf_name(topo, 2));
	snprintf(want, sizeof(want),
	         "leaf: 1 whole leaf + 2 hosts on a shared compatible leaf "
	         "(%s)",
	         tp_topo_leaf_name(topo, 2));
	assert_string_equal(d.remainder_summary, want);
	/* The next allowed set has no remainder: nothing of it is kept. */
	v.alloc.remainder_hosts = 0;
	tp_decision_verdict(&d, topo, &v);
	assert_string_equal(d.remainder_leaf, "");
	assert_string_equal(d.remainder_summary, "");
	tp_topo_free(topo);
}

static void test_started_without_decision_runs_off(void **state)
{
	tp_decision failed = {.job_id = 4,
	                      .failed = true,
	                      .policy = TP_PLACEMENT_LEAF,
	                      .job_class = TP_JOBCLASS_IO_HEAVY};
	tp_sched_record rec;

	(void)state;
	assert_int_equal(tp_decision_started(NULL, &rec), TP_STARTED_AS_DECIDED);
	assert_int_equal(rec.policy, TP_PLACEMENT_OFF);
	assert_int_equal(rec.job_class, TP_JOBCLASS_QUIET);
	assert_false(rec.has_profile);
	assert_int_equal(tp_decision_started(&failed, &rec), TP_STARTED_AS_DECIDED);
	assert_int_equal(rec.policy, TP_PLACEMENT_OFF);
	assert_int_equal(rec.job_class, TP_JOBCLASS_QUIET);
	assert_null(rec.shared_leaf);
}

static void test_started_after_leaf_wait_runs_shared_and_says_so(void **state)
{
	tp_decision d = {.job_id = 4,
	                 .policy = TP_PLACEMENT_LEAF,
	                 .job_class = TP_JOBCLASS_COMM_SENSITIVE,
	                 .has_profile = true,
	                 .leaf_wait_passed = true,
	                 .leaf_waited_s = 31,
	                 .leaf_wait_bound_s = 30};
	tp_sched_record rec;

	(void)state;
	snprintf(d.note, sizeof(d.note), "profile alice/ring by job name");
	assert_int_equal(tp_decision_started(&d, &rec), TP_STARTED_LEAF_GAVE_WAY);
	assert_int_equal(rec.policy, TP_PLACEMENT_SHARED);
	assert_int_equal(rec.job_class, TP_JOBCLASS_COMM_SENSITIVE);
	assert_true(rec.has_profile);
	assert_string_equal(d.note, "leaf gave way to shared after 31 s "
	                            "(bound 30 s); profile alice/ring by job "
	                            "name");
}

/* Past IsolationWaitMax: Slurm's default placed it, nothing is held, and
 * the note says so first. */
static void test_started_after_isolation_wait_runs_off_and_says_so(void **state)
{
	tp_decision d = {.job_id = 4,
	                 .policy = TP_PLACEMENT_SHARED,
	                 .job_class = TP_JOBCLASS_COMM_SENSITIVE,
	                 .has_profile = true,
	                 .isolation_wait_passed = true};
	tp_sched_record rec;

	(void)state;
	snprintf(d.note, sizeof(d.note), "profile alice/ring by job name");
	snprintf(d.isolation_note, sizeof(d.isolation_note),
	         "isolation given up after 5 s (bound 4 s): placed by Slurm's "
	         "default beside any class");
	assert_int_equal(tp_decision_started(&d, &rec),
	                 TP_STARTED_ISOLATION_GIVEN_UP);
	assert_int_equal(rec.policy, TP_PLACEMENT_OFF);
	assert_int_equal(rec.job_class, TP_JOBCLASS_COMM_SENSITIVE);
	assert_null(rec.shared_leaf);
	assert_string_equal(d.note, "isolation given up after 5 s (bound 4 s): "
	                            "placed by Slurm's default beside any "
	                            "class; profile alice/ring by job name");
}

static void test_started_with_remainder_names_its_shared_leaf(void **state)
{
	tp_decision d = {.job_id = 4, .policy = TP_PLACEMENT_LEAF};
	tp_sched_record rec;

	(void)state;
	snprintf(d.remainder_leaf, sizeof(d.remainder_leaf), "leaf003");
	snprintf(d.remainder_summary, sizeof(d.remainder_summary),
	         "leaf: 1 whole leaf + 2 hosts on a shared compatible leaf "
	         "(leaf003)");
	snprintf(d.note, sizeof(d.note), "profile alice/ring by job name");
	assert_int_equal(tp_decision_started(&d, &rec), TP_STARTED_AS_DECIDED);
	assert_int_equal(rec.policy, TP_PLACEMENT_LEAF);
	assert_string_equal(rec.shared_leaf, "leaf003");
	assert_string_equal(d.note, "leaf: 1 whole leaf + 2 hosts on a shared "
	                            "compatible leaf (leaf003); profile "
	                            "alice/ring by job name");
}

/* Pod isolation given up under adaptive routing: kept from the verdict,
 * said first in the note at the start; a later verdict without it clears
 * it. */
static void test_started_after_pod_exposure_says_so(void **state)
{
	tp_decision d = {.job_id = 4,
	                 .policy = TP_PLACEMENT_LEAF,
	                 .job_class = TP_JOBCLASS_COMM_SENSITIVE};
	tp_sched_verdict v;
	tp_sched_record rec;
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 2, 4, &err), TP_OK);
	memset(&v, 0, sizeof(v));
	v.kind = TP_SCHED_PLACE;
	v.alloc.met = true;
	snprintf(v.alloc.pod_exposure, sizeof(v.alloc.pod_exposure),
	         "pod isolation given up (adaptive routing): spans pods "
	         "pod01,pod02");
	tp_decision_verdict(&d, topo, &v);
	assert_string_equal(d.pod_exposure, v.alloc.pod_exposure);
	snprintf(d.note, sizeof(d.note), "profile alice/ring by job name");
	assert_int_equal(tp_decision_started(&d, &rec), TP_STARTED_AS_DECIDED);
	assert_int_equal(rec.policy, TP_PLACEMENT_LEAF);
	assert_string_equal(d.note, "pod isolation given up (adaptive "
	                            "routing): spans pods pod01,pod02; "
	                            "profile alice/ring by job name");
	v.alloc.pod_exposure[0] = '\0';
	tp_decision_verdict(&d, topo, &v);
	assert_string_equal(d.pod_exposure, "");
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_get_makes_then_finds_the_same_decision),
	    cmocka_unit_test(test_bad_arguments_are_refused),
	    cmocka_unit_test(test_random_gets_and_drops_match_a_plain_array),
	    cmocka_unit_test(test_full_table_drops_stale_decisions_first),
	    cmocka_unit_test(test_full_table_with_none_stale_drops_all),
	    cmocka_unit_test(test_clear_hands_each_decision_to_the_callback),
	    cmocka_unit_test(
	        test_fallback_verdict_fails_the_decision_with_its_note),
	    cmocka_unit_test(test_place_verdict_keeps_remainder_and_leaf_wait),
	    cmocka_unit_test(test_started_without_decision_runs_off),
	    cmocka_unit_test(
	        test_started_after_leaf_wait_runs_shared_and_says_so),
	    cmocka_unit_test(test_place_verdict_keeps_isolation_given_up),
	    cmocka_unit_test(
	        test_started_after_isolation_wait_runs_off_and_says_so),
	    cmocka_unit_test(test_started_with_remainder_names_its_shared_leaf),
	    cmocka_unit_test(test_started_after_pod_exposure_says_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
