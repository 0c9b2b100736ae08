/*
 * tp_file.h: reading a whole input file, bounded; writing one out fully.
 *
 * Every text input of the core (topology.conf, ibnetdiscover caches,
 * traffic matrices, sweeps, name maps) is read the same way: at most a
 * given number of bytes, into one NUL-terminated buffer, with one error
 * line that names the file.  Parsers then work on memory, which is also
 * what their fuzz targets feed them.
 */
#ifndef TP_FILE_H
#define TP_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "tp_error.h"

/*
 * Read file @path into a new buffer *data (NUL-terminated, free() it) of
 * *len bytes.  @kind, if not NULL, names the kind of file in front of the
 * path in messages ("ibnetdiscover cache /x: cannot open: ...").
 * Errors: TP_ERR_IO ("cannot open: <reason>", "read error: <reason>", "is a
 * directory"), TP_ERR_LIMIT ("larger than N bytes" for a file of more than
 * @max_bytes), TP_ERR_NOMEM.
 */
tp_status tp_file_read(const char *path, const char *kind, size_t max_bytes,
                       char **data, size_t *len, tp_error *err);

/*
 * Whether an output @path is to be written in place instead of through a
 * temporary file renamed over it: it exists and is not a regular file (a
 * device such as /dev/null, a FIFO, a symbolic link such as /dev/stdout).
 * A rename would replace the node or the link itself; run as root with
 * "-o /dev/null", that turns the machine's /dev/null into a regular file.
 */
bool tp_file_write_in_place(const char *path);

/*
 * Write @len bytes of @buf into the existing @path (opened for writing and
 * truncated, never created; a symbolic link is followed).  TP_ERR_IO
 * naming the path and why.
 */
tp_status tp_file_write_into(const char *path, const void *buf, size_t len,
                             tp_error *err);

/*
 * Write all @len bytes of @buf to @fd, retrying short writes and EINTR.
 * Returns 0, or -1 with errno set (a write that makes no progress sets EIO).
 */
int tp_file_write_all(int fd, const void *buf, size_t len);

#endif /* TP_FILE_H */
