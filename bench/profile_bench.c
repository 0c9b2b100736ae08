/*
 * profile_bench.c: how fast profiles are read, side by side with the text
 * matrix reader, as times and ratios (never pass/fail).
 *
 *   bench/profile_bench [--pairs N] [--repeat R] [MATRIX.txt...]
 *
 * 1. A synthetic profile of N matrix entries (default 1 Mi: 1024 ranks,
 *    all to all): encode, write, then read back R times (file read +
 *    SHA-256 + decode), and the same matrix as `src dst bytes msgs` text
 *    through tp_traffic_parse.
 * 2. Each MATRIX.txt given (the largest of tests/data/matrices): text
 *    import vs binary profile read.
 */
#include "tp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "profile.h"
#include "sha256.h"
#include "traffic.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const tp_error *err)
{
	fprintf(stderr, "profile_bench: %s: %s\n", what,
	        err ? err->message : "failed");
	exit(1);
}

/* Best of @repeat runs of reading @path as a profile. */
static double time_read_profile(const char *path, int repeat, size_t *pairs)
{
	double best = 1e9;

	for (int r = 0; r < repeat; r++) {
		tp_profile *p;
		tp_error err;
		double t0 = now_s(), dt;

		if (tp_profile_read_file(path, NULL, &p, &err) != TP_OK)
			die(path, &err);
		dt = now_s() - t0;
		*pairs = p->pair_count;
		tp_profile_free(p);
		if (dt < best)
			best = dt;
	}
	return best;
}

static double time_parse_text(const char *label, const char *text, size_t len,
                              int repeat)
{
	double best = 1e9;

	for (int r = 0; r < repeat; r++) {
		tp_traffic *t;
		tp_error err;
		double t0 = now_s(), dt;

		if (tp_traffic_parse(label, text, len, NULL, &t, &err) != TP_OK)
			die(label, &err);
		dt = now_s() - t0;
		tp_traffic_free(t);
		if (dt < best)
			best = dt;
	}
	return best;
}

static double time_import_text(const char *path, int repeat)
{
	double best = 1e9;

	for (int r = 0; r < repeat; r++) {
		tp_profile *p;
		tp_error err;
		double t0 = now_s(), dt;

		if (tp_profile_import_matrix(path, NULL, NULL, &p, &err) !=
		    TP_OK)
			die(path, &err);
		dt = now_s() - t0;
		tp_profile_free(p);
		if (dt < best)
			best = dt;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t want = (size_t)1 << 20, pairs = 0, len, text_len = 0, cap;
	char dir[] = "/tmp/tp_profile_bench.XXXXXX", path[256];
	tp_profile_header h;
	uint8_t *buf, digest[TP_SHA256_BYTES];
	double t0, t_encode, t_sha, t_decode, t_read, t_text;
	tp_profile *p, *q;
	uint32_t ranks;
	tp_error err;
	char *text;
	int repeat = 5, i = 1;

	for (; i < argc && argv[i][0] == '-'; i += 2) {
		if (i + 1 >= argc)
			break;
		if (!strcmp(argv[i], "--pairs"))
			want = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--repeat"))
			repeat = atoi(argv[i + 1]);
	}
	if (repeat < 1 || want < 1) {
		fprintf(stderr, "usage: profile_bench [--pairs N] [--repeat R] "
		                "[MATRIX.txt...]\n");
		return 2;
	}
	for (ranks = 1; (size_t)ranks * ranks < want; ranks++)
		;
	memset(&h, 0, sizeof(h));
	strcpy(h.app, "synthetic");
	h.ranks = ranks;
	if (tp_profile_new(&h, &p, &err) != TP_OK)
		die("new", &err);
	for (size_t k = 0; k < want; k++)
		if (tp_profile_add_pair(
		        p, (uint32_t)(k / ranks), (uint32_t)(k % ranks),
		        1000 + k % 977 * 4096, 1 + k % 13, &err) != TP_OK)
			die("add", &err);
	if (tp_profile_finish(p, &err) != TP_OK)
		die("finish", &err);
	if (!mkdtemp(dir))
		die("mkdtemp", NULL);
	snprintf(path, sizeof(path), "%s/synthetic.tpp", dir);

	t0 = now_s();
	if (tp_profile_encode(p, &buf, &len, &err) != TP_OK)
		die("encode", &err);
	t_encode = now_s() - t0;
	t0 = now_s();
	tp_sha256(buf, len, digest);
	t_sha = now_s() - t0;
	t_decode = 1e9;
	for (int r = 0; r < repeat; r++) {
		double t1 = now_s(), dt;

		if (tp_profile_decode("bench", buf, len, NULL, &q, &err) !=
		    TP_OK)
			die("decode", &err);
		dt = now_s() - t1;
		if (dt < t_decode)
			t_decode = dt;
		tp_profile_free(q);
	}
	free(buf);
	if (tp_profile_write_file(path, p, &err) != TP_OK)
		die("write", &err);
	t_read = time_read_profile(path, repeat, &pairs);

	cap = 64 + p->pair_count * 48;
	text = malloc(cap);
	if (!text)
		die("malloc", NULL);
	text_len = (size_t)snprintf(text, cap, "# commprof-v1 app=x ranks=%u\n",
	                            ranks);
	for (size_t k = 0; k < p->pair_count; k++)
		text_len += (size_t)snprintf(
		    text + text_len, cap - text_len, "%u %u %llu %llu\n",
		    p->pairs[k].src, p->pairs[k].dst,
		    (unsigned long long)p->pairs[k].bytes,
		    (unsigned long long)p->pairs[k].msgs);
	t_text = time_parse_text("synthetic.txt", text, text_len, repeat);
	free(text);

	printf("profile_bench: %zu entries, %u ranks, best of %d\n", pairs,
	       ranks, repeat);
	printf("  %-40s %10.1f MB\n", "binary profile size", len / 1e6);
	printf("  %-40s %10.1f MB\n", "same matrix as text", text_len / 1e6);
	printf("  %-40s %10.3f s\n", "encode", t_encode);
	printf("  %-40s %10.3f s\n", "SHA-256 of the file", t_sha);
	printf("  %-40s %10.3f s\n", "decode from memory (incl. SHA-256)",
	       t_decode);
	printf("  %-40s %10.3f s\n", "read file (open+read+decode)", t_read);
	printf("  %-40s %10.3f s\n", "text parse (tp_traffic_parse)", t_text);
	printf("  %-40s %10.2fx\n", "text parse / profile read",
	       t_text / t_read);
	printf("  %-40s %10.2f\n", "SHA-256 share of the profile read",
	       t_sha / t_read);

	unlink(path);
	tp_profile_free(p);
	for (; i < argc; i++) {
		double t_imp, t_bin;
		size_t n;

		if (tp_profile_import_matrix(argv[i], NULL, NULL, &p, &err) !=
		    TP_OK)
			die(argv[i], &err);
		if (tp_profile_write_file(path, p, &err) != TP_OK)
			die("write", &err);
		tp_profile_free(p);
		t_imp = time_import_text(argv[i], repeat * 20);
		t_bin = time_read_profile(path, repeat * 20, &n);
		printf("  %-28s %6zu entries: text import %8.1f us, profile "
		       "read %8.1f us, ratio %5.2fx\n",
		       strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1
		                             : argv[i],
		       n, t_imp * 1e6, t_bin * 1e6, t_imp / t_bin);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}
