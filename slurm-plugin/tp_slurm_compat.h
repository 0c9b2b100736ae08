/*
 * tp_slurm_compat.h: what differs between the Slurm versions the plugins
 * build against (22.05 and 24.11), in one place, so the adapters are
 * written once.  doc/slurm-versions.md lists each difference and where it
 * is handled; adding a version means adding it here, in tp_select_ops.h
 * (the select interface) and in configure's version check.
 *
 * Include after config.h and Slurm's slurm_xlator.h.  Not for the SPANK plugin (public headers only, which
 * did not change in a way it uses).
 */
#ifndef TP_SLURM_COMPAT_H
#define TP_SLURM_COMPAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "slurm/slurm_version.h"

#include "store.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) && \
    SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)
#define TP_SLURM_22_05 1
#define TP_SLURM_24_11 0
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) && \
    SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0)
#define TP_SLURM_22_05 0
#define TP_SLURM_24_11 1
#else
#error "topoplace's plugins build against Slurm 22.05 or 24.11 only (doc/slurm-versions.md)"
#endif

/*
 * Lists: 22.05 has the pointer typedefs List and ListIterator, 24.11 the
 * struct typedefs list_t and list_itr_t (and no List).  The adapters use
 * 24.11's spelling; for 22.05 the same names are given here.
 */
#if TP_SLURM_22_05
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/*
 * Host lists: hostlist_t is a pointer in 22.05 and the struct in 24.11.
 * The adapters write `struct hostlist *`, which is the same type in both.
 */

/*
 * select_p_job_test's last parameters: 22.05 passes the cores a
 * reservation keeps from the job as a bitmap; 24.11 passes them as a
 * resv_exc_t, plus what backfill's WILL_RUN mode fills in.  The wrapper
 * forwards them untouched.
 */
#if TP_SLURM_22_05
#define TP_JOB_TEST_EXCLUSION_PARAMS bitstr_t *exc_core_bitmap
#define TP_JOB_TEST_EXCLUSION_ARGS exc_core_bitmap
#else
#define TP_JOB_TEST_EXCLUSION_PARAMS \
	resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define TP_JOB_TEST_EXCLUSION_ARGS resv_exc_ptr, will_run_ptr
#endif

/*
 * Who a batch job runs as, as slurmd knows it when it calls
 * task_p_slurmd_batch_request: 22.05 has it in the launch request, 24.11
 * only in the job credential (slurmd reads it from there too).  user_name
 * is empty when no name is known, or when the name is longer than a
 * profile store's namespace may be (TP_STORE_NAME_MAX): such a user has no
 * profiles, and a name cut short could be someone else's.
 */
typedef struct tp_batch_identity {
	uid_t uid;
	gid_t gid;
	char user_name[TP_STORE_NAME_MAX + 1];
} tp_batch_identity;

struct batch_job_launch_msg;
struct launch_tasks_request_msg;

/*
 * Fill @id from @req; 0 on success, -1 (with @id zeroed) when the
 * request carries no identity (24.11: no credential), which callers treat
 * as "do nothing for this job".
 */
int tp_batch_identity_get(const struct batch_job_launch_msg *req,
                          tp_batch_identity *id);

/*
 * The partition a step's job runs in, as slurmctld sent it in the step's
 * launch request @msg (NULL: none): 22.05 has it in the request, 24.11 in
 * the job credential.  Copied into @buf (@size bytes); NULL when not known
 * (the caller then has only the job's environment, which the user
 * controls).
 */
const char *tp_launch_partition(const struct launch_tasks_request_msg *msg,
                                char *buf, size_t size);

/*
 * Whether this slurmctld is the new process image of `scontrol
 * reconfigure`: 24.11 re-executes itself (with SLURMCTLD_RECONF in its
 * environment) and its plugins' init() runs again, where 22.05 calls
 * select_p_reconfigure in the same process.  Always false on 22.05.
 */
#if TP_SLURM_24_11
#define tp_slurmctld_reconfigured() (getenv("SLURMCTLD_RECONF") != NULL)
#else
#define tp_slurmctld_reconfigured() 0
#endif

#endif
