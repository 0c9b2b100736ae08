/*
 * tp_quiet.h: a library's prints kept off stdout around one call.
 *
 * METIS 5.1 prints "***Cannot bisect a graph with 0 vertices! ***You are
 * trying to partition a graph into too many parts!" to stdout from inside
 * METIS_PartGraphRecursive when one half of a bisection comes out empty,
 * and carries on (the result is usable: the remapper repairs part sizes).
 * It happens on the allocations a busy cluster hands out: a job's 40 hosts
 * on one pod as 14, 13 and 9 on three leaves and 1 on each of four more,
 * at one rank per host (20 of bench/peer_bench's 900 family inputs of
 * 16-4,096 ranks, at 1 rank per host on scattered hosts; none of its 570
 * matrix inputs).  The remapper's stdout
 * is the JSON of `topoplace remap --json` and, under srun, the job's
 * output file, so the remapper points stdout at /dev/null while it runs.
 *
 * It is file descriptor 1, the whole process's: only for callers where no
 * other thread writes stdout meanwhile (the topoplace tool; srun before it
 * launches the tasks; slurmd's forked remap child).  Nothing is lost of
 * the caller's own stdout: it is flushed before.
 */
#ifndef TP_QUIET_H
#define TP_QUIET_H

typedef struct tp_quiet {
	int saved_fd; /* stdout's descriptor while quiet, -1 otherwise */
} tp_quiet;

/*
 * Flush stdout and point descriptor 1 at /dev/null.  If that cannot be
 * done (no /dev/null, no descriptor left, stdout closed), stdout stays as
 * it was; tp_quiet_stdout_end is then a no-op.
 */
void tp_quiet_stdout_begin(tp_quiet *q);

/* Flush what was printed meanwhile into /dev/null; stdout back. */
void tp_quiet_stdout_end(tp_quiet *q);

#endif
