/*
 * test_profile_convert.c: importers (matrix text + .coll, Open MPI
 * monitoring) give exact counts and refuse bad input by file and line;
 * exporters (traffic, dense, Scotch) give exact text.
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

#include "convert.h"
#include "profile.h"

static void src_path(const char *rel, char *out, size_t size)
{
	const char *top = getenv("abs_top_srcdir");

	snprintf(out, size, "%s/%s", top ? top : TP_TOP_SRCDIR, rel);
}

static tp_profile *small_profile(void)
{
	tp_profile_header h = {.ranks = 3};
	tp_profile *p;

	strcpy(h.app, "small");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 10, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 1, 0, 5, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 2, 0, 7, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 2, 2, 9, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	return p;
}

static void test_matrix_import_keeps_every_pair_and_collectives(void **s)
{
	char path[1024];
	tp_profile *p;
	tp_error err;

	(void)s;
	src_path("tests/data/matrices/LULESH-8.txt", path, sizeof(path));
	if (tp_profile_import_matrix(path, NULL, NULL, &p, &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_string_equal(p->header.app, "LULESH");
	assert_int_equal(p->header.ranks, 8);
	/* Header line: total_bytes=... nnz_pairs=... runtime_s=... */
	{
		FILE *f = fopen(path, "r");
		char line[1024];
		unsigned long long total = 0, nnz = 0;
		double rt = 0;

		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		assert_non_null(strstr(line, "total_bytes="));
		sscanf(strstr(line, "total_bytes="), "total_bytes=%llu",
		       &total);
		sscanf(strstr(line, "nnz_pairs="), "nnz_pairs=%llu", &nnz);
		sscanf(strstr(line, "runtime_s="), "runtime_s=%lf", &rt);
		assert_int_equal(tp_profile_total_bytes(p), total);
		assert_int_equal(p->pair_count, nnz);
		assert_int_equal(p->header.duration_us,
		                 (uint64_t)(rt * 1e6 + 0.5));
	}
	/* LULESH-8.txt.coll: Allreduce 792 99 6336 */
	for (size_t i = 0; i < p->collective_count; i++)
		if (!strcmp(p->collectives[i].name, "Allreduce")) {
			assert_int_equal(p->collectives[i].calls, 792);
			assert_int_equal(p->collectives[i].bytes, 6336);
		}
	assert_true(p->collective_count >= 3);
	tp_profile_free(p);
}

static void test_traffic_round_trip_is_exact(void **s)
{
	tp_profile *p = small_profile(), *q;
	tp_profile_header h = {.ranks = 1};
	tp_traffic *t;

	(void)s;
	strcpy(h.app, "again");
	assert_int_equal(tp_profile_to_traffic(p, &t, NULL), TP_OK);
	assert_int_equal(t->ranks, 3);
	assert_int_equal(t->count, 4);
	assert_int_equal(t->entries[3].src, 2);
	assert_int_equal(t->entries[3].dst, 2);
	assert_int_equal(t->entries[3].bytes, 9);
	assert_int_equal(tp_profile_from_traffic(t, &h, &q, NULL), TP_OK);
	assert_int_equal(q->header.ranks, 3);
	assert_int_equal(q->pair_count, p->pair_count);
	assert_memory_equal(q->pairs, p->pairs,
	                    p->pair_count * sizeof(*p->pairs));
	tp_traffic_free(t);
	tp_profile_free(p);
	tp_profile_free(q);
}

static void test_ompi_monitoring_import_gives_exact_ring_counts(void **s)
{
	char paths[4][1024];
	const char *argv[4];
	tp_profile *p;
	tp_error err;

	(void)s;
	for (int i = 0; i < 4; i++) {
		char rel[128];

		snprintf(rel, sizeof(rel),
		         "profiles/testdata/ompi-ring4/prof.%d.prof", i);
		src_path(rel, paths[i], sizeof(paths[i]));
		argv[i] = paths[i];
	}
	if (tp_profile_import_ompi_monitoring(argv, 4, "ring", 0, 1 << 20, &p,
	                                      &err) != TP_OK)
		fail_msg("%s", err.message);
	assert_int_equal(p->header.ranks, 4);
	assert_int_equal(p->pair_count, 4);
	for (uint32_t r = 0; r < 4; r++) {
		assert_int_equal(p->pairs[r].src, r);
		assert_int_equal(p->pairs[r].dst, (r + 1) % 4);
		assert_int_equal(p->pairs[r].bytes, 300 * (r + 1));
		assert_int_equal(p->pairs[r].msgs, 3);
	}
	assert_int_equal(p->collective_count, 1);
	assert_string_equal(p->collectives[0].name, "ompi_all_to_all");
	assert_int_equal(p->collectives[0].bytes, 4 * 120);
	tp_profile_free(p);
}

/* Parse @text as Open MPI monitoring output of 4 ranks; expect an error
 * containing @needle. */
static void expect_ompi_refused(const char *text, tp_status code,
                                const char *needle)
{
	tp_profile_header h = {.ranks = 4};
	const char *label = "bad.prof";
	size_t len = strlen(text);
	tp_profile *p;
	tp_error err;

	strcpy(h.app, "x");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	assert_int_equal(tp_profile_parse_ompi_monitoring(p, &label, &text,
	                                                  &len, 1, 1000, &err),
	                 code);
	if (!strstr(err.message, needle))
		fail_msg("'%s' lacks '%s'", err.message, needle);
	assert_non_null(strstr(err.message, "bad.prof: line "));
	tp_profile_free(p);
}

static void test_ompi_monitoring_bad_lines_are_refused_by_line(void **s)
{
	char *longline = malloc(70000);

	(void)s;
	expect_ompi_refused("# POINT TO POINT\nX\t0\t1\t3 bytes\t1 msgs sent\n",
	                    TP_ERR_PARSE, "line 2: unknown record type 'X'");
	expect_ompi_refused("E\t0\t1\t3x bytes\t1 msgs sent\n", TP_ERR_PARSE,
	                    "bytes: expected a decimal number, got '3x'");
	expect_ompi_refused("E\t0\t9\t3 bytes\t1 msgs sent\n", TP_ERR_PARSE,
	                    "out of range (ranks 4)");
	expect_ompi_refused("E\t0\t1\t3 octets\t1 msgs sent\n", TP_ERR_PARSE,
	                    "expected 'bytes', got 'octets'");
	expect_ompi_refused("E\t0\t1\t99999999999999999999999 bytes\n",
	                    TP_ERR_PARSE, "expected a decimal number");
	expect_ompi_refused("E\t0\n", TP_ERR_PARSE, "destination rank");
	expect_ompi_refused("A2A\t7\t1 bytes\t1 msgs sent\n", TP_ERR_PARSE,
	                    "rank out of range");
	assert_non_null(longline);
	memset(longline, 'E', 69999);
	longline[69999] = '\0';
	expect_ompi_refused(longline, TP_ERR_LIMIT, "longer than 64 KiB");
	free(longline);
}

static void test_coll_companion_bad_lines_are_refused(void **s)
{
	tp_profile *p = small_profile();
	const char *bad1 = "Allreduce 10 20 5\n";
	const char *bad2 = "# header\nBcast 10 2 5 extra\n";
	const char *bad3 = "All-reduce 10 2 5\n";
	tp_error err;

	(void)s;
	assert_int_equal(
	    tp_profile_parse_collectives(p, "x.coll", bad1, strlen(bad1), &err),
	    TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "x.coll: line 1: calls_max"));
	assert_int_equal(
	    tp_profile_parse_collectives(p, "x.coll", bad2, strlen(bad2), &err),
	    TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 2: unexpected extra"));
	assert_int_equal(
	    tp_profile_parse_collectives(p, "x.coll", bad3, strlen(bad3), &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "x.coll: line 1"));
	tp_profile_free(p);
}

static void test_dense_export_is_exact_and_bounded(void **s)
{
	tp_profile *p = small_profile();
	char *text;
	size_t len;
	tp_error err;

	(void)s;
	assert_int_equal(tp_profile_export_dense(p, 0, 16, &text, &len, &err),
	                 TP_OK);
	assert_string_equal(text, "0 10 0\n5 0 0\n7 0 9\n");
	assert_int_equal(len, strlen(text));
	free(text);
	assert_int_equal(tp_profile_export_dense(p, 1, 16, &text, &len, &err),
	                 TP_OK);
	assert_string_equal(text, "0 15 7\n15 0 0\n7 0 18\n");
	free(text);
	assert_int_equal(tp_profile_export_dense(p, 0, 2, &text, &len, &err),
	                 TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, "3 ranks > limit 2"));
	tp_profile_free(p);
}

static void test_scotch_export_is_exact_and_scales_huge_weights(void **s)
{
	tp_profile *p = small_profile();
	char *text;
	size_t len;

	(void)s;
	assert_int_equal(tp_profile_export_scotch(p, &text, &len, NULL), TP_OK);
	assert_string_equal(text, "0\n3\t4\n0\t010\n"
	                          "2\t15 1\t7 2\n"
	                          "1\t15 0\n"
	                          "1\t7 0\n");
	free(text);
	p->pairs[0].bytes = 3ull << 32; /* 0 -> 1 */
	assert_int_equal(tp_profile_export_scotch(p, &text, &len, NULL), TP_OK);
	/* scale = max / (2^31 - 1) + 1 = 7; 7 bytes become 1, none 0. */
	assert_non_null(strstr(text, "2\t1840700271 1\t1 2\n"));
	free(text);
	tp_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_matrix_import_keeps_every_pair_and_collectives),
	    cmocka_unit_test(test_traffic_round_trip_is_exact),
	    cmocka_unit_test(
	        test_ompi_monitoring_import_gives_exact_ring_counts),
	    cmocka_unit_test(
	        test_ompi_monitoring_bad_lines_are_refused_by_line),
	    cmocka_unit_test(test_coll_companion_bad_lines_are_refused),
	    cmocka_unit_test(test_dense_export_is_exact_and_bounded),
	    cmocka_unit_test(
	        test_scotch_export_is_exact_and_scales_huge_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
