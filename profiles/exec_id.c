/*
 * exec_id.c: hash an executable within a bound and print and check the
 * rank layout, and digest a command's arguments (exec_id.h).
 *
 * The file is read with pread at fixed offsets, not mapped: a file that
 * shrinks under us gives a short read (an error) instead of SIGBUS in the
 * profiler's rank 0 or in slurmstepd.
 */
#include "tp_config.h"

#include <errno.h>
#include <stdbool.h>
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

/* @dir (relative: under @cwd) + "/" + @file into @out; -1: too long. */
static int join_path(const char *cwd, const char *dir, size_t dir_len,
                     const char *file, char *out, size_t size)
{
	int n;

	if (dir_len && dir[0] == '/')
		n = snprintf(out, size, "%.*s/%s", (int)dir_len, dir, file);
	else if (dir_len)
		n = snprintf(out, size, "%s/%.*s/%s", cwd ? cwd : "",
		             (int)dir_len, dir, file);
	else
		n = snprintf(out, size, "%s/%s", cwd ? cwd : "", file);
	return n < 0 || (size_t)n >= size || out[0] != '/' ? -1 : 0;
}

/* Whether @path is a regular file the caller may execute; @denied is set
 * when it exists but may not be executed. */
static bool runnable(const char *path, bool *denied)
{
	struct stat sb;

	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return false;
	if (access(path, X_OK)) {
		*denied = true;
		return false;
	}
	return true;
}

tp_status tp_exec_resolve(const char *argv0, const char *path_env,
                          const char *cwd, char *out, size_t size,
                          tp_error *err)
{
	char candidate[TP_EXEC_PATH_MAX + 1];
	const char *dir = path_env ? path_env : TP_EXEC_DEFAULT_PATH;
	bool denied = false;
	unsigned searched = 0;

	if (!argv0 || !argv0[0])
		return tp_error_set(err, TP_ERR_INVALID, "no command");
	if (strchr(argv0, '/')) {
		if (argv0[0] == '/'
		        ? snprintf(candidate, sizeof(candidate), "%s", argv0) >=
		              (int)sizeof(candidate)
		        : join_path(cwd, "", 0, argv0, candidate,
		                    sizeof(candidate)))
			return tp_error_set(err, TP_ERR_INVALID,
			                    "command %.80s: the path is longer "
			                    "than %d bytes or relative to no "
			                    "working directory",
			                    argv0, TP_EXEC_PATH_MAX);
		if (!runnable(candidate, &denied))
			return tp_error_set(
			    err, denied ? TP_ERR_IO : TP_ERR_NOTFOUND,
			    "command %.200s: %s", candidate,
			    denied ? "not executable by the user"
			           : "no such file");
		snprintf(out, size, "%s", candidate);
		return TP_OK;
	}
	for (;;) {
		const char *end = strchr(dir, ':');
		size_t len = end ? (size_t)(end - dir) : strlen(dir);

		searched++;
		if (!join_path(cwd, dir, len, argv0, candidate,
		               sizeof(candidate)) &&
		    runnable(candidate, &denied)) {
			if (strlen(candidate) >= size)
				break;
			snprintf(out, size, "%s", candidate);
			return TP_OK;
		}
		if (!end)
			break;
		dir = end + 1;
	}
	if (denied)
		return tp_error_set(err, TP_ERR_IO,
		                    "command %.80s: found on PATH but not "
		                    "executable by the user",
		                    argv0);
	return tp_error_set(err, TP_ERR_NOTFOUND,
	                    "command %.80s: not found in the %u directories "
	                    "of PATH",
	                    argv0, searched);
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x > y ? -1 : x < y;
}

bool tp_exec_is_interpreter(const char *path)
{
	/* Names that are the whole file name, then prefixes (python3.11,
	 * perl5.36, mpiexec.hydra, ...). */
	static const char *const exact[] = {
	    "R",   "Rscript", "java", "sh",    "bash",   "dash",    "zsh",
	    "ksh", "csh",     "tcsh", "env",   "mpirun", "orterun", "prterun"};
	static const char *const prefix[] = {
	    "python", "pypy", "perl",   "ruby", "julia", "node",
	    "lua",    "octave", "php",  "tclsh", "mpiexec"};
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	if (!base || !base[0])
		return false;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(base, exact[i]))
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(base, prefix[i], strlen(prefix[i])))
			return true;
	return false;
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

/* Feed one argument, length-prefixed, into @ctx. */
static void args_add(tp_sha256_ctx *ctx, const char *arg, size_t len)
{
	uint8_t len_le[8];

	for (int i = 0; i < 8; i++)
		len_le[i] = (uint8_t)((uint64_t)len >> (8 * i));
	tp_sha256_update(ctx, len_le, sizeof(len_le));
	tp_sha256_update(ctx, arg, len);
}

static void args_unknown(tp_exec_id *id)
{
	id->args_method = TP_EXEC_ARGS_NONE;
	id->args_count = 0;
	memset(id->args_sha256, 0, sizeof(id->args_sha256));
}

void tp_exec_args_digest(const char *const *args, size_t argc, tp_exec_id *id)
{
	tp_sha256_ctx ctx;
	uint64_t bytes = 0;

	args_unknown(id);
	/* The bound first, so an over-long list costs no hashing. */
	for (size_t i = 0; i < argc; i++) {
		bytes += (uint64_t)strnlen(args[i], TP_EXEC_ARGS_MAX_BYTES) + 1;
		if (bytes > TP_EXEC_ARGS_MAX_BYTES || argc > UINT32_MAX)
			return;
	}
	tp_sha256_init(&ctx);
	for (size_t i = 0; i < argc; i++)
		args_add(&ctx, args[i], strlen(args[i]));
	tp_sha256_final(&ctx, id->args_sha256);
	id->args_count = (uint32_t)argc;
	id->args_method = TP_EXEC_ARGS_FULL;
}

void tp_exec_args_from_cmdline(const char *buf, size_t len, tp_exec_id *id)
{
	const char *p, *end = buf + len, *nul;
	tp_sha256_ctx ctx;
	uint32_t count = 0;

	args_unknown(id);
	if (!len || buf[len - 1] != '\0')
		return;
	p = (const char *)memchr(buf, '\0', len) + 1; /* past argv[0] */
	if ((uint64_t)(end - p) > TP_EXEC_ARGS_MAX_BYTES)
		return;
	tp_sha256_init(&ctx);
	for (; p < end; p = nul + 1, count++) {
		nul = memchr(p, '\0', (size_t)(end - p));
		args_add(&ctx, p, (size_t)(nul - p));
	}
	tp_sha256_final(&ctx, id->args_sha256);
	id->args_count = count;
	id->args_method = TP_EXEC_ARGS_FULL;
}

tp_status tp_exec_args_read(const char *path, tp_exec_id *id, tp_error *err)
{
	/* One byte more than the most a digest is made of: a file that
	 * fills the buffer is over the bound. */
	size_t cap = (size_t)(TP_EXEC_ARG0_MAX_BYTES + TP_EXEC_ARGS_MAX_BYTES) +
	             1,
	       len = 0;
	char *buf;
	ssize_t n;
	int fd;

	args_unknown(id);
	if (!(buf = malloc(cap)))
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return tp_error_set(err, TP_ERR_IO, "%s: open: %s", path,
		                    strerror(errno));
	}
	while (len < cap) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			close(fd);
			free(buf);
			return tp_error_set(err, TP_ERR_IO, "%s: read: %s",
			                    path, strerror(saved));
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len < cap)
		tp_exec_args_from_cmdline(buf, len, id);
	free(buf);
	return TP_OK;
}

const char *tp_exec_args_method_name(uint32_t method)
{
	switch (method) {
	case TP_EXEC_ARGS_NONE:
		return "none";
	case TP_EXEC_ARGS_FULL:
		return "full";
	default:
		return "?";
	}
}

int tp_exec_args_method_parse(const char *name)
{
	for (uint32_t m = 0; m <= TP_EXEC_ARGS_METHOD_LAST; m++)
		if (!strcmp(name, tp_exec_args_method_name(m)))
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

int tp_exec_id_same_command(const tp_exec_id *a, const tp_exec_id *b)
{
	return tp_exec_id_same_program(a, b) &&
	       a->args_method != TP_EXEC_ARGS_NONE &&
	       a->args_method == b->args_method &&
	       a->args_count == b->args_count &&
	       !memcmp(a->args_sha256, b->args_sha256, TP_SHA256_BYTES);
}
