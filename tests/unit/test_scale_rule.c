/*
 * test_scale_rule.c: the rule for scaling an application's profile to a
 * job of another rank count (profiles/scale_rule.h), on the real runs of
 * tests/data/matrices taken through their stored summaries: NPB-MG keeps
 * MPI_Dims_create's 3-D periodic layout at 16, 64 and 128 ranks and is
 * scaled from the run nearest the job; CoMD and miniGhost are stencils at
 * 64 ranks only and are refused, as are one size, runs that disagree on
 * the grid, older summaries, and hostile stencil lines.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app_identity.h"
#include "convert.h"
#include "scale_rule.h"
#include "summary.h"

static void src_path(const char *rel, char *out, size_t size)
{
	const char *top = getenv("abs_top_srcdir");

	snprintf(out, size, "%s/%s", top ? top : TP_TOP_SRCDIR, rel);
}

/* @profile's summary printed and parsed back, as the store keeps it. */
static void run_of_profile(const tp_profile *profile, tp_scale_run *run)
{
	tp_profile_summary *sum = calloc(1, sizeof(*sum));
	tp_profile_summary *back = calloc(1, sizeof(*back));
	char *text = NULL;
	tp_error err;

	assert_non_null(sum);
	assert_non_null(back);
	assert_int_equal(tp_summary_of_profile(profile, sum, &err), TP_OK);
	/* What the store adds: the file it describes and a credential. */
	strcpy(sum->profile_file, "1.tpp");
	strcpy(sum->credential, "c");
	assert_int_equal(tp_summary_format(sum, &text, &err), TP_OK);
	if (tp_summary_parse("test", text, strlen(text), back, &err) != TP_OK)
		fail_msg("%s\n%s", err.message, text);
	assert_int_equal(back->stencil_state, sum->stencil_state);
	assert_memory_equal(&back->stencil, &sum->stencil, sizeof(sum->stencil));
	tp_scale_run_of_summary(back, run);
	free(text);
	free(sum);
	free(back);
}

/* The real run tests/data/matrices/@name.txt as the rule sees it. */
static void real_run(const char *name, tp_scale_run *run)
{
	char rel[256], path[1024];
	tp_profile *p = NULL;
	tp_error err;

	snprintf(rel, sizeof(rel), "tests/data/matrices/%s.txt", name);
	src_path(rel, path, sizeof(path));
	if (tp_profile_import_matrix(path, NULL, NULL, &p, &err) != TP_OK)
		fail_msg("%s", err.message);
	run_of_profile(p, run);
	tp_profile_free(p);
}

/* A grid of @extent, every rank to both neighbours along each dimension,
 * wrapping where @periodic. */
static void grid_run(unsigned dims, const uint32_t *extent, bool periodic,
                     tp_scale_run *run)
{
	tp_profile_header h = {.ranks = 1};
	uint32_t stride[3];
	tp_profile *p = NULL;

	for (unsigned k = 0; k < dims; k++)
		h.ranks *= extent[k];
	strcpy(h.app, "grid");
	stride[dims - 1] = 1;
	for (unsigned k = dims - 1; k-- > 0;)
		stride[k] = stride[k + 1] * extent[k + 1];
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	for (uint32_t r = 0; r < h.ranks; r++)
		for (unsigned k = 0; k < dims; k++) {
			uint32_t c = (r / stride[k]) % extent[k];
			uint32_t e = extent[k];

			if (c + 1 < e)
				assert_int_equal(tp_profile_add_pair(p, r, r + stride[k], 1000, 10, NULL), TP_OK);
			else if (periodic)
				assert_int_equal(tp_profile_add_pair(p, r, r - c * stride[k], 1000, 10, NULL), TP_OK);
			if (c > 0)
				assert_int_equal(tp_profile_add_pair(p, r, r - stride[k], 1000, 10, NULL), TP_OK);
			else if (periodic)
				assert_int_equal(tp_profile_add_pair(p, r, r + (e - 1) * stride[k], 1000, 10, NULL), TP_OK);
		}
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	run_of_profile(p, run);
	tp_profile_free(p);
}

static void test_npb_mg_is_scaled_from_the_nearest_run(void **state)
{
	tp_scale_run runs[3];
	tp_scale_verdict v;
	tp_profile *scaled = NULL;
	tp_stencil shape;
	tp_error err;

	(void)state;
	real_run("NPB-MG.A-16", &runs[0]);
	real_run("NPB-MG.A-64", &runs[1]);
	assert_int_equal(runs[0].state, TP_STENCIL_FOUND);
	assert_int_equal(runs[1].state, TP_STENCIL_FOUND);

	v = tp_scale_decide(runs, 2, 128);
	assert_true(v.scaled);
	assert_int_equal(v.source, 1);
	assert_string_equal(v.text, "3-D periodic stencil seen at 16, 64 ranks");
	assert_int_equal(tp_scale_build(runs, 2, &v, 128, &scaled, &shape,
	                                &err), TP_OK);
	assert_int_equal(scaled->header.ranks, 128);
	assert_int_equal(shape.extent[0], 8);
	assert_int_equal(shape.extent[1], 4);
	assert_int_equal(shape.extent[2], 4);
	/* Periodic 8x4x4: both neighbours along every dimension. */
	assert_int_equal(scaled->pair_count, 128 * 6);
	tp_profile_free(scaled);

	/* 32 tasks: the 16-rank run is nearer. */
	v = tp_scale_decide(runs, 2, 32);
	assert_true(v.scaled);
	assert_int_equal(v.source, 0);

	/* From 16 to 64 the scaled grid is the real 64-rank run's. */
	v = tp_scale_decide(&runs[0], 1, 64);
	assert_false(v.scaled);
	real_run("NPB-MG.A-128", &runs[2]);
	v = tp_scale_decide(runs, 3, 256);
	assert_true(v.scaled);
	assert_int_equal(v.source, 2);
	assert_string_equal(v.text,
	                    "3-D periodic stencil seen at 16, 64, 128 ranks");
}

static void test_comd_and_minighost_are_refused(void **state)
{
	static const char *apps[] = {"CoMD", "miniGhost"};
	tp_scale_run runs[3];
	tp_scale_verdict v;
	char name[64];

	(void)state;
	for (size_t a = 0; a < 2; a++) {
		snprintf(name, sizeof(name), "%s-16", apps[a]);
		real_run(name, &runs[0]);
		snprintf(name, sizeof(name), "%s-64", apps[a]);
		real_run(name, &runs[1]);
		snprintf(name, sizeof(name), "%s-128", apps[a]);
		real_run(name, &runs[2]);
		/* A stencil at 64 ranks, not at 16 or 128. */
		assert_int_equal(runs[0].state, TP_STENCIL_NONE);
		assert_int_equal(runs[1].state, TP_STENCIL_FOUND);
		assert_int_equal(runs[2].state, TP_STENCIL_NONE);
		v = tp_scale_decide(runs, 3, 256);
		assert_false(v.scaled);
		assert_string_equal(v.text,
		                    "its 16-rank run is not a stencil in "
		                    "MPI_Dims_create's layout");
		v = tp_scale_decide(&runs[1], 2, 256);
		assert_false(v.scaled);
		assert_string_equal(v.text,
		                    "its 128-rank run is not a stencil in "
		                    "MPI_Dims_create's layout");
		/* Its one stencil size alone is not enough either. */
		v = tp_scale_decide(&runs[1], 1, 128);
		assert_false(v.scaled);
		assert_non_null(strstr(v.text, "seen at 64 ranks only"));
	}
}

static void test_one_size_is_refused(void **state)
{
	tp_scale_run runs[2];
	tp_scale_verdict v;
	tp_profile *scaled = (tp_profile *)&v; /* must be reset */
	tp_error err;

	(void)state;
	real_run("NPB-MG.A-64", &runs[0]);
	runs[1] = runs[0]; /* two runs, one rank count */
	v = tp_scale_decide(runs, 2, 128);
	assert_false(v.scaled);
	assert_string_equal(v.text,
	                    "a stencil seen at 64 ranks only: one size does "
	                    "not show the application's layout at another");
	assert_int_equal(tp_scale_build(runs, 2, &v, 128, &scaled, NULL, &err),
	                 TP_ERR_INVALID);
	assert_null(scaled);
}

static void test_grids_that_disagree_are_refused(void **state)
{
	static const uint32_t e44[] = {4, 4}, e444[] = {4, 4, 4};
	static const uint32_t e442[] = {4, 2, 2}, e844[] = {8, 4, 4};
	tp_scale_run runs[2];
	tp_scale_verdict v;

	(void)state;
	/* 2-D at 16 ranks, 3-D at 64. */
	grid_run(2, e44, false, &runs[0]);
	grid_run(3, e444, false, &runs[1]);
	assert_int_equal(runs[0].stencil.dims, 2);
	assert_int_equal(runs[1].stencil.dims, 3);
	v = tp_scale_decide(runs, 2, 128);
	assert_false(v.scaled);
	assert_string_equal(v.text, "its runs disagree on the grid: 2-D 4x4 "
	                            "at 16 ranks, 3-D 4x4x4 at 64");
	/* Periodic at 16, open at 128. */
	grid_run(3, e442, true, &runs[0]);
	grid_run(3, e844, false, &runs[1]);
	v = tp_scale_decide(runs, 2, 64);
	assert_false(v.scaled);
	assert_non_null(strstr(v.text, "disagree"));
	/* Both open: scaled, and said so without "periodic". */
	grid_run(3, e444, false, &runs[0]);
	v = tp_scale_decide(runs, 2, 256);
	assert_true(v.scaled);
	assert_int_equal(v.source, 1);
	assert_string_equal(v.text, "3-D stencil seen at 64, 128 ranks");
}

static void test_task_count_and_run_window(void **state)
{
	tp_scale_run runs[TP_IDENTITY_RUN_CANDIDATES_MAX + 1];
	tp_scale_verdict v;

	(void)state;
	real_run("CoMD-16", &runs[0]); /* the oldest: past the window */
	real_run("NPB-MG.A-16", &runs[1]);
	real_run("NPB-MG.A-64", &runs[2]);
	for (size_t i = 3; i <= TP_IDENTITY_RUN_CANDIDATES_MAX; i++)
		runs[i] = runs[1 + i % 2];
	v = tp_scale_decide(runs, TP_IDENTITY_RUN_CANDIDATES_MAX + 1, 128);
	assert_true(v.scaled);
	assert_int_equal(runs[v.source].ranks, 64);
	/* Of the runs at 64 ranks (the odd indexes), the newest. */
	assert_int_equal(v.source, TP_IDENTITY_RUN_CANDIDATES_MAX - 1);
	/* The oldest is weighed when it is inside the window. */
	v = tp_scale_decide(runs, TP_IDENTITY_RUN_CANDIDATES_MAX, 128);
	assert_false(v.scaled);

	v = tp_scale_decide(&runs[1], 2, 0);
	assert_false(v.scaled);
	assert_string_equal(v.text, "the job gave no task count (-n)");
	v = tp_scale_decide(&runs[1], 2, 1);
	assert_false(v.scaled);
	v = tp_scale_decide(&runs[1], 2, TP_STENCIL_RANKS_MAX + 1);
	assert_false(v.scaled);
	assert_non_null(strstr(v.text, "a scaled profile has 2 to"));
	v = tp_scale_decide(runs, 0, 128);
	assert_false(v.scaled);
}

/* A summary of @ranks ranks whose stencil line is @line. */
static tp_status parse_with_stencil(uint32_t ranks, const char *line,
                                    tp_profile_summary *out, tp_error *err)
{
	char text[2048];

	snprintf(text, sizeof(text),
	         "topoplace-summary 2\nprofile 1.tpp\nprofile_bytes 10\n"
	         "profile_mtime_ns 5\ndigest %064d\nranks %u\n"
	         "duration_us 1\nnet_bytes 1\nnet_msgs 1\nio_read_bytes 0\n"
	         "io_write_bytes 0\nio_requests 0\nio_clients 0\n"
	         "io_request_bytes 0\njob_id 0\napp x\n%s\ncredential c\n",
	         0, ranks, line);
	return tp_summary_parse("sum", text, strlen(text), out, err);
}

static void test_hostile_stencil_lines_are_refused(void **state)
{
	static const char *bad[] = {
	    "stencil",
	    "stencil ",
	    "stencil nope",
	    "stencil 0 periodic= bytes= msgs=",
	    "stencil 4 periodic=1111 bytes=1,1,1,1 msgs=1,1,1,1",
	    "stencil 3 periodic=11 bytes=1,1,1 msgs=1,1,1",
	    "stencil 3 periodic=112 bytes=1,1,1 msgs=1,1,1",
	    "stencil 3 periodic=111 bytes=1,1 msgs=1,1,1",
	    "stencil 3 periodic=111 bytes=1,1,1,1 msgs=1,1,1",
	    "stencil 3 periodic=111 bytes=1,,1 msgs=1,1,1",
	    "stencil 3 periodic=111 bytes=1,1,1 msgs=1,1,1 ",
	    "stencil 3 periodic=111 bytes=1,1,1 msgs=1,1,1 extra",
	    "stencil 3 periodic=111 bytes=1,1,18446744073709551616 "
	    "msgs=1,1,1",
	    "stencil 3 periodic=111 bytes=-1,1,1 msgs=1,1,1",
	    "stencil 3 bytes=1,1,1 periodic=111 msgs=1,1,1",
	    "stencil 3  periodic=111 bytes=1,1,1 msgs=1,1,1",
	};
	tp_profile_summary *s = calloc(1, sizeof(*s));
	tp_scale_run run;
	tp_scale_verdict v;
	tp_error err;

	(void)state;
	assert_non_null(s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_with_stencil(64, bad[i], s, &err) != TP_ERR_PARSE)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(err.message, "line 17"));
	}
	/* 6 ranks make no 3-D grid of extents >= 2 (3x2x1). */
	assert_int_equal(parse_with_stencil(6, "stencil 3 periodic=111 "
	                                       "bytes=1,1,1 msgs=1,1,1",
	                                    s, &err),
	                 TP_ERR_PARSE);
	/* The largest numbers are read as they are. */
	assert_int_equal(parse_with_stencil(64, "stencil 3 periodic=101 "
	                                        "bytes=18446744073709551615,"
	                                        "0,7 msgs=1,2,3",
	                                    s, &err),
	                 TP_OK);
	assert_int_equal(s->stencil_state, TP_STENCIL_FOUND);
	assert_int_equal(s->stencil.extent[0], 4);
	assert_true(s->stencil.periodic[0] && !s->stencil.periodic[1]);
	assert_true(s->stencil.pair_bytes[0] == UINT64_MAX);
	assert_int_equal(s->stencil.pair_msgs[2], 3);
	assert_int_equal(parse_with_stencil(64, "stencil none", s, &err),
	                 TP_OK);
	assert_int_equal(s->stencil_state, TP_STENCIL_NONE);

	/* A run that says FOUND with extents not its ranks' is no stencil. */
	real_run("NPB-MG.A-64", &run);
	{
		tp_scale_run runs[2] = {run, run};

		runs[0].ranks = 16;
		runs[0].stencil.extent[2] = 1;
		v = tp_scale_decide(runs, 2, 128);
		assert_false(v.scaled);
		assert_non_null(strstr(v.text, "its 16-rank run is not"));
		runs[0] = run;
		runs[0].ranks = 32;
		runs[0].stencil.dims = 4;
		v = tp_scale_decide(runs, 2, 128);
		assert_false(v.scaled);
		runs[0].ranks = 0; /* a summary that could not be read */
		v = tp_scale_decide(runs, 2, 128);
		assert_false(v.scaled);
		assert_string_equal(v.text, "a run's summary cannot be read");
	}
	free(s);
}

static void test_version_1_summary_has_no_stencil_facts(void **state)
{
	char text[2048];
	tp_profile_summary *s = calloc(1, sizeof(*s));
	tp_scale_run runs[2];
	tp_scale_verdict v;
	tp_error err;

	(void)state;
	snprintf(text, sizeof(text),
	         "topoplace-summary 1\nprofile 1.tpp\nprofile_bytes 10\n"
	         "profile_mtime_ns 5\ndigest %064d\nranks 16\n"
	         "duration_us 1\nnet_bytes 1\nnet_msgs 1\nio_read_bytes 0\n"
	         "io_write_bytes 0\nio_requests 0\nio_clients 0\n"
	         "io_request_bytes 0\njob_id 0\napp x\ncredential c\n",
	         0);
	assert_int_equal(tp_summary_parse("v1", text, strlen(text), s, &err),
	                 TP_OK);
	assert_int_equal(s->stencil_state, TP_STENCIL_UNKNOWN);
	tp_scale_run_of_summary(s, &runs[0]);
	real_run("NPB-MG.A-64", &runs[1]);
	v = tp_scale_decide(runs, 2, 128);
	assert_false(v.scaled);
	assert_non_null(strstr(v.text, "its 16-rank run's summary predates "
	                               "stencil facts"));
	/* Written back, it stays a version 1 summary whose stencil is
	 * unknown (not "stencil none"): it reads back the same. */
	{
		tp_profile_summary *again = calloc(1, sizeof(*again));
		char *out = NULL;

		assert_non_null(again);
		assert_int_equal(tp_summary_format(s, &out, &err), TP_OK);
		assert_string_equal(out, text);
		assert_int_equal(
		    tp_summary_parse("again", out, strlen(out), again, &err),
		    TP_OK);
		assert_memory_equal(s, again, sizeof(*s));
		free(out);
		free(again);
	}
	/* Version 2 without its stencil line is not a summary. */
	text[18] = '2';
	assert_int_equal(tp_summary_parse("v2", text, strlen(text), s, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 17: expected 'stencil"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_npb_mg_is_scaled_from_the_nearest_run),
	    cmocka_unit_test(test_comd_and_minighost_are_refused),
	    cmocka_unit_test(test_one_size_is_refused),
	    cmocka_unit_test(test_grids_that_disagree_are_refused),
	    cmocka_unit_test(test_task_count_and_run_window),
	    cmocka_unit_test(test_hostile_stencil_lines_are_refused),
	    cmocka_unit_test(test_version_1_summary_has_no_stencil_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
