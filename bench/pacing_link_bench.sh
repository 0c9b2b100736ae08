#!/bin/bash
# pacing_link_bench.sh: do throttle windows protect small messages on a
# link shared with I/O clients that start together?  Measured on a real
# shared bottleneck, with the real pacing library.
#
#   bench/pacing_link_bench.sh [BUILD_DIR]   (default: the current directory)
#
# Environment (defaults in brackets):
#   LINK_RATE [250mbit]  LINK_LIMIT [512kb]  the shared link: tc tbf rate
#                      and fifo buffer (16 ms when full) at a router
#   CLIENT_RATE [7812500]  each I/O client's own sending rate, bytes/s
#                      (SO_MAX_PACING_RATE: its own link, 1/4 of the shared
#                      one, so that 4 clients at once fill it)
#   The rates are low so that the link, not the CPU, is the bottleneck on a
#   small shared machine (at 1 Gbit/s two loaded cores could not fill it).
#   CLIENTS [8]  BYTES [4194304]  I/O clients, and their message size
#   WINDOWS [0 1200000 1500000 1800000 2200000 2600000 3200000]  sweep (us)
#   DURATION [10000000]  us per run;  PING_BYTES [4096]  PING_EVERY [1000] us
#   OBJECTIVE ['mpi_slowdown<=1.1']  REPS [3]  SWEEP_OUT, TABLE_OUT: keep them
#
# The setup (in private network, mount and pid namespaces: nothing outside
# is touched, everything dies with the script):
#   clients ns --veth--> router ns --veth, tbf LINK_RATE/LINK_LIMIT--> server ns
#   CLIENTS writers (tests/integration/pacing_link writer), each through
#   libtopoplace_pacing.so (TOPOPLACE_IO_PACE_SOCKETS=1, SLURM_JOB_ID and
#   SLURM_PROCID as under srun), writing BYTES messages back to back to a
#   sink that answers each with one byte, all started at one
#   CLOCK_REALTIME instant (synchronized, like ranks leaving a barrier);
#   beside them a victim pinging PING_BYTES every PING_EVERY us to an echo
#   server across the same link (an MPI latency probe).
#   The link carries LINK_MTU (9000) byte packets, no segmentation offload.
# Steps:
#   1. sweep: the victim alone, then each window of WINDOWS (0: no
#      preload window, the unthrottled point) with the phase on, written
#      as a topoplace-sweep(5) v2 file (io rows: start from the library's
#      TOPOPLACE_IO_PACING_STATS, end from the sink's answer; victim and
#      alone rows: round trips);
#   2. topoplace throttle thresholds, then topoplace throttle window
#      --objective OBJECTIVE: the chosen window;
#   3. at the chosen window, REPS runs with the phase on and REPS with
#      TOPOPLACE_IO_PHASE=0, each after its own victim-alone run: the
#      victim's mean and p99 over alone, and whether the objective holds.
# Prints figures; exits 0 when it ran (the verdicts are figures, not the
# exit status), 2 when it cannot run here.
set -u
build=$(cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
lib=$build/throttle/.libs/libtopoplace_pacing.so
link=$build/tests/integration/pacing_link
topoplace=$build/tools/topoplace
for f in "$lib" "$link" "$topoplace"; do
	[[ -e $f ]] || { echo "pacing_link_bench: build first (need $f)" >&2; exit 2; }
done
if [[ -z ${TP_LINK_INSIDE:-} ]]; then
	[[ $(id -u) == 0 ]] || { echo "pacing_link_bench: needs root (network namespaces)" >&2; exit 2; }
	TP_LINK_INSIDE=1 exec unshare --net --mount --pid --fork --mount-proc \
		bash "$here/$(basename "$0")" "$build"
fi

# shellcheck source=../tests/lib/pacing_link.sh
. "$here/../tests/lib/pacing_link.sh"
link_setup || exit 2
trap link_cleanup EXIT

windows=${WINDOWS:-0 1200000 1500000 1800000 2200000 2600000 3200000}
objective=${OBJECTIVE:-mpi_slowdown<=1.1}
reps=${REPS:-3}
sweep=${SWEEP_OUT:-$LINK_TMP/sweep.csv}
table=${TABLE_OUT:-$LINK_TMP/table.csv}

echo "== setup: $(uname -r), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "   link: $(tc -n tprt qdisc show dev tpr1 | head -1)"
echo "   $LINK_CLIENTS clients x $LINK_BYTES B messages, each client capped at $LINK_CLIENT_RATE B/s;"
echo "   victim: $LINK_PING_BYTES B ping-pong every $LINK_PING_EVERY us; $LINK_DURATION us per run"

echo
echo "== 1. sweep (phase on, clients started together)"
link_sweep_header "pacing_link_bench $(date -u +%FT%TZ)" >"$sweep"
link_run_alone "$sweep" || exit 1
printf "%-10s %10s %12s %10s %10s\n" window io_interval victim_mean victim_p99 requests
for w in $windows; do
	link_run_point "$sweep" "$w" on || exit 1
	link_point_summary "$sweep" "$w"
done
echo "   sweep: $(grep -c ',io$' "$sweep") io rows, $(grep -c ',victim$' "$sweep") victim rows, $(grep -c ',alone$' "$sweep") alone rows"

echo
echo "== 2. thresholds and the window for $objective"
"$topoplace" throttle thresholds "$sweep" -o "$table" || exit 1
grep '^#' "$table" | sed 's/^/   /'
chosen=$(link_choose_window "$table" "$objective") || exit 1
echo "   chosen window: $chosen us"

echo
echo "== 3. at the chosen window, clients started together, $reps runs each"
printf "%-6s %4s %12s %10s %12s %10s %10s %s\n" phase run alone_mean alone_p99 victim_mean mean_x p99_x objective
for phase in on off; do
	for ((r = 1; r <= reps; r++)); do
		link_check_run "$chosen" "$phase" "$objective" "$r" || exit 1
	done
done
