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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_key_is_the_prefixed_sha256_of_the_script),
	    cmocka_unit_test(test_slurmctld_and_slurmd_copies_give_one_key),
	    cmocka_unit_test(test_one_changed_byte_changes_the_key),
	    cmocka_unit_test(test_only_keys_look_like_keys),
	    cmocka_unit_test(test_key_of_a_file_and_its_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
