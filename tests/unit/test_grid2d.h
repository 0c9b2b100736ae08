/*
 * test_grid2d.h: a 2-D grid job's traffic for the remapper's unit tests
 * (test_remap_fragmented, test_quiet): rank r at (r % x, r / x), each
 * neighbour pair exchanging @bytes each way, normalized.
 */
#ifndef TP_TEST_GRID2D_H
#define TP_TEST_GRID2D_H

#include <stdint.h>

#include "traffic.h"

static tp_traffic *grid2d(uint32_t x, uint32_t y, uint64_t bytes)
{
	tp_traffic *t;
	tp_error err;

	assert_int_equal(tp_traffic_new(&t, x * y, &err), TP_OK);
	for (uint32_t r = 0; r < x * y; r++) {
		uint32_t i = r % x, j = r / x;

		if (i + 1 < x) {
			assert_int_equal(
			    tp_traffic_add(t, r, r + 1, bytes, 1, &err), TP_OK);
			assert_int_equal(
			    tp_traffic_add(t, r + 1, r, bytes, 1, &err), TP_OK);
		}
		if (j + 1 < y) {
			assert_int_equal(
			    tp_traffic_add(t, r, r + x, bytes, 1, &err), TP_OK);
			assert_int_equal(
			    tp_traffic_add(t, r + x, r, bytes, 1, &err), TP_OK);
		}
	}
	tp_traffic_normalize(t);
	return t;
}

#endif
