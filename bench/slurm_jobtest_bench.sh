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
printf '%-8s %6s %9s %9s %9s %9s %9s %9s %8s %8s\n' policy tests tp_p50 tp_p95 tp_mean ct_p50 ct_p95 ct_mean ratio50 vs_off50
off_ct50=
for policy in off leaf pack spread; do
	ids=$(grep -o "topoplace: JobId=[0-9]* placement=$policy nodes=" "$log" |
		sed 's/.*JobId=\([0-9]*\).*/\1/' | sort -u)
	[ -n "$ids" ] || continue
	line=$(grep -o "topoplace: JobId=[0-9]*: job_test timing: topoplace [0-9]* us, cons_tres [0-9]* us" "$log" |
		awk -v ids="$ids" -v p="$policy" -v off="${off_ct50:-0}" '
		BEGIN { n = split(ids, a, "\n"); for (i = 1; i <= n; i++) want["JobId=" a[i] ":"] = 1 }
		($2 in want) { k++; tp[k] = $6; ct[k] = $9; st += $6; sc += $9 }
		function sort(x, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		}
		function q(x, k, f,   i) { i = int(k * f + 0.5); if (i < 1) i = 1; if (i > k) i = k; return x[i] }
		END {
			if (!k) exit
			sort(tp, k); sort(ct, k)
			t50 = q(tp, k, 0.5); c50 = q(ct, k, 0.5)
			if (off == 0) off = c50
			printf "%-8s %6d %9d %9d %9.1f %9d %9d %9.1f %8.2f %8.2f\n", p, k, t50, q(tp, k, 0.95), st / k, c50, q(ct, k, 0.95), sc / k, (t50 + c50) / c50, (t50 + c50) / off
		}')
	echo "$line"
	[ "$policy" = off ] && off_ct50=$(awk '{print $6}' <<<"$line")
done
echo "# tp: the wrapper's own work; ct: cons_tres on the (narrowed) bitmap; microseconds"
echo "# ratio50 = (tp_p50 + ct_p50) / ct_p50; vs_off50 = (tp_p50 + ct_p50) / ct_p50 of policy off (plain cons_tres)"
