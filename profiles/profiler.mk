# profiles/profiler*: libtopoplace_profiler.so, the PMPI preload library
# that records a job's communication and I/O pattern (topoplace-profiler(7)).
# It is built once per MPI implementation (the handle ABI differs): here
# against Open MPI when configure found it; for MPICH, by hand:
#   mpicc.mpich -O2 -fPIC -shared -Wl,-z,defs -fvisibility=hidden -I. \
#     -Icommon -Iprofiles profiles/profiler*.c profiles/profile.c \
#     profiles/sha256.c profiles/store.c profiles/summary.c profiles/scale.c \
#     profiles/scale_rule.c profiles/exec_id.c profiles/app_identity.c \
#     profiles/munge_auth.c common/tp_error.c \
#     common/tp_log.c common/tp_file.c -lmunge -ldl -lpthread -o libtopoplace_profiler.so
if HAVE_MPI
# Installed to $(pkglibdir) for `topoplace profile record` and
# task/topoplace (--comm-record) to preload.  One build per MPI ABI: this
# one is Open MPI's.  tests/integration/slurm_record.sh and tools/demo
# preload this very file (profiles/.libs/libtopoplace_profiler.so: no RPATH,
# it needs only libmpi and libmunge) through task/topoplace; the
# profiler_*.sh tests build their own copies, also against MPICH.
pkglib_LTLIBRARIES += profiles/libtopoplace_profiler.la
profiles_libtopoplace_profiler_la_SOURCES = profiles/profiler.c \
	profiles/profiler_io.c profiles/profiler_fortran.c \
	profiles/profiler_internal.h \
	profiles/profile.c profiles/sha256.c profiles/store.c profiles/summary.c \
	profiles/scale.c profiles/scale_rule.c profiles/exec_id.c \
	profiles/app_identity.c \
	profiles/munge_auth.c common/tp_error.c common/tp_log.c common/tp_file.c
profiles_libtopoplace_profiler_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) \
	$(MUNGE_CFLAGS) -fvisibility=hidden
# -z defs: a symbol none of these files defines fails the build here, not
# the job whose ranks preload the library (under LD_BIND_NOW, at start).
profiles_libtopoplace_profiler_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,-z,defs
profiles_libtopoplace_profiler_la_LIBADD = $(MPI_LIBS) $(MUNGE_LIBS) -ldl -lpthread
endif

dist_man7_MANS += doc/topoplace-profiler.7
EXTRA_DIST += \
	tests/integration/profiler_lib.sh \
	tests/integration/mpi_patterns.c tests/integration/mpi_fortran.f90 \
	tests/integration/mpi_f08.f90 \
	bench/profiler_bench.sh bench/mpi_bench.c bench/profiler_same_counts.sh

# Real MPI runs with exact expected counts (skip without Open MPI).
TESTS += tests/integration/profiler_patterns.sh tests/integration/profiler_store.sh \
	tests/integration/profiler_mpich.sh
dist_check_SCRIPTS += tests/integration/profiler_patterns.sh \
	tests/integration/profiler_store.sh tests/integration/profiler_mpich.sh
