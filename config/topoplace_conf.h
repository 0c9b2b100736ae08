/*
 * topoplace_conf.h: topoplace.conf, the admin's policy file
 * (topoplace.conf(5)).
 *
 * The file lives beside slurm.conf, like cgroup.conf and topology.conf:
 * `Key=Value` pairs, keys case-insensitive, '#' comments, blank lines.  A
 * line that starts with `PartitionName=<name>` overrides site-wide settings
 * for that partition only:
 *
 *   DefaultPlacement=auto
 *   DecisionBudget=2ms
 *   PartitionName=comm DefaultPlacement=leaf
 *   PartitionName=io   DefaultPlacement=shared ThrottleMode=preload
 *
 * The parser is all or nothing: it returns a complete new tp_config or an
 * error naming the file, the line and the key, and never a half-applied
 * one, so a daemon that re-reads the file keeps its previous good config.
 * It knows no Slurm; the plugins only translate.  Values are kept in the
 * types of the modules that use them (tp_placement, tp_jobclass_thresholds,
 * tp_ioserver_policy, tp_throttle_policy, tp_store_options).  Files named
 * by the config are not opened here: their own readers do that.
 * A finished tp_config is read-only and may be shared between threads.
 *
 * (Not named config.h: the Slurm plugins include Slurm's own config.h and
 * must be able to include this header too.)
 */
#ifndef TP_TOPOPLACE_CONF_H
#define TP_TOPOPLACE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "exec_match.h"
#include "ioserver.h"
#include "jobclass.h"
#include "policy.h"
#include "record_policy.h"
#include "remap.h"
#include "store.h"
#include "tp_error.h"
#include "window.h"

/* Bounds: a malformed or hostile file must not exhaust memory. */
#define TP_CONFIG_MAX_BYTES          (1u << 20)
#define TP_CONFIG_MAX_LINE           4096u
#define TP_CONFIG_MAX_PARTITIONS     1024u
#define TP_CONFIG_MAX_PATH           1024u
#define TP_CONFIG_PARTITION_NAME_MAX 64u

/* ProfileLookupTimeout's default. */
#define TP_CONFIG_DEFAULT_LOOKUP_TIMEOUT_US 10000000ull

/* Upper bound on DecisionBudget: slurmctld holds its locks meanwhile. */
#define TP_CONFIG_MAX_BUDGET_US 1000000ULL

/*
 * RemapBudget and RemapMemory: defaults and bounds.  slurmd answers
 * slurmctld's batch launch request only after task/topoplace returns, and
 * slurmctld gives up after MessageTimeout (default 10 s): the budget stays
 * well below it.
 */
#define TP_CONFIG_DEFAULT_REMAP_BUDGET_US 2000000ULL
#define TP_CONFIG_MIN_REMAP_BUDGET_US     10000ULL
#define TP_CONFIG_MAX_REMAP_BUDGET_US     8000000ULL
#define TP_CONFIG_DEFAULT_REMAP_MEMORY    (256ULL << 20)
#define TP_CONFIG_MIN_REMAP_MEMORY        (16ULL << 20)
#define TP_CONFIG_MAX_REMAP_MEMORY        (16ULL << 30)

/* Defaults that are paths or figures (see topoplace.conf(5)). */
#define TP_CONFIG_DEFAULT_FABRIC_CACHE  "/var/lib/topoplace/fabric.cache"
#define TP_CONFIG_DEFAULT_PROFILE_STORE "/var/lib/topoplace/profiles"
#define TP_CONFIG_DEFAULT_CONF_DIR      "/etc/slurm"
#define TP_CONFIG_DEFAULT_BUDGET_US     2000u

/* Where the fabric model comes from (discover.h). */
typedef enum tp_config_fabric_source {
	TP_FABRIC_SOURCE_TOPOLOGY = 0, /* Slurm's topology.conf */
	TP_FABRIC_SOURCE_CACHE,        /* an ibnetdiscover cache */
	TP_FABRIC_SOURCE_LIVE, /* swept outside the scheduling path, saved as
	                          the cache, then read from it */
} tp_config_fabric_source;

/* How a CA's node description becomes a NodeName (fabric.h). */
typedef enum tp_node_name_rule {
	TP_NODE_NAME_FIRST_WORD = 0,
	TP_NODE_NAME_MAP,
} tp_node_name_rule;

/* Which neighbours a job under placement `shared` may have on its leaves. */
typedef enum tp_leaf_sharing {
	TP_LEAF_SHARING_COMPATIBLE = 0, /* tp_jobclass_compatible */
	TP_LEAF_SHARING_NEVER,          /* nobody: `shared` acts as `leaf` */
	TP_LEAF_SHARING_ALWAYS,         /* anybody: classes are ignored */
} tp_leaf_sharing;

/* How an I/O throttle window is enforced. */
typedef enum tp_throttle_enforce {
	TP_THROTTLE_ENFORCE_OFF = 0, /* no throttling at all */
	TP_THROTTLE_ENFORCE_AUTO,    /* preload, plus TBF when TbfHook is set */
	TP_THROTTLE_ENFORCE_PRELOAD, /* the pacing library in the job */
	TP_THROTTLE_ENFORCE_TBF,     /* Lustre NRS TBF rules via TbfHook */
	TP_THROTTLE_ENFORCE_BOTH,    /* both of the above */
} tp_throttle_enforce;

typedef enum tp_rank_remap {
	TP_RANK_REMAP_AUTO = 0, /* remap when the job has a profile */
	TP_RANK_REMAP_OFF,
} tp_rank_remap;

/* DebugFlags bits: extra log lines of one concern. */
#define TP_DEBUG_FABRIC    (1u << 0)
#define TP_DEBUG_PLACEMENT (1u << 1)
#define TP_DEBUG_PROFILE   (1u << 2)
#define TP_DEBUG_REMAP     (1u << 3)
#define TP_DEBUG_THROTTLE  (1u << 4)
#define TP_DEBUG_BUDGET    (1u << 5)
#define TP_DEBUG_ALL       ((1u << 6) - 1)

/* At most every class plus "*". */
#define TP_CONFIG_MAX_THROTTLE_CLASSES 4

/*
 * The settings a partition may override.  Strings point into the tp_config
 * (valid until tp_config_free); throttle_classes holds static names
 * (tp_jobclass_name, or "*" for every class).
 */
typedef struct tp_config_settings {
	tp_placement default_placement;
	tp_leaf_sharing leaf_sharing;
	tp_jobclass_thresholds thresholds;
	/* IoServerPolicy: the policy task/topoplace places servers with.
	 * ioserver_auto (IoServerPolicy=auto, the default): it was chosen
	 * from the site's Routing when the file was read
	 * (tp_ioserver_policy_for_routing: staggered under static routing,
	 * isolated under adaptive). */
	tp_ioserver_policy ioserver_policy;
	bool ioserver_auto;
	uint32_t ioserver_count; /* servers for a job without --io-servers */
	const char *threshold_table; /* absolute path, or NULL: none */
	tp_throttle_enforce throttle_mode;
	const char *throttle_classes[TP_CONFIG_MAX_THROTTLE_CLASSES];
	size_t throttle_class_count; /* 0: nothing throttled automatically */
	uint64_t throttle_min_window_us; /* 0: no minimum */
	uint64_t throttle_max_window_us; /* 0: no maximum */
	bool throttle_allow_user_off;
	uint64_t decision_budget_us; /* >= 1 */
	tp_rank_remap rank_remap;
	/* RemapSearch: which candidates the remapper tries for a job
	 * (remap.h, tp_remap_search); auto by default. */
	tp_remap_search remap_search;
	/* What task/topoplace may spend on one batch job's remapping (the
	 * profile read included), in a child of slurmd killed past it. */
	uint64_t remap_budget_us;    /* wall time, RemapBudget */
	uint64_t remap_memory_bytes; /* address space added, RemapMemory */
	tp_throttle_objective throttle_objective; /* none by default */
	/* ThrottleConfidence: how sure an mpi_slowdown window must be to
	 * hold on a run the sweep did not measure; 0 is worst (window.h). */
	double throttle_confidence;
	/* Which jobs are recorded without --comm-record: ProfileRecord,
	 * ProfileRecordAllowUserOff, ProfileRecordExclude.  max_age_s is
	 * not set here (ProfileMaxAge is site-wide): tp_config_record_policy
	 * gives the complete policy. */
	tp_record_policy record;
	/* ProfileByExecutable: a step's command (its program and arguments,
	 * or under program the program alone) identifies its application
	 * (exec_match.h: not recorded again, throttled from its run, the
	 * script's link followed by every daemon); command by default, no:
	 * not at all. */
	tp_exec_match_rule profile_by_exec;
	/* LeafWaitMax: how long a `leaf` job waits for whole leaves before
	 * it accepts a compatible shared placement (alloc.h); 0: no bound. */
	uint64_t leaf_wait_max_us;
	/* IsolationWaitMax: how long a `leaf` or `shared` job waits for
	 * hosts apart from incompatible jobs before it is placed as Slurm's
	 * default would (alloc.h); 0: no bound. */
	uint64_t isolation_wait_max_us;
	/* LeafRemainder: where a `leaf` job's hosts that fill no whole leaf
	 * go (policy.h, alloc.h); compatible by default. */
	tp_leaf_remainder leaf_remainder;
} tp_config_settings;

/* Settings that exist once per site.  Paths are absolute, owned by config. */
typedef struct tp_config_site {
	tp_config_fabric_source fabric_source;
	const char *fabric_cache;
	const char *topology_conf;
	tp_node_name_rule node_name_rule;
	const char *node_name_map; /* NULL unless node_name_rule is MAP */
	const char *profile_store;
	unsigned profile_keep;
	int64_t profile_max_age_s; /* 0: the credential's own TTL */
	/* How long a job waits for slurmctld's off-lock profile lookup
	 * before it is placed by plain cons_tres. */
	uint64_t profile_lookup_timeout_us;
	const char *tbf_hook;      /* NULL: none */
	/* Site-wide I/O servers on the fabric (a Slurm hostlist), NULL:
	 * none.  Placement keeps communication-sensitive jobs off their
	 * leaves and pods. */
	const char *ioserver_hosts;
	/* How the fabric routes (policy.h): adaptive unless the site says
	 * static; under static, I/O servers' leaves stay usable. */
	tp_routing routing;
	uint32_t debug_flags;      /* TP_DEBUG_* */
} tp_config_site;

typedef struct tp_config tp_config;

/*
 * Parse topoplace.conf text @text of @len bytes.  @origin names it in
 * messages ("<origin>: line N: <Key>: ...") and, when it is an absolute
 * path, its directory is where TopologyConf defaults to (else
 * TP_CONFIG_DEFAULT_CONF_DIR).  On success *config is new (free with
 * tp_config_free); on failure *config is untouched.  Every line is
 * checked, also after a bad one (cross-key rules only when every line
 * read), so the whole file's errors are known at once; @err gets the
 * first, its code the status returned, prefixed with "N errors, the
 * first: " when there are more: TP_ERR_PARSE (syntax, unknown or
 * misplaced key, duplicate, an override of nothing), TP_ERR_INVALID (a bad
 * value, min > max window, settings that contradict each other),
 * TP_ERR_LIMIT (file, line or partition count over its bound),
 * TP_ERR_NOMEM (parsing stops).
 */
tp_status tp_config_parse(const char *text, size_t len, const char *origin,
                          tp_config **config, tp_error *err);

/* Called with each error of the file, in line order (@error is only valid
 * during the call). */
typedef void (*tp_config_error_fn)(void *ctx, const tp_error *error);

/* tp_config_parse, also telling @each (may be NULL) every error. */
tp_status tp_config_parse_each(const char *text, size_t len, const char *origin,
                               tp_config_error_fn each, void *each_ctx,
                               tp_config **config, tp_error *err);

/*
 * Read and parse the file @path (see tp_config_parse).  TP_ERR_IO when it
 * cannot be read, TP_ERR_LIMIT when it is larger than TP_CONFIG_MAX_BYTES.
 */
tp_status tp_config_load(const char *path, tp_config **config, tp_error *err);

/* tp_config_load, also telling @each (may be NULL) every error. */
tp_status tp_config_load_each(const char *path, tp_config_error_fn each,
                              void *each_ctx, tp_config **config,
                              tp_error *err);

/* A config with every default, as for an empty file.  NULL on no memory. */
tp_config *tp_config_new_default(void);

/* Frees @config and every string it handed out (NULL-safe). */
void tp_config_free(tp_config *config);

/* Where the config came from (the origin given to tp_config_parse). */
const char *tp_config_origin(const tp_config *config);

const tp_config_site *tp_config_site_settings(const tp_config *config);

/* The site-wide settings (lines without PartitionName). */
const tp_config_settings *tp_config_defaults(const tp_config *config);

/*
 * The effective settings for partition @partition: its overrides over the
 * site defaults; the site defaults for NULL or a partition the file does
 * not name.  Names are case-sensitive, as in Slurm.
 */
const tp_config_settings *tp_config_for_partition(const tp_config *config,
                                                  const char *partition);

/* Partitions the file overrides, in file order, and their names. */
size_t tp_config_partition_count(const tp_config *config);
const char *tp_config_partition_name(const tp_config *config, size_t i);
/* The line of the file that names partition @i (0 for a bad @i). */
unsigned tp_config_partition_line(const tp_config *config, size_t i);

/*
 * Whether @partition's line sets the key named @key (case-insensitive), so a
 * report can say where an effective value came from.  false for unknown
 * partitions or keys.
 */
bool tp_config_partition_sets(const tp_config *config, const char *partition,
                              const char *key);

/*
 * The concrete policy for a job: the user's @requested one unless it is
 * auto, else the partition's DefaultPlacement; auto there means `shared`
 * for a job with a profile (its class is known, so it can be kept from
 * jobs it would hurt or suffer from) and `off` (plain Slurm) without one.
 * Under LeafSharing=never, `shared` becomes `leaf`; under always, `pack`.
 */
tp_placement tp_config_resolve_placement(const tp_config_settings *settings,
                                         tp_placement requested,
                                         bool has_profile);

/*
 * Fill @policy (window.h) from @settings; @policy points into @settings,
 * valid as long as it is.  Under ThrottleMode=off it names no class (no
 * automatic windows); callers do not throttle at all then, user windows
 * included, so they check settings->throttle_mode first.
 */
void tp_config_throttle_policy(const tp_config_settings *settings,
                               tp_throttle_policy *policy);

/*
 * Set root, keep and max_age_s of @options (store.h) from @config, leaving
 * its other fields alone; root points into @config.
 */
void tp_config_store_options(const tp_config *config,
                             tp_store_options *options);

/*
 * The recording policy of @settings (a partition's, from @config) with the
 * site's ProfileMaxAge, into @policy; strings point into @config.
 */
void tp_config_record_policy(const tp_config *config,
                             const tp_config_settings *settings,
                             tp_record_policy *policy);

/*
 * Write the effective settings to @out as `Key=Value  # where from` lines:
 * for @partition NULL every key (site-wide and defaults), else a
 * `PartitionName=<name>` line and that partition's settings, indented.
 * TP_ERR_NOTFOUND for a partition the file does not name, TP_ERR_IO when
 * @out reports an error.
 */
tp_status tp_config_write_settings(const tp_config *config,
                                   const char *partition, FILE *out,
                                   tp_error *err);

/* Where an effective setting comes from (tp_config_each_setting). */
typedef enum tp_config_setting_origin {
	TP_CONFIG_FROM_DEFAULT,   /* no line sets it */
	TP_CONFIG_FROM_SITE,      /* a site-wide line */
	TP_CONFIG_FROM_PARTITION, /* the partition's own line */
} tp_config_setting_origin;

/* One effective setting: @key as the file spells it, @value as the file
 * would, where it comes from and the line (0 for a default). */
typedef void (*tp_config_setting_fn)(void *ctx, const char *key,
                                     const char *value,
                                     tp_config_setting_origin origin,
                                     unsigned line);

/*
 * Each effective setting in the file's key order: for @partition NULL
 * every key (site-wide and defaults), else the keys a partition can set,
 * as they apply to it.  TP_ERR_NOTFOUND for a partition the file does not
 * name.
 */
tp_status tp_config_each_setting(const tp_config *config, const char *partition,
                                 tp_config_setting_fn each, void *ctx,
                                 tp_error *err);

/* "default", "site", "partition". */
const char *tp_config_setting_origin_name(tp_config_setting_origin origin);

/* Canonical spellings, as accepted in the file. */
const char *tp_config_fabric_source_name(tp_config_fabric_source source);
const char *tp_node_name_rule_name(tp_node_name_rule rule);
const char *tp_leaf_sharing_name(tp_leaf_sharing sharing);
const char *tp_throttle_enforce_name(tp_throttle_enforce mode);
const char *tp_rank_remap_name(tp_rank_remap remap);

/*
 * DebugFlags as the file spells them ("Fabric,Placement", "none") into
 * @buf of @size bytes (truncated if small).
 */
void tp_config_debug_flags_format(uint32_t flags, char *buf, size_t size);

/*
 * The files @config names that its parse could not check, read now: each
 * ThresholdTable (site-wide and per partition) must be a readable, valid
 * table.  The first failure is the error, naming the file, the line of
 * the key and the table's own problem.  For `topoplace config check` and
 * slurmctld's (re)configure; slurmd stays lenient per job.
 */
tp_status tp_config_check_files(const tp_config *config, tp_error *err);

#endif /* TP_TOPOPLACE_CONF_H */
