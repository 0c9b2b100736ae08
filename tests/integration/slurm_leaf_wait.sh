#!/bin/bash
# slurm_leaf_wait.sh: the whole-leaf wait bound (issue #15) on the tp-bed
# cluster of slurm_place.sh (4 leaves x 4 hosts, Routing=adaptive).  No leaf
# is whole: a quiet job holds one host of leaf001, leaf003 and leaf004, an
# io_heavy job one host of leaf002.  A comm_sensitive `--placement=leaf`
# job of 3 nodes then
#   - with LeafWaitMax=none waits (SystemComment says why) and keeps
#     waiting past any bound;
#   - with LeafWaitMax=4s, after a reconfigure, starts once it has waited
#     4 s, on the 3 free hosts of a leaf beside the quiet job, never beside
#     the io_heavy one; its SystemComment and slurmctld's log say that leaf
#     gave way to shared and after how long;
#   - with LeafWaitMax=none again but the job's own --switches=1@0:03, the
#     same, with the job's 3 s as the bound.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_leaf_wait --timeout 300

tp_slurm_setup
tp_slurm_profiles

# A 3-node job on 4-host leaves would start at once beside the quiet job
# under the default LeafRemainder=compatible: the wait needs whole leaves.
write_conf() { tp_site_conf LeafRemainder=whole "$1"; } # LEAF-WAIT-LINE
as_user() { tp_as_user "$user" "$@"; }
comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }
io_leaf_free() { # JOB: none of JOB's leaves is the io_heavy job's
	leaves_disjoint "$(leaves_of_job "$1")" "$(leaves_of_job "$io")"
}

tp_check "slurmctld loads LeafWaitMax=none" write_conf "LeafWaitMax=none"
quiet=$(as_user sbatch --parsable -J quiet --placement=off -N 3 \
	-w n0001,n0009,n0013 -o /dev/null --wrap 'sleep 300')
io=$(as_user sbatch --parsable -J ioheavy --placement=shared -N 1 \
	-w n0005 -o /dev/null --wrap 'sleep 300')
tp_check "the quiet and io_heavy jobs run" wait_for 30 \
	bash -c "[ \"\$(squeue -h -t R -j $quiet,$io | wc -l)\" = 2 ]"
tp_check_eq "the io_heavy job is io_heavy" 1 \
	"$(grep -c "JobId=$io placement=shared nodes=n0005 policy=shared class=io_heavy" "$log")"

# No bound: waits, and keeps waiting.
a=$(as_user sbatch --parsable -J hpcg --placement=leaf -N 3 -o /dev/null --wrap 'sleep 60')
tp_check "no bound: the leaf job waits and says why" wait_for 20 \
	bash -c "scontrol show job $a | grep -q 'SystemComment=topoplace: placement=leaf class=comm_sensitive waits: .*leaf policy needs 3 hosts'"
sleep 8
tp_check_eq "no bound: still pending after 8 s" PENDING "$(squeue -h -j "$a" -o %T)"
scancel "$a"

# Site bound: 4 s.
tp_check "slurmctld loads LeafWaitMax=4s" write_conf "LeafWaitMax=4s"
b=$(as_user sbatch --parsable -J hpcg --placement=leaf -N 3 -o /dev/null --wrap 'sleep 60')
tp_check "LeafWaitMax=4s: the leaf job starts" wait_state "$b" RUNNING 40
waited=$(job_waited "$b")
tp_check "... after waiting its bound (StartTime - SubmitTime = ${waited} s)" [ "$waited" -ge 4 ]
tp_check "... on leaves without the io_heavy job" io_leaf_free "$b"
tp_check_eq "... on one leaf, beside the quiet job" 1 "$(leaves_of_job "$b" | wc -w)"
c=$(comment "$b")
tp_check "... SystemComment says leaf gave way to shared and why" \
	grep -Eq "^topoplace: placement=shared class=comm_sensitive.*leaf gave way to shared after [4-9] s \(bound 4 s\)" <<<"$c"
tp_check "... slurmctld's log says so" \
	grep -q "topoplace: JobId=$b: placement=leaf: waited [0-9]* s for whole leaves, bound 4 s: starts as shared with compatible jobs" "$log"
scancel "$b"
tp_wait_job "$b" 30 >/dev/null

# The job's own bound: --switches=1@0:03 under LeafWaitMax=none.
tp_check "slurmctld loads LeafWaitMax=none again" write_conf "LeafWaitMax=none"
d=$(as_user sbatch --parsable -J hpcg --placement=leaf -N 3 --switches=1@0:03 \
	-o /dev/null --wrap 'sleep 60')
tp_check "--switches=1@0:03: the leaf job starts" wait_state "$d" RUNNING 40
tp_check "... on leaves without the io_heavy job" io_leaf_free "$d"
tp_check "... SystemComment names the job's own bound" \
	grep -q "leaf gave way to shared after [0-9]* s (bound 3 s)" <<<"$(comment "$d")"
scancel "$d" "$quiet" "$io"
tp_check "slurmctld still answers" scontrol ping
tp_done
