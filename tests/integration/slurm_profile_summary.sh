#!/bin/bash
# slurm_profile_summary.sh: slurmctld classifies jobs from the summary
# stored beside each profile run, never reads a big profile whole while it
# has one, and never queues a small job's lookup behind a big read (issue
# #14, item 1), on the tp-bed cluster of slurm_place.sh, as tpalice.
#
#   every `topoplace profile put` leaves <stamp>.sum beside the run (the
#       user's, 0600);
#   a 1600-rank all-to-all profile (61 MB, 2.56 M matrix entries, under the
#       64 MiB lookup cap) and a small one: both jobs are placed, slurmctld's
#       peak RSS (VmHWM in /proc/PID/status) grows by less than 16 MiB, and
#       no line says the run was read whole;
#   its summary removed: slurmctld logs once why it reads the run, the
#       small job queued right behind it gets its answer before the big
#       read ends, and VmHWM now grows by more than 64 MiB (so the first
#       check measures what it claims);
#   `topoplace profile summarize` as root writes the summary again, owned
#       by the user, and the next lookup uses it.
#   an interactive step (srun --comm-profile=big) under RemapMemory=96MiB
#       reads at most 32 MiB of a profile (item 3): the run is refused from
#       its size within 2 s of the step's launch, the task runs and its
#       stderr says why.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_profile_summary --timeout 480 --cpus 8

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf
# A whole read of the big run can take longer than the default 10 s on a
# loaded machine: the job would be placed without it, and this test would
# not see the read end.
printf 'DebugFlags=Profile\nProfileLookupTimeout=300s\n' >>"$etc/topoplace.conf"
tp_check "slurmctld reloads topoplace.conf with DebugFlags=Profile" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"

ctld_pid=$(cat "$TP_BED_DIR/run/slurmctld.pid")
hwm_kib() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$ctld_pid/status"; }
# lookup_us JOB FIELD: "read" (the reader's time) or "answer" (from the
# request to the answer) of JOB's profile lookup, from its Profile line.
lookup_us() {
	local line
	line=$(grep -m1 "topoplace: Profile: JobId=$1: .* read in [0-9]* us, answer after" "$log") || return 1
	case $2 in
	read) sed 's/.* read in \([0-9]*\) us.*/\1/' <<<"$line" ;;
	answer) sed 's/.* answer after \([0-9]*\) us.*/\1/' <<<"$line" ;;
	esac
}

# allocated JOB: slurmctld placed JOB within 60 s.  (What slurmd does with
# the big profile at launch is not this test's subject; the job is
# cancelled once placed.)
allocated() { wait_for "${2:-60}" grep -q "topoplace: JobId=$1 placement=.* nodes=" "$log"; }

run=$(ls "$store/$user/hpcg/" | grep '\.tpp$' | tail -1)
sum=$store/$user/hpcg/${run%.tpp}.sum
tp_check_eq "profile put left a summary beside $user/hpcg/$run, the user's, 0600" \
	"$user 600" "$(stat -c '%U %a' "$sum" 2>&1)"
tp_check "(and it is a version-1 summary of that run)" \
	grep -qx "profile $run" "$sum"

"$gen" alltoall 1600 "$out/big.tpp" && chmod 644 "$out/big.tpp"
tp_check "$user signs and stores the 1600-rank all-to-all profile big" \
	tp_as_user "$user" "$tp" profile put --store "$store" \
	--munge-socket "$sock" "$out/big.tpp" "$user/big"
bigrun=$(ls "$store/$user/big/" | grep '\.tpp$' | tail -1)
bytes=$(stat -c %s "$store/$user/big/$bigrun")
tp_check "(it is bigger than 48 MiB and under the 64 MiB cap: $bytes bytes)" \
	test "$bytes" -gt $((48 << 20)) -a "$bytes" -lt $((64 << 20))

# --- with summaries ----------------------------------------------------------
hwm0=$(hwm_kib)
big=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=big \
	-o /dev/null --wrap true)
small=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 --comm-profile=hpcg \
	-o /dev/null --wrap true)
tp_check "the big-profile job is placed" allocated "$big"
scancel "$big"
tp_check_eq "the small-profile job completes" COMPLETED "$(tp_wait_job "$small" 60)"
hwm1=$(hwm_kib)
tp_check "slurmctld's VmHWM grew by less than 16 MiB ($hwm0 -> $hwm1 kB)" \
	test $((hwm1 - hwm0)) -lt $((16 << 10))
tp_check "the big job was classified from its profile ($(grep -m1 "Profile: JobId=$big: " "$log"))" \
	grep -q "topoplace: Profile: JobId=$big: $user/big read in [0-9]* us, answer after [0-9]* us: class " "$log"
tp_check_eq "no line says a run was read whole" 0 \
	"$(grep -c 'read the whole run' "$log")"

# --- without the big one's summary -------------------------------------------
rm "$store/$user/big/${bigrun%.tpp}.sum"
big=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=big \
	-o /dev/null --wrap true)
# Queued right behind it, before slurmctld has even read the big one.
small=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=quiet \
	-o /dev/null --wrap true)
tp_check_eq "(no summary) the small job completes" COMPLETED "$(tp_wait_job "$small" 90)"
tp_check "(no summary) the big-profile job is placed" allocated "$big" 300
scancel "$big"
# One line per lookup of the job (slurmd may requeue it, and a requeued
# job is looked up again).
lookups=$(grep -c "topoplace: Profile: JobId=$big: lookup of $user/big" "$log")
tp_check_eq "one line per lookup ($lookups) says why the big run is read whole" "$lookups" \
	"$(grep -c "topoplace: JobId=$big: profile $user/big: .*/${bigrun%.tpp}.sum: no summary: read the whole run ($bytes bytes) instead" "$log")"
tp_check "(at least one)" test "$lookups" -ge 1
big_read=$(lookup_us "$big" read)
small_answer=$(lookup_us "$small" answer)
tp_check "the small job's answer ($small_answer us) came before the big read ended ($big_read us)" \
	test "${small_answer:-999999999}" -lt "${big_read:-0}"
hwm2=$(hwm_kib)
tp_check "reading the run whole does show in VmHWM ($hwm1 -> $hwm2 kB)" \
	test $((hwm2 - hwm1)) -gt $((64 << 10))

# --- summarize -----------------------------------------------------------------
tp_check "topoplace profile summarize $user/big (as root)" \
	"$tp" profile summarize --store "$store" --munge-socket "$sock" "$user/big"
tp_check_eq "the summary is the user's again, 0600" "$user 600" \
	"$(stat -c '%U %a' "$store/$user/big/${bigrun%.tpp}.sum" 2>&1)"
big=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=big \
	-o /dev/null --wrap true)
tp_check "(summarized) the big-profile job is placed" allocated "$big"
scancel "$big"
tp_check_eq "and its lookup read no run whole" 0 \
	"$(grep -c "JobId=$big: profile $user/big: .*read the whole run" "$log")"
tp_check "(it was classified: $(grep -m1 "Profile: JobId=$big: " "$log"))" \
	grep -q "topoplace: Profile: JobId=$big: $user/big read in [0-9]* us" "$log"
# The batch job itself: its task count (4) is not the profile's ranks, so
# slurmd needs the totals only (class and throttling) and reads the summary,
# never the 61 MB matrix.
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=big \
	-o "$out/classonly-%j.out" --wrap true)
tp_check_eq "(summarized) a -n 4 batch job with the big profile completes" \
	COMPLETED "$(tp_wait_job "$j" 120)"
tp_check "slurmd read the summary, not the run ($(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -m1 "Profile: JobId=$j: "))" \
	bash -c 'cat "$1"/slurmd.*.log | grep -q "task/topoplace: Profile: JobId=$2: $3/big read from .* (its summary): [0-9]* ranks"' \
	_ "$TP_BED_LOGDIR" "$j" "$user"
tp_check_eq "and kept Slurm's layout, saying why" 1 \
	"$(grep -c "^topoplace: profile $user/big has [0-9]* ranks but the job has 4 tasks" "$out/classonly-$j.out")"

# --- an interactive step's profile read is bounded (item 3) -----------------
# A step reads only the profile's totals: its summary when there is one.
# Without it (removed here, as in a store written before summaries), the
# run itself, and RemapMemory=96MiB lets a step read at most 32 MiB of it,
# so the 61 MB run is refused from its size, before slurmstepd reads a byte.
rm -f "$store/$user/big/${bigrun%.tpp}.sum"
printf 'RemapMemory=96MiB\n' >>"$etc/topoplace.conf"
tp_check "slurmctld reloads topoplace.conf with RemapMemory=96MiB" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
tp_as_user "$user" timeout 120 srun -N1 -n1 --comm-profile=big \
	echo step-ran >"$out/step.out" 2>"$out/step.err"
rc=$?
tp_check_eq "srun -n1 --comm-profile=big runs its task" "0 step-ran" "$rc $(cat "$out/step.out")"
# slurmstepd's part: from slurmd's "launch task" to task/topoplace's
# refusal.  (srun itself reads the profile for its own rankfile before
# that: the user's process, not a daemon.)
step=$(grep -o "launch task StepId=[0-9]*\.0 request from UID:$(id -u "$user")" \
	"$TP_BED_LOGDIR"/slurmd.*.log | tail -1 | sed 's/.*StepId=\([0-9.]*\) .*/\1/')
t_launch=$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -m1 "launch task StepId=$step request" | sed 's/^\[\([^]]*\)\].*/\1/')
t_refused=$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -m1 "\[$step\] error: task/topoplace: .*no summary and over a step's profile limit" | sed 's/^\[\([^]]*\)\].*/\1/')
step_ms=$(( ($(date -d "$t_refused" +%s%3N) - $(date -d "$t_launch" +%s%3N)) ))
tp_check "slurmstepd refused it within 2 s of the launch ($t_launch -> $t_refused: $step_ms ms)" \
	test -n "$t_launch" -a -n "$t_refused" -a "$step_ms" -lt 2000
tp_check "its stderr says why the profile is not used ($(grep topoplace "$out/step.err"))" \
	grep -q "^topoplace: profile $user/big not used (no summary and over a step's profile limit of 32 MiB (RemapMemory/3, at most 64 MiB): .*$bytes bytes.*): no I/O throttling from it" \
	"$out/step.err"
tp_check_eq "and one slurmstepd line says it" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c "task/topoplace: .*profile: no summary and over a step's profile limit of 32 MiB")"
# With the summary back, the step reads it (a few KiB) and nothing more.
tp_check "topoplace profile summarize $user/big again" \
	"$tp" profile summarize --store "$store" --munge-socket "$sock" "$user/big"
tp_as_user "$user" timeout 120 srun -N1 -n1 --comm-profile=big \
	echo step-ran >"$out/step2.out" 2>"$out/step2.err"
rc=$?
tp_check_eq "(summarized) srun -n1 --comm-profile=big runs its task" "0 step-ran" \
	"$rc $(cat "$out/step2.out")"
step2=$(grep -o "launch task StepId=[0-9]*\.0 request from UID:$(id -u "$user")" \
	"$TP_BED_LOGDIR"/slurmd.*.log | tail -1 | sed 's/.*StepId=\([0-9.]*\) .*/\1/')
tp_check "slurmstepd read the profile's summary ($(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -m1 "Profile: StepId=$step2: "))" \
	bash -c 'cat "$1"/slurmd.*.log | grep -q "task/topoplace: Profile: StepId=$2: $3/big by --comm-profile: read (its summary)"' \
	_ "$TP_BED_LOGDIR" "$step2" "$user"
tp_check_eq "and refused nothing: still one line about the step limit" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c "over a step's profile limit")"
# srun's own mapping (the user's process) is bounded the same way: it
# reads the matrix, not only the summary.
tp_check "srun says it did not map the 61 MB run itself ($(grep topoplace "$out/step2.err"))" \
	grep -q "^srun: error: topoplace: JobId=[0-9]*: --comm-profile=big: over srun's profile limit of 32 MiB (RemapMemory/3, at most 64 MiB): .*: srun keeps Slurm's task layout" \
	"$out/step2.err"
tp_done
