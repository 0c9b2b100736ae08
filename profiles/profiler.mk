# profiles/profiler*: libtopoplace_profiler.so, the PMPI preload library
# that records a job's communication and I/O pattern (topoplace-profiler(7)).
#
# It needs mpi.h and an MPI library, and must be built once per MPI
# implementation (the handle ABI differs), so until configure offers an MPI
# conditional it is not an automake target: the tests build it with
# mpicc (tests/integration/profiler_lib.sh), and so can users:
#   mpicc -O2 -fPIC -shared -fvisibility=hidden -I. -Iplacement -Iprofiles \
#     profiles/profiler*.c profiles/profile.c profiles/sha256.c \
#     profiles/store.c profiles/munge_auth.c placement/tp_error.c \
#     placement/tp_log.c -lmunge -ldl -lpthread -o libtopoplace_profiler.so
EXTRA_DIST += profiles/profiler.c profiles/profiler_io.c \
	profiles/profiler_fortran.c profiles/profiler_internal.h \
	doc/topoplace-profiler.7 \
	tests/integration/profiler_lib.sh \
	tests/integration/mpi_patterns.c tests/integration/mpi_fortran.f90 \
	bench/profiler_bench.sh bench/mpi_bench.c

# Real MPI runs with exact expected counts (skip without Open MPI).
TESTS += tests/integration/profiler_patterns.sh tests/integration/profiler_store.sh
dist_check_SCRIPTS += tests/integration/profiler_patterns.sh \
	tests/integration/profiler_store.sh
