/*
 * test_stencil_scale.c: a profile's stencil is found at its recorded size
 * only when the matrix is one (1-, 2- and 3-D, open and periodic, a little
 * noise allowed), everything else is refused with the reason, and the
 * grid rebuilt at another size has MPI_Dims_create's extents, every
 * neighbour pair once with the recorded bytes per dimension, and no pair
 * that is not a neighbour.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "scale.h"

static tp_profile *new_profile(uint32_t ranks)
{
	tp_profile_header h = {.owner_uid = 1001, .ranks = ranks};
	tp_profile *p = NULL;

	strcpy(h.app, "stencil");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	return p;
}

/*
 * A grid of @extent (row-major, last fastest): every rank sends
 * @bytes[k] in 10 messages to both neighbours along k, wrapping where
 * @periodic[k].
 */
static tp_profile *grid_profile(unsigned dims, const uint32_t *extent,
                                const bool *periodic, const uint64_t *bytes)
{
	uint32_t ranks = 1, stride[3];
	tp_profile *p;

	for (unsigned k = 0; k < dims; k++)
		ranks *= extent[k];
	stride[dims - 1] = 1;
	for (unsigned k = dims - 1; k-- > 0;)
		stride[k] = stride[k + 1] * extent[k + 1];
	p = new_profile(ranks);
	for (uint32_t r = 0; r < ranks; r++)
		for (unsigned k = 0; k < dims; k++) {
			uint32_t c = (r / stride[k]) % extent[k];

			if (c + 1 < extent[k])
				assert_int_equal(tp_profile_add_pair(p, r, r + stride[k], bytes[k], 10, NULL), TP_OK);
			else if (periodic[k])
				assert_int_equal(tp_profile_add_pair(p, r, r - c * stride[k], bytes[k], 10, NULL), TP_OK);
			if (c > 0)
				assert_int_equal(tp_profile_add_pair(p, r, r - stride[k], bytes[k], 10, NULL), TP_OK);
			else if (periodic[k])
				assert_int_equal(tp_profile_add_pair(p, r, r + (extent[k] - 1) * stride[k], bytes[k], 10, NULL), TP_OK);
		}
	return p;
}

static uint64_t pair_bytes(const tp_profile *p, uint32_t src, uint32_t dst)
{
	for (size_t i = 0; i < p->pair_count; i++)
		if (p->pairs[i].src == src && p->pairs[i].dst == dst)
			return p->pairs[i].bytes;
	return 0;
}

static void test_dims_create_as_open_mpi(void **state)
{
	uint32_t e[3];

	(void)state;
	tp_stencil_dims_create(64, 2, e);
	assert_true(e[0] == 8 && e[1] == 8);
	tp_stencil_dims_create(128, 2, e);
	assert_true(e[0] == 16 && e[1] == 8);
	tp_stencil_dims_create(64, 3, e);
	assert_true(e[0] == 4 && e[1] == 4 && e[2] == 4);
	tp_stencil_dims_create(128, 3, e);
	assert_true(e[0] == 8 && e[1] == 4 && e[2] == 4);
	tp_stencil_dims_create(12, 2, e);
	assert_true(e[0] == 4 && e[1] == 3);
	tp_stencil_dims_create(7, 2, e);
	assert_true(e[0] == 7 && e[1] == 1);
	tp_stencil_dims_create(1, 3, e);
	assert_true(e[0] == 1 && e[1] == 1 && e[2] == 1);
	tp_stencil_dims_create(96, 1, e);
	assert_int_equal(e[0], 96);
}

/* 8x8, open: found as 2-D, rebuilt at 128 ranks as 16x8. */
static void test_open_2d_grid_scales(void **state)
{
	const uint32_t extent[] = {8, 8};
	const bool periodic[] = {false, false};
	const uint64_t bytes[] = {2000, 1000};
	tp_profile *p = grid_profile(2, extent, periodic, bytes), *s = NULL;
	tp_stencil shape, scaled;
	tp_error err;
	char text[64];

	(void)state;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_int_equal(shape.dims, 2);
	assert_true(shape.extent[0] == 8 && shape.extent[1] == 8);
	assert_false(shape.periodic[0] || shape.periodic[1]);
	assert_int_equal(shape.pair_bytes[0], 2000);
	assert_int_equal(shape.pair_bytes[1], 1000);
	assert_int_equal(shape.pair_msgs[0], 10);
	assert_int_equal(tp_stencil_build(&shape, &p->header, 128, &s, &scaled, &err), TP_OK);
	assert_int_equal(s->header.ranks, 128);
	assert_true(scaled.extent[0] == 16 && scaled.extent[1] == 8);
	tp_stencil_format(&scaled, text, sizeof(text));
	assert_string_equal(text, "2-D 16x8");
	/* 2 x (15 x 8 + 7 x 16) directed pairs. */
	assert_int_equal(s->pair_count, 464);
	assert_int_equal(pair_bytes(s, 0, 1), 1000);
	assert_int_equal(pair_bytes(s, 0, 8), 2000);
	assert_int_equal(pair_bytes(s, 127, 119), 2000);
	assert_int_equal(pair_bytes(s, 7, 8), 0); /* the next row: no */
	assert_int_equal(pair_bytes(s, 0, 7), 0); /* open: no wrap */
	/* Scaling to the recorded size gives the recorded matrix back. */
	tp_profile_free(s);
	assert_int_equal(tp_stencil_build(&shape, &p->header, 64, &s, NULL, &err), TP_OK);
	assert_int_equal(s->pair_count, p->pair_count);
	for (size_t i = 0; i < p->pair_count; i++)
		assert_int_equal(pair_bytes(s, p->pairs[i].src, p->pairs[i].dst), p->pairs[i].bytes);
	tp_profile_free(s);
	tp_profile_free(p);
}

/* 4x4x4, periodic: 3-D, and the wraps survive at 256 ranks (8x8x4). */
static void test_periodic_3d_grid_scales(void **state)
{
	const uint32_t extent[] = {4, 4, 4};
	const bool periodic[] = {true, true, true};
	const uint64_t bytes[] = {500, 500, 500};
	tp_profile *p = grid_profile(3, extent, periodic, bytes), *s = NULL;
	tp_stencil shape, scaled;
	tp_error err;
	char text[64];

	(void)state;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_int_equal(shape.dims, 3);
	assert_true(shape.periodic[0] && shape.periodic[1] && shape.periodic[2]);
	assert_int_equal(tp_stencil_build(&shape, &p->header, 256, &s, &scaled, &err), TP_OK);
	tp_stencil_format(&scaled, text, sizeof(text));
	assert_string_equal(text, "3-D 8x8x4 periodic");
	assert_int_equal(s->pair_count, 256 * 6);
	/* Rank 0 wraps to the far end of each dimension (strides 32, 4, 1). */
	assert_int_equal(pair_bytes(s, 0, 7 * 32), 500);
	assert_int_equal(pair_bytes(s, 0, 7 * 4), 500);
	assert_int_equal(pair_bytes(s, 0, 3), 500);
	tp_profile_free(s);
	tp_profile_free(p);
}

/*
 * 4x2x2 periodic (NPB-MG at 16 ranks): the extent-2 dimensions cannot show
 * a wrap and take the first one's, so 64 ranks are 4x4x4 periodic, six
 * neighbours a rank.
 */
static void test_extent_2_wraps_as_the_others(void **state)
{
	const uint32_t extent[] = {4, 2, 2};
	const bool periodic[] = {true, true, true}, open[] = {false, false, false};
	const uint64_t bytes[] = {100, 100, 100};
	tp_profile *p = grid_profile(3, extent, periodic, bytes), *s = NULL;
	tp_stencil shape;
	tp_error err;

	(void)state;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_true(shape.periodic[0] && shape.periodic[1] && shape.periodic[2]);
	assert_int_equal(tp_stencil_build(&shape, &p->header, 64, &s, NULL, &err), TP_OK);
	assert_int_equal(s->pair_count, 64 * 6);
	tp_profile_free(s);
	tp_profile_free(p);
	/* Open along the first: open everywhere. */
	p = grid_profile(3, extent, open, bytes);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_false(shape.periodic[0] || shape.periodic[1] || shape.periodic[2]);
	tp_profile_free(p);
}

/* A ring is 1-D, found before any grid of more dimensions. */
static void test_ring_is_1d(void **state)
{
	const uint32_t extent[] = {16};
	const bool periodic[] = {true};
	const uint64_t bytes[] = {4096};
	tp_profile *p = grid_profile(1, extent, periodic, bytes), *s = NULL;
	tp_stencil shape;
	tp_error err;

	(void)state;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_int_equal(shape.dims, 1);
	assert_true(shape.periodic[0]);
	assert_int_equal(tp_stencil_build(&shape, &p->header, 5, &s, NULL, &err), TP_OK);
	assert_int_equal(s->pair_count, 10);
	assert_int_equal(pair_bytes(s, 4, 0), 4096);
	tp_profile_free(s);
	tp_profile_free(p);
}

/* A hostile run's pairs at 2^64-1 bytes: sums do not wrap, the ring is
 * still found and its mean is the largest value there is. */
static void test_huge_pairs_do_not_wrap(void **state)
{
	const uint32_t extent[] = {16};
	const bool periodic[] = {true};
	const uint64_t bytes[] = {UINT64_MAX};
	tp_profile *p = grid_profile(1, extent, periodic, bytes), *s = NULL;
	tp_stencil shape;
	tp_error err;

	(void)state;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_int_equal(shape.dims, 1);
	assert_true(shape.pair_bytes[0] == UINT64_MAX);
	assert_int_equal(tp_stencil_build(&shape, &p->header, 32, &s, NULL, &err), TP_OK);
	assert_int_equal(s->pair_count, 64);
	tp_profile_free(s);
	/* One pair (0 -> 1, the first once sorted) far below the others is
	 * still told apart. */
	assert_true(p->pairs[0].src == 0 && p->pairs[0].dst == 1);
	p->pairs[0].bytes = 1000;
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "1-D: neighbour pairs differ by more than 2x"));
	tp_profile_free(p);
}

/* Up to 2% of the bytes elsewhere (a reduction by hand) is allowed. */
static void test_a_little_noise_is_allowed(void **state)
{
	const uint32_t extent[] = {8, 8};
	const bool periodic[] = {false, false};
	const uint64_t bytes[] = {1000, 1000};
	tp_profile *p = grid_profile(2, extent, periodic, bytes);
	tp_stencil shape;
	tp_error err;

	(void)state;
	/* 224 pairs x 1000 bytes; 4,000 more to rank 0 is 1.8%. */
	for (uint32_t r = 60; r < 64; r++)
		assert_int_equal(tp_profile_add_pair(p, r, 0, 1000, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_OK);
	assert_int_equal(shape.dims, 2);
	/* 5,000 more (3.9% in all) is too much. */
	for (uint32_t r = 50; r < 55; r++)
		assert_int_equal(tp_profile_add_pair(p, r, 0, 1000, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "off the grid's neighbours"));
	tp_profile_free(p);
}

static void test_all_to_all_is_refused(void **state)
{
	tp_profile *p = new_profile(16);
	tp_stencil shape;
	tp_error err;

	(void)state;
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = 0; b < 16; b++)
			if (a != b)
				assert_int_equal(tp_profile_add_pair(p, a, b, 100, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "not a regular stencil in MPI_Dims_create's layout"));
	assert_non_null(strstr(err.message, "1-D:"));
	assert_non_null(strstr(err.message, "3-D:"));
	tp_profile_free(p);
}

static void test_uneven_or_partial_grids_are_refused(void **state)
{
	const uint32_t extent[] = {8, 8};
	const bool open[] = {false, false};
	const uint64_t bytes[] = {1000, 1000};
	tp_profile *p = grid_profile(2, extent, open, bytes);
	tp_stencil shape;
	tp_error err;

	(void)state;
	/* One pair at 3x the mean. */
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 2000, 0, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "2-D: neighbour pairs differ by more than 2x"));
	tp_profile_free(p);

	/* Wraps on one row only. */
	p = grid_profile(2, extent, open, bytes);
	assert_int_equal(tp_profile_add_pair(p, 0, 7, 1000, 0, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 7, 0, 1000, 0, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "2-D: dimension 2 wraps on 2 of its 16 pairs only"));
	tp_profile_free(p);

	/* Rows only: the second dimension's pairs are missing. */
	p = new_profile(64);
	for (uint32_t r = 0; r < 64; r++)
		if (r % 8 != 7) {
			assert_int_equal(tp_profile_add_pair(p, r, r + 1, 1000, 1, NULL), TP_OK);
			assert_int_equal(tp_profile_add_pair(p, r + 1, r, 1000, 1, NULL), TP_OK);
		}
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "2-D: dimension 1 has 0 of its 112 neighbour pairs"));
	tp_profile_free(p);

	/* Too small to tell. */
	p = new_profile(3);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 1000, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(tp_stencil_detect(p, &shape, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "too few"));
	tp_profile_free(p);
}

static void test_build_bounds(void **state)
{
	tp_stencil shape = {.dims = 2, .pair_bytes = {1, 1}};
	tp_profile_header h = {.owner_uid = 1, .ranks = 4};
	tp_profile *s = (tp_profile *)&h;
	tp_error err;

	(void)state;
	strcpy(h.app, "stencil");
	assert_int_equal(tp_stencil_build(&shape, &h, 0, &s, NULL, &err), TP_ERR_INVALID);
	assert_null(s);
	assert_int_equal(tp_stencil_build(&shape, &h, TP_STENCIL_RANKS_MAX + 1, &s, NULL, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "a scaled profile has 1 to"));
	/* One rank: no neighbours, a valid empty matrix. */
	assert_int_equal(tp_stencil_build(&shape, &h, 1, &s, NULL, &err), TP_OK);
	assert_int_equal(s->pair_count, 0);
	tp_profile_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dims_create_as_open_mpi),
	    cmocka_unit_test(test_open_2d_grid_scales),
	    cmocka_unit_test(test_periodic_3d_grid_scales),
	    cmocka_unit_test(test_extent_2_wraps_as_the_others),
	    cmocka_unit_test(test_ring_is_1d),
	    cmocka_unit_test(test_huge_pairs_do_not_wrap),
	    cmocka_unit_test(test_a_little_noise_is_allowed),
	    cmocka_unit_test(test_all_to_all_is_refused),
	    cmocka_unit_test(test_uneven_or_partial_grids_are_refused),
	    cmocka_unit_test(test_build_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
