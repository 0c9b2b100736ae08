/*
 * tp_quiet.h: the remapper's caller kept clear of what METIS does to the
 * whole process while it runs: prints on stdout, and a trap on SIGTERM.
 *
 * Prints.  METIS 5.1 prints "***Cannot bisect a graph with 0 vertices!
 * ***You are trying to partition a graph into too many parts!" to stdout
 * from inside METIS_PartGraphRecursive when one half of a bisection comes
 * out empty, and carries on (the result is usable: the remapper repairs
 * part sizes).  It happens on the allocations a busy cluster hands out: a
 * job's 40 hosts on one pod as 14, 13 and 9 on three leaves and 1 on each
 * of four more, at one rank per host (20 of bench/peer_bench's 900 family
 * inputs of 16-4,096 ranks, all at 1 rank per host on scattered hosts;
 * none of its 570 matrix inputs).  stdout is the JSON of `topoplace remap
 * --json` and, under srun, the job's output file.  So stdout is flushed
 * and descriptor 1 pointed at /dev/null.
 *
 * Signals.  Every METIS API call replaces the handlers of SIGTERM and
 * SIGABRT with its own (GKlib's gk_sigtrap), which longjmps out of METIS:
 * a SIGTERM that arrives meanwhile is swallowed, METIS returns an error,
 * the remapper falls back to rank order for that split, and the process
 * goes on as if never asked to stop (`topoplace remap` then exited 0 with
 * that mapping).  And on its way out METIS puts the caller's handlers back
 * with signal(), which in this METIS build means System V semantics
 * (SA_RESETHAND | SA_NODEFER) and drops the caller's flags and mask: the
 * caller's SIGTERM handler then runs once only, and an SA_SIGINFO handler
 * would be called without its siginfo.  So SIGTERM is blocked in the
 * calling thread, both signals' actions are saved whole (sigaction) and
 * put back whole at tp_quiet_end, and only then is SIGTERM unblocked, so
 * one that came meanwhile is delivered with the caller's own action.
 * METIS raises SIGTERM itself only on errors in its input or options,
 * which the remapper's calls do not have (SIGABRT, its out-of-memory
 * signal, is not blocked).
 *
 * Both are the whole process's: descriptor 1 and the signal actions.
 * Only for callers where no other thread writes stdout meanwhile (the
 * topoplace tool; srun before it launches the tasks; slurmd's forked remap
 * child).
 */
#ifndef TP_QUIET_H
#define TP_QUIET_H

#include <signal.h>
#include <stdbool.h>

typedef struct tp_quiet {
	int saved_fd; /* stdout's descriptor while quiet, -1 otherwise */
	bool masked;  /* SIGTERM blocked here, old_mask to restore */
	sigset_t old_mask;
	bool term_saved, abrt_saved; /* the caller's actions, to restore */
	struct sigaction old_term, old_abrt;
} tp_quiet;

/*
 * Flush stdout, point descriptor 1 at /dev/null, save the actions of
 * SIGTERM and SIGABRT and block SIGTERM in the calling thread.  What cannot
 * be done (no /dev/null, no descriptor left,
 * stdout closed) is left as it was; tp_quiet_end undoes only what was
 * done.
 */
void tp_quiet_begin(tp_quiet *q);

/* What was printed meanwhile flushed into /dev/null, stdout back; the
 * two actions back as they were, then the signal mask, so a SIGTERM that
 * came meanwhile is delivered now, to the caller's own action. */
void tp_quiet_end(tp_quiet *q);

#endif
