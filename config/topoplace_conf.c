/*
 * topoplace_conf.c: the topoplace.conf parser (see topoplace_conf.h).
 *
 * Parsing builds a fresh tp_config and hands it over only when the whole
 * file, and every cross-key rule, checked out: the first problem stops it
 * with one message, and whatever was built is freed.
 */
#include "tp_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topoplace_conf.h"
#include "threshold.h"
#include "units.h"

enum key_id {
	/* site-wide only */
	K_FABRIC_SOURCE,
	K_FABRIC_CACHE,
	K_TOPOLOGY_CONF,
	K_NODE_NAME_RULE,
	K_NODE_NAME_MAP,
	K_PROFILE_STORE,
	K_PROFILE_KEEP,
	K_PROFILE_MAX_AGE,
	K_PROFILE_LOOKUP_TIMEOUT,
	K_TBF_HOOK,
	K_IOSERVER_HOSTS,
	K_ROUTING,
	K_DEBUG_FLAGS,
	/* also per partition (K_FIRST_PARTITION_KEY and after) */
	K_DEFAULT_PLACEMENT,
	K_LEAF_SHARING,
	K_IO_HEAVY_MIN_BYTES,
	K_IO_HEAVY_CLIENT_RATE,
	K_IO_HEAVY_REFERENCE_CLIENTS,
	K_COMM_MAX_MESSAGE,
	K_COMM_MESSAGE_RATE,
	K_COMM_BYTE_RATE,
	K_IOSERVER_POLICY,
	K_IOSERVER_COUNT,
	K_THRESHOLD_TABLE,
	K_THROTTLE_MODE,
	K_THROTTLE_CLASSES,
	K_THROTTLE_MIN_WINDOW,
	K_THROTTLE_MAX_WINDOW,
	K_THROTTLE_ALLOW_USER_OFF,
	K_DECISION_BUDGET,
	K_RANK_REMAP,
	K_REMAP_BUDGET,
	K_REMAP_MEMORY,
	K_THROTTLE_OBJECTIVE,
	K_PROFILE_RECORD,
	K_PROFILE_RECORD_ALLOW_USER_OFF,
	K_PROFILE_RECORD_EXCLUDE,
	K_LEAF_WAIT_MAX,
	K_LEAF_REMAINDER,
	K_ISOLATION_WAIT_MAX,
	K_COUNT
};

#define K_FIRST_PARTITION_KEY K_DEFAULT_PLACEMENT

static const char *const key_names[K_COUNT] = {
    [K_FABRIC_SOURCE] = "FabricSource",
    [K_FABRIC_CACHE] = "FabricCache",
    [K_TOPOLOGY_CONF] = "TopologyConf",
    [K_NODE_NAME_RULE] = "NodeNameRule",
    [K_NODE_NAME_MAP] = "NodeNameMap",
    [K_PROFILE_STORE] = "ProfileStore",
    [K_PROFILE_KEEP] = "ProfileKeep",
    [K_PROFILE_MAX_AGE] = "ProfileMaxAge",
    [K_PROFILE_LOOKUP_TIMEOUT] = "ProfileLookupTimeout",
    [K_TBF_HOOK] = "TbfHook",
    [K_IOSERVER_HOSTS] = "IoServerHosts",
    [K_ROUTING] = "Routing",
    [K_DEBUG_FLAGS] = "DebugFlags",
    [K_DEFAULT_PLACEMENT] = "DefaultPlacement",
    [K_LEAF_SHARING] = "LeafSharing",
    [K_IO_HEAVY_MIN_BYTES] = "IoHeavyMinBytes",
    [K_IO_HEAVY_CLIENT_RATE] = "IoHeavyClientBytesPerSec",
    [K_IO_HEAVY_REFERENCE_CLIENTS] = "IoHeavyReferenceClients",
    [K_COMM_MAX_MESSAGE] = "CommSensitiveMaxMessageBytes",
    [K_COMM_MESSAGE_RATE] = "CommSensitiveMessagesPerSecPerRank",
    [K_COMM_BYTE_RATE] = "CommSensitiveBytesPerSecPerRank",
    [K_IOSERVER_POLICY] = "IoServerPolicy",
    [K_IOSERVER_COUNT] = "IoServerCount",
    [K_THRESHOLD_TABLE] = "ThresholdTable",
    [K_THROTTLE_MODE] = "ThrottleMode",
    [K_THROTTLE_CLASSES] = "ThrottleClasses",
    [K_THROTTLE_MIN_WINDOW] = "ThrottleMinWindow",
    [K_THROTTLE_MAX_WINDOW] = "ThrottleMaxWindow",
    [K_THROTTLE_ALLOW_USER_OFF] = "ThrottleAllowUserOff",
    [K_DECISION_BUDGET] = "DecisionBudget",
    [K_RANK_REMAP] = "RankRemap",
    [K_REMAP_BUDGET] = "RemapBudget",
    [K_REMAP_MEMORY] = "RemapMemory",
    [K_THROTTLE_OBJECTIVE] = "ThrottleObjective",
    [K_PROFILE_RECORD] = "ProfileRecord",
    [K_PROFILE_RECORD_ALLOW_USER_OFF] = "ProfileRecordAllowUserOff",
    [K_PROFILE_RECORD_EXCLUDE] = "ProfileRecordExclude",
    [K_LEAF_WAIT_MAX] = "LeafWaitMax",
    [K_LEAF_REMAINDER] = "LeafRemainder",
    [K_ISOLATION_WAIT_MAX] = "IsolationWaitMax",
};

/* One PartitionName line: what it sets, and the result over the site. */
struct partition {
	char *name;
	unsigned line;
	unsigned key_line[K_COUNT]; /* 0: not set on this line */
	tp_config_settings overrides;
	tp_config_settings effective;
};

struct tp_config {
	char *origin;
	tp_config_site site;
	tp_config_settings defaults;
	unsigned site_key_line[K_COUNT]; /* 0: default */
	struct partition *parts;
	size_t part_count, part_cap;
	char **owned; /* every string the config hands out */
	size_t owned_count, owned_cap;
};

/* ---- names ----------------------------------------------------------- */

static const char *const fabric_source_names[] = {
    [TP_FABRIC_SOURCE_TOPOLOGY] = "topology",
    [TP_FABRIC_SOURCE_CACHE] = "cache",
    [TP_FABRIC_SOURCE_LIVE] = "live",
};
static const char *const node_name_rule_names[] = {
    [TP_NODE_NAME_FIRST_WORD] = "first-word",
    [TP_NODE_NAME_MAP] = "map",
};
static const char *const leaf_sharing_names[] = {
    [TP_LEAF_SHARING_COMPATIBLE] = "compatible",
    [TP_LEAF_SHARING_NEVER] = "never",
    [TP_LEAF_SHARING_ALWAYS] = "always",
};
static const char *const throttle_enforce_names[] = {
    [TP_THROTTLE_ENFORCE_OFF] = "off",
    [TP_THROTTLE_ENFORCE_AUTO] = "auto",
    [TP_THROTTLE_ENFORCE_PRELOAD] = "preload",
    [TP_THROTTLE_ENFORCE_TBF] = "tbf",
    [TP_THROTTLE_ENFORCE_BOTH] = "both",
};
static const char *const rank_remap_names[] = {
    [TP_RANK_REMAP_AUTO] = "auto",
    [TP_RANK_REMAP_OFF] = "off",
};
static const char *const debug_flag_names[] = {
    "Fabric", "Placement", "Profile", "Remap", "Throttle", "Budget",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_at(const char *const *names, size_t count, int i)
{
	if (i < 0 || (size_t)i >= count)
		return "invalid";
	return names[i];
}

const char *tp_config_fabric_source_name(tp_config_fabric_source source)
{
	return name_at(fabric_source_names, COUNT_OF(fabric_source_names),
	               (int)source);
}

const char *tp_node_name_rule_name(tp_node_name_rule rule)
{
	return name_at(node_name_rule_names, COUNT_OF(node_name_rule_names),
	               (int)rule);
}

const char *tp_leaf_sharing_name(tp_leaf_sharing sharing)
{
	return name_at(leaf_sharing_names, COUNT_OF(leaf_sharing_names),
	               (int)sharing);
}

const char *tp_throttle_enforce_name(tp_throttle_enforce mode)
{
	return name_at(throttle_enforce_names, COUNT_OF(throttle_enforce_names),
	               (int)mode);
}

const char *tp_rank_remap_name(tp_rank_remap remap)
{
	return name_at(rank_remap_names, COUNT_OF(rank_remap_names),
	               (int)remap);
}

void tp_config_debug_flags_format(uint32_t flags, char *buf, size_t size)
{
	size_t used = 0;

	if (!buf || size == 0)
		return;
	buf[0] = '\0';
	if (!(flags & TP_DEBUG_ALL)) {
		snprintf(buf, size, "none");
		return;
	}
	for (size_t i = 0; i < COUNT_OF(debug_flag_names); i++) {
		int n;

		if (!(flags & (1u << i)))
			continue;
		n = snprintf(buf + used, size - used, "%s%s", used ? "," : "",
		             debug_flag_names[i]);
		if (n < 0 || (size_t)n >= size - used)
			return; /* truncated, still NUL-terminated */
		used += (size_t)n;
	}
}

/* ---- defaults -------------------------------------------------------- */

static void settings_defaults(tp_config_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->default_placement = TP_PLACEMENT_AUTO;
	s->leaf_sharing = TP_LEAF_SHARING_COMPATIBLE;
	tp_jobclass_defaults(&s->thresholds);
	/* auto: resolved from Routing once the file is read (finish) */
	s->ioserver_auto = true;
	s->ioserver_policy =
	    tp_ioserver_policy_for_routing(TP_ROUTING_ADAPTIVE);
	s->ioserver_count = 0;
	s->threshold_table = NULL;
	s->throttle_mode = TP_THROTTLE_ENFORCE_OFF;
	s->throttle_classes[0] = tp_jobclass_name(TP_JOBCLASS_IO_HEAVY);
	s->throttle_class_count = 1;
	s->throttle_min_window_us = 0;
	s->throttle_max_window_us = 0;
	s->throttle_allow_user_off = true;
	s->decision_budget_us = TP_CONFIG_DEFAULT_BUDGET_US;
	s->rank_remap = TP_RANK_REMAP_AUTO;
	s->remap_budget_us = TP_CONFIG_DEFAULT_REMAP_BUDGET_US;
	s->remap_memory_bytes = TP_CONFIG_DEFAULT_REMAP_MEMORY;
	s->record.mode = TP_RECORD_OFF;
	s->record.allow_user_off = true;
	s->leaf_wait_max_us = 0;
	s->isolation_wait_max_us = 0;
	s->leaf_remainder = TP_LEAF_REMAINDER_COMPATIBLE;
}

static void site_defaults(tp_config_site *site)
{
	memset(site, 0, sizeof(*site));
	site->fabric_source = TP_FABRIC_SOURCE_TOPOLOGY;
	site->fabric_cache = TP_CONFIG_DEFAULT_FABRIC_CACHE;
	site->topology_conf = TP_CONFIG_DEFAULT_CONF_DIR "/topology.conf";
	site->node_name_rule = TP_NODE_NAME_FIRST_WORD;
	site->node_name_map = NULL;
	site->profile_store = TP_CONFIG_DEFAULT_PROFILE_STORE;
	site->profile_keep = TP_STORE_DEFAULT_KEEP;
	site->profile_max_age_s = TP_STORE_DEFAULT_MAX_AGE_S;
	site->profile_lookup_timeout_us = TP_CONFIG_DEFAULT_LOOKUP_TIMEOUT_US;
	site->tbf_hook = NULL;
	site->ioserver_hosts = NULL;
	site->routing = TP_ROUTING_ADAPTIVE;
	site->debug_flags = 0;
}

/* ---- owned strings --------------------------------------------------- */

static char *own(tp_config *cfg, const char *text, size_t len)
{
	char *copy;

	if (cfg->owned_count == cfg->owned_cap) {
		size_t cap = cfg->owned_cap ? cfg->owned_cap * 2 : 8;
		char **grown = realloc(cfg->owned, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		cfg->owned = grown;
		cfg->owned_cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, text, len);
	copy[len] = '\0';
	cfg->owned[cfg->owned_count++] = copy;
	return copy;
}

static tp_config *config_new(const char *origin)
{
	tp_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	site_defaults(&cfg->site);
	settings_defaults(&cfg->defaults);
	cfg->origin = strdup(origin ? origin : "topoplace.conf");
	if (!cfg->origin) {
		free(cfg);
		return NULL;
	}
	/* TopologyConf sits beside this file, as slurm.conf's does. */
	if (origin && origin[0] == '/') {
		const char *slash = strrchr(origin, '/');
		size_t dir_len = (size_t)(slash - origin);
		char buf[TP_CONFIG_MAX_PATH + 32];

		if (dir_len + sizeof("/topology.conf") <= sizeof(buf)) {
			memcpy(buf, origin, dir_len);
			memcpy(buf + dir_len, "/topology.conf",
			       sizeof("/topology.conf"));
			cfg->site.topology_conf = own(cfg, buf, strlen(buf));
			if (!cfg->site.topology_conf) {
				tp_config_free(cfg);
				return NULL;
			}
		}
	}
	return cfg;
}

void tp_config_free(tp_config *config)
{
	if (!config)
		return;
	for (size_t i = 0; i < config->owned_count; i++)
		free(config->owned[i]);
	free(config->owned);
	for (size_t i = 0; i < config->part_count; i++)
		free(config->parts[i].name);
	free(config->parts);
	free(config->origin);
	free(config);
}

tp_config *tp_config_new_default(void)
{
	return config_new(NULL);
}

/* ---- value parsers --------------------------------------------------- */

/*
 * Each writes the value on success, or sets @err to a message that starts
 * with the key (the caller puts "<origin>: line N: " in front).
 */

static void lower_copy(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < size; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

static tp_status parse_choice(const char *key, const char *text,
                              const char *const *names, size_t count,
                              int *value, tp_error *err)
{
	char choices[128] = "";
	size_t used = 0;

	for (size_t i = 0; i < count; i++) {
		if (!strcasecmp(text, names[i])) {
			*value = (int)i;
			return TP_OK;
		}
	}
	for (size_t i = 0; i < count; i++) {
		int n = snprintf(choices + used, sizeof(choices) - used, "%s%s",
		                 i ? "|" : "", names[i]);
		if (n < 0 || (size_t)n >= sizeof(choices) - used)
			break;
		used += (size_t)n;
	}
	return tp_error_set(err, TP_ERR_INVALID, "%s: '%.80s' is not one of %s",
	                    key, text, choices);
}

/* The module parsers take exact lower case; the file is case-insensitive. */
static tp_status parse_placement(const char *key, const char *text,
                                 tp_placement *value, tp_error *err)
{
	char lower[32];

	lower_copy(lower, sizeof(lower), text);
	if (strlen(text) < sizeof(lower) &&
	    tp_placement_parse(lower, value, NULL) == TP_OK)
		return TP_OK;
	tp_placement_parse(text, value, err);
	return tp_error_prefix(err, "%s", key);
}

/* A policy, or auto (resolved from Routing in finish). */
static tp_status parse_ioserver_policy(const char *key, const char *text,
                                       tp_config_settings *s, tp_error *err)
{
	char lower[32];

	lower_copy(lower, sizeof(lower), text);
	if (strlen(text) < sizeof(lower) && !strcmp(lower, "auto")) {
		s->ioserver_auto = true;
		return TP_OK;
	}
	if (strlen(text) < sizeof(lower) &&
	    tp_ioserver_policy_parse(lower, &s->ioserver_policy, NULL) ==
	        TP_OK) {
		s->ioserver_auto = false;
		return TP_OK;
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s: '%.80s' is not an I/O server policy "
	                    "(expected one of auto|%s)",
	                    key, text, TP_IOSERVER_CHOICES);
}

static tp_status parse_bool(const char *key, const char *text, bool *value,
                            tp_error *err)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < COUNT_OF(yes); i++) {
		if (!strcasecmp(text, yes[i])) {
			*value = true;
			return TP_OK;
		}
		if (!strcasecmp(text, no[i])) {
			*value = false;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID, "%s: '%.80s' is not yes or no",
	                    key, text);
}

/* A wait bound: none (0) or a duration of at least 1 s (units.h's upper
 * bound on any duration applies). */
static tp_status parse_wait_bound(const char *key, const char *text,
                                  uint64_t *bound_us, tp_error *err)
{
	uint64_t us;
	tp_status rc;

	if (!strcasecmp(text, "none")) {
		*bound_us = 0;
		return TP_OK;
	}
	rc = tp_units_parse_duration_us(key, text, 1000000u, &us, err);
	if (rc == TP_OK)
		*bound_us = us;
	return rc;
}

/*
 * A Slurm hostlist expression ("oss[01-08],mds1"): checked for its
 * characters and balanced brackets here; the daemons expand it.
 */
static tp_status parse_hostlist(tp_config *cfg, const char *key,
                                const char *text, const char **value,
                                tp_error *err)
{
	size_t len = strlen(text);
	int depth = 0;
	const char *copy;

	if (len == 0 || len >= TP_CONFIG_MAX_PATH)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: a host list of 1 to %u characters", key,
		                    TP_CONFIG_MAX_PATH - 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '[')
			depth++;
		else if (c == ']')
			depth--;
		if (depth < 0 || depth > 1 ||
		    !(isalnum(c) || strchr("-_.,[]", c)))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s' is not a host list "
			                    "(like oss[01-08],mds1)",
			                    key, text);
	}
	if (depth != 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%.80s': unbalanced '['", key, text);
	copy = own(cfg, text, len);
	if (!copy)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    key);
	*value = copy;
	return TP_OK;
}

static tp_status parse_path(tp_config *cfg, const char *key, const char *text,
                            const char **value, tp_error *err)
{
	size_t len = strlen(text);
	const char *copy;

	if (text[0] != '/')
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "%s: '%.80s' is not an absolute path "
		    "(daemons do not share a working directory)",
		    key, text);
	if (len >= TP_CONFIG_MAX_PATH)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: path longer than %u bytes", key,
		                    TP_CONFIG_MAX_PATH - 1);
	for (size_t i = 0; i < len; i++) {
		if (isspace((unsigned char)text[i]))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s': paths may not "
			                    "contain spaces",
			                    key, text);
	}
	copy = own(cfg, text, len);
	if (!copy)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    key);
	*value = copy;
	return TP_OK;
}

static tp_status parse_count32(const char *key, const char *text, uint64_t min,
                               uint64_t max, uint32_t *value, tp_error *err)
{
	uint64_t count;
	tp_status rc = tp_units_parse_count(key, text, min, max, &count, err);

	if (rc == TP_OK)
		*value = (uint32_t)count;
	return rc;
}

/*
 * A window bound: a duration, or "none"/"0" for no bound.  The duration
 * parser caps at one hour, which is also the sane top of a window.
 */
static tp_status parse_window_bound(const char *key, const char *text,
                                    uint64_t *value_us, tp_error *err)
{
	if (!strcasecmp(text, "none") || !strcmp(text, "0")) {
		*value_us = 0;
		return TP_OK;
	}
	return tp_units_parse_duration_us(key, text, 1, value_us, err);
}

/*
 * A profile age: whole seconds, minutes, hours or days ("30d").  The
 * duration parser of units.h stops at one hour, as suits windows and
 * budgets; profiles live for weeks, so ages take these coarser units and
 * leave the digits to the shared count parser.
 */
static tp_status parse_age(const char *key, const char *text, int64_t *value_s,
                           tp_error *err)
{
	static const struct {
		char unit;
		uint64_t seconds;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	const uint64_t max_s = 3650ull * 86400;
	size_t len = strlen(text);
	char digits[24];
	uint64_t count;

	if (!strcmp(text, "0")) {
		*value_s = 0;
		return TP_OK;
	}
	for (size_t i = 0;
	     len >= 2 && len - 1 < sizeof(digits) && i < COUNT_OF(units); i++) {
		if (text[len - 1] != units[i].unit)
			continue;
		memcpy(digits, text, len - 1);
		digits[len - 1] = '\0';
		if (tp_units_parse_count(key, digits, 1,
		                         max_s / units[i].seconds, &count,
		                         NULL) != TP_OK)
			break;
		*value_s = (int64_t)(count * units[i].seconds);
		return TP_OK;
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s: '%.80s' is not an age (a whole number with "
	                    "unit s, m, h or d, at most 3650d, e.g. 30d; or 0 "
	                    "for the credential's own lifetime)",
	                    key, text);
}

/* Split @text at commas, trimming blanks; call @fn for each item. */
static tp_status for_each_item(const char *key, const char *text,
                               tp_status (*fn)(void *ctx, const char *key,
                                               const char *item, tp_error *err),
                               void *ctx, tp_error *err)
{
	const char *p = text;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[64];

		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len == 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s': empty item in the "
			                    "list",
			                    key, text);
		if (len >= sizeof(item))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.40s...': item too long",
			                    key, p);
		memcpy(item, p, len);
		item[len] = '\0';
		if (fn(ctx, key, item, err) != TP_OK)
			return err ? err->code : TP_ERR_INVALID;
		if (!comma)
			return TP_OK;
		p = comma + 1;
	}
}

struct class_list {
	bool none, all;
	unsigned mask;
};

static tp_status add_class(void *ctx, const char *key, const char *item,
                           tp_error *err)
{
	struct class_list *list = ctx;
	char lower[32];
	tp_jobclass job_class;

	if (!strcasecmp(item, "none")) {
		list->none = true;
		return TP_OK;
	}
	if (!strcmp(item, "*")) {
		list->all = true;
		return TP_OK;
	}
	lower_copy(lower, sizeof(lower), item);
	if (tp_jobclass_parse(lower, &job_class, NULL) != TP_OK)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%s' is not a job class (expected "
		                    "%s, '*' for all, or none)",
		                    key, item, TP_JOBCLASS_CHOICES);
	list->mask |= 1u << job_class;
	return TP_OK;
}

static tp_status parse_classes(const char *key, const char *text,
                               tp_config_settings *s, tp_error *err)
{
	struct class_list list = {false, false, 0};
	const tp_jobclass order[] = {TP_JOBCLASS_IO_HEAVY,
	                             TP_JOBCLASS_COMM_SENSITIVE,
	                             TP_JOBCLASS_QUIET};
	tp_status rc = for_each_item(key, text, add_class, &list, err);

	if (rc != TP_OK)
		return rc;
	if (list.none && (list.all || list.mask))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: 'none' cannot be combined with "
		                    "classes",
		                    key);
	s->throttle_class_count = 0;
	if (list.all) {
		s->throttle_classes[s->throttle_class_count++] = "*";
		return TP_OK;
	}
	for (size_t i = 0; i < COUNT_OF(order); i++) {
		if (list.mask & (1u << order[i]))
			s->throttle_classes[s->throttle_class_count++] =
			    tp_jobclass_name(order[i]);
	}
	return TP_OK;
}

static tp_status add_debug_flag(void *ctx, const char *key, const char *item,
                                tp_error *err)
{
	uint32_t *flags = ctx;

	if (!strcasecmp(item, "none"))
		return TP_OK;
	if (!strcasecmp(item, "all")) {
		*flags |= TP_DEBUG_ALL;
		return TP_OK;
	}
	for (size_t i = 0; i < COUNT_OF(debug_flag_names); i++) {
		if (!strcasecmp(item, debug_flag_names[i])) {
			*flags |= 1u << i;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s: '%s' is not a debug flag (expected Fabric, "
	                    "Placement, Profile, Remap, Throttle, Budget, All "
	                    "or none)",
	                    key, item);
}

/* A rate or size in bytes (K/M/G binary suffixes), as a double. */
static tp_status parse_rate(const char *key, const char *text, double *value,
                            tp_error *err)
{
	uint64_t bytes;
	tp_status rc = tp_units_parse_bytes(key, text, &bytes, err);

	if (rc == TP_OK)
		*value = (double)bytes;
	return rc;
}

/* Parse @text as the value of @key into @site or @s. */
static tp_status parse_value(tp_config *cfg, enum key_id key, const char *text,
                             tp_config_site *site, tp_config_settings *s,
                             tp_error *err)
{
	const char *name = key_names[key];
	uint64_t u64;
	int choice;
	tp_status rc;

#define CHOICE(names, field, type)                                             \
	do {                                                                   \
		rc = parse_choice(name, text, names, COUNT_OF(names), &choice, \
		                  err);                                        \
		if (rc == TP_OK)                                               \
			field = (type)choice;                                  \
		return rc;                                                     \
	} while (0)

	switch (key) {
	case K_FABRIC_SOURCE:
		CHOICE(fabric_source_names, site->fabric_source,
		       tp_config_fabric_source);
	case K_FABRIC_CACHE:
		return parse_path(cfg, name, text, &site->fabric_cache, err);
	case K_TOPOLOGY_CONF:
		return parse_path(cfg, name, text, &site->topology_conf, err);
	case K_NODE_NAME_RULE:
		CHOICE(node_name_rule_names, site->node_name_rule,
		       tp_node_name_rule);
	case K_NODE_NAME_MAP:
		return parse_path(cfg, name, text, &site->node_name_map, err);
	case K_PROFILE_STORE:
		return parse_path(cfg, name, text, &site->profile_store, err);
	case K_PROFILE_KEEP:
		rc = tp_units_parse_count(name, text, 1, 1000, &u64, err);
		if (rc == TP_OK)
			site->profile_keep = (unsigned)u64;
		return rc;
	case K_PROFILE_MAX_AGE:
		return parse_age(name, text, &site->profile_max_age_s, err);
	case K_PROFILE_LOOKUP_TIMEOUT:
		/* 1 ms to 1 h (the units parser's own maximum). */
		rc = tp_units_parse_duration_us(name, text, 1000, &u64, err);
		if (rc == TP_OK)
			site->profile_lookup_timeout_us = u64;
		return rc;
	case K_TBF_HOOK:
		return parse_path(cfg, name, text, &site->tbf_hook, err);
	case K_IOSERVER_HOSTS:
		return parse_hostlist(cfg, name, text, &site->ioserver_hosts,
		                      err);
	case K_ROUTING: {
		char lower[16];

		lower_copy(lower, sizeof(lower), text);
		if (strlen(text) < sizeof(lower) &&
		    tp_routing_parse(lower, &site->routing, NULL) == TP_OK)
			return TP_OK;
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%.64s' is not a routing kind "
		                    "(expected one of %s)",
		                    name, text, TP_ROUTING_CHOICES);
	}
	case K_DEBUG_FLAGS:
		site->debug_flags = 0;
		return for_each_item(name, text, add_debug_flag,
		                     &site->debug_flags, err);
	case K_DEFAULT_PLACEMENT:
		return parse_placement(name, text, &s->default_placement, err);
	case K_LEAF_SHARING:
		CHOICE(leaf_sharing_names, s->leaf_sharing, tp_leaf_sharing);
	case K_IO_HEAVY_MIN_BYTES:
		return tp_units_parse_bytes(name, text,
		                            &s->thresholds.io_bytes_min, err);
	case K_IO_HEAVY_CLIENT_RATE:
		return parse_rate(
		    name, text, &s->thresholds.io_client_bytes_per_s_min, err);
	case K_IO_HEAVY_REFERENCE_CLIENTS:
		return parse_count32(name, text, 1, UINT32_MAX,
		                     &s->thresholds.io_reference_clients, err);
	case K_COMM_MAX_MESSAGE:
		return tp_units_parse_bytes(
		    name, text, &s->thresholds.comm_small_message_bytes_max,
		    err);
	case K_COMM_MESSAGE_RATE:
		rc = tp_units_parse_count(name, text, 1, UINT32_MAX, &u64, err);
		if (rc == TP_OK)
			s->thresholds.comm_messages_per_s_per_rank_min =
			    (double)u64;
		return rc;
	case K_COMM_BYTE_RATE:
		return parse_rate(name, text,
		                  &s->thresholds.comm_bytes_per_s_per_rank_min,
		                  err);
	case K_IOSERVER_POLICY:
		return parse_ioserver_policy(name, text, s, err);
	case K_IOSERVER_COUNT:
		/* 0 is allowed: no servers unless the job asks. */
		if (!strcmp(text, "0")) {
			s->ioserver_count = 0;
			return TP_OK;
		}
		return parse_count32(name, text, 1, 65536, &s->ioserver_count,
		                     err);
	case K_THRESHOLD_TABLE:
		return parse_path(cfg, name, text, &s->threshold_table, err);
	case K_THROTTLE_MODE:
		CHOICE(throttle_enforce_names, s->throttle_mode,
		       tp_throttle_enforce);
	case K_THROTTLE_CLASSES:
		return parse_classes(name, text, s, err);
	case K_THROTTLE_MIN_WINDOW:
		return parse_window_bound(name, text,
		                          &s->throttle_min_window_us, err);
	case K_THROTTLE_MAX_WINDOW:
		return parse_window_bound(name, text,
		                          &s->throttle_max_window_us, err);
	case K_THROTTLE_ALLOW_USER_OFF:
		return parse_bool(name, text, &s->throttle_allow_user_off, err);
	case K_DECISION_BUDGET:
		rc = tp_units_parse_duration_us(name, text, 1, &u64, err);
		if (rc != TP_OK)
			return rc;
		if (u64 > TP_CONFIG_MAX_BUDGET_US)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s' is over the limit of "
			                    "1s (slurmctld holds its locks "
			                    "while deciding)",
			                    name, text);
		s->decision_budget_us = u64;
		return TP_OK;
	case K_RANK_REMAP:
		CHOICE(rank_remap_names, s->rank_remap, tp_rank_remap);
	case K_REMAP_BUDGET:
		rc = tp_units_parse_duration_us(
		    name, text, TP_CONFIG_MIN_REMAP_BUDGET_US, &u64, err);
		if (rc != TP_OK)
			return rc;
		if (u64 > TP_CONFIG_MAX_REMAP_BUDGET_US)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s' is over the limit of "
			                    "8s (slurmd answers slurmctld's "
			                    "launch request only after it)",
			                    name, text);
		s->remap_budget_us = u64;
		return TP_OK;
	case K_REMAP_MEMORY:
		rc = tp_units_parse_bytes(name, text, &u64, err);
		if (rc != TP_OK)
			return rc;
		if (u64 < TP_CONFIG_MIN_REMAP_MEMORY ||
		    u64 > TP_CONFIG_MAX_REMAP_MEMORY)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s' is outside 16MiB..16GiB",
			                    name, text);
		s->remap_memory_bytes = u64;
		return TP_OK;
	case K_THROTTLE_OBJECTIVE:
		return tp_throttle_objective_parse(text, &s->throttle_objective,
		                                   err);
	case K_PROFILE_RECORD:
		return tp_record_mode_parse(text, &s->record.mode,
		                            &s->record.sample_every, err);
	case K_PROFILE_RECORD_ALLOW_USER_OFF:
		return parse_bool(name, text, &s->record.allow_user_off, err);
	case K_PROFILE_RECORD_EXCLUDE: {
		/* The names point into this copy, owned by the config. */
		size_t len = strlen(text);
		char *names = own(cfg, text, len);

		if (!names)
			return tp_error_set(err, TP_ERR_NOMEM, "%s: no memory",
			                    name);
		return tp_record_exclude_parse(text, names, len + 1,
		                               &s->record, err);
	}
	case K_LEAF_WAIT_MAX:
		/* none: whole-leaf jobs wait as long as it takes; else
		 * 1s..3600s (units.h's bound on any duration). */
		return parse_wait_bound(name, text, &s->leaf_wait_max_us, err);
	case K_ISOLATION_WAIT_MAX:
		/* none: jobs wait for hosts apart from incompatible ones as
		 * long as it takes; else 1s..3600s, as LeafWaitMax. */
		return parse_wait_bound(name, text, &s->isolation_wait_max_us,
		                        err);
	case K_LEAF_REMAINDER: {
		char lower[16];

		lower_copy(lower, sizeof(lower), text);
		if (strlen(text) < sizeof(lower) &&
		    tp_leaf_remainder_parse(lower, &s->leaf_remainder, NULL) ==
		        TP_OK)
			return TP_OK;
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%.64s' is not a leaf remainder rule "
		                    "(expected one of %s)",
		                    name, text, TP_LEAF_REMAINDER_CHOICES);
	}
	case K_COUNT:
		break;
	}
#undef CHOICE
	return tp_error_set(err, TP_ERR_INTERNAL, "%s: no parser", name);
}

/* Copy the field of @key from @src to @dst (a partition's override). */
static void copy_setting(enum key_id key, tp_config_settings *dst,
                         const tp_config_settings *src)
{
	switch (key) {
	case K_DEFAULT_PLACEMENT:
		dst->default_placement = src->default_placement;
		break;
	case K_LEAF_SHARING:
		dst->leaf_sharing = src->leaf_sharing;
		break;
	case K_IO_HEAVY_MIN_BYTES:
		dst->thresholds.io_bytes_min = src->thresholds.io_bytes_min;
		break;
	case K_IO_HEAVY_CLIENT_RATE:
		dst->thresholds.io_client_bytes_per_s_min =
		    src->thresholds.io_client_bytes_per_s_min;
		break;
	case K_IO_HEAVY_REFERENCE_CLIENTS:
		dst->thresholds.io_reference_clients =
		    src->thresholds.io_reference_clients;
		break;
	case K_COMM_MAX_MESSAGE:
		dst->thresholds.comm_small_message_bytes_max =
		    src->thresholds.comm_small_message_bytes_max;
		break;
	case K_COMM_MESSAGE_RATE:
		dst->thresholds.comm_messages_per_s_per_rank_min =
		    src->thresholds.comm_messages_per_s_per_rank_min;
		break;
	case K_COMM_BYTE_RATE:
		dst->thresholds.comm_bytes_per_s_per_rank_min =
		    src->thresholds.comm_bytes_per_s_per_rank_min;
		break;
	case K_IOSERVER_POLICY:
		dst->ioserver_policy = src->ioserver_policy;
		dst->ioserver_auto = src->ioserver_auto;
		break;
	case K_IOSERVER_COUNT:
		dst->ioserver_count = src->ioserver_count;
		break;
	case K_THRESHOLD_TABLE:
		dst->threshold_table = src->threshold_table;
		break;
	case K_THROTTLE_MODE:
		dst->throttle_mode = src->throttle_mode;
		break;
	case K_THROTTLE_CLASSES:
		memcpy(dst->throttle_classes, src->throttle_classes,
		       sizeof(dst->throttle_classes));
		dst->throttle_class_count = src->throttle_class_count;
		break;
	case K_THROTTLE_MIN_WINDOW:
		dst->throttle_min_window_us = src->throttle_min_window_us;
		break;
	case K_THROTTLE_MAX_WINDOW:
		dst->throttle_max_window_us = src->throttle_max_window_us;
		break;
	case K_THROTTLE_ALLOW_USER_OFF:
		dst->throttle_allow_user_off = src->throttle_allow_user_off;
		break;
	case K_DECISION_BUDGET:
		dst->decision_budget_us = src->decision_budget_us;
		break;
	case K_RANK_REMAP:
		dst->rank_remap = src->rank_remap;
		break;
	case K_REMAP_BUDGET:
		dst->remap_budget_us = src->remap_budget_us;
		break;
	case K_REMAP_MEMORY:
		dst->remap_memory_bytes = src->remap_memory_bytes;
		break;
	case K_THROTTLE_OBJECTIVE:
		dst->throttle_objective = src->throttle_objective;
		break;
	case K_PROFILE_RECORD:
		dst->record.mode = src->record.mode;
		dst->record.sample_every = src->record.sample_every;
		break;
	case K_PROFILE_RECORD_ALLOW_USER_OFF:
		dst->record.allow_user_off = src->record.allow_user_off;
		break;
	case K_PROFILE_RECORD_EXCLUDE:
		memcpy(dst->record.exclude, src->record.exclude,
		       sizeof(dst->record.exclude));
		dst->record.exclude_count = src->record.exclude_count;
		break;
	case K_LEAF_WAIT_MAX:
		dst->leaf_wait_max_us = src->leaf_wait_max_us;
		break;
	case K_ISOLATION_WAIT_MAX:
		dst->isolation_wait_max_us = src->isolation_wait_max_us;
		break;
	case K_LEAF_REMAINDER:
		dst->leaf_remainder = src->leaf_remainder;
		break;
	default:
		break; /* site-wide keys never reach a partition */
	}
}

/* ---- lines ----------------------------------------------------------- */

struct parser {
	tp_config *cfg;
	const char *origin;
	unsigned line;
	struct partition *part; /* the current PartitionName line, or NULL */
	tp_error *err;          /* = &current: each error is built here */
	tp_error current;
	/* Every error of the file, not only the first: an admin fixes them
	 * in one pass.  @each sees each one as it is found. */
	tp_config_error_fn each;
	void *each_ctx;
	unsigned errors;
	tp_error first;
};

/*
 * Count the error just built in p->current (keep the first, tell @each),
 * so parsing goes on with the next line.  Returns whether parsing can go
 * on: not after running out of memory.
 */
static bool note_error(struct parser *p, tp_status rc)
{
	if (rc == TP_OK)
		return true;
	if (p->errors++ == 0)
		p->first = p->current;
	if (p->each)
		p->each(p->each_ctx, &p->current);
	return rc != TP_ERR_NOMEM;
}

/* "<origin>: line N: " in front of the message already in err. */
static tp_status at_line(struct parser *p, tp_status rc)
{
	if (p->err) {
		p->err->code = rc;
		tp_error_prefix(p->err, "%s: line %u", p->origin, p->line);
	}
	return rc;
}

static int find_key(const char *text)
{
	for (int i = 0; i < K_COUNT; i++) {
		if (!strcasecmp(text, key_names[i]))
			return i;
	}
	return -1;
}

/*
 * A key @text is a shortened form of ("Placement" for DefaultPlacement,
 * "MinWindow" for ThrottleMinWindow), for the unknown-key message.
 */
static const char *similar_key(const char *text)
{
	size_t len = strlen(text);

	for (int i = 0; len >= 4 && i < K_COUNT; i++) {
		size_t key_len = strlen(key_names[i]);

		if (key_len > len &&
		    !strcasecmp(key_names[i] + key_len - len, text))
			return key_names[i];
	}
	return NULL;
}

static bool valid_partition_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > TP_CONFIG_PARTITION_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.' && c != '+')
			return false;
	}
	return true;
}

static tp_status start_partition(struct parser *p, const char *name)
{
	tp_config *cfg = p->cfg;
	struct partition *part;

	if (!*name)
		return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
		                               "PartitionName: empty value"));
	if (!strcasecmp(name, "DEFAULT"))
		return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
		                               "PartitionName=%s: site-wide "
		                               "defaults go on lines without "
		                               "PartitionName",
		                               name));
	if (!valid_partition_name(name))
		return at_line(
		    p, tp_error_set(p->err, TP_ERR_INVALID,
		                    "PartitionName: '%.80s' is not a "
		                    "partition name ([A-Za-z0-9_.+-], "
		                    "at most %u characters)",
		                    name, TP_CONFIG_PARTITION_NAME_MAX));
	for (size_t i = 0; i < cfg->part_count; i++) {
		if (!strcmp(cfg->parts[i].name, name))
			return at_line(p,
			               tp_error_set(p->err, TP_ERR_PARSE,
			                            "PartitionName=%s: already "
			                            "given on line %u",
			                            name, cfg->parts[i].line));
	}
	if (cfg->part_count == TP_CONFIG_MAX_PARTITIONS)
		return at_line(p, tp_error_set(p->err, TP_ERR_LIMIT,
		                               "PartitionName=%s: more than %u "
		                               "partitions",
		                               name, TP_CONFIG_MAX_PARTITIONS));
	if (cfg->part_count == cfg->part_cap) {
		size_t cap = cfg->part_cap ? cfg->part_cap * 2 : 4;
		struct partition *grown =
		    realloc(cfg->parts, cap * sizeof(*grown));

		if (!grown)
			return at_line(p, tp_error_set(p->err, TP_ERR_NOMEM,
			                               "out of memory"));
		cfg->parts = grown;
		cfg->part_cap = cap;
	}
	part = &cfg->parts[cfg->part_count];
	memset(part, 0, sizeof(*part));
	part->name = strdup(name);
	if (!part->name)
		return at_line(
		    p, tp_error_set(p->err, TP_ERR_NOMEM, "out of memory"));
	part->line = p->line;
	settings_defaults(&part->overrides);
	cfg->part_count++;
	p->part = part;
	return TP_OK;
}

/* One Key=Value pair; @first: it starts the line. */
static tp_status handle_pair(struct parser *p, char *key_text, char *value,
                             bool first)
{
	unsigned *key_line;
	int key;
	tp_status rc;

	if (!*key_text)
		return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
		                               "'=%.80s': missing key before "
		                               "'='",
		                               value));
	if (!strcasecmp(key_text, "PartitionName")) {
		if (!first)
			return at_line(p,
			               tp_error_set(p->err, TP_ERR_PARSE,
			                            "PartitionName: must start "
			                            "its line"));
		return start_partition(p, value);
	}
	key = find_key(key_text);
	if (key < 0) {
		const char *hint = similar_key(key_text);

		return at_line(
		    p, tp_error_set(p->err, TP_ERR_PARSE,
		                    "%.80s: unknown key%s%s%s", key_text,
		                    hint ? " (did you mean " : "",
		                    hint ? hint : "", hint ? "?)" : ""));
	}
	if (!*value)
		return at_line(p,
		               tp_error_set(p->err, TP_ERR_PARSE,
		                            "%s: empty value", key_names[key]));
	if (p->part && key < K_FIRST_PARTITION_KEY)
		return at_line(p,
		               tp_error_set(p->err, TP_ERR_PARSE,
		                            "%s: site-wide only, cannot be set "
		                            "for PartitionName=%s",
		                            key_names[key], p->part->name));
	key_line =
	    p->part ? &p->part->key_line[key] : &p->cfg->site_key_line[key];
	if (*key_line) {
		if (*key_line == p->line)
			return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
			                               "%s: given twice on "
			                               "this line",
			                               key_names[key]));
		return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
		                               "%s: already set on line %u",
		                               key_names[key], *key_line));
	}
	rc = parse_value(p->cfg, (enum key_id)key, value, &p->cfg->site,
	                 p->part ? &p->part->overrides : &p->cfg->defaults,
	                 p->err);
	if (rc != TP_OK)
		return at_line(p, rc);
	*key_line = p->line;
	return TP_OK;
}

static bool has_overrides(const struct partition *part)
{
	for (int k = K_FIRST_PARTITION_KEY; k < K_COUNT; k++) {
		if (part->key_line[k])
			return true;
	}
	return false;
}

/*
 * One line (NUL-terminated, no newline, modifiable).  Words are separated
 * by blanks; a word with '=' starts a pair, and a value runs on over the
 * following words without '=', so "DecisionBudget=2 parsecs" is one
 * (bad) value rather than a stray word.
 */
static tp_status handle_line(struct parser *p, char *line)
{
	char *hash = strchr(line, '#');
	char *key = NULL, *value = NULL, *value_end = NULL;
	char *s = line;
	bool first = true;
	tp_status rc;

	if (hash)
		*hash = '\0';
	p->part = NULL;
	for (;;) {
		char *word, *end, *eq;

		while (*s == ' ' || *s == '\t')
			s++;
		word = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		end = s;
		if (word == end ||
		    (eq = memchr(word, '=', (size_t)(end - word)))) {
			/* The end of the line or a new pair ends the
			 * previous one. */
			if (key) {
				*value_end = '\0';
				rc = handle_pair(p, key, value, first);
				if (rc != TP_OK)
					return rc;
				first = false;
			}
			if (word == end)
				break;
			*eq = '\0';
			key = word;
			value = eq + 1;
			value_end = end;
		} else if (key) {
			value_end = end;
		} else {
			*end = '\0';
			return at_line(
			    p, tp_error_set(p->err, TP_ERR_PARSE,
			                    "'%.80s' is not Key=Value", word));
		}
		if (*s)
			s++; /* past the blank; value_end keeps its place */
	}
	if (p->part && !has_overrides(p->part))
		return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
		                               "PartitionName=%s overrides "
		                               "nothing",
		                               p->part->name));
	return TP_OK;
}

/* ---- cross-key rules ------------------------------------------------- */

static void format_us(char *buf, size_t size, uint64_t us)
{
	if (us && us % 1000000 == 0)
		snprintf(buf, size, "%llus",
		         (unsigned long long)(us / 1000000));
	else if (us && us % 1000 == 0)
		snprintf(buf, size, "%llums", (unsigned long long)(us / 1000));
	else
		snprintf(buf, size, "%lluus", (unsigned long long)us);
}

static void format_wait_bound(char *buf, size_t size, uint64_t us)
{
	if (us)
		format_us(buf, size, us);
	else
		snprintf(buf, size, "none");
}

/*
 * Rules across keys, for the site defaults (@part NULL) and for each
 * partition's effective settings.  A partition is blamed only for what its
 * own line changed; the site's own errors are found first.
 */
static tp_status check_settings(struct parser *p, const struct partition *part,
                                const tp_config_settings *s)
{
	const unsigned *lines = part ? part->key_line : p->cfg->site_key_line;
	char where[TP_CONFIG_PARTITION_NAME_MAX + 32] = "";

	if (part) {
		p->line = part->line;
		snprintf(where, sizeof(where),
		         "PartitionName=%s: ", part->name);
	}
	if (s->throttle_min_window_us && s->throttle_max_window_us &&
	    s->throttle_min_window_us > s->throttle_max_window_us &&
	    (lines[K_THROTTLE_MIN_WINDOW] || lines[K_THROTTLE_MAX_WINDOW])) {
		char min_text[32], max_text[32];

		if (!part)
			p->line = lines[K_THROTTLE_MIN_WINDOW] >
			                  lines[K_THROTTLE_MAX_WINDOW]
			              ? lines[K_THROTTLE_MIN_WINDOW]
			              : lines[K_THROTTLE_MAX_WINDOW];
		format_us(min_text, sizeof(min_text),
		          s->throttle_min_window_us);
		format_us(max_text, sizeof(max_text),
		          s->throttle_max_window_us);
		return at_line(p,
		               tp_error_set(p->err, TP_ERR_INVALID,
		                            "%sThrottleMinWindow %s is above "
		                            "ThrottleMaxWindow %s",
		                            where, min_text, max_text));
	}
	if ((s->throttle_mode == TP_THROTTLE_ENFORCE_TBF ||
	     s->throttle_mode == TP_THROTTLE_ENFORCE_BOTH) &&
	    !p->cfg->site.tbf_hook && lines[K_THROTTLE_MODE]) {
		if (!part)
			p->line = lines[K_THROTTLE_MODE];
		return at_line(
		    p, tp_error_set(
		           p->err, TP_ERR_INVALID,
		           "%sThrottleMode: '%s' needs "
		           "TbfHook (the command that "
		           "applies TBF rules)",
		           where, tp_throttle_enforce_name(s->throttle_mode)));
	}
	return TP_OK;
}

static tp_status check_site(struct parser *p)
{
	tp_config *cfg = p->cfg;
	const unsigned *lines = cfg->site_key_line;

	if (lines[K_NODE_NAME_MAP] && !lines[K_NODE_NAME_RULE])
		cfg->site.node_name_rule = TP_NODE_NAME_MAP;
	if (cfg->site.node_name_rule == TP_NODE_NAME_MAP &&
	    !cfg->site.node_name_map) {
		p->line = lines[K_NODE_NAME_RULE];
		return at_line(p, tp_error_set(p->err, TP_ERR_INVALID,
		                               "NodeNameRule: 'map' needs "
		                               "NodeNameMap"));
	}
	if (cfg->site.node_name_rule == TP_NODE_NAME_FIRST_WORD &&
	    cfg->site.node_name_map) {
		p->line = lines[K_NODE_NAME_MAP];
		return at_line(p, tp_error_set(p->err, TP_ERR_INVALID,
		                               "NodeNameMap: set, but "
		                               "NodeNameRule=first-word (line "
		                               "%u) does not use it",
		                               lines[K_NODE_NAME_RULE]));
	}
	return check_settings(p, NULL, &cfg->defaults);
}

/* IoServerPolicy=auto: the policy for the site's Routing, known only
 * once every line is read (Routing may come after it). */
static void resolve_ioserver_policy(const tp_config *cfg, tp_config_settings *s)
{
	if (s->ioserver_auto)
		s->ioserver_policy =
		    tp_ioserver_policy_for_routing(cfg->site.routing);
}

static tp_status finish(struct parser *p)
{
	tp_config *cfg = p->cfg;
	tp_status rc = check_site(p);

	if (!note_error(p, rc))
		return rc;
	resolve_ioserver_policy(cfg, &cfg->defaults);
	for (size_t i = 0; i < cfg->part_count; i++) {
		struct partition *part = &cfg->parts[i];

		part->effective = cfg->defaults;
		for (int k = K_FIRST_PARTITION_KEY; k < K_COUNT; k++) {
			if (part->key_line[k])
				copy_setting((enum key_id)k, &part->effective,
				             &part->overrides);
		}
		resolve_ioserver_policy(cfg, &part->effective);
		rc = check_settings(p, part, &part->effective);
		if (!note_error(p, rc))
			return rc;
	}
	return TP_OK;
}

static const struct partition *find_partition(const tp_config *config,
                                              const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < config->part_count; i++) {
		if (!strcmp(config->parts[i].name, name))
			return &config->parts[i];
	}
	return NULL;
}

/* ---- writing
 * --------------------------------------------------------- */

/* A byte count as the file would spell it: "4M", "512K", "1000". */
static void format_bytes(char *buf, size_t size, double value)
{
	static const struct {
		const char *suffix;
		uint64_t unit;
	} units[] = {{"G", 1ull << 30}, {"M", 1ull << 20}, {"K", 1024}};
	uint64_t bytes;

	if (!(value >= 0 && value < 9007199254740992.0) ||
	    value != (double)(uint64_t)value) {
		snprintf(buf, size, "%.17g", value);
		return;
	}
	bytes = (uint64_t)value;
	for (size_t i = 0; i < COUNT_OF(units); i++) {
		if (bytes && bytes % units[i].unit == 0) {
			snprintf(buf, size, "%llu%s",
			         (unsigned long long)(bytes / units[i].unit),
			         units[i].suffix);
			return;
		}
	}
	snprintf(buf, size, "%llu", (unsigned long long)bytes);
}

static void format_age(char *buf, size_t size, int64_t seconds)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}};

	for (size_t i = 0; i < COUNT_OF(units); i++) {
		if (seconds && seconds % units[i].seconds == 0) {
			snprintf(buf, size, "%lld%c",
			         (long long)(seconds / units[i].seconds),
			         units[i].unit);
			return;
		}
	}
	snprintf(buf, size, seconds ? "%llds" : "%lld", (long long)seconds);
}

static const char *or_none(const char *text)
{
	return text ? text : "none";
}

/* The value of @key in @site / @s as the file would spell it. */
static void value_text(enum key_id key, const tp_config_site *site,
                       const tp_config_settings *s, char *buf, size_t size)
{
	const tp_jobclass_thresholds *t = &s->thresholds;

	switch (key) {
	case K_FABRIC_SOURCE:
		snprintf(buf, size, "%s",
		         tp_config_fabric_source_name(site->fabric_source));
		break;
	case K_FABRIC_CACHE:
		snprintf(buf, size, "%s", site->fabric_cache);
		break;
	case K_TOPOLOGY_CONF:
		snprintf(buf, size, "%s", site->topology_conf);
		break;
	case K_NODE_NAME_RULE:
		snprintf(buf, size, "%s",
		         tp_node_name_rule_name(site->node_name_rule));
		break;
	case K_NODE_NAME_MAP:
		snprintf(buf, size, "%s", or_none(site->node_name_map));
		break;
	case K_PROFILE_STORE:
		snprintf(buf, size, "%s", site->profile_store);
		break;
	case K_PROFILE_KEEP:
		snprintf(buf, size, "%u", site->profile_keep);
		break;
	case K_PROFILE_MAX_AGE:
		format_age(buf, size, site->profile_max_age_s);
		break;
	case K_PROFILE_LOOKUP_TIMEOUT:
		format_us(buf, size, site->profile_lookup_timeout_us);
		break;
	case K_TBF_HOOK:
		snprintf(buf, size, "%s", or_none(site->tbf_hook));
		break;
	case K_IOSERVER_HOSTS:
		snprintf(buf, size, "%s", or_none(site->ioserver_hosts));
		break;
	case K_ROUTING:
		snprintf(buf, size, "%s", tp_routing_name(site->routing));
		break;
	case K_DEBUG_FLAGS:
		tp_config_debug_flags_format(site->debug_flags, buf, size);
		break;
	case K_DEFAULT_PLACEMENT:
		snprintf(buf, size, "%s",
		         tp_placement_name(s->default_placement));
		break;
	case K_LEAF_SHARING:
		snprintf(buf, size, "%s",
		         tp_leaf_sharing_name(s->leaf_sharing));
		break;
	case K_IO_HEAVY_MIN_BYTES:
		format_bytes(buf, size, (double)t->io_bytes_min);
		break;
	case K_IO_HEAVY_CLIENT_RATE:
		format_bytes(buf, size, t->io_client_bytes_per_s_min);
		break;
	case K_IO_HEAVY_REFERENCE_CLIENTS:
		snprintf(buf, size, "%u", t->io_reference_clients);
		break;
	case K_COMM_MAX_MESSAGE:
		format_bytes(buf, size,
		             (double)t->comm_small_message_bytes_max);
		break;
	case K_COMM_MESSAGE_RATE:
		snprintf(buf, size, "%.17g",
		         t->comm_messages_per_s_per_rank_min);
		break;
	case K_COMM_BYTE_RATE:
		format_bytes(buf, size, t->comm_bytes_per_s_per_rank_min);
		break;
	case K_IOSERVER_POLICY:
		snprintf(buf, size, "%s",
		         s->ioserver_auto
		             ? "auto"
		             : tp_ioserver_policy_name(s->ioserver_policy));
		break;
	case K_IOSERVER_COUNT:
		snprintf(buf, size, "%u", s->ioserver_count);
		break;
	case K_THRESHOLD_TABLE:
		snprintf(buf, size, "%s", or_none(s->threshold_table));
		break;
	case K_THROTTLE_MODE:
		snprintf(buf, size, "%s",
		         tp_throttle_enforce_name(s->throttle_mode));
		break;
	case K_THROTTLE_CLASSES: {
		size_t used = 0;

		snprintf(buf, size, "none");
		for (size_t i = 0; i < s->throttle_class_count; i++) {
			int n = snprintf(buf + used, size - used, "%s%s",
			                 i ? "," : "", s->throttle_classes[i]);
			if (n < 0 || (size_t)n >= size - used)
				break;
			used += (size_t)n;
		}
		break;
	}
	case K_THROTTLE_MIN_WINDOW:
	case K_THROTTLE_MAX_WINDOW: {
		uint64_t us = key == K_THROTTLE_MIN_WINDOW
		                  ? s->throttle_min_window_us
		                  : s->throttle_max_window_us;
		if (us)
			format_us(buf, size, us);
		else
			snprintf(buf, size, "none");
		break;
	}
	case K_THROTTLE_ALLOW_USER_OFF:
		snprintf(buf, size, "%s",
		         s->throttle_allow_user_off ? "yes" : "no");
		break;
	case K_DECISION_BUDGET:
		format_us(buf, size, s->decision_budget_us);
		break;
	case K_RANK_REMAP:
		snprintf(buf, size, "%s", tp_rank_remap_name(s->rank_remap));
		break;
	case K_REMAP_BUDGET:
		format_us(buf, size, s->remap_budget_us);
		break;
	case K_REMAP_MEMORY:
		format_bytes(buf, size, (double)s->remap_memory_bytes);
		break;
	case K_THROTTLE_OBJECTIVE:
		tp_throttle_objective_format(&s->throttle_objective, buf, size);
		break;
	case K_PROFILE_RECORD:
		tp_record_mode_format(s->record.mode, s->record.sample_every,
		                      buf, size);
		break;
	case K_PROFILE_RECORD_ALLOW_USER_OFF:
		snprintf(buf, size, "%s",
		         s->record.allow_user_off ? "yes" : "no");
		break;
	case K_PROFILE_RECORD_EXCLUDE: {
		size_t used = 0;

		snprintf(buf, size, "none");
		for (size_t i = 0; i < s->record.exclude_count; i++) {
			int n = snprintf(buf + used, size - used, "%s%s",
			                 i ? "," : "", s->record.exclude[i]);
			if (n < 0 || (size_t)n >= size - used)
				break;
			used += (size_t)n;
		}
		break;
	}
	case K_LEAF_WAIT_MAX:
		format_wait_bound(buf, size, s->leaf_wait_max_us);
		break;
	case K_ISOLATION_WAIT_MAX:
		format_wait_bound(buf, size, s->isolation_wait_max_us);
		break;
	case K_LEAF_REMAINDER:
		snprintf(buf, size, "%s",
		         tp_leaf_remainder_name(s->leaf_remainder));
		break;
	case K_COUNT:
		buf[0] = '\0';
		break;
	}
}

tp_status tp_config_each_setting(const tp_config *config, const char *partition,
                                 tp_config_setting_fn each, void *ctx,
                                 tp_error *err)
{
	const struct partition *part = NULL;
	const tp_config_settings *s = &config->defaults;
	int first = K_FABRIC_SOURCE;
	char value[TP_CONFIG_MAX_PATH + 64];

	if (partition) {
		part = find_partition(config, partition);
		if (!part)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "%s: no PartitionName=%s",
			                    config->origin, partition);
		s = &part->effective;
		first = K_FIRST_PARTITION_KEY;
	}
	for (int k = first; k < K_COUNT; k++) {
		const unsigned part_line = part ? part->key_line[k] : 0;
		const unsigned site_line = config->site_key_line[k];

		value_text((enum key_id)k, &config->site, s, value,
		           sizeof(value));
		if (part_line)
			each(ctx, key_names[k], value, TP_CONFIG_FROM_PARTITION,
			     part_line);
		else if (site_line)
			each(ctx, key_names[k], value, TP_CONFIG_FROM_SITE,
			     site_line);
		else
			each(ctx, key_names[k], value, TP_CONFIG_FROM_DEFAULT,
			     0);
	}
	return TP_OK;
}

const char *tp_config_setting_origin_name(tp_config_setting_origin origin)
{
	switch (origin) {
	case TP_CONFIG_FROM_SITE:
		return "site";
	case TP_CONFIG_FROM_PARTITION:
		return "partition";
	case TP_CONFIG_FROM_DEFAULT:
		break;
	}
	return "default";
}

/* tp_config_write_settings' line writer. */
struct settings_out {
	FILE *out;
	bool indent; /* a partition's block */
};

static void write_setting(void *ctx, const char *key, const char *value,
                          tp_config_setting_origin origin, unsigned line)
{
	const struct settings_out *o = ctx;

	fprintf(o->out, "%s%s=%s", o->indent ? "    " : "", key, value);
	if (origin == TP_CONFIG_FROM_PARTITION)
		fprintf(o->out, "  # this partition, line %u\n", line);
	else if (origin == TP_CONFIG_FROM_SITE)
		fprintf(o->out, "  # %sline %u\n",
		        o->indent ? "site-wide, " : "", line);
	else
		fprintf(o->out, "  # default\n");
}

tp_status tp_config_write_settings(const tp_config *config,
                                   const char *partition, FILE *out,
                                   tp_error *err)
{
	struct settings_out o = {out, partition != NULL};
	tp_status st;

	if (partition) {
		const struct partition *part =
		    find_partition(config, partition);

		if (!part)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "%s: no PartitionName=%s",
			                    config->origin, partition);
		fprintf(out, "PartitionName=%s\n", part->name);
	}
	st = tp_config_each_setting(config, partition, write_setting, &o, err);
	if (st != TP_OK)
		return st;
	if (ferror(out))
		return tp_error_set(err, TP_ERR_IO,
		                    "%s: writing the settings failed",
		                    config->origin);
	return TP_OK;
}

/* ---- entry points
 * ---------------------------------------------------- */

tp_status tp_config_parse_each(const char *text, size_t len, const char *origin,
                               tp_config_error_fn each, void *each_ctx,
                               tp_config **config, tp_error *err)
{
	struct parser p = {0};
	char line[TP_CONFIG_MAX_LINE + 1];
	size_t pos = 0;
	tp_status rc = TP_OK;

	if (!config || (!text && len))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "topoplace.conf: NULL text or result");
	if (!origin)
		origin = "topoplace.conf";
	if (len > TP_CONFIG_MAX_BYTES)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: %zu bytes, larger than the limit of "
		                    "%u",
		                    origin, len, TP_CONFIG_MAX_BYTES);
	p.cfg = config_new(origin);
	if (!p.cfg)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    origin);
	p.origin = p.cfg->origin;
	p.err = &p.current;
	p.each = each;
	p.each_ctx = each_ctx;
	while (pos < len) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - start) : len - pos;

		p.line++;
		pos += line_len + (nl ? 1 : 0);
		if (line_len && start[line_len - 1] == '\r')
			line_len--; /* edited on Windows */
		rc = TP_OK;
		if (line_len > TP_CONFIG_MAX_LINE)
			rc = at_line(&p, tp_error_set(p.err, TP_ERR_LIMIT,
			                              "longer than %u bytes",
			                              TP_CONFIG_MAX_LINE));
		for (size_t i = 0; rc == TP_OK && i < line_len; i++) {
			unsigned char c = (unsigned char)start[i];

			if (c < 0x20 && c != '\t')
				rc = at_line(&p,
				             tp_error_set(p.err, TP_ERR_PARSE,
				                          "control character "
				                          "0x%02x (not a text "
				                          "file?)",
				                          c));
		}
		if (rc == TP_OK) {
			memcpy(line, start, line_len);
			line[line_len] = '\0';
			rc = handle_line(&p, line);
		}
		/* A bad line is counted and skipped: the next ones are still
		 * checked, so one run lists every error. */
		if (!note_error(&p, rc))
			break;
	}
	/* Cross-key rules only mean something for a file whose lines read. */
	if (p.errors == 0)
		finish(&p);
	if (p.errors) {
		tp_config_free(p.cfg);
		if (err) {
			*err = p.first;
			if (p.errors > 1)
				tp_error_prefix(err, "%u errors, the first",
				                p.errors);
		}
		return p.first.code;
	}
	*config = p.cfg;
	return TP_OK;
}

tp_status tp_config_parse(const char *text, size_t len, const char *origin,
                          tp_config **config, tp_error *err)
{
	return tp_config_parse_each(text, len, origin, NULL, NULL, config, err);
}

tp_status tp_config_load_each(const char *path, tp_config_error_fn each,
                              void *each_ctx, tp_config **config, tp_error *err)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	tp_status rc;
	int fd;

	if (!path || !config)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "topoplace.conf: NULL path or result");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
		                    strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return tp_error_set(err, TP_ERR_IO, "%s: not a regular file",
		                    path);
	}
	if (st.st_size > (off_t)TP_CONFIG_MAX_BYTES) {
		close(fd);
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: %lld bytes, larger than the limit of "
		                    "%u",
		                    path, (long long)st.st_size,
		                    TP_CONFIG_MAX_BYTES);
	}
	/* One byte more than the limit tells a file that grew
	 * meanwhile. */
	buf = malloc(TP_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, TP_CONFIG_MAX_BYTES + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = tp_error_set(err, TP_ERR_IO, "%s: read: %s", path,
			                  strerror(errno));
			free(buf);
			close(fd);
			return rc;
		}
		if (n == 0 || len + (size_t)n > TP_CONFIG_MAX_BYTES) {
			len += (size_t)n;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	rc = tp_config_parse_each(buf, len, path, each, each_ctx, config, err);
	free(buf);
	return rc;
}

tp_status tp_config_load(const char *path, tp_config **config, tp_error *err)
{
	return tp_config_load_each(path, NULL, NULL, config, err);
}

const char *tp_config_origin(const tp_config *config)
{
	return config ? config->origin : NULL;
}

const tp_config_site *tp_config_site_settings(const tp_config *config)
{
	return &config->site;
}

const tp_config_settings *tp_config_defaults(const tp_config *config)
{
	return &config->defaults;
}

const tp_config_settings *tp_config_for_partition(const tp_config *config,
                                                  const char *partition)
{
	const struct partition *part = find_partition(config, partition);

	return part ? &part->effective : &config->defaults;
}

size_t tp_config_partition_count(const tp_config *config)
{
	return config->part_count;
}

unsigned tp_config_partition_line(const tp_config *config, size_t i)
{
	return config && i < config->part_count ? config->parts[i].line : 0;
}

const char *tp_config_partition_name(const tp_config *config, size_t i)
{
	return i < config->part_count ? config->parts[i].name : NULL;
}

bool tp_config_partition_sets(const tp_config *config, const char *partition,
                              const char *key)
{
	const struct partition *part = find_partition(config, partition);
	int k = key ? find_key(key) : -1;

	return part && k >= 0 && part->key_line[k] != 0;
}

tp_placement tp_config_resolve_placement(const tp_config_settings *settings,
                                         tp_placement requested,
                                         bool has_profile)
{
	tp_placement placement = requested;

	if (placement == TP_PLACEMENT_AUTO)
		placement = settings->default_placement;
	if (placement == TP_PLACEMENT_AUTO)
		placement =
		    has_profile ? TP_PLACEMENT_SHARED : TP_PLACEMENT_OFF;
	if (placement == TP_PLACEMENT_SHARED) {
		if (settings->leaf_sharing == TP_LEAF_SHARING_NEVER)
			placement = TP_PLACEMENT_LEAF;
		else if (settings->leaf_sharing == TP_LEAF_SHARING_ALWAYS)
			placement = TP_PLACEMENT_PACK;
	}
	return placement;
}

void tp_config_throttle_policy(const tp_config_settings *settings,
                               tp_throttle_policy *policy)
{
	memset(policy, 0, sizeof(*policy));
	policy->min_window_us = settings->throttle_min_window_us;
	policy->max_window_us = settings->throttle_max_window_us;
	/* ThrottleMode=off: nothing is throttled automatically. */
	policy->classes = settings->throttle_classes;
	policy->class_count = settings->throttle_mode == TP_THROTTLE_ENFORCE_OFF
	                          ? 0
	                          : settings->throttle_class_count;
	policy->allow_user_off = settings->throttle_allow_user_off;
	policy->objective = settings->throttle_objective;
}

void tp_config_store_options(const tp_config *config, tp_store_options *options)
{
	options->root = config->site.profile_store;
	options->keep = config->site.profile_keep;
	options->max_age_s = config->site.profile_max_age_s;
}

void tp_config_record_policy(const tp_config *config,
                             const tp_config_settings *settings,
                             tp_record_policy *policy)
{
	*policy = settings->record;
	policy->max_age_s = config->site.profile_max_age_s;
}

/*
 * One ThresholdTable, named on @line of the file (0: inherited, said as
 * such): readable and a valid table.
 */
static tp_status check_table(const tp_config *config, const char *path,
                             unsigned line, const char *where, tp_error *err)
{
	tp_threshold_table *table = NULL;
	tp_error inner;

	if (!path)
		return TP_OK;
	if (tp_threshold_table_read(path, &table, &inner) != TP_OK) {
		if (line)
			return tp_error_set(err, inner.code,
			                    "%s: line %u: %s: %s", config->origin,
			                    line, key_names[K_THRESHOLD_TABLE],
			                    inner.message);
		return tp_error_set(err, inner.code, "%s: %s%s: %s",
		                    config->origin, where,
		                    key_names[K_THRESHOLD_TABLE], inner.message);
	}
	tp_threshold_table_free(table);
	return TP_OK;
}

tp_status tp_config_check_files(const tp_config *config, tp_error *err)
{
	tp_status rc = check_table(config, config->defaults.threshold_table,
	                           config->site_key_line[K_THRESHOLD_TABLE],
	                           "", err);

	for (size_t i = 0; rc == TP_OK && i < config->part_count; i++) {
		const struct partition *part = &config->parts[i];

		/* Inherited from the site: checked once above. */
		if (!part->key_line[K_THRESHOLD_TABLE])
			continue;
		rc = check_table(config, part->effective.threshold_table,
		                 part->key_line[K_THRESHOLD_TABLE], "", err);
	}
	return rc;
}
