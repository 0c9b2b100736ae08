/*
 * test_sweep.c: the sweep reader accepts the documented format and refuses
 * every malformed input with one message naming file, line and column.
 */
#include "tp_config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep.h"

#define HEAD TP_SWEEP_MAGIC "\n" TP_SWEEP_HEADER "\n"

static tp_status parse(const char *text, tp_sweep **out, tp_error *err)
{
	return tp_sweep_parse("s.csv", text, strlen(text), 0, out, err);
}

static void test_valid_sweep_is_read_with_every_field(void **state)
{
	const char *text =
	    TP_SWEEP_MAGIC " made by hand\r\n"
	                   "# a comment\n\n" TP_SWEEP_HEADER "\r\n"
	                   "4194304,4,2000,3,10.5,812.25\n"
	                   "4194304,4,2000,0,0,800";
	tp_sweep *sweep = NULL;
	tp_error err;

	(void)state;
	assert_int_equal(parse(text, &sweep, &err), TP_OK);
	assert_int_equal(sweep->count, 2);
	assert_int_equal(sweep->samples[0].request_bytes, 4194304);
	assert_int_equal(sweep->samples[0].clients, 4);
	assert_int_equal(sweep->samples[0].client, 3);
	assert_true(sweep->samples[0].interval_us == 2000.0);
	assert_true(sweep->samples[0].start_us == 10.5);
	assert_true(sweep->samples[0].latency_us == 812.25);
	tp_sweep_free(sweep);
}

static void test_formatted_sample_reads_back(void **state)
{
	tp_sweep_sample s = {1048576, 2, 1, 750, 1234.5, 99.125, TP_SWEEP_IO, 0};
	char text[512], line[128];
	tp_sweep *sweep = NULL;
	tp_error err;

	(void)state;
	assert_true(tp_sweep_format_sample(&s, line, sizeof(line)) > 0);
	snprintf(text, sizeof(text), "%s%s", HEAD, line);
	assert_int_equal(parse(text, &sweep, &err), TP_OK);
	assert_int_equal(sweep->count, 1);
	/* Field by field: the struct has padding after kind. */
	assert_int_equal(sweep->samples[0].request_bytes, s.request_bytes);
	assert_int_equal(sweep->samples[0].clients, s.clients);
	assert_int_equal(sweep->samples[0].client, s.client);
	assert_true(sweep->samples[0].interval_us == s.interval_us);
	assert_true(sweep->samples[0].start_us == s.start_us);
	assert_true(sweep->samples[0].latency_us == s.latency_us);
	assert_int_equal(sweep->samples[0].kind, s.kind);
	tp_sweep_free(sweep);
	assert_int_equal(tp_sweep_format_sample(&s, line, 8), -1);
}

/* Each malformed input: the error code and the pieces of its one line. */
static const struct {
	const char *text;
	tp_status code;
	const char *where;
	const char *what;
} bad[] = {
    {"", TP_ERR_PARSE, "s.csv: line 1", "missing"},
    {"request_bytes,clients\n", TP_ERR_PARSE, "line 1: column 1",
     "not a topoplace sweep"},
    {TP_SWEEP_MAGIC "x\n", TP_ERR_PARSE, "line 1: column 1",
     "not a topoplace sweep"},
    {TP_SWEEP_MAGIC "\n", TP_ERR_PARSE, "line 2", "column header"},
    {TP_SWEEP_MAGIC "\nbytes,clients\n", TP_ERR_PARSE, "line 2: column 1",
     "expected the column header"},
    {HEAD "4194304,4,2000,0,0\n", TP_ERR_PARSE, "line 3",
     "5 fields, expected 6"},
    {HEAD "4194304,4,2000,0,0,1,7\n", TP_ERR_PARSE, "line 3: column 22",
     "more than 6 fields"},
    {HEAD "-4194304,4,2000,0,0,1\n", TP_ERR_PARSE, "line 3: column 1",
     "request_bytes '-4194304'"},
    {HEAD "4194304,0,2000,0,0,1\n", TP_ERR_PARSE, "line 3: column 9",
     "clients '0': out of range"},
    {HEAD "4194304,4,2e3,0,0,1\n", TP_ERR_PARSE, "line 3: column 11",
     "interval_us '2e3': not a plain decimal"},
    {HEAD "4194304,4,2000,4,0,1\n", TP_ERR_PARSE, "line 3: column 16",
     "client 4 is not below clients 4"},
    {HEAD "4194304,4,2000,0,0,nan\n", TP_ERR_PARSE, "line 3: column 20",
     "latency_us 'nan'"},
    {HEAD "4194304,4,2000,0,0,\n", TP_ERR_PARSE, "line 3: column 20",
     "empty field"},
    {HEAD "4194304,4,2000,0,0,1.\n", TP_ERR_PARSE, "line 3: column 20",
     "not a plain decimal"},
    {HEAD "4194304,4, 2000,0,0,1\n", TP_ERR_PARSE, "line 3: column 11",
     "interval_us ' 2000'"},
    {HEAD "4194304,4,9999999999999999,0,0,1\n", TP_ERR_PARSE,
     "line 3: column 11", "out of range"},
    {HEAD "99999999999999999999999,4,1,0,0,1\n", TP_ERR_PARSE,
     "line 3: column 1", "out of range"},
    {HEAD "4194304,4,2000,0,0,1\r\r\n", TP_ERR_PARSE, "line 3: column 21",
     "stray carriage return"},
    {HEAD "4194304,4,2000,0,0,1\x01\n", TP_ERR_PARSE, "line 3: column 21",
     "control byte 0x01"},
};

static void test_each_malformed_sweep_gives_one_clear_error(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tp_sweep *sweep = NULL;
		tp_error err;

		memset(&err, 0, sizeof(err));
		assert_int_equal(parse(bad[i].text, &sweep, &err), bad[i].code);
		assert_null(sweep);
		if (!strstr(err.message, bad[i].where) ||
		    !strstr(err.message, bad[i].what) ||
		    strchr(err.message, '\n'))
			fail_msg("case %zu: message '%s' lacks '%s' / '%s'", i,
			         err.message, bad[i].where, bad[i].what);
	}
}

static void test_nul_byte_inside_input_is_refused(void **state)
{
	const char text[] = HEAD "4194304,4,2000,0,0\0,1\n";
	tp_sweep *sweep = NULL;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_sweep_parse("s.csv", text, sizeof(text) - 1, 0, &sweep, &err),
	    TP_ERR_PARSE);
	assert_non_null(
	    strstr(err.message, "line 3: column 19: control byte 0x00"));
}

static void test_overlong_line_is_refused(void **state)
{
	char *text = malloc(4096);
	tp_sweep *sweep = NULL;
	tp_error err;

	(void)state;
	assert_non_null(text);
	snprintf(text, 4096, "%s", HEAD);
	memset(text + strlen(text), '1', 2000);
	text[strlen(HEAD) + 2000] = '\0';
	assert_int_equal(parse(text, &sweep, &err), TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 3: longer than 1024 bytes"));
	free(text);
}

static void test_sample_limit_is_enforced(void **state)
{
	const char *text = HEAD "1,1,1,0,0,1\n1,1,1,0,0,1\n1,1,1,0,0,1\n";
	tp_sweep *sweep = NULL;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_sweep_parse("s.csv", text, strlen(text), 2, &sweep, &err),
	    TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, "line 5: more than 2 samples"));
}

static void test_missing_file_is_named(void **state)
{
	tp_sweep *sweep = NULL;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_sweep_read("/nonexistent/sweep.csv", 0, &sweep, &err),
	    TP_ERR_IO);
	assert_non_null(strstr(err.message, "/nonexistent/sweep.csv"));
}

static void test_points_summarise_median_mean_and_p95(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_sweep_point *points;
	size_t count;
	tp_error err;

	(void)state;
	assert_non_null(sweep);
	/* Two intervals; latencies 1..100 at 500 us, 7 at 1000 us. */
	for (int i = 1; i <= 100; i++) {
		tp_sweep_sample s = {4096, 1,         0,          500,
		                     i,    (double)i, TP_SWEEP_IO, 0};

		assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
	}
	{
		tp_sweep_sample s = {4096, 1, 0, 1000, 0, 7, TP_SWEEP_IO, 0};

		assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
	}
	assert_int_equal(tp_sweep_points(sweep, &points, &count, &err), TP_OK);
	assert_int_equal(count, 2);
	assert_true(points[0].interval_us == 500);
	assert_int_equal(points[0].samples, 100);
	assert_true(points[0].median_us == 50.5);
	assert_true(points[0].mean_us == 50.5);
	assert_true(points[0].p95_us > 95 && points[0].p95_us < 96);
	assert_true(points[1].median_us == 7);
	free(points);
	tp_sweep_free(sweep);
}

/* Version 2: the kind column, victim and alone rows, the measured client
 * interval; and its errors name line and column. */
static void test_v2_reads_victims_baseline_and_measured_interval(void **state)
{
	const char *text = TP_SWEEP_MAGIC_V2 " sim\n" TP_SWEEP_HEADER_V2 "\n"
	                                     "4194304,2,0,0,0,3000,io\n"
	                                     "4194304,2,0,0,3500,3000,io\n"
	                                     "4194304,2,0,0,7000,3000,io\n"
	                                     "4194304,2,0,1,10,3000,io\n"
	                                     "4194304,2,0,1,3510,3000,io\n"
	                                     "4194304,2,0,150,5,46,victim\n"
	                                     "4194304,2,0,151,6,46,victim\n"
	                                     "4194304,2,0,150,0,10,alone\n"
	                                     "4194304,2,0,151,0,10,alone\n"
	                                     "4194304,2,6250,0,0,3000,io\n"
	                                     "4194304,2,6250,0,6265,3000,io\n"
	                                     "4194304,2,6250,150,5,11,victim\n";
	tp_sweep *sweep;
	tp_sweep_point *p;
	size_t n;
	tp_error err;

	(void)state;
	if (parse(text, &sweep, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(sweep->count, 12);
	assert_int_equal(sweep->samples[5].kind, TP_SWEEP_VICTIM);
	assert_int_equal(sweep->samples[5].client, 150); /* not < clients */
	assert_int_equal(tp_sweep_points(sweep, &p, &n, &err), TP_OK);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].samples, 5);
	assert_true(p[0].io_interval_us == 3500);
	assert_int_equal(p[0].victim_samples, 2);
	assert_true(p[0].victim_mean_us == 46);
	assert_int_equal(p[1].alone_samples, 2); /* the group's baseline */
	assert_true(p[1].alone_mean_us == 10);
	assert_true(p[1].io_interval_us == 6265);
	assert_int_equal(p[0].runs, 1); /* one run, run 0 */
	assert_int_equal(p[0].worst_run, 0);
	free(p);
	tp_sweep_free(sweep);

	assert_int_equal(parse(TP_SWEEP_MAGIC_V2 "\n" TP_SWEEP_HEADER_V2
	                                         "\n4194304,2,0,0,0,3000,mpi\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
	assert_string_equal(err.message,
	                    "s.csv: line 3: column 22: kind 'mpi': not io, "
	                    "victim or alone");
	assert_int_equal(parse(TP_SWEEP_MAGIC_V2
	                       "\n" TP_SWEEP_HEADER_V2
	                       "\n4194304,2,500,0,0,10,alone\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 3: column 11: an alone row"));
	/* A version 1 header under a version 2 magic line is refused. */
	assert_int_equal(parse(TP_SWEEP_MAGIC_V2 "\n" TP_SWEEP_HEADER
	                                         "\n4194304,2,0,0,0,3000\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
}

/* Write @sweep with tp_sweep_write and parse it back; the text in *text
 * (caller frees). */
static tp_sweep *write_and_read_back(const tp_sweep *sweep, char **text)
{
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	tp_sweep *back = NULL;
	tp_error err;

	assert_non_null(out);
	assert_int_equal(tp_sweep_write(out, "mem", sweep, "test", &err),
	                 TP_OK);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(tp_sweep_parse("mem", *text, len, 0, &back, &err),
	                 TP_OK);
	return back;
}

/* Equal to the 0.001 us the format keeps. */
#define assert_same_time(x, y) assert_true(fabs((x) - (y)) <= 0.0005)

static void assert_same_samples(const tp_sweep *a, const tp_sweep *b)
{
	assert_int_equal(a->count, b->count);
	for (size_t i = 0; i < a->count; i++) {
		const tp_sweep_sample *x = &a->samples[i], *y = &b->samples[i];

		assert_int_equal(x->request_bytes, y->request_bytes);
		assert_int_equal(x->clients, y->clients);
		assert_int_equal(x->client, y->client);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->run, y->run);
		assert_same_time(x->interval_us, y->interval_us);
		assert_same_time(x->start_us, y->start_us);
		assert_same_time(x->latency_us, y->latency_us);
	}
}

static void test_io_only_sweep_is_written_as_v1_and_reads_back(void **state)
{
	tp_sweep *sweep = tp_sweep_new(), *back;
	const tp_sweep_sample rows[] = {
	    {4194304, 2, 0, 1000, 0.5, 812.25, TP_SWEEP_IO, 0},
	    {4194304, 2, 1, 1000, 3.125, 799.0, TP_SWEEP_IO, 0},
	};
	tp_error err;
	char *text = NULL;

	(void)state;
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(tp_sweep_add(sweep, &rows[i], &err), TP_OK);
	assert_int_equal(tp_sweep_version(sweep), 1);
	back = write_and_read_back(sweep, &text);
	/* Version 1 readers (every earlier topoplace) read it. */
	assert_memory_equal(
	    text, TP_SWEEP_MAGIC " test\n" TP_SWEEP_HEADER "\n",
	    strlen(TP_SWEEP_MAGIC " test\n" TP_SWEEP_HEADER "\n"));
	assert_same_samples(sweep, back);
	free(text);
	tp_sweep_free(back);
	tp_sweep_free(sweep);
}

static void test_victim_rows_make_a_v2_file_that_reads_back(void **state)
{
	tp_sweep *sweep = tp_sweep_new(), *back;
	const tp_sweep_sample rows[] = {
	    {4194304, 8, 3, 0, 10.0, 3000.0, TP_SWEEP_IO, 0},
	    {4194304, 8, 120, 0, 12.0, 46.5, TP_SWEEP_VICTIM, 0},
	    {4194304, 8, 120, 0, 0.0, 10.0, TP_SWEEP_VICTIM_ALONE, 0},
	    {4194304, 8, 120, 1800000, 1.0, 11.0, TP_SWEEP_VICTIM, 0},
	};
	tp_error err;
	char *text = NULL;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(tp_sweep_add(sweep, &rows[i], &err), TP_OK);
	assert_int_equal(tp_sweep_version(sweep), 2);
	back = write_and_read_back(sweep, &text);
	assert_memory_equal(text, TP_SWEEP_MAGIC_V2 " test\n",
	                    strlen(TP_SWEEP_MAGIC_V2 " test\n"));
	assert_non_null(
	    strstr(text, "\n4194304,8,0.000,120,0.000,10.000,alone\n"));
	assert_same_samples(sweep, back);
	free(text);
	tp_sweep_free(back);
	tp_sweep_free(sweep);
}

/*
 * Version 3: the run column keeps runs apart.  At 3000 us run 1's victim
 * is at 1.2x its baseline and run 2's at 1.25x over a baseline of 8 us (10
 * us against 12 us: lower in microseconds, worse over its own baseline);
 * pooled, the point would be 11 us over 9 us.  The point keeps the worst
 * run's figures with its baseline, the fewest samples, and the interval
 * that bounds every run's cost.
 */
static void test_v3_runs_are_summarised_apart_and_the_worst_kept(void **state)
{
	const char *text = TP_SWEEP_MAGIC_V3 " two seeds\n" TP_SWEEP_HEADER_V3
	                                     "\n"
	                                     "4096,1,0,0,0,50,io,1\n"
	                                     "4096,1,0,0,2000,50,io,1\n"
	                                     "4096,1,0,0,0,40,io,2\n"
	                                     "4096,1,0,0,1800,40,io,2\n"
	                                     "4096,1,0,0,3600,40,io,2\n"
	                                     "4096,1,0,9,0,10,alone,1\n"
	                                     "4096,1,0,9,0,8,alone,2\n"
	                                     "4096,1,3000,0,0,30,io,1\n"
	                                     "4096,1,3000,0,3000,30,io,1\n"
	                                     "4096,1,3000,0,0,30,io,2\n"
	                                     "4096,1,3000,0,3100,30,io,2\n"
	                                     "4096,1,3000,9,5,12,victim,1\n"
	                                     "4096,1,3000,9,5,10,victim,2\n";
	tp_sweep *sweep;
	tp_sweep_point *p;
	size_t n;
	tp_error err;

	(void)state;
	if (parse(text, &sweep, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(sweep->samples[2].run, 2);
	assert_int_equal(tp_sweep_version(sweep), 3);
	assert_int_equal(tp_sweep_points(sweep, &p, &n, &err), TP_OK);
	assert_int_equal(n, 2);
	/* Unthrottled: the shorter interval (run 2), the slower I/O. */
	assert_int_equal(p[0].runs, 2);
	assert_true(p[0].io_interval_us == 1800);
	assert_true(p[0].median_us == 50);
	assert_int_equal(p[0].samples, 2);
	assert_int_equal(p[0].worst_run, 1); /* no victims: the I/O median */
	/* At 3000 us: run 2's victim over run 2's baseline. */
	assert_int_equal(p[1].runs, 2);
	assert_int_equal(p[1].worst_run, 2);
	assert_true(p[1].victim_mean_us == 10);
	assert_true(p[1].alone_mean_us == 8);
	assert_true(p[1].victim_p99_us == 10 && p[1].alone_p99_us == 8);
	assert_true(p[1].victim_median_us == 12);
	assert_true(p[1].io_interval_us == 3100);
	free(p);
	tp_sweep_free(sweep);
}

/*
 * Beside the bound (the fastest unthrottled run, the slowest throttled
 * one), a point keeps the median run's interval, which the expected cost
 * is counted from: three runs unthrottled at 2000, 1800 and 2600 us give
 * 2000 (the bound 1800); at 3000 us, 3000, 3100 and 3050 give 3050 (the
 * bound 3100); two runs give the mean of the middle two; one run its own.
 */
static void test_points_keep_the_median_runs_interval_beside_the_bound(
    void **state)
{
	const char *text = TP_SWEEP_MAGIC_V3 "\n" TP_SWEEP_HEADER_V3 "\n"
	                                     "4096,1,0,0,0,50,io,1\n"
	                                     "4096,1,0,0,2000,50,io,1\n"
	                                     "4096,1,0,0,0,50,io,2\n"
	                                     "4096,1,0,0,1800,50,io,2\n"
	                                     "4096,1,0,0,0,50,io,3\n"
	                                     "4096,1,0,0,2600,50,io,3\n"
	                                     "4096,1,3000,0,0,30,io,1\n"
	                                     "4096,1,3000,0,3000,30,io,1\n"
	                                     "4096,1,3000,0,0,30,io,2\n"
	                                     "4096,1,3000,0,3100,30,io,2\n"
	                                     "4096,1,3000,0,0,30,io,3\n"
	                                     "4096,1,3000,0,3050,30,io,3\n"
	                                     "4096,1,5000,0,0,30,io,1\n"
	                                     "4096,1,5000,0,5000,30,io,1\n"
	                                     "4096,1,5000,0,0,30,io,3\n"
	                                     "4096,1,5000,0,5200,30,io,3\n"
	                                     "4096,1,8000,0,0,30,io,2\n"
	                                     "4096,1,8000,0,8000,30,io,2\n";
	tp_sweep *sweep;
	tp_sweep_point *p;
	size_t n;
	tp_error err;

	(void)state;
	if (parse(text, &sweep, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(tp_sweep_points(sweep, &p, &n, &err), TP_OK);
	assert_int_equal(n, 4);
	assert_true(p[0].io_interval_us == 1800);
	assert_true(p[0].io_interval_median_us == 2000);
	assert_true(p[1].io_interval_us == 3100);
	assert_true(p[1].io_interval_median_us == 3050);
	assert_int_equal(p[2].runs, 2);
	assert_true(p[2].io_interval_us == 5200);
	assert_true(p[2].io_interval_median_us == 5100);
	assert_int_equal(p[3].runs, 1);
	assert_true(p[3].io_interval_median_us == p[3].io_interval_us);
	free(p);
	tp_sweep_free(sweep);
}

/* A run without alone rows takes the group's first baseline; version 3
 * errors name line and column; a version 2 header under the version 3
 * magic is refused. */
static void test_v3_baseline_fallback_and_errors(void **state)
{
	const char *text = TP_SWEEP_MAGIC_V3 "\n" TP_SWEEP_HEADER_V3 "\n"
	                                     "4096,1,0,9,0,10,alone,4\n"
	                                     "4096,1,500,9,0,30,victim,4\n"
	                                     "4096,1,500,9,0,20,victim,5\n";
	tp_sweep *sweep;
	tp_sweep_point *p;
	size_t n;
	tp_error err;

	(void)state;
	if (parse(text, &sweep, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(tp_sweep_points(sweep, &p, &n, &err), TP_OK);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].worst_run, 4); /* 3x against 2x of 10 us */
	assert_true(p[0].alone_mean_us == 10);
	free(p);
	tp_sweep_free(sweep);

	assert_int_equal(parse(TP_SWEEP_MAGIC_V3 "\n" TP_SWEEP_HEADER_V3
	                                         "\n4096,1,0,0,0,30,io,x\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "s.csv: line 3: column 20: run"));
	assert_int_equal(parse(TP_SWEEP_MAGIC_V3 "\n" TP_SWEEP_HEADER_V3
	                                         "\n4096,1,0,0,0,30,io,1000000\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 3: column 20: run"));
	assert_int_equal(parse(TP_SWEEP_MAGIC_V3 "\n" TP_SWEEP_HEADER_V3
	                                         "\n4096,1,0,0,0,30,io\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 3"));
	assert_int_equal(parse(TP_SWEEP_MAGIC_V3 "\n" TP_SWEEP_HEADER_V2
	                                         "\n4096,1,0,0,0,30,io\n",
	                       &sweep, &err),
	                 TP_ERR_PARSE);
}

static void test_runs_make_a_v3_file_that_reads_back(void **state)
{
	tp_sweep *sweep = tp_sweep_new(), *back;
	const tp_sweep_sample rows[] = {
	    {4194304, 8, 3, 0, 10.0, 3000.0, TP_SWEEP_IO, 0},
	    {4194304, 8, 120, 0, 12.0, 46.5, TP_SWEEP_VICTIM, 3},
	    {4194304, 8, 120, 0, 0.0, 10.0, TP_SWEEP_VICTIM_ALONE, 999999},
	};
	const tp_sweep_sample too_far = {4194304, 8, 1, 0, 0, 1, TP_SWEEP_IO,
	                                 TP_SWEEP_MAX_RUNS};
	tp_error err;
	char *text = NULL;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(tp_sweep_add(sweep, &rows[i], &err), TP_OK);
	assert_int_equal(tp_sweep_add(sweep, &too_far, &err), TP_ERR_INVALID);
	assert_int_equal(tp_sweep_version(sweep), 3);
	back = write_and_read_back(sweep, &text);
	assert_memory_equal(text, TP_SWEEP_MAGIC_V3 " test\n",
	                    strlen(TP_SWEEP_MAGIC_V3 " test\n"));
	assert_non_null(strstr(text, "\n4194304,8,0.000,3,10.000,3000.000,io,0\n"));
	assert_same_samples(sweep, back);
	free(text);
	tp_sweep_free(back);
	tp_sweep_free(sweep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_sweep_is_read_with_every_field),
	    cmocka_unit_test(test_formatted_sample_reads_back),
	    cmocka_unit_test(test_each_malformed_sweep_gives_one_clear_error),
	    cmocka_unit_test(test_nul_byte_inside_input_is_refused),
	    cmocka_unit_test(test_overlong_line_is_refused),
	    cmocka_unit_test(test_sample_limit_is_enforced),
	    cmocka_unit_test(test_missing_file_is_named),
	    cmocka_unit_test(test_points_summarise_median_mean_and_p95),
	    cmocka_unit_test(
	        test_v2_reads_victims_baseline_and_measured_interval),
	    cmocka_unit_test(
	        test_io_only_sweep_is_written_as_v1_and_reads_back),
	    cmocka_unit_test(test_victim_rows_make_a_v2_file_that_reads_back),
	    cmocka_unit_test(
	        test_v3_runs_are_summarised_apart_and_the_worst_kept),
	    cmocka_unit_test(test_v3_baseline_fallback_and_errors),
	    cmocka_unit_test(
	        test_points_keep_the_median_runs_interval_beside_the_bound),
	    cmocka_unit_test(test_runs_make_a_v3_file_that_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
