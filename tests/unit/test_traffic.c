/*
 * test_traffic.c: the matrix reader accepts the commprof text format,
 * sums duplicates, bounds hostile input and names file, line and field in
 * every error; the CSR views are exact, from sorted entries (merged) and
 * unsorted ones (sorted row by row) alike.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "traffic.h"

static tp_traffic *parse_ok(const char *text)
{
	tp_traffic *t = NULL;
	tp_error err = {0};

	assert_int_equal(
	    tp_traffic_parse("m.txt", text, strlen(text), NULL, &t, &err),
	    TP_OK);
	assert_non_null(t);
	return t;
}

static void parse_fails(const char *text, tp_status code,
                        const char *expected_message)
{
	tp_traffic *t = (tp_traffic *)1;
	tp_error err = {0};

	assert_int_equal(
	    tp_traffic_parse("m.txt", text, strlen(text), NULL, &t, &err),
	    code);
	assert_null(t);
	assert_string_equal(err.message, expected_message);
}

static void test_header_sets_ranks_and_entries_are_sorted(void **state)
{
	tp_traffic *t;

	(void)state;
	t = parse_ok("# commprof-v1 app=x ranks=6 total_bytes=1\n"
	             "3 1 300 3\n"
	             "0 2 100 1\n"
	             "0 1 50\n");
	assert_int_equal(t->ranks, 6);
	assert_int_equal(t->count, 3);
	assert_int_equal(t->entries[0].src, 0);
	assert_int_equal(t->entries[0].dst, 1);
	assert_int_equal(t->entries[0].bytes, 50);
	assert_int_equal(t->entries[0].msgs, 0);
	assert_int_equal(t->entries[1].dst, 2);
	assert_int_equal(t->entries[2].src, 3);
	assert_int_equal(t->entries[2].msgs, 3);
	assert_int_equal(tp_traffic_total_bytes(t), 450);
	tp_traffic_free(t);
}

static void test_without_header_ranks_is_max_index_plus_one(void **state)
{
	tp_traffic *t;

	(void)state;
	t = parse_ok("\n  # a comment\r\n0 9 1 1\r\n\t4 2 7 1  \n");
	assert_int_equal(t->ranks, 10);
	assert_int_equal(t->count, 2);
	tp_traffic_free(t);
}

static void test_duplicate_pairs_are_summed(void **state)
{
	tp_traffic *t;

	(void)state;
	t = parse_ok("1 0 10 1\n0 1 5 2\n1 0 32 3\n");
	assert_int_equal(t->count, 2);
	assert_int_equal(t->entries[1].src, 1);
	assert_int_equal(t->entries[1].bytes, 42);
	assert_int_equal(t->entries[1].msgs, 4);
	tp_traffic_free(t);
}

static void test_header_only_is_a_zero_traffic_job(void **state)
{
	tp_traffic *t;

	(void)state;
	t = parse_ok("# commprof-v1 ranks=4\n");
	assert_int_equal(t->ranks, 4);
	assert_int_equal(t->count, 0);
	tp_traffic_free(t);
}

static void test_bad_lines_are_named(void **state)
{
	(void)state;
	parse_fails("0 1 10\n0 x 5\n", TP_ERR_PARSE,
	            "m.txt: line 2: dst is not a decimal number");
	parse_fails("0 1\n", TP_ERR_PARSE,
	            "m.txt: line 1: expected 'src dst bytes [msgs]', got 2 "
	            "fields");
	parse_fails("0 1 2 3 4\n", TP_ERR_PARSE,
	            "m.txt: line 1: more than 4 fields");
	parse_fails("0 1 -2\n", TP_ERR_PARSE,
	            "m.txt: line 1: bytes is not a decimal number");
	parse_fails("0 1 99999999999999999999\n", TP_ERR_PARSE,
	            "m.txt: line 1: bytes is not a decimal number");
	parse_fails("# commprof-v1 ranks=4\n0 1 5\n4 0 1\n", TP_ERR_PARSE,
	            "m.txt: line 3: src 4 >= ranks 4");
	parse_fails("# commprof-v1 ranks=abc\n", TP_ERR_PARSE,
	            "m.txt: line 1: header ranks= is not a number");
	parse_fails("# only a comment\n", TP_ERR_PARSE,
	            "m.txt: no data lines and no '# commprof-v1 ranks=N' "
	            "header");
}

static void test_embedded_nul_is_refused(void **state)
{
	static const char text[] = "0 1 5\n0 1\0 5\n";
	tp_traffic *t;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_traffic_parse("m.txt", text, sizeof(text) - 1, NULL, &t, &err),
	    TP_ERR_PARSE);
	assert_string_equal(err.message, "m.txt: line 2: NUL byte");
}

static void test_limits_bound_ranks_entries_and_size(void **state)
{
	tp_traffic_limits lim = tp_traffic_default_limits();
	tp_traffic *t;
	tp_error err;
	const char *text = "0 1 5\n1 2 5\n2 3 5\n";

	(void)state;
	lim.max_entries = 2;
	assert_int_equal(
	    tp_traffic_parse("m.txt", text, strlen(text), &lim, &t, &err),
	    TP_ERR_LIMIT);
	assert_string_equal(err.message, "m.txt: line 3: more than 2 entries");
	lim = tp_traffic_default_limits();
	lim.max_ranks = 3;
	assert_int_equal(
	    tp_traffic_parse("m.txt", text, strlen(text), &lim, &t, &err),
	    TP_ERR_LIMIT);
	assert_string_equal(err.message,
	                    "m.txt: line 3: dst 3 above the limit of 3 ranks");
	lim = tp_traffic_default_limits();
	lim.max_file_bytes = 10;
	assert_int_equal(
	    tp_traffic_parse("m.txt", text, strlen(text), &lim, &t, &err),
	    TP_ERR_LIMIT);
	assert_string_equal(err.message,
	                    "m.txt: 18 bytes, above the limit of 10");
	text = "# commprof-v1 ranks=99999999999\n";
	assert_int_equal(
	    tp_traffic_parse("m.txt", text, strlen(text), NULL, &t, &err),
	    TP_ERR_LIMIT);
	assert_string_equal(err.message,
	                    "m.txt: line 1: header ranks above the limit "
	                    "1048576");
}

static void test_missing_file_is_an_io_error_naming_it(void **state)
{
	tp_traffic *t;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_traffic_read_file("/nonexistent/m.txt", NULL, &t, &err),
	    TP_ERR_IO);
	assert_string_equal(err.message,
	                    "/nonexistent/m.txt: cannot open: No such file "
	                    "or directory");
	assert_int_equal(tp_traffic_read_file("/", NULL, &t, &err), TP_ERR_IO);
	assert_string_equal(err.message, "/: is a directory");
}

static void test_real_matrix_matches_its_header(void **state)
{
	const char *srcdir = getenv("abs_top_srcdir");
	char path[4096];
	tp_traffic *t;
	tp_error err;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/matrices/CoMD-16.txt",
	         srcdir ? srcdir : ".");
	assert_int_equal(tp_traffic_read_file(path, NULL, &t, &err), TP_OK);
	/* Header: ranks=16 total_bytes=495194112 nnz_pairs=64. */
	assert_int_equal(t->ranks, 16);
	assert_int_equal(t->count, 64);
	assert_int_equal(tp_traffic_total_bytes(t), 495194112ull);
	tp_traffic_free(t);
}

static void test_add_refuses_ranks_out_of_range(void **state)
{
	tp_traffic *t;
	tp_error err;

	(void)state;
	assert_int_equal(tp_traffic_new(&t, 0, &err), TP_ERR_INVALID);
	assert_int_equal(tp_traffic_new(&t, 3, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 0, 3, 1, 1, &err), TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "traffic matrix: pair 0 -> 3 outside ranks 0..2");
	tp_traffic_free(t);
}

static void test_undirected_csr_sums_both_directions_drops_self(void **state)
{
	tp_traffic *t;
	tp_traffic_csr *c;
	tp_error err;

	(void)state;
	t = parse_ok("0 1 10 1\n1 0 5 1\n1 1 99 1\n2 0 7 1\n1 2 0 4\n");
	assert_int_equal(
	    tp_traffic_csr_build(t, TP_TRAFFIC_CSR_UNDIRECTED, &c, &err),
	    TP_OK);
	/* 0: {1:15, 2:7}  1: {0:15}  2: {0:7} */
	assert_int_equal(c->row_start[0], 0);
	assert_int_equal(c->row_start[1], 2);
	assert_int_equal(c->row_start[2], 3);
	assert_int_equal(c->row_start[3], 4);
	assert_int_equal(c->col[0], 1);
	assert_int_equal(c->weight[0], 15);
	assert_int_equal(c->col[1], 2);
	assert_int_equal(c->weight[1], 7);
	assert_int_equal(c->col[2], 0);
	assert_int_equal(c->weight[2], 15);
	assert_int_equal(c->weight[3], 7);
	tp_traffic_csr_free(c);
	assert_int_equal(
	    tp_traffic_csr_build(t, TP_TRAFFIC_CSR_DIRECTED, &c, &err), TP_OK);
	/* 0: {1:10}  1: {0:5, 1:99, 2:0}  2: {0:7} */
	assert_int_equal(c->row_start[1], 1);
	assert_int_equal(c->row_start[2], 4);
	assert_int_equal(c->col[2], 1);
	assert_int_equal(c->weight[2], 99);
	tp_traffic_csr_free(c);
	tp_traffic_free(t);
}

static uint64_t sat_add_ref(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void expect_csr_is_dense(const tp_traffic_csr *c, const uint64_t *w,
                                uint32_t n)
{
	uint64_t e = 0;

	for (uint32_t r = 0; r < n; r++) {
		assert_int_equal(c->row_start[r], e);
		for (uint32_t k = 0; k < n; k++) {
			if (!w[(size_t)r * n + k])
				continue;
			assert_int_equal(c->col[e], k);
			assert_true(c->weight[e] == w[(size_t)r * n + k]);
			e++;
		}
	}
	assert_int_equal(c->row_start[n], e);
}

/*
 * The undirected CSR of sorted entries (tp_traffic_normalize's order,
 * built by merging without sorting rows) and of the same entries unsorted
 * (sorted row by row) both equal a dense reference: random pairs with
 * duplicates, self pairs, zero bytes and byte counts that saturate.
 */
static void
test_undirected_csr_of_sorted_and_unsorted_entries_agree(void **state)
{
	enum { N = 60, PAIRS = 1500 };
	tp_traffic *sorted, *unsorted;
	tp_traffic_csr *c;
	tp_error err;
	uint64_t *w = calloc((size_t)N * N, sizeof(*w));
	uint64_t rng = 42;
	bool in_order = true;

	(void)state;
	assert_non_null(w);
	assert_int_equal(tp_traffic_new(&sorted, N, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&unsorted, N, &err), TP_OK);
	for (int i = 0; i < PAIRS; i++) {
		uint32_t a, b;
		uint64_t bytes;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		a = (uint32_t)(rng >> 33) % N;
		b = (uint32_t)(rng >> 45) % N;
		bytes = (rng >> 20) % 7 == 0   ? 0
		        : (rng >> 20) % 7 == 1 ? UINT64_MAX / 3
		                               : (rng >> 24) % 1000;
		assert_int_equal(tp_traffic_add(sorted, a, b, bytes, 1, &err),
		                 TP_OK);
		assert_int_equal(tp_traffic_add(unsorted, a, b, bytes, 1, &err),
		                 TP_OK);
		if (a != b && bytes) {
			w[(size_t)a * N + b] =
			    sat_add_ref(w[(size_t)a * N + b], bytes);
			w[(size_t)b * N + a] =
			    sat_add_ref(w[(size_t)b * N + a], bytes);
		}
	}
	tp_traffic_normalize(sorted);
	for (size_t i = 1; i < unsorted->count; i++)
		if (unsorted->entries[i - 1].src > unsorted->entries[i].src)
			in_order = false;
	assert_false(in_order); /* the fallback path is exercised */
	assert_int_equal(
	    tp_traffic_csr_build(sorted, TP_TRAFFIC_CSR_UNDIRECTED, &c, &err),
	    TP_OK);
	expect_csr_is_dense(c, w, N);
	tp_traffic_csr_free(c);
	assert_int_equal(
	    tp_traffic_csr_build(unsorted, TP_TRAFFIC_CSR_UNDIRECTED, &c, &err),
	    TP_OK);
	expect_csr_is_dense(c, w, N);
	tp_traffic_csr_free(c);
	tp_traffic_free(sorted);
	tp_traffic_free(unsorted);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_sets_ranks_and_entries_are_sorted),
	    cmocka_unit_test(test_without_header_ranks_is_max_index_plus_one),
	    cmocka_unit_test(test_duplicate_pairs_are_summed),
	    cmocka_unit_test(test_header_only_is_a_zero_traffic_job),
	    cmocka_unit_test(test_bad_lines_are_named),
	    cmocka_unit_test(test_embedded_nul_is_refused),
	    cmocka_unit_test(test_limits_bound_ranks_entries_and_size),
	    cmocka_unit_test(test_missing_file_is_an_io_error_naming_it),
	    cmocka_unit_test(test_real_matrix_matches_its_header),
	    cmocka_unit_test(test_add_refuses_ranks_out_of_range),
	    cmocka_unit_test(
	        test_undirected_csr_sums_both_directions_drops_self),
	    cmocka_unit_test(
	        test_undirected_csr_of_sorted_and_unsorted_entries_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
