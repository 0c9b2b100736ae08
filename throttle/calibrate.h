/*
 * calibrate.h: produce a sweep for real.
 *
 * @writers processes (forked) each open their own file in @directory and
 * start one request of @request_bytes every @interval_us (start to start; a
 * request that takes longer than the interval delays the next one, which
 * then starts at once) for @duration_us, recording every request's start
 * and latency.  Every writer issues at least one request, even if a busy
 * machine starts it after the duration.  A request is one pwrite() of
 * request_bytes; with fsync policy EACH its latency includes an fsync() of the
 * file, so the measurement reaches the storage and not just the page cache (the
 * default); END syncs once after the run (not timed), NONE never.  Files
 * wrap at @file_bytes so a long run does not fill the target; they are
 * removed at the end.
 */
#ifndef TP_CALIBRATE_H
#define TP_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "sweep.h"
#include "tp_error.h"
#include "tp_log.h"

typedef enum tp_fsync_policy {
	TP_FSYNC_EACH = 0,
	TP_FSYNC_END,
	TP_FSYNC_NONE,
} tp_fsync_policy;

#define TP_FSYNC_CHOICES "each|end|none"

typedef struct tp_calibrate_params {
	const char *directory;
	uint64_t request_bytes;
	uint32_t writers;
	uint64_t interval_us; /* 0: back to back */
	uint64_t duration_us;
	tp_fsync_policy fsync_policy;
	uint64_t file_bytes; /* per writer; 0: 64 MiB */
	size_t max_requests; /* per writer; 0: 100000 */
} tp_calibrate_params;

/* Parse "each", "end" or "none". */
tp_status tp_fsync_policy_parse(const char *text, tp_fsync_policy *policy,
                                tp_error *err);
const char *tp_fsync_policy_name(tp_fsync_policy policy);

/*
 * Run one point (size, writers, interval) and append its samples to
 * @sweep (each writer's requests, in order).  Errors: TP_ERR_INVALID for
 * bad parameters, TP_ERR_IO naming the directory or file and the failing
 * call (a writer's failure stops the point), TP_ERR_NOMEM.
 */
tp_status tp_calibrate_run(const tp_calibrate_params *params, tp_sweep *sweep,
                           const tp_logger *logger, tp_error *err);

#endif /* TP_CALIBRATE_H */
