#!/bin/bash
# bench/fabric_sim, small runs with answers known from the model's
# parameters (the defaults: 100 Gb/s links, 4 KiB packets, 100 ns a hop, 4
# servers, 24 clients): a victim message alone takes 4 hops of
# serialization and latency; unthrottled clients together get the servers'
# links' rate and no more; a window keeps every client's starts that far
# apart; with the phase the clients start apart, without it together; the
# sweep goes through `topoplace throttle thresholds`; a bad option is one
# line; servers, clients and jobs placed on given hosts give the I/O rate
# their up-links allow and per-job latencies.  The goal-3 figures are bench/fabric_sim_bench.sh's, not a test's.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"

sim=$abs_top_builddir/bench/fabric_sim
topoplace=$abs_top_builddir/tools/topoplace
[[ -x $sim && -x $topoplace ]] || tp_skip "bench/fabric_sim or tools/topoplace is not built"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tp-fabric-sim.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# sim_to FILE ARGS...: a run's sweep into FILE.
# shellcheck disable=SC2317 # called through tp_check
sim_to() { "$sim" "${@:2}" >"$1"; }
tp_check "a 20 ms sweep, phase on, runs" \
	sim_to "$tmp/on.csv" --alone --windows 0,2000,3000,4000,6000 --duration-ms 20
tp_check "a 20 ms run, phase off, runs" \
	sim_to "$tmp/off.csv" --windows 2000 --phase off --duration-ms 20

# 4 links of (4096 x 8 bits / 100 Gb/s = 327.68 ns) + 100 ns each.
tp_check_eq "a victim message alone takes 4 hops: 1.711 us" 1.711 \
	"$(awk -F, '$7 == "alone" { print $6 }' "$tmp/on.csv" | sort -g | head -1)"

# 4 server links x 12.5 GB/s x 20 ms = 1e9 bytes = 238.4 requests of 4 MiB.
done_in_20ms=$(awk -F, '$7 == "io" && $3 == 0 && $5 + $6 <= 20000' "$tmp/on.csv" | wc -l)
tp_check "unthrottled: the server links' rate, no more (238 requests), at least 80% ($done_in_20ms)" \
	test "$done_in_20ms" -le 238 -a "$done_in_20ms" -ge 190

# closest_starts FILE: the closest two starts of one client at 2 ms (us).
closest_starts() {
	awk -F, '$7 == "io" && $3 == 2000 { print $4, $5 }' "$1" | sort -k1,1n -k2,2g |
		awk 'NR > 1 && $1 == c { d = $2 - l; if (m == "" || d < m) m = d } { c = $1; l = $2 } END { print m }'
}
for phase in on off; do
	closest=$(closest_starts "$tmp/$phase.csv")
	tp_check "2 ms window, phase $phase: a client's starts at least 2 ms apart ($closest us)" \
		awk -v m="$closest" 'BEGIN { exit !(m != "" && m >= 2000 - 0.001) }'
done

firsts() { awk -F, '$7 == "io" && $3 == 2000 && !seen[$4]++ { print $5 }' "$1" | sort -g | uniq | wc -l; }
tp_check_eq "phase off: the 24 clients' first requests start together" 1 "$(firsts "$tmp/off.csv")"
tp_check_eq "phase on: the 24 clients' first requests start apart" 24 "$(firsts "$tmp/on.csv")"
# shellcheck disable=SC2016 # an awk program
tp_check "phase on: first starts within the window" \
	awk -F, '$7 == "io" && $3 == 2000 && !seen[$4]++ && $5 >= 2000 { exit 1 }' "$tmp/on.csv"

tp_check "topoplace throttle thresholds reads the sweep" \
	"$topoplace" throttle thresholds "$tmp/on.csv" -o "$tmp/table.csv"

# Placements (issue 15 goal 2): 6 clients on leaf 1 of a 4x8 tree with 4
# spines, 4 servers.  D-mod-K sends a packet for host d up to spine d mod
# 4: servers on ports 0, 5, 2, 7 use all 4 up-links of leaf 1 (4 x 12.5
# GB/s, also the 4 server links' rate), servers all on ports 3 or 7 use
# one (12.5 GB/s); adaptive routing spreads the latter again.  A job on
# leaf 0 alone shares nothing with the I/O: 2 hops (0.855 us), 1.0000x.
# layout_run NAME ROUTING SERVERS: its figures into $tmp/NAME.log.
layout_run() {
	"$sim" --leaves 4 --hosts 8 --spines 4 --routing "$2" --client-hosts 8-13 \
		--server-hosts "$3" --jobs 0-7/14-15,22,24 --alone --duration-ms 10 \
		>/dev/null 2>"$tmp/$1.log"
}
# figure NAME KEY [JOB]: KEY's value in the io run's line (of job JOB).
figure() {
	sed -n "s/^fabric_sim: io window .*${3:+job=$3 .*} $2=\\([^ ]*\\).*/\\1/p" "$tmp/$1.log" | head -1
}
# within LOW VALUE HIGH
within() { awk -v l="$1" -v v="$2" -v h="$3" 'BEGIN { exit !(v != "" && v >= l && v <= h) }'; }
tp_check "servers on ports 0 5 2 7 (static) run" layout_run stagger static 16,21,26,31
tp_check "servers on ports 3 7 3 7 (static) run" layout_run same static 19,23,27,31
tp_check "servers on ports 3 7 3 7 (adaptive) run" layout_run adaptive adaptive 19,23,27,31
tp_check "4 up-links used: 40-50 GB/s ($(figure stagger io_GBps))" within 40 "$(figure stagger io_GBps)" 50
tp_check "one up-link under D-mod-K: 10-12.5 GB/s ($(figure same io_GBps))" within 10 "$(figure same io_GBps)" 12.5
tp_check "adaptive spreads it: over 25 GB/s ($(figure adaptive io_GBps))" within 25 "$(figure adaptive io_GBps)" 50
tp_check_eq "a whole leaf without I/O: 160 messages" 160 "$(figure stagger messages 0)"
tp_check_eq "... 2 hops alone and with I/O" 0.8554 "$(figure stagger mean_us 0)"
tp_check_eq "... 1.0000x" 1.0000 "$(figure adaptive mean_x 0)"
tp_check "a job beside the servers under adaptive routing is slower ($(figure adaptive mean_x 1)x)" \
	within 1.01 "$(figure adaptive mean_x 1)" 1000
"$sim" --client-hosts 8-13 --jobs 16-20/12-14 >/dev/null 2>"$tmp/err"
rc=$?
tp_check_eq "a job on a client's host: exit 2" 2 "$rc"
tp_check_eq "... with one line naming the host" 1 "$(grep -c 'host 12 is an I/O client' "$tmp/err")"

"$sim" --leaves 4 --client-leaves 4 >/dev/null 2>"$tmp/err"
rc=$?
tp_check_eq "an impossible fabric: exit 2" 2 "$rc"
tp_check_eq "... with one line naming the rule" 1 "$(grep -c 'client-leaves < leaves' "$tmp/err")"
tp_done
