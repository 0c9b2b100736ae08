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
	if (cred_len)
		memcpy(summary->credential, profile->credential, cred_len + 1);
	return TP_OK;
}

tp_status tp_summary_format(const tp_profile_summary *s, char **text,
                            tp_error *err)
{
	char hex[65];
	char *out = NULL;
	int n;

	tp_sha256_hex(s->digest, hex);
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
	             "credential %s\n",
	             TP_SUMMARY_TAG, TP_SUMMARY_VERSION, s->profile_file,
	             s->profile_bytes, s->profile_mtime_ns, hex, s->ranks,
	             s->duration_us, s->net_bytes, s->net_msgs,
	             s->io_read_bytes, s->io_write_bytes, s->io_requests,
	             s->io_clients, s->io_request_bytes, s->job_id, s->app,
	             s->credential);
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

static tp_status parse_digest(cursor *c, uint8_t digest[TP_SHA256_BYTES],
                              tp_error *err)
{
	char hex[65];
	tp_status st = parse_text(c, "digest", hex, sizeof(hex), err);

	if (st != TP_OK)
		return st;
	if (strlen(hex) != 64)
		goto bad;
	for (int i = 0; i < TP_SHA256_BYTES; i++) {
		unsigned byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1 ||
		    !strchr("0123456789abcdef", hex[2 * i]) ||
		    !strchr("0123456789abcdef", hex[2 * i + 1]))
			goto bad;
		digest[i] = (uint8_t)byte;
	}
	return TP_OK;
bad:
	return tp_error_set(err, TP_ERR_PARSE,
	                    "%s: line %u: digest: not 64 lower-case hex "
	                    "digits",
	                    c->origin, c->line);
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
	if (version != TP_SUMMARY_VERSION)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line 1: summary version %" PRIu64
		                    ", this reader knows %d",
		                    origin, version, TP_SUMMARY_VERSION);
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
	    (st = parse_app(&c, s->app, sizeof(s->app), err)) != TP_OK ||
	    (st = parse_text(&c, "credential", s->credential,
	                     sizeof(s->credential), err)) != TP_OK)
		return st;
	if (c.p != c.end)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line %u: text after the credential",
		                    origin, c.line + 1);
	if (ranks == 0)
		return tp_error_set(err, TP_ERR_PARSE,
		                    "%s: line 6: ranks: 0, a profile has at "
		                    "least one",
		                    origin);
	s->ranks = (uint32_t)ranks;
	s->io_clients = (uint32_t)clients;
	s->profile_mtime_ns = (int64_t)mtime;
	return TP_OK;
}
