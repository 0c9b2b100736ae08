#!/bin/bash
# record_job_bench.sh: the whole recorded job under the real task plugin
# (issue #18: "a recorded run costs < 1% of its run time"), on a tp-bed
# cluster (Slurm 22.05 or the build's Slurm): topoplace.conf has
# ProfileRecord=always; tpalice submits the same batch script PAIRS times
# recorded and PAIRS times with --comm-record=no (ProfileRecordAllowUserOff
# =yes: the same daemons, the same configuration, the profiler not
# preloaded), interleaved, the order alternating.  The script times its
# `srun` of bench/mpi_bench.c's stencil (2 ranks, one node); a recorded run
# writes its profile into the munge-signed store (fsync'd), as on a site.
# Prints the paired figures (bench/paired_stats.awk) of the srun time, the
# timed loop and rank 0's MPI_Finalize; checks that every recorded job said
# so and left a run, and that no other job did.  Results: bench/RESULTS.md
# ("Recorded run overhead").
#
#   bench/record_job_bench.sh [BUILDDIR]    (root; env: PAIRS=9
#       STENCIL="48 600": mpi_bench stencil N ITERS)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAIRS=${PAIRS:-9}
STENCIL=${STENCIL:-48 600}
user=tpalice

if [ "${1:-}" != --inside ]; then
	build=$(readlink -f "${1:-$top/_build/dev}")
	export abs_top_srcdir=$top abs_top_builddir=$build
	. "$top/tests/lib/bed.sh"
	tp_require_bed
	[ -f "$build/profiles/.libs/libtopoplace_profiler.so" ] ||
		{ echo "record_job_bench: $build has no profiler library" >&2; exit 1; }
	work=$(mktemp -d /tmp/tp-recjob.XXXXXX) || exit 1
	chmod 755 "$work"
	trap 'rm -rf "$work"' EXIT
	mpicc -O2 "$top/bench/mpi_bench.c" -o "$work/mpi_bench" || exit 1
	echo "optional $build/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
	"$build/tools/topoplace-fattree" --leaves 2 --hosts-per-leaf 2 \
		--spines 2 --format slurm -o "$work/topology.conf" || exit 1
	echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(lscpu | sed -n 's/^Model name: *//p')," \
		"load $(cut -d' ' -f1-3 /proc/loadavg), PAIRS=$PAIRS, stencil $STENCIL, 2 ranks"
	export TOPOPLACE_LIBDIR=$build/profiles/.libs:$build/throttle/.libs
	export TP_RECJOB_WORK=$work PAIRS STENCIL
	"$top/tests/lib/tp-bed" --topology "$work/topology.conf" --cpus 2 \
		--select select/topoplace_cons_tres --task-plugin task/topoplace \
		--node-tmpfs --conf "MpiDefault=pmix" \
		--plugin-dir "$build/slurm-plugin/.libs" \
		--plugstack "$work/plugstack.conf" -- bash "$0" --inside
	exit
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
work=$TP_RECJOB_WORK
out=$TP_BED_JOBDIR
etc=$(dirname "$SLURM_CONF")
store=$TP_BED_DIR/store
mkdir -p "$store" && chmod 755 "$store"
install -d -o "$user" -m 755 "$store/$user"
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=always\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
tmpfs=$(sed -n 's/^TmpFS=//p' "$SLURM_CONF")
# One script for every job: the same application to topoplace.
cat >"$work/job.sh" <<EOF
#!/bin/bash
export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=$tmpfs
t0=\$(date +%s.%N)
srun $work/mpi_bench stencil $STENCIL
t1=\$(date +%s.%N)
echo "srun_seconds \$(echo "\$t1 - \$t0" | bc)"
EOF
chmod 755 "$work/job.sh"

# job RECORD(0|1): runs one job to its end; prints "srun loop finalize".
job() {
	local opt=() id st f
	(($1)) || opt=(--comm-record=no)
	id=$(tp_as_user "$user" sbatch --parsable -N 1 -n 2 -J ovh "${opt[@]}" \
		-o "$out/ovh-%j.out" "$work/job.sh") || return 1
	st=$(tp_wait_job "$id" 300)
	f=$out/ovh-$id.out
	[ "$st" = COMPLETED ] || { echo "job $id: $st" >&2; tail -5 "$f" >&2; return 1; }
	if grep -q "recorded as profile $user/ovh" "$f"; then
		(($1)) || { echo "job $id (--comm-record=no) was recorded" >&2; return 1; }
	else
		((!$1)) || { echo "job $id did not say it was recorded" >&2; return 1; }
	fi
	awk '/^srun_seconds / { s = $2 } /^seconds / { l = $2 }
		/^finalize_seconds / { f = $2 }
		END { if (s && l) printf "%s %s %s\n", s, l, f; else exit 1 }' "$f"
}

: >"$work/pairs"
for ((i = 1; i <= PAIRS; i++)); do
	if ((i % 2)); then
		a=$(job 0) && b=$(job 1)
	else
		b=$(job 1) && a=$(job 0)
	fi || exit 1
	echo "$a $b" | tee -a "$work/pairs" | sed 's/^/# pair (off: srun loop fin | recorded: same): /'
done
runs=$(ls "$store/$user/ovh/"*.tpp 2>/dev/null | wc -l)
echo "# profiles of $user/ovh in the store: $runs (ProfileKeep prunes to its bound)"
[ "$runs" -ge 1 ] || { echo "no profile stored" >&2; exit 1; }
printf '%-10s %3s %10s %10s %7s %15s %7s %15s\n' metric n off_s recorded_s \
	ratio "95% CI" min_N "p10..p90"
for col in 1 2; do
	name=$([ "$col" = 1 ] && echo srun || echo loop)
	set -- $(awk -v c="$col" '{ print $(c), $(c + 3) }' "$work/pairs" |
		awk -v seed=1 -f "$abs_top_srcdir/bench/paired_stats.awk")
	printf '%-10s %3s %10s %10s %7s %15s %7s %15s\n' "$name" "$2" "$4" "$6" \
		"$8" "${10}..${12}" "${14}" "${16}..${18}"
done
set -- $(awk -f "$abs_top_srcdir/bench/finalize_delta.awk" "$work/pairs")
[ $# = 3 ] || { echo "no finalize times in $work/pairs" >&2; exit 1; }
awk -v n="$1" -v dm="$2" -v sm="$3" 'BEGIN { printf "finalize   %3d end of " \
	"run (rank 0 MPI_Finalize, recorded minus off): %+.4f s = %.3f%% of " \
	"the srun (%.3f s)\n", n, dm, 100 * dm / sm, sm }'
