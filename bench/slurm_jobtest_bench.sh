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
# 1..4 nodes) are submitted, the policies interleaved (job i of each policy
# has i % 4 + 1 nodes), so every policy meets the same occupancy; the
# figures are per policy: job tests, mean and p95 of each part, and the
# ratio wrapper total / cons_tres.  Prints figures, never pass/fail.  Needs
# root (tp-bed) and, for the uprobe figures below, perf.
#
# Large topologies (bench/slurm_jobtest_5k.sh): with BENCH_SLURMD_NODES=K only
# the first K nodes run slurmd (tp-bed --slurmd-nodes); the others are
# State=CLOUD nodes, powered down but idle, which slurmctld offers to every
# job test like any idle node.  A job placed on them is allocated for real
# (cons_tres and the wrapper account for it in later tests) but stays
# CONFIGURING, as no slurmd ever boots: the bench then waits until no job is
# pending instead of until all have finished.  BENCH_PODS=P builds a 3-level
# tree of P pods (topoplace-fattree --pods P --spines S --cores 2S, S =
# BENCH_SPINES, default 2).
#
# The whole job test, the same quantity with and without the wrapper: the
# run also puts a perf uprobe on entry and return of the SelectType plugin's
# select_p_job_test (mode read from its 6th argument) and prints the median
# and p95 duration of every RUN_NOW call.  BENCH_BASELINE=1 runs the same
# workload with SelectType=select/cons_tres (plain, no wrapper): its line is
# the baseline to divide by.  (Each probe hit costs a few us.)
#
# Where the wrapper's time goes: BENCH_PROBE=1 puts perf uprobes on entry and
# return of the plugin's _narrow (all its work under the lock), _decide_policy
# (flags, profile), tp_alloc_allowed (the placement core) and _clear_reserved,
# and prints their median and p95 durations (the rest of _narrow is the
# occupancy rebuild, the narrowing bitmap and the decision message).  Each
# probe hit costs a few us: read those figures as a breakdown, not as the
# time per job test.  BENCH_PERF=FILE records `perf record -g` of slurmctld
# during the submissions into FILE.
set -u
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/_build/main}
leaves=${2:-16} hpl=${3:-4} jobs=${4:-100}
slurmd_nodes=${BENCH_SLURMD_NODES:-} pods=${BENCH_PODS:-1} spines=${BENCH_SPINES:-2}
select=select/topoplace_cons_tres
[ "${BENCH_BASELINE:-}" = 1 ] && select=select/cons_tres
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(readlink -f "$build")

if [ "${BENCH_INSIDE:-}" != 1 ]; then
	work=$(mktemp -d /tmp/tp-jobtest-bench.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	echo "optional $build/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
	shape=(--spines "$spines")
	((pods > 1)) && shape+=(--pods "$pods" --cores $((2 * spines)))
	"$build/tools/topoplace-fattree" --leaves "$leaves" --hosts-per-leaf "$hpl" \
		"${shape[@]}" --format slurm -o "$work/topology.conf" || exit 1
	BENCH_INSIDE=1 abs_top_builddir=$build "$top/tests/lib/tp-bed" \
		--topology "$work/topology.conf" --cpus 4 \
		--select "$select" --task-plugin task/topoplace \
		--plugin-dir "$build/slurm-plugin/.libs" --plugstack "$work/plugstack.conf" \
		--conf "SchedulerParameters=sched_min_interval=0,bf_interval=30,batch_sched_delay=0" \
		${slurmd_nodes:+--slurmd-nodes "$slurmd_nodes"} \
		--timeout 3600 -- bash "$0" "$build" "$leaves" "$hpl" "$jobs"
	exit
fi

etc=$(dirname "$SLURM_CONF")
log=$TP_BED_SLURMCTLD_LOG
if [ "$select" = select/topoplace_cons_tres ]; then
	printf 'FabricSource=topology\nDebugFlags=Budget\n' >"$etc/topoplace.conf"
	scontrol reconfigure
	for ((i = 0; i < 100; i++)); do
		grep -q "topoplace: reconfigure: .*fabric of" "$log" && break
		sleep 0.2
	done
	grep -q "topoplace: reconfigure: .*fabric of" "$log" || { echo "bench: fabric not loaded" >&2; exit 1; }
fi
nodes=$((leaves * hpl))
echo "# $(date -u +%FT%TZ) nproc=$(nproc) cpu=$(lscpu | sed -n 's/^Model name: *//p')"
echo "# bed: $nodes nodes, $leaves leaves x $hpl hosts ($pods pods); $jobs jobs per policy"
[ -n "$slurmd_nodes" ] && echo "# slurmd on ${slurmd_nodes} nodes; the other $((nodes - slurmd_nodes)) are State=CLOUD (powered down, idle, offered to every job test; jobs placed there stay CONFIGURING)"
echo "# SelectType=$select $(grep -o "topoplace: reconfigure: .*fabric of.*" "$log" | tail -1)"
perf_pid= probe_pid= pgroup=probe_select_topoplace_cons_tres
ctld=$(cat "$TP_BED_DIR/run/slurmctld.pid")
# The whole job test of the SelectType plugin (see the header).
if [ "$select" = select/cons_tres ]; then
	jt_so=$(sed -n 's/^PluginDir=\([^:]*\).*/\1/p' "$SLURM_CONF")/select_cons_tres.so
	jt_group=probe_select_cons_tres
else
	jt_so=$build/slurm-plugin/.libs/select_topoplace_cons_tres.so
	jt_group=$pgroup
fi
jt_pid=
perf probe -q -d "$jt_group:jobtest*" 2>/dev/null
if perf probe -q -x "$jt_so" -a 'jobtest=select_p_job_test mode=%r9:u16' \
	-a 'jobtestr=select_p_job_test%return' 2>/dev/null; then
	perf record -q -e "$jt_group:jobtest" -e "$jt_group:jobtestr__return" \
		-o "$etc/jobtest.data" -p "$ctld" 2>"$etc/jobtest.err" &
	jt_pid=$!
else
	echo "# (no uprobe on select_p_job_test in $jt_so: perf missing or no tracefs; no whole-job-test line)"
fi
if [ -n "${BENCH_PERF:-}" ]; then
	perf record -q -g -o "$BENCH_PERF" -p "$ctld" 2>/dev/null &
	perf_pid=$!
fi
if [ "${BENCH_PROBE:-}" = 1 ]; then
	so=$build/slurm-plugin/.libs/select_topoplace_cons_tres.so
	ev=()
	for f in narrow:_narrow policy:_decide_policy alloc:tp_alloc_allowed reserved:_clear_reserved; do
		perf probe -q -x "$so" -a "${f%%:*}=${f#*:}" -a "${f%%:*}r=${f#*:}%return" ||
			{ echo "bench: cannot probe ${f#*:} in $so" >&2; exit 1; }
		ev+=(-e "$pgroup:${f%%:*}" -e "$pgroup:${f%%:*}r__return")
	done
	perf record -q "${ev[@]}" -o "$etc/probe.data" -p "$ctld" 2>/dev/null &
	probe_pid=$!
	sleep 1
fi
for ((i = 0; i < jobs; i++)); do
	for policy in off leaf pack spread; do
		sbatch -N $((i % 4 + 1)) --placement=$policy -o /dev/null --wrap true >/dev/null
	done
done
deadline=$((SECONDS + 1200))
# Jobs on CLOUD nodes never finish: there, wait until none is pending.
if [ -n "$slurmd_nodes" ]; then
	while squeue -h -o %T | grep -q PENDING && ((SECONDS < deadline)); do sleep 1; done
	echo "# jobs: $(squeue -h -o %T | sort | uniq -c | xargs)"
else
	while [ -n "$(squeue -h)" ] && ((SECONDS < deadline)); do sleep 1; done
fi
[ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid"; }
[ -n "$jt_pid" ] && { kill -INT "$jt_pid" || cat "$etc/jobtest.err" >&2; wait "$jt_pid"; }
# durations (us) of select_p_job_test calls in RUN_NOW mode (mode & 0xff == 0)
[ -n "$jt_pid" ] && perf script -i "$etc/jobtest.data" -F tid,time,event,trace 2>/dev/null | awk '
	{ t = $2; sub(/:$/, "", t)
	  if ($3 ~ /__return/) { if (($1) in start) { printf "%.1f\n", (t - start[$1]) * 1e6; delete start[$1] } }
	  else { m = $0; sub(/.*mode=/, "", m); if ((m + 0) % 256 == 0) start[$1] = t } }' |
	sort -n | awk -v sel="$select" '{ x[++m] = $1; s += $1 }
	END { if (!m) exit; i = int(m * 0.5 + 0.5); if (i < 1) i = 1
		printf "# whole job test, %s select_p_job_test, RUN_NOW: calls %d  p50 %.1f  p95 %.1f  mean %.1f us\n", sel, m, x[i], x[int(m * 0.95 + 0.5)], s / m }'
perf probe -q -d "$jt_group:jobtest*" 2>/dev/null
if [ -n "$probe_pid" ]; then
	kill -INT "$probe_pid"; wait "$probe_pid"
	perf probe -q -d "$pgroup:*"
	# Entry/return pairs per thread -> durations, over all RUN_NOW tests.
	echo "# where the wrapper's time goes (uprobes, us, all policies):"
	perf script -i "$etc/probe.data" -F tid,time,event 2>/dev/null | awk '
		{ ev = $3; sub(/:$/, "", ev); sub(/^.*:/, "", ev); t = $2; sub(/:$/, "", t)
		  if (ev ~ /r__return$/) { f = ev; sub(/r__return$/, "", f); k = $1 ":" f
			if (k in start) { printf "%s %.1f\n", f, (t - start[k]) * 1e6; delete start[k] } }
		  else start[$1 ":" ev] = t }' | sort -k1,1 -k2,2n | awk '
		function flush(   i) { if (!m) return; i = int(m * 0.5 + 0.5); if (i < 1) i = 1
			printf "#   %-9s calls %5d  p50 %8.1f  p95 %8.1f  mean %8.1f\n", f, m, x[i], x[int(m * 0.95 + 0.5)], s / m }
		$1 != f { flush(); f = $1; m = 0; s = 0 }
		{ x[++m] = $2; s += $2 }
		END { flush() }'
fi
printf '%-8s %6s %9s %9s %9s %9s %9s %9s %8s %8s\n' policy tests tp_p50 tp_p95 tp_mean ct_p50 ct_p95 ct_mean ratio50 vs_off50
off_ct50=
for policy in off leaf pack spread; do
	ids=$(grep -o "topoplace: JobId=[0-9]* placement=$policy nodes=" "$log" |
		sed 's/.*JobId=\([0-9]*\).*/\1/' | sort -u)
	[ -n "$ids" ] || continue
	line=$(grep -o "topoplace: Budget: JobId=[0-9]*: job_test timing: topoplace [0-9]* us, cons_tres [0-9]* us" "$log" |
		awk -v ids="$ids" -v p="$policy" -v off="${off_ct50:-0}" '
		BEGIN { n = split(ids, a, "\n"); for (i = 1; i <= n; i++) want["JobId=" a[i] ":"] = 1 }
		($3 in want) { k++; tp[k] = $7; ct[k] = $10; st += $7; sc += $10 }
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
