/*
 * test_calibrate.c: a tiny real calibration into a temporary directory
 * records one sample per request from every writer at its slot, cleans up
 * its files, and bad parameters are refused naming what is wrong.
 */
#include "tp_config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "calibrate.h"

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_writers_record_each_request_at_its_slot(void **state)
{
	char dir[] = "/tmp/tp-calibrate-unitXXXXXX";
	tp_calibrate_params p = {dir,   65536,         2, 5000,
	                         40000, TP_FSYNC_NONE, 0, 0};
	tp_sweep *sweep = tp_sweep_new();
	size_t per_writer[2] = {0, 0};
	tp_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(sweep);
	assert_int_equal(tp_calibrate_run(&p, sweep, NULL, &err), TP_OK);
	for (size_t i = 0; i < sweep->count; i++) {
		const tp_sweep_sample *s = &sweep->samples[i];
		size_t k = per_writer[s->client]++;

		assert_int_equal(s->request_bytes, 65536);
		assert_int_equal(s->clients, 2);
		assert_true(s->interval_us == 5000);
		/* The k-th request never starts before its slot. */
		assert_true(s->start_us + 1 >= (double)k * 5000);
		assert_true(s->latency_us >= 0);
	}
	/* 40 ms at 5 ms: at most 9 requests each, at least the first. */
	for (int w = 0; w < 2; w++)
		assert_true(per_writer[w] >= 1 && per_writer[w] <= 9);
	assert_int_equal(entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
	tp_sweep_free(sweep);
}

static void test_bad_parameters_are_refused_by_name(void **state)
{
	tp_calibrate_params p = {"/nonexistent/tp-dir", 4096, 1, 1000, 1000,
	                         TP_FSYNC_EACH,         0,    0};
	tp_sweep *sweep = tp_sweep_new();
	tp_fsync_policy policy;
	tp_error err;

	(void)state;
	assert_int_equal(tp_calibrate_run(&p, sweep, NULL, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, "target /nonexistent/tp-dir: No "
	                                    "such file or directory"));
	{
		char file[] = "/tmp/tp-calibrate-fileXXXXXX";
		int fd = mkstemp(file);

		assert_true(fd >= 0);
		close(fd);
		p.directory = file;
		assert_int_equal(tp_calibrate_run(&p, sweep, NULL, &err),
		                 TP_ERR_IO);
		unlink(file);
		assert_non_null(strstr(err.message, "not a directory"));
	}
	p.directory = "/tmp";
	p.writers = 0;
	assert_int_equal(tp_calibrate_run(&p, sweep, NULL, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "writers 0 not in 1..4096"));
	p.writers = 1;
	p.duration_us = 0;
	assert_int_equal(tp_calibrate_run(&p, sweep, NULL, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "duration"));
	assert_int_equal(sweep->count, 0);
	assert_int_equal(tp_fsync_policy_parse("sometimes", &policy, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "'sometimes': use each|end|none"));
	tp_sweep_free(sweep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writers_record_each_request_at_its_slot),
	    cmocka_unit_test(test_bad_parameters_are_refused_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
