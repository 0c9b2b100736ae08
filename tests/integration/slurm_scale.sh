#!/bin/bash
# slurm_scale.sh: 2,000 jobs through select/topoplace_cons_tres (issue 7,
# test 6): all complete, and slurmctld's resident memory stays flat between
# the first 500 and the last (the plugin's per-job state is dropped at
# job_fini; pending decisions are bounded).
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	tp_require_bed
	plugins=$abs_top_builddir/slurm-plugin/.libs
	work=$(mktemp -d /tmp/tp-slurm-scale.XXXXXX) && chmod 755 "$work" || exit 1
	echo "optional $plugins/spank_topoplace.so" >"$work/plugstack.conf"
	"$abs_top_builddir/tools/topoplace-fattree" --leaves 4 \
		--hosts-per-leaf 4 --spines 2 --format slurm \
		-o "$work/topology.conf" || exit 1
	# Finished jobs leave slurmctld's memory after 2 s (MinJobAge), so
	# its RSS measures live state; completions are counted in jobcomp.
	"$abs_top_srcdir/tests/lib/tp-bed" --topology "$work/topology.conf" \
		--cpus 4 --select select/topoplace_cons_tres \
		--task-plugin task/topoplace --plugin-dir "$plugins" \
		--plugstack "$work/plugstack.conf" --conf "MinJobAge=2" \
		--conf "JobCompType=jobcomp/filetxt" \
		--conf "JobCompLoc=/run/topoplace-bed/log/jobcomp.txt" \
		--conf "MaxArraySize=1001" --timeout 900 \
		--keep "$abs_top_builddir/tests/integration/slurm_scale.keep" \
		-- "$0" --inside
	rc=$?
	rm -rf "$work"
	exit $rc
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
etc=$(dirname "$SLURM_CONF")
comp=$TP_BED_LOGDIR/jobcomp.txt
printf 'FabricSource=topology\n' >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
pid=$(cat "$TP_BED_DIR/run/slurmctld.pid")
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
completed() {
	local n
	n=$(grep -c 'JobState=COMPLETED' "$comp" 2>/dev/null)
	echo "${n:-0}"
}
# wait_done N: until N jobs completed and none is left.
wait_done() {
	local deadline=$((SECONDS + 600))
	while (($(completed) < $1)) && ((SECONDS < deadline)); do sleep 1; done
	while [ -n "$(squeue -h)" ] && ((SECONDS < deadline)); do sleep 1; done
}
# 500 jobs: arrays of 1..4-node jobs under each policy.
batch() {
	local p
	for p in leaf pack spread off; do
		sbatch --array=0-124 -N $((RANDOM % 4 + 1)) --placement=$p \
			-o /dev/null --wrap true >/dev/null
	done
}
batch
wait_done 500
rss0=$(rss)
batch; batch; batch
wait_done 2000
rss1=$(rss)
echo "# slurmctld VmRSS after 500 jobs: $rss0 KiB, after 2000: $rss1 KiB"
tp_check_eq "all 2000 jobs completed" 2000 "$(completed)"
tp_check "slurmctld RSS stayed flat (grew $((rss1 - rss0)) KiB, bound 8192)" \
	[ $((rss1 - rss0)) -le 8192 ]
tp_check "every job went through the plugin" \
	bash -c '[ $(grep -c "topoplace: JobId=[0-9_()]* placement=[a-z]* nodes=n.* policy=[a-z]*" "$1") -ge 2000 ]' _ "$TP_BED_SLURMCTLD_LOG"
tp_check "array tasks kept their array's policy (leaf)" \
	grep -q "topoplace: JobId=[0-9]*_[0-9]*([0-9]*) placement=leaf nodes=n.* policy=leaf" "$TP_BED_SLURMCTLD_LOG"
tp_check "slurmctld still answers" scontrol ping
tp_done
