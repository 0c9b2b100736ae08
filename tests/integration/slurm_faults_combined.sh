#!/bin/bash
# slurm_faults_combined.sh: the faults of issue #14, one after another in
# one tp-bed cluster (4 leaves x 4 hosts) under a steady workload of
# several users' jobs (whole-leaf jobs, remapped jobs with a profile,
# plain jobs), as tpalice, tpbob and root.  Each fault is injected for
# real:
#
#   1. a 1024-rank profile under RemapBudget=10ms while tpbob runs
#      `srun -w` on the same node;
#   2. `scontrol reconfigure` with a bad value in topoplace.conf, then the
#      fixed file;
#   3. slurmctld restarted while a whole-leaf job runs and topoplace.conf
#      has a typo: the hold survives;
#   4. one node's slurmd restarted while topoplace.conf has a typo: a job
#      with a profile whose batch script runs there says why it is not
#      remapped, in its output; with the file fixed it is remapped;
#   5. munged stopped during `topoplace profile verify`, then started;
#   6. scancel of a running remapped job.
#
# After each fault: slurmctld and slurmd answer (scontrol ping, squeue, a
# trivial srun: the measured ms are in the checks' labels) and the fault's
# log line is there once.  At the end: every job submitted reached exactly
# one final state and slurmctld (and sacct: the bed runs slurmdbd) knows
# no job that was not submitted (each job's name is unique: a submission
# repeated by a retry would show), no
# node is drained or down, a whole-leaf job submitted after the faults is
# held, and the daemons run (the same PIDs but the ones restarted).
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
# MinJobAge: every job of the run stays in slurmctld's memory to the end.
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_faults_combined --timeout 480 \
	--accounting --conf MinJobAge=1800

tp_slurm_setup
bob=tpbob
id -u "$bob" >/dev/null 2>&1 || tp_skip "user $bob does not exist"
tp_slurm_profiles
tp_slurm_conf
base=/run/topoplace-bed/jobs/topoplace
cp "$etc/topoplace.conf" "$out/good.conf"

# nodes_of_leaf LEAF: its hostlist in topology.conf.
nodes_of_leaf() { sed -n "s/^SwitchName=$1 Nodes=\([^ ]*\).*/\1/p" "$etc/topology.conf"; }
# The probe node answers the trivial srun after each fault: no workload
# job uses it and no whole-leaf job its leaf, so that srun never waits for
# resources.
probe=n0016
keep_off=$(nodes_of_leaf "$(leaf_of "$probe")")
# The batch script of the remapped jobs: what it was given, then how many
# tasks a plain srun ran.
# shellcheck disable=SC2016 # expanded by the job's shell
script='echo "hostfile ${SLURM_HOSTFILE:-none}"
	echo "tasks $(srun bash -c "echo \$SLURM_PROCID" | wc -l)"'

# --- the jobs submitted: one line "ID NAME" each ----------------------------
submitted=$out/submitted
: >"$submitted"
# submit NAME USER SBATCH-ARGS...: sbatch -J NAME as USER; its id on stdout
# and in $submitted.  Names are unique: a job slurmctld knows under a name
# twice, or not in $submitted, was submitted twice.
submit() {
	local name=$1 who=$2 id
	shift 2
	id=$(tp_as_user "$who" sbatch --parsable -J "$name" "$@") || return 1
	echo "$id $name" >>"$submitted"
	echo "$id"
}

# The background workload: a job every 3 s, in turn a whole-leaf job
# (root), a plain job of tpalice, a 2-node plain job of tpbob and a
# 16-rank job of tpalice remapped from the profile hpcg.  It pauses while
# $out/pause exists (acknowledged by $out/paused) and stops at $out/stop.
workload() {
	local k=0
	while [ ! -e "$out/stop" ]; do
		if [ -e "$out/pause" ]; then
			touch "$out/paused"
			sleep 0.2
			continue
		fi
		rm -f "$out/paused"
		k=$((k + 1))
		case $((k % 4)) in
		1) submit "bg$k-leaf" root -N 1 --placement=leaf -x "$keep_off" \
			-o /dev/null --wrap 'sleep 5' ;;
		2) submit "bg$k-plain" "$user" -N 1 -n 1 -x "$probe" \
			-o /dev/null --wrap 'sleep 4' ;;
		3) submit "bg$k-plain2" "$bob" -N 2 -n 2 -x "$probe" \
			-o /dev/null --wrap 'srun sleep 3' ;;
		0) submit "bg$k-remap" "$user" -N 4 -n 16 --comm-profile=hpcg \
			-x "$keep_off" -o "$out/bg-%j.out" --wrap "$script" ;;
		esac
		sleep 3
	done
} >/dev/null 2>>"$out/workload.err"
pause_workload() { touch "$out/pause" && wait_for 30 test -e "$out/paused"; }
resume_workload() { rm -f "$out/pause" "$out/paused"; }

# The daemons' PIDs before the faults.
ctld_pid=$(cat "$TP_BED_DIR/run/slurmctld.pid")
munged_pid=$(cat "$TP_BED_DIR/run/munged.pid")
declare -A slurmd_pid
for n in $(sinfo -h -N -o %N | sort -u); do
	slurmd_pid[$n]=$(cat "$TP_BED_DIR/run/slurmd.$n.pid")
done

workload &
workload_pid=$!
sleep 6

# --- 1. a big profile under a small RemapBudget, another user on the node ------
"$gen" alltoall 1024 "$out/bigall.tpp" && chmod 644 "$out/bigall.tpp" &&
	tp_as_user "$user" "$tp" profile put --store "$store" \
		--munge-socket "$sock" "$out/bigall.tpp" "$user/bigall" >/dev/null
tp_check_eq "1: a 1024-rank all-to-all profile is signed into the store" 0 $?
# Its summary removed (a store written before summaries): slurmd must read
# the 25 MB run whole to learn its ranks, the work RemapBudget bounds.
rm -f "$store/$user/bigall/"*.sum
echo "RemapBudget=10ms" >>"$etc/topoplace.conf"
# --placement=off and one task a node: room for tpbob on the job's nodes.
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(submit f1-bigall "$user" -N 4 -n 4 --comm-profile=bigall --placement=off \
	-x "$probe" -o "$out/big-%j.out" \
	--wrap 'echo "rankfile ${TOPOPLACE_RANKFILE:-none}"; srun sleep 15')
tp_check "1: the job $j with the big profile starts" wait_state "$j" RUNNING 60
cp "$out/good.conf" "$etc/topoplace.conf"
node=$(scontrol show hostnames "$(squeue -h -j "$j" -o %N)" | head -1)
elapsed_ms ms tp_as_user "$bob" timeout 30 srun -J tp-probe -w "$node" hostname
rc=$?
tp_check "1: meanwhile $bob's srun -w $node hostname succeeds in $ms ms (under $((${TP_RESPONSIVE_MS:-15000} / 1000)) s)" \
	test "$rc" = 0 -a "$ms" -lt "${TP_RESPONSIVE_MS:-15000}"
tp_check "1: the job's output says it runs in Slurm's order" wait_for 10 \
	grep -qx "topoplace: topoplace's work for the job (profile, rank remapping, I/O servers) did not finish within its budget of 10 ms (RemapBudget): the job runs in Slurm's order" \
	"$out/big-$j.out"
tp_check_eq "1: one slurmd log line says so" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c "task/topoplace: JobId=$j: topoplace's work for the job (profile, rank remapping, I/O servers) did not finish within its budget of 10 ms")"
tp_check_eq "1: and no other slurmd line of the job" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c "task/topoplace: JobId=$j:")"
tp_check_responsive "after fault 1" "$probe"

# --- 2. reconfigure with a bad value, then the fixed file ------------------------
echo "PartitionName=debug DefaultPlacement=sideways" >>"$etc/topoplace.conf"
bad_line=$(wc -l <"$etc/topoplace.conf")
before=$(wc -l <"$log")
tp_check "2: scontrol reconfigure with a bad value logs an error" \
	reconfigure_and_wait "error: topoplace: reconfigure: $etc/topoplace.conf: line $bad_line: "
cp "$out/good.conf" "$etc/topoplace.conf"
tp_check_eq "2: one line names the file, line and value" 1 \
	"$(since "$before" | grep -c "topoplace: reconfigure: $etc/topoplace.conf: line $bad_line: .*sideways")"
tp_check_eq "2: one line says the previous configuration stays" 1 \
	"$(since "$before" | grep -c "error: topoplace: reconfigure: keeping the previous configuration and fabric")"
l=$(submit f2-leaf root -N 1 --placement=leaf -x "$keep_off" -o /dev/null --wrap 'sleep 8')
wait_state "$l" RUNNING 60
tp_check "2: a leaf job $l is placed and held by the previous configuration" \
	bash -c '[[ $1 == "topoplace: placement=leaf class=quiet held="* ]]' _ "$(system_comment "$l")"
tp_check "2: the fixed file loads on the next reconfigure" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
tp_check_responsive "after fault 2" "$probe"

# --- 3. slurmctld restart with a typo, a whole-leaf job running ------------------
a=$(submit f3-leaf root -N 3 --placement=leaf -x "$keep_off" -o /dev/null --wrap 'sleep 90')
tp_check "3: the whole-leaf job $a runs" wait_state "$a" RUNNING 60
la=$(leaves_of_job "$a")
leaf_nodes=$(nodes_of_leaf "$la")
tp_check_eq "3: it records its whole leaf $la as held" \
	"topoplace: placement=leaf class=quiet held=$leaf_nodes" "$(system_comment "$a")"
echo "DefaultPlacment=leaf" >>"$etc/topoplace.conf"
bad_line=$(wc -l <"$etc/topoplace.conf")
before=$(wc -l <"$log")
tp_check "3: slurmctld restarts with a typo in topoplace.conf" tp_restart_slurmctld
tp_check_eq "3: one error at start names the file, line and key" 1 \
	"$(since "$before" | grep -c "error: topoplace: init: $etc/topoplace.conf: line $bad_line: .*DefaultPlacment.*unknown key")"
tp_check_eq "3: and it is the only line about it" 1 \
	"$(since "$before" | grep -c "DefaultPlacment")"
tp_check "3: the hold is recovered from the SystemComment" \
	bash -c 'grep -qF "topoplace: JobId=$1: recovered placement=leaf class=quiet from its SystemComment, holding $2" <<<"$3"' \
	_ "$a" "$leaf_nodes" "$(since "$before")"
tp_check_eq "3: the whole-leaf job still runs" RUNNING "$(squeue -h -j "$a" -o %T)"
# cons_tres alone would take the held leaf's free node (the tightest fit).
n=$(submit f3-after root -N 1 --placement=leaf -o /dev/null --wrap 'sleep 5')
wait_state "$n" RUNNING 60
ln=$(leaves_of_job "$n")
tp_check "3: a new job $n does not land on the held leaf $la (it got $ln)" \
	test -n "$ln" -a "$ln" != "$la"
tp_check_eq "3: its SystemComment says topoplace.conf is not loaded" \
	"topoplace: placement=off class=quiet: topoplace.conf not loaded: placed by Slurm's default" \
	"$(system_comment "$n")"
cp "$out/good.conf" "$etc/topoplace.conf"
tp_check "3: the fixed file loads on reconfigure" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
tp_check_responsive "after fault 3" "$probe"
scancel "$a"

# --- 4. one slurmd restarted with a typo in topoplace.conf ------------------------
# The job's batch script runs on the first node of its allocation.
lx=leaf002
[ "$lx" = "$la" ] && lx=leaf001
xnodes=$(nodes_of_leaf "$lx")
x=$(scontrol show hostnames "$xnodes" | head -1)
echo "DefaultPlacment=leaf" >>"$etc/topoplace.conf"
bad_line=$(wc -l <"$etc/topoplace.conf")
tp_check "4: slurmd on $x restarts with a typo in topoplace.conf" tp_restart_slurmd "$x"
new_slurmd_pid=$(cat "$TP_BED_DIR/run/slurmd.$x.pid")
j=$(submit f4-remap "$user" -N 4 -n 16 --comm-profile=hpcg -w "$xnodes" \
	-o "$out/f4-%j.out" --wrap "$script")
tp_check_eq "4: a 16-rank job $j with the profile on $xnodes completes" \
	COMPLETED "$(tp_wait_job "$j" 90)"
tp_check_eq "4: a plain srun in it runs the 16 ranks" "tasks 16" \
	"$(grep '^tasks ' "$out/f4-$j.out")"
if grep -qx "hostfile $base/$j/hostfile" "$out/f4-$j.out"; then
	tp_pass "4: remapped by the last good configuration"
else
	tp_check_eq "4: not remapped, and the job's output says why, once" 1 \
		"$(grep -c "^topoplace: topoplace.conf not loaded ($etc/topoplace.conf: line $bad_line: DefaultPlacment.*): no rank remapping, I/O servers or throttling: the job runs in Slurm's order$" "$out/f4-$j.out")"
	tp_check_eq "4: one slurmd line on $x names the file, line and key" 1 \
		"$(grep -c "task/topoplace: JobId=$j: $etc/topoplace.conf: line $bad_line: DefaultPlacment" "$TP_BED_LOGDIR/slurmd.$x.log")"
fi
cp "$out/good.conf" "$etc/topoplace.conf"
j=$(submit f4-fixed "$user" -N 4 -n 16 --comm-profile=hpcg -w "$xnodes" \
	-o "$out/f4-%j.out" --wrap "$script")
tp_check_eq "4: with the file fixed, the same job $j completes" \
	COMPLETED "$(tp_wait_job "$j" 90)"
tp_check_eq "4: and is remapped (hostfile in the job's directory)" \
	"hostfile $base/$j/hostfile" "$(grep '^hostfile ' "$out/f4-$j.out")"
tp_check_eq "4: with nothing to say on its output" 0 "$(grep -c '^topoplace:' "$out/f4-$j.out")"
tp_check_responsive "after fault 4" "$x"

# --- 5. munged stopped during a profile verify --------------------------------------
# No submissions while munge is down: sbatch could not sign them anyway.
pause_workload
tp_check "5: munged stops" tp_stop_munged
verify=$(tp_as_user "$user" "$tp" profile verify --store "$store" \
	--munge-socket "$sock" "$user/hpcg" 2>&1)
rc=$?
tp_check "5: munged starts again" tp_start_munged
resume_workload
new_munged_pid=$(cat "$TP_BED_DIR/run/munged.pid")
tp_check_eq "5: topoplace profile verify fails" 1 "$rc"
tp_check_eq "5: and says once that munged is unreachable at its socket ($verify)" 1 \
	"$(grep -c "NOT CHECKED: .*munged unreachable at socket $sock" <<<"$verify")"
tp_check "5: with munged back, verify succeeds" tp_as_user "$user" "$tp" profile \
	verify --store "$store" --munge-socket "$sock" "$user/hpcg"
tp_check_responsive "after fault 5" "$probe"

# --- 6. scancel of a running remapped job -------------------------------------------
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(submit f6-remap "$user" -N 4 -n 16 --comm-profile=hpcg -x "$keep_off" \
	-o "$out/f6-%j.out" --wrap 'echo "hostfile ${SLURM_HOSTFILE:-none}"; srun sleep 60')
tp_check "6: the remapped job $j runs" wait_state "$j" RUNNING 60
tp_check "6: it has its hostfile" wait_for 10 \
	grep -qx "hostfile $base/$j/hostfile" "$out/f6-$j.out"
before=$(wc -l <"$log")
scancel "$j"
tp_check_eq "6: scancel: the job ends CANCELLED" CANCELLED "$(tp_wait_job "$j" 30)"
tp_check_eq "6: one slurmctld line for the cancel" 1 \
	"$(since "$before" | grep -c "REQUEST_KILL_JOB JobId=$j uid")"
sleep 2
tp_check_eq "6: and stays so (not requeued)" "CANCELLED 0" \
	"$(scontrol show job -o "$j" | sed -n 's/.*JobState=\([A-Z]*\) .*Restarts=\([0-9]*\) .*/\1 \2/p')"
tp_check "6: no job directory is left" wait_for 10 test ! -e "$base/$j"
tp_check_responsive "after fault 6" "$probe"

# --- the end: nothing lost, duplicated or left ---------------------------------------
touch "$out/stop"
wait "$workload_pid"
# shellcheck disable=SC2046 # job ids
for j in $(cut -d' ' -f1 "$submitted"); do tp_wait_job "$j" 120 >/dev/null; done
# A submission while slurmctld restarts or munged is down may be refused:
# the user sees it, and the job must then not exist (checked below).
sed 's/^/# workload: /' "$out/workload.err"
# How many depends on the host's speed; that every kind ran through the
# faults does not.
kinds=$(sed -n 's/^[0-9]* bg[0-9]*-\([a-z0-9]*\)$/\1/p' "$submitted" | sort -u | paste -sd' ')
tp_check_eq "the workload ran ($(grep -c ' bg' "$submitted") jobs; sbatch errors: $(wc -l <"$out/workload.err")): every kind of job" \
	"leaf plain plain2 remap" "$kinds"
scontrol show job -o | sed -n 's/^JobId=\([0-9]*\) JobName=\([^ ]*\) .*JobState=\([A-Z_]*\) .*/\1 \2 \3/p' |
	sort -n >"$out/known"
# Every submitted job: known once, under its name, in a final state.
bad=$(while read -r id name; do
	states=$(awk -v id="$id" -v name="$name" '$1 == id && $2 == name { print $3 }' "$out/known")
	case $states in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | OUT_OF_MEMORY) ;;
	*) echo "$id $name: ${states:-lost}" | paste -sd' ' ;;
	esac
done <"$submitted")
tp_check_eq "each of the $(wc -l <"$submitted") jobs submitted reached one final state ($(cut -d' ' -f3 "$out/known" | sort | uniq -c | xargs))" \
	"" "$bad"
# Besides them: the sruns of the checks, named tp-probe (tpbob's in
# fault 1 and one after each fault).
tp_check_eq "slurmctld knows no job that was not submitted, and no name twice" \
	"" "$(awk 'NR == FNR { ours[$1 " " $2] = 1; next }
		$2 == "tp-probe" { next }
		!ours[$1 " " $2] || seen[$2]++ { print }' "$submitted" "$out/known")"
tp_check_eq "and the 7 probe sruns (tpbob's and one after each fault), once each" 7 \
	"$(grep -c '^[0-9]* tp-probe ' "$out/known")"
tp_check_eq "no job is left pending or running" "" \
	"$(awk '$3 !~ /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY)$/' "$out/known")"
# sacct reads slurmdbd's database: each job once, in the state slurmctld
# has, also those that ended or were recovered across the restart.
sacct_matches() {
	sacct -n -X -P -o JobID,JobName,State -j "$(cut -d' ' -f1 "$out/known" | paste -sd,)" 2>/dev/null |
		sed 's/|CANCELLED by [0-9]*$/|CANCELLED/; s/|/ /g' | sort -n >"$out/sacct"
	cmp -s "$out/known" "$out/sacct"
}
if [ "${TP_BED_ACCOUNTING:-0}" = 1 ]; then
	wait_for 30 sacct_matches
	tp_check_eq "sacct has each of the $(wc -l <"$out/known") jobs once, in its final state" \
		"$(cat "$out/known")" "$(cat "$out/sacct")"
fi
tp_check_eq "no node is drained or down" "" "$(sinfo -h -t drain,down,fail -o %N)"

a=$(submit end-leaf root -N 3 --placement=leaf -o /dev/null --wrap 'sleep 60')
wait_state "$a" RUNNING 30
la=$(leaves_of_job "$a")
tp_check_eq "after the faults, a whole-leaf job $a holds its leaf $la" \
	"topoplace: placement=leaf class=quiet held=$(nodes_of_leaf "$la")" "$(system_comment "$a")"
n=$(submit end-plain root -N 1 --placement=off -o /dev/null --wrap 'sleep 30')
wait_state "$n" RUNNING 30
ln=$(leaves_of_job "$n")
tp_check "and a 1-node job (cons_tres's tightest fit: the held leaf) keeps off it (it got $ln)" \
	test -n "$ln" -a "$ln" != "$la"
scancel "$a" "$n"
for j in $a $n; do tp_wait_job "$j" 30 >/dev/null; done

tp_check "slurmctld runs (restarted: $ctld_pid -> $(cat "$TP_BED_DIR/run/slurmctld.pid"))" \
	bash -c '[ "$1" != "$2" ] && kill -0 "$2"' _ "$ctld_pid" "$(cat "$TP_BED_DIR/run/slurmctld.pid")"
tp_check "munged runs (restarted: $munged_pid -> $new_munged_pid)" \
	bash -c '[ "$1" != "$2" ] && kill -0 "$2"' _ "$munged_pid" "$new_munged_pid"
changed=$(for n in "${!slurmd_pid[@]}"; do
	pid=$(cat "$TP_BED_DIR/run/slurmd.$n.pid")
	kill -0 "$pid" 2>/dev/null || echo "$n: not running"
	[ "$pid" = "${slurmd_pid[$n]}" ] || echo "$n: $pid"
done | sort | paste -sd,)
tp_check_eq "every slurmd runs with its first PID but $x's (restarted)" \
	"$x: $new_slurmd_pid" "$changed"
tp_done
