/*
 * scale_rule.h: whether an application's profile is scaled to a job of
 * another rank count, and from which run (topoplace-profile(5), SCALING).
 *
 * One run that is a stencil at its size says nothing of the layout the
 * application picks at another: CoMD and miniGhost are MPI_Dims_create
 * stencils at 64 ranks but not at 16 or 128, and their 64-rank profile
 * scaled to 128 ranks maps worse than the real one (or than block order).
 * So a profile is scaled only when the application's store shows the
 * layout at several sizes:
 *   - the job gave a task count, 2 .. TP_STENCIL_RANKS_MAX;
 *   - every run weighed (the newest TP_IDENTITY_RUN_CANDIDATES_MAX, as
 *     for choosing a run) is a stencil in MPI_Dims_create's layout
 *     (scale.h), all with the same dimension count and periodicity;
 *   - those runs have at least two distinct rank counts;
 * and then the run nearest the job's task count is scaled (of two as
 * near, the larger; of one count, the newest).  Otherwise the job gets the
 * profile's class only and Slurm's layout, and is told why.
 *
 * The facts come from the runs' summaries (summary.h: the stencil line,
 * found when a run is stored), so deciding reads no matrix: at most
 * TP_IDENTITY_RUN_CANDIDATES_MAX summaries of under TP_SUMMARY_MAX_BYTES
 * each.  No I/O here; no Slurm.
 */
#ifndef TP_SCALE_RULE_H
#define TP_SCALE_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scale.h"
#include "summary.h"
#include "tp_error.h"

/* One stored run as the rule sees it (from its summary). */
typedef struct tp_scale_run {
	uint32_t ranks;         /* 0: its summary could not be read */
	tp_stencil_state state; /* UNKNOWN: a version 1 summary */
	tp_stencil stencil;     /* when FOUND */
	uint64_t duration_us;
	char app[TP_PROFILE_APP_MAX + 1];
} tp_scale_run;

#define TP_SCALE_TEXT_MAX 256

typedef struct tp_scale_verdict {
	bool scaled;
	size_t source; /* scaled: the index of the run scaled from */
	/* scaled: "3-D stencil seen at 16, 64 ranks"; refused: why */
	char text[TP_SCALE_TEXT_MAX];
} tp_scale_verdict;

/* The run of @summary (read and verified by the caller) for the rule. */
void tp_scale_run_of_summary(const tp_profile_summary *summary,
                             tp_scale_run *run);

/*
 * The rule above for a job of @job_tasks tasks (0: none given) over
 * @count runs (oldest first, at most TP_IDENTITY_RUN_CANDIDATES_MAX are
 * weighed: the newest).  A run's stencil is checked again against its
 * ranks (dimension count, extents), so a hostile summary is refused,
 * never scaled from.
 */
tp_scale_verdict tp_scale_decide(const tp_scale_run *runs, size_t count,
                                 uint32_t job_tasks);

/*
 * The profile @verdict scales to: @runs[@verdict->source]'s stencil at
 * @job_tasks ranks (tp_stencil_build; free with tp_profile_free), and its
 * new shape into *@shape (may be NULL).  TP_ERR_INVALID for a verdict that
 * did not scale; as tp_stencil_build otherwise.
 */
tp_status tp_scale_build(const tp_scale_run *runs, size_t count,
                         const tp_scale_verdict *verdict, uint32_t job_tasks,
                         tp_profile **scaled, tp_stencil *shape,
                         tp_error *err);

#endif /* TP_SCALE_RULE_H */
