/*
 * test_batch_prep.c: what slurmd decides for a batch job (batch_prep.h)
 * and the throttle decision it shares with slurmstepd (prep_throttle.h),
 * through fake ports: a store that answers with a profile of a given
 * rank count, a fabric of 16 hosts, a remapper and a file writer that
 * count their calls.  Each test names the rule it proves.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "batch_prep.h"
#include "prep_throttle.h"
#include "threshold.h"

/* ---- the fakes -------------------------------------------------------- */

struct fake {
	/* The store. */
	tp_identity_source source; /* the key the identity rule picks */
	size_t app_runs;
	int64_t newest_mtime_s;
	tp_status totals_rc;  /* TP_OK, TP_ERR_NOTFOUND, an error */
	uint32_t ranks;       /* the profile's */
	uint64_t recorded_by; /* 0: imported */
	bool io;              /* the totals hold I/O to pace */
	bool scale_allowed;   /* the scale rule allows this job */
	tp_status read_rc;    /* reading the matrix */
	bool write_ok;        /* the job's files could be written */
	/* What was asked. */
	int identity_calls, totals_calls, scaled_calls, read_calls;
	int remap_calls, write_calls;
	tp_remap_search remap_search; /* what the last remap was given */
	const tp_logger *remap_log;
	bool wrote_map, wrote_io;
	char log[8192]; /* every log line, one a line */
};

static struct fake *fake_of(void *ctx)
{
	return ctx;
}

static tp_status fake_identity(void *ctx, const char *user,
                               const tp_identity_profile *profile,
                               const char *script_key, tp_identity_key *key,
                               tp_error *err)
{
	struct fake *f = fake_of(ctx);

	f->identity_calls++;
	memset(key, 0, sizeof(*key));
	key->source = f->source;
	key->name =
	    f->source == TP_IDENTITY_SCRIPT ? script_key : profile->name;
	key->app_runs = f->app_runs;
	key->newest_mtime_s = f->newest_mtime_s;
	snprintf(key->why, sizeof(key->why), "fake");
	return TP_OK;
}

static tp_status fake_totals(void *ctx, const char *user, const char *name,
                             uint32_t tasks, tp_profile_summary *totals,
                             bool *from_summary, tp_batch_prep_stored_run *run,
                             tp_error *err)
{
	struct fake *f = fake_of(ctx);

	f->totals_calls++;
	if (f->totals_rc != TP_OK)
		return tp_error_set(err, f->totals_rc, "%s/%s: bad signature",
		                    user, name);
	memset(totals, 0, sizeof(*totals));
	totals->ranks = f->ranks;
	totals->job_id = f->recorded_by;
	totals->duration_us = 1000000;
	if (f->io) {
		totals->io_requests = 1000;
		totals->io_clients = 4;
		totals->io_request_bytes = 1 << 20;
	}
	*from_summary = true;
	snprintf(run->file, sizeof(run->file), "1.tpp");
	run->over_newest = false;
	return TP_OK;
}

static tp_profile *profile_of(uint32_t ranks)
{
	tp_profile_header header = {.app = "app", .ranks = ranks};
	tp_profile *profile = NULL;
	tp_error err;

	assert_int_equal(tp_profile_new(&header, &profile, &err), TP_OK);
	return profile;
}

static tp_status fake_scaled(void *ctx, const char *user, const char *name,
                             uint32_t tasks, tp_profile **scaled, char *text,
                             size_t text_size, tp_error *err)
{
	struct fake *f = fake_of(ctx);

	f->scaled_calls++;
	*scaled = NULL;
	if (!f->scale_allowed) {
		snprintf(text, text_size, "not scaled: one size seen");
		return TP_OK;
	}
	snprintf(text, text_size,
	         "remapped from a %u-rank profile scaled to "
	         "%u ranks",
	         f->ranks, tasks);
	*scaled = profile_of(tasks);
	return TP_OK;
}

static tp_status fake_read_profile(void *ctx, const char *user,
                                   const char *name, const char *file,
                                   tp_profile **profile, tp_error *err)
{
	struct fake *f = fake_of(ctx);

	f->read_calls++;
	assert_string_equal(file, "1.tpp"); /* the run the totals came from */
	if (f->read_rc != TP_OK)
		return tp_error_set(err, f->read_rc, "%s: truncated", file);
	*profile = profile_of(f->ranks);
	return TP_OK;
}

static bool fake_io_pattern(const tp_profile_summary *totals,
                            const tp_jobclass_thresholds *thresholds,
                            tp_io_pattern *pattern)
{
	if (!totals->io_requests)
		return false;
	memset(pattern, 0, sizeof(*pattern));
	pattern->request_bytes = totals->io_request_bytes;
	pattern->clients = totals->io_clients;
	pattern->requests_per_client = totals->io_requests / totals->io_clients;
	pattern->mean_interval_us = 4000; /* 250 requests in 1 s */
	pattern->job_class = "io_heavy";
	return true;
}

static tp_status fake_load_topo(void *ctx, tp_topo **topo, tp_error *err)
{
	return tp_topo_new_fattree(topo, 1, 4, 4, err);
}

static tp_status fake_remap(const tp_topo *topo, const tp_profile *profile,
                            const char *nodes, uint64_t seed,
                            tp_remap_search search, const tp_logger *log,
                            tp_remap_mapping *map, tp_remap_stats *stats,
                            tp_error *err)
{
	uint32_t ranks = profile->header.ranks;

	map->ranks = ranks;
	map->rank_host = calloc(ranks, sizeof(*map->rank_host));
	map->rank_slot = calloc(ranks, sizeof(*map->rank_slot));
	assert_non_null(map->rank_host);
	assert_non_null(map->rank_slot);
	for (uint32_t r = 0; r < ranks; r++)
		map->rank_host[r] = r % 4;
	memset(stats, 0, sizeof(*stats));
	stats->chosen = "partition";
	stats->hop_bytes = 10;
	stats->block_hop_bytes = 20;
	return TP_OK;
}

static tp_status fake_ioservers_place(const tp_topo *topo, const char *nodes,
                                      uint32_t servers,
                                      tp_ioserver_policy policy,
                                      uint32_t job_id,
                                      tp_ioserver_result *result, tp_error *err)
{
	memset(result, 0, sizeof(*result));
	result->servers = calloc(servers, sizeof(*result->servers));
	assert_non_null(result->servers);
	result->server_count = servers;
	snprintf(result->reason, sizeof(result->reason), "spread");
	return TP_OK;
}

static tp_status fake_ioservers_format(const tp_topo *topo,
                                       const tp_ioserver_result *result,
                                       char sep, char *out, size_t size,
                                       tp_error *err)
{
	snprintf(out, size, "n1%cn2", sep);
	return TP_OK;
}

static bool fake_write_files(void *ctx, const tp_topo *topo,
                             const tp_remap_mapping *map,
                             const tp_ioserver_result *io, char *dir,
                             size_t dir_size)
{
	struct fake *f = fake_of(ctx);

	f->write_calls++;
	f->wrote_map = map != NULL;
	f->wrote_io = io != NULL;
	snprintf(dir, dir_size, "/tmp/topoplace/7");
	return f->write_ok;
}

/* Counts remapper calls through the fake remapper's wrapper. */
static struct fake *remap_counter;
static tp_status counting_remap(const tp_topo *topo, const tp_profile *profile,
                                const char *nodes, uint64_t seed,
                                tp_remap_search search, const tp_logger *log,
                                tp_remap_mapping *map, tp_remap_stats *stats,
                                tp_error *err)
{
	remap_counter->remap_calls++;
	remap_counter->remap_search = search;
	remap_counter->remap_log = log;
	return fake_remap(topo, profile, nodes, seed, search, log, map, stats,
	                  err);
}

static void capture_log(void *data, tp_log_level level, const char *message)
{
	struct fake *f = data;
	size_t used = strlen(f->log);

	snprintf(f->log + used, sizeof(f->log) - used, "%s\n", message);
}

static tp_batch_prep_ports ports_of(struct fake *f)
{
	tp_batch_prep_ports p = {
	    .ctx = f,
	    .identity = fake_identity,
	    .totals = fake_totals,
	    .scaled = fake_scaled,
	    .read_profile = fake_read_profile,
	    .io_pattern = fake_io_pattern,
	    .load_topo = fake_load_topo,
	    .remap = counting_remap,
	    .ioservers_place = fake_ioservers_place,
	    .ioservers_format = fake_ioservers_format,
	    .write_files = fake_write_files,
	};
	remap_counter = f;
	return p;
}

/* ---- a job ------------------------------------------------------------ */

struct setup {
	tp_config *config;
	struct fake fake;
	tp_batch_prep_job job;
	tp_batch_prep prep;
	tp_logger log;
};

static struct setup *setup_new(const char *conf)
{
	struct setup *s = calloc(1, sizeof(*s));
	tp_error err;

	assert_non_null(s);
	assert_int_equal(
	    tp_config_parse(conf, strlen(conf), "t.conf", &s->config, &err),
	    TP_OK);
	s->fake = (struct fake){.source = TP_IDENTITY_JOB_NAME,
	                        .app_runs = 1,
	                        .totals_rc = TP_OK,
	                        .ranks = 16,
	                        .recorded_by = 5,
	                        .read_rc = TP_OK,
	                        .write_ok = true};
	s->job = (tp_batch_prep_job){
	    .job_id = 7,
	    .user = "alice",
	    .ntasks = 16,
	    .nodes = "h[1-4]",
	    .job_name = "stencil",
	    .comm_profile = "",
	    .rank_remap = true,
	    .config = s->config,
	    .settings = tp_config_defaults(s->config),
	    .pacing_lib = "/lib/libtopoplace_pacing.so",
	    .now_s = 1000000,
	};
	s->log = (tp_logger){.sink = capture_log,
	                     .sink_data = &s->fake,
	                     .max_level = TP_LOG_DEBUG};
	tp_batch_prep_init(&s->prep);
	return s;
}

static void setup_free(struct setup *s)
{
	tp_batch_prep_free(&s->prep);
	tp_config_free(s->config);
	free(s);
}

static void run(struct setup *s)
{
	tp_batch_prep_ports ports = ports_of(&s->fake);

	tp_batch_prep_run(&s->job, &ports, &s->log, &s->prep);
	assert_false(s->prep.out_of_memory);
}

/* The notes joined as the job's stderr shows them. */
static const char *notes_of(const tp_batch_prep *prep)
{
	static char all[4096];

	all[0] = '\0';
	for (size_t i = 0; i < prep->note_count; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
		         i ? "; " : "", prep->notes[i]);
	return all;
}

/* ---- the remapping rule ----------------------------------------------- */

static void test_equal_task_count_is_remapped_from_the_matrix(void **state)
{
	struct setup *s = setup_new("");

	run(s);
	assert_int_equal(s->fake.read_calls, 1);
	assert_int_equal(s->fake.scaled_calls, 0);
	assert_int_equal(s->fake.remap_calls, 1);
	assert_int_equal(s->fake.write_calls, 1);
	assert_true(s->fake.wrote_map);
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKFILE"),
	    "/tmp/topoplace/7/rankfile");
	assert_string_equal(tp_batch_prep_var_get(&s->prep, "SLURM_HOSTFILE"),
	                    "/tmp/topoplace/7/hostfile");
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "SLURM_DISTRIBUTION"), "arbitrary");
	assert_string_equal(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKS"),
	                    "16");
	assert_non_null(strstr(s->fake.log,
	                       "JobId=7: profile alice/stencil: 16 ranks on "
	                       "h[1-4] remapped (partition): hop-bytes 10 "
	                       "(block order: 20) -> /tmp/topoplace/7\n"));
	assert_int_equal(s->prep.note_count, 0);
	setup_free(s);
}

/*
 * The remapper gets the partition's RemapSearch (auto by default) and the
 * job's logger, so a candidate that fails in slurmd's child is logged.
 */
static void test_remap_gets_the_partitions_search_and_the_log(void **state)
{
	static const struct {
		const char *conf, *partition;
		tp_remap_search search;
	} cases[] = {
	    {"", NULL, TP_REMAP_SEARCH_AUTO},
	    {"RemapSearch=fast\n", NULL, TP_REMAP_SEARCH_FAST},
	    {"RemapSearch=fast\nPartitionName=big RemapSearch=full\n", "big",
	     TP_REMAP_SEARCH_FULL},
	    {"PartitionName=big RemapSearch=fast\n", "small",
	     TP_REMAP_SEARCH_AUTO},
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct setup *s = setup_new(cases[c].conf);

		if (cases[c].partition)
			s->job.settings = tp_config_for_partition(
			    s->config, cases[c].partition);
		s->fake.remap_search = (tp_remap_search)99;
		run(s);
		assert_int_equal(s->fake.remap_calls, 1);
		assert_int_equal(s->fake.remap_search, cases[c].search);
		assert_ptr_equal(s->fake.remap_log, &s->log);
		setup_free(s);
	}
}

static void test_other_task_count_keeps_slurm_layout_and_says_why(void **state)
{
	struct setup *s = setup_new("");

	s->job.ntasks = 12;
	run(s);
	/* The matrix is read only to remap. */
	assert_int_equal(s->fake.read_calls, 0);
	assert_int_equal(s->fake.scaled_calls, 1);
	assert_int_equal(s->fake.remap_calls, 0);
	assert_int_equal(s->fake.write_calls, 0);
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKFILE"));
	assert_null(tp_batch_prep_var_get(&s->prep, "SLURM_HOSTFILE"));
	assert_string_equal(notes_of(&s->prep),
	                    "profile alice/stencil has 16 ranks but the job "
	                    "has 12 tasks: ranks not remapped, Slurm's task "
	                    "layout kept (not scaled: one size seen)");
	setup_free(s);
}

static void test_no_task_count_keeps_slurm_layout_without_scaling(void **state)
{
	struct setup *s = setup_new("");

	s->job.ntasks = 0;
	run(s);
	assert_int_equal(s->fake.scaled_calls, 0); /* nothing to scale to */
	assert_int_equal(s->fake.read_calls, 0);
	assert_int_equal(s->fake.remap_calls, 0);
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKFILE"));
	assert_string_equal(notes_of(&s->prep),
	                    "profile alice/stencil has 16 ranks but the job "
	                    "gave no task count (-n): ranks not remapped, "
	                    "Slurm's task layout kept");
	setup_free(s);
}

static void test_scaled_profile_is_remapped_onto_the_jobs_count(void **state)
{
	struct setup *s = setup_new("");

	s->job.ntasks = 32;
	s->fake.scale_allowed = true;
	run(s);
	assert_int_equal(s->fake.scaled_calls, 1);
	assert_int_equal(s->fake.read_calls, 0); /* the scaled one is used */
	assert_int_equal(s->fake.remap_calls, 1);
	assert_string_equal(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKS"),
	                    "32");
	assert_string_equal(notes_of(&s->prep),
	                    "profile alice/stencil: ranks remapped from a "
	                    "16-rank profile scaled to 32 ranks");
	setup_free(s);
}

static void test_rank_remap_off_reads_no_matrix(void **state)
{
	struct setup *s = setup_new("");

	s->job.rank_remap = false;
	run(s);
	assert_int_equal(s->fake.totals_calls, 1); /* for the throttle */
	assert_int_equal(s->fake.read_calls, 0);
	assert_int_equal(s->fake.remap_calls, 0);
	assert_int_equal(s->fake.write_calls, 0);
	setup_free(s);
}

static void test_profile_error_is_a_note_and_no_remapping(void **state)
{
	struct setup *s = setup_new("");

	s->fake.totals_rc = TP_ERR_AUTH;
	run(s);
	assert_int_equal(s->fake.read_calls, 0);
	assert_int_equal(s->fake.remap_calls, 0);
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKFILE"));
	assert_string_equal(notes_of(&s->prep),
	                    "profile alice/stencil not used (alice/stencil: "
	                    "bad signature): no rank remapping or I/O "
	                    "throttling from it");
	setup_free(s);
}

static void test_unreadable_matrix_is_a_note_and_no_remapping(void **state)
{
	struct setup *s = setup_new("");

	s->fake.read_rc = TP_ERR_PARSE;
	run(s);
	assert_int_equal(s->fake.remap_calls, 0);
	assert_int_equal(s->fake.write_calls, 0);
	assert_string_equal(notes_of(&s->prep),
	                    "profile alice/stencil not used for the rank "
	                    "remapping (1.tpp: truncated): Slurm's task layout "
	                    "kept");
	setup_free(s);
}

static void test_missing_profile_is_no_note(void **state)
{
	struct setup *s = setup_new("");

	s->fake.totals_rc = TP_ERR_NOTFOUND;
	run(s);
	assert_int_equal(s->prep.note_count, 0);
	assert_int_equal(s->fake.write_calls, 0);
	setup_free(s);
}

/* ---- the files -------------------------------------------------------- */

static void test_unwritten_files_set_no_rank_variables(void **state)
{
	struct setup *s = setup_new("");

	s->fake.write_ok = false;
	s->job.io_servers = 2;
	run(s);
	assert_int_equal(s->fake.remap_calls, 1);
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKFILE"));
	assert_null(tp_batch_prep_var_get(&s->prep, "SLURM_DISTRIBUTION"));
	assert_null(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_SERVER_FILE"));
	/* The server list is usable without its file. */
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_SERVER_HOSTS"),
	    "n1,n2");
	setup_free(s);
}

static void test_io_servers_without_profile_write_their_file(void **state)
{
	struct setup *s = setup_new("");

	s->job.job_name = NULL; /* nothing to look up */
	s->job.io_servers = 2;
	assert_true(tp_batch_prep_needs_work(&s->job));
	run(s);
	assert_int_equal(s->fake.identity_calls, 0);
	assert_int_equal(s->fake.write_calls, 1);
	assert_false(s->fake.wrote_map);
	assert_true(s->fake.wrote_io);
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_SERVER_FILE"),
	    "/tmp/topoplace/7/ioservers");
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_RANKFILE"));
	setup_free(s);
}

static void test_no_profile_and_no_servers_needs_no_work(void **state)
{
	struct setup *s = setup_new("");

	s->job.job_name = NULL;
	assert_false(tp_batch_prep_needs_work(&s->job));
	s->job.io_servers = 2;
	s->job.nodes = NULL; /* servers need the nodes */
	assert_false(tp_batch_prep_needs_work(&s->job));
	s->job.job_name = "stencil";
	assert_true(tp_batch_prep_needs_work(&s->job));
	setup_free(s);
}

/* ---- which profile, and what the job is told -------------------------- */

static void test_comm_profile_wins_over_the_job_name(void **state)
{
	struct setup *s = setup_new("");
	tp_identity_profile p;

	s->job.comm_profile = "lulesh";
	p = tp_batch_prep_identity(&s->job);
	assert_string_equal(p.name, "lulesh");
	assert_true(p.named);
	s->job.comm_profile = "";
	p = tp_batch_prep_identity(&s->job);
	assert_string_equal(p.name, "stencil");
	assert_false(p.named);
	setup_free(s);
}

static void test_script_key_goes_to_the_environment(void **state)
{
	struct setup *s = setup_new("");
	const char *key;

	s->job.script = "#!/bin/sh\nsrun ./a.out\n";
	s->job.script_len = strlen(s->job.script);
	run(s);
	key = tp_batch_prep_var_get(&s->prep, "TOPOPLACE_PROFILE_SCRIPT_KEY");
	assert_non_null(key);
	assert_true(tp_identity_is_script_key(key));
	/* --comm-profile names the profile: no script key then. */
	tp_batch_prep_free(&s->prep);
	s->job.comm_profile = "stencil";
	run(s);
	assert_null(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_PROFILE_SCRIPT_KEY"));
	setup_free(s);
}

static void test_profile_by_script_hash_is_told(void **state)
{
	struct setup *s = setup_new("");
	char expected[256];
	const char *key;

	s->job.script = "#!/bin/sh\nsrun ./a.out\n";
	s->job.script_len = strlen(s->job.script);
	s->fake.source = TP_IDENTITY_SCRIPT;
	run(s);
	key = tp_batch_prep_var_get(&s->prep, "TOPOPLACE_PROFILE_SCRIPT_KEY");
	assert_non_null(key);
	snprintf(expected, sizeof(expected),
	         "profile alice/%s by script hash (%s), recorded by JobId=5",
	         key, key);
	assert_string_equal(notes_of(&s->prep), expected);
	setup_free(s);
}

static void test_job_name_profile_of_a_new_script_is_told(void **state)
{
	struct setup *s = setup_new("");

	s->job.script = "#!/bin/sh\nsrun ./b.out\n";
	s->job.script_len = strlen(s->job.script);
	run(s);
	assert_string_equal(notes_of(&s->prep),
	                    "profile alice/stencil by job name, recorded by "
	                    "JobId=5 (this batch script never ran before)");
	setup_free(s);
}

/* ---- throttle ---------------------------------------------------------- */

/* A threshold table with one entry: 1 MiB requests from 4 clients
 * congest below one request per @threshold_us per client. */
static void table_file(char *path, size_t size, unsigned threshold_us)
{
	FILE *f;
	int fd;

	snprintf(path, size, "/tmp/test_batch_prep.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "%s\n%s\n1048576,4,%u,1,1\n", TP_THRESHOLD_MAGIC,
	        TP_THRESHOLD_HEADER, threshold_us);
	fclose(f);
}

static void test_profile_io_gives_a_window_and_the_pacing_library(void **state)
{
	char table[64], conf[256];
	struct setup *s;

	table_file(table, sizeof(table), 10000);
	snprintf(conf, sizeof(conf),
	         "ThrottleMode=preload\nThrottleClasses=*\n"
	         "ThresholdTable=%s\n",
	         table);
	s = setup_new(conf);
	s->job.settings = tp_config_defaults(s->config);
	s->fake.io = true; /* one request per 4 ms per client */
	run(s);
	unlink(table);
	/* The window keeps each client at the table's threshold. */
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_WINDOW_US"), "10000");
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_PACING_LIB"),
	    "/lib/libtopoplace_pacing.so");
	assert_non_null(
	    strstr(s->fake.log, "JobId=7: I/O throttle window 10000 us: "));
	/* The user's own window is not changed: nothing to tell. */
	assert_int_equal(s->prep.note_count, 0);
	setup_free(s);
}

static void test_unreadable_threshold_table_gives_no_window(void **state)
{
	struct setup *s = setup_new("ThrottleMode=preload\nThrottleClasses=*\n"
	                            "ThresholdTable=/nonexistent/t.csv\n");

	s->job.settings = tp_config_defaults(s->config);
	s->fake.io = true;
	run(s);
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_WINDOW_US"));
	assert_non_null(strstr(s->fake.log, ": no automatic throttling\n"));
	setup_free(s);
}

static void test_user_window_is_clamped_and_the_job_told(void **state)
{
	struct setup *s = setup_new("ThrottleMode=preload\n"
	                            "ThrottleMaxWindow=2ms\n");

	s->job.settings = tp_config_defaults(s->config);
	s->job.io_throttle = (tp_throttle_request){.mode = TP_THROTTLE_FIXED,
	                                           .window_us = 10000};
	tp_batch_prep_throttle(&s->job, &s->log, &s->prep);
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_WINDOW_US"), "2000");
	assert_int_equal(s->prep.note_count, 1);
	assert_true(!strncmp(s->prep.notes[0], "--io-throttle: ", 15));
	setup_free(s);
}

static void test_throttle_mode_off_gives_no_window(void **state)
{
	struct setup *s = setup_new("ThrottleMode=off\n");

	s->job.settings = tp_config_defaults(s->config);
	s->job.io_throttle =
	    (tp_throttle_request){.mode = TP_THROTTLE_FIXED, .window_us = 2000};
	tp_batch_prep_throttle(&s->job, &s->log, &s->prep);
	assert_null(tp_batch_prep_var_get(&s->prep, "TOPOPLACE_IO_WINDOW_US"));
	assert_non_null(strstr(s->fake.log, "JobId=7: --io-throttle ignored: "
	                                    "ThrottleMode=off"));
	setup_free(s);
}

static void test_no_io_and_no_user_window_is_not_throttled(void **state)
{
	struct setup *s = setup_new("ThrottleMode=preload\n"
	                            "ThrottleClasses=*\n");
	tp_prep_throttle_who who = {
	    .who = "StepId=7.0", .loud = true, .dbg = true, .log = &s->log};
	tp_throttle_request request = {.mode = TP_THROTTLE_AUTO};
	uint64_t window_us = 0;
	char reason[256];

	assert_false(tp_prep_throttle_decide(
	    &who, tp_config_defaults(s->config), NULL, &request, &window_us,
	    reason, sizeof(reason)));
	assert_non_null(strstr(s->fake.log,
	                       "Throttle: StepId=7.0: no I/O in a profile and "
	                       "no --io-throttle window: not throttled"));
	assert_false(tp_prep_throttle_user_window_changed(&request, 0));
	setup_free(s);
}

/* ---- the site's recording --------------------------------------------- */

static void test_first_run_of_an_application_is_recorded(void **state)
{
	struct setup *s = setup_new("ProfileRecord=first\n");

	s->job.settings = tp_config_defaults(s->config);
	s->fake.totals_rc = TP_ERR_NOTFOUND;
	s->fake.app_runs = 0;
	run(s);
	assert_string_equal(
	    tp_batch_prep_var_get(&s->prep, TP_BATCH_PREP_RECORD_VAR),
	    "stencil");
	assert_true(!strncmp(notes_of(&s->prep),
	                     "this job's MPI steps are recorded as profile "
	                     "alice/stencil: ",
	                     60));
	setup_free(s);
}

static void test_application_with_runs_is_not_recorded_again(void **state)
{
	struct setup *s = setup_new("ProfileRecord=first\n");

	s->job.settings = tp_config_defaults(s->config);
	s->fake.app_runs = 2;
	s->fake.newest_mtime_s = s->job.now_s - 10;
	run(s);
	assert_null(tp_batch_prep_var_get(&s->prep, TP_BATCH_PREP_RECORD_VAR));
	/* --comm-record is the step's, never the site's decision. */
	tp_batch_prep_free(&s->prep);
	s->fake.app_runs = 0;
	s->job.comm_record = true;
	run(s);
	assert_null(tp_batch_prep_var_get(&s->prep, TP_BATCH_PREP_RECORD_VAR));
	setup_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_equal_task_count_is_remapped_from_the_matrix),
	    cmocka_unit_test(test_remap_gets_the_partitions_search_and_the_log),
	    cmocka_unit_test(
	        test_other_task_count_keeps_slurm_layout_and_says_why),
	    cmocka_unit_test(
	        test_no_task_count_keeps_slurm_layout_without_scaling),
	    cmocka_unit_test(
	        test_scaled_profile_is_remapped_onto_the_jobs_count),
	    cmocka_unit_test(test_rank_remap_off_reads_no_matrix),
	    cmocka_unit_test(test_profile_error_is_a_note_and_no_remapping),
	    cmocka_unit_test(test_unreadable_matrix_is_a_note_and_no_remapping),
	    cmocka_unit_test(test_missing_profile_is_no_note),
	    cmocka_unit_test(test_unwritten_files_set_no_rank_variables),
	    cmocka_unit_test(test_io_servers_without_profile_write_their_file),
	    cmocka_unit_test(test_no_profile_and_no_servers_needs_no_work),
	    cmocka_unit_test(test_comm_profile_wins_over_the_job_name),
	    cmocka_unit_test(test_script_key_goes_to_the_environment),
	    cmocka_unit_test(test_profile_by_script_hash_is_told),
	    cmocka_unit_test(test_job_name_profile_of_a_new_script_is_told),
	    cmocka_unit_test(
	        test_profile_io_gives_a_window_and_the_pacing_library),
	    cmocka_unit_test(test_unreadable_threshold_table_gives_no_window),
	    cmocka_unit_test(test_user_window_is_clamped_and_the_job_told),
	    cmocka_unit_test(test_throttle_mode_off_gives_no_window),
	    cmocka_unit_test(test_no_io_and_no_user_window_is_not_throttled),
	    cmocka_unit_test(test_first_run_of_an_application_is_recorded),
	    cmocka_unit_test(test_application_with_runs_is_not_recorded_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
