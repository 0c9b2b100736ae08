/*
 * profiler_io.c: the I/O half of libtopoplace_profiler.so: every MPI-IO
 * read and write (MPI_File_read*, MPI_File_write*, blocking and not) and
 * every POSIX write, pwrite, read, pread (and the 64-bit forms) on a
 * regular file, made between MPI_Init and MPI_Finalize, is one request of
 * this rank (the I/O client).  Recorded: the request size histogram
 * (profile.h buckets), bytes read and written, time spent in the calls,
 * and the start-to-start intervals, summarised at MPI_Finalize as the
 * 10th/50th/90th/99th percentiles (nearest rank).
 *
 * MPI-IO requests count their requested size (count x type size) when the
 * call is issued; the POSIX calls the MPI library makes underneath are not
 * counted again (tp_prof_depth).  POSIX requests count the bytes the call
 * returned; failed calls are not requests.  stdio (fwrite) reaches the
 * kernel through glibc's internal write and is not seen.
 *
 * Memory: the intervals of the first INTERVALS_MAX requests are kept
 * exactly; beyond that a uniform reservoir sample of that size is kept, so
 * the percentiles of very long runs are estimates and memory stays
 * bounded.
 */
#include "tp_config.h"

/* The wrappers must be the plain functions, never the _chk variants. */
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "profile.h"
#include "profiler_internal.h"

#define INTERVALS_MAX 65536

static struct {
	uint64_t requests, read_bytes, write_bytes, time_ns;
	uint64_t hist[TP_PROFILE_IO_BUCKETS];
	uint64_t last_start_ns;
	uint64_t seen; /* intervals seen (reservoir) */
	uint64_t rng;
	size_t count;
	uint64_t *intervals_ns; /* INTERVALS_MAX, allocated on first use */
	int no_memory;
} IO = {.rng = 0x9e3779b97f4a7c15ULL};

/* Any thread may do POSIX I/O; a request costs a syscall anyway. */
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;

static int bucket(uint64_t bytes)
{
	int b = 0;

	if (bytes < 2)
		return 0;
	while (bytes >> (b + 1))
		b++;
	return b < TP_PROFILE_IO_BUCKETS ? b : TP_PROFILE_IO_BUCKETS - 1;
}

static uint64_t xorshift(void)
{
	IO.rng ^= IO.rng << 13;
	IO.rng ^= IO.rng >> 7;
	IO.rng ^= IO.rng << 17;
	return IO.rng;
}

static void add_interval(uint64_t ns)
{
	uint64_t j;

	if (!IO.intervals_ns && !IO.no_memory) {
		IO.intervals_ns = malloc(INTERVALS_MAX * sizeof(uint64_t));
		IO.no_memory = !IO.intervals_ns;
	}
	if (!IO.intervals_ns)
		return;
	IO.seen++;
	if (IO.count < INTERVALS_MAX) {
		IO.intervals_ns[IO.count++] = ns;
		return;
	}
	j = xorshift() % IO.seen;
	if (j < INTERVALS_MAX)
		IO.intervals_ns[j] = ns;
}

void tp_prof_io_record(int is_write, uint64_t bytes, uint64_t start_ns,
                       uint64_t end_ns)
{
	pthread_mutex_lock(&io_lock);
	if (IO.requests)
		add_interval(start_ns - IO.last_start_ns);
	IO.last_start_ns = start_ns;
	IO.requests++;
	if (is_write)
		IO.write_bytes += bytes;
	else
		IO.read_bytes += bytes;
	IO.time_ns += end_ns - start_ns;
	IO.hist[bucket(bytes)]++;
	pthread_mutex_unlock(&io_lock);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least @pct % at or below it. */
static uint64_t percentile_us(int pct)
{
	size_t k = (IO.count * (size_t)pct + 99) / 100;

	return IO.intervals_ns[k ? k - 1 : 0] / 1000;
}

void tp_prof_io_summary(struct tp_prof_io_local *out)
{
	pthread_mutex_lock(&io_lock);
	memset(out, 0, sizeof(*out));
	out->requests = IO.requests;
	out->read_bytes = IO.read_bytes;
	out->write_bytes = IO.write_bytes;
	out->time_us = IO.time_ns / 1000;
	memcpy(out->hist, IO.hist, sizeof(out->hist));
	if (IO.count && IO.intervals_ns) {
		qsort(IO.intervals_ns, IO.count, sizeof(uint64_t), cmp_u64);
		out->p10_us = percentile_us(10);
		out->p50_us = percentile_us(50);
		out->p90_us = percentile_us(90);
		out->p99_us = percentile_us(99);
	}
	free(IO.intervals_ns);
	IO.intervals_ns = NULL;
	IO.count = 0;
	pthread_mutex_unlock(&io_lock);
}

/* ---- POSIX ----------------------------------------------------------- */

static int regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

#define REAL(name, ret, args)                                                  \
	static ret(*real_##name) args;                                         \
	if (!real_##name)                                                      \
	*(void **)&real_##name = dlsym(RTLD_NEXT, #name)

/* Run CALL, recording it as a request when it is one of the job's. */
#define POSIX_IO(IS_WRITE, CALL)                                               \
	do {                                                                   \
		uint64_t t0;                                                   \
		ssize_t r;                                                     \
		if (!tp_prof_io_on() || tp_prof_depth || !regular(fd))         \
			return CALL;                                           \
		t0 = tp_prof_now_ns();                                         \
		r = CALL;                                                      \
		if (r >= 0)                                                    \
			tp_prof_io_record(IS_WRITE, (uint64_t)r, t0,           \
			                  tp_prof_now_ns());                   \
		return r;                                                      \
	} while (0)

TP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write, ssize_t, (int, const void *, size_t));
	POSIX_IO(1, real_write(fd, buf, n));
}

TP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	REAL(read, ssize_t, (int, void *, size_t));
	POSIX_IO(0, real_read(fd, buf, n));
}

TP_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite, ssize_t, (int, const void *, size_t, off_t));
	POSIX_IO(1, real_pwrite(fd, buf, n, off));
}

TP_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REAL(pread, ssize_t, (int, void *, size_t, off_t));
	POSIX_IO(0, real_pread(fd, buf, n, off));
}

TP_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	REAL(pwrite64, ssize_t, (int, const void *, size_t, off64_t));
	POSIX_IO(1, real_pwrite64(fd, buf, n, off));
}

TP_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	REAL(pread64, ssize_t, (int, void *, size_t, off64_t));
	POSIX_IO(0, real_pread64(fd, buf, n, off));
}

/* ---- MPI-IO ------------------------------------------------------------ */

/* Record the call (unless nested), run it with POSIX recording off. */
#define MPIIO(IS_WRITE, PCALL)                                                 \
	do {                                                                   \
		int outer = !tp_prof_depth && tp_prof_io_on(), rc;             \
		uint64_t t0 = outer ? tp_prof_now_ns() : 0;                    \
		tp_prof_depth++;                                               \
		rc = PCALL;                                                    \
		tp_prof_depth--;                                               \
		if (outer && rc == MPI_SUCCESS)                                \
			tp_prof_io_record(IS_WRITE,                            \
			                  tp_prof_type_bytes(count, datatype), \
			                  t0, tp_prof_now_ns());               \
		return rc;                                                     \
	} while (0)

#define W_PARAMS                                                               \
	(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,       \
	 MPI_Status *status)
#define W_ARGS (fh, buf, count, datatype, status)
#define R_PARAMS                                                               \
	(MPI_File fh, void *buf, int count, MPI_Datatype datatype,             \
	 MPI_Status *status)
#define WAT_PARAMS                                                             \
	(MPI_File fh, MPI_Offset offset, const void *buf, int count,           \
	 MPI_Datatype datatype, MPI_Status *status)
#define WAT_ARGS (fh, offset, buf, count, datatype, status)
#define RAT_PARAMS                                                             \
	(MPI_File fh, MPI_Offset offset, void *buf, int count,                 \
	 MPI_Datatype datatype, MPI_Status *status)
#define IW_PARAMS                                                              \
	(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,       \
	 MPI_Request *request)
#define IW_ARGS (fh, buf, count, datatype, request)
#define IR_PARAMS                                                              \
	(MPI_File fh, void *buf, int count, MPI_Datatype datatype,             \
	 MPI_Request *request)
#define IWAT_PARAMS                                                            \
	(MPI_File fh, MPI_Offset offset, const void *buf, int count,           \
	 MPI_Datatype datatype, MPI_Request *request)
#define IWAT_ARGS (fh, offset, buf, count, datatype, request)
#define IRAT_PARAMS                                                            \
	(MPI_File fh, MPI_Offset offset, void *buf, int count,                 \
	 MPI_Datatype datatype, MPI_Request *request)

#define MPIIO_WRAPPER(NAME, IS_WRITE, PARAMS, ARGS)                            \
	TP_EXPORT int MPI_File_##NAME PARAMS                                   \
	{                                                                      \
		MPIIO(IS_WRITE, PMPI_File_##NAME ARGS);                        \
	}

MPIIO_WRAPPER(write, 1, W_PARAMS, W_ARGS)
MPIIO_WRAPPER(write_all, 1, W_PARAMS, W_ARGS)
MPIIO_WRAPPER(write_shared, 1, W_PARAMS, W_ARGS)
MPIIO_WRAPPER(write_ordered, 1, W_PARAMS, W_ARGS)
MPIIO_WRAPPER(write_at, 1, WAT_PARAMS, WAT_ARGS)
MPIIO_WRAPPER(write_at_all, 1, WAT_PARAMS, WAT_ARGS)
MPIIO_WRAPPER(iwrite, 1, IW_PARAMS, IW_ARGS)
MPIIO_WRAPPER(iwrite_shared, 1, IW_PARAMS, IW_ARGS)
MPIIO_WRAPPER(iwrite_at, 1, IWAT_PARAMS, IWAT_ARGS)
MPIIO_WRAPPER(read, 0, R_PARAMS, W_ARGS)
MPIIO_WRAPPER(read_all, 0, R_PARAMS, W_ARGS)
MPIIO_WRAPPER(read_shared, 0, R_PARAMS, W_ARGS)
MPIIO_WRAPPER(read_ordered, 0, R_PARAMS, W_ARGS)
MPIIO_WRAPPER(read_at, 0, RAT_PARAMS, WAT_ARGS)
MPIIO_WRAPPER(read_at_all, 0, RAT_PARAMS, WAT_ARGS)
MPIIO_WRAPPER(iread, 0, IR_PARAMS, IW_ARGS)
MPIIO_WRAPPER(iread_shared, 0, IR_PARAMS, IW_ARGS)
MPIIO_WRAPPER(iread_at, 0, IRAT_PARAMS, IWAT_ARGS)

/*
 * Calls that are not requests but may do POSIX I/O underneath (Open MPI's
 * ompio and sharedfp write their own bookkeeping files): not counted.
 */
#define QUIET(PCALL)                                                           \
	do {                                                                   \
		int rc;                                                        \
		tp_prof_depth++;                                               \
		rc = PCALL;                                                    \
		tp_prof_depth--;                                               \
		return rc;                                                     \
	} while (0)

TP_EXPORT int MPI_File_open(MPI_Comm comm, const char *filename, int amode,
                            MPI_Info info, MPI_File *fh)
{
	QUIET(PMPI_File_open(comm, filename, amode, info, fh));
}

TP_EXPORT int MPI_File_close(MPI_File *fh)
{
	QUIET(PMPI_File_close(fh));
}

TP_EXPORT int MPI_File_sync(MPI_File fh)
{
	QUIET(PMPI_File_sync(fh));
}

TP_EXPORT int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
	QUIET(PMPI_File_set_size(fh, size));
}

TP_EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp,
                                MPI_Datatype etype, MPI_Datatype filetype,
                                const char *datarep, MPI_Info info)
{
	QUIET(PMPI_File_set_view(fh, disp, etype, filetype, datarep, info));
}
