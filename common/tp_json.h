/*
 * tp_json.h: a streaming JSON writer for the `--json` forms of the
 * `topoplace` commands.
 *
 * Scripts and dashboards read Slurm through `squeue --json` and the like;
 * topoplace's decisions, tables and report summaries are offered the same
 * way.  Each document is one object whose first two members name its schema
 * and its version (see topoplace-json(7)):
 *
 *   tp_json j;
 *   tp_json_init(&j, stdout);
 *   tp_json_begin_document(&j, "remap", 1);
 *   tp_json_uint(&j, "ranks", 64);
 *   tp_json_end_document(&j);
 *   if (tp_json_finish(&j, &err) != TP_OK) ...
 *
 * Calls take the member's key inside an object and NULL inside an array.
 * A misuse (a key inside an array, none inside an object, nesting deeper
 * than TP_JSON_MAX_DEPTH, an end that does not match its begin) and a write
 * error are sticky: later calls do nothing and tp_json_finish reports the
 * first one, so callers check once at the end.  Strings are escaped as RFC
 * 8259 asks; bytes that are not valid UTF-8 become U+FFFD, so any host name
 * or file path prints as valid JSON.  Non-finite numbers print as null.
 */
#ifndef TP_JSON_H
#define TP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tp_error.h"

/* Nesting limit: the deepest document topoplace writes (cost --per-link)
 * has 6 levels. */
#define TP_JSON_MAX_DEPTH 16

typedef struct tp_json {
	FILE *out;
	uint32_t depth;                     /* open containers */
	bool is_array[TP_JSON_MAX_DEPTH];   /* per level: array or object */
	bool has_member[TP_JSON_MAX_DEPTH]; /* per level: a comma is due */
	tp_status status;                   /* first misuse or write error */
	char problem[160];                  /* what it was */
} tp_json;

/* Start writing to @out (pretty-printed, two spaces per level). */
void tp_json_init(tp_json *j, FILE *out);

/*
 * Open the document's top-level object with "schema": "topoplace.@name"
 * and "version": @version as its first members.  Close it with
 * tp_json_end_document.
 */
void tp_json_begin_document(tp_json *j, const char *name, unsigned version);
void tp_json_end_document(tp_json *j);

void tp_json_begin_object(tp_json *j, const char *key);
void tp_json_end_object(tp_json *j);
void tp_json_begin_array(tp_json *j, const char *key);
void tp_json_end_array(tp_json *j);

/* Scalar members; @value NULL prints null. */
void tp_json_string(tp_json *j, const char *key, const char *value);
void tp_json_uint(tp_json *j, const char *key, uint64_t value);
void tp_json_int(tp_json *j, const char *key, int64_t value);
void tp_json_double(tp_json *j, const char *key, double value);
void tp_json_bool(tp_json *j, const char *key, bool value);
void tp_json_null(tp_json *j, const char *key);

/*
 * Whether the document was written whole: every container closed, no
 * misuse, no write error (the stream is flushed to find out).  On failure
 * @err says which ("JSON output: ...").
 */
tp_status tp_json_finish(tp_json *j, tp_error *err);

#endif /* TP_JSON_H */
