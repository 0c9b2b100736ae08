/*
 * record_policy.c: the site's recording policy (record_policy.h).
 *
 * Why automatic recording never overrides an explicit user request to
 * record, but may override an opt-out: the site pays for profiles with the
 * profiler's overhead (< 1% of run time, topoplace-profiler(7)) and may
 * decide that is a price every job pays (ProfileRecordAllowUserOff=no);
 * the user asking for a recording costs the site nothing it has not
 * already allowed by installing the profiler.  Excluded applications are
 * the site's statement that recording them is unwanted (licensed codes,
 * codes the profiler breaks), so they are only recorded on request.
 */
#include "record_policy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store.h"

static const char *const mode_names[] = {
    [TP_RECORD_OFF] = "off",       [TP_RECORD_FIRST] = "first",
    [TP_RECORD_SAMPLE] = "sample", [TP_RECORD_STALE] = "stale",
    [TP_RECORD_ALWAYS] = "always",
};

tp_status tp_record_mode_parse(const char *text, tp_record_mode *mode,
                               uint32_t *every, tp_error *err)
{
	static const char accepted[] =
	    "off, first, sample:N (2 <= N <= 1000000), stale or always";

	if (!text)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "ProfileRecord: no value: expected %s",
		                    accepted);
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]);
	     i++) {
		if (i != TP_RECORD_SAMPLE && !strcasecmp(text, mode_names[i])) {
			*mode = (tp_record_mode)i;
			*every = 0;
			return TP_OK;
		}
	}
	if (!strncasecmp(text, "sample:", 7)) {
		const char *digits = text + 7;
		char *end;
		unsigned long n;

		if (digits[0] >= '0' && digits[0] <= '9') {
			n = strtoul(digits, &end, 10);
			if (!*end && n >= 2 && n <= TP_RECORD_SAMPLE_MAX) {
				*mode = TP_RECORD_SAMPLE;
				*every = (uint32_t)n;
				return TP_OK;
			}
		}
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "ProfileRecord: '%s': expected %s", text, accepted);
}

void tp_record_mode_format(tp_record_mode mode, uint32_t every, char *buf,
                           size_t size)
{
	if (mode == TP_RECORD_SAMPLE)
		snprintf(buf, size, "sample:%" PRIu32, every);
	else if ((size_t)mode < sizeof(mode_names) / sizeof(mode_names[0]))
		snprintf(buf, size, "%s", mode_names[mode]);
	else
		snprintf(buf, size, "unknown");
}

tp_status tp_record_exclude_parse(const char *text, char *buf, size_t size,
                                  tp_record_policy *policy, tp_error *err)
{
	size_t len = text ? strlen(text) : 0, count = 0;
	char *name, *save = NULL;

	if (len >= size)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "ProfileRecordExclude: %zu bytes, at most "
		                    "%zu",
		                    len, size ? size - 1 : 0);
	policy->exclude_count = 0;
	if (!len || !strcasecmp(text, "none"))
		return TP_OK;
	memcpy(buf, text, len + 1);
	for (name = strtok_r(buf, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (!tp_store_valid_name(name))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "ProfileRecordExclude: '%s' is not "
			                    "a profile name",
			                    name);
		if (count == TP_RECORD_EXCLUDE_MAX)
			return tp_error_set(
			    err, TP_ERR_LIMIT,
			    "ProfileRecordExclude: more than %d "
			    "names",
			    TP_RECORD_EXCLUDE_MAX);
		policy->exclude[count++] = name;
	}
	/* ",," or "," leaves no name: a typo, not an empty list. */
	if (!count)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "ProfileRecordExclude: '%s' names no "
		                    "application",
		                    text);
	policy->exclude_count = count;
	return TP_OK;
}

bool tp_record_excluded(const tp_record_policy *policy, const char *app)
{
	if (!app)
		return false;
	for (size_t i = 0; i < policy->exclude_count; i++)
		if (!strcmp(policy->exclude[i], app))
			return true;
	return false;
}

/* Whether the mode alone records @job, with the reason. */
static bool mode_records(const tp_record_policy *policy,
                         const tp_record_job *job, char *reason, size_t size)
{
	const char *what = job->runs_of ? job->runs_of : job->app;
	char mode[32];

	tp_record_mode_format(policy->mode, policy->sample_every, mode,
	                      sizeof(mode));
	if (policy->mode == TP_RECORD_OFF) {
		snprintf(reason, size, "ProfileRecord=off");
		return false;
	}
	if (policy->mode == TP_RECORD_ALWAYS) {
		snprintf(reason, size, "ProfileRecord=always");
		return true;
	}
	if (!job->has_profile) {
		snprintf(reason, size, "ProfileRecord=%s: no profile of %s yet",
		         mode, what);
		return true;
	}
	switch (policy->mode) {
	case TP_RECORD_SAMPLE:
		if (job->job_id % policy->sample_every == 0) {
			snprintf(reason, size,
			         "ProfileRecord=%s: job %" PRIu64
			         " is one of every %" PRIu32,
			         mode, job->job_id, policy->sample_every);
			return true;
		}
		snprintf(reason, size,
		         "ProfileRecord=%s: %s has a profile and job %" PRIu64
		         " is not sampled",
		         mode, what, job->job_id);
		return false;
	case TP_RECORD_STALE:
		if (policy->max_age_s > 0 &&
		    job->newest_age_s > policy->max_age_s) {
			snprintf(
			    reason, size,
			    "ProfileRecord=stale: the newest profile of %s "
			    "is %" PRId64 " s old, ProfileMaxAge is %" PRId64
			    " s",
			    what, job->newest_age_s, policy->max_age_s);
			return true;
		}
		snprintf(
		    reason, size,
		    "ProfileRecord=stale: the newest profile of %s is %" PRId64
		    " s old: fresh",
		    what, job->newest_age_s);
		return false;
	default:
		snprintf(reason, size, "ProfileRecord=%s: %s has a profile",
		         mode, what);
		return false;
	}
}

bool tp_record_decide(const tp_record_policy *policy, const tp_record_job *job,
                      char *reason, size_t size)
{
	char why[256];
	bool record;

	if (job->user == TP_RECORD_USER_YES) {
		snprintf(reason, size, "--comm-record");
		return true;
	}
	if (!job->app || !tp_store_valid_name(job->app)) {
		snprintf(reason, size,
		         "no application name: not recorded automatically");
		return false;
	}
	if (tp_record_excluded(policy, job->app)) {
		snprintf(reason, size, "%s is in ProfileRecordExclude",
		         job->app);
		return false;
	}
	record = mode_records(policy, job, why, sizeof(why));
	if (job->user != TP_RECORD_USER_NO) {
		snprintf(reason, size, "%s", why);
		return record;
	}
	if (policy->allow_user_off) {
		snprintf(reason, size, "--comm-record=no");
		return false;
	}
	if (record)
		snprintf(reason, size,
		         "%s (--comm-record=no is not allowed here: "
		         "ProfileRecordAllowUserOff=no)",
		         why);
	else
		snprintf(reason, size, "%s", why);
	return record;
}
