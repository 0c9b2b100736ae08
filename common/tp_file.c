/*
 * tp_file.c: bounded whole-file reads for the core's parsers.
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tp_file.h"

tp_status tp_file_read(const char *path, const char *kind, size_t max_bytes,
                       char **data, size_t *len, tp_error *err)
{
	const char *sep = kind ? " " : "";
	size_t n = 0, cap;
	struct stat st;
	char *buf, *bigger;
	int fd;

	kind = kind ? kind : "";
	*data = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tp_error_set(err, TP_ERR_IO, "%s%s%s: cannot open: %s",
		                    kind, sep, path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return tp_error_set(err, TP_ERR_IO, "%s%s%s: is a directory",
		                    kind, sep, path);
	}
	/* Regular files tell their size; pipes and devices grow the buffer. */
	cap = (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size <= max_bytes)
	          ? (size_t)st.st_size + 1
	          : 65536;
	if (cap > max_bytes + 1)
		cap = max_bytes + 1;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return tp_error_set(err, TP_ERR_NOMEM, "%s%s%s: out of memory",
		                    kind, sep, path);
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			/* One byte past the bound tells "too large". */
			if (cap > max_bytes)
				break;
			cap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
			bigger = realloc(buf, cap + 1);
			if (!bigger) {
				free(buf);
				close(fd);
				return tp_error_set(err, TP_ERR_NOMEM,
				                    "%s%s%s: out of memory",
				                    kind, sep, path);
			}
			buf = bigger;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int saved = errno;

			free(buf);
			close(fd);
			return tp_error_set(err, TP_ERR_IO,
			                    "%s%s%s: read error: %s", kind, sep,
			                    path, strerror(saved));
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n > max_bytes) {
		free(buf);
		return tp_error_set(err, TP_ERR_LIMIT,
		                    "%s%s%s: larger than %zu bytes", kind, sep,
		                    path, max_bytes);
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return TP_OK;
}

int tp_file_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *next = buf;

	while (len) {
		ssize_t n = write(fd, next, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		next += n;
		len -= (size_t)n;
	}
	return 0;
}

bool tp_file_write_in_place(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

tp_status tp_file_write_into(const char *path, const void *buf, size_t len,
                             tp_error *err)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	int saved;

	if (fd < 0)
		return tp_error_set(err, TP_ERR_IO, "%s: cannot open: %s", path,
		                    strerror(errno));
	if (tp_file_write_all(fd, buf, len) != 0) {
		saved = errno;
		close(fd);
		return tp_error_set(err, TP_ERR_IO, "%s: write: %s", path,
		                    strerror(saved));
	}
	if (close(fd) != 0)
		return tp_error_set(err, TP_ERR_IO, "%s: close: %s", path,
		                    strerror(errno));
	return TP_OK;
}
