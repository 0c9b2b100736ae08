/*
 * profile.h: one communication and I/O profile of one run of an MPI job,
 * and its versioned binary file format (documented in topoplace-profile(5)).
 *
 * A tp_profile is plain data: a header, a sparse rank-to-rank matrix
 * (sorted by (src, dst), no duplicate, no all-zero entry), per-collective
 * totals (sorted by name), an I/O summary, what the run ran (the
 * executable's path and hash and the rank layout, exec_id.h; format 1.1;
 * the digest of its arguments, format 1.2),
 * the SHA-256 digest of the encoded
 * file and the munge credential that signs it (a string, may be empty when
 * the profile has not been signed yet).
 *
 * Writer API (for the profiler, the importers and tests): tp_profile_new,
 * then tp_profile_add_pair / _add_collective / _add_io_client and the io
 * fields, then tp_profile_finish (sorts, sums duplicates, validates), then
 * tp_profile_encode or tp_profile_write_file.
 *
 * Reader: tp_profile_decode / tp_profile_read_file treat every byte as
 * hostile: bounded by tp_profile_limits, every length and count checked
 * against what is left, linear time, canonical form required (so a decode
 * followed by an encode gives the same bytes), errors name the file, the
 * section, the field and the byte offset.
 *
 * Ownership: a tp_profile from tp_profile_new / _decode / _read_file is
 * owned by the caller and freed with tp_profile_free (it owns its arrays and
 * its credential string).
 */
#ifndef TP_PROFILE_H
#define TP_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "exec_id.h"
#include "sha256.h"
#include "tp_error.h"

/*
 * Format version written by this code; readers accept major 1, any minor.
 * Minor 1 added the exec section (what the run ran); a minor 0 file is
 * still read, its exec left unknown (hash method none, path and layout "").
 * Minor 2 added the args section (the digest of the run's arguments,
 * exec_id.h); a minor 1 file is still read, its arguments unknown
 * (TP_EXEC_ARGS_NONE), so no run of it is the same command as a step.
 */
#define TP_PROFILE_VERSION_MAJOR 1
#define TP_PROFILE_VERSION_MINOR 2
#define TP_PROFILE_VERSION_MINOR_NO_EXEC 0
#define TP_PROFILE_VERSION_MINOR_NO_ARGS 1

/* Fixed parts of the file (see topoplace-profile(5)). */
#define TP_PROFILE_MAGIC        "\x89TPPROF\n"
#define TP_PROFILE_MAGIC_BYTES  8
#define TP_PROFILE_HEADER_BYTES 32
#define TP_PROFILE_PAIR_BYTES   24

#define TP_PROFILE_APP_MAX        255 /* bytes of the application name */
#define TP_PROFILE_COLL_NAME_MAX  63  /* bytes of a collective's name */
#define TP_PROFILE_IO_BUCKETS     48  /* request size histogram buckets */
#define TP_PROFILE_CREDENTIAL_MAX 8192

typedef struct tp_profile_header {
	char app[TP_PROFILE_APP_MAX + 1]; /* printable ASCII, 1..255 bytes */
	uint32_t owner_uid;      /* uid of the user whose job this was */
	uint32_t ranks;          /* MPI_COMM_WORLD size, >= 1 */
	uint32_t ranks_per_node; /* 1..ranks; 0 = unknown */
	uint64_t job_id;         /* Slurm job id of the run; 0 = none */
	int64_t start_us;        /* run start, microseconds since the epoch */
	uint64_t duration_us;    /* MPI_Init to MPI_Finalize */
} tp_profile_header;

/* Same layout as tp_traffic_entry: src sent @bytes in @msgs calls to dst. */
typedef struct tp_profile_pair {
	uint32_t src;
	uint32_t dst;
	uint64_t bytes;
	uint64_t msgs;
} tp_profile_pair;

/* Totals over all ranks for one collective ("Allreduce", ...). */
typedef struct tp_profile_collective {
	char name[TP_PROFILE_COLL_NAME_MAX + 1]; /* [A-Za-z0-9_], 1..63 */
	uint64_t calls;                          /* sum over ranks of calls */
	uint64_t bytes; /* sum over ranks of send-side payload bytes */
} tp_profile_collective;

/*
 * One I/O client (a rank that did I/O on regular files): its request count,
 * bytes, and the distribution of the time between the starts of two
 * consecutive requests (p10 <= p50 <= p90 <= p99; all 0 with < 2 requests).
 */
typedef struct tp_profile_io_client {
	uint32_t rank;
	uint64_t requests;
	uint64_t bytes;
	uint64_t interval_p10_us;
	uint64_t interval_p50_us;
	uint64_t interval_p90_us;
	uint64_t interval_p99_us;
} tp_profile_io_client;

/*
 * The job's I/O pattern.  size_hist[0] counts requests of 0 or 1 byte,
 * size_hist[i] (i >= 1) requests of [2^i, 2^(i+1)) bytes, the last bucket
 * everything larger; the histogram sums to @requests.  Clients are sorted
 * by rank, at most one per rank.
 */
typedef struct tp_profile_io {
	uint64_t requests;
	uint64_t read_bytes;
	uint64_t write_bytes;
	uint64_t time_us; /* summed over clients */
	uint64_t size_hist[TP_PROFILE_IO_BUCKETS];
	size_t client_count;
	size_t client_capacity;
	tp_profile_io_client *clients; /* owned */
} tp_profile_io;

typedef struct tp_profile {
	tp_profile_header header;
	size_t pair_count;
	size_t pair_capacity;
	tp_profile_pair *pairs; /* owned; sorted after finish/decode */
	size_t collective_count;
	size_t collective_capacity;
	tp_profile_collective *collectives; /* owned */
	tp_profile_io io;
	/* What the run ran; all unknown (zero) unless the writer sets it. */
	tp_exec_id exec;
	/* Set by encode/decode: SHA-256 of header + sections. */
	uint8_t digest[TP_SHA256_BYTES];
	char *credential; /* owned munge credential, NULL = unsigned */
} tp_profile;

/* Bounds on what the reader accepts. */
typedef struct tp_profile_limits {
	size_t max_file_bytes;
	uint32_t max_ranks;
	size_t max_pairs;
	size_t max_collectives;
} tp_profile_limits;

/* 512 MiB, 1 Mi ranks, 16 Mi pairs, 1024 collectives. */
#define TP_PROFILE_DEFAULT_MAX_FILE_BYTES  ((size_t)512 << 20)
#define TP_PROFILE_DEFAULT_MAX_RANKS       (1u << 20)
#define TP_PROFILE_DEFAULT_MAX_PAIRS       ((size_t)1 << 24)
#define TP_PROFILE_DEFAULT_MAX_COLLECTIVES 1024

/* The defaults above. */
tp_profile_limits tp_profile_default_limits(void);

/*
 * A new empty profile with header @header (copied; app must be valid and
 * ranks >= 1).  Free with tp_profile_free.  TP_ERR_INVALID, TP_ERR_NOMEM.
 */
tp_status tp_profile_new(const tp_profile_header *header, tp_profile **profile,
                         tp_error *err);

/* Frees @profile and everything it owns (NULL-safe). */
void tp_profile_free(tp_profile *profile);

/*
 * Append a matrix entry (src, dst < ranks, else TP_ERR_INVALID); duplicates
 * are summed (saturating) by tp_profile_finish.
 */
tp_status tp_profile_add_pair(tp_profile *profile, uint32_t src, uint32_t dst,
                              uint64_t bytes, uint64_t msgs, tp_error *err);

/* Add to collective @name's totals (created on first use). */
tp_status tp_profile_add_collective(tp_profile *profile, const char *name,
                                    uint64_t calls, uint64_t bytes,
                                    tp_error *err);

/* Append an I/O client record (copied; rank < ranks). */
tp_status tp_profile_add_io_client(tp_profile *profile,
                                   const tp_profile_io_client *client,
                                   tp_error *err);

/*
 * Bring @profile to canonical form (pairs sorted by (src, dst) and summed,
 * all-zero pairs dropped, collectives sorted by name, clients sorted by
 * rank) and check every invariant the reader checks.  TP_ERR_INVALID with
 * the field named when an invariant does not hold.
 */
tp_status tp_profile_finish(tp_profile *profile, tp_error *err);

/*
 * Encode a finished @profile into a new buffer (*@buf, *@len; the caller
 * frees *buf) including its credential (empty when NULL); sets
 * profile->digest.  TP_ERR_INVALID if not canonical, TP_ERR_NOMEM.
 */
tp_status tp_profile_encode(tp_profile *profile, uint8_t **buf, size_t *len,
                            tp_error *err);

/*
 * The digest the credential must sign: SHA-256 of the encoded header and
 * sections (what tp_profile_encode puts in profile->digest), computed
 * without keeping the buffer.
 */
tp_status tp_profile_compute_digest(tp_profile *profile, tp_error *err);

/*
 * Decode @len bytes at @buf; @label names the input in errors
 * ("profile alice/lulesh/….tpp: matrix: entry 12 (offset 400): src 80 >=
 * ranks 64").  @limits may be NULL (defaults).  The digest is checked; the
 * credential is only parsed (the store verifies it).  TP_ERR_PARSE,
 * TP_ERR_LIMIT, TP_ERR_UNSUPPORTED (other major version), TP_ERR_NOMEM.
 */
tp_status tp_profile_decode(const char *label, const uint8_t *buf, size_t len,
                            const tp_profile_limits *limits,
                            tp_profile **profile, tp_error *err);

/*
 * Read and decode the regular file @path (opened with O_NOFOLLOW and
 * O_NONBLOCK: symlinks and FIFOs refused; size checked before reading).
 */
tp_status tp_profile_read_file(const char *path,
                               const tp_profile_limits *limits,
                               tp_profile **profile, tp_error *err);

/*
 * Encode @profile and write it to @path atomically: a temporary file in the
 * same directory, fsync, rename, fsync of the directory.  A crash leaves the
 * old file or the new one, never a torn one.  Mode 0644 minus umask.
 */
tp_status tp_profile_write_file(const char *path, tp_profile *profile,
                                tp_error *err);

/*
 * Read the whole file @fd (at most @max_bytes; TP_ERR_LIMIT beyond) into a
 * new buffer the caller frees; @label names it in errors.  Shared by the
 * readers of this module.
 */
tp_status tp_profile_slurp_fd(int fd, const char *label, size_t max_bytes,
                              uint8_t **buf, size_t *len, tp_error *err);

/* Sum of bytes (saturating) and of msgs over the matrix. */
uint64_t tp_profile_total_bytes(const tp_profile *profile);
uint64_t tp_profile_total_msgs(const tp_profile *profile);

#endif /* TP_PROFILE_H */
