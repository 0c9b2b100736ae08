/*
 * test_exec_match.c: a step's application found by its executable
 * (profiles/exec_match.h), the store's bounded namespace scan under it
 * (tp_store_scan_summaries) and the step's command found as execvp finds
 * it (tp_exec_resolve), on a store in a temporary directory with a fake
 * credential backend (no munged).
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec_match.h"
#include "profile.h"
#include "store.h"

/* "FAKE:<uid>:<encoded_s>:<payload>" (spaces as '|'): who and when. */
struct fake {
	long age_s; /* back-date the credentials made */
};

static tp_status fake_sign(void *data, const char *payload, char **cred,
                           tp_error *err)
{
	struct fake *f = data;
	char *out = malloc(strlen(payload) + 96);

	(void)err;
	if (!out)
		return TP_ERR_NOMEM;
	sprintf(out, "FAKE:%ld:%lld:%s", (long)geteuid(),
	        (long long)time(NULL) - f->age_s, payload);
	for (char *p = out; *p; p++)
		if (*p == ' ')
			*p = '|';
	*cred = out;
	return TP_OK;
}

static tp_status fake_verify(void *data, const char *cred, tp_store_cred *out,
                             tp_error *err)
{
	long uid;
	long long enc;
	int n = 0;

	(void)data;
	if (sscanf(cred, "FAKE:%ld:%lld:%n", &uid, &enc, &n) != 2 || !n)
		return tp_error_set(err, TP_ERR_AUTH, "fake: bad credential");
	out->uid = (uid_t)uid;
	out->encoded_s = enc;
	out->ttl_s = 300;
	out->backend_expired = time(NULL) > enc + 300;
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
	strcpy(fx->root, "/tmp/tp_exec_match.XXXXXX");
	if (!mkdtemp(fx->root))
		return -1;
	snprintf(fx->ns, sizeof(fx->ns), "%s", pw->pw_name);
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

/* An executable identity: @program's bytes hashed whole, at @path. */
static tp_exec_id program(const char *program, const char *path)
{
	tp_exec_id exec;

	memset(&exec, 0, sizeof(exec));
	snprintf(exec.path, sizeof(exec.path), "%s", path);
	exec.hash_method = TP_EXEC_HASH_FULL;
	exec.size_bytes = strlen(program);
	tp_sha256(program, strlen(program), exec.sha256);
	tp_exec_args_digest(NULL, 0, &exec); /* known: no arguments */
	return exec;
}

/* Store a run of @ranks ranks of @exec (NULL: none recorded) as @name,
 * recorded by job @job_id; its file into @file (may be NULL). */
static void put_run(struct fixture *fx, const char *name, uint32_t ranks,
                    const tp_exec_id *exec, uint64_t job_id, char *file)
{
	tp_profile_header h = {.ranks = ranks, .ranks_per_node = 1};
	char stored[TP_STORE_FILE_MAX + 1];
	tp_profile *p;
	tp_error err;

	h.job_id = job_id;
	snprintf(h.app, sizeof(h.app), "%s", name);
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 100, 1, NULL), TP_OK);
	if (exec)
		p->exec = *exec;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	if (tp_store_put(&fx->opt, fx->ns, name, p, stored, &err) != TP_OK)
		fail_msg("put %s: %s", name, err.message);
	if (file)
		strcpy(file, stored);
	tp_profile_free(p);
}

static void expect_in(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("'%s' lacks '%s'", text, needle);
}

static void test_the_same_program_under_another_job_name_is_found(void **st)
{
	struct fixture *fx = *st;
	tp_exec_id ring = program("ring v1", "/home/u/ring");
	tp_exec_id copy = program("ring v1", "/scratch/u/bin/ring-copy");
	tp_exec_id other = program("lulesh", "/home/u/lulesh");
	char file[TP_STORE_FILE_MAX + 1], hex[65];
	tp_profile_summary sum;
	tp_exec_match match;
	tp_error err;

	put_run(fx, "ring-a", 4, &ring, 11, file);
	put_run(fx, "lulesh", 4, &other, 12, NULL);
	put_run(fx, "noexec", 4, NULL, 13, NULL);
	/* A copy at another path is the same program: the path is shown,
	 * never compared. */
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &copy,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    &sum, &err),
	                 TP_OK);
	assert_true(match.found);
	assert_string_equal(match.name, "ring-a");
	assert_string_equal(match.file, file);
	assert_int_equal(match.job_id, 11);
	assert_int_equal(match.read, 3);
	assert_int_equal(sum.ranks, 4);
	assert_int_equal(sum.job_id, 11);
	tp_sha256_hex(ring.sha256, hex);
	hex[12] = '\0';
	expect_in(match.why, "by executable /scratch/u/bin/ring-copy (sha256 ");
	expect_in(match.why, hex);
	expect_in(match.why, "profile ");
	expect_in(match.why, "/ring-a, a 4-rank run recorded by JobId=11");
}

static void test_a_rebuilt_binary_is_another_program(void **st)
{
	struct fixture *fx = *st;
	tp_exec_id old = program("ring v1", "/home/u/ring");
	tp_exec_id rebuilt = program("ring v2", "/home/u/ring");
	tp_exec_match match;
	tp_error err;

	put_run(fx, "ring", 4, &old, 11, NULL);
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &rebuilt,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_false(match.found);
	expect_in(match.why, "by executable /home/u/ring (sha256 ");
	expect_in(match.why, "no run of it among the newest 1 of");
	/* Same bytes hashed another way (sampled) are not compared. */
	old.hash_method = TP_EXEC_HASH_SAMPLED;
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &old,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_false(match.found);
}

static void test_the_steps_rank_count_chooses_among_the_matching_runs(void **s)
{
	struct fixture *fx = *s;
	tp_exec_id ring = program("ring v1", "/home/u/ring");
	tp_exec_id rebuilt = program("ring v2", "/home/u/ring");
	char four[TP_STORE_FILE_MAX + 1], eight[TP_STORE_FILE_MAX + 1];
	tp_exec_match match;
	tp_error err;

	put_run(fx, "ring", 4, &ring, 21, four);
	put_run(fx, "ring", 8, &ring, 22, eight);
	/* Newer, of the step's size, but another program: not weighed. */
	put_run(fx, "ring", 16, &rebuilt, 23, NULL);
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &ring,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_true(match.found);
	assert_string_equal(match.file, four);
	assert_true(match.choice.matched);
	assert_true(match.choice.over_newest);
	assert_int_equal(match.runs, 2);
	/* No run of 16 ranks of this program: the newest, and it says so. */
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &ring,
	                                    TP_EXEC_MATCH_COMMAND, 16, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_string_equal(match.file, eight);
	assert_false(match.choice.matched);
	assert_int_equal(match.ranks, 8);
	expect_in(match.why, "a 8-rank run recorded by JobId=22 (no run of "
	                     "16 ranks: its newest, of another size)");
}

static void test_a_script_keys_twin_is_reported_under_its_job_name(void **st)
{
	struct fixture *fx = *st;
	tp_exec_id ring = program("ring v1", "/home/u/ring");
	const char *key = "s-0123456789abcdef0123456789abcdef";
	tp_profile_header h = {.ranks = 4, .ranks_per_node = 1};
	tp_exec_match match;
	tp_profile *p;
	tp_error err;

	/* As the profiler stores a batch job's run: one profile, twice. */
	strcpy(h.app, "ring-b");
	assert_int_equal(tp_profile_new(&h, &p, NULL), TP_OK);
	assert_int_equal(tp_profile_add_pair(p, 0, 1, 100, 1, NULL), TP_OK);
	p->exec = ring;
	assert_int_equal(tp_profile_finish(p, NULL), TP_OK);
	assert_int_equal(
	    tp_store_put(&fx->opt, fx->ns, "ring-b", p, NULL, &err), TP_OK);
	assert_int_equal(tp_store_put(&fx->opt, fx->ns, key, p, NULL, &err),
	                 TP_OK);
	tp_profile_free(p);
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &ring,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_true(match.found);
	assert_string_equal(match.name, "ring-b");
}

static void test_a_chosen_run_that_does_not_verify_finds_nothing(void **st)
{
	struct fixture *fx = *st;
	tp_exec_id ring = program("ring v1", "/home/u/ring");
	tp_exec_match match;
	tp_error err;

	/* Signed 2 days ago; the store accepts 1 day: refused. */
	fx->fake.age_s = 2 * 24 * 3600;
	put_run(fx, "ring", 4, &ring, 31, NULL);
	fx->opt.max_age_s = 24 * 3600;
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &ring,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_ERR_AUTH);
	assert_false(match.found);
	expect_in(err.message, "by executable /home/u/ring");
	expect_in(err.message, "credential expired");
}

static void test_a_user_without_a_namespace_has_no_runs(void **st)
{
	struct fixture *fx = *st;
	tp_exec_id ring = program("ring v1", "/home/u/ring");
	tp_exec_match match;
	tp_error err;

	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &ring,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_false(match.found);
	assert_int_equal(match.read, 0);
	ring.hash_method = TP_EXEC_HASH_NONE;
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &ring,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_ERR_INVALID);
	expect_in(err.message, "not hashed");
}

struct visits {
	char names[8][TP_STORE_NAME_MAX + 1];
	size_t count;
};

static bool note_visit(void *ctx, const tp_store_entry *run,
                       const tp_profile_summary *summary)
{
	struct visits *v = ctx;

	(void)summary;
	if (v->count < 8)
		strcpy(v->names[v->count++], run->name);
	return true;
}

static void test_a_scan_reads_only_the_newest_summaries_newest_first(void **s)
{
	struct fixture *fx = *s;
	struct visits v = {0};
	size_t read = 0;
	tp_error err;

	put_run(fx, "first", 2, NULL, 1, NULL);
	put_run(fx, "second", 2, NULL, 2, NULL);
	put_run(fx, "third", 2, NULL, 3, NULL);
	put_run(fx, "fourth", 2, NULL, 4, NULL);
	assert_int_equal(tp_store_scan_summaries(&fx->opt, fx->ns, 2,
	                                         note_visit, &v, &read, &err),
	                 TP_OK);
	assert_int_equal(read, 2);
	assert_int_equal(v.count, 2);
	assert_string_equal(v.names[0], "fourth");
	assert_string_equal(v.names[1], "third");
	/* Another owner's application directory is skipped, not read. */
	memset(&v, 0, sizeof(v));
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/%s/fourth", fx->root, fx->ns);
		assert_int_equal(chmod(path, 0777), 0);
	}
	assert_int_equal(tp_store_scan_summaries(&fx->opt, fx->ns, 8,
	                                         note_visit, &v, &read, &err),
	                 TP_OK);
	assert_int_equal(read, 3);
	assert_string_equal(v.names[0], "third");
}

/* A file @name under @dir with @mode. */
static void make_file(const char *dir, const char *name, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_a_command_is_found_as_execvp_finds_it(void **st)
{
	struct fixture *fx = *st;
	char a[128], b[128], path_env[300], out[TP_EXEC_PATH_MAX + 1],
	    want[256];
	tp_error err;

	snprintf(a, sizeof(a), "%s/a", fx->root);
	snprintf(b, sizeof(b), "%s/b", fx->root);
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	make_file(a, "app", 0644); /* not executable: passed over */
	make_file(b, "app", 0755);
	make_file(a, "tool", 0755);
	snprintf(path_env, sizeof(path_env), "%s:%s", a, b);
	assert_int_equal(
	    tp_exec_resolve("app", path_env, "/", out, sizeof(out), &err),
	    TP_OK);
	snprintf(want, sizeof(want), "%s/app", b);
	assert_string_equal(out, want);
	/* The first directory wins. */
	assert_int_equal(
	    tp_exec_resolve("tool", path_env, "/", out, sizeof(out), &err),
	    TP_OK);
	snprintf(want, sizeof(want), "%s/tool", a);
	assert_string_equal(out, want);
	/* A relative PATH entry and a command with a '/' are under cwd. */
	assert_int_equal(
	    tp_exec_resolve("tool", "b:a", fx->root, out, sizeof(out), &err),
	    TP_OK);
	snprintf(want, sizeof(want), "%s/a/tool", fx->root);
	assert_string_equal(out, want);
	assert_int_equal(
	    tp_exec_resolve("./b/app", NULL, fx->root, out, sizeof(out), &err),
	    TP_OK);
	snprintf(want, sizeof(want), "%s/./b/app", fx->root);
	assert_string_equal(out, want);
	/* Not found, and found but not executable: one line each. */
	assert_int_equal(
	    tp_exec_resolve("nosuch", path_env, "/", out, sizeof(out), &err),
	    TP_ERR_NOTFOUND);
	expect_in(err.message, "command nosuch: not found in the 2 "
	                       "directories of PATH");
	assert_int_equal(tp_exec_resolve("app", a, "/", out, sizeof(out), &err),
	                 TP_ERR_IO);
	expect_in(err.message, "not executable by the user");
	assert_int_equal(
	    tp_exec_resolve("", path_env, "/", out, sizeof(out), &err),
	    TP_ERR_INVALID);
}

/* One solver, two inputs: two applications by command, one by program. */
static void test_other_arguments_are_another_application_by_command(void **st)
{
	static const char *const deck_a[] = {"-in", "a.lj"};
	static const char *const deck_b[] = {"-in", "b.lj"};
	struct fixture *fx = *st;
	tp_exec_id lmp_a = program("lammps", "/opt/lammps/bin/lmp");
	tp_exec_id lmp_b = lmp_a;
	tp_exec_match match;
	tp_error err;

	tp_exec_args_digest(deck_a, 2, &lmp_a);
	tp_exec_args_digest(deck_b, 2, &lmp_b);
	put_run(fx, "melt", 4, &lmp_a, 21, NULL);
	/* The same program with other arguments: not found by command. */
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &lmp_b,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_false(match.found);
	assert_int_equal(match.other_args, 1);
	expect_in(match.why, "by executable /opt/lammps/bin/lmp (sha256 ");
	expect_in(match.why, ") and arguments (2, sha256 ");
	expect_in(match.why, "(1 of the program with other or unknown "
	                     "arguments)");
	/* ... found by program, as before arguments were compared. */
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &lmp_b,
	                                    TP_EXEC_MATCH_PROGRAM, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_true(match.found);
	assert_string_equal(match.name, "melt");
	assert_null(strstr(match.why, "arguments"));
	/* The same arguments: found by command, and the why says both. */
	put_run(fx, "crack", 4, &lmp_b, 22, NULL);
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &lmp_a,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_true(match.found);
	assert_string_equal(match.name, "melt");
	assert_int_equal(match.job_id, 21);
	expect_in(match.why, "and arguments (2, sha256 ");
	expect_in(match.why, ": profile ");
	expect_in(match.why, "/melt, a 4-rank run recorded by JobId=21");
}

/* A run recorded before arguments were (format 1.1, summary v3) is
 * never the same command; a step whose arguments are unknown matches
 * nothing by command. */
static void test_unknown_arguments_never_match_by_command(void **st)
{
	static const char *const deck[] = {"-in", "a.lj"};
	struct fixture *fx = *st;
	tp_exec_id old = program("lammps", "/opt/lammps/bin/lmp");
	tp_exec_id step = old;
	tp_exec_match match;
	tp_error err;

	/* program() knows "no arguments": make it the unknown of a 1.1 run. */
	old.args_method = TP_EXEC_ARGS_NONE;
	memset(old.args_sha256, 0, sizeof(old.args_sha256));
	put_run(fx, "old", 4, &old, 31, NULL);
	tp_exec_args_digest(deck, 2, &step);
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &step,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_false(match.found);
	assert_int_equal(match.other_args, 1);
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &old,
	                                    TP_EXEC_MATCH_COMMAND, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_false(match.found);
	assert_int_equal(match.read, 0); /* nothing read */
	expect_in(match.why, "and arguments (unknown: over 1024 KiB): not "
	                     "matched by command");
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &step,
	                                    TP_EXEC_MATCH_PROGRAM, 4, &match,
	                                    NULL, &err),
	                 TP_OK);
	assert_true(match.found);
	assert_string_equal(match.name, "old");
	/* Not by executable at all: not a rule to match by. */
	assert_int_equal(tp_exec_match_find(&fx->opt, fx->ns, &step,
	                                    TP_EXEC_MATCH_NO, 4, &match, NULL,
	                                    &err),
	                 TP_ERR_INVALID);
	expect_in(err.message, "ProfileByExecutable=no");
}

static void test_match_rules_parse_with_the_old_yes_as_program(void **st)
{
	tp_exec_match_rule rule = TP_EXEC_MATCH_NO;
	tp_error err;

	(void)st;
	assert_int_equal(tp_exec_match_rule_parse("COMMAND", &rule, &err),
	                 TP_OK);
	assert_int_equal(rule, TP_EXEC_MATCH_COMMAND);
	assert_int_equal(tp_exec_match_rule_parse("yes", &rule, &err), TP_OK);
	assert_int_equal(rule, TP_EXEC_MATCH_PROGRAM);
	assert_int_equal(tp_exec_match_rule_parse("0", &rule, &err), TP_OK);
	assert_int_equal(rule, TP_EXEC_MATCH_NO);
	assert_int_equal(tp_exec_match_rule_parse("args", &rule, &err),
	                 TP_ERR_INVALID);
	expect_in(err.message, "'args' is not one of command|program|no");
	assert_int_equal(rule, TP_EXEC_MATCH_NO);
	assert_string_equal(tp_exec_match_rule_name(TP_EXEC_MATCH_PROGRAM),
	                    "program");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_the_same_program_under_another_job_name_is_found, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_rebuilt_binary_is_another_program, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_the_steps_rank_count_chooses_among_the_matching_runs,
	        setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_script_keys_twin_is_reported_under_its_job_name, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_chosen_run_that_does_not_verify_finds_nothing, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_user_without_a_namespace_has_no_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_scan_reads_only_the_newest_summaries_newest_first, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_a_command_is_found_as_execvp_finds_it, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_other_arguments_are_another_application_by_command, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_unknown_arguments_never_match_by_command, setup, teardown),
	    cmocka_unit_test(test_match_rules_parse_with_the_old_yes_as_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
