/*
 * tp_slurm_options.c: the rules of topoplace's user flags.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store.h"
#include "tp_slurm_options.h"

static const tp_opt_info opt_info[TP_OPT_COUNT] = {
    [TP_OPT_PLACEMENT] =
        {"placement", TP_PLACEMENT_CHOICES,
         "topoplace: where the job goes on the fabric: whole leaf "
         "switches (leaf), leaves shared only with compatible jobs "
         "(shared), fewest (pack) or most (spread) leaves, Slurm's own "
         "choice (off), or the site default (auto)",
         1, "TOPOPLACE_PLACEMENT"},
    [TP_OPT_COMM_PROFILE] =
        {"comm-profile", "NAME",
         "topoplace: use the stored communication profile NAME (default: "
         "the newest profile named like the job)",
         1, "TOPOPLACE_COMM_PROFILE"},
    [TP_OPT_COMM_RECORD] =
        {"comm-record", "NAME|no",
         "topoplace: record this run's communication and I/O into the "
         "profile store as NAME (default: the job name); no: not even "
         "where the site records on its own (ProfileRecord)",
         2, "TOPOPLACE_COMM_RECORD"},
    [TP_OPT_RANK_REMAP] =
        {"rank-remap", "auto|off",
         "topoplace: reorder MPI ranks over the job's nodes from its "
         "profile (auto) or keep Slurm's order (off)",
         1, "TOPOPLACE_RANK_REMAP"},
    [TP_OPT_IO_SERVERS] =
        {"io-servers", "N",
         "topoplace: number of I/O servers (aggregator ranks) to place", 1,
         "TOPOPLACE_IO_SERVERS"},
    [TP_OPT_IO_THROTTLE] =
        {"io-throttle", "auto|off|<window>",
         "topoplace: pace the job's I/O requests: site policy (auto), "
         "never (off), or at most one per window per process (e.g. 2ms)",
         1, "TOPOPLACE_IO_THROTTLE"},
};

const tp_opt_info *tp_opt_info_get(tp_opt_id id)
{
	if ((unsigned)id >= TP_OPT_COUNT)
		return NULL;
	return &opt_info[id];
}

static tp_status check_name(const char *flag, const char *value,
                            char canon[TP_OPT_VALUE_MAX], tp_error *err)
{
	if (!value[0])
		return tp_error_set(err, TP_ERR_INVALID,
		                    "--%s: empty profile name", flag);
	if (!tp_store_valid_name(value))
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "--%s: '%.64s' is not a valid profile name (expected "
		    "[A-Za-z0-9_][A-Za-z0-9_.+-]*, at most %d characters)",
		    flag, value, TP_STORE_NAME_MAX);
	snprintf(canon, TP_OPT_VALUE_MAX, "%s", value);
	return TP_OK;
}

static tp_status check_servers(const char *value, char canon[TP_OPT_VALUE_MAX],
                               tp_error *err)
{
	char *end = NULL;
	unsigned long n;

	if (value[0] < '0' || value[0] > '9')
		goto bad;
	errno = 0;
	n = strtoul(value, &end, 10);
	if (errno || *end || n < 1 || n > TP_OPT_IO_SERVERS_MAX)
		goto bad;
	snprintf(canon, TP_OPT_VALUE_MAX, "%lu", n);
	return TP_OK;
bad:
	return tp_error_set(err, TP_ERR_INVALID,
	                    "--io-servers: '%.64s' is not a server count "
	                    "(expected an integer from 1 to %u)",
	                    value, TP_OPT_IO_SERVERS_MAX);
}

/*
 * @value in lower case into @out (TP_OPT_VALUE_MAX bytes): keywords and
 * units are case-insensitive, as in topoplace.conf (--placement=LEAF,
 * --io-throttle=2MS).  A value too long for @out is copied cut, which no
 * keyword matches, so it is still refused naming what was given.
 */
static const char *lower(const char *value, char out[TP_OPT_VALUE_MAX])
{
	size_t i;

	for (i = 0; value[i] && i + 1 < TP_OPT_VALUE_MAX; i++)
		out[i] = (char)tolower((unsigned char)value[i]);
	out[i] = '\0';
	return value[i] ? value : out;
}

tp_status tp_opt_check(tp_opt_id id, const char *value,
                       char canon[TP_OPT_VALUE_MAX], tp_error *err)
{
	const tp_opt_info *info = tp_opt_info_get(id);
	tp_placement placement;
	tp_throttle_request request;
	char folded[TP_OPT_VALUE_MAX];
	tp_error inner;

	if (!info)
		return tp_error_set(err, TP_ERR_INVALID, "unknown flag %d",
		                    (int)id);
	canon[0] = '\0';
	/*
	 * Slurm writes an optional-argument flag given without a value as
	 * "(null)" (printf of NULL) into the SPANK environment that srun,
	 * slurmctld and slurmstepd read back; it is no valid name either.
	 */
	if (value && info->has_arg == 2 && !strcmp(value, "(null)"))
		value = NULL;
	if (!value) {
		if (info->has_arg == 2)
			return TP_OK;
		return tp_error_set(err, TP_ERR_INVALID,
		                    "--%s: a value is required (expected %s)",
		                    info->name, info->arginfo);
	}
	switch (id) {
	case TP_OPT_PLACEMENT:
		if (tp_placement_parse(lower(value, folded), &placement,
		                       NULL) != TP_OK &&
		    tp_placement_parse(value, &placement, &inner) != TP_OK)
			return tp_error_set(err, TP_ERR_INVALID, "--%s: %s",
			                    info->name, inner.message);
		snprintf(canon, TP_OPT_VALUE_MAX, "%s",
		         tp_placement_name(placement));
		return TP_OK;
	case TP_OPT_COMM_PROFILE:
		return check_name(info->name, value, canon, err);
	case TP_OPT_COMM_RECORD:
		if (!value[0])
			return TP_OK;
		/* The opt-out: "no" is never a profile name. */
		if (!strcasecmp(value, "no")) {
			snprintf(canon, TP_OPT_VALUE_MAX, "no");
			return TP_OK;
		}
		return check_name(info->name, value, canon, err);
	case TP_OPT_RANK_REMAP:
		if (strcasecmp(value, "auto") && strcasecmp(value, "off"))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "--%s: '%.64s' is not a remap mode "
			                    "(expected auto|off)",
			                    info->name, value);
		snprintf(canon, TP_OPT_VALUE_MAX, "%s",
		         strcasecmp(value, "off") ? "auto" : "off");
		return TP_OK;
	case TP_OPT_IO_SERVERS:
		return check_servers(value, canon, err);
	case TP_OPT_IO_THROTTLE:
		if (tp_throttle_parse(lower(value, folded), &request, NULL) !=
		        TP_OK &&
		    tp_throttle_parse(value, &request, &inner) != TP_OK)
			return tp_error_set(err, TP_ERR_INVALID, "--%s: %s",
			                    info->name, inner.message);
		if (request.mode == TP_THROTTLE_FIXED)
			snprintf(canon, TP_OPT_VALUE_MAX, "%" PRIu64 "us",
			         request.window_us);
		else
			snprintf(canon, TP_OPT_VALUE_MAX, "%s",
			         request.mode == TP_THROTTLE_OFF ? "off"
			                                         : "auto");
		return TP_OK;
	case TP_OPT_COUNT:
		break;
	}
	return tp_error_set(err, TP_ERR_INVALID, "unknown flag %d", (int)id);
}

void tp_opt_values_init(tp_opt_values *values)
{
	memset(values, 0, sizeof(*values));
	values->placement = TP_PLACEMENT_AUTO;
	values->rank_remap = true;
	values->io_throttle.mode = TP_THROTTLE_AUTO;
}

tp_status tp_opt_values_set(tp_opt_values *values, tp_opt_id id,
                            const char *value, tp_error *err)
{
	char canon[TP_OPT_VALUE_MAX];
	tp_status rc = tp_opt_check(id, value, canon, err);

	if (rc != TP_OK)
		return rc;
	switch (id) {
	case TP_OPT_PLACEMENT:
		(void)tp_placement_parse(canon, &values->placement, NULL);
		break;
	case TP_OPT_COMM_PROFILE:
		memcpy(values->comm_profile, canon, sizeof(canon));
		break;
	case TP_OPT_COMM_RECORD:
		values->comm_record_off = !strcmp(canon, "no");
		values->comm_record = !values->comm_record_off;
		memcpy(values->comm_record_name,
		       values->comm_record_off ? "" : canon,
		       values->comm_record_off ? 1 : sizeof(canon));
		break;
	case TP_OPT_RANK_REMAP:
		values->rank_remap = strcmp(canon, "off") != 0;
		break;
	case TP_OPT_IO_SERVERS:
		values->io_servers = (uint32_t)strtoul(canon, NULL, 10);
		break;
	case TP_OPT_IO_THROTTLE:
		(void)tp_throttle_parse(canon, &values->io_throttle, NULL);
		break;
	case TP_OPT_COUNT:
		break;
	}
	return TP_OK;
}
