/*
 * summary.h: the small, versioned summary stored beside each profile run.
 *
 * slurmctld classifies a job from a handful of totals (ranks, traffic and
 * I/O rates), but a profile is mostly its rank-to-rank matrix: hundreds of
 * megabytes at a few thousand ranks.  Reading it to get those totals made
 * slurmctld grow by three times the file and queued every other job's
 * lookup behind it.  So the store writes, beside <stamp>.tpp, a text file
 * <stamp>.sum with the totals, the size and mtime of the run it describes,
 * the run's digest and its munge credential; readers that only classify
 * read that (under 10 KiB) instead.
 *
 *   topoplace-summary 1
 *   profile <stamp>.tpp
 *   profile_bytes <size of the run's file>
 *   profile_mtime_ns <its mtime, ns since the epoch>
 *   digest <sha256 of the run, hex: what its credential signs>
 *   ranks <n>  duration_us <n>  net_bytes <n>  net_msgs <n>
 *   io_read_bytes <n>  io_write_bytes <n>  io_requests <n>
 *   io_clients <n>  io_request_bytes <median request size>
 *   job_id <the job that recorded the run; 0: imported>
 *   app <the run's application name: printable ASCII, spaces allowed>
 *   stencil none | stencil <d> periodic=<d digits 0|1> bytes=<b1,..,bd>
 *           msgs=<m1,..,md>   (one line: the run's stencil, scale.h)
 *   exe <none|full|sampled> <bytes> <sha256 hex or -> <path or ->
 *   layout <nodes>x<ranks per node>[+...] | -
 *   args <none|full> <count> <sha256 hex or ->
 *   credential <the run's munge credential>
 *
 * one "key value" per line, in this order.  The args line (version 4)
 * is the digest of the run's arguments (exec_id.h), so a step finds the
 * runs of the same command, not only of the same program; a version 3
 * summary is still read, its arguments unknown (args_recorded 0), and is
 * written back as version 3.  The exe and layout lines
 * (version 3) say what the run ran (exec_id.h), so a step of the same
 * executable finds its runs from their summaries alone (app_identity.h);
 * a version 2 summary is still read, its exec unknown (exec_recorded 0),
 * and is written back as version 2.  The stencil line (version 2)
 * lets a launch decide whether an application's profile scales to a job
 * of another size (scale_rule.h) from its runs' summaries alone, without
 * reading a matrix; the extents are not stored but follow from ranks and
 * d (MPI_Dims_create).  Version 1 summaries (no stencil line) are still
 * read, their stencil unknown, and tp_summary_format writes such a summary
 * back as version 1 (so parse and format round-trip).  A summary is trusted exactly
 * as far as the run: the store checks its owner and mode like the run's,
 * verifies the credential against the digest (so it was made by the
 * namespace's owner for this name), and treats it as stale when the run's
 * size or mtime differ.  The store module reads and writes the files
 * (store.h); this module only builds, prints and parses the text.
 */
#ifndef TP_SUMMARY_H
#define TP_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "scale.h"
#include "tp_error.h"

#define TP_SUMMARY_VERSION 4
#define TP_SUMMARY_VERSION_NO_ARGS    3 /* still read */
#define TP_SUMMARY_VERSION_NO_EXEC    2 /* still read */
#define TP_SUMMARY_VERSION_NO_STENCIL 1 /* still read */
#define TP_SUMMARY_TAG     "topoplace-summary"
#define TP_SUMMARY_SUFFIX  ".sum"
/* Lines and numbers plus one credential: a larger file is not a summary. */
#define TP_SUMMARY_MAX_BYTES (TP_PROFILE_CREDENTIAL_MAX + 4096)
#define TP_SUMMARY_FILE_MAX  64

typedef struct tp_profile_summary {
	char profile_file[TP_SUMMARY_FILE_MAX + 1]; /* "<stamp>.tpp" */
	uint64_t profile_bytes;
	int64_t profile_mtime_ns;
	uint8_t digest[TP_SHA256_BYTES];
	uint32_t ranks;
	uint64_t duration_us;
	uint64_t net_bytes;
	uint64_t net_msgs;
	uint64_t io_read_bytes;
	uint64_t io_write_bytes;
	uint64_t io_requests;
	uint32_t io_clients;
	uint64_t io_request_bytes; /* lower bound of the median size bucket */
	uint64_t job_id;           /* the recording job; 0: imported */
	char app[TP_PROFILE_APP_MAX + 1];
	tp_stencil_state stencil_state; /* UNKNOWN in a version 1 summary */
	tp_stencil stencil;             /* when FOUND: extents from ranks */
	int exec_recorded; /* 0: a version 1 or 2 summary, exec unknown */
	/* 0: a version 3 summary (or older): exec.args_* unknown */
	int args_recorded;
	tp_exec_id exec;
	char credential[TP_PROFILE_CREDENTIAL_MAX + 1];
} tp_profile_summary;

/*
 * The totals of @profile (decoded or finished: its digest and credential
 * are copied) and its stencil (tp_stencil_detect: a pass over the matrix
 * per dimension count tried) into @summary; the file fields are left for
 * the caller.
 * TP_ERR_LIMIT when the credential does not fit.
 */
tp_status tp_summary_of_profile(const tp_profile *profile,
                                tp_profile_summary *summary, tp_error *err);

/*
 * Print @summary in the format above into a malloc'd NUL-terminated
 * *@text (caller frees).  TP_ERR_NOMEM.
 */
tp_status tp_summary_format(const tp_profile_summary *summary, char **text,
                            tp_error *err);

/*
 * Parse @len bytes of @text (need not be NUL-terminated) into @summary.
 * TP_ERR_PARSE names @origin, the line and what is wrong (another version
 * included); TP_ERR_LIMIT past TP_SUMMARY_MAX_BYTES.  A stencil line is
 * checked against the ranks: d in 1..TP_STENCIL_DIMS_MAX with every
 * MPI_Dims_create extent >= 2, one periodic digit and one byte and
 * message mean per dimension.
 */
tp_status tp_summary_parse(const char *origin, const char *text, size_t len,
                           tp_profile_summary *summary, tp_error *err);

#endif /* TP_SUMMARY_H */
