/*
 * profiler_fortran.c: the Fortran entry points of libtopoplace_profiler.so.
 *
 * Why they are needed: Open MPI's Fortran bindings (mpif.h, `use mpi`:
 * mpi_send_ in libmpi_mpifh, a weak alias of ompi_send_f; `use mpi_f08`
 * calls ompi_send_f directly) call the C PMPI_Send, never MPI_Send, so a
 * C-only PMPI library sees no Fortran traffic at all (checked on Open MPI
 * 4.1: `nm -D libmpi_mpifh.so` lists U PMPI_Send, PMPI_Init,
 * PMPI_Finalize...).  So the library defines the gfortran names (lower
 * case, one trailing underscore) and Open MPI's ompi_*_f names of the
 * calls it counts, records the call and runs the real one, found with
 * dlsym(RTLD_NEXT) under its mpi_*_ name.  While the real call runs,
 * tp_prof_depth is raised, so an MPI whose Fortran layer calls the C
 * MPI_Send instead (MPICH) is not counted twice.
 *
 * Covered: init, init_thread, finalize, the point-to-point sends, the
 * persistent sends with start, startall, request_free, comm_free, and
 * barrier, bcast, reduce, allreduce, alltoall, allgather, gather,
 * scatter.  Other Fortran calls run unrecorded.
 */
#include "tp_config.h"

#include <dlfcn.h>
#include <stddef.h>

#include "profiler_internal.h"

/*
 * The entry points below are called from Fortran code, which has no C
 * header to declare them in.
 */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

typedef MPI_Fint F;

/* The real entry point @name ("mpi_send_"), resolved once. */
static void *real(void **cache, const char *name)
{
	if (!*cache)
		*cache = dlsym(RTLD_NEXT, name);
	return *cache;
}

#define REAL_FN(name, type)                                                    \
	static void *cache_;                                                   \
	__typeof__(type) fn_ = (__typeof__(type))real(&cache_, name)

/* Open MPI's MPI_IN_PLACE for Fortran is the address of a common block. */
static int in_place(const void *buf)
{
	static void *addr;
	static int looked;

	if (!looked) {
		addr = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
		looked = 1;
	}
	return addr && buf == addr;
}

static uint64_t fbytes(const F *count, const F *type)
{
	return tp_prof_type_bytes(*count, PMPI_Type_f2c(*type));
}

#define ALIAS(target) __attribute__((alias(#target)))

/* ---- init and finalize ------------------------------------------------- */

TP_EXPORT void mpi_init_(F *ierr)
{
	REAL_FN("mpi_init_", void (*)(F *));
	tp_prof_depth++;
	fn_(ierr);
	tp_prof_depth--;
	if (*ierr == MPI_SUCCESS)
		tp_prof_on_init(MPI_THREAD_SINGLE);
}
TP_EXPORT void ompi_init_f(F *ierr) ALIAS(mpi_init_);

TP_EXPORT void mpi_init_thread_(F *required, F *provided, F *ierr)
{
	REAL_FN("mpi_init_thread_", void (*)(F *, F *, F *));
	tp_prof_depth++;
	fn_(required, provided, ierr);
	tp_prof_depth--;
	if (*ierr == MPI_SUCCESS)
		tp_prof_on_init(*provided);
}
TP_EXPORT void ompi_init_thread_f(F *required, F *provided, F *ierr)
    ALIAS(mpi_init_thread_);

TP_EXPORT void mpi_finalize_(F *ierr)
{
	REAL_FN("mpi_finalize_", void (*)(F *));
	tp_prof_on_finalize();
	tp_prof_depth++;
	fn_(ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_finalize_f(F *ierr) ALIAS(mpi_finalize_);

/* ---- point-to-point ---------------------------------------------------- */

static void fsend(const F *count, const F *type, const F *dest, const F *comm)
{
	if (!tp_prof_depth)
		tp_prof_send(PMPI_Comm_f2c(*comm), *dest, *count,
		             PMPI_Type_f2c(*type));
}

#define F_SEND(lname)                                                          \
	TP_EXPORT void mpi_##lname##_(void *buf, F *count, F *type, F *dest,   \
	                              F *tag, F *comm, F *ierr)                \
	{                                                                      \
		REAL_FN("mpi_" #lname "_",                                     \
		        void (*)(void *, F *, F *, F *, F *, F *, F *));       \
		fsend(count, type, dest, comm);                                \
		tp_prof_depth++;                                               \
		fn_(buf, count, type, dest, tag, comm, ierr);                  \
		tp_prof_depth--;                                               \
	}                                                                      \
	TP_EXPORT void ompi_##lname##_f(void *buf, F *count, F *type, F *dest, \
	                                F *tag, F *comm, F *ierr)              \
	    ALIAS(mpi_##lname##_);

#define F_ISEND(lname)                                                         \
	TP_EXPORT void mpi_##lname##_(void *buf, F *count, F *type, F *dest,   \
	                              F *tag, F *comm, F *req, F *ierr)        \
	{                                                                      \
		REAL_FN("mpi_" #lname "_",                                     \
		        void (*)(void *, F *, F *, F *, F *, F *, F *, F *));  \
		fsend(count, type, dest, comm);                                \
		tp_prof_depth++;                                               \
		fn_(buf, count, type, dest, tag, comm, req, ierr);             \
		tp_prof_depth--;                                               \
	}                                                                      \
	TP_EXPORT void ompi_##lname##_f(void *buf, F *count, F *type, F *dest, \
	                                F *tag, F *comm, F *req, F *ierr)      \
	    ALIAS(mpi_##lname##_);

#define F_SEND_INIT(lname)                                                     \
	TP_EXPORT void mpi_##lname##_(void *buf, F *count, F *type, F *dest,   \
	                              F *tag, F *comm, F *req, F *ierr)        \
	{                                                                      \
		REAL_FN("mpi_" #lname "_",                                     \
		        void (*)(void *, F *, F *, F *, F *, F *, F *, F *));  \
		int outer = !tp_prof_depth;                                    \
		tp_prof_depth++;                                               \
		fn_(buf, count, type, dest, tag, comm, req, ierr);             \
		tp_prof_depth--;                                               \
		if (outer && *ierr == MPI_SUCCESS)                             \
			tp_prof_persistent_add(PMPI_Request_f2c(*req),         \
			                       PMPI_Comm_f2c(*comm), *dest,    \
			                       *count, PMPI_Type_f2c(*type));  \
	}                                                                      \
	TP_EXPORT void ompi_##lname##_f(void *buf, F *count, F *type, F *dest, \
	                                F *tag, F *comm, F *req, F *ierr)      \
	    ALIAS(mpi_##lname##_);

F_SEND(send)
F_SEND(bsend)
F_SEND(ssend)
F_SEND(rsend)
F_ISEND(isend)
F_ISEND(ibsend)
F_ISEND(issend)
F_ISEND(irsend)
F_SEND_INIT(send_init)
F_SEND_INIT(bsend_init)
F_SEND_INIT(ssend_init)
F_SEND_INIT(rsend_init)

TP_EXPORT void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag,
                             void *rbuf, F *rcount, F *rtype, F *source,
                             F *rtag, F *comm, F *status, F *ierr)
{
	REAL_FN("mpi_sendrecv_", void (*)(void *, F *, F *, F *, F *, void *,
	                                  F *, F *, F *, F *, F *, F *, F *));
	fsend(scount, stype, dest, comm);
	tp_prof_depth++;
	fn_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
	    comm, status, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_sendrecv_f(void *sbuf, F *scount, F *stype, F *dest,
                               F *stag, void *rbuf, F *rcount, F *rtype,
                               F *source, F *rtag, F *comm, F *status, F *ierr)
    ALIAS(mpi_sendrecv_);

TP_EXPORT void mpi_sendrecv_replace_(void *buf, F *count, F *type, F *dest,
                                     F *stag, F *source, F *rtag, F *comm,
                                     F *status, F *ierr)
{
	REAL_FN("mpi_sendrecv_replace_",
	        void (*)(void *, F *, F *, F *, F *, F *, F *, F *, F *, F *));
	fsend(count, type, dest, comm);
	tp_prof_depth++;
	fn_(buf, count, type, dest, stag, source, rtag, comm, status, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_sendrecv_replace_f(void *buf, F *count, F *type, F *dest,
                                       F *stag, F *source, F *rtag, F *comm,
                                       F *status, F *ierr)
    ALIAS(mpi_sendrecv_replace_);

TP_EXPORT void mpi_start_(F *req, F *ierr)
{
	REAL_FN("mpi_start_", void (*)(F *, F *));
	if (!tp_prof_depth)
		tp_prof_start(PMPI_Request_f2c(*req));
	tp_prof_depth++;
	fn_(req, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_start_f(F *req, F *ierr) ALIAS(mpi_start_);

TP_EXPORT void mpi_startall_(F *count, F *reqs, F *ierr)
{
	REAL_FN("mpi_startall_", void (*)(F *, F *, F *));
	int i;

	if (!tp_prof_depth)
		for (i = 0; i < *count; i++)
			tp_prof_start(PMPI_Request_f2c(reqs[i]));
	tp_prof_depth++;
	fn_(count, reqs, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_startall_f(F *count, F *reqs, F *ierr) ALIAS(mpi_startall_);

TP_EXPORT void mpi_request_free_(F *req, F *ierr)
{
	REAL_FN("mpi_request_free_", void (*)(F *, F *));
	tp_prof_request_free(PMPI_Request_f2c(*req));
	tp_prof_depth++;
	fn_(req, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_request_free_f(F *req, F *ierr) ALIAS(mpi_request_free_);

TP_EXPORT void mpi_comm_free_(F *comm, F *ierr)
{
	REAL_FN("mpi_comm_free_", void (*)(F *, F *));
	tp_prof_comm_free(PMPI_Comm_f2c(*comm));
	tp_prof_depth++;
	fn_(comm, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_comm_free_f(F *comm, F *ierr) ALIAS(mpi_comm_free_);

/* ---- collectives (bytes as in the C wrappers) -------------------------- */

static void fcoll(enum tp_prof_coll id, uint64_t bytes)
{
	if (!tp_prof_depth)
		tp_prof_coll(id, bytes);
}

static int is_root(const F *root, const F *comm)
{
	return *root == MPI_ROOT ||
	       tp_prof_comm_rank(PMPI_Comm_f2c(*comm)) == *root;
}

TP_EXPORT void mpi_barrier_(F *comm, F *ierr)
{
	REAL_FN("mpi_barrier_", void (*)(F *, F *));
	fcoll(TP_COLL_BARRIER, 0);
	tp_prof_depth++;
	fn_(comm, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_barrier_f(F *comm, F *ierr) ALIAS(mpi_barrier_);

TP_EXPORT void mpi_bcast_(void *buf, F *count, F *type, F *root, F *comm,
                          F *ierr)
{
	REAL_FN("mpi_bcast_", void (*)(void *, F *, F *, F *, F *, F *));
	if (!tp_prof_depth)
		fcoll(TP_COLL_BCAST,
		      is_root(root, comm) ? fbytes(count, type) : 0);
	tp_prof_depth++;
	fn_(buf, count, type, root, comm, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_bcast_f(void *buf, F *count, F *type, F *root, F *comm,
                            F *ierr) ALIAS(mpi_bcast_);

TP_EXPORT void mpi_reduce_(void *sbuf, void *rbuf, F *count, F *type, F *op,
                           F *root, F *comm, F *ierr)
{
	REAL_FN("mpi_reduce_",
	        void (*)(void *, void *, F *, F *, F *, F *, F *, F *));
	if (!tp_prof_depth)
		fcoll(TP_COLL_REDUCE, fbytes(count, type));
	tp_prof_depth++;
	fn_(sbuf, rbuf, count, type, op, root, comm, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_reduce_f(void *sbuf, void *rbuf, F *count, F *type, F *op,
                             F *root, F *comm, F *ierr) ALIAS(mpi_reduce_);

TP_EXPORT void mpi_allreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op,
                              F *comm, F *ierr)
{
	REAL_FN("mpi_allreduce_",
	        void (*)(void *, void *, F *, F *, F *, F *, F *));
	if (!tp_prof_depth)
		fcoll(TP_COLL_ALLREDUCE, fbytes(count, type));
	tp_prof_depth++;
	fn_(sbuf, rbuf, count, type, op, comm, ierr);
	tp_prof_depth--;
}
TP_EXPORT void ompi_allreduce_f(void *sbuf, void *rbuf, F *count, F *type,
                                F *op, F *comm, F *ierr) ALIAS(mpi_allreduce_);

/* Send-side bytes of one block: recv's when the send buffer is in place. */
static uint64_t block(const void *sbuf, const F *scount, const F *stype,
                      const F *rcount, const F *rtype)
{
	return in_place(sbuf) ? fbytes(rcount, rtype) : fbytes(scount, stype);
}

#define F_GATHERLIKE(lname, ID, BYTES)                                         \
	TP_EXPORT void mpi_##lname##_(void *sbuf, F *scount, F *stype,         \
	                              void *rbuf, F *rcount, F *rtype,         \
	                              F *comm, F *ierr)                        \
	{                                                                      \
		REAL_FN("mpi_" #lname "_", void (*)(void *, F *, F *, void *,  \
		                                    F *, F *, F *, F *));      \
		if (!tp_prof_depth)                                            \
			fcoll(ID, BYTES);                                      \
		tp_prof_depth++;                                               \
		fn_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);     \
		tp_prof_depth--;                                               \
	}                                                                      \
	TP_EXPORT void ompi_##lname##_f(                                       \
	    void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype,  \
	    F *comm, F *ierr) ALIAS(mpi_##lname##_);

F_GATHERLIKE(alltoall, TP_COLL_ALLTOALL,
             block(sbuf, scount, stype, rcount, rtype) *
                 (uint64_t)tp_prof_comm_peers(PMPI_Comm_f2c(*comm)))
F_GATHERLIKE(allgather, TP_COLL_ALLGATHER,
             block(sbuf, scount, stype, rcount, rtype))

#define F_ROOTED(lname, ID, BYTES)                                             \
	TP_EXPORT void mpi_##lname##_(void *sbuf, F *scount, F *stype,         \
	                              void *rbuf, F *rcount, F *rtype,         \
	                              F *root, F *comm, F *ierr)               \
	{                                                                      \
		REAL_FN("mpi_" #lname "_", void (*)(void *, F *, F *, void *,  \
		                                    F *, F *, F *, F *, F *)); \
		if (!tp_prof_depth)                                            \
			fcoll(ID, BYTES);                                      \
		tp_prof_depth++;                                               \
		fn_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm,      \
		    ierr);                                                     \
		tp_prof_depth--;                                               \
	}                                                                      \
	TP_EXPORT void ompi_##lname##_f(                                       \
	    void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype,  \
	    F *root, F *comm, F *ierr) ALIAS(mpi_##lname##_);

F_ROOTED(gather, TP_COLL_GATHER, block(sbuf, scount, stype, rcount, rtype))
F_ROOTED(scatter, TP_COLL_SCATTER,
         is_root(root, comm)
             ? fbytes(scount, stype) *
                   (uint64_t)tp_prof_comm_peers(PMPI_Comm_f2c(*comm))
             : 0)
