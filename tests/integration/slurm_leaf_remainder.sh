#!/bin/bash
# slurm_leaf_remainder.sh: LeafRemainder=compatible, the default (issue #15,
# item 2), on the tp-bed cluster of slurm_place.sh (4 leaves x 4 hosts).
#   - a 4-node `--placement=leaf` job gets one whole leaf and holds it
#     (SystemComment held= its leaf's nodes);
#   - two 1-node `--placement=leaf` jobs run at the same time on one leaf,
#     not that one, each holding nothing (held=(none)) and saying so;
#   - a 2-node `--placement=leaf` job joins them there (the tightest
#     compatible leaf), so two leaves stay whole;
#   - an 8-node `--placement=leaf` job then starts at once on those two
#     whole leaves (under LeafRemainder=whole the three small jobs would
#     hold three leaves and it would wait).
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_leaf_remainder --timeout 300

tp_slurm_setup
tp_slurm_profiles

tp_check "slurmctld loads topoplace.conf (LeafRemainder not set)" tp_site_conf
tp_check_eq "topoplace config check shows the default" \
	"LeafRemainder=compatible  # default" \
	"$("${abs_top_builddir:-$abs_top_srcdir}/tools/topoplace" config check "$etc/topoplace.conf" 2>&1 | grep '^LeafRemainder=')"

leaf_nodes() { sed -n "s/^SwitchName=$1 Nodes=\([^ ]*\).*/\1/p" "$etc/topology.conf"; }

# A whole leaf, held.
w=$(sbatch --parsable -N 4 --placement=leaf -o /dev/null --wrap 'sleep 120')
tp_check "the 4-node leaf job runs" wait_state "$w" RUNNING 60
lw=$(leaves_of_job "$w")
tp_check_eq "... on one leaf" 1 "$(wc -w <<<"$lw")"
tp_check_eq "... which it holds" \
	"topoplace: placement=leaf class=quiet held=$(leaf_nodes "$lw")" \
	"$(system_comment "$w")"

# Two 1-node leaf jobs at once on one other leaf, holding nothing.
a=$(sbatch --parsable -N 1 --placement=leaf -o /dev/null --wrap 'sleep 120')
tp_check "the first 1-node leaf job runs" wait_state "$a" RUNNING 60
b=$(sbatch --parsable -N 1 --placement=leaf -o /dev/null --wrap 'sleep 120')
tp_check "the second 1-node leaf job runs" wait_state "$b" RUNNING 60
la=$(leaves_of_job "$a") lb=$(leaves_of_job "$b")
tp_check_eq "both 1-node jobs run at the same time" "RUNNING RUNNING" \
	"$(squeue -h -j "$a" -o %T) $(squeue -h -j "$b" -o %T)"
tp_check_eq "... on the same leaf" "$la" "$lb"
tp_check "... not the 4-node job's ($lw)" test "$la" != "$lw"
tp_check "... on different nodes" test \
	"$(squeue -h -j "$a" -o %N)" != "$(squeue -h -j "$b" -o %N)"
for j in $a $b; do
	tp_check_eq "job $j holds nothing and says where it went" \
		"topoplace: placement=leaf class=quiet held=(none): leaf: 1 host on a shared compatible leaf ($la), no whole leaf" \
		"$(system_comment "$j")"
done
tp_check "slurmctld's log gives the reason for the second (packed)" \
	grep -q "topoplace: JobId=$b: placement=leaf class=quiet allowed=1 hosts on leaves $la .*the remainder joins compatible jobs on $la" "$log"
tp_check_eq "the 4-node job's leaf is still held for it alone" \
	"topoplace: placement=leaf class=quiet held=$(leaf_nodes "$lw")" \
	"$(system_comment "$w")"

# A 2-node job joins them: two leaves stay whole.
c=$(sbatch --parsable -N 2 --placement=leaf -o /dev/null --wrap 'sleep 120')
tp_check "the 2-node leaf job runs" wait_state "$c" RUNNING 60
tp_check_eq "... beside the 1-node jobs" "$la" "$(leaves_of_job "$c")"

# 8 nodes in whole leaves: the two left whole, at once.
d=$(sbatch --parsable -N 8 --placement=leaf -o /dev/null --wrap 'sleep 30')
tp_check "the 8-node leaf job starts at once" wait_state "$d" RUNNING 60
ld=$(leaves_of_job "$d")
tp_check_eq "... on two whole leaves" 2 "$(wc -w <<<"$ld")"
tp_check "... neither of them used by the others" \
	leaves_disjoint "$ld" "$lw $la"
scancel "$w" "$a" "$b" "$c" "$d"
tp_check "slurmctld still answers" scontrol ping
tp_done
