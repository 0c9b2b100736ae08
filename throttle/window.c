/*
 * window.c: --io-throttle parsing and the window decision (see window.h).
 */
#include "tp_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prediction.h"
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

/* A window of @w us within the site's bounds; @note says what changed. */
static uint64_t bounded(uint64_t w, uint64_t min_us, uint64_t max_us,
                        char *note, size_t size)
{
	char limit[32];

	if (min_us && w < min_us) {
		tp_units_format_us((double)min_us, limit, sizeof(limit));
		snprintf(note, size, " (raised to the site minimum %s)", limit);
		return min_us;
	}
	if (max_us && w > max_us) {
		tp_units_format_us((double)max_us, limit, sizeof(limit));
		snprintf(note, size, " (lowered to the site maximum %s)",
		         limit);
		return max_us;
	}
	return w;
}

/* The site's window bounds make sense: the minimum is not above the
 * maximum (0: unbounded). */
static tp_status check_bounds(uint64_t min_us, uint64_t max_us, tp_error *err)
{
	if (max_us && min_us > max_us)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "throttle policy: minimum window %llu us "
		                    "above maximum %llu us",
		                    (unsigned long long)min_us,
		                    (unsigned long long)max_us);
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
	char note[96] = "", window[32];
	tp_status st = check_bounds(min_us, max_us, err);

	if (st != TP_OK)
		return st;
	d->window_us =
	    bounded(request->window_us, min_us, max_us, note, sizeof(note));
	d->throttle = true;
	tp_units_format_us((double)d->window_us, window, sizeof(window));
	snprintf(d->reason, sizeof(d->reason), "window %s set by the user%s",
	         window, note);
	return TP_OK;
}

/* A plain decimal "digits[.digits]" into *value; false otherwise. */
static bool plain_decimal(const char *text, size_t len, double *value)
{
	char buf[32];
	size_t dots = 0, digits = 0;

	if (len == 0 || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '.')
			dots++;
		else if (text[i] >= '0' && text[i] <= '9')
			digits++;
		else
			return false;
	}
	if (dots > 1 || !digits || text[0] == '.' || text[len - 1] == '.')
		return false;
	memcpy(buf, text, len);
	buf[len] = 0;
	*value = strtod(buf, NULL);
	return true;
}

tp_status tp_throttle_objective_parse(const char *text,
                                      tp_throttle_objective *objective,
                                      tp_error *err)
{
	static const char slowdown[] = "mpi_slowdown<=", cost[] = "io_cost<=";
	size_t len;
	double v;

	if (!text)
		text = "";
	len = strlen(text);
	if (!strcmp(text, "none")) {
		objective->kind = TP_OBJECTIVE_NONE;
		objective->limit = 0;
		return TP_OK;
	}
	if (!strncmp(text, slowdown, sizeof(slowdown) - 1) &&
	    plain_decimal(text + sizeof(slowdown) - 1,
	                  len - (sizeof(slowdown) - 1), &v) &&
	    v >= 1 && v <= 1000) {
		objective->kind = TP_OBJECTIVE_VICTIM_SLOWDOWN;
		objective->limit = v;
		return TP_OK;
	}
	if (!strncmp(text, cost, sizeof(cost) - 1) && len > sizeof(cost) &&
	    text[len - 1] == '%' &&
	    plain_decimal(text + sizeof(cost) - 1, len - sizeof(cost), &v) &&
	    v <= 10000) {
		objective->kind = TP_OBJECTIVE_IO_COST;
		objective->limit = v / 100;
		return TP_OK;
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "ThrottleObjective '%.60s': not an objective; "
	                    "accepted: %s (X a plain number in [1, 1000], P "
	                    "in [0, 10000])",
	                    text, TP_OBJECTIVE_CHOICES);
}

tp_status tp_throttle_confidence_parse(const char *text, double *confidence,
                                       tp_error *err)
{
	double v;

	if (!text)
		text = "";
	if (!strcmp(text, "worst")) {
		*confidence = 0;
		return TP_OK;
	}
	if (plain_decimal(text, strlen(text), &v) && v >= TP_CONFIDENCE_MIN &&
	    v <= TP_CONFIDENCE_MAX) {
		*confidence = v;
		return TP_OK;
	}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "ThrottleConfidence '%.60s': not a confidence; "
	                    "accepted: %s",
	                    text, TP_CONFIDENCE_CHOICES);
}

void tp_throttle_confidence_format(double confidence, char *buf, size_t size)
{
	if (confidence > 0)
		snprintf(buf, size, "%g", confidence);
	else
		snprintf(buf, size, "worst");
}

void tp_throttle_objective_format(const tp_throttle_objective *o, char *buf,
                                  size_t size)
{
	if (!o || o->kind == TP_OBJECTIVE_NONE)
		snprintf(buf, size, "none");
	else if (o->kind == TP_OBJECTIVE_VICTIM_SLOWDOWN)
		snprintf(buf, size, "mpi_slowdown<=%g", o->limit);
	else
		snprintf(buf, size, "io_cost<=%g%%", o->limit * 100);
}

/* The interval curve point @p's expected cost is counted with: its
 * median run's when the table gives it (version 4), else its only (or
 * worst) run's. */
static double median_interval(const tp_curve_point *p)
{
	return p->io_interval_median_us > 0 ? p->io_interval_median_us
	                                    : p->io_interval_us;
}

/* The measured unthrottled client interval of @c[n] (its window-0
 * point): the median run's, or with @fastest the fastest run's; 0 when
 * not measured. */
static double measured_t0(const tp_curve_point *c, size_t n, bool fastest)
{
	if (!n || c[0].window_us != 0 || !(c[0].io_interval_us > 0))
		return 0;
	return fastest ? c[0].io_interval_us : median_interval(&c[0]);
}

/* The cost of pacing at @window_us from the unthrottled interval @t0,
 * for a job whose own interval is @job_interval_us. */
static double paced_cost(double t0, double job_interval_us, double window_us)
{
	/* The job cannot start requests faster than the servers let the
	 * measured clients; a slower job is counted from its own interval. */
	if (job_interval_us > t0)
		t0 = job_interval_us;
	return window_us > t0 ? (window_us - t0) / t0 : 0;
}

double tp_window_predicted_cost(const tp_curve_point *curve, size_t count,
                                double job_interval_us, double window_us)
{
	double t0 = measured_t0(curve, count, false);

	return t0 > 0 ? paced_cost(t0, job_interval_us, window_us) : -1;
}

/* The measured cost of curve point @p, or -1: the median run's interval
 * over the median unthrottled one, or with @bound the slowest run's over
 * the fastest unthrottled one (every measured run's cost is at most that;
 * the two are the same for a table before version 4). */
static double measured_cost(const tp_curve_point *c, size_t n,
                            const tp_curve_point *p, bool bound)
{
	double t0 = measured_t0(c, n, bound);
	double at = bound ? p->io_interval_us : median_interval(p);

	if (!(t0 > 0) || !(at > 0))
		return -1;
	return fmax(0, at / t0 - 1);
}

/* The victim slowdown (mean, or p99 with @tail) at @window_us: linear
 * between the measured windows around it, the nearest one outside them;
 * 0 when the curve measured no victim. */
static double victim_at(const tp_curve_point *c, size_t n, double window_us,
                        bool tail)
{
	const tp_curve_point *below = NULL, *above = NULL;

	for (size_t i = 0; i < n; i++) {
		double x = tail ? c[i].victim_p99_x : c[i].victim_mean_x;

		if (!(x > 0))
			continue;
		if (c[i].window_us <= window_us)
			below = &c[i];
		else if (!above)
			above = &c[i];
	}
	if (!below && !above)
		return 0;
	if (!below || !above || below->window_us == window_us)
		return below
		           ? (tail ? below->victim_p99_x : below->victim_mean_x)
		           : (tail ? above->victim_p99_x
		                   : above->victim_mean_x);
	{
		double t = (window_us - below->window_us) /
		           (above->window_us - below->window_us);
		double lo = tail ? below->victim_p99_x : below->victim_mean_x;
		double hi = tail ? above->victim_p99_x : above->victim_mean_x;

		return lo + t * (hi - lo);
	}
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

/* The measured curve for @p, if @table has one; fills the decision's
 * curve identity and T0. */
static void find_curve(const tp_threshold_table *table, const tp_io_pattern *p,
                       tp_window_decision *d, const tp_curve_point **curve,
                       size_t *count)
{
	*curve = NULL;
	*count = 0;
	if (!tp_threshold_curve(table, p->request_bytes, p->clients, curve,
	                        count, &d->curve_exact))
		return;
	d->curve = true;
	d->curve_bytes = (*curve)[0].request_bytes;
	d->curve_clients = (*curve)[0].clients;
	d->unthrottled_interval_us = measured_t0(*curve, *count, false);
	/* A bound only when the runs differ: a table of one run, or one
	 * before version 4, has a single figure. */
	if (measured_t0(*curve, *count, true) != d->unthrottled_interval_us)
		d->unthrottled_fastest_us = measured_t0(*curve, *count, true);
	d->curve_runs = 1;
	for (size_t i = 0; i < *count; i++)
		if ((*curve)[i].runs > d->curve_runs)
			d->curve_runs = (*curve)[i].runs;
}

/* Fill the cost and gain of throttling @d at d->window_us (0: not
 * throttled), from the measured @curve[@n] when there is one. */
static void expected_effect(const tp_io_pattern *p, const tp_curve_point *c,
                            size_t n, tp_window_decision *d)
{
	double before = p->mean_interval_us;

	/* Counted from what the clients actually do unthrottled: a nominal
	 * interval shorter than the servers allow would inflate the cost. */
	if (d->unthrottled_interval_us > before)
		before = d->unthrottled_interval_us;
	d->interval_before_us = before;
	/* Pacing raises every shorter interval to the window; with only the
	 * mean known, the paced mean is at least max(mean, window). */
	d->interval_after_us = fmax(before, (double)d->window_us);
	d->cost_fraction = d->interval_after_us / before - 1;
	d->cost_bound_fraction =
	    d->unthrottled_fastest_us > 0
	        ? paced_cost(d->unthrottled_fastest_us, p->mean_interval_us,
	                     (double)d->window_us)
	        : -1;
	d->measured_cost_fraction = -1;
	d->measured_cost_bound_fraction = -1;
	d->window_runs = d->window_worst_run = 0;
	d->unseen_worse_chance = 0;
	for (size_t i = 0; i < n; i++)
		if (d->window_us && c[i].window_us == (double)d->window_us) {
			d->measured_cost_fraction =
			    measured_cost(c, n, &c[i], false);
			if (d->unthrottled_fastest_us > 0)
				d->measured_cost_bound_fraction =
				    measured_cost(c, n, &c[i], true);
			d->window_runs = c[i].runs;
			d->window_worst_run = c[i].worst_run;
			d->unseen_worse_chance =
			    c[i].runs ? 1.0 / (c[i].runs + 1.0) : 0;
		}
	d->victim_before_x = victim_at(c, n, 0, false);
	d->victim_p99_before_x = victim_at(c, n, 0, true);
	d->victim_after_x = victim_at(c, n, (double)d->window_us, false);
	d->victim_p99_after_x = victim_at(c, n, (double)d->window_us, true);
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

/* The upper @confidence prediction bound for one run @p did not measure
 * (prediction.h), or 0 when it cannot be had: confidence worst, fewer
 * than 2 runs, no spread in the table (before version 5). */
static double unseen_bound(const tp_curve_point *p, double confidence)
{
	double bound;

	if (!(confidence > 0) || p->runs < 2 || !(p->victim_mean_x_mean > 0))
		return 0;
	bound = tp_prediction_upper(p->victim_mean_x_mean, p->victim_mean_x_sd,
	                            p->runs, confidence);
	return isfinite(bound) ? bound : 0;
}

/* The victim slowdown an mpi_slowdown objective judges @p on: its worst
 * measured run, or the prediction bound for an unseen run when that is
 * higher.  Never below the worst run: a window a measured run misses does
 * not meet the objective, whatever a fitted distribution says. */
static double judged_slowdown(const tp_curve_point *p, double confidence)
{
	return fmax(p->victim_mean_x, unseen_bound(p, confidence));
}

/*
 * The measured point of @c[n] that meets @o (see tp_throttle_objective),
 * judged at @confidence (slowdown objective: judged_slowdown), or NULL
 * with the reason in @why.  *met is false when no point meets it and the
 * returned point is the closest (slowdown objective only).
 */
static const tp_curve_point *meet_objective(const tp_curve_point *c, size_t n,
                                            const tp_throttle_objective *o,
                                            double confidence,
                                            const char *objective, bool *met,
                                            char *why, size_t size)
{
	const tp_curve_point *best = NULL;

	*met = true;
	if (o->kind == TP_OBJECTIVE_VICTIM_SLOWDOWN) {
		for (size_t i = 0; i < n; i++) /* by window, shortest first */
			if (c[i].victim_mean_x > 0 &&
			    judged_slowdown(&c[i], confidence) <= o->limit)
				return &c[i];
		for (size_t i = 0; i < n; i++)
			if (c[i].victim_mean_x > 0 &&
			    (!best || judged_slowdown(&c[i], confidence) <
			                  judged_slowdown(best, confidence)))
				best = &c[i];
		if (!best)
			snprintf(why, size,
			         "the measured curve has no victim latency");
		*met = false;
		return best;
	}
	for (size_t i = 0; i < n; i++) {
		/* Met in every run measured, as the slowdown objective. */
		double cost = measured_cost(c, n, &c[i], true);

		if (cost < 0 || cost > o->limit + 1e-9 ||
		    !(c[i].victim_mean_x > 0))
			continue;
		if (!best || c[i].victim_mean_x < best->victim_mean_x)
			best = &c[i];
	}
	if (!best)
		snprintf(why, size,
		         "no measured window with a victim latency and a "
		         "measured I/O cost meets %s",
		         objective);
	return best;
}

/* @text after the string in @buf[@size], cut to fit. */
static void append(char *buf, size_t size, const char *text)
{
	size_t used = strlen(buf);

	if (used + 1 < size)
		snprintf(buf + used, size - used, "%s", text);
}

/* The cost side of @d in a reason: "I/O cost +72%", with the median run
 * and the bound named when the curve's runs differ, and the measured
 * cost at a measured window. */
static void cost_words(const tp_window_decision *d, char *buf, size_t size)
{
	char bound[48] = "", measured[40] = "";

	if (d->cost_bound_fraction >= 0)
		snprintf(bound, sizeof(bound),
		         " for the median run (at most "
		         "+%.0f%%)",
		         d->cost_bound_fraction * 100);
	if (d->measured_cost_fraction >= 0)
		snprintf(measured, sizeof(measured), ", measured +%.0f%%",
		         d->measured_cost_fraction * 100);
	snprintf(buf, size, "I/O cost +%.0f%%%s%s", d->cost_fraction * 100,
	         bound, measured);
}

/* Fill @d's prediction fields for the slowdown objective's point @p at
 * @confidence and, when the bound was computed, say it in @buf (which
 * names the worst run) instead. */
static void unseen_words(const tp_curve_point *p, double confidence,
                         tp_window_decision *d, char *buf, size_t size)
{
	double bound = unseen_bound(p, confidence);

	d->confidence = confidence;
	if (!(bound > 0))
		return;
	d->slowdown_mean_x = p->victim_mean_x_mean;
	d->slowdown_sd_x = p->victim_mean_x_sd;
	d->t_quantile = tp_student_t_quantile(confidence, p->runs - 1);
	d->predicted_unseen_x = bound;
	snprintf(buf, size, ", %u runs (worst %.3fx, an unseen run %.3fx at %g%%)",
	         p->runs, p->victim_mean_x, bound, confidence * 100);
}

/*
 * Why the window below @p was not taken: the largest measured window of
 * @c[n] (by window, shortest first) below @p, into @d, with what the
 * objective judged it on.  Every such window failed (meet_objective takes
 * the first that meets it), so this is the one a site asks about.
 */
static void rejected_below(const tp_curve_point *c, size_t n,
                           const tp_curve_point *p, double confidence,
                           tp_window_decision *d)
{
	for (size_t i = (size_t)(p - c); i-- > 0;) {
		if (!(c[i].victim_mean_x > 0))
			continue;
		d->rejected_window_us = c[i].window_us;
		d->rejected_worst_x = c[i].victim_mean_x;
		d->rejected_unseen_x = unseen_bound(&c[i], confidence);
		return;
	}
}

/*
 * The automatic window from the site objective on the measured curve.
 * Returns false (the caller uses the threshold rule) with @fallback saying
 * why when the curve cannot answer.
 */
static bool decide_by_objective(const tp_io_pattern *pattern,
                                const tp_throttle_policy *policy,
                                const tp_curve_point *c, size_t n,
                                tp_window_decision *d, char *fallback,
                                size_t size)
{
	const tp_curve_point *p;
	char objective[48], why[160] = "", window[32], note[96] = "", cost[96],
	                    runs[96] = "";
	bool met;

	tp_throttle_objective_format(&policy->objective, objective,
	                             sizeof(objective));
	if (!c) {
		snprintf(fallback, size,
		         "; objective %s not applied: the threshold table has "
		         "no measured curve (version 1)",
		         objective);
		return false;
	}
	p = meet_objective(c, n, &policy->objective, policy->confidence,
	                   objective, &met, why, sizeof(why));
	if (!p) {
		snprintf(fallback, size, "; objective %s not applied: %s",
		         objective, why);
		return false;
	}
	snprintf(d->objective, sizeof(d->objective), "%s", objective);
	/* Which run decided, when the curve is the worst of several; or
	 * the bound for an unseen run, when it was higher. */
	if (p->runs > 1)
		snprintf(runs, sizeof(runs), ", worst of %u runs (run %u)",
		         p->runs, p->worst_run);
	if (policy->objective.kind == TP_OBJECTIVE_VICTIM_SLOWDOWN) {
		unseen_words(p, policy->confidence, d, runs, sizeof(runs));
		if (met)
			rejected_below(c, n, p, policy->confidence, d);
	}
	if (p->window_us == 0) {
		expected_effect(pattern, c, n, d);
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: objective %s: unthrottled, the victim "
		         "is at %.2fx of its no-I/O latency%s",
		         objective, p->victim_mean_x, runs);
		return true;
	}
	d->throttle = true;
	d->window_us =
	    bounded((uint64_t)ceil(p->window_us), policy->min_window_us,
	            policy->max_window_us, note, sizeof(note));
	expected_effect(pattern, c, n, d);
	tp_units_format_us(p->window_us, window, sizeof(window));
	cost_words(d, cost, sizeof(cost));
	snprintf(d->reason, sizeof(d->reason),
	         "window %s set by the objective %s%s on the measured curve "
	         "of %llu bytes x %u clients%s: victim %.2fx -> %.2fx, ",
	         window, objective, met ? "" : " (not met: the best measured)",
	         (unsigned long long)p->request_bytes, p->clients, runs,
	         d->victim_before_x, d->victim_after_x);
	append(d->reason, sizeof(d->reason), cost);
	append(d->reason, sizeof(d->reason), note);
	return true;
}

/*
 * The automatic window for @pattern (the caller checked it): the site
 * objective on the measured curve @c[n] when it can answer, else the
 * threshold rule.  Fills @d from scratch but for the fields the caller
 * set (intervals, measured cost).
 */
static tp_status decide_auto(const tp_io_pattern *pattern,
                             const tp_threshold_table *table,
                             const tp_throttle_policy *policy,
                             const tp_curve_point *c, size_t n,
                             tp_window_decision *d, tp_error *err)
{
	uint64_t min_us = policy ? policy->min_window_us : 0;
	uint64_t max_us = policy ? policy->max_window_us : 0;
	tp_threshold_estimate est;
	tp_status st;
	char note[96] = "", fallback[160] = "", mean[32], threshold[32],
	     window[32];

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
	if (policy->objective.kind != TP_OBJECTIVE_NONE &&
	    decide_by_objective(pattern, policy, c, n, d, fallback,
	                        sizeof(fallback)))
		return TP_OK;
	if (pattern->mean_interval_us >= est.threshold_us) {
		expected_effect(pattern, c, n, d);
		tp_units_format_us(pattern->mean_interval_us, mean,
		                   sizeof(mean));
		tp_units_format_us(est.threshold_us, threshold,
		                   sizeof(threshold));
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: mean interval %s is already at "
		         "or above the threshold %s%s%s",
		         mean, threshold,
		         est.extrapolated ? " (extrapolated)" : "", fallback);
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
	expected_effect(pattern, c, n, d);
	tp_units_format_us(pattern->mean_interval_us, mean, sizeof(mean));
	tp_units_format_us(est.threshold_us, threshold, sizeof(threshold));
	tp_units_format_us((double)d->window_us, window, sizeof(window));
	snprintf(d->reason, sizeof(d->reason),
	         "mean interval %s is below the threshold %s%s: window %s%s%s",
	         mean, threshold, est.extrapolated ? " (extrapolated)" : "",
	         window, note, fallback);
	return TP_OK;
}

/*
 * The user's window for @pattern, within the site's bounds and, when the
 * policy does not allow users to turn throttling off, never below
 * @site_window_us (the automatic window for this job; 0: none).
 */
static void decide_fixed(const tp_io_pattern *pattern,
                         const tp_threshold_table *table,
                         const tp_throttle_policy *policy,
                         const tp_throttle_request *request,
                         uint64_t site_window_us, const tp_curve_point *c,
                         size_t n, tp_window_decision *d)
{
	uint64_t min_us = policy ? policy->min_window_us : 0;
	uint64_t max_us = policy ? policy->max_window_us : 0;
	tp_threshold_estimate est;
	char note[96] = "", limit[32], window[32];

	d->throttle = true;
	d->window_us =
	    bounded(request->window_us, min_us, max_us, note, sizeof(note));
	if (d->window_us < site_window_us) {
		d->window_us = site_window_us;
		tp_units_format_us((double)site_window_us, limit,
		                   sizeof(limit));
		snprintf(note, sizeof(note),
		         " (raised to the site's window %s for this job)",
		         limit);
	}
	if (table &&
	    tp_threshold_lookup(table, pattern->request_bytes, pattern->clients,
	                        &est, NULL) == TP_OK) {
		d->threshold_us = est.threshold_us;
		d->threshold_extrapolated = est.extrapolated;
	}
	expected_effect(pattern, c, n, d);
	tp_units_format_us((double)d->window_us, window, sizeof(window));
	snprintf(d->reason, sizeof(d->reason), "window %s set by the user%s",
	         window, note);
}

tp_status tp_window_decide(const tp_io_pattern *pattern,
                           const tp_threshold_table *table,
                           const tp_throttle_policy *policy,
                           const tp_throttle_request *request,
                           tp_window_decision *d, tp_error *err)
{
	static const tp_throttle_request automatic = {TP_THROTTLE_AUTO, 0};
	uint64_t min_us = policy ? policy->min_window_us : 0;
	uint64_t max_us = policy ? policy->max_window_us : 0;
	const tp_curve_point *curve = NULL;
	size_t curve_count = 0;
	tp_status st;

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
	st = check_bounds(min_us, max_us, err);
	if (st != TP_OK)
		return st;
	d->interval_before_us = d->interval_after_us =
	    pattern->mean_interval_us;
	d->measured_cost_fraction = -1;

	if (request->mode == TP_THROTTLE_OFF &&
	    (!policy || policy->allow_user_off)) {
		snprintf(d->reason, sizeof(d->reason),
		         "not throttled: the user asked for off");
		return TP_OK;
	}
	if (table)
		find_curve(table, pattern, d, &curve, &curve_count);
	if (request->mode == TP_THROTTLE_FIXED) {
		uint64_t site_window_us = 0;

		/* Without ThrottleAllowUserOff a user window cannot undercut
		 * the window the site sets for this job either: the
		 * automatic window, from the same checked pattern and curve.
		 * A table that cannot answer for this job sets none. */
		if (policy && !policy->allow_user_off) {
			tp_window_decision site = *d;

			if (decide_auto(pattern, table, policy, curve,
			                curve_count, &site, NULL) == TP_OK &&
			    site.throttle)
				site_window_us = site.window_us;
		}
		decide_fixed(pattern, table, policy, request, site_window_us,
		             curve, curve_count, d);
		return TP_OK;
	}
	/* auto (or off refused by policy) */
	return decide_auto(pattern, table, policy, curve, curve_count, d, err);
}
