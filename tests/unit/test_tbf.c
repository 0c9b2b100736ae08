/*
 * test_tbf.c: Lustre NRS TBF rule text from window and RPC size, refusal of
 * unsafe names, and the admin hook run with arguments and no shell.
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

#include "tbf.h"

static void test_rule_rate_counts_clients_rpcs_and_servers(void **state)
{
	tp_tbf_rule rule;
	tp_error err;

	(void)state;
	/* 64 clients x 4 RPCs (4 MiB / 1 MiB) per 2 ms = 128000 RPC/s. */
	assert_int_equal(tp_tbf_rule_make("tp_1234", "1234", 2000, 4 << 20,
	                                  1 << 20, 64, 1, &rule, &err),
	                 TP_OK);
	assert_string_equal(rule.start,
	                    "start tp_1234 jobid={1234} rate=128000");
	assert_string_equal(rule.stop, "stop tp_1234");
	/* Over 8 servers, 3 clients, 5 MiB = 5 RPCs, 3 ms: 625 RPC/s. */
	assert_int_equal(tp_tbf_rule_make("r", "job.7", 3000, 5 << 20, 1 << 20,
	                                  3, 8, &rule, &err),
	                 TP_OK);
	assert_int_equal(rule.rate_rpcs, 625);
	/* Partial RPC rounds up; slow rates never reach 0. */
	assert_int_equal(tp_tbf_rule_make("r", "j", 3600000000ULL, 1, 1 << 20,
	                                  1, 16, &rule, &err),
	                 TP_OK);
	assert_int_equal(rule.rate_rpcs, 1);
}

static void test_unsafe_names_and_zero_values_are_refused(void **state)
{
	tp_tbf_rule rule;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_tbf_rule_make("a b", "1", 1, 1, 1, 1, 1, &rule, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "TBF rule name 'a b'"));
	assert_int_equal(tp_tbf_rule_make("sixteen_chars_xx", "1", 1, 1, 1, 1,
	                                  1, &rule, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_tbf_rule_make("r", "1} rate=9999999 {", 1, 1, 1, 1,
	                                  1, &rule, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "TBF job id '1} rate=9999999 {'"));
	assert_int_equal(tp_tbf_rule_make("r", "1", 0, 1, 1, 1, 1, &rule, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "must all be positive"));
}

static void test_hook_gets_action_and_rule_as_arguments(void **state)
{
	char path[] = "/tmp/tp-tbf-hookXXXXXX";
	char *argv[] = {"sh", "-c", "printf '%s|%s' \"$1\" \"$2\" > \"$0\"",
	                path, NULL};
	char got[256] = "";
	tp_error err;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	/* A rule with shell metacharacters arrives as one argument. */
	assert_int_equal(tp_tbf_run_hook(argv, "start",
	                                 "start r jobid={1;2} rate=5", 5000,
	                                 &err),
	                 TP_OK);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	unlink(path);
	assert_string_equal(got, "start|start r jobid={1;2} rate=5");
}

static void test_hook_failures_are_reported_with_status(void **state)
{
	char *missing[] = {"/nonexistent/tp-hook", NULL};
	char *failing[] = {"sh", "-c", "exit 3", NULL};
	char *slow[] = {"sh", "-c", "sleep 10", NULL};
	tp_error err;

	(void)state;
	assert_int_equal(tp_tbf_run_hook(missing, "start", "x", 1000, &err),
	                 TP_ERR_IO);
	assert_non_null(
	    strstr(err.message, "TBF hook /nonexistent/tp-hook: cannot run"));
	assert_int_equal(tp_tbf_run_hook(failing, "stop", "stop r", 5000, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "TBF hook sh stop: exited with "
	                                    "status 3"));
	assert_int_equal(tp_tbf_run_hook(slow, "start", "x", 100, &err),
	                 TP_ERR_BUDGET);
	assert_non_null(strstr(err.message, "no answer within 100 ms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rule_rate_counts_clients_rpcs_and_servers),
	    cmocka_unit_test(test_unsafe_names_and_zero_values_are_refused),
	    cmocka_unit_test(test_hook_gets_action_and_rule_as_arguments),
	    cmocka_unit_test(test_hook_failures_are_reported_with_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
