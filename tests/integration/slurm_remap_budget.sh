#!/bin/bash
# slurm_remap_budget.sh: task/topoplace's work for a batch job is bounded
# and never changes the job's task count (issue #14, items 1 and 2), on the
# tp-bed cluster of slurm_place.sh (4 leaves x 4 hosts, 8 CPUs a node), as
# tpalice (jobs) and tpbob (the other user).
#
#   the job's task count wins: with the 16-rank profile hpcg, picked by
#       job name (-J hpcg) or by --comm-profile, `sbatch -N4 -n N` then a
#       plain srun runs N tasks for N = 32, 8, 12 (Slurm's layout, a note
#       on the job's stderr, no hostfile) and 16 ranks by the mapping for
#       N = 16; a 10^6-rank profile on -n 2 writes no hostfile.
#   the budget: a 1024-rank all-to-all profile (25 MB, 1 M matrix entries,
#       its summary removed so slurmd must read it whole)
#       under RemapBudget=10ms: the job starts, runs in Slurm's order with
#       one slurmd log line and a note in its output, while tpbob's plain
#       `srun -w <its node> hostname` completes in seconds; scancel leaves
#       it CANCELLED (not requeued or pending) and no job directory.
#       Under RemapMemory=16MiB the same profile is refused for memory:
#       the job runs in Slurm's order, with the reason in its output.
#   RemapSearch: full, site-wide, reaches slurmd's remapping of a batch job
#       (DebugFlags=Remap) and srun's own step (srun -v); a partition's
#       RemapSearch=fast overrides it for srun; auto, the default, tries
#       fewer partitions than full in both.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_remap_budget --timeout 480 --cpus 8

tp_slurm_setup
bob=tpbob
id -u "$bob" >/dev/null 2>&1 || tp_skip "user $bob does not exist"
tp_slurm_profiles
tp_slurm_conf
base=/run/topoplace-bed/jobs/topoplace
cp "$etc/topoplace.conf" "$out/good.conf"

# slurmd_lines PATTERN: how many slurmd log lines match PATTERN.
slurmd_lines() { cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c -- "$1"; }
# put_profile KIND RANKS NAME: a generated profile, signed into the store
# as $user/NAME.
put_profile() {
	"$gen" "$1" "$2" "$out/$3.tpp" && chmod 644 "$out/$3.tpp" &&
		tp_as_user "$user" "$tp" profile put --store "$store" \
			--munge-socket "$sock" "$out/$3.tpp" "$user/$3" >/dev/null
}
# The batch script of the task-count cases: what it was given, then how
# many tasks a plain srun ran.
# shellcheck disable=SC2016 # expanded by the job's shell
script='echo "hostfile ${SLURM_HOSTFILE:-none} rankfile ${TOPOPLACE_RANKFILE:-none}"
	echo "tasks $(srun bash -c "echo \$SLURM_PROCID" | wc -l)"'

# --- the job's own task count wins ------------------------------------------
for how in "-J hpcg" "-J other --comm-profile=hpcg"; do
	for n in 32 8 12; do
		# shellcheck disable=SC2086 # $how is two words
		j=$(tp_as_user "$user" sbatch --parsable -N4 -n "$n" $how \
			-o "$out/count-%j.out" --wrap "$script")
		tp_check_eq "sbatch -N4 -n $n $how (16-rank profile) completes" \
			COMPLETED "$(tp_wait_job "$j" 60)"
		tp_check_eq "(-n $n $how) a plain srun runs $n tasks" "tasks $n" \
			"$(grep '^tasks ' "$out/count-$j.out")"
		tp_check_eq "(-n $n $how) in Slurm's layout: no hostfile, no rankfile" \
			"hostfile none rankfile none" "$(grep '^hostfile ' "$out/count-$j.out")"
		tp_check_eq "(-n $n $how) the job's output says why" \
			"topoplace: profile $user/hpcg has 16 ranks but the job has $n tasks: ranks not remapped, Slurm's task layout kept (not scaled: its 16-rank run is not a stencil in MPI_Dims_create's layout)" \
			"$(grep '^topoplace:' "$out/count-$j.out")"
		tp_check_eq "(-n $n $how) one slurmd line says it" 1 \
			"$(slurmd_lines "task/topoplace: JobId=$j: profile $user/hpcg has 16 ranks, the job has $n tasks: no rank remapping")"
		tp_check "(-n $n $how) SystemComment says the profile gives the class only" \
			bash -c 'scontrol show job "$1" | grep -q "SystemComment=topoplace: .*: profile $2/hpcg has 16 ranks, the job $3 tasks: class only, Slurm.s layout"' \
			_ "$j" "$user" "$n"
	done
done
j=$(tp_as_user "$user" sbatch --parsable -N4 -J hpcg \
	-o "$out/count-%j.out" --wrap "$script")
tp_check_eq "sbatch -N4 -J hpcg (no -n) completes" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "(no -n) srun runs Slurm's default, a task a node" "tasks 4" \
	"$(grep '^tasks ' "$out/count-$j.out")"
tp_check "(no -n) SystemComment says the profile gives the class only" \
	bash -c 'scontrol show job "$1" | grep -q "SystemComment=topoplace: .*: profile $2/hpcg has 16 ranks, the job gave no task count: class only"' \
	_ "$j" "$user"
tp_check_eq "(no -n) the job's output says why" \
	"topoplace: profile $user/hpcg has 16 ranks but the job gave no task count (-n): ranks not remapped, Slurm's task layout kept" \
	"$(grep '^topoplace:' "$out/count-$j.out")"
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J hpcg \
	-o "$out/count-%j.out" --wrap "$script")
tp_check_eq "sbatch -N4 -n 16 -J hpcg (ranks = tasks) completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "(-n 16) remapped: hostfile and rankfile in the job's directory" \
	"hostfile $base/$j/hostfile rankfile $base/$j/rankfile" \
	"$(grep '^hostfile ' "$out/count-$j.out")"
tp_check_eq "(-n 16) srun runs the 16 ranks" "tasks 16" \
	"$(grep '^tasks ' "$out/count-$j.out")"
tp_check_eq "(-n 16) and nothing to say on the job's output" 0 \
	"$(grep -c '^topoplace:' "$out/count-$j.out")"

# shellcheck disable=SC2016 # expanded by the tasks' shell
tp_as_user "$user" timeout 60 salloc -N4 -n 8 srun --comm-profile=hpcg \
	bash -c 'echo ${SLURM_HOSTFILE:-none}' >"$out/salloc8.out" 2>"$out/salloc8.err"
tp_check_eq "salloc -N4 -n 8, then srun --comm-profile=hpcg: 8 tasks, no hostfile" \
	"8 none" "$(wc -l <"$out/salloc8.out") $(sort -u "$out/salloc8.out" | paste -sd,)"
tp_check "srun says why ($(grep topoplace "$out/salloc8.err"))" \
	grep -q "topoplace: JobId=[0-9]*: --comm-profile=hpcg: 16 ranks, but the allocation has SLURM_NTASKS=8: srun keeps Slurm's task layout" \
	"$out/salloc8.err"

put_profile quiet 1000000 million
tp_check_eq "a 10^6-rank profile (ring) is signed into the store" 0 $?
j=$(tp_as_user "$user" sbatch --parsable -N1 -n 2 --comm-profile=million \
	-o "$out/million-%j.out" --wrap "$script")
tp_check_eq "sbatch -n 2 --comm-profile=million completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "(10^6 ranks on -n 2) srun runs 2 tasks" "tasks 2" \
	"$(grep '^tasks ' "$out/million-$j.out")"
tp_check_eq "(10^6 ranks on -n 2) no hostfile or rankfile" \
	"hostfile none rankfile none" "$(grep '^hostfile ' "$out/million-$j.out")"
tp_check "(10^6 ranks on -n 2) the job's output says why ($(grep '^topoplace:' "$out/million-$j.out"))" \
	grep -q -e "^topoplace: profile $user/million has 1000000 ranks but the job has 2 tasks" \
	-e "^topoplace: topoplace's work for the job (profile, rank remapping, I/O servers) did not finish" "$out/million-$j.out"
tp_check "(10^6 ranks on -n 2) nothing left in $base/$j" \
	wait_for 5 test ! -e "$base/$j"

# --- the budget -----------------------------------------------------------
put_profile alltoall 1024 bigall
tp_check_eq "a 1024-rank all-to-all profile (1 M entries) is signed into the store" 0 $?
# Without its summary (a store written before summaries): slurmd must read
# the 25 MB run whole even to learn its ranks, the work the budget bounds.
# (With a summary these class-only jobs read a few KiB: slurm_profile_summary.sh.)
rm -f "$store/$user/bigall/"*.sum
tp_check_eq "(its summary removed)" 0 "$(ls "$store/$user/bigall/"*.sum 2>/dev/null | wc -l)"
echo "RemapBudget=10ms" >>"$etc/topoplace.conf"
# --placement=off and one task a node: room for tpbob on the job's nodes.
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 -J bigall --placement=off \
	-o "$out/big-%j.out" --wrap 'echo "rankfile ${TOPOPLACE_RANKFILE:-none}"; srun sleep 60')
tp_check "the job with the big profile starts" wait_state "$j" RUNNING 30
node=$(scontrol show hostnames "$(squeue -h -j "$j" -o %N)" | head -1)
start=${EPOCHREALTIME/[.,]/}
tp_as_user "$bob" timeout 30 srun -w "$node" hostname >"$out/bob.out" 2>"$out/bob.err"
rc=$?
ms=$(((${EPOCHREALTIME/[.,]/} - start) / 1000))
tp_check_eq "meanwhile $bob's srun -w $node hostname succeeds" 0 "$rc"
tp_check "(in seconds: $ms ms)" test "$ms" -lt 5000
tp_check "the job's output says it runs in Slurm's order" wait_for 10 \
	grep -qx "topoplace: topoplace's work for the job (profile, rank remapping, I/O servers) did not finish within its budget of 10 ms (RemapBudget): the job runs in Slurm's order" \
	"$out/big-$j.out"
tp_check_eq "with no rankfile" "rankfile none" "$(grep '^rankfile' "$out/big-$j.out")"
tp_check_eq "one slurmd log line" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: topoplace's work for the job (profile, rank remapping, I/O servers) did not finish within its budget of 10 ms")"
tp_check_eq "(and no other line of the job)" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j:")"
scancel "$j"
tp_check_eq "scancel: the job ends CANCELLED" CANCELLED "$(tp_wait_job "$j" 30)"
sleep 2
tp_check_eq "and stays so: nothing of $user pending or running" "" \
	"$(squeue -h -u "$user" -o '%i %T %r')"
tp_check_eq "(sacct-free check: scontrol says CANCELLED, not requeued)" \
	"CANCELLED 0" "$(scontrol show job -o "$j" | sed -n 's/.*JobState=\([A-Z]*\) .*Restarts=\([0-9]*\) .*/\1 \2/p')"
tp_check "no job directory is left" wait_for 5 test ! -e "$base/$j"

cp "$out/good.conf" "$etc/topoplace.conf"
echo "RemapBudget=8s RemapMemory=16MiB" >>"$etc/topoplace.conf"
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J bigall \
	-o "$out/bigmem-%j.out" --wrap 'echo "rankfile ${TOPOPLACE_RANKFILE:-none}"')
tp_check_eq "under RemapMemory=16MiB the job completes" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "in Slurm's order" "rankfile none" "$(grep '^rankfile' "$out/bigmem-$j.out")"
tp_check "its output names the profile and why ($(grep '^topoplace:' "$out/bigmem-$j.out"))" \
	grep -q -e "^topoplace: profile $user/bigall not used (.*): no rank remapping or I/O throttling from it" \
	-e "^topoplace: topoplace's work for the job (profile, rank remapping, I/O servers) needed more than 16 MiB (RemapMemory): the job runs in Slurm's order" \
	"$out/bigmem-$j.out"
tp_check "no job directory is left" wait_for 5 test ! -e "$base/$j"
cp "$out/good.conf" "$etc/topoplace.conf"

# --- RemapSearch: the site's search reaches slurmd's remapping --------------
# The 16-rank profile on 4 nodes: auto tries 2 METIS partitions for a job
# of at most 16 ranks (and Scotch's mapping, built with Scotch), full every
# one its budget allows: more.
printf 'DebugFlags=Remap\nRemapSearch=full\n' >>"$etc/topoplace.conf"
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J hpcg \
	-o "$out/search-%j.out" --wrap "$script")
tp_check_eq "RemapSearch=full: the 16-rank job completes" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "(remapped: a plain srun runs 16 tasks)" "tasks 16" \
	"$(grep '^tasks ' "$out/search-$j.out")"
full=$(cat "$TP_BED_LOGDIR"/slurmd.*.log | sed -n "s/.*task\/topoplace: Remap: JobId=$j: 16 ranks: .*; search full, \([0-9]*\) partitions$/\1/p")
tp_check "slurmd's DebugFlags=Remap line says search full and its partitions (${full:-none})" \
	test -n "$full"
# srun's own step (salloc, then srun --comm-profile) reads the same key, the
# partition's line over the site's; srun -v says which search ran.
# srun_search NAME: the partitions of srun -v's remap line for search NAME.
srun_search() {
	tp_as_user "$user" timeout 60 salloc -N4 -n16 srun -v --comm-profile=hpcg \
		true >/dev/null 2>"$out/search-srun-$1.err"
	sed -n "s/^srun: topoplace: JobId=[0-9]*: profile $user\/hpcg: 16 ranks on .* remapped (.*) -> .*; search $1, \([0-9]*\) partitions$/\1/p" \
		"$out/search-srun-$1.err"
}
sfull=$(srun_search full)
tp_check "RemapSearch=full: srun -v says search full and its partitions (${sfull:-none})" \
	test -n "$sfull"
echo "PartitionName=debug RemapSearch=fast" >>"$etc/topoplace.conf"
sfast=$(srun_search fast)
tp_check "PartitionName=debug RemapSearch=fast over the site's full: srun -v says search fast (${sfast:-none} partitions, full ${sfull:-none})" \
	test -n "$sfast" -a -n "$sfull" -a "${sfast:-0}" -le "${sfull:-0}"
cp "$out/good.conf" "$etc/topoplace.conf"
sauto=$(srun_search auto)
tp_check "by default srun -v says search auto (${sauto:-none} partitions, full ${sfull:-none})" \
	test -n "$sauto" -a -n "$sfull" -a "${sauto:-0}" -lt "${sfull:-0}"
printf 'DebugFlags=Remap\n' >>"$etc/topoplace.conf"
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J hpcg \
	-o "$out/search-%j.out" --wrap "$script")
tp_check_eq "by default the same job completes" COMPLETED "$(tp_wait_job "$j" 60)"
auto=$(cat "$TP_BED_LOGDIR"/slurmd.*.log | sed -n "s/.*task\/topoplace: Remap: JobId=$j: 16 ranks: .*; search auto, \([0-9]*\) partitions$/\1/p")
tp_check "with search auto, fewer partitions than full (${auto:-none} < ${full:-none})" \
	test -n "$auto" -a -n "$full" -a "${auto:-0}" -lt "${full:-0}"
cp "$out/good.conf" "$etc/topoplace.conf"

# --- a launch that fails after task/topoplace made the directory -----------
# The Prolog fails once (a site's node health check failing): slurmd has
# already made and filled the job's directory (task_p_slurmd_batch_request
# runs before the Prolog), no slurmstepd runs, the node drains and the job
# is requeued held. The SPANK job epilog removes the directory.
prolog=$TP_BED_DIR/prolog-fail-once
printf '#!/bin/sh
rm "%s" 2>/dev/null && exit 1
exit 0
' \
	"$TP_BED_DIR/prolog-fail-flag" >"$prolog"
chmod 755 "$prolog"
echo "Prolog=$prolog" >>"$SLURM_CONF"
scontrol reconfigure
sleep 2
touch "$TP_BED_DIR/prolog-fail-flag"
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J hpcg \
	-o "$out/prolog-%j.out" --wrap "$script")
tp_check "the Prolog fails the job's launch (the job is requeued held)" \
	wait_for 60 bash -c 'scontrol show job -o "$1" | grep -q "JobState=PENDING.*Reason=launch_failed_requeued_held\|Reason=launch_failed_requeued_held.*JobState=PENDING\|JobState=PENDING .*Reason=JobHeldAdmin\|JobState=PENDING .*Reason=launch"' _ "$j"
tp_check "slurmd had made the job's directory before the Prolog ran" \
	bash -c 'cat "$1"/slurmd.*.log | grep -q "task/topoplace: JobId=$2: profile .*remapped.* -> $3/$2"' \
	_ "$TP_BED_LOGDIR" "$j" "$base"
tp_check "the job epilog removed it ($(ls "$base" 2>/dev/null | paste -sd' '))" \
	wait_for 20 test ! -e "$base/$j"
tp_check_eq "one slurmd line says so" 1 \
	"$(slurmd_lines "topoplace: JobId=$j: job epilog: removed 1 job directory left in")"
scancel "$j"
tp_check_eq "scancel: the requeued job ends CANCELLED" CANCELLED "$(tp_wait_job "$j" 30)"
# An srun killed (SIGKILL) in a batch script leaves its private directory
# (its exit callback never runs): the job epilog removes it too.
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J killed \
	-o "$out/killed-%j.out" --wrap 'srun --comm-profile=hpcg sleep 30 & pid=$!
	sleep 4; ls -d /run/topoplace-bed/jobs/topoplace.$SLURM_JOB_ID.* | sed "s/^/left /"
	kill -9 $pid; sleep 1')
tp_check_eq "a batch job whose srun --comm-profile was killed ends" COMPLETED \
	"$(tp_wait_job "$j" 60)"
tp_check "srun had made its directory ($(grep '^left ' "$out/killed-$j.out"))" \
	grep -q "^left /run/topoplace-bed/jobs/topoplace\.$j\.......$" "$out/killed-$j.out"
tp_check "the job epilog removed it" \
	wait_for 20 bash -c '! ls -d /run/topoplace-bed/jobs/topoplace."$1".* 2>/dev/null' _ "$j"
# The epilog reads at most 65,536 entries of TmpFS (it runs at every job's
# end on every node): with more there it stops, says so once, and the job
# ends as usual.
fill=/run/topoplace-bed/jobs/tp-epilog-fill
python3 -c 'import os, sys
for i in range(65600):
    open(sys.argv[1] + ".%05d" % i, "w").close()' "$fill"
j=$(tp_as_user "$user" sbatch --parsable -N1 -o /dev/null --wrap true)
tp_check_eq "a job ends with 65,600 files in TmpFS" COMPLETED \
	"$(tp_wait_job "$j" 60)"
tp_check "its job epilog read only the first 65536 entries and said so" \
	wait_for 20 bash -c '(( $(cat "$1"/slurmd.*.log | grep -c "topoplace: JobId=$2: job epilog: read the first 65536 entries of /run/topoplace-bed/jobs only") == 1 ))' \
	_ "$TP_BED_LOGDIR" "$j"
find /run/topoplace-bed/jobs -maxdepth 1 -name 'tp-epilog-fill.*' -delete
sed -i '/^Prolog=/d' "$SLURM_CONF"
scontrol reconfigure
# shellcheck disable=SC2046 # node names
scontrol update nodename="$(sinfo -h -t drain -o %N | paste -sd,)" state=resume 2>/dev/null
tp_check_eq "no node stays drained" "" "$(sinfo -h -t drain -o %N)"
tp_done
