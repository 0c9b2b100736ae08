/*
 * test_topology_conf.c: Slurm's topology.conf is read into the fabric
 * model with hostlist ranges expanded, forms the same leaves/pods/hosts as
 * the fabric it describes, and every malformed input gives one error that
 * names the file, the line and what is wrong.
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

static tp_fabric *parse_ok(const char *text)
{
	tp_fabric *f = NULL;
	tp_error err = {0};

	if (tp_discover_parse_topology_conf(text, strlen(text), "t.conf", &f,
	                                    &err) != TP_OK)
		fail_msg("%s", err.message);
	return f;
}

static void test_two_level_conf_gives_leaves_hosts_and_one_pod(void **state)
{
	tp_fabric *f = parse_ok(
	    "# comment\n"
	    "SwitchName=leaf001 Nodes=n[0001-0002]  # trailing comment\n"
	    "switchname=leaf002 nodes=n[0003-0004] LinkSpeed=100\n"
	    "\n"
	    "SwitchName=root \\\n"
	    "   Switches=leaf[001-002]\n");
	uint32_t n;
	const uint32_t *hosts;

	(void)state;
	assert_false(tp_fabric_has_ports(f));
	assert_int_equal(tp_fabric_host_count(f), 4);
	assert_int_equal(tp_fabric_leaf_count(f), 2);
	assert_int_equal(tp_fabric_pod_count(f), 1);
	assert_int_equal(tp_fabric_max_level(f), 2);
	hosts = tp_fabric_leaf_hosts(f, 1, &n);
	assert_int_equal(n, 2);
	assert_string_equal(tp_fabric_host_at(f, hosts[0])->name, "n0003");
	assert_int_equal(tp_fabric_host_distance(f, 0, 1), 2);
	assert_int_equal(tp_fabric_host_distance(f, 0, 3), 4);
	assert_int_equal(tp_fabric_anomalies(f)->count, 0);
	tp_fabric_free(f);
}

static void test_three_level_conf_has_pods_and_distance_six(void **state)
{
	tp_fabric *f = parse_ok("SwitchName=leaf001 Nodes=n[1-2]\n"
	                        "SwitchName=leaf002 Nodes=n[3-4]\n"
	                        "SwitchName=leaf003 Nodes=n[5-6]\n"
	                        "SwitchName=pod01 Switches=leaf[001-002]\n"
	                        "SwitchName=pod02 Switches=leaf003\n"
	                        "SwitchName=root Switches=pod[01-02]\n");

	(void)state;
	assert_int_equal(tp_fabric_pod_count(f), 2);
	assert_int_equal(tp_fabric_max_level(f), 3);
	assert_int_equal(tp_fabric_host_distance(f,
	                                         tp_fabric_find_host(f, "n1"),
	                                         tp_fabric_find_host(f, "n4")),
	                 4);
	assert_int_equal(tp_fabric_host_distance(f,
	                                         tp_fabric_find_host(f, "n1"),
	                                         tp_fabric_find_host(f, "n6")),
	                 6);
	/* leaf003 has 2 hosts like the others: only pods differ in size */
	assert_int_equal(tp_fabric_anomalies(f)->count, 0);
	tp_fabric_free(f);
}

static void test_node_under_two_leaves_is_reported_not_refused(void **state)
{
	tp_fabric *f = parse_ok("SwitchName=s1 Nodes=a,b\n"
	                        "SwitchName=s2 Nodes=b,c\n"
	                        "SwitchName=top Switches=s[1-2]\n");
	const tp_fabric_findings *fs = tp_fabric_anomalies(f);

	(void)state;
	assert_int_equal(fs->count, 2);
	assert_string_equal(fs->items[0].text,
	                    "host b is cabled to 2 leaves (s1, s2); placement "
	                    "uses s1");
	/* so s2 keeps only c */
	assert_string_equal(fs->items[1].text,
	                    "leaves have different host counts: 1 of 2 leaves "
	                    "have 2 hosts; s2 has 1");
	tp_fabric_free(f);
}

static void test_malformed_conf_gives_file_line_and_what(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
	    {"SwitchName=s1 Nodes=n1\nSwitchName=s2 Bogus=1\n",
	     "t.conf: line 2: unknown key \"Bogus\" (expected SwitchName, "
	     "Switches, Nodes or LinkSpeed)"},
	    {"Nodes=n1 SwitchName=s1\n",
	     "t.conf: line 1: a line must start with SwitchName=, not "
	     "Nodes="},
	    {"SwitchName=s1 Nodes=n1\n\nSwitchName=s1 Nodes=n2\n",
	     "t.conf: line 3: switch s1 already defined on line 1"},
	    {"SwitchName=s1 Nodes=n1\nSwitchName=top Switches=s[1-2]\n",
	     "t.conf: line 2: switch top lists undefined switch s2"},
	    {"SwitchName=s1 Nodes=n[1-\n",
	     "t.conf: line 1: Nodes=n[1-: '[' without ']' in \"n[1-\""},
	    {"SwitchName=s1\n",
	     "t.conf: line 1: switch s1 has neither Nodes= nor Switches="},
	    {"SwitchName=s1 Nodes=\n", "t.conf: line 1: Nodes= has no value"},
	    {"SwitchName=s1 garbage\n",
	     "t.conf: line 1: \"garbage\" is not Key=Value"},
	    {"# only a comment\n", "t.conf: no SwitchName= line"},
	    {"BlockName=b1 Nodes=n1\n",
	     "t.conf: line 1: BlockName (topology/block) is not a tree; "
	     "only SwitchName lines are read"},
	    {"SwitchName=s1 Nodes=n1 Nodes=n2\n",
	     "t.conf: line 1: Nodes= given twice"},
	    {"SwitchName=s1 Switches=s1\n",
	     "t.conf: line 1: switch s1 lists itself"},
	    {"SwitchName=s1 Nodes=s2\nSwitchName=s2 Nodes=n1\n",
	     "t.conf: s2 is both a switch and a node"},
	    {"SwitchName=s[1-2] Nodes=n1\n",
	     "t.conf: line 1: SwitchName=s[1-2] must be one name"},
	    {"SwitchName=s1 \\\n  Nodes=n[9-1]\n",
	     "t.conf: line 1: Nodes=n[9-1]: range 9-1 goes backwards"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tp_fabric *f = (tp_fabric *)1;
		tp_error err = {0};
		tp_status rc = tp_discover_parse_topology_conf(
		    cases[i].text, strlen(cases[i].text), "t.conf", &f, &err);

		assert_int_not_equal(rc, TP_OK);
		assert_null(f);
		assert_string_equal(err.message, cases[i].message);
	}
}

static void test_binary_and_missing_files_are_refused(void **state)
{
	static const char bin[] = "SwitchName=s1 Nodes=n1\nSwitch\0Name=x\n";
	tp_fabric *f;
	tp_error err = {0};

	(void)state;
	assert_int_equal(tp_discover_parse_topology_conf(bin, sizeof(bin) - 1,
	                                                 "b.conf", &f, &err),
	                 TP_ERR_PARSE);
	assert_string_equal(err.message,
	                    "b.conf: line 2: NUL byte (binary file?)");
	assert_int_equal(
	    tp_discover_load_topology_conf("/nonexistent/t.conf", &f, &err),
	    TP_ERR_IO);
	assert_string_equal(err.message, "/nonexistent/t.conf: cannot open: "
	                                 "No such file or directory");
}

static void test_conf_round_trips_through_the_writer(void **state)
{
	tp_fabric *f = parse_ok("SwitchName=l1 Nodes=n[01-04],io\n"
	                        "SwitchName=l2 Nodes=n[05-08]\n"
	                        "SwitchName=root Switches=l[1-2]\n"),
	          *g;
	tp_fabric_findings fs = {0};
	tp_error err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(tp_fabric_write_topology_conf(f, mem, "mem", &err),
	                 TP_OK);
	fclose(mem);
	assert_non_null(strstr(text, "SwitchName=l1 Nodes=io,n[01-04]\n"
	                             "SwitchName=l2 Nodes=n[05-08]\n"
	                             "SwitchName=root Switches=l[1-2]\n"));
	assert_int_equal(
	    tp_discover_parse_topology_conf(text, len, "w", &g, &err), TP_OK);
	assert_int_equal(tp_fabric_diff(f, g, &fs, &err), TP_OK);
	assert_int_equal(fs.count, 0);
	free(text);
	tp_fabric_free(g);
	tp_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_two_level_conf_gives_leaves_hosts_and_one_pod),
	    cmocka_unit_test(test_three_level_conf_has_pods_and_distance_six),
	    cmocka_unit_test(
	        test_node_under_two_leaves_is_reported_not_refused),
	    cmocka_unit_test(test_malformed_conf_gives_file_line_and_what),
	    cmocka_unit_test(test_binary_and_missing_files_are_refused),
	    cmocka_unit_test(test_conf_round_trips_through_the_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
