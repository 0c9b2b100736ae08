#!/bin/bash
# slurm_profile_runs.sh: of an application's several stored runs, a job
# gets the newest one of its own task count (issue #18, "profiles that
# scale with the job"; tp_identity_choose_run), in slurmctld (the class,
# SystemComment) and in slurmd (the rank remapping) alike, on the tp-bed
# cluster of slurm_place.sh (4 leaves x 4 hosts, 8 CPUs a node), as
# tpalice.  $user/app holds two runs: the 16-rank HPCG matrix
# (comm_sensitive), then a generated 8-rank quiet profile (the newest).
#   - sbatch -N4 -n 16 -J app: the older 16-rank run: class comm_sensitive,
#     SystemComment says an older run of the job's task count was chosen,
#     slurmd remaps (hostfile, rankfile, 16 ranks) and logs which run;
#   - sbatch -N2 -n 8 -J app: the newest (8 ranks): class quiet, remapped,
#     nothing said about older runs;
#   - sbatch -N4 -n 12 -J app: no run of 12 ranks: the newest, class only,
#     Slurm's layout, and the job is told so (the task-count rule).
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_profile_runs --timeout 300 --cpus 8

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf
base=/run/topoplace-bed/jobs/topoplace

slurmd_lines() { cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c -- "$1"; }
put() { # FILE: one more run of $user/app
	tp_as_user "$user" "$tp" profile put --store "$store" \
		--munge-socket "$sock" "$1" "$user/app" >/dev/null
}
tp_check "the 16-rank run is stored as $user/app" put "$out/hpcg.tpp"
sleep 1.1 # runs are ordered by time: the next is the newest
"$gen" quiet 8 "$out/quiet8.tpp" && chmod 644 "$out/quiet8.tpp" ||
	tp_fail "slurm_profile_gen makes an 8-rank profile"
tp_check "then an 8-rank run" put "$out/quiet8.tpp"
tp_check_eq "the store lists 2 runs of $user/app" 2 \
	"$("$tp" profile list --store "$store" "$user/app" | grep -c '\.tpp')"

# shellcheck disable=SC2016 # expanded by the job's shell
script='echo "hostfile ${SLURM_HOSTFILE:-none} rankfile ${TOPOPLACE_RANKFILE:-none}"
	echo "tasks $(srun bash -c "echo \$SLURM_PROCID" | wc -l)"'
class_of() { system_comment "$1" | sed -n 's/.* class=\([a-z_]*\).*/\1/p'; }

j=$(tp_as_user "$user" sbatch --parsable -N4 -n 16 -J app \
	-o "$out/runs-%j.out" --wrap "$script")
tp_check_eq "-n 16: completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check_eq "-n 16: the class of the older 16-rank run" comm_sensitive "$(class_of "$j")"
tp_check "-n 16: SystemComment says an older run of the job's task count was chosen" \
	grep -q "profile $user/app by job name, imported (an older run, of the job's task count)" \
	<<<"$(system_comment "$j")"
tp_check_eq "-n 16: remapped by it: hostfile and rankfile" \
	"hostfile $base/$j/hostfile rankfile $base/$j/rankfile" \
	"$(grep '^hostfile ' "$out/runs-$j.out")"
tp_check_eq "-n 16: srun runs the 16 ranks" "tasks 16" "$(grep '^tasks ' "$out/runs-$j.out")"
tp_check_eq "-n 16: slurmd says which run" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: profile $user/app: run .*, of the job's 16 tasks, over the newest")"

j=$(tp_as_user "$user" sbatch --parsable -N2 -n 8 -J app \
	-o "$out/runs-%j.out" --wrap "$script")
tp_check_eq "-n 8: completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check_eq "-n 8: the class of the newest run" quiet "$(class_of "$j")"
tp_check_eq "-n 8: nothing said of older runs" 0 \
	"$(system_comment "$j" | grep -c 'an older run')"
tp_check_eq "-n 8: remapped by it" \
	"hostfile $base/$j/hostfile rankfile $base/$j/rankfile" \
	"$(grep '^hostfile ' "$out/runs-$j.out")"
tp_check_eq "-n 8: srun runs the 8 ranks" "tasks 8" "$(grep '^tasks ' "$out/runs-$j.out")"

j=$(tp_as_user "$user" sbatch --parsable -N4 -n 12 -J app \
	-o "$out/runs-%j.out" --wrap "$script")
tp_check_eq "-n 12: completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check "-n 12: no run of 12 ranks: the newest gives the class only" \
	grep -q "profile $user/app has 8 ranks, the job 12 tasks: class only, Slurm's layout" \
	<<<"$(system_comment "$j")"
tp_check_eq "-n 12: Slurm's layout, 12 tasks" "hostfile none rankfile none tasks 12" \
	"$(grep '^hostfile ' "$out/runs-$j.out") $(grep '^tasks ' "$out/runs-$j.out")"
tp_check "slurmctld still answers" scontrol ping
tp_done
