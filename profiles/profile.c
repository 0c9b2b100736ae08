/*
 * profile.c: the profile data model, its canonical form, and the binary
 * encoder and hostile-input decoder (format: doc/topoplace-profile.5).
 *
 * All integers are little-endian and read byte by byte, so the format is
 * the same on every host and no read depends on alignment.  The decoder
 * never trusts a count: every count is checked against the bytes left
 * before anything is allocated, so memory is bounded by the file size,
 * which is bounded by tp_profile_limits.
 */
#include "tp_config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "tp_file.h"

enum {
	SECTION_META = 1,
	SECTION_PAIRS = 2,
	SECTION_COLLECTIVES = 3,
	SECTION_IO = 4,
	SECTION_EXEC = 5, /* minor 1 */
	SECTION_ARGS = 6, /* minor 2 */
};

/* The last section of this code's minor version. */
#define SECTION_LAST SECTION_ARGS

#define SECTION_HEADER_BYTES 16
#define META_FIXED_BYTES     40
#define COLL_RECORD_BYTES    (TP_PROFILE_COLL_NAME_MAX + 1 + 16)
#define IO_FIXED_BYTES       (40 + 8 * TP_PROFILE_IO_BUCKETS)
#define IO_CLIENT_BYTES      56
#define EXEC_FIXED_BYTES     56
#define ARGS_BYTES           (8 + TP_SHA256_BYTES)
#define TRAILER_FIXED_BYTES  (TP_SHA256_BYTES + 8)

static const char *section_name(uint32_t tag)
{
	switch (tag) {
	case SECTION_META:
		return "header";
	case SECTION_PAIRS:
		return "matrix";
	case SECTION_COLLECTIVES:
		return "collectives";
	case SECTION_IO:
		return "io";
	case SECTION_EXEC:
		return "exec";
	case SECTION_ARGS:
		return "args";
	default:
		return "unknown section";
	}
}

tp_profile_limits tp_profile_default_limits(void)
{
	tp_profile_limits limits = {
	    TP_PROFILE_DEFAULT_MAX_FILE_BYTES,
	    TP_PROFILE_DEFAULT_MAX_RANKS,
	    TP_PROFILE_DEFAULT_MAX_PAIRS,
	    TP_PROFILE_DEFAULT_MAX_COLLECTIVES,
	};

	return limits;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Printable ASCII, 1..max bytes: names end up in logs and file names. */
static int valid_app(const char *app)
{
	size_t n = strnlen(app, TP_PROFILE_APP_MAX + 1);

	if (n == 0 || n > TP_PROFILE_APP_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (app[i] < 0x20 || app[i] > 0x7e)
			return 0;
	return 1;
}

static int valid_coll_name(const char *name, size_t n)
{
	if (n == 0 || n > TP_PROFILE_COLL_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

tp_status tp_profile_new(const tp_profile_header *header, tp_profile **profile,
                         tp_error *err)
{
	tp_profile *p;

	*profile = NULL;
	if (!header || !valid_app(header->app))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile: application name must be 1..%d "
		                    "printable ASCII bytes",
		                    TP_PROFILE_APP_MAX);
	if (header->ranks == 0)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile %s: ranks must be >= 1",
		                    header->app);
	if (header->ranks_per_node > header->ranks)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile %s: ranks_per_node %u > ranks %u",
		                    header->app, header->ranks_per_node,
		                    header->ranks);
	p = calloc(1, sizeof(*p));
	if (!p)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile %s: out of memory", header->app);
	p->header = *header;
	*profile = p;
	return TP_OK;
}

void tp_profile_free(tp_profile *profile)
{
	if (!profile)
		return;
	free(profile->pairs);
	free(profile->collectives);
	free(profile->io.clients);
	free(profile->credential);
	free(profile);
}

/* Grow *array (of @size-byte elements) to hold at least @need elements. */
static int grow(void **array, size_t *capacity, size_t need, size_t size)
{
	size_t cap = *capacity ? *capacity : 16;
	void *bigger;

	if (need <= *capacity)
		return 0;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / size)
			return -1;
		cap *= 2;
	}
	bigger = realloc(*array, cap * size);
	if (!bigger)
		return -1;
	*array = bigger;
	*capacity = cap;
	return 0;
}

tp_status tp_profile_add_pair(tp_profile *profile, uint32_t src, uint32_t dst,
                              uint64_t bytes, uint64_t msgs, tp_error *err)
{
	tp_profile_pair *e;

	if (src >= profile->header.ranks || dst >= profile->header.ranks)
		return tp_error_set(
		    err, TP_ERR_INVALID,
		    "profile %s: pair %u -> %u: rank >= ranks %u",
		    profile->header.app, src, dst, profile->header.ranks);
	if (grow((void **)&profile->pairs, &profile->pair_capacity,
	         profile->pair_count + 1, sizeof(*profile->pairs)))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile %s: out of memory for %zu pairs",
		                    profile->header.app,
		                    profile->pair_count + 1);
	e = &profile->pairs[profile->pair_count++];
	e->src = src;
	e->dst = dst;
	e->bytes = bytes;
	e->msgs = msgs;
	return TP_OK;
}

tp_status tp_profile_add_collective(tp_profile *profile, const char *name,
                                    uint64_t calls, uint64_t bytes,
                                    tp_error *err)
{
	size_t n = strnlen(name, TP_PROFILE_COLL_NAME_MAX + 1);
	tp_profile_collective *c;

	if (!valid_coll_name(name, n))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile %s: collective name '%.*s' must "
		                    "be 1..%d of [A-Za-z0-9_]",
		                    profile->header.app, (int)n, name,
		                    TP_PROFILE_COLL_NAME_MAX);
	for (size_t i = 0; i < profile->collective_count; i++) {
		c = &profile->collectives[i];
		if (!strcmp(c->name, name)) {
			c->calls = add_sat(c->calls, calls);
			c->bytes = add_sat(c->bytes, bytes);
			return TP_OK;
		}
	}
	if (grow((void **)&profile->collectives, &profile->collective_capacity,
	         profile->collective_count + 1, sizeof(*profile->collectives)))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile %s: out of memory",
		                    profile->header.app);
	c = &profile->collectives[profile->collective_count++];
	memset(c, 0, sizeof(*c));
	memcpy(c->name, name, n);
	c->calls = calls;
	c->bytes = bytes;
	return TP_OK;
}

tp_status tp_profile_add_io_client(tp_profile *profile,
                                   const tp_profile_io_client *client,
                                   tp_error *err)
{
	if (client->rank >= profile->header.ranks)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile %s: io client rank %u >= ranks %u",
		                    profile->header.app, client->rank,
		                    profile->header.ranks);
	if (grow((void **)&profile->io.clients, &profile->io.client_capacity,
	         profile->io.client_count + 1, sizeof(*profile->io.clients)))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile %s: out of memory",
		                    profile->header.app);
	profile->io.clients[profile->io.client_count++] = *client;
	return TP_OK;
}

static int cmp_pair(const void *a, const void *b)
{
	const tp_profile_pair *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return 0;
}

static int cmp_coll(const void *a, const void *b)
{
	return strcmp(((const tp_profile_collective *)a)->name,
	              ((const tp_profile_collective *)b)->name);
}

static int cmp_client(const void *a, const void *b)
{
	const tp_profile_io_client *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * What is wrong with @e for a run of @ranks ranks, or NULL: the
 * invariants of the exec section, shared by the writer and the reader.
 */
static const char *exec_problem(const tp_exec_id *e, uint32_t ranks)
{
	static const uint8_t zero[TP_SHA256_BYTES];
	size_t path_len = strnlen(e->path, TP_EXEC_PATH_MAX + 1);

	if (e->hash_method > TP_EXEC_HASH_METHOD_LAST)
		return "hash method is not 0 (none), 1 (full) or 2 (sampled)";
	if (e->hash_method == TP_EXEC_HASH_NONE &&
	    (e->size_bytes || memcmp(e->sha256, zero, sizeof(zero))))
		return "hash method none with a size or hash";
	if (e->hash_method == TP_EXEC_HASH_FULL &&
	    e->size_bytes > TP_EXEC_HASH_FULL_MAX_BYTES)
		return "full hash of a file over the 16 MiB bound";
	if (e->hash_method == TP_EXEC_HASH_SAMPLED &&
	    e->size_bytes <= TP_EXEC_HASH_FULL_MAX_BYTES)
		return "sampled hash of a file under the 16 MiB bound";
	if (path_len > TP_EXEC_PATH_MAX || (path_len && e->path[0] != '/'))
		return "path not absolute or too long";
	for (size_t i = 0; i < path_len; i++)
		if (e->path[i] < 0x20 || e->path[i] > 0x7e)
			return "path not printable";
	if (tp_exec_layout_check(e->layout, ranks, NULL) != TP_OK)
		return "layout not '<nodes>x<ranks per node>[+...]' summing "
		       "to the ranks";
	return NULL;
}

/* What is wrong with the arguments digest of @e (the args section), or
 * NULL. */
static const char *args_problem(const tp_exec_id *e)
{
	static const uint8_t zero[TP_SHA256_BYTES];

	if (e->args_method > TP_EXEC_ARGS_METHOD_LAST)
		return "arguments method is not 0 (none) or 1 (full)";
	if (e->args_method == TP_EXEC_ARGS_NONE &&
	    (e->args_count || memcmp(e->args_sha256, zero, sizeof(zero))))
		return "arguments method none with a count or digest";
	return NULL;
}

/* The minor version a section came with: a file of an older minor may
 * not hold it. */
static unsigned section_minor(uint32_t tag)
{
	return tag == SECTION_ARGS   ? TP_PROFILE_VERSION_MINOR
	       : tag == SECTION_EXEC ? TP_PROFILE_VERSION_MINOR_NO_ARGS
	                             : 0;
}

/* The last section a file of minor version @minor holds. */
static uint32_t last_section_of(unsigned minor)
{
	return minor == TP_PROFILE_VERSION_MINOR_NO_EXEC ? SECTION_IO
	       : minor == TP_PROFILE_VERSION_MINOR_NO_ARGS ? SECTION_EXEC
	                                                   : SECTION_LAST;
}

/* The invariants the decoder enforces, on a profile in memory. */
static tp_status check_canonical(const tp_profile *p, tp_error *err)
{
	const char *app = p->header.app;
	uint64_t hist_sum = 0;

	if (!valid_app(app) || p->header.ranks == 0 ||
	    p->header.ranks_per_node > p->header.ranks)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile: invalid header");
	for (size_t i = 0; i < p->pair_count; i++) {
		const tp_profile_pair *e = &p->pairs[i];

		if (e->src >= p->header.ranks || e->dst >= p->header.ranks)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: pair %zu: rank >= "
			                    "ranks %u",
			                    app, i, p->header.ranks);
		if (e->bytes == 0 && e->msgs == 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: pair %zu is all zero",
			                    app, i);
		if (i && cmp_pair(&p->pairs[i - 1], e) >= 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: pairs not sorted at "
			                    "%zu (call tp_profile_finish)",
			                    app, i);
	}
	for (size_t i = 0; i < p->collective_count; i++) {
		const char *name = p->collectives[i].name;

		if (!valid_coll_name(
		        name, strnlen(name, TP_PROFILE_COLL_NAME_MAX + 1)))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: collective %zu: bad "
			                    "name",
			                    app, i);
		if (i &&
		    cmp_coll(&p->collectives[i - 1], &p->collectives[i]) >= 0)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: collectives not "
			                    "sorted or duplicated at %zu",
			                    app, i);
	}
	if (exec_problem(&p->exec, p->header.ranks))
		return tp_error_set(err, TP_ERR_INVALID, "profile %s: exec: %s",
		                    app,
		                    exec_problem(&p->exec, p->header.ranks));
	if (args_problem(&p->exec))
		return tp_error_set(err, TP_ERR_INVALID, "profile %s: args: %s",
		                    app, args_problem(&p->exec));
	for (int b = 0; b < TP_PROFILE_IO_BUCKETS; b++)
		hist_sum = add_sat(hist_sum, p->io.size_hist[b]);
	if (hist_sum != p->io.requests)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile %s: io: size histogram sums to "
		                    "%llu, requests %llu",
		                    app, (unsigned long long)hist_sum,
		                    (unsigned long long)p->io.requests);
	for (size_t i = 0; i < p->io.client_count; i++) {
		const tp_profile_io_client *c = &p->io.clients[i];

		if (c->rank >= p->header.ranks)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: io client %zu: rank "
			                    "%u >= ranks %u",
			                    app, i, c->rank, p->header.ranks);
		if (i && p->io.clients[i - 1].rank >= c->rank)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: io clients not "
			                    "sorted or duplicated at %zu",
			                    app, i);
		if (c->interval_p10_us > c->interval_p50_us ||
		    c->interval_p50_us > c->interval_p90_us ||
		    c->interval_p90_us > c->interval_p99_us)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "profile %s: io client rank %u: "
			                    "interval percentiles not "
			                    "increasing",
			                    app, c->rank);
	}
	return TP_OK;
}

tp_status tp_profile_finish(tp_profile *p, tp_error *err)
{
	size_t out = 0;

	/* qsort(NULL, 0, ...) is undefined: empty arrays are NULL here. */
	if (p->pair_count)
		qsort(p->pairs, p->pair_count, sizeof(*p->pairs), cmp_pair);
	for (size_t i = 0; i < p->pair_count; i++) {
		tp_profile_pair *e = &p->pairs[i];

		if (out && !cmp_pair(&p->pairs[out - 1], e)) {
			p->pairs[out - 1].bytes =
			    add_sat(p->pairs[out - 1].bytes, e->bytes);
			p->pairs[out - 1].msgs =
			    add_sat(p->pairs[out - 1].msgs, e->msgs);
			continue;
		}
		p->pairs[out++] = *e;
	}
	/* Summing first, then dropping zeros, keeps (a,0)+(0,b) pairs. */
	p->pair_count = out;
	out = 0;
	for (size_t i = 0; i < p->pair_count; i++)
		if (p->pairs[i].bytes || p->pairs[i].msgs)
			p->pairs[out++] = p->pairs[i];
	p->pair_count = out;
	if (p->collective_count)
		qsort(p->collectives, p->collective_count,
		      sizeof(*p->collectives), cmp_coll);
	if (p->io.client_count)
		qsort(p->io.clients, p->io.client_count, sizeof(*p->io.clients),
		      cmp_client);
	return check_canonical(p, err);
}

uint64_t tp_profile_total_bytes(const tp_profile *profile)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < profile->pair_count; i++)
		sum = add_sat(sum, profile->pairs[i].bytes);
	return sum;
}

uint64_t tp_profile_total_msgs(const tp_profile *profile)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < profile->pair_count; i++)
		sum = add_sat(sum, profile->pairs[i].msgs);
	return sum;
}

/* ---- encoding ---------------------------------------------------------- */

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static size_t meta_bytes(const tp_profile *p)
{
	return META_FIXED_BYTES + strlen(p->header.app);
}

static size_t exec_bytes(const tp_profile *p)
{
	return EXEC_FIXED_BYTES + strlen(p->exec.path) + strlen(p->exec.layout);
}

/* Bytes of header + sections, i.e. what the digest covers. */
static int body_bytes(const tp_profile *p, size_t *bytes)
{
	size_t n = 6 * SECTION_HEADER_BYTES + meta_bytes(p) + 8 + 8 +
	           IO_FIXED_BYTES + exec_bytes(p) + ARGS_BYTES;

	if (p->pair_count > (SIZE_MAX / 2) / TP_PROFILE_PAIR_BYTES ||
	    p->collective_count > (SIZE_MAX / 4) / COLL_RECORD_BYTES ||
	    p->io.client_count > (SIZE_MAX / 4) / IO_CLIENT_BYTES)
		return -1;
	n += p->pair_count * TP_PROFILE_PAIR_BYTES;
	n += p->collective_count * COLL_RECORD_BYTES;
	n += p->io.client_count * IO_CLIENT_BYTES;
	*bytes = n;
	return 0;
}

static uint8_t *put_section(uint8_t *w, uint32_t tag, size_t payload_bytes)
{
	put_u32(w, tag);
	put_u32(w + 4, 0);
	put_u64(w + 8, payload_bytes);
	return w + SECTION_HEADER_BYTES;
}

/* The exec section (header included) at @w; returns its end. */
static uint8_t *encode_exec(const tp_profile *p, uint8_t *w)
{
	size_t path_len = strlen(p->exec.path);
	size_t layout_len = strlen(p->exec.layout);

	w = put_section(w, SECTION_EXEC, exec_bytes(p));
	put_u32(w, p->exec.hash_method);
	put_u32(w + 4, (uint32_t)path_len);
	put_u64(w + 8, p->exec.size_bytes);
	memcpy(w + 16, p->exec.sha256, TP_SHA256_BYTES);
	put_u32(w + 48, (uint32_t)layout_len);
	put_u32(w + 52, 0);
	memcpy(w + EXEC_FIXED_BYTES, p->exec.path, path_len);
	memcpy(w + EXEC_FIXED_BYTES + path_len, p->exec.layout, layout_len);
	return w + EXEC_FIXED_BYTES + path_len + layout_len;
}

/* The args section (header included) at @w. */
static uint8_t *encode_args(const tp_profile *p, uint8_t *w)
{
	w = put_section(w, SECTION_ARGS, ARGS_BYTES);
	put_u32(w, p->exec.args_method);
	put_u32(w + 4, p->exec.args_count);
	memcpy(w + 8, p->exec.args_sha256, TP_SHA256_BYTES);
	return w + ARGS_BYTES;
}

/* Write header + sections (@body bytes after the file header) at @w. */
static void encode_body(const tp_profile *p, uint8_t *w, size_t body)
{
	size_t app_len = strlen(p->header.app);

	memcpy(w, TP_PROFILE_MAGIC, TP_PROFILE_MAGIC_BYTES);
	put_u16(w + 8, TP_PROFILE_VERSION_MAJOR);
	put_u16(w + 10, TP_PROFILE_VERSION_MINOR);
	put_u32(w + 12, TP_PROFILE_HEADER_BYTES);
	put_u64(w + 16, body);
	put_u64(w + 24, 0);
	w += TP_PROFILE_HEADER_BYTES;

	w = put_section(w, SECTION_META, meta_bytes(p));
	put_u32(w, p->header.owner_uid);
	put_u32(w + 4, p->header.ranks);
	put_u32(w + 8, p->header.ranks_per_node);
	put_u32(w + 12, (uint32_t)app_len);
	put_u64(w + 16, p->header.job_id);
	put_u64(w + 24, (uint64_t)p->header.start_us);
	put_u64(w + 32, p->header.duration_us);
	memcpy(w + META_FIXED_BYTES, p->header.app, app_len);
	w += META_FIXED_BYTES + app_len;

	w = put_section(w, SECTION_PAIRS,
	                8 + p->pair_count * TP_PROFILE_PAIR_BYTES);
	put_u64(w, p->pair_count);
	w += 8;
	for (size_t i = 0; i < p->pair_count; i++) {
		put_u32(w, p->pairs[i].src);
		put_u32(w + 4, p->pairs[i].dst);
		put_u64(w + 8, p->pairs[i].bytes);
		put_u64(w + 16, p->pairs[i].msgs);
		w += TP_PROFILE_PAIR_BYTES;
	}

	w = put_section(w, SECTION_COLLECTIVES,
	                8 + p->collective_count * COLL_RECORD_BYTES);
	put_u32(w, (uint32_t)p->collective_count);
	put_u32(w + 4, 0);
	w += 8;
	for (size_t i = 0; i < p->collective_count; i++) {
		/* Fixed-width, NUL-padded name: no length field to forge. */
		memset(w, 0, TP_PROFILE_COLL_NAME_MAX + 1);
		memcpy(w, p->collectives[i].name,
		       strlen(p->collectives[i].name));
		put_u64(w + TP_PROFILE_COLL_NAME_MAX + 1,
		        p->collectives[i].calls);
		put_u64(w + TP_PROFILE_COLL_NAME_MAX + 9,
		        p->collectives[i].bytes);
		w += COLL_RECORD_BYTES;
	}

	w = put_section(w, SECTION_IO,
	                IO_FIXED_BYTES + p->io.client_count * IO_CLIENT_BYTES);
	put_u64(w, p->io.requests);
	put_u64(w + 8, p->io.read_bytes);
	put_u64(w + 16, p->io.write_bytes);
	put_u64(w + 24, p->io.time_us);
	put_u32(w + 32, TP_PROFILE_IO_BUCKETS);
	put_u32(w + 36, (uint32_t)p->io.client_count);
	w += 40;
	for (int b = 0; b < TP_PROFILE_IO_BUCKETS; b++, w += 8)
		put_u64(w, p->io.size_hist[b]);
	for (size_t i = 0; i < p->io.client_count; i++) {
		const tp_profile_io_client *c = &p->io.clients[i];

		put_u32(w, c->rank);
		put_u32(w + 4, 0);
		put_u64(w + 8, c->requests);
		put_u64(w + 16, c->bytes);
		put_u64(w + 24, c->interval_p10_us);
		put_u64(w + 32, c->interval_p50_us);
		put_u64(w + 40, c->interval_p90_us);
		put_u64(w + 48, c->interval_p99_us);
		w += IO_CLIENT_BYTES;
	}
	w = encode_exec(p, w);
	encode_args(p, w);
}

static tp_status encode_checked(tp_profile *p, size_t *body, tp_error *err)
{
	tp_status st = check_canonical(p, err);

	if (st != TP_OK)
		return st;
	if (p->io.client_count > UINT32_MAX ||
	    p->collective_count > UINT32_MAX || body_bytes(p, body))
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "profile %s: too large to encode",
		                    p->header.app);
	if (p->credential &&
	    strnlen(p->credential, TP_PROFILE_CREDENTIAL_MAX + 1) >
	        TP_PROFILE_CREDENTIAL_MAX)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "profile %s: credential longer than %d",
		                    p->header.app, TP_PROFILE_CREDENTIAL_MAX);
	return TP_OK;
}

tp_status tp_profile_encode(tp_profile *p, uint8_t **buf, size_t *len,
                            tp_error *err)
{
	size_t body = 0, cred_len = p->credential ? strlen(p->credential) : 0;
	size_t total;
	uint8_t *out;
	tp_status st;

	*buf = NULL;
	*len = 0;
	st = encode_checked(p, &body, err);
	if (st != TP_OK)
		return st;
	total = TP_PROFILE_HEADER_BYTES + body + TRAILER_FIXED_BYTES + cred_len;
	out = malloc(total);
	if (!out)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile %s: out of memory for %zu bytes",
		                    p->header.app, total);
	encode_body(p, out, body);
	tp_sha256(out, TP_PROFILE_HEADER_BYTES + body, p->digest);
	memcpy(out + TP_PROFILE_HEADER_BYTES + body, p->digest,
	       TP_SHA256_BYTES);
	put_u32(out + TP_PROFILE_HEADER_BYTES + body + TP_SHA256_BYTES,
	        (uint32_t)cred_len);
	put_u32(out + TP_PROFILE_HEADER_BYTES + body + TP_SHA256_BYTES + 4, 0);
	if (cred_len)
		memcpy(out + total - cred_len, p->credential, cred_len);
	*buf = out;
	*len = total;
	return TP_OK;
}

tp_status tp_profile_compute_digest(tp_profile *p, tp_error *err)
{
	char *cred = p->credential;
	uint8_t *buf;
	size_t len;
	tp_status st;

	/* The digest does not cover the credential: encode without it. */
	p->credential = NULL;
	st = tp_profile_encode(p, &buf, &len, err);
	p->credential = cred;
	free(buf);
	return st;
}

/* ---- decoding ---------------------------------------------------------- */

struct reader {
	const char *label;
	const uint8_t *buf;
	size_t len;
	tp_error *err;
};

/* "LABEL: SECTION: offset N: message" */
static tp_status fail_at(const struct reader *r, tp_status code,
                         const char *section, size_t offset, const char *fmt,
                         ...) __attribute__((format(printf, 5, 6)));

static tp_status fail_at(const struct reader *r, tp_status code,
                         const char *section, size_t offset, const char *fmt,
                         ...)
{
	char what[TP_ERROR_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tp_error_set(r->err, code, "%s: %s: offset %zu: %s", r->label,
	                    section, offset, what);
}

static tp_status decode_meta(const struct reader *r, size_t off, size_t n,
                             const tp_profile_limits *lim, tp_profile *p)
{
	const uint8_t *b = r->buf + off;
	uint32_t app_len;
	int64_t start;

	if (n < META_FIXED_BYTES)
		return fail_at(r, TP_ERR_PARSE, "header", off,
		               "section of %zu bytes, needs at least %d", n,
		               META_FIXED_BYTES);
	p->header.owner_uid = get_u32(b);
	p->header.ranks = get_u32(b + 4);
	p->header.ranks_per_node = get_u32(b + 8);
	app_len = get_u32(b + 12);
	p->header.job_id = get_u64(b + 16);
	start = (int64_t)get_u64(b + 24);
	p->header.start_us = start;
	p->header.duration_us = get_u64(b + 32);
	if (p->header.ranks == 0)
		return fail_at(r, TP_ERR_PARSE, "header", off + 4,
		               "ranks is 0");
	if (p->header.ranks > lim->max_ranks)
		return fail_at(r, TP_ERR_LIMIT, "header", off + 4,
		               "ranks %u > limit %u", p->header.ranks,
		               lim->max_ranks);
	if (p->header.ranks_per_node > p->header.ranks)
		return fail_at(r, TP_ERR_PARSE, "header", off + 8,
		               "ranks_per_node %u > ranks %u",
		               p->header.ranks_per_node, p->header.ranks);
	if (app_len == 0 || app_len > TP_PROFILE_APP_MAX ||
	    app_len != n - META_FIXED_BYTES)
		return fail_at(r, TP_ERR_PARSE, "header", off + 12,
		               "application name length %u does not fit "
		               "(1..%d, section leaves %zu)",
		               app_len, TP_PROFILE_APP_MAX,
		               n - META_FIXED_BYTES);
	memcpy(p->header.app, b + META_FIXED_BYTES, app_len);
	p->header.app[app_len] = '\0';
	if (!valid_app(p->header.app) || strlen(p->header.app) != app_len)
		return fail_at(r, TP_ERR_PARSE, "header",
		               off + META_FIXED_BYTES,
		               "application name is not printable ASCII");
	return TP_OK;
}

static tp_status decode_pairs(const struct reader *r, size_t off, size_t n,
                              const tp_profile_limits *lim, tp_profile *p)
{
	const uint8_t *b = r->buf + off;
	uint64_t count;
	uint32_t ranks = p->header.ranks;

	if (n < 8)
		return fail_at(r, TP_ERR_PARSE, "matrix", off,
		               "section of %zu bytes, needs at least 8", n);
	count = get_u64(b);
	if (count > lim->max_pairs)
		return fail_at(r, TP_ERR_LIMIT, "matrix", off,
		               "%llu entries > limit %zu",
		               (unsigned long long)count, lim->max_pairs);
	/* count <= max_pairs (a size_t) so the product cannot wrap. */
	if ((n - 8) / TP_PROFILE_PAIR_BYTES != count ||
	    (n - 8) % TP_PROFILE_PAIR_BYTES)
		return fail_at(
		    r, TP_ERR_PARSE, "matrix", off,
		    "%llu entries need %llu bytes, section has %zu",
		    (unsigned long long)count,
		    (unsigned long long)(8 + count * TP_PROFILE_PAIR_BYTES), n);
	if (count) {
		p->pairs = malloc((size_t)count * sizeof(*p->pairs));
		if (!p->pairs)
			return fail_at(r, TP_ERR_NOMEM, "matrix", off,
			               "out of memory for %llu entries",
			               (unsigned long long)count);
		p->pair_capacity = (size_t)count;
	}
	b += 8;
	for (size_t i = 0; i < count; i++, b += TP_PROFILE_PAIR_BYTES) {
		tp_profile_pair *e = &p->pairs[i];
		size_t at = off + 8 + i * TP_PROFILE_PAIR_BYTES;

		e->src = get_u32(b);
		e->dst = get_u32(b + 4);
		e->bytes = get_u64(b + 8);
		e->msgs = get_u64(b + 16);
		if (e->src >= ranks || e->dst >= ranks)
			return fail_at(r, TP_ERR_PARSE, "matrix", at,
			               "entry %zu: %u -> %u: rank >= ranks %u",
			               i, e->src, e->dst, ranks);
		if (!e->bytes && !e->msgs)
			return fail_at(r, TP_ERR_PARSE, "matrix", at,
			               "entry %zu: %u -> %u is all zero", i,
			               e->src, e->dst);
		if (i && (e->src < e[-1].src ||
		          (e->src == e[-1].src && e->dst <= e[-1].dst)))
			return fail_at(r, TP_ERR_PARSE, "matrix", at,
			               "entry %zu: %u -> %u not after %u -> %u "
			               "(entries must be sorted, unique)",
			               i, e->src, e->dst, e[-1].src, e[-1].dst);
		p->pair_count = i + 1;
	}
	return TP_OK;
}

static tp_status decode_collectives(const struct reader *r, size_t off,
                                    size_t n, const tp_profile_limits *lim,
                                    tp_profile *p)
{
	const uint8_t *b = r->buf + off;
	uint32_t count;

	if (n < 8)
		return fail_at(r, TP_ERR_PARSE, "collectives", off,
		               "section of %zu bytes, needs at least 8", n);
	count = get_u32(b);
	if (get_u32(b + 4))
		return fail_at(r, TP_ERR_PARSE, "collectives", off + 4,
		               "reserved field not zero");
	if (count > lim->max_collectives)
		return fail_at(r, TP_ERR_LIMIT, "collectives", off,
		               "%u collectives > limit %zu", count,
		               lim->max_collectives);
	if ((n - 8) / COLL_RECORD_BYTES != count || (n - 8) % COLL_RECORD_BYTES)
		return fail_at(r, TP_ERR_PARSE, "collectives", off,
		               "%u records need %zu bytes, section has %zu",
		               count, 8 + (size_t)count * COLL_RECORD_BYTES, n);
	if (count) {
		p->collectives = calloc(count, sizeof(*p->collectives));
		if (!p->collectives)
			return fail_at(r, TP_ERR_NOMEM, "collectives", off,
			               "out of memory");
		p->collective_capacity = count;
	}
	b += 8;
	for (size_t i = 0; i < count; i++, b += COLL_RECORD_BYTES) {
		tp_profile_collective *c = &p->collectives[i];
		size_t at = off + 8 + i * COLL_RECORD_BYTES;
		size_t name_len =
		    strnlen((const char *)b, TP_PROFILE_COLL_NAME_MAX + 1);

		if (name_len > TP_PROFILE_COLL_NAME_MAX ||
		    !valid_coll_name((const char *)b, name_len))
			return fail_at(r, TP_ERR_PARSE, "collectives", at,
			               "record %zu: name is not 1..%d of "
			               "[A-Za-z0-9_]",
			               i, TP_PROFILE_COLL_NAME_MAX);
		for (size_t k = name_len; k <= TP_PROFILE_COLL_NAME_MAX; k++)
			if (b[k])
				return fail_at(r, TP_ERR_PARSE, "collectives",
				               at + k,
				               "record %zu: name padding not "
				               "zero",
				               i);
		memcpy(c->name, b, name_len + 1);
		c->calls = get_u64(b + TP_PROFILE_COLL_NAME_MAX + 1);
		c->bytes = get_u64(b + TP_PROFILE_COLL_NAME_MAX + 9);
		if (i && strcmp(c[-1].name, c->name) >= 0)
			return fail_at(r, TP_ERR_PARSE, "collectives", at,
			               "record %zu: '%s' not after '%s' "
			               "(names must be sorted, unique)",
			               i, c->name, c[-1].name);
		p->collective_count = i + 1;
	}
	return TP_OK;
}

static tp_status decode_io(const struct reader *r, size_t off, size_t n,
                           tp_profile *p)
{
	const uint8_t *b = r->buf + off;
	uint32_t buckets, count;
	uint64_t hist_sum = 0;

	if (n < IO_FIXED_BYTES)
		return fail_at(r, TP_ERR_PARSE, "io", off,
		               "section of %zu bytes, needs at least %d", n,
		               IO_FIXED_BYTES);
	p->io.requests = get_u64(b);
	p->io.read_bytes = get_u64(b + 8);
	p->io.write_bytes = get_u64(b + 16);
	p->io.time_us = get_u64(b + 24);
	buckets = get_u32(b + 32);
	count = get_u32(b + 36);
	if (buckets != TP_PROFILE_IO_BUCKETS)
		return fail_at(r, TP_ERR_PARSE, "io", off + 32,
		               "%u histogram buckets, format 1 has %d", buckets,
		               TP_PROFILE_IO_BUCKETS);
	if (count > p->header.ranks)
		return fail_at(r, TP_ERR_PARSE, "io", off + 36,
		               "%u clients > ranks %u", count, p->header.ranks);
	if ((n - IO_FIXED_BYTES) / IO_CLIENT_BYTES != count ||
	    (n - IO_FIXED_BYTES) % IO_CLIENT_BYTES)
		return fail_at(
		    r, TP_ERR_PARSE, "io", off,
		    "%u clients need %zu bytes, section has %zu", count,
		    IO_FIXED_BYTES + (size_t)count * IO_CLIENT_BYTES, n);
	for (int k = 0; k < TP_PROFILE_IO_BUCKETS; k++) {
		p->io.size_hist[k] = get_u64(b + 40 + 8 * k);
		hist_sum = add_sat(hist_sum, p->io.size_hist[k]);
	}
	if (hist_sum != p->io.requests)
		return fail_at(r, TP_ERR_PARSE, "io", off + 40,
		               "size histogram sums to %llu, requests is %llu",
		               (unsigned long long)hist_sum,
		               (unsigned long long)p->io.requests);
	if (count) {
		p->io.clients = calloc(count, sizeof(*p->io.clients));
		if (!p->io.clients)
			return fail_at(r, TP_ERR_NOMEM, "io", off,
			               "out of memory");
		p->io.client_capacity = count;
	}
	b += IO_FIXED_BYTES;
	for (size_t i = 0; i < count; i++, b += IO_CLIENT_BYTES) {
		tp_profile_io_client *c = &p->io.clients[i];
		size_t at = off + IO_FIXED_BYTES + i * IO_CLIENT_BYTES;

		c->rank = get_u32(b);
		c->requests = get_u64(b + 8);
		c->bytes = get_u64(b + 16);
		c->interval_p10_us = get_u64(b + 24);
		c->interval_p50_us = get_u64(b + 32);
		c->interval_p90_us = get_u64(b + 40);
		c->interval_p99_us = get_u64(b + 48);
		if (get_u32(b + 4))
			return fail_at(r, TP_ERR_PARSE, "io", at + 4,
			               "client %zu: reserved field not zero",
			               i);
		if (c->rank >= p->header.ranks || (i && c[-1].rank >= c->rank))
			return fail_at(r, TP_ERR_PARSE, "io", at,
			               "client %zu: rank %u out of range or "
			               "not sorted",
			               i, c->rank);
		if (c->interval_p10_us > c->interval_p50_us ||
		    c->interval_p50_us > c->interval_p90_us ||
		    c->interval_p90_us > c->interval_p99_us)
			return fail_at(r, TP_ERR_PARSE, "io", at + 24,
			               "client rank %u: interval percentiles "
			               "not increasing",
			               c->rank);
		p->io.client_count = i + 1;
	}
	return TP_OK;
}

/* Lengths checked against the section, then the shared invariants. */
static tp_status decode_exec(const struct reader *r, size_t off, size_t n,
                             tp_profile *p)
{
	const uint8_t *b = r->buf + off;
	uint32_t path_len, layout_len;
	tp_exec_id *e = &p->exec;
	const char *problem;

	if (n < EXEC_FIXED_BYTES)
		return fail_at(r, TP_ERR_PARSE, "exec", off,
		               "section of %zu bytes, needs at least %d", n,
		               EXEC_FIXED_BYTES);
	e->hash_method = get_u32(b);
	path_len = get_u32(b + 4);
	e->size_bytes = get_u64(b + 8);
	memcpy(e->sha256, b + 16, TP_SHA256_BYTES);
	layout_len = get_u32(b + 48);
	if (get_u32(b + 52))
		return fail_at(r, TP_ERR_PARSE, "exec", off + 52,
		               "reserved field not zero");
	if (path_len > TP_EXEC_PATH_MAX || layout_len > TP_EXEC_LAYOUT_MAX ||
	    n != EXEC_FIXED_BYTES + (size_t)path_len + layout_len)
		return fail_at(r, TP_ERR_PARSE, "exec", off + 4,
		               "path of %u and layout of %u bytes (at most %d "
		               "and %d) do not fill the section of %zu bytes",
		               path_len, layout_len, TP_EXEC_PATH_MAX,
		               TP_EXEC_LAYOUT_MAX, n);
	memcpy(e->path, b + EXEC_FIXED_BYTES, path_len);
	e->path[path_len] = '\0';
	memcpy(e->layout, b + EXEC_FIXED_BYTES + path_len, layout_len);
	e->layout[layout_len] = '\0';
	/* An embedded NUL would make the strings shorter than stored. */
	if (strlen(e->path) != path_len || strlen(e->layout) != layout_len)
		return fail_at(r, TP_ERR_PARSE, "exec", off + EXEC_FIXED_BYTES,
		               "NUL byte inside the path or layout");
	problem = exec_problem(e, p->header.ranks);
	if (problem)
		return fail_at(r, TP_ERR_PARSE, "exec", off, "%s", problem);
	return TP_OK;
}

static tp_status decode_args(const struct reader *r, size_t off, size_t n,
                             tp_profile *p)
{
	const uint8_t *b = r->buf + off;
	const char *problem;

	if (n != ARGS_BYTES)
		return fail_at(r, TP_ERR_PARSE, "args", off,
		               "section of %zu bytes, must be %d", n,
		               ARGS_BYTES);
	p->exec.args_method = get_u32(b);
	p->exec.args_count = get_u32(b + 4);
	memcpy(p->exec.args_sha256, b + 8, TP_SHA256_BYTES);
	problem = args_problem(&p->exec);
	if (problem)
		return fail_at(r, TP_ERR_PARSE, "args", off, "%s", problem);
	return TP_OK;
}

static tp_status decode_sections(const struct reader *r, size_t body_end,
                                 unsigned minor, const tp_profile_limits *lim,
                                 tp_profile *p)
{
	size_t off = TP_PROFILE_HEADER_BYTES;
	uint32_t expect = SECTION_META;
	tp_status st = TP_OK;

	while (off < body_end) {
		uint32_t tag;
		uint64_t n;

		if (body_end - off < SECTION_HEADER_BYTES)
			return fail_at(r, TP_ERR_PARSE, "sections", off,
			               "truncated section header (%zu bytes "
			               "left)",
			               body_end - off);
		tag = get_u32(r->buf + off);
		n = get_u64(r->buf + off + 8);
		if (get_u32(r->buf + off + 4))
			return fail_at(r, TP_ERR_PARSE, section_name(tag),
			               off + 4, "reserved field not zero");
		off += SECTION_HEADER_BYTES;
		if (n > body_end - off)
			return fail_at(r, TP_ERR_PARSE, section_name(tag),
			               off - 8,
			               "section length %llu runs past the "
			               "body (%zu bytes left)",
			               (unsigned long long)n, body_end - off);
		if (tag <= SECTION_LAST && section_minor(tag) > minor)
			return fail_at(r, TP_ERR_PARSE, section_name(tag),
			               off - SECTION_HEADER_BYTES,
			               "%s section in a version %u.%u file "
			               "(it came with %u.%u)",
			               section_name(tag), TP_PROFILE_VERSION_MAJOR,
			               minor, TP_PROFILE_VERSION_MAJOR,
			               section_minor(tag));
		if (tag != expect) {
			/* Minor versions may add sections after the known. */
			if (tag > SECTION_LAST && expect > SECTION_LAST &&
			    minor > TP_PROFILE_VERSION_MINOR) {
				off += n;
				continue;
			}
			return fail_at(r, TP_ERR_PARSE, "sections",
			               off - SECTION_HEADER_BYTES,
			               "section tag %u where %s (%u) was "
			               "expected",
			               tag, section_name(expect), expect);
		}
		switch (tag) {
		case SECTION_META:
			st = decode_meta(r, off, n, lim, p);
			break;
		case SECTION_PAIRS:
			st = decode_pairs(r, off, n, lim, p);
			break;
		case SECTION_COLLECTIVES:
			st = decode_collectives(r, off, n, lim, p);
			break;
		case SECTION_IO:
			st = decode_io(r, off, n, p);
			break;
		case SECTION_EXEC:
			st = decode_exec(r, off, n, p);
			break;
		case SECTION_ARGS:
			st = decode_args(r, off, n, p);
			break;
		}
		if (st != TP_OK)
			return st;
		off += n;
		expect++;
	}
	/* Minor 0 ends after io, minor 1 after exec; from minor 2 on the
	 * args section is due too. */
	if (expect <= last_section_of(minor))
		return fail_at(r, TP_ERR_PARSE, "sections", off,
		               "file ends before the %s section",
		               section_name(expect));
	return TP_OK;
}

tp_status tp_profile_decode(const char *label, const uint8_t *buf, size_t len,
                            const tp_profile_limits *limits,
                            tp_profile **profile, tp_error *err)
{
	tp_profile_limits lim = limits ? *limits : tp_profile_default_limits();
	struct reader r = {label ? label : "profile", buf, len, err};
	uint8_t digest[TP_SHA256_BYTES];
	uint64_t body, cred_len;
	unsigned major, minor;
	size_t body_end;
	tp_profile *p;
	tp_status st;

	*profile = NULL;
	if (len > lim.max_file_bytes)
		return fail_at(&r, TP_ERR_LIMIT, "file", 0,
		               "%zu bytes > limit %zu", len,
		               lim.max_file_bytes);
	if (len < TP_PROFILE_MAGIC_BYTES ||
	    memcmp(buf, TP_PROFILE_MAGIC, TP_PROFILE_MAGIC_BYTES))
		return fail_at(&r, TP_ERR_PARSE, "file", 0,
		               "not a topoplace profile (bad magic)");
	if (len < TP_PROFILE_HEADER_BYTES)
		return fail_at(&r, TP_ERR_PARSE, "file", len,
		               "truncated: %zu bytes, the file header alone "
		               "is %d",
		               len, TP_PROFILE_HEADER_BYTES);
	major = get_u16(buf + 8);
	minor = get_u16(buf + 10);
	if (major != TP_PROFILE_VERSION_MAJOR)
		return fail_at(&r, TP_ERR_UNSUPPORTED, "file", 8,
		               "format version %u.%u not supported (this "
		               "reader reads %d.x)",
		               major, minor, TP_PROFILE_VERSION_MAJOR);
	if (get_u32(buf + 12) != TP_PROFILE_HEADER_BYTES)
		return fail_at(&r, TP_ERR_PARSE, "file", 12,
		               "header size %u, expected %d", get_u32(buf + 12),
		               TP_PROFILE_HEADER_BYTES);
	if (get_u64(buf + 24))
		return fail_at(&r, TP_ERR_PARSE, "file", 24,
		               "reserved field not zero");
	body = get_u64(buf + 16);
	if (body > len - TP_PROFILE_HEADER_BYTES ||
	    len - TP_PROFILE_HEADER_BYTES - body < TRAILER_FIXED_BYTES)
		return fail_at(&r, TP_ERR_PARSE, "file", 16,
		               "truncated: body of %llu bytes and trailer "
		               "need more than the %zu bytes of the file",
		               (unsigned long long)body, len);
	body_end = TP_PROFILE_HEADER_BYTES + (size_t)body;
	cred_len = get_u32(buf + body_end + TP_SHA256_BYTES);
	if (get_u32(buf + body_end + TP_SHA256_BYTES + 4))
		return fail_at(&r, TP_ERR_PARSE, "trailer",
		               body_end + TP_SHA256_BYTES + 4,
		               "reserved field not zero");
	if (cred_len > TP_PROFILE_CREDENTIAL_MAX ||
	    cred_len != len - body_end - TRAILER_FIXED_BYTES)
		return fail_at(&r, TP_ERR_PARSE, "trailer",
		               body_end + TP_SHA256_BYTES,
		               "credential length %llu but %zu bytes follow "
		               "(truncated or trailing garbage)",
		               (unsigned long long)cred_len,
		               len - body_end - TRAILER_FIXED_BYTES);
	/* Integrity before structure: a flipped bit is reported as such. */
	tp_sha256(buf, body_end, digest);
	if (memcmp(digest, buf + body_end, TP_SHA256_BYTES))
		return fail_at(&r, TP_ERR_PARSE, "trailer", body_end,
		               "checksum mismatch: SHA-256 of the %zu bytes "
		               "before does not match the stored digest "
		               "(file corrupted or tampered with)",
		               body_end);

	p = calloc(1, sizeof(*p));
	if (!p)
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    r.label);
	st = decode_sections(&r, body_end, minor, &lim, p);
	if (st == TP_OK && cred_len) {
		const uint8_t *c = buf + body_end + TRAILER_FIXED_BYTES;

		for (size_t i = 0; i < cred_len; i++)
			if (c[i] < 0x21 || c[i] > 0x7e) {
				st = fail_at(&r, TP_ERR_PARSE, "trailer",
				             body_end + TRAILER_FIXED_BYTES + i,
				             "credential byte 0x%02x is not "
				             "printable",
				             c[i]);
				break;
			}
		if (st == TP_OK) {
			p->credential = malloc(cred_len + 1);
			if (!p->credential)
				st = tp_error_set(err, TP_ERR_NOMEM,
				                  "%s: out of memory", r.label);
			else {
				memcpy(p->credential, c, cred_len);
				p->credential[cred_len] = '\0';
			}
		}
	}
	if (st != TP_OK) {
		tp_profile_free(p);
		return st;
	}
	memcpy(p->digest, digest, TP_SHA256_BYTES);
	*profile = p;
	return TP_OK;
}

tp_status tp_profile_slurp_fd(int fd, const char *label, size_t max_bytes,
                              uint8_t **buf, size_t *len, tp_error *err)
{
	struct stat st;
	size_t got = 0, size;
	uint8_t *data;

	*buf = NULL;
	*len = 0;
	if (fstat(fd, &st))
		return tp_error_set(err, TP_ERR_IO, "%s: fstat: %s", label,
		                    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return tp_error_set(err, TP_ERR_IO, "%s: not a regular file",
		                    label);
	if (st.st_size < 0 || (uint64_t)st.st_size > max_bytes)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: file: %lld bytes > limit %zu", label,
		                    (long long)st.st_size, max_bytes);
	size = (size_t)st.st_size;
	/* One spare byte tells a file that grew while being read. */
	data = malloc(size + 1);
	if (!data)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "%s: out of memory for %zu bytes", label,
		                    size);
	while (got < size + 1) {
		ssize_t n = read(fd, data + got, size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(data);
			return tp_error_set(err, TP_ERR_IO, "%s: read: %s",
			                    label, strerror(errno));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got != size) {
		free(data);
		return tp_error_set(err, TP_ERR_IO,
		                    "%s: file changed size while being read "
		                    "(%zu bytes, expected %zu)",
		                    label, got, size);
	}
	*buf = data;
	*len = size;
	return TP_OK;
}

tp_status tp_profile_read_file(const char *path,
                               const tp_profile_limits *limits,
                               tp_profile **profile, tp_error *err)
{
	tp_profile_limits lim = limits ? *limits : tp_profile_default_limits();
	uint8_t *buf;
	size_t len;
	tp_status st;
	int fd;

	*profile = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(
		    err, errno == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
		    "%s: open: %s", path,
		    errno == ELOOP ? "is a symbolic link" : strerror(errno));
	st = tp_profile_slurp_fd(fd, path, lim.max_file_bytes, &buf, &len, err);
	close(fd);
	if (st != TP_OK)
		return st;
	st = tp_profile_decode(path, buf, len, &lim, profile, err);
	free(buf);
	return st;
}

tp_status tp_profile_write_file(const char *path, tp_profile *profile,
                                tp_error *err)
{
	char tmp[4096], dir[4096];
	uint8_t *buf;
	size_t len;
	tp_status st;
	char *slash;
	int fd, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	        (int)sizeof(tmp) ||
	    snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return tp_error_set(err, TP_ERR_INVALID, "%s: path too long",
		                    path);
	st = tp_profile_encode(profile, &buf, &len, err);
	if (st != TP_OK)
		return tp_error_prefix(err, "%s", path);
	if (tp_file_write_in_place(path)) {
		st = tp_file_write_into(path, buf, len, err);
		free(buf);
		return st;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	          0644);
	if (fd < 0) {
		saved = errno;
		free(buf);
		return tp_error_set(err, TP_ERR_IO, "%s: create: %s", tmp,
		                    strerror(saved));
	}
	if (tp_file_write_all(fd, buf, len) || fsync(fd)) {
		saved = errno;
		close(fd);
		unlink(tmp);
		free(buf);
		return tp_error_set(err, TP_ERR_IO, "%s: write: %s", tmp,
		                    strerror(saved));
	}
	free(buf);
	if (close(fd) || rename(tmp, path)) {
		saved = errno;
		unlink(tmp);
		return tp_error_set(err, TP_ERR_IO, "%s: rename: %s", path,
		                    strerror(saved));
	}
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		/* The rename is durable once the directory is. */
		fsync(fd);
		close(fd);
	}
	return TP_OK;
}
