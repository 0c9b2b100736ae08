/*
 * test_remap_scotch.c: the remapper's Scotch candidate (placement/
 * remap_scotch.c) on fabrics a real site has: pods of unequal leaf counts,
 * leaves of unequal host counts, hosts of unequal slot counts, idle slots.
 * Every rank must land on an allocated host within its slots, the same way
 * for the same seed, and the mapping must follow the fabric (groups that
 * fit a leaf kept on one).  Without Scotch in the build the candidate
 * refuses with TP_ERR_UNSUPPORTED and the remapper works without it.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cost.h"
#include "remap.h"
#include "remap_scotch.h"
#include "test_remap_groups.h"

/*
 * Pod 0: leaves of 5 and 2 hosts; pod 1: one leaf of 3 hosts.  Host
 * names h0.. in order, leaf l<i>.
 */
static tp_topo *uneven_fabric(void)
{
	static const uint32_t leaf_pod[] = {0, 0, 1}, leaf_hosts[] = {5, 2, 3};
	tp_topo *topo;
	tp_error err;
	uint32_t pod[2], host = 0;
	char name[16];

	assert_int_equal(tp_topo_new(&topo, &err), TP_OK);
	assert_int_equal(tp_topo_add_pod(topo, "p0", &pod[0], &err), TP_OK);
	assert_int_equal(tp_topo_add_pod(topo, "p1", &pod[1], &err), TP_OK);
	for (uint32_t l = 0; l < 3; l++) {
		uint32_t leaf;

		snprintf(name, sizeof(name), "l%u", l);
		assert_int_equal(tp_topo_add_leaf(topo, name, pod[leaf_pod[l]],
		                                  &leaf, &err),
		                 TP_OK);
		for (uint32_t h = 0; h < leaf_hosts[l]; h++) {
			snprintf(name, sizeof(name), "h%u", host++);
			assert_int_equal(
			    tp_topo_add_host(topo, name, leaf, NULL, &err),
			    TP_OK);
		}
	}
	assert_int_equal(tp_topo_finish(topo, &err), TP_OK);
	return topo;
}

static tp_traffic_csr *csr_of(const tp_traffic *t)
{
	tp_traffic_csr *g;
	tp_error err;

	assert_int_equal(
	    tp_traffic_csr_build(t, TP_TRAFFIC_CSR_UNDIRECTED, &g, &err),
	    TP_OK);
	return g;
}

/*
 * 8 ranks in two groups of 4 on hosts of 1, 2 and 4 slots (10 slots: 2
 * idle) spread over both pods: each rank on an allocated host, no host
 * over its slots, the same mapping twice, and each group on one leaf:
 * leaf l0 (hosts 0, 1: 1 + 4 slots) and leaf l2 (hosts 5, 6: 2 + 2)
 * each hold a group, so only that costs no hop between leaves.
 */
static void test_scotch_maps_onto_an_uneven_fabric(void **state)
{
	const tp_remap_host hosts[] = {{0, 1}, {1, 4}, {5, 2}, {6, 2}, {7, 1}};
	const uint32_t nh = sizeof(hosts) / sizeof(*hosts);
	tp_topo *topo = uneven_fabric();
	tp_traffic *t = two_groups(4);
	tp_traffic_csr *g = csr_of(t);
	uint32_t hl[8], again[8], used[5] = {0}, host_of[8];
	tp_error err;

	(void)state;
	if (!tp_remap_scotch_available()) {
		assert_int_equal(tp_remap_scotch_map(topo, hosts, nh, g, 1, hl,
		                                     &err),
		                 TP_ERR_UNSUPPORTED);
		print_message("built without Scotch: the candidate refuses\n");
		goto out;
	}
	assert_int_equal(tp_remap_scotch_map(topo, hosts, nh, g, 1, hl, &err),
	                 TP_OK);
	assert_int_equal(
	    tp_remap_scotch_map(topo, hosts, nh, g, 1, again, &err), TP_OK);
	assert_memory_equal(hl, again, sizeof(hl));
	for (uint32_t r = 0; r < 8; r++) {
		assert_true(hl[r] < nh);
		used[hl[r]]++;
		host_of[r] = hosts[hl[r]].host;
	}
	for (uint32_t i = 0; i < nh; i++)
		assert_true(used[i] <= hosts[i].slots);
	for (uint32_t r = 1; r < 8; r++)
		if (r / 4 == 0 || r % 4)
			assert_int_equal(
			    tp_topo_host_leaf(topo, host_of[r]),
			    tp_topo_host_leaf(topo, host_of[r - r % 4]));
	assert_int_not_equal(tp_topo_host_leaf(topo, host_of[0]),
	                     tp_topo_host_leaf(topo, host_of[4]));
	/* 2 groups x 12 ordered pairs x 1000 bytes x 2 hops (or 0). */
	assert_true(tp_cost_hop_bytes(topo, t, host_of) <= 2 * 12 * 1000 * 2);
out:
	tp_traffic_csr_free(g);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/* More ranks than slots: refused with a message, nothing written. */
static void test_scotch_refuses_more_ranks_than_slots(void **state)
{
	const tp_remap_host hosts[] = {{0, 1}, {1, 2}};
	tp_topo *topo = uneven_fabric();
	tp_traffic *t = two_groups(2);
	tp_traffic_csr *g = csr_of(t);
	uint32_t hl[4] = {99, 99, 99, 99};
	tp_error err;

	(void)state;
	if (tp_remap_scotch_available()) {
		assert_int_equal(
		    tp_remap_scotch_map(topo, hosts, 2, g, 1, hl, &err),
		    TP_ERR_INVALID);
		assert_non_null(strstr(err.message, "4 ranks on 3 slots"));
	}
	for (int r = 0; r < 4; r++)
		assert_int_equal(hl[r], 99);
	tp_traffic_csr_free(g);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/*
 * The remapper with and without its Scotch candidate (options
 * without_scotch) on 64 ranks of two groups of 32 over the uneven fabric
 * at 8 slots a host (8 hosts): the same count of partitions but one, and
 * both results at or below block.
 */
static void test_remapper_counts_the_scotch_candidate(void **state)
{
	tp_remap_host hosts[8];
	tp_topo *topo = uneven_fabric();
	tp_traffic *t = two_groups(32);
	tp_remap_mapping m;
	tp_remap_stats with, without;
	tp_error err;
	tp_remap_options opt = {.search = TP_REMAP_SEARCH_AUTO};

	(void)state;
	for (uint32_t i = 0; i < 8; i++)
		hosts[i] = (tp_remap_host){i, 8};
	assert_int_equal(tp_remap_compute_options(topo, t, hosts, 8, 1, &opt,
	                                          NULL, &m, &with, &err),
	                 TP_OK);
	tp_remap_mapping_free(&m);
	opt.without_scotch = true;
	assert_int_equal(tp_remap_compute_options(topo, t, hosts, 8, 1, &opt,
	                                          NULL, &m, &without, &err),
	                 TP_OK);
	tp_remap_mapping_free(&m);
	print_message("partitions with Scotch %u, without %u\n",
	              with.partitions, without.partitions);
	assert_int_equal(with.partitions,
	                 without.partitions + tp_remap_scotch_available());
	assert_string_not_equal(without.partition, "scotch");
	assert_true(with.hop_bytes <= with.block_hop_bytes);
	assert_true(without.hop_bytes <= without.block_hop_bytes);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scotch_maps_onto_an_uneven_fabric),
	    cmocka_unit_test(test_scotch_refuses_more_ranks_than_slots),
	    cmocka_unit_test(test_remapper_counts_the_scotch_candidate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
