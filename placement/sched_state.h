/*
 * sched_state.h: what a scheduler adapter knows between job tests: the
 * running jobs, what each was placed as, and the nodes whole-leaf jobs
 * hold.
 *
 * Who fills it: the select adapter, at job begin and end, and at a
 * scheduler restart from each running job's recorded decision (the text
 * tp_sched_record_format writes, kept by the scheduler with the job: in
 * Slurm, the job's SystemComment).  Who reads it: the adapter, for the
 * occupancy it hands to tp_alloc_allowed and for the nodes a job that
 * falls back to the scheduler's own choice must still keep off.
 *
 * Why holds are recorded by node name: a hold is a guarantee already
 * given to a running job.  It must survive a restart with a broken
 * topoplace.conf or a missing fabric, so it may not depend on either:
 * the record names the held nodes, and recovery needs only the
 * scheduler's node names.  A record without them (written before they
 * were recorded) is resolved from the fabric as soon as one is set.
 *
 * Two index spaces, both the caller's: nodes (the scheduler's node table,
 * tp_sched_set_nodes) and hosts of an optional tp_topo (tp_sched_set_topo).
 * Names are the truth; indices are recomputed when either changes.  A
 * hold recorded once is kept as recorded: a new fabric changes no given
 * hold.
 *
 * Not thread-safe: the caller serialises (slurmctld's locks).  Memory:
 * O(nodes + hosts + the running jobs' nodes).
 */
#ifndef TP_SCHED_STATE_H
#define TP_SCHED_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "jobclass.h"
#include "policy.h"
#include "topo.h"
#include "tp_error.h"

/* The prefix of every recorded decision (the job's SystemComment). */
#define TP_SCHED_RECORD_PREFIX "topoplace: "

/* A note appended to a record stays below this many bytes. */
#define TP_SCHED_NOTE_MAX 200

/*
 * What a started job was placed as.  @held: the nodes kept for the job
 * alone (a Slurm hostlist, "n[0001-0004]"), malloc'ed, NULL when none is
 * recorded, "" when the job holds none (recorded as "held=(none)");
 * owned by whoever filled the struct (tp_sched_record_clear).
 * @shared_leaf: a `leaf` job's remainder leaf (alloc.h, LeafRemainder):
 * the fabric's name of the leaf it shares with compatible jobs, which a
 * hold derived from the fabric leaves out; malloc'ed, NULL: none.  Not
 * in the text: the held nodes derived with it are.
 */
typedef struct tp_sched_record {
	tp_placement policy;
	tp_jobclass job_class;
	bool has_profile;
	char *held;
	char *shared_leaf;
} tp_sched_record;

/* Free @rec->held and reset @rec (NULL-safe). */
void tp_sched_record_clear(tp_sched_record *rec);

/*
 * The record as text, for users and for recovery:
 *
 *   topoplace: placement=P class=C[ (profile)][ held=HOSTLIST|(none)][: NOTE]
 *
 * @note (NULL or "": none) says why, for users; it is bound to
 * TP_SCHED_NOTE_MAX bytes by tp_sched_reason_fit (whole clauses only).
 * Returns a malloc'ed string (the held list is never cut: recovery needs
 * all of it), NULL when out of memory.
 */
char *tp_sched_record_format(const tp_sched_record *rec, const char *note);

/*
 * Parse a text written by tp_sched_record_format (and the older form
 * without held= and note) into @rec (tp_sched_record_clear it).  The note
 * is ignored.  TP_ERR_PARSE naming the text for anything else: NULL,
 * another component's comment, an unknown policy or class, a bad held
 * list; TP_ERR_NOMEM.
 */
tp_status tp_sched_record_parse(const char *text, tp_sched_record *rec,
                                tp_error *err);

/*
 * Copy @text into @out (@size bytes) whole if it fits; else cut after
 * the last complete clause (before "; ", ": " or ", ") that leaves room
 * for " (cut; the rest is in the log)", falling back to the last word
 * (with no room for that mark, @size up to 31: whole words, unmarked).
 * Never ends mid-word.  Returns @out.
 */
char *tp_sched_reason_fit(const char *text, char *out, size_t size);

typedef struct tp_sched_state tp_sched_state;

/* A new, empty state (no nodes, no fabric); free with tp_sched_state_free. */
tp_status tp_sched_state_new(tp_sched_state **state, tp_error *err);

/* Free @state and everything it holds (NULL-safe). */
void tp_sched_state_free(tp_sched_state *state);

/*
 * The scheduler's node table: @names[i] is node index i (copied; NULL:
 * no node at that index).  Every job's nodes and holds are resolved
 * again (errors as tp_sched_set_topo).  TP_ERR_INVALID on a duplicate
 * name, TP_ERR_NOMEM: the previous table is kept.
 */
tp_status tp_sched_set_nodes(tp_sched_state *state, const char *const *names,
                             uint32_t count, tp_error *err);

/*
 * The fabric occupancy is computed on (borrowed: it must outlive its use
 * here; NULL: none).  Every job is resolved again; a whole-leaf job with
 * no recorded hold gets the hosts of its leaves (those that are nodes of
 * the table) as its hold.  The fabric is set whatever the status; on
 * TP_ERR_NOMEM or a bad hostlist (naming the first job that failed) the
 * jobs that could not be resolved hold nothing until the next change,
 * the others are right.
 */
tp_status tp_sched_set_topo(tp_sched_state *state, const tp_topo *topo,
                            tp_error *err);

/*
 * Job @job_id started (or is recovered) on the nodes of hostlist @nodes,
 * placed as @rec (copied; a job already known is replaced).  A `leaf`
 * record without held nodes gets its hold from the fabric if one is set
 * (see tp_sched_job_record for the result), else stays unresolved until
 * one is.  A hold derived for a record with a shared_leaf leaves that
 * leaf out, and is "" (nothing held) when nothing else is left.  Names not in the node table or fabric are skipped.
 * TP_ERR_PARSE on a bad hostlist, TP_ERR_NOMEM.
 */
tp_status tp_sched_job_add(tp_sched_state *state, uint32_t job_id,
                           const tp_sched_record *rec, const char *nodes,
                           tp_error *err);

/*
 * Recover job @job_id running on @nodes from its recorded decision @text.
 * TP_ERR_PARSE (naming the text) when it is not one (the caller decides
 * the record then, and calls tp_sched_job_add); otherwise as
 * tp_sched_job_add.
 */
tp_status tp_sched_job_recover(tp_sched_state *state, uint32_t job_id,
                               const char *text, const char *nodes,
                               tp_error *err);

/* Forget job @job_id (ended); its hold is released.  Unknown: nothing. */
void tp_sched_job_drop(tp_sched_state *state, uint32_t job_id);

/* The record of running job @job_id (owned by @state), NULL if unknown. */
const tp_sched_record *tp_sched_job_record(const tp_sched_state *state,
                                           uint32_t job_id);

/* Running jobs known. */
size_t tp_sched_job_count(const tp_sched_state *state);

/*
 * Whole-leaf jobs whose hold is not known yet (no recorded held nodes and
 * no fabric so far).
 */
size_t tp_sched_unresolved_count(const tp_sched_state *state);

/*
 * Call @fn for every node index held by a running job other than
 * @except_job (a node held by several jobs may come more than once).
 * O(held nodes).
 */
void tp_sched_for_each_held(const tp_sched_state *state, uint32_t except_job,
                            void (*fn)(void *ctx, uint32_t node), void *ctx);

/*
 * The occupancy of the fabric's hosts from the running jobs: their hosts
 * TP_HOST_BUSY, other held hosts TP_HOST_RESERVED for the holding job,
 * the rest TP_HOST_FREE; one entry per host of the fabric, owned by
 * @state, valid until the next change.  Rebuilt only after a change (job
 * begin or end, new nodes or fabric), never per read.  NULL without a
 * fabric (or out of memory: then also TP_ERR_NOMEM in @err).
 */
const tp_host_use *tp_sched_occupancy(tp_sched_state *state, tp_error *err);

#endif /* TP_SCHED_STATE_H */
