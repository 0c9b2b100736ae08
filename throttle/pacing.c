/*
 * pacing.c: libtopoplace_pacing.so, the I/O pacing preload library.
 *
 *   LD_PRELOAD=.../libtopoplace_pacing.so TOPOPLACE_IO_WINDOW_US=2000 ./app
 *
 * Every write request on a regular file (write, pwrite, writev, pwritev and
 * their 64-bit and v2 forms; also read, pread, readv, preadv with
 * TOPOPLACE_IO_PACE_READS=1) starts no earlier than the window after the
 * start of this process's previous request: the process is the client.
 * Nothing else changes: the real call gets the same arguments, its result
 * and errno are the caller's.  With the window unset or 0 every call goes
 * straight through after one relaxed load.
 *
 * Sleeps wake late; to keep intervals close to the window (the job pays
 * for every microsecond over it) the library learns how late and spins
 * the remainder of each wait on the clock (TOPOPLACE_IO_SPIN=0: sleep
 * only).
 *
 * Thread safety without a lock: the earliest allowed start of the next
 * request (next_start_ns) is claimed by compare-and-swap, so concurrent
 * threads get starts at least a window apart; after sleeping, a request
 * that woke late pushes next_start_ns to its real start + window.
 *
 * Which descriptors are regular files: fstat() once per descriptor, cached
 * for descriptors below FD_CACHE.  Descriptor numbers are reused, so the
 * cache entry is dropped by close, dup2, dup3, close_range, fclose and
 * closedir here; a descriptor closed behind our back (a raw syscall) may be
 * misclassified until it is closed again, which can only pace or not pace a
 * request, never change its result.  stdio writes (fwrite) reach the kernel
 * through glibc's internal write and are not paced.
 */
#include "tp_config.h"

/* The wrappers must call the plain functions, never the _chk variants. */
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pacing.h"

#define FD_CACHE      4096
#define MAX_WINDOW_US 3600000000LL
#define MAX_EARLY_NS  500000LL

enum { KIND_UNKNOWN = 0, KIND_REGULAR, KIND_OTHER };

/* Process-wide state: one client per process. */
static atomic_llong window_ns; /* 0: pass through */
static atomic_int pace_reads;
static atomic_llong next_start_ns; /* earliest start of the next request */
static _Atomic unsigned char fd_kind[FD_CACHE];
static _Thread_local int in_mpi_io; /* inside an MPI-IO call we paced */
static atomic_int spin;             /* aim sleeps early and spin the rest */
static atomic_llong wake_late_ns;   /* average lateness of a wake-up */

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

__attribute__((constructor)) static void pacing_init(void)
{
	const char *reads = getenv("TOPOPLACE_IO_PACE_READS");
	const char *spinning = getenv("TOPOPLACE_IO_SPIN");

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
	atomic_store(&spin, !(spinning && !strcmp(spinning, "0")));
	atomic_store(&next_start_ns, LLONG_MIN / 2);
	atomic_store(&window_ns,
	             parse_window_us(getenv("TOPOPLACE_IO_WINDOW_US")) * 1000);
}

static int is_regular(int fd)
{
	struct stat st;
	int kind;

	if (fd < 0)
		return 0;
	if (fd < FD_CACHE) {
		kind = atomic_load_explicit(&fd_kind[fd], memory_order_relaxed);
		if (kind != KIND_UNKNOWN)
			return kind == KIND_REGULAR;
	}
	if (fstat(fd, &st) != 0)
		return 0; /* the real call reports the bad descriptor */
	kind = S_ISREG(st.st_mode) ? KIND_REGULAR : KIND_OTHER;
	if (fd < FD_CACHE)
		atomic_store_explicit(&fd_kind[fd], (unsigned char)kind,
		                      memory_order_relaxed);
	return kind == KIND_REGULAR;
}

static void forget_fd(int fd)
{
	if (fd >= 0 && fd < FD_CACHE)
		atomic_store_explicit(&fd_kind[fd], KIND_UNKNOWN,
		                      memory_order_relaxed);
}

/* Wait until this request may start; claim the slot after it.
 *
 * A sleep wakes late (timer slack, scheduling: ~50-150 us on a VM), which
 * would make every interval longer than the window and the job pay for it.
 * So the sleep aims early by the lateness seen so far (an average kept in
 * wake_late_ns, at most MAX_EARLY_NS) and the rest is spun on the clock:
 * only the jitter of the wake-up is spent spinning.  TOPOPLACE_IO_SPIN=0
 * turns this off (plain sleep). */
static void pace_now(long long w)
{
	long long now = now_ns(), prev, start, actual, early, aim;
	struct timespec ts;

	prev = atomic_load(&next_start_ns);
	do
		start = prev > now ? prev : now;
	while (!atomic_compare_exchange_weak(&next_start_ns, &prev, start + w));
	if (start <= now)
		return;
	early = atomic_load_explicit(&spin, memory_order_relaxed)
	            ? atomic_load_explicit(&wake_late_ns, memory_order_relaxed)
	            : 0;
	aim = start - early;
	if (aim > now) {
		ts.tv_sec = (time_t)(aim / 1000000000LL);
		ts.tv_nsec = (long)(aim % 1000000000LL);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		                       NULL) == EINTR)
			;
		if (atomic_load_explicit(&spin, memory_order_relaxed)) {
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
	while ((actual = now_ns()) < start)
		cpu_relax();
	/* Woke late: the next start counts from the real one. */
	prev = atomic_load(&next_start_ns);
	while (prev < actual + w &&
	       !atomic_compare_exchange_weak(&next_start_ns, &prev, actual + w))
		;
}

/* The paced path, kept out of line so the wrappers' fast path (window
 * off) saves no registers and stays a load, a branch and a tail call. */
__attribute__((noinline, cold)) static void pace_slow(int fd, int is_read,
                                                      long long w)
{
	int saved;

	if (in_mpi_io)
		return;
	if (is_read && !atomic_load_explicit(&pace_reads, memory_order_relaxed))
		return;
	saved = errno;
	if (is_regular(fd))
		pace_now(w);
	errno = saved;
}

/* The wrappers' common entry: cheap when off, errno untouched. */
static inline void pace(int fd, int is_read)
{
	long long w = atomic_load_explicit(&window_ns, memory_order_relaxed);

	if (__builtin_expect(w != 0, 0))
		pace_slow(fd, is_read, w);
}

void tp_pacing_mpi_enter(int is_read)
{
	long long w = atomic_load_explicit(&window_ns, memory_order_relaxed);

	if (w && !in_mpi_io &&
	    (!is_read ||
	     atomic_load_explicit(&pace_reads, memory_order_relaxed))) {
		int saved = errno;

		pace_now(w);
		errno = saved;
	}
	in_mpi_io++;
}

void tp_pacing_mpi_leave(void)
{
	if (in_mpi_io > 0)
		in_mpi_io--;
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
