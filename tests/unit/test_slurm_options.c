/*
 * test_slurm_options.c: the Slurm plugins' Slurm-free helpers.  Every user
 * flag accepts its documented values in canonical form and refuses bad ones
 * with one line naming the flag; options are found in a job's SPANK
 * environment under Slurm's spelling; topoplace.conf is found beside
 * slurm.conf, a missing one means defaults and a bad one is an error naming
 * the line; the fabric loads from topology.conf; a profile's summary carries
 * its rates; AuthInfo's munge socket is found.
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

#include "spank_env.h"
#include "tp_slurm_core.h"
#include "tp_slurm_options.h"

static void check_ok(tp_opt_id id, const char *value, const char *canon)
{
	char out[TP_OPT_VALUE_MAX];
	tp_error err;

	assert_int_equal(tp_opt_check(id, value, out, &err), TP_OK);
	assert_string_equal(out, canon);
}

static void check_bad(tp_opt_id id, const char *value, const char *needle)
{
	char out[TP_OPT_VALUE_MAX];
	tp_error err;

	assert_int_equal(tp_opt_check(id, value, out, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, needle));
	assert_null(strchr(err.message, '\n'));
}

static void test_every_flag_accepts_its_values_canonically(void **state)
{
	(void)state;
	check_ok(TP_OPT_PLACEMENT, "leaf", "leaf");
	check_ok(TP_OPT_PLACEMENT, "off", "off");
	check_ok(TP_OPT_COMM_PROFILE, "lulesh-1.2", "lulesh-1.2");
	check_ok(TP_OPT_COMM_RECORD, NULL, "");
	/* How Slurm spells "given without a value" in the environment. */
	check_ok(TP_OPT_COMM_RECORD, "(null)", "");
	check_ok(TP_OPT_COMM_RECORD, "run_a", "run_a");
	check_ok(TP_OPT_RANK_REMAP, "off", "off");
	check_ok(TP_OPT_IO_SERVERS, "4", "4");
	check_ok(TP_OPT_IO_SERVERS, "65536", "65536");
	check_ok(TP_OPT_IO_THROTTLE, "2ms", "2000us");
	check_ok(TP_OPT_IO_THROTTLE, "off", "off");
	check_ok(TP_OPT_IO_THROTTLE, "auto", "auto");
}

static void test_bad_values_are_one_line_naming_the_flag(void **state)
{
	(void)state;
	check_bad(TP_OPT_PLACEMENT, "leafs", "--placement: 'leafs'");
	check_bad(TP_OPT_PLACEMENT, "", "--placement:");
	check_bad(TP_OPT_COMM_PROFILE, "../etc", "--comm-profile: '../etc'");
	check_bad(TP_OPT_COMM_PROFILE, "", "--comm-profile: empty");
	check_bad(TP_OPT_COMM_RECORD, "a/b", "--comm-record: 'a/b'");
	check_bad(TP_OPT_COMM_PROFILE, "(null)", "--comm-profile: '(null)'");
	check_bad(TP_OPT_RANK_REMAP, "maybe", "--rank-remap: 'maybe'");
	check_bad(TP_OPT_IO_SERVERS, "0", "--io-servers: '0'");
	check_bad(TP_OPT_IO_SERVERS, "-1", "--io-servers: '-1'");
	check_bad(TP_OPT_IO_SERVERS, "65537", "expected an integer from 1");
	check_bad(TP_OPT_IO_SERVERS, "4x", "--io-servers: '4x'");
	check_bad(TP_OPT_IO_SERVERS, "99999999999999999999", "--io-servers:");
	check_bad(TP_OPT_IO_THROTTLE, "fast", "--io-throttle:");
	check_bad(TP_OPT_PLACEMENT, NULL, "--placement: a value is required");
}

static void test_values_collect_the_flags_of_a_job(void **state)
{
	tp_opt_values v;
	tp_error err;

	(void)state;
	tp_opt_values_init(&v);
	assert_int_equal(v.placement, TP_PLACEMENT_AUTO);
	assert_true(v.rank_remap);
	assert_int_equal(v.io_throttle.mode, TP_THROTTLE_AUTO);
	assert_int_equal(
	    tp_opt_values_set(&v, TP_OPT_PLACEMENT, "spread", &err), TP_OK);
	assert_int_equal(v.placement, TP_PLACEMENT_SPREAD);
	assert_int_equal(
	    tp_opt_values_set(&v, TP_OPT_IO_THROTTLE, "1.5ms", &err), TP_OK);
	assert_int_equal(v.io_throttle.mode, TP_THROTTLE_FIXED);
	assert_int_equal(v.io_throttle.window_us, 1500);
	assert_int_equal(tp_opt_values_set(&v, TP_OPT_RANK_REMAP, "off", &err),
	                 TP_OK);
	assert_false(v.rank_remap);
	assert_int_equal(tp_opt_values_set(&v, TP_OPT_COMM_RECORD, "", &err),
	                 TP_OK);
	assert_true(v.comm_record);
	assert_string_equal(v.comm_record_name, "");
	/* --comm-record=no opts out, in any case, and names no profile. */
	assert_int_equal(tp_opt_values_set(&v, TP_OPT_COMM_RECORD, "No", &err),
	                 TP_OK);
	assert_false(v.comm_record);
	assert_true(v.comm_record_off);
	assert_string_equal(v.comm_record_name, "");
	assert_int_equal(
	    tp_opt_values_set(&v, TP_OPT_COMM_RECORD, "nope", &err), TP_OK);
	assert_true(v.comm_record);
	assert_false(v.comm_record_off);
	assert_string_equal(v.comm_record_name, "nope");
	assert_int_equal(tp_opt_values_set(&v, TP_OPT_IO_SERVERS, "12", &err),
	                 TP_OK);
	assert_int_equal(v.io_servers, 12);
	/* A bad value leaves the earlier one. */
	assert_int_equal(tp_opt_values_set(&v, TP_OPT_IO_SERVERS, "x", &err),
	                 TP_ERR_INVALID);
	assert_int_equal(v.io_servers, 12);
}

static void test_options_are_found_under_slurms_spelling(void **state)
{
	char *env[] = {"PATH=/bin", NULL,
	               "_SLURM_SPANK_OPTION_topoplace_comm_profile=hpcg",
	               "_SLURM_SPANK_OPTION_topoplace_placement=leaf",
	               "_SLURM_SPANK_OPTION_other_placement=off"};

	(void)state;
	assert_string_equal(tp_spank_job_option(env, 5, "comm-profile"),
	                    "hpcg");
	assert_string_equal(tp_spank_job_option(env, 5, "placement"), "leaf");
	assert_null(tp_spank_job_option(env, 5, "io-servers"));
	assert_null(tp_spank_job_option(NULL, 0, "placement"));
}

static void test_conf_path_is_beside_slurm_conf(void **state)
{
	char path[256];

	(void)state;
	tp_sc_conf_path("/run/bed/etc/slurm.conf", path, sizeof(path));
	assert_string_equal(path, "/run/bed/etc/topoplace.conf");
	/* No file given: SLURM_CONF's, as Slurm does (24.11's slurmstepd
	 * has no file name), else the default. */
	assert_int_equal(setenv("SLURM_CONF", "/srv/slurm/etc/slurm.conf", 1), 0);
	tp_sc_conf_path(NULL, path, sizeof(path));
	assert_string_equal(path, "/srv/slurm/etc/topoplace.conf");
	tp_sc_conf_path("", path, sizeof(path));
	assert_string_equal(path, "/srv/slurm/etc/topoplace.conf");
	assert_int_equal(unsetenv("SLURM_CONF"), 0);
	tp_sc_conf_path(NULL, path, sizeof(path));
	assert_string_equal(path, "/etc/slurm/topoplace.conf");
}

static void test_munge_socket_comes_from_authinfo(void **state)
{
	char s[64];

	(void)state;
	tp_sc_munge_socket("socket=/run/m.sock,ttl=60", s, sizeof(s));
	assert_string_equal(s, "/run/m.sock");
	tp_sc_munge_socket("ttl=60", s, sizeof(s));
	assert_string_equal(s, "");
	tp_sc_munge_socket(NULL, s, sizeof(s));
	assert_string_equal(s, "");
}

/* Write @text to a new temporary file; its path goes to @path. */
static void temp_file(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/test_slurm_options.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_missing_conf_is_defaults_bad_conf_names_the_line(void **state)
{
	tp_config *config = NULL;
	char path[64];
	tp_error err;
	int missing = 0;

	(void)state;
	assert_int_equal(tp_sc_load_config("/nonexistent/topoplace.conf",
	                                   &config, &missing, &err),
	                 TP_OK);
	assert_int_equal(missing, 1);
	assert_int_equal(tp_config_defaults(config)->default_placement,
	                 TP_PLACEMENT_AUTO);
	/* topology.conf is looked for beside the (missing) file. */
	assert_string_equal(tp_config_site_settings(config)->topology_conf,
	                    "/nonexistent/topology.conf");
	tp_config_free(config);
	config = NULL;
	temp_file(path, "DefaultPlacement=leaf\nDefaultPlacment=leaf\n");
	assert_int_not_equal(tp_sc_load_config(path, &config, &missing, &err),
	                     TP_OK);
	assert_null(config);
	assert_non_null(strstr(err.message, path));
	assert_non_null(strstr(err.message, "line 2"));
	assert_non_null(strstr(err.message, "DefaultPlacment"));
	unlink(path);
}

static void test_fabric_loads_from_topology_conf(void **state)
{
	char topo_path[64], conf_text[256], conf_path[64];
	tp_config *config = NULL;
	tp_topo *topo = NULL;
	tp_error err;
	int missing;

	(void)state;
	temp_file(topo_path, "SwitchName=leaf001 Nodes=n[0001-0004]\n"
	                     "SwitchName=leaf002 Nodes=n[0005-0008]\n"
	                     "SwitchName=root Switches=leaf[001-002]\n");
	snprintf(conf_text, sizeof(conf_text),
	         "FabricSource=topology\nTopologyConf=%s\n", topo_path);
	temp_file(conf_path, conf_text);
	assert_int_equal(tp_sc_load_config(conf_path, &config, &missing, &err),
	                 TP_OK);
	assert_int_equal(tp_sc_load_topo(config, &topo, &err), TP_OK);
	assert_int_equal(tp_topo_host_count(topo), 8);
	assert_int_equal(tp_topo_leaf_count(topo), 2);
	assert_int_equal(
	    tp_topo_host_leaf(topo, tp_topo_find_host(topo, "n0006")),
	    tp_topo_find_leaf(topo, "leaf002"));
	tp_topo_free(topo);
	tp_config_free(config);
	unlink(topo_path);
	/* A missing fabric cache: an error naming the path. */
	snprintf(conf_text, sizeof(conf_text),
	         "FabricSource=cache\nFabricCache=/nonexistent/f.cache\n");
	temp_file(topo_path, conf_text);
	assert_int_equal(tp_sc_load_config(topo_path, &config, &missing, &err),
	                 TP_OK);
	assert_int_not_equal(tp_sc_load_topo(config, &topo, &err), TP_OK);
	assert_non_null(strstr(err.message, "/nonexistent/f.cache"));
	tp_config_free(config);
	unlink(topo_path);
	unlink(conf_path);
}

static void test_profile_summary_carries_rates(void **state)
{
	tp_profile_header h;
	tp_profile *p = NULL;
	tp_profile_io_client c = {0};
	tp_job_summary s;
	tp_error err;

	(void)state;
	memset(&h, 0, sizeof(h));
	strcpy(h.app, "t");
	h.ranks = 2;
	h.duration_us = 2000000; /* 2 s */
	assert_int_equal(tp_profile_new(&h, &p, &err), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 4000, 10, &err), TP_OK);
	c.rank = 0;
	c.requests = 100;
	c.bytes = 100 << 20;
	assert_int_equal(tp_profile_add_io_client(p, &c, &err), TP_OK);
	p->io.requests = 100;
	p->io.write_bytes = 100 << 20;
	p->io.size_hist[20] = 100;
	assert_int_equal(tp_profile_finish(p, &err), TP_OK);
	tp_sc_profile_summary(p, &s);
	assert_int_equal(s.ranks, 2);
	assert_int_equal(s.io_bytes, 100 << 20);
	assert_int_equal(s.io_clients, 1);
	assert_int_equal(s.io_request_bytes, 1 << 20);
	assert_true(s.io_requests_per_s > 49.9 && s.io_requests_per_s < 50.1);
	assert_true(s.net_bytes_per_s > 1999.0 && s.net_bytes_per_s < 2001.0);
	assert_int_equal(s.mean_message_bytes, 400);
	tp_profile_free(p);
}

/* Keywords and units in any case, as topoplace.conf takes them; a bad
 * value is still named as the user spelled it. */
static void test_keywords_are_case_insensitive_like_the_config(void **state)
{
	(void)state;
	check_ok(TP_OPT_PLACEMENT, "LEAF", "leaf");
	check_ok(TP_OPT_PLACEMENT, "Shared", "shared");
	check_ok(TP_OPT_RANK_REMAP, "OFF", "off");
	check_ok(TP_OPT_RANK_REMAP, "Auto", "auto");
	check_ok(TP_OPT_IO_THROTTLE, "2MS", "2000us");
	check_ok(TP_OPT_IO_THROTTLE, "Off", "off");
	check_bad(TP_OPT_PLACEMENT, "LEAFS", "--placement: 'LEAFS'");
	check_bad(TP_OPT_IO_THROTTLE, "FAST", "'FAST'");
	/* Profile names stay case-sensitive: they name files. */
	check_ok(TP_OPT_COMM_PROFILE, "HPCG", "HPCG");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_flag_accepts_its_values_canonically),
	    cmocka_unit_test(test_bad_values_are_one_line_naming_the_flag),
	    cmocka_unit_test(test_values_collect_the_flags_of_a_job),
	    cmocka_unit_test(test_options_are_found_under_slurms_spelling),
	    cmocka_unit_test(test_conf_path_is_beside_slurm_conf),
	    cmocka_unit_test(test_munge_socket_comes_from_authinfo),
	    cmocka_unit_test(
	        test_missing_conf_is_defaults_bad_conf_names_the_line),
	    cmocka_unit_test(test_fabric_loads_from_topology_conf),
	    cmocka_unit_test(test_profile_summary_carries_rates),
	    cmocka_unit_test(
	        test_keywords_are_case_insensitive_like_the_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
