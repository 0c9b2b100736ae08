#!/bin/bash
# fabric_sim_bench.sh: issue 19 goal 3 on a fabric model.  Do throttle
# windows chosen by topoplace protect MPI messages on a credit-flow-
# controlled fat tree when the I/O clients start together, with the pacing
# library's per-client phase on, and without it?
#
#   bench/fabric_sim_bench.sh [BUILD_DIR]   (default: the current directory)
#
# Environment (defaults in brackets):
#   WINDOWS [0,2000,2500,3000,3500,4000,5000,6000,8000,10000]  sweep (us)
#   OBJECTIVE ['mpi_slowdown<=1.1']  SEEDS [1 2 3]  ROUTING [static]
#   DURATION_MS [100] simulated per run;  SIM_ARGS: more bench/fabric_sim
#   options (the fabric and workload; its --help), the same in every run
#   SWEEP_OUT, TABLE_OUT: keep the sweep and the threshold table
# Steps:
#   1. sweep: bench/fabric_sim with the phase on, seed 1, clients started
#      together: the victims alone, then every window of WINDOWS (0: the
#      unthrottled point), as a topoplace-sweep(5) v2 file;
#   2. topoplace throttle thresholds, then topoplace throttle window
#      --objective OBJECTIVE: the chosen window and its predicted I/O cost;
#   3. per seed of SEEDS, with the phase on and off: the victims alone, the
#      unthrottled clients and the clients at the chosen window; the
#      victims' mean and p99 over alone, whether the objective holds, and
#      the measured I/O cost (the clients' mean interval at the window over
#      the unthrottled one, minus 1) beside the predicted one.
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
seeds=${SEEDS:-1 2 3}
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
echo "   $LINK_CLIENTS clients x $LINK_BYTES B requests; objective $objective; seeds $seeds"

echo
echo "== 1. sweep (phase on, seed 1, clients started together)"
"$sim" "${sim_args[@]}" --alone --windows "$windows" --phase on --seed 1 \
	>"$sweep" 2>"$tmp/sim.log" || { cat "$tmp/sim.log" >&2; exit 1; }
printf "%-10s %10s %12s %10s %10s\n" window io_interval victim_mean victim_p99 requests
for w in ${windows//,/ }; do
	link_point_summary "$sweep" "$w"
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
echo "== 3. at $chosen us, clients started together, seeds $seeds"
printf "%-6s %4s %9s %9s %11s %11s %8s %8s %-9s %9s %9s %9s %9s\n" phase seed \
	alone_us alone_p99 victim_us victim_p99 mean_x p99_x objective T0_us \
	interval cost predicted
for phase in on off; do
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
		link_objective_met "$objective" "$mean_x" && met=yes
		printf "%-6s %4s %9s %9s %11s %11s %7sx %7sx %-9s %9s %9s %9s %9s\n" \
			"$phase" "$seed" "${alone% *}" "${alone#* }" "${victim% *}" "${victim#* }" \
			"$mean_x" "$p99_x" "$met" \
			"${t0% *}" "${at% *}" "$cost" "${predicted:-none}"
	done
done
