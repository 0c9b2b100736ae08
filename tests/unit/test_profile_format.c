/*
 * test_profile_format.c: the profile file format round-trips exactly and
 * its reader refuses every malformed input with an error naming the field.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile.h"
#include "sha256.h"

static tp_profile *make_profile(void)
{
	tp_profile_header h = {.owner_uid = 1001,
	                       .ranks = 8,
	                       .ranks_per_node = 4,
	                       .job_id = 4242,
	                       .start_us = 1790000000123456LL,
	                       .duration_us = 31560000};
	tp_profile_io_client c0 = {0, 3, 3 << 20, 100, 200, 300, 400};
	tp_profile_io_client c5 = {5, 1, 4096, 0, 0, 0, 0};
	tp_profile *p;

	strcpy(h.app, "LULESH");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 3, 2, 100, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 3878400, 202, NULL),
	                 TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 3, 2, 50, 2, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 7, 7, 8, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 1, 0, 0, 0, NULL), TP_OK);
	assert_int_equal(
	    tp_profile_add_collective(p, "Allreduce", 792, 6336, NULL), TP_OK);
	assert_int_equal(tp_profile_add_collective(p, "Barrier", 8, 0, NULL),
	                 TP_OK);
	assert_int_equal(tp_profile_add_collective(p, "Allreduce", 8, 64, NULL),
	                 TP_OK);
	p->io.requests = 4;
	p->io.write_bytes = (3 << 20) + 4096;
	p->io.time_us = 1234;
	p->io.size_hist[12] = 1;
	p->io.size_hist[20] = 3;
	assert_int_equal(tp_profile_add_io_client(p, &c5, NULL), TP_OK);
	assert_int_equal(tp_profile_add_io_client(p, &c0, NULL), TP_OK);
	strcpy(p->exec.path, "/opt/lulesh/bin/lulesh2.0");
	p->exec.hash_method = TP_EXEC_HASH_FULL;
	p->exec.size_bytes = 3;
	tp_sha256("abc", 3, p->exec.sha256);
	strcpy(p->exec.layout, "2x4");
	p->exec.args_method = TP_EXEC_ARGS_FULL;
	p->exec.args_count = 2;
	tp_sha256("-i 3", 4, p->exec.args_sha256);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	return p;
}

static uint64_t get_le(const uint8_t *b, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static void put_le(uint8_t *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* Offset of the exec section's header (the last section) in @buf. */
static size_t exec_section_offset(const uint8_t *buf)
{
	size_t off = TP_PROFILE_HEADER_BYTES;

	for (int s = 1; s < 5; s++)
		off += 16 + get_le(buf + off + 8, 8);
	assert_int_equal(get_le(buf + off, 4), 5);
	return off;
}

/* Offset of the args section's header (after exec) in @buf. */
static size_t args_section_offset(const uint8_t *buf)
{
	size_t off = exec_section_offset(buf);

	off += 16 + get_le(buf + off + 8, 8);
	assert_int_equal(get_le(buf + off, 4), 6);
	return off;
}

/* Cut an encoded file before the section at @off, as version @minor
 * wrote it: digest valid, the credential, if any, dropped. */
static size_t cut_before(uint8_t *buf, size_t off, unsigned minor)
{
	put_le(buf + 10, minor, 2);
	put_le(buf + 16, off - TP_PROFILE_HEADER_BYTES, 8);
	put_le(buf + off + TP_SHA256_BYTES, 0, 8);
	tp_sha256(buf, off, buf + off);
	return off + TP_SHA256_BYTES + 8;
}

/* Rewrite an encoded file as format 1.1 wrote it: no args section. */
static size_t as_version_1_1(uint8_t *buf)
{
	return cut_before(buf, args_section_offset(buf), 1);
}

/*
 * Rewrite an encoded file as format 1.0 wrote it: no exec section, minor
 * 0, digest valid.  The credential, if any, is dropped.
 */
static size_t as_version_1_0(uint8_t *buf)
{
	return cut_before(buf, exec_section_offset(buf), 0);
}

static void encode(tp_profile *p, uint8_t **buf, size_t *len)
{
	tp_error err;

	assert_int_equal(tp_profile_encode(p, buf, len, &err), TP_OK);
}

/* After editing the body of an encoded file, make its digest valid again
 * so the structural checks (not the checksum) are what is exercised. */
static void refresh_digest(uint8_t *buf)
{
	uint64_t body = 0;

	for (int i = 0; i < 8; i++)
		body |= (uint64_t)buf[16 + i] << (8 * i);
	tp_sha256(buf, TP_PROFILE_HEADER_BYTES + body,
	          buf + TP_PROFILE_HEADER_BYTES + body);
}

/* Decode must fail with @code and a message containing @needle. */
static void expect_refused(const uint8_t *buf, size_t len, tp_status code,
                           const char *needle)
{
	tp_profile *p = (tp_profile *)1;
	tp_error err;

	tp_error_clear(&err);
	assert_int_equal(tp_profile_decode("t.tpp", buf, len, NULL, &p, &err),
	                 code);
	assert_null(p);
	if (!strstr(err.message, needle))
		fail_msg("message '%s' lacks '%s'", err.message, needle);
	assert_non_null(strstr(err.message, "t.tpp"));
}

/* Offset of the first matrix entry in an encoded make_profile(). */
static size_t first_pair_offset(void)
{
	return TP_PROFILE_HEADER_BYTES + 16 + 40 + strlen("LULESH") + 16 + 8;
}

static void test_finish_sorts_sums_duplicates_and_drops_zero_pairs(void **s)
{
	tp_profile *p = make_profile();

	(void)s;
	assert_int_equal(p->pair_count, 3);
	assert_int_equal(p->pairs[0].src, 0);
	assert_int_equal(p->pairs[1].src, 3);
	assert_int_equal(p->pairs[1].bytes, 150);
	assert_int_equal(p->pairs[1].msgs, 3);
	assert_int_equal(p->pairs[2].src, 7);
	assert_int_equal(p->collective_count, 2);
	assert_string_equal(p->collectives[0].name, "Allreduce");
	assert_int_equal(p->collectives[0].calls, 800);
	assert_int_equal(p->io.clients[0].rank, 0);
	assert_int_equal(tp_profile_total_bytes(p), 3878400 + 150 + 8);
	tp_profile_free(p);
}

static void test_round_trip_is_exact_in_both_directions(void **s)
{
	tp_profile *p = make_profile(), *q;
	uint8_t *a, *b;
	size_t alen, blen;
	tp_error err;

	(void)s;
	p->credential = strdup("MUNGE:AwQDAAAfake:");
	encode(p, &a, &alen);
	assert_int_equal(tp_profile_decode("t", a, alen, NULL, &q, &err),
	                 TP_OK);
	assert_memory_equal(&p->header, &q->header, sizeof(p->header));
	assert_int_equal(q->pair_count, p->pair_count);
	assert_memory_equal(p->pairs, q->pairs,
	                    p->pair_count * sizeof(*p->pairs));
	assert_memory_equal(p->collectives, q->collectives,
	                    p->collective_count * sizeof(*p->collectives));
	assert_memory_equal(p->io.size_hist, q->io.size_hist,
	                    sizeof(p->io.size_hist));
	assert_int_equal(q->io.client_count, 2);
	for (int i = 0; i < 2; i++) {
		const tp_profile_io_client *x = &p->io.clients[i],
		                           *y = &q->io.clients[i];

		assert_int_equal(x->rank, y->rank);
		assert_int_equal(x->requests, y->requests);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->interval_p10_us, y->interval_p10_us);
		assert_int_equal(x->interval_p50_us, y->interval_p50_us);
		assert_int_equal(x->interval_p90_us, y->interval_p90_us);
		assert_int_equal(x->interval_p99_us, y->interval_p99_us);
	}
	assert_int_equal(q->io.requests, 4);
	assert_int_equal(q->io.write_bytes, p->io.write_bytes);
	assert_int_equal(q->io.time_us, 1234);
	assert_string_equal(q->credential, p->credential);
	assert_memory_equal(q->digest, p->digest, TP_SHA256_BYTES);
	assert_string_equal(q->exec.path, "/opt/lulesh/bin/lulesh2.0");
	assert_int_equal(q->exec.hash_method, TP_EXEC_HASH_FULL);
	assert_int_equal(q->exec.size_bytes, 3);
	assert_memory_equal(q->exec.sha256, p->exec.sha256, TP_SHA256_BYTES);
	assert_string_equal(q->exec.layout, "2x4");
	assert_int_equal(get_le(a + 10, 2), TP_PROFILE_VERSION_MINOR);
	encode(q, &b, &blen);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(a);
	free(b);
	tp_profile_free(p);
	tp_profile_free(q);
}

static void test_digest_does_not_cover_the_credential(void **s)
{
	tp_profile *p = make_profile();
	uint8_t d1[TP_SHA256_BYTES];

	(void)s;
	assert_int_equal(tp_profile_compute_digest(p, NULL), TP_OK);
	memcpy(d1, p->digest, sizeof(d1));
	p->credential = strdup("MUNGE:x:");
	assert_int_equal(tp_profile_compute_digest(p, NULL), TP_OK);
	assert_memory_equal(d1, p->digest, sizeof(d1));
	assert_string_equal(p->credential, "MUNGE:x:");
	tp_profile_free(p);
}

static void test_sha256_matches_fips_vectors(void **s)
{
	char hex[65];
	uint8_t d[TP_SHA256_BYTES];
	char *million = malloc(1000000);

	(void)s;
	tp_sha256("abc", 3, d);
	tp_sha256_hex(d, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396"
	                         "177a9cb410ff61f20015ad");
	tp_sha256("", 0, d);
	tp_sha256_hex(d, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e464"
	                         "9b934ca495991b7852b855");
	assert_non_null(million);
	memset(million, 'a', 1000000);
	tp_sha256(million, 1000000, d);
	tp_sha256_hex(d, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a4"
	                         "97200e046d39ccc7112cd0");
	free(million);
}

static void test_every_truncation_is_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len;

	(void)s;
	p->credential = strdup("MUNGE:abc:");
	encode(p, &buf, &len);
	for (size_t cut = 0; cut < len; cut++) {
		tp_profile *q = NULL;
		tp_error err;

		assert_int_not_equal(
		    tp_profile_decode("t.tpp", buf, cut, NULL, &q, &err),
		    TP_OK);
		assert_null(q);
		assert_non_null(strstr(err.message, "t.tpp"));
	}
	expect_refused(buf, len - 1, TP_ERR_PARSE, "credential length");
	expect_refused(buf, 20, TP_ERR_PARSE, "truncated");
	free(buf);
	tp_profile_free(p);
}

static void test_wrong_version_is_refused_as_unsupported(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len;

	(void)s;
	encode(p, &buf, &len);
	buf[8] = 2;
	expect_refused(buf, len, TP_ERR_UNSUPPORTED, "version 2.2 not");
	free(buf);
	tp_profile_free(p);
}

static void test_flipped_bit_is_a_checksum_mismatch(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len;

	(void)s;
	encode(p, &buf, &len);
	buf[first_pair_offset() + 8] ^= 1; /* bytes of entry 0 */
	expect_refused(buf, len, TP_ERR_PARSE, "checksum mismatch");
	free(buf);
	tp_profile_free(p);
}

static void test_garbage_and_bad_magic_are_refused(void **s)
{
	uint8_t junk[4096];

	(void)s;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	expect_refused(junk, sizeof(junk), TP_ERR_PARSE, "bad magic");
	expect_refused((const uint8_t *)"", 0, TP_ERR_PARSE, "bad magic");
	expect_refused((const uint8_t *)"0 1 100 2\n", 10, TP_ERR_PARSE,
	               "not a topoplace profile");
}

static void test_rank_out_of_range_names_entry_and_offset(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len, at = first_pair_offset() + TP_PROFILE_PAIR_BYTES;
	char needle[64];

	(void)s;
	encode(p, &buf, &len);
	buf[at + 4] = 80; /* entry 1: 3 -> 80 */
	refresh_digest(buf);
	snprintf(needle, sizeof(needle), "matrix: offset %zu: entry 1", at);
	expect_refused(buf, len, TP_ERR_PARSE, needle);
	expect_refused(buf, len, TP_ERR_PARSE, "rank >= ranks 8");
	free(buf);
	tp_profile_free(p);
}

static void test_unsorted_or_duplicate_entries_are_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len, at = first_pair_offset() + 2 * TP_PROFILE_PAIR_BYTES;

	(void)s;
	encode(p, &buf, &len);
	buf[at] = 3;     /* entry 2 becomes 3 -> 7 after 3 -> 2: fine */
	buf[at + 4] = 2; /* 3 -> 2 twice: duplicate */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "sorted, unique");
	free(buf);
	tp_profile_free(p);
}

static void test_entry_count_larger_than_section_is_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len, at = first_pair_offset() - 8;

	(void)s;
	encode(p, &buf, &len);
	buf[at + 7] = 0x10; /* count = 2^60 + 3 */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_LIMIT, "entries > limit");
	buf[at + 7] = 0;
	buf[at] = 4; /* 4 entries announced, 3 present */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "4 entries need");
	free(buf);
	tp_profile_free(p);
}

static void test_limits_bound_file_size_ranks_and_entries(void **s)
{
	tp_profile *p = make_profile(), *q;
	tp_profile_limits lim = tp_profile_default_limits();
	uint8_t *buf;
	size_t len;
	tp_error err;

	(void)s;
	encode(p, &buf, &len);
	lim.max_pairs = 2;
	assert_int_equal(tp_profile_decode("t", buf, len, &lim, &q, &err),
	                 TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, "3 entries > limit 2"));
	lim = tp_profile_default_limits();
	lim.max_ranks = 4;
	assert_int_equal(tp_profile_decode("t", buf, len, &lim, &q, &err),
	                 TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, "ranks 8 > limit 4"));
	lim = tp_profile_default_limits();
	lim.max_file_bytes = len - 1;
	assert_int_equal(tp_profile_decode("t", buf, len, &lim, &q, &err),
	                 TP_ERR_LIMIT);
	free(buf);
	tp_profile_free(p);
}

static void test_histogram_must_sum_to_requests(void **s)
{
	tp_profile *p = make_profile();
	tp_error err;
	uint8_t *buf;
	size_t len;

	(void)s;
	p->io.size_hist[3] = 1;
	assert_int_equal(tp_profile_encode(p, &buf, &len, &err),
	                 TP_ERR_INVALID);
	assert_null(buf);
	assert_non_null(strstr(err.message, "histogram"));
	tp_profile_free(p);
}

static void test_bad_app_name_and_credential_bytes_are_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len, app_at = TP_PROFILE_HEADER_BYTES + 16 + 40;

	(void)s;
	p->credential = strdup("MUNGE:abc:");
	encode(p, &buf, &len);
	buf[app_at + 2] = '\n';
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "not printable ASCII");
	buf[app_at + 2] = 'L';
	buf[len - 2] = 0x01;
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "credential byte 0x01");
	free(buf);
	tp_profile_free(p);
}

static void test_writer_rejects_bad_input_with_named_field(void **s)
{
	tp_profile_header h = {.ranks = 4};
	tp_profile *p;
	tp_error err;

	(void)s;
	assert_int_equal(tp_profile_new(&h, &p, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "application name"));
	strcpy(h.app, "app");
	h.ranks_per_node = 5;
	assert_int_equal(tp_profile_new(&h, &p, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "ranks_per_node 5 > ranks 4"));
	h.ranks_per_node = 2;
	assert_int_equal(tp_profile_new(&h, &p, &err), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 4, 0, 1, 1, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "rank >= ranks 4"));
	assert_int_equal(tp_profile_add_collective(p, "All reduce", 1, 1, &err),
	                 TP_ERR_INVALID);
	tp_profile_free(p);
}

static void test_read_file_refuses_symlinks_and_fifos(void **s)
{
	char dir[] = "/tmp/tp_profile_fmt.XXXXXX", path[256], link[256],
	     fifo[256];
	tp_profile *p = make_profile(), *q;
	tp_error err;

	(void)s;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.tpp", dir);
	snprintf(link, sizeof(link), "%s/l.tpp", dir);
	snprintf(fifo, sizeof(fifo), "%s/f.tpp", dir);
	assert_int_equal(tp_profile_write_file(path, p, &err), TP_OK);
	assert_int_equal(tp_profile_read_file(path, NULL, &q, &err), TP_OK);
	assert_int_equal(q->pair_count, 3);
	tp_profile_free(q);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(tp_profile_read_file(link, NULL, &q, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, "symbolic link"));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(tp_profile_read_file(fifo, NULL, &q, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, "not a regular file"));
	unlink(fifo);
	unlink(link);
	unlink(path);
	rmdir(dir);
	tp_profile_free(p);
}

static void test_version_1_0_file_is_read_with_exec_unknown(void **s)
{
	tp_profile *p = make_profile(), *q = NULL;
	uint8_t *buf;
	size_t len;
	tp_error err;

	(void)s;
	encode(p, &buf, &len);
	len = as_version_1_0(buf);
	assert_int_equal(tp_profile_decode("old.tpp", buf, len, NULL, &q, &err),
	                 TP_OK);
	assert_int_equal(q->header.ranks, 8);
	assert_int_equal(q->pair_count, p->pair_count);
	assert_int_equal(q->exec.hash_method, TP_EXEC_HASH_NONE);
	assert_string_equal(q->exec.path, "");
	assert_string_equal(q->exec.layout, "");
	assert_int_equal(q->exec.args_method, TP_EXEC_ARGS_NONE);
	free(buf);
	tp_profile_free(p);
	tp_profile_free(q);
}

static void test_version_1_1_file_without_exec_is_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len;

	(void)s;
	encode(p, &buf, &len);
	len = as_version_1_0(buf);
	put_le(buf + 10, 1, 2);
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE,
	               "file ends before the exec section");
	free(buf);
	tp_profile_free(p);
}

/* A 1.0 writer never wrote an exec section: one there means the version
 * field was damaged, and the file is refused rather than read as 1.1. */
static void test_version_1_0_file_with_exec_is_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len;

	(void)s;
	encode(p, &buf, &len);
	put_le(buf + 10, 0, 2);
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE,
	               "exec section in a version 1.0 file");
	free(buf);
	tp_profile_free(p);
}

static void test_malformed_exec_fields_are_named(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len, off;
	char *layout;

	(void)s;
	encode(p, &buf, &len);
	off = exec_section_offset(buf) + 16;
	/* "2x4" -> "2x5": 10 ranks in a run of 8. */
	layout = memmem(buf + off + 56, len - off - 56, "2x4", 3);
	assert_non_null(layout);
	layout[2] = '5';
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "exec: offset");
	expect_refused(buf, len, TP_ERR_PARSE, "layout not");
	layout[2] = '4';
	put_le(buf + off, 7, 4); /* hash method */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "hash method is not");
	put_le(buf + off, TP_EXEC_HASH_FULL, 4);
	put_le(buf + off + 4, 4000, 4); /* path length past the section */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "do not fill the section");
	put_le(buf + off + 4, strlen(p->exec.path), 4);
	buf[off + 56] = 'x'; /* path no longer absolute */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "path not absolute");
	free(buf);
	tp_profile_free(p);
}

/* Format 1.1: the program is known, its arguments are not; re-encoded,
 * the file is 1.2 with an args section saying so. */
static void test_version_1_1_file_is_read_with_arguments_unknown(void **s)
{
	tp_profile *p = make_profile(), *q = NULL, *r = NULL;
	uint8_t *buf, *again;
	size_t len, again_len;
	tp_error err;

	(void)s;
	encode(p, &buf, &len);
	assert_int_equal(get_le(buf + 10, 2), 2);
	len = as_version_1_1(buf);
	assert_int_equal(tp_profile_decode("old.tpp", buf, len, NULL, &q, &err),
	                 TP_OK);
	assert_true(tp_exec_id_same_program(&q->exec, &p->exec));
	assert_string_equal(q->exec.layout, "2x4");
	assert_int_equal(q->exec.args_method, TP_EXEC_ARGS_NONE);
	assert_int_equal(q->exec.args_count, 0);
	assert_false(tp_exec_id_same_command(&q->exec, &p->exec));
	encode(q, &again, &again_len);
	assert_int_equal(get_le(again + 10, 2), 2);
	assert_int_equal(
	    tp_profile_decode("new.tpp", again, again_len, NULL, &r, &err),
	    TP_OK);
	assert_int_equal(r->exec.args_method, TP_EXEC_ARGS_NONE);
	free(again);
	free(buf);
	tp_profile_free(p);
	tp_profile_free(q);
	tp_profile_free(r);
}

static void test_arguments_round_trip_and_a_1_2_file_needs_them(void **s)
{
	tp_profile *p = make_profile(), *q = NULL;
	uint8_t *buf;
	size_t len;
	tp_error err;

	(void)s;
	encode(p, &buf, &len);
	assert_int_equal(tp_profile_decode("new.tpp", buf, len, NULL, &q, &err),
	                 TP_OK);
	assert_true(tp_exec_id_same_command(&q->exec, &p->exec));
	assert_int_equal(q->exec.args_count, 2);
	len = as_version_1_1(buf);
	put_le(buf + 10, 2, 2);
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE,
	               "file ends before the args section");
	free(buf);
	tp_profile_free(p);
	tp_profile_free(q);
}

/* A 1.1 writer never wrote an args section: the version was damaged. */
static void test_version_1_1_file_with_arguments_is_refused(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len;

	(void)s;
	encode(p, &buf, &len);
	put_le(buf + 10, 1, 2);
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE,
	               "args section in a version 1.1 file (it came with 1.2)");
	free(buf);
	tp_profile_free(p);
}

static void test_malformed_args_fields_are_named(void **s)
{
	tp_profile *p = make_profile();
	uint8_t *buf;
	size_t len, off;

	(void)s;
	encode(p, &buf, &len);
	off = args_section_offset(buf) + 16;
	put_le(buf + off, 7, 4); /* method */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "args: offset");
	expect_refused(buf, len, TP_ERR_PARSE, "arguments method is not");
	put_le(buf + off, TP_EXEC_ARGS_NONE, 4); /* but count and digest */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE,
	               "arguments method none with a count");
	put_le(buf + off, TP_EXEC_ARGS_FULL, 4);
	put_le(buf + off - 8, 41, 8); /* section size */
	refresh_digest(buf);
	expect_refused(buf, len, TP_ERR_PARSE, "");
	free(buf);
	p->exec.args_method = TP_EXEC_ARGS_NONE;
	assert_int_equal(tp_profile_finish(p, NULL), TP_ERR_INVALID);
	tp_profile_free(p);
}

static void test_writer_refuses_an_inconsistent_exec(void **s)
{
	tp_profile *p = make_profile();
	tp_error err;

	(void)s;
	p->exec.hash_method = TP_EXEC_HASH_NONE; /* but size and hash set */
	assert_int_equal(tp_profile_finish(p, &err), TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "exec: hash method none"));
	tp_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(
	        test_finish_sorts_sums_duplicates_and_drops_zero_pairs),
	    cmocka_unit_test(test_round_trip_is_exact_in_both_directions),
	    cmocka_unit_test(test_digest_does_not_cover_the_credential),
	    cmocka_unit_test(test_sha256_matches_fips_vectors),
	    cmocka_unit_test(test_every_truncation_is_refused),
	    cmocka_unit_test(test_wrong_version_is_refused_as_unsupported),
	    cmocka_unit_test(test_flipped_bit_is_a_checksum_mismatch),
	    cmocka_unit_test(test_garbage_and_bad_magic_are_refused),
	    cmocka_unit_test(test_rank_out_of_range_names_entry_and_offset),
	    cmocka_unit_test(test_unsorted_or_duplicate_entries_are_refused),
	    cmocka_unit_test(test_entry_count_larger_than_section_is_refused),
	    cmocka_unit_test(test_limits_bound_file_size_ranks_and_entries),
	    cmocka_unit_test(test_histogram_must_sum_to_requests),
	    cmocka_unit_test(
	        test_bad_app_name_and_credential_bytes_are_refused),
	    cmocka_unit_test(test_writer_rejects_bad_input_with_named_field),
	    cmocka_unit_test(test_read_file_refuses_symlinks_and_fifos),
	    cmocka_unit_test(test_version_1_0_file_is_read_with_exec_unknown),
	    cmocka_unit_test(test_version_1_1_file_without_exec_is_refused),
	    cmocka_unit_test(test_version_1_0_file_with_exec_is_refused),
	    cmocka_unit_test(test_malformed_exec_fields_are_named),
	    cmocka_unit_test(test_writer_refuses_an_inconsistent_exec),
	    cmocka_unit_test(
	        test_version_1_1_file_is_read_with_arguments_unknown),
	    cmocka_unit_test(
	        test_arguments_round_trip_and_a_1_2_file_needs_them),
	    cmocka_unit_test(test_version_1_1_file_with_arguments_is_refused),
	    cmocka_unit_test(test_malformed_args_fields_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
