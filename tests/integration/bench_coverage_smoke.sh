#!/bin/bash
# bench_coverage_smoke.sh: bench/profile_coverage_report.awk, the figures of
# bench/profile_coverage_bench.sh (issue #18, goal 1), on hand-made job
# records whose figures are worked out below.  The bench itself (real Slurm
# and MPI, minutes per run) is not run here.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
work=$(mktemp -d /tmp/tp-bench-coverage-smoke.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
report() { awk -v runs="$1" -v work="$work" -v compress=360 \
	-f "$abs_top_srcdir/bench/profile_coverage_report.awk"; }

# Run "first": id swf app nodes run name; id state submit start end nodes.
#   1 eA: the first run of eA, recorded; not eligible (nothing before it)
#   2 eA: submitted at 105, before job 1 ended (110): not eligible
#   3 eA: submitted at 111: eligible, placed by script hash (2 nodes x 10 s)
#   4 eB: FAILED: no run of eB before job 5
#   5 eB: not eligible (job 4 failed)
#   6 eA: eligible, the profile's class only (4 x 10 s)
#   7 eB: eligible (job 5 ended at 80), no profile (1 x 5 s)
#   8 eC: job 9 of eC ended after 8's submission, before its start: counted
#         apart, not eligible
#   9 eC: not eligible
#  10 eB: eligible, a profile recorded by job 1 of eA: "wrong" (1 x 10 s)
#  11 eA: submitted in the second job 1 ended (110): not eligible (Slurm's
#         times are whole seconds; the run may not be stored yet)
# eligible 3 6 7 10: profile 3 of 4 (75.0%), node-s 70 of 75 (93.3%),
# node-hours at 1/360: 70 x 360 / 3600 = 7.00 of 7.50.
cat >"$work/first.submitted" <<'R'
1 101 eA 1 10 ja
2 102 eA 2 10 jb
3 103 eA 2 10 jc
none 104 eA 1 10 jd
4 105 eB 1 10 je
5 106 eB 1 10 jf
6 107 eA 4 10 jg
7 108 eB 1 5 jh
8 109 eC 1 1 ji
9 110 eC 1 45 jj
10 111 eB 1 10 job
11 112 eA 1 10 jk
R
cat >"$work/first.done" <<'R'
1 COMPLETED 100 100 110 1
2 COMPLETED 105 105 115 2
3 COMPLETED 111 112 122 2
4 FAILED 50 50 60 1
5 COMPLETED 70 70 80 1
6 COMPLETED 120 130 140 4
7 COMPLETED 90 90 95 1
8 COMPLETED 10 60 61 1
9 COMPLETED 5 5 50 1
10 COMPLETED 100 100 110 1
11 COMPLETED 110 110 120 1
R
cat >"$work/first.comments" <<'R'
1 topoplace: placement=shared class=quiet (default)
2 topoplace: placement=shared class=quiet (default)
3 topoplace: placement=shared class=quiet (profile): profile tpalice/ja by script hash, recorded by JobId=1
4 topoplace: placement=shared class=quiet (default)
5 topoplace: placement=shared class=quiet (default)
6 topoplace: placement=shared class=quiet (profile): profile tpalice/jg has 1 ranks, the job 4 tasks: class only, Slurm's layout
7 topoplace: placement=shared class=quiet (default)
8 topoplace: placement=shared class=quiet (default)
9 topoplace: placement=shared class=quiet (default)
10 topoplace: placement=shared class=quiet (profile): profile tpalice/job by job name, recorded by JobId=1
11 topoplace: placement=shared class=quiet (default)
R
echo 1 >"$work/first.recorded"
printf '%s\n' ./ja/0001-aa.tpp ./s-0123456789abcdef0123456789abcdef/0001-aa.tpp >"$work/first.store"
# Run "off": nothing recorded, one eligible job without a profile.
printf '%s\n' "21 1 eA 1 1 ja" "22 2 eA 1 1 jb" >"$work/off.submitted"
printf '%s\n' "21 COMPLETED 0 0 1 1" "22 COMPLETED 5 5 6 1" >"$work/off.done"
printf '%s\n' "21 topoplace: placement=shared class=quiet (default)" \
	"22 topoplace: placement=shared class=quiet (default)" >"$work/off.comments"
: >"$work/off.recorded"
: >"$work/off.store"

out=$(report "off first")
row() { awk -v r="$1" '$1 == r { $1 = ""; sub(/^ /, ""); print }' <<<"$out"; }
tp_check_eq "first: jobs done eligible profile class wrong share node-s share recorded runs" \
	"11 10 4 3 1 1 75.0% 75 70 93.3% 1 1" "$(row first)"
tp_check_eq "off: 1 eligible job, no profile, nothing recorded" \
	"2 2 1 0 0 0 0.0% 1 0 0.0% 0 0" "$(row off)"
tp_check_eq "first: the coverage line (node-hours at 1/360)" \
	"# first: coverage: 3 of 4 jobs (75.0%), node-hours 7.00 of 7.50 (93.3%)" \
	"$(grep '^# first: coverage:' <<<"$out")"
tp_check_eq "first: a job whose application ended between its submit and start is counted apart" \
	"# first: 1 more jobs' application ended after their submission, before their start (not eligible)" \
	"$(grep '^# first: 1 more' <<<"$out")"
tp_check_eq "first: the eligible job without a profile, by its SystemComment" \
	"# first: eligible, no profile, 1 jobs: placement=shared class=quiet (default)" \
	"$(grep '^# first: eligible, no profile' <<<"$out")"
tp_check_eq "first: the refused submission is said" \
	"# first: 1 submissions refused by sbatch (first.sbatch.err)" \
	"$(grep '^# first: 1 submissions refused' <<<"$out")"
tp_check_eq "first.verdicts: each job's verdict (ids 1-11)" \
	"first first profile first first class_only none late first profile first" \
	"$(sort -n "$work/first.verdicts" | cut -d' ' -f5 | tr '\n' ' ' | sed 's/ $//')"
tp_check_eq "first.verdicts: id app nodes state verdict SystemComment" \
	"7 eB 1 COMPLETED none topoplace: placement=shared class=quiet (default)" \
	"$(grep '^7 ' "$work/first.verdicts")"
tp_done
