/*
 * test_quiet.c: tp_quiet (common/tp_quiet.h) keeps prints off stdout and
 * loses none of the caller's own, and holds SIGTERM until its end; the
 * remapper runs quiet, so METIS's "***Cannot bisect a graph with 0
 * vertices!" on scattered hosts never reaches the caller's stdout (the
 * JSON of `topoplace remap --json`, a job's output under srun), and a
 * SIGTERM that comes while METIS runs reaches the caller's handler instead
 * of being swallowed by METIS's trap.
 */
#include "tp_config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cost.h"
#include "remap.h"
#include "test_stencil.h"
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
	tp_quiet_begin(&q);
	assert_true(q.saved_fd >= 0);
	printf("\t***Cannot bisect a graph with 0 vertices!\n");
	tp_quiet_end(&q);
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
	tp_quiet_begin(&q);
	assert_int_equal(q.saved_fd, -1);
	/* descriptor 1 not reopened behind the caller's back */
	assert_int_equal(fcntl(STDOUT_FILENO, F_GETFD), -1);
	tp_quiet_end(&q);
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
	tp_traffic *t = stencil(8, 5, 1, 1000, NULL);
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

/* ---- SIGTERM ------------------------------------------------------------ */

static volatile sig_atomic_t terms_seen;

static void count_term(int sig)
{
	(void)sig;
	terms_seen++;
}

static void send_term(int sig)
{
	(void)sig;
	kill(getpid(), SIGTERM);
}

/* The test's SIGTERM handler in place of the default (which would end the
 * test); *old to put back. */
static void catch_term(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_term;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGTERM, &sa, old), 0);
	terms_seen = 0;
}

static bool term_blocked(void)
{
	sigset_t now;

	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	return sigismember(&now, SIGTERM) == 1;
}

static void test_sigterm_is_held_until_the_end(void **state)
{
	struct sigaction old;
	tp_quiet q;

	(void)state;
	catch_term(&old);
	assert_false(term_blocked());
	tp_quiet_begin(&q);
	assert_true(term_blocked());
	raise(SIGTERM);
	assert_int_equal(terms_seen, 0);
	tp_quiet_end(&q);
	assert_int_equal(terms_seen, 1); /* delivered, not lost */
	assert_false(term_blocked());    /* the caller's mask back */
	assert_int_equal(sigaction(SIGTERM, &old, NULL), 0);
}

/*
 * A 4,096-rank grid at one rank per host on 228 leaves of 18 hosts: a
 * SIGTERM sent 1-16 ms into the search (from a SIGALRM handler, so it
 * comes while METIS runs most of the time) reaches the caller's handler
 * once, after the call, and the mapping is the one computed undisturbed.
 * Before tp_quiet blocked SIGTERM, METIS's trap took it: no handler call,
 * and rank order for the split METIS was in.
 */
static void test_remapper_keeps_a_sigterm_for_the_caller(void **state)
{
	static const long delays_us[4] = {1000, 2000, 5000, 16000};
	enum { LEAVES = 228, GRID = 64, RANKS = GRID * GRID };
	struct sigaction old_term, old_alrm, sa;
	tp_remap_host *hosts = malloc(RANKS * sizeof(*hosts));
	tp_traffic *t = stencil(GRID, GRID, 1, 1000, NULL);
	tp_remap_mapping ref = {0};
	tp_topo *topo;
	tp_error err;

	(void)state;
	assert_non_null(hosts);
	assert_int_equal(tp_topo_new_fattree(&topo, 1, LEAVES, 18, &err),
	                 TP_OK);
	for (uint32_t i = 0; i < RANKS; i++)
		hosts[i] = (tp_remap_host){i, 1};
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, RANKS, 1, NULL, &ref, NULL, &err),
	    TP_OK);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = send_term;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old_alrm), 0);
	catch_term(&old_term);
	for (int d = 0; d < 4; d++) {
		struct itimerval at = {{0, 0}, {0, delays_us[d]}};
		tp_remap_mapping m = {0};

		terms_seen = 0;
		assert_int_equal(setitimer(ITIMER_REAL, &at, NULL), 0);
		assert_int_equal(tp_remap_compute(topo, t, hosts, RANKS, 1,
		                                  NULL, &m, NULL, &err),
		                 TP_OK);
		/* the timer may fire after a fast search: then now */
		while (terms_seen == 0 && getitimer(ITIMER_REAL, &at) == 0 &&
		       (at.it_value.tv_sec || at.it_value.tv_usec))
			pause();
		assert_int_equal(terms_seen, 1);
		assert_memory_equal(m.rank_host, ref.rank_host,
		                    RANKS * sizeof(*m.rank_host));
		tp_remap_mapping_free(&m);
	}
	assert_int_equal(sigaction(SIGALRM, &old_alrm, NULL), 0);
	assert_int_equal(sigaction(SIGTERM, &old_term, NULL), 0);
	tp_remap_mapping_free(&ref);
	tp_traffic_free(t);
	tp_topo_free(topo);
	free(hosts);
}

static void info_term(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)info;
	(void)ctx;
}

/*
 * The caller's own SIGTERM and SIGABRT actions, SA_SIGINFO | SA_RESTART
 * with a mask, are what they were after a remap.  METIS puts handlers back
 * with signal() (System V semantics in this build): without tp_quiet the
 * SIGTERM action came back as SA_RESETHAND | SA_NODEFER without
 * SA_SIGINFO, and the test's one-shot kill above ended the process on the
 * second SIGTERM.
 */
static void test_remapper_leaves_the_callers_signal_actions(void **state)
{
	static const int sigs[2] = {SIGTERM, SIGABRT};
	struct sigaction mine, old[2];
	tp_remap_host hosts[40];
	tp_remap_mapping m = {0};
	tp_traffic *t = stencil(8, 5, 1, 1000, NULL);
	tp_topo *topo;
	tp_error err;

	(void)state;
	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = info_term;
	mine.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&mine.sa_mask);
	sigaddset(&mine.sa_mask, SIGUSR1);
	for (int i = 0; i < 2; i++)
		assert_int_equal(sigaction(sigs[i], &mine, &old[i]), 0);
	assert_int_equal(tp_topo_new_fattree(&topo, 1, 8, 18, &err), TP_OK);
	for (uint32_t i = 0; i < 40; i++) /* 3 leaves: METIS is called */
		hosts[i] = (tp_remap_host){i, 1};
	assert_int_equal(
	    tp_remap_compute(topo, t, hosts, 40, 1, NULL, &m, NULL, &err),
	    TP_OK);
	for (int i = 0; i < 2; i++) {
		struct sigaction now;
		int flags = SA_SIGINFO | SA_RESTART | SA_RESETHAND | SA_NODEFER;

		assert_int_equal(sigaction(sigs[i], &old[i], &now), 0);
		assert_ptr_equal(now.sa_sigaction, info_term);
		assert_int_equal(now.sa_flags & flags, SA_SIGINFO | SA_RESTART);
		assert_int_equal(sigismember(&now.sa_mask, SIGUSR1), 1);
	}
	assert_false(term_blocked());
	tp_remap_mapping_free(&m);
	tp_traffic_free(t);
	tp_topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prints_between_are_dropped_the_callers_kept),
	    cmocka_unit_test(test_closed_stdout_is_left_alone),
	    cmocka_unit_test(test_remapper_prints_nothing_on_scattered_hosts),
	    cmocka_unit_test(test_sigterm_is_held_until_the_end),
	    cmocka_unit_test(test_remapper_keeps_a_sigterm_for_the_caller),
	    cmocka_unit_test(test_remapper_leaves_the_callers_signal_actions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
