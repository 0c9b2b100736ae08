/*
 * test_fabric.c: the fabric model built from real ibnetdiscover caches
 * (tests/data/fabric, made with ibsim + OpenSM, see its README.md) finds
 * exactly the leaves, pods, hosts and distances, reports what is irregular,
 * maps names, reduces to the placement hierarchy, writes topology.conf and
 * diffs fabrics; broken input gives one clear error.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "discover.h"
#include "fabric.h"
#include "topo.h"

#ifndef TP_TOP_SRCDIR
#define TP_TOP_SRCDIR "."
#endif

static const char *data_path(const char *name)
{
	static char path[4096];
	const char *top = getenv("abs_top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/data/fabric/%s",
	         top != NULL ? top : TP_TOP_SRCDIR, name);
	return path;
}

static tp_fabric *load(const char *name, const tp_fabric_name_map *map)
{
	tp_fabric *f = NULL;
	tp_error err = {0};
	tp_status rc = tp_discover_load_cache(data_path(name), map, &f, &err);

	if (rc != TP_OK)
		fail_msg("%s", err.message);
	return f;
}

static const char *leaf_name(const tp_fabric *f, uint32_t k)
{
	return tp_fabric_node_at(f, tp_fabric_leaf_node(f, k))->name;
}

static size_t count_kind(const tp_fabric_findings *fs,
                         tp_fabric_finding_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < fs->count; i++)
		n += fs->items[i].kind == kind;
	return n;
}

static bool has_text(const tp_fabric_findings *fs, const char *text)
{
	for (size_t i = 0; i < fs->count; i++)
		if (strstr(fs->items[i].text, text) != NULL)
			return true;
	return false;
}

static void test_cache_4x4_has_exact_leaves_hosts_and_distances(void **state)
{
	tp_fabric *f = load("fat-4x4.cache", NULL);
	char name[16], rate[32];

	(void)state;
	assert_int_equal(tp_fabric_node_count(f), 22);
	assert_int_equal(tp_fabric_link_count(f), 24);
	assert_int_equal(tp_fabric_host_count(f), 16);
	assert_int_equal(tp_fabric_leaf_count(f), 4);
	assert_int_equal(tp_fabric_pod_count(f), 1);
	assert_int_equal(tp_fabric_max_level(f), 2);
	assert_int_equal(tp_fabric_switches_at(f, 2), 2);
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t n;
		const uint32_t *hosts = tp_fabric_leaf_hosts(f, k, &n);

		snprintf(name, sizeof(name), "leaf%03u", k + 1);
		assert_string_equal(leaf_name(f, k), name);
		assert_int_equal(n, 4);
		for (uint32_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "n%04u", k * 4 + i + 1);
			assert_string_equal(
			    tp_fabric_host_at(f, hosts[i])->name, name);
		}
	}
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = 0; b < 16; b++)
			assert_int_equal(tp_fabric_host_distance(f, a, b),
			                 a == b           ? 0
			                 : a / 4 == b / 4 ? 2
			                                  : 4);
	/* the SM assigned LIDs before the cache was written; 4xQDR links */
	for (uint32_t i = 0; i < tp_fabric_node_count(f); i++)
		assert_true(tp_fabric_node_at(f, i)->lid != 0);
	assert_string_equal(
	    tp_fabric_port_rate(
	        tp_fabric_node_port(f, tp_fabric_find_node(f, "n0001"), 1),
	        rate, sizeof(rate)),
	    "4xQDR");
	assert_int_equal(tp_fabric_anomalies(f)->count, 0);
	assert_int_equal(tp_fabric_find_host(f, "n0017"), TP_FABRIC_NONE);
	tp_fabric_free(f);
}

static void test_cache_3level_pods_match_the_fattree_hierarchy(void **state)
{
	tp_fabric *f = load("fat3-2x2x2.cache", NULL);
	tp_topo *want, *got;
	tp_error err = {0};

	(void)state;
	assert_int_equal(tp_fabric_max_level(f), 3);
	assert_int_equal(tp_fabric_pod_count(f), 2);
	assert_int_equal(tp_fabric_switches_at(f, 2), 4);
	assert_int_equal(tp_fabric_switches_at(f, 3), 2);
	assert_int_equal(tp_fabric_leaf_pod(f, 1), 0);
	assert_int_equal(tp_fabric_leaf_pod(f, 2), 1);
	assert_int_equal(tp_fabric_to_topo(f, &got, &err), TP_OK);
	assert_int_equal(tp_topo_new_fattree(&want, 2, 2, 2, &err), TP_OK);
	assert_int_equal(tp_topo_host_count(got), 8);
	for (uint32_t a = 0; a < 8; a++) {
		const char *an = tp_topo_host_name(want, a);
		uint32_t ga = tp_topo_find_host(got, an);

		assert_int_not_equal(ga, TP_TOPO_NONE);
		assert_string_equal(
		    tp_topo_leaf_name(got, tp_topo_host_leaf(got, ga)),
		    tp_topo_leaf_name(want, tp_topo_host_leaf(want, a)));
		for (uint32_t b = 0; b < 8; b++) {
			uint32_t gb =
			    tp_topo_find_host(got, tp_topo_host_name(want, b));

			assert_int_equal(tp_topo_distance(got, ga, gb),
			                 tp_topo_distance(want, a, b));
			assert_int_equal(
			    tp_fabric_host_distance(
			        f, tp_fabric_find_host(f, an),
			        tp_fabric_find_host(
			            f, tp_topo_host_name(want, b))),
			    tp_topo_distance(want, a, b));
		}
	}
	tp_topo_free(want);
	tp_topo_free(got);
	tp_fabric_free(f);
}

static void test_irregular_fabric_reports_each_anomaly(void **state)
{
	tp_fabric *f = load("irregular.cache", NULL);
	const tp_fabric_findings *fs = tp_fabric_anomalies(f);
	const tp_fabric_host *h;

	(void)state;
	assert_int_equal(tp_fabric_leaf_count(f), 3);
	assert_int_equal(count_kind(fs, TP_FINDING_HOST_ON_LEAVES), 1);
	assert_true(has_text(fs, "host n0001 is cabled to 2 leaves "
	                         "(leaf001, leaf002); placement uses leaf001"));
	assert_int_equal(count_kind(fs, TP_FINDING_UNEVEN_LEAVES), 1);
	assert_true(has_text(fs, "leaf003 has 3"));
	assert_int_equal(count_kind(fs, TP_FINDING_MISSING_UPLINK), 2);
	assert_true(has_text(fs, "leaf leaf002 (pod01) has no uplink to "
	                         "spine002"));
	/* leaf003 has two parallel cables to spine002, leaf001 one */
	assert_true(has_text(fs, "leaf leaf001 (pod01) has 2 uplink cables, "
	                         "other leaves of its pod up to 3"));
	assert_int_equal(count_kind(fs, TP_FINDING_UNMAPPED), 0);
	/* dual-rail n0006: two CAs, one host */
	h = tp_fabric_host_at(f, tp_fabric_find_host(f, "n0006"));
	assert_non_null(h);
	assert_int_equal(h->ca_count, 2);
	assert_int_equal(h->leaf_count, 1);
	h = tp_fabric_host_at(f, tp_fabric_find_host(f, "n0001"));
	assert_int_equal(h->leaf_count, 2);
	assert_string_equal(leaf_name(f, h->leaf), "leaf001");
	tp_fabric_free(f);
}

static void test_name_map_renames_and_marks_unmapped_hosts(void **state)
{
	tp_fabric_name_map *map;
	tp_fabric *f;
	tp_topo *topo;
	tp_error err = {0};
	const tp_fabric_findings *fs;

	(void)state;
	assert_int_equal(
	    tp_fabric_name_map_load(data_path("irregular.map"), &map, &err),
	    TP_OK);
	f = load("irregular.cache", map);
	fs = tp_fabric_anomalies(f);
	assert_int_equal(tp_fabric_find_host(f, "n0001"), TP_FABRIC_NONE);
	assert_int_not_equal(tp_fabric_find_host(f, "c001"), TP_FABRIC_NONE);
	assert_false(
	    tp_fabric_host_at(f, tp_fabric_find_host(f, "io01"))->mapped);
	assert_true(
	    tp_fabric_host_at(f, tp_fabric_find_host(f, "c006"))->mapped);
	assert_int_not_equal(tp_fabric_find_node(f, "edge-a"), TP_FABRIC_NONE);
	assert_int_equal(count_kind(fs, TP_FINDING_UNMAPPED), 1);
	assert_true(has_text(fs, "io01 (0x0002c90400000080)"));
	/* the unmapped I/O server is kept in the fabric, not placed */
	assert_int_equal(tp_fabric_to_topo(f, &topo, &err), TP_OK);
	assert_int_equal(tp_topo_host_count(topo), 6);
	assert_int_equal(tp_topo_find_host(topo, "io01"), TP_TOPO_NONE);
	assert_int_not_equal(tp_topo_find_leaf(topo, "edge-a"), TP_TOPO_NONE);
	tp_topo_free(topo);
	tp_fabric_free(f);
	tp_fabric_name_map_free(map);
}

static void test_bad_name_maps_are_refused_with_the_line(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
	    {"0x10 a\nnot-a-guid b\n",
	     "map: line 2: expected a GUID such as 0x0002c90300000001 "
	     "at the start"},
	    {"# c\n\n0x10\n", "map: line 3: GUID without a name"},
	    {"0x10 \"open\n", "map: line 1: unterminated quoted name"},
	    {"0x10 a\n0x010 b\n",
	     "map: GUID 0x0000000000000010 is mapped twice"},
	    {"0x12345678901234567 a\n",
	     "map: line 1: expected a GUID such as 0x0002c90300000001 "
	     "at the start"},
	};
	tp_fabric_name_map *map;
	tp_error err = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tp_fabric_name_map_parse(cases[i].text,
		                                          strlen(cases[i].text),
		                                          "map", &map, &err),
		                 TP_ERR_PARSE);
		assert_null(map);
		assert_string_equal(err.message, cases[i].message);
	}
	assert_int_equal(tp_fabric_name_map_parse("0xAb  \"x y\" # c\n", 16,
	                                          "map", &map, &err),
	                 TP_OK);
	assert_string_equal(tp_fabric_name_map_lookup(map, 0xab), "x y");
	assert_null(tp_fabric_name_map_lookup(map, 0xac));
	tp_fabric_name_map_free(map);
}

static void test_unreadable_and_truncated_caches_give_one_error(void **state)
{
	char tmpl[] = "/tmp/test_fabric.XXXXXX";
	tp_fabric *f;
	tp_error err = {0};
	FILE *in;
	char buf[4096];
	size_t n;
	int fd;

	(void)state;
	assert_int_equal(
	    tp_discover_load_cache("/nonexistent/x.cache", NULL, &f, &err),
	    TP_ERR_IO);
	assert_null(f);
	assert_string_equal(err.message,
	                    "ibnetdiscover cache /nonexistent/x.cache: cannot "
	                    "open: No such file or directory");
	/* the first 4 KiB of a real cache */
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	in = fopen(data_path("fat-4x4.cache"), "rb");
	assert_non_null(in);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	assert_int_equal(tp_discover_load_cache(tmpl, NULL, &f, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, tmpl));
	assert_non_null(strstr(err.message, ": truncated (4096 bytes cannot "
	                                    "hold 22 nodes and "));
	/* a name map is not a cache */
	assert_int_equal(
	    tp_discover_load_cache(data_path("irregular.map"), NULL, &f, &err),
	    TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "irregular.map: not an "
	                                    "ibnetdiscover cache (no magic "
	                                    "number)"));
	unlink(tmpl);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *in = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(in);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, in);
	fclose(in);
	return buf;
}

/* Bytes changed inside a real cache are caught, not trusted. */
static void test_corrupt_cache_fields_are_refused(void **state)
{
	size_t len;
	char *buf = slurp(data_path("fat-4x4.cache"), &len);
	tp_fabric *f;
	tp_error err = {0};
	/* the first node record follows the 28-byte header; its type byte
	 * comes after smalid, smalmc, enhsp0, switchinfo and the GUID */
	size_t type0 = 28 + 12 + 64;
	char saved;

	(void)state;
	assert_int_equal(
	    tp_discover_parse_cache(buf, len, "ok", NULL, &f, &err), TP_OK);
	tp_fabric_free(f);
	saved = buf[type0];
	buf[type0] = 9;
	assert_int_equal(tp_discover_parse_cache(buf, len, "c", NULL, &f, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "node type 9 is not CA, switch "
	                                    "or router"));
	buf[type0] = saved;
	/* a trailing byte */
	assert_int_equal(
	    tp_discover_parse_cache(buf, len + 1 <= (1 << 20) ? len + 1 : len,
	                            "c", NULL, &f, &err),
	    TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "1 bytes after the last port"));
	/* version 2 */
	buf[4] = 2;
	assert_int_equal(tp_discover_parse_cache(buf, len, "c", NULL, &f, &err),
	                 TP_ERR_PARSE);
	assert_string_equal(err.message, "ibnetdiscover cache c: cache "
	                                 "version 2, only version 1 is known");
	buf[4] = 1;
	/* a huge node count */
	buf[11] = 0x7f;
	assert_int_equal(tp_discover_parse_cache(buf, len, "c", NULL, &f, &err),
	                 TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "truncated"));
	free(buf);
}

/* Two leaves of one pod with no common spine are 6 hops apart. */
static void test_measured_distance_overrides_the_hierarchy(void **state)
{
	tp_fabric *f;
	tp_topo *topo;
	tp_error err = {0};
	uint32_t l1, l2, l3, s1, s2, h1, h2, h3;

	(void)state;
	assert_int_equal(tp_fabric_new(&f, "hand-made", true, &err), TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_SWITCH, 1, 4, "l1", &l1, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_SWITCH, 2, 4, "l2", &l2, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_SWITCH, 3, 4, "l3", &l3, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_SWITCH, 4, 4, "s1", &s1, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_SWITCH, 5, 4, "s2", &s2, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_CA, 6, 1, "h1 HCA", &h1, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_CA, 7, 1, "h2 HCA", &h2, &err),
	    TP_OK);
	assert_int_equal(
	    tp_fabric_add_node(f, TP_FABRIC_CA, 8, 1, "h3 HCA", &h3, &err),
	    TP_OK);
	/* l1 - s1 - l2 - s2 - l3: l1 and l3 share no spine */
	assert_int_equal(tp_fabric_link_ports(f, l1, 1, h1, 1, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l2, 1, h2, 1, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l3, 1, h3, 1, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l1, 2, s1, 1, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l2, 2, s1, 2, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l2, 3, s2, 1, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l3, 2, s2, 2, &err), TP_OK);
	assert_int_equal(tp_fabric_link_ports(f, l3, 2, s2, 3, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "port already cabled"));
	assert_int_equal(tp_fabric_finish(f, NULL, &err), TP_OK);
	assert_int_equal(tp_fabric_pod_count(f), 1);
	assert_int_equal(tp_fabric_host_distance(f, 0, 2), 6);
	assert_true(
	    has_text(tp_fabric_anomalies(f),
	             "hosts of leaves l1 and l3 are 6 hops apart, not 4"));
	assert_int_equal(tp_fabric_to_topo(f, &topo, &err), TP_OK);
	assert_int_equal(tp_topo_distance(topo, tp_topo_find_host(topo, "h1"),
	                                  tp_topo_find_host(topo, "h3")),
	                 6);
	assert_int_equal(tp_topo_distance(topo, tp_topo_find_host(topo, "h1"),
	                                  tp_topo_find_host(topo, "h2")),
	                 4);
	tp_topo_free(topo);
	assert_int_equal(tp_fabric_finish(f, NULL, &err), TP_ERR_INVALID);
	tp_fabric_free(f);
}

/* What topoplace-fattree --format slurm writes for the same shape. */
static const char fattree_3level_conf[] =
    "SwitchName=leaf001 Nodes=n[0001-0002]\n"
    "SwitchName=leaf002 Nodes=n[0003-0004]\n"
    "SwitchName=leaf003 Nodes=n[0005-0006]\n"
    "SwitchName=leaf004 Nodes=n[0007-0008]\n"
    "SwitchName=pod01 Switches=leaf[001-002]\n"
    "SwitchName=pod02 Switches=leaf[003-004]\n"
    "SwitchName=root Switches=pod[01-02]\n";

static void test_written_topology_conf_is_the_fattree_one(void **state)
{
	tp_fabric *f = load("fat3-2x2x2.cache", NULL), *back;
	tp_fabric_findings fs = {0};
	tp_error err = {0};
	char *text = NULL, *body;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	(void)state;
	assert_non_null(mem);
	assert_int_equal(tp_fabric_write_topology_conf(f, mem, "memory", &err),
	                 TP_OK);
	fclose(mem);
	/* skip the comment header */
	body = text;
	while (*body == '#')
		body = strchr(body, '\n') + 1;
	assert_string_equal(body, fattree_3level_conf);
	/* and it reads back into the same hosts, leaves and pods */
	assert_int_equal(
	    tp_discover_parse_topology_conf(text, len, "written", &back, &err),
	    TP_OK);
	assert_int_equal(tp_fabric_diff(f, back, &fs, &err), TP_OK);
	assert_int_equal(fs.count, 0);
	tp_fabric_free(back);
	free(text);
	tp_fabric_free(f);
}

static void test_diff_reports_exactly_what_changed(void **state)
{
	tp_fabric *f = load("fat3-2x2x2.cache", NULL), *g;
	tp_fabric_findings fs = {0};
	tp_error err = {0};
	/* n0004 moved to leaf003, n0008 gone, n0009 new, leaf004 in pod01 */
	static const char conf[] =
	    "SwitchName=leaf001 Nodes=n[0001-0002]\n"
	    "SwitchName=leaf002 Nodes=n0003\n"
	    "SwitchName=leaf003 Nodes=n[0004-0006]\n"
	    "SwitchName=leaf004 Nodes=n[0007,0009]\n"
	    "SwitchName=pod01 Switches=leaf[001-002,004]\n"
	    "SwitchName=pod02 Switches=leaf003\n"
	    "SwitchName=root Switches=pod[01-02]\n";

	(void)state;
	assert_int_equal(tp_fabric_diff(f, f, &fs, &err), TP_OK);
	assert_int_equal(fs.count, 0);
	assert_int_equal(tp_discover_parse_topology_conf(conf, strlen(conf),
	                                                 "conf", &g, &err),
	                 TP_OK);
	assert_int_equal(tp_fabric_diff(g, f, &fs, &err), TP_OK);
	for (size_t i = 0; i < fs.count; i++)
		print_message("# %s\n", fs.items[i].text);
	assert_int_equal(count_kind(&fs, TP_FINDING_HOST_MOVED), 1);
	assert_true(has_text(&fs, "moved: host n0004 from leaf003 to leaf002"));
	assert_true(has_text(&fs, "gone: host n0009 (was on leaf004)"));
	assert_true(has_text(&fs, "new: host n0008 on leaf004"));
	/* leaf004 left leaf001's and leaf002's pod, joined leaf003's */
	assert_int_equal(count_kind(&fs, TP_FINDING_POD_CHANGED), 3);
	assert_int_equal(fs.count, 6);
	tp_fabric_findings_free(&fs);
	tp_fabric_free(g);
	tp_fabric_free(f);
}

static void test_diff_of_cables_names_the_link(void **state)
{
	tp_fabric *a = load("fat-4x4.cache", NULL), *b;
	tp_fabric_findings fs = {0};
	tp_error err = {0};

	/* rebuild a copy without leaf002 - spine001 and without n0016 */
	(void)state;
	assert_int_equal(tp_fabric_new(&b, "copy", true, &err), TP_OK);
	for (uint32_t i = 0; i < tp_fabric_node_count(a); i++) {
		const tp_fabric_node *n = tp_fabric_node_at(a, i);

		assert_int_equal(tp_fabric_add_node(b, n->type, n->guid,
		                                    n->port_count, n->desc,
		                                    NULL, &err),
		                 TP_OK);
	}
	for (uint32_t l = 0; l < tp_fabric_link_count(a); l++) {
		const tp_fabric_link *k = tp_fabric_link_at(a, l);
		const char *x = tp_fabric_node_at(a, k->node[0])->name;
		const char *y = tp_fabric_node_at(a, k->node[1])->name;

		if ((!strcmp(x, "leaf002") && !strcmp(y, "spine001")) ||
		    (!strcmp(y, "leaf002") && !strcmp(x, "spine001")) ||
		    !strcmp(x, "n0016") || !strcmp(y, "n0016"))
			continue;
		assert_int_equal(
		    tp_fabric_link_ports(
		        b, k->node[0], tp_fabric_port_at(a, k->port[0])->num,
		        k->node[1], tp_fabric_port_at(a, k->port[1])->num,
		        &err),
		    TP_OK);
	}
	assert_int_equal(tp_fabric_finish(b, NULL, &err), TP_OK);
	assert_int_equal(tp_fabric_diff(a, b, &fs, &err), TP_OK);
	for (size_t i = 0; i < fs.count; i++)
		print_message("# %s\n", fs.items[i].text);
	assert_int_equal(fs.count, 3);
	assert_true(has_text(&fs, "gone: 1 cable leaf002 - spine001"));
	/* n0016 is still a node (uncabled), no longer on a leaf */
	assert_true(has_text(&fs, "moved: host n0016 from leaf004 to no leaf"));
	assert_true(has_text(&fs, "gone: 1 cable leaf004 - n0016"));
	tp_fabric_findings_free(&fs);
	tp_fabric_free(b);
	tp_fabric_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_cache_4x4_has_exact_leaves_hosts_and_distances),
	    cmocka_unit_test(
	        test_cache_3level_pods_match_the_fattree_hierarchy),
	    cmocka_unit_test(test_irregular_fabric_reports_each_anomaly),
	    cmocka_unit_test(test_name_map_renames_and_marks_unmapped_hosts),
	    cmocka_unit_test(test_bad_name_maps_are_refused_with_the_line),
	    cmocka_unit_test(
	        test_unreadable_and_truncated_caches_give_one_error),
	    cmocka_unit_test(test_corrupt_cache_fields_are_refused),
	    cmocka_unit_test(test_measured_distance_overrides_the_hierarchy),
	    cmocka_unit_test(test_written_topology_conf_is_the_fattree_one),
	    cmocka_unit_test(test_diff_reports_exactly_what_changed),
	    cmocka_unit_test(test_diff_of_cables_names_the_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
