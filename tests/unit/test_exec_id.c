/*
 * test_exec_id.c: what a run ran (profiles/exec_id.h): the executable's
 * bounded hash, the layout text, and their lines in a run's summary
 * (version 3; version 2 still read).
 */
#include "tp_config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec_id.h"
#include "summary.h"

/* A temporary file of @len bytes of @data; the caller unlinks @path. */
static void make_file(char *path, const void *data, size_t len)
{
	int fd;

	strcpy(path, "/tmp/tp-exec-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void test_small_executable_hash_is_its_sha256(void **s)
{
	static const char body[] = "\177ELF not really, but hashed whole";
	uint8_t want[TP_SHA256_BYTES];
	char path[64];
	tp_exec_id id;
	tp_error err;

	(void)s;
	memset(&id, 0, sizeof(id));
	make_file(path, body, sizeof(body));
	assert_int_equal(tp_exec_hash_path(path, &id, &err), TP_OK);
	tp_sha256(body, sizeof(body), want);
	assert_int_equal(id.hash_method, TP_EXEC_HASH_FULL);
	assert_int_equal(id.size_bytes, sizeof(body));
	assert_memory_equal(id.sha256, want, sizeof(want));
	assert_string_equal(id.path, path);
	unlink(path);
}

/* Over the bound only size, first and last MiB count: bounded work. */
static void test_large_executable_is_hashed_sampled(void **s)
{
	uint64_t size = TP_EXEC_HASH_FULL_MAX_BYTES + 4096;
	tp_exec_id a, b, c;
	char path[64];
	tp_error err;
	int fd;

	(void)s;
	memset(&a, 0, sizeof(a));
	make_file(path, "x", 1);
	fd = open(path, O_RDWR);
	assert_int_equal(ftruncate(fd, (off_t)size), 0); /* sparse */
	assert_int_equal(tp_exec_hash_fd(fd, path, &a, &err), TP_OK);
	assert_int_equal(a.hash_method, TP_EXEC_HASH_SAMPLED);
	assert_int_equal(a.size_bytes, size);
	/* A change in the middle is not seen (documented limit)... */
	assert_int_equal(pwrite(fd, "y", 1, (off_t)(size / 2)), 1);
	b = a;
	assert_int_equal(tp_exec_hash_fd(fd, path, &b, &err), TP_OK);
	assert_true(tp_exec_id_same_program(&a, &b));
	/* ...one in the first MiB (ELF headers, build-id) is. */
	assert_int_equal(pwrite(fd, "z", 1, 100), 1);
	c = a;
	assert_int_equal(tp_exec_hash_fd(fd, path, &c, &err), TP_OK);
	assert_false(tp_exec_id_same_program(&a, &c));
	close(fd);
	unlink(path);
}

static void test_missing_or_relative_executable_is_an_error(void **s)
{
	tp_exec_id id;
	tp_error err;

	(void)s;
	memset(&id, 0, sizeof(id));
	assert_int_equal(tp_exec_hash_path("/nonexistent/tp-app", &id, &err),
	                 TP_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, "/nonexistent/tp-app"));
	assert_int_equal(tp_exec_hash_path("bin/app", &id, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_exec_hash_path("/", &id, &err), TP_ERR_IO);
	assert_int_equal(id.hash_method, TP_EXEC_HASH_NONE);
}

static void test_unknown_hashes_never_match(void **s)
{
	tp_exec_id a, b;

	(void)s;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_false(tp_exec_id_same_program(&a, &b));
	a.hash_method = b.hash_method = TP_EXEC_HASH_FULL;
	assert_true(tp_exec_id_same_program(&a, &b));
	b.size_bytes = 1;
	assert_false(tp_exec_id_same_program(&a, &b));
}

/* The documented encoding, recomputed by hand: a length, then the bytes. */
static void test_arguments_digest_is_length_prefixed_sha256(void **s)
{
	static const char *const args[] = {"-in", "in.lj"};
	static const uint8_t input[] = {3, 0, 0, 0, 0, 0, 0, 0, '-', 'i', 'n',
	                                5, 0, 0, 0, 0, 0, 0, 0, 'i', 'n', '.',
	                                'l', 'j'};
	uint8_t want[TP_SHA256_BYTES];
	tp_exec_id id;

	(void)s;
	memset(&id, 0, sizeof(id));
	tp_exec_args_digest(args, 2, &id);
	tp_sha256(input, sizeof(input), want);
	assert_int_equal(id.args_method, TP_EXEC_ARGS_FULL);
	assert_int_equal(id.args_count, 2);
	assert_memory_equal(id.args_sha256, want, sizeof(want));
	/* The program's part is left as it was. */
	assert_int_equal(id.hash_method, TP_EXEC_HASH_NONE);
}

/* Joined or split, empty or none: each is another argument list. */
static void test_argument_boundaries_change_the_digest(void **s)
{
	static const char *const joined[] = {"a b"};
	static const char *const split[] = {"a", "b"};
	static const char *const shifted[] = {"a ", "b"};
	static const char *const empty[] = {""};
	tp_exec_id a, b, c, d, none;

	(void)s;
	memset(&a, 0, sizeof(a));
	a.hash_method = TP_EXEC_HASH_FULL;
	b = c = d = none = a;
	tp_exec_args_digest(joined, 1, &a);
	tp_exec_args_digest(split, 2, &b);
	tp_exec_args_digest(shifted, 2, &c);
	tp_exec_args_digest(empty, 1, &d);
	tp_exec_args_digest(NULL, 0, &none);
	assert_true(tp_exec_id_same_program(&a, &b));
	assert_false(tp_exec_id_same_command(&a, &b));
	assert_false(tp_exec_id_same_command(&b, &c));
	assert_false(tp_exec_id_same_command(&d, &none));
	assert_int_equal(none.args_method, TP_EXEC_ARGS_FULL);
	assert_int_equal(none.args_count, 0);
	tp_exec_args_digest(split, 2, &c);
	assert_true(tp_exec_id_same_command(&b, &c));
	/* Another program with the same arguments is another command. */
	c.size_bytes = 7;
	assert_false(tp_exec_id_same_command(&b, &c));
}

/* /proc/<pid>/cmdline gives what argv gives, argv[0] aside. */
static void test_cmdline_digest_equals_argv_digest(void **s)
{
	static const char cmdline[] = "./lmp\0-in\0in.lj\0";
	static const char other0[] = "/opt/lammps/bin/lmp\0-in\0in.lj\0";
	static const char *const args[] = {"-in", "in.lj"};
	tp_exec_id from_argv, from_cmdline, from_other;

	(void)s;
	memset(&from_argv, 0, sizeof(from_argv));
	from_argv.hash_method = TP_EXEC_HASH_FULL;
	from_cmdline = from_other = from_argv;
	tp_exec_args_digest(args, 2, &from_argv);
	/* sizeof - 1: the literal's own NUL is not part of the file. */
	tp_exec_args_from_cmdline(cmdline, sizeof(cmdline) - 1, &from_cmdline);
	tp_exec_args_from_cmdline(other0, sizeof(other0) - 1, &from_other);
	assert_true(tp_exec_id_same_command(&from_argv, &from_cmdline));
	assert_true(tp_exec_id_same_command(&from_argv, &from_other));
	/* A command line that does not end in NUL was rewritten: unknown. */
	tp_exec_args_from_cmdline(cmdline, sizeof(cmdline) - 2, &from_cmdline);
	assert_int_equal(from_cmdline.args_method, TP_EXEC_ARGS_NONE);
	tp_exec_args_from_cmdline(cmdline, 0, &from_cmdline);
	assert_int_equal(from_cmdline.args_method, TP_EXEC_ARGS_NONE);
	/* Just argv[0]: no arguments, known. */
	tp_exec_args_from_cmdline(cmdline, 6, &from_cmdline);
	assert_int_equal(from_cmdline.args_method, TP_EXEC_ARGS_FULL);
	assert_int_equal(from_cmdline.args_count, 0);
}

/* Over 1 MiB of arguments: unknown, and unknown is no command. */
static void test_arguments_over_the_bound_are_unknown(void **s)
{
	size_t half = (size_t)(TP_EXEC_ARGS_MAX_BYTES / 2);
	char *big = malloc(half);
	const char *args[3];
	tp_exec_id a, b;
	char *cmdline;
	size_t len;

	(void)s;
	assert_non_null(big);
	memset(big, 'x', half - 1);
	big[half - 1] = '\0';
	memset(&a, 0, sizeof(a));
	a.hash_method = TP_EXEC_HASH_FULL;
	b = a;
	/* Two of half the bound, NULs included: exactly at it, hashed. */
	args[0] = args[1] = big;
	tp_exec_args_digest(args, 2, &a);
	assert_int_equal(a.args_method, TP_EXEC_ARGS_FULL);
	args[2] = "";
	tp_exec_args_digest(args, 3, &b);
	assert_int_equal(b.args_method, TP_EXEC_ARGS_NONE);
	assert_int_equal(b.args_count, 0);
	assert_false(tp_exec_id_same_command(&b, &b));
	assert_true(tp_exec_id_same_program(&b, &b));
	/* The same bound through the command line. */
	len = 4 + 2 * half;
	cmdline = malloc(len + 1);
	assert_non_null(cmdline);
	memcpy(cmdline, "lmp", 4);
	memcpy(cmdline + 4, big, half);
	memcpy(cmdline + 4 + half, big, half);
	tp_exec_args_from_cmdline(cmdline, len, &b);
	assert_true(tp_exec_id_same_command(&a, &b));
	cmdline[len] = '\0';
	tp_exec_args_from_cmdline(cmdline, len + 1, &b);
	assert_int_equal(b.args_method, TP_EXEC_ARGS_NONE);
	free(cmdline);
	free(big);
}

/* The profiler's read: this very process's command line, bounded. */
static void test_arguments_read_from_a_file(void **s)
{
	/* "\0" "100": not the octal escape \0100. */
	static const char body[] = "app\0--steps\0" "100\0";
	static const char *const args[] = {"--steps", "100"};
	char path[64];
	tp_exec_id a, b;
	tp_error err;

	(void)s;
	memset(&a, 0, sizeof(a));
	b = a;
	make_file(path, body, sizeof(body) - 1);
	assert_int_equal(tp_exec_args_read(path, &a, &err), TP_OK);
	unlink(path);
	tp_exec_args_digest(args, 2, &b);
	assert_int_equal(a.args_count, 2);
	assert_memory_equal(a.args_sha256, b.args_sha256, TP_SHA256_BYTES);
	assert_int_equal(tp_exec_args_read(path, &a, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, path));
	assert_int_equal(a.args_method, TP_EXEC_ARGS_NONE);
	assert_int_equal(tp_exec_args_read("/proc/self/cmdline", &a, &err),
	                 TP_OK);
	assert_int_equal(a.args_method, TP_EXEC_ARGS_FULL);
}

static void test_layout_is_sorted_run_length_text(void **s)
{
	uint32_t even[] = {0, 16, 0, 16, 16, 0, 16};
	uint32_t uneven[] = {8, 16, 16, 3};
	uint32_t many[200];
	char out[TP_EXEC_LAYOUT_MAX + 1];

	(void)s;
	assert_int_equal(tp_exec_layout_format(even, 7, out, sizeof(out)), 0);
	assert_string_equal(out, "4x16");
	assert_int_equal(tp_exec_layout_format(uneven, 4, out, sizeof(out)), 0);
	assert_string_equal(out, "2x16+1x8+1x3");
	assert_int_equal(tp_exec_layout_check(out, 43, NULL), TP_OK);
	/* 200 different sizes do not fit 255 bytes: unknown, not cut. */
	for (uint32_t i = 0; i < 200; i++)
		many[i] = 1000 + i;
	assert_int_equal(tp_exec_layout_format(many, 200, out, sizeof(out)),
	                 -1);
	assert_string_equal(out, "");
}

static void test_layout_check_names_the_bad_term(void **s)
{
	tp_error err;

	(void)s;
	assert_int_equal(tp_exec_layout_check("", 7, &err), TP_OK);
	assert_int_equal(tp_exec_layout_check("4x16", 64, &err), TP_OK);
	assert_int_equal(tp_exec_layout_check("4x16", 63, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "64 ranks, the run has 63"));
	assert_int_equal(tp_exec_layout_check("1x8+1x16", 24, &err),
	                 TP_ERR_INVALID);
	assert_non_null(strstr(err.message, "term 2"));
	assert_int_equal(tp_exec_layout_check("2x16+", 32, &err),
	                 TP_ERR_INVALID);
	assert_int_equal(tp_exec_layout_check("0x16", 0, &err), TP_ERR_INVALID);
	assert_int_equal(tp_exec_layout_check("2x16 ", 32, &err),
	                 TP_ERR_INVALID);
}

static void summary_fixture(tp_profile_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	strcpy(sum->profile_file, "1.tpp");
	sum->ranks = 64;
	strcpy(sum->app, "lulesh");
	sum->stencil_state = TP_STENCIL_NONE;
	sum->exec_recorded = 1;
	strcpy(sum->exec.path, "/opt/my apps/lulesh2.0");
	sum->exec.hash_method = TP_EXEC_HASH_FULL;
	sum->exec.size_bytes = 123456;
	tp_sha256("lulesh", 6, sum->exec.sha256);
	strcpy(sum->exec.layout, "4x16");
	/* args_recorded 0: a version 3 summary unless a test sets it. */
	strcpy(sum->credential, "MUNGE:x:");
}

static void test_summary_round_trips_exe_and_layout(void **s)
{
	tp_profile_summary sum, back;
	char *text, *again;
	tp_error err;

	(void)s;
	summary_fixture(&sum);
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	assert_non_null(strstr(text, "topoplace-summary 3\n"));
	assert_non_null(strstr(text, "\nexe full 123456 "));
	assert_non_null(strstr(text, " /opt/my apps/lulesh2.0\nlayout 4x16\n"));
	assert_int_equal(
	    tp_summary_parse("s.sum", text, strlen(text), &back, &err), TP_OK);
	assert_true(back.exec_recorded);
	assert_true(tp_exec_id_same_program(&sum.exec, &back.exec));
	assert_string_equal(back.exec.path, sum.exec.path);
	assert_string_equal(back.exec.layout, "4x16");
	assert_int_equal(tp_summary_format(&back, &again, &err), TP_OK);
	assert_string_equal(text, again);
	free(text);
	free(again);

	/* Unknown executable and layout. */
	memset(&sum.exec, 0, sizeof(sum.exec));
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	assert_non_null(strstr(text, "\nexe none 0 - -\nlayout -\n"));
	assert_int_equal(
	    tp_summary_parse("s.sum", text, strlen(text), &back, &err), TP_OK);
	assert_int_equal(back.exec.hash_method, TP_EXEC_HASH_NONE);
	free(text);
}

static void test_version_2_summary_is_read_and_written_back(void **s)
{
	tp_profile_summary sum, back;
	char *text, *v2, *exe;
	tp_error err;

	(void)s;
	summary_fixture(&sum);
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	/* Version 2: the same text without the exe and layout lines. */
	v2 = strdup(text);
	v2[strlen("topoplace-summary ")] = '2';
	exe = strstr(v2, "exe ");
	memmove(exe, strstr(exe, "credential "),
	        strlen(strstr(exe, "credential ")) + 1);
	assert_int_equal(
	    tp_summary_parse("v2.sum", v2, strlen(v2), &back, &err), TP_OK);
	assert_false(back.exec_recorded);
	assert_int_equal(back.exec.hash_method, TP_EXEC_HASH_NONE);
	free(text);
	assert_int_equal(tp_summary_format(&back, &text, &err), TP_OK);
	assert_string_equal(text, v2);
	free(text);
	free(v2);
}

/* Replace line @key's value in @text by @value; parse must fail on it. */
static void expect_bad_line(const char *key, const char *value,
                            const char *needle)
{
	tp_profile_summary sum, back;
	char *text, buf[16384], *at, *nl;
	tp_error err;

	summary_fixture(&sum);
	sum.args_recorded = 1; /* version 4: every line */
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	at = strstr(text, key);
	assert_non_null(at);
	nl = strchr(at, '\n');
	snprintf(buf, sizeof(buf), "%.*s%s %s%s", (int)(at - text), text, key,
	         value, nl);
	free(text);
	assert_int_equal(
	    tp_summary_parse("s.sum", buf, strlen(buf), &back, &err),
	    TP_ERR_PARSE);
	if (!strstr(err.message, needle))
		fail_msg("message '%s' lacks '%s'", err.message, needle);
}

static void test_malformed_exe_or_layout_line_is_named(void **s)
{
	(void)s;
	expect_bad_line("\nexe", "full 12 abc /bin/x", "s.sum: line 18: exe:");
	expect_bad_line("\nexe", "md5 12 - /bin/x", "line 18: exe: not");
	expect_bad_line("\nexe", "none 12 - /bin/x", "line 18: exe: not");
	expect_bad_line("\nexe", "none 0 - bin/x", "line 18: exe: not");
	expect_bad_line("\nlayout", "4x15", "line 19: layout: not");
	expect_bad_line("\nlayout", "", "line 19: expected 'layout");
}

/* Version 4: the args line after layout, and back. */
static void test_summary_round_trips_the_arguments(void **s)
{
	static const char *const args[] = {"-in", "in.lj"};
	tp_profile_summary sum, back;
	char *text, *again, want[128], hex[65];
	tp_error err;

	(void)s;
	summary_fixture(&sum);
	sum.args_recorded = 1;
	tp_exec_args_digest(args, 2, &sum.exec);
	tp_sha256_hex(sum.exec.args_sha256, hex);
	snprintf(want, sizeof(want), "\nlayout 4x16\nargs full 2 %s\n", hex);
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	assert_non_null(strstr(text, "topoplace-summary 4\n"));
	assert_non_null(strstr(text, want));
	assert_int_equal(
	    tp_summary_parse("s.sum", text, strlen(text), &back, &err), TP_OK);
	assert_true(back.args_recorded);
	assert_true(tp_exec_id_same_command(&sum.exec, &back.exec));
	assert_int_equal(tp_summary_format(&back, &again, &err), TP_OK);
	assert_string_equal(text, again);
	free(text);
	free(again);

	/* Known to be unknown (over the bound, or a 1.1 run). */
	sum.exec.args_method = TP_EXEC_ARGS_NONE;
	sum.exec.args_count = 0;
	memset(sum.exec.args_sha256, 0, TP_SHA256_BYTES);
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	assert_non_null(strstr(text, "\nargs none 0 -\ncredential "));
	assert_int_equal(
	    tp_summary_parse("s.sum", text, strlen(text), &back, &err), TP_OK);
	assert_true(back.args_recorded);
	assert_int_equal(back.exec.args_method, TP_EXEC_ARGS_NONE);
	free(text);
}

/* Version 3 (no args line): read with the arguments unknown, written
 * back as it was. */
static void test_version_3_summary_is_read_with_arguments_unknown(void **s)
{
	static const char *const args[] = {"x"};
	tp_profile_summary sum, back;
	char *text, *v3, *line;
	tp_error err;

	(void)s;
	summary_fixture(&sum);
	sum.args_recorded = 1;
	tp_exec_args_digest(args, 1, &sum.exec);
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	v3 = strdup(text);
	v3[strlen("topoplace-summary ")] = '3';
	line = strstr(v3, "\nargs ") + 1;
	memmove(line, strstr(line, "credential "),
	        strlen(strstr(line, "credential ")) + 1);
	assert_int_equal(
	    tp_summary_parse("v3.sum", v3, strlen(v3), &back, &err), TP_OK);
	assert_true(back.exec_recorded);
	assert_false(back.args_recorded);
	assert_int_equal(back.exec.args_method, TP_EXEC_ARGS_NONE);
	assert_true(tp_exec_id_same_program(&sum.exec, &back.exec));
	assert_false(tp_exec_id_same_command(&sum.exec, &back.exec));
	free(text);
	assert_int_equal(tp_summary_format(&back, &text, &err), TP_OK);
	assert_string_equal(text, v3);
	free(text);
	free(v3);
	/* A version 4 summary must have it. */
	summary_fixture(&sum);
	sum.args_recorded = 1;
	assert_int_equal(tp_summary_format(&sum, &text, &err), TP_OK);
	line = strstr(text, "\nargs ") + 1;
	memmove(line, strstr(line, "credential "),
	        strlen(strstr(line, "credential ")) + 1);
	assert_int_equal(
	    tp_summary_parse("v4.sum", text, strlen(text), &back, &err),
	    TP_ERR_PARSE);
	assert_non_null(strstr(err.message, "v4.sum: line 20"));
	assert_non_null(strstr(err.message, "args"));
	free(text);
}

static void test_malformed_args_line_is_named(void **s)
{
	(void)s;
	expect_bad_line("\nargs", "full 2 abc", "s.sum: line 20: args: not");
	expect_bad_line("\nargs", "sha1 2 -", "line 20: args: not");
	expect_bad_line("\nargs", "none 2 -", "line 20: args: not");
	expect_bad_line("\nargs", "full 99999999999 -", "line 20: args: not");
	expect_bad_line("\nargs", "full 02 -", "line 20: args: not");
}

static void test_interpreters_and_launchers_are_no_key(void **state)
{
	static const char *const yes[] = {
	    "/usr/bin/python3",  "/usr/bin/python3.11", "/opt/pypy/bin/pypy3",
	    "/usr/bin/perl5.36", "/usr/lib/R/bin/R",    "/usr/bin/Rscript",
	    "/usr/bin/bash",     "/bin/sh",             "/usr/bin/env",
	    "/usr/bin/mpirun",   "/usr/bin/mpiexec.hydra", "julia-1.9",
	    "/usr/bin/node"};
	static const char *const no[] = {
	    "/opt/lulesh/bin/lulesh2.0", "/usr/bin/lmp", "/home/a/stencil",
	    "/usr/bin/Rx",               "/usr/bin/shx", "/usr/bin/bash-app/x",
	    "/bin/",                     "",             "/work/python/app"};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!tp_exec_is_interpreter(yes[i]))
			fail_msg("'%s' is an interpreter or launcher", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (tp_exec_is_interpreter(no[i]))
			fail_msg("'%s' is a program of its own", no[i]);
	assert_false(tp_exec_is_interpreter(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_executable_hash_is_its_sha256),
	    cmocka_unit_test(test_large_executable_is_hashed_sampled),
	    cmocka_unit_test(test_missing_or_relative_executable_is_an_error),
	    cmocka_unit_test(test_unknown_hashes_never_match),
	    cmocka_unit_test(test_arguments_digest_is_length_prefixed_sha256),
	    cmocka_unit_test(test_argument_boundaries_change_the_digest),
	    cmocka_unit_test(test_cmdline_digest_equals_argv_digest),
	    cmocka_unit_test(test_arguments_over_the_bound_are_unknown),
	    cmocka_unit_test(test_arguments_read_from_a_file),
	    cmocka_unit_test(test_layout_is_sorted_run_length_text),
	    cmocka_unit_test(test_layout_check_names_the_bad_term),
	    cmocka_unit_test(test_summary_round_trips_exe_and_layout),
	    cmocka_unit_test(test_version_2_summary_is_read_and_written_back),
	    cmocka_unit_test(test_malformed_exe_or_layout_line_is_named),
	    cmocka_unit_test(test_summary_round_trips_the_arguments),
	    cmocka_unit_test(
	        test_version_3_summary_is_read_with_arguments_unknown),
	    cmocka_unit_test(test_malformed_args_line_is_named),
	    cmocka_unit_test(test_interpreters_and_launchers_are_no_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
