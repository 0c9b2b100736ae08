# profiler_build.sh: sourced by bench/profiler_bench.sh and
# bench/record_overhead_bench.sh: builds libtopoplace_profiler.so (not
# stripped: callgrind names its functions) and bench/mpi_bench.c into $T
# with Open MPI's mpicc, from the sources in $src and tp_config.h in $build.
# PROFILER_CFLAGS (words): more compiler flags for the library, e.g.
# -DTP_PROF_ROW_FLAT_MAX_RANKS=0 to measure the row of jobs above 4096
# ranks.  Returns non-zero if a build fails.
profiler_build() {
	# shellcheck disable=SC2086 # PROFILER_CFLAGS: words
	mpicc -std=gnu11 -O2 -fPIC -shared -Wl,-z,defs -fvisibility=hidden \
		${PROFILER_CFLAGS:-} \
		-I"$build" \
		-I"$src/common" -I"$src/profiles" "$src"/profiles/profiler.c \
		"$src"/profiles/profiler_io.c "$src"/profiles/profiler_fortran.c \
		"$src"/profiles/profile.c "$src"/profiles/sha256.c \
		"$src"/profiles/store.c "$src"/profiles/summary.c \
		"$src"/profiles/scale.c "$src"/profiles/scale_rule.c \
		"$src"/profiles/exec_id.c "$src"/profiles/app_identity.c \
		"$src"/profiles/munge_auth.c "$src"/common/tp_error.c \
		"$src"/common/tp_log.c "$src"/common/tp_file.c -lmunge -ldl \
		-lpthread -o "$T/libtopoplace_profiler.so" &&
		mpicc -O2 "$src/bench/mpi_bench.c" -o "$T/mpi_bench"
}
