/*
 * csv.h: the strict comma-separated line reader shared by the sweep and
 * threshold-table readers (internal to throttle/; not a public API).
 *
 * Input is a byte buffer, not a C string: it may hold NUL bytes and need not
 * end in a newline.  Every error names the file, the line and the 1-based
 * column where the offending field starts.
 */
#ifndef TP_CSV_H
#define TP_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "tp_error.h"

#define TP_CSV_MAX_LINE   1024
#define TP_CSV_MAX_FIELDS 16

typedef struct tp_csv {
	const char *name; /* for messages */
	const char *text;
	size_t len, pos;
	unsigned long line_no;
	/* Current line, NUL-terminated copy, and its fields. */
	char line[TP_CSV_MAX_LINE + 1];
	size_t field_count;
	char *fields[TP_CSV_MAX_FIELDS];
	unsigned columns[TP_CSV_MAX_FIELDS];
	/* tp_csv_next_row: the magic line and the column header were read. */
	int magic_seen, header_seen;
} tp_csv;

void tp_csv_init(tp_csv *csv, const char *name, const char *text, size_t len);

/*
 * Advance to the next line.  Returns TP_OK with *have = 1 and csv->line set
 * (trailing CR removed), or *have = 0 at the end; TP_ERR_PARSE for a line
 * longer than TP_CSV_MAX_LINE or holding NUL or control bytes.
 */
tp_status tp_csv_next_line(tp_csv *csv, int *have, tp_error *err);

/*
 * Advance to the next data row of a versioned topoplace CSV file (sweep,
 * threshold table): the first line must be @magic (a space and a free
 * comment may follow it), '#' comment and blank lines are skipped, and the
 * first other line must be @header exactly.  @kind names the format in
 * errors ("sweep").  Returns TP_OK with *have = 1 and csv->line set to the
 * row, or *have = 0 at the end; TP_ERR_PARSE naming file, line and what is
 * wrong, also when the text ends before the magic line or the header.
 */
tp_status tp_csv_next_row(tp_csv *csv, const char *magic, const char *header,
                          const char *kind, int *have, tp_error *err);

/* Split csv->line at commas; exactly @expected fields or TP_ERR_PARSE. */
tp_status tp_csv_split(tp_csv *csv, size_t expected, tp_error *err);

/* Field @i as an integer in [@min, @max] (digits only). */
tp_status tp_csv_uint(tp_csv *csv, size_t i, const char *what, uint64_t min,
                      uint64_t max, uint64_t *value, tp_error *err);

/* Field @i as a decimal "digits[.digits]" in [@min, @max]. */
tp_status tp_csv_decimal(tp_csv *csv, size_t i, const char *what, double min,
                         double max, double *value, tp_error *err);

/*
 * Read the whole file at @path (at most @max_bytes) into a new buffer
 * *text (caller frees) of *len bytes.  TP_ERR_IO / TP_ERR_LIMIT name it.
 */
tp_status tp_csv_read_file(const char *path, size_t max_bytes, char **text,
                           size_t *len, tp_error *err);

#endif /* TP_CSV_H */
