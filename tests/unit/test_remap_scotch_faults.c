/*
 * test_remap_scotch_faults.c: what the remapper does when Scotch itself
 * fails (placement/remap_scotch.c, placement/remap.c).  No valid input
 * makes Scotch fail, but a daemon's child can meet one at any time: an
 * allocation refused under RemapMemory, a Scotch build that rejects the
 * strategy, a library that returns a terminal outside the target.  The
 * job's mapping must not be lost to it: the candidate says what failed,
 * the search goes on with the others, and the caller's error is left
 * alone because the search succeeded.
 *
 * The fault is injected where the remapper meets Scotch: this program
 * defines SCOTCH_graphMap, so the remapper (linked in statically) calls
 * this one, which either fails, returns a terminal outside the target, or
 * hands the call to the real libscotch (dlsym RTLD_NEXT).  Built only
 * with Scotch.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "tp_config.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* scotch.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <scotch/scotch.h>

#include "remap.h"
#include "remap_scotch.h"
#include "test_remap_groups.h"

/* ---- the injected fault ---------------------------------------------- */

enum scotch_fault {
	SCOTCH_REAL,        /* the real SCOTCH_graphMap */
	SCOTCH_FAILS,       /* returns an error */
	SCOTCH_BAD_TERMINAL /* returns 0, rank 0 on a terminal past the end */
};

/* The test program's own state: which fault the next calls get. */
static enum scotch_fault fault;
static unsigned graph_map_calls;

int SCOTCH_graphMap(SCOTCH_Graph *const graph, const SCOTCH_Arch *const arch,
                    SCOTCH_Strat *const strat, SCOTCH_Num *const part)
{
	int (*real)(SCOTCH_Graph *const, const SCOTCH_Arch *const,
	            SCOTCH_Strat *const, SCOTCH_Num *const);

	graph_map_calls++;
	switch (fault) {
	case SCOTCH_FAILS:
		return 1;
	case SCOTCH_BAD_TERMINAL:
		part[0] = INT32_MAX;
		return 0;
	case SCOTCH_REAL:
		break;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "SCOTCH_graphMap");
	assert_non_null(real);
	return real(graph, arch, strat, part);
}

/* ---- the remapper's log ---------------------------------------------- */

/* The remapper's warnings, read back. */
struct warnings {
	unsigned count;
	char last[512];
};

static void warning_sink(void *data, tp_log_level level, const char *message)
{
	struct warnings *w = data;

	if (level != TP_LOG_WARNING)
		return;
	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", message);
}

/* ---- tests ------------------------------------------------------------- */

/*
 * The candidate itself: a failed SCOTCH_graphMap, and a terminal outside
 * the target, each give TP_ERR_INTERNAL with what happened, and leave
 * the caller's positions unwritten.
 */
static void test_candidate_reports_what_scotch_did(void **state)
{
	static const struct {
		enum scotch_fault fault;
		const char *message;
	} cases[] = {
	    {SCOTCH_FAILS, "remap: Scotch: SCOTCH_graphMap failed"},
	    {SCOTCH_BAD_TERMINAL,
	     "remap: Scotch: rank 0 mapped to terminal 2147483647 of 32"},
	};
	tp_remap_host hosts[4];
	tp_traffic *t = two_groups(16);
	tp_traffic_csr *g;
	tp_topo *topo;
	tp_error err;
	uint32_t hl[32];

	(void)state;
	assert_true(tp_remap_scotch_available());
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 18, &err), TP_OK);
	for (uint32_t i = 0; i < 4; i++)
		hosts[i] = (tp_remap_host){i * 9, 8};
	assert_int_equal(
	    tp_traffic_csr_build(t, TP_TRAFFIC_CSR_UNDIRECTED, &g, &err),
	    TP_OK);
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		fault = cases[c].fault;
		for (uint32_t r = 0; r < 32; r++)
			hl[r] = 99;
		assert_int_equal(
		    tp_remap_scotch_map(topo, hosts, 4, g, 1, hl, &err),
		    TP_ERR_INTERNAL);
		print_message("%s\n", err.message);
		assert_string_equal(err.message, cases[c].message);
		for (uint32_t r = 0; r < 32; r++)
			assert_int_equal(hl[r], 99);
	}
	/* And the real one maps every rank. */
	fault = SCOTCH_REAL;
	assert_int_equal(tp_remap_scotch_map(topo, hosts, 4, g, 1, hl, &err),
	                 TP_OK);
	for (uint32_t r = 0; r < 32; r++)
		assert_true(hl[r] < 4);
	tp_traffic_csr_free(g);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

/*
 * The remapper on 64 ranks over 10 hosts of 8 slots on two leaves (AUTO
 * with Scotch's mapping among its candidates), with the real Scotch, then
 * with each fault: with a fault the job still gets a mapping (every rank
 * on an allocated host, within its slots, at or below block), one
 * candidate fewer is counted, none of them Scotch's, one warning names
 * the fault, and the caller's error is as the caller left it.
 */
static void test_remapper_goes_on_without_a_failed_scotch(void **state)
{
	static const enum scotch_fault faults[] = {SCOTCH_FAILS,
	                                           SCOTCH_BAD_TERMINAL};
	static const char *const what[] = {"SCOTCH_graphMap failed",
	                                   "mapped to terminal"};
	tp_remap_host hosts[10];
	tp_traffic *t = two_groups(32);
	tp_remap_mapping m;
	tp_remap_stats real_st;
	tp_topo *topo;
	tp_error err;
	struct warnings w = {0};
	tp_logger log = {warning_sink, &w, TP_LOG_DEBUG};

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 18, &err), TP_OK);
	for (uint32_t i = 0; i < 10; i++)
		hosts[i] = (tp_remap_host){i < 5 ? i : 13 + i, 8};
	fault = SCOTCH_REAL;
	graph_map_calls = 0;
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 10, 1, &log, &m, &real_st, &err),
	    TP_OK);
	tp_remap_mapping_free(&m);
	assert_int_equal(graph_map_calls, 1);
	assert_int_equal(w.count, 0);
	for (size_t f = 0; f < sizeof(faults) / sizeof(*faults); f++) {
		tp_remap_stats st;
		uint32_t used[10] = {0};

		fault = faults[f];
		graph_map_calls = 0;
		w = (struct warnings){0};
		snprintf(err.message, sizeof(err.message), "caller's");
		assert_int_equal(tp_remap_compute(topo, t, hosts, 10, 1, &log,
		                                  &m, &st, &err),
		                 TP_OK);
		print_message("fault %zu: %u partitions (real Scotch: %u), "
		              "hop-bytes %llu (block %llu, real Scotch %llu); "
		              "warning: %s\n",
		              f, st.partitions, real_st.partitions,
		              (unsigned long long)st.hop_bytes,
		              (unsigned long long)st.block_hop_bytes,
		              (unsigned long long)real_st.hop_bytes, w.last);
		assert_int_equal(graph_map_calls, 1);
		assert_int_equal(w.count, 1);
		assert_non_null(strstr(w.last, "remap: Scotch: "));
		assert_non_null(strstr(w.last, what[f]));
		assert_non_null(strstr(w.last, "; without that candidate"));
		assert_string_equal(err.message, "caller's");
		assert_int_equal(st.partitions, real_st.partitions - 1);
		assert_string_not_equal(st.partition, "scotch");
		assert_true(st.hop_bytes <= st.block_hop_bytes);
		for (uint32_t r = 0; r < 64; r++) {
			uint32_t i = 0;

			while (i < 10 && hosts[i].host != m.rank_host[r])
				i++;
			assert_true(i < 10);
			used[i]++;
			assert_true(used[i] <= hosts[i].slots);
		}
		tp_remap_mapping_free(&m);
	}
	fault = SCOTCH_REAL;
	tp_traffic_free(t);
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_candidate_reports_what_scotch_did),
	    cmocka_unit_test(test_remapper_goes_on_without_a_failed_scotch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
