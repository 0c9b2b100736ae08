/*
 * test_rankfile.c: the three launcher formats are exact, files are
 * replaced atomically, and bad mappings or unwritable paths give one
 * clear error.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rankfile.h"

/* 5 ranks: n0002 n0002 n0001 n0002 n0003 */
static const uint32_t rank_host[5] = {1, 1, 0, 1, 2};
static const uint32_t rank_slot[5] = {0, 1, 0, 2, 0};

static void check_text(tp_rankfile_format fmt, const char *expected)
{
	tp_topo *topo;
	tp_error err;
	char *text;
	size_t len;

	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_rankfile_format_text(topo, fmt, 5, rank_host,
	                                         rank_slot, &text, &len, &err),
	                 TP_OK);
	assert_string_equal(text, expected);
	assert_int_equal(len, strlen(expected));
	free(text);
	tp_topo_free(topo);
}

static void test_openmpi_rankfile_names_host_and_slot(void **state)
{
	(void)state;
	check_text(TP_RANKFILE_OPENMPI, "rank 0=n0002 slot=0\n"
	                                "rank 1=n0002 slot=1\n"
	                                "rank 2=n0001 slot=0\n"
	                                "rank 3=n0002 slot=2\n"
	                                "rank 4=n0003 slot=0\n");
}

static void test_hydra_machinefile_has_runs_in_rank_order(void **state)
{
	(void)state;
	check_text(TP_RANKFILE_HYDRA, "n0002:2\nn0001:1\nn0002:1\nn0003:1\n");
}

static void test_slurm_hostfile_has_one_host_per_task(void **state)
{
	(void)state;
	check_text(TP_RANKFILE_SLURM, "n0002\nn0002\nn0001\nn0002\nn0003\n");
}

static void test_bad_mappings_are_refused(void **state)
{
	tp_topo *topo;
	tp_error err;
	char *text;
	uint32_t bad[2] = {0, 4};

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_rankfile_format_text(topo, TP_RANKFILE_SLURM, 2,
	                                         bad, NULL, &text, NULL, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message, "rankfile: rank 1 on host index 4, "
	                                 "fabric has 4 hosts");
	assert_int_equal(tp_rankfile_format_text(topo, TP_RANKFILE_OPENMPI, 2,
	                                         rank_host, NULL, &text, NULL,
	                                         &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message,
	                    "rankfile: Open MPI format needs slots");
	assert_int_equal(tp_rankfile_format_text(topo, TP_RANKFILE_SLURM, 0,
	                                         rank_host, NULL, &text, NULL,
	                                         &err),
	                 TP_ERR_INVALID);
	tp_topo_free(topo);
}

static void test_write_replaces_file_atomically(void **state)
{
	char dir[] = "/tmp/test_rankfile.XXXXXX", path[64], buf[256];
	tp_topo *topo;
	tp_error err;
	FILE *f;
	size_t n;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hostfile", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("old content that is longer than the new one\n", f);
	fclose(f);
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_rankfile_write(path, topo, TP_RANKFILE_HYDRA, 5,
	                                   rank_host, NULL, &err),
	                 TP_OK);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "n0002:2\nn0001:1\nn0002:1\nn0003:1\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(unlink(path), 0);
	/* Nothing else was left in the directory. */
	assert_int_equal(rmdir(dir), 0);
	tp_topo_free(topo);
}

static void test_unwritable_directory_is_named(void **state)
{
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 2, 2, &err), TP_OK);
	assert_int_equal(tp_rankfile_write("/nonexistent/dir/rankfile", topo,
	                                   TP_RANKFILE_OPENMPI, 5, rank_host,
	                                   rank_slot, &err),
	                 TP_ERR_IO);
	assert_string_equal(err.message,
	                    "/nonexistent/dir/rankfile: cannot create a "
	                    "temporary file beside it: No such file or "
	                    "directory");
	assert_int_equal(tp_rankfile_write("/tmp/x", topo, TP_RANKFILE_SLURM, 0,
	                                   rank_host, NULL, &err),
	                 TP_ERR_INVALID);
	assert_string_equal(err.message, "/tmp/x: rankfile: 0 ranks");
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_openmpi_rankfile_names_host_and_slot),
	    cmocka_unit_test(test_hydra_machinefile_has_runs_in_rank_order),
	    cmocka_unit_test(test_slurm_hostfile_has_one_host_per_task),
	    cmocka_unit_test(test_bad_mappings_are_refused),
	    cmocka_unit_test(test_write_replaces_file_atomically),
	    cmocka_unit_test(test_unwritable_directory_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
