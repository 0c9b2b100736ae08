/*
 * test_slurm_decision.c: the plugins' Slurm-free pieces for restarts and
 * interactive jobs.  A bad topoplace.conf is replaced by what can be kept,
 * by one table (the select plugin's decision as text in SystemComment is
 * tested with its owner, test_sched_state.c).  The rank files of a job go
 * only into a private directory of the caller, and the removal of a job
 * directory touches nothing else; the job epilog's sweep
 * of TmpFS takes only srun's directories of the job and reads a bounded
 * number of entries.  The I/O pattern a throttle window is decided from is
 * per client, classified, and absent without I/O.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp_slurm_core.h"

/* What slurmctld uses when topoplace.conf is bad (tp_slurm_core.h). */
static void test_bad_conf_keeps_what_it_can(void **state)
{
	(void)state;
	/* Does not load: nothing at start, nor on a plain reconfigure
	 * (the previous one stays); the saved copy after a re-exec. */
	assert_int_equal(tp_sc_conf_on_error(false, true, false),
	                 TP_SC_CONF_NONE);
	assert_int_equal(tp_sc_conf_on_error(false, false, false),
	                 TP_SC_CONF_NONE);
	assert_int_equal(tp_sc_conf_on_error(false, false, true),
	                 TP_SC_CONF_LAST_GOOD);
	/* Loads, a file it names does not: used at start only. */
	assert_int_equal(tp_sc_conf_on_error(true, true, false),
	                 TP_SC_CONF_USE);
	assert_int_equal(tp_sc_conf_on_error(true, false, false),
	                 TP_SC_CONF_NONE);
	assert_int_equal(tp_sc_conf_on_error(true, false, true),
	                 TP_SC_CONF_LAST_GOOD);
}

/* A 4-rank mapping on the first two hosts of a 1x2x2 fat tree. */
typedef struct fixture {
	char root[64];
	char dir[128];
	tp_topo *topo;
	tp_remap_mapping map;
} fixture;

static int setup(void **state)
{
	static uint32_t host[] = {0, 1, 1, 0}, slot[] = {0, 0, 1, 1};
	fixture *f = calloc(1, sizeof(*f));
	tp_error err;

	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "/tmp/tp-decision.XXXXXX");
	if (!mkdtemp(f->root) ||
	    tp_topo_new_fattree(&f->topo, 1, 2, 2, &err) != TP_OK) {
		free(f);
		return -1;
	}
	snprintf(f->dir, sizeof(f->dir), "%s/job.9", f->root);
	f->map.ranks = 4;
	f->map.rank_host = host;
	f->map.rank_slot = slot;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd) != 0)
		return -1;
	tp_topo_free(f->topo);
	free(f);
	return 0;
}

static int exists(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_rank_files_go_into_a_new_private_dir(void **state)
{
	fixture *f = *state;
	struct stat st;
	tp_error err;

	assert_int_equal(tp_sc_remap_write(f->dir, f->topo, &f->map, &err),
	                 TP_OK);
	assert_int_equal(stat(f->dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_true(exists(f->dir, TP_SC_RANKFILE));
	assert_true(exists(f->dir, TP_SC_MACHINEFILE));
	assert_true(exists(f->dir, TP_SC_HOSTFILE));
	/* A second step of the job rewrites them in place. */
	assert_int_equal(tp_sc_remap_write(f->dir, f->topo, &f->map, &err),
	                 TP_OK);
}

static void test_rank_files_refuse_a_shared_dir(void **state)
{
	fixture *f = *state;
	tp_error err;

	assert_int_equal(mkdir(f->dir, 0700), 0);
	assert_int_equal(chmod(f->dir, 0750), 0);
	assert_int_equal(tp_sc_remap_write(f->dir, f->topo, &f->map, &err),
	                 TP_ERR_IO);
	assert_non_null(strstr(err.message, f->dir));
	assert_non_null(strstr(err.message, "not a private directory"));
	assert_false(exists(f->dir, TP_SC_RANKFILE));
}

static void test_rank_files_refuse_a_link(void **state)
{
	fixture *f = *state;
	char target[128];
	tp_error err;

	snprintf(target, sizeof(target), "%s/elsewhere", f->root);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, f->dir), 0);
	assert_int_equal(tp_sc_remap_write(f->dir, f->topo, &f->map, &err),
	                 TP_ERR_IO);
	assert_non_null(strstr(err.message, f->dir));
	assert_false(exists(target, TP_SC_RANKFILE));
}

static void touch(const char *dir, const char *name)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
}

static void test_remove_takes_only_the_job_files(void **state)
{
	fixture *f = *state;
	char other[256];
	tp_error err;

	assert_int_equal(tp_sc_remap_write(f->dir, f->topo, &f->map, &err),
	                 TP_OK);
	touch(f->dir, TP_SC_IOSERVERS);
	touch(f->dir, "user-data");
	/* The user's own file stays, and with it the directory. */
	assert_int_equal(tp_sc_job_dir_remove(f->dir), -1);
	assert_false(exists(f->dir, TP_SC_RANKFILE));
	assert_false(exists(f->dir, TP_SC_MACHINEFILE));
	assert_false(exists(f->dir, TP_SC_HOSTFILE));
	assert_false(exists(f->dir, TP_SC_IOSERVERS));
	assert_true(exists(f->dir, "user-data"));
	snprintf(other, sizeof(other), "%s/user-data", f->dir);
	assert_int_equal(unlink(other), 0);
	assert_int_equal(tp_sc_job_dir_remove(f->dir), 0);
	assert_int_equal(access(f->dir, F_OK), -1);
	/* Nothing there: nothing to do. */
	assert_int_equal(tp_sc_job_dir_remove(f->dir), 0);
}

static void make_dir(const char *root, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_int_equal(mkdir(path, 0700), 0);
}

/*
 * The job epilog's sweep of TmpFS: only srun's directories of this job
 * (topoplace.<id>.XXXXXX, exactly six characters after the id) go, and it
 * reads at most the given number of entries, saying when it stopped
 * short.
 */
static void test_sweep_takes_only_this_jobs_srun_dirs(void **state)
{
	fixture *f = *state;
	char path[256];
	unsigned removed = 0;
	bool scanned_all = false;
	FILE *fp;

	make_dir(f->root, "topoplace.9.AbCdEf");
	snprintf(path, sizeof(path), "%s/topoplace.9.AbCdEf/%s", f->root,
	         TP_SC_RANKFILE);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	make_dir(f->root, "topoplace.9.short");
	make_dir(f->root, "topoplace.91.XyZabc");
	make_dir(f->root, "topoplace.10.XyZabc");
	assert_int_equal(tp_sc_job_dirs_sweep(f->root, 9, 1000, &removed,
	                                      &scanned_all),
	                 0);
	assert_int_equal(removed, 1);
	assert_true(scanned_all);
	assert_false(exists(f->root, "topoplace.9.AbCdEf"));
	assert_true(exists(f->root, "topoplace.9.short"));
	assert_true(exists(f->root, "topoplace.91.XyZabc"));
	assert_true(exists(f->root, "topoplace.10.XyZabc"));
}

static void test_sweep_reads_at_most_its_bound(void **state)
{
	fixture *f = *state;
	char name[32];
	unsigned removed = 9;
	bool scanned_all = true;

	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "filler%02d", i);
		make_dir(f->root, name);
	}
	/* 40 fillers, "." and "..": a bound of 42 reads them all. */
	assert_int_equal(tp_sc_job_dirs_sweep(f->root, 9, 42, &removed,
	                                      &scanned_all),
	                 0);
	assert_int_equal(removed, 0);
	assert_true(scanned_all);
	assert_int_equal(tp_sc_job_dirs_sweep(f->root, 9, 41, &removed,
	                                      &scanned_all),
	                 0);
	assert_false(scanned_all);
	assert_int_equal(tp_sc_job_dirs_sweep(f->root, 9, 3, &removed,
	                                      &scanned_all),
	                 0);
	assert_false(scanned_all);
	/* A TmpFS that is not there: nothing to read, nothing to do. */
	assert_int_equal(tp_sc_job_dirs_sweep("/nonexistent/tp-tmpfs", 9, 3,
	                                      &removed, &scanned_all),
	                 0);
	assert_true(scanned_all);
	assert_int_equal(removed, 0);
}

/* A run of 4 ranks, 10 s, each writing 1000 requests of 1 MiB. */
static tp_profile_summary io_run(void)
{
	tp_profile_summary totals;

	memset(&totals, 0, sizeof(totals));
	totals.ranks = 4;
	totals.duration_us = 10000000;
	totals.io_requests = 4000;
	totals.io_clients = 4;
	totals.io_request_bytes = 1u << 20;
	totals.io_write_bytes = 4000ull << 20;
	return totals;
}

static void test_io_pattern_is_per_client_and_classified(void **state)
{
	tp_jobclass_thresholds thresholds;
	tp_profile_summary totals = io_run();
	tp_io_pattern pattern;

	(void)state;
	tp_jobclass_defaults(&thresholds);
	/* 100 MiB/s per client counts as heavy here. */
	thresholds.io_bytes_min = 1u << 20;
	thresholds.io_client_bytes_per_s_min = 1e6;
	thresholds.io_reference_clients = 4;
	assert_true(tp_sc_io_pattern(&totals, &thresholds, &pattern));
	assert_int_equal(pattern.request_bytes, 1u << 20);
	assert_int_equal(pattern.clients, 4);
	assert_int_equal(pattern.requests_per_client, 1000);
	/* 10 s over 1000 requests: one start every 10 ms. */
	assert_true(pattern.mean_interval_us == 10000.0);
	assert_string_equal(pattern.job_class, "io_heavy");

	/* A summary the classifier refuses (no ranks): quiet, not lost. */
	totals.ranks = 0;
	assert_true(tp_sc_io_pattern(&totals, &thresholds, &pattern));
	assert_string_equal(pattern.job_class, "quiet");
	assert_int_equal(pattern.requests_per_client, 1000);
}

static void test_io_pattern_needs_requests_clients_and_time(void **state)
{
	tp_profile_summary totals;
	tp_io_pattern pattern = {.clients = 77};

	(void)state;
	totals = io_run();
	totals.io_requests = 0;
	assert_false(tp_sc_io_pattern(&totals, NULL, &pattern));
	totals = io_run();
	totals.io_clients = 0;
	assert_false(tp_sc_io_pattern(&totals, NULL, &pattern));
	totals = io_run();
	totals.duration_us = 0;
	assert_false(tp_sc_io_pattern(&totals, NULL, &pattern));
	assert_int_equal(pattern.clients, 77);
	/* More clients than requests: no whole request per client. */
	totals = io_run();
	totals.io_requests = 3;
	assert_true(tp_sc_io_pattern(&totals, NULL, &pattern));
	assert_int_equal(pattern.requests_per_client, 0);
	assert_true(pattern.mean_interval_us == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_conf_keeps_what_it_can),
	    cmocka_unit_test_setup_teardown(
	        test_rank_files_go_into_a_new_private_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rank_files_refuse_a_shared_dir,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rank_files_refuse_a_link,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_remove_takes_only_the_job_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_sweep_takes_only_this_jobs_srun_dirs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep_reads_at_most_its_bound,
	                                    setup, teardown),
	    cmocka_unit_test(test_io_pattern_is_per_client_and_classified),
	    cmocka_unit_test(test_io_pattern_needs_requests_clients_and_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
