/*
 * test_spank_env.c: topoplace's options are found in a job's SPANK
 * environment exactly as Slurm 22.05 writes them.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spank_env.h"

static void test_option_is_found_among_other_variables(void **state)
{
	char *env[] = {
		"PATH=/usr/bin",
		"_SLURM_SPANK_OPTION_other_placement=pack",
		"_SLURM_SPANK_OPTION_topoplace_placement=leaf",
		"SLURM_JOB_ID=7",
	};

	(void)state;
	assert_string_equal(tp_spank_job_option(env, 4, "placement"), "leaf");
}

static void test_missing_option_gives_null(void **state)
{
	char *env[] = { "_SLURM_SPANK_OPTION_topoplace_placementx=leaf",
			"_SLURM_SPANK_OPTION_topoplace_placemen=leaf" };

	(void)state;
	assert_null(tp_spank_job_option(env, 2, "placement"));
	assert_null(tp_spank_job_option(NULL, 0, "placement"));
}

static void test_null_entries_and_size_bound_are_respected(void **state)
{
	char *env[] = { NULL, "_SLURM_SPANK_OPTION_topoplace_placement=off",
			"_SLURM_SPANK_OPTION_topoplace_placement=leaf" };

	(void)state;
	assert_null(tp_spank_job_option(env, 1, "placement"));
	assert_string_equal(tp_spank_job_option(env, 3, "placement"), "off");
}

static void test_option_names_match_in_canonical_form(void **state)
{
	char *env[] = { "_SLURM_SPANK_OPTION_topoplace_comm_profile=lulesh" };

	(void)state;
	assert_string_equal(tp_spank_job_option(env, 1, "comm-profile"),
			    "lulesh");
}

static void test_empty_value_is_an_empty_string(void **state)
{
	char *env[] = { "_SLURM_SPANK_OPTION_topoplace_placement=" };

	(void)state;
	assert_string_equal(tp_spank_job_option(env, 1, "placement"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_is_found_among_other_variables),
		cmocka_unit_test(test_missing_option_gives_null),
		cmocka_unit_test(test_null_entries_and_size_bound_are_respected),
		cmocka_unit_test(test_option_names_match_in_canonical_form),
		cmocka_unit_test(test_empty_value_is_an_empty_string),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
