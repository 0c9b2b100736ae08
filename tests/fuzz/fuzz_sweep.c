/*
 * fuzz_sweep.c: libFuzzer target for the throttle readers: the sweep
 * reader (topoplace-sweep(5)), threshold detection on whatever it accepts,
 * and the threshold-table reader.  No files, no output, no leaks.
 *
 * Build (see the working agreement):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iplacement -Ithrottle
 *     -I<build dir> tests/fuzz/fuzz_sweep.c throttle/csv.c throttle/sweep.c
 *     throttle/threshold.c throttle/units.c placement/tp_error.c
 *     placement/tp_log.c -lm -o fuzz_sweep
 */
#include "tp_config.h"

#include <stddef.h>
#include <stdint.h>

#include "sweep.h"
#include "threshold.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		tp_threshold_table_free(table);
	}
	return 0;
}
