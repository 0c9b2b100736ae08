/*
 * tp_slurm_acct.c: the worker that writes jobs' SystemComment into the
 * accounting database (see tp_slurm_acct.h for why).
 *
 * Symbols of slurmctld (acct_db_conn) and of its accounting layer are
 * looked up at run time: Slurm's clients (squeue, sinfo) load the select
 * plugin too, and an unresolved data symbol would make them refuse it.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "tp_slurm_acct.h"
#include "tp_slurm_compat.h"

typedef list_t *(*modify_job_fn)(void *db_conn, uint32_t uid,
                              slurmdb_job_cond_t *job_cond,
                              slurmdb_job_rec_t *job);

struct acct_item {
	uint32_t job_id;
	unsigned tries;
	time_t due;
	char comment[TP_ACCT_COMMENT_MAX];
};

/* One queue per slurmctld: the plugin's own state, not the core's. */
static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acct_cond = PTHREAD_COND_INITIALIZER;
static struct acct_item *acct_queue; /* ring of TP_ACCT_QUEUE_MAX */
static uint32_t acct_head, acct_count, acct_dropped;
static bool acct_running, acct_stopping;
static pthread_t acct_thread;
static void **acct_db_conn_ptr;
static modify_job_fn acct_modify_job;

/* Seconds before try @n (1-based): the job's record usually lands within
 * a second; the last try is about a minute after the job ended. */
static time_t retry_delay(unsigned n)
{
	static const time_t delays[TP_ACCT_TRIES] = {1, 2, 4, 8, 15, 30};

	return delays[n < TP_ACCT_TRIES ? n : TP_ACCT_TRIES - 1];
}

/* One DBD_MODIFY_JOB round trip; true when the job's record was changed. */
static bool modify_once(const struct acct_item *item, int *err_no)
{
	slurmdb_job_cond_t cond;
	slurmdb_job_rec_t *rec;
	char id[16];
	list_t *changed;
	bool ok;

	/* What `sacctmgr modify job where cluster=C jobid=N` sends. */
	memset(&cond, 0, sizeof(cond));
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
	cond.cluster_list = list_create(xfree_ptr);
	list_append(cond.cluster_list, xstrdup(slurm_conf.cluster_name));
	cond.step_list = list_create(slurm_destroy_selected_step);
	snprintf(id, sizeof(id), "%u", item->job_id);
	slurm_addto_step_list(cond.step_list, id);
	rec = slurmdb_create_job_rec();
	rec->system_comment = xstrdup(item->comment);

	errno = 0;
	changed = acct_modify_job(*acct_db_conn_ptr, slurm_conf.slurm_user_id,
	                          &cond, rec);
	*err_no = errno;
	ok = changed && list_count(changed) > 0;
	FREE_NULL_LIST(changed);
	slurmdb_destroy_job_rec(rec);
	FREE_NULL_LIST(cond.cluster_list);
	FREE_NULL_LIST(cond.step_list);
	return ok;
}

static void *acct_main(void *arg)
{
	(void)arg;
	slurm_mutex_lock(&acct_lock);
	while (!acct_stopping) {
		struct acct_item item;
		struct timespec until = {0};
		time_t now = time(NULL);
		int err_no = 0;
		bool ok;

		if (!acct_count) {
			slurm_cond_wait(&acct_cond, &acct_lock);
			continue;
		}
		if (acct_queue[acct_head].due > now) {
			until.tv_sec = acct_queue[acct_head].due;
			slurm_cond_timedwait(&acct_cond, &acct_lock, &until);
			continue;
		}
		item = acct_queue[acct_head];
		acct_head = (acct_head + 1) % TP_ACCT_QUEUE_MAX;
		acct_count--;
		slurm_mutex_unlock(&acct_lock);

		ok = modify_once(&item, &err_no);

		slurm_mutex_lock(&acct_lock);
		if (ok) {
			debug("topoplace: JobId=%u: decision recorded in the "
			      "accounting database",
			      item.job_id);
			continue;
		}
		if (++item.tries >= TP_ACCT_TRIES || acct_stopping) {
			error("topoplace: JobId=%u: decision not recorded in "
			      "the accounting database after %u tries (%s): "
			      "sacct will not show its SystemComment",
			      item.job_id, item.tries,
			      err_no ? slurm_strerror(err_no)
			             : "no such job record");
			continue;
		}
		/* Not there yet: back to the end of the queue, later. */
		item.due = time(NULL) + retry_delay(item.tries);
		if (acct_count < TP_ACCT_QUEUE_MAX) {
			acct_queue[(acct_head + acct_count) %
			           TP_ACCT_QUEUE_MAX] = item;
			acct_count++;
		}
	}
	slurm_mutex_unlock(&acct_lock);
	return NULL;
}

void tp_acct_start(void)
{
	slurm_mutex_lock(&acct_lock);
	if (acct_running ||
	    !xstrstr(slurm_conf.accounting_storage_type, "slurmdbd")) {
		slurm_mutex_unlock(&acct_lock);
		return;
	}
	acct_db_conn_ptr = (void **)dlsym(RTLD_DEFAULT, "acct_db_conn");
	acct_modify_job =
	    (modify_job_fn)dlsym(RTLD_DEFAULT, "acct_storage_g_modify_job");
	if (!acct_db_conn_ptr || !acct_modify_job) {
		error("topoplace: cannot find slurmctld's accounting "
		      "connection: decisions are not recorded for sacct");
		slurm_mutex_unlock(&acct_lock);
		return;
	}
	acct_queue = xcalloc(TP_ACCT_QUEUE_MAX, sizeof(*acct_queue));
	acct_head = acct_count = acct_dropped = 0;
	acct_stopping = false;
	if (pthread_create(&acct_thread, NULL, acct_main, NULL)) {
		error("topoplace: cannot start the accounting thread: %m: "
		      "decisions are not recorded for sacct");
		xfree(acct_queue);
		slurm_mutex_unlock(&acct_lock);
		return;
	}
	acct_running = true;
	slurm_mutex_unlock(&acct_lock);
}

void tp_acct_record(uint32_t job_id, const char *comment)
{
	struct acct_item *item;

	if (!comment || !comment[0])
		return;
	slurm_mutex_lock(&acct_lock);
	if (!acct_running || acct_stopping) {
		slurm_mutex_unlock(&acct_lock);
		return;
	}
	if (acct_count == TP_ACCT_QUEUE_MAX) {
		if (acct_dropped++ % TP_ACCT_QUEUE_MAX == 0)
			error("topoplace: JobId=%u: accounting queue full "
			      "(%d jobs; slurmdbd down or slow?): decision "
			      "not recorded for sacct",
			      job_id, TP_ACCT_QUEUE_MAX);
		slurm_mutex_unlock(&acct_lock);
		return;
	}
	item = &acct_queue[(acct_head + acct_count) % TP_ACCT_QUEUE_MAX];
	item->job_id = job_id;
	item->tries = 0;
	/* A short wait: the job's record is queued by slurmctld's agent. */
	item->due = time(NULL) + retry_delay(0);
	snprintf(item->comment, sizeof(item->comment), "%s", comment);
	acct_count++;
	slurm_cond_signal(&acct_cond);
	slurm_mutex_unlock(&acct_lock);
}

void tp_acct_stop(void)
{
	uint32_t left;

	slurm_mutex_lock(&acct_lock);
	if (!acct_running) {
		slurm_mutex_unlock(&acct_lock);
		return;
	}
	acct_stopping = true;
	left = acct_count;
	slurm_cond_broadcast(&acct_cond);
	slurm_mutex_unlock(&acct_lock);
	/* At most one round trip in flight; slurmdbd's own timeouts bound it.
	 */
	pthread_join(acct_thread, NULL);
	slurm_mutex_lock(&acct_lock);
	if (left)
		info("topoplace: %u decision(s) not yet recorded for sacct "
		     "dropped at shutdown",
		     left);
	xfree(acct_queue);
	acct_count = acct_head = 0;
	acct_running = false;
	slurm_mutex_unlock(&acct_lock);
}
