#!/bin/bash
# Real writes through the pacing preload library (libtopoplace_pacing.so).
#
# A small C writer (tests/integration/pacing_writer) and dd issue real
# requests on files in a temporary directory, with and without the library
# and TOPOPLACE_IO_WINDOW_US.  Every check holds however loaded the machine
# is (speed is measured by bench/pacing_bench.sh, never asserted here):
#  - lower bounds only on time: start-to-start intervals never below the
#    window, seen from the writer (a request starts inside its call, so
#    "previous call to this return" bounds the interval from above and
#    must reach the window), and a run of N requests taking at least
#    (N - 1) x window; waiting for the CPU only makes these longer;
#  - what the library did, from its own statistics
#    (TOPOPLACE_IO_PACING_STATS, written at exit): how many calls it saw,
#    how many requests the window applied to, how many it held back, and
#    the start of each request.  "Not paced" is: the calls were seen and
#    the window applied to none (no start, no delay).  "Paced" is: every
#    request got a start and no two starts of the process are closer than
#    the window, with several threads' requests interleaved;
#  - where perf works, the kernel's view: each request's syscall entry
#    (perf, CLOCK_MONOTONIC) comes after the library's start of it and at
#    least the window after the start of the request before;
#  - no pacing when the window is unset, 0 or malformed (with one warning),
#    for non-regular files (/dev/null, a socket that reuses a closed file's
#    descriptor number; paced with TOPOPLACE_IO_PACE_SOCKETS=1), or for
#    reads unless TOPOPLACE_IO_PACE_READS=1;
#  - the statistics themselves: per process (a forked child reports its
#    own), complete with writes from a signal handler, and a file that
#    cannot be written costs one warning, never the application's result;
#  - return values, errno and file contents are the same with the library.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"
# shellcheck source=../lib/pacing.sh
. "$abs_top_srcdir/tests/lib/pacing.sh"
pacing_setup pacing

# field NAME LINE: the value of NAME=... in a writer summary line.
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
paced() { env LD_PRELOAD="$lib" "$@"; }
# counted STATS CMD...: CMD through the library, its statistics in STATS.
counted() {
	local stats=$1
	shift
	rm -f "$stats"
	env LD_PRELOAD="$lib" TOPOPLACE_IO_PACING_STATS="$stats" "$@"
}
# elapsed_us CMD...: run CMD, print its wall time in microseconds.
elapsed_us() {
	local t0=$EPOCHREALTIME t1
	"$@" >/dev/null 2>&1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1e6 }'
}
# summary STATS: the counters, for the log.
summary() { sed -n 's/^pacing /# stats: /p' "$1"; }
# starts STATS [PID]: "count min_gap_ns threads ops" of the recorded
# request starts (of process PID), in time order.
starts() {
	awk -v p="${2:-}" '$1 == "start" && (p == "" || $2 == "pid=" p) {
		sub("ns=", "", $4); print $4, $3, $5 }' "$1" | sort -n |
		awk '{ if (NR > 1 && (m == "" || $1 - t < m)) m = $1 - t; t = $1
			if (!($2 in tid)) { tid[$2]; n++ }
			if (!($3 in op)) { op[$3]; ops = ops (ops == "" ? "" : ",") substr($3, 4) } }
		END { printf "%d %s %d %s\n", NR, (m == "" ? "-" : m), n, (ops == "" ? "-" : ops) }'
}
# check_spacing NAME STATS WINDOW_US COUNT: the library recorded COUNT
# starts, none closer than the window to the one before.
check_spacing() {
	local s count gap
	s=$(starts "$2")
	echo "# $1: starts, min gap ns, threads, ops: $s"
	read -r count gap _ <<<"$s"
	tp_check_eq "$1: the library recorded every request's start" "$4" "$count"
	tp_check "$1: no two starts closer than the window (min gap $gap ns >= $(($3 * 1000)))" \
		fcmp "$gap >= $3 * 1000"
}
# check_unpaced NAME STATS MIN_CALLS: the library saw at least MIN_CALLS
# calls and applied the window to none of them.
check_unpaced() {
	local calls
	summary "$2"
	calls=$(stat_of "$2" calls)
	tp_check "$1: the library saw the calls ($calls >= $3)" fcmp "${calls:-0} >= $3"
	tp_check_eq "$1: requests the window applied to, held back" "0 0" \
		"$(stat_of "$2" requests) $(stat_of "$2" paced)"
}

w=5000 n=50

# --- pacing on --------------------------------------------------------
out=$(counted "$tmp/seq.stats" TOPOPLACE_IO_WINDOW_US=$w "$writer" seq "$tmp/paced" $n 4096)
echo "# paced w=$w: $out"
summary "$tmp/seq.stats"
outer=$(field min_outer_us "$out")
total=$(field total_us "$out")
tp_check "every interval reaches the window (call to next return $outer us >= $w us)" \
	fcmp "$outer >= $w"
tp_check "total time is at least (n - 1) x window ($total us >= $(((n - 1) * w)) us)" \
	fcmp "$total >= ($n - 1) * $w"
tp_check_eq "the window applied to all $n writes (calls, requests)" "$n $n" \
	"$(stat_of "$tmp/seq.stats" calls) $(stat_of "$tmp/seq.stats" requests)"
check_spacing "one thread" "$tmp/seq.stats" $w $n
# (How close the intervals are to the window is measured by
# bench/pacing_bench.sh: on a busy machine a process waits for a CPU.)

# Threads share the process's window.  In lockstep (all threads meet
# before each request) every round has one request from each thread, so
# their requests interleave however the threads are scheduled.
out=$(counted "$tmp/threads.stats" TOPOPLACE_IO_WINDOW_US=$w "$writer" seq "$tmp/threads" 10 4096 4 lockstep)
echo "# 4 threads x 10: $out"
summary "$tmp/threads.stats"
total=$(field total_us "$out")
tp_check "threads share the process window: total >= 39 windows ($total us >= $((39 * w)) us)" \
	fcmp "$total >= 39 * $w"
s=$(starts "$tmp/threads.stats")
tp_check_eq "the requests came from 4 threads" 4 "$(cut -d' ' -f3 <<<"$s")"
rounds=$(awk '$1 == "start" { sub("ns=", "", $4); print $4, $3 }' "$tmp/threads.stats" |
	sort -n | awk '{ g = int((NR - 1) / 4); if (!((g, $2) in seen)) { seen[g, $2]; d[g]++ } }
		END { for (g in d) full += d[g] == 4; print full + 0 }')
tp_check_eq "their requests interleave: each 4 consecutive starts come from 4 threads (rounds)" \
	10 "$rounds"
check_spacing "threads share the process window" "$tmp/threads.stats" $w 40

# The kernel's own view, where perf can record syscall entries on the
# CLOCK_MONOTONIC clock the library uses: each request's entry follows
# the library's start of it, and comes at least the window after the
# previous request's start (entry >= its start >= previous start + window:
# no scheduling delay can shorten that).  1 us of slack: two readings of
# one clock (perf's NMI-safe one and clock_gettime).  Requests are paired
# with starts per thread, in order.  (perf needs a second or so to start
# on an idle machine, far longer on a busy one: the probe's timeout only
# guards against a perf that hangs.)
if command -v perf >/dev/null &&
	timeout 600 perf record -q -k CLOCK_MONOTONIC -e syscalls:sys_enter_pwrite64 \
		-o "$tmp/perf.probe" -- /bin/true >/dev/null 2>&1; then
	rm -f "$tmp/kernel.stats"
	perf record -q -k CLOCK_MONOTONIC -e syscalls:sys_enter_pwrite64 \
		-o "$tmp/perf.data" -- env LD_PRELOAD="$lib" TOPOPLACE_IO_WINDOW_US=$w \
		TOPOPLACE_IO_PACING_STATS="$tmp/kernel.stats" \
		"$writer" seq "$tmp/traced" 5 4096 4 lockstep >/dev/null 2>&1
	kview=$({
		perf script -i "$tmp/perf.data" -F tid,time --ns 2>/dev/null |
			awk '{ sub(":", "", $2); split($2, t, "."); printf "K %s %s%s\n", $1, t[1], t[2] }'
		awk '$1 == "start" { sub("tid=", "", $3); sub("ns=", "", $4); print "L", $3, $4 }' \
			"$tmp/kernel.stats"
	} | awk -v w=$((w * 1000)) '
		$1 == "K" { k[$2, kn[$2]++] = $3 }
		$1 == "L" { l[$2, ln[$2]++] = $3; nl++ }
		END {
			nk = 0; bad = 0; late = -1
			for (t in kn) nk += kn[t]
			for (t in ln) {
				if (kn[t] != ln[t]) bad++
				for (i = 0; i < ln[t]; i++) { s = l[t, i]; e = k[t, i]
					print "P", s, e
					if (e - s > late) late = e - s } }
			printf "S %d %d %d %d\n", nk, nl, bad, late
		}' | sort -k1,1 -k2n | awk '
		$1 == "P" { if (n++) { g = $3 - ps; if (mg == "" || g < mg) mg = g }
			if (me == "" || $3 - $2 < me) me = $3 - $2; ps = $2 }
		$1 == "S" { print $2, $3, $4, $5, me, mg }')
	# kview: kernel entries, library starts, threads with unequal counts,
	# largest and smallest (entry - start), smallest (entry - previous start)
	echo "# kernel view: entries, starts, unpaired threads, max/min entry-start ns, min entry-previous start ns: $kview"
	read -r entries lstarts unpaired _ after_start after_prev <<<"$kview"
	tp_check_eq "the kernel saw the 20 requests the library started, thread by thread" \
		"20 20 0" "${entries:-} ${lstarts:-} ${unpaired:-}"
	tp_check "each kernel entry follows the library's start of it (min ${after_start:--} ns >= -1000)" \
		fcmp "${after_start:--1e18} >= -1000"
	tp_check "each kernel entry is at least the window after the previous start (${after_prev:--} ns >= $((w * 1000 - 1000)))" \
		fcmp "${after_prev:--1e18} >= $w * 1000 - 1000"
else
	echo "# perf cannot record syscall entries here: kernel-side check skipped"
fi

# --- pacing off -------------------------------------------------------
counted "$tmp/unset.stats" "$writer" seq "$tmp/off" $n 4096 >/dev/null
check_unpaced "window unset" "$tmp/unset.stats" $n
counted "$tmp/zero.stats" TOPOPLACE_IO_WINDOW_US=0 "$writer" seq "$tmp/off" $n 4096 >/dev/null
check_unpaced "window 0" "$tmp/zero.stats" $n
counted "$tmp/bad.stats" TOPOPLACE_IO_WINDOW_US=5ms "$writer" seq "$tmp/bad" $n 4096 \
	>"$tmp/bad.out" 2>"$tmp/bad.err"
tp_check_eq "a malformed window gives one warning line" \
	"libtopoplace_pacing: TOPOPLACE_IO_WINDOW_US is not a whole number of microseconds up to 3600000000: pacing off" \
	"$(cat "$tmp/bad.err")"
check_unpaced "a malformed window" "$tmp/bad.stats" $n

# --- dd: regular files paced, devices not; reads only when asked -------
# (20 blocks: dd makes 20 writes, and 21 reads of a file: the last at EOF.)
t=$(elapsed_us counted "$tmp/dd1.stats" TOPOPLACE_IO_WINDOW_US=10000 dd if=/dev/zero of="$tmp/dd" bs=64k count=20)
summary "$tmp/dd1.stats"
tp_check "dd writing a file takes at least 19 windows ($t us >= 190000)" fcmp "$t >= 190000"
check_spacing "dd writing a file" "$tmp/dd1.stats" 10000 20
counted "$tmp/dd2.stats" TOPOPLACE_IO_WINDOW_US=10000 dd if=/dev/zero of=/dev/null bs=64k count=20 2>/dev/null
check_unpaced "dd writing /dev/null is not paced" "$tmp/dd2.stats" 40
counted "$tmp/dd3.stats" TOPOPLACE_IO_WINDOW_US=10000 dd if="$tmp/dd" of=/dev/null bs=64k 2>/dev/null
check_unpaced "reads are not paced by default" "$tmp/dd3.stats" 41
t=$(elapsed_us counted "$tmp/dd4.stats" TOPOPLACE_IO_WINDOW_US=10000 TOPOPLACE_IO_PACE_READS=1 dd if="$tmp/dd" of=/dev/null bs=64k)
summary "$tmp/dd4.stats"
tp_check "reads with TOPOPLACE_IO_PACE_READS=1 take at least 20 windows ($t us >= 200000)" fcmp "$t >= 200000"
check_spacing "reads are paced with TOPOPLACE_IO_PACE_READS=1" "$tmp/dd4.stats" 10000 21
tp_check_eq "... and the requests paced are the reads" read "$(starts "$tmp/dd4.stats" | cut -d' ' -f4)"

# --- descriptor reuse ---------------------------------------------------
# Per run: 1 write to a file, closed (close, then fclose), and 20 writes
# to a socket that got the same descriptor number: 42 calls, 2 requests.
out=$(counted "$tmp/reuse.stats" TOPOPLACE_IO_WINDOW_US=100000 "$writer" reuse "$tmp/reuse" 20)
echo "# $out" | tr '\n' ' '
echo
summary "$tmp/reuse.stats"
tp_check_eq "the socket got the closed file's descriptor number (close, fclose)" \
	"yes yes" "$(sed -n 's/.*reused=\([a-z]*\).*/\1/p' <<<"$out" | tr '\n' ' ' | sed 's/ $//')"
tp_check_eq "a reused descriptor number is re-checked: of 42 calls only the 2 file writes are paced" \
	"42 2" "$(stat_of "$tmp/reuse.stats" calls) $(stat_of "$tmp/reuse.stats" requests)"
# The same run with TOPOPLACE_IO_PACE_SOCKETS=1: the socket writes are
# requests too (a client whose storage is reached over TCP).
out=$(counted "$tmp/sockets.stats" TOPOPLACE_IO_WINDOW_US=1000 TOPOPLACE_IO_PACE_SOCKETS=1 \
	"$writer" reuse "$tmp/sockets" 20)
summary "$tmp/sockets.stats"
tp_check_eq "with TOPOPLACE_IO_PACE_SOCKETS=1 all 42 calls (40 on the socket) are paced" \
	"42 42" "$(stat_of "$tmp/sockets.stats" calls) $(stat_of "$tmp/sockets.stats" requests)"
check_spacing "socket writes with TOPOPLACE_IO_PACE_SOCKETS=1" "$tmp/sockets.stats" 1000 42

# --- the statistics themselves -------------------------------------------
out=$(counted "$tmp/fork.stats" TOPOPLACE_IO_WINDOW_US=1000 "$writer" fork "$tmp/fork")
parent=$(field parent "$out") child=$(field child "$out")
summary "$tmp/fork.stats"
tp_check_eq "statistics are per process: a forked child reports its own 2 requests, the parent its 2" \
	"2 2" "$(stat_of "$tmp/fork.stats" requests "$child") $(stat_of "$tmp/fork.stats" requests "$parent")"
# Writes from a signal handler (SIGALRM every 3 ms) and from the program:
# nothing the handler does may block on what it interrupted.
rm -f "$tmp/signal.stats"
out=$(timeout 120 env LD_PRELOAD="$lib" TOPOPLACE_IO_PACING_STATS="$tmp/signal.stats" \
	TOPOPLACE_IO_WINDOW_US=1000 "$writer" signal "$tmp/signal" 100)
echo "# signal: $out"
summary "$tmp/signal.stats"
handled=$(field handled "$out")
tp_check "writes from a signal handler went through ($out)" fcmp "${handled:-0} >= 1"
check_spacing "with writes from a signal handler" "$tmp/signal.stats" 1000 $((100 + ${handled:-0}))
# A statistics file that cannot be written: one line on stderr, nothing
# else changes.
"$writer" errno "$tmp/plain" >"$tmp/plain.out"
paced TOPOPLACE_IO_WINDOW_US=1000 TOPOPLACE_IO_PACING_STATS="$tmp/no/such/dir/stats" \
	"$writer" errno "$tmp/nostats" >"$tmp/nostats.out" 2>"$tmp/nostats.err"
tp_check_eq "an unwritable statistics file: exit status 0 and one warning line" \
	"0 libtopoplace_pacing: cannot open the TOPOPLACE_IO_PACING_STATS file: no statistics" \
	"$? $(cat "$tmp/nostats.err")"
tp_check "an unwritable statistics file changes no result" diff "$tmp/plain.out" "$tmp/nostats.out"

# --- nothing else changes ------------------------------------------------
paced TOPOPLACE_IO_WINDOW_US=1000 TOPOPLACE_IO_PACE_READS=1 \
	"$writer" errno "$tmp/withlib" >"$tmp/withlib.out"
tp_check "return values and errno are the same with the library" \
	diff "$tmp/plain.out" "$tmp/withlib.out"
counted "$tmp/errno.stats" TOPOPLACE_IO_WINDOW_US=1000 TOPOPLACE_IO_PACE_READS=1 \
	"$writer" errno "$tmp/withstats" >"$tmp/withstats.out"
tp_check "... and with statistics on" diff "$tmp/plain.out" "$tmp/withstats.out"
tp_check "error cases were exercised (EBADF and EINVAL seen)" \
	grep -q "errno=22" "$tmp/withlib.out"
tp_check "file contents are the same with the library" \
	cmp "$tmp/plain" "$tmp/withlib"
tp_check_eq "a successful paced write leaves errno as the caller set it" \
	"ret=2 errno=25" "$(sed -n 's/^write keeps errno *//p' "$tmp/withlib.out")"

tp_done
