#!/bin/bash
# Synchronized clients no longer defeat the window (issue 19, goal 3), on
# a real shared link: the short version of bench/pacing_link_bench.sh.
#
# A router namespace's tc tbf (250 Mbit/s, 512 KiB fifo) is the link 8 I/O
# clients (4 MiB messages over TCP through libtopoplace_pacing.so, each
# capped at a quarter of the link, all started at one instant) share with
# a victim ping-ponging 4 KiB every millisecond (tests/lib/pacing_link.sh).
#  - sweep: the victim alone, then the clients unthrottled and at four
#    windows, phase on, 6 s each, written as a topoplace-sweep(5) v2 file;
#  - topoplace throttle thresholds reads it and writes a v2 table with the
#    measured curve, and topoplace throttle window --objective
#    mpi_slowdown<=1.5 chooses a window from it: the smallest swept
#    window whose victim mean is within 1.5x (else the best measured),
#    checked against the table;
#  - at that window, clients started together with the phase on: the
#    victim's mean latency is within 1.5x of its no-I/O mean, measured in
#    the same run's own alone baseline.  That is the objective, nothing
#    more is asserted on time.  1.5x and not the bench's 1.1x: on this
#    link the victim falls from about 4.5x at 1.2 s to about 1.0-1.35x at
#    1.8 s, so 1.5x lies in that step, away from the noise of a loaded
#    2-core machine, while the same window without the phase stays at
#    2.1-3x (bench/pacing_link_bench.sh, repeated, in bench/RESULTS.md).
# Needs root (network namespaces); about 90 s.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"

[[ $(id -u) == 0 ]] || tp_skip "needs root for network namespaces"
if [[ -z ${TP_LINK_INSIDE:-} ]]; then
	command -v tc >/dev/null && command -v unshare >/dev/null ||
		tp_skip "needs tc and unshare"
	TP_LINK_INSIDE=1 exec unshare --net --mount --pid --fork --mount-proc bash "$0"
fi
# shellcheck source=../lib/pacing.sh
. "$abs_top_srcdir/tests/lib/pacing.sh"
pacing_setup link
link=$abs_top_builddir/tests/integration/pacing_link
topoplace=$abs_top_builddir/tools/topoplace
[[ -x $link ]] || tp_skip "not built: $link"
LINK_DURATION=6000000
# shellcheck source=../lib/pacing_link.sh
. "$abs_top_srcdir/tests/lib/pacing_link.sh"
# Not through tp_check: that runs its command in a subshell, and the
# servers and variables link_setup makes must stay in this shell.
if link_setup; then
	tp_pass "the shared link and its servers are up"
else
	tp_fail "the shared link and its servers are up"
	tp_done
fi
trap 'link_cleanup; rm -rf "$tmp"' EXIT
# check_run PHASE: one link_check_run at the chosen window, its line
# for the log; false when it did not run.
check_run() {
	local rc
	link_check_run "$chosen" "$1" "$objective" 1 >"$tmp/line"
	rc=$?
	sed 's/^/# /' "$tmp/line"
	return $rc
}

objective='mpi_slowdown<=1.5'
sweep=$tmp/sweep.csv table=$tmp/table.csv
link_sweep_header "pacing_link.sh" >"$sweep"
tp_check "the victim ran alone" link_run_alone "$sweep"
# Four throttled windows: topoplace's knee rule wants the victim's p99 to
# settle over the two longest (a low-load plateau); with only 1.8 s and
# 2.6 s above the step, a noisy p99 at 1.8 s (3.5-4.1x where 2.6 s had
# 1.1-1.2x) left no plateau and no knee when the median did not move
# either (the distcheck pass of 2 of 3 CI runs on 2026-11-29, one of them
# on an otherwise idle machine), so 3.4 s is swept too.
windows="0 1200000 1800000 2600000 3400000"
for w in $windows; do
	tp_check "the clients and the victim ran at window $w us" link_run_point "$sweep" $w on
	echo "# window $w: $(link_point_summary "$sweep" $w)"
done
tp_check_eq "every client made requests at every point (io rows per window > 0)" "0 0 0 0 0" \
	"$(for w in $windows; do awk -F, -v w=$w '$7 == "io" && $3 == w' "$sweep" | wc -l | awk '{ print ($1 > 0) ? 0 : 1 }'; done | tr '\n' ' ' | sed 's/ $//')"
tp_check "topoplace throttle thresholds reads the sweep (v2)" \
	"$topoplace" throttle thresholds --min-intervals 4 "$sweep" -o "$table"
tp_check_eq "the table carries the measured curve (v2, one line per window)" "5" \
	"$(grep -c '^4194304,8,' "$table")"
chosen=$(link_choose_window "$table" "$objective" 2>"$tmp/decision")
sed 's/^/# /' "$tmp/decision"
# The smallest swept window whose victim mean (over alone) meets the
# objective, else the one with the smallest victim mean.
expected=$(awk -F, -v b="${objective#mpi_slowdown<=}" '$1 == 4194304 && $6 > 0 && $8 > 0 {
		if (!met && $8 <= b) { met = $6 + 0 } if (best == "" || $8 < bx) { best = $6 + 0; bx = $8 } }
	END { print met ? met : best }' "$table")
tp_check_eq "the window is the smallest swept window that meets $objective (else the best measured)" \
	"$expected" "$chosen"

printf "# %-6s %4s %12s %10s %12s %10s %10s %s\n" phase run alone_mean alone_p99 victim_mean mean_x p99_x objective
LINK_MET=
check_run on
tp_check_eq "with the clients started together and the phase on, $objective holds (victim mean ${LINK_MEAN_X:-?}x of alone)" \
	yes "$LINK_MET"
tp_done
