#!/bin/bash
# bench_overhead_smoke.sh: bench/record_overhead_bench.sh (issue #18, the
# overhead of a recorded run) in its SMOKE mode: one small callgrind pair of
# bench/mpi_bench.c without and with libtopoplace_profiler.so and 3 wall
# pairs.  Passes when the counts are parsed, the profile is written, the
# preloaded run executes more instructions than the plain one, the
# profiler's own count is positive and no more than that difference, and
# the wall table has its rows (the bench's own checks, "ok:"/"FAIL:").
# About 40 s.  Skips (77) without mpicc, mpirun or valgrind.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
for c in mpicc mpirun valgrind; do
	command -v "$c" >/dev/null || tp_skip "$c not installed"
done

out=$(SMOKE=1 bash "$abs_top_srcdir/bench/record_overhead_bench.sh" \
	"$abs_top_builddir" 2>&1)
rc=$?
echo "$out"
[[ $rc == 0 ]] || {
	echo "FAIL: record_overhead_bench.sh SMOKE=1 exited $rc"
	exit 1
}
# Six checks of the counts and one of the wall table, none failed.
n_ok=$(grep -c '^ok: ' <<<"$out")
[[ $n_ok == 7 ]] && ! grep -q '^FAIL' <<<"$out" || {
	echo "FAIL: expected 7 'ok:' lines and no FAIL, got $n_ok"
	exit 1
}
echo "PASS: 7 checks"
