/*
 * tp_slurm_core.h: what the select and task plugins both need from the core
 * library, with no Slurm dependency (unit-testable alone).
 *
 *   - topoplace.conf beside slurm.conf, and the fabric model it names
 *     (topology.conf or an ibnetdiscover cache; never a live sweep);
 *   - a job's profile from the store, munge-verified;
 *   - the classifier's summary of a profile;
 *   - the select plugin's decision as recorded in a job's SystemComment;
 *   - the rank remapping of a job's nodes and its three files.
 */
#ifndef TP_SLURM_CORE_H
#define TP_SLURM_CORE_H

#include <stddef.h>

#include "jobclass.h"
#include "policy.h"
#include "profile.h"
#include "remap.h"
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

/* The prefix of every SystemComment topoplace writes. */
#define TP_SC_DECISION_PREFIX "topoplace: "

/*
 * The select plugin's decision for a started job, as written into its
 * SystemComment: "topoplace: placement=P class=C", plus " (profile)" when
 * the class came from a profile.  Slurm saves SystemComment with the job
 * state, so the decision survives a slurmctld restart.
 */
void tp_sc_decision_format(tp_placement placement, tp_jobclass job_class,
                           int has_profile, char *out, size_t size);

/*
 * Parse @text written by tp_sc_decision_format back.  TP_ERR_PARSE (naming
 * the text) for anything else: NULL, another component's comment, an
 * unknown policy or class.
 */
tp_status tp_sc_decision_parse(const char *text, tp_placement *placement,
                               tp_jobclass *job_class, int *has_profile,
                               tp_error *err);

/*
 * Map the ranks of @profile onto the hosts of the Slurm hostlist @nodes
 * ("n[0001-0004]") of the fabric @topo: as many slots per host as the
 * ranks need, laid out by tp_remap_compute with @seed.  Fills @map (free
 * with tp_remap_mapping_free) and @stats.  Errors: a host not in the
 * fabric, a profile without traffic, the remapper's errors.
 */
tp_status tp_sc_remap(const tp_topo *topo, const tp_profile *profile,
                      const char *nodes, uint64_t seed, tp_remap_mapping *map,
                      tp_remap_stats *stats, tp_error *err);

/*
 * A job's private directory for its rank files, on the host that writes
 * them: <@tmp_fs>/topoplace.<@job_id> (@tmp_fs NULL or "": /tmp), Slurm's
 * TmpFS being the node-local scratch every daemon and client agrees on.
 */
void tp_sc_job_dir(const char *tmp_fs, unsigned long job_id, char *out,
                   size_t size);

/* The three files tp_sc_remap_write writes into a job's directory. */
#define TP_SC_RANKFILE    "rankfile"    /* Open MPI rankfile */
#define TP_SC_MACHINEFILE "machinefile" /* MPICH/Hydra machinefile */
#define TP_SC_HOSTFILE    "hostfile"    /* SLURM_HOSTFILE, one line a rank */

/*
 * Write the rankfile, machinefile and hostfile of @map into @dir, made
 * mode 0700 if missing.  Run as the job's user: an existing @dir must be a
 * directory (not a link) owned by the caller's uid with no group or other
 * access, so nothing is ever written into a directory someone else
 * controls.  Errors name the directory or file.
 */
tp_status tp_sc_remap_write(const char *dir, const tp_topo *topo,
                            const tp_remap_mapping *map, tp_error *err);

/*
 * Remove what tp_sc_remap_write wrote into @dir, then @dir if empty; only
 * those names, through a descriptor of @dir opened without following
 * links.  Returns 0, or -1 when @dir is left (errno set).
 */
int tp_sc_remap_remove(const char *dir);

#endif /* TP_SLURM_CORE_H */
