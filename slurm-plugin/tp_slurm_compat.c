/*
 * tp_slurm_compat.c: the version-dependent accessors of tp_slurm_compat.h.
 * Runs in slurmd and slurmstepd (task/topoplace).
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_protocol_defs.h"

#include "tp_slurm_compat.h"

#if TP_SLURM_24_11
#include "src/interfaces/cred.h"
#endif

/* Copy @src into @dst (@size bytes); false when it does not fit. */
static bool copy_name(char *dst, size_t size, const char *src)
{
	int n = snprintf(dst, size, "%s", src ? src : "");

	return n >= 0 && (size_t)n < size;
}

/* The user name of @uid from the password database ("" when none). */
static void name_of_uid(uid_t uid, char *dst, size_t size)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	dst[0] = '\0';
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found &&
	    !copy_name(dst, size, found->pw_name))
		dst[0] = '\0';
}

#if TP_SLURM_22_05

int tp_batch_identity_get(const struct batch_job_launch_msg *req,
                          tp_batch_identity *id)
{
	memset(id, 0, sizeof(*id));
	if (!req)
		return -1;
	id->uid = req->uid;
	id->gid = req->gid;
	if (!copy_name(id->user_name, sizeof(id->user_name), req->user_name))
		id->user_name[0] = '\0';
	if (!id->user_name[0])
		name_of_uid(id->uid, id->user_name, sizeof(id->user_name));
	return 0;
}

const char *tp_launch_partition(const struct launch_tasks_request_msg *msg,
                                char *buf, size_t size)
{
	if (!msg || !msg->partition || !copy_name(buf, size, msg->partition))
		return NULL;
	return buf;
}

#else /* TP_SLURM_24_11 */

/*
 * slurm_cred_get_args() takes the credential's lock and returns its
 * arguments; every path below gives the lock back before returning.
 */
int tp_batch_identity_get(const struct batch_job_launch_msg *req,
                          tp_batch_identity *id)
{
	slurm_cred_arg_t *arg;

	memset(id, 0, sizeof(*id));
	if (!req || !req->cred)
		return -1;
	arg = slurm_cred_get_args(req->cred);
	if (!arg) {
		slurm_cred_unlock_args(req->cred);
		return -1;
	}
	id->uid = arg->uid;
	id->gid = arg->gid;
	if (!arg->id || !arg->id->pw_name ||
	    !copy_name(id->user_name, sizeof(id->user_name), arg->id->pw_name))
		id->user_name[0] = '\0';
	slurm_cred_unlock_args(req->cred);
	/* As slurmd does when the credential carries no name. */
	if (!id->user_name[0])
		name_of_uid(id->uid, id->user_name, sizeof(id->user_name));
	return 0;
}

const char *tp_launch_partition(const struct launch_tasks_request_msg *msg,
                                char *buf, size_t size)
{
	slurm_cred_arg_t *arg;
	bool ok;

	if (!msg || !msg->cred)
		return NULL;
	arg = slurm_cred_get_args(msg->cred);
	ok = arg && arg->job_partition &&
	     copy_name(buf, size, arg->job_partition);
	slurm_cred_unlock_args(msg->cred);
	return ok ? buf : NULL;
}

#endif
