/*
 * cli.h: shared pieces of the `topoplace` command-line tool.
 *
 * Each subcommand lives in its own tools/cli_<name>.c and is listed in the
 * table in tools/topoplace.c.  A subcommand gets argv with argv[0] set to
 * "topoplace <name>" and returns the process exit status:
 *   0  success
 *   1  the work failed (one clear line on stderr says why)
 *   2  bad usage (unknown option, bad value: one line naming it)
 */
#ifndef TP_CLI_H
#define TP_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "ioserver.h"
#include "tp_error.h"
#include "tp_log.h"

/*
 * TP_EXIT_NO_OPINION: `topoplace place` spent its decision budget and gives
 * no opinion (the scheduler would fall back to its own choice), which is
 * not the same as a request that cannot be met (TP_EXIT_FAILURE).
 */
enum {
	TP_EXIT_OK = 0,
	TP_EXIT_FAILURE = 1,
	TP_EXIT_USAGE = 2,
	TP_EXIT_NO_OPINION = 3,
};

/* A logger that writes "topoplace: <level>: <message>" lines to stderr. */
tp_logger tp_cli_logger(tp_log_level max_level);

/* Print "topoplace <what>: <err->message>" on stderr; return TP_EXIT_FAILURE. */
int tp_cli_fail(const char *what, const tp_error *err);

/* Print "topoplace <what>: <message>" on stderr; return TP_EXIT_USAGE. */
int tp_cli_usage_error(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The usage line for a bad option, from what getopt_long returned with
 * opterr = 0 and an optstring that starts with ':': for ':' (its value is
 * missing) "OPT needs a value", for anything else "unknown option 'OPT'"
 * followed by @hint ("" or, say, " (try --help)").  OPT is argv[optind - 1].
 * Returns TP_EXIT_USAGE.
 */
int tp_cli_bad_option(const char *what, int c, char *const argv[],
                      const char *hint);

/*
 * Parse decimal @text for option @opt as a whole number in @min..@max.
 * On failure prints one usage line naming the option and value and returns
 * TP_EXIT_USAGE; returns TP_EXIT_OK otherwise.
 */
int tp_cli_parse_u64(const char *what, const char *opt, const char *text,
		     uint64_t min, uint64_t max, uint64_t *value);

/* Most ranks per host --slots (and a job's slots=) accepts. */
#define TP_CLI_MAX_SLOTS 1000000u

/* --slots @text: ranks per host, 1..TP_CLI_MAX_SLOTS (tp_cli_parse_u64). */
int tp_cli_parse_slots(const char *what, const char *text, uint64_t *slots);

/* --seed @text: any whole number that fits 64 bits (tp_cli_parse_u64). */
int tp_cli_parse_seed(const char *what, const char *text, uint64_t *seed);

/* The last component of @path ("a/b/c" -> "c"), for labels and titles. */
const char *tp_cli_base_name(const char *path);

/*
 * The job the mapping subcommands (cost, remap, report hops and heatmap)
 * read: its traffic (--matrix or --profile FILE), --fabric, --hosts,
 * --slots and --seed.  Their option tables give these options the codes
 * below; tp_cli_parse_job_option parses them.
 */
typedef struct tp_cli_job_opts {
	const char *traffic;  /* a profile or a matrix text */
	const char *fabric;   /* PxLxH or a file (tp_cli_load_topo) */
	const char *hostlist; /* NULL: the first hosts that hold the job */
	uint64_t slots;       /* ranks per host */
	uint64_t seed;
} tp_cli_job_opts;

#define TP_CLI_JOB_OPTS_DEFAULT                                                \
	{                                                                      \
		.slots = 1, .seed = 1                                          \
	}

enum {
	TP_CLI_OPT_TRAFFIC = 0x1000,
	TP_CLI_OPT_FABRIC,
	TP_CLI_OPT_HOSTS,
	TP_CLI_OPT_SLOTS,
	TP_CLI_OPT_SEED,
};

/* Whether getopt_long answer @c is one of the job's options. */
#define TP_CLI_IS_JOB_OPT(c)                                                   \
	((c) >= TP_CLI_OPT_TRAFFIC && (c) <= TP_CLI_OPT_SEED)

/* Job option @c (TP_CLI_IS_JOB_OPT) with value @arg into @job; a usage
 * error names a bad --slots or --seed. */
int tp_cli_parse_job_option(const char *what, int c, const char *arg,
                            tp_cli_job_opts *job);

/* tp_cli_parse_u64 for a value that fits a uint32_t (@max <= UINT32_MAX). */
int tp_cli_parse_u32(const char *what, const char *opt, const char *text,
                     uint32_t min, uint32_t max, uint32_t *value);

/*
 * --io-where @text: among or beside the job's hosts, or (when @site_allowed)
 * site, site-wide servers placed before the job.  Anything else is one
 * usage line listing what this subcommand takes; returns TP_EXIT_USAGE.
 */
int tp_cli_parse_io_where(const char *what, const char *text, bool site_allowed,
                          tp_ioserver_scope *scope);

/*
 * Whether the --fabric argument @spec has the shape of a tree (digits and
 * 'x' only, no '/' or '.'), PxLxH or longer, valid or not, rather than the
 * name of a file.
 */
bool tp_cli_is_tree_spec(const char *spec);

/*
 * The host hierarchy named by a --fabric argument: either PxLxH (a regular
 * fat tree of P pods of L leaves of H hosts, named as topoplace-fattree
 * names them) or the path of an ibnetdiscover cache or a Slurm
 * topology.conf.  Returns TP_EXIT_OK with *topo set (free with
 * tp_topo_free), TP_EXIT_USAGE for a malformed PxLxH, TP_EXIT_FAILURE when
 * the file cannot be loaded (one line on stderr says why).
 */
struct tp_topo;
int tp_cli_load_topo(const char *what, const char *spec,
		     struct tp_topo **topo);

/*
 * The fabric (switches, ports, links) named by a --fabric argument:
 * PxLxH[xS[xC]] builds a fat tree with real ports in memory, named as
 * topoplace-fattree names it (P = 1: 2-level with S spines; P >= 2:
 * 3-level with S aggregation switches per pod and C cores in S groups; S
 * defaults to H, C to S; no LIDs, so no forwarding tables); otherwise the
 * path of an ibnetdiscover cache (GUIDs named through @name_map, which may
 * be NULL) or of a Slurm topology.conf.  Returns like tp_cli_load_topo;
 * free *fabric with tp_fabric_free.
 */
struct tp_fabric;
int tp_cli_load_fabric(const char *what, const char *spec,
		       const char *name_map, struct tp_fabric **fabric);

/*
 * A job's traffic from @path: a topoplace profile (binary, recognised by
 * its magic) or a communication matrix text (tests/data/matrices format).
 * Errors name the file.  Free *traffic with tp_traffic_free.
 */
struct tp_traffic;
tp_status tp_cli_read_traffic(const char *path, struct tp_traffic **traffic,
			      tp_error *err);

/*
 * The profile at @path (binary, recognised by its magic) or a communication
 * matrix text imported as one.  Errors name the file.  Free *profile with
 * tp_profile_free.
 */
struct tp_profile;
tp_status tp_cli_read_profile(const char *path, struct tp_profile **profile,
                              tp_error *err);

/*
 * An imported mapping of @ranks ranks, rank -> @topo host index into
 * @rank_host: an Open MPI rankfile (`rank N=host slot=S`), a Hydra
 * machinefile (`host:count`) or one host per rank (SLURM_HOSTFILE), as
 * `topoplace remap` writes them.  Errors name the file and line (unknown
 * host, rank placed twice or not at all, mixed formats).
 */
tp_status tp_cli_read_mapping(const struct tp_topo *topo, const char *path,
			      uint32_t ranks, uint32_t *rank_host,
			      tp_error *err);

/*
 * The job's hosts when none are named: the first hosts of @topo, in order,
 * enough to hold @ranks ranks at @slots (>= 1) per host, each with @slots
 * slots.  *hosts is the caller's (free()).  TP_ERR_INVALID when @topo (the
 * fabric named @fabric) has too few ("R ranks at S per host need N hosts,
 * fabric F has M"), TP_ERR_NOMEM.
 */
struct tp_remap_host;
tp_status tp_cli_first_hosts(const struct tp_topo *topo, const char *fabric,
                             uint32_t ranks, uint32_t slots,
                             struct tp_remap_host **hosts, uint32_t *count,
                             tp_error *err);

/*
 * Rank -> host of mapping @name into @rank_host (one entry per rank of
 * @traffic): a method tp_remap_method_parse knows (block, cyclic, random,
 * remap) computed over @hosts with @seed, or else the path of an imported
 * mapping read by tp_cli_read_mapping.  Errors are those of the remapper or
 * of the file.
 */
tp_status tp_cli_make_mapping(const struct tp_topo *topo,
                              const struct tp_traffic *traffic,
                              const struct tp_remap_host *hosts,
                              uint32_t nhosts, const char *name, uint64_t seed,
                              uint32_t *rank_host, tp_error *err);

/*
 * Host names collected one by one, each its own copy: pass
 * tp_cli_hosts_add as the callback of tp_hostlist_expand and the
 * list as its context.  Start from a zeroed list; free the names and the
 * array with tp_cli_hosts_free.
 */
typedef struct tp_cli_hosts {
	char **names;
	uint32_t count, cap;
} tp_cli_hosts;

/* Append a copy of @name to the tp_cli_hosts @hosts; TP_ERR_NOMEM. */
tp_status tp_cli_hosts_add(void *hosts, const char *name, tp_error *err);

/* Free the names and the array of @hosts and zero it (NULL-safe). */
void tp_cli_hosts_free(tp_cli_hosts *hosts);

/*
 * The occupancy file @path (`--busy`, see topoplace-place(1)) into @use, one
 * entry per host of @topo (hosts not listed stay as the caller set them).
 * Errors name the file and line ("FILE:3: ..."): an unknown host, a bad
 * state, job id or class, a host listed twice (naming both lines).
 */
struct tp_host_use;
tp_status tp_cli_read_busy(const char *path, const struct tp_topo *topo,
                           struct tp_host_use *use, tp_error *err);

/*
 * Finish the `--json` document @j of subcommand @what and return the exit
 * status: @rc when the document was written whole, else TP_EXIT_FAILURE
 * after one line on stderr ("topoplace WHAT: JSON output: ..."), so a
 * script never takes a cut document for the answer.
 */
struct tp_json;
int tp_cli_json_finish(const char *what, struct tp_json *j, int rc);

/*
 * The names of the hosts, leaves or pods @idx (@count indices into @topo,
 * named by @name: tp_topo_host_name, _leaf_name or _pod_name) as the JSON
 * array @key of @j.
 */
struct tp_topo;
void tp_cli_json_names(struct tp_json *j, const char *key,
                       const struct tp_topo *topo, const uint32_t *idx,
                       uint32_t count,
                       const char *(*name)(const struct tp_topo *, uint32_t));

/*
 * The host, leaf, pod and held-host sets of a met allocation @res as the
 * JSON arrays "hosts", "leaves", "pods" and "reserved" of @j (`place` and
 * `report explain` write the same).
 */
struct tp_alloc_result;
void tp_cli_json_alloc_sets(struct tp_json *j, const struct tp_topo *topo,
                            const struct tp_alloc_result *res);

/* Subcommands (one per tools/cli_<name>.c). */
/* The classifier's view of a profile (as the Slurm plugins build it). */
struct tp_job_summary;
void tp_cli_profile_summary(const struct tp_profile *p,
                            struct tp_job_summary *s);

int tp_cli_version(int argc, char **argv);
int tp_cli_remap(int argc, char **argv);
int tp_cli_cost(int argc, char **argv);
/* `topoplace cost --busy`: predictions for running jobs (cli_cost_busy.c). */
int tp_cli_cost_busy(int argc, char **argv);
int tp_cli_place(int argc, char **argv);
int tp_cli_throttle(int argc, char **argv);
int tp_cli_fabric(int argc, char **argv);
int tp_cli_profile(int argc, char **argv);
int tp_cli_config(int argc, char **argv);
int tp_cli_report_fabric(int argc, char **argv);
int tp_cli_report(int argc, char **argv);

#endif /* TP_CLI_H */
