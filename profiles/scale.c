/*
 * scale.c: a profile's stencil found at its recorded size and rebuilt at
 * another (scale.h has the rule).
 */
#include "tp_config.h"

#include "scale.h"

#include <stdio.h>
#include <string.h>

/* Fractions of the rule, as integer ratios to keep the test exact. */
#define OFF_GRID_PERMILLE  20 /* bytes off the grid's neighbours: <= 2% */
#define PAIRS_PRESENT_PCT  90 /* neighbour pairs (and wraps) present */
#define PAIR_SPREAD        2  /* every pair within mean / 2 .. mean x 2 */

void tp_stencil_dims_create(uint32_t ranks, unsigned dims, uint32_t *extent)
{
	uint32_t primes[32];
	unsigned count = 0;
	uint32_t n = ranks;

	for (unsigned k = 0; k < dims; k++)
		extent[k] = 1;
	if (ranks < 2 || dims == 0)
		return;
	for (uint32_t p = 2; (uint64_t)p * p <= n; p++)
		while (n % p == 0) {
			primes[count++] = p;
			n /= p;
		}
	if (n > 1)
		primes[count++] = n;
	/* Largest prime first, onto the smallest extent so far. */
	for (unsigned i = count; i-- > 0;) {
		unsigned smallest = 0;

		for (unsigned k = 1; k < dims; k++)
			if (extent[k] < extent[smallest])
				smallest = k;
		extent[smallest] *= primes[i];
	}
	/* Non-increasing, as MPI returns them. */
	for (unsigned i = 1; i < dims; i++)
		for (unsigned k = i; k > 0 && extent[k] > extent[k - 1]; k--) {
			uint32_t t = extent[k];

			extent[k] = extent[k - 1];
			extent[k - 1] = t;
		}
}

/* Row-major strides: the last dimension varies fastest. */
static void strides_of(const uint32_t *extent, unsigned dims,
                       uint32_t *stride)
{
	stride[dims - 1] = 1;
	for (unsigned k = dims - 1; k-- > 0;)
		stride[k] = stride[k + 1] * extent[k + 1];
}

/*
 * The one dimension along which @src and @dst are neighbours (distance 1,
 * or the wrap when @wrap is set), or -1.
 */
static int neighbour_dim(const uint32_t *extent, const uint32_t *stride,
                         unsigned dims, uint32_t src, uint32_t dst,
                         bool *wrap)
{
	int along = -1;

	*wrap = false;
	for (unsigned k = 0; k < dims; k++) {
		uint32_t a = (src / stride[k]) % extent[k];
		uint32_t b = (dst / stride[k]) % extent[k];
		uint32_t dist = a > b ? a - b : b - a;

		if (dist == 0)
			continue;
		if (along >= 0)
			return -1; /* differs in two dimensions */
		if (dist == 1)
			along = (int)k;
		else if (dist == extent[k] - 1) {
			along = (int)k;
			*wrap = true;
		} else
			return -1;
	}
	return along;
}

/* Byte and message sums in double: a hostile profile's pairs may each
 * hold up to 2^64-1, and only ratios and means are taken from them. */
typedef struct grid_count {
	uint64_t near[TP_STENCIL_DIMS_MAX]; /* pairs at distance 1 */
	uint64_t wraps[TP_STENCIL_DIMS_MAX];
	double bytes[TP_STENCIL_DIMS_MAX];
	double msgs[TP_STENCIL_DIMS_MAX];
	double total_bytes;
	double off_bytes;
} grid_count;

/* @sum / @count, at most 2^64-1 (@count > 0). */
static uint64_t mean_of(double sum, uint64_t count)
{
	double mean = sum / (double)count;

	return mean >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)mean;
}

static void count_pairs(const tp_profile *profile, const tp_stencil *shape,
                        const uint32_t *stride, grid_count *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < profile->pair_count; i++) {
		const tp_profile_pair *p = &profile->pairs[i];
		bool wrap;
		int k;

		if (p->src == p->dst || !p->bytes)
			continue;
		c->total_bytes += (double)p->bytes;
		k = neighbour_dim(shape->extent, stride, shape->dims, p->src,
		                  p->dst, &wrap);
		if (k < 0) {
			c->off_bytes += (double)p->bytes;
			continue;
		}
		if (wrap)
			c->wraps[k]++;
		else
			c->near[k]++;
		c->bytes[k] += (double)p->bytes;
		c->msgs[k] += (double)p->msgs;
	}
}

/* Every neighbour pair along its dimension within the spread of the mean. */
static bool pairs_even(const tp_profile *profile, const tp_stencil *shape,
                       const uint32_t *stride)
{
	for (size_t i = 0; i < profile->pair_count; i++) {
		const tp_profile_pair *p = &profile->pairs[i];
		uint64_t mean;
		bool wrap;
		int k;

		if (p->src == p->dst || !p->bytes)
			continue;
		k = neighbour_dim(shape->extent, stride, shape->dims, p->src,
		                  p->dst, &wrap);
		if (k < 0)
			continue;
		mean = shape->pair_bytes[k];
		if ((double)p->bytes * PAIR_SPREAD < (double)mean ||
		    (double)p->bytes > (double)mean * PAIR_SPREAD)
			return false;
	}
	return true;
}

/*
 * A dimension of extent 2 cannot show a wrap (its two ends are already
 * neighbours): it takes the periodicity the dimensions that can show one
 * agree on, so a grid recorded as 4x2x2 and scaled to 4x4x4 wraps the way
 * the application does.
 */
static void inherit_periodic(tp_stencil *shape)
{
	int agreed = -1; /* -1: none seen, 0/1: all the same, 2: mixed */

	for (unsigned k = 0; k < shape->dims; k++) {
		if (shape->extent[k] <= 2)
			continue;
		if (agreed == -1)
			agreed = shape->periodic[k];
		else if (agreed != (int)shape->periodic[k])
			agreed = 2;
	}
	if (agreed != 0 && agreed != 1)
		return;
	for (unsigned k = 0; k < shape->dims; k++)
		if (shape->extent[k] == 2)
			shape->periodic[k] = agreed;
}

/*
 * Whether @profile is a stencil on @dims dimensions; *@shape filled when
 * it is, else @why says what failed.
 */
static bool try_dims(const tp_profile *profile, unsigned dims,
                     tp_stencil *shape, char *why, size_t why_size)
{
	uint32_t ranks = profile->header.ranks, stride[TP_STENCIL_DIMS_MAX];
	grid_count c;

	memset(shape, 0, sizeof(*shape));
	shape->dims = dims;
	tp_stencil_dims_create(ranks, dims, shape->extent);
	for (unsigned k = 0; k < dims; k++)
		if (shape->extent[k] < 2) {
			snprintf(why, why_size, "%u-D: %u ranks make no %u-D grid",
			         dims, ranks, dims);
			return false;
		}
	strides_of(shape->extent, dims, stride);
	count_pairs(profile, shape, stride, &c);
	if (c.total_bytes <= 0) {
		snprintf(why, why_size, "no traffic between ranks");
		return false;
	}
	if (c.off_bytes * 1000 > c.total_bytes * OFF_GRID_PERMILLE) {
		snprintf(why, why_size,
		         "%u-D: %.1f%% of the bytes off the grid's neighbours",
		         dims, 100.0 * c.off_bytes / c.total_bytes);
		return false;
	}
	for (unsigned k = 0; k < dims; k++) {
		uint64_t lines = ranks / shape->extent[k];
		uint64_t near_all = 2 * (uint64_t)(shape->extent[k] - 1) * lines;
		uint64_t wraps_all = shape->extent[k] > 2 ? 2 * lines : 0;

		if (c.near[k] * 100 < near_all * PAIRS_PRESENT_PCT) {
			snprintf(why, why_size,
			         "%u-D: dimension %u has %llu of its %llu "
			         "neighbour pairs",
			         dims, k + 1, (unsigned long long)c.near[k],
			         (unsigned long long)near_all);
			return false;
		}
		shape->periodic[k] =
		    wraps_all && c.wraps[k] * 100 >= wraps_all * PAIRS_PRESENT_PCT;
		if (c.wraps[k] && !shape->periodic[k]) {
			snprintf(why, why_size,
			         "%u-D: dimension %u wraps on %llu of its %llu "
			         "pairs only",
			         dims, k + 1, (unsigned long long)c.wraps[k],
			         (unsigned long long)wraps_all);
			return false;
		}
		shape->pair_bytes[k] =
		    mean_of(c.bytes[k], c.near[k] + c.wraps[k]);
		shape->pair_msgs[k] = mean_of(c.msgs[k], c.near[k] + c.wraps[k]);
	}
	inherit_periodic(shape);
	if (!pairs_even(profile, shape, stride)) {
		snprintf(why, why_size,
		         "%u-D: neighbour pairs differ by more than %ux from "
		         "their dimension's mean",
		         dims, PAIR_SPREAD);
		return false;
	}
	return true;
}

tp_status tp_stencil_detect(const tp_profile *profile, tp_stencil *shape,
                            tp_error *err)
{
	char why[TP_STENCIL_DIMS_MAX][128];
	uint32_t ranks = profile->header.ranks;

	if (ranks < 4)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%u ranks: too few to tell a stencil", ranks);
	for (unsigned dims = 1; dims <= TP_STENCIL_DIMS_MAX; dims++)
		if (try_dims(profile, dims, shape, why[dims - 1],
		             sizeof(why[0])))
			return TP_OK;
	return tp_error_set(err, TP_ERR_INVALID,
	                    "not a regular stencil in MPI_Dims_create's "
	                    "layout (%s; %s; %s)",
	                    why[0], why[1], why[2]);
}

/* Both neighbours of every rank along every dimension of @shape. */
static tp_status add_neighbours(tp_profile *out, const tp_stencil *shape,
                                tp_error *err)
{
	uint32_t ranks = out->header.ranks, stride[TP_STENCIL_DIMS_MAX];

	strides_of(shape->extent, shape->dims, stride);
	for (uint32_t r = 0; r < ranks; r++)
		for (unsigned k = 0; k < shape->dims; k++) {
			uint32_t e = shape->extent[k];
			uint32_t c = (r / stride[k]) % e;
			uint32_t next = c + 1 < e ? r + stride[k]
			                : shape->periodic[k] ? r - c * stride[k]
			                                     : r;
			uint32_t prev = c > 0 ? r - stride[k]
			                : shape->periodic[k]
			                    ? r + (e - 1) * stride[k]
			                    : r;
			tp_status rc = TP_OK;

			/* An extent of 1 has no neighbour; 2 periodic: the
			 * same rank both ways, as the application sends. */
			if (next != r)
				rc = tp_profile_add_pair(out, r, next,
				                         shape->pair_bytes[k],
				                         shape->pair_msgs[k], err);
			if (rc == TP_OK && prev != r)
				rc = tp_profile_add_pair(out, r, prev,
				                         shape->pair_bytes[k],
				                         shape->pair_msgs[k], err);
			if (rc != TP_OK)
				return rc;
		}
	return TP_OK;
}

tp_status tp_stencil_build(const tp_stencil *shape,
                           const tp_profile_header *header, uint32_t ranks,
                           tp_profile **scaled, tp_stencil *scaled_shape,
                           tp_error *err)
{
	tp_profile_header h = *header;
	tp_stencil grid = *shape;
	tp_profile *out;
	tp_status rc;

	*scaled = NULL;
	if (!ranks || ranks > TP_STENCIL_RANKS_MAX)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "%u ranks: a scaled profile has 1 to %u",
		                    ranks, TP_STENCIL_RANKS_MAX);
	tp_stencil_dims_create(ranks, grid.dims, grid.extent);
	h.ranks = ranks;
	h.ranks_per_node = 0;
	rc = tp_profile_new(&h, &out, err);
	if (rc != TP_OK)
		return rc;
	rc = add_neighbours(out, &grid, err);
	if (rc == TP_OK)
		rc = tp_profile_finish(out, err);
	if (rc != TP_OK) {
		tp_profile_free(out);
		return rc;
	}
	*scaled = out;
	if (scaled_shape)
		*scaled_shape = grid;
	return TP_OK;
}

void tp_stencil_format(const tp_stencil *shape, char *buf, size_t size)
{
	size_t used;
	bool periodic = false;

	used = (size_t)snprintf(buf, size, "%u-D ", shape->dims);
	for (unsigned k = 0; k < shape->dims && used < size; k++) {
		used += (size_t)snprintf(buf + used, size - used, "%s%u",
		                         k ? "x" : "", shape->extent[k]);
		periodic |= shape->periodic[k];
	}
	if (periodic && used < size)
		snprintf(buf + used, size - used, " periodic");
}
