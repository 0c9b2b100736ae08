/*
 * traffic.h: who sends how much to whom in one job.
 *
 * A tp_traffic is a plain sparse weight matrix over the job's ranks: a list
 * of (src, dst, bytes, msgs) entries.  It is the input of the remapper and
 * of the cost model.  It is filled by the matrix-file reader below (the
 * text format of tests/data/matrices) or, later, by the profile reader; the
 * struct is plain data so any producer can fill it.
 *
 * Ownership: tp_traffic_new / tp_traffic_read_* hand out a tp_traffic that
 * the caller frees with tp_traffic_free; it owns its entries array.  After
 * tp_traffic_normalize the entries are sorted by (src, dst) with no
 * duplicate pair, which every consumer here relies on (the readers
 * normalize before returning).
 */
#ifndef TP_TRAFFIC_H
#define TP_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "tp_error.h"

typedef struct tp_traffic_entry {
	uint32_t src;
	uint32_t dst;
	uint64_t bytes;
	uint64_t msgs; /* send calls; 0 when the source did not count them */
} tp_traffic_entry;

typedef struct tp_traffic {
	uint32_t ranks;            /* every src and dst is < ranks */
	size_t count;              /* entries in use */
	size_t capacity;           /* entries allocated */
	tp_traffic_entry *entries; /* owned */
} tp_traffic;

/* Bounds on what a reader accepts, so hostile input cannot exhaust memory. */
typedef struct tp_traffic_limits {
	uint32_t max_ranks;    /* ranks from the header or max index + 1 */
	size_t max_entries;    /* lines of data */
	size_t max_file_bytes; /* size of the text */
} tp_traffic_limits;

/* 1,048,576 ranks, 64 Mi entries, 4 GiB of text. */
#define TP_TRAFFIC_DEFAULT_MAX_RANKS      (1u << 20)
#define TP_TRAFFIC_DEFAULT_MAX_ENTRIES    ((size_t)1 << 26)
#define TP_TRAFFIC_DEFAULT_MAX_FILE_BYTES ((size_t)1 << 32)

/* The defaults above. */
tp_traffic_limits tp_traffic_default_limits(void);

/* An empty matrix over @ranks ranks (>= 1); free with tp_traffic_free. */
tp_status tp_traffic_new(tp_traffic **traffic, uint32_t ranks, tp_error *err);

/* Frees @traffic and its entries (NULL-safe). */
void tp_traffic_free(tp_traffic *traffic);

/*
 * Append one entry; src and dst must be < traffic->ranks (TP_ERR_INVALID).
 * Duplicates are allowed until tp_traffic_normalize sums them.
 */
tp_status tp_traffic_add(tp_traffic *traffic, uint32_t src, uint32_t dst,
                         uint64_t bytes, uint64_t msgs, tp_error *err);

/*
 * Sort entries by (src, dst), sum duplicate pairs (saturating at
 * UINT64_MAX) and drop entries with 0 bytes and 0 msgs.
 */
void tp_traffic_normalize(tp_traffic *traffic);

/* Sum of bytes over all entries, diagonal included (saturating). */
uint64_t tp_traffic_total_bytes(const tp_traffic *traffic);

/*
 * Parse the matrix text format (tests/data/matrices/README.md) held in
 * @text (@len bytes, need not be NUL-terminated); @name labels errors.
 * An optional first line `# commprof-v1 ... ranks=N ...` gives the rank
 * count; other `#` lines and blank lines are skipped; each data line is
 * `src dst bytes [msgs]` in decimal.  Without a header, ranks = max index
 * + 1.  Duplicate pairs are summed.  Errors (TP_ERR_PARSE, TP_ERR_LIMIT)
 * name @name, the line and what is wrong.  @limits may be NULL (defaults).
 */
tp_status tp_traffic_parse(const char *name, const char *text, size_t len,
                           const tp_traffic_limits *limits,
                           tp_traffic **traffic, tp_error *err);

/* tp_traffic_parse on the contents of file @path (TP_ERR_IO if unreadable). */
tp_status tp_traffic_read_file(const char *path,
                               const tp_traffic_limits *limits,
                               tp_traffic **traffic, tp_error *err);

/*
 * Compressed sparse rows over the ranks: the neighbours of rank r are
 * col[row_start[r] .. row_start[r+1]) with weight[] bytes, sorted by col.
 * Directed: row = src, weight = bytes src -> dst, diagonal kept.
 * Undirected (for partitioning): weight(i, j) = bytes i->j + bytes j->i,
 * both directions stored, diagonal dropped, zero weights dropped.
 */
typedef struct tp_traffic_csr {
	uint32_t ranks;
	uint64_t *row_start; /* ranks + 1 entries */
	uint32_t *col;
	uint64_t *weight;
} tp_traffic_csr;

typedef enum tp_traffic_csr_kind {
	TP_TRAFFIC_CSR_DIRECTED,
	TP_TRAFFIC_CSR_UNDIRECTED,
} tp_traffic_csr_kind;

/*
 * Build the CSR view of a normalized @traffic; free with
 * tp_traffic_csr_free.  O(ranks + entries) time and memory.
 */
tp_status tp_traffic_csr_build(const tp_traffic *traffic,
                               tp_traffic_csr_kind kind, tp_traffic_csr **csr,
                               tp_error *err);

/* Frees @csr and its arrays (NULL-safe). */
void tp_traffic_csr_free(tp_traffic_csr *csr);

#endif /* TP_TRAFFIC_H */
