/*
 * cli_profile.c: `topoplace profile`: show, list, verify, import, export,
 * put (sign + store) and summarize communication profiles.  See
 * topoplace-profile(1).
 *
 * A PROFILE argument is a file path, or, when --store is given, a store
 * reference NS/NAME (newest run) or NS/NAME/RUN.
 */
#include "tp_config.h"

#include <errno.h>
#include <pwd.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "app_summary.h"
#include "convert.h"
#include "jobclass.h"
#include "munge_auth.h"
#include "profile.h"
#include "scale.h"
#include "scale_rule.h"
#include "store.h"
#include "tp_json.h"

#define WHAT "profile"

struct common {
	const char *store;
	const char *socket;
	int64_t max_age_s;
	unsigned keep;
	int ttl_s;
	int merged;
	unsigned top;
	int verbose;
	int json; /* --json: one document (topoplace-json(7)) */
	tp_munge_config munge;
	tp_store_auth auth;
	tp_logger logger;
	tp_store_options opt;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: topoplace profile <action> [options] [args]\n"
	    "actions:\n"
	    "  show [--pairs N] [--merged] PROFILE summary, top pairs, I/O "
	    "pattern\n"
	    "  list [--apps] [NS[/NAME]]           stored runs, or one line "
	    "per\n"
	    "                                      application (needs "
	    "--store)\n"
	    "  list --links [NS]                   batch scripts linked to "
	    "an\n"
	    "                                      application by their "
	    "program\n"
	    "  verify PROFILE... | --as NS/NAME FILE\n"
	    "                                      check digest and munge "
	    "credential\n"
	    "  import --from matrix|ompi [--app NAME] [--ranks N] -o OUT "
	    "INPUT...\n"
	    "  export --to dense|dense-sym|scotch|matrix [-o OUT] PROFILE\n"
	    "  scale --ranks N [-o OUT] PROFILE...\n"
	    "                                      its stencil at N ranks; of "
	    "several\n"
	    "                                      runs (oldest first), as "
	    "slurmd scales\n"
	    "                                      them for a job of N tasks\n"
	    "  put FILE NS/NAME                    sign with munge and store "
	    "(needs --store)\n"
	    "  prepare USER...                     as root: make each user's "
	    "namespace\n"
	    "                                      (owned by the user, 0700; "
	    "needs --store)\n"
	    "  summarize [NS[/NAME]]               write the summary slurmctld "
	    "reads beside\n"
	    "                                      each stored run (needs "
	    "--store)\n"
	    "  prune [NS[/NAME]]                   per application: drop runs "
	    "beyond --keep\n"
	    "                                      and older than --max-age "
	    "(needs --store)\n"
	    "  record [--name N] [--store DIR] [--dir DIR] [--lib SO] -- "
	    "CMD...\n"
	    "                                      run CMD with the profiler "
	    "preloaded\n"
	    "common options (before or after the action):\n"
	    "  --store DIR          profile store (default "
	    "$TOPOPLACE_PROFILE_STORE)\n"
	    "  --munge-socket PATH  munged socket (default munge's)\n"
	    "  --max-age SECONDS    accept credentials this old, prune runs "
	    "older\n"
	    "                       (default %d; 0 = munge TTL, no pruning by "
	    "age)\n"
	    "  --keep K             runs kept per application by put and prune "
	    "(default %d)\n"
	    "  --ttl SECONDS        munge credential TTL for put\n"
	    "  --json               show, list and verify print one JSON "
	    "document\n"
	    "                       (topoplace-json(7))\n"
	    "PROFILE is a file, or NS/NAME[/RUN] in the store when --store is "
	    "given.\n",
	    TP_STORE_DEFAULT_MAX_AGE_S, TP_STORE_DEFAULT_KEEP);
}

static int parse_uint(const char *s, unsigned long long max,
                      unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!s[0] || s[0] == '-')
		return -1;
	*out = strtoull(s, &end, 10);
	return errno || *end || *out > max ? -1 : 0;
}

/* Split "NS/NAME[/RUN]" in place; 0 on success. */
static int split_ref(char *ref, char **ns, char **name, char **run)
{
	char *a = strchr(ref, '/'), *b;

	if (!a)
		return -1;
	*a = '\0';
	*ns = ref;
	*name = a + 1;
	b = strchr(*name, '/');
	*run = NULL;
	if (b) {
		*b = '\0';
		*run = b + 1;
	}
	return tp_store_valid_name(*ns) && tp_store_valid_name(*name) ? 0 : -1;
}

/* Load PROFILE: a file, or a verified store run (or merged view). */
static int load(struct common *c, const char *arg, tp_profile **p,
                int *verified, unsigned *runs)
{
	char ref[512], *ns, *name, *run;
	tp_error err;
	tp_status st;

	*verified = 0;
	*runs = 1;
	if (!c->store) {
		if (c->merged)
			return tp_cli_usage_error(WHAT,
			                          "--merged needs --store");
		st = tp_profile_read_file(arg, &c->opt.limits, p, &err);
		return st == TP_OK ? 0 : tp_cli_fail(WHAT, &err);
	}
	snprintf(ref, sizeof(ref), "%s", arg);
	if (split_ref(ref, &ns, &name, &run))
		return tp_cli_usage_error(WHAT,
		                          "'%s': expected NS/NAME[/RUN] in the "
		                          "store",
		                          arg);
	if (c->merged)
		st = tp_store_merged(&c->opt, ns, name, p, runs, &err);
	else
		st = tp_store_get(&c->opt, ns, name, run, p, &err);
	if (st != TP_OK)
		return tp_cli_fail(WHAT, &err);
	*verified = 1;
	return 0;
}

static void print_time(const char *label, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;
	char buf[64];

	if (us && gmtime_r(&t, &tm) &&
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		printf("%-13s %s\n", label, buf);
	else
		printf("%-13s unknown\n", label);
}

static int cmp_pair_bytes_desc(const void *a, const void *b)
{
	const tp_profile_pair *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* What the run ran (exec_id.h): "unknown" for a format 1.0 run. */
static void show_exec(const tp_exec_id *e)
{
	char hex[65];

	if (e->hash_method == TP_EXEC_HASH_NONE)
		printf("%-13s %s\n", "executable:",
		       e->path[0] ? e->path : "unknown");
	else {
		tp_sha256_hex(e->sha256, hex);
		printf("%-13s %s (%llu bytes, sha256%s:%s)\n", "executable:",
		       e->path[0] ? e->path : "unknown path",
		       (unsigned long long)e->size_bytes,
		       e->hash_method == TP_EXEC_HASH_SAMPLED ? "-sampled"
		                                              : "",
		       hex);
	}
	printf("%-13s %s\n", "layout:",
	       e->layout[0] ? e->layout : "unknown");
	if (e->args_method == TP_EXEC_ARGS_NONE) {
		/* Recorded before format 1.2, or over the bound. */
		printf("%-13s %s\n", "arguments:", "unknown");
	} else {
		tp_sha256_hex(e->args_sha256, hex);
		printf("%-13s %u (sha256:%.16s...)\n", "arguments:",
		       e->args_count, hex);
	}
}

/* The "executable" object of show and list --apps (JSON). */
static void json_exec(tp_json *j, const tp_exec_id *e)
{
	char hex[65];

	tp_json_begin_object(j, "executable");
	tp_json_string(j, "path", e->path[0] ? e->path : NULL);
	tp_json_string(j, "hash_method",
	               tp_exec_hash_method_name(e->hash_method));
	if (e->hash_method != TP_EXEC_HASH_NONE) {
		tp_sha256_hex(e->sha256, hex);
		tp_json_uint(j, "size_bytes", e->size_bytes);
		tp_json_string(j, "sha256", hex);
	} else {
		tp_json_null(j, "size_bytes");
		tp_json_null(j, "sha256");
	}
	if (e->args_method != TP_EXEC_ARGS_NONE) {
		tp_sha256_hex(e->args_sha256, hex);
		tp_json_uint(j, "args_count", e->args_count);
		tp_json_string(j, "args_sha256", hex);
	} else {
		tp_json_null(j, "args_count");
		tp_json_null(j, "args_sha256");
	}
	tp_json_end_object(j);
	tp_json_string(j, "layout", e->layout[0] ? e->layout : NULL);
}

static void show(const struct common *c, const char *arg, tp_profile *p,
                 int verified, unsigned runs)
{
	uint64_t total = tp_profile_total_bytes(p);
	tp_profile_pair *top;
	char hex[65];
	size_t n;

	tp_sha256_hex(p->digest, hex);
	printf("%-13s %s%s\n", "profile:", arg, c->merged ? " (merged)" : "");
	printf("%-13s %s\n", "application:", p->header.app);
	printf("%-13s %u\n", "owner uid:", p->header.owner_uid);
	printf("%-13s %u", "ranks:", p->header.ranks);
	if (p->header.ranks_per_node)
		printf(" (%u per node)", p->header.ranks_per_node);
	printf("\n%-13s %llu\n",
	       "job id:", (unsigned long long)p->header.job_id);
	print_time("start:", p->header.start_us);
	printf("%-13s %.3f s\n", "duration:", p->header.duration_us / 1e6);
	show_exec(&p->exec);
	if (c->merged)
		printf("%-13s mean of %u runs\n", "merged:", runs);
	else
		printf("%-13s sha256:%s\n", "digest:", hex);
	printf("%-13s %s\n", "credential:",
	       !p->credential ? "none (unsigned)"
	       : verified     ? "verified by munge for this store location"
	                      : "present, not verified (use verify --as)");
	printf("%-13s %zu pairs, %llu bytes, %llu messages\n",
	       "matrix:", p->pair_count, (unsigned long long)total,
	       (unsigned long long)tp_profile_total_msgs(p));
	n = p->pair_count < c->top ? p->pair_count : c->top;
	top = malloc((p->pair_count ? p->pair_count : 1) * sizeof(*top));
	if (top && n) {
		memcpy(top, p->pairs, p->pair_count * sizeof(*top));
		qsort(top, p->pair_count, sizeof(*top), cmp_pair_bytes_desc);
		printf("top pairs:\n  %8s %8s %16s %12s %7s\n", "src", "dst",
		       "bytes", "msgs", "share");
		for (size_t i = 0; i < n; i++)
			printf("  %8u %8u %16llu %12llu %6.2f%%\n", top[i].src,
			       top[i].dst, (unsigned long long)top[i].bytes,
			       (unsigned long long)top[i].msgs,
			       total ? 100.0 * (double)top[i].bytes /
			                   (double)total
			             : 0.0);
	}
	free(top);
	if (p->collective_count) {
		printf("collectives:\n  %-20s %12s %16s\n", "name", "calls",
		       "bytes");
		for (size_t i = 0; i < p->collective_count; i++)
			printf("  %-20s %12llu %16llu\n",
			       p->collectives[i].name,
			       (unsigned long long)p->collectives[i].calls,
			       (unsigned long long)p->collectives[i].bytes);
	}
	printf("io:           %llu requests, %llu bytes read, %llu written, "
	       "%.3f s, %zu clients\n",
	       (unsigned long long)p->io.requests,
	       (unsigned long long)p->io.read_bytes,
	       (unsigned long long)p->io.write_bytes, p->io.time_us / 1e6,
	       p->io.client_count);
	for (int b = 0; b < TP_PROFILE_IO_BUCKETS; b++)
		if (p->io.size_hist[b])
			printf("  size [2^%d, 2^%d): %llu\n", b ? b : 0, b + 1,
			       (unsigned long long)p->io.size_hist[b]);
	for (size_t i = 0; i < p->io.client_count; i++) {
		const tp_profile_io_client *k = &p->io.clients[i];

		printf(
		    "  client rank %u: %llu requests, %llu bytes, "
		    "start-to-start p10/p50/p90/p99 %llu/%llu/%llu/%llu us\n",
		    k->rank, (unsigned long long)k->requests,
		    (unsigned long long)k->bytes,
		    (unsigned long long)k->interval_p10_us,
		    (unsigned long long)k->interval_p50_us,
		    (unsigned long long)k->interval_p90_us,
		    (unsigned long long)k->interval_p99_us);
	}
}

/* A time in whole seconds as ISO 8601 UTC, or null when not @known. */
static void json_time(tp_json *j, const char *key, int64_t s, bool known)
{
	time_t t = (time_t)s;
	struct tm tm;
	char buf[32];

	if (known && gmtime_r(&t, &tm) &&
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		tp_json_string(j, key, buf);
	else
		tp_json_null(j, key);
}

/*
 * The schema topoplace.profile-show version 1 (topoplace-json(7)): the
 * figures of the text form, every one of them, with the top pairs,
 * collectives, I/O size histogram and I/O clients as arrays.
 */
static int show_json(const struct common *c, const char *arg, tp_profile *p,
                     int verified, unsigned runs)
{
	uint64_t total = tp_profile_total_bytes(p);
	tp_profile_pair *top = NULL;
	size_t n = p->pair_count < c->top ? p->pair_count : c->top;
	char hex[65];
	tp_json j;

	if (n) {
		top = malloc(p->pair_count * sizeof(*top));
		if (!top) {
			fprintf(stderr, "topoplace %s: out of memory\n", WHAT);
			return TP_EXIT_FAILURE;
		}
		memcpy(top, p->pairs, p->pair_count * sizeof(*top));
		qsort(top, p->pair_count, sizeof(*top), cmp_pair_bytes_desc);
	}
	tp_json_init(&j, stdout);
	tp_json_begin_document(&j, "profile-show", 1);
	tp_json_string(&j, "profile", arg);
	tp_json_bool(&j, "merged", c->merged);
	tp_json_uint(&j, "runs", runs);
	tp_json_string(&j, "application", p->header.app);
	tp_json_uint(&j, "owner_uid", p->header.owner_uid);
	tp_json_uint(&j, "ranks", p->header.ranks);
	if (p->header.ranks_per_node)
		tp_json_uint(&j, "ranks_per_node", p->header.ranks_per_node);
	else
		tp_json_null(&j, "ranks_per_node");
	tp_json_uint(&j, "job_id", p->header.job_id);
	json_time(&j, "start", p->header.start_us / 1000000,
	          p->header.start_us != 0);
	tp_json_double(&j, "duration_s", p->header.duration_us / 1e6);
	json_exec(&j, &p->exec);
	/* A merged view is a mean of runs: it has no digest of its own. */
	tp_sha256_hex(p->digest, hex);
	tp_json_string(&j, "sha256", c->merged ? NULL : hex);
	tp_json_string(&j, "credential",
	               !p->credential ? "none"
	               : verified     ? "verified"
	                              : "not_verified");
	tp_json_begin_object(&j, "matrix");
	tp_json_uint(&j, "pairs", p->pair_count);
	tp_json_uint(&j, "bytes", total);
	tp_json_uint(&j, "messages", tp_profile_total_msgs(p));
	tp_json_end_object(&j);
	tp_json_begin_array(&j, "top_pairs");
	for (size_t i = 0; i < n; i++) {
		tp_json_begin_object(&j, NULL);
		tp_json_uint(&j, "src", top[i].src);
		tp_json_uint(&j, "dst", top[i].dst);
		tp_json_uint(&j, "bytes", top[i].bytes);
		tp_json_uint(&j, "msgs", top[i].msgs);
		tp_json_double(&j, "share",
		               total ? (double)top[i].bytes / (double)total
		                     : 0.0);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_begin_array(&j, "collectives");
	for (size_t i = 0; i < p->collective_count; i++) {
		tp_json_begin_object(&j, NULL);
		tp_json_string(&j, "name", p->collectives[i].name);
		tp_json_uint(&j, "calls", p->collectives[i].calls);
		tp_json_uint(&j, "bytes", p->collectives[i].bytes);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_begin_object(&j, "io");
	tp_json_uint(&j, "requests", p->io.requests);
	tp_json_uint(&j, "read_bytes", p->io.read_bytes);
	tp_json_uint(&j, "write_bytes", p->io.write_bytes);
	tp_json_double(&j, "time_s", p->io.time_us / 1e6);
	tp_json_uint(&j, "client_count", p->io.client_count);
	tp_json_begin_array(&j, "size_histogram");
	for (int b = 0; b < TP_PROFILE_IO_BUCKETS; b++) {
		if (!p->io.size_hist[b])
			continue;
		tp_json_begin_object(&j, NULL);
		tp_json_uint(&j, "log2_min_bytes", (unsigned)b);
		tp_json_uint(&j, "log2_max_bytes", (unsigned)b + 1);
		tp_json_uint(&j, "requests", p->io.size_hist[b]);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_begin_array(&j, "clients");
	for (size_t i = 0; i < p->io.client_count; i++) {
		const tp_profile_io_client *k = &p->io.clients[i];

		tp_json_begin_object(&j, NULL);
		tp_json_uint(&j, "rank", k->rank);
		tp_json_uint(&j, "requests", k->requests);
		tp_json_uint(&j, "bytes", k->bytes);
		tp_json_uint(&j, "interval_p10_us", k->interval_p10_us);
		tp_json_uint(&j, "interval_p50_us", k->interval_p50_us);
		tp_json_uint(&j, "interval_p90_us", k->interval_p90_us);
		tp_json_uint(&j, "interval_p99_us", k->interval_p99_us);
		tp_json_end_object(&j);
	}
	tp_json_end_array(&j);
	tp_json_end_object(&j);
	tp_json_end_document(&j);
	free(top);
	return tp_cli_json_finish(WHAT, &j, TP_EXIT_OK);
}

static int write_out(const char *path, const char *text, size_t len)
{
	FILE *f = path && strcmp(path, "-") ? fopen(path, "we") : stdout;

	if (!f) {
		fprintf(stderr, "topoplace %s: %s: %s\n", WHAT, path,
		        strerror(errno));
		return TP_EXIT_FAILURE;
	}
	if (fwrite(text, 1, len, f) != len || (f != stdout && fclose(f))) {
		fprintf(stderr, "topoplace %s: %s: write failed\n", WHAT,
		        path ? path : "stdout");
		return TP_EXIT_FAILURE;
	}
	return f == stdout && fflush(stdout) ? TP_EXIT_FAILURE : TP_EXIT_OK;
}

static int action_show(struct common *c, int argc, char **argv)
{
	tp_profile *p;
	int verified;
	unsigned runs;
	int rc;

	if (argc != 1)
		return tp_cli_usage_error(WHAT, "show: expected one PROFILE");
	rc = load(c, argv[0], &p, &verified, &runs);
	if (rc)
		return rc;
	if (c->json)
		rc = show_json(c, argv[0], p, verified, runs);
	else
		show(c, argv[0], p, verified, runs);
	tp_profile_free(p);
	return rc;
}

/* An ISO 8601 UTC time for listings. */
static void format_when(int64_t s, char *out, size_t size)
{
	time_t t = (time_t)s;
	struct tm tm;

	snprintf(out, size, "?");
	if (gmtime_r(&t, &tm))
		strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * How a verify or a listing judged one run, as the JSON forms name it:
 * TP_ERR_IO means the check could not run (munged unreachable, a read
 * error), so "not_checked", never "refused": a stopped daemon is not a bad
 * profile.
 */
static const char *run_status(const tp_error *err)
{
	if (err == NULL)
		return "ok";
	return err->code == TP_ERR_IO         ? "not_checked"
	       : err->code == TP_ERR_NOTFOUND ? "not_found"
	                                      : "refused";
}

/* A stable name for an error's kind in the JSON forms (topoplace-json(7)). */
static const char *error_kind(tp_status code)
{
	switch (code) {
	case TP_OK:
		return "none";
	case TP_ERR_INVALID:
		return "invalid";
	case TP_ERR_PARSE:
		return "parse";
	case TP_ERR_IO:
		return "io";
	case TP_ERR_NOMEM:
		return "nomem";
	case TP_ERR_LIMIT:
		return "limit";
	case TP_ERR_NOTFOUND:
		return "not_found";
	case TP_ERR_AUTH:
		return "auth";
	case TP_ERR_BUDGET:
		return "budget";
	case TP_ERR_UNSUPPORTED:
		return "unsupported";
	case TP_ERR_INTERNAL:
		return "internal";
	}
	return "unknown";
}

/* "status", "error" and "reason" of one run; @err NULL for a good one. */
static void json_judgement(tp_json *j, const tp_error *err)
{
	tp_json_string(j, "status", run_status(err));
	tp_json_string(j, "error", err ? error_kind(err->code) : NULL);
	tp_json_string(j, "reason", err ? err->message : NULL);
}

/*
 * When @a was last chosen for a job (*used_s, true), or false: never, or
 * its record is bad (said once on stderr, naming the file, and ignored).
 */
static bool app_last_use(const struct common *c, const tp_app_summary *a,
                         int64_t *used_s)
{
	tp_error err;
	tp_status st =
	    tp_store_last_use(&c->opt, a->ns, a->name, used_s, NULL, &err);

	if (st != TP_OK && st != TP_ERR_NOTFOUND)
		tp_log(&c->logger, TP_LOG_WARNING, "%s", err.message);
	return st == TP_OK;
}

/*
 * One line per application (one entry of topoplace.profile-apps with
 * @j): runs kept, first and last recorded, last used (the record
 * slurmctld keeps, store.h), and from the newest run (read
 * and verified) its ranks, its class under the default thresholds and the
 * application it was recorded as (for a script key, the job name of the
 * run).
 */
/* "<count>@<first 12 hex digits>" of a run's arguments, "?" unknown. */
static const char *args_brief(const tp_exec_id *e, char *buf, size_t size)
{
	char hex[65];

	if (e->args_method == TP_EXEC_ARGS_NONE)
		return "?";
	tp_sha256_hex(e->args_sha256, hex);
	snprintf(buf, size, "%u@%.12s", e->args_count, hex);
	return buf;
}

/* "<path>@<first 12 hex digits>" of what a run ran, "?" when unknown. */
static const char *exec_brief(const tp_exec_id *e, char *buf, size_t size)
{
	char hex[65];

	if (e->hash_method == TP_EXEC_HASH_NONE)
		return e->path[0] ? e->path : "?";
	tp_sha256_hex(e->sha256, hex);
	snprintf(buf, size, "%s@%.12s", e->path[0] ? e->path : "?", hex);
	return buf;
}

static void list_apps(struct common *c, const tp_app_summary *apps,
                      size_t count, tp_json *j)
{
	tp_jobclass_thresholds thresholds;
	tp_error err;

	tp_jobclass_defaults(&thresholds);
	if (j)
		tp_json_begin_array(j, "applications");
	for (size_t i = 0; i < count; i++) {
		const tp_app_summary *a = &apps[i];
		char first[32], last[32], used[32] = "never";
		char detail[TP_ERROR_MESSAGE_MAX + 2 * TP_EXEC_PATH_MAX];
		char brief[TP_EXEC_PATH_MAX + 32], args[32];
		const char *class_name = "?";
		int64_t used_s = 0;
		bool was_used = app_last_use(c, a, &used_s);
		tp_profile *p = NULL;
		tp_job_summary summary;
		tp_jobclass_result cls;
		bool read_ok;

		format_when(a->first_s, first, sizeof(first));
		format_when(a->newest_s, last, sizeof(last));
		if (was_used)
			format_when(used_s, used, sizeof(used));
		read_ok = tp_store_get(&c->opt, a->ns, a->name, a->newest_file,
		                       &p, &err) == TP_OK;
		if (read_ok) {
			tp_error class_err;

			tp_cli_profile_summary(p, &summary);
			if (tp_jobclass_classify(&summary, &thresholds, &cls,
			                         &class_err) == TP_OK)
				class_name = tp_jobclass_name(cls.job_class);
		}
		if (j) {
			tp_json_begin_object(j, NULL);
			tp_json_string(j, "ns", a->ns);
			tp_json_string(j, "name", a->name);
			tp_json_uint(j, "runs", a->runs);
			json_time(j, "first", a->first_s, true);
			json_time(j, "last", a->newest_s, true);
			json_time(j, "last_used", used_s, was_used);
			tp_json_string(j, "newest_run", a->newest_file);
			json_judgement(j, read_ok ? NULL : &err);
			if (read_ok)
				tp_json_uint(j, "ranks", p->header.ranks);
			else
				tp_json_null(j, "ranks");
			tp_json_string(j, "class",
			               read_ok && strcmp(class_name, "?")
			                   ? class_name
			                   : NULL);
			tp_json_string(j, "app",
			               read_ok ? p->header.app : NULL);
			tp_json_bool(j, "by_script", a->script_key);
			if (read_ok)
				json_exec(j, &p->exec);
			tp_json_end_object(j);
			tp_profile_free(p);
			continue;
		}
		if (!read_ok)
			snprintf(detail, sizeof(detail),
			         "ranks=?\tclass=?\tnewest %s: %s",
			         err.code == TP_ERR_IO ? "NOT CHECKED" : "REFUSED",
			         err.message);
		else
			snprintf(detail, sizeof(detail),
			         "ranks=%u\tclass=%s\tapp=%s%s\texe=%s\tlayout=%s"
			         "\targs=%s",
			         p->header.ranks, class_name, p->header.app,
			         a->script_key ? " (by script)" : "",
			         exec_brief(&p->exec, brief, sizeof(brief)),
			         p->exec.layout[0] ? p->exec.layout : "?",
			         args_brief(&p->exec, args, sizeof(args)));
		tp_profile_free(p);
		printf("%s/%s\truns=%u\tfirst=%s\tlast=%s\tused=%s\t%s\n",
		       a->ns, a->name, a->runs, first, last, used, detail);
	}
	if (j)
		tp_json_end_array(j);
}

/* The runs of topoplace.profile-list, one object each. */
static void list_runs_json(tp_json *j, const tp_store_list *list)
{
	tp_json_begin_array(j, "runs");
	for (size_t i = 0; i < list->count; i++) {
		const tp_store_entry *e = &list->entries[i];

		tp_json_begin_object(j, NULL);
		tp_json_string(j, "ns", e->ns);
		tp_json_string(j, "name", e->name);
		tp_json_string(j, "run", e->file);
		tp_json_uint(j, "size_bytes", e->size_bytes);
		json_time(j, "modified", e->mtime_s, true);
		tp_json_end_object(j);
	}
	tp_json_end_array(j);
}

/*
 * `list --links [NS]`: each link record (store.h TP_STORE_LINK_FILE),
 * read and checked as the daemons read it: "NS/KEY -> NAME JobId=N by
 * RULE" (command or program: what ProfileByExecutable follows it), or why
 * the daemons ignore it.  Exit 0 either way: a bad link is
 * ignored, never an error of the store.
 */
static int list_links(struct common *c, const char *ns)
{
	tp_store_list links;
	tp_json j;
	tp_error err;

	if (tp_store_list_links(&c->opt, ns, &links, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (c->json) {
		tp_json_init(&j, stdout);
		tp_json_begin_document(&j, "profile-links", 1);
		tp_json_string(&j, "store", c->store);
		tp_json_string(&j, "ns", ns);
		tp_json_begin_array(&j, "links");
	}
	for (size_t i = 0; i < links.count; i++) {
		const tp_store_entry *e = &links.entries[i];
		char target[TP_STORE_NAME_MAX + 1];
		tp_store_link_rule rule = TP_STORE_LINK_PROGRAM;
		uint64_t job_id = 0;
		bool ok = tp_store_read_link(&c->opt, e->ns, e->name, target,
		                             &job_id, &rule, &err) == TP_OK;

		if (c->json) {
			tp_json_begin_object(&j, NULL);
			tp_json_string(&j, "ns", e->ns);
			tp_json_string(&j, "name", e->name);
			tp_json_string(&j, "target", ok ? target : NULL);
			if (ok)
				tp_json_uint(&j, "job_id", job_id);
			else
				tp_json_null(&j, "job_id");
			tp_json_string(&j, "rule",
			               ok ? tp_store_link_rule_name(rule)
			                  : NULL);
			json_time(&j, "modified", e->mtime_s, true);
			tp_json_string(&j, "ignored", ok ? NULL : err.message);
			tp_json_end_object(&j);
		} else if (ok) {
			printf("%s/%s\t-> %s\tJobId=%llu\tby %s\n", e->ns,
			       e->name, target, (unsigned long long)job_id,
			       tp_store_link_rule_name(rule));
		} else {
			printf("%s/%s\tIGNORED: %s\n", e->ns, e->name,
			       err.message);
		}
	}
	tp_store_list_free(&links);
	if (!c->json)
		return TP_EXIT_OK;
	tp_json_end_array(&j);
	tp_json_end_document(&j);
	return tp_cli_json_finish(WHAT, &j, TP_EXIT_OK);
}

static int action_list(struct common *c, int argc, char **argv)
{
	char ref[512], *ns = NULL, *name = NULL, *run = NULL;
	tp_store_list list;
	tp_app_summary *apps = NULL;
	size_t app_count = 0;
	tp_error err;
	bool by_app = false;
	int rc = TP_EXIT_OK;

	if (argc >= 1 && !strcmp(argv[0], "--links")) {
		if (!c->store)
			return tp_cli_usage_error(WHAT,
			                          "list: --store is required");
		if (argc > 2 || (argc == 2 && !tp_store_valid_name(argv[1])))
			return tp_cli_usage_error(WHAT,
			                          "list --links: at most one NS");
		return list_links(c, argc == 2 ? argv[1] : NULL);
	}
	if (argc >= 1 && !strcmp(argv[0], "--apps")) {
		by_app = true;
		argc--;
		argv++;
	}

	if (!c->store)
		return tp_cli_usage_error(WHAT, "list: --store is required");
	if (argc > 1)
		return tp_cli_usage_error(WHAT, "list: at most one NS[/NAME]");
	if (argc == 1) {
		snprintf(ref, sizeof(ref), "%s", argv[0]);
		ns = ref;
		if (strchr(ref, '/') && split_ref(ref, &ns, &name, &run))
			return tp_cli_usage_error(WHAT, "list: bad '%s'",
			                          argv[0]);
		if (!tp_store_valid_name(ns))
			return tp_cli_usage_error(WHAT, "list: bad '%s'",
			                          argv[0]);
	}
	if (tp_store_list_runs(&c->opt, ns, name, &list, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (by_app &&
	    tp_app_summaries(&list, &apps, &app_count, &err) != TP_OK) {
		tp_store_list_free(&list);
		return tp_cli_fail(WHAT, &err);
	}
	if (c->json) {
		tp_json j;

		tp_json_init(&j, stdout);
		tp_json_begin_document(
		    &j, by_app ? "profile-apps" : "profile-list", 1);
		tp_json_string(&j, "store", c->store);
		tp_json_string(&j, "ns", ns);
		tp_json_string(&j, "name", name);
		if (by_app)
			list_apps(c, apps, app_count, &j);
		else
			list_runs_json(&j, &list);
		tp_json_end_document(&j);
		free(apps);
		tp_store_list_free(&list);
		return tp_cli_json_finish(WHAT, &j, TP_EXIT_OK);
	}
	if (by_app) {
		list_apps(c, apps, app_count, NULL);
		free(apps);
		tp_store_list_free(&list);
		return rc;
	}
	for (size_t i = 0; i < list.count; i++) {
		const tp_store_entry *e = &list.entries[i];
		time_t t = e->mtime_s;
		struct tm tm;
		char when[32] = "?";

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		printf("%s/%s/%s\t%llu\t%s\n", e->ns, e->name, e->file,
		       (unsigned long long)e->size_bytes, when);
	}
	tp_store_list_free(&list);
	return rc;
}

/*
 * Where verify's outcomes go: lines of text, or, for --json, the entries
 * of one topoplace.profile-verify document (@j), counted for its totals.
 */
struct verdicts {
	tp_json *j; /* NULL: text */
	unsigned ok, failed;
};

/*
 * The outcome of checking @profile (a store reference, or a file) with
 * @check ("store", "as" or "digest"): @err NULL when it passed.  Only the
 * JSON entry is written here; the text lines stay where they were.
 */
static void verdict(struct verdicts *v, const char *profile, const char *check,
                    const tp_error *err)
{
	if (err)
		v->failed++;
	else
		v->ok++;
	if (!v->j)
		return;
	tp_json_begin_object(v->j, NULL);
	tp_json_string(v->j, "profile", profile);
	tp_json_string(v->j, "check", check);
	json_judgement(v->j, err);
	tp_json_end_object(v->j);
}

/*
 * One run that did not verify.  TP_ERR_IO means the check could not run
 * (munged unreachable, a read error): NOT CHECKED, never REFUSED, so a
 * stopped daemon is not mistaken for a bad profile.
 */
static void print_refusal(struct verdicts *v, const char *ns, const char *name,
                          const char *run, const tp_error *err)
{
	char ref[3 * (TP_STORE_NAME_MAX + 1) + TP_STORE_FILE_MAX];

	snprintf(ref, sizeof(ref), "%s/%s/%s", ns, name, run);
	verdict(v, ref, "store", err);
	if (!v->j)
		printf("%s: %s: %s\n", ref,
		       err->code == TP_ERR_IO ? "NOT CHECKED" : "REFUSED",
		       err->message);
}

static void print_verified(struct verdicts *v, const char *ns, const char *name,
                           const char *run)
{
	char ref[3 * (TP_STORE_NAME_MAX + 1) + TP_STORE_FILE_MAX];

	snprintf(ref, sizeof(ref), "%s/%s/%s", ns, name, run);
	verdict(v, ref, "store", NULL);
	if (!v->j)
		printf("%s: OK\n", ref);
}

/* verify --as NS/NAME FILE: FILE's credential as if stored there. */
static void verify_as(struct common *c, struct verdicts *v, const char *as,
                      const char *ns, const char *name, const char *file)
{
	tp_profile *p;
	tp_error err;

	if (tp_profile_read_file(file, &c->opt.limits, &p, &err)) {
		verdict(v, file, "as", &err);
		if (!v->j)
			tp_cli_fail(WHAT, &err);
		return;
	}
	if (tp_store_verify_profile(&c->opt, ns, name, p, NULL, &err) !=
	    TP_OK) {
		tp_profile_free(p);
		tp_error_prefix(&err, "%s as %s", file, as);
		verdict(v, file, "as", &err);
		if (!v->j)
			tp_cli_fail(WHAT, &err);
		return;
	}
	tp_profile_free(p);
	verdict(v, file, "as", NULL);
	if (!v->j)
		printf("%s: OK as %s\n", file, as);
}

/* Without a store only the structure and digest of a file are checked. */
static void verify_file(struct common *c, struct verdicts *v, const char *file)
{
	tp_profile *p;
	tp_error err;

	if (tp_profile_read_file(file, &c->opt.limits, &p, &err) != TP_OK) {
		verdict(v, file, "digest", &err);
		if (!v->j)
			tp_cli_fail(WHAT, &err);
		return;
	}
	verdict(v, file, "digest", NULL);
	if (!v->j)
		printf("%s: format and digest OK (credential not "
		       "verified: use --store or --as)\n",
		       file);
	tp_profile_free(p);
}

/* NS/NAME/RUN, or every stored run of NS/NAME. */
static void verify_stored(struct common *c, struct verdicts *v, const char *ns,
                          const char *name, const char *run)
{
	tp_store_list list;
	tp_error err;

	if (run) {
		tp_profile *p;

		/* Named directly: a run the listing would skip (a symlink,
		 * say) must be refused, not ignored. */
		if (tp_store_get(&c->opt, ns, name, run, &p, &err)) {
			print_refusal(v, ns, name, run, &err);
			return;
		}
		print_verified(v, ns, name, run);
		tp_profile_free(p);
		return;
	}
	if (tp_store_list_runs(&c->opt, ns, name, &list, &err)) {
		char ref[2 * (TP_STORE_NAME_MAX + 1)];

		snprintf(ref, sizeof(ref), "%s/%s", ns, name);
		verdict(v, ref, "store", &err);
		if (!v->j)
			tp_cli_fail(WHAT, &err);
		return;
	}
	for (size_t k = 0; k < list.count; k++) {
		tp_profile *p;

		if (tp_store_get(&c->opt, ns, name, list.entries[k].file, &p,
		                 &err) != TP_OK) {
			print_refusal(v, ns, name, list.entries[k].file, &err);
			continue;
		}
		print_verified(v, ns, name, list.entries[k].file);
		tp_profile_free(p);
	}
	if (list.count == 0) {
		char ref[2 * (TP_STORE_NAME_MAX + 1)];

		snprintf(ref, sizeof(ref), "%s/%s", ns, name);
		tp_error_set(&err, TP_ERR_NOTFOUND, "%s: no stored run", ref);
		verdict(v, ref, "store", &err);
		if (!v->j)
			printf("%s: no stored run\n", ref);
	}
	tp_store_list_free(&list);
}

static int action_verify(struct common *c, int argc, char **argv)
{
	const char *as = NULL;
	char as_ref[512], *as_ns = NULL, *as_name = NULL;
	struct verdicts v = {0};
	tp_json j;

	if (argc >= 2 && !strcmp(argv[0], "--as")) {
		as = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (argc < 1)
		return tp_cli_usage_error(WHAT, "verify: expected PROFILE...");
	if (as) {
		char *run;

		snprintf(as_ref, sizeof(as_ref), "%s", as);
		if (split_ref(as_ref, &as_ns, &as_name, &run) || run ||
		    argc != 1)
			return tp_cli_usage_error(WHAT,
			                          "verify --as NS/NAME FILE");
	}
	if (c->json && c->store && !as) {
		/* A usage error would cut the document: find it first (the
		 * text form reports it where it comes, after earlier runs). */
		for (int i = 0; i < argc; i++) {
			char ref[512], *ns, *name, *run;

			snprintf(ref, sizeof(ref), "%s", argv[i]);
			if (split_ref(ref, &ns, &name, &run))
				return tp_cli_usage_error(
				    WHAT, "verify: bad '%s'", argv[i]);
		}
	}
	if (c->json) {
		v.j = &j;
		tp_json_init(&j, stdout);
		tp_json_begin_document(&j, "profile-verify", 1);
		tp_json_string(&j, "store", c->store);
		tp_json_string(&j, "as", as);
		tp_json_begin_array(&j, "results");
	}
	if (as) {
		verify_as(c, &v, as, as_ns, as_name, argv[0]);
	} else if (!c->store) {
		for (int i = 0; i < argc; i++)
			verify_file(c, &v, argv[i]);
	} else {
		for (int i = 0; i < argc; i++) {
			char ref[512], *ns, *name, *run;

			snprintf(ref, sizeof(ref), "%s", argv[i]);
			if (split_ref(ref, &ns, &name, &run))
				return tp_cli_usage_error(
				    WHAT, "verify: bad '%s'", argv[i]);
			verify_stored(c, &v, ns, name, run);
		}
	}
	if (!c->json)
		return v.failed ? TP_EXIT_FAILURE : TP_EXIT_OK;
	tp_json_end_array(&j);
	tp_json_uint(&j, "ok", v.ok);
	tp_json_uint(&j, "failed", v.failed);
	tp_json_end_document(&j);
	return tp_cli_json_finish(WHAT, &j,
	                          v.failed ? TP_EXIT_FAILURE : TP_EXIT_OK);
}

static int action_import(struct common *c, int argc, char **argv)
{
	const char *from = NULL, *app = NULL, *out = NULL;
	unsigned long long ranks = 0;
	tp_profile *p = NULL;
	tp_error err;
	tp_status st;
	int i = 0, npos = 0;

	/* Options anywhere; positional arguments compacted to the front. */
	for (int a = 0; a < argc; a++) {
		if (argv[a][0] != '-' || !argv[a][1]) {
			argv[npos++] = argv[a];
			continue;
		}
		i = a;
		a++;
		if (a >= argc)
			return tp_cli_usage_error(WHAT,
			                          "import: %s needs a "
			                          "value",
			                          argv[i]);
		if (!strcmp(argv[i], "--from"))
			from = argv[i + 1];
		else if (!strcmp(argv[i], "--app"))
			app = argv[i + 1];
		else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			out = argv[i + 1];
		else if (!strcmp(argv[i], "--ranks")) {
			if (parse_uint(argv[i + 1],
			               TP_PROFILE_DEFAULT_MAX_RANKS, &ranks) ||
			    ranks == 0)
				return tp_cli_usage_error(
				    WHAT, "import: bad --ranks '%s'",
				    argv[i + 1]);
		} else
			return tp_cli_usage_error(
			    WHAT, "import: unknown option '%s'", argv[i]);
	}
	if (!from || !out || npos == 0)
		return tp_cli_usage_error(WHAT,
		                          "import: expected --from FORMAT "
		                          "-o OUT INPUT...");
	if (!strcmp(from, "matrix")) {
		if (npos != 1)
			return tp_cli_usage_error(WHAT, "import: one matrix "
			                                "file");
		st = tp_profile_import_matrix(argv[0], app, NULL, &p, &err);
		if (st == TP_OK && ranks && ranks != p->header.ranks)
			st = tp_error_set(&err, TP_ERR_INVALID,
			                  "%s: has %u ranks, --ranks says %llu",
			                  argv[0], p->header.ranks, ranks);
	} else if (!strcmp(from, "ompi")) {
		st = tp_profile_import_ompi_monitoring(
		    (const char *const *)argv, (size_t)npos, app,
		    (uint32_t)ranks, (size_t)64 << 20, &p, &err);
	} else {
		return tp_cli_usage_error(WHAT,
		                          "import: unknown --from '%s' "
		                          "(matrix, ompi)",
		                          from);
	}
	if (st == TP_OK) {
		p->header.owner_uid = (uint32_t)getuid();
		st = tp_profile_write_file(out, p, &err);
	}
	if (st != TP_OK) {
		tp_profile_free(p);
		return tp_cli_fail(WHAT, &err);
	}
	printf("%s: %s, %u ranks, %zu pairs, %zu collectives (unsigned: "
	       "'topoplace profile put' signs and stores it)\n",
	       out, p->header.app, p->header.ranks, p->pair_count,
	       p->collective_count);
	tp_profile_free(p);
	return TP_EXIT_OK;
}

static int action_export(struct common *c, int argc, char **argv)
{
	const char *to = NULL, *out = NULL;
	char *text = NULL;
	size_t len = 0;
	tp_profile *p;
	tp_error err;
	tp_status st;
	unsigned runs;
	int i = 0, npos = 0, verified, rc;

	for (int a = 0; a < argc; a++) {
		if (argv[a][0] != '-' || !argv[a][1]) {
			argv[npos++] = argv[a];
			continue;
		}
		i = a;
		a++;
		if (a >= argc)
			return tp_cli_usage_error(WHAT,
			                          "export: %s needs a "
			                          "value",
			                          argv[i]);
		if (!strcmp(argv[i], "--to"))
			to = argv[i + 1];
		else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			out = argv[i + 1];
		else
			return tp_cli_usage_error(
			    WHAT, "export: unknown option '%s'", argv[i]);
	}
	if (!to || npos != 1)
		return tp_cli_usage_error(WHAT, "export: expected --to FORMAT "
		                                "PROFILE");
	if (strcmp(to, "dense") && strcmp(to, "dense-sym") &&
	    strcmp(to, "scotch") && strcmp(to, "matrix"))
		return tp_cli_usage_error(WHAT,
		                          "export: unknown --to '%s' "
		                          "(dense, dense-sym, scotch, matrix)",
		                          to);
	rc = load(c, argv[0], &p, &verified, &runs);
	if (rc)
		return rc;
	if (!strcmp(to, "scotch")) {
		st = tp_profile_export_scotch(p, &text, &len, &err);
	} else if (!strcmp(to, "matrix")) {
		/* The commprof-v1 text of tests/data/matrices. */
		size_t cap = 256 + p->pair_count * 64;

		st = TP_OK;
		text = malloc(cap);
		if (!text)
			st = tp_error_set(&err, TP_ERR_NOMEM, "out of memory");
		else {
			len = (size_t)snprintf(
			    text, cap,
			    "# commprof-v1 app=%s ranks=%u total_bytes=%llu "
			    "total_msgs=%llu nnz_pairs=%zu runtime_s=%.2f\n",
			    p->header.app, p->header.ranks,
			    (unsigned long long)tp_profile_total_bytes(p),
			    (unsigned long long)tp_profile_total_msgs(p),
			    p->pair_count, p->header.duration_us / 1e6);
			for (size_t k = 0; k < p->pair_count && len < cap; k++)
				len += (size_t)snprintf(
				    text + len, cap - len, "%u %u %llu %llu\n",
				    p->pairs[k].src, p->pairs[k].dst,
				    (unsigned long long)p->pairs[k].bytes,
				    (unsigned long long)p->pairs[k].msgs);
		}
	} else {
		st = tp_profile_export_dense(p, !strcmp(to, "dense-sym"), 16384,
		                             &text, &len, &err);
	}
	tp_profile_free(p);
	if (st != TP_OK)
		return tp_cli_fail(WHAT, &err);
	rc = write_out(out, text, len);
	free(text);
	return rc;
}

/*
 * `profile scale --ranks N [-o OUT] RUN RUN...` (runs of one application,
 * oldest first): the scale rule (profiles/scale_rule.h) as task/topoplace
 * applies it to a job of N tasks, from the runs' stencils as their
 * summaries would keep them: one line with the verdict and the run scaled
 * from, the scaled profile written to OUT; or "not scaled: why", exit 1.
 */
static int scale_runs(struct common *c, char **files, int count,
                      uint32_t ranks, const char *out)
{
	tp_scale_run runs[TP_IDENTITY_RUN_CANDIDATES_MAX];
	tp_profile_summary *sum = malloc(sizeof(*sum));
	tp_scale_verdict v;
	tp_profile *scaled = NULL;
	tp_stencil grid;
	char to[64];
	int first = count > TP_IDENTITY_RUN_CANDIDATES_MAX
	                ? count - TP_IDENTITY_RUN_CANDIDATES_MAX
	                : 0;
	int rc = 0;
	tp_error err;

	if (!sum) {
		tp_error_set(&err, TP_ERR_NOMEM, "scale: out of memory");
		return tp_cli_fail(WHAT, &err);
	}
	for (int i = first; i < count && !rc; i++) {
		tp_profile *p;
		unsigned merged;
		int verified;

		rc = load(c, files[i], &p, &verified, &merged);
		if (rc)
			break;
		if (tp_summary_of_profile(p, sum, &err) != TP_OK)
			rc = tp_cli_fail(WHAT, &err);
		else
			tp_scale_run_of_summary(sum, &runs[i - first]);
		tp_profile_free(p);
	}
	free(sum);
	if (rc)
		return rc;
	v = tp_scale_decide(runs, (size_t)(count - first), ranks);
	if (!v.scaled) {
		fprintf(stderr, "topoplace %s: not scaled: %s\n", WHAT, v.text);
		return TP_EXIT_FAILURE;
	}
	if (tp_scale_build(runs, (size_t)(count - first), &v, ranks, &scaled,
	                   &grid, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	tp_stencil_format(&grid, to, sizeof(to));
	printf("%s: %s: its %u-rank run scaled -> %u ranks, %s\n",
	       files[first + (int)v.source], v.text, runs[v.source].ranks,
	       ranks, to);
	if (out && tp_profile_write_file(out, scaled, &err) != TP_OK)
		rc = tp_cli_fail(WHAT, &err);
	tp_profile_free(scaled);
	return rc;
}

/*
 * `profile scale --ranks N [-o OUT] PROFILE`: what task/topoplace does for
 * a job of N tasks with this profile (profiles/scale.h): one line naming
 * the stencil at both sizes, and the scaled profile written to OUT; or the
 * reason it is not a stencil, exit 1.
 */
static int action_scale(struct common *c, int argc, char **argv)
{
	const char *out = NULL, *ranks_arg = NULL;
	unsigned long long ranks = 0;
	tp_profile *p, *scaled = NULL;
	tp_stencil shape, grid;
	char from[64], to[64];
	unsigned runs;
	int npos = 0, verified, rc;
	tp_error err;

	for (int a = 0; a < argc; a++) {
		if (argv[a][0] != '-' || !argv[a][1]) {
			argv[npos++] = argv[a];
			continue;
		}
		if (a + 1 >= argc)
			return tp_cli_usage_error(WHAT, "scale: %s needs a value",
			                          argv[a]);
		if (!strcmp(argv[a], "--ranks"))
			ranks_arg = argv[++a];
		else if (!strcmp(argv[a], "-o") || !strcmp(argv[a], "--output"))
			out = argv[++a];
		else
			return tp_cli_usage_error(
			    WHAT, "scale: unknown option '%s'", argv[a]);
	}
	if (!ranks_arg || npos < 1)
		return tp_cli_usage_error(WHAT,
		                          "scale: expected --ranks N PROFILE "
		                          "[PROFILE...]");
	if (parse_uint(ranks_arg, TP_STENCIL_RANKS_MAX, &ranks) || !ranks)
		return tp_cli_usage_error(WHAT,
		                          "scale: --ranks '%s': 1 to %u",
		                          ranks_arg, TP_STENCIL_RANKS_MAX);
	if (npos > 1)
		return scale_runs(c, argv, npos, (uint32_t)ranks, out);
	rc = load(c, argv[0], &p, &verified, &runs);
	if (rc)
		return rc;
	if (tp_stencil_detect(p, &shape, &err) != TP_OK ||
	    tp_stencil_build(&shape, &p->header, (uint32_t)ranks, &scaled,
	                     &grid, &err) != TP_OK) {
		fprintf(stderr, "topoplace %s: %s: %s\n", WHAT, argv[0],
		        err.message);
		tp_profile_free(p);
		return TP_EXIT_FAILURE;
	}
	tp_stencil_format(&shape, from, sizeof(from));
	tp_stencil_format(&grid, to, sizeof(to));
	printf("%s: %u ranks, %s stencil -> %llu ranks, %s\n", argv[0],
	       p->header.ranks, from, ranks, to);
	tp_profile_free(p);
	if (out && tp_profile_write_file(out, scaled, &err) != TP_OK)
		rc = tp_cli_fail(WHAT, &err);
	tp_profile_free(scaled);
	return rc;
}

static int action_put(struct common *c, int argc, char **argv)
{
	char ref[512], *ns, *name, *run, file[TP_STORE_FILE_MAX + 1];
	tp_profile *p;
	tp_error err;

	if (!c->store)
		return tp_cli_usage_error(WHAT, "put: --store is required");
	if (argc != 2)
		return tp_cli_usage_error(WHAT, "put: expected FILE NS/NAME");
	snprintf(ref, sizeof(ref), "%s", argv[1]);
	if (split_ref(ref, &ns, &name, &run) || run)
		return tp_cli_usage_error(WHAT, "put: bad NS/NAME '%s'",
		                          argv[1]);
	if (tp_profile_read_file(argv[0], &c->opt.limits, &p, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (tp_store_put(&c->opt, ns, name, p, file, &err) != TP_OK) {
		tp_profile_free(p);
		return tp_cli_fail(WHAT, &err);
	}
	printf("%s/%s/%s\n", ns, name, file);
	tp_profile_free(p);
	return TP_EXIT_OK;
}

/*
 * The [NS[/NAME]] argument of an action over part of the store
 * (summarize, prune) into @ref, *@ns and *@name (NULL: all); 0, or the
 * exit status of a usage error, said on stderr.
 */
static int store_scope(const struct common *c, const char *action, int argc,
                       char **argv, char ref[512], char **ns, char **name)
{
	char *run = NULL;

	*ns = *name = NULL;
	if (!c->store)
		return tp_cli_usage_error(WHAT, "%s: --store is required",
		                          action);
	if (argc > 1)
		return tp_cli_usage_error(WHAT, "%s: at most one NS[/NAME]",
		                          action);
	if (argc == 1) {
		snprintf(ref, 512, "%s", argv[0]);
		*ns = ref;
		if ((strchr(ref, '/') && split_ref(ref, ns, name, &run)) ||
		    run || !tp_store_valid_name(*ns))
			return tp_cli_usage_error(WHAT, "%s: bad '%s'", action,
			                          argv[0]);
	}
	return TP_EXIT_OK;
}

/*
 * summarize [NS[/NAME]]: write the summary beside every stored run (for
 * runs stored before summaries existed, or whose summary went stale), so
 * slurmctld classifies them without reading them.  Each run is verified
 * first.  As root for every user's namespace, else for one's own.
 */
static int action_summarize(struct common *c, int argc, char **argv)
{
	char ref[512], *ns, *name;
	tp_store_list list;
	size_t written = 0, failed = 0;
	tp_error err;
	int rc = store_scope(c, "summarize", argc, argv, ref, &ns, &name);

	if (rc != TP_EXIT_OK)
		return rc;
	if (tp_store_list_runs(&c->opt, ns, name, &list, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	for (size_t i = 0; i < list.count; i++) {
		const tp_store_entry *e = &list.entries[i];

		if (tp_store_summarize(&c->opt, e->ns, e->name, e->file,
		                       &err) != TP_OK) {
			tp_cli_fail(WHAT, &err);
			failed++;
			continue;
		}
		printf("%s/%s/%s: summary written\n", e->ns, e->name, e->file);
		written++;
	}
	tp_store_list_free(&list);
	printf("%zu summaries written, %zu runs refused\n", written, failed);
	return failed ? TP_EXIT_FAILURE : TP_EXIT_OK;
}

/*
 * prune [NS[/NAME]]: what every put does to the application it stores
 * into (tp_store_prune), for each application listed: so applications
 * that are no longer recorded lose their runs past --max-age too (a
 * site's cron job, with its ProfileKeep and ProfileMaxAge as --keep and
 * --max-age).  As root for every user's namespace, else for one's own.
 */
static int action_prune(struct common *c, int argc, char **argv)
{
	char ref[512], *ns, *name;
	tp_store_list list;
	tp_app_summary *apps = NULL;
	size_t app_count = 0, failed = 0, removed_total = 0;
	int64_t now_s = (int64_t)time(NULL);
	tp_error err;
	int rc = store_scope(c, "prune", argc, argv, ref, &ns, &name);

	if (rc != TP_EXIT_OK)
		return rc;
	if (tp_store_list_runs(&c->opt, ns, name, &list, &err) != TP_OK)
		return tp_cli_fail(WHAT, &err);
	if (tp_app_summaries(&list, &apps, &app_count, &err) != TP_OK) {
		tp_store_list_free(&list);
		return tp_cli_fail(WHAT, &err);
	}
	for (size_t i = 0; i < app_count; i++) {
		const tp_app_summary *a = &apps[i];
		unsigned removed = 0;

		if (tp_store_prune(&c->opt, a->ns, a->name, now_s, &removed,
		                   &err) != TP_OK) {
			tp_cli_fail(WHAT, &err);
			failed++;
			continue;
		}
		printf("%s/%s\truns=%u\tremoved=%u\n", a->ns, a->name, a->runs,
		       removed);
		removed_total += removed;
	}
	free(apps);
	tp_store_list_free(&list);
	printf("%zu runs removed from %zu applications, %zu refused\n",
	       removed_total, app_count - failed, failed);
	return failed ? TP_EXIT_FAILURE : TP_EXIT_OK;
}

/* prepare USER...: what task/topoplace does at a --comm-record step. */
static int action_prepare(struct common *c, int argc, char **argv)
{
	int failed = 0;

	if (!c->store)
		return tp_cli_usage_error(WHAT, "prepare: --store is required");
	if (argc < 1)
		return tp_cli_usage_error(WHAT, "prepare: expected USER...");
	for (int i = 0; i < argc; i++) {
		struct passwd *pw = getpwnam(argv[i]);
		tp_error err;

		if (!pw) {
			tp_error_set(&err, TP_ERR_NOTFOUND,
			             "prepare: %s: no such user", argv[i]);
			tp_cli_fail(WHAT, &err);
			failed = 1;
			continue;
		}
		if (tp_store_prepare_user(c->store, pw->pw_uid, pw->pw_gid,
		                          &err) != TP_OK) {
			tp_cli_fail(WHAT, &err);
			failed = 1;
			continue;
		}
		printf("%s/%s: owned by %s, mode 0700\n", c->store, pw->pw_name,
		       pw->pw_name);
	}
	return failed ? TP_EXIT_FAILURE : TP_EXIT_OK;
}

/*
 * record [--name N] [--store DIR] [--dir DIR] [--munge-socket P]
 * [--lib PATH] -- COMMAND...: run COMMAND with the profiler preloaded
 * (topoplace-profiler(7)).  Parsed on its own: the generic options loop
 * would take the wrapped command's options.  Exec's COMMAND; returns only
 * on error.
 */
static int action_record(int argc, char **argv)
{
	const char *lib = getenv("TOPOPLACE_PROFILER_LIB");
	const char *name = NULL, *store = NULL, *dir = NULL, *sock = NULL;
	const char *old;
	char *pre;
	size_t len;
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		const char **to = !strcmp(argv[i], "--name")           ? &name
		                  : !strcmp(argv[i], "--store")        ? &store
		                  : !strcmp(argv[i], "--dir")          ? &dir
		                  : !strcmp(argv[i], "--munge-socket") ? &sock
		                  : !strcmp(argv[i], "--lib")          ? &lib
		                                                       : NULL;
		if (!to)
			return tp_cli_usage_error(WHAT,
			                          "record: unknown option '%s' "
			                          "(the command goes after --)",
			                          argv[i]);
		if (++i == argc)
			return tp_cli_usage_error(
			    WHAT, "record: %s needs a value", argv[i - 1]);
		*to = argv[i];
	}
	if (i + 1 >= argc)
		return tp_cli_usage_error(WHAT, "record: no command after --");
	if (!lib || !lib[0]) {
		/* The installed one, else whatever the loader finds. */
		lib = "libtopoplace_profiler.so";
#ifdef TP_PKGLIBDIR
		if (!access(TP_PKGLIBDIR "/libtopoplace_profiler.so", R_OK))
			lib = TP_PKGLIBDIR "/libtopoplace_profiler.so";
#endif
	}
	if (strchr(lib, '/') && access(lib, R_OK))
		return tp_cli_usage_error(
		    WHAT,
		    "record: profiler library '%s': "
		    "%s (--lib or TOPOPLACE_PROFILER_LIB)",
		    lib, strerror(errno));
	if (name && !tp_store_valid_name(name))
		return tp_cli_usage_error(WHAT, "record: bad --name '%s'",
		                          name);
	old = getenv("LD_PRELOAD");
	len = strlen(lib) + (old ? strlen(old) + 2 : 1);
	pre = malloc(len);
	if (!pre)
		return TP_EXIT_FAILURE;
	snprintf(pre, len, "%s%s%s", lib, old && old[0] ? " " : "",
	         old ? old : "");
	if (setenv("LD_PRELOAD", pre, 1) ||
	    (name && setenv("TOPOPLACE_PROFILE_NAME", name, 1)) ||
	    (store && setenv("TOPOPLACE_PROFILE_STORE", store, 1)) ||
	    (dir && setenv("TOPOPLACE_PROFILE_DIR", dir, 1)) ||
	    (sock && setenv("TOPOPLACE_MUNGE_SOCKET", sock, 1))) {
		free(pre);
		return TP_EXIT_FAILURE;
	}
	free(pre);
	{
		/*
		 * Open MPI's mpirun forwards the variables listed here to
		 * remote ranks too; only set ones (it warns about others).
		 */
		static const char *const vars[] = {"LD_PRELOAD",
		                                   "TOPOPLACE_PROFILE_NAME",
		                                   "TOPOPLACE_PROFILE_STORE",
		                                   "TOPOPLACE_PROFILE_DIR",
		                                   "TOPOPLACE_MUNGE_SOCKET",
		                                   "TOPOPLACE_PROFILE_KEEP"};
		const char *prev = getenv("OMPI_MCA_mca_base_env_list");
		char list[1024] = "";
		size_t v;

		if (prev)
			snprintf(list, sizeof(list), "%s", prev);
		for (v = 0; v < sizeof(vars) / sizeof(vars[0]); v++)
			if (getenv(vars[v]))
				snprintf(list + strlen(list),
				         sizeof(list) - strlen(list), "%s%s",
				         list[0] ? ";" : "", vars[v]);
		if (setenv("OMPI_MCA_mca_base_env_list", list, 1))
			return TP_EXIT_FAILURE;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "topoplace %s: record: %s: %s\n", WHAT, argv[i + 1],
	        strerror(errno));
	return TP_EXIT_FAILURE;
}

/* The value of a common option @opt (--max-age, --keep, --ttl, --pairs)
 * into @c; a usage error names a bad one. */
static int parse_common_value(int opt, const char *arg, struct common *c)
{
	unsigned long long v;

	switch (opt) {
	case 'a':
		if (parse_uint(arg, INT64_MAX, &v))
			return tp_cli_usage_error(WHAT, "bad --max-age '%s'",
			                          arg);
		c->max_age_s = (int64_t)v;
		break;
	case 'k':
		if (parse_uint(arg, 100000, &v) || v == 0)
			return tp_cli_usage_error(WHAT, "bad --keep '%s'", arg);
		c->keep = (unsigned)v;
		break;
	case 't':
		if (parse_uint(arg, 86400 * 365, &v))
			return tp_cli_usage_error(WHAT, "bad --ttl '%s'", arg);
		c->ttl_s = (int)v;
		break;
	default: /* 'n' */
		if (parse_uint(arg, 1u << 30, &v))
			return tp_cli_usage_error(WHAT, "bad --pairs '%s'",
			                          arg);
		c->top = (unsigned)v;
		break;
	}
	return TP_EXIT_OK;
}

/*
 * The common options into @c, before or after the action; the positional
 * arguments (and the per-action options import/export/verify parse
 * themselves) are collected in order into @rest (argc + 1 entries).
 * Returns TP_EXIT_OK, -1 for --help, or TP_EXIT_USAGE after one line.
 */
static int parse_profile_opts(int argc, char **argv, struct common *c,
                              char **rest, int *nrest)
{
	static const struct option longopts[] = {
	    {"store", required_argument, NULL, 's'},
	    {"munge-socket", required_argument, NULL, 'm'},
	    {"max-age", required_argument, NULL, 'a'},
	    {"keep", required_argument, NULL, 'k'},
	    {"ttl", required_argument, NULL, 't'},
	    {"pairs", required_argument, NULL, 'n'},
	    {"merged", no_argument, NULL, 'M'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, rc = TP_EXIT_OK;

	opterr = 0;
	optind = 1;
	while (optind < argc && rc == TP_EXIT_OK) {
		opt = getopt_long(argc, argv, "+h", longopts, NULL);
		if (opt == -1 || opt == '?') {
			/* Not ours: keep it (and its value) for the action. */
			int at = opt == -1 ? optind : optind - 1;

			if (opt == -1)
				optind++;
			rest[(*nrest)++] = argv[at];
			continue;
		}
		if (opt == 'h')
			return -1;
		if (opt == 's')
			c->store = optarg;
		else if (opt == 'm')
			c->socket = optarg;
		else if (opt == 'M')
			c->merged = 1;
		else if (opt == 'v')
			c->verbose = 1;
		else if (opt == 'j')
			c->json = 1;
		else if (strchr("aktn", opt))
			rc = parse_common_value(opt, optarg, c);
	}
	return rc;
}

/* The munge authenticator, logger and store options of @c. */
static void setup_store(struct common *c)
{
	c->munge.socket = c->socket;
	c->munge.ttl_s = c->ttl_s;
	tp_munge_auth_init(&c->auth, &c->munge);
	c->logger = tp_cli_logger(c->verbose ? TP_LOG_DEBUG : TP_LOG_WARNING);
	c->opt = tp_store_default_options();
	c->opt.root = c->store;
	c->opt.auth = &c->auth;
	c->opt.keep = c->keep;
	c->opt.max_age_s = c->max_age_s;
	c->opt.logger = &c->logger;
}

/* Action rest[0] with its arguments rest[1..nrest - 1]. */
static int run_profile_action(struct common *c, int nrest, char **rest)
{
	static const struct {
		const char *name;
		int (*run)(struct common *c, int argc, char **argv);
	} actions[] = {
	    {"show", action_show},
	    {"list", action_list},
	    {"verify", action_verify},
	    {"import", action_import},
	    {"export", action_export},
	    {"scale", action_scale},
	    {"put", action_put},
	    {"sign", action_put},
	    {"prepare", action_prepare},
	    {"summarize", action_summarize},
	    {"prune", action_prune},
	};
	const char *action = rest[0];

	if (c->json && strcmp(action, "show") && strcmp(action, "list") &&
	    strcmp(action, "verify"))
		return tp_cli_usage_error(WHAT,
		                          "--json: for show, list and verify "
		                          "(%s prints no report)",
		                          action);
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(action, actions[i].name))
			return actions[i].run(c, nrest - 1, rest + 1);
	return tp_cli_usage_error(WHAT,
	                          "unknown action '%s' (show, "
	                          "list, verify, import, export, "
	                          "scale, put, prepare, summarize)",
	                          action);
}

int tp_cli_profile(int argc, char **argv)
{
	struct common c;
	char **rest;
	int nrest = 0, rc;

	if (argc >= 2 && !strcmp(argv[1], "record"))
		return action_record(argc - 2, argv + 2);
	memset(&c, 0, sizeof(c));
	c.store = getenv("TOPOPLACE_PROFILE_STORE");
	if (c.store && !c.store[0])
		c.store = NULL;
	c.max_age_s = TP_STORE_DEFAULT_MAX_AGE_S;
	c.keep = TP_STORE_DEFAULT_KEEP;
	c.top = 10;
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest)
		return TP_EXIT_FAILURE;
	rc = parse_profile_opts(argc, argv, &c, rest, &nrest);
	if (rc == -1) {
		usage(stdout);
		rc = TP_EXIT_OK;
	} else if (rc == TP_EXIT_OK && nrest == 0) {
		usage(stderr);
		rc = TP_EXIT_USAGE;
	} else if (rc == TP_EXIT_OK) {
		setup_store(&c);
		rc = run_profile_action(&c, nrest, rest);
	}
	free(rest);
	return rc;
}
