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
#     Slurm's layout, and the job is told so (the task-count rule) and why
#     no run is scaled to it (its 16-rank run is not a stencil);
#   - $user/mg holds NPB-MG at 16 and 64 ranks (3-D periodic stencils):
#     sbatch -N4 -n 32 -J mg is remapped from the 16-rank run scaled to 32
#     ranks, says so in its output and in slurmctld's SystemComment, and
#     srun runs its 32 tasks as the hostfile says; $user/mg1 (the 16-rank
#     run only) keeps Slurm's layout, its SystemComment says class only,
#     and it is told why (profiles/scale_rule.h).
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
tp_check "-n 12: the job is told why no profile is scaled to it" \
	grep -q "topoplace: profile $user/app has 8 ranks but the job has 12 tasks: ranks not remapped, Slurm's task layout kept (not scaled: its 16-rank run is not a stencil in MPI_Dims_create's layout)" \
	"$out/runs-$j.out"

# Scaling (profiles/scale_rule.h): $user/mg holds NPB-MG's real runs at 16
# and 64 ranks, both MPI_Dims_create 3-D periodic stencils, so a 32-task
# job is remapped from the 16-rank run (the nearest) scaled to 32 ranks;
# $user/mg1 holds the 16-rank run only, and keeps Slurm's layout.
for r in 16 64; do
	"$tp" profile import --from matrix -o "$out/mg$r.tpp" \
		"$abs_top_srcdir/tests/data/matrices/NPB-MG.A-$r.txt" >/dev/null &&
		chmod 644 "$out/mg$r.tpp" || tp_fail "import NPB-MG.A-$r"
done
tp_as_user "$user" "$tp" profile put --store "$store" --munge-socket "$sock" \
	"$out/mg16.tpp" "$user/mg" >/dev/null
sleep 1.1
tp_check "$user/mg: NPB-MG at 16, then 64 ranks; $user/mg1: at 16 only" \
	tp_as_user "$user" "$tp" profile put --store "$store" \
	--munge-socket "$sock" "$out/mg64.tpp" "$user/mg"
tp_as_user "$user" "$tp" profile put --store "$store" --munge-socket "$sock" \
	"$out/mg16.tpp" "$user/mg1" >/dev/null
tp_check_eq "the summaries keep the stencil found at record time" \
	"stencil 3 periodic=111 bytes=" \
	"$(cat "$store/$user/mg/"*.sum | grep -o '^stencil 3 periodic=111 bytes=' | sort -u)"

# shellcheck disable=SC2016 # expanded by the job's shell
mgscript='echo "hostfile ${SLURM_HOSTFILE:-none} rankfile ${TOPOPLACE_RANKFILE:-none}"
	[ -n "${SLURM_HOSTFILE:-}" ] && cp "$SLURM_HOSTFILE" "hostfile.$SLURM_JOB_ID"
	srun bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME" | sort -n >"ranks.$SLURM_JOB_ID"
	echo "tasks $(wc -l <"ranks.$SLURM_JOB_ID")"'
j=$(cd "$out" && tp_as_user "$user" sbatch --parsable -N4 -n 32 -J mg \
	-o "$out/runs-%j.out" --wrap "$mgscript")
tp_check_eq "mg -n 32: completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check "mg -n 32: slurmctld's SystemComment says the scaled run, not class only" \
	bash -c 'scontrol show job "$1" | grep -q "SystemComment=topoplace: .*: profile $2/mg has 64 ranks, the job 32 tasks: a 16-rank run scaled to 32 ranks (3-D periodic stencil seen at 16, 64 ranks) (by job name"' \
	_ "$j" "$user"
tp_check "mg -n 32: the job is told its ranks are remapped from the scaled profile" \
	grep -q "topoplace: profile $user/mg: ranks remapped from a 16-rank profile scaled to 32 ranks (3-D periodic stencil seen at 16, 64 ranks)" \
	"$out/runs-$j.out"
tp_check_eq "mg -n 32: hostfile and rankfile" \
	"hostfile $base/$j/hostfile rankfile $base/$j/rankfile" \
	"$(grep '^hostfile ' "$out/runs-$j.out")"
tp_check_eq "mg -n 32: srun runs the job's 32 tasks (its count wins)" "tasks 32" \
	"$(grep '^tasks ' "$out/runs-$j.out")"
tp_check_eq "mg -n 32: 8 ranks on each of its 4 nodes" "8 8 8 8" \
	"$(sort "$out/hostfile.$j" | uniq -c | awk '{print $1}' | paste -sd' ')"
tp_check_eq "mg -n 32: each rank ran on the node the hostfile says" \
	"$(nl -v0 -w1 -s' ' "$out/hostfile.$j")" "$(cat "$out/ranks.$j")"
hop=$(grep -h "task/topoplace: JobId=$j: profile $user/mg: 32 ranks on .* remapped" "$TP_BED_LOGDIR"/slurmd*.log |
	sed -n 's/.*hop-bytes \([0-9]*\) (block order: \([0-9]*\)).*/\1 \2/p')
tp_check "mg -n 32: slurmd remapped the 32-rank grid, hop-bytes at most block order's ($hop)" \
	bash -c 'read -r h b <<<"$1" && [ -n "$b" ] && [ "$h" -le "$b" ]' _ "$hop"
tp_check_eq "mg -n 32: slurmd logs the verdict once (the newest run has 64 ranks)" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: profile $user/mg has 64 ranks, the job 32 tasks: remapped from a 16-rank profile scaled to 32 ranks")"

j=$(cd "$out" && tp_as_user "$user" sbatch --parsable -N4 -n 32 -J mg1 \
	-o "$out/runs-%j.out" --wrap "$mgscript")
tp_check_eq "mg1 -n 32: completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check "mg1 -n 32: slurmctld's SystemComment says class only" \
	bash -c 'scontrol show job "$1" | grep -q "SystemComment=topoplace: .*: profile $2/mg1 has 16 ranks, the job 32 tasks: class only, Slurm.s layout"' \
	_ "$j" "$user"
tp_check "mg1 -n 32: one size: Slurm's layout, and the job is told why" \
	grep -q "topoplace: profile $user/mg1 has 16 ranks but the job has 32 tasks: ranks not remapped, Slurm's task layout kept (not scaled: a stencil seen at 16 ranks only: one size does not show the application's layout at another)" \
	"$out/runs-$j.out"
tp_check_eq "mg1 -n 32: Slurm's layout, 32 tasks" "hostfile none rankfile none tasks 32" \
	"$(grep '^hostfile ' "$out/runs-$j.out") $(grep '^tasks ' "$out/runs-$j.out")"
tp_check "slurmctld still answers" scontrol ping
tp_done
