/*
 * calibrate.c: the calibration writers (see calibrate.h).
 *
 * Writers are processes, not threads, so each is its own client exactly as
 * ranks of a job are.  Their samples go to a shared anonymous mapping the
 * parent reads after waiting for them; a child only ever _exit()s.
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "units.h"

#define MAX_WRITERS          4096
#define DEFAULT_FILE_BYTES   (64ULL << 20)
#define DEFAULT_MAX_REQUESTS 100000
/* Writers start together this long after the fork, so that forking the
 * later writers does not skew the first ones. */
#define START_DELAY_NS 50000000LL

struct record {
	double start_us, latency_us;
};

struct writer_slot {
	size_t count;
	int failed_errno;
	char failed_call[16];
};

tp_status tp_fsync_policy_parse(const char *text, tp_fsync_policy *policy,
                                tp_error *err)
{
	static const char *names[] = {"each", "end", "none"};

	for (int i = 0; i < 3; i++)
		if (text && !strcmp(text, names[i])) {
			*policy = (tp_fsync_policy)i;
			return TP_OK;
		}
	return tp_error_set(err, TP_ERR_INVALID, "fsync policy '%.40s': use %s",
	                    text ? text : "", TP_FSYNC_CHOICES);
}

const char *tp_fsync_policy_name(tp_fsync_policy policy)
{
	return policy == TP_FSYNC_EACH  ? "each"
	       : policy == TP_FSYNC_END ? "end"
	                                : "none";
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until_ns(long long t)
{
	struct timespec ts = {(time_t)(t / 1000000000LL),
	                      (long)(t % 1000000000LL)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void fail_slot(struct writer_slot *slot, const char *call)
{
	slot->failed_errno = errno ? errno : EIO;
	snprintf(slot->failed_call, sizeof(slot->failed_call), "%s", call);
}

/* One writer's life; runs in the child. */
static void writer(const tp_calibrate_params *p, const char *path,
                   long long t0_ns, size_t max_requests,
                   struct writer_slot *slot, struct record *records)
{
	uint64_t slots = p->file_bytes / p->request_bytes;
	long long end_ns = t0_ns + (long long)p->duration_us * 1000LL;
	char *buf;
	int fd;

	if (slots < 1)
		slots = 1;
	buf = malloc(p->request_bytes);
	if (!buf) {
		fail_slot(slot, "malloc");
		return;
	}
	/* Not zeros: some file systems compress or skip zero pages. */
	for (uint64_t i = 0; i < p->request_bytes; i++)
		buf[i] = (char)(i * 131 + 7);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fail_slot(slot, "open");
		free(buf);
		return;
	}
	sleep_until_ns(t0_ns);
	for (size_t k = 0; k < max_requests; k++) {
		long long sched =
		    t0_ns + (long long)k * (long long)p->interval_us * 1000LL;
		long long start, done;
		uint64_t off = (k % slots) * p->request_bytes;
		size_t left = p->request_bytes;

		/* Every writer issues at least its first request, even when
		 * a loaded machine starts it late: a point with a silent
		 * writer would not measure what it says. */
		if (k > 0 && sched >= end_ns)
			break;
		if (now_ns() < sched)
			sleep_until_ns(sched);
		start = now_ns();
		if (k > 0 && start >= end_ns)
			break;
		while (left > 0) {
			ssize_t n =
			    pwrite(fd, buf + (p->request_bytes - left), left,
			           (off_t)(off + p->request_bytes - left));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fail_slot(slot, "pwrite");
				close(fd);
				free(buf);
				return;
			}
			left -= (size_t)n;
		}
		if (p->fsync_policy == TP_FSYNC_EACH && fsync(fd) != 0 &&
		    errno != EINVAL) {
			fail_slot(slot, "fsync");
			close(fd);
			free(buf);
			return;
		}
		done = now_ns();
		records[k].start_us = (double)(start - t0_ns) / 1000.0;
		records[k].latency_us = (double)(done - start) / 1000.0;
		slot->count = k + 1;
	}
	if (p->fsync_policy == TP_FSYNC_END && fsync(fd) != 0 &&
	    errno != EINVAL)
		fail_slot(slot, "fsync");
	if (close(fd) != 0 && !slot->failed_errno)
		fail_slot(slot, "close");
	free(buf);
}

tp_status tp_calibrate_run(const tp_calibrate_params *params, tp_sweep *sweep,
                           const tp_logger *logger, tp_error *err)
{
	tp_calibrate_params p = *params;
	struct writer_slot *slots;
	struct record *records;
	size_t max_requests, map_bytes;
	pid_t *pids;
	char path[4096];
	long long t0_ns;
	struct stat st_dir;
	tp_status status = TP_OK;
	uint32_t started = 0;

	if (!p.directory || !*p.directory)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "calibrate: no target directory");
	if (stat(p.directory, &st_dir) != 0)
		return tp_error_set(err, TP_ERR_IO, "calibrate: target %s: %s",
		                    p.directory, strerror(errno));
	if (!S_ISDIR(st_dir.st_mode))
		return tp_error_set(err, TP_ERR_IO,
		                    "calibrate: target %s: not a directory",
		                    p.directory);
	if (p.writers < 1 || p.writers > MAX_WRITERS)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "calibrate: writers %u not in 1..%d",
		                    p.writers, MAX_WRITERS);
	if (p.request_bytes < 1 || p.request_bytes > (1ULL << 30))
		return tp_error_set(err, TP_ERR_INVALID,
		                    "calibrate: request size %llu not in "
		                    "1 byte..1 GiB",
		                    (unsigned long long)p.request_bytes);
	if (p.duration_us < 1 || p.duration_us > TP_UNITS_MAX_DURATION_US)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "calibrate: duration must be 1 us..1 h");
	if (p.interval_us > TP_UNITS_MAX_DURATION_US)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "calibrate: interval above 1 h");
	if (!p.file_bytes)
		p.file_bytes = DEFAULT_FILE_BYTES;
	max_requests = p.max_requests ? p.max_requests : DEFAULT_MAX_REQUESTS;
	if (p.interval_us && p.duration_us / p.interval_us + 1 < max_requests)
		max_requests = (size_t)(p.duration_us / p.interval_us + 1);
	if (max_requests > SIZE_MAX / sizeof(struct record) / MAX_WRITERS)
		return tp_error_set(err, TP_ERR_INVALID,
		                    "calibrate: too many requests per writer");

	map_bytes = p.writers * (sizeof(struct writer_slot) +
	                         max_requests * sizeof(struct record));
	slots = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
	             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED)
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "calibrate: cannot map %zu bytes for "
		                    "samples: %s",
		                    map_bytes, strerror(errno));
	records = (struct record *)(slots + p.writers);
	pids = calloc(p.writers, sizeof(*pids));
	if (!pids) {
		munmap(slots, map_bytes);
		return tp_error_set(err, TP_ERR_NOMEM,
		                    "calibrate: out of memory");
	}
	tp_log(logger, TP_LOG_INFO,
	       "calibrate: %llu bytes x %u writers every %llu us for %llu us "
	       "in %s (fsync %s)",
	       (unsigned long long)p.request_bytes, p.writers,
	       (unsigned long long)p.interval_us,
	       (unsigned long long)p.duration_us, p.directory,
	       tp_fsync_policy_name(p.fsync_policy));
	t0_ns = now_ns() + START_DELAY_NS;
	for (; started < p.writers; started++) {
		pid_t pid;

		snprintf(path, sizeof(path), "%s/tp-calibrate.%ld.%u",
		         p.directory, (long)getpid(), started);
		pid = fork();
		if (pid < 0) {
			status = tp_error_set(err, TP_ERR_IO,
			                      "calibrate: fork of writer %u: "
			                      "%s",
			                      started, strerror(errno));
			break;
		}
		if (pid == 0) {
			/* The child owns nothing of the parent's but its
			 * slot in the shared mapping. */
			free(pids);
			writer(&p, path, t0_ns, max_requests, &slots[started],
			       records + (size_t)started * max_requests);
			_exit(slots[started].failed_errno ? 1 : 0);
		}
		pids[started] = pid;
	}
	for (uint32_t w = 0; w < started; w++) {
		int wstatus;

		while (waitpid(pids[w], &wstatus, 0) < 0 && errno == EINTR)
			;
		snprintf(path, sizeof(path), "%s/tp-calibrate.%ld.%u",
		         p.directory, (long)getpid(), w);
		unlink(path);
		if (status == TP_OK && slots[w].failed_errno)
			status = tp_error_set(err, TP_ERR_IO,
			                      "calibrate: writer %u: %s %s: %s",
			                      w, slots[w].failed_call, path,
			                      strerror(slots[w].failed_errno));
		else if (status == TP_OK &&
		         !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0))
			status = tp_error_set(err, TP_ERR_IO,
			                      "calibrate: writer %u died", w);
	}
	for (uint32_t w = 0; status == TP_OK && w < p.writers; w++) {
		const struct record *r = records + (size_t)w * max_requests;

		for (size_t k = 0; status == TP_OK && k < slots[w].count; k++) {
			tp_sweep_sample s = {p.request_bytes,
			                     p.writers,
			                     w,
			                     (double)p.interval_us,
			                     r[k].start_us,
			                     r[k].latency_us,
			                     TP_SWEEP_IO, 0};

			status = tp_sweep_add(sweep, &s, err);
		}
	}
	free(pids);
	munmap(slots, map_bytes);
	return status;
}
