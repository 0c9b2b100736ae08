#!/bin/bash
# plugin_slice.sh: the three topoplace plugins, built in this tree, loaded by
# real Slurm daemons and clients, with jobs still scheduled and run normally.
#
#   select/topoplace_cons_tres  wraps select/cons_tres (slurmctld and clients)
#   task/topoplace              exports TOPOPLACE_PLACEMENT (slurmstepd)
#   spank_topoplace.so          --placement=... (sbatch, salloc, srun)
#
# Run by `make check`; needs root (namespaces) and the build tree's plugins.
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	plugins=${TP_PLUGIN_BUILD_DIR:-$abs_top_builddir/slurm-plugin/.libs}
	for so in select_topoplace_cons_tres.so task_topoplace.so spank_topoplace.so; do
		if [ ! -f "$plugins/$so" ]; then
			echo "not ok - plugin $so is built ($plugins)"
			echo "0 passed, 1 failed"
			exit 1
		fi
	done
	# plugstack.conf must exist before the bed starts; it is a build
	# product (removed by make clean), not state.
	mkdir -p "$abs_top_builddir/tests/integration"
	plugstack="$abs_top_builddir/tests/integration/plugin_slice.plugstack.conf"
	echo "optional $plugins/spank_topoplace.so" > "$plugstack"
	exec "$abs_top_srcdir/tests/lib/tp-bed" --nodes 8 --leaves 2 \
		--select select/topoplace_cons_tres \
		--task-plugin task/topoplace \
		--plugin-dir "$plugins" --plugstack "$plugstack" \
		--conf "SlurmctldDebug=info" \
		--keep "$abs_top_builddir/tests/integration/plugin_slice.keep" \
		-- "$0" --inside
fi

. "$abs_top_srcdir/tests/lib/bed.sh"

user=${TP_TEST_USER:-tpalice}
out=$TP_BED_JOBDIR

# --- loading: slurmctld runs our select plugin, clients load it too ---------
tp_check_eq "slurmctld runs the wrapper" "select/topoplace_cons_tres" \
	"$(scontrol show config | sed -n 's/^SelectType *= *//p')"
tp_check "sinfo loads the wrapper and answers" \
	bash -c '[ "$(sinfo -h -o %D -t idle)" = 8 ]'
tp_check "squeue loads the wrapper and answers" squeue -h
tp_check "sbatch --help lists --placement" \
	bash -c 'sbatch --help | grep -q -- "--placement=auto|leaf|shared|pack|spread|off"'

# --- a bad value is refused at submission, with one clear line --------------
njobs_before=$(squeue -h | wc -l)
err=$(sbatch --placement=leafs --wrap true 2>&1 >/dev/null)
rc=$?
tp_check "sbatch --placement=leafs is refused" [ "$rc" -ne 0 ]
tp_check "the refusal names the value and the choices" \
	bash -c "grep -q \"'leafs' is not a placement policy (expected one of auto|leaf|shared|pack|spread|off)\" <<<\"\$1\"" _ "$err"
tp_check_eq "no job was created by the refused submission" "$njobs_before" \
	"$(squeue -h | wc -l)"
err=$(srun --placement= true 2>&1)
tp_check "srun --placement= (empty) is refused" \
	bash -c "grep -q 'empty placement policy' <<<\"\$1\"" _ "$err"

# --- a batch job with the flag runs normally; the value reaches both sides --
job=$(sbatch --parsable -N 2 --placement=leaf -o "$out/leaf-%j.out" \
	--wrap 'srun -l printenv TOPOPLACE_PLACEMENT')
tp_check_eq "sbatch --placement=leaf job completes" COMPLETED \
	"$(tp_wait_job "$job" 60)"
tp_check_eq "task/topoplace exported the value to both tasks" "leaf leaf" \
	"$(sort "$out/leaf-$job.out" | awk '{print $2}' | xargs)"
tp_check "slurmctld logged the job's placement request" \
	grep -q "topoplace: JobId=$job placement=leaf nodes=n" "$TP_BED_SLURMCTLD_LOG"

# --- srun: allocation and step through the wrapper; default is auto --------
tp_check_eq "srun -N 4 --placement=spread runs 4 tasks with the value" \
	"spread spread spread spread" \
	"$(srun -N 4 --placement=spread printenv TOPOPLACE_PLACEMENT | xargs)"
tp_check_eq "without the flag the task sees auto" "auto" \
	"$(srun -N 1 printenv TOPOPLACE_PLACEMENT)"
tp_check_eq "a hand-set invalid TOPOPLACE_PLACEMENT is replaced by auto" "auto" \
	"$(TOPOPLACE_PLACEMENT=bogus srun -N 1 printenv TOPOPLACE_PLACEMENT)"
tp_check "slurmd logged the invalid value once, naming it" \
	bash -c "grep -h \"task/topoplace: .*TOPOPLACE_PLACEMENT: 'bogus' is not a placement policy\" \"\$TP_BED_LOGDIR\"/slurmd*.log | grep -q 'using auto'"
tp_check_eq "srun -N 8 fills the cluster through the wrapper" 8 \
	"$(srun -N 8 hostname | wc -l)"

# --- an unprivileged user goes through the same path ------------------------
if id -u "$user" >/dev/null 2>&1; then
	uid=$(id -u "$user")
	tp_check_eq "$user: srun --placement=pack runs as $user" "$uid pack" \
		"$(tp_as_user "$user" srun -N 1 --placement=pack bash -c 'echo $(id -u) $TOPOPLACE_PLACEMENT')"
	ujob=$(tp_as_user "$user" sbatch --parsable -N 2 --placement=off \
		-o "$out/user-%j.out" --wrap 'srun printenv TOPOPLACE_PLACEMENT')
	tp_check_eq "$user: sbatch --placement=off job completes" COMPLETED \
		"$(tp_wait_job "$ujob" 60)"
	tp_check_eq "$user: both tasks saw off" "off off" \
		"$(xargs < "$out/user-$ujob.out")"
else
	tp_skip "user $user does not exist (tools/install-deps creates it)"
fi

# --- slurmctld survived all of it --------------------------------------------
tp_check "slurmctld still answers" scontrol ping
tp_check_eq "no job left pending or running" 0 "$(squeue -h | wc -l)"
tp_done
