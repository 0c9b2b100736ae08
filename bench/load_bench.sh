#!/bin/bash
# load_bench.sh: a real job stream replayed through the local Slurm cluster,
# once with plain select/cons_tres + topology/tree and once per topoplace
# placement policy, in one run: utilization, waits, bounded slowdown and how
# often a comm_sensitive job ran beside I/O traffic (issue #15).
#
#   bench/load_bench.sh [--short] [BUILD_DIR]
#
# Stream: bench/load_prep.awk cuts a window of a Standard Workload Format
# trace (default bench/traces/LLNL-Atlas-2006-2.1-cln.swf.gz, recorded under
# Slurm at LLNL; see bench/traces/README.md) whose offered load is nearest to
# 90% of the bed's hosts, compresses time, scales sizes and gives each job a
# class (the rules and the hash are in load_prep.awk's opening).  Each job is
# `sbatch --exclusive -N nodes --time limit -J PROFILE --wrap "sleep run"`,
# submitted as the test user at its scaled submit time; the job name is the
# profile of its class (hpcg: comm_sensitive, ioheavy: io_heavy, quiet), so
# topoplace finds the class by the job name as it would for a user's job, and
# cons_tres sees the very same submissions.
#
# Bed: tp-bed with BENCH_HOSTS slurmd (default 128) on a 3-level fat tree
# (topoplace-fattree) of BENCH_LEAVES leaves (default 8, so 16 hosts a leaf)
# in BENCH_PODS pods (default 2), topology/tree, task/none (sleep jobs have
# no ranks to remap).  Runs: BENCH_RUNS (default "cons_tres leaf shared auto"): cons_tres
# is SelectType=select/cons_tres; the others select/topoplace_cons_tres with
# DefaultPlacement=<run> and Routing=BENCH_ROUTING (default adaptive), but
# run leafwait is DefaultPlacement=leaf with LeafWaitMax=BENCH_LEAF_WAIT
# (default 10s: whole-leaf jobs accept a compatible shared placement after
# waiting that long).  Every topoplace run has
# IsolationWaitMax=BENCH_ISOLATION_WAIT (default none: jobs wait for hosts
# apart from incompatible jobs as long as it takes).  auto resolves to shared for a job with a profile
# under the default LeafSharing=compatible (tp_config_resolve_placement),
# and every bench job has one: it is the shared run again.
#
# Times come from Slurm's own job completion records (jobcomp/filetxt:
# SubmitTime, StartTime, EndTime, NodeList of every job, written by
# slurmctld at job end; no slurmdbd needed, no polling gaps).  Figures:
#   util       node-seconds busy / (hosts x span), over the submission span
#              [t0, t0 + span] (jobs clipped to it), and over [t0, last end]
#   wait       start - submit (submitted ahead: start - EligibleTime, the
#              job's release): mean and p95 (s)
#   bsld       bounded slowdown, mean: max(1, (wait + run) / max(run, tau)),
#              tau = BENCH_TAU s of bed time (default 10)
#   exposed    comm_sensitive jobs of 2+ hosts (a 1-host job sends nothing
#              over the fabric) that ran, at some moment, with an io_heavy
#              job on one of their leaves (leaf) / in one of their pods or,
#              spanning pods, while any io_heavy job ran (pod: what adaptive
#              routing exposes)
# and the ratio of each figure to cons_tres's from the same run; where each
# topoplace run's waits differ from cons_tres's (bench/load_waits.sh: jobs
# the placement held from incompatible traffic, jobs pending behind them,
# the rest, in seconds of the total and of the mean wait); the cost
# model's predictions for what ran (bench/load_predict.sh: at every job
# start, `topoplace cost --busy` on the running jobs, on the bed's tree
# with its real uplinks and a storage leaf a pod holding BENCH_IO_SERVERS
# I/O servers, default one per leaf: each comm_sensitive job's worst
# contention, the busiest I/O switch link; per job in WORK/RUN.predict);
# and how far
# each run's jobs became eligible behind their schedule: submitted paced
# (BENCH_SUBMIT=paced, sbatch one after the other at the offsets), a loaded
# machine delays them by different amounts, so runs with different lags
# saw different streams; submitted ahead (BENCH_SUBMIT=ahead, the default:
# all jobs held before t0, each released at its offset) the lag is that of
# one scontrol release, and a late submission is said.
#
# --short: 12 trace hours at 1/240 (180 s of submissions), runs capped at
# 60 s (about 5 minutes a run); otherwise 24 trace hours at 1/240 (360 s),
# runs capped at 120 s.  Override
# with BENCH_TRACE, BENCH_WINDOW (trace s), BENCH_COMPRESS, BENCH_RUN_CAP,
# BENCH_MIN_JOBS, BENCH_START (a fixed window start, trace s).  Results and
# per-job records go to BENCH_OUT (default a fresh /tmp directory, printed),
# with each run's slurmctld log (RUN.slurmctld.log).
# Needs root (tp-bed), the test user tpalice (tools/install-deps) and, in
# BUILD_DIR, `make tests/integration/slurm_profile_gen` (the profiles).
# Prints figures, never pass/fail.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
short=0
if [ "${1:-}" = --short ]; then short=1; shift; fi
if [ "${BENCH_INSIDE:-}" = 1 ]; then
	build=$3
else
	build=$(readlink -f "${1:-$top/_build/dev}")
fi

hosts=${BENCH_HOSTS:-128} leaves=${BENCH_LEAVES:-8} pods=${BENCH_PODS:-2}
routing=${BENCH_ROUTING:-adaptive} tau=${BENCH_TAU:-10}
runs=${BENCH_RUNS:-cons_tres leaf shared auto}
trace=${BENCH_TRACE:-$top/bench/traces/LLNL-Atlas-2006-2.1-cln.swf.gz}
if ((short)); then
	window=${BENCH_WINDOW:-43200} run_cap=${BENCH_RUN_CAP:-60} min_jobs=${BENCH_MIN_JOBS:-80}
else
	window=${BENCH_WINDOW:-86400} run_cap=${BENCH_RUN_CAP:-120} min_jobs=${BENCH_MIN_JOBS:-150}
fi
compress=${BENCH_COMPRESS:-240}
user=${TP_TEST_USER:-tpalice}

# ---------------------------------------------------------------- inside a bed
if [ "${BENCH_INSIDE:-}" = 1 ]; then
	run=$1 work=$2
	. "$top/tests/lib/bed.sh"
	. "$top/tests/lib/slurm_place_lib.sh"
	abs_top_srcdir=$top abs_top_builddir=$build
	tp_slurm_setup
	if [ "$run" != cons_tres ]; then
		tp_slurm_profiles >"$work/$run.setup" 2>&1
		placement=$run wait_line=
		if [ "$run" = leafwait ]; then
			placement=leaf wait_line="LeafWaitMax=${BENCH_LEAF_WAIT:-10s}"
		fi
		cat >"$etc/topoplace.conf" <<CONF
FabricSource=topology
ProfileStore=$store
DefaultPlacement=$placement
Routing=$routing
IsolationWaitMax=${BENCH_ISOLATION_WAIT:-none}
$wait_line
CONF
		reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of $hosts hosts" ||
			{ echo "load_bench: $run: topoplace.conf not loaded" >&2; exit 1; }
	fi
	# Replay: each job at its offset from t0 (whole seconds).  ahead
	# (default): every job submitted held before t0, then released at its
	# offset: one `scontrol release` (an RPC) instead of an sbatch (a
	# client that loads Slurm's plugins and the SPANK plugin), so a loaded
	# machine delays the stream less and alike in every run, and the
	# release makes slurmctld schedule at once, as a submission does
	# (a --begin time is only seen by its periodic pass).  t0 leaves
	# BENCH_AHEAD s (default 10 + 1 a job) for the submissions.  paced:
	# sbatch at the offset.
	submit=${BENCH_SUBMIT:-ahead}
	t0=$(date +%s)
	[ "$submit" = ahead ] &&
		t0=$((t0 + ${BENCH_AHEAD:-$((10 + $(grep -vc '^#' "$work/jobs.txt")))}))
	: >"$work/$run.submitted"
	while read -r swf off nodes runs limit class; do
		case $class in
		comm_sensitive) name=hpcg ;;
		io_heavy) name=ioheavy ;;
		*) name=quiet ;;
		esac
		hold=()
		if [ "$submit" = ahead ]; then
			hold=(--hold)
		else
			while (($(date +%s) < t0 + off)); do sleep 0.1; done
		fi
		id=$(tp_as_user "$user" sbatch --parsable --exclusive -N "$nodes" \
			"${hold[@]}" --time "$limit" -J "$name" -o /dev/null \
			--wrap "sleep $runs" 2>>"$work/$run.sbatch.err")
		echo "${id:-none} $swf $class $nodes $runs $off" >>"$work/$run.submitted"
	done < <(grep -v '^#' "$work/jobs.txt")
	if [ "$submit" = ahead ]; then
		late=$(($(date +%s) - t0))
		((late > 0)) &&
			echo "# $run: submissions ended ${late} s after t0: raise BENCH_AHEAD" >&2
		while read -r id _ _ _ _ off; do
			while (($(date +%s) < t0 + off)); do sleep 0.1; done
			[ "$id" = none ] || scontrol release "$id" 2>>"$work/$run.sbatch.err"
		done <"$work/$run.submitted"
	fi
	# Drain: every job's limit bounds this; a job never started counts.
	deadline=$((SECONDS + ${BENCH_DRAIN:-1800}))
	while [ -n "$(squeue -h)" ] && ((SECONDS < deadline)); do sleep 1; done
	squeue -h -o '%i %T %r' >"$work/$run.left"
	echo "$t0" >"$work/$run.t0"
	# Per job: id state submit start end hosts (node numbers, commas).
	# One awk pass and one date call: a process per job is slow on a
	# loaded machine.  Node names are the bed's n0001.. (topoplace-fattree).
	# Submitted ahead, a job's wait counts from its EligibleTime (its
	# release, the stream's submit time), not from the early sbatch.
	awk -v eligible="$([ "$submit" = ahead ] && echo 1 || echo 0)" '{
		id = ""; st = ""; sb = ""; bg = ""; en = ""; nl = ""
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "JobId") id = kv[2]
			else if (kv[1] == "JobState") st = kv[2]
			else if (kv[1] == (eligible ? "EligibleTime" : "SubmitTime")) sb = kv[2]
			else if (kv[1] == "StartTime") bg = kv[2]
			else if (kv[1] == "EndTime") en = kv[2]
			else if (kv[1] == "NodeList") nl = substr($i, 10)
		}
		print id, st, nl > "/dev/stderr"
		# A job that never started has StartTime=Unknown: epoch 0.
		print (sb ~ /^[0-9]+-/ ? sb : "@0")
		print (bg ~ /^[0-9]+-/ ? bg : "@0")
		print (en ~ /^[0-9]+-/ ? en : "@0")
	}' "$TP_BED_LOGDIR/jobcomp.txt" 2>"$work/$run.jobs" >"$work/$run.times"
	date -f "$work/$run.times" +%s 2>/dev/null | paste -d' ' - - - |
		paste -d' ' "$work/$run.jobs" - | awk '{
		# id state nodelist submit start end -> id state submit start end hosts
		nl = $3; out = ""
		if (nl ~ /^n[0-9]+$/) out = substr(nl, 2) + 0
		else if (match(nl, /^n\[.*\]$/)) {
			n = split(substr(nl, 3, length(nl) - 3), part, ",")
			for (i = 1; i <= n; i++) {
				if (split(part[i], r, "-") == 2)
					for (h = r[1] + 0; h <= r[2] + 0; h++) out = out (out == "" ? "" : ",") h
				else out = out (out == "" ? "" : ",") (part[i] + 0)
			}
		}
		print $1, $2, $4, $5, $6, (out == "" ? "-" : out)
	}' >"$work/$run.done"
	rm -f "$work/$run.jobs" "$work/$run.times"
	grep -o 'topoplace: JobId=[0-9]*: placement=.*' "$log" >"$work/$run.decisions" 2>/dev/null
	# The whole slurmctld log, for what the decision lines do not say
	# (a job with none, a fallback's error line): the bed's tmpfs goes
	# with the bed.
	cp "$log" "$work/$run.slurmctld.log" 2>/dev/null
	exit 0
fi

# ---------------------------------------------------------------- outside
[ -x "$build/tools/topoplace-fattree" ] || { echo "load_bench: no build in $build" >&2; exit 1; }
((hosts % leaves == 0 && leaves % pods == 0)) ||
	{ echo "load_bench: $hosts hosts do not split into $leaves leaves of $pods pods" >&2; exit 1; }
work=${BENCH_OUT:-$(mktemp -d /tmp/tp-load-bench.XXXXXX)}
mkdir -p "$work" && chmod 755 "$work"
hpl=$((hosts / leaves)) lpp=$((leaves / pods))
shape=(--spines 2)
((pods > 1)) && shape+=(--pods "$pods" --cores 4)
"$build/tools/topoplace-fattree" --leaves "$leaves" --hosts-per-leaf "$hpl" \
	"${shape[@]}" --format slurm -o "$work/topology.conf" || exit 1
zcat -f "$trace" | awk -f "$top/bench/load_prep.awk" -v hosts="$hosts" \
	-v compress="$compress" -v window="$window" -v run_cap="$run_cap" \
	-v min_jobs="$min_jobs" ${BENCH_START:+-v start="$BENCH_START"} >"$work/jobs.txt" || exit 1

echo "# $(date -u +%FT%TZ) $(uname -n) nproc=$(nproc) cpu=$(lscpu | sed -n 's/^Model name: *//p') load=$(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: $0 $( ((short)) && echo --short) $build; BENCH_RUNS=\"$runs\" routing=$routing IsolationWaitMax=${BENCH_ISOLATION_WAIT:-none}"
echo "# trace: $(basename "$trace")"
grep '^#' "$work/jobs.txt"
echo "# bed: $hosts hosts, $leaves leaves x $hpl, $pods pods; --exclusive whole-node jobs; tau $tau s; records in $work"
for run in $runs; do
	select=select/topoplace_cons_tres
	[ "$run" = cons_tres ] && select=select/cons_tres
	BENCH_INSIDE=1 abs_top_builddir=$build "$top/tests/lib/tp-bed" \
		--topology "$work/topology.conf" --cpus 2 --select "$select" \
		--task-plugin task/none --plugin-dir "$build/slurm-plugin/.libs" \
		--conf "JobCompType=jobcomp/filetxt" \
		--conf "JobCompLoc=/run/topoplace-bed/log/jobcomp.txt" \
		--conf "MinJobAge=30" \
		--timeout $((${BENCH_DRAIN:-1800} + window / compress + 300)) \
		-- bash "$0" "$run" "$work" "$build" ||
		{ echo "load_bench: run $run failed (see tp-bed's message above)" >&2; continue; }
done
awk -v hpl="$hpl" -v lpp="$lpp" -v hosts="$hosts" -v tau="$tau" \
	-v span=$((window / compress)) -v runs="$runs" -v work="$work" \
	-f "$top/bench/load_report.awk"
# What topoplace said: jobs placed shared past their whole-leaf wait
# bound, by Slurm's default past their isolation bound, and the jobs that
# ran with no decision line, with what slurmctld's log says of them
# (bench/load_decisions.sh).
for run in $runs; do
	"$top/bench/load_decisions.sh" "$work" "$run"
done
# Where each topoplace run's waits differ from cons_tres's, job by job:
# held by the placement, pending behind a held job, or other
# (bench/load_waits.sh; per job in WORK/RUN.waits).  The bound in seconds
# from BENCH_ISOLATION_WAIT (none, N, Ns, Nms, Nmin).
bound_s=$(awk -v b="${BENCH_ISOLATION_WAIT:-none}" 'BEGIN {
	n = b + 0
	print b ~ /^[0-9.]+ms$/ ? n / 1000 : (b ~ /^[0-9.]+min$/ ? n * 60 : n)
}')
case " $runs " in
*" cons_tres "*)
	for run in $runs; do
		[ "$run" = cons_tres ] ||
			"$top/bench/load_waits.sh" "$work" "$run" "$hosts" "$hpl" "${bound_s:-0}"
	done
	;;
esac
# How far the replay fell behind its schedule (Slurm's SubmitTime against
# the job's offset): runs whose lags differ received different streams, and
# their ratios are not comparable (bench/RESULTS.md, IsolationWaitMax).
for run in $runs; do
	[ -s "$work/$run.done" ] && [ -s "$work/$run.t0" ] || continue
	awk -v t0="$(cat "$work/$run.t0")" -v run="$run" '
		FNR == 1 { f++ }
		f == 1 { if (!/^#/) off[++n] = $2; next }
		f == 2 { id[++m] = $1; next }
		{ submit[$1] = $3 }
		END {
			for (k = 1; k <= m; k++) {
				if (!(id[k] in submit)) continue
				lag = submit[id[k]] - t0 - off[k]; sum += lag; c++
				if (lag > max) max = lag
			}
			if (c) printf "# %s: eligible behind schedule: mean %.1f s, max %d s\n", run, sum / c, max
		}' "$work/jobs.txt" "$work/$run.submitted" "$work/$run.done"
done
# The cost model's predictions for every placement that ran
# (bench/load_predict.sh, `topoplace cost --busy`): per run one summary
# line, per job WORK/RUN.predict.
for run in $runs; do
	[ -s "$work/$run.done" ] || continue
	"$top/bench/load_predict.sh" "$build/tools/topoplace" "$work" "$run" \
		"$pods" "$lpp" "$hpl" 2 $( ((pods > 1)) && echo 4 || echo 0) \
		"$routing" "${BENCH_IO_SERVERS:-$leaves}"
done
