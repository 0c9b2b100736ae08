/*
 * phase.h: the per-client phase of the pacing library, as a pure function.
 *
 * Clients that start together and keep the same window stay together; each
 * client therefore starts its requests at its own phase within the window
 * (throttle/pacing.c says when the phase applies).  This is the rule that
 * gives a client its phase, kept apart from the preload library so that
 * the pacing library, its unit test and the fabric simulator
 * (bench/fabric_sim.c) use one rule.
 *
 * Used inside the preload library, in a forked child too: no allocation,
 * no stdio, no locale, no global state (async-signal-safe).  Hidden, so
 * that libtopoplace_pacing.so exports nothing of it to the application.
 */
#ifndef TP_PHASE_H
#define TP_PHASE_H

/*
 * The phase in [0, window_ns) of a client; 0 when window_ns <= 0.
 *
 * With a rank (@rank >= 0): (hash of @job_id + @rank x golden ratio)
 * modulo 1, times the window: the ranks of one job get evenly spread
 * phases (any n consecutive ranks leave no gap wider than about 2.6 / n
 * of the window), different jobs an independent shift.  @host and @pid are
 * not used.
 * Without (@rank < 0): a hash of @job_id, @host and @pid.
 * @job_id and @host may be NULL (hashed as empty texts).  Deterministic:
 * the same arguments give the same phase in every process.
 */
__attribute__((visibility("hidden"))) long long
tp_pacing_phase_ns(const char *job_id, long long rank, const char *host,
                   unsigned long long pid, long long window_ns);

#endif /* TP_PHASE_H */
