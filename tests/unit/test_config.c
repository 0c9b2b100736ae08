/*
 * test_config.c: topoplace.conf parsing: every key is read and defaulted,
 * partitions override the site, and each kind of bad input gives one
 * message naming the file, the line and the key, with nothing applied;
 * a file with several errors has every one reported.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "topoplace_conf.h"
#include "topoplace_conf_keys.h"

#define ORIGIN "/etc/slurm/topoplace.conf"

static tp_config *parse_ok(const char *text)
{
	tp_config *cfg = NULL;
	tp_error err;
	tp_status rc = tp_config_parse(text, strlen(text), ORIGIN, &cfg, &err);

	if (rc != TP_OK)
		fail_msg("unexpected error: %s", err.message);
	assert_non_null(cfg);
	return cfg;
}

static void test_empty_file_gives_every_documented_default(void **state)
{
	tp_config *cfg = parse_ok("");
	const tp_config_site *site = tp_config_site_settings(cfg);
	const tp_config_settings *s = tp_config_defaults(cfg);
	tp_jobclass_thresholds defaults;

	(void)state;
	tp_jobclass_defaults(&defaults);
	assert_int_equal(site->fabric_source, TP_FABRIC_SOURCE_TOPOLOGY);
	assert_string_equal(site->fabric_cache, TP_CONFIG_DEFAULT_FABRIC_CACHE);
	/* beside the file itself */
	assert_string_equal(site->topology_conf, "/etc/slurm/topology.conf");
	assert_int_equal(site->node_name_rule, TP_NODE_NAME_FIRST_WORD);
	assert_null(site->node_name_map);
	assert_string_equal(site->profile_store,
	                    TP_CONFIG_DEFAULT_PROFILE_STORE);
	assert_int_equal(site->profile_keep, TP_STORE_DEFAULT_KEEP);
	assert_int_equal(site->profile_max_age_s, TP_STORE_DEFAULT_MAX_AGE_S);
	assert_null(site->tbf_hook);
	assert_int_equal(site->debug_flags, 0);

	assert_int_equal(s->default_placement, TP_PLACEMENT_AUTO);
	assert_int_equal(s->leaf_sharing, TP_LEAF_SHARING_COMPATIBLE);
	assert_int_equal(s->thresholds.io_bytes_min, defaults.io_bytes_min);
	assert_true(s->thresholds.io_client_bytes_per_s_min ==
	            defaults.io_client_bytes_per_s_min);
	assert_int_equal(s->thresholds.io_reference_clients,
	                 defaults.io_reference_clients);
	assert_int_equal(s->thresholds.comm_small_message_bytes_max,
	                 defaults.comm_small_message_bytes_max);
	assert_true(s->thresholds.comm_messages_per_s_per_rank_min ==
	            defaults.comm_messages_per_s_per_rank_min);
	assert_true(s->thresholds.comm_bytes_per_s_per_rank_min ==
	            defaults.comm_bytes_per_s_per_rank_min);
	/* IoServerPolicy=auto under the default adaptive routing */
	assert_true(s->ioserver_auto);
	assert_int_equal(s->ioserver_policy, TP_IOSERVER_ISOLATED);
	assert_int_equal(s->ioserver_count, 0);
	assert_null(s->threshold_table);
	assert_int_equal(s->throttle_mode, TP_THROTTLE_ENFORCE_OFF);
	assert_int_equal(s->throttle_class_count, 1);
	assert_string_equal(s->throttle_classes[0], "io_heavy");
	assert_int_equal(s->throttle_min_window_us, 0);
	assert_int_equal(s->throttle_max_window_us, 0);
	assert_true(s->throttle_allow_user_off);
	assert_int_equal(s->profile_by_exec, TP_EXEC_MATCH_COMMAND);
	assert_int_equal(s->decision_budget_us, 2000);
	assert_int_equal(s->rank_remap, TP_RANK_REMAP_AUTO);
	assert_int_equal(s->remap_search, TP_REMAP_SEARCH_AUTO);
	assert_int_equal(tp_config_partition_count(cfg), 0);
	tp_config_free(cfg);
}

static void test_default_config_equals_empty_file(void **state)
{
	tp_config *def = tp_config_new_default();
	tp_config *empty = parse_ok("# nothing but a comment\n\n   \n");

	(void)state;
	assert_non_null(def);
	assert_memory_equal(tp_config_defaults(def), tp_config_defaults(empty),
	                    sizeof(tp_config_settings));
	assert_int_equal(tp_config_site_settings(def)->profile_keep,
	                 tp_config_site_settings(empty)->profile_keep);
	tp_config_free(def);
	tp_config_free(empty);
}

static const char every_key[] = "FabricSource=cache\n"
                                "FabricCache=/var/cache/tp/fabric.cache\n"
                                "TopologyConf=/opt/slurm/etc/topology.conf\n"
                                "NodeNameRule=map\n"
                                "NodeNameMap=/etc/slurm/ib-node-names\n"
                                "ProfileStore=/srv/profiles\n"
                                "ProfileKeep=3\n"
                                "ProfileMaxAge=12h\n"
                                "ProfileLookupTimeout=30s\n"
                                "TbfHook=/usr/local/sbin/apply-tbf\n"
                                "IoServerHosts=oss[01-08],mds1\n"
                                "DebugFlags=Placement,budget\n"
                                "DefaultPlacement=pack\n"
                                "LeafSharing=never\n"
                                "IoHeavyMinBytes=2G\n"
                                "IoHeavyClientBytesPerSec=512M\n"
                                "IoHeavyReferenceClients=128\n"
                                "CommSensitiveMaxMessageBytes=16K\n"
                                "CommSensitiveMessagesPerSecPerRank=500\n"
                                "CommSensitiveBytesPerSecPerRank=100M\n"
                                "IoServerPolicy=isolated\n"
                                "IoServerCount=4\n"
                                "ThresholdTable=/etc/slurm/io-thresholds.csv\n"
                                "ThrottleMode=both\n"
                                "ThrottleClasses=io_heavy,quiet\n"
                                "ThrottleMinWindow=800us\n"
                                "ThrottleMaxWindow=1.5s\n"
                                "ThrottleAllowUserOff=no\n"
                                "ProfileByExecutable=no\n"
                                "DecisionBudget=5ms\n"
                                "RankRemap=off\n";

/* The value `topoplace config` prints for ProfileByExecutable. */
static void find_by_exec(void *ctx, const char *key, const char *value,
                         tp_config_setting_origin origin, unsigned line)
{
	(void)origin;
	(void)line;
	if (!strcmp(key, "ProfileByExecutable"))
		snprintf(ctx, 32, "%s", value);
}

/* command, program, no; yes (and the boolean words) keep their old
 * meaning, the program alone; a partition overrides the site. */
static void test_profile_by_executable_takes_command_program_or_no(void **state)
{
	static const struct {
		const char *text;
		tp_exec_match_rule rule;
	} cases[] = {
	    {"ProfileByExecutable=command\n", TP_EXEC_MATCH_COMMAND},
	    {"ProfileByExecutable=Program\n", TP_EXEC_MATCH_PROGRAM},
	    {"ProfileByExecutable=yes\n", TP_EXEC_MATCH_PROGRAM},
	    {"ProfileByExecutable=true\n", TP_EXEC_MATCH_PROGRAM},
	    {"ProfileByExecutable=no\n", TP_EXEC_MATCH_NO},
	    {"ProfileByExecutable=off\n", TP_EXEC_MATCH_NO},
	};
	char printed[32] = "";
	tp_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg = parse_ok(cases[i].text);
		assert_int_equal(tp_config_defaults(cfg)->profile_by_exec,
		                 cases[i].rule);
		tp_config_free(cfg);
	}
	cfg = parse_ok("ProfileByExecutable=program\n"
	               "PartitionName=solvers ProfileByExecutable=command\n");
	assert_int_equal(tp_config_defaults(cfg)->profile_by_exec,
	                 TP_EXEC_MATCH_PROGRAM);
	assert_int_equal(tp_config_partition_count(cfg), 1);
	assert_int_equal(tp_config_for_partition(cfg, "solvers")->profile_by_exec,
	                 TP_EXEC_MATCH_COMMAND);
	tp_config_free(cfg);
	/* Printed as the file would spell it: yes is written program. */
	cfg = parse_ok("ProfileByExecutable=yes\n");
	assert_int_equal(tp_config_each_setting(cfg, NULL, find_by_exec,
	                                        printed, NULL),
	                 TP_OK);
	assert_string_equal(printed, "program");
	tp_config_free(cfg);
}

static void test_every_key_is_parsed_into_its_field(void **state)
{
	tp_config *cfg = parse_ok(every_key);
	const tp_config_site *site = tp_config_site_settings(cfg);
	const tp_config_settings *s = tp_config_defaults(cfg);

	(void)state;
	assert_int_equal(site->fabric_source, TP_FABRIC_SOURCE_CACHE);
	assert_string_equal(site->fabric_cache, "/var/cache/tp/fabric.cache");
	assert_string_equal(site->topology_conf,
	                    "/opt/slurm/etc/topology.conf");
	assert_int_equal(site->node_name_rule, TP_NODE_NAME_MAP);
	assert_string_equal(site->node_name_map, "/etc/slurm/ib-node-names");
	assert_string_equal(site->profile_store, "/srv/profiles");
	assert_int_equal(site->profile_keep, 3);
	assert_int_equal(site->profile_max_age_s, 12 * 3600);
	assert_int_equal(site->profile_lookup_timeout_us, 30000000);
	assert_string_equal(site->tbf_hook, "/usr/local/sbin/apply-tbf");
	assert_string_equal(site->ioserver_hosts, "oss[01-08],mds1");
	assert_int_equal(site->debug_flags,
	                 TP_DEBUG_PLACEMENT | TP_DEBUG_BUDGET);

	assert_int_equal(s->default_placement, TP_PLACEMENT_PACK);
	assert_int_equal(s->leaf_sharing, TP_LEAF_SHARING_NEVER);
	assert_int_equal(s->thresholds.io_bytes_min, 2ull << 30);
	assert_true(s->thresholds.io_client_bytes_per_s_min == 512.0 * 1048576);
	assert_int_equal(s->thresholds.io_reference_clients, 128);
	assert_int_equal(s->thresholds.comm_small_message_bytes_max, 16384);
	assert_true(s->thresholds.comm_messages_per_s_per_rank_min == 500.0);
	assert_true(s->thresholds.comm_bytes_per_s_per_rank_min ==
	            100.0 * 1048576);
	assert_int_equal(s->ioserver_policy, TP_IOSERVER_ISOLATED);
	assert_int_equal(s->ioserver_count, 4);
	assert_string_equal(s->threshold_table, "/etc/slurm/io-thresholds.csv");
	assert_int_equal(s->throttle_mode, TP_THROTTLE_ENFORCE_BOTH);
	assert_int_equal(s->throttle_class_count, 2);
	assert_string_equal(s->throttle_classes[0], "io_heavy");
	assert_string_equal(s->throttle_classes[1], "quiet");
	assert_int_equal(s->throttle_min_window_us, 800);
	assert_int_equal(s->throttle_max_window_us, 1500000);
	assert_false(s->throttle_allow_user_off);
	assert_int_equal(s->profile_by_exec, TP_EXEC_MATCH_NO);
	assert_int_equal(s->decision_budget_us, 5000);
	assert_int_equal(s->rank_remap, TP_RANK_REMAP_OFF);
	tp_config_free(cfg);
}

static void test_keys_and_words_are_case_insensitive(void **state)
{
	tp_config *cfg = parse_ok("defaultplacement=Leaf\n"
	                          "FABRICSOURCE=Live\n"
	                          "throttlemode=PreLoad\n"
	                          "ThrottleClasses=IO_HEAVY\n"
	                          "ioserverpolicy=Random\n"
	                          "debugflags=ALL\n");
	const tp_config_settings *s = tp_config_defaults(cfg);

	(void)state;
	assert_int_equal(s->default_placement, TP_PLACEMENT_LEAF);
	assert_int_equal(tp_config_site_settings(cfg)->fabric_source,
	                 TP_FABRIC_SOURCE_LIVE);
	assert_int_equal(s->throttle_mode, TP_THROTTLE_ENFORCE_PRELOAD);
	assert_string_equal(s->throttle_classes[0], "io_heavy");
	assert_int_equal(s->ioserver_policy, TP_IOSERVER_RANDOM);
	assert_int_equal(tp_config_site_settings(cfg)->debug_flags,
	                 TP_DEBUG_ALL);
	tp_config_free(cfg);
}

static void test_several_pairs_comments_and_crlf_on_one_line(void **state)
{
	tp_config *cfg = parse_ok(
	    "  DefaultPlacement=spread\tRankRemap=off # RankRemap=auto\r\n"
	    "# ThrottleMode=tbf\n"
	    "ThrottleMode=auto\n" /* auto needs no TbfHook */
	    "ThrottleClasses=io_heavy, comm_sensitive\n"
	    "DecisionBudget=1s"); /* no final newline */
	const tp_config_settings *s = tp_config_defaults(cfg);

	(void)state;
	assert_int_equal(s->default_placement, TP_PLACEMENT_SPREAD);
	assert_int_equal(s->rank_remap, TP_RANK_REMAP_OFF);
	assert_int_equal(s->throttle_mode, TP_THROTTLE_ENFORCE_AUTO);
	assert_int_equal(s->throttle_class_count, 2);
	assert_string_equal(s->throttle_classes[1], "comm_sensitive");
	assert_int_equal(s->decision_budget_us, 1000000);
	tp_config_free(cfg);
}

static void test_partition_overrides_only_what_its_line_sets(void **state)
{
	tp_config *cfg = parse_ok(
	    "DecisionBudget=3ms\n"
	    "PartitionName=comm DefaultPlacement=leaf RankRemap=auto "
	    "RemapSearch=full\n"
	    "PartitionName=io DefaultPlacement=shared ThrottleMode=preload "
	    "ThrottleMaxWindow=10ms\n"
	    /* site keys after the partitions still reach them */
	    "ThrottleMinWindow=1ms\n"
	    "RankRemap=off\n"
	    "RemapSearch=Fast\n");
	const tp_config_settings *site = tp_config_defaults(cfg);
	const tp_config_settings *comm = tp_config_for_partition(cfg, "comm");
	const tp_config_settings *io = tp_config_for_partition(cfg, "io");

	(void)state;
	assert_int_equal(tp_config_partition_count(cfg), 2);
	assert_string_equal(tp_config_partition_name(cfg, 0), "comm");
	assert_string_equal(tp_config_partition_name(cfg, 1), "io");
	assert_null(tp_config_partition_name(cfg, 2));

	assert_int_equal(site->default_placement, TP_PLACEMENT_AUTO);
	assert_int_equal(site->rank_remap, TP_RANK_REMAP_OFF);

	assert_int_equal(comm->default_placement, TP_PLACEMENT_LEAF);
	assert_int_equal(comm->rank_remap, TP_RANK_REMAP_AUTO);
	assert_int_equal(comm->remap_search, TP_REMAP_SEARCH_FULL);
	assert_int_equal(site->remap_search, TP_REMAP_SEARCH_FAST);
	assert_int_equal(io->remap_search, TP_REMAP_SEARCH_FAST);
	assert_int_equal(comm->decision_budget_us, 3000);
	assert_int_equal(comm->throttle_mode, TP_THROTTLE_ENFORCE_OFF);

	assert_int_equal(io->default_placement, TP_PLACEMENT_SHARED);
	assert_int_equal(io->throttle_mode, TP_THROTTLE_ENFORCE_PRELOAD);
	assert_int_equal(io->throttle_min_window_us, 1000);
	assert_int_equal(io->throttle_max_window_us, 10000);
	assert_int_equal(io->rank_remap, TP_RANK_REMAP_OFF);
	assert_int_equal(io->decision_budget_us, 3000);

	assert_true(tp_config_partition_sets(cfg, "io", "throttlemode"));
	assert_false(tp_config_partition_sets(cfg, "io", "DecisionBudget"));
	assert_false(tp_config_partition_sets(cfg, "nosuch", "ThrottleMode"));
	tp_config_free(cfg);
}

static void test_unknown_partition_and_null_get_site_defaults(void **state)
{
	tp_config *cfg = parse_ok("PartitionName=comm DefaultPlacement=leaf\n");

	(void)state;
	assert_ptr_equal(tp_config_for_partition(cfg, "batch"),
	                 tp_config_defaults(cfg));
	assert_ptr_equal(tp_config_for_partition(cfg, NULL),
	                 tp_config_defaults(cfg));
	/* Slurm partition names are case-sensitive. */
	assert_ptr_equal(tp_config_for_partition(cfg, "COMM"),
	                 tp_config_defaults(cfg));
	tp_config_free(cfg);
}

static void test_node_name_map_alone_selects_the_map_rule(void **state)
{
	tp_config *cfg = parse_ok("NodeNameMap=/etc/slurm/names\n");

	(void)state;
	assert_int_equal(tp_config_site_settings(cfg)->node_name_rule,
	                 TP_NODE_NAME_MAP);
	tp_config_free(cfg);
}

static void test_topology_conf_defaults_beside_a_relative_origin(void **state)
{
	tp_config *cfg = NULL;

	(void)state;
	assert_int_equal(tp_config_parse("", 0, "fuzz", &cfg, NULL), TP_OK);
	assert_string_equal(tp_config_site_settings(cfg)->topology_conf,
	                    "/etc/slurm/topology.conf");
	assert_string_equal(tp_config_origin(cfg), "fuzz");
	tp_config_free(cfg);
}

/* One bad input and what its single message must name. */
struct bad_case {
	const char *text;
	tp_status code;
	unsigned line;
	const char *names; /* the key (or what stands for it) */
	const char *says;  /* a phrase of the reason */
};

static const struct bad_case bad_cases[] = {
    {"DecisionBudget=2ms\nFooBar=1\n", TP_ERR_PARSE, 2, "FooBar",
     "unknown key"},
    {"PartitionName=comm Placement=leaf\n", TP_ERR_PARSE, 1, "Placement",
     "unknown key (did you mean DefaultPlacement?)"},
    {"# site\n\nDecisionBudget=2 parsecs\n", TP_ERR_INVALID, 3,
     "DecisionBudget", "'2 parsecs'"},
    {"DecisionBudget=2ms\nDecisionBudget=3ms\n", TP_ERR_PARSE, 2,
     "DecisionBudget", "already set on line 1"},
    {"RankRemap=off RankRemap=auto\n", TP_ERR_PARSE, 1, "RankRemap", "twice"},
    {"ThrottleMinWindow=5ms\nThrottleMaxWindow=2ms\n", TP_ERR_INVALID, 2,
     "ThrottleMinWindow", "above ThrottleMaxWindow 2ms"},
    {"ThrottleMaxWindow=2ms\n\nPartitionName=io ThrottleMinWindow=5ms\n",
     TP_ERR_INVALID, 3, "PartitionName=io", "ThrottleMinWindow 5ms"},
    {"PartitionName=comm\n", TP_ERR_PARSE, 1, "PartitionName=comm",
     "overrides nothing"},
    {"PartitionName=comm # leaf later\n", TP_ERR_PARSE, 1, "PartitionName=comm",
     "overrides nothing"},
    {"FabricCache=fabric.cache\n", TP_ERR_INVALID, 1, "FabricCache",
     "not an absolute path"},
    {"ThresholdTable=/etc/my tables/t.csv\n", TP_ERR_INVALID, 1,
     "ThresholdTable", "spaces"},
    {"PartitionName=io ProfileStore=/x\n", TP_ERR_PARSE, 1, "ProfileStore",
     "site-wide only"},
    {"DefaultPlacement=leaf PartitionName=io\n", TP_ERR_PARSE, 1,
     "PartitionName", "must start its line"},
    {"PartitionName=io RankRemap=off\nPartitionName=io RankRemap=auto\n",
     TP_ERR_PARSE, 2, "PartitionName=io", "already given on line 1"},
    {"PartitionName=DEFAULT RankRemap=off\n", TP_ERR_PARSE, 1,
     "PartitionName=DEFAULT", "without PartitionName"},
    {"PartitionName=a/b RankRemap=off\n", TP_ERR_INVALID, 1, "PartitionName",
     "not a partition name"},
    {"leaf\n", TP_ERR_PARSE, 1, "'leaf'", "not Key=Value"},
    {"=leaf\n", TP_ERR_PARSE, 1, "'=leaf'", "missing key"},
    {"DefaultPlacement=\n", TP_ERR_PARSE, 1, "DefaultPlacement", "empty value"},
    {"DefaultPlacement=leafs\n", TP_ERR_INVALID, 1, "DefaultPlacement",
     "'leafs' is not a placement policy"},
    {"LeafSharing=sometimes\n", TP_ERR_INVALID, 1, "LeafSharing",
     "compatible|never|always"},
    {"ThrottleClasses=io_heavy,noisy\n", TP_ERR_INVALID, 1, "ThrottleClasses",
     "'noisy' is not a job class"},
    {"ThrottleClasses=io_heavy,,quiet\n", TP_ERR_INVALID, 1, "ThrottleClasses",
     "empty item"},
    {"ThrottleClasses=none,quiet\n", TP_ERR_INVALID, 1, "ThrottleClasses",
     "'none' cannot be combined"},
    {"DebugFlags=Fabric,Gang\n", TP_ERR_INVALID, 1, "DebugFlags",
     "'Gang' is not a debug flag"},
    {"ThrottleMode=tbf\n", TP_ERR_INVALID, 1, "ThrottleMode", "needs TbfHook"},
    {"PartitionName=io ThrottleMode=both\n", TP_ERR_INVALID, 1,
     "PartitionName=io: ThrottleMode", "needs TbfHook"},
    {"NodeNameRule=map\n", TP_ERR_INVALID, 1, "NodeNameRule",
     "needs NodeNameMap"},
    {"NodeNameRule=first-word\nNodeNameMap=/etc/n\n", TP_ERR_INVALID, 2,
     "NodeNameMap", "does not use it"},
    {"DecisionBudget=2s\n", TP_ERR_INVALID, 1, "DecisionBudget", "limit of 1s"},
    {"DecisionBudget=-3ms\n", TP_ERR_INVALID, 1, "DecisionBudget",
     "not a duration"},
    {"ThrottleMinWindow=2\n", TP_ERR_INVALID, 1, "ThrottleMinWindow",
     "missing unit"},
    {"ProfileMaxAge=30 days\n", TP_ERR_INVALID, 1, "ProfileMaxAge",
     "not an age"},
    {"ProfileMaxAge=99999d\n", TP_ERR_INVALID, 1, "ProfileMaxAge",
     "at most 3650d"},
    {"ProfileKeep=0\n", TP_ERR_INVALID, 1, "ProfileKeep", "out of range"},
    {"IoServerHosts=oss 1\n", TP_ERR_INVALID, 1, "IoServerHosts",
     "not a host list"},
    {"IoServerHosts=oss[01-08\n", TP_ERR_INVALID, 1, "IoServerHosts",
     "unbalanced"},
    {"PartitionName=io IoServerHosts=oss1\n", TP_ERR_PARSE, 1, "IoServerHosts",
     "site-wide only"},
    {"ProfileLookupTimeout=3601s\n", TP_ERR_INVALID, 1, "ProfileLookupTimeout",
     "longer than the maximum of 3600 s"},
    {"ProfileLookupTimeout=10us\n", TP_ERR_INVALID, 1, "ProfileLookupTimeout",
     "below the minimum of 1000 us"},
    {"PartitionName=a ProfileLookupTimeout=1s\n", TP_ERR_PARSE, 1,
     "ProfileLookupTimeout", "site-wide only"},
    {"IoServerCount=many\n", TP_ERR_INVALID, 1, "IoServerCount",
     "not a whole number"},
    {"IoHeavyMinBytes=4T\n", TP_ERR_INVALID, 1, "IoHeavyMinBytes",
     "unknown suffix 'T'"},
    {"IoHeavyClientBytesPerSec=0\n", TP_ERR_INVALID, 1,
     "IoHeavyClientBytesPerSec", "at least 1 byte"},
    {"IoServerPolicy=clustered\n", TP_ERR_INVALID, 1, "IoServerPolicy",
     "auto|spread|isolated|random|staggered"},
    {"ThrottleAllowUserOff=maybe\n", TP_ERR_INVALID, 1, "ThrottleAllowUserOff",
     "yes or no"},
    {"FabricSource=sweep\n", TP_ERR_INVALID, 1, "FabricSource",
     "topology|cache|live"},
    {"RankRemap=on\n", TP_ERR_INVALID, 1, "RankRemap", "auto|off"},
    {"DefaultPlacement=leaf\nRemapSearch=best\n", TP_ERR_INVALID, 2,
     "RemapSearch", "'best' is not one of full|fast|auto"},
    {"DefaultPlacement=leaf\nRankRemap=off\x01\n", TP_ERR_PARSE, 2, "line 2",
     "control character 0x01"},
    {"DefaultPlacement=leaf\nProfileByExecutable=arguments\n",
     TP_ERR_INVALID, 2, "ProfileByExecutable",
     "'arguments' is not one of command|program|no"},
    {"ThrottleObjective=mpi_slowdown<1.1\n", TP_ERR_INVALID, 1,
     "ThrottleObjective", "io_cost<=P%"},
    {"ThrottleConfidence=0.4\n", TP_ERR_INVALID, 1, "ThrottleConfidence",
     "worst|Q"},
    {"DefaultPlacement=leaf\nThrottleConfidence=95%\n", TP_ERR_INVALID, 2,
     "ThrottleConfidence '95%'", "[0.5, 0.999]"},
};

static void
test_each_bad_input_gives_one_message_naming_file_line_key(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		tp_config *cfg = (tp_config *)&bad_cases; /* sentinel */
		char where[64];
		tp_error err;
		tp_status rc;

		tp_error_clear(&err);
		rc = tp_config_parse(c->text, strlen(c->text), ORIGIN, &cfg,
		                     &err);
		snprintf(where, sizeof(where), ORIGIN ": line %u: ", c->line);
		if (rc != c->code ||
		    strncmp(err.message, where, strlen(where)) ||
		    !strstr(err.message, c->names) ||
		    !strstr(err.message, c->says) || strchr(err.message, '\n'))
			fail_msg("case %zu (%s): got %d '%s'", i, c->text,
			         (int)rc, err.message);
		assert_int_equal(err.code, c->code);
		/* nothing handed out */
		assert_ptr_equal(cfg, (tp_config *)&bad_cases);
	}
}

static void test_a_blank_before_equals_is_not_key_value(void **state)
{
	tp_config *cfg = NULL;
	tp_error err;

	(void)state;
	assert_int_equal(
	    tp_config_parse("RankRemap = off\n", 16, ORIGIN, &cfg, &err),
	    TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "line 1: 'RankRemap' is not "
	                                    "Key=Value"));
	assert_null(cfg);
}

static void test_overlong_line_and_file_are_refused_with_limits(void **state)
{
	size_t len = TP_CONFIG_MAX_LINE + 10;
	char *text = malloc(len + 1);
	tp_config *cfg = NULL;
	tp_error err;

	(void)state;
	assert_non_null(text);
	memcpy(text, "# ok\nRankRemap=", 15);
	memset(text + 15, 'x', len - 15);
	text[len] = '\0';
	assert_int_equal(tp_config_parse(text, len, ORIGIN, &cfg, &err),
	                 TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, ORIGIN ": line 2: longer than "
	                                           "4096 bytes"));
	free(text);

	assert_int_equal(
	    tp_config_parse("", TP_CONFIG_MAX_BYTES + 1, ORIGIN, &cfg, &err),
	    TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, ORIGIN ": "));
	assert_non_null(strstr(err.message, "larger than the limit"));
	assert_null(cfg);
}

static void test_bad_reload_keeps_the_previous_config(void **state)
{
	tp_config *current = parse_ok("DefaultPlacement=leaf\n");
	tp_config *next = current;
	tp_error err;
	const char *bad = "DefaultPlacement=shared\nDecisionBudget=soon\n";

	(void)state;
	/* What slurmctld does on reconfigure: swap only on success. */
	assert_int_equal(tp_config_parse(bad, strlen(bad), ORIGIN, &next, &err),
	                 TP_ERR_INVALID);
	assert_ptr_equal(next, current);
	assert_int_equal(tp_config_defaults(current)->default_placement,
	                 TP_PLACEMENT_LEAF);
	tp_config_free(current);
}

static void test_load_reads_a_file_and_names_it(void **state)
{
	char path[] = "/tmp/test_config_XXXXXX";
	const char *text = "PartitionName=comm DefaultPlacement=leaf\n"
	                   "DecisionBudget=1 ms\n";
	tp_config *cfg = NULL;
	tp_error err;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(tp_config_load(path, &cfg, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, path));
	assert_non_null(strstr(err.message, ": line 2: DecisionBudget"));
	assert_null(cfg);

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, 41), 41);
	close(fd);
	assert_int_equal(tp_config_load(path, &cfg, &err), TP_OK);
	assert_string_equal(tp_config_origin(cfg), path);
	assert_string_equal(tp_config_site_settings(cfg)->topology_conf,
	                    "/tmp/topology.conf");
	tp_config_free(cfg);
	unlink(path);

	assert_int_equal(tp_config_load(path, &cfg, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, path));
	assert_non_null(strstr(err.message, "cannot open"));
}

static void test_auto_resolves_by_profile_and_leaf_sharing(void **state)
{
	tp_config *cfg = parse_ok("PartitionName=comm DefaultPlacement=leaf\n"
	                          "PartitionName=strict LeafSharing=never\n"
	                          "PartitionName=any LeafSharing=always\n");
	const tp_config_settings *site = tp_config_defaults(cfg);
	const tp_config_settings *comm = tp_config_for_partition(cfg, "comm");

	(void)state;
	assert_int_equal(
	    tp_config_resolve_placement(site, TP_PLACEMENT_AUTO, true),
	    TP_PLACEMENT_SHARED);
	assert_int_equal(
	    tp_config_resolve_placement(site, TP_PLACEMENT_AUTO, false),
	    TP_PLACEMENT_OFF);
	/* the user's flag wins over the partition */
	assert_int_equal(
	    tp_config_resolve_placement(comm, TP_PLACEMENT_SPREAD, true),
	    TP_PLACEMENT_SPREAD);
	assert_int_equal(
	    tp_config_resolve_placement(comm, TP_PLACEMENT_AUTO, false),
	    TP_PLACEMENT_LEAF);
	assert_int_equal(
	    tp_config_resolve_placement(tp_config_for_partition(cfg, "strict"),
	                                TP_PLACEMENT_SHARED, true),
	    TP_PLACEMENT_LEAF);
	assert_int_equal(
	    tp_config_resolve_placement(tp_config_for_partition(cfg, "any"),
	                                TP_PLACEMENT_AUTO, true),
	    TP_PLACEMENT_PACK);
	tp_config_free(cfg);
}

static void test_throttle_policy_and_store_options_carry_the_file(void **state)
{
	tp_config *cfg = parse_ok("ProfileStore=/srv/p\nProfileKeep=2\n"
	                          "ProfileMaxAge=0\n"
	                          "ThrottleClasses=*\nThrottleMinWindow=1ms\n"
	                          "PartitionName=io ThrottleMode=preload\n");
	tp_store_options opt = tp_store_default_options();
	tp_throttle_policy policy;

	(void)state;
	tp_config_store_options(cfg, &opt);
	assert_string_equal(opt.root, "/srv/p");
	assert_int_equal(opt.keep, 2);
	assert_int_equal(opt.max_age_s, 0);

	/* ThrottleMode=off (site): nothing throttled automatically */
	tp_config_throttle_policy(tp_config_defaults(cfg), &policy);
	assert_int_equal(policy.class_count, 0);
	assert_int_equal(policy.min_window_us, 1000);

	tp_config_throttle_policy(tp_config_for_partition(cfg, "io"), &policy);
	assert_int_equal(policy.class_count, 1);
	assert_string_equal(policy.classes[0], "*");
	assert_true(policy.allow_user_off);
	tp_config_free(cfg);
}

static void test_names_round_trip_through_the_parser(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(tp_config_fabric_source_name(TP_FABRIC_SOURCE_LIVE),
	                    "live");
	assert_string_equal(tp_node_name_rule_name(TP_NODE_NAME_FIRST_WORD),
	                    "first-word");
	assert_string_equal(tp_leaf_sharing_name(TP_LEAF_SHARING_ALWAYS),
	                    "always");
	assert_string_equal(tp_throttle_enforce_name(TP_THROTTLE_ENFORCE_TBF),
	                    "tbf");
	assert_string_equal(tp_rank_remap_name(TP_RANK_REMAP_OFF), "off");
	assert_string_equal(tp_rank_remap_name((tp_rank_remap)9), "invalid");
	tp_config_debug_flags_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	tp_config_debug_flags_format(TP_DEBUG_FABRIC | TP_DEBUG_THROTTLE, buf,
	                             sizeof(buf));
	assert_string_equal(buf, "Fabric,Throttle");
}

/* RemapBudget and RemapMemory: defaults, per-partition values, bounds. */
static void test_remap_budget_and_memory_have_defaults_and_bounds(void **state)
{
	tp_config *cfg = parse_ok("RemapBudget=500ms\n"
	                          "PartitionName=big RemapBudget=8s "
	                          "RemapMemory=2GiB\n");
	const tp_config_settings *site = tp_config_defaults(cfg);
	const tp_config_settings *big = tp_config_for_partition(cfg, "big");
	static const char *const bad[] = {
	    "RemapBudget=9s\n", "RemapBudget=1ms\n", "RemapMemory=1M\n",
	    "RemapMemory=17G\n", "RemapMemory=lots\n"};
	tp_error err;

	(void)state;
	assert_int_equal(site->remap_budget_us, 500000);
	assert_int_equal(site->remap_memory_bytes,
	                 TP_CONFIG_DEFAULT_REMAP_MEMORY);
	assert_int_equal(big->remap_budget_us, 8000000);
	assert_int_equal(big->remap_memory_bytes, 2ULL << 30);
	tp_config_free(cfg);
	cfg = parse_ok("");
	assert_int_equal(tp_config_defaults(cfg)->remap_budget_us,
	                 TP_CONFIG_DEFAULT_REMAP_BUDGET_US);
	tp_config_free(cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg = NULL;
		assert_int_equal(
		    tp_config_parse(bad[i], strlen(bad[i]), ORIGIN, &cfg, &err),
		    TP_ERR_INVALID);
		assert_null(cfg);
		assert_non_null(strstr(err.message, "line 1: Remap"));
	}
}

/* What tp_config_parse_each told its callback. */
struct seen_errors {
	unsigned count;
	char messages[8][TP_ERROR_MESSAGE_MAX];
	tp_status codes[8];
};

static void record_error(void *ctx, const tp_error *error)
{
	struct seen_errors *seen = ctx;

	if (seen->count < 8) {
		snprintf(seen->messages[seen->count], TP_ERROR_MESSAGE_MAX,
		         "%s", error->message);
		seen->codes[seen->count] = error->code;
	}
	seen->count++;
}

static void test_every_error_in_the_file_is_reported_in_line_order(void **st)
{
	static const char text[] = "DefaultPlacement=leeaf\n"
	                           "DecisionBudget=2ms\n"
	                           "Bogus=1\n"
	                           "PartitionName=debug DefaultPlacement=leaf\n"
	                           "PartitionName=io RankRemap=maybe\n"
	                           "ThrottleMinWindow=10ms\n"
	                           "ThrottleMaxWindow=1ms\n";
	struct seen_errors seen = {0};
	tp_config *cfg = (tp_config *)0x1;
	tp_error err;

	(void)st;
	assert_int_equal(tp_config_parse_each(text, strlen(text), ORIGIN,
	                                      record_error, &seen, &cfg, &err),
	                 TP_ERR_INVALID);
	assert_ptr_equal(cfg, (tp_config *)0x1); /* untouched */
	/* The three bad lines; min > max is a cross-key rule, only checked
	 * once every line reads. */
	assert_int_equal(seen.count, 3);
	assert_string_equal(seen.messages[0],
	                    ORIGIN ": line 1: DefaultPlacement: 'leeaf' is not "
	                           "a placement policy (expected one of "
	                           "auto|leaf|shared|pack|spread|off)");
	assert_int_equal(seen.codes[0], TP_ERR_INVALID);
	assert_string_equal(seen.messages[1], ORIGIN ": line 3: Bogus: unknown "
	                                             "key");
	assert_int_equal(seen.codes[1], TP_ERR_PARSE);
	assert_non_null(strstr(seen.messages[2], ORIGIN ": line 5: RankRemap: "
	                                                "'maybe'"));
	/* The caller without a callback gets the first, and how many. */
	assert_string_equal(err.message, "3 errors, the first: " ORIGIN
	                                 ": line 1: DefaultPlacement: 'leeaf' "
	                                 "is not a placement policy (expected "
	                                 "one of auto|leaf|shared|pack|spread|"
	                                 "off)");
	assert_int_equal(
	    tp_config_parse(text, strlen(text), ORIGIN, &cfg, &err),
	    TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "3 errors, the first: "));
}

static void test_cross_key_errors_of_every_partition_are_reported(void **st)
{
	static const char text[] = "ThrottleMinWindow=10ms\n"
	                           "ThrottleMaxWindow=1ms\n"
	                           "PartitionName=a ThrottleMaxWindow=5ms\n"
	                           "PartitionName=b ThrottleMode=tbf\n";
	struct seen_errors seen = {0};
	tp_config *cfg = NULL;
	tp_error err;

	(void)st;
	assert_int_equal(tp_config_parse_each(text, strlen(text), ORIGIN,
	                                      record_error, &seen, &cfg, &err),
	                 TP_ERR_INVALID);
	assert_null(cfg);
	assert_int_equal(seen.count, 3);
	assert_non_null(strstr(seen.messages[0], "line 2: ThrottleMinWindow "
	                                         "10ms is above"));
	assert_non_null(strstr(seen.messages[1], "line 3: PartitionName=a: "
	                                         "ThrottleMinWindow"));
	assert_non_null(strstr(seen.messages[2], "line 4: PartitionName=b: "
	                                         "ThrottleMode: 'tbf' needs "
	                                         "TbfHook"));
}

static void test_partition_names_match_case_sensitively_like_slurm(void **st)
{
	/* Slurm 22.05: list_find_part compares with xstrcmp. */
	tp_config *cfg =
	    parse_ok("PartitionName=Debug DefaultPlacement=leaf\n"
	             "PartitionName=debug DefaultPlacement=pack\n");

	(void)st;
	assert_int_equal(tp_config_partition_count(cfg), 2);
	assert_int_equal(
	    tp_config_for_partition(cfg, "Debug")->default_placement,
	    TP_PLACEMENT_LEAF);
	assert_int_equal(
	    tp_config_for_partition(cfg, "debug")->default_placement,
	    TP_PLACEMENT_PACK);
	assert_ptr_equal(tp_config_for_partition(cfg, "DEBUG"),
	                 tp_config_defaults(cfg));
	assert_int_equal(tp_config_partition_line(cfg, 0), 1);
	assert_int_equal(tp_config_partition_line(cfg, 1), 2);
	assert_int_equal(tp_config_partition_line(cfg, 2), 0);
	tp_config_free(cfg);
}

/* ThrottleObjective: none by default, per partition, into the policy the
 * task plugin hands to the window decision, and written back as read. */
static void test_throttle_objective_per_partition_reaches_policy(void **state)
{
	tp_config *cfg = parse_ok("ThrottleObjective=io_cost<=20%\n"
	                          "PartitionName=mpi "
	                          "ThrottleObjective=mpi_slowdown<=1.1\n"
	                          "PartitionName=plain ThrottleMode=preload\n");
	tp_config *none = parse_ok("");
	tp_throttle_policy policy;
	char text[4096];
	FILE *out = fmemopen(text, sizeof(text), "w");
	tp_error err;

	(void)state;
	tp_config_throttle_policy(tp_config_defaults(none), &policy);
	assert_int_equal(policy.objective.kind, TP_OBJECTIVE_NONE);
	tp_config_throttle_policy(tp_config_for_partition(cfg, "plain"),
	                          &policy);
	assert_int_equal(policy.objective.kind, TP_OBJECTIVE_IO_COST);
	assert_true(policy.objective.limit > 0.1999 &&
	            policy.objective.limit < 0.2001);
	tp_config_throttle_policy(tp_config_for_partition(cfg, "mpi"), &policy);
	assert_int_equal(policy.objective.kind, TP_OBJECTIVE_VICTIM_SLOWDOWN);
	assert_true(policy.objective.limit > 1.0999 &&
	            policy.objective.limit < 1.1001);
	assert_non_null(out);
	assert_int_equal(tp_config_write_settings(cfg, "mpi", out, &err),
	                 TP_OK);
	fclose(out);
	assert_non_null(strstr(text, "ThrottleObjective=mpi_slowdown<=1.1"));
	tp_config_free(cfg);
	tp_config_free(none);
}

/* ThrottleConfidence: 0.95 by default, per partition, "worst" is 0 (the
 * worst measured run alone), into the policy the task plugin hands to the
 * window decision, and written back as read. */
static void test_throttle_confidence_per_partition_reaches_policy(void **state)
{
	tp_config *cfg = parse_ok("ThrottleConfidence=0.9\n"
	                          "PartitionName=mpi ThrottleConfidence=worst\n"
	                          "PartitionName=plain ThrottleMode=preload\n");
	tp_config *none = parse_ok("");
	tp_throttle_policy policy;
	char text[4096];
	FILE *out = fmemopen(text, sizeof(text), "w");
	tp_error err;

	(void)state;
	tp_config_throttle_policy(tp_config_defaults(none), &policy);
	assert_true(policy.confidence > 0.9499 && policy.confidence < 0.9501);
	tp_config_throttle_policy(tp_config_for_partition(cfg, "plain"),
	                          &policy);
	assert_true(policy.confidence > 0.8999 && policy.confidence < 0.9001);
	tp_config_throttle_policy(tp_config_for_partition(cfg, "mpi"), &policy);
	assert_true(policy.confidence == 0);
	assert_non_null(out);
	assert_int_equal(tp_config_write_settings(cfg, "mpi", out, &err),
	                 TP_OK);
	fclose(out);
	assert_non_null(strstr(text, "ThrottleConfidence=worst"));
	tp_config_free(cfg);
	tp_config_free(none);
}

/* Routing: site-wide, adaptive unless the site says static (issue #15). */
static void test_routing_is_site_wide_and_adaptive_by_default(void **state)
{
	tp_config *cfg = parse_ok("");
	static const char bad[] = "Routing=ecmp\n";
	static const char in_part[] = "PartitionName=p Routing=static\n";
	tp_error err;

	(void)state;
	assert_int_equal(tp_config_site_settings(cfg)->routing,
	                 TP_ROUTING_ADAPTIVE);
	tp_config_free(cfg);
	cfg = parse_ok("Routing=Static\n");
	assert_int_equal(tp_config_site_settings(cfg)->routing,
	                 TP_ROUTING_STATIC);
	tp_config_free(cfg);
	cfg = NULL;
	assert_int_equal(tp_config_parse(bad, strlen(bad), ORIGIN, &cfg, &err),
	                 TP_ERR_INVALID);
	assert_null(cfg);
	assert_string_equal(err.message,
	                    ORIGIN ": line 1: Routing: 'ecmp' is not a routing "
	                           "kind (expected one of adaptive|static)");
	assert_int_not_equal(
	    tp_config_parse(in_part, strlen(in_part), ORIGIN, &cfg, &err),
	    TP_OK);
	assert_null(cfg);
	assert_non_null(strstr(err.message, "Routing"));
}

static void
test_leaf_wait_max_is_per_partition_and_unbounded_by_default(void **state)
{
	static const char text[] = "LeafWaitMax=300s\n"
	                           "PartitionName=comm LeafWaitMax=none\n"
	                           "PartitionName=short LeafWaitMax=20s\n"
	                           "PartitionName=io DefaultPlacement=shared\n";
	static const char bad[] = "LeafWaitMax=5m\n";
	static const char small[] = "LeafWaitMax=10ms\n";
	tp_config *cfg = parse_ok("");
	tp_error err;

	(void)state;
	assert_int_equal(tp_config_defaults(cfg)->leaf_wait_max_us, 0);
	tp_config_free(cfg);
	cfg = parse_ok(text);
	assert_int_equal(tp_config_defaults(cfg)->leaf_wait_max_us, 300000000u);
	assert_int_equal(tp_config_for_partition(cfg, "comm")->leaf_wait_max_us,
	                 0);
	assert_int_equal(
	    tp_config_for_partition(cfg, "short")->leaf_wait_max_us, 20000000u);
	/* A partition that does not set it inherits the site's. */
	assert_int_equal(tp_config_for_partition(cfg, "io")->leaf_wait_max_us,
	                 300000000u);
	assert_true(tp_config_partition_sets(cfg, "short", "LeafWaitMax"));
	assert_false(tp_config_partition_sets(cfg, "io", "LeafWaitMax"));
	tp_config_free(cfg);
	cfg = NULL;
	assert_int_equal(tp_config_parse(bad, strlen(bad), ORIGIN, &cfg, &err),
	                 TP_ERR_INVALID);
	assert_null(cfg);
	assert_non_null(strstr(err.message, ORIGIN ": line 1: LeafWaitMax"));
	assert_int_equal(
	    tp_config_parse(small, strlen(small), ORIGIN, &cfg, &err),
	    TP_ERR_INVALID);
	assert_null(cfg);
	assert_non_null(strstr(err.message, ORIGIN ": line 1: LeafWaitMax"));
}

static void
test_isolation_wait_max_is_per_partition_and_unbounded_by_default(void **state)
{
	static const char text[] = "IsolationWaitMax=120s\n"
	                           "PartitionName=comm IsolationWaitMax=none\n"
	                           "PartitionName=short IsolationWaitMax=5s\n"
	                           "PartitionName=io DefaultPlacement=shared\n";
	static const char bad[] = "IsolationWaitMax=soon\n";
	static const char small[] = "IsolationWaitMax=500ms\n";
	tp_config *cfg = parse_ok("");
	tp_error err;

	(void)state;
	assert_int_equal(tp_config_defaults(cfg)->isolation_wait_max_us, 0);
	tp_config_free(cfg);
	cfg = parse_ok(text);
	assert_int_equal(tp_config_defaults(cfg)->isolation_wait_max_us,
	                 120000000u);
	assert_int_equal(
	    tp_config_for_partition(cfg, "comm")->isolation_wait_max_us, 0);
	assert_int_equal(
	    tp_config_for_partition(cfg, "short")->isolation_wait_max_us,
	    5000000u);
	/* A partition that does not set it inherits the site's. */
	assert_int_equal(
	    tp_config_for_partition(cfg, "io")->isolation_wait_max_us,
	    120000000u);
	/* Independent of LeafWaitMax. */
	assert_int_equal(tp_config_defaults(cfg)->leaf_wait_max_us, 0);
	assert_true(tp_config_partition_sets(cfg, "short", "IsolationWaitMax"));
	assert_false(tp_config_partition_sets(cfg, "io", "IsolationWaitMax"));
	tp_config_free(cfg);
	cfg = NULL;
	assert_int_equal(tp_config_parse(bad, strlen(bad), ORIGIN, &cfg, &err),
	                 TP_ERR_INVALID);
	assert_null(cfg);
	assert_non_null(
	    strstr(err.message, ORIGIN ": line 1: IsolationWaitMax"));
	assert_int_equal(
	    tp_config_parse(small, strlen(small), ORIGIN, &cfg, &err),
	    TP_ERR_INVALID);
	assert_null(cfg);
	assert_non_null(
	    strstr(err.message, ORIGIN ": line 1: IsolationWaitMax"));
}

static void
test_leaf_remainder_is_per_partition_and_compatible_by_default(void **state)
{
	static const char text[] = "LeafRemainder=Whole\n"
	                           "PartitionName=small LeafRemainder=compatible\n"
	                           "PartitionName=io DefaultPlacement=shared\n";
	static const char bad[] = "LeafRemainder=shared\n";
	tp_config *cfg = parse_ok("");
	tp_error err;

	(void)state;
	assert_int_equal(tp_config_defaults(cfg)->leaf_remainder,
	                 TP_LEAF_REMAINDER_COMPATIBLE);
	tp_config_free(cfg);
	cfg = parse_ok(text);
	assert_int_equal(tp_config_defaults(cfg)->leaf_remainder,
	                 TP_LEAF_REMAINDER_WHOLE);
	assert_int_equal(tp_config_for_partition(cfg, "small")->leaf_remainder,
	                 TP_LEAF_REMAINDER_COMPATIBLE);
	/* A partition that does not set it inherits the site's. */
	assert_int_equal(tp_config_for_partition(cfg, "io")->leaf_remainder,
	                 TP_LEAF_REMAINDER_WHOLE);
	assert_true(tp_config_partition_sets(cfg, "small", "LeafRemainder"));
	assert_false(tp_config_partition_sets(cfg, "io", "LeafRemainder"));
	tp_config_free(cfg);
	cfg = NULL;
	assert_int_equal(tp_config_parse(bad, strlen(bad), ORIGIN, &cfg, &err),
	                 TP_ERR_INVALID);
	assert_null(cfg);
	assert_non_null(strstr(err.message,
	                       ORIGIN ": line 1: LeafRemainder: 'shared' is not "
	                              "a leaf remainder rule (expected one of "
	                              "whole|compatible)"));
}

/*
 * IoServerPolicy=auto (the default) resolves from Routing, wherever
 * Routing is in the file and for partitions that set auto themselves; a
 * policy named stays as named; the settings print it back as auto.
 */
static void test_ioserver_policy_auto_follows_routing(void **state)
{
	tp_config *cfg = parse_ok("IoServerPolicy=auto\n"
	                          "PartitionName=io IoServerPolicy=spread\n"
	                          "PartitionName=mpi IoServerPolicy=AUTO\n"
	                          "Routing=static\n");
	const tp_config_settings *s = tp_config_defaults(cfg);
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	tp_error err;

	(void)state;
	assert_true(s->ioserver_auto);
	assert_int_equal(s->ioserver_policy, TP_IOSERVER_STAGGERED);
	s = tp_config_for_partition(cfg, "io");
	assert_false(s->ioserver_auto);
	assert_int_equal(s->ioserver_policy, TP_IOSERVER_SPREAD);
	s = tp_config_for_partition(cfg, "mpi");
	assert_true(s->ioserver_auto);
	assert_int_equal(s->ioserver_policy, TP_IOSERVER_STAGGERED);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(tp_config_write_settings(cfg, "mpi", out, &err),
	                 TP_OK);
	fclose(out);
	assert_non_null(strstr(text, "IoServerPolicy=auto "));
	free(text);
	tp_config_free(cfg);
	/* Adaptive routing (said or not): isolated. */
	cfg = parse_ok("Routing=adaptive\nIoServerPolicy=auto\n");
	assert_int_equal(tp_config_defaults(cfg)->ioserver_policy,
	                 TP_IOSERVER_ISOLATED);
	tp_config_free(cfg);
}

/* ---- the key table ---------------------------------------------------- */

#define POISON 0xa5

/* The site and the settings structs, poisoned, for one row to write. */
union row_base {
	tp_config_site site;
	tp_config_settings settings;
};

static size_t base_size(const tp_config_key_info *info)
{
	return info->per_partition ? sizeof(tp_config_settings)
	                           : sizeof(tp_config_site);
}

/* Every byte of @base outside the row's field still holds POISON. */
static void assert_only_field_written(const tp_config_key_info *info,
                                      const union row_base *base,
                                      const char *what)
{
	const unsigned char *bytes = (const unsigned char *)base;

	for (size_t b = 0; b < base_size(info); b++) {
		if (b >= info->offset && b < info->offset + info->size)
			continue;
		if (bytes[b] != POISON)
			fail_msg("%s: %s wrote byte %zu, outside its field "
			         "[%zu, %zu)",
			         info->name, what, b, info->offset,
			         info->offset + info->size);
	}
}

/* An empty file's printed settings, by key, as `topoplace config` says. */
struct printed {
	size_t count;
	char key[64][48];
	char value[64][TP_CONFIG_MAX_PATH];
};

static void keep_printed(void *ctx, const char *key, const char *value,
                         tp_config_setting_origin origin, unsigned line)
{
	struct printed *p = ctx;

	assert_int_equal(origin, TP_CONFIG_FROM_DEFAULT);
	assert_int_equal(line, 0);
	assert_true(p->count < 64);
	snprintf(p->key[p->count], sizeof(p->key[0]), "%s", key);
	snprintf(p->value[p->count], sizeof(p->value[0]), "%s", value);
	p->count++;
}

/*
 * Each row of topoplace.conf's key table is whole: a name the parser
 * finds, a parser and a printer, a field inside its struct that no other
 * row shares, and a default the config really starts with, which its own
 * printer writes and its own parser reads back to the same text (unset
 * defaults excepted: no line can say them, they print as none).
 */
/* Row @i has a name, a parser, a printer and a field of its own. */
static void assert_row_whole(size_t i, tp_config_key_info *info)
{
	tp_config_key_info other;

	assert_true(tp_config_key_describe(i, info));
	if (!info->name || !*info->name)
		fail_msg("row %zu: no name", i);
	if (!info->has_parser || !info->has_printer)
		fail_msg("%s: no parser or printer", info->name);
	if (info->size == 0 || info->offset + info->size > base_size(info))
		fail_msg("%s: field [%zu, +%zu) not in its struct", info->name,
		         info->offset, info->size);
	for (size_t j = 0; j < i; j++) {
		assert_true(tp_config_key_describe(j, &other));
		if (!strcasecmp(info->name, other.name))
			fail_msg("%s: two rows", info->name);
		if (other.per_partition == info->per_partition &&
		    info->offset < other.offset + other.size &&
		    other.offset < info->offset + info->size)
			fail_msg("%s and %s share bytes", info->name,
			         other.name);
	}
}

/*
 * Row @i's default writes only its field and is what the config starts
 * with (@printed, but TopologyConf, which sits beside the file); its own
 * parser reads the printed default back, writing only its field, to the
 * same text.  An unset default (no line can say it) prints as none.
 */
static void assert_default_round_trips(tp_config *cfg, size_t i,
                                       const tp_config_key_info *info,
                                       const char *printed)
{
	union row_base base;
	char text[TP_CONFIG_MAX_PATH + 64], again[sizeof(text)];
	tp_error err;

	memset(&base, POISON, sizeof(base));
	tp_config_key_default(i, &base);
	assert_only_field_written(info, &base, "its default");
	tp_config_key_print(i, &base, text, sizeof(text));
	if (strcmp(text, printed) && strcmp(info->name, "TopologyConf"))
		fail_msg("%s: default prints '%s', the config has '%s'",
		         info->name, text, printed);
	if (info->unset_by_default) {
		assert_string_equal(text, "none");
		return;
	}
	memset(&base, POISON, sizeof(base));
	tp_error_clear(&err);
	if (tp_config_key_parse(cfg, i, text, &base, &err) != TP_OK)
		fail_msg("%s: its default '%s' does not parse: %s", info->name,
		         text, err.message);
	assert_only_field_written(info, &base, "its parser");
	tp_config_key_print(i, &base, again, sizeof(again));
	if (strcmp(text, again))
		fail_msg("%s: '%s' parsed prints '%s'", info->name, text,
		         again);
}

/*
 * Each row of topoplace.conf's key table is whole (a name, a parser, a
 * printer, a field of its own inside its struct) and its default round
 * trips: so a key is added by adding one whole row.
 */
static void test_every_key_row_is_whole_and_its_default_round_trips(void **st)
{
	static struct printed printed;
	const size_t count = tp_config_key_count();
	tp_config_key_info info;
	tp_config *cfg;

	(void)st;
	assert_true(count > 0);
	for (size_t i = 0; i < count; i++)
		assert_row_whole(i, &info);
	assert_false(tp_config_key_describe(count, &info));
	cfg = tp_config_new_default();
	assert_non_null(cfg);
	memset(&printed, 0, sizeof(printed));
	assert_int_equal(
	    tp_config_each_setting(cfg, NULL, keep_printed, &printed, NULL),
	    TP_OK);
	assert_int_equal(printed.count, count);
	for (size_t i = 0; i < count; i++) {
		assert_true(tp_config_key_describe(i, &info));
		assert_string_equal(info.name, printed.key[i]);
		assert_default_round_trips(cfg, i, &info, printed.value[i]);
	}
	tp_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty_file_gives_every_documented_default),
	    cmocka_unit_test(test_default_config_equals_empty_file),
	    cmocka_unit_test(test_every_key_is_parsed_into_its_field),
	    cmocka_unit_test(
	        test_profile_by_executable_takes_command_program_or_no),
	    cmocka_unit_test(test_keys_and_words_are_case_insensitive),
	    cmocka_unit_test(test_ioserver_policy_auto_follows_routing),
	    cmocka_unit_test(test_several_pairs_comments_and_crlf_on_one_line),
	    cmocka_unit_test(test_partition_overrides_only_what_its_line_sets),
	    cmocka_unit_test(test_unknown_partition_and_null_get_site_defaults),
	    cmocka_unit_test(test_node_name_map_alone_selects_the_map_rule),
	    cmocka_unit_test(
	        test_topology_conf_defaults_beside_a_relative_origin),
	    cmocka_unit_test(
	        test_each_bad_input_gives_one_message_naming_file_line_key),
	    cmocka_unit_test(test_a_blank_before_equals_is_not_key_value),
	    cmocka_unit_test(
	        test_overlong_line_and_file_are_refused_with_limits),
	    cmocka_unit_test(test_bad_reload_keeps_the_previous_config),
	    cmocka_unit_test(test_load_reads_a_file_and_names_it),
	    cmocka_unit_test(test_auto_resolves_by_profile_and_leaf_sharing),
	    cmocka_unit_test(
	        test_throttle_policy_and_store_options_carry_the_file),
	    cmocka_unit_test(test_names_round_trip_through_the_parser),
	    cmocka_unit_test(
	        test_remap_budget_and_memory_have_defaults_and_bounds),
	    cmocka_unit_test(
	        test_every_error_in_the_file_is_reported_in_line_order),
	    cmocka_unit_test(
	        test_cross_key_errors_of_every_partition_are_reported),
	    cmocka_unit_test(
	        test_partition_names_match_case_sensitively_like_slurm),
	    cmocka_unit_test(
	        test_throttle_objective_per_partition_reaches_policy),
	    cmocka_unit_test(
	        test_throttle_confidence_per_partition_reaches_policy),
	    cmocka_unit_test(test_routing_is_site_wide_and_adaptive_by_default),
	    cmocka_unit_test(
	        test_leaf_wait_max_is_per_partition_and_unbounded_by_default),
	    cmocka_unit_test(
	        test_isolation_wait_max_is_per_partition_and_unbounded_by_default),
	    cmocka_unit_test(
	        test_leaf_remainder_is_per_partition_and_compatible_by_default),
	    cmocka_unit_test(
	        test_every_key_row_is_whole_and_its_default_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
