/*
 * pacing.c: libtopoplace_pacing.so, the I/O pacing preload library.
 *
 *   LD_PRELOAD=.../libtopoplace_pacing.so TOPOPLACE_IO_WINDOW_US=2000 ./app
 *
 * Every write request on a regular file (write, pwrite, writev, pwritev and
 * their 64-bit and v2 forms; also read, pread, readv, preadv with
 * TOPOPLACE_IO_PACE_READS=1) starts no earlier than the window after the
 * start of this process's previous request: the process is the client.
 * A request's start is the moment the library releases it to the real
 * call (a clock read just before it).  Nothing else changes: the real call
 * gets the same arguments, its result and errno are the caller's.  With
 * the window unset or 0 (and no statistics) every call goes straight
 * through after one relaxed load.
 *
 * Sleeps wake late; to keep intervals close to the window (the job pays
 * for every microsecond over it) the library learns how late and spins
 * the remainder of each wait on the clock (TOPOPLACE_IO_SPIN=0: sleep
 * only).
 *
 * Thread safety without a lock, in two steps.  Scheduling: the earliest
 * allowed start of the next request (next_start_ns) is claimed by
 * compare-and-swap, so concurrent threads queue for slots a window apart
 * and each sleeps once.  Release: a thread can lose the CPU between its
 * slot and its call (a loaded machine), and a later slot's thread may then
 * go first; so the start itself is published by compare-and-swap on
 * last_start_ns, and only when it is at least the window after the
 * previous published start (else the thread waits again).  Published
 * starts are therefore never closer than the window, whatever the
 * scheduling; a request that started late pushes next_start_ns to its
 * real start + window.
 *
 * Clients out of step (the phase).  Clients that start together (one
 * job's ranks leaving a barrier, many jobs' checkpoints at the top of the
 * hour) and keep the same window stay together: every window then sees
 * one burst of all of them, and the servers and the fabric get the peak
 * that throttling was meant to remove.  So each client has a phase in
 * [0, window): a request that finds the client idle (no request started in
 * the last IDLE_WINDOWS windows, or none yet) starts at the next instant
 * whose CLOCK_REALTIME is the phase modulo the window; later requests keep
 * the window from it and so stay on the client's phase.  The realtime
 * clock is the one clock the nodes of a cluster share (NTP keeps them
 * within well under a millisecond), so phases of clients on different
 * nodes are comparable.  The phase is (rank x golden ratio + a hash of the
 * job id) modulo 1, times the window: the ranks of one job
 * (SLURM_PROCID, else PMI_RANK, PMIX_RANK, OMPI_COMM_WORLD_RANK) get
 * evenly spread phases, different jobs an independent shift.  Without a
 * rank the phase is a hash of job, host and process id (the rule:
 * tp_pacing_phase_ns, throttle/phase.h).  Cost: at most one
 * window per request that follows at least IDLE_WINDOWS windows of
 * idleness (at most 1 / IDLE_WINDOWS of that interval), once per burst in
 * the common case.  TOPOPLACE_IO_PHASE=0 turns it off.
 *
 * Which descriptors are regular files: fstat() once per descriptor, cached
 * for descriptors below FD_CACHE.  Descriptor numbers are reused, so the
 * cache entry is dropped by close, dup2, dup3, close_range, fclose and
 * closedir here; a descriptor closed behind our back (a raw syscall) may be
 * misclassified until it is closed again, which can only pace or not pace a
 * request, never change its result.  stdio writes (fwrite) reach the kernel
 * through glibc's internal write and are not paced.
 *
 * Sockets (TOPOPLACE_IO_PACE_SOCKETS=1, off by default): for clients whose
 * storage is a user-space client over TCP (object stores, DAOS-like
 * services, the benchmark's sink), socket writes are the I/O requests.
 * Off by default because in an MPI job over TCP the sockets also carry
 * the MPI traffic the window is meant to protect, never to slow.
 *
 * Statistics (TOPOPLACE_IO_PACING_STATS=PATH, for tests and debugging):
 * counters of the calls seen, the requests the window applied to, those
 * held back and for how long, and a table of the first MAX_STARTS request
 * starts (time, thread), appended to PATH when the process exits (see
 * stats_dump).  Recording uses only atomics, clock_gettime and gettid, so
 * a wrapper called from a signal handler stays async-signal-safe; with
 * statistics off the wrappers' fast path is unchanged (the same one load
 * decides both).
 */
#include "tp_config.h"

/* The wrappers must call the plain functions, never the _chk variants. */
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pacing.h"
#include "phase.h"

#define FD_CACHE      4096
#define MAX_WINDOW_US 3600000000LL
#define MAX_EARLY_NS  500000LL
#define MAX_STARTS    16384 /* request starts recorded with statistics on */
/* Idle this many windows: the next request waits for the client's phase. */
#define IDLE_WINDOWS 4

enum { KIND_UNKNOWN = 0, KIND_PACED, KIND_OTHER };

/* What a recorded start was: a POSIX or an MPI-IO request. */
enum { OP_WRITE = 0, OP_READ, OP_MPI_WRITE, OP_MPI_READ };

/* Process-wide state: one client per process. */
static atomic_int active;      /* window or statistics on: wrappers' gate */
static atomic_llong window_ns; /* 0: pass through */
static atomic_int pace_reads;
static atomic_int pace_sockets;    /* sockets count as I/O requests too */
static atomic_llong next_start_ns; /* earliest start of the next request */
static atomic_llong last_start_ns; /* the latest published start */
static _Atomic unsigned char fd_kind[FD_CACHE];
static _Thread_local int in_mpi_io; /* inside an MPI-IO call we paced */
static _Thread_local int my_tid;    /* gettid(), with statistics on */
static atomic_int spin;             /* aim sleeps early and spin the rest */
static atomic_llong wake_late_ns;   /* average lateness of a wake-up */
static atomic_llong phase_ns;       /* -1: no phase (TOPOPLACE_IO_PHASE=0) */

/* Statistics (TOPOPLACE_IO_PACING_STATS): off unless the path is set. */
static atomic_int stats_on;
static char stats_path[PATH_MAX];
static atomic_ullong st_calls;    /* POSIX read/write calls seen */
static atomic_ullong st_mpi;      /* MPI-IO requests seen */
static atomic_ullong st_nested;   /* POSIX calls inside MPI-IO: exempt */
static atomic_ullong st_requests; /* requests the window applied to */
static atomic_ullong st_paced;    /* ... of them held back */
static atomic_ullong st_delay_ns; /* total time held back */
static atomic_uint st_slots;      /* start table entries claimed */
static struct {
	long long ns, waited_ns;
	int tid;
	unsigned char op;
	_Atomic unsigned char done; /* set last: the entry is complete */
} st_start[MAX_STARTS];

/* The real functions, found with dlsym(RTLD_NEXT). */
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_pwritev64v2)(int, const struct iovec *, int, off64_t,
                                   int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pread64)(int, void *, size_t, off64_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_preadv)(int, const struct iovec *, int, off_t);
static ssize_t (*real_preadv64)(int, const struct iovec *, int, off64_t);
static ssize_t (*real_preadv2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_preadv64v2)(int, const struct iovec *, int, off64_t, int);
static ssize_t (*real___read_chk)(int, void *, size_t, size_t);
static ssize_t (*real___pread_chk)(int, void *, size_t, off_t, size_t);
static ssize_t (*real___pread64_chk)(int, void *, size_t, off64_t, size_t);
static int (*real_close)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_close_range)(unsigned, unsigned, int);
static int (*real_fclose)(FILE *);
static int (*real_closedir)(DIR *);

/* glibc's fortified entry points (called by code built with
 * _FORTIFY_SOURCE); no header declares them without fortification. */
ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset,
                    size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t offset,
                      size_t buflen);

/* Resolve lazily too: another library's constructor may do I/O before
 * ours runs.  The pointer is the same whichever thread stores it. */
#define REAL(name)                                                             \
	real_or_resolve(__atomic_load_n(&real_##name, __ATOMIC_RELAXED),       \
	                resolve_##name)
#define real_or_resolve(f, resolve)                                            \
	(__builtin_expect((f) != NULL, 1) ? (f) : (resolve)())
#define RESOLVER(name)                                                         \
	static __typeof__(real_##name) resolve_##name(void)                    \
	{                                                                      \
		__typeof__(real_##name) f;                                     \
		*(void **)&f = dlsym(RTLD_NEXT, #name);                        \
		__atomic_store_n(&real_##name, f, __ATOMIC_RELAXED);           \
		return f;                                                      \
	}
RESOLVER(write)
RESOLVER(pwrite)
RESOLVER(pwrite64)
RESOLVER(writev)
RESOLVER(pwritev)
RESOLVER(pwritev64)
RESOLVER(pwritev2)
RESOLVER(pwritev64v2)
RESOLVER(read)
RESOLVER(pread)
RESOLVER(pread64)
RESOLVER(readv)
RESOLVER(preadv)
RESOLVER(preadv64)
RESOLVER(preadv2)
RESOLVER(preadv64v2)
RESOLVER(__read_chk)
RESOLVER(__pread_chk)
RESOLVER(__pread64_chk)
RESOLVER(close)
RESOLVER(dup2)
RESOLVER(dup3)
RESOLVER(close_range)
RESOLVER(fclose)
RESOLVER(closedir)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static void say(const char *message)
{
	ssize_t (*w)(int, const void *, size_t) = REAL(write);

	if (w && w(2, message, strlen(message)) < 0) {
		/* Nothing more to do: stderr is gone. */
	}
}

/* Strict: digits only, at most one hour.  Anything else disables pacing
 * with one line on stderr, so a typo never silently throttles a job. */
static long long parse_window_us(const char *text)
{
	long long us = 0;

	if (!text || !*text)
		return 0;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || us > MAX_WINDOW_US) {
			say("libtopoplace_pacing: TOPOPLACE_IO_WINDOW_US is "
			    "not a whole number of microseconds up to "
			    "3600000000: pacing off\n");
			return 0;
		}
		us = us * 10 + (*p - '0');
	}
	if (us > MAX_WINDOW_US) {
		say("libtopoplace_pacing: TOPOPLACE_IO_WINDOW_US above one "
		    "hour: pacing off\n");
		return 0;
	}
	return us;
}

/* Forget the parent's counters and starts in a forked child: each process
 * reports its own requests. */
static void stats_after_fork(void)
{
	unsigned n = atomic_load(&st_slots);

	my_tid = 0; /* this thread's id is new */
	for (unsigned i = 0; i < n && i < MAX_STARTS; i++)
		atomic_store(&st_start[i].done, 0);
	atomic_store(&st_slots, 0);
	atomic_store(&st_calls, 0);
	atomic_store(&st_mpi, 0);
	atomic_store(&st_nested, 0);
	atomic_store(&st_requests, 0);
	atomic_store(&st_paced, 0);
	atomic_store(&st_delay_ns, 0);
}

/* TOPOPLACE_IO_PACING_STATS=PATH: statistics on, written to PATH at exit
 * (a relative PATH is taken from the directory at start-up, not at exit).
 * A path that does not fit leaves them off, with one line on stderr. */
static void stats_init(void)
{
	const char *path = getenv("TOPOPLACE_IO_PACING_STATS");
	size_t len, dir = 0;

	if (!path || !*path)
		return;
	len = strlen(path);
	if (path[0] != '/') {
		if (!getcwd(stats_path, sizeof(stats_path))) {
			stats_path[0] = 0;
			dir = sizeof(stats_path); /* too long */
		} else {
			dir = strlen(stats_path) + 1;
		}
	}
	if (dir + len >= sizeof(stats_path)) {
		say("libtopoplace_pacing: TOPOPLACE_IO_PACING_STATS path too "
		    "long: statistics off\n");
		return;
	}
	if (dir)
		stats_path[dir - 1] = '/';
	memcpy(stats_path + dir, path, len + 1);
	if (pthread_atfork(NULL, NULL, stats_after_fork) != 0) {
		say("libtopoplace_pacing: pthread_atfork failed: statistics "
		    "off\n");
		return;
	}
	atomic_store(&stats_on, 1);
}

/* The rank of this process in its job, or -1 (digits only). */
static long long job_rank(void)
{
	static const char *const names[] = {
	    "SLURM_PROCID", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *text = getenv(names[i]);
		long long rank = 0;

		if (!text || !*text || strlen(text) > 9)
			continue;
		for (const char *p = text; *p; p++) {
			if (*p < '0' || *p > '9') {
				rank = -1;
				break;
			}
			rank = rank * 10 + (*p - '0');
		}
		if (rank >= 0)
			return rank;
	}
	return -1;
}

/* This client's phase within a window of @w ns, -1 when off (see the top
 * comment; the rule is tp_pacing_phase_ns). */
static long long client_phase_ns(long long w)
{
	const char *off = getenv("TOPOPLACE_IO_PHASE");
	long long rank = job_rank();
	char host[256] = "";

	if (off && !strcmp(off, "0"))
		return -1;
	if (rank < 0 && gethostname(host, sizeof(host) - 1) != 0)
		host[0] = 0;
	return tp_pacing_phase_ns(getenv("SLURM_JOB_ID"), rank, host,
	                          (unsigned long long)getpid(), w);
}

/* A forked child is another client: its own phase. */
static void phase_after_fork(void)
{
	long long w = atomic_load(&window_ns);

	if (atomic_load(&phase_ns) >= 0 && w)
		atomic_store(&phase_ns, client_phase_ns(w));
}

__attribute__((constructor)) static void pacing_init(void)
{
	const char *reads = getenv("TOPOPLACE_IO_PACE_READS");
	const char *spinning = getenv("TOPOPLACE_IO_SPIN");
	const char *sockets = getenv("TOPOPLACE_IO_PACE_SOCKETS");

	resolve_write();
	resolve_pwrite();
	resolve_pwrite64();
	resolve_writev();
	resolve_pwritev();
	resolve_pwritev64();
	resolve_pwritev2();
	resolve_pwritev64v2();
	resolve_read();
	resolve_pread();
	resolve_pread64();
	resolve_readv();
	resolve_preadv();
	resolve_preadv64();
	resolve_preadv2();
	resolve_preadv64v2();
	resolve_close();
	resolve_dup2();
	resolve_dup3();
	resolve_fclose();
	resolve_closedir();
	atomic_store(&pace_reads, reads && !strcmp(reads, "1"));
	atomic_store(&pace_sockets, sockets && !strcmp(sockets, "1"));
	atomic_store(&spin, !(spinning && !strcmp(spinning, "0")));
	atomic_store(&next_start_ns, LLONG_MIN / 2);
	atomic_store(&last_start_ns, LLONG_MIN / 2);
	atomic_store(&window_ns,
	             parse_window_us(getenv("TOPOPLACE_IO_WINDOW_US")) * 1000);
	atomic_store(&phase_ns, client_phase_ns(atomic_load(&window_ns)));
	if (pthread_atfork(NULL, NULL, phase_after_fork) != 0)
		atomic_store(&phase_ns, -1); /* the child would share ours */
	stats_init();
	atomic_store(&active,
	             atomic_load(&window_ns) != 0 || atomic_load(&stats_on));
}

/* Whether requests on @fd are I/O the window applies to: regular files,
 * and sockets with TOPOPLACE_IO_PACE_SOCKETS=1 (see the top comment). */
static int is_paced(int fd)
{
	struct stat st;
	int kind;

	if (fd < 0)
		return 0;
	if (fd < FD_CACHE) {
		kind = atomic_load_explicit(&fd_kind[fd], memory_order_relaxed);
		if (kind != KIND_UNKNOWN)
			return kind == KIND_PACED;
	}
	if (fstat(fd, &st) != 0)
		return 0; /* the real call reports the bad descriptor */
	kind =
	    S_ISREG(st.st_mode) ||
	            (S_ISSOCK(st.st_mode) &&
	             atomic_load_explicit(&pace_sockets, memory_order_relaxed))
	        ? KIND_PACED
	        : KIND_OTHER;
	if (fd < FD_CACHE)
		atomic_store_explicit(&fd_kind[fd], (unsigned char)kind,
		                      memory_order_relaxed);
	return kind == KIND_PACED;
}

static void forget_fd(int fd)
{
	if (fd >= 0 && fd < FD_CACHE)
		atomic_store_explicit(&fd_kind[fd], KIND_UNKNOWN,
		                      memory_order_relaxed);
}

/* Wait until the monotonic clock reads `until` (now: a recent reading).
 *
 * A sleep wakes late (timer slack, scheduling: ~50-150 us on a VM), which
 * would make every interval longer than the window and the job pay for it.
 * So the sleep aims early by the lateness seen so far (an average kept in
 * wake_late_ns, at most MAX_EARLY_NS) and the rest is spun on the clock:
 * only the jitter of the wake-up is spent spinning.  TOPOPLACE_IO_SPIN=0
 * turns this off (plain sleep). */
static void wait_until(long long until, long long now)
{
	int spinning = atomic_load_explicit(&spin, memory_order_relaxed);
	long long early, aim;
	struct timespec ts;

	early = spinning
	            ? atomic_load_explicit(&wake_late_ns, memory_order_relaxed)
	            : 0;
	aim = until - early;
	if (aim > now) {
		ts.tv_sec = (time_t)(aim / 1000000000LL);
		ts.tv_nsec = (long)(aim % 1000000000LL);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		                       NULL) == EINTR)
			;
		if (spinning) {
			long long late = now_ns() - aim, avg;

			/* Average of the lateness, 1/8 weight per wake-up;
			 * racing updates only lose a sample. */
			avg = atomic_load_explicit(&wake_late_ns,
			                           memory_order_relaxed);
			avg += (late - avg) / 8;
			if (avg < 0)
				avg = 0;
			if (avg > MAX_EARLY_NS)
				avg = MAX_EARLY_NS;
			atomic_store_explicit(&wake_late_ns, avg,
			                      memory_order_relaxed);
		}
	}
	while (now_ns() < until)
		cpu_relax();
}

/* Statistics of one request the window applied to, started at `start`
 * after arriving at `arrive`.  Atomics only: async-signal-safe. */
__attribute__((noinline, cold)) static void
stats_request(int op, long long arrive, long long start)
{
	unsigned slot;

	atomic_fetch_add_explicit(&st_requests, 1, memory_order_relaxed);
	if (start > arrive) {
		atomic_fetch_add_explicit(&st_paced, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&st_delay_ns,
		                          (unsigned long long)(start - arrive),
		                          memory_order_relaxed);
	}
	slot = atomic_fetch_add_explicit(&st_slots, 1, memory_order_relaxed);
	if (slot >= MAX_STARTS)
		return; /* counted, not recorded */
	st_start[slot].ns = start;
	st_start[slot].waited_ns = start - arrive;
	if (!my_tid)
		my_tid = (int)syscall(SYS_gettid);
	st_start[slot].tid = my_tid;
	st_start[slot].op = (unsigned char)op;
	atomic_store_explicit(&st_start[slot].done, 1, memory_order_release);
}

/* How long after @arrive (CLOCK_MONOTONIC ns) the client's phase comes
 * round on the realtime clock: 0 .. w - 1. */
static long long until_phase_ns(long long w, long long phase)
{
	struct timespec ts;
	long long real, wait;

	clock_gettime(CLOCK_REALTIME, &ts);
	real = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	wait = (phase - real % w) % w;
	return wait < 0 ? wait + w : wait;
}

/* Wait until this request may start (its slot, claimed in next_start_ns),
 * then publish its start in last_start_ns, never less than the window
 * after the previous published start (see the comment at the top).  A
 * client idle for IDLE_WINDOWS windows waits for its phase first. */
static void pace_now(long long w, int op)
{
	long long arrive = now_ns(), now = arrive, prev, slot, last;
	long long phase = atomic_load_explicit(&phase_ns, memory_order_relaxed);
	long long to_phase = phase >= 0 ? until_phase_ns(w, phase) : 0;

	prev = atomic_load(&next_start_ns);
	do {
		slot = prev > arrive ? prev : arrive;
		/* next_start_ns is the last start + w: idle since then? */
		if (phase >= 0 && arrive - (prev - w) >= IDLE_WINDOWS * w)
			slot = arrive + to_phase;
	} while (
	    !atomic_compare_exchange_weak(&next_start_ns, &prev, slot + w));
	if (slot > arrive) {
		wait_until(slot, arrive);
		now = now_ns();
	}
	last = atomic_load(&last_start_ns);
	for (;;) {
		if (now - last < w) {
			/* Another thread started late, after our slot. */
			wait_until(last + w, now);
			now = now_ns();
			continue;
		}
		/* On failure last is reloaded: check against it again. */
		if (atomic_compare_exchange_weak(&last_start_ns, &last, now))
			break;
	}
	/* Started late: the next slot counts from the real start. */
	prev = atomic_load(&next_start_ns);
	while (prev < now + w &&
	       !atomic_compare_exchange_weak(&next_start_ns, &prev, now + w))
		;
	if (__builtin_expect(
	        atomic_load_explicit(&stats_on, memory_order_relaxed), 0))
		stats_request(op, arrive, now);
}

/* The slow path, kept out of line so the wrappers' fast path (window and
 * statistics off) saves no registers and stays a load, a branch and a
 * tail call. */
__attribute__((noinline, cold)) static void pace_slow(int fd, int is_read)
{
	long long w = atomic_load_explicit(&window_ns, memory_order_relaxed);
	int stats = atomic_load_explicit(&stats_on, memory_order_relaxed);
	int saved;

	if (stats)
		atomic_fetch_add_explicit(in_mpi_io ? &st_nested : &st_calls, 1,
		                          memory_order_relaxed);
	if (in_mpi_io || !w)
		return;
	if (is_read && !atomic_load_explicit(&pace_reads, memory_order_relaxed))
		return;
	saved = errno;
	if (is_paced(fd))
		pace_now(w, is_read ? OP_READ : OP_WRITE);
	errno = saved;
}

/* The wrappers' common entry: cheap when off, errno untouched. */
static inline void pace(int fd, int is_read)
{
	if (__builtin_expect(
	        atomic_load_explicit(&active, memory_order_relaxed) != 0, 0))
		pace_slow(fd, is_read);
}

void tp_pacing_mpi_enter(int is_read)
{
	if (atomic_load_explicit(&active, memory_order_relaxed) && !in_mpi_io) {
		long long w =
		    atomic_load_explicit(&window_ns, memory_order_relaxed);
		int saved = errno;

		if (atomic_load_explicit(&stats_on, memory_order_relaxed))
			atomic_fetch_add_explicit(&st_mpi, 1,
			                          memory_order_relaxed);
		if (w && (!is_read || atomic_load_explicit(
		                          &pace_reads, memory_order_relaxed)))
			pace_now(w, is_read ? OP_MPI_READ : OP_MPI_WRITE);
		errno = saved;
	}
	in_mpi_io++;
}

void tp_pacing_mpi_leave(void)
{
	if (in_mpi_io > 0)
		in_mpi_io--;
}

/* Text output for stats_dump: no stdio, no allocation. */
struct outbuf {
	int fd, failed;
	size_t len;
	char text[4096];
};

static void out_flush(struct outbuf *o)
{
	ssize_t (*w)(int, const void *, size_t) = REAL(write);
	size_t done = 0;

	while (!o->failed && done < o->len) {
		ssize_t n = w ? w(o->fd, o->text + done, o->len - done) : -1;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->failed = 1;
		else
			done += (size_t)n;
	}
	o->len = 0;
}

/* TEXT, at most MAX bytes of it; with WORD, blanks become _ (one word per
 * value, e.g. a program name). */
static void out_str(struct outbuf *o, const char *text, size_t max, int word)
{
	for (; *text && max > 0; text++, max--) {
		if (o->len == sizeof(o->text))
			out_flush(o);
		o->text[o->len++] =
		    word && (*text == ' ' || *text == '\t' || *text == '\n')
		        ? '_'
		        : *text;
	}
}

static void out_num(struct outbuf *o, const char *key, long long value)
{
	char digits[24], *p = digits + sizeof(digits);
	unsigned long long v = value < 0 ? 0ULL - (unsigned long long)value
	                                 : (unsigned long long)value;

	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (value < 0)
		*--p = '-';
	out_str(o, key, 64, 0);
	out_str(o, p, 64, 0);
}

/* End a line.  Lines are shorter than 1024 bytes (a program name is cut
 * at 100), so they go out whole and records appended by several processes
 * interleave by lines at worst. */
static void out_line(struct outbuf *o)
{
	out_str(o, "\n", 1, 0);
	if (o->len > sizeof(o->text) - 1024)
		out_flush(o);
}

/*
 * At exit (exit(3), return from main; not _exit, a fatal signal or exec),
 * with statistics on: append to the statistics file one summary line
 *
 *   pacing pid=P prog=NAME window_us=W pace_reads=0|1 phase_us=PH
 *          calls=N mpi_calls=N
 *          nested=N requests=N paced=N delay_us=N recorded=N unrecorded=N
 *
 * (phase_us: the client's phase, -1 when off; calls: POSIX read/write calls
 * seen; mpi_calls: MPI-IO requests seen; nested: POSIX calls made inside an
 * MPI-IO request, exempt; requests: the requests the window applied to; paced:
 * those held back; delay_us: the time they were held back in total; recorded:
 * start lines that follow; unrecorded: requests beyond the table or still in
 * flight) and one line per recorded request start, in no particular order:
 *
 *   start pid=P tid=T ns=CLOCK_MONOTONIC op=write|read|mpi_write|mpi_read
 *         waited_ns=N
 *
 * Failing to write it costs one line on stderr, never the exit status;
 * errno is kept.
 */
__attribute__((destructor)) static void stats_dump(void)
{
	static const char *const op_name[] = {"write", "read", "mpi_write",
	                                      "mpi_read"};
	static struct outbuf o; /* static: the stack may be small */
	unsigned n, recorded = 0;
	int saved = errno, (*c)(int) = REAL(close);
	long long pid = (long long)getpid();

	if (!atomic_load(&stats_on))
		return;
	n = atomic_load(&st_slots);
	if (n > MAX_STARTS)
		n = MAX_STARTS;
	for (unsigned i = 0; i < n; i++)
		recorded += atomic_load_explicit(&st_start[i].done,
		                                 memory_order_acquire);
	o.failed = 0;
	o.len = 0;
	o.fd =
	    open(stats_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (o.fd < 0) {
		say("libtopoplace_pacing: cannot open the "
		    "TOPOPLACE_IO_PACING_STATS file: no statistics\n");
		errno = saved;
		return;
	}
	out_num(&o, "pacing pid=", pid);
	out_str(&o, " prog=", 64, 0);
	out_str(&o, program_invocation_short_name, 100, 1);
	out_num(&o, " window_us=", atomic_load(&window_ns) / 1000);
	out_num(&o, " pace_reads=", atomic_load(&pace_reads));
	out_num(&o, " phase_us=",
	        atomic_load(&phase_ns) < 0 ? -1
	                                   : atomic_load(&phase_ns) / 1000);
	out_num(&o, " calls=", (long long)atomic_load(&st_calls));
	out_num(&o, " mpi_calls=", (long long)atomic_load(&st_mpi));
	out_num(&o, " nested=", (long long)atomic_load(&st_nested));
	out_num(&o, " requests=", (long long)atomic_load(&st_requests));
	out_num(&o, " paced=", (long long)atomic_load(&st_paced));
	out_num(&o,
	        " delay_us=", (long long)(atomic_load(&st_delay_ns) / 1000));
	out_num(&o, " recorded=", recorded);
	out_num(&o, " unrecorded=",
	        (long long)atomic_load(&st_requests) - recorded);
	out_line(&o);
	for (unsigned i = 0; i < n; i++) {
		if (!atomic_load_explicit(&st_start[i].done,
		                          memory_order_acquire))
			continue;
		out_num(&o, "start pid=", pid);
		out_num(&o, " tid=", st_start[i].tid);
		out_num(&o, " ns=", st_start[i].ns);
		out_str(&o, " op=", 64, 0);
		out_str(&o, op_name[st_start[i].op & 3], 64, 0);
		out_num(&o, " waited_ns=", st_start[i].waited_ns);
		out_line(&o);
	}
	out_flush(&o);
	if (o.failed)
		say("libtopoplace_pacing: cannot write the "
		    "TOPOPLACE_IO_PACING_STATS file: statistics incomplete\n");
	if (c)
		c(o.fd);
	forget_fd(o.fd);
	errno = saved;
}

/* A missing real function (impossible with glibc) fails like the kernel
 * would for an unknown call. */
#define CALL(name, ...)                                                        \
	do {                                                                   \
		__typeof__(real_##name) f =                                    \
		    __atomic_load_n(&real_##name, __ATOMIC_RELAXED);           \
		if (__builtin_expect(f == NULL, 0)) {                          \
			f = resolve_##name();                                  \
			if (!f) {                                              \
				errno = ENOSYS;                                \
				return -1;                                     \
			}                                                      \
		}                                                              \
		return f(__VA_ARGS__);                                         \
	} while (0)

ssize_t write(int fd, const void *buf, size_t count)
{
	pace(fd, 0);
	CALL(write, fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	pace(fd, 0);
	CALL(pwrite, fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset)
{
	pace(fd, 0);
	CALL(pwrite64, fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	pace(fd, 0);
	CALL(writev, fd, iov, iovcnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset)
{
	pace(fd, 0);
	CALL(pwritev, fd, iov, iovcnt, offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t offset)
{
	pace(fd, 0);
	CALL(pwritev64, fd, iov, iovcnt, offset);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset,
                 int flags)
{
	pace(fd, 0);
	CALL(pwritev2, fd, iov, iovcnt, offset, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int iovcnt, off64_t offset,
                    int flags)
{
	pace(fd, 0);
	CALL(pwritev64v2, fd, iov, iovcnt, offset, flags);
}

ssize_t read(int fd, void *buf, size_t count)
{
	pace(fd, 1);
	CALL(read, fd, buf, count);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	pace(fd, 1);
	CALL(pread, fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off64_t offset)
{
	pace(fd, 1);
	CALL(pread64, fd, buf, count, offset);
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	pace(fd, 1);
	CALL(readv, fd, iov, iovcnt);
}

ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t offset)
{
	pace(fd, 1);
	CALL(preadv, fd, iov, iovcnt, offset);
}

ssize_t preadv64(int fd, const struct iovec *iov, int iovcnt, off64_t offset)
{
	pace(fd, 1);
	CALL(preadv64, fd, iov, iovcnt, offset);
}

ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset,
                int flags)
{
	pace(fd, 1);
	CALL(preadv2, fd, iov, iovcnt, offset, flags);
}

ssize_t preadv64v2(int fd, const struct iovec *iov, int iovcnt, off64_t offset,
                   int flags)
{
	pace(fd, 1);
	CALL(preadv64v2, fd, iov, iovcnt, offset, flags);
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	pace(fd, 1);
	CALL(__read_chk, fd, buf, count, buflen);
}

ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset,
                    size_t buflen)
{
	pace(fd, 1);
	CALL(__pread_chk, fd, buf, count, offset, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t offset,
                      size_t buflen)
{
	pace(fd, 1);
	CALL(__pread64_chk, fd, buf, count, offset, buflen);
}

/* Descriptor number reuse: forget what we knew about a closed number. */
int close(int fd)
{
	forget_fd(fd);
	CALL(close, fd);
}

int dup2(int oldfd, int newfd)
{
	forget_fd(newfd);
	CALL(dup2, oldfd, newfd);
}

int dup3(int oldfd, int newfd, int flags)
{
	forget_fd(newfd);
	CALL(dup3, oldfd, newfd, flags);
}

int close_range(unsigned first, unsigned last, int flags)
{
	for (unsigned fd = first; fd <= last && fd < FD_CACHE; fd++)
		forget_fd((int)fd);
	CALL(close_range, first, last, flags);
}

int fclose(FILE *stream)
{
	FILE *volatile checked = stream;
	int saved = errno, fd = checked ? fileno(checked) : -1;

	errno = saved;
	forget_fd(fd);
	CALL(fclose, stream);
}

int closedir(DIR *dir)
{
	/* glibc's closedir(NULL) fails with EINVAL; keep that. */
	DIR *volatile checked = dir;
	int saved = errno, fd = checked ? dirfd(checked) : -1;

	errno = saved;
	forget_fd(fd);
	CALL(closedir, dir);
}
