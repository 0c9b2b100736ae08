/*
 * batch_prep.c: a batch job's preparation in slurmd (batch_prep.h).
 *
 * The steps run in the order the job needs them: the profile key first
 * (everything else is read under it), then the profile's totals, whose
 * rank count decides whether the matrix is read at all, so a job of
 * another size never pays for it; then the files, which exist only for a
 * remapping or I/O servers; then the throttle window, which needs only the
 * totals; last the site's recording, which needs the key's runs.  Every
 * read, computation and write outside goes through the ports, so each
 * rule here can be tested without a store, munge or a fabric.
 */
#include "batch_prep.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "prep_throttle.h"
#include "record_policy.h"
#include "scale_rule.h"

/* One job's preparation while it runs. */
struct prep_state {
	const tp_batch_prep_job *job;
	const tp_batch_prep_ports *ports;
	const tp_logger *log;
	tp_batch_prep *prep;
	char who[32]; /* "JobId=5" */
	char script_key[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_identity_key key;
	const char *name;  /* the key read from the store; NULL: none */
	const char *shown; /* what logs and notes call the profile */
	tp_profile_summary *totals; /* NULL: no profile read */
	bool have;                  /* *totals is the job's profile's */
	bool remap;                 /* the ranks may still be remapped */
	tp_batch_prep_stored_run run;
	tp_profile *profile; /* to remap from; NULL: no remapping */
};

void tp_batch_prep_init(tp_batch_prep *prep)
{
	memset(prep, 0, sizeof(*prep));
}

void tp_batch_prep_free(tp_batch_prep *prep)
{
	if (!prep)
		return;
	for (size_t i = 0; i < prep->var_count; i++)
		free(prep->vars[i].value);
	for (size_t i = 0; i < prep->note_count; i++)
		free(prep->notes[i]);
	tp_batch_prep_init(prep);
}

const char *tp_batch_prep_var_get(const tp_batch_prep *prep, const char *name)
{
	for (size_t i = prep->var_count; i-- > 0;)
		if (!strcmp(prep->vars[i].name, name))
			return prep->vars[i].value;
	return NULL;
}

/* Variable @name=@value for the batch script (a later one wins). */
static void put_var(tp_batch_prep *prep, const char *name, const char *value)
{
	char *copy = strdup(value);

	if (!copy || prep->var_count == TP_BATCH_PREP_VARS_MAX) {
		free(copy);
		prep->out_of_memory = true;
		return;
	}
	prep->vars[prep->var_count].name = name;
	prep->vars[prep->var_count++].value = copy;
}

/* A note for the job's stderr; a note that does not format is dropped. */
static void put_note(tp_batch_prep *prep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put_note(tp_batch_prep *prep, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (prep->note_count == TP_BATCH_PREP_NOTES_MAX ||
	    !(prep->notes[prep->note_count] = strdup(text))) {
		prep->out_of_memory = true;
		return;
	}
	prep->note_count++;
}

/* True when topoplace.conf's DebugFlags include @flag. */
static bool debug_flag(const tp_batch_prep_job *job, uint32_t flag)
{
	return job->config &&
	       (tp_config_site_settings(job->config)->debug_flags & flag);
}

static const char *user_of(const tp_batch_prep_job *job)
{
	return job->user ? job->user : "";
}

tp_identity_profile tp_batch_prep_identity(const tp_batch_prep_job *job)
{
	tp_identity_profile profile = tp_identity_job_profile(
	    job->comm_profile, job->job_name, job->user);

	profile.skip_link = job->settings && job->settings->profile_by_exec ==
	                                         TP_EXEC_MATCH_NO;
	profile.link_by_command = job->settings &&
	                          job->settings->profile_by_exec ==
	                              TP_EXEC_MATCH_COMMAND;
	return profile;
}

bool tp_batch_prep_needs_work(const tp_batch_prep_job *job)
{
	tp_identity_profile profile = tp_batch_prep_identity(job);

	return profile.lookup || (job->io_servers && job->nodes);
}

/* ---- which profile ---------------------------------------------------- */

/*
 * Which profile key the job reads and records against (the one rule of
 * slurmctld, slurmd and slurmstepd, through ports->identity); the
 * script's key goes to the batch script's environment, for the profiler
 * (stored under it too) and the job's steps.  A store that cannot be
 * listed, or a job that is not looked up (no store name), leaves the key
 * empty: no profile, and no recording.
 */
static bool resolve_identity(struct prep_state *st,
                             const tp_identity_profile *profile)
{
	const tp_batch_prep_job *job = st->job;
	tp_error err;

	if (job->script && !(job->comm_profile && job->comm_profile[0])) {
		tp_identity_script_key(job->script, job->script_len,
		                       st->script_key);
		put_var(st->prep, "TOPOPLACE_PROFILE_SCRIPT_KEY",
		        st->script_key);
	}
	/* As slurmctld: a job whose name (or user) is no store name is not
	 * looked up at all, so the two never disagree on its profile. */
	if (!profile->lookup)
		return false;
	if (st->ports->identity(st->ports->ctx, user_of(job), profile,
	                        st->script_key, &st->key, &err) != TP_OK) {
		tp_log(st->log, TP_LOG_ERROR,
		       "%s: %s: no profile, not recorded", st->who,
		       err.message);
		memset(&st->key, 0, sizeof(st->key));
		return false;
	}
	if (debug_flag(job, TP_DEBUG_PROFILE))
		tp_log(st->log, TP_LOG_INFO, "Profile: %s: by %s: %s", st->who,
		       tp_identity_source_name(st->key.source), st->key.why);
	return true;
}

/*
 * Which key chose the profile, on the job's output when it matters: by
 * the script's hash (the job name did not choose it), or by a job name
 * whose run another job recorded while the job's own script never ran
 * (the name may be shared by other scripts).  A profile imported under
 * the job's name is the user's own word: nothing to say.
 */
static void note_identity(struct prep_state *st)
{
	const tp_profile_summary *totals = st->totals;
	char from[48] = "imported";

	if (totals->job_id)
		snprintf(from, sizeof(from), "recorded by JobId=%" PRIu64,
		         totals->job_id);
	if (st->key.source == TP_IDENTITY_SCRIPT)
		put_note(st->prep, "profile %s/%.64s by script hash (%s), %s",
		         user_of(st->job),
		         totals->app[0] ? totals->app : st->key.name,
		         st->key.name, from);
	else if (st->key.source == TP_IDENTITY_SCRIPT_LINK)
		put_note(st->prep,
		         "profile %s/%.64s by script hash, via executable "
		         "(this batch script's JobId=%" PRIu64 " ran its "
		         "program), %s",
		         user_of(st->job), st->key.name, st->key.link_job_id,
		         from);
	else if (st->key.source == TP_IDENTITY_JOB_NAME && st->script_key[0] &&
	         totals->job_id)
		put_note(st->prep,
		         "profile %s/%.64s by job name, %s (this batch script "
		         "never ran before)",
		         user_of(st->job), st->key.name, from);
}

/* ---- the profile's totals --------------------------------------------- */

/* The totals were read: say by which key, and from where. */
static void totals_found(struct prep_state *st, bool from_summary)
{
	const tp_batch_prep_job *job = st->job;

	/* A script's runs by the application they were recorded as, not by
	 * the hash. */
	if (st->key.source == TP_IDENTITY_SCRIPT && st->totals->app[0])
		st->shown = st->totals->app;
	tp_log(st->log, TP_LOG_INFO, "%s: profile %s/%s by %s (%s)", st->who,
	       user_of(job), st->shown, tp_identity_source_name(st->key.source),
	       st->key.why);
	note_identity(st);
	if (debug_flag(job, TP_DEBUG_PROFILE)) {
		char from[48] = "imported, no job";

		if (st->totals->job_id)
			snprintf(from, sizeof(from),
			         "recorded by JobId=%" PRIu64,
			         st->totals->job_id);
		tp_log(st->log, TP_LOG_INFO,
		       "Profile: %s: %s/%s read from %s (%s): %u ranks, %s",
		       st->who, user_of(job), st->name,
		       tp_config_site_settings(job->config)->profile_store,
		       from_summary ? "its summary" : "the whole run",
		       st->totals->ranks, from);
	}
	if (st->run.over_newest)
		tp_log(st->log, TP_LOG_INFO,
		       "%s: profile %s/%s: run %s, of the job's %u tasks, over "
		       "the newest",
		       st->who, user_of(job), st->name, st->run.file,
		       job->ntasks);
}

/* No run of the key: no profile, said only with DebugFlags=Profile. */
static void totals_missing(struct prep_state *st)
{
	const tp_batch_prep_job *job = st->job;

	if (debug_flag(job, TP_DEBUG_PROFILE))
		tp_log(st->log, TP_LOG_INFO,
		       "Profile: %s: %s/%s: not in the store %s: no profile",
		       st->who, user_of(job), st->name,
		       tp_config_site_settings(job->config)->profile_store);
	else
		tp_log(st->log, TP_LOG_DEBUG, "%s: no profile %s/%s", st->who,
		       user_of(job), st->name);
}

/*
 * The profile's totals, from the summary beside it when the store has
 * one: its ranks decide whether the matrix is needed at all, and
 * throttling needs only the totals.  A profile that cannot be read is
 * told to the job: it asked for it, or ran before under it.
 */
static void read_totals(struct prep_state *st)
{
	const tp_batch_prep_job *job = st->job;
	bool from_summary = false;
	tp_error err;
	tp_status rc;

	/* A summary carries a credential of up to 8 KiB: not on the stack. */
	if (!(st->totals = malloc(sizeof(*st->totals)))) {
		tp_log(st->log, TP_LOG_ERROR,
		       "%s: profile %s/%s: out of memory: no remapping or "
		       "throttling",
		       st->who, user_of(job), st->name);
		return;
	}
	rc = st->ports->totals(st->ports->ctx, user_of(job), st->name,
	                       job->ntasks, st->totals, &from_summary, &st->run,
	                       &err);
	st->have = rc == TP_OK;
	if (rc == TP_OK)
		totals_found(st, from_summary);
	else if (rc == TP_ERR_NOTFOUND)
		totals_missing(st);
	else {
		tp_log(st->log, TP_LOG_ERROR,
		       "%s: profile: %s: no remapping or throttling", st->who,
		       err.message);
		/* A long message is cut; the log has all of it. */
		put_note(
		    st->prep,
		    "profile %s/%s not used (%.300s): no rank remapping or "
		    "I/O throttling from it",
		    user_of(job), st->name, err.message);
	}
}

/* ---- what to remap from ----------------------------------------------- */

/*
 * The profile scaled to the job's task count, when the scale rule allows
 * (ports->scaled, from the runs' summaries); the job is told.  NULL
 * otherwise, with why in @text for the caller's note.
 */
static tp_profile *scaled_profile(struct prep_state *st, char *text,
                                  size_t size)
{
	const tp_batch_prep_job *job = st->job;
	tp_profile *scaled = NULL;
	tp_error err;

	if (st->ports->scaled(st->ports->ctx, user_of(job), st->name,
	                      job->ntasks, &scaled, text, size,
	                      &err) != TP_OK) {
		tp_log(st->log, TP_LOG_ERROR, "%s: profile %s/%s: scaling: %s",
		       st->who, user_of(job), st->name, err.message);
		snprintf(text, size, "not scaled: %.200s", err.message);
		return NULL;
	}
	tp_log(st->log, TP_LOG_INFO,
	       "%s: profile %s/%s has %u ranks, the job %u tasks: %s", st->who,
	       user_of(job), st->name, st->totals->ranks, job->ntasks, text);
	if (scaled)
		put_note(st->prep, "profile %s/%s: ranks %.400s", user_of(job),
		         st->name, text);
	return scaled;
}

/* Another task count, not scaled: Slurm's layout, and the job is told. */
static void keep_slurm_layout(struct prep_state *st, const char *scale_text)
{
	const tp_batch_prep_job *job = st->job;
	char tasks[48];

	if (job->ntasks)
		snprintf(tasks, sizeof(tasks), "the job has %u tasks",
		         job->ntasks);
	else
		snprintf(tasks, sizeof(tasks),
		         "the job gave no task count (-n)");
	tp_log(st->log, TP_LOG_INFO,
	       "%s: profile %s/%s has %u ranks, %s: no rank remapping", st->who,
	       user_of(job), st->shown, st->totals->ranks, tasks);
	put_note(st->prep,
	         "profile %s/%s has %u ranks but %s: ranks not remapped, "
	         "Slurm's task layout kept%s%.300s%s",
	         user_of(job), st->shown, st->totals->ranks, tasks,
	         scale_text[0] ? " (" : "", scale_text,
	         scale_text[0] ? ")" : "");
	st->remap = false;
}

/* The matrix, read only to remap onto exactly the profile's ranks. */
static void read_matrix(struct prep_state *st)
{
	const tp_batch_prep_job *job = st->job;
	tp_error err;

	if (st->ports->read_profile(st->ports->ctx, user_of(job), st->name,
	                            st->run.file, &st->profile, &err) == TP_OK)
		return;
	tp_log(st->log, TP_LOG_ERROR, "%s: profile: %s: no remapping", st->who,
	       err.message);
	put_note(st->prep,
	         "profile %s/%s not used for the rank remapping (%.300s): "
	         "Slurm's task layout kept",
	         user_of(job), st->name, err.message);
	st->profile = NULL;
}

/*
 * The job's own task count wins: ranks are remapped only onto exactly as
 * many tasks as the profile has ranks, or onto the job's count from the
 * profile scaled to it when the scale rule allows (scale_rule.h).  Any
 * other count would change what srun runs (the hostfile sets the tasks),
 * so the job keeps Slurm's layout and is told why.
 */
static void choose_remap_profile(struct prep_state *st)
{
	const tp_batch_prep_job *job = st->job;
	char scale_text[TP_SCALE_TEXT_MAX + 64] = "";

	if (!st->have || !st->remap)
		return;
	if (st->totals->ranks != job->ntasks) {
		if (job->ntasks)
			st->profile =
			    scaled_profile(st, scale_text, sizeof(scale_text));
		if (!st->profile)
			keep_slurm_layout(st, scale_text);
		return;
	}
	if (job->nodes)
		read_matrix(st);
}

/* ---- the job's files -------------------------------------------------- */

/* What the fabric gave for the job's nodes. */
struct job_layout {
	tp_topo *topo;
	tp_remap_mapping map;
	tp_remap_stats stats;
	tp_ioserver_result io;
	bool remapped, placed;
	char hosts[8192]; /* the I/O servers, joined by ',' */
};

/* The I/O servers among the job's nodes; one log line on failure. */
static bool place_ioservers(struct prep_state *st, struct job_layout *lay)
{
	const tp_batch_prep_job *job = st->job;
	tp_error err;

	if (st->ports->ioservers_place(lay->topo, job->nodes, job->io_servers,
	                               job->settings->ioserver_policy,
	                               job->job_id, &lay->io, &err) != TP_OK ||
	    st->ports->ioservers_format(lay->topo, &lay->io, ',', lay->hosts,
	                                sizeof(lay->hosts), &err) != TP_OK) {
		tp_log(st->log, TP_LOG_ERROR,
		       "%s: %u I/O servers: %s: none placed", st->who,
		       job->io_servers, err.message);
		tp_ioserver_result_free(&lay->io);
		return false;
	}
	return true;
}

/* One node's line of log_remap. */
struct remap_log_ctx {
	struct prep_state *st;
	const struct job_layout *lay;
};

static tp_status log_node_ranks(void *ctx, const char *name, tp_error *err)
{
	const struct remap_log_ctx *c = ctx;
	const tp_remap_mapping *map = &c->lay->map;
	uint32_t host = tp_topo_find_host(c->lay->topo, name);
	char ranks[1024];
	size_t used = 0;
	uint32_t count = 0;

	(void)err;
	ranks[0] = '\0';
	for (uint32_t r = 0; r < map->ranks; r++) {
		if (map->rank_host[r] != host)
			continue;
		if (used < sizeof(ranks) - 16)
			used +=
			    (size_t)snprintf(ranks + used, sizeof(ranks) - used,
			                     "%s%u", count ? "," : "", r);
		else if (used < sizeof(ranks) - 1)
			used += (size_t)snprintf(ranks + used,
			                         sizeof(ranks) - used, "...");
		count++;
	}
	tp_log(c->st->log, TP_LOG_INFO, "Remap: %s: %s: %u ranks: %s",
	       c->st->who, name, count, count ? ranks : "none");
	return TP_OK;
}

/*
 * DebugFlags=Remap: the job's ranks by node, in the order of its nodes,
 * and the hop-bytes of each candidate mapping.  O(nodes x ranks), only
 * with the flag; the nodes are the fabric's (the remapping found them).
 */
static void log_remap(struct prep_state *st, const struct job_layout *lay)
{
	const tp_remap_stats *stats = &lay->stats;
	struct remap_log_ctx ctx = {.st = st, .lay = lay};
	tp_error err;

	tp_log(st->log, TP_LOG_INFO,
	       "Remap: %s: %u ranks: block order %" PRIu64 " hop-bytes, "
	       "partition %" PRIu64 ", refined %" PRIu64 " (%" PRIu64
	       " moves): chosen %s, %" PRIu64 "; search %s, %u partitions",
	       st->who, lay->map.ranks, stats->block_hop_bytes,
	       stats->partition_hop_bytes, stats->refined_hop_bytes,
	       stats->moves, stats->chosen, stats->hop_bytes,
	       tp_remap_search_name(st->job->settings->remap_search),
	       stats->partitions);
	(void)tp_hostlist_expand(st->job->nodes, tp_topo_host_count(lay->topo),
	                         log_node_ranks, &ctx, &err);
}

/* The remapping and the I/O servers on the fabric; false: neither. */
static bool lay_out(struct prep_state *st, struct job_layout *lay)
{
	const tp_batch_prep_job *job = st->job;
	tp_error err;

	if (st->ports->load_topo(st->ports->ctx, &lay->topo, &err) != TP_OK) {
		tp_log(st->log, TP_LOG_ERROR, "%s: %s: no rank remapping%s",
		       st->who, err.message,
		       job->io_servers ? " or I/O servers" : "");
		return false;
	}
	if (debug_flag(job, TP_DEBUG_FABRIC))
		tp_log(st->log, TP_LOG_INFO,
		       "Fabric: %s: fabric of %u hosts, %u leaves, %u pods "
		       "loaded for nodes %s",
		       st->who, tp_topo_host_count(lay->topo),
		       tp_topo_leaf_count(lay->topo),
		       tp_topo_pod_count(lay->topo), job->nodes);
	if (st->profile) {
		if (st->ports->remap(lay->topo, st->profile, job->nodes,
		                     job->job_id, job->settings->remap_search,
		                     st->log, &lay->map, &lay->stats,
		                     &err) == TP_OK) {
			lay->remapped = true;
			if (debug_flag(job, TP_DEBUG_REMAP))
				log_remap(st, lay);
		} else
			tp_log(st->log, TP_LOG_ERROR,
			       "%s: %s: no rank remapping", st->who,
			       err.message);
	}
	if (job->io_servers)
		lay->placed = place_ioservers(st, lay);
	return lay->remapped || lay->placed;
}

/* Variable @name = @dir/@file. */
static void put_path(tp_batch_prep *prep, const char *name, const char *dir,
                     const char *file)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	put_var(prep, name, path);
}

/* The files are written: the variables that name them. */
static void files_written(struct prep_state *st, const struct job_layout *lay,
                          const char *dir)
{
	const tp_batch_prep_job *job = st->job;
	char ranks[16];

	if (lay->remapped) {
		put_path(st->prep, "TOPOPLACE_RANKFILE", dir,
		         TP_BATCH_PREP_RANKFILE);
		put_path(st->prep, "TOPOPLACE_MACHINEFILE", dir,
		         TP_BATCH_PREP_MACHINEFILE);
		put_path(st->prep, "SLURM_HOSTFILE", dir,
		         TP_BATCH_PREP_HOSTFILE);
		put_var(st->prep, "SLURM_DISTRIBUTION", "arbitrary");
		snprintf(ranks, sizeof(ranks), "%u", lay->map.ranks);
		put_var(st->prep, "TOPOPLACE_RANKS", ranks);
		tp_log(st->log, TP_LOG_INFO,
		       "%s: profile %s/%s: %u ranks on %s remapped (%s): "
		       "hop-bytes %" PRIu64 " (block order: %" PRIu64 ") -> %s",
		       st->who, user_of(job), st->shown, lay->map.ranks,
		       job->nodes, lay->stats.chosen, lay->stats.hop_bytes,
		       lay->stats.block_hop_bytes, dir);
	}
	if (lay->placed)
		put_path(st->prep, "TOPOPLACE_IO_SERVER_FILE", dir,
		         TP_BATCH_PREP_IOSERVERS);
}

/*
 * Rank remapping (st->profile) and I/O servers for the job's nodes,
 * their files in the job's directory and the variables naming them.
 * The server list is usable without its file, so it is in the
 * environment even when the files cannot be written; the rank files are
 * not, so without them the ranks are not remapped.
 */
static void job_files(struct prep_state *st)
{
	struct job_layout lay = {0};
	char dir[1024];

	if (lay_out(st, &lay)) {
		if (lay.placed)
			put_var(st->prep, "TOPOPLACE_IO_SERVER_HOSTS",
			        lay.hosts);
		if (st->ports->write_files(st->ports->ctx, lay.topo,
		                           lay.remapped ? &lay.map : NULL,
		                           lay.placed ? &lay.io : NULL, dir,
		                           sizeof(dir)))
			files_written(st, &lay, dir);
		if (lay.placed)
			tp_log(st->log, TP_LOG_INFO, "%s: I/O servers %s: %s",
			       st->who, lay.hosts, lay.io.reason);
	}
	tp_ioserver_result_free(&lay.io);
	tp_remap_mapping_free(&lay.map);
	tp_topo_free(lay.topo);
}

/* ---- throttle and recording ------------------------------------------- */

/* The throttle window from @totals (NULL: none) into the environment. */
static void throttle(const tp_batch_prep_job *job, const char *who,
                     const tp_batch_prep_ports *ports,
                     const tp_profile_summary *totals, const tp_logger *log,
                     tp_batch_prep *prep)
{
	tp_prep_throttle_who decider = {
	    .who = who,
	    .loud = true,
	    .dbg = debug_flag(job, TP_DEBUG_THROTTLE),
	    .log = log,
	};
	tp_io_pattern pattern;
	bool io =
	    totals && ports &&
	    ports->io_pattern(totals, &job->settings->thresholds, &pattern);
	char value[32], reason[256];
	uint64_t window_us = 0;

	if (!tp_prep_throttle_decide(&decider, job->settings,
	                             io ? &pattern : NULL, &job->io_throttle,
	                             &window_us, reason, sizeof(reason)))
		return;
	if (tp_prep_throttle_user_window_changed(&job->io_throttle, window_us))
		put_note(prep, "--io-throttle: %s", reason);
	snprintf(value, sizeof(value), "%" PRIu64, window_us);
	put_var(prep, "TOPOPLACE_IO_WINDOW_US", value);
	put_var(prep, "TOPOPLACE_PACING_LIB",
	        job->pacing_lib ? job->pacing_lib : "");
	tp_log(log, TP_LOG_INFO, "%s: I/O throttle window %" PRIu64 " us: %s",
	       who, window_us, reason);
}

void tp_batch_prep_throttle(const tp_batch_prep_job *job, const tp_logger *log,
                            tp_batch_prep *prep)
{
	char who[32];

	snprintf(who, sizeof(who), "JobId=%u", job->job_id);
	throttle(job, who, NULL, NULL, log, prep);
}

/*
 * ProfileRecord: whether the site records this batch job's MPI steps
 * though the user did not ask (record_policy.h), from the runs of the
 * job's application already in the store as the identity rule counts
 * them (a script's own runs, not those of a job name it may share with
 * other scripts).  Decided once per job, here, and handed to every step
 * through the batch script's environment (TP_BATCH_PREP_RECORD_VAR), so
 * all nodes of a step agree: the profiler gathers at MPI_Finalize and
 * needs every rank or none.  The job is told on its stderr.  @app is what
 * the job is recorded as (its job name, or --comm-profile).
 */
static void site_record(struct prep_state *st, const char *app)
{
	const tp_batch_prep_job *job = st->job;
	tp_record_job rec = {.app = app, .job_id = job->job_id};
	tp_record_policy policy;
	char reason[320];

	tp_config_record_policy(job->config, job->settings, &policy);
	/* --comm-record itself is handled per step, in slurmstepd. */
	if (job->comm_record || policy.mode == TP_RECORD_OFF)
		return;
	rec.user =
	    job->comm_record_off ? TP_RECORD_USER_NO : TP_RECORD_USER_UNSET;
	/* A batch job's runs are its script's (tp_identity_resolve): the
	 * reason says so, not the job name, which may have runs. */
	if (st->key.source == TP_IDENTITY_SCRIPT_LINK)
		rec.runs_of = "this batch script's program";
	else if (st->key.source != TP_IDENTITY_COMM_PROFILE &&
	         st->script_key[0])
		rec.runs_of = "this batch script";
	rec.has_profile = st->key.app_runs > 0;
	rec.newest_age_s =
	    rec.has_profile ? job->now_s - st->key.newest_mtime_s : 0;
	if (!tp_record_decide(&policy, &rec, reason, sizeof(reason))) {
		tp_log(st->log, TP_LOG_DEBUG, "%s: not recorded: %s", st->who,
		       reason);
		return;
	}
	put_var(st->prep, TP_BATCH_PREP_RECORD_VAR, app);
	tp_log(st->log, TP_LOG_INFO,
	       "%s: MPI steps recorded as profile %s/%s: %s", st->who,
	       user_of(job), app, reason);
	put_note(st->prep,
	         "this job's MPI steps are recorded as profile %s/%.64s: %s",
	         user_of(job), app, reason);
}

/* ---- the whole preparation -------------------------------------------- */

void tp_batch_prep_run(const tp_batch_prep_job *job,
                       const tp_batch_prep_ports *ports, const tp_logger *log,
                       tp_batch_prep *prep)
{
	tp_identity_profile identity = tp_batch_prep_identity(job);
	struct prep_state st = {
	    .job = job,
	    .ports = ports,
	    .log = log,
	    .prep = prep,
	    .remap = job->rank_remap &&
	             job->settings->rank_remap == TP_RANK_REMAP_AUTO,
	};
	bool known;

	snprintf(st.who, sizeof(st.who), "JobId=%u", job->job_id);
	known = resolve_identity(&st, &identity);
	st.name = st.shown = st.key.name;
	if (st.name)
		read_totals(&st);
	choose_remap_profile(&st);
	if (job->nodes && (st.profile || job->io_servers))
		job_files(&st);
	throttle(job, st.who, ports, st.have ? st.totals : NULL, log, prep);
	tp_profile_free(st.profile);
	free(st.totals);
	/* What the job is recorded as: its job name (or --comm-profile). */
	if (identity.lookup && known)
		site_record(&st, identity.name);
}
