/*
 * test_remap.c: the remapper finds known optima on small cases, is never
 * worse than block, places every rank within capacity, is deterministic
 * for a seed on the real matrices, and refuses impossible requests.
 */
#include "tp_config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cost.h"
#include "remap.h"

/* Every rank on an allocated host, no slot used twice or out of range. */
static void assert_valid(const tp_topo *topo, const tp_remap_host *hosts,
                         uint32_t nhosts, const tp_remap_mapping *m)
{
	uint32_t th = tp_topo_host_count(topo);
	uint32_t *pos = malloc(th * sizeof(*pos));
	uint8_t *taken;
	uint64_t total = 0;

	assert_non_null(pos);
	for (uint32_t h = 0; h < th; h++)
		pos[h] = UINT32_MAX;
	for (uint32_t i = 0; i < nhosts; i++) {
		pos[hosts[i].host] = (uint32_t)total;
		total += hosts[i].slots;
	}
	taken = calloc(total, 1);
	assert_non_null(taken);
	for (uint32_t r = 0; r < m->ranks; r++) {
		uint32_t h = m->rank_host[r], i;

		assert_true(h < th);
		assert_int_not_equal(pos[h], UINT32_MAX);
		for (i = 0; hosts[i].host != h; i++)
			;
		assert_true(m->rank_slot[r] < hosts[i].slots);
		assert_false(taken[pos[h] + m->rank_slot[r]]);
		taken[pos[h] + m->rank_slot[r]] = 1;
	}
	free(taken);
	free(pos);
}

static tp_remap_host *first_hosts(uint32_t n, uint32_t slots)
{
	tp_remap_host *h = malloc(n * sizeof(*h));

	assert_non_null(h);
	for (uint32_t i = 0; i < n; i++)
		h[i] = (tp_remap_host){i, slots};
	return h;
}

/*
 * A ring 0-4-1-5-2-6-3-7-0 on 2 leaves x 2 hosts x 2 slots.  Block puts
 * every pair of ring neighbours on different leaves; the optimum cuts the ring
 * twice between leaves (4 hops) and twice between hosts of a leaf (2 hops): 12
 * x 100.
 */
static void test_two_leaf_ring_reaches_known_optimum(void **state)
{
	static const uint32_t ring[8] = {0, 4, 1, 5, 2, 6, 3, 7};
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts = first_hosts(4, 2);
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 8, &err), TP_OK);
	for (int i = 0; i < 8; i++)
		assert_int_equal(
		    tp_traffic_add(t, ring[i], ring[(i + 1) % 8], 100, 1, &err),
		    TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 4, 7, NULL, &m, &st, &err), TP_OK);
	assert_valid(topo, hosts, 4, &m);
	/* Block: every ring edge crosses the leaves. */
	assert_int_equal(st.block_hop_bytes, 100 * 8 * 4);
	assert_int_equal(st.hop_bytes, 1200);
	assert_int_equal(tp_cost_hop_bytes(topo, t, m.rank_host), 1200);
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
	free(hosts);
}

/*
 * Two heavy pairs split by block across pods: {0,2} and {1,3} talk, each
 * host has 2 slots in different pods.  Optimum: each pair on one host.
 */
static void test_heavy_pairs_share_a_host(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host hosts[2] = {{0, 2}, {1, 2}};
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 1, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 4, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 0, 2, 1000, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 3, 1, 1000, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 0, 1, 1, 1, &err), TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 2, 1, NULL, &m, &st, &err), TP_OK);
	assert_int_equal(st.block_hop_bytes, 6 * 2000);
	assert_int_equal(st.hop_bytes, 6);
	assert_int_equal(m.rank_host[0], m.rank_host[2]);
	assert_int_equal(m.rank_host[1], m.rank_host[3]);
	assert_valid(topo, hosts, 2, &m);
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

static void test_one_rank_zero_traffic_and_spare_slots(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts = first_hosts(8, 4);
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 2, 2, &err), TP_OK);
	/* 1 rank. */
	assert_int_equal(tp_traffic_new(&t, 1, &err), TP_OK);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 8, 1, NULL, &m, &st, &err), TP_OK);
	assert_int_equal(m.ranks, 1);
	assert_int_equal(m.rank_host[0], 0);
	assert_int_equal(m.rank_slot[0], 0);
	assert_string_equal(st.chosen, "block");
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	/* Zero traffic, fewer ranks than slots: the block mapping. */
	assert_int_equal(tp_traffic_new(&t, 10, &err), TP_OK);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 8, 1, NULL, &m, &st, &err), TP_OK);
	for (uint32_t r = 0; r < 10; r++) {
		assert_int_equal(m.rank_host[r], r / 4);
		assert_int_equal(m.rank_slot[r], r % 4);
	}
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
	free(hosts);
}

/*
 * Nothing better than the current (block) mapping: 4 cliques of 4 ranks in
 * rank order, each filling one host (4 slots) of the first 2 leaves of a
 * 2x2x2 tree, cliques 0-1 and 2-3 also talking within their leaf (ranks
 * 3-4 and 11-12, 2 hops).  Block is optimal; other
 * optimal mappings exist (a clique's ranks permuted over its host's
 * slots, hosts swapped), and the job must keep block itself, slot for
 * slot, with the hop-bytes counted by hand.
 */
static void test_an_optimal_block_mapping_is_kept(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts = first_hosts(4, 4);
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 16, &err), TP_OK);
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = 0; b < 16; b++)
			if (a != b && a / 4 == b / 4)
				assert_int_equal(
				    tp_traffic_add(t, a, b, 100, 1, &err),
				    TP_OK);
	/* Hosts 0-1 share leaf 1, hosts 2-3 leaf 2: 2 hops. */
	assert_int_equal(tp_traffic_add(t, 3, 4, 7, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 11, 12, 5, 1, &err), TP_OK);
	tp_traffic_normalize(t);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		assert_int_equal(tp_remap_compute(topo, t, hosts, 4, seed, NULL,
		                                  &m, &st, &err),
		                 TP_OK);
		assert_string_equal(st.chosen, "block");
		assert_int_equal(st.hop_bytes, st.block_hop_bytes);
		assert_int_equal(st.hop_bytes, 2 * 7 + 2 * 5);
		for (uint32_t r = 0; r < 16; r++) {
			assert_int_equal(m.rank_host[r], r / 4);
			assert_int_equal(m.rank_slot[r], r % 4);
		}
		tp_remap_mapping_free(&m);
	}
	tp_traffic_free(t);
	tp_topo_free(topo);
	free(hosts);
}

/*
 * Two disconnected cliques of 4 ranks, interleaved in rank order, on 2
 * leaves of 2 hosts x 2 slots: each clique must end up on its own leaf.
 */
static void test_disconnected_groups_get_a_leaf_each(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts = first_hosts(4, 2);
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 8, &err), TP_OK);
	for (uint32_t a = 0; a < 8; a++)
		for (uint32_t b = 0; b < 8; b++)
			if (a != b && a % 2 == b % 2)
				assert_int_equal(
				    tp_traffic_add(t, a, b, 10, 1, &err),
				    TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 4, 3, NULL, &m, &st, &err), TP_OK);
	assert_valid(topo, hosts, 4, &m);
	for (uint32_t r = 2; r < 8; r += 2) {
		assert_int_equal(tp_topo_host_leaf(topo, m.rank_host[r]),
		                 tp_topo_host_leaf(topo, m.rank_host[0]));
		assert_int_equal(tp_topo_host_leaf(topo, m.rank_host[r + 1]),
		                 tp_topo_host_leaf(topo, m.rank_host[1]));
	}
	assert_int_not_equal(tp_topo_host_leaf(topo, m.rank_host[0]),
	                     tp_topo_host_leaf(topo, m.rank_host[1]));
	/* Each clique: 12 arcs, 4 on-host, 8 at 2 hops, of 10 bytes. */
	assert_int_equal(st.hop_bytes, 2 * 8 * 2 * 10);
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
	free(hosts);
}

/*
 * Uneven leaves, fewer ranks than slots: 12 ranks all-to-all on hosts
 * n0001, n0002 (leaf 1) and n0005-n0007 (leaf 2), 4 slots each.  Block
 * spills onto leaf 2 (320 hop-bytes); packing into leaf 2's 12 slots is
 * optimal: 96 cross-host arcs at 2 hops.
 */
static void test_spare_slots_pack_the_job_into_one_leaf(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host hosts[5] = {{0, 4}, {1, 4}, {4, 4}, {5, 4}, {6, 4}};
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 4, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 12, &err), TP_OK);
	for (uint32_t a = 0; a < 12; a++)
		for (uint32_t b = 0; b < 12; b++)
			if (a != b)
				assert_int_equal(
				    tp_traffic_add(t, a, b, 1, 1, &err), TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 5, 1, NULL, &m, &st, &err), TP_OK);
	assert_valid(topo, hosts, 5, &m);
	assert_int_equal(st.block_hop_bytes, 320);
	assert_int_equal(st.hop_bytes, 192);
	for (uint32_t r = 0; r < 12; r++)
		assert_int_equal(tp_topo_host_leaf(topo, m.rank_host[r]), 1);
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/*
 * Byte counts near 2^62: sums saturate instead of wrapping (block would
 * wrap to 0 and look optimal), and the heavy pairs still share hosts.
 */
static void test_huge_byte_counts_saturate_not_wrap(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host hosts[2] = {{0, 2}, {1, 2}};
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 1, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 4, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 0, 2, 1ull << 62, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 1, 3, 1ull << 62, 1, &err), TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 2, 1, NULL, &m, &st, &err), TP_OK);
	assert_true(st.block_hop_bytes == UINT64_MAX);
	assert_int_equal(st.hop_bytes, 0);
	assert_int_equal(m.rank_host[0], m.rank_host[2]);
	assert_int_equal(m.rank_host[1], m.rank_host[3]);
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/* The search names the CLI and peer_bench take; a bad one is named. */
static void test_search_names_round_trip(void **state)
{
	tp_remap_search s = TP_REMAP_SEARCH_FULL;
	tp_error err;

	(void)state;
	assert_int_equal(tp_remap_search_parse("fast", &s, &err), TP_OK);
	assert_int_equal(s, TP_REMAP_SEARCH_FAST);
	assert_string_equal(tp_remap_search_name(s), "fast");
	assert_int_equal(tp_remap_search_parse("full", &s, &err), TP_OK);
	assert_int_equal(s, TP_REMAP_SEARCH_FULL);
	assert_string_equal(tp_remap_search_name(s), "full");
	assert_int_equal(tp_remap_search_parse("auto", &s, &err), TP_OK);
	assert_int_equal(s, TP_REMAP_SEARCH_AUTO);
	assert_string_equal(tp_remap_search_name(s), "auto");
	s = TP_REMAP_SEARCH_FULL;
	assert_int_equal(tp_remap_search_parse("quick", &s, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "remap search 'quick': expected auto, full or fast");
	assert_int_equal(s, TP_REMAP_SEARCH_FULL);
	assert_null(tp_remap_search_name((tp_remap_search)7));
}

static void test_impossible_requests_are_refused(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host hosts[3] = {{0, 2}, {1, 2}, {2, 2}};
	tp_remap_mapping m;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 7, &err), TP_OK);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 3, 1, NULL, &m, NULL, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "remap: 7 ranks but only 6 slots on 3 hosts");
	assert_null(m.rank_host);
	assert_int_equal(
	    tp_remap_baseline(topo, 7, hosts, 3, TP_REMAP_CYCLIC, 1, &m, &err),
	    TP_ERR_INVALID);
	hosts[2].host = 1;
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 3, 1, NULL, &m, NULL, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message, "remap: host n0002 allocated twice");
	hosts[2] = (tp_remap_host){9, 2};
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 3, 1, NULL, &m, NULL, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "remap: allocated host #2 has index 9, fabric has "
	                    "4 hosts");
	hosts[2] = (tp_remap_host){2, 0};
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 3, 1, NULL, &m, NULL, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message, "remap: host n0003 has 0 slots");
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 0, 1, NULL, &m, NULL, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message, "remap: no allocated host");
	tp_traffic_free(t);
	tp_topo_free(topo);
}

static void test_baselines_fill_as_named(void **state)
{
	tp_topo *topo;
	tp_remap_host hosts[3] = {{3, 1}, {0, 3}, {1, 2}};
	tp_remap_mapping m;
	tp_error err;
	static const uint32_t block[5] = {3, 0, 0, 0, 1};
	static const uint32_t cyclic[5] = {3, 0, 1, 0, 1};
	uint32_t per_host[4] = {0};

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(
	    tp_remap_baseline(topo, 5, hosts, 3, TP_REMAP_BLOCK, 0, &m, &err),
	    TP_OK);
	assert_memory_equal(m.rank_host, block, sizeof(block));
	assert_valid(topo, hosts, 3, &m);
	tp_remap_mapping_free(&m);
	assert_int_equal(
	    tp_remap_baseline(topo, 5, hosts, 3, TP_REMAP_CYCLIC, 0, &m, &err),
	    TP_OK);
	assert_memory_equal(m.rank_host, cyclic, sizeof(cyclic));
	assert_valid(topo, hosts, 3, &m);
	tp_remap_mapping_free(&m);
	assert_int_equal(
	    tp_remap_baseline(topo, 6, hosts, 3, TP_REMAP_RANDOM, 42, &m, &err),
	    TP_OK);
	assert_valid(topo, hosts, 3, &m);
	for (int r = 0; r < 6; r++)
		per_host[m.rank_host[r]]++;
	assert_int_equal(per_host[0], 3);
	assert_int_equal(per_host[1], 2);
	assert_int_equal(per_host[3], 1);
	tp_remap_mapping_free(&m);
	assert_int_equal(
	    tp_remap_baseline(topo, 5, hosts, 3, TP_REMAP_TOPO, 0, &m, &err),
	    TP_ERR_INVALID);
	tp_topo_free(topo);
}

static void test_method_names_round_trip(void **state)
{
	tp_remap_method m;
	tp_error err;

	(void)state;
	assert_int_equal(tp_remap_method_parse("cyclic", &m, &err), TP_OK);
	assert_int_equal(m, TP_REMAP_CYCLIC);
	assert_string_equal(tp_remap_method_name(TP_REMAP_TOPO), "remap");
	assert_int_equal(tp_remap_method_parse("greedy", &m, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "mapping method 'greedy': expected block, cyclic, "
	                    "random or remap");
}

static void test_hostlists_expand_and_refuse_unknown_hosts(void **state)
{
	tp_topo *topo;
	tp_remap_host *h;
	uint32_t n;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 4, 4, &err), TP_OK);
	assert_int_equal(tp_remap_hosts_parse(topo, "n[0001-0003,0010],n0030",
	                                      16, &h, &n, &err),
	                 TP_OK);
	assert_int_equal(n, 5);
	assert_int_equal(h[0].host, 0);
	assert_int_equal(h[2].host, 2);
	assert_int_equal(h[3].host, 9);
	assert_int_equal(h[4].host, 29);
	assert_int_equal(h[4].slots, 16);
	free(h);
	assert_int_equal(
	    tp_remap_hosts_parse(topo, "n[0030-0033]", 1, &h, &n, &err),
	    TP_ERR_NOTFOUND);
	assert_string_equal(err.message,
	                    "hostlist 'n[0030-0033]': host 'n0033' is not in "
	                    "the fabric");
	assert_null(h);
	assert_int_equal(
	    tp_remap_hosts_parse(topo, "n[0001-0002],n0002", 1, &h, &n, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message, "hostlist 'n[0001-0002],n0002': host "
	                                 "'n0002' listed twice");
	assert_int_equal(
	    tp_remap_hosts_parse(topo, "n[0003-0001]", 1, &h, &n, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message, "hostlist 'n[0003-0001]': range "
	                                 "0003-0001 goes backwards");
	assert_int_equal(tp_remap_hosts_parse(topo, "n[0001", 1, &h, &n, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message, "hostlist 'n[0001': '[' without ']' "
	                                 "in \"n[0001\"");
	tp_topo_free(topo);
}

/* Every real matrix at 1 and 16 ranks/host, even and uneven hosts. */
static void test_real_matrices_never_worse_than_block(void **state)
{
	const char *srcdir = getenv("abs_top_srcdir");
	char dir[4096];
	DIR *d;
	struct dirent *de;
	tp_topo *topo;
	tp_error err;
	int files = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/data/matrices",
	         srcdir ? srcdir : ".");
	d = opendir(dir);
	assert_non_null(d);
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 8, 18, &err), TP_OK);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[8192];
		tp_traffic *t;

		if (l < 5 || strcmp(de->d_name + l - 4, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(tp_traffic_read_file(path, NULL, &t, &err),
		                 TP_OK);
		files++;
		for (int shape = 0; shape < 3; shape++) {
			/* 1/host; 16/host; 8 or 16 slots on every 3rd host. */
			uint32_t rpn = shape == 0 ? 1 : 16, nh = 0;
			tp_remap_host hosts[288];
			uint64_t slots = 0;
			tp_remap_mapping m1, m2;
			tp_remap_stats s1, s2;

			for (uint32_t h = 0; h < 288 && slots < t->ranks; h++) {
				if (shape == 2 && h % 3)
					continue;
				hosts[nh] = (tp_remap_host){
				    h, shape == 2 ? (h % 2 ? 8 : 16) : rpn};
				slots += hosts[nh++].slots;
			}
			assert_int_equal(tp_remap_compute(topo, t, hosts, nh, 5,
			                                  NULL, &m1, &s1, &err),
			                 TP_OK);
			assert_int_equal(m1.ranks, t->ranks);
			assert_valid(topo, hosts, nh, &m1);
			assert_true(s1.hop_bytes <= s1.block_hop_bytes);
			assert_int_equal(
			    tp_cost_hop_bytes(topo, t, m1.rank_host),
			    s1.hop_bytes);
			assert_int_equal(tp_remap_compute(topo, t, hosts, nh, 5,
			                                  NULL, &m2, &s2, &err),
			                 TP_OK);
			assert_memory_equal(m1.rank_host, m2.rank_host,
			                    t->ranks * sizeof(uint32_t));
			assert_memory_equal(m1.rank_slot, m2.rank_slot,
			                    t->ranks * sizeof(uint32_t));
			tp_remap_mapping_free(&m1);
			tp_remap_mapping_free(&m2);
		}
		tp_traffic_free(t);
	}
	closedir(d);
	assert_int_equal(files, 19);
	tp_topo_free(topo);
}

/* A 4x4x4 stencil at 16 ranks/host over 2 leaves: well below block. */
static void test_stencil_improves_clearly_on_block(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts = first_hosts(8, 8);
	tp_remap_mapping m;
	tp_remap_stats st;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 4, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 64, &err), TP_OK);
	/* Relabel ranks so block is bad: rank = (i*37) % 64. */
	for (uint32_t v = 0; v < 64; v++) {
		uint32_t x = v % 4, y = v / 4 % 4, z = v / 16;
		uint32_t nb[3] = {x < 3 ? v + 1 : v, y < 3 ? v + 4 : v,
		                  z < 3 ? v + 16 : v};

		for (int k = 0; k < 3; k++)
			if (nb[k] != v)
				assert_int_equal(tp_traffic_add(t, v * 37 % 64,
				                                nb[k] * 37 % 64,
				                                1000, 1, &err),
				                 TP_OK);
	}
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 8, 1, NULL, &m, &st, &err), TP_OK);
	assert_valid(topo, hosts, 8, &m);
	/* The natural layout (8-rank 2x2x2 blocks) costs 2/5 of block here. */
	assert_true(st.hop_bytes * 2 < st.block_hop_bytes);
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
	free(hosts);
}

/*
 * The refinement applies a move or swap only when its computed gain is
 * positive, so it can only lower hop-bytes, refined <= partition, if the
 * gains are exact.  Checked where the shortcuts in computing them matter:
 * irregular leaf distances (as measured on a real fabric), hosts of 1 and
 * 2 slots on one leaf, random traffic, many seeds; the refinement must
 * have moved ranks on some of them.  Every other seed's bytes are scaled
 * by 2^38, above the 2^54 bytes up to which the reported hop-bytes come
 * from the refinement's own sums (counted over the traffic above): both
 * must be the returned mapping's.
 */
static void test_refinement_gains_are_exact_on_irregular_fabrics(void **state)
{
	enum { LEAVES = 6, PER_LEAF = 4, RANKS = 30 };
	tp_topo *topo;
	tp_error err;
	uint32_t pod, leaf[LEAVES], nh = LEAVES * PER_LEAF;
	tp_remap_host hosts[LEAVES * PER_LEAF];
	uint64_t rng = 7, moves = 0;
	char name[16];

	(void)state;
	assert_int_equal(tp_topo_new(&topo, &err), TP_OK);
	assert_int_equal(tp_topo_add_pod(topo, "pod1", &pod, &err), TP_OK);
	for (uint32_t l = 0; l < LEAVES; l++) {
		snprintf(name, sizeof(name), "leaf%u", l + 1);
		assert_int_equal(
		    tp_topo_add_leaf(topo, name, pod, &leaf[l], &err), TP_OK);
		for (uint32_t h = 0; h < PER_LEAF; h++) {
			snprintf(name, sizeof(name), "h%02u", l * PER_LEAF + h);
			assert_int_equal(
			    tp_topo_add_host(topo, name, leaf[l], NULL, &err),
			    TP_OK);
		}
	}
	for (uint32_t a = 0; a < LEAVES; a++)
		for (uint32_t b = a + 1; b < LEAVES; b++) {
			rng = rng * 6364136223846793005ull +
			      1442695040888963407ull;
			assert_int_equal(tp_topo_set_leaf_distance(
			                     topo, leaf[a], leaf[b],
			                     4 + (unsigned)(rng >> 60), &err),
			                 TP_OK);
		}
	assert_int_equal(tp_topo_finish(topo, &err), TP_OK);
	for (uint32_t i = 0; i < nh; i++)
		hosts[i] = (tp_remap_host){i, 1 + i % 3 % 2};
	for (uint64_t seed = 1; seed <= 24; seed++) {
		tp_traffic *t;
		tp_remap_mapping m;
		tp_remap_stats st;

		assert_int_equal(tp_traffic_new(&t, RANKS, &err), TP_OK);
		for (int e = 0; e < 3 * RANKS; e++) {
			uint32_t a, b;

			rng = rng * 6364136223846793005ull +
			      1442695040888963407ull;
			a = (uint32_t)(rng >> 33) % RANKS;
			b = (uint32_t)(rng >> 45) % RANKS;
			assert_int_equal(tp_traffic_add(t, a, b,
			                                (1 + (rng >> 20) % 5000)
			                                    << (seed % 2 ? 0 : 38),
			                                1, &err),
			                 TP_OK);
		}
		tp_traffic_normalize(t);
		assert_int_equal(tp_remap_compute(topo, t, hosts, nh, seed,
		                                  NULL, &m, &st, &err),
		                 TP_OK);
		assert_valid(topo, hosts, nh, &m);
		assert_true(st.refined_hop_bytes <= st.partition_hop_bytes);
		assert_true(st.hop_bytes <= st.block_hop_bytes);
		assert_int_equal(tp_cost_hop_bytes(topo, t, m.rank_host),
		                 st.hop_bytes);
		moves += st.moves;
		tp_remap_mapping_free(&m);
		tp_traffic_free(t);
	}
	assert_true(moves > 0);
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_leaf_ring_reaches_known_optimum),
	    cmocka_unit_test(test_heavy_pairs_share_a_host),
	    cmocka_unit_test(test_one_rank_zero_traffic_and_spare_slots),
	    cmocka_unit_test(test_an_optimal_block_mapping_is_kept),
	    cmocka_unit_test(test_disconnected_groups_get_a_leaf_each),
	    cmocka_unit_test(test_spare_slots_pack_the_job_into_one_leaf),
	    cmocka_unit_test(test_huge_byte_counts_saturate_not_wrap),
	    cmocka_unit_test(test_impossible_requests_are_refused),
	    cmocka_unit_test(test_baselines_fill_as_named),
	    cmocka_unit_test(test_method_names_round_trip),
	    cmocka_unit_test(test_search_names_round_trip),
	    cmocka_unit_test(test_hostlists_expand_and_refuse_unknown_hosts),
	    cmocka_unit_test(test_real_matrices_never_worse_than_block),
	    cmocka_unit_test(test_stencil_improves_clearly_on_block),
	    cmocka_unit_test(
	        test_refinement_gains_are_exact_on_irregular_fabrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
