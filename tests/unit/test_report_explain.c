/*
 * test_report_explain.c: the explanation names the policy, the class and
 * why, the leaves chosen with tp_alloc's reason, hop-bytes and predicted
 * time against the default, and the I/O servers; a request that cannot be
 * met is explained, and a profile that does not fit is one clear error.
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

#include "explain.h"

struct fixture {
	tp_topo *topo; /* 2 pods x 2 leaves x 4 hosts */
	tp_traffic *t; /* 8 ranks in a ring */
	tp_host_use use[16];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	tp_error err;

	if (!f || tp_topo_new_fattree(&f->topo, 2, 2, 4, &err) != TP_OK ||
	    tp_traffic_new(&f->t, 8, &err) != TP_OK)
		return -1;
	for (uint32_t r = 0; r < 8; r++)
		tp_traffic_add(f->t, r, (r + 1) % 8, 1 << 20, 100, &err);
	tp_traffic_normalize(f->t);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tp_traffic_free(f->t);
	tp_topo_free(f->topo);
	free(f);
	return 0;
}

static void test_explains_policy_class_leaves_costs_servers(void **state)
{
	struct fixture *f = *state;
	/* Another job holds host 0: the default (first free hosts) spans
	 * two leaves, `leaf` takes whole free leaves. */
	tp_job_summary s = {
	    .ranks = 8, .net_bytes_per_s = 8e9, .mean_message_bytes = 10486};
	tp_explain_input in = {.topo = f->topo,
	                       .use = f->use,
	                       .job = "ring",
	                       .job_id = 5,
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .summary = &s,
	                       .traffic = f->t,
	                       .slots = 2,
	                       .seed = 1,
	                       .io_servers = 1,
	                       .io_policy = TP_IOSERVER_SPREAD,
	                       .io_scope = TP_IOSERVER_BESIDE};
	char *text;
	tp_error err;

	f->use[0] = (tp_host_use){TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET};
	assert_int_equal(tp_explain_placement(&in, &text, &err), TP_OK);
	assert_non_null(strstr(text, "Placement of ring: 4 hosts"));
	assert_non_null(strstr(text, "Policy: leaf: whole leaves"));
	assert_non_null(strstr(text, "Job class: comm_sensitive"));
	assert_non_null(strstr(text, "why: comm_sensitive:"));
	assert_non_null(strstr(text, "comm_sensitive when:"));
	assert_non_null(strstr(text, "Leaves: leaf002 (1 of 4)"));
	assert_non_null(strstr(text, "Why: leaf:"));
	assert_non_null(strstr(text, "2 leaves, 1 pod: leaf001 leaf002"));
	assert_non_null(strstr(text, "hop-bytes (B x hops)"));
	assert_non_null(strstr(text, "predicted time (s)"));
	assert_non_null(strstr(text, "of the default"));
	assert_non_null(strstr(text, "I/O servers (spread):"));
	free(text);
	f->use[0] = (tp_host_use){0};
}

static void test_unmet_request_explained_without_figures(void **state)
{
	struct fixture *f = *state;
	tp_explain_input in = {.topo = f->topo,
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .job_class = TP_JOBCLASS_IO_HEAVY,
	                       .job_id = 1};
	char *text;
	tp_error err;

	/* One busy host per leaf: no whole leaf is free. */
	for (uint32_t l = 0; l < 4; l++)
		f->use[l * 4] = (tp_host_use){TP_HOST_BUSY, 9, 0};
	in.use = f->use;
	assert_int_equal(tp_explain_placement(&in, &text, &err), TP_OK);
	assert_non_null(strstr(text, "given on the command line"));
	assert_non_null(strstr(text, "Decision: the job waits: cannot be "
	                             "met now"));
	assert_null(strstr(text, "hop-bytes"));
	free(text);
	memset(f->use, 0, sizeof(f->use));
}

static void test_too_many_ranks_one_clear_error(void **state)
{
	struct fixture *f = *state;
	tp_explain_input in = {.topo = f->topo,
	                       .job = "ring",
	                       .nodes = 2,
	                       .policy = TP_PLACEMENT_PACK,
	                       .traffic = f->t,
	                       .slots = 2};
	char *text = (char *)&text;
	tp_error err;

	assert_int_equal(tp_explain_placement(&in, &text, &err),
	                 TP_ERR_INVALID);
	assert_null(text);
	assert_string_equal(err.message, "ring has 8 ranks, 2 hosts x 2 "
	                                 "slots hold only 4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_explains_policy_class_leaves_costs_servers),
	    cmocka_unit_test(test_unmet_request_explained_without_figures),
	    cmocka_unit_test(test_too_many_ranks_one_clear_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
