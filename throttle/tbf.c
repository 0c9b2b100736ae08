/*
 * tbf.c: Lustre NRS TBF rule text and the admin hook (see tbf.h).
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tbf.h"

static int all_chars_in(const char *s, const char *extra, size_t max)
{
	size_t n = 0;

	for (; *s; s++, n++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_')
			continue;
		if (!strchr(extra, *s))
			return 0;
	}
	return n >= 1 && n <= max;
}

tp_status tp_tbf_rule_make(const char *name, const char *jobid,
                           uint64_t window_us, uint64_t request_bytes,
                           uint64_t rpc_bytes, uint32_t clients,
                           uint32_t servers, tp_tbf_rule *rule, tp_error *err)
{
	uint64_t rpcs_per_request;
	double rate;

	if (!name || !all_chars_in(name, "", TP_TBF_NAME_MAX))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF rule name '%.40s': use 1..%d of "
		                    "A-Z a-z 0-9 _",
		                    name ? name : "", TP_TBF_NAME_MAX);
	if (!jobid || !all_chars_in(jobid, ".:@-", TP_TBF_JOBID_MAX))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF job id '%.80s': use 1..%d of "
		                    "A-Z a-z 0-9 _ . : @ -",
		                    jobid ? jobid : "", TP_TBF_JOBID_MAX);
	if (!window_us || !request_bytes || !rpc_bytes || !clients || !servers)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF rule %s: window, request size, RPC "
		                    "size, clients and servers must all be "
		                    "positive",
		                    name);
	rpcs_per_request =
	    request_bytes / rpc_bytes + ((request_bytes % rpc_bytes) ? 1 : 0);
	rate = (double)clients * (double)rpcs_per_request * 1e6 /
	       (double)window_us / (double)servers;
	if (rate > 1e12)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF rule %s: rate %.3g RPC/s out of range",
		                    name, rate);
	rule->rate_rpcs = (uint64_t)rate;
	if ((double)rule->rate_rpcs < rate)
		rule->rate_rpcs++;
	if (rule->rate_rpcs < 1)
		rule->rate_rpcs = 1;
	snprintf(rule->start, sizeof(rule->start),
	         "start %s jobid={%s} rate=%llu", name, jobid,
	         (unsigned long long)rule->rate_rpcs);
	snprintf(rule->stop, sizeof(rule->stop), "stop %s", name);
	return TP_OK;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

tp_status tp_tbf_run_hook(char *const hook_argv[], const char *action,
                          const char *rule_text, unsigned timeout_ms,
                          tp_error *err)
{
	extern char **environ;
	posix_spawn_file_actions_t fa;
	char *argv[64];
	size_t n = 0;
	struct timespec t0, pause = {0, 5000000};
	pid_t pid;
	int rc, status;

	if (!hook_argv || !hook_argv[0] || !hook_argv[0][0])
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF hook: no command configured");
	while (n < 60 && hook_argv[n]) {
		argv[n] = hook_argv[n];
		n++;
	}
	if (hook_argv[n])
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF hook %s: more than 60 arguments",
		                    hook_argv[0]);
	argv[n++] = (char *)action;
	argv[n++] = (char *)rule_text;
	argv[n] = NULL;
	if (posix_spawn_file_actions_init(&fa))
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "TBF hook %s: out of memory", argv[0]);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return tp_error_set(err, TP_ERR_IO,
		                    "TBF hook %s: cannot run: %s", argv[0],
		                    strerror(rc));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return tp_error_set(err, TP_ERR_IO,
			                    "TBF hook %s: wait failed: %s",
			                    argv[0], strerror(errno));
		if (elapsed_ms(&t0) >= (long)timeout_ms) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return tp_error_set(err, TP_ERR_BUDGET,
			                    "TBF hook %s %s: no answer within "
			                    "%u ms: killed",
			                    argv[0], action, timeout_ms);
		}
		nanosleep(&pause, NULL);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return TP_OK;
	/* Some spawn implementations (valgrind's, older libcs) report a
	 * failed exec only as the child's exit status 127. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return tp_error_set(err, TP_ERR_IO,
		                    "TBF hook %s: cannot run (exit status 127: "
		                    "not found or not executable)",
		                    argv[0]);
	if (WIFEXITED(status))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "TBF hook %s %s: exited with status %d",
		                    argv[0], action, WEXITSTATUS(status));
	return tp_error_set(err, TP_ERR_INVALID,
	                    "TBF hook %s %s: killed by signal %d", argv[0],
	                    action, WTERMSIG(status));
}
