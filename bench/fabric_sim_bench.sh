#!/bin/bash
# fabric_sim_bench.sh: issue 19 goal 3 on a fabric model.  Do throttle
# windows chosen by topoplace protect MPI messages on a credit-flow-
# controlled fat tree when the I/O clients start together, with the pacing
# library's per-client phase on, and without it; on the seeds the window
# was chosen from and on seeds it never saw?
#
#   bench/fabric_sim_bench.sh [BUILD_DIR]   (default: the current directory)
#
# Environment (defaults in brackets):
#   WINDOWS [0,2000,2500,3000,3500,4000,5000,6000,8000,10000]  sweep (us)
#   OBJECTIVE ['mpi_slowdown<=1.1']  ROUTING [static]
#   SWEEP_SEEDS [1 .. 12]  the runs of the calibration sweep (an unseen
#      seed is worse than all 12 with chance 1 in 13; bench/RESULTS.md)
#   SEEDS [13 .. 24]  the seeds the chosen window is checked on (those
#      not in SWEEP_SEEDS are held out: the choice never saw them)
#   PHASES [on off]  the pacing phase settings step 3 checks
#   DURATION_MS [100] simulated per run;  SIM_ARGS: more bench/fabric_sim
#   options (the fabric and workload; its --help), the same in every run
#   SWEEP_OUT, TABLE_OUT: keep the sweep and the threshold table
# A seed sets the job id (so the clients' phases), the clients' servers
# and the victims' first sends: each seed is another run of one job.
# Steps:
#   1. sweep: bench/fabric_sim with the phase on and clients started
#      together, once per seed of SWEEP_SEEDS: the victims alone, then
#      every window of WINDOWS (0: the unthrottled point); the runs
#      together as one topoplace-sweep(5) v3 file (run = seed); per window
#      each seed's figures and the worst;
#   2. topoplace throttle thresholds, then topoplace throttle window
#      --objective OBJECTIVE: the window chosen on the worst run per
#      window, which run decided, and the predicted I/O cost;
#   3. per seed of SEEDS, with each phase of PHASES: the victims alone, the
#      unthrottled clients and the clients at the chosen window; the
#      victims' mean and p99 over alone, whether the objective holds
#      (mpi_slowdown: the victims' mean; io_cost: the measured cost), and
#      the measured I/O cost (the clients' mean interval at the window over
#      the unthrottled one, minus 1) beside the predicted one; a count of
#      the runs that met it, sweep seeds and held-out seeds apart.
# Prints figures; exits 0 when it ran (the verdicts are figures, not the
# exit status), 2 when it cannot run here.
set -u
build=$(cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
sim=$build/bench/fabric_sim
topoplace=$build/tools/topoplace
for f in "$sim" "$topoplace"; do
	[[ -x $f ]] || { echo "fabric_sim_bench: build first (need $f)" >&2; exit 2; }
done

windows=${WINDOWS:-0,2000,2500,3000,3500,4000,5000,6000,8000,10000}
objective=${OBJECTIVE:-mpi_slowdown<=1.1}
sweep_seeds=${SWEEP_SEEDS:-$(seq -s' ' 1 12)}
seeds=${SEEDS:-$(seq -s' ' 13 24)}
phases=${PHASES:-on off}
routing=${ROUTING:-static}
read -ra sim_args <<<"--routing $routing --duration-ms ${DURATION_MS:-100} ${SIM_ARGS:-}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tp-fabric-sim.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
sweep=${SWEEP_OUT:-$tmp/sweep.csv}
table=${TABLE_OUT:-$tmp/table.csv}

# The pipeline's inputs as the shared-link bench passes them: request
# size, clients, and the nominal interval (a request at link rate).
"$sim" "${sim_args[@]}" --alone --windows 0 --duration-ms 1 >"$tmp/probe.csv" 2>/dev/null ||
	{ echo "fabric_sim_bench: fabric_sim ${sim_args[*]} failed" >&2; exit 2; }
IFS=, read -r LINK_BYTES LINK_CLIENTS _ < <(sed -n 3p "$tmp/probe.csv")
gbps=$(sed -n '1s/.*link_gbps=\([0-9]*\).*/\1/p' "$tmp/probe.csv")
# shellcheck disable=SC2034 # read by tests/lib/pacing_link.sh
LINK_CLIENT_RATE=$((gbps * 125000000))
# shellcheck disable=SC2034 # read by tests/lib/pacing_link.sh
LINK_STATS_DECIMALS=4
# shellcheck source=../tests/lib/pacing_link.sh
. "$here/../tests/lib/pacing_link.sh"

echo "== setup: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "   $(head -1 "$tmp/probe.csv" | sed 's/^# topoplace-sweep v2 //; s/ phase=[a-z]*//; s/ seed=[0-9]*//; s/ duration_ms=[0-9]*//')," \
	"${DURATION_MS:-100} ms per run${SIM_ARGS:+, $SIM_ARGS}"
echo "   $LINK_CLIENTS clients x $LINK_BYTES B requests; objective $objective;" \
	"sweep seeds $sweep_seeds; check seeds $seeds"

# objective_met OBJECTIVE MEAN_X COST: true when the run meets the
# objective: mpi_slowdown<=X on the victims' mean over alone, io_cost<=P%
# on the measured I/O cost (COST as "+12.3%").
objective_met() {
	local bound=${1#io_cost<=}
	[[ $bound != "$1" ]] || { link_objective_met "$1" "$2"; return; }
	awk -v c="${3%\%}" -v b="${bound%\%}" 'BEGIN { exit !(c + 0 <= b + 0) }'
}

# sweep_run SEED OUT: one seed's sweep (phase on), a v2 file.
sweep_run() {
	"$sim" "${sim_args[@]}" --alone --windows "$windows" --phase on \
		--seed "$1" >"$2" 2>"$tmp/sim.log" || { cat "$tmp/sim.log" >&2; return 1; }
}

echo
echo "== 1. sweep (phase on, clients started together), seeds $sweep_seeds"
first=1
for seed in $sweep_seeds; do
	sweep_run "$seed" "$tmp/sweep-$seed.csv" || exit 1
	# v2 rows to v3: the seed is the run.
	if ((first)); then
		sed -n '1s/^# topoplace-sweep v2 /# topoplace-sweep v3 runs of seeds '"${sweep_seeds// /,}"', first /p' \
			"$tmp/sweep-$seed.csv"
		echo "request_bytes,clients,interval_us,client,start_us,latency_us,kind,run"
		first=0
	fi
	awk -v r="$seed" 'NR > 2 && /^[0-9]/ { print $0 "," r }' "$tmp/sweep-$seed.csv"
done >"$sweep"
printf "%-10s %5s %10s %12s %10s %10s\n" window seed io_interval victim_mean victim_p99 requests
for w in ${windows//,/ }; do
	for seed in $sweep_seeds; do
		printf "%-10s %5s %s\n" "$w" "$seed" "$(link_point_summary "$tmp/sweep-$seed.csv" "$w" | cut -c12-)"
	done | tee "$tmp/point"
	# The worst seed's mean (the one a window must meet), and its seed.
	awk '{ m = $4 + 0; p = $5 + 0; if (NR == 1 || m > wm) { wm = m; ws = $2 } if (p > wp) wp = p }
		END { printf "%-10s %5s %10s %11.2fx %9.2fx  (seed %s)\n", $1, "worst", "", wm, wp, ws }' "$tmp/point"
done

echo
echo "== 2. thresholds and the window for $objective"
"$topoplace" throttle thresholds "$sweep" -o "$table" || exit 1
grep '^#' "$table" | sed 's/^/   /'
chosen=$(link_choose_window "$table" "$objective" 2>"$tmp/decision") || {
	cat "$tmp/decision" >&2
	exit 1
}
cat "$tmp/decision"
predicted=$(sed -n 's/^ *expected_cost=\([-+0-9.]*%\).*/\1/p' "$tmp/decision")
echo "   chosen window: $chosen us, predicted I/O cost ${predicted:-none}"
if ! [[ $chosen =~ ^[1-9][0-9]*$ ]]; then
	echo "   no window to check"
	exit 0
fi

echo
echo "== 3. at $chosen us, clients started together, seeds $seeds (held out: not in $sweep_seeds)"
printf "%-6s %4s %-5s %9s %9s %11s %11s %8s %8s %-9s %9s %9s %9s %9s\n" phase seed set \
	alone_us alone_p99 victim_us victim_p99 mean_x p99_x objective T0_us \
	interval cost predicted
for phase in $phases; do
	met_swept=0 n_swept=0 met_held=0 n_held=0
	for seed in $seeds; do
		run=$tmp/check-$phase-$seed.csv
		"$sim" "${sim_args[@]}" --alone --windows "0,$chosen" --phase "$phase" \
			--seed "$seed" >"$run" 2>"$tmp/sim.log" || { cat "$tmp/sim.log" >&2; exit 1; }
		alone=$(link_latency_stats alone 0 <"$run")
		victim=$(link_latency_stats victim "$chosen" <"$run")
		t0=$(link_io_interval 0 <"$run")
		at=$(link_io_interval "$chosen" <"$run")
		read -r mean_x p99_x cost < <(awk -v a="$alone" -v v="$victim" \
			-v t0="${t0% *}" -v at="${at% *}" 'BEGIN {
			split(a, A, " "); split(v, V, " ")
			printf "%.3f %.3f %+.1f%%\n", V[1] / A[1], V[2] / A[2], (at / t0 - 1) * 100 }')
		met=no
		objective_met "$objective" "$mean_x" "$cost" && met=yes
		set=held
		[[ " $sweep_seeds " == *" $seed "* ]] && set=sweep
		if [[ $set == sweep ]]; then
			((n_swept++)); [[ $met == yes ]] && ((met_swept++))
		else
			((n_held++)); [[ $met == yes ]] && ((met_held++))
		fi
		printf "%-6s %4s %-5s %9s %9s %11s %11s %7sx %7sx %-9s %9s %9s %9s %9s\n" \
			"$phase" "$seed" "$set" "${alone% *}" "${alone#* }" "${victim% *}" "${victim#* }" \
			"$mean_x" "$p99_x" "$met" \
			"${t0% *}" "${at% *}" "$cost" "${predicted:-none}"
	done
	echo "phase $phase: objective met in $met_swept of $n_swept sweep seeds, $met_held of $n_held held-out seeds"
done
