/*
 * test_report_explain.c: the explanation names the policy, the class and
 * why, the leaves chosen with tp_alloc's reason, hop-bytes and predicted
 * time against the default, and the I/O servers; a request that cannot be
 * met is explained, and a profile that does not fit is one clear error.
 * The cost table's headings sit over their columns whatever the mapping's
 * name, no line is wider than TP_EXPLAIN_COLUMNS, and hosts in use and the
 * sources of the policy and thresholds are taken into account and named.
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

/* The line of @text that contains @what (a copy, freed by the caller). */
static char *line_with(const char *text, const char *what)
{
	const char *at = strstr(text, what), *start, *end;
	char *line;

	if (!at)
		fail_msg("no line with '%s' in:\n%s", what, text);
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	if (!end)
		end = at + strlen(at);
	line = strndup(start, (size_t)(end - start));
	assert_non_null(line);
	return line;
}

static void test_cost_headings_over_their_columns(void **state)
{
	struct fixture *f = *state;
	/* Partners 4 ranks apart: block order splits every pair over two
	 * hosts, so the remapper partitions ("topoplace (partition)", a
	 * heading wider than the figures). */
	tp_traffic *t;
	tp_explain_input in = {.topo = f->topo,
	                       .job = "far pairs",
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_PACK,
	                       .job_class = TP_JOBCLASS_QUIET,
	                       .slots = 2,
	                       .seed = 1};
	char *text, *head, *row;
	const char *ours;
	tp_error err;

	assert_int_equal(tp_traffic_new(&t, 8, &err), TP_OK);
	for (uint32_t r = 0; r < 8; r++)
		assert_int_equal(
		    tp_traffic_add(t, r, (r + 4) % 8, 1 << 24, 100, &err),
		    TP_OK);
	tp_traffic_normalize(t);
	in.traffic = t;
	assert_int_equal(tp_explain_placement(&in, &text, &err), TP_OK);
	head = line_with(text, "default (block)");
	ours = strstr(head, "topoplace (");
	assert_non_null(ours);
	print_message("%s\n", head);
	assert_true(strlen(ours) > 18); /* wider than a figure column */
	/* Right-aligned columns: every row ends where the headings end,
	 * and the first heading ends where the first figures do. */
	row = line_with(text, "hop-bytes (B x hops)");
	assert_int_equal(strlen(row), strlen(head));
	{
		size_t end_def =
		    (size_t)(strstr(head, "default (block)") - head) +
		    strlen("default (block)");

		assert_true(row[end_def - 1] != ' ');
		assert_true(row[end_def] == ' ');
	}
	free(row);
	row = line_with(text, "predicted time (s)");
	assert_int_equal(strlen(row), strlen(head));
	free(row);
	free(head);
	free(text);
	tp_traffic_free(t);
}

static void test_no_line_wider_than_the_page(void **state)
{
	struct fixture *f = *state;
	tp_job_summary s = {
	    .ranks = 8, .net_bytes_per_s = 8e9, .mean_message_bytes = 10486};
	tp_explain_input in = {.topo = f->topo,
	                       .job = "a job with a name long enough to "
	                              "need wrapping in its heading",
	                       .nodes = 8,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .summary = &s,
	                       .traffic = f->t,
	                       .slots = 1,
	                       .seed = 1,
	                       .io_servers = 2,
	                       .io_policy = TP_IOSERVER_SPREAD,
	                       .io_scope = TP_IOSERVER_BESIDE};
	char *text, *why;
	tp_error err;
	size_t lines = 0;

	assert_int_equal(tp_explain_placement(&in, &text, &err), TP_OK);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > TP_EXPLAIN_COLUMNS)
			fail_msg("line of %zu columns: %.*s", len, (int)len, p);
		lines++;
		p += len + (nl != NULL);
	}
	assert_true(lines > 10);
	/* The long "Why:" goes on, indented under its text. */
	why = line_with(text, "Why: leaf:");
	assert_true(strlen(why) > 60);
	assert_non_null(strstr(text, "\n     "));
	free(why);
	free(text);
}

static void test_busy_hosts_and_sources_named(void **state)
{
	struct fixture *f = *state;
	tp_jobclass_thresholds th;
	tp_job_summary s = {
	    .ranks = 8, .net_bytes_per_s = 8e9, .mean_message_bytes = 10486};
	tp_explain_input in = {.topo = f->topo,
	                       .use = f->use,
	                       .job = "ring",
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .policy_source = "DefaultPlacement=leaf in x",
	                       .summary = &s,
	                       .thresholds = &th,
	                       .thresholds_source = "from x.conf",
	                       .traffic = f->t,
	                       .slots = 2,
	                       .seed = 1};
	char *text;
	tp_error err;

	/* Every host of leaf 1 and one of leaf 2 busy: the job gets a
	 * later leaf; the default starts after the busy hosts. */
	tp_jobclass_defaults(&th);
	th.comm_bytes_per_s_per_rank_min = 1e12; /* nothing is comm_sensitive */
	th.comm_messages_per_s_per_rank_min = 1e12;
	for (uint32_t h = 0; h < 5; h++)
		f->use[h] = (tp_host_use){TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET};
	assert_int_equal(tp_explain_placement(&in, &text, &err), TP_OK);
	assert_non_null(strstr(text, "  from: DefaultPlacement=leaf in x\n"));
	assert_non_null(strstr(text, "  thresholds: from x.conf\n"));
	assert_non_null(strstr(text, "Job class: quiet"));
	assert_null(strstr(text, "Leaves: leaf001"));
	assert_non_null(strstr(text, "Leaves: leaf003 (1 of 4)"));
	assert_non_null(strstr(text, "  2 leaves, 2 pods: leaf002 leaf003"));
	free(text);
	memset(f->use, 0, sizeof(f->use));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_explains_policy_class_leaves_costs_servers),
	    cmocka_unit_test(test_unmet_request_explained_without_figures),
	    cmocka_unit_test(test_too_many_ranks_one_clear_error),
	    cmocka_unit_test(test_cost_headings_over_their_columns),
	    cmocka_unit_test(test_no_line_wider_than_the_page),
	    cmocka_unit_test(test_busy_hosts_and_sources_named),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
