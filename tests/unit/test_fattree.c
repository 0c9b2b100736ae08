/*
 * test_fattree.c - unit tests of the fat-tree fixture generator
 * (tools/fattree.c): shapes, names, GUIDs, cabling, Slurm output, errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fattree.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static struct tp_fattree_spec two_level(unsigned leaves, unsigned hosts,
                                        unsigned spines)
{
	struct tp_fattree_spec spec;

	tp_fattree_spec_init(&spec);
	spec.leaves = leaves;
	spec.hosts_per_leaf = hosts;
	spec.spines = spines;
	return spec;
}

static struct tp_fattree_spec three_level(unsigned leaves, unsigned hosts,
                                          unsigned aggs_per_pod, unsigned pods,
                                          unsigned cores)
{
	struct tp_fattree_spec spec = two_level(leaves, hosts, aggs_per_pod);

	spec.pods = pods;
	spec.cores = cores;
	return spec;
}

/* Generate; the test fails if generation fails. Caller frees. */
static char *render(const struct tp_fattree_spec *spec,
                    enum tp_fattree_format format)
{
	char err[TP_FATTREE_ERRLEN] = "";
	char *text = NULL;
	int rc = tp_fattree_write_buffer(spec, format, &text, NULL, err,
	                                 sizeof(err));

	if (rc != 0)
		fail_msg("generation failed (%d): %s", rc, err);
	assert_non_null(text);
	return text;
}

static size_t count_lines_with_prefix(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *line = text; line != NULL && *line != '\0';) {
		if (strncmp(line, prefix, len) == 0)
			n++;
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return n;
}

#define NAME_MAX_LEN 32

struct node {
	char name[NAME_MAX_LEN];
	char desc[NAME_MAX_LEN * 2];
	int is_switch;
	unsigned ports;
	uint64_t guid;
};

struct link {
	unsigned node; /* index into nodes */
	unsigned port;
	char remote[NAME_MAX_LEN];
	unsigned remote_port;
	int has_tail; /* ends with "lid 0 4xQDR" */
};

struct net {
	struct node *nodes;
	size_t n_nodes;
	struct link *links;
	size_t n_links;
};

static void net_free(struct net *net)
{
	free(net->nodes);
	free(net->links);
}

/* A small parser for exactly the subset of the net-file format we write. */
static struct net parse_net(const char *text)
{
	struct net net = {NULL, 0, NULL, 0};
	size_t cap_nodes = 16, cap_links = 64;
	uint64_t pending_guid = 0;
	char *copy = strdup(text), *save = NULL;

	assert_non_null(copy);
	net.nodes = calloc(cap_nodes, sizeof(*net.nodes));
	net.links = calloc(cap_links, sizeof(*net.links));
	assert_non_null(net.nodes);
	assert_non_null(net.links);
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "switchguid=%" SCNx64, &pending_guid) == 1 ||
		    sscanf(line, "caguid=%" SCNx64, &pending_guid) == 1)
			continue;
		if (strncmp(line, "Switch\t", 7) == 0 ||
		    strncmp(line, "Ca\t", 3) == 0) {
			struct node *nd;
			const char *hash;

			if (net.n_nodes == cap_nodes) {
				cap_nodes *= 2;
				net.nodes =
				    realloc(net.nodes, cap_nodes * sizeof(*nd));
				assert_non_null(net.nodes);
			}
			nd = &net.nodes[net.n_nodes++];
			memset(nd, 0, sizeof(*nd));
			nd->is_switch = line[0] == 'S';
			assert_int_equal(sscanf(strchr(line, '\t') + 1,
			                        "%u \"%31[^\"]\"", &nd->ports,
			                        nd->name),
			                 2);
			hash = strchr(line, '#');
			assert_non_null(hash);
			assert_int_equal(
			    sscanf(hash, "# \"%63[^\"]\"", nd->desc), 1);
			nd->guid = pending_guid;
			continue;
		}
		if (line[0] == '[') {
			struct link *lk;
			size_t len = strlen(line);

			assert_true(net.n_nodes > 0);
			if (net.n_links == cap_links) {
				cap_links *= 2;
				net.links =
				    realloc(net.links, cap_links * sizeof(*lk));
				assert_non_null(net.links);
			}
			lk = &net.links[net.n_links++];
			memset(lk, 0, sizeof(*lk));
			lk->node = (unsigned)(net.n_nodes - 1);
			assert_int_equal(sscanf(line, "[%u]\t\"%31[^\"]\"[%u]",
			                        &lk->port, lk->remote,
			                        &lk->remote_port),
			                 3);
			lk->has_tail = len >= 11 && strcmp(line + len - 11,
			                                   "lid 0 4xQDR") == 0;
		}
	}
	free(copy);
	return net;
}

static long find_node(const struct net *net, const char *name)
{
	for (size_t i = 0; i < net->n_nodes; i++)
		if (strcmp(net->nodes[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Does node `from` have a link on `port` to `to`[to_port]? */
static int has_link(const struct net *net, const char *from, unsigned port,
                    const char *to, unsigned to_port)
{
	long idx = find_node(net, from);

	for (size_t i = 0; idx >= 0 && i < net->n_links; i++) {
		const struct link *lk = &net->links[i];

		if (lk->node == (unsigned)idx && lk->port == port &&
		    lk->remote_port == to_port && strcmp(lk->remote, to) == 0)
			return 1;
	}
	return 0;
}

static size_t links_between(const struct net *net, const char *a, const char *b)
{
	long idx = find_node(net, a);
	size_t n = 0;

	for (size_t i = 0; idx >= 0 && i < net->n_links; i++)
		if (net->links[i].node == (unsigned)idx &&
		    strcmp(net->links[i].remote, b) == 0)
			n++;
	return n;
}

/* Every cable appears from both ends, on ports that exist, used once. */
static void assert_cabling_consistent(const struct tp_fattree_spec *spec)
{
	char *text = render(spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	assert_true(net.n_links > 0);
	for (size_t i = 0; i < net.n_links; i++) {
		const struct link *lk = &net.links[i];
		const struct node *self = &net.nodes[lk->node];
		long remote = find_node(&net, lk->remote);

		if (remote < 0)
			fail_msg("%s[%u] cabled to unknown node %s", self->name,
			         lk->port, lk->remote);
		if (lk->port < 1 || lk->port > self->ports)
			fail_msg("%s uses port %u of %u", self->name, lk->port,
			         self->ports);
		if (!has_link(&net, lk->remote, lk->remote_port, self->name,
		              lk->port))
			fail_msg("%s[%u] -> %s[%u] has no reverse line",
			         self->name, lk->port, lk->remote,
			         lk->remote_port);
		for (size_t j = i + 1; j < net.n_links; j++)
			if (net.links[j].node == lk->node &&
			    net.links[j].port == lk->port)
				fail_msg("%s port %u is cabled twice",
				         self->name, lk->port);
	}
	net_free(&net);
	free(text);
}

/* ------------------------------------------------------------------------ */
/* Shapes and names                                                          */

static void test_two_level_has_one_block_per_switch_and_host(void **state)
{
	struct tp_fattree_spec spec = two_level(4, 4, 2);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	assert_int_equal(count_lines_with_prefix(text, "Switch\t"), 6);
	assert_int_equal(count_lines_with_prefix(text, "Ca\t"), 16);
	assert_int_equal(net.n_nodes, 22);
	for (unsigned i = 1; i <= 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "leaf%03u", i);
		assert_true(find_node(&net, name) >= 0);
	}
	assert_true(find_node(&net, "spine001") >= 0);
	assert_true(find_node(&net, "spine002") >= 0);
	assert_true(find_node(&net, "spine003") < 0);
	assert_true(find_node(&net, "n0016") >= 0);
	assert_true(find_node(&net, "n0017") < 0);
	/* 16 host links x 2 ends + 8 leaf-spine cables x 2 ends */
	assert_int_equal(net.n_links, 48);
	net_free(&net);
	free(text);
}

static void
test_three_level_has_leaves_aggs_and_cores_but_no_spines(void **state)
{
	struct tp_fattree_spec spec = three_level(8, 2, 2, 2, 4);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	assert_int_equal(count_lines_with_prefix(text, "Switch\t"), 8 + 4 + 4);
	assert_int_equal(count_lines_with_prefix(text, "Ca\t"), 16);
	assert_true(find_node(&net, "agg004") >= 0);
	assert_true(find_node(&net, "agg005") < 0);
	assert_true(find_node(&net, "core004") >= 0);
	assert_true(find_node(&net, "core005") < 0);
	assert_null(strstr(text, "\"spine"));
	net_free(&net);
	free(text);
}

static void test_hosts_are_numbered_leaf_by_leaf(void **state)
{
	struct tp_fattree_spec spec = two_level(3, 4, 1);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	/* leaf001 holds n0001..n0004 on ports 1..4, leaf002 starts at n0005 */
	for (unsigned h = 1; h <= 4; h++) {
		char host[16];

		snprintf(host, sizeof(host), "n%04u", h);
		assert_true(has_link(&net, "leaf001", h, host, 1));
		assert_true(has_link(&net, host, 1, "leaf001", h));
	}
	assert_true(has_link(&net, "leaf002", 1, "n0005", 1));
	assert_true(has_link(&net, "leaf003", 4, "n0012", 1));
	/* the uplink follows the hosts */
	assert_true(has_link(&net, "leaf002", 5, "spine001", 2));
	net_free(&net);
	free(text);
}

static void test_node_descriptions_start_with_the_slurm_node_name(void **state)
{
	struct tp_fattree_spec spec = three_level(4, 2, 1, 2, 1);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	for (size_t i = 0; i < net.n_nodes; i++) {
		const struct node *nd = &net.nodes[i];
		char want[NAME_MAX_LEN * 2];

		snprintf(want, sizeof(want), nd->is_switch ? "%s" : "%s HCA-1",
		         nd->name);
		assert_string_equal(nd->desc, want);
	}
	net_free(&net);
	free(text);
}

static void
test_switch_port_count_is_at_least_36_and_fits_the_cabling(void **state)
{
	struct tp_fattree_spec small = two_level(2, 2, 1);
	struct tp_fattree_spec big = two_level(2, 40, 4);
	char *a = render(&small, TP_FATTREE_FORMAT_IBSIM);
	char *b = render(&big, TP_FATTREE_FORMAT_IBSIM);

	(void)state;
	assert_non_null(strstr(a, "Switch\t36 \"leaf001\""));
	/* 40 hosts + 4 uplinks */
	assert_non_null(strstr(b, "Switch\t44 \"leaf001\""));
	assert_non_null(strstr(b, "Switch\t36 \"spine001\""));
	free(a);
	free(b);
}

/* ------------------------------------------------------------------------ */
/* GUIDs                                                                     */

static void test_guids_are_unique_including_port_guids(void **state)
{
	struct tp_fattree_spec spec = three_level(6, 5, 2, 3, 4);
	char *text;
	struct net net;
	uint64_t *all;
	size_t n = 0;

	(void)state;
	spec.host_ports = 2;
	text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	net = parse_net(text);
	all = calloc(net.n_nodes * 3, sizeof(*all));
	assert_non_null(all);
	for (size_t i = 0; i < net.n_nodes; i++) {
		all[n++] = net.nodes[i].guid;
		/* ibsim gives CA port p the GUID node GUID + p */
		for (unsigned p = 1;
		     !net.nodes[i].is_switch && p <= net.nodes[i].ports; p++)
			all[n++] = net.nodes[i].guid + p;
	}
	for (size_t i = 0; i < n; i++) {
		assert_true(all[i] != 0);
		for (size_t j = i + 1; j < n; j++)
			if (all[i] == all[j])
				fail_msg("GUID 0x%016" PRIx64 " used twice",
				         all[i]);
	}
	free(all);
	net_free(&net);
	free(text);
}

static void test_guids_encode_kind_and_index(void **state)
{
	struct tp_fattree_spec spec = three_level(4, 2, 2, 2, 2);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	assert_true(net.nodes[find_node(&net, "leaf003")].guid ==
	            UINT64_C(0x0002c90301010003));
	assert_true(net.nodes[find_node(&net, "agg004")].guid ==
	            UINT64_C(0x0002c90301030004));
	assert_true(net.nodes[find_node(&net, "core002")].guid ==
	            UINT64_C(0x0002c90301040002));
	assert_true(net.nodes[find_node(&net, "n0007")].guid ==
	            UINT64_C(0x0002c90400000070));
	assert_true(tp_fattree_switch_guid(TP_FATTREE_KIND_SPINE, 12) ==
	            UINT64_C(0x0002c9030102000c));
	assert_true(tp_fattree_ca_guid(9999) == UINT64_C(0x0002c904000270f0));
	net_free(&net);
	free(text);
}

/* ------------------------------------------------------------------------ */
/* Cabling                                                                   */

static void test_every_link_line_has_its_reverse_two_level(void **state)
{
	struct tp_fattree_spec plain = two_level(4, 4, 2);
	struct tp_fattree_spec wide = two_level(5, 3, 3);

	(void)state;
	wide.uplinks = 2;
	wide.host_ports = 2;
	assert_cabling_consistent(&plain);
	assert_cabling_consistent(&wide);
}

static void test_every_link_line_has_its_reverse_three_level(void **state)
{
	struct tp_fattree_spec plain = three_level(8, 4, 2, 2, 4);
	struct tp_fattree_spec wide = three_level(9, 2, 3, 3, 6);

	(void)state;
	wide.uplinks = 2;
	assert_cabling_consistent(&plain);
	assert_cabling_consistent(&wide);
}

static void
test_every_leaf_reaches_every_spine_with_uplinks_cables(void **state)
{
	struct tp_fattree_spec spec = two_level(3, 2, 4);
	char *text;
	struct net net;

	(void)state;
	spec.uplinks = 3;
	text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	net = parse_net(text);
	for (unsigned l = 1; l <= 3; l++)
		for (unsigned s = 1; s <= 4; s++) {
			char leaf[16], spine[16];

			snprintf(leaf, sizeof(leaf), "leaf%03u", l);
			snprintf(spine, sizeof(spine), "spine%03u", s);
			assert_int_equal(links_between(&net, leaf, spine), 3);
		}
	net_free(&net);
	free(text);
}

static void test_three_level_pod_leaves_reach_only_their_pods_aggs(void **state)
{
	struct tp_fattree_spec spec = three_level(4, 2, 2, 2, 2);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	/* pod 1 = leaf001-002 + agg001-002; pod 2 = leaf003-004 + agg003-004 */
	assert_int_equal(links_between(&net, "leaf001", "agg001"), 1);
	assert_int_equal(links_between(&net, "leaf002", "agg002"), 1);
	assert_int_equal(links_between(&net, "leaf001", "agg003"), 0);
	assert_int_equal(links_between(&net, "leaf004", "agg003"), 1);
	assert_int_equal(links_between(&net, "leaf004", "agg002"), 0);
	net_free(&net);
	free(text);
}

static void
test_three_level_agg_j_of_every_pod_reaches_core_group_j(void **state)
{
	/* 2 aggs per pod, 4 cores: group 0 = core001-002, group 1 = core003-004
	 */
	struct tp_fattree_spec spec = three_level(6, 1, 2, 3, 4);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);
	const char *first_aggs[] = {"agg001", "agg003", "agg005"};
	const char *second_aggs[] = {"agg002", "agg004", "agg006"};

	(void)state;
	for (unsigned q = 0; q < 3; q++) {
		assert_int_equal(links_between(&net, first_aggs[q], "core001"),
		                 1);
		assert_int_equal(links_between(&net, first_aggs[q], "core002"),
		                 1);
		assert_int_equal(links_between(&net, first_aggs[q], "core003"),
		                 0);
		assert_int_equal(links_between(&net, second_aggs[q], "core003"),
		                 1);
		assert_int_equal(links_between(&net, second_aggs[q], "core004"),
		                 1);
		assert_int_equal(links_between(&net, second_aggs[q], "core001"),
		                 0);
	}
	/* core port q+1 leads to pod q+1 */
	assert_true(has_link(&net, "core003", 2, "agg004", 2 + 1));
	net_free(&net);
	free(text);
}

static void test_multi_port_hosts_cable_every_port_to_their_leaf(void **state)
{
	struct tp_fattree_spec spec = two_level(2, 3, 1);
	char *text;
	struct net net;

	(void)state;
	spec.host_ports = 2;
	text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	net = parse_net(text);
	assert_non_null(strstr(text, "Ca\t2 \"n0001\""));
	/* host h port p on leaf port h*2 + p */
	assert_true(has_link(&net, "n0002", 1, "leaf001", 3));
	assert_true(has_link(&net, "n0002", 2, "leaf001", 4));
	assert_true(has_link(&net, "leaf001", 7, "spine001", 1));
	net_free(&net);
	free(text);
}

static void test_every_link_line_ends_with_lid_and_speed(void **state)
{
	struct tp_fattree_spec spec = three_level(4, 3, 2, 2, 2);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	struct net net = parse_net(text);

	(void)state;
	for (size_t i = 0; i < net.n_links; i++)
		if (!net.links[i].has_tail)
			fail_msg("link %zu of %s lacks 'lid 0 4xQDR'", i,
			         net.nodes[net.links[i].node].name);
	net_free(&net);
	free(text);
}

static void test_ibsim_limits_line_covers_a_large_fabric(void **state)
{
	struct tp_fattree_spec spec = three_level(909, 11, 10, 9, 20);
	char *text = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	unsigned long nodes = 0, switches = 0, ports = 0, lincap = 0;
	const char *line = strstr(text, "# ibsim-limits: ");

	(void)state;
	assert_non_null(line);
	assert_int_equal(sscanf(line,
	                        "# ibsim-limits: -N %lu -S %lu -P %lu -L %lu",
	                        &nodes, &switches, &ports, &lincap),
	                 4);
	assert_int_equal(nodes, 9999 + 909 + 90 + 20);
	assert_int_equal(switches, 909 + 90 + 20);
	/* 9999 CA ports + (36+1) per leaf and core + (101 leaves + 2 cores
	 * + port 0) per agg */
	assert_int_equal(ports, 9999ul + 909ul * 37 + 90ul * 104 + 20ul * 37);
	assert_true(lincap >= 9999 + 1019 + 1);
	free(text);
}

static void test_output_is_deterministic(void **state)
{
	struct tp_fattree_spec spec = three_level(4, 3, 2, 2, 2);
	char *a = render(&spec, TP_FATTREE_FORMAT_IBSIM);
	char *b = render(&spec, TP_FATTREE_FORMAT_IBSIM);

	(void)state;
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* ------------------------------------------------------------------------ */
/* Slurm topology.conf                                                       */

static void test_slurm_two_by_two_is_exact(void **state)
{
	struct tp_fattree_spec spec = two_level(2, 2, 2);
	char *text = render(&spec, TP_FATTREE_FORMAT_SLURM);

	(void)state;
	assert_string_equal(
	    text, "# topology.conf generated by topoplace-fattree\n"
	          "# shape: 2-level fat tree, 2 leaves x 2 hosts (1 port "
	          "each), 2 spines, 1 cable per leaf-spine pair\n"
	          "# Slurm's topology/tree needs ONE tree: the 2 spine "
	          "switches are collapsed into the single switch \"root\".\n"
	          "SwitchName=leaf001 Nodes=n[0001-0002]\n"
	          "SwitchName=leaf002 Nodes=n[0003-0004]\n"
	          "SwitchName=root Switches=leaf[001-002]\n");
	free(text);
}

static void test_slurm_three_level_is_one_tree_of_pods(void **state)
{
	struct tp_fattree_spec spec = three_level(6, 4, 2, 3, 2);
	char *text = render(&spec, TP_FATTREE_FORMAT_SLURM);
	const char *body;

	(void)state;
	body = strstr(text, "SwitchName=");
	assert_non_null(body);
	assert_string_equal(body, "SwitchName=leaf001 Nodes=n[0001-0004]\n"
	                          "SwitchName=leaf002 Nodes=n[0005-0008]\n"
	                          "SwitchName=leaf003 Nodes=n[0009-0012]\n"
	                          "SwitchName=leaf004 Nodes=n[0013-0016]\n"
	                          "SwitchName=leaf005 Nodes=n[0017-0020]\n"
	                          "SwitchName=leaf006 Nodes=n[0021-0024]\n"
	                          "SwitchName=pod01 Switches=leaf[001-002]\n"
	                          "SwitchName=pod02 Switches=leaf[003-004]\n"
	                          "SwitchName=pod03 Switches=leaf[005-006]\n"
	                          "SwitchName=root Switches=pod[01-03]\n");
	assert_non_null(strstr(text, "collapsed"));
	assert_int_equal(count_lines_with_prefix(text, "SwitchName=root "), 1);
	free(text);
}

static void test_slurm_single_members_use_plain_names(void **state)
{
	struct tp_fattree_spec spec = two_level(1, 1, 1);
	char *text = render(&spec, TP_FATTREE_FORMAT_SLURM);

	(void)state;
	assert_non_null(strstr(text, "SwitchName=leaf001 Nodes=n0001\n"));
	assert_non_null(strstr(text, "SwitchName=root Switches=leaf001\n"));
	assert_null(strchr(strstr(text, "SwitchName="), '['));
	free(text);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

struct bad_case {
	struct tp_fattree_spec spec;
	const char *message_part;
};

static struct tp_fattree_spec with_host_ports(struct tp_fattree_spec spec,
                                              unsigned host_ports)
{
	spec.host_ports = host_ports;
	return spec;
}

static struct tp_fattree_spec with_uplinks(struct tp_fattree_spec spec,
                                           unsigned uplinks)
{
	spec.uplinks = uplinks;
	return spec;
}

static void test_bad_specs_are_rejected_naming_option_and_value(void **state)
{
	const struct bad_case cases[] = {
	    {two_level(0, 4, 2), "--leaves 0: must be between 1 and 999"},
	    {two_level(1000, 1, 1), "--leaves 1000"},
	    {two_level(4, 0, 2), "--hosts-per-leaf 0"},
	    {two_level(4, 4, 0), "--spines 0"},
	    {two_level(500, 20, 1), "= 10000 hosts: at most 9999"},
	    {two_level(2, 240, 30), "a leaf needs 270 ports"},
	    {two_level(300, 1, 1), "a spine needs 300 ports"},
	    {with_uplinks(two_level(2, 2, 100), 3), "a leaf needs 302 ports"},
	    {three_level(10, 2, 2, 4, 2),
	     "--leaves 10 is not divisible by --pods 4"},
	    {three_level(8, 2, 2, 2, 0), "--cores is required"},
	    {three_level(8, 2, 4, 2, 6),
	     "--cores 6 is not divisible by --spines 4"},
	    {three_level(8, 2, 2, 100, 2), "--pods 100"},
	    {three_level(4, 2, 2, 1, 4),
	     "--cores 4: core switches need a 3-level tree"},
	    {three_level(600, 1, 2, 2, 2),
	     "an aggregation switch needs 301 ports"},
	    {with_host_ports(two_level(2, 2, 1), 9), "--host-ports 9"},
	    {with_uplinks(two_level(2, 2, 1), 0), "--uplinks 0"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[TP_FATTREE_ERRLEN] = "";
		char *text = (char *)"untouched";
		int rc;

		rc = tp_fattree_write_buffer(&cases[i].spec,
		                             TP_FATTREE_FORMAT_IBSIM, &text,
		                             NULL, err, sizeof(err));
		assert_int_equal(rc, -EINVAL);
		assert_null(text);
		if (strstr(err, cases[i].message_part) == NULL)
			fail_msg("case %zu: message '%s' lacks '%s'", i, err,
			         cases[i].message_part);
		assert_int_equal(
		    tp_fattree_layout(&cases[i].spec, NULL, NULL, 0), -EINVAL);
	}
}

static void test_rejected_spec_writes_nothing(void **state)
{
	struct tp_fattree_spec spec = two_level(0, 4, 2);
	char err[TP_FATTREE_ERRLEN] = "";
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);

	(void)state;
	assert_non_null(mem);
	assert_int_equal(tp_fattree_write(&spec, TP_FATTREE_FORMAT_SLURM, mem,
	                                  err, sizeof(err)),
	                 -EINVAL);
	assert_int_equal(fclose(mem), 0);
	assert_int_equal(size, 0);
	free(buf);
}

static void test_write_failure_is_reported_as_eio(void **state)
{
	struct tp_fattree_spec spec = two_level(4, 4, 2);
	char err[TP_FATTREE_ERRLEN] = "";
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	if (full == NULL)
		skip();
	assert_int_equal(tp_fattree_write(&spec, TP_FATTREE_FORMAT_IBSIM, full,
	                                  err, sizeof(err)),
	                 -EIO);
	assert_non_null(strstr(err, "writing the ibsim output failed"));
	fclose(full);
}

static void test_unknown_format_is_rejected(void **state)
{
	struct tp_fattree_spec spec = two_level(1, 1, 1);
	enum tp_fattree_format format = TP_FATTREE_FORMAT_IBSIM;
	char err[TP_FATTREE_ERRLEN] = "";
	char *text = NULL;

	(void)state;
	assert_int_equal(tp_fattree_format_parse("slurm", &format), 0);
	assert_int_equal(format, TP_FATTREE_FORMAT_SLURM);
	assert_int_equal(tp_fattree_format_parse("ibsim", &format), 0);
	assert_int_equal(format, TP_FATTREE_FORMAT_IBSIM);
	assert_int_equal(tp_fattree_format_parse("dot", &format), -EINVAL);
	assert_int_equal(tp_fattree_format_parse(NULL, &format), -EINVAL);
	assert_int_equal(tp_fattree_write_buffer(&spec,
	                                         (enum tp_fattree_format)7,
	                                         &text, NULL, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "unknown output format 7"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_level_has_one_block_per_switch_and_host),
	    cmocka_unit_test(
	        test_three_level_has_leaves_aggs_and_cores_but_no_spines),
	    cmocka_unit_test(test_hosts_are_numbered_leaf_by_leaf),
	    cmocka_unit_test(
	        test_node_descriptions_start_with_the_slurm_node_name),
	    cmocka_unit_test(
	        test_switch_port_count_is_at_least_36_and_fits_the_cabling),
	    cmocka_unit_test(test_guids_are_unique_including_port_guids),
	    cmocka_unit_test(test_guids_encode_kind_and_index),
	    cmocka_unit_test(test_every_link_line_has_its_reverse_two_level),
	    cmocka_unit_test(test_every_link_line_has_its_reverse_three_level),
	    cmocka_unit_test(
	        test_every_leaf_reaches_every_spine_with_uplinks_cables),
	    cmocka_unit_test(
	        test_three_level_pod_leaves_reach_only_their_pods_aggs),
	    cmocka_unit_test(
	        test_three_level_agg_j_of_every_pod_reaches_core_group_j),
	    cmocka_unit_test(
	        test_multi_port_hosts_cable_every_port_to_their_leaf),
	    cmocka_unit_test(test_every_link_line_ends_with_lid_and_speed),
	    cmocka_unit_test(test_ibsim_limits_line_covers_a_large_fabric),
	    cmocka_unit_test(test_output_is_deterministic),
	    cmocka_unit_test(test_slurm_two_by_two_is_exact),
	    cmocka_unit_test(test_slurm_three_level_is_one_tree_of_pods),
	    cmocka_unit_test(test_slurm_single_members_use_plain_names),
	    cmocka_unit_test(
	        test_bad_specs_are_rejected_naming_option_and_value),
	    cmocka_unit_test(test_rejected_spec_writes_nothing),
	    cmocka_unit_test(test_write_failure_is_reported_as_eio),
	    cmocka_unit_test(test_unknown_format_is_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
