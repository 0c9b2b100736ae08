/*
 * policy.c: names of placement policies, routing kinds and leaf remainder
 * rules.
 */
#include "tp_config.h"

#include <string.h>

#include "policy.h"

static const char *const placement_names[] = {
	[TP_PLACEMENT_AUTO] = "auto",     [TP_PLACEMENT_LEAF] = "leaf",
	[TP_PLACEMENT_SHARED] = "shared", [TP_PLACEMENT_PACK] = "pack",
	[TP_PLACEMENT_SPREAD] = "spread", [TP_PLACEMENT_OFF] = "off",
};

#define PLACEMENT_COUNT (sizeof(placement_names) / sizeof(placement_names[0]))

tp_status tp_placement_parse(const char *text, tp_placement *placement,
			     tp_error *err)
{
	if (!text || !*text)
		return tp_error_set(err, TP_ERR_INVALID,
				    "empty placement policy (expected one of %s)",
				    TP_PLACEMENT_CHOICES);
	for (size_t i = 0; i < PLACEMENT_COUNT; i++) {
		if (strcmp(text, placement_names[i]) == 0) {
			*placement = (tp_placement)i;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID,
			    "'%.64s%s' is not a placement policy (expected one of %s)",
			    text, strlen(text) > 64 ? "..." : "",
			    TP_PLACEMENT_CHOICES);
}

const char *tp_placement_name(tp_placement placement)
{
	if ((size_t)placement >= PLACEMENT_COUNT)
		return "invalid";
	return placement_names[placement];
}

static const char *const routing_names[] = {
	[TP_ROUTING_ADAPTIVE] = "adaptive",
	[TP_ROUTING_STATIC] = "static",
};

#define ROUTING_COUNT (sizeof(routing_names) / sizeof(routing_names[0]))

/*
 * The index of @text among @count @names, or TP_ERR_INVALID saying it is
 * not a @what (expected one of @choices).
 */
static tp_status parse_name(const char *const *names, size_t count,
			    const char *text, const char *what,
			    const char *choices, size_t *index, tp_error *err)
{
	for (size_t i = 0; text && i < count; i++) {
		if (strcmp(text, names[i]) == 0) {
			*index = i;
			return TP_OK;
		}
	}
	return tp_error_set(err, TP_ERR_INVALID,
			    "'%.64s%s' is not a %s (expected one of %s)",
			    text ? text : "", text && strlen(text) > 64 ? "..." : "",
			    what, choices);
}

tp_status tp_routing_parse(const char *text, tp_routing *routing,
			   tp_error *err)
{
	size_t i;
	tp_status rc = parse_name(routing_names, ROUTING_COUNT, text,
				  "routing kind", TP_ROUTING_CHOICES, &i, err);

	if (rc == TP_OK)
		*routing = (tp_routing)i;
	return rc;
}

const char *tp_routing_name(tp_routing routing)
{
	if ((size_t)routing >= ROUTING_COUNT)
		return "invalid";
	return routing_names[routing];
}

static const char *const leaf_remainder_names[] = {
	[TP_LEAF_REMAINDER_WHOLE] = "whole",
	[TP_LEAF_REMAINDER_COMPATIBLE] = "compatible",
};

#define LEAF_REMAINDER_COUNT \
	(sizeof(leaf_remainder_names) / sizeof(leaf_remainder_names[0]))

tp_status tp_leaf_remainder_parse(const char *text,
				  tp_leaf_remainder *remainder, tp_error *err)
{
	size_t i;
	tp_status rc = parse_name(leaf_remainder_names, LEAF_REMAINDER_COUNT,
				  text, "leaf remainder rule",
				  TP_LEAF_REMAINDER_CHOICES, &i, err);

	if (rc == TP_OK)
		*remainder = (tp_leaf_remainder)i;
	return rc;
}

const char *tp_leaf_remainder_name(tp_leaf_remainder remainder)
{
	if ((size_t)remainder >= LEAF_REMAINDER_COUNT)
		return "invalid";
	return leaf_remainder_names[remainder];
}
