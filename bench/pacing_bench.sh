#!/bin/bash
# pacing_bench.sh: cost and accuracy of the pacing preload library.
#
#   bench/pacing_bench.sh [BUILD_DIR]      (default: the current directory)
#   COUNT=200000 (calls per overhead run)
#
# 1. Overhead on unthrottled I/O, side by side with and without the preload
#    in one run.  In ONE process, tests/integration/pacing_writer issues
#    paired batches of pwrite() (through the library when preloaded) and of
#    raw syscall(SYS_pwrite64) (never through it) and reports the median
#    per-call time of each and their ratio.  The same binary runs without
#    and with the library, so libc's own wrapper cost cancels:
#    overhead = ratio(with) / ratio(without) - 1; machine noise hits both
#    halves of each pair alike.  Requests of 1 B to 1 MiB go to 64 blocks of
#    a page-cached file (tmpfs when /dev/shm exists).
# 2. Accuracy of the enforced window: for several windows, requests back to
#    back; the mean and smallest gap between request returns, the total
#    against (n - 1) x window, the smallest "previous call to this return"
#    (an upper bound of a start-to-start interval; >= 1 always), and the
#    mean and smallest start-to-start interval the library itself recorded
#    (TOPOPLACE_IO_PACING_STATS; the smallest >= 1 always).
# 3. Cost of the per-client phase (TOPOPLACE_IO_PHASE), in instructions,
#    so a loaded machine cannot blur it: under callgrind, CG_COUNT 4 KiB
#    pwrite()s back to back with a 1 us window, phase on and off; per
#    request, the instructions of the library's pacing step (pace_now,
#    inclusive) without its waits (wait_until, inclusive), and the waits
#    apart.  Needs valgrind (skipped without it).
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
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ab FIELD CALLS BYTES ENV...: FIELD of one paired run
ab() {
	local f=$1 calls=$2 bytes=$3
	shift 3
	field "$f" "$(env "$@" "$writer" ab "$tmp/ab" "$calls" "$bytes")"
}
# ab_ratio CALLS BYTES ENV...: median ratio of 3 paired runs
ab_ratio() {
	local _
	for _ in 1 2 3; do ab ratio "$@"; done | median
}

echo "== overhead on unthrottled I/O: paired in-process batches, median of 3 runs each"
printf "%-10s %7s %10s %11s %12s %15s %14s\n" "request" "calls" "pwrite ns" "ratio none" "ratio unset" "overhead unset" "1us window*"
for bytes in 1 4096 65536 1048576; do
	calls=$count
	((bytes >= 1048576)) && calls=$((count / 10 > 1000 ? count / 10 : 1000))
	ns=$(ab pwrite_ns "$calls" "$bytes" TP_BENCH=none)
	none=$(ab_ratio "$calls" "$bytes" TP_BENCH=none)
	unset=$(ab_ratio "$calls" "$bytes" LD_PRELOAD="$lib")
	one=$(ab_ratio "$calls" "$bytes" LD_PRELOAD="$lib" TOPOPLACE_IO_WINDOW_US=1)
	awk -v b="$bytes" -v c="$calls" -v ns="$ns" -v n="$none" -v u="$unset" -v o="$one" 'BEGIN {
		printf "%-10s %7d %10.1f %11.4f %12.4f %14.2f%% %13.2f%%\n", b " B", c, ns, n, u, (u / n - 1) * 100, (o / n - 1) * 100
	}'
done
echo "* window 1 us: the bookkeeping path (fstat cache, clock, compare-and-swap) for"
echo "  requests longer than 1 us; 1 B and 4 KiB requests are shorter, so there it"
echo "  really paces and is no overhead figure."

echo
echo "== accuracy of the enforced window (4 KiB pwrite back to back)"
printf "%-10s %8s %13s %12s %11s %14s %15s %14s\n" "window" "requests" "mean gap/win" "min gap/win" "total/pred" "min outer/win" "mean start/win" "min start/win"
for win in 100 500 1000 2000 5000 10000; do
	n=$((win >= 5000 ? 60 : 200))
	rm -f "$tmp/stats"
	out=$(env LD_PRELOAD="$lib" TOPOPLACE_IO_WINDOW_US=$win \
		TOPOPLACE_IO_PACING_STATS="$tmp/stats" "$writer" seq "$tmp/a" $n 4096)
	# The library's own start-to-start intervals (ns), in time order.
	starts=$(awk '$1 == "start" { sub("ns=", "", $4); print $4 }' "$tmp/stats" | sort -n |
		awk 'NR > 1 { d = $1 - t; s += d; if (m == "" || d < m) m = d } { t = $1 }
			END { if (NR > 1) printf "%.1f %.1f", s / (NR - 1), m; else print "0 0" }')
	awk -v w="$win" -v n="$n" -v mean="$(field mean_end_gap_us "$out")" \
		-v min="$(field min_end_gap_us "$out")" -v tot="$(field total_us "$out")" \
		-v outer="$(field min_outer_us "$out")" -v smean="${starts% *}" -v smin="${starts#* }" 'BEGIN {
		printf "%-10s %8d %13.4f %12.4f %11.4f %14.4f %15.4f %14.4f\n", w " us", n, mean / w, min / w, tot / ((n - 1) * w), outer / w, smean / 1000 / w, smin / 1000 / w
	}'
done

echo
echo "== cost of the per-client phase: instructions per request (callgrind; 4 KiB pwrite, 1 us window)"
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	echo "(skipped: no valgrind/callgrind_annotate)"
	exit 0
fi
cg_count=${CG_COUNT:-2000}
# cg_cost PHASE: "pacing waiting" instructions per request, from callgrind.
cg_cost() {
	local out=$tmp/cg.$1
	env LD_PRELOAD="$lib" TOPOPLACE_IO_WINDOW_US=1 TOPOPLACE_IO_PHASE=$1 \
		valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$writer" seq "$tmp/cg" "$cg_count" 4096 >/dev/null 2>&1 || return 1
	callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
		awk -v n="$cg_count" '
		function ir(s) { gsub(",", "", s); return s + 0 }
		$0 ~ /:pace_now / { pace = ir($1) }
		$0 ~ /:wait_until / { wait = ir($1) }
		END { printf "%.1f %.1f\n", (pace - wait) / n, wait / n }'
}
printf "%-10s %22s %22s\n" phase "pacing Ir/request" "waiting Ir/request"
for ph in 0 1; do
	read -r pacing waiting <<<"$(cg_cost $ph)"
	printf "%-10s %22s %22s\n" "$([[ $ph == 1 ]] && echo on || echo off)" "$pacing" "$waiting"
done
echo "  (pacing: pace_now without wait_until; waiting: wait_until, i.e. a request"
echo "  that found the client idle for 4 windows waits for its phase)"
