/*
 * pacing_writer.c: a small writer for the pacing library's tests and
 * benchmark.  It times each request from outside the library.
 *
 *   pacing_writer seq FILE COUNT BYTES [THREADS [lockstep]]
 *       COUNT pwrite()s of BYTES per thread, back to back, cycling over
 *       64 blocks per thread (with lockstep, all threads meet at a barrier
 *       before each request: every round has one request from each thread,
 *       so their requests interleave whatever the scheduling); prints
 *       requests, total_us, min_end_gap_us (smallest time between the
 *       returns of two consecutive requests), min_outer_us (smallest time
 *       from one request's call to the next one's return: a request start
 *       lies inside its call, so this is >= the start-to-start interval),
 *       mean_end_gap_us, median_end_gap_us (per thread, pooled) and
 *       max_call_us.
 *   pacing_writer reuse FILE COUNT
 *       writes once to FILE (so the library knows the descriptor as a
 *       regular file), closes it (once with close, once with fclose), gets
 *       the same descriptor number for a socket and writes COUNT bytes to
 *       it one by one; prints reused=yes|no and total_us of those writes.
 *   pacing_writer ab FILE COUNT BYTES
 *       paired batches of pwrite() and raw syscall(SYS_pwrite64) in one
 *       process (see ab()); for the overhead benchmark.
 *   pacing_writer signal FILE COUNT
 *       COUNT pwrite()s of 4 KiB while an interval timer (SIGALRM every
 *       3 ms) has its handler pwrite() too; prints main=COUNT and
 *       handled=N, the handler's successful writes.
 *   pacing_writer fork FILE
 *       one write(), then fork(): the child makes 2 write()s and exits, the
 *       parent waits for it and makes 1 more; prints parent=PID child=PID.
 *   pacing_writer together FILE COUNT BYTES AT_REALTIME_NS
 *       sleeps until CLOCK_REALTIME reads AT_REALTIME_NS, then COUNT
 *       pwrite()s of BYTES back to back: many of these started with the
 *       same time are clients that start together.
 *   pacing_writer errno FILE
 *       a fixed list of calls, each printed with its return value and
 *       errno, for comparing runs with and without the library.
 */
#include "tp_config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct job {
	int fd;
	long count;
	size_t bytes;
	long index;
	long long *before, *after;
	pthread_barrier_t *lockstep; /* NULL: free running */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *run(void *arg)
{
	struct job *j = arg;
	char *buf = malloc(j->bytes);

	if (!buf)
		return (void *)1;
	memset(buf, 'a' + (int)(j->index % 26), j->bytes);
	for (long i = 0; i < j->count; i++) {
		/* 64 blocks per thread, rewritten: the page cache stays
		 * small and each write costs the same. */
		off_t off = (off_t)((j->index * 64 + i % 64) * (long)j->bytes);

		if (j->lockstep)
			pthread_barrier_wait(j->lockstep);
		j->before[i] = now_ns();
		if (pwrite(j->fd, buf, j->bytes, off) != (ssize_t)j->bytes) {
			perror("pwrite");
			free(buf);
			return (void *)1;
		}
		j->after[i] = now_ns();
	}
	free(buf);
	return NULL;
}

/*
 * Paired batches in one process: a batch of pwrite() calls (through the
 * library when it is preloaded) and a batch of raw syscall(SYS_pwrite64)
 * calls (never through it), in alternating order; each batch's time per
 * call is kept and the medians are printed.  Both halves see the same
 * machine noise.
 */
#define BATCH 500
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int ab(const char *path, long count, size_t bytes)
{
	/* Short batches for big requests: enough pairs to take a median. */
	long batch = bytes >= 65536 ? 20 : BATCH;
	long batches = count / batch;
	double *lib_ns = calloc((size_t)batches + 1, sizeof(double));
	double *raw_ns = calloc((size_t)batches + 1, sizeof(double));
	char *buf = malloc(bytes);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || !lib_ns || !raw_ns || !buf || batches < 1) {
		perror(path);
		return 1;
	}
	memset(buf, 'b', bytes);
	for (long b = 0; b < batches; b++) {
		/* Alternate which half goes first, so that neither always
		 * follows the other (caches, page state). */
		for (int half = 0; half < 2; half++) {
			int use_lib = (half == 0) == (b % 2 == 0);
			long long t0 = now_ns();

			for (long i = 0; i < batch; i++) {
				off_t off = (off_t)(i % 64) * (off_t)bytes;
				long r = use_lib
				             ? (long)pwrite(fd, buf, bytes, off)
				             : syscall(SYS_pwrite64, fd, buf,
				                       bytes, off);

				if (r != (long)bytes)
					return 1;
			}
			(use_lib ? lib_ns : raw_ns)[b] =
			    (double)(now_ns() - t0) / (double)batch;
		}
	}
	qsort(lib_ns, (size_t)batches, sizeof(double), cmp_double);
	qsort(raw_ns, (size_t)batches, sizeof(double), cmp_double);
	printf("batches=%ld pwrite_ns=%.1f syscall_ns=%.1f ratio=%.4f\n",
	       batches, lib_ns[batches / 2], raw_ns[batches / 2],
	       lib_ns[batches / 2] / raw_ns[batches / 2]);
	close(fd);
	free(lib_ns);
	free(raw_ns);
	free(buf);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int seq(const char *path, long count, size_t bytes, long threads,
               int lockstep)
{
	pthread_barrier_t barrier;
	struct job *jobs = calloc((size_t)threads, sizeof(*jobs));
	pthread_t *tids = calloc((size_t)threads, sizeof(*tids));
	long long t0, t1, min_end = -1, min_outer = -1, max_call = 0, sum = 0;
	long long *all_gaps =
	    calloc((size_t)(count * threads), sizeof(long long));
	long gaps = 0;
	int fd, failed = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !jobs || !tids || !all_gaps || threads < 1) {
		perror(path);
		return 1;
	}
	if (lockstep &&
	    pthread_barrier_init(&barrier, NULL, (unsigned)threads) != 0) {
		perror("pthread_barrier_init");
		return 1;
	}
	for (long t = 0; t < threads; t++) {
		jobs[t] = (struct job){fd,
		                       count,
		                       bytes,
		                       t,
		                       calloc((size_t)count, sizeof(long long)),
		                       calloc((size_t)count, sizeof(long long)),
		                       lockstep ? &barrier : NULL};
		if (!jobs[t].before || !jobs[t].after)
			return 1;
	}
	t0 = now_ns();
	for (long t = 0; t < threads; t++)
		pthread_create(&tids[t], NULL, run, &jobs[t]);
	for (long t = 0; t < threads; t++) {
		void *rc;

		pthread_join(tids[t], &rc);
		failed |= rc != NULL;
	}
	t1 = now_ns();
	for (long t = 0; t < threads; t++) {
		struct job *j = &jobs[t];

		for (long i = 0; i < count; i++) {
			long long call = j->after[i] - j->before[i];

			if (call > max_call)
				max_call = call;
			if (i == 0)
				continue;
			long long end_gap = j->after[i] - j->after[i - 1];
			long long outer = j->after[i] - j->before[i - 1];

			if (min_end < 0 || end_gap < min_end)
				min_end = end_gap;
			if (min_outer < 0 || outer < min_outer)
				min_outer = outer;
			sum += end_gap;
			all_gaps[gaps++] = end_gap;
		}
		free(j->before);
		free(j->after);
	}
	close(fd);
	qsort(all_gaps, (size_t)gaps, sizeof(long long), cmp_ll);
	printf("requests=%ld total_us=%.1f min_end_gap_us=%.1f "
	       "min_outer_us=%.1f mean_end_gap_us=%.2f "
	       "median_end_gap_us=%.1f max_call_us=%.1f\n",
	       count * threads, (double)(t1 - t0) / 1e3, (double)min_end / 1e3,
	       (double)min_outer / 1e3,
	       gaps ? (double)sum / (double)gaps / 1e3 : 0.0,
	       gaps ? (double)all_gaps[gaps / 2] / 1e3 : 0.0,
	       (double)max_call / 1e3);
	free(all_gaps);
	free(jobs);
	free(tids);
	if (lockstep)
		pthread_barrier_destroy(&barrier);
	return failed;
}

/* Writes from a signal handler while the main program writes: the
 * library's paths must be async-signal-safe (no lock, no allocation). */
static int sig_fd;
static volatile sig_atomic_t handled, sig_failed;

static void on_alarm(int sig)
{
	static char block[4096];
	int saved = errno;

	(void)sig;
	if (pwrite(sig_fd, block, sizeof(block), 4096 * 64) ==
	    (ssize_t)sizeof(block))
		handled++;
	else
		sig_failed = 1;
	errno = saved;
}

static int sig_writes(const char *path, long count)
{
	struct itimerval every = {{0, 3000}, {0, 3000}}, off = {{0, 0}, {0, 0}};
	struct sigaction sa;
	char block[4096];

	memset(block, 'm', sizeof(block));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sig_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (sig_fd < 0 || sigaction(SIGALRM, &sa, NULL) != 0 ||
	    setitimer(ITIMER_REAL, &every, NULL) != 0) {
		perror(path);
		return 1;
	}
	for (long i = 0; i < count; i++)
		if (pwrite(sig_fd, block, sizeof(block),
		           (off_t)(i % 64) * 4096) != (ssize_t)sizeof(block)) {
			perror("pwrite");
			return 1;
		}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("main=%ld handled=%d\n", count, (int)handled);
	close(sig_fd);
	return sig_failed;
}

/* Statistics are per process: a forked child reports its own requests. */
static int fork_writes(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), status;
	pid_t child;

	if (fd < 0 || write(fd, "p", 1) != 1) {
		perror(path);
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0)
		exit(write(fd, "c", 1) != 1 || write(fd, "c", 1) != 1);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || write(fd, "p", 1) != 1) {
		perror("child");
		return 1;
	}
	printf("parent=%ld child=%ld\n", (long)getpid(), (long)child);
	close(fd);
	return 0;
}

#define SHOW(label, expr)                                                      \
	do {                                                                   \
		long ret_;                                                     \
		errno = 0;                                                     \
		ret_ = (long)(expr);                                           \
		printf("%-28s ret=%ld errno=%d\n", label, ret_, errno);        \
	} while (0)

static int errno_checks(const char *path)
{
	char buf[64] = "0123456789abcdef", back[64];
	struct iovec iov[2] = {{buf, 4}, {buf + 4, 4}};
	volatile int bad_count = -1; /* hidden from the compiler's checks */
	int wfd, rfd;
	long r;

	wfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rfd = open(path, O_RDONLY);
	if (wfd < 0 || rfd < 0) {
		perror(path);
		return 1;
	}
	SHOW("write ok", write(wfd, buf, 16));
	SHOW("pwrite ok", pwrite(wfd, buf, 8, 100));
	SHOW("writev ok", writev(wfd, iov, 2));
	SHOW("pwritev ok", pwritev(wfd, iov, 2, 200));
	SHOW("write on read-only fd", write(rfd, buf, 4));
	SHOW("pwrite negative offset", pwrite(wfd, buf, 4, -1));
	SHOW("write bad fd", write(-1, buf, 4));
	SHOW("write closed fd", write(999, buf, 4));
	SHOW("writev negative count", writev(wfd, iov, bad_count));
	SHOW("read on write-only fd", read(wfd, back, 4));
	SHOW("pread ok", pread(rfd, back, 8, 100));
	printf("pread data %.8s\n", back);
	/* A successful call must leave errno as the caller set it. */
	errno = ENOTTY;
	r = write(wfd, buf, 2);
	printf("%-28s ret=%ld errno=%d\n", "write keeps errno", r, errno);
	close(wfd);
	close(rfd);
	return 0;
}

static int reuse(const char *path, long count, int use_fclose)
{
	int fd, sv[2];
	long long t0, t1;
	FILE *f = NULL;

	if (use_fclose) {
		f = fopen(path, "w");
		fd = f ? fileno(f) : -1;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	}
	if (fd < 0 || write(fd, "x", 1) != 1) {
		perror(path);
		return 1;
	}
	if (use_fclose)
		fclose(f);
	else
		close(fd);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		perror("socketpair");
		return 1;
	}
	t0 = now_ns();
	for (long i = 0; i < count; i++)
		if (write(sv[0], "y", 1) != 1) {
			perror("write");
			return 1;
		}
	t1 = now_ns();
	printf("reused=%s total_us=%.1f\n", sv[0] == fd ? "yes" : "no",
	       (double)(t1 - t0) / 1e3);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* Clients that start together: all wait for one realtime instant. */
static int together(const char *path, long count, size_t bytes, long long at_ns)
{
	struct timespec at = {(time_t)(at_ns / 1000000000LL),
	                      (long)(at_ns % 1000000000LL)};
	char *buf = malloc(bytes);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || !buf) {
		perror(path);
		free(buf);
		return 1;
	}
	memset(buf, 'x', bytes);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) ==
	       EINTR)
		;
	for (long i = 0; i < count; i++)
		if (pwrite(fd, buf, bytes, (off_t)((i % 64) * (long)bytes)) !=
		    (ssize_t)bytes) {
			perror("pwrite");
			free(buf);
			close(fd);
			return 1;
		}
	free(buf);
	return close(fd) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "together"))
		return together(argv[2], atol(argv[3]), (size_t)atol(argv[4]),
		                atoll(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "ab"))
		return ab(argv[2], atol(argv[3]), (size_t)atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "reuse"))
		return reuse(argv[2], atol(argv[3]), 0) ||
		       reuse(argv[2], atol(argv[3]), 1);
	if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "seq"))
		return seq(argv[2], atol(argv[3]), (size_t)atol(argv[4]),
		           argc > 5 ? atol(argv[5]) : 1,
		           argc > 6 && !strcmp(argv[6], "lockstep"));
	if (argc == 4 && !strcmp(argv[1], "signal"))
		return sig_writes(argv[2], atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return fork_writes(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "errno"))
		return errno_checks(argv[2]);
	fprintf(stderr,
	        "usage: pacing_writer seq FILE COUNT BYTES [THREADS "
	        "[lockstep]] | signal FILE COUNT | fork FILE | errno FILE | "
	        "reuse FILE COUNT | ab FILE COUNT BYTES | together FILE COUNT "
	        "BYTES AT_REALTIME_NS\n");
	return 2;
}
