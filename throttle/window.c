/*
 * window.c: --io-throttle parsing and the window decision (see window.h).
 */
#include "tp_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "window.h"

tp_status tp_throttle_parse(const char *text, tp_throttle_request *request,
                            tp_error *err)
{
	tp_error inner;
	uint64_t us;

	if (!text)
		text = "";
	if (!strcmp(text, "off")) {
		request->mode = TP_THROTTLE_OFF;
		request->window_us = 0;
		return TP_OK;
	}
	if (!strcmp(text, "auto")) {
		request->mode = TP_THROTTLE_AUTO;
		request->window_us = 0;
		return TP_OK;
	}
	if (tp_units_parse_duration_us("window", text, 1, &us, &inner) !=
	    TP_OK) {
		/* Say the reason once: drop the "window '<text>': " prefix
		 * the unit parser put in front. */
		const char *why = inner.message;
		size_t skip = strlen("window '") + strlen(text) + strlen("': ");

		if (strlen(why) > skip && !strncmp(why, "window '", 8))
			why += skip;
		else if (!strncmp(why, "window: ", 8))
			why += 8;
		return tp_error_set(err, TP_ERR_INVALID,
		                    "--io-throttle='%.60s': %s; accepted: %s",
		                    text, why, TP_THROTTLE_CHOICES);
	}
	request->mode = TP_THROTTLE_FIXED;
	request->window_us = us;
	return TP_OK;
}

/*
 * A user window with no I/O pattern known (a job without a profile):
 * ThrottleMinWindow and ThrottleMaxWindow bound it, nothing else applies.
 */
static tp_status user_window_alone(const tp_throttle_policy *policy,
                                   const tp_throttle_request *request,
                                   tp_window_decision *d, tp_error *err)
{
	uint64_t min_us = policy ? policy->min_window_us : 0;
	uint64_t max_us = policy ? policy->max_window_us : 0;
	char note[96] = "", window[32], limit[32];

	if (max_us && min_us > max_us)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "throttle policy: minimum window %llu us "
		                    "above maximum %llu us",
		                    (unsigned long long)min_us,
		                    (unsigned long long)max_us);
	d->window_us = request->window_us;
	if (min_us && d->window_us < min_us) {
		d->window_us = min_us;
		tp_units_format_us((double)min_us, limit, sizeof(limit));
		snprintf(note, sizeof(note), " (raised to the site minimum %s)",
		         limit);
	} else if (max_us && d->window_us > max_us) {
		d->window_us = max_us;
		tp_units_format_us((double)max_us, limit, sizeof(limit));
		snprintf(note, sizeof(note),
		         " (lowered to the site maximum %s)", limit);
	}
	d->throttle = true;
	tp_units_format_us((double)d->window_us, window, sizeof(window));
	snprintf(d->reason, sizeof(d->reason), "window %s set by the user%s",
	         window, note);
	return TP_OK;
}

static bool class_throttled(const tp_throttle_policy *policy,
                            const char *job_class)
{
	if (!policy)
		return false;
	for (size_t i = 0; i < policy->class_count; i++) {
		if (!policy->classes[i])
			continue;
		if (!strcmp(policy->classes[i], "*"))
			return true;
		if (job_class && !strcmp(policy->classes[i], job_class))
			return true;
	}
	return false;
}

/* Fill the cost and gain of throttling @d at d->window_us. */
static void expected_effect(const tp_io_pattern *p, tp_window_decision *d)
{
	d->interval_before_us = p->mean_interval_us;
	/* Pacing raises every shorter interval to the window; with only the
	 * mean known, the paced mean is at least max(mean, window). */
	d->interval_after_us = fmax(p->mean_interval_us, (double)d->window_us);
	d->cost_fraction = p->mean_interval_us > 0
	                       ? d->interval_after_us / p->mean_interval_us - 1
	                       : 0;
	if (p->requests_per_client) {
		d->phase_before_us =
		    (double)p->requests_per_client * d->interval_before_us;
		d->phase_after_us =
		    (double)p->requests_per_client * d->interval_after_us;
	}
	if (d->threshold_us > 0) {
		d->load_before = p->mean_interval_us > 0
		                     ? d->threshold_us / p->mean_interval_us
		                     : INFINITY;
		d->load_after = d->interval_after_us > 0
		                    ? d->threshold_us / d->interval_after_us
		                    : INFINITY;
	}
}

tp_status tp_window_decide(const tp_io_pattern *pattern,
                           const tp_threshold_table *table,
                           const tp_throttle_policy *policy,
                           const tp_throttle_request *request,
                           tp_window_decision *d, tp_error *err)
{
	tp_throttle_request automatic = {TP_THROTTLE_AUTO, 0};
	uint64_t min_us = policy ? policy->min_window_us : 0;
	uint64_t max_us = policy ? policy->max_window_us : 0;
	tp_threshold_estimate est;
	tp_status st;
	char note[96] = "", mean[32], threshold[32], window[32], limit[32];

	memset(d, 0, sizeof(*d));
	if (!request)
		request = &automatic;
	if (!pattern && request->mode == TP_THROTTLE_FIXED)
		return user_window_alone(policy, request, d, err);
	if (!pattern || pattern->request_bytes == 0 || pattern->clients == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O pattern: request size and clients "
		                    "must be positive");
	/* Start to start, so at least one request's duration: never 0. */
	if (!(pattern->mean_interval_us > 0) ||
	    !isfinite(pattern->mean_interval_us))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "I/O pattern: mean interval must be a "
		                    "finite number > 0 us (start to start)");
	if (max_us && min_us > max_us)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "throttle policy: minimum window %llu us "
		                    "above maximum %llu us",
		                    (unsigned long long)min_us,
		                    (unsigned long long)max_us);
	d->interval_before_us = d->interval_after_us =
	    pattern->mean_interval_us;

	if (request->mode == TP_THROTTLE_OFF &&
	    (!policy || policy->allow_user_off)) {
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: the user asked for off");
		return TP_OK;
	}
	if (request->mode == TP_THROTTLE_FIXED) {
		uint64_t w = request->window_us;

		tp_window_decision site;

		/* Without ThrottleAllowUserOff a user window cannot undercut
		 * the window the site sets for this job either. */
		if (policy && !policy->allow_user_off &&
		    tp_window_decide(pattern, table, policy, &automatic, &site,
		                     NULL) == TP_OK &&
		    site.throttle && w < site.window_us) {
			w = site.window_us;
			tp_units_format_us((double)w, limit, sizeof(limit));
			snprintf(
			    note, sizeof(note),
			    " (raised to the site's window %s for this job)",
			    limit);
		} else if (min_us && w < min_us) {
			w = min_us;
			tp_units_format_us((double)min_us, limit, sizeof(limit));
			snprintf(note, sizeof(note),
			         " (raised to the site minimum %s)", limit);
		} else if (max_us && w > max_us) {
			w = max_us;
			tp_units_format_us((double)max_us, limit, sizeof(limit));
			snprintf(note, sizeof(note),
			         " (lowered to the site maximum %s)", limit);
		}
		d->throttle = true;
		d->window_us = w;
		if (table && tp_threshold_lookup(table, pattern->request_bytes,
		                                 pattern->clients, &est,
		                                 NULL) == TP_OK) {
			d->threshold_us = est.threshold_us;
			d->threshold_extrapolated = est.extrapolated;
		}
		expected_effect(pattern, d);
		tp_units_format_us((double)w, window, sizeof(window));
		snprintf(d->reason, sizeof(d->reason),
		         "window %s set by the user%s", window, note);
		return TP_OK;
	}
	/* auto (or off refused by policy) */
	if (!class_throttled(policy, pattern->job_class)) {
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: class '%s' is not throttled by the "
		         "site policy",
		         pattern->job_class ? pattern->job_class : "");
		return TP_OK;
	}
	if (!table) {
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: no threshold table configured");
		return TP_OK;
	}
	st = tp_threshold_lookup(table, pattern->request_bytes,
	                         pattern->clients, &est, err);
	if (st != TP_OK)
		return st;
	d->threshold_us = est.threshold_us;
	d->threshold_extrapolated = est.extrapolated;
	if (pattern->mean_interval_us >= est.threshold_us) {
		expected_effect(pattern, d);
		tp_units_format_us(pattern->mean_interval_us, mean,
		                   sizeof(mean));
		tp_units_format_us(est.threshold_us, threshold,
		                   sizeof(threshold));
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: mean interval %s is already at "
		         "or above the threshold %s%s",
		         mean, threshold,
		         est.extrapolated ? " (extrapolated)" : "");
		return TP_OK;
	}
	/* The smallest whole-microsecond window with mean >= threshold. */
	d->window_us = (uint64_t)ceil(est.threshold_us);
	if (min_us && d->window_us < min_us) {
		d->window_us = min_us;
		snprintf(note, sizeof(note), "; raised to the site minimum");
	} else if (max_us && d->window_us > max_us) {
		d->window_us = max_us;
		snprintf(note, sizeof(note),
		         "; capped at the site maximum, still below the "
		         "threshold");
	}
	d->throttle = true;
	expected_effect(pattern, d);
	tp_units_format_us(pattern->mean_interval_us, mean, sizeof(mean));
	tp_units_format_us(est.threshold_us, threshold, sizeof(threshold));
	tp_units_format_us((double)d->window_us, window, sizeof(window));
	snprintf(d->reason, sizeof(d->reason),
	         "mean interval %s is below the threshold %s%s: window %s%s",
	         mean, threshold, est.extrapolated ? " (extrapolated)" : "",
	         window, note);
	return TP_OK;
}
