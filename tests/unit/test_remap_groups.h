/*
 * test_remap_groups.h: the traffic of the Scotch candidate's tests
 * (test_remap_scotch.c, test_remap_scotch_faults.c): two groups of ranks,
 * all-to-all inside each, nothing between, so a good mapping keeps each
 * group on one leaf where it fits.  Include after cmocka.h.
 */
#ifndef TEST_REMAP_GROUPS_H
#define TEST_REMAP_GROUPS_H

#include <stdint.h>

#include "traffic.h"
#include "tp_error.h"

/* Two groups of @size ranks, all-to-all inside each, nothing between. */
static tp_traffic *two_groups(uint32_t size)
{
	tp_traffic *t;
	tp_error err;

	assert_int_equal(tp_traffic_new(&t, 2 * size, &err), TP_OK);
	for (uint32_t a = 0; a < 2 * size; a++)
		for (uint32_t b = 0; b < 2 * size; b++)
			if (a != b && a / size == b / size)
				assert_int_equal(
				    tp_traffic_add(t, a, b, 1000, 1, &err),
				    TP_OK);
	tp_traffic_normalize(t);
	return t;
}

#endif /* TEST_REMAP_GROUPS_H */
