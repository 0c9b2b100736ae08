#!/bin/bash
# profiler_bench.sh: overhead of libtopoplace_profiler.so, side by side in
# one run: each workload of bench/mpi_bench.c runs REPS times without and
# with the preload, interleaved (so drift hits both alike); prints the
# median timed-loop seconds of each and their ratio.  Figures only, no
# pass/fail.  Results: bench/RESULTS.md ("Profiler overhead").
#
#   bench/profiler_bench.sh [BUILDDIR]     (env: REPS=7 NP=2)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src}
REPS=${REPS:-7}
NP=${NP:-2}
T=$(mktemp -d /tmp/tp-profbench.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

. "$src/bench/profiler_build.sh"
profiler_build || exit 1

one() { # PRELOAD(0|1) ARGS...: seconds of one run ("self": one rank)
	local pre=$1 np=$NP
	shift
	[[ $1 == self ]] && np=1
	local x=()
	((pre)) && x=(-x LD_PRELOAD="$T/libtopoplace_profiler.so" -x TOPOPLACE_PROFILE_DIR="$T")
	OMPI_MCA_btl=self,vader OMPI_MCA_plm_rsh_agent=false \
		mpirun --allow-run-as-root --oversubscribe --bind-to core -np "$np" \
		"${x[@]}" "$T/mpi_bench" "$@" | sed -n 's/^seconds //p'
	rm -f "$T"/*.tpp
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(lscpu | sed -n 's/^Model name: *//p'), REPS=$REPS"
printf '%-34s %12s %12s %8s\n' workload "without_s" "with_s" ratio
for w in "self 8 2000000" "pingpong 8 200000" "pingpong 65536 20000" "alltoall 16 200000" \
	"alltoall 4096 5000" "stencil 48 1000"; do
	: >"$T/a"
	: >"$T/b"
	for i in $(seq "$REPS"); do
		# Alternate which goes first: no order effect on the ratio.
		if ((i % 2)); then
			one 0 $w >>"$T/a"
			one 1 $w >>"$T/b"
		else
			one 1 $w >>"$T/b"
			one 0 $w >>"$T/a"
		fi
	done
	a=$(median <"$T/a")
	b=$(median <"$T/b")
	printf '%-34s %12s %12s %8.4f\n' "$w (np $([[ $w == self* ]] && echo 1 || echo "$NP"))" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
done
