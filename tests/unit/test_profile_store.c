/*
 * test_profile_store.c: the store's policy (ownership, symlinks, payload
 * binding, age, keep-K, merge, atomicity under 200 concurrent writers),
 * with a fake credential backend so it runs without munged.  The real
 * munged is exercised by tests/integration/profile_store_munge.sh.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile.h"
#include "store.h"

/*
 * Fake backend: "FAKE:<uid>:<encoded_s>:<ttl_s>:<payload>".  Like munge,
 * it reports who signed and when; unlike munge anyone can forge it, which
 * is exactly what lets the tests drive every branch of the store's policy.
 */
struct fake {
	long uid;   /* -1: the caller's euid */
	long age_s; /* back-date the credential */
	long ttl_s;
	bool down;         /* verify answers TP_ERR_IO, as munged gone */
	unsigned verified; /* credentials given to verify */
};

static tp_status fake_sign(void *data, const char *payload, char **cred,
                           tp_error *err)
{
	struct fake *f = data;
	char *out = malloc(strlen(payload) + 128);

	(void)err;
	if (!out)
		return TP_ERR_NOMEM;
	sprintf(out, "FAKE:%ld:%lld:%ld:%s",
	        f->uid < 0 ? (long)geteuid() : f->uid,
	        (long long)time(NULL) - f->age_s, f->ttl_s, payload);
	/* Spaces are not printable credential bytes in the file format. */
	for (char *p = out; *p; p++)
		if (*p == ' ')
			*p = '|';
	*cred = out;
	return TP_OK;
}

static tp_status fake_verify(void *data, const char *cred, tp_store_cred *out,
                             tp_error *err)
{
	struct fake *f = data;
	long uid, ttl;
	long long enc;
	int n = 0;

	f->verified++;
	if (f->down)
		return tp_error_set(err, TP_ERR_IO, "fake: munged is down");
	if (sscanf(cred, "FAKE:%ld:%lld:%ld:%n", &uid, &enc, &ttl, &n) != 3 ||
	    !n)
		return tp_error_set(err, TP_ERR_AUTH, "fake: bad credential");
	out->uid = (uid_t)uid;
	out->encoded_s = enc;
	out->ttl_s = ttl;
	out->backend_expired = time(NULL) > enc + ttl;
	out->payload = strdup(cred + n);
	for (char *p = out->payload; p && *p; p++)
		if (*p == '|')
			*p = ' ';
	return out->payload ? TP_OK : TP_ERR_NOMEM;
}

struct fixture {
	char root[64];
	char ns[64];
	struct fake fake;
	tp_store_auth auth;
	tp_store_options opt;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct passwd *pw = getpwuid(geteuid());

	if (!fx || !pw)
		return -1;
	strcpy(fx->root, "/tmp/tp_store_test.XXXXXX");
	if (!mkdtemp(fx->root))
		return -1;
	snprintf(fx->ns, sizeof(fx->ns), "%s", pw->pw_name);
	fx->fake.uid = -1;
	fx->fake.ttl_s = 300;
	fx->auth.sign = fake_sign;
	fx->auth.verify = fake_verify;
	fx->auth.data = &fx->fake;
	fx->opt = tp_store_default_options();
	fx->opt.root = fx->root;
	fx->opt.auth = &fx->auth;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->root);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

static tp_profile *run_profile(uint64_t bytes, size_t pairs)
{
	tp_profile_header h = {.ranks = 64, .ranks_per_node = 8};
	tp_profile *p;

	strcpy(h.app, "lulesh");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	for (size_t i = 0; i < pairs; i++)
		assert_int_equal(tp_profile_add_pair(p, (uint32_t)(i % 64),
		                                     (uint32_t)(i / 64 % 64),
		                                     bytes, 1, NULL),
		                 TP_OK);
	assert_int_equal(
	    tp_profile_add_collective(p, "Allreduce", 10, bytes, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	return p;
}

static void put(struct fixture *fx, const char *name, uint64_t bytes,
                char file[TP_STORE_FILE_MAX + 1])
{
	tp_profile *p = run_profile(bytes, 3);
	tp_error err;

	if (tp_store_put(&fx->opt, fx->ns, name, p, file, &err) != TP_OK)
		fail_msg("put: %s", err.message);
	tp_profile_free(p);
}

static void path_of(struct fixture *fx, const char *name, const char *file,
                    char *out, size_t size)
{
	snprintf(out, size, "%s/%s/%s/%s", fx->root, fx->ns, name, file);
}

static void expect_get_refused(struct fixture *fx, const char *name,
                               const char *file, tp_status code,
                               const char *needle)
{
	tp_profile *p = (tp_profile *)1;
	tp_error err;

	assert_int_equal(tp_store_get(&fx->opt, fx->ns, name, file, &p, &err),
	                 code);
	assert_null(p);
	if (!strstr(err.message, needle))
		fail_msg("message '%s' lacks '%s'", err.message, needle);
}

static void test_put_then_get_returns_the_same_profile(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512];
	tp_profile *p;
	tp_error err;
	struct stat sb;

	put(fx, "lulesh", 100, file);
	path_of(fx, "lulesh", file, path, sizeof(path));
	/* Nobody but the owner (and root readers) sees a traffic matrix. */
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/%s/lulesh", fx->root, fx->ns);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_int_equal(
	    tp_store_get(&fx->opt, fx->ns, "lulesh", NULL, &p, &err), TP_OK);
	assert_int_equal(p->pair_count, 3);
	assert_int_equal(p->pairs[0].bytes, 100);
	assert_non_null(strstr(p->credential, "topoplace-profile-v1"));
	tp_profile_free(p);
}

static void test_keeps_only_the_last_k_runs_newest_wins(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1];
	tp_store_list list;
	tp_profile *p;
	tp_error err;

	fx->opt.keep = 3;
	for (int i = 1; i <= 5; i++)
		put(fx, "hpcg", 100 * (uint64_t)i, file);
	assert_int_equal(
	    tp_store_list_runs(&fx->opt, fx->ns, "hpcg", &list, &err), TP_OK);
	assert_int_equal(list.count, 3);
	assert_string_equal(list.entries[2].file, file);
	tp_store_list_free(&list);
	assert_int_equal(tp_store_get(&fx->opt, fx->ns, "hpcg", NULL, &p, &err),
	                 TP_OK);
	assert_int_equal(p->pairs[0].bytes, 500);
	tp_profile_free(p);
}

static void test_merged_view_is_the_mean_over_kept_runs(void **state)
{
	struct fixture *fx = *state;
	tp_profile *p;
	unsigned runs;
	tp_error err;

	put(fx, "comd", 100, NULL);
	put(fx, "comd", 200, NULL);
	put(fx, "comd", 600, NULL);
	assert_int_equal(
	    tp_store_merged(&fx->opt, fx->ns, "comd", &p, &runs, &err), TP_OK);
	assert_int_equal(runs, 3);
	assert_int_equal(p->pair_count, 3);
	assert_int_equal(p->pairs[0].bytes, 300);
	assert_int_equal(p->pairs[0].msgs, 1);
	assert_int_equal(p->collectives[0].bytes, 300);
	assert_int_equal(p->collectives[0].calls, 10);
	tp_profile_free(p);
}

/* Rewrite a stored file in place (as its owner could) after @edit. */
static void edit_file(const char *path, void (*edit)(uint8_t *, size_t))
{
	FILE *f = fopen(path, "r+b");
	uint8_t buf[8192];
	size_t len;

	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	edit(buf, len);
	rewind(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void bump_bytes_and_digest(uint8_t *buf, size_t len)
{
	uint64_t body = 0;
	size_t first_pair = TP_PROFILE_HEADER_BYTES + 16 + 40 + 6 + 16 + 8;

	(void)len;
	buf[first_pair + 8] ^= 0x40; /* 100 bytes -> 36: less traffic */
	for (int i = 0; i < 8; i++)
		body |= (uint64_t)buf[16 + i] << (8 * i);
	tp_sha256(buf, TP_PROFILE_HEADER_BYTES + body,
	          buf + TP_PROFILE_HEADER_BYTES + body);
}

static void flip_one_bit(uint8_t *buf, size_t len)
{
	buf[len / 3] ^= 1;
}

static void test_tampered_profile_with_fixed_digest_is_refused(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512];

	put(fx, "lulesh", 100, file);
	path_of(fx, "lulesh", file, path, sizeof(path));
	edit_file(path, bump_bytes_and_digest);
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH,
	                   "credential signs another profile");
}

static void test_flipped_bit_is_refused_as_checksum_mismatch(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512];

	put(fx, "lulesh", 100, file);
	path_of(fx, "lulesh", file, path, sizeof(path));
	edit_file(path, flip_one_bit);
	expect_get_refused(fx, "lulesh", file, TP_ERR_PARSE,
	                   "checksum mismatch");
}

static void test_credential_of_another_uid_is_refused(void **state)
{
	struct fixture *fx = *state;

	fx->fake.uid = (long)geteuid() + 4242;
	put(fx, "lulesh", 100, NULL);
	fx->fake.uid = -1;
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH, "belongs to uid");
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH,
	                   "wrong owner or forged");
}

static void test_profile_replayed_under_another_name_is_refused(void **st)
{
	struct fixture *fx = *st;
	char file[TP_STORE_FILE_MAX + 1], from[512], to[512], cmd[1200];

	put(fx, "lulesh", 100, file);
	put(fx, "hpcg", 100, NULL);
	path_of(fx, "lulesh", file, from, sizeof(from));
	path_of(fx, "hpcg", file, to, sizeof(to));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
	expect_get_refused(fx, "hpcg", file, TP_ERR_AUTH, "replayed");
	expect_get_refused(fx, "hpcg", file, TP_ERR_AUTH, "made for ");
}

static void test_expired_credentials_are_refused(void **state)
{
	struct fixture *fx = *state;
	tp_profile *p;
	tp_error err;

	fx->fake.age_s = 100;
	fx->fake.ttl_s = 10;
	put(fx, "lulesh", 100, NULL);
	/* Default policy: a long max age overrides the backend's TTL. */
	assert_int_equal(
	    tp_store_get(&fx->opt, fx->ns, "lulesh", NULL, &p, &err), TP_OK);
	tp_profile_free(p);
	fx->opt.max_age_s = 0;
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH,
	                   "expired (munge TTL 10 s");
	fx->opt.max_age_s = 50;
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH, "max age 50 s");
}

static void test_unsigned_and_garbage_credentials_are_refused(void **st)
{
	struct fixture *fx = *st;
	char dir[512], path[600];
	tp_profile *p = run_profile(100, 3);

	put(fx, "lulesh", 100, NULL);
	snprintf(dir, sizeof(dir), "%s/%s/lulesh", fx->root, fx->ns);
	snprintf(path, sizeof(path), "%s/0000000000000001-1-1.tpp", dir);
	assert_int_equal(tp_profile_write_file(path, p, NULL), TP_OK);
	expect_get_refused(fx, "lulesh", "0000000000000001-1-1.tpp",
	                   TP_ERR_AUTH, "not signed");
	p->credential = strdup("MUNGE:garbage:");
	assert_int_equal(tp_profile_write_file(path, p, NULL), TP_OK);
	expect_get_refused(fx, "lulesh", "0000000000000001-1-1.tpp",
	                   TP_ERR_AUTH, "credential refused: fake: bad");
	tp_profile_free(p);
}

static void test_symlinks_never_lead_out_of_the_store(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], real[1024], link[512], out[128];
	char cmd[2048];

	put(fx, "lulesh", 100, file);
	/* A valid profile outside the store, reached through links. */
	snprintf(out, sizeof(out), "%s.outside", fx->root);
	snprintf(cmd, sizeof(cmd),
	         "rm -rf '%s' && mkdir '%s' && cp -a '%s/%s' '%s/'", out, out,
	         fx->root, fx->ns, out);
	assert_int_equal(system(cmd), 0);

	snprintf(real, sizeof(real), "%s/%s/lulesh/%s", out, fx->ns, file);
	path_of(fx, "lulesh", "00000000000000ff-1-1.tpp", link, sizeof(link));
	assert_int_equal(symlink(real, link), 0);
	expect_get_refused(fx, "lulesh", "00000000000000ff-1-1.tpp", TP_ERR_IO,
	                   "symbolic link");

	snprintf(real, sizeof(real), "%s/%s/lulesh", out, fx->ns);
	snprintf(link, sizeof(link), "%s/%s/linked", fx->root, fx->ns);
	assert_int_equal(symlink(real, link), 0);
	expect_get_refused(fx, "linked", NULL, TP_ERR_IO, "symbolic link");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", out);
	assert_int_equal(system(cmd), 0);
}

static void test_bad_names_are_refused_before_any_file_access(void **st)
{
	struct fixture *fx = *st;
	const char *bad[] = {"..", ".hidden", "a/b", "", "-rf", "x y"};
	tp_profile *p = run_profile(1, 1), *q;
	tp_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    tp_store_put(&fx->opt, fx->ns, bad[i], p, NULL, &err),
		    TP_ERR_INVALID);
		assert_non_null(strstr(err.message, "not a valid name"));
		assert_int_equal(
		    tp_store_get(&fx->opt, bad[i], "x", NULL, &q, &err),
		    TP_ERR_INVALID);
	}
	assert_int_equal(tp_store_get(&fx->opt, fx->ns, "lulesh",
	                              "../../etc/passwd", &q, &err),
	                 TP_ERR_INVALID);
	tp_profile_free(p);
}

static void test_writing_another_users_namespace_is_refused(void **state)
{
	struct fixture *fx = *state;
	tp_profile *p = run_profile(1, 1);
	const char *other = geteuid() == 0 ? "daemon" : "root";
	tp_error err;

	assert_int_equal(tp_store_put(&fx->opt, other, "x", p, NULL, &err),
	                 TP_ERR_AUTH);
	assert_non_null(strstr(err.message, "belongs to uid"));
	tp_profile_free(p);
}

static void test_group_writable_dirs_and_open_root_are_refused(void **st)
{
	struct fixture *fx = *st;
	char dir[512];

	put(fx, "lulesh", 100, NULL);
	snprintf(dir, sizeof(dir), "%s/%s/lulesh", fx->root, fx->ns);
	assert_int_equal(chmod(dir, 0775), 0);
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH, "only it may");
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(fx->root, 0777), 0);
	expect_get_refused(fx, "lulesh", NULL, TP_ERR_AUTH, "sticky bit");
	assert_int_equal(chmod(fx->root, 01777), 0);
	expect_get_refused(fx, "lulesh", "nothere.tpp", TP_ERR_INVALID,
	                   "not a stored run");
}

static void test_files_of_another_owner_are_refused(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512], dir[512];

	if (geteuid() != 0)
		skip(); /* chown needs root */
	put(fx, "lulesh", 100, file);
	path_of(fx, "lulesh", file, path, sizeof(path));
	assert_int_equal(chown(path, 1, 1), 0);
	expect_get_refused(fx, "lulesh", file, TP_ERR_AUTH,
	                   "not owned by the namespace's owner");
	assert_int_equal(chown(path, 0, 0), 0);
	snprintf(dir, sizeof(dir), "%s/%s", fx->root, fx->ns);
	assert_int_equal(chown(dir, 1, 1), 0);
	expect_get_refused(fx, "lulesh", file, TP_ERR_AUTH,
	                   "directory owned by uid 1");
	assert_int_equal(chown(dir, 0, 0), 0);
}

#define WRITERS 200

/*
 * 200 processes store runs of one name at once while this process reads
 * the newest run again and again: every read must succeed or find no run
 * yet; afterwards exactly `keep` runs remain, all valid, and no temporary
 * file is left.
 */
static void test_200_concurrent_writers_leave_no_torn_file(void **state)
{
	struct fixture *fx = *state;
	pid_t pids[WRITERS];
	tp_store_list list;
	int reads_ok = 0, status;
	char dir[512];
	tp_error err;
	DIR *d;
	struct dirent *e;

	fx->opt.keep = 5;
	for (int i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			/* ~100 KB each: big enough for writes to interleave. */
			tp_profile *p = run_profile((uint64_t)i + 1, 4096);
			tp_status s = tp_store_put(&fx->opt, fx->ns, "storm", p,
			                           NULL, &err);

			tp_profile_free(p);
			_exit(s == TP_OK ? 0 : 1);
		}
	}
	for (int round = 0; round < 200; round++) {
		tp_profile *p;
		tp_status s =
		    tp_store_get(&fx->opt, fx->ns, "storm", NULL, &p, &err);

		if (s == TP_OK) {
			assert_int_equal(p->pair_count, 4096);
			reads_ok++;
			tp_profile_free(p);
		} else if (s != TP_ERR_NOTFOUND) {
			fail_msg("concurrent read: %s", err.message);
		}
	}
	for (int i = 0; i < WRITERS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	print_message("%d of 200 concurrent reads saw a complete run\n",
	              reads_ok);
	assert_int_equal(
	    tp_store_list_runs(&fx->opt, fx->ns, "storm", &list, &err), TP_OK);
	assert_int_equal(list.count, 5);
	for (size_t i = 0; i < list.count; i++) {
		tp_profile *p;

		if (tp_store_get(&fx->opt, fx->ns, "storm",
		                 list.entries[i].file, &p, &err) != TP_OK)
			fail_msg("%s", err.message);
		tp_profile_free(p);
	}
	tp_store_list_free(&list);
	snprintf(dir, sizeof(dir), "%s/%s/storm", fx->root, fx->ns);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, ".tmp", 4))
			fail_msg("temporary file left: %s", e->d_name);
	closedir(d);
}

static void test_writers_refuse_a_store_other_users_can_write(void **st)
{
	struct fixture *fx = *st;
	tp_profile *p = run_profile(100, 3);
	tp_error err;

	/* A sticky 1777 store still lets anyone create anyone's namespace. */
	assert_int_equal(chmod(fx->root, 01777), 0);
	assert_int_equal(
	    tp_store_put(&fx->opt, fx->ns, "lulesh", p, NULL, &err),
	    TP_ERR_AUTH);
	if (!strstr(err.message, "mode 1777: other users could create"))
		fail_msg("message '%s'", err.message);
	tp_profile_free(p);
}

/* A user other than root to hand namespaces to: skips without root. */
static const struct passwd *other_user(void)
{
	static const char *const names[] = {"tpalice", "tpbob", "nobody"};
	const struct passwd *pw;

	if (geteuid() != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((pw = getpwnam(names[i])) && pw->pw_uid != 0)
			return pw;
	return NULL;
}

#define SKIP_WITHOUT_OTHER_USER(pw)                                            \
	do {                                                                   \
		if (!(pw)) {                                                   \
			print_message(                                         \
			    "skipped: needs root and a user "                  \
			    "tpalice, tpbob or nobody to chown to\n");         \
			skip();                                                \
		}                                                              \
	} while (0)

static void test_prepare_user_makes_a_private_namespace_of_the_user(void **st)
{
	struct fixture *fx = *st;
	const struct passwd *pw = other_user();
	char dir[512];
	struct stat sb;
	tp_error err;

	SKIP_WITHOUT_OTHER_USER(pw);
	assert_int_equal(chmod(fx->root, 0755), 0);
	assert_int_equal(
	    tp_store_prepare_user(fx->root, pw->pw_uid, pw->pw_gid, &err),
	    TP_OK);
	snprintf(dir, sizeof(dir), "%s/%s", fx->root, pw->pw_name);
	assert_int_equal(lstat(dir, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_uid, pw->pw_uid);
	assert_int_equal(sb.st_gid, pw->pw_gid);
	assert_int_equal(sb.st_mode & 07777, 0700);
	/* Again: nothing changes, no error. */
	assert_int_equal(
	    tp_store_prepare_user(fx->root, pw->pw_uid, pw->pw_gid, &err),
	    TP_OK);
	/* An older 0755 namespace is closed to other users. */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(
	    tp_store_prepare_user(fx->root, pw->pw_uid, pw->pw_gid, &err),
	    TP_OK);
	assert_int_equal(lstat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
}

static void test_prepare_user_refuses_a_namespace_someone_else_made(void **st)
{
	struct fixture *fx = *st;
	const struct passwd *pw = other_user();
	char dir[512], target[512];
	struct stat sb;
	tp_error err;

	SKIP_WITHOUT_OTHER_USER(pw);
	assert_int_equal(chmod(fx->root, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/%s", fx->root, pw->pw_name);
	/* Made by root (as another user would in a 1777 store). */
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(
	    tp_store_prepare_user(fx->root, pw->pw_uid, pw->pw_gid, &err),
	    TP_ERR_AUTH);
	if (!strstr(err.message, "is owned by uid 0 (root): refused"))
		fail_msg("message '%s'", err.message);
	assert_int_equal(lstat(dir, &sb), 0);
	assert_int_equal(sb.st_uid, 0); /* left alone */
	assert_int_equal(sb.st_mode & 0777, 0755);
	assert_int_equal(rmdir(dir), 0);
	/* A symlink to a directory the user owns elsewhere is no namespace. */
	snprintf(target, sizeof(target), "%s/elsewhere", fx->root);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(chown(target, pw->pw_uid, pw->pw_gid), 0);
	assert_int_equal(symlink(target, dir), 0);
	assert_int_equal(
	    tp_store_prepare_user(fx->root, pw->pw_uid, pw->pw_gid, &err),
	    TP_ERR_IO);
	if (!strstr(err.message, "symbolic link"))
		fail_msg("message '%s'", err.message);
}

static void test_prepare_user_refuses_an_open_store_and_bad_users(void **st)
{
	struct fixture *fx = *st;
	const struct passwd *pw = other_user();
	char dir[512];
	tp_error err;

	SKIP_WITHOUT_OTHER_USER(pw);
	assert_int_equal(chmod(fx->root, 01777), 0);
	assert_int_equal(
	    tp_store_prepare_user(fx->root, pw->pw_uid, pw->pw_gid, &err),
	    TP_ERR_AUTH);
	if (!strstr(err.message, "other users could create"))
		fail_msg("message '%s'", err.message);
	snprintf(dir, sizeof(dir), "%s/%s", fx->root, pw->pw_name);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(chmod(fx->root, 0755), 0);
	assert_int_equal(tp_store_prepare_user(fx->root, 0, 0, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(
	    tp_store_prepare_user(fx->root, (uid_t)4000000000u, 0, &err),
	    TP_ERR_NOTFOUND);
}

/* The summary of @name's newest run, or the fallback and its reason. */
static tp_status get_summary(struct fixture *fx, const char *name,
                             tp_profile_summary *sum, bool *fallback,
                             tp_error *err)
{
	tp_store_entry run;

	return tp_store_get_summary(&fx->opt, fx->ns, name, sum, &run, fallback,
	                            err);
}

static void summary_path(struct fixture *fx, const char *name, const char *run,
                         char *out, size_t size)
{
	snprintf(out, size, "%s/%s/%s/%.34s.sum", fx->root, fx->ns, name, run);
}

static void expect_summary_fallback(struct fixture *fx, const char *name,
                                    const char *needle)
{
	tp_profile_summary sum;
	bool fallback = false;
	tp_error err;

	assert_int_not_equal(get_summary(fx, name, &sum, &fallback, &err),
	                     TP_OK);
	assert_true(fallback);
	if (!strstr(err.message, needle))
		fail_msg("message '%s' lacks '%s'", err.message, needle);
}

static void test_put_writes_a_summary_with_the_runs_totals(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512];
	tp_profile_summary sum, want;
	tp_profile *p;
	bool fallback = true;
	tp_error err;
	struct stat sb;

	put(fx, "lulesh", 100, file);
	summary_path(fx, "lulesh", file, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_true(sb.st_size < 1024);
	assert_int_equal(get_summary(fx, "lulesh", &sum, &fallback, &err),
	                 TP_OK);
	assert_false(fallback);
	/* The same totals as the run read whole. */
	assert_int_equal(
	    tp_store_get(&fx->opt, fx->ns, "lulesh", NULL, &p, &err), TP_OK);
	assert_int_equal(tp_summary_of_profile(p, &want, &err), TP_OK);
	tp_profile_free(p);
	assert_string_equal(sum.profile_file, file);
	path_of(fx, "lulesh", file, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sum.profile_bytes, (uint64_t)sb.st_size);
	assert_int_equal(sum.ranks, 64);
	assert_int_equal(sum.net_bytes, want.net_bytes);
	assert_int_equal(sum.net_bytes, 300);
	assert_int_equal(sum.net_msgs, want.net_msgs);
	assert_memory_equal(sum.digest, want.digest, sizeof(sum.digest));
	assert_string_equal(sum.credential, want.credential);
}

static void test_missing_summary_falls_back_until_summarized(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512];
	tp_profile_summary sum;
	bool fallback;
	tp_error err;

	put(fx, "old", 7, file);
	summary_path(fx, "old", file, path, sizeof(path));
	assert_int_equal(unlink(path), 0);
	expect_summary_fallback(fx, "old", "no summary");
	assert_int_equal(
	    tp_store_summarize(&fx->opt, fx->ns, "old", file, &err), TP_OK);
	assert_int_equal(get_summary(fx, "old", &sum, &fallback, &err), TP_OK);
	assert_int_equal(sum.net_bytes, 21);
}

static void test_stale_or_tampered_summaries_fall_back(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], path[512], sum_path[512];
	struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
	tp_profile_summary sum;
	bool fallback;
	tp_error err;
	char *text;
	FILE *f;

	put(fx, "app", 5, file);
	path_of(fx, "app", file, path, sizeof(path));
	summary_path(fx, "app", file, sum_path, sizeof(sum_path));
	assert_int_equal(get_summary(fx, "app", &sum, &fallback, &err), TP_OK);

	/* The run changed after its summary was written: stale. */
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	expect_summary_fallback(fx, "app", "stale");
	assert_int_equal(
	    tp_store_summarize(&fx->opt, fx->ns, "app", file, &err), TP_OK);
	assert_int_equal(get_summary(fx, "app", &sum, &fallback, &err), TP_OK);

	/* Totals kept, digest changed: the credential no longer signs it. */
	sum.digest[0] ^= 1;
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	assert_non_null(f = fopen(sum_path, "w"));
	fputs(text, f);
	fclose(f);
	free(text);
	expect_summary_fallback(fx, "app", "signs another profile");

	/* Not a summary at all, or another version. */
	assert_non_null(f = fopen(sum_path, "w"));
	fputs("topoplace-summary 5\n", f);
	fclose(f);
	expect_summary_fallback(fx, "app", "summary version 5, this reader");
	assert_int_equal(chmod(sum_path, 0622), 0);
	expect_summary_fallback(fx, "app", "writable by others: refused");

	/* No run at all is not a fallback: there is nothing to read. */
	fallback = true;
	assert_int_equal(get_summary(fx, "nosuch", &sum, &fallback, &err),
	                 TP_ERR_NOTFOUND);
	assert_false(fallback);
}

static void test_pruned_runs_take_their_summaries(void **state)
{
	struct fixture *fx = *state;
	char file[TP_STORE_FILE_MAX + 1], first[TP_STORE_FILE_MAX + 1];
	char path[512];
	struct stat sb;

	fx->opt.keep = 1;
	put(fx, "hpcg", 1, first);
	put(fx, "hpcg", 2, file);
	summary_path(fx, "hpcg", first, path, sizeof(path));
	assert_int_equal(stat(path, &sb), -1);
	summary_path(fx, "hpcg", file, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
}

static void test_summary_parser_names_line_and_key(void **state)
{
	struct fixture *fx = *state;
	tp_profile_summary sum;
	tp_error err;
	const char *bad = "topoplace-summary 1\nprofile a.tpp\n"
	                  "profile_bytes 12x\n";

	(void)fx;
	assert_int_equal(
	    tp_summary_parse("s.sum", bad, strlen(bad), &sum, &err),
	    TP_ERR_PARSE);
	assert_string_equal(err.message,
	                    "s.sum: line 3: profile_bytes: not a decimal "
	                    "number up to 18446744073709551615");
	assert_int_equal(tp_summary_parse("s.sum", bad, 30, &sum, &err),
	                 TP_ERR_PARSE);
	assert_non_null(
	    strstr(err.message, "line 2: missing 'profile' (the file ends"));
}

static void set_mtime(struct fixture *fx, const char *name, const char *file,
                      time_t when)
{
	struct timespec times[2] = {{when, 0}, {when, 0}};
	char path[512];

	path_of(fx, name, file, path, sizeof(path));
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

static size_t runs_of(struct fixture *fx, const char *name)
{
	tp_store_list list;
	tp_error err;
	size_t n;

	assert_int_equal(
	    tp_store_list_runs(&fx->opt, fx->ns, name, &list, &err), TP_OK);
	n = list.count;
	tp_store_list_free(&list);
	return n;
}

static void test_keep_applies_per_application(void **state)
{
	struct fixture *fx = *state;
	unsigned removed = 99;
	tp_error err;

	for (int i = 0; i < 3; i++)
		put(fx, "lulesh", 100, NULL);
	fx->opt.keep = 2;
	/* A put prunes its own application only. */
	for (int i = 0; i < 3; i++)
		put(fx, "hpcg", 100, NULL);
	assert_int_equal(runs_of(fx, "hpcg"), 2);
	assert_int_equal(runs_of(fx, "lulesh"), 3);
	assert_int_equal(tp_store_prune(&fx->opt, fx->ns, "lulesh", time(NULL),
	                                &removed, &err),
	                 TP_OK);
	assert_int_equal(removed, 1);
	assert_int_equal(runs_of(fx, "lulesh"), 2);
	assert_int_equal(runs_of(fx, "hpcg"), 2);
	assert_int_equal(tp_store_prune(&fx->opt, fx->ns, "nosuch", time(NULL),
	                                &removed, &err),
	                 TP_ERR_NOTFOUND);
}

static void test_max_age_drops_old_runs_per_application(void **state)
{
	struct fixture *fx = *state;
	char old1[TP_STORE_FILE_MAX + 1], old2[TP_STORE_FILE_MAX + 1];
	char newest[TP_STORE_FILE_MAX + 1], other[TP_STORE_FILE_MAX + 1];
	time_t now = time(NULL);
	unsigned removed;
	tp_store_list list;
	int64_t used_s;
	tp_error err;

	put(fx, "lulesh", 1, old1);
	put(fx, "lulesh", 2, old2);
	put(fx, "lulesh", 3, newest);
	put(fx, "hpcg", 4, other);
	set_mtime(fx, "lulesh", old1, now - 200);
	set_mtime(fx, "lulesh", old2, now - 101);
	set_mtime(fx, "hpcg", other, now - 500);
	/* 0: no age limit, so nothing goes by age. */
	fx->opt.max_age_s = 0;
	assert_int_equal(
	    tp_store_prune(&fx->opt, fx->ns, "lulesh", now, &removed, &err),
	    TP_OK);
	assert_int_equal(removed, 0);
	fx->opt.max_age_s = 100;
	assert_int_equal(
	    tp_store_prune(&fx->opt, fx->ns, "lulesh", now, &removed, &err),
	    TP_OK);
	assert_int_equal(removed, 2);
	assert_int_equal(
	    tp_store_list_runs(&fx->opt, fx->ns, "lulesh", &list, &err), TP_OK);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.entries[0].file, newest);
	tp_store_list_free(&list);
	/* Another application's old run is its own business. */
	assert_int_equal(runs_of(fx, "hpcg"), 1);
	/* The newest run, in use, goes once it is past the age too, and
	 * its last-use record with it. */
	assert_int_equal(
	    tp_store_note_use(&fx->opt, fx->ns, "lulesh", now, 7, NULL, &err),
	    TP_OK);
	set_mtime(fx, "lulesh", newest, now - 101);
	assert_int_equal(
	    tp_store_prune(&fx->opt, fx->ns, "lulesh", now, &removed, &err),
	    TP_OK);
	assert_int_equal(removed, 1);
	assert_int_equal(runs_of(fx, "lulesh"), 0);
	assert_int_equal(
	    tp_store_last_use(&fx->opt, fx->ns, "lulesh", &used_s, NULL, &err),
	    TP_ERR_NOTFOUND);
}

static void test_last_use_is_recorded_once_a_minute(void **state)
{
	struct fixture *fx = *state;
	char path[512];
	struct stat sb;
	int64_t used_s = 0;
	uint64_t job = 0;
	bool written = false;
	tp_error err;

	put(fx, "lulesh", 100, NULL);
	assert_int_equal(
	    tp_store_last_use(&fx->opt, fx->ns, "lulesh", &used_s, &job, &err),
	    TP_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, "last-use: never used"));
	assert_int_equal(tp_store_note_use(&fx->opt, fx->ns, "lulesh", 100000,
	                                   7, &written, &err),
	                 TP_OK);
	assert_true(written);
	assert_int_equal(
	    tp_store_last_use(&fx->opt, fx->ns, "lulesh", &used_s, &job, &err),
	    TP_OK);
	assert_int_equal(used_s, 100000);
	assert_int_equal(job, 7);
	assert_int_equal(
	    tp_store_note_use(&fx->opt, fx->ns, "lulesh",
	                      100000 + TP_STORE_LAST_USE_RESOLUTION_S - 1, 8,
	                      &written, &err),
	    TP_OK);
	assert_false(written);
	assert_int_equal(
	    tp_store_note_use(&fx->opt, fx->ns, "lulesh",
	                      100000 + TP_STORE_LAST_USE_RESOLUTION_S, 9,
	                      &written, &err),
	    TP_OK);
	assert_true(written);
	assert_int_equal(
	    tp_store_last_use(&fx->opt, fx->ns, "lulesh", &used_s, &job, &err),
	    TP_OK);
	assert_int_equal(job, 9);
	path_of(fx, "lulesh", TP_STORE_LAST_USE_FILE, path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(sb.st_uid, geteuid());
	/* A record is not a run. */
	assert_int_equal(runs_of(fx, "lulesh"), 1);
	assert_int_equal(tp_store_note_use(&fx->opt, fx->ns, "nosuch", 100000,
	                                   1, &written, &err),
	                 TP_ERR_NOTFOUND);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0600), 0);
}

static void expect_last_use_refused(struct fixture *fx, tp_status code,
                                    const char *needle)
{
	tp_error err;
	int64_t used_s = -1;

	assert_int_equal(
	    tp_store_last_use(&fx->opt, fx->ns, "lulesh", &used_s, NULL, &err),
	    code);
	assert_int_equal(used_s, -1);
	if (!strstr(err.message, needle) ||
	    !strstr(err.message, "/lulesh/last-use"))
		fail_msg("message '%s' lacks the file or '%s'", err.message,
		         needle);
}

static void test_bad_last_use_records_are_named_and_ignored(void **state)
{
	struct fixture *fx = *state;
	char path[512], big[TP_STORE_LAST_USE_MAX_BYTES + 8];
	bool written = false;
	int64_t used_s;
	tp_error err;

	put(fx, "lulesh", 100, NULL);
	path_of(fx, "lulesh", TP_STORE_LAST_USE_FILE, path, sizeof(path));
	write_text(path, "topoplace-last-use 1 12x 7\n");
	expect_last_use_refused(fx, TP_ERR_PARSE, "not a last-use record");
	write_text(path, "topoplace-last-use 1 12 7");
	expect_last_use_refused(fx, TP_ERR_PARSE, "not a last-use record");
	write_text(path, "topoplace-last-use 1 99999999999999999999 7\n");
	expect_last_use_refused(fx, TP_ERR_PARSE, "not a last-use record");
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	write_text(path, big);
	expect_last_use_refused(fx, TP_ERR_LIMIT, "last-use");
	write_text(path, "topoplace-last-use 1 12 7\n");
	assert_int_equal(chmod(path, 0622), 0);
	expect_last_use_refused(fx, TP_ERR_AUTH, "that only it may write");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	expect_last_use_refused(fx, TP_ERR_AUTH, "a symbolic link");
	if (geteuid() == 0) {
		assert_int_equal(unlink(path), 0);
		write_text(path, "topoplace-last-use 1 12 7\n");
		assert_int_equal(chown(path, 1, 1), 0);
		expect_last_use_refused(fx, TP_ERR_AUTH, "owned by uid 1 ");
	}
	/* A bad record is replaced by the next use, never a reason to fail
	 * it; the symlink's target is untouched. */
	assert_int_equal(tp_store_note_use(&fx->opt, fx->ns, "lulesh", 5000, 3,
	                                   &written, &err),
	                 TP_OK);
	assert_true(written);
	assert_int_equal(
	    tp_store_last_use(&fx->opt, fx->ns, "lulesh", &used_s, NULL, &err),
	    TP_OK);
	assert_int_equal(used_s, 5000);
}

/* A stored run of @ranks ranks (the fixture's profiles have 64). */
static void put_ranks(struct fixture *fx, const char *name, uint32_t ranks,
                      char file[TP_STORE_FILE_MAX + 1])
{
	tp_profile_header h = {.ranks = ranks, .ranks_per_node = 1};
	tp_profile *p;
	tp_error err;

	strcpy(h.app, "lulesh");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 100, 1, NULL), TP_OK);
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	if (tp_store_put(&fx->opt, fx->ns, name, p, file, &err) != TP_OK)
		fail_msg("put: %s", err.message);
	tp_profile_free(p);
}

static void test_summary_for_a_job_is_its_task_counts_newest_run(void **st)
{
	struct fixture *fx = *st;
	char four[TP_STORE_FILE_MAX + 1], eight[TP_STORE_FILE_MAX + 1];
	char path[512], cmd[700];
	tp_identity_run_choice choice;
	tp_profile_summary sum;
	tp_store_entry run;
	bool fallback;
	tp_error err;

	put_ranks(fx, "ring", 4, four);
	put_ranks(fx, "ring", 8, eight);
	assert_int_equal(tp_store_get_summary_for(&fx->opt, fx->ns, "ring", 4,
	                                          &sum, &run, &choice,
	                                          &fallback, &err),
	                 TP_OK);
	assert_int_equal(sum.ranks, 4);
	assert_string_equal(run.file, four);
	assert_true(choice.matched);
	assert_true(choice.over_newest);
	/* No run of 16 ranks, or no task count: the newest. */
	assert_int_equal(tp_store_get_summary_for(&fx->opt, fx->ns, "ring", 16,
	                                          &sum, &run, &choice,
	                                          &fallback, &err),
	                 TP_OK);
	assert_string_equal(run.file, eight);
	assert_false(choice.over_newest);
	assert_int_equal(tp_store_get_summary_for(&fx->opt, fx->ns, "ring", 0,
	                                          &sum, &run, &choice,
	                                          &fallback, &err),
	                 TP_OK);
	assert_int_equal(sum.ranks, 8);
	/* The chosen run's summary is verified: one signed by another uid
	 * is refused, and the caller falls back to that run itself. */
	summary_path(fx, "ring", four, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "sed -i 's/FAKE:[0-9]*:/FAKE:4242:/' '%s'",
	         path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tp_store_get_summary_for(&fx->opt, fx->ns, "ring", 4,
	                                          &sum, &run, &choice,
	                                          &fallback, &err),
	                 TP_ERR_AUTH);
	assert_true(fallback);
	assert_string_equal(run.file, four);
	/* A summary that cannot be read has no rank count: never chosen. */
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(tp_store_get_summary_for(&fx->opt, fx->ns, "ring", 4,
	                                          &sum, &run, &choice,
	                                          &fallback, &err),
	                 TP_OK);
	assert_string_equal(run.file, eight);
	assert_false(choice.matched);
}

/* A ring of @ranks, both ways: a 1-D periodic stencil. */
static void put_ring(struct fixture *fx, const char *name, uint32_t ranks,
                     char file[TP_STORE_FILE_MAX + 1])
{
	tp_profile_header h = {.ranks = ranks, .ranks_per_node = 1};
	tp_profile *p;
	tp_error err;

	strcpy(h.app, "ring");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	for (uint32_t r = 0; r < ranks; r++) {
		assert_int_equal(tp_profile_add_pair(p, r, (r + 1) % ranks,
		                                     100, 1, NULL), TP_OK);
		assert_int_equal(tp_profile_add_pair(p, r,
		                                     (r + ranks - 1) % ranks,
		                                     100, 1, NULL), TP_OK);
	}
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	if (tp_store_put(&fx->opt, fx->ns, name, p, file, &err) != TP_OK)
		fail_msg("put: %s", err.message);
	tp_profile_free(p);
}

static void test_scale_runs_come_from_verified_summaries(void **st)
{
	struct fixture *fx = *st;
	char eight[TP_STORE_FILE_MAX + 1], sixteen[TP_STORE_FILE_MAX + 1];
	char path[512], cmd[700];
	tp_scale_run runs[TP_IDENTITY_RUN_CANDIDATES_MAX];
	tp_scale_verdict v;
	size_t count;
	tp_error err;

	put_ring(fx, "ring", 8, eight);
	put_ring(fx, "ring", 16, sixteen);
	assert_int_equal(tp_store_scale_runs(&fx->opt, fx->ns, "ring", runs,
	                                     &count, &err),
	                 TP_OK);
	assert_int_equal(count, 2);
	assert_int_equal(runs[0].ranks, 8);
	assert_int_equal(runs[1].ranks, 16);
	assert_int_equal(runs[1].state, TP_STENCIL_FOUND);
	assert_int_equal(runs[1].stencil.dims, 1);
	assert_true(runs[1].stencil.periodic[0]);
	assert_int_equal(runs[1].stencil.pair_bytes[0], 100);
	v = tp_scale_decide(runs, count, 32);
	assert_true(v.scaled);
	assert_int_equal(v.source, 1);
	assert_string_equal(v.text, "1-D periodic stencil seen at 8, 16 ranks");
	/* A summary signed by another uid is not believed: refused. */
	summary_path(fx, "ring", eight, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "sed -i 's/FAKE:[0-9]*:/FAKE:4242:/' '%s'",
	         path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tp_store_scale_runs(&fx->opt, fx->ns, "ring", runs,
	                                     &count, &err),
	                 TP_OK);
	assert_int_equal(runs[0].ranks, 0);
	v = tp_scale_decide(runs, count, 32);
	assert_false(v.scaled);
	assert_string_equal(v.text, "a run's summary cannot be read");
	assert_int_equal(tp_store_scale_runs(&fx->opt, fx->ns, "none", runs,
	                                     &count, &err),
	                 TP_ERR_NOTFOUND);
}


/*
 * Summary files opened in application @name's directory, counted by the
 * kernel (inotify), not by the store: a watch to start before the call,
 * summary_opens to read after it.  Closes are watched too, so two opens
 * of one file in a row are two events, never merged into one.
 */
static int watch_summary_opens(struct fixture *fx, const char *name)
{
	char dir[512];
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	assert_true(fd >= 0);
	snprintf(dir, sizeof(dir), "%s/%s/%s", fx->root, fx->ns, name);
	assert_true(inotify_add_watch(fd, dir, IN_OPEN | IN_CLOSE_NOWRITE) >=
	            0);
	return fd;
}

static size_t summary_opens(int fd)
{
	char buf[65536]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	size_t opens = 0;
	ssize_t len;

	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;
			size_t n = ev->len ? strlen(ev->name) : 0;

			assert_false(ev->mask & IN_Q_OVERFLOW);
			if ((ev->mask & IN_OPEN) && n > 4 &&
			    !strcmp(ev->name + n - 4, ".sum"))
				opens++;
			p += sizeof(*ev) + ev->len;
		}
	}
	close(fd);
	return opens;
}

/* @count runs of "ring", 8 and 16 ranks in turn (the newest: 16), oldest
 * first into @files. */
static void put_rings(struct fixture *fx, size_t count,
                      char files[][TP_STORE_FILE_MAX + 1])
{
	fx->opt.keep = (unsigned)count;
	for (size_t i = 0; i < count; i++)
		put_ring(fx, "ring", i % 2 ? 16 : 8, files[i]);
}

/* Re-sign run @file's summary as uid 4242: it no longer verifies. */
static void forge_summary(struct fixture *fx, const char *file)
{
	char path[512], cmd[700];

	summary_path(fx, "ring", file, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "sed -i 's/FAKE:[0-9]*:/FAKE:4242:/' '%s'",
	         path);
	assert_int_equal(system(cmd), 0);
}

static void expect_same_scale_runs(const tp_scale_run *a, const tp_scale_run *b,
                                   size_t count)
{
	for (size_t i = 0; i < count; i++) {
		assert_int_equal(a[i].ranks, b[i].ranks);
		assert_int_equal(a[i].state, b[i].state);
		assert_int_equal(a[i].stencil.dims, b[i].stencil.dims);
		assert_int_equal(a[i].duration_us, b[i].duration_us);
		assert_string_equal(a[i].app, b[i].app);
	}
}

#define RINGS (TP_IDENTITY_RUN_CANDIDATES_MAX + 4)

static void test_a_job_of_another_size_reads_each_summary_once(void **st)
{
	struct fixture *fx = *st;
	char files[RINGS][TP_STORE_FILE_MAX + 1];
	tp_scale_run view[TP_IDENTITY_RUN_CANDIDATES_MAX];
	tp_scale_run alone[TP_IDENTITY_RUN_CANDIDATES_MAX];
	tp_profile_summary *sum = malloc(sizeof(*sum));
	tp_store_job_runs found;
	tp_scale_verdict v;
	size_t count;
	tp_error err;
	int watch;

	assert_non_null(sum);
	put_rings(fx, RINGS, files);
	/* 32 tasks: no run has them, so the scale rule decides; its view
	 * and the run choice come from one read of each of the newest 16
	 * summaries (choosing, then asking for the view, reads 32 or
	 * more), and one credential check each (the newest's once). */
	fx->fake.verified = 0;
	watch = watch_summary_opens(fx, "ring");
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 32,
	                                        sum, view, &found, &err),
	                 TP_OK);
	assert_int_equal(summary_opens(watch), TP_IDENTITY_RUN_CANDIDATES_MAX);
	assert_int_equal(found.stats.summaries_read,
	                 TP_IDENTITY_RUN_CANDIDATES_MAX);
	assert_int_equal(fx->fake.verified, TP_IDENTITY_RUN_CANDIDATES_MAX);
	assert_int_equal(found.stats.credentials_checked,
	                 TP_IDENTITY_RUN_CANDIDATES_MAX);
	/* The run: the newest, as tp_store_get_summary_for gives it. */
	assert_string_equal(found.run.file, files[RINGS - 1]);
	assert_false(found.choice.matched);
	assert_false(found.fallback);
	assert_int_equal(sum->ranks, 16);
	/* The view: tp_store_scale_runs's, and the rule scales from it. */
	assert_int_equal(found.scale_count, TP_IDENTITY_RUN_CANDIDATES_MAX);
	assert_int_equal(tp_store_scale_runs(&fx->opt, fx->ns, "ring", alone,
	                                     &count, &err),
	                 TP_OK);
	assert_int_equal(count, found.scale_count);
	expect_same_scale_runs(view, alone, count);
	v = tp_scale_decide(view, found.scale_count, 32);
	assert_true(v.scaled);
	assert_string_equal(v.text, "1-D periodic stencil seen at 8, 16 ranks");
	free(sum);
}

static void test_a_summary_that_fails_to_verify_never_feeds_the_rule(void **st)
{
	struct fixture *fx = *st;
	char files[RINGS][TP_STORE_FILE_MAX + 1];
	tp_scale_run view[TP_IDENTITY_RUN_CANDIDATES_MAX];
	tp_profile_summary *sum = malloc(sizeof(*sum));
	tp_store_job_runs found;
	tp_scale_verdict v;
	tp_error err;

	assert_non_null(sum);
	put_rings(fx, RINGS, files);
	/* The oldest run weighed: its ranks still count for the choice
	 * (read unverified, as before), but not in the view. */
	forge_summary(fx, files[RINGS - TP_IDENTITY_RUN_CANDIDATES_MAX]);
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 32,
	                                        sum, view, &found, &err),
	                 TP_OK);
	assert_int_equal(found.scale_count, TP_IDENTITY_RUN_CANDIDATES_MAX);
	assert_int_equal(view[0].ranks, 0);
	assert_int_equal(view[1].ranks, 16);
	v = tp_scale_decide(view, found.scale_count, 32);
	assert_false(v.scaled);
	assert_string_equal(v.text, "a run's summary cannot be read");
	/* The newest refused: the run itself is left to read, and there is
	 * no view (the rule would refuse a run it cannot read). */
	forge_summary(fx, files[RINGS - 1]);
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 32,
	                                        sum, view, &found, &err),
	                 TP_ERR_AUTH);
	assert_true(found.fallback);
	assert_string_equal(found.run.file, files[RINGS - 1]);
	assert_int_equal(found.scale_count, 0);
	/* munged down: unjudged, nothing to fall back to, and no credential
	 * asked beyond the chosen run's. */
	fx->fake.down = true;
	fx->fake.verified = 0;
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 32,
	                                        sum, view, &found, &err),
	                 TP_ERR_IO);
	assert_false(found.fallback);
	assert_int_equal(found.scale_count, 0);
	assert_int_equal(fx->fake.verified, 1);
	free(sum);
}

static void test_a_job_whose_size_ran_reads_until_that_run(void **st)
{
	struct fixture *fx = *st;
	char files[RINGS][TP_STORE_FILE_MAX + 1];
	tp_scale_run view[TP_IDENTITY_RUN_CANDIDATES_MAX];
	tp_profile_summary *sum = malloc(sizeof(*sum));
	tp_store_job_runs found;
	tp_error err;
	int watch;

	assert_non_null(sum);
	put_rings(fx, RINGS, files);
	/* 8 tasks: the newest (16) and the one before it (8) are read, the
	 * older ones are not needed (weighing all 16 read 17); only the
	 * chosen run's credential is checked, and no view is wanted. */
	fx->fake.verified = 0;
	watch = watch_summary_opens(fx, "ring");
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 8,
	                                        sum, view, &found, &err),
	                 TP_OK);
	assert_int_equal(summary_opens(watch), 2);
	assert_int_equal(found.stats.summaries_read, 2);
	assert_int_equal(fx->fake.verified, 1);
	assert_string_equal(found.run.file, files[RINGS - 2]);
	assert_true(found.choice.matched);
	assert_true(found.choice.over_newest);
	assert_int_equal(sum->ranks, 8);
	assert_int_equal(found.scale_count, 0);
	/* The newest's task count, or none: the newest alone. */
	watch = watch_summary_opens(fx, "ring");
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 16,
	                                        sum, NULL, &found, &err),
	                 TP_OK);
	assert_true(found.choice.matched);
	assert_false(found.choice.over_newest);
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "ring", 0,
	                                        sum, view, &found, &err),
	                 TP_OK);
	assert_string_equal(found.run.file, files[RINGS - 1]);
	assert_int_equal(found.scale_count, 0);
	assert_int_equal(summary_opens(watch), 2);
	/* No run: as tp_store_get_summary's lookup. */
	assert_int_equal(tp_store_read_job_runs(&fx->opt, fx->ns, "none", 8,
	                                        sum, view, &found, &err),
	                 TP_ERR_NOTFOUND);
	assert_false(found.fallback);
	free(sum);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_put_then_get_returns_the_same_profile),
	    T(test_keeps_only_the_last_k_runs_newest_wins),
	    T(test_merged_view_is_the_mean_over_kept_runs),
	    T(test_tampered_profile_with_fixed_digest_is_refused),
	    T(test_flipped_bit_is_refused_as_checksum_mismatch),
	    T(test_credential_of_another_uid_is_refused),
	    T(test_profile_replayed_under_another_name_is_refused),
	    T(test_expired_credentials_are_refused),
	    T(test_unsigned_and_garbage_credentials_are_refused),
	    T(test_symlinks_never_lead_out_of_the_store),
	    T(test_bad_names_are_refused_before_any_file_access),
	    T(test_writing_another_users_namespace_is_refused),
	    T(test_group_writable_dirs_and_open_root_are_refused),
	    T(test_files_of_another_owner_are_refused),
	    T(test_200_concurrent_writers_leave_no_torn_file),
	    T(test_writers_refuse_a_store_other_users_can_write),
	    T(test_prepare_user_makes_a_private_namespace_of_the_user),
	    T(test_prepare_user_refuses_a_namespace_someone_else_made),
	    T(test_prepare_user_refuses_an_open_store_and_bad_users),
	    T(test_put_writes_a_summary_with_the_runs_totals),
	    T(test_missing_summary_falls_back_until_summarized),
	    T(test_stale_or_tampered_summaries_fall_back),
	    T(test_pruned_runs_take_their_summaries),
	    T(test_summary_parser_names_line_and_key),
	    T(test_keep_applies_per_application),
	    T(test_max_age_drops_old_runs_per_application),
	    T(test_last_use_is_recorded_once_a_minute),
	    T(test_bad_last_use_records_are_named_and_ignored),
	    T(test_summary_for_a_job_is_its_task_counts_newest_run),
	    T(test_scale_runs_come_from_verified_summaries),
	    T(test_a_job_of_another_size_reads_each_summary_once),
	    T(test_a_summary_that_fails_to_verify_never_feeds_the_rule),
	    T(test_a_job_whose_size_ran_reads_until_that_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
