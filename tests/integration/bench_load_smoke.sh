#!/bin/bash
# bench_load_smoke.sh: the parts of bench/load_bench.sh that need no cluster
# (issue #15): load_prep.awk's scaling, window choice and classes on a
# six-job SWF whose figures are worked out by hand below, and
# load_report.awk's figures on hand-made job records, load_predict.sh's
# cost-model predictions and load_decisions.sh's counts on hand-made
# records.  The bench itself (real Slurm, minutes per run) is not run here.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
work=$(mktemp -d /tmp/tp-bench-load-smoke.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
prep() { awk -f "$abs_top_srcdir/bench/load_prep.awk" -v hosts=8 -v compress=10 \
	-v window=100 -v run_cap=5 -v step=50 -v min_jobs=1 "$@" "$work/t.swf"; }

# 16 nodes x 4 procs; fields: job submit wait run procs cpu mem reqprocs
# reqtime reqmem status user group exe queue partition prev think.
cat >"$work/t.swf" <<'SWF'
; Version: 2.2
; MaxNodes: 16
; MaxProcs: 64
1 0 -1 100 16 -1 -1 16 200 -1 1 5 -1 400 -1 1 -1 -1
2 20 -1 4 4 -1 -1 4 -1 -1 1 5 -1 100 -1 1 -1 -1
3 -1 -1 -1 -1 -1 -1 -1 -1 -1 1 5 -1 100 -1 1 -1 -1
4 60 -1 30 64 -1 -1 64 900 -1 1 6 -1 300 -1 1 -1 -1
5 120 -1 50 8 -1 -1 8 -1 -1 1 7 -1 400 -1 1 -1 -1
6 160 -1 20 -1 -1 -1 12 -1 -1 1 8 -1 -1 -1 1 -1 -1
SWF
# Scaled to 8 hosts (x 8/16, rounded up) at 1/10 time, runs capped at 5 s:
#   job 1: 4 nodes -> 2, run 100 -> 10 -> 5 (cap), limit 200/10 s -> 1 min
#   job 2: 1 node -> 1, run 4 -> 0.4 -> 1 (Slurm's 1-s step)
#   job 3: no submit, run or size: skipped
#   job 4: 16 nodes -> 8, run 3, limit 900/10 = 90 s -> 2 min
#   job 5: 2 nodes -> 1, run 5;  job 6: requested 12 procs -> 3 nodes -> 2
# Windows of 100 trace s every 50 s, load = sum(nodes x run) / (8 x 10 s):
#   [0,100): jobs 1,2,4: (10 + 1 + 24) / 80 = 0.4375  (nearest to 0.9)
#   [50,150): jobs 4,5: 29 / 80 = 0.3625  (nearest to 0.3)
# Classes: b = floor(100 * frac(exe * 2654435761 / 2^32)): exe 400 -> 21
# comm_sensitive, 100 -> 80 quiet, 300 -> 41 io_heavy; job 6 has no
# executable: user 8 -> 94 quiet.
tp_check_eq "the window nearest 90% load, scaled jobs and classes" \
	"1 0 2 5 1 comm_sensitive
2 2 1 1 1 quiet
4 6 8 3 2 io_heavy" "$(prep | grep -v '^#')"
tp_check "its load and job count are printed" \
	grep -q "^# window: trace seconds \[0, 100) .*offered load 0.438 of 8 hosts, 3 jobs" <<<"$(prep)"
tp_check_eq "target 0.3 picks the later window; one executable, one class" \
	"4 1 8 3 2 io_heavy
5 7 1 5 1 comm_sensitive" "$(prep -v target=0.3 | grep -v '^#')"
tp_check_eq "a job with no executable takes its user's class" \
	"6 0 2 2 1 quiet" "$(prep -v start=160 | grep -v '^#')"
tp_expect_fail "a trace without MaxNodes/MaxProcs is refused in one line" 2 \
	"load_prep.awk: no MaxNodes/MaxProcs header or no usable job" \
	awk -f "$abs_top_srcdir/bench/load_prep.awk" -v hosts=8 -v compress=10 \
	-v window=100 /dev/null

# load_report.awk: 8 hosts, 2 leaves of 4 hosts, 1 leaf a pod, t0 = 1000,
# span 10 s.  Run a: a 2-host comm_sensitive job on leaf 0 beside an
# io_heavy job there at the same time; run b: the io_heavy job on leaf 1,
# and 2 s later.
printf '1000\n' >"$work/a.t0"
printf '1000\n' >"$work/b.t0"
printf '1 11 comm_sensitive 2 10\n2 12 io_heavy 1 4\n3 13 quiet 4 20\n' >"$work/a.submitted"
cp "$work/a.submitted" "$work/b.submitted"
printf '1 COMPLETED 1000 1000 1010 1,2\n2 COMPLETED 1000 1002 1006 3\n3 COMPLETED 1001 1004 1024 5,6,7,8\n' >"$work/a.done"
printf '1 COMPLETED 1000 1000 1010 1,2\n2 COMPLETED 1000 1004 1008 6\n3 COMPLETED 1001 1004 1024 3,4,5,7\n' >"$work/b.done"
report=$(awk -v work="$work" -v runs="a b" -v hosts=8 -v hpl=4 -v lpp=1 \
	-v tau=10 -v span=10 -f "$abs_top_srcdir/bench/load_report.awk")
# a: busy in [1000,1010]: 2x10 + 1x4 + 4x6 = 48 of 80 = 0.600; to the last
# end (1024): 104 of 192 = 0.542; waits 0, 2, 3: mean 1.7, p95 3;
# slowdowns 1, 1, 23/20: mean 1.05; b: waits 0, 4, 3: mean 2.3, p95 4.
tp_check_eq "run a's figures" \
	"a              3     3     0  0.600  0.542     24     1.7      3    1.05     1     1     1" \
	"$(grep '^a ' <<<"$report")"
tp_check_eq "run b's figures (io_heavy job on the other leaf and pod)" \
	"b              3     3     0  0.600  0.542     24     2.3      4    1.05     1     0     0" \
	"$(grep '^b ' <<<"$report")"

# load_predict.sh: the cost model on what ran (topoplace cost --busy at
# every job start), 8 hosts on a tree of 2 leaves of 4 under 2 spines,
# with the storage leaf: 1x3x4x2, adaptive routing, 1 I/O server on
# leaf003's last port (n0012).
# Job 1 (comm_sensitive, n0001 + n0005) runs 1000-1010; job 2 (io_heavy,
# n0002-n0004) 1002-1006: 3 units to n0012 spread over leaf001's 2 uplinks
# (1.5 each), which job 1's traffic to n0005 takes too: contention 1.500
# from t = 2 s.  Job 3 (comm_sensitive, 1 host) has no line; job 4
# (comm_sensitive, n0006 + n0007, 1004-1008) stays inside leaf002, where
# no I/O goes: 0.
printf '1 11 comm_sensitive 2 10\n2 12 io_heavy 3 4\n3 13 comm_sensitive 1 3\n4 14 comm_sensitive 2 4\n' >"$work/p.submitted"
printf '1 COMPLETED 1000 1000 1010 1,5\n2 COMPLETED 1000 1002 1006 2,3,4\n3 COMPLETED 1000 1000 1003 6\n4 COMPLETED 1000 1004 1008 6,7\n' >"$work/p.done"
summary=$("$abs_top_srcdir/bench/load_predict.sh" "$abs_top_builddir/tools/topoplace" \
	"$work" p 1 2 4 2 0 adaptive 1)
tp_check_eq "the prediction's summary line" \
	"# p: predicted (cost --busy, adaptive routing, fabric 1x3x4x2, 1 I/O servers on leaf003): comm_sensitive 2+ hosts 2, contention mean 0.750 max 1.500, 1 sharing a link with I/O, 1 > 1.0; busiest I/O switch link 1.500 (leaf001[5]->spine001[1], t=2 s)" \
	"$summary"
tp_check_eq "the per-job predictions: worst contention, its link and moment" \
	"1 2 1.500 leaf001[5]->spine001[1] 2
4 2 0.000 - 4" "$(grep -v '^#' "$work/p.predict" | sort)"

# load_decisions.sh: what topoplace said of one run.  Job 1's reason says
# "pod isolation given up" (placed across pods by the allocator: no
# fallback), job 2 waited and started past its isolation bound, job 3
# past its whole-leaf bound; jobs 4 and 5 ran with no decision line (4's
# DecisionBudget fallback is in the log, 5 has no line at all), job 6
# never started.
cat >"$work/d.decisions" <<'DEC'
topoplace: JobId=1: placement=shared class=comm_sensitive allowed=8 hosts on leaves leaf001,leaf002 (30 us): shared: spans pods; pod isolation given up (adaptive routing): spans pods pod01,pod02
topoplace: JobId=2: placement=shared class=io_heavy: waits: cannot be met now: shared policy
topoplace: JobId=2: placement=shared class=io_heavy allowed=8 hosts on leaves leaf001,leaf002 (20 us): isolation given up after 3 s (bound 2 s): placed by Slurm's default beside any class
topoplace: JobId=2: placement=shared: isolation given up after 3 s (bound 2 s): placed by Slurm's default beside any class
topoplace: JobId=3: placement=leaf class=quiet allowed=4 hosts on leaves leaf002 (20 us): leaf gave way to shared: waited 11 s
DEC
printf '1 COMPLETED 1000 1000 1010 1,5\n2 COMPLETED 1000 1003 1006 2\n3 COMPLETED 1000 1001 1006 3\n4 COMPLETED 1000 1002 1006 4,6\n5 COMPLETED 1000 1002 1004 7\n6 CANCELLED 1000 0 0 -\n' >"$work/d.done"
cat >"$work/d.slurmctld.log" <<'LOG'
[2026-11-27T22:13:50.000] topoplace: JobId=1 placement=auto nodes=n[0001,0005] policy=shared class=comm_sensitive
[2026-11-27T22:13:51.000] error: topoplace: JobId=4: allocation for job 4 (shared, 2 nodes): time budget of 2000 us spent: no opinion: placed by plain cons_tres
[2026-11-27T22:13:51.001] topoplace: JobId=4 placement=auto nodes=n[0004,0006] policy=shared class=comm_sensitive
LOG
tp_check_eq "load_decisions.sh: the bounds' counts, the jobs with no decision line and what the log says of them" \
	"# d: 1 jobs placed shared past their whole-leaf wait bound
# d: 1 jobs placed by Slurm's default past their isolation bound
# d: 2 jobs that ran have no decision line: 4 5
#   JobId=4: topoplace: JobId=4: allocation for job 4 (shared, 2 nodes): time budget of 2000 us spent: no opinion: placed by plain cons_tres
#   JobId=5: (no topoplace line in slurmctld's log)" \
	"$("$abs_top_srcdir/bench/load_decisions.sh" "$work" d)"
tp_check_eq "load_decisions.sh: nothing for a run without decision lines (cons_tres)" \
	"" "$("$abs_top_srcdir/bench/load_decisions.sh" "$work" none)"
# load_waits.sh: where run s waited longer than cons_tres, on 8 hosts in 2
# leaves of 4, IsolationWaitMax 2 s (epoch 1000 = 1970-01-01T00:16:40 UTC).
#   trace 11, io_heavy, 2 hosts: n0001-2 (leaf 0), 1000-1010 in both runs.
#   trace 12, comm_sensitive, 5 hosts, eligible 1000: cons_tres starts it
#     at once (n0003-7); under s, 6 hosts are free but only leaf 1's 4 are
#     apart from the io_heavy job: held at 1000 and 1001 (its "waits:"
#     line at 1000), placed past its bound at 1002: delta +2, (a).
#   trace 13, quiet, 1 host, eligible 1001: cons_tres at once, s at 1002
#     (n0008 was free: 1 open second) while job 2, ahead of it, was held:
#     delta +1, (b).
#   trace 14, quiet, 2 hosts, eligible 1003: no host free until job 2
#     ends (1005, under s 1007): delta +2, (c) (a held job's later end is
#     no head-of-line blocking).
printf '1 11 io_heavy 2 10\n2 12 comm_sensitive 5 5\n3 13 quiet 1 10\n4 14 quiet 2 5\n' >"$work/cons_tres.submitted"
cp "$work/cons_tres.submitted" "$work/s.submitted"
printf '1 COMPLETED 1000 1000 1010 1,2\n2 COMPLETED 1000 1000 1005 3,4,5,6,7\n3 COMPLETED 1001 1001 1011 8\n4 COMPLETED 1003 1005 1010 3,4\n' >"$work/cons_tres.done"
printf '1 COMPLETED 1000 1000 1010 1,2\n2 COMPLETED 1000 1002 1007 3,4,5,6,7\n3 COMPLETED 1001 1002 1012 8\n4 COMPLETED 1003 1007 1012 3,4\n' >"$work/s.done"
cat >"$work/cons_tres.slurmctld.log" <<'LOG'
[1970-01-01T00:16:40.010] sched: Allocate JobId=1 NodeList=n[0001-0002] #CPUs=4 Partition=debug
[1970-01-01T00:16:40.020] sched: Allocate JobId=2 NodeList=n[0003-0007] #CPUs=10 Partition=debug
[1970-01-01T00:16:41.500] sched/backfill: _start_job: Started JobId=3 in debug on n0008
[1970-01-01T00:16:45.100] sched: Allocate JobId=4 NodeList=n[0003-0004] #CPUs=4 Partition=debug
LOG
cat >"$work/s.slurmctld.log" <<'LOG'
[1970-01-01T00:16:40.010] sched: Allocate JobId=1 NodeList=n[0001-0002] #CPUs=4 Partition=debug
[1970-01-01T00:16:40.020] topoplace: JobId=2: placement=shared class=comm_sensitive: waits: cannot be met now: shared policy
[1970-01-01T00:16:42.100] topoplace: JobId=2: placement=shared: isolation given up after 2 s (bound 2 s): placed by Slurm's default beside any class
[1970-01-01T00:16:42.100] sched/backfill: _start_job: Started JobId=2 in debug on n[0003-0007]
[1970-01-01T00:16:42.110] sched/backfill: _start_job: Started JobId=3 in debug on n0008
[1970-01-01T00:16:47.100] sched: Allocate JobId=4 NodeList=n[0003-0004] #CPUs=4 Partition=debug
LOG
tp_check_eq "load_waits.sh: the wait difference by cause" \
	"# s: wait minus cons_tres's, 4 jobs that ran in both: total +5 s, mean +1.25 s (per job: $work/s.waits)
# s:   (a) held from incompatible traffic: 1 jobs (1 started at once under cons_tres), +2 s (+0.50 s of the mean); 2 held s in all
# s:   (b) pending behind a held job: 1 jobs, +1 s (+0.25 s of the mean; longer waits +1 s)
# s:   (c) other: 2 jobs, +2 s (+0.50 s of the mean; longer +2 s, shorter +0 s)
# s:   placed past the isolation bound (2 s): 1 jobs, +2 s, started 0 s in all after their bound
# s:   open s (pending while hosts it may use were free): cons_tres 0, s 1
# s:   started by the main pass / backfill: cons_tres 3 / 1, s 2 / 2" \
	"$(TZ=UTC "$abs_top_srcdir/bench/load_waits.sh" "$work" s 8 4 2)"
tp_check_eq "load_waits.sh: per job" \
	"12 2 2 comm_sensitive 5 0 2 +2 a 0 0 2 m b given_up
13 3 3 quiet 1 0 1 +1 b 0 1 0 b b -" "$(TZ=UTC awk '$1 == 12 || $1 == 13' "$work/s.waits")"
# The records miss nodes still completing or reserved by backfill: a
# 1-host io_heavy job whose records show 8 free hosts, but whose "waits:"
# line says 3 were usable and none apart from comm_sensitive jobs, was
# held from that line to its start at its 2 s bound.
mkdir "$work/w2"
printf '1 21 io_heavy 1 5\n' >"$work/w2/cons_tres.submitted"
cp "$work/w2/cons_tres.submitted" "$work/w2/u.submitted"
printf '1 COMPLETED 1000 1000 1005 1\n' >"$work/w2/cons_tres.done"
printf '1 COMPLETED 1000 1002 1007 1\n' >"$work/w2/u.done"
printf '%s\n' "[1970-01-01T00:16:40.020] topoplace: JobId=1: placement=shared class=io_heavy: waits: cannot be met now: shared policy for a io_heavy job needs 1 hosts on leaves without incompatible jobs; they hold 0 usable hosts (1 leaves with free hosts refused for incompatible neighbours; 3 usable hosts (5 busy, 0 held for other jobs, 0 down))" >"$work/w2/u.slurmctld.log"
tp_check_eq "load_waits.sh: held by the plugin's own word where the records show free hosts" \
	"# u:   (a) held from incompatible traffic: 1 jobs (1 started at once under cons_tres), +2 s (+2.00 s of the mean); 2 held s in all" \
	"$(TZ=UTC "$abs_top_srcdir/bench/load_waits.sh" "$work/w2" u 8 4 2 | grep '(a)')"
tp_check_eq "load_waits.sh: nothing without cons_tres's records" \
	"# t: no t.submitted in $work: no wait attribution" \
	"$("$abs_top_srcdir/bench/load_waits.sh" "$work" t 8 4 2)"
tp_done
