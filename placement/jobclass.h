/*
 * jobclass.h: which kind of neighbour a job is on the fabric.
 *
 * Leaf sharing (policy `shared`) and pod separation need to know who hurts
 * whom.  BACKGROUND.md section 1: MPI messages slow down up to 7.6x under I/O
 * interference while I/O slows down at most 1.9x under MPI interference, so
 * MPI is the sensitive side and I/O the interfering one.  A job is:
 *
 *   io_heavy        its I/O, at its request sizes and rates, can back up the
 *                   links toward the servers (it interferes)
 *   comm_sensitive  its MPI traffic is intense enough that queueing behind
 *                   I/O slows it down (it suffers)
 *   quiet           neither: it may sit next to anyone
 *
 * A job that is both is classed io_heavy: its I/O is what must be kept away
 * from comm_sensitive neighbours (the reason text says it also communicates).
 *
 * The classifier reads a plain summary of a profile, never the profile file.
 */
#ifndef TP_JOBCLASS_H
#define TP_JOBCLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "tp_error.h"

typedef enum tp_jobclass {
	TP_JOBCLASS_QUIET = 0,
	TP_JOBCLASS_IO_HEAVY,
	TP_JOBCLASS_COMM_SENSITIVE,
} tp_jobclass;

/* The accepted spellings, for help texts. */
#define TP_JOBCLASS_CHOICES "quiet|io_heavy|comm_sensitive"

/*
 * What the classifier needs from a profile.  Zero means "none measured".
 * Rates are means over the job's run time.
 */
typedef struct tp_job_summary {
	uint64_t io_bytes;           /* read + written by the whole job */
	double io_requests_per_s;    /* per I/O client */
	uint64_t io_request_bytes;   /* typical (median) request size */
	uint32_t io_clients;         /* 0: every rank is a client */
	double net_bytes_per_s;      /* whole job, leaving the nodes */
	uint64_t mean_message_bytes; /* point-to-point, leaving the nodes */
	uint32_t ranks;
} tp_job_summary;

/*
 * The thresholds (topoplace.conf fills them; tp_jobclass_defaults gives the
 * documented defaults, see jobclass.c for where each figure comes from).
 */
typedef struct tp_jobclass_thresholds {
	/* io_heavy: at least this much I/O in total ... */
	uint64_t io_bytes_min;
	/*
	 * ... and a per-client I/O rate (requests/s x request size) at or
	 * above the congestion rate.  The rate is for a job of
	 * io_reference_clients clients; bigger jobs congest at a
	 * proportionally lower per-client rate (the threshold "grows with job
	 * size"), smaller ones never need more than this.
	 */
	double io_client_bytes_per_s_min;
	uint32_t io_reference_clients;
	/* comm_sensitive: latency-bound traffic (small messages, often) ... */
	uint64_t comm_small_message_bytes_max;
	double comm_messages_per_s_per_rank_min;
	/* ... or bandwidth-bound traffic, per rank. */
	double comm_bytes_per_s_per_rank_min;
} tp_jobclass_thresholds;

/* The result: the class and one line saying why. */
#define TP_JOBCLASS_REASON_MAX 256
typedef struct tp_jobclass_result {
	tp_jobclass job_class;
	char reason[TP_JOBCLASS_REASON_MAX];
} tp_jobclass_result;

/* Fill @thresholds with the documented defaults. */
void tp_jobclass_defaults(tp_jobclass_thresholds *thresholds);

/*
 * Classify @summary under @thresholds (NULL: the defaults).  Fails with
 * TP_ERR_INVALID, naming the field, on a negative or non-finite rate, zero
 * ranks, or thresholds that are zero where a divisor is needed.
 */
tp_status tp_jobclass_classify(const tp_job_summary *summary,
                               const tp_jobclass_thresholds *thresholds,
                               tp_jobclass_result *result, tp_error *err);

/*
 * Parse a class name (exact, lower case: TP_JOBCLASS_CHOICES).  On failure
 * returns TP_ERR_INVALID naming the refused text and the accepted ones.
 */
tp_status tp_jobclass_parse(const char *text, tp_jobclass *job_class,
                            tp_error *err);

/* The canonical name of @job_class ("io_heavy", ...). */
const char *tp_jobclass_name(tp_jobclass job_class);

/*
 * Whether jobs of classes @a and @b may share a leaf: everything but an
 * io_heavy job with a comm_sensitive one.
 */
bool tp_jobclass_compatible(tp_jobclass a, tp_jobclass b);

/*
 * The class a job of @hosts hosts has for leaf sharing: a comm_sensitive
 * job on one host sends its messages within that host, never over the
 * fabric, so nothing on its leaf can slow them and it shares a leaf as a
 * quiet job does (else io_heavy jobs would be kept off its leaf, and it
 * off theirs, for nothing).  Every other class is its own.
 */
tp_jobclass tp_jobclass_on_fabric(tp_jobclass job_class, uint32_t hosts);

#endif /* TP_JOBCLASS_H */
