#!/bin/bash
# slurm_nodes_not_ready.sh: hosts that are back in a moment (a Slurm node
# not registered since slurmctld started, not responding, completing,
# rebooting) are not lost capacity of their leaf (CI failure on 24.11: its
# reconfigure restarts every slurmd, a `leaf` job tested while only n0003,
# n0007 and n0009 had registered got one host on each of three leaves and
# held all twelve).  On the tp-bed cluster of slurm_place.sh (4 leaves x 4
# hosts), the fault injected by hand: one slurmd per leaf stopped, then
# slurmctld restarted, so those four nodes stay UNKNOWN.
#   - a 3-node `--placement=leaf` job (LeafRemainder=whole) waits, and says
#     why (SystemComment, slurmctld's log): hosts not ready;
#   - a plain job of the same size runs at once meanwhile;
#   - once the slurmds are back, the leaf job runs on 3 hosts of one leaf
#     and holds that leaf's fourth, nothing more;
#   - no job is lost, slurmctld answers.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_nodes_not_ready --timeout 300

tp_slurm_setup
mkdir -p "$store" && chmod 755 "$store"
tp_check "slurmctld loads topoplace.conf" tp_site_conf LeafRemainder=whole

stopped=(n0002 n0006 n0010 n0014)
node_state() { scontrol -o show node "$1" | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }

for n in "${stopped[@]}"; do
	tp_check "slurmd of $n stopped" tp_stop_slurmd "$n"
done
tp_check "slurmctld restarted" tp_restart_slurmctld
tp_check_eq "the stopped nodes have not registered (UNKNOWN)" \
	"UNKNOWN UNKNOWN UNKNOWN UNKNOWN" \
	"$(for n in "${stopped[@]}"; do node_state "$n" | cut -d+ -f1; done | xargs)"
# The others register within seconds of the restart.
wait_for 60 bash -c "[ \$(sinfo -h -N -o %T | grep -c '^idle\$') = 12 ]"

w=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 120')
p=$(sbatch --parsable -N 3 --placement=off -o /dev/null --wrap 'sleep 120')
tp_check "a plain 3-node job runs at once" wait_state "$p" RUNNING 30
tp_check "slurmctld's log: the leaf job waits for hosts not ready" \
	wait_for 30 grep -q "topoplace: JobId=$w: placement=leaf class=quiet: waits: cannot be met now: .*wait for hosts not ready: not responding, completing or rebooting" "$log"
tp_check_eq "... it is pending" PENDING "$(squeue -h -j "$w" -o %T)"
tp_check "... and its SystemComment says why" \
	grep -q "hosts not ready" <<<"$(system_comment "$w")"
tp_check_eq "the plain job's hosts are not held" \
	"topoplace: placement=off" "$(system_comment "$p" | cut -d' ' -f1-2)"

for n in "${stopped[@]}"; do
	tp_check "slurmd of $n started again" tp_start_slurmd "$n"
done
tp_check "the leaf job runs once the slurmds are back" wait_state "$w" RUNNING 90
lw=$(leaves_of_job "$w")
tp_check_eq "... on one leaf" 1 "$(wc -w <<<"$lw")"
tp_check "... not the plain job's" leaves_disjoint "$lw" "$(leaves_of_job "$p")"
tp_check_eq "... holding that leaf's fourth host, nothing more" \
	"topoplace: placement=leaf class=quiet held=$(sed -n "s/^SwitchName=$lw Nodes=\([^ ]*\).*/\1/p" "$etc/topology.conf")" \
	"$(system_comment "$w")"
tp_check_eq "no job lost" 2 "$(squeue -h -j "$w,$p" | wc -l)"
scancel "$w" "$p"
tp_check "slurmctld still answers" scontrol ping
tp_done
