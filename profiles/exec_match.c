/*
 * exec_match.c: a step's application found by its executable
 * (exec_match.h).
 *
 * Why the freshest matching run names the application and not, say, the
 * application with most matching runs: a program is recorded under the
 * name of the job that ran it, and the newest name is what its user calls
 * it now.  Why a batch job's twin run (the profiler stores each run under
 * its name and under its script key, with the same digest) is reported
 * under the name: users know names, not keys; both hold the same run.
 *
 * Why only the chosen run is verified: a summary read unverified only
 * says which run to verify, and the namespace's owner is the only one who
 * can write it (the store checks owner and mode), so at worst a user's own
 * files steer that user's own lookup, to a run that must then verify.
 */
#include "tp_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "exec_match.h"

/* A run whose summary names the program looked for. */
struct exec_run {
	char name[TP_STORE_NAME_MAX + 1];
	char file[TP_STORE_FILE_MAX + 1];
	int64_t mtime_s;
	uint32_t ranks;
	uint64_t job_id;
	uint8_t digest[TP_SHA256_BYTES];
};

struct exec_scan {
	const tp_exec_id *exec;
	tp_exec_match_rule rule;
	size_t other_args; /* the program, other or unknown arguments */
	int64_t oldest_s;      /* runs written before: too old to use */
	struct exec_run *runs; /* newest first */
	size_t count;
};

static bool visit_run(void *ctx, const tp_store_entry *entry,
                      const tp_profile_summary *summary)
{
	struct exec_scan *scan = ctx;
	struct exec_run *run;

	if (!summary->exec_recorded ||
	    !tp_exec_id_same_program(scan->exec, &summary->exec) ||
	    entry->mtime_s < scan->oldest_s ||
	    scan->count == TP_EXEC_MATCH_SUMMARIES_MAX)
		return true;
	/* A summary without an args line has its arguments unknown
	 * (exec.args_method NONE): never the same command. */
	if (scan->rule == TP_EXEC_MATCH_COMMAND &&
	    !tp_exec_id_same_command(scan->exec, &summary->exec)) {
		scan->other_args++;
		return true;
	}
	run = &scan->runs[scan->count++];
	snprintf(run->name, sizeof(run->name), "%s", entry->name);
	snprintf(run->file, sizeof(run->file), "%s", entry->file);
	run->mtime_s = entry->mtime_s;
	run->ranks = summary->ranks;
	run->job_id = summary->job_id;
	memcpy(run->digest, summary->digest, TP_SHA256_BYTES);
	return true;
}

/*
 * The application of the freshest matching run (@runs newest first): its
 * name, or the name its twin under a job name has when it is a script
 * key.
 */
static const char *application(const struct exec_run *runs, size_t count)
{
	if (!tp_identity_is_script_key(runs[0].name))
		return runs[0].name;
	for (size_t i = 1; i < count; i++)
		if (!tp_identity_is_script_key(runs[i].name) &&
		    !memcmp(runs[i].digest, runs[0].digest, TP_SHA256_BYTES))
			return runs[i].name;
	return runs[0].name;
}

/*
 * The run of application @name a step of @tasks ranks gets, among the
 * newest TP_IDENTITY_RUN_CANDIDATES_MAX matching ones (the rule every
 * reader applies, tp_identity_choose_run); its index into @runs.
 */
static size_t choose(const struct exec_run *runs, size_t count,
                     const char *name, uint32_t tasks, tp_exec_match *match)
{
	uint32_t ranks[TP_IDENTITY_RUN_CANDIDATES_MAX];
	size_t index[TP_IDENTITY_RUN_CANDIDATES_MAX];
	size_t n = 0;

	/* Newest first in @runs; the rule wants them oldest first. */
	for (size_t i = 0; i < count && n < TP_IDENTITY_RUN_CANDIDATES_MAX; i++)
		if (!strcmp(runs[i].name, name))
			index[n++] = i;
	for (size_t k = 0; k < n / 2; k++) {
		size_t t = index[k];

		index[k] = index[n - 1 - k];
		index[n - 1 - k] = t;
	}
	for (size_t k = 0; k < n; k++)
		ranks[k] = runs[index[k]].ranks;
	match->runs = n;
	match->choice = tp_identity_choose_run(ranks, n, tasks);
	return index[match->choice.index];
}

/* "by executable <path> (sha256 <12 hex>...)", and under COMMAND the
 * arguments, into @match->why. */
static void say_executable(const tp_exec_id *exec, tp_exec_match_rule rule,
                           tp_exec_match *match)
{
	char hex[2 * TP_SHA256_BYTES + 1], args[2 * TP_SHA256_BYTES + 1];
	size_t used;

	tp_sha256_hex(exec->sha256, hex);
	snprintf(match->why, sizeof(match->why),
	         "by executable %s (sha256 %.12s...%s)",
	         exec->path[0] ? exec->path : "?", hex,
	         exec->hash_method == TP_EXEC_HASH_SAMPLED ? ", sampled" : "");
	if (rule != TP_EXEC_MATCH_COMMAND)
		return;
	used = strlen(match->why);
	if (exec->args_method == TP_EXEC_ARGS_NONE) {
		snprintf(match->why + used, sizeof(match->why) - used,
		         " and arguments (unknown: over %u KiB)",
		         (unsigned)(TP_EXEC_ARGS_MAX_BYTES >> 10));
		return;
	}
	tp_sha256_hex(exec->args_sha256, args);
	snprintf(match->why + used, sizeof(match->why) - used,
	         " and arguments (%u, sha256 %.12s...)", exec->args_count,
	         args);
}

/* What was found, after the executable. */
static void say_found(const tp_exec_match *found, const char *user,
                      uint32_t tasks, tp_exec_match *match)
{
	size_t used = strlen(match->why);
	char sizes[96] = "";

	if (tasks && !found->choice.matched)
		snprintf(sizes, sizeof(sizes),
		         " (no run of %u ranks: its newest, of another size)",
		         tasks);
	snprintf(match->why + used, sizeof(match->why) - used,
	         ": profile %s/%s, a %u-rank run recorded by JobId=%" PRIu64
	         "%s",
	         user, found->name, found->ranks, found->job_id, sizes);
}

const char *tp_exec_match_rule_name(tp_exec_match_rule rule)
{
	switch (rule) {
	case TP_EXEC_MATCH_COMMAND:
		return "command";
	case TP_EXEC_MATCH_PROGRAM:
		return "program";
	case TP_EXEC_MATCH_NO:
		return "no";
	default:
		return "invalid";
	}
}

tp_status tp_exec_match_rule_parse(const char *text, tp_exec_match_rule *rule,
                                   tp_error *err)
{
	/* The boolean's words keep a topoplace.conf written when the key
	 * was yes|no meaning what it meant: yes was the program alone. */
	static const char *const program[] = {"program", "yes", "true", "on",
	                                      "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	if (!strcasecmp(text, "command")) {
		*rule = TP_EXEC_MATCH_COMMAND;
		return TP_OK;
	}
	for (size_t i = 0; i < sizeof(program) / sizeof(program[0]); i++)
		if (!strcasecmp(text, program[i])) {
			*rule = TP_EXEC_MATCH_PROGRAM;
			return TP_OK;
		}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcasecmp(text, no[i])) {
			*rule = TP_EXEC_MATCH_NO;
			return TP_OK;
		}
	return tp_error_set(err, TP_ERR_INVALID,
	                    "'%.80s' is not one of %s (yes: program)", text,
	                    TP_EXEC_MATCH_RULE_CHOICES);
}

tp_status tp_exec_match_find(const tp_store_options *opt, const char *user,
                             const tp_exec_id *exec, tp_exec_match_rule rule,
                             uint32_t tasks, tp_exec_match *match,
                             tp_profile_summary *summary, tp_error *err)
{
	struct exec_scan scan = {.exec = exec, .rule = rule};
	tp_profile_summary *verified = summary;
	size_t used, chosen;
	tp_status st;

	memset(match, 0, sizeof(*match));
	if (exec->hash_method == TP_EXEC_HASH_NONE)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "executable %s: not hashed: nothing to "
		                    "match",
		                    exec->path[0] ? exec->path : "?");
	if (rule != TP_EXEC_MATCH_COMMAND && rule != TP_EXEC_MATCH_PROGRAM)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "executable %s: ProfileByExecutable=%s: "
		                    "nothing to match",
		                    exec->path[0] ? exec->path : "?",
		                    tp_exec_match_rule_name(rule));
	say_executable(exec, rule, match);
	/* No digest is the same command as nothing: no need to read. */
	if (rule == TP_EXEC_MATCH_COMMAND &&
	    exec->args_method == TP_EXEC_ARGS_NONE) {
		used = strlen(match->why);
		snprintf(match->why + used, sizeof(match->why) - used,
		         ": not matched by command");
		return TP_OK;
	}
	if (opt->max_age_s > 0)
		scan.oldest_s = (int64_t)time(NULL) - opt->max_age_s;
	scan.runs = calloc(TP_EXEC_MATCH_SUMMARIES_MAX, sizeof(*scan.runs));
	if (!scan.runs ||
	    (!verified && !(verified = malloc(sizeof(*verified))))) {
		free(scan.runs);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    match->why);
	}
	st = tp_store_scan_summaries(opt, user, TP_EXEC_MATCH_SUMMARIES_MAX,
	                             visit_run, &scan, &match->read, err);
	if (st == TP_ERR_NOTFOUND)
		st = TP_OK; /* no namespace yet: no runs */
	if (st != TP_OK) {
		tp_error_prefix(err, "%s", match->why);
		goto out;
	}
	match->other_args = scan.other_args;
	if (!scan.count) {
		used = strlen(match->why);
		snprintf(match->why + used, sizeof(match->why) - used,
		         ": no run of it among the newest %zu of %s", match->read,
		         user);
		used = strlen(match->why);
		/* Say why the program's own runs were passed over. */
		if (scan.other_args)
			snprintf(match->why + used, sizeof(match->why) - used,
			         " (%zu of the program with other or unknown "
			         "arguments)",
			         scan.other_args);
		goto out;
	}
	snprintf(match->name, sizeof(match->name), "%s",
	         application(scan.runs, scan.count));
	chosen = choose(scan.runs, scan.count, match->name, tasks, match);
	snprintf(match->file, sizeof(match->file), "%s",
	         scan.runs[chosen].file);
	match->mtime_s = scan.runs[chosen].mtime_s;
	match->ranks = scan.runs[chosen].ranks;
	match->job_id = scan.runs[chosen].job_id;
	st = tp_store_run_summary(opt, user, match->name, match->file, verified,
	                          err);
	if (st != TP_OK) {
		tp_error_prefix(err, "%s: its run", match->why);
		goto out;
	}
	match->found = true;
	say_found(match, user, tasks, match);
out:
	if (verified != summary)
		free(verified);
	free(scan.runs);
	return st;
}
