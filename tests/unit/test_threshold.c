/*
 * test_threshold.c: knee detection on synthetic curves (clean, noisy, no
 * knee, too few points), the threshold table file and log-log
 * interpolation with its extrapolated flag.
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

#include "threshold.h"

static const double intervals[] = {250,  500,  1000, 1500,
                                   2000, 3000, 4000, 8000};
#define NINTERVALS (sizeof(intervals) / sizeof(intervals[0]))

/* Deterministic uniform noise in [-1, 1]. */
static double noise(uint32_t *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (double)(*seed >> 8) / (double)(1u << 23) - 1.0;
}

/* The true curve: plateau 1000 us; below 2000 us latency grows as
 * (2000 / interval)^2, so it crosses 1.5 x plateau at 2000/sqrt(1.5). */
static double true_median(double interval_us)
{
	double r = 2000.0 / interval_us;

	return 1000.0 * (r > 1 ? r * r : 1);
}

/* Samples of one (size, clients) curve; @spread relative noise; every
 * @outlier_every-th sample (0: none) is 5x slower (heavy tail). */
static void add_curve(tp_sweep *sweep, uint64_t bytes, uint32_t clients,
                      double (*curve)(double), size_t samples, double spread,
                      int outlier_every, uint32_t seed)
{
	tp_error err;

	for (size_t i = 0; i < NINTERVALS; i++)
		for (size_t k = 0; k < samples; k++) {
			double lat =
			    curve(intervals[i]) * (1 + spread * noise(&seed));
			tp_sweep_sample s = {bytes,
			                     clients,
			                     (uint32_t)(k % clients),
			                     intervals[i],
			                     (double)k * intervals[i],
			                     0,
			                     TP_SWEEP_IO, 0};

			if (outlier_every && k % (size_t)outlier_every == 0)
				lat *= 5;
			s.latency_us = lat;
			assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
		}
}

static tp_status detect(tp_sweep *sweep, tp_threshold *th, tp_error *err)
{
	tp_sweep_point *points;
	size_t count;
	tp_status st;

	assert_int_equal(tp_sweep_points(sweep, &points, &count, err), TP_OK);
	st = tp_threshold_detect(points, count, NULL, th, err);
	free(points);
	return st;
}

static void test_clean_curve_threshold_is_at_the_known_knee(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	double expected = 2000.0 / sqrt(1.5); /* 1633 us */
	tp_threshold th;
	tp_error err;

	(void)state;
	add_curve(sweep, 4194304, 4, true_median, 30, 0.02, 0, 1);
	assert_int_equal(detect(sweep, &th, &err), TP_OK);
	assert_true(th.knee_us == 1500 && th.safe_us == 2000);
	assert_true(fabs(th.threshold_us - expected) / expected < 0.05);
	assert_true(fabs(th.plateau_us - 1000) < 30);
	assert_true(th.confidence > 0.8 && th.confidence <= 1);
	tp_sweep_free(sweep);
}

static void test_noisy_heavy_tailed_curve_still_finds_the_knee(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold th;
	tp_error err;

	(void)state;
	/* +-30 % noise and one sample in 7 five times slower. */
	add_curve(sweep, 4194304, 4, true_median, 40, 0.3, 7, 42);
	assert_int_equal(detect(sweep, &th, &err), TP_OK);
	assert_true(th.threshold_us >= 1500 && th.threshold_us <= 2000);
	assert_true(th.confidence > 0 && th.confidence <= 1);
	tp_sweep_free(sweep);
}

static double spike_median(double interval_us)
{
	/* A lone congested point at 3000 us is noise, not a knee. */
	return interval_us == 3000 ? 3000 : true_median(interval_us);
}

static void test_single_congested_point_is_not_a_knee(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold th;
	tp_error err;

	(void)state;
	add_curve(sweep, 1048576, 2, spike_median, 20, 0.01, 0, 5);
	assert_int_equal(detect(sweep, &th, &err), TP_OK);
	assert_true(th.knee_us == 1500);
	/* The bracket skips the spike: crossing below the next calm point. */
	assert_true(th.threshold_us >= 1500 && th.threshold_us <= 2000);
	tp_sweep_free(sweep);
}

static double flat(double interval_us)
{
	(void)interval_us;
	return 900;
}

static void test_flat_curve_says_no_knee(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold th;
	tp_error err;

	(void)state;
	add_curve(sweep, 524288, 8, flat, 20, 0.1, 0, 9);
	assert_int_equal(detect(sweep, &th, &err), TP_ERR_NOTFOUND);
	assert_non_null(
	    strstr(err.message, "524288 bytes x 8 clients: no knee"));
	tp_sweep_free(sweep);
}

static double always_rising(double interval_us)
{
	return 1e7 / interval_us;
}

static void test_curve_congested_everywhere_says_no_knee(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold th;
	tp_error err;

	(void)state;
	add_curve(sweep, 524288, 8, always_rising, 20, 0.0, 0, 9);
	assert_int_equal(detect(sweep, &th, &err), TP_ERR_NOTFOUND);
	/* Both statistics tried, both reasons given. */
	assert_non_null(
	    strstr(err.message, "no knee: median I/O latency never settles"));
	assert_non_null(strstr(err.message, "; p99 I/O latency never settles"));
	tp_sweep_free(sweep);
}

static void test_too_few_points_are_refused(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold th;
	tp_error err;

	(void)state;
	/* 3 samples per interval: below min_samples 5, so no usable one. */
	add_curve(sweep, 4096, 1, true_median, 3, 0.0, 0, 3);
	assert_int_equal(detect(sweep, &th, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message,
	                       "4096 bytes x 1 clients: too few points: 0 "
	                       "intervals with at least 5 samples, need 5"));
	tp_sweep_free(sweep);
}

struct warnings {
	int count;
	char last[TP_ERROR_MESSAGE_MAX];
};

static void count_warnings(void *data, tp_log_level level, const char *msg)
{
	struct warnings *w = data;

	if (level == TP_LOG_WARNING) {
		w->count++;
		snprintf(w->last, sizeof(w->last), "%s", msg);
	}
}

static void
test_table_from_sweep_keeps_good_groups_and_logs_refusals(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold_table *table = NULL;
	struct warnings w = {0, ""};
	tp_logger logger = {count_warnings, &w, TP_LOG_DEBUG};
	tp_error err;

	(void)state;
	add_curve(sweep, 4194304, 4, true_median, 20, 0.01, 0, 1);
	add_curve(sweep, 524288, 4, flat, 20, 0.01, 0, 2);
	assert_int_equal(
	    tp_threshold_table_from_sweep(sweep, NULL, &logger, &table, &err),
	    TP_OK);
	assert_int_equal(table->count, 1);
	assert_int_equal(table->entries[0].request_bytes, 4194304);
	assert_int_equal(w.count, 1);
	assert_non_null(strstr(w.last, "524288 bytes x 4 clients: no knee"));
	tp_threshold_table_free(table);
	tp_sweep_free(sweep);
}

static void test_sweep_without_any_knee_gives_no_table(void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold_table *table = NULL;
	tp_error err;

	(void)state;
	add_curve(sweep, 524288, 4, flat, 20, 0.01, 0, 2);
	assert_int_equal(
	    tp_threshold_table_from_sweep(sweep, NULL, NULL, &table, &err),
	    TP_ERR_NOTFOUND);
	assert_null(table);
	assert_non_null(strstr(err.message, "no threshold in the sweep"));
	assert_non_null(strstr(err.message, "no knee"));
	tp_sweep_free(sweep);
}

static tp_threshold_table *grid(void)
{
	tp_threshold_table *t = calloc(1, sizeof(*t));
	const tp_threshold e[] = {
	    {1 << 20, 1, 500, 100, 1, 0, 0, NULL},
	    {4 << 20, 1, 2000, 400, 1, 0, 0, NULL},
	    {1 << 20, 4, 2000, 100, 1, 0, 0, NULL},
	    {4 << 20, 4, 8000, 400, 1, 0, 0, NULL},
	};
	tp_error err;

	assert_non_null(t);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(tp_threshold_table_add(t, &e[i], &err), TP_OK);
	return t;
}

static void test_lookup_interpolates_log_log_between_measurements(void **state)
{
	tp_threshold_table *t = grid();
	tp_threshold_estimate est;
	tp_error err;

	(void)state;
	assert_int_equal(tp_threshold_lookup(t, 4 << 20, 4, &est, &err), TP_OK);
	assert_true(est.exact && !est.extrapolated);
	assert_true(est.threshold_us == 8000);
	/* 2 MiB x 2 clients: geometric middle of both axes. */
	assert_int_equal(tp_threshold_lookup(t, 2 << 20, 2, &est, &err), TP_OK);
	assert_false(est.exact);
	assert_false(est.extrapolated);
	assert_true(fabs(est.threshold_us - 2000) < 1e-6);
	tp_threshold_table_free(t);
}

static void test_lookup_outside_the_table_says_extrapolated(void **state)
{
	tp_threshold_table *t = grid();
	tp_threshold_estimate est;
	tp_error err;

	(void)state;
	assert_int_equal(tp_threshold_lookup(t, 8 << 20, 4, &est, &err), TP_OK);
	assert_true(est.extrapolated);
	assert_true(fabs(est.threshold_us - 16000) < 1e-6);
	assert_int_equal(tp_threshold_lookup(t, 2 << 20, 64, &est, &err),
	                 TP_OK);
	assert_true(est.extrapolated);
	assert_true(est.threshold_us > 4000); /* grows with clients */
	tp_threshold_table_free(t);
}

static void test_table_file_round_trips_and_bad_tables_are_refused(void **state)
{
	tp_threshold_table *t = grid(), *back = NULL;
	char text[1024], line[128];
	size_t n;
	tp_error err;
	static const struct {
		const char *text, *what;
	} bad[] = {
	    {"# topoplace-sweep v1\n", "line 1: column 1: not a topoplace "
	                               "threshold table"},
	    {TP_THRESHOLD_MAGIC "\n" TP_THRESHOLD_HEADER "\n",
	     "no thresholds in the table"},
	    {TP_THRESHOLD_MAGIC "\n" TP_THRESHOLD_HEADER "\n1024,1,0,1,1\n",
	     "line 3: column 8: threshold_us '0': out of range"},
	    {TP_THRESHOLD_MAGIC "\n" TP_THRESHOLD_HEADER "\n1024,1,10,1,1.5\n",
	     "line 3: column 13: confidence '1.5': out of range"},
	    {TP_THRESHOLD_MAGIC "\n" TP_THRESHOLD_HEADER
	                        "\n1024,1,10,1,1\n1024,1,20,1,1\n",
	     "t.csv: line 4: threshold table: 1024 bytes x 1 clients "
	     "given twice"},
	};

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "%s\n%s\n", TP_THRESHOLD_MAGIC,
	                     TP_THRESHOLD_HEADER);
	for (size_t i = 0; i < t->count; i++) {
		assert_true(tp_threshold_format(&t->entries[i], line,
		                                sizeof(line)) > 0);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", line);
	}
	assert_int_equal(
	    tp_threshold_table_parse("t.csv", text, n, &back, &err), TP_OK);
	assert_int_equal(back->count, 4);
	for (size_t i = 0; i < 4; i++)
		assert_true(back->entries[i].threshold_us ==
		            t->entries[i].threshold_us);
	tp_threshold_table_free(back);
	tp_threshold_table_free(t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		back = NULL;
		assert_int_not_equal(
		    tp_threshold_table_parse("t.csv", bad[i].text,
		                             strlen(bad[i].text), &back, &err),
		    TP_OK);
		assert_null(back);
		if (!strstr(err.message, bad[i].what))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.message,
			         bad[i].what);
	}
}

/*
 * Interference in the tail only (the issue, with MPI latency as the
 * victim): at every window the victim median is the no-I/O 10 us, but 2%
 * of the messages wait behind an I/O burst, 540 us (54x) unthrottled,
 * falling to nothing at long windows.  The median has no knee; the p99
 * has one, and says so.  With nothing moving at all, "no knee" stays.
 */
static void add_tail_curve(tp_sweep *sweep, bool tail_moves)
{
	const double windows[] = {0, 2000, 4000, 6250, 10000, 20000, 40000};
	const double stuck_x[] = {54, 30, 12, 4.9, 1.1, 1.0, 1.0};
	tp_error err;

	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		for (uint32_t v = 0; v < 200; v++) {
			double lat = 10;
			tp_sweep_sample s;

			if (tail_moves && v % 50 == 0)
				lat = 10 * stuck_x[i];
			s = (tp_sweep_sample){4 << 20, 8, v,  windows[i],
			                      v,       lat, TP_SWEEP_VICTIM, 0};
			assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
		}
		for (uint32_t c = 0; c < 8; c++) {
			tp_sweep_sample s = {4 << 20, 8,    c, windows[i],
			                     c,       3000, TP_SWEEP_IO, 0};

			assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
		}
	}
}

static void test_knee_in_the_tail_is_found_when_the_median_is_flat(
    void **state)
{
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold th;
	tp_error err;

	(void)state;
	add_tail_curve(sweep, true);
	if (detect(sweep, &th, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_string_equal(th.statistic, "p99 victim");
	/* p99 congested (> 1.5x the plateau) at 6.25 ms (4.9x), calm at
	 * 10 ms (1.1x). */
	assert_true(th.knee_us == 6250);
	assert_true(th.safe_us == 10000);
	assert_true(th.threshold_us > 6250 && th.threshold_us <= 10000);
	tp_sweep_free(sweep);

	sweep = tp_sweep_new();
	add_tail_curve(sweep, false);
	assert_int_equal(detect(sweep, &th, &err), TP_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, "no knee: median victim latency "
	                                    "stays within"));
	assert_non_null(strstr(err.message, "; p99 victim latency stays within"));
	tp_sweep_free(sweep);
}

/* Run @run of a tail-only curve: 2% of 200 victim messages wait
 * @stuck_x[i] times the 10 us no-I/O latency at window i. */
static void add_tail_run(tp_sweep *sweep, const double *stuck_x, uint32_t run)
{
	const double windows[] = {0, 2000, 4000, 6250, 10000, 20000, 40000};
	tp_error err;

	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		for (uint32_t v = 0; v < 200; v++) {
			tp_sweep_sample s = {
			    4 << 20, 8, v, windows[i], v,
			    v % 50 == 0 ? 10 * stuck_x[i] : 10, TP_SWEEP_VICTIM,
			    run};

			assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
		}
		for (uint32_t c = 0; c < 8; c++) {
			tp_sweep_sample s = {4 << 20,    8,    c, windows[i], c,
			                     3000,       TP_SWEEP_IO, run};

			assert_int_equal(tp_sweep_add(sweep, &s, &err), TP_OK);
		}
	}
}

/* A refused table and what its error must say. */
struct bad_table {
	const char *text, *what;
};

/* Each of the @count tables of @bad is refused as TP_ERR_PARSE, its
 * error saying its .what. */
static void expect_bad_tables(const struct bad_table *bad, size_t count)
{
	tp_threshold_table *back;
	tp_error err;

	for (size_t i = 0; i < count; i++) {
		back = NULL;
		assert_int_equal(tp_threshold_table_parse("t.csv", bad[i].text,
		                                          strlen(bad[i].text),
		                                          &back, &err),
		                 TP_ERR_PARSE);
		assert_null(back);
		if (!strstr(err.message, bad[i].what))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.message,
			         bad[i].what);
	}
}

/* A table of @entry with its @count curve points. */
static tp_threshold_table *curve_table(const tp_threshold *entry,
                                       const tp_curve_point *curve,
                                       size_t count)
{
	tp_threshold_table *t = calloc(1, sizeof(*t));
	tp_error err;

	assert_non_null(t);
	assert_int_equal(tp_threshold_table_add(t, entry, &err), TP_OK);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(
		    tp_threshold_table_add_curve(t, &curve[i], &err), TP_OK);
	return t;
}

/* The curve of @t's first entry as a version @version table, each line
 * by @format, into @text; its length. */
static size_t write_curve(const tp_threshold_table *t, int version,
                          int (*format)(const tp_threshold *,
                                        const tp_curve_point *, char *, size_t),
                          char *text, size_t size)
{
	char line[200];
	size_t n;

	n = (size_t)snprintf(text, size, "%s\n%s\n",
	                     tp_threshold_magic(version),
	                     tp_threshold_header(version));
	for (size_t i = 0; i < t->curve_count; i++) {
		assert_true(format(&t->entries[0], &t->curve[i], line,
		                   sizeof(line)) > 0);
		n += (size_t)snprintf(text + n, size - n, "%s", line);
	}
	return n;
}

/*
 * Two runs of a sweep: run 2's tail settles one window later.  Pooled,
 * the p99 of both would be calm at 10 ms (run 1's messages outnumber run
 * 2's stuck ones); the worst run per window puts the knee at 10 ms, calm
 * at 20 ms.  The table keeps the runs (version 3), and reads back.
 */
static void test_knee_and_table_of_several_runs_follow_the_worst(void **state)
{
	static const double run1[] = {54, 30, 12, 4.9, 1.1, 1.0, 1.0};
	static const double run2[] = {54, 30, 20, 12, 4.9, 1.0, 1.0};
	tp_sweep *sweep = tp_sweep_new();
	tp_threshold_table *t = NULL, *back = NULL;
	char text[4096], line[160];
	size_t n;
	tp_error err;

	(void)state;
	add_tail_run(sweep, run1, 1);
	add_tail_run(sweep, run2, 2);
	if (tp_threshold_table_from_sweep(sweep, NULL, NULL, &t, &err) != TP_OK)
		fail_msg("%s", err.message);
	tp_sweep_free(sweep);
	assert_int_equal(t->count, 1);
	assert_true(t->entries[0].knee_us == 10000);
	assert_true(t->entries[0].safe_us == 20000);
	assert_int_equal(t->curve_count, 7);
	assert_int_equal(t->curve[4].runs, 2);
	assert_int_equal(t->curve[4].worst_run, 2);
	assert_true(fabs(t->curve[4].victim_p99_x - 4.9) < 0.1);
	/* No client made two requests: no interval, so no median. */
	assert_int_equal(tp_threshold_table_version(t), 3);

	/* Version 3 (no median) reads back, and would be written back as
	 * version 3. */
	n = (size_t)snprintf(text, sizeof(text), "%s\n%s\n",
	                     TP_THRESHOLD_MAGIC_V3, TP_THRESHOLD_HEADER_V3);
	for (size_t i = 0; i < t->curve_count; i++) {
		assert_true(tp_threshold_format_v3(&t->entries[0], &t->curve[i],
		                                   line, sizeof(line)) > 0);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", line);
	}
	if (tp_threshold_table_parse("t.csv", text, n, &back, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(back->curve_count, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(back->curve[i].runs, t->curve[i].runs);
		assert_int_equal(back->curve[i].worst_run,
		                 t->curve[i].worst_run);
		assert_true(back->curve[i].io_interval_median_us == 0);
	}
	assert_int_equal(tp_threshold_table_version(back), 3);
	tp_threshold_table_free(back);
	tp_threshold_table_free(t);
	/* A version 2 table reads as one run. */
	back = NULL;
	assert_int_equal(tp_threshold_table_parse(
	                     "t.csv",
	                     TP_THRESHOLD_MAGIC_V2 "\n" TP_THRESHOLD_HEADER_V2
	                                           "\n1024,1,10,1,1,0,100,1,1\n",
	                     strlen(TP_THRESHOLD_MAGIC_V2 "\n" TP_THRESHOLD_HEADER_V2
	                                                  "\n1024,1,10,1,1,0,100,1,1\n"),
	                     &back, &err),
	                 TP_OK);
	assert_int_equal(back->curve[0].runs, 1);
	assert_int_equal(tp_threshold_table_version(back), 2);
	tp_threshold_table_free(back);
}

static void test_bad_v3_tables_name_line_and_column(void **state)
{
	static const struct bad_table bad[] = {
	    {TP_THRESHOLD_MAGIC_V3 "\n" TP_THRESHOLD_HEADER_V3
	                           "\n1024,1,10,1,1,0,100,1,1,0,0\n",
	     "t.csv: line 3: column 25: runs '0': out of range"},
	    {TP_THRESHOLD_MAGIC_V3 "\n" TP_THRESHOLD_HEADER_V3
	                           "\n1024,1,10,1,1,0,100,1,1,2,1000000\n",
	     "t.csv: line 3: column 27: worst_run '1000000': out of range"},
	    {TP_THRESHOLD_MAGIC_V3 "\n" TP_THRESHOLD_HEADER_V3
	                           "\n1024,1,10,1,1,0,100,1,1\n",
	     "t.csv: line 3"},
	    {TP_THRESHOLD_MAGIC_V3 "\n" TP_THRESHOLD_HEADER_V2
	                           "\n1024,1,10,1,1,0,100,1,1\n",
	     "t.csv: line 2"},
	};

	(void)state;
	expect_bad_tables(bad, sizeof(bad) / sizeof(bad[0]));
}

/*
 * A curve of three runs with intervals measured: version 4, each window
 * with its median run's interval beside the bound; it reads back the
 * same, and a version 4 table read back is written as version 4 again.
 */
static void test_v4_table_keeps_the_median_run_and_reads_back(void **state)
{
	static const tp_threshold entry = {4096, 2, 2500, 100, 0.9,
	                                   2500, 2500, NULL};
	static const tp_curve_point curve[] = {
	    {4096, 2, 0, 1800, 3.0, 9.0, 3, 2, 2000, 0, 0},
	    {4096, 2, 3000, 3100, 1.1, 2.0, 3, 1, 3050, 0, 0},
	    {4096, 2, 6000, 6000, 1.0, 1.0, 1, 0, 6000, 0, 0},
	};
	tp_threshold_table *t = curve_table(&entry, curve, 3), *back = NULL;
	char text[2048];
	size_t n;
	tp_error err;

	(void)state;
	assert_int_equal(tp_threshold_table_version(t), 4);
	n = write_curve(t, 4, tp_threshold_format_v4, text, sizeof(text));
	assert_non_null(strstr(text, ",3100.000,1.1000,2.0000,3,1,3050.000\n"));
	if (tp_threshold_table_parse("t.csv", text, n, &back, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(back->curve_count, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_true(back->curve[i].io_interval_us ==
		            curve[i].io_interval_us);
		assert_true(back->curve[i].io_interval_median_us ==
		            curve[i].io_interval_median_us);
		assert_int_equal(back->curve[i].runs, curve[i].runs);
	}
	assert_int_equal(tp_threshold_table_version(back), 4);
	tp_threshold_table_free(back);
	tp_threshold_table_free(t);
}

/* A version 4 line's median-run interval is checked against its bound
 * and its runs; each refusal names the file, the line and the column. */
static void test_bad_v4_tables_name_line_and_column(void **state)
{
#define V4 TP_THRESHOLD_MAGIC_V4 "\n" TP_THRESHOLD_HEADER_V4 "\n"
	static const struct bad_table bad[] = {
	    {V4 "1024,1,10,1,1,0,2000,1,1,3,1,1900\n",
	     "t.csv: line 3: column 30: io_interval_median_us 1900.000 is "
	     "below io_interval_us, the fastest run's, at window 0 (2000.000)"},
	    {V4 "1024,1,10,1,1,4000,4100,1,1,3,1,4200\n",
	     "t.csv: line 3: column 33: io_interval_median_us 4200.000 is "
	     "above io_interval_us, the slowest run's (4100.000)"},
	    {V4 "1024,1,10,1,1,4000,4100,1,1,1,0,4000\n",
	     "t.csv: line 3: column 33: io_interval_median_us 4000.000 must "
	     "equal io_interval_us for a window of one run (4100.000)"},
	    {V4 "1024,1,10,1,1,4000,0,1,1,3,1,4000\n",
	     "t.csv: line 3: column 30: io_interval_median_us 4000.000 must "
	     "be 0 exactly when io_interval_us is (not measured) (0.000)"},
	    {V4 "1024,1,10,1,1,4000,4100,1,1,3,1,0\n",
	     "t.csv: line 3: column 33: io_interval_median_us 0.000 must be "
	     "0 exactly when io_interval_us is"},
	    {V4 "1024,1,10,1,1,4000,4100,1,1,3,1,nan\n",
	     "t.csv: line 3: column 33: io_interval_median_us 'nan'"},
	    {V4 "1024,1,10,1,1,4000,4100,1,1,3,1\n", "t.csv: line 3"},
	    {TP_THRESHOLD_MAGIC_V4 "\n" TP_THRESHOLD_HEADER_V3
	                           "\n1024,1,10,1,1,0,100,1,1,1,0\n",
	     "t.csv: line 2"},
	};
#undef V4

	(void)state;
	expect_bad_tables(bad, sizeof(bad) / sizeof(bad[0]));
}

/*
 * A curve of three runs with the spread of their victim slowdowns:
 * version 5; the mean and the standard deviation read back, and a
 * version 5 table read back is written as version 5 again.
 */
static void test_v5_table_keeps_the_runs_spread_and_reads_back(void **state)
{
	static const tp_threshold entry = {4096, 2, 2500, 100, 0.9,
	                                   2500, 2500, NULL};
	static const tp_curve_point curve[] = {
	    {4096, 2, 0, 1800, 3.0, 9.0, 3, 2, 2000, 2.8, 0.15},
	    {4096, 2, 3000, 3100, 1.1, 2.0, 3, 1, 3050, 1.05, 0.0432},
	    {4096, 2, 6000, 6000, 1.0, 1.0, 1, 0, 6000, 0, 0},
	};
	tp_threshold_table *t = curve_table(&entry, curve, 3), *back = NULL;
	char text[2048];
	size_t n;
	tp_error err;

	(void)state;
	assert_int_equal(tp_threshold_table_version(t), 5);
	n = write_curve(t, 5, tp_threshold_format_v5, text, sizeof(text));
	assert_non_null(strstr(
	    text, ",3100.000,1.1000,2.0000,3,1,3050.000,1.0500,0.0432\n"));
	if (tp_threshold_table_parse("t.csv", text, n, &back, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(back->curve_count, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_true(back->curve[i].victim_mean_x_mean ==
		            curve[i].victim_mean_x_mean);
		assert_true(back->curve[i].victim_mean_x_sd ==
		            curve[i].victim_mean_x_sd);
	}
	assert_int_equal(tp_threshold_table_version(back), 5);
	tp_threshold_table_free(back);
	tp_threshold_table_free(t);
}

/* A version 5 line's spread is checked against its worst run and its
 * runs; each refusal names the file, the line and the column. */
static void test_bad_v5_tables_name_line_and_column(void **state)
{
#define V5 TP_THRESHOLD_MAGIC_V5 "\n" TP_THRESHOLD_HEADER_V5 "\n"
	static const struct bad_table bad[] = {
	    {V5 "1024,1,10,1,1,4000,4100,1.1,1,3,1,4000,1.2,0.01\n",
	     "t.csv: line 3: column 40: victim_mean_x_mean 1.2000 is above "
	     "victim_mean_x, the worst run's (1.1000)"},
	    {V5 "1024,1,10,1,1,4000,4100,0,0,3,1,4000,1.2,0.01\n",
	     "victim_mean_x_mean 1.2000 is given where victim_mean_x is not"},
	    {V5 "1024,1,10,1,1,4000,4100,1.1,1,1,0,4100,1.1,0.01\n",
	     "must be victim_mean_x with sd 0 for a window of one run"},
	    {V5 "1024,1,10,1,1,4000,4100,1.1,1,3,1,4000,0,0.01\n",
	     "is 0 (not given) but its sd is not"},
	    {V5 "1024,1,10,1,1,4000,4100,1.1,1,3,1,4000,1.0,-1\n",
	     "t.csv: line 3: column 44: victim_mean_x_sd '-1'"},
	    {V5 "1024,1,10,1,1,4000,4100,1.1,1,3,1,4000,1.0\n", "t.csv: line 3"},
	};
#undef V5

	(void)state;
	expect_bad_tables(bad, sizeof(bad) / sizeof(bad[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clean_curve_threshold_is_at_the_known_knee),
	    cmocka_unit_test(
	        test_noisy_heavy_tailed_curve_still_finds_the_knee),
	    cmocka_unit_test(test_single_congested_point_is_not_a_knee),
	    cmocka_unit_test(test_flat_curve_says_no_knee),
	    cmocka_unit_test(test_curve_congested_everywhere_says_no_knee),
	    cmocka_unit_test(test_too_few_points_are_refused),
	    cmocka_unit_test(
	        test_table_from_sweep_keeps_good_groups_and_logs_refusals),
	    cmocka_unit_test(test_sweep_without_any_knee_gives_no_table),
	    cmocka_unit_test(
	        test_lookup_interpolates_log_log_between_measurements),
	    cmocka_unit_test(test_lookup_outside_the_table_says_extrapolated),
	    cmocka_unit_test(
	        test_table_file_round_trips_and_bad_tables_are_refused),
	    cmocka_unit_test(
	        test_knee_in_the_tail_is_found_when_the_median_is_flat),
	    cmocka_unit_test(
	        test_knee_and_table_of_several_runs_follow_the_worst),
	    cmocka_unit_test(test_bad_v3_tables_name_line_and_column),
	    cmocka_unit_test(test_v4_table_keeps_the_median_run_and_reads_back),
	    cmocka_unit_test(test_bad_v4_tables_name_line_and_column),
	    cmocka_unit_test(test_v5_table_keeps_the_runs_spread_and_reads_back),
	    cmocka_unit_test(test_bad_v5_tables_name_line_and_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
