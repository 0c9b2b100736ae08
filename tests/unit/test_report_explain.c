/*
 * test_report_explain.c: the explanation names the policy, the class and
 * why, the leaves chosen with tp_alloc's reason, hop-bytes and predicted
 * time against the default, and the I/O servers; a request that cannot be
 * met is explained, and a profile that does not fit is one clear error.
 * The cost table's headings sit over their columns whatever the mapping's
 * name, no line is wider than TP_EXPLAIN_COLUMNS, and hosts in use and the
 * sources of the policy and thresholds are taken into account and named.
 * The struct the page is rendered from (tp_explain_compute) holds the
 * figures derived here by hand from the fixture's ring and the fat tree's
 * hop distances (0 on-node, 2 same leaf, 4 same pod), and the page is
 * rendered from that struct alone.
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
#include <math.h>

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

#define MIB (UINT64_C(1) << 20)

/* The fixture's ring on 4 hosts x 2 slots, host 0 busy: the default takes
 * hosts 1-4 (n0002-n0005: leaf001 and the first host of leaf002), `leaf`
 * takes leaf002 whole (hosts 4-7). */
static void test_struct_holds_decision_default_and_costs(void **state)
{
	struct fixture *f = *state;
	tp_explain_input in = {.topo = f->topo,
	                       .use = f->use,
	                       .job = "ring",
	                       .job_id = 5,
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .job_class = TP_JOBCLASS_QUIET,
	                       .traffic = f->t,
	                       .slots = 2,
	                       .seed = 1};
	tp_explain ex;
	tp_error err;

	f->use[0] = (tp_host_use){TP_HOST_BUSY, 9, TP_JOBCLASS_QUIET};
	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_string_equal(ex.job, "ring");
	assert_int_equal(ex.nodes, 4);
	assert_int_equal(ex.policy, TP_PLACEMENT_LEAF);
	assert_true(ex.alloc.met);
	assert_int_equal(ex.alloc.host_count, 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(ex.alloc.hosts[i], 4 + i);
	assert_int_equal(ex.alloc.leaf_count, 1);
	assert_int_equal(ex.alloc.leaves[0], 1);
	assert_int_equal(ex.alloc.reserved_count, 0);

	assert_true(ex.default_possible);
	assert_int_equal(ex.default_host_count, 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(ex.default_hosts[i], 1 + i);
	assert_int_equal(ex.default_leaf_count, 2);
	assert_int_equal(ex.default_leaves[0], 0);
	assert_int_equal(ex.default_leaves[1], 1);
	assert_int_equal(ex.default_pod_count, 1);
	assert_int_equal(ex.default_pods[0], 0);

	/* Block order on hosts 1-4: ranks 2h, 2h+1 share a host, so the
	 * ring's 8 edges of 1 MiB are 4 on-node, 1->2 and 3->4 within
	 * leaf001, 5->6 and 7->0 between leaf001 and leaf002: hop-bytes
	 * 2 x 2 + 2 x 4 = 12 MiB.  On leaf002 alone the best mapping keeps
	 * 4 edges on-node and 4 within the leaf: 8 MiB. */
	assert_true(ex.has_traffic);
	assert_int_equal(ex.ranks, 8);
	assert_int_equal(ex.slots, 2);
	assert_true(ex.has_costs);
	assert_int_equal(ex.default_cost.hop_bytes, 12 * MIB);
	assert_int_equal(ex.default_cost.class_bytes[TP_COST_ON_NODE], 4 * MIB);
	assert_int_equal(ex.default_cost.class_bytes[TP_COST_SAME_LEAF],
	                 2 * MIB);
	assert_int_equal(ex.default_cost.class_bytes[TP_COST_SAME_POD],
	                 2 * MIB);
	assert_int_equal(ex.default_cost.class_bytes[TP_COST_OTHER_POD], 0);
	assert_int_equal(ex.topoplace_cost.hop_bytes, 8 * MIB);
	assert_int_equal(ex.topoplace_cost.class_bytes[TP_COST_ON_NODE],
	                 4 * MIB);
	assert_int_equal(ex.topoplace_cost.class_bytes[TP_COST_SAME_LEAF],
	                 4 * MIB);
	assert_float_equal(ex.hop_bytes_ratio, 8.0 / 12.0, 1e-12);
	assert_true(ex.default_cost.predicted_s > 0);
	assert_float_equal(
	    ex.predicted_ratio,
	    ex.topoplace_cost.predicted_s / ex.default_cost.predicted_s, 1e-12);
	assert_non_null(ex.mapping);
	assert_int_equal(ex.io_servers_requested, 0);
	assert_null(ex.io.servers);
	tp_explain_free(&ex);
	f->use[0] = (tp_host_use){0};
}

static void test_struct_class_classified_or_given(void **state)
{
	struct fixture *f = *state;
	tp_job_summary s = {
	    .ranks = 8, .net_bytes_per_s = 8e9, .mean_message_bytes = 10486};
	tp_jobclass_thresholds defaults;
	tp_explain_input in = {.topo = f->topo,
	                       .nodes = 2,
	                       .policy = TP_PLACEMENT_PACK,
	                       .summary = &s};
	tp_explain ex;
	tp_error err;

	/* 1 GB/s per rank of 10 KiB messages is above the default
	 * comm_sensitive rate; the thresholds are the defaults, said so. */
	tp_jobclass_defaults(&defaults);
	assert_true(8e9 / 8 > defaults.comm_bytes_per_s_per_rank_min);
	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_true(ex.classified);
	assert_int_equal(ex.job_class, TP_JOBCLASS_COMM_SENSITIVE);
	/* field by field: the struct has padding */
	assert_int_equal(ex.thresholds.io_bytes_min, defaults.io_bytes_min);
	assert_float_equal(ex.thresholds.io_client_bytes_per_s_min,
	                   defaults.io_client_bytes_per_s_min, 0);
	assert_int_equal(ex.thresholds.io_reference_clients,
	                 defaults.io_reference_clients);
	assert_int_equal(ex.thresholds.comm_small_message_bytes_max,
	                 defaults.comm_small_message_bytes_max);
	assert_float_equal(ex.thresholds.comm_messages_per_s_per_rank_min,
	                   defaults.comm_messages_per_s_per_rank_min, 0);
	assert_float_equal(ex.thresholds.comm_bytes_per_s_per_rank_min,
	                   defaults.comm_bytes_per_s_per_rank_min, 0);
	assert_string_equal(ex.thresholds_source, "topoplace's defaults");
	assert_int_equal(strncmp(ex.class_reason, "comm_sensitive:", 15), 0);
	assert_string_equal(ex.job, "job");
	assert_false(ex.has_traffic);
	assert_false(ex.has_costs);
	assert_true(isnan(ex.hop_bytes_ratio));
	tp_explain_free(&ex);

	/* Given: not classified, no reason, no source. */
	in.summary = NULL;
	in.job_class = TP_JOBCLASS_IO_HEAVY;
	in.thresholds_source = "ignored: nothing was classified";
	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_false(ex.classified);
	assert_int_equal(ex.job_class, TP_JOBCLASS_IO_HEAVY);
	assert_string_equal(ex.class_reason, "");
	assert_null(ex.thresholds_source);
	tp_explain_free(&ex);
}

static void test_struct_unmet_has_nothing_computed(void **state)
{
	struct fixture *f = *state;
	tp_explain_input in = {.topo = f->topo,
	                       .use = f->use,
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .traffic = f->t,
	                       .slots = 2,
	                       .io_servers = 1,
	                       .io_policy = TP_IOSERVER_SPREAD,
	                       .io_scope = TP_IOSERVER_BESIDE};
	tp_explain ex;
	tp_error err;

	for (uint32_t l = 0; l < 4; l++)
		f->use[l * 4] = (tp_host_use){TP_HOST_BUSY, 9, 0};
	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_false(ex.alloc.met);
	assert_int_equal(strncmp(ex.alloc.reason, "cannot be met now", 17), 0);
	assert_int_equal(ex.alloc.host_count, 0);
	assert_false(ex.default_possible);
	assert_null(ex.default_hosts);
	assert_false(ex.has_costs);
	assert_true(ex.has_traffic); /* the profile was given ... */
	assert_int_equal(ex.ranks, 8);
	assert_int_equal(ex.io_servers_requested, 1); /* ... and servers */
	assert_null(ex.io.servers);                   /* none placed */
	assert_int_equal(ex.io.server_count, 0);
	tp_explain_free(&ex);
	tp_explain_free(NULL);
	memset(f->use, 0, sizeof(f->use));
}

/* 6 hosts under `leaf`: 2 whole leaves of 4, the other 2 hosts held; one
 * spread server beside the job: on none of the job's hosts, on the last
 * port of its leaf. */
static void test_struct_held_hosts_and_io_server(void **state)
{
	struct fixture *f = *state;
	tp_explain_input in = {.topo = f->topo,
	                       .nodes = 6,
	                       .policy = TP_PLACEMENT_LEAF,
	                       .io_servers = 1,
	                       .io_policy = TP_IOSERVER_SPREAD,
	                       .io_scope = TP_IOSERVER_BESIDE,
	                       .io_source = "IoServerCount in x"};
	tp_explain ex;
	tp_error err;
	uint8_t on_job_leaf[4] = {0}, seen[16] = {0};
	uint32_t server;

	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_true(ex.alloc.met);
	assert_int_equal(ex.alloc.leaf_count, 2);
	assert_int_equal(ex.alloc.host_count, 6);
	assert_int_equal(ex.alloc.reserved_count, 2);
	for (uint32_t i = 0; i < ex.alloc.leaf_count; i++)
		on_job_leaf[ex.alloc.leaves[i]] = 1;
	/* chosen and held: each host of the two leaves exactly once */
	for (uint32_t i = 0; i < 6; i++)
		seen[ex.alloc.hosts[i]]++;
	for (uint32_t i = 0; i < 2; i++)
		seen[ex.alloc.reserved[i]]++;
	for (uint32_t h = 0; h < 16; h++)
		assert_int_equal(seen[h], on_job_leaf[h / 4]);
	assert_false(ex.has_traffic);
	assert_int_equal(ex.io_servers_requested, 1);
	assert_int_equal(ex.io.server_count, 1);
	server = ex.io.servers[0];
	for (uint32_t i = 0; i < 6; i++)
		assert_int_not_equal(server, ex.alloc.hosts[i]);
	assert_int_equal(server % 4, 3); /* the leaf's last port */
	assert_string_equal(ex.io_source, "IoServerCount in x");
	assert_int_equal(ex.io_scope, TP_IOSERVER_BESIDE);
	tp_explain_free(&ex);
}

/* Traffic only between ranks that block order puts on one host: the
 * default has no hop-bytes, so the ratio is NaN (not 0, not infinite)
 * and the page says so. */
static void test_ratio_undefined_when_default_has_no_hop_bytes(void **state)
{
	struct fixture *f = *state;
	tp_traffic *t;
	tp_explain_input in = {.topo = f->topo,
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_PACK,
	                       .slots = 2,
	                       .seed = 1};
	tp_explain ex;
	char *text;
	tp_error err;

	assert_int_equal(tp_traffic_new(&t, 8, &err), TP_OK);
	for (uint32_t r = 0; r < 8; r += 2)
		assert_int_equal(tp_traffic_add(t, r, r + 1, MIB, 10, &err),
		                 TP_OK);
	tp_traffic_normalize(t);
	in.traffic = t;
	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_true(ex.has_costs);
	assert_int_equal(ex.default_cost.hop_bytes, 0);
	assert_int_equal(ex.default_cost.class_bytes[TP_COST_ON_NODE], 4 * MIB);
	assert_int_equal(ex.topoplace_cost.hop_bytes, 0);
	assert_true(isnan(ex.hop_bytes_ratio));
	assert_int_equal(tp_explain_text(&ex, &text, &err), TP_OK);
	assert_non_null(strstr(text, "hop-bytes: the default has none"));
	free(text);
	tp_explain_free(&ex);
	tp_traffic_free(t);
}

/* The page decides nothing: what it says comes from the struct, so a
 * changed figure shows and the page equals tp_explain_placement's. */
static void test_page_rendered_from_the_struct_alone(void **state)
{
	struct fixture *f = *state;
	tp_explain_input in = {.topo = f->topo,
	                       .job = "ring",
	                       .nodes = 4,
	                       .policy = TP_PLACEMENT_PACK,
	                       .job_class = TP_JOBCLASS_QUIET,
	                       .traffic = f->t,
	                       .slots = 2,
	                       .seed = 1};
	tp_explain ex;
	char *page, *direct, *changed;
	tp_error err;

	assert_int_equal(tp_explain_compute(&in, &ex, &err), TP_OK);
	assert_int_equal(tp_explain_text(&ex, &page, &err), TP_OK);
	assert_int_equal(tp_explain_placement(&in, &direct, &err), TP_OK);
	assert_string_equal(page, direct);
	ex.mapping = "made-up";
	ex.hop_bytes_ratio = 0.25;
	ex.ranks = 99;
	assert_int_equal(tp_explain_text(&ex, &changed, &err), TP_OK);
	assert_non_null(strstr(changed, "topoplace (made-up)"));
	assert_non_null(strstr(changed, "hop-bytes: 0.250 of the default"));
	assert_non_null(strstr(changed, "Communication: 99 ranks"));
	assert_null(strstr(page, "made-up"));
	free(page);
	free(direct);
	free(changed);
	tp_explain_free(&ex);
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
	    cmocka_unit_test(test_struct_holds_decision_default_and_costs),
	    cmocka_unit_test(test_struct_class_classified_or_given),
	    cmocka_unit_test(test_struct_unmet_has_nothing_computed),
	    cmocka_unit_test(test_struct_held_hosts_and_io_server),
	    cmocka_unit_test(
	        test_ratio_undefined_when_default_has_no_hop_bytes),
	    cmocka_unit_test(test_page_rendered_from_the_struct_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
