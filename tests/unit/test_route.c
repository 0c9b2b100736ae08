/*
 * test_route.c: routes through the fabric model.  D-mod-k routes on real
 * fat trees go up then down with as many hops as the distance says; LFT
 * routes follow the tables exactly (same paths when the tables hold the
 * D-mod-k choices), and missing entries or loops are named; the per-link
 * load of a traffic matrix adds up.
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

#include "discover.h"
#include "fabric.h"
#include "route.h"

#ifndef TP_TOP_SRCDIR
#define TP_TOP_SRCDIR "."
#endif

static tp_fabric *load(const char *name)
{
	char path[4096];
	const char *top = getenv("abs_top_srcdir");
	tp_fabric *f = NULL;
	tp_error err = {0};

	snprintf(path, sizeof(path), "%s/tests/data/fabric/%s",
	         top != NULL ? top : TP_TOP_SRCDIR, name);
	if (tp_discover_load_cache(path, NULL, &f, &err) != TP_OK)
		fail_msg("%s", err.message);
	return f;
}

static void test_dmodk_routes_go_up_then_down_with_tree_hops(void **state)
{
	static const char *const caches[] = {"fat-4x4.cache",
	                                     "fat3-2x2x2.cache"};

	(void)state;
	for (size_t c = 0; c < 2; c++) {
		tp_fabric *f = load(caches[c]);
		tp_routes *r;
		tp_error err = {0};
		uint32_t path[TP_ROUTE_MAX_HOPS];
		size_t n;

		assert_int_equal(tp_routes_new_dmodk(f, &r, &err), TP_OK);
		assert_int_equal(tp_routes_kind_of(r), TP_ROUTES_DMODK);
		for (uint32_t a = 0; a < tp_fabric_host_count(f); a++) {
			for (uint32_t b = 0; b < tp_fabric_host_count(f); b++) {
				const tp_fabric_port *last;

				assert_int_equal(
				    tp_routes_path(r, a, b, path,
				                   TP_ROUTE_MAX_HOPS, &n, &err),
				    TP_OK);
				assert_int_equal(
				    n, tp_fabric_host_distance(f, a, b));
				assert_true(
				    tp_routes_path_is_updown(f, path, n));
				if (n == 0)
					continue;
				last = tp_fabric_peer(f, path[n - 1]);
				assert_int_equal(
				    tp_fabric_node_at(f, last->node)->host, b);
			}
		}
		tp_routes_free(r);
		tp_fabric_free(f);
	}
}

/* Tables holding exactly the D-mod-k choices give the same paths. */
static void test_lft_routes_follow_the_tables(void **state)
{
	tp_fabric *f = load("fat3-2x2x2.cache");
	uint32_t nodes = tp_fabric_node_count(f),
	         hosts = tp_fabric_host_count(f);
	uint8_t *tables = calloc((size_t)nodes * 256, 1);
	uint32_t path[TP_ROUTE_MAX_HOPS], path2[TP_ROUTE_MAX_HOPS];
	tp_routes *d, *l;
	tp_error err = {0};
	size_t n, n2;

	(void)state;
	assert_non_null(tables);
	assert_int_equal(tp_routes_new_dmodk(f, &d, &err), TP_OK);
	assert_int_equal(tp_routes_new(f, &l, &err), TP_OK);
	for (uint32_t a = 0; a < hosts; a++) {
		for (uint32_t b = 0; b < hosts; b++) {
			const tp_fabric_port *dst;

			assert_int_equal(tp_routes_path(d, a, b, path,
			                                TP_ROUTE_MAX_HOPS, &n,
			                                &err),
			                 TP_OK);
			if (n == 0)
				continue;
			dst = tp_fabric_peer(f, path[n - 1]);
			assert_true(dst->lid > 0 && dst->lid < 256);
			for (size_t k = 1; k < n; k++) {
				const tp_fabric_port *p =
				    tp_fabric_port_at(f, path[k]);

				tables[(size_t)p->node * 256 + dst->lid] =
				    (uint8_t)p->num;
			}
		}
	}
	for (uint32_t i = 0; i < nodes; i++)
		if (tp_fabric_node_at(f, i)->type == TP_FABRIC_SWITCH)
			assert_int_equal(
			    tp_routes_set_lft(l, i, tables + (size_t)i * 256,
			                      256, &err),
			    TP_OK);
	assert_int_equal(tp_routes_kind_of(l), TP_ROUTES_LFT);
	for (uint32_t a = 0; a < hosts; a++) {
		for (uint32_t b = 0; b < hosts; b++) {
			assert_int_equal(tp_routes_path(d, a, b, path,
			                                TP_ROUTE_MAX_HOPS, &n,
			                                &err),
			                 TP_OK);
			assert_int_equal(tp_routes_path(l, a, b, path2,
			                                TP_ROUTE_MAX_HOPS, &n2,
			                                &err),
			                 TP_OK);
			assert_int_equal(n, n2);
			assert_memory_equal(path, path2, n * sizeof(*path));
		}
	}
	tp_routes_free(d);
	tp_routes_free(l);
	free(tables);
	tp_fabric_free(f);
}

static void test_missing_entries_and_loops_are_named(void **state)
{
	tp_fabric *f = load("fat-4x4.cache");
	uint32_t leaf1 = tp_fabric_find_node(f, "leaf001");
	uint32_t spine1 = tp_fabric_find_node(f, "spine001");
	uint32_t src = tp_fabric_find_host(f, "n0001");
	uint32_t dst = tp_fabric_find_host(f, "n0016");
	uint16_t dlid = 0;
	uint8_t table[256] = {0};
	uint32_t path[TP_ROUTE_MAX_HOPS], up = 0, down = 0;
	tp_routes *r;
	tp_error err = {0};
	size_t n;
	char want[256];

	(void)state;
	for (uint32_t i = 0; i < tp_fabric_node_count(f); i++)
		if (tp_fabric_node_at(f, i)->host == dst)
			dlid = tp_fabric_node_at(f, i)->lid;
	assert_true(dlid > 0 && dlid < 256);
	assert_int_equal(tp_routes_new(f, &r, &err), TP_OK);
	/* no table at all */
	assert_int_equal(
	    tp_routes_path(r, src, dst, path, TP_ROUTE_MAX_HOPS, &n, &err),
	    TP_ERR_NOTFOUND);
	snprintf(want, sizeof(want),
	         "routes: n0001 -> n0016: switch leaf001 has no usable route "
	         "to LID %u",
	         dlid);
	assert_string_equal(err.message, want);
	/* leaf001 -> spine001 -> back to leaf001: a loop */
	for (uint32_t p = 1; p <= tp_fabric_node_at(f, leaf1)->port_count;
	     p++) {
		const tp_fabric_port *peer =
		    tp_fabric_peer(f, tp_fabric_node_port(f, leaf1, p) -
		                          tp_fabric_port_at(f, 0));

		if (peer != NULL && peer->node == spine1) {
			up = p;
			down = peer->num;
		}
	}
	assert_true(up > 0);
	table[dlid] = (uint8_t)up;
	assert_int_equal(tp_routes_set_lft(r, leaf1, table, 256, &err), TP_OK);
	table[dlid] = (uint8_t)down;
	assert_int_equal(tp_routes_set_lft(r, spine1, table, 256, &err), TP_OK);
	assert_int_equal(
	    tp_routes_path(r, src, dst, path, TP_ROUTE_MAX_HOPS, &n, &err),
	    TP_ERR_LIMIT);
	assert_string_equal(err.message, "routes: n0001 -> n0016: no end after "
	                                 "64 hops (routing loop?)");
	assert_int_equal(tp_routes_set_lft(r, src, table, 256, &err),
	                 TP_ERR_INVALID);
	tp_routes_free(r);
	tp_fabric_free(f);
}

static void test_updown_check_refuses_a_valley(void **state)
{
	tp_fabric *f = load("fat-4x4.cache");
	tp_routes *r;
	tp_error err = {0};
	uint32_t p1[TP_ROUTE_MAX_HOPS], p2[TP_ROUTE_MAX_HOPS], valley[16];
	size_t n1, n2, k = 0;

	(void)state;
	assert_int_equal(tp_routes_new_dmodk(f, &r, &err), TP_OK);
	/* n0001 -> n0005 (up, down) then on from leaf002 up again */
	assert_int_equal(
	    tp_routes_path(r, 0, 4, p1, TP_ROUTE_MAX_HOPS, &n1, &err), TP_OK);
	assert_int_equal(
	    tp_routes_path(r, 4, 8, p2, TP_ROUTE_MAX_HOPS, &n2, &err), TP_OK);
	assert_int_equal(n1, 4);
	for (size_t i = 0; i < 3; i++)
		valley[k++] = p1[i];
	for (size_t i = 1; i < n2; i++)
		valley[k++] = p2[i];
	assert_true(tp_routes_path_is_updown(f, p1, n1));
	assert_false(tp_routes_path_is_updown(f, valley, k));
	tp_routes_free(r);
	tp_fabric_free(f);
}

static void test_traffic_load_adds_bytes_per_link_direction(void **state)
{
	tp_fabric *f = load("fat-4x4.cache");
	uint64_t *load_bytes =
	    calloc(tp_fabric_port_count(f), sizeof(uint64_t));
	const tp_route_flow flows[] = {
	    {"n0001", "n0002", 100},  /* same leaf: 2 ports */
	    {"n0001", "n0005", 1000}, /* other leaf: 4 ports */
	    {"n0002", "n0005", 10},
	};
	const tp_route_flow bad[] = {{"n0001", "n9999", 1}};
	tp_routes *r;
	tp_error err = {0};
	uint64_t total = 0, at_src = 0;
	uint32_t n0001 = tp_fabric_find_node(f, "n0001");

	(void)state;
	assert_non_null(load_bytes);
	assert_int_equal(tp_routes_new_dmodk(f, &r, &err), TP_OK);
	assert_int_equal(tp_routes_load(r, flows, 3, load_bytes, &err), TP_OK);
	for (uint32_t p = 0; p < tp_fabric_port_count(f); p++)
		total += load_bytes[p];
	/* hop-bytes: 100*2 + 1000*4 + 10*4 */
	assert_int_equal(total, 100 * 2 + 1000 * 4 + 10 * 4);
	at_src = load_bytes[tp_fabric_node_at(f, n0001)->first_port];
	assert_int_equal(at_src, 1100);
	assert_int_equal(tp_routes_load(r, bad, 1, load_bytes, &err),
	                 TP_ERR_NOTFOUND);
	assert_string_equal(err.message, "traffic entry 1: unknown host n9999");
	tp_routes_free(r);
	free(load_bytes);
	tp_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dmodk_routes_go_up_then_down_with_tree_hops),
	    cmocka_unit_test(test_lft_routes_follow_the_tables),
	    cmocka_unit_test(test_missing_entries_and_loops_are_named),
	    cmocka_unit_test(test_updown_check_refuses_a_valley),
	    cmocka_unit_test(test_traffic_load_adds_bytes_per_link_direction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
