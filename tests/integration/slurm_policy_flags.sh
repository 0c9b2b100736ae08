#!/bin/bash
# slurm_policy_flags.sh: the site's throttle policy cannot be bypassed and
# flag keywords take any case (issue #14, item 4), through sbatch, srun and
# salloc, on the tp-bed cluster of slurm_place.sh, as tpalice.
#
#   ThrottleAllowUserOff=no, ThrottleMinWindow=1ms: --io-throttle=1us is
#       raised to 1 ms (no profile) or to the site's window for the job
#       (2 ms from the threshold table, profile ioheavy); the tasks get the
#       raised window and the job's output (or srun's stderr) says so.
#   --placement=LEAF (any case) is accepted like topoplace.conf's values
#       and means leaf: in the tasks' environment and the SystemComment.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_policy_flags --timeout 300

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf
printf 'ThrottleAllowUserOff=no\nThrottleMinWindow=1ms\n' >>"$etc/topoplace.conf"
# shellcheck disable=SC2016 # expanded by the tasks' shell
show='echo "window ${TOPOPLACE_IO_WINDOW_US:-none} placement ${TOPOPLACE_PLACEMENT:-none}"'
raised_min="topoplace: --io-throttle: window 1 ms set by the user (raised to the site minimum 1 ms)"

# --- --io-throttle below the site's window ----------------------------------
j=$(tp_as_user "$user" sbatch --parsable -N1 --io-throttle=1us \
	-o "$out/min-%j.out" --wrap "srun -n1 bash -c '$show'")
tp_check_eq "sbatch --io-throttle=1us (no profile) completes" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "its step is paced at the site minimum, 1000 us" "window 1000 placement auto" \
	"$(grep '^window ' "$out/min-$j.out")"
tp_check_eq "the job's output says the window was raised" "$raised_min" \
	"$(grep '^topoplace:' "$out/min-$j.out")"

j=$(tp_as_user "$user" sbatch --parsable -N4 -n4 -J ioheavy --io-throttle=1us \
	-o "$out/site-%j.out" --wrap "srun -n1 bash -c '$show'")
tp_check_eq "sbatch -J ioheavy --io-throttle=1us (io_heavy profile) completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "its step is paced at the site's window for the job, 2000 us" \
	"window 2000 placement auto" "$(grep '^window ' "$out/site-$j.out")"
tp_check_eq "the job's output says so" \
	"topoplace: --io-throttle: window 2 ms set by the user (raised to the site's window 2 ms for this job)" \
	"$(grep '^topoplace: --io-throttle' "$out/site-$j.out")"

tp_as_user "$user" timeout 60 srun -N2 -n2 --io-throttle=1us bash -c "$show" \
	>"$out/srun.out" 2>"$out/srun.err"
tp_check_eq "srun --io-throttle=1us: both tasks paced at 1000 us" "window 1000 placement auto
window 1000 placement auto" "$(cat "$out/srun.out")"
tp_check_eq "srun's stderr says it once" "$raised_min" "$(grep '^topoplace:' "$out/srun.err")"

tp_as_user "$user" timeout 60 salloc -N1 --io-throttle=1us srun -n1 bash -c "$show" \
	>"$out/salloc.out" 2>"$out/salloc.err"
tp_check_eq "salloc --io-throttle=1us, then srun: paced at 1000 us" "window 1000 placement auto" \
	"$(grep '^window ' "$out/salloc.out")"
tp_check_eq "and says so" "$raised_min" "$(grep '^topoplace:' "$out/salloc.err")"

tp_as_user "$user" timeout 60 srun -N1 -n1 --io-throttle=5ms bash -c "$show" \
	>"$out/wide.out" 2>"$out/wide.err"
tp_check_eq "a window above the site's stands: 5000 us" "window 5000 placement auto" \
	"$(cat "$out/wide.out")"
tp_check_eq "(with nothing to say)" 0 "$(grep -c '^topoplace:' "$out/wide.err")"

# --- --placement in any case -----------------------------------------------
j=$(tp_as_user "$user" sbatch --parsable -N4 --placement=LEAF \
	-o "$out/leaf-%j.out" --wrap "srun -n1 bash -c '$show'")
tp_check_eq "sbatch --placement=LEAF is accepted and completes" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "its tasks see placement leaf" "window none placement leaf" \
	"$(grep '^window ' "$out/leaf-$j.out")"
# shellcheck disable=SC2016 # $1 of the inner shell
tp_check "slurmctld placed it as leaf ($(scontrol show job "$j" | grep -o 'SystemComment=.*'))" \
	bash -c 'scontrol show job "$1" | grep -q "SystemComment=topoplace: placement=leaf"' _ "$j"
tp_as_user "$user" timeout 60 srun -N1 --placement=Leaf bash -c "$show" \
	>"$out/srun-leaf.out" 2>"$out/srun-leaf.err"
tp_check_eq "srun --placement=Leaf: placement leaf" "window none placement leaf" \
	"$(cat "$out/srun-leaf.out")"
tp_as_user "$user" timeout 60 salloc -N1 --placement=sHaReD srun bash -c "$show" \
	>"$out/salloc-leaf.out" 2>"$out/salloc-leaf.err"
tp_check_eq "salloc --placement=sHaReD, then srun: placement shared" \
	"window none placement shared" "$(grep '^window ' "$out/salloc-leaf.out")"
tp_as_user "$user" sbatch -N1 --placement=LEAFS --wrap true >"$out/bad.out" 2>"$out/bad.err"
tp_check_eq "--placement=LEAFS is still refused, named as typed" \
	"sbatch: error: topoplace: --placement: 'LEAFS' is not a placement policy (expected one of auto|leaf|shared|pack|spread|off)" \
	"$(grep 'topoplace:' "$out/bad.err")"
tp_done
