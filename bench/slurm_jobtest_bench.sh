#!/bin/bash
# slurm_jobtest_bench.sh: time per job test, select/topoplace_cons_tres's own
# work beside cons_tres's, on one workload in one run (a tp-bed cluster).
#
#   bench/slurm_jobtest_bench.sh [BUILD_DIR] [LEAVES] [HOSTS_PER_LEAF] [JOBS]
#
# With DebugFlags=Budget in topoplace.conf the wrapper logs, for every
# RUN_NOW job test, the microseconds it spent (policy, profile cache,
# occupancy, tp_alloc_allowed, bitmap) and those cons_tres spent on the
# narrowed bitmap.  JOBS short jobs per policy (off, leaf, pack, spread;
# 1..4 nodes) are submitted; the figures are per policy: job tests, mean and
# p95 of each part, and the ratio wrapper total / cons_tres.  Prints figures,
# never pass/fail.  Needs root (tp-bed).
set -u
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/_build/main}
leaves=${2:-16} hpl=${3:-4} jobs=${4:-100}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(readlink -f "$build")

if [ "${BENCH_INSIDE:-}" != 1 ]; then
	work=$(mktemp -d /tmp/tp-jobtest-bench.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	echo "required $build/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
	"$build/tools/topoplace-fattree" --leaves "$leaves" --hosts-per-leaf "$hpl" \
		--spines 2 --format slurm -o "$work/topology.conf" || exit 1
	BENCH_INSIDE=1 abs_top_builddir=$build "$top/tests/lib/tp-bed" \
		--topology "$work/topology.conf" --cpus 4 \
		--select select/topoplace_cons_tres --task-plugin task/topoplace \
		--plugin-dir "$build/slurm-plugin/.libs" --plugstack "$work/plugstack.conf" \
		--conf "SchedulerParameters=sched_min_interval=0,bf_interval=30,batch_sched_delay=0" \
		--timeout 1800 -- bash "$0" "$build" "$leaves" "$hpl" "$jobs"
	exit
fi

etc=$(dirname "$SLURM_CONF")
log=$TP_BED_SLURMCTLD_LOG
printf 'FabricSource=topology\nDebugFlags=Budget\n' >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
grep -q "topoplace: reconfigure: .*fabric of" "$log" || { echo "bench: fabric not loaded" >&2; exit 1; }
nodes=$((leaves * hpl))
echo "# $(date -u +%FT%TZ) nproc=$(nproc) cpu=$(lscpu | sed -n 's/^Model name: *//p')"
echo "# bed: $nodes nodes, $leaves leaves x $hpl hosts; $jobs jobs per policy"
for policy in off leaf pack spread; do
	for ((i = 0; i < jobs; i++)); do
		sbatch -N $((i % 4 + 1)) --placement=$policy -o /dev/null --wrap true >/dev/null
	done
done
deadline=$((SECONDS + 600))
while [ -n "$(squeue -h)" ] && ((SECONDS < deadline)); do sleep 1; done
printf '%-8s %8s %12s %12s %12s %12s %8s\n' policy tests tp_mean_us tp_p95_us ct_mean_us ct_p95_us ratio
for policy in off leaf pack spread; do
	ids=$(grep -o "topoplace: JobId=[0-9]* placement=$policy nodes=" "$log" |
		sed 's/.*JobId=\([0-9]*\).*/\1/' | sort -u)
	[ -n "$ids" ] || continue
	grep -o "topoplace: JobId=[0-9]*: job_test timing: topoplace [0-9]* us, cons_tres [0-9]* us" "$log" |
		awk -v ids="$ids" -v p="$policy" '
		BEGIN { n = split(ids, a, "\n"); for (i = 1; i <= n; i++) want["JobId=" a[i] ":"] = 1 }
		($2 in want) { k++; tp[k] = $6; ct[k] = $9; st += $6; sc += $9 }
		function p95(x, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return x[int(k * 0.95) > 0 ? int(k * 0.95) : 1]
		}
		END {
			if (!k) exit
			printf "%-8s %8d %12.1f %12d %12.1f %12d %8.2f\n", p, k, st / k, p95(tp, k), sc / k, p95(ct, k), (st + sc) / sc
		}'
done
