#!/bin/bash
# fabric_sim_bench.sh: issue 19's three goals on a fabric model, in one
# run.  Do throttle windows chosen by topoplace protect MPI messages on a
# credit-flow-controlled fat tree when the I/O clients start together,
# with the pacing library's per-client phase on, and without it; on the
# seeds the window was chosen from and on seeds it never saw (goal 3)?  Is
# the chosen window the one the objective asks for on the sweep (goal 2)?
# Is the predicted I/O cost within 25% of the measured one (goal 1)?
#
#   bench/fabric_sim_bench.sh [BUILD_DIR]   (default: the current directory)
#
# Environment (defaults in brackets):
#   WINDOWS [0,2000,2500,3000,3500,4000,5000,6000,8000,10000]  sweep (us)
#   OBJECTIVES ['mpi_slowdown<=1.1' 'io_cost<=20%'] (space-separated; the
#      old OBJECTIVE names one)  ROUTING [static]
#   SWEEP_SEEDS [1 .. 12]  the runs of the calibration sweep (an unseen
#      seed is worse than all 12 with chance 1 in 13; bench/RESULTS.md)
#   SEEDS [13 .. 24]  the seeds the chosen window is checked on (those
#      not in SWEEP_SEEDS are held out: the choice never saw them)
#   PHASES [on off]  the pacing phase settings step 3 checks
#   CONFIDENCES [worst 0.95]  the ThrottleConfidence values each
#      mpi_slowdown objective is decided at (worst: the worst run alone)
#   DURATION_MS [100] simulated per run;  SIM_ARGS: more bench/fabric_sim
#   options (the fabric and workload; its --help), the same in every run
#   SWEEP_OUT, TABLE_OUT: keep the sweep and the threshold table
#   SWEEP_IN: a v3 sweep an earlier run kept with SWEEP_OUT (the same
#      SWEEP_SEEDS, WINDOWS and model settings): step 1 reads it instead
#      of simulating again (the model is deterministic)
#   CHECK_RUNS: a directory step 3's runs (one v2 file per phase and seed)
#      are kept in; a run found there that measured every window step 3
#      needs is read instead of simulated again (the same model settings)
#   CHECK_WINDOWS: more windows (us, comma-separated) step 3 simulates
#      besides the chosen ones, so that a later run with CHECK_RUNS can
#      check other choices without simulating
# A seed sets the job id (so the clients' phases), the clients' servers
# and the victims' first sends: each seed is another run of one job.
# Steps:
#   1. sweep: bench/fabric_sim with the phase on and clients started
#      together, once per seed of SWEEP_SEEDS: the victims alone, then
#      every window of WINDOWS (0: the unthrottled point); the runs
#      together as one topoplace-sweep(5) v3 file (run = seed); per window
#      each seed's figures and the worst;
#   2. topoplace throttle thresholds, then per objective topoplace
#      throttle window --objective: the window chosen on the worst run per
#      window, which run decided, the predicted I/O cost (the median run's)
#      and its bound; goal 2 checked on step 1's figures, not topoplace's
#      (mpi_slowdown<=X: the smallest window whose worst seed is within X;
#      io_cost<=P%: of the windows whose cost bound, the slowest seed there
#      over the fastest unthrottled, is within P, the lowest worst-seed
#      victim mean); goals 1 and 3 on the sweep seeds at the chosen window
#      (each seed's own cost, its interval there over its unthrottled one,
#      minus 1, against the predicted; the objective on each seed);
#   3. per seed of SEEDS, with each phase of PHASES: the victims alone, the
#      unthrottled clients and the clients at each objective's chosen
#      window; the victims' mean and p99 over alone, whether the objective
#      holds (mpi_slowdown: the victims' mean; io_cost: the measured
#      cost), and the measured I/O cost beside the predicted one and
#      whether it is within 25% of it (goal 1); counts of the runs that met
#      each, sweep seeds and held-out seeds apart.
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
read -ra objectives <<<"${OBJECTIVES:-${OBJECTIVE:-mpi_slowdown<=1.1 io_cost<=20%}}"
sweep_seeds=${SWEEP_SEEDS:-$(seq -s' ' 1 12)}
seeds=${SEEDS:-$(seq -s' ' 13 24)}
phases=${PHASES:-on off}
read -ra confidences <<<"${CONFIDENCES:-worst 0.95}"
routing=${ROUTING:-static}
read -ra sim_args <<<"--routing $routing --duration-ms ${DURATION_MS:-100} ${SIM_ARGS:-}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tp-fabric-sim.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
sweep=${SWEEP_OUT:-$tmp/sweep.csv}
table=${TABLE_OUT:-$tmp/table.csv}
sweep_in=${SWEEP_IN:-}
check_runs=${CHECK_RUNS:-}
[[ -z $check_runs ]] || mkdir -p "$check_runs" || exit 2
[[ -z $sweep_in || -r $sweep_in ]] || { echo "fabric_sim_bench: SWEEP_IN $sweep_in: not readable" >&2; exit 2; }

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
echo "   $LINK_CLIENTS clients x $LINK_BYTES B requests; objectives ${objectives[*]};" \
	"sweep seeds $sweep_seeds; check seeds $seeds${sweep_in:+; sweep read from $sweep_in}"

# objective_met OBJECTIVE MEAN_X COST: true when the run meets the
# objective: mpi_slowdown<=X on the victims' mean over alone, io_cost<=P%
# on the measured I/O cost (COST as "+12.3%").
objective_met() {
	local bound=${1#io_cost<=}
	[[ $bound != "$1" ]] || { link_objective_met "$1" "$2"; return; }
	awk -v c="${3%\%}" -v b="${bound%\%}" 'BEGIN { exit !(c + 0 <= b + 0) }'
}

# sweep_run SEED OUT: one seed's sweep (phase on), a v2 file; with
# SWEEP_IN, the seed's rows of that v3 file as one.
sweep_run() {
	if [[ -n $sweep_in ]]; then
		awk -F, -v r="$1" 'NR == 1 { print "# topoplace-sweep v2 run " r " of SWEEP_IN"; next }
			NR == 2 { print "request_bytes,clients,interval_us,client,start_us,latency_us,kind"; next }
			/^[0-9]/ && $8 == r { sub(/,[0-9]+$/, ""); print; n++ }
			END { exit !n }' "$sweep_in" >"$2" ||
			{ echo "fabric_sim_bench: SWEEP_IN has no run $1" >&2; return 1; }
		return
	fi
	"$sim" "${sim_args[@]}" --alone --windows "$windows" --phase on \
		--seed "$1" >"$2" 2>"$tmp/sim.log" || { cat "$tmp/sim.log" >&2; return 1; }
}

# run_figures SWEEP WINDOW: "interval mean_x p99_x" of one run at a window
# (the clients' mean interval in us; the victims' mean and p99 over alone,
# three decimals).
run_figures() {
	local alone victim io
	alone=$(link_latency_stats alone 0 <"$1")
	victim=$(link_latency_stats victim "$2" <"$1")
	io=$(link_io_interval "$2" <"$1")
	awk -v a="$alone" -v v="$victim" -v io="${io% *}" 'BEGIN {
		split(a, A, " "); split(v, V, " ")
		printf "%s %.3f %.3f\n", io, V[1] / A[1], V[2] / A[2] }'
}

echo
echo "== 1. sweep (phase on, clients started together), seeds $sweep_seeds"
first=1
for seed in $sweep_seeds; do
	sweep_run "$seed" "$tmp/sweep-$seed.csv" || exit 1
	[[ -n $sweep_in ]] && continue
	# v2 rows to v3: the seed is the run.
	if ((first)); then
		sed -n '1s/^# topoplace-sweep v2 /# topoplace-sweep v3 runs of seeds '"${sweep_seeds// /,}"', first /p' \
			"$tmp/sweep-$seed.csv"
		echo "request_bytes,clients,interval_us,client,start_us,latency_us,kind,run"
		first=0
	fi
	awk -v r="$seed" 'NR > 2 && /^[0-9]/ { print $0 "," r }' "$tmp/sweep-$seed.csv"
done >"$tmp/sweep-new.csv"
if [[ -n $sweep_in ]]; then
	sweep=$sweep_in
else
	mv "$tmp/sweep-new.csv" "$sweep"
fi
# $tmp/runs: "window seed interval mean_x p99_x" per sweep run, the
# figures goals 1-3 are checked on in step 2.
: >"$tmp/runs"
printf "%-10s %5s %10s %12s %10s %10s\n" window seed io_interval victim_mean victim_p99 requests
for w in ${windows//,/ }; do
	for seed in $sweep_seeds; do
		printf "%-10s %5s %s\n" "$w" "$seed" "$(link_point_summary "$tmp/sweep-$seed.csv" "$w" | cut -c12-)"
		echo "$w $seed $(run_figures "$tmp/sweep-$seed.csv" "$w")" >>"$tmp/runs"
	done | tee "$tmp/point"
	# The worst seed's mean (the one a window must meet), and its seed.
	awk '{ m = $4 + 0; p = $5 + 0; if (NR == 1 || m > wm) { wm = m; ws = $2 } if (p > wp) wp = p }
		END { printf "%-10s %5s %10s %11.2fx %9.2fx  (seed %s)\n", $1, "worst", "", wm, wp, ws }' "$tmp/point"
done

# within25 PREDICTED MEASURED (as "+12.3%"): yes when the prediction is
# within 25% of the measured cost (goal 1).
within25() {
	awk -v p="${1%\%}" -v m="${2%\%}" 'BEGIN { d = p - m; if (d < 0) d = -d
		if (m < 0) m = -m; exit !(d <= 0.25 * m) }' && echo yes || echo no
}

# goal2 OBJECTIVE CHOSEN: goal 2 on step 1's figures: the window the
# objective asks for on the sweep (the worst seed per window), and
# whether CHOSEN is it.
goal2() {
	awk -v o="$1" -v chosen="$2" '
		{ w = $1 + 0; if (!(w in worst) || $4 + 0 > worst[w]) worst[w] = $4 + 0
		  if ($3 + 0 > slow[w]) slow[w] = $3 + 0
		  if (w == 0 && (!t0 || $3 + 0 < t0)) t0 = $3 + 0
		  if (!(w in seen)) { seen[w] = 1; order[n++] = w } }
		END {
			if (o ~ /^mpi_slowdown<=/) {
				x = substr(o, 15) + 0; want = ""
				for (i = 0; i < n; i++) if (worst[order[i]] <= x) { want = order[i]; break }
				why = sprintf("the smallest sweep window whose worst seed is within %gx", x)
			} else {
				p = substr(o, 10); sub(/%/, "", p); p = p / 100; want = ""
				for (i = 0; i < n; i++) { w = order[i]; c = slow[w] / t0 - 1; if (c < 0) c = 0
					if (c <= p + 1e-9 && (want == "" || worst[w] < worst[want])) want = w }
				why = sprintf("of the sweep windows whose cost bound is within %g%%, the lowest worst-seed victim mean", p * 100)
			}
			printf "   goal 2, %s: %s: %s (worst seed %.3fx); chosen %s: %s\n", o, why,
				want == "" ? "none" : want, want == "" ? 0 : worst[want], chosen,
				(want == "" ? chosen == 0 : chosen == want) ? "holds" : "does not hold"
		}' "$tmp/runs"
}

# goal2_bound OBJECTIVE CONFIDENCE T CHOSEN: goal 2 for a window chosen at
# a confidence, on step 1's figures: the smallest sweep window where the
# worst seed and the bound mean + T sd sqrt(1 + 1/N) over the seeds (T
# as the decision printed it) are both within X.
goal2_bound() {
	awk -v o="$1" -v q="$2" -v t="$3" -v chosen="$4" '
		{ w = $1 + 0; x = $4 + 0; n[w]++; s[w] += x; ss[w] += x * x
		  if (!(w in worst) || x > worst[w]) worst[w] = x
		  if (!(w in seen)) { seen[w] = 1; order[k++] = w } }
		END {
			lim = substr(o, 15) + 0; want = ""
			for (i = 0; i < k; i++) { w = order[i]; m = s[w] / n[w]
				v = n[w] > 1 ? (ss[w] - n[w] * m * m) / (n[w] - 1) : 0
				b = m + t * sqrt(v > 0 ? v : 0) * sqrt(1 + 1 / n[w])
				j = b > worst[w] ? b : worst[w]
				if (j <= lim) { want = w; break } }
			printf "   goal 2, %s at %s: the smallest sweep window whose worst seed and %s bound (step 1, t %s) are within %gx: %s (bound %.3fx); chosen %s: %s\n",
				o, q, q, t, lim, want == "" ? "none" : want, want == "" ? 0 : b, chosen,
				(want == "" ? chosen == 0 : chosen == want) ? "holds" : "does not hold"
		}' "$tmp/runs"
}

# mean_cost COSTS...: the mean of costs given as "+12.3%", as "+5.2%".
mean_cost() {
	printf '%s\n' "$@" | awk '{ sub(/%/, ""); s += $1; n++ } END { printf "%+.1f%%", n ? s / n : 0 }'
}

# sweep_goals OBJECTIVE CHOSEN PREDICTED: goals 1 and 3 on the sweep seeds
# at the chosen window (phase on, clients started together); goal 1 per
# seed and on the mean over the seeds (the prediction is an expectation).
sweep_goals() {
	local met=0 near=0 n=0 seed t0 at mean_x cost ok costs=()
	for seed in $sweep_seeds; do
		t0=$(awk -v s="$seed" '$1 == 0 && $2 == s { print $3 }' "$tmp/runs")
		read -r at mean_x < <(awk -v w="$2" -v s="$seed" '$1 == w && $2 == s { print $3, $4 }' "$tmp/runs")
		cost=$(awk -v t0="$t0" -v at="$at" 'BEGIN { printf "%+.1f%%", (at / t0 - 1) * 100 }')
		objective_met "$1" "$mean_x" "$cost" && ((met++))
		ok=$(within25 "$3" "$cost")
		[[ $ok == yes ]] && ((near++))
		((n++))
		costs+=("$cost")
		printf "   sweep seed %3s: T0 %s us, %s us at the window, cost %s (predicted %s, within 25%%: %s), victim %sx\n" \
			"$seed" "$t0" "$at" "$cost" "$3" "$ok" "$mean_x"
	done
	echo "   goal 1 on the sweep, $1: predicted $3 within 25% of the measured cost on $near of $n sweep seeds;" \
		"of their mean $(mean_cost "${costs[@]}"): $(within25 "$3" "$(mean_cost "${costs[@]}")")"
	echo "   goal 3 on the sweep, $1: met on $met of $n sweep seeds (phase on, clients started together)"
}

echo
echo "== 2. thresholds and the windows for ${objectives[*]}"
"$topoplace" throttle thresholds "$sweep" -o "$table" || exit 1
grep '^#' "$table" | sed 's/^/   /'
# choose OBJECTIVE CONFIDENCE: the decision (indented, into
# $tmp/decision) and the chosen window_us (stdout).
choose() {
	local out
	out=$("$topoplace" throttle window --table "$table" --bytes "$LINK_BYTES" \
		--clients "$LINK_CLIENTS" \
		--interval "$((LINK_BYTES * 1000000 / LINK_CLIENT_RATE))us" \
		--objective "$1" --confidence "$2") || return 1
	awk '{ print "   " $0 }' <<<"$out" >"$tmp/decision"
	sed -n 's/^window_us=//p' <<<"$out"
}

# chosen[k], predicted[k], checked[k] (a label: the objective, and for
# mpi_slowdown the confidence), objective_of[k].
chosen=() predicted=() checked=() objective_of=()
for objective in "${objectives[@]}"; do
	rules=("${confidences[@]}")
	[[ $objective == mpi_slowdown* ]] || rules=("${confidences[-1]}")
	for conf in "${rules[@]}"; do
		label=$objective
		[[ $objective == mpi_slowdown* ]] && label+="@$conf"
		echo "-- $objective, ThrottleConfidence=$conf"
		w=$(choose "$objective" "$conf") || { cat "$tmp/decision" >&2; exit 1; }
		cat "$tmp/decision"
		p=$(sed -n 's/^ *expected_cost=\([-+0-9.]*%\).*/\1/p' "$tmp/decision")
		b=$(sed -n 's/^ *cost_bound=\([-+0-9.]*%\).*/\1/p' "$tmp/decision")
		echo "   chosen window: $w us, predicted I/O cost ${p:-none}${b:+ (at most $b)}"
		t=$(sed -n 's/.* t([0-9]*, [0-9.]*)=\([0-9.]*\) .*/\1/p' "$tmp/decision")
		if [[ -n $t ]]; then
			goal2_bound "$objective" "$conf" "$t" "$w"
		else
			goal2 "$objective" "$w"
		fi
		if [[ $w =~ ^[1-9][0-9]*$ ]]; then
			sweep_goals "$objective" "$w" "$p"
			chosen+=("$w") predicted+=("$p") checked+=("$label") objective_of+=("$objective")
		else
			echo "   not throttled: nothing to check on held-out seeds"
		fi
	done
done
if ((${#chosen[@]} == 0)); then
	echo "   no window to check"
	exit 0
fi

echo
echo "== 3. clients started together, seeds $seeds (held out: not in $sweep_seeds), at ${chosen[*]} us (${checked[*]})"
printf "%-6s %4s %-5s %-24s %9s %9s %11s %11s %8s %8s %-9s %9s %9s %9s %9s %-6s\n" phase seed set \
	objective alone_us alone_p99 victim_us victim_p99 mean_x p99_x met T0_us \
	interval cost predicted in25%
sim_windows=0
for w in "${chosen[@]}" ${CHECK_WINDOWS//,/ }; do [[ ,$sim_windows, == *,$w,* ]] || sim_windows+=",$w"; done

# check_run PHASE SEED OUT: step 3's run of a seed (the victims alone, then
# every window of sim_windows), from CHECK_RUNS when a kept run measured
# them all, else simulated (and kept there).
check_run() {
	local kept=${check_runs:+$check_runs/check-$1-$2.csv}
	if [[ -n $kept && -s $kept ]] && awk -F, -v want="$sim_windows" '
		BEGIN { n = split(want, W, ",") } /^[0-9]/ && $7 != "alone" { seen[$3 + 0] = 1 }
		END { for (i = 1; i <= n; i++) if (!(W[i] + 0 in seen)) exit 1 }' "$kept"; then
		cp "$kept" "$3"
		return
	fi
	"$sim" "${sim_args[@]}" --alone --windows "$sim_windows" --phase "$1" \
		--seed "$2" >"$3" 2>"$tmp/sim.log" || { cat "$tmp/sim.log" >&2; return 1; }
	[[ -z $kept ]] || cp "$3" "$kept"
}
for phase in $phases; do
	declare -A met_swept=() n_swept=() met_held=() n_held=() near_held=() costs_held=()
	for seed in $seeds; do
		run=$tmp/check-$phase-$seed.csv
		check_run "$phase" "$seed" "$run" || exit 1
		alone=$(link_latency_stats alone 0 <"$run")
		t0=$(link_io_interval 0 <"$run")
		set=held
		[[ " $sweep_seeds " == *" $seed "* ]] && set=sweep
		for k in "${!chosen[@]}"; do
			objective=${checked[k]} w=${chosen[k]} goal=${objective_of[k]}
			victim=$(link_latency_stats victim "$w" <"$run")
			at=$(link_io_interval "$w" <"$run")
			read -r mean_x p99_x cost < <(awk -v a="$alone" -v v="$victim" \
				-v t0="${t0% *}" -v at="${at% *}" 'BEGIN {
				split(a, A, " "); split(v, V, " ")
				printf "%.3f %.3f %+.1f%%\n", V[1] / A[1], V[2] / A[2], (at / t0 - 1) * 100 }')
			met=no
			objective_met "$goal" "$mean_x" "$cost" && met=yes
			near=$(within25 "${predicted[k]}" "$cost")
			if [[ $set == sweep ]]; then
				((n_swept[$objective]++)); [[ $met == yes ]] && ((met_swept[$objective]++))
			else
				((n_held[$objective]++)); [[ $met == yes ]] && ((met_held[$objective]++))
				[[ $near == yes ]] && ((near_held[$objective]++))
				costs_held[$objective]+=" $cost"
			fi
			printf "%-6s %4s %-5s %-24s %9s %9s %11s %11s %7sx %7sx %-9s %9s %9s %9s %9s %-6s\n" \
				"$phase" "$seed" "$set" "$objective" "${alone% *}" "${alone#* }" "${victim% *}" "${victim#* }" \
				"$mean_x" "$p99_x" "$met" \
				"${t0% *}" "${at% *}" "$cost" "${predicted[k]:-none}" "$near"
		done
	done
	for k in "${!checked[@]}"; do
		objective=${checked[k]}
		# shellcheck disable=SC2086 # the costs, one word each
		mean=$(mean_cost ${costs_held[$objective]:-})
		echo "phase $phase, $objective at ${chosen[k]} us: objective met in ${met_swept[$objective]:-0} of ${n_swept[$objective]:-0} sweep seeds," \
			"${met_held[$objective]:-0} of ${n_held[$objective]:-0} held-out seeds;" \
			"predicted cost ${predicted[k]} within 25% of measured on ${near_held[$objective]:-0} of ${n_held[$objective]:-0} held-out seeds," \
			"of their mean $mean: $(within25 "${predicted[k]}" "$mean")"
	done
	unset met_swept n_swept met_held n_held near_held costs_held
done
