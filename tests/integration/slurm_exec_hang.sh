#!/bin/bash
# slurm_exec_hang.sh: a step whose program sits on a hung file system.
# Under ProfileRecord=first slurmstepd hashes the step's executable, as
# the user, in a child it kills after TP_SC_EXEC_HASH_TIMEOUT_MS (3 s;
# topoplace-profile(5) APPLICATION IDENTITY).  Here the program is on a
# FUSE file system (tests/lib/tp_hangfs.c) whose first open is never
# answered until the test says so, the way an open on a hung NFS or
# Lustre mount is not: the killed child stays in state D.  The job must
# still run, without waiting for the file system:
#   - job hang1 completes while the held open is still unanswered, and
#     its hash child was the opener (tpalice's uid);
#   - slurmd's log has one line naming the command and the bound;
#   - the killed child is left waiting on the file system (state D), not
#     waited for; once the open is answered it is gone;
#   - job hang2, after the file system answers again, runs the same
#     program and its executable is hashed (slurmd's debug line with the
#     sha256): nothing in slurmd or slurmstepd stayed stuck.
# Then the store itself is on a mount where every lookup hangs
# (tp-hangfs --hold-all): a batch job under ProfileRecord=first runs once
# slurmd's work for it is given up at RemapBudget (2 s), an interactive
# `srun --comm-record` once slurmstepd's is given up at 5 s
# (TP_SC_STEP_WORK_TIMEOUT_MS), both saying so where the user looks, and
# the daemons answer.
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	. "$abs_top_srcdir/tests/lib/record_bed.sh"
	hangfs=$abs_top_builddir/tests/lib/tp-hangfs
	[ -x "$hangfs" ] ||
		tp_skip "tests/lib/tp-hangfs not built (configure found no FUSE 3: apt-get install libfuse3-dev fuse3)"
	[ -c /dev/fuse ] && command -v fusermount3 >/dev/null ||
		tp_skip "no /dev/fuse or fusermount3 (fuse3): cannot mount the hung file system"
	tp_record_bed_prepare
	export TP_HANGFS=$hangfs
	tp_record_bed_run slurm_exec_hang
fi

# Inside the bed's mount namespace: the FUSE mount is seen by every slurmd
# and slurmstepd of the bed, and goes with the bed.
. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice
id -u "$alice" >/dev/null 2>&1 || tp_skip "user $alice does not exist"
uid=$(id -u "$alice")
work=$TP_RECORD_WORK
out=$TP_BED_JOBDIR
etc=$(dirname "$SLURM_CONF")
store=$TP_BED_DIR/store
mnt=$work/mnt
ctl=$work/ctl
mkdir -p "$store" "$mnt" "$ctl" && chmod 755 "$store" "$mnt"
install -d -o "$alice" -m 755 "$store/$alice"
install -m 755 /bin/true "$work/app"
hash12=$(sha256sum "$work/app" | cut -c1-12)

"$TP_HANGFS" "$work/app" "$ctl" "$mnt" -o allow_other,default_permissions ||
	tp_fail "tp-hangfs mounts $mnt"
trap 'touch "$ctl/release"; fusermount3 -u "$mnt" 2>/dev/null' EXIT
tp_check "the program is on the FUSE file system, executable by $alice" \
	tp_as_user "$alice" test -x "$mnt/app"

printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\nDebugFlags=Profile\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2

slurmd_logs() { cat "$TP_BED_LOGDIR"/slurmd*.log; }
# run NAME: a 1-node, 1-task job of tpalice whose script runs the program
# with srun; prints the job id.
run() {
	tp_as_user "$alice" sbatch --parsable -N 1 -n 1 -J "$1" \
		-o "$out/$1-%j.out" --wrap "srun $mnt/app"
}
# D-state processes of tpalice: "pid state" lines.
stuck() { ps -u "$alice" -o pid=,stat= 2>/dev/null | awk '$2 ~ /^D/'; }

j1=$(run hang1)
st=$(tp_wait_job "$j1" 120)
if [ "$st" = COMPLETED ]; then
	answered_at_end=$([ -e "$ctl/answered" ] && echo answered || echo unanswered)
else
	answered_at_end="not ended ($st)"
fi
tp_check_eq "job hang1 $j1 (its program's first open hangs) completes" COMPLETED "$st"
tp_check_eq "the held open was still unanswered when it ended (the step did not wait for the file system)" \
	unanswered "$answered_at_end"
tp_check "the open that hung was the hash child's, as $alice (held: $(cat "$ctl/held" 2>/dev/null))" \
	grep -q " uid=$uid\$" "$ctl/held"
tp_check_eq "slurmd's log has one line naming the command and the 3 s bound" 1 \
	"$(slurmd_logs | grep -c "StepId=$j1\.0: ProfileRecord: executable not identified (command $mnt/app: not found and hashed within 3000 ms: not identified): recorded as decided for the job")"
held_pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$ctl/held")
tp_check "the killed hash child is left in state D on the file system, not waited for ($(stuck | paste -sd' '))" \
	bash -c '[[ $(ps -o stat= -p "$1") == D* ]]' _ "$held_pid"

touch "$ctl/release"
for ((i = 0; i < 50; i++)); do
	[ -z "$(stuck)" ] && ! kill -0 "$held_pid" 2>/dev/null && break
	sleep 0.2
done
tp_check "once the open is answered the child is gone" \
	bash -c '[ -e "$1/answered" ] && ! kill -0 "$2" 2>/dev/null' _ "$ctl" "$held_pid"

# The file system answers every open now, as a mount that came back.
j2=$(run hang2)
tp_check_eq "job hang2 $j2, the same program, completes" COMPLETED "$(tp_wait_job "$j2" 120)"
tp_check "its executable is hashed this time: slurmd's debug line has the sha256" \
	bash -c 'grep -qF "task/topoplace: Profile: StepId=$1.0: no profile by executable $2 (sha256 $3...)" <<<"$4"' \
	_ "$j2" "$mnt/app" "$hash12" "$(slurmd_logs)"
tp_check_eq "and no line says it was not identified" 0 \
	"$(slurmd_logs | grep -c "StepId=$j2\.0: ProfileRecord: executable not identified")"

# ---- 2. The store itself on a hung mount --------------------------------
# Every lookup in it is held: slurmctld's lookup (ProfileLookupTimeout),
# slurmd's batch work (RemapBudget, 2 s) and slurmstepd's step work
# (TP_SC_STEP_WORK_TIMEOUT_MS, 5 s) are given up and the jobs run,
# without waiting for the file system.
hung=$work/store-hung
ctl2=$work/ctl2
mkdir -p "$hung" "$ctl2" && chmod 755 "$hung"
"$TP_HANGFS" --hold-all "$ctl2" "$hung" -o allow_other,default_permissions ||
	tp_fail "tp-hangfs --hold-all mounts $hung"
trap 'touch "$ctl/release" "$ctl2/release"; fusermount3 -u "$mnt" 2>/dev/null; fusermount3 -u "$hung" 2>/dev/null' EXIT
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\n' \
	"$hung" >"$etc/topoplace.conf"
# slurmctld reads it at reconfigure (no submission just before or after
# it: bench/reconfigure_race.sh); slurmd and slurmstepd at each launch.
t0=$SECONDS
scontrol reconfigure
tp_check "slurmctld reconfigures onto the hung store and answers (in $((SECONDS - t0)) s)" \
	bash -c 'scontrol ping | grep -q UP'
sleep 3
j3=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 1 -J hungstore \
	-o "$out/hungstore-%j.out" --wrap "/bin/true")
st=$(tp_wait_job "$j3" 120)
tp_check_eq "batch job $j3 (ProfileRecord=first, the store hung) completes" COMPLETED "$st"
tp_check "the store's lookup was held (held: $(cat "$ctl2/held" 2>/dev/null))" test -e "$ctl2/held"
tp_check "slurmctld placed it by plain cons_tres after ProfileLookupTimeout, one line" \
	bash -c '[ "$(grep -c "JobId=$1.*no answer from the store after .* (ProfileLookupTimeout): placed by plain cons_tres" "$2")" = 1 ]' \
	_ "$j3" "$TP_BED_SLURMCTLD_LOG"
tp_check_eq "slurmd's log: one line, its work given up at RemapBudget" 1 \
	"$(slurmd_logs | grep -c "JobId=$j3: .*did not finish within its budget of 2 s (RemapBudget)")"
tp_check "the job's output says so" \
	grep -q "^topoplace: .*did not finish within its budget of 2 s (RemapBudget): the job runs in Slurm's order" \
	"$out/hungstore-$j3.out"
t0=$SECONDS
tp_as_user "$alice" timeout 120 srun -N 1 -n 1 -J hungstep --comm-record /bin/true \
	>"$out/hungstep.out" 2>&1
rc=$?
took=$((SECONDS - t0))
tp_check_eq "an interactive srun --comm-record with the store hung exits 0 (in ${took} s)" 0 "$rc"
tp_check_eq "the store's first held lookup is still unanswered after both jobs" \
	absent "$([ -e "$ctl2/answered" ] && echo present || echo absent)"
tp_check "its stderr says the step's work was given up at 5000 ms" \
	grep -q "^topoplace: topoplace's work for the step (profile store, program hash, I/O servers) did not finish within 5000 ms: the step runs without its recording, throttle window or I/O servers" \
	"$out/hungstep.out"
tp_check_eq "slurmd's log has that line once" 1 \
	"$(slurmd_logs | grep -c "task/topoplace: StepId=[0-9]*\.0: topoplace's work for the step .* did not finish within 5000 ms")"
tp_check "the daemons answer: scontrol ping" bash -c 'scontrol ping | grep -q UP'
touch "$ctl2/release"
for ((i = 0; i < 50; i++)); do
	[ -z "$(stuck)" ] && break
	sleep 0.2
done
tp_check_eq "once the store answers, no process of $alice is left waiting on it" "" "$(stuck)"
tp_check "a plain srun runs after it" tp_as_user "$alice" timeout 60 srun -N 1 -n 1 /bin/true
tp_done
