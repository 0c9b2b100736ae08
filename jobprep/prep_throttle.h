/*
 * prep_throttle.h: whether a job or step is I/O-throttled, and with which
 * window, as slurmd decides it for a batch job and slurmstepd for a step.
 *
 * In: the partition's settings (ThrottleMode, the window bounds and
 * classes through tp_config_throttle_policy, ThresholdTable), the I/O
 * pattern of the job's profile (NULL: none, or no I/O in it) and the
 * user's --io-throttle.  Out: the window and its reason, and log lines
 * through the caller's sink.  The window itself, its clamp to
 * ThrottleMinWindow/ThrottleMaxWindow and the user's word on top are
 * throttle/window.c's (tp_window_decide); this module decides only which
 * of its inputs apply: none under ThrottleMode=off or tbf, the profile's
 * pattern with the threshold table when there is one, else the user's
 * window alone.
 */
#ifndef TP_PREP_THROTTLE_H
#define TP_PREP_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topoplace_conf.h"
#include "tp_log.h"
#include "window.h"

/* Who is decided for and how loudly; the texts name @who. */
typedef struct tp_prep_throttle_who {
	const char *who; /* "JobId=5", "StepId=5.0": prefix of every line */
	bool loud;       /* errors as errors, else as debug lines (a step's
	                    other nodes decide the same quietly) */
	bool dbg;        /* DebugFlags=Throttle: inputs and decision, as
	                    "Throttle: " info lines */
	const tp_logger *log;
} tp_prep_throttle_who;

/*
 * Decide: true, with *@window_us and @reason (@reason_size bytes; the
 * window's one-line reason), when the job is to be throttled; false
 * otherwise (why is logged, as a debug line or a Throttle: line).  A
 * threshold table that cannot be read is one error and no automatic
 * window; a window the decision cannot make is one error and no window.
 */
bool tp_prep_throttle_decide(const tp_prep_throttle_who *who,
                             const tp_config_settings *settings,
                             const tp_io_pattern *pattern,
                             const tp_throttle_request *request,
                             uint64_t *window_us, char *reason,
                             size_t reason_size);

/* True when the window given differs from the one the user asked for
 * (--io-throttle=<window>): the job is told, "--io-throttle: <reason>". */
bool tp_prep_throttle_user_window_changed(const tp_throttle_request *request,
                                          uint64_t window_us);

#endif /* TP_PREP_THROTTLE_H */
