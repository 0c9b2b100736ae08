#!/bin/bash
# pacing_bench.sh: cost and accuracy of the pacing preload library.
#
#   bench/pacing_bench.sh [BUILD_DIR]      (default: the current directory)
#
# 1. Overhead on unthrottled I/O: the same writer (COUNT pwrites of 4 KiB,
#    then of 64 KiB, back to back, over 64 page-cached blocks) runs without
#    the library, with it preloaded and no window, and with it preloaded
#    and a 1 us window.  The three run interleaved, REPS times each; the
#    minimum and median of each, and their ratios to no library, are
#    printed.  Files live on /dev/shm when it exists.
# 2. Accuracy of the enforced window: for several windows, N requests back
#    to back; the mean and the smallest gap between request returns, as
#    multiples of the window.
# Prints figures only; never passes or fails on time.
set -u
build=${1:-.}
lib=$build/throttle/.libs/libtopoplace_pacing.so
writer=$build/tests/integration/pacing_writer
[[ -f $lib && -x $writer ]] || {
	echo "pacing_bench: build first (need $lib and $writer)" >&2
	exit 2
}
# tmpfs when there is one: the library is measured, not disk writeback.
base=${TMPDIR:-/tmp}
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
tmp=$(mktemp -d "$base/tp-pacing-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

count=${COUNT:-200000}
reps=${REPS:-7}
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { sort -g | head -1; }

overhead() { # BYTES: one table for requests of BYTES
	local bytes=$1 r none off w1
	echo "== overhead: $count x $bytes-byte pwrite, $reps interleaved runs each"
	: >"$tmp/none"
	: >"$tmp/off"
	: >"$tmp/w1"
	for ((r = 0; r < reps; r++)); do
		field total_us "$("$writer" seq "$tmp/f" "$count" "$bytes")" >>"$tmp/none"
		field total_us "$(env LD_PRELOAD="$lib" "$writer" seq "$tmp/f" "$count" "$bytes")" >>"$tmp/off"
		field total_us "$(env LD_PRELOAD="$lib" TOPOPLACE_IO_WINDOW_US=1 "$writer" seq "$tmp/f" "$count" "$bytes")" >>"$tmp/w1"
	done
	# Minimum: the run least disturbed by the rest of the machine (the
	# fairest figure for a per-call cost); median for the typical run.
	awk -v n="$(minimum <"$tmp/none")" -v o="$(minimum <"$tmp/off")" -v w="$(minimum <"$tmp/w1")" \
		-v mn="$(median <"$tmp/none")" -v mo="$(median <"$tmp/off")" -v mw="$(median <"$tmp/w1")" \
		-v c="$count" 'BEGIN {
		printf "%-26s %9s %9s %8s %10s %8s\n", "run", "min ms", "ns/write", "min/none", "median ms", "med/none"
		printf "%-26s %9.1f %9.0f %8.4f %10.1f %8.4f\n", "no library", n / 1e3, n * 1e3 / c, 1, mn / 1e3, 1
		printf "%-26s %9.1f %9.0f %8.4f %10.1f %8.4f\n", "preloaded, window unset", o / 1e3, o * 1e3 / c, o / n, mo / 1e3, mo / mn
		printf "%-26s %9.1f %9.0f %8.4f %10.1f %8.4f\n", "preloaded, window 1 us", w / 1e3, w * 1e3 / c, w / n, mw / 1e3, mw / mn
	}'
	echo "runs (us): none: $(paste -sd' ' "$tmp/none")"
	echo "           unset: $(paste -sd' ' "$tmp/off")"
	echo "           1 us: $(paste -sd' ' "$tmp/w1")"
	echo
}
# 1-byte writes show the per-call cost most plainly.  Writes shorter than
# 1 us (1 B, 4 KiB) really are paced by a 1 us window; 64 KiB writes are
# longer, so there that row is the bookkeeping path (fstat cache, clock,
# compare-and-swap) without waiting.
overhead 1
overhead 4096
overhead 65536
echo "== accuracy of the enforced window (4 KiB pwrite back to back)"
printf "%-10s %8s %14s %14s %14s %12s\n" "window" "requests" "mean gap/win" "min gap/win" "total/pred" "min outer/win"
for win in 100 500 1000 2000 5000 10000; do
	n=$((win >= 5000 ? 60 : 200))
	out=$(env LD_PRELOAD="$lib" TOPOPLACE_IO_WINDOW_US=$win "$writer" seq "$tmp/a" $n 4096)
	awk -v w="$win" -v n="$n" -v mean="$(field mean_end_gap_us "$out")" \
		-v min="$(field min_end_gap_us "$out")" -v tot="$(field total_us "$out")" \
		-v outer="$(field min_outer_us "$out")" 'BEGIN {
		printf "%-10s %8d %14.4f %14.4f %14.4f %12.4f\n", w " us", n, mean / w, min / w, tot / ((n - 1) * w), outer / w
	}'
done
