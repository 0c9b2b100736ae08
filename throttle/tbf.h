/*
 * tbf.h: Lustre NRS TBF rules for a throttled job.
 *
 * topoplace never assumes Lustre is present: it produces the rule text a
 * site applies on its servers
 *
 *   start <name> jobid={<id>} rate=<rpc/s>
 *   stop <name>
 *
 * and hands it to an admin hook command (exec'd with arguments, no shell),
 * which typically runs `lctl set_param ost.OSS.ost_io.nrs_tbf_rule=...` on
 * the servers.
 *
 * Rate: each of the job's @clients starts at most one request per window;
 * a request of @request_bytes is ceil(request_bytes / rpc_bytes) RPCs; TBF
 * enforces a rate per server (service partition), so the job's total is
 * divided over @servers it stripes across.  Rounded up, at least 1.
 */
#ifndef TP_TBF_H
#define TP_TBF_H

#include <stddef.h>
#include <stdint.h>

#include "tp_error.h"

#define TP_TBF_RULE_MAX  160
#define TP_TBF_NAME_MAX  15
#define TP_TBF_JOBID_MAX 64

typedef struct tp_tbf_rule {
	uint64_t rate_rpcs; /* RPCs per second, per server */
	char start[TP_TBF_RULE_MAX];
	char stop[TP_TBF_RULE_MAX];
} tp_tbf_rule;

/*
 * Build the rules.  @name: [A-Za-z0-9_], 1..15 characters; @jobid:
 * [A-Za-z0-9_.:@-], 1..64 (no spaces or braces: the text is passed on to
 * lctl).  window_us, request_bytes, rpc_bytes, clients, servers > 0.
 * TP_ERR_INVALID naming the field otherwise.
 */
tp_status tp_tbf_rule_make(const char *name, const char *jobid,
                           uint64_t window_us, uint64_t request_bytes,
                           uint64_t rpc_bytes, uint32_t clients,
                           uint32_t servers, tp_tbf_rule *rule, tp_error *err);

/*
 * Run the admin hook: execvp(@hook_argv[0], hook_argv + "start"|"stop" +
 * rule text), no shell, stdin from /dev/null, waiting at most @timeout_ms
 * (then the hook is killed).  @hook_argv is NULL-terminated.  Errors:
 * TP_ERR_IO when it cannot start, TP_ERR_BUDGET on timeout, TP_ERR_INVALID
 * when it exits non-zero; each names the hook and the status.
 */
tp_status tp_tbf_run_hook(char *const hook_argv[], const char *action,
                          const char *rule_text, unsigned timeout_ms,
                          tp_error *err);

#endif /* TP_TBF_H */
