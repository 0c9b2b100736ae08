/*
 * test_identity.c: script keys, the identity of a batch job's application
 * beyond its job name, and the one rule that picks the key a job's
 * profile is read and recorded by (app_identity.h).
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app_identity.h"
#include "store.h"

/* SHA-256("abc") is ba7816bf8f01cfea414140de5dae2223b003...: FIPS 180-2. */
static void test_key_is_the_prefixed_sha256_of_the_script(void **state)
{
	char key[TP_IDENTITY_SCRIPT_KEY_SIZE];
	(void)state;
	tp_identity_script_key("abc", 3, key);
	assert_string_equal(key, "s-ba7816bf8f01cfea414140de5dae2223");
	assert_true(tp_store_valid_name(key));
	assert_true(tp_identity_is_script_key(key));
}

/* slurmctld's copy of the script ends with a NUL, slurmd's does not. */
static void test_slurmctld_and_slurmd_copies_give_one_key(void **state)
{
	static const char script[] = "#!/bin/sh\nsrun ./app\n";
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	(void)state;
	tp_identity_script_key(script, sizeof(script), a);     /* with NUL */
	tp_identity_script_key(script, sizeof(script) - 1, b); /* without */
	assert_string_equal(a, b);
}

static void test_one_changed_byte_changes_the_key(void **state)
{
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	(void)state;
	tp_identity_script_key("srun ./app 1\n", 13, a);
	tp_identity_script_key("srun ./app 2\n", 13, b);
	assert_string_not_equal(a, b);
}

static void test_only_keys_look_like_keys(void **state)
{
	(void)state;
	assert_false(tp_identity_is_script_key("ring"));
	assert_false(tp_identity_is_script_key(NULL));
	assert_false(tp_identity_is_script_key("s-ba7816bf8f01cfea"));
	assert_false(
	    tp_identity_is_script_key("s-BA7816BF8F01CFEA414140DE5DAE2223"));
	assert_false(
	    tp_identity_is_script_key("x-ba7816bf8f01cfea414140de5dae2223"));
}

static void test_key_of_a_file_and_its_errors(void **state)
{
	char path[] = "/tmp/tp-test-identity.XXXXXX";
	char key[TP_IDENTITY_SCRIPT_KEY_SIZE],
	    direct[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_error err;
	FILE *f;
	int fd = mkstemp(path);
	(void)state;
	assert_true(fd >= 0);
	assert_true((f = fdopen(fd, "w")) != NULL);
	fwrite("abc", 1, 4, f); /* with its NUL, as slurmctld writes it */
	fclose(f);
	assert_int_equal(tp_identity_script_key_file(path, key, &err), TP_OK);
	tp_identity_script_key("abc", 3, direct);
	assert_string_equal(key, direct);
	/* Larger than Slurm's script limit: refused before it is hashed. */
	assert_true((f = fopen(path, "w")) != NULL);
	for (size_t i = 0; i <= TP_IDENTITY_SCRIPT_MAX_BYTES; i += 4096) {
		static const char page[4096];
		fwrite(page, 1, sizeof(page), f);
	}
	fclose(f);
	assert_int_equal(tp_identity_script_key_file(path, key, &err),
	                 TP_ERR_LIMIT);
	assert_non_null(strstr(err.message, path));
	unlink(path);
	assert_int_equal(tp_identity_script_key_file(path, key, &err),
	                 TP_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, path));
}

static void test_comm_profile_wins_over_the_job_name(void **state)
{
	tp_identity_profile p =
	    tp_identity_job_profile("lulesh", "job1", "alice");

	(void)state;
	assert_string_equal(p.name, "lulesh");
	assert_true(p.named);
	assert_true(p.lookup);

	/* Not given (empty, as the option parser leaves it): the job name. */
	p = tp_identity_job_profile("", "ring", "alice");
	assert_string_equal(p.name, "ring");
	assert_false(p.named);
	assert_true(p.lookup);
	p = tp_identity_job_profile(NULL, "ring", "alice");
	assert_string_equal(p.name, "ring");
	assert_false(p.named);
}

static void test_no_store_name_means_no_lookup(void **state)
{
	tp_identity_profile p;

	(void)state;
	/* A bad --comm-profile is named, for the user's message. */
	p = tp_identity_job_profile("../etc", "ring", "alice");
	assert_string_equal(p.name, "../etc");
	assert_true(p.named);
	assert_false(p.lookup);
	/* A job name with a space; no job name at all. */
	p = tp_identity_job_profile("", "my job", "alice");
	assert_false(p.lookup);
	p = tp_identity_job_profile("", NULL, "alice");
	assert_null(p.name);
	assert_false(p.lookup);
	/* The user's namespace must be a store name too. */
	p = tp_identity_job_profile("ring", NULL, "");
	assert_false(p.lookup);
	p = tp_identity_job_profile("ring", NULL, NULL);
	assert_false(p.lookup);
	p = tp_identity_job_profile("ring", NULL, "-alice");
	assert_false(p.lookup);
}

static void test_the_newest_run_of_the_jobs_task_count_is_chosen(void **state)
{
	const uint32_t ranks[] = {4, 8, 4, 16}; /* oldest first */
	tp_identity_run_choice c;
	(void)state;

	c = tp_identity_choose_run(ranks, 4, 4);
	assert_int_equal(c.index, 2);
	assert_true(c.matched);
	assert_true(c.over_newest);
	c = tp_identity_choose_run(ranks, 4, 8);
	assert_int_equal(c.index, 1);
	assert_true(c.matched);
	c = tp_identity_choose_run(ranks, 4, 16);
	assert_int_equal(c.index, 3);
	assert_true(c.matched);
	assert_false(c.over_newest);
}

static void test_no_run_of_the_jobs_size_gives_the_newest(void **state)
{
	const uint32_t ranks[] = {4, 0, 8};
	tp_identity_run_choice c;
	(void)state;

	/* No run with 32 ranks: the newest, not matched (class only). */
	c = tp_identity_choose_run(ranks, 3, 32);
	assert_int_equal(c.index, 2);
	assert_false(c.matched);
	assert_false(c.over_newest);
	/* A job without a task count matches nothing, not an unreadable
	 * run's 0. */
	c = tp_identity_choose_run(ranks, 3, 0);
	assert_int_equal(c.index, 2);
	assert_false(c.matched);
	c = tp_identity_choose_run(ranks, 1, 4);
	assert_int_equal(c.index, 0);
	assert_true(c.matched);
	assert_false(c.over_newest);
}

/* ---- tp_identity_resolve against a store on disk ----------------------- */

/* Never called: listing runs verifies nothing. */
static tp_status no_sign(void *data, const char *payload, char **cred,
                         tp_error *err)
{
	(void)data, (void)payload, (void)cred;
	return tp_error_set(err, TP_ERR_INTERNAL, "no signing here");
}

static tp_status no_verify(void *data, const char *cred, tp_store_cred *out,
                           tp_error *err)
{
	(void)data, (void)cred, (void)out;
	return tp_error_set(err, TP_ERR_INTERNAL, "no verifying here");
}

struct store_fx {
	char root[64];
	char user[64];
	tp_store_auth auth;
	tp_store_options opt;
};

static int store_setup(void **state)
{
	struct store_fx *fx = calloc(1, sizeof(*fx));
	struct passwd *pw = getpwuid(geteuid());

	if (!fx || !pw)
		return -1;
	strcpy(fx->root, "/tmp/tp_identity_test.XXXXXX");
	if (!mkdtemp(fx->root))
		return -1;
	snprintf(fx->user, sizeof(fx->user), "%s", pw->pw_name);
	fx->auth.sign = no_sign;
	fx->auth.verify = no_verify;
	fx->opt = tp_store_default_options();
	fx->opt.root = fx->root;
	fx->opt.auth = &fx->auth;
	*state = fx;
	return 0;
}

static int store_teardown(void **state)
{
	struct store_fx *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->root);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

/* A run file @stamp.tpp of @name in the fixture user's namespace (only
 * listed, never read: its content does not matter). */
static void put_run(struct store_fx *fx, const char *name, const char *stamp)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fx->root, fx->user);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s", fx->root, fx->user, name);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s/%s.tpp", fx->root, fx->user,
	         name, stamp);
	assert_non_null(f = fopen(path, "w"));
	fputs("run\n", f);
	fclose(f);
}

static void script_key_of(const char *text,
                          char key[TP_IDENTITY_SCRIPT_KEY_SIZE])
{
	tp_identity_script_key(text, strlen(text), key);
}

/* The defect of the coverage bench (BENCH_NAMES=same): every job named
 * "job", each script its own application, each must get its own runs. */
static void test_two_scripts_under_one_job_name_get_their_own_runs(void **state)
{
	struct store_fx *fx = *state;
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_identity_profile job = tp_identity_job_profile("", "job", fx->user);
	tp_identity_key key;
	tp_error err;

	script_key_of("srun ./ring\n", a);
	script_key_of("srun ./stencil\n", b);
	/* Both ran as "job": the name holds both, each key its own. */
	put_run(fx, "job", "0000000a-1");
	put_run(fx, "job", "0000000b-1");
	put_run(fx, a, "0000000a-1");
	put_run(fx, b, "0000000b-1");
	put_run(fx, b, "0000000c-1");

	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, a, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_SCRIPT);
	assert_string_equal(key.name, a);
	assert_int_equal(key.app_runs, 1);
	assert_string_equal(tp_identity_source_name(key.source), "script hash");
	assert_non_null(strstr(key.why, a));

	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_SCRIPT);
	assert_string_equal(key.name, b);
	assert_int_equal(key.app_runs, 2);
	assert_true(key.newest_mtime_s > 0);
}

static void test_a_script_never_run_falls_back_to_the_job_name(void **state)
{
	struct store_fx *fx = *state;
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], c[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_identity_profile job = tp_identity_job_profile("", "job", fx->user);
	tp_identity_key key;
	tp_error err;

	script_key_of("srun ./ring\n", a);
	script_key_of("srun ./alltoall\n", c);
	put_run(fx, "job", "0000000a-1");
	put_run(fx, a, "0000000a-1");

	/* Placed by the name's profile (a guess), but a new application for
	 * the recording policy: no runs of its own. */
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, c, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
	assert_string_equal(key.name, "job");
	assert_int_equal(key.app_runs, 0);
	assert_string_equal(tp_identity_source_name(key.source), "job name");
	assert_non_null(strstr(key.why, "never ran"));

	/* No script at all (salloc, srun): the name and its runs. */
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, NULL, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
	assert_int_equal(key.app_runs, 1);
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, "", &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);

	/* A store nobody wrote yet has no runs: still the name. */
	fx->opt.root = "/nonexistent/tp_identity_store";
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, c, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
	fx->opt.root = fx->root;
}

static void test_comm_profile_wins_over_the_script_with_runs(void **state)
{
	struct store_fx *fx = *state;
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_identity_profile named =
	    tp_identity_job_profile("lulesh", "job", fx->user);
	tp_identity_profile bad =
	    tp_identity_job_profile("../etc", "job", fx->user);
	tp_identity_key key;
	tp_error err;

	script_key_of("srun ./ring\n", a);
	put_run(fx, a, "0000000a-1");
	put_run(fx, "lulesh", "0000000a-1");
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &named, a, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_COMM_PROFILE);
	assert_string_equal(key.name, "lulesh");
	assert_int_equal(key.app_runs, 1);
	assert_string_equal(tp_identity_source_name(key.source),
	                    "--comm-profile");
	/* A --comm-profile that is no name is never replaced by the
	 * script's runs: nothing to look up, the user is told elsewhere. */
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &bad, a, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_NONE);
	assert_null(key.name);
}

static void
test_a_job_name_that_is_no_store_name_still_finds_its_script(void **state)
{
	struct store_fx *fx = *state;
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE];
	tp_identity_profile job =
	    tp_identity_job_profile("", "my job", fx->user);
	tp_identity_key key;
	tp_error err;

	script_key_of("srun ./ring\n", a);
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, a, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_NONE);
	put_run(fx, a, "0000000a-1");
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, a, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_SCRIPT);
	assert_string_equal(key.name, a);
}

static void test_a_store_that_cannot_be_listed_is_an_error(void **state)
{
	struct store_fx *fx = *state;
	char a[TP_IDENTITY_SCRIPT_KEY_SIZE], path[128];
	tp_identity_profile job = tp_identity_job_profile("", "job", fx->user);
	tp_identity_key key;
	tp_error err;

	script_key_of("srun ./ring\n", a);
	/* The store root is a file: an error naming the key, not "no runs"
	 * (which would silently pick the job name's profile). */
	snprintf(path, sizeof(path), "%s/file", fx->root);
	fclose(fopen(path, "w"));
	fx->opt.root = path;
	assert_int_not_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, a, &key, &err),
	    TP_OK);
	assert_non_null(strstr(err.message, a));
	fx->opt.root = fx->root;
}

/* ---- rule 2b: a script's link to the application its program is ---- */

/* Write @text as the link record of @name (for records no daemon would
 * write), mode @mode. */
static void put_link_text(struct store_fx *fx, const char *name,
                          const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", fx->root, fx->user, name);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s/%s", fx->root, fx->user, name,
	         TP_STORE_LINK_FILE);
	(void)unlink(path);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* The defect of issue 18's coverage bench: script B runs the program the
 * user recorded from script A (as ringA); slurmstepd links B's key to
 * ringA, and B's next job is looked up by ringA's runs. */
static void test_a_linked_script_finds_the_applications_runs(void **state)
{
	struct store_fx *fx = *state;
	char b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	char target[TP_STORE_NAME_MAX + 1];
	tp_identity_profile job = tp_identity_job_profile("", "ringB", fx->user);
	tp_identity_key key;
	tp_store_link_rule rule = TP_STORE_LINK_PROGRAM;
	uint64_t job_id = 0;
	bool written = false;
	tp_error err;

	script_key_of("srun ./ring --size 2\n", b);
	put_run(fx, "ringA", "0000000a-1");
	put_run(fx, "ringA", "0000000b-1");

	assert_int_equal(tp_store_put_link(&fx->opt, fx->user, b, "ringA", 42,
	                                   TP_STORE_LINK_COMMAND, &written,
	                                   &err),
	                 TP_OK);
	assert_true(written);
	/* The same link again: no write. */
	assert_int_equal(tp_store_put_link(&fx->opt, fx->user, b, "ringA", 43,
	                                   TP_STORE_LINK_COMMAND, &written,
	                                   &err),
	                 TP_OK);
	assert_false(written);
	assert_int_equal(tp_store_read_link(&fx->opt, fx->user, b, target,
	                                    &job_id, &rule, &err),
	                 TP_OK);
	assert_string_equal(target, "ringA");
	assert_int_equal(job_id, 42);
	assert_int_equal(rule, TP_STORE_LINK_COMMAND);
	job.link_by_command = true;

	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_SCRIPT_LINK);
	assert_string_equal(key.name, "ringA");
	assert_int_equal(key.app_runs, 2);
	assert_int_equal(key.link_job_id, 42);
	assert_true(key.newest_mtime_s > 0);
	assert_string_equal(tp_identity_source_name(key.source),
	                    "script hash, via executable");
	assert_non_null(strstr(key.why, "runs the program of ringA"));

	/*
	 * A link by the program alone (ProfileByExecutable=program, or a
	 * version 1 record from before arguments were compared): another
	 * rule is another link, written; followed under program, not under
	 * command, and why says so.
	 */
	assert_int_equal(tp_store_put_link(&fx->opt, fx->user, b, "ringA", 44,
	                                   TP_STORE_LINK_PROGRAM, &written,
	                                   &err),
	                 TP_OK);
	assert_true(written);
	assert_int_equal(tp_store_read_link(&fx->opt, fx->user, b, target,
	                                    &job_id, &rule, &err),
	                 TP_OK);
	assert_int_equal(rule, TP_STORE_LINK_PROGRAM);
	assert_int_equal(job_id, 44);
	for (int v1 = 0; v1 < 2; v1++) {
		if (v1)
			put_link_text(fx, b, "topoplace-link 1 ringA 45\n",
			              0600);
		job.link_by_command = true;
		assert_int_equal(tp_identity_resolve(&fx->opt, fx->user, &job,
		                                     b, &key, &err),
		                 TP_OK);
		assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
		assert_string_equal(key.name, "ringB");
		assert_non_null(strstr(key.why, "by program alone"));
		assert_non_null(strstr(key.why, "ProfileByExecutable=command"));
		job.link_by_command = false;
		assert_int_equal(tp_identity_resolve(&fx->opt, fx->user, &job,
		                                     b, &key, &err),
		                 TP_OK);
		assert_int_equal(key.source, TP_IDENTITY_SCRIPT_LINK);
		assert_string_equal(key.name, "ringA");
		assert_int_equal(key.link_job_id, v1 ? 45 : 44);
	}

	/* ProfileByExecutable=no: the link is not followed. */
	job.skip_link = true;
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
	assert_string_equal(key.name, "ringB");
	assert_int_equal(key.app_runs, 0);

	/* A link never replaces the user's word. */
	job = tp_identity_job_profile("mine", "ringB", fx->user);
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_COMM_PROFILE);

	/* Once the script has runs of its own, they are its profile. */
	job = tp_identity_job_profile("", "ringB", fx->user);
	put_run(fx, b, "0000000c-1");
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_SCRIPT);
	assert_string_equal(key.name, b);
}

/* Whatever keeps a link from being followed: the job falls to its name,
 * and why says why. */
static void test_a_link_that_cannot_be_followed_is_ignored(void **state)
{
	struct store_fx *fx = *state;
	char b[TP_IDENTITY_SCRIPT_KEY_SIZE];
	char line[160];
	tp_identity_profile job = tp_identity_job_profile("", "ringB", fx->user);
	tp_identity_key key;
	tp_error err;
	static const struct {
		const char *text;
		mode_t mode;
		const char *why;
	} bad[] = {
	    {"topoplace-link 1 gone 7\n", 0600, "which has no runs"},
	    {"topoplace-link 1 ringA\n", 0600, "not a link record"},
	    {"topoplace-link 1 ringA 7", 0600, "not a link record"},
	    {"topoplace-link 2 ringA 7\n", 0600, "not a link record"},
	    {"topoplace-link 2 ringA 7 args\n", 0600, "not a link record"},
	    {"topoplace-link 2 ringA 7 command \n", 0600, "not a link record"},
	    {"topoplace-link 1 ringA 7 command\n", 0600, "not a link record"},
	    {"topoplace-link 3 ringA 7 command\n", 0600, "not a link record"},
	    {"topoplace-link 1 ../x 7\n", 0600, "not a profile name"},
	    {"topoplace-link 1 ringA 7\n", 0666, "mode 666"},
	};

	script_key_of("srun ./ring --size 3\n", b);
	put_run(fx, "ringA", "0000000a-1");
	put_run(fx, "ringB", "0000000a-1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put_link_text(fx, b, bad[i].text, bad[i].mode);
		assert_int_equal(tp_identity_resolve(&fx->opt, fx->user, &job,
		                                     b, &key, &err),
		                 TP_OK);
		assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
		assert_string_equal(key.name, "ringB");
		assert_int_equal(key.app_runs, 0);
		if (!strstr(key.why, bad[i].why))
			fail_msg("case %zu: '%s' not in '%s'", i, bad[i].why,
			         key.why);
	}
	/* A symbolic link as the record (to a file the user may not read,
	 * say) and a record over the limit: ignored, never followed. */
	{
		char path[256], big[TP_STORE_LINK_MAX_BYTES + 64];

		snprintf(path, sizeof(path), "%s/%s/%s/%s", fx->root, fx->user,
		         b, TP_STORE_LINK_FILE);
		(void)unlink(path);
		assert_int_equal(symlink("/etc/passwd", path), 0);
		assert_int_equal(tp_identity_resolve(&fx->opt, fx->user, &job,
		                                     b, &key, &err),
		                 TP_OK);
		assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
		assert_non_null(strstr(key.why, "a symbolic link"));
		(void)unlink(path);
		memset(big, ' ', sizeof(big) - 2);
		memcpy(big, "topoplace-link 1 ringA 7", 24);
		big[sizeof(big) - 2] = '\n';
		big[sizeof(big) - 1] = '\0';
		put_link_text(fx, b, big, 0600);
		assert_int_equal(tp_identity_resolve(&fx->opt, fx->user, &job,
		                                     b, &key, &err),
		                 TP_OK);
		assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
		assert_non_null(strstr(key.why, "link not followed"));
	}
	/* A link to itself is refused when written and when read. */
	assert_int_equal(tp_store_put_link(&fx->opt, fx->user, b, b, 1,
	                                   TP_STORE_LINK_COMMAND, NULL, &err),
	                 TP_ERR_INVALID);
	snprintf(line, sizeof(line), "topoplace-link 1 %s 7\n", b);
	put_link_text(fx, b, line, 0600);
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_JOB_NAME);
	assert_non_null(strstr(key.why, "links to itself"));
	/* A bad record is replaced by a good one. */
	assert_int_equal(tp_store_put_link(&fx->opt, fx->user, b, "ringA", 8,
	                                   TP_STORE_LINK_PROGRAM, NULL, &err),
	                 TP_OK);
	assert_int_equal(
	    tp_identity_resolve(&fx->opt, fx->user, &job, b, &key, &err),
	    TP_OK);
	assert_int_equal(key.source, TP_IDENTITY_SCRIPT_LINK);
	/* No namespace: nothing to link (the runs would be in it). */
	assert_int_equal(tp_store_put_link(&fx->opt, "nosuchuser_tp", b,
	                                   "ringA", 1, TP_STORE_LINK_COMMAND,
	                                   NULL, &err),
	                 TP_ERR_NOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_key_is_the_prefixed_sha256_of_the_script),
	    cmocka_unit_test(test_slurmctld_and_slurmd_copies_give_one_key),
	    cmocka_unit_test(test_one_changed_byte_changes_the_key),
	    cmocka_unit_test(test_only_keys_look_like_keys),
	    cmocka_unit_test(test_key_of_a_file_and_its_errors),
	    cmocka_unit_test(test_comm_profile_wins_over_the_job_name),
	    cmocka_unit_test(test_no_store_name_means_no_lookup),
	    cmocka_unit_test(
	        test_the_newest_run_of_the_jobs_task_count_is_chosen),
	    cmocka_unit_test(test_no_run_of_the_jobs_size_gives_the_newest),
	    cmocka_unit_test_setup_teardown(
	        test_two_scripts_under_one_job_name_get_their_own_runs,
	        store_setup, store_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_script_never_run_falls_back_to_the_job_name, store_setup,
	        store_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_comm_profile_wins_over_the_script_with_runs, store_setup,
	        store_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_job_name_that_is_no_store_name_still_finds_its_script,
	        store_setup, store_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_store_that_cannot_be_listed_is_an_error, store_setup,
	        store_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_linked_script_finds_the_applications_runs, store_setup,
	        store_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_link_that_cannot_be_followed_is_ignored, store_setup,
	        store_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
