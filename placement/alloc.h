/*
 * alloc.h: which hosts a job gets, by placement policy.
 *
 * Input is plain data: a finished tp_topo, what every host is doing now
 * (tp_host_use, one per host index), and the request.  Output is the chosen
 * hosts with the leaves and pods they span and one paragraph saying why, or
 * "cannot be met now: ..." when the occupancy does not allow it (the job
 * should wait, not fall back), or TP_ERR_BUDGET when the decision took longer
 * than its time budget (no opinion: the caller falls back to Slurm's choice).
 *
 * Policies (placement/policy.h):
 *   leaf    whole leaves: never a leaf with another job's (or another job's
 *           reserved) host or an I/O server on it.  The leaf set is the
 *           exact best fit, in this order: the fewest pods, then the fewest
 *           leaves, then the smallest total of usable hosts on them (the
 *           fewest left over), then the fewest wholly free leaves, then the
 *           fewest wholly free pods touched, then the pods with the least
 *           room: partly used leaves and pods go first, whole ones stay for
 *           big jobs.  Free hosts left on the chosen leaves are returned as
 *           `reserved` for this job only.  On 3-level trees, as under
 *           `shared`, pods of incompatible jobs (and, for a comm_sensitive
 *           job, pods holding I/O servers) are avoided first (said in the
 *           reason when not possible).
 *           Remainder (request->leaf_remainder, policy.h): under `whole`
 *           the job's leaves are all whole and held, as above.  Under
 *           `compatible`, a job of n hosts on leaves of L hosts (L: the
 *           most hosts on one leaf of the fabric) with r = n mod L > 0,
 *           whose whole-leaf fit would leave free hosts over (an exact
 *           fit such as 3 + 3 on leaves with hosts down is kept: it holds
 *           nothing), gets whole leaves for n - r hosts (the fit above,
 *           held)
 *           and puts its r remaining hosts on one leaf shared only with
 *           compatible jobs: no io_heavy job, no I/O server (site or job,
 *           whatever the routing), no host another job holds, no job of a
 *           class incompatible with it (jobclass.h).  The leaf is the
 *           tightest such leaf that other jobs already use (remainders
 *           packed together, so whole free leaves stay whole), else the
 *           tightest with no other job on it (not wholly free ones
 *           first); pods free of incompatible jobs first, then fewest
 *           free hosts, then the lower index.  That leaf is not held:
 *           later jobs may join it under their own policy's rules.  When
 *           no leaf can take the remainder beside whole leaves for the
 *           rest, the job is decided as under `whole`.  The reason says
 *           which, and under adaptive routing that the remainder shares
 *           every uplink of its leaf with the jobs there.
 *   shared  leaves shared only between compatible classes (jobclass.h: never
 *           io_heavy beside comm_sensitive; an I/O server counts as
 *           io_heavy); on 3-level trees also pods free of the incompatible
 *           class when there is room there, else the reason says which pods
 *           could not be kept apart.
 *   pack    fewest leaves (then fewest pods).
 *   spread  most leaves (round robin over pods, then leaves).
 *   off     no narrowing: all usable hosts, unchanged.
 *   auto    must be resolved by the caller (TP_ERR_INVALID).
 *
 * Decisions are deterministic: ties go to the lower pod, leaf, host index.
 *
 * Wait bound: a `leaf` job that has waited past its bound
 * (request->leaf_wait_max_us) and still finds no whole leaves accepts a
 * `shared` placement: leaves shared with compatible jobs only (a
 * comm_sensitive job never beside io_heavy jobs, nor, under adaptive
 * routing, beside I/O servers).  Leaves other `leaf` jobs hold stay theirs.
 *
 * Isolation bound: a `leaf` or `shared` job that has waited past
 * request->isolation_wait_max_us and that its policy (after the whole-leaf
 * bound's `shared`, which the isolation bound also caps) still holds back
 * is decided as `off`: every usable host, whatever classes run beside
 * them, as plain Slurm would place it; hosts other `leaf` jobs hold stay
 * theirs.  When even that cannot be met (too few hosts free at all) the job
 * waits, as under plain Slurm, with its policy's reason.
 *
 * Routing (policy.h, tp_routing): under adaptive routing (the default, and
 * the safe assumption) an I/O server's leaf carries io_heavy traffic on all
 * its uplinks, so `leaf` skips it and `shared` treats it as an io_heavy
 * neighbour.  Under static destination-based routing the links of the
 * server's port carry its traffic only: the rest of its leaf is usable by
 * `leaf` jobs and by comm_sensitive `shared` jobs (the reason says so);
 * pods holding servers are still avoided first by comm_sensitive jobs.
 *
 * Pods under adaptive routing (3-level trees): every aggregation link of
 * a pod with I/O traffic (io_heavy jobs, I/O servers) carries it, and a
 * job spanning pods meets other pods' traffic in the core.  So a
 * comm_sensitive `leaf` or `shared` job goes into one pod when one holds
 * it (a pod without I/O first, then the pod rules above inside it) and
 * spans pods only when none does.  Whatever still exposes a job (a
 * comm_sensitive job spanning pods or in a pod with I/O; an io_heavy job
 * in a pod of comm_sensitive jobs) is said last in the reason and in
 * result->pod_exposure, the short form for SystemComment.  Under static
 * routing pods are chosen as before and nothing of this is said.
 *
 * The occupancy a Slurm adapter passes should mark free hosts on the leaves
 * of a running `leaf` job as TP_HOST_RESERVED for that job, so that later
 * decisions keep those leaves whole, and hosts running I/O servers as
 * TP_HOST_IOSERVER: I/O traffic converges on them, so their leaf and pod
 * carry it (BACKGROUND.md section 1).
 */
#ifndef TP_ALLOC_H
#define TP_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobclass.h"
#include "policy.h"
#include "topo.h"
#include "tp_error.h"

typedef enum tp_host_state {
	TP_HOST_FREE = 0,
	TP_HOST_BUSY,     /* running job job_id of class job_class */
	TP_HOST_RESERVED, /* idle, held for job job_id (its leaf's leftover) */
	TP_HOST_DOWN,     /* unusable, carries no traffic */
	TP_HOST_IOSERVER, /* runs an I/O server: site-wide, or job job_id's */
	TP_HOST_NOT_READY, /* idle soon, unusable now (see below) */
} tp_host_state;

/*
 * TP_HOST_NOT_READY: a host that is back in a moment: its node daemon is
 * not answering but not yet declared down (a restart, Slurm 24.11's
 * reconfigure), or it is finishing a job, powering up or rebooting.  It
 * carries no traffic and no job may use it, like TP_HOST_DOWN, but its
 * leaf is not whole now: `leaf` waits for it rather than spreading over
 * more leaves (and holding them) than the job needs once it is back.
 */

/*
 * job_id of a site-wide I/O server (TP_HOST_IOSERVER): it belongs to no job,
 * so it is another job's host even for a request with job_id 0.
 */
#define TP_ALLOC_SITE_JOB 0u

/*
 * What one host is doing; job_id and job_class matter for BUSY/RESERVED,
 * job_id for IOSERVER (its job_class is ignored: another job's or a
 * site-wide I/O server is treated as io_heavy for leaf sharing and pod
 * separation; the requesting job's own server is not usable by it, and does
 * not keep it off that leaf or pod).
 */
typedef struct tp_host_use {
	tp_host_state state;
	uint32_t job_id;
	tp_jobclass job_class;
} tp_host_use;

/* Microseconds on a monotonic clock; tests inject a fake one. */
typedef uint64_t (*tp_alloc_clock)(void *clock_data);

typedef struct tp_alloc_request {
	uint32_t nodes;      /* hosts wanted, >= 1 */
	tp_placement policy; /* resolved: not TP_PLACEMENT_AUTO */
	tp_jobclass job_class;
	uint32_t job_id;      /* hosts RESERVED for this id are usable */
	uint64_t budget_us;   /* 0: no limit */
	tp_routing routing;   /* TP_ROUTING_ADAPTIVE unless known static */
	tp_alloc_clock clock; /* NULL: CLOCK_MONOTONIC */
	void *clock_data;
	/*
	 * The whole-leaf wait bound (tp_alloc_leaf_wait_bound): a `leaf`
	 * request that cannot be met now, from a job that has waited
	 * waited_us >= leaf_wait_max_us, is decided as `shared` instead
	 * (result->leaf_wait_passed).  leaf_wait_max_us 0: no bound, the job
	 * waits for whole leaves as long as it takes.
	 */
	uint64_t waited_us;
	uint64_t leaf_wait_max_us;
	/*
	 * The isolation wait bound (IsolationWaitMax): a `leaf` or `shared`
	 * request still not met, from a job that has waited waited_us >=
	 * isolation_wait_max_us, is decided as `off` (the scheduler's own
	 * choice, beside any class; result->isolation_wait_passed) when
	 * that can be met.  It also caps the whole-leaf bound: a `leaf` job
	 * tries `shared` no later.  0: no bound.
	 */
	uint64_t isolation_wait_max_us;
	/* `leaf` only: where the hosts that fill no whole leaf go (policy.h;
	 * 0, whole, when not set). */
	tp_leaf_remainder leaf_remainder;
} tp_alloc_request;

#define TP_ALLOC_REASON_MAX 1024
/* The short pod exposure text fits this (with its NUL). */
#define TP_ALLOC_EXPOSURE_MAX 192

/*
 * The decision.  Arrays are owned by the result: release them with
 * tp_alloc_result_free.  When met is false only reason is meaningful.
 */
typedef struct tp_alloc_result {
	bool met;
	uint32_t *hosts; /* chosen (or allowed) hosts, ascending */
	uint32_t host_count;
	uint32_t *reserved; /* leftover hosts held for this job */
	uint32_t reserved_count;
	uint32_t *leaves; /* leaves used, ascending */
	uint32_t leaf_count;
	uint32_t *pods; /* pods used, ascending */
	uint32_t pod_count;
	char reason[TP_ALLOC_REASON_MAX];
	/* A `leaf` request past its wait bound was met as `shared`: the
	 * hosts follow shared's rules (no leftover hosts held), and the
	 * reason says so first. */
	bool leaf_wait_passed;
	/* A `leaf` or `shared` request past its isolation bound was met as
	 * `off`: every usable host, no class kept apart; the reason says so
	 * first. */
	bool isolation_wait_passed;
	/* `leaf` under LeafRemainder=compatible: remainder_hosts (0: none)
	 * of the hosts are on leaf remainder_leaf, shared with compatible
	 * jobs and not held (no reserved host there).  The other leaves are
	 * the job's whole leaves.  For tp_alloc_allowed, only that many
	 * hosts of that leaf are in hosts. */
	uint32_t remainder_hosts;
	uint32_t remainder_leaf;
	/* Adaptive routing, 3-level tree, `leaf` or `shared`: why the job
	 * is not isolated at pod level, for where users look (SystemComment):
	 * "pod isolation given up (adaptive routing): spans pods pod01,pod02;
	 * pod pod02 carries I/O of job 9"; "" when it is (or under static
	 * routing).  The reason says the same, last. */
	char pod_exposure[TP_ALLOC_EXPOSURE_MAX];
} tp_alloc_result;

/*
 * Choose exactly request->nodes hosts (policy off: every usable host) for
 * the job.  @use has one entry per host of @topo.  @result is overwritten
 * (call tp_alloc_result_free on it afterwards, whatever the status).
 *
 * Returns TP_OK with result->met true and the hosts, or TP_OK with met false
 * and reason "cannot be met now: ..."; TP_ERR_BUDGET past the budget;
 * TP_ERR_INVALID on a bad request (no nodes, policy auto or unknown, an
 * unknown class or host state); TP_ERR_LIMIT when the fabric has fewer
 * hosts than requested (never satisfiable); TP_ERR_NOMEM.
 */
tp_status tp_alloc_choose(const tp_topo *topo, const tp_host_use *use,
                          const tp_alloc_request *request,
                          tp_alloc_result *result, tp_error *err);

/*
 * The candidate set for a scheduler that makes the final pick itself
 * (select/cons_tres): hosts such that ANY request->nodes of them still
 * satisfy the policy.  leaf and pack: every usable host of the chosen leaves;
 * shared: every usable host of the compatible leaves in the chosen pods;
 * spread: one host per leaf when the job fits one per leaf (else the exact
 * choice); off: every usable host.  Same statuses and ownership as
 * tp_alloc_choose; result->hosts holds the allowed set.
 */
tp_status tp_alloc_allowed(const tp_topo *topo, const tp_host_use *use,
                           const tp_alloc_request *request,
                           tp_alloc_result *result, tp_error *err);

/*
 * The whole-leaf wait bound of one job, in microseconds (0: none): the
 * site's bound for the job's partition (LeafWaitMax, 0: none) and the job's
 * own (Slurm's --switches=count@max-time, 0: not given).  The job may ask
 * for less than the site allows, never for more, as Slurm caps
 * --switches' time at max_switch_wait.
 */
uint64_t tp_alloc_leaf_wait_bound(uint64_t site_us, uint64_t job_us);

/*
 * The short form of a `leaf` decision with a remainder on a shared leaf,
 * for where users look (SystemComment): "leaf: 2 whole leaves + 3 hosts
 * on a shared compatible leaf (leaf004)"; "" when @result has no
 * remainder.  @topo is the fabric @result was decided on.
 */
void tp_alloc_remainder_summary(const tp_topo *topo,
                                const tp_alloc_result *result, char *buf,
                                size_t size);

/* Free the arrays of @result and reset it (NULL-safe). */
void tp_alloc_result_free(tp_alloc_result *result);

#endif /* TP_ALLOC_H */
