/*
 * fuzz_sweep.c: libFuzzer target for the throttle readers: the sweep
 * reader (topoplace-sweep(5)), threshold detection on whatever it accepts,
 * and the threshold-table reader (versions 1 to 5: the kind column, the
 * measured curves, the runs of a sweep of several, the median unthrottled
 * interval, each window's mean and spread), and the window decision with
 * each site objective, judged on the worst run and at the default
 * confidence, on whatever table results.  No files, no output, no leaks.
 *
 * Build (see the working agreement):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icommon -Ithrottle
 *     -I<build dir> tests/fuzz/fuzz_sweep.c throttle/csv.c throttle/sweep.c
 *     throttle/threshold.c throttle/window.c common/units.c
 *     common/tp_error.c common/tp_file.c
 *     common/tp_log.c -lm -o fuzz_sweep
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>

#include "sweep.h"
#include "threshold.h"
#include "window.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every objective, and a user window, on @table: costs, curve reads. */
static void decide_all(const tp_threshold_table *table)
{
	static const char *const all[] = {"*"};
	static const char *const objectives[] = {"none", "mpi_slowdown<=1.1",
	                                         "io_cost<=20%"};
	tp_io_pattern job = {4 << 20, 87, 313, 0, "io"};
	tp_throttle_policy policy = {0, 0, all, 1, true, {TP_OBJECTIVE_NONE, 0},
	                             TP_CONFIDENCE_DEFAULT};
	tp_throttle_request fixed = {TP_THROTTLE_FIXED, 6250};
	tp_window_decision d;
	tp_error err;

	for (size_t i = 0; i < sizeof(objectives) / sizeof(objectives[0]);
	     i++) {
		tp_throttle_objective_parse(objectives[i], &policy.objective,
		                            &err);
		policy.confidence = TP_CONFIDENCE_DEFAULT;
		tp_window_decide(&job, table, &policy, NULL, &d, &err);
		policy.confidence = 0; /* worst: the worst measured run */
		tp_window_decide(&job, table, &policy, NULL, &d, &err);
	}
	tp_window_decide(&job, table, &policy, &fixed, &d, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_threshold_table *table = NULL;
	tp_sweep *sweep = NULL;
	tp_error err;

	/* Bounded sample count keeps each run fast on large inputs. */
	if (tp_sweep_parse("fuzz", (const char *)data, size, 20000, &sweep,
	                   &err) == TP_OK) {
		if (tp_threshold_table_from_sweep(sweep, NULL, NULL, &table,
		                                  &err) == TP_OK) {
			tp_threshold_estimate est;

			tp_threshold_lookup(table, 3 << 20, 3, &est, &err);
			decide_all(table);
			tp_threshold_table_free(table);
			table = NULL;
		}
		tp_sweep_free(sweep);
	}
	if (tp_threshold_table_parse("fuzz", (const char *)data, size, &table,
	                             &err) == TP_OK) {
		tp_threshold_estimate est;

		tp_threshold_lookup(table, 1, 1, &est, &err);
		tp_threshold_lookup(table, 1ULL << 40, 1000000, &est, &err);
		decide_all(table);
		tp_threshold_table_free(table);
	}
	return 0;
}
