/*
 * exec_id.c: hash an executable within a bound and print and check the
 * rank layout (exec_id.h).
 *
 * The file is read with pread at fixed offsets, not mapped: a file that
 * shrinks under us gives a short read (an error) instead of SIGBUS in the
 * profiler's rank 0 or in slurmstepd.
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec_id.h"

/* Hashed first in a sampled hash, so it never equals a full file hash. */
static const char sampled_prefix[] = "topoplace-exec-sampled-1";

#define CHUNK_BYTES 65536

/* Feed @len bytes of @fd from @off into @ctx; -1 on error or short read. */
static int hash_range(int fd, uint64_t off, uint64_t len, tp_sha256_ctx *ctx)
{
	static const size_t chunk = CHUNK_BYTES;
	uint8_t buf[CHUNK_BYTES];

	while (len) {
		size_t want = len < chunk ? (size_t)len : chunk;
		ssize_t n = pread(fd, buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		tp_sha256_update(ctx, buf, (size_t)n);
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

tp_status tp_exec_hash_fd(int fd, const char *label, tp_exec_id *id,
                          tp_error *err)
{
	tp_sha256_ctx ctx;
	struct stat st, after;
	uint64_t size;
	uint8_t size_le[8];
	int bad;

	id->hash_method = TP_EXEC_HASH_NONE;
	id->size_bytes = 0;
	memset(id->sha256, 0, sizeof(id->sha256));
	if (fstat(fd, &st))
		return tp_error_set(err, TP_ERR_IO, "executable %s: fstat: %s",
		                    label, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return tp_error_set(err, TP_ERR_IO,
		                    "executable %s: not a regular file", label);
	size = (uint64_t)st.st_size;
	tp_sha256_init(&ctx);
	if (size <= TP_EXEC_HASH_FULL_MAX_BYTES) {
		bad = hash_range(fd, 0, size, &ctx);
	} else {
		for (int i = 0; i < 8; i++)
			size_le[i] = (uint8_t)(size >> (8 * i));
		tp_sha256_update(&ctx, sampled_prefix, sizeof(sampled_prefix));
		tp_sha256_update(&ctx, size_le, sizeof(size_le));
		bad = hash_range(fd, 0, TP_EXEC_HASH_SAMPLE_BYTES, &ctx) ||
		      hash_range(fd, size - TP_EXEC_HASH_SAMPLE_BYTES,
		                 TP_EXEC_HASH_SAMPLE_BYTES, &ctx);
	}
	if (bad || fstat(fd, &after) || after.st_size != st.st_size ||
	    after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
	    after.st_mtim.tv_nsec != st.st_mtim.tv_nsec)
		return tp_error_set(err, TP_ERR_IO,
		                    "executable %s: read failed or the file "
		                    "changed while hashed",
		                    label);
	tp_sha256_final(&ctx, id->sha256);
	id->size_bytes = size;
	id->hash_method = size <= TP_EXEC_HASH_FULL_MAX_BYTES
	                      ? TP_EXEC_HASH_FULL
	                      : TP_EXEC_HASH_SAMPLED;
	return TP_OK;
}

static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return 1;
}

tp_status tp_exec_hash_path(const char *path, tp_exec_id *id, tp_error *err)
{
	size_t n = strnlen(path, TP_EXEC_PATH_MAX + 1);
	tp_status st;
	int fd;

	if (path[0] != '/' || n > TP_EXEC_PATH_MAX || !printable(path, n))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "executable '%.80s': not an absolute "
		                    "printable path of at most %d bytes",
		                    path, TP_EXEC_PATH_MAX);
	memcpy(id->path, path, n + 1);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(
		    err, errno == ENOENT ? TP_ERR_NOTFOUND : TP_ERR_IO,
		    "executable %s: open: %s", path, strerror(errno));
	st = tp_exec_hash_fd(fd, path, id, err);
	close(fd);
	return st;
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x > y ? -1 : x < y;
}

int tp_exec_layout_format(uint32_t *node_ranks, size_t nodes, char *out,
                          size_t size)
{
	size_t used = 0, i = 0;
	int n;

	if (size)
		out[0] = '\0';
	if (nodes)
		qsort(node_ranks, nodes, sizeof(*node_ranks), cmp_desc);
	if (!nodes || !node_ranks[0] || size < 2)
		return -1;
	if (size > TP_EXEC_LAYOUT_MAX + 1)
		size = TP_EXEC_LAYOUT_MAX + 1;
	while (i < nodes && node_ranks[i]) {
		size_t run = 1;

		while (i + run < nodes && node_ranks[i + run] == node_ranks[i])
			run++;
		n = snprintf(out + used, size - used, "%s%zux%u",
		             used ? "+" : "", run, node_ranks[i]);
		if (n < 0 || (size_t)n >= size - used) {
			out[0] = '\0';
			return -1;
		}
		used += (size_t)n;
		i += run;
	}
	return 0;
}

/* One decimal >= 1 that fits uint32 at *@p; advances *@p. */
static int parse_count(const char **p, uint32_t *value)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '1' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s++ - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*value = (uint32_t)v;
	*p = s;
	return 0;
}

tp_status tp_exec_layout_check(const char *layout, uint32_t ranks,
                               tp_error *err)
{
	const char *p = layout;
	uint64_t sum = 0;
	uint32_t nodes, per_node, last = UINT32_MAX;
	unsigned term = 1;
	size_t n = strnlen(layout, TP_EXEC_LAYOUT_MAX + 1);

	if (n > TP_EXEC_LAYOUT_MAX)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "layout: longer than %d bytes",
		                    TP_EXEC_LAYOUT_MAX);
	if (!n)
		return TP_OK;
	for (;; term++) {
		if (parse_count(&p, &nodes) || *p++ != 'x' ||
		    parse_count(&p, &per_node) || per_node >= last ||
		    (*p && *p != '+'))
			return tp_error_set(
			    err, TP_ERR_INVALID,
			    "layout '%s': term %u is not "
			    "<nodes>x<ranks per node> with ranks "
			    "per node decreasing",
			    layout, term);
		sum += (uint64_t)nodes * per_node;
		last = per_node;
		if (!*p)
			break;
		p++;
	}
	if (sum != ranks)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "layout '%s': %llu ranks, the run has %u",
		                    layout, (unsigned long long)sum, ranks);
	return TP_OK;
}

const char *tp_exec_hash_method_name(uint32_t method)
{
	switch (method) {
	case TP_EXEC_HASH_NONE:
		return "none";
	case TP_EXEC_HASH_FULL:
		return "full";
	case TP_EXEC_HASH_SAMPLED:
		return "sampled";
	default:
		return "?";
	}
}

int tp_exec_hash_method_parse(const char *name)
{
	for (uint32_t m = 0; m <= TP_EXEC_HASH_METHOD_LAST; m++)
		if (!strcmp(name, tp_exec_hash_method_name(m)))
			return (int)m;
	return -1;
}

int tp_exec_id_same_program(const tp_exec_id *a, const tp_exec_id *b)
{
	return a->hash_method != TP_EXEC_HASH_NONE &&
	       a->hash_method == b->hash_method &&
	       a->size_bytes == b->size_bytes &&
	       !memcmp(a->sha256, b->sha256, TP_SHA256_BYTES);
}
