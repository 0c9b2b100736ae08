#!/bin/bash
# profiler_mpich.sh: profiler_patterns.sh with Debian's MPICH (its own
# build of libtopoplace_profiler.so, mpiexec.mpich); skips without MPICH.
here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null; then
	# shellcheck source=../lib/bed.sh
	. "$abs_top_srcdir/tests/lib/bed.sh"
	tp_skip "MPICH not installed (mpich, libmpich-dev)"
fi
PROF_MPI=mpich exec bash "$abs_top_srcdir/tests/integration/profiler_patterns.sh"
