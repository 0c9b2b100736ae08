/*
 * test_cost.c: hop-bytes, hop classes, leaf uplink loads and the predicted
 * time of hand-computed mappings (one where the queue-search term decides
 * the slowest rank) are exact; the parameter file is
 * validated with errors naming file, line and key (for the protocol limits
 * short >= eager, the line of the later of the two keys).
 */
#include "tp_config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cost.h"

/* Simple numbers so the prediction can be worked out by hand. */
static const char unit_params[] =
    "# every alpha 1 s on-node, 2 s off-node; every rate 1 B/s\n"
    "short_max_bytes = 4\n"
    "eager_max_bytes = 8\n"
    "node.short.alpha_s = 1\nnode.short.rate_Bps = 1\n"
    "node.eager.alpha_s = 1\nnode.eager.rate_Bps = 1\n"
    "node.rend.alpha_s = 1\nnode.rend.rate_Bps = 1\n"
    "net.short.alpha_s = 2\nnet.short.rate_Bps = 1\n"
    "net.short.injection_Bps = inf\n"
    "net.eager.alpha_s = 2\nnet.eager.rate_Bps = 1\n"
    "net.eager.injection_Bps = inf\n"
    "net.rend.alpha_s = 2   # trailing comment\n"
    "net.rend.rate_Bps = 1\nnet.rend.injection_Bps = inf\n"
    "queue_gamma_s = 0.5\n"
    "contention_delta_s_per_byte = 0.25\n"
    "leaf_uplinks = 1\n";

/*
 * 2 pods x 2 leaves x 2 hosts.  Ranks 0, 1 on n0001 (leaf001, pod01),
 * rank 2 on n0003 (leaf002, pod01), rank 3 on n0005 (leaf003, pod02).
 */
static void make_case(tp_topo **topo, tp_traffic **t, uint32_t map[4])
{
	tp_error err;

	assert_int_equal(tp_topo_new_fattree(topo, 2, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(t, 4, &err), TP_OK);
	assert_int_equal(tp_traffic_add(*t, 0, 1, 100, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(*t, 1, 2, 10, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(*t, 0, 3, 1, 1, &err), TP_OK);
	assert_int_equal(tp_traffic_add(*t, 2, 2, 50, 1, &err), TP_OK);
	tp_traffic_normalize(*t);
	map[0] = 0;
	map[1] = 0;
	map[2] = 2;
	map[3] = 4;
}

static void test_hop_bytes_classes_and_uplinks_are_exact(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	uint32_t map[4];
	tp_cost_report rep;
	uint64_t up[4], down[4];
	tp_error err;

	(void)state;
	make_case(&topo, &t, map);
	/* 100 x 0 + 10 x 4 + 1 x 6 + 50 x 0 */
	assert_int_equal(tp_cost_hop_bytes(topo, t, map), 46);
	assert_int_equal(
	    tp_cost_evaluate(topo, t, map, NULL, &rep, up, down, &err), TP_OK);
	assert_int_equal(rep.hop_bytes, 46);
	assert_int_equal(rep.class_bytes[TP_COST_ON_NODE], 150);
	assert_int_equal(rep.class_bytes[TP_COST_SAME_LEAF], 0);
	assert_int_equal(rep.class_bytes[TP_COST_SAME_POD], 10);
	assert_int_equal(rep.class_bytes[TP_COST_OTHER_POD], 1);
	assert_int_equal(rep.class_msgs[TP_COST_ON_NODE], 2);
	assert_int_equal(up[0], 11);
	assert_int_equal(down[0], 0);
	assert_int_equal(down[1], 10);
	assert_int_equal(down[2], 1);
	assert_int_equal(up[3] + down[3], 0);
	assert_int_equal(rep.max_leaf_up_bytes, 11);
	assert_int_equal(rep.max_leaf_down_bytes, 10);
	assert_int_equal(rep.max_leaf, 0);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

static void test_prediction_follows_max_rate_queue_contention(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	uint32_t map[4];
	tp_cost_params p;
	tp_cost_report rep;
	tp_error err;

	(void)state;
	make_case(&topo, &t, map);
	assert_int_equal(
	    tp_cost_params_parse("unit.conf", unit_params, &p, &err), TP_OK);
	assert_int_equal(
	    tp_cost_evaluate(topo, t, map, &p, &rep, NULL, NULL, &err), TP_OK);
	/*
	 * Rank 0: on-node 1 x (1 + 100/1) = 101; off-node with ppn 2 (ranks
	 * 0 and 1 send off n0001): 2 + 2 x 1 / min(inf, 2 x 1) = 3.  Total
	 * 104, no receives.  Rank 2: 1 + 50 = 51 plus queue 0.5 x 2 senders
	 * x 2 msgs = 2: 53.  Slowest: rank 0.  Contention: 0.25 x 11 B.
	 */
	assert_true(fabs(rep.maxrate_s - 104.0) < 1e-9);
	assert_true(fabs(rep.queue_s - 0.0) < 1e-9);
	assert_true(fabs(rep.contention_s - 2.75) < 1e-9);
	assert_true(fabs(rep.predicted_s - 106.75) < 1e-9);
	/* Two uplinks per leaf halve the busiest link's bytes. */
	p.leaf_uplinks = 2;
	assert_int_equal(
	    tp_cost_evaluate(topo, t, map, &p, &rep, NULL, NULL, &err), TP_OK);
	assert_true(fabs(rep.contention_s - 1.375) < 1e-9);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/*
 * A fan-in on one host: ranks 1, 2 and 3 each send rank 0 two messages of
 * 1 byte; rank 0 sends rank 1 one message of 1 byte.  All on n0001, so
 * only the on-node row (alpha 1 s, 1 B/s) and the queue term count, and
 * no byte leaves the host (contention 0).
 *   senders: 2 x (1 + 1/1) = 4 s each, no queue (rank 1: 1 sender, 1 msg:
 *            queue 0.5 x 1^2 x 1 = 0.5, so 4.5 s).
 *   rank 0:  sends 1 + 1/1 = 2 s; receives from n = 3 senders 6 messages,
 *            rounds = 6 / 3 = 2, T_q = gamma n^2 rounds = 0.5 x 9 x 2 = 9.
 * Rank 0 is the slowest only because of its queue term: 2 + 9 = 11 s.
 * With gamma 0 the slowest is a plain sender: 4 s and no queue.
 */
static void test_queue_search_charges_gamma_n_squared_per_round(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	uint32_t map[4] = {0, 0, 0, 0};
	tp_cost_params p;
	tp_cost_report rep;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 2, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_new(&t, 4, &err), TP_OK);
	for (uint32_t src = 1; src < 4; src++)
		assert_int_equal(tp_traffic_add(t, src, 0, 2, 2, &err), TP_OK);
	assert_int_equal(tp_traffic_add(t, 0, 1, 1, 1, &err), TP_OK);
	tp_traffic_normalize(t);
	assert_int_equal(
	    tp_cost_params_parse("unit.conf", unit_params, &p, &err), TP_OK);
	assert_int_equal(
	    tp_cost_evaluate(topo, t, map, &p, &rep, NULL, NULL, &err), TP_OK);
	assert_true(fabs(rep.maxrate_s - 2.0) < 1e-9);
	assert_true(fabs(rep.queue_s - 9.0) < 1e-9);
	assert_true(fabs(rep.contention_s - 0.0) < 1e-9);
	assert_true(fabs(rep.predicted_s - 11.0) < 1e-9);
	p.queue_gamma_s = 0.0;
	assert_int_equal(
	    tp_cost_evaluate(topo, t, map, &p, &rep, NULL, NULL, &err), TP_OK);
	assert_true(fabs(rep.maxrate_s - 4.0) < 1e-9);
	assert_true(fabs(rep.queue_s - 0.0) < 1e-9);
	assert_true(fabs(rep.predicted_s - 4.0) < 1e-9);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

static void test_defaults_are_the_blue_waters_table(void **state)
{
	tp_cost_params p = tp_cost_default_params();

	(void)state;
	assert_true(p.net[TP_COST_REND].alpha_s == 3.0e-6);
	assert_true(p.net[TP_COST_REND].rate_Bps == 2.9e9);
	assert_true(p.net[TP_COST_REND].injection_Bps == 6.6e9);
	assert_true(isinf(p.net[TP_COST_SHORT].injection_Bps));
	assert_true(p.node[TP_COST_EAGER].alpha_s == 1.2e-6);
	assert_true(p.node[TP_COST_EAGER].rate_Bps == 9.6e8);
	assert_true(p.queue_gamma_s == 8.4e-9);
	assert_true(p.contention_delta_s_per_byte == 1.0e-10);
}

static void param_fails(const char *text, const char *expected)
{
	tp_cost_params p = tp_cost_default_params();
	tp_error err;

	p.leaf_uplinks = 7; /* a value the text must not reach */
	p.queue_gamma_s = 3.0;

	assert_int_equal(tp_cost_params_parse("site.conf", text, &p, &err),
	                 TP_ERR_PARSE);
	assert_string_equal(err.message, expected);
	/* A refused file leaves the caller's parameters alone. */
	assert_int_equal(p.leaf_uplinks, 7);
	assert_true(p.queue_gamma_s == 3.0);
	assert_true(p.net[TP_COST_REND].rate_Bps == 2.9e9);
	assert_int_equal(p.short_max_bytes, 512);
}

static void test_bad_parameter_files_are_named(void **state)
{
	(void)state;
	param_fails("queue_gamma_s = 1\nbogus = 2\n",
	            "site.conf: line 2: unknown key 'bogus'");
	param_fails("leaf_uplinks = 2\nleaf_uplinks = 3\n",
	            "site.conf: line 2: leaf_uplinks given twice");
	param_fails("net.rend.rate_Bps = -1\n",
	            "site.conf: line 1: net.rend.rate_Bps must be > 0, got -1");
	param_fails("queue_gamma_s = fast\n",
	            "site.conf: line 1: queue_gamma_s: 'fast' is not a finite "
	            "number");
	param_fails("node.rend.alpha_s = inf\n",
	            "site.conf: line 1: node.rend.alpha_s: 'inf' is not a "
	            "finite number");
	param_fails("leaf_uplinks = 0\n",
	            "site.conf: line 1: leaf_uplinks must be 1..4294967295");
	/* The protocol limits are checked together: the line named is the
	 * later of the two keys given, whichever it is. */
	param_fails("short_max_bytes = 9000\n",
	            "site.conf: line 1: short_max_bytes 9000 must be below "
	            "eager_max_bytes 8192");
	param_fails("# limits\nqueue_gamma_s = 0\neager_max_bytes = 100\n"
	            "leaf_uplinks = 2\n",
	            "site.conf: line 3: short_max_bytes 512 must be below "
	            "eager_max_bytes 100");
	param_fails("eager_max_bytes = 64\nqueue_gamma_s = 0\n"
	            "short_max_bytes = 64\n",
	            "site.conf: line 3: short_max_bytes 64 must be below "
	            "eager_max_bytes 64");
	param_fails("short_max_bytes = 128\n\neager_max_bytes = 64\n",
	            "site.conf: line 3: short_max_bytes 128 must be below "
	            "eager_max_bytes 64");
	param_fails("queue_gamma_s\n",
	            "site.conf: line 1: expected key = value");
	param_fails("queue_gamma_s =\n",
	            "site.conf: line 1: queue_gamma_s has no value");
}

static void test_partial_file_keeps_other_defaults(void **state)
{
	tp_cost_params p;
	tp_error err;

	(void)state;
	assert_int_equal(tp_cost_params_parse("s",
	                                      "leaf_uplinks=4\n"
	                                      "contention_delta_s_per_byte"
	                                      "=0\n",
	                                      &p, &err),
	                 TP_OK);
	assert_int_equal(p.leaf_uplinks, 4);
	assert_true(p.contention_delta_s_per_byte == 0);
	assert_true(p.queue_gamma_s == 8.4e-9);
	assert_int_equal(
	    tp_cost_params_read_file("/nonexistent.conf", &p, &err), TP_ERR_IO);
	assert_string_equal(err.message, "/nonexistent.conf: cannot open: No "
	                                 "such file or directory");
}

static void test_host_outside_fabric_is_refused(void **state)
{
	tp_topo *topo;
	tp_traffic *t;
	uint32_t map[4];
	tp_cost_report rep;
	tp_error err;

	(void)state;
	make_case(&topo, &t, map);
	map[3] = 8;
	assert_int_equal(
	    tp_cost_evaluate(topo, t, map, NULL, &rep, NULL, NULL, &err),
	    TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "cost: rank 3 on host index 8, fabric has 8 hosts");
	tp_traffic_free(t);
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hop_bytes_classes_and_uplinks_are_exact),
	    cmocka_unit_test(test_prediction_follows_max_rate_queue_contention),
	    cmocka_unit_test(
	        test_queue_search_charges_gamma_n_squared_per_round),
	    cmocka_unit_test(test_defaults_are_the_blue_waters_table),
	    cmocka_unit_test(test_bad_parameter_files_are_named),
	    cmocka_unit_test(test_partial_file_keeps_other_defaults),
	    cmocka_unit_test(test_host_outside_fabric_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
