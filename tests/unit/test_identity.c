/*
 * test_identity.c: script keys, the identity of a batch job's application
 * beyond its job name (identity.h).
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app_identity.h"
#include "store.h"

/* SHA-256("abc") is ba7816bf8f01cfea414140de5dae2223b003...: FIPS 180-2. */
static void test_key_is_the_prefixed_sha256_of_the_script(void **state)
{
	char key[TP_IDENTITY_SCRIPT_KEY_SIZE];
	(void)state;
	tp_identity_script_key("abc", 3, key);
	assert_string_equal(key, "s-ba7816bf8f01cfea414140de5dae2223");
	assert_true(tp_store_valid_name(key));
	assert_true(tp_identity_is_script_key(key));
}

/* slurmctld's copy of the script ends with a NUL, slurmd's does not. */
static void test_slurmctld_and_slurmd_copies_give_one_key(void **state)
{
	static const char script[] = "#!/bin/sh\nsrun ./app\n";
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	(void)state;
	tp_identity_script_key(script, sizeof(script), a);     /* with NUL */
	tp_identity_script_key(script, sizeof(script) - 1, b); /* without */
	assert_string_equal(a, b);
}

static void test_one_changed_byte_changes_the_key(void **state)
{
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	(void)state;
	tp_identity_script_key("srun ./app 1\n", 13, a);
	tp_identity_script_key("srun ./app 2\n", 13, b);
	assert_string_not_equal(a, b);
}

static void test_only_keys_look_like_keys(void **state)
{
	(void)state;
	assert_false(tp_identity_is_script_key("ring"));
	assert_false(tp_identity_is_script_key(NULL));
	assert_false(tp_identity_is_script_key("s-ba7816bf8f01cfea"));
	assert_false(
	    tp_identity_is_script_key("s-BA7816BF8F01CFEA414140DE5DAE2223"));
	assert_false(
	    tp_identity_is_script_key("x-ba7816bf8f01cfea414140de5dae2223"));
}

static void test_key_of_a_file_and_its_errors(void **state)
{
	char path[] = "/tmp/tp-test-identity.XXXXXX";
	char key[TP_IDENTITY_SCRIPT_KEY_SIZE],
	    direct[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_error err;
	FILE *f;
	int fd = mkstemp(path);
	(void)state;
	assert_true(fd >= 0);
	assert_true((f = fdopen(fd, "w")) != NULL);
	fwrite("abc", 1, 4, f); /* with its NUL, as slurmctld writes it */
	fclose(f);
	assert_int_equal(tp_identity_script_key_file(path, key, &err), TP_OK);
	tp_identity_script_key("abc", 3, direct);
	assert_string_equal(key, direct);
	/* Larger than Slurm's script limit: refused before it is hashed. */
	assert_true((f = fopen(path, "w")) != NULL);
	for (size_t i = 0; i <= TP_IDENTITY_SCRIPT_MAX_BYTES; i += 4096) {
		static const char page[4096];
		fwrite(page, 1, sizeof(page), f);
	}
	fclose(f);
	assert_int_equal(tp_identity_script_key_file(path, key, &err),
	                 TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, path));
	unlink(path);
	assert_int_equal(tp_identity_script_key_file(path, key, &err),
	                 TP_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, path));
}

static void test_comm_profile_wins_over_the_job_name(void **state)
{
	tp_identity_profile p =
	    tp_identity_job_profile("lulesh", "job1", "alice");

	(void)state;
	assert_string_equal(p.name, "lulesh");
	assert_true(p.named);
	assert_true(p.lookup);

	/* Not given (empty, as the option parser leaves it): the job name. */
	p = tp_identity_job_profile("", "ring", "alice");
	assert_string_equal(p.name, "ring");
	assert_false(p.named);
	assert_true(p.lookup);
	p = tp_identity_job_profile(NULL, "ring", "alice");
	assert_string_equal(p.name, "ring");
	assert_false(p.named);
}

static void test_no_store_name_means_no_lookup(void **state)
{
	tp_identity_profile p;

	(void)state;
	/* A bad --comm-profile is named, for the user's message. */
	p = tp_identity_job_profile("../etc", "ring", "alice");
	assert_string_equal(p.name, "../etc");
	assert_true(p.named);
	assert_false(p.lookup);
	/* A job name with a space; no job name at all. */
	p = tp_identity_job_profile("", "my job", "alice");
	assert_false(p.lookup);
	p = tp_identity_job_profile("", NULL, "alice");
	assert_null(p.name);
	assert_false(p.lookup);
	/* The user's namespace must be a store name too. */
	p = tp_identity_job_profile("ring", NULL, "");
	assert_false(p.lookup);
	p = tp_identity_job_profile("ring", NULL, NULL);
	assert_false(p.lookup);
	p = tp_identity_job_profile("ring", NULL, "-alice");
	assert_false(p.lookup);
}

static void test_the_newest_run_of_the_jobs_task_count_is_chosen(void **state)
{
	const uint32_t ranks[] = {4, 8, 4, 16}; /* oldest first */
	tp_identity_run_choice c;
	(void)state;

	c = tp_identity_choose_run(ranks, 4, 4);
	assert_int_equal(c.index, 2);
	assert_true(c.matched);
	assert_true(c.over_newest);
	c = tp_identity_choose_run(ranks, 4, 8);
	assert_int_equal(c.index, 1);
	assert_true(c.matched);
	c = tp_identity_choose_run(ranks, 4, 16);
	assert_int_equal(c.index, 3);
	assert_true(c.matched);
	assert_false(c.over_newest);
}

static void test_no_run_of_the_jobs_size_gives_the_newest(void **state)
{
	const uint32_t ranks[] = {4, 0, 8};
	tp_identity_run_choice c;
	(void)state;

	/* No run with 32 ranks: the newest, not matched (class only). */
	c = tp_identity_choose_run(ranks, 3, 32);
	assert_int_equal(c.index, 2);
	assert_false(c.matched);
	assert_false(c.over_newest);
	/* A job without a task count matches nothing, not an unreadable
	 * run's 0. */
	c = tp_identity_choose_run(ranks, 3, 0);
	assert_int_equal(c.index, 2);
	assert_false(c.matched);
	c = tp_identity_choose_run(ranks, 1, 4);
	assert_int_equal(c.index, 0);
	assert_true(c.matched);
	assert_false(c.over_newest);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_key_is_the_prefixed_sha256_of_the_script),
	    cmocka_unit_test(test_slurmctld_and_slurmd_copies_give_one_key),
	    cmocka_unit_test(test_one_changed_byte_changes_the_key),
	    cmocka_unit_test(test_only_keys_look_like_keys),
	    cmocka_unit_test(test_key_of_a_file_and_its_errors),
	    cmocka_unit_test(test_comm_profile_wins_over_the_job_name),
	    cmocka_unit_test(test_no_store_name_means_no_lookup),
	    cmocka_unit_test(
	        test_the_newest_run_of_the_jobs_task_count_is_chosen),
	    cmocka_unit_test(test_no_run_of_the_jobs_size_gives_the_newest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
