/*
 * sweep.c: the sweep file reader and per-point summaries (see sweep.h and
 * topoplace-sweep(5)).
 */
#include "tp_config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "sweep.h"
#include "units.h"

/* The kind column's words, by tp_sweep_kind: read and written here only. */
static const char *const kind_names[] = {"io", "victim", "alone"};

tp_sweep *tp_sweep_new(void)
{
	return calloc(1, sizeof(tp_sweep));
}

void tp_sweep_free(tp_sweep *sweep)
{
	if (!sweep)
		return;
	free(sweep->samples);
	free(sweep);
}

static tp_status check_sample(const tp_sweep_sample *s, tp_error *err)
{
	if (s->request_bytes < 1 || s->request_bytes > TP_UNITS_MAX_BYTES)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "sample: request_bytes %llu out of range",
		                    (unsigned long long)s->request_bytes);
	if (s->clients < 1 || s->clients > TP_SWEEP_MAX_CLIENTS)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "sample: clients %u out of range",
		                    s->clients);
	if (s->kind > TP_SWEEP_VICTIM_ALONE)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "sample: kind %d unknown", (int)s->kind);
	if (s->run >= TP_SWEEP_MAX_RUNS)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "sample: run %u out of range", s->run);
	if (s->kind == TP_SWEEP_IO && s->client >= s->clients)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "sample: client %u >= clients %u",
		                    s->client, s->clients);
	if (!(s->interval_us >= 0 &&
	      s->interval_us <= TP_SWEEP_MAX_INTERVAL_US) ||
	    !(s->start_us >= 0 && s->start_us <= TP_SWEEP_MAX_START_US) ||
	    !(s->latency_us >= 0 && s->latency_us <= TP_SWEEP_MAX_LATENCY_US))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "sample: time out of range");
	return TP_OK;
}

tp_status tp_sweep_add(tp_sweep *sweep, const tp_sweep_sample *sample,
                       tp_error *err)
{
	tp_status st = check_sample(sample, err);

	if (st != TP_OK)
		return st;
	if (sweep->count == sweep->capacity) {
		size_t cap = sweep->capacity ? sweep->capacity * 2 : 256;
		tp_sweep_sample *grown;

		if (cap > SIZE_MAX / sizeof(*grown))
			return tp_error_set(err, TP_ERR_LIMIT,
			                    "sweep: too many samples");
		grown = realloc(sweep->samples, cap * sizeof(*grown));
		if (!grown)
			return tp_error_set(err, TP_ERR_NOMEM,
			                    "sweep: out of memory at %zu "
			                    "samples",
			                    sweep->count);
		sweep->samples = grown;
		sweep->capacity = cap;
	}
	sweep->samples[sweep->count++] = *sample;
	return TP_OK;
}

/* The kind column of a version 2 row (field 6). */
static tp_status parse_kind(tp_csv *csv, tp_sweep_sample *s, tp_error *err)
{
	for (size_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (!strcmp(csv->fields[6], kind_names[k])) {
			s->kind = (tp_sweep_kind)k;
			return TP_OK;
		}
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: line %lu: column %u: kind '%.40s': not io, "
	                    "victim or alone",
	                    csv->name, csv->line_no, csv->columns[6],
	                    csv->fields[6]);
}

static tp_status parse_row(tp_csv *csv, int version, tp_sweep_sample *s,
                           tp_error *err)
{
	uint64_t v;
	tp_status st;

	if ((st = tp_csv_split(csv, 5 + version, err)) != TP_OK)
		return st;
	if (version >= 2 && (st = parse_kind(csv, s, err)) != TP_OK)
		return st;
	if (version >= 3) {
		if ((st = tp_csv_uint(csv, 7, "run", 0, TP_SWEEP_MAX_RUNS - 1,
		                      &v, err)) != TP_OK)
			return st;
		s->run = (uint32_t)v;
	}
	if ((st = tp_csv_uint(csv, 0, "request_bytes", 1, TP_UNITS_MAX_BYTES,
	                      &s->request_bytes, err)) != TP_OK)
		return st;
	if ((st = tp_csv_uint(csv, 1, "clients", 1, TP_SWEEP_MAX_CLIENTS, &v,
	                      err)) != TP_OK)
		return st;
	s->clients = (uint32_t)v;
	if ((st = tp_csv_decimal(csv, 2, "interval_us", 0,
	                         TP_SWEEP_MAX_INTERVAL_US, &s->interval_us,
	                         err)) != TP_OK)
		return st;
	if ((st = tp_csv_uint(csv, 3, "client", 0, TP_SWEEP_MAX_CLIENTS, &v,
	                      err)) != TP_OK)
		return st;
	if (s->kind == TP_SWEEP_IO && v >= s->clients)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: column %u: client %llu is "
		                    "not below clients %u",
		                    csv->name, csv->line_no, csv->columns[3],
		                    (unsigned long long)v, s->clients);
	s->client = (uint32_t)v;
	if (s->kind == TP_SWEEP_VICTIM_ALONE && s->interval_us != 0)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %lu: column %u: an alone row (no "
		                    "I/O running) must have interval_us 0",
		                    csv->name, csv->line_no, csv->columns[2]);
	if ((st = tp_csv_decimal(csv, 4, "start_us", 0, TP_SWEEP_MAX_START_US,
	                         &s->start_us, err)) != TP_OK)
		return st;
	return tp_csv_decimal(csv, 5, "latency_us", 0, TP_SWEEP_MAX_LATENCY_US,
	                      &s->latency_us, err);
}

/* Whether @text starts with the magic line @magic (then a space, the end
 * of the line or of the text). */
static bool has_magic(const char *text, size_t len, const char *magic)
{
	size_t n = strlen(magic);

	return text && len >= n && !memcmp(text, magic, n) &&
	       (len == n || text[n] == ' ' || text[n] == '\n' ||
	        text[n] == '\r');
}

static const char *const magics[] = {TP_SWEEP_MAGIC, TP_SWEEP_MAGIC_V2,
                                     TP_SWEEP_MAGIC_V3};
static const char *const headers[] = {TP_SWEEP_HEADER, TP_SWEEP_HEADER_V2,
                                      TP_SWEEP_HEADER_V3};

tp_status tp_sweep_parse(const char *name, const char *text, size_t len,
                         size_t max_samples, tp_sweep **out, tp_error *err)
{
	tp_sweep *sweep;
	tp_csv csv;
	int have, version = 1;
	tp_status st;

	/* The magic line says the version; each adds a last column (kind,
	 * then run).  Anything else is read as version 1, whose magic check
	 * names what is wrong. */
	if (has_magic(text, len, TP_SWEEP_MAGIC_V2))
		version = 2;
	else if (has_magic(text, len, TP_SWEEP_MAGIC_V3))
		version = 3;
	if (!max_samples)
		max_samples = TP_SWEEP_DEFAULT_MAX_SAMPLES;
	sweep = tp_sweep_new();
	if (!sweep)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    name ? name : "(input)");
	tp_csv_init(&csv, name, text, len);
	for (;;) {
		tp_sweep_sample s = {0};

		if ((st = tp_csv_next_row(&csv, magics[version - 1],
		                          headers[version - 1], "sweep", &have,
		                          err)) != TP_OK)
			goto fail;
		if (!have)
			break;
		if (sweep->count >= max_samples) {
			st = tp_error_set(err, TP_ERR_LIMIT,
			                  "%s: line %lu: more than %zu samples",
			                  csv.name, csv.line_no, max_samples);
			goto fail;
		}
		if ((st = parse_row(&csv, version, &s, err)) != TP_OK)
			goto fail;
		if ((st = tp_sweep_add(sweep, &s, err)) != TP_OK) {
			tp_error_prefix(err, "%s: line %lu", csv.name,
			                csv.line_no);
			goto fail;
		}
	}
	*out = sweep;
	return TP_OK;
fail:
	tp_sweep_free(sweep);
	return st;
}

tp_status tp_sweep_read(const char *path, size_t max_samples, tp_sweep **out,
                        tp_error *err)
{
	char *text;
	size_t len;
	tp_status st;

	st = tp_csv_read_file(path, (size_t)1 << 30, &text, &len, err);
	if (st != TP_OK)
		return st;
	st = tp_sweep_parse(path, text, len, max_samples, out, err);
	free(text);
	return st;
}

int tp_sweep_format_sample(const tp_sweep_sample *s, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%llu,%u,%.3f,%u,%.3f,%.3f\n",
	                 (unsigned long long)s->request_bytes, s->clients,
	                 s->interval_us, s->client, s->start_us, s->latency_us);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

int tp_sweep_format_sample_v2(const tp_sweep_sample *s, char *buf, size_t size)
{
	int n = snprintf(
	    buf, size, "%llu,%u,%.3f,%u,%.3f,%.3f,%s\n",
	    (unsigned long long)s->request_bytes, s->clients, s->interval_us,
	    s->client, s->start_us, s->latency_us,
	    kind_names[s->kind <= TP_SWEEP_VICTIM_ALONE ? s->kind : 0]);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

int tp_sweep_format_sample_v3(const tp_sweep_sample *s, char *buf, size_t size)
{
	int n = snprintf(
	    buf, size, "%llu,%u,%.3f,%u,%.3f,%.3f,%s,%u\n",
	    (unsigned long long)s->request_bytes, s->clients, s->interval_us,
	    s->client, s->start_us, s->latency_us,
	    kind_names[s->kind <= TP_SWEEP_VICTIM_ALONE ? s->kind : 0], s->run);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

int tp_sweep_version(const tp_sweep *sweep)
{
	int version = 1;

	for (size_t i = 0; sweep && i < sweep->count; i++) {
		if (sweep->samples[i].run != 0)
			return 3;
		if (sweep->samples[i].kind != TP_SWEEP_IO)
			version = 2;
	}
	return version;
}

tp_status tp_sweep_write(FILE *out, const char *name, const tp_sweep *sweep,
                         const char *comment, tp_error *err)
{
	int version = tp_sweep_version(sweep);
	bool note = comment && *comment;
	char line[256];

	fprintf(out, "%s%s%s\n%s\n", magics[version - 1], note ? " " : "",
	        note ? comment : "", headers[version - 1]);
	for (size_t k = 0; sweep && k < sweep->count; k++) {
		const tp_sweep_sample *s = &sweep->samples[k];
		int n = version == 3
		            ? tp_sweep_format_sample_v3(s, line, sizeof(line))
		        : version == 2
		            ? tp_sweep_format_sample_v2(s, line, sizeof(line))
		            : tp_sweep_format_sample(s, line, sizeof(line));

		if (n < 0)
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "%s: sample %zu does not fit a line", name, k + 1);
		fputs(line, out);
	}
	if (ferror(out))
		return tp_error_set(err, TP_ERR_IO, "%s: write failed", name);
	return TP_OK;
}

static int cmp_sample_key(const void *a, const void *b)
{
	const tp_sweep_sample *x = a, *y = b;

	if (x->request_bytes != y->request_bytes)
		return x->request_bytes < y->request_bytes ? -1 : 1;
	if (x->clients != y->clients)
		return x->clients < y->clients ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->interval_us != y->interval_us)
		return x->interval_us < y->interval_us ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->latency_us != y->latency_us)
		return x->latency_us < y->latency_us ? -1 : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_client_start(const void *a, const void *b)
{
	const tp_sweep_sample *x = a, *y = b;

	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	return 0;
}

/* The @q quantile (0..1) of sorted @v[n] by linear interpolation. */
static double quantile(const tp_sweep_sample *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	double frac = pos - (double)lo;

	if (lo + 1 >= n)
		return v[n - 1].latency_us;
	return v[lo].latency_us * (1 - frac) + v[lo + 1].latency_us * frac;
}

static double mean_latency(const tp_sweep_sample *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i].latency_us;
	return n ? sum / (double)n : 0;
}

/* The clients' mean start-to-start interval over @v[n] (I/O rows of one
 * point); reorders @v by (client, start). */
static double measured_interval(tp_sweep_sample *v, size_t n)
{
	double sum = 0;
	size_t clients = 0;

	qsort(v, n, sizeof(*v), cmp_client_start);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j].client == v[i].client)
			j++;
		if (j - i >= 2) {
			sum += (v[j - 1].start_us - v[i].start_us) /
			       (double)(j - i - 1);
			clients++;
		}
		i = j;
	}
	return clients ? sum / (double)clients : 0;
}

/* Summarise the rows of one (size, clients, interval), sorted by kind
 * then latency, into @out. */
static void summarise_point(tp_sweep_sample *v, size_t n, tp_sweep_point *out)
{
	size_t io = 0, victim;

	memset(out, 0, sizeof(*out));
	out->request_bytes = v[0].request_bytes;
	out->clients = v[0].clients;
	out->interval_us = v[0].interval_us;
	out->runs = 1;
	out->worst_run = v[0].run;
	while (io < n && v[io].kind == TP_SWEEP_IO)
		io++;
	for (victim = io; victim < n && v[victim].kind == TP_SWEEP_VICTIM;
	     victim++)
		;
	victim -= io;
	out->samples = io;
	if (io) {
		out->median_us = quantile(v, io, 0.5);
		out->p95_us = quantile(v, io, 0.95);
		out->p99_us = quantile(v, io, 0.99);
		out->mean_us = mean_latency(v, io);
	}
	out->victim_samples = victim;
	if (victim) {
		out->victim_median_us = quantile(v + io, victim, 0.5);
		out->victim_p99_us = quantile(v + io, victim, 0.99);
		out->victim_mean_us = mean_latency(v + io, victim);
	}
	if (n > io + victim) {
		out->alone_samples = n - io - victim;
		out->alone_mean_us =
		    mean_latency(v + io + victim, out->alone_samples);
		out->alone_p99_us =
		    quantile(v + io + victim, out->alone_samples, 0.99);
	}
	if (io)
		out->io_interval_us = measured_interval(v, io);
}

static bool same_group(const tp_sweep_point *a, const tp_sweep_point *b)
{
	return a->request_bytes == b->request_bytes && a->clients == b->clients;
}

/* Give every point of a run the run's alone (no-I/O) victim baseline, or
 * when the run has no alone rows the first of its (size, clients) group
 * that has, and drop the points that held alone rows only (all have
 * interval 0).  @p[n] is sorted by (size, clients, run, interval).
 * Returns the new count. */
static size_t spread_baseline(tp_sweep_point *p, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		tp_sweep_point group_alone = {0}; /* copies: p[] is rewritten */

		while (j < n && same_group(&p[j], &p[i])) {
			if (p[j].alone_samples && !group_alone.alone_samples)
				group_alone = p[j];
			j++;
		}
		for (size_t r = i; r < j;) {
			size_t e = r;
			tp_sweep_point alone = group_alone;

			for (; e < j && p[e].worst_run == p[r].worst_run; e++)
				if (p[e].alone_samples)
					alone = p[e];
			for (size_t m = r; m < e; m++) {
				tp_sweep_point point = p[m];

				point.alone_samples = alone.alone_samples;
				point.alone_mean_us = alone.alone_mean_us;
				point.alone_p99_us = alone.alone_p99_us;
				if (point.samples || point.victim_samples)
					p[k++] = point;
			}
			r = e;
		}
		i = j;
	}
	return k;
}

static int cmp_point_key(const void *a, const void *b)
{
	const tp_sweep_point *x = a, *y = b;

	if (x->request_bytes != y->request_bytes)
		return x->request_bytes < y->request_bytes ? -1 : 1;
	if (x->clients != y->clients)
		return x->clients < y->clients ? -1 : 1;
	if (x->interval_us != y->interval_us)
		return x->interval_us < y->interval_us ? -1 : 1;
	if (x->worst_run != y->worst_run)
		return x->worst_run < y->worst_run ? -1 : 1;
	return 0;
}

/* @v over its no-I/O baseline @base, or @v itself without one. */
static double over(double v, double base)
{
	return base > 0 ? v / base : v;
}

/* Fold run point @r into @w, the worst so far of the same point (see
 * tp_sweep_point for what "worst" keeps). */
static void fold_run(tp_sweep_point *w, const tp_sweep_point *r)
{
	bool victims = w->victim_samples && r->victim_samples;

	if (victims && over(r->victim_mean_us, r->alone_mean_us) >
	                   over(w->victim_mean_us, w->alone_mean_us)) {
		w->victim_mean_us = r->victim_mean_us;
		w->alone_mean_us = r->alone_mean_us;
		w->alone_samples = r->alone_samples;
		w->worst_run = r->worst_run;
	} else if (!victims && r->median_us > w->median_us) {
		w->worst_run = r->worst_run;
	}
	if (victims && over(r->victim_p99_us, r->alone_p99_us) >
	                   over(w->victim_p99_us, w->alone_p99_us)) {
		w->victim_p99_us = r->victim_p99_us;
		w->alone_p99_us = r->alone_p99_us;
	}
	w->victim_median_us = fmax(w->victim_median_us, r->victim_median_us);
	if (r->victim_samples < w->victim_samples)
		w->victim_samples = r->victim_samples;
	if (r->samples < w->samples)
		w->samples = r->samples;
	w->median_us = fmax(w->median_us, r->median_us);
	w->mean_us = fmax(w->mean_us, r->mean_us);
	w->p95_us = fmax(w->p95_us, r->p95_us);
	w->p99_us = fmax(w->p99_us, r->p99_us);
	/* The cost of a window is its interval over the unthrottled one:
	 * the shortest unthrottled and the longest throttled interval of
	 * any run bound every run's cost from above. */
	if (r->io_interval_us > 0 &&
	    (!(w->io_interval_us > 0) ||
	     (w->interval_us == 0 ? r->io_interval_us < w->io_interval_us
	                          : r->io_interval_us > w->io_interval_us)))
		w->io_interval_us = r->io_interval_us;
	w->runs++;
}

/* The median of the positive io_interval_us of the run points @p[n]
 * (the mean of the middle two for an even count), or 0 when none is
 * positive; @scratch holds at least @n doubles. */
static double median_interval(const tp_sweep_point *p, size_t n,
                              double *scratch)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i].io_interval_us > 0)
			scratch[m++] = p[i].io_interval_us;
	if (m == 0)
		return 0;
	qsort(scratch, m, sizeof(*scratch), cmp_double);
	return m % 2 ? scratch[m / 2]
	             : (scratch[m / 2 - 1] + scratch[m / 2]) / 2;
}

/* The mean and sample standard deviation of the victim slowdown (victim
 * mean over the run's own no-I/O baseline) of the run points @p[n] that
 * measured both, into @out (see tp_sweep_point). */
static void slowdown_spread(const tp_sweep_point *p, size_t n,
                            tp_sweep_point *out)
{
	double sum = 0, squares = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i].victim_samples && p[i].alone_mean_us > 0) {
			sum += p[i].victim_mean_us / p[i].alone_mean_us;
			m++;
		}
	out->slowdown_runs = m;
	out->slowdown_mean_x = m ? sum / (double)m : 0;
	out->slowdown_sd_x = 0;
	if (m < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (p[i].victim_samples && p[i].alone_mean_us > 0) {
			double d = p[i].victim_mean_us / p[i].alone_mean_us -
			           out->slowdown_mean_x;

			squares += d * d;
		}
	out->slowdown_sd_x = sqrt(squares / (double)(m - 1));
}

/* Fold the run points of @p[n] (sorted by size, clients, interval, run)
 * into one point per (size, clients, interval); returns the new count.
 * @scratch holds at least @n doubles. */
static size_t fold_runs(tp_sweep_point *p, size_t n, double *scratch)
{
	size_t k = 0;

	for (size_t i = 0; i < n;) {
		tp_sweep_point worst = p[i];
		size_t j = i + 1;

		for (; j < n && same_group(&p[j], &p[i]) &&
		       p[j].interval_us == p[i].interval_us;
		     j++)
			fold_run(&worst, &p[j]);
		/* Read before p[k] is written: k <= i. */
		worst.io_interval_median_us =
		    median_interval(p + i, j - i, scratch);
		slowdown_spread(p + i, j - i, &worst);
		p[k++] = worst;
		i = j;
	}
	return k;
}

tp_status tp_sweep_points(const tp_sweep *sweep, tp_sweep_point **points,
                          size_t *count, tp_error *err)
{
	tp_sweep_sample *sorted;
	tp_sweep_point *out;
	double *scratch;
	size_t n = sweep ? sweep->count : 0, k = 0;

	*points = NULL;
	*count = 0;
	if (n == 0)
		return tp_error_set(err, TP_ERR_INVALID, "sweep: no samples");
	sorted = malloc(n * sizeof(*sorted));
	out = malloc(n * sizeof(*out));
	scratch = malloc(n * sizeof(*scratch));
	if (!sorted || !out || !scratch) {
		free(sorted);
		free(out);
		free(scratch);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "sweep: out of memory summarising %zu "
		                    "samples",
		                    n);
	}
	memcpy(sorted, sweep->samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_sample_key);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n &&
		       sorted[j].request_bytes == sorted[i].request_bytes &&
		       sorted[j].clients == sorted[i].clients &&
		       sorted[j].run == sorted[i].run &&
		       sorted[j].interval_us == sorted[i].interval_us)
			j++;
		summarise_point(sorted + i, j - i, &out[k++]);
		i = j;
	}
	k = spread_baseline(out, k);
	qsort(out, k, sizeof(*out), cmp_point_key);
	k = fold_runs(out, k, scratch);
	free(scratch);
	free(sorted);
	*points = out;
	*count = k;
	return TP_OK;
}
