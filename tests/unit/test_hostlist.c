/*
 * test_hostlist.c: Slurm hostlist expressions expanded and compressed by
 * common/hostlist.c: ranges, zero padding, commas inside brackets, bad
 * ranges, the bounds, and compress-then-expand giving the names back.
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

#include "hostlist.h"

/* The expanded names joined by ' ', or the error message. */
struct joined {
	char text[4096];
	size_t len;
	int stop_after; /* > 0: fail the callback at this name */
	int calls;
};

static tp_status join_name(void *ctx, const char *name, tp_error *err)
{
	struct joined *j = ctx;
	int n;

	if (++j->calls == j->stop_after)
		return tp_error_set(err, TP_ERR_NOTFOUND, "stop at %s", name);
	n = snprintf(j->text + j->len, sizeof(j->text) - j->len, "%s%s",
	             j->len ? " " : "", name);
	assert_true(n > 0 && (size_t)n < sizeof(j->text) - j->len);
	j->len += (size_t)n;
	return TP_OK;
}

static tp_status expand(const char *expr, size_t max_names, struct joined *j,
                        tp_error *err)
{
	memset(j, 0, sizeof(*j));
	return tp_hostlist_expand(expr, max_names, join_name, j, err);
}

static void test_ranges_keep_the_width_of_their_first_number(void **state)
{
	struct joined j;
	tp_error err;

	(void)state;
	assert_int_equal(expand("n[0001-0003,0007],m1", 100, &j, &err), TP_OK);
	assert_string_equal(j.text, "n0001 n0002 n0003 n0007 m1");
	assert_int_equal(expand("n[8-11]", 100, &j, &err), TP_OK);
	assert_string_equal(j.text, "n8 n9 n10 n11");
	assert_int_equal(expand("n[08-11]", 100, &j, &err), TP_OK);
	assert_string_equal(j.text, "n08 n09 n10 n11");
	assert_int_equal(expand("x[07]y", 100, &j, &err), TP_OK);
	assert_string_equal(j.text, "x07y");
	assert_int_equal(expand("single", 100, &j, &err), TP_OK);
	assert_string_equal(j.text, "single");
}

static void test_commas_inside_brackets_do_not_split_names(void **state)
{
	struct joined j;
	tp_error err;

	(void)state;
	assert_int_equal(expand("io[1,5]x,r[1-2]s[3,4],z", 100, &j, &err),
	                 TP_OK);
	assert_string_equal(j.text, "io1x io5x r1s3 r1s4 r2s3 r2s4 z");
}

static void test_bad_expressions_say_what_is_wrong(void **state)
{
	static const struct {
		const char *expr, *message;
	} cases[] = {
	    {"", "empty host list"},
	    {"n1,,n2", "empty name in list \"n1,,n2\""},
	    {"n1,", "list \"n1,\" ends with ','"},
	    {"n]1", "']' without '[' in \"n]1\""},
	    {"n[1", "'[' without ']' in \"n[1\""},
	    {"n[]", "empty range [] in \"n[]\""},
	    {"n[5-2]", "range 5-2 goes backwards"},
	    {"n[1-]", "empty number in range [1-]"},
	    {"n[1,]", "empty number in range [1,]"},
	    {"n[1-2,]", "empty number in range [1-2,]"},
	    {"n[1-", "'[' without ']' in \"n[1-\""},
	    {"n[a]", "'a' in range [a]: only digits, ',' and '-'"},
	    {"n[1-x]", "'x' in range [1-x]: only digits, ',' and '-'"},
	    {"n[1234567890123456789]",
	     "number too large in [1234567890123456789]"},
	};
	struct joined j;
	tp_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(expand(cases[i].expr, 100, &j, &err),
		                 TP_ERR_PARSE);
		assert_string_equal(err.message, cases[i].message);
	}
}

static void test_name_count_and_length_are_bounded(void **state)
{
	char long_name[TP_HOSTLIST_NAME_MAX + 2];
	struct joined j;
	tp_error err;

	(void)state;
	assert_int_equal(expand("n[1-4]", 4, &j, &err), TP_OK);
	assert_int_equal(expand("n[1-5]", 4, &j, &err), TP_ERR_LIMIT);
	assert_string_equal(err.message, "range 1-5 has more than 4 names");
	assert_int_equal(expand("n[1-3],m[1-3]", 4, &j, &err), TP_ERR_LIMIT);
	assert_string_equal(err.message, "more than 4 names");
	/* A product of groups counts every name it makes. */
	assert_int_equal(expand("n[0-60]m[0-60]", 100, &j, &err),
	                 TP_ERR_LIMIT);
	assert_string_equal(err.message, "more than 100 names");
	assert_int_equal(expand("n[0-999999999]", 100, &j, &err),
	                 TP_ERR_LIMIT);

	memset(long_name, 'a', TP_HOSTLIST_NAME_MAX);
	long_name[TP_HOSTLIST_NAME_MAX] = '\0';
	assert_int_equal(expand(long_name, 4, &j, &err), TP_OK);
	long_name[TP_HOSTLIST_NAME_MAX] = 'a';
	long_name[TP_HOSTLIST_NAME_MAX + 1] = '\0';
	assert_int_equal(expand(long_name, 4, &j, &err), TP_ERR_LIMIT);
	assert_string_equal(err.message, "name longer than 1023");
}

static void test_expansion_stops_at_the_callers_error(void **state)
{
	struct joined j;
	tp_error err;

	(void)state;
	memset(&j, 0, sizeof(j));
	j.stop_after = 3;
	assert_int_equal(tp_hostlist_expand("n[1-9]", 100, join_name, &j, &err),
	                 TP_ERR_NOTFOUND);
	assert_string_equal(err.message, "stop at n3");
	assert_int_equal(j.calls, 3);
}

/* @names (@count) compress to exactly @expected. */
static void assert_compresses(const char *const *names, size_t count,
                              const char *expected)
{
	char *list;
	tp_error err;

	assert_int_equal(tp_hostlist_compress(names, count, &list, &err),
	                 TP_OK);
	assert_string_equal(list, expected);
	free(list);
}

static void test_compress_sorts_joins_runs_and_drops_duplicates(void **state)
{
	const char *names[] = {"n0007", "login1", "n0002", "n0001", "n0003",
	                       "n0004", "n0002", "m", "n10", "n9", "m"};

	(void)state;
	assert_compresses(names, 11, "login1,m,n9,n10,n[0001-0004,0007]");
	assert_compresses(names + 1, 1, "login1");
	assert_compresses(names, 0, "");
	assert_compresses(names + 3, 1, "n0001");
}

static void test_compressed_list_expands_to_the_sorted_names(void **state)
{
	const char *names[] = {"sw12", "a01", "sw3", "a03", "a02",
	                       "sw4",  "b",   "a10", "sw11"};
	char *list;
	struct joined j;
	tp_error err;

	(void)state;
	assert_int_equal(tp_hostlist_compress(names, 9, &list, &err), TP_OK);
	assert_string_equal(list, "a[01-03,10],b,sw[3-4],sw[11-12]");
	assert_int_equal(expand(list, 100, &j, &err), TP_OK);
	assert_string_equal(j.text, "a01 a02 a03 a10 b sw3 sw4 sw11 sw12");
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges_keep_the_width_of_their_first_number),
	    cmocka_unit_test(test_commas_inside_brackets_do_not_split_names),
	    cmocka_unit_test(test_bad_expressions_say_what_is_wrong),
	    cmocka_unit_test(test_name_count_and_length_are_bounded),
	    cmocka_unit_test(test_expansion_stops_at_the_callers_error),
	    cmocka_unit_test(test_compress_sorts_joins_runs_and_drops_duplicates),
	    cmocka_unit_test(test_compressed_list_expands_to_the_sorted_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
