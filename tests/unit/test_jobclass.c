/*
 * test_jobclass.c: jobs are classed io_heavy / comm_sensitive / quiet by the
 * documented thresholds, with the reason in words, and bad input is refused
 * with a message naming the field.
 */
#include "tp_config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jobclass.h"

static tp_jobclass classify(const tp_job_summary *s, char *reason)
{
	tp_jobclass_result r;
	tp_error err;

	assert_int_equal(tp_jobclass_classify(s, NULL, &r, &err), TP_OK);
	if (reason)
		strcpy(reason, r.reason);
	return r.job_class;
}

static void test_small_messages_at_high_rate_are_comm_sensitive(void **state)
{
	/* 64 ranks, 2.1 GB/s, 12 KiB messages: 2,670 messages/s per rank. */
	tp_job_summary s = {.net_bytes_per_s = 2.1e9,
	                    .mean_message_bytes = 12 * 1024,
	                    .ranks = 64};
	char reason[TP_JOBCLASS_REASON_MAX];

	(void)state;
	assert_int_equal(classify(&s, reason), TP_JOBCLASS_COMM_SENSITIVE);
	assert_non_null(strstr(
	    reason,
	    "comm_sensitive: 2.1 GB/s on the network, mean message 12 KiB"));
	assert_non_null(strstr(reason, "latency-bound"));
}

static void test_small_messages_below_rate_threshold_are_quiet(void **state)
{
	/* 64 ranks, 4 KiB messages, 500 per rank per second: under 1,000. */
	tp_job_summary s = {.net_bytes_per_s = 64.0 * 500 * 4096,
	                    .mean_message_bytes = 4096,
	                    .ranks = 64};
	char reason[TP_JOBCLASS_REASON_MAX];

	(void)state;
	assert_int_equal(classify(&s, reason), TP_JOBCLASS_QUIET);
	assert_non_null(strstr(reason, "quiet: "));
}

static void
test_large_messages_are_sensitive_only_when_bandwidth_bound(void **state)
{
	tp_job_summary s = {.mean_message_bytes = 4u << 20, .ranks = 10};

	(void)state;
	s.net_bytes_per_s = 10 * 200e6; /* 200 MB/s per rank < 250 */
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_QUIET);
	s.net_bytes_per_s = 10 * 300e6;
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_COMM_SENSITIVE);
}

static void test_io_at_congestion_rate_is_io_heavy(void **state)
{
	/* 4 MiB every 3.9 ms per client = 1 GiB/s: at the threshold. */
	tp_job_summary s = {.io_bytes = 100ull << 30,
	                    .io_requests_per_s = 256,
	                    .io_request_bytes = 4u << 20,
	                    .ranks = 100};
	char reason[TP_JOBCLASS_REASON_MAX];

	(void)state;
	assert_int_equal(classify(&s, reason), TP_JOBCLASS_IO_HEAVY);
	assert_non_null(strstr(
	    reason,
	    "io_heavy: 100 GiB of I/O, 1.1 GB/s per client in 4 MiB requests"));
	s.io_requests_per_s = 200; /* 5 ms intervals: below the rate */
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_QUIET);
}

static void test_io_threshold_falls_with_job_size(void **state)
{
	/* 0.2 GiB/s per client: quiet at 100 clients, io_heavy at 6,120
	 * (612/6120 of 1 GiB/s = 0.1 GiB/s). */
	tp_job_summary s = {.io_bytes = 1ull << 40,
	                    .io_requests_per_s = 51.2,
	                    .io_request_bytes = 4u << 20,
	                    .ranks = 100};

	(void)state;
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_QUIET);
	s.ranks = 6120;
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_IO_HEAVY);
	s.ranks = 100;
	s.io_clients = 6120;
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_IO_HEAVY);
}

static void test_small_io_volume_is_not_io_heavy(void **state)
{
	tp_job_summary s = {.io_bytes = 512u << 20, /* under 1 GiB */
	                    .io_requests_per_s = 1000,
	                    .io_request_bytes = 4u << 20,
	                    .ranks = 8};

	(void)state;
	assert_int_equal(classify(&s, NULL), TP_JOBCLASS_QUIET);
}

static void test_io_heavy_wins_over_comm_and_says_both(void **state)
{
	tp_job_summary s = {.io_bytes = 100ull << 30,
	                    .io_requests_per_s = 2048,
	                    .io_request_bytes = 512u << 10,
	                    .net_bytes_per_s = 2.1e9,
	                    .mean_message_bytes = 8192,
	                    .ranks = 64};
	char reason[TP_JOBCLASS_REASON_MAX];

	(void)state;
	assert_int_equal(classify(&s, reason), TP_JOBCLASS_IO_HEAVY);
	assert_non_null(strstr(reason, "also communication-intensive"));
}

static void test_thresholds_are_configurable(void **state)
{
	tp_job_summary s = {.net_bytes_per_s = 64.0 * 500 * 4096,
	                    .mean_message_bytes = 4096,
	                    .ranks = 64};
	tp_jobclass_thresholds t;
	tp_jobclass_result r;
	tp_error err;

	(void)state;
	tp_jobclass_defaults(&t);
	t.comm_messages_per_s_per_rank_min = 400;
	assert_int_equal(tp_jobclass_classify(&s, &t, &r, &err), TP_OK);
	assert_int_equal(r.job_class, TP_JOBCLASS_COMM_SENSITIVE);
}

static void test_bad_summary_and_thresholds_are_refused(void **state)
{
	tp_job_summary s = {.ranks = 4};
	tp_jobclass_thresholds t;
	tp_jobclass_result r;
	tp_error err;

	(void)state;
	s.net_bytes_per_s = -1;
	assert_int_equal(tp_jobclass_classify(&s, NULL, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "net_bytes_per_s"));
	s.net_bytes_per_s = 0;
	s.io_requests_per_s = NAN;
	assert_int_equal(tp_jobclass_classify(&s, NULL, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "io_requests_per_s"));
	s.io_requests_per_s = 0;
	s.ranks = 0;
	assert_int_equal(tp_jobclass_classify(&s, NULL, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "ranks is 0"));
	s.ranks = 4;
	tp_jobclass_defaults(&t);
	t.io_reference_clients = 0;
	assert_int_equal(tp_jobclass_classify(&s, &t, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "io_reference_clients"));
	tp_jobclass_defaults(&t);
	t.comm_bytes_per_s_per_rank_min = 0;
	assert_int_equal(tp_jobclass_classify(&s, &t, &r, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "comm_bytes_per_s_per_rank_min"));
	assert_int_equal(tp_jobclass_classify(NULL, NULL, &r, &err),
	                 TP_ERR_INVALID);
}

static void test_names_parse_and_compatibility(void **state)
{
	tp_jobclass k;
	tp_error err;

	(void)state;
	assert_int_equal(tp_jobclass_parse("io_heavy", &k, &err), TP_OK);
	assert_int_equal(k, TP_JOBCLASS_IO_HEAVY);
	assert_int_equal(tp_jobclass_parse("comm_sensitive", &k, &err), TP_OK);
	assert_int_equal(k, TP_JOBCLASS_COMM_SENSITIVE);
	assert_string_equal(tp_jobclass_name(TP_JOBCLASS_QUIET), "quiet");
	assert_int_equal(tp_jobclass_parse("IO_HEAVY", &k, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(
	    err.message,
	    "job class 'IO_HEAVY': expected quiet|io_heavy|comm_sensitive");
	assert_int_equal(tp_jobclass_parse(NULL, &k, &err), TP_ERR_INVALID);
	assert_false(tp_jobclass_compatible(TP_JOBCLASS_IO_HEAVY,
	                                    TP_JOBCLASS_COMM_SENSITIVE));
	assert_false(tp_jobclass_compatible(TP_JOBCLASS_COMM_SENSITIVE,
	                                    TP_JOBCLASS_IO_HEAVY));
	assert_true(
	    tp_jobclass_compatible(TP_JOBCLASS_IO_HEAVY, TP_JOBCLASS_IO_HEAVY));
	assert_true(tp_jobclass_compatible(TP_JOBCLASS_QUIET,
	                                   TP_JOBCLASS_COMM_SENSITIVE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_small_messages_at_high_rate_are_comm_sensitive),
	    cmocka_unit_test(
	        test_small_messages_below_rate_threshold_are_quiet),
	    cmocka_unit_test(
	        test_large_messages_are_sensitive_only_when_bandwidth_bound),
	    cmocka_unit_test(test_io_at_congestion_rate_is_io_heavy),
	    cmocka_unit_test(test_io_threshold_falls_with_job_size),
	    cmocka_unit_test(test_small_io_volume_is_not_io_heavy),
	    cmocka_unit_test(test_io_heavy_wins_over_comm_and_says_both),
	    cmocka_unit_test(test_thresholds_are_configurable),
	    cmocka_unit_test(test_bad_summary_and_thresholds_are_refused),
	    cmocka_unit_test(test_names_parse_and_compatibility),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
