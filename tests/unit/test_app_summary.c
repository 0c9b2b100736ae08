/*
 * test_app_summary.c: the store's runs grouped per application
 * (app_summary.h), as `topoplace profile list --apps` shows them.
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

#include "app_summary.h"

static tp_store_entry entry(const char *ns, const char *name, const char *file,
                            int64_t mtime_s)
{
	tp_store_entry e;

	memset(&e, 0, sizeof(e));
	snprintf(e.ns, sizeof(e.ns), "%s", ns);
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.file, sizeof(e.file), "%s", file);
	e.mtime_s = mtime_s;
	return e;
}

static void test_runs_are_counted_per_application(void **state)
{
	tp_store_entry e[] = {
	    entry("alice", "ring", "a.tpp", 100),
	    entry("alice", "ring", "b.tpp", 300),
	    entry("alice", "ring", "c.tpp", 200),
	    entry("alice", "s-ba7816bf8f01cfea414140de5dae2223", "a.tpp", 100),
	    entry("bob", "ring", "x.tpp", 50),
	};
	tp_store_list list = {sizeof(e) / sizeof(e[0]), e};
	tp_app_summary *apps;
	size_t n;
	tp_error err;
	(void)state;
	assert_int_equal(tp_app_summaries(&list, &apps, &n, &err), TP_OK);
	assert_int_equal(n, 3);
	assert_string_equal(apps[0].ns, "alice");
	assert_string_equal(apps[0].name, "ring");
	assert_int_equal(apps[0].runs, 3);
	assert_int_equal(apps[0].first_s, 100);
	assert_int_equal(apps[0].newest_s, 300);
	assert_string_equal(apps[0].newest_file, "b.tpp");
	assert_false(apps[0].script_key);
	assert_int_equal(apps[1].runs, 1);
	assert_true(apps[1].script_key);
	/* The same name in another namespace is another user's application. */
	assert_string_equal(apps[2].ns, "bob");
	assert_int_equal(apps[2].runs, 1);
	free(apps);
}

/* Equal file times: the later stamp (write time first) is the newest. */
static void test_newest_of_equal_times_is_the_later_stamp(void **state)
{
	tp_store_entry e[] = {
	    entry("alice", "ring", "0000017a-1.tpp", 100),
	    entry("alice", "ring", "0000017b-1.tpp", 100),
	    entry("alice", "ring", "00000179-1.tpp", 100),
	};
	tp_store_list list = {3, e};
	tp_app_summary *apps;
	size_t n;
	tp_error err;
	(void)state;
	assert_int_equal(tp_app_summaries(&list, &apps, &n, &err), TP_OK);
	assert_int_equal(n, 1);
	assert_string_equal(apps[0].newest_file, "0000017b-1.tpp");
	free(apps);
}

static void test_empty_and_unsorted_lists(void **state)
{
	tp_store_entry e[] = {
	    entry("alice", "ring", "a.tpp", 1),
	    entry("alice", "wave", "a.tpp", 1),
	    entry("alice", "ring", "b.tpp", 1),
	};
	tp_store_list empty = {0, NULL}, unsorted = {3, e};
	static tp_app_summary stale;
	tp_app_summary *apps = &stale; /* must be reset */
	size_t n = 7;
	tp_error err;
	(void)state;
	assert_int_equal(tp_app_summaries(&empty, &apps, &n, &err), TP_OK);
	assert_null(apps);
	assert_int_equal(n, 0);
	assert_int_equal(tp_app_summaries(&unsorted, &apps, &n, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "alice/ring/b.tpp out of order"));
	assert_null(apps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs_are_counted_per_application),
	    cmocka_unit_test(test_newest_of_equal_times_is_the_later_stamp),
	    cmocka_unit_test(test_empty_and_unsorted_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
