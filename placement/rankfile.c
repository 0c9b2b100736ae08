/*
 * rankfile.c: Open MPI rankfiles, Hydra machinefiles and SLURM_HOSTFILEs.
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rankfile.h"
#include "tp_file.h"
#include "tp_strbuf.h"

tp_status tp_rankfile_format_text(const tp_topo *topo,
                                  tp_rankfile_format format, uint32_t ranks,
                                  const uint32_t *rank_host,
                                  const uint32_t *rank_slot, char **text,
                                  size_t *len, tp_error *err)
{
	uint32_t hosts = tp_topo_host_count(topo);
	tp_strbuf b = TP_STRBUF_INIT(0);
	size_t text_len;

	*text = NULL;
	if (ranks == 0)
		return tp_error_set(err, TP_ERR_INVALID, "rankfile: 0 ranks");
	if (format == TP_RANKFILE_OPENMPI && !rank_slot)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "rankfile: Open MPI format needs slots");
	if (format != TP_RANKFILE_OPENMPI && format != TP_RANKFILE_HYDRA &&
	    format != TP_RANKFILE_SLURM)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "rankfile: unknown format %d", (int)format);
	for (uint32_t r = 0; r < ranks; r++)
		if (rank_host[r] >= hosts)
			return tp_error_set(err, TP_ERR_INVALID,
			                    "rankfile: rank %u on host index "
			                    "%u, fabric has %u hosts",
			                    r, rank_host[r], hosts);
	for (uint32_t r = 0; r < ranks; r++) {
		const char *name = tp_topo_host_name(topo, rank_host[r]);

		switch (format) {
		case TP_RANKFILE_OPENMPI:
			tp_strbuf_printf(&b, "rank %u=%s slot=%u\n", r, name,
			           rank_slot[r]);
			break;
		case TP_RANKFILE_SLURM:
			tp_strbuf_printf(&b, "%s\n", name);
			break;
		case TP_RANKFILE_HYDRA: {
			uint32_t run = 1;

			while (r + run < ranks &&
			       rank_host[r + run] == rank_host[r])
				run++;
			tp_strbuf_printf(&b, "%s:%u\n", name, run);
			r += run - 1;
			break;
		}
		}
	}
	text_len = b.len;
	*text = tp_strbuf_take(&b);
	if (!*text)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "rankfile: out of memory for %u ranks",
		                    ranks);
	if (len)
		*len = text_len;
	return TP_OK;
}

tp_status tp_rankfile_write(const char *path, const tp_topo *topo,
                            tp_rankfile_format format, uint32_t ranks,
                            const uint32_t *rank_host,
                            const uint32_t *rank_slot, tp_error *err)
{
	char *text, *tmp;
	size_t len, off = 0;
	int fd;
	tp_status rc;

	rc = tp_rankfile_format_text(topo, format, ranks, rank_host, rank_slot,
	                             &text, &len, err);
	if (rc != TP_OK)
		return tp_error_prefix(err, "%s", path);
	if (tp_file_write_in_place(path)) {
		rc = tp_file_write_into(path, text, len, err);
		free(text);
		return rc;
	}
	tmp = malloc(strlen(path) + sizeof(".XXXXXX"));
	if (!tmp) {
		free(text);
		return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory",
		                    path);
	}
	strcpy(tmp, path);
	strcat(tmp, ".XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = tp_error_set(err, TP_ERR_IO,
		                  "%s: cannot create a temporary file beside "
		                  "it: %s",
		                  path, strerror(errno));
		goto out;
	}
	/* mkstemp makes 0600; a rankfile is read by the launcher's user. */
	if (fchmod(fd, 0644) != 0)
		goto io_error;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto io_error;
		off += (size_t)n;
	}
	if (fsync(fd) != 0)
		goto io_error;
	if (close(fd) != 0) {
		fd = -1;
		goto io_error;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto io_error;
	rc = TP_OK;
	goto out;
io_error:
	rc = tp_error_set(err, TP_ERR_IO, "%s: cannot write: %s", path,
	                  strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(tmp);
	free(text);
	return rc;
}
