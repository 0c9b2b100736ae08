/*
 * summary.c: build, print and parse a profile run's summary (summary.h).
 *
 * The parser is strict (every key, once, in order; nothing else) because
 * slurmctld reads these files as root from directories users own: a file
 * that is not exactly what the store writes is "bad", and the reader falls
 * back to the run itself rather than guess.
 */
#include "tp_config.h"

#include "summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Typical request size: the lower bound of the histogram's median bucket. */
static uint64_t median_request_bytes(const tp_profile_io *io)
{
	uint64_t seen = 0;

	if (!io->requests)
		return 0;
	for (int i = 0; i < TP_PROFILE_IO_BUCKETS; i++) {
		seen += io->size_hist[i];
		if (seen * 2 >= io->requests)
			return i == 0 ? 1 : (uint64_t)1 << i;
	}
	return (uint64_t)1 << (TP_PROFILE_IO_BUCKETS - 1);
}

tp_status tp_summary_of_profile(const tp_profile *profile,
                                tp_profile_summary *summary, tp_error *err)
{
	size_t cred_len = profile->credential ? strlen(profile->credential) : 0;

	memset(summary, 0, sizeof(*summary));
	if (cred_len > TP_PROFILE_CREDENTIAL_MAX)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "profile summary: credential of %zu bytes, "
		                    "at most %d",
		                    cred_len, TP_PROFILE_CREDENTIAL_MAX);
	memcpy(summary->digest, profile->digest, sizeof(summary->digest));
	summary->ranks = profile->header.ranks;
	summary->duration_us = profile->header.duration_us;
	summary->net_bytes = tp_profile_total_bytes(profile);
	summary->net_msgs = tp_profile_total_msgs(profile);
	summary->io_read_bytes = profile->io.read_bytes;
	summary->io_write_bytes = profile->io.write_bytes;
	summary->io_requests = profile->io.requests;
	summary->io_clients = (uint32_t)profile->io.client_count;
	summary->io_request_bytes = median_request_bytes(&profile->io);
	summary->job_id = profile->header.job_id;
	snprintf(summary->app, sizeof(summary->app), "%s", profile->header.app);
	summary->stencil_state =
	    tp_stencil_detect(profile, &summary->stencil, NULL) == TP_OK
	        ? TP_STENCIL_FOUND
	        : TP_STENCIL_NONE;
	if (summary->stencil_state != TP_STENCIL_FOUND)
		memset(&summary->stencil, 0, sizeof(summary->stencil));
	summary->exec_recorded = 1;
	summary->args_recorded = 1;
	summary->exec = profile->exec;
	if (cred_len)
		memcpy(summary->credential, profile->credential, cred_len + 1);
	return TP_OK;
}

/* The exe and layout lines (version 3) into @buf. */
static void format_exec(const tp_exec_id *e, char *buf, size_t size)
{
	char hex[65] = "-";

	if (e->hash_method != TP_EXEC_HASH_NONE)
		tp_sha256_hex(e->sha256, hex);
	snprintf(buf, size, "exe %s %" PRIu64 " %s %s\nlayout %s\n",
	         tp_exec_hash_method_name(e->hash_method), e->size_bytes, hex,
	         e->path[0] ? e->path : "-", e->layout[0] ? e->layout : "-");
}

/* The args line (version 4) into @buf. */
static void format_args(const tp_exec_id *e, char *buf, size_t size)
{
	char hex[65] = "-";

	if (e->args_method != TP_EXEC_ARGS_NONE)
		tp_sha256_hex(e->args_sha256, hex);
	snprintf(buf, size, "args %s %" PRIu32 " %s\n",
	         tp_exec_args_method_name(e->args_method), e->args_count, hex);
}

/* The stencil line's value (summary.h) into @buf. */
static void format_stencil(const tp_profile_summary *s, char *buf, size_t size)
{
	const tp_stencil *st = &s->stencil;
	char periodic[TP_STENCIL_DIMS_MAX + 1];
	char bytes[TP_STENCIL_DIMS_MAX * 21], msgs[TP_STENCIL_DIMS_MAX * 21];
	size_t b = 0, m = 0;

	if (s->stencil_state != TP_STENCIL_FOUND || !st->dims ||
	    st->dims > TP_STENCIL_DIMS_MAX) {
		snprintf(buf, size, "none");
		return;
	}
	for (unsigned k = 0; k < st->dims; k++) {
		periodic[k] = st->periodic[k] ? '1' : '0';
		b +=
		    (size_t)snprintf(bytes + b, sizeof(bytes) - b, "%s%" PRIu64,
		                     k ? "," : "", st->pair_bytes[k]);
		m += (size_t)snprintf(msgs + m, sizeof(msgs) - m, "%s%" PRIu64,
		                      k ? "," : "", st->pair_msgs[k]);
	}
	periodic[st->dims] = '\0';
	snprintf(buf, size, "%u periodic=%s bytes=%s msgs=%s", st->dims,
	         periodic, bytes, msgs);
}

tp_status tp_summary_format(const tp_profile_summary *s, char **text,
                            tp_error *err)
{
	char hex[65], stencil[192] = "";
	char exec[TP_EXEC_PATH_MAX + TP_EXEC_LAYOUT_MAX + 128] = "";
	char args[128] = "";
	char *out = NULL;
	int version = TP_SUMMARY_VERSION_NO_STENCIL, n;

	tp_sha256_hex(s->digest, hex);
	/* A stencil never looked for (a version 1 summary read back) stays
	 * unknown: version 1, no stencil line, rather than "none". */
	if (s->stencil_state != TP_STENCIL_UNKNOWN) {
		memcpy(stencil, "stencil ", 8);
		format_stencil(s, stencil + 8, sizeof(stencil) - 9);
		strcat(stencil, "\n");
		version = TP_SUMMARY_VERSION_NO_EXEC;
	}
	/* Version 3 has a stencil line: "none" when it was never looked for
	 * (which only a summary built by hand can be). */
	if (s->exec_recorded) {
		if (version == TP_SUMMARY_VERSION_NO_STENCIL)
			snprintf(stencil, sizeof(stencil), "stencil none\n");
		format_exec(&s->exec, exec, sizeof(exec));
		version = TP_SUMMARY_VERSION_NO_ARGS;
	}
	/* A version 3 summary read back has no args line: unknown, not
	 * "none", so it is written back as it was. */
	if (s->exec_recorded && s->args_recorded) {
		format_args(&s->exec, args, sizeof(args));
		version = TP_SUMMARY_VERSION;
	}
	n = asprintf(&out,
	             "%s %d\n"
	             "profile %s\n"
	             "profile_bytes %" PRIu64 "\n"
	             "profile_mtime_ns %" PRId64 "\n"
	             "digest %s\n"
	             "ranks %" PRIu32 "\n"
	             "duration_us %" PRIu64 "\n"
	             "net_bytes %" PRIu64 "\n"
	             "net_msgs %" PRIu64 "\n"
	             "io_read_bytes %" PRIu64 "\n"
	             "io_write_bytes %" PRIu64 "\n"
	             "io_requests %" PRIu64 "\n"
	             "io_clients %" PRIu32 "\n"
	             "io_request_bytes %" PRIu64 "\n"
	             "job_id %" PRIu64 "\n"
	             "app %s\n"
	             "%s"
	             "%s"
	             "%s"
	             "credential %s\n",
	             TP_SUMMARY_TAG, version, s->profile_file, s->profile_bytes,
	             s->profile_mtime_ns, hex, s->ranks, s->duration_us,
	             s->net_bytes, s->net_msgs, s->io_read_bytes,
	             s->io_write_bytes, s->io_requests, s->io_clients,
	             s->io_request_bytes, s->job_id, s->app, stencil, exec,
	             args, s->credential);
	if (n < 0)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "profile summary: out of memory");
	*text = out;
	return TP_OK;
}

/* Parsing state: the text left and the line number for errors. */
typedef struct cursor {
	const char *origin;
	const char *p, *end;
	unsigned line;
} cursor;

/*
 * The next line must be "<key> <value>": @value gets the value (a view
 * into the text, @value_len bytes).
 */
static tp_status next_value(cursor *c, const char *key, const char **value,
                            size_t *value_len, tp_error *err)
{
	size_t key_len = strlen(key);
	const char *nl;

	c->line++;
	nl = c->p < c->end ? memchr(c->p, '\n', (size_t)(c->end - c->p)) : NULL;
	if (!nl)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: missing '%s' (the file ends "
		                    "early)",
		                    c->origin, c->line, key);
	if ((size_t)(nl - c->p) <= key_len + 1 || memcmp(c->p, key, key_len) ||
	    c->p[key_len] != ' ')
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: expected '%s <value>'",
		                    c->origin, c->line, key);
	*value = c->p + key_len + 1;
	*value_len = (size_t)(nl - *value);
	c->p = nl + 1;
	return TP_OK;
}

static tp_status parse_u64(cursor *c, const char *key, uint64_t max,
                           uint64_t *out, tp_error *err)
{
	const char *v;
	size_t len;
	uint64_t x = 0;
	tp_status st = next_value(c, key, &v, &len, err);

	if (st != TP_OK)
		return st;
	if (len == 0 || len > 20)
		goto bad;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(v[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			goto bad;
		x = x * 10 + d;
	}
	if (x > max)
		goto bad;
	*out = x;
	return TP_OK;
bad:
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: line %u: %s: not a decimal number up to "
	                    "%" PRIu64,
	                    c->origin, c->line, key, max);
}

/* @key's value copied into @out (@size with the NUL), printable only. */
static tp_status parse_text(cursor *c, const char *key, char *out, size_t size,
                            tp_error *err)
{
	const char *v;
	size_t len;
	tp_status st = next_value(c, key, &v, &len, err);

	if (st != TP_OK)
		return st;
	if (len >= size)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: %s: longer than %zu bytes",
		                    c->origin, c->line, key, size - 1);
	for (size_t i = 0; i < len; i++)
		if (v[i] <= ' ' || v[i] > '~')
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %u: %s: not printable "
			                    "text",
			                    c->origin, c->line, key);
	memcpy(out, v, len);
	out[len] = '\0';
	return TP_OK;
}

/* The application name: printable ASCII with spaces, 1 byte at least. */
static tp_status parse_app(cursor *c, char *out, size_t size, tp_error *err)
{
	const char *v;
	size_t len;
	tp_status st = next_value(c, "app", &v, &len, err);

	if (st != TP_OK)
		return st;
	if (len == 0 || len >= size)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: app: not 1 to %zu bytes",
		                    c->origin, c->line, size - 1);
	for (size_t i = 0; i < len; i++)
		if (v[i] < ' ' || v[i] > '~')
			return tp_error_set(err, TP_ERR_PARSE,
			                    "%s: line %u: app: not printable "
			                    "text",
			                    c->origin, c->line);
	memcpy(out, v, len);
	out[len] = '\0';
	return TP_OK;
}

/*
 * @want decimal numbers separated by commas, exactly, from @v (@len
 * bytes) into @out; false if the text is anything else.
 */
static bool parse_u64_list(const char *v, size_t len, unsigned want,
                           uint64_t *out)
{
	unsigned n = 0;
	size_t i = 0;

	while (n < want) {
		uint64_t x = 0;
		size_t start = i;

		for (; i < len && v[i] >= '0' && v[i] <= '9'; i++) {
			unsigned d = (unsigned)(v[i] - '0');

			if (x > (UINT64_MAX - d) / 10)
				return false;
			x = x * 10 + d;
		}
		if (i == start)
			return false;
		out[n++] = x;
		if (n < want && (i >= len || v[i++] != ','))
			return false;
	}
	return i == len;
}

/* "<prefix><rest>" at the start of the @len bytes of @v: @rest's length. */
static bool take_field(const char **v, size_t *len, const char *prefix,
                       const char **field, size_t *field_len)
{
	size_t plen = strlen(prefix), n;
	const char *space;

	if (*len < plen || memcmp(*v, prefix, plen))
		return false;
	space = memchr(*v + plen, ' ', *len - plen);
	n = space ? (size_t)(space - (*v + plen)) : *len - plen;
	*field = *v + plen;
	*field_len = n;
	*len -= plen + n + (space ? 1 : 0);
	*v = space ? space + 1 : *v + plen + n;
	return true;
}

/*
 * The stencil line's fields into @s (whose ranks are parsed): the
 * dimension count, each dimension's periodicity, byte and message means;
 * the extents are MPI_Dims_create's for the ranks, every one >= 2.
 */
static bool stencil_fields(const char *v, size_t len, tp_profile_summary *s)
{
	tp_stencil *st = &s->stencil;
	const char *field;
	size_t field_len;
	unsigned dims;

	if (len < 2 || v[0] < '1' || v[0] > '0' + TP_STENCIL_DIMS_MAX ||
	    v[1] != ' ' || v[len - 1] == ' ')
		return false;
	dims = (unsigned)(v[0] - '0');
	v += 2;
	len -= 2;
	memset(st, 0, sizeof(*st));
	st->dims = dims;
	tp_stencil_dims_create(s->ranks, dims, st->extent);
	for (unsigned k = 0; k < dims; k++)
		if (st->extent[k] < 2)
			return false;
	if (!take_field(&v, &len, "periodic=", &field, &field_len) ||
	    field_len != dims)
		return false;
	for (unsigned k = 0; k < dims; k++) {
		if (field[k] != '0' && field[k] != '1')
			return false;
		st->periodic[k] = field[k] == '1';
	}
	if (!take_field(&v, &len, "bytes=", &field, &field_len) ||
	    !parse_u64_list(field, field_len, dims, st->pair_bytes) ||
	    !take_field(&v, &len, "msgs=", &field, &field_len) ||
	    !parse_u64_list(field, field_len, dims, st->pair_msgs))
		return false;
	return len == 0;
}

/* The stencil line (version 2), after the ranks are known. */
static tp_status parse_stencil(cursor *c, tp_profile_summary *s, tp_error *err)
{
	const char *v;
	size_t len;
	tp_status st = next_value(c, "stencil", &v, &len, err);

	if (st != TP_OK)
		return st;
	if (len == 4 && !memcmp(v, "none", 4)) {
		s->stencil_state = TP_STENCIL_NONE;
		return TP_OK;
	}
	if (!stencil_fields(v, len, s)) {
		memset(&s->stencil, 0, sizeof(s->stencil));
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: stencil: not 'none' or '<d> "
		                    "periodic=<d digits 0|1> bytes=<d numbers> "
		                    "msgs=<d numbers>' with 1 to %d dimensions "
		                    "of 2 ranks or more for %" PRIu32 " ranks",
		                    c->origin, c->line, TP_STENCIL_DIMS_MAX,
		                    s->ranks);
	}
	s->stencil_state = TP_STENCIL_FOUND;
	return TP_OK;
}

/* 64 lower-case hex digits at @hex (@len bytes) into @digest. */
static bool parse_hex_digest(const char *hex, size_t len,
                             uint8_t digest[TP_SHA256_BYTES])
{
	static const char digits[] = "0123456789abcdef";

	if (len != 2 * TP_SHA256_BYTES)
		return false;
	for (int i = 0; i < TP_SHA256_BYTES; i++) {
		const char *hi = memchr(digits, hex[2 * i], 16);
		const char *lo = memchr(digits, hex[2 * i + 1], 16);

		if (!hi || !lo)
			return false;
		digest[i] = (uint8_t)((hi - digits) << 4 | (lo - digits));
	}
	return true;
}

static tp_status parse_digest(cursor *c, uint8_t digest[TP_SHA256_BYTES],
                              tp_error *err)
{
	char hex[65];
	tp_status st = parse_text(c, "digest", hex, sizeof(hex), err);

	if (st != TP_OK)
		return st;
	if (parse_hex_digest(hex, strlen(hex), digest))
		return TP_OK;
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: line %u: digest: not 64 lower-case hex "
	                    "digits",
	                    c->origin, c->line);
}

/* The next space-separated field of [*@p, @end) (*@len bytes). */
static const char *next_field(const char **p, const char *end, size_t *len)
{
	const char *start = *p, *sp = memchr(start, ' ', (size_t)(end - start));

	*len = (size_t)((sp ? sp : end) - start);
	*p = sp ? sp + 1 : end;
	return start;
}

/* "<method> <bytes> <hex|-> <path|->" (the path may hold spaces). */
static bool exe_fields(const char *v, size_t len, tp_exec_id *e)
{
	const char *p = v, *end = v + len, *f;
	char word[24];
	size_t n;
	int method;

	f = next_field(&p, end, &n);
	if (n >= sizeof(word))
		return false;
	memcpy(word, f, n);
	word[n] = '\0';
	if ((method = tp_exec_hash_method_parse(word)) < 0)
		return false;
	e->hash_method = (uint32_t)method;
	f = next_field(&p, end, &n);
	if (!n || n > 20 || (n > 1 && f[0] == '0'))
		return false;
	e->size_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(f[i] - '0');

		if (d > 9 || e->size_bytes > (UINT64_MAX - d) / 10)
			return false;
		e->size_bytes = e->size_bytes * 10 + d;
	}
	f = next_field(&p, end, &n);
	if (method == TP_EXEC_HASH_NONE ? n != 1 || f[0] != '-' || e->size_bytes
	                                : !parse_hex_digest(f, n, e->sha256))
		return false;
	n = (size_t)(end - p);
	if (n == 1 && p[0] == '-')
		return true;
	if (!n || n > TP_EXEC_PATH_MAX || p[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < ' ' || p[i] > '~')
			return false;
	memcpy(e->path, p, n);
	e->path[n] = '\0';
	return true;
}

/* The exe and layout lines (version 3), after the ranks are known. */
static tp_status parse_exec(cursor *c, tp_profile_summary *s, tp_error *err)
{
	const char *v;
	size_t len;
	tp_status st = next_value(c, "exe", &v, &len, err);

	if (st != TP_OK)
		return st;
	if (!exe_fields(v, len, &s->exec))
		return tp_error_set(
		    err, TP_ERR_PARSE,
		    "%s: line %u: exe: not '<none|full|sampled> "
		    "<bytes> <64 hex digits or -> <absolute "
		    "path or ->'",
		    c->origin, c->line);
	if ((st = parse_text(c, "layout", s->exec.layout,
	                     sizeof(s->exec.layout), err)) != TP_OK)
		return st;
	if (!strcmp(s->exec.layout, "-"))
		s->exec.layout[0] = '\0';
	if (tp_exec_layout_check(s->exec.layout, s->ranks, NULL) != TP_OK)
		return tp_error_set(
		    err, TP_ERR_PARSE,
		    "%s: line %u: layout: not '-' or "
		    "'<nodes>x<ranks per node>[+...]' with ranks "
		    "per node decreasing, summing to %" PRIu32 " ranks",
		    c->origin, c->line, s->ranks);
	s->exec_recorded = 1;
	return TP_OK;
}

/* "<none|full> <count> <hex or ->". */
static bool args_fields(const char *v, size_t len, tp_exec_id *e)
{
	const char *p = v, *end = v + len, *f;
	uint64_t count = 0;
	char word[8];
	size_t n;
	int method;

	f = next_field(&p, end, &n);
	if (n >= sizeof(word))
		return false;
	memcpy(word, f, n);
	word[n] = '\0';
	if ((method = tp_exec_args_method_parse(word)) < 0)
		return false;
	f = next_field(&p, end, &n);
	if (!n || n > 10 || (n > 1 && f[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(f[i] - '0');

		if (d > 9)
			return false;
		count = count * 10 + d;
	}
	if (count > UINT32_MAX)
		return false;
	n = (size_t)(end - p);
	if (method == TP_EXEC_ARGS_NONE
	        ? count || n != 1 || p[0] != '-'
	        : !parse_hex_digest(p, n, e->args_sha256))
		return false;
	e->args_method = (uint32_t)method;
	e->args_count = (uint32_t)count;
	return true;
}

/* The args line (version 4), after the exe and layout lines. */
static tp_status parse_args(cursor *c, tp_profile_summary *s, tp_error *err)
{
	const char *v;
	size_t len;
	tp_status st = next_value(c, "args", &v, &len, err);

	if (st != TP_OK)
		return st;
	if (!args_fields(v, len, &s->exec))
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: args: not '<none|full> "
		                    "<count> <64 hex digits or ->' (none: "
		                    "count 0 and -)",
		                    c->origin, c->line);
	s->args_recorded = 1;
	return TP_OK;
}

tp_status tp_summary_parse(const char *origin, const char *text, size_t len,
                           tp_profile_summary *s, tp_error *err)
{
	cursor c = {origin, text, text + len, 0};
	uint64_t version, ranks, clients, mtime;
	tp_status st;

	memset(s, 0, sizeof(*s));
	if (len > TP_SUMMARY_MAX_BYTES)
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s: %zu bytes, a summary has at most %d",
		                    origin, len, TP_SUMMARY_MAX_BYTES);
	if ((st = parse_u64(&c, TP_SUMMARY_TAG, UINT32_MAX, &version, err)) !=
	    TP_OK)
		return st;
	if (version < TP_SUMMARY_VERSION_NO_STENCIL ||
	    version > TP_SUMMARY_VERSION)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line 1: summary version %" PRIu64
		                    ", this reader knows %d to %d",
		                    origin, version,
		                    TP_SUMMARY_VERSION_NO_STENCIL,
		                    TP_SUMMARY_VERSION);
	if ((st = parse_text(&c, "profile", s->profile_file,
	                     sizeof(s->profile_file), err)) != TP_OK ||
	    (st = parse_u64(&c, "profile_bytes", UINT64_MAX, &s->profile_bytes,
	                    err)) != TP_OK ||
	    (st = parse_u64(&c, "profile_mtime_ns", INT64_MAX, &mtime, err)) !=
	        TP_OK ||
	    (st = parse_digest(&c, s->digest, err)) != TP_OK ||
	    (st = parse_u64(&c, "ranks", UINT32_MAX, &ranks, err)) != TP_OK ||
	    (st = parse_u64(&c, "duration_us", UINT64_MAX, &s->duration_us,
	                    err)) != TP_OK ||
	    (st = parse_u64(&c, "net_bytes", UINT64_MAX, &s->net_bytes, err)) !=
	        TP_OK ||
	    (st = parse_u64(&c, "net_msgs", UINT64_MAX, &s->net_msgs, err)) !=
	        TP_OK ||
	    (st = parse_u64(&c, "io_read_bytes", UINT64_MAX, &s->io_read_bytes,
	                    err)) != TP_OK ||
	    (st = parse_u64(&c, "io_write_bytes", UINT64_MAX,
	                    &s->io_write_bytes, err)) != TP_OK ||
	    (st = parse_u64(&c, "io_requests", UINT64_MAX, &s->io_requests,
	                    err)) != TP_OK ||
	    (st = parse_u64(&c, "io_clients", UINT32_MAX, &clients, err)) !=
	        TP_OK ||
	    (st = parse_u64(&c, "io_request_bytes", UINT64_MAX,
	                    &s->io_request_bytes, err)) != TP_OK ||
	    (st = parse_u64(&c, "job_id", UINT64_MAX, &s->job_id, err)) !=
	        TP_OK ||
	    (st = parse_app(&c, s->app, sizeof(s->app), err)) != TP_OK)
		return st;
	if (ranks == 0)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line 6: ranks: 0, a profile has at "
		                    "least one",
		                    origin);
	s->ranks = (uint32_t)ranks;
	if (version >= TP_SUMMARY_VERSION_NO_EXEC &&
	    (st = parse_stencil(&c, s, err)) != TP_OK)
		return st;
	if (version >= TP_SUMMARY_VERSION_NO_ARGS &&
	    (st = parse_exec(&c, s, err)) != TP_OK)
		return st;
	if (version >= TP_SUMMARY_VERSION &&
	    (st = parse_args(&c, s, err)) != TP_OK)
		return st;
	if ((st = parse_text(&c, "credential", s->credential,
	                     sizeof(s->credential), err)) != TP_OK)
		return st;
	if (c.p != c.end)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: text after the credential",
		                    origin, c.line + 1);
	s->io_clients = (uint32_t)clients;
	s->profile_mtime_ns = (int64_t)mtime;
	return TP_OK;
}
