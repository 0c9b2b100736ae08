/*
 * test_sched_policy.c: settling a pending job's profile step by step
 * (placement/sched_policy.h).
 *
 * Every step of the table in sched_policy.h once, with what the decision
 * becomes and the note users read in SystemComment (worded as the bed
 * tests and users expect).
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_policy.h"

/* A job named "ring" run by alice, its name a store name, 64 tasks. */
static tp_sched_policy_job ring_job(void)
{
	tp_sched_policy_job job = {
	    .placement = TP_PLACEMENT_AUTO,
	    .user = "alice",
	    .profile = "ring",
	    .lookup = true,
	    .job_tasks = 64,
	};
	return job;
}

static tp_decision fresh(void)
{
	tp_decision d;

	memset(&d, 0, sizeof(d));
	d.job_id = 12;
	return d;
}

static void test_bad_flag_fails_and_names_the_flag(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	job.bad_option = "io-throttle";
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_FAILED);
	assert_true(d.failed);
	assert_string_equal(
	    d.note, "bad --io-throttle value: placed by Slurm's default");
}

static void test_placement_off_resolves_without_a_lookup(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	job.placement = TP_PLACEMENT_OFF;
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_RESOLVE);
	assert_false(d.failed);
	assert_false(d.profile_read);
	assert_string_equal(d.note, "");
}

static void test_settled_profile_resolves(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	d.profile_read = true;
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_RESOLVE);
}

static void test_job_name_no_store_name_settles_silently(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	job.profile = "my job";
	job.lookup = false;
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_NO_STORE_NAME);
	assert_true(d.profile_read);
	assert_false(d.failed);
	assert_string_equal(d.note, "");
	/* Settled: the next test resolves. */
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_RESOLVE);
}

static void test_named_no_store_name_is_noted(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	job.profile = "../etc";
	job.named = true;
	job.lookup = false;
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_NO_STORE_NAME);
	assert_false(d.failed);
	assert_string_equal(d.note,
	                    "--comm-profile=../etc is not a profile name");
}

static void test_lookup_then_claim(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	assert_int_equal(tp_sched_policy_next(&job, &d),
	                 TP_SCHED_POLICY_LOOKUP);
	tp_sched_policy_queued(&d, 7, 1000);
	assert_true(d.lookup_sent);
	assert_int_equal(d.lookup_ticket, 7);
	assert_int_equal(d.lookup_since_us, 1000);
	assert_int_equal(tp_sched_policy_next(&job, &d), TP_SCHED_POLICY_CLAIM);
}

static void test_refused_lookup_fails(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision queue_full = fresh();
	tp_decision no_thread = fresh();

	(void)state;
	tp_sched_policy_refused(&job, &queue_full, false);
	assert_true(queue_full.failed);
	assert_string_equal(queue_full.note,
	                    "profile alice/ring cannot be looked up (see "
	                    "slurmctld's log): placed by Slurm's default");
	tp_sched_policy_refused(&job, &no_thread, true);
	assert_true(no_thread.failed);
	assert_string_equal(no_thread.note,
	                    "profiles cannot be read (see slurmctld's log): "
	                    "placed by Slurm's default");
}

static void test_lookup_times_out_only_past_the_bound(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();

	(void)state;
	tp_sched_policy_queued(&d, 1, 1000000);
	/* Exactly the bound: still waiting. */
	assert_false(tp_sched_policy_timed_out(&job, &d, 3000000, 2000000));
	assert_false(d.failed);
	/* A clock behind the submission: no answer either way. */
	assert_false(tp_sched_policy_timed_out(&job, &d, 10, 2000000));
	assert_false(d.failed);
	assert_true(tp_sched_policy_timed_out(&job, &d, 3000001, 2000000));
	assert_true(d.failed);
	assert_string_equal(d.note,
	                    "profile alice/ring: no answer from the store in "
	                    "2.0 s: placed by Slurm's default");
}

static void test_found_by_job_name_recorded(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .job_class = TP_JOBCLASS_COMM_SENSITIVE,
	    .class_reason = "62% of bytes between leaves",
	    .ranks = 64,
	    .recorded_job_id = 12,
	};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_USED);
	assert_true(d.profile_read);
	assert_true(d.has_profile);
	assert_false(d.failed);
	assert_int_equal(d.job_class, TP_JOBCLASS_COMM_SENSITIVE);
	assert_string_equal(d.class_reason, "62% of bytes between leaves");
	assert_string_equal(d.note,
	                    "profile alice/ring by job name, recorded by "
	                    "JobId=12");
}

static void test_found_by_comm_profile_imported_older_run(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .job_class = TP_JOBCLASS_QUIET,
	    .ranks = 64,
	    .over_newest = true,
	};

	(void)state;
	job.named = true;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_USED);
	assert_string_equal(d.class_reason, "");
	assert_string_equal(
	    d.note, "profile alice/ring by --comm-profile, imported (an "
	            "older run, of the job's task count)");
}

static void test_found_by_script_names_the_application(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .ranks = 64,
	    .recorded_job_id = 5,
	    .source = TP_IDENTITY_SCRIPT,
	    .app = "lammps",
	};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_USED);
	assert_string_equal(d.note, "profile alice/lammps by script hash, "
	                            "recorded by JobId=5");
}

/* A script that never ran, whose link names the application recorded
 * from its program: found by that application, and says how. */
static void test_found_by_script_link_says_via_executable(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .ranks = 64,
	    .recorded_job_id = 9,
	    .source = TP_IDENTITY_SCRIPT_LINK,
	    .app = "ringA",
	};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_USED);
	assert_string_equal(d.note,
	                    "profile alice/ringA by script hash, via "
	                    "executable, recorded by JobId=9");
}

/* The application's runs pass the scale rule: the note says what slurmd
 * will remap from, not "class only". */
static void test_other_task_count_scaled_says_so(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .job_class = TP_JOBCLASS_COMM_SENSITIVE,
	    .ranks = 32,
	    .recorded_job_id = 7,
	    .scale = "a 16-rank run scaled to 64 ranks (3-D periodic stencil "
	             "seen at 16, 32 ranks)",
	};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_USED);
	assert_true(d.has_profile);
	assert_int_equal(d.job_class, TP_JOBCLASS_COMM_SENSITIVE);
	assert_string_equal(d.note,
	                    "profile alice/ring has 32 ranks, the job 64 tasks: "
	                    "a 16-rank run scaled to 64 ranks (3-D periodic "
	                    "stencil seen at 16, 32 ranks) (by job name, "
	                    "recorded by JobId=7)");
	/* An empty verdict is no verdict: class only, as before. */
	answer.scale = "";
	d = fresh();
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_CLASS_ONLY);
}

static void test_other_task_count_uses_the_class_only(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision counted = fresh();
	tp_decision uncounted = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .job_class = TP_JOBCLASS_IO_HEAVY,
	    .ranks = 32,
	};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &counted, &answer),
	                 TP_SCHED_PROFILE_CLASS_ONLY);
	assert_true(counted.has_profile);
	assert_int_equal(counted.job_class, TP_JOBCLASS_IO_HEAVY);
	assert_string_equal(counted.note,
	                    "profile alice/ring has 32 ranks, the job 64 "
	                    "tasks: class only, Slurm's layout (by job name, "
	                    "imported)");
	job.job_tasks = 0;
	assert_int_equal(tp_sched_policy_answer(&job, &uncounted, &answer),
	                 TP_SCHED_PROFILE_CLASS_ONLY);
	assert_string_equal(uncounted.note,
	                    "profile alice/ring has 32 ranks, the job gave no "
	                    "task count: class only, Slurm's layout (by job "
	                    "name, imported)");
}

/* Found by script hash with another task count: the note names the
 * application's profile that exists, not one under the job's name. */
static void test_class_only_by_script_names_the_application(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {
	    .status = TP_OK,
	    .ranks = 1,
	    .recorded_job_id = 7,
	    .source = TP_IDENTITY_SCRIPT,
	    .app = "s-0123456789abcdef0123456789abcdef",
	};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_CLASS_ONLY);
	assert_string_equal(d.note,
	                    "profile alice/s-0123456789abcdef0123456789abcdef "
	                    "has 1 ranks, the job 64 tasks: class only, "
	                    "Slurm's layout (by script hash, recorded by "
	                    "JobId=7)");
}

static void test_not_found_by_job_name_is_no_profile(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {.status = TP_ERR_NOTFOUND};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_NONE);
	assert_true(d.profile_read);
	assert_false(d.has_profile);
	assert_false(d.failed);
	assert_string_equal(d.note, "");
}

static void test_named_not_found_is_noted_not_failed(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {.status = TP_ERR_NOTFOUND};

	(void)state;
	job.named = true;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_NAMED_ABSENT);
	assert_false(d.failed);
	assert_false(d.has_profile);
	assert_string_equal(d.note, "profile alice/ring not found");
}

static void test_unreadable_profile_fails(void **state)
{
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {.status = TP_ERR_IO};

	(void)state;
	assert_int_equal(tp_sched_policy_answer(&job, &d, &answer),
	                 TP_SCHED_PROFILE_UNUSABLE);
	assert_true(d.failed);
	assert_false(d.has_profile);
	assert_string_equal(d.note,
	                    "profile alice/ring cannot be used (see "
	                    "slurmctld's log): placed by Slurm's default");
}

static void test_long_names_are_cut_to_the_note(void **state)
{
	char name[300];
	tp_sched_policy_job job = ring_job();
	tp_decision d = fresh();
	tp_sched_profile_answer answer = {.status = TP_ERR_NOTFOUND};

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	job.profile = name;
	job.named = true;
	tp_sched_policy_answer(&job, &d, &answer);
	/* "profile alice/" + 64 of the name + " not found". */
	assert_int_equal(strlen(d.note),
	                 strlen("profile alice/") + 64 + strlen(" not found"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_flag_fails_and_names_the_flag),
	    cmocka_unit_test(test_placement_off_resolves_without_a_lookup),
	    cmocka_unit_test(test_settled_profile_resolves),
	    cmocka_unit_test(test_job_name_no_store_name_settles_silently),
	    cmocka_unit_test(test_named_no_store_name_is_noted),
	    cmocka_unit_test(test_lookup_then_claim),
	    cmocka_unit_test(test_refused_lookup_fails),
	    cmocka_unit_test(test_lookup_times_out_only_past_the_bound),
	    cmocka_unit_test(test_found_by_job_name_recorded),
	    cmocka_unit_test(test_found_by_comm_profile_imported_older_run),
	    cmocka_unit_test(test_found_by_script_names_the_application),
	    cmocka_unit_test(test_found_by_script_link_says_via_executable),
	    cmocka_unit_test(test_other_task_count_scaled_says_so),
	    cmocka_unit_test(test_other_task_count_uses_the_class_only),
	    cmocka_unit_test(test_class_only_by_script_names_the_application),
	    cmocka_unit_test(test_not_found_by_job_name_is_no_profile),
	    cmocka_unit_test(test_named_not_found_is_noted_not_failed),
	    cmocka_unit_test(test_unreadable_profile_fails),
	    cmocka_unit_test(test_long_names_are_cut_to_the_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
