/*
 * test_cost_links.c: the per-link load of a job's MPI traffic under a
 * mapping, over a fabric's routes, is exact on small fabrics read from
 * topology.conf text (D-mod-k routes: a path to fabric host d climbs
 * through its leaf's (d mod uplinks)-th uplink, uplinks in cabling
 * order).  A 4-rank ring costs what is worked out by hand under two
 * mappings; every byte is counted once per link it crosses, so the sum
 * over link directions is the mapping's hop-bytes and the stages split it
 * by hop class; on-node traffic loads no link; the busiest routed link
 * can replace the leaf-uplink estimate in the contention term; and bad
 * input (a rank on a host the fabric lacks or outside the hierarchy, a
 * pair without a route) fails with one line naming it.
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

#include "cost.h"
#include "discover.h"

/*
 * 2 leaves x 2 hosts, 2 spines.  topology.conf cables switches in the
 * order given: leaf001 ports 1-2 to n0001-n0002, 3 to spine001, 4 to
 * spine002 (leaf002 likewise); spine00s port l to leaf00l.  Fabric hosts
 * are indexed by name: n0001 is 0, so paths to n0001 and n0003 climb
 * through spine001, paths to n0002 and n0004 through spine002.
 */
static const char two_level[] = "SwitchName=leaf001 Nodes=n[0001-0002]\n"
                                "SwitchName=leaf002 Nodes=n[0003-0004]\n"
                                "SwitchName=spine001 Switches=leaf[001-002]\n"
                                "SwitchName=spine002 Switches=leaf[001-002]\n";

/* 2 pods of 2 leaves x 2 hosts, 2 aggregation switches per pod, 2 cores. */
static const char three_level[] = "SwitchName=leaf001 Nodes=n[0001-0002]\n"
                                  "SwitchName=leaf002 Nodes=n[0003-0004]\n"
                                  "SwitchName=leaf003 Nodes=n[0005-0006]\n"
                                  "SwitchName=leaf004 Nodes=n[0007-0008]\n"
                                  "SwitchName=agg001 Switches=leaf[001-002]\n"
                                  "SwitchName=agg002 Switches=leaf[001-002]\n"
                                  "SwitchName=agg003 Switches=leaf[003-004]\n"
                                  "SwitchName=agg004 Switches=leaf[003-004]\n"
                                  "SwitchName=core001 Switches=agg[001,003]\n"
                                  "SwitchName=core002 Switches=agg[002,004]\n";

struct fixture {
	tp_fabric *fabric;
	tp_topo *topo;
	tp_routes *routes;
};

static void fixture_load(struct fixture *x, const char *conf)
{
	tp_error err;

	assert_int_equal(tp_discover_parse_topology_conf(
	                     conf, strlen(conf), "unit.conf", &x->fabric, &err),
	                 TP_OK);
	assert_int_equal(tp_fabric_to_topo(x->fabric, &x->topo, &err), TP_OK);
	assert_int_equal(tp_routes_new_dmodk(x->fabric, &x->routes, &err),
	                 TP_OK);
}

static void fixture_free(struct fixture *x)
{
	tp_routes_free(x->routes);
	tp_topo_free(x->topo);
	tp_fabric_free(x->fabric);
}

/* Index of the port of node @from whose cable leads to node @to. */
static uint32_t dir(const tp_fabric *f, const char *from, const char *to)
{
	uint32_t node = tp_fabric_find_node(f, from);
	const tp_fabric_node *n;

	assert_int_not_equal(node, TP_FABRIC_NONE);
	n = tp_fabric_node_at(f, node);
	for (uint32_t p = 0; p < n->port_count; p++) {
		const tp_fabric_port *peer =
		    tp_fabric_peer(f, n->first_port + p);

		if (peer && !strcmp(tp_fabric_node_at(f, peer->node)->name, to))
			return n->first_port + p;
	}
	fail_msg("no cable from %s to %s", from, to);
	return TP_FABRIC_NONE;
}

/* Host index in @topo of @name. */
static uint32_t host(const tp_topo *topo, const char *name)
{
	uint32_t h = tp_topo_find_host(topo, name);

	assert_int_not_equal(h, TP_TOPO_NONE);
	return h;
}

struct want {
	const char *from, *to;
	double bytes;
};

/* Every direction carries exactly what @want says, the others nothing. */
static void expect_dirs(const tp_fabric *f, const tp_link_load *load,
                        const struct want *want, size_t n)
{
	double *expect = calloc(tp_fabric_port_count(f) + 1, sizeof(double));

	assert_non_null(expect);
	assert_int_equal(load->port_count, tp_fabric_port_count(f));
	for (size_t i = 0; i < n; i++)
		expect[dir(f, want[i].from, want[i].to)] += want[i].bytes;
	for (uint32_t p = 0; p < load->port_count; p++) {
		if (load->port_bytes[p] != expect[p]) {
			const tp_fabric_port *fp = tp_fabric_port_at(f, p);
			const tp_fabric_port *q = tp_fabric_peer(f, p);
			double want_bytes = expect[p];

			free(expect);
			fail_msg("%s[%u]->%s: %g bytes, expected %g",
			         tp_fabric_node_at(f, fp->node)->name, fp->num,
			         q ? tp_fabric_node_at(f, q->node)->name : "-",
			         load->port_bytes[p], want_bytes);
		}
	}
	free(expect);
}

/*
 * A one-way ring of 4 ranks, each hop with its own size so that a byte
 * on the wrong link shows: 0->1 1000, 1->2 200, 2->3 30, 3->0 4.
 */
static tp_traffic *ring(void)
{
	static const uint64_t bytes[4] = {1000, 200, 30, 4};
	tp_traffic *t;
	tp_error err;

	assert_int_equal(tp_traffic_new(&t, 4, &err), TP_OK);
	for (uint32_t r = 0; r < 4; r++)
		assert_int_equal(
		    tp_traffic_add(t, r, (r + 1) % 4, bytes[r], 1, &err),
		    TP_OK);
	tp_traffic_normalize(t);
	return t;
}

static void map_ranks(const tp_topo *topo, const char *const names[4],
                      uint32_t map[4])
{
	for (int r = 0; r < 4; r++)
		map[r] = host(topo, names[r]);
}

/*
 * Block: ranks 0-3 on n0001-n0004.  0->1 and 2->3 stay on their leaf;
 * 1->2 (to n0003, index 2: spine001) and 3->0 (to n0001, index 0:
 * spine001) cross, both over spine001, in opposite directions.
 */
static void test_ring_block_loads_are_hand_computed(void **state)
{
	static const char *const names[4] = {"n0001", "n0002", "n0003",
	                                     "n0004"};
	static const struct want want[] = {
	    {"n0001", "leaf001", 1000},   {"leaf001", "n0002", 1000},
	    {"n0002", "leaf001", 200},    {"leaf001", "spine001", 200},
	    {"spine001", "leaf002", 200}, {"leaf002", "n0003", 200},
	    {"n0003", "leaf002", 30},     {"leaf002", "n0004", 30},
	    {"n0004", "leaf002", 4},      {"leaf002", "spine001", 4},
	    {"spine001", "leaf001", 4},   {"leaf001", "n0001", 4},
	};
	struct fixture x;
	tp_traffic *t = ring();
	tp_link_load load;
	uint32_t map[4];
	tp_error err;
	const tp_link_stage_load *hl, *ls;

	(void)state;
	fixture_load(&x, two_level);
	map_ranks(x.topo, names, map);
	assert_int_equal(
	    tp_cost_link_load(x.fabric, x.routes, x.topo, t, map, &load, &err),
	    TP_OK);
	expect_dirs(x.fabric, &load, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(load.kind, TP_ROUTES_DMODK);
	/* 1000 x 2 + 200 x 4 + 30 x 2 + 4 x 4 */
	assert_true(load.link_bytes == 2876);
	assert_int_equal(tp_cost_hop_bytes(x.topo, t, map), 2876);
	assert_true(load.fabric_bytes == 408);
	assert_int_equal(load.loaded_dirs, 12);
	assert_int_equal(load.loaded_links, 6);
	/* n0001's uplink and leaf001's port to n0002 both carry 1000: the
	 * lower port index (leaf001's, switches come first) is named */
	assert_true(load.max_bytes == 1000);
	assert_int_equal(load.max_port, dir(x.fabric, "leaf001", "n0002"));
	assert_true(load.max_fabric_bytes == 200);
	assert_int_equal(load.max_fabric_port,
	                 dir(x.fabric, "leaf001", "spine001"));
	hl = &load.stage[TP_LINK_STAGE_HOST_LEAF];
	ls = &load.stage[TP_LINK_STAGE_LEAF_SPINE];
	assert_true(hl->up_bytes == 1234 && hl->down_bytes == 1234);
	assert_int_equal(hl->up_dirs, 4);
	assert_int_equal(hl->down_dirs, 4);
	assert_true(ls->up_bytes == 204 && ls->down_bytes == 204);
	assert_int_equal(ls->up_dirs, 2);
	assert_int_equal(ls->max_port, dir(x.fabric, "leaf001", "spine001"));
	assert_true(load.stage[TP_LINK_STAGE_SPINE_CORE].up_bytes +
	                load.stage[TP_LINK_STAGE_SPINE_CORE].down_bytes ==
	            0);
	assert_int_equal(load.stage[TP_LINK_STAGE_SPINE_CORE].max_port,
	                 TP_FABRIC_NONE);
	tp_link_load_free(&load);
	assert_null(load.port_bytes);
	assert_int_equal(load.max_port, TP_FABRIC_NONE);
	tp_traffic_free(t);
	fixture_free(&x);
}

/*
 * Alternating leaves: ranks 0-3 on n0001, n0003, n0002, n0004.  Every hop
 * crosses the spines: to n0003 (0->1) and n0001 (3->0) over spine001, to
 * n0002 (1->2) and n0004 (2->3) over spine002.  Hop-bytes double, and the
 * busiest switch link carries the 1000 bytes that block kept on a leaf.
 */
static void test_ring_alternating_leaves_loads_the_spines(void **state)
{
	static const char *const names[4] = {"n0001", "n0003", "n0002",
	                                     "n0004"};
	static const struct want want[] = {
	    {"n0001", "leaf001", 1000},    {"leaf001", "spine001", 1000},
	    {"spine001", "leaf002", 1000}, {"leaf002", "n0003", 1000},
	    {"n0003", "leaf002", 200},     {"leaf002", "spine002", 200},
	    {"spine002", "leaf001", 200},  {"leaf001", "n0002", 200},
	    {"n0002", "leaf001", 30},      {"leaf001", "spine002", 30},
	    {"spine002", "leaf002", 30},   {"leaf002", "n0004", 30},
	    {"n0004", "leaf002", 4},       {"leaf002", "spine001", 4},
	    {"spine001", "leaf001", 4},    {"leaf001", "n0001", 4},
	};
	struct fixture x;
	tp_traffic *t = ring();
	tp_link_load load;
	uint32_t map[4];
	tp_error err;
	const tp_link_stage_load *ls;

	(void)state;
	fixture_load(&x, two_level);
	map_ranks(x.topo, names, map);
	assert_int_equal(
	    tp_cost_link_load(x.fabric, x.routes, x.topo, t, map, &load, &err),
	    TP_OK);
	expect_dirs(x.fabric, &load, want, sizeof(want) / sizeof(want[0]));
	assert_true(load.link_bytes == 4936);
	assert_int_equal(tp_cost_hop_bytes(x.topo, t, map), 4936);
	assert_int_equal(load.loaded_dirs, 16);
	assert_int_equal(load.loaded_links, 8);
	/* leaf001 -> spine001 and spine001 -> leaf002 tie; leaf001's port
	 * has the lower index */
	assert_true(load.max_fabric_bytes == 1000);
	assert_int_equal(load.max_fabric_port,
	                 dir(x.fabric, "leaf001", "spine001"));
	ls = &load.stage[TP_LINK_STAGE_LEAF_SPINE];
	assert_true(ls->up_bytes == 1234 && ls->down_bytes == 1234);
	assert_int_equal(ls->up_dirs, 4);
	assert_int_equal(ls->down_dirs, 4);
	assert_true(ls->max_bytes == 1000);
	tp_link_load_free(&load);
	tp_traffic_free(t);
	fixture_free(&x);
}

/* Two ranks per host: traffic between them never leaves the host. */
static void test_on_node_traffic_loads_no_link(void **state)
{
	static const char *const names[4] = {"n0002", "n0002", "n0002",
	                                     "n0002"};
	struct fixture x;
	tp_traffic *t = ring();
	tp_link_load load;
	uint32_t map[4];
	tp_error err;

	(void)state;
	fixture_load(&x, two_level);
	map_ranks(x.topo, names, map);
	assert_int_equal(
	    tp_cost_link_load(x.fabric, x.routes, x.topo, t, map, &load, &err),
	    TP_OK);
	assert_true(load.link_bytes == 0);
	assert_int_equal(load.loaded_dirs, 0);
	assert_int_equal(load.max_port, TP_FABRIC_NONE);
	assert_int_equal(load.max_fabric_port, TP_FABRIC_NONE);
	for (uint32_t p = 0; p < load.port_count; p++)
		assert_true(load.port_bytes[p] == 0);
	tp_link_load_free(&load);
	tp_traffic_free(t);
	fixture_free(&x);
}

/*
 * Every byte that climbs comes down again, so a stage's up and down bytes
 * agree; which directions are up shows in the counts: rank 0 on n0001
 * sends to n0002, n0003 and n0004 over one host uplink and three host
 * downlinks, and 1 up into spine001 (to n0003) and spine002 (to n0004).
 */
static void test_up_and_down_directions_are_told_apart(void **state)
{
	struct fixture x;
	tp_traffic *t;
	tp_link_load load;
	uint32_t map[4];
	tp_error err;
	const tp_link_stage_load *hl, *ls;

	(void)state;
	fixture_load(&x, two_level);
	assert_int_equal(tp_traffic_new(&t, 4, &err), TP_OK);
	for (uint32_t r = 1; r < 4; r++)
		assert_int_equal(tp_traffic_add(t, 0, r, 10 * r, 1, &err),
		                 TP_OK);
	tp_traffic_normalize(t);
	map[0] = host(x.topo, "n0001");
	map[1] = host(x.topo, "n0002");
	map[2] = host(x.topo, "n0003");
	map[3] = host(x.topo, "n0004");
	assert_int_equal(
	    tp_cost_link_load(x.fabric, x.routes, x.topo, t, map, &load, &err),
	    TP_OK);
	hl = &load.stage[TP_LINK_STAGE_HOST_LEAF];
	ls = &load.stage[TP_LINK_STAGE_LEAF_SPINE];
	assert_int_equal(hl->up_dirs, 1);
	assert_int_equal(hl->down_dirs, 3);
	assert_true(hl->up_bytes == 60 && hl->down_bytes == 60);
	assert_int_equal(ls->up_dirs, 2);
	assert_int_equal(ls->down_dirs, 2);
	assert_true(ls->up_bytes == 50 && ls->down_bytes == 50);
	/* n0001's uplink carries all 60 bytes: the busiest direction */
	assert_int_equal(load.max_port, dir(x.fabric, "n0001", "leaf001"));
	assert_int_equal(hl->max_port, dir(x.fabric, "n0001", "leaf001"));
	/* 30 bytes to n0004 (index 3) leave through spine002 */
	assert_int_equal(ls->max_port, dir(x.fabric, "leaf001", "spine002"));
	tp_link_load_free(&load);
	tp_traffic_free(t);
	fixture_free(&x);
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/*
 * On a 3-level tree, for random traffic under random mappings (several
 * ranks per host), each byte is counted once per link it crosses: the sum
 * over directions is the hop-bytes, and the stages split the traffic by
 * hop class: host-leaf carries every off-node byte up and down,
 * leaf-spine every byte leaving its leaf, spine-core every byte leaving
 * its pod.
 */
static void test_link_sums_are_hop_bytes_by_class(void **state)
{
	struct fixture x;
	uint64_t seed = 12345;
	tp_error err;

	(void)state;
	fixture_load(&x, three_level);
	assert_int_equal(tp_fabric_max_level(x.fabric), 3);
	for (int round = 0; round < 20; round++) {
		uint32_t ranks = 16, map[16];
		tp_traffic *t;
		tp_link_load load;
		tp_cost_report rep;
		const tp_link_stage_load *st = load.stage;
		uint64_t off, leaving_leaf, leaving_pod;

		assert_int_equal(tp_traffic_new(&t, ranks, &err), TP_OK);
		for (int e = 0; e < 40; e++)
			assert_int_equal(
			    tp_traffic_add(
			        t, (uint32_t)(next_random(&seed) % ranks),
			        (uint32_t)(next_random(&seed) % ranks),
			        1 + next_random(&seed) % 1000000, 1, &err),
			    TP_OK);
		tp_traffic_normalize(t);
		for (uint32_t r = 0; r < ranks; r++)
			map[r] = (uint32_t)(next_random(&seed) %
			                    tp_topo_host_count(x.topo));
		assert_int_equal(tp_cost_link_load(x.fabric, x.routes, x.topo,
		                                   t, map, &load, &err),
		                 TP_OK);
		assert_int_equal(tp_cost_evaluate(x.topo, t, map, NULL, &rep,
		                                  NULL, NULL, &err),
		                 TP_OK);
		off = rep.class_bytes[TP_COST_SAME_LEAF] +
		      rep.class_bytes[TP_COST_SAME_POD] +
		      rep.class_bytes[TP_COST_OTHER_POD];
		leaving_leaf = rep.class_bytes[TP_COST_SAME_POD] +
		               rep.class_bytes[TP_COST_OTHER_POD];
		leaving_pod = rep.class_bytes[TP_COST_OTHER_POD];
		assert_true(load.link_bytes == (double)rep.hop_bytes);
		assert_true(st[TP_LINK_STAGE_HOST_LEAF].up_bytes ==
		            (double)off);
		assert_true(st[TP_LINK_STAGE_HOST_LEAF].down_bytes ==
		            (double)off);
		assert_true(st[TP_LINK_STAGE_LEAF_SPINE].up_bytes ==
		            (double)leaving_leaf);
		assert_true(st[TP_LINK_STAGE_LEAF_SPINE].down_bytes ==
		            (double)leaving_leaf);
		assert_true(st[TP_LINK_STAGE_SPINE_CORE].up_bytes ==
		            (double)leaving_pod);
		assert_true(st[TP_LINK_STAGE_SPINE_CORE].down_bytes ==
		            (double)leaving_pod);
		assert_true(st[TP_LINK_STAGE_OTHER].up_bytes +
		                st[TP_LINK_STAGE_OTHER].down_bytes ==
		            0);
		assert_true(load.fabric_bytes ==
		            (double)(2 * leaving_leaf + 2 * leaving_pod));
		tp_link_load_free(&load);
		tp_traffic_free(t);
	}
	fixture_free(&x);
}

/*
 * With the routes known, contention is delta x the busiest switch link
 * (1000 bytes for alternating leaves), not the leaf-uplink estimate.
 */
static void test_busiest_link_sets_contention(void **state)
{
	static const char *const names[4] = {"n0001", "n0003", "n0002",
	                                     "n0004"};
	struct fixture x;
	tp_traffic *t = ring();
	tp_link_load load;
	tp_cost_params p = tp_cost_default_params();
	tp_cost_report rep;
	uint32_t map[4];
	tp_error err;
	double before;

	(void)state;
	fixture_load(&x, two_level);
	map_ranks(x.topo, names, map);
	p.contention_delta_s_per_byte = 0.25;
	p.leaf_uplinks = 1;
	assert_int_equal(
	    tp_cost_evaluate(x.topo, t, map, &p, &rep, NULL, NULL, &err),
	    TP_OK);
	/* leaf001 sends 1000 + 30 up: the estimate charges all of it */
	assert_true(fabs(rep.contention_s - 0.25 * 1030) < 1e-9);
	before = rep.maxrate_s + rep.queue_s;
	assert_int_equal(
	    tp_cost_link_load(x.fabric, x.routes, x.topo, t, map, &load, &err),
	    TP_OK);
	tp_cost_link_contention(&rep, &p, &load);
	assert_true(fabs(rep.contention_s - 250.0) < 1e-9);
	assert_true(fabs(rep.predicted_s - (before + 250.0)) < 1e-9);
	tp_link_load_free(&load);
	tp_traffic_free(t);
	fixture_free(&x);
}

static void expect_failure(const struct fixture *x, const tp_topo *topo,
                           const tp_routes *routes, const uint32_t map[4],
                           tp_status status, const char *message)
{
	tp_traffic *t = ring();
	tp_link_load load;
	tp_error err;

	assert_int_equal(
	    tp_cost_link_load(x->fabric, routes, topo, t, map, &load, &err),
	    status);
	assert_string_equal(err.message, message);
	/* a failed load holds nothing to free and names no link */
	assert_null(load.port_bytes);
	assert_int_equal(load.max_port, TP_FABRIC_NONE);
	tp_link_load_free(&load);
	tp_traffic_free(t);
}

static void test_bad_input_is_named(void **state)
{
	struct fixture x;
	tp_topo *bigger;
	tp_routes *empty;
	uint32_t map[4];
	tp_error err;

	(void)state;
	fixture_load(&x, two_level);
	/* a host index outside the hierarchy */
	map[0] = 0;
	map[1] = 1;
	map[2] = 99;
	map[3] = 3;
	expect_failure(&x, x.topo, x.routes, map, TP_ERR_INVALID,
	               "cost links: rank 2 on host index 99, the hierarchy "
	               "has 4 hosts");
	/* a hierarchy with hosts the fabric does not have */
	assert_int_equal(tp_topo_new_fattree(&bigger, 1, 2, 4, &err), TP_OK);
	map[0] = host(bigger, "n0001");
	map[1] = host(bigger, "n0002");
	map[2] = host(bigger, "n0003");
	map[3] = host(bigger, "n0007");
	expect_failure(&x, bigger, x.routes, map, TP_ERR_NOTFOUND,
	               "cost links: rank 3's host 'n0007' is not a host of "
	               "topology.conf unit.conf");
	tp_topo_free(bigger);
	/* tables that were never filled (a topology.conf has no LIDs) */
	assert_int_equal(tp_routes_new(x.fabric, &empty, &err), TP_OK);
	map[0] = host(x.topo, "n0001");
	map[1] = host(x.topo, "n0003");
	map[2] = host(x.topo, "n0002");
	map[3] = host(x.topo, "n0004");
	expect_failure(&x, x.topo, empty, map, TP_ERR_NOTFOUND,
	               "cost links: n0001 -> n0003: routes: host n0003 has "
	               "no LID");
	tp_routes_free(empty);
	expect_failure(&x, x.topo, NULL, map, TP_ERR_INVALID,
	               "cost links: NULL fabric, routes, hierarchy, traffic "
	               "or mapping");
	fixture_free(&x);
}

/* Fabric host index of @name (the fabric's own order, not the topo's). */
static uint32_t fhost(const tp_fabric *f, const char *name)
{
	for (uint32_t h = 0; h < tp_fabric_host_count(f); h++)
		if (!strcmp(tp_fabric_host_at(f, h)->name, name))
			return h;
	fail_msg("no host %s", name);
	return TP_FABRIC_NONE;
}

/*
 * Two clients of leaf001 write to a server on port 1 of leaf002 (issue 15
 * goal 2): D-mod-K climbs through spine001 for both, so one up-link
 * carries it all; adaptive routing takes either up-link, so the spread
 * path halves it over both (bench/ioserver_sim_bench.sh measured the
 * same: servers on one port of each leaf move 0.375 of the dedicated
 * leaves' I/O under D-mod-K and all of it under adaptive routing, which
 * the D-mod-K load alone ranks the other way).
 */
static void test_spread_path_splits_over_uplinks(void **state)
{
	struct fixture x;
	tp_link_load dmodk, spread;
	tp_error err;
	const char *clients[] = {"n0001", "n0002"};
	const struct want want_dmodk[] = {
	    {"n0001", "leaf001", 8},     {"n0002", "leaf001", 8},
	    {"leaf001", "spine001", 16}, {"spine001", "leaf002", 16},
	    {"leaf002", "n0003", 16},
	};
	const struct want want_spread[] = {
	    {"n0001", "leaf001", 8},    {"n0002", "leaf001", 8},
	    {"leaf001", "spine001", 8}, {"leaf001", "spine002", 8},
	    {"spine001", "leaf002", 8}, {"spine002", "leaf002", 8},
	    {"leaf002", "n0003", 16},
	};

	(void)state;
	fixture_load(&x, two_level);
	assert_int_equal(tp_link_load_start(x.fabric, x.routes, &dmodk, &err),
	                 TP_OK);
	assert_int_equal(tp_link_load_start(x.fabric, x.routes, &spread, &err),
	                 TP_OK);
	for (int c = 0; c < 2; c++) {
		uint32_t src = fhost(x.fabric, clients[c]);
		uint32_t dst = fhost(x.fabric, "n0003");

		assert_int_equal(
		    tp_link_load_add_path(&dmodk, x.routes, src, dst, 8, &err),
		    TP_OK);
		assert_int_equal(tp_link_load_add_spread_path(&spread, x.fabric,
		                                              x.routes, src,
		                                              dst, 8, &err),
		                 TP_OK);
	}
	tp_link_load_finish(x.fabric, &dmodk);
	tp_link_load_finish(x.fabric, &spread);
	expect_dirs(x.fabric, &dmodk, want_dmodk, 5);
	expect_dirs(x.fabric, &spread, want_spread, 7);
	assert_true(dmodk.max_fabric_bytes == 16);
	assert_true(spread.max_fabric_bytes == 8);
	/* the same bytes cross the same number of links either way */
	assert_true(spread.link_bytes == dmodk.link_bytes);
	tp_link_load_free(&dmodk);
	tp_link_load_free(&spread);
	fixture_free(&x);
}

/*
 * The path model follows the routing asked for: static routing adds the
 * routes' own path (all 16 bytes up spine001), adaptive routing the
 * spread path (8 up each spine), direction by direction the same as the
 * two models called directly.
 */
static void test_routed_path_follows_the_routing(void **state)
{
	struct fixture x;
	tp_link_load routed[2], direct[2];
	tp_routing routing[2] = {TP_ROUTING_STATIC, TP_ROUTING_ADAPTIVE};
	tp_error err;
	const char *clients[] = {"n0001", "n0002"};

	(void)state;
	fixture_load(&x, two_level);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(
		    tp_link_load_start(x.fabric, x.routes, &routed[k], &err),
		    TP_OK);
		assert_int_equal(
		    tp_link_load_start(x.fabric, x.routes, &direct[k], &err),
		    TP_OK);
		for (int c = 0; c < 2; c++) {
			uint32_t src = fhost(x.fabric, clients[c]);
			uint32_t dst = fhost(x.fabric, "n0003");

			assert_int_equal(tp_link_load_add_routed_path(
			                     &routed[k], x.fabric, x.routes,
			                     routing[k], src, dst, 8, &err),
			                 TP_OK);
			assert_int_equal(
			    k == 0 ? tp_link_load_add_path(&direct[k], x.routes,
			                                   src, dst, 8, &err)
			           : tp_link_load_add_spread_path(
			                 &direct[k], x.fabric, x.routes, src,
			                 dst, 8, &err),
			    TP_OK);
		}
		tp_link_load_finish(x.fabric, &routed[k]);
		tp_link_load_finish(x.fabric, &direct[k]);
		for (uint32_t p = 0; p < routed[k].port_count; p++)
			assert_true(routed[k].port_bytes[p] ==
			            direct[k].port_bytes[p]);
	}
	assert_true(routed[0].max_fabric_bytes == 16);
	assert_true(routed[1].max_fabric_bytes == 8);
	for (int k = 0; k < 2; k++) {
		tp_link_load_free(&routed[k]);
		tp_link_load_free(&direct[k]);
	}
	fixture_free(&x);
}

/* Three levels: across pods the bytes halve at the leaf (two aggregation
 * switches), not again at the aggregation switch (one core up-link each),
 * and come down over both aggregation switches of the far pod; within a
 * pod they turn at the aggregation level; within a leaf only host links
 * carry them; a pair without routes fails with the routes' error. */
static void test_spread_path_three_levels(void **state)
{
	struct fixture x;
	tp_link_load load;
	tp_routes *empty;
	tp_error err;
	const struct want want[] = {
	    /* n0001 -> n0005: 8 bytes across pods */
	    {"n0001", "leaf001", 8},
	    {"leaf001", "agg001", 4},
	    {"leaf001", "agg002", 4},
	    {"agg001", "core001", 4},
	    {"agg002", "core002", 4},
	    {"core001", "agg003", 4},
	    {"core002", "agg004", 4},
	    {"agg003", "leaf003", 4},
	    {"agg004", "leaf003", 4},
	    {"leaf003", "n0005", 8},
	    /* n0001 -> n0003: 2 bytes within pod 1 */
	    {"n0001", "leaf001", 2},
	    {"leaf001", "agg001", 1},
	    {"leaf001", "agg002", 1},
	    {"agg001", "leaf002", 1},
	    {"agg002", "leaf002", 1},
	    {"leaf002", "n0003", 2},
	    /* n0001 -> n0002: 1 byte within leaf001 */
	    {"n0001", "leaf001", 1},
	    {"leaf001", "n0002", 1},
	};

	(void)state;
	fixture_load(&x, three_level);
	assert_int_equal(tp_link_load_start(x.fabric, x.routes, &load, &err),
	                 TP_OK);
	assert_int_equal(tp_link_load_add_spread_path(&load, x.fabric, x.routes,
	                                              fhost(x.fabric, "n0001"),
	                                              fhost(x.fabric, "n0005"),
	                                              8, &err),
	                 TP_OK);
	assert_int_equal(tp_link_load_add_spread_path(&load, x.fabric, x.routes,
	                                              fhost(x.fabric, "n0001"),
	                                              fhost(x.fabric, "n0003"),
	                                              2, &err),
	                 TP_OK);
	assert_int_equal(tp_link_load_add_spread_path(&load, x.fabric, x.routes,
	                                              fhost(x.fabric, "n0001"),
	                                              fhost(x.fabric, "n0002"),
	                                              1, &err),
	                 TP_OK);
	expect_dirs(x.fabric, &load, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(tp_routes_new(x.fabric, &empty, &err), TP_OK);
	assert_int_equal(tp_link_load_add_spread_path(
	                     &load, x.fabric, empty, fhost(x.fabric, "n0001"),
	                     fhost(x.fabric, "n0005"), 8, &err),
	                 TP_ERR_NOTFOUND);
	assert_string_equal(err.message, "routes: host n0005 has no LID");
	tp_routes_free(empty);
	tp_link_load_free(&load);
	fixture_free(&x);
}

static void test_stage_names(void **state)
{
	(void)state;
	assert_string_equal(tp_link_stage_name(TP_LINK_STAGE_HOST_LEAF),
	                    "host-leaf");
	assert_string_equal(tp_link_stage_name(TP_LINK_STAGE_LEAF_SPINE),
	                    "leaf-spine");
	assert_string_equal(tp_link_stage_name(TP_LINK_STAGE_SPINE_CORE),
	                    "spine-core");
	assert_string_equal(tp_link_stage_name(TP_LINK_STAGE_OTHER), "other");
	assert_string_equal(tp_link_stage_name(TP_LINK_STAGES), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ring_block_loads_are_hand_computed),
	    cmocka_unit_test(test_ring_alternating_leaves_loads_the_spines),
	    cmocka_unit_test(test_on_node_traffic_loads_no_link),
	    cmocka_unit_test(test_up_and_down_directions_are_told_apart),
	    cmocka_unit_test(test_link_sums_are_hop_bytes_by_class),
	    cmocka_unit_test(test_busiest_link_sets_contention),
	    cmocka_unit_test(test_bad_input_is_named),
	    cmocka_unit_test(test_spread_path_splits_over_uplinks),
	    cmocka_unit_test(test_spread_path_three_levels),
	    cmocka_unit_test(test_routed_path_follows_the_routing),
	    cmocka_unit_test(test_stage_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
