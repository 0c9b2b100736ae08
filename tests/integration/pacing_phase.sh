#!/bin/bash
# Clients out of step: the pacing library's per-client phase, on many real
# writer processes that start together.
#
# N writer processes (tests/integration/pacing_writer together) sleep
# until one CLOCK_REALTIME instant and then write back to back through
# libtopoplace_pacing.so with one window W, like the ranks of a job leaving
# a barrier.  The library records every request start
# (TOPOPLACE_IO_PACING_STATS, CLOCK_MONOTONIC, one clock for all processes
# of this machine).  The measure is the largest number of starts in any
# slot of W/4: with every client keeping W, each client has at most one
# start in such a slot, so N means all clients burst together and about
# N/4 means they are spread over the window.
#  - TOPOPLACE_IO_PHASE=0 (the old behaviour): the burst is there (more
#    than N/2 starts in one slot; N on a quiet machine, a loaded one wakes
#    some writers late), which shows the setup starts them together;
#  - phase on, ranks from SLURM_PROCID as under srun: at most N/2 starts
#    in any slot, each client's phase in [0, W), and every client still
#    keeps the window between its own starts;
#  - phase on, no rank in the environment (hash of job, host and pid):
#    still no full burst (at most 3N/4).
# No timing threshold: a loaded machine only delays and spreads starts.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"
# shellcheck source=../lib/pacing.sh
. "$abs_top_srcdir/tests/lib/pacing.sh"
pacing_setup phase

n=24 w=200000 count=3

# run_together STATS ENV...: N writers through the library, started
# together two seconds from now (time to fork them all); SLURM_PROCID=i unless ENV says norank.
run_together() {
	local stats=$1 at i pids=() rank=1
	shift
	[[ ${1:-} == norank ]] && { rank=0; shift; }
	rm -f "$stats"
	at=$(($(date +%s%N) + 2000000000))
	for ((i = 0; i < n; i++)); do
		if ((rank)); then
			env LD_PRELOAD="$lib" TOPOPLACE_IO_PACING_STATS="$stats" \
				TOPOPLACE_IO_WINDOW_US=$w SLURM_JOB_ID=4242 SLURM_PROCID=$i "$@" \
				"$writer" together "$tmp/w$i" $count 4096 "$at" &
		else
			env -u SLURM_PROCID -u PMI_RANK -u PMIX_RANK -u OMPI_COMM_WORLD_RANK \
				LD_PRELOAD="$lib" TOPOPLACE_IO_PACING_STATS="$stats" \
				TOPOPLACE_IO_WINDOW_US=$w SLURM_JOB_ID=4242 "$@" \
				"$writer" together "$tmp/w$i" $count 4096 "$at" &
		fi
		pids+=($!)
	done
	local failed=0
	for i in "${pids[@]}"; do wait "$i" || failed=1; done
	return $failed
}
# max_in_slot STATS SLOT_NS: the most starts in any [t, t + SLOT_NS).
max_in_slot() {
	awk '$1 == "start" { sub("ns=", "", $4); print $4 }' "$1" | sort -n |
		awk -v s="$2" '{ t[NR] = $1 }
		END { j = 1; m = 0
			for (i = 1; i <= NR; i++) { while (t[i] - t[j] >= s) j++; if (i - j + 1 > m) m = i - j + 1 }
			print m }'
}
# min_own_gap STATS: the smallest interval between two starts of one process.
min_own_gap() {
	awk '$1 == "start" { sub("ns=", "", $4); sub("pid=", "", $2); print $2, $4 }' "$1" |
		sort -k1,1n -k2,2n | awk '$1 == p { g = $2 - t; if (m == "" || g < m) m = g } { p = $1; t = $2 }
		END { print (m == "" ? -1 : m) }'
}
starts_of() { grep -c '^start ' "$1"; }
slot=$((w * 1000 / 4))

tp_check "the writers ran (phase off)" run_together "$tmp/off.stats" TOPOPLACE_IO_PHASE=0
off=$(max_in_slot "$tmp/off.stats" $slot)
echo "# phase off: $(starts_of "$tmp/off.stats") starts, at most $off in a slot of $((slot / 1000)) us"
tp_check_eq "phase off: every request's start recorded" $((n * count)) "$(starts_of "$tmp/off.stats")"
tp_check "phase off: clients started together burst together ($off > N/2 = $((n / 2)) in one W/4 slot)" \
	fcmp "$off > $n / 2"
tp_check_eq "phase off: the library reports no phase" "-1" \
	"$(stat_of "$tmp/off.stats" phase_us | sort -u)"

tp_check "the writers ran (phase on, ranks)" run_together "$tmp/on.stats"
on=$(max_in_slot "$tmp/on.stats" $slot)
echo "# phase on: $(starts_of "$tmp/on.stats") starts, at most $on in a slot of $((slot / 1000)) us"
tp_check_eq "phase on: every request's start recorded" $((n * count)) "$(starts_of "$tmp/on.stats")"
tp_check "phase on: starts spread over the window ($on <= N/2 = $((n / 2)) in any W/4 slot)" \
	fcmp "$on <= $n / 2"
phases=$(stat_of "$tmp/on.stats" phase_us)
echo "# phases (us): $(tr '\n' ' ' <<<"$phases")"
tp_check_eq "phase on: $n distinct phases" $n "$(sort -u <<<"$phases" | wc -l)"
tp_check "phase on: every phase within [0, W)" \
	awk -v w=$w '{ if ($1 < 0 || $1 >= w) bad = 1 } END { exit bad }' <<<"$phases"
gap=$(min_own_gap "$tmp/on.stats")
tp_check "phase on: each client still keeps the window (min own gap $gap ns >= $((w * 1000)))" \
	fcmp "$gap >= $w * 1000"

tp_check "the writers ran (phase on, no rank)" run_together "$tmp/norank.stats" norank
norank=$(max_in_slot "$tmp/norank.stats" $slot)
echo "# phase on, no rank: at most $norank in a slot"
tp_check "phase on without a rank: no full burst ($norank <= 3N/4 = $((3 * n / 4)))" \
	fcmp "$norank <= 3 * $n / 4"

tp_done
