/*
 * topoplace_conf.c: the topoplace.conf parser (see topoplace_conf.h).
 *
 * Every key is one row of `keys` below: its name, whether a partition may
 * set it, the field its value lives in, its kind (how the value is parsed
 * and written back) and its default.  Parsing, defaults, a partition's
 * overrides and `topoplace config` all walk that table, so adding a key is
 * adding its field, its row and its paragraph in topoplace.conf(5).  The
 * rules between keys (NodeNameRule and NodeNameMap, window bounds,
 * ThrottleMode and TbfHook, IoServerPolicy=auto) are named functions run
 * once the whole file is read.
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
#include "topoplace_conf_keys.h"
#include "threshold.h"
#include "units.h"

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

/* ---- how values are written ---------------------------------------- */

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

/* ---- the key table's row --------------------------------------------- */

struct key;

/*
 * A kind of value: @parse reads @text into the row's field on @base (a
 * tp_config_site or tp_config_settings), or sets @err to a message that
 * starts with the key (the caller puts "<origin>: line N: " in front);
 * @print writes the field as the file would spell it.
 */
struct kind {
	tp_status (*parse)(tp_config *cfg, const struct key *key,
	                   const char *text, void *base, tp_error *err);
	void (*print)(const struct key *key, const void *base, char *buf,
	              size_t size);
};

/* What a kind needs beyond the key's name; unused members stay zero. */
struct key_arg {
	const char *const *names; /* choice: the spellings, by value */
	size_t count;
	uint64_t min, max; /* counts, durations, bytes: max 0 = no bound */
	bool zero_ok;      /* "0" is accepted (for "none" with durations) */
	const char *over;  /* what the message says when the value is past
	                      max ("1s (slurmctld holds its locks ...)") */
};

struct key {
	const char *name;
	bool per_partition; /* also on PartitionName lines */
	size_t offset, size;
	const struct kind *kind;
	struct key_arg arg;
	/* The default: copied from @def, the first @size bytes of the member
	 * the row initializes, unless @set_default writes it (values of
	 * several fields, or owned by another module). */
	union {
		int choice;
		bool yes;
		uint32_t u32;
		uint64_t u64;
		int64_t i64;
		const char *text;
	} def;
	void (*set_default)(const struct key *key, void *base);
};

static void *field_of(const struct key *key, void *base)
{
	return (char *)base + key->offset;
}

static const void *const_field_of(const struct key *key, const void *base)
{
	return (const char *)base + key->offset;
}

/* Forward: owned strings live in the tp_config defined after the table. */
static char *own(tp_config *cfg, const char *text, size_t len);

/* ---- value parsers and printers -------------------------------------- */

static void lower_copy(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < size; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

/* One of key->arg.names, case-insensitive, into an enum field. */
static tp_status parse_choice(tp_config *cfg, const struct key *key,
                              const char *text, void *base, tp_error *err)
{
	const char *const *names = key->arg.names;
	char choices[128] = "";
	size_t used = 0;

	(void)cfg;
	for (size_t i = 0; i < key->arg.count; i++) {
		if (!strcasecmp(text, names[i])) {
			*(int *)field_of(key, base) = (int)i;
			return TP_OK;
		}
	}
	for (size_t i = 0; i < key->arg.count; i++) {
		int n = snprintf(choices + used, sizeof(choices) - used, "%s%s",
		                 i ? "|" : "", names[i]);
		if (n < 0 || (size_t)n >= sizeof(choices) - used)
			break;
		used += (size_t)n;
	}
	return tp_error_set(err, TP_ERR_INVALID, "%s: '%.80s' is not one of %s",
	                    key->name, text, choices);
}

static void print_choice(const struct key *key, const void *base, char *buf,
                         size_t size)
{
	snprintf(buf, size, "%s",
	         name_at(key->arg.names, key->arg.count,
	                 *(const int *)const_field_of(key, base)));
}

static const struct kind kind_choice = {parse_choice, print_choice};

/* The module parsers take exact lower case; the file is case-insensitive. */
static tp_status parse_placement(tp_config *cfg, const struct key *key,
                                 const char *text, void *base, tp_error *err)
{
	tp_placement *value = field_of(key, base);
	char lower[32];

	(void)cfg;
	lower_copy(lower, sizeof(lower), text);
	if (strlen(text) < sizeof(lower) &&
	    tp_placement_parse(lower, value, NULL) == TP_OK)
		return TP_OK;
	tp_placement_parse(text, value, err);
	return tp_error_prefix(err, "%s", key->name);
}

static void print_placement(const struct key *key, const void *base, char *buf,
                            size_t size)
{
	const tp_placement *value = const_field_of(key, base);

	snprintf(buf, size, "%s", tp_placement_name(*value));
}

static const struct kind kind_placement = {parse_placement, print_placement};

static tp_status parse_routing(tp_config *cfg, const struct key *key,
                               const char *text, void *base, tp_error *err)
{
	char lower[16];

	(void)cfg;
	lower_copy(lower, sizeof(lower), text);
	if (strlen(text) < sizeof(lower) &&
	    tp_routing_parse(lower, field_of(key, base), NULL) == TP_OK)
		return TP_OK;
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s: '%.64s' is not a routing kind "
	                    "(expected one of %s)",
	                    key->name, text, TP_ROUTING_CHOICES);
}

static void print_routing(const struct key *key, const void *base, char *buf,
                          size_t size)
{
	const tp_routing *value = const_field_of(key, base);

	snprintf(buf, size, "%s", tp_routing_name(*value));
}

static const struct kind kind_routing = {parse_routing, print_routing};

static tp_status parse_leaf_remainder(tp_config *cfg, const struct key *key,
                                      const char *text, void *base,
                                      tp_error *err)
{
	char lower[16];

	(void)cfg;
	lower_copy(lower, sizeof(lower), text);
	if (strlen(text) < sizeof(lower) &&
	    tp_leaf_remainder_parse(lower, field_of(key, base), NULL) == TP_OK)
		return TP_OK;
	return tp_error_set(err, TP_ERR_INVALID,
	                    "%s: '%.64s' is not a leaf remainder rule "
	                    "(expected one of %s)",
	                    key->name, text, TP_LEAF_REMAINDER_CHOICES);
}

static void print_leaf_remainder(const struct key *key, const void *base,
                                 char *buf, size_t size)
{
	const tp_leaf_remainder *value = const_field_of(key, base);

	snprintf(buf, size, "%s", tp_leaf_remainder_name(*value));
}

static const struct kind kind_leaf_remainder = {parse_leaf_remainder,
                                                print_leaf_remainder};

/* IoServerPolicy: a policy, or auto (resolved from Routing in finish). */
static tp_status parse_ioserver_policy(tp_config *cfg, const struct key *key,
                                       const char *text, void *base,
                                       tp_error *err)
{
	tp_config_settings *s = base;
	char lower[32];

	(void)cfg;
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
	                    key->name, text, TP_IOSERVER_CHOICES);
}

static void print_ioserver_policy(const struct key *key, const void *base,
                                  char *buf, size_t size)
{
	const tp_config_settings *s = base;

	(void)key;
	snprintf(buf, size, "%s",
	         s->ioserver_auto
	             ? "auto"
	             : tp_ioserver_policy_name(s->ioserver_policy));
}

/* auto, as under the default adaptive routing until finish resolves it. */
static void ioserver_policy_default(const struct key *key, void *base)
{
	tp_config_settings *s = base;

	(void)key;
	s->ioserver_auto = true;
	s->ioserver_policy =
	    tp_ioserver_policy_for_routing(TP_ROUTING_ADAPTIVE);
}

static const struct kind kind_ioserver_policy = {parse_ioserver_policy,
                                                 print_ioserver_policy};

static tp_status parse_bool(tp_config *cfg, const struct key *key,
                            const char *text, void *base, tp_error *err)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	bool *value = field_of(key, base);

	(void)cfg;
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
	                    key->name, text);
}

static void print_bool(const struct key *key, const void *base, char *buf,
                       size_t size)
{
	const bool *value = const_field_of(key, base);

	snprintf(buf, size, "%s", *value ? "yes" : "no");
}

static const struct kind kind_boolean = {parse_bool, print_bool};

/*
 * A duration of at least arg.min, at most arg.max when set (the units
 * parser's own bound is one hour), in microseconds.
 */
static tp_status parse_duration(tp_config *cfg, const struct key *key,
                                const char *text, void *base, tp_error *err)
{
	uint64_t us;
	tp_status rc;

	(void)cfg;
	rc =
	    tp_units_parse_duration_us(key->name, text, key->arg.min, &us, err);
	if (rc != TP_OK)
		return rc;
	if (key->arg.max && us > key->arg.max)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%.80s' is over the limit of %s",
		                    key->name, text, key->arg.over);
	*(uint64_t *)field_of(key, base) = us;
	return TP_OK;
}

static void print_duration(const struct key *key, const void *base, char *buf,
                           size_t size)
{
	format_us(buf, size, *(const uint64_t *)const_field_of(key, base));
}

static const struct kind kind_duration = {parse_duration, print_duration};

/*
 * A bound that may be absent: none (also "0" where arg.zero_ok) is 0, else
 * a duration of at least arg.min.
 */
static tp_status parse_bound(tp_config *cfg, const struct key *key,
                             const char *text, void *base, tp_error *err)
{
	uint64_t *bound_us = field_of(key, base);

	(void)cfg;
	if (!strcasecmp(text, "none") ||
	    (key->arg.zero_ok && !strcmp(text, "0"))) {
		*bound_us = 0;
		return TP_OK;
	}
	return tp_units_parse_duration_us(key->name, text, key->arg.min,
	                                  bound_us, err);
}

static void print_bound(const struct key *key, const void *base, char *buf,
                        size_t size)
{
	format_wait_bound(buf, size,
	                  *(const uint64_t *)const_field_of(key, base));
}

static const struct kind kind_bound = {parse_bound, print_bound};

/*
 * A whole number in [arg.min, arg.max] (or "0" where arg.zero_ok: none),
 * into a uint32_t.
 */
static tp_status parse_count(tp_config *cfg, const struct key *key,
                             const char *text, void *base, tp_error *err)
{
	uint32_t *value = field_of(key, base);
	uint64_t count;
	tp_status rc;

	(void)cfg;
	if (key->arg.zero_ok && !strcmp(text, "0")) {
		*value = 0;
		return TP_OK;
	}
	rc = tp_units_parse_count(key->name, text, key->arg.min, key->arg.max,
	                          &count, err);
	if (rc == TP_OK)
		*value = (uint32_t)count;
	return rc;
}

static void print_count(const struct key *key, const void *base, char *buf,
                        size_t size)
{
	snprintf(buf, size, "%u",
	         (unsigned)*(const uint32_t *)const_field_of(key, base));
}

static const struct kind kind_count = {parse_count, print_count};

/* A whole number in [arg.min, arg.max] kept as a double (a rate). */
static tp_status parse_count_real(tp_config *cfg, const struct key *key,
                                  const char *text, void *base, tp_error *err)
{
	uint64_t value;
	tp_status rc;

	(void)cfg;
	rc = tp_units_parse_count(key->name, text, key->arg.min, key->arg.max,
	                          &value, err);
	if (rc == TP_OK)
		*(double *)field_of(key, base) = (double)value;
	return rc;
}

static void print_real(const struct key *key, const void *base, char *buf,
                       size_t size)
{
	snprintf(buf, size, "%.17g",
	         *(const double *)const_field_of(key, base));
}

static const struct kind kind_count_real = {parse_count_real, print_real};

/* A byte count (K/M/G binary suffixes), within [arg.min, arg.max] when
 * arg.max is set (arg.over says the range). */
static tp_status parse_bytes(tp_config *cfg, const struct key *key,
                             const char *text, void *base, tp_error *err)
{
	uint64_t bytes;
	tp_status rc;

	(void)cfg;
	rc = tp_units_parse_bytes(key->name, text, &bytes, err);
	if (rc != TP_OK)
		return rc;
	if (key->arg.max && (bytes < key->arg.min || bytes > key->arg.max))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%.80s' is outside %s", key->name,
		                    text, key->arg.over);
	*(uint64_t *)field_of(key, base) = bytes;
	return TP_OK;
}

static void print_bytes(const struct key *key, const void *base, char *buf,
                        size_t size)
{
	format_bytes(buf, size,
	             (double)*(const uint64_t *)const_field_of(key, base));
}

static const struct kind kind_bytes = {parse_bytes, print_bytes};

/* A rate or size in bytes (K/M/G binary suffixes), as a double. */
static tp_status parse_rate(tp_config *cfg, const struct key *key,
                            const char *text, void *base, tp_error *err)
{
	uint64_t value;
	tp_status rc;

	(void)cfg;
	rc = tp_units_parse_bytes(key->name, text, &value, err);
	if (rc == TP_OK)
		*(double *)field_of(key, base) = (double)value;
	return rc;
}

static void print_rate(const struct key *key, const void *base, char *buf,
                       size_t size)
{
	format_bytes(buf, size, *(const double *)const_field_of(key, base));
}

static const struct kind kind_rate = {parse_rate, print_rate};

/* The classification thresholds' defaults belong to jobclass.c. */
static void threshold_default(const struct key *key, void *base)
{
	tp_jobclass_thresholds defaults;
	size_t at = key->offset - offsetof(tp_config_settings, thresholds);

	tp_jobclass_defaults(&defaults);
	memcpy(field_of(key, base), (const char *)&defaults + at, key->size);
}

static tp_status parse_path(tp_config *cfg, const struct key *key,
                            const char *text, void *base, tp_error *err)
{
	size_t len = strlen(text);
	const char *copy;

	if (text[0] != '/')
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "%s: '%.80s' is not an absolute path "
		    "(daemons do not share a working directory)",
		    key->name, text);
	if (len >= TP_CONFIG_MAX_PATH)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: path longer than %u bytes", key->name,
		                    TP_CONFIG_MAX_PATH - 1);
	for (size_t i = 0; i < len; i++) {
		if (isspace((unsigned char)text[i]))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: '%.80s': paths may not "
			                    "contain spaces",
			                    key->name, text);
	}
	copy = own(cfg, text, len);
	if (!copy)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    key->name);
	*(const char **)field_of(key, base) = copy;
	return TP_OK;
}

/* A path or host list; "none" when unset. */
static void print_text(const struct key *key, const void *base, char *buf,
                       size_t size)
{
	snprintf(buf, size, "%s",
	         or_none(*(const char *const *)const_field_of(key, base)));
}

static const struct kind kind_path = {parse_path, print_text};

/*
 * A Slurm hostlist expression ("oss[01-08],mds1"): checked for its
 * characters and balanced brackets here; the daemons expand it.
 */
static tp_status parse_hostlist(tp_config *cfg, const struct key *key,
                                const char *text, void *base, tp_error *err)
{
	size_t len = strlen(text);
	int depth = 0;
	const char *copy;

	if (len == 0 || len >= TP_CONFIG_MAX_PATH)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: a host list of 1 to %u characters",
		                    key->name, TP_CONFIG_MAX_PATH - 1);
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
			                    key->name, text);
	}
	if (depth != 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: '%.80s': unbalanced '['", key->name,
		                    text);
	copy = own(cfg, text, len);
	if (!copy)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    key->name);
	*(const char **)field_of(key, base) = copy;
	return TP_OK;
}

static const struct kind kind_hostlist = {parse_hostlist, print_text};

/*
 * A profile age: whole seconds, minutes, hours or days ("30d").  The
 * duration parser of units.h stops at one hour, as suits windows and
 * budgets; profiles live for weeks, so ages take these coarser units and
 * leave the digits to the shared count parser.
 */
static tp_status parse_age(tp_config *cfg, const struct key *key,
                           const char *text, void *base, tp_error *err)
{
	static const struct {
		char unit;
		uint64_t seconds;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	const uint64_t max_s = 3650ull * 86400;
	int64_t *value_s = field_of(key, base);
	size_t len = strlen(text);
	char digits[24];
	uint64_t count;

	(void)cfg;
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
		if (tp_units_parse_count(key->name, digits, 1,
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
	                    key->name, text);
}

static void print_age(const struct key *key, const void *base, char *buf,
                      size_t size)
{
	format_age(buf, size, *(const int64_t *)const_field_of(key, base));
}

static const struct kind kind_age = {parse_age, print_age};

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

static tp_status parse_classes(tp_config *cfg, const struct key *key,
                               const char *text, void *base, tp_error *err)
{
	tp_config_settings *s = base;
	struct class_list list = {false, false, 0};
	const tp_jobclass order[] = {TP_JOBCLASS_IO_HEAVY,
	                             TP_JOBCLASS_COMM_SENSITIVE,
	                             TP_JOBCLASS_QUIET};
	tp_status rc = for_each_item(key->name, text, add_class, &list, err);

	(void)cfg;
	if (rc != TP_OK)
		return rc;
	if (list.none && (list.all || list.mask))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: 'none' cannot be combined with "
		                    "classes",
		                    key->name);
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

/* A comma-separated list, as the file spells it; "none" when empty. */
static void print_list(const char *const *items, size_t count, char *buf,
                       size_t size)
{
	size_t used = 0;

	snprintf(buf, size, "none");
	for (size_t i = 0; i < count; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? "," : "",
		                 items[i]);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}

static void print_classes(const struct key *key, const void *base, char *buf,
                          size_t size)
{
	const tp_config_settings *s = base;

	(void)key;
	print_list(s->throttle_classes, s->throttle_class_count, buf, size);
}

/* io_heavy: the jobs that hurt their neighbours' I/O. */
static void classes_default(const struct key *key, void *base)
{
	tp_config_settings *s = base;

	(void)key;
	memset(s->throttle_classes, 0, sizeof(s->throttle_classes));
	s->throttle_classes[0] = tp_jobclass_name(TP_JOBCLASS_IO_HEAVY);
	s->throttle_class_count = 1;
}

static const struct kind kind_classes = {parse_classes, print_classes};

static tp_status parse_debug_flags(tp_config *cfg, const struct key *key,
                                   const char *text, void *base, tp_error *err)
{
	uint32_t *flags = field_of(key, base);

	(void)cfg;
	*flags = 0;
	return for_each_item(key->name, text, add_debug_flag, flags, err);
}

static void print_debug_flags(const struct key *key, const void *base,
                              char *buf, size_t size)
{
	tp_config_debug_flags_format(
	    *(const uint32_t *)const_field_of(key, base), buf, size);
}

static const struct kind kind_debug_flags = {parse_debug_flags,
                                             print_debug_flags};

/* ThrottleObjective, ProfileRecord, ProfileRecordExclude: the syntax
 * belongs to the module that uses the value (window.h, record_policy.h). */
static tp_status parse_objective(tp_config *cfg, const struct key *key,
                                 const char *text, void *base, tp_error *err)
{
	(void)cfg;
	return tp_throttle_objective_parse(text, field_of(key, base), err);
}

static void print_objective(const struct key *key, const void *base, char *buf,
                            size_t size)
{
	tp_throttle_objective_format(const_field_of(key, base), buf, size);
}

static const struct kind kind_objective = {parse_objective, print_objective};

/* ThrottleConfidence: window.h owns the syntax and the default. */
static tp_status parse_confidence(tp_config *cfg, const struct key *key,
                                  const char *text, void *base, tp_error *err)
{
	(void)cfg;
	return tp_throttle_confidence_parse(text, field_of(key, base), err);
}

static void print_confidence(const struct key *key, const void *base,
                             char *buf, size_t size)
{
	tp_throttle_confidence_format(
	    *(const double *)const_field_of(key, base), buf, size);
}

static void confidence_default(const struct key *key, void *base)
{
	*(double *)field_of(key, base) = TP_CONFIDENCE_DEFAULT;
}

static const struct kind kind_confidence = {parse_confidence,
                                            print_confidence};

static tp_status parse_record_mode(tp_config *cfg, const struct key *key,
                                   const char *text, void *base, tp_error *err)
{
	tp_config_settings *s = base;

	(void)cfg;
	(void)key;
	return tp_record_mode_parse(text, &s->record.mode,
	                            &s->record.sample_every, err);
}

static void print_record_mode(const struct key *key, const void *base,
                              char *buf, size_t size)
{
	const tp_config_settings *s = base;

	(void)key;
	tp_record_mode_format(s->record.mode, s->record.sample_every, buf,
	                      size);
}

static const struct kind kind_record_mode = {parse_record_mode,
                                             print_record_mode};

static tp_status parse_record_exclude(tp_config *cfg, const struct key *key,
                                      const char *text, void *base,
                                      tp_error *err)
{
	tp_config_settings *s = base;
	/* The names point into this copy, owned by the config. */
	size_t len = strlen(text);
	char *names = own(cfg, text, len);

	if (!names)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: no memory",
		                    key->name);
	return tp_record_exclude_parse(text, names, len + 1, &s->record, err);
}

static void print_record_exclude(const struct key *key, const void *base,
                                 char *buf, size_t size)
{
	const tp_config_settings *s = base;

	(void)key;
	print_list(s->record.exclude, s->record.exclude_count, buf, size);
}

static const struct kind kind_record_exclude = {parse_record_exclude,
                                                print_record_exclude};

static tp_status parse_exec_match_rule(tp_config *cfg, const struct key *key,
                                       const char *text, void *base,
                                       tp_error *err)
{
	(void)cfg;
	if (tp_exec_match_rule_parse(text, field_of(key, base), err) != TP_OK)
		return tp_error_prefix(err, "%s", key->name);
	return TP_OK;
}

static void print_exec_match_rule(const struct key *key, const void *base,
                                  char *buf, size_t size)
{
	const tp_exec_match_rule *rule = const_field_of(key, base);

	snprintf(buf, size, "%s", tp_exec_match_rule_name(*rule));
}

static const struct kind kind_exec_match_rule = {parse_exec_match_rule,
                                                 print_exec_match_rule};

/* A value of several fields, or no value at all: all zero (ProfileRecord
 * off, no objective, nothing excluded). */
static void zero_default(const struct key *key, void *base)
{
	memset(field_of(key, base), 0, key->size);
}

/* ---- the keys -------------------------------------------------------- */

#define FIELD_SIZE(type, field) sizeof(((type *)0)->field)
/* A site-wide key's field in tp_config_site. */
#define SITE(field)                                                            \
	false, offsetof(tp_config_site, field),                                \
	    FIELD_SIZE(tp_config_site, field)
/* A key a partition may override: its field in tp_config_settings. */
#define PART(field)                                                            \
	true, offsetof(tp_config_settings, field),                             \
	    FIELD_SIZE(tp_config_settings, field)
/* ... or the adjacent fields @first to @last it sets together. */
#define PART_SPAN(first, last)                                                 \
	true, offsetof(tp_config_settings, first),                             \
	    offsetof(tp_config_settings, last) +                               \
	        FIELD_SIZE(tp_config_settings, last) -                         \
	        offsetof(tp_config_settings, first)
#define NAMES(array) .names = array, .count = COUNT_OF(array)

/*
 * Every key, in the order `topoplace config` and topoplace.conf(5) list
 * them: the site-wide ones, then those a partition may override.
 */
static const struct key keys[] = {
    {"FabricSource", SITE(fabric_source), &kind_choice,
     .arg = {NAMES(fabric_source_names)},
     .def.choice = TP_FABRIC_SOURCE_TOPOLOGY},
    {"FabricCache", SITE(fabric_cache), &kind_path,
     .def.text = TP_CONFIG_DEFAULT_FABRIC_CACHE},
    /* beside the file when its origin is a path (config_new) */
    {"TopologyConf", SITE(topology_conf), &kind_path,
     .def.text = TP_CONFIG_DEFAULT_CONF_DIR "/topology.conf"},
    {"NodeNameRule", SITE(node_name_rule), &kind_choice,
     .arg = {NAMES(node_name_rule_names)},
     .def.choice = TP_NODE_NAME_FIRST_WORD},
    {"NodeNameMap", SITE(node_name_map), &kind_path, .def.text = NULL},
    {"ProfileStore", SITE(profile_store), &kind_path,
     .def.text = TP_CONFIG_DEFAULT_PROFILE_STORE},
    {"ProfileKeep", SITE(profile_keep), &kind_count,
     .arg = {.min = 1, .max = 1000}, .def.u32 = TP_STORE_DEFAULT_KEEP},
    {"ProfileMaxAge", SITE(profile_max_age_s), &kind_age,
     .def.i64 = TP_STORE_DEFAULT_MAX_AGE_S},
    /* 1 ms to 1 h (the units parser's own maximum). */
    {"ProfileLookupTimeout", SITE(profile_lookup_timeout_us), &kind_duration,
     .arg = {.min = 1000}, .def.u64 = TP_CONFIG_DEFAULT_LOOKUP_TIMEOUT_US},
    {"TbfHook", SITE(tbf_hook), &kind_path, .def.text = NULL},
    {"IoServerHosts", SITE(ioserver_hosts), &kind_hostlist, .def.text = NULL},
    {"Routing", SITE(routing), &kind_routing,
     .def.choice = TP_ROUTING_ADAPTIVE},
    {"DebugFlags", SITE(debug_flags), &kind_debug_flags, .def.u32 = 0},
    /* Keys a partition may override. */
    {"DefaultPlacement", PART(default_placement), &kind_placement,
     .def.choice = TP_PLACEMENT_AUTO},
    {"LeafSharing", PART(leaf_sharing), &kind_choice,
     .arg = {NAMES(leaf_sharing_names)},
     .def.choice = TP_LEAF_SHARING_COMPATIBLE},
    {"IoHeavyMinBytes", PART(thresholds.io_bytes_min), &kind_bytes,
     .set_default = threshold_default},
    {"IoHeavyClientBytesPerSec", PART(thresholds.io_client_bytes_per_s_min),
     &kind_rate, .set_default = threshold_default},
    {"IoHeavyReferenceClients", PART(thresholds.io_reference_clients),
     &kind_count, .arg = {.min = 1, .max = UINT32_MAX},
     .set_default = threshold_default},
    {"CommSensitiveMaxMessageBytes",
     PART(thresholds.comm_small_message_bytes_max), &kind_bytes,
     .set_default = threshold_default},
    {"CommSensitiveMessagesPerSecPerRank",
     PART(thresholds.comm_messages_per_s_per_rank_min), &kind_count_real,
     .arg = {.min = 1, .max = UINT32_MAX}, .set_default = threshold_default},
    {"CommSensitiveBytesPerSecPerRank",
     PART(thresholds.comm_bytes_per_s_per_rank_min), &kind_rate,
     .set_default = threshold_default},
    {"IoServerPolicy", PART_SPAN(ioserver_policy, ioserver_auto),
     &kind_ioserver_policy, .set_default = ioserver_policy_default},
    /* 0: no servers unless the job asks. */
    {"IoServerCount", PART(ioserver_count), &kind_count,
     .arg = {.min = 1, .max = 65536, .zero_ok = true}, .def.u32 = 0},
    {"ThresholdTable", PART(threshold_table), &kind_path, .def.text = NULL},
    {"ThrottleMode", PART(throttle_mode), &kind_choice,
     .arg = {NAMES(throttle_enforce_names)},
     .def.choice = TP_THROTTLE_ENFORCE_OFF},
    {"ThrottleClasses", PART_SPAN(throttle_classes, throttle_class_count),
     &kind_classes, .set_default = classes_default},
    /* none or 0: no bound; the duration parser caps at one hour, which
     * is also the sane top of a window. */
    {"ThrottleMinWindow", PART(throttle_min_window_us), &kind_bound,
     .arg = {.min = 1, .zero_ok = true}, .def.u64 = 0},
    {"ThrottleMaxWindow", PART(throttle_max_window_us), &kind_bound,
     .arg = {.min = 1, .zero_ok = true}, .def.u64 = 0},
    {"ThrottleAllowUserOff", PART(throttle_allow_user_off), &kind_boolean,
     .def.yes = true},
    {"DecisionBudget", PART(decision_budget_us), &kind_duration,
     .arg = {.min = 1,
             .max = TP_CONFIG_MAX_BUDGET_US,
             .over = "1s (slurmctld holds its locks while deciding)"},
     .def.u64 = TP_CONFIG_DEFAULT_BUDGET_US},
    {"RankRemap", PART(rank_remap), &kind_choice,
     .arg = {NAMES(rank_remap_names)}, .def.choice = TP_RANK_REMAP_AUTO},
    {"RemapSearch", PART(remap_search), &kind_choice,
     .arg = {NAMES(tp_remap_search_names)}, .def.choice = TP_REMAP_SEARCH_AUTO},
    {"RemapBudget", PART(remap_budget_us), &kind_duration,
     .arg = {.min = TP_CONFIG_MIN_REMAP_BUDGET_US,
             .max = TP_CONFIG_MAX_REMAP_BUDGET_US,
             .over = "8s (slurmd answers slurmctld's launch request only "
                     "after it)"},
     .def.u64 = TP_CONFIG_DEFAULT_REMAP_BUDGET_US},
    {"RemapMemory", PART(remap_memory_bytes), &kind_bytes,
     .arg = {.min = TP_CONFIG_MIN_REMAP_MEMORY,
             .max = TP_CONFIG_MAX_REMAP_MEMORY,
             .over = "16MiB..16GiB"},
     .def.u64 = TP_CONFIG_DEFAULT_REMAP_MEMORY},
    {"ThrottleObjective", PART(throttle_objective), &kind_objective,
     .set_default = zero_default},
    {"ThrottleConfidence", PART(throttle_confidence), &kind_confidence,
     .set_default = confidence_default},
    {"ProfileRecord", PART_SPAN(record.mode, record.sample_every),
     &kind_record_mode, .set_default = zero_default},
    {"ProfileRecordAllowUserOff", PART(record.allow_user_off), &kind_boolean,
     .def.yes = true},
    {"ProfileRecordExclude", PART_SPAN(record.exclude, record.exclude_count),
     &kind_record_exclude, .set_default = zero_default},
    {"ProfileByExecutable", PART(profile_by_exec), &kind_exec_match_rule,
     .def.choice = TP_EXEC_MATCH_COMMAND},
    /* none: whole-leaf jobs wait as long as it takes; else 1s..3600s
     * (units.h's bound on any duration). */
    {"LeafWaitMax", PART(leaf_wait_max_us), &kind_bound,
     .arg = {.min = 1000000}, .def.u64 = 0},
    {"LeafRemainder", PART(leaf_remainder), &kind_leaf_remainder,
     .def.choice = TP_LEAF_REMAINDER_COMPATIBLE},
    /* none: jobs wait for hosts apart from incompatible ones as long as
     * it takes; else 1s..3600s, as LeafWaitMax. */
    {"IsolationWaitMax", PART(isolation_wait_max_us), &kind_bound,
     .arg = {.min = 1000000}, .def.u64 = 0},
};

#define KEY_COUNT COUNT_OF(keys)

static void key_default(const struct key *key, void *base)
{
	if (key->set_default)
		key->set_default(key, base);
	else
		memcpy(field_of(key, base), &key->def, key->size);
}

/* Every default of the site (@per_partition false) or of the settings. */
static void defaults_of(bool per_partition, void *base)
{
	for (size_t k = 0; k < KEY_COUNT; k++) {
		if (keys[k].per_partition == per_partition)
			key_default(&keys[k], base);
	}
}

size_t tp_config_key_count(void)
{
	return KEY_COUNT;
}

bool tp_config_key_describe(size_t i, tp_config_key_info *info)
{
	const struct key *key;

	if (i >= KEY_COUNT)
		return false;
	key = &keys[i];
	info->name = key->name;
	info->per_partition = key->per_partition;
	info->offset = key->offset;
	info->size = key->size;
	info->has_parser = key->kind && key->kind->parse;
	info->has_printer = key->kind && key->kind->print;
	info->unset_by_default =
	    (key->kind == &kind_path || key->kind == &kind_hostlist) &&
	    !key->def.text;
	return true;
}

void tp_config_key_default(size_t i, void *base)
{
	key_default(&keys[i], base);
}

tp_status tp_config_key_parse(tp_config *config, size_t i, const char *text,
                              void *base, tp_error *err)
{
	return keys[i].kind->parse(config, &keys[i], text, base, err);
}

void tp_config_key_print(size_t i, const void *base, char *buf, size_t size)
{
	keys[i].kind->print(&keys[i], base, buf, size);
}

/* ---- the config ----------------------------------------------------- */

/* One PartitionName line: what it sets, and the result over the site. */
struct partition {
	char *name;
	unsigned line;
	unsigned key_line[KEY_COUNT]; /* 0: not set on this line */
	tp_config_settings overrides;
	tp_config_settings effective;
};

struct tp_config {
	char *origin;
	tp_config_site site;
	tp_config_settings defaults;
	unsigned site_key_line[KEY_COUNT]; /* 0: default */
	struct partition *parts;
	size_t part_count, part_cap;
	char **owned; /* every string the config hands out */
	size_t owned_count, owned_cap;
};

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
	defaults_of(false, &cfg->site);
	defaults_of(true, &cfg->defaults);
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
	for (int i = 0; i < (int)KEY_COUNT; i++) {
		if (!strcasecmp(text, keys[i].name))
			return i;
	}
	return -1;
}

/* The line that set the key named @name (0: not set): the rules between
 * keys name the keys they read. */
static unsigned line_of(const unsigned *lines, const char *name)
{
	int key = find_key(name);

	return key < 0 ? 0 : lines[key];
}

/*
 * A key @text is a shortened form of ("Placement" for DefaultPlacement,
 * "MinWindow" for ThrottleMinWindow), for the unknown-key message.
 */
static const char *similar_key(const char *text)
{
	size_t len = strlen(text);

	for (size_t i = 0; len >= 4 && i < KEY_COUNT; i++) {
		size_t key_len = strlen(keys[i].name);

		if (key_len > len &&
		    !strcasecmp(keys[i].name + key_len - len, text))
			return keys[i].name;
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
	defaults_of(true, &part->overrides);
	cfg->part_count++;
	p->part = part;
	return TP_OK;
}

/* One Key=Value pair; @first: it starts the line. */
static tp_status handle_pair(struct parser *p, char *key_text, char *value,
                             bool first)
{
	unsigned *key_line;
	void *base;
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
		                            "%s: empty value", keys[key].name));
	if (p->part && !keys[key].per_partition)
		return at_line(p,
		               tp_error_set(p->err, TP_ERR_PARSE,
		                            "%s: site-wide only, cannot be set "
		                            "for PartitionName=%s",
		                            keys[key].name, p->part->name));
	key_line =
	    p->part ? &p->part->key_line[key] : &p->cfg->site_key_line[key];
	if (*key_line) {
		if (*key_line == p->line)
			return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
			                               "%s: given twice on "
			                               "this line",
			                               keys[key].name));
		return at_line(p, tp_error_set(p->err, TP_ERR_PARSE,
		                               "%s: already set on line %u",
		                               keys[key].name, *key_line));
	}
	if (!keys[key].per_partition)
		base = &p->cfg->site;
	else if (p->part)
		base = &p->part->overrides;
	else
		base = &p->cfg->defaults;
	rc = keys[key].kind->parse(p->cfg, &keys[key], value, base, p->err);
	if (rc != TP_OK)
		return at_line(p, rc);
	*key_line = p->line;
	return TP_OK;
}

static bool has_overrides(const struct partition *part)
{
	for (size_t k = 0; k < KEY_COUNT; k++) {
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

/*
 * Rules across keys, for the site defaults (@part NULL) and for each
 * partition's effective settings.  A partition is blamed only for what its
 * own line changed; the site's own errors are found first.
 */
static tp_status check_settings(struct parser *p, const struct partition *part,
                                const tp_config_settings *s)
{
	const unsigned *lines = part ? part->key_line : p->cfg->site_key_line;
	const unsigned min_line = line_of(lines, "ThrottleMinWindow");
	const unsigned max_line = line_of(lines, "ThrottleMaxWindow");
	const unsigned mode_line = line_of(lines, "ThrottleMode");
	char where[TP_CONFIG_PARTITION_NAME_MAX + 32] = "";

	if (part) {
		p->line = part->line;
		snprintf(where, sizeof(where),
		         "PartitionName=%s: ", part->name);
	}
	if (s->throttle_min_window_us && s->throttle_max_window_us &&
	    s->throttle_min_window_us > s->throttle_max_window_us &&
	    (min_line || max_line)) {
		char min_text[32], max_text[32];

		if (!part)
			p->line = min_line > max_line ? min_line : max_line;
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
	    !p->cfg->site.tbf_hook && mode_line) {
		if (!part)
			p->line = mode_line;
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
	const unsigned rule_line = line_of(cfg->site_key_line, "NodeNameRule");
	const unsigned map_line = line_of(cfg->site_key_line, "NodeNameMap");

	if (map_line && !rule_line)
		cfg->site.node_name_rule = TP_NODE_NAME_MAP;
	if (cfg->site.node_name_rule == TP_NODE_NAME_MAP &&
	    !cfg->site.node_name_map) {
		p->line = rule_line;
		return at_line(p, tp_error_set(p->err, TP_ERR_INVALID,
		                               "NodeNameRule: 'map' needs "
		                               "NodeNameMap"));
	}
	if (cfg->site.node_name_rule == TP_NODE_NAME_FIRST_WORD &&
	    cfg->site.node_name_map) {
		p->line = map_line;
		return at_line(p, tp_error_set(p->err, TP_ERR_INVALID,
		                               "NodeNameMap: set, but "
		                               "NodeNameRule=first-word (line "
		                               "%u) does not use it",
		                               rule_line));
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
		for (size_t k = 0; k < KEY_COUNT; k++) {
			if (part->key_line[k])
				memcpy(
				    field_of(&keys[k], &part->effective),
				    const_field_of(&keys[k], &part->overrides),
				    keys[k].size);
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

/* ---- writing --------------------------------------------------------- */

tp_status tp_config_each_setting(const tp_config *config, const char *partition,
                                 tp_config_setting_fn each, void *ctx,
                                 tp_error *err)
{
	const struct partition *part = NULL;
	const tp_config_settings *s = &config->defaults;
	char value[TP_CONFIG_MAX_PATH + 64];

	if (partition) {
		part = find_partition(config, partition);
		if (!part)
			return tp_error_set(err, TP_ERR_NOTFOUND,
			                    "%s: no PartitionName=%s",
			                    config->origin, partition);
		s = &part->effective;
	}
	for (size_t k = 0; k < KEY_COUNT; k++) {
		const unsigned part_line = part ? part->key_line[k] : 0;
		const unsigned site_line = config->site_key_line[k];

		if (part && !keys[k].per_partition)
			continue;
		keys[k].kind->print(&keys[k],
		                    keys[k].per_partition
		                        ? (const void *)s
		                        : (const void *)&config->site,
		                    value, sizeof(value));
		if (part_line)
			each(ctx, keys[k].name, value, TP_CONFIG_FROM_PARTITION,
			     part_line);
		else if (site_line)
			each(ctx, keys[k].name, value, TP_CONFIG_FROM_SITE,
			     site_line);
		else
			each(ctx, keys[k].name, value, TP_CONFIG_FROM_DEFAULT,
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

/* ---- entry points ---------------------------------------------------- */

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
	policy->confidence = settings->throttle_confidence;
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
			                    "%s: line %u: %s: %s",
			                    config->origin, line,
			                    "ThresholdTable", inner.message);
		return tp_error_set(err, inner.code, "%s: %s%s: %s",
		                    config->origin, where, "ThresholdTable",
		                    inner.message);
	}
	tp_threshold_table_free(table);
	return TP_OK;
}

tp_status tp_config_check_files(const tp_config *config, tp_error *err)
{
	tp_status rc = check_table(
	    config, config->defaults.threshold_table,
	    line_of(config->site_key_line, "ThresholdTable"), "", err);

	for (size_t i = 0; rc == TP_OK && i < config->part_count; i++) {
		const struct partition *part = &config->parts[i];
		const unsigned line = line_of(part->key_line, "ThresholdTable");

		/* Inherited from the site: checked once above. */
		if (!line)
			continue;
		rc = check_table(config, part->effective.threshold_table, line,
		                 "", err);
	}
	return rc;
}
