/*
 * test_quiet.c: tp_quiet (common/tp_quiet.h) keeps prints off stdout and
 * loses none of the caller's own; the remapper runs quiet, so METIS's
 * "***Cannot bisect a graph with 0 vertices!" on scattered hosts never
 * reaches the caller's stdout (the JSON of `topoplace remap --json`, a
 * job's output under srun).
 */
#include "tp_config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "remap.h"
#include "test_grid2d.h"
#include "topo.h"
#include "tp_quiet.h"
#include "traffic.h"

/* The test's own view of stdout: descriptor 1 on a temporary file. */
struct capture {
	char path[64];
	int saved_fd;
};

static void capture_begin(struct capture *c)
{
	int fd;

	strcpy(c->path, "/tmp/test_quiet.XXXXXX");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	assert_int_equal(fflush(stdout), 0);
	c->saved_fd = dup(STDOUT_FILENO);
	assert_true(c->saved_fd >= 0);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0);
	close(fd);
}

/* What reached descriptor 1 since capture_begin (a string to free()). */
static char *capture_end(struct capture *c)
{
	FILE *f;
	char *text = calloc(1, 65536);
	size_t len;

	assert_non_null(text);
	fflush(stdout);
	assert_true(dup2(c->saved_fd, STDOUT_FILENO) >= 0);
	close(c->saved_fd);
	f = fopen(c->path, "r");
	assert_non_null(f);
	len = fread(text, 1, 65535, f);
	text[len] = '\0';
	fclose(f);
	unlink(c->path);
	return text;
}

static void test_prints_between_are_dropped_the_callers_kept(void **state)
{
	struct capture c;
	tp_quiet q;
	char *out;

	(void)state;
	capture_begin(&c);
	printf("before\n"); /* still in stdout's buffer: must go out first */
	tp_quiet_stdout_begin(&q);
	assert_true(q.saved_fd >= 0);
	printf("\t***Cannot bisect a graph with 0 vertices!\n");
	tp_quiet_stdout_end(&q);
	assert_int_equal(q.saved_fd, -1);
	printf("after\n");
	out = capture_end(&c);
	assert_string_equal(out, "before\nafter\n");
	free(out);
}

static void test_closed_stdout_is_left_alone(void **state)
{
	int saved = dup(STDOUT_FILENO);
	tp_quiet q;

	(void)state;
	assert_true(saved >= 0);
	fflush(stdout);
	close(STDOUT_FILENO);
	tp_quiet_stdout_begin(&q);
	assert_int_equal(q.saved_fd, -1);
	/* descriptor 1 not reopened behind the caller's back */
	assert_int_equal(fcntl(STDOUT_FILENO, F_GETFD), -1);
	tp_quiet_stdout_end(&q);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
}

/*
 * A 40-rank grid at one rank per host on one pod of 8 leaves of 18 hosts,
 * the job's hosts 14, 13 and 9 on three leaves and 1 on each of four more:
 * METIS prints there (the first seed already; `topoplace remap` before
 * tp_quiet printed its two lines ahead of the JSON).  Every search, seeds
 * 1-8: nothing on stdout, every rank on its own host.
 */
static void test_remapper_prints_nothing_on_scattered_hosts(void **state)
{
	static const uint32_t leaf_hosts[7] = {14, 13, 9, 1, 1, 1, 1};
	static const tp_remap_search searches[3] = {
	    TP_REMAP_SEARCH_AUTO, TP_REMAP_SEARCH_FULL, TP_REMAP_SEARCH_FAST};
	tp_remap_host hosts[40];
	tp_topo *topo;
	tp_traffic *t = grid2d(8, 5, 1000);
	tp_error err;
	uint32_t nh = 0;

	(void)state;
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 8, 18, &err), TP_OK);
	for (uint32_t l = 0; l < 7; l++)
		for (uint32_t h = 0; h < leaf_hosts[l]; h++)
			hosts[nh++] = (tp_remap_host){l * 18 + h, 1};
	assert_int_equal(nh, 40);
	for (int s = 0; s < 3; s++)
		for (uint64_t seed = 1; seed <= 8; seed++) {
			tp_remap_mapping m = {0};
			struct capture c;
			uint32_t used[8 * 18] = {0};
			char *out;

			capture_begin(&c);
			assert_int_equal(tp_remap_compute_search(
			                     topo, t, hosts, nh, seed,
			                     searches[s], NULL, &m, NULL, &err),
			                 TP_OK);
			out = capture_end(&c);
			assert_string_equal(out, "");
			free(out);
			for (uint32_t r = 0; r < 40; r++)
				assert_int_equal(used[m.rank_host[r]]++, 0);
			tp_remap_mapping_free(&m);
		}
	tp_traffic_free(t);
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prints_between_are_dropped_the_callers_kept),
	    cmocka_unit_test(test_closed_stdout_is_left_alone),
	    cmocka_unit_test(test_remapper_prints_nothing_on_scattered_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
