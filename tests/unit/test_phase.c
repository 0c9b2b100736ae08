/*
 * test_phase.c: the per-client phase rule (throttle/phase.h): ranks of a
 * job spread over the window, the same client always gets the same phase,
 * another job is shifted as a whole, and the values are the ones the
 * pacing library gave before the rule moved out of it.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "phase.h"

#define WINDOW_NS 10000000LL /* 10 ms */
#define MAX_RANKS 256

static int compare_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The widest gap between neighbouring phases of ranks 0..n-1, around the
 * window's end too. */
static long long widest_gap_ns(const char *job, int n)
{
	long long phases[MAX_RANKS], gap;

	for (int r = 0; r < n; r++)
		phases[r] = tp_pacing_phase_ns(job, r, NULL, 0, WINDOW_NS);
	qsort(phases, (size_t)n, sizeof(phases[0]), compare_ll);
	gap = phases[0] + WINDOW_NS - phases[n - 1];
	for (int r = 1; r < n; r++)
		if (phases[r] - phases[r - 1] > gap)
			gap = phases[r] - phases[r - 1];
	return gap;
}

static void test_every_phase_lies_within_the_window(void **state)
{
	(void)state;
	for (long long r = 0; r < 1000; r++) {
		long long phase =
		    tp_pacing_phase_ns("77", r, NULL, 0, WINDOW_NS);

		assert_true(phase >= 0 && phase < WINDOW_NS);
	}
	for (unsigned long long pid = 1; pid < 1000; pid++) {
		long long phase = tp_pacing_phase_ns("77", -1, "n01", pid, 3);

		assert_true(phase >= 0 && phase < 3);
	}
}

static void
test_ranks_of_one_job_leave_no_gap_wider_than_2_7_over_n(void **state)
{
	(void)state;
	for (int n = 2; n <= MAX_RANKS; n++) {
		long long gap = widest_gap_ns("4242", n);

		/* Three-gap theorem: golden-ratio steps leave at most about
		 * phi^2 / n = 2.618 / n of the window between neighbours;
		 * evenly spread would be 1 / n, all in step the whole window.
		 */
		assert_true(gap * n <= WINDOW_NS * 27 / 10);
	}
	/* 64 ranks in step would leave one gap of the whole window. */
	assert_true(widest_gap_ns("4242", 64) < WINDOW_NS / 20);
}

static void test_same_client_gets_the_same_phase(void **state)
{
	(void)state;
	assert_int_equal(tp_pacing_phase_ns("4242", 17, "a", 1, WINDOW_NS),
	                 tp_pacing_phase_ns("4242", 17, "b", 2, WINDOW_NS));
	assert_int_equal(tp_pacing_phase_ns("4242", -1, "n01", 99, WINDOW_NS),
	                 tp_pacing_phase_ns("4242", -1, "n01", 99, WINDOW_NS));
}

static void test_another_job_is_shifted_as_a_whole(void **state)
{
	long long shift_at_0, shift;

	(void)state;
	shift_at_0 = tp_pacing_phase_ns("101", 0, NULL, 0, WINDOW_NS) -
	             tp_pacing_phase_ns("100", 0, NULL, 0, WINDOW_NS);
	assert_true(shift_at_0 != 0);
	for (long long r = 1; r < 64; r++) {
		shift = tp_pacing_phase_ns("101", r, NULL, 0, WINDOW_NS) -
		        tp_pacing_phase_ns("100", r, NULL, 0, WINDOW_NS);
		shift =
		    ((shift - shift_at_0) % WINDOW_NS + WINDOW_NS) % WINDOW_NS;
		/* The same shift modulo the window, to rounding. */
		assert_true(shift <= 1 || shift >= WINDOW_NS - 1);
	}
}

static void test_clients_without_rank_differ_by_host_and_pid(void **state)
{
	long long base = tp_pacing_phase_ns("9", -1, "n01", 100, WINDOW_NS);

	(void)state;
	assert_true(tp_pacing_phase_ns("9", -1, "n01", 101, WINDOW_NS) != base);
	assert_true(tp_pacing_phase_ns("9", -1, "n02", 100, WINDOW_NS) != base);
	assert_true(tp_pacing_phase_ns("8", -1, "n01", 100, WINDOW_NS) != base);
}

static void test_no_window_gives_phase_zero(void **state)
{
	(void)state;
	assert_int_equal(tp_pacing_phase_ns("4242", 3, NULL, 0, 0), 0);
	assert_int_equal(tp_pacing_phase_ns("4242", -1, "h", 1, -5), 0);
}

/* Printed by the pacing library's own client_phase_ns before the rule
 * moved to phase.c (commit 4c2e364, SLURM_JOB_ID=4242 or unset, host "vm"):
 * a client keeps its phase across the move. */
static void test_phases_are_those_the_library_gave_before(void **state)
{
	(void)state;
	assert_int_equal(tp_pacing_phase_ns("4242", 0, NULL, 0, 1000000000),
	                 193308463);
	assert_int_equal(tp_pacing_phase_ns("4242", 1, NULL, 0, 1000000000),
	                 811342452);
	assert_int_equal(tp_pacing_phase_ns("4242", 3, NULL, 0, 1000000000),
	                 47410429);
	assert_int_equal(tp_pacing_phase_ns("4242", 86, NULL, 0, 1000000000),
	                 344231495);
	assert_int_equal(
	    tp_pacing_phase_ns("4242", -1, "vm", 18161, 1000000000), 646750409);
	assert_int_equal(tp_pacing_phase_ns(NULL, 5, NULL, 0, 2000000),
	                 1773681);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_phase_lies_within_the_window),
	    cmocka_unit_test(
	        test_ranks_of_one_job_leave_no_gap_wider_than_2_7_over_n),
	    cmocka_unit_test(test_same_client_gets_the_same_phase),
	    cmocka_unit_test(test_another_job_is_shifted_as_a_whole),
	    cmocka_unit_test(test_clients_without_rank_differ_by_host_and_pid),
	    cmocka_unit_test(test_no_window_gives_phase_zero),
	    cmocka_unit_test(test_phases_are_those_the_library_gave_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
