/*
 * tp_slurm_acct.h: a job's topoplace decision into the accounting database,
 * so that `sacct -o SystemComment` shows it after slurmctld has forgotten
 * the job.
 *
 * Why this exists: slurmctld keeps SystemComment in its own state only.
 * Neither the job-start nor the job-completion message of
 * accounting_storage/slurmdbd carries it (22.05 and later: the completion
 * message has the field, the plugin never fills it), so the database
 * column stays empty.  The one way in is the request `sacctmgr modify job
 * ... set SystemComment=` sends (DBD_MODIFY_JOB), which only an
 * administrator (SlurmUser) may send.
 *
 * That request is a blocking round trip to slurmdbd, and the job's own
 * record may not be in the database yet when the job ends (slurmctld's
 * agent queues it).  So select_p_job_fini only queues the job id and its
 * comment; one worker thread sends them off every lock, waits for the
 * job's record and retries a bounded number of times.
 *
 * Bounds: at most TP_ACCT_QUEUE_MAX jobs queued (beyond: dropped, one log
 * line per TP_ACCT_QUEUE_MAX drops); each job tried TP_ACCT_TRIES times
 * over about a minute; comments cut at TP_ACCT_COMMENT_MAX bytes.
 * Only with AccountingStorageType=accounting_storage/slurmdbd; otherwise
 * every call is a no-op.
 */
#ifndef TP_SLURM_ACCT_H
#define TP_SLURM_ACCT_H

#include <stdint.h>

#define TP_ACCT_QUEUE_MAX   4096
#define TP_ACCT_TRIES       6
#define TP_ACCT_COMMENT_MAX 1024

/* Start the worker (slurmctld only; idempotent).  Logs on failure. */
void tp_acct_start(void);

/*
 * Queue @job_id's @comment (NULL or empty: nothing) to be written to its
 * accounting record.  Never blocks on slurmdbd; safe under slurmctld's
 * locks.
 */
void tp_acct_record(uint32_t job_id, const char *comment);

/*
 * Stop the worker: what is still queued is dropped with one log line
 * (slurmctld is shutting down or reconfiguring the plugin away).
 */
void tp_acct_stop(void);

#endif /* TP_SLURM_ACCT_H */
