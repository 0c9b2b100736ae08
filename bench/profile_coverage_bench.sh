#!/bin/bash
# profile_coverage_bench.sh: how many jobs of a replayed real job stream are
# placed with a profile when users give no flag (issue #18, goal 1: "at
# least 80% of jobs whose application ran before").
#
#   bench/profile_coverage_bench.sh [BUILD_DIR]
#
# Stream: bench/load_prep.awk cuts a window of a Standard Workload Format
# trace (default bench/traces/LLNL-Atlas-2006-2.1-cln.swf.gz) for BENCH_HOSTS
# hosts (default 16): BENCH_WINDOW trace seconds (default 7200) at 1/240
# (BENCH_COMPRESS), runs capped at BENCH_RUN_CAP s (default 60), the window
# whose offered load is nearest 90% with at least BENCH_MIN_JOBS jobs
# (default 10; 51 jobs of 22 applications).  Small on purpose: every rank
# is a real process that polls Open MPI's TCP transport, and 32 hosts (jobs
# of up to 29 ranks, 160 jobs) drove a shared 2-core machine to a load of
# 90 and sbatch to several seconds a job.  A job's application is the trace's executable number
# (field 14), else its user (field 12): the key load_prep.awk's class comes
# from.  Every job of one application submits the same batch script,
# $work/apps/APP.sh (so its script key, topoplace-profile(5) APPLICATION
# IDENTITY, identifies the application), which runs a real MPI program
# (tests/integration/mpi_patterns.c) by `srun --mpi=pmix`, one rank a node,
# with a pattern chosen by the application number (ring, 3-D stencil or
# alltoall), then sleeps out the job's trace run time, which it gets from
# the environment (TP_BENCH_RUN) and not from its text.  BENCH_EXEC=shared
# (default) runs one binary for every application, per-app a copy each.
# BENCH_ARGS=pattern (default) gives an application the pattern's
# arguments only, so applications of one pattern run the same command
# line; BENCH_ARGS=per-app adds the application's own input, "in.APP",
# after them (mpi_patterns ignores it: the traffic is the pattern's), as
# one solver run by many scripts with decks of their own.  Job names carry
# nothing: BENCH_NAMES=random (default) gives each job a name of its own,
# BENCH_NAMES=same calls every job "job".  BENCH_CONF adds lines to both
# runs' topoplace.conf ("ProfileByExecutable=no", say; a literal \n
# separates lines).  No --comm-profile, no
# --comm-record: what a user who does nothing submits.  Each job is
# `sbatch -N nodes -n nodes --time limit+1` (one minute more than the trace
# asks: Open MPI's start on a loaded 2-core bed) as the test user at its
# scaled submit time.
#
# Runs, one bed each, fresh store each, the same stream:
#   off     ProfileRecord=off: what users provide (nothing)
#   first   ProfileRecord=BENCH_RECORD (default first: the first run of each
#           application is recorded and later jobs are placed from it; one
#           profile per application is all placement needs, and recording
#           nothing more keeps the profiler off the other jobs)
# Bed: tp-bed with BENCH_HOSTS slurmd on a 2-level fat tree of BENCH_LEAVES
# leaves (default 4) and 2 spines, 2 CPUs a node, select/topoplace_cons_tres,
# task/topoplace, the SPANK plugin, MpiDefault=pmix, a TmpFS per node.
#
# Per run, from the job completion records (jobcomp/filetxt: submit, start,
# end, nodes) and each job's SystemComment (scontrol):
#   eligible   jobs whose application "ran before": a job of the same
#              application had COMPLETED (its EndTime) before the job's
#              SubmitTime (an earlier second).  Submission, not start: that is when the user is
#              done and the job's profile lookup is started, so a job queued
#              behind the first run of its application does not count
#              (counted apart: "ran before its start only").
#   profile    of those, jobs whose SystemComment names a profile (remapped
#              by it, or its class only when its rank count differs:
#              "class only"); "wrong app" counts profiles recorded by a job
#              of another application (a shared job name).
#   node-s     the same weighted by nodes x (EndTime - StartTime) on the bed
#              (x BENCH_COMPRESS for trace node-seconds)
#   recorded   jobs whose stderr says they were recorded, and the runs
#              (.tpp) in the store under application names (each is stored
#              under its script key too)
# (bench/profile_coverage_report.awk; each job's verdict in RUN.verdicts)
# and `coverage: N of M jobs (P%), node-hours X of Y (Q%)` per run.
# Results go to BENCH_OUT (default a fresh /tmp directory, printed);
# BENCH_REPORT_ONLY=1 prints the figures of the records in BENCH_OUT again.
# Bounded: per-job time limits, BENCH_DRAIN s (default 300) for the queue
# to empty, tp-bed --timeout on each run.  Needs root (tp-bed), the test
# user tpalice, mpicc, Slurm's mpi/pmix and a build with the profiler.
# Prints figures, never pass/fail.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${BENCH_INSIDE:-}" = 1 ]; then
	build=$3
else
	build=$(readlink -f "${1:-$top/_build/dev}")
fi
hosts=${BENCH_HOSTS:-16} leaves=${BENCH_LEAVES:-4}
window=${BENCH_WINDOW:-7200} compress=${BENCH_COMPRESS:-240}
run_cap=${BENCH_RUN_CAP:-60} min_jobs=${BENCH_MIN_JOBS:-10}
record=${BENCH_RECORD:-first} names=${BENCH_NAMES:-random}
drain=${BENCH_DRAIN:-300}
trace=${BENCH_TRACE:-$top/bench/traces/LLNL-Atlas-2006-2.1-cln.swf.gz}
user=${TP_TEST_USER:-tpalice}

# ---------------------------------------------------------------- inside a bed
if [ "${BENCH_INSIDE:-}" = 1 ]; then
	run=$1 work=$2 policy=$4
	. "$top/tests/lib/bed.sh"
	. "$top/tests/lib/slurm_place_lib.sh"
	abs_top_srcdir=$top abs_top_builddir=$build
	tp_slurm_setup
	mkdir -p "$store" && chmod 755 "$store"
	install -d -o "$user" -m 755 "$store/$user"
	printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=%s\n' \
		"$store" "$policy" >"$etc/topoplace.conf"
	[ -z "${BENCH_CONF:-}" ] || printf '%b\n' "$BENCH_CONF" >>"$etc/topoplace.conf"
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of $hosts hosts" ||
		{ echo "profile_coverage_bench: $run: topoplace.conf not loaded" >&2; exit 1; }
	t0=$(date +%s)
	: >"$work/$run.submitted"
	while read -r swf off nodes runs limit _class app; do
		if [ "$names" = same ]; then
			name=job
		else
			name=j$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
		fi
		while (($(date +%s) < t0 + off)); do sleep 0.1; done
		id=$(tp_as_user "$user" sbatch --parsable -N "$nodes" -n "$nodes" \
			--time $((limit + 1)) -J "$name" -o "$out/%j.out" \
			--export=ALL,TP_BENCH_RUN="$runs" "$work/apps/$app.sh" \
			2>>"$work/$run.sbatch.err")
		echo "${id:-none} $swf $app $nodes $runs $name" >>"$work/$run.submitted"
	done < <(grep -v '^#' "$work/jobs.txt")
	deadline=$((SECONDS + drain))
	while [ -n "$(squeue -h)" ] && ((SECONDS < deadline)); do sleep 1; done
	squeue -h -o '%i %T %r' >"$work/$run.left"
	# id SystemComment (the bed keeps ended jobs for MinJobAge).
	while read -r id _; do
		[ "$id" = none ] || echo "$id $(system_comment "$id")"
	done <"$work/$run.submitted" >"$work/$run.comments"
	# id state submit start end nodes, times in epoch seconds.
	awk '{
		id = st = nn = ""; sb = bg = en = "@0"
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "JobId") id = kv[2]
			else if (kv[1] == "JobState") st = kv[2]
			else if (kv[1] == "NodeCnt") nn = kv[2]
			else if (kv[1] == "SubmitTime" && kv[2] ~ /^[0-9]+-/) sb = kv[2]
			else if (kv[1] == "StartTime" && kv[2] ~ /^[0-9]+-/) bg = kv[2]
			else if (kv[1] == "EndTime" && kv[2] ~ /^[0-9]+-/) en = kv[2]
		}
		print id, st, nn > "/dev/stderr"
		print sb; print bg; print en
	}' "$TP_BED_LOGDIR/jobcomp.txt" 2>"$work/$run.ids" >"$work/$run.times"
	date -f "$work/$run.times" +%s | paste -d' ' - - - |
		paste -d' ' "$work/$run.ids" - |
		awk '{ print $1, $2, $4, $5, $6, $3 }' >"$work/$run.done"
	rm -f "$work/$run.ids" "$work/$run.times"
	cp "$TP_BED_LOGDIR/jobcomp.txt" "$work/$run.jobcomp.txt"
	# Jobs recorded (their stderr says so) and the runs in the store.
	grep -l "^topoplace: \(.*; \)\?this job's MPI steps are recorded as profile" "$out"/*.out 2>/dev/null |
		sed 's|.*/||; s|\.out$||' | sort -n >"$work/$run.recorded"
	(cd "$store/$user" && find . -name '*.tpp' | sort) >"$work/$run.store"
	grep -o 'topoplace: JobId=[0-9]*: placement=.*' "$log" >"$work/$run.decisions" 2>/dev/null
	# The end of the output of every job that did not complete.
	awk '$2 != "COMPLETED" { print $1 }' "$work/$run.done" | while read -r id; do
		echo "== $id"
		tail -n 5 "$out/$id.out" 2>/dev/null
	done >"$work/$run.failed"
	exit 0
fi

# ---------------------------------------------------------------- outside
# report: the figures of the runs in $work (also BENCH_REPORT_ONLY=1).
report() {
	local policy run
	awk -v runs="$runs" -v work="$work" -v compress="$compress" \
		-f "$top/bench/profile_coverage_report.awk"
	for policy in off "$record"; do
		run=${policy//:/_}
		[ -s "$work/$run.done" ] || continue
		awk -v run="$run" '{ s[$2]++ } END { for (x in s) printf "# %s: %d jobs %s\n", run, s[x], x }' \
			"$work/$run.done" | sort
		if [ -s "$work/$run.left" ]; then
			echo "# $run: $(wc -l <"$work/$run.left") jobs left in the queue at the drain bound"
		fi
		# How far the replay fell behind its schedule: Slurm's SubmitTime
		# against the job's offset, both from the first job (sbatch one
		# after the other on a loaded machine; a lag delays the jobs
		# behind a run and so changes which count as "ran before").
		awk -v run="$run" 'FNR == 1 { f++ }
			f == 1 { if (!/^#/) off[$1] = $2; next }
			f == 2 { if ($1 != "none") swf[$1] = $2; next }
			($1 in swf) && $3 > 0 {
				if (!n++) { s0 = $3; o0 = off[swf[$1]] }
				lag = ($3 - s0) - (off[swf[$1]] - o0); sum += lag; if (lag > max) max = lag
			}
			END { if (n) printf "# %s: submissions behind schedule: mean %.1f s, max %d s\n", run, sum / n, max }' \
			"$work/jobs.txt" "$work/$run.submitted" "$work/$run.done"
	done
	echo "# per job: $work/RUN.verdicts (id app nodes state verdict SystemComment)"
}
runs="off $record"
runs=${runs//:/_}
if [ "${BENCH_REPORT_ONLY:-}" = 1 ]; then
	work=${BENCH_OUT:?BENCH_REPORT_ONLY=1 needs BENCH_OUT, the records of a run}
	report
	exit 0
fi
die() { echo "profile_coverage_bench: $*" >&2; exit 1; }
[ -x "$build/tools/topoplace-fattree" ] || die "no build in $build"
[ -f "$build/profiles/.libs/libtopoplace_profiler.so" ] ||
	die "$build has no profiler library (configure found no MPI)"
MPICC=$(command -v mpicc.openmpi || command -v mpicc) || die "mpicc not installed"
[ -n "$(ls /usr/lib/*/slurm-wlm/mpi_pmix*.so 2>/dev/null)" ] ||
	die "Slurm's mpi/pmix plugin is not installed"
((hosts % leaves == 0)) || die "$hosts hosts do not split into $leaves leaves"
case $names in random | same) ;; *) die "BENCH_NAMES is random or same, not $names" ;; esac
work=${BENCH_OUT:-$(mktemp -d /tmp/tp-coverage-bench.XXXXXX)}
mkdir -p "$work/apps" && chmod 755 "$work" "$work/apps" || exit 1
"$MPICC" -O2 "$top/tests/integration/mpi_patterns.c" -pthread -o "$work/mpi_patterns" ||
	die "mpi_patterns does not build"
echo "optional $build/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
"$build/tools/topoplace-fattree" --leaves "$leaves" --hosts-per-leaf $((hosts / leaves)) \
	--spines 2 --format slurm -o "$work/topology.conf" || exit 1
zcat -f "$trace" | awk -f "$top/bench/load_prep.awk" -v hosts="$hosts" \
	-v compress="$compress" -v window="$window" -v run_cap="$run_cap" \
	-v min_jobs="$min_jobs" ${BENCH_START:+-v start="$BENCH_START"} >"$work/stream.txt" || exit 1
# Each job's application: e<executable number>, else u<user>, else j<job>
# (load_prep.awk's key for the class), appended to its line.
zcat -f "$trace" | awk 'FNR == NR { if ($0 !~ /^#/) want[$1] = 1; next }
	/^;/ { next }
	($1 in want) { print $1, ($14 > 0 ? "e" $14 : ($12 > 0 ? "u" $12 : "j" $1)) }' \
	"$work/stream.txt" - >"$work/apps.txt"
awk 'FNR == NR { app[$1] = $2; next } /^#/ { print; next } { print $0, app[$1] }' \
	"$work/apps.txt" "$work/stream.txt" >"$work/jobs.txt"
# One batch script per application.  Ranks talk over TCP on loopback (the
# bed's nodes are one host; slurm_record_nodes.sh says why not shared
# memory); TMPDIR is the node's TmpFS (Open MPI's session directory).
tmpfs=/run/topoplace-bed/tmp
case ${BENCH_EXEC:-shared} in
shared | per-app) ;;
*) die "BENCH_EXEC=${BENCH_EXEC}: not shared or per-app" ;;
esac
case ${BENCH_ARGS:-pattern} in
pattern | per-app) ;;
*) die "BENCH_ARGS=${BENCH_ARGS}: not pattern or per-app" ;;
esac
for app in $(awk '!/^#/ { print $7 }' "$work/jobs.txt" | sort -u); do
	# BENCH_EXEC=shared (default): every application runs one binary, as
	# scripts of one solver do; per-app: each its own copy, as distinct
	# programs (the executable rule tells these apart, not those).
	exe=mpi_patterns
	if [ "${BENCH_EXEC:-shared}" = per-app ]; then
		exe=mpi_patterns.$app
		cp "$work/mpi_patterns" "$work/$exe"
		echo "$app $app $app" >>"$work/$exe" # a hash of its own
	fi
	case $((${app#?} % 3)) in
	0) prog="ring 20 4096" ;;
	1) prog="stencil 10 8 8 8" ;;
	*) prog="alltoall 10 256" ;;
	esac
	if [ "${BENCH_ARGS:-pattern}" = per-app ]; then
		prog="$prog in.$app"
	fi
	cat >"$work/apps/$app.sh" <<SCRIPT
#!/bin/bash
# application $app of the trace
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=$tmpfs
end=\$((SECONDS + \${TP_BENCH_RUN:-1}))
srun --mpi=pmix $work/$exe $prog
rc=\$?
left=\$((end - SECONDS))
if [ \$left -gt 0 ]; then sleep \$left; fi
exit \$rc
SCRIPT
	chmod 644 "$work/apps/$app.sh"
done
echo "# $(date -u +%FT%TZ) $(uname -n) nproc=$(nproc) cpu=$(lscpu | sed -n 's/^Model name: *//p') load=$(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: $0 $build; ProfileRecord off then $record, BENCH_NAMES=$names, BENCH_EXEC=${BENCH_EXEC:-shared}, BENCH_ARGS=${BENCH_ARGS:-pattern}${BENCH_CONF:+, BENCH_CONF=$BENCH_CONF}"
echo "# trace: $(basename "$trace")"
grep '^#' "$work/stream.txt"
echo "# applications: $(cut -d' ' -f2 "$work/apps.txt" | sort -u | wc -l) in $(wc -l <"$work/apps.txt") jobs"
echo "# bed: $hosts hosts, $leaves leaves x $((hosts / leaves)), 2 spines; records in $work"
export TOPOPLACE_LIBDIR=$build/profiles/.libs:$build/throttle/.libs
for policy in off "$record"; do
	run=${policy//:/_}
	BENCH_INSIDE=1 abs_top_builddir=$build "$top/tests/lib/tp-bed" \
		--topology "$work/topology.conf" --cpus 2 \
		--select select/topoplace_cons_tres --task-plugin task/topoplace \
		--node-tmpfs --conf "MpiDefault=pmix" \
		--plugin-dir "$build/slurm-plugin/.libs" --plugstack "$work/plugstack.conf" \
		--conf "JobCompType=jobcomp/filetxt" \
		--conf "JobCompLoc=/run/topoplace-bed/log/jobcomp.txt" \
		--conf "MinJobAge=3600" \
		--timeout $((drain + window / compress + 600)) \
		-- bash "$0" "$run" "$work" "$build" "$policy" ||
		{ echo "profile_coverage_bench: run $run failed (see tp-bed's message above)" >&2; continue; }
done
report
