/*
 * threshold.c: knee detection on median latency against interval, the
 * threshold table, its file format and log-log interpolation (see
 * threshold.h for the method).
 */
#include "tp_config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "threshold.h"
#include "units.h"

#define TABLE_MAX_ENTRIES 100000
/* Samples at the bracketing intervals for full confidence. */
#define CONFIDENT_SAMPLES 20.0

void tp_threshold_params_default(tp_threshold_params *params)
{
	params->rise = 0.5;
	params->min_intervals = 5;
	params->min_samples = 5;
	params->plateau_intervals = 2;
	params->consecutive = 2;
}

static int cmp_point_interval(const void *a, const void *b)
{
	const tp_sweep_point *x = a, *y = b;

	if (x->interval_us != y->interval_us)
		return x->interval_us < y->interval_us ? -1 : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Where the line through (x1, y1), (x2, y2) reaches @y: in log-log when
 * both x are positive, linear otherwise (an interval of 0, back to back). */
static double crossing(double x1, double y1, double x2, double y2, double y)
{
	double t;

	if (y1 <= 0 || y2 <= 0 || y <= 0)
		return x2;
	if (x1 > 0 && x2 > 0) {
		t = (log(y) - log(y1)) / (log(y2) - log(y1));
		return exp(log(x1) + t * (log(x2) - log(x1)));
	}
	t = (y - y1) / (y2 - y1);
	return x1 + t * (x2 - x1);
}

/* The latency level a knee is looked for on. */
typedef enum statistic {
	STAT_IO_MEDIAN = 0,
	STAT_IO_P99,
	STAT_VICTIM_MEDIAN,
	STAT_VICTIM_P99,
} statistic;

static const char *const statistic_names[] = {
    [STAT_IO_MEDIAN] = "median I/O",
    [STAT_IO_P99] = "p99 I/O",
    [STAT_VICTIM_MEDIAN] = "median victim",
    [STAT_VICTIM_P99] = "p99 victim",
};

static double level_of(const tp_sweep_point *p, statistic stat)
{
	switch (stat) {
	case STAT_IO_MEDIAN:
		return p->median_us;
	case STAT_IO_P99:
		return p->p99_us;
	case STAT_VICTIM_MEDIAN:
		return p->victim_median_us;
	case STAT_VICTIM_P99:
		return p->victim_p99_us;
	}
	return 0;
}

/*
 * Steps 1-4 of the method (threshold.h) on the @stat latency of the
 * @n usable points (sorted by interval, n >= min_intervals).  TP_OK with
 * *out filled, or TP_ERR_NOTFOUND with the reason in @err.
 */
static tp_status knee_on(const tp_sweep_point *usable, size_t n, statistic stat,
                         const tp_threshold_params *params, const char *group,
                         tp_threshold *out, tp_error *err)
{
	const char *what = statistic_names[stat];
	double plateau_medians[64], plateau, limit, spread;
	size_t knee = 0, safe, congested_below = 0, np;
	bool found = false;

	np = params->plateau_intervals;
	for (size_t i = 0; i < np; i++)
		plateau_medians[i] = level_of(&usable[n - np + i], stat);
	qsort(plateau_medians, np, sizeof(double), cmp_double);
	plateau =
	    np % 2
	        ? plateau_medians[np / 2]
	        : (plateau_medians[np / 2 - 1] + plateau_medians[np / 2]) / 2;
	limit = plateau * (1 + params->rise);

	spread = (plateau_medians[np - 1] - plateau_medians[0]) /
	         (plateau > 0 ? plateau : 1);
	/* The longest intervals must agree with each other as closely as
	 * the congestion criterion itself, or there is no low-load level to
	 * compare against. */
	if (spread > params->rise)
		return tp_error_set(
		    err, TP_ERR_NOTFOUND,
		    "%s: no knee: %s latency never settles to "
		    "a low-load plateau (the %zu longest "
		    "intervals differ by %.0f%%; measure longer "
		    "ones)",
		    group, what, np, spread * 100);

	/* Longest interval down: the first run of congested points. */
	for (size_t top = n; top-- > 0;) {
		size_t run = 0;

		if (top + 1 < params->consecutive)
			break;
		while (run < params->consecutive &&
		       level_of(&usable[top - run], stat) > limit)
			run++;
		if (run == params->consecutive) {
			knee = top;
			found = true;
			break;
		}
	}
	if (!found) {
		double worst = 0;
		char plateau_text[32], worst_text[32], shortest_text[32];

		for (size_t i = 0; i < n; i++)
			if (level_of(&usable[i], stat) > worst)
				worst = level_of(&usable[i], stat);
		tp_units_format_us(plateau, plateau_text, sizeof(plateau_text));
		tp_units_format_us(worst, worst_text, sizeof(worst_text));
		tp_units_format_us(usable[0].interval_us, shortest_text,
		                   sizeof(shortest_text));
		return tp_error_set(
		    err, TP_ERR_NOTFOUND,
		    "%s: no knee: %s latency stays within "
		    "+%.0f%% of the plateau %s (highest %s) down "
		    "to the shortest interval %s",
		    group, what, params->rise * 100, plateau_text, worst_text,
		    shortest_text);
	}
	/* The nearest longer uncongested interval brackets the crossing. */
	for (safe = knee + 1; safe < n && level_of(&usable[safe], stat) > limit;
	     safe++)
		;
	if (knee >= n - np || safe >= n)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "%s: no knee: %s latency never settles to "
		                    "a low-load plateau (congested up to the "
		                    "longest intervals; measure longer ones)",
		                    group, what);
	for (size_t i = 0; i <= knee; i++)
		if (level_of(&usable[i], stat) > limit)
			congested_below++;

	out->request_bytes = usable[0].request_bytes;
	out->clients = usable[0].clients;
	out->plateau_us = plateau;
	out->knee_us = usable[knee].interval_us;
	out->safe_us = usable[safe].interval_us;
	out->threshold_us = crossing(
	    usable[knee].interval_us, level_of(&usable[knee], stat),
	    usable[safe].interval_us, level_of(&usable[safe], stat), limit);
	if (!(out->threshold_us >= out->knee_us))
		out->threshold_us = out->knee_us;
	if (!(out->threshold_us <= out->safe_us))
		out->threshold_us = out->safe_us;
	out->confidence =
	    (double)congested_below / (double)(knee + 1) * fmax(0, 1 - spread) *
	    fmin(1, (double)(usable[knee].samples < usable[safe].samples
	                         ? usable[knee].samples
	                         : usable[safe].samples) /
	                CONFIDENT_SAMPLES);
	out->statistic = what;
	return TP_OK;
}

tp_status tp_threshold_detect(const tp_sweep_point *points, size_t count,
                              const tp_threshold_params *params,
                              tp_threshold *out, tp_error *err)
{
	tp_threshold_params defaults;
	tp_sweep_point *usable;
	size_t n = 0, victims = 0;
	statistic median = STAT_IO_MEDIAN, tail = STAT_IO_P99;
	tp_error on_median, on_tail;
	tp_status st;
	char group[64];

	if (!params) {
		tp_threshold_params_default(&defaults);
		params = &defaults;
	}
	if (!(params->rise > 0) || params->plateau_intervals < 1 ||
	    params->plateau_intervals > 64 || params->consecutive < 1 ||
	    params->min_intervals < params->plateau_intervals + 1)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "threshold: bad parameters (rise > 0, "
		                    "1 <= plateau intervals <= 64, "
		                    "min intervals > plateau intervals)");
	if (count == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "threshold: too few points: none");
	snprintf(group, sizeof(group), "%llu bytes x %u clients",
	         (unsigned long long)points[0].request_bytes,
	         points[0].clients);
	for (size_t i = 0; i < count; i++)
		if (points[i].victim_samples >= params->min_samples)
			victims++;
	/* With the victim traffic measured at every point, its latency is
	 * what the throttle protects: the knee is looked for there. */
	if (victims == count) {
		median = STAT_VICTIM_MEDIAN;
		tail = STAT_VICTIM_P99;
	}
	usable = malloc(count * sizeof(*usable));
	if (!usable)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    group);
	for (size_t i = 0; i < count; i++) {
		if (points[i].request_bytes != points[0].request_bytes ||
		    points[i].clients != points[0].clients) {
			free(usable);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: points of another size or "
			                    "client count mixed in",
			                    group);
		}
		if ((median == STAT_VICTIM_MEDIAN
		         ? points[i].victim_samples
		         : points[i].samples) >= params->min_samples)
			usable[n++] = points[i];
	}
	qsort(usable, n, sizeof(*usable), cmp_point_interval);
	for (size_t i = 1; i < n; i++)
		if (usable[i].interval_us == usable[i - 1].interval_us) {
			double twice = usable[i].interval_us;

			free(usable);
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: interval %.3f us given twice",
			                    group, twice);
		}
	if (n < params->min_intervals) {
		free(usable);
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: too few points: %zu intervals with at "
		                    "least %zu samples, need %zu",
		                    group, n, params->min_samples,
		                    params->min_intervals);
	}
	/* The median first; interference that only shows in the tail (a
	 * few messages stuck behind I/O bursts) moves the p99 alone. */
	st = knee_on(usable, n, median, params, group, out, &on_median);
	if (st == TP_ERR_NOTFOUND) {
		st = knee_on(usable, n, tail, params, group, out, &on_tail);
		/* Both reasons, the group and "no knee" said once. */
		if (st == TP_ERR_NOTFOUND)
			tp_error_set(err, st, "%s; %s", on_median.message,
			             on_tail.message + strlen(group) +
			                 strlen(": no knee: "));
	} else if (st != TP_OK && err) {
		*err = on_median;
	}
	free(usable);
	return st;
}

static int key_cmp(uint64_t b1, uint32_t c1, uint64_t b2, uint32_t c2)
{
	if (b1 != b2)
		return b1 < b2 ? -1 : 1;
	if (c1 != c2)
		return c1 < c2 ? -1 : 1;
	return 0;
}

void tp_threshold_table_free(tp_threshold_table *table)
{
	if (!table)
		return;
	free(table->entries);
	free(table->curve);
	free(table);
}

static int curve_cmp(const tp_curve_point *a, const tp_curve_point *b)
{
	int c =
	    key_cmp(a->request_bytes, a->clients, b->request_bytes, b->clients);

	if (c)
		return c;
	if (a->window_us != b->window_us)
		return a->window_us < b->window_us ? -1 : 1;
	return 0;
}

tp_status tp_threshold_table_add_curve(tp_threshold_table *table,
                                       const tp_curve_point *point,
                                       tp_error *err)
{
	tp_curve_point *grown;
	size_t at = table->curve_count;

	if (!(point->window_us >= 0 &&
	      point->window_us <= TP_SWEEP_MAX_INTERVAL_US) ||
	    !(point->io_interval_us >= 0) || !(point->victim_mean_x >= 0) ||
	    !(point->victim_p99_x >= 0) || !isfinite(point->io_interval_us) ||
	    !isfinite(point->victim_mean_x) || !isfinite(point->victim_p99_x))
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "threshold table: curve point of %llu bytes "
		    "x %u clients: values out of range",
		    (unsigned long long)point->request_bytes, point->clients);
	if (table->curve_count >= TP_THRESHOLD_MAX_CURVE_POINTS)
		return tp_error_set(
		    err, TP_ERR_LIMIT,
		    "threshold table: more than %d curve points",
		    TP_THRESHOLD_MAX_CURVE_POINTS);
	while (at > 0) {
		int c = curve_cmp(&table->curve[at - 1], point);

		if (c == 0)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "threshold table: %llu bytes x %u clients: window "
			    "%.3f us given twice",
			    (unsigned long long)point->request_bytes,
			    point->clients, point->window_us);
		if (c < 0)
			break;
		at--;
	}
	grown = realloc(table->curve,
	                (table->curve_count + 1) * sizeof(*table->curve));
	if (!grown)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "threshold table: out of memory");
	table->curve = grown;
	memmove(grown + at + 1, grown + at,
	        (table->curve_count - at) * sizeof(*grown));
	grown[at] = *point;
	table->curve_count++;
	return TP_OK;
}

bool tp_threshold_curve(const tp_threshold_table *table, uint64_t request_bytes,
                        uint32_t clients, const tp_curve_point **points,
                        size_t *count, bool *exact)
{
	size_t best = 0, n;
	double best_distance = INFINITY;

	if (!table || table->curve_count == 0 || !request_bytes || !clients)
		return false;
	for (size_t i = 0; i < table->curve_count; i++) {
		const tp_curve_point *c = &table->curve[i];
		double d = fabs(log((double)c->request_bytes /
		                    (double)request_bytes)) +
		           fabs(log((double)c->clients / (double)clients));

		if (d < best_distance) {
			best_distance = d;
			best = i;
		}
	}
	for (n = best; n < table->curve_count &&
	               table->curve[n].request_bytes ==
	                   table->curve[best].request_bytes &&
	               table->curve[n].clients == table->curve[best].clients;
	     n++)
		;
	*points = &table->curve[best];
	*count = n - best;
	*exact = best_distance == 0;
	return true;
}

tp_status tp_threshold_table_add(tp_threshold_table *table,
                                 const tp_threshold *entry, tp_error *err)
{
	tp_threshold *grown;
	size_t at = table->count;

	if (!(entry->threshold_us > 0) ||
	    !(entry->threshold_us <= TP_SWEEP_MAX_INTERVAL_US) ||
	    entry->request_bytes == 0 || entry->clients == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "threshold table: entry %llu bytes x %u "
		                    "clients: threshold must be > 0",
		                    (unsigned long long)entry->request_bytes,
		                    entry->clients);
	if (table->count >= TABLE_MAX_ENTRIES)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "threshold table: more than %d entries",
		                    TABLE_MAX_ENTRIES);
	while (at > 0) {
		int c = key_cmp(table->entries[at - 1].request_bytes,
		                table->entries[at - 1].clients,
		                entry->request_bytes, entry->clients);

		if (c == 0)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "threshold table: %llu bytes x %u clients "
			    "given twice",
			    (unsigned long long)entry->request_bytes,
			    entry->clients);
		if (c < 0)
			break;
		at--;
	}
	grown = realloc(table->entries,
	                (table->count + 1) * sizeof(*table->entries));
	if (!grown)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "threshold table: out of memory");
	table->entries = grown;
	memmove(grown + at + 1, grown + at,
	        (table->count - at) * sizeof(*grown));
	grown[at] = *entry;
	table->count++;
	return TP_OK;
}

/*
 * The curve of one group (@p[n], sorted by interval): every interval with
 * enough samples, the victim latencies over the no-I/O ones: the alone
 * rows when the sweep has them, else the longest interval's (the least
 * disturbed measured, so slowdowns are if anything understated).
 */
static tp_status add_group_curve(tp_threshold_table *t, const tp_sweep_point *p,
                                 size_t n, const tp_threshold_params *params,
                                 tp_error *err)
{
	size_t min_samples = params ? params->min_samples : 5;
	double last_mean = 0, last_p99 = 0;
	tp_status st;

	for (size_t i = n; i-- > 0;)
		if (p[i].victim_samples >= min_samples) {
			last_mean = p[i].victim_mean_us;
			last_p99 = p[i].victim_p99_us;
			break;
		}
	for (size_t i = 0; i < n; i++) {
		/* Each point's own baseline: with several runs, the worst
		 * run's (tp_sweep_point); with one, the group's. */
		double base_mean =
		    p[i].alone_mean_us > 0 ? p[i].alone_mean_us : last_mean;
		double base_p99 =
		    p[i].alone_mean_us > 0 ? p[i].alone_p99_us : last_p99;
		tp_curve_point c = {.request_bytes = p[i].request_bytes,
		                    .clients = p[i].clients,
		                    .window_us = p[i].interval_us,
		                    .io_interval_us = p[i].io_interval_us,
		                    .io_interval_median_us =
		                        p[i].io_interval_median_us,
		                    .runs = p[i].runs ? (uint32_t)p[i].runs : 1,
		                    .worst_run = p[i].worst_run};

		/* The spread only when every run measured the victims over
		 * its own baseline: then N is the point's runs. */
		if (p[i].runs > 1 && p[i].slowdown_runs == p[i].runs) {
			c.victim_mean_x_mean = p[i].slowdown_mean_x;
			c.victim_mean_x_sd = p[i].slowdown_sd_x;
		}

		if (p[i].samples < min_samples &&
		    p[i].victim_samples < min_samples)
			continue;
		if (p[i].victim_samples >= min_samples && base_mean > 0) {
			c.victim_mean_x = p[i].victim_mean_us / base_mean;
			c.victim_p99_x =
			    base_p99 > 0 ? p[i].victim_p99_us / base_p99 : 0;
		}
		if ((st = tp_threshold_table_add_curve(t, &c, err)) != TP_OK)
			return st;
	}
	return TP_OK;
}

tp_status tp_threshold_table_from_sweep(const tp_sweep *sweep,
                                        const tp_threshold_params *params,
                                        const tp_logger *logger,
                                        tp_threshold_table **table,
                                        tp_error *err)
{
	tp_sweep_point *points;
	tp_threshold_table *t;
	tp_error first = {TP_OK, ""};
	size_t count;
	tp_status st;

	st = tp_sweep_points(sweep, &points, &count, err);
	if (st != TP_OK)
		return st;
	t = calloc(1, sizeof(*t));
	if (!t) {
		free(points);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "threshold table: out of memory");
	}
	for (size_t i = 0; i < count;) {
		size_t j = i;
		tp_threshold th;
		tp_error e;

		while (j < count &&
		       points[j].request_bytes == points[i].request_bytes &&
		       points[j].clients == points[i].clients)
			j++;
		st = tp_threshold_detect(points + i, j - i, params, &th, &e);
		if (st == TP_OK) {
			st = tp_threshold_table_add(t, &th, err);
			if (st == TP_OK)
				st = add_group_curve(t, points + i, j - i,
				                     params, err);
			if (st != TP_OK) {
				free(points);
				tp_threshold_table_free(t);
				return st;
			}
		} else if (st == TP_ERR_NOMEM) {
			*err = e;
			free(points);
			tp_threshold_table_free(t);
			return st;
		} else {
			tp_log(logger, TP_LOG_WARNING, "%s", e.message);
			if (first.code == TP_OK)
				first = e;
		}
		i = j;
	}
	free(points);
	if (t->count == 0) {
		tp_threshold_table_free(t);
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "no threshold in the sweep: %s",
		                    first.message);
	}
	*table = t;
	return TP_OK;
}

int tp_threshold_format(const tp_threshold *e, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%llu,%u,%.3f,%.3f,%.3f\n",
	                 (unsigned long long)e->request_bytes, e->clients,
	                 e->threshold_us, e->plateau_us, e->confidence);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

int tp_threshold_format_v2(const tp_threshold *e, const tp_curve_point *c,
                           char *buf, size_t size)
{
	int n = snprintf(
	    buf, size, "%llu,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f\n",
	    (unsigned long long)e->request_bytes, e->clients, e->threshold_us,
	    e->plateau_us, e->confidence, c->window_us, c->io_interval_us,
	    c->victim_mean_x, c->victim_p99_x);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

int tp_threshold_format_v3(const tp_threshold *e, const tp_curve_point *c,
                           char *buf, size_t size)
{
	int n = tp_threshold_format_v2(e, c, buf, size);
	int m;

	if (n < 1)
		return -1;
	/* The version 2 line without its newline, then the run columns. */
	m = snprintf(buf + n - 1, size - (size_t)(n - 1), ",%u,%u\n", c->runs,
	             c->worst_run);
	return m < 0 || (size_t)m >= size - (size_t)(n - 1) ? -1 : n - 1 + m;
}

int tp_threshold_format_v4(const tp_threshold *e, const tp_curve_point *c,
                           char *buf, size_t size)
{
	int n = tp_threshold_format_v3(e, c, buf, size);
	int m;

	if (n < 1)
		return -1;
	m = snprintf(buf + n - 1, size - (size_t)(n - 1), ",%.3f\n",
	             c->io_interval_median_us);
	return m < 0 || (size_t)m >= size - (size_t)(n - 1) ? -1 : n - 1 + m;
}

int tp_threshold_format_v5(const tp_threshold *e, const tp_curve_point *c,
                           char *buf, size_t size)
{
	int n = tp_threshold_format_v4(e, c, buf, size);
	int m;

	if (n < 1)
		return -1;
	m = snprintf(buf + n - 1, size - (size_t)(n - 1), ",%.4f,%.4f\n",
	             c->victim_mean_x_mean, c->victim_mean_x_sd);
	return m < 0 || (size_t)m >= size - (size_t)(n - 1) ? -1 : n - 1 + m;
}

int tp_threshold_table_version(const tp_threshold_table *table)
{
	int version = table->curve_count ? 2 : 1;

	for (size_t i = 0; i < table->curve_count; i++) {
		const tp_curve_point *c = &table->curve[i];

		if (c->runs > 1 && c->victim_mean_x_mean > 0)
			return 5;
		if (c->runs > 1 && c->io_interval_median_us > 0)
			version = 4;
		else if (c->runs > 1 && version < 3)
			version = 3;
	}
	return version;
}

/* A version 2 line's entry may repeat (one line per window): the same
 * values as its first line, or an error. */
static tp_status add_or_match(tp_threshold_table *t, const tp_threshold *e,
                              tp_csv *csv, tp_error *err)
{
	for (size_t i = 0; i < t->count; i++) {
		const tp_threshold *o = &t->entries[i];

		if (o->request_bytes != e->request_bytes ||
		    o->clients != e->clients)
			continue;
		if (o->threshold_us != e->threshold_us ||
		    o->plateau_us != e->plateau_us ||
		    o->confidence != e->confidence)
			return tp_error_set(
			    err, TP_ERR_PARSE,
			    "%s: line %lu: %llu bytes x %u clients: threshold, "
			    "plateau or confidence differ from its earlier "
			    "line",
			    csv->name, csv->line_no,
			    (unsigned long long)e->request_bytes, e->clients);
		return TP_OK;
	}
	return tp_threshold_table_add(t, e, err);
}

/*
 * Field 11 of a version 4 line: the median run's interval of @c, which
 * lies between the runs' intervals and so on the near side of the bound
 * io_interval_us (the fastest run's at window 0, the slowest's above),
 * is the bound itself for one run, and is measured when the bound is.
 */
static tp_status parse_median_field(tp_csv *csv, tp_curve_point *c,
                                    tp_error *err)
{
	double median, bound = c->io_interval_us;
	const char *why = NULL;
	tp_status st;

	if ((st = tp_csv_decimal(csv, 11, "io_interval_median_us", 0,
	                         TP_SWEEP_MAX_INTERVAL_US, &median, err)) !=
	    TP_OK)
		return st;
	if ((median > 0) != (bound > 0))
		why = "must be 0 exactly when io_interval_us is (not measured)";
	else if (c->runs == 1 && fabs(median - bound) > 0.0015)
		why = "must equal io_interval_us for a window of one run";
	else if (c->window_us == 0 && median < bound)
		why = "is below io_interval_us, the fastest run's, at window 0";
	else if (c->window_us > 0 && median > bound)
		why = "is above io_interval_us, the slowest run's";
	if (why)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: column %u: "
		                    "io_interval_median_us %.3f %s (%.3f)",
		                    csv->name, csv->line_no, csv->columns[11],
		                    median, why, bound);
	c->io_interval_median_us = median;
	return TP_OK;
}

/*
 * Fields 12-13 of a version 5 line: the mean and standard deviation of
 * the victim slowdown over the runs of @c, given only with its victim
 * mean (the worst run's, so at least the mean, to the written rounding)
 * and for one run a mean that is that run's with no spread.
 */
static tp_status parse_spread_fields(tp_csv *csv, tp_curve_point *c,
                                     tp_error *err)
{
	double mean, sd;
	const char *why = NULL;
	tp_status st;

	if ((st = tp_csv_decimal(csv, 12, "victim_mean_x_mean", 0, 1e9, &mean,
	                         err)) != TP_OK ||
	    (st = tp_csv_decimal(csv, 13, "victim_mean_x_sd", 0, 1e9, &sd,
	                         err)) != TP_OK)
		return st;
	if (mean > 0 && !(c->victim_mean_x > 0))
		why = "is given where victim_mean_x is not (0)";
	else if (mean > c->victim_mean_x + 0.00015)
		why = "is above victim_mean_x, the worst run's";
	else if (c->runs == 1 && mean > 0 &&
	         (fabs(mean - c->victim_mean_x) > 0.00015 || sd > 0))
		why = "must be victim_mean_x with sd 0 for a window of one run";
	else if (!(mean > 0) && sd > 0)
		why = "is 0 (not given) but its sd is not";
	if (why)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: column %u: "
		                    "victim_mean_x_mean %.4f %s (%.4f)",
		                    csv->name, csv->line_no, csv->columns[12],
		                    mean, why, c->victim_mean_x);
	c->victim_mean_x_mean = mean;
	c->victim_mean_x_sd = mean > 0 ? sd : 0;
	return TP_OK;
}

/* Fields 5-8 of a version 2 line (9-10 of a version 3 one, 11 of a
 * version 4 one, 12-13 of a version 5 one): its curve point. */
static tp_status parse_curve_fields(tp_csv *csv, int version,
                                    const tp_threshold *e, tp_curve_point *c,
                                    tp_error *err)
{
	uint64_t v;
	tp_status st;

	*c = (tp_curve_point){.request_bytes = e->request_bytes,
	                      .clients = e->clients,
	                      .runs = 1};
	if ((st = tp_csv_decimal(csv, 5, "window_us", 0,
	                         TP_SWEEP_MAX_INTERVAL_US, &c->window_us,
	                         err)) != TP_OK ||
	    (st = tp_csv_decimal(csv, 6, "io_interval_us", 0,
	                         TP_SWEEP_MAX_INTERVAL_US, &c->io_interval_us,
	                         err)) != TP_OK ||
	    (st = tp_csv_decimal(csv, 7, "victim_mean_x", 0, 1e9,
	                         &c->victim_mean_x, err)) != TP_OK ||
	    (st = tp_csv_decimal(csv, 8, "victim_p99_x", 0, 1e9,
	                         &c->victim_p99_x, err)) != TP_OK)
		return st;
	if (version < 3)
		return TP_OK;
	if ((st = tp_csv_uint(csv, 9, "runs", 1, TP_SWEEP_MAX_RUNS, &v, err)) !=
	    TP_OK)
		return st;
	c->runs = (uint32_t)v;
	if ((st = tp_csv_uint(csv, 10, "worst_run", 0, TP_SWEEP_MAX_RUNS - 1,
	                      &v, err)) != TP_OK)
		return st;
	c->worst_run = (uint32_t)v;
	if (version < 4)
		return TP_OK;
	if ((st = parse_median_field(csv, c, err)) != TP_OK)
		return st;
	return version >= 5 ? parse_spread_fields(csv, c, err) : TP_OK;
}

/* Fields 0-4, the entry, of a line of any version. */
static tp_status parse_entry_fields(tp_csv *csv, tp_threshold *e, tp_error *err)
{
	uint64_t v;
	tp_status st;

	if ((st = tp_csv_uint(csv, 0, "request_bytes", 1, TP_UNITS_MAX_BYTES,
	                      &e->request_bytes, err)) != TP_OK ||
	    (st = tp_csv_uint(csv, 1, "clients", 1, TP_SWEEP_MAX_CLIENTS, &v,
	                      err)) != TP_OK)
		return st;
	e->clients = (uint32_t)v;
	if ((st = tp_csv_decimal(csv, 2, "threshold_us", 0.001,
	                         TP_SWEEP_MAX_INTERVAL_US, &e->threshold_us,
	                         err)) != TP_OK ||
	    (st = tp_csv_decimal(csv, 3, "plateau_us", 0,
	                         TP_SWEEP_MAX_LATENCY_US, &e->plateau_us,
	                         err)) != TP_OK ||
	    (st = tp_csv_decimal(csv, 4, "confidence", 0, 1, &e->confidence,
	                         err)) != TP_OK)
		return st;
	e->knee_us = e->safe_us = e->threshold_us;
	return TP_OK;
}

/* One line of a table of @version into @t. */
static tp_status parse_table_line(tp_csv *csv, int version,
                                  tp_threshold_table *t, tp_error *err)
{
	static const unsigned fields[] = {5, 9, 11, 12, 14};
	tp_threshold e = {0};
	tp_curve_point c;
	tp_status st;

	if ((st = tp_csv_split(csv, fields[version - 1], err)) != TP_OK ||
	    (st = parse_entry_fields(csv, &e, err)) != TP_OK)
		return st;
	if (version == 1)
		st = tp_threshold_table_add(t, &e, err);
	else if ((st = parse_curve_fields(csv, version, &e, &c, err)) ==
	             TP_OK &&
	         (st = add_or_match(t, &e, csv, err)) == TP_OK)
		st = tp_threshold_table_add_curve(t, &c, err);
	if (st != TP_OK && st != TP_ERR_PARSE)
		tp_error_prefix(err, "%s: line %lu", csv->name, csv->line_no);
	return st;
}

/* Whether @text starts with the magic line @magic. */
static bool has_magic(const char *text, size_t len, const char *magic)
{
	size_t n = strlen(magic);

	return text && len >= n && !memcmp(text, magic, n) &&
	       (len == n || text[n] == ' ' || text[n] == '\n' ||
	        text[n] == '\r');
}

const char *tp_threshold_magic(int version)
{
	return version == 5   ? TP_THRESHOLD_MAGIC_V5
	       : version == 4 ? TP_THRESHOLD_MAGIC_V4
	       : version == 3 ? TP_THRESHOLD_MAGIC_V3
	       : version == 2 ? TP_THRESHOLD_MAGIC_V2
	                      : TP_THRESHOLD_MAGIC;
}

const char *tp_threshold_header(int version)
{
	return version == 5   ? TP_THRESHOLD_HEADER_V5
	       : version == 4 ? TP_THRESHOLD_HEADER_V4
	       : version == 3 ? TP_THRESHOLD_HEADER_V3
	       : version == 2 ? TP_THRESHOLD_HEADER_V2
	                      : TP_THRESHOLD_HEADER;
}

tp_status tp_threshold_table_parse(const char *name, const char *text,
                                   size_t len, tp_threshold_table **table,
                                   tp_error *err)
{
	tp_threshold_table *t;
	int have, version = 1;
	tp_status st;
	tp_csv csv;

	if (has_magic(text, len, TP_THRESHOLD_MAGIC_V2))
		version = 2;
	else if (has_magic(text, len, TP_THRESHOLD_MAGIC_V3))
		version = 3;
	else if (has_magic(text, len, TP_THRESHOLD_MAGIC_V4))
		version = 4;
	else if (has_magic(text, len, TP_THRESHOLD_MAGIC_V5))
		version = 5;
	t = calloc(1, sizeof(*t));
	if (!t)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    name ? name : "(input)");
	tp_csv_init(&csv, name, text, len);
	for (;;) {
		if ((st = tp_csv_next_row(&csv, tp_threshold_magic(version),
		                          tp_threshold_header(version),
		                          "threshold table", &have, err)) !=
		    TP_OK)
			goto fail;
		if (!have)
			break;
		if ((st = parse_table_line(&csv, version, t, err)) != TP_OK)
			goto fail;
	}
	if (t->count == 0) {
		st = tp_error_set(err, TP_ERR_PARSE,
		                  "%s: line %lu: no thresholds in the table",
		                  csv.name, csv.line_no + 1);
		goto fail;
	}
	*table = t;
	return TP_OK;
fail:
	tp_threshold_table_free(t);
	return st;
}

tp_status tp_threshold_table_read(const char *path, tp_threshold_table **table,
                                  tp_error *err)
{
	char *text;
	size_t len;
	tp_status st;

	st = tp_csv_read_file(path, (size_t)16 << 20, &text, &len, err);
	if (st != TP_OK)
		return st;
	st = tp_threshold_table_parse(path, text, len, table, err);
	free(text);
	return st;
}

/*
 * y at x on the log-log line through the points @xs/@ys (sorted, n >= 1).
 * Outside [xs[0], xs[n-1]] the nearest two points' slope, clamped to
 * [0, 2] (thresholds do not fall with more load), and *extrapolated set.
 */
static double loglog(const double *xs, const double *ys, size_t n, double x,
                     bool *exact, bool *extrapolated)
{
	size_t i;
	double slope;

	*exact = false;
	for (i = 0; i < n; i++)
		if (xs[i] == x) {
			*exact = true;
			return ys[i];
		}
	if (n == 1) {
		*extrapolated = true;
		return ys[0] * x / xs[0];
	}
	if (x < xs[0]) {
		i = 0;
		*extrapolated = true;
	} else if (x > xs[n - 1]) {
		i = n - 2;
		*extrapolated = true;
	} else {
		for (i = 0; i + 2 < n && xs[i + 1] < x; i++)
			;
	}
	slope = (log(ys[i + 1]) - log(ys[i])) / (log(xs[i + 1]) - log(xs[i]));
	if (*extrapolated)
		slope = fmin(2, fmax(0, slope));
	return exp(log(ys[i]) + slope * (log(x) - log(xs[i])));
}

tp_status tp_threshold_lookup(const tp_threshold_table *table,
                              uint64_t request_bytes, uint32_t clients,
                              tp_threshold_estimate *estimate, tp_error *err)
{
	double *xs, *ys, *cx, *cy;
	size_t n = table ? table->count : 0, nc = 0;
	bool all_exact = true, extrapolated = false, exact;

	if (n == 0)
		return tp_error_set(err, TP_ERR_NOTFOUND,
		                    "threshold table is empty");
	if (request_bytes == 0 || clients == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "threshold lookup: request size and "
		                    "clients must be positive");
	xs = malloc(4 * n * sizeof(double));
	if (!xs)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "threshold lookup: out of memory");
	ys = xs + n;
	cx = ys + n;
	cy = cx + n;
	/* Per client count (the table is sorted by size, then clients):
	 * interpolate across sizes. */
	for (size_t i = 0; i < n; i++) {
		uint32_t c = table->entries[i].clients;
		size_t k = 0;
		bool seen = false;

		for (size_t j = 0; j < nc; j++)
			if (cx[j] == (double)c)
				seen = true;
		if (seen)
			continue;
		for (size_t j = 0; j < n; j++)
			if (table->entries[j].clients == c) {
				xs[k] = (double)table->entries[j].request_bytes;
				ys[k] = table->entries[j].threshold_us;
				k++;
			}
		cy[nc] = loglog(xs, ys, k, (double)request_bytes, &exact,
		                &extrapolated);
		cx[nc] = (double)c;
		nc++;
		if (!exact)
			all_exact = false;
	}
	/* Then across client counts (sorted for the 1-D interpolation). */
	for (size_t i = 1; i < nc; i++)
		for (size_t j = i; j > 0 && cx[j - 1] > cx[j]; j--) {
			double tx = cx[j], ty = cy[j];

			cx[j] = cx[j - 1];
			cy[j] = cy[j - 1];
			cx[j - 1] = tx;
			cy[j - 1] = ty;
		}
	estimate->threshold_us =
	    loglog(cx, cy, nc, (double)clients, &exact, &extrapolated);
	estimate->exact = false;
	for (size_t i = 0; i < n; i++)
		if (table->entries[i].request_bytes == request_bytes &&
		    table->entries[i].clients == clients) {
			estimate->exact = true;
			estimate->threshold_us = table->entries[i].threshold_us;
			extrapolated = false;
		}
	(void)all_exact;
	estimate->extrapolated = extrapolated;
	free(xs);
	return TP_OK;
}
