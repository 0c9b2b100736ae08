/*
 * cli_report.c: `topoplace report`: pictures and explanations people can
 * look at (see topoplace-report(1)).
 *
 *   topoplace report hops    --profile FILE --fabric SPEC -o OUT.png|svg ...
 *   topoplace report heatmap --profile FILE --fabric SPEC -o OUT.png|svg ...
 *   topoplace report io      --sweep FILE -o OUT.png|svg ...
 *   topoplace report explain --fabric SPEC --nodes N [--profile FILE]
 *                            [--busy FILE] [--config FILE] ...
 *   topoplace report fabric  ...   (tools/cli_report_fabric.c)
 */
#include "tp_config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canvas.h"
#include "cli.h"
#include "convert.h"
#include "explain.h"
#include "heatmap.h"
#include "hops.h"
#include "iocurve.h"
#include "profile.h"
#include "remap.h"
#include "sweep.h"
#include "threshold.h"
#include "topo.h"
#include "topoplace_conf.h"
#include "tp_json.h"
#include "traffic.h"
#include "units.h"
#include "window.h"

#define MAX_PANELS 4

/* The JSON keys of the hop classes, as topoplace.cost names them. */
static const char *const class_key[TP_COST_CLASSES] = {"on_node", "same_leaf",
                                                       "same_pod", "other_pod"};

static const char report_usage[] =
    "usage: topoplace report KIND [options]\n"
    "kinds:\n"
    "  hops     bytes by hop class per rank or node, mappings side by side\n"
    "  heatmap  rank-by-rank or node-by-node traffic, mappings side by "
    "side\n"
    "  io       latency against interval of an I/O sweep, threshold and "
    "window\n"
    "  explain  a placement decision in words and figures\n"
    "  fabric   the fabric by levels, links coloured by load\n"
    "'topoplace report KIND --help' lists a kind's options.\n";

static const char matrix_usage[] =
    "usage: topoplace report hops|heatmap --profile FILE --fabric SPEC\n"
    "           -o OUT.png|OUT.svg [--size WxH] [--by rank|node]\n"
    "           [--hosts LIST] [--slots N] [--seed S] [--progress]\n"
    "           [--mappings block|cyclic|random|remap|FILE[,...]] [--json]\n"
    "  --profile FILE  a topoplace profile or a matrix text file\n"
    "  --fabric SPEC   PxLxH, an ibnetdiscover cache or a topology.conf\n"
    "  --hosts LIST    the job's hosts (default: the first hosts that hold "
    "it)\n"
    "  --slots N       ranks per host (default 1)\n"
    "  --mappings M,.. up to 4 panels (default block,remap)\n"
    "  --by rank|node  bars / cells per rank (default) or per node\n"
    "  --size WxH      image size (default 1200x600; at least 400x300)\n"
    "  --json          print the summary as one JSON document "
    "(topoplace-json(7))\n";

static const char io_usage[] =
    "usage: topoplace report io --sweep FILE -o OUT.png|OUT.svg\n"
    "           [--bytes SIZE --clients N] [--interval T | --window T]\n"
    "           [--size WxH] [--tradeoff [--objective OBJ]] [--json]\n"
    "  --sweep FILE     a calibration sweep (topoplace-sweep(5))\n"
    "  --bytes, --clients  which curve (default: the sweep's first)\n"
    "  --interval T     the job's mean request interval: mark the window\n"
    "                   topoplace would choose for it\n"
    "  --window T       mark this window instead\n"
    "  --tradeoff       draw victim latency and I/O time against the\n"
    "                   window instead (a version 2 sweep)\n"
    "  --objective OBJ  none|mpi_slowdown<=X|io_cost<=P%%: the window it\n"
    "                   picks on the measured curve is marked\n"
    "  --json           print the summary as one JSON document "
    "(topoplace-json(7))\n";

static const char explain_usage[] =
    "usage: topoplace report explain --fabric SPEC --nodes N [-o OUT]\n"
    "           [--policy auto|leaf|shared|pack|spread|off] [--class C]\n"
    "           [--profile FILE] [--slots N] [--job-id ID] [--seed S]\n"
    "           [--busy FILE] [--config FILE [--partition NAME]]\n"
    "           [--io-servers N [--io-policy auto|P] [--io-where "
    "among|beside]]\n"
    "           [--routing adaptive|static] [--json]\n"
    "  --busy FILE     hosts in use: lines 'host jobid class', 'host down',\n"
    "                  'host notready', 'host reserved jobid class', 'host\n"
    "                  ioserver [jobid]'; '#' comments (as for topoplace\n"
    "                  place --busy)\n"
    "  --config FILE   a topoplace.conf: its DefaultPlacement (policy auto,\n"
    "                  the default then), LeafSharing, class thresholds,\n"
    "                  Routing and I/O server settings, for --partition\n"
    "                  NAME if given\n"
    "  --io-policy P   auto (the default, as IoServerPolicy=auto: the\n"
    "                  policy for the routing, as topoplace place) or P\n"
    "  --routing R     how the fabric routes (default: the --config file's\n"
    "                  Routing, else adaptive)\n"
    "  --json          print the explanation as one JSON document\n"
    "                  (topoplace-json(7)); with -o OUT the page still goes\n"
    "                  to OUT\n";

/* Progress lines on stderr: for a terminal, or when asked. */
struct progress {
	bool on;
	const char *what;
};

static void progress(const struct progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void progress(const struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->on)
		return;
	fprintf(stderr, "topoplace %s: ", p->what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "WxH" within the charts' limits; a usage error otherwise. */
static int parse_size(const char *what, const char *text, uint32_t *w,
                      uint32_t *h)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(text, &end, 10);
	if (end != text && *end == 'x' && text[0] != '-') {
		const char *s = end + 1;

		b = strtoul(s, &end, 10);
		if (!errno && end != s && !*end && *s != '-' &&
		    a >= TP_REPORT_MIN_WIDTH && b >= TP_REPORT_MIN_HEIGHT &&
		    a <= TP_CANVAS_MAX_SIDE && b <= TP_CANVAS_MAX_SIDE) {
			*w = (uint32_t)a;
			*h = (uint32_t)b;
			return TP_EXIT_OK;
		}
	}
	return tp_cli_usage_error(what,
	                          "--size '%s': expected WIDTHxHEIGHT from "
	                          "%ux%u to %ux%u",
	                          text, TP_REPORT_MIN_WIDTH,
	                          TP_REPORT_MIN_HEIGHT, TP_CANVAS_MAX_SIDE,
	                          TP_CANVAS_MAX_SIDE);
}

/* The output's extension, checked before any work. */
static int check_output(const char *what, const char *path)
{
	tp_canvas_format format;
	tp_error err;

	if (!path)
		return tp_cli_usage_error(what, "-o FILE.png|FILE.svg is "
		                                "required");
	if (tp_canvas_format_of(path, &format, &err) != TP_OK)
		return tp_cli_usage_error(what, "-o %s", err.message);
	return TP_EXIT_OK;
}

/*
 * The job's hosts: @hostlist, or the first hosts of the fabric that hold
 * its ranks at @slots per host.  Errors say how the profile and the fabric
 * disagree, naming the profile.
 */
static tp_status job_hosts(const tp_topo *topo, const char *fabric,
                           const char *profile, const char *hostlist,
                           uint32_t slots, uint32_t ranks,
                           tp_remap_host **hosts, uint32_t *count,
                           tp_error *err)
{
	tp_status rc;

	if (hostlist) {
		rc = tp_remap_hosts_parse(topo, hostlist, slots, hosts, count,
		                          err);
		if (rc == TP_OK && (uint64_t)*count * slots < ranks) {
			free(*hosts);
			*hosts = NULL;
			return tp_error_set(err, TP_ERR_INVALID,
			                    "%s: %u ranks do not fit the %u "
			                    "hosts x %u slots of --hosts",
			                    profile, ranks, *count, slots);
		}
		return rc;
	}
	rc = tp_cli_first_hosts(topo, fabric, ranks, slots, hosts, count, err);
	if (rc == TP_ERR_INVALID) /* too few hosts, not out of memory */
		tp_error_prefix(err, "%s", profile);
	return rc;
}

/* A profile with no bytes between ranks has nothing to draw or weigh. */
static tp_status check_not_empty(const tp_traffic *t, const char *profile,
                                 tp_error *err)
{
	if (t->count == 0 || tp_traffic_total_bytes(t) == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%s: empty profile: no bytes between ranks",
		                    profile);
	return TP_OK;
}

/* What a hops or heatmap picture was drawn from, for its JSON summary. */
struct matrix_summary {
	bool heat;
	const char *out;
	uint32_t width, height;
	tp_report_unit unit;
	const char *profile;
	uint32_t ranks, hosts, slots;
	uint64_t seed;
};

/* The bytes of all of @bars' bars, by hop class. */
static void bytes_by_class(const tp_hops_bars *bars,
                           uint64_t by_class[TP_COST_CLASSES])
{
	const uint64_t *bar = bars->bytes;

	memset(by_class, 0, TP_COST_CLASSES * sizeof(*by_class));
	for (uint32_t k = 0; k < bars->bars; k++, bar += TP_COST_CLASSES)
		for (unsigned c = 0; c < TP_COST_CLASSES; c++)
			by_class[c] += bar[c];
}

/*
 * The schemas topoplace.report-hops and topoplace.report-heatmap version 1
 * (topoplace-json(7)): the text's summary, and per mapping the totals the
 * picture shows: bytes by hop class (hops) or the bytes in the cells and
 * the leaves crossed (heatmap), with how items were binned.
 */
static int matrix_json(const char *what, const struct matrix_summary *sum,
                       const char *const *names, uint32_t npanels,
                       const tp_hops_bars *bars, const tp_heatmap *heatmaps)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, sum->heat ? "report-heatmap" : "report-hops",
	                       1);
	tp_json_string(&j, "output", sum->out);
	tp_json_uint(&j, "width", sum->width);
	tp_json_uint(&j, "height", sum->height);
	tp_json_string(&j, "by", tp_report_unit_name(sum->unit));
	tp_json_string(&j, "profile", sum->profile);
	tp_json_uint(&j, "ranks", sum->ranks);
	tp_json_uint(&j, "hosts", sum->hosts);
	tp_json_uint(&j, "slots", sum->slots);
	tp_json_uint(&j, "seed", sum->seed);
	tp_json_begin_array(&j, "mappings");
	for (uint32_t i = 0; i < npanels; i++) {
		tp_json_begin_object(&j, NULL);
		tp_json_string(&j, "mapping", names[i]);
		if (sum->heat) {
			const tp_heatmap *h = &heatmaps[i];
			uint64_t total = 0;

			for (uint64_t c = 0; c < (uint64_t)h->bins * h->bins;
			     c++)
				total += h->cells[c];
			tp_json_uint(&j, "items", h->items);
			tp_json_uint(&j, "per_bin", h->bin);
			tp_json_uint(&j, "bins", h->bins);
			tp_json_uint(&j, "leaves", h->leaf_breaks + 1);
			tp_json_uint(&j, "bytes", total);
		} else {
			const tp_hops_bars *b = &bars[i];
			uint64_t by_class[TP_COST_CLASSES];

			bytes_by_class(b, by_class);
			tp_json_uint(&j, "items", b->items);
			tp_json_uint(&j, "per_bar", b->per_bar);
			tp_json_uint(&j, "bars", b->bars);
			tp_json_begin_object(&j, "class_bytes");
			for (unsigned c = 0; c < TP_COST_CLASSES; c++)
				tp_json_uint(&j, class_key[c], by_class[c]);
			tp_json_end_object(&j);
		}
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_end_document(&j);
	return tp_cli_json_finish(what, &j, TP_EXIT_OK);
}

/* The options of hops and heatmap, as given (defaults filled in). */
struct matrix_opts {
	bool heat; /* heatmap, else hops */
	const char *what, *out;
	tp_cli_job_opts job; /* --profile, --fabric, --hosts, --slots, --seed */
	char mappings_buf[1024]; /* --mappings; names point into it */
	char *names[MAX_PANELS]; /* one panel a mapping */
	uint32_t npanels;
	uint32_t width, height;
	tp_report_unit unit;
	struct progress pg;
	bool json, help;
};

/* One getopt_long answer @c into @o. */
static int parse_matrix_option(int c, const char *arg, struct matrix_opts *o)
{
	const char *what = o->what;

	switch (c) {
	case 'M':
		if (strlen(arg) >= sizeof(o->mappings_buf))
			return tp_cli_usage_error(what, "--mappings: too long");
		strcpy(o->mappings_buf, arg);
		break;
	case 'b':
		if (!strcmp(arg, "rank"))
			o->unit = TP_REPORT_RANKS;
		else if (!strcmp(arg, "node"))
			o->unit = TP_REPORT_NODES;
		else
			return tp_cli_usage_error(
			    what, "--by '%s': expected rank or node", arg);
		break;
	case 'o':
		o->out = arg;
		break;
	case 'S':
		return parse_size(what, arg, &o->width, &o->height);
	case 'P':
		o->pg.on = true;
		break;
	default: /* 'j' */
		o->json = true;
		break;
	}
	return TP_EXIT_OK;
}

/* o->mappings_buf split at commas into o->names, one panel each. */
static int split_panels(struct matrix_opts *o)
{
	char *save = NULL;

	for (char *tok = strtok_r(o->mappings_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->npanels == MAX_PANELS)
			return tp_cli_usage_error(
			    o->what, "--mappings: at most %d", MAX_PANELS);
		o->names[o->npanels++] = tok;
	}
	if (o->npanels == 0)
		return tp_cli_usage_error(o->what,
		                          "--mappings: no mapping named");
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_matrix_opts(int argc, char **argv, bool heat,
                             struct matrix_opts *o)
{
	static const struct option opts[] = {
	    {"profile", required_argument, NULL, TP_CLI_OPT_TRAFFIC},
	    {"fabric", required_argument, NULL, TP_CLI_OPT_FABRIC},
	    {"hosts", required_argument, NULL, TP_CLI_OPT_HOSTS},
	    {"slots", required_argument, NULL, TP_CLI_OPT_SLOTS},
	    {"mappings", required_argument, NULL, 'M'},
	    {"by", required_argument, NULL, 'b'},
	    {"seed", required_argument, NULL, TP_CLI_OPT_SEED},
	    {"output", required_argument, NULL, 'o'},
	    {"size", required_argument, NULL, 'S'},
	    {"progress", no_argument, NULL, 'P'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = heat ? "report heatmap" : "report hops";
	int c, rc;

	*o = (struct matrix_opts){.heat = heat,
	                          .what = what,
	                          .mappings_buf = "block,remap",
	                          .job = TP_CLI_JOB_OPTS_DEFAULT,
	                          .width = 1200,
	                          .height = 600,
	                          .unit = TP_REPORT_RANKS,
	                          .pg = {isatty(STDERR_FILENO) != 0, what}};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (TP_CLI_IS_JOB_OPT(c))
			rc = tp_cli_parse_job_option(what, c, optarg, &o->job);
		else if (c != 0 && c < 256 && strchr("MboSPj", c))
			rc = parse_matrix_option(c, optarg, o);
		else
			return tp_cli_bad_option(what, c, argv,
			                         " (try --help)");
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->job.traffic || !o->job.fabric)
		return tp_cli_usage_error(what, "--profile and --fabric are "
		                                "required (see --help)");
	if ((rc = check_output(what, o->out)) != TP_EXIT_OK)
		return rc;
	return split_panels(o);
}

/* What hops or heatmap computed, one panel a mapping. */
struct matrix_work {
	tp_topo *topo;
	tp_traffic *t;
	tp_remap_host *hosts;
	uint32_t nhosts;
	uint32_t *maps[MAX_PANELS];
	tp_hops_bars bars[MAX_PANELS];
	tp_heatmap heatmaps[MAX_PANELS];
};

static void matrix_work_free(struct matrix_work *w, uint32_t npanels)
{
	for (uint32_t i = 0; i < npanels; i++) {
		free(w->maps[i]);
		tp_hops_bars_free(&w->bars[i]);
		tp_heatmap_free(&w->heatmaps[i]);
	}
	free(w->hosts);
	tp_traffic_free(w->t);
	tp_topo_free(w->topo);
}

/* Panel @i: its mapping, then its bars or heatmap cells. */
static tp_status compute_panel(const struct matrix_opts *o,
                               struct matrix_work *w, uint32_t i, tp_error *err)
{
	const tp_traffic *t = w->t;
	uint32_t max =
	    o->heat ? tp_heatmap_max_bins(o->width, o->height, o->npanels)
	            : tp_hops_max_bars(o->width, o->npanels);
	tp_status st;

	progress(&o->pg, "mapping %u ranks: %s", t->ranks, o->names[i]);
	w->maps[i] = malloc((size_t)t->ranks * sizeof(*w->maps[i]));
	if (!w->maps[i])
		return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
	st = tp_cli_make_mapping(w->topo, t, w->hosts, w->nhosts, o->names[i],
	                         o->job.seed, w->maps[i], err);
	if (st != TP_OK)
		return st;
	return o->heat ? tp_heatmap_compute(w->topo, t, w->maps[i], o->unit,
	                                    max, &w->heatmaps[i], err)
	               : tp_hops_compute(w->topo, t, w->maps[i], o->unit, max,
	                                 &w->bars[i], err);
}

/* The panels side by side into o->out. */
static tp_status draw_panels(const struct matrix_opts *o,
                             const struct matrix_work *w, tp_error *err)
{
	char title[300];

	snprintf(title, sizeof(title), "%s (%u ranks)",
	         tp_cli_base_name(o->job.traffic), w->t->ranks);
	progress(&o->pg, "drawing %s", o->out);
	if (o->heat) {
		tp_heatmap_panel panels[MAX_PANELS];

		for (uint32_t i = 0; i < o->npanels; i++)
			panels[i] = (tp_heatmap_panel){
			    tp_cli_base_name(o->names[i]), &w->heatmaps[i]};
		return tp_heatmap_draw(o->out, o->width, o->height, title,
		                       panels, o->npanels, NULL, err);
	}
	tp_hops_panel panels[MAX_PANELS];

	for (uint32_t i = 0; i < o->npanels; i++)
		panels[i] = (tp_hops_panel){tp_cli_base_name(o->names[i]),
		                            &w->bars[i], w->topo};
	return tp_hops_draw(o->out, o->width, o->height, title, panels,
	                    o->npanels, err);
}

/* Read the job, compute every panel and draw the picture. */
static int run_matrix_work(const struct matrix_opts *o, struct matrix_work *w)
{
	tp_error err = {0};
	int rc;

	if ((rc = tp_cli_load_topo(o->what, o->job.fabric, &w->topo)) !=
	    TP_EXIT_OK)
		return rc;
	progress(&o->pg, "reading %s", o->job.traffic);
	if (tp_cli_read_traffic(o->job.traffic, &w->t, &err) != TP_OK ||
	    check_not_empty(w->t, o->job.traffic, &err) != TP_OK ||
	    job_hosts(w->topo, o->job.fabric, o->job.traffic, o->job.hostlist,
	              (uint32_t)o->job.slots, w->t->ranks, &w->hosts,
	              &w->nhosts, &err) != TP_OK)
		return tp_cli_fail(o->what, &err);
	for (uint32_t i = 0; i < o->npanels; i++)
		if (compute_panel(o, w, i, &err) != TP_OK)
			return tp_cli_fail(o->what, &err);
	if (draw_panels(o, w, &err) != TP_OK)
		return tp_cli_fail(o->what, &err);
	return TP_EXIT_OK;
}

/* What was drawn, as one line or the topoplace.report-matrix document. */
static int print_matrix(const struct matrix_opts *o,
                        const struct matrix_work *w)
{
	if (o->json) {
		const struct matrix_summary sum = {
		    o->heat,     o->out,    o->width,
		    o->height,   o->unit,   o->job.traffic,
		    w->t->ranks, w->nhosts, (uint32_t)o->job.slots,
		    o->job.seed};

		return matrix_json(o->what, &sum, (const char *const *)o->names,
		                   o->npanels, w->bars, w->heatmaps);
	}
	printf("wrote %s (%ux%u, %s per %s, %u mapping%s)\n", o->out, o->width,
	       o->height, o->heat ? "heatmap" : "hop classes",
	       tp_report_unit_name(o->unit), o->npanels,
	       o->npanels == 1 ? "" : "s");
	return TP_EXIT_OK;
}

/* hops and heatmap: one profile, several mappings, one picture. */
static int run_matrix(int argc, char **argv, bool heat)
{
	struct matrix_opts o;
	struct matrix_work w;
	int rc;

	memset(&w, 0, sizeof(w));
	if ((rc = parse_matrix_opts(argc, argv, heat, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		fputs(matrix_usage, stdout);
		return TP_EXIT_OK;
	}
	if ((rc = run_matrix_work(&o, &w)) == TP_EXIT_OK)
		rc = print_matrix(&o, &w);
	matrix_work_free(&w, o.npanels);
	return rc;
}

/* The members every topoplace.report-io document starts with. */
static void json_io_common(tp_json *j, const char *out, uint32_t width,
                           uint32_t height, const char *sweep_path,
                           const tp_sweep_point *group)
{
	tp_json_string(j, "output", out);
	tp_json_uint(j, "width", width);
	tp_json_uint(j, "height", height);
	tp_json_string(j, "sweep", sweep_path);
	tp_json_uint(j, "request_bytes", group->request_bytes);
	tp_json_uint(j, "clients", group->clients);
}

/*
 * The schema topoplace.report-io version 1 (topoplace-json(7)) for the
 * latency curve: the text's summary, the threshold marked (or why none)
 * and the window marked with its reason.
 */
static int io_curve_json(const char *out, uint32_t width, uint32_t height,
                         const char *sweep_path, const tp_iocurve *curve)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "report-io", 1);
	json_io_common(&j, out, width, height, sweep_path, &curve->points[0]);
	tp_json_bool(&j, "tradeoff", false);
	tp_json_uint(&j, "intervals", curve->count);
	if (curve->have_threshold) {
		const tp_threshold *t = &curve->threshold;

		tp_json_begin_object(&j, "threshold");
		tp_json_double(&j, "threshold_us", t->threshold_us);
		tp_json_double(&j, "plateau_us", t->plateau_us);
		tp_json_double(&j, "knee_us", t->knee_us);
		tp_json_double(&j, "safe_us", t->safe_us);
		tp_json_double(&j, "confidence", t->confidence);
		tp_json_string(&j, "statistic", t->statistic);
		tp_json_end_object(&j);
		tp_json_null(&j, "no_threshold_reason");
	} else {
		tp_json_null(&j, "threshold");
		tp_json_string(&j, "no_threshold_reason",
		               curve->no_threshold_why);
	}
	if (curve->window_us > 0)
		tp_json_double(&j, "window_us", curve->window_us);
	else
		tp_json_null(&j, "window_us");
	tp_json_string(&j, "window_reason", curve->window_why);
	tp_json_end_document(&j);
	return tp_cli_json_finish("report io", &j, TP_EXIT_OK);
}

/*
 * `report io --tradeoff`: the measured curve of @group's (size, clients)
 * from @sweep, the window the objective (or --window, or the threshold
 * rule at --interval) picks on it, drawn into @out.
 */
static int draw_tradeoff(const tp_sweep *sweep, const tp_sweep_point *group,
                         const char *sweep_path, const char *out,
                         uint32_t width, uint32_t height, uint64_t interval_us,
                         uint64_t window_us,
                         const tp_throttle_objective *objective, bool json,
                         tp_error *err)
{
	static const char *const all[] = {"*"};
	tp_throttle_policy policy = {0,    0, all, 1, true, *objective,
	                             TP_CONFIDENCE_DEFAULT};
	tp_throttle_request fixed = {TP_THROTTLE_FIXED, window_us};
	tp_iocurve_tradeoff chart = {0};
	tp_threshold_table *table;
	tp_window_decision d;
	char objective_text[48];
	const tp_curve_point *points;
	size_t count;
	bool exact;
	int rc = TP_EXIT_FAILURE;

	if (tp_threshold_table_from_sweep(sweep, NULL, NULL, &table, err) !=
	    TP_OK) {
		tp_error_prefix(err, "%s: no measured curve", sweep_path);
		return rc;
	}
	if (!tp_threshold_curve(table, group->request_bytes, group->clients,
	                        &points, &count, &exact) ||
	    !exact) {
		tp_error_set(err, TP_ERR_NOTFOUND,
		             "%s: %llu bytes x %u clients: no knee, so no "
		             "measured curve in its table",
		             sweep_path,
		             (unsigned long long)group->request_bytes,
		             group->clients);
		goto done;
	}
	{
		tp_io_pattern job = {group->request_bytes, group->clients,
		                     interval_us ? (double)interval_us
		                     : points[0].io_interval_us > 1
		                         ? points[0].io_interval_us
		                         : 1,
		                     0, NULL};

		if (tp_window_decide(&job, table, &policy,
		                     window_us ? &fixed : NULL, &d,
		                     err) != TP_OK)
			goto done;
	}
	tp_throttle_objective_format(objective, objective_text,
	                             sizeof(objective_text));
	chart.name = tp_cli_base_name(sweep_path);
	chart.points = points;
	chart.count = count;
	chart.window_us = d.throttle ? (double)d.window_us : 0;
	chart.objective = objective_text;
	chart.limit_ratio =
	    objective->kind == TP_OBJECTIVE_VICTIM_SLOWDOWN ? objective->limit
	    : objective->kind == TP_OBJECTIVE_IO_COST       ? 1 + objective->limit
	                                                    : 0;
	chart.window_why = d.reason;
	if (tp_iocurve_draw_tradeoff(out, width, height, &chart, err) != TP_OK)
		goto done;
	if (json) {
		tp_json j;

		tp_json_init(&j, stdout);
		tp_json_begin_document(&j, "report-io", 1);
		json_io_common(&j, out, width, height, sweep_path, group);
		tp_json_bool(&j, "tradeoff", true);
		tp_json_uint(&j, "windows", count);
		if (d.throttle)
			tp_json_uint(&j, "window_us", d.window_us);
		else
			tp_json_null(&j, "window_us");
		tp_json_string(&j, "objective", objective_text);
		tp_json_string(&j, "window_reason", d.reason);
		tp_json_end_document(&j);
		if (tp_json_finish(&j, err) == TP_OK)
			rc = TP_EXIT_OK;
		goto done;
	}
	printf("wrote %s (%ux%u, %zu windows, window %llu us, objective %s)\n",
	       out, width, height, count, (unsigned long long)chart.window_us,
	       objective_text);
	rc = TP_EXIT_OK;
done:
	tp_threshold_table_free(table);
	return rc;
}

/* The options of `report io`, as given (defaults filled in). */
struct io_opts {
	const char *what, *sweep_path, *out;
	bool tradeoff, json, help;
	tp_throttle_objective objective;
	uint64_t bytes, clients; /* which curve; 0: the sweep's first */
	uint64_t interval_us, window_us;
	uint32_t width, height;
	struct progress pg;
};

/* One getopt_long answer @c into @o. */
static int parse_io_option(int c, const char *arg, struct io_opts *o)
{
	tp_error err = {0};
	tp_status st = TP_OK;

	switch (c) {
	case 'w':
		o->sweep_path = arg;
		break;
	case 'b':
		st = tp_units_parse_bytes("--bytes", arg, &o->bytes, &err);
		break;
	case 'c':
		st = tp_units_parse_count("--clients", arg, 1,
		                          TP_SWEEP_MAX_CLIENTS, &o->clients,
		                          &err);
		break;
	case 'i':
		st = tp_units_parse_duration_us("--interval", arg, 1,
		                                &o->interval_us, &err);
		break;
	case 'W':
		st = tp_units_parse_duration_us("--window", arg, 1,
		                                &o->window_us, &err);
		break;
	case 'o':
		o->out = arg;
		break;
	case 'S':
		return parse_size(o->what, arg, &o->width, &o->height);
	case 'P':
		o->pg.on = true;
		break;
	case 'T':
		o->tradeoff = true;
		break;
	case 'j':
		o->json = true;
		break;
	default: /* 'J' */
		st = tp_throttle_objective_parse(arg, &o->objective, &err);
		break;
	}
	if (st != TP_OK)
		return tp_cli_usage_error(o->what, "%s", err.message);
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_io_opts(int argc, char **argv, struct io_opts *o)
{
	static const struct option opts[] = {
	    {"sweep", required_argument, NULL, 'w'},
	    {"bytes", required_argument, NULL, 'b'},
	    {"clients", required_argument, NULL, 'c'},
	    {"interval", required_argument, NULL, 'i'},
	    {"window", required_argument, NULL, 'W'},
	    {"output", required_argument, NULL, 'o'},
	    {"size", required_argument, NULL, 'S'},
	    {"progress", no_argument, NULL, 'P'},
	    {"tradeoff", no_argument, NULL, 'T'},
	    {"objective", required_argument, NULL, 'J'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *what = "report io";
	int c, rc;

	*o = (struct io_opts){.what = what,
	                      .objective = {TP_OBJECTIVE_NONE, 0},
	                      .width = 900,
	                      .height = 560,
	                      .pg = {isatty(STDERR_FILENO) != 0, what}};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (c == 0 || !strchr("wbciWoSPTjJ", c))
			return tp_cli_bad_option(what, c, argv,
			                         " (try --help)");
		if ((rc = parse_io_option(c, optarg, o)) != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(what, "unexpected argument '%s'",
		                          argv[optind]);
	if (!o->sweep_path)
		return tp_cli_usage_error(what, "--sweep FILE is required");
	if (!o->bytes != !o->clients)
		return tp_cli_usage_error(what, "--bytes and --clients go "
		                                "together");
	if (o->interval_us && o->window_us)
		return tp_cli_usage_error(what, "give --interval or --window, "
		                                "not both");
	return check_output(what, o->out);
}

/* What `report io` read and drew; io_work_free frees it. */
struct io_work {
	tp_sweep *sweep;
	tp_sweep_point *points;
	size_t npoints, first, count; /* the curve: points[first..+count] */
	tp_iocurve curve;
	tp_error why;         /* why the curve has no threshold */
	char window_why[256]; /* why the marked window */
};

static void io_work_free(struct io_work *w)
{
	free(w->points);
	tp_sweep_free(w->sweep);
}

/*
 * The window marked on the curve: --window as given, or for --interval
 * the decision the scheduler would make for a job of this curve's size
 * and clients at that interval.
 */
static tp_status mark_window(const struct io_opts *o, struct io_work *w,
                             tp_error *err)
{
	tp_iocurve *curve = &w->curve;

	if (o->window_us) {
		curve->window_us = (double)o->window_us;
		curve->window_why = "given with --window";
	} else if (o->interval_us && curve->have_threshold) {
		tp_threshold_table table = {&curve->threshold, 1, NULL, 0};
		static const char *const all[] = {"*"};
		tp_throttle_policy policy = {0, 0,    all,
		                             1, true, {TP_OBJECTIVE_NONE, 0},
		                             TP_CONFIDENCE_DEFAULT};
		tp_io_pattern job = {curve->points[0].request_bytes,
		                     curve->points[0].clients,
		                     (double)o->interval_us, 0, NULL};
		tp_window_decision d;

		if (tp_window_decide(&job, &table, &policy, NULL, &d, err) !=
		    TP_OK)
			return err->code;
		curve->window_us = d.throttle ? (double)d.window_us : 0;
		snprintf(w->window_why, sizeof(w->window_why), "%s", d.reason);
		curve->window_why = w->window_why;
	} else if (o->interval_us) {
		curve->window_why = "no threshold to keep the job above";
	}
	return TP_OK;
}

/* The curve of the sweep with its threshold and window, drawn into -o. */
static tp_status draw_io_curve(const struct io_opts *o, struct io_work *w,
                               tp_error *err)
{
	tp_threshold_params params;
	tp_iocurve *curve = &w->curve;

	tp_threshold_params_default(&params);
	curve->name = tp_cli_base_name(o->sweep_path);
	curve->points = w->points + w->first;
	curve->count = w->count;
	curve->have_threshold =
	    tp_threshold_detect(curve->points, w->count, &params,
	                        &curve->threshold, &w->why) == TP_OK;
	if (!curve->have_threshold)
		curve->no_threshold_why = w->why.message;
	if (mark_window(o, w, err) != TP_OK)
		return err->code;
	progress(&o->pg, "drawing %s", o->out);
	return tp_iocurve_draw(o->out, o->width, o->height, curve, err);
}

/* What was drawn, as one line or the topoplace.report-io document. */
static int print_io_curve(const struct io_opts *o, const struct io_work *w)
{
	if (o->json)
		return io_curve_json(o->out, o->width, o->height, o->sweep_path,
		                     &w->curve);
	printf("wrote %s (%ux%u, %zu intervals, %s)\n", o->out, o->width,
	       o->height, w->count,
	       w->curve.have_threshold ? "threshold marked" : "no knee");
	return TP_EXIT_OK;
}

static int run_io(int argc, char **argv)
{
	struct io_opts o;
	struct io_work w = {.sweep = NULL};
	tp_error err = {0};
	int rc;

	if ((rc = parse_io_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		fputs(io_usage, stdout);
		return TP_EXIT_OK;
	}
	progress(&o.pg, "reading %s", o.sweep_path);
	if (tp_sweep_read(o.sweep_path, 0, &w.sweep, &err) != TP_OK ||
	    tp_sweep_points(w.sweep, &w.points, &w.npoints, &err) != TP_OK) {
		rc = tp_cli_fail(o.what, &err);
	} else if (tp_iocurve_select(w.points, w.npoints, o.bytes,
	                             (uint32_t)o.clients, &w.first, &w.count,
	                             &err) != TP_OK) {
		tp_error_prefix(&err, "%s", o.sweep_path);
		rc = tp_cli_fail(o.what, &err);
	} else if (o.tradeoff) {
		/* its own chart, summary and JSON */
		rc = draw_tradeoff(w.sweep, w.points + w.first, o.sweep_path,
		                   o.out, o.width, o.height, o.interval_us,
		                   o.window_us, &o.objective, o.json, &err);
		if (rc != TP_EXIT_OK)
			rc = tp_cli_fail(o.what, &err);
	} else if (draw_io_curve(&o, &w, &err) != TP_OK) {
		rc = tp_cli_fail(o.what, &err);
	} else {
		rc = print_io_curve(&o, &w);
	}
	io_work_free(&w);
	return rc;
}

/*
 * What a topoplace.conf decides for the explanation, where the command line
 * does not: the policy (a requested one, or the partition's
 * DefaultPlacement, resolved as the scheduler resolves it), the class
 * thresholds and the I/O servers.  The *_source strings are written into
 * the three buffers of @bufsize bytes.
 */
static void apply_config(const tp_config *cfg, const char *path,
                         const char *partition, tp_placement requested,
                         bool policy_given, bool io_given, bool io_policy_given,
                         tp_explain_input *in, char *policy_src, char *io_src,
                         char *thr_src, size_t bufsize)
{
	const tp_config_settings *set = tp_config_for_partition(cfg, partition);
	bool named = false;
	char where[400];

	for (size_t i = 0; partition && i < tp_config_partition_count(cfg); i++)
		named |= !strcmp(tp_config_partition_name(cfg, i), partition);
	if (!partition)
		snprintf(where, sizeof(where), "%s (site-wide)", path);
	else if (named)
		snprintf(where, sizeof(where), "%s, partition %s", path,
		         partition);
	else
		snprintf(where, sizeof(where),
		         "%s (site-wide: it has no line for partition %s)",
		         path, partition);
	in->policy =
	    tp_config_resolve_placement(set, requested, in->traffic != NULL);
	in->leaf_remainder = set->leaf_remainder;
	{
		/* The steps tp_config_resolve_placement takes, in words. */
		tp_placement base = requested != TP_PLACEMENT_AUTO
		                        ? requested
		                        : set->default_placement;
		size_t n;

		bool said_where =
		    !(policy_given && requested != TP_PLACEMENT_AUTO);

		if (!said_where)
			n = (size_t)snprintf(policy_src, bufsize,
			                     "given with --policy %s",
			                     tp_placement_name(requested));
		else
			n = (size_t)snprintf(policy_src, bufsize,
			                     "DefaultPlacement=%s in %s",
			                     tp_placement_name(base), where);
		if (base == TP_PLACEMENT_AUTO && n < bufsize) {
			base = in->traffic ? TP_PLACEMENT_SHARED
			                   : TP_PLACEMENT_OFF;
			n += (size_t)snprintf(
			    policy_src + n, bufsize - n, "; auto: %s",
			    in->traffic ? "shared for a job with a profile"
			                : "off for a job without a profile");
		}
		if (in->policy != base && n < bufsize)
			snprintf(policy_src + n, bufsize - n,
			         "; LeafSharing=%s%s%s makes it %s",
			         tp_leaf_sharing_name(set->leaf_sharing),
			         said_where ? "" : " in ",
			         said_where ? "" : where,
			         tp_placement_name(in->policy));
	}
	in->policy_source = policy_src;
	in->thresholds = &set->thresholds;
	snprintf(thr_src, bufsize, "from %s", where);
	in->thresholds_source = thr_src;
	if (!io_given && set->ioserver_count > 0)
		in->io_servers = set->ioserver_count;
	if (!io_policy_given)
		in->io_policy = set->ioserver_policy;
	if (in->io_servers && (!io_given || !io_policy_given)) {
		snprintf(io_src, bufsize, "%s%s%s in %s",
		         io_given ? "" : "IoServerCount",
		         !io_given && !io_policy_given ? " and " : "",
		         io_policy_given ? "" : "IoServerPolicy", where);
		in->io_source = io_src;
	}
}

void tp_cli_profile_summary(const tp_profile *p, tp_job_summary *s)
{
	double seconds = (double)p->header.duration_us / 1e6;
	uint64_t bytes = tp_profile_total_bytes(p);
	uint64_t msgs = tp_profile_total_msgs(p), seen = 0;

	memset(s, 0, sizeof(*s));
	s->ranks = p->header.ranks;
	s->io_bytes = p->io.read_bytes + p->io.write_bytes;
	s->io_clients = (uint32_t)p->io.client_count;
	for (int i = 0; i < TP_PROFILE_IO_BUCKETS && p->io.requests; i++) {
		seen += p->io.size_hist[i];
		if (seen * 2 >= p->io.requests) {
			s->io_request_bytes = i == 0 ? 1 : (uint64_t)1 << i;
			break;
		}
	}
	if (seconds > 0) {
		if (p->io.client_count)
			s->io_requests_per_s = (double)p->io.requests /
			                       (double)p->io.client_count /
			                       seconds;
		s->net_bytes_per_s = (double)bytes / seconds;
	}
	if (msgs)
		s->mean_message_bytes = bytes / msgs;
}

/* One side of explain's cost comparison, the figures of topoplace.cost. */
static void json_explain_cost(tp_json *j, const char *key,
                              const tp_cost_report *r)
{
	tp_json_begin_object(j, key);
	tp_json_uint(j, "hop_bytes", r->hop_bytes);
	tp_json_begin_object(j, "class_bytes");
	for (int k = 0; k < TP_COST_CLASSES; k++)
		tp_json_uint(j, class_key[k], r->class_bytes[k]);
	tp_json_end_object(j);
	tp_json_begin_object(j, "predicted_s");
	tp_json_double(j, "total", r->predicted_s);
	tp_json_double(j, "max_rate", r->maxrate_s);
	tp_json_double(j, "queue_search", r->queue_s);
	tp_json_double(j, "contention", r->contention_s);
	tp_json_end_object(j);
	tp_json_end_object(j);
}

/* The job class and what it was judged against (null when given). */
static void json_explain_class(tp_json *j, const tp_explain *ex)
{
	const tp_jobclass_thresholds *t = &ex->thresholds;

	tp_json_string(j, "class", tp_jobclass_name(ex->job_class));
	tp_json_bool(j, "classified", ex->classified);
	if (!ex->classified) {
		tp_json_null(j, "class_reason");
		tp_json_null(j, "thresholds");
		return;
	}
	tp_json_string(j, "class_reason", ex->class_reason);
	tp_json_begin_object(j, "thresholds");
	tp_json_uint(j, "io_bytes_min", t->io_bytes_min);
	tp_json_double(j, "io_client_bytes_per_s_min",
	               t->io_client_bytes_per_s_min);
	tp_json_uint(j, "io_reference_clients", t->io_reference_clients);
	tp_json_uint(j, "comm_small_message_bytes_max",
	             t->comm_small_message_bytes_max);
	tp_json_double(j, "comm_messages_per_s_per_rank_min",
	               t->comm_messages_per_s_per_rank_min);
	tp_json_double(j, "comm_bytes_per_s_per_rank_min",
	               t->comm_bytes_per_s_per_rank_min);
	tp_json_string(j, "source", ex->thresholds_source);
	tp_json_end_object(j);
}

/* The default against topoplace (null when not computed). */
static void json_explain_costs(tp_json *j, const tp_explain *ex)
{
	if (!ex->has_costs) {
		tp_json_null(j, "costs");
		return;
	}
	tp_json_begin_object(j, "costs");
	tp_json_string(j, "mapping", ex->mapping);
	json_explain_cost(j, "default", &ex->default_cost);
	json_explain_cost(j, "topoplace", &ex->topoplace_cost);
	/* NAN (the default's figure is 0) prints as null. */
	tp_json_double(j, "hop_bytes_ratio", ex->hop_bytes_ratio);
	tp_json_double(j, "predicted_ratio", ex->predicted_ratio);
	tp_json_end_object(j);
}

/* The decision, the default and the I/O servers (null when not met). */
static void json_explain_placement(tp_json *j, const tp_explain *ex)
{
	const tp_alloc_result *res = &ex->alloc;
	const tp_topo *topo = ex->topo;

	tp_json_string(j, "outcome", res->met ? "placed" : "not_met");
	tp_json_string(j, "reason", res->reason);
	tp_json_uint(j, "leaves_in_fabric", tp_topo_leaf_count(topo));
	tp_json_uint(j, "pods_in_fabric", tp_topo_pod_count(topo));
	if (!res->met) {
		const char *absent[] = {"hosts",     "leaves",  "pods",
		                        "reserved",  "default", "costs",
		                        "io_servers"};

		for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
			tp_json_null(j, absent[i]);
		return;
	}
	tp_cli_json_alloc_sets(j, topo, res);
	if (ex->default_possible) {
		tp_json_begin_object(j, "default");
		tp_cli_json_names(j, "hosts", topo, ex->default_hosts,
		                  ex->default_host_count, tp_topo_host_name);
		tp_cli_json_names(j, "leaves", topo, ex->default_leaves,
		                  ex->default_leaf_count, tp_topo_leaf_name);
		tp_cli_json_names(j, "pods", topo, ex->default_pods,
		                  ex->default_pod_count, tp_topo_pod_name);
		tp_json_end_object(j);
	} else {
		tp_json_null(j, "default");
	}
	json_explain_costs(j, ex);
	if (!ex->io_servers_requested) {
		tp_json_null(j, "io_servers");
		return;
	}
	tp_json_begin_object(j, "io_servers");
	tp_json_string(j, "policy", tp_ioserver_policy_name(ex->io_policy));
	tp_json_string(j, "where",
	               ex->io_scope == TP_IOSERVER_AMONG ? "among" : "beside");
	tp_cli_json_names(j, "hosts", topo, ex->io.servers, ex->io.server_count,
	                  tp_topo_host_name);
	tp_json_string(j, "reason", ex->io.reason);
	tp_json_string(j, "source", ex->io_source);
	tp_json_end_object(j);
}

/*
 * The schema topoplace.report-explain version 1 (topoplace-json(7)): every
 * figure of the page, from the same struct the page is rendered from; @out
 * is where the page went (-o), NULL when it was not written.
 */
static int explain_json(const char *what, const tp_explain *ex, const char *out)
{
	tp_json j;

	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "report-explain", 1);
	tp_json_string(&j, "output", out);
	tp_json_string(&j, "job", ex->job);
	tp_json_uint(&j, "job_id", ex->job_id);
	tp_json_uint(&j, "nodes", ex->nodes);
	tp_json_string(&j, "policy", tp_placement_name(ex->policy));
	tp_json_string(&j, "policy_source", ex->policy_source);
	json_explain_class(&j, ex);
	if (ex->has_traffic) {
		tp_json_uint(&j, "ranks", ex->ranks);
		tp_json_uint(&j, "slots", ex->slots);
	} else {
		tp_json_null(&j, "ranks");
		tp_json_null(&j, "slots");
	}
	tp_json_uint(&j, "io_servers_requested", ex->io_servers_requested);
	json_explain_placement(&j, ex);
	tp_json_end_document(&j);
	return tp_cli_json_finish(what, &j, TP_EXIT_OK);
}

/* The options of `report explain`, as given (defaults filled in). */
struct explain_opts {
	const char *what, *fabric, *out;
	const char *profile_path, *busy_path, *config_path, *partition;
	bool policy_given, io_given, io_policy_given, class_given;
	bool routing_given;
	bool json, help;
	tp_placement requested; /* --policy, auto when not given */
	tp_explain_input in;    /* what the command line decides */
};

/* The job's options of one getopt_long answer @c. */
static int parse_explain_job_option(int c, const char *arg,
                                    struct explain_opts *o)
{
	tp_explain_input *in = &o->in;
	tp_error err = {0};

	switch (c) {
	case 'n':
		return tp_cli_parse_u32(o->what, "--nodes", arg, 1, UINT32_MAX,
		                        &in->nodes);
	case 'p':
		if (tp_placement_parse(arg, &o->requested, &err))
			return tp_cli_usage_error(
			    o->what,
			    "--policy '%s': expected "
			    "auto|leaf|shared|pack|spread|off",
			    arg);
		o->policy_given = true;
		return TP_EXIT_OK;
	case 'c':
		if (tp_jobclass_parse(arg, &in->job_class, &err))
			return tp_cli_usage_error(o->what, "--class: %s",
			                          err.message);
		o->class_given = true;
		return TP_EXIT_OK;
	case 'r':
		o->profile_path = arg;
		return TP_EXIT_OK;
	case 'l':
		return tp_cli_parse_u32(o->what, "--slots", arg, 1,
		                        TP_CLI_MAX_SLOTS, &in->slots);
	case 'j':
		return tp_cli_parse_u32(o->what, "--job-id", arg, 0, UINT32_MAX,
		                        &in->job_id);
	default: /* 's' */
		return tp_cli_parse_seed(o->what, arg, &in->seed);
	}
}

/* The I/O server, site and output options of one getopt_long answer. */
static int parse_explain_site_option(int c, const char *arg,
                                     struct explain_opts *o)
{
	tp_error err = {0};

	switch (c) {
	case 'i':
		o->io_given = true;
		return tp_cli_parse_u32(o->what, "--io-servers", arg, 1,
		                        UINT32_MAX, &o->in.io_servers);
	case 'I':
	{
		bool is_auto;

		if (tp_ioserver_policy_parse_auto(arg, &o->in.io_policy,
		                                  &is_auto, &err))
			return tp_cli_usage_error(o->what, "--io-policy: %s",
			                          err.message);
		/* auto: as if not given, resolved from the routing */
		o->io_policy_given = !is_auto;
		return TP_EXIT_OK;
	}
	case 'g':
		if (tp_routing_parse(arg, &o->in.routing, &err))
			return tp_cli_usage_error(o->what, "--routing: %s",
			                          err.message);
		o->routing_given = true;
		return TP_EXIT_OK;
	case 'w':
		return tp_cli_parse_io_where(o->what, arg, false,
		                             &o->in.io_scope);
	case 'b':
		o->busy_path = arg;
		return TP_EXIT_OK;
	case 'C':
		o->config_path = arg;
		return TP_EXIT_OK;
	case 'P':
		o->partition = arg;
		return TP_EXIT_OK;
	case 'o':
		o->out = arg;
		return TP_EXIT_OK;
	default: /* 'J' */
		o->json = true;
		return TP_EXIT_OK;
	}
}

/* The rules between options, checked once all are read. */
static int check_explain_opts(struct explain_opts *o)
{
	if (!o->fabric || !o->in.nodes)
		return tp_cli_usage_error(o->what, "--fabric and --nodes are "
		                                   "required (see --help)");
	if (o->partition && !o->config_path)
		return tp_cli_usage_error(o->what,
		                          "--partition needs --config");
	if (!o->config_path && o->policy_given &&
	    o->requested == TP_PLACEMENT_AUTO)
		return tp_cli_usage_error(o->what,
		                          "--policy auto is resolved by a "
		                          "topoplace.conf: give --config FILE "
		                          "or leaf|shared|pack|spread|off");
	if (!o->config_path && o->policy_given)
		o->in.policy = o->requested;
	return TP_EXIT_OK;
}

/*
 * argv into @o.  Returns TP_EXIT_OK (with o->help set for --help) or
 * TP_EXIT_USAGE after one line naming the option.
 */
static int parse_explain_opts(int argc, char **argv, struct explain_opts *o)
{
	static const struct option opts[] = {
	    {"fabric", required_argument, NULL, 'f'},
	    {"nodes", required_argument, NULL, 'n'},
	    {"policy", required_argument, NULL, 'p'},
	    {"class", required_argument, NULL, 'c'},
	    {"profile", required_argument, NULL, 'r'},
	    {"slots", required_argument, NULL, 'l'},
	    {"job-id", required_argument, NULL, 'j'},
	    {"seed", required_argument, NULL, 's'},
	    {"io-servers", required_argument, NULL, 'i'},
	    {"io-policy", required_argument, NULL, 'I'},
	    {"io-where", required_argument, NULL, 'w'},
	    {"busy", required_argument, NULL, 'b'},
	    {"config", required_argument, NULL, 'C'},
	    {"partition", required_argument, NULL, 'P'},
	    {"output", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'J'},
	    {"routing", required_argument, NULL, 'g'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc;

	/* Without --config, the site defaults (LeafRemainder=compatible). */
	*o = (struct explain_opts){
	    .what = "report explain",
	    .requested = TP_PLACEMENT_AUTO,
	    .in = {.policy = TP_PLACEMENT_LEAF,
	           .leaf_remainder = TP_LEAF_REMAINDER_COMPATIBLE,
	           .job_id = 1,
	           .slots = 1,
	           .seed = 1,
	           .io_scope = TP_IOSERVER_BESIDE}};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return TP_EXIT_OK;
		}
		if (c == 'f') {
			o->fabric = optarg;
			continue;
		}
		if (c != 0 && strchr("npcrljs", c))
			rc = parse_explain_job_option(c, optarg, o);
		else if (c != 0 && strchr("iIwbCPoJg", c))
			rc = parse_explain_site_option(c, optarg, o);
		else
			return tp_cli_bad_option(o->what, c, argv,
			                         " (try --help)");
		if (rc != TP_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return tp_cli_usage_error(o->what, "unexpected argument '%s'",
		                          argv[optind]);
	return check_explain_opts(o);
}

/* What `report explain` read and decided; explain_work_free frees it. */
struct explain_work {
	tp_topo *topo;
	tp_config *cfg;
	tp_host_use *use; /* --busy; NULL: every host free */
	tp_profile *profile;
	tp_traffic *t;
	tp_job_summary summary;
	char name[300]; /* the job as the explanation names it */
	char policy_src[600], io_src[600], thr_src[600];
	tp_explain ex;
	char *text; /* the explanation in words (-o or no --json) */
};

static void explain_work_free(struct explain_work *w)
{
	tp_explain_free(&w->ex);
	free(w->text);
	free(w->use);
	tp_config_free(w->cfg);
	tp_traffic_free(w->t);
	tp_profile_free(w->profile);
	tp_topo_free(w->topo);
}

/* --busy and --profile into @in (the job then named by its profile). */
static tp_status load_explain_job(struct explain_opts *o,
                                  struct explain_work *w, tp_error *err)
{
	tp_explain_input *in = &o->in;

	if (o->busy_path) {
		w->use = calloc((size_t)tp_topo_host_count(w->topo) + 1,
		                sizeof(*w->use));
		if (!w->use)
			return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
		if (tp_cli_read_busy(o->busy_path, w->topo, w->use, err) !=
		    TP_OK)
			return err->code;
		in->use = w->use;
	}
	if (!o->profile_path)
		return TP_OK;
	if (tp_cli_read_profile(o->profile_path, &w->profile, err) != TP_OK ||
	    tp_profile_to_traffic(w->profile, &w->t, err) != TP_OK ||
	    check_not_empty(w->t, o->profile_path, err) != TP_OK)
		return err->code;
	in->traffic = w->t;
	snprintf(w->name, sizeof(w->name), "%s (profile %s, %u ranks)",
	         w->profile->header.app, tp_cli_base_name(o->profile_path),
	         w->t->ranks);
	in->job = w->name;
	if (!o->class_given) {
		tp_cli_profile_summary(w->profile, &w->summary);
		in->summary = &w->summary;
	}
	return TP_OK;
}

/*
 * The routing (--routing, else the file's Routing, else adaptive) and,
 * unless --io-policy or a file's IoServerPolicy named one, the I/O server
 * policy for it: IoServerPolicy=auto, the one default `topoplace place`
 * and the plugins use (tp_ioserver_policy_for_routing), said with why.
 */
static void resolve_routing(struct explain_opts *o, struct explain_work *w)
{
	tp_explain_input *in = &o->in;
	const tp_config_settings *set =
	    w->cfg ? tp_config_for_partition(w->cfg, o->partition) : NULL;
	char said[sizeof(w->io_src)];
	size_t n;

	if (!o->routing_given && w->cfg)
		in->routing = tp_config_site_settings(w->cfg)->routing;
	if (o->io_policy_given || (set && !set->ioserver_auto))
		return;
	in->io_policy = tp_ioserver_policy_for_routing(in->routing);
	if (!in->io_servers)
		return;
	/* the file's words first (apply_config wrote them into io_src) */
	snprintf(said, sizeof(said), "%s", in->io_source ? in->io_source : "");
	n = (size_t)snprintf(w->io_src, sizeof(w->io_src), "%s%s", said,
	                     *said ? "; " : "");
	if (n < sizeof(w->io_src))
		snprintf(w->io_src + n, sizeof(w->io_src) - n,
		         "IoServerPolicy=auto: %s",
		         tp_ioserver_policy_why(in->routing));
	in->io_source = w->io_src;
}

/*
 * Load the fabric, configuration, occupancy and profile, then compute the
 * explanation (and its words, for -o or text).  Returns TP_EXIT_OK, or
 * the exit status of a failure already printed.
 */
static int run_explain_work(struct explain_opts *o, struct explain_work *w)
{
	tp_explain_input *in = &o->in;
	tp_error err = {0};
	int rc;

	if ((rc = tp_cli_load_topo(o->what, o->fabric, &w->topo)) != TP_EXIT_OK)
		return rc;
	in->topo = w->topo;
	in->job = "job";
	if ((o->config_path &&
	     tp_config_load(o->config_path, &w->cfg, &err) != TP_OK) ||
	    load_explain_job(o, w, &err) != TP_OK)
		return tp_cli_fail(o->what, &err);
	if (w->cfg)
		apply_config(w->cfg, o->config_path, o->partition, o->requested,
		             o->policy_given, o->io_given, o->io_policy_given,
		             in, w->policy_src, w->io_src, w->thr_src,
		             sizeof(w->policy_src));
	resolve_routing(o, w);
	if (tp_explain_compute(in, &w->ex, &err) != TP_OK ||
	    ((o->out || !o->json) &&
	     tp_explain_text(&w->ex, &w->text, &err) != TP_OK))
		return tp_cli_fail(o->what, &err);
	return TP_EXIT_OK;
}

/* The words into -o (a cut file removed), else on stdout without --json;
 * then the JSON document. */
static int print_explain(const struct explain_opts *o,
                         const struct explain_work *w)
{
	tp_error err = {0};

	if (o->out) {
		FILE *f = fopen(o->out, "w");

		if (!f || fputs(w->text, f) == EOF || fclose(f) != 0) {
			tp_error_set(&err, TP_ERR_IO, "%s: cannot write: %s",
			             o->out, strerror(errno));
			if (f)
				unlink(o->out);
			return tp_cli_fail(o->what, &err);
		}
		if (!o->json)
			printf("wrote %s\n", o->out);
	} else if (!o->json) {
		fputs(w->text, stdout);
	}
	return o->json ? explain_json(o->what, &w->ex, o->out) : TP_EXIT_OK;
}

static int run_explain(int argc, char **argv)
{
	struct explain_opts o;
	struct explain_work w;
	int rc;

	memset(&w, 0, sizeof(w));
	if ((rc = parse_explain_opts(argc, argv, &o)) != TP_EXIT_OK)
		return rc;
	if (o.help) {
		fputs(explain_usage, stdout);
		return TP_EXIT_OK;
	}
	if ((rc = run_explain_work(&o, &w)) == TP_EXIT_OK)
		rc = print_explain(&o, &w);
	explain_work_free(&w);
	return rc;
}

int tp_cli_report(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} kinds[] = {
	    {"io", run_io},
	    {"explain", run_explain},
	    {"fabric", tp_cli_report_fabric},
	};
	char label[64];
	int rc;

	if (argc < 2) {
		fputs(report_usage, stderr);
		return TP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(report_usage, stdout);
		return TP_EXIT_OK;
	}
	if (!strcmp(argv[1], "hops") || !strcmp(argv[1], "heatmap")) {
		rc =
		    run_matrix(argc - 1, argv + 1, !strcmp(argv[1], "heatmap"));
		tp_canvas_release_static();
		return rc;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].name))
			continue;
		snprintf(label, sizeof(label), "topoplace report %s",
		         kinds[i].name);
		argv[1] = label;
		rc = kinds[i].run(argc - 1, argv + 1);
		/* Every canvas is closed by now: let go of cairo's fonts. */
		tp_canvas_release_static();
		return rc;
	}
	return tp_cli_usage_error("report",
	                          "unknown kind '%s' (hops, heatmap, io, "
	                          "explain, fabric)",
	                          argv[1]);
}
