/*
 * child_records.h: what a daemon's bounded child hands back to the daemon
 * that forked it: slurmd's work for a batch job and slurmstepd's for a
 * step run in a child (task/topoplace), which writes its results on a
 * pipe as records, one line each:
 *
 *   E NAME=value   set NAME in the job's or step's environment
 *   U NAME         unset NAME
 *   N text         a note for the job's output
 *   D              the last record: everything before it is complete
 *
 * The daemon applies the records only when the child finished within its
 * bounds and sent "D", so a record is applied whole or not at all.  An
 * entry that cannot be one line (a newline in a name or a variable's
 * value) is refused when written, with an error naming it, rather than
 * split into two records; a note's newlines become spaces, since a note
 * is text for a person.
 */
#ifndef TP_CHILD_RECORDS_H
#define TP_CHILD_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "tp_error.h"
#include "tp_strbuf.h"

typedef enum tp_child_record_kind {
	TP_CHILD_RECORD_SET = 'E',   /* name and value */
	TP_CHILD_RECORD_UNSET = 'U', /* name */
	TP_CHILD_RECORD_NOTE = 'N',  /* value: the note */
} tp_child_record_kind;

/* The last record, as written. */
#define TP_CHILD_RECORD_DONE "D\n"

/*
 * Append one record to @out.  SET takes @name and @value, UNSET @name,
 * NOTE @value (@name unused).  TP_ERR_INVALID, naming the variable and
 * appending nothing, when @name is empty or holds '=' or a newline, or a
 * SET value holds a newline; TP_ERR_NOMEM when @out failed.
 */
tp_status tp_child_record_add(tp_strbuf *out, tp_child_record_kind kind,
                              const char *name, const char *value,
                              tp_error *err);

/* Called for each record: @name NULL for a note, @value NULL for UNSET. */
typedef void (*tp_child_record_fn)(tp_child_record_kind kind,
                                   const char *name, const char *value,
                                   void *ctx);

/*
 * Call @fn for each well-formed record of @records, in order; @records is
 * cut in place (a NUL at each line end and after each name).  The done
 * line is not passed on.  Returns how many lines were not records (an
 * unknown kind, a SET without '=' or a name): the caller logs them.
 */
size_t tp_child_records_each(char *records, tp_child_record_fn fn, void *ctx);

/* Whether @records (@len bytes) end with the done record on a line of its
 * own: the child sent everything. */
bool tp_child_records_done(const char *records, size_t len);

#endif /* TP_CHILD_RECORDS_H */
