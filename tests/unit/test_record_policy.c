/*
 * test_record_policy.c: which jobs the site records (record_policy.h), and
 * the ProfileRecord keys of topoplace.conf that fill the policy.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record_policy.h"
#include "topoplace_conf.h"

static tp_record_policy policy_of(const char *mode)
{
	tp_record_policy p = {.allow_user_off = true, .max_age_s = 3600};
	tp_error err;

	assert_int_equal(
	    tp_record_mode_parse(mode, &p.mode, &p.sample_every, &err), TP_OK);
	return p;
}

static tp_record_job job_of(const char *app, bool has_profile, int64_t age_s,
                            uint64_t job_id)
{
	tp_record_job j = {.app = app,
	                   .user = TP_RECORD_USER_UNSET,
	                   .job_id = job_id,
	                   .has_profile = has_profile,
	                   .newest_age_s = age_s};
	return j;
}

static void test_every_mode_parses_and_prints_back(void **state)
{
	static const char *const modes[] = {"off", "first", "sample:10",
	                                    "stale", "always"};
	char buf[32];
	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		tp_record_policy p = policy_of(modes[i]);

		tp_record_mode_format(p.mode, p.sample_every, buf, sizeof(buf));
		assert_string_equal(buf, modes[i]);
	}
	assert_int_equal(policy_of("FIRST").mode, TP_RECORD_FIRST);
}

static void test_bad_modes_are_refused_with_the_value_named(void **state)
{
	static const char *const bad[] = {
	    "sample",    "sample:",   "sample:1",       "sample:0", "sample:x",
	    "sample:5x", "sample:-3", "sample:1000001", "often",    ""};
	tp_record_mode mode;
	uint32_t every;
	tp_error err;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    tp_record_mode_parse(bad[i], &mode, &every, &err),
		    TP_ERR_INVALID);
		assert_non_null(strstr(err.message, "ProfileRecord"));
		assert_non_null(strstr(err.message, "sample:N"));
	}
	assert_int_equal(
	    tp_record_mode_parse("sample:1000000", &mode, &every, &err), TP_OK);
	assert_int_equal(every, 1000000);
}

static void test_first_records_only_an_application_without_profile(void **s)
{
	tp_record_policy p = policy_of("first");
	tp_record_job j = job_of("lulesh", false, 0, 7);
	char why[256];
	(void)s;
	assert_true(tp_record_decide(&p, &j, why, sizeof(why)));
	assert_string_equal(why,
	                    "ProfileRecord=first: no profile of lulesh yet");
	j.has_profile = true;
	j.newest_age_s = 1 << 30; /* age does not matter under first */
	assert_false(tp_record_decide(&p, &j, why, sizeof(why)));
	assert_non_null(strstr(why, "lulesh has a profile"));
}

/* A new script under a job name that has runs: the reason says what had
 * none, not the name (which has some). */
static void test_the_reason_names_what_the_runs_were_counted_under(void **s)
{
	tp_record_policy p = policy_of("first");
	tp_record_job j = job_of("job", false, 0, 7);
	char why[256];
	(void)s;
	j.runs_of = "this batch script";
	assert_true(tp_record_decide(&p, &j, why, sizeof(why)));
	assert_string_equal(
	    why, "ProfileRecord=first: no profile of this batch script yet");
}

static void test_off_records_nothing_without_the_user_flag(void **state)
{
	tp_record_policy p = policy_of("off");
	tp_record_job j = job_of("lulesh", false, 0, 7);
	char why[256];
	(void)state;
	assert_false(tp_record_decide(&p, &j, why, sizeof(why)));
	j.user = TP_RECORD_USER_YES;
	assert_true(tp_record_decide(&p, &j, why, sizeof(why)));
	assert_string_equal(why, "--comm-record");
}

static void test_sample_records_one_job_id_in_n_once_a_profile_exists(void **s)
{
	tp_record_policy p = policy_of("sample:4");
	unsigned recorded = 0;
	char why[256];
	(void)s;
	for (uint64_t id = 1; id <= 100; id++) {
		tp_record_job j = job_of("app", true, 10, id);

		if (tp_record_decide(&p, &j, why, sizeof(why))) {
			recorded++;
			assert_int_equal(id % 4, 0);
		}
	}
	assert_int_equal(recorded, 25);
	/* Without a profile every job id records: the first run. */
	tp_record_job first = job_of("app", false, 0, 3);
	assert_true(tp_record_decide(&p, &first, why, sizeof(why)));
}

static void test_stale_records_past_profile_max_age_only(void **state)
{
	tp_record_policy p = policy_of("stale"); /* max_age_s 3600 */
	tp_record_job fresh = job_of("wrf", true, 3600, 5);
	tp_record_job old = job_of("wrf", true, 3601, 5);
	char why[256];
	(void)state;
	assert_false(tp_record_decide(&p, &fresh, why, sizeof(why)));
	assert_non_null(strstr(why, "fresh"));
	assert_true(tp_record_decide(&p, &old, why, sizeof(why)));
	assert_non_null(strstr(why, "3601 s old, ProfileMaxAge is 3600 s"));
	/* No age limit: a stored profile never goes stale. */
	p.max_age_s = 0;
	assert_false(tp_record_decide(&p, &old, why, sizeof(why)));
}

static void test_user_opt_out_holds_only_where_the_site_allows(void **state)
{
	tp_record_policy p = policy_of("always");
	tp_record_job j = job_of("nek", true, 0, 9);
	char why[256];
	(void)state;
	j.user = TP_RECORD_USER_NO;
	assert_false(tp_record_decide(&p, &j, why, sizeof(why)));
	assert_string_equal(why, "--comm-record=no");
	p.allow_user_off = false;
	assert_true(tp_record_decide(&p, &j, why, sizeof(why)));
	assert_non_null(strstr(why, "ProfileRecordAllowUserOff=no"));
}

static void test_excluded_and_unnamed_applications_are_not_recorded(void **s)
{
	tp_record_policy p = policy_of("always");
	char buf[128], why[256];
	tp_error err;
	(void)s;
	assert_int_equal(tp_record_exclude_parse("vasp,gaussian", buf,
	                                         sizeof(buf), &p, &err),
	                 TP_OK);
	assert_int_equal(p.exclude_count, 2);
	tp_record_job vasp = job_of("vasp", false, 0, 1);
	assert_false(tp_record_decide(&p, &vasp, why, sizeof(why)));
	assert_string_equal(why, "vasp is in ProfileRecordExclude");
	/* An explicit request still records. */
	vasp.user = TP_RECORD_USER_YES;
	assert_true(tp_record_decide(&p, &vasp, why, sizeof(why)));
	tp_record_job other = job_of("lammps", false, 0, 1);
	assert_true(tp_record_decide(&p, &other, why, sizeof(why)));
	tp_record_job unnamed = job_of(NULL, false, 0, 1);
	assert_false(tp_record_decide(&p, &unnamed, why, sizeof(why)));
	tp_record_job bad_name = job_of("../etc", false, 0, 1);
	assert_false(tp_record_decide(&p, &bad_name, why, sizeof(why)));
}

static void test_exclude_list_bad_names_and_bounds(void **state)
{
	tp_record_policy p = policy_of("first");
	char buf[1024], many[1024] = "";
	tp_error err;
	(void)state;
	assert_int_equal(
	    tp_record_exclude_parse("ok,../x", buf, sizeof(buf), &p, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "'../x' is not a profile name"));
	assert_int_equal(
	    tp_record_exclude_parse(",,", buf, sizeof(buf), &p, &err),
	    TP_ERR_INVALID);
	for (int i = 0; i <= TP_RECORD_EXCLUDE_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
		         "%sa%d", i ? "," : "", i);
	assert_int_equal(
	    tp_record_exclude_parse(many, buf, sizeof(buf), &p, &err),
	    TP_ERR_LIMIT);
	assert_int_equal(tp_record_exclude_parse(many, buf, 8, &p, &err),
	                 TP_ERR_LIMIT);
	assert_int_equal(
	    tp_record_exclude_parse("none", buf, sizeof(buf), &p, &err), TP_OK);
	assert_int_equal(p.exclude_count, 0);
}

/* The keys per partition, over the site's, with ProfileMaxAge added. */
static void test_config_keys_fill_the_policy_per_partition(void **state)
{
	static const char text[] = "ProfileRecord=first\n"
	                           "ProfileMaxAge=7d\n"
	                           "ProfileRecordExclude=vasp\n"
	                           "PartitionName=big ProfileRecord=sample:20 "
	                           "ProfileRecordAllowUserOff=no\n"
	                           "PartitionName=lic ProfileRecord=off\n";
	tp_config *cfg = NULL;
	tp_record_policy p;
	tp_error err;
	(void)state;
	assert_int_equal(
	    tp_config_parse(text, sizeof(text) - 1, "t.conf", &cfg, &err),
	    TP_OK);
	tp_config_record_policy(cfg, tp_config_defaults(cfg), &p);
	assert_int_equal(p.mode, TP_RECORD_FIRST);
	assert_int_equal(p.max_age_s, 7 * 24 * 3600);
	assert_true(p.allow_user_off);
	assert_true(tp_record_excluded(&p, "vasp"));
	tp_config_record_policy(cfg, tp_config_for_partition(cfg, "big"), &p);
	assert_int_equal(p.mode, TP_RECORD_SAMPLE);
	assert_int_equal(p.sample_every, 20);
	assert_false(p.allow_user_off);
	assert_true(tp_record_excluded(&p, "vasp")); /* inherited */
	tp_config_record_policy(cfg, tp_config_for_partition(cfg, "lic"), &p);
	assert_int_equal(p.mode, TP_RECORD_OFF);
	tp_config_free(cfg);
}

static void test_config_bad_record_value_names_line_and_key(void **state)
{
	static const char text[] = "DefaultPlacement=auto\n"
	                           "ProfileRecord=sample:1\n";
	tp_config *cfg = NULL;
	tp_error err;
	(void)state;
	assert_int_equal(
	    tp_config_parse(text, sizeof(text) - 1, "t.conf", &cfg, &err),
	    TP_ERR_INVALID);
	assert_null(cfg);
	assert_non_null(strstr(err.message, "t.conf: line 2: ProfileRecord"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_mode_parses_and_prints_back),
	    cmocka_unit_test(test_bad_modes_are_refused_with_the_value_named),
	    cmocka_unit_test(
	        test_first_records_only_an_application_without_profile),
	    cmocka_unit_test(test_off_records_nothing_without_the_user_flag),
	    cmocka_unit_test(
	        test_sample_records_one_job_id_in_n_once_a_profile_exists),
	    cmocka_unit_test(test_stale_records_past_profile_max_age_only),
	    cmocka_unit_test(
	        test_user_opt_out_holds_only_where_the_site_allows),
	    cmocka_unit_test(
	        test_excluded_and_unnamed_applications_are_not_recorded),
	    cmocka_unit_test(
	        test_the_reason_names_what_the_runs_were_counted_under),
	    cmocka_unit_test(test_exclude_list_bad_names_and_bounds),
	    cmocka_unit_test(test_config_keys_fill_the_policy_per_partition),
	    cmocka_unit_test(test_config_bad_record_value_names_line_and_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
