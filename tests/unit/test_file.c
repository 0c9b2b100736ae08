/*
 * test_file.c: whole-file reads are bounded exactly and every failure
 * names the file.
 */
#include "tp_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tp_file.h"

/* A temporary file holding @size bytes of 'a'; its path in @path. */
static void make_file(char path[64], size_t size)
{
	int fd;
	char *bytes = malloc(size + 1);

	assert_non_null(bytes);
	memset(bytes, 'a', size);
	strcpy(path, "/tmp/tp_file_test.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, size), (ssize_t)size);
	close(fd);
	free(bytes);
}

static void test_file_of_exactly_the_bound_is_read_whole(void **state)
{
	char path[64], *data;
	size_t len;
	tp_error err;

	(void)state;
	make_file(path, 100000);
	assert_int_equal(tp_file_read(path, NULL, 100000, &data, &len, &err),
	                 TP_OK);
	assert_int_equal(len, 100000);
	assert_int_equal(data[99999], 'a');
	assert_int_equal(data[100000], '\0');
	free(data);
	unlink(path);
}

static void test_one_byte_past_the_bound_is_refused(void **state)
{
	char path[64], want[128], *data = (char *)1;
	size_t len = 7;
	tp_error err;

	(void)state;
	make_file(path, 100001);
	assert_int_equal(tp_file_read(path, "sweep", 100000, &data, &len, &err),
	                 TP_ERR_LIMIT);
	snprintf(want, sizeof(want), "sweep %s: larger than 100000 bytes",
	         path);
	assert_string_equal(err.message, want);
	assert_null(data);
	assert_int_equal(len, 0);
	unlink(path);
}

static void test_empty_file_gives_an_empty_string(void **state)
{
	char path[64], *data;
	size_t len;
	tp_error err;

	(void)state;
	make_file(path, 0);
	assert_int_equal(tp_file_read(path, NULL, 10, &data, &len, &err),
	                 TP_OK);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
	unlink(path);
}

static void test_missing_file_and_directory_are_named(void **state)
{
	char *data;
	size_t len;
	tp_error err;

	(void)state;
	assert_int_equal(tp_file_read("/nonexistent/x", "ibnetdiscover cache",
	                              10, &data, &len, &err),
	                 TP_ERR_IO);
	assert_string_equal(err.message, "ibnetdiscover cache /nonexistent/x: "
	                                 "cannot open: No such file or "
	                                 "directory");
	assert_int_equal(tp_file_read("/", NULL, 10, &data, &len, &err),
	                 TP_ERR_IO);
	assert_string_equal(err.message, "/: is a directory");
}

static void test_unsized_input_grows_until_the_bound(void **state)
{
	char *data;
	size_t len;
	tp_error err;

	(void)state;
	/* /dev/zero reports no size: the reader must stop at the bound. */
	assert_int_equal(
	    tp_file_read("/dev/zero", NULL, 200000, &data, &len, &err),
	    TP_ERR_LIMIT);
	assert_string_equal(err.message, "/dev/zero: larger than 200000 bytes");
}

static void test_write_all_writes_every_byte(void **state)
{
	const size_t size = 1u << 20;
	char path[] = "/tmp/tp-test-file-XXXXXX";
	uint8_t *out = malloc(size);
	char *back;
	size_t len;
	tp_error err;
	int fd = mkstemp(path);

	(void)state;
	assert_non_null(out);
	assert_true(fd >= 0);
	for (size_t i = 0; i < size; i++)
		out[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(tp_file_write_all(fd, out, size), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(tp_file_read(path, NULL, size, &back, &len, &err),
	                 TP_OK);
	assert_int_equal(len, size);
	assert_memory_equal(back, out, size);
	unlink(path);
	free(back);
	free(out);
}

static void test_write_all_reports_the_failure(void **state)
{
	const char byte = 'x';
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	errno = 0;
	assert_int_equal(tp_file_write_all(fd, &byte, 1), -1);
	assert_int_equal(errno, ENOSPC);
	close(fd);
	errno = 0;
	assert_int_equal(tp_file_write_all(-1, &byte, 1), -1);
	assert_int_equal(errno, EBADF);
}

/* A scratch directory for the in-place tests; its path in @dir. */
static void make_dir(char dir[64])
{
	strcpy(dir, "/tmp/tp_file_test.XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void test_in_place_for_what_is_not_a_regular_file(void **state)
{
	char dir[64], path[128];
	int fd;

	(void)state;
	make_dir(dir);
	snprintf(path, sizeof(path), "%s/new", dir);
	assert_false(tp_file_write_in_place(path)); /* a new name */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_false(tp_file_write_in_place(path)); /* a regular file */
	assert_true(tp_file_write_in_place("/dev/null"));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_true(tp_file_write_in_place(path));
	unlink(path);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("new", path), 0);
	assert_true(tp_file_write_in_place(path));
	unlink(path);
	snprintf(path, sizeof(path), "%s/new", dir);
	unlink(path);
	rmdir(dir);
}

static void test_write_into_a_link_keeps_the_link(void **state)
{
	char dir[64], link[128], target[128], *data = NULL;
	struct stat st;
	tp_error err = {0};
	size_t len;
	int fd;

	(void)state;
	make_dir(dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a longer old text", 17), 17);
	close(fd);
	assert_int_equal(symlink("target", link), 0);
	assert_int_equal(tp_file_write_into(link, "new", 3, &err), TP_OK);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(tp_file_read(target, NULL, 64, &data, &len, &err),
	                 TP_OK);
	assert_string_equal(data, "new"); /* truncated, not overlaid */
	free(data);
	assert_int_equal(tp_file_write_into("/dev/null", "x", 1, &err), TP_OK);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	unlink(link);
	unlink(target);
	rmdir(dir);
}

static void test_write_into_never_creates(void **state)
{
	char dir[64], path[128];
	tp_error err = {0};

	(void)state;
	make_dir(dir);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(tp_file_write_into(path, "x", 1, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, path));
	assert_non_null(strstr(err.message, "cannot open"));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(tp_file_write_into(dir, "x", 1, &err), TP_ERR_IO);
	assert_non_null(strstr(err.message, dir));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_of_exactly_the_bound_is_read_whole),
	    cmocka_unit_test(test_one_byte_past_the_bound_is_refused),
	    cmocka_unit_test(test_empty_file_gives_an_empty_string),
	    cmocka_unit_test(test_missing_file_and_directory_are_named),
	    cmocka_unit_test(test_unsized_input_grows_until_the_bound),
	    cmocka_unit_test(test_write_all_writes_every_byte),
	    cmocka_unit_test(test_write_all_reports_the_failure),
	    cmocka_unit_test(test_in_place_for_what_is_not_a_regular_file),
	    cmocka_unit_test(test_write_into_a_link_keeps_the_link),
	    cmocka_unit_test(test_write_into_never_creates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
