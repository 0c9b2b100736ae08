/*
 * cli_throttle.c: `topoplace throttle`: measure I/O-congestion thresholds,
 * turn them into throttle windows and Lustre TBF rules.
 *
 *   topoplace throttle calibrate --dir DIR [options]     run a sweep
 *   topoplace throttle thresholds SWEEP [options]        detect thresholds
 *   topoplace throttle window --table FILE [options]     choose a window
 *   topoplace throttle tbf --name N --jobid ID [options] Lustre TBF rules
 *
 * See doc/topoplace-throttle.1 and doc/topoplace-sweep.5.
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cli.h"
#include "sweep.h"
#include "tbf.h"
#include "threshold.h"
#include "tp_json.h"
#include "units.h"
#include "window.h"

#define MAX_LIST 64

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: topoplace throttle <action> [options]\n"
	    "\n"
	    "  calibrate --dir DIR [--sizes 1M,4M] [--writers 1,2]\n"
	    "            [--intervals 500us,1ms,...] [--duration 1s]\n"
	    "            [--fsync each|end|none] [--file-bytes 64M] [-o "
	    "SWEEP]\n"
	    "            [--add SWEEP]\n"
	    "      write for real and record every request's latency\n"
	    "  thresholds SWEEP [--rise 0.5] [--min-intervals 5]\n"
	    "            [--min-samples 5] [--plateau 2] [--consecutive 2]\n"
	    "            [-o TABLE]\n"
	    "      detect the I/O-congestion threshold per size and clients\n"
	    "  window --table TABLE --bytes 4M --clients N --interval 800us\n"
	    "            [--requests N] [--class C] "
	    "[--io-throttle " TP_THROTTLE_CHOICES "]\n"
	    "            [--min-window W] [--max-window W] "
	    "[--throttled-classes a,b|*]\n"
	    "            [--no-user-off]\n"
	    "            [--objective none|mpi_slowdown<=X|io_cost<=P%%] "
	    "[--json]\n"
	    "            [--confidence worst|Q (default 0.95)]\n"
	    "      the window, its I/O cost and its victim benefit\n"
	    "  tbf --name N --jobid ID --window W --bytes 4M --clients N\n"
	    "            [--rpc-bytes 1M] [--servers 1] [--stop]\n"
	    "            [--hook CMD [--hook-arg ARG]... [--hook-timeout "
	    "10s]]\n"
	    "      Lustre NRS TBF start/stop rules, optionally passed to a "
	    "hook\n");
}

/* getopt's own messages are off (opterr = 0): one line, ours. */
static int bad_option(const char *what, char **argv)
{
	return tp_cli_usage_error(what,
	                          "bad option '%s' (unknown, or missing its "
	                          "value; try 'topoplace throttle --help')",
	                          argv[optind - 1]);
}

/* Split a comma list into at most MAX_LIST items (in place). */
static int split_list(char *text, char **items)
{
	int n = 0;

	for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) {
		if (n == MAX_LIST)
			return -1;
		items[n++] = tok;
	}
	return n;
}

static FILE *open_output(const char *path, const char *what, int *rc)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "topoplace %s: %s: %s\n", what, path,
		        strerror(errno));
		*rc = TP_EXIT_FAILURE;
	}
	return f;
}

static int close_output(FILE *f, const char *path, const char *what)
{
	int bad = ferror(f);

	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	if (bad) {
		fprintf(stderr, "topoplace %s: %s: write error\n", what,
		        path ? path : "stdout");
		return TP_EXIT_FAILURE;
	}
	return TP_EXIT_OK;
}

/* ---- calibrate ---------------------------------------------------------- */

/* The options of `throttle calibrate`, as given (lists parsed). */
struct calibrate_opts {
	tp_calibrate_params p; /* directory, duration, fsync, file bytes */
	char sizes_text[1024], writers_text[1024], intervals_text[1024];
	uint64_t sizes[MAX_LIST], writers[MAX_LIST], intervals[MAX_LIST];
	int nsizes, nwriters, nintervals;
	const char *output, *added; /* -o, --add */
	tp_log_level level;
	bool help;
};

/* One getopt_long answer @c into @o. */
static int parse_calibrate_option(int c, const char *arg,
                                  struct calibrate_opts *o)
{
	const char *what = "throttle calibrate";
	tp_error err;

	switch (c) {
	case 'd':
		o->p.directory = arg;
		break;
	case 's':
		snprintf(o->sizes_text, sizeof(o->sizes_text), "%s", arg);
		break;
	case 'w':
		snprintf(o->writers_text, sizeof(o->writers_text), "%s", arg);
		break;
	case 'i':
		snprintf(o->intervals_text, sizeof(o->intervals_text), "%s",
		         arg);
		break;
	case 't':
		if (tp_units_parse_duration_us(
		        "--duration", arg, 1, &o->p.duration_us, &err) != TP_OK)
			return tp_cli_usage_error(what, "%s", err.message);
		break;
	case 'f':
		if (tp_fsync_policy_parse(arg, &o->p.fsync_policy, &err) !=
		    TP_OK)
			return tp_cli_usage_error(what, "--fsync: %s",
			                          err.message);
		break;
	case 'b':
		if (tp_units_parse_bytes("--file-bytes", arg, &o->p.file_bytes,
		                         &err) != TP_OK)
			return tp_cli_usage_error(what, "%s", err.message);
		break;
	case 'o':
		o->output = arg;
		break;
	case 'v':
		o->level = TP_LOG_INFO;
		break;
	default: /* 'a' */
		o->added = arg;
		break;
	}
	return TP_EXIT_OK;
}

/* --sizes, --writers and --intervals split and parsed. */
static int parse_calibrate_lists(struct calibrate_opts *o)
{
	const char *what = "throttle calibrate";
	char *items[MAX_LIST];
	tp_error err;

	o->nsizes = split_list(o->sizes_text, items);
	if (o->nsizes <= 0)
		return tp_cli_usage_error(what, "--sizes: give 1..%d sizes",
		                          MAX_LIST);
	for (int i = 0; i < o->nsizes; i++)
		if (tp_units_parse_bytes("--sizes", items[i], &o->sizes[i],
		                         &err) != TP_OK)
			return tp_cli_usage_error(what, "%s", err.message);
	o->nwriters = split_list(o->writers_text, items);
	if (o->nwriters <= 0)
		return tp_cli_usage_error(what, "--writers: give 1..%d counts",
		                          MAX_LIST);
	for (int i = 0; i < o->nwriters; i++)
		if (tp_units_parse_count("--writers", items[i], 1, 4096,
		                         &o->writers[i], &err) != TP_OK)
			return tp_cli_usage_error(what, "%s", err.message);
	o->nintervals = split_list(o->intervals_text, items);
	if (o->nintervals <= 0)
		return tp_cli_usage_error(
		    what, "--intervals: give 1..%d durations", MAX_LIST);
	for (int i = 0; i < o->nintervals; i++)
		if (tp_units_parse_duration_us("--intervals", items[i], 0,
		                               &o->intervals[i], &err) != TP_OK)
			return tp_cli_usage_error(what, "%s", err.message);
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_calibrate_opts(int argc, char **argv, struct calibrate_opts *o)
{
	static const struct option opts[] = {
	    {"dir", required_argument, NULL, 'd'},
	    {"sizes", required_argument, NULL, 's'},
	    {"writers", required_argument, NULL, 'w'},
	    {"intervals", required_argument, NULL, 'i'},
	    {"duration", required_argument, NULL, 't'},
	    {"fsync", required_argument, NULL, 'f'},
	    {"file-bytes", required_argument, NULL, 'b'},
	    {"output", required_argument, NULL, 'o'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"add", required_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "throttle calibrate";
	int c, rc;

	*o = (struct calibrate_opts){
	    .p = {.duration_us = 1000000},
	    .sizes_text = "1M",
	    .writers_text = "1",
	    .intervals_text = "0us,1ms,2ms,5ms,10ms,20ms",
	    .level = TP_LOG_WARNING,
	};
	while ((c = getopt_long(argc, argv, "o:vh", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (c == 0 || !strchr("dswitfbova", c))
			return bad_option(what, argv);
		if ((rc = parse_calibrate_option(c, optarg, o)) != TP_EXIT_OK)
			return rc;
	}
	if (optind != argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->p.directory)
		return tp_cli_usage_error(what, "--dir DIR is required");
	return parse_calibrate_lists(o);
}

/*
 * Every size x writers x interval written for real into *sweep (after the
 * rows of --add: a calibration, or the victim and alone rows a benchmark
 * measured beside the writers, come first and are written out with the
 * new ones).  Returns a TP_EXIT_* status; failures are printed.
 */
static int calibrate_sweep(struct calibrate_opts *o, const tp_logger *logger,
                           tp_sweep **sweep)
{
	const char *what = "throttle calibrate";
	tp_calibrate_params *p = &o->p;
	tp_error err;

	if (o->added) {
		if (tp_sweep_read(o->added, 0, sweep, &err) != TP_OK)
			return tp_cli_fail(what, &err);
	} else if (!(*sweep = tp_sweep_new())) {
		tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
		return tp_cli_fail(what, &err);
	}
	for (int s = 0; s < o->nsizes; s++)
		for (int w = 0; w < o->nwriters; w++)
			for (int i = 0; i < o->nintervals; i++) {
				p->request_bytes = o->sizes[s];
				p->writers = (uint32_t)o->writers[w];
				p->interval_us = o->intervals[i];
				if (tp_calibrate_run(p, *sweep, logger, &err) !=
				    TP_OK)
					return tp_cli_fail(what, &err);
			}
	return TP_EXIT_OK;
}

/* The sweep written to -o (or stdout) with how it was measured. */
static int write_calibrate_sweep(const struct calibrate_opts *o,
                                 const tp_logger *logger, const tp_sweep *sweep)
{
	const char *what = "throttle calibrate";
	char comment[8400]; /* two paths */
	tp_error err;
	int rc = TP_EXIT_OK;
	FILE *out = open_output(o->output, what, &rc);

	if (!out)
		return rc;
	snprintf(comment, sizeof(comment),
	         "calibrate dir=%s fsync=%s duration_us=%llu%s%s",
	         o->p.directory, tp_fsync_policy_name(o->p.fsync_policy),
	         (unsigned long long)o->p.duration_us, o->added ? " add=" : "",
	         o->added ? o->added : "");
	if (tp_sweep_write(out, o->output ? o->output : "standard output",
	                   sweep, comment, &err) != TP_OK) {
		close_output(out, o->output, what);
		return tp_cli_fail(what, &err);
	}
	tp_log(logger, TP_LOG_INFO, "calibrate: %zu samples", sweep->count);
	return close_output(out, o->output, what);
}

static int run_calibrate(int argc, char **argv)
{
	struct calibrate_opts o;
	tp_logger logger;
	tp_sweep *sweep = NULL;
	int rc;

	if ((rc = parse_calibrate_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	logger = tp_cli_logger(o.level);
	if ((rc = calibrate_sweep(&o, &logger, &sweep)) == TP_EXIT_OK)
		rc = write_calibrate_sweep(&o, &logger, sweep);
	tp_sweep_free(sweep);
	return rc;
}

/* ---- thresholds --------------------------------------------------------- */

/* One option of `throttle thresholds` (getopt_long answer @c) into
 * @params; a usage error names a bad value. */
static int parse_thresholds_option(int c, const char *arg,
                                   tp_threshold_params *params)
{
	const char *what = "throttle thresholds";
	tp_error err;
	uint64_t v;

	if (c == 'r') {
		/* k as a plain fraction: 0.5 = 50 % over the plateau. */
		if (!*arg || strspn(arg, "0123456789.") != strlen(arg) ||
		    sscanf(arg, "%lf", &params->rise) != 1 ||
		    !(params->rise > 0 && params->rise <= 100))
			return tp_cli_usage_error(
			    what,
			    "--rise '%s': a plain number in "
			    "(0, 100] (0.5 means 50%% over the "
			    "plateau)",
			    arg);
		return TP_EXIT_OK;
	}
	if (tp_units_parse_count(c == 'n'   ? "--min-intervals"
	                         : c == 'm' ? "--min-samples"
	                         : c == 'p' ? "--plateau"
	                                    : "--consecutive",
	                         arg, 1, 64, &v, &err) != TP_OK)
		return tp_cli_usage_error(what, "%s", err.message);
	if (c == 'n')
		params->min_intervals = v;
	else if (c == 'm')
		params->min_samples = v;
	else if (c == 'p')
		params->plateau_intervals = v;
	else
		params->consecutive = v;
	return TP_EXIT_OK;
}

/* The most runs any curve point of @e's (size, clients) was measured in
 * (0 without a curve). */
static uint32_t entry_runs(const tp_threshold_table *table,
                           const tp_threshold *e)
{
	uint32_t runs = 0;

	for (size_t k = 0; k < table->curve_count; k++)
		if (table->curve[k].request_bytes == e->request_bytes &&
		    table->curve[k].clients == e->clients &&
		    table->curve[k].runs > runs)
			runs = table->curve[k].runs;
	return runs;
}

/* One table line for @e (version 1) or for each of its curve points. */
static void write_threshold_entry(FILE *out, int version,
                                  const tp_threshold_table *table,
                                  const tp_threshold *e)
{
	char line[256];

	if (version == 1) {
		if (tp_threshold_format(e, line, sizeof(line)) > 0)
			fputs(line, out);
		return;
	}
	for (size_t k = 0; k < table->curve_count; k++) {
		const tp_curve_point *point = &table->curve[k];

		if (point->request_bytes != e->request_bytes ||
		    point->clients != e->clients)
			continue;
		if ((version == 5
		         ? tp_threshold_format_v5(e, point, line, sizeof(line))
		     : version == 4
		         ? tp_threshold_format_v4(e, point, line, sizeof(line))
		     : version == 3
		         ? tp_threshold_format_v3(e, point, line, sizeof(line))
		         : tp_threshold_format_v2(e, point, line,
		                                  sizeof(line))) > 0)
			fputs(line, out);
	}
}

/* The table, version 1, 2 (one line per measured window, which carries
 * the curves the costs and site objectives are read from) or 5 (the
 * curve of several runs, each window its worst run's, its median run's
 * interval and the spread of the runs' victim slowdown), into @out. */
static void write_threshold_table(FILE *out, const char *sweep_path,
                                  const tp_threshold_params *params,
                                  const tp_threshold_table *table)
{
	int version = tp_threshold_table_version(table);

	fprintf(out, "%s from %s rise=%g\n%s\n", tp_threshold_magic(version),
	        sweep_path, params->rise, tp_threshold_header(version));
	for (size_t i = 0; i < table->count; i++) {
		const tp_threshold *e = &table->entries[i];
		uint32_t runs = entry_runs(table, e);
		char worst[64] = "";

		if (runs > 1)
			snprintf(worst, sizeof(worst),
			         ", each window the worst of %u runs", runs);
		fprintf(out,
		        "# %llu bytes x %u clients: knee %.1f us, calm at "
		        "%.1f us, on the %s latency%s\n",
		        (unsigned long long)e->request_bytes, e->clients,
		        e->knee_us, e->safe_us,
		        e->statistic ? e->statistic : "median", worst);
		write_threshold_entry(out, version, table, e);
	}
}

/* The thresholds of the sweep at @path into *table. */
static tp_status detect_thresholds(const char *path,
                                   const tp_threshold_params *params,
                                   tp_threshold_table **table, tp_error *err)
{
	tp_logger logger = tp_cli_logger(TP_LOG_WARNING);
	tp_sweep *sweep;
	tp_status st;

	if ((st = tp_sweep_read(path, 0, &sweep, err)) != TP_OK)
		return st;
	st = tp_threshold_table_from_sweep(sweep, params, &logger, table, err);
	tp_sweep_free(sweep);
	return st;
}

static int run_thresholds(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"rise", required_argument, NULL, 'r'},
	    {"min-intervals", required_argument, NULL, 'n'},
	    {"min-samples", required_argument, NULL, 'm'},
	    {"plateau", required_argument, NULL, 'p'},
	    {"consecutive", required_argument, NULL, 'c'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "throttle thresholds", *output = NULL;
	tp_threshold_params params;
	tp_threshold_table *table;
	tp_error err;
	int c, rc = TP_EXIT_OK;
	FILE *out;

	tp_threshold_params_default(&params);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return TP_EXIT_OK;
		}
		if (c == 'o')
			output = optarg;
		else if (c != 0 && strchr("rnmpc", c))
			rc = parse_thresholds_option(c, optarg, &params);
		else
			return bad_option(what, argv);
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind + 1 != argc)
		return tp_cli_usage_error(what, "give exactly one sweep file");
	if (detect_thresholds(argv[optind], &params, &table, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	out = open_output(output, what, &rc);
	if (!out) {
		tp_threshold_table_free(table);
		return rc;
	}
	write_threshold_table(out, argv[optind], &params, table);
	tp_threshold_table_free(table);
	return close_output(out, output, what);
}

/* ---- window ------------------------------------------------------------- */

/*
 * The cost side of @d, with where each number comes from: of a curve of
 * several runs (threshold table version 4) the expected cost is the
 * median run's and the fastest unthrottled run gives its bound, which is
 * what a site would pay if every run were as fast; tables of one run (or
 * before version 4) have one figure.
 */
static void print_cost(const tp_window_decision *d)
{
	bool bound = d->unthrottled_fastest_us > 0;
	bool measured_t0 = d->unthrottled_interval_us > 0 &&
	                   d->unthrottled_interval_us >= d->interval_before_us;

	if (d->unthrottled_interval_us > 0 && bound)
		printf("unthrottled_interval_us=%.1f (measured: the median "
		       "run's; the fastest run's %.1f)\n",
		       d->unthrottled_interval_us, d->unthrottled_fastest_us);
	else if (d->unthrottled_interval_us > 0)
		printf("unthrottled_interval_us=%.1f (measured)\n",
		       d->unthrottled_interval_us);
	printf("interval_before_us=%.1f\ninterval_after_us=%.1f\n",
	       d->interval_before_us, d->interval_after_us);
	printf("expected_cost=+%.1f%% (I/O time, counted from the %s "
	       "interval)\n",
	       d->cost_fraction * 100,
	       !measured_t0 ? "job's"
	       : bound      ? "median run's measured unthrottled"
	                    : "measured unthrottled");
	if (d->cost_bound_fraction >= 0)
		printf("cost_bound=+%.1f%% (at most: if every run were as "
		       "fast unthrottled as the fastest measured)\n",
		       d->cost_bound_fraction * 100);
	if (d->measured_cost_fraction >= 0 &&
	    d->measured_cost_bound_fraction >= 0)
		printf("measured_cost=+%.1f%% (the sweep at this window, the "
		       "median run; at most +%.1f%%)\n",
		       d->measured_cost_fraction * 100,
		       d->measured_cost_bound_fraction * 100);
	else if (d->measured_cost_fraction >= 0)
		printf("measured_cost=+%.1f%% (the sweep at this window)\n",
		       d->measured_cost_fraction * 100);
}

/* How bad a run the sweep did not measure may be at the window an
 * mpi_slowdown objective chose, and what the choice was judged on. */
static void print_unseen_bound(const tp_window_decision *d)
{
	if (strncmp(d->objective, "mpi_slowdown", 12) != 0)
		return;
	if (d->predicted_unseen_x > 0)
		printf("predicted_worst_unseen=%.3fx at %g%% (one run the sweep "
		       "did not measure: mean %.3fx + t(%u, %g)=%.3f x sd "
		       "%.4f x sqrt(1 + 1/%u); judged on the larger of it "
		       "and the worst run)\n",
		       d->predicted_unseen_x, d->confidence * 100,
		       d->slowdown_mean_x, d->window_runs - 1, d->confidence,
		       d->t_quantile, d->slowdown_sd_x, d->window_runs);
	else if (d->confidence > 0)
		printf("predicted_worst_unseen=none (confidence %g not "
		       "applied: the window was measured in fewer than 2 runs "
		       "or the table (before version 5) has no spread of "
		       "runs; judged on the worst run)\n",
		       d->confidence);
	else
		printf("predicted_worst_unseen=none (confidence worst: judged "
		       "on the worst run)\n");
	/* Why not smaller: the window just below, as it was judged (four
	 * decimals: a bound of 1.1005x must not read as 1.100x). */
	if (d->rejected_window_us > 0 && d->rejected_unseen_x > 0)
		printf("rejected_window_us=%.0f (the largest measured window "
		       "below: worst run %.4fx, an unseen run %.4fx at %g%%; "
		       "%s not met)\n",
		       d->rejected_window_us, d->rejected_worst_x,
		       d->rejected_unseen_x, d->confidence * 100, d->objective);
	else if (d->rejected_window_us > 0)
		printf("rejected_window_us=%.0f (the largest measured window "
		       "below: worst run %.4fx; %s not met)\n",
		       d->rejected_window_us, d->rejected_worst_x,
		       d->objective);
}

/* Both sides of the trade-off: what the window costs the I/O and what
 * it buys the victim traffic, with where each number comes from. */
static void print_decision(const tp_window_decision *d)
{
	printf("throttle=%s\nwindow_us=%llu\n", d->throttle ? "yes" : "no",
	       (unsigned long long)d->window_us);
	printf("objective=%s\n", d->objective[0] ? d->objective : "none");
	if (d->threshold_us > 0)
		printf("threshold_us=%.1f\nthreshold_extrapolated=%s\n",
		       d->threshold_us,
		       d->threshold_extrapolated ? "yes" : "no");
	if (d->curve)
		printf("curve=%llu bytes x %u clients%s\n",
		       (unsigned long long)d->curve_bytes, d->curve_clients,
		       d->curve_exact ? "" : " (nearest measured)");
	if (d->curve_runs > 1)
		printf("curve_runs=%u (each window the worst run's)\n",
		       d->curve_runs);
	if (d->window_runs > 1)
		printf("decided_by=run %u, the worst of %u at this window\n",
		       d->window_worst_run, d->window_runs);
	/* Why one run, or three, is not enough: what a run the sweep never
	 * saw does at this window. */
	if (d->unseen_worse_chance > 0)
		printf("unseen_run_worse=1 in %u (a run the sweep did not "
		       "measure is worse at this window than the %u it "
		       "measured with this chance; more runs lower it)\n",
		       d->window_runs + 1, d->window_runs);
	print_unseen_bound(d);
	print_cost(d);
	if (d->phase_before_us > 0)
		printf("io_phase_us=%.0f -> %.0f\n", d->phase_before_us,
		       d->phase_after_us);
	if (d->victim_before_x > 0)
		printf("expected_benefit=victim mean %.2fx -> %.2fx, p99 %.2fx "
		       "-> %.2fx of its no-I/O latency\n",
		       d->victim_before_x, d->victim_after_x,
		       d->victim_p99_before_x, d->victim_p99_after_x);
	if (d->threshold_us > 0)
		printf("expected_gain=offered load %.2fx -> %.2fx of the "
		       "congestion threshold\n",
		       d->load_before, d->load_after);
	printf("reason=%s\n", d->reason);
}

/* A measured or predicted figure that is absent (<= 0) prints as null. */
static void json_positive(tp_json *j, const char *key, double value)
{
	if (value > 0)
		tp_json_double(j, key, value);
	else
		tp_json_null(j, key);
}

/* A cost fraction that was not computed (< 0) prints as null. */
static void json_fraction(tp_json *j, const char *key, double value)
{
	if (value >= 0)
		tp_json_double(j, key, value);
	else
		tp_json_null(j, key);
}

/*
 * The decision as the schema topoplace.throttle-window version 1
 * (topoplace-json(7)): the same fields as the text, with figures that
 * were not computed as null.
 */
static tp_status print_decision_json(const tp_window_decision *d,
                                     const tp_io_pattern *job, tp_error *err)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "throttle-window", 1);
	tp_json_bool(&j, "throttle", d->throttle);
	tp_json_uint(&j, "window_us", d->window_us);
	tp_json_string(&j, "objective", d->objective[0] ? d->objective : NULL);
	tp_json_begin_object(&j, "job");
	tp_json_uint(&j, "request_bytes", job->request_bytes);
	tp_json_uint(&j, "clients", job->clients);
	tp_json_double(&j, "interval_us", job->mean_interval_us);
	tp_json_string(&j, "class", job->job_class);
	tp_json_end_object(&j);
	json_positive(&j, "threshold_us", d->threshold_us);
	tp_json_bool(&j, "threshold_extrapolated", d->threshold_extrapolated);
	if (d->curve) {
		tp_json_begin_object(&j, "curve");
		tp_json_uint(&j, "bytes", d->curve_bytes);
		tp_json_uint(&j, "clients", d->curve_clients);
		tp_json_bool(&j, "exact", d->curve_exact);
		tp_json_uint(&j, "runs", d->curve_runs);
		tp_json_end_object(&j);
	} else {
		tp_json_null(&j, "curve");
	}
	json_positive(&j, "unthrottled_interval_us",
	              d->unthrottled_interval_us);
	json_positive(&j, "unthrottled_fastest_us", d->unthrottled_fastest_us);
	tp_json_double(&j, "interval_before_us", d->interval_before_us);
	tp_json_double(&j, "interval_after_us", d->interval_after_us);
	tp_json_double(&j, "expected_cost", d->cost_fraction);
	json_fraction(&j, "cost_bound", d->cost_bound_fraction);
	json_fraction(&j, "measured_cost", d->measured_cost_fraction);
	json_fraction(&j, "measured_cost_bound",
	              d->measured_cost_bound_fraction);
	if (d->window_runs) {
		tp_json_begin_object(&j, "decided_by");
		tp_json_uint(&j, "run", d->window_worst_run);
		tp_json_uint(&j, "runs", d->window_runs);
		tp_json_double(&j, "unseen_worse_chance",
		               d->unseen_worse_chance);
		json_positive(&j, "predicted_worst_unseen",
		              d->predicted_unseen_x);
		json_positive(&j, "confidence", d->confidence);
		if (d->rejected_window_us > 0) {
			tp_json_begin_object(&j, "rejected");
			tp_json_double(&j, "window_us", d->rejected_window_us);
			tp_json_double(&j, "worst", d->rejected_worst_x);
			json_positive(&j, "predicted_worst_unseen",
			              d->rejected_unseen_x);
			tp_json_end_object(&j);
		} else {
			tp_json_null(&j, "rejected");
		}
		tp_json_end_object(&j);
	} else {
		tp_json_null(&j, "decided_by");
	}
	json_positive(&j, "io_phase_before_us", d->phase_before_us);
	json_positive(&j, "io_phase_after_us", d->phase_after_us);
	if (d->victim_before_x > 0) {
		tp_json_begin_object(&j, "victim_slowdown");
		tp_json_double(&j, "mean_before", d->victim_before_x);
		tp_json_double(&j, "mean_after", d->victim_after_x);
		tp_json_double(&j, "p99_before", d->victim_p99_before_x);
		tp_json_double(&j, "p99_after", d->victim_p99_after_x);
		tp_json_end_object(&j);
	} else {
		tp_json_null(&j, "victim_slowdown");
	}
	if (d->threshold_us > 0) {
		tp_json_double(&j, "load_before", d->load_before);
		tp_json_double(&j, "load_after", d->load_after);
	} else {
		tp_json_null(&j, "load_before");
		tp_json_null(&j, "load_after");
	}
	tp_json_string(&j, "reason", d->reason);
	tp_json_end_document(&j);
	return tp_json_finish(&j, err);
}

/* The options of `throttle window`, as given (defaults filled in). */
struct window_opts {
	const char *table_path;  /* --table; NULL: no thresholds */
	char classes_text[1024]; /* --throttled-classes */
	char *classes[MAX_LIST];
	tp_throttle_policy policy;
	tp_throttle_request request; /* --io-throttle */
	tp_io_pattern job;
	uint64_t interval_us;
	bool have_interval, json, help;
};

/* One getopt_long answer @c into @o; a usage error names a bad value. */
static int parse_window_option(int c, const char *arg, struct window_opts *o)
{
	tp_throttle_policy *policy = &o->policy;
	tp_io_pattern *job = &o->job;
	tp_status st = TP_OK;
	uint64_t v;
	tp_error err;

	switch (c) {
	case 'T':
		o->table_path = arg;
		break;
	case 'b':
		st = tp_units_parse_bytes("--bytes", arg, &job->request_bytes,
		                          &err);
		break;
	case 'c':
		st = tp_units_parse_count("--clients", arg, 1,
		                          TP_SWEEP_MAX_CLIENTS, &v, &err);
		if (st == TP_OK)
			job->clients = (uint32_t)v;
		break;
	case 'i':
		st = tp_units_parse_duration_us("--interval", arg, 1,
		                                &o->interval_us, &err);
		o->have_interval = true;
		break;
	case 'n':
		st = tp_units_parse_count("--requests", arg, 1, UINT64_MAX,
		                          &job->requests_per_client, &err);
		break;
	case 'k':
		job->job_class = arg;
		break;
	case 'u':
		st = tp_throttle_parse(arg, &o->request, &err);
		break;
	case 'm':
		st = tp_units_parse_duration_us("--min-window", arg, 0,
		                                &policy->min_window_us, &err);
		break;
	case 'M':
		st = tp_units_parse_duration_us("--max-window", arg, 1,
		                                &policy->max_window_us, &err);
		break;
	case 'C':
		snprintf(o->classes_text, sizeof(o->classes_text), "%s", arg);
		break;
	case 'O':
		policy->allow_user_off = false;
		break;
	case 'J':
		st = tp_throttle_objective_parse(arg, &policy->objective, &err);
		break;
	case 'Q':
		st = tp_throttle_confidence_parse(arg, &policy->confidence,
		                                  &err);
		break;
	default: /* 'j' */
		o->json = true;
		break;
	}
	if (st != TP_OK)
		return tp_cli_usage_error("throttle window", "%s", err.message);
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_window_opts(int argc, char **argv, struct window_opts *o)
{
	static const struct option opts[] = {
	    {"table", required_argument, NULL, 'T'},
	    {"bytes", required_argument, NULL, 'b'},
	    {"clients", required_argument, NULL, 'c'},
	    {"interval", required_argument, NULL, 'i'},
	    {"requests", required_argument, NULL, 'n'},
	    {"class", required_argument, NULL, 'k'},
	    {"io-throttle", required_argument, NULL, 'u'},
	    {"min-window", required_argument, NULL, 'm'},
	    {"max-window", required_argument, NULL, 'M'},
	    {"throttled-classes", required_argument, NULL, 'C'},
	    {"no-user-off", no_argument, NULL, 'O'},
	    {"objective", required_argument, NULL, 'J'},
	    {"confidence", required_argument, NULL, 'Q'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "throttle window";
	int c, rc, nclasses;

	*o = (struct window_opts){
	    .classes_text = "*",
	    .policy = {0, 0, NULL, 0, true, {TP_OBJECTIVE_NONE, 0},
	               TP_CONFIDENCE_DEFAULT},
	    .request = {TP_THROTTLE_AUTO, 0},
	    .job = {0, 0, 0, 0, NULL},
	};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (c == 0 || !strchr("TbcinkumMCOJQj", c))
			return bad_option(what, argv);
		if ((rc = parse_window_option(c, optarg, o)) != TP_EXIT_OK)
			return rc;
	}
	if (optind != argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->job.request_bytes || !o->job.clients || !o->have_interval)
		return tp_cli_usage_error(what, "--bytes, --clients and "
		                                "--interval are required");
	nclasses = split_list(o->classes_text, o->classes);
	if (nclasses < 0)
		return tp_cli_usage_error(what,
		                          "--throttled-classes: at most "
		                          "%d classes",
		                          MAX_LIST);
	o->policy.classes = (const char *const *)o->classes;
	o->policy.class_count = (size_t)nclasses;
	o->job.mean_interval_us = (double)o->interval_us;
	return TP_EXIT_OK;
}

/* The window for the job of @o, over the thresholds of --table if any. */
static tp_status decide_window(const struct window_opts *o,
                               tp_window_decision *d, tp_error *err)
{
	tp_threshold_table *table = NULL;
	tp_status st;

	if (o->table_path &&
	    (st = tp_threshold_table_read(o->table_path, &table, err)) != TP_OK)
		return st;
	st = tp_window_decide(&o->job, table, &o->policy, &o->request, d, err);
	tp_threshold_table_free(table);
	return st;
}

static int run_window(int argc, char **argv)
{
	const char *what = "throttle window";
	struct window_opts o;
	tp_window_decision d;
	tp_error err;
	int rc;

	if ((rc = parse_window_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	if (decide_window(&o, &d, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	if (!o.json) {
		print_decision(&d);
		return TP_EXIT_OK;
	}
	if (print_decision_json(&d, &o.job, &err) != TP_OK)
		return tp_cli_fail(what, &err);
	return TP_EXIT_OK;
}

/* ---- tbf ---------------------------------------------------------------- */

/* The options of `throttle tbf`, as given (defaults filled in). */
struct tbf_opts {
	const char *name, *jobid;
	uint64_t window_us, bytes, rpc_bytes, clients, servers, timeout_us;
	char *hook[MAX_LIST + 1]; /* --hook CMD and its --hook-args */
	int nhook;
	bool stop, help;
};

/* One getopt_long answer @c into @o; a usage error names a bad value. */
static int parse_tbf_option(int c, char *arg, struct tbf_opts *o)
{
	const char *what = "throttle tbf";
	tp_status st = TP_OK;
	tp_error err;

	switch (c) {
	case 'N':
		o->name = arg;
		break;
	case 'j':
		o->jobid = arg;
		break;
	case 'w':
		st = tp_units_parse_duration_us("--window", arg, 1,
		                                &o->window_us, &err);
		break;
	case 'b':
		st = tp_units_parse_bytes("--bytes", arg, &o->bytes, &err);
		break;
	case 'c':
		st = tp_units_parse_count("--clients", arg, 1,
		                          TP_SWEEP_MAX_CLIENTS, &o->clients,
		                          &err);
		break;
	case 'r':
		st = tp_units_parse_bytes("--rpc-bytes", arg, &o->rpc_bytes,
		                          &err);
		break;
	case 's':
		st = tp_units_parse_count("--servers", arg, 1, 100000,
		                          &o->servers, &err);
		break;
	case 'S':
		o->stop = true;
		break;
	case 'H':
		if (o->nhook > 0)
			return tp_cli_usage_error(what, "--hook given twice");
		o->hook[o->nhook++] = arg;
		break;
	case 'a':
		if (o->nhook == 0)
			return tp_cli_usage_error(what,
			                          "--hook-arg before --hook");
		if (o->nhook == MAX_LIST - 2)
			return tp_cli_usage_error(what, "too many --hook-arg");
		o->hook[o->nhook++] = arg;
		break;
	default: /* 't' */
		st = tp_units_parse_duration_us("--hook-timeout", arg, 1000,
		                                &o->timeout_us, &err);
		break;
	}
	if (st != TP_OK)
		return tp_cli_usage_error(what, "%s", err.message);
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_tbf_opts(int argc, char **argv, struct tbf_opts *o)
{
	static const struct option opts[] = {
	    {"name", required_argument, NULL, 'N'},
	    {"jobid", required_argument, NULL, 'j'},
	    {"window", required_argument, NULL, 'w'},
	    {"bytes", required_argument, NULL, 'b'},
	    {"clients", required_argument, NULL, 'c'},
	    {"rpc-bytes", required_argument, NULL, 'r'},
	    {"servers", required_argument, NULL, 's'},
	    {"stop", no_argument, NULL, 'S'},
	    {"hook", required_argument, NULL, 'H'},
	    {"hook-arg", required_argument, NULL, 'a'},
	    {"hook-timeout", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "throttle tbf";
	int c, rc;

	*o = (struct tbf_opts){
	    .rpc_bytes = 1 << 20, .servers = 1, .timeout_us = 10000000};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (c == 0 || !strchr("NjwbcrsSHat", c))
			return bad_option(what, argv);
		if ((rc = parse_tbf_option(c, optarg, o)) != TP_EXIT_OK)
			return rc;
	}
	if (optind != argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->name || !o->jobid || !o->window_us || !o->bytes || !o->clients)
		return tp_cli_usage_error(what,
		                          "--name, --jobid, --window, --bytes "
		                          "and --clients are required");
	return TP_EXIT_OK;
}

static int run_tbf(int argc, char **argv)
{
	const char *what = "throttle tbf";
	struct tbf_opts o;
	tp_tbf_rule rule;
	tp_error err;
	int rc;

	if ((rc = parse_tbf_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	if (tp_tbf_rule_make(o.name, o.jobid, o.window_us, o.bytes, o.rpc_bytes,
	                     (uint32_t)o.clients, (uint32_t)o.servers, &rule,
	                     &err) != TP_OK)
		return tp_cli_usage_error(what, "%s", err.message);
	printf("%s\n%s\n", rule.start, rule.stop);
	if (o.nhook) {
		o.hook[o.nhook] = NULL;
		if (fflush(stdout) != 0 ||
		    tp_tbf_run_hook(o.hook, o.stop ? "stop" : "start",
		                    o.stop ? rule.stop : rule.start,
		                    (unsigned)(o.timeout_us / 1000),
		                    &err) != TP_OK)
			return tp_cli_fail(what, &err);
	}
	return TP_EXIT_OK;
}

int tp_cli_throttle(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} actions[] = {
	    {"calibrate", run_calibrate},
	    {"thresholds", run_thresholds},
	    {"window", run_window},
	    {"tbf", run_tbf},
	};

	if (argc < 2) {
		usage(stderr);
		return TP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return TP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(argv[1], actions[i].name)) {
			optind = 1;
			opterr = 0;
			return actions[i].run(argc - 1, argv + 1);
		}
	return tp_cli_usage_error("throttle",
	                          "unknown action '%s' (calibrate, "
	                          "thresholds, window, tbf)",
	                          argv[1]);
}
