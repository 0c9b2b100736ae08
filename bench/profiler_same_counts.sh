#!/bin/bash
# profiler_same_counts.sh: does a change to libtopoplace_profiler.so record
# the same?  Runs deterministic MPI programs (bench/mpi_bench.c,
# tests/integration/mpi_patterns.c and the Fortran test programs, built
# from this tree) once with this tree's library and once with BASE_SRC's,
# and compares what each profile recorded, byte for byte: its matrix
# (`topoplace profile export --to matrix`, the header's runtime_s taken
# out) and `topoplace profile show` without what differs between any two
# runs (file, start, duration, executable path and hash, digest, I/O time
# and interval percentiles).  Open MPI, shared memory, one host.
#
#   BASE_SRC=DIR bench/profiler_same_counts.sh [BUILDDIR]
#       DIR: the sources to compare with, e.g. `git archive main | tar -x
#       -C DIR`; both libraries are built with BUILDDIR's tp_config.h.
#       env: CFLAGS_NEW="-D..." (extra flags for this tree's library, e.g.
#       -DTP_PROF_ROW_FLAT_MAX_RANKS=0), KEEP=1 (keep the outputs; the
#       directory is printed)
#
# Prints one line per workload ("same" or "DIFFERENT" and the diff) and
# exits 1 if any differs or fails to write its profile.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src}
: "${BASE_SRC:?BASE_SRC=DIR: the sources to compare with}"
base_src=$(cd "$BASE_SRC" && pwd) || exit 1
CFLAGS_NEW=${CFLAGS_NEW:-}
KEEP=${KEEP:-0}
cli=$build/tools/topoplace
[[ -x $cli ]] || {
	echo "$cli not built" >&2
	exit 1
}
T=$(mktemp -d /tmp/tp-samecounts.XXXXXX) || exit 1
((KEEP)) && echo "# outputs in $T" || trap 'rm -rf "$T"' EXIT

. "$src/bench/profiler_build.sh"
# shellcheck disable=SC2086 # CFLAGS_NEW: words
(mkdir -p "$T/new" && T=$T/new &&
	mpicc() { command mpicc $CFLAGS_NEW "$@"; } && profiler_build) || exit 1
(mkdir -p "$T/base" && T=$T/base && src=$base_src && profiler_build) ||
	exit 1
mpicc -O2 "$src/tests/integration/mpi_patterns.c" -pthread \
	-o "$T/mpi_patterns" || exit 1
cp "$T/new/mpi_bench" "$T/mpi_bench"
for f in mpi_fortran mpi_f08; do
	mpif90 -O2 "$src/tests/integration/$f.f90" -o "$T/$f" 2>/dev/null ||
		echo "# $f not built: not compared"
done

# NP PROGRAM ARGS (IODIR: a fresh directory for the I/O workload)
workloads=(
	"1 mpi_bench self 8 2000" "2 mpi_bench pingpong 8 1000"
	"2 mpi_bench alltoall 16 500" "2 mpi_bench stencil 8 5"
	"8 mpi_bench stencil 6 3" "4 mpi_patterns ring 20 400"
	"8 mpi_patterns stencil 5 4 5 6" "4 mpi_patterns alltoall 3 10"
	"3 mpi_patterns persistent 7 100 300" "6 mpi_patterns subcomm 4 10"
	"3 mpi_patterns threads 50 64" "2 mpi_patterns io IODIR 5 4096 3000"
	"4 mpi_patterns caches 5" "3 mpi_fortran 10 100" "3 mpi_f08 6 25"
)

# counts LIB OUT NP PROGRAM ARGS...: what one run recorded, into OUT.
counts() {
	local lib=$1 out=$2 np=$3 prog=$4 d f
	shift 4
	d=$(mktemp -d "$T/run.XXXXXX") && mkdir "$d/io" || return 1
	OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader \
		OMPI_MCA_mpi_yield_when_idle=1 mpirun --allow-run-as-root \
		--oversubscribe -np "$np" -x TOPOPLACE_PROFILE_DIR="$d" \
		-x TOPOPLACE_PROFILE_NAME=same -x LD_PRELOAD="$lib" \
		"$T/$prog" "${@/IODIR/$d/io}" >/dev/null 2>"$out.err" || return 1
	f=$(ls "$d"/*.tpp 2>/dev/null) && [[ -n $f ]] || return 1
	{
		"$cli" profile export --to matrix "$f" |
			sed '1s/ runtime_s=[0-9.]*//'
		"$cli" profile show --pairs 1000000 "$f" |
			grep -Ev '^(profile|start|duration|executable|digest):' |
			sed -E -e 's/, [0-9.]+ s, /, /' -e 's/, start-to-start.*//'
	} >"$out"
}

bad=0
for w in "${workloads[@]}"; do
	set -- $w
	[[ -x $T/$2 ]] || continue
	name=$(tr ' ' _ <<<"${*:2}")
	if ! counts "$T/new/libtopoplace_profiler.so" "$T/$name.new" "$@" ||
		! counts "$T/base/libtopoplace_profiler.so" "$T/$name.base" "$@"; then
		echo "FAILED     ${*:2} ($1): no profile; $(tail -n 2 "$T/$name".*.err 2>/dev/null | tr '\n' ' ')"
		bad=1
	elif cmp -s "$T/$name.base" "$T/$name.new"; then
		echo "same       ${*:2} ($1): $(sed -n 's/^matrix: *//p' "$T/$name.new")"
	else
		echo "DIFFERENT  ${*:2} ($1):"
		diff "$T/$name.base" "$T/$name.new" | sed 's/^/    /'
		bad=1
	fi
done
exit "$bad"
