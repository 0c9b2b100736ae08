/*
 * prep_throttle.c: which inputs a job's throttle window is decided from
 * (prep_throttle.h).  Kept apart from throttle/window.c because it reads
 * topoplace.conf's settings (config/ sits above throttle/) and logs with
 * the job's name, as slurmd and slurmstepd must say it; the arithmetic
 * stays in window.c, so the clamp and the user's word are written once.
 */
#include "prep_throttle.h"

#include <inttypes.h>
#include <stdio.h>

#include "threshold.h"

/* An error on a loud decider, a debug line on the others. */
static tp_log_level loud_error(const tp_prep_throttle_who *who)
{
	return who->loud ? TP_LOG_ERROR : TP_LOG_DEBUG;
}

/* ThrottleMode=off or tbf: no window from topoplace (tbf: the servers
 * pace), and a user's fixed window is said to be ignored. */
static bool mode_gives_no_window(const tp_prep_throttle_who *who,
                                 const tp_config_settings *settings,
                                 const tp_throttle_request *request)
{
	const char *mode = tp_throttle_enforce_name(settings->throttle_mode);

	if (settings->throttle_mode != TP_THROTTLE_ENFORCE_OFF &&
	    settings->throttle_mode != TP_THROTTLE_ENFORCE_TBF)
		return false;
	if (request->mode == TP_THROTTLE_FIXED)
		tp_log(who->log, who->loud ? TP_LOG_INFO : TP_LOG_DEBUG,
		       "%s: --io-throttle ignored: ThrottleMode=%s", who->who,
		       mode);
	else if (who->dbg)
		tp_log(who->log, TP_LOG_INFO,
		       "Throttle: %s: ThrottleMode=%s: no window", who->who,
		       mode);
	return true;
}

/* DebugFlags=Throttle: the window chosen from the profile and why. */
static void log_profile_window(const tp_prep_throttle_who *who,
                               const tp_window_decision *dec)
{
	tp_log(who->log, TP_LOG_INFO,
	       "Throttle: %s: window %" PRIu64 " us (threshold %.0f us%s): "
	       "interval %.0f -> %.0f us, load %.2f -> %.2f, I/O phase up to "
	       "%.0f%% longer",
	       who->who, dec->window_us, dec->threshold_us,
	       dec->threshold_extrapolated ? ", extrapolated" : "",
	       dec->interval_before_us, dec->interval_after_us,
	       dec->load_before, dec->load_after, 100.0 * dec->cost_fraction);
}

/* The window from the profile's I/O @pattern and the threshold table. */
static bool profile_window(const tp_prep_throttle_who *who,
                           const tp_config_settings *settings,
                           const tp_throttle_policy *policy,
                           const tp_io_pattern *pattern,
                           const tp_throttle_request *request,
                           tp_window_decision *dec)
{
	tp_threshold_table *table = NULL;
	tp_error err;
	tp_status rc;

	if (who->dbg)
		tp_log(who->log, TP_LOG_INFO,
		       "Throttle: %s: profile I/O: class %s, %" PRIu64
		       " B requests, %u clients, %" PRIu64
		       " requests per client every %.0f us; ThresholdTable=%s",
		       who->who, pattern->job_class, pattern->request_bytes,
		       pattern->clients, pattern->requests_per_client,
		       pattern->mean_interval_us,
		       settings->threshold_table ? settings->threshold_table
		                                 : "none");
	if (settings->threshold_table &&
	    tp_threshold_table_read(settings->threshold_table, &table, &err) !=
	        TP_OK) {
		tp_log(who->log, loud_error(who),
		       "%s: %s: no automatic throttling", who->who,
		       err.message);
		table = NULL;
	}
	rc = tp_window_decide(pattern, table, policy, request, dec, &err);
	tp_threshold_table_free(table);
	if (rc != TP_OK) {
		tp_log(who->log, loud_error(who),
		       "%s: throttle: %s: not throttled", who->who,
		       err.message);
		return false;
	}
	if (!dec->throttle) {
		if (who->dbg)
			tp_log(who->log, TP_LOG_INFO,
			       "Throttle: %s: not throttled: %s", who->who,
			       dec->reason);
		else
			tp_log(who->log, TP_LOG_DEBUG, "%s: not throttled: %s",
			       who->who, dec->reason);
		return false;
	}
	if (who->dbg)
		log_profile_window(who, dec);
	return true;
}

/* No I/O from a profile: the user's fixed window within the policy's
 * bounds (window.c owns them), else no window. */
static bool user_window(const tp_prep_throttle_who *who,
                        const tp_throttle_policy *policy,
                        const tp_throttle_request *request,
                        tp_window_decision *dec)
{
	tp_error err;

	if (request->mode != TP_THROTTLE_FIXED) {
		if (who->dbg)
			tp_log(who->log, TP_LOG_INFO,
			       "Throttle: %s: no I/O in a profile and no "
			       "--io-throttle window: not throttled",
			       who->who);
		return false;
	}
	if (tp_window_decide(NULL, NULL, policy, request, dec, &err) != TP_OK) {
		tp_log(who->log, loud_error(who),
		       "%s: throttle: %s: not throttled", who->who,
		       err.message);
		return false;
	}
	if (who->dbg)
		tp_log(who->log, TP_LOG_INFO,
		       "Throttle: %s: --io-throttle %" PRIu64 " us, bounded by "
		       "ThrottleMinWindow/ThrottleMaxWindow: window %" PRIu64
		       " us",
		       who->who, request->window_us, dec->window_us);
	return true;
}

bool tp_prep_throttle_decide(const tp_prep_throttle_who *who,
                             const tp_config_settings *settings,
                             const tp_io_pattern *pattern,
                             const tp_throttle_request *request,
                             uint64_t *window_us, char *reason,
                             size_t reason_size)
{
	tp_throttle_policy policy;
	tp_window_decision dec;
	bool throttle;

	if (mode_gives_no_window(who, settings, request))
		return false;
	tp_config_throttle_policy(settings, &policy);
	throttle = pattern ? profile_window(who, settings, &policy, pattern,
	                                    request, &dec)
	                   : user_window(who, &policy, request, &dec);
	if (!throttle)
		return false;
	*window_us = dec.window_us;
	snprintf(reason, reason_size, "%s", dec.reason);
	return true;
}

bool tp_prep_throttle_user_window_changed(const tp_throttle_request *request,
                                          uint64_t window_us)
{
	return request->mode == TP_THROTTLE_FIXED &&
	       request->window_us != window_us;
}
