/*
 * test_stencil.h: a grid job's traffic for the remapper's unit tests
 * (test_remap_peers, test_remap_fragmented, test_quiet): an @x x @y x @z
 * grid (@z = 1: 2-D), rank v at (v % x, v / x % y, v / (x * y)), each
 * neighbour pair exchanging @bytes each way, normalized; with @label,
 * grid point v is rank label[v].
 */
#ifndef TP_TEST_STENCIL_H
#define TP_TEST_STENCIL_H

#include <stdint.h>

#include "traffic.h"

static tp_traffic *stencil(uint32_t x, uint32_t y, uint32_t z, uint64_t bytes,
                           const uint32_t *label)
{
	tp_traffic *t;
	tp_error err;
	uint32_t n = x * y * z;

	assert_int_equal(tp_traffic_new(&t, n, &err), TP_OK);
	for (uint32_t v = 0; v < n; v++) {
		uint32_t i = v % x, j = v / x % y, k = v / (x * y);
		uint32_t nb[3] = {i + 1 < x ? v + 1 : v, j + 1 < y ? v + x : v,
		                  k + 1 < z ? v + x * y : v};

		for (int d = 0; d < 3; d++) {
			uint32_t a = label ? label[v] : v;
			uint32_t b = label ? label[nb[d]] : nb[d];

			if (nb[d] == v)
				continue;
			assert_int_equal(
			    tp_traffic_add(t, a, b, bytes, 1, &err), TP_OK);
			assert_int_equal(
			    tp_traffic_add(t, b, a, bytes, 1, &err), TP_OK);
		}
	}
	tp_traffic_normalize(t);
	return t;
}

#endif
