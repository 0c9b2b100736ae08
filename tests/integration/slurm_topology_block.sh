#!/bin/bash
# slurm_topology_block.sh (Slurm 24.11 only: 22.05 has no topology/block):
# TopologyPlugin=topology/block beside select/topoplace_cons_tres is refused
# plainly (issue #17).  cons_tres picks block-aligned node sets there;
# narrowed to whole leaves as well, a job could find no set both accept.
# On the tp-bed cluster of slurm_place.sh (16 hosts), slurm.conf's
# topology.conf made of four blocks of 4 hosts, topoplace.conf pointing at
# a fat-tree topology.conf of its own (TopologyConf=):
#   - slurmctld logs one error naming TopologyPlugin and what it does
#     instead, at each load of topoplace.conf (start and reconfigure);
#   - a `--placement=leaf` job runs, placed by cons_tres in one block (Slurm's
#     own block rule), and its SystemComment says Slurm placed it;
#   - slurmctld still answers.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
if [ "${1:-}" != --inside ]; then
	blocks=$(mktemp /tmp/tp-blocks.XXXXXX) || exit 1
	{
		for b in 1 2 3 4; do
			printf 'BlockName=block%u Nodes=n[%04u-%04u]\n' \
				"$b" $(((b - 1) * 4 + 1)) $((b * 4))
		done
		echo "BlockSizes=4"
	} >"$blocks"
	chmod 644 "$blocks"
	# A later --topology and TopologyPlugin win over tp_slurm_bed's own.
	(tp_slurm_bed slurm_topology_block --timeout 240 \
		--conf "TopologyPlugin=topology/block" --topology "$blocks")
	rc=$?
	rm -f "$blocks"
	exit $rc
fi

tp_slurm_setup
mkdir -p "$store" && chmod 755 "$store"
"${abs_top_builddir:-$abs_top_srcdir}/tools/topoplace-fattree" --leaves 4 \
	--hosts-per-leaf 4 --spines 2 --format slurm -o "$etc/tree.conf" ||
	tp_fail "topoplace-fattree writes the tree"
cat >"$etc/topoplace.conf" <<CONF
FabricSource=topology
TopologyConf=$etc/tree.conf
ProfileStore=$store
DefaultPlacement=off
CONF
refusal="fabric: TopologyPlugin=topology/block is not supported beside select/topoplace_cons_tres (topoplace places on fat trees: use topology/tree or none): jobs are placed by plain cons_tres"
tp_check "at start: one error naming TopologyPlugin" \
	grep -q "error: topoplace: init: $refusal" "$log"
before=$(grep -c "$refusal" "$log")
tp_check "the reconfigure loads topoplace.conf and refuses again" \
	reconfigure_and_wait "$refusal"
tp_check_eq "... in one line" $((before + 1)) "$(grep -c "$refusal" "$log")"

j=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 60')
tp_check "a --placement=leaf job runs" wait_state "$j" RUNNING 30
nodes=$(scontrol show hostnames "$(squeue -h -j "$j" -o %N)" | xargs)
blocks_of_job=$(for n in $nodes; do
	awk -v n="${n#n}" 'BEGIN { printf "block%u\n", int((n - 1) / 4) + 1 }'
done | sort -u | xargs)
tp_check_eq "... placed by cons_tres in one block" 1 "$(wc -w <<<"$blocks_of_job")"
tp_check "... its SystemComment says Slurm placed it" \
	grep -q "no usable fabric: placed by Slurm's default" <<<"$(system_comment "$j")"
tp_check "slurmctld's log says why for the job" \
	grep -q "topoplace: JobId=$j: placement=leaf: no fabric model" "$log"
scancel "$j"
tp_check "slurmctld still answers" scontrol ping
tp_done
