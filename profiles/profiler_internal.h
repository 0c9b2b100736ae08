/*
 * profiler_internal.h: what the parts of libtopoplace_profiler.so (the PMPI
 * preload library, see topoplace-profiler(7)) share.  Not a public API:
 * the library exports only the MPI, Fortran and POSIX symbols it wraps.
 *
 * profiler.c        state, point-to-point and collective counting, the
 *                   gather and the write at MPI_Finalize, C wrappers
 * profiler_io.c     POSIX and MPI-IO request recording
 * profiler_fortran.c Fortran (mpif.h / use mpi) entry points
 */
#ifndef TP_PROFILER_INTERNAL_H
#define TP_PROFILER_INTERNAL_H

#include <mpi.h>
#include <stdint.h>

/* Every wrapper is exported even though the library builds hidden. */
#define TP_EXPORT __attribute__((visibility("default")))
#define TP_HIDDEN __attribute__((visibility("hidden")))

/*
 * > 0 while this thread is inside a wrapper that records its own call
 * (a Fortran entry point, an MPI-IO call): the C and POSIX wrappers the
 * MPI library reaches underneath must not count it a second time.
 */
/*
 * initial-exec: the library is preloaded (LD_PRELOAD by the task plugin),
 * so its TLS is in the static block, and every wrapped call reads this
 * without a __tls_get_addr call (11 of the ~200 instructions a recorded
 * call costs, bench/RESULTS.md "Recorded run overhead").
 */
#define TP_PRELOAD_TLS __attribute__((tls_model("initial-exec")))

extern __thread int tp_prof_depth TP_HIDDEN TP_PRELOAD_TLS;

/* Collectives counted, in the order of tp_prof_coll_names. */
enum tp_prof_coll {
	TP_COLL_ALLGATHER,
	TP_COLL_ALLGATHERV,
	TP_COLL_ALLREDUCE,
	TP_COLL_ALLTOALL,
	TP_COLL_ALLTOALLV,
	TP_COLL_ALLTOALLW,
	TP_COLL_BARRIER,
	TP_COLL_BCAST,
	TP_COLL_EXSCAN,
	TP_COLL_GATHER,
	TP_COLL_GATHERV,
	TP_COLL_IALLGATHER,
	TP_COLL_IALLREDUCE,
	TP_COLL_IALLTOALL,
	TP_COLL_IBARRIER,
	TP_COLL_IBCAST,
	TP_COLL_IREDUCE,
	TP_COLL_REDUCE,
	TP_COLL_REDUCE_SCATTER,
	TP_COLL_REDUCE_SCATTER_BLOCK,
	TP_COLL_SCAN,
	TP_COLL_SCATTER,
	TP_COLL_SCATTERV,
	TP_COLL_COUNT
};

/* Called once MPI is initialised (C or Fortran MPI_Init*). */
void tp_prof_on_init(int thread_level) TP_HIDDEN;
/* Gather and write the profile; called before PMPI_Finalize. */
void tp_prof_on_finalize(void) TP_HIDDEN;

/* count x size of @type, 0 for MPI_DATATYPE_NULL or a negative count. */
uint64_t tp_prof_type_bytes(int count, MPI_Datatype type) TP_HIDDEN;

/* One point-to-point send of @count @type to @dest of @comm. */
void tp_prof_send(MPI_Comm comm, int dest, int count,
                  MPI_Datatype type) TP_HIDDEN;
/* A persistent send request was made / started / freed. */
void tp_prof_persistent_add(MPI_Request req, MPI_Comm comm, int dest, int count,
                            MPI_Datatype type) TP_HIDDEN;
void tp_prof_start(MPI_Request req) TP_HIDDEN;
void tp_prof_request_free(MPI_Request req) TP_HIDDEN;
/* @comm is being freed: drop its rank translation. */
void tp_prof_comm_free(MPI_Comm comm) TP_HIDDEN;

/* One call of collective @coll putting @bytes into it from this rank. */
void tp_prof_coll(enum tp_prof_coll coll, uint64_t bytes) TP_HIDDEN;

/* Send-side bytes of the common collectives (shared with Fortran). */
int tp_prof_comm_rank(MPI_Comm comm) TP_HIDDEN;
int tp_prof_comm_peers(MPI_Comm comm) TP_HIDDEN;

/* Monotonic clock, nanoseconds. */
uint64_t tp_prof_now_ns(void) TP_HIDDEN;

/* I/O: is recording on (between MPI_Init and MPI_Finalize)? */
int tp_prof_io_on(void) TP_HIDDEN;
/* One I/O request of @bytes that ran from @start_ns to @end_ns. */
void tp_prof_io_record(int is_write, uint64_t bytes, uint64_t start_ns,
                       uint64_t end_ns) TP_HIDDEN;

/* This rank's I/O totals and interval percentiles, for the gather. */
struct tp_prof_io_local {
	uint64_t requests, read_bytes, write_bytes, time_us;
	uint64_t hist[48]; /* TP_PROFILE_IO_BUCKETS */
	uint64_t p10_us, p50_us, p90_us, p99_us;
};
/* Fills @out and frees the interval samples (at MPI_Finalize). */
void tp_prof_io_summary(struct tp_prof_io_local *out) TP_HIDDEN;

#endif /* TP_PROFILER_INTERNAL_H */
