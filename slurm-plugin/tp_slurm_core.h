/*
 * tp_slurm_core.h: what the select and task plugins both need from the core
 * library, with no Slurm dependency (unit-testable alone).
 *
 *   - topoplace.conf beside slurm.conf, and the fabric model it names
 *     (topology.conf or an ibnetdiscover cache; never a live sweep);
 *   - a job's profile from the store, munge-verified;
 *   - the classifier's summary of a profile.
 */
#ifndef TP_SLURM_CORE_H
#define TP_SLURM_CORE_H

#include <stddef.h>

#include "jobclass.h"
#include "profile.h"
#include "store.h"
#include "topo.h"
#include "topoplace_conf.h"
#include "tp_error.h"

/*
 * The path of topoplace.conf for slurm.conf at @slurm_conf (NULL: the
 * default /etc/slurm/slurm.conf) into @out of @size bytes.
 */
void tp_sc_conf_path(const char *slurm_conf, char *out, size_t size);

/*
 * Load topoplace.conf from @path.  A missing file is not an error: the
 * defaults (*@missing set to 1).  Anything else wrong: the parser's error
 * (file, line, key).
 */
tp_status tp_sc_load_config(const char *path, tp_config **config, int *missing,
                            tp_error *err);

/*
 * The fabric as a tp_topo, from the source @config names: topology.conf or
 * the cache (also for FabricSource=live: slurmctld and slurmstepd never
 * sweep; `topoplace fabric cache` refreshes the cache outside them).
 */
tp_status tp_sc_load_topo(const tp_config *config, tp_topo **topo,
                          tp_error *err);

/*
 * The munge socket named in Slurm's AuthInfo (`socket=PATH`), copied into
 * @out; "" when AuthInfo names none (munge's default).
 */
void tp_sc_munge_socket(const char *authinfo, char *out, size_t size);

/*
 * Read the newest run of profile @name of user @user from @config's store,
 * verified with munge at @munge_socket ("" or NULL: the default).
 * TP_ERR_NOTFOUND when the user has no such profile; other errors name the
 * file and the reason (store.h).
 */
tp_status tp_sc_read_profile(const tp_config *config, const char *munge_socket,
                             const char *user, const char *name,
                             tp_profile **profile, tp_error *err);

/* The classifier's view of @profile (jobclass.h). */
void tp_sc_profile_summary(const tp_profile *profile, tp_job_summary *summary);

#endif /* TP_SLURM_CORE_H */
