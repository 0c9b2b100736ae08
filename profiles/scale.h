/*
 * scale.h: a profile recorded at one rank count, used at another when its
 * pattern is a regular stencil.
 *
 * A job run at 128 ranks of an application whose stored profile has 64
 * can only be placed by the profile's class, unless the matrix says how it
 * grows.  Halo-exchange codes do: each rank sends to its neighbours on a
 * 1-, 2- or 3-D grid, and they almost all lay the grid out the way
 * MPI_Dims_create and MPI_Cart_create do (dimensions as equal as the
 * factors allow, largest first; ranks in row-major order, the last
 * dimension fastest).  When the recorded matrix is exactly that, at the
 * recorded size, the same code at another size is taken to be that grid at
 * the new size, with the same bytes and messages per neighbour pair along
 * each dimension (the mapping depends only on their ratios).
 *
 * The rule, in full (topoplace-profile(5), SCALING):
 *   - the recorded run has at least 4 ranks; the smallest dimension count
 *     d in 1..3 whose MPI_Dims_create extents are all >= 2 and under which
 *     the matrix is a stencil is taken;
 *   - a stencil: at least 98% of the bytes between distinct ranks go to a
 *     neighbour along exactly one dimension (distance 1, or the wrap
 *     between the grid's two ends); along every dimension at least 90% of
 *     the neighbour pairs are present; the wraps of a dimension are all
 *     present (>= 90%: periodic) or absent (a dimension of extent 2,
 *     whose ends are neighbours anyway, wraps as the others agree); and
 *     every neighbour pair of a dimension carries between half and twice
 *     that dimension's mean;
 *   - anything else (all-to-all, irregular, a grid of the application's
 *     own making) is not scaled: the job gets the profile's class only.
 * Scaled matrices hold at most 2 x d entries a rank and at most
 * TP_STENCIL_RANKS_MAX ranks.  A scaled profile is for the mapping only:
 * it has the recorded header with the new rank count and no collectives,
 * I/O, digest or credential, and is never stored.  `topoplace profile
 * scale` uses it, and jobs of another size only under the rule of
 * scale_rule.h, because one run's layout does not predict another size's
 * (topoplace-profile(5), SCALING).
 */
#ifndef TP_SCALE_H
#define TP_SCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "tp_error.h"

#define TP_STENCIL_DIMS_MAX  3
#define TP_STENCIL_RANKS_MAX (1u << 20)

/* What is known of a run's stencil (kept in its summary, summary.h). */
typedef enum tp_stencil_state {
	TP_STENCIL_UNKNOWN = 0, /* not looked for (an older summary) */
	TP_STENCIL_NONE,        /* looked for: not a stencil */
	TP_STENCIL_FOUND,
} tp_stencil_state;

typedef struct tp_stencil {
	unsigned dims;                          /* 1..3 */
	uint32_t extent[TP_STENCIL_DIMS_MAX];   /* MPI_Dims_create's */
	bool periodic[TP_STENCIL_DIMS_MAX];     /* wraps between the ends */
	uint64_t pair_bytes[TP_STENCIL_DIMS_MAX]; /* mean, one rank to one
	                                           * neighbour along k */
	uint64_t pair_msgs[TP_STENCIL_DIMS_MAX];
} tp_stencil;

/*
 * MPI_Dims_create(@ranks, @dims) with no dimension fixed: @extent[0..dims)
 * as equal as the prime factors of @ranks allow, in non-increasing order
 * (each prime, largest first, multiplies the smallest extent so far).
 */
void tp_stencil_dims_create(uint32_t ranks, unsigned dims, uint32_t *extent);

/*
 * The stencil @profile's matrix is, by the rule above, into *@shape; or
 * TP_ERR_INVALID with a message that says, for each dimension count tried,
 * why it is not one.
 */
tp_status tp_stencil_detect(const tp_profile *profile, tp_stencil *shape,
                            tp_error *err);

/*
 * @shape's grid at @ranks ranks: a new profile (free with
 * tp_profile_free) holding @header with @ranks ranks, and its neighbour
 * pairs; *@scaled_shape, if not NULL, gets the new extents.
 * TP_ERR_INVALID when @ranks is 0 or above TP_STENCIL_RANKS_MAX;
 * TP_ERR_NOMEM.
 */
tp_status tp_stencil_build(const tp_stencil *shape,
                           const tp_profile_header *header, uint32_t ranks,
                           tp_profile **scaled, tp_stencil *scaled_shape,
                           tp_error *err);

/* "2-D 8x8" or "3-D 4x4x4 periodic" into @buf (always terminated). */
void tp_stencil_format(const tp_stencil *shape, char *buf, size_t size);

#endif /* TP_SCALE_H */
