/*
 * test_topo.c: the host hierarchy answers leaf, pod, distance and name
 * queries exactly, and refuses inconsistent input with a clear message.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "topo.h"

static void test_fattree_3level_has_exact_counts_and_names(void **state)
{
	tp_topo *topo;
	tp_error err;
	uint32_t n;
	const uint32_t *hosts;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 4, 18, 18, &err), TP_OK);
	assert_int_equal(tp_topo_host_count(topo), 1296);
	assert_int_equal(tp_topo_leaf_count(topo), 72);
	assert_int_equal(tp_topo_pod_count(topo), 4);
	assert_string_equal(tp_topo_host_name(topo, 0), "n0001");
	assert_string_equal(tp_topo_host_name(topo, 1295), "n1296");
	assert_string_equal(tp_topo_leaf_name(topo, 71), "leaf072");
	assert_string_equal(tp_topo_pod_name(topo, 3), "pod04");
	hosts = tp_topo_leaf_hosts(topo, 1, &n);
	assert_int_equal(n, 18);
	assert_string_equal(tp_topo_host_name(topo, hosts[0]), "n0019");
	assert_int_equal(tp_topo_leaf_pod(topo, 18), 1);
	tp_topo_pod_leaves(topo, 2, &n);
	assert_int_equal(n, 18);
	tp_topo_free(topo);
}

static void test_distance_is_0_2_4_6_by_hierarchy(void **state)
{
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 2, 2, &err), TP_OK);
	/* n0001 n0002 | n0003 n0004 (pod01) || n0005 ... (pod02) */
	assert_int_equal(tp_topo_distance(topo, 0, 0), 0);
	assert_int_equal(tp_topo_distance(topo, 0, 1), 2);
	assert_int_equal(tp_topo_distance(topo, 0, 2), 4);
	assert_int_equal(tp_topo_distance(topo, 0, 4), 6);
	assert_int_equal(tp_topo_distance(topo, 7, 0), 6);
	tp_topo_free(topo);
}

static void test_two_level_tree_is_one_pod_at_most_4_hops(void **state)
{
	tp_topo *topo;
	tp_error err;
	unsigned max = 0;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 8, 4, &err), TP_OK);
	for (uint32_t a = 0; a < 32; a++)
		for (uint32_t b = 0; b < 32; b++) {
			unsigned d = tp_topo_distance(topo, a, b);

			assert_int_equal(d, tp_topo_distance(topo, b, a));
			if (d > max)
				max = d;
		}
	assert_int_equal(max, 4);
	tp_topo_free(topo);
}

static void test_names_are_found_in_constant_time_tables(void **state)
{
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 36, 18, &err), TP_OK);
	for (uint32_t h = 0; h < tp_topo_host_count(topo); h++)
		assert_int_equal(
			tp_topo_find_host(topo, tp_topo_host_name(topo, h)), h);
	assert_int_equal(tp_topo_find_host(topo, "n9999"), TP_TOPO_NONE);
	assert_int_equal(tp_topo_find_host(topo, NULL), TP_TOPO_NONE);
	assert_int_equal(tp_topo_find_leaf(topo, "leaf036"), 35);
	assert_int_equal(tp_topo_find_leaf(topo, "spine001"), TP_TOPO_NONE);
	tp_topo_free(topo);
}

static void test_irregular_leaves_and_measured_distance(void **state)
{
	tp_topo *topo;
	tp_error err;
	uint32_t pod, l1, l2, l3, h;
	uint32_t n;

	(void)state;
	assert_int_equal(tp_topo_new(&topo, &err), TP_OK);
	assert_int_equal(tp_topo_add_pod(topo, "pod01", &pod, &err), TP_OK);
	assert_int_equal(tp_topo_add_leaf(topo, "leafA", pod, &l1, &err), TP_OK);
	assert_int_equal(tp_topo_add_leaf(topo, "leafB", pod, &l2, &err), TP_OK);
	assert_int_equal(tp_topo_add_leaf(topo, "leafC", pod, &l3, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "a1", l1, &h, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "b1", l2, NULL, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "b2", l2, NULL, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "b3", l2, NULL, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "c1", l3, NULL, &err), TP_OK);
	/* leafA lost its uplink to the spine leafC uses: 6 hops between them. */
	assert_int_equal(tp_topo_set_leaf_distance(topo, l1, l3, 6, &err), TP_OK);
	assert_int_equal(tp_topo_finish(topo, &err), TP_OK);
	tp_topo_leaf_hosts(topo, l2, &n);
	assert_int_equal(n, 3);
	tp_topo_leaf_hosts(topo, l1, &n);
	assert_int_equal(n, 1);
	assert_int_equal(tp_topo_distance(topo, 0, 1), 4);
	assert_int_equal(tp_topo_distance(topo, 0, 4), 6);
	assert_int_equal(tp_topo_distance(topo, 4, 0), 6);
	assert_int_equal(tp_topo_distance(topo, 1, 2), 2);
	tp_topo_free(topo);
}

static void test_bad_input_is_refused_with_a_message(void **state)
{
	tp_topo *topo;
	tp_error err;
	uint32_t pod, leaf;

	(void)state;
	assert_int_equal(tp_topo_new(&topo, &err), TP_OK);
	assert_int_equal(tp_topo_finish(topo, &err), TP_ERR_INVALID);
	assert_string_equal(err.message, "topology: no hosts");
	assert_int_equal(tp_topo_add_leaf(topo, "leaf", 0, NULL, &err),
			 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "no pod 0"));
	assert_int_equal(tp_topo_add_pod(topo, "", NULL, &err), TP_ERR_INVALID);
	assert_int_equal(tp_topo_add_pod(topo, "p", &pod, &err), TP_OK);
	assert_int_equal(tp_topo_add_leaf(topo, "l", pod, &leaf, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "h", 7, NULL, &err),
			 TP_ERR_INVALID);
	assert_int_equal(tp_topo_set_leaf_distance(topo, leaf, leaf, 4, &err),
			 TP_ERR_INVALID);
	assert_int_equal(tp_topo_add_host(topo, "h", leaf, NULL, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "h", leaf, NULL, &err), TP_OK);
	assert_int_equal(tp_topo_finish(topo, &err), TP_ERR_INVALID);
	assert_string_equal(err.message,
			    "topology: host name 'h' appears twice");
	tp_topo_free(topo);

	assert_int_equal(tp_topo_new_fattree(&topo, 0, 1, 1, &err),
			 TP_ERR_INVALID);
	assert_int_equal(tp_topo_new_fattree(&topo, 100, 100, 100, &err),
			 TP_ERR_LIMIT);
}

static void test_adding_after_finish_is_refused(void **state)
{
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 1, 1, &err), TP_OK);
	assert_int_equal(tp_topo_add_host(topo, "late", 0, NULL, &err),
			 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "after finish"));
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree_3level_has_exact_counts_and_names),
		cmocka_unit_test(test_distance_is_0_2_4_6_by_hierarchy),
		cmocka_unit_test(test_two_level_tree_is_one_pod_at_most_4_hops),
		cmocka_unit_test(test_names_are_found_in_constant_time_tables),
		cmocka_unit_test(test_irregular_leaves_and_measured_distance),
		cmocka_unit_test(test_bad_input_is_refused_with_a_message),
		cmocka_unit_test(test_adding_after_finish_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
